#include "journal_format.h"

#include <stdio.h>
#include <string.h>

#include "steer/bytes.h"

/* CRC-32C (reflected, polynomial 0x82F63B78) a bit at a time: no table to build or
 * share between threads. About 100 MB/s: the fallback where the CPU has no CRC32C
 * instruction. */
static uint32_t crc_bits(uint32_t crc, const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		crc ^= p[i];
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0x82F63B78u & (0u - (crc & 1u)));
	}
	return crc;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define HAVE_CRC_INSTRUCTION 1
/* SSE4.2's crc32 computes the same CRC-32C, 8 bytes an instruction: the journal's
 * records are checksummed on the loop, at whatever rate clients write. */
__attribute__((target("sse4.2"))) static uint32_t crc_sse42(uint32_t crc, const unsigned char *p,
                                                            size_t n)
{
	uint64_t c = crc;
	for (; n >= 8; p += 8, n -= 8) {
		uint64_t v;
		memcpy(&v, p, 8);
		c = __builtin_ia32_crc32di(c, v);
	}
	uint32_t c32 = (uint32_t)c;
	for (; n; p++, n--)
		c32 = __builtin_ia32_crc32qi(c32, *p);
	return c32;
}
#endif

uint32_t steer_crc32c(uint32_t crc, const void *data, size_t n)
{
	const unsigned char *p = data;
#ifdef HAVE_CRC_INSTRUCTION
	if (__builtin_cpu_supports("sse4.2"))
		return ~crc_sse42(~crc, p, n);
#endif
	return ~crc_bits(~crc, p, n);
}

void steer_journal_header(steer_strbuf *b)
{
	unsigned char h[STEER_JOURNAL_HEADER_SIZE] = {0};
	memcpy(h, STEER_JOURNAL_MAGIC, 8);
	steer_le32_put(h + 8, STEER_JOURNAL_VERSION);
	steer_strbuf_put(b, (const char *)h, sizeof h);
}

steer_journal_read steer_journal_header_check(const char *buf, size_t len, size_t *pos, char *err,
                                              size_t errlen)
{
	const unsigned char *p = (const unsigned char *)buf;
	size_t have = len < 8 ? len : 8;
	if (have && memcmp(p, STEER_JOURNAL_MAGIC, have) != 0) {
		snprintf(err, errlen, "not a steer journal (it does not start with '%s')",
		         STEER_JOURNAL_MAGIC);
		return STEER_JOURNAL_INVALID;
	}
	if (len < STEER_JOURNAL_HEADER_SIZE) {
		snprintf(err, errlen, "the journal's header is cut short (%zu of %u bytes)", len,
		         STEER_JOURNAL_HEADER_SIZE);
		return STEER_JOURNAL_TORN;
	}
	uint32_t version = steer_le32_get(p + 8);
	if (version != STEER_JOURNAL_VERSION) {
		snprintf(err, errlen,
		         "journal format version %u: this build reads version %u only; the "
		         "journal is left as it is",
		         version, STEER_JOURNAL_VERSION);
		return STEER_JOURNAL_INVALID;
	}
	*pos = STEER_JOURNAL_HEADER_SIZE;
	return STEER_JOURNAL_OK;
}

/* Appends a record of type with the given payload parts (b may be NULL for none). */
static void put_record(steer_strbuf *out, steer_journal_type type, const unsigned char *a,
                       size_t alen, const char *b, size_t blen)
{
	if (1 + alen + blen > STEER_JOURNAL_MAX_RECORD) {
		out->oom = true;
		return;
	}
	uint32_t len = (uint32_t)(1 + alen + blen);
	unsigned char *p =
	    (unsigned char *)steer_strbuf_reserve(out, STEER_JOURNAL_RECORD_HEAD + len);
	if (!p)
		return;
	steer_le32_put(p, len);
	p[8] = (unsigned char)type;
	if (alen)
		memcpy(p + 9, a, alen);
	if (blen)
		memcpy(p + 9 + alen, b, blen);
	uint32_t crc = steer_crc32c(0, p, 4);
	crc = steer_crc32c(crc, p + 8, len);
	steer_le32_put(p + 4, crc);
	out->len += STEER_JOURNAL_RECORD_HEAD + len;
	out->data[out->len] = '\0';
}

void steer_journal_command(steer_strbuf *b, uint64_t tick, const char *line, size_t len)
{
	unsigned char t[8];
	steer_le64_put(t, tick);
	put_record(b, STEER_JOURNAL_COMMAND, t, sizeof t, line, len);
}

void steer_journal_mark(steer_strbuf *b, uint64_t tick)
{
	unsigned char t[8];
	steer_le64_put(t, tick);
	put_record(b, STEER_JOURNAL_MARK, t, sizeof t, NULL, 0);
}

void steer_journal_begin(steer_strbuf *b, uint64_t tick, uint8_t flags)
{
	unsigned char t[9];
	steer_le64_put(t, tick);
	t[8] = flags;
	put_record(b, STEER_JOURNAL_BEGIN, t, sizeof t, NULL, 0);
}

/* The reason only: the caller knows the offset, in the file rather than the buffer. */
static steer_journal_read torn(char *err, size_t errlen, const char *why)
{
	snprintf(err, errlen, "%s", why);
	return STEER_JOURNAL_TORN;
}

steer_journal_read steer_journal_next(const char *buf, size_t len, size_t *pos,
                                      steer_journal_record *rec, char *err, size_t errlen)
{
	size_t at = *pos;
	if (at >= len)
		return STEER_JOURNAL_END;
	const unsigned char *p = (const unsigned char *)buf + at;
	size_t left = len - at;
	if (left < STEER_JOURNAL_RECORD_HEAD + 1)
		return torn(err, errlen, "cut short");
	uint32_t n = steer_le32_get(p);
	if (n < 1 || n > STEER_JOURNAL_MAX_RECORD)
		return torn(err, errlen, "impossible length");
	if (left - STEER_JOURNAL_RECORD_HEAD < n)
		return torn(err, errlen, "cut short");
	uint32_t crc = steer_crc32c(0, p, 4);
	crc = steer_crc32c(crc, p + 8, n);
	if (crc != steer_le32_get(p + 4))
		return torn(err, errlen, "checksum mismatch");
	const unsigned char *body = p + 9;
	size_t blen = n - 1;
	memset(rec, 0, sizeof *rec);
	rec->type = (steer_journal_type)p[8];
	rec->size = STEER_JOURNAL_RECORD_HEAD + n;
	switch (p[8]) {
	case STEER_JOURNAL_COMMAND:
		if (blen < 8)
			return torn(err, errlen, "a command record without its tick");
		rec->tick = steer_le64_get(body);
		rec->line = (const char *)body + 8;
		rec->line_len = blen - 8;
		if (memchr(rec->line, '\0', rec->line_len) ||
		    memchr(rec->line, '\n', rec->line_len))
			return torn(err, errlen, "a command line holding NUL or a newline");
		break;
	case STEER_JOURNAL_MARK:
		if (blen != 8)
			return torn(err, errlen, "a mark of the wrong size");
		rec->tick = steer_le64_get(body);
		break;
	case STEER_JOURNAL_BEGIN:
		if (blen != 9)
			return torn(err, errlen, "a begin record of the wrong size");
		rec->tick = steer_le64_get(body);
		rec->flags = body[8];
		break;
	default:
		return torn(err, errlen, "unknown record type");
	}
	*pos = at + rec->size;
	return STEER_JOURNAL_OK;
}

bool steer_journal_intact(const char *buf, size_t len, size_t pos)
{
	if (pos > len || len - pos < STEER_JOURNAL_RECORD_HEAD + 1)
		return false;
	const unsigned char *p = (const unsigned char *)buf + pos;
	uint32_t n = steer_le32_get(p);
	if (n < 1 || n > STEER_JOURNAL_MAX_RECORD || len - pos - STEER_JOURNAL_RECORD_HEAD < n)
		return false;
	/* The cheap tests first: most offsets inside damage fail them. */
	switch (p[8]) {
	case STEER_JOURNAL_COMMAND:
		if (n < 1 + 8)
			return false;
		break;
	case STEER_JOURNAL_MARK:
		if (n != 1 + 8)
			return false;
		break;
	case STEER_JOURNAL_BEGIN:
		if (n != 1 + 9)
			return false;
		break;
	default:
		return false;
	}
	uint32_t crc = steer_crc32c(0, p, 4);
	return steer_crc32c(crc, p + 8, n) == steer_le32_get(p + 4);
}

/* Whether buf[from, to) ends in zeros from a sector boundary of the file on, at least
 * STEER_JOURNAL_ZERO_RUN of them: more than any record holds as its own last bytes
 * (a BEGIN's tick and flags, after its type, are 9; a line holds no NUL). */
static bool unwritten_end(const char *buf, size_t from, size_t to, uint64_t file_at)
{
	size_t z = to;
	while (z > from && buf[z - 1] == 0)
		z--;
	uint64_t sector = 512, at = file_at + z;
	size_t start = z + (size_t)((sector - at % sector) % sector);
	return start + STEER_JOURNAL_ZERO_RUN <= to;
}

bool steer_journal_tail_torn(const char *buf, size_t len, size_t pos, uint64_t file_at)
{
	if (pos > len || len - pos < STEER_JOURNAL_RECORD_HEAD + 1)
		return true; /* a head cut short */
	const unsigned char *p = (const unsigned char *)buf + pos;
	size_t body = len - pos - STEER_JOURNAL_RECORD_HEAD;
	uint32_t n = steer_le32_get(p);
	if (n == body) /* whole, up to the last byte */
		return unwritten_end(buf, pos, len, file_at);
	if (body > STEER_JOURNAL_MAX_RECORD)
		return true;
	/* Intact with the length the bytes left give it: only its length changed. */
	unsigned char fixed[4];
	steer_le32_put(fixed, (uint32_t)body);
	uint32_t crc = steer_crc32c(steer_crc32c(0, fixed, 4), p + 8, body);
	return crc != steer_le32_get(p + 4);
}

void steer_journal_join(steer_strbuf *b, int argc, char **words)
{
	for (int i = 0; i < argc; i++) {
		if (i)
			steer_strbuf_put(b, " ", 1);
		steer_strbuf_puts(b, words[i]);
	}
}
