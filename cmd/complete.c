#include "complete.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "scenario.h"
#include "steer/command.h"
#include "steer/params.h"

/* Words typed before the one being completed, the command first; longer ones are cut
 * (they match no usage word). */
#define MAX_TYPED 16
#define WORD_MAX  64

typedef struct candidates {
	const char *prefix;
	size_t plen;
	void (*offer)(void *ud, const char *word, size_t len);
	void *ud;
	int n;
} candidates;

static void offer_n(candidates *k, const char *word, size_t len)
{
	if (len < k->plen || strncmp(word, k->prefix, k->plen) != 0)
		return;
	k->offer(k->ud, word, len);
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

/* Offers the fixed words the command's usage allows at argument position pos, in
 * forms whose earlier fixed words match what was typed. */
static void offer_usage(candidates *k, const char *name, const char *usage, char typed[][WORD_MAX],
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

/* What a form of the usage that fits the typed words allows at argument position pos:
 * key=value words (its first word with a '=', as "[key=value" or "[vx=V]", is at pos
 * or before), or a placeholder (ID, X). A word typed for a placeholder must not be a
 * lowercase word. */
static void usage_at(const char *name, const char *usage, char typed[][WORD_MAX], int pos,
                     bool *keys, bool *placeholder)
{
	*keys = *placeholder = false;
	const char *alt = usage;
	while (alt) {
		const char *bar = strstr(alt, " | ");
		const char *end = bar ? bar : alt + strlen(alt);
		size_t nlen = strlen(name);
		if ((size_t)(end - alt) > nlen && !strncmp(alt, name, nlen) && alt[nlen] == ' ')
			alt += nlen + 1;
		int i = 0;
		for (const char *w = alt; w < end;) {
			while (w < end && *w == ' ')
				w++;
			const char *we = w;
			while (we < end && *we != ' ')
				we++;
			if (we == w)
				break;
			size_t len = (size_t)(we - w);
			if (memchr(w, '=', len)) {
				*keys = true;
				break;
			}
			if (i == pos) {
				const char *c = w;
				*placeholder |= !usage_choices(&c, &len);
				break;
			}
			/* The commands that take keys take numbers for their placeholders:
			 * "flock" is spawn's fixed word, not its X. */
			const char *c = w;
			size_t clen = len;
			bool fixed = usage_choices(&c, &clen);
			if (!usage_fits(w, len, typed[i]) ||
			    (!fixed && islower((unsigned char)typed[i][0])))
				break;
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

steer_completion steer_cmd_complete(const char *line, size_t len, const steer_cmd_about *extra,
                                    size_t nextra,
                                    void (*offer_fn)(void *ud, const char *word, size_t len),
                                    void *ud)
{
	steer_completion out = {len, false};
	size_t start = len;
	while (start && line[start - 1] != ' ' && line[start - 1] != '\t')
		start--;
	out.from = start;
	/* The words before this one: the command is the first. */
	char typed[MAX_TYPED][WORD_MAX];
	int index = 0;
	for (size_t k = 0; k < start;) {
		while (k < start && (line[k] == ' ' || line[k] == '\t'))
			k++;
		if (k >= start)
			break;
		size_t e = k;
		while (e < start && line[e] != ' ' && line[e] != '\t')
			e++;
		if (index < MAX_TYPED)
			snprintf(typed[index], sizeof typed[index], "%.*s", (int)(e - k), line + k);
		index++;
		k = e;
	}
	const char *first = index ? typed[0] : "";
	const char *word = line + start;
	size_t wlen = len - start;
	candidates k = {.prefix = word, .plen = wlen, .offer = offer_fn, .ud = ud};
	const char *eq = memchr(word, '=', wlen);
	if (index == 0 || (index == 1 && !strcmp(first, "help"))) {
		for (size_t i = 0; i < steer_cmd_count; i++)
			offer(&k, steer_cmd_table[i].name);
		for (size_t i = 0; i < nextra; i++)
			offer(&k, extra[i].name);
	} else if (index == 1 && !strcmp(first, "scenario")) {
		for (int i = 0; steer_scenario_names[i]; i++)
			offer(&k, steer_scenario_names[i]);
	} else if (takes_keys(first) && eq) {
		k.prefix = eq + 1;
		k.plen = (size_t)(word + wlen - k.prefix);
		out.from = (size_t)(k.prefix - line);
		offer_values(&k, word, (size_t)(eq - word));
	} else {
		const steer_cmd_entry *e = steer_cmd_find(first);
		/* Past the words kept, only keys can follow. */
		bool keys = index > MAX_TYPED, placeholder = false;
		if (e && index <= MAX_TYPED)
			usage_at(e->name, e->usage, typed + 1, index - 1, &keys, &placeholder);
		if (takes_keys(first) && keys) {
			out.keys = true;
			offer(&k, "vx");
			offer(&k, "vy");
			if (strcmp(first, "obstacle") != 0)
				for (size_t i = 0; i < steer_param_count; i++)
					offer(&k, steer_param_defs[i].name);
		}
		/* Where a number may stand, nothing typed is not yet a fixed word: "spawn "
		 * stays as it is rather than becoming "spawn flock ". */
		if (e && index <= MAX_TYPED && !(wlen == 0 && placeholder)) {
			int before = k.n;
			offer_usage(&k, e->name, e->usage, typed + 1, index - 1);
			if (k.n > before)
				out.keys = false; /* a fixed word ("spawn flock") is not a key */
		}
	}
	return out;
}
