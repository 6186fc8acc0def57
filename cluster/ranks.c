#include "ranks.h"

#include <mpi.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cluster.h"
#include "log.h"
#include "rankwatch.h"
#include "savefile.h"
#include "session_cache.h"
#include "share.h"

/* What rank 0 asks the others to take part in; each is followed by its payload. */
typedef enum op {
	OP_STOP = 1,
	OP_WORLD,      /* a save's bytes: the new world, split */
	OP_LOAD_BEGIN, /* a save loaded in place: its head, and the new world made aside */
	OP_LOAD_STEP,  /* ... a piece of its records */
	OP_LOAD_END,   /* ... the new world in place of the old, or dropped */
	OP_TICK,       /* one tick */
	OP_COMMAND,    /* a command line */
	OP_STATS,      /* the world's counts and flock sums */
	OP_VIEWS,      /* the vehicles in views to rank 0 */
	OP_COUNT,      /* how many vehicles views hold, to rank 0 */
	OP_DENSITY,    /* a view's density cells, added up on rank 0 */
	OP_LIST,       /* copies of a list page's vehicles to rank 0 */
	OP_SAVE_BEGIN, /* a save in place: every rank's snapshot */
	OP_SAVE_STEP,  /* ... the next records, merged on rank 0 */
	OP_SAVE_END,   /* ... the snapshots dropped */
} op;

/* How the watch's log names each op. */
static const char *const op_names[] = {
    [OP_STOP] = "a stop",
    [OP_WORLD] = "a new world",
    [OP_LOAD_BEGIN] = "a load's start",
    [OP_LOAD_STEP] = "a piece of a load",
    [OP_LOAD_END] = "a load's end",
    [OP_TICK] = "a tick",
    [OP_COMMAND] = "a command",
    [OP_STATS] = "stats",
    [OP_VIEWS] = "a snapshot's views",
    [OP_COUNT] = "a count of views",
    [OP_DENSITY] = "a density view",
    [OP_LIST] = "a list",
    [OP_SAVE_BEGIN] = "a save's start",
    [OP_SAVE_STEP] = "a step of a save",
    [OP_SAVE_END] = "a save's end",
};

/* This process's watch over the other ranks (rankwatch.h), from ranks_init to
 * ranks_exit; NULL without MPI_THREAD_MULTIPLE. */
static rankwatch *watch;

/* An op's header, broadcast first: the payload's length follows. */
typedef struct op_head {
	uint64_t op, len, max_vehicles;
} op_head;

/* Each rank's counts and flock sums, as doubles for one gather. */
enum { STAT_VEHICLES, STAT_FLOCKERS, STAT_SPEED, STAT_HX, STAT_HY, STAT_N };

struct ranks {
	MPI_Comm comm;
	int rank, size, threads;
	steer_cluster *cluster;
	steer_session *session;        /* rank 0: the server's; the others: their own */
	double *stat;                  /* rank 0: every rank's stats_part */
	steer_cluster_figure *figures; /* rank 0: every rank's last tick */
	size_t fetched;                /* rank 0: the copies in its world until ranks_drop_views */
	size_t fetched_last;           /* rank 0: those the last snapshot tick brought */
	steer_cluster_loader *loading; /* a load under way (ranks_load_begin) */
	/* The saves under way, by slot (ranks_save_begin): a save and a checkpoint. */
	steer_cluster_saver *saving[RANKS_SAVES];
};

static void free_ranks(ranks *r)
{
	for (int k = 0; k < RANKS_SAVES; k++)
		steer_cluster_save_free(r->saving[k]);
	free(r->stat);
	free(r->figures);
	free(r);
}

/* Broadcasts of payloads larger than an int counts: in pieces. */
#define PIECE ((size_t)1 << 30)

bool ranks_launched(void)
{
	const char *n = getenv("OMPI_COMM_WORLD_SIZE");
	if (!n)
		n = getenv("PMI_SIZE");
	return n && atoi(n) > 1;
}

int ranks_init(int *argc, char ***argv, int *rank, int *size)
{
	int got;
	/* The loop's thread calls MPI for the world; the watch's thread, for its beats
	 * alone. The tick's pool and the journal's writer never do. */
	if (MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &got) != MPI_SUCCESS ||
	    MPI_Comm_rank(MPI_COMM_WORLD, rank) != MPI_SUCCESS ||
	    MPI_Comm_size(MPI_COMM_WORLD, size) != MPI_SUCCESS) {
		steer_log(STEER_LOG_ERROR, "MPI did not start");
		return -1;
	}
	if (got < MPI_THREAD_FUNNELED) {
		steer_log(STEER_LOG_ERROR, "this MPI library does not allow threads beside the one "
		                           "that calls it (MPI_THREAD_FUNNELED)");
		MPI_Finalize();
		return -1;
	}
	/* Every rank watches, or none: a beat nobody takes, or a rank whose silence is
	 * only its not beating, would be worse than no watch. */
	int can = got >= MPI_THREAD_MULTIPLE, all = 0;
	MPI_Allreduce(&can, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	if (all) {
		watch = rankwatch_start(*rank, *size);
		int up = watch != NULL, every = 0;
		MPI_Allreduce(&up, &every, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
		if (!every) {
			rankwatch_stop(watch);
			watch = NULL;
		}
	}
	if (!watch && *rank == 0)
		steer_log(STEER_LOG_WARN,
		          "the ranks run unwatched: a rank that stops is not named, "
		          "and the job waits for it (this MPI library gives no "
		          "MPI_THREAD_MULTIPLE, or the watch did not start)");
	/* mpirun passes an interrupt on to every rank; rank 0 alone decides when the
	 * others stop (after its autosave, which needs them). */
	if (*rank != 0) {
		signal(SIGINT, SIG_IGN);
		signal(SIGTERM, SIG_IGN);
	}
	return 0;
}

void ranks_exit(void)
{
	rankwatch_stop(watch);
	watch = NULL;
	MPI_Finalize();
}

/* A failed collective leaves the ranks out of step for good: the job ends. */
static void mpi_check(int rc, const char *what)
{
	if (rc == MPI_SUCCESS)
		return;
	char msg[MPI_MAX_ERROR_STRING];
	int len = 0;
	MPI_Error_string(rc, msg, &len);
	fprintf(stderr, "steer-server: MPI_%s failed: %s; the job ends\n", what, msg);
	MPI_Abort(MPI_COMM_WORLD, 70);
}

static void bcast_bytes(void *data, size_t len, MPI_Comm comm)
{
	for (size_t off = 0; off < len; off += PIECE) {
		size_t n = len - off < PIECE ? len - off : PIECE;
		mpi_check(MPI_Bcast((char *)data + off, (int)n, MPI_BYTE, 0, comm), "Bcast");
	}
}

static uint64_t world_tick(const ranks *r)
{
	return r->session && r->session->world ? steer_world_tick(r->session->world) : 0;
}

/* Rank 0: starts an op on every rank; done ends it. */
static void start(ranks *r, op what, const void *payload, size_t len, uint64_t max_vehicles)
{
	rankwatch_busy(watch, op_names[what], world_tick(r));
	op_head h = {what, len, max_vehicles};
	/* Non-blocking, to match the other ranks' wait_for_op. */
	MPI_Request req;
	mpi_check(MPI_Ibcast(&h, sizeof h, MPI_BYTE, 0, r->comm, &req), "Ibcast");
	mpi_check(MPI_Wait(&req, MPI_STATUS_IGNORE), "Wait");
	if (len)
		bcast_bytes((void *)payload, len, r->comm);
}

static void done(void)
{
	rankwatch_idle(watch);
}

/* Rank 0: the others stop, and so does the watch, before they go silent. */
static void stop_followers(ranks *r)
{
	start(r, OP_STOP, NULL, 0, 0);
	rankwatch_stop(watch);
	watch = NULL;
}

/* --- the world ---------------------------------------------------------------- */

static steer_cluster_options cluster_options(void)
{
	steer_cluster_options copt = steer_cluster_options_default();
	/* Every few seconds at the usual rate, besides on imbalance. */
	copt.rebalance_ticks = 300;
	return copt;
}

/* The session's world and its cluster become w and c, the old ones ending. */
static void install(ranks *r, steer_cluster *c, steer_world *w)
{
	if (r->cluster)
		steer_cluster_destroy(r->cluster);
	if (r->session->world != w)
		steer_world_destroy(r->session->world);
	r->cluster = c;
	r->session->world = w;
	steer_session_stale(r->session);
}

/* Every rank: a new world split over the ranks. Rank 0 passes it whole in mine, and
 * sends each rank its region's vehicles; the others decode the world without its
 * vehicles from shell (steer_save_encode_shell's bytes). The session then holds this
 * rank's region (on rank 0, mine itself). On failure the old world stays, and rank 0
 * keeps mine (0, or -1 with why in err: the same on every rank). */
static int split(ranks *r, steer_world *mine, const char *shell, size_t len, size_t max_vehicles,
                 char *err, size_t errlen)
{
	steer_world *w = mine ? mine : steer_save_decode(shell, len, err, errlen);
	int ok = w != NULL;
	if (w) {
		steer_world_set_max_vehicles(w, max_vehicles);
		if (steer_world_set_threads(w, r->threads) != STEER_OK) {
			snprintf(err, errlen, "cannot start %d threads for the tick", r->threads);
			ok = 0;
		}
	}
	int all = 0;
	mpi_check(MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, r->comm), "Allreduce");
	if (!all) {
		if (ok)
			snprintf(err, errlen, "another rank could not read the world");
		if (w != mine)
			steer_world_destroy(w);
		return -1;
	}
	steer_cluster_options copt = cluster_options();
	copt.whole_on_rank0 = true;
	/* Made before the old one ends: a world that cannot be split leaves the old
	 * world and its cluster as they were (rank 0's mine has lost the vehicles sent
	 * away: the caller's copy to drop). */
	steer_cluster *c = steer_cluster_create(r->comm, w, &copt, err, errlen);
	if (!c) {
		if (w != mine)
			steer_world_destroy(w);
		return -1;
	}
	install(r, c, w);
	return 0;
}

int ranks_replace(ranks *r, steer_world *w, char *err, size_t errlen)
{
	char *shell = NULL;
	size_t len = 0;
	steer_status st = steer_save_encode_shell(w, &shell, &len);
	if (st != STEER_OK) {
		snprintf(err, errlen, "%s",
		         st == STEER_ERR_LIMIT ? "the world is over the size a save may hold"
		                               : "out of memory encoding the world");
		return -1;
	}
	size_t max = steer_world_config_get(w)->max_vehicles;
	size_t count = steer_world_vehicles(w)->count;
	start(r, OP_WORLD, shell, len, max);
	int rc = split(r, w, shell, len, max, err, errlen);
	done();
	free(shell);
	if (rc == 0)
		steer_world_set_vehicles_total(r->session->world, count);
	return rc;
}

/* Every rank: the load under way ends; on success its world, each rank's region,
 * replaces the session's (0, or -1 with why in err, the same on every rank: the old
 * world then stays). */
static int end_load(ranks *r, char *err, size_t errlen)
{
	steer_world *w = NULL;
	steer_cluster *c = steer_cluster_load_end(r->loading, &w, err, errlen);
	r->loading = NULL;
	if (!c)
		return -1;
	int ok = steer_world_set_threads(w, r->threads) == STEER_OK, all = 0;
	uint64_t mine = steer_world_vehicles(w)->count, total = 0;
	mpi_check(MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, r->comm), "Allreduce");
	mpi_check(MPI_Allreduce(&mine, &total, 1, MPI_UINT64_T, MPI_SUM, r->comm), "Allreduce");
	if (!all) {
		snprintf(err, errlen, "%s %d threads for the tick",
		         ok ? "another rank cannot start" : "cannot start", r->threads);
		steer_cluster_destroy(c);
		steer_world_destroy(w);
		return -1;
	}
	install(r, c, w);
	steer_world_set_vehicles_total(w, (size_t)total);
	return 0;
}

static steer_cluster_loader *begin_load(ranks *r, steer_save_stream *file, size_t max_vehicles,
                                        bool over_max, char *err, size_t errlen)
{
	steer_cluster_options copt = cluster_options();
	copt.load_over_max = over_max;
	return steer_cluster_load_begin(r->comm, file, max_vehicles, &copt, err, errlen);
}

int ranks_load_begin(ranks *r, steer_save_stream *file, size_t max_vehicles, bool over_max,
                     char *err, size_t errlen)
{
	char flag = over_max;
	start(r, OP_LOAD_BEGIN, &flag, 1, max_vehicles);
	r->loading = begin_load(r, file, max_vehicles, over_max, err, errlen);
	done();
	return r->loading ? 0 : -1;
}

int ranks_load_step(ranks *r, char *err, size_t errlen)
{
	start(r, OP_LOAD_STEP, NULL, 0, 0);
	int rc = steer_cluster_load_step(r->loading, err, errlen);
	done();
	return rc;
}

int ranks_load_end(ranks *r, char *err, size_t errlen)
{
	start(r, OP_LOAD_END, NULL, 0, 0);
	int rc = end_load(r, err, errlen);
	done();
	return rc;
}

/* --- a save in place ---------------------------------------------------------------- */

/* The payload of OP_SAVE_BEGIN, _STEP and _END. */
typedef struct save_op {
	uint64_t slot, records;
} save_op;

static int begin_save(ranks *r, size_t slot, char *err, size_t errlen)
{
	r->saving[slot] = steer_cluster_save_begin(r->comm, r->session->world, err, errlen);
	return r->saving[slot] ? 0 : -1;
}

int ranks_size(const ranks *r)
{
	return r->size;
}

int ranks_save_begin(ranks *r, char *err, size_t errlen)
{
	int slot = 0;
	while (slot < RANKS_SAVES && r->saving[slot])
		slot++;
	if (slot == RANKS_SAVES) {
		snprintf(err, errlen, "%d saves are under way already", RANKS_SAVES);
		return -1;
	}
	save_op q = {(uint64_t)slot, 0};
	start(r, OP_SAVE_BEGIN, &q, sizeof q, 0);
	int rc = begin_save(r, (size_t)slot, err, errlen);
	done();
	return rc == 0 ? slot : -1;
}

int ranks_save_step(ranks *r, int slot, size_t records, const char **text, size_t *len, char *err,
                    size_t errlen)
{
	save_op q = {(uint64_t)slot, records};
	start(r, OP_SAVE_STEP, &q, sizeof q, 0);
	int rc = steer_cluster_save_step(r->saving[slot], records, text, len, err, errlen);
	done();
	return rc;
}

const char *ranks_save_head(const ranks *r, int slot, size_t *len)
{
	return steer_cluster_save_head(r->saving[slot], len);
}

const char *ranks_save_geometry(const ranks *r, int slot, size_t *len, uint64_t *records)
{
	return steer_cluster_save_geometry(r->saving[slot], len, records);
}

void ranks_save_end(ranks *r, int slot)
{
	save_op q = {(uint64_t)slot, 0};
	start(r, OP_SAVE_END, &q, sizeof q, 0);
	steer_cluster_save_free(r->saving[slot]);
	r->saving[slot] = NULL;
	done();
}

ranks *ranks_lead(steer_session *session, const ranks_config *cfg)
{
	ranks *r = calloc(1, sizeof *r);
	int size = 0;
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	double *stat = r ? malloc(sizeof *stat * STAT_N * (size_t)size) : NULL;
	steer_cluster_figure *fig = r ? malloc(sizeof *fig * (size_t)size) : NULL;
	if (!r || !stat || !fig) {
		steer_log(STEER_LOG_ERROR, "out of memory");
		free(r);
		free(stat);
		free(fig);
		ranks_dismiss();
		return NULL;
	}
	r->comm = MPI_COMM_WORLD;
	r->rank = 0;
	r->size = size;
	r->threads = cfg->threads;
	r->session = session;
	r->stat = stat;
	r->figures = fig;
	rankwatch_arm(watch, cfg->rank_timeout);
	/* The world is whole here: its bytes go to every rank, this one too, so that
	 * every rank starts from the same bytes; each keeps its region. */
	char err[512];
	if (ranks_replace(r, session->world, err, sizeof err) != 0) {
		steer_log(STEER_LOG_ERROR, "cannot split the world over %d ranks: %s", r->size,
		          err);
		stop_followers(r);
		free_ranks(r);
		return NULL;
	}
	/* mpirun passes a signal on to every rank and kills them all a second later:
	 * the autosave of a big world needs the stop to start at rank 0. */
	steer_log(STEER_LOG_INFO,
	          "the world is split over %d ranks; rank 0 is pid %ld: SIGTERM it to stop the "
	          "job%s",
	          r->size, (long)getpid(), cfg->autosave ? " (autosave included)" : "");
	if (watch && cfg->rank_timeout > 0)
		steer_log(STEER_LOG_INFO, "a rank silent for %g s ends the job (--rank-timeout)",
		          cfg->rank_timeout);
	return r;
}

void ranks_dismiss(void)
{
	ranks r = {.comm = MPI_COMM_WORLD};
	stop_followers(&r);
}

void ranks_finish(ranks *r)
{
	if (!r)
		return;
	stop_followers(r);
	steer_cluster_destroy(r->cluster);
	free_ranks(r);
}

/* --- ticks and commands --------------------------------------------------------- */

steer_status ranks_tick(ranks *r, char *err, size_t errlen)
{
	start(r, OP_TICK, NULL, 0, 0);
	steer_status st = steer_cluster_step(r->cluster, err, errlen);
	done();
	return st;
}

void ranks_command(ranks *r, const steer_host *h, const char *line, steer_reply *reply)
{
	start(r, OP_COMMAND, line, strlen(line) + 1, 0);
	steer_cluster_command(r->cluster, r->session, h, line, reply);
	done();
	steer_session_stale(r->session);
}

static void stats_part(ranks *r, double *out)
{
	double mine[STAT_N];
	steer_flock_totals f = steer_world_flock_totals(r->session->world);
	mine[STAT_VEHICLES] = (double)steer_world_vehicles(r->session->world)->count;
	mine[STAT_FLOCKERS] = (double)f.flockers;
	mine[STAT_SPEED] = f.speed;
	mine[STAT_HX] = f.hx;
	mine[STAT_HY] = f.hy;
	mpi_check(MPI_Gather(mine, STAT_N, MPI_DOUBLE, out, STAT_N, MPI_DOUBLE, 0, r->comm),
	          "Gather");
}

void ranks_stats(ranks *r, const steer_command *cmd, const steer_host *h, steer_reply *reply)
{
	start(r, OP_STATS, NULL, 0, 0);
	double *all = r->stat;
	stats_part(r, all);
	done();
	/* Summed over the ranks' regions, which move as they are cut again: the last
	 * digits may differ from one process's and from run to run. */
	steer_flock_totals f = {0, 0, 0, 0};
	size_t others = 0;
	for (int k = 0; k < r->size; k++) {
		const double *p = all + (size_t)k * STAT_N;
		if (k != r->rank)
			others += (size_t)p[STAT_VEHICLES];
		f.flockers += (size_t)p[STAT_FLOCKERS];
		f.speed += p[STAT_SPEED];
		f.hx += p[STAT_HX];
		f.hy += p[STAT_HY];
	}
	/* The whole world's figures for this command, in place of the session's own. */
	steer_session *s = r->session;
	steer_session_cache whole = {steer_flock_health_of(&f), steer_world_tick(s->world), true,
	                             others};
	steer_session_cache *own = s->cache;
	s->cache = &whole;
	steer_cmd_exec(cmd, s, h, reply);
	s->cache = own;
	steer_session_stale(s);
}

/* --- snapshots' views ------------------------------------------------------------------ */

/* The views and picks of a snapshot, as broadcast. */
typedef struct views {
	const steer_view *view;
	size_t nviews;
	const uint32_t *pick;
	size_t npicks;
} views;

static bool in_views(const steer_world *w, size_t i, void *ud)
{
	const views *v = ud;
	const steer_vehicles *veh = steer_world_vehicles(w);
	for (size_t k = 0; k < v->nviews; k++) {
		const steer_view *view = &v->view[k];
		if (!view->set ||
		    steer_view_contains(view, veh->px[i], veh->py[i], steer_view_margin(view)))
			return true;
	}
	for (size_t k = 0; k < v->npicks; k++)
		if (v->pick[k] == veh->id[i])
			return true;
	return false;
}

/* Every rank: copies of the views' vehicles to rank 0's world. The payload: the view
 * count, the views, then the picks. */
static steer_status fetch_views(ranks *r, const char *payload, size_t len, char *err, size_t errlen)
{
	uint64_t nviews;
	memcpy(&nviews, payload, sizeof nviews);
	size_t at = sizeof nviews + (size_t)nviews * sizeof(steer_view);
	steer_view *view = malloc(nviews ? (size_t)nviews * sizeof *view : 1);
	uint32_t *pick = malloc(len > at ? len - at : 1);
	views v = {view, 0, pick, 0};
	if (view && pick) {
		memcpy(view, payload + sizeof nviews, (size_t)nviews * sizeof *view);
		if (len > at)
			memcpy(pick, payload + at, len - at);
		v.nviews = (size_t)nviews;
		v.npicks = (len - at) / sizeof *pick;
	}
	/* Out of memory here still takes part, with nothing to send. */
	steer_status st = steer_cluster_fetch(r->cluster, in_views, &v, err, errlen);
	free(view);
	free(pick);
	return st;
}

steer_status ranks_fetch_views(ranks *r, const steer_view *view, size_t nviews,
                               const uint32_t *picks, size_t npicks, uint64_t total, char *err,
                               size_t errlen)
{
	uint64_t n = nviews;
	size_t len = sizeof n + nviews * sizeof *view + npicks * sizeof *picks;
	char *payload = malloc(len);
	if (!payload) {
		snprintf(err, errlen, "out of memory for a snapshot's views");
		return STEER_ERR_NOMEM;
	}
	memcpy(payload, &n, sizeof n);
	memcpy(payload + sizeof n, view, nviews * sizeof *view);
	if (npicks)
		memcpy(payload + sizeof n + nviews * sizeof *view, picks, npicks * sizeof *picks);
	start(r, OP_VIEWS, payload, len, 0);
	size_t own = steer_world_vehicles(r->session->world)->count;
	steer_status st = fetch_views(r, payload, len, err, errlen);
	done();
	free(payload);
	r->fetched = st == STEER_OK ? steer_world_vehicles(r->session->world)->count - own : 0;
	r->fetched_last = r->fetched;
	/* A snapshot's header says how many vehicles the whole world has. */
	steer_world_set_vehicles_total(r->session->world, (size_t)total);
	return st;
}

void ranks_drop_views(ranks *r)
{
	steer_cluster_drop_fetched(r->cluster);
	r->fetched = 0;
}

/* Every rank: its vehicles within each view (with its margin; an unset view holds
 * them all), summed on rank 0 into counts. */
static void count_views(ranks *r, const steer_view *view, size_t n, uint64_t *counts)
{
	uint64_t *mine = calloc(n ? n : 1, sizeof *mine);
	if (!mine) {
		fprintf(stderr, "steer-server: rank %d: out of memory counting views\n", r->rank);
		MPI_Abort(r->comm, 71);
	}
	const steer_vehicles *v = steer_world_vehicles(r->session->world);
	for (size_t k = 0; k < n; k++) {
		if (!view[k].set) {
			mine[k] = v->count;
			continue;
		}
		double margin = steer_view_margin(&view[k]);
		for (size_t i = 0; i < v->count; i++)
			mine[k] += steer_view_contains(&view[k], v->px[i], v->py[i], margin);
	}
	mpi_check(MPI_Reduce(mine, counts, (int)n, MPI_UINT64_T, MPI_SUM, 0, r->comm), "Reduce");
	free(mine);
}

int ranks_count_views(ranks *r, const steer_view *view, size_t n, uint64_t *counts)
{
	start(r, OP_COUNT, view, n * sizeof *view, 0);
	count_views(r, view, n, counts);
	done();
	return 0;
}

/* The payload of OP_DENSITY. */
typedef struct density_req {
	steer_view view;
	uint32_t cols, rows;
} density_req;

/* Every rank: its own vehicles counted into the request's cells (into d), the counts
 * and heading sums added up on rank 0, which encodes them. STEER_OK, or the first
 * failure (the same on every rank). */
static steer_status density_part(ranks *r, const density_req *q, steer_density *d, char *err,
                                 size_t errlen)
{
	const steer_vehicles *v = steer_world_vehicles(r->session->world);
	/* Rank 0's own vehicles only: the copies a snapshot tick fetched are appended
	 * after them, and counted by the ranks that own them. */
	size_t n = v->count - (r->rank == 0 ? r->fetched : 0), cells = (size_t)q->cols * q->rows;
	uint32_t *idx = malloc((n ? n : 1) * sizeof *idx);
	uint32_t *count = malloc(cells * sizeof *count);
	double *heading = malloc(cells * 2 * sizeof *heading);
	steer_status st = idx && count && heading ? STEER_OK : STEER_ERR_NOMEM;
	for (size_t i = 0; i < n && idx; i++)
		idx[i] = (uint32_t)i;
	if (st == STEER_OK)
		st = steer_density_build(d, r->session->world, &q->view, q->cols, q->rows, idx, n);
	int ok = st == STEER_OK, all = 0;
	mpi_check(MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, r->comm), "Allreduce");
	if (all) {
		for (size_t c = 0; c < cells; c++) {
			count[c] = d->cell[c].count;
			heading[2 * c] = d->cell[c].hx;
			heading[2 * c + 1] = d->cell[c].hy;
		}
		/* Rank 0 receives in place: its own part is in the buffers already. */
		bool root = r->rank == 0;
		mpi_check(MPI_Reduce(root ? MPI_IN_PLACE : count, count, (int)cells, MPI_UINT32_T,
		                     MPI_SUM, 0, r->comm),
		          "Reduce");
		mpi_check(MPI_Reduce(root ? MPI_IN_PLACE : heading, heading, (int)(2 * cells),
		                     MPI_DOUBLE, MPI_SUM, 0, r->comm),
		          "Reduce");
		if (root) {
			for (size_t c = 0; c < cells; c++)
				d->cell[c] = (steer_density_cell){heading[2 * c],
				                                  heading[2 * c + 1], count[c]};
			st = steer_density_encode(d);
		}
	} else {
		snprintf(err, errlen, "%s",
		         st == STEER_ERR_INVALID ? "a view the cells cannot cover"
		                                 : "out of memory counting cells");
		if (st == STEER_OK)
			st = STEER_ERR_NOMEM; /* another rank's */
	}
	free(idx);
	free(count);
	free(heading);
	return st;
}

steer_status ranks_density(ranks *r, steer_density *d, const steer_view *view, uint32_t cols,
                           uint32_t rows, char *err, size_t errlen)
{
	density_req q = {*view, cols, rows};
	start(r, OP_DENSITY, &q, sizeof q, 0);
	steer_status st = density_part(r, &q, d, err, errlen);
	done();
	return st;
}

/* The payload of OP_LIST: the page asked for. */
typedef struct list_req {
	uint32_t from, count; /* count 0: every vehicle (an unpaged list) */
} list_req;

static bool in_list(const steer_world *w, size_t i, void *ud)
{
	const uint32_t *range = ud; /* from, last */
	uint32_t id = steer_world_vehicles(w)->id[i];
	return id >= range[0] && id <= range[1];
}

static int by_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

/* Every rank: copies to rank 0 of its count + 1 lowest ids from `from` on (or all):
 * together they hold the page's vehicles, and one more when there is a next page. */
static steer_status fetch_list(ranks *r, const list_req *q, char *err, size_t errlen)
{
	const steer_vehicles *v = steer_world_vehicles(r->session->world);
	uint32_t range[2] = {q->count ? q->from : 0, UINT32_MAX};
	uint32_t *ids =
	    q->count && r->rank != 0 ? malloc((v->count ? v->count : 1) * sizeof *ids) : NULL;
	size_t n = 0;
	for (size_t i = 0; ids && i < v->count; i++)
		if (v->id[i] >= q->from)
			ids[n++] = v->id[i];
	if (ids && n > (size_t)q->count + 1) {
		qsort(ids, n, sizeof *ids, by_u32);
		range[1] = ids[q->count];
	}
	free(ids);
	/* Out of memory: every id from `from` on, right, only dearer. */
	return steer_cluster_fetch(r->cluster, in_list, range, err, errlen);
}

void ranks_list(ranks *r, const steer_command *cmd, const steer_host *h, steer_reply *reply)
{
	steer_view whole = {0};
	uint64_t total = 0;
	ranks_count_views(r, &whole, 1, &total);
	steer_session *s = r->session;
	size_t geometry = 0, n;
	steer_world_obstacles(s->world, &n);
	geometry += n;
	steer_world_walls(s->world, &n);
	geometry += n;
	steer_world_polygons(s->world, &n);
	geometry += n;
	/* An unpaged list of more than a reply holds is refused by the count alone. */
	bool refused = !cmd->sub && total + geometry > STEER_LIST_MAX;
	if (!refused) {
		list_req q = {cmd->sub ? cmd->id : 0, cmd->sub ? cmd->count : 0};
		start(r, OP_LIST, &q, sizeof q, 0);
		char err[512];
		steer_status st = fetch_list(r, &q, err, sizeof err);
		done();
		if (st != STEER_OK) {
			steer_reply_fail(reply, "list: %s", err);
			return;
		}
	}
	size_t here = steer_world_vehicles(s->world)->count;
	steer_session_cache counts = {.vehicles_elsewhere =
	                                  total > here ? (size_t)total - here : 0};
	steer_session_cache *own = s->cache;
	s->cache = &counts;
	steer_cmd_exec(cmd, s, h, reply);
	s->cache = own;
	if (!refused)
		steer_cluster_drop_fetched(r->cluster);
}

/* --- figures ------------------------------------------------------------------------ */

void ranks_stats_json(const ranks *r, steer_strbuf *json)
{
	steer_cluster_figure *f = r->figures;
	steer_cluster_figures(r->cluster, f);
	double sum = 0, most = -1;
	int slowest = 0;
	for (int k = 0; k < r->size; k++) {
		sum += f[k].step_s;
		if (f[k].step_s > most) {
			most = f[k].step_s;
			slowest = k;
		}
	}
	double mean = sum / r->size;
	steer_strbuf_printf(json, ",\"ranks\":%d,\"region_cuts\":%u,\"rank_figures\":[", r->size,
	                    steer_cluster_cuts(r->cluster));
	for (int k = 0; k < r->size; k++) {
		steer_strbuf_printf(
		    json,
		    "%s{\"rank\":%d,\"vehicles\":%llu,\"halo\":%llu,"
		    "\"halo_bytes\":%llu,\"migrated\":%llu,\"tick_ms\":",
		    k ? "," : "", k, (unsigned long long)f[k].owned, (unsigned long long)f[k].halo,
		    (unsigned long long)f[k].halo_bytes, (unsigned long long)f[k].migrated);
		steer_json_num(json, f[k].step_s * 1e3);
		steer_strbuf_puts(json, ",\"exchange_ms\":");
		steer_json_num(json, f[k].exchange_s * 1e3);
		steer_strbuf_printf(json, ",\"neighbours\":%u}", f[k].peers);
	}
	steer_strbuf_printf(json, "],\"slowest_rank\":%d,\"rank_balance\":", slowest);
	/* The slowest rank's tick over the mean: 1 is perfect balance. */
	steer_json_num(json, mean > 0 ? most / mean : 1.0);
	/* What the last snapshot tick brought to rank 0: only views drawn as vehicles. */
	steer_strbuf_printf(json, ",\"snapshot_vehicles_gathered\":%zu", r->fetched_last);
}

/* --- the other ranks ----------------------------------------------------------------- */

/* The next op's header from rank 0. A blocking broadcast would spin on a core for as
 * long as the world is idle (paused, or between ticks); this polls: at full speed for
 * a moment, since ops come in bursts, then with naps that grow to NAP_SHORT_NS, which
 * bounds how late a tick starts, and past an idle IDLE_NS (a paused world) to
 * NAP_LONG_NS. */
#define SPIN_NS      50000L
#define NAP_SHORT_NS 200000L
#define IDLE_NS      100000000L
#define NAP_LONG_NS  2000000L
static void wait_for_op(ranks *r, op_head *h)
{
	MPI_Request req;
	mpi_check(MPI_Ibcast(h, sizeof *h, MPI_BYTE, 0, r->comm, &req), "Ibcast");
	struct timespec t0, now;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	long nap = 0;
	for (;;) {
		int arrived = 0;
		mpi_check(MPI_Test(&req, &arrived, MPI_STATUS_IGNORE), "Test");
		if (arrived)
			return;
		clock_gettime(CLOCK_MONOTONIC, &now);
		long waited = (now.tv_sec - t0.tv_sec) * 1000000000L + (now.tv_nsec - t0.tv_nsec);
		if (waited < SPIN_NS)
			continue;
		long cap = waited < IDLE_NS ? NAP_SHORT_NS : NAP_LONG_NS;
		nap = nap == 0 ? 10000L : nap * 2 < cap ? nap * 2 : cap;
		struct timespec ts = {0, nap};
		nanosleep(&ts, NULL);
	}
}

/* Another rank's part in a save rank 0 started. */
static void follow_save(ranks *r, op what, const char *payload, size_t len, char *err,
                        size_t errlen)
{
	save_op q = {RANKS_SAVES, 0};
	memcpy(&q, payload, len < sizeof q ? len : sizeof q);
	if (q.slot >= RANKS_SAVES) {
		fprintf(stderr, "steer-server: rank %d: a save in slot %llu from rank 0\n", r->rank,
		        (unsigned long long)q.slot);
		MPI_Abort(r->comm, 70);
		return;
	}
	steer_cluster_saver **sv = &r->saving[q.slot];
	const char *text;
	size_t n;
	if (what == OP_SAVE_BEGIN) {
		steer_cluster_save_free(*sv); /* never ended: rank 0 reuses only ended slots */
		(void)begin_save(r, (size_t)q.slot, err, errlen); /* rank 0 reports */
	} else if (what == OP_SAVE_STEP && *sv) {
		(void)steer_cluster_save_step(*sv, (size_t)q.records, &text, &n, err, errlen);
	} else if (what == OP_SAVE_END) {
		steer_cluster_save_free(*sv);
		*sv = NULL;
	}
}

int ranks_follow(const ranks_config *cfg)
{
	steer_session session = {0};
	ranks r = {.comm = MPI_COMM_WORLD, .threads = cfg->threads, .session = &session};
	MPI_Comm_rank(r.comm, &r.rank);
	MPI_Comm_size(r.comm, &r.size);
	char *payload = NULL;
	size_t cap = 0;
	int status = 0;
	steer_density density;
	steer_density_init(&density);
	char err[512];
	rankwatch_arm(watch, cfg->rank_timeout);
	for (;;) {
		op_head h;
		wait_for_op(&r, &h);
		if (h.op == OP_STOP)
			break;
		rankwatch_busy(watch,
		               h.op < sizeof op_names / sizeof *op_names ? op_names[h.op] : NULL,
		               world_tick(&r));
		if (h.len > cap) {
			char *p = realloc(payload, h.len);
			if (!p) {
				fprintf(stderr,
				        "steer-server: rank %d: out of memory for %llu bytes\n",
				        r.rank, (unsigned long long)h.len);
				MPI_Abort(r.comm, 71);
			}
			payload = p;
			cap = h.len;
		}
		if (h.len)
			bcast_bytes(payload, h.len, r.comm);
		steer_reply reply;
		steer_reply_init(&reply);
		switch ((op)h.op) {
		case OP_WORLD:
			if (split(&r, NULL, payload, h.len, h.max_vehicles, err, sizeof err) != 0 &&
			    !r.cluster)
				status = 1; /* rank 0 says why, and stops us */
			break;
		case OP_LOAD_BEGIN:
			r.loading = begin_load(&r, NULL, h.max_vehicles, h.len && payload[0], err,
			                       sizeof err);
			break;
		case OP_LOAD_STEP:
			(void)steer_cluster_load_step(r.loading, err, sizeof err);
			break;
		case OP_LOAD_END:
			(void)end_load(&r, err, sizeof err); /* rank 0 reports */
			break;
		case OP_TICK:
			(void)steer_cluster_step(r.cluster, err, sizeof err); /* rank 0 reports */
			break;
		case OP_COMMAND:
			steer_cluster_command(r.cluster, &session, NULL, payload, &reply);
			break;
		case OP_STATS:
			stats_part(&r, NULL);
			break;
		case OP_VIEWS:
			(void)fetch_views(&r, payload, h.len, err, sizeof err);
			break;
		case OP_COUNT:
			count_views(&r, (const steer_view *)payload, h.len / sizeof(steer_view),
			            NULL);
			break;
		case OP_LIST: {
			list_req q;
			memcpy(&q, payload, sizeof q);
			(void)fetch_list(&r, &q, err, sizeof err);
			break;
		}
		case OP_DENSITY: {
			density_req q;
			memcpy(&q, payload, sizeof q);
			(void)density_part(&r, &q, &density, err, sizeof err);
			break;
		}
		case OP_SAVE_BEGIN:
		case OP_SAVE_STEP:
		case OP_SAVE_END:
			follow_save(&r, (op)h.op, payload, h.len, err, sizeof err);
			break;
		case OP_STOP:
			break;
		default:
			fprintf(stderr, "steer-server: rank %d: unknown op %llu from rank 0\n",
			        r.rank, (unsigned long long)h.op);
			MPI_Abort(r.comm, 70);
		}
		steer_reply_free(&reply);
		rankwatch_idle(watch);
		/* A world's bytes (a load) need not be held for the rest of the run. */
		if (cap > ((size_t)1 << 20)) {
			free(payload);
			payload = NULL;
			cap = 0;
		}
	}
	/* Rank 0 may stop its beats now: nothing is left to wait for. */
	rankwatch_stop(watch);
	watch = NULL;
	free(payload);
	steer_density_free(&density);
	for (int k = 0; k < RANKS_SAVES; k++)
		steer_cluster_save_free(r.saving[k]);
	if (r.cluster)
		steer_cluster_destroy(r.cluster);
	steer_world_destroy(session.world);
	return status;
}
