/* One tick over every rank: the world's survey agreed, the halo in, the step, the
 * migrants out, and the figures that say when to cut the regions again. */
#include "cluster_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster_parts.h"
#include "reserve.h"
#include "steer/params.h"

/* The whole world's survey, the same bits on every rank. */
static steer_status survey(steer_cluster *c, steer_world_survey *g, char *err, size_t errlen)
{
	steer_world_survey own = steer_world_survey_own(c->w);
	*g = own;
	double dmax[3] = {own.flock_sight, own.radius_max, own.speed_max}, gd[3];
	int imax[3] = {own.avoid_any, own.smooth_any, own.has_flockers}, gi[3];
	int iall[2] = {!own.has_flockers || own.flock_one_group,
	               !own.has_flockers || own.flock_plain},
	    ga[2];
	unsigned long count = own.vehicles, total = 0;
	if (MPI_Allreduce(&count, &total, 1, MPI_UNSIGNED_LONG, MPI_SUM, c->comm) != MPI_SUCCESS)
		return steer_cluster_fail(err, errlen, STEER_ERR_IO,
		                          "MPI failed while counting vehicles");
	g->vehicles = total;
	uint32_t gmin = own.has_flockers ? own.flock_group : UINT32_MAX,
	         gmax = own.has_flockers ? own.flock_group : 0;
	/* The flags' maxima, their ands and the groups' least as maxima of their
	 * complements: one reduction for every integer. */
	uint64_t most[7] = {(uint64_t)imax[0],
	                    (uint64_t)imax[1],
	                    (uint64_t)imax[2],
	                    (uint64_t)!iall[0],
	                    (uint64_t)!iall[1],
	                    UINT32_MAX - gmin,
	                    gmax},
	         got[7];
	if (MPI_Allreduce(dmax, gd, 3, MPI_DOUBLE, MPI_MAX, c->comm) != MPI_SUCCESS ||
	    MPI_Allreduce(most, got, 7, MPI_UINT64_T, MPI_MAX, c->comm) != MPI_SUCCESS)
		return steer_cluster_fail(err, errlen, STEER_ERR_IO,
		                          "MPI failed while surveying the world");
	for (int k = 0; k < 3; k++)
		gi[k] = (int)got[k];
	for (int k = 0; k < 2; k++)
		ga[k] = !got[3 + k];
	uint32_t rmin = UINT32_MAX - (uint32_t)got[5], rmax = (uint32_t)got[6];
	g->flock_sight = gd[0];
	g->radius_max = gd[1];
	g->speed_max = gd[2];
	g->avoid_any = gi[0];
	g->smooth_any = gi[1];
	g->has_flockers = gi[2];
	g->flock_one_group = ga[0] && rmin >= rmax;
	g->flock_group = rmin;
	g->flock_plain = ga[1];
	if (g->flock_plain && c->ranks > 1) {
		/* Plain everywhere, but with one set only if every rank's is the same. */
		size_t n = steer_param_count;
		double *mine = calloc(n + 1, sizeof *mine);
		double *all = calloc((n + 1) * (size_t)c->ranks, sizeof *all);
		steer_status st =
		    steer_cluster_agree(c, mine && all ? STEER_OK : STEER_ERR_NOMEM, err, errlen);
		if (st != STEER_OK) {
			free(mine);
			free(all);
			if (!mine || !all)
				snprintf(err, errlen, "out of memory while surveying");
			return st;
		}
		mine[0] = own.has_flockers;
		for (size_t k = 0; k < n; k++)
			mine[k + 1] = steer_param_get(&own.flock_set, &steer_param_defs[k]);
		int rc = MPI_Allgather(mine, (int)(n + 1), MPI_DOUBLE, all, (int)(n + 1),
		                       MPI_DOUBLE, c->comm);
		const double *first = NULL;
		for (int r = 0; rc == MPI_SUCCESS && r < c->ranks; r++) {
			const double *at = all + (size_t)r * (n + 1);
			if (at[0] == 0.0)
				continue;
			if (!first)
				first = at;
			else if (memcmp(first + 1, at + 1, n * sizeof *at) != 0)
				g->flock_plain = false;
		}
		free(mine);
		free(all);
		if (rc != MPI_SUCCESS)
			return steer_cluster_mpi_failed(err, errlen, rc, "Allgather");
	}
	return STEER_OK;
}

/* The boxes within reach of (x, y) as the regions' lookup takes them: shifted across
 * a wrap world's seams and clipped to a bounded world's bounds, the empty ones left
 * out; into q, their count back. */

static steer_status share_figures(steer_cluster *c, bool *recut, char *err, size_t errlen)
{
	steer_cluster_figure mine = c->figures[c->rank];
	int rc = MPI_Allgather(&mine, (int)sizeof mine, MPI_BYTE, c->figures, (int)sizeof mine,
	                       MPI_BYTE, c->comm);
	if (rc != MPI_SUCCESS)
		return steer_cluster_mpi_failed(err, errlen, rc, "Allgather");
	*recut = false;
	c->since_cut++;
	c->since_cut_s += mine.step_s;
	if (c->ranks == 1)
		return STEER_OK;
	if (c->opt.rebalance_ticks && c->since_cut >= c->opt.rebalance_ticks)
		*recut = true;
	for (int r = 0; r < c->ranks; r++)
		c->window_s[r] += c->figures[r].step_s;
	if (++c->window_ticks >= (c->opt.window ? c->opt.window : 1)) {
		double most = 0.0, sum = 0.0;
		for (int r = 0; r < c->ranks; r++) {
			most = fmax(most, c->window_s[r]);
			sum += c->window_s[r];
			c->window_s[r] = 0.0;
		}
		c->window_ticks = 0;
		double mean = sum / c->ranks;
		if (c->opt.imbalance > 0.0 && mean > 0.0 && most > mean * (1.0 + c->opt.imbalance))
			*recut = true;
	}
	return STEER_OK;
}

steer_status steer_cluster_step(steer_cluster *c, char *err, size_t errlen)
{
	steer_world *w = c->w;
	steer_cluster_figure *me = &c->figures[c->rank];
	steer_cluster_figure cut = *me;
	memset(me, 0, sizeof *me);
	me->cut_moved = cut.cut_moved;
	me->cut_bytes = cut.cut_bytes;
	me->cut_s = cut.cut_s;
	double t0 = MPI_Wtime();
	if (c->broken)
		return steer_cluster_fail(err, errlen, STEER_ERR_INVALID, BROKEN);
	steer_world_survey g;
	steer_status st = survey(c, &g, err, errlen);
	if (st != STEER_OK)
		return st;
	steer_world_survey_set(w, &g);
	double reach = steer_world_reach(w), all_reach = reach;
	/* The bodies' first contacts are found in the flock's grid, among the copies. */
	if (steer_world_config_get(w)->solid)
		reach = fmax(reach, steer_bodies_halo_reach(w));
	if (MPI_Allreduce(&reach, &all_reach, 1, MPI_DOUBLE, MPI_MAX, c->comm) != MPI_SUCCESS)
		return steer_cluster_fail(err, errlen, STEER_ERR_IO,
		                          "MPI failed while agreeing on the reach");
	steer_world_set_reach_limit(w, all_reach);
	steer_cluster_find_peers(c, all_reach);
	me->peers = (uint32_t)c->peers;
	me->owned = steer_world_vehicles(w)->count;
#ifndef NDEBUG
	{
		const steer_vehicles *v = steer_world_vehicles(w);
		for (size_t i = 0; i < v->count; i++)
			if (steer_partition_owner(c->part, v->px[i], v->py[i]) != c->rank) {
				fprintf(stderr, "rank %d steps vehicle %u outside its region\n",
				        c->rank, v->id[i]);
				abort();
			}
	}
#endif
	uint64_t bytes = 0;
	st = steer_cluster_send_halo(c, all_reach, &bytes, err, errlen);
	steer_id_list want = {0};
	if (st == STEER_OK) {
		st = steer_cluster_agree(c, steer_cluster_targets_of(w, &want), err, errlen);
		if (st == STEER_ERR_NOMEM)
			snprintf(err, errlen, "out of memory listing targets");
	}
	if (st == STEER_OK)
		st = steer_cluster_share(c, &want, &bytes, err, errlen);
	steer_id_list_free(&want);
	if (st != STEER_OK) {
		steer_cluster_drop_halo(c);
		return st;
	}
	me->halo = c->halo.count;
	me->halo_bytes = bytes;
	double t1 = MPI_Wtime();
	c->bodies_err[0] = '\0';
	st = steer_world_step(w);
	double t2 = MPI_Wtime();
	steer_cluster_drop_halo(c);
	if (st != STEER_OK)
		snprintf(err, errlen, "%s",
		         c->bodies_err[0] ? c->bodies_err : "out of memory while stepping");
	st = steer_cluster_agree(c, st, err, errlen);
	if (st != STEER_OK)
		c->broken = true; /* the other ranks stepped */
	if (st == STEER_OK)
		st = steer_cluster_migrate(c, UINT32_MAX, false, err, errlen);
	me->step_s = t2 - t1;
	me->exchange_s = (t1 - t0) + (MPI_Wtime() - t2);
	bool recut = false;
	if (st == STEER_OK)
		st = share_figures(c, &recut, err, errlen);
	if (st == STEER_OK && recut)
		st = steer_cluster_rebalance(c, err, errlen);
	return st;
}
