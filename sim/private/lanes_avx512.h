/* The lanes layer in AVX-512 (F with VL): eight doubles in a 512-bit register, and
 * masks in mask registers, where a masked add leaves a lane that did not take a
 * value exactly as it was. The contract is lanes_avx2.h's. */
#ifndef STEER_LANES_AVX512_H
#define STEER_LANES_AVX512_H

#include <immintrin.h>
#include <stdbool.h>
#include <stdint.h>

#define LN_WIDTH 8
/* The form's table and level (kernel.h); CMake may name another. */
#ifndef LN_KERNEL
#define LN_KERNEL steer_kernel_avx512
#define LN_LEVEL  STEER_SIMD_AVX512
#endif

typedef __m512d ln_d;  /* doubles, one per lane */
typedef __mmask8 ln_m; /* a lane mask, one bit per lane */
typedef __m512i ln_i;  /* counts, one per 64-bit lane */
typedef __m256i ln_x;  /* slots to gather from, one per lane */

static inline ln_d ln_zero(void)
{
	return _mm512_setzero_pd();
}
static inline ln_d ln_set1(double x)
{
	return _mm512_set1_pd(x);
}
/* From values in registers: eight stores read back as one vector would stall. */
static inline ln_d ln_make(const double a[LN_WIDTH])
{
	return _mm512_set_pd(a[7], a[6], a[5], a[4], a[3], a[2], a[1], a[0]);
}
static inline ln_d ln_iota(void)
{
	return _mm512_set_pd(7.0, 6.0, 5.0, 4.0, 3.0, 2.0, 1.0, 0.0);
}
static inline ln_d ln_load(const double *p)
{
	return _mm512_loadu_pd(p);
}
static inline void ln_store(double *p, ln_d a)
{
	_mm512_storeu_pd(p, a);
}
static inline void ln_store_u32(uint32_t *p, ln_d whole)
{
	_mm256_storeu_si256((__m256i *)p, _mm512_cvtpd_epi32(whole));
}

static inline ln_d ln_add(ln_d a, ln_d b)
{
	return _mm512_add_pd(a, b);
}
static inline ln_d ln_sub(ln_d a, ln_d b)
{
	return _mm512_sub_pd(a, b);
}
static inline ln_d ln_mul(ln_d a, ln_d b)
{
	return _mm512_mul_pd(a, b);
}
static inline ln_d ln_div(ln_d a, ln_d b)
{
	return _mm512_div_pd(a, b);
}
static inline ln_d ln_sqrt(ln_d a)
{
	return _mm512_sqrt_pd(a);
}
static inline ln_d ln_floor(ln_d a)
{
	return _mm512_roundscale_pd(a, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
}
/* As the scalar a < b ? a : b (the second operand where unordered). */
static inline ln_d ln_min(ln_d a, ln_d b)
{
	return _mm512_min_pd(a, b);
}
static inline ln_d ln_max(ln_d a, ln_d b)
{
	return _mm512_max_pd(a, b);
}
static inline ln_d ln_neg(ln_d a)
{
	return _mm512_castsi512_pd(
	    _mm512_xor_si512(_mm512_castpd_si512(a), _mm512_set1_epi64(INT64_MIN)));
}
static inline ln_d ln_abs(ln_d a)
{
	return _mm512_abs_pd(a);
}

static inline ln_m ln_lt(ln_d a, ln_d b)
{
	return _mm512_cmp_pd_mask(a, b, _CMP_LT_OQ);
}
static inline ln_m ln_le(ln_d a, ln_d b)
{
	return _mm512_cmp_pd_mask(a, b, _CMP_LE_OQ);
}
static inline ln_m ln_gt(ln_d a, ln_d b)
{
	return _mm512_cmp_pd_mask(a, b, _CMP_GT_OQ);
}
static inline ln_m ln_ge(ln_d a, ln_d b)
{
	return _mm512_cmp_pd_mask(a, b, _CMP_GE_OQ);
}
static inline ln_m ln_eq(ln_d a, ln_d b)
{
	return _mm512_cmp_pd_mask(a, b, _CMP_EQ_OQ);
}
static inline ln_m ln_ne(ln_d a, ln_d b)
{
	return _mm512_cmp_pd_mask(a, b, _CMP_NEQ_UQ);
}
static inline ln_m ln_and(ln_m a, ln_m b)
{
	return (ln_m)(a & b);
}
static inline ln_m ln_or(ln_m a, ln_m b)
{
	return (ln_m)(a | b);
}
static inline ln_m ln_andnot(ln_m a, ln_m b)
{
	return (ln_m)(~a & b);
}
static inline bool ln_any(ln_m m)
{
	return m != 0;
}
static inline ln_m ln_first(int n)
{
	return (ln_m)((1u << n) - 1u);
}
static inline ln_d ln_select(ln_m m, ln_d a, ln_d b)
{
	return _mm512_mask_blend_pd(m, b, a);
}
static inline ln_d ln_add_if(ln_d acc, ln_m m, ln_d x)
{
	return _mm512_mask_add_pd(acc, m, acc, x);
}

static inline ln_i ln_i_make(const int64_t a[LN_WIDTH])
{
	return _mm512_set_epi64(a[7], a[6], a[5], a[4], a[3], a[2], a[1], a[0]);
}
static inline ln_i ln_i_zero(void)
{
	return _mm512_setzero_si512();
}
static inline ln_i ln_i_set1(int64_t x)
{
	return _mm512_set1_epi64(x);
}
static inline ln_i ln_i_add(ln_i a, ln_i b)
{
	return _mm512_add_epi64(a, b);
}
static inline ln_i ln_i_inc_if(ln_i n, ln_m m)
{
	return _mm512_mask_add_epi64(n, m, n, _mm512_set1_epi64(1));
}
static inline ln_m ln_i_gt(ln_i a, ln_i b)
{
	return _mm512_cmpgt_epi64_mask(a, b);
}
/* Counts (0 <= n < 2^52): n's bits under 2^52's exponent, less 2^52. */
static inline ln_d ln_i_to_d(ln_i n)
{
	const __m512d big = _mm512_set1_pd(4503599627370496.0);
	return _mm512_sub_pd(_mm512_castsi512_pd(_mm512_or_si512(n, _mm512_castpd_si512(big))),
	                     big);
}
static inline void ln_i_store(int64_t *p, ln_i n)
{
	_mm512_storeu_si512(p, n);
}

/* The first n of p's slots; the lanes past them take slot 0. */
static inline ln_x ln_x_load(const uint32_t *p, int n)
{
	return _mm256_maskz_loadu_epi32(ln_first(n), p);
}
static inline void ln_x_store(uint32_t *p, ln_x x)
{
	_mm256_storeu_si256((__m256i *)p, x);
}
static inline ln_d ln_gather(const double *base, ln_x x)
{
	return _mm512_i32gather_pd(x, base, 8);
}
static inline ln_d ln_gather_u32(const uint32_t *base, ln_x x)
{
	return _mm512_cvtepu32_pd(_mm256_i32gather_epi32((const int *)base, x, 4));
}

#endif
