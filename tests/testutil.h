/* Helpers shared by the core tests: small worlds, one-line vehicle setup. */
#ifndef STEER_TESTUTIL_H
#define STEER_TESTUTIL_H

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "savefile.h"
#include "steer/world.h"

/* Whether s begins with prefix (a reply with "OK", say). */
static inline bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* qsort's order of uint32_t. */
static inline int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

static inline steer_world *make_world(double w, double h, steer_edges edges, uint64_t seed)
{
	steer_world_config c = steer_world_config_default();
	c.width = w;
	c.height = h;
	c.edges = edges;
	c.seed = seed;
	steer_world *world = steer_world_create(&c);
	if (!world)
		abort();
	return world;
}

static inline uint32_t add_vehicle(steer_world *w, double x, double y, double vx, double vy,
                                   const steer_params *p)
{
	uint32_t id = 0;
	if (steer_vehicle_add(w, v2(x, y), v2(vx, vy), p, &id) != STEER_OK)
		abort();
	return id;
}

static inline steer_vec2 pos(const steer_world *w, uint32_t id)
{
	long i = steer_vehicle_index(w, id);
	const steer_vehicles *v = steer_world_vehicles(w);
	return i < 0 ? v2(NAN, NAN) : v2(v->px[i], v->py[i]);
}

static inline steer_vec2 vel(const steer_world *w, uint32_t id)
{
	long i = steer_vehicle_index(w, id);
	const steer_vehicles *v = steer_world_vehicles(w);
	return i < 0 ? v2(NAN, NAN) : v2(v->vx[i], v->vy[i]);
}

static inline double dist(steer_vec2 a, steer_vec2 b)
{
	return v2_len(v2_sub(a, b));
}

static inline void step(steer_world *w, int n)
{
	for (int k = 0; k < n; k++)
		if (steer_world_step(w) != STEER_OK)
			abort();
}

/* True when every vehicle's state is finite. */
static inline int world_finite(const steer_world *w)
{
	const steer_vehicles *v = steer_world_vehicles(w);
	for (size_t i = 0; i < v->count; i++)
		if (!isfinite(v->px[i]) || !isfinite(v->py[i]) || !isfinite(v->vx[i]) ||
		    !isfinite(v->vy[i]) || !isfinite(v->hx[i]) || !isfinite(v->hy[i]) ||
		    !isfinite(v->fx[i]) || !isfinite(v->fy[i]))
			return 0;
	return 1;
}

/* Whether a and b save to the same bytes: the same world, bit for bit. */
static inline bool same_save_bytes(const steer_world *a, const steer_world *b)
{
	char *x = NULL, *y = NULL;
	size_t nx = 0, ny = 0;
	if (steer_save_encode(a, &x, &nx) != STEER_OK || steer_save_encode(b, &y, &ny) != STEER_OK)
		abort();
	bool same = nx == ny && !memcmp(x, y, nx);
	free(x);
	free(y);
	return same;
}

#endif
