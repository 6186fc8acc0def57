/* Per-vehicle parameters: the vehicle model and every behaviour's tuning, with one
 * table of names so that every entry point (text commands, the wire, save files)
 * reads and writes them the same way. docs/BEHAVIORS.md describes each. */
#ifndef STEER_PARAMS_H
#define STEER_PARAMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "api.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum steer_combine {
	STEER_COMBINE_SUM = 0,
	STEER_COMBINE_PRIORITY = 1,
	STEER_COMBINE_DITHER = 2, /* Buckland's prioritised dithering */
} steer_combine;

/* Which way a corridor (path_radius > 0) is walked along its points. */
typedef enum steer_path_direction {
	STEER_PATH_FORWARD = 0,
	STEER_PATH_BACKWARD = 1,
} steer_path_direction;

/* Arrive's deceleration: linear ramp inside slowing_radius (seeds 000, 003), or
 * Buckland's speed = d / (decel * 0.3 s) with fast=1, normal=2, slow=3 (seed 001). */
typedef enum steer_decel {
	STEER_DECEL_LINEAR = 0,
	STEER_DECEL_FAST = 1,
	STEER_DECEL_NORMAL = 2,
	STEER_DECEL_SLOW = 3,
} steer_decel;

typedef struct steer_params {
	double mass;
	double max_speed; /* units/s */
	double max_force; /* units/s^2, per unit mass */
	double radius;
	double slowing_radius;
	double panic_distance; /* INFINITY: always flee */
	double wander_distance;
	double wander_radius;
	double wander_range;
	double avoid_distance;
	double avoid_buffer;
	double avoid_horizon;          /* s: how far ahead other vehicles are avoided */
	double avoid_obstacle_horizon; /* s: how far ahead obstacles and walls are */
	double path_threshold;
	double sight_distance;
	double too_close_distance;
	double separation_weight;
	double cohesion_weight;
	double alignment_weight;
	double cruise_speed; /* units/s; 0 = off */
	double cruise_weight;
	/* Weights of the other behaviours' steerings, in every combine mode. */
	double seek_weight, flee_weight, arrive_weight, pursue_weight, evade_weight;
	double wander_weight, path_weight;
	/* combine dither: the chance that each part is looked at (0..1). */
	double seek_chance, flee_chance, arrive_chance, pursue_chance, evade_chance;
	double wander_chance, path_chance, separation_chance, alignment_chance;
	double cohesion_chance, cruise_chance, follow_chance, hide_chance, interpose_chance;
	double path_radius;       /* corridor half-width; 0 = visit the waypoints */
	double path_lookahead;    /* s: how far ahead a corridor walker predicts itself */
	double heading_smoothing; /* s: time constant of the displayed heading; 0 = off */
	double follow_weight;
	double hide_weight;
	double hide_distance; /* hide: the gap kept behind an obstacle circle */
	double hide_reach;    /* hide: obstacle circles farther than this are not looked at */
	double interpose_weight;
	uint32_t group;
	uint32_t max_neighbours;   /* flocking looks at no more than this many; 0 = all */
	uint32_t avoid_neighbours; /* avoid: the nearest this many vehicles; 0 = none */
	uint8_t decel;             /* steer_decel */
	uint8_t combine;           /* steer_combine */
	uint8_t path_direction;    /* steer_path_direction */
	bool field_of_view;
} steer_params;

/* The most vehicles avoid takes into account (avoid_neighbours). */
#define STEER_AVOID_NEIGHBOURS_MAX 64

/* The largest magnitude any parameter may have (and, in world.h, any velocity). */
#define STEER_PARAM_MAX 1e9

STEER_API steer_params steer_params_default(void);

/* STEER_OK when every field is in range, else INVALID with a message naming the first
 * bad field in err. */
STEER_API steer_status steer_params_check(const steer_params *p, char *err, size_t errlen);

typedef enum steer_param_type {
	STEER_PARAM_REAL,
	STEER_PARAM_UINT,
	STEER_PARAM_BOOL,
	STEER_PARAM_ENUM,
} steer_param_type;

typedef struct steer_param_def {
	const char *name;
	steer_param_type type;
	size_t offset;
	const char *const *enum_names; /* STEER_PARAM_ENUM: NULL-terminated */
	const char *help;
} steer_param_def;

extern STEER_API const steer_param_def steer_param_defs[];
extern STEER_API const size_t steer_param_count;

STEER_API const steer_param_def *steer_param_find(const char *name);

/* Parses text into the named field of *p: a number, on/off/true/false/1/0, or an enum
 * word (decel slow|normal|fast|linear, combine sum|priority|dither, path_direction
 * forward|backward). NaN and infinity are refused except "inf" for panic_distance. Range checks are
 * steer_params_check's job. STEER_OK, or INVALID with a message in err and *p untouched. */
STEER_API steer_status steer_param_parse(steer_params *p, const steer_param_def *def,
                                         const char *text, char *err, size_t errlen);

/* The field as a double (bools and enums as their integer values). */
STEER_API double steer_param_get(const steer_params *p, const steer_param_def *def);
STEER_API void steer_param_set(steer_params *p, const steer_param_def *def, double value);
/* The enum word for an ENUM field's current value. */
STEER_API const char *steer_param_enum_name(const steer_params *p, const steer_param_def *def);

#ifdef __cplusplus
}
#endif

#endif
