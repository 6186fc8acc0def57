/* Where a vehicle steers for a target (seek, arrive, a waypoint) that lies inside an
 * obstacle: the nearest point where its body fits. Worked out from the target as given
 * whenever it or the geometry changes (steer_target_free_memo), because obstacles
 * drift and geometry comes and goes: a point moved once when it was set would be
 * wrong as soon as the circle over it moved on, or a new one came over it. The target
 * as given is kept (and saved); the point it stands for is reported by `get`. */
#ifndef STEER_TARGETS_H
#define STEER_TARGETS_H

#include <stdint.h>

#include "steer/world.h"

/* The distance a vehicle keeps from obstacles: its radius, and with avoid on the
 * avoid_buffer that avoidance keeps besides (a point nearer than that would be one
 * it can never reach). */
double steer_target_clearance(const steer_params *p, uint32_t behaviors);

/* target itself when a disc of radius there overlaps nothing (or the world has no
 * geometry), else the nearest point where it does not (steer_geom_free_point); the
 * target itself when there is no room anywhere, or scratch memory ran out (the
 * vehicle then steers as it did before targets were moved). Read-only: safe from the
 * force phase's threads. */
steer_vec2 steer_target_free(const steer_world *w, steer_vec2 target, double radius);

/* The last answer of steer_target_free for one vehicle: its target and radius, and the
 * geometry's epoch then (steer_geom.epoch). A target far from its vehicle would
 * otherwise cost a query in a part of the index nobody else touches, every tick. */
typedef struct steer_free_memo {
	steer_vec2 target, at;
	double radius;
	uint64_t epoch; /* 0: nothing remembered */
} steer_free_memo;

/* steer_target_free through a vehicle's memo: the same answer, remembered until the
 * target, the radius or the geometry changes. Writes only *m. */
steer_vec2 steer_target_free_memo(const steer_world *w, steer_free_memo *m, steer_vec2 target,
                                  double radius);

#endif
