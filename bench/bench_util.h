/* What the benchmark programs share: a clock, the order timings are sorted in, a
 * hash of the world's state and the flock they time. Each program is one file; these are small
 * enough to be inline. */
#ifndef STEER_BENCH_UTIL_H
#define STEER_BENCH_UTIL_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "steer/world.h"

/* Seconds on clock c (CLOCK_MONOTONIC, CLOCK_PROCESS_CPUTIME_ID). */
static inline double bench_clock(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* qsort's comparison for doubles, ascending. */
static inline int bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* FNV-1a over every vehicle's id, position, velocity and heading in id order: equal
 * for runs that gave the same bits, however storage came to be ordered. 0 when the
 * scratch it needs cannot be had (then no two runs can be told apart: say so). */
static inline uint64_t bench_state_hash(const steer_vehicles *v)
{
	uint32_t top = 0;
	for (size_t i = 0; i < v->count; i++)
		top = v->id[i] > top ? v->id[i] : top;
	uint32_t *slot_of = malloc(((size_t)top + 1) * sizeof *slot_of);
	if (!slot_of)
		return 0;
	for (size_t k = 0; k <= top; k++)
		slot_of[k] = UINT32_MAX;
	for (size_t i = 0; i < v->count; i++)
		slot_of[v->id[i]] = (uint32_t)i;
	uint64_t h = 1469598103934665603u;
	for (size_t k = 0; k <= top; k++) {
		uint32_t i = slot_of[k];
		if (i == UINT32_MAX)
			continue;
		double d[6] = {v->px[i], v->py[i], v->vx[i], v->vy[i], v->hx[i], v->hy[i]};
		unsigned char b[sizeof d + sizeof v->id[i]];
		memcpy(b, d, sizeof d);
		memcpy(b + sizeof d, &v->id[i], sizeof v->id[i]);
		for (size_t c = 0; c < sizeof b; c++)
			h = (h ^ b[c]) * 1099511628211u;
	}
	free(slot_of);
	return h;
}

/* n flocking boids at random over a side x side square, each heading its own way at
 * p's max_speed, drawn from w's generator: the flock the benchmarks time. Added in
 * bulk a chunk at a time, so that a region of a world over ranks keeps only its own
 * and never holds the whole flock (steer_world_set_region_keep). STEER_OK, or the
 * failure that stopped it. */
static inline steer_status bench_add_flock(steer_world *w, long n, double side,
                                           const steer_params *p)
{
	enum { CHUNK = 65536 };
	steer_vec2 *pos = malloc(CHUNK * sizeof *pos), *vel = malloc(CHUNK * sizeof *vel);
	steer_status st = pos && vel ? STEER_OK : STEER_ERR_NOMEM;
	steer_rng *rng = steer_world_rng(w);
	for (long done = 0; done < n && st == STEER_OK;) {
		long m = n - done < CHUNK ? n - done : CHUNK;
		for (long k = 0; k < m; k++) {
			double a = steer_rng_range(rng, 0, STEER_TAU);
			pos[k] = v2(steer_rng_range(rng, 0, side), steer_rng_range(rng, 0, side));
			vel[k] = v2(cos(a) * p->max_speed, sin(a) * p->max_speed);
		}
		st = steer_vehicles_add(w, (size_t)m, pos, vel, p, STEER_FLOCK, NULL);
		done += m;
	}
	free(pos);
	free(vel);
	return st;
}

/* A world of cfg on `threads` threads, its lanes capped at `simd` (*got: the level it
 * runs); NULL with a message on stderr naming `who` when it cannot be had. */
static inline steer_world *bench_world(const steer_world_config *cfg, int threads,
                                       steer_simd_level simd, steer_simd_level *got,
                                       const char *who)
{
	steer_world *w = steer_world_create(cfg);
	if (!w) {
		fprintf(stderr, "%s: creating the world: %s\n", who,
		        steer_status_str(STEER_ERR_NOMEM));
		return NULL;
	}
	steer_status st = steer_world_set_threads(w, threads);
	if (st != STEER_OK) {
		fprintf(stderr, "%s: threads: %s\n", who, steer_status_str(st));
		steer_world_destroy(w);
		return NULL;
	}
	*got = steer_world_set_simd(w, simd);
	return w;
}

/* By vehicle id, the agent a that got id[a] (a in [0, n)), -1 for ids no agent got:
 * *map of *ids entries, the caller's to free. 0, or -1 when memory runs out. */
static inline int bench_agent_map(const uint32_t *id, long n, long **map, size_t *ids)
{
	uint32_t top = 0;
	for (long a = 0; a < n; a++)
		top = id[a] > top ? id[a] : top;
	*ids = (size_t)top + 1;
	*map = malloc(*ids * sizeof **map);
	if (!*map)
		return -1;
	for (size_t k = 0; k < *ids; k++)
		(*map)[k] = -1;
	for (long a = 0; a < n; a++)
		(*map)[id[a]] = a;
	return 0;
}

/* Where world w's timed ticks went, phase by phase (steer_world_time_phases), on one
 * line that begins with `label`. */
static inline void bench_print_phases(const char *label, const steer_world *w)
{
	steer_phase_times ph = steer_world_phase_times(w);
	if (!ph.ticks)
		return;
	double t = (double)ph.ticks;
	printf("%s mean ms per tick: index %.3f (grid, cell sort, order, re-sorts), forces "
	       "%.3f, moves %.3f, bodies %.3f\n",
	       label, ph.index_s * 1e3 / t, ph.forces_s * 1e3 / t, ph.moves_s * 1e3 / t,
	       ph.bodies_s * 1e3 / t);
	if (ph.alone_s > 0.0)
		printf("%s of which on one thread while the others wait: %.3f ms per tick\n", label,
		       ph.alone_s * 1e3 / t);
}

/* One run's figures at one thread count, for the scaling table. */
typedef struct bench_figures {
	int threads;
	long ticks;             /* timed */
	double mean_ms, p50_ms; /* wall time per tick */
	uint64_t bits;          /* bench_state_hash at the end */
} bench_figures;

/* The median of x[0..n) (n >= 1; x is reordered). */
static inline double bench_median(double *x, int n)
{
	qsort(x, (size_t)n, sizeof *x, bench_cmp_double);
	return n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}

/* The scaling table of `rounds` rounds of runs of one workload from the same start,
 * r[round * n + k] the k-th count's: each count's median mean and p50 over the rounds,
 * its speedup over the first count as the median of the rounds' ratios (each round's
 * runs follow each other, so a ratio compares runs on the machine as it was then),
 * and whether every run ended with the first one's bits. */
static inline void bench_print_scaling(const bench_figures *r, int n, int rounds)
{
	printf("\n");
	if (rounds > 1)
		printf("medians of %d rounds, the counts' order reversed every other round:\n",
		       rounds);
	printf("scaling: threads  mean ms/tick  p50 ms  speedup  same bits as %d thread%s\n",
	       r[0].threads, r[0].threads == 1 ? "" : "s");
	double mean[64], p50[64], ratio[64];
	for (int k = 0; k < n; k++) {
		bool same = true;
		for (int q = 0; q < rounds; q++) {
			const bench_figures *f = &r[q * n + k];
			mean[q] = f->mean_ms;
			p50[q] = f->p50_ms;
			ratio[q] = r[q * n].mean_ms / f->mean_ms;
			same = same && f->bits == r[0].bits;
		}
		double m = bench_median(mean, rounds), p = bench_median(p50, rounds);
		printf("         %7d  %12.3f  %6.3f  %6.2fx  %s\n", r[k].threads, m, p,
		       bench_median(ratio, rounds),
		       k == 0 && rounds == 1 ? "-"
		       : same                ? "yes"
		                             : "NO");
	}
}

#endif
