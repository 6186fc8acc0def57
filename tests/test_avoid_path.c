/* Obstacle avoidance and path following. */
#include "check.h"
#include "geometry.h"
#include "testutil.h"

/* A vehicle seeking a point straight behind a circle: it must never enter the circle
 * and must still reach the point. Returns the closest approach to the circle's edge,
 * or -1 when the target was never reached. */
static double avoid_run(steer_rng *rng, double start_dy, double target_dy, uint8_t combine)
{
	steer_world *w = make_world(1200, 800, STEER_EDGE_NONE, 1);
	steer_params p = steer_params_default();
	p.combine = combine;
	steer_vec2 c = v2(600, 400);
	double r = 50;
	steer_obstacle_add(w, c, v2(0, 0), r, NULL);
	uint32_t id = add_vehicle(w, 150, 400 + start_dy, 0, 0, &p);
	steer_vec2 target = v2(1050, 400 + target_dy);
	steer_vehicle_target(w, id, STEER_SEEK, target);
	steer_vehicle_enable(w, id, STEER_AVOID, true);
	(void)rng;
	double clearance = 1e9, reached = 0;
	for (int t = 0; t < 60 * 30 && !reached; t++) {
		step(w, 1);
		clearance = fmin(clearance, dist(pos(w, id), c) - r);
		if (dist(pos(w, id), target) < 5.0)
			reached = 1;
	}
	steer_world_destroy(w);
	return reached ? clearance : -1.0;
}

static void avoider_never_enters_and_gets_past(void)
{
	steer_rng rng;
	steer_rng_seed(&rng, 99, 1);
	double worst = 1e9;
	int stalled = 0;
	for (int k = 0; k < 200; k++) {
		/* Aims whose straight line crosses the circle; the first is dead centre. */
		double a = k ? steer_rng_range(&rng, -40, 40) : 0;
		double b = k ? steer_rng_range(&rng, -40, 40) : 0;
		uint8_t combine = (k & 1) ? STEER_COMBINE_PRIORITY : STEER_COMBINE_SUM;
		double clearance = avoid_run(&rng, a, b, combine);
		if (clearance < 0) {
			stalled++;
			fprintf(stderr, "aim %d (%.1f -> %.1f) never reached its target\n", k, a,
			        b);
		} else {
			worst = fmin(worst, clearance);
		}
	}
	CHECK(stalled == 0, "%d of 200 vehicles never got past the obstacle", stalled);
	/* The vehicle's own radius (5) must stay out too. */
	CHECK(worst > 5.0, "a vehicle came within %.2f of the obstacle's edge", worst);
}

static void avoid_moving_obstacles(void)
{
	/* The avoid scenario: a wanderer among five drifting circles; it must never be
	 * inside one. */
	for (uint64_t seed = 1; seed <= 5; seed++) {
		steer_world *w = make_world(800, 600, STEER_EDGE_BOUNCE, seed);
		steer_rng *rng = steer_world_rng(w);
		for (int k = 0; k < 5; k++) {
			double r = steer_rng_range(rng, 15, 45);
			steer_obstacle_add(
			    w, v2(160.0 * k + 80, steer_rng_range(rng, 100, 500)),
			    v2(steer_rng_range(rng, -30, 30), steer_rng_range(rng, -30, 30)), r,
			    NULL);
		}
		steer_params p = steer_params_default();
		p.max_speed = 60;
		uint32_t id = add_vehicle(w, 5, 5, 40, 30, &p);
		steer_vehicle_enable(w, id, STEER_WANDER | STEER_AVOID, true);
		size_t n;
		double worst = 1e9;
		for (int t = 0; t < 60 * 60; t++) {
			step(w, 1);
			const steer_obstacle *o = steer_world_obstacles(w, &n);
			for (size_t k = 0; k < n; k++)
				worst = fmin(worst, dist(pos(w, id), v2(o[k].x, o[k].y)) - o[k].r);
		}
		CHECK(worst > 0, "seed %llu: the wanderer entered an obstacle (%.2f)",
		      (unsigned long long)seed, worst);
		steer_world_destroy(w);
	}
}

/* --- bodies: the vehicle's radius kept off vehicles and circles ----------------- */

/* A world without the solid rule, whose position correction would hide what
 * steering alone does. */
static steer_world *steering_world(void)
{
	steer_world *w = make_world(1200, 800, STEER_EDGE_NONE, 1);
	steer_world_set_solid(w, false);
	return w;
}

static uint32_t seeker(steer_world *w, steer_vec2 from, steer_vec2 to, const steer_params *p)
{
	uint32_t id = add_vehicle(w, from.x, from.y, 0, 0, p);
	steer_vehicle_target(w, id, STEER_SEEK, to);
	steer_vehicle_enable(w, id, STEER_AVOID, true);
	return id;
}

static void head_on_pair_never_touches(void)
{
	for (int combine = 0; combine < 2; combine++) {
		steer_world *w = steering_world();
		steer_params p = steer_params_default();
		p.combine = (uint8_t)combine;
		steer_vec2 a0 = v2(300, 400), b0 = v2(900, 400);
		uint32_t a = seeker(w, a0, b0, &p), b = seeker(w, b0, a0, &p);
		double closest = 1e9, a_best = 1e9, b_best = 1e9;
		for (int t = 0; t < 60 * 15; t++) {
			step(w, 1);
			closest = fmin(closest, dist(pos(w, a), pos(w, b)));
			a_best = fmin(a_best, dist(pos(w, a), b0));
			b_best = fmin(b_best, dist(pos(w, b), a0));
		}
		CHECK(closest >= 0.99 * (2 * p.radius), "combine %d: closest %.2f, radii sum %.0f",
		      combine, closest, 2 * p.radius);
		CHECK(a_best < 10 && b_best < 10,
		      "combine %d: got within %.1f and %.1f of the goals", combine, a_best, b_best);
		steer_world_destroy(w);
	}
}

/* A vehicle seeking from the left to the right of the world through the circles
 * given (x, y, r, vx, vy): how deep its body ever went into one (negative: never
 * touched), and whether it got within 10 of its goal. */
static double deepest(const double (*c)[5], int n, const steer_params *p, double *best)
{
	steer_world *w = steering_world();
	for (int k = 0; k < n; k++)
		steer_obstacle_add(w, v2(c[k][0], c[k][1]), v2(c[k][3], c[k][4]), c[k][2], NULL);
	steer_vec2 goal = v2(1100, 400);
	uint32_t id = seeker(w, v2(100, 400), goal, p);
	double depth = -1e9;
	*best = 1e9;
	for (int t = 0; t < 60 * 30; t++) {
		step(w, 1);
		size_t m;
		const steer_obstacle *o = steer_world_obstacles(w, &m);
		for (size_t k = 0; k < m; k++)
			depth =
			    fmax(depth, p->radius + o[k].r - dist(pos(w, id), v2(o[k].x, o[k].y)));
		*best = fmin(*best, dist(pos(w, id), goal));
	}
	steer_world_destroy(w);
	return depth;
}

static void overlapping_circles_are_one_obstacle(void)
{
	steer_params p = steer_params_default();
	double best;
	/* Two overlapping, the seam on the way. */
	const double seam[][5] = {{600, 370, 40, 0, 0}, {600, 430, 40, 0, 0}};
	double d = deepest(seam, 2, &p, &best);
	CHECK(d <= 0.01 * p.radius, "drove %.2f into the seam", d);
	CHECK(best < 10, "never got past the pair (%.1f from the goal)", best);
	/* A wall of five overlapping across the way. */
	double wall[5][5];
	for (int k = 0; k < 5; k++)
		wall[k][0] = 600, wall[k][1] = 280 + 60.0 * k, wall[k][2] = 40, wall[k][3] = 0,
		wall[k][4] = 0;
	d = deepest((const double(*)[5])wall, 5, &p, &best);
	CHECK(d <= 0.01 * p.radius, "drove %.2f into the wall", d);
	CHECK(best < 10, "never got round the wall (%.1f from the goal)", best);
}

static void c_shaped_cluster_is_never_entered(void)
{
	/* Seven circles on an arc open towards the vehicle, the goal behind: it may
	 * be held in the cup, but must never be inside a circle. */
	steer_params p = steer_params_default();
	double cup[7][5];
	for (int k = 0; k < 7; k++) {
		double a = -1.8 + 3.6 * k / 6;
		cup[k][0] = 600 + 90 * cos(a), cup[k][1] = 400 + 90 * sin(a), cup[k][2] = 25;
		cup[k][3] = cup[k][4] = 0;
	}
	double best, d = deepest((const double(*)[5])cup, 7, &p, &best);
	CHECK(d <= 0.01 * p.radius, "drove %.2f into the cup", d);
}

static void circle_crossing_at_60_is_avoided(void)
{
	/* Crossing the way upwards at 60 u/s, timed to meet the vehicle around x 550. */
	steer_params p = steer_params_default();
	for (int k = 0; k < 6; k++) {
		double crossing[][5] = {{500 + 50 * (k / 2), 100, 20 + 20 * (k % 2), 0, 60}};
		double best, d = deepest((const double(*)[5])crossing, 1, &p, &best);
		CHECK(d <= 0.01 * p.radius, "circle %d hit it %.2f deep", k, d);
		CHECK(best < 10, "circle %d: never reached the goal (%.1f from it)", k, best);
	}
}

static void a_body_wider_than_the_buffer_is_kept_out(void)
{
	steer_params p = steer_params_default();
	p.radius = 3 * p.avoid_buffer;
	const double one[][5] = {{600, 410, 50, 0, 0}};
	double best, d = deepest(one, 1, &p, &best);
	CHECK(d <= 0.01 * p.radius, "the body went %.2f into the circle", d);
	CHECK(best < 10, "never got past (%.1f from the goal)", best);
}

/* --- walls and polygons ------------------------------------------------------- */

/* The least clearance between vehicle id's body and any segment (walls, polygon
 * edges, contained bounds), and whether its centre was ever in a blocked region. */
static double wall_clearance(const steer_world *w, uint32_t id, bool *inside)
{
	size_t n;
	const steer_segment *s = steer_geom_segments(w, &n);
	double r = steer_vehicle_params(w, id)->radius, worst = 1e9;
	for (size_t k = 0; k < n; k++)
		worst = fmin(worst, sqrt(steer_seg_dist2(s[k].a, s[k].b, pos(w, id))) - r);
	*inside |= steer_geom_in_region(w, pos(w, id));
	return worst;
}

/* Seeks from (100, 400) to goal through the geometry already in w: the least
 * clearance to a segment; *best: how near the goal it got. */
static double run_past_walls(steer_world *w, steer_vec2 goal, double *best, bool *inside)
{
	steer_params p = steer_params_default();
	uint32_t id = seeker(w, v2(100, 400), goal, &p);
	double worst = 1e9;
	*best = 1e9;
	*inside = false;
	for (int t = 0; t < 60 * 30; t++) {
		step(w, 1);
		worst = fmin(worst, wall_clearance(w, id, inside));
		*best = fmin(*best, dist(pos(w, id), goal));
	}
	return worst;
}

static void a_wall_across_the_way_is_never_crossed(void)
{
	steer_world *w = steering_world();
	CHECK(steer_wall_add(w, v2(600, 250), v2(600, 550), NULL) == STEER_OK, "wall refused");
	double best;
	bool inside;
	double worst = run_past_walls(w, v2(1100, 400), &best, &inside);
	double r = steer_params_default().radius;
	CHECK(worst >= -0.01 * r, "the body went %.2f into the wall", -worst);
	CHECK(best < 10, "never got round the wall (%.1f from the goal)", best);
	steer_world_destroy(w);
}

static void a_concave_polygon_is_never_entered(void)
{
	/* A cup open towards the vehicle, the goal behind it. */
	steer_world *w = steering_world();
	const steer_vec2 cup[] = {{500, 250}, {700, 250}, {700, 550}, {500, 550},
	                          {500, 500}, {650, 500}, {650, 300}, {500, 300}};
	char err[96];
	CHECK(steer_polygon_add(w, cup, 8, false, NULL, err, sizeof err) == STEER_OK, "%s", err);
	double best;
	bool inside;
	double worst = run_past_walls(w, v2(1100, 400), &best, &inside);
	double r = steer_params_default().radius;
	CHECK(worst >= -0.01 * r && !inside, "the body went %.2f into the cup (centre inside: %d)",
	      -worst, inside);
	steer_world_destroy(w);
}

static void contained_bounds_hold_a_seeker_inside(void)
{
	/* The goal outside the world: it must press against the bound, not cross it. */
	steer_world *w = make_world(1200, 800, STEER_EDGE_NONE, 1);
	steer_world_set_solid(w, false);
	CHECK(steer_world_set_contain(w, true) == STEER_OK, "contain refused");
	double best;
	bool inside;
	double worst = run_past_walls(w, v2(1400, 400), &best, &inside);
	double r = steer_params_default().radius;
	CHECK(worst >= -0.01 * r && !inside, "the body went %.2f past the bound", -worst);
	steer_world_destroy(w);
}

static const steer_vec2 square[4] = {{200, 200}, {600, 200}, {600, 500}, {200, 500}};

static uint32_t path_vehicle(steer_world *w, bool loop)
{
	uint32_t id = add_vehicle(w, 100, 100, 0, 0, NULL);
	for (int k = 0; k < 4; k++)
		steer_vehicle_path_add(w, id, square[k]);
	steer_vehicle_path_loop(w, id, loop);
	return id;
}

static void path_visits_waypoints_in_order(void)
{
	steer_world *w = make_world(800, 600, STEER_EDGE_NONE, 1);
	uint32_t id = path_vehicle(w, false);
	uint32_t expected = 0;
	double threshold = steer_vehicle_params(w, id)->path_threshold;
	for (int t = 0; t < 60 * 30; t++) {
		steer_vec2 before = pos(w, id);
		uint32_t idx = steer_vehicle_get(w, id)->path.index;
		step(w, 1);
		uint32_t now = steer_vehicle_get(w, id)->path.index;
		if (now != idx) {
			CHECK(now == idx + 1, "index jumped from %u to %u", idx, now);
			CHECK(dist(before, square[idx]) < threshold,
			      "advanced from waypoint %u while %.1f away", idx,
			      dist(before, square[idx]));
			expected++;
		}
	}
	CHECK(expected == 3, "advanced %u times, want 3", expected);
	/* Loop off: it arrives at the last waypoint and stays. */
	CHECK(dist(pos(w, id), square[3]) < 1.0, "ended %.2f from the last waypoint",
	      dist(pos(w, id), square[3]));
	CHECK(v2_len(vel(w, id)) < 0.5, "still moving at the end: %.2f", v2_len(vel(w, id)));
	steer_world_destroy(w);
}

static void path_loop_keeps_cycling(void)
{
	steer_world *w = make_world(800, 600, STEER_EDGE_NONE, 1);
	uint32_t id = path_vehicle(w, true);
	int laps = 0;
	uint32_t prev = 0;
	for (int t = 0; t < 60 * 60; t++) {
		step(w, 1);
		uint32_t now = steer_vehicle_get(w, id)->path.index;
		if (now == 0 && prev == 3)
			laps++;
		prev = now;
	}
	/* The square's perimeter is 1400 units; at 100 units/s a lap takes ~15 s. */
	CHECK(laps >= 3, "completed %d laps in 60 s", laps);
	CHECK(v2_len(vel(w, id)) > 50, "looping vehicle slowed to %.1f", v2_len(vel(w, id)));
	steer_world_destroy(w);
}

static void path_clear_stops_following(void)
{
	steer_world *w = make_world(800, 600, STEER_EDGE_NONE, 1);
	uint32_t id = path_vehicle(w, true);
	step(w, 30);
	CHECK(steer_world_vehicles(w)->behaviors[0] & STEER_PATH,
	      "path not on after adding waypoints");
	steer_vehicle_path_clear(w, id);
	CHECK(!(steer_world_vehicles(w)->behaviors[0] & STEER_PATH), "path still on after clear");
	CHECK(steer_vehicle_get(w, id)->path.count == 0, "waypoints left after clear");
	steer_world_destroy(w);
}

int main(void)
{
	RUN(avoider_never_enters_and_gets_past);
	RUN(avoid_moving_obstacles);
	RUN(head_on_pair_never_touches);
	RUN(overlapping_circles_are_one_obstacle);
	RUN(c_shaped_cluster_is_never_entered);
	RUN(circle_crossing_at_60_is_avoided);
	RUN(a_body_wider_than_the_buffer_is_kept_out);
	RUN(a_wall_across_the_way_is_never_crossed);
	RUN(a_concave_polygon_is_never_entered);
	RUN(contained_bounds_hold_a_seeker_inside);
	RUN(path_visits_waypoints_in_order);
	RUN(path_loop_keeps_cycling);
	RUN(path_clear_stops_following);
	return CHECK_DONE();
}
