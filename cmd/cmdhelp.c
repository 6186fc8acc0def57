#include "cmdhelp.h"

#include <string.h>

#include "scenario.h"
#include "steer/command.h"
#include "steer/params.h"

/* Usages wider than this go on a line of their own, the description below. */
#define USAGE_COLUMN 34
/* Between a usage or key and its description: three blanks, which mark a second
 * column to a reader that wraps the rows again (steer-tui's pager). */
#define GAP "   "

const char *steer_cmdhelp_key(size_t k, const char **help)
{
	static const char *const velocity[][2] = {{"vx", "initial velocity x"},
	                                          {"vy", "initial velocity y"}};
	const size_t nv = sizeof velocity / sizeof velocity[0];
	const char *name = NULL, *about = NULL;
	if (k < nv) {
		name = velocity[k][0];
		about = velocity[k][1];
	} else if (k - nv < steer_param_count) {
		name = steer_param_defs[k - nv].name;
		about = steer_param_defs[k - nv].help;
	}
	if (help)
		*help = about;
	return name;
}

/* The k-th command of the table, then of extra; false past the last. */
static bool nth(size_t k, const steer_cmd_about *extra, size_t nextra, steer_cmd_about *out)
{
	if (k < steer_cmd_count) {
		const steer_cmd_entry *e = &steer_cmd_table[k];
		*out = (steer_cmd_about){e->name, e->usage, e->help};
		return true;
	}
	if (k - steer_cmd_count < nextra) {
		*out = extra[k - steer_cmd_count];
		return true;
	}
	return false;
}

/* Appends text, which starts at column `col`; past `width` columns (0: no limit) it
 * goes on at the next line, under column `col`, breaking between words. */
static void put_wrapped(steer_strbuf *out, size_t col, const char *text, size_t width)
{
	size_t at = col;
	while (*text) {
		size_t n = strcspn(text, " ");
		if (at > col && width && at + 1 + n > width) {
			steer_strbuf_printf(out, "\n%*s", (int)col, "");
			at = col;
		} else if (at > col) {
			steer_strbuf_puts(out, " ");
			at++;
		}
		steer_strbuf_put(out, text, n);
		at += n;
		text += n;
		text += strspn(text, " ");
	}
}

static size_t usage_len(const steer_cmd_about *a)
{
	return strlen(a->name) + (a->usage[0] ? 1 + strlen(a->usage) : 0);
}

static void put_usage(steer_strbuf *out, const steer_cmd_about *a)
{
	steer_strbuf_printf(out, "%s%s%s", a->name, a->usage[0] ? " " : "", a->usage);
}

static void put_scenarios(steer_strbuf *out, size_t width)
{
	static const char head[] = "scenarios: ";
	size_t at = sizeof head - 1;
	steer_strbuf_puts(out, head);
	for (int k = 0; steer_scenario_names[k]; k++) {
		size_t n = strlen(steer_scenario_names[k]);
		if (k && width && at + 1 + n > width) {
			steer_strbuf_printf(out, "\n%*s", (int)(sizeof head - 1), "");
			at = sizeof head - 1;
		} else if (k) {
			steer_strbuf_puts(out, " ");
			at++;
		}
		steer_strbuf_puts(out, steer_scenario_names[k]);
		at += n;
	}
	steer_strbuf_puts(out, "\n");
}

void steer_cmdhelp_list(steer_strbuf *out, const steer_cmd_about *extra, size_t nextra,
                        size_t width)
{
	steer_cmd_about a;
	size_t column = 0; /* the widest usage that fits USAGE_COLUMN */
	for (size_t k = 0; nth(k, extra, nextra, &a); k++) {
		size_t n = usage_len(&a);
		if (n <= USAGE_COLUMN && n > column)
			column = n;
	}
	for (size_t k = 0; nth(k, extra, nextra, &a); k++) {
		size_t n = usage_len(&a);
		steer_strbuf_puts(out, "  ");
		put_usage(out, &a);
		if (n > column)
			steer_strbuf_printf(out, "\n  %*s" GAP, (int)column, "");
		else
			steer_strbuf_printf(out, "%*s" GAP, (int)(column - n), "");
		put_wrapped(out, column + 2 + strlen(GAP), a.help, width);
		steer_strbuf_puts(out, "\n");
	}
	put_scenarios(out, width);
}

steer_status steer_cmdhelp_one(steer_strbuf *out, const char *name, const steer_cmd_about *extra,
                               size_t nextra, size_t width)
{
	steer_cmd_about a;
	size_t k = 0;
	while (nth(k, extra, nextra, &a) && strcmp(a.name, name) != 0)
		k++;
	if (!nth(k, extra, nextra, &a))
		return STEER_ERR_NOENT;
	steer_strbuf_puts(out, "usage: ");
	put_usage(out, &a);
	steer_strbuf_puts(out, "\n  ");
	put_wrapped(out, 2, a.help, width);
	steer_strbuf_puts(out, "\n");
	bool table = k < steer_cmd_count;
	if (table && (!strcmp(name, "set") || !strcmp(name, "spawn"))) {
		size_t column = 0;
		const char *key, *help;
		for (size_t j = 0; (key = steer_cmdhelp_key(j, NULL)); j++)
			column = strlen(key) > column ? strlen(key) : column;
		steer_strbuf_puts(out, "keys (key=value):\n");
		for (size_t j = 0; (key = steer_cmdhelp_key(j, &help)); j++) {
			steer_strbuf_printf(out, "  %-*s" GAP, (int)column, key);
			put_wrapped(out, column + 2 + strlen(GAP), help, width);
			steer_strbuf_puts(out, "\n");
		}
	}
	if (table && !strcmp(name, "scenario"))
		put_scenarios(out, width);
	return STEER_OK;
}
