#include "ranks_save.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ranks.h"
#include "reserve.h"
#include "savefile.h"
#include "steer/save.h"
#include "storage.h"

/* About this much text a step, over all the ranks: a step holds the loop for a few
 * milliseconds (every rank writes its share of the records' text at once, rank 0
 * merges them), and rank 0 holds two copies of it. */
#define STEP_BYTES ((size_t)1 << 20)
/* A vehicle's record is about this long (every parameter is named). */
#define RECORD_BYTES 1800
/* A write takes the steps made in one turn of the loop, up to this much text. */
#define WRITE_BYTES ((size_t)4 << 20)

typedef enum stage { STAGE_HEAD, STAGE_RECORDS, STAGE_TAIL, STAGE_DONE } stage;

/* A write on the thread pool. Its own allocation, so that the save can be finished
 * or closed on the loop while a write is under way: the ticket is then detached
 * (sv NULL) and freed when its write is reported. */
typedef struct write_ticket {
	uv_work_t work;
	ranks_save *sv;
	int k;     /* the buffer it writes */
	bool last; /* ... which ends the file */
	ranks_save_wrote_fn wrote;
	void *ud;
} write_ticket;

struct ranks_save {
	ranks *r;
	int slot; /* the ranks' (ranks_save_begin); -1 before */
	storage_out out;
	stage at;
	size_t records;      /* a step's, per rank */
	uint64_t sum, bytes; /* of the file so far */
	const char *piece;   /* the last piece made: the head, the ranks' or the tail */
	size_t len;
	char *tail; /* the geometry and the end line */
	/* Two buffers of pieces: the loop fills one while the other is written. */
	char *buf[2];
	size_t buf_len[2], buf_cap[2];
	int fill;             /* the one the loop fills */
	bool committed;       /* the file is in place */
	write_ticket *ticket; /* the write under way, if any */
	uv_mutex_t lock;      /* guards writing, failed and why */
	uv_cond_t written;
	bool writing, failed;
	char why[400]; /* what failed */
};

/* A save whose file is opened next: NULL with why in err. */
static ranks_save *make(ranks *r, char *err, size_t errlen)
{
	ranks_save *sv = calloc(1, sizeof *sv);
	if (!sv) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (uv_mutex_init(&sv->lock) != 0) {
		free(sv);
		snprintf(err, errlen, "cannot make a lock");
		return NULL;
	}
	if (uv_cond_init(&sv->written) != 0) {
		uv_mutex_destroy(&sv->lock);
		free(sv);
		snprintf(err, errlen, "cannot make a condition variable");
		return NULL;
	}
	sv->r = r;
	sv->slot = -1;
	sv->out.fd = -1;
	sv->sum = STEER_SAVE_SUM_START;
	int n = ranks_size(r);
	sv->records = STEP_BYTES / RECORD_BYTES / (size_t)(n > 0 ? n : 1);
	if (sv->records < 16)
		sv->records = 16;
	return sv;
}

/* The snapshots taken once the file is open (rc 0). */
static ranks_save *begin(ranks_save *sv, steer_status st, char *err, size_t errlen)
{
	if (st == STEER_OK)
		sv->slot = ranks_save_begin(sv->r, err, errlen);
	if (sv->slot < 0) {
		ranks_save_close(sv);
		return NULL;
	}
	return sv;
}

ranks_save *ranks_save_open(ranks *r, const char *dir, const char *name, char *err, size_t errlen)
{
	ranks_save *sv = make(r, err, errlen);
	return sv ? begin(sv, storage_begin(&sv->out, dir, name, err, errlen), err, errlen) : NULL;
}

ranks_save *ranks_save_open_file(ranks *r, const char *path, char *err, size_t errlen)
{
	ranks_save *sv = make(r, err, errlen);
	return sv ? begin(sv, storage_begin_file(&sv->out, path, err, errlen), err, errlen) : NULL;
}

static int fail(ranks_save *sv, const char *err)
{
	uv_mutex_lock(&sv->lock);
	if (!sv->failed)
		snprintf(sv->why, sizeof sv->why, "%s", err);
	sv->failed = true;
	uv_mutex_unlock(&sv->lock);
	return -1;
}

/* Whether a step or a write failed; why into err. */
static bool failed(ranks_save *sv, char *err, size_t errlen)
{
	uv_mutex_lock(&sv->lock);
	bool f = sv->failed;
	if (f)
		snprintf(err, errlen, "%s", sv->why);
	uv_mutex_unlock(&sv->lock);
	return f;
}

/* The next piece into sv->piece, hashed and counted: 1, 0 when the file is all
 * written, or -1 with why in err. On the loop. */
static int next_piece(ranks_save *sv, char *err, size_t errlen)
{
	sv->piece = NULL;
	sv->len = 0;
	if (sv->at == STAGE_HEAD) {
		sv->piece = ranks_save_head(sv->r, sv->slot, &sv->len);
		sv->at = STAGE_RECORDS;
	}
	while (sv->at == STAGE_RECORDS && !sv->len) {
		int rc = ranks_save_step(sv->r, sv->slot, sv->records, &sv->piece, &sv->len, err,
		                         errlen);
		if (rc < 0)
			return fail(sv, err);
		if (rc == 0)
			sv->at = STAGE_TAIL;
	}
	if (sv->at == STAGE_TAIL && !sv->len) {
		uint64_t records;
		size_t n;
		const char *geometry = ranks_save_geometry(sv->r, sv->slot, &n, &records);
		sv->at = STAGE_DONE;
		sv->sum = steer_save_sum(sv->sum, geometry, n);
		steer_save_text end;
		steer_save_text_init(&end, SIZE_MAX);
		steer_save_put_end(&end, records, sv->sum);
		bool ok = steer_save_text_status(&end) == STEER_OK &&
		          (sv->tail = malloc(n + end.len)) != NULL;
		if (ok) {
			if (n) /* a world without geometry has no text for it */
				memcpy(sv->tail, geometry, n);
			memcpy(sv->tail + n, end.p, end.len);
			sv->piece = sv->tail;
			sv->len = n + end.len;
		}
		steer_save_text_free(&end);
		if (!ok) {
			snprintf(err, errlen, "out of memory writing the file's end");
			return fail(sv, err);
		}
	} else if (sv->len) {
		sv->sum = steer_save_sum(sv->sum, sv->piece, sv->len);
	}
	if (!sv->len)
		return 0;
	sv->bytes += sv->len;
	if (sv->bytes > STEER_SAVE_MAX_BYTES) {
		snprintf(err, errlen,
		         "the world takes more than %u bytes, the most a save may hold (load "
		         "refuses larger files)",
		         STEER_SAVE_MAX_BYTES);
		return fail(sv, err);
	}
	return 1;
}

/* The next piece appended to the buffer the loop fills: 1, 0 when there is none
 * left, or -1 with why in err. */
static int fill_piece(ranks_save *sv, char *err, size_t errlen)
{
	int rc = next_piece(sv, err, errlen);
	if (rc <= 0)
		return rc;
	int f = sv->fill;
	if (steer_reserve((void **)&sv->buf[f], &sv->buf_cap[f], sv->buf_len[f] + sv->len, 1) !=
	    STEER_OK) {
		snprintf(err, errlen, "out of memory");
		return fail(sv, err);
	}
	memcpy(sv->buf[f] + sv->buf_len[f], sv->piece, sv->len);
	sv->buf_len[f] += sv->len;
	return 1;
}

/* Buffer k written, and the file put in place after the last. 0, or -1 with why in
 * err. Off the loop (or on it, finishing). */
static int write_buffer(ranks_save *sv, int k, bool last, char *err, size_t errlen)
{
	if (storage_append(&sv->out, sv->buf[k], sv->buf_len[k], err, errlen) != STEER_OK)
		return -1;
	sv->buf_len[k] = 0;
	if (!last)
		return 0;
	if (storage_commit(&sv->out, err, errlen) != STEER_OK)
		return -1;
	sv->committed = true;
	return 0;
}

static void on_work(uv_work_t *w)
{
	write_ticket *t = w->data;
	ranks_save *sv = t->sv;
	char err[sizeof sv->why];
	int rc = write_buffer(sv, t->k, t->last, err, sizeof err);
	uv_mutex_lock(&sv->lock);
	if (rc != 0 && !sv->failed) {
		sv->failed = true;
		snprintf(sv->why, sizeof sv->why, "%s", err);
	}
	sv->writing = false;
	uv_cond_signal(&sv->written);
	uv_mutex_unlock(&sv->lock);
}

static void on_written(uv_work_t *w, int status)
{
	write_ticket *t = w->data;
	(void)status; /* a write is never cancelled */
	if (t->sv) {
		t->sv->ticket = NULL;
		t->wrote(t->ud);
	}
	free(t);
}

/* Waits for the write under way, if any, and detaches its ticket. */
static void wait_write(ranks_save *sv)
{
	uv_mutex_lock(&sv->lock);
	while (sv->writing)
		uv_cond_wait(&sv->written, &sv->lock);
	uv_mutex_unlock(&sv->lock);
	if (sv->ticket) {
		sv->ticket->sv = NULL;
		sv->ticket = NULL;
	}
}

/* The buffer filled so far handed to the thread pool; the loop fills the other. */
static int queue_write(ranks_save *sv, uv_loop_t *loop, ranks_save_wrote_fn wrote, void *ud,
                       char *err, size_t errlen)
{
	write_ticket *t = calloc(1, sizeof *t);
	if (!t) {
		snprintf(err, errlen, "out of memory");
		return fail(sv, err);
	}
	/* The end line is in it once the pieces are done. */
	*t = (write_ticket){
	    .sv = sv, .k = sv->fill, .last = sv->at == STAGE_DONE, .wrote = wrote, .ud = ud};
	t->work.data = t;
	sv->fill = 1 - sv->fill;
	sv->writing = true; /* no write runs: no lock needed yet */
	sv->ticket = t;
	int uvrc = uv_queue_work(loop, &t->work, on_work, on_written);
	if (uvrc != 0) {
		sv->writing = false;
		sv->ticket = NULL;
		free(t);
		snprintf(err, errlen, "%s", uv_strerror(uvrc));
		return fail(sv, err);
	}
	return 0;
}

int ranks_save_advance(ranks_save *sv, uv_loop_t *loop, uint64_t budget_ns,
                       ranks_save_wrote_fn wrote, void *ud, char *err, size_t errlen)
{
	uint64_t t0 = uv_hrtime();
	for (;;) {
		/* A write's failure is read once it has ended: the file is given up. */
		if (failed(sv, err, errlen))
			return -1;
		size_t filled = sv->buf_len[sv->fill];
		bool full = filled >= WRITE_BYTES || (sv->at == STAGE_DONE && filled);
		bool spent = uv_hrtime() - t0 >= budget_ns;
		if (!sv->ticket && filled && (full || spent)) {
			if (queue_write(sv, loop, wrote, ud, err, errlen) != 0)
				return -1;
			continue;
		}
		if (sv->at == STAGE_DONE && !filled)
			return sv->ticket ? 1 : 0; /* 0: the last write put the file in place */
		if (sv->ticket && full && !spent) {
			wait_write(
			    sv); /* a write to the page cache: short; its call back dropped */
			continue;
		}
		if (sv->ticket && (full || spent))
			return 1; /* the write under way calls back */
		if (fill_piece(sv, err, errlen) < 0)
			return -1;
	}
}

int ranks_save_finish_now(ranks_save *sv, const volatile sig_atomic_t *stop, char *err,
                          size_t errlen)
{
	wait_write(sv); /* it wrote the other buffer whole, or failed */
	for (;;) {
		if (stop && *stop) {
			snprintf(err, errlen, "stopped before it ended (a second signal)");
			return fail(sv, err);
		}
		if (failed(sv, err, errlen))
			return -1;
		if (sv->committed)
			return 0;
		int rc = fill_piece(sv, err, errlen);
		if (rc < 0)
			return -1;
		size_t filled = sv->buf_len[sv->fill];
		if ((rc == 0 || filled >= WRITE_BYTES) &&
		    write_buffer(sv, sv->fill, sv->at == STAGE_DONE, err, errlen) != 0)
			return fail(sv, err);
		if (rc == 0)
			return 0;
	}
}

uint64_t ranks_save_bytes(const ranks_save *sv)
{
	return sv->bytes;
}

void ranks_save_close(ranks_save *sv)
{
	if (!sv)
		return;
	wait_write(sv);
	if (sv->slot >= 0)
		ranks_save_end(sv->r, sv->slot);
	storage_abort(&sv->out); /* nothing, once it is in place */
	free(sv->tail);
	free(sv->buf[0]);
	free(sv->buf[1]);
	uv_cond_destroy(&sv->written);
	uv_mutex_destroy(&sv->lock);
	free(sv);
}
