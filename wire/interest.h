/* Interest management: which vehicles each client's view needs, found through one
 * spatial index of the whole world per snapshot tick instead of a scan of every
 * vehicle per view. */
#ifndef STEER_INTEREST_H
#define STEER_INTEREST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "grid.h"
#include "steer/wire.h"
#include "steer/world.h"

typedef struct steer_interest {
	steer_grid grid;
	bool built;
	size_t count;   /* vehicles when built */
	uint64_t *keys; /* sort keys of the collected vehicles, and their radix buffer */
	uint64_t *tmp;
	size_t keys_cap, tmp_cap;
} steer_interest;

typedef enum steer_order {
	STEER_ORDER_INDEX, /* ascending world index: the plain snapshot's order */
	STEER_ORDER_ID,    /* ascending id: the compact snapshot's order */
} steer_order;

void steer_interest_init(steer_interest *ix);
void steer_interest_free(steer_interest *ix);

/* Indexes every vehicle of w as it is now. Valid until w changes: build once per
 * snapshot tick, after stepping, before collecting. 0, or -1 when memory runs out
 * (collect then scans, slower but right). */
int steer_interest_build(steer_interest *ix, const steer_world *w);
/* Forgets the index (the world has changed). */
void steer_interest_invalidate(steer_interest *ix);

/* The world indices of the vehicles in view plus its margin (every vehicle when the
 * view is not set), in the given order, into *out (caller-owned, grown as needed;
 * *cap its capacity); *n receives the count. 0, or -1 when memory runs out. */
int steer_interest_collect(steer_interest *ix, const steer_world *w, const steer_view *view,
                           steer_order order, uint32_t **out, size_t *cap, size_t *n);

#endif
