/* Which of the core's vector lane forms may run. Every lane form (flock.c, motion.c)
 * does the scalar code's arithmetic in the scalar code's order, so this changes
 * speed, never results: tests cap the level to hold each form to the same bits. */
#ifndef STEER_SIMD_H
#define STEER_SIMD_H

#include <stdbool.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define STEER_HAVE_AVX2 1
#endif

typedef enum steer_simd_level {
	STEER_SIMD_SCALAR,
	STEER_SIMD_AVX2,
	STEER_SIMD_AVX512, /* AVX-512F with VL: mask registers, and eight lanes in 512 bits */
} steer_simd_level;

/* True when lanes of that level are allowed and the CPU has the instructions. */
bool steer_simd_avx2(void);
bool steer_simd_avx512(void);
/* The best level this CPU runs (ignoring the cap). */
steer_simd_level steer_simd_best(void);
/* Caps the level the lane forms may use (STEER_SIMD_SCALAR: the scalar code only).
 * Not while a step runs. */
void steer_simd_limit(steer_simd_level max);

#endif
