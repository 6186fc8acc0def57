/* What the obstacle index's files share: geometry.c (the segments and the world's
 * geometry state), geometry_index.c (the grid over segments, regions and circles) and
 * geometry_query.c (queries, regions, blocked and free points). Private to the core. */
#ifndef STEER_GEOMETRY_INTERNAL_H
#define STEER_GEOMETRY_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "geometry.h"
#include "world_internal.h"

/* Where in its cell the point stands whose side of each polygon the grid records: off
 * the centre, so that geometry drawn on round numbers rarely passes through it. */
#define REF_FX 0.4142135623730951
#define REF_FY 0.5773502691896258
/* How far, in cells, every span reaches past its interval: further than rounding in
 * the cell arithmetic (or between a point and its image round a wrap world) can
 * carry a point, so that a span never leaves out a cell its interval touches. */
#define SPAN_HAIR 1e-9

typedef struct cell_span {
	uint32_t x0, nx, y0, ny;
} cell_span;

/* Small helpers every part of the index calls in its inner loops: inline, as they
 * were when the index was one file. */

/* --- small helpers ------------------------------------------------------------ */

static inline bool steer_geom_is_wrap(const steer_world *w)
{
	return w->cfg.edges == STEER_EDGE_WRAP;
}

/* The short way round along one axis for any difference, however many worlds apart
 * (a wall may be drawn far outside): the cheap form for the usual case. */
static inline double steer_geom_wrap_any(double d, double size)
{
	return fabs(d) <= 1.5 * size ? steer_wrap_axis(d, size) : remainder(d, size);
}

static inline steer_vec2 steer_geom_wrap_delta(const steer_world *w, steer_vec2 d)
{
	if (steer_geom_is_wrap(w)) {
		d.x = steer_geom_wrap_any(d.x, w->cfg.width);
		d.y = steer_geom_wrap_any(d.y, w->cfg.height);
	}
	return d;
}

static inline double steer_geom_orient(steer_vec2 a, steer_vec2 b, steer_vec2 c)
{
	return v2_cross(v2_sub(b, a), v2_sub(c, a));
}

/* Squared distance from the segment a-b to the box [-hx, hx] x [-hy, hy]: 0 when they
 * meet. Between a segment and a box apart, the nearest pair has an end of the segment
 * or a corner of the box. */
static inline double steer_geom_seg_box_dist2(steer_vec2 a, steer_vec2 b, double hx, double hy)
{
	/* Liang-Barsky clip: does any part of the segment lie in the box? */
	double t0 = 0.0, t1 = 1.0;
	steer_vec2 d = v2_sub(b, a);
	double pv[4] = {-d.x, d.x, -d.y, d.y};
	double qv[4] = {a.x + hx, hx - a.x, a.y + hy, hy - a.y};
	bool in = true;
	for (int k = 0; k < 4 && in; k++) {
		if (pv[k] == 0.0) {
			in = qv[k] >= 0.0;
			continue;
		}
		double u = qv[k] / pv[k];
		if (pv[k] < 0.0)
			t0 = fmax(t0, u);
		else
			t1 = fmin(t1, u);
		in = t0 <= t1;
	}
	if (in)
		return 0.0;
	double best = INFINITY;
	for (int k = 0; k < 2; k++) {
		steer_vec2 e = k ? b : a;
		double dx = fmax(fabs(e.x) - hx, 0.0), dy = fmax(fabs(e.y) - hy, 0.0);
		best = fmin(best, dx * dx + dy * dy);
	}
	for (int k = 0; k < 4; k++) {
		steer_vec2 corner = v2(k & 1 ? hx : -hx, k & 2 ? hy : -hy);
		best = fmin(best, steer_seg_dist2(a, b, corner));
	}
	return best;
}

/* The cell column (row) of coordinate v on an axis of n cells of size cell from
 * origin o: clamped to the grid, or wrapped round it. */
static inline uint32_t steer_geom_axis_cell(double v, double o, double cell, uint32_t n, bool wrap,
                                            double size)
{
	if (wrap)
		v -= size * floor(v / size);
	double t = floor((v - o) / cell);
	if (!(t >= 0.0))
		return 0;
	return t >= (double)n ? n - 1 : (uint32_t)t;
}

/* The cell of t (a position in cells from the grid's origin) on an axis of n,
 * clamped to the grid. */
static inline uint32_t clamp_cell(double t, uint32_t n)
{
	if (!(t >= 0.0))
		return 0;
	return t >= (double)n ? n - 1 : (uint32_t)t;
}

/* The cells an interval [lo, hi] covers along one axis: *first and *count (wrapping
 * round in a wrap world; clamped otherwise). inv is 1 / the cell size. */
static inline void steer_geom_axis_span(double lo, double hi, double o, double inv, uint32_t n,
                                        bool wrap, uint32_t *first, uint32_t *count)
{
	double a = (lo - o) * inv - SPAN_HAIR, b = (hi - o) * inv + SPAN_HAIR;
	if (!wrap) {
		uint32_t ca = clamp_cell(a, n), cb = clamp_cell(b, n);
		*first = ca;
		*count = cb - ca + 1;
		return;
	}
	a = floor(a);
	b = floor(b);
	if (!(b - a + 1.0 < (double)n)) {
		*first = 0;
		*count = n;
		return;
	}
	/* Spans start within a world of the grid but for a far-off point: no division
	 * for the usual case. */
	double m = a >= 0.0 ? a : a + (double)n;
	if (!(m >= 0.0 && m < (double)n)) {
		m = a - (double)n * floor(a / (double)n);
		m = m >= 0.0 && m < (double)n ? m : 0.0;
	}
	*first = (uint32_t)m;
	*count = (uint32_t)(b - a) + 1;
}

static inline cell_span steer_geom_box_span(const steer_geom *g, steer_vec2 lo, steer_vec2 hi)
{
	cell_span s;
	steer_geom_axis_span(lo.x, hi.x, g->x0, g->inv_cw, g->nx, g->wrap, &s.x0, &s.nx);
	steer_geom_axis_span(lo.y, hi.y, g->y0, g->inv_ch, g->ny, g->wrap, &s.y0, &s.ny);
	return s;
}

static inline uint32_t steer_geom_span_cell(const steer_geom *g, const cell_span *s, uint32_t i,
                                            uint32_t j)
{
	uint32_t cx = (s->x0 + i) % g->nx, cy = (s->y0 + j) % g->ny;
	return cy * g->nx + cx;
}

/* The point of cell (cx, cy) whose side of each polygon is recorded. */
static inline steer_vec2 steer_geom_cell_ref(const steer_geom *g, uint32_t cell)
{
	uint32_t cx = cell % g->nx, cy = cell / g->nx;
	return v2(g->x0 + ((double)cx + REF_FX) * g->cw, g->y0 + ((double)cy + REF_FY) * g->ch);
}

static inline bool steer_geom_grid_fresh(const steer_world *w)
{
	const steer_geom *g = &w->geom;
	return !g->grid_stale && !g->circles_stale && g->nx > 0;
}

/* The distance from the box centred at c with half sizes h to a circle's centre at
 * (x, y), the short way round (0 inside the box). */
static inline double steer_geom_box_dist(const steer_world *w, double x, double y, steer_vec2 c,
                                         steer_vec2 h)
{
	steer_vec2 d = steer_geom_wrap_delta(w, v2(x - c.x, y - c.y));
	/* fmax(v, 0.0) as the squares see it (NaN gives 0), without libm's call. */
	double dx = fabs(d.x) - h.x, dy = fabs(d.y) - h.y;
	dx = dx > 0.0 ? dx : 0.0;
	dy = dy > 0.0 ? dy : 0.0;
	return sqrt(dx * dx + dy * dy);
}

/* steer_geom_seg_rel (geometry.h), inline for the index's own loops. */
static inline void steer_geom_rel(const steer_world *w, const steer_segment *s, steer_vec2 p,
                                  steer_vec2 *a, steer_vec2 *b)
{
	if (!steer_geom_is_wrap(w)) {
		*a = v2_sub(s->a, p);
		*b = v2_sub(s->b, p);
		return;
	}
	steer_vec2 half = v2_scale(v2_sub(s->b, s->a), 0.5);
	steer_vec2 m = steer_geom_wrap_delta(w, v2_sub(v2_add(s->a, half), p));
	*a = v2_sub(m, half);
	*b = v2_add(m, half);
}

#endif
