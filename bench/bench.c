/* steer-bench: ticks a flock of N boids in a wrap world and prints how fast. The
 * world is sized so each boid has about --neighbours others within sight_distance,
 * the workload the README's figures and OpenSteer's boids benchmark use. --naive
 * runs the same rule with an all-pairs neighbour loop, as the baseline. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "behaviors.h"
#include "scenario.h"
#include "world.h"

typedef struct bench_opts {
	long n;
	long ticks; /* 0: pick a count that takes about a second */
	double neighbours;
	int naive;
	uint64_t seed;
} bench_opts;

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: steer-bench [N] [--ticks T] [--neighbours K] [--naive] [--seed S]\n"
	           "  N             boids (default 10000)\n"
	           "  --ticks T     ticks to time (default: enough for about one second)\n"
	           "  --neighbours  mean boids within sight_distance, sets the world size (10)\n"
	           "  --naive       all-pairs neighbour search instead of the grid\n");
}

static int parse_args(int argc, char **argv, bench_opts *o)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *val = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			exit(0);
		} else if (!strcmp(a, "--naive")) {
			o->naive = 1;
		} else if (!strcmp(a, "--ticks") && val) {
			o->ticks = strtol(val, NULL, 10);
			i++;
		} else if (!strcmp(a, "--neighbours") && val) {
			o->neighbours = strtod(val, NULL);
			i++;
		} else if (!strcmp(a, "--seed") && val) {
			o->seed = strtoull(val, NULL, 10);
			i++;
		} else if (a[0] != '-') {
			o->n = strtol(a, NULL, 10);
		} else {
			fprintf(stderr, "steer-bench: unknown argument '%s'\n", a);
			usage(stderr);
			return -1;
		}
	}
	if (o->n < 2 || o->n > 20000000 || o->ticks < 0 || !(o->neighbours > 0)) {
		fprintf(stderr, "steer-bench: N must be 2..20000000, ticks >= 0, neighbours > 0\n");
		return -1;
	}
	return 0;
}

/* The baseline: the same flocking parts, neighbours found by testing every pair. */
static void naive_step(steer_world *w, double *fx, double *fy)
{
	const steer_vehicles *v = steer_world_vehicles(w);
	const steer_world_config *c = steer_world_config_get(w);
	double dt = steer_world_dt(w);
	for (size_t i = 0; i < v->count; i++) {
		const steer_params *p = &v->state[i].prm;
		steer_agent a = {v2(v->vx[i], v->vy[i]), v2(v->hx[i], v->hy[i]), p};
		steer_vec2 sep = v2(0, 0), sd = v2(0, 0), sv = v2(0, 0);
		size_t n = 0;
		for (size_t j = 0; j < v->count; j++) {
			if (j == i)
				continue;
			steer_vec2 d =
			    steer_world_delta(w, v2(v->px[i], v->py[i]), v2(v->px[j], v->py[j]));
			double d2 = v2_len2(d);
			if (d2 > p->sight_distance * p->sight_distance)
				continue;
			n++;
			sd = v2_add(sd, d);
			sv = v2_add(sv, v2(v->vx[j], v->vy[j]));
			if (d2 < p->too_close_distance * p->too_close_distance)
				sep = v2_add(sep, steer_separate_one(&a, d, v->id[i], v->id[j]));
		}
		steer_vec2 parts[STEER_PART_COUNT];
		uint32_t mask = 0;
		if (n) {
			parts[STEER_PART_SEPARATION] = v2_scale(sep, p->separation_weight);
			parts[STEER_PART_COHESION] =
			    v2_scale(steer_cohere(&a, v2_scale(sd, 1.0 / n)), p->cohesion_weight);
			parts[STEER_PART_ALIGNMENT] =
			    v2_scale(steer_align(&a, v2_scale(sv, 1.0 / n)), p->alignment_weight);
			mask = (1u << STEER_PART_SEPARATION) | (1u << STEER_PART_COHESION) |
			       (1u << STEER_PART_ALIGNMENT);
		}
		steer_vec2 f = steer_combine_parts(parts, mask, p, dt);
		fx[i] = f.x;
		fy[i] = f.y;
	}
	/* Integrate through the public API so both modes move boids the same way. */
	for (size_t i = 0; i < v->count; i++) {
		const steer_params *p = &v->state[i].prm;
		steer_vec2 vel = v2_truncate(
		    v2(v->vx[i] + fx[i] / p->mass * dt, v->vy[i] + fy[i] / p->mass * dt),
		    p->max_speed);
		double x = fmod(v->px[i] + vel.x * dt + c->width, c->width);
		double y = fmod(v->py[i] + vel.y * dt + c->height, c->height);
		steer_vehicle_set_velocity(w, v->id[i], vel);
		steer_vehicle_set_position(w, v->id[i], v2(x, y));
	}
}

static double mean_neighbours(const steer_world *w, size_t samples)
{
	const steer_vehicles *v = steer_world_vehicles(w);
	double sight = v->state[0].prm.sight_distance;
	size_t total = 0, step = v->count / samples ? v->count / samples : 1, taken = 0;
	for (size_t i = 0; i < v->count; i += step, taken++)
		for (size_t j = 0; j < v->count; j++)
			if (j != i &&
			    v2_len2(steer_world_delta(w, v2(v->px[i], v->py[i]),
			                              v2(v->px[j], v->py[j]))) <= sight * sight)
				total++;
	return (double)total / (double)taken;
}

int main(int argc, char **argv)
{
	bench_opts o = {10000, 0, 10.0, 0, 1};
	if (parse_args(argc, argv, &o) != 0)
		return 2;
	steer_params p = steer_flock_params();
	double side = sqrt((double)o.n * 3.141592653589793 * p.sight_distance * p.sight_distance /
	                   o.neighbours);
	steer_world_config cfg = steer_world_config_default();
	cfg.width = cfg.height = side;
	cfg.seed = o.seed;
	steer_world *w = steer_world_create(&cfg);
	double *fx = malloc((size_t)o.n * sizeof *fx), *fy = malloc((size_t)o.n * sizeof *fy);
	if (!w || !fx || !fy) {
		fprintf(stderr, "steer-bench: out of memory\n");
		return 1;
	}
	steer_rng *rng = steer_world_rng(w);
	for (long k = 0; k < o.n; k++) {
		double a = steer_rng_range(rng, 0, 6.283185307179586);
		uint32_t id;
		steer_vec2 pos = v2(steer_rng_range(rng, 0, side), steer_rng_range(rng, 0, side));
		if (steer_vehicle_add(w, pos, v2(cos(a) * p.max_speed, sin(a) * p.max_speed), &p,
		                      &id) ||
		    steer_vehicle_enable(w, id, STEER_FLOCK, true)) {
			fprintf(stderr, "steer-bench: cannot add vehicle %ld\n", k);
			return 1;
		}
	}
	printf("workload: flock, N=%ld, wrap world %.0f x %.0f, sight_distance %.0f, "
	       "density %.3g per 1000 unit^2, mode %s\n",
	       o.n, side, side, p.sight_distance, (double)o.n / (side * side) * 1000.0,
	       o.naive ? "naive all-pairs" : "grid");
	printf("measured mean neighbours within sight at start: %.1f\n", mean_neighbours(w, 200));

	/* Size the run from one warm-up tick: about a second of timed ticks. */
	double t0 = now_s();
	if (o.naive)
		naive_step(w, fx, fy);
	else if (steer_world_step(w) != STEER_OK)
		return 1;
	double one = now_s() - t0;
	long ticks = o.ticks ? o.ticks : (long)fmax(3.0, fmin(600.0, 1.0 / fmax(one, 1e-6)));
	double *ms = malloc((size_t)ticks * sizeof *ms);
	if (!ms)
		return 1;
	double start = now_s();
	for (long t = 0; t < ticks; t++) {
		double a = now_s();
		if (o.naive)
			naive_step(w, fx, fy);
		else if (steer_world_step(w) != STEER_OK) {
			fprintf(stderr, "steer-bench: step failed: out of memory\n");
			return 1;
		}
		ms[t] = (now_s() - a) * 1e3;
	}
	double total = now_s() - start;
	qsort(ms, (size_t)ticks, sizeof *ms, cmp_double);
	double mean_ms = total * 1e3 / (double)ticks;
	printf("ticks %ld: %.1f ticks/s, mean %.3f ms/tick, p50 %.3f ms, p99 %.3f ms, "
	       "%.1f ns per vehicle-tick\n",
	       ticks, (double)ticks / total, mean_ms, ms[ticks / 2],
	       ms[(size_t)((double)(ticks - 1) * 0.99)], mean_ms * 1e6 / (double)o.n);
	printf("measured mean neighbours within sight at end: %.1f\n", mean_neighbours(w, 200));
	free(ms);
	free(fx);
	free(fy);
	steer_world_destroy(w);
	return 0;
}
