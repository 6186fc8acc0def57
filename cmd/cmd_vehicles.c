/* Commands on vehicles: spawn, remove, set, get, list. */
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
#include "session_cache.h"
#include "steer/goto.h"
#include "targets.h"
#include "utf8.h"

steer_status steer_cmd_parse_spawn(steer_command *c, int argc, char **argv, char *err,
                                   size_t errlen)
{
	if (argc >= 2 && !strcmp(argv[1], "flock")) {
		uint64_t n = 0;
		c->sub = 1;
		if (argc < 6)
			return steer_cmd_fail(err, errlen,
			                      "usage: spawn flock N X Y R [key=value ...]");
		if (steer_arg_u64("N", argv[2], 1000000000, &n, err, errlen) ||
		    steer_arg_coord("X", argv[3], &c->x, err, errlen) ||
		    steer_arg_coord("Y", argv[4], &c->y, err, errlen) ||
		    steer_arg_num("R", argv[5], &c->r, err, errlen))
			return STEER_ERR_INVALID;
		if (n == 0)
			return steer_cmd_fail(err, errlen, "N: a flock needs at least one vehicle");
		if (c->r < 0)
			return steer_cmd_fail(err, errlen, "R: radius must be at least 0");
		c->count = (uint32_t)n;
		return steer_arg_kvs(c, 6, argc, argv, KV_PARAMS, err, errlen);
	}
	if (argc < 3)
		return steer_cmd_fail(err, errlen, "usage: spawn X Y [key=value ...]");
	if (steer_arg_coord("X", argv[1], &c->x, err, errlen) ||
	    steer_arg_coord("Y", argv[2], &c->y, err, errlen))
		return STEER_ERR_INVALID;
	return steer_arg_kvs(c, 3, argc, argv, KV_PARAMS | KV_VELOCITY, err, errlen);
}

/* The parameters base with the command's key=value pairs, checked, and checked to fit
 * world w. */
static steer_status params_from(const steer_command *c, const steer_world *w, steer_params base,
                                steer_params *out, steer_vec2 *vel, steer_reply *r)
{
	bool has_vel = false;
	steer_arg_apply_kvs(c, &base, vel, &has_vel);
	char msg[160];
	if (steer_params_check(&base, msg, sizeof msg) != STEER_OK ||
	    steer_world_radius_check(steer_world_config_get(w), base.radius, msg, sizeof msg) !=
	        STEER_OK)
		return steer_reply_fail(r, "%s", msg);
	*out = base;
	return STEER_OK;
}

/* The vehicles spawn flock makes and adds at a time. */
#define SPAWN_CHUNK 65536u

/* Refuses a spawn of n that the world has no room for, saying which limit: true when
 * refused. */
static bool no_room(const steer_world *w, size_t n, steer_reply *r)
{
	if (n <= steer_vehicles_room(w))
		return false;
	size_t max = steer_world_config_get(w)->max_vehicles;
	if (max)
		steer_reply_fail(r,
		                 "spawning %zu would exceed --max-vehicles (%zu; %zu in the world)",
		                 n, max, steer_world_vehicles(w)->count);
	else
		steer_reply_fail(r, "spawning %zu would exceed the ids a world has (%zu left)", n,
		                 steer_vehicles_room(w));
	return true;
}

static steer_status x_spawn_flock(const steer_command *c, steer_session *s, steer_reply *r)
{
	steer_world *w = s->world;
	/* Before the positions are made: a count past the limit allocates nothing. */
	if (no_room(w, c->count, r))
		return STEER_ERR_REFUSED;
	steer_params p;
	steer_vec2 unused = v2(0, 0);
	if (params_from(c, w, steer_flock_params(), &p, &unused, r))
		return STEER_ERR_REFUSED;
	/* Made and added a chunk at a time: a region of a world over ranks keeps only
	 * its own vehicles (steer_world_set_region_keep), so that no rank holds the
	 * whole spawn, nor all its positions. */
	size_t chunk = c->count < SPAWN_CHUNK ? (c->count ? c->count : 1) : SPAWN_CHUNK;
	steer_vec2 *at = malloc(sizeof *at * chunk);
	steer_vec2 *vel = malloc(sizeof *vel * chunk);
	if (!at || !vel) {
		free(at);
		free(vel);
		return steer_reply_status(r, STEER_ERR_NOMEM, 0);
	}
	steer_world_meta before = steer_world_meta_get(w);
	uint32_t first = before.next_id;
	steer_rng *rng = steer_world_rng(w);
	steer_status st = STEER_OK;
	for (uint32_t done = 0; done < c->count && st == STEER_OK;) {
		uint32_t m = c->count - done < chunk ? c->count - done : (uint32_t)chunk;
		for (uint32_t k = 0; k < m; k++) {
			/* Uniform in the disc: sqrt keeps the density even towards the rim. */
			double a = steer_rng_range(rng, 0, STEER_TAU);
			double d = c->r * sqrt(steer_rng_unit(rng));
			double h = steer_rng_range(rng, 0, STEER_TAU);
			at[k] = v2(c->x + d * cos(a), c->y + d * sin(a));
			vel[k] = v2(cos(h) * p.max_speed * 0.5, sin(h) * p.max_speed * 0.5);
		}
		st = steer_vehicles_add(w, m, at, vel, &p, STEER_FLOCK, NULL);
		done += m;
	}
	free(at);
	free(vel);
	if (st != STEER_OK) {
		/* Nothing of a failed spawn stays: its vehicles go, newest first (each the
		 * last in storage, so the order is as before), and its ids and random draws
		 * come back. */
		for (uint32_t id = steer_world_meta_get(w).next_id; id-- > first;)
			(void)steer_vehicle_detach(w, id); /* NOENT: another region's */
		if (steer_world_meta_set(w, &before) != STEER_OK)
			return steer_reply_fail(r,
			                        "spawn failed (%s) and its ids were not given back",
			                        steer_status_str(st));
		return steer_reply_status(r, st, 0);
	}
	/* The ids are consecutive: written without printf, as a million of them make
	 * 7 MB of reply. */
	steer_strbuf *b = &r->json;
	steer_strbuf_puts(b, "{\"ids\":[");
	for (uint32_t k = 0; k < c->count; k++) {
		char digits[12], *d = digits + sizeof digits;
		*--d = k + 1 < c->count ? ',' : ']';
		for (uint32_t id = first + k; d == digits + sizeof digits - 1 || id; id /= 10)
			*--d = (char)('0' + id % 10);
		steer_strbuf_put(b, d, (size_t)(digits + sizeof digits - d));
	}
	if (!c->count)
		steer_strbuf_puts(b, "]");
	steer_strbuf_puts(b, "}");
	return STEER_OK;
}

steer_status steer_cmd_run_spawn(const steer_command *c, steer_session *s, const steer_host *h,
                                 steer_reply *r)
{
	(void)h;
	if (c->sub == 1)
		return x_spawn_flock(c, s, r);
	if (no_room(s->world, 1, r))
		return STEER_ERR_REFUSED;
	steer_params p;
	steer_vec2 vel = v2(0, 0);
	if (params_from(c, s->world, steer_params_default(), &p, &vel, r))
		return STEER_ERR_REFUSED;
	uint32_t id;
	steer_status st = steer_vehicle_add(s->world, v2(c->x, c->y), vel, &p, &id);
	if (st != STEER_OK)
		return steer_reply_status(r, st, 0);
	steer_strbuf_printf(&r->json, "{\"id\":%u}", id);
	return STEER_OK;
}

steer_status steer_cmd_run_remove(const steer_command *c, steer_session *s, const steer_host *h,
                                  steer_reply *r)
{
	(void)h;
	steer_status st = steer_remove(s->world, c->id);
	if (st == STEER_ERR_NOENT)
		return steer_reply_fail(r, "no vehicle, obstacle, wall or polygon with id %u",
		                        c->id);
	return steer_reply_status(r, st, c->id);
}

steer_status steer_cmd_parse_set(steer_command *c, int argc, char **argv, char *err, size_t errlen)
{
	if (steer_arg_id("ID", argv[1], &c->id, err, errlen))
		return STEER_ERR_INVALID;
	return steer_arg_kvs(c, 2, argc, argv, KV_PARAMS | KV_VELOCITY, err, errlen);
}

steer_status steer_cmd_run_set(const steer_command *c, steer_session *s, const steer_host *h,
                               steer_reply *r)
{
	(void)h;
	long i = steer_vehicle_index(s->world, c->id);
	if (i < 0)
		return steer_reply_fail(r, "no vehicle with id %u", c->id);
	const steer_vehicles *v = steer_world_vehicles(s->world);
	steer_vec2 vel = v2(v->vx[i], v->vy[i]);
	bool has_vel = false;
	steer_params p = *steer_vehicle_params_at(s->world, (size_t)i);
	steer_arg_apply_kvs(c, &p, &vel, &has_vel);
	/* Everything is checked before anything is applied: all or nothing. */
	char msg[160];
	if (steer_params_check(&p, msg, sizeof msg) != STEER_OK ||
	    steer_world_radius_check(steer_world_config_get(s->world), p.radius, msg, sizeof msg) !=
	        STEER_OK)
		return steer_reply_fail(r, "%s", msg);
	if (has_vel && !steer_vec_ok(vel))
		return steer_reply_status(r, STEER_ERR_INVALID, c->id);
	steer_status st = steer_vehicle_set_params(s->world, c->id, &p);
	if (st == STEER_OK && has_vel)
		st = steer_vehicle_set_velocity(s->world, c->id, vel); /* cannot fail: checked */
	return steer_reply_status(r, st, c->id);
}

steer_status steer_cmd_run_get(const steer_command *c, steer_session *s, const steer_host *h,
                               steer_reply *r)
{
	(void)h;
	steer_world *w = s->world;
	steer_strbuf *b = &r->json;
	const steer_obstacle *o = steer_obstacle_get(w, c->id);
	/* Each is marked with its kind, so a script can tell them apart. */
	if (o) {
		steer_reply_obstacle(b, o);
		steer_reply_mark_kind(b, "obstacle");
		return STEER_OK;
	}
	const steer_wall *wall = steer_wall_get(w, c->id);
	if (wall) {
		steer_reply_wall(b, wall);
		steer_reply_mark_kind(b, "wall");
		return STEER_OK;
	}
	const steer_polygon *poly = steer_polygon_get(w, c->id);
	if (poly) {
		steer_reply_polygon(b, poly);
		steer_reply_mark_kind(b, "polygon");
		return STEER_OK;
	}
	long i = steer_vehicle_index(w, c->id);
	if (i < 0)
		return steer_reply_fail(r, "no vehicle, obstacle, wall or polygon with id %u",
		                        c->id);
	const steer_vehicles *v = steer_world_vehicles(w);
	const steer_vehicle_state *st = steer_vehicle_state_at(w, (size_t)i);
	const steer_params *prm = steer_vehicle_params_at(w, (size_t)i);
	steer_strbuf_printf(b, "{\"id\":%u,\"kind\":\"vehicle\"", c->id);
	steer_reply_vec_field(b, "x", v->px[i], "y", v->py[i]);
	steer_reply_vec_field(b, "vx", v->vx[i], "vy", v->vy[i]);
	steer_reply_vec_field(b, "hx", v->hx[i], "hy", v->hy[i]);
	steer_reply_vec_field(b, "fx", v->fx[i], "fy", v->fy[i]);
	steer_strbuf_puts(b, ",\"behaviors\":");
	steer_reply_behaviors(b, v->behaviors[i]);
	double seek[2] = {st->seek_target.x, st->seek_target.y};
	double flee[2] = {st->flee_target.x, st->flee_target.y};
	double arrive[2] = {st->arrive_target.x, st->arrive_target.y};
	steer_strbuf_puts(b, ",\"seek\":");
	steer_json_nums(b, seek, 2);
	steer_strbuf_puts(b, ",\"flee\":");
	steer_json_nums(b, flee, 2);
	steer_strbuf_puts(b, ",\"arrive\":");
	steer_json_nums(b, arrive, 2);
	/* Where the vehicle steers for them: moved out of any obstacle they lie in. */
	double clearance = steer_target_clearance(prm, v->behaviors[i]);
	steer_vec2 seek_at = steer_target_free(w, st->seek_target, clearance);
	steer_vec2 arrive_at = steer_target_free(w, st->arrive_target, clearance);
	double seek_free[2] = {seek_at.x, seek_at.y}, arrive_free[2] = {arrive_at.x, arrive_at.y};
	steer_strbuf_puts(b, ",\"seek_free\":");
	steer_json_nums(b, seek_free, 2);
	steer_strbuf_puts(b, ",\"arrive_free\":");
	steer_json_nums(b, arrive_free, 2);
	steer_strbuf_printf(b, ",\"pursue\":%u,\"evade\":%u,\"wander_angle\":", st->pursue_id,
	                    st->evade_id);
	steer_json_num(b, st->wander_angle);
	const steer_group_state *g = &st->group;
	double offset[2] = {g->offset.x, g->offset.y};
	steer_strbuf_printf(b, ",\"leader\":%u,\"offset\":", g->leader_id);
	steer_json_nums(b, offset, 2);
	steer_strbuf_printf(b, ",\"hunter\":%u,\"between\":[%u,%u]", g->hunter_id, g->between[0],
	                    g->between[1]);
	steer_strbuf_printf(b, ",\"path\":{\"index\":%u,\"loop\":%s,\"waypoints\":[",
	                    st->path.index, st->path.loop ? "true" : "false");
	for (uint32_t k = 0; k < st->path.count; k++) {
		double point[2] = {st->path.points[k].x, st->path.points[k].y};
		if (k)
			steer_strbuf_puts(b, ",");
		steer_json_nums(b, point, 2);
	}
	steer_strbuf_puts(b, "]");
	if (st->path.count) {
		steer_vec2 at = steer_target_free(w, st->path.points[st->path.index], clearance);
		double free_at[2] = {at.x, at.y};
		steer_strbuf_puts(b, ",\"free\":");
		steer_json_nums(b, free_at, 2);
	}
	steer_strbuf_puts(b, "}");
	if (v->behaviors[i] & STEER_GOTO) {
		double goal[2] = {st->go.goal.x, st->go.goal.y};
		steer_strbuf_puts(b, ",\"goto\":{\"goal\":");
		steer_json_nums(b, goal, 2);
		steer_strbuf_printf(b, ",\"planning\":%s,\"reached\":%s,\"clearance\":",
		                    st->go.planning ? "true" : "false",
		                    st->go.reached ? "true" : "false");
		steer_json_num(b, st->go.radius);
		steer_strbuf_puts(b, "}");
	}
	for (size_t k = 0; k < steer_param_count; k++) {
		const steer_param_def *d = &steer_param_defs[k];
		steer_strbuf_printf(b, ",\"%s\":", d->name);
		if (d->type == STEER_PARAM_ENUM)
			steer_json_str(b, steer_param_enum_name(prm, d));
		else if (d->type == STEER_PARAM_BOOL)
			steer_strbuf_puts(b, steer_param_get(prm, d) != 0 ? "true" : "false");
		else
			steer_json_num(b, steer_param_get(prm, d));
	}
	steer_strbuf_puts(b, "}");
	return STEER_OK;
}

steer_status steer_cmd_parse_list(steer_command *c, int argc, char **argv, char *err, size_t errlen)
{
	uint64_t from = 0, count = STEER_LIST_MAX;
	c->sub = argc > 1; /* paged */
	if (argc > 1 && steer_arg_u64("FROM_ID", argv[1], UINT32_MAX, &from, err, errlen))
		return STEER_ERR_INVALID;
	if (argc > 2 && steer_arg_u64("COUNT", argv[2], STEER_LIST_MAX, &count, err, errlen))
		return STEER_ERR_INVALID;
	if (count == 0) /* its next would be its own FROM_ID: a pager would loop */
		return steer_cmd_fail(err, errlen, "COUNT: 0 is too small (at least 1)");
	c->id = (uint32_t)from;
	c->count = (uint32_t)count;
	return STEER_OK;
}

world_counts steer_cmd_count_world(const steer_world *w)
{
	world_counts n;
	n.vehicles = steer_world_vehicles(w)->count;
	steer_world_obstacles(w, &n.obstacles);
	steer_world_walls(w, &n.walls);
	steer_world_polygons(w, &n.polygons);
	return n;
}

/* The ids of every vehicle, obstacle, wall and polygon with an id of at least from, in
 * no order; *n receives how many. The caller frees the array. NULL when out of
 * memory. */
static uint32_t *list_ids_from(const steer_world *w, uint32_t from, size_t *n)
{
	world_counts c = steer_cmd_count_world(w);
	const steer_vehicles *v = steer_world_vehicles(w);
	const steer_obstacle *o = steer_world_obstacles(w, &c.obstacles);
	const steer_wall *wl = steer_world_walls(w, &c.walls);
	const steer_polygon *p = steer_world_polygons(w, &c.polygons);
	uint32_t *ids = malloc((c.vehicles + c.obstacles + c.walls + c.polygons + 1) * sizeof *ids);
	if (!ids)
		return NULL;
	size_t k = 0;
	for (size_t i = 0; i < c.vehicles; i++)
		if (v->id[i] >= from)
			ids[k++] = v->id[i];
	for (size_t i = 0; i < c.obstacles; i++)
		if (o[i].id >= from)
			ids[k++] = o[i].id;
	for (size_t i = 0; i < c.walls; i++)
		if (wl[i].id >= from)
			ids[k++] = wl[i].id;
	for (size_t i = 0; i < c.polygons; i++)
		if (p[i].id >= from)
			ids[k++] = p[i].id;
	*n = k;
	return ids;
}

static void swap_ids(uint32_t *a, uint32_t *b)
{
	uint32_t t = *a;
	*a = *b;
	*b = t;
}

/* Moves the k smallest of ids[0..n) to its front (k < n), in linear time on average
 * (Hoare's selection): a page costs a pass over the world whatever the gaps between
 * ids, where walking the ids one by one could take 2^31 steps. */
static void select_smallest(uint32_t *ids, size_t n, size_t k)
{
	size_t lo = 0, hi = n - 1;
	while (lo < hi) {
		uint32_t pivot = ids[lo + (hi - lo) / 2];
		size_t i = lo, j = hi;
		while (i <= j) {
			while (ids[i] < pivot)
				i++;
			while (ids[j] > pivot)
				j--;
			if (i <= j) {
				swap_ids(&ids[i], &ids[j]);
				i++;
				if (j == 0)
					break;
				j--;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			return;
	}
}

static int cmp_ids(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

enum { LIST_VEHICLES, LIST_OBSTACLES, LIST_WALLS, LIST_POLYGONS };

/* The things of one kind among ids, which are in increasing order. */
static void list_page_items(steer_strbuf *b, const steer_world *w, const uint32_t *ids, size_t n,
                            int kind)
{
	const steer_vehicles *v = steer_world_vehicles(w);
	bool first = true;
	for (size_t k = 0; k < n; k++) {
		long i = kind == LIST_VEHICLES ? steer_vehicle_index(w, ids[k]) : -1;
		const steer_obstacle *o =
		    kind == LIST_OBSTACLES ? steer_obstacle_get(w, ids[k]) : NULL;
		const steer_wall *wl = kind == LIST_WALLS ? steer_wall_get(w, ids[k]) : NULL;
		const steer_polygon *p =
		    kind == LIST_POLYGONS ? steer_polygon_get(w, ids[k]) : NULL;
		if (i < 0 && !o && !wl && !p)
			continue;
		if (!first)
			steer_strbuf_puts(b, ",");
		first = false;
		if (i >= 0)
			steer_reply_vehicle_brief(b, v, (size_t)i);
		else if (o)
			steer_reply_obstacle(b, o);
		else if (wl)
			steer_reply_wall(b, wl);
		else
			steer_reply_polygon(b, p);
	}
}

/* Plain list: the whole world, vehicles, obstacles, walls, polygons. Paged: the items whose id is
 * FROM_ID or more. Both in id order. Storage order changes every tick (the world re-sorts
 * vehicles by position) while ids never do, so pages taken at different ticks
 * neither overlap nor miss anything. One reply never holds more than STEER_LIST_MAX
 * items, so building it never holds the host's loop for long nor overflows a
 * client's reply queue. */
steer_status steer_cmd_run_list(const steer_command *c, steer_session *s, const steer_host *h,
                                steer_reply *r)
{
	(void)h;
	const steer_world *w = s->world;
	world_counts all = steer_cmd_count_world(w);
	all.vehicles += steer_session_elsewhere(s);
	if (!c->sub && all.vehicles + all.obstacles + all.walls + all.polygons > STEER_LIST_MAX)
		return steer_reply_fail(
		    r,
		    "list: %zu vehicles, %zu obstacles, %zu walls and %zu polygons, more than "
		    "the %u one reply holds; page with 'list FROM_ID COUNT' (COUNT up to %u) or "
		    "ask for one with 'get ID'",
		    all.vehicles, all.obstacles, all.walls, all.polygons, STEER_LIST_MAX,
		    STEER_LIST_MAX);
	steer_strbuf *b = &r->json;
	steer_strbuf_printf(b, "{\"tick\":%llu,\"vehicles\":[",
	                    (unsigned long long)steer_world_tick(w));
	size_t left;
	uint32_t *ids = list_ids_from(w, c->sub ? c->id : 0, &left);
	if (!ids) {
		steer_strbuf_clear(b);
		return steer_reply_fail(r, "list: out of memory");
	}
	size_t want = !c->sub || left < c->count ? left : c->count;
	if (want < left)
		select_smallest(ids, left, want);
	qsort(ids, want, sizeof *ids, cmp_ids);
	list_page_items(b, w, ids, want, LIST_VEHICLES);
	steer_strbuf_puts(b, "],\"obstacles\":[");
	list_page_items(b, w, ids, want, LIST_OBSTACLES);
	steer_strbuf_puts(b, "],\"walls\":[");
	list_page_items(b, w, ids, want, LIST_WALLS);
	steer_strbuf_puts(b, "],\"polygons\":[");
	list_page_items(b, w, ids, want, LIST_POLYGONS);
	if (!c->sub) {
		free(ids);
		steer_strbuf_puts(b, "]}");
		return STEER_OK;
	}
	steer_strbuf_printf(b,
	                    "],\"total_vehicles\":%zu,\"total_obstacles\":%zu,\"total_walls\":%zu,"
	                    "\"total_polygons\":%zu,\"next\":",
	                    all.vehicles, all.obstacles, all.walls, all.polygons);
	if (want < left)
		steer_strbuf_printf(b, "%llu", (unsigned long long)ids[want - 1] + 1);
	else
		steer_strbuf_puts(b, "null");
	free(ids);
	steer_strbuf_puts(b, "}");
	return STEER_OK;
}
