/* Solid bodies over ranks: the collectives the world's bodies pass asks for
 * (steer_bodies_share, sim/share.h; the pass itself is sim/bodies_parts.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster_internal.h"
#include "cluster_parts.h"
#include "reserve.h"
#include "steer/params.h"

/* The collectives the world's bodies pass asks for (steer_bodies_share): every rank
 * finds its own vehicles' contacts and resolves the islands wholly its own, and rank
 * 0 those that cross between ranks, in one process's order. Each takes the rank's
 * status so far and agrees on it first, so that no rank enters a collective another
 * skips. */

bool steer_cluster_bodies_own(void *ud, double x, double y)
{
	const steer_cluster *c = ud;
	return steer_cluster_owner_of(c, x, y) == c->rank;
}

bool steer_cluster_bodies_inside(void *ud, double x0, double y0, double x1, double y1)
{
	steer_cluster *c = ud;
	int got = steer_partition_near(c->part, x0, y0, x1, y1, c->near);
	return got == 1 && c->near[0] == c->rank;
}

#define BODIES_ERR(c) (c)->bodies_err, sizeof(c)->bodies_err

static steer_status bodies_agree(steer_cluster *c, steer_status st)
{
	if (st == STEER_ERR_NOMEM && !c->bodies_err[0])
		snprintf(BODIES_ERR(c), "out of memory while pushing bodies apart");
	else if (st != STEER_OK && !c->bodies_err[0])
		snprintf(BODIES_ERR(c), "the ranks disagree on the contacts between bodies");
	return steer_cluster_agree(c, st, BODIES_ERR(c));
}

steer_status steer_cluster_bodies_reduce(void *ud, steer_status st, uint64_t *sums, size_t nsums,
                                         double *maxs, size_t nmaxs)
{
	steer_cluster *c = ud;
	st = bodies_agree(c, st);
	if (st != STEER_OK)
		return st;
	int rc = MPI_SUCCESS;
	if (nsums)
		rc = MPI_Allreduce(MPI_IN_PLACE, sums, (int)nsums, MPI_UINT64_T, MPI_SUM, c->comm);
	if (rc == MPI_SUCCESS && nmaxs)
		rc = MPI_Allreduce(MPI_IN_PLACE, maxs, (int)nmaxs, MPI_DOUBLE, MPI_MAX, c->comm);
	return rc == MPI_SUCCESS ? STEER_OK
	                         : steer_cluster_mpi_failed(BODIES_ERR(c), rc, "Allreduce");
}

/* Room for the byte counts of every rank's message and their starts, from counts[]
 * (in c->recv_counts): NULL when the total passes what MPI counts. */
static bool bodies_displs(steer_cluster *c, size_t *total)
{
	*total = 0;
	for (int r = 0; r < c->ranks; r++) {
		if ((size_t)c->recv_counts[r] > (size_t)INT32_MAX - *total)
			return false;
		c->recv_displs[r] = (int)*total;
		*total += (size_t)c->recv_counts[r];
	}
	return true;
}

steer_status steer_cluster_bodies_allgather(void *ud, steer_status st, const void *mine, size_t len,
                                            uint8_t **all, size_t *all_len)
{
	steer_cluster *c = ud;
	*all = NULL;
	*all_len = 0;
	if (st == STEER_OK && len > INT32_MAX)
		st = steer_cluster_fail(BODIES_ERR(c), STEER_ERR_LIMIT,
		                        "a message between ranks passed 2 GiB");
	st = bodies_agree(c, st);
	if (st != STEER_OK)
		return st;
	int n = (int)len;
	int rc = MPI_Allgather(&n, 1, MPI_INT, c->recv_counts, 1, MPI_INT, c->comm);
	if (rc != MPI_SUCCESS)
		return steer_cluster_mpi_failed(BODIES_ERR(c), rc, "Allgather");
	size_t total;
	if (!bodies_displs(c, &total))
		st = steer_cluster_fail(BODIES_ERR(c), STEER_ERR_LIMIT,
		                        "a message between ranks passed 2 GiB");
	else if (!(*all = malloc(total ? total : 1)))
		st = steer_cluster_fail(BODIES_ERR(c), STEER_ERR_NOMEM,
		                        "out of memory for a message");
	st = bodies_agree(c, st);
	if (st != STEER_OK)
		return st;
	rc = MPI_Allgatherv(mine ? mine : *all, n, MPI_BYTE, *all, c->recv_counts, c->recv_displs,
	                    MPI_BYTE, c->comm);
	if (rc != MPI_SUCCESS)
		return steer_cluster_mpi_failed(BODIES_ERR(c), rc, "Allgatherv");
	*all_len = total;
	return STEER_OK;
}

steer_status steer_cluster_bodies_gather(void *ud, steer_status st, const void *mine, size_t len,
                                         uint8_t **all, size_t *at)
{
	steer_cluster *c = ud;
	*all = NULL;
	if (st == STEER_OK && len > INT32_MAX)
		st = steer_cluster_fail(BODIES_ERR(c), STEER_ERR_LIMIT,
		                        "a message between ranks passed 2 GiB");
	st = bodies_agree(c, st);
	if (st != STEER_OK)
		return st;
	int n = (int)len;
	int rc = MPI_Gather(&n, 1, MPI_INT, c->recv_counts, 1, MPI_INT, 0, c->comm);
	if (rc != MPI_SUCCESS)
		return steer_cluster_mpi_failed(BODIES_ERR(c), rc, "Gather");
	size_t total = 0;
	if (c->rank == 0) {
		if (!bodies_displs(c, &total))
			st = steer_cluster_fail(BODIES_ERR(c), STEER_ERR_LIMIT,
			                        "a message between ranks passed 2 GiB");
		else if (!(*all = malloc(total ? total : 1)))
			st = steer_cluster_fail(BODIES_ERR(c), STEER_ERR_NOMEM,
			                        "out of memory for a message");
	}
	st = bodies_agree(c, st);
	if (st != STEER_OK) {
		free(*all);
		*all = NULL;
		return st;
	}
	uint8_t none = 0;
	rc = MPI_Gatherv(mine ? mine : &none, n, MPI_BYTE, *all, c->recv_counts, c->recv_displs,
	                 MPI_BYTE, 0, c->comm);
	if (rc != MPI_SUCCESS)
		return steer_cluster_mpi_failed(BODIES_ERR(c), rc, "Gatherv");
	for (int r = 0; c->rank == 0 && r <= c->ranks; r++)
		at[r] = r < c->ranks ? (size_t)c->recv_displs[r] : total;
	return STEER_OK;
}

steer_status steer_cluster_bodies_scatter(void *ud, steer_status st, const uint8_t *all,
                                          const size_t *at, uint8_t **mine, size_t *len)
{
	steer_cluster *c = ud;
	*mine = NULL;
	*len = 0;
	if (st == STEER_OK && c->rank == 0) {
		if (at[c->ranks] > INT32_MAX)
			st = steer_cluster_fail(BODIES_ERR(c), STEER_ERR_LIMIT,
			                        "a message between ranks passed 2 GiB");
		for (int r = 0; st == STEER_OK && r < c->ranks; r++) {
			c->send_counts[r] = (int)(at[r + 1] - at[r]);
			c->send_displs[r] = (int)at[r];
		}
	}
	st = bodies_agree(c, st);
	if (st != STEER_OK)
		return st;
	int n = 0;
	int rc = MPI_Scatter(c->send_counts, 1, MPI_INT, &n, 1, MPI_INT, 0, c->comm);
	if (rc != MPI_SUCCESS)
		return steer_cluster_mpi_failed(BODIES_ERR(c), rc, "Scatter");
	*mine = malloc(n ? (size_t)n : 1);
	st = bodies_agree(c, *mine ? STEER_OK : STEER_ERR_NOMEM);
	if (st != STEER_OK)
		return st;
	rc = MPI_Scatterv(all, c->send_counts, c->send_displs, MPI_BYTE, *mine, n, MPI_BYTE, 0,
	                  c->comm);
	if (rc != MPI_SUCCESS)
		return steer_cluster_mpi_failed(BODIES_ERR(c), rc, "Scatterv");
	*len = (size_t)n;
	return STEER_OK;
}

/* Which slots of the world hold copies now: is_copy[i] (malloc'd, the caller's). */
static uint8_t *copy_flags(steer_cluster *c)
{
	const steer_vehicles *v = steer_world_vehicles(c->w);
	uint8_t *is_copy = calloc(v->count + 1, 1);
	for (size_t k = 0; is_copy && k < c->halo.count; k++) {
		long i = steer_vehicle_index(c->w, c->halo.at[k]);
		if (i >= 0)
			is_copy[i] = 1;
	}
	return is_copy;
}

/* Alltoallv of raw bytes: send (grouped by rank, c->send_counts and send_displs) to
 * every rank; *recv (malloc'd) gets theirs, c->recv_counts and recv_displs say where. */
static steer_status swap_bytes(steer_cluster *c, const uint8_t *send, uint8_t **recv)
{
	*recv = NULL;
	int rc = MPI_Alltoall(c->send_counts, 1, MPI_INT, c->recv_counts, 1, MPI_INT, c->comm);
	if (rc != MPI_SUCCESS)
		return steer_cluster_mpi_failed(BODIES_ERR(c), rc, "Alltoall");
	size_t total;
	steer_status st = STEER_OK;
	if (!bodies_displs(c, &total))
		st = steer_cluster_fail(BODIES_ERR(c), STEER_ERR_LIMIT,
		                        "a message between ranks passed 2 GiB");
	else if (!(*recv = malloc(total ? total : 1)))
		st = steer_cluster_fail(BODIES_ERR(c), STEER_ERR_NOMEM,
		                        "out of memory for a message");
	st = bodies_agree(c, st);
	if (st != STEER_OK)
		return st;
	uint8_t none = 0;
	rc = MPI_Alltoallv(send ? send : &none, c->send_counts, c->send_displs, MPI_BYTE, *recv,
	                   c->recv_counts, c->recv_displs, MPI_BYTE, c->comm);
	return rc == MPI_SUCCESS ? STEER_OK
	                         : steer_cluster_mpi_failed(BODIES_ERR(c), rc, "Alltoallv");
}

/* The copies this rank holds, by id, to the ranks they came from; their positions
 * now back, in the same order, into ids and xy. */
static steer_status refresh_copies(steer_cluster *c, const uint8_t *is_copy, uint32_t **ids,
                                   double **xy, size_t *n)
{
	size_t held = c->halo.count;
	uint32_t *ask = malloc((held ? held : 1) * sizeof *ask);
	steer_status st = ask ? STEER_OK : STEER_ERR_NOMEM;
	size_t at = 0;
	for (int r = 0; r < c->ranks; r++) {
		c->send_displs[r] = (int)(at * sizeof *ask);
		for (size_t k = 0; ask && k < held; k++)
			if (c->halo_src[k] == r)
				ask[at++] = c->halo.at[k];
		c->send_counts[r] = (int)(at * sizeof *ask) - c->send_displs[r];
	}
	st = bodies_agree(c, st);
	uint8_t *asked = NULL;
	if (st == STEER_OK)
		st = swap_bytes(c, (const uint8_t *)ask, &asked);
	if (st != STEER_OK) {
		free(ask);
		free(asked);
		return st;
	}
	/* The answers: for each id asked, where this rank's own vehicle is now. */
	size_t nasked = 0;
	for (int r = 0; r < c->ranks; r++)
		nasked += (size_t)c->recv_counts[r] / sizeof(uint32_t);
	double *answer = malloc((nasked ? nasked : 1) * 2 * sizeof *answer);
	st = answer ? STEER_OK : STEER_ERR_NOMEM;
	const steer_vehicles *v = steer_world_vehicles(c->w);
	size_t k = 0;
	for (int r = 0; st == STEER_OK && r < c->ranks; r++) {
		size_t from = (size_t)c->recv_displs[r] / sizeof(uint32_t),
		       count = (size_t)c->recv_counts[r] / sizeof(uint32_t);
		c->send_displs[r] = (int)(k * 2 * sizeof(double));
		c->send_counts[r] = (int)(count * 2 * sizeof(double));
		for (size_t q = 0; q < count && st == STEER_OK; q++, k++) {
			uint32_t id;
			memcpy(&id, asked + (from + q) * sizeof id, sizeof id);
			long i = steer_vehicle_index(c->w, id);
			if (i < 0 || is_copy[i]) {
				st = steer_cluster_fail(
				    BODIES_ERR(c), STEER_ERR_INVALID,
				    "a rank asked for a vehicle another rank does "
				    "not own");
				break;
			}
			answer[2 * k] = v->px[i];
			answer[2 * k + 1] = v->py[i];
		}
	}
	free(asked);
	st = bodies_agree(c, st);
	uint8_t *got = NULL;
	if (st == STEER_OK)
		st = swap_bytes(c, (const uint8_t *)answer, &got);
	free(answer);
	if (st != STEER_OK) {
		free(ask);
		free(got);
		return st;
	}
	*ids = ask;
	*xy = (double *)(void *)got;
	*n = at;
	return STEER_OK;
}

/* Copies of this rank's own vehicles within reach of other regions, where they are
 * now, to those ranks; those a rank holds already are kept as refreshed. */
static steer_status send_near(steer_cluster *c, const uint8_t *is_copy, double reach)
{
	steer_world *w = c->w;
	const steer_vehicles *v = steer_world_vehicles(w);
	bool *seen = malloc((size_t)c->ranks * sizeof *seen);
	steer_status st = seen ? STEER_OK : STEER_ERR_NOMEM;
	steer_cluster_reset_messages(c);
	for (size_t i = 0; i < v->count && st == STEER_OK; i++) {
		if (is_copy[i])
			continue;
		int n = steer_cluster_near_ranks(c, v->px[i], v->py[i], reach, seen);
		for (int k = 0; k < n && st == STEER_OK; k++)
			st = steer_pack_vehicle(&c->out[c->near[k]], w, i);
	}
	free(seen);
	if (st == STEER_ERR_NOMEM)
		snprintf(BODIES_ERR(c), "out of memory while copying bodies");
	uint64_t bytes = 0;
	st = steer_cluster_exchange(c, st, &bytes, BODIES_ERR(c));
	if (st == STEER_OK)
		st = steer_cluster_take_all(c, STEER_UNPACK_SKIP, &c->halo, BODIES_ERR(c));
	c->figures[c->rank].halo_bytes += bytes;
	return steer_cluster_agree(c, st, BODIES_ERR(c));
}

steer_status steer_cluster_bodies_refresh(void *ud, steer_status st, steer_world *w, double reach,
                                          uint32_t **ids, double **xy, size_t *n)
{
	steer_cluster *c = ud;
	(void)w;
	*ids = NULL;
	*xy = NULL;
	*n = 0;
	uint8_t *is_copy = st == STEER_OK ? copy_flags(c) : NULL;
	if (st == STEER_OK && !is_copy)
		st = STEER_ERR_NOMEM;
	st = bodies_agree(c, st);
	if (st == STEER_OK)
		st = refresh_copies(c, is_copy, ids, xy, n);
	if (st == STEER_OK)
		st = send_near(c, is_copy, reach);
	free(is_copy);
	return st;
}
