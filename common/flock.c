#include "flock.h"

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

/* Neighbours among the contiguous slots [from, to), all shifted by one seam shift. */
static void scan_run(const steer_vehicles *v, const steer_flock_query *q, uint32_t from,
                     uint32_t to, double shift_x, double shift_y, steer_flock_sums *f)
{
	const double x = q->x - shift_x, y = q->y - shift_y;
	const double hx = q->a->h.x, hy = q->a->h.y;
	for (uint32_t k = from; k < to && !capped(q, f); k++) {
		double dx = v->px[k] - x, dy = v->py[k] - y;
		double d2 = dx * dx + dy * dy;
		if (d2 <= q->sight2 && v->group[k] == q->group && k != q->self &&
		    (!q->fov || dx * hx + dy * hy >= 0.0))
			take(v, q, k, dx, dy, d2, f);
	}
}

/* The slow path for grids so coarse that a span covers a whole wrapping axis: every
 * neighbour is wrapped on its own. */
static void scan_run_wrapped(const steer_vehicles *v, const steer_flock_query *q, uint32_t from,
                             uint32_t to, double width, double height, steer_flock_sums *f)
{
	for (uint32_t k = from; k < to && !capped(q, f); k++) {
		double dx = steer_wrap_axis(v->px[k] - q->x, width);
		double dy = steer_wrap_axis(v->py[k] - q->y, height);
		double d2 = dx * dx + dy * dy;
		if (d2 <= q->sight2 && v->group[k] == q->group && k != q->self &&
		    (!q->fov || dx * q->a->h.x + dy * q->a->h.y >= 0.0))
			take(v, q, k, dx, dy, d2, f);
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
 * those cells are consecutive in storage. */
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
			scan_run_wrapped(c->v, q, from, to, c->width, c->height, f);
		else
			scan_run(c->v, q, from, to, seam_shift(sx, kx, c->width), shy, f);
		kx = end + 1;
	}
}

void steer_flock_scan_one(const steer_vehicles *v, const steer_grid *g, double width,
                          double height, const steer_flock_query *q, steer_flock_sums *out)
{
	memset(out, 0, sizeof *out);
	double r = q->a->prm->sight_distance;
	steer_grid_span sx = steer_grid_span_x(g, q->x - r, q->x + r);
	steer_grid_span sy = steer_grid_span_y(g, q->y - r, q->y + r);
	scan_ctx c = {v, g, width, height,
	              g->wrap && (sx.last - sx.first + 1 >= g->nx || sy.last - sy.first + 1 >= g->ny)};
	int own_y = steer_grid_axis_index(q->y, g->ch, g->ny);
	if (own_y < sy.first || own_y > sy.last)
		own_y = sy.first;
	scan_row(&c, q, &sx, own_y, &sy, out);
	for (int ky = sy.first; ky <= sy.last && !capped(q, out); ky++)
		if (ky != own_y)
			scan_row(&c, q, &sx, ky, &sy, out);
}

/* --- the members of one cell, one per lane ------------------------------------------ */

bool steer_flock_cell_runs(const steer_grid *g, double width, double height, uint32_t cell,
                           steer_flock_runs *out)
{
	if (g->wrap && (g->nx <= 3 || g->ny <= 3))
		return false;
	int cx = (int)(cell % (uint32_t)g->nx), cy = (int)(cell / (uint32_t)g->nx);
	steer_grid_span sx = {cx - 1, cx + 1, g->nx, g->wrap};
	steer_grid_span sy = {cy - 1, cy + 1, g->ny, g->wrap};
	if (!g->wrap) {
		sx.first = cx > 0 ? cx - 1 : 0;
		sx.last = cx + 1 < g->nx ? cx + 1 : g->nx - 1;
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
			scan_run(v, &q[l], runs->r[r].from, runs->r[r].to, runs->r[r].shx,
			         runs->r[r].shy, &out[l]);
	}
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define FLOCK_HAVE_AVX2 1
#include <immintrin.h>

/* How often, in candidates, a crowd's lanes are checked for all having reached their
 * cap: often enough that a packed cell stops within a few candidates of it. */
#define CAP_CHECK_EVERY 16u

/* The separation of each too-close lane from candidate k, steer_separate_one's
 * arithmetic in lanes: away = d * (-1/|d|), or on top of each other the heading's
 * perpendicular, flipped for the larger id; then away * max_speed - v. */
__attribute__((target("avx2"))) static inline void
separate_lanes(__m256d close, __m256d dx, __m256d dy, __m256d d2, const double *lane_consts,
               double other_id, __m256d *sep_x, __m256d *sep_y)
{
	const __m256d hx = _mm256_loadu_pd(lane_consts + 0), hy = _mm256_loadu_pd(lane_consts + 4);
	const __m256d vx = _mm256_loadu_pd(lane_consts + 8), vy = _mm256_loadu_pd(lane_consts + 12);
	const __m256d speed = _mm256_loadu_pd(lane_consts + 16);
	const __m256d ids = _mm256_loadu_pd(lane_consts + 20);
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

/* Every running sum starts at +0.0 and so is never -0.0: adding the +0.0 of a lane
 * that did not take the candidate leaves it as it was, so a masked add is the scalar
 * "add if taken" bit for bit. No fused multiply-add is enabled here, and ISO C mode
 * keeps the compiler from contracting, so each lane rounds as the scalar code does. */
__attribute__((target("avx2"))) static void
scan_lanes_avx2(const steer_vehicles *v, const steer_flock_runs *runs,
                const steer_flock_query *q, int m, steer_flock_sums *out)
{
	double c[10][4];  /* x y hx hy sight2 close2 group self cap fov_off */
	double cs[24];    /* hx hy vx vy max_speed id, for separate_lanes */
	for (int l = 0; l < 4; l++) {
		bool on = l < m;
		c[0][l] = on ? q[l].x : 0.0;
		c[1][l] = on ? q[l].y : 0.0;
		c[2][l] = on ? q[l].a->h.x : 0.0;
		c[3][l] = on ? q[l].a->h.y : 0.0;
		c[4][l] = on ? q[l].sight2 : -1.0; /* an empty lane takes nothing */
		c[5][l] = on ? q[l].close2 : -1.0;
		c[6][l] = on ? (double)q[l].group : -1.0;
		c[7][l] = on ? (double)q[l].self : -1.0;
		c[8][l] = !on ? 0.0 : q[l].cap ? (double)q[l].cap : INFINITY;
		c[9][l] = on && !q[l].fov ? 1.0 : 0.0;
		cs[0 + l] = c[2][l];
		cs[4 + l] = c[3][l];
		cs[8 + l] = on ? q[l].a->v.x : 0.0;
		cs[12 + l] = on ? q[l].a->v.y : 0.0;
		cs[16 + l] = on ? q[l].a->prm->max_speed : 0.0;
		cs[20 + l] = on ? (double)q[l].self_id : 0.0;
	}
	const __m256d qx = _mm256_loadu_pd(c[0]), qy = _mm256_loadu_pd(c[1]);
	const __m256d hx = _mm256_loadu_pd(c[2]), hy = _mm256_loadu_pd(c[3]);
	const __m256d sight2 = _mm256_loadu_pd(c[4]), close2 = _mm256_loadu_pd(c[5]);
	const __m256d group = _mm256_loadu_pd(c[6]), self = _mm256_loadu_pd(c[7]);
	const __m256d cap = _mm256_loadu_pd(c[8]);
	const __m256d no_fov = _mm256_cmp_pd(_mm256_loadu_pd(c[9]), _mm256_setzero_pd(), _CMP_GT_OQ);
	const __m256d one = _mm256_set1_pd(1.0), zero = _mm256_setzero_pd();
	__m256d n = zero, sum_dx = zero, sum_dy = zero, sum_vx = zero, sum_vy = zero;
	__m256d sep_x = zero, sep_y = zero;
	const double *restrict px = v->px, *restrict py = v->py;
	const double *restrict vx = v->vx, *restrict vy = v->vy;
	const uint32_t *restrict grp = v->group;

	for (int r = 0; r < runs->count; r++) {
		if (!_mm256_movemask_pd(_mm256_cmp_pd(n, cap, _CMP_LT_OQ)))
			break;
		const __m256d x = _mm256_sub_pd(qx, _mm256_set1_pd(runs->r[r].shx));
		const __m256d y = _mm256_sub_pd(qy, _mm256_set1_pd(runs->r[r].shy));
		uint32_t from = runs->r[r].from, to = runs->r[r].to;
		for (uint32_t k = from; k < to; k++) {
			__m256d open = _mm256_cmp_pd(n, cap, _CMP_LT_OQ);
			if ((k - from) % CAP_CHECK_EVERY == CAP_CHECK_EVERY - 1 &&
			    !_mm256_movemask_pd(open))
				break;
			__m256d dx = _mm256_sub_pd(_mm256_broadcast_sd(&px[k]), x);
			__m256d dy = _mm256_sub_pd(_mm256_broadcast_sd(&py[k]), y);
			__m256d d2 = _mm256_add_pd(_mm256_mul_pd(dx, dx), _mm256_mul_pd(dy, dy));
			__m256d ahead = _mm256_cmp_pd(
			    _mm256_add_pd(_mm256_mul_pd(dx, hx), _mm256_mul_pd(dy, hy)), zero, _CMP_GE_OQ);
			__m256d in = _mm256_and_pd(_mm256_cmp_pd(d2, sight2, _CMP_LE_OQ), open);
			in = _mm256_and_pd(in, _mm256_cmp_pd(group, _mm256_set1_pd((double)grp[k]),
			                                     _CMP_EQ_OQ));
			in = _mm256_and_pd(in, _mm256_cmp_pd(self, _mm256_set1_pd((double)k), _CMP_NEQ_OQ));
			in = _mm256_and_pd(in, _mm256_or_pd(ahead, no_fov));
			n = _mm256_add_pd(n, _mm256_and_pd(in, one));
			sum_dx = _mm256_add_pd(sum_dx, _mm256_and_pd(in, dx));
			sum_dy = _mm256_add_pd(sum_dy, _mm256_and_pd(in, dy));
			sum_vx = _mm256_add_pd(sum_vx, _mm256_and_pd(in, _mm256_broadcast_sd(&vx[k])));
			sum_vy = _mm256_add_pd(sum_vy, _mm256_and_pd(in, _mm256_broadcast_sd(&vy[k])));
			__m256d close = _mm256_and_pd(in, _mm256_cmp_pd(d2, close2, _CMP_LT_OQ));
			if (_mm256_movemask_pd(close))
				separate_lanes(close, dx, dy, d2, cs, (double)v->id[k], &sep_x, &sep_y);
		}
	}
	double o[7][4];
	_mm256_storeu_pd(o[0], sep_x);
	_mm256_storeu_pd(o[1], sep_y);
	_mm256_storeu_pd(o[2], sum_dx);
	_mm256_storeu_pd(o[3], sum_dy);
	_mm256_storeu_pd(o[4], sum_vx);
	_mm256_storeu_pd(o[5], sum_vy);
	_mm256_storeu_pd(o[6], n);
	for (int l = 0; l < m; l++) {
		out[l].sep = v2(o[0][l], o[1][l]);
		out[l].d = v2(o[2][l], o[3][l]);
		out[l].v = v2(o[4][l], o[5][l]);
		out[l].n = (uint32_t)o[6][l];
	}
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

static void force_lanes_scalar(const steer_agent *a, const steer_flock_sums *sums, int m,
                               double dt, steer_vec2 *force)
{
	for (int l = 0; l < m; l++) {
		steer_vec2 parts[STEER_PART_COUNT];
		uint32_t mask = 0;
		steer_flock_parts(&a[l], &sums[l], parts, &mask);
		force[l] = steer_combine_parts(parts, mask, a[l].prm, dt);
	}
}

#ifdef FLOCK_HAVE_AVX2
/* The square roots and divisions of four boids' forces side by side instead of one
 * boid's long chain after another's. Each line is the scalar code's operation in
 * the scalar code's order: steer_cohere (a seek of the mean offset), steer_align,
 * the weights, the sum separation + alignment + cohesion from +0, then / dt and
 * v2_truncate to max_force. */
__attribute__((target("avx2"))) static void
force_lanes_avx2(const steer_agent *a, const steer_flock_sums *sums, int m, double dt,
                 steer_vec2 *force)
{
	double c[16][4];
	for (int l = 0; l < 4; l++) {
		bool on = l < m;
		const steer_flock_sums *f = &sums[on ? l : 0];
		const steer_agent *g = &a[on ? l : 0];
		const steer_params *p = g->prm;
		c[0][l] = f->sep.x;
		c[1][l] = f->sep.y;
		c[2][l] = f->d.x;
		c[3][l] = f->d.y;
		c[4][l] = f->v.x;
		c[5][l] = f->v.y;
		c[6][l] = on ? (double)f->n : 0.0;
		c[7][l] = g->v.x;
		c[8][l] = g->v.y;
		c[9][l] = p->separation_weight;
		c[10][l] = p->alignment_weight;
		c[11][l] = p->cohesion_weight;
		c[12][l] = p->max_speed;
		c[13][l] = p->max_force;
	}
	const __m256d zero = _mm256_setzero_pd();
	__m256d n = _mm256_loadu_pd(c[6]);
	__m256d has = _mm256_cmp_pd(n, zero, _CMP_GT_OQ);
	__m256d inv = _mm256_div_pd(_mm256_set1_pd(1.0), n);
	__m256d vx = _mm256_loadu_pd(c[7]), vy = _mm256_loadu_pd(c[8]);
	/* separation */
	__m256d sep_x = _mm256_mul_pd(_mm256_loadu_pd(c[0]), _mm256_loadu_pd(c[9]));
	__m256d sep_y = _mm256_mul_pd(_mm256_loadu_pd(c[1]), _mm256_loadu_pd(c[9]));
	/* cohesion: seek the mean offset */
	__m256d mdx = _mm256_mul_pd(_mm256_loadu_pd(c[2]), inv);
	__m256d mdy = _mm256_mul_pd(_mm256_loadu_pd(c[3]), inv);
	__m256d len = _mm256_sqrt_pd(_mm256_add_pd(_mm256_mul_pd(mdx, mdx), _mm256_mul_pd(mdy, mdy)));
	__m256d some = _mm256_cmp_pd(len, zero, _CMP_GT_OQ);
	__m256d rl = _mm256_div_pd(_mm256_set1_pd(1.0), len);
	__m256d ux = _mm256_and_pd(some, _mm256_mul_pd(mdx, rl));
	__m256d uy = _mm256_and_pd(some, _mm256_mul_pd(mdy, rl));
	__m256d speed = _mm256_loadu_pd(c[12]);
	__m256d wc = _mm256_loadu_pd(c[11]);
	__m256d coh_x = _mm256_mul_pd(_mm256_sub_pd(_mm256_mul_pd(ux, speed), vx), wc);
	__m256d coh_y = _mm256_mul_pd(_mm256_sub_pd(_mm256_mul_pd(uy, speed), vy), wc);
	/* alignment: the mean velocity less our own */
	__m256d wa = _mm256_loadu_pd(c[10]);
	__m256d ali_x = _mm256_mul_pd(_mm256_sub_pd(_mm256_mul_pd(_mm256_loadu_pd(c[4]), inv), vx), wa);
	__m256d ali_y = _mm256_mul_pd(_mm256_sub_pd(_mm256_mul_pd(_mm256_loadu_pd(c[5]), inv), vy), wa);
	/* the sum, in part order, then per second and truncated */
	__m256d sx = _mm256_add_pd(_mm256_add_pd(_mm256_add_pd(zero, sep_x), ali_x), coh_x);
	__m256d sy = _mm256_add_pd(_mm256_add_pd(_mm256_add_pd(zero, sep_y), ali_y), coh_y);
	__m256d inv_dt = _mm256_set1_pd(1.0 / dt);
	sx = _mm256_mul_pd(sx, inv_dt);
	sy = _mm256_mul_pd(sy, inv_dt);
	__m256d mf = _mm256_loadu_pd(c[13]);
	__m256d l2 = _mm256_add_pd(_mm256_mul_pd(sx, sx), _mm256_mul_pd(sy, sy));
	__m256d over = _mm256_and_pd(_mm256_cmp_pd(l2, _mm256_mul_pd(mf, mf), _CMP_GT_OQ),
	                             _mm256_cmp_pd(l2, zero, _CMP_GT_OQ));
	__m256d k = _mm256_div_pd(mf, _mm256_sqrt_pd(l2));
	sx = _mm256_blendv_pd(sx, _mm256_mul_pd(sx, k), over);
	sy = _mm256_blendv_pd(sy, _mm256_mul_pd(sy, k), over);
	/* no neighbours: no parts, and the empty sum is +0 */
	double ox[4], oy[4];
	_mm256_storeu_pd(ox, _mm256_and_pd(has, sx));
	_mm256_storeu_pd(oy, _mm256_and_pd(has, sy));
	for (int l = 0; l < m; l++)
		force[l] = v2(ox[l], oy[l]);
}
#endif

void steer_flock_force_lanes(const steer_agent *a, const steer_flock_sums *sums, int m,
                             double dt, steer_vec2 *force)
{
#ifdef FLOCK_HAVE_AVX2
	if (__builtin_cpu_supports("avx2")) {
		force_lanes_avx2(a, sums, m, dt, force);
		return;
	}
#endif
	force_lanes_scalar(a, sums, m, dt, force);
}

void steer_flock_scan_lanes(const steer_vehicles *v, const steer_flock_runs *runs,
                            const steer_flock_query *q, int m, steer_flock_sums *out)
{
#ifdef FLOCK_HAVE_AVX2
	if (__builtin_cpu_supports("avx2")) {
		scan_lanes_avx2(v, runs, q, m, out);
		return;
	}
#endif
	scan_lanes_scalar(v, runs, q, m, out);
}
