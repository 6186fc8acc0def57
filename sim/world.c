#include "world_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "motion.h"
#include "planner.h"
#include "reserve.h"

/* The id map's slots carry what they index in their top two bits: vehicles none (so
 * a world holds fewer than 2^30 vehicles), obstacles, walls and polygons a tag each.
 * Ids stay below OBSTACLE_SLOT. */
#define OBSTACLE_SLOT 0x80000000u
#define WALL_SLOT     0x40000000u
#define POLYGON_SLOT  0xC0000000u
#define KIND_MASK     0xC0000000u
/* The flocking grid's columns are half a sight wide: the block of candidates a lane
 * group shares then hugs its members' discs more closely (see run_forces). */
#define FLOCK_REACH_X 2

/* One vehicle slot's worth of every array, for moving slots around. */
typedef struct vehicle_slot {
	uint32_t id, behaviors, group, param_set, extra;
	double px, py, vx, vy, hx, hy, fx, fy;
} vehicle_slot;

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
static void place_inside(const steer_world_config *c, double *x, double *y)
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
		place_inside(&w->cfg, &w->v.px[i], &w->v.py[i]);
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
static steer_vehicle_state *extras_for_write(steer_world *w, size_t i)
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
static void extras_release(steer_world *w, size_t i)
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

static steer_status grow_vehicles(steer_world *w)
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

/* A position or velocity the tick can square and sum without overflow: finite and
 * within STEER_MAX_COORD (the name says finite; the bound is the point). */
static bool finite2(steer_vec2 a)
{
	return fabs(a.x) <= STEER_MAX_COORD && fabs(a.y) <= STEER_MAX_COORD; /* NaN fails */
}

bool steer_vec_ok(steer_vec2 v)
{
	return finite2(v);
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

/* Appends a validated record as slot count, taking ownership of its path points. The
 * one place that fills a vehicle slot, for new vehicles and restored ones alike. */
static steer_status append_vehicle(steer_world *w, const steer_vehicle_record *r)
{
	steer_vehicles *v = &w->v;
	if ((w->cfg.max_vehicles && v->count >= w->cfg.max_vehicles) || v->count >= WALL_SLOT)
		return STEER_ERR_LIMIT;
	if (v->count == v->cap && grow_vehicles(w) != STEER_OK)
		return STEER_ERR_NOMEM;
	size_t i = v->count;
	uint32_t set;
	if (steer_palette_acquire(&w->params, &r->prm, &set) != STEER_OK)
		return STEER_ERR_NOMEM;
	if (steer_idmap_put(&w->ids, r->id, (uint32_t)i) != STEER_OK) {
		steer_palette_release(&w->params, set);
		return STEER_ERR_NOMEM;
	}
	v->param_set[i] = set;
	v->id[i] = r->id;
	v->px[i] = r->pos.x;
	v->py[i] = r->pos.y;
	place_inside(&w->cfg, &v->px[i], &v->py[i]);
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
		steer_vehicle_state *e = extras_for_write(w, i);
		if (!e) {
			steer_idmap_del(&w->ids, r->id);
			steer_palette_release(&w->params, set);
			return STEER_ERR_NOMEM;
		}
		*e = r->state;
	}
	v->count++;
	w->flock_stale = true;
	if (r->id >= w->next_id)
		w->next_id = r->id + 1;
	return STEER_OK;
}

steer_status steer_vehicle_add(steer_world *w, steer_vec2 pos, steer_vec2 vel,
                               const steer_params *prm, uint32_t *id_out)
{
	steer_vehicle_record r;
	memset(&r, 0, sizeof r);
	r.prm = prm ? *prm : steer_params_default();
	char err[96];
	if (!finite2(pos) || !finite2(vel) ||
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
	steer_status st = append_vehicle(w, &r);
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
		if (!finite2(pos[k]) || !finite2(vel[k]))
			return STEER_ERR_INVALID;
	steer_vehicles *v = &w->v;
	if (n > steer_vehicles_room(w))
		return STEER_ERR_LIMIT;
	if (first_id)
		*first_id = w->next_id;
	if (n == 0)
		return STEER_OK;
	while (v->cap < v->count + n)
		if (grow_vehicles(w) != STEER_OK)
			return STEER_ERR_NOMEM;
	/* Smoothed headings keep state per vehicle (needs_extras): room for all of it
	 * first, so that nothing fails half-way. */
	bool state = p.heading_smoothing > 0.0;
	if (state && (n >= STEER_NO_EXTRA - w->extras.count ||
	              steer_reserve((void **)&w->extras.slots, &w->extras.cap, w->extras.count + n,
	                            sizeof *w->extras.slots) != STEER_OK))
		return STEER_ERR_NOMEM;
	uint32_t set;
	if (steer_palette_acquire(&w->params, &p, &set) != STEER_OK)
		return STEER_ERR_NOMEM;
	for (size_t k = 0; k < n; k++) {
		uint32_t id = w->next_id + (uint32_t)k;
		if (steer_idmap_put(&w->ids, id, (uint32_t)(v->count + k)) != STEER_OK) {
			while (k-- > 0)
				steer_idmap_del(&w->ids, w->next_id + (uint32_t)k);
			steer_palette_release(&w->params, set);
			return STEER_ERR_NOMEM;
		}
	}
	steer_palette_retain(&w->params, set, (uint32_t)(n - 1));
	for (size_t k = 0; k < n; k++) {
		size_t i = v->count + k;
		/* As steer_vehicle_add, vehicle by vehicle: the same bits. */
		steer_vec2 u = v2_truncate(vel[k], p.max_speed);
		steer_vec2 h = v2_len2(u) > 0.0 ? v2_norm(u) : v2(1.0, 0.0);
		v->param_set[i] = set;
		v->id[i] = w->next_id + (uint32_t)k;
		v->px[i] = pos[k].x;
		v->py[i] = pos[k].y;
		place_inside(&w->cfg, &v->px[i], &v->py[i]);
		v->behaviors[i] = behaviors;
		v->group[i] = p.group;
		v->vx[i] = u.x;
		v->vy[i] = u.y;
		v->hx[i] = h.x;
		v->hy[i] = h.y;
		v->fx[i] = 0.0;
		v->fy[i] = 0.0;
		v->extra[i] = STEER_NO_EXTRA;
		if (state)
			memset(extras_for_write(w, i), 0, sizeof(steer_vehicle_state));
	}
	v->count += n;
	w->next_id += (uint32_t)n;
	w->flock_stale = true;
	return STEER_OK;
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
	extras_release(w, i);
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
	if (prm->heading_smoothing > 0.0 && !extras_for_write(w, (size_t)i))
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
	if (!finite2(vel))
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
	if (!finite2(pos))
		return STEER_ERR_INVALID;
	w->v.px[i] = pos.x;
	w->v.py[i] = pos.y;
	place_inside(&w->cfg, &w->v.px[i], &w->v.py[i]);
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
	if (on && (bits & NEEDS_EXTRAS) && !extras_for_write(w, (size_t)i))
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
	if (!finite2(target) || (bit != STEER_SEEK && bit != STEER_FLEE && bit != STEER_ARRIVE))
		return STEER_ERR_INVALID;
	steer_vehicle_state *s = extras_for_write(w, (size_t)i);
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
	steer_vehicle_state *s = extras_for_write(w, (size_t)i);
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
	if (leader == id || !finite2(offset))
		return STEER_ERR_INVALID;
	steer_vehicle_state *s = extras_for_write(w, (size_t)i);
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
	steer_vehicle_state *s = extras_for_write(w, (size_t)i);
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
	steer_vehicle_state *s = extras_for_write(w, (size_t)i);
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
	if (!finite2(point))
		return STEER_ERR_INVALID;
	steer_vehicle_state *s = extras_for_write(w, (size_t)i);
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
	steer_vehicle_state *s = extras_for_write(w, (size_t)i);
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

static bool id_in_use(const steer_world *w, uint32_t id)
{
	uint32_t slot;
	return steer_idmap_get(&w->ids, id, &slot);
}

steer_status steer_vehicle_restore(steer_world *w, const steer_vehicle_record *r)
{
	char err[96];
	const steer_vehicle_state *s = &r->state;
	const steer_path *path = &s->path;
	if (r->id == 0 || r->id >= OBSTACLE_SLOT || id_in_use(w, r->id) ||
	    (r->behaviors & ~(uint32_t)STEER_ALL_BEHAVIORS) || !finite2(r->pos) ||
	    !finite2(r->vel) || !finite2(r->heading) || !finite2(r->force) ||
	    !finite2(s->seek_target) || !finite2(s->flee_target) || !finite2(s->arrive_target) ||
	    !finite2(s->group.offset) || !isfinite(s->wander_angle) || !finite2(s->go.goal) ||
	    !finite2(s->go.from) || !finite2(s->go.start) ||
	    !(s->go.radius >= 0.0 && s->go.radius <= STEER_PARAM_MAX) ||
	    !finite2(s->smooth.heading) ||
	    steer_params_check(&r->prm, err, sizeof err) != STEER_OK ||
	    r->prm.radius > steer_world_radius_max(&w->cfg) || path->count > STEER_MAX_WAYPOINTS ||
	    (path->count && path->index >= path->count) || (path->count && !path->points))
		return STEER_ERR_INVALID;
	for (uint32_t k = 0; k < path->count; k++)
		if (!finite2(path->points[k]))
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
	steer_status st = append_vehicle(w, &copy);
	if (st != STEER_OK)
		free(copy.state.path.points);
	return st;
}

steer_status steer_obstacle_restore(steer_world *w, const steer_obstacle *o)
{
	if (o->id == 0 || o->id >= OBSTACLE_SLOT || id_in_use(w, o->id))
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
	if (!finite2(pos) || !finite2(vel) || !(radius > 0.0 && radius <= STEER_PARAM_MAX) ||
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

int steer_world_threads(const steer_world *w)
{
	return w->threads;
}

steer_simd_level steer_world_set_simd(steer_world *w, steer_simd_level level)
{
	w->kernel = steer_kernel_for(level);
	w->grid.kernel = w->kernel;
	w->avoid_grid.kernel = w->kernel;
	return w->kernel->level;
}

steer_simd_level steer_world_simd(const steer_world *w)
{
	return w->kernel->level;
}

_Static_assert(STEER_MAX_THREADS == STEER_POOL_MAX_THREADS, "one ceiling on threads");

steer_status steer_world_set_threads(steer_world *w, int threads)
{
	if (threads < 1 || threads > STEER_MAX_THREADS)
		return STEER_ERR_INVALID;
	if (threads == w->threads)
		return STEER_OK;
	steer_pool *pool = NULL;
	if (threads > 1 && !(pool = steer_pool_create(threads)))
		return STEER_ERR_NOMEM;
	steer_pool_destroy(w->pool);
	w->pool = pool;
	w->grid.pool = pool;
	w->avoid_grid.pool = pool;
	w->threads = threads;
	return STEER_OK;
}

/* --- walls and polygons ---------------------------------------------------------- */

const steer_wall *steer_world_walls(const steer_world *w, size_t *count)
{
	*count = w->wall_count;
	return w->walls;
}

const steer_polygon *steer_world_polygons(const steer_world *w, size_t *count)
{
	*count = w->poly_count;
	return w->polys;
}

const steer_wall *steer_wall_get(const steer_world *w, uint32_t id)
{
	uint32_t slot;
	if (!steer_idmap_get(&w->ids, id, &slot) || (slot & KIND_MASK) != WALL_SLOT)
		return NULL;
	return &w->walls[slot & ~KIND_MASK];
}

const steer_polygon *steer_polygon_get(const steer_world *w, uint32_t id)
{
	uint32_t slot;
	if (!steer_idmap_get(&w->ids, id, &slot) || (slot & KIND_MASK) != POLYGON_SLOT)
		return NULL;
	return &w->polys[slot & ~KIND_MASK];
}

uint64_t steer_world_geometry_version(const steer_world *w)
{
	return steer_geom_version(w);
}

steer_status steer_world_free_point(const steer_world *w, steer_vec2 p, double radius,
                                    steer_vec2 *out)
{
	if (!finite2(p) || !(radius >= 0.0 && radius <= STEER_PARAM_MAX)) {
		*out = p;
		return STEER_ERR_INVALID;
	}
	return steer_geom_free_point(w, p, radius, out);
}

/* Adds a wall with the given id (next_id for a new one). */
static steer_status insert_wall(steer_world *w, uint32_t id, steer_vec2 a, steer_vec2 b)
{
	if (!finite2(a) || !finite2(b) || (a.x == b.x && a.y == b.y))
		return STEER_ERR_INVALID;
	if (id >= OBSTACLE_SLOT)
		return STEER_ERR_LIMIT;
	if (steer_reserve((void **)&w->walls, &w->wall_cap, w->wall_count + 1, sizeof *w->walls) !=
	    STEER_OK)
		return STEER_ERR_NOMEM;
	size_t i = w->wall_count;
	if (steer_idmap_put(&w->ids, id, (uint32_t)i | WALL_SLOT) != STEER_OK)
		return STEER_ERR_NOMEM;
	w->walls[i] = (steer_wall){id, a, b};
	w->wall_count++;
	if (steer_geom_rebuild(w) != STEER_OK) {
		w->wall_count--;
		steer_idmap_del(&w->ids, id);
		return STEER_ERR_NOMEM;
	}
	if (id >= w->next_id)
		w->next_id = id + 1;
	return STEER_OK;
}

steer_status steer_wall_add(steer_world *w, steer_vec2 a, steer_vec2 b, uint32_t *id_out)
{
	uint32_t id = w->next_id;
	steer_status st = insert_wall(w, id, a, b);
	if (st == STEER_OK && id_out)
		*id_out = id;
	return st;
}

steer_status steer_wall_restore(steer_world *w, const steer_wall *wall)
{
	if (wall->id == 0 || wall->id >= OBSTACLE_SLOT || id_in_use(w, wall->id))
		return STEER_ERR_INVALID;
	return insert_wall(w, wall->id, wall->a, wall->b);
}

/* Whether edges k and m (k < m) of the ring p[0..n) cross or touch where they should
 * not: neighbours may share only their common vertex. */
static bool edges_clash(const steer_vec2 *p, size_t n, size_t k, size_t m)
{
	steer_vec2 a = p[k], b = p[(k + 1) % n], c = p[m], d = p[(m + 1) % n];
	double t;
	bool next = m == k + 1, wrap = k == 0 && m == n - 1;
	if (!next && !wrap)
		return steer_seg_cross(a, b, c, d, &t);
	/* Neighbours: they clash when they fold back over each other (collinear and
	 * overlapping beyond the shared vertex). */
	steer_vec2 shared = next ? b : a, u = next ? a : b, v = next ? d : c;
	return v2_cross(v2_sub(u, shared), v2_sub(v, shared)) == 0.0 &&
	       v2_dot(v2_sub(u, shared), v2_sub(v, shared)) > 0.0;
}

/* in_bounds: whether a wrap world asks the points to lie within its bounds (a new
 * polygon; a restored one is kept as it was saved, whatever the bounds did since). */
static steer_status check_polygon(const steer_world *w, const steer_vec2 *pts, size_t n,
                                  bool in_bounds, char *err, size_t errlen)
{
	const steer_world_config *c = &w->cfg;
	if (n < 3 || n > STEER_MAX_POLYGON_POINTS) {
		snprintf(err, errlen, "a polygon needs 3 to %u points", STEER_MAX_POLYGON_POINTS);
		return STEER_ERR_INVALID;
	}
	for (size_t k = 0; k < n; k++) {
		steer_vec2 p = pts[k], q = pts[(k + 1) % n];
		if (!finite2(p)) {
			snprintf(err, errlen, "polygon point %zu is not a finite coordinate",
			         k + 1);
			return STEER_ERR_INVALID;
		}
		if (in_bounds && c->edges == STEER_EDGE_WRAP &&
		    !(p.x >= 0.0 && p.x <= c->width && p.y >= 0.0 && p.y <= c->height)) {
			snprintf(
			    err, errlen,
			    "polygon point %zu is outside the world: in a wrap world a polygon "
			    "lies within 0..%g x 0..%g",
			    k + 1, c->width, c->height);
			return STEER_ERR_INVALID;
		}
		if (p.x == q.x && p.y == q.y) {
			snprintf(err, errlen, "polygon points %zu and %zu are the same", k + 1,
			         (k + 1) % n + 1);
			return STEER_ERR_INVALID;
		}
	}
	bool flat = true;
	for (size_t k = 2; k < n && flat; k++)
		flat = v2_cross(v2_sub(pts[1], pts[0]), v2_sub(pts[k], pts[0])) == 0.0;
	if (flat) {
		snprintf(err, errlen, "the polygon has no area: its points are on one line");
		return STEER_ERR_INVALID;
	}
	for (size_t k = 0; k < n; k++)
		for (size_t m = k + 1; m < n; m++)
			if (edges_clash(pts, n, k, m)) {
				snprintf(err, errlen, "polygon edges %zu and %zu cross", k + 1,
				         m + 1);
				return STEER_ERR_INVALID;
			}
	double area = 0.0;
	for (size_t k = 0; k < n; k++)
		area += v2_cross(pts[k], pts[(k + 1) % n]);
	if (area == 0.0) {
		snprintf(err, errlen, "the polygon has no area");
		return STEER_ERR_INVALID;
	}
	return STEER_OK;
}

static steer_status insert_polygon(steer_world *w, uint32_t id, const steer_vec2 *pts, size_t n,
                                   bool inside, bool in_bounds, char *err, size_t errlen)
{
	/* A ring closed by repeating its first point is the same ring. */
	if (n > 3 && pts[0].x == pts[n - 1].x && pts[0].y == pts[n - 1].y)
		n--;
	steer_status st = check_polygon(w, pts, n, in_bounds, err, errlen);
	if (st != STEER_OK)
		return st;
	if (id >= OBSTACLE_SLOT) {
		snprintf(err, errlen, "out of ids");
		return STEER_ERR_LIMIT;
	}
	steer_vec2 *copy = malloc(n * sizeof *copy);
	if (!copy || steer_reserve((void **)&w->polys, &w->poly_cap, w->poly_count + 1,
	                           sizeof *w->polys) != STEER_OK) {
		free(copy);
		snprintf(err, errlen, "out of memory");
		return STEER_ERR_NOMEM;
	}
	memcpy(copy, pts, n * sizeof *copy);
	size_t i = w->poly_count;
	if (steer_idmap_put(&w->ids, id, (uint32_t)i | POLYGON_SLOT) != STEER_OK) {
		free(copy);
		snprintf(err, errlen, "out of memory");
		return STEER_ERR_NOMEM;
	}
	w->polys[i] = (steer_polygon){id, inside, (uint32_t)n, copy};
	w->poly_count++;
	if (steer_geom_rebuild(w) != STEER_OK) {
		w->poly_count--;
		steer_idmap_del(&w->ids, id);
		free(copy);
		snprintf(err, errlen, "out of memory");
		return STEER_ERR_NOMEM;
	}
	if (id >= w->next_id)
		w->next_id = id + 1;
	return STEER_OK;
}

steer_status steer_polygon_add(steer_world *w, const steer_vec2 *pts, size_t n, bool inside,
                               uint32_t *id_out, char *err, size_t errlen)
{
	uint32_t id = w->next_id;
	steer_status st = insert_polygon(w, id, pts, n, inside, true, err, errlen);
	if (st == STEER_OK && id_out)
		*id_out = id;
	return st;
}

steer_status steer_polygon_restore(steer_world *w, const steer_polygon *p, char *err, size_t errlen)
{
	if (p->id == 0 || p->id >= OBSTACLE_SLOT || id_in_use(w, p->id)) {
		snprintf(err, errlen, "polygon id %u is invalid or in use", p->id);
		return STEER_ERR_INVALID;
	}
	return insert_polygon(w, p->id, p->points, p->count, p->inside, false, err, errlen);
}
