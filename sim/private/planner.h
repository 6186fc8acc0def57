/* Path planning for `goto`: a route for a disc of some radius around the world's
 * circles, walls, polygons and contained bounds (planner.c, its search in
 * plan_search.h), and the goto behaviour built on it (goto.c).
 *
 * The planner is A* on a grid of cells half the disc's radius across, each cell's
 * centre tested lazily with steer_geom_blocked (so inflation by the radius comes from
 * the geometry index, whatever the shape), eight neighbours, no corner cutting, then
 * string-pulled: each waypoint is the furthest cell of the grid route that a swept
 * disc still reaches in a straight line from the previous one. A visibility graph
 * was measured against it and lost (docs/PERFORMANCE.md, steer-plan-bench).
 *
 * Deterministic: one thread, neighbours in a fixed order, the open list ordered by
 * (f, larger g, lower cell index). Private to the core. */
#ifndef STEER_PLANNER_H
#define STEER_PLANNER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "geometry.h"
#include "share.h"
#include "steer/world.h"
#include "world_record.h"

/* The most grid cells one plan uses: in a world too big for cells of half the radius
 * the cells grow (and a disc is then tested at up to 0.71 of a cell, so a grid step
 * never jumps a wall, at the cost of closing gaps a finer grid would pass). */
#define STEER_PLAN_MAX_CELLS (1u << 20)

/* A planned route: the waypoints after the start, ending at the goal (reached) or at
 * the reachable point nearest to it. Owned; free with steer_route_free. */
typedef struct steer_route {
	steer_vec2 *points;
	size_t count, cap;
	bool reached;
	size_t expanded; /* grid cells A* expanded: what the plan cost */
	size_t cells;    /* the grid's cells */
} steer_route;

void steer_route_free(steer_route *r);

/* What plans learnt of their grids' cells, kept by the world for the next plans
 * (planner.c). */
typedef struct steer_plan_memos steer_plan_memos;
steer_plan_memos *steer_plan_memos_new(void);
void steer_plan_memos_free(steer_plan_memos *pm);

/* Plans from start to goal for a disc of that radius (> 0). The grid of the
 * geometry index should be fresh (steer_geom_update), else queries are slow. The goal
 * is first moved out of any obstacle (steer_geom_free_point). NOMEM; INVALID for a
 * radius not > 0. It keeps what it learns of the cells in the world (a cache the
 * world is const to): one plan at a time on a world, never from two threads. */
steer_status steer_plan(const steer_world *w, steer_vec2 start, steer_vec2 goal, double radius,
                        steer_route *out);

/* Whether a disc of radius r moving in a straight line from a to b (the short way in
 * a wrap world) touches no circle and no segment. hits is scratch. False also when
 * the scratch cannot grow. */
bool steer_plan_clear(const steer_world *w, steer_vec2 a, steer_vec2 b, double r,
                      steer_geom_hits *hits);

/* The grid cells a `goto` command's plan may expand at once: a plan that needs more
 * goes on in the ticks (below), so that no command holds the loop for a big maze. */
#define STEER_GOTO_CELLS_AT_ONCE 16384u
/* The grid cells all plans under way may expand in one tick, shared equally by the
 * first STEER_PLAN_SLOTS of them in the order they were asked for (steer_plan_key);
 * a plan the geometry changed under starts again with its share doubled for each
 * time, so that one is done even while the geometry changes every tick. */
#define STEER_PLAN_CELLS_PER_TICK 16384u
#define STEER_PLAN_SLOTS          8u

/* The step's planning, before the forces, on one thread: each goto vehicle whose
 * geometry changed since it last looked starts a plan when a leg of the remaining
 * route is blocked, or (at most once a second) when the route falls short of an
 * unreachable goal; then the plans under way go on within STEER_PLAN_CELLS_PER_TICK,
 * and those done become their vehicles' routes. Memory running out keeps the old
 * routes. */
void steer_goto_replan(steer_world *w);
/* The step failed before planning: a world sharing its budget still tells the other
 * parts it has no plan under way. */
void steer_goto_replan_skipped(steer_world *w);
/* Frees what the plans under way keep between ticks (the world's, at its end). */
void steer_goto_jobs_free(steer_world *w);

#endif
