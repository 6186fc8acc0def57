#include "flock.h"
#include "simd.h"

#include <math.h>
#include <string.h>

steer_flock_query steer_flock_query_at(const steer_vehicles *v, size_t i, const steer_agent *a)
{
	const steer_params *p = a->prm;
	steer_flock_query q = {a,
	                       v->px[i],
	                       v->py[i],
	                       i,
	                       v->group[i],
	                       v->id[i],
	                       p->max_neighbours,
	                       p->sight_distance * p->sight_distance,
	                       p->too_close_distance * p->too_close_distance,
	                       p->field_of_view};
	return q;
}

/* --- one vehicle ------------------------------------------------------------------ */

/* One neighbour, known to be within sight. */
static void take(const steer_vehicles *v, const steer_flock_query *q, uint32_t k, double dx,
                 double dy, double d2, steer_flock_sums *f)
{
	f->n++;
	f->d.x += dx;
	f->d.y += dy;
	f->v.x += v->vx[k];
	f->v.y += v->vy[k];
	if (d2 < q->close2)
		f->sep = v2_add(f->sep, steer_separate_one(q->a, v2(dx, dy), q->self_id, v->id[k]));
}

static bool capped(const steer_flock_query *q, const steer_flock_sums *f)
{
	return q->cap && f->n >= q->cap;
}

/* Neighbours among the grid positions [from, to) (vehicles in slots slot[from ..
 * to - 1]), all shifted by one seam shift. */
static void scan_run(const steer_vehicles *v, const steer_flock_query *q, const uint32_t *slot,
                     uint32_t from, uint32_t to, double shift_x, double shift_y,
                     steer_flock_sums *f)
{
	const double x = q->x - shift_x, y = q->y - shift_y;
	const double hx = q->a->h.x, hy = q->a->h.y;
	for (uint32_t k = from; k < to && !capped(q, f); k++) {
		uint32_t c = slot[k];
		double dx = v->px[c] - x, dy = v->py[c] - y;
		double d2 = dx * dx + dy * dy;
		if (d2 <= q->sight2 && v->group[c] == q->group && c != q->self &&
		    (!q->fov || dx * hx + dy * hy >= 0.0))
			take(v, q, c, dx, dy, d2, f);
	}
}

/* The slow path for grids so coarse that a span covers a whole wrapping axis: every
 * neighbour is wrapped on its own. */
static void scan_run_wrapped(const steer_vehicles *v, const steer_flock_query *q,
                             const uint32_t *slot, uint32_t from, uint32_t to, double width,
                             double height, steer_flock_sums *f)
{
	for (uint32_t k = from; k < to && !capped(q, f); k++) {
		uint32_t c = slot[k];
		double dx = steer_wrap_axis(v->px[c] - q->x, width);
		double dy = steer_wrap_axis(v->py[c] - q->y, height);
		double d2 = dx * dx + dy * dy;
		if (d2 <= q->sight2 && v->group[c] == q->group && c != q->self &&
		    (!q->fov || dx * q->a->h.x + dy * q->a->h.y >= 0.0))
			take(v, q, c, dx, dy, d2, f);
	}
}

/* The seam shift for axis position k of a span: members of a cell reached by going
 * past either end of a wrapping axis sit one world size away. */
static double seam_shift(const steer_grid_span *s, int k, double size)
{
	if (!s->wrap || (k >= 0 && k < s->n))
		return 0.0;
	return k < 0 ? -size : size;
}

/* The longest stretch [kx, end] of a span that stays on one side of a wrap seam:
 * those cells' members are consecutive in grid order. */
static int stretch_end(const steer_grid_span *s, int kx)
{
	int end = kx;
	while (end + 1 <= s->last &&
	       steer_grid_axis_cell(s, end + 1) == steer_grid_axis_cell(s, end) + 1)
		end++;
	return end;
}

typedef struct scan_ctx {
	const steer_vehicles *v;
	const steer_grid *g;
	double width, height;
	bool wrap_each;
} scan_ctx;

/* One grid row of the vehicle's neighbourhood, walked as at most three runs: the
 * stretch before a wrap seam, the stretch inside, the stretch past it. */
static void scan_row(const scan_ctx *c, const steer_flock_query *q, const steer_grid_span *sx,
                     int ky, const steer_grid_span *sy, steer_flock_sums *f)
{
	const steer_grid *g = c->g;
	double shy = c->wrap_each ? 0.0 : seam_shift(sy, ky, c->height);
	int row = steer_grid_axis_cell(sy, ky) * g->nx;
	for (int kx = sx->first; kx <= sx->last && !capped(q, f);) {
		int end = stretch_end(sx, kx);
		uint32_t from = g->start[row + steer_grid_axis_cell(sx, kx)];
		uint32_t to = g->start[row + steer_grid_axis_cell(sx, end) + 1];
		if (c->wrap_each)
			scan_run_wrapped(c->v, q, g->items, from, to, c->width, c->height, f);
		else
			scan_run(c->v, q, g->items, from, to, seam_shift(sx, kx, c->width), shy, f);
		kx = end + 1;
	}
}

void steer_flock_scan_one(const steer_vehicles *v, const steer_grid *g, double width, double height,
                          const steer_flock_query *q, steer_flock_sums *out)
{
	memset(out, 0, sizeof *out);
	double r = q->a->prm->sight_distance;
	steer_grid_span sx = steer_grid_span_x(g, q->x - r, q->x + r);
	steer_grid_span sy = steer_grid_span_y(g, q->y - r, q->y + r);
	scan_ctx c = {v, g, width, height,
	              g->wrap &&
	                  (sx.last - sx.first + 1 >= g->nx || sy.last - sy.first + 1 >= g->ny)};
	int own_y = steer_grid_axis_index(q->y, g->ch, g->ny);
	if (own_y < sy.first || own_y > sy.last)
		own_y = sy.first;
	scan_row(&c, q, &sx, own_y, &sy, out);
	for (int ky = sy.first; ky <= sy.last && !capped(q, out); ky++)
		if (ky != own_y)
			scan_row(&c, q, &sx, ky, &sy, out);
}

/* --- neighbouring members of a grid row, one per lane ------------------------------- */

bool steer_flock_cell_runs(const steer_grid *g, double width, double height, uint32_t cell,
                           int cells, steer_flock_runs *out)
{
	int cx = (int)(cell % (uint32_t)g->nx), cy = (int)(cell / (uint32_t)g->nx);
	int first = cx - g->reach_x, last = cx + cells - 1 + g->reach_x;
	/* A wrapping axis must be wider than the block, so that no cell is walked
	 * twice. */
	if (g->wrap && (g->nx <= last - first + 1 || g->ny <= 3))
		return false;
	out->slot = g->items;
	if (first >= 0 && last < g->nx && cy > 0 && cy + 1 < g->ny) {
		/* Away from the edges (most cells): what the general walk below gives, one
		 * unshifted run per row, own row first. */
		const int rows[3] = {cy, cy - 1, cy + 1};
		for (int k = 0; k < 3; k++) {
			uint32_t row = (uint32_t)(rows[k] * g->nx);
			out->r[k].from = g->start[row + (uint32_t)first];
			out->r[k].to = g->start[row + (uint32_t)last + 1];
			out->r[k].shx = 0.0;
			out->r[k].shy = 0.0;
		}
		out->count = 3;
		return true;
	}
	steer_grid_span sx = {first, last, g->nx, g->wrap};
	steer_grid_span sy = {cy - 1, cy + 1, g->ny, g->wrap};
	if (!g->wrap) {
		sx.first = first > 0 ? first : 0;
		sx.last = last < g->nx ? last : g->nx - 1;
		sy.first = cy > 0 ? cy - 1 : 0;
		sy.last = cy + 1 < g->ny ? cy + 1 : g->ny - 1;
	}
	int rows[3] = {cy, cy - 1, cy + 1};
	out->count = 0;
	for (int k = 0; k < 3; k++) {
		int ky = rows[k];
		if (ky < sy.first || ky > sy.last)
			continue;
		int row = steer_grid_axis_cell(&sy, ky) * g->nx;
		double shy = seam_shift(&sy, ky, height);
		for (int kx = sx.first; kx <= sx.last;) {
			int end = stretch_end(&sx, kx);
			out->r[out->count].from = g->start[row + steer_grid_axis_cell(&sx, kx)];
			out->r[out->count].to = g->start[row + steer_grid_axis_cell(&sx, end) + 1];
			out->r[out->count].shx = seam_shift(&sx, kx, width);
			out->r[out->count].shy = shy;
			out->count++;
			kx = end + 1;
		}
	}
	return true;
}

/* The exact scalar form, one lane after another: for machines without AVX2. */
static void scan_lanes_scalar(const steer_vehicles *v, const steer_flock_runs *runs,
                              const steer_flock_query *q, int m, steer_flock_sums *out)
{
	for (int l = 0; l < m; l++) {
		memset(&out[l], 0, sizeof out[l]);
		for (int r = 0; r < runs->count && !capped(&q[l], &out[l]); r++)
			scan_run(v, &q[l], runs->slot, runs->r[r].from, runs->r[r].to,
			         runs->r[r].shx, runs->r[r].shy, &out[l]);
	}
}

#ifdef STEER_HAVE_AVX2
#include <immintrin.h>

/* How often, in candidates, a crowd's lanes are checked for all having reached their
 * cap: often enough that a packed cell stops within a few candidates of it. */
#define CAP_CHECK_EVERY 16u

/* The separation of each too-close lane from candidate k, steer_separate_one's
 * arithmetic in lanes: away = d * (-1/|d|), or on top of each other the heading's
 * perpendicular, flipped for the larger id; then away * max_speed - v. */
/* What separate_lanes needs of each lane: built once per lane group, as a too-close
 * candidate turns up several times in most groups. */
typedef struct sep_consts {
	__m256d hx, hy, vx, vy, speed, ids;
} sep_consts;

__attribute__((target("avx2"))) static inline void
separate_lanes(__m256d close, __m256d dx, __m256d dy, __m256d d2, const sep_consts *c,
               double other_id, __m256d *sep_x, __m256d *sep_y)
{
	const __m256d hx = c->hx, hy = c->hy, vx = c->vx, vy = c->vy;
	const __m256d speed = c->speed, ids = c->ids;
	__m256d s = _mm256_div_pd(_mm256_set1_pd(-1.0), _mm256_sqrt_pd(d2));
	__m256d ax = _mm256_mul_pd(dx, s), ay = _mm256_mul_pd(dy, s);
	/* v2_perp(h) = (-h.y, h.x): a sign flip, not a subtraction from zero. */
	__m256d zx = _mm256_xor_pd(hy, _mm256_set1_pd(-0.0)), zy = hx;
	__m256d flip = _mm256_cmp_pd(ids, _mm256_set1_pd(other_id), _CMP_GT_OQ);
	zx = _mm256_blendv_pd(zx, _mm256_mul_pd(zx, _mm256_set1_pd(-1.0)), flip);
	zy = _mm256_blendv_pd(zy, _mm256_mul_pd(zy, _mm256_set1_pd(-1.0)), flip);
	__m256d apart = _mm256_cmp_pd(d2, _mm256_setzero_pd(), _CMP_GT_OQ);
	ax = _mm256_blendv_pd(zx, ax, apart);
	ay = _mm256_blendv_pd(zy, ay, apart);
	__m256d tx = _mm256_sub_pd(_mm256_mul_pd(ax, speed), vx);
	__m256d ty = _mm256_sub_pd(_mm256_mul_pd(ay, speed), vy);
	*sep_x = _mm256_add_pd(*sep_x, _mm256_and_pd(close, tx));
	*sep_y = _mm256_add_pd(*sep_y, _mm256_and_pd(close, ty));
}

/* Four vehicles' running sums. Each starts at +0.0 and so is never -0.0: adding the
 * +0.0 of a lane that did not take the candidate leaves it as it was, so a masked add
 * is the scalar "add if taken" bit for bit. The core is built with
 * -ffp-contract=off (no fused multiply-add, whatever the target's instructions), so
 * each lane rounds as the scalar code does. */
typedef struct scan_acc {
	__m256i n;
	__m256d dx, dy, vx, vy, sep_x, sep_y;
} scan_acc;

/* What each lane looks for (see steer_flock_query). */
typedef struct scan_lane_consts {
	__m256d qx, qy;
	/* The heading where the lane has a field of view, else 0: then the "ahead" test
	 * sees dx * 0 + dy * 0 = 0 >= 0 and passes, as the scalar !fov does. */
	__m256d fov_hx, fov_hy;
	__m256d sight2, close2;
	__m256i group; /* in both 32-bit halves, to compare with a broadcast 32-bit group */
	__m256i self;  /* grid positions */
	uint32_t own_from, own_to; /* the live lanes' grid positions */
	sep_consts sep;
} scan_lane_consts;

/* The tests a lane group needs. Each is a compile-time constant in the specialised
 * loops below: most worlds have one group, many boids no field of view, and
 * dropping a test drops its instructions from every candidate rather than adding a
 * branch to each. Without a field of view every lane's "ahead" test passes; with
 * one group every candidate is in each lane's group; so the same candidates are
 * taken either way. */
typedef struct scan_tests {
	bool fov, group;
	bool self; /* whether the candidate may be a lane itself */
} scan_tests;

/* The candidate in slot c, at grid position k (in every lane), against four
 * vehicles whose positions, less the run's seam shift, are x and y. capped: whether
 * some lane may reach its cap in this run; open then holds the lanes still under
 * it. A lane is not its own neighbour: its grid position is compared with k, counted
 * along the run, which costs no broadcast of the slot per candidate. */
__attribute__((target("avx2"), always_inline)) static inline void
scan_candidate(const steer_vehicles *v, const scan_lane_consts *lc, __m256d x, __m256d y,
               uint32_t c, __m256i k, bool capped, __m256i open, const scan_tests t, scan_acc *acc)
{
	__m256d dx = _mm256_sub_pd(_mm256_broadcast_sd(&v->px[c]), x);
	__m256d dy = _mm256_sub_pd(_mm256_broadcast_sd(&v->py[c]), y);
	__m256d d2 = _mm256_add_pd(_mm256_mul_pd(dx, dx), _mm256_mul_pd(dy, dy));
	__m256d in = _mm256_cmp_pd(d2, lc->sight2, _CMP_LE_OQ);
	if (t.fov) {
		__m256d ahead = _mm256_cmp_pd(
		    _mm256_add_pd(_mm256_mul_pd(dx, lc->fov_hx), _mm256_mul_pd(dy, lc->fov_hy)),
		    _mm256_setzero_pd(), _CMP_GE_OQ);
		in = _mm256_and_pd(in, ahead);
	}
	if (t.group) {
		__m256i same =
		    _mm256_cmpeq_epi32(lc->group, _mm256_set1_epi32((int32_t)v->group[c]));
		in = _mm256_and_pd(in, _mm256_castsi256_pd(same));
	}
	if (t.self)
		in = _mm256_andnot_pd(_mm256_castsi256_pd(_mm256_cmpeq_epi64(lc->self, k)), in);
	if (capped)
		in = _mm256_and_pd(in, _mm256_castsi256_pd(open));
	acc->n = _mm256_sub_epi64(acc->n, _mm256_castpd_si256(in)); /* a set lane is -1 */
	acc->dx = _mm256_add_pd(acc->dx, _mm256_and_pd(in, dx));
	acc->dy = _mm256_add_pd(acc->dy, _mm256_and_pd(in, dy));
	acc->vx = _mm256_add_pd(acc->vx, _mm256_and_pd(in, _mm256_broadcast_sd(&v->vx[c])));
	acc->vy = _mm256_add_pd(acc->vy, _mm256_and_pd(in, _mm256_broadcast_sd(&v->vy[c])));
	__m256d close = _mm256_and_pd(in, _mm256_cmp_pd(d2, lc->close2, _CMP_LT_OQ));
	if (_mm256_movemask_pd(close))
		separate_lanes(close, dx, dy, d2, &lc->sep, (double)v->id[c], &acc->sep_x,
		               &acc->sep_y);
}

/* Whether some lane may reach its cap within a run of len candidates: when none can,
 * the cap costs nothing there. */
__attribute__((target("avx2"), always_inline)) static inline bool
run_may_cap(__m256i n, __m256i cap, uint32_t len)
{
	__m256i after = _mm256_add_epi64(n, _mm256_set1_epi64x((int64_t)len));
	return _mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpgt_epi64(after, cap))) != 0;
}

/* Whether some live lane is still under its cap. */
__attribute__((target("avx2"), always_inline)) static inline bool
lanes_open(const scan_acc *acc, __m256i cap, int active)
{
	__m256i open = _mm256_cmpgt_epi64(cap, acc->n);
	return (_mm256_movemask_pd(_mm256_castsi256_pd(open)) & active) != 0;
}

/* The candidates at grid positions [from, to) of a run within which some lane may
 * reach its cap: each lane takes only while under it, and the run ends early once
 * none is. */
__attribute__((target("avx2"), always_inline)) static inline void
scan_run_capped(const steer_vehicles *v, const scan_lane_consts *lc, __m256d x, __m256d y,
                const uint32_t *slot, uint32_t from, uint32_t to, __m256i cap, int active,
                const scan_tests t, scan_acc *acc)
{
	const scan_tests self = {t.fov, t.group, true};
	__m256i k = _mm256_set1_epi64x((int64_t)from);
	for (uint32_t s = from; s < to; s++) {
		__m256i open = _mm256_cmpgt_epi64(cap, acc->n);
		if ((s - from) % CAP_CHECK_EVERY == CAP_CHECK_EVERY - 1 &&
		    !(_mm256_movemask_pd(_mm256_castsi256_pd(open)) & active))
			break;
		scan_candidate(v, lc, x, y, slot[s], k, true, open, self, acc);
		k = _mm256_add_epi64(k, _mm256_set1_epi64x(1));
	}
}

/* The part [a, b) of [from, to) that holds the live lanes' own grid positions,
 * [own_from, own_to). */
static inline void own_part(uint32_t own_from, uint32_t own_to, uint32_t from, uint32_t to,
                            uint32_t *a, uint32_t *b)
{
	*a = own_from < from ? from : own_from > to ? to : own_from;
	*b = own_to < *a ? *a : own_to > to ? to : own_to;
}

/* The candidates [from, to) of a run in which no lane can reach its cap, each taken
 * by CANDIDATE(s, k, tests): s its grid position, k that in every lane of a vector
 * of 64-bit lanes, made by SET1 and stepped by ADD (the 256- or 512-bit forms). Only
 * the lanes' own grid positions need the test that a lane is not its own neighbour:
 * the stretches either side go without it, two instructions fewer a candidate. A
 * macro, so that each loop inlines its own candidate form under its own target. */
#define SCAN_SPAN(lc, from, to, t, CANDIDATE, SET1, ADD)                                           \
	do {                                                                                       \
		const scan_tests self_ = {(t).fov, (t).group, true};                               \
		uint32_t a_, b_;                                                                   \
		own_part((lc)->own_from, (lc)->own_to, from, to, &a_, &b_);                        \
		for (uint32_t s_ = (from); s_ < a_; s_++)                                          \
			CANDIDATE(s_, SET1(0), t);                                                 \
		__typeof__(SET1(0)) k_ = SET1((int64_t)a_);                                        \
		for (uint32_t s_ = a_; s_ < b_; s_++) {                                            \
			CANDIDATE(s_, k_, self_);                                                  \
			k_ = ADD(k_, SET1(1));                                                     \
		}                                                                                  \
		for (uint32_t s_ = b_; s_ < (to); s_++)                                            \
			CANDIDATE(s_, SET1(0), t);                                                 \
	} while (0)

/* Lanes against every candidate of the runs, testing what t says: runs no lane can
 * reach its cap in take the candidate form without the cap (here scan_candidate;
 * scan_runs_k is the same loop with scan_candidate_k). */
__attribute__((target("avx2"), always_inline)) static inline void
scan_runs(const steer_vehicles *v, const steer_flock_runs *runs, const scan_lane_consts *lc,
          __m256i cap, int active, const scan_tests t, scan_acc *acc)
{
	for (int r = 0; r < runs->count && lanes_open(acc, cap, active); r++) {
		const __m256d x = _mm256_sub_pd(lc->qx, _mm256_set1_pd(runs->r[r].shx));
		const __m256d y = _mm256_sub_pd(lc->qy, _mm256_set1_pd(runs->r[r].shy));
		uint32_t from = runs->r[r].from, to = runs->r[r].to;
		if (run_may_cap(acc->n, cap, to - from)) {
			scan_run_capped(v, lc, x, y, runs->slot, from, to, cap, active, t, acc);
			continue;
		}
#define CANDIDATE(s, k, tests)                                                                     \
	scan_candidate(v, lc, x, y, runs->slot[s], k, false, _mm256_setzero_si256(), tests, acc)
		SCAN_SPAN(lc, from, to, t, CANDIDATE, _mm256_set1_epi64x, _mm256_add_epi64);
#undef CANDIDATE
	}
}

/* scan(v, runs, lc, cap, active, tests, acc) compiled once per combination of tests
 * t asks for (run-time values here), each without the instructions of the tests it
 * does not need. */
#define SCAN_FOR_TESTS(scan, v, runs, lc, cap, active, t, acc)                                     \
	do {                                                                                       \
		if ((t).fov && (t).group)                                                          \
			scan(v, runs, lc, cap, active, (scan_tests){true, true, false}, acc);      \
		else if ((t).fov)                                                                  \
			scan(v, runs, lc, cap, active, (scan_tests){true, false, false}, acc);     \
		else if ((t).group)                                                                \
			scan(v, runs, lc, cap, active, (scan_tests){false, true, false}, acc);     \
		else                                                                               \
			scan(v, runs, lc, cap, active, (scan_tests){false, false, false}, acc);    \
	} while (0)

/* The lanes of queries q[0 .. m-1], of the vehicles at grid positions first ..
 * first + m - 1. Empty lanes copy lane 0 with sight2 -1: they take nothing. Lanes
 * are built from registers (set_pd): four scalar stores read back as one vector
 * would stall store forwarding. */
__attribute__((target("avx2"), always_inline)) static inline void
query_lanes(const steer_flock_query *qin, size_t first, int m, scan_lane_consts *lc, __m256i *cap,
            bool *fov)
{
	steer_flock_query q[4];
	for (int l = 0; l < 4; l++) {
		q[l] = qin[l < m ? l : 0];
		if (l >= m) {
			q[l].sight2 = -1.0;
			q[l].close2 = -1.0;
		}
	}
#define LANES(e)       _mm256_set_pd(q[3].e, q[2].e, q[1].e, q[0].e)
#define LANE_CAP(l)    (q[l].cap ? (int64_t)q[l].cap : INT64_MAX)
#define FOV_H(l, e)    (q[l].fov ? q[l].a->h.e : 0.0)
#define BOTH_HALVES(l) ((int64_t)((uint64_t)q[l].group << 32 | q[l].group))
	*lc = (scan_lane_consts){
	    LANES(x),
	    LANES(y),
	    _mm256_set_pd(FOV_H(3, x), FOV_H(2, x), FOV_H(1, x), FOV_H(0, x)),
	    _mm256_set_pd(FOV_H(3, y), FOV_H(2, y), FOV_H(1, y), FOV_H(0, y)),
	    LANES(sight2),
	    LANES(close2),
	    _mm256_set_epi64x(BOTH_HALVES(3), BOTH_HALVES(2), BOTH_HALVES(1), BOTH_HALVES(0)),
	    _mm256_add_epi64(_mm256_set1_epi64x((int64_t)first), _mm256_set_epi64x(3, 2, 1, 0)),
	    (uint32_t)first,
	    (uint32_t)first + (uint32_t)m,
	    {LANES(a->h.x), LANES(a->h.y), LANES(a->v.x), LANES(a->v.y), LANES(a->prm->max_speed),
	     _mm256_set_pd((double)q[3].self_id, (double)q[2].self_id, (double)q[1].self_id,
	                   (double)q[0].self_id)}};
	*cap = _mm256_set_epi64x(LANE_CAP(3), LANE_CAP(2), LANE_CAP(1), LANE_CAP(0));
	*fov = q[0].fov || q[1].fov || q[2].fov || q[3].fov;
#undef BOTH_HALVES
#undef FOV_H
#undef LANES
#undef LANE_CAP
}

__attribute__((target("avx2"), always_inline)) static inline scan_acc scan_acc_zero(void)
{
	return (scan_acc){_mm256_setzero_si256(), _mm256_setzero_pd(), _mm256_setzero_pd(),
	                  _mm256_setzero_pd(),    _mm256_setzero_pd(), _mm256_setzero_pd(),
	                  _mm256_setzero_pd()};
}

/* Lanes 0 .. m-1 of the sums into out. */
__attribute__((target("avx2"), always_inline)) static inline void
sums_out(const scan_acc *acc, int m, steer_flock_sums *out)
{
	double o[6][4];
	int64_t taken[4];
	_mm256_storeu_pd(o[0], acc->sep_x);
	_mm256_storeu_pd(o[1], acc->sep_y);
	_mm256_storeu_pd(o[2], acc->dx);
	_mm256_storeu_pd(o[3], acc->dy);
	_mm256_storeu_pd(o[4], acc->vx);
	_mm256_storeu_pd(o[5], acc->vy);
	_mm256_storeu_si256((__m256i *)taken, acc->n);
	for (int l = 0; l < m; l++) {
		out[l].sep = v2(o[0][l], o[1][l]);
		out[l].d = v2(o[2][l], o[3][l]);
		out[l].v = v2(o[4][l], o[5][l]);
		out[l].n = (uint32_t)taken[l];
	}
}

__attribute__((target("avx2"))) static void
scan_lanes_avx2(const steer_vehicles *v, const steer_flock_runs *runs, bool one_group,
                const steer_flock_query *q, size_t first, int m, steer_flock_sums *out)
{
	scan_lane_consts lc;
	__m256i cap;
	bool fov;
	query_lanes(q, first, m, &lc, &cap, &fov);
	scan_acc acc = scan_acc_zero();
	const scan_tests t = {fov, !one_group, false};
	SCAN_FOR_TESTS(scan_runs, v, runs, &lc, cap, (1 << m) - 1, t, &acc);
	sums_out(&acc, m, out);
}

/* --- the same with AVX-512's mask registers --------------------------------------- */

/* The same four lanes in 256-bit registers, where the CPU has AVX-512VL: each test
 * narrows a mask register instead of and-ing a vector, and a masked add leaves a
 * lane that did not take the candidate exactly as it was, as adding scan_candidate's
 * +0.0 does. That is one instruction fewer per test and per sum, and the 32 vector
 * registers hold every lane constant. Same arithmetic, same order, same bits. */
#define AVX512_TARGET "avx2,avx512f,avx512vl"

__attribute__((target(AVX512_TARGET), always_inline)) static inline void
scan_candidate_k(const steer_vehicles *v, const scan_lane_consts *lc, __m256d x, __m256d y,
                 uint32_t c, __m256i k, __mmask8 open, const scan_tests t, scan_acc *acc)
{
	__m256d dx = _mm256_sub_pd(_mm256_broadcast_sd(&v->px[c]), x);
	__m256d dy = _mm256_sub_pd(_mm256_broadcast_sd(&v->py[c]), y);
	__m256d d2 = _mm256_add_pd(_mm256_mul_pd(dx, dx), _mm256_mul_pd(dy, dy));
	__mmask8 in = _mm256_mask_cmp_pd_mask(open, d2, lc->sight2, _CMP_LE_OQ);
	if (t.fov)
		in = _mm256_mask_cmp_pd_mask(
		    in, _mm256_add_pd(_mm256_mul_pd(dx, lc->fov_hx), _mm256_mul_pd(dy, lc->fov_hy)),
		    _mm256_setzero_pd(), _CMP_GE_OQ);
	if (t.group) /* the group in both halves of each lane, as lc->group has it */
		in = _mm256_mask_cmpeq_epi64_mask(in, lc->group,
		                                  _mm256_set1_epi32((int32_t)v->group[c]));
	if (t.self)
		in = _mm256_mask_cmpneq_epi64_mask(in, lc->self, k);
	acc->n = _mm256_mask_add_epi64(acc->n, in, acc->n, _mm256_set1_epi64x(1));
	acc->dx = _mm256_mask_add_pd(acc->dx, in, acc->dx, dx);
	acc->dy = _mm256_mask_add_pd(acc->dy, in, acc->dy, dy);
	acc->vx = _mm256_mask_add_pd(acc->vx, in, acc->vx, _mm256_set1_pd(v->vx[c]));
	acc->vy = _mm256_mask_add_pd(acc->vy, in, acc->vy, _mm256_set1_pd(v->vy[c]));
	__mmask8 close = _mm256_mask_cmp_pd_mask(in, d2, lc->close2, _CMP_LT_OQ);
	if (close)
		separate_lanes(
		    _mm256_castsi256_pd(_mm256_maskz_mov_epi64(close, _mm256_set1_epi64x(-1))), dx,
		    dy, d2, &lc->sep, (double)v->id[c], &acc->sep_x, &acc->sep_y);
}

/* scan_runs with scan_candidate_k. Near a cap both take scan_candidate: a lane's
 * count feeds its next "open" test, and that chain is shorter through vector
 * compares than mask ones. */
__attribute__((target(AVX512_TARGET), always_inline)) static inline void
scan_runs_k(const steer_vehicles *v, const steer_flock_runs *runs, const scan_lane_consts *lc,
            __m256i cap, int active, const scan_tests t, scan_acc *acc)
{
	for (int r = 0; r < runs->count && lanes_open(acc, cap, active); r++) {
		const __m256d x = _mm256_sub_pd(lc->qx, _mm256_set1_pd(runs->r[r].shx));
		const __m256d y = _mm256_sub_pd(lc->qy, _mm256_set1_pd(runs->r[r].shy));
		uint32_t from = runs->r[r].from, to = runs->r[r].to;
		if (run_may_cap(acc->n, cap, to - from)) {
			scan_run_capped(v, lc, x, y, runs->slot, from, to, cap, active, t, acc);
			continue;
		}
#define CANDIDATE(s, k, tests) scan_candidate_k(v, lc, x, y, runs->slot[s], k, 0xf, tests, acc)
		SCAN_SPAN(lc, from, to, t, CANDIDATE, _mm256_set1_epi64x, _mm256_add_epi64);
#undef CANDIDATE
	}
}

__attribute__((target(AVX512_TARGET))) static void
scan_lanes_avx512(const steer_vehicles *v, const steer_flock_runs *runs, bool one_group,
                  const steer_flock_query *q, size_t first, int m, steer_flock_sums *out)
{
	scan_lane_consts lc;
	__m256i cap;
	bool fov;
	query_lanes(q, first, m, &lc, &cap, &fov);
	scan_acc acc = scan_acc_zero();
	const scan_tests t = {fov, !one_group, false};
	SCAN_FOR_TESTS(scan_runs_k, v, runs, &lc, cap, (1 << m) - 1, t, &acc);
	sums_out(&acc, m, out);
}

#endif

/* --- from sums to forces ---------------------------------------------------------- */

void steer_flock_parts(const steer_agent *a, const steer_flock_sums *f,
                       steer_vec2 parts[STEER_PART_COUNT], uint32_t *mask)
{
	const steer_params *p = a->prm;
	if (f->n == 0)
		return;
	double inv = 1.0 / (double)f->n;
	parts[STEER_PART_SEPARATION] = v2_scale(f->sep, p->separation_weight);
	parts[STEER_PART_COHESION] =
	    v2_scale(steer_cohere(a, v2_scale(f->d, inv)), p->cohesion_weight);
	parts[STEER_PART_ALIGNMENT] =
	    v2_scale(steer_align(a, v2_scale(f->v, inv)), p->alignment_weight);
	*mask |= (1u << STEER_PART_SEPARATION) | (1u << STEER_PART_COHESION) |
	         (1u << STEER_PART_ALIGNMENT);
}

static void force_lanes_scalar(const steer_agent *a, const steer_flock_sums *sums, int m, double dt,
                               steer_vec2 *force)
{
	for (int l = 0; l < m; l++) {
		steer_vec2 parts[STEER_PART_COUNT];
		uint32_t mask = 0;
		steer_flock_parts(&a[l], &sums[l], parts, &mask);
		steer_cruise_part(&a[l], parts, &mask);
		force[l] = steer_combine_parts(parts, mask, a[l].prm, dt);
	}
}

#ifdef STEER_HAVE_AVX2
/* The force from four vehicles' sums: n, the separation sum (sep), the offset sum (d)
 * and the velocity sum (sum_v); their own velocities (vx, vy) and parameters. */
typedef struct force_in {
	__m256d n, sep_x, sep_y, d_x, d_y, sum_vx, sum_vy, vx, vy;
	__m256d w_sep, w_coh, w_ali, speed, max_force;
	__m256d hx, hy, cruise, w_cruise; /* heading; cruise_speed (0: off) and its weight */
} force_in;

__attribute__((target("avx2"), always_inline)) static inline void
force_core(const force_in *in, double dt, __m256d *out_x, __m256d *out_y)
{
	const __m256d zero = _mm256_setzero_pd();
	const __m256d n = in->n, vx = in->vx, vy = in->vy;
	__m256d has = _mm256_cmp_pd(n, zero, _CMP_GT_OQ);
	__m256d inv = _mm256_div_pd(_mm256_set1_pd(1.0), n);
	/* separation */
	__m256d sep_x = _mm256_mul_pd(in->sep_x, in->w_sep);
	__m256d sep_y = _mm256_mul_pd(in->sep_y, in->w_sep);
	/* cohesion: seek the mean offset */
	__m256d mdx = _mm256_mul_pd(in->d_x, inv);
	__m256d mdy = _mm256_mul_pd(in->d_y, inv);
	__m256d len =
	    _mm256_sqrt_pd(_mm256_add_pd(_mm256_mul_pd(mdx, mdx), _mm256_mul_pd(mdy, mdy)));
	__m256d some = _mm256_cmp_pd(len, zero, _CMP_GT_OQ);
	__m256d rl = _mm256_div_pd(_mm256_set1_pd(1.0), len);
	__m256d ux = _mm256_and_pd(some, _mm256_mul_pd(mdx, rl));
	__m256d uy = _mm256_and_pd(some, _mm256_mul_pd(mdy, rl));
	__m256d coh_x = _mm256_mul_pd(_mm256_sub_pd(_mm256_mul_pd(ux, in->speed), vx), in->w_coh);
	__m256d coh_y = _mm256_mul_pd(_mm256_sub_pd(_mm256_mul_pd(uy, in->speed), vy), in->w_coh);
	/* alignment: the mean velocity less our own */
	__m256d ali_x = _mm256_mul_pd(_mm256_sub_pd(_mm256_mul_pd(in->sum_vx, inv), vx), in->w_ali);
	__m256d ali_y = _mm256_mul_pd(_mm256_sub_pd(_mm256_mul_pd(in->sum_vy, inv), vy), in->w_ali);
	/* the sum, in part order; no neighbours: no flock parts, and the empty sum is +0 */
	__m256d sx = _mm256_add_pd(_mm256_add_pd(_mm256_add_pd(zero, sep_x), ali_x), coh_x);
	__m256d sy = _mm256_add_pd(_mm256_add_pd(_mm256_add_pd(zero, sep_y), ali_y), coh_y);
	sx = _mm256_and_pd(has, sx);
	sy = _mm256_and_pd(has, sy);
	/* cruise, the last part, where it is on: the heading times cruise_speed less the
	 * speed, weighted. A sum from +0 is never -0, so the +0 of a lane without it
	 * leaves that lane's sum as it was. */
	__m256d on = _mm256_cmp_pd(in->cruise, zero, _CMP_GT_OQ);
	if (_mm256_movemask_pd(on)) {
		__m256d e = _mm256_sub_pd(
		    in->cruise,
		    _mm256_sqrt_pd(_mm256_add_pd(_mm256_mul_pd(vx, vx), _mm256_mul_pd(vy, vy))));
		__m256d cx = _mm256_mul_pd(_mm256_mul_pd(in->hx, e), in->w_cruise);
		__m256d cy = _mm256_mul_pd(_mm256_mul_pd(in->hy, e), in->w_cruise);
		sx = _mm256_add_pd(sx, _mm256_and_pd(on, cx));
		sy = _mm256_add_pd(sy, _mm256_and_pd(on, cy));
	}
	/* then per second and truncated */
	__m256d inv_dt = _mm256_set1_pd(1.0 / dt);
	sx = _mm256_mul_pd(sx, inv_dt);
	sy = _mm256_mul_pd(sy, inv_dt);
	__m256d mf = in->max_force;
	__m256d l2 = _mm256_add_pd(_mm256_mul_pd(sx, sx), _mm256_mul_pd(sy, sy));
	__m256d over = _mm256_and_pd(_mm256_cmp_pd(l2, _mm256_mul_pd(mf, mf), _CMP_GT_OQ),
	                             _mm256_cmp_pd(l2, zero, _CMP_GT_OQ));
	__m256d k = _mm256_div_pd(mf, _mm256_sqrt_pd(l2));
	*out_x = _mm256_blendv_pd(sx, _mm256_mul_pd(sx, k), over);
	*out_y = _mm256_blendv_pd(sy, _mm256_mul_pd(sy, k), over);
}

/* The square roots and divisions of four boids' forces side by side instead of one
 * boid's long chain after another's. Each line of force_core is the scalar code's
 * operation in the scalar code's order: steer_cohere (a seek of the mean offset),
 * steer_align, the weights, the sum separation + alignment + cohesion from +0, then
 * steer_cruise_part's term where cruise_speed is on, / dt and v2_truncate to
 * max_force. */
__attribute__((target("avx2"))) static void force_lanes_avx2(const steer_agent *a,
                                                             const steer_flock_sums *sums, int m,
                                                             double dt, steer_vec2 *force)
{
	/* Empty lanes repeat lane 0; their results are dropped. */
	const steer_flock_sums *f[4];
	const steer_agent *g[4];
	for (int l = 0; l < 4; l++) {
		f[l] = &sums[l < m ? l : 0];
		g[l] = &a[l < m ? l : 0];
	}
#define LANES(e)  _mm256_set_pd(f[3]->e, f[2]->e, f[1]->e, f[0]->e)
#define AGENTS(e) _mm256_set_pd(g[3]->e, g[2]->e, g[1]->e, g[0]->e)
	const force_in in = {
	    _mm256_set_pd((double)f[3]->n, (double)f[2]->n, (double)f[1]->n, (double)f[0]->n),
	    LANES(sep.x),
	    LANES(sep.y),
	    LANES(d.x),
	    LANES(d.y),
	    LANES(v.x),
	    LANES(v.y),
	    AGENTS(v.x),
	    AGENTS(v.y),
	    AGENTS(prm->separation_weight),
	    AGENTS(prm->cohesion_weight),
	    AGENTS(prm->alignment_weight),
	    AGENTS(prm->max_speed),
	    AGENTS(prm->max_force),
	    AGENTS(h.x),
	    AGENTS(h.y),
	    AGENTS(prm->cruise_speed),
	    AGENTS(prm->cruise_weight)};
#undef LANES
#undef AGENTS
	__m256d sx, sy;
	force_core(&in, dt, &sx, &sy);
	double ox[4], oy[4];
	_mm256_storeu_pd(ox, sx);
	_mm256_storeu_pd(oy, sy);
	for (int l = 0; l < m; l++)
		force[l] = v2(ox[l], oy[l]);
}

/* Lane l is live when l < m. */
__attribute__((target("avx2"))) static inline __m256i live_lanes(int m)
{
	return _mm256_cmpgt_epi64(_mm256_set1_epi64x(m), _mm256_set_epi64x(3, 2, 1, 0));
}

/* Counts (0 <= n < 2^52) as doubles: n's bits under 2^52's exponent, less 2^52. */
__attribute__((target("avx2"))) static inline __m256d count_to_pd(__m256i n)
{
	const __m256d big = _mm256_set1_pd(4503599627370496.0);
	return _mm256_sub_pd(_mm256_castsi256_pd(_mm256_or_si256(n, _mm256_castpd_si256(big))),
	                     big);
}

/* Four uint32 values, exactly, as doubles: the signed conversion is off by 2^32
 * for those of 2^31 and up. */
__attribute__((target("avx2"))) static inline __m256d u32_to_pd(__m128i x)
{
	__m256d d = _mm256_cvtepi32_pd(x);
	__m256d neg = _mm256_cmp_pd(d, _mm256_setzero_pd(), _CMP_LT_OQ);
	return _mm256_add_pd(d, _mm256_and_pd(neg, _mm256_set1_pd(4294967296.0)));
}

/* The lanes of plain flockers at grid positions first .. first + m - 1, in slots
 * s (dead lanes: slot 0), sharing parameters p: every value is the one
 * steer_flock_query_at and the agent give. */
__attribute__((target("avx2"), always_inline)) static inline void
plain_lanes(const steer_vehicles *v, bool one_group, size_t first, __m128i s, int m,
            const steer_params *p, scan_lane_consts *lc, __m256i *cap)
{
	const __m256i live = live_lanes(m);
#define LANES(a) _mm256_i32gather_pd(v->a, s, 8)
	const __m256d hx = LANES(hx), hy = LANES(hy);
	__m256i group = _mm256_setzero_si256();
	if (!one_group) {
		__m256i g = _mm256_cvtepu32_epi64(_mm_i32gather_epi32((const int *)v->group, s, 4));
		group = _mm256_or_si256(g, _mm256_slli_epi64(g, 32));
	}
	/* Dead lanes see nothing: their sight is -1. */
	const __m256d none = _mm256_set1_pd(-1.0);
	const __m256d sight2 = _mm256_blendv_pd(
	    none, _mm256_set1_pd(p->sight_distance * p->sight_distance), _mm256_castsi256_pd(live));
	const __m256d close2 =
	    _mm256_blendv_pd(none, _mm256_set1_pd(p->too_close_distance * p->too_close_distance),
	                     _mm256_castsi256_pd(live));
	*lc = (scan_lane_consts){
	    LANES(px),
	    LANES(py),
	    p->field_of_view ? hx : _mm256_setzero_pd(),
	    p->field_of_view ? hy : _mm256_setzero_pd(),
	    sight2,
	    close2,
	    group,
	    _mm256_add_epi64(_mm256_set1_epi64x((int64_t)first), _mm256_set_epi64x(3, 2, 1, 0)),
	    (uint32_t)first,
	    (uint32_t)first + (uint32_t)m,
	    {hx, hy, LANES(vx), LANES(vy), _mm256_set1_pd(p->max_speed),
	     u32_to_pd(_mm_i32gather_epi32((const int *)v->id, s, 4))}};
	*cap = _mm256_set1_epi64x(p->max_neighbours ? (int64_t)p->max_neighbours : INT64_MAX);
#undef LANES
}

/* The slots of the plain flockers at grid positions first .. first + m - 1; dead
 * lanes take slot 0. */
__attribute__((target("avx2"), always_inline)) static inline __m128i
lane_slots(const uint32_t *slot, size_t first, int m)
{
	const __m128i live32 = _mm_cmpgt_epi32(_mm_set1_epi32(m), _mm_set_epi32(3, 2, 1, 0));
	return _mm_maskload_epi32((const int *)(slot + first), live32);
}

/* The forces of plain_lanes' flockers (slots s) from their sums, into fx and fy. */
__attribute__((target("avx2"), always_inline)) static inline void
plain_forces_out(const scan_acc *acc, const scan_lane_consts *lc, __m128i s, int m,
                 const steer_params *p, double dt, double *fx, double *fy)
{
	const force_in in = {count_to_pd(acc->n),
	                     acc->sep_x,
	                     acc->sep_y,
	                     acc->dx,
	                     acc->dy,
	                     acc->vx,
	                     acc->vy,
	                     lc->sep.vx,
	                     lc->sep.vy,
	                     _mm256_set1_pd(p->separation_weight),
	                     _mm256_set1_pd(p->cohesion_weight),
	                     _mm256_set1_pd(p->alignment_weight),
	                     lc->sep.speed,
	                     _mm256_set1_pd(p->max_force),
	                     lc->sep.hx,
	                     lc->sep.hy,
	                     _mm256_set1_pd(p->cruise_speed),
	                     _mm256_set1_pd(p->cruise_weight)};
	__m256d sx, sy;
	force_core(&in, dt, &sx, &sy);
	double ox[4], oy[4];
	uint32_t at[4];
	_mm256_storeu_pd(ox, sx);
	_mm256_storeu_pd(oy, sy);
	_mm_storeu_si128((__m128i *)at, s);
	for (int l = 0; l < m; l++) {
		fx[at[l]] = ox[l];
		fy[at[l]] = oy[l];
	}
}

/* steer_flock_forces_at with lanes read straight from the arrays. */
__attribute__((target("avx2"))) static void
forces_at_avx2(const steer_vehicles *v, const steer_flock_runs *runs, bool one_group, size_t first,
               int m, const steer_params *p, double dt, double *fx, double *fy)
{
	const __m128i s = lane_slots(runs->slot, first, m);
	scan_lane_consts lc;
	__m256i cap;
	plain_lanes(v, one_group, first, s, m, p, &lc, &cap);
	scan_acc acc = scan_acc_zero();
	const scan_tests t = {p->field_of_view, !one_group, false};
	SCAN_FOR_TESTS(scan_runs, v, runs, &lc, cap, (1 << m) - 1, t, &acc);
	plain_forces_out(&acc, &lc, s, m, p, dt, fx, fy);
}

__attribute__((target(AVX512_TARGET))) static void
forces_at_avx512(const steer_vehicles *v, const steer_flock_runs *runs, bool one_group,
                 size_t first, int m, const steer_params *p, double dt, double *fx, double *fy)
{
	const __m128i s = lane_slots(runs->slot, first, m);
	scan_lane_consts lc;
	__m256i cap;
	plain_lanes(v, one_group, first, s, m, p, &lc, &cap);
	scan_acc acc = scan_acc_zero();
	const scan_tests t = {p->field_of_view, !one_group, false};
	SCAN_FOR_TESTS(scan_runs_k, v, runs, &lc, cap, (1 << m) - 1, t, &acc);
	plain_forces_out(&acc, &lc, s, m, p, dt, fx, fy);
}

/* --- eight plain flockers in 512-bit registers ------------------------------------ */

/* Where the CPU has AVX-512, a lane group of plain flockers is eight vehicles, one
 * per 64-bit lane of a 512-bit register. Eight members span more cells than four,
 * so their shared block is wider, but only by the members' own cells: a
 * candidate costs the same instructions for eight lanes as for four, and the work of
 * a group (the loops' ends, the lanes' set-up, the force) is shared by twice as
 * many. On steer-bench's flock a group tests 5.7 candidates per member, against 8.5
 * in four lanes. The arithmetic is the four-lane form's, operation for operation. */
typedef struct acc8 {
	__m512i n;
	__m512d dx, dy, vx, vy, sep_x, sep_y;
} acc8;

typedef struct lanes8 {
	__m512d qx, qy, fov_hx, fov_hy, sight2, close2;
	__m512i group, self;
	uint32_t own_from, own_to;
	__m512d hx, hy, vx, vy, speed, ids;
} lanes8;

/* separate_lanes for eight lanes, those in close. */
__attribute__((target(AVX512_TARGET))) static inline void separate8(__mmask8 close, __m512d dx,
                                                                    __m512d dy, __m512d d2,
                                                                    const lanes8 *lc,
                                                                    double other_id, acc8 *acc)
{
	__m512d s = _mm512_div_pd(_mm512_set1_pd(-1.0), _mm512_sqrt_pd(d2));
	__m512d ax = _mm512_mul_pd(dx, s), ay = _mm512_mul_pd(dy, s);
	/* v2_perp(h) = (-h.y, h.x): a sign flip, not a subtraction from zero. */
	__m512d zx = _mm512_castsi512_pd(
	    _mm512_xor_si512(_mm512_castpd_si512(lc->hy), _mm512_set1_epi64(INT64_MIN)));
	__m512d zy = lc->hx;
	__mmask8 flip = _mm512_cmp_pd_mask(lc->ids, _mm512_set1_pd(other_id), _CMP_GT_OQ);
	zx = _mm512_mask_mul_pd(zx, flip, zx, _mm512_set1_pd(-1.0));
	zy = _mm512_mask_mul_pd(zy, flip, zy, _mm512_set1_pd(-1.0));
	__mmask8 apart = _mm512_cmp_pd_mask(d2, _mm512_setzero_pd(), _CMP_GT_OQ);
	ax = _mm512_mask_blend_pd(apart, zx, ax);
	ay = _mm512_mask_blend_pd(apart, zy, ay);
	__m512d tx = _mm512_sub_pd(_mm512_mul_pd(ax, lc->speed), lc->vx);
	__m512d ty = _mm512_sub_pd(_mm512_mul_pd(ay, lc->speed), lc->vy);
	acc->sep_x = _mm512_mask_add_pd(acc->sep_x, close, acc->sep_x, tx);
	acc->sep_y = _mm512_mask_add_pd(acc->sep_y, close, acc->sep_y, ty);
}

/* scan_candidate_k for eight lanes, those in open. */
__attribute__((target(AVX512_TARGET), always_inline)) static inline void
candidate8(const steer_vehicles *v, const lanes8 *lc, __m512d x, __m512d y, uint32_t c, __m512i k,
           __mmask8 open, const scan_tests t, acc8 *acc)
{
	__m512d dx = _mm512_sub_pd(_mm512_set1_pd(v->px[c]), x);
	__m512d dy = _mm512_sub_pd(_mm512_set1_pd(v->py[c]), y);
	__m512d d2 = _mm512_add_pd(_mm512_mul_pd(dx, dx), _mm512_mul_pd(dy, dy));
	__mmask8 in = _mm512_mask_cmp_pd_mask(open, d2, lc->sight2, _CMP_LE_OQ);
	if (t.fov)
		in = _mm512_mask_cmp_pd_mask(
		    in, _mm512_add_pd(_mm512_mul_pd(dx, lc->fov_hx), _mm512_mul_pd(dy, lc->fov_hy)),
		    _mm512_setzero_pd(), _CMP_GE_OQ);
	if (t.group)
		in = _mm512_mask_cmpeq_epi64_mask(in, lc->group,
		                                  _mm512_set1_epi32((int32_t)v->group[c]));
	if (t.self)
		in = _mm512_mask_cmpneq_epi64_mask(in, lc->self, k);
	acc->n = _mm512_mask_add_epi64(acc->n, in, acc->n, _mm512_set1_epi64(1));
	acc->dx = _mm512_mask_add_pd(acc->dx, in, acc->dx, dx);
	acc->dy = _mm512_mask_add_pd(acc->dy, in, acc->dy, dy);
	acc->vx = _mm512_mask_add_pd(acc->vx, in, acc->vx, _mm512_set1_pd(v->vx[c]));
	acc->vy = _mm512_mask_add_pd(acc->vy, in, acc->vy, _mm512_set1_pd(v->vy[c]));
	__mmask8 close = _mm512_mask_cmp_pd_mask(in, d2, lc->close2, _CMP_LT_OQ);
	if (close)
		separate8(close, dx, dy, d2, lc, (double)v->id[c], acc);
}

/* scan_runs_k for eight lanes, the live ones, under a cap (INT64_MAX: none). A run in
 * which some lane may reach its cap tests each candidate for the lanes still under
 * it, and ends early once none is. */
__attribute__((target(AVX512_TARGET), always_inline)) static inline void
scan_runs8(const steer_vehicles *v, const steer_flock_runs *runs, const lanes8 *lc, __m512i cap,
           __mmask8 live, const scan_tests t, acc8 *acc)
{
	const scan_tests self = {t.fov, t.group, true};
	for (int r = 0; r < runs->count && (_mm512_cmpgt_epi64_mask(cap, acc->n) & live); r++) {
		const __m512d x = _mm512_sub_pd(lc->qx, _mm512_set1_pd(runs->r[r].shx));
		const __m512d y = _mm512_sub_pd(lc->qy, _mm512_set1_pd(runs->r[r].shy));
		uint32_t from = runs->r[r].from, to = runs->r[r].to;
		__m512i after = _mm512_add_epi64(acc->n, _mm512_set1_epi64((int64_t)(to - from)));
		if (_mm512_cmpgt_epi64_mask(after, cap)) {
			__m512i k = _mm512_set1_epi64((int64_t)from);
			for (uint32_t s = from; s < to; s++) {
				__mmask8 open = _mm512_cmpgt_epi64_mask(cap, acc->n);
				if ((s - from) % CAP_CHECK_EVERY == CAP_CHECK_EVERY - 1 &&
				    !(open & live))
					break;
				candidate8(v, lc, x, y, runs->slot[s], k, open, self, acc);
				k = _mm512_add_epi64(k, _mm512_set1_epi64(1));
			}
			continue;
		}
#define CANDIDATE(s, k, tests) candidate8(v, lc, x, y, runs->slot[s], k, 0xff, tests, acc)
		SCAN_SPAN(lc, from, to, t, CANDIDATE, _mm512_set1_epi64, _mm512_add_epi64);
#undef CANDIDATE
	}
}

/* plain_lanes for eight lanes in slots s, lanes live set. */
__attribute__((target(AVX512_TARGET), always_inline)) static inline void
plain_lanes8(const steer_vehicles *v, bool one_group, size_t first, __m256i s, __mmask8 live, int m,
             const steer_params *p, lanes8 *lc)
{
#define LANES(a) _mm512_i32gather_pd(s, v->a, 8)
	const __m512d hx = LANES(hx), hy = LANES(hy);
	__m512i group = _mm512_setzero_si512();
	if (!one_group) {
		__m512i g =
		    _mm512_cvtepu32_epi64(_mm256_i32gather_epi32((const int *)v->group, s, 4));
		group = _mm512_or_si512(g, _mm512_slli_epi64(g, 32));
	}
	const __m512d none = _mm512_set1_pd(-1.0);
	const __m512d zero = _mm512_setzero_pd();
	*lc = (lanes8){
	    LANES(px),
	    LANES(py),
	    p->field_of_view ? hx : zero,
	    p->field_of_view ? hy : zero,
	    _mm512_mask_blend_pd(live, none, _mm512_set1_pd(p->sight_distance * p->sight_distance)),
	    _mm512_mask_blend_pd(live, none,
	                         _mm512_set1_pd(p->too_close_distance * p->too_close_distance)),
	    group,
	    _mm512_add_epi64(_mm512_set1_epi64((int64_t)first),
	                     _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0)),
	    (uint32_t)first,
	    (uint32_t)first + (uint32_t)m,
	    hx,
	    hy,
	    LANES(vx),
	    LANES(vy),
	    _mm512_set1_pd(p->max_speed),
	    _mm512_cvtepu32_pd(_mm256_i32gather_epi32((const int *)v->id, s, 4))};
#undef LANES
}

/* force_core for eight lanes. */
__attribute__((target(AVX512_TARGET), always_inline)) static inline void
force_core8(const acc8 *acc, const lanes8 *lc, const steer_params *p, double dt, __m512d *out_x,
            __m512d *out_y)
{
	const __m512d zero = _mm512_setzero_pd(), big = _mm512_set1_pd(4503599627370496.0);
	const __m512d n = _mm512_sub_pd(
	    _mm512_castsi512_pd(_mm512_or_si512(acc->n, _mm512_castpd_si512(big))), big);
	const __m512d vx = lc->vx, vy = lc->vy, speed = lc->speed;
	const __m512d w_sep = _mm512_set1_pd(p->separation_weight);
	const __m512d w_coh = _mm512_set1_pd(p->cohesion_weight);
	const __m512d w_ali = _mm512_set1_pd(p->alignment_weight);
	__mmask8 has = _mm512_cmp_pd_mask(n, zero, _CMP_GT_OQ);
	__m512d inv = _mm512_div_pd(_mm512_set1_pd(1.0), n);
	__m512d sep_x = _mm512_mul_pd(acc->sep_x, w_sep);
	__m512d sep_y = _mm512_mul_pd(acc->sep_y, w_sep);
	__m512d mdx = _mm512_mul_pd(acc->dx, inv);
	__m512d mdy = _mm512_mul_pd(acc->dy, inv);
	__m512d len =
	    _mm512_sqrt_pd(_mm512_add_pd(_mm512_mul_pd(mdx, mdx), _mm512_mul_pd(mdy, mdy)));
	__mmask8 some = _mm512_cmp_pd_mask(len, zero, _CMP_GT_OQ);
	__m512d rl = _mm512_div_pd(_mm512_set1_pd(1.0), len);
	__m512d ux = _mm512_maskz_mul_pd(some, mdx, rl);
	__m512d uy = _mm512_maskz_mul_pd(some, mdy, rl);
	__m512d coh_x = _mm512_mul_pd(_mm512_sub_pd(_mm512_mul_pd(ux, speed), vx), w_coh);
	__m512d coh_y = _mm512_mul_pd(_mm512_sub_pd(_mm512_mul_pd(uy, speed), vy), w_coh);
	__m512d ali_x = _mm512_mul_pd(_mm512_sub_pd(_mm512_mul_pd(acc->vx, inv), vx), w_ali);
	__m512d ali_y = _mm512_mul_pd(_mm512_sub_pd(_mm512_mul_pd(acc->vy, inv), vy), w_ali);
	__m512d sx = _mm512_maskz_add_pd(has, _mm512_add_pd(zero, sep_x), ali_x);
	__m512d sy = _mm512_maskz_add_pd(has, _mm512_add_pd(zero, sep_y), ali_y);
	sx = _mm512_maskz_add_pd(has, sx, coh_x);
	sy = _mm512_maskz_add_pd(has, sy, coh_y);
	if (p->cruise_speed > 0.0) { /* every lane has p: cruise on in all or none */
		__m512d e = _mm512_sub_pd(
		    _mm512_set1_pd(p->cruise_speed),
		    _mm512_sqrt_pd(_mm512_add_pd(_mm512_mul_pd(vx, vx), _mm512_mul_pd(vy, vy))));
		const __m512d w_cru = _mm512_set1_pd(p->cruise_weight);
		sx = _mm512_add_pd(sx, _mm512_mul_pd(_mm512_mul_pd(lc->hx, e), w_cru));
		sy = _mm512_add_pd(sy, _mm512_mul_pd(_mm512_mul_pd(lc->hy, e), w_cru));
	}
	const __m512d inv_dt = _mm512_set1_pd(1.0 / dt);
	sx = _mm512_mul_pd(sx, inv_dt);
	sy = _mm512_mul_pd(sy, inv_dt);
	const __m512d mf = _mm512_set1_pd(p->max_force);
	__m512d l2 = _mm512_add_pd(_mm512_mul_pd(sx, sx), _mm512_mul_pd(sy, sy));
	__mmask8 over = _mm512_mask_cmp_pd_mask(_mm512_cmp_pd_mask(l2, zero, _CMP_GT_OQ), l2,
	                                        _mm512_mul_pd(mf, mf), _CMP_GT_OQ);
	__m512d k = _mm512_div_pd(mf, _mm512_sqrt_pd(l2));
	*out_x = _mm512_mask_mul_pd(sx, over, sx, k);
	*out_y = _mm512_mask_mul_pd(sy, over, sy, k);
}

/* The candidates of all the runs: a bound on how many any lane can take. */
static uint32_t run_candidates(const steer_flock_runs *runs)
{
	uint32_t total = 0;
	for (int r = 0; r < runs->count; r++)
		total += runs->r[r].to - runs->r[r].from;
	return total;
}

/* steer_flock_forces_at for up to eight lanes. In a crowd, where the runs hold
 * several times max_neighbours candidates, the four-lane form takes each half: its
 * capped loop's chain from a lane's count to its next test is shorter. */
#define CROWD 4
__attribute__((target(AVX512_TARGET))) static void
forces_at_avx512x8(const steer_vehicles *v, const steer_flock_runs *runs, bool one_group,
                   size_t first, int m, const steer_params *p, double dt, double *fx, double *fy)
{
	if (p->max_neighbours && run_candidates(runs) > CROWD * p->max_neighbours) {
		for (int h = 0; h < m; h += 4)
			forces_at_avx512(v, runs, one_group, first + (size_t)h,
			                 m - h < 4 ? m - h : 4, p, dt, fx, fy);
		return;
	}
	const __mmask8 live = (__mmask8)((1u << m) - 1);
	const bool fov = p->field_of_view;
	const __m256i s = _mm256_maskz_loadu_epi32(live, runs->slot + first);
	lanes8 lc;
	plain_lanes8(v, one_group, first, s, live, m, p, &lc);
	acc8 acc = {_mm512_setzero_si512(), _mm512_setzero_pd(), _mm512_setzero_pd(),
	            _mm512_setzero_pd(),    _mm512_setzero_pd(), _mm512_setzero_pd(),
	            _mm512_setzero_pd()};
	const __m512i cap =
	    _mm512_set1_epi64(p->max_neighbours ? (int64_t)p->max_neighbours : INT64_MAX);
	SCAN_FOR_TESTS(scan_runs8, v, runs, &lc, cap, live, ((scan_tests){fov, !one_group, false}),
	               &acc);
	__m512d sx, sy;
	force_core8(&acc, &lc, p, dt, &sx, &sy);
	double ox[8], oy[8];
	uint32_t at[8];
	_mm512_storeu_pd(ox, sx);
	_mm512_storeu_pd(oy, sy);
	_mm256_storeu_si256((__m256i *)at, s);
	for (int l = 0; l < m; l++) {
		fx[at[l]] = ox[l];
		fy[at[l]] = oy[l];
	}
}
#endif

void steer_flock_force_lanes(const steer_agent *a, const steer_flock_sums *sums, int m, double dt,
                             steer_vec2 *force)
{
#ifdef STEER_HAVE_AVX2
	if (steer_simd_avx2()) {
		force_lanes_avx2(a, sums, m, dt, force);
		return;
	}
#endif
	force_lanes_scalar(a, sums, m, dt, force);
}

int steer_flock_group_size(void)
{
	return steer_simd_avx512() ? 8 : 4;
}

void steer_flock_scan_lanes(const steer_vehicles *v, const steer_flock_runs *runs, bool one_group,
                            const steer_flock_query *q, size_t first, int m, steer_flock_sums *out)
{
	for (int h = 0; h < m; h += STEER_FLOCK_LANES) {
		int k = m - h < STEER_FLOCK_LANES ? m - h : STEER_FLOCK_LANES;
#ifdef STEER_HAVE_AVX2
		if (steer_simd_avx512()) {
			scan_lanes_avx512(v, runs, one_group, q + h, first + (size_t)h, k, out + h);
			continue;
		}
		if (steer_simd_avx2()) {
			scan_lanes_avx2(v, runs, one_group, q + h, first + (size_t)h, k, out + h);
			continue;
		}
#endif
		scan_lanes_scalar(v, runs, q + h, k, out + h);
	}
}

void steer_flock_forces_at(const steer_vehicles *v, const steer_flock_runs *runs, bool one_group,
                           size_t first, int m, const steer_params *p, double dt, double *fx,
                           double *fy)
{
#ifdef STEER_HAVE_AVX2
	if (steer_simd_avx512()) {
		forces_at_avx512x8(v, runs, one_group, first, m, p, dt, fx, fy);
		return;
	}
	if (steer_simd_avx2()) {
		for (int h = 0; h < m; h += STEER_FLOCK_LANES)
			forces_at_avx2(v, runs, one_group, first + (size_t)h,
			               m - h < STEER_FLOCK_LANES ? m - h : STEER_FLOCK_LANES, p, dt,
			               fx, fy);
		return;
	}
#endif
	steer_agent a[STEER_FLOCK_GROUP_MAX];
	steer_flock_query q[STEER_FLOCK_GROUP_MAX];
	steer_flock_sums sums[STEER_FLOCK_GROUP_MAX];
	steer_vec2 force[STEER_FLOCK_GROUP_MAX];
	for (int l = 0; l < m; l++) {
		size_t i = runs->slot[first + (size_t)l];
		a[l] = (steer_agent){v2(v->vx[i], v->vy[i]), v2(v->hx[i], v->hy[i]), p};
		q[l] = steer_flock_query_at(v, i, &a[l]);
	}
	scan_lanes_scalar(v, runs, q, m, sums);
	force_lanes_scalar(a, sums, m, dt, force);
	for (int l = 0; l < m; l++) {
		fx[runs->slot[first + (size_t)l]] = force[l].x;
		fy[runs->slot[first + (size_t)l]] = force[l].y;
	}
}
