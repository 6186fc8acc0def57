/* The journal's record codec: records read back as written; a log cut at any byte of
 * its last record, or with any bit of it flipped, reads every record before it and
 * reports the rest torn, never a wrong record; another format version is refused with
 * a message naming both versions. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "journal_format.h"

/* A header and: BEGIN, two commands at tick 7, a mark at 7, a command at 9, a mark. */
static void sample(steer_strbuf *b, size_t *last_start)
{
	steer_journal_header(b);
	steer_journal_begin(b, 5, STEER_JOURNAL_BEGIN_PAUSED);
	steer_journal_command(b, 7, "spawn 10 20", 11);
	steer_journal_command(b, 7, "seek 1 3 4", 10);
	steer_journal_mark(b, 7);
	steer_journal_command(b, 9, "remove 1", 8);
	*last_start = b->len;
	steer_journal_mark(b, 12);
}

/* Reads buf: the number of records read OK, the last outcome. */
static int read_all(const char *buf, size_t len, steer_journal_record *recs, int max,
                    steer_journal_read *last)
{
	size_t pos = 0;
	char err[200];
	*last = steer_journal_header_check(buf, len, &pos, err, sizeof err);
	if (*last != STEER_JOURNAL_OK)
		return 0;
	int n = 0;
	for (;;) {
		steer_journal_record r;
		*last = steer_journal_next(buf, len, &pos, &r, err, sizeof err);
		if (*last != STEER_JOURNAL_OK)
			return n;
		if (n < max)
			recs[n] = r;
		n++;
	}
}

static void round_trip(void)
{
	steer_strbuf b;
	steer_strbuf_init(&b);
	size_t last;
	sample(&b, &last);
	CHECK(!b.oom, "out of memory");
	steer_journal_record r[8];
	steer_journal_read end;
	int n = read_all(b.data, b.len, r, 8, &end);
	CHECK(n == 6 && end == STEER_JOURNAL_END, "%d records, outcome %d", n, (int)end);
	CHECK(r[0].type == STEER_JOURNAL_BEGIN && r[0].tick == 5 &&
	          r[0].flags == STEER_JOURNAL_BEGIN_PAUSED,
	      "begin read back wrong");
	CHECK(r[1].type == STEER_JOURNAL_COMMAND && r[1].tick == 7 && r[1].line_len == 11 &&
	          !memcmp(r[1].line, "spawn 10 20", 11),
	      "first command read back wrong");
	CHECK(r[2].type == STEER_JOURNAL_COMMAND && !memcmp(r[2].line, "seek 1 3 4", 10),
	      "second command read back wrong");
	CHECK(r[3].type == STEER_JOURNAL_MARK && r[3].tick == 7, "mark read back wrong");
	CHECK(r[5].type == STEER_JOURNAL_MARK && r[5].tick == 12, "last mark read back wrong");
	steer_strbuf_free(&b);
}

/* Every cut inside the last record: five records, then TORN; a cut at a record
 * boundary is a clean END. */
static void torn_at_every_byte(void)
{
	steer_strbuf b;
	steer_strbuf_init(&b);
	size_t last;
	sample(&b, &last);
	int bad = 0;
	for (size_t cut = last; cut <= b.len; cut++) {
		steer_journal_record r[8];
		steer_journal_read end;
		int n = read_all(b.data, cut, r, 8, &end);
		bool whole = cut == b.len;
		if (n != (whole ? 6 : 5) ||
		    end != (cut == last || whole ? STEER_JOURNAL_END : STEER_JOURNAL_TORN)) {
			bad++;
			fprintf(stderr, "cut at %zu: %d records, outcome %d\n", cut, n, (int)end);
		}
	}
	CHECK(bad == 0, "%d cuts misread", bad);
	steer_strbuf_free(&b);
}

/* Every single bit flipped in the last record: the first five still read, and the
 * last never reads as a record. */
static void flipped_bit(void)
{
	steer_strbuf b;
	steer_strbuf_init(&b);
	size_t last;
	sample(&b, &last);
	int bad = 0;
	for (size_t at = last; at < b.len; at++)
		for (int bit = 0; bit < 8; bit++) {
			b.data[at] ^= (char)(1 << bit);
			steer_journal_record r[8];
			steer_journal_read end;
			int n = read_all(b.data, b.len, r, 8, &end);
			if (n != 5 || end != STEER_JOURNAL_TORN)
				bad++;
			b.data[at] ^= (char)(1 << bit);
		}
	CHECK(bad == 0, "%d flipped bits went unnoticed", bad);
	steer_strbuf_free(&b);
}

/* What a crash leaves at the end of a log is told from a changed byte: every cut of
 * the last record (a mark, then a command) is a tear; every flipped bit of it is not,
 * the length's included; zeros from a sector boundary of the file on are space never
 * written, a tear, and zeros that do not start at one are not. */
static void tails_told_from_changes(void)
{
	steer_strbuf b;
	steer_strbuf_init(&b);
	size_t last;
	sample(&b, &last);
	steer_journal_command(&b, 12, "spawn 1 2 max_speed=3", 21);
	size_t last_cmd = last + 17;
	size_t starts[2] = {last, last_cmd}, ends[2] = {last_cmd, b.len};
	int cuts = 0, flips = 0;
	for (int r = 0; r < 2; r++) {
		for (size_t cut = starts[r] + 1; cut < ends[r]; cut++)
			cuts += !steer_journal_tail_torn(b.data, cut, starts[r], 0);
		for (size_t at = starts[r]; at < ends[r]; at++)
			for (int bit = 0; bit < 8; bit++) {
				b.data[at] ^= (char)(1 << bit);
				flips += steer_journal_tail_torn(b.data, ends[r], starts[r], 0);
				b.data[at] ^= (char)(1 << bit);
			}
	}
	CHECK(cuts == 0, "%d cuts read as changed", cuts);
	CHECK(flips == 0, "%d flipped bits read as a tear", flips);
	/* The command's record, its end zeroed from a sector boundary: with the file
	 * offset of buf[0] set so that the boundary falls k bytes into the record. */
	size_t len = b.len - last_cmd;
	for (size_t k = 1; k < len; k++) {
		steer_strbuf z;
		steer_strbuf_init(&z);
		steer_strbuf_put(&z, b.data + last_cmd, len);
		memset(z.data + k, 0, len - k);
		uint64_t file_at = 512 - k;
		bool torn = steer_journal_tail_torn(z.data, len, 0, file_at);
		CHECK(torn == (len - k >= STEER_JOURNAL_ZERO_RUN),
		      "zeros from byte %zu of %zu read as %s", k, len,
		      torn ? "a tear" : "a change");
		/* The boundary a byte earlier, on a byte of the line: not unwritten space. */
		if (k > 17)
			CHECK(!steer_journal_tail_torn(z.data, len, 0, file_at + 1),
			      "zeros from byte %zu, a byte past a sector boundary, read as a tear",
			      k);
		steer_strbuf_free(&z);
	}
	steer_strbuf_free(&b);
}

static void wrong_version(void)
{
	steer_strbuf b;
	steer_strbuf_init(&b);
	size_t last;
	sample(&b, &last);
	b.data[8] = 7; /* the version's low byte */
	size_t pos = 0;
	char err[200] = "";
	steer_journal_read r = steer_journal_header_check(b.data, b.len, &pos, err, sizeof err);
	CHECK(r == STEER_JOURNAL_INVALID, "version 7 read as %d", (int)r);
	CHECK(strstr(err, "version 7") && strstr(err, "version 1"),
	      "the message names neither version: %s", err);
	memcpy(b.data, "steer-sa", 8);
	r = steer_journal_header_check(b.data, b.len, &pos, err, sizeof err);
	CHECK(r == STEER_JOURNAL_INVALID && strstr(err, "not a steer journal"),
	      "a save read as a journal: %d %s", (int)r, err);
	/* A header cut short while it was written is torn, not another version. */
	steer_strbuf_clear(&b);
	steer_journal_header(&b);
	r = steer_journal_header_check(b.data, 11, &pos, err, sizeof err);
	CHECK(r == STEER_JOURNAL_TORN, "a short header read as %d", (int)r);
	steer_strbuf_free(&b);
}

/* The checksum is CRC-32C: its standard check value. */
static void crc_check_value(void)
{
	uint32_t c = steer_crc32c(0, "123456789", 9);
	CHECK(c == 0xE3069283u, "crc32c(123456789) = %08x", (unsigned)c);
	uint32_t split = steer_crc32c(steer_crc32c(0, "1234", 4), "56789", 5);
	CHECK(split == c, "crc32c in two parts %08x", (unsigned)split);
}

/* The definition, a bit at a time. */
static uint32_t crc_reference(const unsigned char *p, size_t n)
{
	uint32_t crc = ~0u;
	for (size_t i = 0; i < n; i++) {
		crc ^= p[i];
		for (int k = 0; k < 8; k++)
			crc = crc & 1u ? (crc >> 1) ^ 0x82F63B78u : crc >> 1;
	}
	return ~crc;
}

/* Whichever way the CPU computes it (8 bytes at a time with SSE4.2), the checksum
 * is the definition's at every length, alignment and split. */
static void crc_matches_its_definition(void)
{
	unsigned char buf[300];
	for (size_t i = 0; i < sizeof buf; i++)
		buf[i] = (unsigned char)(i * 131u + 7u);
	int wrong = 0;
	for (size_t at = 0; at < 8; at++)
		for (size_t n = 0; at + n <= 280; n++) {
			uint32_t want = crc_reference(buf + at, n);
			size_t cut = n / 3;
			uint32_t two =
			    steer_crc32c(steer_crc32c(0, buf + at, cut), buf + at + cut, n - cut);
			wrong += steer_crc32c(0, buf + at, n) != want || two != want;
		}
	CHECK(wrong == 0, "%d lengths and alignments differ from the definition", wrong);
}

static void join_words(void)
{
	char w0[] = "spawn", w1[] = "10", w2[] = "max_speed=3";
	char *words[] = {w0, w1, w2};
	steer_strbuf b;
	steer_strbuf_init(&b);
	steer_journal_join(&b, 3, words);
	CHECK(b.len && !strcmp(b.data, "spawn 10 max_speed=3"), "joined '%s'", b.len ? b.data : "");
	steer_strbuf_free(&b);
}

int main(void)
{
	RUN(round_trip);
	RUN(torn_at_every_byte);
	RUN(flipped_bit);
	RUN(tails_told_from_changes);
	RUN(wrong_version);
	RUN(crc_check_value);
	RUN(crc_matches_its_definition);
	RUN(join_words);
	return CHECK_DONE();
}
