/* steer-tui's text pages and panel: the pager's wrapping and scrolling, the key help
 * fitting an 80x24 terminal, the command help from the command table, long JSON laid
 * out, the stats ring and sparklines, ticks a second and a selection's speed. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "help.h"
#include "json.h"
#include "keys.h"
#include "pager.h"
#include "render.h"
#include "stats.h"
#include "steer/command.h"
#include "steer/wire.h"

static bool has_line(const tui_pager *p, const char *text)
{
	for (size_t k = 0; k < p->n; k++)
		if (strstr(p->lines[k], text))
			return true;
	return false;
}

/* At 80x24 the help box sits above the status lines, the keys come first, and the
 * help says what it must (its rows' layout: help_wraps_under_its_column). */
static void help_at_80x24(void)
{
	tui_pager p;
	tui_pager_init(&p);
	tui_help_conn c = {"127.0.0.1:7700", 7701, 60, 20};
	CHECK(tui_help_keys(&p, &c) == 0, "help");
	tui_pager_box b = tui_pager_layout(&p, 80, 24);
	CHECK(b.cols == 80 && b.text_cols == 76, "box %dx%d, text %d", b.cols, b.rows, b.text_cols);
	CHECK(b.left >= 0 && b.top >= 0 && b.top + b.rows <= 22, "box off the map rows");
	size_t keys = tui_key_row_count;
	CHECK(p.n > keys && strstr(p.lines[1], tui_key_rows[0].keys) &&
	          strstr(p.lines[keys], tui_key_rows[keys - 1].keys),
	      "the key rows are not lines 1 to %zu", keys);
	/* what the issue asked the help to explain */
	const char *must[] = {"60/20 Hz",
	                      "ticks a second",
	                      "snapshots a second",
	                      "PAUSED",
	                      "follow",
	                      "debug",
	                      "the cursor",
	                      "coloured by group",
	                      "NO_COLOR",
	                      "127.0.0.1:7700",
	                      "7701",
	                      "Shift-Tab",
	                      "Ctrl-W",
	                      "stats panel",
	                      "flocking",
	                      "(off view)",
	                      "(across the edge)",
	                      "walls and polygon outlines",
	                      "MPI ranks"};
	for (size_t k = 0; k < sizeof must / sizeof must[0]; k++)
		CHECK(has_line(&p, must[k]), "help does not mention '%s'", must[k]);
	/* a row read back is the line itself */
	char row[81];
	tui_pager_row(&p, b.text_cols, 0, row);
	CHECK(!strcmp(row, p.lines[0]), "'%s'", row);
	tui_pager_free(&p);
}

/* On a 20x8 terminal the help wraps and scrolls: every word of every line is on some
 * row, rows fit, and scrolling reaches the end and stops there. */
static void help_scrolls_on_small_screens(void)
{
	tui_pager p;
	tui_pager_init(&p);
	tui_help_conn c = {"localhost:7700", 0, 0, 0};
	CHECK(tui_help_keys(&p, &c) == 0, "help");
	int sizes[][2] = {{20, 8}, {40, 12}, {12, 5}, {1, 1}};
	for (int z = 0; z < 4; z++) {
		tui_pager_box b = tui_pager_layout(&p, sizes[z][0], sizes[z][1]);
		CHECK(b.cols <= sizes[z][0] && b.rows <= sizes[z][1] && b.text_rows >= 1 &&
		          b.text_cols >= 1,
		      "%dx%d: box %dx%d", sizes[z][0], sizes[z][1], b.cols, b.rows);
		int h = tui_pager_height(&p, b.text_cols);
		CHECK(h > (int)p.n, "%dx%d: nothing wrapped", sizes[z][0], sizes[z][1]);
		size_t words = 0, seen = 0;
		for (size_t k = 0; k < p.n; k++)
			for (const char *q = p.lines[k]; *q; q++)
				words += *q != ' ' && (q == p.lines[k] || q[-1] == ' ');
		char row[256];
		for (int r = 0; r < h; r++) {
			tui_pager_row(&p, b.text_cols, r, row);
			CHECK((int)strlen(row) <= b.text_cols, "%dx%d row %d too wide: '%s'",
			      sizes[z][0], sizes[z][1], r, row);
			for (const char *q = row; *q; q++)
				seen += *q != ' ' && (q == row || q[-1] == ' ');
		}
		if (b.text_cols >= 30) /* wide enough that no word is cut in two */
			CHECK(seen == words, "%dx%d: %zu words shown of %zu", sizes[z][0],
			      sizes[z][1], seen, words);
		p.top = 0;
		tui_pager_scroll(&p, 1, b.text_cols, b.text_rows);
		CHECK(p.top == (h > b.text_rows ? 1 : 0), "scroll down by one: %d", p.top);
		tui_pager_scroll(&p, INT_MAX, b.text_cols, b.text_rows);
		CHECK(p.top == h - b.text_rows, "end: top %d of %d rows, %d shown", p.top, h,
		      b.text_rows);
		tui_pager_scroll(&p, 5, b.text_cols, b.text_rows);
		CHECK(p.top == h - b.text_rows, "scrolled past the end: %d", p.top);
		tui_pager_row(&p, b.text_cols, p.top + b.text_rows - 1, row);
		char last[256];
		tui_pager_row(&p, b.text_cols, h - 1, last);
		CHECK(!strcmp(row, last), "the last row is not on screen at the end");
		tui_pager_scroll(&p, -3, b.text_cols, b.text_rows);
		CHECK(p.top == (h - b.text_rows > 3 ? h - b.text_rows - 3 : 0), "up 3: %d", p.top);
		tui_pager_scroll(&p, INT_MIN, b.text_cols, b.text_rows);
		CHECK(p.top == 0, "home: %d", p.top);
	}
	tui_pager_free(&p);
}

/* The rows line k of p wraps to at width, into rows (each 256 bytes); their count. */
static int rows_of(const tui_pager *p, size_t k, int width, char rows[][256], int max)
{
	tui_pager one;
	tui_pager_init(&one);
	CHECK(tui_pager_add(&one, p->lines[k]) == 0, "add");
	int h = tui_pager_height(&one, width);
	for (int r = 0; r < h && r < max; r++)
		tui_pager_row(&one, width, r, rows[r]);
	tui_pager_free(&one);
	return h < max ? h : max;
}

/* The words of s, space-separated, appended to out (at most n bytes). */
static void words_of(const char *s, char *out, size_t n)
{
	size_t at = strlen(out);
	for (; *s && at + 2 < n; s++)
		if (*s != ' ' || (at && out[at - 1] != ' '))
			out[at++] = *s;
	if (at && out[at - 1] != ' ' && at + 1 < n)
		out[at++] = ' ';
	out[at] = '\0';
}

/* How one line of the help lays out at a width: no row past it, none blank, no word
 * cut where a blank could break it, and every row after the first under one column:
 * a term's description (after three blanks) where it is left of the middle or leaves
 * 30 columns, else a deep line's own indentation where that does; else 4. */
static void check_rows(const char *line, int width, const char *what)
{
	char rows[64][256];
	tui_pager one;
	tui_pager_init(&one);
	CHECK(tui_pager_add(&one, line) == 0, "add");
	int h = rows_of(&one, 0, width, rows, 64);
	tui_pager_free(&one);
	size_t lead = strspn(line, " ");
	if (!line[lead])
		return;
	const char *gap = strstr(line + lead, "   ");
	int column = -1; /* where the rows after the first must start */
	if (gap && gap[strspn(gap, " ")]) {
		const char *text = gap + strspn(gap, " ");
		column = 0;
		for (const char *q = line; q < text; q++)
			column += ((unsigned char)*q & 0xC0) != 0x80;
		if (column >= width / 2 && width - column < 30)
			column = -1; /* too far right: a hanging indent */
	} else if (lead >= 4) {      /* a deep line: its own column, or a term's hanging indent */
		column = (int)lead < width / 2 || width - (int)lead >= 30 ? (int)lead : 4;
		column = column < width / 2 ? column : width / 2;
	}
	size_t longest = 0; /* the longest word */
	for (const char *q = line + lead; *q;) {
		size_t n = strcspn(q, " ");
		longest = n > longest ? n : longest;
		q += n;
		q += strspn(q, " ");
	}
	char want[4096] = "", got[4096] = "";
	words_of(line, want, sizeof want);
	int indent = -1;
	for (int r = 0; r < h; r++) {
		int n = (int)strspn(rows[r], " ");
		CHECK((int)strlen(rows[r]) <= width, "%s at %d: row %d too wide: '%s'", what, width,
		      r, rows[r]);
		CHECK(rows[r][n], "%s at %d: row %d blank in '%s'", what, width, r, line);
		CHECK(r == 0 || n <= width / 2 || width - n >= 30, "%s at %d: row %d starts at %d",
		      what, width, r, n);
		if (r > 0 && indent < 0)
			indent = n;
		CHECK(r == 0 || n == indent, "%s at %d: row %d at %d, row 1 at %d: '%s'", what,
		      width, r, n, indent, rows[r]);
		CHECK(r == 0 || column < 0 || n == column, "%s at %d: row %d at %d, not %d: '%s'",
		      what, width, r, n, column, rows[r]);
		words_of(rows[r], got, sizeof got);
	}
	if ((int)longest <= width / 2)
		CHECK(!strcmp(want, got), "%s at %d: a word cut: '%s' laid out as '%s'", what,
		      width, want, got);
}

/* Every line of the key help and of the command help, at widths from a narrow
 * terminal's to the widest box; a description runs on under its column at each. */
static void help_wraps_under_its_column(void)
{
	tui_pager keys, cmds;
	tui_pager_init(&keys);
	tui_pager_init(&cmds);
	tui_help_conn c = {"localhost:7700", 7701, 60, 20};
	CHECK(tui_help_keys(&keys, &c) == 0, "help");
	CHECK(tui_help_commands(&cmds, NULL) == 0, "commands");
	int widths[] = {16, 36, 56, 76};
	for (int z = 0; z < 4; z++) {
		for (size_t k = 0; k < keys.n; k++)
			check_rows(keys.lines[k], widths[z], "key help");
		for (size_t k = 0; k < cmds.n; k++)
			check_rows(cmds.lines[k], widths[z], "command help");
	}
	/* The rows the check above would have let pass unseen: a key's description and a
	 * deep line do wrap at 36 columns (a 40-column terminal). */
	char rows[32][256];
	CHECK(rows_of(&keys, 1, 36, rows, 32) > 1 && strspn(rows[1], " ") == 17,
	      "mouse left at 36: '%s'", rows[1]);
	size_t deep = 0;
	while (deep < keys.n && !strstr(keys.lines[deep], "in place of the rates"))
		deep++;
	CHECK(deep < keys.n && rows_of(&keys, deep, 56, rows, 32) > 1 &&
	          strspn(rows[0], " ") == 24 && strspn(rows[1], " ") == 24,
	      "the deep line at 56: '%s' / '%s'", rows[0], rows[1]);
	tui_pager_free(&keys);
	tui_pager_free(&cmds);
	/* columns, not bytes: 'é' is two bytes */
	tui_pager p;
	tui_pager_init(&p);
	CHECK(tui_pager_add(&p, "  n\u00e9   words enough to wrap at twenty columns") == 0, "add");
	int h = rows_of(&p, 0, 20, rows, 32);
	CHECK(h > 1, "one row");
	for (int r = 1; r < h; r++)
		CHECK(strspn(rows[r], " ") == 7, "'%s' starts at %zu, not 7", rows[r],
		      strspn(rows[r], " "));
	tui_pager_free(&p);
}

/* Whether text is in the pager's lines read as one text: a description wrapped onto
 * the next line still counts (runs of blanks and line ends read as one space). */
static bool has_text(const tui_pager *p, const char *text)
{
	char all[1 << 16];
	size_t n = 0;
	for (size_t k = 0; k < p->n; k++)
		for (const char *c = p->lines[k]; n + 2 < sizeof all; c++) {
			char ch = *c ? *c : ' ';
			if (ch != ' ' || (n && all[n - 1] != ' '))
				all[n++] = ch;
			if (!*c)
				break;
		}
	all[n] = '\0';
	return strstr(all, text) != NULL;
}

static void command_help(void)
{
	tui_pager p;
	tui_pager_init(&p);
	CHECK(tui_help_commands(&p, NULL) == 0, "all");
	for (size_t k = 0; k < steer_cmd_count; k++) {
		CHECK(has_text(&p, steer_cmd_table[k].help), "%s's help missing",
		      steer_cmd_table[k].name);
		CHECK(has_line(&p, steer_cmd_table[k].usage), "%s's usage missing",
		      steer_cmd_table[k].name);
	}
	CHECK(has_line(&p, "select ID"), "the client's own select");
	CHECK(tui_help_commands(&p, "set") == 0 && has_line(&p, "max_speed") &&
	          has_line(&p, "separation_weight"),
	      "help set lists the keys");
	CHECK(tui_help_commands(&p, "nosuch") == -1 && has_line(&p, "nosuch"), "unknown");
	tui_pager_free(&p);
}

static void json_laid_out(void)
{
	tui_pager p;
	tui_pager_init(&p);
	const char *json = "{\"id\":3,\"kind\":\"vehicle\",\"x\":58.5,\"behaviors\":[\"flock\"],"
	                   "\"path\":{\"index\":0,\"loop\":false,\"waypoints\":[]},"
	                   "\"name\":\"a, \\\"b\\\" {c}\",\"long\":[1,2,3,4,5,6,7,8,9,10,11,12,13,"
	                   "14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31]}";
	CHECK(tui_pager_add_json(&p, json) == 0, "add");
	CHECK(p.n >= 8, "%zu lines", p.n);
	CHECK(!strcmp(p.lines[0], "{") && !strcmp(p.lines[p.n - 1], "}"), "braces");
	CHECK(has_line(&p, "  \"id\": 3,"), "id line");
	CHECK(has_line(&p, "  \"behaviors\": [\"flock\"],"), "short array inline");
	CHECK(has_line(&p, "  \"path\": {\"index\":0,\"loop\":false,\"waypoints\":[]},"),
	      "short object inline");
	CHECK(has_line(&p, "\"a, \\\"b\\\" {c}\""), "string with quotes and braces");
	CHECK(has_line(&p, "1, 2, 3"), "numbers as a paragraph");
	/* nothing lost: the non-space characters are the JSON's */
	size_t in = strlen(json), out = 0;
	for (size_t k = 0; k < p.n; k++)
		for (const char *q = p.lines[k]; *q; q++)
			out += *q != ' ';
	size_t spaces_in = 0;
	for (const char *q = json; *q; q++)
		spaces_in += *q == ' ';
	CHECK(out == in - spaces_in, "%zu characters of %zu", out, in - spaces_in);
	tui_pager_free(&p);
}

/* Only a broken or hostile server sends such a reply; the client must not hang on it. */
static void malformed_json_ends(void)
{
	static const char *const bad[] = {
	    ("{\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\":1,"
	     "\"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb\":2]"), /* one string */
	    "{\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\":",
	    "[1,2,{\"x\":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23}",
	    "{\"x\":}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}",
	};
	for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
		tui_pager p;
		tui_pager_init(&p);
		CHECK(tui_pager_add_json(&p, bad[k]) == 0, "malformed reply %zu", k);
		CHECK(p.n > 0 && p.n < 64, "malformed reply %zu: %zu lines", k, p.n);
		tui_pager_free(&p);
	}
}

static tui_stats st;

static void stats_ring_and_panel(void)
{
	tui_stats_init(&st);
	const char *old = "{\"tick\":5,\"vehicles\":152,\"tick_ms_p50\":0.02,\"tick_ms_p99\":0.07,"
	                  "\"proto_clients\":1,\"clients\":2}";
	tui_stats_sample a = tui_stats_from_json(old, NAN);
	CHECK(a.v[TUI_STAT_VEHICLES] == 152 && a.v[TUI_STAT_TICK_P50] == 0.02 &&
	          a.v[TUI_STAT_TICK_P99] == 0.07,
	      "parsed");
	CHECK(isnan(a.v[TUI_STAT_FLOCK_SPEED]) && isnan(a.v[TUI_STAT_POLARIZATION]) &&
	          isnan(a.v[TUI_STAT_BYTES_PER_S]),
	      "absent figures are NAN");
	double v;
	json_t *root = tui_json_parse(old);
	CHECK(tui_json_number(root, "clients", &v) && v == 2, "\"clients\" vs \"proto_clients\"");
	json_decref(root);
	/* A key is the reply's own member, not one inside another object or a string. */
	tui_stats_sample nested = tui_stats_from_json(
	    "{\"rank_figures\":[{\"rank\":0,\"vehicles\":3}],\"note\":\"\\\"vehicles\\\":7\"}",
	    NAN);
	CHECK(isnan(nested.v[TUI_STAT_VEHICLES]), "vehicles %g from a nested key",
	      nested.v[TUI_STAT_VEHICLES]);
	char lines[9][TUI_STATS_LINE];
	tui_stats_push(&st, &a);
	int n = tui_stats_panel(&st, 80, false, lines, 8);
	CHECK(n == 8, "%d lines", n);
	CHECK(strstr(lines[1], "ticks/s") && strstr(lines[1], " - "), "'%s'", lines[1]);
	CHECK(strstr(lines[5], "flock speed") && strstr(lines[5], " - "), "'%s'", lines[5]);
	CHECK(strstr(lines[6], "polarization") && strstr(lines[6], " - "), "'%s'", lines[6]);
	for (int k = 0; k < n; k++)
		CHECK(strlen(lines[k]) <= 80, "ASCII line %d is %zu wide", k, strlen(lines[k]));
	/* with the flock figures, rising speed draws a rising sparkline */
	for (int k = 0; k < 700; k++) {
		char json[200];
		snprintf(json, sizeof json,
		         "{\"vehicles\":%d,\"flock_mean_speed\":%d,\"flock_polarization\":0.5}",
		         100 + k, k);
		tui_stats_sample smp = tui_stats_from_json(json, 1000.0 * k);
		tui_stats_push(&st, &smp);
	}
	CHECK(st.count == TUI_STATS_HISTORY, "ring holds %zu", st.count);
	n = tui_stats_panel(&st, 60, false, lines, 8);
	CHECK(strstr(lines[5], "699") && strstr(lines[6], "0.50"), "'%s' '%s'", lines[5], lines[6]);
	char spark[200];
	tui_sparkline(&st, TUI_STAT_FLOCK_SPEED, 10, false, spark);
	CHECK(strlen(spark) == 10 && spark[9] == '#', "'%s'", spark);
	for (int k = 1; k < 10; k++)
		CHECK(spark[k] >= spark[k - 1] || spark[k] == '#', "not rising: '%s'", spark);
	tui_sparkline(&st, TUI_STAT_POLARIZATION, 4, false, spark);
	CHECK(!strcmp(spark, "===="), "polarization 0.5 of 1: '%s'", spark);
	tui_sparkline(&st, TUI_STAT_FLOCK_SPEED, 3, true, spark);
	CHECK(strlen(spark) == 9 && !strcmp(spark + 6, "█"), "UTF-8: '%s'", spark);
	/* The screen writes a line's columns, not its bytes: a UTF-8 panel line at 100
	 * columns is whole, its newest bar (the last) included. */
	n = tui_stats_panel(&st, 100, true, lines, 8);
	CHECK(n >= 6 && tui_cols_bytes(lines[5], 100) == (int)strlen(lines[5]) &&
	          strlen(lines[5]) > 100,
	      "%d of %zu bytes of '%s'", tui_cols_bytes(lines[5], 100), strlen(lines[5]), lines[5]);
	CHECK(tui_cols_bytes("ab\xe2\x96\x88"
	                     "cd",
	                     3) == 5 &&
	          tui_cols_bytes("a\xff"
	                         "b",
	                         2) == 2 &&
	          tui_cols_bytes("abc", 10) == 3,
	      "columns to bytes");
	/* fewer samples than columns: right-aligned, padded */
	tui_stats_init(&st);
	tui_stats_push(&st, &a);
	tui_sparkline(&st, TUI_STAT_VEHICLES, 5, false, spark);
	CHECK(!strcmp(spark, "    #"), "'%s'", spark);
	n = tui_stats_panel(&st, 10, true, lines, 3);
	CHECK(n == 3, "maxlines: %d", n);
	/* Over MPI ranks a line names the slowest rank and draws its tick time. */
	const char *split = "{\"vehicles\":9,\"ranks\":3,\"rank_figures\":[{\"rank\":0,"
	                    "\"vehicles\":3,\"tick_ms\":1.5},{\"rank\":1,\"vehicles\":3,"
	                    "\"tick_ms\":4.25},{\"rank\":2,\"vehicles\":3,\"tick_ms\":2}],"
	                    "\"slowest_rank\":1,\"rank_balance\":1.64}";
	tui_stats_sample r = tui_stats_from_json(split, NAN);
	CHECK(r.ranks == 3 && r.slowest_rank == 1 && r.v[TUI_STAT_SLOWEST_RANK_MS] == 4.25,
	      "ranks %d slowest %d ms %g", r.ranks, r.slowest_rank, r.v[TUI_STAT_SLOWEST_RANK_MS]);
	tui_stats_push(&st, &r);
	n = tui_stats_panel(&st, 80, false, lines, 9);
	CHECK(n == 9 && strstr(lines[8], "slowest r1/3 ms") && strstr(lines[8], "4.25"),
	      "%d lines, last '%s'", n, lines[n - 1]);
	tui_stats_push(&st, &a); /* one process again: no rank line */
	CHECK(tui_stats_panel(&st, 80, false, lines, 9) == 8, "a rank line for one process");
}

/* Ticks a second from two samples of the server's own clock, and "behind" only while
 * the world runs slower than asked and the server drops ticks for it. */
static void ticks_per_second(void)
{
	tui_stats_init(&st);
	const char *fmt = "{\"tick\":%d,\"uptime_s\":%g,\"paused\":%s,\"ticks_dropped\":%d%s}";
	char json[200];
	int dropped = 0;
	/* drop: the ticks dropped since the sample before */
#define PUSH(tick, up, paused, drop, extra)                                                        \
	do {                                                                                       \
		dropped += drop;                                                                   \
		snprintf(json, sizeof json, fmt, tick, up, paused, dropped, extra);                \
		tui_stats_sample smp = tui_stats_from_json(json, NAN);                             \
		tui_stats_push(&st, &smp);                                                         \
	} while (0)
	PUSH(100, 10.0, "false", 0, "");
	CHECK(isnan(tui_stats_behind(&st, 60)), "one sample is no rate");
	PUSH(160, 11.0, "false", 0, "");
	CHECK(isnan(tui_stats_behind(&st, 60)), "60 of 60 is not behind");
	PUSH(215, 12.0, "false", 5, ""); /* 55: a tenth short at most */
	CHECK(isnan(tui_stats_behind(&st, 60)), "55 of 60 is not behind");
	PUSH(245, 13.0, "false", 30, "");
	CHECK(tui_stats_behind(&st, 60) == 30, "behind %g", tui_stats_behind(&st, 60));
	/* Fewer ticks with none dropped: paused and resumed, or a new rate, in between. */
	PUSH(275, 14.0, "false", 0, "");
	CHECK(isnan(tui_stats_behind(&st, 60)), "30 of 60 with none dropped is not behind");
	PUSH(275, 15.0, "true", 0, "");
	CHECK(isnan(tui_stats_behind(&st, 60)), "paused is not behind");
	PUSH(280, 16.0, "false", 30, "");
	CHECK(isnan(tui_stats_behind(&st, 60)), "from a pause is no rate");
	PUSH(0, 17.0, "false", 30, "");
	CHECK(isnan(tui_stats_behind(&st, 60)), "a reset is no rate");
	PUSH(20, 18.0, "false", 30, ",\"past\":true");
	CHECK(isnan(tui_stats_behind(&st, 60)), "in the past is no rate");
	PUSH(40, 19.0, "false", 30, ",\"past\":false");
	PUSH(70, 19.5, "false", 30, ",\"past\":false");
	CHECK(tui_stats_behind(&st, 100) == 60 && isnan(tui_stats_behind(&st, 60)),
	      "over half a second: %g", tui_stats_behind(&st, 100));
	char lines[9][TUI_STATS_LINE];
	int n = tui_stats_panel(&st, 80, false, lines, 9);
	CHECK(n == 8 && strstr(lines[1], "ticks/s") && strstr(lines[1], " 60 "), "'%s'", lines[1]);
	/* An older server says no uptime: not ticking as far as a rate goes. */
	tui_stats_sample old = tui_stats_from_json("{\"tick\":200,\"paused\":false}", NAN);
	CHECK(!old.ticking && isnan(old.dropped), "ticking %d dropped %g", old.ticking,
	      old.dropped);
#undef PUSH
}

/* A compact snapshot's speed in quarters is written the same whichever way its float
 * components round, and the same as the exact speed it was quantized from. */
static void speed_in_quarters(void)
{
	char out[32];
	for (int q = 0; q < 400; q++) {
		double speed = q * STEER_COMPACT_SPEED_Q;
		char want[32];
		snprintf(want, sizeof want, "%.1f", speed);
		for (int h = 0; h < 256; h++) {
			double a = h * (6.283185307179586 / 256);
			tui_speed_text((float)(speed * cos(a)), (float)(speed * sin(a)), out,
			               sizeof out);
			if (strcmp(out, want)) {
				CHECK(false, "speed %g at heading %d: %s, not %s", speed, h, out,
				      want);
				return;
			}
		}
	}
	tui_speed_text(3, 4, out, sizeof out);
	CHECK(!strcmp(out, "5.0"), "%s", out);
	char exact[32];
	for (double speed = 40; speed < 50; speed += 0.01) {
		double q = floor(speed / STEER_COMPACT_SPEED_Q + 0.5) * STEER_COMPACT_SPEED_Q;
		tui_speed_text(speed * 0.6, speed * 0.8, exact, sizeof exact);
		tui_speed_text((float)(q * 0.6), (float)(q * 0.8), out, sizeof out);
		if (strcmp(out, exact)) {
			CHECK(false, "speed %g: %s exact, %s in quarters", speed, exact, out);
			return;
		}
	}
}

/* The rewind history's note and the '[' ']' keys: from the replies, pure. */
static void timeline_note_and_keys(void)
{
	tui_timeline t = {0};
	char out[128];
	CHECK(!tui_timeline_from_json(&t, "{\"id\":3}"), "no timeline in a spawn's reply");
	CHECK(tui_timeline_from_json(&t, "{\"tick\":40,\"live_tick\":100,\"past\":true}"),
	      "rewind");
	CHECK(t.past && t.live_tick == 100, "past %d live %llu", t.past,
	      (unsigned long long)t.live_tick);
	tui_past_note(&t, 40, false, out, sizeof out);
	CHECK(!strcmp(out, "past: tick 40 of 100  ] forward  :goto-tick live"), "%s", out);
	tui_past_note(&t, 40, true, out, sizeof out);
	CHECK(!strcmp(out, "past 40/100"), "%s", out);
	tui_past_note(&t, 100, false, out, sizeof out); /* stepped up to live */
	CHECK(!out[0], "%s", out);
	CHECK(tui_timeline_key(&t, 80, 60, true, NULL, out, sizeof out) &&
	          !strcmp(out, "rewind 60"),
	      "%s", out);
	CHECK(tui_timeline_key(&t, 30, 60, true, NULL, out, sizeof out) &&
	          !strcmp(out, "goto-tick 0"),
	      "%s", out);
	CHECK(!tui_timeline_key(&t, 0, 60, true, NULL, out, sizeof out), "%s", out);
	CHECK(tui_timeline_key(&t, 20, 60, false, NULL, out, sizeof out) &&
	          !strcmp(out, "goto-tick 80"),
	      "%s", out);
	CHECK(tui_timeline_key(&t, 40, 60, false, NULL, out, sizeof out) &&
	          !strcmp(out, "goto-tick live"),
	      "%s", out);
	CHECK(tui_timeline_from_json(&t, "{\"tick\":100,\"live_tick\":100,\"past\":false}"),
	      "live");
	tui_past_note(&t, 100, false, out, sizeof out);
	CHECK(!out[0], "%s", out);
	CHECK(!tui_timeline_key(&t, 100, 60, false, NULL, out, sizeof out) &&
	          strstr(out, "live tick"),
	      "%s", out);
}

int main(void)
{
	RUN(help_at_80x24);
	RUN(help_scrolls_on_small_screens);
	RUN(help_wraps_under_its_column);
	RUN(command_help);
	RUN(json_laid_out);
	RUN(malformed_json_ends);
	RUN(stats_ring_and_panel);
	RUN(timeline_note_and_keys);
	RUN(ticks_per_second);
	RUN(speed_in_quarters);
	return CHECK_DONE();
}
