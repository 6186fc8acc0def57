/* A persistent pool of threads for the tick's parallel phases. The threads are made
 * once and wait between jobs, so a tick pays a wake-up per phase, not a thread start.
 * A job is one function over parts 0 .. parts - 1, taken by the workers and the
 * caller's thread alike. A part writes only its own outputs, so what a job makes
 * depends on its parts, never on which thread ran which. */
#ifndef STEER_POOL_H
#define STEER_POOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A sane ceiling on threads per world: far above any core count the tick scales to,
 * low enough that per-part scratch stays small. */
#define STEER_POOL_MAX_THREADS 256

/* Parts a job may have at most. */
#define STEER_POOL_MAX_PARTS 65535

typedef struct steer_pool steer_pool;

/* Where part `part` of `parts` starts in [0, n): the parts' sizes differ by at most
 * one. */
static inline size_t steer_part_from(size_t n, int part, int parts)
{
	return (size_t)((uint64_t)n * (uint64_t)part / (uint64_t)parts);
}

/* A pool of `threads` in all, the caller's included (threads - 1 are started), in
 * [2, STEER_POOL_MAX_THREADS]. NULL when threads is out of range, memory runs out
 * or a thread cannot be started (none is left running then). */
steer_pool *steer_pool_create(int threads);

/* Stops and joins the workers and frees the pool. Not while a job runs. NULL is
 * a no-op. */
void steer_pool_destroy(steer_pool *p);

/* Threads in all, the caller's included; 1 for NULL (no pool: the caller alone). */
int steer_pool_threads(const steer_pool *p);

/* fn(arg, part) for every part in [0, parts), returning once all are done. Each
 * thread, the caller's too, takes the next part not yet taken until none is left:
 * which thread runs which part varies, what the parts make does not. With NULL (or
 * parts 1) every part runs here, in order. parts is at most STEER_POOL_MAX_PARTS.
 * One job at a time: a pool is driven by one thread. */
void steer_pool_run(steer_pool *p, void (*fn)(void *arg, int part), void *arg, int parts);

/* For benchmarks: from on, the wall time the driving thread spends in runs of two
 * parts or more is summed (from zero), until off. What a tick spends outside these
 * is work that more threads do not share. */
void steer_pool_time_runs(steer_pool *p, bool on);
/* The seconds summed since steer_pool_time_runs; 0 for NULL. */
double steer_pool_run_seconds(const steer_pool *p);

/* For tests: parts are taken last first from the next job on (on false, first
 * first again), so that a job whose result depended on the order its parts ran or
 * finished in would show it. */
void steer_pool_set_reverse(steer_pool *p, bool on);

#endif
