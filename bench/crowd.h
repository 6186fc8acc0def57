/* steer-bench --crowd N: N vehicles with avoidance on, each walking to a random goal
 * and given a new one on arrival, among circles and walls (crowd_layout.h). */
#ifndef STEER_BENCH_CROWD_H
#define STEER_BENCH_CROWD_H

#include <stdint.h>

#include "bench_util.h"
#include "steer/simd.h"

typedef struct crowd_opts {
	long n;
	long ticks;        /* 0: about a second's worth, at least 3, at most 600 */
	long warmup;       /* untimed ticks first, so the crowd is under way */
	double neighbours; /* the density: others within 100 of each, as the flock's */
	int threads;
	steer_simd_level simd;
	uint64_t seed;
	int no_solid; /* the world's solid rule off */
} crowd_opts;

/* Builds the workload, times it and prints the figures and a RESULT line (the format
 * of the peers' drivers); *out gets them for the scaling table. 0 on success; 1 with
 * a message on stderr. */
int crowd_bench(const crowd_opts *o, bench_figures *out);

#endif
