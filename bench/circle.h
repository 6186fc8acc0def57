/* steer-bench --circle N: RVO2's Circle scene (circle_layout.h), run until every
 * agent is home: how many ticks that took, the time per agent-tick, and the overlaps
 * seen on the way. */
#ifndef STEER_BENCH_CIRCLE_H
#define STEER_BENCH_CIRCLE_H

#include <stdint.h>

#include "bench_util.h"
#include "steer/simd.h"

typedef struct circle_opts {
	long n;
	long max_ticks; /* give up after this many, saying how many are not home */
	int threads;
	steer_simd_level simd;
	uint64_t seed;
	int no_solid;
} circle_opts;

/* Builds the scene, runs it until every agent is home (or max_ticks), prints the
 * figures and a RESULT line; *out gets them for the scaling table. 0 on success
 * (whether or not every agent got home); 1 with a message on stderr. */
int circle_bench(const circle_opts *o, bench_figures *out);

#endif
