/* The world's solid geometry as the tick sees it, and the obstacle index.
 *
 * Walls, polygon edges and (with contain on) the bounds become segments; circles are
 * the world's obstacles. A uniform grid indexes both, so that a query costs about
 * O(nearby things): segments are re-indexed when the geometry changes, circles every
 * tick (they move). Queries are read-only and may run on many threads at once; their
 * results come in ascending index order (or, from steer_geom_query_near, in an order
 * its callers must not depend on), so whatever is built on them is deterministic.
 *
 * Segment sidedness follows RVO2: a one-sided segment (a polygon edge, a bound) has
 * the obstacle on its left (walking a->b) and the free side on its right, where n
 * points. A solid polygon's edges so run counterclockwise (x right, y up), as RVO2's
 * obstacles; a containing polygon's clockwise, as RVO2's bounding polygon. Walls are
 * two-sided (n is still the right normal).
 *
 * Wrap worlds: geometry is drawn in world coordinates; queries see it the short way
 * round, as steer_world_delta sees positions. Long segments are cut into pieces of at
 * most a quarter of the world's smaller side, so that a piece's nearest image is the
 * one steer_geom_seg_rel gives for any reach up to 3/8 of that side. With contain on,
 * the seam (x = 0 and y = 0) is a two-sided wall. Private to the core. */
#ifndef STEER_GEOMETRY_H
#define STEER_GEOMETRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "steer/world.h"

#define STEER_SEG_NONE UINT32_MAX

enum {
	STEER_SEG_TWO_SIDED = 1u, /* a wall (or the seam): solid from both sides */
	STEER_SEG_CONVEX_A = 2u,  /* vertex a is convex seen from the free side (RVO2's
	                           * isConvex; collinear counts as convex) */
};

typedef struct steer_segment {
	steer_vec2 a, b; /* world coordinates */
	steer_vec2 dir;  /* unit b - a */
	steer_vec2 n;    /* unit normal to the right of a->b: toward the free side */
	double len;
	uint32_t owner; /* the wall's or polygon's id; 0 for the bounds */
	uint32_t flags; /* STEER_SEG_* */
	/* The segments before and after this one on its polygon's ring (b of prev is
	 * this a); for a wall's pieces, the neighbouring pieces; else STEER_SEG_NONE. */
	uint32_t prev, next;
} steer_segment;

/* One obstacle region bounded by segments first .. first + count - 1: a solid
 * polygon (its inside is blocked) or a containing one (its outside is blocked; with
 * several, the free space is the inside of all of them); the bounds with contain on
 * in a bounce or none world are one too (id 0, containing). */
typedef struct steer_geom_region {
	uint32_t owner;
	bool containing;
	uint32_t first, count;
	steer_vec2 lo, hi; /* the box round its edges */
} steer_geom_region;

/* A circle as the index files it: a copy of the obstacle's centre, radius and speed,
 * so that a query reads the cells' circles in a row of memory. */
typedef struct steer_geom_disc {
	double x, y, r;
	double speed;   /* the length of its velocity */
	uint32_t index; /* into the world's obstacles */
} steer_geom_disc;

/* The index. Lives in the world (world_internal.h); every part is owned by it. */
typedef struct steer_geom {
	steer_segment *segs;
	size_t nsegs, segs_cap;
	steer_geom_region *regions;
	size_t nregions, regions_cap;
	/* The grid: nx * ny cells of cw x ch from (x0, y0); wrap: it covers the world
	 * and wraps, else positions outside it fall in its border cells. */
	double x0, y0, cw, ch;
	double inv_cw, inv_ch; /* 1 / cw, 1 / ch */
	uint32_t nx, ny;
	bool wrap;
	double wrap_w, wrap_h;
	/* Per cell, compressed rows (start has cells + 1 entries): the segments that touch
	 * it and the regions that block its centre, each list ascending. */
	uint32_t *seg_start, *seg_items;
	size_t seg_start_cap, seg_items_cap;
	uint32_t *reg_start, *reg_items;
	size_t reg_start_cap, reg_items_cap;
	/* Circles no wider than a cell are filed once, in the cell of their centre (in
	 * index order within it); a query looks disc_rmax further. Wider ones are filed in
	 * every cell their box covers (big_items: positions in big_index, whose covers
	 * big_cover holds as x0, nx, y0, ny), and a query takes each in the first of its
	 * cells it looks at. */
	uint32_t *disc_start;
	steer_geom_disc *discs;
	size_t disc_start_cap, discs_cap;
	double disc_rmax;
	uint32_t *big_start, *big_items, *big_index, *big_cover;
	size_t big_start_cap, big_items_cap, big_index_cap, big_cover_cap, nbig;
	uint32_t *fill; /* scratch: a cursor per cell, or a cell per circle */
	size_t fill_cap;
	size_t planned_circles; /* the circles the grid's cells were sized for */
	bool grid_stale;        /* segments changed since the grid was built */
	/* The regions changed since they were filed in the grid: walls alone changing
	 * leave them (and the grid's region lists, when its cells stay) as they were. */
	bool regions_stale;
	/* What the segments were last built for, and the box round them: a polygon's
	 * ring is copied from the last build when it was cut for the same limit (its
	 * points never change). */
	struct {
		double limit, w, h;
		bool contain;
		steer_vec2 lo, hi; /* the box round every segment (none: lo > hi) */
	} built;
	/* The last build's segment array, kept for the next: a big one is not mapped and
	 * faulted in afresh on every change. */
	steer_segment *spare;
	size_t spare_cap;
	uint32_t *seg_cell; /* scratch: the one cell a segment lies in, or UINT32_MAX */
	size_t seg_cell_cap;
	bool circles_stale; /* circles moved, came or went since they were indexed */
	uint64_t version;   /* changes with the segments; unique in the process */
	/* Changes with the segments, the bounds and every circle that came, went or moved:
	 * with anything steer_geom_blocked and steer_geom_free_point answer from. From the
	 * versions' sequence, so never 0 and never another state's. */
	uint64_t epoch;
} steer_geom;

void steer_geom_init(steer_geom *g);
void steer_geom_free(steer_geom *g);

/* Rebuilds the segment list from the world's walls, polygons and bounds (not the
 * grid: that waits for steer_geom_update). NOMEM leaves the old list. */
steer_status steer_geom_rebuild(steer_world *w);
/* The same after walls, polygons or contain went away: in place, needing no memory. */
void steer_geom_rebuild_smaller(steer_world *w);
/* Marks the circles as moved (obstacles added, removed or stepped). */
void steer_geom_circles_moved(steer_world *w);
/* Brings the grid up to date: call before a phase that queries from many threads.
 * A query on a stale grid is still right, only slower (it looks at everything). */
steer_status steer_geom_update(steer_world *w);

/* The segments, for reading: valid until the geometry changes. */
const steer_segment *steer_geom_segments(const steer_world *w, size_t *count);
const steer_geom_region *steer_geom_regions(const steer_world *w, size_t *count);
/* Changes with every change of the walls, polygons, bounds or contain. */
uint64_t steer_geom_version(const steer_world *w);

/* One circle of steer_geom_query_near's answer. */
typedef struct steer_geom_near {
	uint32_t index; /* into the world's obstacles */
	double edge;    /* the length of steer_world_delta(p, its centre), less its radius */
	double speed;   /* the length of its velocity */
} steer_geom_near;

/* A query's answer, in caller-owned scratch: indices into the world's obstacles
 * (circles) and into steer_geom_segments, each ascending; steer_geom_query_near's
 * circles are in near instead. Reuse one per thread; free with steer_geom_hits_free. */
typedef struct steer_geom_hits {
	uint32_t *circles;
	size_t ncircles, circles_cap;
	steer_geom_near *near;
	size_t nnear, near_cap;
	uint32_t *segments;
	size_t nsegments, segments_cap;
} steer_geom_hits;

void steer_geom_hits_free(steer_geom_hits *h);

/* The circles and segments whose shapes come within reach (>= 0) of point p: a
 * circle when |p - centre| <= radius + reach, a segment when its distance to p is
 * <= reach. NOMEM when the scratch cannot grow (its lists are then empty). */
steer_status steer_geom_query(const steer_world *w, steer_vec2 p, double reach,
                              steer_geom_hits *out);
/* The same hits for a point, the circles in near (ncircles stays 0), in no set order,
 * each once, with what a caller weighing them needs: for callers whose answer does not
 * depend on the order, spared the sort and a second look at the circle. */
steer_status steer_geom_query_near(const steer_world *w, steer_vec2 p, double reach,
                                   steer_geom_hits *out);
/* The same segments, and no circles: for callers that look only at segments. */
steer_status steer_geom_query_segments(const steer_world *w, steer_vec2 p, double reach,
                                       steer_geom_hits *out);
/* The same for an axis-aligned box [lo, hi] (lo <= hi): shapes within reach of any of
 * its points. In a wrap world the box is taken where lo is. */
steer_status steer_geom_query_box(const steer_world *w, steer_vec2 lo, steer_vec2 hi, double reach,
                                  steer_geom_hits *out);
steer_status steer_geom_query_box_segments(const steer_world *w, steer_vec2 lo, steer_vec2 hi,
                                           double reach, steer_geom_hits *out);

/* The segment's ends as displacements from p, the short way round in a wrap world. */
void steer_geom_seg_rel(const steer_world *w, const steer_segment *s, steer_vec2 p, steer_vec2 *a,
                        steer_vec2 *b);

/* True when p lies in an obstacle region: inside a solid polygon, outside a
 * containing polygon, or outside the bounds with contain on (bounce and none worlds).
 * Circles and walls are not regions. */
bool steer_geom_in_region(const steer_world *w, steer_vec2 p);

/* True when a disc at p of that radius overlaps an obstacle circle, a wall, a polygon
 * (edge or blocked side) or the contained bounds by more than tol. */
bool steer_geom_blocked(const steer_world *w, steer_vec2 p, double radius, double tol);

/* The nearest point to p where a disc of that radius (>= 0) is not blocked (tol 0):
 * p itself when free. Ties go to the first candidate in index order. NOENT when
 * there is none (the free space is too small for the disc), NOMEM when scratch cannot
 * grow; *out is then p. Read-only: safe from many threads. */
steer_status steer_geom_free_point(const steer_world *w, steer_vec2 p, double radius,
                                   steer_vec2 *out);

/* --- small geometric helpers, all in relative coordinates --------------------- */

/* The parameter t in [0,1] of the point of segment a-b nearest to p. */
static inline double steer_seg_closest_t(steer_vec2 a, steer_vec2 b, steer_vec2 p)
{
	steer_vec2 ab = v2_sub(b, a);
	double l2 = v2_len2(ab);
	if (!(l2 > 0.0))
		return 0.0;
	double t = v2_dot(v2_sub(p, a), ab) / l2;
	return t < 0.0 ? 0.0 : t > 1.0 ? 1.0 : t;
}

static inline steer_vec2 steer_seg_closest(steer_vec2 a, steer_vec2 b, steer_vec2 p)
{
	double t = steer_seg_closest_t(a, b, p);
	return v2_add(a, v2_scale(v2_sub(b, a), t));
}

static inline double steer_seg_dist2(steer_vec2 a, steer_vec2 b, steer_vec2 p)
{
	return v2_len2(v2_sub(p, steer_seg_closest(a, b, p)));
}

/* Whether segments p0-p1 and a-b cross or touch; *t (when crossing) is where along
 * p0-p1, in [0,1]. Parallel overlapping segments count as touching at the first
 * shared point. */
bool steer_seg_cross(steer_vec2 p0, steer_vec2 p1, steer_vec2 a, steer_vec2 b, double *t);

/* The first time t in [0,1] at which a disc of radius r moving from p0 to p1 touches
 * segment a-b (0 when it already does); false when it never does on the way. */
bool steer_swept_disc_segment(steer_vec2 p0, steer_vec2 p1, double r, steer_vec2 a, steer_vec2 b,
                              double *t);

/* The first time t in [0,1] at which a disc of radius r moving from p0 to p1 touches
 * a circle of radius cr at c (0 when it already does); false when it never does. */
bool steer_swept_disc_circle(steer_vec2 p0, steer_vec2 p1, double r, steer_vec2 c, double cr,
                             double *t);

#endif
