/* One world over many ranks: creating the cluster over a world, agreeing on a
 * failure, the figures, and goto's planning budget agreed over the ranks. The tick:
 * tick.c; messages: exchange.c; the halo: halo.c; migration: migrate.c; the cut:
 * recut.c. */
#include "cluster_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster_parts.h"
#include "reserve.h"
#include "steer/params.h"

steer_cluster_options steer_cluster_options_default(void)
{
	steer_cluster_options o = {0, 0.10, 60, false, false};
	return o;
}

unsigned steer_cluster_cuts(const steer_cluster *c)
{
	return steer_partition_cuts(c->part);
}

void steer_cluster_figures(const steer_cluster *c, steer_cluster_figure *out)
{
	memcpy(out, c->figures, (size_t)c->ranks * sizeof *out);
}

steer_status steer_cluster_fail(char *err, size_t errlen, steer_status st, const char *what)
{
	snprintf(err, errlen, "%s", what);
	return st;
}

steer_status steer_cluster_mpi_failed(char *err, size_t errlen, int rc, const char *what)
{
	char msg[MPI_MAX_ERROR_STRING];
	int len = 0;
	if (MPI_Error_string(rc, msg, &len) != MPI_SUCCESS)
		snprintf(msg, sizeof msg, "error %d", rc);
	snprintf(err, errlen, "MPI %s failed: %s", what, msg);
	return STEER_ERR_IO;
}

steer_status steer_agree_first(MPI_Comm comm, int rank, int ranks, steer_status st, int *first,
                               char *err, size_t errlen)
{
	int mine = st != STEER_OK ? rank : ranks;
	*first = -1;
	if (MPI_Allreduce(&mine, first, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS) {
		*first = -1;
		return steer_cluster_fail(err, errlen, STEER_ERR_IO, "MPI failed while agreeing");
	}
	if (*first == ranks)
		return STEER_OK;
	char msg[512] = "";
	int code = st;
	if (*first == rank)
		snprintf(msg, sizeof msg, "%s", err);
	if (MPI_Bcast(msg, sizeof msg, MPI_CHAR, *first, comm) != MPI_SUCCESS ||
	    MPI_Bcast(&code, 1, MPI_INT, *first, comm) != MPI_SUCCESS) {
		*first = -1;
		return steer_cluster_fail(err, errlen, STEER_ERR_IO, "MPI failed while agreeing");
	}
	snprintf(err, errlen, "%s", msg);
	return (steer_status)code;
}

steer_status steer_cluster_agree(steer_cluster *c, steer_status st, char *err, size_t errlen)
{
	int first;
	steer_status all = steer_agree_first(c->comm, c->rank, c->ranks, st, &first, err, errlen);
	if (all == STEER_OK || first < 0 || c->ranks == 1)
		return all;
	/* Every rank reports the first failed rank's own words, naming it. */
	char words[512];
	snprintf(words, sizeof words, "%s", err);
	snprintf(err, errlen, "rank %d: %s", first, words);
	return all;
}

/* --- goto's budget ---------------------------------------------------------------- */

/* A vehicle is this rank's own when it lies in its region: the halo's and the
 * targets' copies lie in others'. */
static bool replan_own(void *ud, const steer_world *w, size_t i)
{
	const steer_cluster *c = ud;
	const steer_vehicles *v = steer_world_vehicles(w);
	return steer_partition_owner(c->part, v->px[i], v->py[i]) == c->rank;
}

/* Every rank's plans under way to every rank; each rank's allowances as one process
 * gives them, over the whole world's plans in their order (steer_goto_allowance). */
static steer_status replan_agree(void *ud, const steer_plan_key *keys, size_t n, uint64_t *allow)
{
	steer_cluster *c = ud;
	steer_status st = n > INT32_MAX / sizeof(steer_plan_key) ? STEER_ERR_LIMIT : STEER_OK;
	int mine = st == STEER_OK ? (int)(n * sizeof(steer_plan_key)) : 0;
	if (MPI_Allgather(&mine, 1, MPI_INT, c->recv_counts, 1, MPI_INT, c->comm) != MPI_SUCCESS)
		return STEER_ERR_IO;
	size_t total = 0;
	for (int r = 0; r < c->ranks; r++) {
		c->recv_displs[r] = (int)(total < INT32_MAX ? total : INT32_MAX);
		total += (size_t)c->recv_counts[r];
	}
	if (total > INT32_MAX && st == STEER_OK)
		st = STEER_ERR_LIMIT;
	size_t count = total / sizeof(steer_plan_key);
	steer_plan_key *all = st == STEER_OK ? malloc(count ? total : 1) : NULL;
	if (st == STEER_OK && !all)
		st = STEER_ERR_NOMEM;
	/* Every rank learns of a failure before the gather it would skip. */
	char err[256] = "";
	st = steer_cluster_agree(c, st, err, sizeof err);
	if (st != STEER_OK) {
		free(all);
		return st;
	}
	if (MPI_Allgatherv(keys, mine, MPI_BYTE, all, c->recv_counts, c->recv_displs, MPI_BYTE,
	                   c->comm) != MPI_SUCCESS)
		st = STEER_ERR_IO;
	if (st == STEER_OK) {
		qsort(all, count, sizeof *all, steer_plan_key_cmp);
		/* This rank's plans are in the same order as the merged list. */
		size_t j = 0;
		for (size_t k = 0; k < n; k++) {
			while (j < count && steer_plan_key_cmp(&all[j], &keys[k]) != 0)
				j++;
			allow[k] = j < count ? steer_goto_allowance(&keys[k], j, count) : 0;
		}
	}
	free(all);
	return st;
}

/* A vehicle spawned in bulk at (x, y) is kept by the rank whose region holds it.
 * Every rank sees every vehicle of a spawn: those outside its region's box are
 * another's without a walk of the cut. */
static bool holds_point(void *ud, double x, double y)
{
	const steer_cluster *c = ud;
	const double *m = c->mine;
	if (x < m[0] || x > m[2] || y < m[1] || y > m[3])
		return false;
	return steer_cluster_owner_of(c, x, y) == c->rank;
}

/* --- create --------------------------------------------------------------------------- */

steer_cluster *steer_cluster_create(MPI_Comm comm, steer_world *w, const steer_cluster_options *opt,
                                    char *err, size_t errlen)
{
	steer_cluster *c = calloc(1, sizeof *c);
	if (!c) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	c->w = w;
	c->max_vehicles = steer_world_config_get(w)->max_vehicles;
	c->opt = opt ? *opt : steer_cluster_options_default();
	if (MPI_Comm_rank(comm, &c->rank) != MPI_SUCCESS ||
	    MPI_Comm_size(comm, &c->ranks) != MPI_SUCCESS) {
		snprintf(err, errlen, "MPI cannot say this process's rank");
		free(c);
		return NULL;
	}
	/* The cluster's own messages travel apart from the caller's. */
	if (MPI_Comm_dup(comm, &c->comm) != MPI_SUCCESS) {
		snprintf(err, errlen, "MPI cannot make the cluster's communicator");
		free(c);
		return NULL;
	}
	size_t n = (size_t)c->ranks;
	c->out = calloc(n, sizeof *c->out);
	c->send_counts = calloc(n, sizeof(int));
	c->send_displs = calloc(n, sizeof(int));
	c->recv_counts = calloc(n, sizeof(int));
	c->recv_displs = calloc(n, sizeof(int));
	c->near = calloc(n, sizeof(int));
	c->peer = calloc(n, sizeof *c->peer);
	c->peer_at = calloc(n, sizeof *c->peer_at);
	c->peer_box = calloc(4 * n, sizeof *c->peer_box);
	c->peers = -1;
	c->req = calloc(2 * n, sizeof *c->req);
	c->figures = calloc(n, sizeof *c->figures);
	c->window_s = calloc(n, sizeof *c->window_s);
	steer_status st = STEER_OK;
	if (!c->out || !c->send_counts || !c->send_displs || !c->recv_counts || !c->recv_displs ||
	    !c->near || !c->peer || !c->peer_at || !c->peer_box || !c->req || !c->figures ||
	    !c->window_s) {
		snprintf(err, errlen, "out of memory");
		st = STEER_ERR_NOMEM;
	}
	for (int r = 0; c->out && r < c->ranks; r++)
		steer_pack_init(&c->out[r]);
	st = steer_cluster_agree(c, st, err, errlen);
	if (st == STEER_OK) {
		double box[4];
		st = steer_cluster_tile_box(c, box, err, errlen);
		if (st == STEER_OK) {
			c->part = steer_partition_create(comm, box[0], box[1], box[2], box[3], err,
			                                 errlen);
			st = steer_cluster_agree(c, c->part ? STEER_OK : STEER_ERR_IO, err, errlen);
			if (st == STEER_OK)
				steer_cluster_take_region(c);
		}
	}
	/* Each rank keeps its region's vehicles, or gets them from rank 0; then the
	 * regions are cut by cost. */
	if (st == STEER_OK && c->opt.whole_on_rank0)
		st = steer_cluster_migrate(c, UINT32_MAX, false, err, errlen);
	else if (st == STEER_OK)
		st = steer_cluster_migrate(c, 0, true, err, errlen);
	if (st == STEER_OK && c->ranks > 1) {
		st = steer_cluster_rebalance(c, err, errlen); /* nothing measured: the model */
		memset(c->figures, 0, n * sizeof *c->figures);
	}
	if (st != STEER_OK) {
		steer_cluster_destroy(c);
		return NULL;
	}
	steer_replan_share share = {replan_own, replan_agree, c};
	steer_world_set_replan_share(w, &share);
	steer_bodies_share bodies = {.part = c->rank,
	                             .parts = c->ranks,
	                             .ud = c,
	                             .own = steer_cluster_bodies_own,
	                             .inside = steer_cluster_bodies_inside,
	                             .reduce = steer_cluster_bodies_reduce,
	                             .allgather = steer_cluster_bodies_allgather,
	                             .gather = steer_cluster_bodies_gather,
	                             .scatter = steer_cluster_bodies_scatter,
	                             .refresh = steer_cluster_bodies_refresh};
	steer_world_set_bodies_share(w, &bodies);
	steer_region_keep keep = {holds_point, c};
	steer_world_set_region_keep(w, &keep);
	return c;
}

void steer_cluster_destroy(steer_cluster *c)
{
	if (!c)
		return;
	/* The world steps by its own figures, and plans alone, again. */
	steer_world_survey_set(c->w, NULL);
	steer_world_set_replan_share(c->w, NULL);
	steer_world_set_bodies_share(c->w, NULL);
	steer_world_set_region_keep(c->w, NULL);
	steer_world_set_reach_limit(c->w, 0.0);
	if (c->part)
		steer_partition_destroy(c->part);
	for (int r = 0; c->out && r < c->ranks; r++)
		steer_pack_free(&c->out[r]);
	free(c->out);
	free(c->send_counts);
	free(c->send_displs);
	free(c->recv_counts);
	free(c->recv_displs);
	free(c->near);
	free(c->peer);
	free(c->peer_at);
	free(c->peer_box);
	free(c->req);
	free(c->send);
	free(c->recv);
	free(c->figures);
	free(c->window_s);
	steer_id_list_free(&c->halo);
	free(c->halo_src);
	MPI_Comm_free(&c->comm);
	free(c);
}
