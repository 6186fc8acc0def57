#include "planner.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plan_search.h"
#include "reserve.h"
#include "targets.h"
#include "world_internal.h"

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

void steer_plan_search_free(plan_search *ps)
{
	scratch_free(&ps->s);
	memset(ps, 0, sizeof *ps);
}

/* Starts a plan from start to goal for a disc of that radius: the goal moved out of any
 * obstacle, the straight line tried, the grid and the open list set up. NOMEM,
 * INVALID; ps freed by steer_plan_search_free either way. */
steer_status steer_plan_search_begin(const steer_world *w, steer_vec2 start, steer_vec2 goal,
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
steer_status steer_plan_search_advance(const steer_world *w, plan_search *ps, size_t limit,
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
steer_status steer_plan_search_route(const steer_world *w, plan_search *ps, steer_route *out)
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
	steer_status st = steer_plan_search_begin(w, start, goal, radius, &ps);
	if (st == STEER_OK)
		st = steer_plan_search_advance(w, &ps, SIZE_MAX, &used);
	if (st == STEER_OK)
		st = steer_plan_search_route(w, &ps, out);
	steer_plan_search_free(&ps);
	return st;
}

void steer_route_free(steer_route *r)
{
	free(r->points);
	r->points = NULL;
	r->count = r->cap = 0;
}
