/* Ascending order of a few ids or slots by insertion: below some dozens, cheaper
 * than qsort's calls or a radix pass's table. Shared by the geometry queries and the
 * solid pass. */
#ifndef STEER_SORT_U32_H
#define STEER_SORT_U32_H

#include <stddef.h>
#include <stdint.h>

static inline void steer_sort_u32_insertion(uint32_t *v, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		uint32_t x = v[i];
		size_t j = i;
		for (; j > 0 && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

#endif
