/* pthread_sigmask and sigset_t are POSIX, beyond the C11 the core is built as. */
#define _POSIX_C_SOURCE 200809L

#include "pool.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>

/* Times a waiting thread looks for news before it sleeps: a tick's phases follow
 * each other within microseconds, sooner than a sleeping thread wakes. Kept short,
 * as the machine may have fewer cores than the pool has threads. */
#define SPIN_ROUNDS 4000

typedef struct worker {
	steer_pool *pool;
	int part;
	pthread_t thread;
} worker;

struct steer_pool {
	int threads;
	int started;     /* workers running */
	worker *workers; /* threads - 1 */
	pthread_mutex_t lock;
	pthread_cond_t wake; /* job changed */
	pthread_cond_t done; /* pending reached 0 */
	atomic_uint job;     /* bumped for each job, and to stop */
	atomic_int pending;  /* workers yet to finish the current job */
	atomic_bool stop;
	/* The current job: written before job is bumped, read after it is seen. */
	void (*fn)(void *, int);
	void *arg;
	int parts;
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

static void *work(void *arg)
{
	worker *me = arg;
	steer_pool *p = me->pool;
	unsigned seen = 0;
	for (;;) {
		seen = wait_for_job(p, seen);
		if (atomic_load_explicit(&p->stop, memory_order_acquire))
			return NULL;
		if (me->part < p->parts)
			p->fn(p->arg, me->part);
		if (atomic_fetch_sub_explicit(&p->pending, 1, memory_order_acq_rel) == 1) {
			pthread_mutex_lock(&p->lock);
			pthread_cond_signal(&p->done);
			pthread_mutex_unlock(&p->lock);
		}
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
	atomic_init(&p->pending, 0);
	atomic_init(&p->stop, false);
	/* Workers take no signals: they stay with the threads that expect them. */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	bool ok = true;
	for (int k = 0; k < threads - 1 && ok; k++) {
		p->workers[k] = (worker){p, k + 1, 0};
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

void steer_pool_run(steer_pool *p, void (*fn)(void *arg, int part), void *arg, int parts)
{
	if (!p || parts <= 1) {
		for (int k = 0; k < parts; k++)
			fn(arg, k);
		return;
	}
	p->fn = fn;
	p->arg = arg;
	p->parts = parts;
	atomic_store_explicit(&p->pending, p->threads - 1, memory_order_relaxed);
	announce(p);
	fn(arg, 0);
	for (int k = p->threads; k < parts; k++)
		fn(arg, k);
	for (int k = 0; k < SPIN_ROUNDS; k++) {
		if (atomic_load_explicit(&p->pending, memory_order_acquire) == 0)
			return;
		relax();
	}
	pthread_mutex_lock(&p->lock);
	while (atomic_load_explicit(&p->pending, memory_order_acquire) != 0)
		pthread_cond_wait(&p->done, &p->lock);
	pthread_mutex_unlock(&p->lock);
}
