/* Reading the obstacle index: what lies near a disc or a box, in index order;
 * which region a point is in; whether a disc is blocked; the nearest free point. */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "geometry.h"
#include "geometry_internal.h"
#include "reserve.h"
#include "sort_u32.h"
#include "world_internal.h"

static bool segment_near(const steer_world *w, size_t k, steer_vec2 c, steer_vec2 h, double reach)
{
	steer_vec2 a, b;
	steer_geom_rel(w, &w->geom.segs[k], c, &a, &b);
	double r2 = reach * reach;
	if (h.x != 0.0 || h.y != 0.0)
		return steer_geom_seg_box_dist2(a, b, h.x, h.y) <= r2;
	/* A point: seg_box_dist2 is the least of the clip's 0 (the segment through the
	 * point), the ends' squares and the nearest point's square s. Its clip can find
	 * the point only when s is within rounding of 0; else the rest decide alike. */
	double s = steer_seg_dist2(a, b, v2(0, 0));
	if (s <= r2)
		return true;
	double a2 = v2_len2(a), b2 = v2_len2(b);
	if (s > 1e-20 * (a2 + b2))
		return a2 <= r2 || b2 <= r2;
	return steer_geom_seg_box_dist2(a, b, 0.0, 0.0) <= r2;
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
	steer_sort_u32_insertion(v, n);
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
	if (steer_geom_is_wrap(w) &&
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
		double dist = steer_geom_box_dist(w, d.x, d.y, c, h);
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
	bool wrap = steer_geom_is_wrap(w);
	double far = reach + g->disc_rmax;
	cell_span rows;
	steer_geom_axis_span(c.y - h.y - far, c.y + h.y + far, g->y0, g->inv_ch, g->ny, g->wrap,
	                     &rows.y0, &rows.ny);
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
		steer_geom_axis_span(c.x - hx, c.x + hx, g->x0, g->inv_cw, g->nx, g->wrap, &rows.x0,
		                     &rows.nx);
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
					dx = steer_geom_wrap_any(dx, w->cfg.width);
					dy = steer_geom_wrap_any(dy, w->cfg.height);
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
	cell_span sp = steer_geom_box_span(g, v2_sub(c, e), v2_add(c, e));
	/* The wide circles: each taken in the first of its cells the span meets. */
	for (uint32_t j = 0; circles && g->nbig && j < sp.ny; j++)
		for (uint32_t i = 0; i < sp.nx; i++) {
			uint32_t cell = steer_geom_span_cell(g, &sp, i, j);
			for (uint32_t k = g->big_start[cell]; k < g->big_start[cell + 1]; k++) {
				uint32_t b = g->big_items[k];
				const uint32_t *cv = &g->big_cover[4 * b];
				if (i != first_covered(sp.x0, cv[0], cv[1], g->nx) ||
				    j != first_covered(sp.y0, cv[2], cv[3], g->ny))
					continue;
				steer_geom_disc d = disc_of(w, g->big_index[b]);
				double dist = steer_geom_box_dist(w, d.x, d.y, c, h);
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
	bool fresh = steer_geom_grid_fresh(w), circles = kind != Q_SEGMENTS, near = kind == Q_NEAR;
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
	return (steer_geom_orient(p0, p1, a) > 0.0) != (steer_geom_orient(p0, p1, b) > 0.0) &&
	       (steer_geom_orient(a, b, p0) > 0.0) != (steer_geom_orient(a, b, p1) > 0.0);
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
	if (steer_geom_is_wrap(w)) { /* regions lie within the bounds there */
		p.x -= w->cfg.width * floor(p.x / w->cfg.width);
		p.y -= w->cfg.height * floor(p.y / w->cfg.height);
	}
	if (g->grid_stale || g->nx == 0) {
		for (size_t r = 0; r < g->nregions; r++)
			if (region_holds_slow(g, &g->regions[r], p) != g->regions[r].containing)
				return true;
		return false;
	}
	uint32_t cell = steer_geom_axis_cell(p.y, g->y0, g->ch, g->ny, false, 0.0) * g->nx +
	                steer_geom_axis_cell(p.x, g->x0, g->cw, g->nx, false, 0.0);
	steer_vec2 ref = steer_geom_cell_ref(g, cell);
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
	steer_vec2 d = steer_geom_wrap_delta(w, v2(x - p.x, y - p.y));
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
	steer_geom_rel(w, &w->geom.segs[k], p, &a, &b);
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
	if (!steer_geom_grid_fresh(w)) {
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
	cell_span sp = steer_geom_box_span(g, v2(p.x - ce, p.y - ce), v2(p.x + ce, p.y + ce));
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
	sp = steer_geom_box_span(g, v2(p.x - e, p.y - e), v2(p.x + e, p.y + e));
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
		prim c = {false, steer_geom_wrap_delta(w, v2_sub(v2(o->x, o->y), p)), v2(0, 0),
		          o->r + grown};
		if (steer_reserve((void **)ps, cap, *n + 1, sizeof **ps) != STEER_OK)
			return STEER_ERR_NOMEM;
		(*ps)[(*n)++] = c;
	}
	for (size_t k = 0; k < h->nsegments; k++) {
		const steer_segment *s = &w->geom.segs[h->segments[k]];
		steer_vec2 a, b;
		steer_geom_rel(w, s, p, &a, &b);
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
	if (st == STEER_OK && steer_geom_is_wrap(w)) {
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
