/* The halo: copies of the vehicles within reach of another region sent to it, and
 * of the vehicles steered by (chased, followed) wherever they are. */
#include "cluster_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster_parts.h"
#include "reserve.h"
#include "steer/params.h"

static int reach_boxes(const steer_cluster *c, double x, double y, double reach, double q[9][4])
{
	const steer_world_config *cfg = steer_world_config_get(c->w);
	double W = cfg->width, H = cfg->height;
	int shifts = cfg->edges == STEER_EDGE_WRAP ? 1 : 0, boxes = 0;
	bool clip = cfg->edges != STEER_EDGE_NONE;
	for (int sy = -shifts; sy <= shifts; sy++)
		for (int sx = -shifts; sx <= shifts; sx++) {
			double *b = q[boxes];
			b[0] = x - reach + sx * W;
			b[1] = y - reach + sy * H;
			b[2] = x + reach + sx * W;
			b[3] = y + reach + sy * H;
			if (clip) {
				b[0] = b[0] < 0.0 ? 0.0 : b[0];
				b[1] = b[1] < 0.0 ? 0.0 : b[1];
				b[2] = b[2] > W ? W : b[2];
				b[3] = b[3] > H ? H : b[3];
			}
			boxes += b[0] <= b[2] && b[1] <= b[3];
		}
	return boxes;
}

/* The ranks other than this one whose regions come within reach of (x, y), into
 * c->near; returns their count. Across the seam of a wrap world too. */
int steer_cluster_near_ranks(steer_cluster *c, double x, double y, double reach, bool *seen)
{
	double q[9][4];
	int boxes = reach_boxes(c, x, y, reach, q), n = 0;
	/* Every region within peers_reach of this one's is a peer's (find_peers): so is
	 * every region within reach of a point, when the point lies no further than
	 * peers_reach - reach outside this region (a body the solid pass moved). Their
	 * boxes answer, without the cut. */
	const double *m = c->mine;
	double out = 0.0, d[4] = {m[0] - x, x - m[2], m[1] - y, y - m[3]};
	for (int k = 0; k < 4; k++)
		out = d[k] > out ? d[k] : out;
	if (c->peers >= 0 && reach + out <= c->peers_reach) {
		for (int k = 0; k < c->peers; k++) {
			const double *p = c->peer_box + 4 * k;
			bool near = false;
			for (int j = 0; j < boxes && !near; j++)
				near = q[j][0] <= p[2] && p[0] <= q[j][2] && q[j][1] <= p[3] &&
				       p[1] <= q[j][3];
			if (near)
				c->near[n++] = c->peer_at[k];
		}
		return n;
	}
	for (int r = 0; r < c->ranks; r++)
		seen[r] = false;
	for (int j = 0; j < boxes; j++) {
		int got =
		    steer_partition_near(c->part, q[j][0], q[j][1], q[j][2], q[j][3], c->near);
		for (int k = 0; k < got; k++)
			seen[c->near[k]] = true;
	}
	for (int r = 0; r < c->ranks; r++)
		if (seen[r] && r != c->rank)
			c->near[n++] = r;
	return n;
}

/* The halo: each of this rank's vehicles within reach of another region, to it. */
steer_status steer_cluster_send_halo(steer_cluster *c, double reach, uint64_t *bytes, char *err,
                                     size_t errlen)
{
	steer_world *w = c->w;
	const steer_vehicles *v = steer_world_vehicles(w);
	bool *seen = malloc((size_t)c->ranks * sizeof *seen);
	steer_status st = seen ? STEER_OK : STEER_ERR_NOMEM;
	steer_cluster_reset_messages(c);
	const steer_world_config *cfg = steer_world_config_get(w);
	bool seams = cfg->edges == STEER_EDGE_WRAP;
	const double *m = c->core;
	for (size_t i = 0; i < v->count && st == STEER_OK; i++) {
		double x = v->px[i], y = v->py[i];
		/* Deep inside the region's core, no other is within reach: no lookup. */
		if (x - reach > m[0] && x + reach < m[2] && y - reach > m[1] && y + reach < m[3] &&
		    (!seams || (x - reach > 0.0 && x + reach < cfg->width && y - reach > 0.0 &&
		                y + reach < cfg->height)))
			continue;
		int n = steer_cluster_near_ranks(c, x, y, reach, seen);
		for (int k = 0; k < n && st == STEER_OK; k++)
			st = steer_pack_vehicle(&c->out[c->near[k]], w, i);
	}
	free(seen);
	if (st == STEER_ERR_NOMEM)
		snprintf(err, errlen, "out of memory while copying the halo");
	st = steer_cluster_exchange(c, st, bytes, err, errlen);
	if (st == STEER_OK)
		st = steer_cluster_take_all(c, STEER_UNPACK_REFUSE, &c->halo, err, errlen);
	return steer_cluster_agree(c, st, err, errlen);
}

static int by_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

/* Collective: the ids in `want` of every rank, sorted and without repeats, into *all
 * (malloc'd, the caller's). */
static steer_status gather_ids(steer_cluster *c, const steer_id_list *want, steer_id_list *all,
                               char *err, size_t errlen)
{
	int mine = (int)want->count;
	steer_status st = want->count > INT32_MAX / 4
	                      ? steer_cluster_fail(err, errlen, STEER_ERR_LIMIT,
	                                           "too many vehicles named at once")
	                      : STEER_OK;
	st = steer_cluster_agree(c, st, err, errlen);
	if (st != STEER_OK)
		return st;
	int rc = MPI_Allgather(&mine, 1, MPI_INT, c->recv_counts, 1, MPI_INT, c->comm);
	if (rc != MPI_SUCCESS)
		return steer_cluster_mpi_failed(err, errlen, rc, "Allgather");
	size_t total = 0;
	for (int r = 0; r < c->ranks; r++) {
		c->recv_displs[r] = (int)total;
		total += (size_t)c->recv_counts[r];
	}
	all->count = 0;
	if (total > INT32_MAX)
		st = steer_cluster_fail(err, errlen, STEER_ERR_LIMIT,
		                        "too many vehicles named at once");
	else if (steer_reserve((void **)&all->at, &all->cap, total ? total : 1, sizeof *all->at) !=
	         STEER_OK)
		st =
		    steer_cluster_fail(err, errlen, STEER_ERR_NOMEM, "out of memory gathering ids");
	st = steer_cluster_agree(c, st, err, errlen);
	if (st != STEER_OK)
		return st;
	rc = MPI_Allgatherv(want->at ? want->at : all->at, mine, MPI_UINT32_T, all->at,
	                    c->recv_counts, c->recv_displs, MPI_UINT32_T, c->comm);
	if (rc != MPI_SUCCESS)
		return steer_cluster_mpi_failed(err, errlen, rc, "Allgatherv");
	qsort(all->at, total, sizeof *all->at, by_u32);
	size_t n = 0;
	for (size_t k = 0; k < total; k++)
		if (all->at[k] != 0 && (n == 0 || all->at[n - 1] != all->at[k]))
			all->at[n++] = all->at[k];
	all->count = n;
	return STEER_OK;
}

/* Collective: copies of the vehicles named in `want` (on any rank) to every rank that
 * lacks them; their ids are added to c->halo. */
steer_status steer_cluster_share(steer_cluster *c, const steer_id_list *want, uint64_t *bytes,
                                 char *err, size_t errlen)
{
	steer_id_list all = {0};
	steer_status st = gather_ids(c, want, &all, err, errlen);
	st = steer_cluster_agree(c, st, err, errlen);
	/* No rank named any: nothing to send (every rank holds the same list). */
	if (st != STEER_OK || all.count == 0) {
		steer_id_list_free(&all);
		return st;
	}
	steer_pack *p = &c->out[c->rank];
	steer_pack_reset(p);
	const steer_vehicles *v = steer_world_vehicles(c->w);
	for (size_t k = 0; k < all.count && st == STEER_OK; k++) {
		long i = steer_vehicle_index(c->w, all.at[k]);
		/* A copy held for the halo is not this rank's to share. */
		if (i >= 0 && steer_cluster_owner_of(c, v->px[i], v->py[i]) == c->rank)
			st = steer_pack_vehicle(p, c->w, (size_t)i);
	}
	steer_id_list_free(&all);
	if (st != STEER_OK)
		snprintf(err, errlen, "out of memory while sharing vehicles");
	st = steer_cluster_agree(c, st, err, errlen);
	if (st != STEER_OK)
		return st;
	st = p->bytes.len > INT32_MAX ? steer_cluster_fail(err, errlen, STEER_ERR_LIMIT,
	                                                   "a message between ranks passed 2 GiB")
	                              : STEER_OK;
	st = steer_cluster_agree(c, st, err, errlen);
	if (st != STEER_OK)
		return st;
	int mine = (int)p->bytes.len;
	int rc = MPI_Allgather(&mine, 1, MPI_INT, c->recv_counts, 1, MPI_INT, c->comm);
	size_t total = 0;
	for (int r = 0; rc == MPI_SUCCESS && r < c->ranks; r++) {
		c->recv_displs[r] = (int)total;
		total += (size_t)c->recv_counts[r];
	}
	if (rc != MPI_SUCCESS)
		return steer_cluster_mpi_failed(err, errlen, rc, "Allgather");
	if (total > INT32_MAX)
		st = steer_cluster_fail(err, errlen, STEER_ERR_LIMIT,
		                        "a message between ranks passed 2 GiB");
	else if (steer_reserve((void **)&c->recv, &c->recv_cap, total ? total : 1, 1) != STEER_OK)
		st =
		    steer_cluster_fail(err, errlen, STEER_ERR_NOMEM, "out of memory for a message");
	st = steer_cluster_agree(c, st, err, errlen);
	if (st != STEER_OK)
		return st;
	rc = MPI_Allgatherv(p->bytes.data ? p->bytes.data : c->recv, mine, MPI_BYTE, c->recv,
	                    c->recv_counts, c->recv_displs, MPI_BYTE, c->comm);
	if (rc != MPI_SUCCESS)
		return steer_cluster_mpi_failed(err, errlen, rc, "Allgatherv");
	*bytes += (uint64_t)mine * (uint64_t)(c->ranks - 1);
	st = steer_cluster_take_all(c, STEER_UNPACK_SKIP, &c->halo, err, errlen);
	return steer_cluster_agree(c, st, err, errlen);
}

/* The vehicles this rank's vehicles steer by wherever they are: chased, followed,
 * hidden from, interposed between. */
steer_status steer_cluster_targets_of(const steer_world *w, steer_id_list *out)
{
	const steer_vehicles *v = steer_world_vehicles(w);
	out->count = 0;
	for (size_t i = 0; i < v->count; i++) {
		if (v->extra[i] == STEER_NO_EXTRA)
			continue;
		const steer_vehicle_state *s = steer_vehicle_state_at(w, i);
		uint32_t ids[6] = {s->pursue_id,       s->evade_id,         s->group.leader_id,
		                   s->group.hunter_id, s->group.between[0], s->group.between[1]};
		for (int k = 0; k < 6; k++)
			if (ids[k] && steer_id_list_push(out, ids[k]) != STEER_OK)
				return STEER_ERR_NOMEM;
	}
	return STEER_OK;
}

void steer_cluster_drop_halo(steer_cluster *c)
{
	for (size_t k = 0; k < c->halo.count; k++)
		(void)steer_vehicle_detach(c->w, c->halo.at[k]);
	c->halo.count = 0;
}

/* Every rank's figures of the tick, to every rank; and whether the regions should be
 * cut again (the same answer everywhere: it is made from the same numbers). */
