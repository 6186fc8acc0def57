#include "help.h"

#include <stdio.h>
#include <string.h>

#include "keys.h"

/* After the keys. A row is a term and what it means, three blanks or more apart, or a
 * deeper-indented paragraph going on from the term above it: the pager wraps both
 * under their column at the width it shows them at (test_tui_text checks). */
const char *const tui_help_text[] = {
    "",
    "Command line (:)",
    "  Left Right         move in the line",
    "  Home End           to its start / end (Ctrl-A Ctrl-E too)",
    "  Backspace Delete   delete the character before / under the cursor",
    "  Ctrl-U Ctrl-K      delete to the start / to the end",
    "  Ctrl-W             delete the word before the cursor",
    "  Up Down            history",
    "  Tab                complete a command, key= or value",
    "  Enter              run",
    "  Esc                cancel",
    "",
    "Status line, left to right",
    "  connected | tick N    the connection, and the world's tick count",
    "  vehicles 40/152 in view",
    "                        vehicles in the view / in the whole world",
    "  density: ...          zoomed out: cells instead of vehicles (D)",
    "  past: tick T of L     the world is back at tick T of its live tick L; [ ] move it; "
    "forward replays it, a change forks it (past T/L in a narrow window)",
    "  running / PAUSED      the world's clock (Space; shared by all clients)",
    "  60/20 Hz              simulation ticks a second / snapshots a second",
    "  behind: 31 of 60 ticks/s",
    "                        in place of the rates: the server made only 31 ticks in the "
    "last second of the 60 asked, and dropped the rest (behind 31/60 in a narrow window, "
    "which keeps it; S: the stats panel's ticks/s)",
    "  #12 31.5 u/s flock    the selection: id, speed (units/s), behaviours",
    "  #12 (off view)        the selection is outside the view (0 fits all)",
    "  #12 (across the edge)",
    "                        followed across a wrapping edge, found again soon",
    "  follow, debug         c (follow) and d (debug aids) are on",
    "  A narrow window drops whole items: the tick, words, the rates, the selection's "
    "speed, running, the counts, debug, follow; then ends in ...",
    "",
    "On the map",
    "  arrows                vehicles by heading, coloured by group (6 colours)",
    "  •                     a vehicle standing still",
    "  white on red, bold    the selected vehicle",
    "  inverse cell          the cursor: s, F, o, t and Enter act there",
    "  o  .  X               the selection's waypoints, path and target",
    "  solid block           an obstacle; the frame is the world's edge",
    "  cyan lines            walls and polygon outlines; a cyan frame: contain on",
    "  blue .. red cells     density: 1, 2-3, 4-7, 8-15, 16 or more a cell",
    "  NO_COLOR set          no colours: selection and cursor in inverse",
};
const size_t tui_help_count = sizeof tui_help_text / sizeof tui_help_text[0];

const steer_cmd_about tui_local_cmds[] = {
    {"select", "ID", "select a vehicle and centre the view on it (this client only)"},
};
const size_t tui_local_cmd_count = sizeof tui_local_cmds / sizeof tui_local_cmds[0];

/* The keys' table as help lines: the keys in a column of their own, at least three
 * spaces wide (the pager wraps what they do under that column), and what they do. */
static int add_keys(tui_pager *p)
{
	int rc = tui_pager_add(p, "Keys");
	int width = 0;
	for (size_t r = 0; r < tui_key_row_count; r++) {
		int n = (int)strlen(tui_key_rows[r].keys);
		width = n > width ? n : width;
	}
	for (size_t r = 0; r < tui_key_row_count; r++)
		rc |= tui_pager_addf(p, "  %-*s   %s", width, tui_key_rows[r].keys,
		                     tui_key_rows[r].what);
	return rc;
}

int tui_help_keys(tui_pager *p, const tui_help_conn *c)
{
	tui_pager_reset(p, "steer-tui keys");
	if (add_keys(p) != 0)
		return -1;
	for (size_t k = 0; k < tui_help_count; k++)
		if (tui_pager_add(p, tui_help_text[k]) != 0)
			return -1;
	int rc = tui_pager_add(p, "");
	rc |= tui_pager_add(p, "Connection");
	rc |= tui_pager_addf(p, "  snapshots from %s (protobuf port)", c->where);
	if (c->cmd_port)
		rc |= tui_pager_addf(p, "  commands on port %d: steerctl --port %d help",
		                     c->cmd_port, c->cmd_port);
	else
		rc |= tui_pager_add(p, "  commands: the text port (steer-server prints it; "
		                       "steer-tui --cmd-port N shows it here)");
	if (c->tick_rate > 0)
		rc |= tui_pager_addf(p,
		                     "  the world ticks %g times a second, snapshots come %g "
		                     "times a second",
		                     c->tick_rate, c->snapshot_rate);
	return rc ? -1 : 0;
}

/* The lines of text (each ending '\n') into the pager. */
static int add_text(tui_pager *p, const steer_strbuf *text)
{
	int rc = 0;
	for (size_t at = 0; at < text->len;) {
		const char *line = text->data + at;
		size_t n = strcspn(line, "\n");
		rc |= tui_pager_addf(p, "%.*s", (int)n, line);
		at += n + 1;
	}
	return rc;
}

/* The command help unwrapped (width 0): the pager wraps each row under its
 * description's column at the width it is shown at. */
int tui_help_commands(tui_pager *p, const char *name)
{
	steer_strbuf text;
	steer_strbuf_init(&text);
	int rc = 0;
	if (name) {
		tui_pager_reset(p, name);
		if (steer_cmdhelp_one(&text, name, tui_local_cmds, tui_local_cmd_count, 0) !=
		    STEER_OK) {
			tui_pager_addf(p, "no command '%s': :help lists them", name);
			return -1;
		}
	} else {
		tui_pager_reset(p, "commands (:help NAME for one; Tab completes)");
		steer_cmdhelp_list(&text, tui_local_cmds, tui_local_cmd_count, 0);
	}
	rc = text.oom ? -1 : add_text(p, &text);
	steer_strbuf_free(&text);
	return rc ? -1 : 0;
}
