/* What the world's files share: world.c (names, configuration, lifetime, queries,
 * restoring saved state), world_vehicles.c (adding, removing and changing vehicles)
 * and world_shapes.c (obstacles, walls, polygons). Private to the core. */
#ifndef STEER_WORLD_PARTS_H
#define STEER_WORLD_PARTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "world_internal.h"

/* The id map's slots carry what they index in their top two bits: vehicles none (so
 * a world holds fewer than 2^30 vehicles), obstacles, walls and polygons a tag each.
 * Ids stay below OBSTACLE_SLOT. */
#define OBSTACLE_SLOT 0x80000000u
#define WALL_SLOT     0x40000000u
#define POLYGON_SLOT  0xC0000000u
#define KIND_MASK     0xC0000000u

/* One vehicle slot's worth of every array, for moving slots around. */
typedef struct vehicle_slot {
	uint32_t id, behaviors, group, param_set, extra;
	double px, py, vx, vy, hx, hy, fx, fy;
} vehicle_slot;

/* The edge rule applied to a position alone (spawns, resizes). */
void steer_world_place_inside(const steer_world_config *c, double *x, double *y);

/* The vehicle's extras, made on first need; NULL when memory runs out. A new one
 * starts its wander angle along the heading, so wandering begins straight on. */
steer_vehicle_state *steer_world_extras_for_write(steer_world *w, size_t i);

/* Gives a vehicle's extras back (its path too). */
void steer_world_extras_release(steer_world *w, size_t i);

steer_status steer_world_grow_vehicles(steer_world *w);

bool steer_world_id_in_use(const steer_world *w, uint32_t id);

/* A position or velocity the tick can square and sum without overflow: finite and
 * within STEER_MAX_COORD (the name says finite; the bound is the point). */
bool steer_world_finite2(steer_vec2 a);

/* Appends a validated record as slot count, taking ownership of its path points. The
 * one place that fills a vehicle slot, for new vehicles and restored ones alike. */
steer_status steer_world_append_vehicle(steer_world *w, const steer_vehicle_record *r);

/* A record's parameters already found in the palette, for the next record with the
 * same ones (a run of records shares a few sets): the slot, valid while the
 * palette has freed no slot since. {STEER_PALETTE_NONE}: not yet. */
typedef struct steer_set_memo {
	uint32_t set;
	uint64_t frees;
	const steer_palette *of; /* whose slot */
} steer_set_memo;

static inline bool steer_set_memo_valid(const steer_set_memo *m, const steer_palette *p)
{
	/* The slot still held, too: a palette made anew at the same address counts its
	 * frees from 0 again. */
	return m->of == p && m->frees == p->frees && m->set < p->count && p->refs[m->set] > 0;
}

/* steer_world_append_vehicle, with the set in a valid memo taken for r's parameters
 * (the caller knows they are the same); memo gets the set used. */
steer_status steer_world_append_known(steer_world *w, const steer_vehicle_record *r,
                                      steer_set_memo *memo);
/* steer_vehicle_restore, for a run of records: a record whose memo is valid skips
 * checking its parameters again and looking them up; memo is set for the next. */
steer_status steer_world_restore_vehicle(steer_world *w, const steer_vehicle_record *r,
                                         steer_set_memo *memo);

#endif
