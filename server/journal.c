#include "journal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "child.h"
#include "conn.h"
#include "history.h"
#include "journal_read.h"
#include "log.h"
#include "savefile.h"
#include "serve.h"
#include "server.h"
#include "statedir.h"
#include "journal_format.h"
#include "storage.h"

/* Ticks without a command are marked at most this often (ms): a crash then loses at
 * most this much of an idle run, and a running world writes ten marks a second rather
 * than one a tick. A batch with commands is marked at the next timer firing. */
#define MARK_EVERY_MS 100
/* While the journal fails, a fresh checkpoint (which makes it whole again) is tried
 * this often (ms), rather than every --checkpoint seconds. */
#define FAILING_RETRY_MS 1000

typedef enum op_kind {
	OP_WRITE,   /* append data; mark_tick is the batch's mark */
	OP_SEGMENT, /* close the log, open segment seg's, expect its checkpoint from pid */
} op_kind;

typedef struct op {
	struct op *next;
	op_kind kind;
	steer_strbuf data;
	uint64_t seq; /* OP_WRITE: the batch number, for held replies */
	uint64_t mark_tick;
	uint64_t queued_ms;
	/* OP_SEGMENT */
	uint64_t seg;
	pid_t pid;
	uint64_t begin_tick;
	uint8_t begin_flags;
	uint64_t fail_gen;
	bool keep; /* keep the older segments as keep_as rather than drop them */
	char keep_as[STEER_NAME_MAX + 1];
} op;

/* A checkpoint's child the writer waits for. */
typedef struct pending_ckpt {
	uint64_t seg;
	pid_t pid;
	bool fresh;        /* its log does not continue the one before */
	bool no_log;       /* its log could not be started: the checkpoint is not kept */
	uint64_t fail_gen; /* failures before it started */
	bool keep;
	char keep_as[STEER_NAME_MAX + 1];
} pending_ckpt;

#define MAX_PENDING_CKPT 8

/* A reply held until its batch is durable (--journal-fsync always). */
typedef struct held {
	struct held *next;
	conn *c; /* NULL: it left */
	steer_command cmd;
	uint32_t request_id;
	steer_reply reply;
	uint64_t seq;
} held;

struct journal {
	server *srv;
	char dir[4096], named[4096]; /* <data dir>/journal, <data dir>/journals */
	journal_fsync mode;
	uint64_t checkpoint_ms;
	uint64_t checkpoint_bytes; /* a log this long gets a checkpoint; 0: never */
	uint64_t named_max_bytes;  /* the named journals' bound (--journals-max-mb) */
	uint64_t seg_bytes;        /* handed over since the newest segment started */
	uint64_t refused;          /* commands refused while failing (fsync always) */
	uint64_t not_durable;      /* replies turned into errors: ran, not durable */
	uint64_t busy_waits;       /* new histories that waited for a checkpoint to end */
	uint64_t child_seg;        /* the newest segment whose checkpoint child was forked */
	/* The loop's side. */
	steer_strbuf batch; /* records since the last mark */
	steer_strbuf words; /* the staged command line */
	bool staged;
	uint64_t staged_tick; /* the world's tick before the command ran: its stamp */
	/* The world the staged command ran on, and whether it was replaced since (a
	 * rewind): such a command is a replacement, not a record. */
	const steer_world *staged_world;
	/* The world's tick as of the last command, tick or slice: kept so that the batch
	 * before a world replacement is marked with the old world's tick. */
	uint64_t tick_now;
	uint64_t loop_ns; /* the loop's time in the journal, for stats (and its benchmark) */
	uint64_t last_mark_tick;
	bool marked_once;
	uint64_t last_mark_ms, last_ckpt_ms;
	uint64_t seg;       /* the newest segment's number */
	uint64_t batch_seq; /* batches handed over */
	uint64_t ckpt_seq;  /* batch_seq when the newest segment started */
	held *held, **held_tail;
	uv_async_t async;
	bool stopped;
	bool was_failing; /* the loop's view, for its notices */
	/* Shared with the writer, under mu. */
	pthread_mutex_t mu;
	/* Held by the writer while it works (it allocates, opens directories, logs) and
	 * by the loop around each fork: a child must not start with another thread
	 * inside the allocator, whose lock it would wait on for ever (a sanitizer's
	 * allocator does not prepare itself for fork as glibc's does). */
	pthread_mutex_t fork_mu;
	pthread_cond_t cv;
	pthread_t thread;
	op *q, **q_tail;
	bool quit;
	bool reap_now; /* a command waits for a checkpoint's child: reap it at once */
	uint64_t durable_seq, durable_tick, bytes, queued_bytes, oldest_queued_ms;
	bool failing, need_fresh;
	uint64_t fail_gen;                /* failures so far */
	int ckpt_pending;                 /* the writer's nckpt, for the loop */
	uint64_t done_seg;                /* the newest segment whose checkpoint child has ended */
	uint64_t named_bytes, live_bytes; /* on the disk, as of the last checkpoint */
	char error[256];
	/* The writer's own. */
	int fd;
	uint64_t fd_seg;
	bool dirty;
	uint64_t dirty_seq, dirty_tick;
	struct timespec synced_at;
	pending_ckpt ckpt[MAX_PENDING_CKPT];
	int nckpt;
	/* A history to keep whose checkpoint failed: the next durable one keeps it. */
	char carry_keep[STEER_NAME_MAX + 1];
};

/* --- helpers ------------------------------------------------------------------------ */

/* The calling thread's CPU time: the loop's cost of the journal, not counting the
 * time another thread or process had the core. */
static uint64_t thread_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static int fsync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return -1;
	int rc = fsync(fd);
	close(fd);
	return rc;
}

/* Removes every segment file (and left-over temporary) of dir numbered below `below`;
 * or, with to, moves them into to. */
static void move_segments(const char *dir, uint64_t below, const char *to)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	for (struct dirent *de; (de = readdir(d));) {
		const char *n = de->d_name, *ext;
		uint64_t num;
		if (!journal_segment_name(n, &num, &ext) || num >= below)
			continue;
		char from[4400], dest[4400];
		snprintf(from, sizeof from, "%s/%s", dir, n);
		if (to && !strstr(ext, ".tmp")) {
			snprintf(dest, sizeof dest, "%s/%s", to, n);
			if (rename(from, dest) != 0)
				steer_log(STEER_LOG_WARN, "journal: cannot move %s to %s: %s", from,
				          to, strerror(errno));
		} else if (unlink(from) != 0) {
			steer_log(STEER_LOG_WARN, "journal: cannot remove %s: %s", from,
			          strerror(errno));
		}
	}
	closedir(d);
}

/* Removes a named journal's directory (flat: segment files only). */
static void remove_named(const char *path)
{
	DIR *d = opendir(path);
	if (d) {
		for (struct dirent *de; (de = readdir(d));) {
			if (de->d_name[0] == '.')
				continue;
			char f[4400];
			snprintf(f, sizeof f, "%s/%s", path, de->d_name);
			unlink(f);
		}
		closedir(d);
	}
	if (rmdir(path) != 0 && errno != ENOENT)
		steer_log(STEER_LOG_WARN, "journal: cannot remove %s: %s", path, strerror(errno));
}

/* The bytes of the plain files in dir (flat). */
static uint64_t dir_bytes(const char *dir)
{
	uint64_t sum = 0;
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	for (struct dirent *de; (de = readdir(d));) {
		char p[4400];
		struct stat st;
		snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
		if (de->d_name[0] != '.' && stat(p, &st) == 0 && S_ISREG(st.st_mode))
			sum += (uint64_t)st.st_size;
	}
	closedir(d);
	return sum;
}

/* Keeps at most JOURNAL_KEEP_NAMED named journals, of at most max_bytes together: the
 * least recently changed go first, never a recovered-* one (what a recovery dropped
 * is evidence: only a person removes it). Returns the bytes kept, all counted. */
static uint64_t bound_named(const char *named, uint64_t max_bytes)
{
	for (;;) {
		DIR *d = opendir(named);
		if (!d)
			return 0;
		int count = 0;
		uint64_t bytes = 0, all = 0;
		char oldest[256] = "";
		time_t oldest_t = 0;
		for (struct dirent *de; (de = readdir(d));) {
			if (!steer_save_name_ok(de->d_name))
				continue;
			char p[4400];
			struct stat st;
			snprintf(p, sizeof p, "%s/%s", named, de->d_name);
			if (stat(p, &st) != 0 || !S_ISDIR(st.st_mode))
				continue;
			uint64_t b = dir_bytes(p);
			all += b;
			if (!strncmp(de->d_name, "recovered-", 10))
				continue;
			count++;
			bytes += b;
			if (!oldest[0] || st.st_mtime < oldest_t) {
				oldest_t = st.st_mtime;
				snprintf(oldest, sizeof oldest, "%s", de->d_name);
			}
		}
		closedir(d);
		if (count <= JOURNAL_KEEP_NAMED && (!max_bytes || bytes <= max_bytes || count <= 1))
			return all;
		char p[4400];
		snprintf(p, sizeof p, "%s/%s", named, oldest);
		steer_log(STEER_LOG_INFO,
		          "journal: removing the named journal '%s' (more than %d kept, or more "
		          "than %llu MB: --journals-max-mb)",
		          oldest, JOURNAL_KEEP_NAMED,
		          (unsigned long long)(max_bytes / (1024 * 1024)));
		remove_named(p);
	}
}

static bool is_dir(const char *p);

/* --- the writer thread ---------------------------------------------------------------- */

/* The journal fails from here until a checkpoint succeeds; msg says why (logged once). */
static void set_failing_msg(journal *j, const char *msg)
{
	pthread_mutex_lock(&j->mu);
	bool was = j->failing;
	j->failing = true;
	j->need_fresh = true;
	j->fail_gen++;
	snprintf(j->error, sizeof j->error, "%s", msg);
	pthread_mutex_unlock(&j->mu);
	if (!was)
		steer_log(STEER_LOG_ERROR,
		          "journal: %s; the server carries on without a durable journal until a "
		          "checkpoint succeeds",
		          msg);
}

/* As set_failing_msg, the message fmt with `what` and errno's text. */
static void set_failing(journal *j, const char *fmt, const char *what)
{
	char msg[sizeof j->error];
	snprintf(msg, sizeof msg, fmt, what, strerror(errno));
	set_failing_msg(j, msg);
}

static void sync_now(journal *j)
{
	if (!j->dirty || j->fd < 0)
		return;
	if (j->mode != JOURNAL_FSYNC_NO && fdatasync(j->fd) != 0) {
		set_failing(j, "cannot fsync the log in %s: %s", j->dir);
		return;
	}
	clock_gettime(CLOCK_MONOTONIC, &j->synced_at);
	j->dirty = false;
	pthread_mutex_lock(&j->mu);
	j->durable_seq = j->dirty_seq;
	j->durable_tick = j->dirty_tick;
	pthread_mutex_unlock(&j->mu);
}

static void op_write(journal *j, op *o)
{
	if (j->fd >= 0 && storage_write_all(j->fd, o->data.data, o->data.len) != 0) {
		set_failing(j, "cannot write the log in %s: %s", j->dir);
		close(j->fd);
		j->fd = -1; /* what was written may end torn: nothing more goes after it */
	}
	pthread_mutex_lock(&j->mu);
	j->bytes += o->data.len;
	j->queued_bytes -= o->data.len;
	pthread_mutex_unlock(&j->mu);
	j->dirty = true;
	j->dirty_seq = o->seq;
	j->dirty_tick = o->mark_tick;
	if (j->mode == JOURNAL_FSYNC_ALWAYS)
		sync_now(j);
}

static void reap_ckpts(journal *j, bool wait);

static void op_segment(journal *j, op *o)
{
	sync_now(j);
	if (j->fd >= 0) {
		/* The old log ends whole before the new one exists: a reader may go on
		 * from one to the next. */
		if (fsync(j->fd) != 0)
			set_failing(j, "cannot fsync the log in %s: %s", j->dir);
		close(j->fd);
		j->fd = -1;
	}
	char path[4200], err[300];
	if (steer_make_dirs(j->dir, err, sizeof err) != 0)
		set_failing_msg(j, err); /* it names the part that failed, and why */
	journal_segment_path(path, sizeof path, j->dir, o->seg, "log");
	steer_strbuf b;
	steer_strbuf_init(&b);
	steer_journal_header(&b);
	steer_journal_begin(&b, o->begin_tick, o->begin_flags);
	int fd = b.oom ? -1 : open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0 || storage_write_all(fd, b.data, b.len) != 0 || fsync(fd) != 0 ||
	    fsync_dir(j->dir) != 0) {
		set_failing(j, "cannot start a log in %s: %s", j->dir);
		if (fd >= 0)
			close(fd);
		fd = -1;
	}
	pthread_mutex_lock(&j->mu);
	j->bytes += b.len;
	pthread_mutex_unlock(&j->mu);
	steer_strbuf_free(&b);
	j->fd = fd;
	j->fd_seg = o->seg;
	if (o->pid > 0 && j->nckpt < MAX_PENDING_CKPT) {
		pending_ckpt *p = &j->ckpt[j->nckpt++];
		pthread_mutex_lock(&j->mu);
		j->ckpt_pending = j->nckpt;
		pthread_mutex_unlock(&j->mu);
		*p = (pending_ckpt){.seg = o->seg,
		                    .pid = o->pid,
		                    .fresh = !(o->begin_flags & STEER_JOURNAL_BEGIN_CONTINUES),
		                    .no_log = fd < 0,
		                    .fail_gen = o->fail_gen,
		                    .keep = o->keep};
		snprintf(p->keep_as, sizeof p->keep_as, "%s", o->keep_as);
	} else if (o->pid > 0) {
		waitpid(o->pid, NULL, 0); /* more pending than kept: wait for this one */
		pthread_mutex_lock(&j->mu);
		if (o->seg > j->done_seg)
			j->done_seg = o->seg;
		pthread_mutex_unlock(&j->mu);
	}
	/* With fsync always, a replaced world's checkpoint is durable before anything
	 * after it is answered: without it, nothing after the replacement could be
	 * recovered. */
	if (j->mode == JOURNAL_FSYNC_ALWAYS && !(o->begin_flags & STEER_JOURNAL_BEGIN_CONTINUES))
		reap_ckpts(j, true);
	/* Everything before the segment is durable only when it started whole (and, for
	 * a new history under fsync always, its checkpoint too). */
	pthread_mutex_lock(&j->mu);
	bool whole = j->fd >= 0 && (!j->failing || j->fail_gen == o->fail_gen);
	if (whole && j->mode == JOURNAL_FSYNC_ALWAYS &&
	    !(o->begin_flags & STEER_JOURNAL_BEGIN_CONTINUES))
		whole = !j->failing;
	if (whole)
		j->durable_seq = o->seq;
	pthread_mutex_unlock(&j->mu);
}

/* A checkpoint's child ended: its file takes its final name, and the segments before
 * it are dropped or kept as a named journal. */
static void ckpt_done(journal *j, pending_ckpt *p, int wstatus)
{
	char tmp[4200], final[4200];
	journal_segment_path(tmp, sizeof tmp, j->dir, p->seg, "steer.tmp");
	journal_segment_path(final, sizeof final, j->dir, p->seg, "steer");
	if (p->no_log || !WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0) {
		/* Without its log a checkpoint would end the history before it: it is not
		 * kept (the log's failure was reported when it happened). */
		unlink(tmp);
		if (p->keep && p->keep_as[0] && !j->carry_keep[0])
			snprintf(j->carry_keep, sizeof j->carry_keep, "%s", p->keep_as);
		if (p->no_log)
			return;
		errno = WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 2 ? ENOSPC : EIO;
		set_failing(j, "the checkpoint in %s could not be written: %s", j->dir);
		return;
	}
	if (rename(tmp, final) != 0 || fsync_dir(j->dir) != 0) {
		set_failing(j, "cannot name the checkpoint in %s: %s", j->dir);
		return;
	}
	pthread_mutex_lock(&j->mu);
	if (j->failing && p->fresh && p->fail_gen == j->fail_gen) {
		/* A history started afresh after the last failure, with nothing failing
		 * since: the journal is whole again from here. */
		j->failing = false;
		j->need_fresh = false;
		j->error[0] = '\0';
	}
	pthread_mutex_unlock(&j->mu);
	if (j->carry_keep[0] && !(p->keep && p->keep_as[0])) {
		/* Never dropped for want of a checkpoint: kept under the name it had. */
		p->keep = true;
		snprintf(p->keep_as, sizeof p->keep_as, "%s", j->carry_keep);
	}
	j->carry_keep[0] = '\0';
	if (p->keep && p->keep_as[0]) {
		char to[4400], tmpdir[4400];
		snprintf(to, sizeof to, "%s/%s", j->named, p->keep_as);
		snprintf(tmpdir, sizeof tmpdir, "%s/.%s.tmp", j->named, p->keep_as);
		char err[200];
		remove_named(tmpdir);
		if (steer_make_dirs(tmpdir, err, sizeof err) != 0) {
			steer_log(STEER_LOG_WARN, "journal: cannot keep the old history: %s", err);
			move_segments(j->dir, p->seg, NULL);
			return;
		}
		move_segments(j->dir, p->seg, tmpdir);
		fsync_dir(tmpdir);
		remove_named(to);
		if (rename(tmpdir, to) != 0)
			steer_log(STEER_LOG_WARN, "journal: cannot name %s: %s", to,
			          strerror(errno));
		fsync_dir(j->named);
		fsync_dir(j->dir);
		steer_log(STEER_LOG_INFO,
		          "journal: the history before it is kept as the journal '%s'", p->keep_as);
	} else {
		move_segments(j->dir, p->seg, NULL);
		fsync_dir(j->dir);
	}
	/* What the journals hold on the disk, bounded and told in stats. */
	uint64_t named = bound_named(j->named, j->named_max_bytes), live = dir_bytes(j->dir);
	pthread_mutex_lock(&j->mu);
	j->named_bytes = named;
	j->live_bytes = live;
	pthread_mutex_unlock(&j->mu);
}

static void reap_ckpts(journal *j, bool wait)
{
	for (int i = 0; i < j->nckpt;) {
		int wstatus = 0;
		pid_t r;
		/* A wait for a child may be long: the loop may fork meanwhile (the writer
		 * holds fork_mu here, and neither allocates nor logs while it waits). */
		if (wait)
			pthread_mutex_unlock(&j->fork_mu);
		do
			r = waitpid(j->ckpt[i].pid, &wstatus, wait ? 0 : WNOHANG);
		while (r < 0 && errno == EINTR);
		if (wait)
			pthread_mutex_lock(&j->fork_mu);
		if (r == 0) {
			i++;
			continue;
		}
		if (r < 0)
			wstatus = 1 << 8; /* gone without a status: treat as failed */
		pending_ckpt p = j->ckpt[i];
		memmove(&j->ckpt[i], &j->ckpt[i + 1], (size_t)(j->nckpt - i - 1) * sizeof *j->ckpt);
		j->nckpt--;
		pthread_mutex_lock(&j->mu);
		j->ckpt_pending = j->nckpt;
		if (p.seg > j->done_seg)
			j->done_seg = p.seg;
		pthread_mutex_unlock(&j->mu);
		ckpt_done(j, &p, wstatus);
	}
}

static void *writer_main(void *arg)
{
	journal *j = arg;
	pthread_mutex_lock(&j->mu);
	for (;;) {
		while (!j->q && !j->quit && !j->reap_now) {
			struct timespec until;
			clock_gettime(CLOCK_REALTIME, &until);
			/* Woken at once only when a reply waits (always) or a segment
			 * starts; else batches are taken ten times a second, so the loop
			 * wakes no thread per tick. A checkpoint under way is checked on
			 * the same beat; a dirty log is synced within the second. */
			long ms = 100;
			until.tv_nsec += ms * 1000000L;
			until.tv_sec += until.tv_nsec / 1000000000L;
			until.tv_nsec %= 1000000000L;
			if (pthread_cond_timedwait(&j->cv, &j->mu, &until) == ETIMEDOUT)
				break;
		}
		op *list = j->q;
		j->q = NULL;
		j->q_tail = &j->q;
		bool quit = j->quit;
		j->reap_now = false;
		pthread_mutex_unlock(&j->mu);
		pthread_mutex_lock(&j->fork_mu);
		uint64_t before = j->durable_seq;
		while (list) {
			op *o = list;
			list = o->next;
			if (o->kind == OP_WRITE)
				op_write(j, o);
			else
				op_segment(j, o);
			steer_strbuf_free(&o->data);
			free(o);
		}
		if (j->dirty && j->mode == JOURNAL_FSYNC_EVERYSEC) {
			struct timespec now;
			clock_gettime(CLOCK_MONOTONIC, &now);
			double since = (double)(now.tv_sec - j->synced_at.tv_sec) +
			               (double)(now.tv_nsec - j->synced_at.tv_nsec) / 1e9;
			if (since >= 1.0 || quit)
				sync_now(j);
		} else if (j->dirty && j->mode == JOURNAL_FSYNC_NO) {
			sync_now(j); /* no fsync: written is as durable as it gets */
		}
		reap_ckpts(j, quit);
		pthread_mutex_unlock(&j->fork_mu);
		pthread_mutex_lock(&j->mu);
		/* Replies wait for durability, or, when the journal is failing, for
		 * nothing any more. */
		if (j->durable_seq != before || (j->failing && j->mode == JOURNAL_FSYNC_ALWAYS))
			uv_async_send(&j->async);
		if (quit && !j->q) {
			if (j->fd >= 0) {
				fsync(j->fd);
				close(j->fd);
				j->fd = -1;
			}
			break;
		}
	}
	pthread_mutex_unlock(&j->mu);
	uv_async_send(&j->async);
	return NULL;
}

/* --- the loop's side ------------------------------------------------------------------ */

static void push(journal *j, op *o)
{
	pthread_mutex_lock(&j->mu);
	if (o->kind == OP_WRITE) {
		if (j->queued_bytes == 0)
			j->oldest_queued_ms = o->queued_ms;
		j->queued_bytes += o->data.len;
	}
	*j->q_tail = o;
	j->q_tail = &o->next;
	o->next = NULL;
	if (j->mode == JOURNAL_FSYNC_ALWAYS || o->kind == OP_SEGMENT)
		pthread_cond_signal(&j->cv);
	pthread_mutex_unlock(&j->mu);
}

/* Closes the batch with a mark of the world's tick and hands it over. */
static void flush(journal *j, bool force)
{
	/* The tick of the world the batch's records went to; a world swapped in since
	 * (start_segment) has its own. */
	uint64_t tick = j->tick_now;
	uint64_t now = uv_now(j->srv->loop);
	bool moved = !j->marked_once || tick != j->last_mark_tick;
	if (j->batch.len == 0 && !(moved && (force || now - j->last_mark_ms >= MARK_EVERY_MS)))
		return;
	steer_journal_mark(&j->batch, tick);
	op *o = calloc(1, sizeof *o);
	if (!o || j->batch.oom) {
		free(o);
		steer_strbuf_clear(&j->batch);
		pthread_mutex_lock(&j->mu);
		j->failing = j->need_fresh = true;
		j->fail_gen++;
		snprintf(j->error, sizeof j->error, "out of memory for the journal's batch");
		pthread_mutex_unlock(&j->mu);
		return;
	}
	o->kind = OP_WRITE;
	j->seg_bytes += j->batch.len;
	o->data = j->batch; /* the batch's buffer moves to the writer */
	steer_strbuf_init(&j->batch);
	o->seq = ++j->batch_seq;
	o->mark_tick = tick;
	o->queued_ms = now;
	j->last_mark_tick = tick;
	j->marked_once = true;
	j->last_mark_ms = now;
	push(j, o);
}

/* Child side: writes w as segment seg's checkpoint under its temporary name and syncs
 * it. Exit status 0 when it is whole on the disk. */
/* w: NULL for the server's whole world (server_gather_for_fork). */
static void ckpt_child(journal *j, uint64_t seg, const steer_world *w, pid_t parent)
{
	child_begin(parent, -1);
	char err[512];
	if (!w && !(w = server_forked_world(j->srv, err, sizeof err)))
		_exit(1);
	char *data;
	size_t len;
	if (steer_save_encode(w, &data, &len) != STEER_OK)
		_exit(1);
	char path[4200];
	journal_segment_path(path, sizeof path, j->dir, seg, "steer.tmp");
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		_exit(errno == ENOSPC ? 2 : 1);
	if (storage_write_all(fd, data, len) != 0 || fsync(fd) != 0)
		_exit(errno == ENOSPC ? 2 : 1);
	_exit(close(fd) == 0 ? 0 : 1);
}

/* Starts segment j->seg + 1 with w as its checkpoint (NULL: the server's whole world,
 * gathered for the fork). */
static void start_segment(journal *j, const steer_world *w, bool continues, bool keep,
                          const char *keep_as)
{
	flush(j, true);
	op *o = calloc(1, sizeof *o);
	if (!o) {
		pthread_mutex_lock(&j->mu);
		j->failing = j->need_fresh = true;
		j->fail_gen++;
		snprintf(j->error, sizeof j->error, "out of memory for a checkpoint");
		pthread_mutex_unlock(&j->mu);
		return;
	}
	pthread_mutex_lock(&j->mu);
	if (j->need_fresh)
		continues = false;
	j->need_fresh = false;
	o->fail_gen = j->fail_gen;
	pthread_mutex_unlock(&j->mu);
	uint64_t seg = ++j->seg;
	pid_t parent = getpid();
	pthread_mutex_lock(&j->fork_mu);
	pid_t pid = fork();
	if (pid == 0)
		ckpt_child(j, seg, w, parent);
	pthread_mutex_unlock(&j->fork_mu);
	if (pid < 0) {
		int e = errno;
		steer_log(STEER_LOG_ERROR, "journal: cannot fork for a checkpoint: %s",
		          strerror(e));
		pthread_mutex_lock(&j->mu);
		j->failing = j->need_fresh = true;
		j->fail_gen++;
		snprintf(j->error, sizeof j->error, "cannot fork for a checkpoint: %s",
		         strerror(e));
		pthread_mutex_unlock(&j->mu);
	}
	if (pid > 0)
		j->child_seg = seg;
	o->kind = OP_SEGMENT;
	o->seq = j->ckpt_seq = ++j->batch_seq;
	o->seg = seg;
	o->pid = pid;
	uint64_t tick = steer_world_tick(w ? w : j->srv->session.world);
	o->begin_tick = tick;
	o->begin_flags = (uint8_t)((j->srv->session.paused ? STEER_JOURNAL_BEGIN_PAUSED : 0) |
	                           (continues ? STEER_JOURNAL_BEGIN_CONTINUES : 0));
	o->keep = keep;
	snprintf(o->keep_as, sizeof o->keep_as, "%s", keep_as ? keep_as : "");
	j->last_ckpt_ms = uv_now(j->srv->loop);
	j->seg_bytes = 0;
	push(j, o);
	/* The BEGIN marks w's tick: the next batch goes on from it. */
	j->tick_now = j->last_mark_tick = tick;
	j->marked_once = true;
}

/* The replies held for batches now durable. */
static void on_async(uv_async_t *a)
{
	journal *j = a->data;
	pthread_mutex_lock(&j->mu);
	uint64_t durable = j->durable_seq;
	bool failing = j->failing;
	pthread_mutex_unlock(&j->mu);
	while (j->held && (j->held->seq <= durable || failing || j->stopped)) {
		held *h = j->held;
		j->held = h->next;
		if (!j->held)
			j->held_tail = &j->held;
		if (h->seq > durable && h->reply.ok) {
			/* fsync always promises that OK means durable: this one is not. */
			char why[256];
			pthread_mutex_lock(&j->mu);
			snprintf(why, sizeof why, "%s",
			         j->error[0] ? j->error : "the server stopped");
			pthread_mutex_unlock(&j->mu);
			steer_reply_fail(&h->reply,
			                 "%s ran, but the journal could not make it durable (%s): "
			                 "it will not survive a crash",
			                 h->cmd.entry->name, why);
			j->not_durable++;
		}
		if (h->c)
			conn_job_done(h->c, &h->cmd, h->request_id, &h->reply);
		steer_reply_free(&h->reply);
		free(h);
	}
}

static uint64_t newest_segment(const char *dir, bool *any)
{
	uint64_t max = 0;
	*any = false;
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	for (struct dirent *de; (de = readdir(d));) {
		const char *n = de->d_name, *ext;
		uint64_t v;
		if (!journal_segment_name(n, &v, &ext))
			continue;
		if (strstr(ext, ".tmp")) {
			char p[4400];
			snprintf(p, sizeof p, "%s/%s", dir, n);
			unlink(p); /* a checkpoint killed mid-write */
			continue;
		}
		*any = true;
		if (v > max)
			max = v;
	}
	closedir(d);
	return max;
}

/* start_segment with the server's whole world: over ranks, its vehicles gathered here
 * and the world built in the child. */
static void checkpoint_whole(journal *j, bool continues, bool keep, const char *keep_as)
{
	if (server_gather_for_fork(j->srv) != 0) {
		pthread_mutex_lock(&j->mu);
		j->failing = j->need_fresh = true;
		j->fail_gen++;
		snprintf(j->error, sizeof j->error,
		         "the world could not be gathered from the ranks for a checkpoint");
		pthread_mutex_unlock(&j->mu);
		return;
	}
	start_segment(j, NULL, continues, keep, keep_as);
}

/* Two starts within a second: the second's name gets a number, so that it never
 * replaces the first's. */
static void unique_in(const char *named, char *keep_as, size_t n)
{
	size_t base = strlen(keep_as);
	for (int k = 2; k < 1000; k++) {
		char p[4400];
		snprintf(p, sizeof p, "%s/%s", named, keep_as);
		if (!is_dir(p))
			break;
		snprintf(keep_as + base, n - base, "-%d", k);
	}
}

journal *journal_open(server *s, const char *recovered_keep_as)
{
	const server_options *o = &s->opt;
	if (!o->journal || !o->data_dir)
		return NULL;
	journal *j = calloc(1, sizeof *j);
	if (!j) {
		steer_log(STEER_LOG_ERROR, "journal: out of memory; running without one");
		return NULL;
	}
	j->srv = s;
	j->mode = (journal_fsync)o->journal_fsync;
	j->checkpoint_ms = (uint64_t)(o->checkpoint * 1000.0);
	j->checkpoint_bytes = (uint64_t)(o->checkpoint_mb * 1024.0 * 1024.0);
	j->named_max_bytes = (uint64_t)(o->journals_max_mb * 1024.0 * 1024.0);
	j->fd = -1;
	j->held_tail = &j->held;
	j->q_tail = &j->q;
	steer_strbuf_init(&j->batch);
	steer_strbuf_init(&j->words);
	snprintf(j->dir, sizeof j->dir, "%s/journal", o->data_dir);
	snprintf(j->named, sizeof j->named, "%s/journals", o->data_dir);
	char err[300];
	/* A directory that cannot be made is the writer's failure to report (stats,
	 * one log line); it tries again at each checkpoint. */
	if (steer_make_dirs(j->dir, err, sizeof err) == 0)
		steer_make_dirs(j->named, err, sizeof err);
	bool any;
	j->seg = newest_segment(j->dir, &any);
	/* An old journal this start did not recover from is kept, never dropped. */
	char keep_as[STEER_NAME_MAX + 1] = "";
	if (any && !o->recover) {
		time_t t = time(NULL);
		struct tm tm;
		gmtime_r(&t, &tm);
		strftime(keep_as, sizeof keep_as, "before-%Y%m%d-%H%M%S", &tm);
		unique_in(j->named, keep_as, sizeof keep_as);
		steer_log(STEER_LOG_INFO,
		          "journal: %s holds a journal this start did not recover from: it will "
		          "be kept as the journal '%s' once this start's first checkpoint is "
		          "written (start with --recover to continue it instead)",
		          j->dir, keep_as);
	} else if (any && recovered_keep_as && recovered_keep_as[0]) {
		/* The recovery dropped some of it: the evidence stays, as it was. */
		snprintf(keep_as, sizeof keep_as, "%s", recovered_keep_as);
		unique_in(j->named, keep_as, sizeof keep_as);
		steer_log(STEER_LOG_INFO,
		          "journal: the journal recovered from will be kept, as it was, as the "
		          "journal '%s' once this start's first checkpoint is written",
		          keep_as);
	}
	pthread_mutex_init(&j->mu, NULL);
	pthread_mutex_init(&j->fork_mu, NULL);
	pthread_cond_init(&j->cv, NULL);
	clock_gettime(CLOCK_MONOTONIC, &j->synced_at);
	int rc = uv_async_init(s->loop, &j->async, on_async);
	if (rc == 0) {
		j->async.data = j;
		rc = pthread_create(&j->thread, NULL, writer_main, j);
		if (rc != 0)
			uv_close((uv_handle_t *)&j->async, NULL);
	}
	if (rc != 0) {
		steer_log(STEER_LOG_ERROR, "journal: cannot start its writer; running without one");
		pthread_mutex_destroy(&j->mu);
		pthread_mutex_destroy(&j->fork_mu);
		pthread_cond_destroy(&j->cv);
		free(j);
		return NULL;
	}
	j->tick_now = steer_world_tick(s->session.world);
	checkpoint_whole(j, false, keep_as[0] != '\0', keep_as);
	static const char *modes[] = {"always", "everysec", "no"};
	steer_log(STEER_LOG_INFO, "journal in %s (fsync %s, a checkpoint every %g s)", j->dir,
	          modes[j->mode], o->checkpoint);
	return j;
}

void journal_stop(journal *j)
{
	if (!j || j->stopped)
		return;
	j->tick_now = steer_world_tick(j->srv->session.world);
	flush(j, true);
	pthread_mutex_lock(&j->mu);
	j->quit = true;
	pthread_cond_signal(&j->cv);
	pthread_mutex_unlock(&j->mu);
	pthread_join(j->thread, NULL);
	j->stopped = true;
	on_async(&j->async); /* every batch is as durable as it gets: answer */
	uv_close((uv_handle_t *)&j->async, NULL);
}

void journal_free(journal *j)
{
	if (!j)
		return;
	while (j->q) {
		op *o = j->q;
		j->q = o->next;
		steer_strbuf_free(&o->data);
		free(o);
	}
	steer_strbuf_free(&j->batch);
	steer_strbuf_free(&j->words);
	pthread_mutex_destroy(&j->mu);
	pthread_mutex_destroy(&j->fork_mu);
	pthread_cond_destroy(&j->cv);
	free(j);
}

/* The words now in j->words are the command about to run, on the world as it is. */
static void stage(journal *j)
{
	j->staged = true;
	j->staged_tick = steer_world_tick(j->srv->session.world);
	j->staged_world = j->srv->session.world;
}

void journal_words(journal *j, int argc, char **words)
{
	if (!j)
		return;
	steer_strbuf_clear(&j->words);
	steer_journal_join(&j->words, argc, words);
	stage(j);
}

void journal_proto_words(journal *j, const steer_Command *cmd)
{
	if (!j)
		return;
	steer_strbuf_clear(&j->words);
	if (steer_wire_command_words(cmd, &j->words) != STEER_OK)
		j->words.oom = true;
	stage(j);
}

/* What the journal records: changes to the world that the command itself makes. */
static bool journalled(const steer_command *cmd)
{
	const char *n = cmd->entry->name;
	/* rewind and goto-tick move through the history the journal holds: what they
	 * lead to is recorded as a fork, if anything is changed there. */
	return steer_cmd_writes(cmd) && strcmp(n, "save") && strcmp(n, "step") &&
	       strcmp(n, "auth") && strcmp(n, "name") && strcmp(n, "load") && strcmp(n, "rewind") &&
	       strcmp(n, "goto-tick");
}

bool journal_command(journal *j, conn *c, const steer_command *cmd, uint32_t request_id,
                     steer_reply *reply)
{
	if (!j)
		return false;
	bool staged = j->staged;
	j->staged = false;
	if (!reply->ok || !journalled(cmd) || j->stopped)
		return false;
	/* A command that swapped the world object is recorded by the
	 * journal_world_replaced that follows it, as a new segment. A fork of history
	 * (a change made after a rewind) starts a segment from the world before the
	 * change, and the change is recorded in it like any command. */
	if (staged && j->srv->session.world != j->staged_world)
		return false;
	if (!staged || j->words.oom || j->words.len == 0) {
		steer_log(STEER_LOG_ERROR,
		          "journal: the words of '%s' were not kept; it is not in the journal",
		          cmd->entry->name);
		pthread_mutex_lock(&j->mu);
		j->failing = j->need_fresh = true;
		j->fail_gen++;
		snprintf(j->error, sizeof j->error, "a command was not recorded");
		pthread_mutex_unlock(&j->mu);
		return false;
	}
	uint64_t t0 = thread_ns();
	/* Stamped with the tick it ran at: reset and scenario have moved it since. */
	/* Behind the live tick with no fork (a pause or resume there), the journal's
	 * history is still the live one: the command goes at its live tick. */
	uint64_t stamp = j->staged_tick;
	if (history_past(j->srv->history))
		stamp = history_live_tick(j->srv->history, j->srv->session.world);
	steer_journal_command(&j->batch, stamp, j->words.data, j->words.len);
	j->tick_now = steer_world_tick(j->srv->session.world);
	j->loop_ns += thread_ns() - t0;
	if (j->mode != JOURNAL_FSYNC_ALWAYS || !c)
		return false;
	/* Flushed at once, rather than at the next tick: the reply waits only for the
	 * disk. */
	return journal_hold(j, c, cmd, request_id, reply);
}

/* Whether cmd changes the world (or the session the journal records). */
static bool changes_world(const steer_command *cmd)
{
	const char *n = cmd->entry->name;
	return steer_cmd_writes(cmd) && strcmp(n, "save") && strcmp(n, "auth") && strcmp(n, "name");
}

bool journal_refuses(journal *j, const steer_command *cmd, steer_reply *reply)
{
	if (!j || j->stopped || j->mode != JOURNAL_FSYNC_ALWAYS || !changes_world(cmd))
		return false;
	pthread_mutex_lock(&j->mu);
	bool failing = j->failing;
	char why[256];
	snprintf(why, sizeof why, "%s", j->error);
	pthread_mutex_unlock(&j->mu);
	if (!failing)
		return false;
	j->refused++;
	steer_reply_fail(reply,
	                 "refused: the journal cannot make changes durable (%s); with "
	                 "--journal-fsync always no change is taken until it can (stats: "
	                 "journal.failing)",
	                 why);
	return true;
}

/* Whether a checkpoint's child forked by the loop has not ended yet (the writer may
 * not have taken its segment yet). With mu held. */
static bool child_running_locked(const journal *j)
{
	return j->ckpt_pending > 0 || j->done_seg < j->child_seg;
}

static bool journal_child_running(journal *j)
{
	pthread_mutex_lock(&j->mu);
	bool running = child_running_locked(j);
	pthread_mutex_unlock(&j->mu);
	return running;
}

bool journal_busy(journal *j, const steer_command *cmd, bool fork_history, bool again)
{
	if (!j || j->stopped || (!fork_history && strcmp(cmd->entry->name, "load")))
		return false;
	if (!journal_child_running(j))
		return false;
	j->busy_waits += !again;
	/* The writer reaps the child on its next beat: now, rather than in 100 ms. */
	pthread_mutex_lock(&j->mu);
	j->reap_now = true;
	pthread_cond_signal(&j->cv);
	pthread_mutex_unlock(&j->mu);
	return true;
}

const steer_strbuf *journal_staged(const journal *j)
{
	return j ? &j->words : NULL;
}

void journal_restage(journal *j, const char *line, size_t len)
{
	if (!j)
		return;
	steer_strbuf_clear(&j->words);
	steer_strbuf_put(&j->words, line, len);
	stage(j);
}

/* Tells the log and every client when the journal starts or stops failing. */
/* Every tick: failing as the writer last set it, read under the same lock as the
 * rest of journal_tick's view; the reason is copied only when the state changed. */
static void tell_failing(journal *j, bool failing)
{
	if (failing == j->was_failing)
		return;
	char why[256];
	pthread_mutex_lock(&j->mu);
	snprintf(why, sizeof why, "%s", j->error);
	pthread_mutex_unlock(&j->mu);
	j->was_failing = failing;
	char what[400];
	if (failing)
		snprintf(what, sizeof what, "is failing (%s): %s", why,
		         j->mode == JOURNAL_FSYNC_ALWAYS
		             ? "changes are refused until it works again"
		             : "changes made now will not survive a crash until it works again");
	else
		snprintf(what, sizeof what, "works again: changes are durable from here");
	conn_announce(j->srv, NULL, "the journal", what);
}

bool journal_hold(journal *j, conn *c, const steer_command *cmd, uint32_t request_id,
                  steer_reply *reply)
{
	if (!j || !c || j->stopped || j->mode != JOURNAL_FSYNC_ALWAYS)
		return false;
	j->tick_now = steer_world_tick(j->srv->session.world);
	flush(j, true); /* a step's last ticks, marked */
	held *h = malloc(sizeof *h);
	if (!h)
		return false; /* answered at once: durable with the next batch */
	h->next = NULL;
	h->c = c;
	h->cmd = *cmd;
	h->request_id = request_id;
	h->reply = *reply; /* the reply's buffer moves here */
	steer_reply_init(reply);
	h->seq = j->batch_seq; /* everything handed to the writer so far */
	*j->held_tail = h;
	j->held_tail = &h->next;
	c->busy = true; /* what it sends next waits for this reply, as behind a job */
	return true;
}

void journal_tick(journal *j)
{
	if (!j || j->stopped)
		return;
	uint64_t t0 = thread_ns();
	j->tick_now = steer_world_tick(j->srv->session.world);
	flush(j, false);
	uint64_t now = uv_now(j->srv->loop);
	pthread_mutex_lock(&j->mu);
	bool failing = j->failing, running = child_running_locked(j);
	pthread_mutex_unlock(&j->mu);
	tell_failing(j, failing);
	/* Due by time, by the log's size (recovery reads the log since the last one), or,
	 * while failing, soon: a fresh checkpoint makes the journal whole again. */
	bool due = (j->checkpoint_ms && now - j->last_ckpt_ms >= j->checkpoint_ms) ||
	           (j->checkpoint_bytes && j->seg_bytes >= j->checkpoint_bytes) ||
	           (failing && now - j->last_ckpt_ms >= FAILING_RETRY_MS);
	/* One checkpoint at a time: a world too big to save in a period gets one as often
	 * as it can. None when nothing was recorded since the last (a paused, idle
	 * server): it would save the same world again. */
	if (due && !running && (j->batch_seq != j->ckpt_seq || failing))
		checkpoint_whole(j, true, false, NULL);
	j->loop_ns += thread_ns() - t0;
}

void journal_world_replaced(journal *j, const steer_world *w, const char *keep_as)
{
	if (!j || j->stopped)
		return;
	uint64_t t0 = thread_ns();
	start_segment(j, w, false, keep_as != NULL, keep_as);
	j->loop_ns += thread_ns() - t0;
}

void journal_fork_begin(journal *j)
{
	if (j)
		pthread_mutex_lock(&j->fork_mu);
}

void journal_fork_end(journal *j)
{
	if (j)
		pthread_mutex_unlock(&j->fork_mu);
}

void journal_unique_name(journal *j, char *name, size_t n)
{
	if (!j)
		return;
	char base[STEER_NAME_MAX + 1], path[4400];
	snprintf(base, sizeof base, "%s", name);
	for (unsigned k = 2; k < 10000; k++) {
		snprintf(path, sizeof path, "%s/journals/%s", j->srv->opt.data_dir, name);
		if (!is_dir(path))
			return;
		snprintf(name, n, "%.50s-%u", base, k);
	}
}

void journal_conn_gone(journal *j, conn *c)
{
	if (!j)
		return;
	for (held *h = j->held; h; h = h->next)
		if (h->c == c)
			h->c = NULL;
}

void journal_stats(journal *j, steer_strbuf *json)
{
	if (!j) {
		steer_strbuf_puts(json, ",\"journal\":{\"on\":false}");
		return;
	}
	static const char *modes[] = {"always", "everysec", "no"};
	pthread_mutex_lock(&j->mu);
	uint64_t bytes = j->bytes, durable = j->durable_tick, queued = j->queued_bytes;
	uint64_t oldest = j->oldest_queued_ms;
	uint64_t durable_seq = j->durable_seq;
	bool failing = j->failing, dirty_lag = durable_seq < j->batch_seq;
	uint64_t named = j->named_bytes, live = j->live_bytes;
	char error[256];
	snprintf(error, sizeof error, "%s", j->error);
	pthread_mutex_unlock(&j->mu);
	uint64_t now = uv_now(j->srv->loop);
	uint64_t lag = dirty_lag && queued ? now - oldest : 0;
	steer_strbuf_printf(
	    json,
	    ",\"journal\":{\"on\":true,\"fsync\":\"%s\",\"bytes\":%llu,"
	    "\"durable_tick\":%llu,\"batches\":%llu,\"durable_batches\":%llu,"
	    "\"lag_ms\":%llu,\"segment\":%llu,\"segment_bytes\":%llu,"
	    "\"checkpoint_bytes\":%llu,\"refused\":%llu,\"not_durable\":%llu,"
	    "\"busy_waits\":%llu,\"checkpoint_running\":%s,"
	    "\"disk_bytes\":%llu,\"named_bytes\":%llu,"
	    "\"loop_cpu_ms\":%.3f,\"failing\":%s,\"error\":",
	    modes[j->mode], (unsigned long long)bytes, (unsigned long long)durable,
	    (unsigned long long)j->batch_seq, (unsigned long long)durable_seq,
	    (unsigned long long)lag, (unsigned long long)j->seg, (unsigned long long)j->seg_bytes,
	    (unsigned long long)j->checkpoint_bytes, (unsigned long long)j->refused,
	    (unsigned long long)j->not_durable, (unsigned long long)j->busy_waits,
	    journal_child_running(j) ? "true" : "false", (unsigned long long)live,
	    (unsigned long long)named, (double)j->loop_ns / 1e6, failing ? "true" : "false");
	steer_json_str(json, error);
	steer_strbuf_puts(json, "}");
}

/* --- recovery -------------------------------------------------------------------------- */

static bool is_dir(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

int journal_recover(const server_options *o, steer_session *s, char *keep_as, size_t keep_n)
{
	char dir[4200], what[200];
	keep_as[0] = '\0';
	if (o->recover) {
		if (!o->data_dir) {
			steer_log(STEER_LOG_ERROR,
			          "--recover: no data directory (give --data-dir)");
			return -1;
		}
		snprintf(dir, sizeof dir, "%s/journal", o->data_dir);
		snprintf(what, sizeof what, "--recover");
	} else if (o->restore && o->data_dir) {
		snprintf(dir, sizeof dir, "%s/journals/%s", o->data_dir, o->restore);
		if (!steer_save_name_ok(o->restore) || !is_dir(dir))
			return 1; /* a save, or nothing: --restore as before */
		char save[4200];
		snprintf(save, sizeof save, "%s/%s.steer", o->data_dir, o->restore);
		if (access(save, F_OK) == 0) {
			steer_log(
			    STEER_LOG_ERROR,
			    "--restore %s: both a save (%s) and a journal (%s) have that name; "
			    "rename or remove one of them",
			    o->restore, save, dir);
			return -1;
		}
		snprintf(what, sizeof what, "--restore %s", o->restore);
	} else {
		return 1;
	}
	char err[512];
	journal_reader *r = journal_read_open(dir, JOURNAL_FROM_NEWEST, err, sizeof err);
	if (!r) {
		steer_log(STEER_LOG_ERROR, "%s: %s; the server does not start", what, err);
		return -1;
	}
	if (o->accept_loss)
		journal_read_accept_loss(r);
	bool paused = false;
	steer_world *w = journal_read_world(r, &paused, err, sizeof err);
	if (!w) {
		steer_log(STEER_LOG_ERROR, "%s: %s; the server does not start", what, err);
		journal_read_close(r);
		return -1;
	}
	uint64_t from = steer_world_tick(w);
	steer_world_set_max_vehicles(w, o->max_vehicles);
	if (steer_world_set_threads(w, o->threads) != STEER_OK) {
		steer_log(STEER_LOG_ERROR, "%s: cannot start %d threads", what, o->threads);
		steer_world_destroy(w);
		journal_read_close(r);
		return -1;
	}
	s->world = w;
	s->paused = paused;
	journal_applied a;
	steer_status st = journal_read_apply(r, s, NULL, JOURNAL_UNTIL_END, &a, err, sizeof err);
	const char *why;
	uint64_t dropped = journal_read_dropped(r, &why);
	if (st != STEER_OK) {
		bool damaged = journal_read_damaged(r);
		steer_log(STEER_LOG_ERROR, "%s: %s; the server does not start%s", what, err,
		          damaged ? ". To start from what comes before the damage, add "
		                    "--accept-loss (the journal is then kept, as it is, under "
		                    "journals/recovered-...)"
		                  : "");
		journal_read_close(r);
		steer_world_destroy(s->world);
		s->world = NULL;
		return -1;
	}
	bool damaged = journal_read_damaged(r);
	if ((dropped || damaged) && o->recover) {
		time_t t = time(NULL);
		struct tm tm;
		gmtime_r(&t, &tm);
		strftime(keep_as, keep_n, "recovered-%Y%m%d-%H%M%S", &tm);
	}
	steer_log(damaged ? STEER_LOG_WARN : STEER_LOG_INFO,
	          "%s: recovered tick %llu from the checkpoint at tick %llu: %llu commands, "
	          "%llu marks, %llu worlds replaced; %llu commands after the last mark and %llu "
	          "torn bytes dropped%s%s; %s",
	          what, (unsigned long long)steer_world_tick(s->world), (unsigned long long)from,
	          (unsigned long long)a.records, (unsigned long long)a.marks,
	          (unsigned long long)a.replaced, (unsigned long long)a.dropped,
	          (unsigned long long)dropped, why[0] ? " - " : "", why,
	          s->paused ? "paused" : "running");
	journal_read_close(r);
	return 0;
}
