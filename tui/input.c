/* steer-tui's input: the keys and the mouse on the map (the table in keys.h), the ':'
 * command line and the pager's keys. */
#define _XOPEN_SOURCE 700
#include "app.h"

#include <curses.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "help.h"
#include "keys.h"
#include "steer/command.h"
#include "steer/world.h"

static void on_more_keys(uv_timer_t *t);

/* --- actions ------------------------------------------------------------------------- */

static void cursor_world(const tui_app *a, double *x, double *y)
{
	tui_camera_to_world(&a->cam, a->cursor_col, a->cursor_row, x, y);
}

static void say_select_first(tui_app *a, const char *what)
{
	snprintf(a->message, sizeof a->message,
	         "%s: nothing selected - select a vehicle first (left click, Tab or :select ID)",
	         what);
}

/* The selection, for a key that sends a command about it; else 0, and the message
 * line says so. Every selection is a vehicle seen (or told of by the server) in the
 * current world: world_replaced drops it on every sign of a new one. */
static uint32_t selection_for(tui_app *a, const char *what)
{
	if (!a->selected)
		say_select_first(a, what);
	return a->selected;
}

static void click(tui_app *a, int col, int row, bool right)
{
	a->cursor_col = col;
	a->cursor_row = row;
	double x, y;
	cursor_world(a, &x, &y);
	if (right) {
		/* goto, not arrive: the server plans round what is in the way, with the
		 * geometry as it is now (circles move between snapshots), and where the
		 * straight line is clear its route is that line, arrived at as arrive. */
		uint32_t id = selection_for(a, "target");
		if (id)
			app_sendf(a, PURPOSE_NONE, "goto %u %.17g %.17g", id, x, y);
		return;
	}
	/* With a vehicle selected, a click is meant as a waypoint: only a click right on
	 * another vehicle's glyph selects that one instead. With none, a near miss (a
	 * neighbouring cell) still selects. */
	uint32_t hit =
	    a->snap_stale ? 0 : tui_pick(&a->net.snapshot, &a->cam, col, row, a->selected ? 0 : 1);
	if (hit && hit != a->selected) {
		app_select_vehicle(a, hit);
		snprintf(a->message, sizeof a->message,
		         "selected #%u - left click adds waypoints, right click sets its target",
		         hit);
	} else if (a->selected && !hit) {
		uint32_t id = selection_for(a, "waypoint");
		if (id)
			app_sendf(a, PURPOSE_NONE, "waypoint %u %.17g %.17g", id, x, y);
	}
}

/* The next (dir > 0) or previous vehicle by id among those in the snapshot, wrapping
 * around. */
static void cycle_selection(tui_app *a, int dir)
{
	const steer_snapshot *s = &a->net.snapshot;
	if (a->snap_stale) {
		snprintf(a->message, sizeof a->message,
		         "a new world: waiting for its first snapshot to select in");
		return;
	}
	uint32_t best = 0, wrap = 0;
	for (size_t k = 0; k < s->count; k++) {
		uint32_t id = s->v[k].id;
		if (dir > 0) {
			if (!wrap || id < wrap)
				wrap = id;
			if (id > a->selected && (!best || id < best))
				best = id;
		} else {
			if (!wrap || id > wrap)
				wrap = id;
			if ((!a->selected || id < a->selected) && (!best || id > best))
				best = id;
		}
	}
	app_select_vehicle(a, best ? best : wrap);
	if (!a->selected)
		snprintf(a->message, sizeof a->message, "no vehicle in view to select");
}

static void toggle(tui_app *a, uint32_t bit)
{
	const steer_snap_vehicle *v = a->selected ? app_find_vehicle(a, a->selected) : NULL;
	if (!v) {
		if (a->selected)
			snprintf(a->message, sizeof a->message,
			         "#%u is not in view: 0 fits the world, c follows it", a->selected);
		else
			say_select_first(a, steer_behavior_name(bit));
		return;
	}
	uint64_t now = uv_now(a->loop);
	bool on = tui_asked_on(&a->asked, v->id, bit, (v->behaviors & bit) != 0, now);
	uint32_t rid = app_sendf(a, PURPOSE_NONE, "%s %u %s", steer_behavior_name(bit), v->id,
	                         on ? "off" : "on");
	tui_asked_set(&a->asked, v->id, bit, !on, rid, now);
}

static tui_help_conn help_conn(const tui_app *a)
{
	return (tui_help_conn){a->net.where, a->cmd_port, a->net.snapshot.tick_rate,
	                       a->net.msg.welcome.snapshot_rate};
}

/* :select ID - in view: at once; elsewhere: the server says where it is. */
static void select_command(tui_app *a, int argc, char **argv)
{
	char *end = NULL;
	unsigned long id = argc == 2 ? strtoul(argv[1], &end, 10) : 0;
	if (argc != 2 || !end || *end || id == 0 || id > UINT32_MAX) {
		snprintf(a->message, sizeof a->message,
		         "usage: select ID (a vehicle's id, e.g. 12)");
		return;
	}
	const steer_snap_vehicle *v = app_find_vehicle(a, (uint32_t)id);
	if (v) {
		app_select_vehicle(a, v->id);
		app_centre_on(a, v->x, v->y);
		return;
	}
	if (a->net.state != NET_CONNECTED) {
		snprintf(a->message, sizeof a->message,
		         "select: #%lu is not in view (not connected)", id);
		return;
	}
	app_sendf(a, PURPOSE_SELECT_GET, "get %lu", id);
}

/* Runs the line: the client's own commands (help, select) here, the rest on the
 * server. */
static void run_cmdline(tui_app *a)
{
	a->cmdline_open = false;
	tui_cmdline_remember(&a->cmd);
	if (a->cmd.len == 0)
		return;
	char copy[TUI_CMDLINE_MAX];
	snprintf(copy, sizeof copy, "%s", a->cmd.buf);
	char *words[4];
	int n = 0;
	if (steer_cmd_split(copy, words, 4, &n) != STEER_OK)
		n = 0; /* more than four words: none of the forms below, nor looked up */
	if (n >= 1 && !strcmp(words[0], "select")) {
		select_command(a, n, words);
		return;
	}
	if (n == 1 && !strcmp(words[0], "quit")) { /* the server's quit would only reconnect */
		app_quit(a, 0);
		return;
	}
	if (n >= 1 && n <= 2 && !strcmp(words[0], "help")) {
		if (tui_help_commands(&a->pager, n == 2 ? words[1] : NULL) == 0) {
			a->pager.open = true;
			/* Not the last command's answer, which this line replaces. */
			snprintf(a->message, sizeof a->message, "help: %.60s",
			         n == 2 ? words[1] : "the commands");
		} else
			snprintf(a->message, sizeof a->message,
			         "help: no command '%.60s' (:help lists "
			         "them)",
			         n == 2 ? words[1] : "");
		return;
	}
	const steer_cmd_entry *e = n >= 1 ? steer_cmd_find(words[0]) : NULL;
	/* A question (get, list, world alone ...) shows its answer; the server judges
	 * the line itself, so one this parse refuses is still sent. */
	static steer_command parsed; /* big (a polygon's points): not on the stack */
	char perr[160];
	bool asks = e && steer_cmd_parse_line(&parsed, a->cmd.buf, perr, sizeof perr) == STEER_OK &&
	            !steer_cmd_writes(&parsed);
	tui_purpose purpose = asks ? PURPOSE_SHOW : PURPOSE_NONE;
	if (e &&
	    (!strcmp(e->name, "reset") || !strcmp(e->name, "scenario") || !strcmp(e->name, "load")))
		purpose = PURPOSE_REPLACE;
	if (e && !strcmp(e->name, "name") && n == 2 && strlen(words[1]) < TUI_NAME_MAX)
		app_send_name(a, a->cmd.buf, words[1]);
	else
		app_send_line(a, a->cmd.buf, purpose);
}

static void cmdline_key(tui_app *a, int ch)
{
	static const struct {
		int key;
		tui_edit edit;
	} edits[] = {
	    {KEY_LEFT, TUI_EDIT_LEFT},
	    {KEY_RIGHT, TUI_EDIT_RIGHT},
	    {KEY_HOME, TUI_EDIT_HOME},
	    {1 /* ^A */, TUI_EDIT_HOME},
	    {KEY_END, TUI_EDIT_END},
	    {5 /* ^E */, TUI_EDIT_END},
	    {KEY_DC, TUI_EDIT_DELETE},
	    {4 /* ^D */, TUI_EDIT_DELETE},
	    {21 /* ^U */, TUI_EDIT_KILL_START},
	    {11 /* ^K */, TUI_EDIT_KILL_END},
	    {23 /* ^W */, TUI_EDIT_KILL_WORD},
	    {KEY_UP, TUI_EDIT_HISTORY_UP},
	    {KEY_DOWN, TUI_EDIT_HISTORY_DOWN},
	    {2 /* ^B */, TUI_EDIT_LEFT},
	    {6 /* ^F */, TUI_EDIT_RIGHT},
	};
	switch (ch) {
	case 27: /* Esc */
		a->cmdline_open = false;
		return;
	case '\r':
	case '\n':
	case KEY_ENTER:
		run_cmdline(a);
		return;
	case KEY_BACKSPACE:
	case 127:
	case 8:
		if (a->cmd.len == 0)
			a->cmdline_open = false; /* backspace on an empty line leaves it */
		else
			tui_cmdline_edit(&a->cmd, TUI_EDIT_BACKSPACE);
		return;
	case '\t': {
		a->hint_kept = false; /* the candidates take the hint's place */
		int n = tui_cmdline_complete(&a->cmd, a->hint, sizeof a->hint);
		if (n == 0)
			snprintf(a->hint, sizeof a->hint, "no completion");
		return;
	}
	default:
		break;
	}
	if (!a->hint_kept)
		a->hint[0] = '\0';
	for (size_t k = 0; k < sizeof edits / sizeof edits[0]; k++)
		if (edits[k].key == ch) {
			tui_cmdline_edit(&a->cmd, edits[k].edit);
			return;
		}
	/* A full line says so rather than dropping what is typed (or pasted) unseen. */
	if (ch >= 32 && ch < 127 && !tui_cmdline_insert(&a->cmd, (char)ch)) {
		snprintf(a->hint, sizeof a->hint,
		         "the line is full: at most %d bytes (the server's limit); '%c' not added",
		         TUI_CMDLINE_MAX - 1, ch);
		snprintf(a->message, sizeof a->message, "%s", a->hint);
	} else if (ch >= 128 && ch < 256) {
		/* A byte of a UTF-8 character: every command, name and number is ASCII. The
		 * hint stays while the line is open: the keys after it would clear it. */
		snprintf(a->hint, sizeof a->hint,
		         "commands, names and numbers are ASCII: a non-ASCII character was "
		         "not added");
		a->hint_kept = true;
	}
}

/* Scroll keys scroll; any other key closes, and any key at all when there is nothing
 * to scroll: what the pager's footer says (screen.c). */
static void pager_key(tui_app *a, int ch)
{
	tui_pager_box b = tui_pager_layout(&a->pager, a->screen.cols, a->screen.rows);
	int page = b.text_rows > 1 ? b.text_rows - 1 : 1, delta;
	if (ch == KEY_RESIZE) {
		app_resize(a);
		return;
	}
	if (tui_pager_height(&a->pager, b.text_cols) <= b.text_rows) {
		a->pager.open = false;
		return;
	}
	switch (ch) {
	case KEY_DOWN:
	case 'j':
	case KEY_ENTER:
	case '\r':
	case '\n':
		delta = 1;
		break;
	case KEY_UP:
	case 'k':
		delta = -1;
		break;
	case KEY_NPAGE:
	case ' ':
	case 'f':
		delta = page;
		break;
	case KEY_PPAGE:
	case 'b':
		delta = -page;
		break;
	case KEY_HOME:
	case 'g':
		delta = INT_MIN;
		break;
	case KEY_END:
	case 'G':
		delta = INT_MAX;
		break;
	case KEY_RESIZE:
		app_resize(a);
		return;
	case KEY_MOUSE: {
		MEVENT ev;
		if (getmouse(&ev) == OK && (ev.bstate & (BUTTON4_PRESSED | BUTTON5_PRESSED))) {
			tui_pager_scroll(&a->pager, ev.bstate & BUTTON4_PRESSED ? -3 : 3,
			                 b.text_cols, b.text_rows);
			return;
		}
		a->pager.open = false;
		return;
	}
	default:
		a->pager.open = false;
		return;
	}
	tui_pager_scroll(&a->pager, delta, b.text_cols, b.text_rows);
}

static void move_cursor(tui_app *a, int dc, int dr)
{
	int cols, rows;
	app_map_area(a, &cols, &rows);
	a->cursor_col += dc;
	a->cursor_row += dr;
	/* Walking the cursor off the edge pans the view with it. */
	if (a->cursor_col < 0 || a->cursor_col >= cols || a->cursor_row < 0 ||
	    a->cursor_row >= rows) {
		tui_camera_pan(&a->cam, dc, dr);
		a->cursor_col -= dc;
		a->cursor_row -= dr;
	}
}

/* --- the keys on the map (keys.h: which key is which action, and its help) ---------- */

/* Where a key acts: the map's size, a tenth of it (a pan's step) and the cursor's
 * world point. */
typedef struct key_at {
	int ch, cols, rows, step_c, step_r;
	double x, y;
} key_at;

static void pan(tui_app *a, int dc, int dr)
{
	tui_camera_pan(&a->cam, dc, dr);
	app_stop_following(a);
}

static void act_pan_left(tui_app *a, const key_at *k)
{
	pan(a, -k->step_c, 0);
}

static void act_pan_right(tui_app *a, const key_at *k)
{
	pan(a, k->step_c, 0);
}

static void act_pan_up(tui_app *a, const key_at *k)
{
	pan(a, 0, -k->step_r);
}

static void act_pan_down(tui_app *a, const key_at *k)
{
	pan(a, 0, k->step_r);
}

static void act_cursor_left(tui_app *a, const key_at *k)
{
	(void)k;
	move_cursor(a, -1, 0);
}

static void act_cursor_right(tui_app *a, const key_at *k)
{
	(void)k;
	move_cursor(a, 1, 0);
}

static void act_cursor_up(tui_app *a, const key_at *k)
{
	(void)k;
	move_cursor(a, 0, -1);
}

static void act_cursor_down(tui_app *a, const key_at *k)
{
	(void)k;
	move_cursor(a, 0, 1);
}

static void act_zoom_in(tui_app *a, const key_at *k)
{
	(void)k;
	tui_camera_zoom(&a->cam, 1.25, a->cursor_col, a->cursor_row);
}

static void act_zoom_out(tui_app *a, const key_at *k)
{
	(void)k;
	tui_camera_zoom(&a->cam, 0.8, a->cursor_col, a->cursor_row);
}

static void act_fit(tui_app *a, const key_at *k)
{
	(void)k;
	app_fit(a);
	app_stop_following(a);
}

static void act_mouse(tui_app *a, const key_at *k)
{
	MEVENT ev;
	if (getmouse(&ev) != OK || ev.y >= k->rows)
		return;
	if (ev.bstate & BUTTON1_PRESSED)
		click(a, ev.x, ev.y, false);
	else if (ev.bstate & BUTTON3_PRESSED)
		click(a, ev.x, ev.y, true);
	else if (ev.bstate & BUTTON4_PRESSED)
		tui_camera_zoom(&a->cam, 1.25, ev.x, ev.y);
	else if (ev.bstate & BUTTON5_PRESSED)
		tui_camera_zoom(&a->cam, 0.8, ev.x, ev.y);
}

static void act_click(tui_app *a, const key_at *k)
{
	(void)k;
	click(a, a->cursor_col, a->cursor_row, false);
}

static void act_target(tui_app *a, const key_at *k)
{
	(void)k;
	click(a, a->cursor_col, a->cursor_row, true);
}

static void act_select_next(tui_app *a, const key_at *k)
{
	(void)k;
	cycle_selection(a, +1);
}

static void act_select_prev(tui_app *a, const key_at *k)
{
	(void)k;
	cycle_selection(a, -1);
}

static void act_deselect(tui_app *a, const key_at *k)
{
	(void)k;
	app_select_vehicle(a, 0);
}

static void act_follow(tui_app *a, const key_at *k)
{
	(void)k;
	if (a->follow.id) {
		app_stop_following(a);
		snprintf(a->message, sizeof a->message, "follow off");
	} else if (a->selected) {
		tui_follow_start(&a->follow, a->selected);
		const steer_snap_vehicle *v = app_find_vehicle(a, a->selected);
		if (v)
			app_centre_on(a, v->x, v->y);
		else /* out of view: ask where it is, and go there */
			app_sendf(a, PURPOSE_SELECT_GET, "get %u", a->selected);
		snprintf(a->message, sizeof a->message, "following #%u (c again: off)",
		         a->selected);
	} else {
		say_select_first(a, "follow");
	}
}

static void act_spawn(tui_app *a, const key_at *k)
{
	app_sendf(a, PURPOSE_SELECT_NEW, "spawn %.17g %.17g", k->x, k->y);
}

static void act_spawn_flock(tui_app *a, const key_at *k)
{
	app_sendf(a, PURPOSE_NONE, "spawn flock 20 %.17g %.17g %.17g", k->x, k->y,
	          4 * a->cam.scale + 20);
}

static void act_obstacle(tui_app *a, const key_at *k)
{
	app_sendf(a, PURPOSE_NONE, "obstacle %.17g %.17g %.17g", k->x, k->y, 2 * a->cam.scale + 10);
}

static void act_remove(tui_app *a, const key_at *k)
{
	(void)k;
	uint32_t id = selection_for(a, "remove");
	if (!id)
		return;
	app_sendf(a, PURPOSE_NONE, "remove %u", id);
	app_select_vehicle(a, 0);
}

static void act_wander(tui_app *a, const key_at *k)
{
	(void)k;
	toggle(a, STEER_WANDER);
}

static void act_avoid(tui_app *a, const key_at *k)
{
	(void)k;
	toggle(a, STEER_AVOID);
}

static void act_flock(tui_app *a, const key_at *k)
{
	(void)k;
	toggle(a, STEER_FLOCK);
}

static void act_pause(tui_app *a, const key_at *k)
{
	(void)k;
	uint64_t now = uv_now(a->loop);
	bool paused = tui_asked_paused(&a->asked, a->net.snapshot.paused, now);
	uint32_t rid = app_send_line(a, paused ? "resume" : "pause", PURPOSE_NONE);
	tui_asked_pause(&a->asked, !paused, rid, now);
}

static void act_step(tui_app *a, const key_at *k)
{
	(void)k;
	uint64_t now = uv_now(a->loop);
	if (!tui_asked_paused(&a->asked, a->net.snapshot.paused, now)) {
		uint32_t rid = app_send_line(a, "pause", PURPOSE_NONE);
		tui_asked_pause(&a->asked, true, rid, now);
	}
	app_send_line(a, "step", PURPOSE_NONE);
}

/* [ and ]: a second of ticks back or forward. */
static void act_timeline(tui_app *a, const key_at *k)
{
	char line[96];
	const steer_snapshot *snap = &a->net.snapshot;
	bool back = k->ch == '[';
	uint64_t now = uv_now(a->loop);
	/* Back is relative (rewind N); forward goes to a tick: from the one a ] just
	 * asked for, while no snapshot has shown it yet. */
	uint64_t tick = back ? snap->tick : tui_asked_tick(&a->asked, snap->tick, now);
	uint64_t to;
	if (tui_timeline_key(&a->timeline, tick, snap->tick_rate, back, &to, line, sizeof line)) {
		uint32_t rid = app_send_line(a, line, PURPOSE_NONE);
		if (back) /* relative: nothing to wait for */
			a->asked.tick_by.rid = 0;
		else
			tui_asked_goto(&a->asked, to, rid, now);
	} else
		snprintf(a->message, sizeof a->message, "%s", line);
}

/* The debug aids draw each vehicle, from plain snapshots, which have no density
 * cells: the two keys say when one turns the other off. */
static void act_debug(tui_app *a, const key_at *k)
{
	(void)k;
	a->debug = !a->debug;
	if (!a->debug)
		snprintf(a->message, sizeof a->message, "debug aids off");
	else if (a->density != STEER_DENSITY_NEVER)
		snprintf(a->message, sizeof a->message,
		         "debug aids on: every vehicle drawn; density cells come back with d or D");
	else
		snprintf(a->message, sizeof a->message, "debug aids on");
}

static void act_density(tui_app *a, const key_at *k)
{
	(void)k;
	static const char *const names[] = {"auto (when zoomed out)", "always", "never"};
	a->density = (steer_density_mode)((a->density + 1) % 3);
	bool debug_off = a->debug && a->density != STEER_DENSITY_NEVER;
	if (debug_off)
		a->debug = false;
	snprintf(a->message, sizeof a->message, "density cells: %s%s", names[a->density],
	         debug_off ? "; debug aids off" : "");
}

static void act_stats(tui_app *a, const key_at *k)
{
	(void)k;
	a->stats_open = !a->stats_open;
	if (a->stats_open)
		app_poll_stats(a);
}

static void act_cmdline(tui_app *a, const key_at *k)
{
	(void)k;
	a->cmdline_open = true;
	a->hint[0] = '\0';
	a->hint_kept = false;
	tui_cmdline_start(&a->cmd);
}

static void act_help(tui_app *a, const key_at *k)
{
	(void)k;
	tui_help_conn c = help_conn(a);
	if (tui_help_keys(&a->pager, &c) == 0)
		a->pager.open = true;
	else
		snprintf(a->message, sizeof a->message, "help: out of memory");
}

static void act_quit(tui_app *a, const key_at *k)
{
	(void)k;
	app_quit(a, 0);
}

static void (*const actions[TUI_ACT_COUNT])(tui_app *, const key_at *) = {
    [TUI_ACT_MOUSE] = act_mouse,
    [TUI_ACT_PAN_LEFT] = act_pan_left,
    [TUI_ACT_PAN_RIGHT] = act_pan_right,
    [TUI_ACT_PAN_UP] = act_pan_up,
    [TUI_ACT_PAN_DOWN] = act_pan_down,
    [TUI_ACT_ZOOM_IN] = act_zoom_in,
    [TUI_ACT_ZOOM_OUT] = act_zoom_out,
    [TUI_ACT_FIT] = act_fit,
    [TUI_ACT_CURSOR_LEFT] = act_cursor_left,
    [TUI_ACT_CURSOR_DOWN] = act_cursor_down,
    [TUI_ACT_CURSOR_UP] = act_cursor_up,
    [TUI_ACT_CURSOR_RIGHT] = act_cursor_right,
    [TUI_ACT_CLICK] = act_click,
    [TUI_ACT_TARGET] = act_target,
    [TUI_ACT_SELECT_NEXT] = act_select_next,
    [TUI_ACT_SELECT_PREV] = act_select_prev,
    [TUI_ACT_DESELECT] = act_deselect,
    [TUI_ACT_FOLLOW] = act_follow,
    [TUI_ACT_SPAWN] = act_spawn,
    [TUI_ACT_SPAWN_FLOCK] = act_spawn_flock,
    [TUI_ACT_OBSTACLE] = act_obstacle,
    [TUI_ACT_REMOVE] = act_remove,
    [TUI_ACT_WANDER] = act_wander,
    [TUI_ACT_AVOID] = act_avoid,
    [TUI_ACT_FLOCK] = act_flock,
    [TUI_ACT_PAUSE] = act_pause,
    [TUI_ACT_STEP] = act_step,
    [TUI_ACT_BACK] = act_timeline,
    [TUI_ACT_FORWARD] = act_timeline,
    [TUI_ACT_DEBUG] = act_debug,
    [TUI_ACT_DENSITY] = act_density,
    [TUI_ACT_STATS] = act_stats,
    [TUI_ACT_CMDLINE] = act_cmdline,
    [TUI_ACT_HELP] = act_help,
    [TUI_ACT_QUIT] = act_quit,
};

static void key(tui_app *a, int ch)
{
	if (a->pager.open) {
		pager_key(a, ch);
		return;
	}
	if (ch == KEY_RESIZE) {
		app_resize(a);
		return;
	}
	if (a->cmdline_open) {
		cmdline_key(a, ch);
		return;
	}
	void (*act)(tui_app *, const key_at *) = actions[tui_key_action(ch)];
	if (!act)
		return;
	key_at k = {.ch = ch};
	app_map_area(a, &k.cols, &k.rows);
	k.step_c = k.cols / 10 > 1 ? k.cols / 10 : 1;
	k.step_r = k.rows / 10 > 1 ? k.rows / 10 : 1;
	cursor_world(a, &k.x, &k.y);
	act(a, &k);
}

/* Reads at most TUI_KEYS_PER_TURN keys, then yields to the loop: whatever getch()
 * returns, signals (SIGTERM, SIGINT, SIGWINCH) and the socket get their turn. Keys
 * left in ncurses' own queue (which does not make stdin readable) are read on the
 * next turn of the loop. */
static void read_keys(tui_app *a)
{
	int n = 0, ch = ERR;
	while (!a->quitting && n < TUI_KEYS_PER_TURN && (ch = getch()) != ERR) {
		key(a, ch);
		n++;
	}
	if (a->quitting)
		return;
	if (n == TUI_KEYS_PER_TURN)
		uv_timer_start(&a->input_timer, on_more_keys, 0, 0);
	app_schedule_frame(a);
}

static void on_more_keys(uv_timer_t *t)
{
	read_keys(t->data);
}

void app_on_input(uv_poll_t *p, int status, int events)
{
	tui_app *a = p->data;
	(void)events;
	if (status < 0) {
		app_quit(a, 1);
		return;
	}
	read_keys(a);
}
