/* The solid rule's contacts: which bodies overlap each other, a circle or a segment
 * (over the flock's grid or one of its own), the vehicles in them noted, and the
 * guard that keeps moves from crossing walls. Resolving them: bodies.c. */
#include "bodies.h"

#include <math.h>
#include <string.h>

#include "bodies_internal.h"
#include "motion.h"
#include "reserve.h"
#include "world_internal.h"

/* A vehicle's own search (among the vehicles after it in the search's order) stops
 * at this many contacts: equal discs can touch one at only 6 places without
 * overlapping each other, so only a pile packed past what fits reaches it. It bounds
 * the search, the contacts and so a pass at this many per vehicle. The first found
 * rather than the nearest: as fast to spread a pile, far cheaper to find
 * (docs/PERFORMANCE.md). */
#define CONTACTS_PER_VEHICLE 16
/* The flock's grid serves when the sum of its cells' squared counts, which the
 * scan's cost follows, stays within this many times the vehicles. */
#define CROWDING_LIMIT 8

void steer_bodies_init(steer_bodies *b)
{
	memset(b, 0, sizeof *b);
	steer_grid_init(&b->grid);
	steer_grid_init(&b->near_grid);
}

static void buf_free(steer_body_buf *f)
{
	free(f->at);
	f->at = NULL;
	f->count = f->cap = 0;
}

void steer_bodies_free(steer_bodies *b)
{
	steer_grid_free(&b->grid);
	steer_grid_free(&b->near_grid);
	free(b->near_buf);
	free(b->near_cells);
	for (int k = 0; k < STEER_POOL_MAX_THREADS; k++) {
		buf_free(&b->part[k]);
		free(b->fresh[k].at);
		free(b->fresh[k].tmp);
	}
	buf_free(&b->pairs);
	buf_free(&b->circles);
	buf_free(&b->segs);
	free(b->px0);
	free(b->py0);
	free(b->inv);
	free(b->ox);
	free(b->oy);
	free(b->ovx);
	free(b->ovy);
	free(b->tid);
	free(b->cspan);
	free(b->sent);
	free(b->row_at);
	free(b->lrow_at);
	free(b->island);
	free(b->lrow);
	free(b->local);
	free(b->lcspan);
	free(b->border);
	buf_free(&b->lpairs);
	buf_free(&b->lcircles);
	buf_free(&b->lsegs);
	free(b->owned);
	free(b->tslot);
	free(b->tx);
	free(b->ty);
	free(b->tr);
	free(b->tm);
	free(b->trx);
	free(b->try_);
	free(b->mark);
	free(b->mark_at);
	steer_body_islands *is = &b->islands;
	void *isl[] = {(void *)is->up, is->of,        is->circ_at, is->pair_at,  is->seg_at,
	               is->circles,    is->pairs,     is->segs,    is->open,     is->kept,
	               is->tally,      is->band_of,   is->banded,  is->band_ref, is->band_run,
	               is->band_key,   is->band_count};
	for (size_t k = 0; k < sizeof isl / sizeof *isl; k++)
		free(isl[k]);
	steer_bodies_init(b);
}

void steer_bodies_buf_push(steer_body_buf *f, uint32_t a, uint32_t b)
{
	if (f->count == f->cap &&
	    steer_reserve((void **)&f->at, &f->cap, f->count + 1, sizeof *f->at) != STEER_OK) {
		f->st = STEER_ERR_NOMEM;
		return;
	}
	f->at[f->count++] = (steer_body_pair){a, b};
}

static steer_status buf_append(steer_body_buf *to, const steer_body_buf *from)
{
	if (steer_reserve((void **)&to->at, &to->cap, to->count + from->count, sizeof *to->at) !=
	    STEER_OK)
		return STEER_ERR_NOMEM;
	if (from->count)
		memcpy(to->at + to->count, from->at, from->count * sizeof *from->at);
	to->count += from->count;
	return STEER_OK;
}

const steer_params *steer_bodies_params_of(const steer_world *w, size_t i)
{
	return steer_palette_get(&w->params, w->v.param_set[i]);
}

/* Over parts of one world, whether slot i holds a copy of another part's vehicle. */
bool steer_bodies_is_copy(const steer_world *w, size_t i)
{
	return w->bodies_shared && !(i < w->bodies.owned_count && w->bodies.owned[i]);
}

double steer_bodies_axis_delta(double d, double size, bool wrap)
{
	return wrap ? steer_wrap_axis(d, size) : d;
}

/* Vehicles a and b are a contact when their discs come within the margin. */
static inline void test_pair(const scan_job *j, uint32_t a, uint32_t b, steer_body_buf *out)
{
	const steer_vehicles *v = &j->w->v;
	double dx = steer_bodies_axis_delta(v->px[b] - v->px[a], j->w->cfg.width, j->wrap);
	double dy = steer_bodies_axis_delta(v->py[b] - v->py[a], j->w->cfg.height, j->wrap);
	double d2 = dx * dx + dy * dy;
	if (d2 >= j->near2)
		return;
	double reach = steer_bodies_params_of(j->w, a)->radius +
	               steer_bodies_params_of(j->w, b)->radius + j->margin;
	if (d2 < reach * reach)
		steer_bodies_buf_push(out, a, b);
}

/* Vehicle a against the members of the cell at global column x and row y, until
 * out holds stop contacts. */
static void test_cell(const scan_job *j, uint32_t a, int x, int y, size_t stop, steer_body_buf *out)
{
	const steer_grid *g = j->pg;
	steer_grid_run run = steer_grid_row_run(g, y, x, x);
	for (uint32_t m = run.from; m < run.to && out->count < stop; m++)
		test_pair(j, a, g->items[m], out);
}

/* The column or row k steps from k0 on an axis of n cells, or -1 beyond the grid.
 * The grid wraps round only along an axis of 3 cells or more: with fewer, every
 * two columns are neighbours already, and wrapping would meet a pair twice. */
static inline int step_axis(int k0, int step, int n, bool wrap)
{
	int k = k0 + step;
	if (k >= 0 && k < n)
		return k;
	if (!wrap || n < 3)
		return -1;
	return k < 0 ? k + n : k - n;
}

/* Each cell meets itself and the four neighbours after it (right, and the three
 * below), so every two neighbouring cells meet once; cells are at least the reach
 * across. A member meets a neighbour only when it comes within the reach of that
 * side of its cell (reach: the largest contact distance plus how far members may be
 * from where they were filed), which spares most of them. Local cell c is at global
 * column cx and row cy, and not empty. */
static inline void scan_cell(const scan_job *j, size_t c, int cx, int cy, double reach,
                             steer_body_buf *out)
{
	const steer_grid *g = j->pg;
	const steer_vehicles *v = &j->w->v;
	const uint32_t *it = g->items;
	double W = j->w->cfg.width, H = j->w->cfg.height;
	uint32_t s0 = g->start[c], s1 = g->start[c + 1];
	int left = step_axis(cx, -1, g->nx, g->wrap), right = step_axis(cx, 1, g->nx, g->wrap);
	int below = step_axis(cy, 1, g->ny, g->wrap);
	double x0 = cx * g->cw, y0 = cy * g->ch;
	for (uint32_t k = s0; k < s1; k++) {
		uint32_t a = it[k];
		size_t stop = out->count + CONTACTS_PER_VEHICLE;
		for (uint32_t m = k + 1; m < s1 && out->count < stop; m++)
			test_pair(j, a, it[m], out);
		/* Where a is in its cell, the short way round. */
		double ox = steer_bodies_axis_delta(v->px[a] - x0, W, j->wrap);
		double oy = steer_bodies_axis_delta(v->py[a] - y0, H, j->wrap);
		bool l = left >= 0 && ox - reach <= 0.0;
		bool r = right >= 0 && ox + reach >= g->cw;
		if (r)
			test_cell(j, a, right, cy, stop, out);
		if (below >= 0 && oy + reach >= g->ch) {
			if (l)
				test_cell(j, a, left, below, stop, out);
			test_cell(j, a, cx, below, stop, out);
			if (r)
				test_cell(j, a, right, below, stop, out);
		}
	}
}

/* The local cells [from, to) in order: every one, or those of the list j->cells. */
static void scan_cells(const scan_job *j, size_t from, size_t to, double reach, steer_body_buf *out)
{
	const steer_grid *g = j->pg;
	if (from >= to)
		return;
	if (j->cells) {
		size_t k = steer_first_at_least(j->cells, j->ncells, from);
		size_t end = steer_first_at_least(j->cells, j->ncells, to);
		for (; k < end; k++) {
			uint32_t c = j->cells[k];
			scan_cell(j, c, steer_grid_cell_x(g, c), steer_grid_cell_y(g, c), reach,
			          out);
		}
		return;
	}
	size_t lx = from % (size_t)g->wx, ly = from / (size_t)g->wx;
	for (size_t c = from; c < to; c++) {
		if (g->start[c] != g->start[c + 1])
			scan_cell(j, c, (int)g->col_x[lx], (int)g->row_y[ly], reach, out);
		if (++lx == (size_t)g->wx) {
			lx = 0;
			ly++;
		}
	}
}

static void scan_part(void *arg, int part)
{
	const scan_job *j = arg;
	/* The list's count is written at every contact: kept on this thread's stack
	 * while the part runs, as the parts' lists lie side by side and would share
	 * cache lines. */
	steer_body_buf out = j->b->part[part];
	out.count = 0;
	out.st = STEER_OK;
	/* A relative hair more, for the rounding of positions into cells. */
	double reach = (sqrt(j->near2) + j->extra) * REACH_SLACK;
	scan_cells(j, steer_grid_part_cell(j->pg, part, j->parts),
	           steer_grid_part_cell(j->pg, part + 1, j->parts), reach, &out);
	j->b->part[part] = out;
}

/* Within each of the part's cells of the pass's own grid, members in id order (the
 * flock's grid has them so already): then contacts come in an order set by
 * positions and ids alone. */
static void sort_part(void *arg, int part)
{
	const scan_job *j = arg;
	steer_grid *g = &j->b->grid;
	(void)steer_grid_sort_by_id(g, j->w->v.id, steer_grid_part_cell(g, part, j->parts),
	                            steer_grid_part_cell(g, part + 1, j->parts));
}

/* The pairs of vehicles in contact, in cell order, into b->pairs. */
static steer_status find_pairs(scan_job *j)
{
	steer_bodies *b = j->b;
	steer_pool_run(j->w->pool, scan_part, j, j->parts);
	b->pairs.count = 0;
	for (int k = 0; k < j->parts; k++)
		if (b->part[k].st != STEER_OK || buf_append(&b->pairs, &b->part[k]) != STEER_OK)
			return STEER_ERR_NOMEM;
	return STEER_OK;
}

/* The vehicles within reach of each circle, circle by circle, into b->circles as
 * (vehicle slot, obstacle index). */
static steer_status find_circles(const scan_job *j)
{
	const steer_world *w = j->w;
	const steer_grid *g = j->g;
	const steer_vehicles *v = &w->v;
	steer_body_buf *out = &j->b->circles;
	steer_bodies *b = j->b;
	out->count = 0;
	out->st = STEER_OK;
	for (size_t k = 0; k < w->obs_count; k++) {
		const steer_obstacle *o = &w->obs[k];
		double reach = o->r + sqrt(j->near2) + j->extra;
		steer_grid_span sx = steer_grid_span_x(g, o->x - reach, o->x + reach);
		steer_grid_span sy = steer_grid_span_y(g, o->y - reach, o->y + reach);
		for (int ky = sy.first; ky <= sy.last; ky++) {
			int cy = steer_grid_axis_cell(&sy, ky);
			for (int kx = sx.first; kx <= sx.last; kx++) {
				int cx = steer_grid_axis_cell(&sx, kx);
				steer_grid_run run = steer_grid_row_run(g, cy, cx, cx);
				for (uint32_t m = run.from; m < run.to; m++) {
					uint32_t i = g->items[m];
					double dx = steer_bodies_axis_delta(v->px[i] - o->x,
					                                    w->cfg.width, j->wrap);
					double dy = steer_bodies_axis_delta(v->py[i] - o->y,
					                                    w->cfg.height, j->wrap);
					double r =
					    o->r + steer_bodies_params_of(w, i)->radius + j->margin;
					if (!(dx * dx + dy * dy < r * r))
						continue;
					if (w->bodies_shared) {
						uint32_t span =
						    (uint32_t)((ky - sy.first) *
						                   (sx.last - sx.first + 1) +
						               (kx - sx.first));
						if (steer_reserve((void **)&b->cspan, &b->cspan_cap,
						                  out->count + 1,
						                  sizeof *b->cspan) != STEER_OK)
							return STEER_ERR_NOMEM;
						b->cspan[out->count] = span;
					}
					steer_bodies_buf_push(out, i, (uint32_t)k);
				}
			}
		}
	}
	return out->st;
}

/* The fastest vehicle's move this tick, an upper bound on how far any moved from the
 * position the flock's grid filed it under: from the velocities the moves left, as
 * they noted them when nothing has changed them since. */
static double largest_move(const steer_world *w)
{
	const steer_vehicles *v = &w->v;
	const steer_bodies *b = &w->bodies;
	double m = 0.0;
	if (b->speed2_tick == w->tick && b->speed2_parts > 0) {
		for (int k = 0; k < b->speed2_parts; k++)
			m = b->speed2[k] > m ? b->speed2[k] : m;
	} else {
		for (size_t i = 0; i < v->count; i++) {
			double s = v->vx[i] * v->vx[i] + v->vy[i] * v->vy[i];
			m = s > m ? s : m;
		}
	}
	return sqrt(m) * steer_world_dt(w);
}

/* near_members over parts: ranges of the flock grid's members, then of its cells. */
typedef struct near_job {
	steer_bodies *b;
	const steer_grid *fg;
	size_t n, cells;
	int parts;
	/* Per part: the flagged members of its range (then where they start in items)
	 * and the end of its last one (its range's start when none); the cells of its
	 * range with members (then where they start in the list) and the end of the
	 * last; the sum of its cells' squared counts. */
	uint32_t kept[STEER_POOL_MAX_THREADS], kept_end[STEER_POOL_MAX_THREADS];
	uint32_t listed[STEER_POOL_MAX_THREADS], listed_end[STEER_POOL_MAX_THREADS];
	uint64_t sum[STEER_POOL_MAX_THREADS];
	uint32_t placed; /* the flagged members in all, as the last part found */
	/* One part: the cells are listed as their starts are found, and the flags are
	 * not counted first (its places end where the grid's do). */
	bool alone;
} near_job;

static void count_flagged(void *arg, int part)
{
	near_job *j = arg;
	const uint32_t *near = j->b->near.at;
	size_t from = steer_part_from(j->n, part, j->parts),
	       to = steer_part_from(j->n, part + 1, j->parts);
	uint32_t kept = 0, end = (uint32_t)from;
	for (size_t m = from; m < to; m++) {
		kept += near[m];
		end = near[m] ? (uint32_t)m + 1 : end;
	}
	j->kept[part] = kept;
	j->kept_end[part] = end;
}

/* Without a branch per member, which would be as hard to predict as the flags: each
 * member is written where the next flagged one goes, and stays when it is flagged
 * itself (up to the part's last flagged one, so that nothing is written into the
 * next part's places). before[m]: the flagged members before position m. Eight flags
 * at a time: most are all clear. */
static void place_flagged(void *arg, int part)
{
	near_job *j = arg;
	const uint32_t *restrict near = j->b->near.at;
	const uint32_t *restrict from = j->fg->items;
	uint32_t *restrict before = j->b->near_grid.cell, *restrict items = j->b->near_grid.items;
	uint32_t k = j->kept[part];
	size_t m = steer_part_from(j->n, part, j->parts), end = j->kept_end[part];
	size_t to = steer_part_from(j->n, part + 1, j->parts);
	for (; m + 8 <= end; m += 8) {
		uint32_t word = 0;
		for (int i = 0; i < 8; i++)
			word |= near[m + (size_t)i];
		for (int i = 0; !word && i < 8; i++)
			before[m + (size_t)i] = k;
		for (int i = 0; word && i < 8; i++) {
			before[m + (size_t)i] = k;
			items[k] = from[m + (size_t)i];
			k += near[m + (size_t)i];
		}
	}
	for (; m < end; m++) {
		before[m] = k;
		items[k] = from[m];
		k += near[m];
	}
	for (; m < to; m++)
		before[m] = k;
	if (part == j->parts - 1)
		j->placed = k;
}

/* The cells' starts, how many of the part's cells have members, and crowding's sum
 * (see there) on the way. */
static void start_near_cells(void *arg, int part)
{
	near_job *j = arg;
	const steer_grid *fg = j->fg;
	const uint32_t *restrict before = j->b->near_grid.cell;
	uint32_t *restrict start = j->b->near_grid.start, *restrict list = j->b->near_cells;
	size_t from = steer_part_from(j->cells, part, j->parts);
	size_t to = steer_part_from(j->cells, part + 1, j->parts);
	uint32_t s0 = before[fg->start[from]], listed = 0, end = (uint32_t)from;
	uint64_t sum = 0;
	for (size_t c = from; c < to; c++) {
		uint32_t s1 = before[fg->start[c + 1]];
		uint64_t size = fg->start[c + 1] - fg->start[c];
		sum += size * size;
		start[c + 1] = s1;
		if (j->alone) /* never beyond the list: listed <= c */
			list[listed] = (uint32_t)c;
		listed += s1 != s0;
		end = s1 != s0 ? (uint32_t)c + 1 : end;
		s0 = s1;
	}
	j->listed[part] = listed;
	j->listed_end[part] = end;
	j->sum[part] = sum;
}

/* The cells with members listed as they go by (as place_flagged places members). */
static void list_near_cells(void *arg, int part)
{
	near_job *j = arg;
	const uint32_t *restrict start = j->b->near_grid.start;
	uint32_t *restrict list = j->b->near_cells, n = j->listed[part];
	size_t end = j->listed_end[part];
	for (size_t c = steer_part_from(j->cells, part, j->parts); c < end; c++) {
		list[n] = (uint32_t)c;
		n += start[c + 1] != start[c];
	}
}

/* Turns each part's count into where its share starts; returns the total. */
static uint32_t starts_of(uint32_t *count, int parts)
{
	uint32_t at = 0;
	for (int p = 0; p < parts; p++) {
		uint32_t n = count[p];
		count[p] = at;
		at += n;
	}
	return at;
}

/* The flagged members of the flock's grid (b->near), in its order, into
 * b->near_grid: the same cells, fewer members; over the world's threads, the same
 * grid for any split. */
static steer_status near_members(const steer_world *w, steer_bodies *b, const steer_grid *fg,
                                 double *crowd)
{
	steer_grid *g = &b->near_grid;
	size_t cells = fg->cells, n = fg->count;
	if (steer_grid_copy_cells(g, fg) != STEER_OK ||
	    steer_reserve((void **)&g->items, &g->items_cap, n + 1, sizeof *g->items) != STEER_OK ||
	    steer_reserve((void **)&g->cell, &g->cell_cap, n + 1, sizeof *g->cell) != STEER_OK ||
	    steer_reserve((void **)&b->near_cells, &b->near_cells_cap, cells,
	                  sizeof *b->near_cells) != STEER_OK)
		return STEER_ERR_NOMEM;
	near_job j = {.b = b, .fg = fg, .n = n, .cells = cells, .parts = steer_world_parts(w, n)};
	j.alone = j.parts == 1;
	if (j.alone) { /* items has room for the last member's write past the end */
		j.kept[0] = 0;
		j.kept_end[0] = (uint32_t)n;
	} else {
		steer_pool_run(w->pool, count_flagged, &j, j.parts);
		(void)starts_of(j.kept, j.parts);
	}
	steer_pool_run(w->pool, place_flagged, &j, j.parts);
	uint32_t k = j.placed;
	g->cell[n] = k; /* before[n] */
	g->start[0] = 0;
	steer_pool_run(w->pool, start_near_cells, &j, j.parts);
	uint32_t nlist = starts_of(j.listed, j.parts);
	if (!j.alone)
		steer_pool_run(w->pool, list_near_cells, &j, j.parts);
	uint64_t sum = 0;
	for (int p = 0; p < j.parts; p++)
		sum += j.sum[p];
	g->count = k;
	steer_grid_close(g);
	b->near_ncells = nlist;
	*crowd = (double)sum;
	return STEER_OK;
}

/* The grid the contacts are found over: the flock's, filed under the positions the
 * tick began with, when every vehicle is in it and its cells are wide enough for the
 * reach plus the moves and not too crowded; else one of all vehicles where they are
 * now. Sets j->g, j->pg and j->extra, how far vehicles may be from where it filed
 * them. Pairs are looked for among the flock's flagged members alone when its scan
 * noted them this tick for this reach and moves no longer than these. */
static steer_status contact_grid(steer_world *w, scan_job *j, bool flock_ok, const grid_facts *f)
{
	steer_bodies *b = j->b;
	const steer_grid *fg = &w->grid;
	double reach = sqrt(j->near2);
	bool all_in = f ? f->all_in : fg->count == w->v.count && fg->count > 0;
	if (flock_ok && all_in) {
		double moved = f ? f->moved : largest_move(w);
		double span = (reach + 2.0 * moved) * REACH_SLACK;
		double crowd = 0.0;
		bool near = b->near.at && b->near_tick == w->tick &&
		            j->near2 <= b->near_reach * b->near_reach &&
		            moved <= b->near_move * REACH_SLACK &&
		            near_members(w, b, fg, &crowd) == STEER_OK;
		if (!near)
			crowd = f ? 0.0 : steer_grid_crowding(fg);
		if (f)
			crowd = f->crowd;
		if (span <= fg->cw && span <= fg->ch &&
		    crowd <= CROWDING_LIMIT * (double)(f ? f->count : fg->count)) {
			j->g = j->pg = fg;
			j->cells = NULL;
			j->extra = moved;
			if (near) {
				j->pg = &b->near_grid;
				j->cells = b->near_cells;
				j->ncells = b->near_ncells;
			}
			return STEER_OK;
		}
	}
	j->extra = 0.0;
	steer_grid *g = &b->grid;
	g->pool = w->pool;
	g->kernel = w->kernel;
	/* Cells of about one vehicle each when the reach is shorter than that. */
	double area = w->cfg.width * w->cfg.height;
	size_t count = f ? f->count : w->v.count;
	double cell = fmax(reach * REACH_SLACK, sqrt(area / (double)(count + 1)));
	g->cap_members = f ? f->count : 0;
	if (steer_grid_build(g, w->cfg.width, w->cfg.height, j->wrap, cell, w->v.count, w->v.px,
	                     w->v.py, NULL, 0) != STEER_OK)
		return STEER_ERR_NOMEM;
	j->g = j->pg = g;
	j->cells = NULL;
	steer_pool_run(w->pool, sort_part, j, j->parts);
	return STEER_OK;
}

/* Where every vehicle starts, copied by ranges. */
typedef struct starts_job {
	steer_world *w;
	int parts;
} starts_job;

static void starts_part(void *arg, int part)
{
	starts_job *j = arg;
	steer_bodies *b = &j->w->bodies;
	size_t from = steer_part_from(j->w->v.count, part, j->parts);
	size_t n = steer_part_from(j->w->v.count, part + 1, j->parts) - from;
	memcpy(b->px0 + from, j->w->v.px + from, n * sizeof(double));
	memcpy(b->py0 + from, j->w->v.py + from, n * sizeof(double));
}

steer_status steer_bodies_note_starts(steer_world *w)
{
	steer_bodies *b = &w->bodies;
	size_t nsegs = 0, n = w->v.count;
	(void)steer_geom_segments(w, &nsegs);
	b->starts_noted = false;
	/* Over parts, the starts also tell how far the vehicles have gone since. */
	if (!w->cfg.solid || (nsegs == 0 && !w->bodies_shared) || n == 0)
		return STEER_OK;
	if (n > b->starts_cap) {
		size_t cap;
		if (steer_grow_cap(b->starts_cap, n, sizeof(double), &cap) != STEER_OK ||
		    steer_resize((void **)&b->px0, cap, sizeof(double)) != STEER_OK ||
		    steer_resize((void **)&b->py0, cap, sizeof(double)) != STEER_OK)
			return STEER_ERR_NOMEM;
		b->starts_cap = cap;
	}
	starts_job j = {w, steer_world_parts(w, n)};
	steer_pool_run(w->pool, starts_part, &j, j.parts);
	b->starts_noted = true;
	return STEER_OK;
}

/* The unit normal of a segment toward the side where q (relative to the segment's
 * ends a) lies; the free side for a one-sided segment. */
static steer_vec2 side_normal(const steer_segment *s, steer_vec2 a)
{
	if (!(s->flags & STEER_SEG_TWO_SIDED) || v2_dot(v2_scale(a, -1.0), s->n) >= 0.0)
		return s->n;
	return v2_scale(s->n, -1.0);
}

/* The tunnelling guard for vehicle i: when its centre's path from before the move
 * crosses a segment (a one-sided one from its free side), it stops where its disc
 * first touches the nearest such segment and loses the part of its velocity across
 * it; the part along it stays. */
static steer_status guard_one(steer_world *w, size_t i, steer_geom_hits *hits)
{
	steer_vehicles *v = &w->v;
	const steer_bodies *b = &w->bodies;
	steer_vec2 p0 = v2(b->px0[i], b->py0[i]);
	steer_vec2 d = steer_world_delta(w, p0, pos_of(v, i));
	if (d.x == 0.0 && d.y == 0.0)
		return STEER_OK;
	double r = steer_bodies_params_of(w, i)->radius;
	steer_vec2 lo = v2_add(p0, v2(fmin(d.x, 0.0), fmin(d.y, 0.0)));
	steer_vec2 hi = v2_add(p0, v2(fmax(d.x, 0.0), fmax(d.y, 0.0)));
	if (steer_geom_query_box_segments(w, lo, hi, r, hits) != STEER_OK)
		return STEER_ERR_NOMEM;
	size_t nsegs = 0;
	const steer_segment *segs = steer_geom_segments(w, &nsegs);
	double first = 2.0;
	steer_vec2 fa = v2(0, 0), fb = v2(0, 0);
	const steer_segment *hit = NULL;
	for (size_t k = 0; k < hits->nsegments; k++) {
		const steer_segment *s = &segs[hits->segments[k]];
		steer_vec2 a, e;
		steer_geom_seg_rel(w, s, p0, &a, &e);
		if (!(s->flags & STEER_SEG_TWO_SIDED) && v2_dot(a, s->n) > 0.0)
			continue; /* leaving the blocked side is allowed */
		double tc, t;
		if (!steer_seg_cross(v2(0, 0), d, a, e, &tc))
			continue;
		/* The centre crosses, so the disc touched it first; a sweep that finds no
		 * touch started touching, at the threshold's rounding (a vehicle the
		 * passes left at exactly its radius from the segment): it stops there. */
		if (!steer_swept_disc_segment(v2(0, 0), d, r, a, e, &t))
			t = 0.0;
		if (t < first) {
			first = t;
			fa = a;
			fb = e;
			hit = s;
		}
	}
	if (!hit)
		return STEER_OK;
	steer_vec2 c = v2_scale(d, first); /* the centre at first touch, from p0 */
	steer_vec2 q = v2_sub(c, steer_seg_closest(fa, fb, c));
	double ql = sqrt(v2_len2(q));
	steer_vec2 n = ql > 0.0 ? v2_scale(q, 1.0 / ql) : side_normal(hit, fa);
	/* All of it, whichever way it points: the move went into the segment, even when
	 * the velocity no longer says so (a wrap world's short way round from a move
	 * longer than the world, or a bounce off an edge beyond the segment), and the
	 * vehicle stands where it was stopped. */
	double vn = v->vx[i] * n.x + v->vy[i] * n.y;
	v->vx[i] -= vn * n.x;
	v->vy[i] -= vn * n.y;
	v->px[i] = p0.x + c.x;
	v->py[i] = p0.y + c.y;
	steer_apply_edges(&w->cfg, &v->px[i], &v->py[i], &v->vx[i], &v->vy[i]);
	return STEER_OK;
}

/* A vehicle whose centre is inside a region (a solid polygon, outside a containing
 * one or the contained bounds) goes to the nearest point where its disc is free. */
steer_status steer_bodies_free_one(steer_world *w, size_t i, bool *moved)
{
	steer_vehicles *v = &w->v;
	steer_vec2 p = pos_of(v, i), out;
	if (!steer_geom_in_region(w, p))
		return STEER_OK;
	steer_status st = steer_geom_free_point(w, p, steer_bodies_params_of(w, i)->radius, &out);
	if (st == STEER_ERR_NOENT)
		return STEER_OK; /* no room anywhere: nowhere better to go */
	if (st != STEER_OK)
		return st;
	v->px[i] = out.x;
	v->py[i] = out.y;
	*moved = true;
	return STEER_OK;
}

typedef struct guard_job {
	steer_world *w;
	bool starts, regions;
	int parts;
	steer_status st[STEER_POOL_MAX_THREADS];
	bool freed[STEER_POOL_MAX_THREADS]; /* some vehicle of the part left a region */
} guard_job;

/* Each vehicle reads the static segments and writes only its own slot. */
static void guard_part(void *arg, int part)
{
	guard_job *j = arg;
	steer_world *w = j->w;
	steer_status st = STEER_OK;
	bool freed = false;
	steer_geom_hits hits = w->avoid_hits[part]; /* on this thread's stack (see scan_part) */
	size_t to = steer_part_from(w->v.count, part + 1, j->parts);
	for (size_t i = steer_part_from(w->v.count, part, j->parts); i < to && st == STEER_OK;
	     i++) {
		if (steer_bodies_is_copy(w, i))
			continue; /* its owner moves it */
		if (j->starts)
			st = guard_one(w, i, &hits);
		if (st == STEER_OK && j->regions)
			st = steer_bodies_free_one(w, i, &freed);
	}
	w->avoid_hits[part] = hits;
	j->freed[part] = freed;
	j->st[part] = st;
}

/* The guard and the way out of regions, before any contact is looked for. *freed:
 * some vehicle jumped out of a region, maybe far from where the flock's grid filed it. */
steer_status steer_bodies_guard_moves(steer_world *w, int parts, bool *freed)
{
	*freed = false;
	size_t nregions = 0;
	(void)steer_geom_regions(w, &nregions);
	size_t nsegs = 0;
	(void)steer_geom_segments(w, &nsegs);
	guard_job j = {.w = w,
	               .starts = w->bodies.starts_noted && nsegs > 0,
	               .regions = nregions > 0,
	               .parts = parts};
	w->bodies.starts_noted = false;
	if (!j.starts && !j.regions)
		return STEER_OK;
	if (j.starts) /* the guard may change velocities the moves noted */
		w->bodies.speed2_parts = 0;
	steer_pool_run(w->pool, guard_part, &j, parts);
	for (int k = 0; k < parts; k++) {
		if (j.st[k] != STEER_OK)
			return j.st[k];
		*freed |= j.freed[k];
	}
	return STEER_OK;
}

/* Vehicle i's segment contacts: those within the margin of its disc. One-sided
 * segments count only seen from their free side (the back of a polygon's far edge
 * is not a contact); walls note the side the vehicle is on, which it is kept to. */
static void segs_of_vehicle(const scan_job *j, uint32_t i, steer_geom_hits *hits,
                            steer_body_buf *out)
{
	steer_world *w = j->w;
	double r = steer_bodies_params_of(w, i)->radius;
	steer_vec2 p = pos_of(&w->v, i);
	if (steer_geom_query_segments(w, p, r + j->margin, hits) != STEER_OK) {
		out->st = STEER_ERR_NOMEM;
		return;
	}
	size_t nsegs = 0;
	const steer_segment *segs = steer_geom_segments(w, &nsegs);
	for (size_t k = 0; k < hits->nsegments; k++) {
		uint32_t s = hits->segments[k];
		steer_vec2 a, e;
		steer_geom_seg_rel(w, &segs[s], p, &a, &e);
		bool left = v2_dot(a, segs[s].n) > 0.0;
		if (left && !(segs[s].flags & STEER_SEG_TWO_SIDED))
			continue;
		steer_bodies_buf_push(out, i, s | (left ? SIDE_BIT : 0u));
	}
}

static void segs_part(void *arg, int part)
{
	const scan_job *j = arg;
	const steer_grid *g = j->g;
	/* On this thread's stack while the part runs (see scan_part). */
	steer_body_buf out = j->b->part[part];
	steer_geom_hits hits = j->w->avoid_hits[part];
	out.count = 0;
	out.st = STEER_OK;
	size_t to = steer_part_from(g->count, part + 1, j->parts);
	for (size_t k = steer_part_from(g->count, part, j->parts); k < to && out.st == STEER_OK;
	     k++)
		segs_of_vehicle(j, g->items[k], &hits, &out);
	j->b->part[part] = out;
	j->w->avoid_hits[part] = hits;
}

/* The segment contacts in the grid's order (cells, ids within them), into b->segs. */
static steer_status find_segs(scan_job *j)
{
	steer_bodies *b = j->b;
	b->segs.count = 0;
	size_t nsegs = 0;
	(void)steer_geom_segments(j->w, &nsegs);
	if (nsegs == 0)
		return STEER_OK;
	steer_pool_run(j->w->pool, segs_part, j, j->parts);
	for (int k = 0; k < j->parts; k++)
		if (b->part[k].st != STEER_OK || buf_append(&b->segs, &b->part[k]) != STEER_OK)
			return STEER_ERR_NOMEM;
	return STEER_OK;
}

/* The largest radius of any vehicle. */
double steer_bodies_largest_radius(const steer_world *w)
{
	const steer_palette *p = &w->params;
	double m = 0.0;
	for (size_t s = 0; s < p->count; s++)
		if (p->refs[s] && p->sets[s].radius > m)
			m = p->sets[s].radius;
	return m;
}

/* The largest max_speed of any vehicle. */
static double largest_speed(const steer_world *w)
{
	const steer_palette *p = &w->params;
	double m = 0.0;
	for (size_t s = 0; s < p->count; s++)
		if (p->refs[s] && p->sets[s].max_speed > m)
			m = p->sets[s].max_speed;
	return m;
}

void steer_bodies_plan_near(steer_world *w)
{
	steer_bodies *b = &w->bodies;
	const steer_grid *g = &w->grid;
	size_t n = g->count;
	b->near.at = NULL;
	if (!w->cfg.solid || n == 0 || n != w->v.count)
		return;
	double maxr = steer_bodies_largest_radius(w);
	double reach = 2.0 * maxr + MARGIN_SHARE * maxr; /* as steer_bodies_resolve's */
	/* Motion truncates every velocity to its max_speed (the guard and the edges only
	 * shorten a move); the bodies pass checks the moves it sees against this. */
	double move = largest_speed(w) * steer_world_dt(w);
	/* Positions round to a few units in the last place of the largest coordinate. */
	double extent =
	    w->cfg.edges == STEER_EDGE_NONE ? STEER_MAX_COORD : fmax(w->cfg.width, w->cfg.height);
	double touch = (reach + 2.0 * move * REACH_SLACK) * REACH_SLACK + extent * 1e-12;
	/* A lane's runs hold every vehicle within a cell's height and reach_x columns of
	 * it, by more than rounding. */
	if (!(touch * REACH_SLACK <= fmin(g->ch, g->reach_x * g->cw)))
		return;
	if (steer_reserve((void **)&b->near_buf, &b->near_cap, n, sizeof *b->near_buf) != STEER_OK)
		return; /* then every vehicle is looked at */
	b->near = (steer_flock_near){touch * touch, b->near_buf};
	b->near_tick = w->tick;
	b->near_reach = reach;
	b->near_move = move;
}

/* A new tick's marks: none equal to the new generation. */
steer_status steer_bodies_new_marks(steer_world *w, steer_bodies *b)
{
	size_t n = w->v.count;
	if (n > b->mark_cap) {
		size_t cap;
		if (steer_grow_cap(b->mark_cap, n, sizeof *b->mark, &cap) != STEER_OK ||
		    steer_resize((void **)&b->mark, cap, sizeof *b->mark) != STEER_OK ||
		    steer_resize((void **)&b->mark_at, cap, sizeof *b->mark_at) != STEER_OK)
			return STEER_ERR_NOMEM;
		b->mark_cap = cap;
		memset(b->mark, 0, cap * sizeof *b->mark);
		b->gen = 0;
	}
	if (++b->gen == 0) {
		memset(b->mark, 0, b->mark_cap * sizeof *b->mark);
		b->gen = 1;
	}
	b->inv_count = 0;
	return STEER_OK;
}

/* A round's contacts, over the grid contact_grid picks (f: the whole world's
 * answers, over parts), in its order, and the vehicles in them noted. */
steer_status steer_bodies_find_contacts(steer_world *w, scan_job *j, bool first,
                                        const grid_facts *f)
{
	steer_bodies *b = j->b;
	steer_status st = contact_grid(w, j, first, f);
	if (st == STEER_OK && j->near2 > 0.0)
		st = find_pairs(j);
	else
		b->pairs.count = 0;
	if (st == STEER_OK)
		st = find_circles(j);
	if (st == STEER_OK)
		st = find_segs(j);
	return st == STEER_OK ? steer_bodies_involve(w, b) : st;
}

double steer_bodies_halo_reach(const steer_world *w)
{
	double maxr = steer_bodies_largest_radius(w);
	double move = largest_speed(w) * steer_world_dt(w);
	double extent =
	    w->cfg.edges == STEER_EDGE_NONE ? STEER_MAX_COORD : fmax(w->cfg.width, w->cfg.height);
	return ((2.0 + MARGIN_SHARE) * maxr + 2.0 * move) * REACH_SLACK * REACH_SLACK +
	       extent * 1e-12;
}
