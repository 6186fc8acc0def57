/* The ranks' watch. A rank stopped, frozen or cut off leaves the others waiting in a
 * collective that never ends, and a collective cannot say whom it waits for. So a
 * thread on every rank tells another, once a second, that its rank is alive and what
 * it is doing, over a communicator of its own: the others tell rank 0, rank 0 tells
 * rank 1. Rank 0 names a rank it no longer hears from, and an operation that runs
 * long with who is still in it; past a limit of silence it ends the job, whose
 * journal then restarts it (--recover). Rank 1 does the same for rank 0. */
#ifndef STEER_RANKWATCH_H
#define STEER_RANKWATCH_H

#include <stdint.h>

typedef struct rankwatch rankwatch;

/* Every rank, as soon as MPI has started with MPI_THREAD_MULTIPLE: a collective (it
 * duplicates MPI_COMM_WORLD). NULL after logging why; the job then runs unwatched. */
rankwatch *rankwatch_start(int rank, int size);
/* Once the flags are read: the watch judges from now on, and a silence of timeout
 * seconds ends the job (0: never; a silence is still named). */
void rankwatch_arm(rankwatch *w, double timeout);
/* The thread that calls MPI, as an operation that every rank takes part in begins or
 * ends; what names it in the log ("a tick"), at the world's tick. */
void rankwatch_busy(rankwatch *w, const char *what, uint64_t tick);
void rankwatch_idle(rankwatch *w);
/* Every rank, before MPI ends: stops the thread and frees w (NULL is fine). */
void rankwatch_stop(rankwatch *w);

#endif
