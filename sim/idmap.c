#include "idmap.h"

#include <stdlib.h>
#include <string.h>

static size_t slot_of(const steer_idmap *m, uint32_t key)
{
	/* Fibonacci hashing: the product's top bits spread the consecutive ids we hand
	 * out, for a table of any size. */
	return (size_t)(((uint64_t)key * 0x9E3779B97F4A7C15u) >> m->shift);
}

void steer_idmap_init(steer_idmap *m)
{
	memset(m, 0, sizeof *m);
}

void steer_idmap_free(steer_idmap *m)
{
	free(m->keys);
	free(m->vals);
	steer_idmap_init(m);
}

void steer_idmap_clear(steer_idmap *m)
{
	if (m->cap)
		memset(m->keys, 0, m->cap * sizeof *m->keys);
	m->count = 0;
}

static void insert_fresh(steer_idmap *m, uint32_t key, uint32_t val)
{
	size_t i = slot_of(m, key);
	while (m->keys[i] != 0 && m->keys[i] != key)
		i = (i + 1) & (m->cap - 1);
	if (m->keys[i] == 0)
		m->count++;
	m->keys[i] = key;
	m->vals[i] = val;
}

static steer_status grow(steer_idmap *m)
{
	size_t ncap = m->cap ? m->cap * 2 : 64;
	uint32_t *nk = calloc(ncap, sizeof *nk);
	uint32_t *nv = malloc(ncap * sizeof *nv);
	if (!nk || !nv) {
		free(nk);
		free(nv);
		return STEER_ERR_NOMEM;
	}
	steer_idmap old = *m;
	m->keys = nk;
	m->vals = nv;
	m->cap = ncap;
	m->shift = 64;
	for (size_t c = ncap; c > 1; c >>= 1)
		m->shift--;
	m->count = 0;
	for (size_t i = 0; i < old.cap; i++)
		if (old.keys[i])
			insert_fresh(m, old.keys[i], old.vals[i]);
	free(old.keys);
	free(old.vals);
	return STEER_OK;
}

steer_status steer_idmap_put(steer_idmap *m, uint32_t key, uint32_t val)
{
	/* Keep the load under 1/2 so probe runs stay short. */
	if ((m->count + 1) * 2 > m->cap && grow(m) != STEER_OK)
		return STEER_ERR_NOMEM;
	insert_fresh(m, key, val);
	return STEER_OK;
}

bool steer_idmap_get(const steer_idmap *m, uint32_t key, uint32_t *val)
{
	if (m->cap == 0 || key == 0)
		return false;
	size_t i = slot_of(m, key);
	while (m->keys[i] != 0) {
		if (m->keys[i] == key) {
			*val = m->vals[i];
			return true;
		}
		i = (i + 1) & (m->cap - 1);
	}
	return false;
}

void steer_idmap_del(steer_idmap *m, uint32_t key)
{
	if (m->cap == 0 || key == 0)
		return;
	size_t mask = m->cap - 1;
	size_t i = slot_of(m, key);
	while (m->keys[i] != key) {
		if (m->keys[i] == 0)
			return;
		i = (i + 1) & mask;
	}
	/* Backward-shift: pull later members of the probe run into the hole. */
	size_t hole = i;
	for (size_t j = (hole + 1) & mask; m->keys[j] != 0; j = (j + 1) & mask) {
		size_t home = slot_of(m, m->keys[j]);
		/* Move j into the hole unless its home lies cyclically in (hole, j]. */
		int home_between =
		    hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
		if (!home_between) {
			m->keys[hole] = m->keys[j];
			m->vals[hole] = m->vals[j];
			hole = j;
		}
	}
	m->keys[hole] = 0;
	m->count--;
}

void steer_idmap_renumber(steer_idmap *m, const uint32_t *map, uint32_t limit, size_t from,
                          size_t to)
{
	to = to < m->cap ? to : m->cap;
	for (size_t i = from; i < to; i++)
		if (m->keys[i] != 0 && m->vals[i] < limit)
			m->vals[i] = map[m->vals[i]];
}
