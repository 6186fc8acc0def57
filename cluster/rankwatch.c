#include "rankwatch.h"

#include <mpi.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "log.h"

enum { TAG_BEAT = 1 };
#define BEAT_S    1.0 /* between a rank's beats */
#define NAP_NS    200000000L
#define NAME_S    5.0  /* a silence this long is named (or half the timeout, if less) */
#define LONG_OP_S 10.0 /* an operation this long on rank 0 is named, with who is in it */

/* What a rank says in each beat: how many operations it has begun, and whether it is
 * still in the last one. */
typedef struct beat {
	uint64_t serial, busy;
} beat;

/* A rank this one watches, as its beats tell. */
typedef struct peer {
	double heard; /* when its last beat came */
	beat last;
	bool named; /* its silence is logged and it has not been heard since */
} peer;

struct rankwatch {
	MPI_Comm comm;
	int rank, size;
	pthread_t thread;
	atomic_bool quit, armed;
	atomic_llong timeout_ms;
	/* This rank's operation, written by the thread that calls MPI. */
	atomic_uint_fast64_t serial, tick;
	atomic_bool busy;
	_Atomic(const char *) what;
	atomic_llong since_ms;
	/* The watch thread's alone. */
	peer *peers;       /* by rank; only those this rank watches are read */
	uint64_t reported; /* the serial of the last long operation logged */
};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Rank 0 watches every other rank; rank 1 watches rank 0. */
static bool watches(const rankwatch *w, int k)
{
	return w->rank == 0 ? k != 0 : w->rank == 1 && k == 0;
}

static void send_beat(rankwatch *w, MPI_Request *sent, beat *out)
{
	if (*sent != MPI_REQUEST_NULL) {
		int done = 0;
		MPI_Test(sent, &done, MPI_STATUS_IGNORE);
		if (!done) /* the watcher has not taken the last one: do not pile them up */
			return;
	}
	out->serial = atomic_load(&w->serial);
	out->busy = atomic_load(&w->busy);
	int to = w->rank == 0 ? 1 : 0;
	if (MPI_Isend(out, 2, MPI_UINT64_T, to, TAG_BEAT, w->comm, sent) != MPI_SUCCESS)
		*sent = MPI_REQUEST_NULL;
}

static void receive(rankwatch *w, double now)
{
	for (;;) {
		int flag = 0;
		MPI_Status st;
		if (MPI_Iprobe(MPI_ANY_SOURCE, TAG_BEAT, w->comm, &flag, &st) != MPI_SUCCESS ||
		    !flag)
			return;
		beat b;
		if (MPI_Recv(&b, 2, MPI_UINT64_T, st.MPI_SOURCE, TAG_BEAT, w->comm,
		             MPI_STATUS_IGNORE) != MPI_SUCCESS)
			return;
		peer *p = &w->peers[st.MPI_SOURCE];
		if (p->named && atomic_load(&w->armed))
			steer_log(STEER_LOG_INFO, "rank %d: rank %d is heard again after %.0f s",
			          w->rank, st.MPI_SOURCE, now - p->heard);
		p->named = false;
		p->heard = now;
		p->last = b;
	}
}

/* What this rank is in, for a log line: "; rank 0 waits in a tick (tick 42) since 3 s". */
static void doing(const rankwatch *w, double now, char *out, size_t len)
{
	out[0] = '\0';
	if (!atomic_load(&w->busy))
		return;
	const char *what = atomic_load(&w->what);
	snprintf(out, len, "; rank %d waits in %s (tick %llu) since %.0f s", w->rank,
	         what ? what : "an operation", (unsigned long long)atomic_load(&w->tick),
	         now - (double)atomic_load(&w->since_ms) / 1e3);
}

/* Rank 0: an operation that runs long, and which ranks are still in it. */
static void judge_long_op(rankwatch *w, double now)
{
	uint64_t serial = atomic_load(&w->serial);
	double ran = now - (double)atomic_load(&w->since_ms) / 1e3;
	if (!atomic_load(&w->busy) || ran < LONG_OP_S || w->reported == serial)
		return;
	w->reported = serial;
	char in[256] = "", done[256] = "";
	size_t nin = 0, ndone = 0;
	for (int k = 1; k < w->size; k++) {
		const beat *b = &w->peers[k].last;
		bool still = b->serial < serial || (b->serial == serial && b->busy);
		char *list = still ? in : done;
		size_t *n = still ? &nin : &ndone;
		if (*n < sizeof in - 16)
			*n +=
			    (size_t)snprintf(list + *n, sizeof in - *n, "%s%d", *n ? ", " : "", k);
	}
	const char *what = atomic_load(&w->what);
	steer_log(STEER_LOG_WARN,
	          "%s (tick %llu) has run %.0f s; ranks not done with it: %s; done: %s",
	          what ? what : "an operation", (unsigned long long)atomic_load(&w->tick), ran,
	          nin ? in : "none but rank 0", ndone ? done : "none");
}

static void judge(rankwatch *w, double now)
{
	double timeout = (double)atomic_load(&w->timeout_ms) / 1e3;
	double name_after = timeout > 0 && timeout / 2 < NAME_S ? timeout / 2 : NAME_S;
	for (int k = 0; k < w->size; k++) {
		if (!watches(w, k))
			continue;
		peer *p = &w->peers[k];
		double silent = now - p->heard;
		bool ends = timeout > 0 && silent >= timeout;
		if (!ends && (silent < name_after || p->named))
			continue;
		char context[160];
		doing(w, now, context, sizeof context);
		if (ends) {
			steer_log(
			    STEER_LOG_ERROR,
			    "rank %d: rank %d has sent nothing for %.0f s (--rank-timeout %g)%s; "
			    "the job ends: restart it with --recover to go on from the journal",
			    w->rank, k, silent, timeout, context);
			MPI_Abort(MPI_COMM_WORLD, 75);
		}
		p->named = true;
		steer_log(STEER_LOG_WARN,
		          "rank %d: rank %d has sent nothing for %.0f s: its process is stopped "
		          "or its host or the network to it is down%s",
		          w->rank, k, silent, context);
	}
	if (w->rank == 0)
		judge_long_op(w, now);
}

static void *watch_main(void *arg)
{
	rankwatch *w = arg;
	MPI_Request sent = MPI_REQUEST_NULL;
	beat out;
	double next_beat = 0, last_round = now_s();
	while (!atomic_load(&w->quit)) {
		double now = now_s();
		/* This process was stopped itself (or not run): the others' beats wait
		 * unread, and their silence is not theirs. */
		if (now - last_round > 2 * BEAT_S)
			for (int k = 0; k < w->size; k++)
				w->peers[k].heard = now;
		last_round = now;
		if (now >= next_beat) {
			send_beat(w, &sent, &out);
			next_beat = now + BEAT_S;
		}
		receive(w, now);
		if (atomic_load(&w->armed))
			judge(w, now);
		struct timespec nap = {0, NAP_NS};
		nanosleep(&nap, NULL);
	}
	/* A beat not yet taken is dropped: its watcher is stopping too. */
	if (sent != MPI_REQUEST_NULL) {
		int done = 0;
		MPI_Test(&sent, &done, MPI_STATUS_IGNORE);
		if (!done && MPI_Cancel(&sent) == MPI_SUCCESS)
			MPI_Request_free(&sent);
	}
	return NULL;
}

rankwatch *rankwatch_start(int rank, int size)
{
	rankwatch *w = calloc(1, sizeof *w);
	peer *peers = w ? calloc((size_t)size, sizeof *peers) : NULL;
	if (!w || !peers) {
		steer_log(STEER_LOG_ERROR, "rank %d: out of memory for the ranks' watch", rank);
		free(w);
		free(peers);
		return NULL;
	}
	if (MPI_Comm_dup(MPI_COMM_WORLD, &w->comm) != MPI_SUCCESS) {
		steer_log(STEER_LOG_ERROR, "rank %d: the ranks' watch has no communicator", rank);
		free(w);
		free(peers);
		return NULL;
	}
	w->rank = rank;
	w->size = size;
	w->peers = peers;
	double now = now_s();
	for (int k = 0; k < size; k++)
		peers[k].heard = now;
	atomic_init(&w->quit, false);
	atomic_init(&w->armed, false);
	atomic_init(&w->timeout_ms, 0);
	atomic_init(&w->serial, 0);
	atomic_init(&w->tick, 0);
	atomic_init(&w->busy, false);
	atomic_init(&w->what, NULL);
	atomic_init(&w->since_ms, 0);
	if (pthread_create(&w->thread, NULL, watch_main, w) != 0) {
		steer_log(STEER_LOG_ERROR, "rank %d: cannot start the ranks' watch", rank);
		MPI_Comm_free(&w->comm);
		free(peers);
		free(w);
		return NULL;
	}
	return w;
}

void rankwatch_arm(rankwatch *w, double timeout)
{
	if (!w)
		return;
	atomic_store(&w->timeout_ms, (long long)(timeout * 1e3));
	atomic_store(&w->armed, true);
}

void rankwatch_busy(rankwatch *w, const char *what, uint64_t tick)
{
	if (!w)
		return;
	atomic_store(&w->what, what);
	atomic_store(&w->tick, tick);
	atomic_store(&w->since_ms, (long long)(now_s() * 1e3));
	atomic_fetch_add(&w->serial, 1);
	atomic_store(&w->busy, true);
}

void rankwatch_idle(rankwatch *w)
{
	if (w)
		atomic_store(&w->busy, false);
}

void rankwatch_stop(rankwatch *w)
{
	if (!w)
		return;
	atomic_store(&w->quit, true);
	pthread_join(w->thread, NULL);
	MPI_Comm_free(&w->comm);
	free(w->peers);
	free(w);
}
