/* A world holding one region of a bigger one (the core's side of cluster/): told the
 * whole world's survey and given copies of the vehicles within reach of its border,
 * its own vehicles step to the same bits as in the whole world. Also: detaching keeps
 * chasers, saves do not depend on storage order, and debug builds stop a search that
 * reaches past the halo. */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "savefile.h"
#include "share.h"
#include "steer/world.h"

/* n vehicles in a world `size` wide, in a patch `spread` of its sides: in a big world
 * mostly empty, the neighbour grid's cells are capped by the count rather than sized
 * by the sight. */
static steer_world *world_of(steer_edges edges, int n, double size, double spread)
{
	steer_world_config cfg = steer_world_config_default();
	cfg.width = size;
	cfg.height = 0.75 * size;
	cfg.edges = edges;
	cfg.solid = false;
	cfg.seed = 5;
	steer_world *w = steer_world_create(&cfg);
	steer_rng *rng = steer_world_rng(w);
	steer_params flock = steer_params_default();
	for (int k = 0; k < n; k++) {
		uint32_t id;
		/* Spread over a patch across the region's border, the rest of the world empty. */
		steer_vec2 p = v2(cfg.width * (0.5 + spread * steer_rng_range(rng, -0.5, 0.5)),
		                  cfg.height * spread * steer_rng_range(rng, 0.0, 1.0));
		steer_vec2 v = v2(steer_rng_range(rng, -20, 20), steer_rng_range(rng, -20, 20));
		CHECK(steer_vehicle_add(w, p, v, &flock, &id) == STEER_OK, "add");
		steer_vehicle_enable(w, id, k % 3 ? STEER_FLOCK : STEER_AVOID | STEER_WANDER, true);
	}
	/* A chase across the region's border. */
	steer_vehicle_chase(w, 1, STEER_PURSUE, 2);
	return w;
}

static steer_world *whole_world(steer_edges edges)
{
	return world_of(edges, 400, 800, 1.0);
}

static bool in_region(double x, double width)
{
	return x < width / 2;
}

/* The distance along x from the region [0, W/2) (across the seam in a wrap world). */
static double outside_by(double x, double width, bool wrap)
{
	if (in_region(x, width))
		return 0.0;
	double d = fmin(fabs(x - width / 2), wrap ? fabs(width - x) : INFINITY);
	return d;
}

static void copy_vehicle(steer_world *to, const steer_world *from, size_t i)
{
	steer_vehicle_record r;
	steer_vehicle_record_get(from, i, &r);
	CHECK(steer_vehicle_restore(to, &r) == STEER_OK, "restore %u", r.id);
}

/* The region: its own vehicles, then copies of the rest within reach, and the target. */
static steer_world *region_of(steer_world *w, double reach)
{
	const steer_world_config *cfg = steer_world_config_get(w);
	steer_world *r = steer_world_create(cfg);
	steer_world_meta m = steer_world_meta_get(w);
	const steer_vehicles *v = steer_world_vehicles(w);
	for (size_t i = v->count; i-- > 0;) /* another storage order than the whole's */
		if (in_region(v->px[i], cfg->width))
			copy_vehicle(r, w, i);
	for (size_t i = 0; i < v->count; i++)
		if (!in_region(v->px[i], cfg->width) &&
		    (outside_by(v->px[i], cfg->width, cfg->edges == STEER_EDGE_WRAP) <= reach ||
		     v->id[i] == 2))
			copy_vehicle(r, w, i);
	CHECK(steer_world_meta_set(r, &m) == STEER_OK, "meta");
	return r;
}

static bool same_bits(const steer_vehicle_record *a, const steer_vehicle_record *b)
{
	double x[8] = {a->pos.x,     a->pos.y,     a->vel.x,   a->vel.y,
	               a->heading.x, a->heading.y, a->force.x, a->force.y};
	double y[8] = {b->pos.x,     b->pos.y,     b->vel.x,   b->vel.y,
	               b->heading.x, b->heading.y, b->force.x, b->force.y};
	return a->behaviors == b->behaviors && memcmp(x, y, sizeof x) == 0;
}

/* Steps the whole world and a region of it 60 times, the region made afresh from the
 * whole each tick as cluster/ does and told the whole world's survey. Returns how
 * many times one of the region's own vehicles (in it at the tick's start) ended a
 * tick with other bits than in the whole. */
static int region_differs(steer_world *w, double halo)
{
	double width = steer_world_config_get(w)->width;
	int differ = 0;
	for (int t = 0; t < 60; t++) {
		steer_world_survey s = steer_world_survey_own(w);
		double reach = steer_world_reach(w);
		steer_world *r = region_of(w, reach * halo);
		steer_world_survey_set(r, &s);
		steer_world_set_reach_limit(r, reach);
		uint32_t *own = malloc(steer_world_vehicles(w)->count * sizeof *own);
		size_t n = 0;
		const steer_vehicles *v = steer_world_vehicles(w);
		for (size_t i = 0; i < v->count; i++)
			if (in_region(v->px[i], width))
				own[n++] = v->id[i];
		CHECK(steer_world_step(w) == STEER_OK && steer_world_step(r) == STEER_OK, "step");
		for (size_t k = 0; k < n; k++) {
			steer_vehicle_record a, b;
			steer_vehicle_record_get(r, (size_t)steer_vehicle_index(r, own[k]), &a);
			steer_vehicle_record_get(w, (size_t)steer_vehicle_index(w, own[k]), &b);
			differ += !same_bits(&a, &b);
		}
		free(own);
		steer_world_destroy(r);
	}
	steer_world_destroy(w);
	return differ;
}

static void a_region_told_the_survey_steps_like_the_whole(void)
{
	CHECK(region_differs(whole_world(STEER_EDGE_WRAP), 1.0) == 0, "wrap: a region differs");
	CHECK(region_differs(whole_world(STEER_EDGE_NONE), 1.0) == 0, "none: a region differs");
	CHECK(region_differs(whole_world(STEER_EDGE_BOUNCE), 1.0) == 0, "bounce: a region differs");
	CHECK(region_differs(world_of(STEER_EDGE_WRAP, 400, 12000, 0.05), 1.0) == 0,
	      "sparse: a region differs");
}

/* The control: a region whose halo is narrower than the reach does not. */
static void a_region_with_a_narrow_halo_does_not(void)
{
	CHECK(region_differs(whole_world(STEER_EDGE_WRAP), 0.5) > 0,
	      "a halo of half the reach sufficed");
}

static void detach_keeps_chasers_remove_drops_them(void)
{
	steer_world *w = whole_world(STEER_EDGE_WRAP);
	CHECK(steer_vehicle_detach(w, 2) == STEER_OK, "detach");
	CHECK(steer_vehicle_get(w, 1)->pursue_id == 2, "detaching the target dropped the chase");
	CHECK(steer_vehicle_detach(w, 2) == STEER_ERR_NOENT, "detached twice");
	steer_vehicle_chase(w, 3, STEER_PURSUE, 4);
	CHECK(steer_remove(w, 4) == STEER_OK, "remove");
	CHECK(steer_vehicle_get(w, 3)->pursue_id == 0, "removing the target kept the chase");
	steer_world_destroy(w);
}

/* The same vehicles stored in another order save to the same bytes. */
static void saves_do_not_depend_on_storage_order(void)
{
	steer_world *w = whole_world(STEER_EDGE_WRAP);
	steer_world_step(w);
	steer_world *r = region_of(w, INFINITY); /* every vehicle, stored in reverse */
	char *a = NULL, *b = NULL;
	size_t la = 0, lb = 0;
	CHECK(steer_save_encode(w, &a, &la) == STEER_OK &&
	          steer_save_encode(r, &b, &lb) == STEER_OK,
	      "encode");
	CHECK(la == lb && memcmp(a, b, la) == 0, "the same world saved to other bytes");
	free(a);
	free(b);
	steer_world_destroy(r);
	steer_world_destroy(w);
}

/* Debug builds stop a search that reaches past the halo's width. */
static void a_search_past_the_halo_stops_a_debug_build(void)
{
#ifdef NDEBUG
	printf("     (an optimised build: the assertion is not compiled in)\n");
#else
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		steer_world *w = whole_world(STEER_EDGE_WRAP);
		steer_world_set_reach_limit(w, 1.0); /* narrower than any sight */
		steer_world_step(w);
		_exit(0);
	}
	int status = 0;
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid, "fork");
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT,
	      "a search past the halo went on (status %d)", status);
#endif
}

int main(void)
{
	RUN(a_region_told_the_survey_steps_like_the_whole);
	RUN(a_region_with_a_narrow_halo_does_not);
	RUN(detach_keeps_chasers_remove_drops_them);
	RUN(saves_do_not_depend_on_storage_order);
	RUN(a_search_past_the_halo_stops_a_debug_build);
	return CHECK_DONE();
}
