#include "palette.h"

#include <stdlib.h>
#include <string.h>

#include "reserve.h"

void steer_palette_init(steer_palette *p)
{
	memset(p, 0, sizeof *p);
	p->free_head = STEER_PALETTE_NONE;
	steer_idmap_init(&p->by_hash);
}

void steer_palette_free(steer_palette *p)
{
	free(p->sets);
	free(p->refs);
	free(p->next);
	free(p->hash);
	steer_idmap_free(&p->by_hash);
	steer_palette_init(p);
}

void steer_palette_clear(steer_palette *p)
{
	p->count = 0;
	p->free_head = STEER_PALETTE_NONE;
	p->frees++;
	steer_idmap_clear(&p->by_hash);
}

/* Field by field through the name table: struct padding never takes part, and two
 * sets are equal exactly when every value has the same bits. */
static uint64_t fnv(uint64_t h, const void *data, size_t n)
{
	const unsigned char *b = data;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 1099511628211ULL;
	return h;
}

static uint32_t hash_params(const steer_params *prm)
{
	uint64_t h = 1469598103934665603ULL;
	for (size_t k = 0; k < steer_param_count; k++) {
		double v = steer_param_get(prm, &steer_param_defs[k]);
		h = fnv(h, &v, sizeof v);
	}
	/* The id map reserves key 0: keep hashes in 1..2^32-1. */
	uint32_t x = (uint32_t)(h ^ (h >> 32));
	return x ? x : 1;
}

static int same_params(const steer_params *a, const steer_params *b)
{
	for (size_t k = 0; k < steer_param_count; k++) {
		double x = steer_param_get(a, &steer_param_defs[k]);
		double y = steer_param_get(b, &steer_param_defs[k]);
		if (memcmp(&x, &y, sizeof x) != 0)
			return 0;
	}
	return 1;
}

/* The four arrays share one capacity; one that grew before another failed just
 * stays larger. */
static steer_status grow(steer_palette *p)
{
	size_t n;
	if (steer_grow_cap(p->cap, p->cap + 1, sizeof *p->sets, &n) != STEER_OK ||
	    steer_resize((void **)&p->sets, n, sizeof *p->sets) != STEER_OK ||
	    steer_resize((void **)&p->refs, n, sizeof *p->refs) != STEER_OK ||
	    steer_resize((void **)&p->next, n, sizeof *p->next) != STEER_OK ||
	    steer_resize((void **)&p->hash, n, sizeof *p->hash) != STEER_OK)
		return STEER_ERR_NOMEM;
	p->cap = n;
	return STEER_OK;
}

steer_status steer_palette_acquire(steer_palette *p, const steer_params *prm, uint32_t *set)
{
	uint32_t h = hash_params(prm), first;
	if (steer_idmap_get(&p->by_hash, h, &first))
		for (uint32_t s = first; s != STEER_PALETTE_NONE; s = p->next[s])
			if (same_params(&p->sets[s], prm)) {
				p->refs[s]++;
				*set = s;
				return STEER_OK;
			}
	uint32_t s;
	if (p->free_head != STEER_PALETTE_NONE) {
		s = p->free_head;
		p->free_head = p->next[s];
	} else {
		if (p->count == p->cap && grow(p) != STEER_OK)
			return STEER_ERR_NOMEM;
		if (p->count >= STEER_PALETTE_NONE)
			return STEER_ERR_NOMEM;
		s = (uint32_t)p->count++;
	}
	uint32_t head = STEER_PALETTE_NONE;
	steer_idmap_get(&p->by_hash, h, &head);
	if (steer_idmap_put(&p->by_hash, h, s) != STEER_OK) {
		p->next[s] = p->free_head;
		p->free_head = s;
		p->refs[s] = 0;
		return STEER_ERR_NOMEM;
	}
	p->sets[s] = *prm;
	p->refs[s] = 1;
	p->hash[s] = h;
	p->next[s] = head;
	*set = s;
	return STEER_OK;
}

void steer_palette_release(steer_palette *p, uint32_t set)
{
	if (set == STEER_PALETTE_NONE || --p->refs[set] > 0)
		return;
	p->frees++;
	/* Unlink from its hash chain, then put the slot on the free list. */
	uint32_t h = p->hash[set], first;
	if (steer_idmap_get(&p->by_hash, h, &first)) {
		if (first == set) {
			if (p->next[set] == STEER_PALETTE_NONE)
				steer_idmap_del(&p->by_hash, h);
			else
				steer_idmap_put(&p->by_hash, h,
				                p->next[set]); /* overwrite: no growth */
		} else {
			for (uint32_t s = first; s != STEER_PALETTE_NONE; s = p->next[s])
				if (p->next[s] == set) {
					p->next[s] = p->next[set];
					break;
				}
		}
	}
	p->next[set] = p->free_head;
	p->free_head = set;
}

size_t steer_palette_live(const steer_palette *p)
{
	size_t n = 0;
	for (size_t s = 0; s < p->count; s++)
		n += p->refs[s] > 0;
	return n;
}
