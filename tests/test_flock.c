/* Flocking and the neighbour grid. */
#include <stdlib.h>
#include <string.h>

#include "behaviors.h"
#include "check.h"
#include "flock.h"
#include "grid.h"
#include "kernel.h"
#include "scenario.h"
#include "steer/command.h"
#include "steer/simd.h"
#include "testutil.h"

/* Every vehicle's state, compared by id, bit for bit. */
static int same_state_bits(const steer_world *a, const steer_world *b)
{
	const steer_vehicles *x = steer_world_vehicles(a);
	if (x->count != steer_world_vehicles(b)->count)
		return 0;
	for (size_t i = 0; i < x->count; i++) {
		steer_vec2 pa = pos(a, x->id[i]), pb = pos(b, x->id[i]);
		steer_vec2 va = vel(a, x->id[i]), vb = vel(b, x->id[i]);
		if (memcmp(&pa, &pb, sizeof pa) || memcmp(&va, &vb, sizeof va))
			return 0;
	}
	return 1;
}

static double polarization(const steer_world *w)
{
	const steer_vehicles *v = steer_world_vehicles(w);
	steer_vec2 sum = v2(0, 0);
	for (size_t i = 0; i < v->count; i++)
		sum = v2_add(sum, v2(v->hx[i], v->hy[i]));
	return v2_len(sum) / (double)v->count;
}

/* Mean count of other vehicles within r, and the smallest pairwise distance. */
static double mean_within(const steer_world *w, double r, double *closest)
{
	const steer_vehicles *v = steer_world_vehicles(w);
	size_t total = 0;
	*closest = 1e9;
	for (size_t i = 0; i < v->count; i++)
		for (size_t j = 0; j < v->count; j++) {
			if (i == j)
				continue;
			double d = v2_len(
			    steer_world_delta(w, v2(v->px[i], v->py[i]), v2(v->px[j], v->py[j])));
			*closest = fmin(*closest, d);
			if (d <= r)
				total++;
		}
	return (double)total / (double)v->count;
}

static steer_world *scattered_flock(double size, int n, uint64_t seed, const steer_params *p)
{
	steer_world *w = make_world(size, size, STEER_EDGE_WRAP, seed);
	steer_rng *rng = steer_world_rng(w);
	for (int k = 0; k < n; k++) {
		double a = steer_rng_range(rng, 0, STEER_TAU);
		uint32_t id =
		    add_vehicle(w, steer_rng_range(rng, 0, size), steer_rng_range(rng, 0, size),
		                cos(a) * p->max_speed, sin(a) * p->max_speed, p);
		steer_vehicle_enable(w, id, STEER_FLOCK, true);
	}
	return w;
}

static steer_params boid_params(void)
{
	steer_params p = steer_params_default();
	p.max_speed = p.max_force = 50;
	p.sight_distance = 100;
	p.too_close_distance = 20;
	return p;
}

static void alignment_and_separation_polarize(void)
{
	steer_params p = boid_params();
	p.cohesion_weight = 0;
	for (uint64_t seed = 1; seed <= 3; seed++) {
		steer_world *w = scattered_flock(500, 150, seed, &p);
		double start = polarization(w);
		step(w, 60 * 60);
		double end = polarization(w), closest;
		mean_within(w, p.sight_distance, &closest);
		CHECK(start < 0.3, "seed %llu: started polarized already (%.2f)",
		      (unsigned long long)seed, start);
		CHECK(end > 0.9, "seed %llu: polarization %.3f", (unsigned long long)seed, end);
		CHECK(closest > 0.25 * p.too_close_distance, "seed %llu: two boids %.2f apart",
		      (unsigned long long)seed, closest);
		steer_world_destroy(w);
	}
}

static void all_three_gather_a_scattered_flock(void)
{
	steer_params p = boid_params();
	steer_world *w = scattered_flock(1000, 150, 5, &p);
	double closest;
	double before = mean_within(w, p.sight_distance, &closest);
	step(w, 60 * 60);
	double after = mean_within(w, p.sight_distance, &closest);
	CHECK(after > 2.0 * before, "neighbours within sight went from %.1f to %.1f", before,
	      after);
	CHECK(world_finite(w), "non-finite state");
	steer_world_destroy(w);
}

/* Mean over vehicles of the polarization of each one's neighbourhood (itself and
 * all of its kind within r: a bird flocks with its own kind only, and kinds cross):
 * high when every group flies straight, whichever way groups go. */
static double local_polarization(const steer_world *w, double r)
{
	const steer_vehicles *v = steer_world_vehicles(w);
	double sum = 0;
	for (size_t i = 0; i < v->count; i++) {
		steer_vec2 h = v2(v->hx[i], v->hy[i]);
		int n = 1;
		for (size_t j = 0; j < v->count; j++) {
			steer_vec2 d =
			    steer_world_delta(w, v2(v->px[i], v->py[i]), v2(v->px[j], v->py[j]));
			if (j != i && v->group[j] == v->group[i] && v2_len(d) <= r) {
				h = v2_add(h, v2(v->hx[j], v->hy[j]));
				n++;
			}
		}
		sum += v2_len(h) / n;
	}
	return sum / (double)v->count;
}

static void flock_scenario_looks_like_a_flock(void)
{
	for (uint64_t seed = 1; seed <= 3; seed++) {
		steer_world_config c = steer_world_config_default();
		c.seed = seed;
		steer_world *w = steer_world_create(&c);
		CHECK(steer_scenario_load(w, "flock") == STEER_OK, "flock scenario did not load");
		double sight = steer_flock_params().sight_distance;
		double closest, before = mean_within(w, sight, &closest);
		double order_before = local_polarization(w, sight);
		step(w, 60 * 60);
		double after = mean_within(w, sight, &closest);
		double order = local_polarization(w, sight);
		CHECK(after > 1.2 * before, "seed %llu: neighbours %.1f -> %.1f",
		      (unsigned long long)seed, before, after);
		/* A bird alone counts as lined up, so the scattered start is not low (0.68-0.75
		 * for seeds 1-3, after a minute 0.89-0.93): the disorder at least halves. */
		CHECK(order > 0.85 && 1 - order < 0.5 * (1 - order_before),
		      "seed %llu: local polarization %.2f -> %.2f", (unsigned long long)seed,
		      order_before, order);
		steer_world_destroy(w);
	}
}

static void groups_flock_separately(void)
{
	/* Two groups crossing paths at right angles: each stays aligned with itself. */
	steer_params a = boid_params(), b = boid_params();
	a.cohesion_weight = b.cohesion_weight = 0;
	b.group = 1;
	steer_world *w = make_world(400, 400, STEER_EDGE_WRAP, 3);
	/* Groups that ignore each other pass through each other: about flocking, not
	 * bodies, whose pushes between the crossing groups would mix their headings. */
	steer_world_set_solid(w, false);
	for (int k = 0; k < 40; k++) {
		uint32_t ia = add_vehicle(w, 100 + (k % 8) * 25, 100 + (k / 8) * 25, 50, 0, &a);
		uint32_t ib = add_vehicle(w, 105 + (k % 8) * 25, 105 + (k / 8) * 25, 0, 50, &b);
		steer_vehicle_enable(w, ia, STEER_FLOCK, true);
		steer_vehicle_enable(w, ib, STEER_FLOCK, true);
	}
	step(w, 600);
	const steer_vehicles *v = steer_world_vehicles(w);
	steer_vec2 ha = v2(0, 0), hb = v2(0, 0);
	for (size_t i = 0; i < v->count; i++) {
		if (v->group[i] == 0)
			ha = v2_add(ha, v2(v->hx[i], v->hy[i]));
		else
			hb = v2_add(hb, v2(v->hx[i], v->hy[i]));
	}
	ha = v2_norm(ha);
	hb = v2_norm(hb);
	/* Had they flocked together the headings would have merged towards 45 degrees. */
	CHECK(fabs(v2_dot(ha, hb)) < 0.3, "the groups' headings merged: cos %.2f", v2_dot(ha, hb));
	steer_world_destroy(w);
}

/* A sight so small (a subnormal) that a world is infinitely many of its cells across:
 * the grid settles on its cap of cells at once, and a world of such flockers steps
 * (halving an infinite count of cells never ended). */
static void subnormal_sight_builds_a_grid(void)
{
	steer_grid g;
	steer_grid_init(&g);
	double px[3] = {1, 500, 999}, py[3] = {1, 500, 999};
	CHECK(steer_grid_build(&g, 1000, 1000, true, 1e-320, 3, px, py, NULL, 0) == STEER_OK,
	      "grid build failed");
	CHECK((double)g.nx * g.ny <= 64 + 4 * 3, "%d x %d cells for 3 points", g.nx, g.ny);
	CHECK(g.count == 3, "%zu of 3 points indexed", g.count);
	steer_grid_free(&g);

	steer_world *w = make_world(1000, 1000, STEER_EDGE_WRAP, 3);
	steer_params p = steer_flock_params();
	p.sight_distance = 1e-320;
	for (int k = 0; k < 3; k++) {
		uint32_t id = add_vehicle(w, px[k], py[k], 1, 0, &p);
		steer_vehicle_enable(w, id, STEER_FLOCK, true);
	}
	step(w, 3);
	CHECK(steer_world_tick(w) == 3, "the world did not step");
	steer_world_destroy(w);
}

/* Flockers may see 0 (steer_params_check allows it): the world still indexes them,
 * so that their scan walks a grid of this tick, not none or a stale one whose
 * slots are gone. */
static void zero_sight_flockers_step(void)
{
	steer_params far = steer_flock_params(), blind = far;
	blind.sight_distance = 0;
	blind.too_close_distance = 0;
	/* In a world that never had a grid. */
	steer_world *w = make_world(500, 500, STEER_EDGE_BOUNCE, 4);
	steer_vehicle_enable(w, add_vehicle(w, 50, 50, 3, 0, &blind), STEER_FLOCK, true);
	step(w, 3);
	CHECK(world_finite(w), "a blind boid left the world finite");
	steer_world_destroy(w);
	/* In one whose last grid indexed vehicles since removed. */
	w = make_world(500, 500, STEER_EDGE_WRAP, 4);
	uint32_t gone[40];
	for (int k = 0; k < 40; k++) {
		gone[k] = add_vehicle(w, 12.5 * k, 6.0 * k, 10, 0, &far);
		steer_vehicle_enable(w, gone[k], STEER_FLOCK, true);
	}
	step(w, 2); /* a grid over these 40 */
	for (int k = 0; k < 40; k++)
		CHECK(steer_remove(w, gone[k]) == STEER_OK, "remove %d", k);
	for (int k = 0; k < 3; k++) {
		uint32_t id = add_vehicle(w, 100 + (k == 2 ? 200 : 0), 100, 5, 0, &blind);
		steer_vehicle_enable(w, id, STEER_FLOCK, true);
	}
	step(w, 20);
	CHECK(world_finite(w), "a blind flock left the world finite");
	CHECK(steer_world_vehicles(w)->count == 3, "count %zu", steer_world_vehicles(w)->count);
	steer_world_destroy(w);
}

static void grid_query_matches_all_pairs(void)
{
	steer_rng rng;
	steer_rng_seed(&rng, 2024, 3);
	enum { N = 600 };
	static double px[N], py[N];
	static uint32_t flags[N], got[N], want[N];
	steer_grid g;
	steer_grid_init(&g);
	int mismatches = 0;
	for (int round = 0; round < 200; round++) {
		bool wrap = round % 2 == 0;
		double W = steer_rng_range(&rng, 50, 2000), H = steer_rng_range(&rng, 50, 2000);
		double cell = steer_rng_range(&rng, 1, 400);
		size_t n = 1 + steer_rng_u32(&rng) % N;
		for (size_t i = 0; i < n; i++) {
			/* Without wrap, some points lie outside the bounds (edges "none"). */
			double m = wrap ? 0 : 0.3;
			px[i] = steer_rng_range(&rng, -m * W, W * (1 + m));
			py[i] = steer_rng_range(&rng, -m * H, H * (1 + m));
			/* Put some right on the seams. */
			if (i % 17 == 0)
				px[i] = wrap ? 0 : W;
			flags[i] = (steer_rng_u32(&rng) & 3) ? STEER_FLOCK : STEER_SEEK;
		}
		if (steer_grid_build(&g, W, H, wrap, cell, n, px, py, flags, STEER_FLOCK) !=
		    STEER_OK) {
			CHECK(0, "grid build failed");
			break;
		}
		for (int q = 0; q < 20; q++) {
			double x = steer_rng_range(&rng, 0, W), y = steer_rng_range(&rng, 0, H);
			if (q == 0)
				x = W - 1e-9; /* a query hugging the seam */
			double r = q < 15 ? steer_rng_range(&rng, 0, cell)
			                  : steer_rng_range(&rng, 0, 3 * cell);
			size_t ng = steer_grid_query(&g, px, py, W, H, x, y, r, got, N), nw = 0;
			for (size_t i = 0; i < n; i++) {
				if (!(flags[i] & STEER_FLOCK))
					continue;
				double dx = px[i] - x, dy = py[i] - y;
				if (wrap) {
					dx = dx > W / 2 ? dx - W : dx < -W / 2 ? dx + W : dx;
					dy = dy > H / 2 ? dy - H : dy < -H / 2 ? dy + H : dy;
				}
				if (dx * dx + dy * dy <= r * r)
					want[nw++] = (uint32_t)i;
			}
			qsort(got, ng, sizeof *got, cmp_u32);
			if (ng != nw || memcmp(got, want, nw * sizeof *got) != 0)
				mismatches++;
		}
	}
	CHECK(mismatches == 0, "%d of 4000 queries differed from all-pairs", mismatches);
	steer_grid_free(&g);
}

/* The same 300 boids and 20 wanderers in an 800 x 800 world, inserted in the order
 * insert[0 .. 319] gives (vehicle k has id k + 1 whatever the order); with churn,
 * extra vehicles are added and removed first so the arrays' history differs. Some
 * boids also wander, and some see less far: their forces take the batched path,
 * the others the plain flockers' one. */
static steer_world *ordered_world(const int *insert, bool churn)
{
	steer_world *w = make_world(800, 800, STEER_EDGE_WRAP, 11);
	steer_params p = steer_flock_params();
	/* Slow enough that storage stays out of grid order for a while (see
	 * storage_out_of_grid_order_gives_the_same_bits). */
	p.cruise_speed = 0;
	steer_params shortsighted = p;
	shortsighted.sight_distance = 70;
	if (churn)
		for (int k = 0; k < 50; k++)
			add_vehicle(w, k, k, 1, 0, &p);
	steer_rng rng;
	steer_rng_seed(&rng, 3, 3);
	double xs[320], ys[320], hs[320];
	for (int k = 0; k < 320; k++) {
		xs[k] = steer_rng_range(&rng, 0, 800);
		ys[k] = steer_rng_range(&rng, 0, 800);
		hs[k] = steer_rng_range(&rng, 0, STEER_TAU);
	}
	steer_world_reset(w); /* ids from 1 again, whatever came before */
	for (int n = 0; n < 320; n++) {
		int k = insert[n];
		steer_vehicle_record r;
		memset(&r, 0, sizeof r);
		r.id = (uint32_t)k + 1;
		r.prm = k % 5 == 2 ? shortsighted : p;
		r.pos = v2(xs[k], ys[k]);
		r.vel = v2(cos(hs[k]) * 30, sin(hs[k]) * 30);
		r.heading = v2_norm(r.vel);
		r.behaviors = k < 300 ? STEER_FLOCK : STEER_WANDER;
		if (k % 7 == 3)
			r.behaviors |= STEER_WANDER;
		if (steer_vehicle_restore(w, &r) != STEER_OK)
			abort();
	}
	return w;
}

/* Every vehicle of two ordered_worlds, bit for bit. */
static int ordered_differ(const steer_world *a, const steer_world *b)
{
	int differ = 0;
	for (uint32_t id = 1; id <= 320; id++) {
		steer_vec2 pa = pos(a, id), pb = pos(b, id), va = vel(a, id), vb = vel(b, id);
		differ += memcmp(&pa, &pb, sizeof pa) != 0 || memcmp(&va, &vb, sizeof va) != 0;
	}
	return differ;
}

static void storage_order_does_not_change_the_result(void)
{
	int forward[320], reverse[320];
	for (int k = 0; k < 320; k++) {
		forward[k] = k;
		reverse[k] = 319 - k;
	}
	steer_world *a = ordered_world(forward, false), *b = ordered_world(reverse, true);
	step(a, 500);
	step(b, 500);
	int differ = ordered_differ(a, b);
	CHECK(differ == 0, "%d of 320 vehicles differ between two insertion orders", differ);
	steer_world_destroy(a);
	steer_world_destroy(b);
}

static const double *row_sort_x, *row_sort_y;

static int by_row_then_x(const void *pa, const void *pb)
{
	int a = *(const int *)pa, b = *(const int *)pb;
	double ra = floor(row_sort_y[a] / 100), rb = floor(row_sort_y[b] / 100);
	if (ra != rb)
		return ra < rb ? -1 : 1;
	return (row_sort_x[a] > row_sort_x[b]) - (row_sort_x[a] < row_sort_x[b]);
}

/* Storage near grid order is not re-sorted each tick (a re-sort costs more than the
 * scattered reads it saves): the scans then walk neighbours through the grid, and
 * the sums must not depend on which slot holds whom. Two worlds stored row by row,
 * one with every pair of neighbouring slots swapped, stay stored differently for
 * 200 ticks, and must move as a world stored at random (re-sorted on its first
 * tick) does. */
static void storage_out_of_grid_order_gives_the_same_bits(void)
{
	int forward[320], rows[320], swapped[320];
	for (int k = 0; k < 320; k++)
		forward[k] = rows[k] = k;
	steer_world *ref = ordered_world(forward, false);
	double xs[320], ys[320];
	for (int k = 0; k < 320; k++) {
		steer_vec2 p = pos(ref, (uint32_t)k + 1);
		xs[k] = p.x;
		ys[k] = p.y;
	}
	row_sort_x = xs;
	row_sort_y = ys;
	qsort(rows, 320, sizeof rows[0], by_row_then_x); /* wanderers among the boids */
	for (int k = 0; k < 320; k++)
		swapped[k] = rows[k ^ 1];
	steer_world *a = ordered_world(rows, false), *b = ordered_world(swapped, false);
	step(ref, 200);
	step(a, 200);
	step(b, 200);
	const steer_vehicles *va = steer_world_vehicles(a), *vb = steer_world_vehicles(b);
	int boids_apart = 0;
	for (size_t i = 0; i < va->count; i++)
		boids_apart += va->id[i] != vb->id[i] && va->id[i] <= 300 && vb->id[i] <= 300;
	CHECK(boids_apart > 0, "both worlds were re-sorted into the same storage order: the "
	                       "test needs worlds whose boids are stored differently");
	int differ = ordered_differ(ref, a);
	CHECK(differ == 0, "%d of 320 vehicles differ when stored row by row", differ);
	differ = ordered_differ(ref, b);
	CHECK(differ == 0, "%d of 320 vehicles differ when stored with pairs swapped", differ);
	steer_world_destroy(ref);
	steer_world_destroy(a);
	steer_world_destroy(b);
}

/* How lane_workout's boids are parameterised. */
typedef enum lane_mix {
	MIX_EACH,   /* every boid its own mix: lane groups rarely share a parameter set */
	MIX_ONE,    /* one set, field of view on: the common world, one group */
	MIX_HALVES, /* two sets without a field of view, one group west, one east */
} lane_mix;

/* A world that reaches every branch of the lane code: groups, boids with and without
 * a field of view, a cap or cruise, several sight distances, a crowd past its cap, boids on
 * exactly the same point (the separation tie-break), wanderers among the flock; and
 * lane groups of plain flockers sharing a parameter set, with one group or two. */
static steer_world *lane_workout(steer_edges edges, lane_mix mix)
{
	steer_world *w = make_world(2400, 1600, edges, 21);
	steer_rng *rng = steer_world_rng(w);
	for (int k = 0; k < 4000; k++) {
		steer_params p = steer_flock_params();
		if (mix == MIX_EACH) {
			p.field_of_view = k % 3 != 0;
			p.group = (uint32_t)(k % 4 == 0);
			p.sight_distance = 60 + (k % 3) * 20;
			p.max_neighbours = k % 7 == 0 ? 5 : k % 7 == 1 ? 0 : 48;
			p.combine = k % 13 == 0 ? STEER_COMBINE_PRIORITY : STEER_COMBINE_SUM;
			p.cruise_speed = k % 6 == 0 ? 0 : 25 + k % 4 * 10;
			p.cruise_weight = k % 5 == 1 ? 2.5 : 1;
		}
		bool crowd = k % 4 == 1;
		double x =
		    crowd ? 1200 + steer_rng_range(rng, -40, 40) : steer_rng_range(rng, 0, 2400);
		double y =
		    crowd ? 800 + steer_rng_range(rng, -40, 40) : steer_rng_range(rng, 0, 1600);
		if (k % 40 == 1)
			x = 1200, y = 800;
		if (mix == MIX_HALVES) {
			p.field_of_view = false;
			p.group = x < 1200;
			if (x < 1200) /* the west without cruise */
				p.cruise_speed = 0;
		}
		uint32_t id = add_vehicle(w, x, y, steer_rng_range(rng, -30, 30),
		                          steer_rng_range(rng, -30, 30), &p);
		bool wander = mix == MIX_EACH && k % 5 == 0;
		steer_vehicle_enable(w, id, STEER_FLOCK | (wander ? STEER_WANDER : 0u), true);
	}
	/* Drifters a hair left of and above the origin each tick: wrapping, x - W floor(x/W)
	 * rounds to W itself and must become 0. Eight, so that several share a lane group. */
	steer_params still = steer_params_default();
	for (int k = 0; k < 8; k++)
		add_vehicle(w, 0, 0, -6e-14, -6e-14, &still);
	return w;
}

/* In every kind of world, each lane form this CPU has (AVX2, AVX-512) against the
 * scalar form: the lanes also move vehicles and keep them inside. */
/* Ticks each lane workout runs: odd, for a drifter wrongly left at W would be there.
 * The sanitizer build runs them about twenty times slower: fewer there. */
#ifdef __SANITIZE_ADDRESS__
#define LANE_TICKS  11
#define AVOID_TICKS 21
#else
#define LANE_TICKS  151
#define AVOID_TICKS 61
#endif

static void vector_lanes_give_the_scalar_bits(void)
{
	steer_edges kinds[3] = {STEER_EDGE_WRAP, STEER_EDGE_BOUNCE, STEER_EDGE_NONE};
	const char *mixes[3] = {"mixed", "one-set", "two-group"};
	steer_simd_level best = steer_simd_best();
	for (int mix = MIX_EACH; mix <= MIX_HALVES; mix++)
		for (int e = 0; e < 3; e++) {
			steer_world *scalar = lane_workout(kinds[e], (lane_mix)mix);
			CHECK(steer_world_set_simd(scalar, STEER_SIMD_SCALAR) == STEER_SIMD_SCALAR,
			      "the scalar form is always there");
			step(scalar, LANE_TICKS);
			for (int level = STEER_SIMD_AVX2; level <= (int)best; level++) {
				steer_world *w = lane_workout(kinds[e], (lane_mix)mix);
				CHECK(steer_world_set_simd(w, (steer_simd_level)level) ==
				              (steer_simd_level)level &&
				          steer_world_simd(w) == (steer_simd_level)level,
				      "the CPU has %s", steer_simd_name((steer_simd_level)level));
				step(w, LANE_TICKS);
				CHECK(same_state_bits(scalar, w),
				      "%s %s world: the %s lanes differ from the scalar form",
				      mixes[mix], steer_edges_name(kinds[e]),
				      steer_simd_name((steer_simd_level)level));
				steer_world_destroy(w);
			}
			steer_world_destroy(scalar);
		}
}

/* lane_workout's world with every third boid avoiding, among circles (one moving)
 * and a wall: the avoiders' forces start from lane-formed flock sums. */
static steer_world *avoiding_workout(steer_edges edges)
{
	steer_world *w = lane_workout(edges, MIX_EACH);
	const steer_vehicles *v = steer_world_vehicles(w);
	for (size_t i = 0; i < v->count; i += 3)
		steer_vehicle_enable(w, v->id[i], STEER_AVOID, true);
	steer_obstacle_add(w, v2(1200, 700), v2(0, 0), 30, NULL);
	steer_obstacle_add(w, v2(600, 400), v2(20, 10), 40, NULL);
	steer_wall_add(w, v2(1500, 300), v2(1700, 1300), NULL);
	return w;
}

static void avoiders_give_the_scalar_bits(void)
{
	steer_edges kinds[3] = {STEER_EDGE_WRAP, STEER_EDGE_BOUNCE, STEER_EDGE_NONE};
	for (int e = 0; e < 3; e++) {
		steer_world *scalar = avoiding_workout(kinds[e]);
		steer_world_set_simd(scalar, STEER_SIMD_SCALAR);
		step(scalar, AVOID_TICKS);
		for (int level = STEER_SIMD_AVX2; level <= (int)steer_simd_best(); level++) {
			steer_world *w = avoiding_workout(kinds[e]);
			steer_world_set_simd(w, (steer_simd_level)level);
			step(w, AVOID_TICKS);
			CHECK(same_state_bits(scalar, w),
			      "avoiding %s world: %s differs from scalar",
			      steer_edges_name(kinds[e]), steer_simd_name((steer_simd_level)level));
			steer_world_destroy(w);
		}
		steer_world_destroy(scalar);
	}
}

/* A world caps its own lanes: another world's cap changes nothing in it, and a cap
 * above what the CPU has gives the CPU's best. */
static void the_simd_cap_is_the_worlds(void)
{
	steer_world *a = make_world(1000, 1000, STEER_EDGE_WRAP, 3);
	steer_world *b = make_world(1000, 1000, STEER_EDGE_WRAP, 3);
	CHECK(steer_world_simd(a) == steer_simd_best(), "a new world takes the CPU's best (%s)",
	      steer_simd_name(steer_world_simd(a)));
	CHECK(steer_world_set_simd(b, STEER_SIMD_SCALAR) == STEER_SIMD_SCALAR, "capped to scalar");
	CHECK(steer_world_simd(a) == steer_simd_best() && steer_world_simd(b) == STEER_SIMD_SCALAR,
	      "one world's cap moved another's: %s and %s", steer_simd_name(steer_world_simd(a)),
	      steer_simd_name(steer_world_simd(b)));
	CHECK(steer_world_set_simd(b, STEER_SIMD_AVX512) == steer_simd_best(),
	      "uncapped: the CPU's best");
	steer_world_destroy(a);
	steer_world_destroy(b);
}

/* A lane's sums do not depend on the cells its lane group spans (so not on how many
 * lanes a group has, which differs between CPUs). The world below is one where
 * W * 2 / sight rounds up to 38: without the grid's margin its columns would be a
 * hair under half a sight wide, and a neighbour exactly at sight distance would lie
 * three columns off, beyond the lane's own block but inside the block of a group
 * that spans one more cell. (Found by search; the values are exact doubles.) */
static void a_lanes_sums_do_not_depend_on_its_group(void)
{
	const double sight = 0x1.4a290c17b871ep+7, size = 0x1.8810be5c2b073p+11;
	const double xl = 0x1.4a290c17b871cp+7, xc = 0x1.4a290c17b871dp+8;
	steer_world *w = make_world(size, size, STEER_EDGE_WRAP, 5);
	steer_params p = steer_flock_params();
	p.sight_distance = sight;
	uint32_t lane = add_vehicle(w, xl, 1000, 1, 0, &p);
	add_vehicle(w, xc, 1000, 0, 1, &p);
	/* Enough others, far from these two, for the grid's full resolution. */
	for (int k = 0; k < 400; k++)
		add_vehicle(w, 30 + 7 * k, 2000 + (k % 5) * 150, -1, 0, &p);
	const steer_vehicles *v = steer_world_vehicles(w);
	steer_grid g;
	steer_grid_init(&g);
	g.reach_x = 2;
	CHECK(steer_grid_build(&g, size, size, true, sight, v->count, v->px, v->py, NULL, 0) ==
	          STEER_OK,
	      "grid build failed");
	size_t i = (size_t)steer_vehicle_index(w, lane), first = 0;
	while (g.items[first] != i)
		first++;
	int cx = steer_grid_axis_index(xl, g.cw, g.nx),
	    cy = steer_grid_axis_index(1000, g.ch, g.ny);
	CHECK(cx == 1, "the lane is in column %d", cx);
	steer_agent a = {v2(v->vx[i], v->vy[i]), v2(v->hx[i], v->hy[i]), &p};
	steer_flock_query q = steer_flock_query_at(v, i, &a);
	double *fx = calloc(v->count, sizeof *fx), *fy = calloc(v->count, sizeof *fy);
	CHECK(fx && fy, "out of memory");
	int forms;
	const steer_kernel *const *form = steer_kernel_forms(&forms);
	const int want_forms[3] = {1, 2, 4}; /* AVX-512 has its narrow form too */
	CHECK(forms == want_forms[steer_simd_best()], "%d kernel forms for %s", forms,
	      steer_simd_name(steer_simd_best()));
	for (int level = 0; fx && fy && level < forms; level++) { /* level: the form's index */
		const steer_kernel *k = form[level];
		steer_flock_sums own, wide;
		steer_flock_runs runs;
		uint32_t cell = (uint32_t)(cy * g.nx + cx);
		CHECK(steer_flock_cell_runs(&g, size, size, cell, 1, &runs), "no runs");
		steer_flock_scan_lanes(k, v, &runs, true, &q, first, 1, NULL, &own);
		/* The forms that read plain flockers straight from the arrays, too. */
		steer_flock_forces_at(k, v, &runs, true, first, 1, &p, 0.1, NULL, fx, fy);
		steer_vec2 own_force = v2(fx[i], fy[i]);
		/* Groups from this cell or the one before (the row's first), of 2 to 4 cells. */
		for (int span = 0; span < 6; span++) {
			int from = span % 2 ? -1 : 0, cells = 2 + span / 2;
			CHECK(steer_flock_cell_runs(&g, size, size, cell + (uint32_t)from, cells,
			                            &runs),
			      "no runs");
			steer_flock_scan_lanes(k, v, &runs, true, &q, first, 1, NULL, &wide);
			CHECK(own.n == 1 && wide.n == own.n && !memcmp(&own, &wide, sizeof own),
			      "form %d, group of %d cells from %+d: %u and %u neighbours", level,
			      cells, from, own.n, wide.n);
			steer_flock_forces_at(k, v, &runs, true, first, 1, &p, 0.1, NULL, fx, fy);
			steer_vec2 f = v2(fx[i], fy[i]);
			CHECK(
			    own_force.x != 0 && !memcmp(&own_force, &f, sizeof f),
			    "form %d, group of %d cells from %+d: force (%g, %g) against (%g, %g)",
			    level, cells, from, f.x, f.y, own_force.x, own_force.y);
		}
	}
	free(fx);
	free(fy);
	steer_grid_free(&g);
	steer_world_destroy(w);
}

/* Whether every flocker shares a group is kept between ticks (the lanes skip the
 * group test when so): a boid moved to another group stops seeing its flock on the
 * next tick, and one moved back sees it again, at every SIMD level. */
static void a_changed_group_is_seen_next_tick(void)
{
	for (int level = STEER_SIMD_SCALAR; level <= (int)steer_simd_best(); level++) {
		steer_world *w = make_world(1000, 1000, STEER_EDGE_WRAP, 9);
		steer_world_set_simd(w, (steer_simd_level)level);
		steer_params p = steer_flock_params();
		uint32_t ids[12];
		for (int k = 0; k < 12; k++) {
			ids[k] = add_vehicle(w, 500 + 8 * (k % 4), 500 + 8 * (k / 4), 5, 0, &p);
			steer_vehicle_enable(w, ids[k], STEER_FLOCK, true);
		}
		step(w, 1);
		const steer_vehicles *v = steer_world_vehicles(w);
		size_t i = (size_t)steer_vehicle_index(w, ids[5]);
		CHECK(v->fx[i] != 0 || v->fy[i] != 0,
		      "level %d: a boid in its flock feels no force", level);
		steer_params alone = p;
		alone.group = 1;
		CHECK(steer_vehicle_set_params(w, ids[5], &alone) == STEER_OK, "set params");
		/* Alone it has no flock parts, only cruise's. */
		steer_vec2 parts[STEER_PART_COUNT];
		uint32_t mask = 0;
		steer_agent a = {v2(v->vx[i], v->vy[i]), v2(v->hx[i], v->hy[i]), &alone};
		steer_cruise_part(&a, parts, &mask);
		steer_vec2 want = steer_combine_parts(parts, mask, &alone, steer_world_dt(w));
		step(w, 1);
		i = (size_t)steer_vehicle_index(w, ids[5]);
		CHECK(mask && v->fx[i] == want.x && v->fy[i] == want.y,
		      "level %d: alone in its group it still flocks (force %g, %g; cruise %g, %g)",
		      level, v->fx[i], v->fy[i], want.x, want.y);
		CHECK(steer_vehicle_set_params(w, ids[5], &p) == STEER_OK, "set params");
		step(w, 1);
		i = (size_t)steer_vehicle_index(w, ids[5]);
		CHECK(v->fx[i] != 0 || v->fy[i] != 0,
		      "level %d: back in its group it feels nothing", level);
		steer_world_destroy(w);
	}
}

/* Boids given a second behaviour leave the plain lanes, whose forces are flocking
 * alone, on the next tick: the world keeps whether every flocker is plain between
 * ticks, and each way of adding a behaviour must tell it. Two worlds step alike;
 * then one boid of the first gets a behaviour, and on the next tick its force
 * differs from its twin's while every other boid's is the same. */
static void a_boid_given_a_behaviour_leaves_the_plain_lanes(void)
{
	for (int level = STEER_SIMD_SCALAR; level <= (int)steer_simd_best(); level++) {
		for (int how = 0; how < 3; how++) {
			steer_world *w[2];
			uint32_t ids[2][12];
			steer_params p = steer_flock_params();
			for (int k = 0; k < 2; k++) {
				w[k] = make_world(1000, 1000, STEER_EDGE_WRAP, 9);
				steer_world_set_simd(w[k], (steer_simd_level)level);
				for (int b = 0; b < 12; b++) {
					ids[k][b] = add_vehicle(w[k], 500 + 8 * (b % 4),
					                        500 + 8 * (b / 4), 5, 0, &p);
					steer_vehicle_enable(w[k], ids[k][b], STEER_FLOCK, true);
				}
				step(w[k], 1);
			}
			steer_status st =
			    how == 0
			        ? steer_vehicle_target(w[0], ids[0][5], STEER_SEEK, v2(900, 100))
			    : how == 1
			        ? steer_vehicle_path_add(w[0], ids[0][5], v2(900, 100))
			        : steer_vehicle_chase(w[0], ids[0][5], STEER_PURSUE, ids[0][11]);
			CHECK(st == STEER_OK, "level %d way %d: behaviour added", level, how);
			step(w[0], 1);
			step(w[1], 1);
			const steer_vehicles *a = steer_world_vehicles(w[0]);
			const steer_vehicles *b = steer_world_vehicles(w[1]);
			for (int k = 0; k < 12; k++) {
				size_t i = (size_t)steer_vehicle_index(w[0], ids[0][k]);
				size_t j = (size_t)steer_vehicle_index(w[1], ids[1][k]);
				bool same = a->fx[i] == b->fx[j] && a->fy[i] == b->fy[j];
				CHECK(same == (k != 5),
				      "level %d way %d: boid %d's force %s its twin's", level, how,
				      k, same ? "is" : "is not");
			}
			steer_world_destroy(w[0]);
			steer_world_destroy(w[1]);
		}
	}
}

static void max_neighbours_keeps_the_nearest_cell(void)
{
	/* One boid, a neighbour in its own cell heading north, and a crowd in the rows
	 * above and below heading south. Capped at one neighbour it aligns north. Boids
	 * far away make enough members for the grid's full resolution (see
	 * steer_grid_build): rows a little more than a sight tall, nine of 111. */
	double fy[2];
	for (int capped = 0; capped < 2; capped++) {
		steer_world *w = make_world(1000, 1000, STEER_EDGE_WRAP, 1);
		steer_params p = steer_params_default();
		p.sight_distance = 100;
		p.too_close_distance = 0;
		p.cohesion_weight = 0;
		p.max_neighbours = capped ? 1 : 0;
		uint32_t me = add_vehicle(w, 550, 500, 1e-3, 0, &p);
		uint32_t mate = add_vehicle(w, 560, 510, 0, -50, &p);
		steer_vehicle_enable(w, me, STEER_FLOCK, true);
		steer_vehicle_enable(w, mate, STEER_FLOCK, true);
		for (int k = 0; k < 6; k++) {
			uint32_t o = add_vehicle(w, 520 + 10 * k, k % 2 ? 430 : 575, 0, 50, &p);
			steer_vehicle_enable(w, o, STEER_FLOCK, true);
		}
		for (int k = 0; k < 30; k++) {
			uint32_t o = add_vehicle(w, 30 * k, 100, 0, 50, &p);
			steer_vehicle_enable(w, o, STEER_FLOCK, true);
		}
		step(w, 1);
		fy[capped] = steer_world_vehicles(w)->fy[steer_vehicle_index(w, me)];
		steer_world_destroy(w);
	}
	CHECK(fy[0] > 0, "uncapped: the crowd should pull it south (fy %g)", fy[0]);
	CHECK(fy[1] < 0, "capped at one: its cell-mate should pull it north (fy %g)", fy[1]);
}

/* A boid with a field of view on the rim of a crowd, facing out: its own cell holds
 * crowd members behind it, the row below a mate ahead. With max_neighbours 4 it looks
 * at no more than 16 candidates within sight (STEER_FLOCK_LOOK_FACTOR): past 16 or 20
 * behind it, it never reaches the mate, at every lane width; past 15 or 10 it does,
 * as it does with no cap. */
static void a_boid_facing_out_of_a_crowd_stops_looking(void)
{
	const struct {
		int behind;
		uint32_t cap;
		bool sees_mate;
	} cases[] = {{20, 4, false}, {16, 4, false}, {15, 4, true}, {10, 4, true}, {20, 0, true}};
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
		for (int level = STEER_SIMD_SCALAR; level <= (int)steer_simd_best(); level++) {
			steer_world *w = make_world(1000, 1000, STEER_EDGE_WRAP, 1);
			steer_world_set_simd(w, (steer_simd_level)level);
			steer_params p = steer_params_default();
			p.sight_distance = 100;
			p.too_close_distance = 0;
			p.cohesion_weight = 0;
			p.field_of_view = true;
			p.max_neighbours = cases[c].cap;
			uint32_t me = add_vehicle(w, 550, 500, 1, 0, &p);
			steer_vehicle_enable(w, me, STEER_FLOCK, true);
			for (int k = 0; k < cases[c].behind; k++) {
				uint32_t o = add_vehicle(w, 548 - 2 * k, 500, 0, -50, &p);
				steer_vehicle_enable(w, o, STEER_FLOCK, true);
			}
			uint32_t mate = add_vehicle(w, 560, 575, 0, 50, &p);
			steer_vehicle_enable(w, mate, STEER_FLOCK, true);
			for (int k = 0; k < 30; k++) { /* the grid's full resolution */
				uint32_t o = add_vehicle(w, 30 * k, 100, 0, 50, &p);
				steer_vehicle_enable(w, o, STEER_FLOCK, true);
			}
			step(w, 1);
			double fy = steer_world_vehicles(w)->fy[steer_vehicle_index(w, me)];
			CHECK(cases[c].sees_mate ? fy > 0 : fy == 0,
			      "%s, %d behind, max_neighbours %u: fy %g, the mate %s",
			      steer_simd_name((steer_simd_level)level), cases[c].behind,
			      cases[c].cap, fy, cases[c].sees_mate ? "unseen" : "seen");
			steer_world_destroy(w);
		}
}

/* The grid's answer against every pair tested the slow way, one step of forces, in
 * worlds small enough that many neighbourhoods cross the wrap seams: one so narrow
 * that its vehicles take the per-vehicle walk, one where lane groups of one and two
 * cells walk blocks across the seams. */
static void flock_forces_match_all_pairs(void)
{
	const double sizes[2][2] = {{420, 330}, {730, 460}};
	for (int world = 0; world < 4; world++) {
		int edges = world % 2;
		double W = sizes[world / 2][0], H = sizes[world / 2][1];
		steer_world *w = make_world(W, H, edges ? STEER_EDGE_BOUNCE : STEER_EDGE_WRAP, 9);
		steer_rng *rng = steer_world_rng(w);
		steer_params p = steer_flock_params();
		p.max_neighbours = 0; /* dense: a cap would (rightly) drop some */
		for (int k = 0; k < 300; k++) {
			p.group = (uint32_t)(k % 3 == 0);
			p.field_of_view = k % 2;
			p.sight_distance = k % 5 ? 100 : 70;
			p.cruise_speed = k % 4 ? 40 : 0;
			uint32_t id = add_vehicle(
			    w, steer_rng_range(rng, 0, W), steer_rng_range(rng, 0, H),
			    steer_rng_range(rng, -50, 50), steer_rng_range(rng, -50, 50), &p);
			steer_vehicle_enable(w, id, STEER_FLOCK, true);
		}
		const steer_vehicles *v = steer_world_vehicles(w);
		size_t n = v->count;
		double *want_x = calloc(n + 1, sizeof(double)),
		       *want_y = calloc(n + 1, sizeof(double));
		for (size_t i = 0; i < n; i++) {
			const steer_params *pi = steer_vehicle_params_at(w, i);
			steer_agent a = {v2(v->vx[i], v->vy[i]), v2(v->hx[i], v->hy[i]), pi};
			steer_vec2 sep = v2(0, 0), sd = v2(0, 0), sv = v2(0, 0);
			int m = 0;
			for (size_t j = 0; j < n; j++) {
				steer_vec2 d = steer_world_delta(w, v2(v->px[i], v->py[i]),
				                                 v2(v->px[j], v->py[j]));
				double d2 = v2_len2(d);
				if (j == i || v->group[j] != v->group[i] ||
				    d2 > pi->sight_distance * pi->sight_distance ||
				    (pi->field_of_view && v2_dot(d, a.h) < 0))
					continue;
				m++;
				sd = v2_add(sd, d);
				sv = v2_add(sv, v2(v->vx[j], v->vy[j]));
				if (d2 < pi->too_close_distance * pi->too_close_distance)
					sep = v2_add(sep,
					             steer_separate_one(&a, d, v->id[i], v->id[j]));
			}
			steer_vec2 parts[STEER_PART_COUNT];
			uint32_t mask = 0;
			if (m) {
				parts[STEER_PART_SEPARATION] = v2_scale(sep, pi->separation_weight);
				parts[STEER_PART_COHESION] = v2_scale(
				    steer_cohere(&a, v2_scale(sd, 1.0 / m)), pi->cohesion_weight);
				parts[STEER_PART_ALIGNMENT] = v2_scale(
				    steer_align(&a, v2_scale(sv, 1.0 / m)), pi->alignment_weight);
				mask = (1u << STEER_PART_SEPARATION) | (1u << STEER_PART_COHESION) |
				       (1u << STEER_PART_ALIGNMENT);
			}
			if (pi->cruise_speed > 0) { /* with or without neighbours */
				double speed = sqrt(v->vx[i] * v->vx[i] + v->vy[i] * v->vy[i]);
				parts[STEER_PART_CRUISE] = v2_scale(
				    v2_scale(a.h, pi->cruise_speed - speed), pi->cruise_weight);
				mask |= 1u << STEER_PART_CRUISE;
			}
			steer_vec2 f = steer_combine_parts(parts, mask, pi, steer_world_dt(w));
			want_x[v->id[i]] = f.x;
			want_y[v->id[i]] = f.y;
		}
		step(w, 1);
		int wrong = 0;
		for (size_t i = 0; i < n; i++)
			wrong += fabs(v->fx[i] - want_x[v->id[i]]) > 1e-6 ||
			         fabs(v->fy[i] - want_y[v->id[i]]) > 1e-6;
		CHECK(wrong == 0, "%s %.0f x %.0f: %d of %zu forces differ from the all-pairs rule",
		      edges ? "bounce" : "wrap", W, H, wrong, n);
		free(want_x);
		free(want_y);
		steer_world_destroy(w);
	}
}

/* steer_world_flock_health over flockers only, and `stats` reporting it. */
static void flock_health_counts_flockers_only(void)
{
	steer_world *w = make_world(1000, 1000, STEER_EDGE_WRAP, 1);
	steer_flock_health h = steer_world_flock_health(w);
	CHECK(h.flockers == 0 && h.mean_speed == 0 && h.polarization == 0,
	      "empty world: %zu flockers, speed %g, polarization %g", h.flockers, h.mean_speed,
	      h.polarization);
	steer_params p = steer_params_default();
	/* Speeds 3, 6 (a 3-4-5 triangle scaled) and 9 along +x, +x and -x. */
	uint32_t a = add_vehicle(w, 100, 100, 3, 0, &p);
	uint32_t b = add_vehicle(w, 300, 100, 3.6, 4.8, &p);
	uint32_t c = add_vehicle(w, 500, 100, -9, 0, &p);
	uint32_t fast = add_vehicle(w, 700, 100, 0, 90, &p); /* not a flocker */
	steer_vehicle_enable(w, fast, STEER_WANDER, true);
	h = steer_world_flock_health(w);
	CHECK(h.flockers == 0, "%zu flockers before any flocks", h.flockers);
	for (uint32_t id = a; id <= c; id++)
		steer_vehicle_enable(w, id, STEER_FLOCK | (id == c ? STEER_SEEK : 0u), true);
	h = steer_world_flock_health(w);
	/* Headings (1, 0), (0.6, 0.8), (-1, 0): mean (0.2, 0.8) / 3. */
	double want = sqrt(0.6 * 0.6 + 0.8 * 0.8) / 3.0;
	CHECK(h.flockers == 3, "%zu flockers", h.flockers);
	CHECK(fabs(h.mean_speed - 6.0) < 1e-12, "mean speed %.17g, want 6", h.mean_speed);
	CHECK(fabs(h.polarization - want) < 1e-12, "polarization %.17g, want %.17g", h.polarization,
	      want);
	/* All one way: 1, whatever the speeds; a stopped boid keeps its heading. */
	steer_vehicle_set_velocity(w, c, v2(0, 0));
	steer_vehicle_set_velocity(w, b, v2(20, 0));
	steer_vehicle_enable(w, c, STEER_FLOCK, false);
	h = steer_world_flock_health(w);
	CHECK(h.flockers == 2 && fabs(h.mean_speed - 11.5) < 1e-12 && h.polarization == 1.0,
	      "%zu flockers, speed %g, polarization %.17g", h.flockers, h.mean_speed,
	      h.polarization);

	/* stats carries the same figures under the names clients plot. */
	steer_session s = {.world = w};
	steer_command cmd;
	char err[128];
	steer_reply r;
	steer_reply_init(&r);
	CHECK(steer_cmd_parse_line(&cmd, "stats", err, sizeof err) == STEER_OK, "%s", err);
	steer_cmd_exec(&cmd, &s, NULL, &r);
	const char *json = r.json.data ? r.json.data : "";
	CHECK(strstr(json, "\"flockers\":2,") && strstr(json, "\"flock_mean_speed\":11.5,") &&
	          strstr(json, "\"flock_polarization\":1"),
	      "stats: %s", json);
	steer_reply_free(&r);
	steer_world_destroy(w);
}

int main(void)
{
	RUN(alignment_and_separation_polarize);
	RUN(all_three_gather_a_scattered_flock);
	RUN(flock_scenario_looks_like_a_flock);
	RUN(groups_flock_separately);
	RUN(grid_query_matches_all_pairs);
	RUN(subnormal_sight_builds_a_grid);
	RUN(zero_sight_flockers_step);
	RUN(flock_forces_match_all_pairs);
	RUN(storage_order_does_not_change_the_result);
	RUN(storage_out_of_grid_order_gives_the_same_bits);
	RUN(vector_lanes_give_the_scalar_bits);
	RUN(avoiders_give_the_scalar_bits);
	RUN(the_simd_cap_is_the_worlds);
	RUN(max_neighbours_keeps_the_nearest_cell);
	RUN(a_boid_facing_out_of_a_crowd_stops_looking);
	RUN(a_lanes_sums_do_not_depend_on_its_group);
	RUN(a_changed_group_is_seen_next_tick);
	RUN(a_boid_given_a_behaviour_leaves_the_plain_lanes);
	RUN(flock_health_counts_flockers_only);
	return CHECK_DONE();
}
