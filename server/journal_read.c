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

#include "reserve.h"
#include "savefile.h"

typedef struct segment {
	uint64_t num;
	bool ckpt, log;
} segment;

struct journal_reader {
	char dir[4096];
	segment *segs;
	size_t nsegs, cap;
	size_t cur; /* the segment whose log is being read */
	char *buf;  /* its log */
	size_t len, pos;
	bool begun; /* the start checkpoint's world was taken */
	bool ended;
	uint8_t start_flags; /* the BEGIN of the starting log */
	uint64_t records, dropped;
	char why[200];
	steer_strbuf line; /* the last command's line, NUL-terminated */
};

int journal_segment_path(char *out, size_t n, const char *dir, uint64_t num, const char *ext)
{
	int k = snprintf(out, n, "%s/%016llu.%s", dir, (unsigned long long)num, ext);
	return k > 0 && (size_t)k < n ? 0 : -1;
}

/* NNNNNNNNNNNNNNNN.ext: its number, or 0 for any other name. */
static uint64_t segment_number(const char *name, const char *ext)
{
	size_t n = strlen(name), e = strlen(ext);
	if (n != 17 + e || name[16] != '.' || strcmp(name + 17, ext) != 0)
		return 0;
	uint64_t v = 0;
	for (int i = 0; i < 16; i++) {
		if (name[i] < '0' || name[i] > '9')
			return 0;
		v = v * 10 + (uint64_t)(name[i] - '0');
	}
	return v;
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

/* Reads a whole file into a malloc'd buffer. 0, or -1 with errno's message in err. */
static int read_file(const char *path, char **out, size_t *len, char *err, size_t errlen)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	steer_strbuf b;
	steer_strbuf_init(&b);
	char chunk[65536];
	size_t k;
	while ((k = fread(chunk, 1, sizeof chunk, f)) > 0) {
		steer_strbuf_put(&b, chunk, k);
		if (b.len > STEER_SAVE_MAX_BYTES)
			break;
	}
	bool bad = ferror(f) || b.oom || b.len > STEER_SAVE_MAX_BYTES;
	fclose(f);
	if (bad) {
		snprintf(err, errlen, "%s: %s", path,
		         b.oom                          ? "out of memory"
		         : b.len > STEER_SAVE_MAX_BYTES ? "too big"
		                                        : "read error");
		steer_strbuf_free(&b);
		return -1;
	}
	*out = b.data; /* NULL for an empty file */
	*len = b.len;
	return 0;
}

/* Loads segment i's log as the current one. 0; -1 when it is missing or not a log of
 * this version (err says why; *invalid when it is another version or not a journal). */
static int load_log(journal_reader *r, size_t i, bool *invalid, char *err, size_t errlen)
{
	char path[4200];
	*invalid = false;
	free(r->buf);
	r->buf = NULL;
	r->len = r->pos = 0;
	if (!r->segs[i].log ||
	    journal_segment_path(path, sizeof path, r->dir, r->segs[i].num, "log"))
		return snprintf(err, errlen, "segment %llu has no log",
		                (unsigned long long)r->segs[i].num),
		       -1;
	if (read_file(path, &r->buf, &r->len, err, errlen) != 0)
		return -1;
	r->cur = i;
	size_t pos = 0;
	char why[200];
	steer_journal_read st = steer_journal_header_check(r->buf, r->len, &pos, why, sizeof why);
	if (st != STEER_JOURNAL_OK) {
		*invalid = st == STEER_JOURNAL_INVALID;
		snprintf(err, errlen, "%s: %s", path, why);
		return -1;
	}
	r->pos = pos;
	return 0;
}

/* The BEGIN record opening the current log: 0 with its flags, or -1. */
static int read_begin(journal_reader *r, uint8_t *flags)
{
	steer_journal_record rec;
	char why[200];
	if (steer_journal_next(r->buf, r->len, &r->pos, &rec, why, sizeof why) !=
	        STEER_JOURNAL_OK ||
	    rec.type != STEER_JOURNAL_BEGIN)
		return -1;
	*flags = rec.flags;
	return 0;
}

journal_reader *journal_read_open(const char *dir, journal_from from, char *err, size_t errlen)
{
	journal_reader *r = calloc(1, sizeof *r);
	if (!r) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
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
	for (size_t k = 0; k < n; k++) {
		size_t i = from == JOURNAL_FROM_NEWEST ? n - 1 - k : k;
		bool invalid;
		char why[400];
		if (!r->segs[i].ckpt || load_log(r, i, &invalid, why, sizeof why) != 0 ||
		    read_begin(r, &r->start_flags) != 0)
			continue;
		return r;
	}
	snprintf(err, errlen, "%s holds no usable checkpoint (%zu segments)", dir, n);
	journal_read_close(r);
	return NULL;
}

void journal_read_close(journal_reader *r)
{
	if (!r)
		return;
	free(r->segs);
	free(r->buf);
	steer_strbuf_free(&r->line);
	free(r);
}

static steer_world *checkpoint_world(journal_reader *r, size_t i, char *err, size_t errlen)
{
	char path[4200], why[300];
	char *data = NULL;
	size_t len = 0;
	if (journal_segment_path(path, sizeof path, r->dir, r->segs[i].num, "steer") != 0) {
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

static void drop_rest(journal_reader *r, const char *why)
{
	if (!r->why[0])
		snprintf(r->why, sizeof r->why, "%s", why);
	r->dropped += r->len - r->pos;
	r->pos = r->len;
	r->ended = true;
}

steer_status journal_read_next(journal_reader *r, journal_item *item, char *err, size_t errlen)
{
	memset(item, 0, sizeof *item);
	item->kind = JOURNAL_ITEM_END;
	while (!r->ended) {
		steer_journal_record rec;
		char why[200];
		steer_journal_read st =
		    steer_journal_next(r->buf, r->len, &r->pos, &rec, why, sizeof why);
		if (st == STEER_JOURNAL_OK && rec.type == STEER_JOURNAL_BEGIN) {
			r->pos -= rec.size;
			drop_rest(r, "a second BEGIN inside a log");
			break;
		}
		if (st == STEER_JOURNAL_OK) {
			r->records++;
			item->tick = rec.tick;
			if (rec.type == STEER_JOURNAL_MARK) {
				item->kind = JOURNAL_ITEM_MARK;
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
		if (st == STEER_JOURNAL_TORN) {
			drop_rest(r, why);
			break;
		}
		/* The end of this log: on to the next segment's. */
		if (r->cur + 1 >= r->nsegs) {
			r->ended = true;
			break;
		}
		bool invalid;
		char lerr[400];
		uint8_t flags;
		size_t next = r->cur + 1;
		if (load_log(r, next, &invalid, lerr, sizeof lerr) != 0 ||
		    read_begin(r, &flags) != 0) {
			r->cur = next;
			drop_rest(r, "a segment without a readable log");
			break;
		}
		if (flags & STEER_JOURNAL_BEGIN_CONTINUES)
			continue; /* the same history: its checkpoint is the world as it stands */
		if (!r->segs[next].ckpt) {
			drop_rest(r, "a replaced world whose checkpoint was never written");
			break;
		}
		item->world = checkpoint_world(r, next, err, errlen);
		if (!item->world)
			return STEER_ERR_IO;
		item->kind = JOURNAL_ITEM_WORLD;
		item->paused = flags & STEER_JOURNAL_BEGIN_PAUSED;
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

/* Steps s's world up to tick t. STEER_OK, or a failure with err. */
static steer_status step_to(steer_session *s, uint64_t t, char *err, size_t errlen)
{
	uint64_t now = steer_world_tick(s->world);
	if (now > t) {
		snprintf(err, errlen,
		         "the journal goes back in time: a record at tick %llu after tick %llu",
		         (unsigned long long)t, (unsigned long long)now);
		return STEER_ERR_INVALID;
	}
	for (; now < t; now++) {
		s->health_valid = false;
		if (steer_world_step(s->world) != STEER_OK) {
			snprintf(err, errlen, "out of memory stepping to tick %llu",
			         (unsigned long long)t);
			return STEER_ERR_NOMEM;
		}
	}
	return STEER_OK;
}

/* One pending command: its tick and where its line is in the pending lines. */
typedef struct pending {
	uint64_t tick;
	size_t off, len;
} pending;

steer_status journal_read_apply(journal_reader *r, steer_session *s, const steer_host *h,
                                uint64_t until, journal_applied *out, char *err, size_t errlen)
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
			steer_world *w = it.world;
			steer_world_set_max_vehicles(
			    w, steer_world_config_get(s->world)->max_vehicles);
			if (steer_world_set_threads(w, steer_world_threads(s->world)) != STEER_OK) {
				steer_world_destroy(w);
				st = STEER_ERR_NOMEM;
				snprintf(err, errlen, "cannot start the world's threads");
				break;
			}
			steer_world_set_simd(w, steer_world_simd(s->world));
			steer_world_destroy(s->world);
			s->world = w;
			s->paused = it.paused;
			s->health_valid = false;
			out->replaced++;
			if (h && h->rate_changed)
				h->rate_changed(h->ud);
			continue;
		}
		/* A mark: the batch before it is whole. */
		for (size_t i = 0; i < np && st == STEER_OK; i++) {
			const char *line = lines.data + p[i].off;
			if ((st = step_to(s, p[i].tick, err, errlen)) != STEER_OK)
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
			if (steer_cmd_exec(&cmd, s, h, &reply) != STEER_OK) {
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
			st = step_to(s, it.tick, err, errlen);
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

int journal_read_dir(const char *what, const char *data_dir, char *out, size_t n, char *err,
                     size_t errlen)
{
	int k;
	if (strchr(what, '/')) {
		k = snprintf(out, n, "%s", what);
	} else if (!data_dir) {
		snprintf(err, errlen,
		         "no data directory to find the journal '%s' in: give --data-dir "
		         "or a path",
		         what);
		return -1;
	} else if (!strcmp(what, "live")) {
		k = snprintf(out, n, "%s/journal", data_dir);
	} else if (steer_save_name_ok(what)) {
		k = snprintf(out, n, "%s/journals/%s", data_dir, what);
	} else {
		snprintf(err, errlen,
		         "'%s' is not a journal: give live, the name of one in %s/journals, or a "
		         "directory's path",
		         what, data_dir);
		return -1;
	}
	if (k < 0 || (size_t)k >= n) {
		snprintf(err, errlen, "the journal's path is too long");
		return -1;
	}
	return 0;
}
