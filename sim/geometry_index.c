/* The obstacle index: a grid over the segments (each in the cells it crosses, in
 * compressed rows), the polygons' regions per cell, and the circles, updated on
 * change (only what changed) before a tick or a plan reads it. */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "geometry.h"
#include "geometry_internal.h"
#include "reserve.h"
#include "world_internal.h"

/* The fewest cells a grid has room for, and the most. */
#define GRID_MIN_CELLS 1024u
#define GRID_MAX_CELLS (1u << 22)

static steer_vec2 cell_centre(const steer_geom *g, uint32_t cell)
{
	uint32_t cx = cell % g->nx, cy = cell / g->nx;
	return v2(g->x0 + ((double)cx + 0.5) * g->cw, g->y0 + ((double)cy + 0.5) * g->ch);
}

/* Lays the grid over the world (wrap) or over the bounds and every segment, cells
 * sized for the circles and few enough for the things indexed. */
static void plan_grid(const steer_world *w, steer_geom *g)
{
	const steer_world_config *c = &w->cfg;
	g->wrap = steer_geom_is_wrap(w);
	g->wrap_w = c->width;
	g->wrap_h = c->height;
	double x0 = 0.0, y0 = 0.0, x1 = c->width, y1 = c->height;
	if (!g->wrap && g->nsegs) {
		x0 = fmin(x0, g->built.lo.x);
		x1 = fmax(x1, g->built.hi.x);
		y0 = fmin(y0, g->built.lo.y);
		y1 = fmax(y1, g->built.hi.y);
	}
	double mean_r = 0.0;
	for (size_t k = 0; k < w->obs_count; k++)
		mean_r += fmin(w->obs[k].r, 1e6) / (double)w->obs_count;
	double cell = fmax(64.0, 2.0 * mean_r);
	double ew = x1 - x0, eh = y1 - y0;
	double items = (double)(g->nsegs + w->obs_count);
	double most = fmin(fmax((double)GRID_MIN_CELLS, 4.0 * items), (double)GRID_MAX_CELLS);
	if ((ew / cell) * (eh / cell) > most)
		cell = sqrt(ew * eh / most);
	double nx = g->wrap ? floor(ew / cell) : ceil(ew / cell);
	double ny = g->wrap ? floor(eh / cell) : ceil(eh / cell);
	nx = fmin(fmax(nx, 1.0), most);
	ny = fmin(fmax(ny, 1.0), fmax(1.0, floor(most / nx)));
	g->nx = (uint32_t)nx;
	g->ny = (uint32_t)ny;
	g->x0 = x0;
	g->y0 = y0;
	g->cw = g->wrap ? ew / nx : fmax(ew / nx, cell);
	g->ch = g->wrap ? eh / ny : fmax(eh / ny, cell);
	if (!g->wrap) { /* cover the extent whatever the rounding */
		g->cw = fmax(g->cw, ew / nx * (1.0 + 1e-12));
		g->ch = fmax(g->ch, eh / ny * (1.0 + 1e-12));
	}
	g->inv_cw = 1.0 / g->cw;
	g->inv_ch = 1.0 / g->ch;
}

/* Whether segment k touches cell `cell` (a hair's margin for rounding). */
static bool seg_in_cell(const steer_world *w, const steer_geom *g, const steer_segment *s,
                        uint32_t cell)
{
	steer_vec2 a, b;
	steer_geom_rel(w, s, cell_centre(g, cell), &a, &b);
	double margin = 1e-9 * fmax(g->cw, g->ch);
	return steer_geom_seg_box_dist2(a, b, g->cw * 0.5 + margin, g->ch * 0.5 + margin) == 0.0;
}

/* Compressed rows: count per cell, then prefix sums, then fill in item order. */
static steer_status csr_begin(uint32_t **start, size_t *cap, size_t cells)
{
	if (steer_reserve((void **)start, cap, cells + 1, sizeof **start) != STEER_OK)
		return STEER_ERR_NOMEM;
	memset(*start, 0, (cells + 1) * sizeof **start);
	return STEER_OK;
}

/* Turns counts (in start[1..cells]) into offsets; the cursor gets each row's start. */
static steer_status csr_offsets(uint32_t *start, size_t cells, uint32_t **items, size_t *items_cap,
                                uint32_t **cursor, size_t *cursor_cap)
{
	for (size_t c = 0; c < cells; c++) {
		if (start[c + 1] > UINT32_MAX - start[c])
			return STEER_ERR_NOMEM;
		start[c + 1] += start[c];
	}
	size_t total = start[cells] ? start[cells] : 1;
	if (steer_reserve((void **)items, items_cap, total, sizeof **items) != STEER_OK ||
	    steer_reserve((void **)cursor, cursor_cap, cells, sizeof **cursor) != STEER_OK)
		return STEER_ERR_NOMEM;
	memcpy(*cursor, start, cells * sizeof **cursor);
	return STEER_OK;
}

/* The cells segment s touches, as a span to test cell by cell; *one gets the cell
 * when the span is a single cell of a bounded grid, which the segment then lies in
 * (the grid covers every segment). */
static cell_span seg_span(const steer_geom *g, const steer_segment *s, uint32_t *one)
{
	steer_vec2 lo = v2(fmin(s->a.x, s->b.x), fmin(s->a.y, s->b.y));
	steer_vec2 hi = v2(fmax(s->a.x, s->b.x), fmax(s->a.y, s->b.y));
	double m = 1e-9 * fmax(g->cw, g->ch);
	cell_span sp = steer_geom_box_span(g, v2(lo.x - m, lo.y - m), v2(hi.x + m, hi.y + m));
	*one =
	    !g->wrap && sp.nx == 1 && sp.ny == 1 ? steer_geom_span_cell(g, &sp, 0, 0) : UINT32_MAX;
	return sp;
}

static steer_status index_segments(const steer_world *w, steer_geom *g)
{
	size_t cells = (size_t)g->nx * g->ny;
	if (csr_begin(&g->seg_start, &g->seg_start_cap, cells) != STEER_OK ||
	    steer_reserve((void **)&g->seg_cell, &g->seg_cell_cap, g->nsegs ? g->nsegs : 1,
	                  sizeof *g->seg_cell) != STEER_OK)
		return STEER_ERR_NOMEM;
	/* Most segments of a big scene are short and lie in one cell: found once, filed
	 * without a distance test. */
	for (size_t k = 0; k < g->nsegs; k++) {
		const steer_segment *s = &g->segs[k];
		uint32_t one;
		cell_span sp = seg_span(g, s, &one);
		g->seg_cell[k] = one;
		if (one != UINT32_MAX) {
			g->seg_start[one + 1]++;
			continue;
		}
		for (uint32_t j = 0; j < sp.ny; j++)
			for (uint32_t i = 0; i < sp.nx; i++) {
				uint32_t cell = steer_geom_span_cell(g, &sp, i, j);
				if (seg_in_cell(w, g, s, cell))
					g->seg_start[cell + 1]++;
			}
	}
	if (csr_offsets(g->seg_start, cells, &g->seg_items, &g->seg_items_cap, &g->fill,
	                &g->fill_cap) != STEER_OK)
		return STEER_ERR_NOMEM;
	for (size_t k = 0; k < g->nsegs; k++) {
		if (g->seg_cell[k] != UINT32_MAX) {
			g->seg_items[g->fill[g->seg_cell[k]]++] = (uint32_t)k;
			continue;
		}
		const steer_segment *s = &g->segs[k];
		uint32_t one;
		cell_span sp = seg_span(g, s, &one);
		for (uint32_t j = 0; j < sp.ny; j++)
			for (uint32_t i = 0; i < sp.nx; i++) {
				uint32_t cell = steer_geom_span_cell(g, &sp, i, j);
				if (seg_in_cell(w, g, s, cell))
					g->seg_items[g->fill[cell]++] = (uint32_t)k;
			}
	}
	return STEER_OK;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The y of grid row cy's reference points (cell_ref). */
static double row_at(const steer_geom *g, uint32_t cy)
{
	return g->y0 + ((double)cy + REF_FY) * g->ch;
}

/* A region's edges filed by the grid rows whose reference line they cross: compressed
 * rows (start has ny + 1 entries), each edge in region order. */
typedef struct row_edges {
	uint32_t *start, *items, *cursor;
	size_t start_cap, items_cap, cursor_cap;
} row_edges;

static void row_edges_free(row_edges *re)
{
	free(re->start);
	free(re->items);
	free(re->cursor);
}

/* Whether edge a-b crosses the line y = at: half-open at the ends, so a vertex on the
 * line counts once or not at all, as the ray rule needs. */
static bool crosses_row(steer_vec2 a, steer_vec2 b, double at)
{
	return (a.y > at) != (b.y > at);
}

/* The rows whose lines an edge from ya to yb may cross: a row or so wider than
 * exactly, for rounding (crosses decides). False when none. */
static bool edge_rows(const steer_geom *g, double ya, double yb, uint32_t *c0, uint32_t *c1)
{
	double lo = floor((fmin(ya, yb) - g->y0) * g->inv_ch - REF_FY) - 1.0;
	double hi = ceil((fmax(ya, yb) - g->y0) * g->inv_ch - REF_FY) + 1.0;
	double last = (double)g->ny - 1.0;
	if (!(hi >= 0.0) || !(lo <= last))
		return false;
	*c0 = lo > 0.0 ? (uint32_t)lo : 0;
	*c1 = hi < last ? (uint32_t)hi : (uint32_t)last;
	return true;
}

/* Files region r's edges by row: each edge looks only at the rows its ends span, so a
 * region costs its edges and the rows it covers, not edges times rows. */
static steer_status file_edges(const steer_geom *g, const steer_geom_region *r, row_edges *re)
{
	if (csr_begin(&re->start, &re->start_cap, g->ny) != STEER_OK)
		return STEER_ERR_NOMEM;
	for (int pass = 0; pass < 2; pass++) {
		if (pass && csr_offsets(re->start, g->ny, &re->items, &re->items_cap, &re->cursor,
		                        &re->cursor_cap) != STEER_OK)
			return STEER_ERR_NOMEM;
		for (uint32_t k = r->first; k < r->first + r->count; k++) {
			steer_vec2 a = g->segs[k].a, b = g->segs[k].b;
			uint32_t c0, c1;
			if (!edge_rows(g, a.y, b.y, &c0, &c1))
				continue;
			for (uint32_t cy = c0; cy <= c1; cy++) {
				if (!crosses_row(a, b, row_at(g, cy)))
					continue;
				if (pass)
					re->items[re->cursor[cy]++] = k;
				else
					re->start[cy + 1]++;
			}
		}
	}
	return STEER_OK;
}

/* Where the edges filed in row cy cross its line, sorted, in xs. */
static size_t row_crossings(const steer_geom *g, const row_edges *re, uint32_t cy, double *xs)
{
	double at = row_at(g, cy);
	size_t n = 0;
	for (uint32_t k = re->start[cy]; k < re->start[cy + 1]; k++) {
		steer_vec2 a = g->segs[re->items[k]].a, b = g->segs[re->items[k]].b;
		xs[n++] = a.x + (at - a.y) / (b.y - a.y) * (b.x - a.x);
	}
	qsort(xs, n, sizeof *xs, cmp_double);
	return n;
}

/* Files (pass 1) or counts (pass 0) region r in the cells whose reference points it
 * blocks, row by row from where its edges cross the row. */
static void file_region(steer_geom *g, size_t r, const row_edges *re, double *xs, int pass)
{
	const steer_geom_region *reg = &g->regions[r];
	for (uint32_t cy = 0; cy < g->ny; cy++) {
		/* A solid region blocks nothing in a row none of its edges cross. */
		if (!reg->containing && re->start[cy] == re->start[cy + 1])
			continue;
		size_t n = row_crossings(g, re, cy, xs), past = 0;
		for (uint32_t cx = 0; cx < g->nx; cx++) {
			double x = g->x0 + ((double)cx + REF_FX) * g->cw;
			while (past < n && xs[past] <= x)
				past++;
			bool inside = (n - past) % 2 == 1;
			if (inside == reg->containing)
				continue;
			uint32_t cell = cy * g->nx + cx;
			if (pass)
				g->reg_items[g->fill[cell]++] = (uint32_t)r;
			else
				g->reg_start[cell + 1]++;
		}
	}
}

/* Per cell, the regions that block its reference point (each list ascending). */
static steer_status index_regions(steer_geom *g)
{
	size_t cells = (size_t)g->nx * g->ny;
	size_t most = 1;
	for (size_t r = 0; r < g->nregions; r++)
		most = g->regions[r].count > most ? g->regions[r].count : most;
	double *xs = malloc(most * sizeof *xs);
	row_edges re = {0};
	steer_status st = xs ? csr_begin(&g->reg_start, &g->reg_start_cap, cells) : STEER_ERR_NOMEM;
	for (int pass = 0; pass < 2 && st == STEER_OK; pass++) {
		if (pass && (st = csr_offsets(g->reg_start, cells, &g->reg_items, &g->reg_items_cap,
		                              &g->fill, &g->fill_cap)) != STEER_OK)
			break;
		for (size_t r = 0; r < g->nregions && st == STEER_OK; r++)
			if ((st = file_edges(g, &g->regions[r], &re)) == STEER_OK)
				file_region(g, r, &re, xs, pass);
	}
	row_edges_free(&re);
	free(xs);
	return st;
}

/* The cell of a circle's centre: the cell a span over the centre includes. */
static uint32_t centre_cell(const steer_geom *g, double x, double y)
{
	if (g->wrap) {
		if (!(x >= 0.0 && x < g->wrap_w))
			x -= g->wrap_w * floor(x / g->wrap_w);
		if (!(y >= 0.0 && y < g->wrap_h))
			y -= g->wrap_h * floor(y / g->wrap_h);
	}
	return clamp_cell((y - g->y0) * g->inv_ch, g->ny) * g->nx +
	       clamp_cell((x - g->x0) * g->inv_cw, g->nx);
}

/* Compressed rows by a counting sort that needs no cursors: counts in start[cell],
 * summed to each row's end, then the items placed backwards from the ends (so each
 * row keeps the items' order), which leaves start[cell] at the row's start. */
static void rows_end(uint32_t *start, size_t cells)
{
	for (size_t c = 1; c <= cells; c++)
		start[c] += start[c - 1];
}

/* The wide circles, filed in every cell their box covers. */
static steer_status index_big(const steer_world *w, steer_geom *g, size_t cells)
{
	if (steer_reserve((void **)&g->big_start, &g->big_start_cap, cells + 1,
	                  sizeof *g->big_start) != STEER_OK)
		return STEER_ERR_NOMEM;
	memset(g->big_start, 0, (cells + 1) * sizeof *g->big_start);
	size_t total = 0;
	for (size_t b = 0; b < g->nbig; b++) {
		const steer_obstacle *o = &w->obs[g->big_index[b]];
		cell_span sp = steer_geom_box_span(g, v2(o->x - o->r, o->y - o->r),
		                                   v2(o->x + o->r, o->y + o->r));
		uint32_t *cv = &g->big_cover[4 * b];
		cv[0] = sp.x0, cv[1] = sp.nx, cv[2] = sp.y0, cv[3] = sp.ny;
		for (uint32_t j = 0; j < sp.ny; j++)
			for (uint32_t i = 0; i < sp.nx; i++)
				g->big_start[steer_geom_span_cell(g, &sp, i, j)]++;
		total += (size_t)sp.nx * sp.ny;
		if (total > UINT32_MAX)
			return STEER_ERR_NOMEM;
	}
	if (steer_reserve((void **)&g->big_items, &g->big_items_cap, total ? total : 1,
	                  sizeof *g->big_items) != STEER_OK)
		return STEER_ERR_NOMEM;
	rows_end(g->big_start, cells);
	for (size_t b = g->nbig; b-- > 0;) {
		const uint32_t *cv = &g->big_cover[4 * b];
		cell_span sp = {cv[0], cv[1], cv[2], cv[3]};
		for (uint32_t j = sp.ny; j-- > 0;)
			for (uint32_t i = sp.nx; i-- > 0;)
				g->big_items[--g->big_start[steer_geom_span_cell(g, &sp, i, j)]] =
				    (uint32_t)b;
	}
	return STEER_OK;
}

static steer_status index_circles(const steer_world *w, steer_geom *g)
{
	size_t cells = (size_t)g->nx * g->ny, n = w->obs_count;
	double narrow = fmin(g->cw, g->ch);
	if (steer_reserve((void **)&g->disc_start, &g->disc_start_cap, cells + 1,
	                  sizeof *g->disc_start) != STEER_OK ||
	    steer_reserve((void **)&g->fill, &g->fill_cap, n ? n : 1, sizeof *g->fill) != STEER_OK)
		return STEER_ERR_NOMEM;
	memset(g->disc_start, 0, (cells + 1) * sizeof *g->disc_start);
	size_t small = 0;
	g->nbig = 0;
	g->disc_rmax = 0.0;
	for (size_t k = 0; k < n; k++) {
		const steer_obstacle *o = &w->obs[k];
		if (o->r <= narrow) {
			g->fill[k] = centre_cell(g, o->x, o->y);
			g->disc_start[g->fill[k]]++;
			g->disc_rmax = fmax(g->disc_rmax, o->r);
			small++;
		} else {
			g->fill[k] = UINT32_MAX;
			g->nbig++;
		}
	}
	if (steer_reserve((void **)&g->discs, &g->discs_cap, small ? small : 1, sizeof *g->discs) !=
	    STEER_OK)
		return STEER_ERR_NOMEM;
	rows_end(g->disc_start, cells);
	for (size_t k = n; k-- > 0;) {
		if (g->fill[k] == UINT32_MAX)
			continue;
		const steer_obstacle *o = &w->obs[k];
		g->discs[--g->disc_start[g->fill[k]]] =
		    (steer_geom_disc){o->x, o->y, o->r, v2_len(v2(o->vx, o->vy)), (uint32_t)k};
	}
	if (g->nbig == 0)
		return STEER_OK;
	if (steer_reserve((void **)&g->big_index, &g->big_index_cap, g->nbig,
	                  sizeof *g->big_index) != STEER_OK ||
	    steer_reserve((void **)&g->big_cover, &g->big_cover_cap, 4 * g->nbig,
	                  sizeof *g->big_cover) != STEER_OK)
		return STEER_ERR_NOMEM;
	size_t b = 0;
	for (size_t k = 0; k < n; k++)
		if (g->fill[k] == UINT32_MAX)
			g->big_index[b++] = (uint32_t)k;
	return index_big(w, g, cells);
}

steer_status steer_geom_update(steer_world *w)
{
	steer_geom *g = &w->geom;
	if (!g->grid_stale && !g->circles_stale)
		return STEER_OK;
	if (g->nsegs == 0 && w->obs_count == 0) {
		/* Nothing to index: queries find nothing either way. */
		g->grid_stale = g->circles_stale = false;
		g->nx = g->ny = 0;
		return STEER_OK;
	}
	/* Cells sized for a few circles would hold too many of a crowd of them. */
	if (w->obs_count > 2 * g->planned_circles + 64 || w->obs_count < g->planned_circles / 4)
		g->grid_stale = true;
	if (g->grid_stale || g->nx == 0) {
		g->grid_stale = true;
		steer_geom was = *g;
		plan_grid(w, g);
		g->planned_circles = w->obs_count;
		/* The regions' lists are kept when neither they nor the cells changed: a
		 * wall added to a scene of big polygons does not file them all again. */
		bool same_cells = was.nx == g->nx && was.ny == g->ny && was.x0 == g->x0 &&
		                  was.y0 == g->y0 && was.cw == g->cw && was.ch == g->ch &&
		                  was.wrap == g->wrap && g->reg_start;
		if (!same_cells)
			g->regions_stale = true;
		if (index_segments(w, g) != STEER_OK ||
		    (g->regions_stale && index_regions(g) != STEER_OK))
			return STEER_ERR_NOMEM;
		g->regions_stale = false;
		g->grid_stale = false;
	}
	g->circles_stale = true;
	if (index_circles(w, g) != STEER_OK)
		return STEER_ERR_NOMEM;
	g->circles_stale = false;
	return STEER_OK;
}

/* --- queries ------------------------------------------------------------------------ */
