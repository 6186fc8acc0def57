#include "pager.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "reserve.h"

void tui_pager_init(tui_pager *p)
{
	memset(p, 0, sizeof *p);
}

void tui_pager_reset(tui_pager *p, const char *title)
{
	for (size_t k = 0; k < p->n; k++)
		free(p->lines[k]);
	p->n = 0;
	p->top = 0;
	snprintf(p->title, sizeof p->title, "%s", title);
}

void tui_pager_free(tui_pager *p)
{
	tui_pager_reset(p, "");
	free(p->lines);
	tui_pager_init(p);
}

static int add_one(tui_pager *p, const char *s, size_t len)
{
	if (steer_reserve((void **)&p->lines, &p->cap, p->n + 1, sizeof *p->lines) != STEER_OK)
		return -1;
	char *copy = malloc(len + 1);
	if (!copy)
		return -1;
	memcpy(copy, s, len);
	copy[len] = '\0';
	p->lines[p->n++] = copy;
	return 0;
}

int tui_pager_add(tui_pager *p, const char *text)
{
	for (;;) {
		const char *nl = strchr(text, '\n');
		size_t len = nl ? (size_t)(nl - text) : strlen(text);
		if (add_one(p, text, len) != 0)
			return -1;
		if (!nl)
			return 0;
		text = nl + 1;
	}
}

int tui_pager_addf(tui_pager *p, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	return tui_pager_add(p, line);
}

tui_pager_box tui_pager_layout(const tui_pager *p, int cols, int rows)
{
	tui_pager_box b;
	if (rows > 4)
		rows -= 2; /* the status and message lines stay in sight */
	b.cols = cols < TUI_PAGER_MAX_COLS ? cols : TUI_PAGER_MAX_COLS;
	/* Two columns of margin each side when there is room, none on a tiny screen. */
	int margin = b.cols >= 40 ? 2 : b.cols >= 12 ? 1 : 0;
	b.text_cols = b.cols - 2 * margin > 1 ? b.cols - 2 * margin : 1;
	int text = tui_pager_height(p, b.text_cols);
	int avail = rows - 2 > 1 ? rows - 2 : 1; /* title and footer */
	b.text_rows = text < avail ? (text > 0 ? text : 1) : avail;
	b.rows = b.text_rows + 2 < rows ? b.text_rows + 2 : rows;
	b.left = (cols - b.cols) / 2 > 0 ? (cols - b.cols) / 2 : 0;
	b.top = (rows - b.rows) / 2 > 0 ? (rows - b.rows) / 2 : 0;
	b.text_left = b.left + margin;
	b.text_top = b.top + 1;
	return b;
}

/* A second column past half the width only where it leaves a description this many
 * columns. */
#define ROOM_MIN 30

/* Columns of s[0..n): one a character (the help's glyphs are one cell wide). */
static int columns(const char *s, size_t n)
{
	int c = 0;
	for (size_t i = 0; i < n; i++)
		c += ((unsigned char)s[i] & 0xC0) != 0x80;
	return c;
}

static bool fits(int column, int width)
{
	return column < width / 2 || width - column >= ROOM_MIN;
}

/* The continuation rows of a wrapped line: under its second column where it has one
 * ("  key      what it does": the text after its first run of three or more blanks);
 * else under its own indentation when that is deep (a line that continues a term's
 * description in that column), or two past a shallow one (a paragraph's hanging
 * indent). Where a column does not fit, a term's description and its deep lines go on
 * at 4, as a paragraph under the term. */
static int continuation_indent(const char *s, int lead, int width)
{
	const char *gap = strstr(s + lead, "   ");
	if (gap) {
		size_t at = (size_t)(gap - s);
		while (s[at] == ' ')
			at++;
		int column = columns(s, at);
		if (s[at] && fits(column, width))
			return column;
	}
	int indent = lead >= 4 ? lead : lead + 2;
	if (!fits(indent, width))
		indent = 4;
	return indent < width / 2 ? indent : width / 2;
}

/* Wraps s to width; writes row `want` (when out) and returns the row count. */
static int wrap(const char *s, int width, int want, char *out)
{
	if (width < 1)
		width = 1;
	size_t len = strlen(s), start = 0, lead = strspn(s, " ");
	int indent = continuation_indent(s, (int)lead, width), row = 0;
	/* An indentation deeper than the rows after it would take (a narrow window) is cut
	 * to theirs, rather than filling the first row with blanks. */
	bool cut_lead = lead > (size_t)indent && lead < len;
	if (cut_lead)
		start = lead;
	for (;;) {
		int pad = row || cut_lead ? indent : 0;
		size_t room = (size_t)(width - pad);
		size_t end;
		if (len - start <= room) {
			end = len;
		} else {
			/* The last space after the row's first word, else a hard cut that does not
			 * split a UTF-8 sequence. */
			size_t first = start + strspn(s + start, " ");
			end = start + room;
			size_t sp = end;
			while (sp > first && s[sp] != ' ')
				sp--;
			if (s[sp] == ' ' && sp > first)
				end = sp;
			else
				while (end > start + 1 && ((unsigned char)s[end] & 0xC0) == 0x80)
					end--;
		}
		if (out && row == want) {
			memset(out, ' ', (size_t)pad);
			memcpy(out + pad, s + start, end - start);
			out[(size_t)pad + end - start] = '\0';
		}
		row++;
		start = end;
		while (start < len && s[start] == ' ' && end != len)
			start++;
		if (start >= len)
			return row;
	}
}

int tui_pager_height(const tui_pager *p, int width)
{
	int h = 0;
	for (size_t k = 0; k < p->n; k++)
		h += wrap(p->lines[k], width, -1, NULL);
	return h;
}

void tui_pager_row(const tui_pager *p, int width, int r, char *out)
{
	out[0] = '\0';
	for (size_t k = 0; k < p->n && r >= 0; k++) {
		int h = wrap(p->lines[k], width, -1, NULL);
		if (r < h) {
			wrap(p->lines[k], width, r, out);
			return;
		}
		r -= h;
	}
}

void tui_pager_scroll(tui_pager *p, int delta, int text_cols, int text_rows)
{
	int max = tui_pager_height(p, text_cols) - text_rows;
	if (max < 0)
		max = 0;
	long top = (long)p->top + delta;
	if (delta == INT_MIN)
		top = 0;
	else if (delta == INT_MAX)
		top = max;
	p->top = top < 0 ? 0 : top > max ? max : (int)top;
}

/* --- JSON, laid out for reading ------------------------------------------------------ */

#define TUI_JSON_INLINE 60 /* a value this short stays on its key's line */

typedef struct json_layout {
	tui_pager *p;
	char line[1024];
	int rc;
} json_layout;

static void append(json_layout *j, const char *s, size_t n)
{
	size_t len = strlen(j->line);
	if (len + n >= sizeof j->line)
		n = sizeof j->line - len - 1;
	memcpy(j->line + len, s, n);
	j->line[len + n] = '\0';
}

static void append_str(json_layout *j, const char *s)
{
	append(j, s, strlen(s));
}

static void indent(json_layout *j, int n)
{
	for (int k = 0; k < n && k < 64; k++)
		append(j, " ", 1);
}

static void flush(json_layout *j)
{
	if (j->rc == 0)
		j->rc = tui_pager_add(j->p, j->line);
	j->line[0] = '\0';
}

/* v as compact JSON, appended (jansson writes the server's numbers back as it sent
 * them: integers as integers, reals with 17 digits). */
static void append_compact(json_layout *j, const json_t *v)
{
	char *text = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
	if (!text) {
		j->rc = -1;
		return;
	}
	append_str(j, text);
	free(text);
}

static bool scalars_only(const json_t *array)
{
	size_t k;
	const json_t *v;
	json_array_foreach(array, k, v)
	{
		if (json_is_object(v) || json_is_array(v))
			return false;
	}
	return true;
}

/* Lays v out from the current line at depth: short values and scalars inline, an
 * array of scalars as one paragraph (", " between items, which the pager wraps), an
 * object or array one member a line. */
static void layout(json_layout *j, const json_t *v, int depth)
{
	char *text = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
	if (!text) {
		j->rc = -1;
		return;
	}
	bool one_line =
	    (!json_is_object(v) && !json_is_array(v)) || strlen(text) <= TUI_JSON_INLINE;
	if (one_line)
		append_str(j, text);
	free(text);
	if (one_line)
		return;
	if (json_is_array(v) && scalars_only(v)) {
		append(j, "[", 1);
		size_t k;
		const json_t *item;
		json_array_foreach(v, k, item)
		{
			if (k)
				append(j, ", ", 2);
			append_compact(j, item);
		}
		append(j, "]", 1);
		return;
	}
	append(j, json_is_object(v) ? "{" : "[", 1);
	flush(j);
	size_t n = json_is_object(v) ? json_object_size(v) : json_array_size(v), k = 0;
	if (json_is_object(v)) {
		const char *key;
		const json_t *member;
		json_object_foreach((json_t *)v, key, member)
		{
			indent(j, depth + 2);
			json_t *name = json_string(key);
			if (name)
				append_compact(j, name);
			json_decref(name);
			append(j, ": ", 2);
			layout(j, member, depth + 2);
			if (++k < n)
				append(j, ",", 1);
			flush(j);
		}
	} else {
		const json_t *item;
		json_array_foreach(v, k, item)
		{
			indent(j, depth + 2);
			layout(j, item, depth + 2);
			if (k + 1 < n)
				append(j, ",", 1);
			flush(j);
		}
	}
	indent(j, depth);
	append(j, json_is_object(v) ? "}" : "]", 1);
}

int tui_pager_add_json(tui_pager *p, const char *json)
{
	json_layout j = {.p = p, .rc = 0};
	json_t *root = tui_json_parse(json);
	if (!root) /* not JSON (a broken or hostile server): shown as it came */
		return tui_pager_add(p, json);
	layout(&j, root, 0);
	json_decref(root);
	if (j.line[0])
		flush(&j);
	return j.rc;
}
