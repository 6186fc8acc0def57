/* Reading a journal directory: the live one (<data dir>/journal) or a named one
 * (<data dir>/journals/NAME). For --recover, --restore of a journal, --replay and
 * `steerctl journal`.
 *
 * A directory holds segments numbered from 1: NNNNNNNNNNNNNNNN.steer, the checkpoint
 * (a save file, today's format) and NNNNNNNNNNNNNNNN.log, the records that follow it
 * (store/journal_format.h), the number as 16 decimal digits. A checkpoint is durable
 * once it has its final name (it is written under a temporary one). A log whose BEGIN
 * says it continues the previous one can be read on from the world the previous log
 * ends in, whether or not its own checkpoint became durable; one that starts a new
 * history (the world was replaced) needs its checkpoint.
 *
 * Use: open, take the world, then next() until END; or journal_read_apply for all of
 * it. One reader is used by one thread. */
#ifndef STEER_JOURNAL_READ_H
#define STEER_JOURNAL_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "journal_format.h"
#include "steer/command.h"
#include "steer/world.h"

typedef struct journal_reader journal_reader;

/* The most digits of a segment's number: 16 as written (zero-padded), more once it
 * passes that, and never near overflow. */
#define JOURNAL_SEGMENT_DIGITS_MAX 18
/* Whether name is a segment's file, NNNN.ext with 16 to JOURNAL_SEGMENT_DIGITS_MAX
 * digits (not all zero): its number, and ext pointing into name. */
bool journal_segment_name(const char *name, uint64_t *num, const char **ext);

/* <dir>/<num as 16 digits>.<ext> into out: STEER_OK, or STEER_ERR_LIMIT when it does
 * not fit. */
steer_status journal_segment_path(char *out, size_t n, const char *dir, uint64_t num,
                                  const char *ext);
/* The directory a user's WHAT names, into out: `live` is <data dir>/journal, a name is
 * <data dir>/journals/NAME, anything with a '/' is a directory. STEER_OK, or a
 * failure with a message in err. */
steer_status journal_read_dir(const char *what, const char *data_dir, char *out, size_t n,
                              char *err, size_t errlen);

typedef enum journal_from {
	JOURNAL_FROM_NEWEST, /* the newest usable checkpoint: recovery */
	JOURNAL_FROM_OLDEST, /* the oldest kept: the whole history, for replay and export */
} journal_from;

/* Opens a journal directory. NULL with a message in err when it holds no usable
 * checkpoint, or any of its logs is another format version (the message names both
 * versions; nothing is changed). */
journal_reader *journal_read_open(const char *dir, journal_from from, char *err, size_t errlen);
void journal_read_close(journal_reader *r); /* NULL is fine */

/* The world of the checkpoint the reader starts from, and whether the session was
 * paused then. The caller owns the world (steer_world_destroy); call once, right after
 * open. NULL with a message in err when it cannot be decoded. */
steer_world *journal_read_world(journal_reader *r, bool *paused, char *err, size_t errlen);

/* journal_read_world without reading the world: the path of the starting checkpoint
 * (a save file) into path, for a caller that reads it in pieces (over MPI ranks).
 * STEER_OK, or a failure with a message in err. */
steer_status journal_read_world_path(journal_reader *r, bool *paused, char *path, size_t n,
                                     char *err, size_t errlen);
/* From now on WORLD items name their checkpoint (item->checkpoint) instead of carrying
 * its world, which the caller then reads itself. */
void journal_read_defer_worlds(journal_reader *r);

typedef enum journal_item_kind {
	JOURNAL_ITEM_COMMAND, /* apply line (steer_cmd_parse_line) while the tick is `tick` */
	JOURNAL_ITEM_MARK,    /* step the world until its tick is `tick` */
	JOURNAL_ITEM_WORLD,   /* the world was replaced (load, rewind): take `world` */
	JOURNAL_ITEM_END,     /* no more records */
} journal_item_kind;

typedef struct journal_item {
	journal_item_kind kind;
	uint64_t tick;
	const char *line; /* COMMAND: NUL-terminated, valid until the next call */
	size_t line_len;
	steer_world *world;     /* WORLD: the caller owns it (NULL when deferred) */
	const char *checkpoint; /* WORLD, deferred: its file, valid until the next call */
	bool paused;            /* WORLD: the session was paused at the replacement */
} journal_item;

/* Damage (a record that is not whole with whole ones after it, a segment that is not
 * whole with others after it, a missing segment) ends the history instead of failing
 * the read: --accept-loss. journal_read_damaged then says whether there was any. */
void journal_read_accept_loss(journal_reader *r);
bool journal_read_damaged(const journal_reader *r);

/* The next item, in order across segments. STEER_OK with *item filled (END at the
 * end), or a failure with a message in err: the replacement world could not be read
 * (NOMEM, IO), or the journal is damaged (INVALID; the message names the segment and
 * byte). A torn tail, which is what a crash leaves, ends the records quietly (END);
 * journal_read_dropped says how much was dropped. A log is streamed, so it may be of
 * any size; every file must be a plain file. */
steer_status journal_read_next(journal_reader *r, journal_item *item, char *err, size_t errlen);

/* Records read so far, and bytes dropped as torn (with the reason of the first tear,
 * "" when none). */
uint64_t journal_read_records(const journal_reader *r);
uint64_t journal_read_dropped(const journal_reader *r, const char **why);

/* Replay's bound for journal_read_apply: every durable record. */
#define JOURNAL_UNTIL_END UINT64_MAX

typedef struct journal_applied {
	uint64_t records;  /* records applied */
	uint64_t marks;    /* marks reached */
	uint64_t dropped;  /* records after the last mark, not applied */
	uint64_t replaced; /* worlds taken over */
} journal_applied;

/* Recovery: applies the records to s (whose world came from journal_read_world)
 * up to the last complete mark, or to the first mark at tick `until` or past it
 * (JOURNAL_UNTIL_END: all; ticks restart at a WORLD item, so `until` counts in the
 * world current when it is reached). Commands run with host h (may be NULL;
 * save and load are never in a journal). Replaces s->world (destroying the old one)
 * at WORLD items, keeping its max_vehicles, threads and SIMD level. STEER_OK, or a
 * failure with a message in err (a record the world refuses: the journal and the
 * build disagree; a record stamped before the world's tick), s then partway through
 * a batch: the caller discards it. */
steer_status journal_read_apply(journal_reader *r, steer_session *s, const steer_host *h,
                                uint64_t until, journal_applied *out, char *err, size_t errlen);

/* What journal_read_apply_ops does with the records, for a world that is not one
 * session's (one over MPI ranks): tick, the world's tick; step_to, step it until its
 * tick is t; exec, run a command parsed from its record's line (a failure: not
 * STEER_OK, with reply's error); replace, take the world of a WORLD item (which then
 * belongs to it, the world too when it fails). Each returns STEER_OK, or a failure
 * with a message in err. */
typedef struct journal_apply_ops {
	uint64_t (*tick)(void *ud);
	steer_status (*step_to)(void *ud, uint64_t t, char *err, size_t errlen);
	steer_status (*exec)(void *ud, const steer_command *cmd, const char *line,
	                     steer_reply *reply);
	steer_status (*replace)(void *ud, const journal_item *it, char *err, size_t errlen);
	void *ud;
} journal_apply_ops;
/* journal_read_apply through ops. */
steer_status journal_read_apply_ops(journal_reader *r, const journal_apply_ops *ops, uint64_t until,
                                    journal_applied *out, char *err, size_t errlen);

#endif
