/* The journal's record format: a pure codec with no I/O, so the server writes it, and
 * recovery, replay and tools read it, with the same rules.
 *
 * A journal log is a header (the magic "steerjnl" and the format version, a 32-bit
 * little-endian number, then four bytes that are zero) followed by records:
 *
 *   u32 len   the bytes after crc: the type and the payload (1 .. STEER_JOURNAL_MAX_RECORD)
 *   u32 crc   CRC-32C of the four length bytes, the type and the payload
 *   u8  type  a steer_journal_type
 *   payload   len - 1 bytes
 *
 * Numbers are little-endian. The checksum covers the length too, so a corrupted length
 * is a bad record, not a skip to a wrong place. Reading stops at the first record that
 * is short or fails its checksum: that and everything after it are dropped (a torn
 * tail), never misread. */
#ifndef STEER_JOURNAL_FORMAT_H
#define STEER_JOURNAL_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "steer/status.h"
#include "steer/strbuf.h"

#ifdef __cplusplus
extern "C" {
#endif

#define STEER_JOURNAL_MAGIC       "steerjnl"
#define STEER_JOURNAL_VERSION     1u
#define STEER_JOURNAL_HEADER_SIZE 16u
/* Bytes before a record's type: its length and checksum. */
#define STEER_JOURNAL_RECORD_HEAD 8u
/* The longest record (type and payload); a command line is far shorter, so a longer
 * length is corruption. */
#define STEER_JOURNAL_MAX_RECORD (1u << 20)

typedef enum steer_journal_type {
	/* A command, applied while the world's tick was `tick`, before the tick that took
	 * it further; the words as steer_cmd_parse received them, joined by single
	 * spaces (no NUL, no newline). Payload: u64 tick, the line's bytes. */
	STEER_JOURNAL_COMMAND = 1,
	/* The end of a batch: the world has reached `tick` with every record before this
	 * one applied. Recovery stops at the last one. Payload: u64 tick. */
	STEER_JOURNAL_MARK = 2,
	/* The first record of a log: the checkpoint it starts from has tick `tick`, the
	 * session was paused or not, and the log continues the previous one's history
	 * (a periodic checkpoint) or starts a new one (the server started, or the world
	 * was replaced). Payload: u64 tick, u8 flags (STEER_JOURNAL_BEGIN_*). */
	STEER_JOURNAL_BEGIN = 3,
} steer_journal_type;

#define STEER_JOURNAL_BEGIN_PAUSED    1u
#define STEER_JOURNAL_BEGIN_CONTINUES 2u

typedef struct steer_journal_record {
	steer_journal_type type;
	uint64_t tick;
	uint8_t flags;    /* BEGIN */
	const char *line; /* COMMAND: points into the buffer read, not NUL-terminated */
	size_t line_len;
	size_t size; /* the record's bytes in the log, head included */
} steer_journal_record;

typedef enum steer_journal_read {
	STEER_JOURNAL_OK,      /* *rec holds the next record; *pos moved past it */
	STEER_JOURNAL_END,     /* the buffer ends exactly at *pos */
	STEER_JOURNAL_TORN,    /* from *pos on: short, a bad checksum or a bad record */
	STEER_JOURNAL_INVALID, /* the header: not a journal, or another format version */
} steer_journal_read;

/* CRC-32C (Castagnoli) of n bytes, continuing from crc (0 to start). */
uint32_t steer_crc32c(uint32_t crc, const void *data, size_t n);

/* Appends a log's header. */
void steer_journal_header(steer_strbuf *b);
/* Checks a log's header: OK (*pos past it), TORN (fewer bytes than a header: a log cut
 * while it was made), INVALID with a message in err (not a journal, or another version:
 * the message names both versions). */
steer_journal_read steer_journal_header_check(const char *buf, size_t len, size_t *pos, char *err,
                                              size_t errlen);

/* Append one record; the buffer's oom flag says when memory ran out. A line over the
 * record limit sets oom too (a command line never comes near it). */
void steer_journal_command(steer_strbuf *b, uint64_t tick, const char *line, size_t len);
void steer_journal_mark(steer_strbuf *b, uint64_t tick);
void steer_journal_begin(steer_strbuf *b, uint64_t tick, uint8_t flags);

/* The record at *pos of buf[0, len) (after the header): OK with *rec filled and *pos
 * moved past it; END at the end; TORN (with the reason in err; *pos, the offset, is
 * the caller's to report) when the bytes from *pos on are not a whole, intact record
 * of a known type: the caller drops them. */
steer_journal_read steer_journal_next(const char *buf, size_t len, size_t *pos,
                                      steer_journal_record *rec, char *err, size_t errlen);

/* Whether an intact record (a length that fits, a known type of the right size, its
 * checksum) starts at pos of buf[0, len): how a reader tells damage in the middle of a
 * log, with intact records after it, from a torn tail, with none. */
bool steer_journal_intact(const char *buf, size_t len, size_t pos);

/* Whether buf[pos, len), every byte from where reading stopped to the end of the
 * newest log, is what a crash leaves: a record cut short (its head, or its length
 * running past the end) or one whose bytes end in space the filesystem extended but
 * never wrote (zeros from a 512-byte-aligned offset of the file, at least
 * STEER_JOURNAL_ZERO_RUN of them). A record that ends exactly at the end but fails
 * its checksum, or one that is intact but for its length, was changed after it was
 * written: not a tear. file_at: the file offset of buf[0]. */
#define STEER_JOURNAL_ZERO_RUN 10u
bool steer_journal_tail_torn(const char *buf, size_t len, size_t pos, uint64_t file_at);

/* Appends words[0..argc) joined by single spaces: a command's record line. */
void steer_journal_join(steer_strbuf *b, int argc, char **words);

#ifdef __cplusplus
}
#endif

#endif
