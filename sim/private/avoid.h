/* The avoid behaviour: a vehicle with avoid on keeps its body off other vehicles
 * (each of two that avoid takes half the avoidance), obstacles and walls, by ORCA
 * (orca.h) over the velocity the other behaviours want. Private to the core. */
#ifndef STEER_AVOID_H
#define STEER_AVOID_H

#include "behaviors.h"
#include "geometry.h"
#include "steer/status.h"

struct steer_world;

/* Indexes every vehicle for the avoiders' neighbour search, from the tick's starting
 * state, when any vehicle avoids; else does nothing. STEER_OK, or NOMEM. */
steer_status steer_avoid_index(struct steer_world *w);
/* How far a vehicle with these parameters searches for vehicles to avoid, when the
 * fastest moves at speed_max. */
double steer_avoid_reach(const struct steer_world *w, const steer_params *prm, double speed_max);

/* The ids of vehicle i's nearest vehicles within its reach, as its avoidance takes
 * them (by distance, then id; at most its avoid_neighbours), into ids (room for
 * STEER_AVOID_NEIGHBOURS_MAX); returns how many. After steer_avoid_index, searching
 * afresh (not from a kept bound). For tests. */
size_t steer_avoid_nearest(const struct steer_world *w, size_t i, uint32_t *ids);
/* The same, searching as the tick does: from the slot's kept bound and kept list
 * (avoid.c), which it moves on as the tick would. For tests. */
size_t steer_avoid_nearest_kept(struct steer_world *w, size_t i, uint32_t *ids);

/* The force on vehicle i (an avoider, whose agent is a) given force, the force its
 * other behaviours combine to: the one that brings it to the permitted velocity
 * nearest the velocity force would give, within max_force. Reads only the tick's
 * starting state, so avoiders may be handled on any thread in any order; hits:
 * the calling thread's scratch for obstacle queries. */
steer_vec2 steer_avoid_force(const struct steer_world *w, size_t i, const steer_agent *a,
                             steer_vec2 force, steer_geom_hits *hits);

#endif
