/* Everything that touches the terminal: ncurses setup and teardown, drawing a glyph
 * grid plus the status, message and command lines, and putting the terminal back on
 * every way out, crashes included. */
#ifndef TUI_SCREEN_H
#define TUI_SCREEN_H

#include <stdbool.h>

#include <stddef.h>

#include "pager.h"
#include "render.h"
#include "stats.h"

typedef struct tui_screen {
	bool utf8;
	bool colors;
	int cols, rows;
} tui_screen;

/* false when the terminal cannot be set up or cannot draw the map (it cannot move
 * the cursor, as TERM=dumb): a message saying so is printed to stderr. Colours stay
 * off when NO_COLOR is set and not empty (https://no-color.org). */
bool tui_screen_open(tui_screen *s);
void tui_screen_close(void);
/* Re-reads the terminal size after SIGWINCH. */
void tui_screen_resize(tui_screen *s);

typedef struct tui_frame_text {
	const char *status;
	const char *message;
	const char *cmdline; /* NULL unless the ':' line is open */
	size_t cmdline_pos;  /* the cursor in it */
	tui_pager *pager;    /* NULL unless open; its scroll position is kept in range */
	const char (*panel)[TUI_STATS_LINE]; /* the stats panel's lines, over the map */
	int panel_lines;
	bool status_alert; /* e.g. disconnected: drawn in reverse */
	/* Lines across the whole width in the middle of the map, instead of the map:
	 * why there is none (disconnected). */
	const char *const *banner;
	int banner_lines;
} tui_frame_text;

void tui_screen_draw(tui_screen *s, const tui_grid *g, const tui_frame_text *t);

#endif
