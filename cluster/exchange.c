/* Moving a tick's messages between ranks: point to point with the regions that
 * touch this one when that is all they need, else through every rank; and unpacking
 * what arrived. */
#include "cluster_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster_parts.h"
#include "reserve.h"
#include "steer/params.h"

enum { TAG_COUNT = 1, TAG_BYTES = 2 };

/* steer_cluster_agree, also agreeing whether every rank's messages go to its peers
 * alone (*near_only in, the answer for all out): one collective for both. */
static steer_status agree_routes(steer_cluster *c, steer_status st, bool *near_only, char *err,
                                 size_t errlen)
{
	int mine[2] = {st != STEER_OK ? c->rank : c->ranks, *near_only}, all[2];
	if (MPI_Allreduce(mine, all, 2, MPI_INT, MPI_MIN, c->comm) != MPI_SUCCESS)
		return steer_cluster_fail(err, errlen, STEER_ERR_IO, "MPI failed while agreeing");
	*near_only = all[1];
	if (all[0] == c->ranks)
		return STEER_OK;
	return steer_cluster_agree(c, st, err, errlen); /* the failed rank's words */
}

/* Where each rank's message lands in c->recv, from recv_counts; room for them all. */
static steer_status place_received(steer_cluster *c, char *err, size_t errlen)
{
	size_t in = 0;
	for (int r = 0; r < c->ranks; r++) {
		if ((size_t)c->recv_counts[r] > (size_t)INT32_MAX - in)
			return steer_cluster_fail(err, errlen, STEER_ERR_LIMIT,
			                          "a message between ranks passed 2 GiB");
		c->recv_displs[r] = (int)in;
		in += (size_t)c->recv_counts[r];
	}
	if (steer_reserve((void **)&c->recv, &c->recv_cap, in ? in : 1, 1) != STEER_OK)
		return steer_cluster_fail(err, errlen, STEER_ERR_NOMEM,
		                          "out of memory for a message");
	return STEER_OK;
}

/* Through every rank: the counts by Alltoall, the bytes by Alltoallv from one buffer. */
static steer_status exchange_wide(steer_cluster *c, char *err, size_t errlen)
{
	int rc = MPI_Alltoall(c->send_counts, 1, MPI_INT, c->recv_counts, 1, MPI_INT, c->comm);
	if (rc != MPI_SUCCESS)
		return steer_cluster_mpi_failed(err, errlen, rc, "Alltoall");
	size_t total = (size_t)c->send_displs[c->ranks - 1] + (size_t)c->send_counts[c->ranks - 1];
	steer_status st = place_received(c, err, errlen);
	if (st == STEER_OK &&
	    steer_reserve((void **)&c->send, &c->send_cap, total ? total : 1, 1) != STEER_OK)
		st =
		    steer_cluster_fail(err, errlen, STEER_ERR_NOMEM, "out of memory for a message");
	st = steer_cluster_agree(c, st, err, errlen);
	if (st != STEER_OK)
		return st;
	for (int r = 0; r < c->ranks; r++)
		if (c->out[r].bytes.len)
			memcpy(c->send + c->send_displs[r], c->out[r].bytes.data,
			       c->out[r].bytes.len);
	rc = MPI_Alltoallv(c->send, c->send_counts, c->send_displs, MPI_BYTE, c->recv,
	                   c->recv_counts, c->recv_displs, MPI_BYTE, c->comm);
	return rc == MPI_SUCCESS ? STEER_OK
	                         : steer_cluster_mpi_failed(err, errlen, rc, "Alltoallv");
}

/* Posts a receive from and a send to every peer with something to move (counts: every
 * peer), and waits for them all. */
static int swap_with_peers(steer_cluster *c, bool counts)
{
	int n = 0, rc = MPI_SUCCESS;
	for (int k = 0; k < c->peers && rc == MPI_SUCCESS; k++) {
		int r = c->peer_at[k];
		if (counts)
			rc = MPI_Irecv(&c->recv_counts[r], 1, MPI_INT, r, TAG_COUNT, c->comm,
			               &c->req[n]);
		else if (c->recv_counts[r])
			rc = MPI_Irecv(c->recv + c->recv_displs[r], c->recv_counts[r], MPI_BYTE, r,
			               TAG_BYTES, c->comm, &c->req[n]);
		else
			continue;
		n += rc == MPI_SUCCESS;
	}
	for (int k = 0; k < c->peers && rc == MPI_SUCCESS; k++) {
		int r = c->peer_at[k];
		if (counts)
			rc = MPI_Isend(&c->send_counts[r], 1, MPI_INT, r, TAG_COUNT, c->comm,
			               &c->req[n]);
		else if (c->send_counts[r])
			rc = MPI_Isend(c->out[r].bytes.data, c->send_counts[r], MPI_BYTE, r,
			               TAG_BYTES, c->comm, &c->req[n]);
		else
			continue;
		n += rc == MPI_SUCCESS;
	}
	int wait = MPI_Waitall(n, c->req, MPI_STATUSES_IGNORE);
	return rc != MPI_SUCCESS ? rc : wait;
}

/* Point to point with the peers alone: their counts, then their bytes, each sent
 * from the rank's own message and received in place. */
static steer_status exchange_near(steer_cluster *c, char *err, size_t errlen)
{
	for (int r = 0; r < c->ranks; r++)
		c->recv_counts[r] = 0;
	c->recv_counts[c->rank] = c->send_counts[c->rank];
	int rc = swap_with_peers(c, true);
	if (rc != MPI_SUCCESS)
		return steer_cluster_mpi_failed(err, errlen, rc, "sending counts to neighbours");
	steer_status st = steer_cluster_agree(c, place_received(c, err, errlen), err, errlen);
	if (st != STEER_OK)
		return st;
	if (c->recv_counts[c->rank])
		memcpy(c->recv + c->recv_displs[c->rank], c->out[c->rank].bytes.data,
		       (size_t)c->recv_counts[c->rank]);
	rc = swap_with_peers(c, false);
	return rc == MPI_SUCCESS
	           ? STEER_OK
	           : steer_cluster_mpi_failed(err, errlen, rc, "sending to neighbours");
}

/* Collective: st is this rank's status so far (agreed on first). Sends out[r] to every
 * rank r and receives theirs into c->recv (recv_counts and recv_displs say where):
 * point to point with the peers when every rank's messages are for its peers alone,
 * else through every rank. *sent gets the bytes this rank sent to others. */
steer_status steer_cluster_exchange(steer_cluster *c, steer_status st, uint64_t *sent, char *err,
                                    size_t errlen)
{
	size_t total = 0;
	bool near_only = c->peers >= 0;
	*sent = 0;
	for (int r = 0; r < c->ranks && st == STEER_OK; r++) {
		if (c->out[r].bytes.len > (size_t)INT32_MAX - total) {
			st = steer_cluster_fail(err, errlen, STEER_ERR_LIMIT,
			                        "a message between ranks passed 2 GiB");
			break;
		}
		c->send_counts[r] = (int)c->out[r].bytes.len;
		c->send_displs[r] = (int)total;
		total += c->out[r].bytes.len;
		if (r != c->rank)
			*sent += c->out[r].bytes.len;
		if (r != c->rank && c->out[r].bytes.len && !(c->peers >= 0 && c->peer[r]))
			near_only = false;
	}
	/* Every rank learns of a failure before the exchange it would skip. */
	st = agree_routes(c, st, &near_only, err, errlen);
	c->sent_out = st == STEER_OK;
	if (st != STEER_OK)
		return st;
	if (near_only)
		return exchange_near(c, err, errlen);
	c->figures[c->rank].wide++;
	return exchange_wide(c, err, errlen);
}

/* Rank r's region's box, within the world's bounds where it has them: the outer
 * regions reach to infinity, but the vehicles of a bounded world lie within them
 * (one that strays beyond sends the exchange through every rank). */
static void region_box(const steer_cluster *c, int r, double box[4])
{
	const steer_world_config *cfg = steer_world_config_get(c->w);
	steer_partition_box(c->part, r, box);
	if (cfg->edges == STEER_EDGE_NONE)
		return;
	box[0] = fmax(box[0], 0.0);
	box[1] = fmax(box[1], 0.0);
	box[2] = fmin(box[2], cfg->width);
	box[3] = fmin(box[3], cfg->height);
}

/* The peers for this reach (see struct steer_cluster), from the regions' boxes every
 * rank holds alike: no message, but every rank calls it at the same point. Made again
 * every tick (a few box tests a rank), as a command may have changed the bounds or
 * the edges since the last. */
void steer_cluster_find_peers(steer_cluster *c, double reach)
{
	const steer_world_config *cfg = steer_world_config_get(c->w);
	int shifts = cfg->edges == STEER_EDGE_WRAP ? 1 : 0;
	double me[4], them[4];
	region_box(c, c->rank, me);
	c->peers = 0;
	c->peers_reach = reach;
	for (int r = 0; r < c->ranks; r++) {
		region_box(c, r, them);
		bool near = false;
		for (int sy = -shifts; sy <= shifts && !near; sy++)
			for (int sx = -shifts; sx <= shifts && !near; sx++) {
				double dx = sx * cfg->width, dy = sy * cfg->height;
				/* Either box widened by reach and shifted across the seams meets
				 * the other: the same answer on both ranks of a pair. */
				near = (me[0] - reach + dx <= them[2] &&
				        them[0] <= me[2] + reach + dx &&
				        me[1] - reach + dy <= them[3] &&
				        them[1] <= me[3] + reach + dy) ||
				       (them[0] - reach + dx <= me[2] &&
				        me[0] <= them[2] + reach + dx &&
				        them[1] - reach + dy <= me[3] &&
				        me[1] <= them[3] + reach + dy);
			}
		c->peer[r] = near && r != c->rank;
		if (c->peer[r]) {
			memcpy(c->peer_box + 4 * c->peers, them, sizeof them);
			c->peer_at[c->peers++] = r;
		}
	}
}

/* Unpacks every rank's message in c->recv into the world. Copies added to c->halo
 * note the rank they came from. */
steer_status steer_cluster_take_all(steer_cluster *c, steer_unpack_dup dup, steer_id_list *added,
                                    char *err, size_t errlen)
{
	for (int r = 0; r < c->ranks; r++) {
		size_t before = added ? added->count : 0;
		steer_status st = steer_unpack(c->w, c->recv + c->recv_displs[r],
		                               (size_t)c->recv_counts[r], dup, added, err, errlen);
		if (added == &c->halo && added->count > before) {
			if (steer_reserve((void **)&c->halo_src, &c->halo_src_cap, added->count,
			                  sizeof *c->halo_src) != STEER_OK)
				return steer_cluster_fail(err, errlen, STEER_ERR_NOMEM,
				                          "out of memory noting copies");
			for (size_t k = before; k < added->count; k++)
				c->halo_src[k] = r;
		}
		if (st != STEER_OK)
			return st;
	}
	return STEER_OK;
}

void steer_cluster_reset_messages(steer_cluster *c)
{
	for (int r = 0; r < c->ranks; r++)
		steer_pack_reset(&c->out[r]);
}
