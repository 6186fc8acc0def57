#include "follow.h"

#include <math.h>
#include <string.h>

void tui_follow_start(tui_follow *f, uint32_t id)
{
	memset(f, 0, sizeof *f);
	f->id = id;
}

static double wrap(double u, double size)
{
	double r = fmod(u, size);
	return r < 0 ? r + size : r;
}

bool tui_follow_centre(tui_follow *f, const steer_snapshot *s, double *cx, double *cy,
                       bool *predicted)
{
	*predicted = false;
	if (!f->id)
		return false;
	for (size_t k = 0; k < s->count; k++) {
		const steer_snap_vehicle *v = &s->v[k];
		if (v->id != f->id)
			continue;
		f->seen = true;
		f->x = v->x, f->y = v->y, f->vx = v->vx, f->vy = v->vy;
		f->tick = s->tick;
		*cx = v->x;
		*cy = v->y;
		return true;
	}
	/* Gone from the view: across a wrap edge (the only way a centred vehicle leaves
	 * a view), unless the world does not wrap or it has been gone too long. */
	if (!f->seen || s->edges != STEER_EDGE_WRAP || !(s->tick_rate > 0) || !(s->width > 0) ||
	    !(s->height > 0) || s->tick < f->tick)
		return false;
	double dt = (double)(s->tick - f->tick) / s->tick_rate;
	if (dt > TUI_FOLLOW_LOST_S)
		return false;
	/* One that could not have reached an edge since it was seen was removed, not
	 * wrapped: the slack covers a turn towards the edge between snapshots. */
	double edge = fmin(fmin(f->x, s->width - f->x), fmin(f->y, s->height - f->y));
	if (edge > hypot(f->vx, f->vy) * (dt + TUI_FOLLOW_SLACK_S))
		return false;
	*cx = wrap(f->x + f->vx * dt, s->width);
	*cy = wrap(f->y + f->vy * dt, s->height);
	*predicted = isfinite(*cx) && isfinite(*cy);
	return *predicted;
}
