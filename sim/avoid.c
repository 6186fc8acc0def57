#include "avoid.h"

#include <assert.h>
#include <math.h>

#include "kernel.h"
#include "orca.h"
#include "pool.h"
#include "reserve.h"
#include "steer/rng.h"
#include "world_internal.h"

/* Cells about this many vehicles' shares of the world wide: a few vehicles to a
 * cell where they are evenly spread, so the search's rings grow finely. Where they
 * crowd (a jam, a ring of walkers) a cell holds many, and each search reads them
 * all: the cells are halved while a vehicle's cell holds more than CROWDED_CELL
 * others on average, and doubled back when fewer than a quarter of that. Powers of
 * two and that margin, so a crowd near the limit does not change the grid (and the
 * storage order that follows it) every tick. */
#define CELL_SHARES  2.0
#define CROWDED_CELL 8.0
#define MAX_HALVINGS 6

/* When the preferred velocity breaks a line, every avoider turns it the same way, by
 * KEEP_SIDE radians clockwise, and wobbles it by WOBBLE of its length in a direction
 * hashed from its id and the tick. In a symmetric crowd (a ring of vehicles bound for
 * their antipodes) every program has the same answer, and nobody gives way without
 * the wobble; with the wobble alone, a jam at the centre dissolves only as fast as
 * random steps add up. Turning one way is the convention of people passing on one
 * side: everyone's way round agrees with everyone else's, and the jam turns as a
 * whole and unwinds (figures: docs/PERFORMANCE.md, "The crowd against RVO2"). */
#define KEEP_SIDE 0.05
#define WOBBLE    0.01
/* Turning one way can also hold two vehicles against each other where a packed
 * block leaves them no room (two walkers short of their goals at the edge of a
 * crowd already home, still for minutes): a vehicle held up, slower than
 * STUCK_SPEED of its max_speed, wobbles by STUCK_WOBBLE instead, in a direction kept
 * for STUCK_HOLD ticks, so that the wobble adds up to a step aside. */
#define STUCK_SPEED  0.1
#define STUCK_WOBBLE 0.5
#define STUCK_HOLD   32

/* Kept lists (below, "kept lists"). */
#define LIST_MAX        32
#define LIST_SKIN_TICKS 4.0
#define LIST_GATHER     (4 * LIST_MAX) /* more within the skin: no list */
/* A list that could not be made, or not wide enough for its bound, is made again
 * after this many ticks, the grid searched meanwhile. */
#define LIST_RETRY 16

/* The members' positions and ids in grid order (see avoid_at in world_internal.h). */
typedef struct copy_job {
	steer_world *w;
	int parts;
} copy_job;

static void copy_part(void *arg, int part)
{
	copy_job *j = arg;
	const steer_grid *g = &j->w->avoid_grid;
	const steer_vehicles *v = &j->w->v;
	double *x = j->w->avoid_at.x, *y = j->w->avoid_at.y;
	uint32_t *id = j->w->avoid_at.id;
	size_t to = steer_part_from(g->count, part + 1, j->parts);
	for (size_t k = steer_part_from(g->count, part, j->parts); k < to; k++) {
		uint32_t i = g->items[k];
		x[k] = v->px[i];
		y[k] = v->py[i];
		id[k] = v->id[i];
	}
}

static steer_status copy_members(steer_world *w)
{
	const steer_grid *g = &w->avoid_grid;
	size_t n = g->count;
	if (n > w->avoid_at.cap) {
		size_t cap;
		if (steer_grow_cap(w->avoid_at.cap, n, sizeof(double), &cap) != STEER_OK ||
		    steer_resize((void **)&w->avoid_at.x, cap, sizeof(double)) != STEER_OK ||
		    steer_resize((void **)&w->avoid_at.y, cap, sizeof(double)) != STEER_OK ||
		    steer_resize((void **)&w->avoid_at.id, cap, sizeof(uint32_t)) != STEER_OK)
			return STEER_ERR_NOMEM;
		w->avoid_at.cap = cap;
	}
	copy_job j = {.w = w, .parts = steer_world_parts(w, n)};
	steer_pool_run(w->pool, copy_part, &j, j.parts);
	return STEER_OK;
}

/* The next tick's cells, from how crowded this tick's are (CROWDED_CELL). The grid
 * serves only to find each avoider's nearest: their set, and so the bits, are the
 * same for any cells. */
static void adapt_cells(steer_world *w, double cell)
{
	const steer_grid *g = &w->avoid_grid;
	if (g->count == 0)
		return;
	double others = steer_grid_crowding(g) / (double)g->count - 1.0;
	if (others > CROWDED_CELL && w->avoid_halvings < MAX_HALVINGS && cell > 4.0 * w->radius_max)
		w->avoid_halvings++;
	else if (others < CROWDED_CELL / 4 && w->avoid_halvings > 0)
		w->avoid_halvings--;
}

/* --- kept bounds ------------------------------------------------------------------
 * A vehicle's nearest this tick are no further than its furthest nearest last tick,
 * plus how far it moved, plus how far the furthest-moved vehicle moved: those last
 * nearest are all still that close. The search starts from that bound and skips
 * whoever lies beyond it. It finds the same set, so the same bits, only sooner. The
 * bound holds while each slot holds the vehicle it held (any add, removal, re-sort or
 * halo change voids all the bounds for a tick); moves of any kind, commands' too,
 * are measured, not assumed. */
typedef struct steer_avoid_kept {
	double x, y;  /* where the vehicle was at the last search */
	double base;  /* the last furthest nearest plus its own move since; inf: none */
	double worst; /* this tick's furthest nearest; inf: none (the set was not full) */
	uint32_t id;  /* who the slot held */
	uint32_t cap; /* how many nearest `worst` was the furthest of */
	uint32_t base_cap;
	/* Its kept list (below): the listed slots of every vehicle within radius of
	 * (lx, ly) when made, when avoid_moved_sum was moved_at; of generation gen. */
	uint32_t listed;
	double lx, ly, radius, moved_at;
	uint64_t gen;
	uint64_t retry; /* the tick from which a list that could not cover is made again */
} steer_avoid_kept;

typedef struct kept_job {
	steer_world *w;
	int parts;
	double moved[STEER_POOL_MAX_THREADS];
	bool changed[STEER_POOL_MAX_THREADS];
} kept_job;

static void kept_part(void *arg, int part)
{
	kept_job *j = arg;
	const steer_vehicles *v = &j->w->v;
	steer_avoid_kept *kept = j->w->avoid_kept;
	bool wrap = j->w->cfg.edges == STEER_EDGE_WRAP;
	double W = j->w->cfg.width, H = j->w->cfg.height, moved = 0.0;
	bool changed = false;
	size_t to = steer_part_from(v->count, part + 1, j->parts);
	for (size_t i = steer_part_from(v->count, part, j->parts); i < to; i++) {
		steer_avoid_kept *k = &kept[i];
		double dx = v->px[i] - k->x, dy = v->py[i] - k->y;
		if (wrap) {
			dx = steer_wrap_axis(dx, W);
			dy = steer_wrap_axis(dy, H);
		}
		double d = sqrt(dx * dx + dy * dy);
		changed |= k->id != v->id[i];
		moved = d > moved ? d : moved; /* NaN-free: positions are finite */
		k->x = v->px[i];
		k->y = v->py[i];
		k->base = k->worst + d;
		k->worst = INFINITY;
		k->id = v->id[i];
		k->base_cap = k->cap;
		k->cap = 0;
	}
	j->moved[part] = moved;
	j->changed[part] = changed;
}

/* Moves every slot's bound on to this tick. Only an optimisation: when the room
 * cannot be had, no bound is used. */
static void keep_bounds(steer_world *w)
{
	size_t n = w->v.count;
	size_t had = w->avoid_kept_cap;
	w->avoid_kept_valid = w->avoid_kept_ready = false;
	if (steer_reserve((void **)&w->avoid_kept, &w->avoid_kept_cap, n, sizeof *w->avoid_kept) !=
	    STEER_OK)
		return;
	if (w->avoid_kept_cap != had) { /* new room: nothing kept in it */
		for (size_t i = 0; i < w->avoid_kept_cap; i++)
			w->avoid_kept[i] = (steer_avoid_kept){
			    .base = INFINITY, .worst = INFINITY, .id = UINT32_MAX, .radius = -1.0};
		w->avoid_list_gen++;
	}
	size_t list_cap = w->avoid_list_cap;
	w->avoid_lists_ready =
	    steer_reserve((void **)&w->avoid_list, &list_cap, w->avoid_kept_cap * LIST_MAX,
	                  sizeof *w->avoid_list) == STEER_OK;
	w->avoid_list_cap = list_cap;
	kept_job j;
	j.w = w;
	j.parts = steer_world_parts(w, n);
	steer_pool_run(w->pool, kept_part, &j, j.parts);
	double moved = 0.0;
	/* New bounds change what "how far" means. */
	bool changed = n != w->avoid_kept_count || w->cfg.width != w->avoid_kept_width ||
	               w->cfg.height != w->avoid_kept_height || w->cfg.edges != w->avoid_kept_edges;
	for (int p = 0; p < j.parts; p++) {
		moved = j.moved[p] > moved ? j.moved[p] : moved;
		changed |= j.changed[p];
	}
	w->avoid_kept_count = n;
	w->avoid_kept_width = w->cfg.width;
	w->avoid_kept_height = w->cfg.height;
	w->avoid_kept_edges = w->cfg.edges;
	w->avoid_moved_max = moved;
	/* Rounded up: a move below half the sum's last bit would else add nothing, and
	 * the lists' drift must never fall short. */
	if (moved > 0.0)
		w->avoid_moved_sum = nextafter(w->avoid_moved_sum + moved, INFINITY);
	w->avoid_kept_ready = true;
	w->avoid_kept_valid = !changed;
	if (changed) /* a list's slots may hold others now */
		w->avoid_list_gen++;
}

steer_status steer_avoid_index(steer_world *w)
{
	const steer_vehicles *v = &w->v;
	w->avoid_grid.count = 0;
	if (!w->avoid_any)
		return STEER_OK;
	w->speed_max = steer_world_speed_max(w);
	double fast2 = 0.0;
	for (size_t k = 0; k < w->obs_count; k++)
		fast2 = fmax(fast2, w->obs[k].vx * w->obs[k].vx + w->obs[k].vy * w->obs[k].vy);
	w->circle_speed_max = sqrt(fast2);
	double share = sqrt(w->cfg.width * w->cfg.height / (double)(v->count ? v->count : 1));
	double cell = fmax(ldexp(CELL_SHARES * share, -w->avoid_halvings), 2.0 * w->radius_max);
	steer_status st = steer_grid_build(&w->avoid_grid, w->cfg.width, w->cfg.height,
	                                   w->cfg.edges == STEER_EDGE_WRAP, cell, v->count, v->px,
	                                   v->py, NULL, 0);
	if (st == STEER_OK)
		adapt_cells(w, cell);
	/* With nothing flocking, the avoiders are handled in this grid's order, so that
	 * neighbours met by one are met again by the next. */
	if (st == STEER_OK && w->grid.count == 0)
		st = steer_world_order_by(w, &w->avoid_grid);
	if (st == STEER_OK)
		keep_bounds(w);
	return st == STEER_OK ? copy_members(w) : st;
}

/* --- the nearest vehicles -------------------------------------------------------- */

typedef struct near_one {
	double d2;
	uint32_t id, slot;
	steer_vec2 d; /* from the avoider to it, the short way round */
} near_one;

/* The nearest vehicles within reach, by (distance, id): the same set in the same
 * order whatever the storage or the grid. */
typedef struct near_set {
	near_one at[STEER_AVOID_NEIGHBOURS_MAX];
	int count, cap;
	double reach2;
	double worst2; /* the last one's d2 once the set is full, else infinity */
} near_set;

static bool nearer(double d2, uint32_t id, const near_one *o)
{
	return d2 < o->d2 || (d2 == o->d2 && id < o->id);
}

/* Takes vehicle id in slot, within reach and no further than the worst. */
static void near_take(near_set *s, double d2, uint32_t id, uint32_t slot, steer_vec2 d)
{
	int at = s->count;
	if (at == s->cap) {
		if (!nearer(d2, id, &s->at[at - 1]))
			return;
		at--;
	} else {
		s->count++;
	}
	while (at > 0 && nearer(d2, id, &s->at[at - 1])) {
		s->at[at] = s->at[at - 1];
		at--;
	}
	s->at[at] = (near_one){d2, id, slot, d};
	if (s->count == s->cap)
		s->worst2 = s->at[s->cap - 1].d2;
}

/* Members within reach, gathered without a branch per member before the set takes
 * them: most are not taken, and which is not foreseeable. */
#define GATHER_MAX 32

typedef struct gathered {
	double dx[GATHER_MAX], dy[GATHER_MAX], d2[GATHER_MAX];
	uint32_t k[GATHER_MAX];
	int count;
} gathered;

/* g's k are grid positions. */
static void take_gathered(near_set *s, const steer_world *w, gathered *g)
{
	for (int m = 0; m < g->count; m++) {
		uint32_t k = g->k[m];
		if (g->d2[m] <= s->worst2)
			near_take(s, g->d2[m], w->avoid_at.id[k], w->avoid_grid.items[k],
			          v2(g->dx[m], g->dy[m]));
	}
	g->count = 0;
}

/* The members at grid positions [from, to) (consecutive memory) within reach, but
 * the avoider (self, its id), into g, handed to the set whenever g fills. */
static void offer_run(near_set *s, gathered *g, const steer_world *w, steer_vec2 p, uint32_t self,
                      uint32_t from, uint32_t to)
{
	const double *x = w->avoid_at.x, *y = w->avoid_at.y;
	const uint32_t *id = w->avoid_at.id;
	bool wrap = w->cfg.edges == STEER_EDGE_WRAP;
	double W = w->cfg.width, H = w->cfg.height, reach2 = s->reach2;
	/* Nobody further than the set's worst is taken: such members are not gathered
	 * either. The worst only falls as the set takes the gathered. */
	double worst2 = s->worst2;
	for (uint32_t k = from; k < to; k++) {
		if (g->count == GATHER_MAX) {
			take_gathered(s, w, g);
			worst2 = s->worst2;
		}
		/* steer_world_delta's arithmetic, so the offsets are the same bits. */
		double dx = x[k] - p.x, dy = y[k] - p.y;
		if (wrap) {
			dx = steer_wrap_axis(dx, W);
			dy = steer_wrap_axis(dy, H);
		}
		double d2 = dx * dx + dy * dy;
		int c = g->count;
		g->dx[c] = dx;
		g->dy[c] = dy;
		g->d2[c] = d2;
		g->k[c] = k;
		g->count = c + ((d2 < reach2) & (d2 <= worst2) & (id[k] != self));
	}
}

/* The cells of one axis a search ring k reaches: [lo, hi] around the centre cell c,
 * each cell at most once (wrapping: at most the whole axis; else clamped to it). */
typedef struct axis_window {
	int lo, hi;
} axis_window;

static axis_window window_at(int c, int k, int n, bool wrap)
{
	axis_window a;
	if (wrap) {
		int below = (n - 1) / 2, above = n - 1 - below;
		a.lo = c - (k < below ? k : below);
		a.hi = c + (k < above ? k : above);
	} else {
		a.lo = c - k > 0 ? c - k : 0;
		a.hi = c + k < n - 1 ? c + k : n - 1;
	}
	return a;
}

/* Cells x0 .. x1 of row y (either may lie one axis beyond the grid when it wraps)
 * as runs of grid positions [from, to): the members of a row's consecutive cells
 * are consecutive, so at most three runs. Returns how many. */
static int row_runs(const steer_grid *g, int y, int x0, int x1, steer_grid_run runs[3])
{
	int n = 0;
	if (x0 > x1)
		return 0;
	int ny = g->ny, nx = g->nx;
	int row = y < 0 ? y + ny : y >= ny ? y - ny : y;
	/* A part beyond either end is the other end's cells, and only those: a ring's
	 * new end may lie wholly beyond the grid, next to cells a ring before took. */
	if (x0 < 0) {
		int hi = x1 < 0 ? x1 : -1;
		runs[n++] = steer_grid_row_run(g, row, x0 + nx, hi + nx);
		x0 = 0;
	}
	if (x1 >= nx) {
		int lo = x0 > nx ? x0 : nx;
		runs[n++] = steer_grid_row_run(g, row, lo - nx, x1 - nx);
		x1 = nx - 1;
	}
	if (x0 <= x1) {
		runs[n++] = steer_grid_row_run(g, row, x0, x1);
	}
	return n;
}

static void offer_cells(near_set *s, gathered *gt, const steer_world *w, steer_vec2 p,
                        uint32_t self, int y, int x0, int x1)
{
	steer_grid_run runs[3];
	int n = row_runs(&w->avoid_grid, y, x0, x1, runs);
	for (int r = 0; r < n; r++)
		offer_run(s, gt, w, p, self, runs[r].from, runs[r].to);
}

static int imin(int a, int b)
{
	return a < b ? a : b;
}

static int imax(int a, int b)
{
	return a > b ? a : b;
}

/* The cell of one axis that coordinate c falls in, as the grid places members: the
 * end cells take everything beyond them, unless the axis wraps, where cells go on
 * (-n .. 2n - 1, enough for any window of a ring). */
static int cell_at(double c, double cell, int n, bool wrap)
{
	double k = floor(c / cell);
	int lo = wrap ? -n : 0, hi = wrap ? 2 * n - 1 : n - 1;
	return k < lo ? lo : k > hi ? hi : (int)k;
}

/* Rings of cells outwards from the avoider's, until a ring can hold nobody nearer
 * than the set's worst (when full) or within reach. */
static void find_near(near_set *s, const steer_world *w, size_t self)
{
	const steer_grid *g = &w->avoid_grid;
	steer_vec2 p = pos_of(&w->v, self);
	uint32_t self_id = w->v.id[self];
	int cx = steer_grid_axis_index(p.x, g->cw, g->nx);
	int cy = steer_grid_axis_index(p.y, g->ch, g->ny);
	double cell = fmin(g->cw, g->ch);
	axis_window px = {cx, cx - 1}, py = {cy, cy - 1}; /* the rings so far: none */
	gathered gt;
	gt.count = 0;
	double slack = 1e-9 * (fabs(p.x) + fabs(p.y) + w->cfg.width + w->cfg.height);
	for (int k = 0;; k++) {
		take_gathered(s, w, &gt);
		double floor_d = (k - 1) * cell; /* nobody in ring k is nearer */
		double limit2 =
		    s->count == s->cap ? s->at[s->cap - 1].d2 : fmin(s->reach2, s->worst2);
		if (k > 0 && floor_d * floor_d > limit2)
			return;
		axis_window nx = window_at(cx, k, g->nx, g->wrap);
		axis_window ny = window_at(cy, k, g->ny, g->wrap);
		if (k > 0 && nx.lo == px.lo && nx.hi == px.hi && ny.lo == py.lo && ny.hi == py.hi)
			return; /* the whole grid is done */
		/* Of the ring, only the cells that reach within the limit: a box around the
		 * avoider, a little wider than the limit for the rounding of cell bounds. */
		double r = sqrt(limit2) + slack;
		int x0 = imax(nx.lo, cell_at(p.x - r, g->cw, g->nx, g->wrap));
		int x1 = imin(nx.hi, cell_at(p.x + r, g->cw, g->nx, g->wrap));
		int y0 = imax(ny.lo, cell_at(p.y - r, g->ch, g->ny, g->wrap));
		int y1 = imin(ny.hi, cell_at(p.y + r, g->ch, g->ny, g->wrap));
		for (int y = y0; y <= y1; y++) {
			if (y >= py.lo && y <= py.hi) { /* a row seen before: its new ends */
				offer_cells(s, &gt, w, p, self_id, y, x0, imin(x1, px.lo - 1));
				offer_cells(s, &gt, w, p, self_id, y, imax(x0, px.hi + 1), x1);
			} else {
				offer_cells(s, &gt, w, p, self_id, y, x0, x1);
			}
		}
		px = nx;
		py = ny;
	}
}

/* --- kept lists -------------------------------------------------------------------
 * An avoider's nearest are found among its kept list (a Verlet list): the slots of
 * every vehicle within `radius` of it when the list was made. This tick's nearest
 * lie within the search's bound B (its reach, or the kept bound); since the list
 * was made each has moved at most D (every tick's furthest move, summed) and the
 * avoider m (measured), so each was within B + m + D of it then. While that is under
 * the radius the list holds everyone the grid search could take, and, taken by
 * (distance, id), the same set: the same bits. A list is made a skin wider than B,
 * LIST_SKIN_TICKS ticks of such growth, so that it serves several ticks, and holds
 * at most LIST_MAX: where more crowd in, the nearest LIST_MAX, its radius shrunk to
 * the next one's distance. Avoiders that take more than LIST_MAX / 2 nearest, and
 * those with more than LIST_GATHER within the skin, search the grid. */

typedef struct listing {
	uint32_t slot[LIST_GATHER];
	double d2[LIST_GATHER];
	int count;
	bool full;
} listing;

static void list_run(listing *l, const steer_world *w, steer_vec2 p, uint32_t self, double r2,
                     uint32_t from, uint32_t to)
{
	const double *x = w->avoid_at.x, *y = w->avoid_at.y;
	const uint32_t *id = w->avoid_at.id;
	bool wrap = w->cfg.edges == STEER_EDGE_WRAP;
	double W = w->cfg.width, H = w->cfg.height;
	for (uint32_t k = from; k < to && !l->full; k++) {
		double dx = x[k] - p.x, dy = y[k] - p.y;
		if (wrap) {
			dx = steer_wrap_axis(dx, W);
			dy = steer_wrap_axis(dy, H);
		}
		double d2 = dx * dx + dy * dy;
		if (d2 > r2 || id[k] == self)
			continue;
		if (l->count == LIST_GATHER) {
			l->full = true;
			break;
		}
		l->slot[l->count] = w->avoid_grid.items[k];
		l->d2[l->count++] = d2;
	}
}

/* The cells of one axis within r of coordinate c, each at most once. */
static axis_window box_axis(double c, double r, double cell, int n, bool wrap)
{
	axis_window a = {cell_at(c - r, cell, n, wrap), cell_at(c + r, cell, n, wrap)};
	if (a.hi - a.lo + 1 > n) {
		a.lo = 0;
		a.hi = n - 1;
	}
	return a;
}

/* Everyone but the avoider (slot self) within r of it, into l. */
static void list_gather(listing *l, const steer_world *w, size_t self, double r)
{
	const steer_grid *g = &w->avoid_grid;
	steer_vec2 p = pos_of(&w->v, self);
	l->count = 0;
	l->full = false;
	double slack = 1e-9 * (fabs(p.x) + fabs(p.y) + w->cfg.width + w->cfg.height);
	axis_window bx = box_axis(p.x, r + slack, g->cw, g->nx, g->wrap);
	axis_window by = box_axis(p.y, r + slack, g->ch, g->ny, g->wrap);
	for (int y = by.lo; y <= by.hi && !l->full; y++) {
		steer_grid_run runs[3];
		int n = row_runs(g, y, bx.lo, bx.hi, runs);
		for (int k = 0; k < n; k++)
			list_run(l, w, p, w->v.id[self], r * r, runs[k].from, runs[k].to);
	}
}

/* Makes slot self's list, within bound plus skin (or fewer); false when more than
 * LIST_GATHER crowd within that. */
static bool list_make(steer_avoid_kept *kept, uint32_t *slots, const steer_world *w, size_t self,
                      double r)
{
	listing l;
	list_gather(&l, w, self, r);
	kept->gen = w->avoid_list_gen;
	kept->lx = w->v.px[self];
	kept->ly = w->v.py[self];
	kept->moved_at = w->avoid_moved_sum;
	if (l.full) {
		kept->radius = -1.0;
		kept->listed = 0;
		return false;
	}
	/* Nearest first: the ticks that take from it then mostly append to the set,
	 * whose worst soon bars the rest. */
	for (int k = 1; k < l.count; k++) {
		double d = l.d2[k];
		uint32_t t = l.slot[k];
		int at = k;
		for (; at > 0 && l.d2[at - 1] > d; at--) {
			l.d2[at] = l.d2[at - 1];
			l.slot[at] = l.slot[at - 1];
		}
		l.d2[at] = d;
		l.slot[at] = t;
	}
	if (l.count > LIST_MAX) {
		r = sqrt(l.d2[LIST_MAX]); /* everyone nearer is listed */
		l.count = LIST_MAX;
	}
	for (int k = 0; k < l.count; k++)
		slots[k] = l.slot[k];
	kept->listed = (uint32_t)l.count;
	kept->radius = r;
	return true;
}

/* The nearest cap of g (g's k are slots) by (distance, id) into the empty set s:
 * the same set in the same order as near_take's, sorted as indices into g rather
 * than by moving whole entries. */
static void take_listed(near_set *s, const steer_world *w, const gathered *g)
{
	uint32_t id[GATHER_MAX];
	uint8_t order[GATHER_MAX];
	int kept = 0;
	for (int m = 0; m < g->count; m++) {
		double d2 = g->d2[m];
		uint32_t me = w->v.id[g->k[m]];
		id[m] = me;
		int at = kept;
		if (kept == s->cap) {
			int last = order[at - 1];
			if (!(d2 < g->d2[last] || (d2 == g->d2[last] && me < id[last])))
				continue;
			at--;
		} else {
			kept++;
		}
		for (; at > 0; at--) {
			int o = order[at - 1];
			if (!(d2 < g->d2[o] || (d2 == g->d2[o] && me < id[o])))
				break;
			order[at] = order[at - 1];
		}
		order[at] = (uint8_t)m;
	}
	for (int k = 0; k < kept; k++) {
		int m = order[k];
		s->at[k] = (near_one){g->d2[m], id[m], g->k[m], v2(g->dx[m], g->dy[m])};
	}
	s->count = kept;
	if (kept == s->cap)
		s->worst2 = s->at[kept - 1].d2;
}

/* The listed slots within reach, as offer_run takes the grid's members: a list
 * fits in one gathering, so the set takes them all at once. */
static void offer_listed(near_set *s, const steer_world *w, steer_vec2 p, const uint32_t *slots,
                         uint32_t n)
{
	_Static_assert(LIST_MAX <= GATHER_MAX, "a kept list is gathered at once");
	assert(s->count == 0 && n <= LIST_MAX);
	const double *x = w->v.px, *y = w->v.py;
	bool wrap = w->cfg.edges == STEER_EDGE_WRAP;
	double W = w->cfg.width, H = w->cfg.height, reach2 = s->reach2, worst2 = s->worst2;
	gathered g;
	g.count = 0;
	for (uint32_t m = 0; m < n; m++) {
		uint32_t j = slots[m];
		double dx = x[j] - p.x, dy = y[j] - p.y;
		if (wrap) {
			dx = steer_wrap_axis(dx, W);
			dy = steer_wrap_axis(dy, H);
		}
		double d2 = dx * dx + dy * dy;
		int c = g.count;
		g.dx[c] = dx;
		g.dy[c] = dy;
		g.d2[c] = d2;
		g.k[c] = j;
		g.count = c + ((d2 < reach2) & (d2 <= worst2));
	}
	take_listed(s, w, &g);
}

/* Slot i's nearest: from its kept list when that covers this tick, else by the grid,
 * making a new list first when the slots are as last tick (kept_valid). */
static void find_near_kept(near_set *s, const steer_world *w, size_t i, steer_avoid_kept *kept)
{
	if (!kept || !w->avoid_lists_ready || !w->avoid_kept_valid || s->cap > LIST_MAX / 2) {
		find_near(s, w, i);
		return;
	}
	steer_vec2 p = pos_of(&w->v, i);
	uint32_t *slots = &w->avoid_list[i * LIST_MAX];
	double bound = sqrt(fmin(s->reach2, s->worst2));
	double slack = 1e-9 * (fabs(p.x) + fabs(p.y) + w->cfg.width + w->cfg.height);
	if (kept->gen == w->avoid_list_gen) {
		double dx = p.x - kept->lx, dy = p.y - kept->ly;
		if (w->cfg.edges == STEER_EDGE_WRAP) {
			dx = steer_wrap_axis(dx, w->cfg.width);
			dy = steer_wrap_axis(dy, w->cfg.height);
		}
		double drift = sqrt(dx * dx + dy * dy) + (w->avoid_moved_sum - kept->moved_at);
		if ((bound + drift) * (1.0 + 1e-9) + slack < kept->radius) {
			offer_listed(s, w, p, slots, kept->listed);
			return;
		}
		if (w->tick < kept->retry) { /* a list made lately could not cover it */
			find_near(s, w, i);
			return;
		}
	}
	/* The skin: LIST_SKIN_TICKS ticks of growth, each of which may add the tick's
	 * furthest move three times over (to the bound, the avoider, a neighbour). */
	double skin = fmax(w->radius_max, LIST_SKIN_TICKS * 3.0 * w->avoid_moved_max);
	if (list_make(kept, slots, w, i, bound + skin) &&
	    bound * (1.0 + 1e-9) + slack < kept->radius) {
		offer_listed(s, w, p, slots, kept->listed);
		return;
	}
	kept->retry = w->tick + LIST_RETRY;
	find_near(s, w, i);
}

/* --- the lines ------------------------------------------------------------------- */

typedef struct lines {
	steer_orca_line at[STEER_ORCA_MAX_LINES];
	size_t count, hard;
} lines;

/* An obstacle or wall the avoider might meet, by distance to its body's edge, then
 * circles before segments, then index. */
typedef struct near_thing {
	double gap;
	bool segment;
	uint32_t index; /* into the obstacles or the segments */
} near_thing;

typedef struct near_things {
	near_thing at[STEER_ORCA_MAX_HARD];
	int count;
} near_things;

static bool closer(const near_thing *a, const near_thing *b)
{
	if (a->gap != b->gap)
		return a->gap < b->gap;
	if (a->segment != b->segment)
		return !a->segment;
	return a->index < b->index;
}

static void things_offer(near_things *t, near_thing c)
{
	int at = t->count;
	if (at == STEER_ORCA_MAX_HARD) {
		if (!closer(&c, &t->at[at - 1]))
			return;
		at--;
	} else {
		t->count++;
	}
	while (at > 0 && closer(&c, &t->at[at - 1])) {
		t->at[at] = t->at[at - 1];
		at--;
	}
	t->at[at] = c;
}

/* What one avoider looks at: its body (radius and buffer) and how far it looks. */
typedef struct looker {
	steer_vec2 p;
	double body, tau, far;
	double max_speed;
} looker;

/* edge: the length of steer_world_delta from the avoider to the circle's centre, less
 * its radius; speed: its velocity's length. */
static void offer_circle(near_things *t, const looker *l, uint32_t k, double edge, double speed)
{
	double gap = edge - l->body, soon = l->tau * (l->max_speed + speed);
	/* fmin(l->far, soon) without libm's call (far is a valid parameter: never NaN). */
	if (gap < (soon < l->far ? soon : l->far))
		things_offer(t, (near_thing){gap, false, k});
}

static void offer_segment(near_things *t, const steer_world *w, const looker *l,
                          const steer_segment *segs, size_t k)
{
	steer_vec2 a, b;
	steer_geom_seg_rel(w, &segs[k], l->p, &a, &b);
	double gap = sqrt(steer_seg_dist2(a, b, v2(0, 0))) - l->body;
	if (gap < fmin(l->far, l->tau * l->max_speed))
		things_offer(t, (near_thing){gap, true, (uint32_t)k});
}

/* The nearest obstacles and walls, through the index (or, when its scratch cannot
 * grow, by looking at every one: the same answer, slower). */
static void find_things(near_things *t, const steer_world *w, const looker *l,
                        steer_geom_hits *hits)
{
	size_t nsegs;
	const steer_segment *segs = steer_geom_segments(w, &nsegs);
	t->count = 0;
	double reach = l->body + fmin(l->far, l->tau * (l->max_speed + w->circle_speed_max));
	/* things_offer keeps the nearest by a total order: the hits' order is no matter. */
	if (steer_geom_query_near(w, l->p, reach, hits) == STEER_OK) {
		for (size_t k = 0; k < hits->nnear; k++)
			offer_circle(t, l, hits->near[k].index, hits->near[k].edge,
			             hits->near[k].speed);
		for (size_t k = 0; k < hits->nsegments; k++)
			offer_segment(t, w, l, segs, hits->segments[k]);
		return;
	}
	for (size_t k = 0; k < w->obs_count; k++) {
		const steer_obstacle *o = &w->obs[k];
		offer_circle(t, l, (uint32_t)k,
		             v2_len(steer_world_delta(w, l->p, v2(o->x, o->y))) - o->r,
		             v2_len(v2(o->vx, o->vy)));
	}
	for (size_t k = 0; k < nsegs; k++)
		offer_segment(t, w, l, segs, k);
}

/* The obstacles' and walls' lines: still circles and segments as hard lines
 * (nearest first, skipping those behind lines already made), moving circles as soft
 * lines after them, in full. */
static void obstacle_lines(lines *ls, const steer_world *w, size_t i, const steer_agent *a,
                           steer_geom_hits *hits)
{
	const steer_params *prm = a->prm;
	looker l = {pos_of(&w->v, i), prm->radius + prm->avoid_buffer, prm->avoid_obstacle_horizon,
	            prm->avoid_distance, prm->max_speed};
	near_things t;
	find_things(&t, w, &l, hits);
	size_t nsegs;
	const steer_segment *segs = steer_geom_segments(w, &nsegs);
	steer_vec2 back = v2_scale(a->h, -1.0);
	for (int k = 0; k < t.count; k++) { /* the still ones: hard */
		steer_vec2 ea, eb;
		double r = l.body;
		if (t.at[k].segment) {
			steer_geom_seg_rel(w, &segs[t.at[k].index], l.p, &ea, &eb);
		} else {
			const steer_obstacle *o = &w->obs[t.at[k].index];
			if (o->vx != 0.0 || o->vy != 0.0)
				continue;
			ea = eb = steer_world_delta(w, l.p, v2(o->x, o->y));
			r += o->r;
		}
		if (!steer_orca_covered(ls->at, ls->count, ea, eb, r, l.tau))
			steer_orca_segment(ea, eb, r, l.tau, a->v, back, &ls->at[ls->count++]);
	}
	ls->hard = ls->count;
	double dt = steer_world_dt(w);
	for (int k = 0; k < t.count; k++) { /* the moving ones: soft */
		if (t.at[k].segment)
			continue;
		const steer_obstacle *o = &w->obs[t.at[k].index];
		if (o->vx == 0.0 && o->vy == 0.0)
			continue;
		steer_vec2 d = steer_world_delta(w, l.p, v2(o->x, o->y));
		ls->at[ls->count++] = steer_orca_body(d, v2_sub(a->v, v2(o->vx, o->vy)),
		                                      o->r + l.body, l.tau, dt, 1.0, a->v, back);
	}
}

double steer_avoid_reach(const steer_world *w, const steer_params *prm, double speed_max)
{
	if (prm->avoid_neighbours == 0)
		return 0.0;
	return prm->avoid_horizon * (prm->max_speed + speed_max) + prm->radius + w->radius_max;
}

/* An empty set for a vehicle with these parameters to fill, with no bound yet;
 * false when it has nothing to search for. */
static bool near_start(near_set *s, const steer_world *w, const steer_params *prm)
{
	s->count = 0;
	s->cap = (int)prm->avoid_neighbours;
	s->worst2 = INFINITY;
	if (s->cap == 0 || w->avoid_grid.count == 0)
		return false;
	double reach = steer_avoid_reach(w, prm, w->speed_max);
	assert(w->reach_limit == 0.0 || reach <= w->reach_limit);
	s->reach2 = reach * reach;
	return true;
}

size_t steer_avoid_nearest(const steer_world *w, size_t i, uint32_t *ids)
{
	near_set s;
	if (!near_start(&s, w, steer_palette_get(&w->params, w->v.param_set[i])))
		return 0;
	find_near(&s, w, i);
	for (int k = 0; k < s.count; k++)
		ids[k] = s.at[k].id;
	return (size_t)s.count;
}

/* Slot i's nearest as the tick takes them: from its kept bound and list, which
 * it updates; false when it has nothing to search for. */
static bool near_search(near_set *s, const steer_world *w, size_t i, const steer_params *prm)
{
	if (!near_start(s, w, prm))
		return false;
	steer_avoid_kept *kept = w->avoid_kept_ready ? &w->avoid_kept[i] : NULL;
	if (kept && w->avoid_kept_valid && kept->base_cap == (uint32_t)s->cap &&
	    kept->base < INFINITY) {
		/* A hair over the bound: its sums rounded, it may fall short by an ulp. */
		double b = (kept->base + w->avoid_moved_max) * (1.0 + 1e-9);
		s->worst2 = b * b;
	}
	find_near_kept(s, w, i, kept);
	if (kept && s->count == s->cap) {
		kept->worst = sqrt(s->at[s->cap - 1].d2);
		kept->cap = (uint32_t)s->cap;
	}
	return true;
}

size_t steer_avoid_nearest_kept(steer_world *w, size_t i, uint32_t *ids)
{
	near_set s;
	if (!near_search(&s, w, i, steer_palette_get(&w->params, w->v.param_set[i])))
		return 0;
	for (int k = 0; k < s.count; k++)
		ids[k] = s.at[k].id;
	return (size_t)s.count;
}

/* The nearest vehicles' lines: half the avoidance against those that avoid too,
 * all of it against those that do not. */
static void vehicle_lines(lines *ls, const steer_world *w, size_t i, const steer_agent *a)
{
	const steer_vehicles *v = &w->v;
	const steer_params *prm = a->prm;
	near_set s;
	if (!near_search(&s, w, i, prm))
		return;
	steer_orca_bodies b;
	b.tau = prm->avoid_horizon;
	b.dt = steer_world_dt(w);
	b.v = a->v;
	/* Two on one point part along the heading's perpendicular, opposite ways. */
	steer_vec2 away = v2_perp(a->h);
	for (int k = 0; k < s.count; k++) {
		size_t j = s.at[k].slot;
		const steer_params *pj = steer_palette_get(&w->params, v->param_set[j]);
		steer_vec2 rel_v = v2_sub(a->v, vel_of(v, j));
		b.px[k] = s.at[k].d.x;
		b.py[k] = s.at[k].d.y;
		b.vx[k] = rel_v.x;
		b.vy[k] = rel_v.y;
		b.r[k] = prm->radius + pj->radius;
		b.share[k] = (v->behaviors[j] & STEER_AVOID) ? 0.5 : 1.0;
		b.ax[k] = v->id[i] > v->id[j] ? -away.x : away.x;
		b.ay[k] = v->id[i] > v->id[j] ? -away.y : away.y;
	}
	size_t n = (size_t)s.count, done = 0;
	if (n > 0) {
		/* Whole lane groups: copies of the first. */
		for (size_t k = n; k % STEER_ORCA_BODIES_LANES; k++) {
			b.px[k] = b.px[0];
			b.py[k] = b.py[0];
			b.vx[k] = b.vx[0];
			b.vy[k] = b.vy[0];
			b.r[k] = b.r[0];
			b.share[k] = b.share[0];
			b.ax[k] = b.ax[0];
			b.ay[k] = b.ay[0];
		}
		done = w->kernel->orca_bodies(&b, n, &ls->at[ls->count]);
	}
	for (size_t k = done; k < n; k++)
		ls->at[ls->count + k] =
		    steer_orca_body(v2(b.px[k], b.py[k]), v2(b.vx[k], b.vy[k]), b.r[k], b.tau, b.dt,
		                    b.share[k], b.v, v2(b.ax[k], b.ay[k]));
	ls->count += n;
}

steer_vec2 steer_avoid_force(const steer_world *w, size_t i, const steer_agent *a, steer_vec2 force,
                             steer_geom_hits *hits)
{
	const steer_params *prm = a->prm;
	double dt = steer_world_dt(w);
	lines ls;
	ls.count = ls.hard = 0;
	obstacle_lines(&ls, w, i, a, hits);
	vehicle_lines(&ls, w, i, a);
	steer_vec2 pref = v2_add(a->v, v2_scale(force, dt / prm->mass));
	if (steer_orca_permits(ls.at, ls.count, pref))
		return force;
	/* cos and sin of -KEEP_SIDE, written out: the same bits whatever the libm. */
	const double c = 0.9987502603949663, s = -0.04997916927067833;
	pref = v2(pref.x * c - pref.y * s, pref.x * s + pref.y * c);
	double slow = STUCK_SPEED * prm->max_speed;
	bool stuck = v2_len2(a->v) < slow * slow;
	double turn =
	    STEER_TAU *
	    (stuck ? steer_hash_unit(w->cfg.seed ^ 0x57c4, w->v.id[i], w->tick / STUCK_HOLD)
	           : steer_hash_unit(w->cfg.seed ^ 0x0a11d, w->v.id[i], w->tick));
	double wobble = (stuck ? STUCK_WOBBLE : WOBBLE) * v2_len(pref);
	pref = v2_add(pref, v2_scale(v2(cos(turn), sin(turn)), wobble));
	steer_vec2 vel = steer_orca_solve(ls.at, ls.count, ls.hard, prm->max_speed, pref);
	return v2_truncate(v2_scale(v2_sub(vel, a->v), prm->mass / dt), prm->max_force);
}
