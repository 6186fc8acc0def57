#include "jobs.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"
#include "conn.h"
#include "history.h"
#include "journal.h"
#include "log.h"
#include "ranks.h"
#include "ranks_save.h"
#include "savefile.h"
#include "server.h"
#include "session_cache.h"
#include "share.h"
#include "storage.h"

typedef enum job_kind {
	JOB_STEP,
	JOB_SAVE,
	JOB_LOAD,
	JOB_SEEK, /* rewind, goto-tick: ticked with the steps */
} job_kind;

/* The longest reply a save's child sends back: one line, "OK {...}" or "ERR ...". */
#define SAVE_REPLY_MAX 512

struct job {
	job *next;
	job_kind kind;
	server *srv;
	conn *c;      /* who waits for the reply; NULL: no one (autosave, or it left) */
	char who[96]; /* c's name for notices, kept for when it has left */
	steer_command cmd;
	uint32_t request_id;
	uint32_t done;      /* JOB_STEP: ticks run so far */
	history_seek *seek; /* JOB_SEEK */
	/* JOB_SAVE: the child writing the file, and the pipe its reply comes back on. */
	pid_t pid;
	uv_pipe_t pipe;
	char msg[SAVE_REPLY_MAX];
	size_t msg_len;
	/* ... over ranks, no child: the file written in place, a step at a time. */
	ranks_save *rsave;
	/* JOB_LOAD: filled on the thread pool, read back on the loop. */
	uv_work_t work;
	steer_world *loaded;
	/* Over ranks: the file, checked here and read in pieces by the ranks on the
	 * loop (ranks_load). */
	storage_file file;
	steer_save_stream *lead;
	uv_idle_t idle;     /* its pieces read, one a turn of the loop */
	bool ranks_loading; /* ... until the end, whose reply is this */
	bool idle_closing;  /* ... then given once the idle handle is closed */
	steer_reply reply;
	bool read_failed; /* the file could not be read, rather than decoded */
	bool abandoned;   /* the server stopped meanwhile: never swapped in */
	char err[600];
};

/* --- replies ---------------------------------------------------------------------- */

static void job_free(job *j)
{
	history_seek_abort(j->seek);
	free(j);
}

/* Delivers r to whoever waits, or logs a failure no one will read; frees the job. */
static void finish(job *j, steer_reply *r)
{
	if (j->c)
		conn_job_done(j->c, &j->cmd, j->request_id, r);
	else if (!r->ok)
		steer_log(STEER_LOG_ERROR, "%s", r->error); /* it names the command */
	steer_reply_free(r);
	job_free(j);
}

static void finish_err(job *j, const char *msg)
{
	steer_reply r;
	steer_reply_init(&r);
	steer_reply_fail(&r, "%s", msg);
	finish(j, &r);
}

static job *job_new(server *s, conn *c, const steer_command *cmd, uint32_t request_id)
{
	job *j = calloc(1, sizeof *j);
	if (!j)
		return NULL;
	j->srv = s;
	j->c = c;
	j->file.fd = -1;
	if (c)
		conn_display_name(c, j->who, sizeof j->who);
	j->cmd = *cmd;
	j->request_id = request_id;
	return j;
}

/* --- step --------------------------------------------------------------------------- */

/* Ticks for the steps under way, one at a time round the queue, until half a tick's
 * time is spent (at least one tick): the clock's own ticks and every client are
 * served in between, however many steps there are. */
static void on_step_idle(uv_idle_t *h)
{
	server *s = h->data;
	if (!s->steps) {
		uv_idle_stop(h);
		return;
	}
	double hz = steer_world_config_get(s->session.world)->tick_rate;
	uint64_t deadline = uv_hrtime() + (uint64_t)(0.5e9 / hz);
	do {
		job *j = s->steps;
		s->steps = j->next; /* unlinked first: finishing may start new jobs */
		j->next = NULL;
		if (!j->c) { /* its client left */
			job_free(j);
			continue;
		}
		char why[600];
		if (!server_before_tick(s, why, sizeof why)) {
			steer_reply r;
			steer_reply_init(&r);
			steer_reply_fail(&r, "step: stopped after %u of %u ticks: %s", j->done,
			                 j->cmd.count, why);
			finish(j, &r);
			continue;
		}
		steer_session_stale(&s->session);
		if (j->kind == JOB_SEEK) {
			if (!history_seek_run(j->seek, &s->session)) {
				job **tail = &s->steps;
				while (*tail)
					tail = &(*tail)->next;
				*tail = j;
				continue;
			}
			steer_reply r;
			steer_reply_init(&r);
			history_seek_end(j->seek, &s->session, &r, s->host.rate_changed,
			                 s->host.ud);
			j->seek = NULL;
			finish(j, &r);
			continue;
		}
		steer_status st = server_tick(s);
		if (st == STEER_OK && ++j->done < j->cmd.count) {
			job **tail = &s->steps;
			while (*tail)
				tail = &(*tail)->next;
			*tail = j;
			continue;
		}
		steer_reply r;
		steer_reply_init(&r);
		if (st != STEER_OK)
			steer_reply_fail(
			    &r, "the tick failed after %u ticks (the server's log says why)",
			    j->done);
		else
			steer_strbuf_printf(&r.json, "{\"tick\":%llu}",
			                    (unsigned long long)steer_world_tick(s->session.world));
		if (r.ok && journal_hold(s->journal, j->c, &j->cmd, j->request_id, &r))
			j->c = NULL; /* answered once its ticks are durable */
		finish(j, &r);
	} while (s->steps && uv_hrtime() < deadline);
	server_mark_ticks(s); /* the slice's ticks */
	if (!s->steps)
		uv_idle_stop(h);
}

/* --- save ------------------------------------------------------------------------- */

static void disk_next(server *s);

/* The disk job at the head of the queue ended: answered with r, and the next one
 * started. */
static void disk_done(server *s, job *j, steer_reply *r)
{
	s->disk_busy = false;
	if (s->disk == j)
		s->disk = j->next;
	finish(j, r);
	if (!s->stopping)
		disk_next(s);
}

/* Child side: the ordinary save command on the world as it was at the fork (one
 * process's: over ranks the save is written in place, below); its reply line goes back
 * through fd. Never returns. */
static void save_in_child(server *s, job *j, int fd, pid_t parent)
{
	child_begin(parent, fd);
	steer_reply r;
	steer_reply_init(&r);
	steer_host host = s->host;
	host.caller = NULL;
	steer_cmd_exec(&j->cmd, &s->session, &host, &r);
	steer_strbuf line;
	steer_strbuf_init(&line);
	steer_reply_text(&r, &line);
	int status = r.ok ? 0 : 1;
	if (line.oom || line.len >= SAVE_REPLY_MAX)
		status = 2;
	for (size_t off = 0; status != 2 && off < line.len;) {
		ssize_t k = write(fd, line.data + off, line.len - off);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		off += (size_t)k;
	}
	_exit(status); /* no atexit handlers, no flushing the parent's buffers twice */
}

/* The reply the child sent, or why there is none. */
static void save_reply(job *j, int wstatus, steer_reply *r)
{
	steer_reply_init(r);
	j->msg[j->msg_len] = '\0';
	if (j->msg_len >= 2 && !strncmp(j->msg, "OK", 2)) {
		if (j->msg_len > 3)
			steer_strbuf_puts(&r->json, j->msg + 3);
	} else if (j->msg_len > 4 && !strncmp(j->msg, "ERR ", 4)) {
		steer_reply_fail(r, "%s", j->msg + 4);
	} else if (WIFSIGNALED(wstatus)) {
		steer_reply_fail(
		    r,
		    "save %s: the process writing it was killed by signal %d; nothing was "
		    "written",
		    j->cmd.name, WTERMSIG(wstatus));
	} else {
		steer_reply_fail(r,
		                 "save %s: the process writing it gave no reply (exit status %d)",
		                 j->cmd.name, WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1);
	}
}

static int reap(pid_t pid)
{
	int wstatus = 0;
	while (pid > 0 && waitpid(pid, &wstatus, 0) < 0 && errno == EINTR)
		;
	return wstatus;
}

static void on_save_closed(uv_handle_t *h)
{
	job *j = h->data;
	server *s = j->srv;
	/* The pipe reached its end when the child exited: this does not wait. */
	int wstatus = reap(j->pid);
	steer_reply r;
	save_reply(j, wstatus, &r);
	disk_done(s, j, &r);
}

static void on_save_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
	job *j = h->data;
	(void)suggested;
	buf->base = j->msg + j->msg_len;
	buf->len = sizeof j->msg - 1 - j->msg_len;
}

static void on_save_read(uv_stream_t *stream, ssize_t n, const uv_buf_t *buf)
{
	job *j = stream->data;
	(void)buf;
	if (n > 0)
		j->msg_len += (size_t)n;
	if (n < 0 || j->msg_len == sizeof j->msg - 1)
		uv_close((uv_handle_t *)&j->pipe, on_save_closed);
}

/* --- a stop that waits for a save ----------------------------------------------------- */

static volatile sig_atomic_t stop_again;

static void on_stop_again(int sig)
{
	(void)sig;
	stop_again = 1;
}

/* libuv's signal handlers, set aside while the stop waits for a save. */
typedef struct stop_catch {
	struct sigaction term, intr;
	bool has_term, has_intr;
} stop_catch;

/* From here on SIGTERM or SIGINT sets stop_again: a save that never ends (a hung
 * disk) would otherwise leave only kill -9. The loop is not running, so libuv's
 * handlers are set aside until release_stop_again. */
static void catch_stop_again(stop_catch *c, const char *name)
{
	struct sigaction sa = {.sa_handler = on_stop_again};
	sigemptyset(&sa.sa_mask); /* no SA_RESTART: a wait returns EINTR */
	stop_again = 0;
	c->has_term = sigaction(SIGTERM, &sa, &c->term) == 0;
	c->has_intr = sigaction(SIGINT, &sa, &c->intr) == 0;
	if (!c->has_term || !c->has_intr)
		steer_log(STEER_LOG_WARN,
		          "cannot catch a second signal (%s): only kill -9 stops "
		          "the wait",
		          strerror(errno));
	steer_log(STEER_LOG_INFO, "waiting for save '%s' to end (SIGTERM again to stop it)", name);
}

static void release_stop_again(stop_catch *c)
{
	/* Putting back what sigaction handed out cannot fail. */
	if (c->has_term)
		(void)sigaction(SIGTERM, &c->term, NULL);
	if (c->has_intr)
		(void)sigaction(SIGINT, &c->intr, NULL);
}

/* --- save over ranks: in place, a step at a time ---------------------------------------- */

/* The reply of a save over ranks that ended (rc 0: the file is in place). */
static void ranks_save_reply(server *s, job *j, int rc, const char *why, steer_reply *r)
{
	steer_reply_init(r);
	uint64_t bytes = ranks_save_bytes(j->rsave);
	ranks_save_close(j->rsave);
	j->rsave = NULL;
	if (rc != 0) {
		steer_reply_fail(r, "save %s: %s; nothing was written", j->cmd.name, why);
		return;
	}
	steer_log(STEER_LOG_INFO, "saved '%s' (%llu bytes) in %s", j->cmd.name,
	          (unsigned long long)bytes, s->opt.data_dir);
	steer_strbuf_printf(&r->json, "{\"bytes\":%llu}", (unsigned long long)bytes);
}

static void on_ranks_save_wrote(void *ud)
{
	job *j = ud;
	server *s = j->srv;
	char why[400];
	int rc = ranks_save_advance(j->rsave, s->loop, server_save_budget(s), on_ranks_save_wrote,
	                            j, why, sizeof why);
	if (rc > 0)
		return; /* the next piece is being written */
	steer_reply r;
	ranks_save_reply(s, j, rc, why, &r);
	disk_done(s, j, &r);
}

/* 0: the save runs and on_ranks_save_wrote will answer; or -1 with the reason in
 * j->err. */
static int ranks_save_start(server *s, job *j)
{
	char why[400];
	j->rsave = ranks_save_open(s->ranks, s->opt.data_dir, j->cmd.name, why, sizeof why);
	int rc = j->rsave ? ranks_save_advance(j->rsave, s->loop, server_save_budget(s),
	                                       on_ranks_save_wrote, j, why, sizeof why)
	                  : -1;
	if (rc > 0)
		return 0;
	ranks_save_close(j->rsave);
	j->rsave = NULL;
	snprintf(j->err, sizeof j->err, "save %s: %s; nothing was written", j->cmd.name, why);
	return -1;
}

/* The stop: a save over ranks under way is written to its end here, and answered,
 * unless SIGTERM or SIGINT comes again meanwhile (as for a save's child). */
static void ranks_save_finish(server *s, job *j)
{
	char why[400];
	stop_catch c;
	catch_stop_again(&c, j->cmd.name);
	int rc = ranks_save_finish_now(j->rsave, &stop_again, why, sizeof why);
	release_stop_again(&c);
	if (rc != 0 && stop_again)
		steer_log(STEER_LOG_WARN, "save '%s' stopped before it ended", j->cmd.name);
	steer_reply r;
	ranks_save_reply(s, j, rc, why, &r);
	if (j->c)
		conn_job_done(j->c, &j->cmd, j->request_id, &r);
	else if (!r.ok)
		steer_log(STEER_LOG_ERROR, "%s", r.error);
	steer_reply_free(&r);
	job_free(j);
}

/* 0: the child runs and on_save_closed will answer; or -1 with the reason in j->err. */
static int save_start(server *s, job *j)
{
	if (s->ranks)
		return ranks_save_start(s, j);
	int fds[2];
	if (pipe(fds) != 0) {
		snprintf(j->err, sizeof j->err, "save %s: cannot make a pipe: %s", j->cmd.name,
		         strerror(errno));
		return -1;
	}
	int rc = uv_pipe_init(s->loop, &j->pipe, 0);
	if (rc != 0) {
		close(fds[0]);
		close(fds[1]);
		snprintf(j->err, sizeof j->err, "save %s: %s", j->cmd.name, uv_strerror(rc));
		return -1;
	}
	j->pipe.data = j;
	pid_t parent = getpid();
	journal_fork_begin(s->journal);
	pid_t pid = fork();
	if (pid == 0) {
		close(fds[0]);
		save_in_child(s, j, fds[1], parent);
	}
	journal_fork_end(s->journal);
	close(fds[1]);
	j->pid = pid;
	if (pid < 0)
		rc = uv_translate_sys_error(errno);
	else if ((rc = uv_pipe_open(&j->pipe, fds[0])) == 0)
		rc = uv_read_start((uv_stream_t *)&j->pipe, on_save_alloc, on_save_read);
	if (rc == 0)
		return 0;
	/* The handle exists: the job lives until it is closed, and answers then. */
	if (uv_fileno((uv_handle_t *)&j->pipe, &(uv_os_fd_t){0}) != 0)
		close(fds[0]);
	if (pid > 0) {
		kill(pid, SIGKILL);
		reap(pid);
		j->pid = 0;
	}
	j->msg_len = (size_t)snprintf(j->msg, sizeof j->msg, "ERR save %s: %s; nothing was written",
	                              j->cmd.name, uv_strerror(rc));
	uv_close((uv_handle_t *)&j->pipe, on_save_closed);
	return 0;
}

/* --- load ------------------------------------------------------------------------- */

/* Over ranks: the file opened and its frame and checksum checked here, so that a bad
 * one is refused without the ranks; its records are read on the loop. */
static void open_for_ranks(server *s, job *j)
{
	uint64_t size;
	if (storage_open(s->opt.data_dir, j->cmd.name, &j->file.fd, &size, j->err, sizeof j->err) !=
	    STEER_OK) {
		j->file.fd = -1;
		j->read_failed = true;
		return;
	}
	steer_save_source src = {size, storage_read_at, &j->file, 0};
	j->lead = steer_save_stream_source(&src, j->err, sizeof j->err);
}

static void close_file(job *j)
{
	steer_save_stream_free(j->lead);
	j->lead = NULL;
	if (j->file.fd >= 0)
		close(j->file.fd);
	j->file.fd = -1;
}

static void load_work(uv_work_t *w)
{
	job *j = w->data;
	server *s = j->srv;
	if (s->ranks) {
		open_for_ranks(s, j);
		return;
	}
	char *data = NULL;
	size_t len = 0;
	if (s->host.load(s->host.ud, j->cmd.name, &data, &len, j->err, sizeof j->err) != 0) {
		j->read_failed = true;
		return;
	}
	j->loaded = steer_save_decode(data, len, j->err, sizeof j->err);
	free(data);
}

/* The swap's reply and its consequences: history, steps, journal, notices; then the
 * reply (held for the journal when it must be) and the next disk job. */
static void answer_load(server *s, job *j, steer_reply *r, bool swapped)
{
	if (swapped) {
		history_after(s->history, &s->session, &j->cmd, r); /* history restarts */
		if (r->ok) {
			char what[128];
			snprintf(what, sizeof what, "loaded '%s'", j->cmd.name);
			jobs_world_replaced(s, j->who, what);
			/* Over ranks: gathered for the checkpoint's fork, as every one is. */
			journal_world_replaced(s->journal, s->ranks ? NULL : s->session.world,
			                       NULL);
		}
		/* The world changed under everyone: as with any load, they hear of it, even
		 * when the client that asked is gone and conn_job_done cannot say so. */
		if (r->ok && !j->c) {
			char what[128];
			snprintf(what, sizeof what, "loaded '%s' (it has left since)", j->cmd.name);
			conn_announce(s, NULL, j->who, what);
		}
	}
	close_file(j); /* a bad one's, not read on */
	if (r->ok && journal_hold(s->journal, j->c, &j->cmd, j->request_id, r))
		j->c = NULL; /* answered once its checkpoint is durable */
	disk_done(s, j, r);
}

/* --- load over ranks: in pieces, from the loop --------------------------------------- */

/* The load's steps run one piece a turn of the loop, so that clients are served and
 * the old world ticks between them, as a single process's load reads its file on the
 * thread pool; the new world replaces the old at the end. */
static void on_ranks_load_closed(uv_handle_t *h)
{
	job *j = h->data;
	server *s = j->srv;
	if (j->abandoned) { /* jobs_stop answered */
		close_file(j);
		free(j);
		return;
	}
	steer_reply r = j->reply;
	answer_load(s, j, &r, true);
}

static void on_ranks_load_step(uv_idle_t *idle)
{
	job *j = idle->data;
	server *s = j->srv;
	char err[512];
	if (ranks_load_step(s->ranks, err, sizeof err) > 0)
		return;
	uv_idle_stop(idle);
	double rate = steer_world_config_get(s->session.world)->tick_rate;
	steer_reply_init(&j->reply);
	if (ranks_load_end(s->ranks, err, sizeof err) != 0) {
		steer_reply_fail(&j->reply, "load %s: %s; the running world is unchanged",
		                 j->cmd.name, err);
	} else {
		const steer_world *w = s->session.world;
		steer_host host = s->host;
		if (steer_world_config_get(w)->tick_rate != rate && host.rate_changed)
			host.rate_changed(host.ud);
		steer_strbuf_printf(&j->reply.json, "{\"tick\":%llu,\"vehicles\":%zu}",
		                    (unsigned long long)steer_world_tick(w),
		                    steer_world_vehicles_total(w));
	}
	j->ranks_loading = false;
	j->idle_closing = true;
	uv_close((uv_handle_t *)idle, on_ranks_load_closed);
}

/* Starts the load's steps; false, with why in r, when it cannot start. */
static bool start_ranks_load(server *s, job *j, steer_reply *r)
{
	size_t max = steer_world_config_get(s->session.world)->max_vehicles;
	char err[512];
	if (ranks_load_begin(s->ranks, j->lead, max, false, err, sizeof err) != 0) {
		steer_reply_fail(r, "load %s: %s; the running world is unchanged", j->cmd.name,
		                 err);
		return false;
	}
	int rc = uv_idle_init(s->loop, &j->idle);
	if (rc == 0) {
		j->idle.data = j;
		j->ranks_loading = true;
		uv_idle_start(&j->idle, on_ranks_load_step);
		return true;
	}
	(void)ranks_load_end(s->ranks, err, sizeof err); /* abandoned: the old world stays */
	steer_reply_fail(r, "load %s: %s; the running world is unchanged", j->cmd.name,
	                 uv_strerror(rc));
	return false;
}

static void load_done(uv_work_t *w, int status)
{
	job *j = w->data;
	server *s = j->srv;
	if (j->abandoned) { /* the stop answered its client already */
		s->disk_busy = false;
		if (s->disk == j)
			s->disk = j->next;
		steer_world_destroy(j->loaded);
		close_file(j);
		free(j);
		return;
	}
	steer_reply r;
	steer_reply_init(&r);
	bool swapped = false;
	if (status != 0) {
		steer_world_destroy(j->loaded);
		steer_reply_fail(&r,
		                 "load %s: the server is stopping; the running world is unchanged",
		                 j->cmd.name);
	} else if (j->read_failed) {
		steer_reply_fail(&r, "load %s: %s; the running world is unchanged", j->cmd.name,
		                 j->err);
	} else if (!j->loaded && !j->lead) {
		steer_reply_fail(&r, "load %s: %s; the running world is unchanged", j->cmd.name,
		                 j->err);
	} else if (j->lead) {
		if (start_ranks_load(s, j, &r))
			return; /* on the loop, piece by piece; the queue waits */
	} else {
		steer_host host = s->host;
		host.caller = j->c;
		steer_cmd_load_swap(&j->cmd, &s->session, &host, j->loaded, &r);
		swapped = true;
	}
	answer_load(s, j, &r, swapped);
}

/* --- the queue of saves and loads -------------------------------------------------- */

/* Starts the job at the head of the queue unless one runs; one that cannot start is
 * answered and the next one tried. */
static void disk_next(server *s)
{
	while (s->disk && !s->disk_busy) {
		job *j = s->disk;
		int rc = 0;
		if (j->kind == JOB_SAVE) {
			rc = save_start(s, j);
		} else {
			j->work.data = j;
			int uvrc = uv_queue_work(s->loop, &j->work, load_work, load_done);
			if (uvrc != 0) {
				snprintf(j->err, sizeof j->err, "load %s: %s", j->cmd.name,
				         uv_strerror(uvrc));
				rc = -1;
			}
		}
		if (rc == 0) {
			s->disk_busy = true;
			return;
		}
		s->disk = j->next;
		finish_err(j, j->err);
	}
}

static void disk_push(server *s, job *j)
{
	job **pp = &s->disk;
	while (*pp)
		pp = &(*pp)->next;
	*pp = j;
	disk_next(s);
}

/* --- the interface ---------------------------------------------------------------- */

int jobs_init(server *s)
{
	int rc = uv_idle_init(s->loop, &s->step_idle);
	s->step_idle.data = s;
	return rc;
}

bool jobs_start(server *s, conn *c, const steer_command *cmd, uint32_t request_id)
{
	const char *name = cmd->entry->name;
	job_kind kind;
	if (s->ranks && (!strcmp(name, "rewind") || !strcmp(name, "goto-tick"))) {
		steer_reply r;
		steer_reply_init(&r);
		steer_reply_fail(
		    &r,
		    "%s is not available over MPI ranks: they keep no history (run on one "
		    "process to rewind)",
		    name);
		conn_job_done(c, cmd, request_id, &r);
		steer_reply_free(&r);
		return true;
	}
	if (!strcmp(name, "step"))
		kind = JOB_STEP;
	else if (!strcmp(name, "save"))
		kind = JOB_SAVE;
	else if (!strcmp(name, "load"))
		kind = JOB_LOAD;
	else if (!strcmp(name, "rewind") || !strcmp(name, "goto-tick"))
		kind = JOB_SEEK;
	else
		return false;
	job *j = s->stopping ? NULL : job_new(s, c, cmd, request_id);
	if (!j) {
		steer_reply r;
		steer_reply_init(&r);
		steer_reply_fail(&r, "%s; %s was not run",
		                 s->stopping ? "the server is stopping" : "out of memory", name);
		conn_job_done(c, cmd, request_id, &r);
		steer_reply_free(&r);
		return true;
	}
	j->kind = kind;
	if (kind == JOB_SEEK) {
		steer_reply r;
		steer_reply_init(&r);
		j->seek = history_seek_begin(s->history, &s->session, cmd, &r);
		if (!j->seek) { /* answered at once */
			finish(j, &r);
			return true;
		}
		steer_reply_free(&r);
	} else if (kind != JOB_STEP) {
		disk_push(s, j);
		return true;
	}
	j->next = s->steps;
	s->steps = j;
	int rc = uv_idle_start(&s->step_idle, on_step_idle);
	if (rc != 0) {
		s->steps = j->next;
		char msg[128];
		snprintf(msg, sizeof msg, "step: %s", uv_strerror(rc));
		finish_err(j, msg);
	}
	return true;
}

void jobs_autosave(server *s)
{
	/* Rewound, the world is a view of the past: the autosave keeps the live one it
	 * last saved (and the journal, the live history). */
	if (history_past(s->history))
		return;
	for (job *j = s->disk; j; j = j->next)
		if (j->kind == JOB_SAVE && !j->c && !strcmp(j->cmd.name, "autosave"))
			return;
	steer_command cmd;
	char err[128];
	if (steer_cmd_parse_line(&cmd, "save autosave", err, sizeof err) != STEER_OK) {
		steer_log(STEER_LOG_ERROR, "autosave: %s", err);
		return;
	}
	job *j = job_new(s, NULL, &cmd, 0);
	if (!j) {
		steer_log(STEER_LOG_ERROR, "autosave: out of memory");
		return;
	}
	j->kind = JOB_SAVE;
	disk_push(s, j);
}

void jobs_conn_gone(server *s, conn *c)
{
	for (job *j = s->steps; j; j = j->next)
		if (j->c == c)
			j->c = NULL; /* dropped on the next pass */
	for (job *j = s->disk; j; j = j->next)
		if (j->c == c)
			j->c = NULL;
}

/* Waits for a save's child on the way out, unless SIGTERM or SIGINT comes again
 * meanwhile: then the child is killed (its .tmp is removed at the next start). */
static int reap_unless_stopped_again(job *j)
{
	stop_catch c;
	catch_stop_again(&c, j->cmd.name);
	int wstatus = 0;
	bool killed = false;
	while (waitpid(j->pid, &wstatus, 0) < 0 && errno == EINTR)
		if (stop_again && !killed) {
			steer_log(STEER_LOG_WARN, "save '%s' stopped before it ended", j->cmd.name);
			kill(j->pid, SIGKILL);
			killed = true;
		}
	release_stop_again(&c);
	return wstatus;
}

/* Waits for a running save's child and answers for it, on the way out. */
static void save_wait(job *j)
{
	int wstatus = reap_unless_stopped_again(j);
	uv_os_fd_t fd;
	if (uv_fileno((uv_handle_t *)&j->pipe, &fd) == 0) {
		ssize_t k;
		/* The child has exited: what it wrote is all in the pipe, and read ends. */
		while (j->msg_len < sizeof j->msg - 1 &&
		       ((k = read(fd, j->msg + j->msg_len, sizeof j->msg - 1 - j->msg_len)) > 0 ||
		        (k < 0 && errno == EINTR)))
			if (k > 0)
				j->msg_len += (size_t)k;
	}
	j->pid = 0;
	steer_reply r;
	save_reply(j, wstatus, &r);
	if (j->c)
		conn_job_done(j->c, &j->cmd, j->request_id, &r);
	else if (!r.ok)
		steer_log(STEER_LOG_ERROR, "%s", r.error);
	steer_reply_free(&r);
}

static void on_save_closed_stopping(uv_handle_t *h)
{
	free(h->data);
}

/* Ends the steps under way with why. Steps that their ending starts (a client's next
 * command) are new: they stay. */
static void end_steps(server *s, const char *why)
{
	job *head = s->steps;
	s->steps = NULL;
	while (head) {
		job *j = head;
		head = j->next;
		char msg[224];
		if (j->kind == JOB_SEEK)
			snprintf(msg, sizeof msg, "%s: stopped: %s", j->cmd.entry->name, why);
		else
			snprintf(msg, sizeof msg, "step: stopped after %u of %u ticks: %s", j->done,
			         j->cmd.count, why);
		if (j->c)
			finish_err(j, msg);
		else
			job_free(j);
	}
}

void jobs_world_replaced(server *s, const char *who, const char *what)
{
	if (!s->steps)
		return;
	char why[160];
	snprintf(why, sizeof why, "%s %s", who, what);
	end_steps(s, why);
}

void jobs_stop(server *s)
{
	end_steps(s, "the server is stopping");
	while (s->steps) /* nothing starts once stopping, but never leave one behind */
		end_steps(s, "the server is stopping");
	uv_close((uv_handle_t *)&s->step_idle, NULL);
	job *head = s->disk;
	s->disk = NULL;
	for (job *j = head, *next; j; j = next) {
		next = j->next;
		if (j == head && s->disk_busy && j->kind == JOB_SAVE && j->rsave) {
			ranks_save_finish(s, j);
		} else if (j == head && s->disk_busy && j->kind == JOB_SAVE) {
			/* Already closing: on_save_closed answers for it, as the queue's only
			 * job (so that jobs_conn_gone still finds it). */
			if (uv_is_closing((uv_handle_t *)&j->pipe)) {
				j->next = NULL;
				s->disk = j;
				continue;
			}
			save_wait(j);
			uv_close((uv_handle_t *)&j->pipe, on_save_closed_stopping);
		} else if (j == head && s->disk_busy && j->idle_closing) {
			/* A load over ranks just ended: on_ranks_load_closed answers for it, as
			 * the queue's only job. */
			j->next = NULL;
			s->disk = j;
		} else if (j == head && s->disk_busy) {
			/* A load over ranks under way is dropped, on every rank; a thread-pool
			 * job cannot be stopped: load_done frees it. */
			if (j->ranks_loading) {
				char err[256];
				uv_idle_stop(&j->idle);
				(void)ranks_load_end(s->ranks, err, sizeof err);
				j->ranks_loading = false;
				j->idle_closing = true;
				uv_close((uv_handle_t *)&j->idle, on_ranks_load_closed);
			}
			j->abandoned = true;
			if (j->c) {
				steer_reply r;
				steer_reply_init(&r);
				steer_reply_fail(
				    &r,
				    "load %s: the server is stopping; the running world is "
				    "unchanged",
				    j->cmd.name);
				conn_job_done(j->c, &j->cmd, j->request_id, &r);
				steer_reply_free(&r);
				j->c = NULL;
			}
			j->next = NULL;
		} else if (!j->c) { /* a periodic autosave: the stop writes its own */
			steer_log(STEER_LOG_INFO, "%s %s: not run, the server is stopping",
			          j->cmd.entry->name, j->cmd.name);
			free(j);
		} else {
			char msg[160];
			snprintf(msg, sizeof msg, "%s %s: the server is stopping; not run",
			         j->cmd.entry->name, j->cmd.name);
			finish_err(j, msg);
		}
	}
}
