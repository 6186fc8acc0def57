/* Replies: a command's JSON or its error, and the JSON of the things replies show. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "behaviors.h"
#include "cmd_internal.h"
#include "savefile.h"
#include "scenario.h"
#include "steer/goto.h"
#include "targets.h"
#include "utf8.h"

void steer_reply_init(steer_reply *r)
{
	r->ok = true;
	r->close = false;
	steer_strbuf_init(&r->json);
	r->error[0] = '\0';
}

void steer_reply_free(steer_reply *r)
{
	steer_strbuf_free(&r->json);
}

steer_status steer_reply_fail(steer_reply *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	steer_cmd_format_clean(r->error, sizeof r->error, fmt, ap);
	va_end(ap);
	r->ok = false;
	steer_strbuf_clear(&r->json);
	return STEER_ERR_REFUSED;
}

steer_status steer_reply_status(steer_reply *r, steer_status st, uint32_t id)
{
	switch (st) {
	case STEER_OK:
		return STEER_OK;
	case STEER_ERR_NOENT:
		return steer_reply_fail(r, "no vehicle or obstacle with id %u", id);
	case STEER_ERR_NOMEM:
		return steer_reply_fail(r, "out of memory; the world is unchanged");
	case STEER_ERR_LIMIT:
		return steer_reply_fail(
		    r, "a limit of the world was reached (vehicles, obstacles, walls or "
		       "waypoints); the world is unchanged");
	case STEER_ERR_ACCESS:
	case STEER_ERR_REFUSED:
	case STEER_ERR_IO: /* not the world's codes: for completeness */
		return steer_reply_fail(r, "%s", steer_status_str(st));
	case STEER_ERR_INVALID:
		break;
	}
	return steer_reply_fail(r,
	                        "invalid argument: coordinates and velocities must be within %g, "
	                        "radii at most %g (an obstacle's greater than 0)",
	                        STEER_MAX_COORD, STEER_PARAM_MAX);
}

void steer_reply_text(const steer_reply *r, steer_strbuf *line)
{
	if (!r->ok) {
		/* Escaped again: the host writes some errors itself. */
		char clean[sizeof r->error];
		steer_utf8_escape(clean, sizeof clean, r->error, strlen(r->error));
		steer_strbuf_puts(line, "ERR ");
		steer_strbuf_puts(line, clean);
	} else if (r->json.len) {
		steer_strbuf_puts(line, "OK ");
		steer_strbuf_put(line, r->json.data, r->json.len);
	} else {
		steer_strbuf_puts(line, "OK");
	}
}

void steer_reply_behaviors(steer_strbuf *b, uint32_t bits)
{
	steer_strbuf_puts(b, "[");
	bool first = true;
	for (int k = 0; k < STEER_BEHAVIOR_COUNT; k++)
		if (bits & (1u << k)) {
			if (!first)
				steer_strbuf_puts(b, ",");
			steer_json_str(b, steer_behavior_name(1u << k));
			first = false;
		}
	steer_strbuf_puts(b, "]");
}

void steer_reply_vec_field(steer_strbuf *b, const char *kx, double x, const char *ky, double y)
{
	steer_strbuf_printf(b, ",\"%s\":", kx);
	steer_json_num(b, x);
	steer_strbuf_printf(b, ",\"%s\":", ky);
	steer_json_num(b, y);
}

void steer_reply_vehicle_brief(steer_strbuf *b, const steer_vehicles *v, size_t i)
{
	steer_strbuf_printf(b, "{\"id\":%u", v->id[i]);
	steer_reply_vec_field(b, "x", v->px[i], "y", v->py[i]);
	steer_reply_vec_field(b, "vx", v->vx[i], "vy", v->vy[i]);
	steer_strbuf_printf(b, ",\"group\":%u,\"behaviors\":", v->group[i]);
	steer_reply_behaviors(b, v->behaviors[i]);
	steer_strbuf_puts(b, "}");
}

void steer_reply_obstacle(steer_strbuf *b, const steer_obstacle *o)
{
	steer_strbuf_printf(b, "{\"id\":%u", o->id);
	steer_reply_vec_field(b, "x", o->x, "y", o->y);
	steer_strbuf_puts(b, ",\"r\":");
	steer_json_num(b, o->r);
	steer_reply_vec_field(b, "vx", o->vx, "vy", o->vy);
	steer_strbuf_puts(b, "}");
}

void steer_reply_wall(steer_strbuf *b, const steer_wall *wall)
{
	steer_strbuf_printf(b, "{\"id\":%u", wall->id);
	steer_reply_vec_field(b, "x1", wall->a.x, "y1", wall->a.y);
	steer_reply_vec_field(b, "x2", wall->b.x, "y2", wall->b.y);
	steer_strbuf_puts(b, "}");
}

void steer_reply_polygon(steer_strbuf *b, const steer_polygon *p)
{
	steer_strbuf_printf(b, "{\"id\":%u,\"inside\":%s,\"points\":[", p->id,
	                    p->inside ? "true" : "false");
	for (uint32_t k = 0; k < p->count; k++) {
		double xy[2] = {p->points[k].x, p->points[k].y};
		if (k)
			steer_strbuf_puts(b, ",");
		steer_json_nums(b, xy, 2);
	}
	steer_strbuf_puts(b, "]}");
}

/* Appends ,"kind":"..." inside the object just written. */
void steer_reply_mark_kind(steer_strbuf *b, const char *kind)
{
	b->len--;
	steer_strbuf_printf(b, ",\"kind\":\"%s\"}", kind);
}
