/* A* on the planner's grid, one search at a time and resumable: what the planner
 * (planner.c) and goto's plans under way (goto.c) share. Private to the core. */
#ifndef STEER_PLAN_SEARCH_H
#define STEER_PLAN_SEARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "planner.h"

/* The grid a search runs on: cells half the disc's radius across. */
typedef struct plan_grid {
	double x0, y0, hx, hy;
	uint32_t nx, ny;
	bool wrap;
	double check_r; /* the radius a cell's centre is tested with */
} plan_grid;

/* What a cell is known to be, and where the search stands with it. */
enum {
	CELL_FREE = 1u,
	CELL_BLOCKED = 2u,
	CELL_OPEN = 4u,   /* has a g */
	CELL_CLOSED = 8u, /* expanded */
};

/* The open list: a binary heap. */
typedef struct open_item {
	double f, g;
	uint32_t cell;
} open_item;

typedef struct open_list {
	open_item *items;
	size_t count, cap;
} open_list;

/* A search's arrays, the size of its grid. */
typedef struct plan_scratch {
	uint8_t *state; /* CELL_OPEN, CELL_CLOSED; CELL_FREE: the start's and goal's */
	uint8_t *known; /* the memo's, or own_known */
	uint8_t *own_known;
	double *g;
	uint32_t *parent;
	open_list open;
	uint32_t *cells; /* the grid route, goal first */
	size_t ncells, cells_cap;
	steer_vec2 *pts; /* the route before smoothing */
	size_t pts_cap;
} plan_scratch;

/* One search, resumable a share of cells at a time. */
typedef struct plan_search {
	plan_grid g;
	plan_scratch s;
	steer_vec2 start, from, goal; /* from: start stepped out; goal: moved out */
	double radius;
	double step_x, step_y, step_d; /* a step's length: along x, along y, diagonal */
	uint32_t from_cell, to, best;
	double best_d;
	size_t expanded;
	bool straight; /* a clear straight line is the route: no grid */
	bool done, reached;
} plan_search;

void steer_plan_search_free(plan_search *ps);

/* Starts a plan from start to goal for a disc of that radius: the goal moved out of any
 * obstacle, the straight line tried, the grid and the open list set up. NOMEM,
 * INVALID; ps freed by steer_plan_search_free either way. */
steer_status steer_plan_search_begin(const steer_world *w, steer_vec2 start, steer_vec2 goal,
                                     double radius, plan_search *ps);

/* Expands up to limit more cells (*used of them); ps->done once the goal is reached or
 * no cell is left open. */
steer_status steer_plan_search_advance(const steer_world *w, plan_search *ps, size_t limit,
                                       size_t *used);

/* A done search's route: the cells from the goal's (or the nearest the goal the search
 * reached) back to the start's, as points, string-pulled. */
steer_status steer_plan_search_route(const steer_world *w, plan_search *ps, steer_route *out);

#endif
