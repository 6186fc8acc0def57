/* The world as a container: edges, ids, removal, determinism, degenerate input,
 * parameter validation, scenarios. */
#include <string.h>
#include <time.h>

#include "check.h"
#include "idmap.h"
#include "scenario.h"
#include "testutil.h"

static void edges_keep_vehicles_inside(void)
{
	steer_edges kinds[2] = {STEER_EDGE_WRAP, STEER_EDGE_BOUNCE};
	for (int k = 0; k < 2; k++) {
		steer_world *w = make_world(300, 200, kinds[k], 11);
		steer_rng *rng = steer_world_rng(w);
		steer_params p = steer_params_default();
		p.max_speed = 400; /* several units a tick, so edges are crossed often */
		for (int n = 0; n < 200; n++) {
			uint32_t id = add_vehicle(
			    w, steer_rng_range(rng, 0, 300), steer_rng_range(rng, 0, 200),
			    steer_rng_range(rng, -400, 400), steer_rng_range(rng, -400, 400), &p);
			steer_vehicle_enable(w, id, STEER_WANDER, true);
		}
		int outside = 0;
		for (int t = 0; t < 2000; t++) {
			step(w, 1);
			const steer_vehicles *v = steer_world_vehicles(w);
			for (size_t i = 0; i < v->count; i++) {
				bool in = kinds[k] == STEER_EDGE_WRAP
				              ? v->px[i] >= 0 && v->px[i] < 300 && v->py[i] >= 0 &&
				                    v->py[i] < 200
				              : v->px[i] >= 0 && v->px[i] <= 300 && v->py[i] >= 0 &&
				                    v->py[i] <= 200;
				outside += !in;
			}
		}
		CHECK(outside == 0, "%s: %d vehicle-ticks outside the bounds",
		      steer_edges_name(kinds[k]), outside);
		steer_world_destroy(w);
	}
}

static void wrap_takes_the_short_way(void)
{
	steer_world *w = make_world(1000, 1000, STEER_EDGE_WRAP, 1);
	uint32_t id = add_vehicle(w, 980, 500, 0, 0, NULL);
	steer_vehicle_target(w, id, STEER_SEEK, v2(20, 500));
	step(w, 1);
	CHECK(vel(w, id).x > 0, "seeking across the seam went the long way: vx %g", vel(w, id).x);
	step(w, 60);
	CHECK(pos(w, id).x < 100, "did not cross the seam: x %g", pos(w, id).x);
	steer_world_destroy(w);
}

static void degenerate_input_stays_finite(void)
{
	steer_world *w = make_world(500, 500, STEER_EDGE_BOUNCE, 1);
	steer_params p = steer_params_default();
	/* Two flockers on the same point, at rest (no cohesion, which would cancel
	 * separation exactly for a pair). */
	steer_params apart = p;
	apart.cohesion_weight = 0;
	uint32_t a = add_vehicle(w, 100, 100, 0, 0, &apart);
	uint32_t b = add_vehicle(w, 100, 100, 0, 0, &apart);
	steer_vehicle_enable(w, a, STEER_FLOCK | STEER_AVOID, true);
	steer_vehicle_enable(w, b, STEER_FLOCK, true);
	/* Targets exactly on the vehicle. */
	uint32_t c = add_vehicle(w, 200, 200, 0, 0, &p);
	steer_vehicle_target(w, c, STEER_SEEK, v2(200, 200));
	steer_vehicle_target(w, c, STEER_FLEE, v2(200, 200));
	steer_vehicle_target(w, c, STEER_ARRIVE, v2(200, 200));
	/* Pursuing and evading a vehicle on the same point. */
	uint32_t d = add_vehicle(w, 300, 300, 0, 0, &p);
	uint32_t e = add_vehicle(w, 300, 300, 0, 0, &p);
	steer_vehicle_chase(w, d, STEER_PURSUE, e);
	steer_vehicle_chase(w, e, STEER_EVADE, d);
	/* Path on with no waypoints, and a single waypoint on the vehicle. */
	uint32_t f = add_vehicle(w, 400, 400, 0, 0, &p);
	steer_vehicle_enable(w, f, STEER_PATH | STEER_WANDER, true);
	uint32_t g = add_vehicle(w, 50, 400, 0, 0, &p);
	steer_vehicle_path_add(w, g, v2(50, 400));
	/* A vehicle that cannot move at all, and one inside an obstacle's centre. */
	steer_params still = p;
	still.max_speed = 0;
	still.max_force = 0;
	uint32_t h = add_vehicle(w, 450, 50, 0, 0, &still);
	steer_vehicle_target(w, h, STEER_SEEK, v2(0, 0));
	steer_obstacle_add(w, v2(250, 100), v2(0, 0), 30, NULL);
	uint32_t i = add_vehicle(w, 250, 100, 0, 0, &p);
	steer_vehicle_enable(w, i, STEER_AVOID | STEER_WANDER, true);
	for (int t = 0; t < 600; t++) {
		step(w, 1);
		if (!world_finite(w)) {
			CHECK(0, "non-finite state at tick %d", t);
			break;
		}
	}
	/* The two coincident flockers separated. */
	CHECK(dist(pos(w, a), pos(w, b)) > 1.0, "coincident flockers stayed together");
	steer_world_destroy(w);
}

static void run_flock(uint64_t seed, int ticks, steer_world **out)
{
	steer_world_config c = steer_world_config_default();
	c.seed = seed;
	steer_world *w = steer_world_create(&c);
	if (steer_scenario_load(w, "flock") != STEER_OK)
		abort();
	step(w, ticks);
	*out = w;
}

static int same_state(const steer_world *a, const steer_world *b)
{
	const steer_vehicles *x = steer_world_vehicles(a), *y = steer_world_vehicles(b);
	size_t n = x->count;
	if (n != y->count || steer_world_tick(a) != steer_world_tick(b))
		return 0;
	return !memcmp(x->id, y->id, n * sizeof *x->id) &&
	       !memcmp(x->px, y->px, n * sizeof(double)) &&
	       !memcmp(x->py, y->py, n * sizeof(double)) &&
	       !memcmp(x->vx, y->vx, n * sizeof(double)) &&
	       !memcmp(x->vy, y->vy, n * sizeof(double)) &&
	       !memcmp(x->hx, y->hx, n * sizeof(double)) &&
	       !memcmp(x->hy, y->hy, n * sizeof(double));
}

/* steer_vehicles_add is n steer_vehicle_add calls, to the bit: positions outside the
 * bounds, velocities over the top speed or zero, smoothed headings; and all or
 * nothing when it fails. */
static void adding_many_is_adding_each(void)
{
	for (int smooth = 0; smooth < 2; smooth++) {
		steer_world *a = make_world(300, 200, STEER_EDGE_WRAP, 3);
		steer_world *b = make_world(300, 200, STEER_EDGE_WRAP, 3);
		steer_params p = steer_params_default();
		p.heading_smoothing = smooth ? 0.5 : 0.0;
		enum { N = 64 };
		steer_vec2 at[N], vel[N];
		steer_rng *rng = steer_world_rng(a);
		for (int k = 0; k < N; k++) {
			at[k] =
			    v2(steer_rng_range(rng, -400, 700), steer_rng_range(rng, -300, 500));
			vel[k] =
			    k % 7 ? v2(steer_rng_range(rng, -90, 90), steer_rng_range(rng, -90, 90))
			          : v2(0, 0);
		}
		add_vehicle(a, 1, 1, 0, 0, NULL);
		add_vehicle(b, 1, 1, 0, 0, NULL);
		for (int k = 0; k < N; k++) {
			uint32_t id;
			CHECK(steer_vehicle_add(a, at[k], vel[k], &p, &id) == STEER_OK, "add %d",
			      k);
			CHECK(steer_vehicle_enable(a, id, STEER_FLOCK, true) == STEER_OK,
			      "flock %d", k);
		}
		uint32_t first = 0;
		CHECK(steer_vehicles_add(b, N, at, vel, &p, STEER_FLOCK, &first) == STEER_OK,
		      "add many");
		CHECK(first == 2, "first id %u, not 2", first);
		CHECK(same_state(a, b), "smooth %d: added together differs from one by one",
		      smooth);
		const steer_vehicles *x = steer_world_vehicles(a), *y = steer_world_vehicles(b);
		for (size_t i = 0; i < x->count; i++) {
			CHECK(x->behaviors[i] == y->behaviors[i] && x->group[i] == y->group[i],
			      "vehicle %zu: behaviours or group differ", i);
			const steer_vehicle_state *sa = steer_vehicle_state_at(a, i);
			const steer_vehicle_state *sb = steer_vehicle_state_at(b, i);
			CHECK(sa->wander_angle == sb->wander_angle &&
			          sa->smooth.heading.x == sb->smooth.heading.x &&
			          sa->smooth.heading.y == sb->smooth.heading.y,
			      "vehicle %zu: state differs", i);
		}
		step(a, 60);
		step(b, 60);
		CHECK(same_state(a, b), "smooth %d: 60 ticks later the worlds differ", smooth);
		CHECK(add_vehicle(a, 1, 1, 0, 0, NULL) == add_vehicle(b, 1, 1, 0, 0, NULL),
		      "the next id differs");
		steer_world_destroy(a);
		steer_world_destroy(b);
	}

	steer_world_config c = steer_world_config_default();
	c.max_vehicles = 10;
	steer_world *w = steer_world_create(&c);
	steer_vec2 at[11] = {{0}}, vel[11] = {{0}};
	uint32_t first = 0;
	CHECK(steer_vehicles_add(w, 11, at, vel, NULL, 0, &first) == STEER_ERR_LIMIT,
	      "11 added past --max-vehicles 10");
	CHECK(steer_vehicles_add(w, 2, at, vel, NULL, STEER_SEEK, &first) == STEER_ERR_INVALID,
	      "seek, which needs a target, added without one");
	at[4].x = NAN;
	CHECK(steer_vehicles_add(w, 5, at, vel, NULL, 0, &first) == STEER_ERR_INVALID,
	      "a position that is not a number");
	CHECK(steer_world_vehicles(w)->count == 0, "a failed add left %zu vehicles",
	      steer_world_vehicles(w)->count);
	CHECK(steer_vehicles_add(w, 4, at, vel, NULL, STEER_FLOCK | STEER_AVOID, &first) ==
	              STEER_OK &&
	          first == 1 && steer_vehicle_index(w, 4) == 3,
	      "four added after the failures: first id %u", first);
	steer_world_destroy(w);
}

static void same_seed_same_world_bit_for_bit(void)
{
	steer_world *a, *b, *c;
	run_flock(7, 1000, &a);
	run_flock(7, 1000, &b);
	run_flock(8, 1000, &c);
	CHECK(same_state(a, b), "two runs of the same seed differ after 1000 ticks");
	CHECK(!same_state(a, c), "different seeds gave the same world");
	/* reset keeps the seed: the same commands replay identically. */
	steer_scenario_load(a, "flock");
	step(a, 1000);
	CHECK(same_state(a, b), "scenario reload after reset differs from a fresh run");
	steer_world_destroy(a);
	steer_world_destroy(b);
	steer_world_destroy(c);
}

static void ids_are_stable_and_never_reused(void)
{
	steer_world *w = make_world(500, 500, STEER_EDGE_WRAP, 1);
	uint32_t ids[100];
	for (int k = 0; k < 100; k++)
		ids[k] = add_vehicle(w, k * 5.0, 250, 10, 0, NULL);
	uint32_t ob;
	CHECK(steer_obstacle_add(w, v2(10, 10), v2(0, 0), 5, &ob) == STEER_OK, "obstacle add");
	CHECK(ob > ids[99], "obstacle id %u reuses a vehicle id", ob);
	/* A pursuer of a vehicle that is removed mid-run drops pursue. */
	steer_vehicle_chase(w, ids[1], STEER_PURSUE, ids[0]);
	step(w, 10);
	for (int k = 0; k < 100; k += 2)
		CHECK(steer_remove(w, ids[k]) == STEER_OK, "remove %u", ids[k]);
	CHECK(!(steer_world_vehicles(w)->behaviors[steer_vehicle_index(w, ids[1])] & STEER_PURSUE),
	      "pursuer kept chasing a removed vehicle");
	CHECK(steer_remove(w, ids[0]) == STEER_ERR_NOENT, "removed twice");
	CHECK(steer_remove(w, ob) == STEER_OK, "remove obstacle by id");
	step(w, 10);
	/* Survivors keep their ids and still track their own state. */
	for (int k = 1; k < 100; k += 2) {
		long i = steer_vehicle_index(w, ids[k]);
		CHECK(i >= 0 && steer_world_vehicles(w)->id[i] == ids[k], "lost id %u", ids[k]);
	}
	uint32_t fresh = add_vehicle(w, 1, 1, 0, 0, NULL);
	CHECK(fresh > ob, "new id %u reuses an old one", fresh);
	steer_world_reset(w);
	uint32_t after_reset = add_vehicle(w, 1, 1, 0, 0, NULL);
	/* A reset begins a new lifetime: ids restart so seeded replays match. */
	CHECK(after_reset == 1, "first id after reset is %u", after_reset);
	CHECK(steer_world_tick(w) == 0, "reset kept the tick");
	steer_world_destroy(w);
}

static void idmap_matches_a_reference(void)
{
	steer_idmap m;
	steer_idmap_init(&m);
	enum { K = 5000 };
	static uint32_t ref[K + 1]; /* 0 = absent, else value + 1 */
	steer_rng rng;
	steer_rng_seed(&rng, 5, 5);
	int wrong = 0;
	for (int op = 0; op < 200000; op++) {
		uint32_t key = 1 + steer_rng_u32(&rng) % K;
		if (steer_rng_u32(&rng) % 3) {
			uint32_t val = steer_rng_u32(&rng) >> 1;
			if (steer_idmap_put(&m, key, val) != STEER_OK)
				abort();
			ref[key] = val + 1;
		} else {
			steer_idmap_del(&m, key);
			ref[key] = 0;
		}
	}
	size_t live = 0;
	for (uint32_t key = 1; key <= K; key++) {
		uint32_t val;
		bool found = steer_idmap_get(&m, key, &val);
		live += ref[key] != 0;
		if (found != (ref[key] != 0) || (found && val + 1 != ref[key]))
			wrong++;
	}
	CHECK(wrong == 0, "%d keys disagree with the reference", wrong);
	CHECK(m.count == live, "count %zu, want %zu", m.count, live);
	steer_idmap_free(&m);
}

static void bad_parameters_are_refused(void)
{
	steer_world *w = make_world(500, 500, STEER_EDGE_WRAP, 1);
	steer_params p = steer_params_default();
	char err[128];
	p.mass = 0;
	CHECK(steer_params_check(&p, err, sizeof err) == STEER_ERR_INVALID && strstr(err, "mass"),
	      "mass 0 accepted");
	uint32_t id;
	CHECK(steer_vehicle_add(w, v2(1, 1), v2(0, 0), &p, &id) == STEER_ERR_INVALID,
	      "added with mass 0");
	p = steer_params_default();
	p.sight_distance = NAN;
	CHECK(steer_params_check(&p, err, sizeof err) == STEER_ERR_INVALID &&
	          strstr(err, "sight_distance"),
	      "NaN accepted");
	CHECK(steer_vehicle_add(w, v2(INFINITY, 1), v2(0, 0), NULL, &id) == STEER_ERR_INVALID,
	      "infinite position accepted");
	CHECK(steer_obstacle_add(w, v2(1, 1), v2(0, 0), -3, &id) == STEER_ERR_INVALID,
	      "negative radius accepted");
	/* Within bounds, a circle fits them (a quarter of the side round a wrap world);
	 * without, obstacles are capped like a vehicle's radius parameter. */
	CHECK(steer_obstacle_add(w, v2(1, 1), v2(0, 0), 126, &id) == STEER_ERR_INVALID,
	      "a circle wider than the wrap world allows accepted");
	CHECK(steer_world_set_bounds(w, 500, 500, STEER_EDGE_NONE) == STEER_OK, "no edges");
	CHECK(steer_obstacle_add(w, v2(1, 1), v2(0, 0), 1e308, &id) == STEER_ERR_INVALID,
	      "radius 1e308 accepted");
	CHECK(steer_obstacle_add(w, v2(1, 1), v2(0, 0), STEER_PARAM_MAX * 1.000001, &id) ==
	          STEER_ERR_INVALID,
	      "radius over the cap accepted");
	CHECK(steer_obstacle_add(w, v2(1, 1), v2(0, 0), STEER_PARAM_MAX, &id) == STEER_OK,
	      "radius at the cap refused");
	steer_remove(w, id);
	CHECK(steer_world_set_bounds(w, 500, 500, STEER_EDGE_WRAP) == STEER_OK, "wrap again");
	CHECK(steer_world_set_bounds(w, 0, 10, STEER_EDGE_WRAP) == STEER_ERR_INVALID,
	      "zero width accepted");
	CHECK(steer_world_set_tick_rate(w, 0) == STEER_ERR_INVALID, "tick rate 0 accepted");

	/* The name table parses what the text protocol will send. */
	steer_params q = steer_params_default();
	const steer_param_def *d = steer_param_find("decel");
	CHECK(d && steer_param_parse(&q, d, "slow", err, sizeof err) == STEER_OK &&
	          q.decel == STEER_DECEL_SLOW,
	      "decel=slow");
	CHECK(d && steer_param_parse(&q, d, "sideways", err, sizeof err) == STEER_ERR_INVALID,
	      "decel=sideways accepted");
	d = steer_param_find("max_speed");
	CHECK(d && steer_param_parse(&q, d, "nan", err, sizeof err) == STEER_ERR_INVALID,
	      "max_speed=nan accepted");
	CHECK(d && steer_param_parse(&q, d, "12abc", err, sizeof err) == STEER_ERR_INVALID,
	      "max_speed=12abc accepted");
	CHECK(d && steer_param_parse(&q, d, "12.5", err, sizeof err) == STEER_OK &&
	          q.max_speed == 12.5,
	      "max_speed=12.5");
	d = steer_param_find("panic_distance");
	CHECK(d && steer_param_parse(&q, d, "inf", err, sizeof err) == STEER_OK &&
	          isinf(q.panic_distance),
	      "panic_distance=inf");
	CHECK(steer_param_find("warp_factor") == NULL, "unknown key found");

	/* Every refusal writes its reason into err, the enum fields' too. */
	p = steer_params_default();
	p.decel = 7;
	err[0] = '\0';
	CHECK(steer_params_check(&p, err, sizeof err) == STEER_ERR_INVALID && strstr(err, "decel"),
	      "decel 7: '%s'", err);
	p = steer_params_default();
	p.combine = 5;
	err[0] = '\0';
	CHECK(steer_params_check(&p, err, sizeof err) == STEER_ERR_INVALID &&
	          strstr(err, "combine"),
	      "combine 5: '%s'", err);
	steer_edges e = STEER_EDGE_NONE;
	CHECK(steer_edges_parse("bounce", &e) == STEER_OK && e == STEER_EDGE_BOUNCE, "bounce");
	CHECK(steer_edges_parse("sphere", &e) == STEER_ERR_INVALID && e == STEER_EDGE_BOUNCE,
	      "edges sphere accepted");
	steer_world_config c = steer_world_config_default();
	c.tick_rate = -1;
	CHECK(steer_world_config_check(&c, err, sizeof err) == STEER_ERR_INVALID &&
	          strstr(err, "tick rate"),
	      "tick rate -1: '%s'", err);
	steer_world_destroy(w);
}

static void every_scenario_loads_and_runs(void)
{
	steer_world *w = make_world(800, 600, STEER_EDGE_WRAP, 3);
	for (int k = 0; steer_scenario_names[k]; k++) {
		CHECK(steer_scenario_load(w, steer_scenario_names[k]) == STEER_OK, "scenario %s",
		      steer_scenario_names[k]);
		CHECK(steer_world_vehicles(w)->count > 0, "scenario %s is empty",
		      steer_scenario_names[k]);
		step(w, 300);
		CHECK(world_finite(w), "scenario %s went non-finite", steer_scenario_names[k]);
	}
	CHECK(steer_scenario_load(w, "nonesuch") == STEER_ERR_NOENT, "unknown scenario loaded");
	steer_world_destroy(w);
}

/* Phase timing counts the ticks since it was turned on, and its phases add up to no
 * more than the wall time of those ticks. */
static void phase_times_cover_the_ticks(void)
{
	steer_world *w = make_world(2000, 2000, STEER_EDGE_WRAP, 4);
	steer_params p = steer_flock_params();
	for (int k = 0; k < 3000; k++) {
		uint32_t id = add_vehicle(w, 20.0 * (k % 100), 20.0 * (k / 100), 10, 0, &p);
		steer_vehicle_enable(w, id, STEER_FLOCK, true);
	}
	step(w, 2);
	steer_phase_times t = steer_world_phase_times(w);
	CHECK(t.ticks == 0 && t.index_s == 0 && t.forces_s == 0 && t.moves_s == 0,
	      "phases timed before timing was turned on: %ld ticks", t.ticks);
	steer_world_time_phases(w, true);
	struct timespec a, b;
	timespec_get(&a, TIME_UTC);
	step(w, 5);
	timespec_get(&b, TIME_UTC);
	double wall = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) * 1e-9;
	t = steer_world_phase_times(w);
	double sum = t.index_s + t.forces_s + t.moves_s;
	CHECK(t.ticks == 5, "5 ticks timed as %ld", t.ticks);
	CHECK(t.index_s > 0 && t.forces_s > 0 && t.moves_s >= 0 && sum <= wall,
	      "phases %g + %g + %g s against %g s of ticks", t.index_s, t.forces_s, t.moves_s,
	      wall);
	steer_world_time_phases(w, false);
	step(w, 1);
	CHECK(steer_world_phase_times(w).ticks == 0, "timing turned off still counts");
	steer_world_destroy(w);
}

/* A goal and a path that say which vehicle they were given to. */
static steer_vec2 goal_for(uint32_t id)
{
	return v2(10.0 + (double)(id % 97) * 20.0, 10.0 + (double)(id / 97 % 97) * 20.0);
}

static steer_vec2 waypoint_for(uint32_t id, int k)
{
	return v2((double)id, (double)k);
}

/* Avoiders that do not flock are handled in their grid's order, and storage (their
 * extras with it) is re-sorted into that order: every vehicle keeps its own goal
 * and path, also after removals left holes in the extras. */
static void resorting_keeps_each_vehicles_state(void)
{
	steer_world *w = make_world(2000, 2000, STEER_EDGE_BOUNCE, 5);
	steer_world_set_solid(w, false);
	steer_rng *rng = steer_world_rng(w);
	steer_params p = steer_params_default();
	enum { N = 3000 };
	uint32_t ids[N];
	for (int k = 0; k < N; k++) {
		ids[k] = add_vehicle(w, steer_rng_range(rng, 0, 2000),
		                     steer_rng_range(rng, 0, 2000), 0, 0, &p);
		bool ok =
		    steer_vehicle_target(w, ids[k], STEER_SEEK, goal_for(ids[k])) == STEER_OK &&
		    steer_vehicle_enable(w, ids[k], STEER_AVOID, true) == STEER_OK;
		for (int q = 0; ok && k % 3 == 0 && q < 3; q++)
			ok = steer_vehicle_path_add(w, ids[k], waypoint_for(ids[k], q)) == STEER_OK;
		CHECK(ok, "setting vehicle %u up", ids[k]);
	}
	for (int k = 0; k < N; k += 5)
		CHECK(steer_remove(w, ids[k]) == STEER_OK, "removing %u", ids[k]);
	static long before[N];
	for (int k = 0; k < N; k++)
		before[k] = steer_vehicle_index(w, ids[k]);
	/* Spawn order is random in space: the first tick's order is far from it. */
	step(w, 3);
	int moved = 0, wrong = 0;
	for (int k = 0; k < N; k++) {
		long i = steer_vehicle_index(w, ids[k]);
		if (k % 5 == 0) {
			wrong += i >= 0;
			continue;
		}
		moved += i != before[k];
		const steer_vehicle_state *s = steer_vehicle_get(w, ids[k]);
		steer_vec2 g = goal_for(ids[k]);
		bool ok = s && s->seek_target.x == g.x && s->seek_target.y == g.y &&
		          s->path.count == (k % 3 == 0 ? 3u : 0u);
		for (uint32_t q = 0; ok && q < s->path.count; q++) {
			steer_vec2 e = waypoint_for(ids[k], (int)q);
			ok = s->path.points[q].x == e.x && s->path.points[q].y == e.y;
		}
		wrong += !ok;
	}
	CHECK(moved > N / 2, "storage was re-sorted (%d of the vehicles moved slot)", moved);
	CHECK(wrong == 0, "%d vehicles lost their own goal or path", wrong);
	steer_world_destroy(w);
}

int main(void)
{
	RUN(edges_keep_vehicles_inside);
	RUN(wrap_takes_the_short_way);
	RUN(degenerate_input_stays_finite);
	RUN(same_seed_same_world_bit_for_bit);
	RUN(adding_many_is_adding_each);
	RUN(ids_are_stable_and_never_reused);
	RUN(idmap_matches_a_reference);
	RUN(bad_parameters_are_refused);
	RUN(every_scenario_loads_and_runs);
	RUN(phase_times_cover_the_ticks);
	RUN(resorting_keeps_each_vehicles_state);
	return CHECK_DONE();
}
