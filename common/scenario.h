/* The seeds' demos as built-in scenarios, loadable by name. */
#ifndef STEER_SCENARIO_H
#define STEER_SCENARIO_H

#include "steer/world.h"

/* NULL-terminated list of names, in a stable order for help texts. */
extern const char *const steer_scenario_names[];

/* Resets the world (keeping its size, tick rate and seed; setting the edges the
 * demo wants) and populates it. Placement draws from the world's generator, so a
 * scenario is as reproducible as the seed. INVALID for an unknown name. */
steer_status steer_scenario_load(steer_world *w, const char *name);

/* The parameters the flock scenario gives its boids: tuned so that they gather into
 * aligned groups instead of milling (see BEHAVIORS.md's measurements). */
steer_params steer_flock_params(void);

#endif
