#include "steer/params.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format_cut.h"

steer_params steer_params_default(void)
{
	steer_params p = {
	    .mass = 1.0,
	    .max_speed = 100.0,
	    .max_force = 200.0,
	    .radius = 5.0,
	    .slowing_radius = 100.0,
	    .panic_distance = INFINITY,
	    .wander_distance = 10.0,
	    .wander_radius = 5.0,
	    .wander_range = 1.0,
	    .avoid_distance = 300.0,
	    .avoid_buffer = 20.0,
	    .avoid_horizon = 1.0,
	    .avoid_obstacle_horizon = 2.0,
	    .path_threshold = 20.0,
	    .sight_distance = 200.0,
	    .too_close_distance = 60.0,
	    .separation_weight = 1.0,
	    .cohesion_weight = 1.0,
	    .alignment_weight = 1.0,
	    .cruise_speed = 0.0,
	    .cruise_weight = 1.0,
	    .seek_weight = 1.0,
	    .flee_weight = 1.0,
	    .arrive_weight = 1.0,
	    .pursue_weight = 1.0,
	    .evade_weight = 1.0,
	    .wander_weight = 1.0,
	    .path_weight = 1.0,
	    /* Buckland's probabilities where his library has one; pursue, path and cruise,
	     * which it does not dither, as seek. */
	    .seek_chance = 0.8,
	    .flee_chance = 0.6,
	    .arrive_chance = 0.5,
	    .pursue_chance = 0.8,
	    .evade_chance = 1.0,
	    .wander_chance = 0.8,
	    .path_chance = 0.8,
	    .separation_chance = 0.2,
	    .alignment_chance = 0.3,
	    .cohesion_chance = 0.6,
	    .cruise_chance = 0.8,
	    .follow_chance = 0.8,
	    .hide_chance = 0.8,
	    .interpose_chance = 0.8,
	    .path_radius = 0.0,
	    .path_lookahead = 1.0,
	    .heading_smoothing = 0.0,
	    .follow_weight = 1.0,
	    .hide_weight = 1.0,
	    .hide_distance = 20.0,
	    .hide_reach = 300.0,
	    .interpose_weight = 1.0,
	    .group = 0,
	    .max_neighbours = 64,
	    .avoid_neighbours = 10,
	    .decel = STEER_DECEL_LINEAR,
	    .combine = STEER_COMBINE_SUM,
	    .path_direction = STEER_PATH_FORWARD,
	    .field_of_view = false,
	};
	return p;
}

static const char *const decel_names[] = {"linear", "fast", "normal", "slow", NULL};
static const char *const combine_names[] = {"sum", "priority", "dither", NULL};
static const char *const direction_names[] = {"forward", "backward", NULL};

#define REAL(f, h)                                                                                 \
	{                                                                                          \
#f, STEER_PARAM_REAL, offsetof(steer_params, f), NULL, h                           \
	}

const steer_param_def steer_param_defs[] = {
    REAL(mass, "mass; force is divided by it"),
    REAL(max_speed, "top speed, units/s"),
    REAL(max_force, "steering force limit, units/s^2"),
    REAL(radius, "body radius"),
    REAL(slowing_radius, "arrive: distance at which slowing starts"),
    {"decel", STEER_PARAM_ENUM, offsetof(steer_params, decel), decel_names,
     "arrive: linear ramp, or Buckland's fast|normal|slow"},
    REAL(panic_distance, "flee/evade: ignore threats farther than this (inf = always)"),
    REAL(wander_distance, "wander: circle centre distance ahead"),
    REAL(wander_radius, "wander: circle radius"),
    REAL(wander_range, "wander: per-tick angle jitter, radians"),
    REAL(avoid_distance, "avoid: obstacles and walls farther than this are not looked at"),
    REAL(avoid_buffer, "avoid: clearance kept from obstacles and walls, besides the radius"),
    REAL(avoid_horizon, "avoid: seconds ahead that collisions with vehicles are avoided"),
    REAL(avoid_obstacle_horizon,
         "avoid: seconds ahead that collisions with obstacles and walls are avoided"),
    {"avoid_neighbours", STEER_PARAM_UINT, offsetof(steer_params, avoid_neighbours), NULL,
     "avoid: the nearest this many vehicles are avoided, at most 64 (0 = none)"},
    REAL(path_threshold, "path: distance at which a waypoint counts as reached"),
    REAL(path_radius, "path: corridor half-width kept to (0 = visit the waypoints)"),
    REAL(path_lookahead, "path: seconds ahead a corridor walker predicts where it will be"),
    {"path_direction", STEER_PARAM_ENUM, offsetof(steer_params, path_direction), direction_names,
     "path: walk a corridor forward or backward along its points"},
    REAL(sight_distance, "flock: neighbour radius"),
    REAL(too_close_distance, "flock: separation radius"),
    {"field_of_view", STEER_PARAM_BOOL, offsetof(steer_params, field_of_view), NULL,
     "flock: see only neighbours in front"},
    REAL(separation_weight, "flock: separation weight"),
    REAL(cohesion_weight, "flock: cohesion weight"),
    REAL(alignment_weight, "flock: alignment weight"),
    REAL(cruise_speed, "cruise: speed to keep along the heading, units/s (0 = off)"),
    REAL(cruise_weight, "cruise: weight of the pull towards cruise_speed"),
    REAL(seek_weight, "seek: weight of its steering"),
    REAL(flee_weight, "flee: weight of its steering"),
    REAL(arrive_weight, "arrive: weight of its steering"),
    REAL(pursue_weight, "pursue: weight of its steering"),
    REAL(evade_weight, "evade: weight of its steering"),
    REAL(wander_weight, "wander: weight of its steering"),
    REAL(path_weight, "path: weight of its steering"),
    REAL(follow_weight, "follow: weight of keeping station on the leader"),
    REAL(hide_weight, "hide: weight of making for the hiding place"),
    REAL(hide_distance, "hide: gap kept between the body and the obstacle hidden behind"),
    REAL(hide_reach, "hide: obstacles farther than this are not hidden behind"),
    REAL(interpose_weight, "interpose: weight of making for the point between the two"),
    REAL(seek_chance, "combine dither: chance that seek is looked at, 0..1"),
    REAL(flee_chance, "combine dither: chance that flee is looked at, 0..1"),
    REAL(arrive_chance, "combine dither: chance that arrive is looked at, 0..1"),
    REAL(pursue_chance, "combine dither: chance that pursue is looked at, 0..1"),
    REAL(evade_chance, "combine dither: chance that evade is looked at, 0..1"),
    REAL(wander_chance, "combine dither: chance that wander is looked at, 0..1"),
    REAL(path_chance, "combine dither: chance that path is looked at, 0..1"),
    REAL(separation_chance, "combine dither: chance that separation is looked at, 0..1"),
    REAL(alignment_chance, "combine dither: chance that alignment is looked at, 0..1"),
    REAL(cohesion_chance, "combine dither: chance that cohesion is looked at, 0..1"),
    REAL(cruise_chance, "combine dither: chance that cruise is looked at, 0..1"),
    REAL(follow_chance, "combine dither: chance that follow is looked at, 0..1"),
    REAL(hide_chance, "combine dither: chance that hide is looked at, 0..1"),
    REAL(interpose_chance, "combine dither: chance that interpose is looked at, 0..1"),
    REAL(heading_smoothing,
         "display: time constant of the smoothed heading glyphs show, s (0 = off)"),
    {"group", STEER_PARAM_UINT, offsetof(steer_params, group), NULL,
     "flock: only vehicles of the same group flock together"},
    {"max_neighbours", STEER_PARAM_UINT, offsetof(steer_params, max_neighbours), NULL,
     "flock: consider at most this many neighbours, own cell first (0 = all)"},
    {"combine", STEER_PARAM_ENUM, offsetof(steer_params, combine), combine_names,
     "how behaviours combine: sum, priority or dither"},
};
const size_t steer_param_count = sizeof steer_param_defs / sizeof steer_param_defs[0];

#undef REAL

const steer_param_def *steer_param_find(const char *name)
{
	for (size_t i = 0; i < steer_param_count; i++)
		if (strcmp(steer_param_defs[i].name, name) == 0)
			return &steer_param_defs[i];
	return NULL;
}

static void *field(steer_params *p, const steer_param_def *def)
{
	return (char *)p + def->offset;
}

double steer_param_get(const steer_params *p, const steer_param_def *def)
{
	const char *f = (const char *)p + def->offset;
	switch (def->type) {
	case STEER_PARAM_REAL:
		return *(const double *)f;
	case STEER_PARAM_UINT:
		return *(const uint32_t *)f;
	case STEER_PARAM_BOOL:
		return *(const bool *)f ? 1.0 : 0.0;
	case STEER_PARAM_ENUM:
		return *(const uint8_t *)f;
	}
	return 0.0;
}

void steer_param_set(steer_params *p, const steer_param_def *def, double value)
{
	void *f = field(p, def);
	switch (def->type) {
	case STEER_PARAM_REAL:
		*(double *)f = value;
		break;
	case STEER_PARAM_UINT:
		*(uint32_t *)f = (uint32_t)value;
		break;
	case STEER_PARAM_BOOL:
		*(bool *)f = value != 0.0;
		break;
	case STEER_PARAM_ENUM:
		*(uint8_t *)f = (uint8_t)value;
		break;
	}
}

const char *steer_param_enum_name(const steer_params *p, const steer_param_def *def)
{
	if (def->type != STEER_PARAM_ENUM)
		return NULL;
	uint8_t v = *(const uint8_t *)((const char *)p + def->offset);
	for (uint8_t i = 0; def->enum_names[i]; i++)
		if (i == v)
			return def->enum_names[i];
	return "?";
}

/* strtod that accepts only a whole, finite number: 0, or -1 when s is not one, -2
 * when it underflows (too close to zero to read back as written). */
static int parse_real(const char *s, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (end == s || *end != '\0' || !isfinite(v))
		return -1;
	if (errno == ERANGE)
		return fabs(v) > 1.0 ? -1 : -2;
	*out = v;
	return 0;
}

steer_status steer_param_parse(steer_params *p, const steer_param_def *def, const char *text,
                               char *err, size_t errlen)
{
	double v;
	int rc;
	switch (def->type) {
	case STEER_PARAM_REAL:
		if (def->offset == offsetof(steer_params, panic_distance) &&
		    (strcmp(text, "inf") == 0 || strcmp(text, "off") == 0)) {
			v = INFINITY;
		} else if ((rc = parse_real(text, &v)) != 0) {
			char q[STEER_QUOTE_SIZE];
			snprintf(err, errlen,
			         rc == -2
			             ? "%s: '%s' is too close to zero (give 0 or at least 1e-300)"
			             : "%s: '%s' is not a finite number",
			         def->name, steer_quote_cut(text, q));
			return STEER_ERR_INVALID;
		}
		break;
	case STEER_PARAM_UINT:
		if (parse_real(text, &v) != 0 || v < 0 || v > UINT32_MAX || v != floor(v)) {
			char q[STEER_QUOTE_SIZE];
			snprintf(err, errlen, "%s: '%s' is not a whole number 0..4294967295",
			         def->name, steer_quote_cut(text, q));
			return STEER_ERR_INVALID;
		}
		break;
	case STEER_PARAM_BOOL:
		if (!strcmp(text, "on") || !strcmp(text, "true") || !strcmp(text, "1"))
			v = 1;
		else if (!strcmp(text, "off") || !strcmp(text, "false") || !strcmp(text, "0"))
			v = 0;
		else {
			char q[STEER_QUOTE_SIZE];
			snprintf(err, errlen, "%s: '%s' is not on/off", def->name,
			         steer_quote_cut(text, q));
			return STEER_ERR_INVALID;
		}
		break;
	case STEER_PARAM_ENUM: {
		int found = -1;
		for (int i = 0; def->enum_names[i]; i++)
			if (strcmp(def->enum_names[i], text) == 0)
				found = i;
		if (found < 0) {
			char q[STEER_QUOTE_SIZE];
			int n = snprintf(err, errlen, "%s: '%s' is not one of", def->name,
			                 steer_quote_cut(text, q));
			for (int i = 0; def->enum_names[i] && n > 0 && (size_t)n < errlen; i++)
				n += snprintf(err + n, errlen - (size_t)n, " %s",
				              def->enum_names[i]);
			return STEER_ERR_INVALID;
		}
		v = found;
		break;
	}
	default:
		v = 0;
	}
	steer_param_set(p, def, v);
	return STEER_OK;
}

steer_status steer_params_check(const steer_params *p, char *err, size_t errlen)
{
	/* Each real field within a range that keeps every product the tick forms far
	 * from overflow (a billion units, or a millionth where the math divides by it):
	 * a finite but absurd value must not turn into infinity and then NaN. */
	const double big = STEER_PARAM_MAX, tiny = 1e-6;
	struct {
		const char *name;
		double v, min;
	} r[] = {
	    {"mass", p->mass, tiny},
	    {"max_speed", p->max_speed, 0},
	    {"max_force", p->max_force, 0},
	    {"radius", p->radius, 0},
	    {"slowing_radius", p->slowing_radius, tiny},
	    {"wander_distance", p->wander_distance, 0},
	    {"wander_radius", p->wander_radius, 0},
	    {"wander_range", p->wander_range, 0},
	    {"avoid_distance", p->avoid_distance, tiny},
	    {"avoid_buffer", p->avoid_buffer, 0},
	    {"avoid_horizon", p->avoid_horizon, tiny},
	    {"avoid_obstacle_horizon", p->avoid_obstacle_horizon, tiny},
	    {"path_threshold", p->path_threshold, 0},
	    {"sight_distance", p->sight_distance, 0},
	    {"too_close_distance", p->too_close_distance, 0},
	    {"separation_weight", p->separation_weight, 0},
	    {"cohesion_weight", p->cohesion_weight, 0},
	    {"alignment_weight", p->alignment_weight, 0},
	    {"cruise_speed", p->cruise_speed, 0},
	    {"cruise_weight", p->cruise_weight, 0},
	    {"seek_weight", p->seek_weight, 0},
	    {"flee_weight", p->flee_weight, 0},
	    {"arrive_weight", p->arrive_weight, 0},
	    {"pursue_weight", p->pursue_weight, 0},
	    {"evade_weight", p->evade_weight, 0},
	    {"wander_weight", p->wander_weight, 0},
	    {"path_weight", p->path_weight, 0},
	    {"path_radius", p->path_radius, 0},
	    {"path_lookahead", p->path_lookahead, 0},
	    {"heading_smoothing", p->heading_smoothing, 0},
	    {"follow_weight", p->follow_weight, 0},
	    {"hide_weight", p->hide_weight, 0},
	    {"hide_distance", p->hide_distance, 0},
	    {"hide_reach", p->hide_reach, 0},
	    {"interpose_weight", p->interpose_weight, 0},
	};
	for (size_t i = 0; i < sizeof r / sizeof r[0]; i++) {
		if (!(r[i].v >= r[i].min && r[i].v <= big)) { /* NaN fails too */
			snprintf(err, errlen, "%s must be between %g and %g", r[i].name, r[i].min,
			         big);
			return STEER_ERR_INVALID;
		}
	}
	if (!(p->panic_distance >= 0 && (p->panic_distance <= big || isinf(p->panic_distance)))) {
		snprintf(err, errlen, "panic_distance must be between 0 and %g, or inf", big);
		return STEER_ERR_INVALID;
	}
	struct {
		const char *name;
		double v;
	} c[] = {
	    {"seek_chance", p->seek_chance},           {"flee_chance", p->flee_chance},
	    {"arrive_chance", p->arrive_chance},       {"pursue_chance", p->pursue_chance},
	    {"evade_chance", p->evade_chance},         {"wander_chance", p->wander_chance},
	    {"path_chance", p->path_chance},           {"separation_chance", p->separation_chance},
	    {"alignment_chance", p->alignment_chance}, {"cohesion_chance", p->cohesion_chance},
	    {"cruise_chance", p->cruise_chance},       {"follow_chance", p->follow_chance},
	    {"hide_chance", p->hide_chance},           {"interpose_chance", p->interpose_chance},
	};
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		if (!(c[i].v >= 0.0 && c[i].v <= 1.0)) {
			snprintf(err, errlen, "%s must be between 0 and 1", c[i].name);
			return STEER_ERR_INVALID;
		}
	}
	if (p->path_direction > STEER_PATH_BACKWARD) {
		snprintf(err, errlen, "path_direction must be forward or backward");
		return STEER_ERR_INVALID;
	}
	if (p->avoid_neighbours > STEER_AVOID_NEIGHBOURS_MAX) {
		snprintf(err, errlen, "avoid_neighbours must be between 0 and %d",
		         STEER_AVOID_NEIGHBOURS_MAX);
		return STEER_ERR_INVALID;
	}
	if (p->decel > STEER_DECEL_SLOW) {
		snprintf(err, errlen, "decel must be linear, fast, normal or slow");
		return STEER_ERR_INVALID;
	}
	if (p->combine > STEER_COMBINE_DITHER) {
		snprintf(err, errlen, "combine must be sum, priority or dither");
		return STEER_ERR_INVALID;
	}
	return STEER_OK;
}
