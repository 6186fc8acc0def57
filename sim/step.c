#include "world_internal.h"

#include <math.h>
#include <string.h>
#include <time.h>

#include "avoid.h"
#include "behaviors.h"
#include "flock.h"
#include "motion.h"
#include "planner.h"
#include "pool.h"
#include "targets.h"

/* --- stepping ----------------------------------------------------------------- */

static steer_agent agent_at(const steer_world *w, size_t i)
{
	const steer_vehicles *v = &w->v;
	steer_agent a = {vel_of(v, i), v2(v->hx[i], v->hy[i]),
	                 steer_palette_get(&w->params, v->param_set[i])};
	return a;
}

/* Where a point lies along a path: the nearest point on it, its distance from the
 * first point along the path, the segment it is on and how far the point is from it. */
typedef struct path_spot {
	double along, off;
	uint32_t seg;
} path_spot;

/* The path's points relative to the vehicle at p, each the short way round. */
static steer_vec2 path_rel(const steer_world *w, const steer_path *path, steer_vec2 p, uint32_t k)
{
	return steer_world_delta(w, p, path->points[k % path->count]);
}

static uint32_t path_segments(const steer_path *path)
{
	return path->loop ? path->count : path->count - 1;
}

/* q relative to the vehicle, like path_rel's points. *length gets the path's length. */
static path_spot path_map(const steer_world *w, const steer_path *path, steer_vec2 p, steer_vec2 q,
                          double *length)
{
	path_spot best = {0.0, INFINITY, 0};
	double at = 0.0;
	steer_vec2 a = path_rel(w, path, p, 0);
	for (uint32_t k = 0; k < path_segments(path); k++) {
		steer_vec2 b = path_rel(w, path, p, k + 1);
		steer_vec2 s = v2_sub(b, a);
		double l2 = v2_len2(s), len = sqrt(l2);
		double t = l2 > 0.0 ? fmin(fmax(v2_dot(v2_sub(q, a), s) / l2, 0.0), 1.0) : 0.0;
		double off = v2_len(v2_sub(q, v2_add(a, v2_scale(s, t))));
		if (off < best.off)
			best = (path_spot){at + t * len, off, k};
		at += len;
		a = b;
	}
	*length = at;
	return best;
}

/* The point at distance `along` from the first point, relative to the vehicle. */
static steer_vec2 path_point_at(const steer_world *w, const steer_path *path, steer_vec2 p,
                                double along)
{
	double at = 0.0;
	steer_vec2 a = path_rel(w, path, p, 0);
	uint32_t segs = path_segments(path);
	for (uint32_t k = 0; k < segs; k++) {
		steer_vec2 b = path_rel(w, path, p, k + 1);
		double len = v2_len(v2_sub(b, a));
		if (along <= at + len || k + 1 == segs)
			return len > 0.0 ? v2_add(a, v2_scale(v2_sub(b, a),
			                                      fmin((along - at) / len, 1.0)))
			                 : a;
		at += len;
		a = b;
	}
	return a;
}

/* OpenSteer's steerToFollowPath: the vehicle predicts where it will be path_lookahead
 * ahead; while that stays inside the corridor and further along the path the way it
 * walks, it keeps its course and only its speed is kept up; else it seeks the point
 * that far ahead along the path. The end of an open path is arrived at. */
static steer_vec2 corridor_part(const steer_world *w, size_t i, steer_path *path,
                                const steer_agent *a)
{
	const steer_params *prm = a->prm;
	steer_vec2 p = pos_of(&w->v, i);
	double dt = steer_world_dt(w), length;
	if (path->count < 2)
		return steer_arrive(a, path_rel(w, path, p, 0), dt);
	double dir = prm->path_direction == STEER_PATH_BACKWARD ? -1.0 : 1.0;
	path_spot now = path_map(w, path, p, v2(0.0, 0.0), &length);
	path_spot ahead = path_map(w, path, p, v2_scale(a->v, prm->path_lookahead), &length);
	/* The waypoint being walked towards: the end of the nearest segment the way it
	 * walks, for whoever shows progress. */
	path->index = dir > 0 ? (now.seg + 1) % path->count : now.seg;
	double moved = ahead.along - now.along;
	if (path->loop && length > 0.0)
		moved = remainder(moved, length);
	double step = dir * prm->path_lookahead * prm->max_speed;
	double target = now.along + step;
	if (!path->loop && (target >= length || target <= 0.0)) {
		steer_vec2 end = path_rel(w, path, p, dir > 0 ? path->count - 1 : 0);
		return steer_arrive(a, end, dt);
	}
	if (ahead.off < prm->path_radius && dir * moved > 0.0)
		return v2_scale(v2_norm(a->v), prm->max_speed - v2_len(a->v));
	if (path->loop && length > 0.0) {
		target = fmod(target, length);
		if (target < 0.0)
			target += length;
	}
	return steer_seek_within(a, path_point_at(w, path, p, target), dt);
}

static steer_vec2 path_part(const steer_world *w, size_t i, steer_extra *e, const steer_agent *a)
{
	steer_path *path = &e->s.path;
	steer_free_memo *m = &e->target_memo;
	if (path->count == 0)
		return v2(0, 0);
	if (a->prm->path_radius > 0.0)
		return corridor_part(w, i, path, a);
	steer_vec2 p = pos_of(&w->v, i);
	double r = steer_target_clearance(a->prm, w->v.behaviors[i]);
	steer_vec2 d =
	    steer_world_delta(w, p, steer_target_free_memo(w, m, path->points[path->index], r));
	if (v2_len2(d) < a->prm->path_threshold * a->prm->path_threshold) {
		if (path->index + 1 < path->count)
			path->index++;
		else if (path->loop)
			path->index = 0;
		d = steer_world_delta(w, p,
		                      steer_target_free_memo(w, m, path->points[path->index], r));
	}
	bool last = path->index + 1 == path->count;
	double dt = steer_world_dt(w);
	return last && !path->loop ? steer_arrive(a, d, dt) : steer_seek_within(a, d, dt);
}

/* Buckland's Hide for vehicle i at p: arrive at the hiding place behind the obstacle
 * circle within hide_reach whose hiding place is nearest (ties to the lower index),
 * moved out of anything it lies in; evade the hunter when there is none. */
static steer_vec2 hide_part(const steer_world *w, size_t i, const steer_agent *a, steer_vec2 p,
                            size_t hunter, steer_geom_hits *hits)
{
	const steer_params *prm = a->prm;
	const steer_vehicles *v = &w->v;
	steer_vec2 dh = steer_world_delta(w, p, pos_of(v, hunter));
	double gap = prm->radius + prm->hide_distance;
	bool found = false;
	steer_vec2 best = v2(0, 0);
	double best_d2 = 0.0;
	uint32_t best_k = 0;
	if (w->obs_count && steer_geom_query_near(w, p, prm->hide_reach, hits) == STEER_OK) {
		for (size_t k = 0; k < hits->nnear; k++) {
			const steer_obstacle *o = &w->obs[hits->near[k].index];
			steer_vec2 d_obs = steer_world_delta(w, p, v2(o->x, o->y));
			steer_vec2 spot = steer_hide_spot(d_obs, o->r, dh, gap);
			double d2 = v2_len2(spot);
			uint32_t idx = hits->near[k].index;
			if (!found || d2 < best_d2 || (d2 == best_d2 && idx < best_k)) {
				found = true;
				best = spot;
				best_d2 = d2;
				best_k = idx;
			}
		}
	}
	double dt = steer_world_dt(w);
	if (!found)
		return steer_evade(a, dh, vel_of(v, hunter));
	steer_vec2 at =
	    steer_target_free(w, v2_add(p, best), steer_target_clearance(prm, v->behaviors[i]));
	return steer_arrive(a, steer_world_delta(w, p, at), dt);
}

/* The group behaviours' parts (follow, hide, interpose) of vehicle i, s its state. */
static void group_parts(const steer_world *w, size_t i, const steer_vehicle_state *s,
                        const steer_agent *a, steer_vec2 parts[STEER_PART_COUNT], uint32_t *mask,
                        steer_geom_hits *hits)
{
	const steer_vehicles *v = &w->v;
	const steer_group_state *g = &s->group;
	const steer_params *prm = a->prm;
	uint32_t b = v->behaviors[i];
	steer_vec2 p = pos_of(v, i);
	double dt = steer_world_dt(w);
	if (b & STEER_FOLLOW) {
		long j = steer_vehicle_index(w, g->leader_id);
		if (j >= 0) {
			steer_vec2 lh = v2(v->hx[j], v->hy[j]);
			steer_vec2 slot =
			    v2_add(pos_of(v, (size_t)j), steer_offset_point(lh, g->offset));
			steer_vec2 f = steer_follow(a, steer_world_delta(w, p, slot),
			                            vel_of(v, (size_t)j), dt);
			parts[STEER_PART_FOLLOW] = v2_scale(f, prm->follow_weight);
			*mask |= 1u << STEER_PART_FOLLOW;
		}
	}
	if (b & STEER_HIDE) {
		long j = steer_vehicle_index(w, g->hunter_id);
		if (j >= 0) {
			steer_vec2 f = hide_part(w, i, a, p, (size_t)j, hits);
			parts[STEER_PART_HIDE] = v2_scale(f, prm->hide_weight);
			*mask |= 1u << STEER_PART_HIDE;
		}
	}
	if (b & STEER_INTERPOSE) {
		long ja = steer_vehicle_index(w, g->between[0]);
		long jb = steer_vehicle_index(w, g->between[1]);
		if (ja >= 0 && jb >= 0) {
			steer_vec2 da = steer_world_delta(w, p, pos_of(v, (size_t)ja));
			steer_vec2 db = steer_world_delta(w, p, pos_of(v, (size_t)jb));
			steer_vec2 f = steer_interpose(a, da, vel_of(v, (size_t)ja), db,
			                               vel_of(v, (size_t)jb), dt);
			parts[STEER_PART_INTERPOSE] = v2_scale(f, prm->interpose_weight);
			*mask |= 1u << STEER_PART_INTERPOSE;
		}
	}
}

/* The force on vehicle i from the tick's starting state. Writes only vehicle i's own
 * bookkeeping (wander angle, path index), which no other vehicle reads. flock: its
 * neighbourhood sums when already scanned, else NULL. */
static steer_vec2 steering_force(steer_world *w, size_t i, const steer_flock_sums *flock,
                                 steer_geom_hits *hits)
{
	steer_vehicles *v = &w->v;
	/* Every behaviour below that reads s has made the vehicle's extras. */
	steer_extra *e = v->extra[i] != STEER_NO_EXTRA ? &w->extras.slots[v->extra[i]] : NULL;
	steer_vehicle_state *s = e ? &e->s : NULL;
	uint32_t b = v->behaviors[i];
	steer_agent a = agent_at(w, i);
	const steer_params *prm = a.prm;
	steer_vec2 p = pos_of(v, i);
	steer_vec2 parts[STEER_PART_COUNT];
	uint32_t mask = 0;
	double clearance = steer_target_clearance(prm, b);

	if (b & STEER_SEEK) {
		steer_vec2 t =
		    steer_target_free_memo(w, &e->target_memo, s->seek_target, clearance);
		parts[STEER_PART_SEEK] =
		    v2_scale(steer_seek_within(&a, steer_world_delta(w, p, t), steer_world_dt(w)),
		             prm->seek_weight);
		mask |= 1u << STEER_PART_SEEK;
	}
	if (b & STEER_FLEE) {
		parts[STEER_PART_FLEE] = v2_scale(
		    steer_flee(&a, steer_world_delta(w, p, s->flee_target)), prm->flee_weight);
		mask |= 1u << STEER_PART_FLEE;
	}
	if (b & STEER_ARRIVE) {
		steer_vec2 t =
		    steer_target_free_memo(w, &e->target_memo, s->arrive_target, clearance);
		parts[STEER_PART_ARRIVE] =
		    v2_scale(steer_arrive(&a, steer_world_delta(w, p, t), steer_world_dt(w)),
		             prm->arrive_weight);
		mask |= 1u << STEER_PART_ARRIVE;
	}
	if (b & STEER_PURSUE) {
		long j = steer_vehicle_index(w, s->pursue_id);
		if (j >= 0) {
			steer_vec2 d = steer_world_delta(w, p, pos_of(v, (size_t)j));
			parts[STEER_PART_PURSUE] =
			    v2_scale(steer_pursue(&a, d, vel_of(v, (size_t)j)), prm->pursue_weight);
			mask |= 1u << STEER_PART_PURSUE;
		}
	}
	if (b & STEER_EVADE) {
		long j = steer_vehicle_index(w, s->evade_id);
		if (j >= 0) {
			steer_vec2 d = steer_world_delta(w, p, pos_of(v, (size_t)j));
			parts[STEER_PART_EVADE] =
			    v2_scale(steer_evade(&a, d, vel_of(v, (size_t)j)), prm->evade_weight);
			mask |= 1u << STEER_PART_EVADE;
		}
	}
	if (b & STEER_WANDER) {
		parts[STEER_PART_WANDER] =
		    v2_scale(steer_wander(&a, s->wander_angle), prm->wander_weight);
		mask |= 1u << STEER_PART_WANDER;
		double u = steer_hash_unit(w->cfg.seed, v->id[i], w->tick);
		s->wander_angle =
		    remainder(s->wander_angle + (u - 0.5) * prm->wander_range, STEER_TAU);
	}
	if (b & STEER_PATH) {
		parts[STEER_PART_PATH] = v2_scale(path_part(w, i, e, &a), prm->path_weight);
		mask |= 1u << STEER_PART_PATH;
	}
	if (b & STEER_FLOCK) {
		steer_flock_sums own;
		if (!flock) {
			steer_flock_query q = steer_flock_query_at(v, i, &a);
			steer_flock_scan_one(v, &w->grid, w->cfg.width, w->cfg.height, &q, &own);
			flock = &own;
		}
		steer_flock_parts(&a, flock, parts, &mask);
	}
	if (b & (STEER_FOLLOW | STEER_HIDE | STEER_INTERPOSE))
		group_parts(w, i, s, &a, parts, &mask, hits);
	steer_cruise_part(&a, parts, &mask);
	steer_vec2 force = prm->combine == STEER_COMBINE_DITHER
	                       ? steer_combine_dither(parts, mask, prm, steer_world_dt(w),
	                                              w->cfg.seed, v->id[i], w->tick)
	                       : steer_combine_parts(parts, mask, prm, steer_world_dt(w));
	/* Avoidance bounds the velocity the rest asks for, whichever way they combine:
	 * under dither too it is never drawn for, so it is never skipped. */
	return b & STEER_AVOID ? steer_avoid_force(w, i, &a, force, hits) : force;
}

/* Returns whether any circle moved (a still one stays filed where it is). */
static bool move_obstacles(steer_world *w, double dt)
{
	const steer_world_config *c = &w->cfg;
	bool moved = false;
	for (size_t k = 0; k < w->obs_count; k++) {
		steer_obstacle *o = &w->obs[k];
		double x0 = o->x, y0 = o->y;
		o->x += o->vx * dt;
		o->y += o->vy * dt;
		if (c->edges == STEER_EDGE_NONE) {
			/* The bound the loader enforces, as for vehicles (motion.c). */
			o->x = fmin(fmax(o->x, -STEER_MAX_COORD), STEER_MAX_COORD);
			o->y = fmin(fmax(o->y, -STEER_MAX_COORD), STEER_MAX_COORD);
			moved |= o->x != x0 || o->y != y0;
			continue;
		}
		/* Obstacles bounce off the bounds in wrap worlds too (as in the seeds' demo),
		 * keeping the whole disc inside where it fits. */
		double rx = fmin(o->r, c->width * 0.5), ry = fmin(o->r, c->height * 0.5);
		if (o->x < rx) {
			o->x = rx;
			o->vx = fabs(o->vx);
		} else if (o->x > c->width - rx) {
			o->x = c->width - rx;
			o->vx = -fabs(o->vx);
		}
		if (o->y < ry) {
			o->y = ry;
			o->vy = fabs(o->vy);
		} else if (o->y > c->height - ry) {
			o->y = c->height - ry;
			o->vy = -fabs(o->vy);
		}
		moved |= o->x != x0 || o->y != y0;
	}
	return moved;
}

/* A boid whose force is its flock parts summed: the one the lane forms take. */
static bool plain_flocker(const steer_vehicles *v, size_t i, const steer_params *p)
{
	return v->behaviors[i] == STEER_FLOCK && p->combine == STEER_COMBINE_SUM;
}

static inline void survey_vehicle(steer_own_survey *o, const steer_vehicles *v,
                                  const steer_palette *pal, size_t i)
{
	uint32_t b = v->behaviors[i];
	const steer_params *p = steer_palette_get(pal, v->param_set[i]);
	o->avoid_any |= (b & STEER_AVOID) != 0;
	o->goto_any |= (b & STEER_GOTO) != 0;
	o->smooth_any |= p->heading_smoothing > 0.0;
	if (p->radius > o->radius_max)
		o->radius_max = p->radius;
	if (!(b & STEER_FLOCK))
		return;
	if (p->sight_distance > o->flock_sight)
		o->flock_sight = p->sight_distance;
	if (!o->has_flockers) {
		o->has_flockers = true;
		o->flock_group = v->group[i];
		o->flock_set = v->param_set[i];
	}
	o->groups_differ |= v->group[i] != o->flock_group;
	o->plain = o->plain && v->param_set[i] == o->flock_set && plain_flocker(v, i, p);
}

/* The survey counted afresh. The figures of every vehicle's parameters (radius,
 * smoothing) come from the palette's sets in use, each held by some vehicle, so the
 * pass over the vehicles reads only behaviours, groups and set numbers: it runs
 * every tick in a region, whose halo leaves at the tick's end. */
static void survey_own(steer_world *w)
{
	const steer_vehicles *v = &w->v;
	const steer_palette *pal = &w->params;
	steer_own_survey o = {.flock_sight = -1.0, .plain = true};
	for (size_t s = 0; s < pal->count; s++) {
		if (!pal->refs[s])
			continue;
		o.smooth_any |= pal->sets[s].heading_smoothing > 0.0;
		if (pal->sets[s].radius > o.radius_max)
			o.radius_max = pal->sets[s].radius;
	}
	uint32_t bits = 0;
	size_t i = 0;
	for (; i < v->count && !(v->behaviors[i] & STEER_FLOCK); i++)
		bits |= v->behaviors[i];
	if (i < v->count) {
		o.has_flockers = true;
		o.flock_group = v->group[i];
		o.flock_set = v->param_set[i];
	}
	/* All flockers alike (flock alone, one set, one group) in one pass without
	 * branches; their sight is then their set's. */
	bool differ = false, alike = true;
	for (; i < v->count; i++) {
		uint32_t b = v->behaviors[i];
		bool flocks = (b & STEER_FLOCK) != 0;
		bits |= b;
		differ |= flocks & (v->group[i] != o.flock_group);
		alike &= (!flocks) | ((b == STEER_FLOCK) & (v->param_set[i] == o.flock_set));
	}
	o.avoid_any = (bits & STEER_AVOID) != 0;
	o.goto_any = (bits & STEER_GOTO) != 0;
	o.groups_differ = differ;
	if (o.has_flockers && alike) {
		const steer_params *p = steer_palette_get(pal, o.flock_set);
		o.flock_sight = p->sight_distance;
		o.plain = p->combine == STEER_COMBINE_SUM;
	} else if (o.has_flockers) {
		o.plain = false;
		for (size_t k = 0; k < v->count; k++)
			if (v->behaviors[k] & STEER_FLOCK) {
				double sight =
				    steer_palette_get(pal, v->param_set[k])->sight_distance;
				if (sight > o.flock_sight)
					o.flock_sight = sight;
			}
	}
	w->own = o;
}

void steer_world_survey_add(steer_world *w, size_t i)
{
	if (!w->flock_stale)
		survey_vehicle(&w->own, &w->v, &w->params, i);
	w->figures_stale = true;
}

/* The own survey up to date: counted again when stale, then the figures in effect
 * are made again from it. */
static const steer_own_survey *own_survey(steer_world *w)
{
	if (w->flock_stale) {
		survey_own(w);
		w->flock_stale = false;
		w->figures_stale = true;
	}
	return &w->own;
}

void steer_world_survey_flock(steer_world *w)
{
	const steer_own_survey *o = own_survey(w);
	if (!w->figures_stale)
		return;
	w->figures_stale = false;
	w->avoid_any = o->avoid_any;
	w->goto_any = o->goto_any;
	w->smooth_any = o->smooth_any;
	w->radius_max = o->radius_max;
	w->flock_sight = o->flock_sight;
	w->flock_one_group = !o->groups_differ;
	w->flock_plain_set = o->has_flockers && o->plain ? o->flock_set : STEER_PALETTE_NONE;
	if (w->global_on) {
		/* The whole world's figures cover this region's: where the whole world has one
		 * plain set or one group, so has every region that has flockers. */
		const steer_world_survey *g = &w->global;
		w->flock_sight = g->flock_sight;
		w->radius_max = g->radius_max;
		w->avoid_any = g->avoid_any;
		w->smooth_any = g->smooth_any;
		w->flock_one_group = g->flock_one_group;
		if (!g->flock_plain)
			w->flock_plain_set = STEER_PALETTE_NONE;
	}
}

typedef struct fastest_job {
	const steer_vehicles *v;
	int parts;
	double fast2[STEER_POOL_MAX_THREADS];
} fastest_job;

static void fastest_part(void *arg, int part)
{
	fastest_job *j = arg;
	const steer_vehicles *v = j->v;
	double fast2 = 0.0;
	size_t to = steer_part_from(v->count, part + 1, j->parts);
	/* fmax's answer (a NaN is passed over) without its call a vehicle. */
	for (size_t i = steer_part_from(v->count, part, j->parts); i < to; i++) {
		double s2 = v->vx[i] * v->vx[i] + v->vy[i] * v->vy[i];
		fast2 = s2 > fast2 ? s2 : fast2;
	}
	j->fast2[part] = fast2;
}

/* A maximum is exact in any order, so the parts' give one thread's. */
static double own_speed_max(const steer_world *w)
{
	fastest_job j = {.v = &w->v, .parts = steer_world_parts(w, w->v.count)};
	steer_pool_run(w->pool, fastest_part, &j, j.parts);
	double fast2 = 0.0;
	for (int p = 0; p < j.parts; p++)
		fast2 = fmax(fast2, j.fast2[p]);
	return sqrt(fast2);
}

double steer_world_speed_max(const steer_world *w)
{
	return w->global_on ? w->global.speed_max : own_speed_max(w);
}

steer_world_survey steer_world_survey_own(steer_world *w)
{
	steer_world_survey s;
	memset(&s, 0, sizeof s);
	const steer_own_survey *o = own_survey(w);
	s.flock_sight = o->flock_sight;
	s.radius_max = o->radius_max;
	s.speed_max = own_speed_max(w);
	s.vehicles = w->v.count;
	s.avoid_any = o->avoid_any;
	s.smooth_any = o->smooth_any;
	s.flock_one_group = !o->groups_differ;
	s.has_flockers = o->has_flockers;
	s.flock_group = o->flock_group;
	s.flock_plain = o->has_flockers && o->plain;
	if (s.flock_plain)
		s.flock_set = *steer_palette_get(&w->params, o->flock_set);
	return s;
}

void steer_world_survey_set(steer_world *w, const steer_world_survey *s)
{
	w->global_on = s != NULL;
	if (s)
		w->global = *s;
	w->figures_stale = true;
}

size_t steer_world_vehicles_total(const steer_world *w)
{
	return w->total_told ? w->total_told : w->v.count;
}

void steer_world_set_vehicles_total(steer_world *w, size_t n)
{
	w->total_told = n;
}

double steer_world_reach(steer_world *w)
{
	steer_world_survey_flock(w);
	double reach = fmax(w->flock_sight, 0.0);
	if (!w->avoid_any)
		return reach;
	double speed = steer_world_speed_max(w);
	const steer_vehicles *v = &w->v;
	for (size_t i = 0; i < v->count; i++)
		if (v->behaviors[i] & STEER_AVOID)
			reach = fmax(reach,
			             steer_avoid_reach(
			                 w, steer_palette_get(&w->params, v->param_set[i]), speed));
	return reach;
}

void steer_world_set_reach_limit(steer_world *w, double reach)
{
	w->reach_limit = reach;
}

int steer_world_parts(const steer_world *w, size_t work)
{
	return work >= PARALLEL_MIN_VEHICLES ? steer_pool_threads(w->pool) : 1;
}

/* The slot of the k-th vehicle of the tick's order: the flock's grid's items, which
 * arrange extended by the others; with nothing flocking, the avoiders' grid's items
 * when it holds every vehicle; else slot order. */
static size_t slot_at(const steer_world *w, size_t k)
{
	if (w->grid.count)
		return w->grid.items[k];
	return w->avoid_grid.count ? w->avoid_grid.items[k] : k;
}

/* Flockers whose neighbourhoods are scanned and whose forces are still to be formed:
 * those at positions first .. first + count - 1 of the tick's order. Forming them a
 * batch at a time lets the square roots and divisions of one lane group's force
 * overlap with the next group's instead of each waiting out its own chain. */
#define FORCE_BATCH 32

typedef struct force_batch {
	size_t first;
	int count;
	steer_agent a[FORCE_BATCH];
	steer_flock_sums sums[FORCE_BATCH];
	steer_geom_hits *hits; /* the part's scratch for obstacle queries */
} force_batch;

static void batch_finish(steer_world *w, force_batch *b)
{
	steer_vehicles *v = &w->v;
	double dt = steer_world_dt(w);
	for (int s = 0; s < b->count; s += STEER_FLOCK_LANES) {
		int m = b->count - s < STEER_FLOCK_LANES ? b->count - s : STEER_FLOCK_LANES;
		size_t slot[STEER_FLOCK_LANES];
		for (int l = 0; l < m; l++)
			slot[l] = slot_at(w, b->first + (size_t)(s + l));
		/* Plain flockers have their forces in lanes. */
		steer_vec2 force[STEER_FLOCK_LANES];
		uint32_t plain = 0;
		for (int l = 0; l < m; l++)
			if (plain_flocker(v, slot[l], b->a[s + l].prm))
				plain |= 1u << l;
		if (plain)
			steer_flock_force_lanes(w->kernel, &b->a[s], &b->sums[s], m, dt, force);
		for (int l = 0; l < m; l++) {
			steer_vec2 f = (plain >> l) & 1u
			                   ? force[l]
			                   : steering_force(w, slot[l], &b->sums[s + l], b->hits);
			v->fx[slot[l]] = f.x;
			v->fy[slot[l]] = f.y;
		}
	}
	b->count = 0;
}

/* The parameters of the vehicles at positions k .. k + m - 1 of the tick's order
 * when they are plain flockers sharing one parameter set, the common case, whose
 * forces steer_flock_forces_at forms from the arrays; else NULL. */
static const steer_params *plain_lanes(const steer_world *w, size_t k, int m)
{
	if (w->flock_plain_set != STEER_PALETTE_NONE) /* every flocker is */
		return steer_palette_get(&w->params, w->flock_plain_set);
	const steer_vehicles *v = &w->v;
	uint32_t set = v->param_set[slot_at(w, k)];
	const steer_params *p = steer_palette_get(&w->params, set);
	for (int l = 0; l < m; l++) {
		size_t i = slot_at(w, k + (size_t)l);
		if (v->param_set[i] != set || !plain_flocker(v, i, p))
			return NULL;
	}
	return p;
}

/* Where the flock scan notes which vehicles came near another, for the bodies pass
 * (steer_bodies_plan_near), or NULL. */
static const steer_flock_near *near_plan(const steer_world *w)
{
	return w->bodies.near.at ? &w->bodies.near : NULL;
}

/* One lane group, the flockers at positions [s, s + m) of the tick's order sharing
 * runs: their neighbourhoods are scanned together, and their forces formed there
 * and then (plain flockers sharing parameters p, see plain_lanes) or queued in the
 * batch (p NULL). */
static void group_forces(steer_world *w, const steer_flock_runs *runs, size_t s, int m,
                         const steer_params *p, force_batch *b)
{
	steer_vehicles *v = &w->v;
	if (p) {
		batch_finish(w, b); /* the batch holds consecutive positions only */
		steer_flock_forces_at(w->kernel, v, runs, w->flock_one_group, s, m, p,
		                      steer_world_dt(w), near_plan(w), v->fx, v->fy);
		return;
	}
	if (b->count + m > FORCE_BATCH)
		batch_finish(w, b);
	if (b->count == 0)
		b->first = s;
	steer_agent *a = &b->a[b->count];
	steer_flock_query q[STEER_FLOCK_GROUP_MAX];
	for (int l = 0; l < m; l++) {
		size_t i = slot_at(w, s + (size_t)l);
		a[l] = agent_at(w, i);
		q[l] = steer_flock_query_at(v, i, &a[l]);
	}
	steer_flock_scan_lanes(w->kernel, v, runs, w->flock_one_group, q, s, m, near_plan(w),
	                       &b->sums[b->count]);
	b->count += m;
}

/* The force on the k-th vehicle of the tick's order, on its own. */
static void one_force(steer_world *w, size_t k, steer_geom_hits *hits)
{
	size_t i = slot_at(w, k);
	if (w->bodies.near.at && k < w->grid.count) /* not scanned in lanes: maybe near */
		w->bodies.near.at[k] = 1;
	steer_vec2 f = steering_force(w, i, NULL, hits);
	w->v.fx[i] = f.x;
	w->v.fy[i] = f.y;
}

/* How far apart, in grid columns, the first and last members of a lane group of up
 * to limit may be: wider groups share a block of candidates so wide that a group
 * gains less in filled lanes than it loses in cells scanned. Eight lanes fill best
 * over 3 reach_x columns (three sights) rather than 2 (docs/PERFORMANCE.md). */
static size_t group_columns(const steer_grid *g, int limit)
{
	return (size_t)(limit > STEER_FLOCK_LANES ? 3 : 2) * (size_t)g->reach_x;
}

/* How many of the flockers from grid position i (in cell c) on form a lane group of
 * at most limit: those before end within group_columns of c, in c's row (stored
 * columns: where a region's window skips empty ones, a block may be a little wider). */
static int group_members(const steer_grid *g, size_t c, size_t i, size_t end, int limit)
{
	size_t row_end = c - c % (size_t)g->wx + (size_t)g->wx;
	size_t past = c + group_columns(g, limit) + 1;
	past = past < row_end ? past : row_end;
	size_t stop = g->start[past] < end ? g->start[past] : end;
	return stop - i < (size_t)limit ? (int)(stop - i) : limit;
}

/* Lane groups are formed along each grid row from its first flocker: up to
 * steer_flock_group_size() consecutive flockers within group_columns of the first.
 * Members of neighbouring cells share the runs of a block a little wider than one
 * cell's, which costs less than lanes left empty. A group never spans a row, so a
 * range that starts at a row starts a group (see forces_split). */
static void run_forces(steer_world *w, size_t from, size_t to, steer_geom_hits *hits)
{
	const steer_grid *g = &w->grid;
	size_t end = to < g->count ? to : g->count;
	size_t i = from;
	const int group_max = steer_flock_group_size(w->kernel);
	force_batch batch;
	batch.count = 0;
	batch.hits = hits;
	/* Flockers come cell by cell: start at the cell holding the first of ours. */
	size_t c = i < end ? steer_grid_cell_at(g, i) : 0;
	while (i < end) {
		while (g->start[c + 1] <= i) /* the cell of position i */
			c++;
		/* Only plain flockers have eight-lane forms: others are scanned four at a
		 * time, and a block sized for eight would only add candidates to each four. */
		int limit = group_max;
		int m = group_members(g, c, i, end, limit);
		const steer_params *plain = plain_lanes(w, i, m);
		if (m > STEER_FLOCK_LANES && !plain) {
			limit = STEER_FLOCK_LANES;
			m = group_members(g, c, i, end, limit);
			plain = plain_lanes(w, i, m);
		}
		size_t c_last = c; /* the cell of the group's last member */
		while (g->start[c_last + 1] <= i + (size_t)m - 1)
			c_last++;
		steer_flock_runs runs;
		bool lanes = steer_flock_cell_runs(g, w->cfg.width, w->cfg.height, (uint32_t)c,
		                                   (int)(c_last - c + 1), &runs);
		if (!lanes && c_last > c) { /* a wrapping row too narrow for the wider block */
			m = (int)(g->start[c + 1] - i);
			m = m < limit ? m : limit;
			plain = plain_lanes(w, i, m);
			lanes = steer_flock_cell_runs(g, w->cfg.width, w->cfg.height, (uint32_t)c,
			                              1, &runs);
		}
		if (lanes) {
			group_forces(w, &runs, i, m, plain, &batch);
		} else {
			batch_finish(w, &batch); /* the batch holds consecutive positions only */
			for (int l = 0; l < m; l++)
				one_force(w, i + (size_t)l, hits);
		}
		i += (size_t)m;
	}
	batch_finish(w, &batch);
	for (; i < to; i++)
		one_force(w, i, hits);
}

/* Where part `part` of the force phase starts: its share of the vehicles, moved to
 * the nearer start of a grid row when that falls among the flockers, so that each
 * part forms the lane groups one thread would (see run_forces). Nondecreasing in
 * part, as the rows' starts are. */
static size_t forces_bound(const steer_world *w, int part, int parts)
{
	const steer_grid *g = &w->grid;
	size_t at = steer_part_from(w->v.count, part, parts);
	if (at >= g->count)
		return at;
	size_t cell = steer_grid_cell_at(g, at);
	/* The nearer end of the row holding it. */
	size_t row = cell - cell % (size_t)g->wx;
	size_t before = g->start[row];
	size_t after = g->start[row + (size_t)g->wx]; /* at most start[cells] */
	return at - before <= after - at ? before : after;
}

typedef struct step_job {
	steer_world *w;
	int parts;
} step_job;

static void forces_part(void *arg, int part)
{
	const step_job *j = arg;
	/* The scratch's counts are written at every query: kept on this thread's stack
	 * while the part runs, as the parts' scratch lies side by side and would share
	 * cache lines. */
	steer_geom_hits hits = j->w->avoid_hits[part];
	run_forces(j->w, forces_bound(j->w, part, j->parts), forces_bound(j->w, part + 1, j->parts),
	           &hits);
	j->w->avoid_hits[part] = hits;
}

/* Moves the part's vehicles by their forces: each reads and writes only its own
 * slot. */
static void moves_part(void *arg, int part)
{
	const step_job *j = arg;
	steer_world *w = j->w;
	w->bodies.speed2[part] = 0.0;
	steer_motion_step(w->kernel, &w->v, &w->params, &w->cfg, steer_world_dt(w),
	                  steer_part_from(w->v.count, part, j->parts),
	                  steer_part_from(w->v.count, part + 1, j->parts), &w->bodies.speed2[part]);
}

/* Buckland's Smoother, as an exponential average with time constant
 * heading_smoothing rather than a window of samples: no history to keep or save. It
 * follows the heading after the move, each vehicle on its own. */
static void smooth_headings(steer_world *w)
{
	steer_vehicles *v = &w->v;
	double dt = steer_world_dt(w);
	for (size_t i = 0; i < v->count; i++) {
		double tau = steer_palette_get(&w->params, v->param_set[i])->heading_smoothing;
		if (!(tau > 0.0) || v->extra[i] == STEER_NO_EXTRA)
			continue;
		steer_vec2 *s = &w->extras.slots[v->extra[i]].s.smooth.heading;
		steer_vec2 h = v2(v->hx[i], v->hy[i]);
		steer_vec2 m = v2_add(*s, v2_scale(v2_sub(h, *s), dt / (tau + dt)));
		/* Fresh, or turned right round in one step: the heading itself. */
		*s = v2_len2(m) > 0.0 && (s->x != 0.0 || s->y != 0.0) ? v2_norm(m) : h;
	}
}

/* Seconds on the wall clock (C11's, so the core needs no POSIX), when timing. */
static double phase_clock(const steer_world *w)
{
	struct timespec ts;
	if (!w->timing || !timespec_get(&ts, TIME_UTC))
		return 0.0;
	return (double)((long long)ts.tv_sec - w->timing_epoch) + (double)ts.tv_nsec * 1e-9;
}

steer_status steer_world_step(steer_world *w)
{
	double t0 = phase_clock(w), shared0 = steer_pool_run_seconds(w->pool);
	steer_status st = steer_world_index_flock(w);
	if (st == STEER_OK)
		st = steer_geom_update(w); /* the obstacle index, for this tick's queries */
	if (st == STEER_OK)
		st = steer_avoid_index(w);
	if (st == STEER_OK)
		st = steer_bodies_note_starts(w); /* the tunnelling guard's starts */
	if (st != STEER_OK) {
		steer_goto_replan_skipped(w);
		return st;
	}
	/* Planning writes routes: here, on one thread, from the tick's starting state. */
	steer_goto_replan(w);
	steer_bodies_plan_near(w);
	double t1 = phase_clock(w);
	step_job j = {w, steer_world_parts(w, w->v.count)};
	/* Phase 1: every force from the same starting state. */
	steer_pool_run(w->pool, forces_part, &j, j.parts);
	double t2 = phase_clock(w);
	/* Phase 2: integrate, once every force is known. */
	steer_pool_run(w->pool, moves_part, &j, j.parts);
	w->bodies.speed2_parts = j.parts;
	w->bodies.speed2_tick = w->tick;
	if (w->smooth_any)
		smooth_headings(w);
	if (move_obstacles(w, steer_world_dt(w)))
		steer_geom_circles_moved(w);
	/* Fresh for the bodies pass and for the commands between ticks; running out of
	 * memory here only leaves queries on the slow path until the next update. */
	(void)steer_geom_update(w);
	double t3 = phase_clock(w);
	/* Phase 3: bodies that overlap after the moves pushed apart. */
	if (w->cfg.solid)
		st = steer_bodies_resolve(w);
	w->tick++;
	if (w->timing) {
		w->phases.index_s += t1 - t0;
		w->phases.forces_s += t2 - t1;
		w->phases.moves_s += t3 - t2;
		double t4 = phase_clock(w);
		w->phases.bodies_s += t4 - t3;
		if (w->pool)
			w->phases.alone_s += t4 - t0 - (steer_pool_run_seconds(w->pool) - shared0);
		w->phases.ticks++;
	}
	return st;
}

void steer_world_time_phases(steer_world *w, bool on)
{
	struct timespec ts;
	w->timing = on;
	w->timing_epoch = timespec_get(&ts, TIME_UTC) ? (long long)ts.tv_sec : 0;
	w->phases = (steer_phase_times){0, 0.0, 0.0, 0.0, 0.0, 0.0};
	steer_pool_time_runs(w->pool, on);
}

steer_phase_times steer_world_phase_times(const steer_world *w)
{
	return w->phases;
}
