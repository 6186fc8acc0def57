/* goto and its planner: routes around what straight-line steering cannot get past
 * (a C-shaped trap, a maze), replanning when a route is blocked, unreachable goals,
 * save and load, and the same bits for any thread count. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cmdrun.h"
#include "planner.h"
#include "savefile.h"
#include "scenario.h"
#include "steer/command.h"
#include "testutil.h"

/* Runs one command line; returns the reply as the text protocol renders it. */
static char *run(steer_session *s, const char *line)
{
	return cmdrun(s, NULL, line);
}

/* The trap: a C of three walls open towards the vehicle, the goal straight behind it. */
#define TRAP_MOUTH 400.0 /* x of its open side */
#define TRAP_BACK  500.0 /* x of its back wall */

static steer_world *trap_world(uint32_t *id)
{
	steer_world *w = make_world(1000, 600, STEER_EDGE_BOUNCE, 7);
	steer_world_set_solid(w, true);
	if (steer_wall_add(w, v2(TRAP_BACK, 200), v2(TRAP_BACK, 400), NULL) ||
	    steer_wall_add(w, v2(TRAP_MOUTH, 200), v2(TRAP_BACK, 200), NULL) ||
	    steer_wall_add(w, v2(TRAP_MOUTH, 400), v2(TRAP_BACK, 400), NULL))
		abort();
	*id = add_vehicle(w, 150, 300, 0, 0, NULL);
	if (steer_vehicle_enable(w, *id, STEER_AVOID, true))
		abort();
	return w;
}

#define TRAP_GOAL v2(850, 300)

/* Seek + avoid goes into the trap and stays; goto goes round it to the goal. */
static void escapes_the_c_trap(void)
{
	uint32_t id;
	steer_world *w = trap_world(&id);
	CHECK(steer_vehicle_target(w, id, STEER_SEEK, TRAP_GOAL) == STEER_OK, "seek");
	double deepest = 0.0;
	for (int t = 0; t < 1800; t++) {
		step(w, 1);
		deepest = fmax(deepest, pos(w, id).x - TRAP_MOUTH);
	}
	printf("     seek + avoid: %.1f deep into the trap, %.0f from the goal after 60 s\n",
	       deepest, dist(pos(w, id), TRAP_GOAL));
	/* The premise: steering alone is caught. */
	CHECK(deepest > 20.0 && dist(pos(w, id), TRAP_GOAL) > 300.0,
	      "seek + avoid was not trapped (%g deep)", deepest);
	steer_world_destroy(w);

	w = trap_world(&id);
	steer_goto_report rep;
	CHECK(steer_vehicle_goto(w, id, TRAP_GOAL, &rep) == STEER_OK, "goto");
	CHECK(rep.reached, "planned route falls short of the goal");
	deepest = 0.0;
	int t = 0;
	for (; t < 1800 && dist(pos(w, id), TRAP_GOAL) > 2.0; t++) {
		step(w, 1);
		steer_vec2 p = pos(w, id);
		if (p.y > 200 && p.y < 400 && p.x < TRAP_BACK)
			deepest = fmax(deepest, p.x - TRAP_MOUTH);
	}
	printf("     goto: %.1f deep, at the goal after %.1f s\n", fmax(deepest, 0.0), t / 30.0);
	CHECK(dist(pos(w, id), TRAP_GOAL) <= 2.0, "goto ended %g from the goal",
	      dist(pos(w, id), TRAP_GOAL));
	CHECK(deepest <= 0.0, "goto went %g into the trap", deepest);
	steer_world_destroy(w);
}

/* Every walker of the maze scenario reaches the far corner; arriving there in a
 * straight line, none does. */
static void crosses_the_maze(void)
{
	for (int plan = 1; plan >= 0; plan--) {
		steer_world *w = make_world(1000, 600, STEER_EDGE_BOUNCE, 3);
		CHECK(steer_scenario_load(w, "maze") == STEER_OK, "maze");
		const steer_vehicles *v = steer_world_vehicles(w);
		CHECK(v->count == 4, "%zu walkers", v->count);
		steer_vec2 goal[4];
		for (size_t i = 0; i < v->count && i < 4; i++) {
			const steer_vehicle_state *s = steer_vehicle_state_at(w, i);
			goal[i] = s->go.goal;
			CHECK(v->behaviors[i] & STEER_GOTO, "walker %zu has no goto", i);
			if (!plan)
				CHECK(steer_vehicle_target(w, v->id[i], STEER_ARRIVE, goal[i]) == 0,
				      "arrive");
		}
		step(w, 30 * 120);
		int there = 0;
		for (size_t i = 0; i < v->count && i < 4; i++)
			there += dist(v2(v->px[i], v->py[i]), goal[i]) < 10.0;
		if (plan)
			CHECK(there == 4, "%d of 4 crossed the maze with goto", there);
		else
			CHECK(there == 0, "%d of 4 crossed the maze arriving straight", there);
		steer_world_destroy(w);
	}
}

/* A wall put across a route on the way: the route is planned again round it. */
static void replans_round_a_new_wall(void)
{
	steer_world *w = make_world(1000, 600, STEER_EDGE_BOUNCE, 5);
	steer_world_set_solid(w, true);
	uint32_t id = add_vehicle(w, 100, 300, 0, 0, NULL);
	steer_goto_report rep;
	CHECK(steer_vehicle_goto(w, id, v2(900, 300), &rep) == STEER_OK, "goto");
	CHECK(rep.reached && rep.waypoints == 1, "open world: %zu waypoints", rep.waypoints);
	step(w, 30);
	CHECK(steer_wall_add(w, v2(500, 100), v2(500, 500), NULL) == STEER_OK, "wall");
	step(w, 1);
	const steer_vehicle_state *s = steer_vehicle_get(w, id);
	CHECK(s->path.count > 1, "the route was not planned again (%u waypoints)", s->path.count);
	int t = 0;
	for (; t < 1800 && dist(pos(w, id), v2(900, 300)) > 2.0; t++)
		step(w, 1);
	CHECK(dist(pos(w, id), v2(900, 300)) <= 2.0, "ended %g from the goal",
	      dist(pos(w, id), v2(900, 300)));
	/* A circle dropped on the new route: planned again once more. */
	steer_world_destroy(w);
}

/* A wall across many routes at once: each tick replans only within its budget (the
 * rest keep their routes a tick longer), and within a second every route goes round. */
static void replanning_is_spread_over_ticks(void)
{
	steer_world *w = make_world(1000, 600, STEER_EDGE_BOUNCE, 5);
	enum { N = 40 };
	uint32_t id[N];
	for (int k = 0; k < N; k++) {
		id[k] = add_vehicle(w, 100, 60 + 12 * k, 0, 0, NULL);
		CHECK(steer_vehicle_goto(w, id[k], v2(900, 60 + 12 * k), NULL) == STEER_OK, "goto");
	}
	step(w, 5);
	CHECK(steer_wall_add(w, v2(500, 20), v2(500, 580), NULL) == STEER_OK, "wall");
	int round_it[2] = {0, 0};
	for (int t = 0; t < 60; t++) {
		step(w, 1);
		int n = 0;
		for (int k = 0; k < N; k++)
			n += steer_vehicle_get(w, id[k])->path.count > 1;
		if (t == 0)
			round_it[0] = n;
		round_it[1] = n;
	}
	CHECK(round_it[0] > 0 && round_it[0] < N, "%d of %d replanned in the wall's first tick",
	      round_it[0], N);
	CHECK(round_it[1] == N, "%d of %d replanned after a second", round_it[1], N);
	steer_world_destroy(w);
}

static char *saved(const steer_world *w, size_t *len)
{
	char *buf = NULL;
	CHECK(steer_save_encode(w, &buf, len) == STEER_OK, "encode");
	return buf;
}

/* Which routes a tick's budget reaches depends on who the vehicles are, not on the
 * order storage holds them in: the same world stored in another order (a save
 * loaded, a region of a world split over ranks) plans the same routes. */
static void the_budget_goes_in_id_order(void)
{
	steer_world *w = make_world(1000, 600, STEER_EDGE_BOUNCE, 5);
	enum { N = 40 };
	uint32_t first = add_vehicle(w, 500, 300, 0, 0, NULL);
	for (int k = 0; k < N; k++) {
		uint32_t id = add_vehicle(w, 100, 60 + 12 * k, 0, 0, NULL);
		CHECK(steer_vehicle_goto(w, id, v2(900, 60 + 12 * k), NULL) == STEER_OK, "goto");
	}
	/* The last vehicle moves into the first's slot: storage is no longer id order. */
	CHECK(steer_remove(w, first) == STEER_OK, "remove");
	step(w, 5);
	size_t len;
	char *buf = saved(w, &len), err[256];
	steer_world *copy = steer_save_decode(buf, len, err, sizeof err);
	free(buf);
	CHECK(copy, "decode: %s", err);
	CHECK(steer_wall_add(w, v2(500, 20), v2(500, 580), NULL) == STEER_OK, "wall");
	CHECK(copy && steer_wall_add(copy, v2(500, 20), v2(500, 580), NULL) == STEER_OK, "wall");
	int differ = 0;
	for (int t = 0; copy && t < 30 && !differ; t++) {
		step(w, 1);
		step(copy, 1);
		differ = same_save_bytes(w, copy) ? 0 : t + 1;
	}
	CHECK(!differ, "the copy stored in id order planned other routes at tick %d", differ);
	steer_world_destroy(copy);
	steer_world_destroy(w);
}

/* goto and the behaviours that say where to go exclude each other: goto drops follow,
 * hide and interpose, and each of them drops goto with its route. Both on, they fought
 * (a follower sent across the world stayed by its leader). */
static void goto_and_the_group_behaviours_replace_each_other(void)
{
	steer_world *w = make_world(1000, 600, STEER_EDGE_BOUNCE, 5);
	uint32_t a = add_vehicle(w, 100, 100, 0, 0, NULL);
	uint32_t b = add_vehicle(w, 80, 100, 0, 0, NULL);
	uint32_t c = add_vehicle(w, 300, 300, 0, 0, NULL);
	const uint32_t group = STEER_FOLLOW | STEER_HIDE | STEER_INTERPOSE;
	CHECK(steer_vehicle_follow(w, b, a, v2(-20, 0)) == STEER_OK, "follow");
	CHECK(steer_vehicle_goto(w, b, v2(800, 500), NULL) == STEER_OK, "goto");
	uint32_t bits = steer_world_vehicles(w)->behaviors[steer_vehicle_index(w, b)];
	CHECK((bits & STEER_GOTO) && !(bits & group), "goto left 0x%x on", bits & group);
	step(w, 1200);
	CHECK(dist(pos(w, b), v2(800, 500)) < 2.0, "a follower sent by goto ended %g off",
	      dist(pos(w, b), v2(800, 500)));
	CHECK(steer_vehicle_hide(w, b, c) == STEER_OK, "hide");
	bits = steer_world_vehicles(w)->behaviors[steer_vehicle_index(w, b)];
	CHECK((bits & STEER_HIDE) && !(bits & (STEER_GOTO | STEER_PATH)) &&
	          steer_vehicle_get(w, b)->path.count == 0,
	      "hide kept goto: 0x%x", bits);
	CHECK(steer_vehicle_goto(w, b, v2(500, 300), NULL) == STEER_OK, "goto again");
	CHECK(steer_vehicle_interpose(w, b, a, c) == STEER_OK, "interpose");
	bits = steer_world_vehicles(w)->behaviors[steer_vehicle_index(w, b)];
	CHECK(!(bits & STEER_GOTO), "interpose kept goto");
	CHECK(steer_vehicle_goto(w, b, v2(500, 300), NULL) == STEER_OK, "goto a third time");
	CHECK(steer_vehicle_follow(w, b, a, v2(-20, 0)) == STEER_OK, "follow again");
	bits = steer_world_vehicles(w)->behaviors[steer_vehicle_index(w, b)];
	CHECK(!(bits & STEER_GOTO), "follow kept goto");
	steer_world_destroy(w);
}

/* An unbounded world: a goal far beyond the only wall is reached round its end, and
 * the plan's grid spans the wall, not the way to the goal (which made the cells so
 * wide that planning took seconds and called such goals unreachable). */
static void far_goals_in_an_unbounded_world(void)
{
	steer_world *w = make_world(1000, 600, STEER_EDGE_NONE, 5);
	CHECK(steer_wall_add(w, v2(0, 0), v2(1000, 1000), NULL) == STEER_OK, "wall");
	const double far[] = {5e3, 5e4, 5e5, 1e9};
	for (size_t k = 0; k < sizeof far / sizeof far[0]; k++) {
		steer_route r = {0};
		CHECK(steer_plan(w, v2(100, 300), v2(far[k], -far[k]), 5.0, &r) == STEER_OK,
		      "plan");
		CHECK(r.reached && r.count >= 2, "goal (%g, %g): reached %d, %zu waypoints", far[k],
		      -far[k], r.reached, r.count);
		CHECK(r.cells <= 1000000 && r.expanded < 200000, "goal %g: %zu cells, %zu expanded",
		      far[k], r.cells, r.expanded);
		steer_route_free(&r);
	}
	steer_world_destroy(w);
}

/* A goal shut in a box: the reply says so, and the vehicle goes to the nearest point
 * it can reach. Bad ids and coordinates are refused with the reason. */
static void unreachable_goal_is_said(void)
{
	steer_session s = {.world = make_world(1000, 600, STEER_EDGE_BOUNCE, 1)};
	steer_world_set_solid(s.world, true);
	run(&s, "spawn 100 300");
	run(&s, "polygon 700 200 800 200 800 400 700 400");
	run(&s, "wall 600 100 900 100");
	run(&s, "wall 900 100 900 500");
	run(&s, "wall 900 500 600 500");
	run(&s, "wall 600 500 600 100");
	/* Finding that takes every cell round the vehicle, three clearances over: more
	 * than a command may look at, so the ticks plan it, and `get` tells. */
	const char *r = run(&s, "goto 1 750 150");
	CHECK(strstr(r, "\"planning\":true") && strstr(r, "next ticks"), "reply: %s", r);
	r = run(&s, "get 1");
	CHECK(strstr(r, "\"planning\":true"), "get while planning: %s", r);
	int t = 0;
	for (; t < 30 && strstr(run(&s, "get 1"), "\"planning\":true"); t++)
		step(s.world, 1);
	r = run(&s, "get 1");
	CHECK(strstr(r, "\"planning\":false,\"reached\":false"), "after %d ticks: %s", t, r);
	step(s.world, 30 * 40);
	steer_vec2 p = pos(s.world, 1);
	/* Below the box's bottom wall, under the goal. */
	CHECK(p.y < 100 && p.y > 70 && fabs(p.x - 750) < 20, "ended at (%g, %g)", p.x, p.y);
	r = run(&s, "goto 1 300 300");
	CHECK(strstr(r, "\"reached\":true") && !strstr(r, "note"), "reply: %s", r);
	r = run(&s, "goto 9 300 300");
	CHECK(!strcmp(r, "ERR no vehicle with id 9"), "reply: %s", r);
	r = run(&s, "goto 1 x 300");
	CHECK(!strcmp(r, "ERR X: 'x' is not a number"), "reply: %s", r);
	r = run(&s, "goto 1 1e13 300");
	CHECK(strstr(r, "ERR") && strstr(r, "X: 1e13 is beyond"), "reply: %s", r);
	r = run(&s, "goto 1 off");
	CHECK(!strcmp(r, "OK"), "reply: %s", r);
	const steer_vehicles *v = steer_world_vehicles(s.world);
	CHECK(!(v->behaviors[0] & (STEER_GOTO | STEER_PATH)), "goto off left %x", v->behaviors[0]);
	/* A new target replaces goto and its route. */
	run(&s, "goto 1 300 300");
	run(&s, "arrive 1 200 200");
	CHECK(v->behaviors[0] == STEER_ARRIVE, "arrive after goto: %x", v->behaviors[0]);
	steer_world_destroy(s.world);
}

static int same_vehicles(const steer_world *a, const steer_world *b)
{
	const steer_vehicles *u = steer_world_vehicles(a), *v = steer_world_vehicles(b);
	if (u->count != v->count)
		return 0;
	for (size_t i = 0; i < u->count; i++)
		if (u->px[i] != v->px[i] || u->py[i] != v->py[i] || u->vx[i] != v->vx[i] ||
		    u->vy[i] != v->vy[i] || u->behaviors[i] != v->behaviors[i])
			return 0;
	return 1;
}

/* A loaded world carries on as the saved one: goal, route, and when it replans. */
static void save_and_load_keep_the_goto(void)
{
	uint32_t id;
	steer_world *w = trap_world(&id);
	CHECK(steer_vehicle_goto(w, id, TRAP_GOAL, NULL) == STEER_OK, "goto");
	step(w, 60);
	char *buf;
	size_t len;
	char err[200];
	CHECK(steer_save_encode(w, &buf, &len) == STEER_OK, "save");
	steer_world *l = steer_save_decode(buf, len, err, sizeof err);
	free(buf);
	CHECK(l != NULL, "load: %s", err);
	if (!l)
		return;
	const steer_vehicle_state *s = steer_vehicle_get(l, id);
	CHECK(steer_vehicle_get(w, id)->go.goal.x == s->go.goal.x && s->go.reached &&
	          (steer_world_vehicles(l)->behaviors[0] & STEER_GOTO),
	      "goto lost");
	/* A wall across the rest of the route in both: both plan again, alike. */
	steer_wall_add(w, v2(700, 250), v2(700, 350), NULL);
	steer_wall_add(l, v2(700, 250), v2(700, 350), NULL);
	for (int t = 0; t < 900; t++) {
		step(w, 1);
		step(l, 1);
	}
	CHECK(same_vehicles(w, l), "the loaded world went another way");
	CHECK(dist(pos(l, id), TRAP_GOAL) <= 2.0, "ended %g from the goal",
	      dist(pos(l, id), TRAP_GOAL));
	steer_world_destroy(w);
	steer_world_destroy(l);
}

/* A big maze with nothing learnt yet, and a vehicle in its corner. */
static steer_world *big_maze(uint32_t *id)
{
	steer_world *w = make_world(5120, 5120, STEER_EDGE_BOUNCE, 5);
	CHECK(steer_scenario_load(w, "maze") == STEER_OK, "maze");
	*id = add_vehicle(w, 60, 60, 0, 0, NULL);
	return w;
}

#define FAR_GOAL v2(100 + (6 * 1237) % 4900, 100 + (6 * 2713) % 4900)

static const steer_goto_state *go_of(const steer_world *w, uint32_t id)
{
	return &steer_vehicle_get(w, id)->go;
}

/* A goto across a big maze is more than a command may search: the command says the
 * plan goes on, each tick searches no more than its share of cells, and the route at
 * the end is the one a plan made at once finds, bit for bit. */
static void a_long_plan_is_spread_over_ticks(void)
{
	uint32_t id;
	steer_world *w = big_maze(&id);
	step(w, 1); /* the scenario's own walkers planned */
	steer_goto_report rep;
	CHECK(steer_vehicle_goto(w, id, FAR_GOAL, &rep) == STEER_OK && rep.planning,
	      "the command planned it whole");
	const steer_goto_state *go = go_of(w, id);
	CHECK(go->planning && go->spent == 0 && steer_vehicle_get(w, id)->path.count == 0,
	      "planning %d, %llu spent", go->planning, (unsigned long long)go->spent);
	int ticks = 0;
	uint64_t most = 0;
	while (go_of(w, id)->planning && ticks < 600) {
		uint64_t before = go_of(w, id)->spent;
		step(w, 1);
		ticks++;
		go = go_of(w, id);
		if (go->planning && go->spent - before > most)
			most = go->spent - before;
	}
	go = go_of(w, id);
	printf("     a far goto in a 5120x5120 maze: %d ticks, at most %llu cells a tick\n", ticks,
	       (unsigned long long)most);
	CHECK(!go->planning && go->reached, "not planned after %d ticks", ticks);
	CHECK(ticks > 2 && most <= STEER_PLAN_CELLS_PER_TICK, "%d ticks, %llu cells in one", ticks,
	      (unsigned long long)most);
	steer_route r = {0};
	CHECK(steer_plan(w, go->from, FAR_GOAL, go->radius, &r) == STEER_OK, "plan at once");
	const steer_path *path = &steer_vehicle_get(w, id)->path;
	CHECK(r.reached && r.count == path->count &&
	          !memcmp(r.points, path->points, r.count * sizeof *r.points),
	      "%zu waypoints at once, %u over ticks", r.count, path->count);
	steer_route_free(&r);
	steer_world_destroy(w);
}

/* A plan under way is in the save: a world loaded mid-plan (where the plan's search is
 * made again from what the save says it spent) carries on as the saved one, through a
 * change of the vehicle's clearance and a wall put across the maze that starts the
 * plan again. */
static void a_plan_under_way_survives_a_save(void)
{
	uint32_t id;
	steer_world *w = big_maze(&id);
	CHECK(steer_vehicle_goto(w, id, FAR_GOAL, NULL) == STEER_OK, "goto");
	step(w, 3);
	CHECK(go_of(w, id)->planning && go_of(w, id)->spent > 0, "not under way");
	size_t len;
	char *buf = saved(w, &len), err[256];
	CHECK(strstr(buf, " plan on start "), "the save has no plan under way");
	steer_world *l = steer_save_decode(buf, len, err, sizeof err);
	free(buf);
	CHECK(l, "decode: %s", err);
	if (!l)
		return;
	/* A clearance changed under the plan (avoid keeps a buffer): the kept search and
	 * the one made again both plan for the new one. */
	CHECK(steer_vehicle_enable(w, id, STEER_AVOID, true) == STEER_OK &&
	          steer_vehicle_enable(l, id, STEER_AVOID, true) == STEER_OK,
	      "avoid");
	step(w, 2);
	step(l, 2);
	CHECK(same_save_bytes(w, l), "the loaded world went another way while planning");
	int t = 0;
	while ((go_of(w, id)->planning || go_of(l, id)->planning) && t < 600) {
		step(w, 1);
		step(l, 1);
		t++;
	}
	CHECK(same_save_bytes(w, l), "the loaded world found another route");
	CHECK(steer_wall_add(w, v2(100, 150), v2(300, 150), NULL) == STEER_OK &&
	          steer_wall_add(l, v2(100, 150), v2(300, 150), NULL) == STEER_OK,
	      "wall");
	for (t = 0; (go_of(w, id)->planning || go_of(l, id)->planning) && t < 600; t++) {
		step(w, 1);
		step(l, 1);
	}
	CHECK(!go_of(l, id)->planning && go_of(l, id)->reached, "not planned after %d ticks", t);
	CHECK(same_save_bytes(w, l), "the loaded world planned another route");
	steer_world_destroy(w);
	steer_world_destroy(l);
}

/* Goto vehicles among enough others for the tick to run on many threads, round
 * circles that drift across their routes: the same bits for 1, 2 and 3 threads. */
static steer_world *crowd_with_goto(int threads)
{
	steer_world *w = make_world(2000, 2000, STEER_EDGE_BOUNCE, 11);
	steer_world_set_solid(w, true);
	if (steer_world_set_threads(w, threads) != STEER_OK)
		abort();
	steer_rng *rng = steer_world_rng(w);
	for (int k = 0; k < 40; k++) {
		steer_vec2 p = v2(steer_rng_range(rng, 100, 1900), steer_rng_range(rng, 100, 1900));
		steer_vec2 vel = v2(steer_rng_range(rng, -20, 20), steer_rng_range(rng, -20, 20));
		if (steer_obstacle_add(w, p, vel, steer_rng_range(rng, 20, 60), NULL))
			abort();
	}
	for (int k = 0; k < 4200; k++) {
		uint32_t id = add_vehicle(w, steer_rng_range(rng, 0, 2000),
		                          steer_rng_range(rng, 0, 2000), 0, 0, NULL);
		steer_vec2 goal = v2(steer_rng_range(rng, 0, 2000), steer_rng_range(rng, 0, 2000));
		if (k % 100 == 0) {
			if (steer_vehicle_goto(w, id, goal, NULL) ||
			    steer_vehicle_enable(w, id, STEER_AVOID, true))
				abort();
		} else if (steer_vehicle_enable(w, id, STEER_WANDER, true)) {
			abort();
		}
	}
	step(w, 150);
	return w;
}

static void same_bits_for_any_thread_count(void)
{
	steer_world *one = crowd_with_goto(1);
	for (int threads = 2; threads <= 3; threads++) {
		steer_world *many = crowd_with_goto(threads);
		CHECK(same_vehicles(one, many), "%d threads differ from one", threads);
		steer_world_destroy(many);
	}
	steer_world_destroy(one);
}

/* A maze world of its own, with nothing planned in it yet. */
static steer_world *maze_world(void)
{
	steer_world *w = make_world(2000, 1200, STEER_EDGE_BOUNCE, 5);
	CHECK(steer_scenario_load(w, "maze") == STEER_OK, "maze");
	CHECK(steer_geom_update(w) == STEER_OK, "update");
	return w;
}

static bool same_route(const steer_route *a, const steer_route *b)
{
	return a->count == b->count && a->reached == b->reached && a->expanded == b->expanded &&
	       (a->count == 0 || memcmp(a->points, b->points, a->count * sizeof *a->points) == 0);
}

/* Route k of plans_after_plans_are_plans_afresh for a disc of radius r: first to
 * points pressed against walls all over the maze, r and a hair from a wall's middle,
 * whose own cells may be blocked to the plan (a plan takes its goal's cell as free,
 * which must not be learnt for the next); then between far points, by those cells. */
#define PRESSED_ROUTES 16
static void route_ends(const steer_world *w, size_t k, double r, steer_vec2 *from, steer_vec2 *to)
{
	static const steer_vec2 ends[][2] = {{{50, 50}, {1950, 1150}},   {{1950, 50}, {50, 1150}},
	                                     {{50, 50}, {1950, 1150}},   {{1000, 600}, {60, 60}},
	                                     {{300, 1100}, {1700, 100}}, {{1950, 1150}, {50, 50}}};
	if (k >= PRESSED_ROUTES) {
		*from = ends[k - PRESSED_ROUTES][0];
		*to = ends[k - PRESSED_ROUTES][1];
		return;
	}
	size_t nw;
	const steer_wall *walls = steer_world_walls(w, &nw);
	const steer_wall *wall = &walls[(k * 37) % nw];
	steer_vec2 d = v2_sub(wall->b, wall->a);
	steer_vec2 n = v2_scale(v2(-d.y, d.x), 1.0 / v2_len(d));
	*from = k % 2 ? v2(1950, 50) : v2(50, 1150);
	*to = v2_add(v2_scale(v2_add(wall->a, wall->b), 0.5), v2_scale(n, 1.001 * r));
}
#define ROUTES (PRESSED_ROUTES + 6)

/* Plans reuse what earlier plans learnt of the grid's cells: each route is the one a
 * world that never planned finds, bit for bit, also from starts pressed against
 * walls, and after a wall changed the maze (what was learnt before it no longer
 * holds). */
static void plans_after_plans_are_plans_afresh(void)
{
	steer_world *warm = maze_world();
	for (int round = 0; round < 2; round++) {
		if (round == 1) /* a wall across the middle, for both */
			CHECK(steer_wall_add(warm, v2(700, 590), v2(1300, 610), NULL) == STEER_OK,
			      "wall");
		for (size_t k = 0; k < ROUTES; k++) {
			steer_world *cold = maze_world();
			if (round == 1)
				CHECK(steer_wall_add(cold, v2(700, 590), v2(1300, 610), NULL) ==
				          STEER_OK,
				      "wall");
			CHECK(steer_geom_update(warm) == STEER_OK &&
			          steer_geom_update(cold) == STEER_OK,
			      "update");
			for (int r = 0; r < 2; r++) { /* two clearances: two grids */
				double radius = r ? 6.0 : 11.0;
				steer_vec2 from, to;
				route_ends(warm, k, radius, &from, &to);
				steer_route a = {0}, b = {0};
				CHECK(steer_plan(warm, from, to, radius, &a) == STEER_OK &&
				          steer_plan(cold, from, to, radius, &b) == STEER_OK,
				      "plan");
				CHECK((k < PRESSED_ROUTES || a.expanded > 0) && same_route(&a, &b),
				      "round %d route %zu radius %g: %zu points (%zu cells) after "
				      "other "
				      "plans, %zu (%zu) afresh",
				      round, k, radius, a.count, a.expanded, b.count, b.expanded);
				steer_route_free(&a);
				steer_route_free(&b);
			}
			steer_world_destroy(cold);
		}
	}
	steer_world_destroy(warm);
}

int main(void)
{
	RUN(escapes_the_c_trap);
	RUN(crosses_the_maze);
	RUN(replans_round_a_new_wall);
	RUN(replanning_is_spread_over_ticks);
	RUN(the_budget_goes_in_id_order);
	RUN(far_goals_in_an_unbounded_world);
	RUN(goto_and_the_group_behaviours_replace_each_other);
	RUN(unreachable_goal_is_said);
	RUN(save_and_load_keep_the_goto);
	RUN(a_long_plan_is_spread_over_ticks);
	RUN(a_plan_under_way_survives_a_save);
	RUN(same_bits_for_any_thread_count);
	RUN(plans_after_plans_are_plans_afresh);
	return CHECK_DONE();
}
