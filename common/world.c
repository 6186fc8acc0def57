#include "world.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "behaviors.h"
#include "grid.h"
#include "idmap.h"

/* Obstacle slots in the id map carry this bit; vehicle slots do not. */
#define OBSTACLE_SLOT 0x80000000u
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
	steer_grid grid;
};

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
	if (!(c->width > 0 && c->width <= STEER_MAX_EXTENT) ||
	    !(c->height > 0 && c->height <= STEER_MAX_EXTENT))
		snprintf(err, errlen, "world size must be in (0, %g]", STEER_MAX_EXTENT);
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
	steer_idmap_init(&w->ids);
	steer_grid_init(&w->grid);
	steer_rng_seed(&w->rng, cfg->seed, 0x5eed);
	return w;
}

static void free_paths(steer_world *w)
{
	for (size_t i = 0; i < w->v.count; i++)
		free(w->v.state[i].path.points);
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
	free(v->px);
	free(v->py);
	free(v->vx);
	free(v->vy);
	free(v->hx);
	free(v->hy);
	free(v->fx);
	free(v->fy);
	free(v->state);
	free(w->obs);
	steer_idmap_free(&w->ids);
	steer_grid_free(&w->grid);
	free(w);
}

void steer_world_reset(steer_world *w)
{
	free_paths(w);
	w->v.count = 0;
	w->obs_count = 0;
	steer_idmap_clear(&w->ids);
	w->next_id = 1;
	w->tick = 0;
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

static double wrap_axis(double d, double size)
{
	if (d > size * 0.5)
		return d - size;
	if (d < -size * 0.5)
		return d + size;
	return d;
}

steer_vec2 steer_world_delta(const steer_world *w, steer_vec2 a, steer_vec2 b)
{
	steer_vec2 d = v2_sub(b, a);
	if (w->cfg.edges == STEER_EDGE_WRAP) {
		d.x = wrap_axis(d.x, w->cfg.width);
		d.y = wrap_axis(d.y, w->cfg.height);
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

const steer_vehicle_state *steer_vehicle_get(const steer_world *w, uint32_t id)
{
	long i = steer_vehicle_index(w, id);
	return i < 0 ? NULL : &w->v.state[i];
}

const steer_obstacle *steer_obstacle_get(const steer_world *w, uint32_t id)
{
	uint32_t slot;
	if (!steer_idmap_get(&w->ids, id, &slot) || !(slot & OBSTACLE_SLOT))
		return NULL;
	return &w->obs[slot & ~OBSTACLE_SLOT];
}

/* --- vehicles ----------------------------------------------------------------- */

static int grow_array(void **p, size_t n, size_t sz)
{
	void *q = realloc(*p, n * sz);
	if (!q)
		return -1;
	*p = q;
	return 0;
}

static int grow_vehicles(steer_vehicles *v)
{
	size_t n = v->cap ? v->cap * 2 : 64;
	/* Each array is grown in turn; a failure part-way leaves the larger arrays in
	 * place (harmless) and the old capacity recorded, so the world stays valid. */
	if (grow_array((void **)&v->id, n, sizeof *v->id) ||
	    grow_array((void **)&v->behaviors, n, sizeof *v->behaviors) ||
	    grow_array((void **)&v->group, n, sizeof *v->group) ||
	    grow_array((void **)&v->px, n, sizeof *v->px) ||
	    grow_array((void **)&v->py, n, sizeof *v->py) ||
	    grow_array((void **)&v->vx, n, sizeof *v->vx) ||
	    grow_array((void **)&v->vy, n, sizeof *v->vy) ||
	    grow_array((void **)&v->hx, n, sizeof *v->hx) ||
	    grow_array((void **)&v->hy, n, sizeof *v->hy) ||
	    grow_array((void **)&v->fx, n, sizeof *v->fx) ||
	    grow_array((void **)&v->fy, n, sizeof *v->fy) ||
	    grow_array((void **)&v->state, n, sizeof *v->state))
		return -1;
	v->cap = n;
	return 0;
}

static bool finite2(steer_vec2 a)
{
	return isfinite(a.x) && isfinite(a.y);
}

static steer_vec2 pos_of(const steer_vehicles *v, size_t i)
{
	return v2(v->px[i], v->py[i]);
}

static steer_vec2 vel_of(const steer_vehicles *v, size_t i)
{
	return v2(v->vx[i], v->vy[i]);
}

/* Appends a validated record as slot count, taking ownership of its path points. The
 * one place that fills a vehicle slot, for new vehicles and restored ones alike. */
static steer_status append_vehicle(steer_world *w, const steer_vehicle_record *r)
{
	steer_vehicles *v = &w->v;
	if (w->cfg.max_vehicles && v->count >= w->cfg.max_vehicles)
		return STEER_ERR_LIMIT;
	if (v->count == v->cap && grow_vehicles(v) != 0)
		return STEER_ERR_NOMEM;
	size_t i = v->count;
	if (steer_idmap_put(&w->ids, r->id, (uint32_t)i) != 0)
		return STEER_ERR_NOMEM;
	v->id[i] = r->id;
	v->behaviors[i] = r->behaviors;
	v->group[i] = r->state.prm.group;
	v->px[i] = r->pos.x;
	v->py[i] = r->pos.y;
	v->vx[i] = r->vel.x;
	v->vy[i] = r->vel.y;
	v->hx[i] = r->heading.x;
	v->hy[i] = r->heading.y;
	v->fx[i] = r->force.x;
	v->fy[i] = r->force.y;
	v->state[i] = r->state;
	v->count++;
	if (r->id >= w->next_id)
		w->next_id = r->id + 1;
	return STEER_OK;
}

steer_status steer_vehicle_add(steer_world *w, steer_vec2 pos, steer_vec2 vel,
                               const steer_params *prm, uint32_t *id_out)
{
	steer_vehicle_record r;
	memset(&r, 0, sizeof r);
	r.state.prm = prm ? *prm : steer_params_default();
	char err[96];
	if (!finite2(pos) || !finite2(vel) || steer_params_check(&r.state.prm, err, sizeof err))
		return STEER_ERR_INVALID;
	/* Ids below 2^31 leave the top bit for the slot tag: a world would need 1,000
	 * spawns a second for 24 days to run out. */
	if (w->next_id >= OBSTACLE_SLOT)
		return STEER_ERR_LIMIT;
	r.id = w->next_id;
	r.pos = pos;
	r.vel = v2_truncate(vel, r.state.prm.max_speed);
	r.heading = v2_len2(r.vel) > 0.0 ? v2_norm(r.vel) : v2(1.0, 0.0);
	/* Start the wander angle along the heading so wandering begins straight on. */
	r.state.wander_angle = atan2(r.heading.y, r.heading.x);
	steer_status st = append_vehicle(w, &r);
	if (st == STEER_OK && id_out)
		*id_out = r.id;
	return st;
}

static void remove_vehicle(steer_world *w, size_t i)
{
	steer_vehicles *v = &w->v;
	uint32_t gone = v->id[i];
	free(v->state[i].path.points);
	steer_idmap_del(&w->ids, gone);
	size_t last = --v->count;
	if (i != last) {
		v->id[i] = v->id[last];
		v->behaviors[i] = v->behaviors[last];
		v->group[i] = v->group[last];
		v->px[i] = v->px[last];
		v->py[i] = v->py[last];
		v->vx[i] = v->vx[last];
		v->vy[i] = v->vy[last];
		v->hx[i] = v->hx[last];
		v->hy[i] = v->hy[last];
		v->fx[i] = v->fx[last];
		v->fy[i] = v->fy[last];
		v->state[i] = v->state[last];
		/* Overwriting an existing key never allocates. */
		steer_idmap_put(&w->ids, v->id[i], (uint32_t)i);
	}
	for (size_t k = 0; k < v->count; k++) {
		steer_vehicle_state *s = &v->state[k];
		if (s->pursue_id == gone) {
			s->pursue_id = 0;
			v->behaviors[k] &= ~(uint32_t)STEER_PURSUE;
		}
		if (s->evade_id == gone) {
			s->evade_id = 0;
			v->behaviors[k] &= ~(uint32_t)STEER_EVADE;
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
	w->v.state[i].prm = *prm;
	w->v.group[i] = prm->group;
	return STEER_OK;
}

steer_status steer_vehicle_set_velocity(steer_world *w, uint32_t id, steer_vec2 vel)
{
	long i = steer_vehicle_index(w, id);
	if (i < 0)
		return STEER_ERR_NOENT;
	if (!finite2(vel))
		return STEER_ERR_INVALID;
	vel = v2_truncate(vel, w->v.state[i].prm.max_speed);
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
	return STEER_OK;
}

steer_status steer_vehicle_enable(steer_world *w, uint32_t id, uint32_t bits, bool on)
{
	long i = steer_vehicle_index(w, id);
	if (i < 0)
		return STEER_ERR_NOENT;
	if (bits & ~(uint32_t)STEER_ALL_BEHAVIORS)
		return STEER_ERR_INVALID;
	steer_vehicle_state *s = &w->v.state[i];
	/* pursue/evade need a live target; turning them on without one is meaningless. */
	if (on &&
	    (((bits & STEER_PURSUE) && !s->pursue_id) || ((bits & STEER_EVADE) && !s->evade_id)))
		return STEER_ERR_INVALID;
	if (on)
		w->v.behaviors[i] |= bits;
	else
		w->v.behaviors[i] &= ~bits;
	return STEER_OK;
}

steer_status steer_vehicle_target(steer_world *w, uint32_t id, uint32_t bit, steer_vec2 target)
{
	long i = steer_vehicle_index(w, id);
	if (i < 0)
		return STEER_ERR_NOENT;
	if (!finite2(target))
		return STEER_ERR_INVALID;
	steer_vehicle_state *s = &w->v.state[i];
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
	w->v.behaviors[i] |= bit;
	return STEER_OK;
}

steer_status steer_vehicle_chase(steer_world *w, uint32_t id, uint32_t bit, uint32_t other)
{
	long i = steer_vehicle_index(w, id);
	if (i < 0 || steer_vehicle_index(w, other) < 0)
		return STEER_ERR_NOENT;
	if (other == id || (bit != STEER_PURSUE && bit != STEER_EVADE))
		return STEER_ERR_INVALID;
	if (bit == STEER_PURSUE)
		w->v.state[i].pursue_id = other;
	else
		w->v.state[i].evade_id = other;
	w->v.behaviors[i] |= bit;
	return STEER_OK;
}

steer_status steer_vehicle_path_add(steer_world *w, uint32_t id, steer_vec2 point)
{
	long i = steer_vehicle_index(w, id);
	if (i < 0)
		return STEER_ERR_NOENT;
	if (!finite2(point))
		return STEER_ERR_INVALID;
	steer_path *path = &w->v.state[i].path;
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
	w->v.behaviors[i] |= STEER_PATH;
	return STEER_OK;
}

steer_status steer_vehicle_path_clear(steer_world *w, uint32_t id)
{
	long i = steer_vehicle_index(w, id);
	if (i < 0)
		return STEER_ERR_NOENT;
	steer_path *path = &w->v.state[i].path;
	path->count = 0;
	path->index = 0;
	w->v.behaviors[i] &= ~(uint32_t)STEER_PATH;
	return STEER_OK;
}

steer_status steer_vehicle_path_loop(steer_world *w, uint32_t id, bool loop)
{
	long i = steer_vehicle_index(w, id);
	if (i < 0)
		return STEER_ERR_NOENT;
	w->v.state[i].path.loop = loop;
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
	out->state = v->state[i];
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
	    !isfinite(s->wander_angle) || steer_params_check(&s->prm, err, sizeof err) ||
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
	if (!finite2(pos) || !finite2(vel) || !(radius > 0.0) || !isfinite(radius))
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

/* Flocking: one pass over the neighbours in the 3 x 3 cells around the vehicle. */
static void flock_parts(const steer_world *w, size_t i, const steer_agent *a,
                        steer_vec2 parts[STEER_PART_COUNT], uint32_t *mask)
{
	const steer_vehicles *v = &w->v;
	const steer_params *p = a->prm;
	const steer_grid *g = &w->grid;
	bool wrap = w->cfg.edges == STEER_EDGE_WRAP;
	double W = w->cfg.width, H = w->cfg.height;
	double x = v->px[i], y = v->py[i];
	double sight2 = p->sight_distance * p->sight_distance;
	double close2 = p->too_close_distance * p->too_close_distance;
	uint32_t group = v->group[i];
	steer_vec2 sep = v2(0, 0), sum_d = v2(0, 0), sum_v = v2(0, 0);
	size_t n = 0;

	steer_grid_span sx = steer_grid_span_x(g, x - p->sight_distance, x + p->sight_distance);
	steer_grid_span sy = steer_grid_span_y(g, y - p->sight_distance, y + p->sight_distance);
	for (int ky = sy.first; ky <= sy.last; ky++) {
		int row = steer_grid_axis_cell(&sy, ky) * g->nx;
		for (int kx = sx.first; kx <= sx.last; kx++) {
			int c = row + steer_grid_axis_cell(&sx, kx);
			for (uint32_t k = g->start[c]; k < g->start[c + 1]; k++) {
				uint32_t j = g->items[k];
				if (j == i || v->group[j] != group)
					continue;
				double dx = v->px[j] - x, dy = v->py[j] - y;
				if (wrap) {
					dx = wrap_axis(dx, W);
					dy = wrap_axis(dy, H);
				}
				double d2 = dx * dx + dy * dy;
				if (d2 > sight2)
					continue;
				if (p->field_of_view && dx * a->h.x + dy * a->h.y < 0.0)
					continue;
				n++;
				sum_d.x += dx;
				sum_d.y += dy;
				sum_v.x += v->vx[j];
				sum_v.y += v->vy[j];
				if (d2 < close2)
					sep = v2_add(sep, steer_separate_one(a, v2(dx, dy),
					                                     v->id[i], v->id[j]));
			}
		}
	}
	if (n == 0)
		return;
	double inv = 1.0 / (double)n;
	parts[STEER_PART_SEPARATION] = v2_scale(sep, p->separation_weight);
	parts[STEER_PART_COHESION] =
	    v2_scale(steer_cohere(a, v2_scale(sum_d, inv)), p->cohesion_weight);
	parts[STEER_PART_ALIGNMENT] =
	    v2_scale(steer_align(a, v2_scale(sum_v, inv)), p->alignment_weight);
	*mask |= (1u << STEER_PART_SEPARATION) | (1u << STEER_PART_COHESION) |
	         (1u << STEER_PART_ALIGNMENT);
}

static steer_vec2 path_part(const steer_world *w, size_t i, steer_vehicle_state *s,
                            const steer_agent *a)
{
	steer_path *path = &s->path;
	if (path->count == 0)
		return v2(0, 0);
	steer_vec2 p = pos_of(&w->v, i);
	steer_vec2 d = steer_world_delta(w, p, path->points[path->index]);
	if (v2_len2(d) < s->prm.path_threshold * s->prm.path_threshold) {
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
 * bookkeeping (wander angle, path index), which no other vehicle reads. */
static steer_vec2 steering_force(steer_world *w, size_t i)
{
	steer_vehicles *v = &w->v;
	steer_vehicle_state *s = &v->state[i];
	uint32_t b = v->behaviors[i];
	steer_agent a = {vel_of(v, i), v2(v->hx[i], v->hy[i]), &s->prm};
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
		    remainder(s->wander_angle + (u - 0.5) * s->prm.wander_range, STEER_TAU);
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
	if (b & STEER_FLOCK)
		flock_parts(w, i, &a, parts, &mask);
	return steer_combine_parts(parts, mask, &s->prm, steer_world_dt(w));
}

static void apply_edges(const steer_world_config *c, double *x, double *y, double *vx, double *vy)
{
	if (c->edges == STEER_EDGE_WRAP) {
		if (*x < 0.0 || *x >= c->width) {
			*x -= c->width * floor(*x / c->width);
			if (*x >= c->width) /* rounding of a tiny negative */
				*x = 0.0;
		}
		if (*y < 0.0 || *y >= c->height) {
			*y -= c->height * floor(*y / c->height);
			if (*y >= c->height)
				*y = 0.0;
		}
	} else if (c->edges == STEER_EDGE_BOUNCE) {
		if (*x < 0.0) {
			*x = 0.0;
			*vx = fabs(*vx);
		} else if (*x > c->width) {
			*x = c->width;
			*vx = -fabs(*vx);
		}
		if (*y < 0.0) {
			*y = 0.0;
			*vy = fabs(*vy);
		} else if (*y > c->height) {
			*y = c->height;
			*vy = -fabs(*vy);
		}
	}
}

static void move_obstacles(steer_world *w, double dt)
{
	const steer_world_config *c = &w->cfg;
	for (size_t k = 0; k < w->obs_count; k++) {
		steer_obstacle *o = &w->obs[k];
		o->x += o->vx * dt;
		o->y += o->vy * dt;
		if (c->edges == STEER_EDGE_NONE)
			continue;
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

static double max_flock_sight(const steer_vehicles *v)
{
	double m = 0.0;
	for (size_t i = 0; i < v->count; i++)
		if ((v->behaviors[i] & STEER_FLOCK) && v->state[i].prm.sight_distance > m)
			m = v->state[i].prm.sight_distance;
	return m;
}

steer_status steer_world_step(steer_world *w)
{
	steer_vehicles *v = &w->v;
	double dt = steer_world_dt(w);
	double sight = max_flock_sight(v);
	if (sight > 0.0 &&
	    steer_grid_build(&w->grid, w->cfg.width, w->cfg.height, w->cfg.edges == STEER_EDGE_WRAP,
	                     sight, v->count, v->px, v->py, v->behaviors, STEER_FLOCK) != 0)
		return STEER_ERR_NOMEM;

	/* Phase 1: every force from the same starting state. */
	for (size_t i = 0; i < v->count; i++) {
		steer_vec2 f = steering_force(w, i);
		v->fx[i] = f.x;
		v->fy[i] = f.y;
	}
	/* Phase 2: integrate. */
	for (size_t i = 0; i < v->count; i++) {
		const steer_params *p = &v->state[i].prm;
		steer_vec2 vel =
		    v2(v->vx[i] + v->fx[i] / p->mass * dt, v->vy[i] + v->fy[i] / p->mass * dt);
		vel = v2_truncate(vel, p->max_speed);
		double x = v->px[i] + vel.x * dt, y = v->py[i] + vel.y * dt;
		apply_edges(&w->cfg, &x, &y, &vel.x, &vel.y);
		v->px[i] = x;
		v->py[i] = y;
		v->vx[i] = vel.x;
		v->vy[i] = vel.y;
		double l2 = v2_len2(vel);
		if (l2 > 1e-18) {
			double inv = 1.0 / sqrt(l2);
			v->hx[i] = vel.x * inv;
			v->hy[i] = vel.y * inv;
		}
	}
	move_obstacles(w, dt);
	w->tick++;
	return STEER_OK;
}
