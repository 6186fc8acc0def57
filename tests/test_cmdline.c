/* steer-tui's ':' line: editing at the cursor, history, and Tab completion from the
 * core's command and parameter tables. */
#include <string.h>

#include "check.h"
#include "cmdline.h"
#include "steer/command.h"
#include "steer/params.h"

static void type(tui_cmdline *c, const char *s)
{
	while (*s)
		tui_cmdline_insert(c, *s++);
}

static void typed(tui_cmdline *c, const char *s)
{
	tui_cmdline_start(c);
	type(c, s);
}

static tui_cmdline cl; /* big (history): not on the stack */

static void editing_moves_and_deletes(void)
{
	typed(&cl, "spawn 1 2");
	CHECK(cl.pos == 9 && !strcmp(cl.buf, "spawn 1 2"), "'%s' at %zu", cl.buf, cl.pos);
	tui_cmdline_edit(&cl, TUI_EDIT_LEFT);
	tui_cmdline_edit(&cl, TUI_EDIT_LEFT);
	type(&cl, "0");
	CHECK(!strcmp(cl.buf, "spawn 10 2") && cl.pos == 8, "insert in the middle: '%s' %zu",
	      cl.buf, cl.pos);
	tui_cmdline_edit(&cl, TUI_EDIT_HOME);
	CHECK(cl.pos == 0, "home");
	tui_cmdline_edit(&cl, TUI_EDIT_LEFT);
	CHECK(cl.pos == 0, "left at the start moved");
	tui_cmdline_edit(&cl, TUI_EDIT_DELETE);
	CHECK(!strcmp(cl.buf, "pawn 10 2") && cl.pos == 0, "delete: '%s'", cl.buf);
	tui_cmdline_edit(&cl, TUI_EDIT_BACKSPACE);
	CHECK(!strcmp(cl.buf, "pawn 10 2"), "backspace at the start deleted: '%s'", cl.buf);
	type(&cl, "s");
	tui_cmdline_edit(&cl, TUI_EDIT_END);
	CHECK(cl.pos == cl.len && cl.len == 10, "end: %zu of %zu", cl.pos, cl.len);
	tui_cmdline_edit(&cl, TUI_EDIT_RIGHT);
	CHECK(cl.pos == cl.len, "right past the end");
	tui_cmdline_edit(&cl, TUI_EDIT_DELETE);
	CHECK(!strcmp(cl.buf, "spawn 10 2"), "delete at the end: '%s'", cl.buf);
	/* Backspace in the middle */
	for (int k = 0; k < 3; k++)
		tui_cmdline_edit(&cl, TUI_EDIT_LEFT);
	tui_cmdline_edit(&cl, TUI_EDIT_BACKSPACE);
	CHECK(!strcmp(cl.buf, "spawn 0 2") && cl.pos == 6, "backspace in the middle: '%s' %zu",
	      cl.buf, cl.pos);
}

static void kills(void)
{
	typed(&cl, "set 3 max_speed=80  ");
	tui_cmdline_edit(&cl, TUI_EDIT_KILL_WORD);
	CHECK(!strcmp(cl.buf, "set 3 "), "Ctrl-W takes the word and the spaces after it: '%s'",
	      cl.buf);
	tui_cmdline_edit(&cl, TUI_EDIT_KILL_WORD);
	tui_cmdline_edit(&cl, TUI_EDIT_KILL_WORD);
	tui_cmdline_edit(&cl, TUI_EDIT_KILL_WORD);
	CHECK(cl.len == 0 && cl.pos == 0, "Ctrl-W to the start: '%s'", cl.buf);
	typed(&cl, "get 12");
	tui_cmdline_edit(&cl, TUI_EDIT_LEFT);
	tui_cmdline_edit(&cl, TUI_EDIT_LEFT);
	tui_cmdline_edit(&cl, TUI_EDIT_KILL_START);
	CHECK(!strcmp(cl.buf, "12") && cl.pos == 0, "Ctrl-U: '%s'", cl.buf);
	tui_cmdline_edit(&cl, TUI_EDIT_RIGHT);
	tui_cmdline_edit(&cl, TUI_EDIT_KILL_END);
	CHECK(!strcmp(cl.buf, "1") && cl.pos == 1, "Ctrl-K: '%s'", cl.buf);
}

static void full_line(void)
{
	tui_cmdline_start(&cl);
	int n = 0;
	while (tui_cmdline_insert(&cl, 'a'))
		n++;
	CHECK(n == TUI_CMDLINE_MAX - 1 && cl.len == (size_t)n && cl.buf[n] == '\0', "%d", n);
}

static void history(void)
{
	memset(&cl, 0, sizeof cl);
	const char *lines[] = {"pause", "resume", "resume", "step 5"};
	for (int k = 0; k < 4; k++) {
		typed(&cl, lines[k]);
		tui_cmdline_remember(&cl);
	}
	CHECK(cl.history_count == 3, "a repeat was kept: %d", cl.history_count);
	tui_cmdline_start(&cl);
	type(&cl, "draft");
	tui_cmdline_edit(&cl, TUI_EDIT_HISTORY_UP);
	CHECK(!strcmp(cl.buf, "step 5") && cl.pos == cl.len, "up: '%s'", cl.buf);
	tui_cmdline_edit(&cl, TUI_EDIT_HISTORY_UP);
	tui_cmdline_edit(&cl, TUI_EDIT_HISTORY_UP);
	tui_cmdline_edit(&cl, TUI_EDIT_HISTORY_UP);
	CHECK(!strcmp(cl.buf, "pause"), "oldest: '%s'", cl.buf);
	/* edit a recalled line in the middle, still history-aware */
	tui_cmdline_edit(&cl, TUI_EDIT_HOME);
	tui_cmdline_edit(&cl, TUI_EDIT_DELETE);
	CHECK(!strcmp(cl.buf, "ause"), "edit after recall: '%s'", cl.buf);
	tui_cmdline_edit(&cl, TUI_EDIT_HISTORY_DOWN);
	tui_cmdline_edit(&cl, TUI_EDIT_HISTORY_DOWN);
	tui_cmdline_edit(&cl, TUI_EDIT_HISTORY_DOWN);
	CHECK(cl.len == 0, "past the newest: '%s'", cl.buf);
	/* blank lines are not kept (the first Up gave an empty line); the rest trimmed */
	typed(&cl, "   ");
	tui_cmdline_remember(&cl);
	CHECK(cl.history_count == 3 && cl.len == 0, "a blank line was kept: %d '%s'",
	      cl.history_count, cl.buf);
	typed(&cl, "  step 5 ");
	tui_cmdline_remember(&cl);
	CHECK(cl.history_count == 3 && !strcmp(cl.buf, "step 5"),
	      "a repeat with spaces around was kept: %d '%s'", cl.history_count, cl.buf);
	typed(&cl, " get 3  ");
	tui_cmdline_remember(&cl);
	tui_cmdline_start(&cl);
	tui_cmdline_edit(&cl, TUI_EDIT_HISTORY_UP);
	CHECK(!strcmp(cl.buf, "get 3"), "not trimmed: '%s'", cl.buf);
}

static int complete(const char *before, char *msg)
{
	typed(&cl, before);
	return tui_cmdline_complete(&cl, msg, 256);
}

static void completion(void)
{
	char msg[256];
	CHECK(complete("spa", msg) == 1 && !strcmp(cl.buf, "spawn "), "'%s'", cl.buf);
	CHECK(complete("spawn 1 2 max_sp", msg) == 1 && !strcmp(cl.buf, "spawn 1 2 max_speed="),
	      "'%s'", cl.buf);
	CHECK(complete("set 3 separation_w", msg) == 1 &&
	          !strcmp(cl.buf, "set 3 separation_weight="),
	      "'%s'", cl.buf);
	CHECK(complete("set 3 max_", msg) == 3 && !strcmp(cl.buf, "set 3 max_"),
	      "%d candidates, '%s'", complete("set 3 max_", msg), cl.buf);
	CHECK(strstr(msg, "max_speed") && strstr(msg, "max_force") && strstr(msg, "max_neighbours"),
	      "listed: '%s'", msg);
	/* every key of the parameter table completes to itself */
	for (size_t k = 0; k < steer_param_count; k++) {
		char line[128], want[130];
		snprintf(line, sizeof line, "set 1 %s", steer_param_defs[k].name);
		snprintf(want, sizeof want, "%s=", line);
		int n = complete(line, msg);
		CHECK(n >= 1 && !strncmp(cl.buf, line, strlen(line)), "%s: %d '%s'",
		      steer_param_defs[k].name, n, cl.buf);
		if (n == 1)
			CHECK(!strcmp(cl.buf, want), "'%s'", cl.buf);
	}
	/* every command name completes from a unique prefix or is listed */
	for (size_t k = 0; k < steer_cmd_count; k++) {
		int n = complete(steer_cmd_table[k].name, msg);
		CHECK(n >= 1, "%s: no candidates", steer_cmd_table[k].name);
	}
	/* common prefix: "se" -> seek seed set select */
	CHECK(complete("se", msg) == 4 && !strcmp(cl.buf, "se"), "'%s' '%s'", cl.buf, msg);
	CHECK(strstr(msg, "select") && strstr(msg, "seek"), "'%s'", msg);
	CHECK(complete("help sta", msg) == 1 && !strcmp(cl.buf, "help stats "), "'%s'", cl.buf);
	CHECK(complete("scenario flo", msg) == 1 && !strcmp(cl.buf, "scenario flock "), "'%s'",
	      cl.buf);
	CHECK(complete("obstacle 1 2 3 v", msg) == 2 && !strcmp(cl.buf, "obstacle 1 2 3 v"), "'%s'",
	      cl.buf);
	CHECK(complete("zzz", msg) == 0 && !strcmp(cl.buf, "zzz"), "'%s'", cl.buf);
	CHECK(complete("set 3 max_speed=5", msg) == 0, "a number completed");
	/* values: the words of the command table's usage and the parameter table's enums */
	struct {
		const char *line, *want;
		int n;
	} values[] = {
	    {"flock 1 o", "flock 1 o", 2},
	    {"flock 1 of", "flock 1 off ", 1},
	    {"wander 7 ", "wander 7 o", 2},
	    {"world 100 100 b", "world 100 100 bounce ", 1},
	    {"world 100 100 ", "world 100 100 ", 3},
	    {"set 3 combine=", "set 3 combine=", 3},
	    {"set 3 combine=p", "set 3 combine=priority ", 1},
	    {"set 3 decel=", "set 3 decel=", 4},
	    {"set 3 decel=sl", "set 3 decel=slow ", 1},
	    {"spawn 1 2 field_of_view=o", "spawn 1 2 field_of_view=o", 2},
	    {"set 3 field_of_view=on", "set 3 field_of_view=on ", 1},
	    {"path 4 ", "path 4 ", 2},
	    {"path 4 c", "path 4 clear ", 1},
	    {"path 4 loop o", "path 4 loop o", 2},
	    {"path 4 clear o", "path 4 clear o", 0},
	    {"seek 2 o", "seek 2 off ", 1},
	    {"spawn flo", "spawn flock ", 1},
	    /* no keys before the numbers a form needs first, and no fixed word for nothing
	     * typed where a number may stand */
	    {"spawn ", "spawn ", 0},
	    {"spawn ma", "spawn ma", 0},
	    {"spawn 1 ma", "spawn 1 ma", 0},
	    {"spawn 1 2 max_sp", "spawn 1 2 max_speed=", 1},
	    {"spawn flock 9 1 2 ma", "spawn flock 9 1 2 ma", 0},
	    {"spawn flock 9 1 2 3 max_sp", "spawn flock 9 1 2 3 max_speed=", 1},
	    {"obstacle 1 2 v", "obstacle 1 2 v", 0},
	    {"set ma", "set ma", 0},
	    {"flock 1 on o", "flock 1 on o", 0},
	};
	for (size_t v = 0; v < sizeof values / sizeof values[0]; v++) {
		int n = complete(values[v].line, msg);
		CHECK(n == values[v].n && !strcmp(cl.buf, values[v].want), "'%s': %d '%s' (%s)",
		      values[v].line, n, cl.buf, msg);
	}
	CHECK(complete("set 3 decel=", msg) == 4 && !strcmp(msg, "linear fast normal slow"), "'%s'",
	      msg);
	CHECK(complete("path 4 ", msg) == 2 && !strcmp(msg, "clear loop"), "'%s'", msg);
	/* the cursor in the middle: the word before it completes, the rest stays */
	typed(&cl, "spa 1 2");
	for (int k = 0; k < 4; k++)
		tui_cmdline_edit(&cl, TUI_EDIT_LEFT);
	CHECK(tui_cmdline_complete(&cl, msg, sizeof msg) == 1 && !strcmp(cl.buf, "spawn  1 2"),
	      "'%s'", cl.buf);
}

int main(void)
{
	RUN(editing_moves_and_deletes);
	RUN(kills);
	RUN(full_line);
	RUN(history);
	RUN(completion);
	return CHECK_DONE();
}
