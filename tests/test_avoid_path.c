/* Obstacle avoidance and path following. */
#include "check.h"
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
	RUN(path_visits_waypoints_in_order);
	RUN(path_loop_keeps_cycling);
	RUN(path_clear_stops_following);
	return CHECK_DONE();
}
