/* Cutting the regions again by the ranks' measured step times, weighed by where
 * the vehicles are. */
#include "cluster_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster_parts.h"
#include "reserve.h"
#include "steer/params.h"

/* A vehicle's cost is read from its tile's density: this many tiles to a side of the
 * world's bounds (or of the vehicles' extent in an unbounded world). A cut weighs at
 * most TILES * TILES points a rank. */
#define TILES 64

/* The box the tiles span: the bounds, or the vehicles' extent when there are none. */
steer_status steer_cluster_tile_box(steer_cluster *c, double box[4], char *err, size_t errlen)
{
	const steer_world_config *cfg = steer_world_config_get(c->w);
	if (cfg->edges != STEER_EDGE_NONE) {
		box[0] = 0.0;
		box[1] = 0.0;
		box[2] = cfg->width;
		box[3] = cfg->height;
		return STEER_OK;
	}
	const steer_vehicles *v = steer_world_vehicles(c->w);
	double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY}, glo[2], ghi[2];
	for (size_t i = 0; i < v->count; i++) {
		lo[0] = fmin(lo[0], v->px[i]);
		lo[1] = fmin(lo[1], v->py[i]);
		hi[0] = fmax(hi[0], v->px[i]);
		hi[1] = fmax(hi[1], v->py[i]);
	}
	if (MPI_Allreduce(lo, glo, 2, MPI_DOUBLE, MPI_MIN, c->comm) != MPI_SUCCESS ||
	    MPI_Allreduce(hi, ghi, 2, MPI_DOUBLE, MPI_MAX, c->comm) != MPI_SUCCESS)
		return steer_cluster_fail(err, errlen, STEER_ERR_IO,
		                          "MPI failed while measuring the world");
	if (!(glo[0] <= ghi[0])) { /* no vehicles at all */
		glo[0] = glo[1] = 0.0;
		ghi[0] = cfg->width;
		ghi[1] = cfg->height;
	}
	box[0] = glo[0];
	box[1] = glo[1];
	box[2] = fmax(ghi[0], glo[0] + 1.0);
	box[3] = fmax(ghi[1], glo[1] + 1.0);
	return STEER_OK;
}

/* Neighbours a vehicle's searches keep at most, for the cost model: beyond it a
 * denser crowd costs little more per vehicle. */
#define NEIGHBOURS_KEPT 16.0

static double tile_cost(double count, double disc)
{
	return count * (1.0 + fmin(count * disc, NEIGHBOURS_KEPT));
}

/* The tile of a vehicle at (px, py). */
static int tile_of(const double box[4], double tw, double th, double px, double py)
{
	int tx = (int)fmin(fmax(floor((px - box[0]) / tw), 0.0), TILES - 1);
	int ty = (int)fmin(fmax(floor((py - box[1]) / th), 0.0), TILES - 1);
	return ty * TILES + tx;
}

/* This rank's region's box and core, after a cut. */
void steer_cluster_take_region(steer_cluster *c)
{
	steer_partition_box(c->part, c->rank, c->mine);
	steer_partition_core(c->part, c->core);
}

steer_status steer_cluster_rebalance(steer_cluster *c, char *err, size_t errlen)
{
	/* The mean over the ticks since the last cut: one tick's time is noisy. */
	double measured = c->since_cut ? c->since_cut_s / c->since_cut : 0.0;
	c->since_cut = 0;
	c->since_cut_s = 0.0;
	double t0 = MPI_Wtime();
	if (c->ranks == 1)
		return STEER_OK;
	double box[4];
	steer_status st = steer_cluster_tile_box(c, box, err, errlen);
	if (st != STEER_OK)
		return st;
	/* New bounds of another shape (a command, a scenario) take their own axes. */
	steer_partition_set_box(c->part, box[0], box[1], box[2], box[3]);
	/* A vehicle's cost grows with the neighbours it meets, the count a disc of the
	 * reach holds at its tile's density, up to the few its searches keep (flocking's
	 * max_neighbours, avoidance's avoid_neighbours). The rank's measured time is shared
	 * among its vehicles in that proportion. */
	double tw = (box[2] - box[0]) / TILES, th = (box[3] - box[1]) / TILES;
	double reach = steer_world_reach(c->w);
	double disc = 0.5 * STEER_TAU * reach * reach / (tw * th);
	/* The cut weighs vehicles, not tiles: a crowd within one tile of a large world
	 * (or of one stretched by a far vehicle) is still split. Each point is a vehicle
	 * standing for a run of the storage order around it, which follows the neighbour
	 * grid, so the run lies near it: the point weighs the run's length times its own
	 * cost. */
	const steer_vehicles *v = steer_world_vehicles(c->w);
	size_t n = v->count < TILES * TILES ? v->count : TILES * TILES;
	double *count = calloc(TILES * TILES, sizeof *count);
	double *x = malloc((n ? n : 1) * sizeof *x), *y = malloc((n ? n : 1) * sizeof *y);
	double *wt = malloc((n ? n : 1) * sizeof *wt);
	if (!count || !x || !y || !wt) {
		st = STEER_ERR_NOMEM;
		snprintf(err, errlen, "out of memory while cutting regions");
	}
	if (st == STEER_OK) {
		for (size_t i = 0; i < v->count; i++)
			count[tile_of(box, tw, th, v->px[i], v->py[i])] += 1.0;
		double model = 0.0;
		for (int t = 0; t < TILES * TILES; t++)
			model += tile_cost(count[t], disc);
		double scale = model > 0.0 && measured > 0.0 ? measured / model : 1.0;
		for (size_t k = 0; k < n; k++) {
			size_t from = k * v->count / n, to = (k + 1) * v->count / n;
			size_t at = from + (to - from) / 2;
			double m = count[tile_of(box, tw, th, v->px[at], v->py[at])];
			x[k] = v->px[at];
			y[k] = v->py[at];
			wt[k] = (double)(to - from) * tile_cost(m, disc) / m * scale;
		}
	}
	st = steer_cluster_agree(c, st, err, errlen);
	/* An empty world keeps its cut: there is nothing to weigh. */
	unsigned long mine = n, points = 0;
	if (st == STEER_OK &&
	    MPI_Allreduce(&mine, &points, 1, MPI_UNSIGNED_LONG, MPI_SUM, c->comm) != MPI_SUCCESS)
		st = steer_cluster_fail(err, errlen, STEER_ERR_IO,
		                        "MPI failed while cutting regions");
	if (st == STEER_OK && points > 0)
		st = steer_cluster_agree(c, steer_partition_cut(c->part, n, x, y, wt, err, errlen),
		                         err, errlen);
	free(count);
	free(x);
	free(y);
	free(wt);
	if (st != STEER_OK)
		return st;
	steer_cluster_take_region(c);
	c->peers = -1; /* a region may have moved anywhere: through every rank */
	/* What the cut moved is its own figure, not the tick's walkers'. */
	steer_cluster_figure *me = &c->figures[c->rank], before = *me;
	st = steer_cluster_migrate(c, UINT32_MAX, false, err, errlen);
	me->cut_moved = me->migrated - before.migrated;
	me->cut_bytes = me->migrate_bytes - before.migrate_bytes;
	me->migrated = before.migrated;
	me->migrate_bytes = before.migrate_bytes;
	me->wide = before.wide;
	me->cut_s = MPI_Wtime() - t0;
	return st;
}
