#include "motion.h"

#include <math.h>

#include "simd.h"

void steer_apply_edges(const steer_world_config *c, double *x, double *y, double *vx, double *vy)
{
	if (c->edges == STEER_EDGE_WRAP) {
		if (*x < 0.0 || *x >= c->width) {
			*x -= c->width * floor(*x / c->width);
			if (*x >= c->width) /* rounding of a tiny negative */
				*x = 0.0;
		}
		if (*y < 0.0 || *y >= c->height) {
			*y -= c->height * floor(*y / c->height);
			if (*y >= c->height)
				*y = 0.0;
		}
	} else if (c->edges == STEER_EDGE_BOUNCE) {
		if (*x < 0.0) {
			*x = 0.0;
			*vx = fabs(*vx);
		} else if (*x > c->width) {
			*x = c->width;
			*vx = -fabs(*vx);
		}
		if (*y < 0.0) {
			*y = 0.0;
			*vy = fabs(*vy);
		} else if (*y > c->height) {
			*y = c->height;
			*vy = -fabs(*vy);
		}
	} else {
		/* No edges, yet not unbounded: past STEER_MAX_COORD the world would hold a
		 * vehicle that no save could restore. */
		*x = fmin(fmax(*x, -STEER_MAX_COORD), STEER_MAX_COORD);
		*y = fmin(fmax(*y, -STEER_MAX_COORD), STEER_MAX_COORD);
	}
}

/* Below this squared speed the heading keeps its last direction. */
#define STILL2 1e-18

static void move_one(steer_vehicles *v, const steer_params *p, const steer_world_config *c,
                     double dt, size_t i)
{
	steer_vec2 vel = v2(v->vx[i] + v->fx[i] / p->mass * dt, v->vy[i] + v->fy[i] / p->mass * dt);
	vel = v2_truncate(vel, p->max_speed);
	double x = v->px[i] + vel.x * dt, y = v->py[i] + vel.y * dt;
	steer_apply_edges(c, &x, &y, &vel.x, &vel.y);
	v->px[i] = x;
	v->py[i] = y;
	v->vx[i] = vel.x;
	v->vy[i] = vel.y;
	double l2 = v2_len2(vel);
	if (l2 > STILL2) {
		double inv = 1.0 / sqrt(l2);
		v->hx[i] = vel.x * inv;
		v->hy[i] = vel.y * inv;
	}
}

#ifdef STEER_HAVE_AVX2
#include <immintrin.h>

/* One axis of steer_apply_edges for four lanes: the same comparisons, and the
 * same arithmetic where the scalar code does any. */
__attribute__((target("avx2"), always_inline)) static inline void
edges_axis(steer_edges edges, double size, __m256d *p, __m256d *vel)
{
	const __m256d zero = _mm256_setzero_pd(), sz = _mm256_set1_pd(size);
	const __m256d sign = _mm256_set1_pd(-0.0);
	if (edges == STEER_EDGE_WRAP) {
		__m256d out = _mm256_or_pd(_mm256_cmp_pd(*p, zero, _CMP_LT_OQ),
		                           _mm256_cmp_pd(*p, sz, _CMP_GE_OQ));
		if (!_mm256_movemask_pd(out))
			return;
		__m256d fl = _mm256_floor_pd(_mm256_div_pd(*p, sz));
		__m256d t = _mm256_sub_pd(*p, _mm256_mul_pd(sz, fl));
		t = _mm256_andnot_pd(_mm256_cmp_pd(t, sz, _CMP_GE_OQ), t); /* rounding: 0 */
		*p = _mm256_blendv_pd(*p, t, out);
	} else if (edges == STEER_EDGE_BOUNCE) {
		__m256d lo = _mm256_cmp_pd(*p, zero, _CMP_LT_OQ);
		__m256d hi = _mm256_andnot_pd(lo, _mm256_cmp_pd(*p, sz, _CMP_GT_OQ));
		*p = _mm256_blendv_pd(*p, zero, lo);
		*p = _mm256_blendv_pd(*p, sz, hi);
		__m256d mag = _mm256_andnot_pd(sign, *vel); /* fabs */
		*vel = _mm256_blendv_pd(*vel, mag, lo);
		*vel = _mm256_blendv_pd(*vel, _mm256_or_pd(mag, sign), hi); /* -fabs */
	} else {
		const __m256d bound = _mm256_set1_pd(STEER_MAX_COORD);
		*p = _mm256_min_pd(_mm256_max_pd(*p, _mm256_xor_pd(bound, sign)), bound);
	}
}

/* move_one for slots i .. i + 3, lane by lane the same operations in the same
 * order: (f / mass) * dt, v2_truncate, position, edges, heading. */
__attribute__((target("avx2"))) static void move_four(steer_vehicles *v,
                                                      const steer_palette *params,
                                                      const steer_world_config *c, double dt,
                                                      size_t i)
{
	const steer_params *p[4];
	for (int l = 0; l < 4; l++)
		p[l] = steer_palette_get(params, v->param_set[i + (size_t)l]);
	const __m256d mass = _mm256_set_pd(p[3]->mass, p[2]->mass, p[1]->mass, p[0]->mass);
	const __m256d maxs =
	    _mm256_set_pd(p[3]->max_speed, p[2]->max_speed, p[1]->max_speed, p[0]->max_speed);
	const __m256d step = _mm256_set1_pd(dt), zero = _mm256_setzero_pd();
	__m256d vx =
	    _mm256_add_pd(_mm256_loadu_pd(&v->vx[i]),
	                  _mm256_mul_pd(_mm256_div_pd(_mm256_loadu_pd(&v->fx[i]), mass), step));
	__m256d vy =
	    _mm256_add_pd(_mm256_loadu_pd(&v->vy[i]),
	                  _mm256_mul_pd(_mm256_div_pd(_mm256_loadu_pd(&v->fy[i]), mass), step));
	/* v2_truncate: l2 > max * max && l2 > 0 scales by max / sqrt(l2). */
	__m256d l2 = _mm256_add_pd(_mm256_mul_pd(vx, vx), _mm256_mul_pd(vy, vy));
	__m256d over = _mm256_and_pd(_mm256_cmp_pd(l2, _mm256_mul_pd(maxs, maxs), _CMP_GT_OQ),
	                             _mm256_cmp_pd(l2, zero, _CMP_GT_OQ));
	if (_mm256_movemask_pd(over)) {
		__m256d k = _mm256_div_pd(maxs, _mm256_sqrt_pd(l2));
		vx = _mm256_blendv_pd(vx, _mm256_mul_pd(vx, k), over);
		vy = _mm256_blendv_pd(vy, _mm256_mul_pd(vy, k), over);
	}
	__m256d x = _mm256_add_pd(_mm256_loadu_pd(&v->px[i]), _mm256_mul_pd(vx, step));
	__m256d y = _mm256_add_pd(_mm256_loadu_pd(&v->py[i]), _mm256_mul_pd(vy, step));
	edges_axis(c->edges, c->width, &x, &vx);
	edges_axis(c->edges, c->height, &y, &vy);
	_mm256_storeu_pd(&v->px[i], x);
	_mm256_storeu_pd(&v->py[i], y);
	_mm256_storeu_pd(&v->vx[i], vx);
	_mm256_storeu_pd(&v->vy[i], vy);
	/* The heading: vel * (1 / sqrt(l2)) where l2 > STILL2, else as it was. */
	l2 = _mm256_add_pd(_mm256_mul_pd(vx, vx), _mm256_mul_pd(vy, vy));
	__m256d moving = _mm256_cmp_pd(l2, _mm256_set1_pd(STILL2), _CMP_GT_OQ);
	__m256d inv = _mm256_div_pd(_mm256_set1_pd(1.0), _mm256_sqrt_pd(l2));
	_mm256_storeu_pd(&v->hx[i], _mm256_blendv_pd(_mm256_loadu_pd(&v->hx[i]),
	                                             _mm256_mul_pd(vx, inv), moving));
	_mm256_storeu_pd(&v->hy[i], _mm256_blendv_pd(_mm256_loadu_pd(&v->hy[i]),
	                                             _mm256_mul_pd(vy, inv), moving));
}
#endif

void steer_motion_step(steer_vehicles *v, const steer_palette *params, const steer_world_config *c,
                       double dt, size_t from, size_t to)
{
	size_t i = from;
#ifdef STEER_HAVE_AVX2
	if (steer_simd_avx2())
		for (; i + 4 <= to; i += 4)
			move_four(v, params, c, dt, i);
#endif
	for (; i < to; i++)
		move_one(v, steer_palette_get(params, v->param_set[i]), c, dt, i);
}
