/* The solid rule: each tick after the moves, the contacts (bodies_contacts.c)
 * resolved in passes until they settle (bodies_settle.c), then the velocities that
 * follow; circles giving way; the whole pass, alone or over parts (bodies_parts.c). */
#include "bodies.h"

#include <math.h>
#include <string.h>

#include "bodies_internal.h"
#include "motion.h"
#include "reserve.h"
#include "world_internal.h"

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
		steer_vec2 n =
		    d > 0.0 ? v2(dx / d, dy / d) : steer_bodies_tie_direction(w, b->tid[i], o->id);
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
