/* The avoid search (avoid.c) finds each avoider's nearest vehicles within its reach,
 * by distance then id, as looking at every vehicle does: in wrapping, bouncing and
 * unbounded worlds, across seams, in jams that shrink the grid's cells and in the
 * open, for every count of nearest; and so does the tick's search from what it kept
 * (bounds and lists) as vehicles move, jump, leave and arrive. */
#include <stdio.h>
#include <stdlib.h>

#include "avoid.h"
#include "check.h"
#include "testutil.h"
#include "world_internal.h"

typedef struct near_one {
	double d2;
	uint32_t id;
} near_one;

static int by_distance_then_id(const void *a, const void *b)
{
	const near_one *x = a, *y = b;
	if (x->d2 != y->d2)
		return x->d2 < y->d2 ? -1 : 1;
	return (x->id > y->id) - (x->id < y->id);
}

/* Vehicle i's nearest by looking at all: into ids, how many. */
static size_t nearest_of_all(const steer_world *w, size_t i, near_one *all, uint32_t *ids)
{
	const steer_vehicles *v = steer_world_vehicles(w);
	const steer_params *p = steer_vehicle_params_at(w, i);
	double reach = steer_avoid_reach(w, p, w->speed_max);
	size_t m = 0;
	for (size_t j = 0; j < v->count; j++) {
		steer_vec2 d = steer_world_delta(w, v2(v->px[i], v->py[i]), v2(v->px[j], v->py[j]));
		double d2 = d.x * d.x + d.y * d.y;
		if (j != i && d2 < reach * reach)
			all[m++] = (near_one){d2, v->id[j]};
	}
	qsort(all, m, sizeof *all, by_distance_then_id);
	size_t n = m < p->avoid_neighbours ? m : p->avoid_neighbours;
	for (size_t k = 0; k < n; k++)
		ids[k] = all[k].id;
	return n;
}

/* Every vehicle's search against looking at all, after indexing the world as a tick
 * starts: afresh, or as the tick searches (kept). Returns how many vehicles differ
 * (and says what of the first few). */
static int compare_with(steer_world *w, const char *what, bool kept)
{
	if (steer_avoid_index(w) != STEER_OK)
		abort();
	const steer_vehicles *v = steer_world_vehicles(w);
	near_one *all = malloc(v->count * sizeof *all);
	if (!all)
		abort();
	int differ = 0;
	for (size_t i = 0; i < v->count; i++) {
		uint32_t want[STEER_AVOID_NEIGHBOURS_MAX], got[STEER_AVOID_NEIGHBOURS_MAX];
		size_t nw = nearest_of_all(w, i, all, want);
		size_t ng =
		    kept ? steer_avoid_nearest_kept(w, i, got) : steer_avoid_nearest(w, i, got);
		bool same = nw == ng && !memcmp(want, got, nw * sizeof *want);
		if (!same && differ++ < 3)
			CHECK(
			    0,
			    "%s: vehicle %u at (%g, %g): %zu nearest found, %zu by looking at all",
			    what, v->id[i], v->px[i], v->py[i], ng, nw);
	}
	free(all);
	return differ;
}

static int compare_all(steer_world *w, const char *what)
{
	return compare_with(w, what, false);
}

/* n avoiders: half in a few tight jams (one across the seam at the world's corner),
 * half spread over [x0, x0 + span] x [y0, y0 + span]; each looks at 1, 10 or 64
 * nearest. */
static steer_world *avoiders(steer_edges edges, double side, double x0, double span, int n)
{
	steer_world *w = make_world(side, side, edges, 11);
	steer_world_set_solid(w, false);
	steer_rng *rng = steer_world_rng(w);
	static const uint32_t counts[] = {1, 10, STEER_AVOID_NEIGHBOURS_MAX};
	for (int k = 0; k < n; k++) {
		steer_params p = steer_params_default();
		p.avoid_neighbours = counts[k % 3];
		double x, y;
		if (k % 2) {
			x = x0 + steer_rng_range(rng, 0, span);
			y = x0 + steer_rng_range(rng, 0, span);
		} else {
			double cx = (k / 2) % 3 == 0 ? 0 : side * 0.25 * ((k / 2) % 3);
			x = cx + steer_rng_range(rng, -30, 30);
			y = cx + steer_rng_range(rng, -30, 30);
		}
		uint32_t id = add_vehicle(w, x, y, steer_rng_range(rng, -40, 40),
		                          steer_rng_range(rng, -40, 40), &p);
		if (steer_vehicle_enable(w, id, STEER_AVOID, true) != STEER_OK)
			abort();
	}
	return w;
}

/* Over ticks, as the jams change the grid's cells. */
static void nearest_as_looking_at_all(steer_edges edges, double x0, double span, const char *what)
{
	steer_world *w = avoiders(edges, 1000, x0, span, 1500);
	for (int t = 1; t <= 61; t += 20) {
		step(w, t == 1 ? 1 : 20); /* the first tick surveys who avoids */
		CHECK(compare_all(w, what) == 0, "%s, tick %d", what, t);
	}
	steer_world_destroy(w);
}

static void in_a_wrapping_world(void)
{
	nearest_as_looking_at_all(STEER_EDGE_WRAP, 0, 1000, "wrap");
}

static void in_a_bouncing_world(void)
{
	nearest_as_looking_at_all(STEER_EDGE_BOUNCE, 0, 1000, "bounce");
}

/* Vehicles far beyond the bounds, which the grid's end cells take. */
static void in_an_unbounded_world(void)
{
	nearest_as_looking_at_all(STEER_EDGE_NONE, -3000, 7000, "unbounded");
}

/* The tick's search, from the kept bounds and lists, tick after tick: the lists
 * serve several ticks, are made again as vehicles move, grow, jump (a vehicle
 * moved across the world), leave and arrive. */
static void kept_as_looking_at_all(steer_edges edges, double x0, double span, const char *what)
{
	steer_world *w = avoiders(edges, 1000, x0, span, 1500);
	const steer_vehicles *v = steer_world_vehicles(w);
	/* Lists serve those that take at most 16 nearest: 16 instead of 64 here. */
	steer_params sixteen = steer_params_default(), wide = sixteen;
	sixteen.avoid_neighbours = 16;
	wide.avoid_neighbours = 16;
	wide.radius = 3 * sixteen.radius;
	for (size_t k = 2; k < v->count; k += 3)
		CHECK(steer_vehicle_set_params(w, v->id[k], &sixteen) == STEER_OK, "%s: params",
		      what);
	step(w, 1);
	uint32_t leaver = 0;
	for (int t = 1; t <= 40; t++) {
		step(w, 1);
		CHECK(compare_with(w, what, true) == 0, "%s, kept, tick %d", what, t);
		if (t % 10 == 2) /* one grows: its reach, and every search's, with it */
			CHECK(steer_vehicle_set_params(w, v->id[(size_t)t * 11 % v->count],
			                               &wide) == STEER_OK,
			      "%s: grow", what);
		if (t % 10 == 5) {
			uint32_t jumper = v->id[(size_t)t * 7 % v->count];
			steer_vec2 to =
			    steer_world_delta(w, v2(0, 0), v2(x0 + span * 0.5, x0 + span * 0.5));
			CHECK(steer_vehicle_set_position(w, jumper, to) == STEER_OK, "%s: jump",
			      what);
		}
		if (t % 10 == 8) { /* one arrives beside another ... */
			leaver = v->id[(size_t)t * 13 % v->count];
			steer_vec2 at = pos(w, leaver);
			steer_params p = steer_params_default();
			uint32_t id = add_vehicle(w, at.x + 0.5, at.y, 10, 0, &p);
			CHECK(steer_vehicle_enable(w, id, STEER_AVOID, true) == STEER_OK, "%s: add",
			      what);
		}
		if (t % 10 == 9) /* ... which leaves: the newcomer, last, moves into its slot */
			CHECK(steer_remove(w, leaver) == STEER_OK, "%s: remove", what);
	}
	steer_world_destroy(w);
}

static void kept_in_a_wrapping_world(void)
{
	kept_as_looking_at_all(STEER_EDGE_WRAP, 0, 1000, "wrap");
}

static void kept_in_a_bouncing_world(void)
{
	kept_as_looking_at_all(STEER_EDGE_BOUNCE, 0, 1000, "bounce");
}

static void kept_in_an_unbounded_world(void)
{
	kept_as_looking_at_all(STEER_EDGE_NONE, -3000, 7000, "unbounded");
}

int main(void)
{
	RUN(in_a_wrapping_world);
	RUN(in_a_bouncing_world);
	RUN(in_an_unbounded_world);
	RUN(kept_in_a_wrapping_world);
	RUN(kept_in_a_bouncing_world);
	RUN(kept_in_an_unbounded_world);
	return CHECK_DONE();
}
