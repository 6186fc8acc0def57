#include "grid.h"
#include "kernel.h"
#include "pair.h"
#include "reserve.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Cells are this much more than min_cell (a relative 2^-12): far above the rounding
 * of positions, whose error relative to a cell is at most the cell count (at most
 * 64 + 4n, see below) times 2^-52. */
#define CELL_MARGIN (1.0 + 1.0 / 4096.0)

/* Below this many points a second thread costs more than it saves. */
#define TWO_THREADS_MIN 65536

void steer_grid_init(steer_grid *g)
{
	memset(g, 0, sizeof *g);
	g->threads = 1;
	g->reach_x = 1;
	g->kernel = steer_kernel_for(STEER_SIMD_AVX512);
}

void steer_grid_free(steer_grid *g)
{
	free(g->start);
	free(g->items);
	free(g->cell);
	free(g->fill);
	free(g->fill2);
	steer_grid_init(g);
}

/* One range of the points, counted into and placed through its own cursors. */
typedef struct grid_part {
	steer_grid *g;
	const double *px, *py;
	const uint32_t *flags;
	uint32_t need;
	size_t from, to;
	uint32_t *fill;
} grid_part;

static uint32_t cell_of(const steer_grid *g, double x, double y)
{
	return (uint32_t)(steer_grid_axis_index(y, g->ch, g->ny) * g->nx +
	                  steer_grid_axis_index(x, g->cw, g->nx));
}

static void *count_part(void *arg)
{
	grid_part *p = arg;
	steer_grid *g = p->g;
	memset(p->fill, 0, (size_t)g->nx * (size_t)g->ny * sizeof *p->fill);
	size_t vec_end = p->from;
	/* The divisions are most of the cost of counting: the kernel does them in lanes. */
	vec_end = g->kernel->grid_cells(g, p->px, p->py, p->from, p->to, g->cell);
	for (size_t i = p->from; i < p->to; i++) {
		if (p->flags && (p->flags[i] & p->need) != p->need) {
			g->cell[i] = UINT32_MAX;
			continue;
		}
		uint32_t c = i < vec_end ? g->cell[i] : cell_of(g, p->px[i], p->py[i]);
		g->cell[i] = c;
		p->fill[c]++;
	}
	return NULL;
}

static void *place_part(void *arg)
{
	grid_part *p = arg;
	steer_grid *g = p->g;
	for (size_t i = p->from; i < p->to; i++)
		if (g->cell[i] != UINT32_MAX)
			g->items[p->fill[g->cell[i]]++] = (uint32_t)i;
	return NULL;
}

steer_status steer_grid_build(steer_grid *g, double width, double height, bool wrap,
                              double min_cell, size_t n, const double *px, const double *py,
                              const uint32_t *flags, uint32_t need)
{
	if (!(min_cell > 0.0))
		min_cell = fmax(width, height);
	/* A hair more than asked, so that rounding cannot bring a point from beyond a
	 * query's block to within min_cell of it: a point closer than that to the query
	 * is then in its block whichever cell and run it is read from (see flock.h). */
	min_cell *= CELL_MARGIN;
	/* Cap the cell count near the member count: finer cells only cost memory. */
	double max_cells = 64.0 + 4.0 * (double)n;
	/* A tiny min_cell (a subnormal sight) makes the quotients infinite, which halving
	 * never brings down: they start from the cap instead. */
	double nxf = fmin(max_cells, fmax(1.0, floor(width * (double)g->reach_x / min_cell)));
	double nyf = fmin(max_cells, fmax(1.0, floor(height / min_cell)));
	while (nxf * nyf > max_cells) {
		nxf = fmax(1.0, floor(nxf / 2));
		nyf = fmax(1.0, floor(nyf / 2));
	}
	size_t cells = (size_t)(nxf * nyf);
	if (steer_reserve((void **)&g->start, &g->start_cap, cells + 1, sizeof *g->start) != 0 ||
	    steer_reserve((void **)&g->fill, &g->fill_cap, cells, sizeof *g->fill) != 0 ||
	    steer_reserve((void **)&g->items, &g->items_cap, n, sizeof *g->items) != 0 ||
	    steer_reserve((void **)&g->cell, &g->cell_cap, n, sizeof *g->cell) != 0)
		return STEER_ERR_NOMEM;

	g->nx = (int)nxf;
	g->ny = (int)nyf;
	g->cw = width / nxf;
	g->ch = height / nyf;
	g->wrap = wrap;

	/* Counting sort: count per cell, prefix-sum, then scatter. Members keep their
	 * index order within a cell, so the result depends only on the input. With two
	 * threads each half of the points is counted and scattered on its own, the first
	 * half's members of a cell placed before the second half's: the same order. */
	bool two = g->threads >= 2 && n >= TWO_THREADS_MIN &&
	           steer_reserve((void **)&g->fill2, &g->fill2_cap, cells, sizeof *g->fill2) == 0;
	grid_part parts[2] = {{g, px, py, flags, need, 0, two ? n / 2 : n, g->fill},
	                      {g, px, py, flags, need, n / 2, n, g->fill2}};
	if (two && !steer_run_pair(count_part, &parts[0], &parts[1])) {
		two = false; /* no thread to be had: the same grid, on one */
		parts[0].to = n;
	}
	if (!two)
		count_part(&parts[0]);
	uint32_t at = 0;
	for (size_t c = 0; c < cells; c++) {
		g->start[c] = at;
		uint32_t first = g->fill[c];
		g->fill[c] = at;
		at += first;
		if (two) {
			uint32_t second = g->fill2[c];
			g->fill2[c] = at;
			at += second;
		}
	}
	g->start[cells] = at;
	if (!two) {
		place_part(&parts[0]);
	} else if (!steer_run_pair(place_part, &parts[0], &parts[1])) {
		place_part(&parts[0]);
		place_part(&parts[1]);
	}
	g->count = at;
	return STEER_OK;
}

size_t steer_grid_query(const steer_grid *g, const double *px, const double *py, double width,
                        double height, double x, double y, double r, uint32_t *out, size_t cap)
{
	size_t found = 0;
	steer_grid_span sx = steer_grid_span_x(g, x - r, x + r);
	steer_grid_span sy = steer_grid_span_y(g, y - r, y + r);
	for (int ky = sy.first; ky <= sy.last; ky++) {
		int cy = steer_grid_axis_cell(&sy, ky);
		for (int kx = sx.first; kx <= sx.last; kx++) {
			int c = cy * g->nx + steer_grid_axis_cell(&sx, kx);
			for (uint32_t k = g->start[c]; k < g->start[c + 1]; k++) {
				uint32_t j = g->items[k];
				double dx = g->wrap ? steer_wrap_axis(px[j] - x, width) : px[j] - x;
				double dy =
				    g->wrap ? steer_wrap_axis(py[j] - y, height) : py[j] - y;
				if (dx * dx + dy * dy <= r * r) {
					if (found < cap)
						out[found] = j;
					found++;
				}
			}
		}
	}
	return found;
}
