/* Whether the core's vector lanes may run. Every lane form (flock.c, motion.c) does
 * the scalar code's arithmetic in the scalar code's order, so this changes speed,
 * never results: tests turn the lanes off to hold the two to the same bits. */
#ifndef STEER_SIMD_H
#define STEER_SIMD_H

#include <stdbool.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define STEER_HAVE_AVX2 1
#endif

/* True when the lanes are allowed and the CPU has AVX2. */
bool steer_simd_avx2(void);
/* Off: every lane form takes its scalar code. Not while a step runs. */
void steer_simd_allow(bool on);

#endif
