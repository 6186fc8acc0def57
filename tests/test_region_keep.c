/* A world holding one region of a bigger one keeps, of a bulk add, only the vehicles
 * in its region (steer_world_set_region_keep, the core's side of building a world
 * over ranks in place): the ids and draws of the others are spent all the same, and
 * the vehicles it keeps are those a whole world would hold, in the same order. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "scenario.h"
#include "share.h"
#include "steer/world.h"
#include "world_internal.h"

#define N 3000

/* The region: the left half of the world. */
static bool left_half(void *ud, double x, double y)
{
	(void)y;
	return x < *(const double *)ud;
}

static steer_world *world(void)
{
	steer_world_config cfg = steer_world_config_default();
	cfg.width = 1000;
	cfg.height = 800;
	cfg.edges = STEER_EDGE_WRAP;
	cfg.solid = false;
	steer_world *w = steer_world_create(&cfg);
	if (!w)
		abort();
	return w;
}

/* Points over three times the world's width, so that most are wrapped in. */
static void points(steer_vec2 *pos, steer_vec2 *vel, double x0)
{
	uint64_t s = 12345;
	for (int k = 0; k < N; k++) {
		s = s * 6364136223846793005u + 1442695040888963407u;
		double u = (double)(s >> 11) / 9007199254740992.0;
		s = s * 6364136223846793005u + 1442695040888963407u;
		double t = (double)(s >> 11) / 9007199254740992.0;
		pos[k] = v2(x0 + 3000.0 * u, -800.0 + 2400.0 * t);
		vel[k] = v2(30.0 * cos(7.0 * u), 30.0 * sin(7.0 * t));
	}
}

/* The region's vehicles are the whole world's in its region, with their ids, in the
 * same order. */
static void same_as_whole(const steer_world *region, const steer_world *whole, double half)
{
	const steer_vehicles *r = steer_world_vehicles(region), *a = steer_world_vehicles(whole);
	size_t j = 0;
	for (size_t i = 0; i < a->count; i++) {
		if (!(a->px[i] < half))
			continue;
		CHECK(j < r->count, "the region lacks vehicle %u", a->id[i]);
		if (j >= r->count)
			return;
		CHECK(r->id[j] == a->id[i] && r->px[j] == a->px[i] && r->py[j] == a->py[i] &&
		          r->vx[j] == a->vx[i] && r->vy[j] == a->vy[i] && r->hx[j] == a->hx[i] &&
		          r->hy[j] == a->hy[i] && r->behaviors[j] == a->behaviors[i],
		      "place %zu: the region's vehicle %u differs from the whole world's %u", j,
		      r->id[j], a->id[i]);
		CHECK(steer_vehicle_index(region, r->id[j]) == (long)j,
		      "vehicle %u is found at %ld, not %zu", r->id[j],
		      steer_vehicle_index(region, r->id[j]), j);
		j++;
	}
	CHECK(j == r->count, "the region holds %zu vehicles, the whole world %zu in it", r->count,
	      j);
}

static void keeps_only_its_region(void)
{
	static steer_vec2 pos[N], vel[N];
	double half = 500.0;
	steer_region_keep keep = {left_half, &half};
	steer_world *whole = world(), *region = world();
	steer_world_set_region_keep(region, &keep);
	steer_params p = steer_flock_params();
	p.heading_smoothing = 0.3; /* state kept per vehicle */
	uint32_t first_whole = 0, first_region = 0;

	points(pos, vel, -1000.0);
	CHECK(steer_vehicles_add(whole, N, pos, vel, &p, STEER_FLOCK, &first_whole) == STEER_OK,
	      "whole add");
	CHECK(steer_vehicles_add(region, N, pos, vel, &p, STEER_FLOCK, &first_region) == STEER_OK,
	      "region add");
	CHECK(first_whole == 1 && first_region == 1, "first ids %u and %u", first_whole,
	      first_region);
	same_as_whole(region, whole, half);
	size_t kept = steer_world_vehicles(region)->count;
	CHECK(kept > N / 4 && kept < 3 * N / 4, "the region kept %zu of %d", kept, N);
	CHECK(region->extras.count == kept, "%zu vehicles' state for %zu vehicles",
	      region->extras.count, kept);
	uint32_t set = steer_world_vehicles(region)->param_set[0];
	CHECK(region->params.refs[set] == kept, "the set is held %u times by %zu vehicles",
	      region->params.refs[set], kept);

	/* All outside: nothing kept, no parameters held, the ids spent. */
	for (int k = 0; k < N; k++)
		pos[k].x = 600.0 + fmod(fabs(pos[k].x), 300.0);
	p.max_speed = 77.0;
	CHECK(steer_vehicles_add(whole, N, pos, vel, &p, STEER_FLOCK, NULL) == STEER_OK,
	      "whole add");
	CHECK(steer_vehicles_add(region, N, pos, vel, &p, STEER_FLOCK, &first_region) == STEER_OK,
	      "region add");
	CHECK(first_region == N + 1, "second add's first id %u", first_region);
	CHECK(steer_world_vehicles(region)->count == kept, "kept %zu outside its region",
	      steer_world_vehicles(region)->count - kept);
	CHECK(steer_palette_live(&region->params) == 1 && region->params.refs[set] == kept,
	      "%zu parameter sets held, not 1; the first %u times",
	      steer_palette_live(&region->params), region->params.refs[set]);
	CHECK(steer_world_meta_get(region).next_id == 2 * N + 1, "next id %u",
	      steer_world_meta_get(region).next_id);

	/* The same draws and ids as the whole world from here on. */
	uint32_t a = 0, b = 0;
	CHECK(steer_vehicle_add(whole, v2(100, 100), v2(0, 0), NULL, &a) == STEER_OK &&
	          steer_vehicle_add(region, v2(100, 100), v2(0, 0), NULL, &b) == STEER_OK && a == b,
	      "the next vehicle's id: %u whole, %u region", a, b);

	/* Without a region, a world keeps every vehicle again. */
	steer_world_set_region_keep(region, NULL);
	size_t before = steer_world_vehicles(region)->count;
	CHECK(steer_vehicles_add(region, N, pos, vel, &p, STEER_FLOCK, NULL) == STEER_OK, "add");
	CHECK(steer_world_vehicles(region)->count == before + N, "kept %zu of %d",
	      steer_world_vehicles(region)->count - before, N);
	steer_world_destroy(whole);
	steer_world_destroy(region);
}

int main(void)
{
	RUN(keeps_only_its_region);
	return CHECK_DONE();
}
