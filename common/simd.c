#include "simd.h"

static steer_simd_level limit = STEER_SIMD_AVX512;

void steer_simd_limit(steer_simd_level max)
{
	limit = max;
}

steer_simd_level steer_simd_best(void)
{
#ifdef STEER_HAVE_AVX2
	/* libgcc reads the CPU once at start-up: these are loads and tests. */
	if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl"))
		return STEER_SIMD_AVX512;
	if (__builtin_cpu_supports("avx2"))
		return STEER_SIMD_AVX2;
#endif
	return STEER_SIMD_SCALAR;
}

bool steer_simd_avx2(void)
{
	return limit >= STEER_SIMD_AVX2 && steer_simd_best() >= STEER_SIMD_AVX2;
}

bool steer_simd_avx512(void)
{
	return limit >= STEER_SIMD_AVX512 && steer_simd_best() >= STEER_SIMD_AVX512;
}
