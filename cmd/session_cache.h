/* What Steer's own hosts (the server, its ranks) keep beside a session, for the
 * commands that read it: the flock figures of stats, and a world split over
 * processes' counts. A session without one (an embedding program's: cache NULL)
 * has the commands compute from its world alone, every time. */
#ifndef STEER_SESSION_CACHE_H
#define STEER_SESSION_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "steer/command.h"
#include "steer/world.h"

struct steer_session_cache {
	/* The flock figures of stats, a pass over every vehicle: computed once per tick
	 * however many clients ask. Any write command makes them stale. Over ranks, the
	 * whole world's, summed by cluster/ranks.c. */
	steer_flock_health health;
	uint64_t health_tick;
	bool health_valid;
	/* A world split over processes (cluster/ranks.c): the vehicles the other parts
	 * hold and this world has no copy of, counted by stats and list. */
	size_t vehicles_elsewhere;
};

/* The world changed, or was replaced: the figures are computed again when asked. */
static inline void steer_session_stale(steer_session *s)
{
	if (s->cache)
		s->cache->health_valid = false;
}

/* The vehicles the other processes hold (0 for a whole world). */
static inline size_t steer_session_elsewhere(const steer_session *s)
{
	return s->cache ? s->cache->vehicles_elsewhere : 0;
}

#endif
