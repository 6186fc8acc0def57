/* Walls, polygons and the obstacle index: storage and ids, polygon checks, the index
 * against a scan of everything, regions (inside solid, outside containing), free
 * points, wrap worlds, the swept tests, queries from many threads. */
#include <math.h>
#include <pthread.h>
#include <string.h>

#include "check.h"
#include "geometry.h"
#include "testutil.h"
#include "world_internal.h"

static steer_vec2 pts_buf[16];

static uint32_t add_poly(steer_world *w, const double *xy, size_t n, bool inside)
{
	for (size_t k = 0; k < n; k++)
		pts_buf[k] = v2(xy[2 * k], xy[2 * k + 1]);
	char err[160] = "";
	uint32_t id = 0;
	steer_status st = steer_polygon_add(w, pts_buf, n, inside, &id, err, sizeof err);
	CHECK(st == STEER_OK, "polygon refused: %s", err);
	return id;
}

static void ids_share_the_sequence(void)
{
	steer_world *w = make_world(1000, 600, STEER_EDGE_BOUNCE, 1);
	uint32_t v = add_vehicle(w, 10, 10, 0, 0, NULL), wall = 0, obs = 0;
	CHECK(steer_wall_add(w, v2(100, 100), v2(200, 100), &wall) == STEER_OK, "wall");
	CHECK(steer_obstacle_add(w, v2(300, 300), v2(0, 0), 10, &obs) == STEER_OK, "obstacle");
	double sq[] = {400, 400, 450, 400, 450, 450, 400, 450};
	uint32_t poly = add_poly(w, sq, 4, false);
	CHECK(v == 1 && wall == 2 && obs == 3 && poly == 4, "ids %u %u %u %u", v, wall, obs, poly);
	CHECK(steer_wall_get(w, wall) && steer_wall_get(w, wall)->b.x == 200, "wall get");
	CHECK(!steer_wall_get(w, poly) && !steer_polygon_get(w, wall), "kinds kept apart");
	CHECK(steer_vehicle_index(w, wall) < 0 && steer_vehicle_index(w, poly) < 0, "not vehicles");
	CHECK(!steer_obstacle_get(w, wall) && !steer_obstacle_get(w, poly), "not obstacles");
	const steer_polygon *p = steer_polygon_get(w, poly);
	CHECK(p && p->count == 4 && !p->inside && p->points[2].x == 450, "polygon get");
	uint64_t ver = steer_world_geometry_version(w);
	CHECK(steer_remove(w, wall) == STEER_OK && !steer_wall_get(w, wall), "wall removed");
	CHECK(steer_world_geometry_version(w) != ver, "removal changes the geometry version");
	CHECK(steer_remove(w, wall) == STEER_ERR_NOENT, "removed once");
	uint32_t again = 0;
	steer_wall_add(w, v2(0, 0), v2(1, 1), &again);
	CHECK(again == 5, "ids not reused: %u", again);
	size_t nw, np;
	steer_world_walls(w, &nw);
	steer_world_polygons(w, &np);
	CHECK(nw == 1 && np == 1, "%zu walls %zu polygons", nw, np);
	CHECK(steer_remove(w, poly) == STEER_OK && !steer_polygon_get(w, poly), "polygon removed");
	CHECK(steer_wall_get(w, again) != NULL, "the other wall stays");
	steer_world_reset(w);
	steer_world_walls(w, &nw);
	steer_world_polygons(w, &np);
	size_t ns;
	steer_geom_segments(w, &ns);
	CHECK(nw == 0 && np == 0 && ns == 0, "reset clears: %zu %zu %zu", nw, np, ns);
	steer_world_destroy(w);
}

static void bad_polygons_are_refused(void)
{
	steer_world *w = make_world(1000, 600, STEER_EDGE_WRAP, 1);
	char err[160];
	steer_vec2 two[2] = {v2(0, 0), v2(1, 1)};
	steer_vec2 bow[4] = {v2(10, 10), v2(20, 20), v2(20, 10), v2(10, 20)};
	steer_vec2 flat[3] = {v2(10, 10), v2(20, 20), v2(30, 30)};
	steer_vec2 dup[4] = {v2(10, 10), v2(20, 10), v2(20, 10), v2(10, 20)};
	steer_vec2 out[3] = {v2(990, 10), v2(1010, 10), v2(1000, 30)};
	steer_vec2 closed[4] = {v2(10, 10), v2(20, 10), v2(10, 20), v2(10, 10)};
	uint32_t id;
	CHECK(steer_polygon_add(w, two, 2, false, &id, err, sizeof err) == STEER_ERR_INVALID, "2");
	CHECK(steer_polygon_add(w, bow, 4, false, &id, err, sizeof err) == STEER_ERR_INVALID &&
	          strstr(err, "cross"),
	      "bow tie: %s", err);
	CHECK(steer_polygon_add(w, flat, 3, false, &id, err, sizeof err) == STEER_ERR_INVALID,
	      "flat");
	CHECK(steer_polygon_add(w, dup, 4, false, &id, err, sizeof err) == STEER_ERR_INVALID &&
	          strstr(err, "same"),
	      "dup: %s", err);
	CHECK(steer_polygon_add(w, out, 3, false, &id, err, sizeof err) == STEER_ERR_INVALID &&
	          strstr(err, "outside"),
	      "outside a wrap world: %s", err);
	CHECK(steer_polygon_add(w, closed, 4, false, &id, err, sizeof err) == STEER_OK &&
	          steer_polygon_get(w, id)->count == 3,
	      "a repeated first point closes the ring");
	CHECK(steer_wall_add(w, v2(5, 5), v2(5, 5), &id) == STEER_ERR_INVALID, "point wall");
	CHECK(steer_wall_add(w, v2(NAN, 5), v2(5, 5), &id) == STEER_ERR_INVALID, "NaN wall");
	steer_world_destroy(w);
}

/* Solid polygons' edges run counterclockwise (free side to the right, where n
 * points: outward); containing ones' clockwise (n inward), whatever order was given. */
static void segments_face_the_free_side(void)
{
	steer_world *w = make_world(1000, 600, STEER_EDGE_BOUNCE, 1);
	double cw[] = {100, 100, 100, 200, 200, 200, 200, 100}; /* clockwise */
	double ccw[] = {300, 100, 400, 100, 400, 200, 300, 200};
	uint32_t a = add_poly(w, cw, 4, false), b = add_poly(w, ccw, 4, true);
	size_t n;
	const steer_segment *s = steer_geom_segments(w, &n);
	CHECK(n == 8, "%zu segments", n);
	for (size_t k = 0; k < n; k++) {
		steer_vec2 centre = s[k].owner == a ? v2(150, 150) : v2(350, 150);
		steer_vec2 mid = v2_scale(v2_add(s[k].a, s[k].b), 0.5);
		double out = v2_dot(v2_sub(mid, centre), s[k].n);
		CHECK(s[k].owner == a ? out > 0 : out < 0, "segment %zu of %u faces %g", k,
		      s[k].owner, out);
		/* Seen from the free side, a solid square's corners stick out (convex), a
		 * containing square's are reflex. */
		CHECK(!(s[k].flags & STEER_SEG_CONVEX_A) == (s[k].owner == b), "corner %zu", k);
		CHECK(s[s[k].next].prev == k && v2_len(v2_sub(s[s[k].next].a, s[k].b)) == 0.0,
		      "ring links");
	}
	steer_world_destroy(w);
}

/* A world with a bit of everything, for comparing the index with a full scan. */
static steer_world *cluttered(steer_edges e, uint64_t seed)
{
	steer_world *w = make_world(1000, 600, e, seed);
	steer_rng *rng = steer_world_rng(w);
	for (int k = 0; k < 150; k++)
		steer_obstacle_add(w,
		                   v2(steer_rng_range(rng, 0, 1000), steer_rng_range(rng, 0, 600)),
		                   v2(steer_rng_range(rng, -50, 50), steer_rng_range(rng, -50, 50)),
		                   steer_rng_range(rng, 2, 40), NULL);
	for (int k = 0; k < 60; k++) {
		double x = steer_rng_range(rng, 0, 1000), y = steer_rng_range(rng, 0, 600);
		steer_wall_add(
		    w, v2(x, y),
		    v2(x + steer_rng_range(rng, -300, 300), y + steer_rng_range(rng, -300, 300)),
		    NULL);
	}
	/* A C-shaped (concave) polygon and a containing one round most of the world. */
	double c[] = {500, 100, 700, 100, 700, 150, 550, 150,
	              550, 250, 700, 250, 700, 300, 500, 300};
	add_poly(w, c, 8, false);
	double room[] = {20, 20, 980, 20, 980, 580, 20, 580};
	add_poly(w, room, 4, true);
	return w;
}

static bool same_hits(const steer_geom_hits *a, const steer_geom_hits *b)
{
	return a->ncircles == b->ncircles && a->nsegments == b->nsegments &&
	       (!a->ncircles ||
	        !memcmp(a->circles, b->circles, a->ncircles * sizeof *a->circles)) &&
	       (!a->nsegments ||
	        !memcmp(a->segments, b->segments, a->nsegments * sizeof *a->segments));
}

/* The grid's answers are the full scan's, in the same (ascending) order, point and
 * box, in each kind of world and after the circles have moved. */
static void index_answers_as_a_full_scan(void)
{
	steer_edges kinds[3] = {STEER_EDGE_BOUNCE, STEER_EDGE_NONE, STEER_EDGE_WRAP};
	for (int e = 0; e < 3; e++) {
		steer_world *w = cluttered(kinds[e], 7 + (uint64_t)e);
		step(w, 3);
		steer_rng rng;
		steer_rng_seed(&rng, 99, 1);
		steer_geom_hits slow = {0}, fast = {0};
		int bad = 0, found = 0, regions_bad = 0;
		for (int q = 0; q < 3000; q++) {
			steer_vec2 p =
			    v2(steer_rng_range(&rng, -100, 1100), steer_rng_range(&rng, -100, 700));
			double reach = steer_rng_range(&rng, 0, q % 10 == 0 ? 300 : 60);
			steer_vec2 hi = v2_add(
			    p, v2(steer_rng_range(&rng, 0, 50), steer_rng_range(&rng, 0, 50)));
			bool box = q % 3 == 0;
			steer_geom_circles_moved(w); /* forces the full scan */
			bool slow_in = steer_geom_in_region(w, p);
			if (box)
				steer_geom_query_box(w, p, hi, reach, &slow);
			else
				steer_geom_query(w, p, reach, &slow);
			CHECK(steer_geom_update(w) == STEER_OK, "update");
			if (box)
				steer_geom_query_box(w, p, hi, reach, &fast);
			else
				steer_geom_query(w, p, reach, &fast);
			bad += !same_hits(&slow, &fast);
			found += (int)(fast.ncircles + fast.nsegments);
			regions_bad += slow_in != steer_geom_in_region(w, p);
			for (size_t k = 1; k < fast.nsegments; k++)
				bad += fast.segments[k - 1] >= fast.segments[k];
		}
		CHECK(bad == 0, "%s: %d queries differ from the scan", steer_edges_name(kinds[e]),
		      bad);
		CHECK(regions_bad == 0, "%s: %d region answers differ", steer_edges_name(kinds[e]),
		      regions_bad);
		CHECK(found > 3000, "%s: the queries found things (%d)", steer_edges_name(kinds[e]),
		      found);
		steer_geom_hits_free(&slow);
		steer_geom_hits_free(&fast);
		steer_world_destroy(w);
	}
}

/* Circles of every width (some wider than the grid's cells, filed apart) give the full
 * scan's answers: each once, in order; the near query the same set with each circle's
 * gap to its edge and speed as the world measures them; the segment-only queries the
 * same segments; blocked the same verdicts. */
static void wide_circles_and_near_answers_as_a_full_scan(void)
{
	steer_edges kinds[3] = {STEER_EDGE_BOUNCE, STEER_EDGE_NONE, STEER_EDGE_WRAP};
	for (int e = 0; e < 3; e++) {
		steer_world *w = cluttered(kinds[e], 21 + (uint64_t)e);
		steer_rng *wr = steer_world_rng(w);
		for (int k = 0; k < 12; k++) /* wider than any cell (at least 64) */
			steer_obstacle_add(
			    w, v2(steer_rng_range(wr, 0, 1000), steer_rng_range(wr, 0, 600)),
			    v2(steer_rng_range(wr, -30, 30), 0), steer_rng_range(wr, 70, 400),
			    NULL);
		step(w, 3);
		size_t nobs;
		const steer_obstacle *obs = steer_world_obstacles(w, &nobs);
		steer_rng rng;
		steer_rng_seed(&rng, 5, 1);
		steer_geom_hits slow = {0}, fast = {0}, near = {0}, segs = {0};
		int bad = 0, near_bad = 0, segs_bad = 0, blocked_bad = 0, wide_found = 0;
		for (int q = 0; q < 3000; q++) {
			steer_vec2 p =
			    v2(steer_rng_range(&rng, -100, 1100), steer_rng_range(&rng, -100, 700));
			double reach = steer_rng_range(&rng, 0, q % 10 == 0 ? 300 : 60);
			steer_vec2 hi = v2_add(
			    p, v2(steer_rng_range(&rng, 0, 50), steer_rng_range(&rng, 0, 50)));
			bool box = q % 3 == 0;
			double radius = steer_rng_range(&rng, 0, 30);
			steer_geom_circles_moved(w); /* forces the full scan */
			bool slow_blocked = steer_geom_blocked(w, p, radius, 0.0);
			if (box)
				steer_geom_query_box(w, p, hi, reach, &slow);
			else
				steer_geom_query(w, p, reach, &slow);
			CHECK(steer_geom_update(w) == STEER_OK, "update");
			blocked_bad += slow_blocked != steer_geom_blocked(w, p, radius, 0.0);
			if (box) {
				steer_geom_query_box(w, p, hi, reach, &fast);
				steer_geom_query_box_segments(w, p, hi, reach, &segs);
			} else {
				steer_geom_query(w, p, reach, &fast);
				steer_geom_query_segments(w, p, reach, &segs);
				steer_geom_query_near(w, p, reach, &near);
				/* The same circles, each once, whatever the order. */
				near_bad += near.nnear != fast.ncircles || near.ncircles != 0;
				for (size_t k = 0; k < near.nnear && k < fast.ncircles; k++) {
					const steer_geom_near *n = &near.near[k];
					const steer_obstacle *o = &obs[n->index];
					size_t seen = 0;
					for (size_t m = 0; m < fast.ncircles; m++)
						seen += fast.circles[m] == n->index;
					for (size_t m = 0; m < near.nnear; m++)
						seen += m != k && near.near[m].index == n->index;
					double edge =
					    v2_len(steer_world_delta(w, p, v2(o->x, o->y))) - o->r;
					near_bad += seen != 1 || n->edge != edge ||
					            n->speed != v2_len(v2(o->vx, o->vy));
				}
			}
			bad += !same_hits(&slow, &fast);
			for (size_t k = 1; k < fast.ncircles; k++)
				bad += fast.circles[k - 1] >= fast.circles[k];
			for (size_t k = 0; k < fast.ncircles; k++)
				wide_found += obs[fast.circles[k]].r >= 70;
			segs_bad +=
			    segs.ncircles != 0 || segs.nsegments != fast.nsegments ||
			    (fast.nsegments && memcmp(segs.segments, fast.segments,
			                              fast.nsegments * sizeof *fast.segments));
		}
		const char *name = steer_edges_name(kinds[e]);
		CHECK(bad == 0, "%s: %d queries differ from the scan", name, bad);
		CHECK(near_bad == 0, "%s: %d near answers differ", name, near_bad);
		CHECK(segs_bad == 0, "%s: %d segment-only answers differ", name, segs_bad);
		CHECK(blocked_bad == 0, "%s: %d blocked verdicts differ", name, blocked_bad);
		CHECK(wide_found > 300, "%s: the wide circles were found (%d)", name, wide_found);
		steer_geom_hits_free(&slow);
		steer_geom_hits_free(&fast);
		steer_geom_hits_free(&near);
		steer_geom_hits_free(&segs);
		steer_world_destroy(w);
	}
}

static void regions_block_inside_solid_and_outside_containing(void)
{
	steer_world *w = make_world(1000, 600, STEER_EDGE_BOUNCE, 1);
	double c[] = {500, 100, 700, 100, 700, 150, 550, 150,
	              550, 250, 700, 250, 700, 300, 500, 300};
	add_poly(w, c, 8, false);
	CHECK(steer_geom_update(w) == STEER_OK, "update");
	CHECK(steer_geom_in_region(w, v2(520, 200)), "in the C's back");
	CHECK(steer_geom_in_region(w, v2(650, 120)), "in the C's arm");
	CHECK(!steer_geom_in_region(w, v2(650, 200)), "the C's notch is free");
	CHECK(!steer_geom_in_region(w, v2(450, 200)), "outside");
	CHECK(steer_geom_blocked(w, v2(650, 160), 15, 0), "a disc reaching into the arm");
	CHECK(!steer_geom_blocked(w, v2(650, 200), 15, 0), "a disc in the notch");
	double room[] = {100, 100, 300, 100, 300, 300, 100, 300};
	add_poly(w, room, 4, true);
	CHECK(steer_geom_update(w) == STEER_OK, "update");
	CHECK(steer_geom_in_region(w, v2(650, 200)), "outside the containing room now");
	CHECK(!steer_geom_in_region(w, v2(200, 200)), "inside the room");
	CHECK(steer_geom_blocked(w, v2(105, 200), 10, 0), "overlapping the room's wall");
	steer_world_destroy(w);

	/* contain: the bounds are walls (a ring in bounce worlds, the seam in wrap ones). */
	w = make_world(1000, 600, STEER_EDGE_BOUNCE, 1);
	CHECK(steer_world_set_contain(w, true) == STEER_OK, "contain");
	CHECK(steer_geom_in_region(w, v2(-1, 50)), "outside the bounds");
	CHECK(!steer_geom_in_region(w, v2(50, 50)), "inside");
	CHECK(steer_geom_blocked(w, v2(3, 50), 5, 0) && !steer_geom_blocked(w, v2(6, 50), 5, 0),
	      "the bounds are walls");
	CHECK(steer_world_set_contain(w, false) == STEER_OK && !steer_geom_in_region(w, v2(-1, 50)),
	      "contain off");
	steer_world_destroy(w);
	w = make_world(1000, 600, STEER_EDGE_WRAP, 1);
	CHECK(steer_world_set_contain(w, true) == STEER_OK, "contain");
	CHECK(steer_geom_blocked(w, v2(998, 50), 5, 0) && steer_geom_blocked(w, v2(3, 50), 5, 0) &&
	          !steer_geom_blocked(w, v2(500, 300), 5, 0),
	      "the seam is a wall from both sides");
	steer_world_destroy(w);
}

/* A point no sampled point beats: the free point is free and at least as near as any
 * free point of a fine lattice around p. */
static void check_nearest(const steer_world *w, steer_vec2 p, double radius, double span,
                          const char *what)
{
	steer_vec2 q;
	steer_status st = steer_geom_free_point(w, p, radius, &q);
	CHECK(st == STEER_OK, "%s: no free point", what);
	CHECK(!steer_geom_blocked(w, q, radius, 0.0), "%s: (%g, %g) is blocked", what, q.x, q.y);
	double d = v2_len(steer_world_delta(w, p, q)), better = d;
	for (int i = -60; i <= 60; i++)
		for (int j = -60; j <= 60; j++) {
			steer_vec2 s = v2(p.x + span * i / 60.0, p.y + span * j / 60.0);
			double ds = v2_len(v2_sub(s, p));
			if (ds < better && !steer_geom_blocked(w, s, radius, 0.0))
				better = ds;
		}
	CHECK(better > d - 1e-6, "%s: a sampled free point at %g beats %g", what, better, d);
}

static void free_points_are_nearest(void)
{
	steer_world *w = make_world(1000, 600, STEER_EDGE_BOUNCE, 1);
	steer_obstacle_add(w, v2(200, 200), v2(0, 0), 30, NULL);
	steer_obstacle_add(w, v2(240, 200), v2(0, 0), 30, NULL); /* overlapping the first */
	double sq[] = {500, 100, 700, 100, 700, 300, 500, 300};
	add_poly(w, sq, 4, false);
	steer_wall_add(w, v2(800, 100), v2(800, 500), NULL);
	for (int fresh = 0; fresh < 2; fresh++) {
		if (fresh)
			CHECK(steer_geom_update(w) == STEER_OK, "update");
		steer_vec2 q;
		CHECK(steer_geom_free_point(w, v2(50, 50), 5, &q) == STEER_OK && q.x == 50 &&
		          q.y == 50,
		      "a free point stays");
		check_nearest(w, v2(220, 200), 5, 60, "the seam of two circles");
		check_nearest(w, v2(200, 200), 5, 60, "a circle's centre");
		check_nearest(w, v2(560, 200), 5, 80, "deep in a square");
		check_nearest(w, v2(801, 300), 5, 20, "on a wall");
		CHECK(steer_geom_free_point(w, v2(560, 200), 5, &q) == STEER_OK &&
		          fabs(q.x - 495) < 1e-6 && fabs(q.y - 200) < 1e-6,
		      "out of the square's near side: (%g, %g)", q.x, q.y);
	}
	double tiny[] = {10, 10, 14, 10, 14, 14, 10, 14};
	add_poly(w, tiny, 4, true);
	steer_vec2 q;
	CHECK(steer_geom_free_point(w, v2(12, 12), 5, &q) == STEER_ERR_NOENT, "no room anywhere");
	CHECK(steer_world_free_point(w, v2(12, 12), -1, &q) == STEER_ERR_INVALID, "bad radius");
	steer_world_destroy(w);
}

/* Wrap worlds see walls the short way round, across the seam, wherever drawn. */
static void wrap_worlds_see_walls_across_the_seam(void)
{
	steer_world *w = make_world(1000, 600, STEER_EDGE_WRAP, 1);
	uint32_t across = 0, along = 0;
	steer_wall_add(w, v2(990, 100), v2(1010, 100), &across);
	steer_wall_add(w, v2(10, 300), v2(990, 300), &along);
	CHECK(steer_geom_update(w) == STEER_OK, "update");
	steer_geom_hits h = {0};
	size_t n;
	const steer_segment *s = steer_geom_segments(w, &n);
	CHECK(n > 2, "the long wall is cut into pieces: %zu segments", n);
	steer_geom_query(w, v2(5, 103), 5, &h);
	CHECK(h.nsegments == 1 && s[h.segments[0]].owner == across, "the wall across the seam");
	steer_geom_query(w, v2(995, 300), 6, &h);
	CHECK(h.nsegments == 1 && s[h.segments[0]].owner == along, "the long wall's end, 5 away");
	steer_geom_query(w, v2(995, 300), 4, &h);
	CHECK(h.nsegments == 0, "not 4 away");
	steer_geom_query(w, v2(500, 599), 2, &h);
	CHECK(h.nsegments == 0, "no wall at the vertical seam");
	CHECK(steer_geom_blocked(w, v2(998, 104), 5, 0), "blocked across the seam");
	steer_vec2 q;
	CHECK(steer_geom_free_point(w, v2(2, 101), 5, &q) == STEER_OK && q.x >= 0 && q.x < 1000 &&
	          !steer_geom_blocked(w, q, 5, 0),
	      "a free point in the world: (%g, %g)", q.x, q.y);
	steer_geom_hits_free(&h);
	steer_world_destroy(w);
}

static void swept_tests_catch_tunnelling(void)
{
	double t;
	/* 100 units in one tick through a wall 0 thick. */
	CHECK(steer_swept_disc_segment(v2(-50, 0), v2(50, 0), 2, v2(0, -10), v2(0, 10), &t) &&
	          fabs(t - 0.48) < 1e-12,
	      "hits the wall at t %g", t);
	CHECK(!steer_swept_disc_segment(v2(-50, 20), v2(50, 20), 2, v2(0, -10), v2(0, 10), &t),
	      "passes above");
	CHECK(steer_swept_disc_segment(v2(-50, 11), v2(50, 11), 2, v2(0, -10), v2(0, 10), &t),
	      "clips the end");
	CHECK(steer_seg_cross(v2(-1, 0), v2(1, 0), v2(0, -1), v2(0, 1), &t) && t == 0.5, "cross");
	CHECK(!steer_seg_cross(v2(-1, 2), v2(1, 2), v2(0, -1), v2(0, 1), &t), "miss");
	CHECK(steer_swept_disc_circle(v2(-50, 0), v2(50, 0), 2, v2(0, 0), 8, &t) &&
	          fabs(t - 0.4) < 1e-12,
	      "circle at t %g", t);
	CHECK(!steer_swept_disc_circle(v2(50, 0), v2(100, 0), 2, v2(0, 0), 8, &t), "moving away");
}

typedef struct query_job {
	const steer_world *w;
	uint64_t sum;
} query_job;

static void *query_many(void *arg)
{
	query_job *j = arg;
	steer_geom_hits h = {0};
	steer_rng rng;
	steer_rng_seed(&rng, 5, 5);
	for (int q = 0; q < 2000; q++) {
		steer_vec2 p = v2(steer_rng_range(&rng, 0, 1000), steer_rng_range(&rng, 0, 600));
		steer_geom_query(j->w, p, 50, &h);
		for (size_t k = 0; k < h.ncircles; k++)
			j->sum = j->sum * 31 + h.circles[k];
		for (size_t k = 0; k < h.nsegments; k++)
			j->sum = j->sum * 37 + h.segments[k];
		steer_vec2 f;
		steer_geom_free_point(j->w, p, 4, &f);
		j->sum = j->sum * 41 + (uint64_t)(f.x * 1e3) + (uint64_t)(f.y * 1e6);
	}
	steer_geom_hits_free(&h);
	return NULL;
}

static void queries_from_many_threads_agree(void)
{
	steer_world *w = cluttered(STEER_EDGE_BOUNCE, 3);
	step(w, 1);
	query_job jobs[4];
	pthread_t th[4];
	for (int k = 0; k < 4; k++) {
		jobs[k] = (query_job){w, 0};
		CHECK(pthread_create(&th[k], NULL, query_many, &jobs[k]) == 0, "thread");
	}
	for (int k = 0; k < 4; k++)
		pthread_join(th[k], NULL);
	query_job one = {w, 0};
	query_many(&one);
	for (int k = 0; k < 4; k++)
		CHECK(jobs[k].sum == one.sum, "thread %d saw otherwise", k);
	steer_world_destroy(w);
}

/* Circles move every tick; the index follows them. */
static void moving_circles_are_found_where_they_are(void)
{
	steer_world *w = make_world(1000, 600, STEER_EDGE_BOUNCE, 1);
	uint32_t id = 0;
	steer_obstacle_add(w, v2(100, 300), v2(600, 0), 5, &id);
	step(w, 60); /* ten units a tick for a second */
	const steer_obstacle *o = steer_obstacle_get(w, id);
	steer_geom_hits h = {0};
	steer_geom_query(w, v2(o->x, o->y), 0, &h);
	CHECK(h.ncircles == 1 && o->x > 650, "found at %g", o->x);
	steer_geom_query(w, v2(100, 300), 10, &h);
	CHECK(h.ncircles == 0, "not where it was");
	steer_geom_hits_free(&h);
	steer_world_destroy(w);
}

/* --- a changed scene's index is the one built afresh ---------------------------------- */

static uint64_t lcg(uint64_t *x)
{
	*x = *x * 6364136223846793005ULL + 1442695040888963407ULL;
	return *x >> 33;
}

/* The same world rebuilt with nothing to copy from: its segments, regions and grid. */
static steer_world *built_afresh(const steer_world *w)
{
	steer_world *f = steer_world_create(&w->cfg);
	CHECK(f != NULL, "world");
	size_t nw, np;
	const steer_wall *walls = steer_world_walls(w, &nw);
	const steer_polygon *polys = steer_world_polygons(w, &np);
	char err[160] = "";
	for (size_t k = 0; k < nw; k++)
		CHECK(steer_wall_restore(f, &walls[k]) == STEER_OK, "wall %u", walls[k].id);
	for (size_t k = 0; k < np; k++)
		CHECK(steer_polygon_restore(f, &polys[k], err, sizeof err) == STEER_OK,
		      "polygon: %s", err);
	steer_geom_free(&f->geom);
	steer_geom_init(&f->geom);
	CHECK(steer_geom_rebuild(f) == STEER_OK && steer_geom_update(f) == STEER_OK, "fresh build");
	return f;
}

static bool same_u32(const uint32_t *a, const uint32_t *b, size_t n)
{
	return n == 0 || memcmp(a, b, n * sizeof *a) == 0;
}

static void expect_as_afresh(const steer_world *w, const char *after)
{
	steer_world *f = built_afresh(w);
	const steer_geom *g = &w->geom, *h = &f->geom;
	CHECK(g->nsegs == h->nsegs && g->nregions == h->nregions,
	      "after %s: %zu/%zu segments, %zu/%zu regions", after, g->nsegs, h->nsegs, g->nregions,
	      h->nregions);
	bool segs = g->nsegs == h->nsegs;
	for (size_t k = 0; segs && k < g->nsegs; k++) {
		const steer_segment *a = &g->segs[k], *b = &h->segs[k];
		segs = a->a.x == b->a.x && a->a.y == b->a.y && a->b.x == b->b.x &&
		       a->b.y == b->b.y && a->len == b->len && a->dir.x == b->dir.x &&
		       a->dir.y == b->dir.y && a->n.x == b->n.x && a->n.y == b->n.y &&
		       a->owner == b->owner && a->flags == b->flags && a->prev == b->prev &&
		       a->next == b->next;
	}
	CHECK(segs, "after %s: the segments differ from a fresh build", after);
	bool regs = g->nregions == h->nregions;
	for (size_t k = 0; regs && k < g->nregions; k++) {
		const steer_geom_region *a = &g->regions[k], *b = &h->regions[k];
		regs = a->owner == b->owner && a->containing == b->containing &&
		       a->first == b->first && a->count == b->count && a->lo.x == b->lo.x &&
		       a->lo.y == b->lo.y && a->hi.x == b->hi.x && a->hi.y == b->hi.y;
	}
	CHECK(regs, "after %s: the regions differ from a fresh build", after);
	CHECK(g->nx == h->nx && g->ny == h->ny && g->x0 == h->x0 && g->y0 == h->y0 &&
	          g->cw == h->cw && g->ch == h->ch,
	      "after %s: grid %ux%u vs %ux%u", after, g->nx, g->ny, h->nx, h->ny);
	size_t cells = (size_t)g->nx * g->ny;
	if (cells && cells == (size_t)h->nx * h->ny) {
		CHECK(same_u32(g->seg_start, h->seg_start, cells + 1) &&
		          same_u32(g->seg_items, h->seg_items, g->seg_start[cells]),
		      "after %s: the cells' segments differ from a fresh build", after);
		CHECK(same_u32(g->reg_start, h->reg_start, cells + 1) &&
		          same_u32(g->reg_items, h->reg_items, g->reg_start[cells]),
		      "after %s: the cells' regions differ from a fresh build", after);
	}
	steer_world_destroy(f);
}

/* Walls and polygons come and go, contain and the bounds change: after each change
 * (which copies the unchanged rings and keeps the regions' lists where it can) the
 * geometry is what a build from nothing makes of the same world. */
static void changes_index_as_a_fresh_build(void)
{
	for (int edges = 0; edges < 2; edges++) {
		steer_world *w =
		    make_world(2000, 1200, edges ? STEER_EDGE_WRAP : STEER_EDGE_BOUNCE, 1);
		uint64_t x = 7 + (uint64_t)edges;
		uint32_t ids[64];
		size_t nids = 0;
		steer_vec2 ring[300];
		for (int step = 0; step < 120; step++) {
			uint64_t op = lcg(&x) % 10;
			const char *what = "?";
			/* Within the bounds as they are now, a polygon's reach from them. */
			double cx = 250 + (double)(lcg(&x) % (uint64_t)(w->cfg.width - 500)),
			       cy = 250 + (double)(lcg(&x) % (uint64_t)(w->cfg.height - 500));
			uint32_t id = 0;
			if (op < 3 && nids < 64) {
				what = "a wall";
				double dx = (double)(lcg(&x) % 400) - 200.0,
				       dy = (double)(lcg(&x) % 400);
				CHECK(steer_wall_add(w, v2(cx, cy), v2(cx + dx, cy - 150 + dy + 1),
				                     &id) == STEER_OK,
				      "wall");
				ids[nids++] = id;
			} else if (op < 6 && nids < 64) {
				what = "a polygon";
				size_t n = 3 + lcg(&x) % 290;
				double r = 20 + (double)(lcg(&x) % 150);
				if (lcg(&x) % 4 == 0) {
					/* Few points far apart: in the wrap world its edges are
					 * longer than the cut (a quarter of the bounds), so they
					 * are cut, and cut again when the bounds change. */
					what = "a big polygon";
					n = 3 + lcg(&x) % 4;
					r = 400;
					cx = 1000;
					cy = 600;
				}
				for (size_t k = 0; k < n; k++) {
					double a = 6.283185307179586 * (double)k / (double)n;
					double rr =
					    r * (1.0 + (r < 400 ? 0.2 * sin(5.0 * a) : 0.0));
					ring[k] = v2(cx + rr * cos(a), cy + rr * sin(a));
				}
				char err[160] = "";
				CHECK(steer_polygon_add(w, ring, n, lcg(&x) % 4 == 0, &id, err,
				                        sizeof err) == STEER_OK,
				      "polygon: %s", err);
				ids[nids++] = id;
			} else if (op < 8 && nids > 0) {
				what = "a removal";
				size_t k = lcg(&x) % nids;
				CHECK(steer_remove(w, ids[k]) == STEER_OK, "remove %u", ids[k]);
				ids[k] = ids[--nids];
			} else if (op == 8) {
				what = "contain";
				CHECK(steer_world_set_contain(w, !w->cfg.contain) == STEER_OK,
				      "contain");
			} else {
				what = "new bounds";
				double width = 1900 + (double)(lcg(&x) % 200);
				double height = 1100 + (double)(lcg(&x) % 200);
				CHECK(steer_world_set_bounds(w, width, height, w->cfg.edges) ==
				          STEER_OK,
				      "bounds");
			}
			CHECK(steer_geom_update(w) == STEER_OK, "update");
			expect_as_afresh(w, what);
		}
		steer_world_destroy(w);
	}
}

int main(void)
{
	RUN(ids_share_the_sequence);
	RUN(bad_polygons_are_refused);
	RUN(segments_face_the_free_side);
	RUN(index_answers_as_a_full_scan);
	RUN(wide_circles_and_near_answers_as_a_full_scan);
	RUN(regions_block_inside_solid_and_outside_containing);
	RUN(free_points_are_nearest);
	RUN(wrap_worlds_see_walls_across_the_seam);
	RUN(swept_tests_catch_tunnelling);
	RUN(queries_from_many_threads_agree);
	RUN(moving_circles_are_found_where_they_are);
	RUN(changes_index_as_a_fresh_build);
	return CHECK_DONE();
}
