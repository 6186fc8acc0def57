#include "cmdline.h"

#include <stdio.h>
#include <string.h>

#include "complete.h"
#include "help.h"

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
	/* len < TUI_CMDLINE_MAX: the line and its NUL fit an entry. */
	memcpy(c->history[c->history_count % TUI_HISTORY], c->buf, c->len + 1);
	c->history_count++;
}

/* --- completion ------------------------------------------------------------------ */

typedef struct candidates {
	char first[64]; /* the first match: a copy, as usage words are not terminated */
	size_t common;  /* length of the prefix all matches share */
	int n;
	char *msg;
	size_t msglen;
} candidates;

/* Takes one candidate: the list for the message line, and what they all share. */
static void take(void *ud, const char *word, size_t len)
{
	candidates *k = ud;
	if (len >= sizeof k->first)
		return;
	if (k->n == 0) {
		memcpy(k->first, word, len);
		k->first[len] = '\0';
		k->common = len;
	} else {
		size_t i = 0;
		while (i < k->common && i < len && word[i] == k->first[i])
			i++;
		k->common = i;
	}
	size_t used = strlen(k->msg);
	if (used + 1 < k->msglen)
		snprintf(k->msg + used, k->msglen - used, "%s%.*s", k->n ? " " : "", (int)len,
		         word);
	k->n++;
}

int tui_cmdline_complete(tui_cmdline *c, char *msg, size_t msglen)
{
	msg[0] = '\0';
	candidates k = {.msg = msg, .msglen = msglen};
	steer_completion how =
	    steer_cmd_complete(c->buf, c->pos, tui_local_cmds, tui_local_cmd_count, take, &k);
	if (k.n == 0)
		return 0;
	/* Insert what the candidates share beyond the typed prefix, then the separator. */
	size_t typed = c->pos - how.from;
	char add[TUI_CMDLINE_MAX];
	size_t n = k.common - typed;
	memcpy(add, k.first + typed, n);
	add[n] = '\0';
	if (k.n == 1) {
		add[n++] = how.keys ? '=' : ' ';
		add[n] = '\0';
		msg[0] = '\0';
	}
	for (size_t i = 0; add[i]; i++)
		if (!tui_cmdline_insert(c, add[i]))
			break;
	return k.n;
}
