/* Parameter sets shared by reference. A flock of 100,000 boids spawned together has
 * one set of parameters, not 100,000 copies: each vehicle holds a 32-bit index, the
 * hot loop finds its parameters in a table small enough to stay in cache, and a
 * vehicle costs 150 bytes less. Sets are reference-counted and found by hash, so
 * assigning parameters stays O(1) however many distinct sets there are. */
#ifndef STEER_PALETTE_H
#define STEER_PALETTE_H

#include <stddef.h>
#include <stdint.h>

#include "idmap.h"
#include "steer/params.h"

#define STEER_PALETTE_NONE UINT32_MAX

typedef struct steer_palette {
	steer_params *sets;
	uint32_t *refs;      /* vehicles using each set; 0 = free slot */
	uint32_t *next;      /* next set with the same hash, or NONE */
	uint32_t *hash;      /* each set's hash */
	size_t count, cap;   /* slots in use or freed, allocated */
	uint32_t free_head;  /* a freed slot (chained through next), or NONE */
	steer_idmap by_hash; /* hash + 1 -> first slot with that hash */
	/* Slots freed so far: a slot known to hold some parameters still holds them
	 * while this is unchanged (sets never change while held). */
	uint64_t frees;
} steer_palette;

void steer_palette_init(steer_palette *p);
void steer_palette_free(steer_palette *p);
void steer_palette_clear(steer_palette *p);
/* The set equal to prm (bit for bit), made if needed, with one more reference, in
 * *set; NOMEM (the palette unchanged) when memory runs out. */
steer_status steer_palette_acquire(steer_palette *p, const steer_params *prm, uint32_t *set);
/* n more references to a set already held. */
static inline void steer_palette_retain(steer_palette *p, uint32_t set, uint32_t n)
{
	p->refs[set] += n;
}
void steer_palette_release(steer_palette *p, uint32_t set);
static inline const steer_params *steer_palette_get(const steer_palette *p, uint32_t set)
{
	return &p->sets[set];
}
/* Sets with at least one user. */
size_t steer_palette_live(const steer_palette *p);

#endif
