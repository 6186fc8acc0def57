/* Writing a save: the whole world (or its shell) as text, or its parts one put at a
 * time for a save written over ranks (savefile.h). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reserve.h"
#include "save_internal.h"
#include "savefile.h"
#include "world_record.h"

/* The encoder's text is a steer_save_text (savefile.h): after the first failed
 * allocation, or once past max, every put is a no-op and nomem or over stays set, so
 * the encoder checks once at the end. */
typedef steer_save_text writer;

static bool writer_reserve(writer *o, size_t extra)
{
	/* Room for extra bytes and one more (vsnprintf's NUL); the sum cannot wrap
	 * before memory runs out, but is checked anyway. */
	if (extra > SIZE_MAX - o->len - 1 ||
	    steer_reserve((void **)&o->p, &o->cap, o->len + extra + 1, 1) != STEER_OK) {
		o->nomem = true;
		return false;
	}
	return true;
}

static void put(writer *o, const char *fmt, ...) PRINTF_LIKE(2, 3);

static void put(writer *o, const char *fmt, ...)
{
	if (o->nomem || o->over || !writer_reserve(o, 256))
		return;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(o->p + o->len, o->cap - o->len, fmt, ap);
	va_end(ap);
	if (n < 0) {
		o->nomem = true; /* only an encoding error; treated as a failure to write */
		return;
	}
	if ((size_t)n >= o->cap - o->len) {
		if (!writer_reserve(o, (size_t)n))
			return;
		va_start(ap, fmt);
		vsnprintf(o->p + o->len, o->cap - o->len, fmt, ap);
		va_end(ap);
	}
	o->len += (size_t)n;
	o->over = o->len > o->max;
}

void steer_save_text_init(steer_save_text *t, size_t max)
{
	memset(t, 0, sizeof *t);
	t->max = max;
}

void steer_save_text_clear(steer_save_text *t)
{
	t->len = 0;
	t->nomem = t->over = false;
}

void steer_save_text_free(steer_save_text *t)
{
	free(t->p);
	steer_save_text_init(t, t->max);
}

steer_status steer_save_text_status(const steer_save_text *t)
{
	return t->nomem ? STEER_ERR_NOMEM : t->over ? STEER_ERR_LIMIT : STEER_OK;
}

static void put_behaviors(writer *o, uint32_t bits)
{
	if (!bits) {
		put(o, " behaviors none");
		return;
	}
	const char *sep = " behaviors ";
	for (int k = 0; k < STEER_BEHAVIOR_COUNT; k++) {
		if (bits & (1u << k)) {
			put(o, "%s%s", sep, steer_behavior_name(1u << k));
			sep = ",";
		}
	}
}

static void put_params(writer *o, const steer_params *p)
{
	put(o, "params");
	for (size_t k = 0; k < steer_param_count; k++) {
		const steer_param_def *d = &steer_param_defs[k];
		switch (d->type) {
		case STEER_PARAM_REAL:
			put(o, " %s %a", d->name, steer_param_get(p, d));
			break;
		case STEER_PARAM_UINT:
			put(o, " %s %" PRIu32, d->name, (uint32_t)steer_param_get(p, d));
			break;
		case STEER_PARAM_BOOL:
			put(o, " %s %s", d->name, steer_param_get(p, d) != 0.0 ? "on" : "off");
			break;
		case STEER_PARAM_ENUM:
			put(o, " %s %s", d->name, steer_param_enum_name(p, d));
			break;
		}
	}
	put(o, "\n");
}

/* A vehicle's record as steer_record_vehicle takes it. */
void steer_save_put_vehicle(steer_save_text *o, const steer_vehicle_record *r)
{
	const steer_vehicle_state *s = &r->state;
	put(o, "vehicle %" PRIu32, r->id);
	put_behaviors(o, r->behaviors);
	put(o, " pos %a %a vel %a %a heading %a %a force %a %a wander_angle %a\n", r->pos.x,
	    r->pos.y, r->vel.x, r->vel.y, r->heading.x, r->heading.y, r->force.x, r->force.y,
	    s->wander_angle);
	put(o, "targets seek %a %a flee %a %a arrive %a %a pursue %" PRIu32 " evade %" PRIu32 "\n",
	    s->seek_target.x, s->seek_target.y, s->flee_target.x, s->flee_target.y,
	    s->arrive_target.x, s->arrive_target.y, s->pursue_id, s->evade_id);
	const steer_group_state *g = &s->group;
	put(o,
	    "group leader %" PRIu32 " offset %a %a hunter %" PRIu32 " between %" PRIu32 " %" PRIu32
	    "\n",
	    g->leader_id, g->offset.x, g->offset.y, g->hunter_id, g->between[0], g->between[1]);
	put_params(o, &r->prm);
	put(o, "path points %" PRIu32 " index %" PRIu32 " loop %s\n", s->path.count, s->path.index,
	    s->path.loop ? "on" : "off");
	for (uint32_t k = 0; k < s->path.count; k++)
		put(o, "point %a %a\n", s->path.points[k].x, s->path.points[k].y);
	/* Most vehicles never had a goto: a short line, as a flock's file is mostly them. */
	if (steer_goto_none(&s->go))
		put(o, "goto none\n");
	else {
		put(o, "goto goal %a %a from %a %a radius %a tried %" PRIu64 " reached %s fresh %s",
		    s->go.goal.x, s->go.goal.y, s->go.from.x, s->go.from.y, s->go.radius,
		    s->go.tried, s->go.reached ? "on" : "off",
		    s->go.epoch == STEER_GOTO_FRESH ? "on" : "off");
		if (s->go.planning)
			put(o,
			    " plan on start %a %a began %" PRIu64 " spent %" PRIu64
			    " restarts %" PRIu32 "\n",
			    s->go.start.x, s->go.start.y, s->go.began, s->go.spent, s->go.restarts);
		else
			put(o, " plan off\n");
	}
	put(o, "smooth heading %a %a\n", s->smooth.heading.x, s->smooth.heading.y);
}

static record_counts counts_of(const steer_world *w, uint64_t vehicles)
{
	size_t nobs, nwalls, npolys;
	(void)steer_world_obstacles(w, &nobs);
	(void)steer_world_walls(w, &nwalls);
	(void)steer_world_polygons(w, &npolys);
	return (record_counts){vehicles, nobs, nwalls, npolys};
}

uint64_t steer_save_records(const steer_world *shell, uint64_t vehicles)
{
	record_counts n = counts_of(shell, vehicles);
	return n.vehicles + n.obstacles + n.walls + n.polygons;
}

void steer_save_put_head(steer_save_text *o, const steer_world *w, uint64_t vehicles)
{
	const steer_world_config *c = steer_world_config_get(w);
	steer_world_meta m = steer_world_meta_get(w);
	record_counts n = counts_of(w, vehicles);
	put(o, MAGIC " %d\n", STEER_SAVE_VERSION);
	put(o,
	    "world width %a height %a edges %s tick_rate %a seed %" PRIu64 " solid %s contain %s\n",
	    c->width, c->height, steer_edges_name(c->edges), c->tick_rate, c->seed,
	    c->solid ? "on" : "off", c->contain ? "on" : "off");
	put(o,
	    "meta tick %" PRIu64 " next_id %" PRIu32 " rng_state %016" PRIx64 " rng_inc %016" PRIx64
	    "\n",
	    m.tick, m.next_id, m.rng.state, m.rng.inc);
	put(o,
	    "counts vehicles %" PRIu64 " obstacles %" PRIu64 " walls %" PRIu64 " polygons %" PRIu64
	    "\n",
	    n.vehicles, n.obstacles, n.walls, n.polygons);
}

void steer_save_put_geometry(steer_save_text *o, const steer_world *w)
{
	size_t nobs, nwalls, npolys;
	const steer_obstacle *obs = steer_world_obstacles(w, &nobs);
	const steer_wall *walls = steer_world_walls(w, &nwalls);
	const steer_polygon *polys = steer_world_polygons(w, &npolys);
	for (size_t k = 0; k < nobs; k++)
		put(o, "obstacle %" PRIu32 " pos %a %a vel %a %a radius %a\n", obs[k].id, obs[k].x,
		    obs[k].y, obs[k].vx, obs[k].vy, obs[k].r);
	for (size_t k = 0; k < nwalls; k++)
		put(o, "wall %" PRIu32 " a %a %a b %a %a\n", walls[k].id, walls[k].a.x,
		    walls[k].a.y, walls[k].b.x, walls[k].b.y);
	for (size_t k = 0; k < npolys; k++) {
		put(o, "polygon %" PRIu32 " inside %s points %" PRIu32 "\n", polys[k].id,
		    polys[k].inside ? "on" : "off", polys[k].count);
		for (uint32_t q = 0; q < polys[k].count; q++)
			put(o, "point %a %a\n", polys[k].points[q].x, polys[k].points[q].y);
	}
}

void steer_save_put_end(steer_save_text *o, uint64_t records, uint64_t sum)
{
	put(o, "end records %" PRIu64 " fnv1a64 %016" PRIx64 "\n", records, sum);
}

steer_status steer_save_encode(const steer_world *w, char **out, size_t *len)
{
	return steer_save_encode_max(w, STEER_SAVE_MAX_BYTES, out, len);
}

/* The file of w, its vehicles left out unless vehicles. */
static steer_status encode(const steer_world *w, size_t max_bytes, bool vehicles, char **out,
                           size_t *len)
{
	const steer_vehicles *v = steer_world_vehicles(w);
	size_t count = vehicles ? v->count : 0;
	writer o;
	steer_save_text_init(&o, max_bytes);
	uint64_t *order = count ? steer_record_id_order(w) : NULL;
	if (count && !order)
		return STEER_ERR_NOMEM;
	steer_save_put_head(&o, w, count);
	for (size_t k = 0; k < count; k++) {
		size_t i = (size_t)(order[k] & UINT32_MAX);
		steer_vehicle_record r;
		steer_record_vehicle(w, i, &r);
		steer_save_put_vehicle(&o, &r);
	}
	free(order);
	steer_save_put_geometry(&o, w);
	uint64_t sum = o.nomem || o.over ? 0 : steer_save_sum(STEER_SAVE_SUM_START, o.p, o.len);
	steer_save_put_end(&o, steer_save_records(w, count), sum);
	steer_status st = steer_save_text_status(&o);
	if (st != STEER_OK) {
		steer_save_text_free(&o);
		return st;
	}
	*out = o.p;
	*len = o.len;
	return STEER_OK;
}

steer_status steer_save_encode_max(const steer_world *w, size_t max_bytes, char **out, size_t *len)
{
	return encode(w, max_bytes, true, out, len);
}

steer_status steer_save_encode_shell(const steer_world *w, char **out, size_t *len)
{
	return encode(w, STEER_SAVE_MAX_BYTES, false, out, len);
}
