#include "simd.h"

static bool allowed = true;

void steer_simd_allow(bool on)
{
	allowed = on;
}

bool steer_simd_avx2(void)
{
#ifdef STEER_HAVE_AVX2
	/* libgcc reads the CPU once at start-up: this is a load and a test. */
	return allowed && __builtin_cpu_supports("avx2");
#else
	return false;
#endif
}
