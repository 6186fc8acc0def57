/* Two halves of one job on two threads: the core's only use of threads. Each half
 * writes only its own part of the output, so the result is the same as running
 * both on one thread. */
#ifndef STEER_PAIR_H
#define STEER_PAIR_H

#include <stdbool.h>

/* fn(a) on this thread and fn(b) on a second, returning once both are done. False,
 * with neither run, when no thread can be had: the caller then runs both itself. */
bool steer_run_pair(void *(*fn)(void *), void *a, void *b);

#endif
