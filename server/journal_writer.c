/* The journal's writer thread: it appends and fsyncs the loop's batches, starts each
 * segment's log and waits for its checkpoint's child, and trims old segments and named
 * journals. What the loop and the writer share: journal_internal.h. */
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
#include "format_cut.h"
#include "history.h"
#include "journal_format.h"
#include "journal_internal.h"
#include "journal_read.h"
#include "log.h"
#include "savefile.h"
#include "serve.h"
#include "server.h"
#include "statedir.h"
#include "storage.h"

/* --- helpers ------------------------------------------------------------------------ */

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

/* Removes a named journal's directory (flat: segment files only). False, said in
 * the log, when it is still there: something else in it, or no permission. */
static bool remove_named(const char *path)
{
	DIR *d = opendir(path);
	if (d) {
		for (struct dirent *de; (de = readdir(d));) {
			if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
				continue;
			char f[4400];
			snprintf(f, sizeof f, "%s/%s", path, de->d_name);
			unlink(f);
		}
		closedir(d);
	}
	if (rmdir(path) == 0 || errno == ENOENT)
		return true;
	steer_log(STEER_LOG_WARN,
	          "journal: cannot remove %s: %s; the named journals are left over their bound "
	          "until it goes",
	          path, strerror(errno));
	return false;
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
		if (!remove_named(p))
			return all; /* it would be the oldest again, for ever */
	}
}

bool journal_is_dir(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

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
	steer_format_cut(msg, sizeof msg, fmt, what, strerror(errno)); /* a long directory's */
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

/* Whether an in-place checkpoint is done, waiting until it is when wait. */
static bool inplace_done(journal *j, inplace_ckpt *ip, bool wait)
{
	pthread_mutex_lock(&j->mu);
	while (wait && !ip->done)
		pthread_cond_wait(&j->ckpt_cv, &j->mu);
	bool done = ip->done;
	pthread_mutex_unlock(&j->mu);
	return done;
}

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
	if (steer_make_dirs(j->dir, err, sizeof err) != STEER_OK)
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
	if (o->pid > 0 || o->ip) {
		/* More pending than kept: those finish first, each as usual (renamed,
		 * kept as asked), so that this one can wait its turn like them. */
		if (j->nckpt == MAX_PENDING_CKPT)
			reap_ckpts(j, true);
		pending_ckpt *p = &j->ckpt[j->nckpt++];
		pthread_mutex_lock(&j->mu);
		j->ckpt_pending = j->nckpt;
		pthread_mutex_unlock(&j->mu);
		*p = (pending_ckpt){.seg = o->seg,
		                    .pid = o->pid,
		                    .ip = o->ip,
		                    .fresh = !(o->begin_flags & STEER_JOURNAL_BEGIN_CONTINUES),
		                    .no_log = fd < 0,
		                    .fail_gen = o->fail_gen,
		                    .keep = o->keep};
		snprintf(p->keep_as, sizeof p->keep_as, "%s", o->keep_as);
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
		if (p->ip) { /* its own words: they name the file and what failed */
			char msg[sizeof p->ip->why + 64];
			snprintf(msg, sizeof msg, "the checkpoint could not be written: %s",
			         p->ip->why);
			set_failing_msg(j, msg);
			return;
		}
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
		if (steer_make_dirs(tmpdir, err, sizeof err) != STEER_OK) {
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
	/* Oldest first, and none past one still running: a checkpoint done drops the
	 * segments before it, the files an older one is still writing among them. */
	while (j->nckpt > 0) {
		int wstatus = 0;
		pid_t r;
		/* A wait for a child may be long: the loop may fork meanwhile (the writer
		 * holds fork_mu here, and neither allocates nor logs while it waits). */
		if (wait)
			pthread_mutex_unlock(&j->fork_mu);
		inplace_ckpt *ip = j->ckpt[0].ip;
		if (ip) {
			r = inplace_done(j, ip, wait) ? 1 : 0;
			if (r) /* read once done: the loop is through with it */
				wstatus = ip->ok ? 0 : 1 << 8;
		} else {
			do
				r = waitpid(j->ckpt[0].pid, &wstatus, wait ? 0 : WNOHANG);
			while (r < 0 && errno == EINTR);
		}
		if (wait)
			pthread_mutex_lock(&j->fork_mu);
		if (r == 0)
			return;
		if (r < 0)
			wstatus = 1 << 8; /* gone without a status: treat as failed */
		pending_ckpt p = j->ckpt[0];
		memmove(&j->ckpt[0], &j->ckpt[1], (size_t)(j->nckpt - 1) * sizeof *j->ckpt);
		j->nckpt--;
		pthread_mutex_lock(&j->mu);
		j->ckpt_pending = j->nckpt;
		if (p.seg > j->done_seg)
			j->done_seg = p.seg;
		pthread_mutex_unlock(&j->mu);
		ckpt_done(j, &p, wstatus);
		free(p.ip);
	}
}

void *journal_writer_main(void *arg)
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
