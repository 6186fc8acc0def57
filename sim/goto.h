/* goto, as the layers above the simulation see it: the command's call and report,
 * and what a world record (a save, a rewind image, a rank's pack) keeps of a goto
 * vehicle. The planner behind it is private (private/planner.h). */
#ifndef STEER_GOTO_H
#define STEER_GOTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "steer/world.h"

/* What `goto` did, for its reply. */
typedef struct steer_goto_report {
	bool planning;    /* the plan goes on in the next ticks: nothing below is set */
	bool reached;     /* false: the goal is unreachable, end is the nearest point */
	steer_vec2 end;   /* where the route ends */
	size_t waypoints; /* the route's */
	double radius;    /* the clearance it was planned for */
} steer_goto_report;

/* goto: turns goto and path on, seek, arrive, pursue, wander, follow, hide and
 * interpose off, and plans from the vehicle's position to goal. A plan done within
 * the cells a command may search (private/planner.h) is the vehicle's path at once
 * (arriving at the last point); else rep->planning, and the plan goes on in the ticks
 * while the vehicle follows the path it had.
 * NOENT, INVALID (goal not finite), LIMIT (a route of more than STEER_MAX_WAYPOINTS),
 * NOMEM; the vehicle unchanged on error. A plan done in the ticks whose route is over
 * the limit ends there, the vehicle keeping the route it had. */
steer_status steer_vehicle_goto(steer_world *w, uint32_t id, steer_vec2 goal,
                                steer_goto_report *rep);
/* Turns goto off, with its route (the path) and path following. */
steer_status steer_vehicle_goto_off(steer_world *w, uint32_t id);

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
