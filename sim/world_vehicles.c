/* A world's vehicles: adding (one, or many at once), removing, their parameters,
 * behaviours, targets, paths and groups; storage kept in slots the tick's order
 * sorts. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "motion.h"
#include "planner.h"
#include "reserve.h"
#include "world_internal.h"
#include "world_parts.h"

/* A position or velocity the tick can square and sum without overflow: finite and
 * within STEER_MAX_COORD (the name says finite; the bound is the point). */
bool steer_world_finite2(steer_vec2 a)
{
	return fabs(a.x) <= STEER_MAX_COORD && fabs(a.y) <= STEER_MAX_COORD; /* NaN fails */
}

bool steer_vec_ok(steer_vec2 v)
{
	return steer_world_finite2(v);
}

/* Behaviours that keep their state in a vehicle's extras. */
#define NEEDS_EXTRAS                                                                               \
	(STEER_SEEK | STEER_FLEE | STEER_ARRIVE | STEER_PURSUE | STEER_EVADE | STEER_WANDER |      \
	 STEER_PATH | STEER_FOLLOW | STEER_HIDE | STEER_INTERPOSE | STEER_GOTO)

static bool needs_extras(const steer_vehicle_record *r)
{
	const steer_vehicle_state *s = &r->state;
	const steer_group_state *g = &s->group;
	if (g->leader_id || g->offset.x != 0.0 || g->offset.y != 0.0 || g->hunter_id ||
	    g->between[0] || g->between[1])
		return true;
	return (r->behaviors & NEEDS_EXTRAS) || s->path.count || s->path.loop || s->pursue_id ||
	       s->evade_id || s->wander_angle != 0.0 || s->seek_target.x != 0.0 ||
	       s->seek_target.y != 0.0 || s->flee_target.x != 0.0 || s->flee_target.y != 0.0 ||
	       s->arrive_target.x != 0.0 || s->arrive_target.y != 0.0 || !steer_goto_none(&s->go) ||
	       r->prm.heading_smoothing > 0.0 || s->smooth.heading.x != 0.0 ||
	       s->smooth.heading.y != 0.0;
}

/* steer_world_append_vehicle (the one place that fills a vehicle slot) with r's
 * parameters known to be `set`, or looked up when it is STEER_PALETTE_NONE; *used
 * gets the set. */
static steer_status append_in_set(steer_world *w, const steer_vehicle_record *r, uint32_t set,
                                  uint32_t *used)
{
	steer_vehicles *v = &w->v;
	if ((w->cfg.max_vehicles && v->count >= w->cfg.max_vehicles) || v->count >= WALL_SLOT)
		return STEER_ERR_LIMIT;
	if (v->count == v->cap && steer_world_grow_vehicles(w) != STEER_OK)
		return STEER_ERR_NOMEM;
	size_t i = v->count;
	if (set != STEER_PALETTE_NONE)
		steer_palette_retain(&w->params, set, 1);
	else if (steer_palette_acquire(&w->params, &r->prm, &set) != STEER_OK)
		return STEER_ERR_NOMEM;
	*used = set;
	if (steer_idmap_put(&w->ids, r->id, (uint32_t)i) != STEER_OK) {
		steer_palette_release(&w->params, set);
		return STEER_ERR_NOMEM;
	}
	v->param_set[i] = set;
	v->id[i] = r->id;
	v->px[i] = r->pos.x;
	v->py[i] = r->pos.y;
	steer_world_place_inside(&w->cfg, &v->px[i], &v->py[i]);
	v->behaviors[i] = r->behaviors;
	v->group[i] = r->prm.group;
	v->vx[i] = r->vel.x;
	v->vy[i] = r->vel.y;
	v->hx[i] = r->heading.x;
	v->hy[i] = r->heading.y;
	v->fx[i] = r->force.x;
	v->fy[i] = r->force.y;
	v->extra[i] = STEER_NO_EXTRA;
	if (needs_extras(r)) {
		steer_vehicle_state *e = steer_world_extras_for_write(w, i);
		if (!e) {
			steer_idmap_del(&w->ids, r->id);
			steer_palette_release(&w->params, set);
			return STEER_ERR_NOMEM;
		}
		*e = r->state;
	}
	v->count++;
	steer_world_survey_add(w, i);
	if (r->id >= w->next_id)
		w->next_id = r->id + 1;
	return STEER_OK;
}

steer_status steer_world_append_vehicle(steer_world *w, const steer_vehicle_record *r)
{
	uint32_t used;
	return append_in_set(w, r, STEER_PALETTE_NONE, &used);
}

steer_status steer_world_append_known(steer_world *w, const steer_vehicle_record *r,
                                      steer_set_memo *memo)
{
	bool known = steer_set_memo_valid(memo, &w->params);
	uint32_t used;
	steer_status st = append_in_set(w, r, known ? memo->set : STEER_PALETTE_NONE, &used);
	if (st == STEER_OK) {
		memo->set = used;
		memo->frees = w->params.frees;
		memo->of = &w->params;
	}
	return st;
}

steer_status steer_vehicle_add(steer_world *w, steer_vec2 pos, steer_vec2 vel,
                               const steer_params *prm, uint32_t *id_out)
{
	steer_vehicle_record r;
	memset(&r, 0, sizeof r);
	r.prm = prm ? *prm : steer_params_default();
	char err[96];
	if (!steer_world_finite2(pos) || !steer_world_finite2(vel) ||
	    steer_params_check(&r.prm, err, sizeof err) != STEER_OK ||
	    r.prm.radius > steer_world_radius_max(&w->cfg))
		return STEER_ERR_INVALID;
	/* Ids below 2^31 leave the top bit for the slot tag: a world would need 1,000
	 * spawns a second for 24 days to run out. */
	if (w->next_id >= OBSTACLE_SLOT)
		return STEER_ERR_LIMIT;
	r.id = w->next_id;
	r.pos = pos;
	r.vel = v2_truncate(vel, r.prm.max_speed);
	r.heading = v2_len2(r.vel) > 0.0 ? v2_norm(r.vel) : v2(1.0, 0.0);
	steer_status st = steer_world_append_vehicle(w, &r);
	if (st == STEER_OK && id_out)
		*id_out = r.id;
	return st;
}

size_t steer_vehicles_room(const steer_world *w)
{
	const steer_vehicles *v = &w->v;
	size_t max = w->cfg.max_vehicles && w->cfg.max_vehicles < WALL_SLOT ? w->cfg.max_vehicles
	                                                                    : WALL_SLOT;
	size_t room = v->count < max ? max - v->count : 0;
	size_t ids = w->next_id < OBSTACLE_SLOT ? OBSTACLE_SLOT - w->next_id : 0;
	return room < ids ? room : ids;
}

/* Where a vehicle added at pos is placed: wrapped into a wrap world's bounds. */
static void placed(const steer_world *w, steer_vec2 pos, double *x, double *y)
{
	*x = pos.x;
	*y = pos.y;
	steer_world_place_inside(&w->cfg, x, y);
}

void steer_world_set_region_keep(steer_world *w, const steer_region_keep *keep)
{
	w->keep_region = keep != NULL;
	if (keep)
		w->keep = *keep;
}

/* Vehicle k of a bulk add is kept: every one, or those set in mask. */
static bool kept_at(const uint64_t *mask, size_t k)
{
	return !mask || (mask[k / 64] >> (k % 64) & 1u);
}

/* steer_vehicles_add's second half, checks passed: the `kept` vehicles mask says. */
static steer_status add_kept(steer_world *w, size_t n, const steer_vec2 *pos, const steer_vec2 *vel,
                             const steer_params *p, uint32_t behaviors, const uint64_t *mask,
                             size_t kept)
{
	steer_vehicles *v = &w->v;
	while (v->cap < v->count + kept)
		if (steer_world_grow_vehicles(w) != STEER_OK)
			return STEER_ERR_NOMEM;
	/* Smoothed headings keep state per vehicle (needs_extras): room for all of it
	 * first, so that nothing fails half-way. */
	bool state = p->heading_smoothing > 0.0;
	if (state && (kept >= STEER_NO_EXTRA - w->extras.count ||
	              steer_reserve((void **)&w->extras.slots, &w->extras.cap,
	                            w->extras.count + kept, sizeof *w->extras.slots) != STEER_OK))
		return STEER_ERR_NOMEM;
	uint32_t set;
	if (steer_palette_acquire(&w->params, p, &set) != STEER_OK)
		return STEER_ERR_NOMEM;
	/* The slots past the count are filled first: until the count moves, nothing
	 * reads them. */
	size_t i = v->count;
	for (size_t k = 0; k < n; k++) {
		if (!kept_at(mask, k))
			continue;
		/* As steer_vehicle_add, vehicle by vehicle: the same bits. */
		steer_vec2 u = v2_truncate(vel[k], p->max_speed);
		steer_vec2 h = v2_len2(u) > 0.0 ? v2_norm(u) : v2(1.0, 0.0);
		v->param_set[i] = set;
		v->id[i] = w->next_id + (uint32_t)k;
		placed(w, pos[k], &v->px[i], &v->py[i]);
		v->behaviors[i] = behaviors;
		v->group[i] = p->group;
		v->vx[i] = u.x;
		v->vy[i] = u.y;
		v->hx[i] = h.x;
		v->hy[i] = h.y;
		v->fx[i] = 0.0;
		v->fy[i] = 0.0;
		v->extra[i] = STEER_NO_EXTRA;
		i++;
	}
	for (i = v->count; i < v->count + kept; i++) {
		if (steer_idmap_put(&w->ids, v->id[i], (uint32_t)i) != STEER_OK) {
			while (i-- > v->count)
				steer_idmap_del(&w->ids, v->id[i]);
			steer_palette_release(&w->params, set);
			return STEER_ERR_NOMEM;
		}
	}
	steer_palette_retain(&w->params, set, (uint32_t)(kept - 1));
	for (i = v->count; state && i < v->count + kept; i++)
		memset(steer_world_extras_for_write(w, i), 0, sizeof(steer_vehicle_state));
	v->count += kept;
	w->next_id += (uint32_t)n;
	for (i = v->count - kept; i < v->count; i++)
		steer_world_survey_add(w, i);
	return STEER_OK;
}

steer_status steer_vehicles_add(steer_world *w, size_t n, const steer_vec2 *pos,
                                const steer_vec2 *vel, const steer_params *prm, uint32_t behaviors,
                                uint32_t *first_id)
{
	steer_params p = prm ? *prm : steer_params_default();
	char err[96];
	if ((behaviors & ~(uint32_t)(STEER_ALL_BEHAVIORS & ~NEEDS_EXTRAS)) ||
	    steer_params_check(&p, err, sizeof err) != STEER_OK ||
	    p.radius > steer_world_radius_max(&w->cfg))
		return STEER_ERR_INVALID;
	for (size_t k = 0; k < n; k++)
		if (!steer_world_finite2(pos[k]) || !steer_world_finite2(vel[k]))
			return STEER_ERR_INVALID;
	if (n > steer_vehicles_room(w))
		return STEER_ERR_LIMIT;
	if (first_id)
		*first_id = w->next_id;
	/* A region keeps only its own, noted in a mask (the region's test is a lookup in
	 * its cut); the ids of the others are spent all the same. */
	uint64_t *mask = NULL;
	size_t kept = n;
	if (w->keep_region && n > 0) {
		mask = calloc((n + 63) / 64, sizeof *mask);
		if (!mask)
			return STEER_ERR_NOMEM;
		kept = 0;
		for (size_t k = 0; k < n; k++) {
			double x, y;
			placed(w, pos[k], &x, &y);
			if (w->keep.holds(w->keep.ud, x, y)) {
				mask[k / 64] |= (uint64_t)1 << (k % 64);
				kept++;
			}
		}
	}
	steer_status st = STEER_OK;
	if (kept > 0)
		st = add_kept(w, n, pos, vel, &p, behaviors, mask, kept);
	else
		w->next_id += (uint32_t)n;
	free(mask);
	return st;
}

static void slot_load(const steer_vehicles *v, size_t i, vehicle_slot *s)
{
	*s = (vehicle_slot){v->id[i], v->behaviors[i], v->group[i], v->param_set[i], v->extra[i],
	                    v->px[i], v->py[i],        v->vx[i],    v->vy[i],        v->hx[i],
	                    v->hy[i], v->fx[i],        v->fy[i]};
}

static void slot_store(steer_vehicles *v, size_t i, const vehicle_slot *s)
{
	v->id[i] = s->id;
	v->behaviors[i] = s->behaviors;
	v->group[i] = s->group;
	v->param_set[i] = s->param_set;
	v->px[i] = s->px;
	v->py[i] = s->py;
	v->vx[i] = s->vx;
	v->vy[i] = s->vy;
	v->hx[i] = s->hx;
	v->hy[i] = s->hy;
	v->fx[i] = s->fx;
	v->fy[i] = s->fy;
	v->extra[i] = s->extra;
}

/* Every change of an existing vehicle's behaviours comes through here: what the
 * flockers are (steer_world_survey_flock) is kept between ticks until one does. */
static void set_behaviors(steer_world *w, size_t i, uint32_t bits)
{
	/* goto off ends its plan under way and forgets its goal. */
	if ((w->v.behaviors[i] & STEER_GOTO) && !(bits & STEER_GOTO) &&
	    w->v.extra[i] != STEER_NO_EXTRA) {
		/* All of it: a save keeps none of a goto that is off ("goto none"). */
		memset(&w->extras.slots[w->v.extra[i]].s.go, 0, sizeof(steer_goto_state));
	}
	w->v.behaviors[i] = bits;
	w->flock_stale = true;
}

/* Frees slot i, the last vehicle moving into it. */
static void detach_vehicle(steer_world *w, size_t i)
{
	steer_vehicles *v = &w->v;
	w->flock_stale = true;
	steer_world_extras_release(w, i);
	steer_palette_release(&w->params, v->param_set[i]);
	steer_idmap_del(&w->ids, v->id[i]);
	size_t last = --v->count;
	if (i != last) {
		vehicle_slot moved;
		slot_load(v, last, &moved);
		slot_store(v, i, &moved);
		/* Overwriting an existing key never allocates. */
		steer_idmap_put(&w->ids, v->id[i], (uint32_t)i);
	}
}

steer_status steer_vehicle_detach(steer_world *w, uint32_t id)
{
	long i = steer_vehicle_index(w, id);
	if (i < 0)
		return STEER_ERR_NOENT;
	detach_vehicle(w, (size_t)i);
	return STEER_OK;
}

static void remove_vehicle(steer_world *w, size_t i)
{
	steer_vehicles *v = &w->v;
	uint32_t gone = v->id[i];
	detach_vehicle(w, i);
	for (size_t k = 0; k < v->count; k++) {
		if (v->extra[k] == STEER_NO_EXTRA)
			continue;
		steer_vehicle_state *s = &w->extras.slots[v->extra[k]].s;
		if (s->pursue_id == gone) {
			s->pursue_id = 0;
			set_behaviors(w, k, v->behaviors[k] & ~(uint32_t)STEER_PURSUE);
		}
		if (s->evade_id == gone) {
			s->evade_id = 0;
			set_behaviors(w, k, v->behaviors[k] & ~(uint32_t)STEER_EVADE);
		}
		steer_group_state *g = &s->group;
		if (g->leader_id == gone) {
			g->leader_id = 0;
			set_behaviors(w, k, v->behaviors[k] & ~(uint32_t)STEER_FOLLOW);
		}
		if (g->hunter_id == gone) {
			g->hunter_id = 0;
			set_behaviors(w, k, v->behaviors[k] & ~(uint32_t)STEER_HIDE);
		}
		if (g->between[0] == gone || g->between[1] == gone) {
			g->between[0] = g->between[1] = 0;
			set_behaviors(w, k, v->behaviors[k] & ~(uint32_t)STEER_INTERPOSE);
		}
	}
}

static void remove_obstacle(steer_world *w, size_t i)
{
	steer_idmap_del(&w->ids, w->obs[i].id);
	size_t last = --w->obs_count;
	if (i != last) {
		w->obs[i] = w->obs[last];
		steer_idmap_put(&w->ids, w->obs[i].id, (uint32_t)i | OBSTACLE_SLOT);
	}
	steer_geom_circles_moved(w);
}

/* Walls and polygons leave the segment list, which shrinks in place. */
static void remove_wall(steer_world *w, size_t i)
{
	steer_idmap_del(&w->ids, w->walls[i].id);
	size_t last = --w->wall_count;
	if (i != last) {
		w->walls[i] = w->walls[last];
		steer_idmap_put(&w->ids, w->walls[i].id, (uint32_t)i | WALL_SLOT);
	}
	steer_geom_rebuild_smaller(w);
}

static void remove_polygon(steer_world *w, size_t i)
{
	steer_idmap_del(&w->ids, w->polys[i].id);
	free(w->polys[i].points);
	size_t last = --w->poly_count;
	if (i != last) {
		w->polys[i] = w->polys[last];
		steer_idmap_put(&w->ids, w->polys[i].id, (uint32_t)i | POLYGON_SLOT);
	}
	steer_geom_rebuild_smaller(w);
}

steer_status steer_remove(steer_world *w, uint32_t id)
{
	uint32_t slot;
	if (!steer_idmap_get(&w->ids, id, &slot))
		return STEER_ERR_NOENT;
	switch (slot & KIND_MASK) {
	case OBSTACLE_SLOT:
		remove_obstacle(w, slot & ~KIND_MASK);
		return STEER_OK;
	case WALL_SLOT:
		remove_wall(w, slot & ~KIND_MASK);
		return STEER_OK;
	case POLYGON_SLOT:
		remove_polygon(w, slot & ~KIND_MASK);
		return STEER_OK;
	default:
		remove_vehicle(w, slot);
		return STEER_OK;
	}
}

steer_status steer_vehicle_set_params(steer_world *w, uint32_t id, const steer_params *prm)
{
	long i = steer_vehicle_index(w, id);
	char err[96];
	if (i < 0)
		return STEER_ERR_NOENT;
	if (steer_params_check(prm, err, sizeof err) != STEER_OK ||
	    prm->radius > steer_world_radius_max(&w->cfg))
		return STEER_ERR_INVALID;
	/* The smoothed heading lives in the extras. */
	if (prm->heading_smoothing > 0.0 && !steer_world_extras_for_write(w, (size_t)i))
		return STEER_ERR_NOMEM;
	uint32_t set;
	if (steer_palette_acquire(&w->params, prm, &set) != STEER_OK)
		return STEER_ERR_NOMEM;
	/* Off forgets it, so that turning it on again starts from the heading then. */
	if (prm->heading_smoothing <= 0.0 && w->v.extra[i] != STEER_NO_EXTRA)
		w->extras.slots[w->v.extra[i]].s.smooth.heading = v2(0.0, 0.0);
	steer_palette_release(&w->params, w->v.param_set[i]);
	w->v.param_set[i] = set;
	w->v.group[i] = prm->group;
	w->flock_stale = true;
	return STEER_OK;
}

steer_status steer_vehicle_set_velocity(steer_world *w, uint32_t id, steer_vec2 vel)
{
	long i = steer_vehicle_index(w, id);
	if (i < 0)
		return STEER_ERR_NOENT;
	if (!steer_world_finite2(vel))
		return STEER_ERR_INVALID;
	vel = v2_truncate(vel, steer_vehicle_params_at(w, (size_t)i)->max_speed);
	w->v.vx[i] = vel.x;
	w->v.vy[i] = vel.y;
	if (v2_len2(vel) > 0.0) {
		steer_vec2 h = v2_norm(vel);
		w->v.hx[i] = h.x;
		w->v.hy[i] = h.y;
	}
	return STEER_OK;
}

steer_status steer_vehicle_set_position(steer_world *w, uint32_t id, steer_vec2 pos)
{
	long i = steer_vehicle_index(w, id);
	if (i < 0)
		return STEER_ERR_NOENT;
	if (!steer_world_finite2(pos))
		return STEER_ERR_INVALID;
	w->v.px[i] = pos.x;
	w->v.py[i] = pos.y;
	steer_world_place_inside(&w->cfg, &w->v.px[i], &w->v.py[i]);
	return STEER_OK;
}

steer_status steer_vehicle_enable(steer_world *w, uint32_t id, uint32_t bits, bool on)
{
	long i = steer_vehicle_index(w, id);
	if (i < 0)
		return STEER_ERR_NOENT;
	if (bits & ~(uint32_t)STEER_ALL_BEHAVIORS)
		return STEER_ERR_INVALID;
	const steer_vehicle_state *s = steer_vehicle_state_at(w, (size_t)i);
	/* pursue/evade need a live target, and the group behaviours their vehicles;
	 * turning them on without is meaningless. */
	const steer_group_state *g = &s->group;
	if (on &&
	    (((bits & STEER_PURSUE) && !s->pursue_id) || ((bits & STEER_EVADE) && !s->evade_id) ||
	     ((bits & STEER_FOLLOW) && !g->leader_id) || ((bits & STEER_HIDE) && !g->hunter_id) ||
	     ((bits & STEER_INTERPOSE) && !g->between[0])))
		return STEER_ERR_INVALID;
	/* goto is turned on by planning a route (steer_vehicle_goto). */
	if (on && (bits & STEER_GOTO))
		return STEER_ERR_INVALID;
	if (on && (bits & NEEDS_EXTRAS) && !steer_world_extras_for_write(w, (size_t)i))
		return STEER_ERR_NOMEM;
	set_behaviors(w, (size_t)i, on ? w->v.behaviors[i] | bits : w->v.behaviors[i] & ~bits);
	return STEER_OK;
}

/* A new target or chase replaces goto: its route goes with it. */
static void goto_drop(steer_world *w, size_t i)
{
	if (!(w->v.behaviors[i] & STEER_GOTO))
		return;
	steer_path *path = &w->extras.slots[w->v.extra[i]].s.path;
	path->count = 0;
	path->index = 0;
	set_behaviors(w, i, w->v.behaviors[i] & ~(uint32_t)(STEER_PATH | STEER_GOTO));
}

steer_status steer_vehicle_target(steer_world *w, uint32_t id, uint32_t bit, steer_vec2 target)
{
	long i = steer_vehicle_index(w, id);
	if (i < 0)
		return STEER_ERR_NOENT;
	if (!steer_world_finite2(target) ||
	    (bit != STEER_SEEK && bit != STEER_FLEE && bit != STEER_ARRIVE))
		return STEER_ERR_INVALID;
	steer_vehicle_state *s = steer_world_extras_for_write(w, (size_t)i);
	if (!s)
		return STEER_ERR_NOMEM;
	switch (bit) {
	case STEER_SEEK:
		s->seek_target = target;
		break;
	case STEER_FLEE:
		s->flee_target = target;
		break;
	case STEER_ARRIVE:
		s->arrive_target = target;
		break;
	default:
		return STEER_ERR_INVALID;
	}
	if (bit != STEER_FLEE)
		goto_drop(w, (size_t)i);
	set_behaviors(w, (size_t)i, w->v.behaviors[i] | bit);
	return STEER_OK;
}

steer_status steer_vehicle_chase(steer_world *w, uint32_t id, uint32_t bit, uint32_t other)
{
	long i = steer_vehicle_index(w, id);
	if (i < 0 || steer_vehicle_index(w, other) < 0)
		return STEER_ERR_NOENT;
	if (other == id || (bit != STEER_PURSUE && bit != STEER_EVADE))
		return STEER_ERR_INVALID;
	steer_vehicle_state *s = steer_world_extras_for_write(w, (size_t)i);
	if (!s)
		return STEER_ERR_NOMEM;
	if (bit == STEER_PURSUE) {
		s->pursue_id = other;
		goto_drop(w, (size_t)i);
	} else {
		s->evade_id = other;
	}
	set_behaviors(w, (size_t)i, w->v.behaviors[i] | bit);
	return STEER_OK;
}

steer_status steer_vehicle_follow(steer_world *w, uint32_t id, uint32_t leader, steer_vec2 offset)
{
	long i = steer_vehicle_index(w, id);
	if (i < 0 || steer_vehicle_index(w, leader) < 0)
		return STEER_ERR_NOENT;
	if (leader == id || !steer_world_finite2(offset))
		return STEER_ERR_INVALID;
	steer_vehicle_state *s = steer_world_extras_for_write(w, (size_t)i);
	if (!s)
		return STEER_ERR_NOMEM;
	s->group.leader_id = leader;
	s->group.offset = offset;
	goto_drop(w, (size_t)i);
	set_behaviors(w, (size_t)i, w->v.behaviors[i] | STEER_FOLLOW);
	return STEER_OK;
}

steer_status steer_vehicle_hide(steer_world *w, uint32_t id, uint32_t hunter)
{
	long i = steer_vehicle_index(w, id);
	if (i < 0 || steer_vehicle_index(w, hunter) < 0)
		return STEER_ERR_NOENT;
	if (hunter == id)
		return STEER_ERR_INVALID;
	steer_vehicle_state *s = steer_world_extras_for_write(w, (size_t)i);
	if (!s)
		return STEER_ERR_NOMEM;
	s->group.hunter_id = hunter;
	goto_drop(w, (size_t)i);
	set_behaviors(w, (size_t)i, w->v.behaviors[i] | STEER_HIDE);
	return STEER_OK;
}

steer_status steer_vehicle_interpose(steer_world *w, uint32_t id, uint32_t a, uint32_t b)
{
	long i = steer_vehicle_index(w, id);
	if (i < 0 || steer_vehicle_index(w, a) < 0 || steer_vehicle_index(w, b) < 0)
		return STEER_ERR_NOENT;
	if (a == id || b == id || a == b)
		return STEER_ERR_INVALID;
	steer_vehicle_state *s = steer_world_extras_for_write(w, (size_t)i);
	if (!s)
		return STEER_ERR_NOMEM;
	s->group.between[0] = a;
	s->group.between[1] = b;
	goto_drop(w, (size_t)i);
	set_behaviors(w, (size_t)i, w->v.behaviors[i] | STEER_INTERPOSE);
	return STEER_OK;
}

steer_status steer_vehicle_path_add(steer_world *w, uint32_t id, steer_vec2 point)
{
	long i = steer_vehicle_index(w, id);
	if (i < 0)
		return STEER_ERR_NOENT;
	if (!steer_world_finite2(point))
		return STEER_ERR_INVALID;
	steer_vehicle_state *s = steer_world_extras_for_write(w, (size_t)i);
	if (!s)
		return STEER_ERR_NOMEM;
	steer_path *path = &s->path;
	if (path->count >= STEER_MAX_WAYPOINTS)
		return STEER_ERR_LIMIT;
	size_t cap = path->cap; /* under 2 * STEER_MAX_WAYPOINTS: fits path->cap */
	if (steer_reserve((void **)&path->points, &cap, path->count + 1u, sizeof *path->points) !=
	    STEER_OK)
		return STEER_ERR_NOMEM;
	path->cap = (uint32_t)cap;
	path->points[path->count++] = point;
	/* The path is the user's now, goto's route and all. */
	set_behaviors(w, (size_t)i, (w->v.behaviors[i] | STEER_PATH) & ~(uint32_t)STEER_GOTO);
	return STEER_OK;
}

steer_status steer_vehicle_path_clear(steer_world *w, uint32_t id)
{
	long i = steer_vehicle_index(w, id);
	if (i < 0)
		return STEER_ERR_NOENT;
	if (w->v.extra[i] != STEER_NO_EXTRA) {
		steer_path *path = &w->extras.slots[w->v.extra[i]].s.path;
		path->count = 0;
		path->index = 0;
	}
	set_behaviors(w, (size_t)i, w->v.behaviors[i] & ~(uint32_t)(STEER_PATH | STEER_GOTO));
	return STEER_OK;
}

steer_status steer_vehicle_path_loop(steer_world *w, uint32_t id, bool loop)
{
	long i = steer_vehicle_index(w, id);
	if (i < 0)
		return STEER_ERR_NOENT;
	steer_vehicle_state *s = steer_world_extras_for_write(w, (size_t)i);
	if (!s)
		return STEER_ERR_NOMEM;
	s->path.loop = loop;
	return STEER_OK;
}

/* --- restoring saved state ---------------------------------------------------- */

steer_world_meta steer_world_meta_get(const steer_world *w)
{
	steer_world_meta m = {w->tick, w->next_id, w->rng};
	return m;
}
