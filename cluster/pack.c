#include "pack.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "goto_record.h"
#include "reserve.h"

enum { PACK_NEW_SET = 1u << 0, PACK_EXTRAS = 1u << 1 };

void steer_pack_init(steer_pack *p)
{
	memset(p, 0, sizeof *p);
}

void steer_pack_free(steer_pack *p)
{
	free(p->buf);
	free(p->set_map);
	steer_pack_init(p);
}

void steer_pack_reset(steer_pack *p)
{
	p->len = 0;
	p->records = 0;
	p->sets = 0;
	if (p->set_map)
		memset(p->set_map, 0, p->set_map_cap * sizeof *p->set_map);
}

static void put(steer_pack *p, const void *data, size_t n)
{
	memcpy(p->buf + p->len, data, n);
	p->len += n;
}

static void put_u32(steer_pack *p, uint32_t x)
{
	put(p, &x, sizeof x);
}

steer_status steer_pack_vehicle(steer_pack *p, const steer_world *w, size_t i)
{
	const steer_vehicles *v = steer_world_vehicles(w);
	uint32_t set = v->param_set[i];
	size_t old_cap = p->set_map_cap;
	if (steer_reserve((void **)&p->set_map, &p->set_map_cap, (size_t)set + 1,
	                  sizeof *p->set_map) != STEER_OK)
		return STEER_ERR_NOMEM;
	memset(p->set_map + old_cap, 0, (p->set_map_cap - old_cap) * sizeof *p->set_map);
	const steer_vehicle_state *s = steer_vehicle_state_at(w, i);
	/* A vehicle that never had targets, a path or a chase carries none. */
	bool extras = v->extra[i] != STEER_NO_EXTRA;
	bool new_set = p->set_map[set] == 0;
	size_t need = 3 * sizeof(uint32_t) + 8 * sizeof(double) + sizeof(uint32_t) +
	              (new_set ? sizeof(steer_params) : 0) +
	              (extras ? sizeof *s + s->path.count * sizeof(steer_vec2) : 0);
	if (steer_reserve((void **)&p->buf, &p->cap, p->len + need, 1) != STEER_OK)
		return STEER_ERR_NOMEM;
	uint32_t flags = (new_set ? PACK_NEW_SET : 0u) | (extras ? PACK_EXTRAS : 0u);
	put_u32(p, flags);
	if (new_set) {
		put(p, steer_vehicle_params_at(w, i), sizeof(steer_params));
		p->set_map[set] = ++p->sets;
	}
	put_u32(p, p->set_map[set] - 1);
	put_u32(p, v->id[i]);
	put_u32(p, v->behaviors[i]);
	double d[8] = {v->px[i], v->py[i], v->vx[i], v->vy[i],
	               v->hx[i], v->hy[i], v->fx[i], v->fy[i]};
	put(p, d, sizeof d);
	if (extras) {
		/* Geometry epochs are numbered per process: what travels is whether the
		 * route was up to date, as a save keeps it. */
		steer_vehicle_state t = *s;
		t.go.epoch = s->go.epoch == steer_goto_epoch(w) ? STEER_GOTO_FRESH : 0;
		put(p, &t, sizeof t);
		if (s->path.count)
			put(p, s->path.points, s->path.count * sizeof(steer_vec2));
	}
	p->records++;
	return STEER_OK;
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

typedef struct reader {
	const uint8_t *at, *end;
} reader;

static bool take(reader *r, void *out, size_t n)
{
	if ((size_t)(r->end - r->at) < n)
		return false;
	memcpy(out, r->at, n);
	r->at += n;
	return true;
}

static steer_status fail(char *err, size_t errlen, const char *what, uint32_t id)
{
	snprintf(err, errlen, "vehicle message: %s (vehicle %u)", what, id);
	return STEER_ERR_INVALID;
}

steer_status steer_unpack(steer_world *w, const uint8_t *msg, size_t len, steer_unpack_dup dup,
                          steer_id_list *added, char *err, size_t errlen)
{
	reader r = {msg, msg + len};
	steer_params *sets = NULL;
	size_t nsets = 0, sets_cap = 0;
	steer_vec2 *points = NULL;
	size_t points_cap = 0;
	steer_status st = STEER_OK;
	uint32_t id = 0;
	while (r.at < r.end) {
		uint32_t flags, set;
		steer_vehicle_record rec;
		memset(&rec, 0, sizeof rec);
		if (!take(&r, &flags, sizeof flags)) {
			st = fail(err, errlen, "cut short", id);
			break;
		}
		if (flags & PACK_NEW_SET) {
			if (steer_reserve((void **)&sets, &sets_cap, nsets + 1, sizeof *sets) !=
			    STEER_OK) {
				st = STEER_ERR_NOMEM;
				break;
			}
			if (!take(&r, &sets[nsets], sizeof *sets)) {
				st = fail(err, errlen, "cut short in a parameter set", id);
				break;
			}
			nsets++;
		}
		double d[8];
		if (!take(&r, &set, sizeof set) || !take(&r, &rec.id, sizeof rec.id) ||
		    !take(&r, &rec.behaviors, sizeof rec.behaviors) || !take(&r, d, sizeof d)) {
			st = fail(err, errlen, "cut short", id);
			break;
		}
		id = rec.id;
		if (set >= nsets) {
			st = fail(err, errlen, "names a parameter set not sent", id);
			break;
		}
		rec.prm = sets[set];
		rec.pos = v2(d[0], d[1]);
		rec.vel = v2(d[2], d[3]);
		rec.heading = v2(d[4], d[5]);
		rec.force = v2(d[6], d[7]);
		if (flags & PACK_EXTRAS) {
			if (!take(&r, &rec.state, sizeof rec.state)) {
				st = fail(err, errlen, "cut short in its state", id);
				break;
			}
			uint32_t n = rec.state.path.count;
			rec.state.path.points = NULL;
			if (rec.state.go.epoch == STEER_GOTO_FRESH)
				rec.state.go.epoch = steer_goto_epoch(w);
			if (n > STEER_MAX_WAYPOINTS) {
				st = fail(err, errlen, "too many waypoints", id);
				break;
			}
			if (n) {
				if (steer_reserve((void **)&points, &points_cap, n,
				                  sizeof *points) != STEER_OK) {
					st = STEER_ERR_NOMEM;
					break;
				}
				if (!take(&r, points, n * sizeof *points)) {
					st = fail(err, errlen, "cut short in its path", id);
					break;
				}
				rec.state.path.points = points;
			}
		}
		if (dup == STEER_UNPACK_SKIP && steer_vehicle_index(w, rec.id) >= 0)
			continue;
		st = steer_vehicle_restore(w, &rec);
		if (st != STEER_OK) {
			if (st == STEER_ERR_INVALID)
				fail(err, errlen,
				     "refused by the world (a bad field or an id in use)", id);
			break;
		}
		if (added && (st = steer_id_list_push(added, rec.id)) != STEER_OK)
			break;
	}
	free(sets);
	free(points);
	return st;
}
