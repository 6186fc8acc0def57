#include "help.h"

#include <stdio.h>
#include <string.h>

#include "command.h"
#include "params.h"
#include "scenario.h"

/* Every line at most 76 columns: the help box at 80x24 is 80 wide with two columns of
 * margin each side (test_render checks). */
const char *const tui_help_text[] = {
    "Keys",
    "  mouse left     select the vehicle under the pointer; with one selected,",
    "                 add a waypoint (only another vehicle's glyph selects it)",
    "  mouse right    set the selected vehicle's target (arrive)",
    "  mouse wheel    zoom in / out at the pointer",
    "  arrows, hjkl   pan the view",
    "  + or =, -      zoom in / out at the cursor",
    "  0              fit the whole world in the window",
    "  H J K L        move the cursor; walking off the edge pans",
    "  Enter          left click at the cursor",
    "  t              right click at the cursor: set the target (arrive)",
    "  Tab, Shift-Tab select the next / previous vehicle",
    "  Esc            deselect (and stop following)",
    "  c              follow the selection: keep it centred, across wrap edges",
    "  s              spawn a vehicle at the cursor and select it",
    "  F              spawn a flock of 20 around the cursor",
    "  o              add an obstacle at the cursor",
    "  x              remove the selected vehicle",
    "  w  a  f        toggle wander / avoid / flocking on the selection",
    "  Space          pause / resume the world (for every client)",
    "  .              pause and advance one tick",
    "  d              debug aids: steering force and avoidance feeler",
    "  D              density cells: auto (zoomed out) / always / never",
    "  S              stats panel: sparklines of the last minutes",
    "  :              command line: Tab completes, :help lists the commands",
    "  ?              this help",
    "  q, Ctrl-C      quit",
    "",
    "Command line (:)",
    "  Left Right, Home End, Ctrl-A Ctrl-E   move in the line",
    "  Backspace Delete, Ctrl-U Ctrl-K Ctrl-W delete a character / to the start /",
    "                                         to the end / the word before",
    "  Up Down        history          Tab    complete a command, key= or value",
    "  Enter          run              Esc    cancel",
    "",
    "Status line, left to right",
    "  connected | tick N    the connection, and the world's tick count",
    "  vehicles 40/152 in view",
    "                        vehicles in the view / in the whole world",
    "  density: ...          zoomed out: cells instead of vehicles (D)",
    "  running / PAUSED      the world's clock (Space; shared by all clients)",
    "  60/20 Hz              simulation ticks a second / snapshots a second",
    "  #12 31.5 u/s flock    the selection: id, speed (units/s), behaviours",
    "  #12 (off view)        the selection is outside the view (0 fits all)",
    "  #12 (across the edge) followed across a wrapping edge, found again soon",
    "  follow, debug         c (follow) and d (debug aids) are on",
    "  (a narrow window drops the tick, then the words, then the rates first)",
    "",
    "On the map",
    "  arrows                vehicles by heading, coloured by group (6 colours)",
    "  white on red, bold    the selected vehicle",
    "  inverse cell          the cursor: s, F, o, t and Enter act there",
    "  o  .  X               the selection's waypoints, path and target",
    "  solid block           an obstacle; the frame is the world's edge",
    "  blue .. red cells     density: 1, 2-3, 4-7, 8-15, 16 or more a cell",
    "  NO_COLOR set          no colours: selection and cursor in inverse",
};
const size_t tui_help_count = sizeof tui_help_text / sizeof tui_help_text[0];

const tui_local_cmd tui_local_cmds[] = {
    {"select", "ID", "select a vehicle and centre the view on it (this client only)"},
};
const size_t tui_local_cmd_count = sizeof tui_local_cmds / sizeof tui_local_cmds[0];

int tui_help_keys(tui_pager *p, const tui_help_conn *c)
{
	tui_pager_reset(p, "steer-tui keys");
	for (size_t k = 0; k < tui_help_count; k++)
		if (tui_pager_add(p, tui_help_text[k]) != 0)
			return -1;
	int rc = tui_pager_add(p, "");
	rc |= tui_pager_add(p, "Connection");
	rc |= tui_pager_addf(p, "  snapshots from %s:%s (protobuf port)", c->host, c->port);
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

static int add_entry(tui_pager *p, const char *name, const char *usage, const char *help)
{
	int rc = tui_pager_addf(p, "%s%s%s", name, usage[0] ? " " : "", usage);
	return rc | tui_pager_addf(p, "    %s", help);
}

int tui_help_commands(tui_pager *p, const char *name)
{
	int rc = 0;
	if (name) {
		const steer_cmd_entry *e = steer_cmd_find(name);
		const tui_local_cmd *l = NULL;
		for (size_t k = 0; k < tui_local_cmd_count; k++)
			if (!strcmp(tui_local_cmds[k].name, name))
				l = &tui_local_cmds[k];
		tui_pager_reset(p, name);
		if (!e && !l) {
			tui_pager_addf(p, "no command '%s': :help lists them", name);
			return -1;
		}
		rc |= e ? add_entry(p, e->name, e->usage, e->help)
		        : add_entry(p, l->name, l->usage, l->help);
		if (e && (!strcmp(name, "set") || !strcmp(name, "spawn"))) {
			rc |= tui_pager_add(p, "");
			rc |= tui_pager_add(p, "keys (key=value):");
			rc |= tui_pager_add(p, "  vx, vy  initial velocity");
			for (size_t k = 0; k < steer_param_count; k++)
				rc |= tui_pager_addf(p, "  %s  %s", steer_param_defs[k].name,
				                     steer_param_defs[k].help);
		}
		if (e && !strcmp(name, "scenario")) {
			rc |= tui_pager_add(p, "");
			rc |= tui_pager_add(p, "scenarios:");
			for (int k = 0; steer_scenario_names[k]; k++)
				rc |= tui_pager_addf(p, "  %s", steer_scenario_names[k]);
		}
		return rc ? -1 : 0;
	}
	tui_pager_reset(p, "commands (:help NAME for one; Tab completes)");
	for (size_t k = 0; k < steer_cmd_count; k++)
		rc |= add_entry(p, steer_cmd_table[k].name, steer_cmd_table[k].usage,
		                steer_cmd_table[k].help);
	for (size_t k = 0; k < tui_local_cmd_count; k++)
		rc |= add_entry(p, tui_local_cmds[k].name, tui_local_cmds[k].usage,
		                tui_local_cmds[k].help);
	rc |= tui_pager_add(p, "");
	rc |= tui_pager_add(p, "scenarios:");
	char line[512] = " ";
	for (int k = 0; steer_scenario_names[k]; k++) {
		size_t len = strlen(line);
		snprintf(line + len, sizeof line - len, " %s", steer_scenario_names[k]);
	}
	rc |= tui_pager_add(p, line);
	return rc ? -1 : 0;
}
