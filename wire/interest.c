#include "interest.h"
#include "reserve.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Cells sized for about this many vehicles each: a view showing thousands of vehicles
 * then looks at few beyond its edge, and the grid's per-cell cost stays below its
 * per-vehicle cost. */
#define VEHICLES_PER_CELL 8.0
/* At most this many cells along the longer side, so a huge, nearly empty world does
 * not pay for a sea of empty cells. */
#define MAX_CELLS_AXIS 1024.0

void steer_interest_init(steer_interest *ix)
{
	memset(ix, 0, sizeof *ix);
	steer_grid_init(&ix->grid);
}

void steer_interest_free(steer_interest *ix)
{
	steer_grid_free(&ix->grid);
	free(ix->keys);
	free(ix->tmp);
	steer_interest_init(ix);
}

void steer_interest_invalidate(steer_interest *ix)
{
	ix->built = false;
}

int steer_interest_build(steer_interest *ix, const steer_world *w)
{
	const steer_vehicles *v = steer_world_vehicles(w);
	const steer_world_config *c = steer_world_config_get(w);
	double per_vehicle = c->width * c->height / fmax(1.0, (double)v->count);
	double cell =
	    fmax(sqrt(per_vehicle * VEHICLES_PER_CELL), fmax(c->width, c->height) / MAX_CELLS_AXIS);
	/* No wrap: a view is a rectangle of plain world coordinates, and the grid clamps
	 * positions outside the bounds (edges none) into its border cells. */
	ix->built = steer_grid_build(&ix->grid, c->width, c->height, false, cell, v->count, v->px,
	                             v->py, NULL, 0) == STEER_OK;
	ix->count = v->count;
	return ix->built ? 0 : -1;
}

static size_t scan(const steer_vehicles *v, const steer_view *view, double margin, uint32_t *out)
{
	size_t n = 0;
	for (size_t i = 0; i < v->count; i++)
		if (steer_view_contains(view, v->px[i], v->py[i], margin))
			out[n++] = (uint32_t)i;
	return n;
}

/* Candidates from the cells the view (plus margin) overlaps, kept when really in it. */
static size_t from_cells(const steer_grid *g, const steer_vehicles *v, const steer_view *view,
                         double margin, uint32_t *out)
{
	steer_grid_span sx = steer_grid_span_x(g, view->x0 - margin, view->x1 + margin);
	steer_grid_span sy = steer_grid_span_y(g, view->y0 - margin, view->y1 + margin);
	size_t n = 0;
	for (int ky = sy.first; ky <= sy.last; ky++) {
		int row = steer_grid_axis_cell(&sy, ky) * g->nx;
		for (int kx = sx.first; kx <= sx.last; kx++) {
			int c = row + steer_grid_axis_cell(&sx, kx);
			for (uint32_t k = g->start[c]; k < g->start[c + 1]; k++) {
				uint32_t i = g->items[k];
				if (steer_view_contains(view, v->px[i], v->py[i], margin))
					out[n++] = i;
			}
		}
	}
	return n;
}

/* Stable LSD radix sort on the upper 32 bits, a byte per pass; a pass in which every
 * key has the same byte moves nothing and is skipped (small worlds need one or two). */
static void radix_sort_high(uint64_t *a, uint64_t *tmp, size_t n)
{
	uint64_t *src = a, *dst = tmp;
	for (int shift = 32; shift < 64; shift += 8) {
		size_t count[256] = {0};
		for (size_t k = 0; k < n; k++)
			count[(src[k] >> shift) & 255]++;
		if (count[(src[0] >> shift) & 255] == n)
			continue;
		size_t sum = 0;
		for (int b = 0; b < 256; b++) {
			size_t c = count[b];
			count[b] = sum;
			sum += c;
		}
		for (size_t k = 0; k < n; k++)
			dst[count[(src[k] >> shift) & 255]++] = src[k];
		uint64_t *t = src;
		src = dst;
		dst = t;
	}
	if (src != a)
		memcpy(a, src, n * sizeof *a);
}

/* Puts idx[0..n) in the order asked, through (key << 32 | index) pairs. */
static int sort_indices(steer_interest *ix, const steer_vehicles *v, steer_order order,
                        uint32_t *idx, size_t n)
{
	if (n < 2)
		return 0;
	if (steer_reserve((void **)&ix->keys, &ix->keys_cap, n, sizeof *ix->keys) != STEER_OK ||
	    steer_reserve((void **)&ix->tmp, &ix->tmp_cap, n, sizeof *ix->tmp) != STEER_OK)
		return -1;
	bool sorted = true;
	for (size_t k = 0; k < n; k++) {
		uint64_t key = order == STEER_ORDER_ID ? v->id[idx[k]] : idx[k];
		ix->keys[k] = key << 32 | idx[k];
		sorted = sorted && (k == 0 || ix->keys[k] > ix->keys[k - 1]);
	}
	if (sorted)
		return 0;
	radix_sort_high(ix->keys, ix->tmp, n);
	for (size_t k = 0; k < n; k++)
		idx[k] = (uint32_t)ix->keys[k];
	return 0;
}

int steer_interest_collect(steer_interest *ix, const steer_world *w, const steer_view *view,
                           steer_order order, uint32_t **out, size_t *cap, size_t *n)
{
	const steer_vehicles *v = steer_world_vehicles(w);
	*n = 0;
	if (steer_reserve((void **)out, cap, v->count ? v->count : 1, sizeof **out) != STEER_OK)
		return -1;
	double margin = view->set ? steer_view_margin(view) : 0;
	/* An index of another population would name indices that are gone. */
	if (view->set && ix->built && ix->count == v->count)
		*n = from_cells(&ix->grid, v, view, margin, *out);
	else
		*n = scan(v, view, margin, *out);
	return sort_indices(ix, v, order, *out, *n);
}
