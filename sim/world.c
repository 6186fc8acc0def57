/* The world: its names, configuration, lifetime and queries, and restoring saved
 * state; its vehicles are world_vehicles.c, its shapes world_shapes.c. */
#include "world_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "motion.h"
#include "planner.h"
#include "reserve.h"
#include "world_parts.h"

/* The flocking grid's columns are half a sight wide: the block of candidates a lane
 * group shares then hugs its members' discs more closely (see run_forces). */
#define FLOCK_REACH_X 2

/* --- names ------------------------------------------------------------------- */

/* NULL for the bits this build does not have. */
static const char *const behavior_names[STEER_BEHAVIOR_COUNT] = {
    "seek", "flee",  "arrive", "pursue", "evade",     "wander", "avoid",
    "path", "flock", "follow", "hide",   "interpose", "goto",
};

const char *steer_behavior_name(uint32_t bit)
{
	for (int k = 0; k < STEER_BEHAVIOR_COUNT; k++)
		if (bit == (1u << k))
			return behavior_names[k];
	return NULL;
}

uint32_t steer_behavior_bit(const char *name)
{
	for (int k = 0; k < STEER_BEHAVIOR_COUNT; k++)
		if (behavior_names[k] && strcmp(name, behavior_names[k]) == 0)
			return 1u << k;
	return 0;
}

static const char *const edge_names[] = {"wrap", "bounce", "none"};

const char *steer_edges_name(steer_edges e)
{
	return (unsigned)e < 3 ? edge_names[e] : "?";
}

steer_status steer_edges_parse(const char *name, steer_edges *out)
{
	for (int k = 0; k < 3; k++)
		if (strcmp(name, edge_names[k]) == 0) {
			*out = (steer_edges)k;
			return STEER_OK;
		}
	return STEER_ERR_INVALID;
}

/* The edge rule applied to a position alone (spawns, resizes). */
void steer_world_place_inside(const steer_world_config *c, double *x, double *y)
{
	double vx = 0.0, vy = 0.0;
	steer_apply_edges(c, x, y, &vx, &vy);
}

/* --- configuration ------------------------------------------------------------ */

steer_world_config steer_world_config_default(void)
{
	steer_world_config c = {
	    .width = 1000.0,
	    .height = 600.0,
	    .edges = STEER_EDGE_WRAP,
	    .tick_rate = 60.0,
	    .seed = 1,
	    .max_vehicles = 0,
	    .solid = true,
	    .contain = false,
	};
	return c;
}

/* Large enough for any sensible world, small enough that width * height and grid
 * arithmetic stay far from overflow and precision loss. */
#define STEER_MAX_EXTENT    1e9
#define STEER_MAX_TICK_RATE 10000.0

double steer_world_radius_max(const steer_world_config *c)
{
	double side = fmin(c->width, c->height);
	switch (c->edges) {
	case STEER_EDGE_WRAP:
		return 0.25 * side;
	case STEER_EDGE_BOUNCE:
		return 0.5 * side;
	case STEER_EDGE_NONE:
		break;
	}
	return INFINITY;
}

steer_status steer_world_radius_check(const steer_world_config *c, double radius, char *err,
                                      size_t errlen)
{
	double most = steer_world_radius_max(c);
	if (radius <= most)
		return STEER_OK;
	snprintf(err, errlen, "radius %g is too large for this %s world of %g x %g: at most %g",
	         radius, steer_edges_name(c->edges), c->width, c->height, most);
	return STEER_ERR_INVALID;
}

/* Whether every vehicle and circle fits bounds c (steer_world_radius_max). */
static bool bodies_fit(const steer_world *w, const steer_world_config *c)
{
	double most = steer_world_radius_max(c);
	for (size_t i = 0; i < w->v.count; i++)
		if (steer_palette_get(&w->params, w->v.param_set[i])->radius > most)
			return false;
	for (size_t k = 0; k < w->obs_count; k++)
		if (w->obs[k].r > most)
			return false;
	return true;
}

steer_status steer_world_config_check(const steer_world_config *c, char *err, size_t errlen)
{
	/* At least a unit across: wrapping a coordinate into a world much smaller than
	 * its own magnitude loses every digit of precision. */
	if (!(c->width >= 1 && c->width <= STEER_MAX_EXTENT) ||
	    !(c->height >= 1 && c->height <= STEER_MAX_EXTENT))
		snprintf(err, errlen, "world size must be between 1 and %g", STEER_MAX_EXTENT);
	else if ((unsigned)c->edges > STEER_EDGE_NONE)
		snprintf(err, errlen, "edges must be wrap, bounce or none");
	else if (!(c->tick_rate > 0 && c->tick_rate <= STEER_MAX_TICK_RATE))
		snprintf(err, errlen, "tick rate must be in (0, %g] Hz", STEER_MAX_TICK_RATE);
	else
		return STEER_OK;
	return STEER_ERR_INVALID;
}

/* --- lifetime ----------------------------------------------------------------- */

steer_world *steer_world_create(const steer_world_config *cfg)
{
	char err[96];
	if (steer_world_config_check(cfg, err, sizeof err) != STEER_OK)
		return NULL;
	steer_world *w = calloc(1, sizeof *w);
	if (!w)
		return NULL;
	w->cfg = *cfg;
	w->next_id = 1;
	w->threads = 1;
	w->flock_stale = true;
	steer_idmap_init(&w->ids);
	steer_palette_init(&w->params);
	steer_grid_init(&w->grid);
	steer_geom_init(&w->geom);
	steer_bodies_init(&w->bodies);
	w->kernel = steer_kernel_for(STEER_SIMD_AVX512);
	w->grid.kernel = w->kernel;
	w->grid.reach_x = FLOCK_REACH_X;
	steer_grid_init(&w->avoid_grid);
	w->avoid_grid.kernel = w->kernel;
	steer_rng_seed(&w->rng, cfg->seed, 0x5eed);
	w->plan_memos = steer_plan_memos_new();
	if (!w->plan_memos || steer_geom_rebuild(w) != STEER_OK) {
		steer_world_destroy(w);
		return NULL;
	}
	return w;
}

static void free_polygons(steer_world *w)
{
	for (size_t k = 0; k < w->poly_count; k++)
		free(w->polys[k].points);
	w->poly_count = 0;
}

static void free_paths(steer_world *w)
{
	for (size_t i = 0; i < w->v.count; i++)
		if (w->v.extra[i] != STEER_NO_EXTRA)
			free(w->extras.slots[w->v.extra[i]].s.path.points);
}

void steer_world_destroy(steer_world *w)
{
	if (!w)
		return;
	free_paths(w);
	steer_vehicles *v = &w->v;
	free(v->id);
	free(v->behaviors);
	free(v->group);
	free(v->param_set);
	free(v->px);
	free(v->py);
	free(v->vx);
	free(v->vy);
	free(v->hx);
	free(v->hy);
	free(v->fx);
	free(v->fy);
	free(v->extra);
	free(w->extras.slots);
	free(w->extras.free);
	free(w->obs);
	free(w->walls);
	free_polygons(w);
	free(w->polys);
	steer_geom_free(&w->geom);
	steer_plan_memos_free(w->plan_memos);
	steer_goto_jobs_free(w);
	steer_idmap_free(&w->ids);
	steer_palette_free(&w->params);
	steer_grid_free(&w->grid);
	steer_grid_free(&w->avoid_grid);
	free(w->avoid_at.x);
	free(w->avoid_at.y);
	free(w->avoid_at.id);
	free(w->avoid_kept);
	free(w->avoid_list);
	for (int k = 0; k < STEER_POOL_MAX_THREADS; k++)
		steer_geom_hits_free(&w->avoid_hits[k]);
	steer_bodies_free(&w->bodies);
	steer_pool_destroy(w->pool);
	free(w->perm);
	free(w->spare32);

	free(w);
}

void steer_world_reset(steer_world *w)
{
	free_paths(w);
	w->v.count = 0;
	w->obs_count = 0;
	w->wall_count = 0;
	free_polygons(w);
	steer_idmap_clear(&w->ids);
	steer_palette_clear(&w->params);
	w->extras.count = w->extras.nfree = 0;
	w->next_id = 1;
	w->tick = 0;
	w->flock_stale = true;
	steer_rng_seed(&w->rng, w->cfg.seed, 0x5eed);
	steer_geom_circles_moved(w);
	steer_geom_rebuild_smaller(w);
}

void steer_world_set_seed(steer_world *w, uint64_t seed)
{
	w->cfg.seed = seed;
	steer_rng_seed(&w->rng, seed, 0x5eed);
}

steer_status steer_world_set_bounds(steer_world *w, double width, double height, steer_edges edges)
{
	steer_world_config c = w->cfg;
	char err[96];
	c.width = width;
	c.height = height;
	c.edges = edges;
	if (steer_world_config_check(&c, err, sizeof err) != STEER_OK || !bodies_fit(w, &c))
		return STEER_ERR_INVALID;
	steer_world_config old = w->cfg;
	w->cfg = c;
	/* The contained bounds and the cut of long walls follow the bounds. */
	if (steer_geom_rebuild(w) != STEER_OK) {
		w->cfg = old;
		return STEER_ERR_NOMEM;
	}
	steer_geom_circles_moved(w);
	/* Whoever was outside the new bounds is brought in by the new rule now, so that
	 * a wrap world never holds a position outside [0,W) x [0,H). */
	for (size_t i = 0; i < w->v.count; i++)
		steer_world_place_inside(&w->cfg, &w->v.px[i], &w->v.py[i]);
	return STEER_OK;
}

void steer_world_set_solid(steer_world *w, bool on)
{
	w->cfg.solid = on;
}

steer_status steer_world_set_contain(steer_world *w, bool on)
{
	bool old = w->cfg.contain;
	w->cfg.contain = on;
	if (!on) {
		steer_geom_rebuild_smaller(w);
		return STEER_OK;
	}
	if (steer_geom_rebuild(w) != STEER_OK) {
		w->cfg.contain = old;
		return STEER_ERR_NOMEM;
	}
	return STEER_OK;
}

steer_status steer_world_set_tick_rate(steer_world *w, double hz)
{
	steer_world_config c = w->cfg;
	char err[96];
	c.tick_rate = hz;
	if (steer_world_config_check(&c, err, sizeof err) != STEER_OK)
		return STEER_ERR_INVALID;
	w->cfg = c;
	return STEER_OK;
}

void steer_world_set_max_vehicles(steer_world *w, size_t max)
{
	w->cfg.max_vehicles = max;
}

/* --- queries ------------------------------------------------------------------ */

const steer_world_config *steer_world_config_get(const steer_world *w)
{
	return &w->cfg;
}

uint64_t steer_world_tick(const steer_world *w)
{
	return w->tick;
}

double steer_world_dt(const steer_world *w)
{
	return 1.0 / w->cfg.tick_rate;
}

const steer_vehicles *steer_world_vehicles(const steer_world *w)
{
	return &w->v;
}

steer_rng *steer_world_rng(steer_world *w)
{
	return &w->rng;
}

const steer_obstacle *steer_world_obstacles(const steer_world *w, size_t *count)
{
	*count = w->obs_count;
	return w->obs;
}

steer_vec2 steer_world_delta(const steer_world *w, steer_vec2 a, steer_vec2 b)
{
	steer_vec2 d = v2_sub(b, a);
	if (w->cfg.edges == STEER_EDGE_WRAP) {
		d.x = steer_wrap_axis(d.x, w->cfg.width);
		d.y = steer_wrap_axis(d.y, w->cfg.height);
	}
	return d;
}

long steer_vehicle_index(const steer_world *w, uint32_t id)
{
	uint32_t slot;
	if (!steer_idmap_get(&w->ids, id, &slot) || (slot & KIND_MASK))
		return -1;
	return (long)slot;
}

/* What a vehicle without extras reads as: no targets, no path. */
static const steer_vehicle_state no_extras;

const steer_vehicle_state *steer_vehicle_state_at(const steer_world *w, size_t i)
{
	uint32_t e = w->v.extra[i];
	return e == STEER_NO_EXTRA ? &no_extras : &w->extras.slots[e].s;
}

const steer_vehicle_state *steer_vehicle_get(const steer_world *w, uint32_t id)
{
	long i = steer_vehicle_index(w, id);
	return i < 0 ? NULL : steer_vehicle_state_at(w, (size_t)i);
}

/* The vehicle's extras, made on first need; NULL when memory runs out. A new one
 * starts its wander angle along the heading, so wandering begins straight on. */
steer_vehicle_state *steer_world_extras_for_write(steer_world *w, size_t i)
{
	if (w->v.extra[i] != STEER_NO_EXTRA)
		return &w->extras.slots[w->v.extra[i]].s;
	uint32_t e;
	if (w->extras.nfree) {
		e = w->extras.free[--w->extras.nfree];
	} else {
		if (steer_reserve((void **)&w->extras.slots, &w->extras.cap, w->extras.count + 1,
		                  sizeof *w->extras.slots) != STEER_OK)
			return NULL;
		if (w->extras.count >= STEER_NO_EXTRA)
			return NULL;
		e = (uint32_t)w->extras.count++;
	}
	memset(&w->extras.slots[e], 0, sizeof w->extras.slots[e]);
	steer_vehicle_state *s = &w->extras.slots[e].s;
	s->wander_angle = atan2(w->v.hy[i], w->v.hx[i]);
	w->v.extra[i] = e;
	return s;
}

/* Gives a vehicle's extras back (its path too). */
void steer_world_extras_release(steer_world *w, size_t i)
{
	uint32_t e = w->v.extra[i];
	if (e == STEER_NO_EXTRA)
		return;
	free(w->extras.slots[e].s.path.points);
	w->v.extra[i] = STEER_NO_EXTRA;
	if (steer_reserve((void **)&w->extras.free, &w->extras.free_cap, w->extras.nfree + 1,
	                  sizeof *w->extras.free) != STEER_OK)
		return; /* the slot is lost to reuse, not to correctness */
	w->extras.free[w->extras.nfree++] = e;
}

const steer_params *steer_vehicle_params_at(const steer_world *w, size_t i)
{
	return steer_palette_get(&w->params, w->v.param_set[i]);
}

bool steer_vehicle_display_heading(const steer_world *w, size_t i, steer_vec2 *out)
{
	uint32_t e = w->v.extra[i];
	if (e == STEER_NO_EXTRA ||
	    !(steer_palette_get(&w->params, w->v.param_set[i])->heading_smoothing > 0.0))
		return false;
	steer_vec2 h = w->extras.slots[e].s.smooth.heading;
	if (h.x == 0.0 && h.y == 0.0)
		return false;
	*out = h;
	return true;
}

const steer_params *steer_vehicle_params(const steer_world *w, uint32_t id)
{
	long i = steer_vehicle_index(w, id);
	return i < 0 ? NULL : steer_vehicle_params_at(w, (size_t)i);
}

size_t steer_world_param_sets(const steer_world *w)
{
	return steer_palette_live(&w->params);
}

steer_flock_totals steer_world_flock_totals(const steer_world *w)
{
	const steer_vehicles *v = &w->v;
	steer_flock_totals f = {0, 0.0, 0.0, 0.0};
	for (size_t i = 0; i < v->count; i++) {
		if (!(v->behaviors[i] & STEER_FLOCK))
			continue;
		f.flockers++;
		f.speed += sqrt(v->vx[i] * v->vx[i] + v->vy[i] * v->vy[i]);
		f.hx += v->hx[i];
		f.hy += v->hy[i];
	}
	return f;
}

steer_flock_health steer_flock_health_of(const steer_flock_totals *f)
{
	steer_flock_health h = {f->flockers, 0.0, 0.0};
	if (f->flockers) {
		double n = (double)f->flockers;
		h.mean_speed = f->speed / n;
		/* Rounding may put the length of a mean of unit vectors a hair above 1. */
		h.polarization = fmin(1.0, sqrt(f->hx * f->hx + f->hy * f->hy) / n);
	}
	return h;
}

steer_flock_health steer_world_flock_health(const steer_world *w)
{
	steer_flock_totals f = steer_world_flock_totals(w);
	return steer_flock_health_of(&f);
}

const steer_obstacle *steer_obstacle_get(const steer_world *w, uint32_t id)
{
	uint32_t slot;
	if (!steer_idmap_get(&w->ids, id, &slot) || (slot & KIND_MASK) != OBSTACLE_SLOT)
		return NULL;
	return &w->obs[slot & ~KIND_MASK];
}

/* --- vehicles ----------------------------------------------------------------- */

steer_status steer_world_grow_vehicles(steer_world *w)
{
	steer_vehicles *v = &w->v;
	size_t n;
	if (steer_grow_cap(v->cap, v->cap + 1, sizeof(double), &n) != STEER_OK)
		return STEER_ERR_NOMEM;
	/* Each array is grown in turn; a failure part-way leaves the larger arrays in
	 * place (harmless) and the old capacity recorded, so the world stays valid. */
	if (steer_resize((void **)&v->id, n, sizeof *v->id) != STEER_OK ||
	    steer_resize((void **)&v->behaviors, n, sizeof *v->behaviors) != STEER_OK ||
	    steer_resize((void **)&v->group, n, sizeof *v->group) != STEER_OK ||
	    steer_resize((void **)&v->param_set, n, sizeof *v->param_set) != STEER_OK ||
	    steer_resize((void **)&v->px, n, sizeof *v->px) != STEER_OK ||
	    steer_resize((void **)&v->py, n, sizeof *v->py) != STEER_OK ||
	    steer_resize((void **)&v->vx, n, sizeof *v->vx) != STEER_OK ||
	    steer_resize((void **)&v->vy, n, sizeof *v->vy) != STEER_OK ||
	    steer_resize((void **)&v->hx, n, sizeof *v->hx) != STEER_OK ||
	    steer_resize((void **)&v->hy, n, sizeof *v->hy) != STEER_OK ||
	    steer_resize((void **)&v->fx, n, sizeof *v->fx) != STEER_OK ||
	    steer_resize((void **)&v->fy, n, sizeof *v->fy) != STEER_OK ||
	    steer_resize((void **)&v->extra, n, sizeof *v->extra) != STEER_OK ||
	    steer_resize((void **)&w->spare32, n, sizeof *w->spare32) != STEER_OK)
		return STEER_ERR_NOMEM;
	v->cap = n;
	return STEER_OK;
}

static uint32_t max_live_id(const steer_world *w)
{
	uint32_t m = 0;
	for (size_t i = 0; i < w->v.count; i++)
		m = w->v.id[i] > m ? w->v.id[i] : m;
	for (size_t k = 0; k < w->obs_count; k++)
		m = w->obs[k].id > m ? w->obs[k].id : m;
	for (size_t k = 0; k < w->wall_count; k++)
		m = w->walls[k].id > m ? w->walls[k].id : m;
	for (size_t k = 0; k < w->poly_count; k++)
		m = w->polys[k].id > m ? w->polys[k].id : m;
	return m;
}

steer_status steer_world_meta_set(steer_world *w, const steer_world_meta *m)
{
	if (m->next_id == 0 || m->next_id >= OBSTACLE_SLOT || m->next_id <= max_live_id(w))
		return STEER_ERR_INVALID;
	w->tick = m->tick;
	w->next_id = m->next_id;
	w->rng = m->rng;
	return STEER_OK;
}

void steer_vehicle_record_get(const steer_world *w, size_t i, steer_vehicle_record *out)
{
	const steer_vehicles *v = &w->v;
	out->id = v->id[i];
	out->behaviors = v->behaviors[i];
	out->pos = pos_of(v, i);
	out->vel = vel_of(v, i);
	out->heading = v2(v->hx[i], v->hy[i]);
	out->force = v2(v->fx[i], v->fy[i]);
	out->prm = *steer_vehicle_params_at(w, i);
	out->state = *steer_vehicle_state_at(w, i);
}

bool steer_world_id_in_use(const steer_world *w, uint32_t id)
{
	uint32_t slot;
	return steer_idmap_get(&w->ids, id, &slot);
}

steer_status steer_world_restore_vehicle(steer_world *w, const steer_vehicle_record *r,
                                         steer_set_memo *memo)
{
	char err[96];
	const steer_vehicle_state *s = &r->state;
	const steer_path *path = &s->path;
	/* A memo is made only from parameters that passed these checks, and its set is
	 * held by a vehicle, which the world's bounds still fit (a resize refuses bounds
	 * that some vehicle does not). */
	bool known = steer_set_memo_valid(memo, &w->params);
	if (r->id == 0 || r->id >= OBSTACLE_SLOT || steer_world_id_in_use(w, r->id) ||
	    (r->behaviors & ~(uint32_t)STEER_ALL_BEHAVIORS) || !steer_world_finite2(r->pos) ||
	    !steer_world_finite2(r->vel) || !steer_world_finite2(r->heading) ||
	    !steer_world_finite2(r->force) || !steer_world_finite2(s->seek_target) ||
	    !steer_world_finite2(s->flee_target) || !steer_world_finite2(s->arrive_target) ||
	    !steer_world_finite2(s->group.offset) || !isfinite(s->wander_angle) ||
	    !steer_world_finite2(s->go.goal) || !steer_world_finite2(s->go.from) ||
	    !steer_world_finite2(s->go.start) ||
	    !(s->go.radius >= 0.0 && s->go.radius <= STEER_PARAM_MAX) ||
	    !steer_world_finite2(s->smooth.heading) ||
	    (!known && (steer_params_check(&r->prm, err, sizeof err) != STEER_OK ||
	                r->prm.radius > steer_world_radius_max(&w->cfg))) ||
	    path->count > STEER_MAX_WAYPOINTS || (path->count && path->index >= path->count) ||
	    (path->count && !path->points))
		return STEER_ERR_INVALID;
	for (uint32_t k = 0; k < path->count; k++)
		if (!steer_world_finite2(path->points[k]))
			return STEER_ERR_INVALID;
	steer_vehicle_record copy = *r;
	copy.state.path.points = NULL;
	copy.state.path.cap = path->count;
	if (path->count) {
		copy.state.path.points = malloc(path->count * sizeof *path->points);
		if (!copy.state.path.points)
			return STEER_ERR_NOMEM;
		memcpy(copy.state.path.points, path->points, path->count * sizeof *path->points);
	}
	steer_status st = steer_world_append_known(w, &copy, memo);
	if (st != STEER_OK)
		free(copy.state.path.points);
	return st;
}

steer_status steer_vehicle_restore(steer_world *w, const steer_vehicle_record *r)
{
	steer_set_memo memo = {STEER_PALETTE_NONE, 0, NULL};
	return steer_world_restore_vehicle(w, r, &memo);
}

steer_status steer_obstacle_restore(steer_world *w, const steer_obstacle *o)
{
	if (o->id == 0 || o->id >= OBSTACLE_SLOT || steer_world_id_in_use(w, o->id))
		return STEER_ERR_INVALID;
	uint32_t id;
	uint32_t saved_next = w->next_id;
	w->next_id = o->id; /* steer_obstacle_add hands out next_id */
	steer_status st = steer_obstacle_add(w, v2(o->x, o->y), v2(o->vx, o->vy), o->r, &id);
	w->next_id = saved_next > o->id ? saved_next : o->id + 1;
	return st;
}

/* --- obstacles ---------------------------------------------------------------- */

steer_status steer_obstacle_add(steer_world *w, steer_vec2 pos, steer_vec2 vel, double radius,
                                uint32_t *id_out)
{
	if (!steer_world_finite2(pos) || !steer_world_finite2(vel) ||
	    !(radius > 0.0 && radius <= STEER_PARAM_MAX) ||
	    radius > steer_world_radius_max(&w->cfg))
		return STEER_ERR_INVALID;
	if (steer_reserve((void **)&w->obs, &w->obs_cap, w->obs_count + 1, sizeof *w->obs) !=
	    STEER_OK)
		return STEER_ERR_NOMEM;
	if (w->next_id >= OBSTACLE_SLOT)
		return STEER_ERR_LIMIT;
	uint32_t id = w->next_id;
	size_t i = w->obs_count;
	if (steer_idmap_put(&w->ids, id, (uint32_t)i | OBSTACLE_SLOT) != STEER_OK)
		return STEER_ERR_NOMEM;
	w->next_id++;
	steer_obstacle o = {id, pos.x, pos.y, vel.x, vel.y, radius};
	w->obs[i] = o;
	w->obs_count++;
	steer_geom_circles_moved(w);
	if (id_out)
		*id_out = id;
	return STEER_OK;
}
