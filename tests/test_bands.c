/* The solid rule's bands (bodies_settle.c): an island of STEER_BAND_MIN contacts or
 * more is cut into bands across y, coloured 0, 1, 2, 0, ..., and the bands of a
 * colour are passed over at once. Piles in a bounce world among circles and across a
 * wrap world's corner: their islands are banded, no vehicle is in the contacts of
 * two bands of one colour (what passing them at once relies on), every contact is
 * in one band, the passes settle the pile, and they give the same bits for any
 * thread count and whichever order the threads take the bands in. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bodies_internal.h"
#include "check.h"
#include "pool.h"
#include "testutil.h"
#include "world_internal.h"

#define ROWS 3000

static uint64_t next(uint64_t *s)
{
	*s = *s * 6364136223846793005u + 1442695040888963407u;
	return *s >> 33;
}

static double unit(uint64_t *s)
{
	return (double)next(s) / (double)(1u << 31);
}

/* The pile's start: ROWS rows of radius 2-3 and mass 1-3 in a disc of radius 90 at
 * (cx, cy), wrapped into a wrap world; every pair that overlaps, in row order, and
 * every row inside one of the world's circles. */
static void make_pile(steer_world *w, double cx, double cy, uint64_t seed)
{
	steer_bodies *b = &w->bodies;
	bool wrap = w->cfg.edges == STEER_EDGE_WRAP;
	double W = w->cfg.width, H = w->cfg.height;
	if (steer_bodies_table_reserve(b, ROWS) != STEER_OK)
		abort();
	uint64_t s = seed;
	for (size_t k = 0; k < ROWS; k++) {
		double a = unit(&s) * STEER_TAU, r = 90.0 * sqrt(unit(&s));
		double x = cx + r * cos(a), y = cy + r * sin(a);
		if (wrap) {
			x -= W * floor(x / W);
			y -= H * floor(y / H);
		}
		b->tx[k] = b->trx[k] = x;
		b->ty[k] = b->try_[k] = y;
		b->tr[k] = 2.0 + (double)(k % 3) * 0.5;
		b->tm[k] = 1.0 + (double)(k % 3);
		b->tid[k] = (uint32_t)k + 1;
		b->tslot[k] = STEER_BODY_ELSEWHERE;
	}
	b->t_count = ROWS;
	b->pairs.count = b->circles.count = b->segs.count = 0;
	for (uint32_t i = 0; i < ROWS; i++)
		for (uint32_t j = i + 1; j < ROWS; j++) {
			double dx = steer_bodies_axis_delta(b->tx[j] - b->tx[i], W, wrap);
			double dy = steer_bodies_axis_delta(b->ty[j] - b->ty[i], H, wrap);
			double rs = b->tr[i] + b->tr[j];
			if (dx * dx + dy * dy < rs * rs)
				steer_bodies_buf_push(&b->pairs, i, j);
		}
	size_t nobs;
	const steer_obstacle *obs = steer_world_obstacles(w, &nobs);
	for (uint32_t i = 0; i < ROWS; i++)
		for (uint32_t o = 0; o < nobs; o++) {
			double dx = steer_bodies_axis_delta(b->tx[i] - obs[o].x, W, wrap);
			double dy = steer_bodies_axis_delta(b->ty[i] - obs[o].y, H, wrap);
			double rs = b->tr[i] + obs[o].r;
			if (dx * dx + dy * dy < rs * rs)
				steer_bodies_buf_push(&b->circles, i, o);
		}
	CHECK(b->pairs.st == STEER_OK && b->circles.st == STEER_OK, "memory");
}

/* The deepest overlap of the pile's pairs, as a share of the smaller radius. */
static double deepest(const steer_world *w)
{
	const steer_bodies *b = &w->bodies;
	bool wrap = w->cfg.edges == STEER_EDGE_WRAP;
	double most = 0.0;
	for (size_t k = 0; k < b->pairs.count; k++) {
		uint32_t i = b->pairs.at[k].a, j = b->pairs.at[k].b;
		double dx = steer_bodies_axis_delta(b->tx[j] - b->tx[i], w->cfg.width, wrap);
		double dy = steer_bodies_axis_delta(b->ty[j] - b->ty[i], w->cfg.height, wrap);
		double over =
		    (b->tr[i] + b->tr[j] - sqrt(dx * dx + dy * dy)) / fmin(b->tr[i], b->tr[j]);
		most = over > most ? over : most;
	}
	return most;
}

/* Each banded island's contacts, each in one band; no row in the contacts of two
 * bands of one colour. Returns the contacts banded. */
static size_t check_bands(const steer_world *w, const char *what)
{
	const steer_body_islands *is = &w->bodies.islands;
	uint32_t *owner = malloc(3 * ROWS * sizeof *owner);
	uint8_t *seen[3] = {calloc(w->bodies.circles.count + 1, 1),
	                    calloc(w->bodies.pairs.count + 1, 1),
	                    calloc(w->bodies.segs.count + 1, 1)};
	if (!owner || !seen[0] || !seen[1] || !seen[2])
		abort();
	size_t banded = 0;
	for (size_t d = 0; d < is->banded_count; d++) {
		const steer_body_banded *isl = &is->banded[d];
		CHECK(is->band_of[isl->island] == d, "%s: island %u's entry", what, isl->island);
		memset(owner, 0xff, 3 * ROWS * sizeof *owner);
		size_t refs = 0;
		for (int c = 0; c < 3; c++)
			for (uint32_t r = isl->run[c]; r < isl->run[c + 1]; r++)
				for (uint32_t k = is->band_run[r]; k < is->band_run[r + 1];
				     k++, refs++) {
					uint32_t ref = is->band_ref[k],
					         kind = ref >> STEER_BAND_KIND_SHIFT;
					uint32_t at = ref & ((1u << STEER_BAND_KIND_SHIFT) - 1);
					const uint32_t *from = kind == 0   ? is->circ_at
					                       : kind == 1 ? is->pair_at
					                                   : is->seg_at;
					CHECK(kind < 3 && at >= from[isl->island] &&
					          at < from[isl->island + 1] && !seen[kind][at],
					      "%s: contact %u of kind %u in a band twice or of "
					      "another island",
					      what, at, kind);
					if (kind >= 3 || seen[kind][at])
						continue;
					seen[kind][at] = 1;
					steer_body_pair p = kind == 0   ? is->circles[at]
					                    : kind == 1 ? is->pairs[at]
					                                : is->segs[at];
					uint32_t rows[2] = {p.a, p.b};
					for (int m = 0; m < (kind == 1 ? 2 : 1); m++) {
						uint32_t *o = &owner[(size_t)c * ROWS + rows[m]];
						CHECK(*o == UINT32_MAX || *o == r,
						      "%s: row %u in bands %u and %u of colour %d",
						      what, rows[m], *o, r, c);
						*o = r;
					}
				}
		uint32_t i = isl->island;
		size_t contacts = (size_t)(is->circ_at[i + 1] - is->circ_at[i]) +
		                  (is->pair_at[i + 1] - is->pair_at[i]) +
		                  (is->seg_at[i + 1] - is->seg_at[i]);
		CHECK(refs == contacts, "%s: island %u has %zu contacts, its bands %zu", what, i,
		      contacts, refs);
		CHECK(contacts >= STEER_BAND_MIN, "%s: an island of %zu contacts banded", what,
		      contacts);
		banded += refs;
	}
	free(owner);
	for (int k = 0; k < 3; k++)
		free(seen[k]);
	return banded;
}

static void a_pile(const char *what, steer_world *w, double cx, double cy)
{
	static const int counts[] = {1, 2, 3, 7, 16};
	steer_bodies *b = &w->bodies;
	bool wrap = w->cfg.edges == STEER_EDGE_WRAP;
	double *x0 = NULL, *y0 = NULL;
	double before = 0.0;
	for (size_t c = 0; c < sizeof counts / sizeof *counts; c++) {
		CHECK(steer_world_set_threads(w, counts[c]) == STEER_OK, "threads");
		for (int reverse = 0; reverse < 2; reverse++) {
			steer_pool_set_reverse(w->pool, reverse);
			make_pile(w, cx, cy, 7);
			if (!x0)
				before = deepest(w);
			b->work = b->passes = 0;
			b->budget = UINT64_MAX / 2;
			CHECK(steer_bodies_settle(w, b, wrap, NULL, STEER_OK) == STEER_OK,
			      "%s: settle", what);
			size_t banded = check_bands(w, what);
			CHECK(banded * 2 > b->pairs.count, "%s: %zu of %zu contacts banded", what,
			      banded, b->pairs.count + b->circles.count);
			if (!x0) {
				x0 = malloc(ROWS * sizeof *x0);
				y0 = malloc(ROWS * sizeof *y0);
				if (!x0 || !y0)
					abort();
				memcpy(x0, b->tx, ROWS * sizeof *x0);
				memcpy(y0, b->ty, ROWS * sizeof *y0);
				double after = deepest(w);
				CHECK(before > 1.0 && after < TOLERANCE,
				      "%s: the deepest overlap went from %g to %g of a radius",
				      what, before, after);
			} else {
				CHECK(memcmp(x0, b->tx, ROWS * sizeof *x0) == 0 &&
				          memcmp(y0, b->ty, ROWS * sizeof *y0) == 0,
				      "%s: %d threads%s differ from one", what, counts[c],
				      reverse ? ", parts last first," : "");
			}
		}
	}
	steer_world_set_threads(w, 1);
	free(x0);
	free(y0);
}

static void a_pile_among_circles(void)
{
	steer_world *w = make_world(400, 400, STEER_EDGE_BOUNCE, 1);
	uint32_t id;
	CHECK(steer_obstacle_add(w, v2(180, 200), v2(0, 0), 15, &id) == STEER_OK &&
	          steer_obstacle_add(w, v2(230, 170), v2(0, 0), 10, &id) == STEER_OK,
	      "circles");
	a_pile("bounce world", w, 200, 200);
	steer_world_destroy(w);
}

static void a_pile_across_the_seams(void)
{
	steer_world *w = make_world(600, 366, STEER_EDGE_WRAP, 2);
	a_pile("wrap world", w, 3, 5);
	steer_world_destroy(w);
}

int main(void)
{
	RUN(a_pile_among_circles);
	RUN(a_pile_across_the_seams);
	return CHECK_DONE();
}
