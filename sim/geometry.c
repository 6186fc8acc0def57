#include "geometry.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "reserve.h"
#include "world_internal.h"

/* Where in its cell the point stands whose side of each polygon the grid records: off
 * the centre, so that geometry drawn on round numbers rarely passes through it. */
#define REF_FX 0.4142135623730951
#define REF_FY 0.5773502691896258
/* The fewest cells a grid has room for, and the most. */
#define GRID_MIN_CELLS 1024u
#define GRID_MAX_CELLS (1u << 22)

/* Versions come from one sequence for every world in the process: a client that saw
 * version V of one world is never told V again for another state, not even after a
 * load swaps in a world whose own count of changes is the same. */
static _Atomic uint64_t last_version;

static uint64_t next_version(void)
{
	return atomic_fetch_add(&last_version, 1) + 1;
}

void steer_geom_init(steer_geom *g)
{
	memset(g, 0, sizeof *g);
	g->grid_stale = true;
	g->regions_stale = true;
	g->circles_stale = true;
	g->epoch = next_version();
}

void steer_geom_free(steer_geom *g)
{
	free(g->segs);
	free(g->regions);
	free(g->seg_start);
	free(g->seg_items);
	free(g->reg_start);
	free(g->reg_items);
	free(g->disc_start);
	free(g->discs);
	free(g->big_start);
	free(g->big_items);
	free(g->big_index);
	free(g->big_cover);
	free(g->fill);
	free(g->spare);
	free(g->seg_cell);
	steer_geom_init(g);
}

void steer_geom_hits_free(steer_geom_hits *h)
{
	free(h->circles);
	free(h->near);
	free(h->segments);
	memset(h, 0, sizeof *h);
}

const steer_segment *steer_geom_segments(const steer_world *w, size_t *count)
{
	*count = w->geom.nsegs;
	return w->geom.segs;
}

const steer_geom_region *steer_geom_regions(const steer_world *w, size_t *count)
{
	*count = w->geom.nregions;
	return w->geom.regions;
}

uint64_t steer_geom_version(const steer_world *w)
{
	return w->geom.version;
}

/* --- small helpers ------------------------------------------------------------ */

static inline bool is_wrap(const steer_world *w)
{
	return w->cfg.edges == STEER_EDGE_WRAP;
}

/* The short way round along one axis for any difference, however many worlds apart
 * (a wall may be drawn far outside): the cheap form for the usual case. */
static inline double wrap_any(double d, double size)
{
	return fabs(d) <= 1.5 * size ? steer_wrap_axis(d, size) : remainder(d, size);
}

static inline steer_vec2 wrap_delta(const steer_world *w, steer_vec2 d)
{
	if (is_wrap(w)) {
		d.x = wrap_any(d.x, w->cfg.width);
		d.y = wrap_any(d.y, w->cfg.height);
	}
	return d;
}

static inline void seg_rel(const steer_world *w, const steer_segment *s, steer_vec2 p,
                           steer_vec2 *a, steer_vec2 *b)
{
	if (!is_wrap(w)) {
		*a = v2_sub(s->a, p);
		*b = v2_sub(s->b, p);
		return;
	}
	steer_vec2 half = v2_scale(v2_sub(s->b, s->a), 0.5);
	steer_vec2 m = wrap_delta(w, v2_sub(v2_add(s->a, half), p));
	*a = v2_sub(m, half);
	*b = v2_add(m, half);
}

void steer_geom_seg_rel(const steer_world *w, const steer_segment *s, steer_vec2 p, steer_vec2 *a,
                        steer_vec2 *b)
{
	seg_rel(w, s, p, a, b);
}

static double orient(steer_vec2 a, steer_vec2 b, steer_vec2 c)
{
	return v2_cross(v2_sub(b, a), v2_sub(c, a));
}

bool steer_seg_cross(steer_vec2 p0, steer_vec2 p1, steer_vec2 a, steer_vec2 b, double *t)
{
	steer_vec2 r = v2_sub(p1, p0), s = v2_sub(b, a);
	double den = v2_cross(r, s);
	steer_vec2 q = v2_sub(a, p0);
	if (den == 0.0) {
		if (v2_cross(q, r) != 0.0)
			return false; /* parallel, apart */
		double rr = v2_len2(r);
		if (rr == 0.0) { /* p0-p1 is a point */
			if (steer_seg_dist2(a, b, p0) > 0.0)
				return false;
			*t = 0.0;
			return true;
		}
		double ta = v2_dot(q, r) / rr, tb = v2_dot(v2_sub(b, p0), r) / rr;
		double lo = fmin(ta, tb), hi = fmax(ta, tb);
		if (hi < 0.0 || lo > 1.0)
			return false;
		*t = fmax(lo, 0.0);
		return true;
	}
	double u = v2_cross(q, r) / den, tt = v2_cross(q, s) / den;
	if (tt < 0.0 || tt > 1.0 || u < 0.0 || u > 1.0)
		return false;
	*t = tt;
	return true;
}

bool steer_swept_disc_circle(steer_vec2 p0, steer_vec2 p1, double r, steer_vec2 c, double cr,
                             double *t)
{
	steer_vec2 d = v2_sub(p1, p0), f = v2_sub(p0, c);
	double rr = r + cr;
	double cc = v2_len2(f) - rr * rr;
	if (cc <= 0.0) {
		*t = 0.0;
		return true;
	}
	double a = v2_len2(d), b = v2_dot(f, d);
	if (a == 0.0 || b >= 0.0)
		return false; /* still, or moving away */
	double disc = b * b - a * cc;
	if (disc < 0.0)
		return false;
	double tt = (-b - sqrt(disc)) / a;
	if (tt > 1.0)
		return false;
	*t = fmax(tt, 0.0);
	return true;
}

bool steer_swept_disc_segment(steer_vec2 p0, steer_vec2 p1, double r, steer_vec2 a, steer_vec2 b,
                              double *t)
{
	if (steer_seg_dist2(a, b, p0) <= r * r) {
		*t = 0.0;
		return true;
	}
	double best = INFINITY, tt;
	/* The ends' caps. */
	if (steer_swept_disc_circle(p0, p1, r, a, 0.0, &tt))
		best = fmin(best, tt);
	if (steer_swept_disc_circle(p0, p1, r, b, 0.0, &tt))
		best = fmin(best, tt);
	/* The sides: the segment moved r along either normal. */
	steer_vec2 ab = v2_sub(b, a);
	double l = v2_len(ab);
	if (l > 0.0) {
		steer_vec2 n = v2_scale(v2(ab.y, -ab.x), r / l);
		for (int side = 0; side < 2; side++) {
			steer_vec2 off = side ? v2_scale(n, -1.0) : n;
			if (steer_seg_cross(p0, p1, v2_add(a, off), v2_add(b, off), &tt))
				best = fmin(best, tt);
		}
	}
	if (best > 1.0)
		return false;
	*t = best;
	return true;
}

/* Squared distance from the segment a-b to the box [-hx, hx] x [-hy, hy]: 0 when they
 * meet. Between a segment and a box apart, the nearest pair has an end of the segment
 * or a corner of the box. */
static double seg_box_dist2(steer_vec2 a, steer_vec2 b, double hx, double hy)
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

/* --- the segments ----------------------------------------------------------------- */

/* Widens the box round the segments to hold lo..hi. */
static void grow_built(steer_geom *g, steer_vec2 lo, steer_vec2 hi)
{
	g->built.lo = v2(fmin(g->built.lo.x, lo.x), fmin(g->built.lo.y, lo.y));
	g->built.hi = v2(fmax(g->built.hi.x, hi.x), fmax(g->built.hi.y, hi.y));
}

static steer_status push_seg(steer_geom *g, steer_vec2 a, steer_vec2 b, uint32_t owner,
                             uint32_t flags)
{
	if (g->nsegs >= STEER_SEG_NONE - 1 ||
	    steer_reserve((void **)&g->segs, &g->segs_cap, g->nsegs + 1, sizeof *g->segs) !=
	        STEER_OK)
		return STEER_ERR_NOMEM;
	steer_segment *s = &g->segs[g->nsegs++];
	steer_vec2 ab = v2_sub(b, a);
	s->a = a;
	s->b = b;
	s->len = v2_len(ab);
	s->dir = v2_scale(ab, 1.0 / s->len);
	s->n = v2(s->dir.y, -s->dir.x);
	s->owner = owner;
	s->flags = flags;
	s->prev = s->next = STEER_SEG_NONE;
	grow_built(g, v2(fmin(a.x, b.x), fmin(a.y, b.y)), v2(fmax(a.x, b.x), fmax(a.y, b.y)));
	return STEER_OK;
}

/* Appends the edge a-b cut into pieces no longer than limit, linked in a chain;
 * vertex a takes a_flags, the cut points are convex (collinear). */
static steer_status push_edge(steer_geom *g, steer_vec2 a, steer_vec2 b, uint32_t owner,
                              uint32_t flags, uint32_t a_flags, double limit)
{
	double len = v2_len(v2_sub(b, a));
	double m = ceil(len / limit);
	size_t pieces = m >= 1.0 && m < 1e6 ? (size_t)m : 1;
	steer_vec2 from = a;
	for (size_t k = 0; k < pieces; k++) {
		steer_vec2 to =
		    k + 1 == pieces
		        ? b
		        : v2_add(a, v2_scale(v2_sub(b, a), (double)(k + 1) / (double)pieces));
		if (push_seg(g, from, to, owner, flags | (k ? STEER_SEG_CONVEX_A : a_flags)) !=
		    STEER_OK)
			return STEER_ERR_NOMEM;
		if (k) {
			g->segs[g->nsegs - 2].next = (uint32_t)(g->nsegs - 1);
			g->segs[g->nsegs - 1].prev = (uint32_t)(g->nsegs - 2);
		}
		from = to;
	}
	return STEER_OK;
}

/* A wall (two-sided, open): its pieces chained, both ends convex as RVO2's
 * two-point obstacles. */
static steer_status push_wall(steer_geom *g, steer_vec2 a, steer_vec2 b, uint32_t owner,
                              double limit)
{
	return push_edge(g, a, b, owner, STEER_SEG_TWO_SIDED, STEER_SEG_CONVEX_A, limit);
}

static double signed_area2(const steer_vec2 *p, size_t n)
{
	double s = 0.0;
	for (size_t k = 0; k < n; k++)
		s += v2_cross(p[k], p[(k + 1) % n]);
	return s;
}

/* A closed ring as a region: counterclockwise when solid, clockwise when containing
 * (the free side on the right of every edge), pieces chained round. */
static steer_status push_ring(steer_geom *g, const steer_vec2 *p, size_t n, uint32_t owner,
                              bool containing, double limit)
{
	bool reverse = (signed_area2(p, n) > 0.0) == containing;
	size_t first = g->nsegs;
	for (size_t k = 0; k < n; k++) {
		size_t i0 = reverse ? n - 1 - k : k,
		       i1 = reverse ? (2 * n - 2 - k) % n : (k + 1) % n;
		size_t ip = reverse ? (n - k) % n : (k + n - 1) % n;
		/* RVO2's leftOf(prev, this, next) >= 0: the vertex turns left, convex. */
		bool convex = orient(p[ip], p[i0], p[i1]) >= 0.0;
		size_t before = g->nsegs;
		if (push_edge(g, p[i0], p[i1], owner, 0, convex ? STEER_SEG_CONVEX_A : 0, limit) !=
		    STEER_OK)
			return STEER_ERR_NOMEM;
		if (before > first) {
			g->segs[before - 1].next = (uint32_t)before;
			g->segs[before].prev = (uint32_t)(before - 1);
		}
	}
	g->segs[g->nsegs - 1].next = (uint32_t)first;
	g->segs[first].prev = (uint32_t)(g->nsegs - 1);
	if (steer_reserve((void **)&g->regions, &g->regions_cap, g->nregions + 1,
	                  sizeof *g->regions) != STEER_OK)
		return STEER_ERR_NOMEM;
	steer_vec2 lo = v2(INFINITY, INFINITY), hi = v2(-INFINITY, -INFINITY);
	for (size_t k = 0; k < n; k++) {
		lo = v2(fmin(lo.x, p[k].x), fmin(lo.y, p[k].y));
		hi = v2(fmax(hi.x, p[k].x), fmax(hi.y, p[k].y));
	}
	steer_geom_region r = {owner, containing, (uint32_t)first, (uint32_t)(g->nsegs - first),
	                       lo,    hi};
	g->regions[g->nregions++] = r;
	return STEER_OK;
}

/* Where a build finds the rings of the last one: old's regions, looked at from next
 * on, then from the start (a polygon removed has the last take its place). */
typedef struct ring_source {
	const steer_geom *old;
	size_t next;
} ring_source;

/* Copies owner's ring from the last build, chained as push_ring chains it. False when
 * it is not there (a new polygon): then it is pushed. */
static bool copy_ring(steer_geom *g, ring_source *src, uint32_t owner, bool containing,
                      steer_status *st)
{
	const steer_geom *old = src->old;
	size_t r = old->nregions;
	for (size_t k = 0; k < old->nregions && r == old->nregions; k++)
		if (old->regions[(src->next + k) % old->nregions].owner == owner)
			r = (src->next + k) % old->nregions;
	if (r == old->nregions || old->regions[r].containing != containing)
		return false;
	src->next = r + 1;
	const steer_geom_region *from = &old->regions[r];
	*st = STEER_ERR_NOMEM;
	if (g->nsegs + from->count > STEER_SEG_NONE - 1 || /* push_seg's bound */
	    steer_reserve((void **)&g->segs, &g->segs_cap, g->nsegs + from->count,
	                  sizeof *g->segs) != STEER_OK ||
	    steer_reserve((void **)&g->regions, &g->regions_cap, g->nregions + 1,
	                  sizeof *g->regions) != STEER_OK)
		return true;
	uint32_t first = (uint32_t)g->nsegs;
	steer_segment *to = &g->segs[first];
	memcpy(to, &old->segs[from->first], from->count * sizeof *to);
	for (uint32_t k = 0; k < from->count; k++) { /* a ring's links stay inside it */
		to[k].prev = to[k].prev - from->first + first;
		to[k].next = to[k].next - from->first + first;
	}
	g->nsegs += from->count;
	g->regions[g->nregions++] =
	    (steer_geom_region){owner, containing, first, from->count, from->lo, from->hi};
	grow_built(g, from->lo, from->hi);
	*st = STEER_OK;
	return true;
}

/* The segments of the bounds, the walls and the polygons, in that order; the
 * polygons' rings copied from src's build where it was cut for the same bounds. */
static steer_status build_segments(const steer_world *w, steer_geom *g, const steer_geom *src)
{
	const steer_world_config *c = &w->cfg;
	double limit = is_wrap(w) ? fmin(c->width, c->height) * 0.25 : INFINITY;
	ring_source rings = {src, 0};
	if (src && src->built.limit != limit)
		rings.old = NULL;
	g->nsegs = 0;
	g->nregions = 0;
	g->built.lo = v2(INFINITY, INFINITY);
	g->built.hi = v2(-INFINITY, -INFINITY);
	/* About the last build's size: grown once, not doubled up to it. */
	if (src && (steer_reserve((void **)&g->segs, &g->segs_cap, src->nsegs + 16,
	                          sizeof *g->segs) != STEER_OK ||
	            steer_reserve((void **)&g->regions, &g->regions_cap, src->nregions + 1,
	                          sizeof *g->regions) != STEER_OK))
		return STEER_ERR_NOMEM;
	if (c->contain && is_wrap(w)) {
		/* The seam is a wall: nothing crosses it. */
		if (push_wall(g, v2(0, 0), v2(c->width, 0), 0, limit) != STEER_OK ||
		    push_wall(g, v2(0, 0), v2(0, c->height), 0, limit) != STEER_OK)
			return STEER_ERR_NOMEM;
	} else if (c->contain) {
		steer_vec2 box[4] = {v2(0, 0), v2(c->width, 0), v2(c->width, c->height),
		                     v2(0, c->height)};
		if (push_ring(g, box, 4, 0, true, limit) != STEER_OK)
			return STEER_ERR_NOMEM;
	}
	for (size_t k = 0; k < w->wall_count; k++)
		if (push_wall(g, w->walls[k].a, w->walls[k].b, w->walls[k].id, limit) != STEER_OK)
			return STEER_ERR_NOMEM;
	for (size_t k = 0; k < w->poly_count; k++) {
		const steer_polygon *p = &w->polys[k];
		steer_status st = STEER_OK;
		if (!(rings.old && copy_ring(g, &rings, p->id, p->inside, &st)))
			st = push_ring(g, p->points, p->count, p->id, p->inside, limit);
		if (st != STEER_OK)
			return STEER_ERR_NOMEM;
	}
	g->built.limit = limit;
	g->built.w = c->width;
	g->built.h = c->height;
	g->built.contain = c->contain;
	return STEER_OK;
}

/* Whether fresh's regions are old's: the same owners, sides and pieces, cut for the
 * same bounds. Each block of cells they blocked is then blocked still. */
static bool same_regions(const steer_geom *old, const steer_geom *fresh)
{
	if (old->nregions != fresh->nregions || old->built.limit != fresh->built.limit ||
	    old->built.w != fresh->built.w || old->built.h != fresh->built.h ||
	    old->built.contain != fresh->built.contain)
		return false;
	for (size_t r = 0; r < old->nregions; r++) {
		const steer_geom_region *a = &old->regions[r], *b = &fresh->regions[r];
		if (a->owner != b->owner || a->containing != b->containing || a->count != b->count)
			return false;
	}
	return true;
}

/* Takes fresh's segments and regions in place of g's. */
static void take_segments(steer_geom *g, steer_geom *fresh)
{
	if (!same_regions(g, fresh))
		g->regions_stale = true;
	free(g->spare);
	g->spare = g->segs;
	g->spare_cap = g->segs_cap;
	free(g->regions);
	g->segs = fresh->segs;
	g->nsegs = fresh->nsegs;
	g->segs_cap = fresh->segs_cap;
	g->regions = fresh->regions;
	g->nregions = fresh->nregions;
	g->regions_cap = fresh->regions_cap;
	g->built = fresh->built;
	g->grid_stale = true;
	g->version = next_version();
	g->epoch = next_version();
}

/* Builds aside (the rings of the unchanged polygons copied), so that running out of
 * memory keeps the old list; false then. */
static bool rebuild_aside(steer_world *w)
{
	steer_geom fresh;
	steer_geom_init(&fresh);
	fresh.segs = w->geom.spare;
	fresh.segs_cap = w->geom.spare_cap;
	w->geom.spare = NULL;
	w->geom.spare_cap = 0;
	if (build_segments(w, &fresh, &w->geom) != STEER_OK) {
		steer_geom_free(&fresh);
		return false;
	}
	take_segments(&w->geom, &fresh);
	return true;
}

steer_status steer_geom_rebuild(steer_world *w)
{
	return rebuild_aside(w) ? STEER_OK : STEER_ERR_NOMEM;
}

void steer_geom_rebuild_smaller(steer_world *w)
{
	if (rebuild_aside(w))
		return;
	/* No memory for a copy: in place, where every push fits the arrays' present
	 * capacity, so none can fail. */
	steer_geom *g = &w->geom;
	steer_status st = build_segments(w, g, NULL);
	(void)st;
	g->regions_stale = true;
	g->grid_stale = true;
	g->version = next_version();
	g->epoch = next_version();
}

void steer_geom_circles_moved(steer_world *w)
{
	w->geom.circles_stale = true;
	w->geom.epoch = next_version();
}

/* --- the grid ---------------------------------------------------------------------- */

/* The cell column (row) of coordinate v on an axis of n cells of size cell from
 * origin o: clamped to the grid, or wrapped round it. */
static uint32_t axis_cell(double v, double o, double cell, uint32_t n, bool wrap, double size)
{
	if (wrap)
		v -= size * floor(v / size);
	double t = floor((v - o) / cell);
	if (!(t >= 0.0))
		return 0;
	return t >= (double)n ? n - 1 : (uint32_t)t;
}

/* How far, in cells, every span reaches past its interval: further than rounding in
 * the cell arithmetic (or between a point and its image round a wrap world) can
 * carry a point, so that a span never leaves out a cell its interval touches. */
#define SPAN_HAIR 1e-9

/* The cell of t (a position in cells from the grid's origin) on an axis of n,
 * clamped to the grid. */
static uint32_t clamp_cell(double t, uint32_t n)
{
	if (!(t >= 0.0))
		return 0;
	return t >= (double)n ? n - 1 : (uint32_t)t;
}

/* The cells an interval [lo, hi] covers along one axis: *first and *count (wrapping
 * round in a wrap world; clamped otherwise). inv is 1 / the cell size. */
static inline void axis_span(double lo, double hi, double o, double inv, uint32_t n, bool wrap,
                             uint32_t *first, uint32_t *count)
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

typedef struct cell_span {
	uint32_t x0, nx, y0, ny;
} cell_span;

static cell_span box_span(const steer_geom *g, steer_vec2 lo, steer_vec2 hi)
{
	cell_span s;
	axis_span(lo.x, hi.x, g->x0, g->inv_cw, g->nx, g->wrap, &s.x0, &s.nx);
	axis_span(lo.y, hi.y, g->y0, g->inv_ch, g->ny, g->wrap, &s.y0, &s.ny);
	return s;
}

static uint32_t span_cell(const steer_geom *g, const cell_span *s, uint32_t i, uint32_t j)
{
	uint32_t cx = (s->x0 + i) % g->nx, cy = (s->y0 + j) % g->ny;
	return cy * g->nx + cx;
}

/* The point of cell (cx, cy) whose side of each polygon is recorded. */
static steer_vec2 cell_ref(const steer_geom *g, uint32_t cell)
{
	uint32_t cx = cell % g->nx, cy = cell / g->nx;
	return v2(g->x0 + ((double)cx + REF_FX) * g->cw, g->y0 + ((double)cy + REF_FY) * g->ch);
}

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
	g->wrap = is_wrap(w);
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
	steer_geom_seg_rel(w, s, cell_centre(g, cell), &a, &b);
	double margin = 1e-9 * fmax(g->cw, g->ch);
	return seg_box_dist2(a, b, g->cw * 0.5 + margin, g->ch * 0.5 + margin) == 0.0;
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
	cell_span sp = box_span(g, v2(lo.x - m, lo.y - m), v2(hi.x + m, hi.y + m));
	*one = !g->wrap && sp.nx == 1 && sp.ny == 1 ? span_cell(g, &sp, 0, 0) : UINT32_MAX;
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
				uint32_t cell = span_cell(g, &sp, i, j);
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
				uint32_t cell = span_cell(g, &sp, i, j);
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
		cell_span sp =
		    box_span(g, v2(o->x - o->r, o->y - o->r), v2(o->x + o->r, o->y + o->r));
		uint32_t *cv = &g->big_cover[4 * b];
		cv[0] = sp.x0, cv[1] = sp.nx, cv[2] = sp.y0, cv[3] = sp.ny;
		for (uint32_t j = 0; j < sp.ny; j++)
			for (uint32_t i = 0; i < sp.nx; i++)
				g->big_start[span_cell(g, &sp, i, j)]++;
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
				g->big_items[--g->big_start[span_cell(g, &sp, i, j)]] = (uint32_t)b;
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

static bool grid_fresh(const steer_world *w)
{
	const steer_geom *g = &w->geom;
	return !g->grid_stale && !g->circles_stale && g->nx > 0;
}

/* --- queries ------------------------------------------------------------------------ */

/* The distance from the box centred at c with half sizes h to a circle's centre at
 * (x, y), the short way round (0 inside the box). */
static inline double box_dist(const steer_world *w, double x, double y, steer_vec2 c, steer_vec2 h)
{
	steer_vec2 d = wrap_delta(w, v2(x - c.x, y - c.y));
	/* fmax(v, 0.0) as the squares see it (NaN gives 0), without libm's call. */
	double dx = fabs(d.x) - h.x, dy = fabs(d.y) - h.y;
	dx = dx > 0.0 ? dx : 0.0;
	dy = dy > 0.0 ? dy : 0.0;
	return sqrt(dx * dx + dy * dy);
}

static bool segment_near(const steer_world *w, size_t k, steer_vec2 c, steer_vec2 h, double reach)
{
	steer_vec2 a, b;
	seg_rel(w, &w->geom.segs[k], c, &a, &b);
	double r2 = reach * reach;
	if (h.x != 0.0 || h.y != 0.0)
		return seg_box_dist2(a, b, h.x, h.y) <= r2;
	/* A point: seg_box_dist2 is the least of the clip's 0 (the segment through the
	 * point), the ends' squares and the nearest point's square s. Its clip can find
	 * the point only when s is within rounding of 0; else the rest decide alike. */
	double s = steer_seg_dist2(a, b, v2(0, 0));
	if (s <= r2)
		return true;
	double a2 = v2_len2(a), b2 = v2_len2(b);
	if (s > 1e-20 * (a2 + b2))
		return a2 <= r2 || b2 <= r2;
	return seg_box_dist2(a, b, 0.0, 0.0) <= r2;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

static void sort_u32(uint32_t *v, size_t n)
{
	if (n > 64) {
		qsort(v, n, sizeof *v, cmp_u32);
		return;
	}
	for (size_t i = 1; i < n; i++) {
		uint32_t x = v[i];
		size_t j = i;
		for (; j > 0 && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

static size_t sort_unique(uint32_t *v, size_t n)
{
	if (n < 2)
		return n;
	sort_u32(v, n);
	size_t m = 1;
	for (size_t i = 1; i < n; i++)
		if (v[i] != v[m - 1])
			v[m++] = v[i];
	return m;
}

static steer_status hits_push(uint32_t **v, size_t *n, size_t *cap, uint32_t x)
{
	if (steer_reserve((void **)v, cap, *n + 1, sizeof **v) != STEER_OK)
		return STEER_ERR_NOMEM;
	(*v)[(*n)++] = x;
	return STEER_OK;
}

/* Room in the answer for `more` circles. */
static steer_status hits_room(steer_geom_hits *out, bool near, size_t more)
{
	return near ? steer_reserve((void **)&out->near, &out->near_cap, out->nnear + more,
	                            sizeof *out->near)
	            : steer_reserve((void **)&out->circles, &out->circles_cap, out->ncircles + more,
	                            sizeof *out->circles);
}

/* A circle found at dist from the point c (the caller made room). A near answer has
 * steer_world_delta's length, which differs from the wrapped distance only for a centre
 * more than a world and a half away (outside a wrap world's bounds). */
static void hits_put(const steer_world *w, steer_geom_hits *out, bool near, steer_vec2 c,
                     const steer_geom_disc *d, double dist)
{
	if (!near) {
		out->circles[out->ncircles++] = d->index;
		return;
	}
	if (is_wrap(w) &&
	    !(fabs(d->x - c.x) <= 1.5 * w->cfg.width && fabs(d->y - c.y) <= 1.5 * w->cfg.height))
		dist = v2_len(steer_world_delta(w, c, v2(d->x, d->y)));
	out->near[out->nnear++] = (steer_geom_near){d->index, dist - d->r, d->speed};
}

static steer_geom_disc disc_of(const steer_world *w, size_t k)
{
	const steer_obstacle *o = &w->obs[k];
	return (steer_geom_disc){o->x, o->y, o->r, v2_len(v2(o->vx, o->vy)), (uint32_t)k};
}

/* Everything, tested one by one: the answer when the grid is stale. */
static steer_status query_all(const steer_world *w, steer_vec2 c, steer_vec2 h, double reach,
                              bool circles, bool near, steer_geom_hits *out)
{
	for (size_t k = 0; circles && k < w->obs_count; k++) {
		steer_geom_disc d = disc_of(w, k);
		double dist = box_dist(w, d.x, d.y, c, h);
		if (dist <= d.r + reach) {
			if (hits_room(out, near, 1) != STEER_OK)
				return STEER_ERR_NOMEM;
			hits_put(w, out, near, c, &d, dist);
		}
	}
	for (size_t k = 0; k < w->geom.nsegs; k++)
		if (segment_near(w, k, c, h, reach) &&
		    hits_push(&out->segments, &out->nsegments, &out->segments_cap, (uint32_t)k) !=
		        STEER_OK)
			return STEER_ERR_NOMEM;
	return STEER_OK;
}

/* Row j of a span as up to two runs of consecutive cells (two when it wraps round):
 * run k is cells [at[2k], at[2k + 1]). Returns the runs. */
static int span_row(const steer_geom *g, const cell_span *sp, uint32_t j, uint32_t at[4])
{
	uint32_t row = ((sp->y0 + j) % g->ny) * g->nx, end = sp->x0 + sp->nx;
	at[0] = row + sp->x0;
	if (end <= g->nx) {
		at[1] = row + end;
		return 1;
	}
	at[1] = row + g->nx;
	at[2] = row;
	at[3] = row + (end - g->nx);
	return 2;
}

/* The offset in a span (first, of n cells round) of the first cell of a cover (from,
 * count) it looks at: 0 when its first cell is covered. */
static uint32_t first_covered(uint32_t first, uint32_t from, uint32_t count, uint32_t n)
{
	return (first + n - from) % n < count ? 0 : (from + n - first) % n;
}

/* The narrow circles within reach of the box (c, h): filed by centre, each met once.
 * Each row of cells is looked at only as far as a centre in it could be within reach
 * plus the widest radius (the chord of the rounded box). */
/* The rows a query trims to their chords, at most and at least: a longer span is not
 * trimmed, nor a shorter one (whose chords save less than their square roots cost). */
#define TRIM_ROWS       64
#define TRIM_ROWS_LEAST 4

static steer_status query_discs(const steer_world *w, steer_vec2 c, steer_vec2 h, double reach,
                                bool near, steer_geom_hits *out)
{
	const steer_geom *g = &w->geom;
	bool wrap = is_wrap(w);
	double far = reach + g->disc_rmax;
	cell_span rows;
	axis_span(c.y - h.y - far, c.y + h.y + far, g->y0, g->inv_ch, g->ny, g->wrap, &rows.y0,
	          &rows.ny);
	/* Each row's half width: first, all of them, so that their square roots overlap.
	 * The first row's cell is taken unwrapped, so that rows stand where c sees them; a
	 * span of every row of a wrap world is not trimmed. */
	double half[TRIM_ROWS];
	bool trim =
	    !(g->wrap && rows.ny == g->ny) && rows.ny >= TRIM_ROWS_LEAST && rows.ny <= TRIM_ROWS;
	double row0 = g->wrap ? floor((c.y - h.y - far - g->y0) * g->inv_ch - SPAN_HAIR) : rows.y0;
	for (uint32_t j = 0; trim && j < rows.ny; j++) {
		double lo = g->y0 + (row0 + j) * g->ch, hi = lo + g->ch;
		if (!g->wrap && rows.y0 + j == 0)
			lo = -INFINITY; /* the border rows hold what lies beyond them */
		if (!g->wrap && rows.y0 + j == g->ny - 1)
			hi = INFINITY;
		double below = lo - (c.y + h.y), above = (c.y - h.y) - hi;
		double dy = (below > above ? below : above) - SPAN_HAIR * g->ch;
		half[j] = dy > far ? -1.0 : dy > 0.0 ? h.x + sqrt(far * far - dy * dy) : h.x + far;
	}
	for (uint32_t j = 0; j < rows.ny; j++) {
		double hx = trim ? half[j] : h.x + far;
		if (hx < 0.0)
			continue;
		axis_span(c.x - hx, c.x + hx, g->x0, g->inv_cw, g->nx, g->wrap, &rows.x0, &rows.nx);
		uint32_t at[4];
		int runs = span_row(g, &rows, j, at);
		for (int r = 0; r < runs; r++) {
			uint32_t from = g->disc_start[at[2 * r]], to = g->disc_start[at[2 * r + 1]];
			if (hits_room(out, near, to - from) != STEER_OK)
				return STEER_ERR_NOMEM;
			for (uint32_t k = from; k < to; k++) {
				/* box_dist, spelt out for the loop that runs the most */
				const steer_geom_disc *d = &g->discs[k];
				double dx = d->x - c.x, dy = d->y - c.y;
				if (wrap) {
					dx = wrap_any(dx, w->cfg.width);
					dy = wrap_any(dy, w->cfg.height);
				}
				dx = fabs(dx) - h.x;
				dy = fabs(dy) - h.y;
				dx = dx > 0.0 ? dx : 0.0;
				dy = dy > 0.0 ? dy : 0.0;
				double d2 = dx * dx + dy * dy, lim = d->r + reach;
				/* Surely out (a margin above rounding) without the square root. */
				if (d2 > lim * lim * (1.0 + 1e-12))
					continue;
				double dist = sqrt(d2);
				if (dist <= lim)
					hits_put(w, out, near, c, d, dist);
			}
		}
	}
	return STEER_OK;
}

static steer_status query_grid(const steer_world *w, steer_vec2 c, steer_vec2 h, double reach,
                               bool circles, bool near, steer_geom_hits *out)
{
	const steer_geom *g = &w->geom;
	if (circles && query_discs(w, c, h, reach, near, out) != STEER_OK)
		return STEER_ERR_NOMEM;
	if ((!circles || g->nbig == 0) && g->nsegs == 0)
		return STEER_OK;
	steer_vec2 e = v2(h.x + reach, h.y + reach);
	cell_span sp = box_span(g, v2_sub(c, e), v2_add(c, e));
	/* The wide circles: each taken in the first of its cells the span meets. */
	for (uint32_t j = 0; circles && g->nbig && j < sp.ny; j++)
		for (uint32_t i = 0; i < sp.nx; i++) {
			uint32_t cell = span_cell(g, &sp, i, j);
			for (uint32_t k = g->big_start[cell]; k < g->big_start[cell + 1]; k++) {
				uint32_t b = g->big_items[k];
				const uint32_t *cv = &g->big_cover[4 * b];
				if (i != first_covered(sp.x0, cv[0], cv[1], g->nx) ||
				    j != first_covered(sp.y0, cv[2], cv[3], g->ny))
					continue;
				steer_geom_disc d = disc_of(w, g->big_index[b]);
				double dist = box_dist(w, d.x, d.y, c, h);
				if (dist > d.r + reach)
					continue;
				if (hits_room(out, near, 1) != STEER_OK)
					return STEER_ERR_NOMEM;
				hits_put(w, out, near, c, &d, dist);
			}
		}
	/* The segments, filed in every cell they touch: the exact test first, so that
	 * what is left to sort is only what was found. */
	for (uint32_t j = 0; g->nsegs && j < sp.ny; j++) {
		uint32_t at[4];
		int runs = span_row(g, &sp, j, at);
		for (int r = 0; r < runs; r++)
			for (uint32_t k = g->seg_start[at[2 * r]]; k < g->seg_start[at[2 * r + 1]];
			     k++) {
				uint32_t s = g->seg_items[k];
				if (segment_near(w, s, c, h, reach) &&
				    hits_push(&out->segments, &out->nsegments, &out->segments_cap,
				              s) != STEER_OK)
					return STEER_ERR_NOMEM;
			}
	}
	out->nsegments = sort_unique(out->segments, out->nsegments);
	return STEER_OK;
}

/* What a query answers: the circles ascending, or in near, or none (segments only). */
typedef enum query_kind { Q_ORDERED, Q_NEAR, Q_SEGMENTS } query_kind;

static steer_status query(const steer_world *w, steer_vec2 c, steer_vec2 h, double reach,
                          query_kind kind, steer_geom_hits *out)
{
	out->ncircles = out->nnear = out->nsegments = 0;
	if (!(reach >= 0.0))
		reach = 0.0;
	bool fresh = grid_fresh(w), circles = kind != Q_SEGMENTS, near = kind == Q_NEAR;
	steer_status st = fresh ? query_grid(w, c, h, reach, circles, near, out)
	                        : query_all(w, c, h, reach, circles, near, out);
	if (st != STEER_OK)
		out->ncircles = out->nnear = out->nsegments = 0;
	else if (fresh)
		sort_u32(out->circles, out->ncircles);
	return st;
}

steer_status steer_geom_query(const steer_world *w, steer_vec2 p, double reach,
                              steer_geom_hits *out)
{
	return query(w, p, v2(0.0, 0.0), reach, Q_ORDERED, out);
}

steer_status steer_geom_query_segments(const steer_world *w, steer_vec2 p, double reach,
                                       steer_geom_hits *out)
{
	return query(w, p, v2(0.0, 0.0), reach, Q_SEGMENTS, out);
}

steer_status steer_geom_query_near(const steer_world *w, steer_vec2 p, double reach,
                                   steer_geom_hits *out)
{
	return query(w, p, v2(0.0, 0.0), reach, Q_NEAR, out);
}

steer_status steer_geom_query_box(const steer_world *w, steer_vec2 lo, steer_vec2 hi, double reach,
                                  steer_geom_hits *out)
{
	steer_vec2 h = v2(fmax(hi.x - lo.x, 0.0) * 0.5, fmax(hi.y - lo.y, 0.0) * 0.5);
	return query(w, v2_add(lo, h), h, reach, Q_ORDERED, out);
}

steer_status steer_geom_query_box_segments(const steer_world *w, steer_vec2 lo, steer_vec2 hi,
                                           double reach, steer_geom_hits *out)
{
	steer_vec2 h = v2(fmax(hi.x - lo.x, 0.0) * 0.5, fmax(hi.y - lo.y, 0.0) * 0.5);
	return query(w, v2_add(lo, h), h, reach, Q_SEGMENTS, out);
}

/* --- regions ----------------------------------------------------------------------- */

/* Whether the segment p0-p1 crosses a-b, counted half-open at both so that a crossing
 * through a shared vertex counts as the ray rule does. */
static bool crosses(steer_vec2 p0, steer_vec2 p1, steer_vec2 a, steer_vec2 b)
{
	return (orient(p0, p1, a) > 0.0) != (orient(p0, p1, b) > 0.0) &&
	       (orient(a, b, p0) > 0.0) != (orient(a, b, p1) > 0.0);
}

/* Whether p (in the world, wrapped) is inside region r, by the ray to +x. */
static bool region_holds_slow(const steer_geom *g, const steer_geom_region *r, steer_vec2 p)
{
	bool in = false;
	for (uint32_t k = r->first; k < r->first + r->count; k++) {
		steer_vec2 a = g->segs[k].a, b = g->segs[k].b;
		if ((a.y > p.y) != (b.y > p.y) &&
		    a.x + (p.y - a.y) / (b.y - a.y) * (b.x - a.x) > p.x)
			in = !in;
	}
	return in;
}

static bool in_list(const uint32_t *v, uint32_t from, uint32_t to, uint32_t x)
{
	for (uint32_t k = from; k < to; k++)
		if (v[k] == x)
			return true;
	return false;
}

static uint32_t region_of(const steer_geom *g, uint32_t seg)
{
	/* Regions come after the walls, in segment order: a binary search. */
	size_t lo = 0, hi = g->nregions;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (g->regions[mid].first + g->regions[mid].count <= seg)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < g->nregions && g->regions[lo].first <= seg ? (uint32_t)lo : STEER_SEG_NONE;
}

bool steer_geom_in_region(const steer_world *w, steer_vec2 p)
{
	const steer_geom *g = &w->geom;
	if (g->nregions == 0)
		return false;
	if (is_wrap(w)) { /* regions lie within the bounds there */
		p.x -= w->cfg.width * floor(p.x / w->cfg.width);
		p.y -= w->cfg.height * floor(p.y / w->cfg.height);
	}
	if (g->grid_stale || g->nx == 0) {
		for (size_t r = 0; r < g->nregions; r++)
			if (region_holds_slow(g, &g->regions[r], p) != g->regions[r].containing)
				return true;
		return false;
	}
	uint32_t cell = axis_cell(p.y, g->y0, g->ch, g->ny, false, 0.0) * g->nx +
	                axis_cell(p.x, g->x0, g->cw, g->nx, false, 0.0);
	steer_vec2 ref = cell_ref(g, cell);
	uint32_t r0 = g->reg_start[cell], r1 = g->reg_start[cell + 1];
	uint32_t s0 = g->seg_start[cell], s1 = g->seg_start[cell + 1];
	/* The regions with edges in the cell: the reference point's side, flipped by
	 * every edge between it and p (all of them are in the cell). */
	uint32_t k = s0;
	while (k < s1) {
		uint32_t r = region_of(g, g->seg_items[k]);
		bool flip = false;
		for (; k < s1 && region_of(g, g->seg_items[k]) == r; k++) {
			const steer_segment *s = &g->segs[g->seg_items[k]];
			if (r != STEER_SEG_NONE && crosses(ref, p, s->a, s->b))
				flip = !flip;
		}
		if (r != STEER_SEG_NONE && in_list(g->reg_items, r0, r1, r) != flip)
			return true;
	}
	/* The regions without edges here block p when they block the reference point. */
	for (uint32_t q = r0; q < r1; q++) {
		const steer_geom_region *reg = &g->regions[g->reg_items[q]];
		bool edges_here = false;
		for (uint32_t e = s0; e < s1 && !edges_here; e++)
			edges_here = g->seg_items[e] >= reg->first &&
			             g->seg_items[e] < reg->first + reg->count;
		if (!edges_here)
			return true;
	}
	return false;
}

/* --- blocked and free points --------------------------------------------------------- */

static bool disc_hits_circle(const steer_world *w, double x, double y, double r, steer_vec2 p,
                             double radius, double tol)
{
	steer_vec2 d = wrap_delta(w, v2(x - p.x, y - p.y));
	double d2 = v2_len2(d), m = r + radius;
	/* With tol 0 (the tick's callers), a disc surely clear without the square root:
	 * r + radius - |d| > 0 just when |d| < r + radius. */
	if (tol == 0.0 && d2 > m * m * (1.0 + 1e-12))
		return false;
	return r + radius - sqrt(d2) > tol;
}

static bool disc_hits_segment(const steer_world *w, size_t k, steer_vec2 p, double radius,
                              double tol)
{
	steer_vec2 a, b;
	seg_rel(w, &w->geom.segs[k], p, &a, &b);
	double s = steer_seg_dist2(a, b, v2(0, 0));
	if (tol == 0.0 && s > radius * radius * (1.0 + 1e-12))
		return false; /* surely clear, as disc_hits_circle */
	return radius - sqrt(s) > tol;
}

bool steer_geom_blocked(const steer_world *w, steer_vec2 p, double radius, double tol)
{
	if (steer_geom_in_region(w, p))
		return true;
	const steer_geom *g = &w->geom;
	if (!grid_fresh(w)) {
		for (size_t k = 0; k < w->obs_count; k++) {
			const steer_obstacle *o = &w->obs[k];
			if (disc_hits_circle(w, o->x, o->y, o->r, p, radius, tol))
				return true;
		}
		for (size_t k = 0; k < g->nsegs; k++)
			if (disc_hits_segment(w, k, p, radius, tol))
				return true;
		return false;
	}
	double e = radius + fmax(-tol, 0.0), ce = e + g->disc_rmax;
	cell_span sp = box_span(g, v2(p.x - ce, p.y - ce), v2(p.x + ce, p.y + ce));
	for (uint32_t j = 0; j < sp.ny; j++) {
		uint32_t at[4];
		int runs = span_row(g, &sp, j, at);
		for (int r = 0; r < runs; r++)
			for (uint32_t k = g->disc_start[at[2 * r]];
			     k < g->disc_start[at[2 * r + 1]]; k++) {
				const steer_geom_disc *d = &g->discs[k];
				if (disc_hits_circle(w, d->x, d->y, d->r, p, radius, tol))
					return true;
			}
	}
	sp = box_span(g, v2(p.x - e, p.y - e), v2(p.x + e, p.y + e));
	for (uint32_t j = 0; j < sp.ny; j++) {
		uint32_t at[4];
		int runs = span_row(g, &sp, j, at);
		for (int r = 0; r < runs; r++) {
			for (uint32_t k = g->seg_start[at[2 * r]]; k < g->seg_start[at[2 * r + 1]];
			     k++)
				if (disc_hits_segment(w, g->seg_items[k], p, radius, tol))
					return true;
			for (uint32_t c = at[2 * r]; g->nbig && c < at[2 * r + 1]; c++)
				for (uint32_t k = g->big_start[c]; k < g->big_start[c + 1]; k++) {
					const steer_obstacle *o =
					    &w->obs[g->big_index[g->big_items[k]]];
					if (disc_hits_circle(w, o->x, o->y, o->r, p, radius, tol))
						return true;
				}
		}
	}
	return false;
}

/* The shapes a free disc's centre keeps out of, near p, relative to p: circles (an
 * obstacle grown by the radius, a segment's end cap) and lines (a segment's side moved
 * out by the radius). */
typedef struct prim {
	bool line;
	steer_vec2 a, b; /* a line's ends; a circle's centre in a */
	double r;
} prim;

static void add_candidate(const steer_world *w, steer_vec2 p, double radius, steer_vec2 q,
                          steer_vec2 *best, double *best_d)
{
	double d = v2_len(q);
	if (!(d < *best_d))
		return;
	steer_vec2 at = v2_add(p, q);
	if (!steer_vec_ok(at) || steer_geom_blocked(w, at, radius, 0.0))
		return;
	*best = at;
	*best_d = d;
}

/* Where two shapes' outlines meet: up to two points in out. */
static int meet(const prim *s, const prim *t, steer_vec2 out[2])
{
	if (!s->line && !t->line) {
		steer_vec2 d = v2_sub(t->a, s->a);
		double l = v2_len(d);
		if (!(l > 0.0) || l > s->r + t->r || l < fabs(s->r - t->r))
			return 0;
		double x = (l * l + s->r * s->r - t->r * t->r) / (2.0 * l);
		double y = sqrt(fmax(s->r * s->r - x * x, 0.0));
		steer_vec2 u = v2_scale(d, 1.0 / l), m = v2_add(s->a, v2_scale(u, x));
		out[0] = v2_add(m, v2_scale(v2_perp(u), y));
		out[1] = v2_sub(m, v2_scale(v2_perp(u), y));
		return 2;
	}
	if (s->line && t->line) {
		double tt;
		if (!steer_seg_cross(s->a, s->b, t->a, t->b, &tt))
			return 0;
		out[0] = v2_add(s->a, v2_scale(v2_sub(s->b, s->a), tt));
		return 1;
	}
	const prim *ln = s->line ? s : t, *c = s->line ? t : s;
	steer_vec2 d = v2_sub(ln->b, ln->a), f = v2_sub(ln->a, c->a);
	double a = v2_len2(d), b = v2_dot(f, d), cc = v2_len2(f) - c->r * c->r;
	double disc = b * b - a * cc;
	if (!(a > 0.0) || disc < 0.0)
		return 0;
	int n = 0;
	for (int k = 0; k < 2; k++) {
		double tt = (-b + (k ? 1.0 : -1.0) * sqrt(disc)) / a;
		if (tt >= 0.0 && tt <= 1.0)
			out[n++] = v2_add(ln->a, v2_scale(d, tt));
	}
	return n;
}

static steer_status gather_prims(const steer_world *w, steer_vec2 p, double grown,
                                 const steer_geom_hits *h, prim **ps, size_t *n, size_t *cap)
{
	*n = 0;
	for (size_t k = 0; k < h->ncircles; k++) {
		const steer_obstacle *o = &w->obs[h->circles[k]];
		prim c = {false, wrap_delta(w, v2_sub(v2(o->x, o->y), p)), v2(0, 0), o->r + grown};
		if (steer_reserve((void **)ps, cap, *n + 1, sizeof **ps) != STEER_OK)
			return STEER_ERR_NOMEM;
		(*ps)[(*n)++] = c;
	}
	for (size_t k = 0; k < h->nsegments; k++) {
		const steer_segment *s = &w->geom.segs[h->segments[k]];
		steer_vec2 a, b;
		steer_geom_seg_rel(w, s, p, &a, &b);
		steer_vec2 off = v2_scale(s->n, grown);
		prim add[4] = {{false, a, v2(0, 0), grown},
		               {false, b, v2(0, 0), grown},
		               {true, v2_add(a, off), v2_add(b, off), 0.0},
		               {true, v2_sub(a, off), v2_sub(b, off), 0.0}};
		int m = s->flags & STEER_SEG_TWO_SIDED ? 4 : 3;
		if (steer_reserve((void **)ps, cap, *n + (size_t)m, sizeof **ps) != STEER_OK)
			return STEER_ERR_NOMEM;
		for (int q = 0; q < m; q++)
			(*ps)[(*n)++] = add[q];
	}
	return STEER_OK;
}

/* The nearest free candidate among the shapes' nearest points and their meeting
 * points, or *best_d stays infinite. */
static void best_candidate(const steer_world *w, steer_vec2 p, double radius, const prim *ps,
                           size_t n, steer_vec2 *best, double *best_d)
{
	for (size_t k = 0; k < n; k++) {
		const prim *s = &ps[k];
		steer_vec2 q;
		if (s->line) {
			q = steer_seg_closest(s->a, s->b, v2(0, 0));
		} else {
			steer_vec2 away =
			    v2_len2(s->a) > 0.0 ? v2_norm(v2_scale(s->a, -1.0)) : v2(1, 0);
			q = v2_add(s->a, v2_scale(away, s->r));
		}
		add_candidate(w, p, radius, q, best, best_d);
	}
	for (size_t k = 0; k < n; k++)
		for (size_t m = k + 1; m < n; m++) {
			steer_vec2 at[2];
			int c = meet(&ps[k], &ps[m], at);
			for (int q = 0; q < c; q++)
				add_candidate(w, p, radius, at[q], best, best_d);
		}
}

steer_status steer_geom_free_point(const steer_world *w, steer_vec2 p, double radius,
                                   steer_vec2 *out)
{
	*out = p;
	if (!(radius >= 0.0))
		radius = 0.0;
	if (!steer_geom_blocked(w, p, radius, 0.0))
		return STEER_OK;
	/* Candidates stand a hair outside the shapes, so rounding cannot put them in. */
	double grown = radius * (1.0 + 1e-9) + 1e-9 * fmax(1.0, v2_len(p) * 1e-3);
	steer_geom_hits h = {0};
	prim *ps = NULL;
	size_t n = 0, cap = 0;
	steer_status st = STEER_ERR_NOENT;
	double reach = fmax(4.0 * radius, 1.0);
	for (;;) {
		if (steer_geom_query(w, p, reach, &h) != STEER_OK ||
		    gather_prims(w, p, grown, &h, &ps, &n, &cap) != STEER_OK) {
			st = STEER_ERR_NOMEM;
			break;
		}
		steer_vec2 best = p;
		double best_d = INFINITY;
		best_candidate(w, p, radius, ps, n, &best, &best_d);
		bool everything = h.ncircles == w->obs_count && h.nsegments == w->geom.nsegs;
		/* A candidate nearer than reach - radius depends only on shapes within reach:
		 * none further off could offer a nearer one. */
		if (best_d <= reach - grown || (everything && best_d < INFINITY)) {
			*out = best;
			st = STEER_OK;
			break;
		}
		if (everything || !(reach < 1e15))
			break; /* every shape seen, and no room anywhere */
		reach *= 2.0;
	}
	if (st == STEER_OK && is_wrap(w)) {
		out->x -= w->cfg.width * floor(out->x / w->cfg.width);
		out->y -= w->cfg.height * floor(out->y / w->cfg.height);
		if (out->x >= w->cfg.width)
			out->x = 0.0;
		if (out->y >= w->cfg.height)
			out->y = 0.0;
	}
	steer_geom_hits_free(&h);
	free(ps);
	return st;
}
