/* goto: a vehicle's plan to a goal (its clearances, the route it takes), the plans
 * under way over ticks within one budget of cells, and the searches kept between
 * ticks. The search itself: planner.c. */
#include "planner.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plan_search.h"
#include "reserve.h"
#include "targets.h"
#include "world_internal.h"

/* --- goto ---------------------------------------------------------------------------- */

static steer_extra *extra_at(steer_world *w, size_t i)
{
	uint32_t e = w->v.extra[i];
	return e == STEER_NO_EXTRA ? NULL : &w->extras.slots[e];
}

/* A goto plan: the clearances it tries in turn, each a search. The first keeps the
 * clearance the vehicle keeps (steer_target_clearance) and half its path_threshold
 * besides, as path following turns for the next waypoint that far before the one at a
 * corner; where that does not get there, the clearance alone, then the body's radius
 * alone. Its state is a function of its vehicle's go (start, goal, cells spent) and the
 * geometry: a job lost (a load, a rewind, a vehicle come from another rank) is made
 * again by expanding as many cells from the start. */
typedef struct steer_goto_job {
	uint32_t id;
	steer_vec2 start, goal; /* what it plans, as the vehicle's go said */
	uint64_t began, epoch;  /* epoch: the geometry's it was planned on */
	uint32_t restarts;
	uint64_t spent; /* cells expanded by its searches */
	double radii[3];
	int phase;      /* the clearance being searched */
	bool searching; /* search holds radii[phase]'s */
	bool done;      /* best is the route */
	plan_search search;
	steer_route best; /* the first clearance's route, or a thinner one that got there */
	double best_radius;
} steer_goto_job;

/* The clearances vehicle i's plan tries, from its parameters and behaviours now. */
static void goto_radii(const steer_world *w, size_t i, double radii[3])
{
	const steer_params *prm = steer_vehicle_params_at(w, i);
	double keep = steer_target_clearance(prm, w->v.behaviors[i]);
	radii[0] = keep + 0.5 * prm->path_threshold;
	radii[1] = keep;
	radii[2] = prm->radius;
}

static void job_init(const steer_world *w, size_t i, const steer_goto_state *go, steer_goto_job *j)
{
	memset(j, 0, sizeof *j);
	goto_radii(w, i, j->radii);
	j->id = w->v.id[i];
	j->start = go->start;
	j->goal = go->goal;
	j->began = go->began;
	j->restarts = go->restarts;
	j->epoch = w->geom.epoch;
}

static void job_clear(steer_goto_job *j)
{
	steer_plan_search_free(&j->search);
	steer_route_free(&j->best);
}

/* Whether job j is the plan vehicle i's go says is under way, on the geometry as it is
 * and for the clearances the vehicle has now: a search made again from go alone would
 * use those, so one kept must too. */
static bool job_matches(const steer_world *w, size_t i, const steer_goto_job *j,
                        const steer_goto_state *go)
{
	double radii[3];
	goto_radii(w, i, radii);
	return go->planning && j->start.x == go->start.x && j->start.y == go->start.y &&
	       j->goal.x == go->goal.x && j->goal.y == go->goal.y && j->began == go->began &&
	       j->restarts == go->restarts && j->spent == go->spent && j->epoch == w->geom.epoch &&
	       !memcmp(radii, j->radii, sizeof radii);
}

/* Expands cells until the job has spent target of them or is done. A search's state
 * depends on the cells it expanded, not on how they were split, so a job run to N cells
 * at once is the job run to N in steps. NOMEM, INVALID. */
static steer_status job_run(const steer_world *w, steer_goto_job *j, uint64_t target)
{
	steer_status st;
	while (!j->done) {
		plan_search *ps = &j->search;
		if (!j->searching) {
			j->searching = true;
			if ((st = steer_plan_search_begin(w, j->start, j->goal, j->radii[j->phase],
			                                  ps)) != STEER_OK)
				return st;
		}
		if (!ps->done) {
			if (j->spent >= target)
				return STEER_OK;
			size_t used;
			st = steer_plan_search_advance(w, ps, (size_t)(target - j->spent), &used);
			j->spent += used;
			if (st != STEER_OK || !ps->done)
				return st;
		}
		steer_route r = {0};
		st = steer_plan_search_route(w, ps, &r);
		steer_plan_search_free(ps);
		j->searching = false;
		if (st != STEER_OK) {
			steer_route_free(&r);
			return st;
		}
		if (j->phase == 0 || r.reached) {
			steer_route_free(&j->best);
			j->best = r;
			j->best_radius = j->radii[j->phase];
		} else {
			steer_route_free(&r);
		}
		if (j->best.reached)
			break;
		/* A thinner disc, when there is one. */
		do
			j->phase++;
		while (j->phase < 3 && !(j->radii[j->phase] < j->best_radius));
		if (j->phase >= 3)
			break;
	}
	j->done = true;
	return STEER_OK;
}

/* Makes route the vehicle's path, planned from start for that clearance, and ends the
 * plan. LIMIT, NOMEM: the vehicle unchanged. */
static steer_status route_apply(steer_world *w, size_t i, const steer_route *route,
                                double clearance, steer_vec2 start, steer_goto_report *rep)
{
	if (route->count > STEER_MAX_WAYPOINTS)
		return STEER_ERR_LIMIT;
	steer_extra *e = extra_at(w, i);
	steer_path *path = &e->s.path;
	size_t cap = path->cap;
	if (steer_reserve((void **)&path->points, &cap, route->count, sizeof *path->points) !=
	    STEER_OK)
		return STEER_ERR_NOMEM;
	path->cap = (uint32_t)cap;
	memcpy(path->points, route->points, route->count * sizeof *path->points);
	path->count = (uint32_t)route->count;
	path->index = 0;
	path->loop = false;
	steer_goto_state *go = &e->s.go;
	go->from = start;
	go->radius = clearance;
	go->reached = route->reached;
	go->tried = w->tick;
	go->epoch = w->geom.epoch;
	go->planning = false;
	go->restarts = 0;
	go->start = v2(0.0, 0.0);
	go->began = 0;
	go->spent = 0;
	if (rep) {
		rep->planning = false;
		rep->reached = route->reached;
		rep->end = route->count ? route->points[route->count - 1] : start;
		rep->waypoints = route->count;
		rep->radius = clearance;
	}
	return STEER_OK;
}

/* A plan from where vehicle i stands to its goal, under way from this tick. */
static void plan_start(steer_world *w, size_t i, steer_goto_state *go)
{
	go->planning = true;
	go->start = pos_of(&w->v, i);
	go->spent = 0;
	go->epoch = w->geom.epoch;
}

steer_status steer_vehicle_goto(steer_world *w, uint32_t id, steer_vec2 goal,
                                steer_goto_report *rep)
{
	long i = steer_vehicle_index(w, id);
	if (i < 0)
		return STEER_ERR_NOENT;
	if (!steer_vec_ok(goal))
		return STEER_ERR_INVALID;
	/* Turning goto on makes the extras; they hold the route. */
	steer_status st = steer_vehicle_enable(w, id, STEER_PATH, true);
	if (st != STEER_OK)
		return st;
	steer_extra *e = extra_at(w, (size_t)i);
	bool had_path = e->s.path.count != 0;
	steer_goto_state was = e->s.go;
	/* A fresh grid: commands come between ticks, after anything added. */
	st = steer_geom_update(w);
	steer_goto_state *go = &e->s.go;
	go->goal = goal;
	go->began = w->tick;
	go->restarts = 0;
	plan_start(w, (size_t)i, go);
	steer_goto_job j;
	job_init(w, (size_t)i, go, &j);
	if (st == STEER_OK)
		st = job_run(w, &j, STEER_GOTO_CELLS_AT_ONCE);
	if (st == STEER_OK && j.done)
		st = route_apply(w, (size_t)i, &j.best, j.best_radius, j.start, rep);
	else if (st == STEER_OK && rep)
		*rep = (steer_goto_report){.planning = true};
	/* Too big to plan at once: the ticks take it on from the start (what the command
	 * expanded is not kept, so that many gotos keep no searches). */
	go->spent = 0;
	job_clear(&j);
	if (st != STEER_OK) {
		e->s.go = was;
		if (!had_path)
			(void)steer_vehicle_enable(w, id, STEER_PATH, false);
		return st;
	}
	/* goto is where to go: whatever else says where drops out. */
	uint32_t off = STEER_SEEK | STEER_ARRIVE | STEER_PURSUE | STEER_WANDER | STEER_FOLLOW |
	               STEER_HIDE | STEER_INTERPOSE;
	w->v.behaviors[i] = (w->v.behaviors[i] & ~off) | STEER_PATH | STEER_GOTO;
	w->flock_stale = true;
	return STEER_OK;
}

steer_status steer_vehicle_goto_off(steer_world *w, uint32_t id)
{
	long i = steer_vehicle_index(w, id);
	if (i < 0)
		return STEER_ERR_NOENT;
	if (!(w->v.behaviors[i] & STEER_GOTO))
		return STEER_OK;
	return steer_vehicle_path_clear(w, id); /* which turns goto off with the path */
}

/* Whether the route left is clear: each leg from the one being followed on, for the
 * disc it was planned for (a little thinner, so a route that grazes an obstacle is not
 * taken as blocked by rounding). The legs, not the vehicle's own way to its waypoint:
 * that depends on where it was pushed, and only the geometry is watched. */
static bool route_clear(const steer_world *w, const steer_vehicle_state *s, steer_geom_hits *hits)
{
	const steer_path *p = &s->path;
	double r = 0.9 * s->go.radius;
	for (uint32_t k = p->index; k < p->count; k++) {
		steer_vec2 a = k == 0 ? s->go.from : p->points[k - 1];
		if (!steer_plan_clear(w, a, p->points[k], r, hits))
			return false;
	}
	return true;
}

static int by_key(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* Whether vehicle i's route is to be planned again this tick; *seen gets its epoch
 * before it looked (marking it up to date is part of looking). */
static bool wants_route(steer_world *w, size_t i, uint64_t epoch, uint64_t retry, uint64_t *seen)
{
	steer_extra *e = extra_at(w, i);
	steer_goto_state *go = &e->s.go;
	*seen = go->epoch;
	bool changed = go->epoch != epoch;
	bool due = w->tick - go->tried >= retry;
	if (!changed && !due)
		return false;
	bool redo = false;
	if (changed) {
		/* An unreachable goal is tried again once a second while things change;
		 * until then the change is kept in view. */
		if (go->reached || due)
			go->epoch = epoch;
		redo = !route_clear(w, &e->s, &w->avoid_hits[0]) || (!go->reached && due);
	}
	/* Pushed (by bodies, by avoidance) round a corner the wrong way, a vehicle can end
	 * up with a wall between it and its waypoint: at most once a second, a thinner
	 * disc than the route's, so that one grazing an obstacle is not. */
	const steer_path *p = &e->s.path;
	if (!redo && due && p->index < p->count)
		redo = !steer_plan_clear(w, pos_of(&w->v, i), p->points[p->index], 0.5 * go->radius,
		                         &w->avoid_hits[0]);
	return redo;
}

/* The goto vehicles (those share->own takes, when shared) as (id << 32 | index), in
 * id order: which routes are looked at first must depend on who the vehicles are,
 * not on the order storage holds them in. NULL with *n 0 when there are none or
 * memory ran out. */
static uint64_t *goto_order(steer_world *w, size_t *n)
{
	const steer_vehicles *v = &w->v;
	const steer_replan_share *sh = w->replan_shared ? &w->replan : NULL;
	*n = 0;
	if (!w->goto_any) /* spares a pass over every vehicle each tick */
		return NULL;
	for (size_t i = 0; i < v->count; i++)
		*n += (v->behaviors[i] & STEER_GOTO) != 0;
	uint64_t *order = *n ? malloc(*n * sizeof *order) : NULL;
	if (!order) {
		*n = 0;
		return NULL;
	}
	*n = 0;
	for (size_t i = 0; i < v->count; i++)
		if ((v->behaviors[i] & STEER_GOTO) && (!sh || sh->own(sh->ud, w, i)))
			order[(*n)++] = (uint64_t)v->id[i] << 32 | i;
	qsort(order, *n, sizeof *order, by_key);
	return order;
}

int steer_plan_key_cmp(const void *a, const void *b)
{
	const steer_plan_key *x = a, *y = b;
	if (x->began != y->began)
		return x->began < y->began ? -1 : 1;
	return (x->id > y->id) - (x->id < y->id);
}

uint64_t steer_goto_allowance(const steer_plan_key *key, size_t k, size_t n)
{
	size_t slots = n < STEER_PLAN_SLOTS ? n : STEER_PLAN_SLOTS;
	if (k >= slots)
		return 0;
	uint32_t doubled = key->restarts < 20 ? key->restarts : 20;
	return (uint64_t)(STEER_PLAN_CELLS_PER_TICK / slots) << doubled;
}

/* --- the searches kept between ticks ------------------------------------------------- */

static long job_find(const steer_world *w, uint32_t id)
{
	for (size_t k = 0; k < w->plan_jobs_count; k++)
		if (w->plan_jobs[k]->id == id)
			return (long)k;
	return -1;
}

static void job_drop(steer_world *w, size_t k)
{
	job_clear(w->plan_jobs[k]);
	free(w->plan_jobs[k]);
	w->plan_jobs[k] = w->plan_jobs[--w->plan_jobs_count];
}

void steer_goto_jobs_free(steer_world *w)
{
	while (w->plan_jobs_count)
		job_drop(w, w->plan_jobs_count - 1);
	free(w->plan_jobs);
	w->plan_jobs = NULL;
	w->plan_jobs_cap = 0;
}

/* Drops the searches no plan under way is theirs any more. */
static void jobs_prune(steer_world *w)
{
	for (size_t k = w->plan_jobs_count; k-- > 0;) {
		const steer_goto_job *j = w->plan_jobs[k];
		long i = steer_vehicle_index(w, j->id);
		steer_extra *e = i < 0 ? NULL : extra_at(w, (size_t)i);
		if (!e || !(w->v.behaviors[i] & STEER_GOTO) ||
		    !job_matches(w, (size_t)i, j, &e->s.go))
			job_drop(w, k);
	}
}

/* The search of vehicle i's plan under way: kept from the last tick, or made again to
 * the cells it had spent. NULL when memory ran out. */
static steer_goto_job *job_for(steer_world *w, size_t i, const steer_goto_state *go)
{
	long k = job_find(w, w->v.id[i]);
	if (k >= 0 && job_matches(w, i, w->plan_jobs[k], go))
		return w->plan_jobs[k];
	if (k >= 0)
		job_drop(w, (size_t)k);
	steer_goto_job *j = malloc(sizeof *j);
	if (!j || steer_reserve((void **)&w->plan_jobs, &w->plan_jobs_cap, w->plan_jobs_count + 1,
	                        sizeof *w->plan_jobs) != STEER_OK) {
		free(j);
		return NULL;
	}
	job_init(w, i, go, j);
	w->plan_jobs[w->plan_jobs_count++] = j;
	/* A plan done before it has spent what go says (a save made by hand) is done. */
	if (job_run(w, j, go->spent) != STEER_OK) {
		job_drop(w, w->plan_jobs_count - 1);
		return NULL;
	}
	return j;
}

/* Vehicle i's plan goes on for allow more cells; done, it is the route. Memory running
 * out keeps it where it was, for the next tick. */
static void plan_advance(steer_world *w, size_t i, uint64_t allow)
{
	steer_goto_state *go = &extra_at(w, i)->s.go;
	steer_goto_job *j = job_for(w, i, go);
	if (!j)
		return;
	steer_status st = job_run(w, j, go->spent + allow);
	go->spent = j->spent;
	if (st != STEER_OK || !j->done) {
		if (st != STEER_OK)
			job_drop(w, (size_t)job_find(w, j->id));
		return;
	}
	if (route_apply(w, i, &j->best, j->best_radius, j->start, NULL) != STEER_OK) {
		/* A route too long, or no memory for it: the old one, and the plan ends. */
		go->planning = false;
		go->restarts = 0;
		go->spent = 0;
		go->tried = w->tick;
	}
	job_drop(w, (size_t)job_find(w, j->id));
}

typedef struct waiting_plan {
	steer_plan_key key;
	size_t i;
} waiting_plan;

static int by_plan(const void *a, const void *b)
{
	return steer_plan_key_cmp(&((const waiting_plan *)a)->key, &((const waiting_plan *)b)->key);
}

/* Starts the plans this tick asks for and restarts those the geometry changed under;
 * the plans under way into *out, in the order they are served (NULL when memory ran
 * out: none goes on this tick). */
static size_t plans_under_way(steer_world *w, waiting_plan **out)
{
	*out = NULL;
	size_t n;
	uint64_t *order = goto_order(w, &n);
	uint64_t epoch = w->geom.epoch;
	uint64_t retry = (uint64_t)fmax(1.0, round(w->cfg.tick_rate));
	size_t m = 0;
	for (size_t k = 0; k < n; k++) {
		size_t i = (size_t)(order[k] & UINT32_MAX);
		steer_goto_state *go = &extra_at(w, i)->s.go;
		uint64_t seen;
		if (go->planning) {
			/* The cells it learnt may be wrong now: from where it stands, with twice
			 * the cells a tick, so that it ends even while the geometry changes
			 * every tick. It keeps its place. */
			if (go->epoch != epoch) {
				go->restarts++;
				plan_start(w, i, go);
			}
		} else if (wants_route(w, i, epoch, retry, &seen)) {
			go->began = w->tick;
			go->restarts = 0;
			plan_start(w, i, go);
		} else {
			continue;
		}
		order[m++] = order[k];
	}
	waiting_plan *p = m ? malloc(m * sizeof *p) : NULL;
	for (size_t k = 0; p && k < m; k++) {
		size_t i = (size_t)(order[k] & UINT32_MAX);
		const steer_goto_state *go = &extra_at(w, i)->s.go;
		p[k] = (waiting_plan){{go->began, w->v.id[i], go->restarts}, i};
	}
	free(order);
	if (!p)
		return 0;
	qsort(p, m, sizeof *p, by_plan);
	*out = p;
	return m;
}

void steer_goto_replan(steer_world *w)
{
	waiting_plan *p;
	size_t n = plans_under_way(w, &p);
	jobs_prune(w); /* before new searches are made: at most the slots' are kept */
	steer_plan_key *keys = n ? malloc(n * sizeof *keys) : NULL;
	uint64_t *allow = n ? malloc(n * sizeof *allow) : NULL;
	if (n && (!keys || !allow))
		n = 0; /* out of memory: no plan goes on this tick */
	for (size_t k = 0; k < n; k++)
		keys[k] = p[k].key;
	steer_status st = STEER_OK;
	if (w->replan_shared)
		st = w->replan.agree(w->replan.ud, keys, n, allow);
	else
		for (size_t k = 0; k < n; k++)
			allow[k] = steer_goto_allowance(&keys[k], k, n);
	for (size_t k = 0; k < n && st == STEER_OK; k++)
		if (allow[k])
			plan_advance(w, p[k].i, allow[k]);
	jobs_prune(w);
	free(p);
	free(keys);
	free(allow);
}

void steer_goto_replan_skipped(steer_world *w)
{
	/* The other parts wait for this one's word. */
	if (w->replan_shared)
		(void)w->replan.agree(w->replan.ud, NULL, 0, NULL);
}

void steer_world_set_replan_share(steer_world *w, const steer_replan_share *share)
{
	w->replan_shared = share != NULL;
	if (share)
		w->replan = *share;
}
