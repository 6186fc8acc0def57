/* The lanes layer, one lane wide: plain C doubles, for CPUs without the vector
 * instruction sets below and for the tails the wider forms leave. kernel.c is
 * written against this API (see lanes_avx2.h for the contract every form keeps). */
#ifndef STEER_LANES_SCALAR_H
#define STEER_LANES_SCALAR_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#define LN_WIDTH 1
/* The form's table and level (kernel.h); CMake may name another. */
#ifndef LN_KERNEL
#define LN_KERNEL steer_kernel_scalar
#define LN_LEVEL  STEER_SIMD_SCALAR
#endif

typedef double ln_d;   /* doubles, one per lane */
typedef bool ln_m;     /* a lane mask */
typedef int64_t ln_i;  /* counts, one per lane */
typedef uint32_t ln_x; /* slots to gather from, one per lane */

static inline ln_d ln_zero(void)
{
	return 0.0;
}
static inline ln_d ln_set1(double x)
{
	return x;
}
static inline ln_d ln_make(const double a[LN_WIDTH])
{
	return a[0];
}
static inline ln_d ln_iota(void)
{
	return 0.0;
}
static inline ln_d ln_load(const double *p)
{
	return *p;
}
static inline void ln_store(double *p, ln_d a)
{
	*p = a;
}
static inline void ln_store_u32(uint32_t *p, ln_d whole)
{
	*p = (uint32_t)whole;
}

static inline ln_d ln_add(ln_d a, ln_d b)
{
	return a + b;
}
static inline ln_d ln_sub(ln_d a, ln_d b)
{
	return a - b;
}
static inline ln_d ln_mul(ln_d a, ln_d b)
{
	return a * b;
}
static inline ln_d ln_div(ln_d a, ln_d b)
{
	return a / b;
}
static inline ln_d ln_sqrt(ln_d a)
{
	return sqrt(a);
}
static inline ln_d ln_floor(ln_d a)
{
	return floor(a);
}
static inline ln_d ln_min(ln_d a, ln_d b)
{
	return a < b ? a : b;
}
static inline ln_d ln_max(ln_d a, ln_d b)
{
	return a > b ? a : b;
}
static inline ln_d ln_neg(ln_d a)
{
	return -a;
}
static inline ln_d ln_abs(ln_d a)
{
	return fabs(a);
}

static inline ln_m ln_lt(ln_d a, ln_d b)
{
	return a < b;
}
static inline ln_m ln_le(ln_d a, ln_d b)
{
	return a <= b;
}
static inline ln_m ln_gt(ln_d a, ln_d b)
{
	return a > b;
}
static inline ln_m ln_ge(ln_d a, ln_d b)
{
	return a >= b;
}
static inline ln_m ln_eq(ln_d a, ln_d b)
{
	return a == b;
}
static inline ln_m ln_ne(ln_d a, ln_d b)
{
	return a != b;
}
static inline ln_m ln_and(ln_m a, ln_m b)
{
	return a && b;
}
static inline ln_m ln_or(ln_m a, ln_m b)
{
	return a || b;
}
static inline ln_m ln_andnot(ln_m a, ln_m b)
{
	return !a && b;
}
static inline bool ln_any(ln_m m)
{
	return m;
}
static inline ln_m ln_first(int n)
{
	return n > 0;
}
static inline ln_d ln_select(ln_m m, ln_d a, ln_d b)
{
	return m ? a : b;
}
static inline ln_d ln_add_if(ln_d acc, ln_m m, ln_d x)
{
	return m ? acc + x : acc;
}

static inline ln_i ln_i_make(const int64_t a[LN_WIDTH])
{
	return a[0];
}
static inline ln_i ln_i_zero(void)
{
	return 0;
}
static inline ln_i ln_i_set1(int64_t x)
{
	return x;
}
static inline ln_i ln_i_add(ln_i a, ln_i b)
{
	return a + b;
}
static inline ln_i ln_i_inc_if(ln_i n, ln_m m)
{
	return n + (m ? 1 : 0);
}
static inline ln_m ln_i_gt(ln_i a, ln_i b)
{
	return a > b;
}
static inline ln_d ln_i_to_d(ln_i n)
{
	return (double)n;
}
static inline void ln_i_store(int64_t *p, ln_i n)
{
	*p = n;
}

static inline ln_x ln_x_load(const uint32_t *p, int n)
{
	return n > 0 ? *p : 0;
}
static inline void ln_x_store(uint32_t *p, ln_x x)
{
	*p = x;
}
static inline ln_d ln_gather(const double *base, ln_x x)
{
	return base[x];
}
static inline ln_d ln_gather_u32(const uint32_t *base, ln_x x)
{
	return (double)base[x];
}

#endif
