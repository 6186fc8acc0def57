/* pthread_sigmask and sigset_t are POSIX, beyond the C11 the core is built as. */
#define _POSIX_C_SOURCE 200809L

#include "pool.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

/* Times a waiting thread looks for news before it sleeps: a tick's phases follow
 * each other within microseconds, sooner than a sleeping thread wakes. Kept short,
 * as the machine may have fewer cores than the pool has threads. */
#define SPIN_ROUNDS 4000

typedef struct worker {
	steer_pool *pool;
	pthread_t thread;
} worker;

struct steer_pool {
	int threads;
	int started;     /* workers running */
	worker *workers; /* threads - 1 */
	pthread_mutex_t lock;
	pthread_cond_t wake; /* job changed */
	pthread_cond_t done; /* finished reached the parts */
	atomic_uint job;     /* bumped for each job, and to stop */
	/* The current job's number, parts and next part to take: job << 32 | parts << 16
	 * | next, claimed one part at a time by whichever thread comes. */
	atomic_uint_least64_t claim;
	atomic_int finished; /* parts of the current job done */
	atomic_bool stop;
	/* The current job: written before it is announced, stable until it is done. */
	void (*fn)(void *, int);
	void *arg;
	bool reverse; /* parts taken last first (steer_pool_set_reverse) */
	bool timing;  /* runs' wall time summed in run_s (steer_pool_time_runs) */
	double run_s;
	long long epoch_s; /* the clock's second when the timing began */
};

static void relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

/* The job number once it differs from seen: spinning a while, then asleep. */
static unsigned wait_for_job(steer_pool *p, unsigned seen)
{
	for (int k = 0; k < SPIN_ROUNDS; k++) {
		unsigned j = atomic_load_explicit(&p->job, memory_order_acquire);
		if (j != seen)
			return j;
		relax();
	}
	pthread_mutex_lock(&p->lock);
	unsigned j;
	while ((j = atomic_load_explicit(&p->job, memory_order_acquire)) == seen)
		pthread_cond_wait(&p->wake, &p->lock);
	pthread_mutex_unlock(&p->lock);
	return j;
}

/* Runs parts of job `job` until none is left to take. Parts go to whichever thread
 * asks first, so a worker the system has not scheduled holds nobody up: the caller
 * takes its parts. A thread that comes late, after the job, takes nothing. */
static void take_parts(steer_pool *p, unsigned job)
{
	uint64_t c = atomic_load_explicit(&p->claim, memory_order_acquire);
	for (;;) {
		int parts = (int)(c >> 16 & 0xffff), next = (int)(c & 0xffff);
		if ((unsigned)(c >> 32) != job || next >= parts)
			return;
		if (!atomic_compare_exchange_weak_explicit(
		        &p->claim, &c, c + 1, memory_order_acq_rel, memory_order_acquire))
			continue;
		p->fn(p->arg, p->reverse ? parts - 1 - next : next);
		if (atomic_fetch_add_explicit(&p->finished, 1, memory_order_acq_rel) + 1 == parts) {
			pthread_mutex_lock(&p->lock);
			pthread_cond_signal(&p->done);
			pthread_mutex_unlock(&p->lock);
		}
		c = atomic_load_explicit(&p->claim, memory_order_acquire);
	}
}

static void *work(void *arg)
{
	worker *me = arg;
	steer_pool *p = me->pool;
	unsigned seen = 0;
	for (;;) {
		seen = wait_for_job(p, seen);
		if (atomic_load_explicit(&p->stop, memory_order_acquire))
			return NULL;
		take_parts(p, seen);
	}
}

/* Bumps the job number and wakes every sleeping worker. */
static void announce(steer_pool *p)
{
	pthread_mutex_lock(&p->lock);
	atomic_fetch_add_explicit(&p->job, 1, memory_order_release);
	pthread_cond_broadcast(&p->wake);
	pthread_mutex_unlock(&p->lock);
}

static void stop_workers(steer_pool *p)
{
	atomic_store_explicit(&p->stop, true, memory_order_release);
	announce(p);
	for (int k = 0; k < p->started; k++)
		pthread_join(p->workers[k].thread, NULL);
	p->started = 0;
}

steer_pool *steer_pool_create(int threads)
{
	if (threads < 2 || threads > STEER_POOL_MAX_THREADS)
		return NULL;
	steer_pool *p = calloc(1, sizeof *p);
	if (!p)
		return NULL;
	p->threads = threads;
	p->workers = calloc((size_t)threads - 1, sizeof *p->workers);
	if (!p->workers || pthread_mutex_init(&p->lock, NULL) != 0) {
		free(p->workers);
		free(p);
		return NULL;
	}
	if (pthread_cond_init(&p->wake, NULL) != 0) {
		pthread_mutex_destroy(&p->lock);
		free(p->workers);
		free(p);
		return NULL;
	}
	if (pthread_cond_init(&p->done, NULL) != 0) {
		pthread_cond_destroy(&p->wake);
		pthread_mutex_destroy(&p->lock);
		free(p->workers);
		free(p);
		return NULL;
	}
	atomic_init(&p->job, 0);
	atomic_init(&p->claim, 0);
	atomic_init(&p->finished, 0);
	atomic_init(&p->stop, false);
	/* Workers take no signals: they stay with the threads that expect them. */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	bool ok = true;
	for (int k = 0; k < threads - 1 && ok; k++) {
		p->workers[k] = (worker){p, 0};
		ok = pthread_create(&p->workers[k].thread, NULL, work, &p->workers[k]) == 0;
		p->started += ok;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!ok) {
		steer_pool_destroy(p);
		return NULL;
	}
	return p;
}

void steer_pool_destroy(steer_pool *p)
{
	if (!p)
		return;
	stop_workers(p);
	pthread_cond_destroy(&p->done);
	pthread_cond_destroy(&p->wake);
	pthread_mutex_destroy(&p->lock);
	free(p->workers);
	free(p);
}

int steer_pool_threads(const steer_pool *p)
{
	return p ? p->threads : 1;
}

/* Seconds since the timing began: small, so a double keeps nanoseconds. */
static double seconds_now(const steer_pool *p)
{
	struct timespec ts;
	if (!timespec_get(&ts, TIME_UTC))
		return 0.0;
	return (double)((long long)ts.tv_sec - p->epoch_s) + (double)ts.tv_nsec * 1e-9;
}

/* Announces the job, takes parts of it, and waits until every part is done. */
static void run_job(steer_pool *p, void (*fn)(void *arg, int part), void *arg, int parts)
{
	p->fn = fn;
	p->arg = arg;
	atomic_store_explicit(&p->finished, 0, memory_order_relaxed);
	unsigned job = atomic_load_explicit(&p->job, memory_order_relaxed) + 1;
	atomic_store_explicit(&p->claim, (uint64_t)job << 32 | (uint64_t)parts << 16,
	                      memory_order_release);
	announce(p);
	take_parts(p, job);
	for (int k = 0; k < SPIN_ROUNDS; k++) {
		if (atomic_load_explicit(&p->finished, memory_order_acquire) == parts)
			return;
		relax();
	}
	pthread_mutex_lock(&p->lock);
	while (atomic_load_explicit(&p->finished, memory_order_acquire) != parts)
		pthread_cond_wait(&p->done, &p->lock);
	pthread_mutex_unlock(&p->lock);
}

void steer_pool_run(steer_pool *p, void (*fn)(void *arg, int part), void *arg, int parts)
{
	if (!p || parts <= 1 || parts > STEER_POOL_MAX_PARTS) {
		for (int k = 0; k < parts; k++) /* one thread's: not summed */
			fn(arg, k);
		return;
	}
	double t0 = p->timing ? seconds_now(p) : 0.0;
	run_job(p, fn, arg, parts);
	if (p->timing)
		p->run_s += seconds_now(p) - t0;
}

void steer_pool_set_reverse(steer_pool *p, bool on)
{
	if (p)
		p->reverse = on;
}

void steer_pool_time_runs(steer_pool *p, bool on)
{
	if (!p)
		return;
	struct timespec ts;
	p->timing = on;
	p->run_s = 0.0;
	p->epoch_s = timespec_get(&ts, TIME_UTC) ? (long long)ts.tv_sec : 0;
}

double steer_pool_run_seconds(const steer_pool *p)
{
	return p ? p->run_s : 0.0;
}
