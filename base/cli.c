#include "cli.h"

#include <stdio.h>
#include <string.h>

const char *steer_cli_flag(const struct option *longs, int index, char *out, size_t n)
{
	snprintf(out, n, "--%s", longs[index].name);
	return out;
}

/* The long option name (len bytes) stands for: the one of that name, else the only
 * one it begins; NULL when none is or several are (*several then). */
static const struct option *named(const struct option *longs, const char *name, size_t len,
                                  int *several)
{
	const struct option *found = NULL;
	int count = 0;
	for (const struct option *o = longs; o->name; o++) {
		if (strncmp(o->name, name, len) != 0)
			continue;
		if (strlen(o->name) == len)
			return o;
		found = o;
		count++;
	}
	*several = count > 1;
	return count == 1 ? found : NULL;
}

/* "'--NAME' is ambiguous: --a, --b" for the long options name (len bytes) begins. */
static void ambiguous(const struct option *longs, const char *name, size_t len, char *out, size_t n)
{
	int at = snprintf(out, n, "'--%.*s' is ambiguous:", (int)len, name);
	for (const struct option *o = longs; o->name && at > 0 && (size_t)at < n; o++)
		if (!strncmp(o->name, name, len))
			at += snprintf(out + at, n - (size_t)at, " --%s", o->name);
}

/* The name of a long option's word "--NAME" or "--NAME=VALUE": its length into *len,
 * and where its '=' is (NULL without). */
static const char *long_name(const char *word, size_t *len)
{
	const char *eq = strchr(word + 2, '=');
	*len = eq ? (size_t)(eq - (word + 2)) : strlen(word + 2);
	return eq;
}

bool steer_cli_value_is_option(const char *value, char *const *argv, int next,
                               const struct option *longs, const char *shorts)
{
	if (!value || next < 1 || value != argv[next - 1] || value[0] != '-')
		return false;
	if (value[1] != '-')
		return value[1] && !value[2] && strchr(shorts, value[1]);
	size_t len;
	(void)long_name(value, &len);
	int several = 0;
	return len && (named(longs, value + 2, len, &several) || several);
}

void steer_cli_value_refusal(const char *flag, const char *value, char *out, size_t n)
{
	int at = snprintf(out, n, "%s needs a value, and '%s' is an option", flag, value);
	if (at > 0 && (size_t)at < n && !strncmp(flag, "--", 2))
		snprintf(out + at, n - (size_t)at, " (give %s=%s if it is the value)", flag, value);
}

void steer_cli_refusal(int got, const char *word, int short_opt, const struct option *longs,
                       char *out, size_t n)
{
	if (strncmp(word, "--", 2) != 0 || !word[2]) {
		/* A short option: the word may be a bundle such as -xV. */
		if (got == ':')
			snprintf(out, n, "-%c needs a value", short_opt);
		else
			snprintf(out, n, "unknown option '-%c'", short_opt);
		return;
	}
	size_t len;
	const char *name = word + 2, *eq = long_name(word, &len);
	int several = 0;
	const struct option *o = len ? named(longs, name, len, &several) : NULL;
	if (o && got == ':')
		snprintf(out, n, "--%s needs a value", o->name);
	else if (o && eq && o->has_arg == no_argument)
		snprintf(out, n, "--%s takes no value", o->name);
	else if (several)
		ambiguous(longs, name, len, out, n);
	else
		snprintf(out, n, "unknown option '%s'", word);
}
