/* Recent durations (a tick's step, a snapshot tick's encoding) for the p50 and p99
 * that `stats` reports: those of the last TIMINGS_WINDOW_NS, at most TIMINGS_MAX of
 * them, so that a server ticking slower than its rate, or idle, still reports what
 * it does now rather than what it did a minute ago. Pure: the caller gives the
 * clock. */
#ifndef STEER_SERVER_TIMINGS_H
#define STEER_SERVER_TIMINGS_H

#include <stddef.h>
#include <stdint.h>

/* Ten seconds at 60 Hz. */
#define TIMINGS_MAX       600
#define TIMINGS_WINDOW_NS 10000000000ull

typedef struct timings {
	double ms[TIMINGS_MAX];
	uint64_t at_ns[TIMINGS_MAX]; /* when each ended */
	size_t count;                /* added in all; the ring holds the last TIMINGS_MAX */
} timings;

void timings_add(timings *t, double ms, uint64_t now_ns);
/* The p50 and p99 of those that ended within the window before now_ns; 0 and 0 when
 * none did. */
void timings_percentiles(const timings *t, uint64_t now_ns, double *p50, double *p99);

#endif
