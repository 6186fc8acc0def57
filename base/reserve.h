/* Growing arrays: the one way the core, the wire code and the programs do it.
 *
 * steer_reserve(&p, &cap, n, sz) makes the array *p, of *cap elements of sz bytes,
 * hold at least n:
 * - *p is NULL (with *cap 0) or an array from malloc/realloc; sz > 0.
 * - n <= *cap: STEER_OK, nothing changes.
 * - Otherwise the new capacity is STEER_RESERVE_FIRST (or *cap when larger) doubled
 *   until it is at least n, and *p is realloc'd to it: the first *cap elements keep
 *   their contents, the rest are uninitialised. STEER_OK. Appending one at a time
 *   therefore costs amortised O(1).
 * - STEER_ERR_NOMEM when memory runs out, or when the doubling or the size in bytes
 *   (capacity * sz) would overflow size_t. *p and *cap are then untouched: the old
 *   array is still valid, and still the caller's to free.
 *
 * Parallel arrays that share one capacity use its two halves: steer_grow_cap for the
 * capacity, then steer_resize on each array, recording the capacity only when every
 * array has it. */
#ifndef STEER_RESERVE_H
#define STEER_RESERVE_H

#include <stdint.h>
#include <stdlib.h>

#include "steer/status.h"

/* The smallest capacity steer_reserve allocates. */
#define STEER_RESERVE_FIRST 16u

/* The capacity steer_reserve would grow an array of cap elements of sz bytes to, to
 * hold n, in *out (cap itself when n <= cap); STEER_ERR_NOMEM on overflow. */
static inline steer_status steer_grow_cap(size_t cap, size_t n, size_t sz, size_t *out)
{
	if (n <= cap) {
		*out = cap;
		return STEER_OK;
	}
	size_t ncap = cap > STEER_RESERVE_FIRST ? cap : STEER_RESERVE_FIRST;
	while (ncap < n) {
		if (ncap > SIZE_MAX / 2)
			return STEER_ERR_NOMEM;
		ncap *= 2;
	}
	if (ncap > SIZE_MAX / sz)
		return STEER_ERR_NOMEM;
	*out = ncap;
	return STEER_OK;
}

/* Reallocates *p to exactly n (> 0) elements of sz bytes, keeping what fits;
 * STEER_ERR_NOMEM, with *p untouched, when memory runs out or n * sz overflows. */
static inline steer_status steer_resize(void **p, size_t n, size_t sz)
{
	if (n > SIZE_MAX / sz)
		return STEER_ERR_NOMEM;
	void *q = realloc(*p, n * sz);
	if (!q)
		return STEER_ERR_NOMEM;
	*p = q;
	return STEER_OK;
}

static inline steer_status steer_reserve(void **p, size_t *cap, size_t n, size_t sz)
{
	size_t ncap;
	if (n <= *cap)
		return STEER_OK;
	if (steer_grow_cap(*cap, n, sz, &ncap) != STEER_OK || steer_resize(p, ncap, sz) != STEER_OK)
		return STEER_ERR_NOMEM;
	*cap = ncap;
	return STEER_OK;
}

#endif
