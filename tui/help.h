/* What steer-tui says about itself: the keys (from the key table, keys.h), the command
 * line's keys, the status line, the marks on the map, the connection, and the commands
 * of the ':' line, as pages for the pager. The text is data here so a test can check
 * that every line fits an 80-column screen. */
#ifndef TUI_HELP_H
#define TUI_HELP_H

#include <stddef.h>

#include "cmdhelp.h"
#include "pager.h"

/* Lines of the help after the keys that do not depend on the connection. */
extern const char *const tui_help_text[];
extern const size_t tui_help_count;

typedef struct tui_help_conn {
	const char *where; /* the protobuf port steer-tui connected to: host:port */
	int cmd_port;      /* the text command port, 0 when not given */
	double tick_rate, snapshot_rate;
} tui_help_conn;

/* The key help, then the connection. 0, or -1 when memory runs out. */
int tui_help_keys(tui_pager *p, const tui_help_conn *c);

/* The commands of the ':' line from the one command table (plus the client's own),
 * each with its usage and what it does, laid out as steerctl's help (cmdhelp.h); name
 * non-NULL: that command alone, with the parameter keys for set and spawn. 0; -1 when
 * name is no command (p then holds one line saying so) or memory runs out. */
int tui_help_commands(tui_pager *p, const char *name);

/* Commands steer-tui runs itself instead of sending them to the server. */
extern const steer_cmd_about tui_local_cmds[];
extern const size_t tui_local_cmd_count;

#endif
