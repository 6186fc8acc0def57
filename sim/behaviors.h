/* The steering behaviours of docs/BEHAVIORS.md as pure functions. Each returns
 * a steering (the change of velocity it wants, usually desired - v) for one vehicle,
 * given displacements already taken the short way round a wrap world. */
#ifndef STEER_BEHAVIORS_H
#define STEER_BEHAVIORS_H

#include <stdint.h>

#include "steer/params.h"
#include "steer/vec2.h"

typedef struct steer_agent {
	steer_vec2 v; /* velocity */
	steer_vec2 h; /* unit heading, never zero */
	const steer_params *prm;
} steer_agent;

/* d is always target - position. */
steer_vec2 steer_seek(const steer_agent *a, steer_vec2 d);
/* The seek behaviour: steer_seek with the desired speed capped by dist / dt, so that
 * it never asks to jump past the target in one tick of dt seconds. */
steer_vec2 steer_seek_within(const steer_agent *a, steer_vec2 d, double dt);
steer_vec2 steer_flee(const steer_agent *a, steer_vec2 d);
/* The highest speed from which the vehicle, moving one more tick of dt and then
 * braking at max_force / mass each tick, stops within dist. */
double steer_stopping_speed(const steer_params *p, double dist, double dt);
/* The deceleration profile's speed, capped by steer_stopping_speed and by dist / dt:
 * no overshoot and no oscillation whatever max_speed and max_force are. */
steer_vec2 steer_arrive(const steer_agent *a, steer_vec2 d, double dt);
/* d: displacement to the other vehicle; ov: its velocity. */
steer_vec2 steer_pursue(const steer_agent *a, steer_vec2 d, steer_vec2 ov);
steer_vec2 steer_evade(const steer_agent *a, steer_vec2 d, steer_vec2 ov);
steer_vec2 steer_wander(const steer_agent *a, double wander_angle);
/* Separation from one too-close neighbour at displacement d. Two vehicles on the
 * same point part along the heading's perpendicular, opposite ways by id order. */
steer_vec2 steer_separate_one(const steer_agent *a, steer_vec2 d, uint32_t self_id,
                              uint32_t other_id);
steer_vec2 steer_cohere(const steer_agent *a, steer_vec2 d_mean);
steer_vec2 steer_align(const steer_agent *a, steer_vec2 mean_velocity);
/* Arrive at a point that moves at pv, d away: arrive's desired velocity, by Buckland's
 * fast profile whatever decel says, taken in the point's frame (pv added, the sum
 * capped at max_speed), so that a vehicle keeps up with a point moving below its
 * max_speed instead of trailing it by arrive's lag, and stops on a point that stops. */
steer_vec2 steer_arrive_moving(const steer_agent *a, steer_vec2 d, steer_vec2 pv, double dt);
/* The leader's offset point as a displacement from the leader: offset.x along its
 * unit heading lh, offset.y along the heading turned +90 degrees (its left). */
steer_vec2 steer_offset_point(steer_vec2 lh, steer_vec2 offset);
/* Buckland's OffsetPursuit: d is the displacement to the leader's offset point and lv
 * the leader's velocity; arrives (steer_arrive_moving) at the point predicted
 * |d| / (max_speed + |lv|) ahead. */
steer_vec2 steer_follow(const steer_agent *a, steer_vec2 d, steer_vec2 lv, double dt);
/* Buckland's hiding place behind a circle at displacement d_obs, of radius r, from a
 * hunter at displacement d_hunter: on the far side of the circle from the hunter,
 * gap beyond its edge. Displacements from the hider, as the result. */
steer_vec2 steer_hide_spot(steer_vec2 d_obs, double r, steer_vec2 d_hunter, double gap);
/* Buckland's Interpose between vehicles at displacements da and db moving at va and
 * vb: arrives at their midpoint predicted by the time the vehicle would take to reach
 * the current one at max_speed, moving with the midpoint. */
steer_vec2 steer_interpose(const steer_agent *a, steer_vec2 da, steer_vec2 va, steer_vec2 db,
                           steer_vec2 vb, double dt);
/* The shapes `formation` lays followers out in, and their names (NULL-terminated). */
typedef enum steer_formation {
	STEER_FORMATION_LINE,   /* abreast: left, right, left, ... of the leader */
	STEER_FORMATION_COLUMN, /* one behind another */
	STEER_FORMATION_WEDGE,  /* a V behind the leader, arms 45 degrees back */
	STEER_FORMATION_RING,   /* a circle around the leader, the first behind it */
	STEER_FORMATION_COUNT,
} steer_formation;

extern const char *const steer_formation_names[];

/* The offset (in the leader's frame, as steer_offset_point takes it) of follower k of
 * n in a formation whose neighbouring places, the leader's included, are spacing
 * apart (no two places are closer). */
steer_vec2 steer_formation_offset(steer_formation f, uint32_t k, uint32_t n, double spacing);
/* OpenSteer's steerForTargetSpeed: along the heading, cruise_speed less the speed. */
steer_vec2 steer_cruise(const steer_agent *a);

/* Slots of a vehicle's weighted steerings, in Buckland's priority order. Avoidance
 * is not among them: it bounds the velocity they ask for together (avoid.h). */
enum steer_part {
	STEER_PART_EVADE,
	STEER_PART_FLEE,
	STEER_PART_SEPARATION,
	STEER_PART_ALIGNMENT,
	STEER_PART_COHESION,
	STEER_PART_SEEK,
	STEER_PART_ARRIVE,
	STEER_PART_WANDER,
	STEER_PART_PURSUE,
	STEER_PART_PATH,
	STEER_PART_FOLLOW,
	STEER_PART_HIDE,
	STEER_PART_INTERPOSE,
	STEER_PART_CRUISE,
	STEER_PART_COUNT,
};

/* The cruise part, weighted, into parts when the vehicle has a cruise_speed. */
void steer_cruise_part(const steer_agent *a, steer_vec2 parts[STEER_PART_COUNT], uint32_t *mask);

/* Combines the steerings whose bit (1 << part) is set in mask into the force to
 * apply: sum then truncate (as S / dt) to max_force, or (priority, and dither, which
 * steer_combine_dither does) Buckland's prioritised running sum that stops once
 * max_force is used up. */
steer_vec2 steer_combine_parts(const steer_vec2 parts[STEER_PART_COUNT], uint32_t mask,
                               const steer_params *prm, double dt);

/* The chance, under combine dither, that part k is looked at (its _chance parameter). */
double steer_part_chance(const steer_params *prm, int part);
/* The draw in [0, 1) that decides whether vehicle id looks at part in tick: a pure
 * function of them and the seed, so no generator is shared between threads. */
double steer_dither_draw(uint64_t seed, uint32_t id, uint64_t tick, int part);
/* Buckland's prioritised dithering: the parts in priority order, each looked at when
 * its draw falls under its chance; the first non-zero one looked at is the force,
 * divided by its chance (so that on average it weighs its weight) and truncated to
 * max_force. Zero when none is. */
steer_vec2 steer_combine_dither(const steer_vec2 parts[STEER_PART_COUNT], uint32_t mask,
                                const steer_params *prm, double dt, uint64_t seed, uint32_t id,
                                uint64_t tick);

#endif
