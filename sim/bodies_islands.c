/* The solid rule's islands: a round's table rows joined by its pairs, numbered by
 * their first rows, and each island's contacts gathered in the round's order, all
 * over the world's threads.
 *
 * The islands are the connected parts of the pair graph, which do not depend on the
 * order the pairs are joined in; links always go from a later first row to an
 * earlier one, so an island's first row is its lowest whatever the threads did.
 * The rest is counting: the same numbers and the same lists for any thread count. */
#include <stdatomic.h>
#include <string.h>

#include "bodies_internal.h"
#include "reserve.h"

/* Below this many contacts and rows one thread is quicker than the nine hand-offs
 * between the threads (the Circle at 2,500 has about 3,700: split, its tick spends
 * less time on one thread). */
#define PARALLEL_MIN 2048
/* The most parts, and the most counts a contact or a row may have in scratch: each
 * part counts its contacts per island in its own array, so the parts are as many as
 * these counts allow. */
#define PARTS_MAX      64
#define TALLY_PER_WORK 4
#define KINDS          3 /* circles, pairs, segments */

typedef struct island_job {
	steer_bodies *b;
	int parts;
	/* By kind: the round's contacts, the islands' copies and where each island's
	 * begin; tally[kind] the parts' counts per island, NULL when it has none. */
	const steer_body_buf *from[KINDS];
	steer_body_pair *to[KINDS];
	uint32_t *at[KINDS];
	uint32_t *tally[KINDS];
	size_t islands;
	uint32_t firsts[PARTS_MAX];     /* first rows per part of the rows */
	uint32_t sum[PARTS_MAX][KINDS]; /* contacts per part of the islands */
} island_job;

static steer_status reserve_islands(steer_body_islands *is, const steer_bodies *b)
{
	size_t rows = b->t_count + 1;
	if (rows > is->rows_cap) {
		size_t cap;
		uint32_t **a[] = {&is->of,     &is->circ_at, &is->pair_at,
		                  &is->seg_at, &is->open,    &is->kept};
		if (steer_grow_cap(is->rows_cap, rows, sizeof(uint32_t), &cap) != STEER_OK)
			return STEER_ERR_NOMEM;
		for (size_t k = 0; k < sizeof a / sizeof *a; k++)
			if (steer_resize((void **)a[k], cap, sizeof(uint32_t)) != STEER_OK)
				return STEER_ERR_NOMEM;
		if (steer_resize((void **)&is->up, cap, sizeof *is->up) != STEER_OK)
			return STEER_ERR_NOMEM;
		is->rows_cap = cap;
	}
	size_t sz = sizeof(steer_body_pair);
	if (steer_reserve((void **)&is->circles, &is->circles_cap, b->circles.count + 1, sz) !=
	        STEER_OK ||
	    steer_reserve((void **)&is->pairs, &is->pairs_cap, b->pairs.count + 1, sz) !=
	        STEER_OK ||
	    steer_reserve((void **)&is->segs, &is->segs_cap, b->segs.count + 1, sz) != STEER_OK)
		return STEER_ERR_NOMEM;
	return STEER_OK;
}

/* --- joining ----------------------------------------------------------------------- */

/* Row k's first row as far as the joins so far go, halving the path. A row that is
 * not first never becomes first again, and every link a thread writes is to one of
 * its row's earlier rows, so the halving races with nothing that matters. */
static inline uint32_t first_of(_Atomic uint32_t *up, uint32_t k)
{
	uint32_t u = atomic_load_explicit(&up[k], memory_order_acquire);
	while (u != k) {
		uint32_t g = atomic_load_explicit(&up[u], memory_order_acquire);
		if (g != u)
			atomic_store_explicit(&up[k], g, memory_order_release);
		k = g;
		u = atomic_load_explicit(&up[k], memory_order_acquire);
	}
	return k;
}

/* Joins the islands of rows a and b: the later first row linked to the earlier, by
 * a compare-and-swap that fails when another thread linked it first. */
static void join(_Atomic uint32_t *up, uint32_t a, uint32_t b)
{
	for (;;) {
		a = first_of(up, a);
		b = first_of(up, b);
		if (a == b)
			return;
		uint32_t hi = a > b ? a : b, lo = a > b ? b : a;
		if (atomic_compare_exchange_weak_explicit(&up[hi], &hi, lo, memory_order_acq_rel,
		                                          memory_order_acquire))
			return;
		a = hi; /* hi holds what up[hi] was; b still reaches lo */
		b = lo;
	}
}

static size_t rows_from(const island_job *j, int part)
{
	return steer_part_from(j->b->t_count, part, j->parts);
}

static void start_part(void *arg, int part)
{
	island_job *j = arg;
	_Atomic uint32_t *up = j->b->islands.up;
	for (size_t r = rows_from(j, part), to = rows_from(j, part + 1); r < to; r++)
		atomic_init(&up[r], (uint32_t)r);
}

/* The same on one thread: a plain store, which unlike the compare-and-swap lets the
 * processor run on to the next pair's reads. */
static void join_alone(_Atomic uint32_t *up, uint32_t a, uint32_t b)
{
	a = first_of(up, a);
	b = first_of(up, b);
	if (a != b)
		atomic_store_explicit(&up[a > b ? a : b], a > b ? b : a, memory_order_relaxed);
}

static void join_part(void *arg, int part)
{
	island_job *j = arg;
	const steer_body_buf *pairs = &j->b->pairs;
	_Atomic uint32_t *up = j->b->islands.up;
	size_t from = steer_part_from(pairs->count, part, j->parts);
	size_t to = steer_part_from(pairs->count, part + 1, j->parts);
	if (j->parts == 1)
		for (size_t k = from; k < to; k++)
			join_alone(up, pairs->at[k].a, pairs->at[k].b);
	else
		for (size_t k = from; k < to; k++)
			join(up, pairs->at[k].a, pairs->at[k].b);
}

/* --- numbering ---------------------------------------------------------------------- */

/* Each row's first row (in of, for now), the part's first rows counted. Only rows
 * that are not first are linked anew by the halving, so whether a row is first is
 * settled once the joins are done. One part numbers them as it goes (a first row
 * comes before its island's other rows): number_part and others_part are then
 * not run. */
static void firsts_part(void *arg, int part)
{
	island_job *j = arg;
	_Atomic uint32_t *up = j->b->islands.up;
	uint32_t *of = j->b->islands.of, *open = j->b->islands.open;
	uint32_t firsts = 0;
	size_t from = rows_from(j, part), to = rows_from(j, part + 1);
	if (j->parts > 1) {
		for (size_t r = from; r < to; r++) {
			of[r] = first_of(up, (uint32_t)r);
			firsts += of[r] == r;
		}
	} else {
		for (size_t r = from; r < to; r++) {
			uint32_t f = first_of(up, (uint32_t)r);
			if (f == r)
				open[firsts] = firsts;
			of[r] = f == r ? firsts++ : of[f];
		}
	}
	j->firsts[part] = firsts;
}

static bool is_first(const steer_body_islands *is, size_t r)
{
	return atomic_load_explicit(&is->up[r], memory_order_relaxed) == r;
}

/* First rows numbered in row order, from where the parts before end; every island
 * open. */
static void number_part(void *arg, int part)
{
	island_job *j = arg;
	steer_body_islands *is = &j->b->islands;
	uint32_t n = j->firsts[part];
	for (size_t r = rows_from(j, part), to = rows_from(j, part + 1); r < to; r++)
		if (is_first(is, r)) {
			is->open[n] = n;
			is->of[r] = n++;
		}
}

/* The other rows take their first row's number. */
static void others_part(void *arg, int part)
{
	island_job *j = arg;
	steer_body_islands *is = &j->b->islands;
	for (size_t r = rows_from(j, part), to = rows_from(j, part + 1); r < to; r++)
		if (!is_first(is, r))
			is->of[r] = is->of[is->of[r]];
}

/* --- each island's contacts, in order ----------------------------------------------- */

/* A counting sort by island: each part of a kind's contacts counts its own per
 * island; the counts of (island, part), in part order, place each part's contacts of
 * an island after the earlier parts', so an island's contacts keep their order. */
static uint32_t *tally_of(const island_job *j, int kind, int part)
{
	return j->tally[kind] + (size_t)part * j->islands;
}

static void count_part(void *arg, int part)
{
	island_job *j = arg;
	const uint32_t *of = j->b->islands.of;
	for (int kind = 0; kind < KINDS; kind++) {
		if (!j->tally[kind])
			continue;
		uint32_t *count = tally_of(j, kind, part);
		const steer_body_buf *f = j->from[kind];
		memset(count, 0, j->islands * sizeof *count);
		size_t to = steer_part_from(f->count, part + 1, j->parts);
		for (size_t k = steer_part_from(f->count, part, j->parts); k < to; k++)
			count[of[f->at[k].a]]++;
	}
}

static size_t islands_from(const island_job *j, int part)
{
	return steer_part_from(j->islands, part, j->parts);
}

static void sum_part(void *arg, int part)
{
	island_job *j = arg;
	size_t from = islands_from(j, part), to = islands_from(j, part + 1);
	for (int kind = 0; kind < KINDS; kind++) {
		uint32_t sum = 0;
		for (int p = 0; j->tally[kind] && p < j->parts; p++) {
			const uint32_t *count = tally_of(j, kind, p);
			for (size_t i = from; i < to; i++)
				sum += count[i];
		}
		j->sum[part][kind] = sum;
	}
}

/* Where each island's contacts begin, and each part's within them. */
static void begin_part(void *arg, int part)
{
	island_job *j = arg;
	size_t from = islands_from(j, part), to = islands_from(j, part + 1);
	for (int kind = 0; kind < KINDS; kind++) {
		uint32_t at = j->sum[part][kind];
		if (!j->tally[kind]) { /* no contacts of this kind */
			memset(j->at[kind] + from, 0, (to - from) * sizeof *j->at[kind]);
			continue;
		}
		uint32_t *begin = j->at[kind], *tally = j->tally[kind];
		size_t islands = j->islands, parts = (size_t)j->parts;
		for (size_t i = from; i < to; i++) {
			begin[i] = at;
			for (size_t p = 0; p < parts; p++) { /* (island, part) order */
				uint32_t c = tally[p * islands + i];
				tally[p * islands + i] = at;
				at += c;
			}
		}
	}
}

static void place_part(void *arg, int part)
{
	island_job *j = arg;
	const uint32_t *of = j->b->islands.of;
	for (int kind = 0; kind < KINDS; kind++) {
		if (!j->tally[kind])
			continue;
		uint32_t *cursor = tally_of(j, kind, part);
		const steer_body_buf *f = j->from[kind];
		size_t to = steer_part_from(f->count, part + 1, j->parts);
		for (size_t k = steer_part_from(f->count, part, j->parts); k < to; k++)
			j->to[kind][cursor[of[f->at[k].a]]++] = f->at[k];
	}
}

/* Parts for the counting sort: the threads, as far as the counts' room allows. */
static steer_status reserve_tally(steer_body_islands *is, island_job *j, size_t work)
{
	size_t kinds = 0;
	for (int kind = 0; kind < KINDS; kind++)
		kinds += j->from[kind]->count > 0;
	size_t per_part = kinds * j->islands;
	while (j->parts > 1 && per_part * (size_t)j->parts > TALLY_PER_WORK * work)
		j->parts--;
	if (steer_reserve((void **)&is->tally, &is->tally_cap, per_part * (size_t)j->parts + 1,
	                  sizeof *is->tally) != STEER_OK)
		return STEER_ERR_NOMEM;
	uint32_t *at = is->tally;
	for (int kind = 0; kind < KINDS; kind++) {
		j->tally[kind] = j->from[kind]->count > 0 ? at : NULL;
		if (j->tally[kind])
			at += j->islands * (size_t)j->parts;
	}
	return STEER_OK;
}

static void run(const steer_world *w, void (*fn)(void *, int), island_job *j)
{
	steer_pool_run(w->pool, fn, j, j->parts);
}

steer_status steer_bodies_open_islands(const steer_world *w, steer_bodies *b)
{
	steer_body_islands *is = &b->islands;
	if (reserve_islands(is, b) != STEER_OK)
		return STEER_ERR_NOMEM;
	size_t work = b->t_count + b->pairs.count + b->circles.count + b->segs.count;
	int threads = steer_pool_threads(w->pool);
	island_job j = {.b = b,
	                .parts = work < PARALLEL_MIN   ? 1
	                         : threads < PARTS_MAX ? threads
	                                               : PARTS_MAX,
	                .from = {&b->circles, &b->pairs, &b->segs},
	                .to = {is->circles, is->pairs, is->segs},
	                .at = {is->circ_at, is->pair_at, is->seg_at}};
	run(w, start_part, &j);
	run(w, join_part, &j);
	run(w, firsts_part, &j);
	uint32_t n = 0;
	for (int p = 0; p < j.parts; p++) {
		uint32_t c = j.firsts[p];
		j.firsts[p] = n;
		n += c;
	}
	if (j.parts > 1) {
		run(w, number_part, &j);
		run(w, others_part, &j);
	}
	is->count = j.islands = n;
	if (reserve_tally(is, &j, work) != STEER_OK)
		return STEER_ERR_NOMEM;
	run(w, count_part, &j);
	if (j.parts > 1) /* one part's islands begin from 0 */
		run(w, sum_part, &j);
	else
		memset(j.sum[0], 0, sizeof j.sum[0]);
	for (int kind = 0; kind < KINDS; kind++) {
		uint32_t at = 0;
		for (int p = 0; p < j.parts; p++) {
			uint32_t c = j.sum[p][kind];
			j.sum[p][kind] = at;
			at += c;
		}
		j.at[kind][n] = (uint32_t)j.from[kind]->count; /* every contact is in an island */
	}
	run(w, begin_part, &j);
	run(w, place_part, &j);
	is->open_count = n;
	return STEER_OK;
}
