/* Everything that touches the terminal: ncurses setup and teardown, drawing a glyph
 * grid plus the status, message and command lines, and putting the terminal back on
 * every way out, crashes included. */
#ifndef TUI_SCREEN_H
#define TUI_SCREEN_H

#include <stdbool.h>

#include "render.h"

typedef struct tui_screen {
	bool utf8;
	bool colors;
	int cols, rows;
} tui_screen;

/* false when the terminal cannot be set up (message printed to stderr). */
bool tui_screen_open(tui_screen *s);
void tui_screen_close(void);
/* Re-reads the terminal size after SIGWINCH. */
void tui_screen_resize(tui_screen *s);

typedef struct tui_frame_text {
	const char *status;
	const char *message;
	const char *cmdline; /* NULL unless the ':' line is open */
	bool help;
	bool status_alert; /* e.g. disconnected: drawn in reverse */
} tui_frame_text;

void tui_screen_draw(tui_screen *s, const tui_grid *g, const tui_frame_text *t);

#endif
