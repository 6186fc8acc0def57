/* steer-server: a thin libuv shell around the core. One loop; the world steps on a
 * fixed-timestep timer; commands from either port are applied between ticks;
 * snapshots are encoded once per distinct view (and, compact, per precision and
 * base) and fanned out (fanout.c). */
#ifndef STEER_SERVER_H
#define STEER_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "authguard.h"
#include "interest.h"
#include "options.h"
#include "serve.h"
#include "session_cache.h"
#include "steer/command.h"
#include "steer/strbuf.h"
#include "steer/wire.h"
#include "timings.h"

/* Immutable bytes shared by every connection they are written to (a snapshot is
 * encoded once and fanned out); freed when the last write completes. */
typedef struct sbuf {
	unsigned refs;
	size_t len;
	size_t *live; /* a count of bytes alive it is part of, or NULL */
	char data[];
} sbuf;

sbuf *sbuf_new(const char *data, size_t len); /* refs = 1; NULL when out of memory */
void sbuf_unref(sbuf *b);
/* Adds b's bytes to *live until b is freed. */
void sbuf_account(sbuf *b, size_t *live);

/* A view's vehicles quantized for compact snapshots, built once per snapshot tick and
 * view; kept by every connection it was last written to, as the base of its next
 * delta. Immutable once built; freed with its last reference. */
typedef struct cframe {
	unsigned refs;
	size_t *live, bytes; /* as sbuf's, once built */
	steer_compact_frame f;
} cframe;

cframe *cframe_new(void);     /* refs = 1, empty; NULL when out of memory */
void cframe_unref(cframe *f); /* NULL is fine */
/* Adds the built frame's arrays to *live until f is freed. */
void cframe_account(cframe *f, size_t *live);

typedef struct conn conn;

typedef struct server {
	uv_loop_t *loop;
	server_options opt;
	steer_session session;
	steer_session_cache session_cache; /* the session's: stats once a tick for all */
	steer_host host;
	uv_tcp_t proto_listener, cmd_listener;
	uv_timer_t tick_timer, snapshot_timer, stop_timer, idle_timer, autosave_timer;
	uv_timer_t linger_timer; /* closes finished connections whose peer lingers */
	uv_signal_t sigint, sigterm;
	uint64_t last_tick_ns;
	uint64_t debt_ns; /* wall time owed to the simulation */
	uint64_t ticks_dropped;
	uint64_t behind_logged_ms, behind_unlogged; /* "fell behind", logged sparingly */
	timings tick_ms;                            /* each tick's step, for stats */
	conn *conns;                                /* doubly linked */
	size_t nconns;
	uint64_t next_conn_id;
	uint64_t snapshots_encoded, snapshot_bytes;
	/* The fan-out's cost (fanout.c): encoding time per snapshot tick, the credit the
	 * next one may spend, who was held back, and the snapshot bytes alive (written
	 * and not yet taken by the kernel, pending, or kept as a compact base). */
	uint64_t snapshot_ticks;
	timings encode_ms;
	double encode_credit_ms;
	size_t clients_throttled, encodings_last;
	uint64_t snapshots_throttled;
	size_t snapshot_live;
	bool snapshot_memory_over;
	conn **order; /* the watching connections in serving order, reused */
	size_t order_cap;
	size_t reply_queued;      /* bytes of replies queued, every connection */
	uint64_t idle_checked_ms; /* when the idle check last ran */
	bool trim_due;            /* a connection left: give memory back to the system */
	uint64_t trimmed_ms;      /* when it last was */
	uint64_t compact_encoded, compact_keyframes, density_encoded;
	steer_interest interest; /* every vehicle, indexed once per snapshot tick */
	uint32_t *view_idx;      /* one view's vehicles, reused */
	size_t view_idx_cap;
	steer_compact_scratch compact_scratch;
	steer_density density; /* one view's cells while they are encoded, reused */
	uint64_t next_frame_seq;
	/* The Geometry message of the world's walls and polygons (one reference; NULL
	 * before the first), encoded once per version and sent after each Welcome and,
	 * when the version moves, to every watcher (fanout.c). */
	sbuf *geometry;
	uint64_t geometry_version;
	steer_strbuf scratch; /* reused for encoding frames and reply lines */
	/* jobs.c: steps under way, and saves and loads in order (the first one runs when
	 * disk_busy) */
	struct job *steps, *disk;
	bool disk_busy;
	uv_idle_t step_idle;
	uv_idle_t resume_idle; /* runs while connections wait for their next turn (conn_turns.c) */
	/* The loop's turn: command time spent by all connections in it (reset by
	 * turn_check after each poll), and the virtual clock: where the last connection
	 * served started (conn_turns.c, conn_start_turn; conn.h, LOOP_TURN_BUDGET_NS). */
	uv_check_t turn_check;
	uv_timer_t resume_timer; /* the waiting's next try, while command time is owed */
	uint64_t turn_used_ns, vclock;
	/* Connections wait for command time (not for the journal): a read that arrives
	 * joins them (conn_turns.c). Cleared and set again by each pass over the waiting. */
	bool turns_waiting;
	unsigned holder_streak;   /* turns to the token's holders in a row (conn_turns.c) */
	bool cheap_turn_taken;    /* this turn of the loop's cheap turn (conn_turns.c) */
	uint64_t turn_checked_ns; /* when the last turn ended */
	bool ticks_owed;          /* the tick is behind its clock (run_ticks) */
	uint64_t turns_throttled; /* reads that waited for a later turn, for stats */
	size_t npeer_done;        /* connections whose peer has stopped sending: no slot held */
	size_t nlingering;        /* connections finished, reading what their peer still sends */
	uint64_t churn_sec, churn_logged, churn_unlogged; /* conn.c: connection log lines */
	bool stopping;
	int exit_status; /* for main: 1 when the autosave at stop failed */
	uint64_t started_ns;
	auth_guard auth_guard;   /* wrong tokens per address */
	struct journal *journal; /* NULL: none (journal.h) */
	/* The name the live journal is kept under after a recovery that dropped some of
	 * it ("" when nothing was dropped). */
	char recovered_keep_as[64];
	struct replay *replay;   /* --replay, or NULL (replay.h) */
	struct web *web;         /* --http: the page and its WebSocket, or NULL (web.h) */
	struct history *history; /* rewind's checkpoints and commands (history.h) */
	/* mpirun -np N (ranks.h): the world split over the ranks, or NULL. The session
	 * then holds this rank's region, and for each snapshot tick copies of the other
	 * ranks' vehicles in the clients' views (fanout.c). */
	struct ranks *ranks;
	/* The data directory, taken for this server's journal (steer_dir_lock): the lock's
	 * descriptor, held until the process ends. */
	int dir_lock;
	bool ranks_told;          /* the other ranks were given the world, or told to stop */
	steer_strbuf line;        /* the command being run, as words, for the other ranks */
	char read_buf[64 * 1024]; /* every read lands here and is consumed at once */
} server;

/* What a --restore whose save cannot be opened should add: where to look, when no
 * such save exists; "" otherwise. */
const char *server_restore_hint(const server_options *o);

/* 0, or -1 after logging why (e.g. the port is taken). */
int server_start(server *s, uv_loop_t *loop, const server_options *opt);
/* Once the loop has finished: closes the last handle and frees the world. */
void server_free(server *s);
/* Stops accepting and closes every connection; the loop then ends. */
void server_stop(server *s, const char *why);
/* Encodes this tick's snapshots and offers them to every protobuf client (fanout.c). */
void server_fan_out(server *s);
/* Brings the Geometry message up to the world's geometry version: when it moved, the
 * new one is encoded and sent to every watching connection (before any snapshot of
 * the new version). Out of memory: logged, and tried again at the next call. */
void server_geometry_sync(server *s);
/* Sends c the last Geometry message encoded (after its Welcome). When the last sync
 * ran out of memory (logged) that one is stale or missing; every snapshot tick's sync
 * tries again and sends the current one to every watcher. */
void server_send_geometry(server *s, conn *c);
/* Frees the fan-out's working buffers (they grow again when needed) and returns free
 * memory to the system: after clients leave. */
void server_release_memory(server *s);
/* Runs the input of connections whose turn was spent (conn_turns.c) on the loop's next
 * turns, until none waits. */
void server_wake_deferred(server *s);
/* A connection has started lingering (conn.c): the check that ends it runs. */
void server_linger_started(server *s);
/* Before each tick of the world (the clock's or a step's): true when it may tick;
 * false when a replay has paused it (its end, --until), with why. */
bool server_before_tick(server *s, char *why, size_t n);
/* Re-arms the tick timer for the world's rate (times --speed while replaying). */
void server_rearm_clock(server *s);

/* The services the server gives the command table (host.c); auth: with the token. */
steer_host server_host(server *s, bool auth);
/* Writes data as the save name in the data directory (steer_host.save). */
steer_status server_host_save(void *ud, const char *name, const char *data, size_t len, char *err,
                              size_t errlen);
/* The journal's mark of the ticks run (none while they replay the past). */
void server_mark_ticks(server *s);
/* One tick of the world, on every rank when it is split. STEER_OK, or a failure
 * (logged). */
steer_status server_tick(server *s);
/* Runs a command other than the jobs' (jobs.h) on the world: over ranks, on every
 * rank (s->line holds its words), bar the host's own commands. */
void server_exec(server *s, const steer_command *cmd, const steer_host *h, steer_reply *r);
/* How long a turn of the loop may write a save over ranks (ranks_save.h): half a
 * tick's time, as a step's ticks take, or as long as a tick now takes when that is
 * longer, so that the clock's ticks and every client are served between, and a world
 * that ticks slower than its rate still leaves a save an equal share of the loop. */
uint64_t server_save_budget(const server *s);
/* True when token is the server's --token (compared in constant time). */
bool server_check_token(const server *s, const char *token);
/* Checks a token c presented, unless c or its address has given too many wrong ones
 * lately (authguard.h); grants access on a match. 0, or -1 with the reason in err.
 * Logs failures and the first refusal of each backoff. */
int server_auth(server *s, conn *c, const char *token, char *err, size_t errlen);

#endif
