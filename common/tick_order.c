#include "world_internal.h"

#include "pair.h"
#include "reserve.h"

/* Within each cell [from, to), members in id order. One insertion sort over the
 * cells' members that never moves a member past the start of its cell: members
 * come in storage order, the grid order of the last re-sort but for the vehicles
 * that have changed cell since, so most cells are in order already, and a pass over
 * the members costs less than a loop of a handful of steps per cell. */
static void *sort_cells(void *arg)
{
	range_job *j = arg;
	steer_grid *g = &j->w->grid;
	const uint32_t *id = j->w->v.id, *cell = g->cell;
	uint32_t *it = g->items;
	uint32_t a = g->start[j->from], end = g->start[j->to];
	if (a >= end)
		return NULL;
	/* The id and cell of the member before a: the last one's, or after an insertion
	 * the same as before, as the member moved up to a is the one that was before. */
	uint32_t prev_id = id[it[a]], prev_cell = cell[it[a]];
	for (a++; a < end; a++) {
		uint32_t x = it[a], x_id = id[x], x_cell = cell[x];
		/* One branch, not two: at a cell's start the id order is a coin toss the
		 * branch predictor would pay for. later: x's id is below its predecessor's. */
		uint64_t later = (uint64_t)((int64_t)x_id - (int64_t)prev_id) >> 63;
		if (!(later & (prev_cell == x_cell))) {
			prev_id = x_id;
			prev_cell = x_cell;
			continue;
		}
		uint32_t first = g->start[x_cell], b = a;
		while (b > first && id[it[b - 1]] > x_id) {
			it[b] = it[b - 1];
			b--;
		}
		it[b] = x;
		j->moved += a - b;
	}
	return NULL;
}

/* Within each cell, members in id order: then the order neighbours are summed in,
 * and so every bit of the result, depends on where vehicles are and who they are,
 * not on the history of spawns and removals that shaped the arrays. Returns how
 * many places members moved, the sort's cost. */
static size_t sort_cells_by_id(steer_world *w)
{
	const steer_grid *g = &w->grid;
	size_t cells = (size_t)g->nx * (size_t)g->ny;
	/* Split where half the members have gone by. */
	size_t lo = 0, hi = cells;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (g->start[mid] < g->count / 2)
			lo = mid + 1;
		else
			hi = mid;
	}
	return world_split_at(w, sort_cells, lo, cells, g->count >= PARALLEL_MIN_VEHICLES);
}

/* to[k] = (*arr)[src[k]] for every slot, then to becomes the array and the old
 * array the spare: one streaming pass, no copy back. Both hold cap elements. */
static void gather_f64(double **arr, double **spare, const uint32_t *src, size_t n)
{
	double *to = *spare;
	const double *from = *arr;
	for (size_t k = 0; k < n; k++)
		to[k] = from[src[k]];
	*spare = *arr;
	*arr = to;
}

static void gather_u32(uint32_t **arr, uint32_t **spare, const uint32_t *src, size_t n)
{
	uint32_t *to = *spare;
	const uint32_t *from = *arr;
	for (size_t k = 0; k < n; k++)
		to[k] = from[src[k]];
	*spare = *arr;
	*arr = to;
}

/* Part of a re-sort: gathering some arrays through spares of their type (arrays
 * whose contents are dead), and perhaps renumbering the id map. */
typedef struct gather_job {
	double **f64[4];
	int nf64;
	double **spare64;
	uint32_t **u32[5];
	int nu32;
	uint32_t **spare32;
	steer_idmap *ids; /* renumbered here when set */
	const uint32_t *src, *dest;
	size_t n;
} gather_job;

static void *run_gather(void *arg)
{
	gather_job *j = arg;
	if (j->ids)
		steer_idmap_renumber(j->ids, j->dest, (uint32_t)j->n);
	for (int a = 0; a < j->nf64; a++)
		gather_f64(j->f64[a], j->spare64, j->src, j->n);
	for (int a = 0; a < j->nu32; a++)
		gather_u32(j->u32[a], j->spare32, j->src, j->n);
	return NULL;
}

/* Re-sorts the arrays into the tick's order (src: new slot k takes old slot src[k]),
 * after which the order is the identity. A vehicle out of place shifts every slot
 * between its old and new place, so each array is gathered whole into a spare (and
 * swapped with it), and the id map is renumbered in one pass over its table rather
 * than one lookup per moved vehicle. The doubles' spares are
 * the force arrays (the step rewrites every force after this, so what they hold is
 * dead); the 32-bit arrays share spare32. */
static int resort(steer_world *w, uint32_t *src)
{
	steer_vehicles *v = &w->v;
	size_t n = v->count;
	if (steer_reserve((void **)&w->perm, &w->perm_cap, n, sizeof *w->perm) != STEER_OK)
		return -1;
	uint32_t *dest = w->perm;
	for (size_t k = 0; k < n; k++)
		dest[src[k]] = (uint32_t)k;
	/* Two independent parts of the work, of about the same traffic; with two
	 * threads, one each. */
	gather_job jobs[2] = {
	    {{&v->px, &v->py, &v->vx, &v->vy}, 4, &v->fx, {NULL}, 0, NULL, NULL, src, dest, n},
	    {{&v->hx, &v->hy},
	     2,
	     &v->fy,
	     {&v->id, &v->behaviors, &v->group, &v->param_set, &v->extra},
	     5,
	     &w->spare32,
	     &w->ids,
	     src,
	     dest,
	     n},
	};
	if (!(w->threads >= 2 && n >= PARALLEL_MIN_VEHICLES &&
	      steer_run_pair(run_gather, &jobs[0], &jobs[1]))) {
		run_gather(&jobs[0]);
		run_gather(&jobs[1]);
	}
	for (size_t k = 0; k < n; k++)
		src[k] = (uint32_t)k;
	return 0;
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

/* The tick's order: the grid's members (grid order), then every other vehicle in
 * slot order. The scans walk neighbours through it, and the sums' order follows it,
 * so storage need not match it. A re-sort moves every array whole, a quarter of a
 * big world's tick, and is only worth its cost once the scans' reads scatter: on
 * steer-bench's flock most vehicles change cell every few ticks, but hardly any
 * move more than a row in a hundred ticks. */
static int arrange(steer_world *w, size_t moved)
{
	steer_vehicles *v = &w->v;
	steer_grid *g = &w->grid;
	size_t n = v->count, nf = g->count;
	/* The grid reserved room for every vehicle. */
	uint32_t *order = g->items;
	size_t k = nf;
	/* Stops once every non-flocker is placed: at once when every vehicle flocks. */
	for (size_t i = 0; i < n && k < n; i++)
		if (!(v->behaviors[i] & STEER_FLOCK))
			order[k++] = (uint32_t)i;
	/* Slots fit 32 bits. One unsigned compare per slot: a distance d in
	 * [-reach, reach] maps to [0, 2 reach], any other wraps above it. */
	uint32_t reach = RESORT_ROWS * (uint32_t)(nf / (size_t)g->ny + 1);
	size_t far = 0;
	for (k = 0; k < n; k++)
		far += order[k] - (uint32_t)k + reach > 2 * reach;
	if (far * RESORT_SHARE > n || moved > RESORT_MOVES * n)
		return resort(w, order);
	return 0;
}

/* Indexes the flocking vehicles and sets the tick's order. */
int world_index_flock(steer_world *w)
{
	steer_vehicles *v = &w->v;
	if (w->flock_stale) {
		world_survey_flock(w);
		w->flock_stale = false;
	}
	w->grid.count = 0;
	/* Flockers that see 0 still need the grid: boids on the same point see each
	 * other. */
	if (w->flock_sight < 0.0)
		return 0;
	if (steer_grid_build(&w->grid, w->cfg.width, w->cfg.height, w->cfg.edges == STEER_EDGE_WRAP,
	                     w->flock_sight, v->count, v->px, v->py, v->behaviors,
	                     STEER_FLOCK) != STEER_OK)
		return -1;
	size_t moved = sort_cells_by_id(w);
	return arrange(w, moved);
}
