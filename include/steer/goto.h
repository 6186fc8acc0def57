/* goto: a vehicle planning its own way around the world's obstacles to a point,
 * and following the route (docs/BEHAVIORS.md, "goto"). */
#ifndef STEER_GOTO_H
#define STEER_GOTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "api.h"
#include "status.h"
#include "vec2.h"
#include "world.h"

#ifdef __cplusplus
extern "C" {
#endif

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
 * the cells a command may search (16,384 grid cells) is the vehicle's path at once
 * (arriving at the last point); else rep->planning, and the plan goes on in the ticks
 * while the vehicle follows the path it had.
 * NOENT, INVALID (goal not finite), LIMIT (a route of more than STEER_MAX_WAYPOINTS),
 * NOMEM; the vehicle unchanged on error. A plan done in the ticks whose route is over
 * the limit ends there, the vehicle keeping the route it had. */
STEER_API steer_status steer_vehicle_goto(steer_world *w, uint32_t id, steer_vec2 goal,
                                          steer_goto_report *rep);
/* Turns goto off, with its route (the path) and path following. */
STEER_API steer_status steer_vehicle_goto_off(steer_world *w, uint32_t id);

#ifdef __cplusplus
}
#endif

#endif
