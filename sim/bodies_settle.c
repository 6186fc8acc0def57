/* The passes over a round's contacts: the table's islands (rows joined by pairs),
 * each passed over until it settles, over the world's threads.
 *
 * Islands share no row, and what a contact reads besides its rows (the circles, the
 * segments) does not move during the passes: an island's passes give the same bits
 * whichever thread runs them and whatever the other islands do. An island that has
 * settled is passed over no more, so the budget goes to the islands still pressed
 * (a jam), not to the many that a first pass settled. */
#include <math.h>
#include <string.h>

#include "bodies_internal.h"

/* Each thread takes this many parts of a pass's islands, so that a thread held up
 * by a big island leaves the rest to the others. */
#define PARTS_PER_THREAD 4
#define MAX_PARTS        (STEER_POOL_MAX_THREADS * PARTS_PER_THREAD)

steer_vec2 steer_bodies_tie_direction(const steer_world *w, uint32_t a, uint32_t b)
{
	uint64_t lo = a < b ? a : b, hi = a < b ? b : a;
	double t = steer_hash_unit(w->cfg.seed, lo << 32 | hi, w->tick) * STEER_TAU;
	steer_vec2 d = v2(cos(t), sin(t));
	return a < b ? d : v2(-d.x, -d.y);
}

static uint64_t contacts_of(const steer_body_islands *is, uint32_t i)
{
	return (uint64_t)(is->circ_at[i + 1] - is->circ_at[i]) +
	       (is->pair_at[i + 1] - is->pair_at[i]) + (is->seg_at[i + 1] - is->seg_at[i]);
}

/* --- resolving them ------------------------------------------------------------------ */

/* Vehicle row i out of a segment, all the way (segments do not move): along the
 * normal to the side it was found on when it is beside the segment, else straight
 * away from the nearer end. True when the overlap was above the settling threshold. */
static bool resolve_segment(const steer_world *w, steer_bodies *b, uint32_t i, uint32_t mark)
{
	size_t nsegs = 0;
	const steer_segment *s = &steer_geom_segments(w, &nsegs)[mark & ~SIDE_BIT];
	double r = b->tr[i];
	steer_vec2 a, e;
	steer_geom_seg_rel(w, s, v2(b->tx[i], b->ty[i]), &a, &e);
	steer_vec2 n = mark & SIDE_BIT ? v2_scale(s->n, -1.0) : s->n;
	steer_vec2 ab = v2_sub(e, a);
	double l2 = v2_len2(ab), u = l2 > 0.0 ? -v2_dot(a, ab) / l2 : 0.0;
	double over;
	if (u > 0.0 && u < 1.0) {
		over = r + v2_dot(a, n); /* r minus the centre's height above the segment */
	} else {
		steer_vec2 q = u <= 0.0 ? a : e;
		double d = sqrt(v2_len2(q));
		over = r - d;
		if (d > 0.0)
			n = v2_scale(q, -1.0 / d);
	}
	if (over <= 0.0)
		return false;
	b->tx[i] += n.x * over;
	b->ty[i] += n.y * over;
	return over > SETTLED_SHARE * TOLERANCE * r;
}

/* A vehicle pushed past a bounce world's edge goes back to it at once, as the edges'
 * rule would after the pass, so that the next passes see where it will be: a body
 * pressed against the edge then slides along it rather than being pushed through,
 * out of sight of the passes. */
static inline void keep_in_bounds(const steer_world *w, double *x, double *y)
{
	if (w->cfg.edges != STEER_EDGE_BOUNCE)
		return;
	*x = fmin(fmax(*x, 0.0), w->cfg.width);
	*y = fmin(fmax(*y, 0.0), w->cfg.height);
}

/* One pass over island i's contacts, each resolved in turn: vehicles out of the
 * circles (all the way: the obstacles are driven, not pushed), then apart from each
 * other along the line between them (the lighter one further), then out of the
 * segments. What a pass leaves unresolved is then a circle's overlap, which the
 * circles' giving way can undo, rather than one between vehicles pressed by a
 * circle. True while some overlap is still above the settling threshold. */
static bool resolve_island(const steer_world *w, steer_bodies *b, bool wrap, uint32_t i)
{
	const steer_body_islands *is = &b->islands;
	double *x = b->tx, *y = b->ty;
	const double *rad = b->tr, *mass = b->tm;
	double W = w->cfg.width, H = w->cfg.height;
	bool unsettled = false;
	for (uint32_t k = is->circ_at[i]; k < is->circ_at[i + 1]; k++) {
		uint32_t a = is->circles[k].a;
		const steer_obstacle *o = &w->obs[is->circles[k].b];
		double r = rad[a];
		double dx = steer_bodies_axis_delta(x[a] - o->x, W, wrap);
		double dy = steer_bodies_axis_delta(y[a] - o->y, H, wrap);
		double rs = o->r + r, d2 = dx * dx + dy * dy;
		if (d2 >= rs * rs)
			continue;
		double d = sqrt(d2), over = rs - d;
		if (over > SETTLED_SHARE * TOLERANCE * fmin(r, o->r))
			unsettled = true;
		steer_vec2 n =
		    d > 0.0 ? v2(dx / d, dy / d) : steer_bodies_tie_direction(w, b->tid[a], o->id);
		x[a] += n.x * over;
		y[a] += n.y * over;
		keep_in_bounds(w, &x[a], &y[a]);
	}
	for (uint32_t k = is->pair_at[i]; k < is->pair_at[i + 1]; k++) {
		uint32_t a = is->pairs[k].a, c = is->pairs[k].b;
		double dx = steer_bodies_axis_delta(x[c] - x[a], W, wrap);
		double dy = steer_bodies_axis_delta(y[c] - y[a], H, wrap);
		double rs = rad[a] + rad[c], d2 = dx * dx + dy * dy;
		if (d2 >= rs * rs)
			continue;
		double d = sqrt(d2), over = rs - d;
		if (over > SETTLED_SHARE * TOLERANCE * fmin(rad[a], rad[c]))
			unsettled = true;
		steer_vec2 n = d > 0.0 ? v2(dx / d, dy / d)
		                       : steer_bodies_tie_direction(w, b->tid[a], b->tid[c]);
		double wa = mass[c] / (mass[a] + mass[c]), wc = mass[a] / (mass[a] + mass[c]);
		x[a] -= n.x * over * wa;
		y[a] -= n.y * over * wa;
		x[c] += n.x * over * wc;
		y[c] += n.y * over * wc;
		keep_in_bounds(w, &x[a], &y[a]);
		keep_in_bounds(w, &x[c], &y[c]);
	}
	for (uint32_t k = is->seg_at[i]; k < is->seg_at[i + 1]; k++)
		unsettled |= resolve_segment(w, b, is->segs[k].a, is->segs[k].b);
	return unsettled;
}

/* One pass over the open islands, split into parts: each part keeps those of its
 * islands still unsettled in kept, from its first island's place on, and counts
 * their contacts. */
typedef struct pass_job {
	const steer_world *w;
	steer_bodies *b;
	bool wrap;
	int parts;
	uint32_t kept[MAX_PARTS];
	uint64_t left[MAX_PARTS];
} pass_job;

static void pass_part(void *arg, int part)
{
	pass_job *j = arg;
	steer_body_islands *is = &j->b->islands;
	size_t from = steer_part_from(is->open_count, part, j->parts);
	size_t to = steer_part_from(is->open_count, part + 1, j->parts);
	uint32_t kept = 0;
	uint64_t left = 0;
	for (size_t k = from; k < to; k++) {
		uint32_t i = is->open[k];
		if (resolve_island(j->w, j->b, j->wrap, i)) {
			is->kept[from + kept++] = i;
			left += contacts_of(is, i);
		}
	}
	j->kept[part] = kept;
	j->left[part] = left;
}

/* A pass over the open islands; those still unsettled stay open, in order. Returns
 * their contacts, the next pass's work. */
static uint64_t pass_over(const steer_world *w, steer_bodies *b, bool wrap, uint64_t work)
{
	steer_body_islands *is = &b->islands;
	pass_job j;
	j.w = w;
	j.b = b;
	j.wrap = wrap;
	j.parts = steer_world_parts(w, (size_t)work);
	if (j.parts > 1) {
		size_t most = (size_t)j.parts * PARTS_PER_THREAD;
		j.parts = (int)(is->open_count < most ? is->open_count : most);
	}
	if (j.parts < 1)
		return 0;
	steer_pool_run(w->pool, pass_part, &j, j.parts);
	size_t open = 0;
	uint64_t left = 0;
	for (int p = 0; p < j.parts; p++) {
		size_t from = steer_part_from(is->open_count, p, j.parts);
		memmove(is->open + open, is->kept + from, j.kept[p] * sizeof *is->open);
		open += j.kept[p];
		left += j.left[p];
	}
	is->open_count = open;
	return left;
}

steer_status steer_bodies_settle(const steer_world *w, steer_bodies *b, bool wrap,
                                 const steer_bodies_share *sh, steer_status st)
{
	/* This part's contacts still open, and (contacts) the whole world's. */
	uint64_t mine = b->pairs.count + b->circles.count + b->segs.count;
	uint64_t contacts[1] = {mine};
	if (st == STEER_OK)
		st = steer_bodies_open_islands(w, b);
	if (sh)
		st = sh->reduce(sh->ud, st, contacts, 1, NULL, 0);
	for (int pass = 0; st == STEER_OK && pass < MAX_PASSES && contacts[0] > 0; pass++) {
		if (b->passes > 0 && b->work + contacts[0] > b->budget) {
			b->over_budget = true;
			break;
		}
		b->work += contacts[0];
		b->passes++;
		mine = pass_over(w, b, wrap, mine);
		contacts[0] = mine;
		if (sh)
			st = sh->reduce(sh->ud, st, contacts, 1, NULL, 0);
	}
	return st;
}
