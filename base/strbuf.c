#include "steer/strbuf.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reserve.h"
#include "utf8.h"

void steer_strbuf_init(steer_strbuf *b)
{
	memset(b, 0, sizeof *b);
}

void steer_strbuf_free(steer_strbuf *b)
{
	free(b->data);
	steer_strbuf_init(b);
}

void steer_strbuf_clear(steer_strbuf *b)
{
	b->len = 0;
	b->oom = false;
	if (b->data)
		b->data[0] = '\0';
}

static bool reserve(steer_strbuf *b, size_t extra)
{
	if (b->oom)
		return false;
	/* + 1 for the terminating NUL; the sum cannot wrap before memory runs out. */
	if (extra > SIZE_MAX - b->len - 1 ||
	    steer_reserve((void **)&b->data, &b->cap, b->len + extra + 1, 1) != STEER_OK) {
		b->oom = true;
		return false;
	}
	return true;
}

char *steer_strbuf_reserve(steer_strbuf *b, size_t n)
{
	return reserve(b, n) ? b->data + b->len : NULL;
}

void steer_strbuf_put(steer_strbuf *b, const char *s, size_t n)
{
	if (!reserve(b, n))
		return;
	memcpy(b->data + b->len, s, n);
	b->len += n;
	b->data[b->len] = '\0';
}

void steer_strbuf_puts(steer_strbuf *b, const char *s)
{
	steer_strbuf_put(b, s, strlen(s));
}

void steer_strbuf_printf(steer_strbuf *b, const char *fmt, ...)
{
	char small[128];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(small, sizeof small, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof small) {
		steer_strbuf_put(b, small, (size_t)n);
		return;
	}
	if (!reserve(b, (size_t)n))
		return;
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void steer_json_num(steer_strbuf *b, double v)
{
	if (!isfinite(v))
		steer_strbuf_put(b, "null", 4);
	else
		steer_strbuf_printf(b, "%.17g", v);
}

void steer_json_nums(steer_strbuf *b, const double *v, size_t n)
{
	steer_strbuf_put(b, "[", 1);
	for (size_t k = 0; k < n; k++) {
		if (k)
			steer_strbuf_put(b, ",", 1);
		steer_json_num(b, v[k]);
	}
	steer_strbuf_put(b, "]", 1);
}

void steer_json_str(steer_strbuf *b, const char *s)
{
	steer_strbuf_put(b, "\"", 1);
	size_t n = strlen(s);
	for (size_t i = 0; i < n;) {
		unsigned char c = (unsigned char)s[i];
		size_t k = steer_utf8_char(s + i, n - i);
		if (c == '"' || c == '\\')
			steer_strbuf_printf(b, "\\%c", c);
		else if (c < 0x20)
			steer_strbuf_printf(b, "\\u%04x", c);
		else if (k)
			steer_strbuf_put(b, s + i, k);
		else /* not UTF-8, which JSON must be: shown as the text \xNN */
			steer_strbuf_printf(b, "\\\\x%02x", c);
		i += k ? k : 1;
	}
	steer_strbuf_put(b, "\"", 1);
}
