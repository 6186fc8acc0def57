/* The cluster's whole world against one process's, by their saves' bytes: what every
 * test of tests/cluster/ asserts of a tick. */
#ifndef STEER_TEST_SAME_WORLD_H
#define STEER_TEST_SAME_WORLD_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cluster.h"
#include "savefile.h"

/* The world as a save, for comparing (the caller frees it). */
static inline char *save_bytes(const steer_world *w, size_t *len)
{
	char *out[1] = {NULL};
	if (steer_save_encode(w, &out[0], len) != STEER_OK || !out[0])
		abort();
	return out[0];
}

/* The first line where two saves differ, for the failure's message. */
static inline void first_difference(const char *a, const char *b, char *out, size_t n)
{
	size_t line = 1, k = 0, from = 0;
	while (a[k] && a[k] == b[k]) {
		if (a[k] == '\n') {
			line++;
			from = k + 1;
		}
		k++;
	}
	/* The line's start (its record) and 60 characters round the first difference. */
	size_t at = k > from + 60 ? k - 60 : from;
	snprintf(out, n, "line %zu (%.24s...):\n  one process: ...%.100s\n  cluster:     ...%.100s",
	         line, a + from, a + at, b + at);
}

/* Collective over comm: whether the cluster's whole world, gathered on comm's rank 0,
 * saves to the plain world's bytes there; every rank gets the answer. */
static inline bool same_world(MPI_Comm comm, steer_cluster *c, const steer_world *plain,
                              const char *label, unsigned tick)
{
	int rank = 0, ranks = 1;
	MPI_Comm_rank(comm, &rank);
	MPI_Comm_size(comm, &ranks);
	char err[256];
	steer_world *whole = NULL;
	int ok = steer_cluster_gather(c, &whole, err, sizeof err) == STEER_OK;
	if (rank == 0) {
		CHECK(ok, "%s tick %u: gather failed: %s", label, tick, err);
		if (ok) {
			size_t la, lb;
			char *a = save_bytes(plain, &la), *b = save_bytes(whole, &lb);
			ok = la == lb && memcmp(a, b, la) == 0;
			if (!ok) {
				char diff[512];
				first_difference(a, b, diff, sizeof diff);
				CHECK(ok, "%s on %d ranks, tick %u: the worlds differ at %s", label,
				      ranks, tick, diff);
			}
			free(a);
			free(b);
		}
		steer_world_destroy(whole);
	}
	MPI_Bcast(&ok, 1, MPI_INT, 0, comm);
	return ok;
}

#endif
