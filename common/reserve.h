/* Growing an array by doubling, the one way the core and the wire code do it. */
#ifndef STEER_RESERVE_H
#define STEER_RESERVE_H

#include <stdint.h>
#include <stdlib.h>

/* Makes *p (of *cap elements of size sz) hold at least n, doubling from a small
 * start; on failure returns -1 and leaves *p and *cap as they were. */
static inline int steer_reserve(void **p, size_t *cap, size_t n, size_t sz)
{
	if (n <= *cap)
		return 0;
	size_t ncap = *cap ? *cap : 64;
	while (ncap < n) {
		if (ncap > SIZE_MAX / 2)
			return -1;
		ncap *= 2;
	}
	if (ncap > SIZE_MAX / sz)
		return -1;
	void *q = realloc(*p, ncap * sz);
	if (!q)
		return -1;
	*p = q;
	*cap = ncap;
	return 0;
}

#endif
