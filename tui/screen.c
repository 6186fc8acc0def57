#define _XOPEN_SOURCE 700
#include "screen.h"

#include "cmdline.h"

#include <curses.h>
#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <term.h>
#include <termios.h>
#include <unistd.h>

static struct termios saved_tty;
static bool have_saved_tty;
static bool screen_open;

/* Async-signal-safe restoration for fatal signals: the saved terminal modes, then
 * the escapes that end mouse reporting, show the cursor and leave the alternate
 * screen. endwin() is not safe here; this is. */
static void restore_raw(void)
{
	static const char reset[] = "\033[?1000l\033[?1002l\033[?1003l\033[?1006l\033[?25h"
	                            "\033[0m\033[?1049l\r\n";
	if (have_saved_tty)
		tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved_tty);
	ssize_t ignored = write(STDOUT_FILENO, reset, sizeof reset - 1);
	(void)ignored;
}

static void on_fatal(int sig)
{
	restore_raw();
	/* SA_RESETHAND put the default action back: die as the signal meant. */
	raise(sig);
}

static void install_crash_handlers(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_fatal;
	sa.sa_flags = (int)SA_RESETHAND;
	sigemptyset(&sa.sa_mask);
	int fatal[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGQUIT};
	for (size_t k = 0; k < sizeof fatal / sizeof fatal[0]; k++)
		sigaction(fatal[k], &sa, NULL);
}

static const short group_colors[6] = {COLOR_GREEN,   COLOR_CYAN, COLOR_YELLOW,
                                      COLOR_MAGENTA, COLOR_BLUE, COLOR_RED};

static void init_colors(tui_screen *s)
{
	const char *no_color = getenv("NO_COLOR");
	s->colors = has_colors() && !(no_color && no_color[0]);
	if (!s->colors)
		return;
	start_color();
	use_default_colors();
	for (int k = 0; k < 6; k++)
		init_pair((short)(C_GROUP0 + k), group_colors[k], -1);
	init_pair(C_OBSTACLE, COLOR_WHITE, -1);
	init_pair(C_BORDER, COLOR_BLUE, -1);
	init_pair(C_WALL, COLOR_CYAN, -1);
	init_pair(C_PATH, COLOR_YELLOW, -1);
	init_pair(C_TARGET, COLOR_RED, -1);
	init_pair(C_AID, COLOR_MAGENTA, -1);
	init_pair(C_SELECTED, COLOR_WHITE, COLOR_RED);
	init_pair(C_CURSOR, COLOR_BLACK, COLOR_WHITE);
	static const short heat[5] = {COLOR_BLUE, COLOR_CYAN, COLOR_GREEN, COLOR_YELLOW, COLOR_RED};
	for (int k = 0; k < 5; k++)
		init_pair((short)(C_HEAT1 + k), heat[k], -1);
}

/* The numeric keypad in application mode, which keypad() turns on, sends ESC O and a
 * letter. Terminals whose terminfo leaves these out (tmux-256color has no kent) would
 * hand over a lone Esc, which deselects, then the letter: each is mapped to what the
 * key shows. */
static void define_keypad_keys(void)
{
	static const struct {
		const char *seq;
		int key;
	} pad[] = {
	    {"\033OM", KEY_ENTER}, {"\033Oj", '*'}, {"\033Ok", '+'}, {"\033Om", '-'},
	    {"\033On", '.'},       {"\033Oo", '/'}, {"\033Op", '0'}, {"\033Oq", '1'},
	    {"\033Or", '2'},       {"\033Os", '3'}, {"\033Ot", '4'}, {"\033Ou", '5'},
	    {"\033Ov", '6'},       {"\033Ow", '7'}, {"\033Ox", '8'}, {"\033Oy", '9'},
	};
	for (size_t k = 0; k < sizeof pad / sizeof *pad; k++)
		/* The terminfo's own meaning stays; a key that cannot be defined is left as
		 * the terminal sends it, as before. */
		if (key_defined(pad[k].seq) == 0)
			(void)define_key(pad[k].seq, pad[k].key);
}

bool tui_screen_open(tui_screen *s)
{
	memset(s, 0, sizeof *s);
	setlocale(LC_ALL, "");
	s->utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
	/* Numbers in commands and save files use '.', whatever the user's locale. */
	setlocale(LC_NUMERIC, "C");
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		fprintf(stderr, "steer-tui: needs a terminal on stdin and stdout\n");
		return false;
	}
	const char *term = getenv("TERM") ? getenv("TERM") : "";
	/* The map needs a cursor that can be put anywhere: without one (TERM=dumb, a
	 * printing terminal) ncurses would draw an empty screen. Say so instead. */
	int err = 0;
	if (setupterm(NULL, STDOUT_FILENO, &err) != OK) {
		fprintf(stderr,
		        "steer-tui: unknown terminal type TERM='%s': cannot draw the map; run it "
		        "in a terminal emulator or set TERM (e.g. TERM=xterm-256color)\n",
		        term);
		return false;
	}
	const char *cup = tigetstr("cup");
	bool addressable = cup && cup != (char *)-1;
	del_curterm(cur_term);
	if (!addressable) {
		fprintf(stderr,
		        "steer-tui: this terminal (TERM='%s') cannot move the cursor, so it cannot "
		        "draw the map; run it in a terminal emulator such as xterm, or set TERM "
		        "(e.g. TERM=xterm-256color)\n",
		        term);
		return false;
	}
	have_saved_tty = tcgetattr(STDIN_FILENO, &saved_tty) == 0;
	install_crash_handlers();
	if (!newterm(NULL, stdout, stdin)) {
		fprintf(stderr, "steer-tui: cannot initialise the terminal (TERM='%s')\n", term);
		return false;
	}
	screen_open = true;
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	define_keypad_keys();
	nodelay(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	mousemask(BUTTON1_PRESSED | BUTTON3_PRESSED | BUTTON4_PRESSED | BUTTON5_PRESSED, NULL);
	mouseinterval(0);
	init_colors(s);
	getmaxyx(stdscr, s->rows, s->cols);
	return true;
}

void tui_screen_close(void)
{
	if (!screen_open)
		return;
	screen_open = false;
	mousemask(0, NULL);
	curs_set(1);
	endwin();
}

void tui_screen_resize(tui_screen *s)
{
	/* resize_term, not resizeterm: ncurses 6's resizeterm always queues a KEY_RESIZE,
	 * even when the size has not changed, so calling it for a KEY_RESIZE queues the
	 * next one and getch() never runs dry. This path queues nothing. */
	struct winsize ws;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 && ws.ws_row > 0)
		resize_term(ws.ws_row, ws.ws_col);
	getmaxyx(stdscr, s->rows, s->cols);
	clear();
}

static void draw_line(int row, int cols, const char *text, attr_t attr)
{
	attron(attr);
	mvhline(row, 0, ' ', cols);
	mvaddnstr(row, 0, text, tui_cols_bytes(text, cols));
	attroff(attr);
}

static void draw_pager(const tui_screen *s, tui_pager *p)
{
	tui_pager_box b = tui_pager_layout(p, s->cols, s->rows);
	tui_pager_scroll(p, 0, b.text_cols, b.text_rows); /* in range at this size */
	int total = tui_pager_height(p, b.text_cols);
	char row[TUI_PAGER_MAX_COLS * 4 + 1];
	attron(A_REVERSE);
	for (int r = 0; r < b.rows; r++)
		mvhline(b.top + r, b.left, ' ', b.cols);
	mvaddnstr(b.top, b.text_left, p->title, tui_cols_bytes(p->title, b.text_cols));
	for (int r = 0; r < b.text_rows; r++) {
		tui_pager_row(p, b.text_cols, p->top + r, row);
		mvaddnstr(b.text_top + r, b.text_left, row, tui_cols_bytes(row, b.text_cols));
	}
	if (b.rows >= 2) {
		int last = p->top + b.text_rows < total ? p->top + b.text_rows : total;
		/* the longest hint that fits the box */
		static const char *const scroll_hints[] = {
		    "j/k PgUp/PgDn g/G scroll, any other key closes",
		    "j/k PgUp/PgDn scroll, other keys close", "j/k scroll, other keys close",
		    "j/k; other keys close", "j/k; q closes"};
		enum { HINTS = sizeof scroll_hints / sizeof scroll_hints[0] };
		const char *hint = "any key closes";
		int at =
		    snprintf(row, sizeof row, "%d-%d of %d  ", total ? p->top + 1 : 0, last, total);
		for (size_t k = 0; total > b.text_rows && k < HINTS; k++) {
			hint = scroll_hints[k];
			if (at + (int)strlen(hint) <= b.text_cols)
				break;
		}
		snprintf(row + at, sizeof row - (size_t)at, "%s", hint);
		mvaddnstr(b.top + b.rows - 1, b.text_left, row, tui_cols_bytes(row, b.text_cols));
	}
	attroff(A_REVERSE);
}

/* The stats panel: the bottom rows of the map area, just above the status line. */
static void draw_panel(const tui_screen *s, const tui_frame_text *t)
{
	int top = s->rows - 2 - t->panel_lines;
	if (top < 0)
		top = 0;
	for (int k = 0; k < t->panel_lines && top + k < s->rows - 2; k++) {
		attr_t attr = k == 0 ? A_BOLD : 0;
		attron(attr);
		mvhline(top + k, 0, ' ', s->cols);
		/* Columns, not bytes: the sparklines' bars are three bytes each. */
		mvaddnstr(top + k, 0, t->panel[k], tui_cols_bytes(t->panel[k], s->cols));
		attroff(attr);
	}
}

/* The ':' line, scrolled sideways so the cursor is always on screen. */
static void draw_cmdline(const tui_screen *s, const char *text, size_t pos)
{
	int width = s->cols > 1 ? s->cols : 1;
	size_t cursor = pos + 1; /* after the ':' */
	size_t first = cursor >= (size_t)width ? cursor - (size_t)width + 1 : 0;
	char line[TUI_CMDLINE_MAX + 2];
	snprintf(line, sizeof line, ":%s", text);
	draw_line(s->rows - 1, s->cols, first < strlen(line) ? line + first : "", 0);
	curs_set(1);
	move(s->rows - 1, (int)(cursor - first));
}

void tui_screen_draw(tui_screen *s, const tui_grid *g, const tui_frame_text *t)
{
	erase();
	for (int row = 0; row < g->rows && row < s->rows; row++) {
		for (int col = 0; col < g->cols && col < s->cols; col++) {
			const tui_cell *c = &g->cells[row * g->cols + col];
			if (c->glyph == G_EMPTY)
				continue;
			attr_t attr = c->bold ? A_BOLD : 0;
			if (s->colors && c->color)
				attr |= COLOR_PAIR(c->color);
			else if (!s->colors && (c->color == C_SELECTED || c->color == C_CURSOR))
				attr |= A_REVERSE;
			attron(attr);
			mvaddstr(row, col, tui_glyph_text((tui_glyph)c->glyph, s->utf8));
			attroff(attr);
		}
	}
	if (t->banner_lines > 0 && s->rows > 2) {
		/* A blank row above and below, all in reverse: seen at a glance. */
		int h = t->banner_lines + 2, top = (s->rows - 2 - h) / 2;
		if (top < 0)
			top = 0;
		for (int k = 0; k < h && top + k < s->rows - 2; k++)
			draw_line(top + k, s->cols,
			          k && k <= t->banner_lines ? t->banner[k - 1] : "",
			          A_REVERSE | A_BOLD);
	}
	if (s->rows >= 2)
		draw_line(s->rows - 2, s->cols, t->status,
		          t->status_alert ? A_REVERSE | A_BOLD : A_REVERSE);
	if (t->panel_lines)
		draw_panel(s, t);
	if (s->rows >= 1) {
		if (t->cmdline && !t->pager) {
			draw_cmdline(s, t->cmdline, t->cmdline_pos);
		} else {
			draw_line(s->rows - 1, s->cols, t->message, 0);
			curs_set(0);
		}
	}
	if (t->pager)
		draw_pager(s, t->pager);
	refresh();
}
