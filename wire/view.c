/* Views: the rectangle a client watches, and what counts as inside it. */
#include "steer/wire.h"

#include <math.h>

static bool coord_ok(double c)
{
	return c >= -STEER_VIEW_COORD_MAX && c <= STEER_VIEW_COORD_MAX; /* false on NaN */
}

bool steer_view_rect_ok(double x0, double y0, double x1, double y1)
{
	return coord_ok(x0) && coord_ok(y0) && coord_ok(x1) && coord_ok(y1) && x1 > x0 && y1 > y0;
}

double steer_view_margin(const steer_view *v)
{
	return 0.05 * fmax(v->x1 - v->x0, v->y1 - v->y0);
}

bool steer_view_contains(const steer_view *v, double x, double y, double margin)
{
	return !v->set || (x >= v->x0 - margin && x <= v->x1 + margin && y >= v->y0 - margin &&
	                   y <= v->y1 + margin);
}

bool steer_view_same(const steer_view *a, const steer_view *b)
{
	if (a->set != b->set)
		return false;
	return !a->set || (a->x0 == b->x0 && a->y0 == b->y0 && a->x1 == b->x1 && a->y1 == b->y1);
}
