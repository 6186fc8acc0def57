#include "motion.h"

#include <math.h>

#include "kernel.h"

void steer_apply_edges(const steer_world_config *c, double *x, double *y, double *vx, double *vy)
{
	if (c->edges == STEER_EDGE_WRAP) {
		if (*x < 0.0 || *x >= c->width) {
			*x -= c->width * floor(*x / c->width);
			if (*x >= c->width) /* rounding of a tiny negative */
				*x = 0.0;
		}
		if (*y < 0.0 || *y >= c->height) {
			*y -= c->height * floor(*y / c->height);
			if (*y >= c->height)
				*y = 0.0;
		}
	} else if (c->edges == STEER_EDGE_BOUNCE) {
		if (*x < 0.0) {
			*x = 0.0;
			*vx = fabs(*vx);
		} else if (*x > c->width) {
			*x = c->width;
			*vx = -fabs(*vx);
		}
		if (*y < 0.0) {
			*y = 0.0;
			*vy = fabs(*vy);
		} else if (*y > c->height) {
			*y = c->height;
			*vy = -fabs(*vy);
		}
	} else {
		/* No edges, yet not unbounded: past STEER_MAX_COORD the world would hold a
		 * vehicle that no save could restore. */
		*x = fmin(fmax(*x, -STEER_MAX_COORD), STEER_MAX_COORD);
		*y = fmin(fmax(*y, -STEER_MAX_COORD), STEER_MAX_COORD);
	}
}

void steer_motion_step(const steer_kernel *k, steer_vehicles *v, const steer_palette *params,
                       const steer_world_config *c, double dt, size_t from, size_t to,
                       double *speed2)
{
	/* The whole lane groups in k's form, the rest one at a time. */
	size_t i = k->move(v, params, c, dt, from, to, speed2);
	steer_kernel_scalar.move(v, params, c, dt, i, to, speed2);
}
