#include "targets.h"

#include "world_internal.h"

steer_vec2 steer_target_free(const steer_world *w, steer_vec2 target, double radius)
{
	if (w->obs_count == 0 && w->geom.nsegs == 0 && w->geom.nregions == 0)
		return target;
	if (!steer_geom_blocked(w, target, radius, 0.0))
		return target;
	steer_vec2 out;
	return steer_geom_free_point(w, target, radius, &out) == STEER_OK ? out : target;
}

double steer_target_clearance(const steer_params *p, uint32_t behaviors)
{
	return p->radius + (behaviors & STEER_AVOID ? p->avoid_buffer : 0.0);
}

steer_vec2 steer_target_free_memo(const steer_world *w, steer_free_memo *m, steer_vec2 target,
                                  double radius)
{
	uint64_t epoch = w->geom.epoch;
	if (m->epoch == epoch && m->target.x == target.x && m->target.y == target.y &&
	    m->radius == radius)
		return m->at;
	steer_vec2 at = steer_target_free(w, target, radius);
	*m = (steer_free_memo){target, at, radius, epoch};
	return at;
}
