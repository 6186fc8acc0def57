/* The solid pass's per-vehicle work, split over the world's threads: noting the
 * vehicles a round's contacts involve, their rows in the round's table, writing the
 * table back and the velocities the pushes imply. Each part owns a range of slots or
 * of rows and writes only those, so the result is the same for any thread count; the
 * rows come in the order (round first involved, slot), which the passes never look
 * at: they go through the contacts in the contacts' own order. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bodies_internal.h"
#include "motion.h"
#include "reserve.h"
#include "sort_u32.h"

/* --- the vehicles a round involves ---------------------------------------------- */

typedef struct involve_job {
	steer_world *w;
	steer_bodies *b;
	int parts;
	size_t from; /* the round's first new row */
} involve_job;

/* Below this many, sorting by insertion costs less than one radix pass's table of
 * 2,049 counts (a round of a small jam notes a few dozen vehicles). */
#define SORT_SLOTS_INSERTION 96

/* Sorts a[0..n) ascending by three passes of 11 bits (slots are below 2^32 and
 * nothing here is near it: the passes over higher bits are skipped when every value
 * is below them), through tmp of n; a short list by insertion. */
static void sort_slots(uint32_t *a, uint32_t *tmp, size_t n, uint32_t top)
{
	if (n <= SORT_SLOTS_INSERTION) {
		steer_sort_u32_insertion(a, n);
		return;
	}
	uint32_t *from = a, *to = tmp;
	for (int shift = 0; shift < 33 && (shift == 0 || (top >> shift) != 0); shift += 11) {
		size_t count[2049] = {0};
		for (size_t k = 0; k < n; k++)
			count[((from[k] >> shift) & 2047u) + 1]++;
		for (int d = 0; d < 2048; d++)
			count[d + 1] += count[d];
		for (size_t k = 0; k < n; k++)
			to[count[(from[k] >> shift) & 2047u]++] = from[k];
		uint32_t *t = from;
		from = to;
		to = t;
	}
	if (from != a)
		memcpy(a, from, n * sizeof *a);
}

/* Vehicle i, when in this part's slots [lo, hi) and not yet involved this tick,
 * marked and listed. */
static inline void note(steer_bodies *b, steer_slot_list *l, uint32_t i, uint32_t lo, uint32_t hi)
{
	if (i < lo || i >= hi || b->mark[i] == b->gen)
		return;
	b->mark[i] = b->gen;
	if (l->count == l->cap &&
	    steer_reserve((void **)&l->at, &l->cap, l->count + 1, sizeof *l->at) != STEER_OK) {
		l->st = STEER_ERR_NOMEM;
		return;
	}
	l->at[l->count++] = i;
}

/* Part p reads every contact and keeps the new vehicles among its own slots, in
 * slot order: the parts' lists one after another are all of them in slot order. */
static void involve_find(void *arg, int part)
{
	involve_job *j = arg;
	steer_bodies *b = j->b;
	/* The list's count is written at every vehicle noted: kept on this thread's
	 * stack while the part runs, as the parts' lists lie side by side and would
	 * share cache lines. */
	steer_slot_list list = b->fresh[part], *l = &list;
	size_t n = j->w->v.count;
	uint32_t lo = (uint32_t)steer_part_from(n, part, j->parts);
	uint32_t hi = (uint32_t)steer_part_from(n, part + 1, j->parts);
	l->count = 0;
	l->st = STEER_OK;
	for (size_t k = 0; k < b->pairs.count; k++) {
		note(b, l, b->pairs.at[k].a, lo, hi);
		note(b, l, b->pairs.at[k].b, lo, hi);
	}
	for (size_t k = 0; k < b->circles.count; k++)
		note(b, l, b->circles.at[k].a, lo, hi);
	for (size_t k = 0; k < b->segs.count; k++)
		note(b, l, b->segs.at[k].a, lo, hi);
	if (l->st == STEER_OK && l->count >= 2) {
		if (steer_reserve((void **)&l->tmp, &l->tmp_cap, l->count, sizeof *l->tmp) ==
		    STEER_OK)
			sort_slots(l->at, l->tmp, l->count, hi);
		else
			l->st = STEER_ERR_NOMEM;
	}
	b->fresh[part] = list;
}

/* Part p's new vehicles into their rows of inv, with where they are and how fast
 * they go (the moves' result: no push has touched a vehicle not yet involved). */
static void involve_write(void *arg, int part)
{
	involve_job *j = arg;
	steer_bodies *b = j->b;
	const steer_vehicles *v = &j->w->v;
	size_t at = j->from;
	for (int p = 0; p < part; p++)
		at += b->fresh[p].count;
	const steer_slot_list *l = &b->fresh[part];
	for (size_t k = 0; k < l->count; k++, at++) {
		uint32_t i = l->at[k];
		b->inv[at] = i;
		b->ox[at] = v->px[i];
		b->oy[at] = v->py[i];
		b->ovx[at] = v->vx[i];
		b->ovy[at] = v->vy[i];
		b->mark_at[i] = (uint32_t)at;
	}
}

static steer_status grow_inv(steer_bodies *b, size_t n)
{
	if (n <= b->inv_cap)
		return STEER_OK;
	size_t cap;
	if (steer_grow_cap(b->inv_cap, n, sizeof(double), &cap) != STEER_OK)
		return STEER_ERR_NOMEM;
	void **arr[] = {(void **)&b->ox, (void **)&b->oy, (void **)&b->ovx, (void **)&b->ovy};
	for (size_t k = 0; k < sizeof arr / sizeof *arr; k++)
		if (steer_resize(arr[k], cap, sizeof(double)) != STEER_OK)
			return STEER_ERR_NOMEM;
	if (steer_resize((void **)&b->inv, cap, sizeof *b->inv) != STEER_OK)
		return STEER_ERR_NOMEM;
	b->inv_cap = cap;
	return STEER_OK;
}

steer_status steer_bodies_involve(steer_world *w, steer_bodies *b)
{
	size_t contacts = b->pairs.count + b->circles.count + b->segs.count;
	involve_job j = {w, b, steer_world_parts(w, contacts), b->inv_count};
	steer_pool_run(w->pool, involve_find, &j, j.parts);
	size_t added = 0;
	for (int p = 0; p < j.parts; p++) {
		if (b->fresh[p].st != STEER_OK)
			return b->fresh[p].st;
		added += b->fresh[p].count;
	}
	if (grow_inv(b, b->inv_count + added) != STEER_OK)
		return STEER_ERR_NOMEM;
	steer_pool_run(w->pool, involve_write, &j, j.parts);
	b->inv_count += added;
	return STEER_OK;
}

/* --- the round's table ---------------------------------------------------------- */

typedef struct rows_job {
	steer_world *w;
	steer_bodies *b;
	int parts;
	bool wrap;
	double limit; /* moved_part: how far is too far */
	bool moved[STEER_POOL_MAX_THREADS];
} rows_job;

static void table_part(void *arg, int part)
{
	rows_job *j = arg;
	steer_bodies *b = j->b;
	size_t to = steer_part_from(b->inv_count, part + 1, j->parts);
	for (size_t k = steer_part_from(b->inv_count, part, j->parts); k < to; k++)
		steer_bodies_table_row(j->w, b, k, b->inv[k]);
	/* The contacts name rows from here on. */
	steer_body_buf *lists[] = {&b->pairs, &b->circles, &b->segs};
	for (int l = 0; l < 3; l++) {
		steer_body_buf *c = lists[l];
		size_t end = steer_part_from(c->count, part + 1, j->parts);
		for (size_t k = steer_part_from(c->count, part, j->parts); k < end; k++) {
			c->at[k].a = b->mark_at[c->at[k].a];
			if (l == 0)
				c->at[k].b = b->mark_at[c->at[k].b];
		}
	}
}

steer_status steer_bodies_table_of_inv(steer_world *w, steer_bodies *b)
{
	if (steer_bodies_table_reserve(b, b->inv_count) != STEER_OK)
		return STEER_ERR_NOMEM;
	rows_job j = {.w = w, .b = b, .parts = steer_world_parts(w, b->inv_count)};
	steer_pool_run(w->pool, table_part, &j, j.parts);
	b->t_count = b->inv_count;
	return STEER_OK;
}

static void write_back_part(void *arg, int part)
{
	rows_job *j = arg;
	const steer_bodies *b = j->b;
	steer_vehicles *v = &j->w->v;
	size_t to = steer_part_from(b->t_count, part + 1, j->parts);
	for (size_t k = steer_part_from(b->t_count, part, j->parts); k < to; k++) {
		uint32_t i = b->tslot[k];
		if (i != STEER_BODY_ELSEWHERE) {
			v->px[i] = b->tx[k];
			v->py[i] = b->ty[k];
		}
	}
}

void steer_bodies_write_back(steer_world *w, steer_bodies *b)
{
	rows_job j = {.w = w, .b = b, .parts = steer_world_parts(w, b->t_count)};
	steer_pool_run(w->pool, write_back_part, &j, j.parts);
}

static void moved_part(void *arg, int part)
{
	rows_job *j = arg;
	const steer_bodies *b = j->b;
	const steer_world *w = j->w;
	size_t to = steer_part_from(b->t_count, part + 1, j->parts);
	j->moved[part] = false;
	for (size_t k = steer_part_from(b->t_count, part, j->parts); k < to; k++) {
		double dx = steer_bodies_axis_delta(b->tx[k] - b->trx[k], w->cfg.width, j->wrap);
		double dy = steer_bodies_axis_delta(b->ty[k] - b->try_[k], w->cfg.height, j->wrap);
		if (dx * dx + dy * dy > j->limit * j->limit) {
			j->moved[part] = true;
			return;
		}
	}
}

bool steer_bodies_moved_beyond(steer_world *w, steer_bodies *b, bool wrap, double limit)
{
	rows_job j = {.w = w,
	              .b = b,
	              .parts = steer_world_parts(w, b->t_count),
	              .wrap = wrap,
	              .limit = limit};
	steer_pool_run(w->pool, moved_part, &j, j.parts);
	for (int p = 0; p < j.parts; p++)
		if (j.moved[p])
			return true;
	return false;
}

/* The velocities the corrected motion implies: the move's velocity plus the push
 * over the tick, never faster than the move's, so that a push stops a vehicle
 * pressing into what it met without launching it; then the edges' rule. */
static void velocities_part(void *arg, int part)
{
	rows_job *j = arg;
	const steer_bodies *b = j->b;
	steer_world *w = j->w;
	steer_vehicles *v = &w->v;
	double dt = steer_world_dt(w);
	size_t to = steer_part_from(b->inv_count, part + 1, j->parts);
	for (size_t k = steer_part_from(b->inv_count, part, j->parts); k < to; k++) {
		uint32_t i = b->inv[k];
		double cx = steer_bodies_axis_delta(v->px[i] - b->ox[k], w->cfg.width, j->wrap);
		double cy = steer_bodies_axis_delta(v->py[i] - b->oy[k], w->cfg.height, j->wrap);
		double vx = b->ovx[k] + cx / dt, vy = b->ovy[k] + cy / dt;
		double s2 = vx * vx + vy * vy, o2 = b->ovx[k] * b->ovx[k] + b->ovy[k] * b->ovy[k];
		if (s2 > o2) {
			double f = s2 > 0.0 ? sqrt(o2 / s2) : 0.0;
			vx *= f;
			vy *= f;
		}
		v->vx[i] = vx;
		v->vy[i] = vy;
		steer_apply_edges(&w->cfg, &v->px[i], &v->py[i], &v->vx[i], &v->vy[i]);
	}
}

void steer_bodies_settle_velocities(steer_world *w, steer_bodies *b, bool wrap)
{
	rows_job j = {.w = w, .b = b, .parts = steer_world_parts(w, b->inv_count), .wrap = wrap};
	steer_pool_run(w->pool, velocities_part, &j, j.parts);
}
