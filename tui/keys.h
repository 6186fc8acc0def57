/* steer-tui's keys on the map, as one table: which key does what (app.c runs the
 * action), and what the key help says of it (help.c writes the table out), so that the
 * two cannot drift apart. Key codes are getch()'s: characters, and ncurses' KEY_*
 * codes for the others. */
#ifndef TUI_KEYS_H
#define TUI_KEYS_H

#include <stddef.h>

/* What a key on the map does. */
typedef enum tui_action {
	TUI_ACT_NONE,
	TUI_ACT_MOUSE, /* a click or the wheel: what it does depends on the event */
	TUI_ACT_PAN_LEFT,
	TUI_ACT_PAN_RIGHT,
	TUI_ACT_PAN_UP,
	TUI_ACT_PAN_DOWN,
	TUI_ACT_ZOOM_IN,
	TUI_ACT_ZOOM_OUT,
	TUI_ACT_FIT,
	TUI_ACT_CURSOR_LEFT,
	TUI_ACT_CURSOR_DOWN,
	TUI_ACT_CURSOR_UP,
	TUI_ACT_CURSOR_RIGHT,
	TUI_ACT_CLICK,
	TUI_ACT_TARGET,
	TUI_ACT_SELECT_NEXT,
	TUI_ACT_SELECT_PREV,
	TUI_ACT_DESELECT,
	TUI_ACT_FOLLOW,
	TUI_ACT_SPAWN,
	TUI_ACT_SPAWN_FLOCK,
	TUI_ACT_OBSTACLE,
	TUI_ACT_REMOVE,
	TUI_ACT_WANDER,
	TUI_ACT_AVOID,
	TUI_ACT_FLOCK,
	TUI_ACT_PAUSE,
	TUI_ACT_STEP,
	TUI_ACT_BACK,
	TUI_ACT_FORWARD,
	TUI_ACT_DEBUG,
	TUI_ACT_DENSITY,
	TUI_ACT_STATS,
	TUI_ACT_CMDLINE,
	TUI_ACT_HELP,
	TUI_ACT_QUIT,
	TUI_ACT_COUNT
} tui_action;

#define TUI_KEY_BINDS 8

typedef struct tui_key_bind {
	int code; /* 0 ends a row's list */
	tui_action action;
} tui_key_bind;

/* A line of the key help and the keys it describes. */
typedef struct tui_key_row {
	const char *keys; /* as the help writes them */
	const char *what; /* what they do, one paragraph */
	tui_key_bind bind[TUI_KEY_BINDS];
} tui_key_row;

extern const tui_key_row tui_key_rows[];
extern const size_t tui_key_row_count;

/* What the key code does on the map; TUI_ACT_NONE for a key that does nothing. */
tui_action tui_key_action(int code);

#endif
