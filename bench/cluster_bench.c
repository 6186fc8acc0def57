/* steer-cluster-bench: one world of N vehicles over the MPI ranks it runs on
 * (cluster/cluster.h), and what the ranks pay for sharing it.
 *
 *   mpirun -np R steer-cluster-bench --n N --ticks T --warmup W --world flock|crowd
 *          [--threads K] [--seed S] [--cut-every C] [--solid] [--no-hash]
 *   mpirun -np R steer-cluster-bench --probe      (the transport alone, no world)
 *
 * The world comes from the seed: the flock of steer-bench (a wrap world of about ten
 * boids within sight of each), built in place: every rank draws every boid and keeps
 * those in its region, so none holds the whole flock; or a clustered crowd (dense
 * discs of avoiders of unequal size and density in a bounce world, each walking to
 * the matching point of the next disc), built in place alike, then cut by cost;
 * solid bodies with --solid. W ticks run untimed and T are measured. Rank 0
 * prints, per rank, the medians over the measured ticks of steer_cluster_figures,
 * the balance (the slowest rank's step time over the mean, median over ticks), the
 * bytes the ranks send each other at 60 Hz, and a RESULT line for
 * bench/cluster_pairs.sh. On one rank the world is stepped plainly, without the
 * cluster: the single-process tick to compare with. At the end the whole world is
 * gathered on rank 0 and hashed (untimed): the same hash for any rank count. Last,
 * each rank's vehicles and peak resident memory, and a MEMORY line. A benchmark
 * prints figures; it asserts nothing. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "bench_util.h"
#include "cluster.h"
#include "scenario.h"
#include "share.h"
#include "steer/world.h"

#define CLUSTERS 8

typedef struct opts {
	long n, ticks, warmup;
	int crowd;
	int threads;
	uint64_t seed;
	unsigned cut_every;
	int hash;
	int solid; /* --solid: bodies pushed apart */
	int probe; /* --probe: time the transport alone instead */
} opts;

static int rank, ranks;

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: mpirun -np R steer-cluster-bench [--n N] [--ticks T] [--warmup W]\n"
	        "                    [--world flock|crowd] [--threads K] [--seed S]\n"
	        "                    [--cut-every C] [--solid] [--no-hash]\n"
	        "       mpirun -np R steer-cluster-bench --probe\n"
	        "  --n N          vehicles in the whole world (default 1000000)\n"
	        "  --ticks T      measured ticks (default 20)\n"
	        "  --warmup W     untimed ticks first (default 5)\n"
	        "  --world        flock: steer-bench's flock, wrap world, ~10 boids in sight;\n"
	        "                 crowd: %d dense discs of avoiders, bounce world (default flock)\n"
	        "  --threads K    threads inside each rank (default 1)\n"
	        "  --seed S       the world's seed (default 1)\n"
	        "  --cut-every C  cut the regions again every C ticks (default 0: on imbalance)\n"
	        "  --solid        solid bodies, pushed apart after the moves (default off)\n"
	        "  --no-hash      skip gathering and hashing the world at the end\n"
	        "  --probe        time the transport alone: MPI_Alltoallv of a few sizes,\n"
	        "                 the cluster's own exchange call, no world\n",
	        CLUSTERS);
}

static int bad_arg(const char *a)
{
	if (rank == 0) {
		fprintf(stderr, "steer-cluster-bench: bad argument '%s'\n", a);
		usage(stderr);
	}
	return 2;
}

/* 0: run; 1: --help printed; 2: a bad command line, said on stderr. */
static int parse(int argc, char **argv, opts *o)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
		char *end = NULL;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			if (rank == 0)
				usage(stdout);
			return 1;
		}
		if (!strcmp(a, "--solid")) {
			o->solid = 1;
			continue;
		}
		if (!strcmp(a, "--no-hash")) {
			o->hash = 0;
			continue;
		}
		if (!strcmp(a, "--probe")) {
			o->probe = 1;
			continue;
		}
		if (!val)
			return bad_arg(a);
		if (!strcmp(a, "--world")) {
			if (strcmp(val, "flock") && strcmp(val, "crowd"))
				return bad_arg(val);
			o->crowd = !strcmp(val, "crowd");
			end = (char *)val + strlen(val);
		} else if (!strcmp(a, "--n")) {
			o->n = strtol(val, &end, 10);
		} else if (!strcmp(a, "--ticks")) {
			o->ticks = strtol(val, &end, 10);
		} else if (!strcmp(a, "--warmup")) {
			o->warmup = strtol(val, &end, 10);
		} else if (!strcmp(a, "--threads")) {
			o->threads = (int)strtol(val, &end, 10);
		} else if (!strcmp(a, "--seed")) {
			o->seed = strtoull(val, &end, 10);
		} else if (!strcmp(a, "--cut-every")) {
			o->cut_every = (unsigned)strtoul(val, &end, 10);
		} else {
			return bad_arg(a);
		}
		if (*end || end == val)
			return bad_arg(val);
		i++;
	}
	if (o->n < 2 || o->n > 100000000 || o->ticks < 1 || o->warmup < 0 || o->threads < 1 ||
	    o->threads > STEER_MAX_THREADS) {
		if (rank == 0)
			fprintf(stderr,
			        "steer-cluster-bench: N must be 2..100000000, ticks >= 1, "
			        "warmup >= 0, threads 1..%d\n",
			        STEER_MAX_THREADS);
		return 2;
	}
	return 0;
}

/* The side of steer-bench's flock's wrap world: each boid has about ten others in
 * sight. */
static double flock_side(const opts *o, const steer_params *p)
{
	return sqrt((double)o->n * (STEER_TAU / 2) * p->sight_distance * p->sight_distance / 10.0);
}

/* steer-bench's flock, or with fill false its world alone: the cluster adds the boids
 * in place (run_cluster). */
static steer_world *make_flock(const opts *o, bool fill)
{
	steer_params p = steer_flock_params();
	double side = flock_side(o, &p);
	steer_world_config cfg = steer_world_config_default();
	cfg.width = cfg.height = side;
	cfg.seed = o->seed;
	cfg.solid = o->solid;
	steer_world *w = steer_world_create(&cfg);
	if (!w)
		return NULL;
	if (fill && bench_add_flock(w, o->n, side, &p) != STEER_OK) {
		steer_world_destroy(w);
		return NULL;
	}
	if (rank == 0)
		printf("workload: flock, N=%ld, wrap world %.0f x %.0f, sight_distance %.0f, "
		       "solid %s\n",
		       o->n, side, side, p.sight_distance, o->solid ? "on" : "off");
	return w;
}

/* The clustered crowd's layout: CLUSTERS discs on a 3 x 3 grid of the flock's world
 * (the middle square left empty), disc k holding a share of the vehicles growing with
 * k at 2 to 5 times the flock's density. Each avoider arrives at its own point moved
 * to the next disc's centre, so the discs stream through each other. */
typedef struct crowd_layout {
	steer_params p;
	double side;
	double cx[CLUSTERS], cy[CLUSTERS], r[CLUSTERS];
	long count[CLUSTERS];
} crowd_layout;

static crowd_layout crowd_layout_of(const opts *o)
{
	crowd_layout L;
	L.p = steer_params_default();
	L.p.max_speed = 50.0;
	double flock_density = 10.0 / (STEER_TAU / 2 * 100.0 * 100.0);
	L.side = sqrt((double)o->n / flock_density);
	long given = 0;
	for (int k = 0, slot = 0; k < CLUSTERS; k++, slot++) {
		if (slot == 4)
			slot++; /* the middle stays empty */
		L.cx[k] = (slot % 3 + 0.5) * L.side / 3;
		L.cy[k] = (slot / 3 + 0.5) * L.side / 3;
		L.count[k] = k == CLUSTERS - 1 ? o->n - given : o->n * (k + 1) / 36;
		given += L.count[k];
		double density = flock_density * (2 + k % 4);
		L.r[k] = fmin(sqrt((double)L.count[k] / density / (STEER_TAU / 2)),
		              L.side / 6 - 2 * L.p.radius);
	}
	return L;
}

/* The walkers added and drawn at a time. */
#define CROWD_CHUNK 65536

/* Adds the crowd's walkers to w, disc by disc, a chunk at a time: a region of a world
 * over ranks keeps only its own (steer_world_set_region_keep) and gives the goals
 * only to those, so that no rank holds the whole crowd; one world keeps them all.
 * Every rank draws every walker, so the ids and random draws are one process's.
 * STEER_OK, or why not. */
static steer_status add_crowd(steer_world *w, const crowd_layout *L)
{
	steer_vec2 *at = malloc(CROWD_CHUNK * sizeof *at),
	           *goal = malloc(CROWD_CHUNK * sizeof *goal);
	steer_vec2 *still = calloc(CROWD_CHUNK, sizeof *still);
	steer_status st = at && goal && still ? STEER_OK : STEER_ERR_NOMEM;
	steer_rng *rng = steer_world_rng(w);
	for (int k = 0; k < CLUSTERS && st == STEER_OK; k++) {
		int next = (k + 1) % CLUSTERS;
		for (long done = 0; done < L->count[k] && st == STEER_OK;) {
			long m =
			    L->count[k] - done < CROWD_CHUNK ? L->count[k] - done : CROWD_CHUNK;
			for (long i = 0; i < m; i++) {
				double a = steer_rng_range(rng, 0, STEER_TAU);
				double d = L->r[k] * sqrt(steer_rng_unit(rng));
				double dx = d * cos(a), dy = d * sin(a);
				at[i] = v2(L->cx[k] + dx, L->cy[k] + dy);
				goal[i] = v2(L->cx[next] + dx, L->cy[next] + dy);
			}
			uint32_t first = 0;
			st =
			    steer_vehicles_add(w, (size_t)m, at, still, &L->p, STEER_AVOID, &first);
			for (long i = 0; i < m && st == STEER_OK; i++)
				if (steer_vehicle_index(w, first + (uint32_t)i) >= 0)
					st = steer_vehicle_target(w, first + (uint32_t)i,
					                          STEER_ARRIVE, goal[i]);
			done += m;
		}
	}
	free(at);
	free(goal);
	free(still);
	return st;
}

/* The clustered crowd's bounce world, with its walkers when fill (else the cluster
 * adds them in place: run_cluster). */
static steer_world *make_crowd(const opts *o, bool fill)
{
	crowd_layout L = crowd_layout_of(o);
	steer_world_config cfg = steer_world_config_default();
	cfg.width = cfg.height = L.side;
	cfg.edges = STEER_EDGE_BOUNCE;
	cfg.seed = o->seed;
	cfg.solid = o->solid;
	steer_world *w = steer_world_create(&cfg);
	if (!w)
		return NULL;
	if (fill && add_crowd(w, &L) != STEER_OK) {
		steer_world_destroy(w);
		return NULL;
	}
	if (rank == 0) {
		printf("workload: crowd, N=%ld, bounce world %.0f x %.0f, %d discs of avoiders "
		       "(radius %g, max_speed %g, solid %s) arriving at the next disc:",
		       o->n, L.side, L.side, CLUSTERS, L.p.radius, L.p.max_speed,
		       o->solid ? "on" : "off");
		for (int k = 0; k < CLUSTERS; k++)
			printf(" %ld in r %.0f (%dx)", L.count[k], L.r[k], 2 + k % 4);
		printf("\n");
	}
	return w;
}

static double median(double *x, size_t n)
{
	qsort(x, n, sizeof *x, bench_cmp_double);
	return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
}

/* One rank's measured ticks, then the medians over them. */
enum {
	F_OWNED,
	F_HALO,
	F_HALO_PCT,
	F_HALO_BYTES,
	F_MIGRATED,
	F_MIGRATE_BYTES,
	F_STEP,
	F_EXCHANGE,
	F_PEERS,
	F_WIDE,
	F_COUNT
};

static void report(const opts *o, const steer_cluster_figure *fig, const double *tick_s,
                   unsigned cuts0, unsigned cuts1)
{
	long T = o->ticks;
	double *col = malloc((size_t)T * sizeof *col);
	double *med = malloc((size_t)ranks * F_COUNT * sizeof *med);
	if (!col || !med) {
		fprintf(stderr, "steer-cluster-bench: out of memory for the report\n");
		free(col), free(med);
		return;
	}
	for (int r = 0; r < ranks; r++)
		for (int f = 0; f < F_COUNT; f++) {
			for (long t = 0; t < T; t++) {
				const steer_cluster_figure *g = &fig[t * ranks + r];
				double v[F_COUNT] = {
				    (double)g->owned,
				    (double)g->halo,
				    g->owned ? 100.0 * (double)g->halo / (double)g->owned : 0,
				    (double)g->halo_bytes,
				    (double)g->migrated,
				    (double)g->migrate_bytes,
				    g->step_s * 1e3,
				    g->exchange_s * 1e3,
				    (double)g->peers,
				    (double)g->wide};
				col[t] = v[f];
			}
			med[r * F_COUNT + f] = median(col, (size_t)T);
		}
	printf("\nmedians over %ld ticks, per rank:\n", T);
	printf("rank     owned      halo  halo %%   halo B/tick  migrated  migr B/tick  step ms  "
	       "exch ms  peers  wide\n");
	double peers = 0.0;
	for (int r = 0; r < ranks; r++) {
		const double *m = &med[r * F_COUNT];
		printf("%4d %9.0f %9.0f %6.2f%% %13.0f %9.0f %12.0f %8.2f %8.2f %6.0f %5.0f\n", r,
		       m[F_OWNED], m[F_HALO], m[F_HALO_PCT], m[F_HALO_BYTES], m[F_MIGRATED],
		       m[F_MIGRATE_BYTES], m[F_STEP], m[F_EXCHANGE], m[F_PEERS], m[F_WIDE]);
		peers = fmax(peers, m[F_PEERS]);
	}
	/* wide: exchanges of the tick that went through every rank, a message having
	 * been for a rank beyond the sender's neighbours within reach. */
	printf("the most neighbours a rank exchanged with: %.0f of %d other ranks\n", peers,
	       ranks - 1);
	/* A cut's figures are kept until the next: each tick's show the last cut made
	 * before it, so a cut at the end of tick k shows in tick k + 1's. */
	printf("vehicles each rank sent away at a cut of the regions, the most over the "
	       "measured ticks:");
	/* A tick's figures show the last cut, which may be the build's or the warmup's. */
	if (cuts1 == cuts0)
		printf(" none (no cut during them)");
	for (int r = 0; r < ranks && cuts1 != cuts0; r++) {
		uint64_t most = 0;
		for (long t = 0; t < T; t++)
			if (fig[t * ranks + r].cut_moved > most)
				most = fig[t * ranks + r].cut_moved;
		printf(" %llu", (unsigned long long)most);
	}
	printf("\n");
	/* Per tick across ranks: balance, totals; then their medians. */
	double *bal = malloc((size_t)T * sizeof *bal), *bytes = malloc((size_t)T * sizeof *bytes);
	double *halo = malloc((size_t)T * sizeof *halo), *hb = malloc((size_t)T * sizeof *hb);
	double *mb = malloc((size_t)T * sizeof *mb), *ex = malloc((size_t)T * sizeof *ex);
	double *stepmax = malloc((size_t)T * sizeof *stepmax);
	double *ticks = malloc((size_t)T * sizeof *ticks);
	if (!bal || !bytes || !halo || !hb || !mb || !ex || !stepmax || !ticks) {
		fprintf(stderr, "steer-cluster-bench: out of memory for the report\n");
	} else {
		for (long t = 0; t < T; t++) {
			double most = 0, sum = 0, h = 0, b1 = 0, b2 = 0, e = 0;
			for (int r = 0; r < ranks; r++) {
				const steer_cluster_figure *g = &fig[t * ranks + r];
				most = fmax(most, g->step_s);
				sum += g->step_s;
				h += (double)g->halo;
				b1 += (double)g->halo_bytes;
				b2 += (double)g->migrate_bytes;
				e = fmax(e, g->exchange_s);
			}
			bal[t] = sum > 0 ? most / (sum / ranks) : 1.0;
			halo[t] = h;
			hb[t] = b1;
			mb[t] = b2;
			bytes[t] = b1 + b2;
			ex[t] = e * 1e3;
			stepmax[t] = most * 1e3;
			ticks[t] = tick_s[t] * 1e3;
		}
		double m_bal = median(bal, (size_t)T), m_halo = median(halo, (size_t)T);
		double m_hb = median(hb, (size_t)T), m_mb = median(mb, (size_t)T);
		double m_bytes = median(bytes, (size_t)T), m_ex = median(ex, (size_t)T);
		double m_stepmax = median(stepmax, (size_t)T), m_tick = median(ticks, (size_t)T);
		printf("\nwhole world, medians over ticks:\n");
		printf("  tick (rank 0's wall, steer_cluster_step) %.2f ms = %.2f ticks/s\n",
		       m_tick, 1e3 / m_tick);
		printf("  slowest rank's step %.2f ms; balance max/mean step %.3f; slowest "
		       "exchange %.2f ms\n",
		       m_stepmax, m_bal, m_ex);
		printf("  halo %.0f vehicles (%.3f%% of N); halo %.0f B + migration %.0f B = %.0f "
		       "B/tick = %.2f MB/s at 60 Hz\n",
		       m_halo, 100.0 * m_halo / (double)o->n, m_hb, m_mb, m_bytes,
		       m_bytes * 60 / 1e6);
		printf("  cuts: %u at create, %u during the measured ticks (--cut-every %u)\n",
		       cuts0, cuts1 - cuts0, o->cut_every);
		printf("RESULT world=%s n=%ld np=%d threads=%d ticks=%ld tick_ms=%.4f "
		       "step_max_ms=%.4f exch_max_ms=%.4f balance=%.4f halo=%.0f halo_B=%.0f "
		       "migr_B=%.0f bytes_per_tick=%.0f MBps60=%.4f cuts=%u\n",
		       o->crowd ? "crowd" : "flock", o->n, ranks, o->threads, T, m_tick, m_stepmax,
		       m_ex, m_bal, m_halo, m_hb, m_mb, m_bytes, m_bytes * 60 / 1e6, cuts1);
	}
	free(bal), free(bytes), free(halo), free(hb), free(mb), free(ex), free(stepmax);
	free(ticks), free(col), free(med);
}

/* The transport alone: every rank sends `per` bytes to every other with the
 * cluster's call (MPI_Alltoallv), 30 times a size; rank 0 prints the medians. */
static int run_probe(void)
{
	static const long sizes[] = {1024, 65536, 262144, 1048576, 4194304};
	int *counts = malloc((size_t)ranks * sizeof *counts);
	int *displs = malloc((size_t)ranks * sizeof *displs);
	double ms[30];
	if (!counts || !displs) {
		free(counts), free(displs);
		return fprintf(stderr, "steer-cluster-bench: out of memory\n"), 1;
	}
	if (rank == 0)
		printf("transport probe, %d ranks: MPI_Alltoallv, each rank sending B bytes to "
		       "every other; medians of 30\n  bytes per pair   ms per call   MB/s per rank "
		       "sent\n",
		       ranks);
	for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
		long per = sizes[k];
		uint8_t *send = calloc((size_t)per * (size_t)ranks, 1);
		uint8_t *recv = calloc((size_t)per * (size_t)ranks, 1);
		if (!send || !recv) {
			free(send), free(recv), free(counts), free(displs);
			return fprintf(stderr, "steer-cluster-bench: out of memory\n"), 1;
		}
		for (int r = 0; r < ranks; r++) {
			counts[r] = r == rank ? 0 : (int)per;
			displs[r] = (int)(per * r);
		}
		for (int t = -3; t < 30; t++) { /* three untimed first */
			MPI_Barrier(MPI_COMM_WORLD);
			double a = MPI_Wtime();
			MPI_Alltoallv(send, counts, displs, MPI_BYTE, recv, counts, displs,
			              MPI_BYTE, MPI_COMM_WORLD);
			double took = MPI_Wtime() - a, most = took;
			MPI_Allreduce(&took, &most, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
			if (t >= 0)
				ms[t] = most * 1e3;
		}
		double m = median(ms, 30);
		if (rank == 0)
			printf("  %14ld   %11.3f   %13.1f\n", per, m,
			       (double)per * (ranks - 1) / (m * 1e-3) / 1e6);
		free(send), free(recv);
	}
	free(counts), free(displs);
	return 0;
}

/* Each rank's vehicles now, the room its storage has for them, and its peak
 * resident memory since it started (the build included), printed by rank 0. */
static void report_memory(const steer_world *w, const opts *o)
{
	struct rusage ru;
	const steer_vehicles *v = steer_world_vehicles(w);
	double mine[3] = {(double)v->count, (double)v->cap, 0.0};
	if (getrusage(RUSAGE_SELF, &ru) == 0)
		mine[2] = (double)ru.ru_maxrss / 1024.0; /* KiB on Linux */
	double *all = rank == 0 ? malloc(3 * (size_t)ranks * sizeof *all) : NULL;
	if (rank == 0 && !all) {
		fprintf(stderr, "steer-cluster-bench: out of memory for the report\n");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	MPI_Gather(mine, 3, MPI_DOUBLE, all, 3, MPI_DOUBLE, 0, MPI_COMM_WORLD);
	if (rank != 0)
		return;
	printf("\nmemory per rank (peak resident set since start, the build included):\n"
	       "rank  vehicles  storage for  peak RSS MiB\n");
	double most = 0.0, held = 0.0;
	for (int r = 0; r < ranks; r++) {
		const double *m = &all[3 * r];
		printf("%4d %9.0f %12.0f %13.1f\n", r, m[0], m[1], m[2]);
		most = fmax(most, m[2]);
		held = fmax(held, m[1]);
	}
	printf("MEMORY world=%s n=%ld np=%d rss_max_MiB=%.1f storage_max=%.0f "
	       "storage_max_of_n=%.4f\n",
	       o->crowd ? "crowd" : "flock", o->n, ranks, most, held, held / (double)o->n);
	free(all);
}

/* One rank: the world stepped plainly, the single-process figure to compare with. */
static int run_plain(const opts *o, steer_world *w)
{
	for (long k = 0; k < o->warmup; k++)
		if (steer_world_step(w) != STEER_OK)
			return fprintf(stderr, "steer-cluster-bench: step failed\n"), 1;
	double *ms = malloc((size_t)o->ticks * sizeof *ms);
	if (!ms)
		return fprintf(stderr, "steer-cluster-bench: out of memory\n"), 1;
	for (long k = 0; k < o->ticks; k++) {
		double a = bench_clock(CLOCK_MONOTONIC);
		if (steer_world_step(w) != STEER_OK) {
			free(ms);
			return fprintf(stderr, "steer-cluster-bench: step failed\n"), 1;
		}
		ms[k] = (bench_clock(CLOCK_MONOTONIC) - a) * 1e3;
	}
	double m = median(ms, (size_t)o->ticks);
	printf("\nplain world on one process (no cluster): median tick %.2f ms = %.2f ticks/s, "
	       "%.1f ns per vehicle-tick; reach now %.1f\n",
	       m, 1e3 / m, m * 1e6 / (double)o->n, steer_world_reach(w));
	printf("RESULT world=%s n=%ld np=1 threads=%d ticks=%ld tick_ms=%.4f step_max_ms=%.4f "
	       "exch_max_ms=0 balance=1 halo=0 halo_B=0 migr_B=0 bytes_per_tick=0 MBps60=0 "
	       "cuts=0\n",
	       o->crowd ? "crowd" : "flock", o->n, o->threads, o->ticks, m, m);
	free(ms);
	if (o->hash) {
		uint64_t h = bench_state_hash(steer_world_vehicles(w));
		printf("state after %ld ticks: %016llx\n", o->warmup + o->ticks,
		       (unsigned long long)h);
	}
	return 0;
}

/* The world's vehicles added to the cluster's empty worlds: each rank keeps only its
 * region's (the cluster's steer_world_set_region_keep). The flock's regions stay the
 * equal areas of an empty world's cut, which a uniform flock balances; the crowd's
 * discs are then cut again by the model of cost, as a world split whole would be.
 * 0, or 1 with why in err. */
static int build_in_place(const opts *o, steer_cluster *c, steer_world *w, char *err, size_t errlen)
{
	steer_status st;
	if (o->crowd) {
		crowd_layout L = crowd_layout_of(o);
		st = add_crowd(w, &L);
	} else {
		steer_params p = steer_flock_params();
		st = bench_add_flock(w, o->n, flock_side(o, &p), &p);
	}
	int ok = st == STEER_OK, all = 0;
	MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	if (!all) {
		snprintf(err, errlen, "out of memory adding the %s", o->crowd ? "crowd" : "flock");
		return 1;
	}
	if (o->crowd && steer_cluster_rebalance(c, err, errlen) != STEER_OK)
		return 1;
	return 0;
}

static int run_cluster(const opts *o, steer_world *w)
{
	char err[256] = "";
	steer_cluster_options copt = steer_cluster_options_default();
	copt.rebalance_ticks = o->cut_every;
	double t0 = MPI_Wtime();
	steer_cluster *c = steer_cluster_create(MPI_COMM_WORLD, w, &copt, err, sizeof err);
	if (!c) {
		if (rank == 0)
			fprintf(stderr, "steer-cluster-bench: %s\n", err);
		return 1;
	}
	if (rank == 0)
		printf("cluster of %d ranks made in %.2f s\n", ranks, MPI_Wtime() - t0);
	t0 = MPI_Wtime();
	int bad = build_in_place(o, c, w, err, sizeof err);
	if (bad) {
		if (rank == 0)
			fprintf(stderr, "steer-cluster-bench: %s\n", err);
		steer_cluster_destroy(c);
		return 1;
	}
	if (rank == 0)
		printf("%s built in place in %.2f s: every rank drew every vehicle and kept its "
		       "region's (%s)\n",
		       o->crowd ? "crowd" : "flock", MPI_Wtime() - t0,
		       o->crowd ? "then the regions were cut by the model of cost"
		                : "the equal-area regions");
	for (long k = 0; k < o->warmup && !bad; k++)
		bad = steer_cluster_step(c, err, sizeof err) != STEER_OK;
	unsigned cuts0 = steer_cluster_cuts(c);
	steer_cluster_figure *fig = malloc((size_t)o->ticks * (size_t)ranks * sizeof *fig);
	double *tick_s = malloc((size_t)o->ticks * sizeof *tick_s);
	if (!fig || !tick_s) {
		fprintf(stderr, "steer-cluster-bench: out of memory\n");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	for (long k = 0; k < o->ticks && !bad; k++) {
		double a = MPI_Wtime();
		bad = steer_cluster_step(c, err, sizeof err) != STEER_OK;
		tick_s[k] = MPI_Wtime() - a;
		steer_cluster_figures(c, &fig[k * ranks]);
	}
	if (bad) {
		if (rank == 0)
			fprintf(stderr, "steer-cluster-bench: step failed: %s\n", err);
	} else {
		if (rank == 0)
			report(o, fig, tick_s, cuts0, steer_cluster_cuts(c));
		if (o->hash) {
			steer_world *all = NULL;
			if (steer_cluster_gather(c, &all, err, sizeof err) != STEER_OK) {
				if (rank == 0)
					fprintf(stderr, "steer-cluster-bench: gather: %s\n", err);
				bad = 1;
			} else if (rank == 0) {
				uint64_t h = bench_state_hash(steer_world_vehicles(all));
				printf("state after %ld ticks: %016llx (%zu vehicles gathered)\n",
				       o->warmup + o->ticks, (unsigned long long)h,
				       steer_world_vehicles(all)->count);
				steer_world_destroy(all);
			}
		}
	}
	free(fig);
	free(tick_s);
	steer_cluster_destroy(c);
	return bad;
}

int main(int argc, char **argv)
{
	if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
		fprintf(stderr, "steer-cluster-bench: MPI_Init failed\n");
		return 1;
	}
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &ranks);
	opts o = {.n = 1000000, .ticks = 20, .warmup = 5, .threads = 1, .seed = 1, .hash = 1};
	int rc = parse(argc, argv, &o);
	if (rc) {
		MPI_Finalize();
		return rc == 1 ? 0 : rc;
	}
	if (o.probe) {
		rc = run_probe();
		MPI_Finalize();
		return rc;
	}
	double t0 = MPI_Wtime();
	steer_world *w = o.crowd ? make_crowd(&o, ranks == 1) : make_flock(&o, ranks == 1);
	int ok = w && steer_world_set_threads(w, o.threads) == STEER_OK, all = ok;
	MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	if (!all) {
		if (rank == 0)
			fprintf(stderr,
			        "steer-cluster-bench: cannot build the world (out of memory, "
			        "or threads)\n");
		steer_world_destroy(w);
		MPI_Finalize();
		return 1;
	}
	if (rank == 0)
		printf("ranks %d, threads %d per rank, world built in %.2f s; reach %.1f; warmup "
		       "%ld, measured %ld ticks\n",
		       ranks, o.threads, MPI_Wtime() - t0, steer_world_reach(w), o.warmup, o.ticks);
	rc = ranks == 1 ? run_plain(&o, w) : run_cluster(&o, w);
	if (rc == 0)
		report_memory(w, &o);
	steer_world_destroy(w);
	MPI_Finalize();
	return rc;
}
