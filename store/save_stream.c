/* Reading a save in pieces (steer_save_stream): a leader over the whole file or a
 * window on it checks the frame and cuts the records into pieces; followers read them. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reserve.h"
#include "save_internal.h"
#include "savefile.h"

/* A leader's window on its file (steer_save_stream_source): bytes [at, at + len). */
typedef struct window {
	steer_save_source src;
	char *bytes;
	size_t cap, len;
	uint64_t at;
	uint64_t end;  /* where the end line starts: the records stop there */
	uint64_t sum;  /* the checksum of the file up to the pieces read so far */
	uint64_t want; /* the end line's */
} window;

/* The window's first size: a few pieces; it grows only for a piece that will not fit. */
#define WINDOW_BYTES ((size_t)8 << 20)

struct steer_save_stream {
	reader *r;
	window *win;    /* a leader over a source */
	steer_world *w; /* from the head on; the caller's once finished */
	size_t from;    /* where the piece being read starts, in r's bytes */
	steer_world_meta meta;
	record_counts n;
	uint64_t records, done; /* the end line's count; those read */
	char err[512];
};

static steer_save_stream *stream_new(void)
{
	steer_save_stream *s = calloc(1, sizeof *s);
	if (s && !(s->r = steer_save_reader_new(s->err, sizeof s->err))) {
		free(s);
		return NULL;
	}
	if (s)
		s->r->stream = true;
	return s;
}

steer_save_stream *steer_save_stream_open(const char *buf, size_t len, char *err, size_t errlen)
{
	steer_save_stream *s = stream_new();
	if (!s) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (!steer_save_open_frame(s->r, buf, len, &s->records)) {
		snprintf(err, errlen, "%s", s->err);
		steer_save_stream_free(s);
		return NULL;
	}
	return s;
}

/* Reads n bytes at `at` into buf through the source; false (said in r) on failure. */
static bool source_read(reader *r, const window *w, uint64_t at, char *buf, size_t n)
{
	const char *why = n ? w->src.read_at(w->src.ud, at, buf, n) : NULL;
	if (!why)
		return true;
	char msg[256];
	snprintf(msg, sizeof msg, "cannot read the file: %s", why);
	return steer_save_fail_file(r, msg);
}

/* The window moves on past the bytes before the current piece and takes in more of
 * the file (growing when the piece fills it); false at the end of the records, or on
 * failure (said in r). */
static bool refill(void *ud)
{
	steer_save_stream *s = ud;
	window *w = s->win;
	reader *r = s->r;
	if (r->failed || w->at + w->len >= w->end)
		return false;
	size_t keep = w->len - s->from;
	memmove(w->bytes, w->bytes + s->from, keep);
	w->at += s->from;
	r->pos -= s->from;
	s->from = 0;
	w->len = keep;
	if (w->len == w->cap &&
	    steer_reserve((void **)&w->bytes, &w->cap, w->cap + 1, 1) != STEER_OK)
		return steer_save_fail_file(r, "out of memory");
	uint64_t left = w->end - (w->at + w->len);
	size_t n = left < w->cap - w->len ? (size_t)left : w->cap - w->len;
	if (!source_read(r, w, w->at + w->len, w->bytes + w->len, n))
		return false;
	w->len += n;
	r->buf = w->bytes;
	r->end = w->len;
	return true;
}

/* The first line and the end line, each read alone, and the checksum over the file
 * read once through a buffer of a few MiB; then the window starts at line 2. */
static bool open_source(steer_save_stream *s, const steer_save_source *src)
{
	reader *r = s->r;
	if (src->size == 0)
		return steer_save_fail_file(r, "file is empty");
	if (src->size > STEER_SAVE_MAX_BYTES) {
		char msg[96];
		snprintf(msg, sizeof msg, "file is %" PRIu64 " bytes, over the %u a save may hold",
		         src->size, STEER_SAVE_MAX_BYTES);
		return steer_save_fail_file(r, msg);
	}
	window *w = s->win = calloc(1, sizeof *w);
	size_t size = (size_t)src->size, edge = 2 * (size_t)MAX_LINE + 2;
	size_t head_len = size < MAX_LINE + 1 ? size : MAX_LINE + 1;
	size_t tail_len = size < edge ? size : edge, tail_at = size - tail_len;
	char *head = malloc(head_len), *tail = malloc(tail_len);
	size_t cap = src->window ? src->window : WINDOW_BYTES;
	char *bytes = malloc(cap);
	bool ok = w && head && tail && bytes;
	if (!ok)
		steer_save_fail_file(r, "out of memory");
	if (w)
		w->src = *src;
	size_t body = 0, end_in_tail = 0;
	ok = ok && source_read(r, w, 0, head, head_len) &&
	     steer_save_check_magic(r, head, head_len, &body) &&
	     source_read(r, w, tail_at, tail, tail_len) &&
	     steer_save_end_line(r, tail, tail_len, body > tail_at ? body - tail_at : 0,
	                         &end_in_tail, &s->records, &w->want);
	if (ok) {
		w->end = tail_at + end_in_tail;
		w->sum = steer_save_sum(STEER_SAVE_SUM_START, head, body);
		uint64_t sum = w->sum;
		for (uint64_t at = body; ok && at < w->end;) {
			size_t n = w->end - at < cap ? (size_t)(w->end - at) : cap;
			ok = source_read(r, w, at, bytes, n);
			sum = steer_save_sum(sum, bytes, n);
			at += n;
		}
		if (ok && sum != w->want)
			ok = steer_save_fail_file(r, "checksum mismatch: file is corrupted");
	}
	free(head);
	free(tail);
	if (w) {
		w->bytes = bytes;
		w->cap = cap;
		w->at = body;
	} else {
		free(bytes);
	}
	if (!ok)
		return false;
	r->buf = w->bytes;
	r->pos = r->end = 0;
	r->line = 1;
	r->refill = refill;
	r->refill_ud = s;
	return true;
}

steer_save_stream *steer_save_stream_source(const steer_save_source *src, char *err, size_t errlen)
{
	steer_save_stream *s = stream_new();
	if (!s) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (!open_source(s, src)) {
		snprintf(err, errlen, "%s", s->err);
		steer_save_stream_free(s);
		return NULL;
	}
	return s;
}

steer_save_stream *steer_save_stream_follow(unsigned version, uint64_t records)
{
	steer_save_stream *s = stream_new();
	if (s) {
		s->r->version = version;
		s->r->line = 1;
		s->records = records;
	}
	return s;
}

void steer_save_stream_frame(const steer_save_stream *s, unsigned *version, uint64_t *records)
{
	*version = s->r->version;
	*records = s->records;
}

void steer_save_stream_keep(steer_save_stream *s, steer_save_keep_fn keep, void *ud)
{
	s->r->keep = keep;
	s->r->keep_ud = ud;
}

steer_world *steer_save_stream_world(const steer_save_stream *s)
{
	return s->w;
}

uint64_t steer_save_stream_vehicles(const steer_save_stream *s)
{
	return s->n.vehicles;
}

const char *steer_save_stream_error(const steer_save_stream *s)
{
	return s->err;
}

/* Whether the records go on past what r holds now. */
static bool body_left(const steer_save_stream *s)
{
	const reader *r = s->r;
	return r->pos < r->end || (s->win && s->win->at + s->win->len < s->win->end);
}

static bool no_more(steer_save_stream *s)
{
	if (!body_left(s))
		return true;
	s->r->line++;
	return steer_save_fail(s->r, "more records than the counts line declares");
}

/* Reads the head, or records up to limit bytes past the piece's start (one at the
 * least). */
static bool stream_read(steer_save_stream *s, size_t limit)
{
	reader *r = s->r;
	if (!s->w)
		return (s->w = steer_save_read_head(r, s->records, &s->meta, &s->n)) != NULL;
	uint64_t total = steer_save_records_in(&s->n);
	do {
		if (s->done == total)
			return no_more(s);
		if (!steer_save_read_record(r, s->w, &s->n, s->done))
			return false;
		s->done++;
	} while (r->pos - s->from < limit && body_left(s));
	return true;
}

bool steer_save_stream_next(steer_save_stream *s, size_t bytes, const char **piece, size_t *len)
{
	reader *r = s->r;
	*piece = NULL;
	*len = 0;
	if (r->failed)
		return false;
	if (s->w && s->done == steer_save_records_in(&s->n)) { /* the end: no piece */
		if (!no_more(s))
			return false;
		/* The file read twice (checked, then in pieces) must be the same file. */
		if (s->win && s->win->sum != s->win->want)
			return steer_save_fail_file(r, "the file changed while it was read");
		return true;
	}
	s->from = r->pos;
	if (!stream_read(s, bytes))
		return false;
	*piece = r->buf + s->from;
	*len = r->pos - s->from;
	if (s->win)
		s->win->sum = steer_save_sum(s->win->sum, *piece, *len);
	return true;
}

bool steer_save_stream_feed(steer_save_stream *s, const char *piece, size_t len)
{
	reader *r = s->r;
	if (r->failed)
		return false;
	r->buf = piece;
	r->pos = s->from = 0;
	r->end = len;
	while (r->pos < r->end)
		if (!stream_read(s, SIZE_MAX))
			return false;
	return true;
}

steer_world *steer_save_stream_finish(steer_save_stream *s)
{
	reader *r = s->r;
	if (r->failed || !s->w)
		return NULL;
	if (s->done != steer_save_records_in(&s->n)) {
		steer_save_fail(r, "the file ends early (more records were expected)");
		return NULL;
	}
	if (!steer_save_check_chase_ids(r, s->w) || !steer_save_finish(r, s->w, &s->meta))
		return NULL;
	steer_world *w = s->w;
	s->w = NULL;
	return w;
}

void steer_save_stream_free(steer_save_stream *s)
{
	if (!s)
		return;
	steer_world_destroy(s->w);
	if (s->win)
		free(s->win->bytes);
	free(s->win);
	if (s->r)
		free(s->r->ids);
	free(s->r);
	free(s);
}
