/* A world's shapes: circle obstacles, walls and polygons, each with an id from the
 * vehicles' sequence, and the geometry's version each change moves. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "motion.h"
#include "planner.h"
#include "reserve.h"
#include "world_internal.h"
#include "world_parts.h"

int steer_world_threads(const steer_world *w)
{
	return w->threads;
}

steer_simd_level steer_world_set_simd(steer_world *w, steer_simd_level level)
{
	w->kernel = steer_kernel_for(level);
	w->grid.kernel = w->kernel;
	w->avoid_grid.kernel = w->kernel;
	return w->kernel->level;
}

steer_simd_level steer_world_simd(const steer_world *w)
{
	return w->kernel->level;
}

_Static_assert(STEER_MAX_THREADS == STEER_POOL_MAX_THREADS, "one ceiling on threads");

steer_status steer_world_set_threads(steer_world *w, int threads)
{
	if (threads < 1 || threads > STEER_MAX_THREADS)
		return STEER_ERR_INVALID;
	if (threads == w->threads)
		return STEER_OK;
	steer_pool *pool = NULL;
	if (threads > 1 && !(pool = steer_pool_create(threads)))
		return STEER_ERR_NOMEM;
	steer_pool_destroy(w->pool);
	steer_pool_time_runs(pool, w->timing); /* a new pool's runs from zero, like the phases */
	w->pool = pool;
	w->grid.pool = pool;
	w->avoid_grid.pool = pool;
	w->threads = threads;
	return STEER_OK;
}

/* --- walls and polygons ---------------------------------------------------------- */

const steer_wall *steer_world_walls(const steer_world *w, size_t *count)
{
	*count = w->wall_count;
	return w->walls;
}

const steer_polygon *steer_world_polygons(const steer_world *w, size_t *count)
{
	*count = w->poly_count;
	return w->polys;
}

const steer_wall *steer_wall_get(const steer_world *w, uint32_t id)
{
	uint32_t slot;
	if (!steer_idmap_get(&w->ids, id, &slot) || (slot & KIND_MASK) != WALL_SLOT)
		return NULL;
	return &w->walls[slot & ~KIND_MASK];
}

const steer_polygon *steer_polygon_get(const steer_world *w, uint32_t id)
{
	uint32_t slot;
	if (!steer_idmap_get(&w->ids, id, &slot) || (slot & KIND_MASK) != POLYGON_SLOT)
		return NULL;
	return &w->polys[slot & ~KIND_MASK];
}

uint64_t steer_world_geometry_version(const steer_world *w)
{
	return steer_geom_version(w);
}

steer_status steer_world_free_point(const steer_world *w, steer_vec2 p, double radius,
                                    steer_vec2 *out)
{
	if (!steer_world_finite2(p) || !(radius >= 0.0 && radius <= STEER_PARAM_MAX)) {
		*out = p;
		return STEER_ERR_INVALID;
	}
	return steer_geom_free_point(w, p, radius, out);
}

/* Adds a wall with the given id (next_id for a new one). */
static steer_status insert_wall(steer_world *w, uint32_t id, steer_vec2 a, steer_vec2 b)
{
	if (!steer_world_finite2(a) || !steer_world_finite2(b) || (a.x == b.x && a.y == b.y))
		return STEER_ERR_INVALID;
	if (id >= OBSTACLE_SLOT)
		return STEER_ERR_LIMIT;
	if (steer_reserve((void **)&w->walls, &w->wall_cap, w->wall_count + 1, sizeof *w->walls) !=
	    STEER_OK)
		return STEER_ERR_NOMEM;
	size_t i = w->wall_count;
	if (steer_idmap_put(&w->ids, id, (uint32_t)i | WALL_SLOT) != STEER_OK)
		return STEER_ERR_NOMEM;
	w->walls[i] = (steer_wall){id, a, b};
	w->wall_count++;
	if (steer_geom_rebuild(w) != STEER_OK) {
		w->wall_count--;
		steer_idmap_del(&w->ids, id);
		return STEER_ERR_NOMEM;
	}
	if (id >= w->next_id)
		w->next_id = id + 1;
	return STEER_OK;
}

steer_status steer_wall_add(steer_world *w, steer_vec2 a, steer_vec2 b, uint32_t *id_out)
{
	uint32_t id = w->next_id;
	steer_status st = insert_wall(w, id, a, b);
	if (st == STEER_OK && id_out)
		*id_out = id;
	return st;
}

steer_status steer_wall_restore(steer_world *w, const steer_wall *wall)
{
	if (wall->id == 0 || wall->id >= OBSTACLE_SLOT || steer_world_id_in_use(w, wall->id))
		return STEER_ERR_INVALID;
	return insert_wall(w, wall->id, wall->a, wall->b);
}

/* Whether edges k and m (k < m) of the ring p[0..n) cross or touch where they should
 * not: neighbours may share only their common vertex. */
static bool edges_clash(const steer_vec2 *p, size_t n, size_t k, size_t m)
{
	steer_vec2 a = p[k], b = p[(k + 1) % n], c = p[m], d = p[(m + 1) % n];
	double t;
	bool next = m == k + 1, wrap = k == 0 && m == n - 1;
	if (!next && !wrap)
		return steer_seg_cross(a, b, c, d, &t);
	/* Neighbours: they clash when they fold back over each other (collinear and
	 * overlapping beyond the shared vertex). */
	steer_vec2 shared = next ? b : a, u = next ? a : b, v = next ? d : c;
	return v2_cross(v2_sub(u, shared), v2_sub(v, shared)) == 0.0 &&
	       v2_dot(v2_sub(u, shared), v2_sub(v, shared)) > 0.0;
}

/* in_bounds: whether a wrap world asks the points to lie within its bounds (a new
 * polygon; a restored one is kept as it was saved, whatever the bounds did since). */
static steer_status check_polygon(const steer_world *w, const steer_vec2 *pts, size_t n,
                                  bool in_bounds, char *err, size_t errlen)
{
	const steer_world_config *c = &w->cfg;
	if (n < 3 || n > STEER_MAX_POLYGON_POINTS) {
		snprintf(err, errlen, "a polygon needs 3 to %u points", STEER_MAX_POLYGON_POINTS);
		return STEER_ERR_INVALID;
	}
	for (size_t k = 0; k < n; k++) {
		steer_vec2 p = pts[k], q = pts[(k + 1) % n];
		if (!steer_world_finite2(p)) {
			snprintf(err, errlen, "polygon point %zu is not a finite coordinate",
			         k + 1);
			return STEER_ERR_INVALID;
		}
		if (in_bounds && c->edges == STEER_EDGE_WRAP &&
		    !(p.x >= 0.0 && p.x <= c->width && p.y >= 0.0 && p.y <= c->height)) {
			snprintf(
			    err, errlen,
			    "polygon point %zu is outside the world: in a wrap world a polygon "
			    "lies within 0..%g x 0..%g",
			    k + 1, c->width, c->height);
			return STEER_ERR_INVALID;
		}
		if (p.x == q.x && p.y == q.y) {
			snprintf(err, errlen, "polygon points %zu and %zu are the same", k + 1,
			         (k + 1) % n + 1);
			return STEER_ERR_INVALID;
		}
	}
	bool flat = true;
	for (size_t k = 2; k < n && flat; k++)
		flat = v2_cross(v2_sub(pts[1], pts[0]), v2_sub(pts[k], pts[0])) == 0.0;
	if (flat) {
		snprintf(err, errlen, "the polygon has no area: its points are on one line");
		return STEER_ERR_INVALID;
	}
	for (size_t k = 0; k < n; k++)
		for (size_t m = k + 1; m < n; m++)
			if (edges_clash(pts, n, k, m)) {
				snprintf(err, errlen, "polygon edges %zu and %zu cross", k + 1,
				         m + 1);
				return STEER_ERR_INVALID;
			}
	double area = 0.0;
	for (size_t k = 0; k < n; k++)
		area += v2_cross(pts[k], pts[(k + 1) % n]);
	if (area == 0.0) {
		snprintf(err, errlen, "the polygon has no area");
		return STEER_ERR_INVALID;
	}
	return STEER_OK;
}

static steer_status insert_polygon(steer_world *w, uint32_t id, const steer_vec2 *pts, size_t n,
                                   bool inside, bool in_bounds, char *err, size_t errlen)
{
	/* A ring closed by repeating its first point is the same ring. */
	if (n > 3 && pts[0].x == pts[n - 1].x && pts[0].y == pts[n - 1].y)
		n--;
	steer_status st = check_polygon(w, pts, n, in_bounds, err, errlen);
	if (st != STEER_OK)
		return st;
	if (id >= OBSTACLE_SLOT) {
		snprintf(err, errlen, "out of ids");
		return STEER_ERR_LIMIT;
	}
	steer_vec2 *copy = malloc(n * sizeof *copy);
	if (!copy || steer_reserve((void **)&w->polys, &w->poly_cap, w->poly_count + 1,
	                           sizeof *w->polys) != STEER_OK) {
		free(copy);
		snprintf(err, errlen, "out of memory");
		return STEER_ERR_NOMEM;
	}
	memcpy(copy, pts, n * sizeof *copy);
	size_t i = w->poly_count;
	if (steer_idmap_put(&w->ids, id, (uint32_t)i | POLYGON_SLOT) != STEER_OK) {
		free(copy);
		snprintf(err, errlen, "out of memory");
		return STEER_ERR_NOMEM;
	}
	w->polys[i] = (steer_polygon){id, inside, (uint32_t)n, copy};
	w->poly_count++;
	if (steer_geom_rebuild(w) != STEER_OK) {
		w->poly_count--;
		steer_idmap_del(&w->ids, id);
		free(copy);
		snprintf(err, errlen, "out of memory");
		return STEER_ERR_NOMEM;
	}
	if (id >= w->next_id)
		w->next_id = id + 1;
	return STEER_OK;
}

steer_status steer_polygon_add(steer_world *w, const steer_vec2 *pts, size_t n, bool inside,
                               uint32_t *id_out, char *err, size_t errlen)
{
	uint32_t id = w->next_id;
	steer_status st = insert_polygon(w, id, pts, n, inside, true, err, errlen);
	if (st == STEER_OK && id_out)
		*id_out = id;
	return st;
}

steer_status steer_polygon_restore(steer_world *w, const steer_polygon *p, char *err, size_t errlen)
{
	if (p->id == 0 || p->id >= OBSTACLE_SLOT || steer_world_id_in_use(w, p->id)) {
		snprintf(err, errlen, "polygon id %u is invalid or in use", p->id);
		return STEER_ERR_INVALID;
	}
	return insert_polygon(w, p->id, p->points, p->count, p->inside, false, err, errlen);
}
