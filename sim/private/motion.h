/* Moving vehicles by their forces over one timestep and keeping them inside the
 * world's edges. The step itself is written in kernel.c, in lanes, and gives the
 * same bits in every kernel form. */
#ifndef STEER_MOTION_H
#define STEER_MOTION_H

#include <stddef.h>

#include "kernel.h"
#include "palette.h"
#include "steer/world.h"

/* Wraps or bounces a position (and, bouncing, the velocity) back inside the world;
 * edges "none" only keep it within STEER_MAX_COORD, the bound a save can restore. */
void steer_apply_edges(const steer_world_config *c, double *x, double *y, double *vx, double *vy);

/* For vehicles [from, to): velocity += force / mass * dt, truncated to max_speed;
 * position += velocity * dt, then the edges; the heading follows the velocity
 * unless the vehicle is all but still. Each vehicle reads and writes only its own
 * slot, so ranges may run on different threads. k: the kernel form to run it in.
 * *speed2 is raised to the largest vx * vx + vy * vy the step leaves (the bodies
 * pass's bound on the moves, without another pass over the velocities). */
void steer_motion_step(const steer_kernel *k, steer_vehicles *v, const steer_palette *params,
                       const steer_world_config *c, double dt, size_t from, size_t to,
                       double *speed2);

#endif
