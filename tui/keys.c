#include "keys.h"

#include <curses.h> /* the KEY_* codes getch() returns; nothing else of ncurses */

/* What a key does is one paragraph: the pager wraps it under its column at any width. */
const tui_key_row tui_key_rows[] = {
    {"mouse left",
     "select the vehicle under the pointer; with one selected, add a waypoint (only "
     "another vehicle's glyph selects it)",
     {{KEY_MOUSE, TUI_ACT_MOUSE}}},
    {"mouse right", "set the selected vehicle's target (goto)", {{0}}},
    {"mouse wheel", "zoom in / out at the pointer", {{0}}},
    {"arrows, hjkl",
     "pan the view",
     {{KEY_LEFT, TUI_ACT_PAN_LEFT},
      {'h', TUI_ACT_PAN_LEFT},
      {KEY_RIGHT, TUI_ACT_PAN_RIGHT},
      {'l', TUI_ACT_PAN_RIGHT},
      {KEY_UP, TUI_ACT_PAN_UP},
      {'k', TUI_ACT_PAN_UP},
      {KEY_DOWN, TUI_ACT_PAN_DOWN},
      {'j', TUI_ACT_PAN_DOWN}}},
    {"+ or =, -",
     "zoom in / out at the cursor",
     {{'+', TUI_ACT_ZOOM_IN}, {'=', TUI_ACT_ZOOM_IN}, {'-', TUI_ACT_ZOOM_OUT}}},
    {"0", "fit the whole world in the window", {{'0', TUI_ACT_FIT}}},
    {"H J K L",
     "move the cursor; walking off the edge pans",
     {{'H', TUI_ACT_CURSOR_LEFT},
      {'J', TUI_ACT_CURSOR_DOWN},
      {'K', TUI_ACT_CURSOR_UP},
      {'L', TUI_ACT_CURSOR_RIGHT}}},
    {"Enter",
     "left click at the cursor",
     {{'\r', TUI_ACT_CLICK}, {'\n', TUI_ACT_CLICK}, {KEY_ENTER, TUI_ACT_CLICK}}},
    {"t", "right click at the cursor: set the target (goto)", {{'t', TUI_ACT_TARGET}}},
    {"Tab", "select the next vehicle", {{'\t', TUI_ACT_SELECT_NEXT}}},
    {"Shift-Tab", "select the previous vehicle", {{KEY_BTAB, TUI_ACT_SELECT_PREV}}},
    {"Esc", "deselect (and stop following)", {{27, TUI_ACT_DESELECT}}},
    {"c",
     "follow the selection: keep it centred; across a wrapping edge the view jumps with it",
     {{'c', TUI_ACT_FOLLOW}}},
    {"s", "spawn a vehicle at the cursor and select it", {{'s', TUI_ACT_SPAWN}}},
    {"F", "spawn a flock of 20 around the cursor", {{'F', TUI_ACT_SPAWN_FLOCK}}},
    {"o", "add an obstacle at the cursor", {{'o', TUI_ACT_OBSTACLE}}},
    {"x", "remove the selected vehicle", {{'x', TUI_ACT_REMOVE}}},
    {"w  a  f",
     "toggle wander / avoid / flocking on the selection",
     {{'w', TUI_ACT_WANDER}, {'a', TUI_ACT_AVOID}, {'f', TUI_ACT_FLOCK}}},
    {"Space", "pause / resume the world (for every client)", {{' ', TUI_ACT_PAUSE}}},
    {".", "pause and advance one tick", {{'.', TUI_ACT_STEP}}},
    {"[  ]",
     "rewind one second of ticks / go forward one, up to the live tick (the server keeps "
     "recent history in memory; one split over MPI ranks keeps none and refuses them)",
     {{'[', TUI_ACT_BACK}, {']', TUI_ACT_FORWARD}}},
    {"d", "debug aids: steering force and avoidance feeler", {{'d', TUI_ACT_DEBUG}}},
    {"D",
     "density cells: auto (zoomed out) / always / never; auto and always turn the debug "
     "aids (d) off, as they draw every vehicle",
     {{'D', TUI_ACT_DENSITY}}},
    {"S", "stats panel: sparklines of the last minutes", {{'S', TUI_ACT_STATS}}},
    {":", "command line: Tab completes, :help lists the commands", {{':', TUI_ACT_CMDLINE}}},
    {"?", "this help", {{'?', TUI_ACT_HELP}}},
    /* Ctrl-C is SIGINT, which the client takes as quit too. */
    {"q, Ctrl-C", "quit", {{'q', TUI_ACT_QUIT}}},
};
const size_t tui_key_row_count = sizeof tui_key_rows / sizeof tui_key_rows[0];

tui_action tui_key_action(int code)
{
	for (size_t r = 0; r < tui_key_row_count; r++)
		for (int k = 0; k < TUI_KEY_BINDS && tui_key_rows[r].bind[k].code; k++)
			if (tui_key_rows[r].bind[k].code == code)
				return tui_key_rows[r].bind[k].action;
	return TUI_ACT_NONE;
}
