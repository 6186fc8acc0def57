/* The tick's inner loops, written once against the lanes layer and compiled once per
 * instruction set (see kernel.h; CMake builds this file with each lanes header and
 * its flags). Every line is the scalar code's operation in the scalar code's order,
 * lane by lane, so every form gives the same bits:
 *
 *  - the flock scan: lanes (vehicles of neighbouring cells of one grid row) against
 *    the candidates of the runs they share (steer_flock_runs), each lane taking a
 *    candidate as steer_flock_scan_one would;
 *  - the flock force: steer_flock_parts, steer_cruise_part and steer_combine_parts
 *    (sum) of a plain flocker;
 *  - motion: steer_motion_step's velocity, truncation, position, edges and heading;
 *  - the grid's cells: steer_grid_axis_index of both axes;
 *  - ORCA's lines for bodies: steer_orca_body, each of its three cases computed in
 *    every lane and the lane's own case selected. */
#include "kernel.h"

#if defined(STEER_LANES_AVX512)
#include "lanes_avx512.h"
#elif defined(STEER_LANES_AVX2)
#include "lanes_avx2.h"
#else
#include "lanes_scalar.h"
#endif

#include <math.h>
#include <string.h>

#include "flock.h"
#include "grid.h"
#include "orca.h"
#include "palette.h"

/* The loops below are specialised by compile-time constants (which tests a lane
 * group needs): each must inline into its caller for them to fold. */
#define KERNEL_INLINE static inline __attribute__((always_inline))

/* How often, in candidates, a crowd's lanes are checked for all having reached their
 * cap: often enough that a packed cell stops within a few candidates of it. */
#define CAP_CHECK_EVERY 16u

/* What each lane looks for (see steer_flock_query), and what its separation and
 * force need of it. */
typedef struct lanes {
	ln_d qx, qy;
	/* The heading where the lane has a field of view, else 0: then the "ahead" test
	 * sees dx * 0 + dy * 0, a zero, >= 0 and passes, as the scalar !fov does. */
	ln_d fov_hx, fov_hy;
	ln_d sight2, close2;       /* -1 in dead lanes: they take nothing */
	ln_d group;                /* as doubles, exactly */
	ln_d self;                 /* grid positions */
	uint32_t own_from, own_to; /* the live lanes' grid positions */
	ln_d hx, hy, vx, vy, speed, ids;
	ln_i cap;  /* max_neighbours, INT64_MAX for none */
	ln_i look; /* steer_flock_look_cap, INT64_MAX for none */
	ln_m live;
	ln_d touch2; /* see steer_flock_near (NEAR_TAKEN only) */
} lanes;

/* The running sums. Each starts at +0.0 and so is never -0.0 (see ln_add_if). */
typedef struct lane_sums {
	ln_i n, seen; /* taken; seen (counted where a field of view is tested) */
	ln_d dx, dy, vx, vy, sep_x, sep_y;
	ln_d near2;  /* NEAR_ALL: the least squared distance to a candidate not the lane */
	ln_m near_m; /* NEAR_TAKEN: the lanes that took a candidate within touch2 */
} lane_sums;

/* The tests a lane group needs. Each is a compile-time constant in the specialised
 * loops below: most worlds have one group, many boids no field of view, and
 * dropping a test drops its instructions from every candidate rather than adding a
 * branch to each. Without a field of view every lane's "ahead" test passes; with
 * one group every candidate is in each lane's group; so the same candidates are
 * taken either way. */
typedef struct tests {
	bool fov, group;
	bool self; /* whether the candidate may be a lane itself */
	int near;  /* how the lanes' flags are kept (see steer_flock_near): NEAR_* */
} tests;

/* The flags not kept; kept from every candidate (near2); kept from the candidates
 * taken within the close distance (near_m), for lanes that take every candidate
 * within their sight (no field of view, one group) and whose touch2 is below their
 * close2 and within their sight2: then those are all within touch2, and the test
 * runs only where some lane is close, which most candidates are not. */
enum { NEAR_NONE, NEAR_ALL, NEAR_TAKEN };

static lane_sums sums_zero(void)
{
	lane_sums s = {ln_i_zero(), ln_i_zero(), ln_zero(), ln_zero(),         ln_zero(),
	               ln_zero(),   ln_zero(),   ln_zero(), ln_set1(INFINITY), ln_first(0)};
	return s;
}

/* steer_separate_one for the lanes in close, from a candidate of id other_id:
 * away = d * (-1/|d|), or on top of each other the heading's perpendicular, flipped
 * for the larger id; then away * max_speed - v. */
static inline void separate(ln_m close, ln_d dx, ln_d dy, ln_d d2, const lanes *lc, double other_id,
                            lane_sums *acc)
{
	const ln_d minus1 = ln_set1(-1.0);
	ln_d s = ln_div(minus1, ln_sqrt(d2));
	ln_d ax = ln_mul(dx, s), ay = ln_mul(dy, s);
	/* v2_perp(h) = (-h.y, h.x): a sign flip, not a subtraction from zero. */
	ln_d zx = ln_neg(lc->hy), zy = lc->hx;
	ln_m flip = ln_gt(lc->ids, ln_set1(other_id));
	zx = ln_select(flip, ln_mul(zx, minus1), zx);
	zy = ln_select(flip, ln_mul(zy, minus1), zy);
	ln_m apart = ln_gt(d2, ln_zero());
	ax = ln_select(apart, ax, zx);
	ay = ln_select(apart, ay, zy);
	acc->sep_x = ln_add_if(acc->sep_x, close, ln_sub(ln_mul(ax, lc->speed), lc->vx));
	acc->sep_y = ln_add_if(acc->sep_y, close, ln_sub(ln_mul(ay, lc->speed), lc->vy));
}

/* The candidate in slot c, at grid position k (in every lane), against lanes whose
 * positions, less the run's seam shift, are x and y. capped: whether some lane may
 * reach its cap in this run; open then holds the lanes still under it. A lane is not
 * its own neighbour: its grid position is compared with k, counted along the run. */
KERNEL_INLINE void candidate(const steer_vehicles *v, const lanes *lc, ln_d x, ln_d y, uint32_t c,
                             ln_d k, bool capped, ln_m open, const tests t, lane_sums *acc)
{
	ln_d dx = ln_sub(ln_set1(v->px[c]), x);
	ln_d dy = ln_sub(ln_set1(v->py[c]), y);
	ln_d d2 = ln_add(ln_mul(dx, dx), ln_mul(dy, dy));
	ln_m in = ln_le(d2, lc->sight2);
	if (t.group)
		in = ln_and(in, ln_eq(lc->group, ln_set1((double)v->group[c])));
	if (t.self)
		in = ln_and(in, ln_ne(lc->self, k));
	if (t.fov) { /* seen, then taken only if ahead */
		acc->seen = ln_i_inc_if(acc->seen, capped ? ln_and(in, open) : in);
		in = ln_and(
		    in, ln_ge(ln_add(ln_mul(dx, lc->fov_hx), ln_mul(dy, lc->fov_hy)), ln_zero()));
	}
	/* Every candidate counts here, whatever the lane takes. */
	if (t.near == NEAR_ALL)
		acc->near2 = ln_min(
		    acc->near2, t.self ? ln_select(ln_ne(lc->self, k), d2, ln_set1(INFINITY)) : d2);
	/* Last: the chain from a lane's count through open to its next count is the
	 * capped loop's critical path. */
	if (capped)
		in = ln_and(in, open);
	acc->n = ln_i_inc_if(acc->n, in);
	acc->dx = ln_add_if(acc->dx, in, dx);
	acc->dy = ln_add_if(acc->dy, in, dy);
	acc->vx = ln_add_if(acc->vx, in, ln_set1(v->vx[c]));
	acc->vy = ln_add_if(acc->vy, in, ln_set1(v->vy[c]));
	ln_m close = ln_and(in, ln_lt(d2, lc->close2));
	if (ln_any(close)) {
		separate(close, dx, dy, d2, lc, (double)v->id[c], acc);
		if (t.near == NEAR_TAKEN)
			acc->near_m = ln_or(acc->near_m, ln_and(close, ln_le(d2, lc->touch2)));
	}
}

/* The lanes still taking: under their cap and, where a field of view is tested,
 * under what they look at (steer_flock_look_cap). */
KERNEL_INLINE ln_m open_lanes(const lanes *lc, const lane_sums *acc, const tests t)
{
	ln_m open = ln_i_gt(lc->cap, acc->n);
	return t.fov ? ln_and(open, ln_i_gt(lc->look, acc->seen)) : open;
}

/* The candidates at grid positions [from, to) of a run within which some lane may
 * reach its cap or its look: each lane takes only while under both, and the run ends
 * early once none is. */
KERNEL_INLINE void scan_capped(const steer_vehicles *v, const lanes *lc, ln_d x, ln_d y,
                               const uint32_t *slot, uint32_t from, uint32_t to, const tests t,
                               lane_sums *acc)
{
	const tests self = {t.fov, t.group, true, t.near};
	const ln_d one = ln_set1(1.0);
	ln_d k = ln_set1((double)from);
	for (uint32_t s = from; s < to; s++) {
		ln_m open = open_lanes(lc, acc, t);
		if ((s - from) % CAP_CHECK_EVERY == CAP_CHECK_EVERY - 1 &&
		    !ln_any(ln_and(open, lc->live)))
			break;
		candidate(v, lc, x, y, slot[s], k, true, open, self, acc);
		k = ln_add(k, one);
	}
}

/* The candidates at grid positions [from, to) of a run in which no lane can reach
 * its cap or its look. Only the lanes' own grid positions need the test that a lane is not its
 * own neighbour: the stretches either side go without it. */
KERNEL_INLINE void scan_uncapped(const steer_vehicles *v, const lanes *lc, ln_d x, ln_d y,
                                 const uint32_t *slot, uint32_t from, uint32_t to, const tests t,
                                 lane_sums *acc)
{
	const tests self = {t.fov, t.group, true, t.near};
	const ln_m none = ln_first(0);
	const ln_d one = ln_set1(1.0);
	uint32_t a = lc->own_from < from ? from : lc->own_from > to ? to : lc->own_from;
	uint32_t b = lc->own_to < a ? a : lc->own_to > to ? to : lc->own_to;
	for (uint32_t s = from; s < a; s++)
		candidate(v, lc, x, y, slot[s], one, false, none, t, acc);
	ln_d k = ln_set1((double)a);
	for (uint32_t s = a; s < b; s++) {
		candidate(v, lc, x, y, slot[s], k, false, none, self, acc);
		k = ln_add(k, one);
	}
	for (uint32_t s = b; s < to; s++)
		candidate(v, lc, x, y, slot[s], one, false, none, t, acc);
}

/* The lanes against every candidate of the runs, testing what t says. */
KERNEL_INLINE void scan_runs(const steer_vehicles *v, const steer_flock_runs *runs, const lanes *lc,
                             const tests t, lane_sums *acc)
{
	for (int r = 0; r < runs->count && ln_any(ln_and(open_lanes(lc, acc, t), lc->live)); r++) {
		const ln_d x = ln_sub(lc->qx, ln_set1(runs->r[r].shx));
		const ln_d y = ln_sub(lc->qy, ln_set1(runs->r[r].shy));
		uint32_t from = runs->r[r].from, to = runs->r[r].to;
		const ln_i len = ln_i_set1((int64_t)(to - from));
		ln_m may_close = ln_i_gt(ln_i_add(acc->n, len), lc->cap);
		if (t.fov)
			may_close = ln_or(may_close, ln_i_gt(ln_i_add(acc->seen, len), lc->look));
		if (ln_any(may_close))
			scan_capped(v, lc, x, y, runs->slot, from, to, t, acc);
		else
			scan_uncapped(v, lc, x, y, runs->slot, from, to, t, acc);
	}
}

/* scan_runs compiled once per combination of the tests, each without the
 * instructions of those it does not need. */
KERNEL_INLINE void scan_tests(const steer_vehicles *v, const steer_flock_runs *runs,
                              const lanes *lc, bool fov, bool group, const int near, lane_sums *acc)
{
	if (fov && group)
		scan_runs(v, runs, lc, (tests){true, true, false, near}, acc);
	else if (fov)
		scan_runs(v, runs, lc, (tests){true, false, false, near}, acc);
	else if (group)
		scan_runs(v, runs, lc, (tests){false, true, false, near}, acc);
	else
		scan_runs(v, runs, lc, (tests){false, false, false, near}, acc);
}

KERNEL_INLINE void scan_all(const steer_vehicles *v, const steer_flock_runs *runs, const lanes *lc,
                            bool fov, bool group, int near, lane_sums *acc)
{
	if (near == NEAR_TAKEN)
		scan_runs(v, runs, lc, (tests){false, false, false, NEAR_TAKEN}, acc);
	else if (near == NEAR_ALL)
		scan_tests(v, runs, lc, fov, group, NEAR_ALL, acc);
	else
		scan_tests(v, runs, lc, fov, group, NEAR_NONE, acc);
}

/* The flags of the k live lanes (see steer_flock_near), for grid positions first on:
 * near another, or at their cap, when the runs may have stopped before the end. */
KERNEL_INLINE void note_near(const lanes *lc, const lane_sums *acc, const steer_flock_near *near,
                             size_t first, int k)
{
	ln_m full =
	    ln_andnot(ln_and(ln_i_gt(lc->cap, acc->n), ln_i_gt(lc->look, acc->seen)), lc->live);
	ln_m is = ln_or(ln_or(ln_le(acc->near2, ln_set1(near->touch2)), acc->near_m), full);
	ln_d flag = ln_select(is, ln_set1(1.0), ln_zero());
	if (k == LN_WIDTH) { /* one store, the common case */
		ln_store_u32(near->at + first, flag);
		return;
	}
	uint32_t o[LN_WIDTH];
	ln_store_u32(o, flag);
	for (int l = 0; l < k; l++)
		near->at[first + (size_t)l] = o[l];
}

/* The lanes of queries q[0 .. m-1] (1 <= m <= LN_WIDTH), of the vehicles at grid
 * positions first .. first + m - 1. Dead lanes copy lane 0 and see nothing. */
static void query_lanes(const steer_flock_query *q, size_t first, int m, lanes *lc, bool *fov)
{
	double x[LN_WIDTH], y[LN_WIDTH], fx[LN_WIDTH], fy[LN_WIDTH], s2[LN_WIDTH], c2[LN_WIDTH];
	double g[LN_WIDTH], hx[LN_WIDTH], hy[LN_WIDTH], vx[LN_WIDTH], vy[LN_WIDTH];
	double speed[LN_WIDTH], ids[LN_WIDTH];
	int64_t cap[LN_WIDTH], look[LN_WIDTH];
	*fov = false;
	for (int l = 0; l < LN_WIDTH; l++) {
		const steer_flock_query *e = &q[l < m ? l : 0];
		x[l] = e->x;
		y[l] = e->y;
		fx[l] = e->fov ? e->a->h.x : 0.0;
		fy[l] = e->fov ? e->a->h.y : 0.0;
		s2[l] = l < m ? e->sight2 : -1.0;
		c2[l] = l < m ? e->close2 : -1.0;
		g[l] = (double)e->group;
		hx[l] = e->a->h.x;
		hy[l] = e->a->h.y;
		vx[l] = e->a->v.x;
		vy[l] = e->a->v.y;
		speed[l] = e->a->prm->max_speed;
		ids[l] = (double)e->self_id;
		cap[l] = e->cap ? (int64_t)e->cap : INT64_MAX;
		uint64_t lk = steer_flock_look_cap(e->cap, e->fov);
		look[l] = lk ? (int64_t)lk : INT64_MAX;
		*fov = *fov || e->fov;
	}
	*lc = (lanes){ln_make(x),      ln_make(y),
	              ln_make(fx),     ln_make(fy),
	              ln_make(s2),     ln_make(c2),
	              ln_make(g),      ln_add(ln_set1((double)first), ln_iota()),
	              (uint32_t)first, (uint32_t)first + (uint32_t)m,
	              ln_make(hx),     ln_make(hy),
	              ln_make(vx),     ln_make(vy),
	              ln_make(speed),  ln_make(ids),
	              ln_i_make(cap),  ln_i_make(look),
	              ln_first(m),     ln_zero()};
}

static void scan_lanes(const steer_vehicles *v, const steer_flock_runs *runs, bool one_group,
                       const steer_flock_query *q, size_t first, int m,
                       const steer_flock_near *near, steer_flock_sums *out)
{
	for (int h = 0; h < m; h += LN_WIDTH) {
		int k = m - h < LN_WIDTH ? m - h : LN_WIDTH;
		lanes lc;
		bool fov;
		query_lanes(q + h, first + (size_t)h, k, &lc, &fov);
		lane_sums acc = sums_zero();
		scan_all(v, runs, &lc, fov, !one_group, near ? NEAR_ALL : NEAR_NONE, &acc);
		if (near)
			note_near(&lc, &acc, near, first + (size_t)h, k);
		double o[6][LN_WIDTH];
		int64_t taken[LN_WIDTH];
		ln_store(o[0], acc.sep_x);
		ln_store(o[1], acc.sep_y);
		ln_store(o[2], acc.dx);
		ln_store(o[3], acc.dy);
		ln_store(o[4], acc.vx);
		ln_store(o[5], acc.vy);
		ln_i_store(taken, acc.n);
		for (int l = 0; l < k; l++) {
			memset(&out[h + l], 0, sizeof out[h + l]); /* its padding too */
			out[h + l].sep = v2(o[0][l], o[1][l]);
			out[h + l].d = v2(o[2][l], o[3][l]);
			out[h + l].v = v2(o[4][l], o[5][l]);
			out[h + l].n = (uint32_t)taken[l];
		}
	}
}

/* --- from sums to forces ---------------------------------------------------------- */

/* The force from the lanes' sums: n, the separation sum (sep), the offset sum (d)
 * and the velocity sum (sum_v); their own velocities (vx, vy) and parameters. */
typedef struct force_in {
	ln_d n, sep_x, sep_y, d_x, d_y, sum_vx, sum_vy, vx, vy;
	ln_d w_sep, w_coh, w_ali, speed, max_force;
	ln_d hx, hy, cruise, w_cruise; /* heading; cruise_speed (0: off) and its weight */
} force_in;

/* steer_cohere (a seek of the mean offset), steer_align, the weights, the sum
 * separation + alignment + cohesion from +0, then steer_cruise_part's term where
 * cruise_speed is on, / dt and v2_truncate to max_force. */
KERNEL_INLINE void force(const force_in *in, double dt, ln_d *out_x, ln_d *out_y)
{
	const ln_d zero = ln_zero(), one = ln_set1(1.0);
	const ln_d n = in->n, vx = in->vx, vy = in->vy;
	ln_m has = ln_gt(n, zero);
	ln_d inv = ln_div(one, n);
	ln_d sep_x = ln_mul(in->sep_x, in->w_sep);
	ln_d sep_y = ln_mul(in->sep_y, in->w_sep);
	/* cohesion: seek the mean offset */
	ln_d mdx = ln_mul(in->d_x, inv);
	ln_d mdy = ln_mul(in->d_y, inv);
	ln_d len = ln_sqrt(ln_add(ln_mul(mdx, mdx), ln_mul(mdy, mdy)));
	ln_m some = ln_gt(len, zero);
	ln_d rl = ln_div(one, len);
	ln_d ux = ln_select(some, ln_mul(mdx, rl), zero);
	ln_d uy = ln_select(some, ln_mul(mdy, rl), zero);
	ln_d coh_x = ln_mul(ln_sub(ln_mul(ux, in->speed), vx), in->w_coh);
	ln_d coh_y = ln_mul(ln_sub(ln_mul(uy, in->speed), vy), in->w_coh);
	/* alignment: the mean velocity less our own */
	ln_d ali_x = ln_mul(ln_sub(ln_mul(in->sum_vx, inv), vx), in->w_ali);
	ln_d ali_y = ln_mul(ln_sub(ln_mul(in->sum_vy, inv), vy), in->w_ali);
	/* the sum, in part order; no neighbours: no flock parts, and the empty sum is +0 */
	ln_d sx = ln_select(has, ln_add(ln_add(ln_add(zero, sep_x), ali_x), coh_x), zero);
	ln_d sy = ln_select(has, ln_add(ln_add(ln_add(zero, sep_y), ali_y), coh_y), zero);
	/* cruise, the last part, where it is on */
	ln_m on = ln_gt(in->cruise, zero);
	if (ln_any(on)) {
		ln_d e = ln_sub(in->cruise, ln_sqrt(ln_add(ln_mul(vx, vx), ln_mul(vy, vy))));
		sx = ln_add_if(sx, on, ln_mul(ln_mul(in->hx, e), in->w_cruise));
		sy = ln_add_if(sy, on, ln_mul(ln_mul(in->hy, e), in->w_cruise));
	}
	/* then per second and truncated */
	const ln_d inv_dt = ln_set1(1.0 / dt);
	sx = ln_mul(sx, inv_dt);
	sy = ln_mul(sy, inv_dt);
	const ln_d mf = in->max_force;
	ln_d l2 = ln_add(ln_mul(sx, sx), ln_mul(sy, sy));
	ln_m over = ln_and(ln_gt(l2, ln_mul(mf, mf)), ln_gt(l2, zero));
	ln_d k = ln_div(mf, ln_sqrt(l2));
	*out_x = ln_select(over, ln_mul(sx, k), sx);
	*out_y = ln_select(over, ln_mul(sy, k), sy);
}

static void force_lanes(const steer_agent *a, const steer_flock_sums *sums, int m, double dt,
                        steer_vec2 *out)
{
	for (int h = 0; h < m; h += LN_WIDTH) {
		int k = m - h < LN_WIDTH ? m - h : LN_WIDTH;
		double e[18][LN_WIDTH];
		for (int l = 0; l < LN_WIDTH; l++) { /* dead lanes repeat lane 0 */
			const steer_flock_sums *f = &sums[h + (l < k ? l : 0)];
			const steer_agent *g = &a[h + (l < k ? l : 0)];
			const double lane[18] = {(double)f->n,
			                         f->sep.x,
			                         f->sep.y,
			                         f->d.x,
			                         f->d.y,
			                         f->v.x,
			                         f->v.y,
			                         g->v.x,
			                         g->v.y,
			                         g->prm->separation_weight,
			                         g->prm->cohesion_weight,
			                         g->prm->alignment_weight,
			                         g->prm->max_speed,
			                         g->prm->max_force,
			                         g->h.x,
			                         g->h.y,
			                         g->prm->cruise_speed,
			                         g->prm->cruise_weight};
			for (int j = 0; j < 18; j++)
				e[j][l] = lane[j];
		}
		const force_in in = {ln_make(e[0]),  ln_make(e[1]),  ln_make(e[2]),  ln_make(e[3]),
		                     ln_make(e[4]),  ln_make(e[5]),  ln_make(e[6]),  ln_make(e[7]),
		                     ln_make(e[8]),  ln_make(e[9]),  ln_make(e[10]), ln_make(e[11]),
		                     ln_make(e[12]), ln_make(e[13]), ln_make(e[14]), ln_make(e[15]),
		                     ln_make(e[16]), ln_make(e[17])};
		ln_d sx, sy;
		force(&in, dt, &sx, &sy);
		double ox[LN_WIDTH], oy[LN_WIDTH];
		ln_store(ox, sx);
		ln_store(oy, sy);
		for (int l = 0; l < k; l++)
			out[h + l] = v2(ox[l], oy[l]);
	}
}

/* --- plain flockers, read straight from the arrays -------------------------------- */

/* The lanes of plain flockers in slots s (dead lanes: slot 0), at grid positions
 * first .. first + m - 1, sharing parameters p: every value is the one
 * steer_flock_query_at and the agent give. */
KERNEL_INLINE void plain_lanes(const steer_vehicles *v, bool one_group, size_t first, ln_x s, int m,
                               const steer_params *p, lanes *lc)
{
	const ln_m live = ln_first(m);
	const ln_d hx = ln_gather(v->hx, s), hy = ln_gather(v->hy, s);
	const ln_d none = ln_set1(-1.0), zero = ln_zero();
	*lc = (lanes){
	    ln_gather(v->px, s),
	    ln_gather(v->py, s),
	    p->field_of_view ? hx : zero,
	    p->field_of_view ? hy : zero,
	    ln_select(live, ln_set1(p->sight_distance * p->sight_distance), none),
	    ln_select(live, ln_set1(p->too_close_distance * p->too_close_distance), none),
	    one_group ? zero : ln_gather_u32(v->group, s),
	    ln_add(ln_set1((double)first), ln_iota()),
	    (uint32_t)first,
	    (uint32_t)first + (uint32_t)m,
	    hx,
	    hy,
	    ln_gather(v->vx, s),
	    ln_gather(v->vy, s),
	    ln_set1(p->max_speed),
	    ln_gather_u32(v->id, s),
	    ln_i_set1(p->max_neighbours ? (int64_t)p->max_neighbours : INT64_MAX),
	    ln_i_set1(steer_flock_look_cap(p->max_neighbours, p->field_of_view)
	                  ? (int64_t)steer_flock_look_cap(p->max_neighbours, p->field_of_view)
	                  : INT64_MAX),
	    live,
	    ln_zero()};
}

static void forces_at(const steer_vehicles *v, const steer_flock_runs *runs, bool one_group,
                      size_t first, int m, const steer_params *p, double dt,
                      const steer_flock_near *near, double *fx, double *fy)
{
	for (int h = 0; h < m; h += LN_WIDTH) {
		int k = m - h < LN_WIDTH ? m - h : LN_WIDTH;
		const ln_x s = ln_x_load(runs->slot + first + (size_t)h, k);
		lanes lc;
		plain_lanes(v, one_group, first + (size_t)h, s, k, p, &lc);
		lane_sums acc = sums_zero();
		int kept = NEAR_NONE;
		if (near) {
			double t2 = near->touch2,
			       c2 = p->too_close_distance * p->too_close_distance;
			bool taken = !p->field_of_view && one_group && t2 < c2 &&
			             t2 <= p->sight_distance * p->sight_distance;
			kept = taken ? NEAR_TAKEN : NEAR_ALL;
			lc.touch2 = ln_set1(t2);
		}
		scan_all(v, runs, &lc, p->field_of_view, !one_group, kept, &acc);
		if (near)
			note_near(&lc, &acc, near, first + (size_t)h, k);
		const force_in in = {ln_i_to_d(acc.n),
		                     acc.sep_x,
		                     acc.sep_y,
		                     acc.dx,
		                     acc.dy,
		                     acc.vx,
		                     acc.vy,
		                     lc.vx,
		                     lc.vy,
		                     ln_set1(p->separation_weight),
		                     ln_set1(p->cohesion_weight),
		                     ln_set1(p->alignment_weight),
		                     lc.speed,
		                     ln_set1(p->max_force),
		                     lc.hx,
		                     lc.hy,
		                     ln_set1(p->cruise_speed),
		                     ln_set1(p->cruise_weight)};
		ln_d sx, sy;
		force(&in, dt, &sx, &sy);
		double ox[LN_WIDTH], oy[LN_WIDTH];
		uint32_t at[LN_WIDTH];
		ln_store(ox, sx);
		ln_store(oy, sy);
		ln_x_store(at, s);
		for (int l = 0; l < k; l++) {
			fx[at[l]] = ox[l];
			fy[at[l]] = oy[l];
		}
	}
}

/* --- motion ----------------------------------------------------------------------- */

/* Below this squared speed the heading keeps its last direction. */
#define STILL2 1e-18

/* One axis of steer_apply_edges: the same comparisons, and the same arithmetic where
 * the scalar code does any. */
KERNEL_INLINE void edges_axis(steer_edges edges, double size, ln_d *p, ln_d *vel)
{
	const ln_d zero = ln_zero(), sz = ln_set1(size);
	if (edges == STEER_EDGE_WRAP) {
		ln_m out = ln_or(ln_lt(*p, zero), ln_ge(*p, sz));
		if (!ln_any(out))
			return;
		ln_d t = ln_sub(*p, ln_mul(sz, ln_floor(ln_div(*p, sz))));
		t = ln_select(ln_ge(t, sz), zero, t); /* the rounding of a tiny negative */
		*p = ln_select(out, t, *p);
	} else if (edges == STEER_EDGE_BOUNCE) {
		ln_m lo = ln_lt(*p, zero);
		ln_m hi = ln_andnot(lo, ln_gt(*p, sz));
		*p = ln_select(lo, zero, ln_select(hi, sz, *p));
		ln_d mag = ln_abs(*vel);
		*vel = ln_select(lo, mag, ln_select(hi, ln_neg(mag), *vel));
	} else {
		const ln_d bound = ln_set1(STEER_MAX_COORD);
		*p = ln_min(ln_max(*p, ln_neg(bound)), bound);
	}
}

/* Slots i .. i + LN_WIDTH - 1: velocity += (f / mass) * dt, v2_truncate to
 * max_speed, position += velocity * dt, the edges, and the heading. Returns the
 * squared speeds, as vx * vx + vy * vy. */
static inline ln_d move_lanes(steer_vehicles *v, const steer_palette *params,
                              const steer_world_config *c, double dt, size_t i)
{
	double mass_l[LN_WIDTH], max_l[LN_WIDTH];
	for (int l = 0; l < LN_WIDTH; l++) {
		const steer_params *p = steer_palette_get(params, v->param_set[i + (size_t)l]);
		mass_l[l] = p->mass;
		max_l[l] = p->max_speed;
	}
	const ln_d mass = ln_make(mass_l), maxs = ln_make(max_l);
	const ln_d step = ln_set1(dt), zero = ln_zero();
	ln_d vx = ln_add(ln_load(&v->vx[i]), ln_mul(ln_div(ln_load(&v->fx[i]), mass), step));
	ln_d vy = ln_add(ln_load(&v->vy[i]), ln_mul(ln_div(ln_load(&v->fy[i]), mass), step));
	ln_d l2 = ln_add(ln_mul(vx, vx), ln_mul(vy, vy));
	ln_m over = ln_and(ln_gt(l2, ln_mul(maxs, maxs)), ln_gt(l2, zero));
	if (ln_any(over)) {
		ln_d k = ln_div(maxs, ln_sqrt(l2));
		vx = ln_select(over, ln_mul(vx, k), vx);
		vy = ln_select(over, ln_mul(vy, k), vy);
	}
	ln_d x = ln_add(ln_load(&v->px[i]), ln_mul(vx, step));
	ln_d y = ln_add(ln_load(&v->py[i]), ln_mul(vy, step));
	edges_axis(c->edges, c->width, &x, &vx);
	edges_axis(c->edges, c->height, &y, &vy);
	ln_store(&v->px[i], x);
	ln_store(&v->py[i], y);
	ln_store(&v->vx[i], vx);
	ln_store(&v->vy[i], vy);
	/* The heading: vel * (1 / sqrt(l2)) where l2 > STILL2, else as it was. */
	l2 = ln_add(ln_mul(vx, vx), ln_mul(vy, vy));
	ln_m moving = ln_gt(l2, ln_set1(STILL2));
	ln_d inv = ln_div(ln_set1(1.0), ln_sqrt(l2));
	ln_store(&v->hx[i], ln_select(moving, ln_mul(vx, inv), ln_load(&v->hx[i])));
	ln_store(&v->hy[i], ln_select(moving, ln_mul(vy, inv), ln_load(&v->hy[i])));
	return l2;
}

static size_t move(steer_vehicles *v, const steer_palette *params, const steer_world_config *c,
                   double dt, size_t from, size_t to, double *speed2)
{
	size_t i = from;
	ln_d top = ln_zero();
	for (; i + LN_WIDTH <= to; i += LN_WIDTH)
		top = ln_max(move_lanes(v, params, c, dt, i), top);
	/* A maximum, the same in any order. */
	double t[LN_WIDTH];
	ln_store(t, top);
	for (int l = 0; l < LN_WIDTH; l++)
		*speed2 = t[l] > *speed2 ? t[l] : *speed2;
	return i;
}

/* --- the grid's cells ------------------------------------------------------------- */

/* steer_grid_axis_index: the same division, and the same floor clamped to
 * [0, n - 1] (NaN to 0), so the same cells; whole numbers, so exact. */
KERNEL_INLINE ln_d axis_index(ln_d at, double cell, int n)
{
	const ln_d lo = ln_zero(), hi = ln_set1((double)(n - 1));
	ln_d t = ln_div(at, ln_set1(cell));
	ln_d k = ln_select(ln_ge(t, lo), ln_floor(t), lo);
	return ln_select(ln_ge(t, hi), hi, k);
}

static size_t grid_cells(const steer_grid *g, const double *px, const double *py, size_t from,
                         size_t to, uint32_t *cell)
{
	const ln_d nx = ln_set1((double)g->nx);
	size_t i = from;
	for (; i + LN_WIDTH <= to; i += LN_WIDTH) {
		ln_d cx = axis_index(ln_load(px + i), g->cw, g->nx);
		ln_d cy = axis_index(ln_load(py + i), g->ch, g->ny);
		ln_store_u32(cell + i, ln_add(ln_mul(cy, nx), cx));
	}
	return i;
}

static size_t grid_columns_rows(const steer_grid *g, const double *px, const double *py,
                                size_t from, size_t to, uint32_t *col, uint32_t *row)
{
	size_t i = from;
	for (; i + LN_WIDTH <= to; i += LN_WIDTH) {
		ln_store_u32(col + i, axis_index(ln_load(px + i), g->cw, g->nx));
		ln_store_u32(row + i, axis_index(ln_load(py + i), g->ch, g->ny));
	}
	return i;
}

/* --- ORCA's lines for bodies ------------------------------------------------------ */

#if LN_WIDTH > 1
/* steer_orca_body, operation for operation: the cut-off disc's case, the legs'
 * (left and right) and the overlap's, each lane taking its own. */
KERNEL_INLINE void orca_body_lanes(const steer_orca_bodies *b, size_t i, ln_d *ox, ln_d *oy,
                                   ln_d *dxo, ln_d *dyo)
{
	const ln_d one = ln_set1(1.0), zero = ln_zero();
	ln_d px = ln_load(b->px + i), py = ln_load(b->py + i);
	ln_d vx = ln_load(b->vx + i), vy = ln_load(b->vy + i);
	ln_d r = ln_load(b->r + i);
	ln_d dist2 = ln_add(ln_mul(px, px), ln_mul(py, py)), r2 = ln_mul(r, r);
	/* Apart: w from the cut-off disc's centre. */
	ln_d inv_tau = ln_set1(1.0 / b->tau);
	ln_d wx = ln_sub(vx, ln_mul(px, inv_tau)), wy = ln_sub(vy, ln_mul(py, inv_tau));
	ln_d w2 = ln_add(ln_mul(wx, wx), ln_mul(wy, wy));
	ln_d wp = ln_add(ln_mul(wx, px), ln_mul(wy, py));
	ln_m disc = ln_and(ln_lt(wp, zero), ln_gt(ln_mul(wp, wp), ln_mul(r2, w2)));
	ln_d wl = ln_sqrt(w2), iw = ln_div(one, wl);
	ln_d ux = ln_mul(wx, iw), uy = ln_mul(wy, iw);
	ln_d cut = ln_sub(ln_div(r, ln_set1(b->tau)), wl);
	ln_d disc_dx = uy, disc_dy = ln_neg(ux);
	ln_d disc_ux = ln_mul(ux, cut), disc_uy = ln_mul(uy, cut);
	/* The legs. */
	ln_d leg = ln_sqrt(ln_sub(dist2, r2));
	ln_m left = ln_gt(ln_sub(ln_mul(px, wy), ln_mul(py, wx)), zero);
	ln_d il = ln_div(one, dist2), ir = ln_div(ln_set1(-1.0), dist2);
	ln_d lx = ln_mul(ln_sub(ln_mul(px, leg), ln_mul(py, r)), il);
	ln_d ly = ln_mul(ln_add(ln_mul(px, r), ln_mul(py, leg)), il);
	ln_d rx = ln_mul(ln_add(ln_mul(px, leg), ln_mul(py, r)), ir);
	ln_d ry = ln_mul(ln_add(ln_mul(ln_neg(px), r), ln_mul(py, leg)), ir);
	ln_d leg_dx = ln_select(left, lx, rx), leg_dy = ln_select(left, ly, ry);
	ln_d along = ln_add(ln_mul(vx, leg_dx), ln_mul(vy, leg_dy));
	ln_d leg_ux = ln_sub(ln_mul(leg_dx, along), vx), leg_uy = ln_sub(ln_mul(leg_dy, along), vy);
	/* Overlapping: apart within dt. */
	ln_d inv_dt = ln_set1(1.0 / b->dt);
	ln_d ox_ = ln_sub(vx, ln_mul(px, inv_dt)), oy_ = ln_sub(vy, ln_mul(py, inv_dt));
	ln_d ol = ln_sqrt(ln_add(ln_mul(ox_, ox_), ln_mul(oy_, oy_))), io = ln_div(one, ol);
	ln_m some = ln_gt(ol, zero);
	ln_d oux = ln_select(some, ln_mul(ox_, io), ln_load(b->ax + i));
	ln_d ouy = ln_select(some, ln_mul(oy_, io), ln_load(b->ay + i));
	ln_d push = ln_sub(ln_div(r, ln_set1(b->dt)), ol);
	ln_d over_dx = ouy, over_dy = ln_neg(oux);
	ln_d over_ux = ln_mul(oux, push), over_uy = ln_mul(ouy, push);
	/* Each lane's case. */
	ln_m apart = ln_gt(dist2, r2);
	ln_m use_disc = ln_and(apart, disc), use_leg = ln_andnot(disc, apart);
	ln_d dx = ln_select(use_disc, disc_dx, ln_select(use_leg, leg_dx, over_dx));
	ln_d dy = ln_select(use_disc, disc_dy, ln_select(use_leg, leg_dy, over_dy));
	ln_d ux_ = ln_select(use_disc, disc_ux, ln_select(use_leg, leg_ux, over_ux));
	ln_d uy_ = ln_select(use_disc, disc_uy, ln_select(use_leg, leg_uy, over_uy));
	ln_d share = ln_load(b->share + i);
	*ox = ln_add(ln_set1(b->v.x), ln_mul(ux_, share));
	*oy = ln_add(ln_set1(b->v.y), ln_mul(uy_, share));
	*dxo = dx;
	*dyo = dy;
}

static size_t orca_bodies(const steer_orca_bodies *b, size_t n, steer_orca_line *out)
{
	for (size_t i = 0; i < n; i += LN_WIDTH) {
		ln_d ox, oy, dx, dy;
		orca_body_lanes(b, i, &ox, &oy, &dx, &dy);
		double t[4][LN_WIDTH];
		ln_store(t[0], ox);
		ln_store(t[1], oy);
		ln_store(t[2], dx);
		ln_store(t[3], dy);
		for (size_t l = 0; l < LN_WIDTH && i + l < n; l++)
			out[i + l] = (steer_orca_line){{t[0][l], t[1][l]}, {t[2][l], t[3][l]}};
	}
	return n;
}
#else
static size_t orca_bodies(const steer_orca_bodies *b, size_t n, steer_orca_line *out)
{
	(void)b;
	(void)n;
	(void)out;
	return 0;
}
#endif

#ifdef LN_NARROW
extern const steer_kernel LN_NARROW;
#define LN_NARROW_FORM &LN_NARROW
#else
#define LN_NARROW_FORM NULL
#endif

const steer_kernel LN_KERNEL = {
    .level = LN_LEVEL,
    .group_size = LN_WIDTH > 4 ? LN_WIDTH : 4,
    .scan_lanes = scan_lanes,
    .forces_at = forces_at,
    .force_lanes = force_lanes,
    .move = move,
    .grid_cells = grid_cells,
    .grid_columns_rows = grid_columns_rows,
    .orca_bodies = orca_bodies,
    .narrow = LN_NARROW_FORM,
};
