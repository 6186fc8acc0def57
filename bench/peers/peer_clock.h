// The peers' drivers' clocks: wall time, and this thread's CPU time (less disturbed
// by other jobs than wall time). Built without OpenMP, a driver runs on one thread.
#ifndef STEER_PEER_CLOCK_H
#define STEER_PEER_CLOCK_H

#include <chrono>
#include <ctime>

static inline double wall_s()
{
	return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
	    .count();
}

static inline double cpu_s()
{
	timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

#endif
