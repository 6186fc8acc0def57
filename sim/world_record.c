#include "world_record.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reserve.h"
#include "world_internal.h"
#include "world_parts.h"

/* --- the rules of every copy -------------------------------------------------- */

/* The one rule: what a copy keeps of a goto's epoch. */
static void goto_taken(const steer_world *w, steer_goto_state *go)
{
	if (!steer_goto_none(go))
		go->epoch = go->epoch == w->geom.epoch ? STEER_GOTO_FRESH : 0;
}

void steer_record_vehicle(const steer_world *w, size_t i, steer_vehicle_record *out)
{
	steer_vehicle_record_get(w, i, out);
	goto_taken(w, &out->state.go);
}

static int by_key(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

uint64_t *steer_record_id_order(const steer_world *w)
{
	size_t n = w->v.count;
	uint64_t *order = malloc((n ? n : 1) * sizeof *order);
	if (!order)
		return NULL;
	for (size_t i = 0; i < n; i++)
		order[i] = (uint64_t)w->v.id[i] << 32 | i; /* ids are unique: the key sorts by id */
	qsort(order, n, sizeof *order, by_key);
	return order;
}

/* A restored route that was up to date is up to date with the geometry at epoch. */
static void goto_fresh(steer_goto_state *go, uint64_t epoch)
{
	if (go->epoch == STEER_GOTO_FRESH)
		go->epoch = epoch;
}

steer_status steer_record_finish(steer_world *w, const steer_world_meta *m)
{
	steer_status st = steer_world_meta_set(w, m);
	if (st != STEER_OK)
		return st;
	for (size_t i = 0; i < w->v.count; i++)
		if (w->v.extra[i] != STEER_NO_EXTRA)
			goto_fresh(&w->extras.slots[w->v.extra[i]].s.go, w->geom.epoch);
	return STEER_OK;
}

/* --- as bytes: writing ------------------------------------------------------------ */

enum {
	RECORD_VEHICLE = 1u << 0,
	RECORD_NEW_SET = 1u << 1, /* with a vehicle: a steer_params first */
	RECORD_EXTRAS = 1u << 2,  /* with a vehicle: its state follows */
	RECORD_OBSTACLE = 1u << 3,
	RECORD_WALL = 1u << 4,
	RECORD_POLYGON = 1u << 5,
};

void steer_pack_init(steer_pack *p)
{
	memset(p, 0, sizeof *p);
}

void steer_pack_free(steer_pack *p)
{
	steer_blob_free(&p->bytes);
	free(p->set_map);
	steer_pack_init(p);
}

void steer_pack_reset(steer_pack *p)
{
	steer_blob_clear(&p->bytes);
	p->records = 0;
	p->sets = 0;
	if (p->set_map)
		memset(p->set_map, 0, p->set_map_cap * sizeof *p->set_map);
}

steer_status steer_pack_vehicle(steer_pack *p, const steer_world *w, size_t i)
{
	const steer_vehicles *v = &w->v;
	uint32_t set = v->param_set[i];
	size_t old_cap = p->set_map_cap;
	if (steer_reserve((void **)&p->set_map, &p->set_map_cap, (size_t)set + 1,
	                  sizeof *p->set_map) != STEER_OK)
		return STEER_ERR_NOMEM;
	memset(p->set_map + old_cap, 0, (p->set_map_cap - old_cap) * sizeof *p->set_map);
	/* A vehicle that never had targets, a path or a chase carries none. */
	bool extras = v->extra[i] != STEER_NO_EXTRA;
	bool new_set = p->set_map[set] == 0;
	steer_blob *b = &p->bytes;
	steer_blob_put_u32(b, RECORD_VEHICLE | (new_set ? RECORD_NEW_SET : 0u) |
	                          (extras ? RECORD_EXTRAS : 0u));
	if (new_set) {
		steer_blob_put(b, steer_vehicle_params_at(w, i), sizeof(steer_params));
		p->set_map[set] = ++p->sets;
	}
	steer_blob_put_u32(b, p->set_map[set] - 1);
	steer_blob_put_u32(b, v->id[i]);
	steer_blob_put_u32(b, v->behaviors[i]);
	double d[8] = {v->px[i], v->py[i], v->vx[i], v->vy[i],
	               v->hx[i], v->hy[i], v->fx[i], v->fy[i]};
	steer_blob_put(b, d, sizeof d);
	if (extras) {
		steer_vehicle_state s = *steer_vehicle_state_at(w, i);
		goto_taken(w, &s.go);
		steer_blob_put(b, &s, sizeof s);
		steer_blob_put(b, s.path.points, s.path.count * sizeof(steer_vec2));
	}
	p->records++;
	return steer_blob_status(b);
}

/* The bytes steer_pack_world appends for the vehicles of w, at most (each set counted
 * as new): reserved at once, so that a big world is not copied as the bytes grow. */
static size_t vehicles_bytes(const steer_world *w)
{
	size_t n = w->v.count, sets = 0, extras = 0;
	for (size_t i = 0; i < n; i++) {
		if (w->v.param_set[i] + (size_t)1 > sets)
			sets = w->v.param_set[i] + (size_t)1;
		if (w->v.extra[i] != STEER_NO_EXTRA)
			extras += sizeof(steer_vehicle_state) +
			          steer_vehicle_state_at(w, i)->path.count * sizeof(steer_vec2);
	}
	return n * (4 * sizeof(uint32_t) + 8 * sizeof(double)) + sets * sizeof(steer_params) +
	       extras;
}

steer_status steer_pack_world(steer_pack *p, const steer_world *w)
{
	steer_status st = steer_blob_room(&p->bytes, vehicles_bytes(w));
	for (size_t i = 0; i < w->v.count && st == STEER_OK; i++)
		st = steer_pack_vehicle(p, w, i);
	size_t nobs, nwalls, npolys;
	const steer_obstacle *obs = steer_world_obstacles(w, &nobs);
	const steer_wall *walls = steer_world_walls(w, &nwalls);
	const steer_polygon *polys = steer_world_polygons(w, &npolys);
	steer_blob *b = &p->bytes;
	for (size_t k = 0; k < nobs; k++) {
		steer_blob_put_u32(b, RECORD_OBSTACLE);
		steer_blob_put(b, &obs[k], sizeof obs[k]);
	}
	for (size_t k = 0; k < nwalls; k++) {
		steer_blob_put_u32(b, RECORD_WALL);
		steer_blob_put(b, &walls[k], sizeof walls[k]);
	}
	for (size_t k = 0; k < npolys; k++) {
		steer_blob_put_u32(b, RECORD_POLYGON);
		steer_blob_put_u32(b, polys[k].id);
		steer_blob_put_u32(b, polys[k].inside);
		steer_blob_put_u32(b, polys[k].count);
		steer_blob_put(b, polys[k].points, polys[k].count * sizeof(steer_vec2));
	}
	p->records += nobs + nwalls + npolys;
	return st != STEER_OK ? st : steer_blob_status(b);
}

steer_status steer_id_list_push(steer_id_list *l, uint32_t id)
{
	if (steer_reserve((void **)&l->at, &l->cap, l->count + 1, sizeof *l->at) != STEER_OK)
		return STEER_ERR_NOMEM;
	l->at[l->count++] = id;
	return STEER_OK;
}

void steer_id_list_free(steer_id_list *l)
{
	free(l->at);
	memset(l, 0, sizeof *l);
}

/* --- as bytes: reading ------------------------------------------------------------ */

void steer_unpacker_init(steer_unpacker *u, const uint8_t *msg, size_t len, steer_unpack_dup dup,
                         bool whole_world)
{
	memset(u, 0, sizeof *u);
	u->in = (steer_reader){msg, len, 0};
	u->dup = dup;
	u->whole_world = whole_world;
}

void steer_unpacker_free(steer_unpacker *u)
{
	free(u->sets);
	free(u->memos);
	free(u->points);
	u->sets = NULL;
	u->memos = NULL;
	u->points = NULL;
}

static steer_status fail(const steer_unpacker *u, char *err, size_t errlen, const char *what)
{
	snprintf(err, errlen, "world record: %s (after id %u)", what, u->id);
	return STEER_ERR_INVALID;
}

/* Reads n points into the unpacker's scratch (*out NULL for none). */
static steer_status take_points(steer_unpacker *u, uint32_t n, steer_vec2 **out)
{
	*out = NULL;
	if (!n)
		return STEER_OK;
	if (steer_reserve((void **)&u->points, &u->points_cap, n, sizeof *u->points) != STEER_OK)
		return STEER_ERR_NOMEM;
	if (!steer_read_bytes(&u->in, u->points, n * sizeof *u->points))
		return STEER_ERR_INVALID;
	*out = u->points;
	return STEER_OK;
}

/* Reads a vehicle's record (flags read) into rec, its path's points in u's scratch and
 * its goto's epoch as taken (FRESH or 0), and its set's index into *set. */
static steer_status read_vehicle(steer_unpacker *u, uint32_t flags, steer_vehicle_record *rec,
                                 uint32_t *set, char *err, size_t errlen)
{
	steer_reader *in = &u->in;
	memset(rec, 0, sizeof *rec);
	if (flags & RECORD_NEW_SET) {
		if (steer_reserve((void **)&u->sets, &u->sets_cap, u->nsets + 1, sizeof *u->sets) !=
		        STEER_OK ||
		    steer_reserve((void **)&u->memos, &u->memos_cap, u->nsets + 1,
		                  sizeof *u->memos) != STEER_OK)
			return STEER_ERR_NOMEM;
		if (!steer_read_bytes(in, &u->sets[u->nsets], sizeof *u->sets))
			return fail(u, err, errlen, "cut short in a parameter set");
		u->memos[u->nsets] = (steer_set_memo){STEER_PALETTE_NONE, 0, NULL};
		u->nsets++;
	}
	double d[8];
	if (!steer_read_bytes(in, set, sizeof *set) ||
	    !steer_read_bytes(in, &rec->id, sizeof rec->id) ||
	    !steer_read_bytes(in, &rec->behaviors, sizeof rec->behaviors) ||
	    !steer_read_bytes(in, d, sizeof d))
		return fail(u, err, errlen, "cut short in a vehicle");
	u->id = rec->id;
	if (*set >= u->nsets)
		return fail(u, err, errlen, "a vehicle names a parameter set not sent");
	rec->prm = u->sets[*set];
	rec->pos = v2(d[0], d[1]);
	rec->vel = v2(d[2], d[3]);
	rec->heading = v2(d[4], d[5]);
	rec->force = v2(d[6], d[7]);
	if (flags & RECORD_EXTRAS) {
		if (!steer_read_bytes(in, &rec->state, sizeof rec->state))
			return fail(u, err, errlen, "cut short in a vehicle's state");
		if (rec->state.path.count > STEER_MAX_WAYPOINTS)
			return fail(u, err, errlen, "a path of too many waypoints");
		steer_status st = take_points(u, rec->state.path.count, &rec->state.path.points);
		if (st != STEER_OK)
			return st == STEER_ERR_NOMEM ? st
			                             : fail(u, err, errlen, "cut short in a path");
	}
	return STEER_OK;
}

static steer_status unpack_vehicle(steer_unpacker *u, uint32_t flags, steer_world *w,
                                   steer_id_list *added, char *err, size_t errlen)
{
	steer_vehicle_record rec;
	uint32_t set;
	steer_status st = read_vehicle(u, flags, &rec, &set, err, errlen);
	if (st != STEER_OK)
		return st;
	if ((flags & RECORD_EXTRAS) && !u->whole_world)
		goto_fresh(&rec.state.go, w->geom.epoch);
	if (u->dup == STEER_UNPACK_SKIP && steer_vehicle_index(w, rec.id) >= 0)
		return STEER_OK;
	st = steer_world_restore_vehicle(w, &rec, &u->memos[set]);
	if (st == STEER_ERR_INVALID)
		return fail(u, err, errlen,
		            "a vehicle refused by the world (a bad field or an id in use)");
	if (st == STEER_OK && added)
		st = steer_id_list_push(added, rec.id);
	return st;
}

steer_status steer_unpack_record(steer_unpacker *u, steer_vehicle_record *rec, char *err,
                                 size_t errlen)
{
	uint32_t flags, set;
	if (!steer_read_bytes(&u->in, &flags, sizeof flags))
		return fail(u, err, errlen, "cut short");
	if (!(flags & RECORD_VEHICLE))
		return fail(u, err, errlen, "a record that is not a vehicle's");
	return read_vehicle(u, flags, rec, &set, err, errlen);
}

static steer_status unpack_polygon(steer_unpacker *u, steer_world *w, char *err, size_t errlen)
{
	steer_polygon p;
	uint32_t inside;
	if (!steer_read_bytes(&u->in, &p.id, sizeof p.id) ||
	    !steer_read_bytes(&u->in, &inside, sizeof inside) ||
	    !steer_read_bytes(&u->in, &p.count, sizeof p.count))
		return fail(u, err, errlen, "cut short in a polygon");
	u->id = p.id;
	p.inside = inside != 0;
	if (p.count > STEER_MAX_POLYGON_POINTS)
		return fail(u, err, errlen, "a polygon of too many points");
	steer_status st = take_points(u, p.count, &p.points);
	if (st != STEER_OK)
		return st == STEER_ERR_NOMEM ? st : fail(u, err, errlen, "cut short in a polygon");
	return steer_polygon_restore(w, &p, err, errlen);
}

steer_status steer_unpack_next(steer_unpacker *u, steer_world *w, steer_id_list *added, char *err,
                               size_t errlen)
{
	uint32_t flags;
	if (!steer_read_bytes(&u->in, &flags, sizeof flags))
		return fail(u, err, errlen, "cut short");
	if (flags & RECORD_VEHICLE)
		return unpack_vehicle(u, flags, w, added, err, errlen);
	steer_status st;
	switch (flags) {
	case RECORD_OBSTACLE: {
		steer_obstacle o;
		if (!steer_read_bytes(&u->in, &o, sizeof o))
			return fail(u, err, errlen, "cut short in an obstacle");
		u->id = o.id;
		st = steer_obstacle_restore(w, &o);
		break;
	}
	case RECORD_WALL: {
		steer_wall wall;
		if (!steer_read_bytes(&u->in, &wall, sizeof wall))
			return fail(u, err, errlen, "cut short in a wall");
		u->id = wall.id;
		st = steer_wall_restore(w, &wall);
		break;
	}
	case RECORD_POLYGON:
		return unpack_polygon(u, w, err, errlen);
	default:
		return fail(u, err, errlen, "unknown record kind");
	}
	return st == STEER_ERR_INVALID ? fail(u, err, errlen, "a shape refused by the world") : st;
}

steer_status steer_unpack(steer_world *w, const uint8_t *msg, size_t len, steer_unpack_dup dup,
                          steer_id_list *added, char *err, size_t errlen)
{
	steer_unpacker u;
	steer_unpacker_init(&u, msg, len, dup, false);
	steer_status st = STEER_OK;
	while (st == STEER_OK && !steer_unpacker_done(&u))
		st = steer_unpack_next(&u, w, added, err, errlen);
	steer_unpacker_free(&u);
	return st;
}
