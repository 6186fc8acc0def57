/* The lanes layer in AVX2: four doubles in a 256-bit register. Only this header and
 * the other lanes_*.h hold vector intrinsics; kernel.c is written once against the
 * names below and compiled once per header, with that instruction set's flags.
 *
 * The contract every form keeps, so that all give the scalar form's bits: each
 * operation rounds as the C operator or libm function of the scalar form does (the
 * core is built with -ffp-contract=off: no fused multiply-add), lane by lane.
 * ln_add_if(acc, m, x) is "acc + x where m": here acc + (x & m), which is that bit
 * for bit when acc is never -0.0, as every running sum from +0.0 is. */
#ifndef STEER_LANES_AVX2_H
#define STEER_LANES_AVX2_H

#include <immintrin.h>
#include <stdbool.h>
#include <stdint.h>

#define LN_WIDTH 4
/* The form's table and level (kernel.h); CMake may name another. */
#ifndef LN_KERNEL
#define LN_KERNEL steer_kernel_avx2
#define LN_LEVEL  STEER_SIMD_AVX2
#endif

typedef __m256d ln_d; /* doubles, one per lane */
typedef __m256d ln_m; /* a lane mask: all ones or all zeros per lane */
typedef __m256i ln_i; /* counts, one per 64-bit lane */
typedef __m128i ln_x; /* slots to gather from, one per lane */

static inline ln_d ln_zero(void)
{
	return _mm256_setzero_pd();
}
static inline ln_d ln_set1(double x)
{
	return _mm256_set1_pd(x);
}
/* From values in registers: four stores read back as one vector would stall. */
static inline ln_d ln_make(const double a[LN_WIDTH])
{
	return _mm256_set_pd(a[3], a[2], a[1], a[0]);
}
static inline ln_d ln_iota(void)
{
	return _mm256_set_pd(3.0, 2.0, 1.0, 0.0);
}
static inline ln_d ln_load(const double *p)
{
	return _mm256_loadu_pd(p);
}
static inline void ln_store(double *p, ln_d a)
{
	_mm256_storeu_pd(p, a);
}
static inline void ln_store_u32(uint32_t *p, ln_d whole)
{
	_mm_storeu_si128((__m128i *)p, _mm256_cvtpd_epi32(whole));
}

static inline ln_d ln_add(ln_d a, ln_d b)
{
	return _mm256_add_pd(a, b);
}
static inline ln_d ln_sub(ln_d a, ln_d b)
{
	return _mm256_sub_pd(a, b);
}
static inline ln_d ln_mul(ln_d a, ln_d b)
{
	return _mm256_mul_pd(a, b);
}
static inline ln_d ln_div(ln_d a, ln_d b)
{
	return _mm256_div_pd(a, b);
}
static inline ln_d ln_sqrt(ln_d a)
{
	return _mm256_sqrt_pd(a);
}
static inline ln_d ln_floor(ln_d a)
{
	return _mm256_floor_pd(a);
}
/* As the scalar a < b ? a : b (the second operand where unordered). */
static inline ln_d ln_min(ln_d a, ln_d b)
{
	return _mm256_min_pd(a, b);
}
static inline ln_d ln_max(ln_d a, ln_d b)
{
	return _mm256_max_pd(a, b);
}
static inline ln_d ln_neg(ln_d a)
{
	return _mm256_xor_pd(a, _mm256_set1_pd(-0.0));
}
static inline ln_d ln_abs(ln_d a)
{
	return _mm256_andnot_pd(_mm256_set1_pd(-0.0), a);
}

static inline ln_m ln_lt(ln_d a, ln_d b)
{
	return _mm256_cmp_pd(a, b, _CMP_LT_OQ);
}
static inline ln_m ln_le(ln_d a, ln_d b)
{
	return _mm256_cmp_pd(a, b, _CMP_LE_OQ);
}
static inline ln_m ln_gt(ln_d a, ln_d b)
{
	return _mm256_cmp_pd(a, b, _CMP_GT_OQ);
}
static inline ln_m ln_ge(ln_d a, ln_d b)
{
	return _mm256_cmp_pd(a, b, _CMP_GE_OQ);
}
static inline ln_m ln_eq(ln_d a, ln_d b)
{
	return _mm256_cmp_pd(a, b, _CMP_EQ_OQ);
}
static inline ln_m ln_ne(ln_d a, ln_d b)
{
	return _mm256_cmp_pd(a, b, _CMP_NEQ_UQ);
}
static inline ln_m ln_and(ln_m a, ln_m b)
{
	return _mm256_and_pd(a, b);
}
static inline ln_m ln_or(ln_m a, ln_m b)
{
	return _mm256_or_pd(a, b);
}
static inline ln_m ln_andnot(ln_m a, ln_m b)
{
	return _mm256_andnot_pd(a, b);
}
static inline bool ln_any(ln_m m)
{
	return _mm256_movemask_pd(m) != 0;
}
static inline ln_m ln_first(int n)
{
	return _mm256_castsi256_pd(
	    _mm256_cmpgt_epi64(_mm256_set1_epi64x(n), _mm256_set_epi64x(3, 2, 1, 0)));
}
static inline ln_d ln_select(ln_m m, ln_d a, ln_d b)
{
	return _mm256_blendv_pd(b, a, m);
}
static inline ln_d ln_add_if(ln_d acc, ln_m m, ln_d x)
{
	return _mm256_add_pd(acc, _mm256_and_pd(m, x));
}

static inline ln_i ln_i_make(const int64_t a[LN_WIDTH])
{
	return _mm256_set_epi64x(a[3], a[2], a[1], a[0]);
}
static inline ln_i ln_i_zero(void)
{
	return _mm256_setzero_si256();
}
static inline ln_i ln_i_set1(int64_t x)
{
	return _mm256_set1_epi64x(x);
}
static inline ln_i ln_i_add(ln_i a, ln_i b)
{
	return _mm256_add_epi64(a, b);
}
/* A set lane of m is -1. */
static inline ln_i ln_i_inc_if(ln_i n, ln_m m)
{
	return _mm256_sub_epi64(n, _mm256_castpd_si256(m));
}
static inline ln_m ln_i_gt(ln_i a, ln_i b)
{
	return _mm256_castsi256_pd(_mm256_cmpgt_epi64(a, b));
}
/* Counts (0 <= n < 2^52): n's bits under 2^52's exponent, less 2^52. */
static inline ln_d ln_i_to_d(ln_i n)
{
	const __m256d big = _mm256_set1_pd(4503599627370496.0);
	return _mm256_sub_pd(_mm256_castsi256_pd(_mm256_or_si256(n, _mm256_castpd_si256(big))),
	                     big);
}
static inline void ln_i_store(int64_t *p, ln_i n)
{
	_mm256_storeu_si256((__m256i *)p, n);
}

/* The first n of p's slots; the lanes past them take slot 0. */
static inline ln_x ln_x_load(const uint32_t *p, int n)
{
	const __m128i live = _mm_cmpgt_epi32(_mm_set1_epi32(n), _mm_set_epi32(3, 2, 1, 0));
	return _mm_maskload_epi32((const int *)p, live);
}
static inline void ln_x_store(uint32_t *p, ln_x x)
{
	_mm_storeu_si128((__m128i *)p, x);
}
static inline ln_d ln_gather(const double *base, ln_x x)
{
	return _mm256_i32gather_pd(base, x, 8);
}
/* Exactly, as doubles: the signed conversion is off by 2^32 from 2^31 up. */
static inline ln_d ln_gather_u32(const uint32_t *base, ln_x x)
{
	__m256d d = _mm256_cvtepi32_pd(_mm_i32gather_epi32((const int *)base, x, 4));
	__m256d neg = _mm256_cmp_pd(d, _mm256_setzero_pd(), _CMP_LT_OQ);
	return _mm256_add_pd(d, _mm256_and_pd(neg, _mm256_set1_pd(4294967296.0)));
}

#endif
