/* The line and field reader of a save's text: a line at a time, split at spaces,
 * each field read as the format spells it (hex floats, whole numbers, on/off, keys). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "save_internal.h"

/* Records the first error only: later ones are consequences of it. */
bool steer_save_fail(reader *r, const char *fmt, ...)
{
	if (r->failed)
		return false;
	r->failed = true;
	if (!r->err || r->errlen == 0)
		return false;
	int n = r->line ? snprintf(r->err, r->errlen, "line %u: ", r->line)
	                : snprintf(r->err, r->errlen, "end line: ");
	if (n < 0 || (size_t)n >= r->errlen)
		return false;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->err + n, r->errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return false;
}

/* For errors about the file as a whole, which have no line. */
bool steer_save_fail_file(reader *r, const char *msg)
{
	if (!r->failed && r->err && r->errlen)
		snprintf(r->err, r->errlen, "%s", msg);
	r->failed = true;
	return false;
}

static void split_fields(reader *r)
{
	r->nfield = 0;
	r->next = 0;
	char *p = r->text;
	while (*p) {
		while (*p == ' ')
			*p++ = '\0';
		if (!*p)
			break;
		if (r->nfield == MAX_FIELDS) {
			steer_save_fail(r, "too many fields");
			return;
		}
		r->field[r->nfield++] = p;
		while (*p && *p != ' ')
			p++;
	}
}

/* Takes the next line into text. Only printable ASCII is accepted, so every field
 * is a plain C string that can be quoted in a message. */
bool steer_save_read_line(reader *r)
{
	if (r->failed)
		return false;
	if (r->line)
		r->line++;
	if (r->pos >= r->end && !(r->refill && r->refill(r->refill_ud)))
		return steer_save_fail(r, "the file ends early (more lines were expected)");
	size_t n = 0;
	while ((r->pos < r->end || (r->refill && r->refill(r->refill_ud))) &&
	       r->buf[r->pos] != '\n') {
		unsigned char c = (unsigned char)r->buf[r->pos];
		if (c < 0x20 || c > 0x7e)
			return steer_save_fail(r, "unexpected byte 0x%02x", c);
		if (n == MAX_LINE)
			return steer_save_fail(r, "line is longer than %d characters", MAX_LINE);
		r->text[n++] = (char)c;
		r->pos++;
	}
	if (r->pos >= r->end) /* a window that could not be refilled */
		return steer_save_fail(r, "the file ends early (more lines were expected)");
	r->text[n] = '\0';
	r->pos++; /* the newline; callers only set end just past one */
	split_fields(r);
	return !r->failed;
}

const char *steer_save_next_field(reader *r)
{
	return r->next < r->nfield ? r->field[r->next++] : NULL;
}

bool steer_save_expect_word(reader *r, const char *word)
{
	const char *f = steer_save_next_field(r);
	if (!f)
		return steer_save_fail(r, "expected '%s', found the end of the line", word);
	if (strcmp(f, word) != 0)
		return steer_save_fail(r, "expected '%s', found '%.40s'", word, f);
	return true;
}

bool steer_save_line_done(reader *r)
{
	const char *f = steer_save_next_field(r);
	return f ? steer_save_fail(r, "unexpected '%.40s' at the end of the line", f) : true;
}

const char *steer_save_value_for(reader *r, const char *what)
{
	const char *f = steer_save_next_field(r);
	if (!f)
		steer_save_fail(r, "missing value for %s", what);
	return f;
}

/* Any double but NaN; callers that need a finite one say so. strtod reads back %a
 * exactly. */
bool steer_save_parse_real(const char *s, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (end == s || *end != '\0' || errno == ERANGE || isnan(v))
		return false;
	*out = v;
	return true;
}

static bool read_real(reader *r, const char *what, bool finite, double *out)
{
	const char *f = steer_save_value_for(r, what);
	if (!f)
		return false;
	if (!steer_save_parse_real(f, out) || (finite && !isfinite(*out)))
		return steer_save_fail(r, "bad number '%.40s' for %s", f, what);
	return true;
}

bool steer_save_read_vec(reader *r, const char *what, steer_vec2 *out)
{
	return read_real(r, what, true, &out->x) && read_real(r, what, true, &out->y);
}

/* Decimal digits only: strtoull would also take signs, spaces and prefixes. */
bool steer_save_parse_u64(const char *s, uint64_t *out)
{
	uint64_t v = 0;
	if (!*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
		unsigned d = (unsigned)(*s - '0');
		if (v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*out = v;
	return true;
}

static bool read_u64(reader *r, const char *what, uint64_t max, uint64_t *out)
{
	const char *f = steer_save_value_for(r, what);
	if (!f)
		return false;
	if (!steer_save_parse_u64(f, out))
		return steer_save_fail(r, "bad whole number '%.40s' for %s", f, what);
	if (*out > max)
		return steer_save_fail(r, "%s %" PRIu64 " is above the limit of %" PRIu64, what,
		                       *out, max);
	return true;
}

bool steer_save_read_u32(reader *r, const char *what, uint32_t max, uint32_t *out)
{
	uint64_t v;
	if (!read_u64(r, what, max, &v))
		return false;
	*out = (uint32_t)v;
	return true;
}

/* Exactly 16 lowercase hex digits, as the encoder writes them, so that no edit of
 * the checksum or generator state (case included) goes unnoticed. */
static bool parse_hex64(const char *s, uint64_t *out)
{
	uint64_t v = 0;
	size_t n = 0;
	for (; s[n]; n++) {
		char c = s[n];
		unsigned d;
		if (c >= '0' && c <= '9')
			d = (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			d = (unsigned)(c - 'a' + 10);
		else
			return false;
		v = v << 4 | d;
	}
	if (n != 16)
		return false;
	*out = v;
	return true;
}

bool steer_save_read_hex64(reader *r, const char *what, uint64_t *out)
{
	const char *f = steer_save_value_for(r, what);
	if (!f)
		return false;
	if (!parse_hex64(f, out))
		return steer_save_fail(r, "bad value '%.40s' for %s (want 16 lowercase hex digits)",
		                       f, what);
	return true;
}

bool steer_save_read_onoff(reader *r, const char *what, bool *out)
{
	const char *f = steer_save_value_for(r, what);
	if (!f)
		return false;
	if (strcmp(f, "on") != 0 && strcmp(f, "off") != 0)
		return steer_save_fail(r, "bad value '%.40s' for %s (want on or off)", f, what);
	*out = f[0] == 'o' && f[1] == 'n';
	return true;
}

/* A key then its value(s): the file names every field so it can be read by eye. */
bool steer_save_key_real(reader *r, const char *key, bool finite, double *out)
{
	return steer_save_expect_word(r, key) && read_real(r, key, finite, out);
}

bool steer_save_key_vec(reader *r, const char *key, steer_vec2 *out)
{
	return steer_save_expect_word(r, key) && steer_save_read_vec(r, key, out);
}

bool steer_save_key_u64(reader *r, const char *key, uint64_t max, uint64_t *out)
{
	return steer_save_expect_word(r, key) && read_u64(r, key, max, out);
}

bool steer_save_key_u32(reader *r, const char *key, uint32_t max, uint32_t *out)
{
	return steer_save_expect_word(r, key) && steer_save_read_u32(r, key, max, out);
}

bool steer_save_key_onoff(reader *r, const char *key, bool *out)
{
	const char *f;
	if (!steer_save_expect_word(r, key) || !(f = steer_save_value_for(r, key)))
		return false;
	if (strcmp(f, "on") != 0 && strcmp(f, "off") != 0)
		return steer_save_fail(r, "%s: expected on or off, found '%.40s'", key, f);
	*out = f[1] == 'n';
	return true;
}

/* A new reader whose errors go to err; NULL when out of memory (said in err). */
reader *steer_save_reader_new(char *err, size_t errlen)
{
	reader *r = malloc(sizeof *r);
	if (!r) {
		if (err && errlen)
			snprintf(err, errlen, "out of memory");
		return NULL;
	}
	memset(r, 0, offsetof(reader, points));
	r->err = err;
	r->errlen = errlen;
	if (err && errlen)
		err[0] = '\0';
	return r;
}
