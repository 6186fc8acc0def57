#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "obstacles.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bench_util.h"
#include "scenario.h"
#include "steer/rng.h"
#include "steer/world.h"

/* The world of issue 17's target: 4000 x 3000 (wrap) for 5,000 boids, scaled with N
 * so that the density stays; circles of radius 10-30 drifting at up to 20 per axis. */
#define WORLD_W   4000.0
#define WORLD_H   3000.0
#define WORLD_N   5000.0
#define R_MIN     10.0
#define R_MAX     30.0
#define DRIFT     20.0
#define WARMUP    20
#define MAX_PAIRS 101

static double median(double *v, long n)
{
	qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static int fail(const char *what, steer_status st)
{
	fprintf(stderr, "steer-bench --obstacles: %s: %s\n", what, steer_status_str(st));
	return 1;
}

/* The circles first, then the boids, all from the world's generator (as the driver
 * the figures in docs/PERFORMANCE.md were first measured with). */
static steer_world *make_world(const obstacles_opts *o, long circles)
{
	double scale = sqrt((double)o->n / WORLD_N);
	double ww = WORLD_W * scale, wh = WORLD_H * scale;
	steer_world_config c = steer_world_config_default();
	c.width = ww;
	c.height = wh;
	c.edges = STEER_EDGE_WRAP;
	c.seed = o->seed;
	c.solid = !o->no_solid;
	steer_simd_level simd;
	steer_world *w = bench_world(&c, o->threads, o->simd, &simd, "steer-bench --avoid");
	if (!w)
		return NULL;
	steer_status st = STEER_OK;
	steer_rng *r = steer_world_rng(w);
	for (long k = 0; k < circles && st == STEER_OK; k++) {
		steer_vec2 at = v2(steer_rng_range(r, 0, ww), steer_rng_range(r, 0, wh));
		steer_vec2 vel =
		    v2(steer_rng_range(r, -DRIFT, DRIFT), steer_rng_range(r, -DRIFT, DRIFT));
		st = steer_obstacle_add(w, at, vel, steer_rng_range(r, R_MIN, R_MAX), NULL);
	}
	steer_params p = steer_flock_params();
	for (long k = 0; k < o->n && st == STEER_OK; k++) {
		uint32_t id;
		steer_vec2 at = v2(steer_rng_range(r, 0, ww), steer_rng_range(r, 0, wh));
		steer_vec2 vel = v2(steer_rng_range(r, -30, 30), steer_rng_range(r, -30, 30));
		st = steer_vehicle_add(w, at, vel, &p, &id);
		if (st == STEER_OK)
			st = steer_vehicle_enable(w, id, STEER_FLOCK | STEER_AVOID, true);
	}
	for (int t = 0; t < WARMUP && st == STEER_OK; t++)
		st = steer_world_step(w);
	if (st != STEER_OK) {
		fail("building the world", st);
		steer_world_destroy(w);
		return NULL;
	}
	return w;
}

/* Mean ms per tick over `ticks` steps; negative when a step fails. */
static double time_ticks(steer_world *w, long ticks)
{
	double t0 = bench_clock(CLOCK_MONOTONIC);
	for (long k = 0; k < ticks; k++)
		if (steer_world_step(w) != STEER_OK)
			return -1.0;
	return (bench_clock(CLOCK_MONOTONIC) - t0) * 1e3 / (double)ticks;
}

int obstacles_bench(const obstacles_opts *o)
{
	long ticks = o->ticks ? o->ticks : 60, pairs = o->pairs ? o->pairs : 5;
	if (pairs > MAX_PAIRS)
		pairs = MAX_PAIRS;
	steer_world *none = make_world(o, 0);
	steer_world *some = none ? make_world(o, o->obstacles) : NULL;
	if (!some) {
		steer_world_destroy(none);
		return 1;
	}
	double scale = sqrt((double)o->n / WORLD_N);
	printf("workload: %ld flocking boids with avoid, wrap world %.0f x %.0f, solid %s, "
	       "threads %d; 0 against %ld drifting circles (radius %g-%g), %ld pairs of %ld "
	       "ticks after %d warm-up ticks\n",
	       o->n, WORLD_W * scale, WORLD_H * scale, o->no_solid ? "off" : "on", o->threads,
	       o->obstacles, R_MIN, R_MAX, pairs, ticks, WARMUP);
	double ms0[MAX_PAIRS], ms1[MAX_PAIRS], ratio[MAX_PAIRS];
	for (long k = 0; k < pairs; k++) {
		/* Alternate which goes first, so that a drift of the machine's speed falls
		 * on both alike. */
		if (k % 2 == 0) {
			ms0[k] = time_ticks(none, ticks);
			ms1[k] = time_ticks(some, ticks);
		} else {
			ms1[k] = time_ticks(some, ticks);
			ms0[k] = time_ticks(none, ticks);
		}
		if (ms0[k] < 0 || ms1[k] < 0) {
			steer_world_destroy(none);
			steer_world_destroy(some);
			return fail("step", STEER_ERR_NOMEM);
		}
		ratio[k] = ms1[k] / ms0[k];
		printf(
		    "pair %ld: 0 obstacles %.3f ms/tick, %ld obstacles %.3f ms/tick, ratio %.3f\n",
		    k + 1, ms0[k], o->obstacles, ms1[k], ratio[k]);
	}
	double m0 = median(ms0, pairs), m1 = median(ms1, pairs), mr = median(ratio, pairs);
	printf("median: 0 obstacles %.3f ms/tick, %ld obstacles %.3f ms/tick, ratio (median of "
	       "pairs) %.3f\n",
	       m0, o->obstacles, m1, mr);
	printf("RESULT system=steer-obstacles n=%ld obstacles=%ld ticks=%ld pairs=%ld "
	       "ms_none=%.4f ms_some=%.4f ratio=%.4f threads=%d\n",
	       o->n, o->obstacles, ticks, pairs, m0, m1, mr, o->threads);
	steer_world_destroy(none);
	steer_world_destroy(some);
	return 0;
}
