/* What a world record (a save, a rewind image, a rank's pack) keeps of a goto
 * vehicle, for the layers that write and read them; the API is steer/goto.h and the
 * planner behind it private/planner.h. */
#ifndef STEER_GOTO_RECORD_H
#define STEER_GOTO_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "steer/goto.h"
#include "steer/world.h"

/* After a load: marks the goto vehicles saved as up to date with their geometry as up
 * to date with the loaded world's, so the loaded world replans exactly when the saved
 * one would have. */
void steer_goto_loaded(steer_world *w);
/* Whether a vehicle never had a goto (every field zero): field by field, as padding
 * bytes have no set value. */
static inline bool steer_goto_none(const steer_goto_state *g)
{
	return g->goal.x == 0.0 && g->goal.y == 0.0 && g->from.x == 0.0 && g->from.y == 0.0 &&
	       g->radius == 0.0 && g->tried == 0 && g->epoch == 0 && !g->reached && !g->planning &&
	       g->restarts == 0 && g->start.x == 0.0 && g->start.y == 0.0 && g->began == 0 &&
	       g->spent == 0;
}

/* The geometry's epoch, which a goto vehicle's go.epoch equals when its route was
 * checked against the geometry as it is. */
uint64_t steer_goto_epoch(const steer_world *w);
/* The epoch value a restored record carries for "was up to date when saved". */
#define STEER_GOTO_FRESH UINT64_MAX

#endif
