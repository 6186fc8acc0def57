#define _POSIX_C_SOURCE 200809L
#include "ctl_format.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Usages wider than this go on a line of their own, the description below. */
#define USAGE_COLUMN 34

bool ctl_is_err(const char *line, size_t len)
{
	return len >= 3 && !memcmp(line, "ERR", 3) && (len == 3 || line[3] == ' ');
}

/* The JSON after "OK ", or NULL for a plain "OK" or an ERR. */
static const char *json_of(const char *line, size_t len, size_t *jlen)
{
	if (len > 3 && !memcmp(line, "OK ", 3)) {
		*jlen = len - 3;
		return line + 3;
	}
	return NULL;
}

/* {"commands":[usage...],"about":{name:description},"scenarios":[...]} */
static bool print_help_list(json_t *root)
{
	json_t *cmds = json_object_get(root, "commands");
	json_t *about = json_object_get(root, "about");
	if (!json_is_array(cmds))
		return false;
	size_t width = 0, i;
	json_t *u;
	json_array_foreach(cmds, i, u)
	{
		size_t n = json_is_string(u) ? strlen(json_string_value(u)) : 0;
		if (n <= USAGE_COLUMN && n > width)
			width = n;
	}
	json_array_foreach(cmds, i, u)
	{
		if (!json_is_string(u))
			return false;
		const char *usage = json_string_value(u);
		char name[64];
		snprintf(name, sizeof name, "%.*s", (int)strcspn(usage, " "), usage);
		const char *desc = json_string_value(json_object_get(about, name));
		if (!desc) /* a server from before "about" */
			printf("  %s\n", usage);
		else if (strlen(usage) > width)
			printf("  %s\n  %*s  %s\n", usage, (int)width, "", desc);
		else
			printf("  %-*s  %s\n", (int)width, usage, desc);
	}
	json_t *sc = json_object_get(root, "scenarios");
	if (json_is_array(sc)) {
		printf("scenarios:");
		json_array_foreach(sc, i, u)
		    printf(" %s", json_is_string(u) ? json_string_value(u) : "?");
		printf("\n");
	}
	printf("'help COMMAND' describes one; 'help set' lists the vehicle parameters.\n");
	return true;
}

/* {"name","usage","help","keys":{key:description}} */
static bool print_help_one(json_t *root)
{
	const char *usage = json_string_value(json_object_get(root, "usage"));
	const char *help = json_string_value(json_object_get(root, "help"));
	if (!usage || !help)
		return false;
	printf("usage: %s\n  %s\n", usage, help);
	json_t *keys = json_object_get(root, "keys");
	if (json_is_object(keys)) {
		size_t width = 0;
		const char *k;
		json_t *v;
		json_object_foreach(keys, k, v) width = strlen(k) > width ? strlen(k) : width;
		printf("keys:\n");
		json_object_foreach(keys, k, v) printf(
		    "  %-*s  %s\n", (int)width, k, json_is_string(v) ? json_string_value(v) : "");
	}
	return true;
}

/* Lays out help's reply; false when it is not the shape expected. */
static bool print_help(const char *json, size_t len)
{
	json_error_t e;
	json_t *root = json_loadb(json, len, JSON_DECODE_ANY, &e);
	if (!json_is_object(root)) {
		json_decref(root);
		return false;
	}
	bool ok = json_object_get(root, "commands") ? print_help_list(root) : print_help_one(root);
	json_decref(root);
	return ok;
}

void ctl_print_reply(ctl_mode mode, const char *command, const char *line, size_t len)
{
	size_t jlen = 0;
	const char *json = json_of(line, len, &jlen);
	switch (mode) {
	case CTL_RAW:
		break;
	case CTL_JSON:
		if (ctl_is_err(line, len))
			fprintf(stderr, "%.*s\n", (int)len, line);
		else if (json)
			printf("%.*s\n", (int)jlen, json);
		fflush(stdout);
		return;
	case CTL_HUMAN: {
		size_t n = strcspn(command, " \t");
		if (json && n == 4 && !memcmp(command, "help", 4) && print_help(json, jlen)) {
			fflush(stdout);
			return;
		}
		break;
	}
	}
	printf("%.*s\n", (int)len, line);
	fflush(stdout);
}

int ctl_looks_like_text(const char *buf, size_t len)
{
	/* Every reply starts "OK\n", "OK " or "ERR ". */
	static const char *const starts[] = {"OK\n", "OK ", "ERR ", NULL};
	for (int k = 0; starts[k]; k++) {
		size_t want = strlen(starts[k]), n = len < want ? len : want;
		if (!memcmp(buf, starts[k], n))
			return len >= want ? 1 : -1;
	}
	return 0;
}

void ctl_explain_not_text(const char *buf, size_t len, char *out, size_t n)
{
	/* A protobuf port's first frame: a varint length, then a ServerMessage member,
	 * length-delimited: tag byte (field << 3) | 2, field 1 (Welcome) to 6. A full
	 * server's refusal is a Reply (field 3). */
	size_t i = 0;
	while (i < len && i < 5 && ((unsigned char)buf[i] & 0x80))
		i++;
	unsigned char tag = i + 1 < len ? (unsigned char)buf[i + 1] : 0;
	if ((tag & 7) == 2 && tag >> 3 >= 1 && tag >> 3 <= 6) {
		snprintf(out, n,
		         "this is steer-server's protobuf port (for steer-tui); steerctl talks to "
		         "the command port, e.g. --port 7701");
		return;
	}
	char shown[24];
	size_t k = 0;
	for (size_t j = 0; j < len && k + 1 < sizeof shown && j < 16; j++)
		shown[k++] = buf[j] >= ' ' && buf[j] <= '~' ? buf[j] : '.';
	shown[k] = '\0';
	snprintf(out, n,
	         "this server does not speak steer's text protocol (it sent \"%s\"); is this "
	         "steer-server's command port?",
	         shown);
}

void ctl_free_words(char **words)
{
	for (size_t i = 0; words && words[i]; i++)
		free(words[i]);
	free(words);
}

/* Appends the first `n` bytes of s to the NULL-terminated list; false when out of memory. */
static bool add_word(char ***list, size_t *count, const char *s, size_t n)
{
	char **grown = realloc(*list, (*count + 2) * sizeof *grown);
	if (!grown)
		return false;
	*list = grown;
	if (!(grown[*count] = strndup(s, n)))
		return false;
	grown[++*count] = NULL;
	return true;
}

char **ctl_help_words(const char *line, size_t len, const char *what)
{
	size_t jlen;
	const char *json = json_of(line, len, &jlen);
	if (!json)
		return NULL;
	json_error_t e;
	json_t *root = json_loadb(json, jlen, 0, &e);
	char **list = NULL;
	size_t count = 0;
	bool ok = true;
	if (!strcmp(what, "keys")) {
		const char *k;
		json_t *v;
		json_object_foreach(json_object_get(root, "keys"), k, v) ok =
		    ok && add_word(&list, &count, k, strlen(k));
	} else {
		/* "commands" holds usages: the name is the first word. */
		size_t i;
		json_t *u;
		json_array_foreach(json_object_get(root, what), i, u)
		{
			const char *word = json_string_value(u);
			if (word)
				ok = ok && add_word(&list, &count, word, strcspn(word, " "));
		}
	}
	json_decref(root);
	if (!ok) {
		ctl_free_words(list);
		return NULL;
	}
	return list;
}
