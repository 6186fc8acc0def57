/* The tick on any number of threads: the thread pool itself, and the promise that a
 * world gives the same bits for every thread count. Each world below is run with 1,
 * 2, 3, 4, 7 and 16 threads (3, 4 and 7 split the work into parts of uneven sizes
 * and rows; 16 is more than this machine's cores), 1, 3 and 16 in the sanitizer
 * build, and compared with the one-thread run slot for slot, bit for bit; some again
 * with the pool taking every job's parts last first, which changes nothing unless a
 * phase's parts are combined in the order they ran. */
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>

#include "../bench/circle_scene.h"
#include "../bench/crowd_layout.h"
#include "check.h"
#include "grid.h"
#include "pool.h"
#include "scenario.h"
#include "testutil.h"
#include "world_internal.h"

#ifdef __SANITIZE_ADDRESS__
/* The sanitizer build (about 20 times slower) looks for memory errors, not for other
 * bits: one even and one uneven split, and more threads than cores. */
static const int thread_counts[] = {1, 3, 16};
#else
static const int thread_counts[] = {1, 2, 3, 4, 7, 16};
#endif
#define COUNTS ((int)(sizeof thread_counts / sizeof thread_counts[0]))

/* --- the pool ------------------------------------------------------------------ */

typedef struct marks {
	atomic_int runs[64];
	int parts;
} marks;

static void mark(void *arg, int part)
{
	marks *m = arg;
	atomic_fetch_add(&m->runs[part], 1);
}

/* Every part of a job runs exactly once, whatever the parts and threads. */
static int each_part_once(steer_pool *p, int parts)
{
	marks m;
	for (int k = 0; k < 64; k++)
		atomic_init(&m.runs[k], 0);
	m.parts = parts;
	steer_pool_run(p, mark, &m, parts);
	for (int k = 0; k < 64; k++)
		if (atomic_load(&m.runs[k]) != (k < parts))
			return 0;
	return 1;
}

static void pool_runs_every_part_once(void)
{
	CHECK(each_part_once(NULL, 1) && each_part_once(NULL, 5), "no pool: the caller runs all");
	CHECK(steer_pool_threads(NULL) == 1, "no pool is one thread");
	for (int t = 2; t <= 8; t++) {
		steer_pool *p = steer_pool_create(t);
		CHECK(p && steer_pool_threads(p) == t, "a pool of %d", t);
		if (!p)
			continue;
		for (int round = 0; round < 200; round++) {
			int parts =
			    1 + round % (2 * t); /* fewer, as many and more parts than threads */
			CHECK(each_part_once(p, parts), "%d threads, %d parts", t, parts);
		}
		steer_pool_destroy(p);
	}
}

static void pool_refuses_silly_sizes(void)
{
	CHECK(!steer_pool_create(1) && !steer_pool_create(0) && !steer_pool_create(-3) &&
	          !steer_pool_create(STEER_POOL_MAX_THREADS + 1),
	      "a pool needs 2 to %d threads", STEER_POOL_MAX_THREADS);
	steer_pool_destroy(NULL);
}

/* Made and destroyed while idle, again and again: no job ever ran on some. */
static void pool_made_and_destroyed_idle(void)
{
	for (int k = 0; k < 50; k++) {
		steer_pool *p = steer_pool_create(2 + k % 6);
		CHECK(p, "pool %d", k);
		if (k % 2)
			CHECK(each_part_once(p, 3), "pool %d", k);
		steer_pool_destroy(p);
	}
}

static void world_thread_counts(void)
{
	steer_world *w = make_world(1000, 1000, STEER_EDGE_WRAP, 1);
	CHECK(steer_world_threads(w) == 1, "a world starts on one thread");
	CHECK(steer_world_set_threads(w, 0) == STEER_ERR_INVALID &&
	          steer_world_set_threads(w, -1) == STEER_ERR_INVALID &&
	          steer_world_set_threads(w, STEER_MAX_THREADS + 1) == STEER_ERR_INVALID,
	      "counts out of range are refused");
	CHECK(steer_world_threads(w) == 1, "a refused count leaves the world's");
	int seq[] = {4, 4, 2, 7, 1, 3, 1, 16};
	for (size_t k = 0; k < sizeof seq / sizeof *seq; k++) {
		CHECK(steer_world_set_threads(w, seq[k]) == STEER_OK, "%d threads", seq[k]);
		CHECK(steer_world_threads(w) == seq[k], "%d threads", seq[k]);
		step(w, 1);
	}
	steer_world_destroy(w); /* with its pool of 16, idle */
}

/* --- the same bits ------------------------------------------------------------- */

/* Field by field: the struct's padding holds whatever was on the stack. */
static int same_params(const steer_params *a, const steer_params *b)
{
	return !memcmp(a, b, offsetof(steer_params, group)) && a->group == b->group &&
	       a->max_neighbours == b->max_neighbours &&
	       a->avoid_neighbours == b->avoid_neighbours && a->decel == b->decel &&
	       a->combine == b->combine && a->field_of_view == b->field_of_view;
}

/* Every vehicle slot (records, slot for slot: storage order too), every obstacle,
 * and the world's meta state (tick, next id, generator), bit for bit. */
static int same_world(const steer_world *a, const steer_world *b, char *why, size_t whylen)
{
	const steer_vehicles *x = steer_world_vehicles(a), *y = steer_world_vehicles(b);
	steer_world_meta ma = steer_world_meta_get(a), mb = steer_world_meta_get(b);
	/* Field by field: the struct's padding after next_id holds whatever it held. */
	if (ma.tick != mb.tick || ma.next_id != mb.next_id ||
	    memcmp(&ma.rng, &mb.rng, sizeof ma.rng)) {
		snprintf(why, whylen, "meta state");
		return 0;
	}
	if (x->count != y->count) {
		snprintf(why, whylen, "%zu vehicles against %zu", x->count, y->count);
		return 0;
	}
	for (size_t i = 0; i < x->count; i++) {
		steer_vehicle_record ra, rb;
		steer_vehicle_record_get(a, i, &ra);
		steer_vehicle_record_get(b, i, &rb);
		const steer_path *pa = &ra.state.path, *pb = &rb.state.path;
		int same = ra.id == rb.id && ra.behaviors == rb.behaviors &&
		           !memcmp(&ra.pos, &rb.pos, sizeof ra.pos) &&
		           !memcmp(&ra.vel, &rb.vel, sizeof ra.vel) &&
		           !memcmp(&ra.heading, &rb.heading, sizeof ra.heading) &&
		           !memcmp(&ra.force, &rb.force, sizeof ra.force) &&
		           same_params(&ra.prm, &rb.prm) && x->param_set[i] == y->param_set[i] &&
		           !memcmp(&ra.state.wander_angle, &rb.state.wander_angle,
		                   sizeof ra.state.wander_angle) &&
		           ra.state.pursue_id == rb.state.pursue_id &&
		           ra.state.evade_id == rb.state.evade_id && pa->count == pb->count &&
		           pa->index == pb->index && pa->loop == pb->loop &&
		           !memcmp(&ra.state.smooth, &rb.state.smooth, sizeof ra.state.smooth);
		if (!same) {
			snprintf(why, whylen, "slot %zu (id %u against %u)", i, ra.id, rb.id);
			return 0;
		}
	}
	size_t na, nb;
	const steer_obstacle *oa = steer_world_obstacles(a, &na),
	                     *ob = steer_world_obstacles(b, &nb);
	if (na != nb) {
		snprintf(why, whylen, "%zu obstacles against %zu", na, nb);
		return 0;
	}
	for (size_t k = 0; k < na; k++) {
		double da[5] = {oa[k].x, oa[k].y, oa[k].vx, oa[k].vy, oa[k].r};
		double db[5] = {ob[k].x, ob[k].y, ob[k].vx, ob[k].vy, ob[k].r};
		if (oa[k].id != ob[k].id || memcmp(da, db, sizeof da)) {
			snprintf(why, whylen, "obstacle %zu", k);
			return 0;
		}
	}
	return 1;
}

/* A world built and run by `run` on each thread count, compared with one thread's. */
typedef steer_world *(*world_run)(int threads);

/* The world on each of `counts` threads against the one-thread world. */
static void same_bits_on(const char *name, world_run run, const int *counts, int ncounts)
{
	steer_world *ref = run(1);
	CHECK(steer_world_vehicles(ref)->count > 0, "%s: an empty world proves nothing", name);
	for (int k = 0; k < ncounts; k++) {
		steer_world *w = run(counts[k]);
		char why[96] = "";
		CHECK(same_world(ref, w, why, sizeof why), "%s: %d threads differ from one: %s",
		      name, counts[k], why);
		steer_world_destroy(w);
	}
	steer_world_destroy(ref);
}

static void same_bits_for_every_count(const char *name, world_run run)
{
	same_bits_on(name, run, thread_counts + 1, COUNTS - 1);
}

/* Whether the worlds made from here on take their parts last first. */
static bool reverse_parts;

static void set_threads(steer_world *w, int threads)
{
	if (steer_world_set_threads(w, threads) != STEER_OK)
		abort();
	steer_pool_set_reverse(w->pool, reverse_parts);
}

/* A big flock: past every threshold for threads, the grid's included. */
static steer_world *big_flock(int threads)
{
	steer_world *w = make_world(9000, 7000, STEER_EDGE_WRAP, 21);
	set_threads(w, threads);
	steer_rng *rng = steer_world_rng(w);
	steer_params p = steer_flock_params();
	for (int k = 0; k < 70001; k++) /* odd: parts of uneven sizes */
		add_vehicle(w, steer_rng_range(rng, 0, 9000), steer_rng_range(rng, 0, 7000),
		            steer_rng_range(rng, -40, 40), steer_rng_range(rng, -40, 40), &p);
	for (uint32_t id = 1; id <= 70001; id++)
		if (steer_vehicle_enable(w, id, STEER_FLOCK, true) != STEER_OK)
			abort();
	step(w, 12);
	return w;
}

static void a_big_flock_gives_the_same_bits(void)
{
	same_bits_for_every_count("big flock", big_flock);
}

/* A dense crowd: every boid in one small disc, hundreds in sight of each, capped by
 * max_neighbours, in a world with edges "none". */
static steer_world *dense_crowd(int threads)
{
	steer_world *w = make_world(4000, 4000, STEER_EDGE_NONE, 5);
	set_threads(w, threads);
	steer_rng *rng = steer_world_rng(w);
	steer_params p = steer_flock_params();
	steer_params q = p;
	q.max_neighbours = 7;
	q.sight_distance = 60;
	for (int k = 0; k < 12000; k++) {
		double a = steer_rng_range(rng, 0, STEER_TAU);
		double r = 300 * sqrt(steer_rng_range(rng, 0, 1));
		uint32_t id = add_vehicle(w, 2000 + r * cos(a), 2000 + r * sin(a),
		                          steer_rng_range(rng, -20, 20),
		                          steer_rng_range(rng, -20, 20), k % 3 ? &p : &q);
		if (steer_vehicle_enable(w, id, STEER_FLOCK, true) != STEER_OK)
			abort();
	}
	step(w, 40);
	return w;
}

static void a_dense_crowd_gives_the_same_bits(void)
{
	same_bits_for_every_count("dense crowd", dense_crowd);
}

/* A solid crowd: arrivers packing at one point around circles, none flocking (the
 * contacts found over a grid of all vehicles) and enough of them that the search is
 * split; and a solid flock squeezed into a disc (contacts over the flock's grid). */
static steer_world *solid_crowd(int threads)
{
	steer_world *w = make_world(3000, 3000, STEER_EDGE_BOUNCE, 9);
	set_threads(w, threads);
	steer_world_set_solid(w, true);
	steer_rng *rng = steer_world_rng(w);
	steer_params p = steer_params_default();
	steer_params heavy = p;
	heavy.mass = 3;
	heavy.radius = 8;
	for (int k = 0; k < 3; k++) {
		uint32_t obs;
		if (steer_obstacle_add(w, v2(1300 + 200 * k, 1500), v2(k * 20.0, 0), 40, &obs) !=
		    STEER_OK)
			abort();
	}
	for (int k = 0; k < 6001; k++) {
		double a = steer_rng_range(rng, 0, STEER_TAU);
		double r = 600 * sqrt(steer_rng_range(rng, 0, 1));
		uint32_t id =
		    add_vehicle(w, 1500 + r * cos(a), 1500 + r * sin(a), 0, 0, k % 5 ? &p : &heavy);
		if (steer_vehicle_target(w, id, STEER_ARRIVE, v2(1500, 1500)) != STEER_OK)
			abort();
	}
	step(w, 40);
	return w;
}

static steer_world *solid_flock(int threads)
{
	steer_world *w = make_world(2000, 2000, STEER_EDGE_WRAP, 13);
	set_threads(w, threads);
	steer_world_set_solid(w, true);
	steer_rng *rng = steer_world_rng(w);
	steer_params p = steer_flock_params();
	for (int k = 0; k < 9001; k++) {
		double a = steer_rng_range(rng, 0, STEER_TAU);
		double r = 700 * sqrt(steer_rng_range(rng, 0, 1));
		uint32_t id =
		    add_vehicle(w, 1000 + r * cos(a), 1000 + r * sin(a),
		                steer_rng_range(rng, -40, 40), steer_rng_range(rng, -40, 40), &p);
		if (steer_vehicle_enable(w, id, STEER_FLOCK, true) != STEER_OK)
			abort();
	}
	step(w, 30);
	return w;
}

/* A solid crowd among walls, a solid polygon and the contained bounds: arrivers (some
 * fast enough to need the tunnelling guard) pack against a wall and the polygon. */
static steer_world *solid_walls(int threads)
{
	steer_world *w = make_world(3000, 3000, STEER_EDGE_BOUNCE, 21);
	set_threads(w, threads);
	steer_world_set_solid(w, true);
	if (steer_world_set_contain(w, true) != STEER_OK)
		abort();
	uint32_t id;
	char err[128];
	const steer_vec2 pts[] = {v2(1400, 1600), v2(1700, 1600), v2(1550, 1700), v2(1700, 1800),
	                          v2(1400, 1800)};
	if (steer_wall_add(w, v2(1200, 1300), v2(1800, 1350), &id) != STEER_OK ||
	    steer_polygon_add(w, pts, 5, false, &id, err, sizeof err) != STEER_OK)
		abort();
	steer_rng *rng = steer_world_rng(w);
	steer_params p = steer_params_default();
	steer_params fast = p;
	fast.max_speed = 1e4;
	fast.max_force = 1e7;
	for (int k = 0; k < 6001; k++) {
		double a = steer_rng_range(rng, 0, STEER_TAU);
		double r = 1400 * sqrt(steer_rng_range(rng, 0, 1));
		uint32_t v =
		    add_vehicle(w, 1500 + r * cos(a), 1500 + r * sin(a), 0, 0, k % 7 ? &p : &fast);
		if (steer_vehicle_target(w, v, STEER_ARRIVE, v2(1500, 1500)) != STEER_OK)
			abort();
	}
	step(w, 40);
	return w;
}

static void solid_worlds_give_the_same_bits(void)
{
	same_bits_for_every_count("solid crowd", solid_crowd);
	same_bits_for_every_count("solid flock", solid_flock);
	same_bits_for_every_count("solid walls", solid_walls);
}

/* Vehicle k's behaviours in the mixed world: every behaviour and many mixtures. */
static uint32_t mixed_behaviors(int k)
{
	static const uint32_t kinds[] = {
	    STEER_FLOCK,
	    STEER_FLOCK,
	    STEER_FLOCK | STEER_WANDER,
	    STEER_SEEK,
	    STEER_FLEE | STEER_FLOCK,
	    STEER_ARRIVE,
	    STEER_WANDER | STEER_AVOID,
	    STEER_PATH | STEER_AVOID,
	    STEER_FLOCK | STEER_AVOID,
	    STEER_PURSUE | STEER_FLOCK,
	    STEER_EVADE | STEER_WANDER,
	    STEER_SEEK | STEER_FLEE | STEER_ARRIVE | STEER_WANDER | STEER_AVOID | STEER_PATH |
	        STEER_FLOCK,
	};
	return kinds[k % (int)(sizeof kinds / sizeof *kinds)];
}

/* Gives vehicle id the behaviours `bits`, with targets, chases and paths. */
static void configure(steer_world *w, uint32_t id, uint32_t bits, steer_rng *rng)
{
	steer_vec2 t = v2(steer_rng_range(rng, 0, 5000), steer_rng_range(rng, 0, 4000));
	int ok = 1;
	if (bits & STEER_SEEK)
		ok &= steer_vehicle_target(w, id, STEER_SEEK, t) == STEER_OK;
	if (bits & STEER_FLEE)
		ok &= steer_vehicle_target(w, id, STEER_FLEE, v2(t.y, t.x)) == STEER_OK;
	if (bits & STEER_ARRIVE)
		ok &= steer_vehicle_target(w, id, STEER_ARRIVE, v2(t.x * 0.5, t.y)) == STEER_OK;
	uint32_t other = id > 1 ? id - 1 : id + 1;
	if (bits & STEER_PURSUE)
		ok &= steer_vehicle_chase(w, id, STEER_PURSUE, other) == STEER_OK;
	if (bits & STEER_EVADE)
		ok &= steer_vehicle_chase(w, id, STEER_EVADE, other) == STEER_OK;
	if (bits & STEER_PATH) {
		for (int k = 0; k < 4; k++)
			ok &= steer_vehicle_path_add(
			          w, id, v2(t.x + 300 * (k & 1), t.y + 300 * (k >> 1))) == STEER_OK;
		ok &= steer_vehicle_path_loop(w, id, id % 2) == STEER_OK;
	}
	ok &= steer_vehicle_enable(w, id, bits & (STEER_FLOCK | STEER_WANDER | STEER_AVOID),
	                           true) == STEER_OK;
	if (!ok)
		abort();
}

/* Four parameter sets: the flock preset, a second group, a wide-sighted capped one
 * that combines by priority, and a short-sighted one. */
static steer_params mixed_params(int k)
{
	steer_params p = steer_flock_params();
	switch (k % 4) {
	case 1:
		p.group = 2;
		break;
	case 2:
		p.sight_distance = 160;
		p.max_neighbours = 5;
		p.combine = STEER_COMBINE_PRIORITY;
		break;
	case 3:
		p.sight_distance = 40;
		p.max_speed = 90;
		break;
	}
	return p;
}

/* Every behaviour, four parameter sets, obstacles, and vehicles spawned and removed
 * (and re-targeted) between ticks: storage reshuffled, re-sorts, extras reused. */
static steer_world *mixed_world(int threads)
{
	steer_world *w = make_world(5000, 4000, STEER_EDGE_WRAP, 77);
	set_threads(w, threads);
	steer_rng *rng = steer_world_rng(w);
	for (int k = 0; k < 6; k++)
		if (steer_obstacle_add(w, v2(500 + 800 * k, 300 + 600 * k), v2(10 - 3 * k, 7),
		                       40 + 10 * k, NULL) != STEER_OK)
			abort();
	int made = 0;
	for (; made < 9000; made++) {
		steer_params p = mixed_params(made);
		uint32_t id =
		    add_vehicle(w, steer_rng_range(rng, 0, 5000), steer_rng_range(rng, 0, 4000),
		                steer_rng_range(rng, -30, 30), steer_rng_range(rng, -30, 30), &p);
		configure(w, id, mixed_behaviors(made), rng);
	}
	for (int round = 0; round < 12; round++) {
		step(w, 6);
		/* Remove a few hundred (pursuers of the removed lose their chase), spawn as many
		 * more, and change some vehicles' parameters and behaviours. */
		const steer_vehicles *v = steer_world_vehicles(w);
		for (int k = 0; k < 300 && v->count > 1; k++) {
			size_t i = (size_t)steer_rng_range(rng, 0, (double)v->count - 0.5);
			if (steer_remove(w, v->id[i]) != STEER_OK)
				abort();
		}
		for (int k = 0; k < 320; k++, made++) {
			steer_params p = mixed_params(made);
			uint32_t id = add_vehicle(
			    w, steer_rng_range(rng, 0, 5000), steer_rng_range(rng, 0, 4000),
			    steer_rng_range(rng, -30, 30), steer_rng_range(rng, -30, 30), &p);
			configure(w, id, mixed_behaviors(made), rng);
		}
		for (int k = 0; k < 50; k++) {
			size_t i = (size_t)steer_rng_range(rng, 0, (double)v->count - 0.5);
			steer_params p = mixed_params(made + k);
			if (steer_vehicle_set_params(w, v->id[i], &p) != STEER_OK ||
			    steer_vehicle_enable(w, v->id[i], STEER_FLOCK, k % 2) != STEER_OK)
				abort();
		}
	}
	return w;
}

static void a_mixed_world_gives_the_same_bits(void)
{
	same_bits_for_every_count("mixed world", mixed_world);
}

/* An avoiding crowd: every vehicle avoids, dense enough that the neighbour cap
 * drops some, among walls, a concave polygon, still and moving circles, inside
 * contained bounds. */
static steer_world *avoiding_crowd(int threads)
{
	steer_world *w = make_world(3000, 2000, STEER_EDGE_BOUNCE, 5);
	set_threads(w, threads);
	if (steer_world_set_contain(w, true) != STEER_OK ||
	    steer_wall_add(w, v2(1000, 200), v2(1000, 1500), NULL) != STEER_OK ||
	    steer_wall_add(w, v2(2000, 1800), v2(2100, 500), NULL) != STEER_OK)
		abort();
	const steer_vec2 cup[] = {{1400, 800},  {1700, 800},  {1700, 1200}, {1400, 1200},
	                          {1400, 1150}, {1650, 1150}, {1650, 850},  {1400, 850}};
	char err[96];
	if (steer_polygon_add(w, cup, 8, false, NULL, err, sizeof err) != STEER_OK)
		abort();
	steer_rng *rng = steer_world_rng(w);
	for (int k = 0; k < 40; k++) {
		double moving = k % 3 ? 0 : 25;
		if (steer_obstacle_add(
		        w, v2(steer_rng_range(rng, 100, 2900), steer_rng_range(rng, 100, 1900)),
		        v2(moving, -moving), steer_rng_range(rng, 10, 40), NULL) != STEER_OK)
			abort();
	}
	steer_params p = steer_params_default();
	p.avoid_neighbours = 6;
	for (int k = 0; k < 6000; k++) {
		p.radius = 3 + k % 4;
		p.combine = k % 5 ? STEER_COMBINE_SUM : STEER_COMBINE_PRIORITY;
		uint32_t id =
		    add_vehicle(w, steer_rng_range(rng, 0, 3000), steer_rng_range(rng, 0, 2000),
		                steer_rng_range(rng, -30, 30), steer_rng_range(rng, -30, 30), &p);
		steer_vec2 goal = v2(steer_rng_range(rng, 0, 3000), steer_rng_range(rng, 0, 2000));
		if (steer_vehicle_target(w, id, k % 2 ? STEER_SEEK : STEER_ARRIVE, goal) !=
		        STEER_OK ||
		    steer_vehicle_enable(w, id, STEER_AVOID | (k % 7 ? 0 : STEER_FLOCK), true) !=
		        STEER_OK)
			abort();
	}
	step(w, 30);
	return w;
}

static void an_avoiding_crowd_gives_the_same_bits(void)
{
	same_bits_for_every_count("avoiding crowd", avoiding_crowd);
}

/* Issue 18's combining: corridor walkers both ways round a square, most dithering
 * with weights, some wandering or flocking, headings smoothed for display. */
static steer_world *dithering_walkers(int threads)
{
	steer_world *w = make_world(3000, 3000, STEER_EDGE_WRAP, 9);
	set_threads(w, threads);
	steer_rng *rng = steer_world_rng(w);
	steer_params p = steer_params_default();
	p.heading_smoothing = 0.2;
	p.path_radius = 60;
	p.wander_weight = 0.5;
	const steer_vec2 square[] = {{500, 500}, {2500, 500}, {2500, 2500}, {500, 2500}};
	for (int k = 0; k < 6000; k++) {
		p.combine = k % 3 ? STEER_COMBINE_DITHER : STEER_COMBINE_SUM;
		p.path_direction = k % 2 ? STEER_PATH_BACKWARD : STEER_PATH_FORWARD;
		uint32_t id =
		    add_vehicle(w, steer_rng_range(rng, 0, 3000), steer_rng_range(rng, 0, 3000),
		                steer_rng_range(rng, -30, 30), steer_rng_range(rng, -30, 30), &p);
		for (int q = 0; q < 4; q++)
			if (steer_vehicle_path_add(w, id, square[q]) != STEER_OK)
				abort();
		uint32_t more = (k % 4 ? 0 : STEER_WANDER) | (k % 5 ? 0 : STEER_AVOID) |
		                (k % 7 ? 0 : STEER_FLOCK);
		if (steer_vehicle_path_loop(w, id, true) != STEER_OK ||
		    steer_vehicle_enable(w, id, more, more != 0) != STEER_OK)
			abort();
	}
	step(w, 30);
	return w;
}

static void dithering_walkers_give_the_same_bits(void)
{
	same_bits_for_every_count("dithering walkers", dithering_walkers);
}

/* The thread count changed between ticks: the world goes on as if it had one. */
/* Nothing flocks: the avoiders go in their own grid's order, storage re-sorted into
 * it; removals leave holes in the extras that a re-sort closes. */
static steer_world *avoiding_walkers(int threads)
{
	steer_world *w = make_world(2500, 2500, STEER_EDGE_WRAP, 8);
	set_threads(w, threads);
	steer_rng *rng = steer_world_rng(w);
	steer_params p = steer_params_default();
	for (int k = 0; k < 6000; k++) {
		p.radius = 3 + k % 3;
		uint32_t id =
		    add_vehicle(w, steer_rng_range(rng, 0, 2500), steer_rng_range(rng, 0, 2500),
		                steer_rng_range(rng, -30, 30), steer_rng_range(rng, -30, 30), &p);
		steer_vec2 goal = v2(steer_rng_range(rng, 0, 2500), steer_rng_range(rng, 0, 2500));
		if (steer_vehicle_target(w, id, STEER_SEEK, goal) != STEER_OK ||
		    steer_vehicle_enable(w, id, STEER_AVOID | (k % 4 ? 0 : STEER_WANDER), true) !=
		        STEER_OK)
			abort();
	}
	step(w, 10);
	for (uint32_t id = 1; id <= 6000; id += 7)
		if (steer_remove(w, id) != STEER_OK)
			abort();
	step(w, 20);
	return w;
}

static void avoiding_walkers_give_the_same_bits(void)
{
	same_bits_for_every_count("avoiding walkers", avoiding_walkers);
}

static steer_world *changing_counts(int threads)
{
	steer_world *w = make_world(6000, 6000, STEER_EDGE_BOUNCE, 9);
	steer_rng *rng = steer_world_rng(w);
	steer_params p = steer_flock_params();
	for (int k = 0; k < 20000; k++) {
		uint32_t id =
		    add_vehicle(w, steer_rng_range(rng, 0, 6000), steer_rng_range(rng, 0, 6000),
		                steer_rng_range(rng, -40, 40), steer_rng_range(rng, -40, 40), &p);
		if (steer_vehicle_enable(w, id, k % 5 ? STEER_FLOCK : STEER_WANDER, true) !=
		    STEER_OK)
			abort();
	}
	for (int k = 0; k < 8; k++) {
		set_threads(w, threads == 1 ? 1 : thread_counts[(k + threads) % COUNTS]);
		step(w, 5);
	}
	return w;
}

static void changing_the_count_between_ticks_gives_the_same_bits(void)
{
	same_bits_for_every_count("changing counts", changing_counts);
}

/* bench/crowd_layout.h's crowd (steer-bench --crowd): walkers seeking goals among
 * circles and walls, avoiding and solid. */
static steer_world *layout_crowd(int threads)
{
	steer_params p = steer_params_default();
	p.max_speed = 50;
	crowd_layout L = crowd_layout_make(3000, 10.0, p.radius, 7);
	steer_world *w = make_world(L.side, L.side, STEER_EDGE_BOUNCE, 7);
	set_threads(w, threads);
	steer_world_set_solid(w, true);
	for (long k = 0; k < crowd_shape_count(&L); k++) {
		crowd_shape c = crowd_shape_at(&L, k);
		if ((c.wall
		         ? steer_wall_add(w, v2(c.x1, c.y1), v2(c.x2, c.y2), NULL)
		         : steer_obstacle_add(w, v2(c.x1, c.y1), v2(0, 0), c.r, NULL)) != STEER_OK)
			abort();
	}
	for (long a = 0; a < L.n; a++) {
		double x, y, gx, gy;
		crowd_point(&L, a, 0, &x, &y);
		crowd_point(&L, a, 1, &gx, &gy);
		uint32_t id = add_vehicle(w, x, y, 0, 0, &p);
		if (steer_vehicle_enable(w, id, STEER_AVOID, true) != STEER_OK ||
		    steer_vehicle_target(w, id, STEER_SEEK, v2(gx, gy)) != STEER_OK)
			abort();
	}
	step(w, 40);
	return w;
}

/* side x side rings of RVO2's Circle agents (circle_scene.h), n to a ring of radius r,
 * 200 apart from (100, 100), each walking to the point opposite. */
static void add_circle_rings(steer_world *w, int side, int n, double r)
{
	steer_params p = circle_params();
	for (int ring = 0; ring < side * side; ring++)
		for (int k = 0; k < n; k++) {
			double cx = 100 + 200 * (ring % side), cy = 100 + 200 * (ring / side);
			double a = STEER_TAU * k / n;
			uint32_t id = add_vehicle(w, cx + r * cos(a), cy + r * sin(a), 0, 0, &p);
			if (steer_vehicle_enable(w, id, STEER_AVOID, true) != STEER_OK ||
			    steer_vehicle_target(w, id, STEER_ARRIVE,
			                         v2(cx - r * cos(a), cy - r * sin(a))) != STEER_OK)
				abort();
		}
}

/* Nine small rings of RVO2's Circle agents (circle_scene.h), 125 to a ring of radius
 * 65, run until each ring is a jam at its centre, pressed by its solid bodies. */
static steer_world *circle_jams(int threads)
{
	steer_world *w = make_world(600, 600, STEER_EDGE_BOUNCE, 3);
	set_threads(w, threads);
	steer_world_set_solid(w, true);
	if (steer_world_set_tick_rate(w, 1.0 / CIRCLE_DT) != STEER_OK)
		abort();
	add_circle_rings(w, 3, 125, 65);
	step(w, 300);
	return w;
}

static void crowds_and_circles_give_the_same_bits(void)
{
	same_bits_for_every_count("layout crowd", layout_crowd);
	same_bits_for_every_count("circle jams", circle_jams);
}

/* Four rings of Circle agents jammed at their centres, edited between ticks: agents
 * carried out of a jam (whose nearest then lie further than last tick's bounds
 * allow for without the move), a quarter looking at more nearest, removals and an
 * addition. void_kept: each tick's search starts without last tick's bounds. */
static steer_world *edited_jams(bool void_kept)
{
	steer_world *w = make_world(400, 400, STEER_EDGE_BOUNCE, 5);
	steer_world_set_solid(w, true);
	if (steer_world_set_tick_rate(w, 1.0 / CIRCLE_DT) != STEER_OK)
		abort();
	add_circle_rings(w, 2, 60, 40);
	steer_params p = circle_params(), more = p;
	more.avoid_neighbours = STEER_AVOID_NEIGHBOURS_MAX;
	for (int t = 0; t < 400; t++) {
		const steer_vehicles *v = steer_world_vehicles(w);
		uint32_t id = v->id[(size_t)t * 37 % v->count];
		steer_status st = STEER_OK;
		if (t >= 150 && t % 10 == 0) /* out of its jam, into the open */
			st = steer_vehicle_set_position(w, id, v2(200 + t % 7, 200 + t % 11));
		else if (t >= 150 && t % 25 == 3)
			for (size_t k = 0; k < v->count && st == STEER_OK; k += 4)
				st = steer_vehicle_set_params(w, v->id[k], &more);
		else if (t >= 150 && t % 40 == 7)
			st = steer_remove(w, id);
		else if (t >= 150 && t % 40 == 27)
			st = steer_vehicle_enable(w, add_vehicle(w, 100, 100, 0, 0, &p),
			                          STEER_AVOID, true);
		if (st != STEER_OK)
			abort();
		if (void_kept)
			w->avoid_kept_count = SIZE_MAX;
		step(w, 1);
	}
	return w;
}

/* Kept bounds and kept lists (avoid.c) only find the nearest sooner: the same bits
 * as searches that start from nothing (voiding the bounds voids the lists too). */
static void kept_bounds_find_the_same_nearest(void)
{
	steer_world *kept = edited_jams(false), *fresh = edited_jams(true);
	char why[96] = "";
	CHECK(same_world(kept, fresh, why, sizeof why),
	      "searches from kept bounds differ from fresh ones: %s", why);
	steer_world_destroy(kept);
	steer_world_destroy(fresh);
}

/* Every job's parts taken last first: the same bits as one thread, which takes them
 * first first. */
static void parts_taken_last_first_give_the_same_bits(void)
{
	marks m = {.parts = 9};
	steer_pool *p = steer_pool_create(3);
	CHECK(p != NULL, "no pool");
	for (int k = 0; k < m.parts; k++)
		atomic_init(&m.runs[k], 0);
	steer_pool_set_reverse(p, true);
	steer_pool_run(p, mark, &m, m.parts);
	for (int k = 0; k < m.parts; k++)
		CHECK(atomic_load(&m.runs[k]) == 1, "reversed: part %d ran %d times", k,
		      atomic_load(&m.runs[k]));
	steer_pool_destroy(p);
	/* One thread runs in order; three, with every part taken last first. */
	static const int three[] = {3};
	reverse_parts = true;
	same_bits_on("big flock, parts last first", big_flock, three, 1);
	same_bits_on("solid crowd, parts last first", solid_crowd, three, 1);
	same_bits_on("solid walls, parts last first", solid_walls, three, 1);
	same_bits_on("layout crowd, parts last first", layout_crowd, three, 1);
	same_bits_on("circle jams, parts last first", circle_jams, three, 1);
	reverse_parts = false;
}

/* The grid on its own, built on each count: cell for cell and member for member
 * the one-thread grid (members in index order within a cell). Clumped points, so
 * that many cells and rows hold members of several parts, and some not indexed. */
static void the_grid_is_the_same_for_every_count(void)
{
	enum { N = 150001 };
	static double px[N], py[N];
	static uint32_t flags[N];
	steer_rng rng;
	steer_rng_seed(&rng, 11, 3);
	for (size_t i = 0; i < N; i++) {
		px[i] = i % 3 ? steer_rng_range(&rng, 0, 9000) : steer_rng_range(&rng, 4000, 4100);
		py[i] = steer_rng_range(&rng, 0, 7000);
		flags[i] = i % 11 ? STEER_FLOCK : STEER_SEEK;
	}
	steer_grid g[COUNTS];
	steer_pool *pool[COUNTS];
	for (int t = 0; t < COUNTS; t++) {
		steer_grid_init(&g[t]);
		pool[t] = thread_counts[t] > 1 ? steer_pool_create(thread_counts[t]) : NULL;
		g[t].pool = pool[t];
		CHECK(steer_grid_build(&g[t], 9000, 7000, true, 100, N, px, py, flags,
		                       STEER_FLOCK) == STEER_OK,
		      "grid build failed");
	}
	size_t cells = (size_t)g[0].nx * (size_t)g[0].ny;
	for (int t = 1; t < COUNTS; t++) {
		CHECK(g[0].count == g[t].count && g[0].nx == g[t].nx && g[0].ny == g[t].ny,
		      "%d threads: grids of %zu and %zu members", thread_counts[t], g[0].count,
		      g[t].count);
		CHECK(!memcmp(g[0].start, g[t].start, (cells + 1) * sizeof *g[0].start),
		      "%d threads: cell starts differ", thread_counts[t]);
		CHECK(!memcmp(g[0].items, g[t].items, g[0].count * sizeof *g[0].items),
		      "%d threads: members differ", thread_counts[t]);
	}
	for (int t = 0; t < COUNTS; t++) {
		steer_grid_free(&g[t]);
		steer_pool_destroy(pool[t]);
	}
}

int main(void)
{
	RUN(pool_runs_every_part_once);
	RUN(pool_refuses_silly_sizes);
	RUN(pool_made_and_destroyed_idle);
	RUN(world_thread_counts);
	RUN(the_grid_is_the_same_for_every_count);
	RUN(a_big_flock_gives_the_same_bits);
	RUN(a_dense_crowd_gives_the_same_bits);
	RUN(a_mixed_world_gives_the_same_bits);
	RUN(an_avoiding_crowd_gives_the_same_bits);
	RUN(dithering_walkers_give_the_same_bits);
	RUN(avoiding_walkers_give_the_same_bits);
	RUN(changing_the_count_between_ticks_gives_the_same_bits);
	RUN(solid_worlds_give_the_same_bits);
	RUN(crowds_and_circles_give_the_same_bits);
	RUN(kept_bounds_find_the_same_nearest);
	RUN(parts_taken_last_first_give_the_same_bits);
	return CHECK_DONE();
}
