/* Seek, flee, arrive, pursue, evade, wander and cruise, each against the property
 * that would break if the behaviour were wrong. */
#include <string.h>

#include "check.h"
#include "steer/command.h"
#include "testutil.h"

static void seek_reaches_and_overshoots(void)
{
	steer_world *w = make_world(1000, 600, STEER_EDGE_NONE, 1);
	uint32_t id = add_vehicle(w, 100, 300, 0, 0, NULL);
	steer_vehicle_target(w, id, STEER_SEEK, v2(500, 300));
	double closest = 1e9, furthest_x = 0;
	for (int t = 0; t < 60 * 10; t++) {
		step(w, 1);
		closest = fmin(closest, dist(pos(w, id), v2(500, 300)));
		furthest_x = fmax(furthest_x, pos(w, id).x);
	}
	CHECK(closest < 2.0, "closest approach %.2f", closest);
	/* Seek does not slow down: it flies through and has to turn back. */
	CHECK(furthest_x > 510.0, "never overshot: furthest x %.2f", furthest_x);
	steer_world_destroy(w);
}

static void flee_runs_until_panic_distance(void)
{
	steer_world *w = make_world(1000, 600, STEER_EDGE_NONE, 1);
	/* Flee alone: the fleeing vehicle runs straight at the far one, and bodies would
	 * stop it there (tests/test_bodies.c holds that). */
	steer_world_set_solid(w, false);
	steer_params p = steer_params_default();
	p.panic_distance = 200;
	uint32_t id = add_vehicle(w, 510, 300, 0, 0, &p);
	uint32_t far = add_vehicle(w, 800, 300, 0, 0, &p);
	steer_vehicle_target(w, id, STEER_FLEE, v2(500, 300));
	steer_vehicle_target(w, far, STEER_FLEE, v2(500, 300));
	double prev = dist(pos(w, id), v2(500, 300));
	int grew = 1;
	for (int t = 0; t < 60 * 5; t++) {
		step(w, 1);
		double d = dist(pos(w, id), v2(500, 300));
		if (d <= 200 && d < prev)
			grew = 0;
		prev = d;
	}
	CHECK(grew, "distance shrank while inside the panic distance");
	CHECK(prev > 200, "did not get beyond the panic distance: %.2f", prev);
	/* Beyond the panic distance the behaviour applies no force at all. */
	long i = steer_vehicle_index(w, id);
	const steer_vehicles *v = steer_world_vehicles(w);
	CHECK(v->fx[i] == 0 && v->fy[i] == 0, "still fleeing at %.1f: force %g,%g", prev, v->fx[i],
	      v->fy[i]);
	/* One that starts beyond it never moves. */
	CHECK(pos(w, far).x == 800 && pos(w, far).y == 300,
	      "a vehicle outside panic distance moved");
	steer_world_destroy(w);
}

static void arrive_case(uint8_t decel, steer_vec2 start, steer_vec2 start_v)
{
	steer_world *w = make_world(1000, 600, STEER_EDGE_NONE, 1);
	steer_params p = steer_params_default();
	p.decel = decel;
	uint32_t id = add_vehicle(w, start.x, start.y, start_v.x, start_v.y, &p);
	steer_vec2 target = v2(600, 300);
	steer_vehicle_target(w, id, STEER_ARRIVE, target);
	steer_vec2 dir = v2_norm(v2_sub(target, start));
	double overshoot = 0;
	for (int t = 0; t < 60 * 20; t++) {
		step(w, 1);
		/* How far past the target along the line of approach. */
		overshoot = fmax(overshoot, v2_dot(v2_sub(pos(w, id), target), dir));
	}
	double d = dist(pos(w, id), target), s = v2_len(vel(w, id));
	CHECK(d < 1.0, "decel %u: rests %.3f from the target", decel, d);
	CHECK(s < 0.5, "decel %u: still moving at %.3f", decel, s);
	CHECK(overshoot < 3.0, "decel %u: overshot by %.2f", decel, overshoot);
	steer_world_destroy(w);
}

static void arrive_stops_on_target_for_each_decel(void)
{
	for (uint8_t d = STEER_DECEL_LINEAR; d <= STEER_DECEL_SLOW; d++) {
		arrive_case(d, v2(100, 300), v2(0, 0));
		arrive_case(d, v2(100, 100), v2(0, 100)); /* coming in sideways at full speed */
	}
}

/* Arrive's desired speed is capped by what the vehicle can still brake from and by
 * the distance it may cover in one tick, so neither a huge force (which would cross
 * the whole distance and more in one tick) nor a weak one against a high top speed
 * (braking distance far beyond slowing_radius) overshoots or oscillates. */
static void arrive_at_any_speed(void)
{
	const struct {
		double max_speed, max_force, mass, seconds;
	} cases[] = {
	    {1e6, 1e9, 1, 30},    /* the jump between 1000 and 17,667 */
	    {300, 20, 1, 60},     /* braking distance 2,250 against slowing_radius 100 */
	    {300, 80, 4, 60},     /* the same through mass */
	    {300, 5, 0.25, 60},   /* and a light one */
	    {1e9, 1e9, 1, 30},    /* the largest the parameters accept */
	    {1e9, 1e-3, 1, 2000}, /* a top speed never reached: brakes from the start */
	    {50, 1e9, 1, 30},     /* force enough to stop dead from any speed */
	};
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		for (uint8_t decel = STEER_DECEL_LINEAR; decel <= STEER_DECEL_SLOW; decel++) {
			steer_world *w = make_world(2000, 1200, STEER_EDGE_NONE, 1);
			steer_params p = steer_params_default();
			p.max_speed = cases[k].max_speed;
			p.max_force = cases[k].max_force;
			p.mass = cases[k].mass;
			p.decel = decel;
			uint32_t id = add_vehicle(w, 1000, 600, 0, 0, &p);
			steer_vec2 target = v2(1600, 600);
			steer_vehicle_target(w, id, STEER_ARRIVE, target);
			double overshoot = 0, arrived_at = -1, worst_after = 0;
			int ticks = (int)(cases[k].seconds * 60);
			for (int t = 0; t < ticks; t++) {
				step(w, 1);
				steer_vec2 q = pos(w, id);
				overshoot = fmax(overshoot, q.x - target.x);
				double d = dist(q, target);
				if (arrived_at < 0 && d < 1.0)
					arrived_at = t;
				if (arrived_at >= 0)
					worst_after = fmax(worst_after, d);
			}
			double d = dist(pos(w, id), target), s = v2_len(vel(w, id));
			CHECK(overshoot <= 1.0,
			      "speed %g force %g mass %g decel %u: overshot by %.3f", p.max_speed,
			      p.max_force, p.mass, decel, overshoot);
			CHECK(arrived_at >= 0 && worst_after <= 1.0,
			      "speed %g force %g decel %u: within 1 at tick %.0f, then as far as "
			      "%.3f",
			      p.max_speed, p.max_force, decel, arrived_at, worst_after);
			CHECK(d < 0.01 && s < 0.5,
			      "speed %g force %g decel %u: rests %.4f off at %.3f", p.max_speed,
			      p.max_force, decel, d, s);
			steer_world_destroy(w);
		}
	}
}

/* Seek keeps its speed through the target (seek_reaches_and_overshoots) but never
 * asks for more than the whole distance in one tick: with force to spare it lands on
 * the target instead of jumping past it and back. */
static void seek_never_jumps_past(void)
{
	steer_world *w = make_world(2000, 1200, STEER_EDGE_NONE, 1);
	steer_params p = steer_params_default();
	p.max_speed = 1e6;
	p.max_force = 1e9;
	uint32_t id = add_vehicle(w, 1000, 600, 0, 0, &p);
	steer_vec2 target = v2(1600, 600);
	steer_vehicle_target(w, id, STEER_SEEK, target);
	double furthest = 0, max_x = 0;
	for (int t = 0; t < 60; t++) {
		step(w, 1);
		max_x = fmax(max_x, pos(w, id).x);
		if (t > 0)
			furthest = fmax(furthest, dist(pos(w, id), target));
	}
	CHECK(max_x <= target.x + 1e-6, "jumped past the target to x %.3f", max_x);
	CHECK(furthest < 1e-6, "left the target again: %.3f off", furthest);
	steer_world_destroy(w);
}

/* Deepest overlap of vehicle id's body with obstacle circle c (radius cr) so far. */
static double circle_overlap(const steer_world *w, uint32_t id, steer_vec2 c, double cr)
{
	return cr + steer_vehicle_params(w, id)->radius - dist(pos(w, id), c);
}

/* A target inside an obstacle stands for the nearest point where the body fits, taken
 * every tick: here the circle comes after the target was set. Arrive rests there,
 * outside the circle, instead of driving into it. */
static void arrive_target_inside_a_circle(void)
{
	steer_world *w = make_world(1000, 600, STEER_EDGE_NONE, 1);
	steer_world_set_solid(w, false); /* the rule that pushes bodies out is not tested here */
	uint32_t id = add_vehicle(w, 100, 300, 0, 0, NULL);
	steer_vehicle_target(w, id, STEER_ARRIVE, v2(600, 300));
	steer_vec2 c = v2(610, 300);
	CHECK(steer_obstacle_add(w, c, v2(0, 0), 30, NULL) == STEER_OK, "obstacle");
	double worst = -1e9;
	for (int t = 0; t < 60 * 20; t++) {
		step(w, 1);
		worst = fmax(worst, circle_overlap(w, id, c, 30));
	}
	CHECK(worst <= 0.05, "the body went %.2f into the circle", worst);
	CHECK(dist(pos(w, id), v2(575, 300)) < 0.01 && v2_len(vel(w, id)) < 0.01,
	      "rests at (%.3f, %.3f), not at the free point (575, 300)", pos(w, id).x,
	      pos(w, id).y);
	steer_world_destroy(w);
}

/* Seek (with force to land on its point) for a target inside a solid polygon: it lands
 * on the nearest free point, the body against the nearest edge. */
static void seek_target_inside_a_polygon(void)
{
	steer_world *w = make_world(1000, 600, STEER_EDGE_NONE, 1);
	steer_world_set_solid(w, false);
	steer_vec2 square[4] = {v2(500, 250), v2(600, 250), v2(600, 350), v2(500, 350)};
	char err[128];
	CHECK(steer_polygon_add(w, square, 4, false, NULL, err, sizeof err) == STEER_OK, "%s", err);
	steer_params p = steer_params_default();
	p.max_force = 1e9;
	uint32_t id = add_vehicle(w, 900, 300, 0, 0, &p);
	steer_vehicle_target(w, id, STEER_SEEK, v2(590, 300));
	double min_x = 1e9;
	for (int t = 0; t < 60 * 10; t++) {
		step(w, 1);
		min_x = fmin(min_x, pos(w, id).x);
	}
	CHECK(min_x >= 605 - 0.05, "the body went to x %.2f, into the polygon", min_x);
	CHECK(dist(pos(w, id), v2(605, 300)) < 0.01, "ends at (%.3f, %.3f), not at (605, 300)",
	      pos(w, id).x, pos(w, id).y);
	steer_world_destroy(w);
}

/* A waypoint inside a circle, with avoidance and solid bodies: the vehicle cannot
 * come within path_threshold of the waypoint itself (the circle is wider), so without
 * the free point it would circle there for ever; it passes the free point and goes
 * on to the last waypoint, never into the circle. */
static void waypoint_inside_a_circle(void)
{
	steer_world *w = make_world(1000, 600, STEER_EDGE_NONE, 1);
	steer_world_set_solid(w, true);
	steer_vec2 c = v2(500, 300);
	CHECK(steer_obstacle_add(w, c, v2(0, 0), 60, NULL) == STEER_OK, "obstacle");
	uint32_t id = add_vehicle(w, 100, 300, 0, 0, NULL);
	steer_vehicle_enable(w, id, STEER_AVOID, true);
	steer_vehicle_path_add(w, id, v2(490, 300));
	steer_vehicle_path_add(w, id, v2(300, 100));
	double worst = -1e9;
	for (int t = 0; t < 60 * 20; t++) {
		step(w, 1);
		worst = fmax(worst, circle_overlap(w, id, c, 60));
	}
	CHECK(worst <= 0.05, "the body went %.2f into the circle", worst);
	CHECK(dist(pos(w, id), v2(300, 100)) < 1.0,
	      "ended at (%.1f, %.1f), not at the last waypoint", pos(w, id).x, pos(w, id).y);
	steer_world_destroy(w);
}

/* Ticks until the chaser touches a target running straight along x: its body within
 * half a unit of the runner's (solid bodies stop it there). */
static int ticks_to_catch(int use_pursue)
{
	steer_world *w = make_world(1000, 600, STEER_EDGE_NONE, 1);
	steer_params slow = steer_params_default();
	slow.max_speed = 60;
	uint32_t runner = add_vehicle(w, 300, 500, 60, 0, &slow);
	uint32_t chaser = add_vehicle(w, 100, 100, 0, 0, NULL);
	if (use_pursue)
		steer_vehicle_chase(w, chaser, STEER_PURSUE, runner);
	int t;
	for (t = 0; t < 60 * 60; t++) {
		if (!use_pursue)
			steer_vehicle_target(w, chaser, STEER_SEEK, pos(w, runner));
		step(w, 1);
		if (dist(pos(w, chaser), pos(w, runner)) < 2 * slow.radius + 0.5)
			break;
	}
	steer_world_destroy(w);
	return t;
}

static void pursue_beats_seek(void)
{
	int pursue = ticks_to_catch(1), seek = ticks_to_catch(0);
	CHECK(pursue < 60 * 60, "pursue never caught the runner");
	CHECK(pursue < seek, "pursue took %d ticks, seek %d", pursue, seek);
}

/* Distance kept from a pursuer over 20 s by an evader, or by one that only flees
 * the pursuer's current position. The pursuer is faster but turns wide (low
 * max_force), like a car: fleeing its current position runs into its path, evading
 * its predicted position sidesteps it. */
static double distance_kept(int use_evade, double *closest)
{
	steer_world *w = make_world(1000, 600, STEER_EDGE_NONE, 1);
	uint32_t runner = add_vehicle(w, 500, 300, 0, 0, NULL);
	steer_params fast = steer_params_default();
	fast.max_speed = 120;
	fast.max_force = 40;
	/* The pursuer comes in from the side, already moving across. */
	uint32_t hunter = add_vehicle(w, 300, 100, 0, 120, &fast);
	steer_vehicle_chase(w, hunter, STEER_PURSUE, runner);
	if (use_evade)
		steer_vehicle_chase(w, runner, STEER_EVADE, hunter);
	double sum = 0;
	int n = 60 * 20;
	*closest = 1e9;
	for (int t = 0; t < n; t++) {
		if (!use_evade)
			steer_vehicle_target(w, runner, STEER_FLEE, pos(w, hunter));
		step(w, 1);
		double d = dist(pos(w, runner), pos(w, hunter));
		sum += d;
		*closest = fmin(*closest, d);
	}
	steer_world_destroy(w);
	return sum / n;
}

static void evade_keeps_farther_than_flee(void)
{
	double evade_min, flee_min;
	double evade = distance_kept(1, &evade_min), flee = distance_kept(0, &flee_min);
	CHECK(evade > flee * 1.3, "evade kept %.1f on average, flee %.1f", evade, flee);
	CHECK(evade_min > 50.0, "the evader was caught: closest %.1f", evade_min);
	CHECK(evade_min > flee_min, "evade came as close as %.1f, flee %.1f", evade_min, flee_min);
}

static void wander_moves_and_turns(void)
{
	steer_world *w = make_world(2000, 2000, STEER_EDGE_WRAP, 7);
	uint32_t id = add_vehicle(w, 1000, 1000, 50, 0, NULL);
	steer_vehicle_enable(w, id, STEER_WANDER, true);
	step(w, 60);
	double turned = 0, slowest = 1e9;
	steer_vec2 prev = v2_norm(vel(w, id));
	double min_angle = 1e9, max_angle = -1e9, unwrapped = atan2(prev.y, prev.x);
	for (int t = 0; t < 60 * 30; t++) {
		step(w, 1);
		steer_vec2 h = v2_norm(vel(w, id));
		double da = atan2(v2_cross(prev, h), v2_dot(prev, h));
		turned += fabs(da);
		unwrapped += da;
		min_angle = fmin(min_angle, unwrapped);
		max_angle = fmax(max_angle, unwrapped);
		slowest = fmin(slowest, v2_len(vel(w, id)));
		prev = h;
	}
	CHECK(slowest > 50.0, "wander slowed to %.2f", slowest);
	CHECK(turned > 3.0, "wander turned only %.2f rad in 30 s", turned);
	CHECK(max_angle - min_angle > 1.0, "heading stayed within %.2f rad", max_angle - min_angle);
	steer_world_destroy(w);
}

static void wander_run(uint64_t seed, double out[4])
{
	steer_world *w = make_world(1000, 1000, STEER_EDGE_WRAP, seed);
	uint32_t a = add_vehicle(w, 500, 500, 50, 0, NULL);
	uint32_t b = add_vehicle(w, 200, 200, 0, 50, NULL);
	steer_vehicle_enable(w, a, STEER_WANDER, true);
	steer_vehicle_enable(w, b, STEER_WANDER, true);
	step(w, 600);
	out[0] = pos(w, a).x;
	out[1] = pos(w, a).y;
	out[2] = pos(w, b).x;
	out[3] = pos(w, b).y;
	steer_world_destroy(w);
}

static void wander_is_seeded(void)
{
	double x[4], y[4], z[4];
	wander_run(42, x);
	wander_run(42, y);
	wander_run(43, z);
	CHECK(memcmp(x, y, sizeof x) == 0, "same seed wandered differently");
	CHECK(memcmp(x, z, sizeof x) != 0, "different seeds wandered identically");
	CHECK(x[0] != x[2] || x[1] != x[3], "two vehicles wandered identically");
}

static void priority_combination_caps_force(void)
{
	steer_world *w = make_world(1000, 600, STEER_EDGE_NONE, 1);
	steer_params p = steer_params_default();
	p.combine = STEER_COMBINE_PRIORITY;
	uint32_t id = add_vehicle(w, 500, 300, 0, 0, &p);
	/* flee outranks seek: with both wanting full force, only flee acts. */
	steer_vehicle_target(w, id, STEER_FLEE, v2(400, 300));
	steer_vehicle_target(w, id, STEER_SEEK, v2(500, 500));
	step(w, 1);
	const steer_vehicles *v = steer_world_vehicles(w);
	long i = steer_vehicle_index(w, id);
	double f = hypot(v->fx[i], v->fy[i]);
	CHECK(fabs(f - p.max_force) < 1e-9, "force %.6f, want max_force", f);
	CHECK(v->fx[i] > 0 && fabs(v->fy[i]) < 1e-9, "force %g,%g is not pure flee", v->fx[i],
	      v->fy[i]);
	/* With sum, the same two pull diagonally. */
	p.combine = STEER_COMBINE_SUM;
	steer_vehicle_set_params(w, id, &p);
	steer_vehicle_set_velocity(w, id, v2(0, 0));
	step(w, 1);
	i = steer_vehicle_index(w, id);
	CHECK(v->fy[i] > 1.0, "sum dropped the seek part: %g", v->fy[i]);
	steer_world_destroy(w);
}

static double speed_of(const steer_world *w, uint32_t id)
{
	return v2_len(vel(w, id));
}

/* Off by default; on, it brings the speed to cruise_speed from above and below, along
 * the heading, and a vehicle at rest sets off the way it faces. */
static void cruise_holds_its_speed(void)
{
	steer_world *w = make_world(1000, 600, STEER_EDGE_WRAP, 1);
	CHECK(steer_params_default().cruise_speed == 0, "cruise is on by default");
	uint32_t plain = add_vehicle(w, 100, 100, 7, 0, NULL);
	steer_params p = steer_params_default();
	p.cruise_speed = 30;
	uint32_t slow = add_vehicle(w, 100, 200, 3, 4, &p);
	uint32_t fast = add_vehicle(w, 100, 300, 0, -90, &p);
	uint32_t rest = add_vehicle(w, 100, 400, 0, 0, &p);
	CHECK(steer_vehicle_set_velocity(w, rest, v2(0, 0)) == STEER_OK, "set velocity");
	step(w, 60);
	CHECK(vel(w, plain).x == 7 && vel(w, plain).y == 0, "a plain vehicle changed speed: %g",
	      speed_of(w, plain));
	uint32_t ids[3] = {slow, fast, rest};
	steer_vec2 heading[3] = {v2(0.6, 0.8), v2(0, -1), v2(1, 0)};
	for (int k = 0; k < 3; k++) {
		steer_vec2 v = vel(w, ids[k]);
		CHECK(fabs(v2_len(v) - 30) < 1e-9, "vehicle %u: speed %.12g after 1 s", ids[k],
		      v2_len(v));
		CHECK(fabs(v2_cross(v, heading[k])) < 1e-9 && v2_dot(v, heading[k]) > 0,
		      "vehicle %u turned: velocity (%g, %g)", ids[k], v.x, v.y);
	}
	steer_world_destroy(w);
}

/* Cruise is one more weighted steering: summed, a seeker (wanting max_speed 100)
 * with cruise_speed 20 settles where the two cancel, (100 - s) + k (20 - s) = 0: 60
 * at weight 1 (about which it alternates tick by tick: each steering asks for its
 * whole change at once), 73.3 at weight 0.5. By priority cruise comes last and gets
 * only the force seek leaves of max_force (200): seek's f = (100 - s) / dt and
 * cruise's cut to 200 - f cancel at f = 100, s = 100 - 100 / 60. */
static void cruise_combines_like_the_others(void)
{
	const struct {
		double weight;
		uint8_t combine;
		double want, within;
	} cases[] = {
	    {1, STEER_COMBINE_SUM, 60, 0.01},
	    {0.5, STEER_COMBINE_SUM, 220.0 / 3.0, 0.01},
	    {1, STEER_COMBINE_PRIORITY, 100 - 100.0 / 60, 0.01},
	};
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		steer_world *w = make_world(100000, 600, STEER_EDGE_NONE, 1);
		steer_params p = steer_params_default();
		p.cruise_speed = 20;
		p.cruise_weight = cases[k].weight;
		p.combine = cases[k].combine;
		uint32_t id = add_vehicle(w, 100, 300, 0, 0, &p);
		steer_vehicle_target(w, id, STEER_SEEK, v2(99000, 300));
		step(w, 60 * 4);
		double mean = 0;
		for (int t = 0; t < 60; t++) {
			step(w, 1);
			mean += speed_of(w, id) / 60;
		}
		CHECK(fabs(mean - cases[k].want) < cases[k].within, "weight %g, %s: speed %.3f",
		      cases[k].weight, cases[k].combine ? "priority" : "sum", mean);
		steer_world_destroy(w);
	}
}

static const char *run_line(steer_session *s, const char *line, steer_reply *r)
{
	steer_command cmd;
	static char err[256];
	steer_reply_free(r);
	steer_reply_init(r);
	if (steer_cmd_parse_line(&cmd, line, err, sizeof err) != STEER_OK)
		return err;
	if (steer_cmd_exec(&cmd, s, NULL, r) != STEER_OK)
		return r->error;
	return r->json.data ? r->json.data : "";
}

/* cruise_speed and cruise_weight through the text commands, and in `help set`. */
static void cruise_is_a_parameter(void)
{
	steer_session s = {.world = make_world(1000, 600, STEER_EDGE_WRAP, 1)};
	steer_reply r;
	steer_reply_init(&r);
	CHECK(strstr(run_line(&s, "spawn 100 100 cruise_speed=25", &r), "\"id\":1"), "spawn");
	CHECK(steer_vehicle_params(s.world, 1)->cruise_speed == 25, "spawned with %g",
	      steer_vehicle_params(s.world, 1)->cruise_speed);
	run_line(&s, "set 1 cruise_speed=12.5 cruise_weight=2", &r);
	CHECK(r.ok, "set: %s", r.error);
	const steer_params *p = steer_vehicle_params(s.world, 1);
	CHECK(p->cruise_speed == 12.5 && p->cruise_weight == 2, "set gave %g, %g", p->cruise_speed,
	      p->cruise_weight);
	const char *got = run_line(&s, "get 1", &r);
	CHECK(strstr(got, "\"cruise_speed\":12.5") && strstr(got, "\"cruise_weight\":2"), "get: %s",
	      got);
	const char *help = run_line(&s, "help set", &r);
	CHECK(strstr(help, "\"cruise_speed\":") && strstr(help, "\"cruise_weight\":"),
	      "help set: %s", help);
	const char *bad = run_line(&s, "set 1 cruise_speed=-3", &r);
	CHECK(!r.ok && strstr(bad, "cruise_speed"), "a negative cruise_speed: %s", bad);
	bad = run_line(&s, "set 1 cruise_speed=nan", &r);
	CHECK(strstr(bad, "cruise_speed"), "cruise_speed=nan: %s", bad);
	CHECK(steer_vehicle_params(s.world, 1)->cruise_speed == 12.5, "a refused set changed it");
	steer_reply_free(&r);
	steer_world_destroy(s.world);
}

/* `get` reports where the vehicle steers for its targets: the nearest free point of
 * one inside an obstacle, and the target itself when it is free. */
static void get_reports_free_targets(void)
{
	steer_session s = {.world = make_world(1000, 600, STEER_EDGE_NONE, 1)};
	steer_reply r;
	steer_reply_init(&r);
	CHECK(strstr(run_line(&s, "spawn 100 300", &r), "\"id\":1"), "spawn");
	CHECK(strstr(run_line(&s, "obstacle 610 300 30", &r), "\"id\":2"), "obstacle");
	run_line(&s, "arrive 1 600 300", &r);
	run_line(&s, "seek 1 100 500", &r);
	run_line(&s, "waypoint 1 620 290", &r);
	const char *got = run_line(&s, "get 1", &r);
	const char *at = strstr(got, "\"arrive_free\":[");
	double x = 0, y = 0;
	CHECK(strstr(got, "\"arrive\":[600,300]") && at &&
	          sscanf(at, "\"arrive_free\":[%lf,%lf]", &x, &y) == 2 && fabs(x - 575) < 1e-6 &&
	          y == 300,
	      "get: %s", got);
	CHECK(strstr(got, "\"seek_free\":[100,500]"), "a free target moved: %s", got);
	CHECK(strstr(got, "\"waypoints\":[[620,290]],\"free\":["), "the waypoint: %s", got);
	steer_reply_free(&r);
	steer_world_destroy(s.world);
}

/* Where a vehicle is left to rest by arrive for twenty seconds. */
static steer_vec2 rest_after(steer_session *s)
{
	step(s->world, 60 * 20);
	return pos(s->world, 1);
}

/* The free point of a target follows every change of the geometry around it, however
 * long the target itself stays put: a circle put over it and taken away, a wall put
 * through it and taken away, a circle drifting across it. */
static void free_target_follows_the_geometry(void)
{
	steer_session s = {.world = make_world(1000, 600, STEER_EDGE_NONE, 1)};
	steer_world_set_solid(s.world, false); /* only the target keeps it out */
	steer_reply r;
	steer_reply_init(&r);
	run_line(&s, "spawn 100 300", &r);
	run_line(&s, "arrive 1 600 300", &r);
	steer_vec2 at = rest_after(&s);
	CHECK(dist(at, v2(600, 300)) < 0.01, "rests at (%.2f, %.2f)", at.x, at.y);
	const char *got = run_line(&s, "obstacle 610 300 30", &r);
	CHECK(strstr(got, "\"id\":2"), "%s", got);
	at = rest_after(&s);
	CHECK(dist(at, v2(575, 300)) < 0.01, "with the circle: (%.2f, %.2f)", at.x, at.y);
	run_line(&s, "remove 2", &r);
	at = rest_after(&s);
	CHECK(dist(at, v2(600, 300)) < 0.01, "the circle gone: (%.2f, %.2f)", at.x, at.y);
	got = run_line(&s, "wall 600 200 600 400", &r);
	CHECK(strstr(got, "\"id\":3"), "%s", got);
	at = rest_after(&s);
	CHECK(fabs(at.x - 600) >= 5 - 0.05 && fabs(at.y - 300) < 0.01,
	      "with the wall: (%.2f, %.2f)", at.x, at.y);
	run_line(&s, "remove 3", &r);
	at = rest_after(&s);
	CHECK(dist(at, v2(600, 300)) < 0.01, "the wall gone: (%.2f, %.2f)", at.x, at.y);
	/* A circle drifts towards the target from the right: the vehicle keeps ahead of
	 * it (arrive lags a moving point by a few units), until the centre comes near the
	 * target. Were the point taken only once, the circle would run 25 deep over it. */
	run_line(&s, "obstacle 900 300 30 vx=-5", &r);
	double worst = -1e9;
	for (int t = 0; t < 60 * 58; t++) {
		step(s.world, 1);
		worst =
		    fmax(worst, circle_overlap(s.world, 1, v2(900 - 5.0 * (t + 1) / 60, 300), 30));
	}
	CHECK(worst <= 10.0, "the drifting circle ran %.2f over the vehicle", worst);
	steer_reply_free(&r);
	steer_world_destroy(s.world);
}

/* An avoider's velocity after one tick among: B near it, C farther (past a cell of
 * the grid once fillers make the cells small) coming at it (it avoids the nearest
 * two, far enough ahead that both matter), and n still, non-avoiding fillers far
 * away, which make the grid's cells smaller; everything shifted dx along x. */
static steer_vec2 avoider_step(double dx, int n, double far)
{
	steer_world *w = make_world(1000, 600, STEER_EDGE_WRAP, 1);
	steer_world_set_solid(w, false);
	steer_params p = steer_params_default();
	p.avoid_neighbours = 2;
	p.avoid_horizon = 3.0;
	uint32_t a = add_vehicle(w, 480 + dx, 10, 20, 0, &p);
	steer_vehicle_enable(w, a, STEER_AVOID, true);
	steer_vehicle_target(w, a, STEER_SEEK, v2(fmod(680 + dx, 1000), 10));
	add_vehicle(w, fmod(494 + dx, 1000), 10, 20, 0, NULL);
	add_vehicle(w, fmod(480 + far + dx, 1000), 12, -40, 0, NULL);
	for (int k = 0; k < n; k++)
		add_vehicle(w, fmod(700 + dx + (k % 20) * 5, 1000), 300 + (k / 20) * 5, 0, 0, NULL);
	step(w, 1);
	steer_vec2 v = vel(w, a);
	steer_world_destroy(w);
	return v;
}

/* Across a wrap world's seam the avoider meets each neighbour once, so what it does
 * depends on the neighbours alone, not on where the seam or the grid's cells fall:
 * the same bits next to the seam as in the middle, for any cell size. */
static void avoid_meets_a_neighbour_once_across_the_seam(void)
{
	int differ = 0;
	for (int n = 0; n <= 600; n += 50)
		for (double far = 60; far <= 180; far += 20) {
			steer_vec2 mid = avoider_step(0, n, far), seam = avoider_step(506, n, far);
			if ((mid.x != seam.x || mid.y != seam.y) && differ++ < 3)
				CHECK(
				    0,
				    "with %d fillers, C %g ahead: (%a, %a) in the middle, (%a, %a) "
				    "next to the seam",
				    n, far, mid.x, mid.y, seam.x, seam.y);
		}
}

int main(void)
{
	RUN(seek_reaches_and_overshoots);
	RUN(flee_runs_until_panic_distance);
	RUN(arrive_stops_on_target_for_each_decel);
	RUN(arrive_at_any_speed);
	RUN(seek_never_jumps_past);
	RUN(arrive_target_inside_a_circle);
	RUN(seek_target_inside_a_polygon);
	RUN(waypoint_inside_a_circle);
	RUN(avoid_meets_a_neighbour_once_across_the_seam);
	RUN(get_reports_free_targets);
	RUN(free_target_follows_the_geometry);
	RUN(pursue_beats_seek);
	RUN(evade_keeps_farther_than_flee);
	RUN(wander_moves_and_turns);
	RUN(wander_is_seeded);
	RUN(priority_combination_caps_force);
	RUN(cruise_holds_its_speed);
	RUN(cruise_combines_like_the_others);
	RUN(cruise_is_a_parameter);
	return CHECK_DONE();
}
