#include "flock.h"
#include "kernel.h"

#include <math.h>
#include <string.h>

steer_flock_query steer_flock_query_at(const steer_vehicles *v, size_t i, const steer_agent *a)
{
	const steer_params *p = a->prm;
	steer_flock_query q = {a,
	                       v->px[i],
	                       v->py[i],
	                       i,
	                       v->group[i],
	                       v->id[i],
	                       p->max_neighbours,
	                       p->sight_distance * p->sight_distance,
	                       p->too_close_distance * p->too_close_distance,
	                       p->field_of_view};
	return q;
}

/* --- one vehicle ------------------------------------------------------------------ */

/* One neighbour, known to be within sight. */
static void take(const steer_vehicles *v, const steer_flock_query *q, uint32_t k, double dx,
                 double dy, double d2, steer_flock_sums *f)
{
	f->n++;
	f->d.x += dx;
	f->d.y += dy;
	f->v.x += v->vx[k];
	f->v.y += v->vy[k];
	if (d2 < q->close2)
		f->sep = v2_add(f->sep, steer_separate_one(q->a, v2(dx, dy), q->self_id, v->id[k]));
}

/* The sums of one vehicle's scan, and the candidates within sight it has seen, ahead
 * of it or not. */
typedef struct scan_sums {
	steer_flock_sums *f;
	uint64_t seen;
} scan_sums;

/* Whether the vehicle takes no more: max_neighbours taken, or as many seen as it looks
 * at (steer_flock_look_cap). */
static bool capped(const steer_flock_query *q, const scan_sums *s)
{
	uint64_t look = steer_flock_look_cap(q->cap, q->fov);
	return q->cap && (s->f->n >= q->cap || (look && s->seen >= look));
}

/* Neighbours among the grid positions [from, to) (vehicles in slots slot[from ..
 * to - 1]), all shifted by one seam shift. */
static void scan_run(const steer_vehicles *v, const steer_flock_query *q, const uint32_t *slot,
                     uint32_t from, uint32_t to, double shift_x, double shift_y, scan_sums *s)
{
	const double x = q->x - shift_x, y = q->y - shift_y;
	const double hx = q->a->h.x, hy = q->a->h.y;
	for (uint32_t k = from; k < to && !capped(q, s); k++) {
		uint32_t c = slot[k];
		double dx = v->px[c] - x, dy = v->py[c] - y;
		double d2 = dx * dx + dy * dy;
		if (d2 <= q->sight2 && v->group[c] == q->group && c != q->self) {
			s->seen++;
			if (!q->fov || dx * hx + dy * hy >= 0.0)
				take(v, q, c, dx, dy, d2, s->f);
		}
	}
}

/* The slow path for grids so coarse that a span covers a whole wrapping axis: every
 * neighbour is wrapped on its own. */
static void scan_run_wrapped(const steer_vehicles *v, const steer_flock_query *q,
                             const uint32_t *slot, uint32_t from, uint32_t to, double width,
                             double height, scan_sums *s)
{
	for (uint32_t k = from; k < to && !capped(q, s); k++) {
		uint32_t c = slot[k];
		double dx = steer_wrap_axis(v->px[c] - q->x, width);
		double dy = steer_wrap_axis(v->py[c] - q->y, height);
		double d2 = dx * dx + dy * dy;
		if (d2 <= q->sight2 && v->group[c] == q->group && c != q->self) {
			s->seen++;
			if (!q->fov || dx * q->a->h.x + dy * q->a->h.y >= 0.0)
				take(v, q, c, dx, dy, d2, s->f);
		}
	}
}

/* The seam shift for axis position k of a span: members of a cell reached by going
 * past either end of a wrapping axis sit one world size away. */
static double seam_shift(const steer_grid_span *s, int k, double size)
{
	if (!s->wrap || (k >= 0 && k < s->n))
		return 0.0;
	return k < 0 ? -size : size;
}

/* The longest stretch [kx, end] of a span that stays on one side of a wrap seam:
 * those cells' members are consecutive in grid order. */
static int stretch_end(const steer_grid_span *s, int kx)
{
	int end = kx;
	while (end + 1 <= s->last &&
	       steer_grid_axis_cell(s, end + 1) == steer_grid_axis_cell(s, end) + 1)
		end++;
	return end;
}

typedef struct scan_ctx {
	const steer_vehicles *v;
	const steer_grid *g;
	double width, height;
	bool wrap_each;
} scan_ctx;

/* One grid row of the vehicle's neighbourhood, walked as at most three runs: the
 * stretch before a wrap seam, the stretch inside, the stretch past it. */
static void scan_row(const scan_ctx *c, const steer_flock_query *q, const steer_grid_span *sx,
                     int ky, const steer_grid_span *sy, scan_sums *s)
{
	const steer_grid *g = c->g;
	double shy = c->wrap_each ? 0.0 : seam_shift(sy, ky, c->height);
	int row = steer_grid_axis_cell(sy, ky);
	for (int kx = sx->first; kx <= sx->last && !capped(q, s);) {
		int end = stretch_end(sx, kx);
		steer_grid_run run = steer_grid_row_run(g, row, steer_grid_axis_cell(sx, kx),
		                                        steer_grid_axis_cell(sx, end));
		if (c->wrap_each)
			scan_run_wrapped(c->v, q, g->items, run.from, run.to, c->width, c->height,
			                 s);
		else
			scan_run(c->v, q, g->items, run.from, run.to, seam_shift(sx, kx, c->width),
			         shy, s);
		kx = end + 1;
	}
}

void steer_flock_scan_one(const steer_vehicles *v, const steer_grid *g, double width, double height,
                          const steer_flock_query *q, steer_flock_sums *out)
{
	memset(out, 0, sizeof *out);
	double r = q->a->prm->sight_distance;
	steer_grid_span sx = steer_grid_span_x(g, q->x - r, q->x + r);
	steer_grid_span sy = steer_grid_span_y(g, q->y - r, q->y + r);
	scan_ctx c = {v, g, width, height,
	              g->wrap &&
	                  (sx.last - sx.first + 1 >= g->nx || sy.last - sy.first + 1 >= g->ny)};
	int own_y = steer_grid_axis_index(q->y, g->ch, g->ny);
	if (own_y < sy.first || own_y > sy.last)
		own_y = sy.first;
	scan_sums s = {out, 0};
	scan_row(&c, q, &sx, own_y, &sy, &s);
	for (int ky = sy.first; ky <= sy.last && !capped(q, &s); ky++)
		if (ky != own_y)
			scan_row(&c, q, &sx, ky, &sy, &s);
}

/* --- neighbouring members of a grid row, one per lane ------------------------------- */

bool steer_flock_cell_runs(const steer_grid *g, double width, double height, uint32_t cell,
                           int cells, steer_flock_runs *out)
{
	/* The cells are one stored row's: their global columns from the first's. */
	uint32_t lx = cell % (uint32_t)g->wx;
	int cx = (int)g->col_x[lx], cy = (int)g->row_y[cell / (uint32_t)g->wx];
	int first = cx - g->reach_x;
	int last = (int)g->col_x[lx + (uint32_t)cells - 1] + g->reach_x;
	/* A wrapping axis must be wider than the block, so that no cell is walked
	 * twice. */
	if (g->wrap && (g->nx <= last - first + 1 || g->ny <= 3))
		return false;
	out->slot = g->items;
	if (first >= 0 && last < g->nx && cy > 0 && cy + 1 < g->ny) {
		/* Away from the edges (most cells): what the general walk below gives, one
		 * unshifted run per row, own row first. */
		const int rows[3] = {cy, cy - 1, cy + 1};
		for (int k = 0; k < 3; k++) {
			steer_grid_run run = steer_grid_row_run(g, rows[k], first, last);
			out->r[k].from = run.from;
			out->r[k].to = run.to;
			out->r[k].shx = 0.0;
			out->r[k].shy = 0.0;
		}
		out->count = 3;
		return true;
	}
	steer_grid_span sx = {first, last, g->nx, g->wrap};
	steer_grid_span sy = {cy - 1, cy + 1, g->ny, g->wrap};
	if (!g->wrap) {
		sx.first = first > 0 ? first : 0;
		sx.last = last < g->nx ? last : g->nx - 1;
		sy.first = cy > 0 ? cy - 1 : 0;
		sy.last = cy + 1 < g->ny ? cy + 1 : g->ny - 1;
	}
	int rows[3] = {cy, cy - 1, cy + 1};
	out->count = 0;
	for (int k = 0; k < 3; k++) {
		int ky = rows[k];
		if (ky < sy.first || ky > sy.last)
			continue;
		int row = steer_grid_axis_cell(&sy, ky);
		double shy = seam_shift(&sy, ky, height);
		for (int kx = sx.first; kx <= sx.last;) {
			int end = stretch_end(&sx, kx);
			steer_grid_run run = steer_grid_row_run(
			    g, row, steer_grid_axis_cell(&sx, kx), steer_grid_axis_cell(&sx, end));
			out->r[out->count].from = run.from;
			out->r[out->count].to = run.to;
			out->r[out->count].shx = seam_shift(&sx, kx, width);
			out->r[out->count].shy = shy;
			out->count++;
			kx = end + 1;
		}
	}
	return true;
}

/* --- from sums to forces ---------------------------------------------------------- */

void steer_flock_parts(const steer_agent *a, const steer_flock_sums *f,
                       steer_vec2 parts[STEER_PART_COUNT], uint32_t *mask)
{
	const steer_params *p = a->prm;
	if (f->n == 0)
		return;
	double inv = 1.0 / (double)f->n;
	parts[STEER_PART_SEPARATION] = v2_scale(f->sep, p->separation_weight);
	parts[STEER_PART_COHESION] =
	    v2_scale(steer_cohere(a, v2_scale(f->d, inv)), p->cohesion_weight);
	parts[STEER_PART_ALIGNMENT] =
	    v2_scale(steer_align(a, v2_scale(f->v, inv)), p->alignment_weight);
	*mask |= (1u << STEER_PART_SEPARATION) | (1u << STEER_PART_COHESION) |
	         (1u << STEER_PART_ALIGNMENT);
}

/* --- the lane forms (kernel.c) ---------------------------------------------------- */

int steer_flock_group_size(const steer_kernel *k)
{
	return k->group_size;
}

/* Groups of up to four (flockers other than plain ones) take the four-lane form
 * where there is one, rather than leave half of eight lanes empty. */
static const steer_kernel *lanes_for(const steer_kernel *k, int m)
{
	return k->narrow && m <= STEER_FLOCK_LANES ? k->narrow : k;
}

void steer_flock_scan_lanes(const steer_kernel *k, const steer_vehicles *v,
                            const steer_flock_runs *runs, bool one_group,
                            const steer_flock_query *q, size_t first, int m,
                            const steer_flock_near *near, steer_flock_sums *out)
{
	lanes_for(k, m)->scan_lanes(v, runs, one_group, q, first, m, near, out);
}

void steer_flock_force_lanes(const steer_kernel *k, const steer_agent *a,
                             const steer_flock_sums *sums, int m, double dt, steer_vec2 *force)
{
	lanes_for(k, m)->force_lanes(a, sums, m, dt, force);
}

/* The candidates of all the runs: a bound on how many any lane can take. */
static uint32_t run_candidates(const steer_flock_runs *runs)
{
	uint32_t total = 0;
	for (int r = 0; r < runs->count; r++)
		total += runs->r[r].to - runs->r[r].from;
	return total;
}

/* In a crowd, where the runs hold several times max_neighbours candidates, a form
 * with a narrow form (AVX-512's eight lanes) hands the group to it, four lanes at a
 * time: its capped loop's chain from a lane's count to its next test is shorter. */
#define CROWD 4

void steer_flock_forces_at(const steer_kernel *k, const steer_vehicles *v,
                           const steer_flock_runs *runs, bool one_group, size_t first, int m,
                           const steer_params *p, double dt, const steer_flock_near *near,
                           double *fx, double *fy)
{
	if (k->narrow && p->max_neighbours && run_candidates(runs) > CROWD * p->max_neighbours)
		k = k->narrow;
	k->forces_at(v, runs, one_group, first, m, p, dt, near, fx, fy);
}
