#include "grid.h"
#include "reserve.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void steer_grid_init(steer_grid *g)
{
	memset(g, 0, sizeof *g);
}

void steer_grid_free(steer_grid *g)
{
	free(g->start);
	free(g->items);
	free(g->cell);
	free(g->fill);
	steer_grid_init(g);
}

int steer_grid_build(steer_grid *g, double width, double height, bool wrap, double min_cell,
                     size_t n, const double *px, const double *py, const uint32_t *flags,
                     uint32_t need)
{
	if (!(min_cell > 0.0))
		min_cell = fmax(width, height);
	/* Cap the cell count near the member count: finer cells only cost memory. */
	double max_cells = 64.0 + 4.0 * (double)n;
	double nxf = fmax(1.0, floor(width / min_cell));
	double nyf = fmax(1.0, floor(height / min_cell));
	while (nxf * nyf > max_cells) {
		nxf = fmax(1.0, floor(nxf / 2));
		nyf = fmax(1.0, floor(nyf / 2));
	}
	size_t cells = (size_t)(nxf * nyf);
	if (steer_reserve((void **)&g->start, &g->start_cap, cells + 1, sizeof *g->start) != 0 ||
	    steer_reserve((void **)&g->fill, &g->fill_cap, cells, sizeof *g->fill) != 0 ||
	    steer_reserve((void **)&g->items, &g->items_cap, n, sizeof *g->items) != 0 ||
	    steer_reserve((void **)&g->cell, &g->cell_cap, n, sizeof *g->cell) != 0)
		return -1;

	g->nx = (int)nxf;
	g->ny = (int)nyf;
	g->cw = width / nxf;
	g->ch = height / nyf;
	g->wrap = wrap;
	memset(g->start, 0, (cells + 1) * sizeof *g->start);

	/* Counting sort: count per cell, prefix-sum, then scatter. Members keep their
	 * index order within a cell, so the result depends only on the input. */
	for (size_t i = 0; i < n; i++) {
		if (flags && (flags[i] & need) != need) {
			g->cell[i] = UINT32_MAX;
			continue;
		}
		uint32_t c = (uint32_t)(steer_grid_axis_index(py[i], g->ch, g->ny) * g->nx +
		                        steer_grid_axis_index(px[i], g->cw, g->nx));
		g->cell[i] = c;
		g->start[c + 1]++;
	}
	for (size_t c = 0; c < cells; c++)
		g->start[c + 1] += g->start[c];
	memcpy(g->fill, g->start, cells * sizeof *g->fill);
	for (size_t i = 0; i < n; i++)
		if (g->cell[i] != UINT32_MAX)
			g->items[g->fill[g->cell[i]]++] = (uint32_t)i;
	g->count = g->start[cells];
	return 0;
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
