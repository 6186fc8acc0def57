/* The ':' command line as plain data: the text and its cursor, editing, history, and
 * Tab completion of command names, parameter keys and values from the core's command
 * table (command.h) and parameter table (params.h). No terminal here; app.c maps keys. */
#ifndef TUI_CMDLINE_H
#define TUI_CMDLINE_H

#include <stdbool.h>
#include <stddef.h>

/* A line's bytes with its NUL: what the server takes (Command.line's max_size, which
 * counts the NUL, and the text port's TEXT_MAX_LINE). */
#define TUI_CMDLINE_MAX 4096
#define TUI_HISTORY     64

typedef enum tui_edit {
	TUI_EDIT_LEFT,
	TUI_EDIT_RIGHT,
	TUI_EDIT_HOME,       /* Home, Ctrl-A */
	TUI_EDIT_END,        /* End, Ctrl-E */
	TUI_EDIT_BACKSPACE,  /* the character before the cursor */
	TUI_EDIT_DELETE,     /* the character under the cursor */
	TUI_EDIT_KILL_START, /* Ctrl-U: everything before the cursor */
	TUI_EDIT_KILL_END,   /* Ctrl-K: everything from the cursor on */
	TUI_EDIT_KILL_WORD,  /* Ctrl-W: the word before the cursor */
	TUI_EDIT_HISTORY_UP,
	TUI_EDIT_HISTORY_DOWN,
} tui_edit;

typedef struct tui_cmdline {
	char buf[TUI_CMDLINE_MAX]; /* NUL-terminated */
	size_t len, pos;           /* pos: the cursor, 0..len */
	char history[TUI_HISTORY][TUI_CMDLINE_MAX];
	int history_count, history_pos;
} tui_cmdline;

/* An empty line, the history position past the newest entry. */
void tui_cmdline_start(tui_cmdline *c);
/* Inserts a printable character at the cursor; false when the line is full. */
bool tui_cmdline_insert(tui_cmdline *c, char ch);
void tui_cmdline_edit(tui_cmdline *c, tui_edit e);
/* Trims the spaces around the line, then adds it to the history (not a blank one,
 * nor a repeat of the last). */
void tui_cmdline_remember(tui_cmdline *c);

/* Completes the word before the cursor: a command name as the first word (or after
 * help), a parameter key (key=) after spawn / set / obstacle, a flag's or an enum's
 * value after key= (the parameter table), a fixed word of the command's usage
 * ("on|off", "[wrap|bounce|none]", "clear | loop"), a scenario name after scenario.
 * One candidate: completed (with '=' after a key, else a space);
 * several: extended to their common prefix, and listed in msg. Returns the number of
 * candidates. */
int tui_cmdline_complete(tui_cmdline *c, char *msg, size_t msglen);

#endif
