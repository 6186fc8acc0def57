#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "circle.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "circle_layout.h"
#include "circle_scene.h"
#include "crowd_layout.h"
#include "steer/world.h"

typedef struct circle_run {
	circle_layout layout;
	steer_world *w;
	long *agent_of; /* by vehicle id: the agent, -1 for none */
	size_t ids;
	double *gx, *gy; /* by agent: its goal */
} circle_run;

static void circle_run_free(circle_run *r)
{
	steer_world_destroy(r->w);
	free(r->agent_of), free(r->gx), free(r->gy);
}

static int fail(const char *what, steer_status st)
{
	fprintf(stderr, "steer-bench --circle: %s: %s\n", what, steer_status_str(st));
	return 1;
}

static int add_agents(circle_run *r, const steer_params *p)
{
	long n = r->layout.n;
	r->gx = malloc((size_t)n * sizeof *r->gx);
	r->gy = malloc((size_t)n * sizeof *r->gy);
	uint32_t *id = malloc((size_t)n * sizeof *id);
	if (!r->gx || !r->gy || !id) {
		free(id);
		return fail("agents", STEER_ERR_NOMEM);
	}
	for (long a = 0; a < n; a++) {
		circle_goal(&r->layout, a, &r->gx[a], &r->gy[a]);
		steer_status st = circle_add_agent(r->w, &r->layout, a, p, &id[a]);
		if (st != STEER_OK) {
			free(id);
			return fail("adding a vehicle", st);
		}
	}
	int bad = bench_agent_map(id, n, &r->agent_of, &r->ids);
	free(id);
	return bad ? fail("agents", STEER_ERR_NOMEM) : 0;
}

/* Agents not within their radius of their goals. */
static long not_home(const circle_run *r)
{
	const steer_vehicles *v = steer_world_vehicles(r->w);
	long away = 0;
	for (size_t i = 0; i < v->count; i++) {
		long a = v->id[i] < r->ids ? r->agent_of[v->id[i]] : -1;
		double dx = a < 0 ? 0 : v->px[i] - r->gx[a], dy = a < 0 ? 0 : v->py[i] - r->gy[a];
		away += dx * dx + dy * dy > CIRCLE_BODY * CIRCLE_BODY;
	}
	return away;
}

/* What a run saw besides its time. */
typedef struct circle_seen {
	long ticks, away; /* ticks run; agents not home at the end */
	long pairs;       /* overlapping pairs summed over every 4th tick */
	double deepest;
} circle_seen;

static int look(const circle_run *r, circle_seen *s)
{
	const steer_vehicles *v = steer_world_vehicles(r->w);
	double deepest;
	long pairs =
	    crowd_overlaps(v->px, v->py, (long)v->count, CIRCLE_BODY, r->layout.side, &deepest);
	if (pairs < 0)
		return fail("counting overlaps", STEER_ERR_NOMEM);
	s->pairs += pairs;
	s->deepest = fmax(s->deepest, deepest);
	return 0;
}

/* Ticks until every agent is home or max_ticks; ms[k] gets tick k's wall time. */
static int run_home(circle_run *r, long max_ticks, double *ms, double *cpu, circle_seen *s)
{
	memset(s, 0, sizeof *s);
	s->away = not_home(r);
	*cpu = 0;
	while (s->away > 0 && s->ticks < max_ticks) {
		double c0 = bench_clock(CLOCK_PROCESS_CPUTIME_ID),
		       t0 = bench_clock(CLOCK_MONOTONIC);
		steer_status st = steer_world_step(r->w);
		ms[s->ticks] = (bench_clock(CLOCK_MONOTONIC) - t0) * 1e3;
		*cpu += bench_clock(CLOCK_PROCESS_CPUTIME_ID) - c0;
		if (st != STEER_OK)
			return fail("step", st);
		s->ticks++;
		if (s->ticks % 4 == 0 && look(r, s) != 0)
			return 1;
		s->away = not_home(r);
	}
	return 0;
}

static int report(const circle_opts *o, const circle_run *r, const circle_seen *s, double *ms,
                  double cpu, bench_figures *out)
{
	long t = s->ticks > 0 ? s->ticks : 1;
	double total = 0;
	for (long k = 0; k < s->ticks; k++)
		total += ms[k];
	qsort(ms, (size_t)s->ticks, sizeof *ms, bench_cmp_double);
	double mean = total / (double)t, p50 = s->ticks ? ms[s->ticks / 2] : 0;
	double cpu_us = cpu * 1e6 / ((double)t * (double)o->n);
	if (s->away == 0)
		printf("circle: all %ld agents home after %ld ticks\n", o->n, s->ticks);
	else
		printf("circle: %ld of %ld agents not home after %ld ticks\n", s->away, o->n,
		       s->ticks);
	printf("time: mean %.3f ms, p50 %.3f ms per tick (wall); %.3f us per agent-tick (cpu), "
	       "%.3f (wall)\n",
	       mean, p50, cpu_us, mean * 1e3 / (double)o->n);
	printf("overlaps beyond 1%% of the radius, on every 4th tick: %ld pairs seen, the deepest "
	       "%.3f\n",
	       s->pairs, s->deepest);
	bench_print_phases("phases:", r->w);
	uint64_t bits = bench_state_hash(steer_world_vehicles(r->w));
	if (!bits)
		return fail("hashing the state", STEER_ERR_NOMEM);
	printf("state at the end: %016llx\n", (unsigned long long)bits);
	printf("RESULT system=steer-circle n=%ld ticks=%ld not_home=%ld mean_ms=%.4f p50_ms=%.4f "
	       "cpu_us_agent_tick=%.4f overlap_pairs=%ld deepest=%.4f threads=%d\n",
	       o->n, s->ticks, s->away, mean, p50, cpu_us, s->pairs, s->deepest, o->threads);
	*out = (bench_figures){o->threads, s->ticks, mean, p50, bits};
	return 0;
}

int circle_bench(const circle_opts *o, bench_figures *out)
{
	steer_params p = circle_params();
	circle_run r;
	memset(&r, 0, sizeof r);
	r.layout = circle_layout_make(o->n);
	steer_world_config cfg = circle_config(&r.layout, o->seed);
	cfg.solid = !o->no_solid;
	steer_simd_level simd;
	r.w = bench_world(&cfg, o->threads, o->simd, &simd, "steer-bench --circle");
	if (!r.w || add_agents(&r, &p)) {
		circle_run_free(&r);
		return 1;
	}
	long copies = (o->n + CIRCLE_AGENTS - 1) / CIRCLE_AGENTS;
	printf("workload: circle, N=%ld in %ld cop%s of RVO2's Circle (%d on a circle of radius "
	       "%g, 500 apart), world %.0f x %.0f, dt %g, radius %g, max_speed %g, avoid the "
	       "nearest %u within %g s, solid %s, threads %d, simd %s\n",
	       o->n, copies, copies == 1 ? "y" : "ies", CIRCLE_AGENTS, CIRCLE_RADIUS, r.layout.side,
	       r.layout.side, CIRCLE_DT, p.radius, p.max_speed, p.avoid_neighbours, p.avoid_horizon,
	       cfg.solid ? "on" : "off", o->threads, steer_simd_name(simd));
	double *ms = malloc((size_t)(o->max_ticks > 0 ? o->max_ticks : 1) * sizeof *ms);
	if (!ms) {
		circle_run_free(&r);
		return fail("timing", STEER_ERR_NOMEM);
	}
	circle_seen s;
	double cpu;
	steer_world_time_phases(r.w, true);
	int bad = run_home(&r, o->max_ticks, ms, &cpu, &s);
	if (!bad)
		bad = report(o, &r, &s, ms, cpu, out);
	free(ms);
	circle_run_free(&r);
	return bad;
}
