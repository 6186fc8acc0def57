/* steer-bench N --avoid --obstacles M: N flocking boids with avoid on among M drifting
 * circles, against the same boids among none, timed in interleaved pairs. */
#ifndef STEER_BENCH_OBSTACLES_H
#define STEER_BENCH_OBSTACLES_H

#include <stdint.h>

#include "steer/simd.h"

typedef struct obstacles_opts {
	long n;         /* boids */
	long obstacles; /* circles in the second world */
	long ticks;     /* timed ticks per run (0: 60) */
	long pairs;     /* interleaved pairs of runs (0: 5) */
	int threads;
	steer_simd_level simd;
	uint64_t seed;
	int no_solid; /* the world's solid rule off */
} obstacles_opts;

/* Builds both worlds, times them and prints each pair, the medians and a RESULT line.
 * 0 on success; 1 with a message on stderr. */
int obstacles_bench(const obstacles_opts *o);

#endif
