/* The seeds' demos as built-in scenarios, loadable by name. */
#ifndef STEER_SCENARIO_H
#define STEER_SCENARIO_H

#include "steer/world.h"

/* NULL-terminated list of names, in a stable order for help texts. */
extern const char *const steer_scenario_names[];

/* Resets the world (keeping its size, tick rate and seed; setting the edges the
 * demo wants) and populates it. Placement draws from the world's generator, so a
 * scenario is as reproducible as the seed. NOENT for an unknown name; INVALID when
 * its bodies do not fit the world (steer_world_radius_max), which is left empty. */
steer_status steer_scenario_load(steer_world *w, const char *name);

/* The circle scenario (RVO2's classic): n walkers evenly spaced STEER_CIRCLE_SPACING
 * apart around a circle at the world's centre, each arriving at its antipode with
 * avoidance on. INVALID when n < 1 or the circle does not fit in the world.
 * steer_scenario_load's `circle` places as many as the world holds
 * (steer_scenario_circle_count) on a circle filling STEER_CIRCLE_FILL of it. */
steer_status steer_scenario_circle(steer_world *w, int n);
int steer_scenario_circle_count(const steer_world_config *c);
#define STEER_CIRCLE_SPACING 20.0 /* u between neighbours on the circle: 4 radii */
#define STEER_CIRCLE_FILL    0.9
#define STEER_CIRCLE_MAX     2000.0
/* u between neighbours in the blocks of the crossing and doorway scenarios */
#define STEER_CROWD_SPACING 20.0
/* The crowd scenarios' walkers' avoid_buffer */
#define STEER_WALKER_BUFFER 2.0
/* The narrowest gap the formation and hide scenarios leave between their circles:
 * wider than a default avoider needs, 2 x (radius 5 + avoid_buffer 20) */
#define STEER_SCENARIO_GAP 60.0
/* The maze scenario's cells: about this across (between 2 and 64 a side) */
#define STEER_MAZE_CELL 80.0
/* The doorway scenario's door: room for four bodies of radius 5 abreast */
#define STEER_DOOR_WIDTH 40.0

/* The pedestrians scenario's corridor half-width, and the most walkers it places */
#define STEER_PEDESTRIANS_RADIUS 30.0
#define STEER_PEDESTRIANS_MAX    200.0

/* The flock scenario: one bird per STEER_FLOCK_AREA square units (40 to 400), of up
 * to STEER_FLOCK_KINDS kinds (groups) of about STEER_FLOCK_PER_KIND; one bird in
 * STEER_FLOCK_WANDER_EVERY of each kind wanders. */
#define STEER_FLOCK_AREA         3000.0
#define STEER_FLOCK_KINDS        8.0
#define STEER_FLOCK_PER_KIND     25
#define STEER_FLOCK_WANDER_EVERY 4

/* `spawn flock`'s preset, and the base of the flock scenario's birds: tuned so that
 * they gather into aligned groups instead of milling (see BEHAVIORS.md's
 * measurements). */
steer_params steer_flock_params(void);

#endif
