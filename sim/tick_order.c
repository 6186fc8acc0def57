#include "world_internal.h"

#include <assert.h>

#include "pool.h"
#include "reserve.h"

/* The cell sort split into parts of about equal members: each part sorts whole
 * cells and counts its own moves. */
typedef struct sort_job {
	steer_world *w;
	int parts;
	size_t moved[STEER_POOL_MAX_THREADS];
} sort_job;

static void sort_part(void *arg, int part)
{
	sort_job *j = arg;
	const steer_grid *g = &j->w->grid;
	j->moved[part] =
	    steer_grid_sort_by_id(&j->w->grid, j->w->v.id, steer_grid_part_cell(g, part, j->parts),
	                          steer_grid_part_cell(g, part + 1, j->parts));
}

/* Within each cell, members in id order: then the order neighbours are summed in,
 * and so every bit of the result, depends on where vehicles are and who they are,
 * not on the history of spawns and removals that shaped the arrays. Returns how
 * many places members moved, the sort's cost: the parts' counts summed, the same
 * for any split, as every cell is sorted whole by one part. */
static size_t sort_cells_by_id(steer_world *w)
{
	sort_job j;
	j.w = w;
	j.parts = steer_world_parts(w, w->grid.count);
	steer_pool_run(w->pool, sort_part, &j, j.parts);
	size_t moved = 0;
	for (int k = 0; k < j.parts; k++)
		moved += j.moved[k];
	return moved;
}

/* One array of a re-sort, gathered through a spare (an array whose contents are
 * dead): to[k] = from[src[k]] for the part's slots k; the first also renumbers the
 * part's share of the id map's table. */
typedef struct gather_job {
	steer_world *w;
	int parts;
	const uint32_t *src, *dest;
	size_t n;
	const void *from;
	void *to;
	bool wide; /* doubles, else uint32 */
	bool renumber;
} gather_job;

static void gather_part(void *arg, int part)
{
	const gather_job *j = arg;
	size_t a = steer_part_from(j->n, part, j->parts);
	size_t b = steer_part_from(j->n, part + 1, j->parts);
	if (j->wide) {
		const double *from = j->from;
		double *to = j->to;
		for (size_t k = a; k < b; k++)
			to[k] = from[j->src[k]];
	} else {
		const uint32_t *from = j->from;
		uint32_t *to = j->to;
		for (size_t k = a; k < b; k++)
			to[k] = from[j->src[k]];
	}
	if (j->renumber) {
		steer_idmap *ids = &j->w->ids;
		steer_idmap_renumber(ids, j->dest, (uint32_t)j->n,
		                     steer_part_from(ids->cap, part, j->parts),
		                     steer_part_from(ids->cap, part + 1, j->parts));
	}
}

/* Gathers *arr into *spare, then the spare becomes the array and the old array the
 * spare: one streaming pass, no copy back. Both hold cap elements. The parts of one
 * array run together; the next array's spare is this one's old array, so arrays
 * go one after another. */
static void gather(gather_job *j, void **arr, void **spare, bool wide)
{
	j->from = *arr;
	j->to = *spare;
	j->wide = wide;
	steer_pool_run(j->w->pool, gather_part, j, j->parts);
	j->renumber = false;
	void *t = *spare;
	*spare = *arr;
	*arr = t;
}

/* The vehicles' extras moved into storage order, without holes, so that behaviours
 * reading them walk memory as they walk the vehicles. Only an optimisation: when the
 * new table cannot be had, the extras stay where they are. */
static void reorder_extras(steer_world *w)
{
	steer_vehicles *v = &w->v;
	size_t used = 0;
	for (size_t k = 0; k < v->count; k++)
		used += v->extra[k] != STEER_NO_EXTRA;
	if (used == 0)
		return;
	steer_extra *to = malloc(used * sizeof *to);
	if (!to)
		return;
	size_t m = 0;
	for (size_t k = 0; k < v->count; k++)
		if (v->extra[k] != STEER_NO_EXTRA) {
			to[m] = w->extras.slots[v->extra[k]]; /* the path's points move with it */
			v->extra[k] = (uint32_t)m++;
		}
	free(w->extras.slots);
	w->extras.slots = to;
	w->extras.count = w->extras.cap = m;
	w->extras.nfree = 0;
}

/* Re-sorts the arrays into the tick's order (src: new slot k takes old slot src[k]),
 * after which the order is the identity. A vehicle out of place shifts every slot
 * between its old and new place, so each array is gathered whole into a spare (and
 * swapped with it), and the id map is renumbered in one pass over its table rather
 * than one lookup per moved vehicle. The doubles' spares are the force arrays (the
 * step rewrites every force after this, so what they hold is dead); the 32-bit
 * arrays share spare32. */
static steer_status resort(steer_world *w, uint32_t *src)
{
	steer_vehicles *v = &w->v;
	size_t n = v->count;
	if (steer_reserve((void **)&w->perm, &w->perm_cap, n, sizeof *w->perm) != STEER_OK)
		return STEER_ERR_NOMEM;
	uint32_t *dest = w->perm;
	for (size_t k = 0; k < n; k++)
		dest[src[k]] = (uint32_t)k;
	gather_job j = {w, steer_world_parts(w, n), src, dest, n, NULL, NULL, true, true};
	double **f64[] = {&v->px, &v->py, &v->vx, &v->vy};
	for (size_t a = 0; a < sizeof f64 / sizeof *f64; a++)
		gather(&j, (void **)f64[a], (void **)&v->fx, true);
	gather(&j, (void **)&v->hx, (void **)&v->fy, true);
	gather(&j, (void **)&v->hy, (void **)&v->fy, true);
	uint32_t **u32[] = {&v->id, &v->behaviors, &v->group, &v->param_set, &v->extra};
	for (size_t a = 0; a < sizeof u32 / sizeof *u32; a++)
		gather(&j, (void **)u32[a], (void **)&w->spare32, false);
	for (size_t k = 0; k < n; k++)
		src[k] = (uint32_t)k;
	reorder_extras(w);
	return STEER_OK;
}

/* How far storage may drift from the tick's order: a re-sort once more than one
 * vehicle in RESORT_SHARE is stored more than RESORT_ROWS grid rows' worth of slots
 * from its place in the order. Within that the scans' reads stay among the rows
 * they are walking, which the cache holds; further out each is a miss. Also once
 * the sort within cells moved members RESORT_MOVES places each on average: in
 * coarse grids, whose rows hold most of the world, storage never drifts "far", but
 * a cell's members in storage order can be far from id order, and the insertion
 * sort's cost grows with the square of that every tick until a re-sort. */
#define RESORT_ROWS  2
#define RESORT_SHARE 16
#define RESORT_MOVES 4

/* How many of the order's slots [from, to) are stored more than reach slots from
 * their place, counted by parts. */
typedef struct far_job {
	const uint32_t *order;
	size_t n;
	uint32_t reach;
	int parts;
	size_t far[STEER_POOL_MAX_THREADS];
} far_job;

static void far_part(void *arg, int part)
{
	far_job *j = arg;
	size_t to = steer_part_from(j->n, part + 1, j->parts), far = 0;
	/* Slots fit 32 bits. One unsigned compare per slot: a distance d in
	 * [-reach, reach] maps to [0, 2 reach], any other wraps above it. */
	for (size_t k = steer_part_from(j->n, part, j->parts); k < to; k++)
		far += j->order[k] - (uint32_t)k + j->reach > 2 * j->reach;
	j->far[part] = far;
}

/* The tick's order: g's members (grid order), then, when g holds the flockers only,
 * every other vehicle in slot order. The scans walk neighbours through it, and the sums' order
 * follows it, so storage need not match it. A re-sort moves every array whole, a quarter of a big
 * world's tick, and is only worth its cost once the scans' reads scatter: on steer-bench's flock
 * most vehicles change cell every few ticks, but hardly any move more than a row in a hundred
 * ticks. */
static steer_status arrange(steer_world *w, steer_grid *g, size_t moved)
{
	steer_vehicles *v = &w->v;
	size_t n = v->count, nf = g->count;
	/* The grid reserved room for every vehicle. */
	uint32_t *order = g->items;
	size_t k = nf;
	/* Stops once every non-member is placed: at once when every vehicle is one. */
	for (size_t i = 0; i < n && k < n; i++)
		if (!(v->behaviors[i] & STEER_FLOCK))
			order[k++] = (uint32_t)i;
	far_job j = {.order = order,
	             .n = n,
	             .reach = RESORT_ROWS * (uint32_t)(nf / (size_t)g->ny + 1),
	             .parts = steer_world_parts(w, n)};
	steer_pool_run(w->pool, far_part, &j, j.parts);
	size_t far = 0;
	for (int p = 0; p < j.parts; p++)
		far += j.far[p];
	if (far * RESORT_SHARE > n || moved > RESORT_MOVES * n)
		return resort(w, order);
	return STEER_OK;
}

steer_status steer_world_order_by(steer_world *w, steer_grid *g)
{
	return g->count == w->v.count ? arrange(w, g, 0) : STEER_OK;
}

/* Indexes the flocking vehicles and sets the tick's order. */
steer_status steer_world_index_flock(steer_world *w)
{
	steer_vehicles *v = &w->v;
	steer_world_survey_flock(w);
	/* A region's halo is only as wide as the limit: no flocker may look further. */
	assert(w->reach_limit == 0.0 || w->flock_sight <= w->reach_limit);
	w->grid.count = 0;
	/* Flockers that see 0 still need the grid: boids on the same point see each
	 * other. */
	if (w->flock_sight < 0.0)
		return STEER_OK;
	w->grid.cap_members = w->global_on ? w->global.vehicles : 0;
	if (steer_grid_build(&w->grid, w->cfg.width, w->cfg.height, w->cfg.edges == STEER_EDGE_WRAP,
	                     w->flock_sight, v->count, v->px, v->py, v->behaviors,
	                     STEER_FLOCK) != STEER_OK)
		return STEER_ERR_NOMEM;
	size_t moved = sort_cells_by_id(w);
	return arrange(w, &w->grid, moved);
}
