/* The crowd benchmark's workload as pure functions of (seed, N), so that
 * `steer-bench --crowd N` and a driver of another library (the RVO2 comparison in
 * docs/PERFORMANCE.md includes this header) build the same world: the same size, the
 * same obstacles and walls, the same starts and the same sequence of goals for each
 * agent. Plain C that also compiles as C++.
 *
 * The world is a square of the flock's density (about `neighbours` others within 100
 * of each agent, as steer-bench's flock). It is cut into cells of CROWD_CELL; each
 * cell holds one shape near its centre, alternately a circle and a wall segment, and
 * nothing within CROWD_CELL / 2 - CROWD_SHAPE_REACH of its border, so whether a point
 * is clear of every shape is one look at its own cell. */
#ifndef STEER_CROWD_LAYOUT_H
#define STEER_CROWD_LAYOUT_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#define CROWD_CELL        400.0
#define CROWD_SIGHT       100.0 /* the flock's sight_distance, for the density */
#define CROWD_WALL_HALF   75.0
#define CROWD_JITTER      50.0
#define CROWD_R_MIN       20.0
#define CROWD_R_MAX       40.0
#define CROWD_SHAPE_REACH 90.0 /* JITTER + the larger of R_MAX and WALL_HALF */
#define CROWD_PI          3.14159265358979323846

typedef struct crowd_layout {
	uint64_t seed;
	long n;
	double side;  /* the world is [0, side] x [0, side] */
	long cells;   /* per side; the shapes' cells cover [0, cells * CROWD_CELL] */
	double clear; /* the agents' radius: how far a start or goal keeps from a shape */
} crowd_layout;

typedef struct crowd_shape {
	int wall;         /* 0: a circle at (x1, y1) of radius r; 1: a segment */
	double x1, y1, r; /* the circle, or the segment's first end */
	double x2, y2;    /* the segment's second end */
} crowd_shape;

static inline uint64_t crowd_mix(uint64_t x)
{
	/* splitmix64's finaliser */
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* Uniform in [0, 1), a pure function of (seed, a, b). */
static inline double crowd_unit(uint64_t seed, uint64_t a, uint64_t b)
{
	uint64_t h = crowd_mix(seed ^ crowd_mix(a * 0x9e3779b97f4a7c15ull + b + 1));
	return (double)(h >> 11) * (1.0 / 9007199254740992.0);
}

static inline crowd_layout crowd_layout_make(long n, double neighbours, double clear, uint64_t seed)
{
	crowd_layout L;
	L.seed = seed;
	L.n = n;
	L.side = sqrt((double)n * CROWD_PI * CROWD_SIGHT * CROWD_SIGHT / neighbours);
	L.cells = (long)(L.side / CROWD_CELL);
	L.clear = clear;
	return L;
}

static inline long crowd_shape_count(const crowd_layout *L)
{
	return L->cells * L->cells;
}

/* Shape k (0 <= k < crowd_shape_count), in cell (k % cells, k / cells). */
static inline crowd_shape crowd_shape_at(const crowd_layout *L, long k)
{
	long i = k % L->cells, j = k / L->cells;
	uint64_t key = (uint64_t)k | (1ull << 62); /* apart from the agents' keys */
	double cx = (i + 0.5) * CROWD_CELL + (crowd_unit(L->seed, key, 0) - 0.5) * 2 * CROWD_JITTER;
	double cy = (j + 0.5) * CROWD_CELL + (crowd_unit(L->seed, key, 1) - 0.5) * 2 * CROWD_JITTER;
	crowd_shape s;
	s.wall = (int)((i + j) & 1);
	s.x1 = cx;
	s.y1 = cy;
	s.x2 = cx;
	s.y2 = cy;
	s.r = CROWD_R_MIN + crowd_unit(L->seed, key, 2) * (CROWD_R_MAX - CROWD_R_MIN);
	if (s.wall) {
		double a = crowd_unit(L->seed, key, 3) * CROWD_PI;
		s.x1 = cx - cos(a) * CROWD_WALL_HALF;
		s.y1 = cy - sin(a) * CROWD_WALL_HALF;
		s.x2 = cx + cos(a) * CROWD_WALL_HALF;
		s.y2 = cy + sin(a) * CROWD_WALL_HALF;
		s.r = 0;
	}
	return s;
}

/* Distance from (x, y) to the shape's boundary side: to the segment, or to the
 * circle's rim (negative inside). */
static inline double crowd_shape_distance(const crowd_shape *s, double x, double y)
{
	double dx = s->x2 - s->x1, dy = s->y2 - s->y1;
	double len2 = dx * dx + dy * dy;
	double t = len2 > 0 ? ((x - s->x1) * dx + (y - s->y1) * dy) / len2 : 0;
	t = t < 0 ? 0 : t > 1 ? 1 : t;
	double ex = x - (s->x1 + t * dx), ey = y - (s->y1 + t * dy);
	return sqrt(ex * ex + ey * ey) - s->r;
}

/* Whether a disc of radius L->clear at (x, y) keeps clear of every shape. */
static inline int crowd_point_free(const crowd_layout *L, double x, double y)
{
	long i = (long)(x / CROWD_CELL), j = (long)(y / CROWD_CELL);
	if (i < 0 || j < 0 || i >= L->cells || j >= L->cells)
		return 1;
	crowd_shape s = crowd_shape_at(L, j * L->cells + i);
	return crowd_shape_distance(&s, x, y) > L->clear;
}

/* Agent a's k-th point: its start for k = 0, its k-th goal after. Drawn uniformly
 * over the world until clear of the shapes (a few draws at most: the shapes cover a
 * few percent of it); a cell's corner, always clear, if 64 draws were not. */
static inline void crowd_point(const crowd_layout *L, long a, long k, double *x, double *y)
{
	double margin = L->clear;
	for (long t = 0; t < 64; t++) {
		uint64_t b = ((uint64_t)k << 8 | (uint64_t)t) << 1;
		*x = margin + crowd_unit(L->seed, (uint64_t)a, b) * (L->side - 2 * margin);
		*y = margin + crowd_unit(L->seed, (uint64_t)a, b | 1) * (L->side - 2 * margin);
		if (crowd_point_free(L, *x, *y))
			return;
	}
	*x = floor(*x / CROWD_CELL) * CROWD_CELL;
	*y = floor(*y / CROWD_CELL) * CROWD_CELL;
}

/* Pairs of the n discs of radius r at (x[i], y[i]) that overlap by more than 1% of r
 * (the solid rule's tolerance), through a grid of cells of 2r over [0, side]^2 (points
 * outside are clamped into it); -1 when memory runs out. *deepest (when not NULL)
 * gets the deepest overlap of any pair, 0 for none. Not timed: a check that a run
 * kept its bodies apart, the same for both systems. */
static inline long crowd_overlaps(const double *x, const double *y, long n, double r, double side,
                                  double *deepest)
{
	double cell = 2 * r > 0 ? 2 * r : 1;
	long m = (long)(side / cell) + 1, pairs = 0;
	long *start = (long *)calloc((size_t)(m * m + 1), sizeof(long));
	long *order = (long *)malloc((size_t)(n > 0 ? n : 1) * sizeof(long));
	long *at = (long *)malloc((size_t)(n > 0 ? n : 1) * sizeof(long));
	if (!start || !order || !at) {
		free(start), free(order), free(at);
		return -1;
	}
	for (long i = 0; i < n; i++) {
		long cx = (long)(x[i] / cell), cy = (long)(y[i] / cell);
		cx = cx < 0 ? 0 : cx >= m ? m - 1 : cx;
		cy = cy < 0 ? 0 : cy >= m ? m - 1 : cy;
		at[i] = cy * m + cx;
		start[at[i] + 1]++;
	}
	for (long c = 0; c < m * m; c++)
		start[c + 1] += start[c];
	for (long i = 0; i < n; i++)
		order[start[at[i]]++] = i;
	for (long c = m * m; c > 0; c--) /* back to each cell's first */
		start[c] = start[c - 1];
	start[0] = 0;
	double limit = (2 * r - 0.01 * r) * (2 * r - 0.01 * r), least = 4 * r * r;
	for (long i = 0; i < n; i++) {
		long cx = at[i] % m, cy = at[i] / m;
		for (long yy = cy - 1; yy <= cy + 1; yy++)
			for (long xx = cx - 1; xx <= cx + 1; xx++) {
				if (xx < 0 || yy < 0 || xx >= m || yy >= m)
					continue;
				for (long q = start[yy * m + xx]; q < start[yy * m + xx + 1]; q++) {
					long j = order[q];
					double dx = x[j] - x[i], dy = y[j] - y[i];
					double d2 = dx * dx + dy * dy;
					pairs += j > i && d2 < limit;
					least = j > i && d2 < least ? d2 : least;
				}
			}
	}
	free(start), free(order), free(at);
	if (deepest)
		*deepest = 2 * r - sqrt(least);
	return pairs;
}

/* Agents whose disc of radius r reaches into a shape by more than 1% of r. */
static inline long crowd_inside_shapes(const crowd_layout *L, const double *x, const double *y,
                                       long n, double r)
{
	long inside = 0;
	for (long i = 0; i < n; i++) {
		long cx = (long)(x[i] / CROWD_CELL), cy = (long)(y[i] / CROWD_CELL);
		if (cx < 0 || cy < 0 || cx >= L->cells || cy >= L->cells)
			continue;
		crowd_shape s = crowd_shape_at(L, cy * L->cells + cx);
		inside += crowd_shape_distance(&s, x[i], y[i]) < r - 0.01 * r;
	}
	return inside;
}

#endif
