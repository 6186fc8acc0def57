/* Maps stable 32-bit ids to slots in the world's dense arrays. Open addressing with
 * linear probing and backward-shift deletion: no tombstones, so lookups stay short
 * however many spawns and removals a long-running server sees. */
#ifndef STEER_IDMAP_H
#define STEER_IDMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "steer/status.h"

typedef struct steer_idmap {
	uint32_t *keys; /* 0 = empty; ids start at 1 */
	uint32_t *vals;
	size_t cap; /* power of two, or 0 before the first insert */
	size_t count;
	unsigned shift; /* 64 - log2(cap): the hash's top bits index the table */
} steer_idmap;

void steer_idmap_init(steer_idmap *m);
void steer_idmap_free(steer_idmap *m);
void steer_idmap_clear(steer_idmap *m);
/* Inserts or overwrites. STEER_OK, or NOMEM (the map unchanged) when the table cannot
 * grow. */
steer_status steer_idmap_put(steer_idmap *m, uint32_t key, uint32_t val);
/* True, with the value in *val, when key is in the map; false (not an error) when
 * not. */
bool steer_idmap_get(const steer_idmap *m, uint32_t key, uint32_t *val);
void steer_idmap_del(steer_idmap *m, uint32_t key);
/* Every value below limit becomes map[value]; the others stay. One pass over the
 * table's slots [from, to) (clipped to cap), for when many slots move at once: a
 * caller may split the table between threads. */
void steer_idmap_renumber(steer_idmap *m, const uint32_t *map, uint32_t limit, size_t from,
                          size_t to);

#endif
