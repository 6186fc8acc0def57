/* The world's insides, shared by the files that make it up: world.c (the container
 * and its API), tick_order.c (the tick's order: grid, cell sort, re-sort of storage)
 * step.c (the step: forces, lane groups, the parallel split, timing) and bodies.c
 * (the solid rule's correction after the moves). Private to
 * the core: nothing outside sim/ includes it (tests aside). */
#ifndef STEER_WORLD_INTERNAL_H
#define STEER_WORLD_INTERNAL_H

#include <stdlib.h>

#include "bodies.h"
#include "geometry.h"
#include "grid.h"
#include "idmap.h"
#include "kernel.h"
#include "palette.h"
#include "pool.h"
#include "share.h"
#include "steer/world.h"
#include "targets.h"

/* A vehicle's extras: what it was told, and what the tick remembers for it. */
typedef struct steer_extra {
	steer_vehicle_state s;
	steer_free_memo target_memo;
} steer_extra;

/* What a world's own vehicles are, from one pass over them or added to vehicle by
 * vehicle: every figure is an or, a maximum or an "all the same", so the order
 * vehicles come in never matters. */
typedef struct steer_own_survey {
	double flock_sight; /* the flockers' largest sight_distance; -1: none */
	double radius_max;
	uint32_t flock_group; /* the first flocker's group and set */
	uint32_t flock_set;
	bool has_flockers;
	bool groups_differ;
	bool plain; /* every flocker plain, with flock_set */
	bool avoid_any, goto_any, smooth_any;
} steer_own_survey;

struct steer_world {
	steer_world_config cfg;
	uint64_t tick;
	uint32_t next_id;
	steer_rng rng;
	steer_vehicles v;
	steer_obstacle *obs;
	size_t obs_count, obs_cap;
	steer_wall *walls;
	size_t wall_count, wall_cap;
	steer_polygon *polys; /* each owns its points */
	size_t poly_count, poly_cap;
	steer_geom geom; /* the segments and the obstacle index (geometry.c) */
	steer_idmap ids;
	steer_palette params;
	/* Targets, chases, wander angle and path, for the vehicles that use them: a
	 * plain flocking boid carries none of it. */
	struct {
		steer_extra *slots;
		size_t count, cap;
		uint32_t *free; /* freed slots, a stack */
		size_t nfree, free_cap;
	} extras;
	steer_grid grid;
	steer_bodies bodies; /* the solid rule's scratch */
	/* Scratch for the storage permutation of a re-sort (old slot -> new slot). */
	uint32_t *perm;
	size_t perm_cap;
	/* The re-sort's spare for the vehicles' uint32 arrays (the force arrays are the
	 * spares for their doubles): v.cap elements, grown with them. */
	uint32_t *spare32;
	/* This world's own vehicles surveyed: kept until one is removed or its
	 * behaviours, group or parameters change (flock_stale); a vehicle added is
	 * added to it (steer_world_survey_add). */
	steer_own_survey own;
	bool flock_stale;
	/* The figures in effect, made from `own` and, for a region, the whole world's
	 * (global): remade when either changes (figures_stale). */
	bool figures_stale;
	/* What the flockers are: */
	double flock_sight;   /* largest sight_distance among flocking vehicles; -1: none */
	bool flock_one_group; /* every flocker has the same group */
	/* The parameter set every flocker has when all are plain (flock only, forces
	 * summed, one set): lane groups need not check their members. Else
	 * STEER_PALETTE_NONE. */
	uint32_t flock_plain_set;
	/* Avoidance (avoid.c): every vehicle indexed when any avoids, at the tick's
	 * start; whether any does and the largest radius of all (kept with the
	 * flockers' survey); the fastest vehicle's speed at the tick's start. */
	steer_grid avoid_grid;
	int avoid_halvings; /* the avoid grid's cells are halved this many times (avoid.c) */
	/* Its members' positions and ids by grid position, copied at the tick's start:
	 * the neighbour search then reads each cell's members from consecutive memory. */
	struct {
		double *x, *y;
		uint32_t *id;
		size_t cap;
	} avoid_at;
	/* What each slot's nearest search found last tick, so that this tick's starts
	 * from a bound (avoid.c, "kept bounds"): by slot, valid while the slots hold
	 * the same ids. */
	struct steer_avoid_kept *avoid_kept;
	size_t avoid_kept_cap;
	size_t avoid_kept_count; /* the vehicles it was kept for, in these bounds: */
	double avoid_kept_width, avoid_kept_height;
	steer_edges avoid_kept_edges;
	double avoid_moved_max; /* the furthest any vehicle moved since then */
	double avoid_moved_sum; /* avoid_moved_max summed over the ticks */
	/* Each avoider's kept list of those near it (avoid.c, "kept lists"): slot i's
	 * in avoid_list[i * LIST_MAX ...], of generation avoid_list_gen while the
	 * slots hold whom they held when it was made. */
	uint32_t *avoid_list;
	size_t avoid_list_cap;
	uint64_t avoid_list_gen;
	bool avoid_lists_ready; /* room for every slot's list this tick */
	bool avoid_kept_ready;  /* moved on to this tick: the search may write them */
	bool avoid_kept_valid;  /* and the slots hold whom they held: it may read them */
	bool avoid_any;
	bool goto_any;   /* some vehicle here goes to a goal (kept with the survey) */
	bool smooth_any; /* some vehicle's heading_smoothing is on (kept with the survey) */
	double radius_max;
	double speed_max;
	double circle_speed_max; /* the fastest obstacle's speed at the tick's start */
	steer_geom_hits avoid_hits[STEER_POOL_MAX_THREADS]; /* a part's query scratch */
	/* The whole world's figures when this world is one region of it
	 * (steer_world_survey_set), and the reach its halo covers (0: unchecked). */
	steer_world_survey global;
	bool global_on;
	size_t total_told; /* steer_world_set_vehicles_total's count; 0: its own */
	/* planner.c: what plans learnt of grid cells, a cache the planner writes through
	 * this pointer (it sees the world const). */
	struct steer_plan_memos *plan_memos;
	/* planner.c: the searches of the plans under way between ticks, a cache (a
	 * plan's state is its vehicle's go: each search can be made again from it). */
	struct steer_goto_job **plan_jobs;
	size_t plan_jobs_count, plan_jobs_cap;
	steer_replan_share replan;       /* goto's budget shared with other parts, when */
	bool replan_shared;              /* steer_world_set_replan_share */
	steer_bodies_share bodies_share; /* solid bodies shared with other parts, when */
	bool bodies_shared;              /* steer_world_set_bodies_share */
	steer_region_keep keep;          /* the region bulk adds keep, when */
	bool keep_region;                /* steer_world_set_region_keep */
	double reach_limit;
	int threads;
	const steer_kernel *kernel; /* the lane forms' kernel form (steer_world_set_simd) */
	steer_pool *pool;           /* threads - 1 workers; NULL with one thread */
	bool timing;                /* steer_world_time_phases */
	/* Whole seconds of the wall clock when timing began: phase times are read from
	 * it, as a double of the seconds since 1970 resolves only a quarter microsecond. */
	long long timing_epoch;
	steer_phase_times phases;
};

static inline steer_vec2 pos_of(const steer_vehicles *v, size_t i)
{
	return v2(v->px[i], v->py[i]);
}

static inline steer_vec2 vel_of(const steer_vehicles *v, size_t i)
{
	return v2(v->vx[i], v->vy[i]);
}

/* Below this many vehicles more threads cost more than they save. */
#define PARALLEL_MIN_VEHICLES 1024

/* The parts a phase over `work` items is split into: one per thread of the world's
 * pool when the work is big enough to pay for them, else 1. Each part of every
 * phase depends only on the phase's input and writes only its own place, so any
 * split gives the same bits. (step.c) */
int steer_world_parts(const steer_world *w, size_t work);

/* The fastest vehicle's speed now: the whole world's when this world is one region
 * of it. (step.c) */
double steer_world_speed_max(const steer_world *w);

/* The figures in effect up to date: the flockers' largest sight, whether they share
 * one group, whether all are plain with one parameter set, the largest radius, and
 * whether any avoids, goes to a goal or smooths its heading. Surveys the vehicles
 * again only when flock_stale. (step.c) */
void steer_world_survey_flock(steer_world *w);
/* Vehicle i, just added, into the own survey (step.c). */
void steer_world_survey_add(steer_world *w, size_t i);

/* Indexes the flocking vehicles and sets the tick's order: STEER_OK, or
 * STEER_ERR_NOMEM when memory runs out. (tick_order.c) */
steer_status steer_world_index_flock(steer_world *w);

/* With nothing flocking, the tick's order from g, a grid of every vehicle: its
 * members in grid order, storage re-sorted into it once it has drifted too far (g's
 * items then become the identity). STEER_OK, or NOMEM. (tick_order.c) */
steer_status steer_world_order_by(steer_world *w, steer_grid *g);

#endif
