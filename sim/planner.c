#include "planner.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "reserve.h"
#include "targets.h"
#include "world_internal.h"

/* --- the grid ----------------------------------------------------------------------- */

typedef struct plan_grid {
	double x0, y0, hx, hy;
	uint32_t nx, ny;
	bool wrap;
	double check_r; /* the radius a cell's centre is tested with */
} plan_grid;

enum {
	CELL_FREE = 1u,
	CELL_BLOCKED = 2u,
	CELL_OPEN = 4u,   /* has a g */
	CELL_CLOSED = 8u, /* expanded */
};

/* --- what plans learnt of the cells ------------------------------------------------- */

/* Whether a grid's cells are free (CELL_FREE, CELL_BLOCKED, or 0 not yet tested),
 * kept for the next plan on the same grid while the geometry stays the same: goto
 * after goto in one maze tests each cell once. A cell's answer depends on the
 * geometry and the cell alone, so a plan finds what it would have found itself. A few
 * grids are kept (goto tries up to three clearances), the least used given up. */
typedef struct plan_memo {
	uint64_t epoch, last_use;
	plan_grid grid;
	uint8_t *known;
	size_t cap;
} plan_memo;

#define PLAN_MEMOS 3

struct steer_plan_memos {
	plan_memo m[PLAN_MEMOS];
	uint64_t uses;
};

steer_plan_memos *steer_plan_memos_new(void)
{
	steer_plan_memos *pm = calloc(1, sizeof *pm);
	return pm;
}

void steer_plan_memos_free(steer_plan_memos *pm)
{
	if (!pm)
		return;
	for (int k = 0; k < PLAN_MEMOS; k++)
		free(pm->m[k].known);
	free(pm);
}

static bool same_grid(const plan_grid *a, const plan_grid *b)
{
	return a->x0 == b->x0 && a->y0 == b->y0 && a->hx == b->hx && a->hy == b->hy &&
	       a->nx == b->nx && a->ny == b->ny && a->wrap == b->wrap && a->check_r == b->check_r;
}

/* The world's record of grid g's cells, started afresh when none matches; NULL when
 * there is none (no memory): the plan then keeps its own. The world is const to the
 * planner but this record is a cache of its answers, held through a pointer. */
static uint8_t *memo_for(const steer_world *w, const plan_grid *g)
{
	steer_plan_memos *pm = w->plan_memos;
	/* On a stale index the answers come by another path: not kept, to be sure that
	 * a kept answer is the one the index gives. */
	const steer_geom *geo = &w->geom;
	if (!pm || geo->grid_stale || geo->circles_stale || geo->nx == 0)
		return NULL;
	uint64_t epoch = w->geom.epoch;
	plan_memo *pick = &pm->m[0];
	for (int k = 0; k < PLAN_MEMOS; k++) {
		plan_memo *m = &pm->m[k];
		if (m->known && m->epoch == epoch && same_grid(&m->grid, g)) {
			m->last_use = ++pm->uses;
			return m->known;
		}
		if (m->last_use < pick->last_use)
			pick = m;
	}
	size_t n = (size_t)g->nx * g->ny;
	if (steer_reserve((void **)&pick->known, &pick->cap, n, 1) != STEER_OK)
		return NULL;
	memset(pick->known, 0, n);
	pick->epoch = epoch;
	pick->grid = *g;
	pick->last_use = ++pm->uses;
	return pick->known;
}

static void grow_box(double *lo, double *hi, double v, double pad)
{
	*lo = fmin(*lo, v - pad);
	*hi = fmax(*hi, v + pad);
}

/* Cells of about half the radius over the bounds, fewer and wider when that is too
 * many. An unbounded world: over the box holding every obstacle, padded by two radii.
 * A start or goal beyond it maps to the nearest cell on its border, and the straight
 * way between the two crosses only the empty pad; so a far goal does not widen the
 * cells (it made them so wide that the plan took seconds and missed gaps). */
static void grid_setup(const steer_world *w, steer_vec2 start, steer_vec2 goal, double r,
                       plan_grid *g)
{
	const steer_world_config *c = &w->cfg;
	double x0 = 0.0, y0 = 0.0, x1 = c->width, y1 = c->height;
	if (c->edges == STEER_EDGE_NONE) {
		double pad = 2.0 * r;
		x0 = y0 = INFINITY;
		x1 = y1 = -INFINITY;
		if (w->obs_count == 0 && w->geom.nsegs == 0) {
			grow_box(&x0, &x1, start.x, pad);
			grow_box(&y0, &y1, start.y, pad);
			grow_box(&x0, &x1, goal.x, pad);
			grow_box(&y0, &y1, goal.y, pad);
		}
		for (size_t k = 0; k < w->obs_count; k++) {
			grow_box(&x0, &x1, w->obs[k].x, w->obs[k].r + pad);
			grow_box(&y0, &y1, w->obs[k].y, w->obs[k].r + pad);
		}
		for (size_t k = 0; k < w->geom.nsegs; k++) {
			const steer_segment *s = &w->geom.segs[k];
			grow_box(&x0, &x1, s->a.x, pad);
			grow_box(&y0, &y1, s->a.y, pad);
			grow_box(&x0, &x1, s->b.x, pad);
			grow_box(&y0, &y1, s->b.y, pad);
		}
	}
	double h = 0.5 * r;
	double area = (x1 - x0) * (y1 - y0);
	if (area / (h * h) > (double)STEER_PLAN_MAX_CELLS)
		h = sqrt(area / (double)STEER_PLAN_MAX_CELLS);
	double nx = fmax(1.0, floor((x1 - x0) / h)), ny = fmax(1.0, floor((y1 - y0) / h));
	g->nx = (uint32_t)nx;
	g->ny = (uint32_t)ny;
	g->x0 = x0;
	g->y0 = y0;
	g->hx = (x1 - x0) / nx;
	g->hy = (y1 - y0) / ny;
	g->wrap = c->edges == STEER_EDGE_WRAP;
	/* Half a cell's diagonal: a step between two free centres then never jumps a
	 * wall, since any point between them is that near one of them. */
	g->check_r = fmax(r, 0.5 * hypot(g->hx, g->hy));
}

static steer_vec2 cell_centre(const plan_grid *g, uint32_t cell)
{
	return v2(g->x0 + ((double)(cell % g->nx) + 0.5) * g->hx,
	          g->y0 + ((double)(cell / g->nx) + 0.5) * g->hy);
}

static uint32_t axis_cell(double v, double h, uint32_t n, bool wrap)
{
	double f = floor(v / h);
	if (wrap) {
		f = fmod(f, (double)n);
		if (f < 0)
			f += n;
	}
	return (uint32_t)fmin(fmax(f, 0.0), (double)(n - 1));
}

static uint32_t cell_of(const plan_grid *g, steer_vec2 p)
{
	return axis_cell(p.y - g->y0, g->hy, g->ny, g->wrap) * g->nx +
	       axis_cell(p.x - g->x0, g->hx, g->nx, g->wrap);
}

/* --- the open list: a binary heap ---------------------------------------------------- */

typedef struct open_item {
	double f, g;
	uint32_t cell;
} open_item;

typedef struct open_list {
	open_item *items;
	size_t count, cap;
} open_list;

/* Lower f first; among equals the larger g (nearer the goal), then the lower cell. */
static bool before(const open_item *a, const open_item *b)
{
	if (a->f != b->f)
		return a->f < b->f;
	if (a->g != b->g)
		return a->g > b->g;
	return a->cell < b->cell;
}

static steer_status open_push(open_list *h, open_item it)
{
	if (steer_reserve((void **)&h->items, &h->cap, h->count + 1, sizeof *h->items) != STEER_OK)
		return STEER_ERR_NOMEM;
	size_t k = h->count++;
	while (k > 0) {
		size_t up = (k - 1) / 2;
		if (!before(&it, &h->items[up]))
			break;
		h->items[k] = h->items[up];
		k = up;
	}
	h->items[k] = it;
	return STEER_OK;
}

static open_item open_pop(open_list *h)
{
	open_item top = h->items[0], last = h->items[--h->count];
	size_t k = 0;
	for (;;) {
		size_t c = 2 * k + 1;
		if (c >= h->count)
			break;
		if (c + 1 < h->count && before(&h->items[c + 1], &h->items[c]))
			c++;
		if (!before(&h->items[c], &last))
			break;
		h->items[k] = h->items[c];
		k = c;
	}
	if (h->count)
		h->items[k] = last;
	return top;
}

/* --- line of sight ------------------------------------------------------------------- */

static steer_vec2 wrap_point(const steer_world *w, steer_vec2 p)
{
	if (w->cfg.edges != STEER_EDGE_WRAP)
		return p;
	p.x -= floor(p.x / w->cfg.width) * w->cfg.width;
	p.y -= floor(p.y / w->cfg.height) * w->cfg.height;
	return p;
}

bool steer_plan_clear(const steer_world *w, steer_vec2 a, steer_vec2 b, double r,
                      steer_geom_hits *hits)
{
	steer_vec2 d = steer_world_delta(w, a, b);
	double len = v2_len(d);
	/* In pieces a few index cells long: one box over a long diagonal would take in
	 * everything beside it. */
	const steer_geom *gm = &w->geom;
	double piece = gm->grid_stale ? len : 4.0 * fmax(gm->cw, gm->ch);
	double n = piece > 0.0 ? fmin(ceil(len / piece), 65536.0) : 1.0;
	n = fmax(n, 1.0);
	steer_vec2 step = v2_scale(d, 1.0 / n);
	for (double k = 0; k < n; k++) {
		steer_vec2 p0 = wrap_point(w, v2_add(a, v2_scale(d, k / n)));
		steer_vec2 lo = v2(p0.x + fmin(step.x, 0.0), p0.y + fmin(step.y, 0.0));
		steer_vec2 hi = v2(p0.x + fmax(step.x, 0.0), p0.y + fmax(step.y, 0.0));
		if (steer_geom_query_box(w, lo, hi, r, hits) != STEER_OK)
			return false;
		double t;
		for (size_t q = 0; q < hits->ncircles; q++) {
			const steer_obstacle *o = &w->obs[hits->circles[q]];
			steer_vec2 c = steer_world_delta(w, p0, v2(o->x, o->y));
			if (steer_swept_disc_circle(v2(0, 0), step, r, c, o->r, &t))
				return false;
		}
		for (size_t q = 0; q < hits->nsegments; q++) {
			steer_vec2 sa, sb;
			steer_geom_seg_rel(w, &gm->segs[hits->segments[q]], p0, &sa, &sb);
			if (steer_swept_disc_segment(v2(0, 0), step, r, sa, sb, &t))
				return false;
		}
	}
	return true;
}

/* --- A* ------------------------------------------------------------------------------ */

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

static void scratch_free(plan_scratch *s)
{
	free(s->state);
	free(s->own_known);
	free(s->g);
	free(s->parent);
	free(s->open.items);
	free(s->cells);
	free(s->pts);
}

/* The start's and the goal's cells are free for this plan whatever the test says
 * (state); any other is tested once per geometry (known). */
static bool cell_free(const steer_world *w, const plan_grid *g, const plan_scratch *s,
                      uint32_t cell)
{
	if (s->state[cell] & CELL_FREE)
		return true;
	if (!s->known[cell])
		s->known[cell] = steer_geom_blocked(w, cell_centre(g, cell), g->check_r, 0.0)
		                     ? CELL_BLOCKED
		                     : CELL_FREE;
	return s->known[cell] == CELL_FREE;
}

/* The neighbour at (di, dj) of the cell in column ci, row cj, or UINT32_MAX off the
 * grid. */
static inline uint32_t neighbour(const plan_grid *g, long ci, long cj, int di, int dj)
{
	long i = ci + di, j = cj + dj, nx = (long)g->nx, ny = (long)g->ny;
	if (g->wrap) { /* a step is at most one cell: no division needed */
		i += i < 0 ? nx : i >= nx ? -nx : 0;
		j += j < 0 ? ny : j >= ny ? -ny : 0;
	} else if (i < 0 || j < 0 || i >= nx || j >= ny) {
		return UINT32_MAX;
	}
	return (uint32_t)j * g->nx + (uint32_t)i;
}

/* One clearance's A*, resumable: begun, advanced some cells at a time, its route read
 * when done. Its state depends on the geometry, the ends and the cells expanded alone,
 * not on how the expansions were split. */
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

static void search_free(plan_search *ps)
{
	scratch_free(&ps->s);
	memset(ps, 0, sizeof *ps);
}

/* Starts a plan from start to goal for a disc of that radius: the goal moved out of any
 * obstacle, the straight line tried, the grid and the open list set up. NOMEM,
 * INVALID; ps freed by search_free either way. */
static steer_status search_begin(const steer_world *w, steer_vec2 start, steer_vec2 goal,
                                 double radius, plan_search *ps)
{
	memset(ps, 0, sizeof *ps);
	if (!(radius > 0.0) || !steer_vec_ok(start) || !steer_vec_ok(goal))
		return STEER_ERR_INVALID;
	ps->start = ps->from = start;
	ps->radius = radius;
	steer_vec2 free_goal;
	steer_status st = steer_geom_free_point(w, goal, radius, &free_goal);
	if (st == STEER_ERR_NOMEM)
		return st;
	ps->goal = wrap_point(w, free_goal); /* NOENT: no room anywhere; goal as given */
	steer_geom_hits hits;
	memset(&hits, 0, sizeof hits);
	/* A clear straight line is the route: no grid, no detour from its rounding. */
	if (steer_plan_clear(w, start, ps->goal, radius, &hits)) {
		steer_geom_hits_free(&hits);
		ps->straight = ps->done = ps->reached = true;
		return STEER_OK;
	}
	/* A start nearer an obstacle than the radius (a vehicle pressed against a wall)
	 * would have no free cell round it: the route first steps out to the nearest
	 * point where the disc fits, when that is on the same side of everything. */
	if (steer_geom_free_point(w, start, radius, &ps->from) != STEER_OK ||
	    !steer_plan_clear(w, start, ps->from, 0.0, &hits))
		ps->from = start;
	steer_geom_hits_free(&hits);
	plan_grid *g = &ps->g;
	grid_setup(w, start, ps->goal, radius, g);
	plan_scratch *s = &ps->s;
	size_t n = (size_t)g->nx * g->ny;
	s->state = calloc(n, 1);
	s->g = malloc(n * sizeof *s->g);
	s->parent = malloc(n * sizeof *s->parent);
	if (!s->state || !s->g || !s->parent)
		return STEER_ERR_NOMEM;
	/* hypot(di * hx, dj * hy) has these three values. */
	ps->step_x = g->hx;
	ps->step_y = g->hy;
	ps->step_d = hypot(g->hx, g->hy);
	uint32_t from = cell_of(g, wrap_point(w, ps->from));
	ps->from_cell = from;
	ps->to = cell_of(g, ps->goal);
	s->state[from] = CELL_FREE | CELL_OPEN;
	s->g[from] = 0.0;
	s->parent[from] = from;
	/* The goal is free (moved out of obstacles): so is its cell. */
	s->state[ps->to] |= CELL_FREE;
	ps->best = from;
	ps->best_d = v2_len(steer_world_delta(w, cell_centre(g, from), ps->goal));
	return open_push(&s->open, (open_item){ps->best_d, 0.0, from});
}

/* Expands up to limit more cells (*used of them); ps->done once the goal is reached or
 * no cell is left open. */
static steer_status search_advance(const steer_world *w, plan_search *ps, size_t limit,
                                   size_t *used)
{
	*used = 0;
	if (ps->done)
		return STEER_OK;
	const plan_grid *g = &ps->g;
	plan_scratch *s = &ps->s;
	/* What plans learnt of the cells: the world's record, looked up again each time
	 * (another plan may have taken its place since), or this plan's own. */
	if (!s->own_known) {
		s->known = memo_for(w, g);
		if (!s->known && !(s->known = s->own_known = calloc((size_t)g->nx * g->ny, 1)))
			return STEER_ERR_NOMEM;
	}
	while (s->open.count && *used < limit) {
		open_item it = open_pop(&s->open);
		uint32_t c = it.cell;
		if ((s->state[c] & CELL_CLOSED) || it.g > s->g[c])
			continue;
		s->state[c] |= CELL_CLOSED;
		++*used;
		double d = v2_len(steer_world_delta(w, cell_centre(g, c), ps->goal));
		if (d < ps->best_d || (d == ps->best_d && c < ps->best)) {
			ps->best = c;
			ps->best_d = d;
		}
		if (c == ps->to) {
			ps->reached = true;
			break;
		}
		long ci = (long)(c % g->nx), cj = (long)(c / g->nx);
		for (int dj = -1; dj <= 1; dj++)
			for (int di = -1; di <= 1; di++) {
				uint32_t nb = neighbour(g, ci, cj, di, dj);
				if ((di == 0 && dj == 0) || nb == UINT32_MAX ||
				    (s->state[nb] & CELL_CLOSED) || !cell_free(w, g, s, nb))
					continue;
				/* No corner cutting: a diagonal step needs both sides free. */
				if (di && dj) {
					uint32_t a = neighbour(g, ci, cj, di, 0),
					         b = neighbour(g, ci, cj, 0, dj);
					if (!cell_free(w, g, s, a) || !cell_free(w, g, s, b))
						continue;
				}
				double ng = s->g[c] + (di && dj ? ps->step_d
				                       : di     ? ps->step_x
				                                : ps->step_y);
				if ((s->state[nb] & CELL_OPEN) && ng >= s->g[nb])
					continue;
				s->state[nb] |= CELL_OPEN;
				s->g[nb] = ng;
				s->parent[nb] = c;
				double h =
				    v2_len(steer_world_delta(w, cell_centre(g, nb), ps->goal));
				if (open_push(&s->open, (open_item){ng + h, ng, nb}) != STEER_OK)
					return STEER_ERR_NOMEM;
			}
	}
	ps->expanded += *used;
	ps->done = ps->reached || s->open.count == 0;
	return STEER_OK;
}

/* String pulling: from each waypoint, the furthest point of the route a disc reaches
 * in a straight line (at least the next: the start may stand against an obstacle). */
static steer_status smooth(const steer_world *w, const steer_vec2 *pts, size_t n, double r,
                           steer_geom_hits *hits, steer_route *out)
{
	out->count = 0;
	size_t anchor = 0;
	while (anchor + 1 < n) {
		size_t k = anchor + 1;
		while (k + 1 < n && steer_plan_clear(w, pts[anchor], pts[k + 1], r, hits))
			k++;
		if (steer_reserve((void **)&out->points, &out->cap, out->count + 1,
		                  sizeof *out->points) != STEER_OK)
			return STEER_ERR_NOMEM;
		out->points[out->count++] = pts[k];
		anchor = k;
	}
	return STEER_OK;
}

/* A done search's route: the cells from the goal's (or the nearest the goal the search
 * reached) back to the start's, as points, string-pulled. */
static steer_status search_route(const steer_world *w, plan_search *ps, steer_route *out)
{
	out->count = 0;
	out->reached = ps->reached;
	out->expanded = ps->expanded;
	out->cells = ps->straight ? 0 : (size_t)ps->g.nx * ps->g.ny;
	if (ps->straight) {
		if (steer_reserve((void **)&out->points, &out->cap, 1, sizeof *out->points) !=
		    STEER_OK)
			return STEER_ERR_NOMEM;
		out->points[0] = ps->goal;
		out->count = 1;
		return STEER_OK;
	}
	plan_scratch *s = &ps->s;
	s->ncells = 0;
	for (uint32_t c = ps->reached ? ps->to : ps->best;; c = s->parent[c]) {
		if (steer_reserve((void **)&s->cells, &s->cells_cap, s->ncells + 1,
		                  sizeof *s->cells) != STEER_OK)
			return STEER_ERR_NOMEM;
		s->cells[s->ncells++] = c;
		if (c == ps->from_cell)
			break;
	}
	/* The route as points: start, the centres of the cells after the start's, and the
	 * goal in place of its cell's centre. */
	if (steer_reserve((void **)&s->pts, &s->pts_cap, s->ncells + 2, sizeof *s->pts) != STEER_OK)
		return STEER_ERR_NOMEM;
	size_t np = 0;
	s->pts[np++] = ps->start;
	if (ps->from.x != ps->start.x || ps->from.y != ps->start.y)
		s->pts[np++] = ps->from;
	for (size_t k = s->ncells - 1; k-- > (ps->reached ? 1u : 0u);)
		s->pts[np++] = cell_centre(&ps->g, s->cells[k]);
	if (ps->reached)
		s->pts[np++] = ps->goal;
	else if (np == 1) /* nowhere better than where it stands */
		s->pts[np++] = ps->start;
	steer_geom_hits hits;
	memset(&hits, 0, sizeof hits);
	steer_status st = smooth(w, s->pts, np, ps->radius, &hits, out);
	steer_geom_hits_free(&hits);
	return st;
}

steer_status steer_plan(const steer_world *w, steer_vec2 start, steer_vec2 goal, double radius,
                        steer_route *out)
{
	out->count = 0;
	out->reached = false;
	out->expanded = 0;
	plan_search ps;
	size_t used;
	steer_status st = search_begin(w, start, goal, radius, &ps);
	if (st == STEER_OK)
		st = search_advance(w, &ps, SIZE_MAX, &used);
	if (st == STEER_OK)
		st = search_route(w, &ps, out);
	search_free(&ps);
	return st;
}

void steer_route_free(steer_route *r)
{
	free(r->points);
	r->points = NULL;
	r->count = r->cap = 0;
}

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
	search_free(&j->search);
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
			if ((st = search_begin(w, j->start, j->goal, j->radii[j->phase], ps)) !=
			    STEER_OK)
				return st;
		}
		if (!ps->done) {
			if (j->spent >= target)
				return STEER_OK;
			size_t used;
			st = search_advance(w, ps, (size_t)(target - j->spent), &used);
			j->spent += used;
			if (st != STEER_OK || !ps->done)
				return st;
		}
		steer_route r = {0};
		st = search_route(w, ps, &r);
		search_free(ps);
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
