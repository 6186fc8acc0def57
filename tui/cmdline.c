#include "cmdline.h"

#include <stdio.h>
#include <string.h>

#include "help.h"
#include "scenario.h"
#include "steer/command.h"
#include "steer/params.h"

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
	const char *prefix;
	size_t plen;
	char first[64]; /* the first match: a copy, as usage words are not terminated */
	size_t common;  /* length of the prefix all matches share */
	int n;
	char *msg;
	size_t msglen;
} candidates;

/* Offers the len characters at word. */
static void offer_n(candidates *k, const char *word, size_t len)
{
	if (len < k->plen || strncmp(word, k->prefix, k->plen) != 0 || len >= sizeof k->first)
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

static void offer(candidates *k, const char *word)
{
	offer_n(k, word, strlen(word));
}

static bool takes_keys(const char *cmd)
{
	return !strcmp(cmd, "spawn") || !strcmp(cmd, "set") || !strcmp(cmd, "obstacle");
}

/* The choices a usage word offers: "on|off" or "[wrap|bounce|none]" gives each word;
 * a placeholder (ID, X, [N]) or a key=value gives none. Narrows [*w, *w + *len) to the
 * choices, '|' separated; false when there are none. */
static bool usage_choices(const char **w, size_t *len)
{
	if (*len >= 2 && (*w)[0] == '[' && (*w)[*len - 1] == ']')
		(*w)++, *len -= 2;
	if (*len == 0)
		return false;
	for (size_t i = 0; i < *len; i++) {
		char ch = (*w)[i];
		if (!((ch >= 'a' && ch <= 'z') || ch == '_' || ch == '|'))
			return false;
	}
	return true;
}

/* Calls fn on each choice of the usage word w (len characters); false when it is a
 * placeholder. fn returns true to stop. */
static bool each_choice(const char *w, size_t len, bool (*fn)(void *ud, const char *c, size_t n),
                        void *ud)
{
	if (!usage_choices(&w, &len))
		return false;
	const char *end = w + len;
	while (w < end) {
		const char *bar = memchr(w, '|', (size_t)(end - w));
		const char *ce = bar ? bar : end;
		if (fn(ud, w, (size_t)(ce - w)))
			break;
		w = ce + 1;
	}
	return true;
}

typedef struct typed_match {
	const char *typed;
	bool found;
} typed_match;

static bool is_typed(void *ud, const char *c, size_t n)
{
	typed_match *m = ud;
	m->found = strlen(m->typed) == n && !strncmp(m->typed, c, n);
	return m->found;
}

static bool offer_choice(void *ud, const char *c, size_t n)
{
	offer_n(ud, c, n);
	return false;
}

/* Does the typed word fit the usage word: any word fits a placeholder; a fixed word
 * must be one of its choices. */
static bool usage_fits(const char *uw, size_t len, const char *typed)
{
	typed_match m = {typed, false};
	return !each_choice(uw, len, is_typed, &m) || m.found;
}

/* Offers the fixed words the command's usage allows at argument position pos
 * ("flock ID on|off", "path ID clear | ID loop on|off"), in forms whose earlier
 * fixed words match what was typed. */
static void offer_usage(candidates *k, const char *name, const char *usage, char typed[][64],
                        int pos)
{
	const char *alt = usage;
	while (alt) {
		const char *bar = strstr(alt, " | ");
		const char *end = bar ? bar : alt + strlen(alt);
		/* A form may repeat the command's name ("spawn flock N ..."). */
		size_t nlen = strlen(name);
		if ((size_t)(end - alt) > nlen && !strncmp(alt, name, nlen) && alt[nlen] == ' ')
			alt += nlen + 1;
		int i = 0;
		bool fits = true;
		for (const char *w = alt; w < end && fits;) {
			while (w < end && *w == ' ')
				w++;
			const char *we = w;
			while (we < end && *we != ' ')
				we++;
			if (we == w)
				break;
			if (i < pos) {
				fits = usage_fits(w, (size_t)(we - w), typed[i]);
			} else {
				each_choice(w, (size_t)(we - w), offer_choice, k);
				break;
			}
			i++;
			w = we;
		}
		alt = bar ? bar + 3 : NULL;
	}
}

/* The words a parameter's value can be: on/off for a flag, the names of an enum. */
static void offer_values(candidates *k, const char *key, size_t keylen)
{
	for (size_t i = 0; i < steer_param_count; i++) {
		const steer_param_def *d = &steer_param_defs[i];
		if (strlen(d->name) != keylen || strncmp(d->name, key, keylen) != 0)
			continue;
		if (d->type == STEER_PARAM_BOOL) {
			offer(k, "on");
			offer(k, "off");
		} else if (d->type == STEER_PARAM_ENUM) {
			for (size_t e = 0; d->enum_names[e]; e++)
				offer(k, d->enum_names[e]);
		}
	}
}

#define MAX_TYPED 16

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
	char typed[MAX_TYPED][64];
	int index = 0;
	for (size_t k = 0; k < start;) {
		while (k < start && c->buf[k] == ' ')
			k++;
		if (k >= start)
			break;
		size_t e = k;
		while (e < start && c->buf[e] != ' ')
			e++;
		if (index < MAX_TYPED)
			snprintf(typed[index], sizeof typed[index], "%.*s", (int)(e - k),
			         c->buf + k);
		index++;
		k = e;
	}
	const char *first = index ? typed[0] : "";
	candidates k = {.prefix = word, .plen = strlen(word), .msg = msg, .msglen = msglen};
	bool keys = false;
	const char *eq = strchr(word, '=');
	if (index == 0 || (index == 1 && !strcmp(first, "help"))) {
		for (size_t i = 0; i < steer_cmd_count; i++)
			offer(&k, steer_cmd_table[i].name);
		for (size_t i = 0; i < tui_local_cmd_count; i++)
			offer(&k, tui_local_cmds[i].name);
	} else if (index == 1 && !strcmp(first, "scenario")) {
		for (int i = 0; steer_scenario_names[i]; i++)
			offer(&k, steer_scenario_names[i]);
	} else if (takes_keys(first) && eq) {
		k.prefix = eq + 1;
		k.plen = strlen(k.prefix);
		offer_values(&k, word, (size_t)(eq - word));
	} else {
		if (takes_keys(first)) {
			keys = true;
			offer(&k, "vx");
			offer(&k, "vy");
			if (strcmp(first, "obstacle") != 0)
				for (size_t i = 0; i < steer_param_count; i++)
					offer(&k, steer_param_defs[i].name);
		}
		const steer_cmd_entry *e = steer_cmd_find(first);
		if (e && index <= MAX_TYPED) {
			int before = k.n;
			offer_usage(&k, e->name, e->usage, typed + 1, index - 1);
			if (k.n > before)
				keys = false; /* a fixed word ("spawn flock") is not a key */
		}
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
