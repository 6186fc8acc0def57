#include "steer/simd.h"

#include "kernel.h"

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

const char *steer_simd_name(steer_simd_level level)
{
	switch (level) {
	case STEER_SIMD_AVX2:
		return "avx2";
	case STEER_SIMD_AVX512:
		return "avx512";
	case STEER_SIMD_SCALAR:
		break;
	}
	return "scalar";
}

const steer_kernel *const *steer_kernel_forms(int *n)
{
	static const steer_kernel *const forms[] = {
	    &steer_kernel_scalar,
#ifdef STEER_HAVE_AVX2
	    &steer_kernel_avx2,
	    &steer_kernel_avx512,
	    &steer_kernel_avx512_4,
#endif
	};
	int count = 0;
	/* Each form needs the instruction set of its level. */
	while (count < (int)(sizeof forms / sizeof forms[0]) &&
	       forms[count]->level <= steer_simd_best())
		count++;
	*n = count;
	return forms;
}

const steer_kernel *steer_kernel_for(steer_simd_level level)
{
#ifdef STEER_HAVE_AVX2
	steer_simd_level best = steer_simd_best();
	if (level > best)
		level = best;
	if (level == STEER_SIMD_AVX512)
		return &steer_kernel_avx512;
	if (level == STEER_SIMD_AVX2)
		return &steer_kernel_avx2;
#else
	(void)level;
#endif
	return &steer_kernel_scalar;
}
