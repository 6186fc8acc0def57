#include "journal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
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
#include "journal_format.h"
#include "journal_internal.h"
#include "journal_read.h"
#include "log.h"
#include "ranks.h"
#include "ranks_save.h"
#include "savefile.h"
#include "serve.h"
#include "server.h"
#include "statedir.h"
#include "storage.h"

/* The calling thread's CPU time: the loop's cost of the journal, not counting the
 * time another thread or process had the core. */
static uint64_t thread_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
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

/* The journal's records go on at the world's tick, unless the world is behind the
 * live tick (after a rewind), replaying history the journal holds: a mark there
 * would go back in time, and no recovery could read past it. */
static void take_tick(journal *j)
{
	if (!j->srv->history || !history_past(j->srv->history))
		j->tick_now = steer_world_tick(j->srv->session.world);
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
static void ckpt_child(journal *j, uint64_t seg, const steer_world *w, pid_t parent)
{
	child_begin(parent, -1);
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

/* --- a checkpoint over ranks, in place ----------------------------------------------- */

/* The in-place checkpoint ended (rc 0: whole on the disk): the writer, which waits for
 * it as for a child, names it and frees ip. */
static void inplace_end(inplace_ckpt *ip, int rc, const char *why)
{
	journal *j = ip->j;
	ranks_save_close(ip->sv);
	ip->sv = NULL;
	for (inplace_ckpt **pp = &j->inplace; *pp; pp = &(*pp)->next)
		if (*pp == ip) {
			*pp = ip->next;
			break;
		}
	pthread_mutex_lock(&j->mu);
	ip->ok = rc == 0;
	snprintf(ip->why, sizeof ip->why, "%s", rc == 0 ? "" : why);
	ip->done = true;
	j->reap_now = true; /* named at once */
	pthread_cond_broadcast(&j->ckpt_cv);
	pthread_cond_signal(&j->cv);
	pthread_mutex_unlock(&j->mu); /* ip may be freed from here on */
}

static void on_inplace_wrote(void *ud)
{
	inplace_ckpt *ip = ud;
	char err[400];
	int rc = ranks_save_advance(ip->sv, ip->j->srv->loop, server_save_budget(ip->j->srv),
	                            on_inplace_wrote, ip, err, sizeof err);
	if (rc <= 0)
		inplace_end(ip, rc, err);
}

/* The rest of the checkpoint written now, on the loop (the stop; or too many under
 * way for another). */
static void inplace_finish(inplace_ckpt *ip)
{
	char err[400];
	int rc = ranks_save_finish_now(ip->sv, NULL, err, sizeof err);
	inplace_end(ip, rc, err);
}

/* Segment seg's checkpoint written over the ranks in place, from the world as it is
 * now, the steps on the loop. NULL when out of memory. */
static inplace_ckpt *inplace_start(journal *j, uint64_t seg)
{
	/* A save may need a slot of the ranks' too: the oldest checkpoint ends first. */
	size_t running = 0;
	for (inplace_ckpt *ip = j->inplace; ip; ip = ip->next)
		running++;
	while (running-- >= RANKS_SAVES - 1) {
		inplace_ckpt *oldest = j->inplace;
		while (oldest->next)
			oldest = oldest->next;
		inplace_finish(oldest);
	}
	inplace_ckpt *ip = calloc(1, sizeof *ip);
	if (!ip)
		return NULL;
	ip->j = j;
	char path[4200], err[400];
	journal_segment_path(path, sizeof path, j->dir, seg, "steer.tmp");
	ip->sv = ranks_save_open_file(j->srv->ranks, path, err, sizeof err);
	int rc = ip->sv ? ranks_save_advance(ip->sv, j->srv->loop, server_save_budget(j->srv),
	                                     on_inplace_wrote, ip, err, sizeof err)
	                : -1;
	ip->next = j->inplace;
	j->inplace = ip;
	if (rc <= 0)
		inplace_end(ip, rc, err);
	return ip;
}

/* Starts segment j->seg + 1 with w as its checkpoint (NULL: the server's world over
 * ranks, written in place). */
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
	pid_t pid = -1;
	inplace_ckpt *ip = NULL;
	const char *why = "cannot fork for a checkpoint";
	int e = ENOMEM;
	if (!w) {
		why = "out of memory for a checkpoint";
		ip = inplace_start(j, seg);
	} else {
		pid_t parent = getpid();
		pthread_mutex_lock(&j->fork_mu);
		pid = fork();
		if (pid == 0)
			ckpt_child(j, seg, w, parent);
		e = errno;
		pthread_mutex_unlock(&j->fork_mu);
	}
	if (pid < 0 && !ip) {
		steer_log(STEER_LOG_ERROR, "journal: %s: %s", why, strerror(e));
		pthread_mutex_lock(&j->mu);
		j->failing = j->need_fresh = true;
		j->fail_gen++;
		snprintf(j->error, sizeof j->error, "%s: %s", why, strerror(e));
		pthread_mutex_unlock(&j->mu);
	}
	if (pid > 0 || ip)
		j->child_seg = seg;
	o->kind = OP_SEGMENT;
	o->seq = j->ckpt_seq = ++j->batch_seq;
	o->seg = seg;
	o->pid = pid;
	o->ip = ip;
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

/* start_segment with the server's whole world: over ranks, written in place. */
static void checkpoint_whole(journal *j, bool continues, bool keep, const char *keep_as)
{
	start_segment(j, j->srv->ranks ? NULL : j->srv->session.world, continues, keep, keep_as);
}

/* Two starts within a second: the second's name gets a number, so that it never
 * replaces the first's. */
static void unique_in(const char *named, char *keep_as, size_t n)
{
	size_t base = strlen(keep_as);
	for (int k = 2; k < 1000; k++) {
		char p[4400];
		snprintf(p, sizeof p, "%s/%s", named, keep_as);
		if (!journal_is_dir(p))
			break;
		snprintf(keep_as + base, n - base, "-%d", k);
	}
}

/* A journal whose writer never started (h is its async handle, closed or never
 * opened): its locks and memory go. */
static void journal_free_unstarted(uv_handle_t *h)
{
	journal *j = (journal *)((char *)h - offsetof(journal, async));
	pthread_mutex_destroy(&j->mu);
	pthread_mutex_destroy(&j->fork_mu);
	pthread_cond_destroy(&j->cv);
	pthread_cond_destroy(&j->ckpt_cv);
	free(j);
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
	if (steer_make_dirs(j->dir, err, sizeof err) == STEER_OK)
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
	pthread_cond_init(&j->ckpt_cv, NULL);
	clock_gettime(CLOCK_MONOTONIC, &j->synced_at);
	int rc = uv_async_init(s->loop, &j->async, on_async);
	if (rc != 0) {
		steer_log(STEER_LOG_ERROR,
		          "journal: cannot start its writer (%s); running without one",
		          uv_strerror(rc));
		journal_free_unstarted((uv_handle_t *)&j->async);
		return NULL;
	}
	j->async.data = j;
	rc = pthread_create(&j->thread, NULL, journal_writer_main, j);
	if (rc != 0) {
		steer_log(STEER_LOG_ERROR,
		          "journal: cannot start its writer (%s); running without one",
		          strerror(rc));
		/* The handle's memory is j's: freed once libuv is through with it. */
		uv_close((uv_handle_t *)&j->async, journal_free_unstarted);
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
	take_tick(j);
	flush(j, true);
	/* The writer waits for checkpoints being written in place: they end here. */
	while (j->inplace)
		inplace_finish(j->inplace);
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
		free(o->ip); /* ended by journal_stop, never taken by the writer */
		free(o);
	}
	steer_strbuf_free(&j->batch);
	steer_strbuf_free(&j->words);
	pthread_mutex_destroy(&j->mu);
	pthread_mutex_destroy(&j->fork_mu);
	pthread_cond_destroy(&j->cv);
	pthread_cond_destroy(&j->ckpt_cv);
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
	take_tick(j);
	flush(j, true); /* a step's last ticks, marked */
	/* Nothing to wait for (a step through history the journal holds): answered now,
	 * unless replies held before it are still waiting. */
	pthread_mutex_lock(&j->mu);
	bool durable = j->durable_seq >= j->batch_seq && !j->failing;
	pthread_mutex_unlock(&j->mu);
	if (durable && !j->held)
		return false;
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
	if (w)
		start_segment(j, w, false, keep_as != NULL, keep_as);
	else
		checkpoint_whole(j, false, keep_as != NULL, keep_as);
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
		if (!journal_is_dir(path))
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
