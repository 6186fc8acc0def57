/* The save format's own parts shared by its files: save_encode.c (writing),
 * save_fields.c (the line and field reader), save_frame.c (first line, end line,
 * checksum), save_records.c (the records, steer_save_decode), save_ids.c (the ids of a
 * file read in pieces) and save_stream.c (reading in pieces). Private to store/. */
#ifndef STEER_SAVE_INTERNAL_H
#define STEER_SAVE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "savefile.h"

#define MAGIC STEER_SAVE_MAGIC

/* Longest line and most fields the reader accepts. The params line is the longest:
 * about 35 characters and 2 fields per parameter, so there is room for ~75 more
 * parameters before these need to grow. */
#define MAX_LINE   4096
#define MAX_FIELDS 256

/* Ids at or above this are not vehicle or obstacle ids (world.c tags its id map with
 * the top bit). */
#define MAX_ID 0x7fffffffu

#if defined(__GNUC__)
#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#else
#define PRINTF_LIKE(f, a)
#endif

/* How many records of each kind a file holds. */
typedef struct record_counts {
	uint64_t vehicles, obstacles, walls, polygons;
} record_counts;

static inline uint64_t steer_save_records_in(const record_counts *n)
{
	return n->vehicles + n->obstacles + n->walls + n->polygons;
}

/* --- the reader (save_fields.c) ------------------------------------------------------ */

/* Reads lines of buf[pos..end) one at a time into text, split into fields. The
 * reader never looks past end, so it needs no terminator and trusts no length in
 * the file. */
typedef struct reader {
	const char *buf;
	size_t pos, end;
	unsigned line; /* of the line in text, counted from 1; 0 for the end line */
	char text[MAX_LINE + 1];
	char *field[MAX_FIELDS];
	size_t nfield, next;
	char *err;
	size_t errlen;
	bool failed;
	unsigned version; /* of the file's format */
	/* A file read in pieces (steer_save_stream): the world keeps the vehicles keep
	 * takes, so the ids of all the file's vehicles are kept here, for the checks
	 * the world's own vehicles make in a whole read (open addressing, 0 empty). */
	bool stream;
	steer_save_keep_fn keep;
	void *keep_ud;
	uint32_t *ids;
	size_t ids_cap, ids_count;
	unsigned ids_shift; /* 64 - log2(ids_cap) */
	uint32_t max_id;    /* the largest id of any record read */
	/* A leader reading a file through a window (steer_save_stream_source): at the
	 * window's end, brings more of the file in; false when there is no more. */
	bool (*refill)(void *ud);
	void *refill_ud;
	steer_vec2 points[STEER_MAX_WAYPOINTS];
} reader;

/* A new reader whose errors go to err; NULL when out of memory (said in err). */
reader *steer_save_reader_new(char *err, size_t errlen);

/* Records the first error only: later ones are consequences of it. Each returns
 * false, so that a check can end with it. */
bool steer_save_fail(reader *r, const char *fmt, ...) PRINTF_LIKE(2, 3);
/* For errors about the file as a whole, which have no line. */
bool steer_save_fail_file(reader *r, const char *msg);

/* Takes the next line into text, split into fields. */
bool steer_save_read_line(reader *r);
/* The line's next field; NULL at its end. */
const char *steer_save_next_field(reader *r);
bool steer_save_expect_word(reader *r, const char *word);
/* That the line has no more fields. */
bool steer_save_line_done(reader *r);
/* The next field, or NULL with "missing value for what" said. */
const char *steer_save_value_for(reader *r, const char *what);

/* Any double but NaN (strtod reads %a back exactly). */
bool steer_save_parse_real(const char *s, double *out);
/* Decimal digits only. */
bool steer_save_parse_u64(const char *s, uint64_t *out);

/* A value, what naming it in a message. */
bool steer_save_read_vec(reader *r, const char *what, steer_vec2 *out);
bool steer_save_read_u32(reader *r, const char *what, uint32_t max, uint32_t *out);
/* Exactly 16 lowercase hex digits. */
bool steer_save_read_hex64(reader *r, const char *what, uint64_t *out);
bool steer_save_read_onoff(reader *r, const char *what, bool *out);

/* A key then its value(s). */
bool steer_save_key_real(reader *r, const char *key, bool finite, double *out);
bool steer_save_key_vec(reader *r, const char *key, steer_vec2 *out);
bool steer_save_key_u64(reader *r, const char *key, uint64_t max, uint64_t *out);
bool steer_save_key_u32(reader *r, const char *key, uint32_t max, uint32_t *out);
bool steer_save_key_onoff(reader *r, const char *key, bool *out);

/* --- the frame (save_frame.c) -------------------------------------------------------- */

/* The first line; sets r's version and *body to the start of the second line. */
bool steer_save_check_magic(reader *r, const char *buf, size_t len, size_t *body);
/* The last line of buf[body..len): its count of records and its sum, not yet checked
 * against the file; *body_end is where that line starts. */
bool steer_save_end_line(reader *r, const char *buf, size_t len, size_t body, size_t *body_end,
                         uint64_t *records, uint64_t *sum);
/* Checks the frame of a whole file in buf; r then reads its body, from line 2. */
bool steer_save_open_frame(reader *r, const char *buf, size_t len, uint64_t *records);

/* --- the records (save_records.c) ---------------------------------------------------- */

/* Lines 2 to 4: the world's rules, its meta and the counts; the world, empty. */
steer_world *steer_save_read_head(reader *r, uint64_t records, steer_world_meta *meta,
                                  record_counts *n);
/* Record k of the file: the vehicles first, then obstacles, walls and polygons. */
bool steer_save_read_record(reader *r, steer_world *w, const record_counts *n, uint64_t k);
/* That every pursue, evade and group id names another vehicle of the file. */
bool steer_save_check_chase_ids(reader *r, const steer_world *w);
/* The meta, after the last record. */
bool steer_save_finish(reader *r, steer_world *w, const steer_world_meta *m);

/* --- the ids of a file read in pieces (save_ids.c) ------------------------------------ */

/* Whether a vehicle with this id has been read. */
bool steer_save_id_read(const reader *r, uint32_t id);
/* False (said in r) when out of memory. */
bool steer_save_id_add(reader *r, uint32_t id);

#endif
