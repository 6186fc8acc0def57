/* The solid rule: after every tick no two vehicles overlap and none overlaps an
 * obstacle, beyond 1% of the smaller radius; crowds that press together come to
 * rest; with the rule off, bodies pass through each other as before. */
#include <stdbool.h>
#include <stdio.h>

#include "check.h"
#include "scenario.h"
#include "testutil.h"
#include "world_internal.h"

#define TOL 0.01

/* The deepest overlap between two vehicles, as a share of the smaller radius. */
static double worst_pair(const steer_world *w)
{
	const steer_vehicles *v = steer_world_vehicles(w);
	double worst = 0.0;
	for (size_t i = 0; i < v->count; i++)
		for (size_t j = i + 1; j < v->count; j++) {
			double ri = steer_vehicle_params_at(w, i)->radius;
			double rj = steer_vehicle_params_at(w, j)->radius;
			double d = dist(v2(v->px[i], v->py[i]), v2(v->px[j], v->py[j]));
			double over = (ri + rj - d) / fmin(ri, rj);
			worst = over > worst ? over : worst;
		}
	return worst;
}

/* The deepest overlap of a vehicle with an obstacle, as a share of the smaller
 * radius. */
static double worst_circle(const steer_world *w)
{
	const steer_vehicles *v = steer_world_vehicles(w);
	size_t n = 0;
	const steer_obstacle *o = steer_world_obstacles(w, &n);
	double worst = 0.0;
	for (size_t i = 0; i < v->count; i++)
		for (size_t k = 0; k < n; k++) {
			double r = steer_vehicle_params_at(w, i)->radius;
			double d = dist(v2(v->px[i], v->py[i]), v2(o[k].x, o[k].y));
			double over = (r + o[k].r - d) / fmin(r, o[k].r);
			worst = over > worst ? over : worst;
		}
	return worst;
}

static double mean_speed(const steer_world *w)
{
	const steer_vehicles *v = steer_world_vehicles(w);
	double sum = 0.0;
	for (size_t i = 0; i < v->count; i++)
		sum += hypot(v->vx[i], v->vy[i]);
	return v->count ? sum / (double)v->count : 0.0;
}

/* 200 vehicles arriving at one point from all round: a packed cluster with no
 * overlap at any tick after the first few, at rest once settled. */
static steer_world *arriving_crowd(bool solid)
{
	steer_world *w = make_world(2000, 2000, STEER_EDGE_BOUNCE, 7);
	steer_world_set_solid(w, solid);
	steer_rng *rng = steer_world_rng(w);
	steer_params p = steer_params_default();
	for (int k = 0; k < 200; k++) {
		double a = steer_rng_range(rng, 0, STEER_TAU);
		double r = steer_rng_range(rng, 200, 600);
		uint32_t id = add_vehicle(w, 1000 + r * cos(a), 1000 + r * sin(a), 0, 0, &p);
		if (steer_vehicle_target(w, id, STEER_ARRIVE, v2(1000, 1000)) != STEER_OK)
			abort();
	}
	return w;
}

static void two_hundred_arriving_pack_without_overlap_and_rest(void)
{
	steer_world *w = arriving_crowd(true);
	double worst = 0.0;
	int worst_tick = -1;
	for (int t = 0; t < 1800; t++) {
		step(w, 1);
		double o = worst_pair(w);
		if (t >= 5 && o > worst) {
			worst = o;
			worst_tick = t;
		}
	}
	CHECK(worst <= TOL, "overlap %.4f of the smaller radius at tick %d", worst, worst_tick);
	double speed = mean_speed(w);
	CHECK(speed < 0.01 * steer_params_default().max_speed,
	      "mean speed %.4f after 30 s: not at rest", speed);
	/* At rest for good: a further second changes little. */
	double rest = 0.0;
	for (int t = 0; t < 60; t++) {
		step(w, 1);
		rest = fmax(rest, mean_speed(w));
	}
	CHECK(rest < 0.01 * steer_params_default().max_speed, "mean speed rose to %.4f", rest);
	CHECK(worst_pair(w) <= TOL, "overlap %.4f once settled", worst_pair(w));
	/* Packed: the cluster is not much wider than 200 discs laid edge to edge. */
	const steer_vehicles *v = steer_world_vehicles(w);
	double far = 0.0;
	for (size_t i = 0; i < v->count; i++)
		far = fmax(far, dist(v2(v->px[i], v->py[i]), v2(1000, 1000)));
	CHECK(far < 110.0, "the farthest is %.1f from the point: not a packed cluster", far);
	steer_world_destroy(w);

	/* Without the rule they end on the point, every pair overlapping. */
	w = arriving_crowd(false);
	step(w, 1800);
	CHECK(worst_pair(w) > 1.0, "not solid, yet no pair overlaps (%.3f)", worst_pair(w));
	steer_world_destroy(w);
}

/* Two vehicles seeking each other's start head-on, without avoidance: they meet
 * and stop at the sum of their radii. */
static double head_on_closest(bool solid)
{
	steer_world *w = make_world(1000, 600, STEER_EDGE_BOUNCE, 1);
	steer_world_set_solid(w, solid);
	steer_params p = steer_params_default();
	uint32_t a = add_vehicle(w, 300, 300, 0, 0, &p);
	uint32_t b = add_vehicle(w, 700, 300, 0, 0, &p);
	if (steer_vehicle_target(w, a, STEER_SEEK, v2(700, 300)) != STEER_OK ||
	    steer_vehicle_target(w, b, STEER_SEEK, v2(300, 300)) != STEER_OK)
		abort();
	double closest = INFINITY;
	for (int t = 0; t < 600; t++) {
		step(w, 1);
		closest = fmin(closest, dist(pos(w, a), pos(w, b)));
	}
	steer_world_destroy(w);
	return closest;
}

static void a_head_on_pair_does_not_interpenetrate(void)
{
	double sum = 2 * steer_params_default().radius;
	double closest = head_on_closest(true);
	CHECK(closest >= sum * (1 - TOL / 2), "closest %.4f, radii sum %.1f", closest, sum);
	closest = head_on_closest(false);
	CHECK(closest < sum / 2, "not solid: closest %.4f, they should pass through", closest);
}

/* A vehicle spawned inside a circle is out of it after the first tick, and stays
 * out; so is one a moving circle runs over. */
static void spawned_inside_a_circle_is_pushed_out(void)
{
	steer_world *w = make_world(1000, 1000, STEER_EDGE_BOUNCE, 3);
	steer_params p = steer_params_default();
	uint32_t obs = 0;
	if (steer_obstacle_add(w, v2(500, 500), v2(0, 0), 40, &obs) != STEER_OK ||
	    steer_obstacle_add(w, v2(200, 800), v2(60, 0), 30, &obs) != STEER_OK)
		abort();
	add_vehicle(w, 510, 495, 0, 0, &p);
	add_vehicle(w, 500, 500, 0, 0, &p); /* on the very centre */
	uint32_t c = add_vehicle(w, 300, 800, 0, 0, &p);
	if (steer_vehicle_target(w, c, STEER_ARRIVE, v2(300, 800)) != STEER_OK)
		abort();
	step(w, 1);
	CHECK(worst_circle(w) <= TOL, "overlap %.4f with a circle after one tick", worst_circle(w));
	double worst = 0.0;
	for (int t = 0; t < 300; t++) {
		step(w, 1);
		worst = fmax(worst, fmax(worst_circle(w), worst_pair(w)));
	}
	CHECK(worst <= TOL, "overlap %.4f while the circle drove through", worst);
	CHECK(world_finite(w), "not finite");
	steer_world_destroy(w);
}

/* --- walls, polygons and bounds --------------------------------------------------- */

/* The deepest overlap of a disc at p of radius r with segment a-b, as a share of r. */
static double seg_overlap(steer_vec2 p, double r, steer_vec2 a, steer_vec2 b)
{
	steer_vec2 ab = v2_sub(b, a);
	double t = v2_dot(v2_sub(p, a), ab) / v2_len2(ab);
	t = t < 0 ? 0 : t > 1 ? 1 : t;
	return (r - dist(p, v2_add(a, v2_scale(ab, t)))) / r;
}

/* Whether p is inside polygon pts (the ray rule). */
static bool in_polygon(steer_vec2 p, const steer_vec2 *pts, size_t n)
{
	bool in = false;
	for (size_t k = 0, l = n - 1; k < n; l = k++)
		if ((pts[k].y > p.y) != (pts[l].y > p.y) &&
		    p.x <
		        pts[k].x + (p.y - pts[k].y) / (pts[l].y - pts[k].y) * (pts[l].x - pts[k].x))
			in = !in;
	return in;
}

/* The deepest overlap of a vehicle with a wall, a polygon's edge or the contained
 * bounds (bounce world), as a share of its radius; 2 when a centre is inside a solid
 * polygon or outside a containing one or the contained bounds. */
static double worst_segment(const steer_world *w, bool contain)
{
	const steer_vehicles *v = steer_world_vehicles(w);
	size_t nw = 0, np = 0;
	const steer_wall *wl = steer_world_walls(w, &nw);
	const steer_polygon *pg = steer_world_polygons(w, &np);
	const steer_world_config *c = steer_world_config_get(w);
	double worst = 0.0;
	for (size_t i = 0; i < v->count; i++) {
		double r = steer_vehicle_params_at(w, i)->radius;
		steer_vec2 p = v2(v->px[i], v->py[i]);
		for (size_t k = 0; k < nw; k++)
			worst = fmax(worst, seg_overlap(p, r, wl[k].a, wl[k].b));
		for (size_t k = 0; k < np; k++) {
			for (size_t e = 0; e < pg[k].count; e++)
				worst =
				    fmax(worst, seg_overlap(p, r, pg[k].points[e],
				                            pg[k].points[(e + 1) % pg[k].count]));
			if (in_polygon(p, pg[k].points, pg[k].count) != pg[k].inside)
				worst = 2.0;
		}
		if (contain) {
			double edge = fmin(fmin(p.x, c->width - p.x), fmin(p.y, c->height - p.y));
			worst = fmax(worst, edge < 0 ? 2.0 : (r - edge) / r);
		}
	}
	return worst;
}

/* A seeker driven at a thin wall between it and its target: its centre never
 * reaches the wall's line and its disc never overlaps the wall beyond the tolerance;
 * fast: at max_speed 1e5 one tick's move is far longer than the world. */
static void seek_at_wall(bool fast)
{
	steer_world *w = make_world(1000, 600, STEER_EDGE_BOUNCE, 5);
	uint32_t wall;
	if (steer_wall_add(w, v2(500, 100), v2(500, 500), &wall) != STEER_OK)
		abort();
	steer_params p = steer_params_default();
	if (fast) {
		p.max_speed = 1e5;
		p.max_force = 1e9;
	}
	uint32_t id = add_vehicle(w, 300, 310, 0, 0, &p);
	if (steer_vehicle_target(w, id, STEER_SEEK, v2(700, 290)) != STEER_OK)
		abort();
	double worst = 0.0, far = 0.0;
	for (int t = 0; t < 600; t++) {
		step(w, 1);
		worst = fmax(worst, worst_segment(w, false));
		far = fmax(far, pos(w, id).x);
	}
	CHECK(far < 500.0, "%s: the seeker's centre reached x = %.2f, past the wall at 500",
	      fast ? "fast" : "normal", far);
	CHECK(worst <= TOL, "%s: overlap %.4f of the radius with the wall",
	      fast ? "fast" : "normal", worst);
	CHECK(far > 490.0, "%s: the seeker stopped at x = %.2f, short of the wall",
	      fast ? "fast" : "normal", far);
	CHECK(world_finite(w), "not finite");
	steer_world_destroy(w);
}

static void a_seeker_never_crosses_a_wall(void)
{
	seek_at_wall(false);
	seek_at_wall(true);
}

/* Vehicles spawned inside a solid polygon (a concave one, on its vertices and deep
 * inside) are out of it after one tick. */
static void spawned_inside_a_polygon_is_pushed_out(void)
{
	steer_world *w = make_world(1000, 1000, STEER_EDGE_BOUNCE, 3);
	const steer_vec2 pts[] = {v2(300, 300), v2(700, 300), v2(700, 700), v2(500, 500),
	                          v2(300, 700)};
	uint32_t poly;
	char err[128];
	if (steer_polygon_add(w, pts, 5, false, &poly, err, sizeof err) != STEER_OK)
		abort();
	steer_params p = steer_params_default();
	add_vehicle(w, 500, 400, 0, 0, &p);
	add_vehicle(w, 350, 320, 0, 0, &p);
	add_vehicle(w, 680, 650, 0, 0, &p);
	add_vehicle(w, 300, 300, 0, 0, &p);
	add_vehicle(w, 302, 500, 0, 0, &p);
	step(w, 1);
	CHECK(worst_segment(w, false) <= TOL, "overlap %.4f (2: a centre inside) after one tick",
	      worst_segment(w, false));
	steer_world_destroy(w);
}

/* Fast wanderers inside a containing polygon, and in a bounce world with contain
 * on, never leave it nor overlap its edges beyond the tolerance. */
static steer_world *wanderers(bool polygon)
{
	steer_world *w = make_world(1000, 1000, STEER_EDGE_BOUNCE, 11);
	if (polygon) {
		const steer_vec2 pts[] = {v2(100, 100), v2(900, 150), v2(500, 500), v2(850, 900),
		                          v2(150, 850)};
		uint32_t poly;
		char err[128];
		if (steer_polygon_add(w, pts, 5, true, &poly, err, sizeof err) != STEER_OK)
			abort();
	} else if (steer_world_set_contain(w, true) != STEER_OK) {
		abort();
	}
	steer_rng *rng = steer_world_rng(w);
	steer_params p = steer_params_default();
	p.max_speed = 2000;
	p.max_force = 20000;
	for (int k = 0; k < 60; k++) {
		double x = steer_rng_range(rng, 200, 400), y = steer_rng_range(rng, 200, 700);
		uint32_t id = add_vehicle(w, x, y, steer_rng_range(rng, -2000, 2000),
		                          steer_rng_range(rng, -2000, 2000), &p);
		if (steer_vehicle_enable(w, id, STEER_WANDER, true) != STEER_OK)
			abort();
	}
	return w;
}

static void vehicles_stay_contained(void)
{
	for (int k = 0; k < 2; k++) {
		steer_world *w = wanderers(k == 0);
		double worst = 0.0;
		for (int t = 0; t < 600; t++) {
			step(w, 1);
			worst = fmax(worst, worst_segment(w, k == 1));
		}
		CHECK(worst <= TOL, "%s: overlap %.4f (2: a centre outside)",
		      k == 0 ? "containing polygon" : "contain on", worst);
		steer_world_destroy(w);
	}
}

/* 300 arrivers whose target is behind a wall press against it: at the end none
 * overlaps the wall or another beyond the tolerance, and none is past it. */
static void a_crowd_pressed_against_a_wall(void)
{
	steer_world *w = make_world(2000, 2000, STEER_EDGE_BOUNCE, 17);
	uint32_t wall;
	if (steer_wall_add(w, v2(1000, 500), v2(1000, 1500), &wall) != STEER_OK)
		abort();
	steer_rng *rng = steer_world_rng(w);
	steer_params p = steer_params_default();
	for (int k = 0; k < 300; k++) {
		double x = steer_rng_range(rng, 300, 800), y = steer_rng_range(rng, 700, 1300);
		uint32_t id = add_vehicle(w, x, y, 0, 0, &p);
		if (steer_vehicle_target(w, id, STEER_ARRIVE, v2(1030, 1000)) != STEER_OK)
			abort();
	}
	double crossed = 0.0;
	for (int t = 0; t < 900; t++) {
		step(w, 1);
		const steer_vehicles *v = steer_world_vehicles(w);
		for (size_t i = 0; i < v->count; i++)
			crossed = fmax(crossed, v->px[i]);
	}
	CHECK(crossed < 1000.0, "a centre reached x = %.2f, past the wall", crossed);
	CHECK(worst_segment(w, false) <= TOL, "overlap %.4f with the wall",
	      worst_segment(w, false));
	CHECK(worst_pair(w) <= TOL, "overlap %.4f between two", worst_pair(w));
	steer_world_destroy(w);
}

/* Flockers on a lattice with a polygon drawn over some of them (the contacts are
 * found over the flock's grid): after one tick every one is out of it, and none of
 * those that came out overlaps another. */
static void a_flock_under_a_new_polygon_comes_out(void)
{
	steer_world *w = make_world(1000, 1000, STEER_EDGE_BOUNCE, 23);
	steer_params p = steer_flock_params();
	for (int y = 0; y < 40; y++)
		for (int x = 0; x < 40; x++) {
			uint32_t id = add_vehicle(w, 100 + 20 * x, 100 + 20 * y, 0, 0, &p);
			if (steer_vehicle_enable(w, id, STEER_FLOCK, true) != STEER_OK)
				abort();
		}
	const steer_vec2 pts[] = {v2(445, 445), v2(515, 445), v2(515, 515), v2(445, 515)};
	uint32_t poly;
	char err[128];
	if (steer_polygon_add(w, pts, 4, false, &poly, err, sizeof err) != STEER_OK)
		abort();
	step(w, 1);
	CHECK(worst_segment(w, false) <= TOL, "overlap %.4f (2: a centre inside) after one tick",
	      worst_segment(w, false));
	step(w, 1);
	CHECK(worst_pair(w) <= TOL, "overlap %.4f between two after two ticks", worst_pair(w));
	steer_world_destroy(w);
}

/* A circle drifting at vehicles it pins against something they cannot leave through:
 * a bounce world's edge (one vehicle head-on; a packed crowd) or a wall. The circle
 * gives way as it does at the edges: no overlap beyond the tolerance at any tick (after
 * the crowd's first ticks, spawned overlapping), no wall crossed. */
static void pinned_by_a_drifting_circle(int kind)
{
	static const char *what[] = {"one vehicle against the edge", "a crowd against the edge",
	                             "one vehicle against a wall"};
	steer_world *w = make_world(200, 200, STEER_EDGE_BOUNCE, 1);
	if (steer_obstacle_add(w, v2(80, 100), v2(40, 0), 20, NULL) != STEER_OK)
		abort();
	steer_params p = steer_params_default();
	if (kind == 1) {
		for (int k = 0; k < 30; k++)
			add_vehicle(w, 185 + (k % 3) * 5, 70 + (k / 3) * 6, 0, 0, &p);
	} else {
		add_vehicle(w, 150, 100, 0, 0, &p);
	}
	if (kind == 2 && steer_wall_add(w, v2(170, 0), v2(170, 200), NULL) != STEER_OK)
		abort();
	double worst = 0.0, wall = 0.0;
	for (int t = 0; t < 600; t++) {
		step(w, 1);
		if (t < 5)
			continue;
		worst = fmax(worst, fmax(worst_pair(w), worst_circle(w)));
		wall = fmax(wall, worst_segment(w, false));
	}
	CHECK(worst <= TOL, "%s: overlap %.4f", what[kind], worst);
	CHECK(wall <= TOL, "%s: overlap %.4f with the wall", what[kind], wall);
	steer_world_destroy(w);
}

static void a_drifting_circle_gives_way_to_the_pinned(void)
{
	for (int kind = 0; kind < 3; kind++)
		pinned_by_a_drifting_circle(kind);
}

/* A solid flock whose forces are nothing (weights 0), so that the vehicles go as
 * placed: the flock's scan notes who is near another for the bodies pass, and every
 * contact must be found all the same. */
static steer_world *still_flock(steer_params *p, double speed)
{
	steer_world *w = make_world(1000, 1000, STEER_EDGE_WRAP, 3);
	steer_world_set_solid(w, true);
	*p = steer_params_default();
	p->separation_weight = p->cohesion_weight = p->alignment_weight = 0.0;
	p->max_speed = speed > 0.0 ? speed : p->max_speed;
	return w;
}

/* extra: behaviours besides flocking (a wanderer is scanned in the other lane
 * form). */
static void boid(steer_world *w, double x, double y, double vx, const steer_params *p,
                 uint32_t extra)
{
	uint32_t id = add_vehicle(w, x, y, vx, 0.0, p);
	if (steer_vehicle_enable(w, id, STEER_FLOCK, true) != STEER_OK ||
	    (extra && steer_vehicle_enable(w, id, extra, true) != STEER_OK))
		abort();
}

static void contacts_the_flock_scan_must_not_miss(void)
{
	const uint32_t extras[2] = {0, STEER_WANDER};
	for (int e = 0; e < 2; e++) {
		uint32_t extra = extras[e];
		steer_params p;
		/* Two at max_speed head on, 13 apart: beyond the contact reach (2 radii and
		 * half a radius) at the tick's start, overlapping after the moves. */
		steer_world *w = still_flock(&p, 100.0);
		boid(w, 500.0, 500.0, 100.0, &p, extra);
		boid(w, 513.0, 500.0, -100.0, &p, extra);
		step(w, 1);
		CHECK(worst_pair(w) <= TOL, "extra %u: head on at max_speed, overlap %.4f", extra,
		      worst_pair(w));
		steer_world_destroy(w);

		/* Two overlapping back to back, each out of the other's field of view. */
		w = still_flock(&p, 0.0);
		p.field_of_view = true;
		boid(w, 500.0, 500.0, -1e-3, &p, extra);
		boid(w, 509.0, 500.0, 1e-3, &p, extra);
		step(w, 1);
		CHECK(worst_pair(w) <= TOL, "extra %u: out of view, overlap %.4f", extra,
		      worst_pair(w));
		steer_world_destroy(w);

		/* max_neighbours 1: a and b overlap, but each first takes c, far off in
		 * the column before theirs, and takes no more. */
		w = still_flock(&p, 0.0);
		p.max_neighbours = 1;
		boid(w, 470.0, 500.0, 0.0, &p, extra); /* c */
		boid(w, 520.0, 500.0, 0.0, &p, extra); /* a */
		boid(w, 529.0, 500.0, 0.0, &p, extra); /* b */
		step(w, 1);
		CHECK(worst_pair(w) <= TOL, "extra %u: capped, overlap %.4f", extra, worst_pair(w));
		steer_world_destroy(w);
	}
	/* One that does not flock, overlapping a flocker. */
	steer_params p;
	steer_world *w = still_flock(&p, 0.0);
	boid(w, 500.0, 500.0, 0.0, &p, 0);
	add_vehicle(w, 509.0, 500.0, 0.0, 0.0, &p);
	step(w, 1);
	CHECK(worst_pair(w) <= TOL, "with one not flocking, overlap %.4f", worst_pair(w));
	steer_world_destroy(w);
}

/* The summed overlap of every two vehicles (the short way round in a wrap world). */
static double total_overlap(const steer_world *w)
{
	const steer_vehicles *v = steer_world_vehicles(w);
	double sum = 0.0;
	for (size_t i = 0; i < v->count; i++)
		for (size_t j = i + 1; j < v->count; j++) {
			double ri = steer_vehicle_params_at(w, i)->radius;
			double rj = steer_vehicle_params_at(w, j)->radius;
			steer_vec2 d =
			    steer_world_delta(w, v2(v->px[i], v->py[i]), v2(v->px[j], v->py[j]));
			double over = ri + rj - v2_len(d);
			sum += over > 0.0 ? over : 0.0;
		}
	return sum;
}

/* 3,000 boids piled into a disc of radius 40 (40 times what it can hold): every tick
 * resolves at most 48 contacts per vehicle (the budget is 32 per vehicle, or 65,536
 * when more; the tick's first pass, which always runs, at most 16 each), where resolving them all
 * to the tolerance takes hundreds of passes, and the pile's overlap shrinks every tick. */
static void a_pile_spreads_at_a_bounded_cost(void)
{
	enum { N = 3000, TICKS = 8 };
	steer_world *w = make_world(1000, 600, STEER_EDGE_WRAP, 1);
	steer_rng *r = steer_world_rng(w);
	steer_params p = steer_flock_params();
	for (int k = 0; k < N; k++) {
		double a = steer_rng_range(r, 0.0, STEER_TAU), d = 40.0 * sqrt(steer_rng_unit(r));
		uint32_t id = add_vehicle(w, 500.0 + d * cos(a), 300.0 + d * sin(a), 0, 0, &p);
		if (steer_vehicle_enable(w, id, STEER_FLOCK, true) != STEER_OK)
			abort();
	}
	double before = total_overlap(w);
	uint64_t most = 0;
	bool shrinks = true;
	for (int t = 0; t < TICKS; t++) {
		step(w, 1);
		const steer_bodies *b = &w->bodies;
		most = b->work > most ? b->work : most;
		CHECK(b->passes >= 1, "tick %d: no pass", t);
		double now = total_overlap(w);
		if (!(now < before)) {
			shrinks = false;
			fprintf(stderr, "tick %d: overlap %.0f, was %.0f\n", t, now, before);
		}
		before = now;
	}
	CHECK(most <= 48u * N, "a tick resolved %llu contacts, more than 48 per vehicle",
	      (unsigned long long)most);
	CHECK(shrinks, "the pile's overlap grew in some tick");
	CHECK(world_finite(w), "not finite");
	steer_world_destroy(w);
}

/* A world of PAIRS pairs of vehicles, each pair overlapping by a tenth of the radius,
 * and (pile) a pile of 40 that takes many passes to settle, far from them. */
enum { PAIRS = 1000 };

static steer_world *pairs_and_pile(bool pile)
{
	steer_world *w = make_world(2000, 2000, STEER_EDGE_WRAP, 3);
	steer_params p = steer_params_default();
	double r = p.radius;
	for (int k = 0; k < PAIRS; k++) {
		double x = 100.0 + (k % 40) * 40.0, y = 100.0 + (k / 40) * 40.0;
		add_vehicle(w, x, y, 0, 0, &p);
		add_vehicle(w, x + 1.9 * r, y, 0, 0, &p);
	}
	steer_rng *rng = steer_world_rng(w);
	for (int k = 0; pile && k < 40; k++) {
		double a = steer_rng_range(rng, 0.0, STEER_TAU), d = 3.0 * r * steer_rng_unit(rng);
		add_vehicle(w, 1900.0 + d * cos(a), 1900.0 + d * sin(a), 0, 0, &p);
	}
	return w;
}

/* Each island of contacts is passed over until it settles, and no more: the pairs,
 * settled in two passes, cost the same beside a pile that takes many more. */
static void a_settled_island_is_passed_over_no_more(void)
{
	steer_world *alone = pairs_and_pile(false), *both = pairs_and_pile(true);
	step(alone, 1);
	step(both, 1);
	const steer_bodies *a = &alone->bodies, *b = &both->bodies;
	CHECK(a->passes <= 2 * a->rounds, "the pairs took %u passes in %u rounds", a->passes,
	      a->rounds);
	CHECK(b->passes >= 8, "the pile settled in %u passes: too few to tell", b->passes);
	CHECK(!b->over_budget, "the pile ran out of budget");
	/* The pairs' work beside the pile is what it is alone; the rest is the pile's. */
	uint64_t most = a->work + 40u * 16u * b->passes;
	CHECK(b->work <= most,
	      "%llu contacts resolved, more than %llu: the pairs were passed "
	      "over after they settled",
	      (unsigned long long)b->work, (unsigned long long)most);
	CHECK(worst_pair(both) <= TOL, "an overlap of %.4f is left", worst_pair(both));
	steer_world_destroy(alone);
	steer_world_destroy(both);
}

/* A vehicle thrown at a wall at 1e6 units a second in a wrap world (its move, 16,667
 * units, is far longer than the world, so it comes at the wall the short way round
 * while its velocity points away): once the wall stops it, it stands there and its
 * velocity says so, rather than reporting 1e6 for ever. */
static void a_vehicle_stopped_by_a_wall_reports_it(void)
{
	steer_world *w = make_world(1000, 600, STEER_EDGE_WRAP, 1);
	uint32_t wall;
	if (steer_wall_add(w, v2(100, 0), v2(100, 600), &wall) != STEER_OK)
		abort();
	steer_params p = steer_params_default();
	p.max_speed = 1e6;
	uint32_t id = add_vehicle(w, 110, 300, -1e6, 30, &p);
	step(w, 4);
	steer_vec2 at = pos(w, id), v = vel(w, id);
	CHECK(fabs(fabs(at.x - 100.0) - p.radius) < 1e-6, "x = %.6f, not against the wall", at.x);
	CHECK(fabs(v.x) < 1e-6, "vx = %g while standing against the wall", v.x);
	CHECK(fabs(v.y - 30.0) < 1e-6, "vy = %g: the part along the wall should stay", v.y);
	step(w, 1);
	CHECK(pos(w, id).x == at.x, "x moved from %.6f to %.6f", at.x, pos(w, id).x);
	steer_world_destroy(w);
}

int main(void)
{
	RUN(contacts_the_flock_scan_must_not_miss);
	RUN(two_hundred_arriving_pack_without_overlap_and_rest);
	RUN(a_head_on_pair_does_not_interpenetrate);
	RUN(spawned_inside_a_circle_is_pushed_out);
	RUN(a_seeker_never_crosses_a_wall);
	RUN(spawned_inside_a_polygon_is_pushed_out);
	RUN(a_flock_under_a_new_polygon_comes_out);
	RUN(vehicles_stay_contained);
	RUN(a_crowd_pressed_against_a_wall);
	RUN(a_drifting_circle_gives_way_to_the_pinned);
	RUN(a_pile_spreads_at_a_bounded_cost);
	RUN(a_settled_island_is_passed_over_no_more);
	RUN(a_vehicle_stopped_by_a_wall_reports_it);
	return CHECK_DONE();
}
