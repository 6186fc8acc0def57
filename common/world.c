#include "world.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "behaviors.h"
#include "flock.h"
#include "grid.h"
#include "idmap.h"
#include "motion.h"
#include "pair.h"
#include "palette.h"

/* Obstacle slots in the id map carry this bit; vehicle slots do not. */
#define OBSTACLE_SLOT 0x80000000u
/* The flocking grid's columns are half a sight wide: the block of candidates a lane
 * group shares then hugs its members' discs more closely. On steer-bench's flock a
 * four-lane group tested 8.5 candidates per member, against 9.7 with columns a
 * sight wide; an eight-lane group (AVX-512) tests 5.7 (see run_forces). */
#define FLOCK_REACH_X 2
#define STEER_TAU     6.283185307179586

struct steer_world {
	steer_world_config cfg;
	uint64_t tick;
	uint32_t next_id;
	steer_rng rng;
	steer_vehicles v;
	steer_obstacle *obs;
	size_t obs_count, obs_cap;
	steer_idmap ids;
	steer_palette params;
	/* Targets, chases, wander angle and path, for the vehicles that use them: a
	 * plain flocking boid carries none of it. */
	struct {
		steer_vehicle_state *slots;
		size_t count, cap;
		uint32_t *free; /* freed slots, a stack */
		size_t nfree, free_cap;
	} extras;
	steer_grid grid;
	/* Scratch for the storage permutation of a re-sort (old slot -> new slot). */
	uint32_t *perm;
	size_t perm_cap;
	/* The re-sort's spare for the vehicles' uint32 arrays (the force arrays are the
	 * spares for their doubles): v.cap elements, grown with them. */
	uint32_t *spare32;
	/* What the flockers are, kept until a vehicle, its behaviours or its parameters
	 * change (flock_stale): */
	double flock_sight;   /* largest sight_distance among flocking vehicles; -1: none */
	bool flock_one_group; /* every flocker has the same group */
	/* The parameter set every flocker has when all are plain (flock only, forces
	 * summed, one set): lane groups need not check their members. Else
	 * STEER_PALETTE_NONE. */
	uint32_t flock_plain_set;
	bool flock_stale;
	int threads;
	const steer_kernel *kernel; /* the lane forms' kernel form (steer_world_set_simd) */
	bool timing;                /* steer_world_time_phases */
	steer_phase_times phases;
};

/* One vehicle slot's worth of every array, for moving slots around. */
typedef struct vehicle_slot {
	uint32_t id, behaviors, group, param_set, extra;
	double px, py, vx, vy, hx, hy, fx, fy;
} vehicle_slot;

/* --- names ------------------------------------------------------------------- */

static const char *const behavior_names[STEER_BEHAVIOR_COUNT] = {
    "seek", "flee", "arrive", "pursue", "evade", "wander", "avoid", "path", "flock",
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
		if (strcmp(name, behavior_names[k]) == 0)
			return 1u << k;
	return 0;
}

static const char *const edge_names[] = {"wrap", "bounce", "none"};

const char *steer_edges_name(steer_edges e)
{
	return (unsigned)e < 3 ? edge_names[e] : "?";
}

int steer_edges_parse(const char *name, steer_edges *out)
{
	for (int k = 0; k < 3; k++)
		if (strcmp(name, edge_names[k]) == 0) {
			*out = (steer_edges)k;
			return 0;
		}
	return -1;
}

const char *steer_status_str(steer_status s)
{
	switch (s) {
	case STEER_OK:
		return "ok";
	case STEER_ERR_NOMEM:
		return "out of memory";
	case STEER_ERR_NOENT:
		return "no such id";
	case STEER_ERR_INVALID:
		return "invalid argument";
	case STEER_ERR_LIMIT:
		return "limit reached";
	}
	return "unknown error";
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
	};
	return c;
}

/* Large enough for any sensible world, small enough that width * height and grid
 * arithmetic stay far from overflow and precision loss. */
#define STEER_MAX_EXTENT    1e9
#define STEER_MAX_TICK_RATE 10000.0

const char *steer_world_config_check(const steer_world_config *c, char *err, size_t errlen)
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
		return NULL;
	return err;
}

/* --- lifetime ----------------------------------------------------------------- */

steer_world *steer_world_create(const steer_world_config *cfg)
{
	char err[96];
	if (steer_world_config_check(cfg, err, sizeof err))
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
	w->kernel = steer_kernel_for(STEER_SIMD_AVX512);
	w->grid.kernel = w->kernel;
	w->grid.reach_x = FLOCK_REACH_X;
	steer_rng_seed(&w->rng, cfg->seed, 0x5eed);
	return w;
}

static void free_paths(steer_world *w)
{
	for (size_t i = 0; i < w->v.count; i++)
		if (w->v.extra[i] != STEER_NO_EXTRA)
			free(w->extras.slots[w->v.extra[i]].path.points);
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
	steer_idmap_free(&w->ids);
	steer_palette_free(&w->params);
	steer_grid_free(&w->grid);
	free(w->perm);
	free(w->spare32);

	free(w);
}

void steer_world_reset(steer_world *w)
{
	free_paths(w);
	w->v.count = 0;
	w->obs_count = 0;
	steer_idmap_clear(&w->ids);
	steer_palette_clear(&w->params);
	w->extras.count = w->extras.nfree = 0;
	w->next_id = 1;
	w->tick = 0;
	w->flock_stale = true;
	steer_rng_seed(&w->rng, w->cfg.seed, 0x5eed);
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
	if (steer_world_config_check(&c, err, sizeof err))
		return STEER_ERR_INVALID;
	w->cfg = c;
	/* Whoever was outside the new bounds is brought in by the new rule now, so that
	 * a wrap world never holds a position outside [0,W) x [0,H). */
	for (size_t i = 0; i < w->v.count; i++)
		place_inside(&w->cfg, &w->v.px[i], &w->v.py[i]);
	return STEER_OK;
}

steer_status steer_world_set_tick_rate(steer_world *w, double hz)
{
	steer_world_config c = w->cfg;
	char err[96];
	c.tick_rate = hz;
	if (steer_world_config_check(&c, err, sizeof err))
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
	if (!steer_idmap_get(&w->ids, id, &slot) || (slot & OBSTACLE_SLOT))
		return -1;
	return (long)slot;
}

static int grow_array(void **p, size_t n, size_t sz)
{
	void *q = realloc(*p, n * sz);
	if (!q)
		return -1;
	*p = q;
	return 0;
}

/* What a vehicle without extras reads as: no targets, no path. */
static const steer_vehicle_state no_extras;

const steer_vehicle_state *steer_vehicle_state_at(const steer_world *w, size_t i)
{
	uint32_t e = w->v.extra[i];
	return e == STEER_NO_EXTRA ? &no_extras : &w->extras.slots[e];
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
		return &w->extras.slots[w->v.extra[i]];
	uint32_t e;
	if (w->extras.nfree) {
		e = w->extras.free[--w->extras.nfree];
	} else {
		if (w->extras.count == w->extras.cap) {
			size_t cap = w->extras.cap ? w->extras.cap + w->extras.cap / 2 : 16;
			if (grow_array((void **)&w->extras.slots, cap, sizeof *w->extras.slots) !=
			    0)
				return NULL;
			w->extras.cap = cap;
		}
		if (w->extras.count >= STEER_NO_EXTRA)
			return NULL;
		e = (uint32_t)w->extras.count++;
	}
	steer_vehicle_state *s = &w->extras.slots[e];
	memset(s, 0, sizeof *s);
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
	free(w->extras.slots[e].path.points);
	w->v.extra[i] = STEER_NO_EXTRA;
	if (w->extras.nfree == w->extras.free_cap) {
		size_t cap = w->extras.free_cap ? w->extras.free_cap * 2 : 16;
		if (grow_array((void **)&w->extras.free, cap, sizeof *w->extras.free) != 0)
			return; /* the slot is lost to reuse, not to correctness */
		w->extras.free_cap = cap;
	}
	w->extras.free[w->extras.nfree++] = e;
}

const steer_params *steer_vehicle_params_at(const steer_world *w, size_t i)
{
	return steer_palette_get(&w->params, w->v.param_set[i]);
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

steer_flock_health steer_world_flock_health(const steer_world *w)
{
	const steer_vehicles *v = &w->v;
	steer_flock_health h = {0, 0.0, 0.0};
	double speed = 0.0, hx = 0.0, hy = 0.0;
	for (size_t i = 0; i < v->count; i++) {
		if (!(v->behaviors[i] & STEER_FLOCK))
			continue;
		h.flockers++;
		speed += sqrt(v->vx[i] * v->vx[i] + v->vy[i] * v->vy[i]);
		hx += v->hx[i];
		hy += v->hy[i];
	}
	if (h.flockers) {
		double n = (double)h.flockers;
		h.mean_speed = speed / n;
		/* Rounding may put the length of a mean of unit vectors a hair above 1. */
		h.polarization = fmin(1.0, sqrt(hx * hx + hy * hy) / n);
	}
	return h;
}

const steer_obstacle *steer_obstacle_get(const steer_world *w, uint32_t id)
{
	uint32_t slot;
	if (!steer_idmap_get(&w->ids, id, &slot) || !(slot & OBSTACLE_SLOT))
		return NULL;
	return &w->obs[slot & ~OBSTACLE_SLOT];
}

/* --- vehicles ----------------------------------------------------------------- */

static int grow_vehicles(steer_world *w)
{
	steer_vehicles *v = &w->v;
	size_t n = v->cap ? v->cap * 2 : 64;
	/* Each array is grown in turn; a failure part-way leaves the larger arrays in
	 * place (harmless) and the old capacity recorded, so the world stays valid. */
	if (grow_array((void **)&v->id, n, sizeof *v->id) ||
	    grow_array((void **)&v->behaviors, n, sizeof *v->behaviors) ||
	    grow_array((void **)&v->group, n, sizeof *v->group) ||
	    grow_array((void **)&v->param_set, n, sizeof *v->param_set) ||
	    grow_array((void **)&v->px, n, sizeof *v->px) ||
	    grow_array((void **)&v->py, n, sizeof *v->py) ||
	    grow_array((void **)&v->vx, n, sizeof *v->vx) ||
	    grow_array((void **)&v->vy, n, sizeof *v->vy) ||
	    grow_array((void **)&v->hx, n, sizeof *v->hx) ||
	    grow_array((void **)&v->hy, n, sizeof *v->hy) ||
	    grow_array((void **)&v->fx, n, sizeof *v->fx) ||
	    grow_array((void **)&v->fy, n, sizeof *v->fy) ||
	    grow_array((void **)&v->extra, n, sizeof *v->extra) ||
	    grow_array((void **)&w->spare32, n, sizeof *w->spare32))
		return -1;
	v->cap = n;
	return 0;
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

static steer_vec2 pos_of(const steer_vehicles *v, size_t i)
{
	return v2(v->px[i], v->py[i]);
}

static steer_vec2 vel_of(const steer_vehicles *v, size_t i)
{
	return v2(v->vx[i], v->vy[i]);
}

/* Behaviours that keep their state in a vehicle's extras. */
#define NEEDS_EXTRAS                                                                               \
	(STEER_SEEK | STEER_FLEE | STEER_ARRIVE | STEER_PURSUE | STEER_EVADE | STEER_WANDER |      \
	 STEER_PATH)

static bool needs_extras(const steer_vehicle_record *r)
{
	const steer_vehicle_state *s = &r->state;
	return (r->behaviors & NEEDS_EXTRAS) || s->path.count || s->path.loop || s->pursue_id ||
	       s->evade_id || s->wander_angle != 0.0 || s->seek_target.x != 0.0 ||
	       s->seek_target.y != 0.0 || s->flee_target.x != 0.0 || s->flee_target.y != 0.0 ||
	       s->arrive_target.x != 0.0 || s->arrive_target.y != 0.0;
}

/* Appends a validated record as slot count, taking ownership of its path points. The
 * one place that fills a vehicle slot, for new vehicles and restored ones alike. */
static steer_status append_vehicle(steer_world *w, const steer_vehicle_record *r)
{
	steer_vehicles *v = &w->v;
	if (w->cfg.max_vehicles && v->count >= w->cfg.max_vehicles)
		return STEER_ERR_LIMIT;
	if (v->count == v->cap && grow_vehicles(w) != 0)
		return STEER_ERR_NOMEM;
	size_t i = v->count;
	uint32_t set = steer_palette_acquire(&w->params, &r->prm);
	if (set == STEER_PALETTE_NONE)
		return STEER_ERR_NOMEM;
	if (steer_idmap_put(&w->ids, r->id, (uint32_t)i) != 0) {
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
	if (!finite2(pos) || !finite2(vel) || steer_params_check(&r.prm, err, sizeof err))
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

static void slot_load(const steer_vehicles *v, size_t i, vehicle_slot *s);
static void slot_store(steer_vehicles *v, size_t i, const vehicle_slot *s);

/* Every change of an existing vehicle's behaviours comes through here: what the
 * flockers are (survey_flock) is kept between ticks until one does. */
static void set_behaviors(steer_world *w, size_t i, uint32_t bits)
{
	w->v.behaviors[i] = bits;
	w->flock_stale = true;
}

static void remove_vehicle(steer_world *w, size_t i)
{
	steer_vehicles *v = &w->v;
	w->flock_stale = true;
	uint32_t gone = v->id[i];
	extras_release(w, i);
	steer_palette_release(&w->params, v->param_set[i]);
	steer_idmap_del(&w->ids, gone);
	size_t last = --v->count;
	if (i != last) {
		vehicle_slot moved;
		slot_load(v, last, &moved);
		slot_store(v, i, &moved);
		/* Overwriting an existing key never allocates. */
		steer_idmap_put(&w->ids, v->id[i], (uint32_t)i);
	}
	for (size_t k = 0; k < v->count; k++) {
		if (v->extra[k] == STEER_NO_EXTRA)
			continue;
		steer_vehicle_state *s = &w->extras.slots[v->extra[k]];
		if (s->pursue_id == gone) {
			s->pursue_id = 0;
			set_behaviors(w, k, v->behaviors[k] & ~(uint32_t)STEER_PURSUE);
		}
		if (s->evade_id == gone) {
			s->evade_id = 0;
			set_behaviors(w, k, v->behaviors[k] & ~(uint32_t)STEER_EVADE);
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
}

steer_status steer_remove(steer_world *w, uint32_t id)
{
	uint32_t slot;
	if (!steer_idmap_get(&w->ids, id, &slot))
		return STEER_ERR_NOENT;
	if (slot & OBSTACLE_SLOT)
		remove_obstacle(w, slot & ~OBSTACLE_SLOT);
	else
		remove_vehicle(w, slot);
	return STEER_OK;
}

steer_status steer_vehicle_set_params(steer_world *w, uint32_t id, const steer_params *prm)
{
	long i = steer_vehicle_index(w, id);
	char err[96];
	if (i < 0)
		return STEER_ERR_NOENT;
	if (steer_params_check(prm, err, sizeof err))
		return STEER_ERR_INVALID;
	uint32_t set = steer_palette_acquire(&w->params, prm);
	if (set == STEER_PALETTE_NONE)
		return STEER_ERR_NOMEM;
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
	/* pursue/evade need a live target; turning them on without one is meaningless. */
	if (on &&
	    (((bits & STEER_PURSUE) && !s->pursue_id) || ((bits & STEER_EVADE) && !s->evade_id)))
		return STEER_ERR_INVALID;
	if (on && (bits & NEEDS_EXTRAS) && !extras_for_write(w, (size_t)i))
		return STEER_ERR_NOMEM;
	set_behaviors(w, (size_t)i, on ? w->v.behaviors[i] | bits : w->v.behaviors[i] & ~bits);
	return STEER_OK;
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
	if (bit == STEER_PURSUE)
		s->pursue_id = other;
	else
		s->evade_id = other;
	set_behaviors(w, (size_t)i, w->v.behaviors[i] | bit);
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
	if (path->count == path->cap) {
		uint32_t ncap = path->cap ? path->cap * 2 : 8;
		steer_vec2 *pts = realloc(path->points, ncap * sizeof *pts);
		if (!pts)
			return STEER_ERR_NOMEM;
		path->points = pts;
		path->cap = ncap;
	}
	path->points[path->count++] = point;
	set_behaviors(w, (size_t)i, w->v.behaviors[i] | STEER_PATH);
	return STEER_OK;
}

steer_status steer_vehicle_path_clear(steer_world *w, uint32_t id)
{
	long i = steer_vehicle_index(w, id);
	if (i < 0)
		return STEER_ERR_NOENT;
	if (w->v.extra[i] != STEER_NO_EXTRA) {
		steer_path *path = &w->extras.slots[w->v.extra[i]].path;
		path->count = 0;
		path->index = 0;
	}
	set_behaviors(w, (size_t)i, w->v.behaviors[i] & ~(uint32_t)STEER_PATH);
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
	    !isfinite(s->wander_angle) || steer_params_check(&r->prm, err, sizeof err) ||
	    path->count > STEER_MAX_WAYPOINTS || (path->count && path->index >= path->count) ||
	    (path->count && !path->points))
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
	if (!finite2(pos) || !finite2(vel) || !(radius > 0.0 && radius <= STEER_PARAM_MAX))
		return STEER_ERR_INVALID;
	if (w->obs_count == w->obs_cap) {
		size_t ncap = w->obs_cap ? w->obs_cap * 2 : 16;
		if (grow_array((void **)&w->obs, ncap, sizeof *w->obs) != 0)
			return STEER_ERR_NOMEM;
		w->obs_cap = ncap;
	}
	if (w->next_id >= OBSTACLE_SLOT)
		return STEER_ERR_LIMIT;
	uint32_t id = w->next_id;
	size_t i = w->obs_count;
	if (steer_idmap_put(&w->ids, id, (uint32_t)i | OBSTACLE_SLOT) != 0)
		return STEER_ERR_NOMEM;
	w->next_id++;
	steer_obstacle o = {id, pos.x, pos.y, vel.x, vel.y, radius};
	w->obs[i] = o;
	w->obs_count++;
	if (id_out)
		*id_out = id;
	return STEER_OK;
}

/* --- stepping ----------------------------------------------------------------- */

static steer_agent agent_at(const steer_world *w, size_t i)
{
	const steer_vehicles *v = &w->v;
	steer_agent a = {vel_of(v, i), v2(v->hx[i], v->hy[i]),
	                 steer_palette_get(&w->params, v->param_set[i])};
	return a;
}

static steer_vec2 path_part(const steer_world *w, size_t i, steer_vehicle_state *s,
                            const steer_agent *a)
{
	steer_path *path = &s->path;
	if (path->count == 0)
		return v2(0, 0);
	steer_vec2 p = pos_of(&w->v, i);
	steer_vec2 d = steer_world_delta(w, p, path->points[path->index]);
	if (v2_len2(d) < a->prm->path_threshold * a->prm->path_threshold) {
		if (path->index + 1 < path->count)
			path->index++;
		else if (path->loop)
			path->index = 0;
		d = steer_world_delta(w, p, path->points[path->index]);
	}
	bool last = path->index + 1 == path->count;
	return last && !path->loop ? steer_arrive(a, d) : steer_seek(a, d);
}

/* The force on vehicle i from the tick's starting state. Writes only vehicle i's own
 * bookkeeping (wander angle, path index), which no other vehicle reads. flock: its
 * neighbourhood sums when already scanned, else NULL. */
static steer_vec2 steering_force(steer_world *w, size_t i, const steer_flock_sums *flock)
{
	steer_vehicles *v = &w->v;
	/* Every behaviour below that reads s has made the vehicle's extras. */
	steer_vehicle_state *s =
	    v->extra[i] != STEER_NO_EXTRA ? &w->extras.slots[v->extra[i]] : NULL;
	uint32_t b = v->behaviors[i];
	steer_agent a = agent_at(w, i);
	const steer_params *prm = a.prm;
	steer_vec2 p = pos_of(v, i);
	steer_vec2 parts[STEER_PART_COUNT];
	uint32_t mask = 0;

	if (b & STEER_SEEK) {
		parts[STEER_PART_SEEK] = steer_seek(&a, steer_world_delta(w, p, s->seek_target));
		mask |= 1u << STEER_PART_SEEK;
	}
	if (b & STEER_FLEE) {
		parts[STEER_PART_FLEE] = steer_flee(&a, steer_world_delta(w, p, s->flee_target));
		mask |= 1u << STEER_PART_FLEE;
	}
	if (b & STEER_ARRIVE) {
		parts[STEER_PART_ARRIVE] =
		    steer_arrive(&a, steer_world_delta(w, p, s->arrive_target));
		mask |= 1u << STEER_PART_ARRIVE;
	}
	if (b & STEER_PURSUE) {
		long j = steer_vehicle_index(w, s->pursue_id);
		if (j >= 0) {
			steer_vec2 d = steer_world_delta(w, p, pos_of(v, (size_t)j));
			parts[STEER_PART_PURSUE] = steer_pursue(&a, d, vel_of(v, (size_t)j));
			mask |= 1u << STEER_PART_PURSUE;
		}
	}
	if (b & STEER_EVADE) {
		long j = steer_vehicle_index(w, s->evade_id);
		if (j >= 0) {
			steer_vec2 d = steer_world_delta(w, p, pos_of(v, (size_t)j));
			parts[STEER_PART_EVADE] = steer_evade(&a, d, vel_of(v, (size_t)j));
			mask |= 1u << STEER_PART_EVADE;
		}
	}
	if (b & STEER_WANDER) {
		parts[STEER_PART_WANDER] = steer_wander(&a, s->wander_angle);
		mask |= 1u << STEER_PART_WANDER;
		double u = steer_hash_unit(w->cfg.seed, v->id[i], w->tick);
		s->wander_angle =
		    remainder(s->wander_angle + (u - 0.5) * prm->wander_range, STEER_TAU);
	}
	if (b & STEER_AVOID) {
		steer_vec2 sum = v2(0, 0);
		for (size_t k = 0; k < w->obs_count; k++) {
			const steer_obstacle *o = &w->obs[k];
			steer_vec2 d = steer_world_delta(w, p, v2(o->x, o->y));
			sum = v2_add(sum, steer_avoid_one(&a, d, o->r));
		}
		parts[STEER_PART_AVOID] = sum;
		mask |= 1u << STEER_PART_AVOID;
	}
	if (b & STEER_PATH) {
		parts[STEER_PART_PATH] = path_part(w, i, s, &a);
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
	steer_cruise_part(&a, parts, &mask);
	return steer_combine_parts(parts, mask, prm, steer_world_dt(w));
}

static void move_obstacles(steer_world *w, double dt)
{
	const steer_world_config *c = &w->cfg;
	for (size_t k = 0; k < w->obs_count; k++) {
		steer_obstacle *o = &w->obs[k];
		o->x += o->vx * dt;
		o->y += o->vy * dt;
		if (c->edges == STEER_EDGE_NONE) {
			/* The bound the loader enforces, as for vehicles (motion.c). */
			o->x = fmin(fmax(o->x, -STEER_MAX_COORD), STEER_MAX_COORD);
			o->y = fmin(fmax(o->y, -STEER_MAX_COORD), STEER_MAX_COORD);
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
	}
}

/* A boid whose force is its flock parts summed: the one the lane forms take. */
static bool plain_flocker(const steer_vehicles *v, size_t i, const steer_params *p)
{
	return v->behaviors[i] == STEER_FLOCK && p->combine == STEER_COMBINE_SUM;
}

/* The flockers' largest sight, whether they share one group, and whether all are
 * plain with one parameter set. */
static void survey_flock(steer_world *w)
{
	const steer_vehicles *v = &w->v;
	double m = -1.0;
	uint32_t group = 0, differ = 0;
	uint32_t set = STEER_PALETTE_NONE;
	bool first = true, plain = true;
	for (size_t i = 0; i < v->count; i++) {
		if (!(v->behaviors[i] & STEER_FLOCK))
			continue;
		const steer_params *p = steer_palette_get(&w->params, v->param_set[i]);
		if (p->sight_distance > m)
			m = p->sight_distance;
		if (first) {
			group = v->group[i];
			set = v->param_set[i];
		}
		first = false;
		differ |= v->group[i] ^ group;
		plain = plain && v->param_set[i] == set && plain_flocker(v, i, p);
	}
	w->flock_sight = m;
	w->flock_one_group = differ == 0;
	w->flock_plain_set = plain ? set : STEER_PALETTE_NONE;
}

/* Below this many vehicles a second thread costs more than it saves. */
#define PARALLEL_MIN_VEHICLES 4096

/* A range of a phase's work (vehicles, or grid cells) for one thread. Each piece of
 * every phase depends only on the phase's input and writes only its own place, so
 * any split between threads gives the same bits. */
typedef struct range_job {
	steer_world *w;
	size_t from, to;
	size_t moved; /* out: for sort_cells, how far members moved */
} range_job;

/* fn over [0, n): split at mid between this thread and a second when two threads
 * are allowed and the work is big enough to pay for it, else all on this one.
 * Returns the jobs' moved, summed. */
static size_t split_at(steer_world *w, void *(*fn)(void *), size_t mid, size_t n, bool big)
{
	range_job all = {w, 0, n, 0};
	if (w->threads < 2 || !big) {
		fn(&all);
		return all.moved;
	}
	range_job half[2] = {{w, 0, mid, 0}, {w, mid, n, 0}};
	if (!steer_run_pair(fn, &half[0], &half[1])) {
		fn(&all); /* no thread to be had: the same result, on one core */
		return all.moved;
	}
	return half[0].moved + half[1].moved;
}

/* Within each cell [from, to), members in id order. One insertion sort over the
 * cells' members that never moves a member past the start of its cell: members
 * come in storage order, the grid order of the last re-sort but for the vehicles
 * that have changed cell since, so most cells are in order already, and a pass over
 * the members costs less than a loop of a handful of steps per cell. */
static void *sort_cells(void *arg)
{
	range_job *j = arg;
	steer_grid *g = &j->w->grid;
	const uint32_t *id = j->w->v.id, *cell = g->cell;
	uint32_t *it = g->items;
	uint32_t a = g->start[j->from], end = g->start[j->to];
	if (a >= end)
		return NULL;
	/* The id and cell of the member before a: the last one's, or after an insertion
	 * the same as before, as the member moved up to a is the one that was before. */
	uint32_t prev_id = id[it[a]], prev_cell = cell[it[a]];
	for (a++; a < end; a++) {
		uint32_t x = it[a], x_id = id[x], x_cell = cell[x];
		/* One branch, not two: at a cell's start the id order is a coin toss the
		 * branch predictor would pay for. later: x's id is below its predecessor's. */
		uint64_t later = (uint64_t)((int64_t)x_id - (int64_t)prev_id) >> 63;
		if (!(later & (prev_cell == x_cell))) {
			prev_id = x_id;
			prev_cell = x_cell;
			continue;
		}
		uint32_t first = g->start[x_cell], b = a;
		while (b > first && id[it[b - 1]] > x_id) {
			it[b] = it[b - 1];
			b--;
		}
		it[b] = x;
		j->moved += a - b;
	}
	return NULL;
}

/* Within each cell, members in id order: then the order neighbours are summed in,
 * and so every bit of the result, depends on where vehicles are and who they are,
 * not on the history of spawns and removals that shaped the arrays. Returns how
 * many places members moved, the sort's cost. */
static size_t sort_cells_by_id(steer_world *w)
{
	const steer_grid *g = &w->grid;
	size_t cells = (size_t)g->nx * (size_t)g->ny;
	/* Split where half the members have gone by. */
	size_t lo = 0, hi = cells;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (g->start[mid] < g->count / 2)
			lo = mid + 1;
		else
			hi = mid;
	}
	return split_at(w, sort_cells, lo, cells, g->count >= PARALLEL_MIN_VEHICLES);
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

/* to[k] = (*arr)[src[k]] for every slot, then to becomes the array and the old
 * array the spare: one streaming pass, no copy back. Both hold cap elements. */
static void gather_f64(double **arr, double **spare, const uint32_t *src, size_t n)
{
	double *to = *spare;
	const double *from = *arr;
	for (size_t k = 0; k < n; k++)
		to[k] = from[src[k]];
	*spare = *arr;
	*arr = to;
}

static void gather_u32(uint32_t **arr, uint32_t **spare, const uint32_t *src, size_t n)
{
	uint32_t *to = *spare;
	const uint32_t *from = *arr;
	for (size_t k = 0; k < n; k++)
		to[k] = from[src[k]];
	*spare = *arr;
	*arr = to;
}

/* Part of a re-sort: gathering some arrays through spares of their type (arrays
 * whose contents are dead), and perhaps renumbering the id map. */
typedef struct gather_job {
	double **f64[4];
	int nf64;
	double **spare64;
	uint32_t **u32[5];
	int nu32;
	uint32_t **spare32;
	steer_idmap *ids; /* renumbered here when set */
	const uint32_t *src, *dest;
	size_t n;
} gather_job;

static void *run_gather(void *arg)
{
	gather_job *j = arg;
	if (j->ids)
		steer_idmap_renumber(j->ids, j->dest, (uint32_t)j->n);
	for (int a = 0; a < j->nf64; a++)
		gather_f64(j->f64[a], j->spare64, j->src, j->n);
	for (int a = 0; a < j->nu32; a++)
		gather_u32(j->u32[a], j->spare32, j->src, j->n);
	return NULL;
}

/* Re-sorts the arrays into the tick's order (src: new slot k takes old slot src[k]),
 * after which the order is the identity. A vehicle out of place shifts every slot
 * between its old and new place, so each array is gathered whole into a spare (and
 * swapped with it), and the id map is renumbered in one pass over its table rather
 * than one lookup per moved vehicle. The doubles' spares are
 * the force arrays (the step rewrites every force after this, so what they hold is
 * dead); the 32-bit arrays share spare32. */
static int resort(steer_world *w, uint32_t *src)
{
	steer_vehicles *v = &w->v;
	size_t n = v->count;
	if (n > w->perm_cap) {
		if (grow_array((void **)&w->perm, n, sizeof *w->perm) != 0)
			return -1;
		w->perm_cap = n;
	}
	uint32_t *dest = w->perm;
	for (size_t k = 0; k < n; k++)
		dest[src[k]] = (uint32_t)k;
	/* Two independent parts of the work, of about the same traffic; with two
	 * threads, one each. */
	gather_job jobs[2] = {
	    {{&v->px, &v->py, &v->vx, &v->vy}, 4, &v->fx, {NULL}, 0, NULL, NULL, src, dest, n},
	    {{&v->hx, &v->hy},
	     2,
	     &v->fy,
	     {&v->id, &v->behaviors, &v->group, &v->param_set, &v->extra},
	     5,
	     &w->spare32,
	     &w->ids,
	     src,
	     dest,
	     n},
	};
	if (!(w->threads >= 2 && n >= PARALLEL_MIN_VEHICLES &&
	      steer_run_pair(run_gather, &jobs[0], &jobs[1]))) {
		run_gather(&jobs[0]);
		run_gather(&jobs[1]);
	}
	for (size_t k = 0; k < n; k++)
		src[k] = (uint32_t)k;
	return 0;
}

/* How far storage may drift from the tick's order: a re-sort once more than one
 * vehicle in RESORT_SHARE is stored more than RESORT_ROWS grid rows' worth of slots
 * from its place in the order. Within that the scans' reads stay among the rows
 * they are walking, which the cache holds; further out each is a miss. Also once
 * the sort within cells moved members RESORT_MOVES places each on average: in
 * coarse grids, whose rows hold most of the world, storage never drifts "far", but
 * a cell's members in storage order can be far from id order, and the insertion
 * sort's cost grows with the square of that every tick until a re-sort. */
#define RESORT_ROWS  2
#define RESORT_SHARE 16
#define RESORT_MOVES 4

/* The tick's order: the grid's members (grid order), then every other vehicle in
 * slot order. The scans walk neighbours through it, and the sums' order follows it,
 * so storage need not match it. A re-sort moves every array whole, a quarter of a
 * big world's tick, and is only worth its cost once the scans' reads scatter: on
 * steer-bench's flock most vehicles change cell every few ticks, but hardly any
 * move more than a row in a hundred ticks. */
static int arrange(steer_world *w, size_t moved)
{
	steer_vehicles *v = &w->v;
	steer_grid *g = &w->grid;
	size_t n = v->count, nf = g->count;
	/* The grid reserved room for every vehicle. */
	uint32_t *order = g->items;
	size_t k = nf;
	/* Stops once every non-flocker is placed: at once when every vehicle flocks. */
	for (size_t i = 0; i < n && k < n; i++)
		if (!(v->behaviors[i] & STEER_FLOCK))
			order[k++] = (uint32_t)i;
	/* Slots fit 32 bits. One unsigned compare per slot: a distance d in
	 * [-reach, reach] maps to [0, 2 reach], any other wraps above it. */
	uint32_t reach = RESORT_ROWS * (uint32_t)(nf / (size_t)g->ny + 1);
	size_t far = 0;
	for (k = 0; k < n; k++)
		far += order[k] - (uint32_t)k + reach > 2 * reach;
	if (far * RESORT_SHARE > n || moved > RESORT_MOVES * n)
		return resort(w, order);
	return 0;
}

/* Indexes the flocking vehicles and sets the tick's order. */
static int index_flock(steer_world *w)
{
	steer_vehicles *v = &w->v;
	if (w->flock_stale) {
		survey_flock(w);
		w->flock_stale = false;
	}
	w->grid.count = 0;
	/* Flockers that see 0 still need the grid: boids on the same point see each
	 * other. */
	if (w->flock_sight < 0.0)
		return 0;
	if (steer_grid_build(&w->grid, w->cfg.width, w->cfg.height, w->cfg.edges == STEER_EDGE_WRAP,
	                     w->flock_sight, v->count, v->px, v->py, v->behaviors,
	                     STEER_FLOCK) != 0)
		return -1;
	size_t moved = sort_cells_by_id(w);
	return arrange(w, moved);
}

/* The slot of the k-th vehicle of the tick's order: the grid's items, which arrange
 * extended by the others; slot order when nothing flocks. */
static size_t slot_at(const steer_world *w, size_t k)
{
	return w->grid.count ? w->grid.items[k] : k;
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
			                   : steering_force(w, slot[l], &b->sums[s + l]);
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
		                      steer_world_dt(w), v->fx, v->fy);
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
	steer_flock_scan_lanes(w->kernel, v, runs, w->flock_one_group, q, s, m, &b->sums[b->count]);
	b->count += m;
}

/* The force on the k-th vehicle of the tick's order, on its own. */
static void one_force(steer_world *w, size_t k)
{
	size_t i = slot_at(w, k);
	steer_vec2 f = steering_force(w, i, NULL);
	w->v.fx[i] = f.x;
	w->v.fy[i] = f.y;
}

/* How far apart, in grid columns, the first and last members of a lane group of up
 * to limit may be: wider groups share a block of candidates so wide that a group
 * gains less in filled lanes than it loses in cells scanned. Eight lanes do best at
 * 3 reach_x columns (three sights) rather than 2 reach_x: on steer-bench's flock the
 * tick was 2% faster at 100,000 boids and 5% at 1,000,000 (interleaved runs). */
static size_t group_columns(const steer_grid *g, int limit)
{
	return (size_t)(limit > STEER_FLOCK_LANES ? 3 : 2) * (size_t)g->reach_x;
}

/* How many of the flockers from grid position i (in cell c) on form a lane group of
 * at most limit: those before end within group_columns of c, in c's row. */
static int group_members(const steer_grid *g, size_t c, size_t i, size_t end, int limit)
{
	size_t row_end = c - c % (size_t)g->nx + (size_t)g->nx;
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
static void *run_forces(void *arg)
{
	range_job *j = arg;
	steer_world *w = j->w;
	const steer_grid *g = &w->grid;
	size_t cells = g->count ? (size_t)g->nx * (size_t)g->ny : 0;
	size_t end = j->to < g->count ? j->to : g->count;
	size_t i = j->from;
	const int group_max = steer_flock_group_size(w->kernel);
	force_batch batch;
	batch.count = 0;
	/* Flockers come cell by cell: find the cell holding the first of ours. */
	size_t lo = 0, hi = cells;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (g->start[mid + 1] <= i)
			lo = mid + 1;
		else
			hi = mid;
	}
	size_t c = lo;
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
				one_force(w, i + (size_t)l);
		}
		i += (size_t)m;
	}
	batch_finish(w, &batch);
	for (; i < j->to; i++)
		one_force(w, i);
	return NULL;
}

/* Where the force phase splits between two threads: half the vehicles, moved to the
 * nearer start of a grid row when that falls among the flockers, so that each
 * thread forms the lane groups one thread would (see run_forces). */
static size_t forces_split(const steer_world *w)
{
	const steer_grid *g = &w->grid;
	size_t mid = w->v.count / 2;
	if (mid >= g->count)
		return mid;
	size_t lo = 0, hi = (size_t)g->nx * (size_t)g->ny;
	while (lo < hi) { /* the cell holding slot mid */
		size_t c = lo + (hi - lo) / 2;
		if (g->start[c + 1] <= mid)
			lo = c + 1;
		else
			hi = c;
	}
	/* The nearer end of the row holding it. */
	size_t row = lo - lo % (size_t)g->nx;
	size_t before = g->start[row];
	size_t after = g->start[row + (size_t)g->nx]; /* at most start[cells] */
	return mid - before <= after - mid ? before : after;
}

/* Runs fn over every vehicle: on one thread, or on two halves when the world is big
 * and two threads are allowed. fn touches only the slots of its range (and reads
 * the rest), so the split gives the same bits as one thread. */
static void in_parallel(steer_world *w, void *(*fn)(void *))
{
	size_t n = w->v.count;
	split_at(w, fn, n / 2, n, n >= PARALLEL_MIN_VEHICLES);
}

/* Moves vehicles [from, to) by their forces: each reads and writes only its own
 * slot, so the range can be split between threads. */
static void *integrate(void *arg)
{
	range_job *j = arg;
	steer_world *w = j->w;
	steer_motion_step(w->kernel, &w->v, &w->params, &w->cfg, steer_world_dt(w), j->from, j->to);
	return NULL;
}

/* Seconds on the wall clock (C11's, so the core needs no POSIX), when timing. */
static double phase_clock(const steer_world *w)
{
	struct timespec ts;
	if (!w->timing || !timespec_get(&ts, TIME_UTC))
		return 0.0;
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

steer_status steer_world_step(steer_world *w)
{
	double t0 = phase_clock(w);
	if (index_flock(w) != 0)
		return STEER_ERR_NOMEM;
	double t1 = phase_clock(w);
	/* Phase 1: every force from the same starting state. */
	split_at(w, run_forces, forces_split(w), w->v.count, w->v.count >= PARALLEL_MIN_VEHICLES);
	double t2 = phase_clock(w);
	/* Phase 2: integrate, once every force is known. */
	in_parallel(w, integrate);
	move_obstacles(w, steer_world_dt(w));
	w->tick++;
	if (w->timing) {
		w->phases.index_s += t1 - t0;
		w->phases.forces_s += t2 - t1;
		w->phases.moves_s += phase_clock(w) - t2;
		w->phases.ticks++;
	}
	return STEER_OK;
}

void steer_world_time_phases(steer_world *w, bool on)
{
	w->timing = on;
	w->phases = (steer_phase_times){0, 0.0, 0.0, 0.0};
}

steer_phase_times steer_world_phase_times(const steer_world *w)
{
	return w->phases;
}

int steer_world_threads(const steer_world *w)
{
	return w->threads;
}

steer_simd_level steer_world_set_simd(steer_world *w, steer_simd_level level)
{
	w->kernel = steer_kernel_for(level);
	w->grid.kernel = w->kernel;
	return w->kernel->level;
}

steer_simd_level steer_world_simd(const steer_world *w)
{
	return w->kernel->level;
}

void steer_world_set_threads(steer_world *w, int threads)
{
	w->threads = threads < 1 ? 1 : threads > 2 ? 2 : threads;
	w->grid.threads = w->threads;
}
