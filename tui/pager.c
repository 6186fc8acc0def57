#include "pager.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* The continuation rows of a wrapped line are indented under its own indentation. */
static int continuation_indent(const char *s, int width)
{
	int lead = 0;
	while (s[lead] == ' ')
		lead++;
	int indent = lead + 2;
	return indent < width / 2 ? indent : width / 2;
}

/* Wraps s to width; writes row `want` (when out) and returns the row count. */
static int wrap(const char *s, int width, int want, char *out)
{
	if (width < 1)
		width = 1;
	size_t len = strlen(s), start = 0;
	int indent = continuation_indent(s, width), row = 0;
	for (;;) {
		int pad = row ? indent : 0;
		size_t room = (size_t)(width - pad);
		size_t end;
		if (len - start <= room) {
			end = len;
		} else {
			/* The last space that leaves a reasonably full row, else a hard cut that
			 * does not split a UTF-8 sequence. */
			end = start + room;
			size_t sp = end;
			while (sp > start + room / 3 && s[sp] != ' ')
				sp--;
			if (s[sp] == ' ' && sp > start + room / 3)
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

/* The end of the JSON value starting at s (one past it); strings and nesting aware. */
static const char *value_end(const char *s)
{
	int depth = 0;
	bool in_str = false;
	for (const char *p = s; *p; p++) {
		if (in_str) {
			if (*p == '\\' && p[1])
				p++;
			else if (*p == '"')
				in_str = false;
			if (!in_str && depth == 0)
				return p + 1;
			continue;
		}
		switch (*p) {
		case '"':
			in_str = true;
			break;
		case '{':
		case '[':
			depth++;
			break;
		case '}':
		case ']':
			if (depth == 0)
				return p;
			if (--depth == 0)
				return p + 1;
			break;
		case ',':
		case ':':
			if (depth == 0)
				return p;
			break;
		default:
			break;
		}
	}
	return s + strlen(s);
}

#define JSON_INLINE 60 /* a value this short stays on its key's line */

/* Appends line + (end - s) of s and flushes full lines into the pager. */
static int json_value(tui_pager *p, char *line, size_t cap, const char *s, const char *end,
                      int indent);

static int flush(tui_pager *p, char *line)
{
	int rc = tui_pager_add(p, line);
	line[0] = '\0';
	return rc;
}

static void append(char *line, size_t cap, const char *s, size_t n)
{
	size_t len = strlen(line);
	if (len + n >= cap)
		n = cap - len - 1;
	memcpy(line + len, s, n);
	line[len + n] = '\0';
}

static int json_value(tui_pager *p, char *line, size_t cap, const char *s, const char *end,
                      int indent)
{
	if ((size_t)(end - s) <= JSON_INLINE || (*s != '{' && *s != '[')) {
		append(line, cap, s, (size_t)(end - s));
		return 0;
	}
	char close = *s == '{' ? '}' : ']';
	if (*s == '[' && !memchr(s + 1, '{', (size_t)(end - s - 1)) &&
	    !memchr(s + 1, '[', (size_t)(end - s - 1))) {
		/* Numbers and strings only: one paragraph, ", " between items, which the
		 * pager wraps (a string with a comma inside gets a space too: still
		 * readable). */
		for (const char *q = s; q < end; q++) {
			append(line, cap, q, 1);
			if (*q == ',')
				append(line, cap, " ", 1);
		}
		return 0;
	}
	append(line, cap, s, 1);
	if (flush(p, line) != 0)
		return -1;
	const char *q = s + 1;
	while (q < end && *q != close) {
		char pad[64];
		int n = indent + 2 < (int)sizeof pad - 1 ? indent + 2 : (int)sizeof pad - 1;
		memset(pad, ' ', (size_t)n);
		pad[n] = '\0';
		append(line, cap, pad, (size_t)n);
		if (*s == '{') { /* "key": */
			const char *k = value_end(q);
			append(line, cap, q, (size_t)(k - q));
			if (*k == ':') {
				append(line, cap, ": ", 2);
				k++;
			}
			q = k;
		}
		const char *v = value_end(q);
		if (v <= q) { /* malformed: show the rest as it is, and stop */
			append(line, cap, q, (size_t)(end - q));
			return 0;
		}
		if (json_value(p, line, cap, q, v, indent + 2) != 0)
			return -1;
		q = v;
		if (q < end && *q == ',') {
			append(line, cap, ",", 1);
			q++;
		}
		if (flush(p, line) != 0)
			return -1;
	}
	char pad[64];
	int n = indent < (int)sizeof pad - 1 ? indent : (int)sizeof pad - 1;
	memset(pad, ' ', (size_t)n);
	pad[n] = '\0';
	append(line, cap, pad, (size_t)n);
	append(line, cap, &close, 1);
	return 0;
}

int tui_pager_add_json(tui_pager *p, const char *json)
{
	char line[1024] = "";
	const char *end = value_end(json);
	if (json_value(p, line, sizeof line, json, end, 0) != 0)
		return -1;
	return line[0] ? flush(p, line) : 0;
}
