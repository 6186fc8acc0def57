/* A world's survey of its own vehicles (the flockers' sight, the largest radius,
 * whether any avoids, goes to a goal or smooths, one group, one plain set), kept up
 * vehicle by vehicle as they arrive and made again when one leaves or changes, always
 * equals the figures counted afresh from the vehicles; and so do the figures the step
 * uses, its own or, in a region, the whole world's told before the arrivals. A run of records
 * unpacked into a world looks their parameter set up once, and never keeps a slot the palette has
 * since freed and given to other parameters. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "share.h"
#include "steer/goto.h"
#include "steer/params.h"
#include "steer/world.h"
#include "world_internal.h"
#include "world_record.h"

#define SETS 4

/* Parameter sets that differ in what the survey reads: sight, smoothing, radius,
 * group, how forces combine. */
static steer_params set_of(int k)
{
	steer_params p = steer_params_default();
	if (k == 1)
		p.sight_distance = 150.0;
	if (k == 2)
		p.heading_smoothing = 0.5;
	if (k == 3) {
		p.radius = 3.0;
		p.group = 2;
		p.combine = STEER_COMBINE_PRIORITY;
	}
	return p;
}

static bool same_set(const steer_params *a, const steer_params *b)
{
	for (size_t k = 0; k < steer_param_count; k++) {
		double x = steer_param_get(a, &steer_param_defs[k]);
		double y = steer_param_get(b, &steer_param_defs[k]);
		if (memcmp(&x, &y, sizeof x) != 0)
			return false;
	}
	return true;
}

/* Whether any vehicle goes to a goal. */
static bool counted_goto(const steer_world *w)
{
	const steer_vehicles *v = steer_world_vehicles(w);
	for (size_t i = 0; i < v->count; i++)
		if (v->behaviors[i] & STEER_GOTO)
			return true;
	return false;
}

/* The survey counted from the vehicles, as the definition in sim/share.h reads. */
static steer_world_survey counted(const steer_world *w)
{
	steer_world_survey s;
	memset(&s, 0, sizeof s);
	s.flock_sight = -1.0;
	s.flock_one_group = true;
	s.flock_plain = true;
	const steer_vehicles *v = steer_world_vehicles(w);
	const steer_params *first = NULL;
	for (size_t i = 0; i < v->count; i++) {
		const steer_params *p = steer_vehicle_params_at(w, i);
		s.avoid_any |= (v->behaviors[i] & STEER_AVOID) != 0;
		s.smooth_any |= p->heading_smoothing > 0.0;
		s.radius_max = fmax(s.radius_max, p->radius);
		if (!(v->behaviors[i] & STEER_FLOCK))
			continue;
		s.flock_sight = fmax(s.flock_sight, p->sight_distance);
		if (!first) {
			first = p;
			s.has_flockers = true;
			s.flock_group = v->group[i];
		}
		s.flock_one_group &= v->group[i] == s.flock_group;
		s.flock_plain &= v->behaviors[i] == STEER_FLOCK &&
		                 p->combine == STEER_COMBINE_SUM && same_set(p, first);
	}
	s.flock_plain &= s.has_flockers;
	if (s.flock_plain)
		s.flock_set = *first;
	s.vehicles = v->count;
	return s;
}

/* The figures the step uses (steer_world_survey_flock): the counted ones, or with
 * `whole` told, the whole world's but for the plain set, which is this world's when
 * the whole world's flockers are all plain. */
static int in_effect_differs(steer_world *w, const steer_world_survey *whole, int step)
{
	steer_world_survey b = counted(w);
	steer_world_survey_flock(w);
	const steer_world_survey *f = whole ? whole : &b;
	bool plain = b.flock_plain && f->flock_plain;
	int bad =
	    w->flock_sight != f->flock_sight || w->radius_max != f->radius_max ||
	    w->avoid_any != f->avoid_any || w->smooth_any != f->smooth_any ||
	    w->flock_one_group != f->flock_one_group || w->goto_any != counted_goto(w) ||
	    (w->flock_plain_set != STEER_PALETTE_NONE) != plain ||
	    (plain && !same_set(steer_palette_get(&w->params, w->flock_plain_set), &b.flock_set));
	if (bad)
		fprintf(
		    stderr,
		    "step %d (%s): in effect sight %g radius %g avoid %d goto %d smooth %d one %d "
		    "plain %d\n",
		    step, whole ? "a region" : "a world", w->flock_sight, w->radius_max,
		    w->avoid_any, w->goto_any, w->smooth_any, w->flock_one_group,
		    w->flock_plain_set != STEER_PALETTE_NONE);
	return bad;
}

static int survey_differs(steer_world *w, int step)
{
	steer_world_survey a = steer_world_survey_own(w), b = counted(w);
	int bad = a.vehicles != b.vehicles || a.flock_sight != b.flock_sight ||
	          a.radius_max != b.radius_max || a.avoid_any != b.avoid_any ||
	          a.smooth_any != b.smooth_any || a.has_flockers != b.has_flockers ||
	          a.flock_one_group != b.flock_one_group || a.flock_plain != b.flock_plain ||
	          (b.flock_one_group && b.has_flockers && a.flock_group != b.flock_group) ||
	          (b.flock_plain && !same_set(&a.flock_set, &b.flock_set));
	if (bad)
		fprintf(stderr,
		        "step %d: kept sight %g radius %g avoid %d smooth %d flockers %d one %d "
		        "plain %d; counted %g %g %d %d %d %d %d\n",
		        step, a.flock_sight, a.radius_max, a.avoid_any, a.smooth_any,
		        a.has_flockers, a.flock_one_group, a.flock_plain, b.flock_sight,
		        b.radius_max, b.avoid_any, b.smooth_any, b.has_flockers, b.flock_one_group,
		        b.flock_plain);
	return bad;
}

static const uint32_t BEHAVIOURS[] = {STEER_FLOCK, STEER_FLOCK | STEER_AVOID, STEER_AVOID,
                                      STEER_WANDER, STEER_FLOCK | STEER_WANDER};

/* A random vehicle of w, by id (0 when there is none). */
static uint32_t any_vehicle(steer_world *w, steer_rng *rng)
{
	const steer_vehicles *v = steer_world_vehicles(w);
	if (!v->count)
		return 0;
	return v->id[steer_rng_u32(rng) % v->count];
}

/* Vehicles arrive one by one, in bulk, as restored records and in unpacked runs; they
 * leave, change behaviours and parameters; the world steps (and re-sorts its
 * storage) now and then. After every change the kept survey equals the counted one. */
static void the_kept_survey_equals_the_counted(void)
{
	steer_world_config cfg = steer_world_config_default();
	cfg.width = cfg.height = 400.0;
	cfg.solid = false;
	steer_world *w = steer_world_create(&cfg);
	steer_world *donor = steer_world_create(&cfg);
	steer_rng rng;
	steer_rng_seed(&rng, 11, 3);
	for (int k = 0; k < 40; k++) {
		steer_params p = set_of(k % SETS);
		uint32_t id;
		CHECK(steer_vehicle_add(donor, v2(5.0 * k, 7.0 * k), v2(1, 0), &p, &id) == STEER_OK,
		      "donor");
		steer_vehicle_enable(donor, id, BEHAVIOURS[k % 5], true);
	}
	int differ = 0;
	steer_world_survey whole;
	bool region = false;
	for (int step = 0; step < 1500; step++) {
		int op = (int)(steer_rng_u32(&rng) % 14);
		steer_vec2 at = v2(steer_rng_range(&rng, 0, 400), steer_rng_range(&rng, 0, 400));
		steer_params p = set_of((int)(steer_rng_u32(&rng) % SETS));
		uint32_t id = any_vehicle(w, &rng);
		if (op <= 2) {
			uint32_t made;
			if (steer_vehicle_add(w, at, v2(2, 1), &p, &made) == STEER_OK)
				steer_vehicle_enable(w, made, BEHAVIOURS[steer_rng_u32(&rng) % 5],
				                     true);
		} else if (op == 3) {
			steer_vec2 pos[3] = {at, v2(at.y, at.x), v2(200, 200)};
			steer_vec2 vel[3] = {v2(1, 1), v2(0, 1), v2(1, 0)};
			uint32_t first;
			CHECK(
			    steer_vehicles_add(w, 3, pos, vel, &p,
			                       steer_rng_u32(&rng) % 2 ? STEER_FLOCK : STEER_AVOID,
			                       &first) == STEER_OK,
			    "bulk add");
		} else if (op == 4) {
			/* A run of the donor's records, each set sent once. */
			steer_pack pack;
			steer_pack_init(&pack);
			const steer_vehicles *dv = steer_world_vehicles(donor);
			size_t from = steer_rng_u32(&rng) % dv->count;
			for (size_t i = from; i < dv->count && i < from + 9; i++)
				CHECK(steer_pack_vehicle(&pack, donor, i) == STEER_OK, "pack");
			char err[128];
			steer_id_list added = {0};
			CHECK(steer_unpack(w, pack.bytes.data, pack.bytes.len, STEER_UNPACK_SKIP,
			                   &added, err, sizeof err) == STEER_OK,
			      "unpack: %s", err);
			steer_id_list_free(&added);
			steer_pack_free(&pack);
		} else if (op == 5 && id) {
			CHECK(steer_remove(w, id) == STEER_OK, "remove");
		} else if (op == 6 && id) {
			CHECK(steer_vehicle_detach(w, id) == STEER_OK, "detach");
		} else if (op == 7 && id) {
			steer_vehicle_enable(w, id, BEHAVIOURS[steer_rng_u32(&rng) % 5],
			                     steer_rng_u32(&rng) % 2);
		} else if (op == 8 && id) {
			CHECK(steer_vehicle_set_params(w, id, &p) == STEER_OK, "set params");
		} else if (op == 9) {
			/* Emptied now and then, so that arrivals still change the figures. */
			while ((id = any_vehicle(w, &rng)) != 0)
				CHECK(steer_remove(w, id) == STEER_OK, "remove");
		} else if (op == 10 && id) {
			steer_goto_report rep;
			if (steer_rng_u32(&rng) % 2)
				CHECK(steer_vehicle_goto(w, id, at, &rep) == STEER_OK, "goto");
			else
				CHECK(steer_vehicle_goto_off(w, id) == STEER_OK, "goto off");
		} else if (op == 11) {
			/* One region of a bigger world, told its figures before more arrive (as
			 * the cluster tells them before the halo comes): maxima above any set's,
			 * flockers of several groups, plain or not. */
			region = !region;
			whole = counted(w);
			whole.flock_sight = 200.0;
			whole.radius_max = 6.0;
			whole.avoid_any = whole.smooth_any = true;
			whole.flock_one_group = false;
			whole.flock_plain = steer_rng_u32(&rng) % 2;
			steer_world_survey_set(w, region ? &whole : NULL);
		} else {
			CHECK(steer_world_step(w) == STEER_OK, "step");
		}
		differ += survey_differs(w, step);
		differ += in_effect_differs(w, region ? &whole : NULL, step);
	}
	CHECK(differ == 0, "%d of 1,500 changes left the kept figures unlike the counted ones",
	      differ);
	steer_world_destroy(donor);
	steer_world_destroy(w);
}

/* An unpacker remembers which palette slot a run's set went to. When the palette
 * frees that slot and gives it to other parameters between two of the run's records,
 * the second still gets the run's parameters. */
static void a_freed_set_is_not_taken_for_the_runs(void)
{
	steer_world_config cfg = steer_world_config_default();
	cfg.solid = false;
	steer_world *from = steer_world_create(&cfg), *to = steer_world_create(&cfg);
	steer_params a = set_of(1), b = set_of(2);
	uint32_t id;
	for (int k = 0; k < 2; k++)
		CHECK(steer_vehicle_add(from, v2(10.0 * k, 5), v2(1, 0), &a, &id) == STEER_OK,
		      "add");
	steer_pack pack;
	steer_pack_init(&pack);
	for (size_t i = 0; i < 2; i++)
		CHECK(steer_pack_vehicle(&pack, from, i) == STEER_OK, "pack");
	char err[128];
	/* Ids past the run's, and a palette with a freed slot. */
	steer_params c = set_of(3);
	for (int k = 0; k < 4; k++) {
		CHECK(steer_vehicle_add(to, v2(k, 1), v2(1, 0), &c, &id) == STEER_OK, "add c");
		CHECK(steer_remove(to, id) == STEER_OK, "remove c");
	}
	steer_unpacker u;
	steer_unpacker_init(&u, pack.bytes.data, pack.bytes.len, STEER_UNPACK_REFUSE, false);
	CHECK(steer_unpack_next(&u, to, NULL, err, sizeof err) == STEER_OK, "first: %s", err);
	/* The run's set leaves the palette, and its slot goes to b. */
	uint32_t first = steer_world_vehicles(to)->id[0];
	CHECK(steer_remove(to, first) == STEER_OK, "remove");
	CHECK(steer_vehicle_add(to, v2(50, 50), v2(0, 1), &b, &id) == STEER_OK, "add b");
	CHECK(steer_unpack_next(&u, to, NULL, err, sizeof err) == STEER_OK, "second: %s", err);
	steer_unpacker_free(&u);
	const steer_vehicles *v = steer_world_vehicles(to);
	CHECK(v->count == 2, "%zu vehicles", v->count);
	for (size_t i = 0; i < v->count; i++) {
		const steer_params *want = v->id[i] == id ? &b : &a;
		CHECK(same_set(steer_vehicle_params_at(to, i), want),
		      "vehicle %u has another's parameters", v->id[i]);
	}
	steer_pack_free(&pack);
	steer_world_destroy(from);
	steer_world_destroy(to);
}

int main(void)
{
	RUN(the_kept_survey_equals_the_counted);
	RUN(a_freed_set_is_not_taken_for_the_runs);
	return CHECK_DONE();
}
