/* Also built into programs without the server's POSIX definition (steerctl). */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "journal_read.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format_cut.h"
#include "reserve.h"
#include "savefile.h"
#include "session_cache.h"

typedef struct segment {
	uint64_t num;
	bool ckpt, log;
} segment;

/* The log being read, through a window: a log may be bigger than memory. Whenever a
 * record is decoded the window holds a whole record's worth past it, or the rest of
 * the file, so what the codec says of the bytes is what it would say of the file. */
#define WINDOW_AHEAD ((size_t)STEER_JOURNAL_RECORD_HEAD + STEER_JOURNAL_MAX_RECORD)

typedef struct log_stream {
	int fd;          /* -1: none open */
	char *buf;       /* the window: the file's bytes [base, base + len) */
	size_t len, pos; /* pos: where the next record starts, in the window */
	uint64_t base;   /* the file offset of buf[0] */
	bool eof;        /* the window reaches the end of the file */
} log_stream;

struct journal_reader {
	char dir[4096];
	segment *segs;
	size_t nsegs, cap;
	size_t cur; /* the segment whose log is being read */
	log_stream log;
	bool begun; /* the start checkpoint's world was taken */
	bool ended;
	bool accept_loss;    /* damage ends the history instead of failing the read */
	bool defer_worlds;   /* WORLD items name their checkpoint instead of decoding it */
	bool damaged;        /* records were dropped before the tail */
	uint8_t start_flags; /* the BEGIN of the starting log */
	uint64_t last_tick;  /* the tick the history read so far has reached */
	uint64_t begin_tick; /* the BEGIN of the log read last */
	uint64_t records, dropped;
	char why[400];
	steer_strbuf line;     /* the last command's line, NUL-terminated */
	char checkpoint[4200]; /* the last deferred WORLD item's checkpoint */
};

steer_status journal_segment_path(char *out, size_t n, const char *dir, uint64_t num,
                                  const char *ext)
{
	int k = snprintf(out, n, "%s/%016llu.%s", dir, (unsigned long long)num, ext);
	return k > 0 && (size_t)k < n ? STEER_OK : STEER_ERR_LIMIT;
}

bool journal_segment_name(const char *name, uint64_t *num, const char **ext)
{
	size_t digits = 0;
	uint64_t v = 0;
	while (name[digits] >= '0' && name[digits] <= '9') {
		if (digits == JOURNAL_SEGMENT_DIGITS_MAX)
			return false;
		v = v * 10 + (uint64_t)(name[digits] - '0');
		digits++;
	}
	/* As written: 16 digits zero-padded, more only without a leading zero. */
	if (digits < 16 || (digits > 16 && name[0] == '0') || name[digits] != '.' || v == 0)
		return false;
	*num = v;
	*ext = name + digits + 1;
	return true;
}

/* A segment's NNNN.ext: its number, or 0 for any other name. */
static uint64_t segment_number(const char *name, const char *want)
{
	uint64_t v;
	const char *ext;
	return journal_segment_name(name, &v, &ext) && !strcmp(ext, want) ? v : 0;
}

static int seg_cmp(const void *a, const void *b)
{
	const segment *x = a, *y = b;
	return x->num < y->num ? -1 : x->num > y->num;
}

static segment *seg_get(journal_reader *r, uint64_t num)
{
	for (size_t i = 0; i < r->nsegs; i++)
		if (r->segs[i].num == num)
			return &r->segs[i];
	if (steer_reserve((void **)&r->segs, &r->cap, r->nsegs + 1, sizeof *r->segs) != STEER_OK)
		return NULL;
	segment *s = &r->segs[r->nsegs++];
	*s = (segment){.num = num};
	return s;
}

/* Opens path for reading when it is a plain file: a FIFO would block, and a device
 * (/dev/zero) never ends. The descriptor, or -1 with a message in err. */
static int open_plain(const char *path, struct stat *st, bool *missing, char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	*missing = fd < 0 && errno == ENOENT;
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, st) != 0 || !S_ISREG(st->st_mode)) {
		snprintf(err, errlen,
		         "%s is not a plain file (a FIFO, a device or a directory); a journal "
		         "holds plain files only: move it away",
		         path);
		close(fd);
		return -1;
	}
	/* A plain file's reads never block: clearing O_NONBLOCK only tidies. */
	int fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	return fd;
}

/* Reads a whole checkpoint into a malloc'd buffer. 0, or -1 with the reason in err. */
static int read_file(const char *path, char **out, size_t *len, char *err, size_t errlen)
{
	struct stat st;
	bool missing;
	int fd = open_plain(path, &st, &missing, err, errlen);
	if (fd < 0)
		return -1;
	if ((uint64_t)st.st_size > STEER_SAVE_MAX_BYTES) {
		snprintf(err, errlen, "%s: too big (%llu bytes; a checkpoint is at most %llu)",
		         path, (unsigned long long)st.st_size,
		         (unsigned long long)STEER_SAVE_MAX_BYTES);
		close(fd);
		return -1;
	}
	steer_strbuf b;
	steer_strbuf_init(&b);
	char chunk[65536];
	ssize_t k;
	while ((k = read(fd, chunk, sizeof chunk)) != 0) {
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			break;
		steer_strbuf_put(&b, chunk, (size_t)k);
		if (b.len > STEER_SAVE_MAX_BYTES)
			break;
	}
	int e = errno;
	bool bad = k < 0 || b.oom || b.len > STEER_SAVE_MAX_BYTES;
	close(fd);
	if (bad) {
		snprintf(err, errlen, "%s: %s", path,
		         b.oom                          ? "out of memory"
		         : b.len > STEER_SAVE_MAX_BYTES ? "it grew past the most a checkpoint holds"
		                                        : strerror(e));
		steer_strbuf_free(&b);
		return -1;
	}
	*out = b.data; /* NULL for an empty file */
	*len = b.len;
	return 0;
}

static void log_close(log_stream *l)
{
	if (l->fd >= 0)
		close(l->fd);
	free(l->buf);
	*l = (log_stream){.fd = -1};
}

/* Makes the window hold want bytes from pos, or the rest of the file. 0, or -1 with
 * the reason in err. */
static int log_fill(log_stream *l, size_t want, char *err, size_t errlen)
{
	if (l->len - l->pos >= want || l->eof)
		return 0;
	if (l->pos > 0) {
		memmove(l->buf, l->buf + l->pos, l->len - l->pos);
		l->base += l->pos;
		l->len -= l->pos;
		l->pos = 0;
	}
	while (l->len < want && !l->eof) {
		ssize_t k = read(l->fd, l->buf + l->len, 2 * WINDOW_AHEAD - l->len);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			snprintf(err, errlen, "cannot read the log: %s", strerror(errno));
			return -1;
		}
		if (k == 0)
			l->eof = true;
		l->len += (size_t)k;
	}
	return 0;
}

/* err gets "path: why", cut to errlen: a long path's message is cut short. */
static void say_at(char *err, size_t errlen, const char *path, const char *why)
{
	steer_format_cut(err, errlen, "%s: %s", path, why);
}

/* Loads segment i's log as the current one. 0; -1 when it is missing or not a log of
 * this version (err says why; *invalid when it is another version, not a journal or
 * not a plain file: the journal is then refused whole). */
static int load_log(journal_reader *r, size_t i, bool *invalid, char *err, size_t errlen)
{
	char path[4200];
	*invalid = false;
	log_close(&r->log);
	if (!r->segs[i].log ||
	    journal_segment_path(path, sizeof path, r->dir, r->segs[i].num, "log"))
		return snprintf(err, errlen, "segment %llu has no log",
		                (unsigned long long)r->segs[i].num),
		       -1;
	struct stat st;
	bool missing;
	int fd = open_plain(path, &st, &missing, err, errlen);
	if (fd < 0) {
		*invalid = !missing;
		return -1;
	}
	r->log.fd = fd;
	r->log.buf = malloc(2 * WINDOW_AHEAD);
	if (!r->log.buf) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	r->cur = i;
	char why[200];
	if (log_fill(&r->log, STEER_JOURNAL_HEADER_SIZE, why, sizeof why) != 0) {
		say_at(err, errlen, path, why);
		return -1;
	}
	size_t pos = 0;
	steer_journal_read st2 =
	    steer_journal_header_check(r->log.buf, r->log.len, &pos, why, sizeof why);
	if (st2 != STEER_JOURNAL_OK) {
		*invalid = st2 == STEER_JOURNAL_INVALID;
		say_at(err, errlen, path, why);
		return -1;
	}
	r->log.pos = pos;
	return 0;
}

/* The next record of the current log (steer_journal_next over the whole file);
 * STEER_JOURNAL_INVALID when the log cannot be read (why says so): not a tear. */
static steer_journal_read log_next(journal_reader *r, steer_journal_record *rec, char *why,
                                   size_t whylen)
{
	if (log_fill(&r->log, WINDOW_AHEAD, why, whylen) != 0)
		return STEER_JOURNAL_INVALID;
	return steer_journal_next(r->log.buf, r->log.len, &r->log.pos, rec, why, whylen);
}

/* The BEGIN record opening the current log: 0 with its flags, or -1. */
static int read_begin(journal_reader *r, uint8_t *flags)
{
	steer_journal_record rec;
	char why[200];
	if (log_next(r, &rec, why, sizeof why) != STEER_JOURNAL_OK ||
	    rec.type != STEER_JOURNAL_BEGIN)
		return -1;
	*flags = rec.flags;
	r->begin_tick = rec.tick;
	return 0;
}

journal_reader *journal_read_open(const char *dir, journal_from from, char *err, size_t errlen)
{
	journal_reader *r = calloc(1, sizeof *r);
	if (!r) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	r->log.fd = -1;
	steer_strbuf_init(&r->line);
	snprintf(r->dir, sizeof r->dir, "%s", dir);
	DIR *d = opendir(dir);
	if (!d) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		journal_read_close(r);
		return NULL;
	}
	for (struct dirent *de; (de = readdir(d));) {
		uint64_t n;
		bool ckpt = false;
		if ((n = segment_number(de->d_name, "log")) == 0 &&
		    (ckpt = true, n = segment_number(de->d_name, "steer")) == 0)
			continue;
		segment *s = seg_get(r, n);
		if (!s) {
			closedir(d);
			snprintf(err, errlen, "out of memory");
			journal_read_close(r);
			return NULL;
		}
		if (ckpt)
			s->ckpt = true;
		else
			s->log = true;
	}
	closedir(d);
	if (r->nsegs > 1)
		qsort(r->segs, r->nsegs, sizeof *r->segs, seg_cmp);
	/* Every log's version first: a journal of another version is refused whole,
	 * whichever segment would have been read. */
	for (size_t i = 0; i < r->nsegs; i++) {
		bool invalid;
		char why[400];
		if (r->segs[i].log && load_log(r, i, &invalid, why, sizeof why) != 0 && invalid) {
			snprintf(err, errlen, "%s", why);
			journal_read_close(r);
			return NULL;
		}
	}
	size_t n = r->nsegs;
	char first_why[400] = "";
	for (size_t k = 0; k < n; k++) {
		size_t i = from == JOURNAL_FROM_NEWEST ? n - 1 - k : k;
		bool invalid;
		char why[400];
		if (!r->segs[i].ckpt)
			continue;
		if (load_log(r, i, &invalid, why, sizeof why) != 0) {
			if (!first_why[0])
				snprintf(first_why, sizeof first_why, "%s", why);
			continue;
		}
		if (read_begin(r, &r->start_flags) != 0) {
			if (!first_why[0])
				snprintf(
				    first_why, sizeof first_why,
				    "segment %016llu.log does not start with a whole BEGIN record",
				    (unsigned long long)r->segs[i].num);
			continue;
		}
		r->last_tick = r->begin_tick;
		return r;
	}
	size_t ckpts = 0;
	for (size_t i = 0; i < n; i++)
		ckpts += r->segs[i].ckpt;
	if (n == 0)
		snprintf(err, errlen,
		         "%s holds no journal segments: nothing was journaled there, or its "
		         "files were removed; start without --recover",
		         dir);
	else if (ckpts == 0)
		snprintf(err, errlen,
		         "%s holds no checkpoint at all (%zu segments): the server that wrote it "
		         "stopped before its first one was written, so nothing in it was answered "
		         "under --journal-fsync always; start without --recover (the journal is "
		         "then kept under journals/)",
		         dir, n);
	else
		snprintf(
		    err, errlen,
		    "%s holds no usable checkpoint (%zu segments; %s): start without --recover "
		    "to begin anew (the journal is then kept under journals/)",
		    dir, n, first_why);
	journal_read_close(r);
	return NULL;
}

void journal_read_accept_loss(journal_reader *r)
{
	r->accept_loss = true;
}

void journal_read_close(journal_reader *r)
{
	if (!r)
		return;
	free(r->segs);
	log_close(&r->log);
	steer_strbuf_free(&r->line);
	free(r);
}

static steer_world *checkpoint_world(journal_reader *r, size_t i, char *err, size_t errlen)
{
	char path[4200], why[300];
	char *data = NULL;
	size_t len = 0;
	if (journal_segment_path(path, sizeof path, r->dir, r->segs[i].num, "steer") != STEER_OK) {
		snprintf(err, errlen, "%s: path too long", r->dir);
		return NULL;
	}
	if (read_file(path, &data, &len, err, errlen) != 0)
		return NULL;
	steer_world *w = steer_save_decode(data ? data : "", len, why, sizeof why);
	free(data);
	if (!w)
		snprintf(err, errlen, "%s: %s", path, why);
	return w;
}

steer_status journal_read_world_path(journal_reader *r, bool *paused, char *path, size_t n,
                                     char *err, size_t errlen)
{
	if (r->begun) {
		snprintf(err, errlen, "the starting world was taken already");
		return STEER_ERR_IO;
	}
	if (journal_segment_path(path, n, r->dir, r->segs[r->cur].num, "steer") != STEER_OK) {
		snprintf(err, errlen, "%s: path too long", r->dir);
		return STEER_ERR_LIMIT;
	}
	r->begun = true;
	*paused = r->start_flags & STEER_JOURNAL_BEGIN_PAUSED;
	return STEER_OK;
}

void journal_read_defer_worlds(journal_reader *r)
{
	r->defer_worlds = true;
}

steer_world *journal_read_world(journal_reader *r, bool *paused, char *err, size_t errlen)
{
	if (r->begun) {
		snprintf(err, errlen, "the starting world was taken already");
		return NULL;
	}
	steer_world *w = checkpoint_world(r, r->cur, err, errlen);
	if (w) {
		r->begun = true;
		*paused = r->start_flags & STEER_JOURNAL_BEGIN_PAUSED;
	}
	return w;
}

/* Whether a whole batch's end, an intact MARK (or a BEGIN), starts anywhere after the
 * current position of the log: then what stopped the reading is damage, not a torn
 * tail. Every batch ends with a MARK, so intact history after damage always holds
 * one; and a MARK is a fixed 17 bytes, so the scan checks few bytes an offset, and no
 * crafted tail can make it slow. Streams to the end. */
static bool mark_after(journal_reader *r, uint64_t *at)
{
	log_stream *l = &r->log;
	char why[200];
	for (l->pos++;; l->pos++) {
		if (log_fill(l, STEER_JOURNAL_RECORD_HEAD + 10, why, sizeof why) != 0 ||
		    l->pos >= l->len)
			return false;
		const unsigned char *p = (const unsigned char *)l->buf + l->pos;
		size_t left = l->len - l->pos;
		if (left < STEER_JOURNAL_RECORD_HEAD + 9 || p[1] || p[2] || p[3] ||
		    !((p[0] == 9 && p[8] == STEER_JOURNAL_MARK) ||
		      (p[0] == 10 && p[8] == STEER_JOURNAL_BEGIN)))
			continue;
		if (steer_journal_intact(l->buf, l->len, l->pos)) {
			*at = l->base + l->pos;
			return true;
		}
	}
}

/* The bytes from the current position to the end of the log. */
static uint64_t rest_of_log(journal_reader *r)
{
	struct stat st;
	uint64_t at = r->log.base + r->log.pos;
	if (r->log.fd >= 0 && fstat(r->log.fd, &st) == 0 && (uint64_t)st.st_size > at)
		return (uint64_t)st.st_size - at;
	return 0;
}

/* Whether segment i's log opens with a BEGIN that continues the segment before it. */
static bool log_continues(const journal_reader *r, size_t i)
{
	char path[4200];
	if (!r->segs[i].log ||
	    journal_segment_path(path, sizeof path, r->dir, r->segs[i].num, "log"))
		return false;
	struct stat st;
	bool missing;
	char err[300];
	int fd = open_plain(path, &st, &missing, err, sizeof err);
	if (fd < 0)
		return false;
	char head[STEER_JOURNAL_HEADER_SIZE + STEER_JOURNAL_RECORD_HEAD + 10];
	ssize_t k = read(fd, head, sizeof head);
	close(fd);
	size_t pos = 0;
	steer_journal_record rec;
	return k == (ssize_t)sizeof head &&
	       steer_journal_header_check(head, sizeof head, &pos, err, sizeof err) ==
	           STEER_JOURNAL_OK &&
	       steer_journal_next(head, sizeof head, &pos, &rec, err, sizeof err) ==
	           STEER_JOURNAL_OK &&
	       rec.type == STEER_JOURNAL_BEGIN && (rec.flags & STEER_JOURNAL_BEGIN_CONTINUES);
}

/* Whether any segment after the current one holds history that reading could reach
 * (a checkpoint, or a log that continues another): then stopping here loses it. */
static bool history_after(const journal_reader *r)
{
	for (size_t i = r->cur + 1; i < r->nsegs; i++)
		if (r->segs[i].ckpt || log_continues(r, i))
			return true;
	return false;
}

/* Reading stops here, for why. What a crash leaves is dropped quietly: a torn tail (a
 * record that is not whole, in the last log, with no whole batch after it), or a dead
 * end (a server killed before its first checkpoint, a log cut in its header) with no
 * history after it. Anything else is damage: STEER_ERR_INVALID with a message naming
 * the segment and byte, unless the loss was accepted (journal_read_accept_loss), when
 * the history ends here all the same. */
typedef enum stop_kind {
	STOP_TEAR,     /* a record that is not whole */
	STOP_DEAD_END, /* a segment that cannot be read on from */
	STOP_DAMAGE,   /* never what a crash leaves */
} stop_kind;

static steer_status stop_at(journal_reader *r, stop_kind kind, const char *why, char *err,
                            size_t errlen)
{
	uint64_t at = r->log.base + r->log.pos, dropped = rest_of_log(r), next = 0;
	bool last = r->cur + 1 >= r->nsegs, later = !last && history_after(r);
	/* A last record changed after it was written, not cut short by a crash: the
	 * window holds every byte to the end, so the codec can tell. */
	bool changed = kind == STOP_TEAR && r->log.fd >= 0 && r->log.eof &&
	               !steer_journal_tail_torn(r->log.buf, r->log.len, r->log.pos, r->log.base);
	bool damage = kind == STOP_DAMAGE || later || changed ||
	              (kind == STOP_TEAR && r->log.fd >= 0 && mark_after(r, &next));
	unsigned long long seg = r->segs[r->cur].num;
	size_t after = r->nsegs - r->cur - 1;
	char msg[sizeof r->why];
	if (!damage)
		snprintf(msg, sizeof msg, "segment %016llu.log ends at byte %llu: %s", seg,
		         (unsigned long long)at, why);
	else if (next)
		snprintf(msg, sizeof msg,
		         "segment %016llu.log is damaged at byte %llu (%s), with intact records "
		         "after it from byte %llu",
		         seg, (unsigned long long)at, why, (unsigned long long)next);
	else if (after)
		snprintf(msg, sizeof msg,
		         "segment %016llu.log is damaged at byte %llu (%s), and %zu later "
		         "segment%s",
		         seg, (unsigned long long)at, why, after,
		         after == 1 ? " follows" : "s follow");
	else if (changed)
		snprintf(
		    msg, sizeof msg,
		    "segment %016llu.log is damaged at byte %llu (%s; its last record is all "
		    "there, so it was changed after it was written: a crash leaves one cut short)",
		    seg, (unsigned long long)at, why);
	else
		snprintf(msg, sizeof msg, "segment %016llu.log is damaged at byte %llu (%s)", seg,
		         (unsigned long long)at, why);
	if (!r->why[0])
		snprintf(r->why, sizeof r->why, "%s", msg);
	r->ended = true;
	if (!damage) {
		r->dropped += dropped;
		return STEER_OK;
	}
	r->damaged = true;
	if (r->accept_loss) {
		r->dropped += dropped;
		for (size_t i = r->cur + 1; i < r->nsegs; i++) {
			char path[4200];
			struct stat st;
			if (r->segs[i].log &&
			    !journal_segment_path(path, sizeof path, r->dir, r->segs[i].num,
			                          "log") &&
			    stat(path, &st) == 0)
				r->dropped += (uint64_t)st.st_size;
		}
		return STEER_OK;
	}
	snprintf(err, errlen,
	         "%s in %s: %s would be lost, so nothing was read past it and nothing was changed",
	         msg, r->dir,
	         changed ? "the commands since the mark before it" : "the history after it");
	return STEER_ERR_INVALID;
}

steer_status journal_read_next(journal_reader *r, journal_item *item, char *err, size_t errlen)
{
	memset(item, 0, sizeof *item);
	item->kind = JOURNAL_ITEM_END;
	while (!r->ended) {
		steer_journal_record rec;
		char why[200];
		steer_journal_read st = log_next(r, &rec, why, sizeof why);
		if (st == STEER_JOURNAL_OK && rec.type == STEER_JOURNAL_BEGIN) {
			r->log.pos -= rec.size;
			return stop_at(r, STOP_DAMAGE, "a second BEGIN inside a log", err, errlen);
		}
		if (st == STEER_JOURNAL_OK) {
			r->records++;
			item->tick = rec.tick;
			if (rec.type == STEER_JOURNAL_MARK) {
				item->kind = JOURNAL_ITEM_MARK;
				r->last_tick = rec.tick;
				return STEER_OK;
			}
			steer_strbuf_clear(&r->line);
			steer_strbuf_put(&r->line, rec.line, rec.line_len);
			if (r->line.oom) {
				snprintf(err, errlen, "out of memory");
				return STEER_ERR_NOMEM;
			}
			item->kind = JOURNAL_ITEM_COMMAND;
			item->line = r->line.data ? r->line.data : "";
			item->line_len = rec.line_len;
			return STEER_OK;
		}
		if (st == STEER_JOURNAL_TORN)
			return stop_at(r, STOP_TEAR, why, err, errlen);
		if (st == STEER_JOURNAL_INVALID)
			return stop_at(r, STOP_DAMAGE, why, err, errlen);
		/* The end of this log: on to the next segment's. */
		if (r->cur + 1 >= r->nsegs) {
			r->ended = true;
			break;
		}
		bool invalid;
		char lerr[400];
		uint8_t flags;
		size_t next = r->cur + 1;
		uint64_t want = r->segs[r->cur].num + 1;
		if (load_log(r, next, &invalid, lerr, sizeof lerr) != 0 ||
		    read_begin(r, &flags) != 0) {
			r->cur = next;
			return stop_at(r, STOP_DEAD_END, "a segment without a readable log", err,
			               errlen);
		}
		if (flags & STEER_JOURNAL_BEGIN_CONTINUES) {
			if (r->segs[next].num != want) {
				r->log.pos = 0;
				return stop_at(r, STOP_DAMAGE,
				               "it continues a segment that is missing", err,
				               errlen);
			}
			/* A log that continues the history starts where it stands: a copy or a
			 * stray log would replay records twice or skip some. */
			if (r->begin_tick != r->last_tick) {
				char gap[160];
				snprintf(gap, sizeof gap,
				         "it continues from tick %llu, but the history before it "
				         "ends at tick %llu",
				         (unsigned long long)r->begin_tick,
				         (unsigned long long)r->last_tick);
				r->log.pos = 0;
				return stop_at(r, STOP_DAMAGE, gap, err, errlen);
			}
			continue; /* the same history: its checkpoint is the world as it stands */
		}
		if (!r->segs[next].ckpt) {
			r->log.pos = 0;
			return stop_at(r, STOP_DEAD_END,
			               "a replaced world whose checkpoint was never written", err,
			               errlen);
		}
		if (r->defer_worlds) {
			if (journal_segment_path(r->checkpoint, sizeof r->checkpoint, r->dir,
			                         r->segs[next].num, "steer") != 0) {
				snprintf(err, errlen, "%s: path too long", r->dir);
				return STEER_ERR_IO;
			}
			item->checkpoint = r->checkpoint;
		} else if (!(item->world = checkpoint_world(r, next, err, errlen))) {
			return STEER_ERR_IO;
		}
		item->kind = JOURNAL_ITEM_WORLD;
		item->paused = flags & STEER_JOURNAL_BEGIN_PAUSED;
		r->last_tick = r->begin_tick;
		return STEER_OK;
	}
	return STEER_OK;
}

uint64_t journal_read_records(const journal_reader *r)
{
	return r->records;
}

uint64_t journal_read_dropped(const journal_reader *r, const char **why)
{
	if (why)
		*why = r->why;
	return r->dropped;
}

bool journal_read_damaged(const journal_reader *r)
{
	return r->damaged;
}

/* --- applying the records to a session's world --------------------------------------- */

typedef struct session_apply {
	steer_session *s;
	const steer_host *h;
} session_apply;

/* Steps the session's world up to tick t. */
static steer_status session_step_to(void *ud, uint64_t t, char *err, size_t errlen)
{
	steer_session *s = ((session_apply *)ud)->s;
	for (uint64_t now = steer_world_tick(s->world); now < t; now++) {
		steer_session_stale(s);
		if (steer_world_step(s->world) != STEER_OK) {
			snprintf(err, errlen, "out of memory stepping to tick %llu",
			         (unsigned long long)t);
			return STEER_ERR_NOMEM;
		}
	}
	return STEER_OK;
}

static uint64_t session_tick(void *ud)
{
	return steer_world_tick(((session_apply *)ud)->s->world);
}

static steer_status session_exec(void *ud, const steer_command *cmd, const char *line,
                                 steer_reply *reply)
{
	(void)line;
	session_apply *a = ud;
	return steer_cmd_exec(cmd, a->s, a->h, reply);
}

static steer_status session_replace(void *ud, const journal_item *it, char *err, size_t errlen)
{
	session_apply *a = ud;
	steer_session *s = a->s;
	steer_world *w = it->world;
	steer_world_set_max_vehicles(w, steer_world_config_get(s->world)->max_vehicles);
	if (steer_world_set_threads(w, steer_world_threads(s->world)) != STEER_OK) {
		steer_world_destroy(w);
		snprintf(err, errlen, "cannot start the world's threads");
		return STEER_ERR_NOMEM;
	}
	steer_world_set_simd(w, steer_world_simd(s->world));
	steer_world_destroy(s->world);
	s->world = w;
	s->paused = it->paused;
	steer_session_stale(s);
	if (a->h && a->h->rate_changed)
		a->h->rate_changed(a->h->ud);
	return STEER_OK;
}

steer_status journal_read_apply(journal_reader *r, steer_session *s, const steer_host *h,
                                uint64_t until, journal_applied *out, char *err, size_t errlen)
{
	session_apply a = {s, h};
	journal_apply_ops ops = {session_tick, session_step_to, session_exec, session_replace, &a};
	return journal_read_apply_ops(r, &ops, until, out, err, errlen);
}

/* --- applying the records through a caller's operations --------------------------------- */

/* Steps up to tick t through ops. STEER_OK, or a failure with err. */
static steer_status step_to(const journal_apply_ops *ops, uint64_t t, char *err, size_t errlen)
{
	uint64_t now = ops->tick(ops->ud);
	if (now > t) {
		snprintf(err, errlen,
		         "the journal goes back in time: a record at tick %llu after tick %llu",
		         (unsigned long long)t, (unsigned long long)now);
		return STEER_ERR_INVALID;
	}
	return ops->step_to(ops->ud, t, err, errlen);
}

/* One pending command: its tick and where its line is in the pending lines. */
typedef struct pending {
	uint64_t tick;
	size_t off, len;
} pending;

steer_status journal_read_apply_ops(journal_reader *r, const journal_apply_ops *ops, uint64_t until,
                                    journal_applied *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof *out);
	steer_strbuf lines;
	steer_strbuf_init(&lines);
	pending *p = NULL;
	size_t np = 0, pcap = 0;
	steer_status st = STEER_OK;
	for (;;) {
		journal_item it;
		if ((st = journal_read_next(r, &it, err, errlen)) != STEER_OK)
			break;
		if (it.kind == JOURNAL_ITEM_END)
			break;
		if (it.kind == JOURNAL_ITEM_COMMAND) {
			if (steer_reserve((void **)&p, &pcap, np + 1, sizeof *p) != STEER_OK) {
				st = STEER_ERR_NOMEM;
				snprintf(err, errlen, "out of memory");
				break;
			}
			p[np++] = (pending){it.tick, lines.len, it.line_len};
			steer_strbuf_put(&lines, it.line, it.line_len);
			steer_strbuf_put(&lines, "", 1); /* each line NUL-terminated */
			continue;
		}
		if (it.kind == JOURNAL_ITEM_WORLD) {
			/* Unmarked commands before a replacement never reached a mark. */
			out->dropped += np;
			np = 0;
			steer_strbuf_clear(&lines);
			if ((st = ops->replace(ops->ud, &it, err, errlen)) != STEER_OK)
				break;
			out->replaced++;
			continue;
		}
		/* A mark: the batch before it is whole. */
		for (size_t i = 0; i < np && st == STEER_OK; i++) {
			const char *line = lines.data + p[i].off;
			if ((st = step_to(ops, p[i].tick, err, errlen)) != STEER_OK)
				break;
			steer_command cmd;
			char why[256];
			if (steer_cmd_parse_line(&cmd, line, why, sizeof why) != STEER_OK) {
				snprintf(err, errlen, "journal record '%s': %s", line, why);
				st = STEER_ERR_INVALID;
				break;
			}
			steer_reply reply;
			steer_reply_init(&reply);
			if (ops->exec(ops->ud, &cmd, line, &reply) != STEER_OK) {
				snprintf(err, errlen, "journal record '%s' at tick %llu failed: %s",
				         line, (unsigned long long)p[i].tick, reply.error);
				st = STEER_ERR_REFUSED;
			}
			steer_reply_free(&reply);
			out->records += st == STEER_OK;
		}
		np = 0;
		steer_strbuf_clear(&lines);
		if (st == STEER_OK)
			st = step_to(ops, it.tick, err, errlen);
		if (st != STEER_OK)
			break;
		out->marks++;
		if (until != JOURNAL_UNTIL_END && it.tick >= until)
			break;
	}
	out->dropped += np;
	if (lines.oom && st == STEER_OK) {
		st = STEER_ERR_NOMEM;
		snprintf(err, errlen, "out of memory");
	}
	free(p);
	steer_strbuf_free(&lines);
	return st;
}

steer_status journal_read_dir(const char *what, const char *data_dir, char *out, size_t n,
                              char *err, size_t errlen)
{
	int k;
	if (strchr(what, '/')) {
		k = snprintf(out, n, "%s", what);
	} else if (!data_dir) {
		snprintf(err, errlen,
		         "no data directory to find the journal '%s' in: give --data-dir "
		         "or a path",
		         what);
		return STEER_ERR_IO;
	} else if (!strcmp(what, "live")) {
		k = snprintf(out, n, "%s/journal", data_dir);
	} else if (steer_save_name_ok(what)) {
		k = snprintf(out, n, "%s/journals/%s", data_dir, what);
	} else {
		snprintf(err, errlen,
		         "'%s' is not a journal: give live, the name of one in %s/journals, or a "
		         "directory's path",
		         what, data_dir);
		return STEER_ERR_IO;
	}
	if (k < 0 || (size_t)k >= n) {
		snprintf(err, errlen, "the journal's path is too long");
		return STEER_ERR_LIMIT;
	}
	return STEER_OK;
}
