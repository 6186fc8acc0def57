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
/* The fewest cells a grid has room for, and the most. */
#define GRID_MIN_CELLS 1024u
#define GRID_MAX_CELLS (1u << 22)
/* How far, in cells, every span reaches past its interval: further than rounding in
 * the cell arithmetic (or between a point and its image round a wrap world) can
 * carry a point, so that a span never leaves out a cell its interval touches. */
#define SPAN_HAIR 1e-9

typedef struct cell_span {
	uint32_t x0, nx, y0, ny;
} cell_span;

bool steer_geom_is_wrap(const steer_world *w);

/* The short way round along one axis for any difference, however many worlds apart
 * (a wall may be drawn far outside): the cheap form for the usual case. */
double steer_geom_wrap_any(double d, double size);

steer_vec2 steer_geom_wrap_delta(const steer_world *w, steer_vec2 d);

double steer_geom_orient(steer_vec2 a, steer_vec2 b, steer_vec2 c);

/* Squared distance from the segment a-b to the box [-hx, hx] x [-hy, hy]: 0 when they
 * meet. Between a segment and a box apart, the nearest pair has an end of the segment
 * or a corner of the box. */
double steer_geom_seg_box_dist2(steer_vec2 a, steer_vec2 b, double hx, double hy);

/* The cell column (row) of coordinate v on an axis of n cells of size cell from
 * origin o: clamped to the grid, or wrapped round it. */
uint32_t steer_geom_axis_cell(double v, double o, double cell, uint32_t n, bool wrap, double size);

/* The cells an interval [lo, hi] covers along one axis: *first and *count (wrapping
 * round in a wrap world; clamped otherwise). inv is 1 / the cell size. */
void steer_geom_axis_span(double lo, double hi, double o, double inv, uint32_t n, bool wrap,
                          uint32_t *first, uint32_t *count);

cell_span steer_geom_box_span(const steer_geom *g, steer_vec2 lo, steer_vec2 hi);

uint32_t steer_geom_span_cell(const steer_geom *g, const cell_span *s, uint32_t i, uint32_t j);

/* The point of cell (cx, cy) whose side of each polygon is recorded. */
steer_vec2 steer_geom_cell_ref(const steer_geom *g, uint32_t cell);

bool steer_geom_grid_fresh(const steer_world *w);

/* The distance from the box centred at c with half sizes h to a circle's centre at
 * (x, y), the short way round (0 inside the box). */
double steer_geom_box_dist(const steer_world *w, double x, double y, steer_vec2 c, steer_vec2 h);

#endif
