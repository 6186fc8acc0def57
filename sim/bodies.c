/* The solid rule: each tick after the moves, the contacts (bodies_contacts.c)
 * resolved in passes until they settle, then the velocities that follow; circles
 * giving way; the whole pass, alone or over parts (bodies_parts.c). */
#include "bodies.h"

#include <math.h>
#include <string.h>

#include "bodies_internal.h"
#include "motion.h"
#include "reserve.h"
#include "world_internal.h"

/* --- resolving them ----------------------------------------------------------------- */

/* A unit direction for two bodies on the same point, from who they are and when. */
static steer_vec2 tie_direction(const steer_world *w, uint32_t a, uint32_t b)
{
	uint64_t lo = a < b ? a : b, hi = a < b ? b : a;
	double t = steer_hash_unit(w->cfg.seed, lo << 32 | hi, w->tick) * STEER_TAU;
	steer_vec2 d = v2(cos(t), sin(t));
	return a < b ? d : v2(-d.x, -d.y);
}

/* Vehicle i out of a segment, all the way (segments do not move): along the normal
 * to the side it was found on when it is beside the segment, else straight away from
 * the nearer end. True when the overlap was above the settling threshold. */
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

/* Room for n rows in the round's table. */
steer_status steer_bodies_table_reserve(steer_bodies *b, size_t n)
{
	if (n <= b->t_cap)
		return STEER_OK;
	size_t cap;
	if (steer_grow_cap(b->t_cap, n, sizeof(double), &cap) != STEER_OK)
		return STEER_ERR_NOMEM;
	void **d[] = {(void **)&b->tx, (void **)&b->ty,  (void **)&b->tr,
	              (void **)&b->tm, (void **)&b->trx, (void **)&b->try_};
	for (size_t k = 0; k < sizeof d / sizeof *d; k++)
		if (steer_resize(d[k], cap, sizeof(double)) != STEER_OK)
			return STEER_ERR_NOMEM;
	if (steer_resize((void **)&b->tid, cap, sizeof *b->tid) != STEER_OK ||
	    steer_resize((void **)&b->tslot, cap, sizeof *b->tslot) != STEER_OK)
		return STEER_ERR_NOMEM;
	b->t_cap = cap;
	return STEER_OK;
}

/* The table's row k: the vehicle at slot i of w as it is now. */
void steer_bodies_table_row(const steer_world *w, steer_bodies *b, size_t k, uint32_t i)
{
	const steer_params *p = steer_bodies_params_of(w, i);
	b->tid[k] = w->v.id[i];
	b->tslot[k] = i;
	b->tx[k] = b->trx[k] = w->v.px[i];
	b->ty[k] = b->try_[k] = w->v.py[i];
	b->tr[k] = p->radius;
	b->tm[k] = p->mass;
}

/* One pass over the contacts, each resolved in turn: vehicles out of the circles (all
 * the way: the obstacles are driven, not pushed), then apart from each other along
 * the line between them (the lighter one further), then out of the segments. What a
 * pass leaves unresolved is then a circle's overlap, which circles_give_way can
 * undo, rather than one between vehicles pressed by a circle. True while some
 * overlap is still above the settling threshold. */
static bool resolve_pass(const steer_world *w, steer_bodies *b, bool wrap)
{
	double *x = b->tx, *y = b->ty;
	const double *rad = b->tr, *mass = b->tm;
	double W = w->cfg.width, H = w->cfg.height;
	bool unsettled = false;
	for (size_t k = 0; k < b->circles.count; k++) {
		uint32_t i = b->circles.at[k].a;
		const steer_obstacle *o = &w->obs[b->circles.at[k].b];
		double r = rad[i];
		double dx = steer_bodies_axis_delta(x[i] - o->x, W, wrap);
		double dy = steer_bodies_axis_delta(y[i] - o->y, H, wrap);
		double rs = o->r + r, d2 = dx * dx + dy * dy;
		if (d2 >= rs * rs)
			continue;
		double d = sqrt(d2), over = rs - d;
		if (over > SETTLED_SHARE * TOLERANCE * fmin(r, o->r))
			unsettled = true;
		steer_vec2 n = d > 0.0 ? v2(dx / d, dy / d) : tie_direction(w, b->tid[i], o->id);
		x[i] += n.x * over;
		y[i] += n.y * over;
		keep_in_bounds(w, &x[i], &y[i]);
	}
	for (size_t k = 0; k < b->pairs.count; k++) {
		uint32_t i = b->pairs.at[k].a, j = b->pairs.at[k].b;
		double dx = steer_bodies_axis_delta(x[j] - x[i], W, wrap);
		double dy = steer_bodies_axis_delta(y[j] - y[i], H, wrap);
		double rs = rad[i] + rad[j], d2 = dx * dx + dy * dy;
		if (d2 >= rs * rs)
			continue;
		double d = sqrt(d2), over = rs - d;
		if (over > SETTLED_SHARE * TOLERANCE * fmin(rad[i], rad[j]))
			unsettled = true;
		steer_vec2 n =
		    d > 0.0 ? v2(dx / d, dy / d) : tie_direction(w, b->tid[i], b->tid[j]);
		double wi = mass[j] / (mass[i] + mass[j]), wj = mass[i] / (mass[i] + mass[j]);
		x[i] -= n.x * over * wi;
		y[i] -= n.y * over * wi;
		x[j] += n.x * over * wj;
		y[j] += n.y * over * wj;
		keep_in_bounds(w, &x[i], &y[i]);
		keep_in_bounds(w, &x[j], &y[j]);
	}
	for (size_t k = 0; k < b->segs.count; k++)
		unsettled |= resolve_segment(w, b, b->segs.at[k].a, b->segs.at[k].b);
	return unsettled;
}

/* Passes until the contacts settle, MAX_PASSES of them, or until the next would
 * take the tick's work past its budget (the tick's first pass always runs).
 *
 * Over parts (sh, collective), each part passes over its own table at once: the
 * islands in different tables share no vehicle, so the order between them changes
 * nothing. The budget counts the whole world's contacts, and the passes go on while
 * any part's are unsettled: every part takes the same passes one world would. */
steer_status steer_bodies_settle(const steer_world *w, steer_bodies *b, bool wrap,
                                 const steer_bodies_share *sh, steer_status st)
{
	uint64_t contacts[1] = {b->pairs.count + b->circles.count + b->segs.count};
	if (sh)
		st = sh->reduce(sh->ud, st, contacts, 1, NULL, 0);
	for (int pass = 0; st == STEER_OK && pass < MAX_PASSES; pass++) {
		if (b->passes > 0 && b->work + contacts[0] > b->budget) {
			b->over_budget = true;
			break;
		}
		b->work += contacts[0];
		b->passes++;
		uint64_t unsettled[1] = {resolve_pass(w, b, wrap)};
		if (sh)
			st = sh->reduce(sh->ud, st, unsettled, 1, NULL, 0);
		if (!unsettled[0])
			break;
	}
	return st;
}

/* The pushes keep centres out of the regions; one pushed in by a crowd all the same
 * goes to the nearest free point. */
steer_status steer_bodies_out_of_regions(steer_world *w, const steer_bodies *b)
{
	size_t nregions = 0;
	(void)steer_geom_regions(w, &nregions);
	for (size_t k = 0; nregions > 0 && k < b->inv_count; k++) {
		if (steer_bodies_is_copy(w, b->inv[k]))
			continue;
		bool moved = false;
		steer_status st = steer_bodies_free_one(w, b->inv[k], &moved);
		if (st != STEER_OK)
			return st;
	}
	return STEER_OK;
}

/* A circle still overlapping a vehicle after the passes has pinned it against what
 * it cannot leave through (an edge, a wall, a packed crowd): the circle gives way, as
 * it does at the world's edges, backing off by the overlap and bouncing off the
 * vehicle. It backs off along the way it came, so it stays within the bounds. True
 * when some circle moved. */
bool steer_bodies_circles_give_way(steer_world *w, const steer_bodies *b, bool wrap)
{
	bool moved = false;
	for (size_t k = 0; k < b->circles.count; k++) {
		uint32_t i = b->circles.at[k].a;
		steer_obstacle *o = &w->obs[b->circles.at[k].b];
		double r = b->tr[i];
		double dx = steer_bodies_axis_delta(b->tx[i] - o->x, w->cfg.width, wrap);
		double dy = steer_bodies_axis_delta(b->ty[i] - o->y, w->cfg.height, wrap);
		double rs = o->r + r, d2 = dx * dx + dy * dy;
		if (d2 >= rs * rs)
			continue;
		double d = sqrt(d2), over = rs - d;
		if (over <= SETTLED_SHARE * TOLERANCE * fmin(r, o->r))
			continue;
		steer_vec2 n = d > 0.0 ? v2(dx / d, dy / d) : tie_direction(w, b->tid[i], o->id);
		o->x -= n.x * over;
		o->y -= n.y * over;
		double vn = o->vx * n.x + o->vy * n.y;
		if (vn > 0.0) {
			o->vx -= 2.0 * vn * n.x;
			o->vy -= 2.0 * vn * n.y;
		}
		moved = true;
	}
	return moved;
}

/* One round: the contacts found, the vehicles in them noted, then passes until they
 * settle. *again: some vehicle went far enough to meet one not found. */
steer_status steer_bodies_round_of(steer_world *w, scan_job *j, bool first, bool *again)
{
	steer_bodies *b = j->b;
	steer_status st = steer_bodies_find_contacts(w, j, first, NULL);
	if (st == STEER_OK)
		st = steer_bodies_table_of_inv(w, b);
	if (st != STEER_OK)
		return st;
	(void)steer_bodies_settle(w, b, j->wrap, NULL, STEER_OK); /* alone, nothing fails */
	*again = steer_bodies_moved_beyond(w, b, j->wrap, 0.5 * j->margin);
	steer_bodies_write_back(w, b);
	return STEER_OK;
}

void steer_world_set_bodies_share(steer_world *w, const steer_bodies_share *share)
{
	w->bodies_shared = share != NULL;
	if (share)
		w->bodies_share = *share;
}

steer_status steer_bodies_resolve(steer_world *w)
{
	steer_bodies *b = &w->bodies;
	if (w->bodies_shared)
		return steer_bodies_resolve_shared(w, &w->bodies_share);
	if (w->v.count == 0)
		return STEER_OK;
	bool freed;
	steer_status st = steer_bodies_guard_moves(w, steer_world_parts(w, w->v.count), &freed);
	if (st == STEER_OK)
		st = steer_bodies_new_marks(w, b);
	if (st != STEER_OK)
		return st;
	double maxr = steer_bodies_largest_radius(w);
	scan_job j = {.w = w,
	              .b = b,
	              .wrap = w->cfg.edges == STEER_EDGE_WRAP,
	              .margin = MARGIN_SHARE * maxr,
	              .parts = steer_world_parts(w, w->v.count)};
	bool again = true;
	b->work = 0;
	b->passes = b->rounds = 0;
	b->budget = (uint64_t)WORK_PER_VEHICLE * w->v.count;
	if (b->budget < WORK_FLOOR)
		b->budget = WORK_FLOOR;
	b->over_budget = false;
	/* A round cut short by the budget ends them: the pile spreads over ticks. */
	for (int r = 0; r < MAX_ROUNDS && again && !b->over_budget; r++) {
		b->rounds++;
		double reach = 2.0 * maxr + j.margin;
		j.near2 = reach * reach;
		st = steer_bodies_round_of(w, &j, r == 0 && !freed, &again);
		if (st != STEER_OK)
			return st;
	}
	if (steer_bodies_circles_give_way(w, b, j.wrap)) {
		/* The vehicles they pressed settle among themselves, the circles clear. */
		(void)steer_bodies_settle(w, b, j.wrap, NULL, STEER_OK);
		steer_bodies_write_back(w, b);
		steer_geom_circles_moved(w);
		(void)steer_geom_update(w); /* NOMEM: queries take the slow path until the next */
	}
	st = steer_bodies_out_of_regions(w, b);
	if (st != STEER_OK)
		return st;
	steer_bodies_settle_velocities(w, b, j.wrap);
	return STEER_OK;
}
