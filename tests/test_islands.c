/* The solid rule's islands (bodies_islands.c): a round's rows joined by its pairs,
 * numbered by their first rows, each island's contacts in the round's order, are
 * those one thread finds by walking the pairs, for any thread count and whichever
 * order the threads take their parts in; on contact sets big enough to be split
 * and small enough for one thread. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bodies_internal.h"
#include "check.h"
#include "pool.h"
#include "testutil.h"

/* What the islands should be, by the plainest means: a union-find on one thread,
 * then each island's contacts picked out in order. */
typedef struct expected {
	uint32_t *of; /* per row */
	size_t count;
	/* By kind (circles, pairs, segments): the contacts island by island, and where
	 * each island's begin. */
	steer_body_pair *list[3];
	uint32_t *at[3];
} expected;

static uint32_t root(uint32_t *up, uint32_t k)
{
	while (up[k] != k)
		k = up[k];
	return k;
}

static int by_key(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

static void expect(const steer_bodies *b, expected *e)
{
	size_t rows = b->t_count;
	uint32_t *up = malloc(rows * sizeof *up);
	e->of = malloc(rows * sizeof *e->of);
	for (size_t r = 0; r < rows; r++)
		up[r] = (uint32_t)r;
	for (size_t k = 0; k < b->pairs.count; k++) {
		uint32_t x = root(up, b->pairs.at[k].a), y = root(up, b->pairs.at[k].b);
		if (x != y)
			up[x > y ? x : y] = x < y ? x : y;
	}
	e->count = 0;
	for (size_t r = 0; r < rows; r++) {
		uint32_t f = root(up, (uint32_t)r);
		e->of[r] = f == r ? (uint32_t)e->count++ : e->of[f];
	}
	const steer_body_buf *from[3] = {&b->circles, &b->pairs, &b->segs};
	for (int kind = 0; kind < 3; kind++) {
		size_t m = from[kind]->count;
		uint64_t *key = malloc((m + 1) * sizeof *key); /* (island, place in the round) */
		for (size_t k = 0; k < m; k++)
			key[k] = (uint64_t)e->of[from[kind]->at[k].a] << 32 | k;
		qsort(key, m, sizeof *key, by_key);
		e->list[kind] = malloc((m + 1) * sizeof *e->list[kind]);
		e->at[kind] = calloc(e->count + 1, sizeof *e->at[kind]);
		for (size_t k = 0; k < m; k++) {
			e->list[kind][k] = from[kind]->at[key[k] & UINT32_MAX];
			e->at[kind][(key[k] >> 32) + 1]++;
		}
		for (size_t i = 0; i < e->count; i++)
			e->at[kind][i + 1] += e->at[kind][i];
		free(key);
	}
	free(up);
}

static void expected_free(expected *e)
{
	free(e->of);
	for (int kind = 0; kind < 3; kind++) {
		free(e->list[kind]);
		free(e->at[kind]);
	}
}

static uint64_t next(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return *s >> 33;
}

/* A round of `rows` rows: pairs mostly between rows near each other (a crowd's
 * neighbours), some far apart (a jam joining far ends of the table, islands that
 * span every part), never a row with itself, sometimes a pair twice; circles and
 * segments on some rows. Listed in a shuffled order, as a search by cells lists them. */
static void make_round(steer_bodies *b, size_t rows, size_t pairs, uint64_t seed)
{
	b->t_count = rows;
	b->pairs.count = b->circles.count = b->segs.count = 0;
	uint64_t s = seed;
	for (size_t k = 0; k < pairs; k++) {
		uint32_t a = (uint32_t)(next(&s) % rows);
		uint32_t c = next(&s) % 64 == 0 ? (uint32_t)(next(&s) % rows)
		                                : (uint32_t)((a + 1 + next(&s) % 6) % rows);
		if (a != c)
			steer_bodies_buf_push(&b->pairs, a, c);
	}
	for (size_t k = 0; k < rows / 8; k++)
		steer_bodies_buf_push(&b->circles, (uint32_t)(next(&s) % rows),
		                      (uint32_t)(next(&s) % 5));
	for (size_t k = 0; k < rows / 16; k++)
		steer_bodies_buf_push(&b->segs, (uint32_t)(next(&s) % rows),
		                      (uint32_t)(next(&s) % 7));
}

/* Every output the last call left overwritten, so that a call that leaves some
 * unwritten cannot pass on what the one before it wrote. */
static void poison(steer_bodies *b)
{
	steer_body_islands *is = &b->islands;
	if (!is->of)
		return;
	size_t rows = b->t_count + 1;
	memset(is->of, 0xff, rows * sizeof *is->of);
	memset(is->open, 0xff, rows * sizeof *is->open);
	memset(is->circ_at, 0xff, rows * sizeof *is->circ_at);
	memset(is->pair_at, 0xff, rows * sizeof *is->pair_at);
	memset(is->seg_at, 0xff, rows * sizeof *is->seg_at);
	memset(is->circles, 0xff, b->circles.count * sizeof *is->circles);
	memset(is->pairs, 0xff, b->pairs.count * sizeof *is->pairs);
	memset(is->segs, 0xff, b->segs.count * sizeof *is->segs);
}

static int same_islands(const steer_bodies *b, const expected *e, const char *what, int threads)
{
	const steer_body_islands *is = &b->islands;
	CHECK(is->count == e->count, "%s, %d threads: %zu islands, not %zu", what, threads,
	      is->count, e->count);
	if (is->count != e->count)
		return 0;
	CHECK(is->open_count == e->count, "%s: %zu open, not every island", what, is->open_count);
	for (size_t i = 0; i < is->open_count; i++)
		if (is->open[i] != i) {
			CHECK(0, "%s: open[%zu] is %u", what, i, is->open[i]);
			return 0;
		}
	if (memcmp(is->of, e->of, b->t_count * sizeof *e->of) != 0) {
		CHECK(0, "%s, %d threads: rows in other islands", what, threads);
		return 0;
	}
	const uint32_t *at[3] = {is->circ_at, is->pair_at, is->seg_at};
	const steer_body_pair *list[3] = {is->circles, is->pairs, is->segs};
	const size_t counts[3] = {b->circles.count, b->pairs.count, b->segs.count};
	for (int kind = 0; kind < 3; kind++) {
		if (memcmp(at[kind], e->at[kind], (e->count + 1) * sizeof *at[kind]) != 0 ||
		    memcmp(list[kind], e->list[kind], counts[kind] * sizeof *list[kind]) != 0) {
			CHECK(0, "%s, %d threads: kind %d's contacts out of order", what, threads,
			      kind);
			return 0;
		}
	}
	return 1;
}

static void rounds_of(size_t rows, size_t pairs, const char *what)
{
	static const int counts[] = {1, 2, 3, 4, 7, 16};
	steer_world *w = make_world(100, 100, STEER_EDGE_WRAP, 1);
	CHECK(w != NULL, "no world");
	if (!w)
		return;
	for (uint64_t seed = 1; seed <= 3; seed++) {
		steer_bodies *b = &w->bodies;
		make_round(b, rows, pairs, seed);
		expected e;
		expect(b, &e);
		for (size_t c = 0; c < sizeof counts / sizeof *counts; c++) {
			CHECK(steer_world_set_threads(w, counts[c]) == STEER_OK, "threads");
			for (int reverse = 0; reverse < 2; reverse++) {
				steer_pool_set_reverse(w->pool, reverse);
				poison(b);
				CHECK(steer_bodies_open_islands(w, b) == STEER_OK, "memory");
				if (!same_islands(b, &e, what, counts[c]))
					break;
			}
		}
		steer_world_set_threads(w, 1);
		expected_free(&e);
	}
	steer_world_destroy(w);
}

static void a_round_too_small_to_split(void)
{
	rounds_of(500, 400, "500 rows");
}

static void a_crowd_split_over_the_threads(void)
{
	rounds_of(20000, 16000, "20,000 rows");
}

/* Every row joined to the next: one island across every part. */
static void one_island_spanning_every_part(void)
{
	steer_world *w = make_world(100, 100, STEER_EDGE_WRAP, 1);
	steer_bodies *b = &w->bodies;
	b->t_count = 9000;
	b->pairs.count = b->circles.count = b->segs.count = 0;
	for (uint32_t r = 8999; r > 0; r--)
		steer_bodies_buf_push(&b->pairs, r, r - 1);
	expected e;
	expect(b, &e);
	CHECK(e.count == 1, "the chain is one island");
	for (int t = 1; t <= 7; t += 3) {
		CHECK(steer_world_set_threads(w, t) == STEER_OK, "threads");
		poison(b);
		CHECK(steer_bodies_open_islands(w, b) == STEER_OK, "memory");
		same_islands(b, &e, "a chain", t);
	}
	expected_free(&e);
	steer_world_destroy(w);
}

/* No pairs, a circle on every row: as many islands as rows, so the parts' counts
 * would take more room than the sort may; it sorts in fewer parts than the
 * threads, and beyond the most parts it ever takes. */
static void as_many_islands_as_rows(void)
{
	static const int counts[] = {1, 2, 16, 65};
	steer_world *w = make_world(100, 100, STEER_EDGE_WRAP, 1);
	steer_bodies *b = &w->bodies;
	b->t_count = 12000;
	b->pairs.count = b->circles.count = b->segs.count = 0;
	for (uint32_t r = 0; r < 12000; r++)
		steer_bodies_buf_push(&b->circles, (r * 7919u) % 12000u, r % 3);
	expected e;
	expect(b, &e);
	CHECK(e.count == 12000, "every row its own island");
	for (size_t c = 0; c < sizeof counts / sizeof *counts; c++) {
		CHECK(steer_world_set_threads(w, counts[c]) == STEER_OK, "threads");
		poison(b);
		CHECK(steer_bodies_open_islands(w, b) == STEER_OK, "memory");
		same_islands(b, &e, "islands of one row", counts[c]);
	}
	expected_free(&e);
	steer_world_destroy(w);
}

int main(void)
{
	RUN(a_round_too_small_to_split);
	RUN(a_crowd_split_over_the_threads);
	RUN(one_island_spanning_every_part);
	RUN(as_many_islands_as_rows);
	return CHECK_DONE();
}
