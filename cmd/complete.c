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

/* One word of a usage form. */
typedef struct usage_word {
	const char *w;
	size_t len;
} usage_word;

#define MAX_FORM_WORDS 32

/* Calls fn with the words of each form of a usage ("ID clear | ID loop on|off"), the
 * command's name dropped where a form repeats it ("spawn flock N ..."). */
static void each_form(const char *name, const char *usage,
                      void (*fn)(void *ud, const usage_word *words, int n), void *ud)
{
	size_t nlen = strlen(name);
	for (const char *alt = usage; alt;) {
		const char *bar = strstr(alt, " | ");
		const char *end = bar ? bar : alt + strlen(alt);
		if ((size_t)(end - alt) > nlen && !strncmp(alt, name, nlen) && alt[nlen] == ' ')
			alt += nlen + 1;
		usage_word words[MAX_FORM_WORDS];
		int n = 0;
		for (const char *w = alt; w < end && n < MAX_FORM_WORDS;) {
			while (w < end && *w == ' ')
				w++;
			const char *we = w;
			while (we < end && *we != ' ')
				we++;
			if (we == w)
				break;
			words[n++] = (usage_word){w, (size_t)(we - w)};
			w = we;
		}
		fn(ud, words, n);
		alt = bar ? bar + 3 : NULL;
	}
}

/* The words typed after the command, and the position of the one being completed. */
typedef struct usage_query {
	char (*typed)[WORD_MAX];
	int pos;
	candidates *k;          /* offer_form */
	bool keys, placeholder; /* form_allows */
} usage_query;

/* Offers the fixed words the form allows at the position, if its earlier fixed
 * words match what was typed. */
static void offer_form(void *ud, const usage_word *words, int n)
{
	usage_query *q = ud;
	for (int i = 0; i < n; i++) {
		if (i == q->pos) {
			each_choice(words[i].w, words[i].len, offer_choice, q->k);
			return;
		}
		if (!usage_fits(words[i].w, words[i].len, q->typed[i]))
			return;
	}
}

/* Notes what the form, if it fits the words typed, allows at the position: key=value
 * words (its first word with a '=', as "[key=value" or "[vx=V]", is at the position
 * or before), or a placeholder (ID, X). The commands that take keys take numbers for
 * their placeholders: a lowercase word ("flock") does not fit one. */
static void form_allows(void *ud, const usage_word *words, int n)
{
	usage_query *q = ud;
	for (int i = 0; i < n; i++) {
		const char *c = words[i].w;
		size_t clen = words[i].len;
		if (memchr(c, '=', clen)) {
			q->keys = true;
			return;
		}
		bool fixed = usage_choices(&c, &clen);
		if (i == q->pos) {
			q->placeholder |= !fixed;
			return;
		}
		if (!usage_fits(words[i].w, words[i].len, q->typed[i]) ||
		    (!fixed && islower((unsigned char)q->typed[i][0])))
			return;
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
		usage_query q = {typed + 1, index - 1, &k, index > MAX_TYPED, false};
		if (e && index <= MAX_TYPED)
			each_form(e->name, e->usage, form_allows, &q);
		if (takes_keys(first) && q.keys) {
			out.keys = true;
			offer(&k, "vx");
			offer(&k, "vy");
			if (strcmp(first, "obstacle") != 0)
				for (size_t i = 0; i < steer_param_count; i++)
					offer(&k, steer_param_defs[i].name);
		}
		/* Where a number may stand, nothing typed is not yet a fixed word: "spawn "
		 * stays as it is rather than becoming "spawn flock ". */
		if (e && index <= MAX_TYPED && !(wlen == 0 && q.placeholder)) {
			int before = k.n;
			each_form(e->name, e->usage, offer_form, &q);
			if (k.n > before)
				out.keys = false; /* a fixed word ("spawn flock") is not a key */
		}
	}
	return out;
}
