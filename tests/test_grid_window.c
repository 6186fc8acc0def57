/* A region's grid stores only its window, the columns and rows its members are in
 * (grid.h), yet reads as the whole world's grid: the same members in the same
 * order, every cell's run the same, empty cells outside the window, the same query
 * results, and the same for any thread count. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "grid.h"
#include "pool.h"
#include "steer/rng.h"
#include "steer/world.h"

enum { N = 20000 };

static double px[N], py[N];
static uint32_t flags[N], ids[N];

/* n points in a box of the world (w by h of W by H from x0, y0, wrapped round when
 * the world wraps, so that a box may straddle a seam), some just outside it, some
 * not indexed. Without wrap, some lie beyond the bounds (edges "none"). */
static void region_points(steer_rng *rng, size_t n, double W, double H, bool wrap)
{
	double w = steer_rng_range(rng, 0.05, 0.5) * W, h = steer_rng_range(rng, 0.05, 0.5) * H;
	double x0 = steer_rng_range(rng, wrap ? 0 : -0.2 * W, W);
	double y0 = steer_rng_range(rng, wrap ? 0 : -0.2 * H, H);
	for (size_t i = 0; i < n; i++) {
		double x = x0 + steer_rng_range(rng, 0, w), y = y0 + steer_rng_range(rng, 0, h);
		if (wrap) {
			x = x >= W ? x - W : x;
			y = y >= H ? y - H : y;
		}
		px[i] = x;
		py[i] = y;
		flags[i] = steer_rng_u32(rng) % 7 ? STEER_FLOCK : STEER_SEEK;
		ids[i] = steer_rng_u32(rng);
	}
}

static steer_status build(steer_grid *g, double W, double H, bool wrap, double cell, size_t n)
{
	return steer_grid_build(g, W, H, wrap, cell, n, px, py, flags, STEER_FLOCK);
}

/* Whether a run holds the whole grid's members [from, to): the same positions,
 * or none where it holds none (an empty run may start anywhere). */
static bool same_run(steer_grid_run r, uint32_t from, uint32_t to)
{
	return r.to - r.from == to - from && (from == to || r.from == from);
}

/* Every global cell, and runs of several, read the same from both grids. */
static int runs_differ(const steer_grid *win, const steer_grid *whole, steer_rng *rng)
{
	int bad = 0;
	for (int y = 0; y < whole->ny; y++) {
		for (int x = 0; x < whole->nx; x++) {
			size_t c = (size_t)y * (size_t)whole->nx + (size_t)x;
			bad += !same_run(steer_grid_row_run(win, y, x, x), whole->start[c],
			                 whole->start[c + 1]);
		}
		int a = (int)(steer_rng_u32(rng) % (uint32_t)whole->nx);
		int b = a + (int)(steer_rng_u32(rng) % (uint32_t)(whole->nx - a));
		size_t row = (size_t)y * (size_t)whole->nx;
		bad += !same_run(steer_grid_row_run(win, y, a, b), whole->start[row + (size_t)a],
		                 whole->start[row + (size_t)b + 1]);
	}
	return bad;
}

/* Each stored cell's global place holds the same members in the whole grid. */
static int locals_differ(const steer_grid *win, const steer_grid *whole)
{
	int bad = 0;
	for (size_t c = 0; c < win->cells; c++) {
		size_t gc = steer_grid_global_cell(win, c);
		bad +=
		    win->start[c] != whole->start[gc] || win->start[c + 1] != whole->start[gc + 1];
	}
	return bad;
}

static int queries_differ(const steer_grid *win, const steer_grid *whole, steer_rng *rng, double W,
                          double H, double cell)
{
	static uint32_t a[N], b[N];
	int bad = 0;
	for (int q = 0; q < 50; q++) {
		/* Anywhere, inside the window or not; half near a member. */
		double x = steer_rng_range(rng, 0, W), y = steer_rng_range(rng, 0, H);
		if (q % 2) {
			size_t i = steer_rng_u32(rng) % N;
			x = px[i];
			y = py[i];
		}
		double r = steer_rng_range(rng, 0, 2 * cell);
		size_t na = steer_grid_query(win, px, py, W, H, x, y, r, a, N);
		size_t nb = steer_grid_query(whole, px, py, W, H, x, y, r, b, N);
		bad += na != nb || memcmp(a, b, (na < N ? na : N) * sizeof *a) != 0;
	}
	return bad;
}

static void window_reads_as_whole(void)
{
	steer_rng rng;
	steer_rng_seed(&rng, 37, 5);
	steer_grid win, whole;
	steer_grid_init(&win);
	steer_grid_init(&whole);
	int bad_items = 0, bad_runs = 0, bad_locals = 0, bad_queries = 0, bad_sorted = 0;
	size_t stored = 0, all = 0;
	for (int round = 0; round < 60; round++) {
		bool wrap = round % 3 != 2;
		double W = steer_rng_range(&rng, 200, 5000), H = steer_rng_range(&rng, 200, 5000);
		double cell = steer_rng_range(&rng, 5, 200);
		size_t n = 1 + steer_rng_u32(&rng) % 3000;
		region_points(&rng, n, W, H, wrap);
		win.cap_members = n; /* a region: the same cells as the whole, stored in part */
		win.reach_x = whole.reach_x = 1 + round % 3;
		if (build(&win, W, H, wrap, cell, n) != STEER_OK ||
		    build(&whole, W, H, wrap, cell, n) != STEER_OK) {
			CHECK(0, "grid build failed");
			break;
		}
		CHECK(win.nx == whole.nx && win.ny == whole.ny && win.count == whole.count &&
		          whole.cells == (size_t)whole.nx * (size_t)whole.ny,
		      "round %d: %dx%d cells, %zu members against %dx%d, %zu", round, win.nx,
		      win.ny, win.count, whole.nx, whole.ny, whole.count);
		bad_items += memcmp(win.items, whole.items, win.count * sizeof *win.items) != 0;
		bad_runs += runs_differ(&win, &whole, &rng);
		bad_locals += locals_differ(&win, &whole);
		bad_queries += queries_differ(&win, &whole, &rng, W, H, cell);
		(void)steer_grid_sort_by_id(&win, ids, 0, win.cells);
		(void)steer_grid_sort_by_id(&whole, ids, 0, whole.cells);
		bad_sorted += memcmp(win.items, whole.items, win.count * sizeof *win.items) != 0;
		stored += win.cells;
		all += whole.cells;
	}
	CHECK(bad_items == 0, "%d rounds filed members in another order", bad_items);
	CHECK(bad_runs == 0, "%d runs read otherwise than the whole grid's", bad_runs);
	CHECK(bad_locals == 0, "%d stored cells differ from their global ones", bad_locals);
	CHECK(bad_queries == 0, "%d queries found others", bad_queries);
	CHECK(bad_sorted == 0, "%d rounds sorted by id otherwise", bad_sorted);
	/* Boxes of 5% to 50% of each side: a quarter of the cells at most, on average
	 * about a tenth (plus the rows and columns of the points beyond a seam). */
	CHECK(stored * 4 < all, "the windows stored %zu of %zu cells", stored, all);
	steer_grid_free(&win);
	steer_grid_free(&whole);
}

/* A region by a wrap seam: its members lie at both ends of each axis, and the window
 * is those two ends, not the whole axis between. */
static void window_across_seams(void)
{
	size_t n = 0;
	for (int i = 0; i < 40; i++)
		for (int k = 0; k < 40; k++, n++) {
			/* 1000 x 1000, the box [-100, 100) in both axes, wrapped. */
			double x = -100 + 5.0 * i + 2.5, y = -100 + 5.0 * k + 2.5;
			px[n] = x < 0 ? x + 1000 : x;
			py[n] = y < 0 ? y + 1000 : y;
			flags[n] = STEER_FLOCK;
		}
	steer_grid win;
	steer_grid_init(&win);
	win.cap_members = 250000; /* cells of a world of 250,000: 10 x 10 wide */
	CHECK(build(&win, 1000, 1000, true, 10, n) == STEER_OK, "grid build failed");
	CHECK(win.nx == 99 && win.ny == 99, "%d x %d cells", win.nx, win.ny);
	CHECK(win.wx == 20 && win.wy == 20, "a window of %d x %d", win.wx, win.wy);
	CHECK(win.col_x[0] == 0 && win.col_x[win.wx - 1] == 98 && win.row_y[9] == 9 &&
	          win.row_y[10] == 89,
	      "the window's columns %u .. %u, rows %u, %u", win.col_x[0], win.col_x[win.wx - 1],
	      win.row_y[9], win.row_y[10]);
	/* A row outside holds nobody, whichever columns are asked. */
	steer_grid_run r = steer_grid_row_run(&win, 50, 0, win.nx - 1);
	CHECK(r.from == r.to, "row 50 holds %u members", r.to - r.from);
	uint32_t got[16];
	CHECK(steer_grid_query(&win, px, py, 1000, 1000, 0, 0, 4, got, 16) == 4,
	      "the seam's corner holds 4 members");
	steer_grid_free(&win);
}

/* A window's build over several threads (by cells up to four parts, by rows past)
 * gives the one-thread grid. */
static void window_same_for_any_threads(void)
{
	steer_rng rng;
	steer_rng_seed(&rng, 38, 5);
	region_points(&rng, N, 9000, 7000, true);
	static const int counts[] = {1, 2, 3, 4, 5, 7, 16};
	enum { COUNTS = sizeof counts / sizeof *counts };
	steer_grid g[COUNTS];
	for (int t = 0; t < COUNTS; t++) {
		steer_grid_init(&g[t]);
		g[t].pool = counts[t] > 1 ? steer_pool_create(counts[t]) : NULL;
		g[t].cap_members = 4 * N;
		CHECK(build(&g[t], 9000, 7000, true, 40, N) == STEER_OK, "grid build failed");
	}
	CHECK(g[0].cells < (size_t)g[0].nx * (size_t)g[0].ny / 2, "%zu of %d x %d cells stored",
	      g[0].cells, g[0].nx, g[0].ny);
	for (int t = 1; t < COUNTS; t++) {
		CHECK(g[t].count == g[0].count && g[t].cells == g[0].cells && g[t].wx == g[0].wx &&
		          g[t].wy == g[0].wy,
		      "%d threads: %zu members in %zu cells against %zu in %zu", counts[t],
		      g[t].count, g[t].cells, g[0].count, g[0].cells);
		CHECK(!memcmp(g[0].start, g[t].start,
		              (g[0].cells + (size_t)g[0].wx + 1) * sizeof *g[0].start),
		      "%d threads: cell starts differ", counts[t]);
		CHECK(!memcmp(g[0].items, g[t].items, g[0].count * sizeof *g[0].items),
		      "%d threads: members differ", counts[t]);
		CHECK(
		    !memcmp(g[0].row_base, g[t].row_base, (size_t)g[0].ny * sizeof *g[0].row_base),
		    "%d threads: windows differ", counts[t]);
	}
	for (int t = 0; t < COUNTS; t++) {
		steer_pool_destroy(g[t].pool);
		steer_grid_free(&g[t]);
	}
}

int main(void)
{
	RUN(window_reads_as_whole);
	RUN(window_across_seams);
	RUN(window_same_for_any_threads);
	return CHECK_DONE();
}
