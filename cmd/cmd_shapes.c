/* Commands on shapes: obstacles, walls, polygons. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "behaviors.h"
#include "cmd_internal.h"
#include "format_cut.h"
#include "savefile.h"
#include "scenario.h"
#include "steer/goto.h"
#include "targets.h"
#include "utf8.h"

steer_status steer_cmd_parse_obstacle(steer_command *c, int argc, char **argv, char *err,
                                      size_t errlen)
{
	if (steer_arg_coord("X", argv[1], &c->x, err, errlen) ||
	    steer_arg_coord("Y", argv[2], &c->y, err, errlen) ||
	    steer_arg_num("R", argv[3], &c->r, err, errlen))
		return STEER_ERR_INVALID;
	if (!(c->r > 0 && c->r <= STEER_PARAM_MAX))
		return steer_cmd_fail(err, errlen,
		                      "R: radius must be greater than 0 and at most %g",
		                      STEER_PARAM_MAX);
	return steer_arg_kvs(c, 4, argc, argv, KV_VELOCITY, err, errlen);
}

steer_status steer_cmd_run_obstacle(const steer_command *c, steer_session *s, const steer_host *h,
                                    steer_reply *r)
{
	(void)h;
	steer_vec2 vel = v2(0, 0);
	bool has_vel = false;
	steer_params unused = steer_params_default();
	steer_arg_apply_kvs(c, &unused, &vel, &has_vel);
	char msg[160];
	if (steer_world_radius_check(steer_world_config_get(s->world), c->r, msg, sizeof msg) !=
	    STEER_OK)
		return steer_reply_fail(r, "%s", msg);
	uint32_t id;
	steer_status st = steer_obstacle_add(s->world, v2(c->x, c->y), vel, c->r, &id);
	if (st != STEER_OK)
		return steer_reply_status(r, st, 0);
	steer_strbuf_printf(&r->json, "{\"id\":%u}", id);
	return STEER_OK;
}

/* Pairs of numbers from argv[first] on (to argc) into c->points. */
static steer_status parse_points(steer_command *c, int first, int argc, char **argv, char *err,
                                 size_t errlen)
{
	char q[STEER_QUOTE_SIZE];
	if ((argc - first) % 2)
		return steer_cmd_fail(err, errlen, "'%s' has no Y: points come as X Y pairs",
		                      steer_quote_cut(argv[argc - 1], q));
	c->npoints = 0;
	for (int i = first; i + 1 < argc; i += 2) {
		if (c->npoints == STEER_CMD_MAX_POINTS)
			return steer_cmd_fail(err, errlen, "more than %d points",
			                      STEER_CMD_MAX_POINTS);
		steer_vec2 *p = &c->points[c->npoints];
		if (steer_arg_coord("X", argv[i], &p->x, err, errlen) ||
		    steer_arg_coord("Y", argv[i + 1], &p->y, err, errlen))
			return STEER_ERR_INVALID;
		if (!steer_vec_ok(*p))
			return steer_cmd_fail(err, errlen,
			                      "(%s, %s): coordinates must be within %g", argv[i],
			                      argv[i + 1], STEER_MAX_COORD);
		c->npoints++;
	}
	return STEER_OK;
}

steer_status steer_cmd_parse_wall(steer_command *c, int argc, char **argv, char *err, size_t errlen)
{
	if (parse_points(c, 1, argc, argv, err, errlen))
		return STEER_ERR_INVALID;
	if (c->points[0].x == c->points[1].x && c->points[0].y == c->points[1].y)
		return steer_cmd_fail(err, errlen, "a wall needs two different ends");
	return STEER_OK;
}

steer_status steer_cmd_run_wall(const steer_command *c, steer_session *s, const steer_host *h,
                                steer_reply *r)
{
	(void)h;
	uint32_t id;
	steer_status st = steer_wall_add(s->world, c->points[0], c->points[1], &id);
	if (st != STEER_OK)
		return steer_reply_status(r, st, 0);
	steer_strbuf_printf(&r->json, "{\"id\":%u}", id);
	return STEER_OK;
}

_Static_assert(STEER_CMD_MAX_POINTS == 127, "the polygon command's help says 127 points");
steer_status steer_cmd_parse_polygon(steer_command *c, int argc, char **argv, char *err,
                                     size_t errlen)
{
	c->on = argc > 1 && !strcmp(argv[argc - 1], "inside");
	for (int i = 1; i < argc - 1; i++)
		if (!strcmp(argv[i], "inside"))
			return steer_cmd_fail(err, errlen, "'inside' comes last, after the points");
	if (parse_points(c, 1, c->on ? argc - 1 : argc, argv, err, errlen))
		return STEER_ERR_INVALID;
	if (c->npoints < 3)
		return steer_cmd_fail(err, errlen, "a polygon needs at least 3 points");
	return STEER_OK;
}

steer_status steer_cmd_run_polygon(const steer_command *c, steer_session *s, const steer_host *h,
                                   steer_reply *r)
{
	(void)h;
	uint32_t id;
	char err[200];
	steer_status st =
	    steer_polygon_add(s->world, c->points, c->npoints, c->on, &id, err, sizeof err);
	if (st == STEER_ERR_INVALID)
		return steer_reply_fail(r, "%s", err);
	if (st != STEER_OK)
		return steer_reply_status(r, st, 0);
	steer_strbuf_printf(&r->json, "{\"id\":%u}", id);
	return STEER_OK;
}
