#include "grid.h"
#include "kernel.h"
#include "pool.h"
#include "reserve.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Cells are this much more than min_cell (a relative 2^-12): far above the rounding
 * of positions, whose error relative to a cell is at most the cell count (at most
 * 64 + 4n, see below) times 2^-52. */
#define CELL_MARGIN (1.0 + 1.0 / 4096.0)

/* Below this many points a build on several threads costs more than it saves. */
#define PARALLEL_MIN_POINTS 4096
/* Up to this many parts, each counts its points per cell (a cursor per cell each);
 * beyond, per row first: a pass more, but scratch and a prefix that do not grow
 * with parts times cells. */
#define CELL_PARTS_MAX 4

void steer_grid_init(steer_grid *g)
{
	memset(g, 0, sizeof *g);
	g->reach_x = 1;
	g->kernel = steer_kernel_for(STEER_SIMD_AVX512);
}

void steer_grid_free(steer_grid *g)
{
	free(g->start);
	free(g->items);
	free(g->cell);
	free(g->fill);
	free(g->part_fill);
	free(g->by_row);
	free(g->row_fill);
	free(g->col_fill);
	free(g->col_at);
	free(g->col_x);
	free(g->row_y);
	free(g->row_base);
	free(g->used);
	steer_grid_init(g);
}

static uint32_t cell_of(const steer_grid *g, double x, double y)
{
	return (uint32_t)(steer_grid_axis_index(y, g->ch, g->ny) * g->nx +
	                  steer_grid_axis_index(x, g->cw, g->nx));
}

/* c / nx without a division, which would cost more than the rest of a member's
 * count: a product with inv = 1 / nx, off by at most one, put right. */
static inline uint32_t row_of(uint32_t c, uint32_t nx, double inv)
{
	uint32_t r = (uint32_t)((double)c * inv);
	if (r * nx > c)
		r--;
	else if ((r + 1) * nx <= c)
		r++;
	return r;
}

/* A region's grid stores only its window (grid.h), so each point's global cell is
 * found before its local one: the window is known only once all are. */
static bool windowed(const steer_grid *g)
{
	return g->cap_members != 0;
}

/* The global columns of points [from, to) into g->cell (UINT32_MAX for a point not
 * indexed) and their rows into g->items, which holds them until the points are
 * counted (it takes members only after), each indexed point's column and row marked
 * in used (nx columns, then ny rows). */
static void find_cells(steer_grid *g, const double *px, const double *py, const uint32_t *flags,
                       uint32_t need, size_t from, size_t to, uint8_t *used)
{
	uint32_t *col = g->cell, *row = g->items;
	/* The divisions are most of the cost: the kernel does them in lanes. */
	size_t vec_end = g->kernel->grid_columns_rows(g, px, py, from, to, col, row);
	for (size_t i = from; i < to; i++) {
		if (flags && (flags[i] & need) != need) {
			col[i] = UINT32_MAX;
			continue;
		}
		if (i >= vec_end) {
			col[i] = (uint32_t)steer_grid_axis_index(px[i], g->cw, g->nx);
			row[i] = (uint32_t)steer_grid_axis_index(py[i], g->ch, g->ny);
		}
		used[col[i]] = 1;
		used[(size_t)g->nx + row[i]] = 1;
	}
}

/* The cells of points [from, to) into g->cell (UINT32_MAX for a point not indexed),
 * each indexed point counted in count[its row] (rows) or count[its cell], local
 * both. A window's points have their global columns and rows already (find_cells),
 * turned local here; the whole grid's are found here, in the same pass. */
static void count_points(steer_grid *g, const double *px, const double *py, const uint32_t *flags,
                         uint32_t need, size_t from, size_t to, uint32_t *count, bool rows)
{
	bool window = windowed(g);
	size_t vec_end = window ? from : g->kernel->grid_cells(g, px, py, from, to, g->cell);
	uint32_t wx = (uint32_t)g->wx;
	double inv = 1.0 / (double)wx;
	for (size_t i = from; i < to; i++) {
		uint32_t c;
		if (window) {
			uint32_t x = g->cell[i];
			if (x == UINT32_MAX)
				continue;
			c = (uint32_t)g->row_base[g->items[i]] + g->col_at[x];
		} else if (flags && (flags[i] & need) != need) {
			g->cell[i] = UINT32_MAX;
			continue;
		} else {
			c = i < vec_end ? g->cell[i] : cell_of(g, px[i], py[i]);
		}
		g->cell[i] = c;
		count[rows ? row_of(c, wx, inv) : c]++;
	}
}

/* A build on several threads, by rows: each part counts a range of the points per
 * row and scatters them into the rows, in part order, so each row holds its members
 * in index order; then each part sorts a range of rows into cells, stably. Members
 * keep their index order within a cell, as in the one-thread build: the grid is the
 * same for any number of parts. */
typedef struct grid_job {
	steer_grid *g;
	const double *px, *py;
	const uint32_t *flags;
	uint32_t need;
	size_t n;
	int parts;
	uint32_t *row_start; /* ny + 1: where each row's members start */
	/* By cells: each part's range of cells, its members in all, then where they
	 * start. */
	uint32_t cell_members[CELL_PARTS_MAX];
} grid_job;

static void count_rows(void *arg, int part)
{
	grid_job *j = arg;
	steer_grid *g = j->g;
	uint32_t *count = g->row_fill + (size_t)part * (size_t)g->wy;
	memset(count, 0, (size_t)g->wy * sizeof *count);
	count_points(g, j->px, j->py, j->flags, j->need, steer_part_from(j->n, part, j->parts),
	             steer_part_from(j->n, part + 1, j->parts), count, true);
}

static void scatter_rows(void *arg, int part)
{
	grid_job *j = arg;
	steer_grid *g = j->g;
	uint32_t *cursor = g->row_fill + (size_t)part * (size_t)g->wy;
	uint32_t wx = (uint32_t)g->wx;
	double inv = 1.0 / (double)wx;
	size_t to = steer_part_from(j->n, part + 1, j->parts);
	for (size_t i = steer_part_from(j->n, part, j->parts); i < to; i++)
		if (g->cell[i] != UINT32_MAX)
			g->by_row[cursor[row_of(g->cell[i], wx, inv)]++] = (uint32_t)i;
}

/* The first row of a part: where part / parts of the members have gone by, so that
 * a crowded row weighs what it holds. */
static size_t first_row(const grid_job *j, int part)
{
	return steer_first_at_least(j->row_start, (size_t)j->g->wy,
	                            steer_part_from(j->g->count, part, j->parts));
}

/* One local row's members (by_row[from, to)) counted into cells and placed,
 * stably. */
static void sort_row(steer_grid *g, size_t row, uint32_t from, uint32_t to, uint32_t *fill)
{
	size_t nx = (size_t)g->wx, base = row * nx;
	memset(fill, 0, nx * sizeof *fill);
	for (uint32_t m = from; m < to; m++)
		fill[g->cell[g->by_row[m]] - base]++;
	uint32_t at = from;
	for (size_t x = 0; x < nx; x++) {
		g->start[base + x] = at;
		uint32_t k = fill[x];
		fill[x] = at;
		at += k;
	}
	for (uint32_t m = from; m < to; m++) {
		uint32_t i = g->by_row[m];
		g->items[fill[g->cell[i] - base]++] = i;
	}
}

static void sort_rows(void *arg, int part)
{
	grid_job *j = arg;
	steer_grid *g = j->g;
	uint32_t *fill = g->col_fill + (size_t)part * (size_t)g->wx;
	size_t to = part + 1 == j->parts ? (size_t)g->wy : first_row(j, part + 1);
	for (size_t r = part == 0 ? 0 : first_row(j, part); r < to; r++)
		sort_row(g, r, j->row_start[r], j->row_start[r + 1], fill);
}

static steer_status build_by_rows(steer_grid *g, grid_job *j)
{
	size_t ny = (size_t)g->wy, parts = (size_t)j->parts;
	if (steer_reserve((void **)&g->by_row, &g->by_row_cap, j->n, sizeof *g->by_row) !=
	        STEER_OK ||
	    steer_reserve((void **)&g->row_fill, &g->row_fill_cap, (parts + 1) * ny + 1,
	                  sizeof *g->row_fill) != STEER_OK ||
	    steer_reserve((void **)&g->col_fill, &g->col_fill_cap, parts * (size_t)g->wx,
	                  sizeof *g->col_fill) != STEER_OK)
		return STEER_ERR_NOMEM;
	j->row_start = g->row_fill + parts * ny;
	steer_pool_run(g->pool, count_rows, j, j->parts);
	/* Each part's rows start where the earlier parts' members of the row end. */
	uint32_t at = 0;
	for (size_t r = 0; r < ny; r++) {
		j->row_start[r] = at;
		for (size_t k = 0; k < parts; k++) {
			uint32_t c = g->row_fill[k * ny + r];
			g->row_fill[k * ny + r] = at;
			at += c;
		}
	}
	j->row_start[ny] = at;
	g->count = at;
	steer_pool_run(g->pool, scatter_rows, j, j->parts);
	steer_pool_run(g->pool, sort_rows, j, j->parts);
	g->start[g->cells] = at;
	return STEER_OK;
}

/* A few parts: each counts a range of the points per cell into its own cursors; a
 * prefix over (cell, part), in part order, gives each part its place in each cell,
 * so each cell holds its members in index order, as in the one-thread build. */
static uint32_t *cell_cursors(steer_grid *g, int part)
{
	return part == 0 ? g->fill : g->part_fill + (size_t)(part - 1) * g->cells;
}

static void count_cells(void *arg, int part)
{
	grid_job *j = arg;
	steer_grid *g = j->g;
	uint32_t *count = cell_cursors(g, part);
	memset(count, 0, g->cells * sizeof *count);
	count_points(g, j->px, j->py, j->flags, j->need, steer_part_from(j->n, part, j->parts),
	             steer_part_from(j->n, part + 1, j->parts), count, false);
}

static void place_cells(void *arg, int part)
{
	grid_job *j = arg;
	steer_grid *g = j->g;
	uint32_t *cursor = cell_cursors(g, part);
	size_t to = steer_part_from(j->n, part + 1, j->parts);
	for (size_t i = steer_part_from(j->n, part, j->parts); i < to; i++)
		if (g->cell[i] != UINT32_MAX)
			g->items[cursor[g->cell[i]]++] = (uint32_t)i;
}

/* The prefix over (cell, part) split by ranges of cells: each range's members
 * summed, then placed from where the ranges before it end. */
static void sum_cells(void *arg, int part)
{
	grid_job *j = arg;
	steer_grid *g = j->g;
	size_t cells = g->cells;
	size_t to = steer_part_from(cells, part + 1, j->parts);
	uint32_t sum = 0;
	for (int k = 0; k < j->parts; k++) {
		const uint32_t *count = cell_cursors(g, k);
		for (size_t c = steer_part_from(cells, part, j->parts); c < to; c++)
			sum += count[c];
	}
	j->cell_members[part] = sum;
}

static void start_cells(void *arg, int part)
{
	grid_job *j = arg;
	steer_grid *g = j->g;
	size_t cells = g->cells;
	size_t to = steer_part_from(cells, part + 1, j->parts);
	uint32_t *cursor[CELL_PARTS_MAX];
	for (int k = 0; k < j->parts; k++)
		cursor[k] = cell_cursors(g, k);
	uint32_t at = j->cell_members[part];
	for (size_t c = steer_part_from(cells, part, j->parts); c < to; c++) {
		g->start[c] = at;
		for (int k = 0; k < j->parts; k++) {
			uint32_t n = cursor[k][c];
			cursor[k][c] = at;
			at += n;
		}
	}
}

static steer_status build_by_cells(steer_grid *g, grid_job *j)
{
	size_t cells = g->cells;
	if (steer_reserve((void **)&g->part_fill, &g->part_fill_cap, (size_t)(j->parts - 1) * cells,
	                  sizeof *g->part_fill) != STEER_OK)
		return STEER_ERR_NOMEM;
	steer_pool_run(g->pool, count_cells, j, j->parts);
	steer_pool_run(g->pool, sum_cells, j, j->parts);
	uint32_t at = 0;
	for (int p = 0; p < j->parts; p++) {
		uint32_t n = j->cell_members[p];
		j->cell_members[p] = at;
		at += n;
	}
	steer_pool_run(g->pool, start_cells, j, j->parts);
	g->start[cells] = at;
	g->count = at;
	steer_pool_run(g->pool, place_cells, j, j->parts);
	return STEER_OK;
}

/* The one-thread build: a counting sort over the cells. */
static void build_serial(steer_grid *g, const double *px, const double *py, const uint32_t *flags,
                         uint32_t need, size_t n)
{
	size_t cells = g->cells;
	memset(g->fill, 0, cells * sizeof *g->fill);
	count_points(g, px, py, flags, need, 0, n, g->fill, false);
	uint32_t at = 0;
	for (size_t c = 0; c < cells; c++) {
		g->start[c] = at;
		uint32_t k = g->fill[c];
		g->fill[c] = at;
		at += k;
	}
	g->start[cells] = at;
	for (size_t i = 0; i < n; i++)
		if (g->cell[i] != UINT32_MAX)
			g->items[g->fill[g->cell[i]]++] = (uint32_t)i;
	g->count = at;
}

/* The window's tables (grid.h) for the columns and rows marked in used (nx, then
 * ny bytes). */
static steer_status reserve_tables(steer_grid *g)
{
	size_t nx = (size_t)g->nx, ny = (size_t)g->ny;
	if (steer_reserve((void **)&g->col_at, &g->col_at_cap, nx + 1, sizeof *g->col_at) !=
	        STEER_OK ||
	    steer_reserve((void **)&g->col_x, &g->col_x_cap, nx, sizeof *g->col_x) != STEER_OK ||
	    steer_reserve((void **)&g->row_y, &g->row_y_cap, ny, sizeof *g->row_y) != STEER_OK ||
	    steer_reserve((void **)&g->row_base, &g->row_base_cap, ny, sizeof *g->row_base) !=
	        STEER_OK)
		return STEER_ERR_NOMEM;
	return STEER_OK;
}

static void set_tables(steer_grid *g, const uint8_t *used)
{
	int wx = 0, wy = 0;
	for (int x = 0; x < g->nx; x++) {
		g->col_at[x] = (uint32_t)wx;
		if (used[x])
			g->col_x[wx++] = (uint32_t)x;
	}
	g->col_at[g->nx] = (uint32_t)wx;
	for (int y = 0; y < g->ny; y++)
		if (used[g->nx + y])
			g->row_y[wy++] = (uint32_t)y;
	g->wx = wx;
	g->wy = wy;
	g->cells = (size_t)wx * (size_t)wy;
	for (int y = 0, ly = 0; y < g->ny; y++)
		g->row_base[y] = used[g->nx + y] ? (size_t)ly++ * (size_t)wx : g->cells;
}

/* Every cell stored: local is global. */
static steer_status whole_window(steer_grid *g)
{
	size_t marks = (size_t)g->nx + (size_t)g->ny;
	if (reserve_tables(g) != STEER_OK ||
	    steer_reserve((void **)&g->used, &g->used_cap, marks, 1) != STEER_OK)
		return STEER_ERR_NOMEM;
	memset(g->used, 1, marks);
	set_tables(g, g->used);
	return STEER_OK;
}

static void find_part(void *arg, int part)
{
	grid_job *j = arg;
	steer_grid *g = j->g;
	size_t marks = (size_t)g->nx + (size_t)g->ny;
	uint8_t *used = g->used + (size_t)part * marks;
	memset(used, 0, marks);
	find_cells(g, j->px, j->py, j->flags, j->need, steer_part_from(j->n, part, j->parts),
	           steer_part_from(j->n, part + 1, j->parts), used);
}

/* A region's window: the columns and rows its points are in, each part marking its
 * own range, then all parts' marks merged into the first's. */
static steer_status find_window(steer_grid *g, grid_job *j)
{
	size_t marks = (size_t)g->nx + (size_t)g->ny;
	if (reserve_tables(g) != STEER_OK ||
	    steer_reserve((void **)&g->used, &g->used_cap, marks * (size_t)j->parts, 1) != STEER_OK)
		return STEER_ERR_NOMEM;
	steer_pool_run(g->pool, find_part, j, j->parts);
	for (int p = 1; p < j->parts; p++)
		for (size_t k = 0; k < marks; k++)
			g->used[k] |= g->used[(size_t)p * marks + k];
	if (!memchr(g->used, 1, (size_t)g->nx)) { /* nobody: one empty cell, as every grid has */
		g->used[0] = 1;
		g->used[g->nx] = 1;
	}
	set_tables(g, g->used);
	return STEER_OK;
}

void steer_grid_close(steer_grid *g)
{
	for (size_t k = 1; k <= (size_t)g->wx; k++)
		g->start[g->cells + k] = (uint32_t)g->count;
}

steer_status steer_grid_copy_cells(steer_grid *g, const steer_grid *src)
{
	g->nx = src->nx;
	g->ny = src->ny;
	g->cw = src->cw;
	g->ch = src->ch;
	g->wrap = src->wrap;
	g->reach_x = src->reach_x;
	if (reserve_tables(g) != STEER_OK ||
	    steer_reserve((void **)&g->start, &g->start_cap, src->cells + (size_t)src->wx + 1,
	                  sizeof *g->start) != STEER_OK)
		return STEER_ERR_NOMEM;
	g->wx = src->wx;
	g->wy = src->wy;
	g->cells = src->cells;
	size_t nx = (size_t)g->nx, ny = (size_t)g->ny;
	memcpy(g->col_at, src->col_at, (nx + 1) * sizeof *g->col_at);
	memcpy(g->col_x, src->col_x, (size_t)g->wx * sizeof *g->col_x);
	memcpy(g->row_y, src->row_y, (size_t)g->wy * sizeof *g->row_y);
	memcpy(g->row_base, src->row_base, ny * sizeof *g->row_base);
	return STEER_OK;
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
	double max_cells = 64.0 + 4.0 * (double)(g->cap_members ? g->cap_members : n);
	/* A tiny min_cell (a subnormal sight) makes the quotients infinite, which halving
	 * never brings down: they start from the cap instead. */
	double nxf = fmin(max_cells, fmax(1.0, floor(width * (double)g->reach_x / min_cell)));
	double nyf = fmin(max_cells, fmax(1.0, floor(height / min_cell)));
	while (nxf * nyf > max_cells) {
		nxf = fmax(1.0, floor(nxf / 2));
		nyf = fmax(1.0, floor(nyf / 2));
	}
	g->nx = (int)nxf;
	g->ny = (int)nyf;
	g->cw = width / nxf;
	g->ch = height / nyf;
	g->wrap = wrap;
	if (steer_reserve((void **)&g->items, &g->items_cap, n, sizeof *g->items) != STEER_OK ||
	    steer_reserve((void **)&g->cell, &g->cell_cap, n, sizeof *g->cell) != STEER_OK)
		return STEER_ERR_NOMEM;

	int parts = steer_pool_threads(g->pool);
	if (n < PARALLEL_MIN_POINTS)
		parts = 1;
	grid_job j = {
	    .g = g, .px = px, .py = py, .flags = flags, .need = need, .n = n, .parts = parts};
	steer_status st = windowed(g) ? find_window(g, &j) : whole_window(g);
	if (st != STEER_OK ||
	    steer_reserve((void **)&g->start, &g->start_cap, g->cells + (size_t)g->wx + 1,
	                  sizeof *g->start) != STEER_OK ||
	    steer_reserve((void **)&g->fill, &g->fill_cap, g->cells, sizeof *g->fill) != STEER_OK)
		return STEER_ERR_NOMEM;

	/* Counting sort: count per cell, prefix-sum, then scatter. Members keep their
	 * index order within a cell, so the result depends only on the input. */
	if (parts > 1)
		st = parts <= CELL_PARTS_MAX ? build_by_cells(g, &j) : build_by_rows(g, &j);
	else
		build_serial(g, px, py, flags, need, n);
	if (st == STEER_OK)
		steer_grid_close(g);
	return st;
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
			int cx = steer_grid_axis_cell(&sx, kx);
			steer_grid_run run = steer_grid_row_run(g, cy, cx, cx);
			for (uint32_t k = run.from; k < run.to; k++) {
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

/* Within each cell [from, to), members in id order. One insertion sort over the
 * cells' members that never moves a member past the start of its cell: members
 * come in storage order, the grid order of the last re-sort but for the vehicles
 * that have changed cell since, so most cells are in order already, and a pass over
 * the members costs less than a loop of a handful of steps per cell. Returns how
 * many places members moved. */
size_t steer_grid_sort_by_id(steer_grid *g, const uint32_t *id, size_t from, size_t to)
{
	const uint32_t *cell = g->cell;
	uint32_t *it = g->items;
	uint32_t a = g->start[from], end = g->start[to];
	size_t moved = 0;
	if (a >= end)
		return 0;
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
		moved += a - b;
	}
	return moved;
}

/* How crowded the grid's cells are: the sum of their squared member counts. */
double steer_grid_crowding(const steer_grid *g)
{
	size_t cells = g->cells;
	/* In whole numbers, exactly (as the doubles summed before were, below 2^53). */
	uint64_t sum = 0;
	for (size_t c = 0; c < cells; c++) {
		uint64_t k = g->start[c + 1] - g->start[c];
		sum += k * k;
	}
	return (double)sum;
}
