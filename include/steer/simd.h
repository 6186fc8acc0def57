/* Which of the core's vector lane forms this CPU runs. Every lane form
 * does the scalar code's arithmetic in the scalar code's order, so the level changes
 * speed, never results: a world may be capped to a lower one
 * (steer_world_set_simd), as tests do to hold each form to the same bits. */
#ifndef STEER_SIMD_H
#define STEER_SIMD_H

#include "api.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum steer_simd_level {
	STEER_SIMD_SCALAR,
	STEER_SIMD_AVX2,
	STEER_SIMD_AVX512, /* AVX-512F with VL: mask registers, and eight lanes in 512 bits */
} steer_simd_level;

/* The best level this CPU runs. */
STEER_API steer_simd_level steer_simd_best(void);
/* "scalar", "avx2" or "avx512". */
STEER_API const char *steer_simd_name(steer_simd_level level);

#ifdef __cplusplus
}
#endif

#endif
