/* The world's geometry as segments: walls, polygon edges and contained bounds, the
 * versions clients see, and the primitives (crossings, swept discs) the rest uses. */
#include "geometry.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "geometry_internal.h"
#include "reserve.h"
#include "world_internal.h"

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

void steer_geom_seg_rel(const steer_world *w, const steer_segment *s, steer_vec2 p, steer_vec2 *a,
                        steer_vec2 *b)
{
	steer_geom_rel(w, s, p, a, b);
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
		bool convex = steer_geom_orient(p[ip], p[i0], p[i1]) >= 0.0;
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
	double limit = steer_geom_is_wrap(w) ? fmin(c->width, c->height) * 0.25 : INFINITY;
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
	if (c->contain && steer_geom_is_wrap(w)) {
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
