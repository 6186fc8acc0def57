/* A uniform grid over the world bounds, rebuilt each tick by counting sort, for
 * neighbour queries in O(neighbours) instead of O(N). Positions outside the bounds
 * (edges "none") are clamped into the border cells: queries stay exact, only slower
 * for vehicles far outside.
 *
 * Cells have two numbers. A cell's global column and row (x, y) place it in the
 * whole world's nx by ny cells, as one process of the whole world has them. Its
 * local number c indexes what is stored: the cells of the columns and rows that hold
 * a member (the window), row by row, in the whole grid's order. A grid over one
 * whole world stores every cell (local is global); a region of a bigger world
 * (cap_members set) stores only its own neighbourhood's, so its memory and passes
 * over cells follow the region, not the world. Cells outside the window hold nobody
 * and read as empty, so queries give what the whole grid would. */
#ifndef STEER_GRID_H
#define STEER_GRID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct steer_pool steer_pool; /* private/pool.h: the tick's threads */
#include "steer/status.h"

typedef struct steer_grid {
	int nx, ny;    /* the whole world's columns and rows */
	double cw, ch; /* cell size; cw * nx == width, ch * ny == height */
	bool wrap;
	/* The window: wx stored columns by wy stored rows, cells of them in all. */
	int wx, wy;
	size_t cells;
	uint32_t *col_at; /* nx + 1: how many stored columns lie before global column x */
	uint32_t *col_x;  /* wx: each stored column's global column */
	uint32_t *row_y;  /* wy: each stored row's global row */
	size_t *row_base; /* ny: the local number of row y's first stored cell; for a
	                   * row not stored, cells, where start holds an empty row */
	uint8_t *used;    /* scratch: the columns then rows each part's members are in */
	uint32_t *start;  /* cells + wx + 1 offsets into items (the last wx + 1: count) */
	uint32_t *items;  /* member indices, grouped by cell */
	uint32_t *cell;   /* scratch: each member's local cell (a window's build: its
	                   * global column first) */
	uint32_t *fill;   /* scratch: write cursor per cell */
	/* Scratch for a build on several threads (see steer_grid_build): a cursor per
	 * cell for each part but the first; or the members by row, each part's cursor
	 * per row (then the rows' starts), and each part's cursor per column. */
	uint32_t *part_fill, *by_row, *row_fill, *col_fill;
	size_t start_cap, fill_cap, items_cap, cell_cap, part_fill_cap, by_row_cap, row_fill_cap,
	    col_fill_cap, col_at_cap, col_x_cap, row_y_cap, row_base_cap, used_cap;
	size_t count; /* members */
	/* The threads a big build is split over; NULL: this one alone. The grid is the
	 * same either way. Set by the owner; steer_grid_init gives NULL. */
	steer_pool *pool;
	/* Columns a query of radius min_cell reaches either side of its own: cells are a
	 * little more than min_cell / reach_x wide (and min_cell tall). Narrower columns
	 * fit a query's disc more closely. Set by the owner; steer_grid_init gives 1. */
	int reach_x;
	/* The member count the cells are capped by, when not the build's own n: a
	 * region of a bigger world builds the whole world's grid, so that its members
	 * meet their neighbours in the same cells, and stores only its window. Set by
	 * the owner; 0: n, and every cell stored. */
	size_t cap_members;
	/* The kernel form (kernel.h) that finds the points' cells, in lanes. Set by the
	 * owner; steer_grid_init gives the best this CPU runs. */
	const struct steer_kernel *kernel;
} steer_grid;

void steer_grid_init(steer_grid *g);
void steer_grid_free(steer_grid *g);

/* How crowded the grid's cells are: the sum of their squared member counts (a
 * member's cell holds that over count members on average, itself included). */
double steer_grid_crowding(const steer_grid *g);

/* Indexes the points i in [0, n) with (flags[i] & need) == need (flags may be NULL to
 * take every point). Cells are a little more than min_cell tall and min_cell /
 * reach_x wide, so any query of radius <= min_cell touches at most 3 rows of
 * 2 reach_x + 1 cells, with room to spare for rounding. STEER_OK, or NOMEM when
 * memory runs out. */
steer_status steer_grid_build(steer_grid *g, double width, double height, bool wrap,
                              double min_cell, size_t n, const double *px, const double *py,
                              const uint32_t *flags, uint32_t need);

/* Gives g the cells of src (size, window and tables) with no members in them:
 * start has room for them and their empty row. The caller fills start[0 .. cells]
 * and count, then calls steer_grid_close. STEER_OK, or NOMEM. */
steer_status steer_grid_copy_cells(steer_grid *g, const steer_grid *src);

/* Ends a grid's start with the empty row that rows outside the window read. */
void steer_grid_close(steer_grid *g);

/* Within each local cell [from, to), members in the order of their ids (id indexed by
 * member), so that results depend on where points are and who they are, not on
 * how storage came to be ordered. The cell of each member is the build's. Returns
 * how many places members moved, the sort's cost. */
size_t steer_grid_sort_by_id(steer_grid *g, const uint32_t *id, size_t from, size_t to);

/* The first k in [0, n) with start[k] >= want, or n when there is none; start
 * ascends (cell or row starts). */
static inline size_t steer_first_at_least(const uint32_t *start, size_t n, size_t want)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (start[mid] < want)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The local cell holding grid position i (i < g->count): the first whose end
 * passes i. */
static inline size_t steer_grid_cell_at(const steer_grid *g, size_t i)
{
	return steer_first_at_least(g->start + 1, g->cells, i + 1);
}

/* A local cell's global column and row, and its number in the whole grid. */
static inline int steer_grid_cell_x(const steer_grid *g, size_t c)
{
	return (int)g->col_x[c % (size_t)g->wx];
}

static inline int steer_grid_cell_y(const steer_grid *g, size_t c)
{
	return (int)g->row_y[c / (size_t)g->wx];
}

static inline size_t steer_grid_global_cell(const steer_grid *g, size_t c)
{
	return (size_t)steer_grid_cell_y(g, c) * (size_t)g->nx + (size_t)steer_grid_cell_x(g, c);
}

/* The members of global columns x0 .. x1 of global row y (0 <= x0 <= x1 + 1 <= nx),
 * consecutive in grid order: positions [from, to). Only stored cells hold any. */
typedef struct steer_grid_run {
	uint32_t from, to;
} steer_grid_run;

static inline steer_grid_run steer_grid_row_run(const steer_grid *g, int y, int x0, int x1)
{
	const uint32_t *s = g->start + g->row_base[y];
	steer_grid_run r = {s[g->col_at[x0]], s[g->col_at[x1 + 1]]};
	return r;
}

/* The first cell of part `part` of `parts` splitting the grid by members: where
 * part / parts of the members have gone by; every cell for part == parts. Whole
 * cells to each part, so a phase over cells gives the same result for any split. The
 * members are cut as steer_part_from (private/pool.h) cuts n. */
static inline size_t steer_grid_part_cell(const steer_grid *g, int part, int parts)
{
	if (part == parts)
		return g->cells;
	return part == 0 ? 0
	                 : steer_first_at_least(
	                       g->start, g->cells,
	                       (size_t)((uint64_t)g->count * (uint64_t)part / (uint64_t)parts));
}

/* floor(t) clamped to [lo, hi], without a libm call or an overflowing conversion
 * (NaN gives lo). These run several times per vehicle per tick. */
static inline int steer_floor_clamp(double t, int lo, int hi)
{
	if (!(t >= lo))
		return lo;
	if (t >= hi)
		return hi;
	int k = (int)t; /* t >= lo >= -1 here: truncation is floor but for (-1, 0) */
	return k > t ? k - 1 : k;
}

/* The short way round a wrapping axis of the given size: d in [-size/2, size/2]
 * when |d| <= 1.5 size, as every difference of two positions inside the world is. */
static inline double steer_wrap_axis(double d, double size)
{
	if (d > size * 0.5)
		return d - size;
	if (d < -size * 0.5)
		return d + size;
	return d;
}

/* The cell along one axis (n cells of size cell) that holds coordinate v, clamped to
 * the grid: the same rule the build uses. */
static inline int steer_grid_axis_index(double v, double cell, int n)
{
	return steer_floor_clamp(v / cell, 0, n - 1);
}

/* The cells covering [lo, hi] on one axis, each at most once: iterate k from first to
 * last and take steer_grid_axis_cell(). */
typedef struct steer_grid_span {
	int first, last, n;
	bool wrap;
} steer_grid_span;

static inline steer_grid_span steer_grid_span_axis(int n, double cell, bool wrap, double lo,
                                                   double hi)
{
	steer_grid_span s = {0, n - 1, n, wrap};
	if (wrap) {
		/* Beyond one world size either way the span covers the whole axis anyway. */
		int a = steer_floor_clamp(lo / cell, -n - 1, 2 * n + 1);
		int b = steer_floor_clamp(hi / cell, -n - 1, 2 * n + 1);
		if (b - a + 1 >= n)
			return s; /* the whole axis, each cell once */
		s.first = a;
		s.last = b;
		return s;
	}
	s.first = steer_grid_axis_index(lo, cell, n);
	s.last = steer_grid_axis_index(hi, cell, n);
	return s;
}

static inline steer_grid_span steer_grid_span_x(const steer_grid *g, double lo, double hi)
{
	return steer_grid_span_axis(g->nx, g->cw, g->wrap, lo, hi);
}

static inline steer_grid_span steer_grid_span_y(const steer_grid *g, double lo, double hi)
{
	return steer_grid_span_axis(g->ny, g->ch, g->wrap, lo, hi);
}

static inline int steer_grid_axis_cell(const steer_grid_span *s, int k)
{
	if (!s->wrap)
		return k;
	/* Spans reach at most a cell or two past either end: no division needed. */
	while (k < 0)
		k += s->n;
	while (k >= s->n)
		k -= s->n;
	return k;
}

/* Every indexed point within r of (x, y) (short way round when wrapping), written to
 * out (at most cap); returns how many there are in all. For tests and viewports:
 * the flocking loop walks the cells itself. */
size_t steer_grid_query(const steer_grid *g, const double *px, const double *py, double width,
                        double height, double x, double y, double r, uint32_t *out, size_t cap);

#endif
