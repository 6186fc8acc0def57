#include "cmdline.h"

#include <stdio.h>
#include <string.h>

#include "command.h"
#include "help.h"
#include "params.h"
#include "scenario.h"

void tui_cmdline_start(tui_cmdline *c)
{
	c->buf[0] = '\0';
	c->len = c->pos = 0;
	c->history_pos = c->history_count;
}

static void set_text(tui_cmdline *c, const char *s)
{
	snprintf(c->buf, sizeof c->buf, "%s", s);
	c->len = c->pos = strlen(c->buf);
}

/* Removes [from, to) from the line; the cursor goes to from. */
static void cut(tui_cmdline *c, size_t from, size_t to)
{
	memmove(c->buf + from, c->buf + to, c->len - to + 1);
	c->len -= to - from;
	c->pos = from;
}

bool tui_cmdline_insert(tui_cmdline *c, char ch)
{
	if (c->len + 1 >= sizeof c->buf)
		return false;
	memmove(c->buf + c->pos + 1, c->buf + c->pos, c->len - c->pos + 1);
	c->buf[c->pos++] = ch;
	c->len++;
	return true;
}

static void history_move(tui_cmdline *c, int delta)
{
	int oldest = c->history_count > TUI_HISTORY ? c->history_count - TUI_HISTORY : 0;
	int pos = c->history_pos + delta;
	if (pos < oldest || pos > c->history_count)
		return;
	c->history_pos = pos;
	set_text(c, pos == c->history_count ? "" : c->history[pos % TUI_HISTORY]);
}

void tui_cmdline_edit(tui_cmdline *c, tui_edit e)
{
	size_t p = c->pos;
	switch (e) {
	case TUI_EDIT_LEFT:
		c->pos = p ? p - 1 : 0;
		break;
	case TUI_EDIT_RIGHT:
		c->pos = p < c->len ? p + 1 : p;
		break;
	case TUI_EDIT_HOME:
		c->pos = 0;
		break;
	case TUI_EDIT_END:
		c->pos = c->len;
		break;
	case TUI_EDIT_BACKSPACE:
		if (p)
			cut(c, p - 1, p);
		break;
	case TUI_EDIT_DELETE:
		if (p < c->len)
			cut(c, p, p + 1);
		break;
	case TUI_EDIT_KILL_START:
		cut(c, 0, p);
		break;
	case TUI_EDIT_KILL_END:
		c->buf[p] = '\0';
		c->len = p;
		break;
	case TUI_EDIT_KILL_WORD: {
		size_t k = p;
		while (k && c->buf[k - 1] == ' ')
			k--;
		while (k && c->buf[k - 1] != ' ')
			k--;
		cut(c, k, p);
		break;
	}
	case TUI_EDIT_HISTORY_UP:
		history_move(c, -1);
		break;
	case TUI_EDIT_HISTORY_DOWN:
		history_move(c, +1);
		break;
	}
}

void tui_cmdline_remember(tui_cmdline *c)
{
	size_t lead = 0;
	while (lead < c->len && c->buf[lead] == ' ')
		lead++;
	cut(c, 0, lead);
	while (c->len && c->buf[c->len - 1] == ' ')
		c->buf[--c->len] = '\0';
	c->pos = c->len;
	if (c->len == 0)
		return;
	if (c->history_count && !strcmp(c->history[(c->history_count - 1) % TUI_HISTORY], c->buf))
		return;
	snprintf(c->history[c->history_count % TUI_HISTORY], TUI_CMDLINE_MAX, "%s", c->buf);
	c->history_count++;
}

/* --- completion ------------------------------------------------------------------ */

typedef struct candidates {
	const char *prefix;
	size_t plen;
	const char *first;
	size_t common; /* length of the prefix all matches share */
	int n;
	char *msg;
	size_t msglen;
} candidates;

static void offer(candidates *k, const char *word)
{
	if (strncmp(word, k->prefix, k->plen) != 0)
		return;
	if (k->n == 0) {
		k->first = word;
		k->common = strlen(word);
	} else {
		size_t i = 0;
		while (i < k->common && word[i] == k->first[i])
			i++;
		k->common = i;
	}
	size_t used = strlen(k->msg);
	if (used + 1 < k->msglen)
		snprintf(k->msg + used, k->msglen - used, "%s%s", k->n ? " " : "", word);
	k->n++;
}

static bool takes_keys(const char *cmd)
{
	return !strcmp(cmd, "spawn") || !strcmp(cmd, "set") || !strcmp(cmd, "obstacle");
}

int tui_cmdline_complete(tui_cmdline *c, char *msg, size_t msglen)
{
	msg[0] = '\0';
	size_t start = c->pos;
	while (start && c->buf[start - 1] != ' ')
		start--;
	char word[TUI_CMDLINE_MAX];
	memcpy(word, c->buf + start, c->pos - start);
	word[c->pos - start] = '\0';
	/* The words before this one: the command is the first. */
	char first[64] = "";
	int index = 0;
	for (size_t k = 0; k < start;) {
		while (k < start && c->buf[k] == ' ')
			k++;
		if (k >= start)
			break;
		size_t e = k;
		while (e < start && c->buf[e] != ' ')
			e++;
		if (index == 0)
			snprintf(first, sizeof first, "%.*s", (int)(e - k), c->buf + k);
		index++;
		k = e;
	}
	candidates k = {word, strlen(word), NULL, 0, 0, msg, msglen};
	bool keys = false;
	if (index == 0 || (index == 1 && !strcmp(first, "help"))) {
		for (size_t i = 0; i < steer_cmd_count; i++)
			offer(&k, steer_cmd_table[i].name);
		for (size_t i = 0; i < tui_local_cmd_count; i++)
			offer(&k, tui_local_cmds[i].name);
	} else if (index == 1 && !strcmp(first, "scenario")) {
		for (int i = 0; steer_scenario_names[i]; i++)
			offer(&k, steer_scenario_names[i]);
	} else if (takes_keys(first) && !strchr(word, '=')) {
		keys = true;
		offer(&k, "vx");
		offer(&k, "vy");
		if (strcmp(first, "obstacle") != 0)
			for (size_t i = 0; i < steer_param_count; i++)
				offer(&k, steer_param_defs[i].name);
	}
	if (k.n == 0)
		return 0;
	/* Insert what the candidates share beyond the typed prefix, then the separator. */
	char add[TUI_CMDLINE_MAX];
	size_t n = k.common - k.plen;
	memcpy(add, k.first + k.plen, n);
	add[n] = '\0';
	if (k.n == 1) {
		add[n++] = keys ? '=' : ' ';
		add[n] = '\0';
		msg[0] = '\0';
	}
	for (size_t i = 0; add[i]; i++)
		if (!tui_cmdline_insert(c, add[i]))
			break;
	return k.n;
}
