#include "server.h"

#include <math.h>
#include <stdio.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conn.h"
#include "history.h"
#include "host_port.h"
#include "jobs.h"
#include "journal.h"
#include "log.h"
#include "ranks.h"
#include "ranks_save.h"
#include "ranks_start.h"
#include "replay.h"
#include "savefile.h"
#include "scenario.h"
#include "serve.h"
#include "share.h"
#include "statedir.h"
#include "storage.h"
#include "web.h"

/* After a stall, at most this many ticks are run at once; the rest of the debt is
 * dropped (and logged) instead of spiralling. */
#define MAX_CATCH_UP 5
/* Catching up runs ticks for at most this long (or one tick period, if longer) in one
 * turn of the loop: commands and snapshots get their turn between, and a world whose
 * tick costs more than its period runs slower instead of holding the loop. */
#define CATCH_UP_BUDGET_NS (4u * 1000u * 1000u)
/* The most often "fell behind" is logged (ms): an overloaded server drops ticks every
 * turn, and says so with the count. */
#define BEHIND_LOG_EVERY_MS 10000

sbuf *sbuf_new(const char *data, size_t len)
{
	sbuf *b = malloc(sizeof *b + len);
	if (!b)
		return NULL;
	b->refs = 1;
	b->len = len;
	b->live = NULL;
	memcpy(b->data, data, len);
	return b;
}

void sbuf_unref(sbuf *b)
{
	if (b && --b->refs == 0) {
		if (b->live)
			*b->live -= b->len;
		free(b);
	}
}

void sbuf_account(sbuf *b, size_t *live)
{
	b->live = live;
	*live += b->len;
}

cframe *cframe_new(void)
{
	cframe *f = malloc(sizeof *f);
	if (!f)
		return NULL;
	f->refs = 1;
	f->live = NULL;
	f->bytes = 0;
	steer_compact_frame_init(&f->f);
	return f;
}

void cframe_unref(cframe *f)
{
	if (f && --f->refs == 0) {
		if (f->live)
			*f->live -= f->bytes;
		steer_compact_frame_free(&f->f);
		free(f);
	}
}

void cframe_account(cframe *f, size_t *live)
{
	const steer_compact_frame *c = &f->f;
	f->bytes = c->cap * (sizeof *c->id + sizeof *c->idx + sizeof *c->qx + sizeof *c->qy +
	                     sizeof *c->heading + sizeof *c->speed + sizeof *c->group +
	                     sizeof *c->behaviors);
	f->live = live;
	*live += f->bytes;
}

/* A rate command replayed from the recorded future, maybe within on_tick: the
 * timer's period follows, the debt it is counting stays. */
static void replayed_rate(void *ud)
{
	server *s = ud;
	double hz = steer_world_config_get(s->session.world)->tick_rate;
	uv_timer_set_repeat(&s->tick_timer, (uint64_t)fmax(1.0, floor(1000.0 / hz)));
	steer_log(STEER_LOG_INFO, "tick rate now %g Hz (replayed)", hz);
}

static void arm_tick_timer(server *s);

void server_rearm_clock(server *s)
{
	arm_tick_timer(s);
}

/* --- the clock ------------------------------------------------------------------- */

/* Ticks a second of wall time: the world's rate, times --speed while replaying. */
static double ticks_per_second(const server *s)
{
	return steer_world_config_get(s->session.world)->tick_rate * replay_speed(s->replay);
}

bool server_before_tick(server *s, char *why, size_t n)
{
	/* Behind the live tick, the ticks replay the recorded future (history.c); the
	 * replay's journal goes on from the live tick. */
	return history_past(s->history) || replay_before_tick(s->replay, why, n);
}

void server_mark_ticks(server *s)
{
	/* Ticks replayed behind the live tick are history the journal already holds. */
	if (!history_past(s->history))
		journal_tick(s->journal);
}

static void fork_to_journal(void *ud, const steer_world *w, char *keep_as, size_t n)
{
	server *s = ud;
	journal_unique_name(s->journal, keep_as, n);
	journal_world_replaced(s->journal, w, keep_as);
}

steer_status server_tick(server *s)
{
	if (!s->ranks) {
		steer_status st = history_step(s->history, &s->session);
		if (st != STEER_OK)
			steer_log(STEER_LOG_ERROR, "tick failed: out of memory");
		return st;
	}
	char err[512];
	steer_status st = ranks_tick(s->ranks, err, sizeof err);
	if (st != STEER_OK)
		steer_log(STEER_LOG_ERROR, "tick failed: %s", err);
	return st;
}

uint64_t server_save_budget(const server *s)
{
	double half = 0.5e9 / steer_world_config_get(s->session.world)->tick_rate, p50, p99;
	if (s->session.paused)
		return (uint64_t)half;
	timings_percentiles(&s->tick_ms, uv_hrtime(), &p50, &p99);
	return (uint64_t)(p50 * 1e6 > half ? p50 * 1e6 : half);
}

/* Commands about the host rather than the world: rank 0 runs them alone. */
static bool about_host(const steer_command *cmd)
{
	static const char *const names[] = {"help", "auth", "name", "clients", "saves", "quit"};
	for (size_t k = 0; k < sizeof names / sizeof *names; k++)
		if (!strcmp(cmd->entry->name, names[k]))
			return true;
	return false;
}

void server_exec(server *s, const steer_command *cmd, const steer_host *h, steer_reply *r)
{
	if (!s->ranks || about_host(cmd)) {
		steer_cmd_exec(cmd, &s->session, h, r);
		return;
	}
	const char *name = cmd->entry->name;
	if (!strcmp(name, "stats")) {
		ranks_stats(s->ranks, cmd, h, r);
		return;
	}
	if (!strcmp(name, "list")) {
		ranks_list(s->ranks, cmd, h, r);
		return;
	}
	if (s->line.oom || s->line.len == 0) {
		steer_reply_fail(r, "%s: out of memory keeping its words; nothing was run", name);
		return;
	}
	ranks_command(s->ranks, h, s->line.data, r);
}

static void run_ticks(server *s);

/* The ticks due, then the journal's mark of them (and of the commands before). */
static void on_tick(uv_timer_t *t)
{
	server *s = t->data;
	run_ticks(s);
	server_mark_ticks(s);
}

static void run_ticks(server *s)
{
	uint64_t now = uv_hrtime();
	uint64_t elapsed = now - s->last_tick_ns;
	s->last_tick_ns = now;
	if (s->session.paused) {
		s->debt_ns = 0;
		s->ticks_owed = false;
		return;
	}
	/* Fixed timestep: the simulation advances in whole dt steps whatever the timer's
	 * jitter; the wall clock only decides how many steps are due. */
	uint64_t dt_ns = (uint64_t)(1e9 / ticks_per_second(s));
	uint64_t bound = dt_ns > CATCH_UP_BUDGET_NS ? dt_ns : CATCH_UP_BUDGET_NS;
	s->debt_ns += elapsed;
	int steps = 0;
	while (s->debt_ns >= dt_ns && steps < MAX_CATCH_UP) {
		if (steps > 0 && uv_hrtime() - now >= bound)
			break; /* the rest is owed to the next turn */
		char why[600];
		if (!server_before_tick(s, why, sizeof why)) {
			s->debt_ns = 0;
			return;
		}
		/* A replayed `rate` re-armed the clock, owing nothing at the new rate. */
		if (s->debt_ns < dt_ns)
			break;
		uint64_t t0 = uv_hrtime();
		if (server_tick(s) != STEER_OK) {
			steer_log(STEER_LOG_ERROR, "pausing the world");
			s->session.paused = true;
			return;
		}
		uint64_t t1 = uv_hrtime();
		timings_add(&s->tick_ms, (double)(t1 - t0) / 1e6, t1);
		s->debt_ns -= dt_ns;
		steps++;
	}
	s->ticks_owed = s->debt_ns >= dt_ns;
	/* Owed past what one turn may catch up: dropped, so that an overloaded server
	 * never spirals. */
	if (s->debt_ns >= (uint64_t)MAX_CATCH_UP * dt_ns) {
		uint64_t dropped = s->debt_ns / dt_ns - (MAX_CATCH_UP - 1);
		s->ticks_dropped += dropped;
		s->debt_ns -= dropped * dt_ns;
		s->behind_unlogged += dropped;
		uint64_t ms = uv_now(s->loop);
		if (s->behind_logged_ms == 0 || ms - s->behind_logged_ms >= BEHIND_LOG_EVERY_MS) {
			steer_log(STEER_LOG_WARN,
			          "fell behind: dropped %llu ticks%s (stall or overload; "
			          "stats: ticks_dropped)",
			          (unsigned long long)s->behind_unlogged,
			          s->behind_logged_ms ? " in the last seconds" : "");
			s->behind_logged_ms = ms;
			s->behind_unlogged = 0;
		}
	}
}

static void arm_tick_timer(server *s)
{
	double hz = ticks_per_second(s);
	uint64_t ms = (uint64_t)fmax(1.0, floor(1000.0 / hz));
	/* The timer fires at least as often as ticks are due; whole-millisecond timer
	 * granularity is absorbed by the debt accounting in on_tick. */
	uv_timer_stop(&s->tick_timer);
	s->last_tick_ns = uv_hrtime();
	s->debt_ns = 0;
	uv_timer_start(&s->tick_timer, on_tick, ms, ms);
}

/* After each poll: a new turn's command time. While the tick keeps up, every turn
 * starts afresh. While it is behind, commands get LOOP_TURN_BUDGET_NS per tick period
 * of wall time, and a command that took longer is paid back over the turns after it:
 * the tick first. */
static void on_turn_check(uv_check_t *h)
{
	server *s = h->data;
	uint64_t now = uv_hrtime();
	uint64_t since = now - s->turn_checked_ns;
	s->turn_checked_ns = now;
	s->cheap_turn_taken = false;
	if (!s->ticks_owed || s->session.paused) {
		s->turn_used_ns = 0;
		return;
	}
	double dt_ns = 1e9 / ticks_per_second(s);
	uint64_t repay = (uint64_t)((double)since * LOOP_TURN_BUDGET_NS / dt_ns);
	s->turn_used_ns = s->turn_used_ns > repay ? s->turn_used_ns - repay : 0;
}

static void on_resume_idle(uv_idle_t *h);

static void on_resume_timer(uv_timer_t *t)
{
	server_wake_deferred(t->data);
}

static void on_resume_idle(uv_idle_t *h)
{
	server *s = h->data;
	bool ran;
	if (!conn_resume_deferred(s, &ran)) {
		uv_idle_stop(h);
	} else if (!ran || s->turn_used_ns >= LOOP_TURN_BUDGET_NS) {
		/* Waiting for the command time to be paid back, or for the journal's
		 * checkpoint: a millisecond's nap rather than spinning the loop. */
		uv_idle_stop(h);
		uv_timer_start(&s->resume_timer, on_resume_timer, 1, 0);
	}
}

void server_wake_deferred(server *s)
{
	if (!s->stopping && !uv_is_active((uv_handle_t *)&s->resume_idle))
		uv_idle_start(&s->resume_idle, on_resume_idle);
}

/* Closes the lingering connections whose time is up; stops when none lingers. */
static void on_linger_check(uv_timer_t *t)
{
	server *s = t->data;
	uint64_t now = uv_now(s->loop);
	bool lingering = false;
	for (conn *c = s->conns, *next; c; c = next) {
		next = c->next;
		if (!c->linger_until_ms || uv_is_closing((uv_handle_t *)&c->tcp))
			continue;
		if (now >= c->linger_until_ms)
			conn_end_linger(c);
		else
			lingering = true;
	}
	if (!lingering)
		uv_timer_stop(t);
}

void server_linger_started(server *s)
{
	if (!s->stopping && !uv_is_active((uv_handle_t *)&s->linger_timer))
		uv_timer_start(&s->linger_timer, on_linger_check, 250, 250);
}

static void on_snapshot(uv_timer_t *t)
{
	server *s = t->data;
	server_fan_out(s);
	/* At most once a second: clients coming and going every tick would otherwise
	 * have every tick rebuild what it freed. */
	uint64_t now = uv_now(s->loop);
	if (s->trim_due && now - s->trimmed_ms >= 1000) {
		s->trimmed_ms = now;
		server_release_memory(s);
	}
}

void server_release_memory(server *s)
{
	s->trim_due = false;
	steer_strbuf_free(&s->scratch);
	steer_strbuf_init(&s->scratch);
	steer_compact_scratch_free(&s->compact_scratch);
	steer_compact_scratch_init(&s->compact_scratch);
	steer_density_free(&s->density);
	steer_density_init(&s->density);
	free(s->view_idx);
	s->view_idx = NULL;
	s->view_idx_cap = 0;
	free(s->order);
	s->order = NULL;
	s->order_cap = 0;
	steer_interest_free(&s->interest);
	steer_interest_init(&s->interest);
#ifdef __GLIBC__
	/* Big snapshots come from the heap once glibc's mmap threshold has risen past
	 * them; freed, they stay in the process until trimmed. */
	malloc_trim(0);
#endif
}

/* --- listeners and lifetime ------------------------------------------------------- */

static void on_proto_connection(uv_stream_t *l, int status)
{
	server *s = l->data;
	if (status < 0) {
		steer_log(STEER_LOG_WARN, "accept: %s", uv_strerror(status));
		return;
	}
	conn_accept(s, l, CONN_PROTO);
}

static void on_cmd_connection(uv_stream_t *l, int status)
{
	server *s = l->data;
	if (status < 0) {
		steer_log(STEER_LOG_WARN, "accept: %s", uv_strerror(status));
		return;
	}
	conn_accept(s, l, CONN_TEXT);
}

static int listen_on(server *s, uv_tcp_t *l, int port, uv_connection_cb cb, const char *what)
{
	struct sockaddr_storage addr;
	int rc = uv_ip4_addr(s->opt.bind, port, (struct sockaddr_in *)&addr);
	if (rc != 0)
		rc = uv_ip6_addr(s->opt.bind, port, (struct sockaddr_in6 *)&addr);
	if (rc != 0) {
		steer_log(STEER_LOG_ERROR, "--bind %s is not an IPv4 or IPv6 address", s->opt.bind);
		return -1;
	}
	if ((rc = uv_tcp_init(s->loop, l)) != 0 ||
	    (rc = uv_tcp_bind(l, (const struct sockaddr *)&addr, 0)) != 0 ||
	    (rc = uv_listen((uv_stream_t *)l, 128, cb)) != 0) {
		const char *flag = !strcmp(what, "proto") ? "--port" : "--cmd-port";
		if (rc == UV_EADDRINUSE)
			steer_log(
			    STEER_LOG_ERROR,
			    "cannot listen on %s port %d: address already in use (another "
			    "steer-server, perhaps); give %s another port, or %s 0 for a free one",
			    s->opt.bind, port, flag, flag);
		else
			steer_log(STEER_LOG_ERROR, "cannot listen on %s port %d (%s): %s",
			          s->opt.bind, port, flag, uv_strerror(rc));
		return -1;
	}
	l->data = s;
	struct sockaddr_storage got;
	int len = sizeof got;
	uv_tcp_getsockname(l, (struct sockaddr *)&got, &len);
	int actual = got.ss_family == AF_INET6 ? ntohs(((struct sockaddr_in6 *)&got)->sin6_port)
	                                       : ntohs(((struct sockaddr_in *)&got)->sin_port);
	char port_text[8], where[300];
	snprintf(port_text, sizeof port_text, "%d", actual);
	steer_host_port(where, sizeof where, s->opt.bind, port_text);
	printf("listening %s %s\n", what, where);
	fflush(stdout);
	steer_log(STEER_LOG_INFO, "listening %s %s", what, where);
	return 0;
}

static void on_idle_check(uv_timer_t *t)
{
	server *s = t->data;
	uint64_t now = uv_now(s->loop), every = uv_timer_get_repeat(t);
	uint64_t since = now - s->idle_checked_ms;
	s->idle_checked_ms = now;
	/* After the loop itself was blocked, timers run before the input that arrived
	 * meanwhile is read: a client that did send would be judged idle. */
	if (since > 2 * every) {
		steer_log(STEER_LOG_DEBUG, "idle check skipped: the loop was blocked %llu ms",
		          (unsigned long long)since);
		return;
	}
	for (conn *c = s->conns, *next; c; c = next) {
		next = c->next; /* closing unlinks only in the close callback, but be safe */
		conn_check_idle(c, now);
	}
}

/* Saves the world as 'autosave'; logs the outcome either way. 0, or -1 when it failed. */
static int autosave_now(server *s)
{
	char err[400];
	if (s->ranks) { /* in place, as every save over ranks */
		ranks_save *sv =
		    ranks_save_open(s->ranks, s->opt.data_dir, "autosave", err, sizeof err);
		int rc = sv ? ranks_save_finish_now(sv, NULL, err, sizeof err) : -1;
		uint64_t bytes = sv ? ranks_save_bytes(sv) : 0;
		ranks_save_close(sv);
		if (rc != 0)
			steer_log(STEER_LOG_ERROR, "autosave: %s; nothing was written", err);
		else
			steer_log(STEER_LOG_INFO, "saved 'autosave' (%llu bytes) in %s",
			          (unsigned long long)bytes, s->opt.data_dir);
		return rc;
	}
	char *data;
	size_t len;
	steer_status st = steer_save_encode(s->session.world, &data, &len);
	if (st != STEER_OK) {
		steer_log(STEER_LOG_ERROR, "autosave: %s",
		          st == STEER_ERR_LIMIT ? "the world is over the size a save may hold"
		                                : "out of memory encoding the world");
		return -1;
	}
	int rc = server_host_save(s, "autosave", data, len, err, sizeof err);
	if (rc != 0)
		steer_log(STEER_LOG_ERROR, "autosave: %s", err);
	free(data);
	return rc;
}

static void on_autosave(uv_timer_t *t)
{
	jobs_autosave(t->data); /* in the background, like save */
}

static void on_signal(uv_signal_t *h, int signum)
{
	server *s = h->data;
	server_stop(s, signum == SIGINT ? "SIGINT" : "SIGTERM");
}

static void on_stop_timeout(uv_timer_t *t)
{
	server *s = t->data;
	for (conn *c = s->conns; c; c = c->next)
		if (!uv_is_closing((uv_handle_t *)&c->tcp)) {
			c->closing = false;
			conn_close(c, "server stopping");
		}
}

void server_stop(server *s, const char *why)
{
	if (s->stopping)
		return;
	s->stopping = true;
	steer_log(STEER_LOG_INFO, "stopping (%s): closing %zu clients", why, s->nconns);
	/* Before the autosave: a save under way finishes first, and never writes the
	 * same file at the same time. */
	jobs_stop(s);
	journal_stop(s->journal);
	/* The last state, so a restart loses nothing; when it cannot be kept, the exit
	 * status says so. */
	if (s->opt.autosave > 0 && history_past(s->history))
		steer_log(
		    STEER_LOG_WARN,
		    "autosave skipped: the world is rewound to tick %llu of %llu; the journal "
		    "keeps the live history (--recover)",
		    (unsigned long long)steer_world_tick(s->session.world),
		    (unsigned long long)history_live_tick(s->history, s->session.world));
	else if (s->opt.autosave > 0 && autosave_now(s) != 0)
		s->exit_status = 1;
	uv_close((uv_handle_t *)&s->idle_timer, NULL);
	uv_close((uv_handle_t *)&s->linger_timer, NULL); /* on_stop_timeout ends lingering */
	uv_close((uv_handle_t *)&s->resume_idle, NULL);
	uv_close((uv_handle_t *)&s->turn_check, NULL);
	uv_close((uv_handle_t *)&s->resume_timer, NULL);
	uv_close((uv_handle_t *)&s->autosave_timer, NULL);
	uv_close((uv_handle_t *)&s->proto_listener, NULL);
	uv_close((uv_handle_t *)&s->cmd_listener, NULL);
	web_stop(s->web);
	uv_close((uv_handle_t *)&s->tick_timer, NULL);
	uv_close((uv_handle_t *)&s->snapshot_timer, NULL);
	uv_close((uv_handle_t *)&s->sigint, NULL);
	uv_close((uv_handle_t *)&s->sigterm, NULL);
	for (conn *c = s->conns; c; c = c->next)
		conn_finish(c, "server stopping");
	/* A client that never reads cannot hold the exit: force-close after a second. */
	uv_timer_start(&s->stop_timer, on_stop_timeout, 1000, 0);
	uv_unref((uv_handle_t *)&s->stop_timer);
}

/* A world read at start (--restore, --recover) has its own size, edges, seed and
 * rate: the flags that would make a new one are said to be ignored, rather than
 * silently dropped. */
static void warn_flags_ignored(const server_options *o)
{
	if (!o->restore && !o->recover)
		return;
	const char *given[5];
	size_t n = 0;
	if (o->scenario)
		given[n++] = "--scenario";
	if (o->world_set)
		given[n++] = "--world";
	if (o->edges_set)
		given[n++] = "--edges";
	if (o->seed_set)
		given[n++] = "--seed";
	if (o->tick_rate_set)
		given[n++] = "--tick-rate";
	if (!n)
		return;
	char list[96] = "";
	for (size_t k = 0; k < n; k++)
		snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
		         k == 0       ? ""
		         : k + 1 == n ? " and "
		                      : ", ",
		         given[k]);
	steer_log(STEER_LOG_WARN, "%s: %s %s ignored: the world comes from %s, as it was",
	          o->recover ? "--recover" : "--restore", list, n == 1 ? "is" : "are",
	          o->recover ? "the journal" : "what it restores");
}

const char *server_restore_hint(const server_options *o)
{
	char path[4200];
	snprintf(path, sizeof path, "%s/%s.steer", o->data_dir ? o->data_dir : ".", o->restore);
	if (access(path, F_OK) == 0)
		return "";
	return "; 'steerctl saves' lists the saves in --data-dir, and a named journal is a "
	       "directory under its journals/";
}

/* The world of --restore NAME, or NULL after logging why. */
static steer_world *restored_world(const server_options *o)
{
	char *data = NULL;
	size_t len = 0;
	char err[256];
	if (storage_read(o->data_dir, o->restore, &data, &len, err, sizeof err) != STEER_OK) {
		steer_log(STEER_LOG_ERROR, "--restore %s: %s%s", o->restore, err,
		          server_restore_hint(o));
		return NULL;
	}
	steer_world *w = steer_save_decode(data, len, err, sizeof err);
	free(data);
	if (!w) {
		steer_log(STEER_LOG_ERROR,
		          "--restore %s: %s/%s.steer: %s; the file is left as it is", o->restore,
		          o->data_dir, o->restore, err);
		return NULL;
	}
	/* Refused as `load` refuses it (a journal's recovery keeps what it was). */
	size_t n = steer_world_vehicles(w)->count;
	if (o->max_vehicles && n > o->max_vehicles) {
		steer_log(STEER_LOG_ERROR,
		          "--restore %s: %s/%s.steer: %zu vehicles exceed --max-vehicles %zu; the "
		          "file is left as it is",
		          o->restore, o->data_dir, o->restore, n, o->max_vehicles);
		steer_world_destroy(w);
		return NULL;
	}
	steer_world_set_max_vehicles(w, o->max_vehicles);
	steer_log(STEER_LOG_INFO, "restored '%s': tick %llu, %zu vehicles", o->restore,
	          (unsigned long long)steer_world_tick(w), steer_world_vehicles(w)->count);
	return w;
}

static steer_world *initial_world(const server_options *o)
{
	if (o->restore) {
		if (!steer_save_name_ok(o->restore)) {
			steer_log(STEER_LOG_ERROR, "--restore: '%s' is not a save name",
			          o->restore);
			return NULL;
		}
		return restored_world(o);
	}
	steer_world_config cfg = server_options_world(o);
	steer_world *w = steer_world_create(&cfg);
	if (!w) {
		steer_log(STEER_LOG_ERROR, "cannot create the world: out of memory");
		return NULL;
	}
	if (o->scenario) {
		steer_status st = steer_scenario_load(w, o->scenario);
		if (st == STEER_OK && o->edges_set)
			st = steer_world_set_bounds(w, o->width, o->height, o->edges);
		if (st != STEER_OK) {
			steer_log(STEER_LOG_ERROR, "scenario %s: %s", o->scenario,
			          steer_status_str(st));
			steer_world_destroy(w);
			return NULL;
		}
	}
	return w;
}

/* One journalled server to a data directory: a second would set the first's live
 * journal aside and write into the same segments. A directory that cannot be made is
 * the journal's failure to report. -1 when another server holds it. */
static int lock_journal_dir(server *s, const server_options *opt)
{
	if (!opt->journal || !opt->data_dir)
		return 0;
	char dir[4200], err[4400];
	bool taken;
	snprintf(dir, sizeof dir, "%s/journal", opt->data_dir);
	s->dir_lock = steer_dir_lock(dir, &taken, err, sizeof err);
	if (s->dir_lock < 0 && taken) {
		steer_log(STEER_LOG_ERROR,
		          "%s; give this server a data directory of its own (--data-dir DIR), or "
		          "run it without a journal (--no-journal)",
		          err);
		return -1;
	}
	if (s->dir_lock < 0)
		steer_log(STEER_LOG_WARN, "journal: %s", err);
	return 0;
}

/* The world the server starts with: a replay's, a recovered or restored one (over
 * ranks, read in place), or a new one; on its threads, and split over the ranks when
 * launched so. -1 after saying why. */
static int make_world(server *s, const server_options *opt)
{
	if (opt->replay && ranks_launched()) {
		steer_log(STEER_LOG_ERROR, "--replay runs on one process: start it without mpirun");
		return -1;
	}
	if (opt->replay) {
		/* Its own journal would set the live one aside, and record nothing new. */
		s->opt.journal = false;
		if (!(s->replay = replay_open(s)))
			return -1;
	} else {
		if (journal_recover_missing(opt) || lock_journal_dir(s, opt) != 0)
			return -1;
		warn_flags_ignored(opt);
		/* --recover, --restore: over ranks, read in place */
		int recovered =
		    ranks_launched()
		        ? ranks_start_in_place(s, s->recovered_keep_as, sizeof s->recovered_keep_as)
		        : journal_recover(opt, &s->session, s->recovered_keep_as,
		                          sizeof s->recovered_keep_as);
		if (recovered < 0)
			return -1;
		if (recovered > 0)
			s->session.world = initial_world(opt);
	}
	if (!s->session.world) /* initial_world or the recovery said why */
		return -1;
	steer_status threads_st =
	    s->ranks ? STEER_OK : steer_world_set_threads(s->session.world, opt->threads);
	if (threads_st != STEER_OK) {
		steer_log(STEER_LOG_ERROR,
		          "cannot start %d threads for the tick (%s); try fewer --threads",
		          opt->threads, steer_status_str(threads_st));
		steer_world_destroy(s->session.world);
		s->session.world = NULL;
		return -1;
	}
	if (ranks_launched() && !s->ranks) { /* a world made here, split */
		s->ranks_told = true;
		ranks_config rc = server_options_ranks(opt);
		if (!(s->ranks = ranks_lead(&s->session, &rc)))
			return -1;
	}
	return 0;
}

/* The loop's timers, its turn check and the signals, started. -1 after saying why. */
static int start_timers(server *s, uv_loop_t *loop, const server_options *opt)
{
	int rc;
	if ((rc = uv_timer_init(loop, &s->tick_timer)) ||
	    (rc = uv_timer_init(loop, &s->snapshot_timer)) ||
	    (rc = uv_timer_init(loop, &s->stop_timer)) ||
	    (rc = uv_timer_init(loop, &s->idle_timer)) ||
	    (rc = uv_timer_init(loop, &s->linger_timer)) ||
	    (rc = uv_timer_init(loop, &s->autosave_timer)) ||
	    (rc = uv_idle_init(loop, &s->resume_idle)) ||
	    (rc = uv_timer_init(loop, &s->resume_timer)) ||
	    (rc = uv_check_init(loop, &s->turn_check)) || (rc = jobs_init(s)) ||
	    (rc = uv_signal_init(loop, &s->sigint)) || (rc = uv_signal_init(loop, &s->sigterm))) {
		steer_log(STEER_LOG_ERROR, "libuv: %s", uv_strerror(rc));
		return -1;
	}
	s->tick_timer.data = s->snapshot_timer.data = s->stop_timer.data = s;
	s->idle_timer.data = s->autosave_timer.data = s->linger_timer.data = s;
	s->resume_idle.data = s->turn_check.data = s->resume_timer.data = s;
	s->sigint.data = s->sigterm.data = s;
	if ((rc = uv_check_start(&s->turn_check, on_turn_check)) != 0) {
		steer_log(STEER_LOG_ERROR, "libuv: %s", uv_strerror(rc));
		return -1;
	}
	uv_unref((uv_handle_t *)&s->turn_check); /* it never keeps the loop alive */
	uint64_t snap_ms = (uint64_t)fmax(1.0, 1000.0 / opt->snapshot_rate);
	if ((rc = uv_timer_start(&s->snapshot_timer, on_snapshot, snap_ms, snap_ms)) ||
	    (rc = uv_signal_start(&s->sigint, on_signal, SIGINT)) ||
	    (rc = uv_signal_start(&s->sigterm, on_signal, SIGTERM))) {
		steer_log(STEER_LOG_ERROR, "libuv: %s", uv_strerror(rc));
		return -1;
	}
	if (opt->idle_timeout > 0) {
		/* Checked a few times per timeout: a connection lingers at most 25% longer. */
		uint64_t every = (uint64_t)fmax(50.0, opt->idle_timeout * 250.0);
		s->idle_checked_ms = uv_now(loop);
		if ((rc = uv_timer_start(&s->idle_timer, on_idle_check, every, every)) != 0) {
			steer_log(STEER_LOG_ERROR, "libuv: %s", uv_strerror(rc));
			return -1;
		}
	}
	if (opt->autosave > 0) {
		uint64_t every = (uint64_t)(opt->autosave * 1000.0);
		if ((rc = uv_timer_start(&s->autosave_timer, on_autosave, every, every)) != 0) {
			steer_log(STEER_LOG_ERROR, "libuv: %s", uv_strerror(rc));
			return -1;
		}
	}
	return 0;
}

/* Where the saves go, and the world's own figures: a restored, recovered or replayed
 * one has its own. */
static void log_started(const server *s, const server_options *opt)
{
	if (opt->data_dir)
		steer_log(STEER_LOG_INFO,
		          "data directory %s (save, load, saves; --data-dir changes it)",
		          opt->data_dir);
	const steer_world_config *cfg = steer_world_config_get(s->session.world);
	steer_log(STEER_LOG_INFO,
	          "world %gx%g %s, %zu vehicles, tick %llu, %g Hz, snapshots %g Hz, seed %llu",
	          cfg->width, cfg->height, steer_edges_name(cfg->edges),
	          steer_world_vehicles_total(s->session.world),
	          (unsigned long long)steer_world_tick(s->session.world), cfg->tick_rate,
	          opt->snapshot_rate, (unsigned long long)cfg->seed);
}

int server_start(server *s, uv_loop_t *loop, const server_options *opt)
{
	memset(s, 0, sizeof *s);
	s->loop = loop;
	s->opt = *opt;
	s->started_ns = uv_hrtime();
	s->session.cache = &s->session_cache;
	steer_strbuf_init(&s->scratch);
	steer_strbuf_init(&s->line);
	steer_interest_init(&s->interest);
	steer_compact_scratch_init(&s->compact_scratch);
	steer_density_init(&s->density);
	if (make_world(s, opt) != 0)
		return -1;
	/* Over ranks there is no rewind: its checkpoints would hold one region. */
	double rewind_mb = s->ranks ? 0.0 : opt->rewind_memory;
	s->history = history_new((size_t)(rewind_mb * 1024 * 1024), opt->rewind_every);
	if (!s->history) {
		steer_log(STEER_LOG_ERROR, "out of memory");
		return -1;
	}
	history_restart(s->history, s->session.world);
	history_set_rate_hook(s->history, replayed_rate, s);
	if (opt->has_token && strlen(opt->token) < AUTH_TOKEN_MIN_ADVISED)
		steer_log(STEER_LOG_WARN,
		          "the token is only %zu characters: use at least %d random ones, or it "
		          "can be guessed",
		          strlen(opt->token), AUTH_TOKEN_MIN_ADVISED);
	/* Before any save can start. A replay shares the directory of a live server, whose
	 * save under way is not stale. */
	if (opt->data_dir && !opt->replay)
		storage_remove_stale(opt->data_dir);
	s->host = server_host(s, opt->has_token);
	if (listen_on(s, &s->proto_listener, opt->port, on_proto_connection, "proto") != 0 ||
	    listen_on(s, &s->cmd_listener, opt->cmd_port, on_cmd_connection, "cmd") != 0)
		return -1;
	if (web_start(s, &s->web) != 0) {
		if (opt->http_set)
			return -1;
		steer_log(STEER_LOG_WARN,
		          "no page for browsers: port %d is taken (--http PORT picks another, "
		          "--http 0 a free one)",
		          opt->http_port);
	}
	if (start_timers(s, loop, opt) != 0)
		return -1;
	arm_tick_timer(s);
	s->journal = journal_open(s, s->recovered_keep_as);
	if (s->history && s->journal)
		history_set_fork_hook(s->history, fork_to_journal, s);
	log_started(s, opt);
	return 0;
}

void server_free(server *s)
{
	/* The stop timer outlives the loop's last referenced handle: close it here. */
	if (!uv_is_closing((uv_handle_t *)&s->stop_timer)) {
		uv_close((uv_handle_t *)&s->stop_timer, NULL);
		uv_run(s->loop, UV_RUN_NOWAIT);
	}
	journal_free(s->journal);
	replay_free(s->replay);
	web_free(s->web);
	s->replay = NULL;
	s->journal = NULL;
	ranks_finish(s->ranks);
	s->ranks = NULL;
	steer_strbuf_free(&s->line);
	steer_world_destroy(s->session.world);
	s->session.world = NULL;
	history_free(s->history);
	s->history = NULL;
	steer_strbuf_free(&s->scratch);
	sbuf_unref(s->geometry);
	s->geometry = NULL;
	steer_interest_free(&s->interest);
	steer_compact_scratch_free(&s->compact_scratch);
	steer_density_free(&s->density);
	free(s->view_idx);
	s->view_idx = NULL;
	free(s->order);
	s->order = NULL;
}
