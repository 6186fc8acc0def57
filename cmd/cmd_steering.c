/* Commands that say what vehicles steer by: seek, flee, arrive, pursue, evade,
 * follow, hide, interpose, formations, the behaviours turned on and off, paths,
 * goto. */
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

/* seek/flee/arrive ID X Y, or ID off */
steer_status steer_cmd_parse_target(steer_command *c, int argc, char **argv, char *err,
                                    size_t errlen)
{
	if (steer_arg_id("ID", argv[1], &c->id, err, errlen))
		return STEER_ERR_INVALID;
	if (argc == 3) {
		if (strcmp(argv[2], "off"))
			return steer_cmd_fail(err, errlen, "usage: %s ID X Y | %s ID off", argv[0],
			                      argv[0]);
		c->sub = 1;
		return STEER_OK;
	}
	if (argc != 4)
		return steer_cmd_fail(err, errlen, "usage: %s ID X Y | %s ID off", argv[0],
		                      argv[0]);
	return steer_arg_coord("X", argv[2], &c->x, err, errlen) ||
	               steer_arg_coord("Y", argv[3], &c->y, err, errlen)
	           ? -1
	           : 0;
}

static uint32_t entry_bit(const steer_command *c)
{
	return steer_behavior_bit(c->entry->name);
}

/* The "ID off" form shared by seek/flee/arrive/pursue/evade; -1 when not that form
 * or the vehicle is unknown, with the reply written. */
static steer_status turn_off_or_check(const steer_command *c, steer_session *s, steer_reply *r,
                                      bool *done)
{
	*done = c->sub == 1;
	if (*done)
		return steer_reply_status(
		    r, steer_vehicle_enable(s->world, c->id, entry_bit(c), false), c->id);
	if (steer_vehicle_index(s->world, c->id) < 0)
		return steer_reply_fail(r, "no vehicle with id %u", c->id);
	return STEER_OK;
}

steer_status steer_cmd_run_target(const steer_command *c, steer_session *s, const steer_host *h,
                                  steer_reply *r)
{
	(void)h;
	bool done;
	steer_status rc = turn_off_or_check(c, s, r, &done);
	if (rc || done)
		return rc;
	return steer_reply_status(
	    r, steer_vehicle_target(s->world, c->id, entry_bit(c), v2(c->x, c->y)), c->id);
}

/* pursue/evade ID OTHER, hide ID HUNTER, or ID off */
steer_status steer_cmd_parse_chase(steer_command *c, int argc, char **argv, char *err,
                                   size_t errlen)
{
	(void)argc;
	if (steer_arg_id("ID", argv[1], &c->id, err, errlen))
		return STEER_ERR_INVALID;
	if (!strcmp(argv[2], "off")) {
		c->sub = 1;
		return STEER_OK;
	}
	/* Named as the usage line names it. */
	if (steer_arg_id(strcmp(argv[0], "hide") ? "OTHER" : "HUNTER", argv[2], &c->other, err,
	                 errlen))
		return STEER_ERR_INVALID;
	if (c->other == c->id)
		return steer_cmd_fail(err, errlen, "a vehicle cannot %s%s itself", argv[0],
		                      strcmp(argv[0], "hide") ? "" : " from");
	return STEER_OK;
}

steer_status steer_cmd_run_chase(const steer_command *c, steer_session *s, const steer_host *h,
                                 steer_reply *r)
{
	(void)h;
	bool done;
	steer_status rc = turn_off_or_check(c, s, r, &done);
	if (rc || done)
		return rc;
	if (steer_vehicle_index(s->world, c->other) < 0)
		return steer_reply_fail(r, "no vehicle with id %u to %s", c->other, c->entry->name);
	return steer_reply_status(r, steer_vehicle_chase(s->world, c->id, entry_bit(c), c->other),
	                          c->id);
}

/* follow ID LEADER DX DY, or ID off */
steer_status steer_cmd_parse_follow(steer_command *c, int argc, char **argv, char *err,
                                    size_t errlen)
{
	if (steer_arg_id("ID", argv[1], &c->id, err, errlen))
		return STEER_ERR_INVALID;
	if (argc == 3 && !strcmp(argv[2], "off")) {
		c->sub = 1;
		return STEER_OK;
	}
	if (argc != 5)
		return steer_cmd_fail(err, errlen, "usage: follow ID LEADER DX DY | follow ID off");
	if (steer_arg_id("LEADER", argv[2], &c->other, err, errlen) ||
	    steer_arg_coord("DX", argv[3], &c->x, err, errlen) ||
	    steer_arg_coord("DY", argv[4], &c->y, err, errlen))
		return STEER_ERR_INVALID;
	if (c->other == c->id)
		return steer_cmd_fail(err, errlen, "a vehicle cannot follow itself");
	if (!steer_vec_ok(v2(c->x, c->y)))
		return steer_cmd_fail(err, errlen, "DX DY: the offset must be within %g",
		                      STEER_MAX_COORD);
	return STEER_OK;
}

steer_status steer_cmd_run_follow(const steer_command *c, steer_session *s, const steer_host *h,
                                  steer_reply *r)
{
	(void)h;
	bool done;
	steer_status rc = turn_off_or_check(c, s, r, &done);
	if (rc || done)
		return rc;
	if (steer_vehicle_index(s->world, c->other) < 0)
		return steer_reply_fail(r, "no vehicle with id %u to follow", c->other);
	return steer_reply_status(
	    r, steer_vehicle_follow(s->world, c->id, c->other, v2(c->x, c->y)), c->id);
}

steer_status steer_cmd_run_hide(const steer_command *c, steer_session *s, const steer_host *h,
                                steer_reply *r)
{
	(void)h;
	bool done;
	steer_status rc = turn_off_or_check(c, s, r, &done);
	if (rc || done)
		return rc;
	if (steer_vehicle_index(s->world, c->other) < 0)
		return steer_reply_fail(r, "no vehicle with id %u to hide from", c->other);
	return steer_reply_status(r, steer_vehicle_hide(s->world, c->id, c->other), c->id);
}

/* interpose ID A B, or ID off */
steer_status steer_cmd_parse_interpose(steer_command *c, int argc, char **argv, char *err,
                                       size_t errlen)
{
	if (steer_arg_id("ID", argv[1], &c->id, err, errlen))
		return STEER_ERR_INVALID;
	if (argc == 3 && !strcmp(argv[2], "off")) {
		c->sub = 1;
		return STEER_OK;
	}
	if (argc != 4)
		return steer_cmd_fail(err, errlen, "usage: interpose ID A B | interpose ID off");
	if (steer_arg_id("A", argv[2], &c->other, err, errlen) ||
	    steer_arg_id("B", argv[3], &c->count, err, errlen))
		return STEER_ERR_INVALID;
	if (c->other == c->id || c->count == c->id)
		return steer_cmd_fail(err, errlen,
		                      "a vehicle cannot interpose between itself and another");
	if (c->other == c->count)
		return steer_cmd_fail(
		    err, errlen, "interpose needs two different vehicles, not %u twice", c->other);
	return STEER_OK;
}

steer_status steer_cmd_run_interpose(const steer_command *c, steer_session *s, const steer_host *h,
                                     steer_reply *r)
{
	(void)h;
	bool done;
	steer_status rc = turn_off_or_check(c, s, r, &done);
	if (rc || done)
		return rc;
	uint32_t ab[2] = {c->other, c->count};
	for (int k = 0; k < 2; k++)
		if (steer_vehicle_index(s->world, ab[k]) < 0)
			return steer_reply_fail(r, "no vehicle with id %u to interpose near",
			                        ab[k]);
	return steer_reply_status(r, steer_vehicle_interpose(s->world, c->id, c->other, c->count),
	                          c->id);
}

/* formation LEADER line|column|wedge|ring SPACING ID... */
steer_status steer_cmd_parse_formation(steer_command *c, int argc, char **argv, char *err,
                                       size_t errlen)
{
	if (steer_arg_id("LEADER", argv[1], &c->id, err, errlen))
		return STEER_ERR_INVALID;
	c->sub = -1;
	for (int k = 0; steer_formation_names[k]; k++)
		if (!strcmp(argv[2], steer_formation_names[k]))
			c->sub = k;
	char q[STEER_QUOTE_SIZE];
	if (c->sub < 0)
		return steer_cmd_fail(err, errlen,
		                      "'%s' is not a formation: line, column, wedge or ring",
		                      steer_quote_cut(argv[2], q));
	if (steer_arg_num("SPACING", argv[3], &c->r, err, errlen))
		return STEER_ERR_INVALID;
	if (!(c->r > 0.0 && c->r <= STEER_PARAM_MAX))
		return steer_cmd_fail(err, errlen, "SPACING: %s is not more than 0 and at most %g",
		                      argv[3], STEER_PARAM_MAX);
	if (argc - 4 > STEER_CMD_MAX_FOLLOWERS)
		return steer_cmd_fail(err, errlen, "%d followers: a formation takes at most %d",
		                      argc - 4, STEER_CMD_MAX_FOLLOWERS);
	c->nids = 0;
	for (int k = 4; k < argc; k++) {
		uint32_t id = 0;
		if (steer_arg_id("ID", argv[k], &id, err, errlen))
			return STEER_ERR_INVALID;
		if (id == c->id)
			return steer_cmd_fail(err, errlen,
			                      "%u is the leader: it cannot follow itself", id);
		for (uint32_t j = 0; j < c->nids; j++)
			if (c->ids[j] == id)
				return steer_cmd_fail(err, errlen, "%u is given twice", id);
		c->ids[c->nids++] = id;
	}
	return STEER_OK;
}

steer_status steer_cmd_run_formation(const steer_command *c, steer_session *s, const steer_host *h,
                                     steer_reply *r)
{
	(void)h;
	steer_world *w = s->world;
	if (steer_vehicle_index(w, c->id) < 0)
		return steer_reply_fail(r, "no vehicle with id %u to lead", c->id);
	/* Every place is at least SPACING from its neighbours: the widest two bodies
	 * must fit side by side there. */
	double widest = steer_vehicle_params(w, c->id)->radius;
	for (uint32_t k = 0; k < c->nids; k++) {
		const steer_params *p = steer_vehicle_params(w, c->ids[k]);
		if (!p)
			return steer_reply_fail(r, "no vehicle with id %u to follow %u", c->ids[k],
			                        c->id);
		widest = fmax(widest, p->radius);
	}
	if (c->r < 2.0 * widest)
		return steer_reply_fail(r,
		                        "spacing %g is less than the widest body's diameter %g: "
		                        "the places would overlap",
		                        c->r, 2.0 * widest);
	steer_strbuf_puts(&r->json, "{\"offsets\":[");
	for (uint32_t k = 0; k < c->nids; k++) {
		steer_vec2 off = steer_formation_offset((steer_formation)c->sub, k, c->nids, c->r);
		/* Only memory can fail here, and only for a follower that had no extras. */
		steer_status st = steer_vehicle_follow(w, c->ids[k], c->id, off);
		if (st != STEER_OK)
			return steer_reply_status(r, st, c->ids[k]);
		double xy[2] = {off.x, off.y};
		if (k)
			steer_strbuf_puts(&r->json, ",");
		steer_json_nums(&r->json, xy, 2);
	}
	steer_strbuf_puts(&r->json, "]}");
	return STEER_OK;
}

/* wander/avoid/flock ID on|off */
steer_status steer_cmd_parse_toggle(steer_command *c, int argc, char **argv, char *err,
                                    size_t errlen)
{
	(void)argc;
	if (steer_arg_id("ID", argv[1], &c->id, err, errlen))
		return STEER_ERR_INVALID;
	return steer_arg_onoff(argv[2], &c->on, err, errlen);
}

steer_status steer_cmd_run_toggle(const steer_command *c, steer_session *s, const steer_host *h,
                                  steer_reply *r)
{
	(void)h;
	return steer_reply_status(r, steer_vehicle_enable(s->world, c->id, entry_bit(c), c->on),
	                          c->id);
}

steer_status steer_cmd_parse_waypoint(steer_command *c, int argc, char **argv, char *err,
                                      size_t errlen)
{
	(void)argc;
	return steer_arg_id("ID", argv[1], &c->id, err, errlen) ||
	               steer_arg_coord("X", argv[2], &c->x, err, errlen) ||
	               steer_arg_coord("Y", argv[3], &c->y, err, errlen)
	           ? -1
	           : 0;
}

steer_status steer_cmd_run_waypoint(const steer_command *c, steer_session *s, const steer_host *h,
                                    steer_reply *r)
{
	(void)h;
	steer_status st = steer_vehicle_path_add(s->world, c->id, v2(c->x, c->y));
	if (st == STEER_ERR_LIMIT)
		return steer_reply_fail(r, "vehicle %u already has %u waypoints (the limit)", c->id,
		                        STEER_MAX_WAYPOINTS);
	if (st != STEER_OK)
		return steer_reply_status(r, st, c->id);
	steer_strbuf_printf(&r->json, "{\"waypoints\":%u}",
	                    steer_vehicle_get(s->world, c->id)->path.count);
	return STEER_OK;
}

/* path ID clear | path ID loop on|off */
steer_status steer_cmd_parse_path(steer_command *c, int argc, char **argv, char *err, size_t errlen)
{
	if (steer_arg_id("ID", argv[1], &c->id, err, errlen))
		return STEER_ERR_INVALID;
	if (argc == 3 && !strcmp(argv[2], "clear")) {
		c->sub = 0;
		return STEER_OK;
	}
	if (argc == 4 && !strcmp(argv[2], "loop")) {
		c->sub = 1;
		return steer_arg_onoff(argv[3], &c->on, err, errlen);
	}
	return steer_cmd_fail(err, errlen, "usage: path ID clear | path ID loop on|off");
}

steer_status steer_cmd_run_path(const steer_command *c, steer_session *s, const steer_host *h,
                                steer_reply *r)
{
	(void)h;
	steer_status st = c->sub == 0 ? steer_vehicle_path_clear(s->world, c->id)
	                              : steer_vehicle_path_loop(s->world, c->id, c->on);
	return steer_reply_status(r, st, c->id);
}

/* goto ID X Y | goto ID off */
steer_status steer_cmd_parse_goto(steer_command *c, int argc, char **argv, char *err, size_t errlen)
{
	if (steer_arg_id("ID", argv[1], &c->id, err, errlen))
		return STEER_ERR_INVALID;
	if (argc == 3) {
		if (strcmp(argv[2], "off"))
			return steer_cmd_fail(err, errlen, "usage: goto ID X Y | goto ID off");
		c->sub = 1;
		return STEER_OK;
	}
	if (steer_arg_coord("X", argv[2], &c->x, err, errlen) ||
	    steer_arg_coord("Y", argv[3], &c->y, err, errlen))
		return STEER_ERR_INVALID;
	if (!steer_vec_ok(v2(c->x, c->y)))
		return steer_cmd_fail(err, errlen, "(%s, %s): coordinates must be within %g",
		                      argv[2], argv[3], STEER_MAX_COORD);
	return STEER_OK;
}

steer_status steer_cmd_run_goto(const steer_command *c, steer_session *s, const steer_host *h,
                                steer_reply *r)
{
	(void)h;
	if (steer_vehicle_index(s->world, c->id) < 0)
		return steer_reply_fail(r, "no vehicle with id %u", c->id);
	if (c->sub == 1)
		return steer_reply_status(r, steer_vehicle_goto_off(s->world, c->id), c->id);
	/* A bounce world's edges are walls: a goal past them cannot be reached, and
	 * the vehicle would press against the edge for ever. */
	const steer_world_config *cfg = steer_world_config_get(s->world);
	if (cfg->edges == STEER_EDGE_BOUNCE &&
	    (c->x < 0.0 || c->x > cfg->width || c->y < 0.0 || c->y > cfg->height))
		return steer_reply_fail(r,
		                        "goto: (%g, %g) is outside this bounce world (0..%g x "
		                        "0..%g), so no route reaches it",
		                        c->x, c->y, cfg->width, cfg->height);
	steer_goto_report rep;
	steer_status st = steer_vehicle_goto(s->world, c->id, v2(c->x, c->y), &rep);
	if (st == STEER_ERR_LIMIT)
		return steer_reply_fail(r, "the route to (%g, %g) needs more than %u waypoints",
		                        c->x, c->y, STEER_MAX_WAYPOINTS);
	if (st != STEER_OK)
		return steer_reply_status(r, st, c->id);
	steer_strbuf *b = &r->json;
	if (rep.planning) {
		steer_strbuf_puts(b, "{\"planning\":true,\"note\":");
		steer_json_str(b, "a long way: planned over the next ticks (get ID shows "
		                  "goto.planning); until then it follows the route it had, if any");
		steer_strbuf_puts(b, "}");
		return STEER_OK;
	}
	double end[2] = {rep.end.x, rep.end.y};
	steer_strbuf_printf(b, "{\"reached\":%s,\"waypoints\":%zu,\"end\":",
	                    rep.reached ? "true" : "false", rep.waypoints);
	steer_json_nums(b, end, 2);
	steer_strbuf_puts(b, ",\"clearance\":");
	steer_json_num(b, rep.radius);
	if (!rep.reached) {
		char msg[256];
		snprintf(
		    msg, sizeof msg,
		    "(%g, %g) cannot be reached; going to the nearest reachable point (%g, %g)",
		    c->x, c->y, rep.end.x, rep.end.y);
		steer_strbuf_puts(b, ",\"note\":");
		steer_json_str(b, msg);
	}
	steer_strbuf_puts(b, "}");
	return STEER_OK;
}
