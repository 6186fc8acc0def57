/* The vehicle ids of a save read in pieces (steer_save_stream): a reader's world
 * keeps only some vehicles, so the checks of ids are made against this set. */
#include <stdlib.h>

#include "save_internal.h"

static size_t id_slot(const reader *r, uint32_t id)
{
	/* Fibonacci hashing's top bits: ids a power of two apart spread too. */
	size_t mask = r->ids_cap - 1,
	       k = (size_t)(((uint64_t)id * 0x9E3779B97F4A7C15u) >> r->ids_shift);
	while (r->ids[k] && r->ids[k] != id)
		k = (k + 1) & mask;
	return k;
}

bool steer_save_id_read(const reader *r, uint32_t id)
{
	return r->ids_cap && r->ids[id_slot(r, id)] == id;
}

/* Kept at most half full, so every probe ends at an empty slot. */
bool steer_save_id_add(reader *r, uint32_t id)
{
	if (2 * (r->ids_count + 1) > r->ids_cap) {
		size_t cap = r->ids_cap ? 2 * r->ids_cap : 1024;
		uint32_t *old = r->ids, *grown = calloc(cap, sizeof *grown);
		if (!grown)
			return steer_save_fail_file(r, "out of memory");
		size_t old_cap = r->ids_cap;
		r->ids = grown;
		r->ids_cap = cap;
		r->ids_shift = 64;
		for (size_t c = cap; c > 1; c >>= 1)
			r->ids_shift--;
		for (size_t k = 0; k < old_cap; k++)
			if (old[k])
				r->ids[id_slot(r, old[k])] = old[k];
		free(old);
	}
	r->ids[id_slot(r, id)] = id;
	r->ids_count++;
	return true;
}
