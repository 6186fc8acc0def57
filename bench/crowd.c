#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "crowd.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include "crowd_layout.h"
#include "steer/world.h"

/* The walkers' parameters: the default vehicle (radius 5) at a walking pace of the
 * flock's max_speed. */
static steer_params crowd_params(void)
{
	steer_params p = steer_params_default();
	p.max_speed = 50.0;
	return p;
}

/* The run's state besides the world: each agent's goal, by the agent's id. */
typedef struct crowd_run {
	crowd_layout layout;
	steer_world *w;
	long *agent_of;   /* by vehicle id: the agent's index, -1 for none */
	long *goal_index; /* by agent: k of its current goal, crowd_point(a, k) */
	double *gx, *gy;  /* by agent: the current goal */
	size_t ids;       /* agent_of's length */
	long arrivals;
} crowd_run;

static void crowd_run_free(crowd_run *r)
{
	steer_world_destroy(r->w);
	free(r->agent_of), free(r->goal_index), free(r->gx), free(r->gy);
}

static int fail(const char *what, steer_status st)
{
	fprintf(stderr, "steer-bench --crowd: %s: %s\n", what, steer_status_str(st));
	return 1;
}

static int add_shapes(crowd_run *r)
{
	for (long k = 0; k < crowd_shape_count(&r->layout); k++) {
		crowd_shape s = crowd_shape_at(&r->layout, k);
		steer_status st =
		    s.wall ? steer_wall_add(r->w, v2(s.x1, s.y1), v2(s.x2, s.y2), NULL)
		           : steer_obstacle_add(r->w, v2(s.x1, s.y1), v2(0, 0), s.r, NULL);
		if (st != STEER_OK)
			return fail(s.wall ? "adding a wall" : "adding an obstacle", st);
	}
	return 0;
}

static int add_agents(crowd_run *r, const steer_params *p)
{
	long n = r->layout.n;
	r->goal_index = malloc((size_t)n * sizeof *r->goal_index);
	r->gx = malloc((size_t)n * sizeof *r->gx);
	r->gy = malloc((size_t)n * sizeof *r->gy);
	uint32_t *id = malloc((size_t)n * sizeof *id);
	if (!r->goal_index || !r->gx || !r->gy || !id) {
		free(id);
		return fail("agents", STEER_ERR_NOMEM);
	}
	for (long a = 0; a < n; a++) {
		double x, y;
		crowd_point(&r->layout, a, 0, &x, &y);
		crowd_point(&r->layout, a, 1, &r->gx[a], &r->gy[a]);
		r->goal_index[a] = 1;
		steer_status st = steer_vehicle_add(r->w, v2(x, y), v2(0, 0), p, &id[a]);
		if (st == STEER_OK)
			st = steer_vehicle_enable(r->w, id[a], STEER_AVOID, true);
		if (st == STEER_OK)
			st = steer_vehicle_target(r->w, id[a], STEER_SEEK, v2(r->gx[a], r->gy[a]));
		if (st != STEER_OK) {
			free(id);
			return fail("adding a vehicle", st);
		}
	}
	int bad = bench_agent_map(id, n, &r->agent_of, &r->ids);
	free(id);
	return bad ? fail("agents", STEER_ERR_NOMEM) : 0;
}

/* After a tick: every agent within its radius of its goal gets its next one. */
static int retarget(crowd_run *r, double reach)
{
	const steer_vehicles *v = steer_world_vehicles(r->w);
	for (size_t i = 0; i < v->count; i++) {
		long a = v->id[i] < r->ids ? r->agent_of[v->id[i]] : -1;
		if (a < 0)
			continue;
		double dx = r->gx[a] - v->px[i], dy = r->gy[a] - v->py[i];
		if (dx * dx + dy * dy > reach * reach)
			continue;
		r->arrivals++;
		crowd_point(&r->layout, a, ++r->goal_index[a], &r->gx[a], &r->gy[a]);
		steer_status st =
		    steer_vehicle_target(r->w, v->id[i], STEER_SEEK, v2(r->gx[a], r->gy[a]));
		if (st != STEER_OK)
			return fail("setting a goal", st);
	}
	return 0;
}

static int tick(crowd_run *r, double reach)
{
	steer_status st = steer_world_step(r->w);
	if (st != STEER_OK)
		return fail("step", st);
	return retarget(r, reach);
}

/* Overlapping pairs and agents inside shapes at the end, and the mean speed; *bits
 * gets the state's hash. */
static int report_state(const crowd_run *r, double radius, uint64_t *bits_out)
{
	const steer_vehicles *v = steer_world_vehicles(r->w);
	long n = (long)v->count;
	double speed = 0;
	for (size_t i = 0; i < v->count; i++)
		speed += hypot(v->vx[i], v->vy[i]);
	long pairs = crowd_overlaps(v->px, v->py, n, radius, r->layout.side, NULL);
	long inside = crowd_inside_shapes(&r->layout, v->px, v->py, n, radius);
	if (pairs < 0)
		return fail("counting overlaps", STEER_ERR_NOMEM);
	uint64_t bits = bench_state_hash(v);
	if (!bits)
		return fail("hashing the state", STEER_ERR_NOMEM);
	*bits_out = bits;
	printf("at the end: mean speed %.1f, %ld overlapping pairs, %ld inside an obstacle "
	       "(beyond 1%% of the radius); state %016llx\n",
	       speed / (double)n, pairs, inside, (unsigned long long)bits);
	return 0;
}

int crowd_bench(const crowd_opts *o, bench_figures *out)
{
	steer_params p = crowd_params();
	crowd_run r;
	memset(&r, 0, sizeof r);
	r.layout = crowd_layout_make(o->n, o->neighbours, p.radius, o->seed);
	steer_world_config cfg = steer_world_config_default();
	cfg.width = cfg.height = r.layout.side;
	cfg.edges = STEER_EDGE_BOUNCE;
	cfg.seed = o->seed;
	cfg.solid = !o->no_solid;
	steer_simd_level simd;
	r.w = bench_world(&cfg, o->threads, o->simd, &simd, "steer-bench --crowd");
	if (!r.w || add_agents(&r, &p) || add_shapes(&r)) {
		crowd_run_free(&r);
		return 1;
	}
	long circles = (crowd_shape_count(&r.layout) + 1) / 2;
	printf("workload: crowd, N=%ld, world %.0f x %.0f (bounce), %ld circles, %ld walls, "
	       "solid %s, radius %g, max_speed %g, "
	       "threads %d, simd %s\n",
	       o->n, r.layout.side, r.layout.side, circles, crowd_shape_count(&r.layout) - circles,
	       cfg.solid ? "on" : "off", p.radius, p.max_speed, o->threads, steer_simd_name(simd));
	double reach = p.radius;
	for (long k = 0; k < o->warmup; k++)
		if (tick(&r, reach)) {
			crowd_run_free(&r);
			return 1;
		}
	double t0 = bench_clock(CLOCK_MONOTONIC);
	if (tick(&r, reach)) {
		crowd_run_free(&r);
		return 1;
	}
	double one = bench_clock(CLOCK_MONOTONIC) - t0;
	long ticks = o->ticks ? o->ticks : (long)fmax(3.0, fmin(600.0, 1.0 / fmax(one, 1e-6)));
	double *ms = malloc((size_t)ticks * sizeof *ms);
	if (!ms) {
		crowd_run_free(&r);
		return fail("timing", STEER_ERR_NOMEM);
	}
	long arrivals0 = r.arrivals;
	steer_world_time_phases(r.w, true);
	double c0 = bench_clock(CLOCK_PROCESS_CPUTIME_ID), start = bench_clock(CLOCK_MONOTONIC);
	for (long k = 0; k < ticks; k++) {
		double a = bench_clock(CLOCK_MONOTONIC);
		if (tick(&r, reach)) {
			free(ms);
			crowd_run_free(&r);
			return 1;
		}
		ms[k] = (bench_clock(CLOCK_MONOTONIC) - a) * 1e3;
	}
	double total = bench_clock(CLOCK_MONOTONIC) - start;
	double cpu = bench_clock(CLOCK_PROCESS_CPUTIME_ID) - c0;
	qsort(ms, (size_t)ticks, sizeof *ms, bench_cmp_double);
	double mean = total * 1e3 / (double)ticks, p50 = ms[ticks / 2];
	double cpu_ms = cpu * 1e3 / (double)ticks;
	printf("crowd: %ld ticks, mean %.3f ms, p50 %.3f ms, cpu %.3f ms per tick; "
	       "%.3f us per agent-tick (p50 wall), %.3f (cpu); %ld goals reached in the timed "
	       "ticks\n",
	       ticks, mean, p50, cpu_ms, p50 * 1e3 / (double)o->n, cpu_ms * 1e3 / (double)o->n,
	       r.arrivals - arrivals0);
	bench_print_phases("phases:", r.w);
	*out = (bench_figures){o->threads, ticks, mean, p50, 0};
	int bad = report_state(&r, p.radius, &out->bits);
	printf("RESULT system=steer-crowd n=%ld ticks=%ld mean_ms=%.4f p50_ms=%.4f best_ms=%.4f "
	       "cpu_ms=%.4f side=%.0f threads=%d\n",
	       o->n, ticks, mean, p50, ms[0], cpu_ms, r.layout.side, o->threads);
	free(ms);
	crowd_run_free(&r);
	return bad;
}
