/* A save's frame: its first line (magic and version), its last line (the count of
 * records and the checksum) and the checksum itself, FNV-1a 64. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "save_internal.h"
#include "savefile.h"

#define FNV_PRIME 0x100000001b3ULL

/* FNV-1a: every step is a bijection of the running hash, so any single changed byte
 * always changes the result. */
uint64_t steer_save_sum(uint64_t h, const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)p[i];
		h *= FNV_PRIME;
	}
	return h;
}

/* The first line. Checked before the checksum so that a file from a newer build says
 * so, instead of looking corrupted. Sets *body to the start of the second line. */
bool steer_save_check_magic(reader *r, const char *buf, size_t len, size_t *body)
{
	size_t n = 0;
	while (n < len && n < MAX_LINE && buf[n] != '\n')
		n++;
	size_t m = strlen(MAGIC " ");
	if (memcmp(buf, MAGIC " ", n < m ? n : m) != 0)
		return steer_save_fail_file(
		    r, "not a Steer save file (it does not begin with '" MAGIC "')");
	if (n == len)
		return steer_save_fail_file(r, "file is truncated");
	if (n < m || n == MAX_LINE)
		return steer_save_fail_file(r, "not a Steer save file (bad first line)");
	char ver[24];
	size_t vn = n - m < sizeof ver - 1 ? n - m : sizeof ver - 1;
	memcpy(ver, buf + m, vn);
	ver[vn] = '\0';
	uint64_t v;
	if (!steer_save_parse_u64(ver, &v) || n - m >= sizeof ver - 1)
		return steer_save_fail_file(r, "not a Steer save file (bad format version)");
	if (v < STEER_SAVE_OLDEST || v > STEER_SAVE_VERSION) {
		char msg[96];
		snprintf(msg, sizeof msg,
		         "unsupported format version %" PRIu64 " (this build reads %d to %d)", v,
		         STEER_SAVE_OLDEST, STEER_SAVE_VERSION);
		return steer_save_fail_file(r, msg);
	}
	r->version = (unsigned)v;
	*body = n + 1;
	return true;
}

/* The last line: "end records N fnv1a64 H", H over every byte before that line (the
 * sum). Sets *body_end to where that line starts. */
bool steer_save_end_line(reader *r, const char *buf, size_t len, size_t body, size_t *body_end,
                         uint64_t *records, uint64_t *sum)
{
	r->buf = buf;
	/* Without its closing line last, the file was cut short or has data after its
	 * end (an append to it): either way it is not the file that was saved. */
	if (buf[len - 1] != '\n')
		return steer_save_fail_file(r, "file is truncated, or has data after its end");
	size_t s = len - 1;
	while (s > body && buf[s - 1] != '\n')
		s--;
	if (len - s < 4 || memcmp(buf + s, "end ", 4) != 0)
		return steer_save_fail_file(
		    r, "file is truncated, or has data after its end (its last line is "
		       "not the closing 'end' line)");
	r->pos = s;
	r->end = len;
	r->line = 0;
	uint64_t want;
	if (!steer_save_read_line(r) || !steer_save_expect_word(r, "end") ||
	    !steer_save_key_u64(r, "records", UINT64_MAX, records) ||
	    !steer_save_expect_word(r, "fnv1a64") || !steer_save_read_hex64(r, "fnv1a64", &want) ||
	    !steer_save_line_done(r))
		return false;
	*body_end = s;
	*sum = want;
	return true;
}

static bool check_end(reader *r, const char *buf, size_t len, size_t body, size_t *body_end,
                      uint64_t *records)
{
	uint64_t want;
	if (!steer_save_end_line(r, buf, len, body, body_end, records, &want))
		return false;
	if (want != steer_save_sum(STEER_SAVE_SUM_START, buf, *body_end))
		return steer_save_fail_file(r, "checksum mismatch: file is corrupted");
	return true;
}

/* Checks buf's frame; r then reads its body, from line 2. */
bool steer_save_open_frame(reader *r, const char *buf, size_t len, uint64_t *records)
{
	if (len == 0 || !buf)
		return steer_save_fail_file(r, "file is empty");
	if (len > STEER_SAVE_MAX_BYTES) {
		char msg[96];
		snprintf(msg, sizeof msg, "file is %zu bytes, over the %u a save may hold", len,
		         STEER_SAVE_MAX_BYTES);
		return steer_save_fail_file(r, msg);
	}
	r->buf = buf;
	size_t body, body_end;
	if (!steer_save_check_magic(r, buf, len, &body) ||
	    !check_end(r, buf, len, body, &body_end, records))
		return false;
	r->pos = body;
	r->end = body_end;
	r->line = 1;
	return true;
}
