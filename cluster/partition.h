/* The plane cut into one region per MPI rank, by recursive coordinate bisection
 * (Zoltan's RCB, kept as its tree of cuts on every rank). Every region is a
 * rectangle, the outer ones reaching to infinity, so every point of the plane has
 * exactly one owner and every rank computes the same owner without talking. Every
 * cut bisects along the axes of the equal-area cut of the world's box
 * (steer_partition_set_box), so a cut made again moves cuts, never turns them.
 *
 * A point exactly on a cut belongs to the region below (left of) it; near() counts
 * a region as meeting a box when they share as little as a boundary, so the owner of
 * every point of a box is always among the box's near ranks.
 *
 * Input must be finite: no NaN or infinity in coordinates, boxes or weights. create
 * and cut check theirs and refuse; owner and near do not (they are the hot path),
 * and with a NaN their answer is some rank, not an error.
 *
 * create, cut and destroy are collective over the comm: every rank calls them, in
 * the same order. owner, near, cuts and ranks are local. A partition is used from
 * one thread at a time. */
#ifndef STEER_CLUSTER_PARTITION_H
#define STEER_CLUSTER_PARTITION_H

#include <mpi.h>
#include <stddef.h>

#include "steer/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct steer_partition steer_partition;

/* Collective over comm: one region per rank, cutting the box [x0,x1]x[y0,y1] into
 * regions of about equal area (nothing measured yet). Regions cover the whole plane:
 * the outer ones reach to infinity. NULL, with a message in err, on failure (a box
 * that is empty or not finite, out of memory). The partition works on its own
 * duplicate of comm; comm may be freed after. */
steer_partition *steer_partition_create(MPI_Comm comm, double x0, double y0, double x1, double y1,
                                        char *err, size_t errlen);
/* Collective. NULL does nothing (on every rank alike). */
void steer_partition_destroy(steer_partition *p);

/* Collective: cuts again by recursive coordinate bisection of weighted points
 * (cells' centres with their measured cost), each rank passing its own points (any
 * rank may pass none: n 0, the arrays then may be NULL; several ranks may pass
 * points at the same position). Weights are costs: finite, at least 0, and Zoltan
 * takes them as float. STEER_OK, or a failure with a message in err, the same on
 * every rank (the old cut then stays): STEER_ERR_INVALID for a coordinate or weight
 * out of range on any rank, or no point with a positive weight on any rank;
 * STEER_ERR_LIMIT for more points than Zoltan's ids count; STEER_ERR_NOMEM. Each rank
 * is given the new region holding the most of the weight it passed (heaviest first),
 * so that a rank passing its own vehicles keeps what stays in its region. */
steer_status steer_partition_cut(steer_partition *p, size_t n, const double *x, const double *y,
                                 const double *weight, char *err, size_t errlen);

/* The box the plane's regions are laid out over, for the cuts to come: every cut
 * bisects along the axes of the equal-area cut of this box (create's, until this is
 * called). A box whose shape (width over height) is within a quarter of the last
 * one's keeps the axes, so that a box that drifts (the vehicles' extent in an
 * unbounded world) does not turn them; another shape takes its own at the next cut.
 * The current cut stays until then. Collective: every rank passes the same box. A
 * box that is empty or not finite is ignored. */
void steer_partition_set_box(steer_partition *p, double x0, double y0, double x1, double y1);

/* The rank owning the point: every rank gives the same answer for the same point,
 * for any point of the plane. */
int steer_partition_owner(const steer_partition *p, double x, double y);

/* The ranks whose regions meet the closed box [x0,x1]x[y0,y1] (x0 <= x1, y0 <= y1),
 * ascending, into ranks (room for the comm's size); returns their count. Always
 * includes steer_partition_owner of every point in the box. */
int steer_partition_near(const steer_partition *p, double x0, double y0, double x1, double y1,
                         int *ranks);

/* A rectangle rank's region lies within, as {x0, y0, x1, y1} (infinite, or
 * +-DBL_MAX, where it reaches to infinity; the whole plane should Zoltan fail to
 * say): an outer bound. It can reach over another region (update_core in
 * partition.c says how); for the points that surely are rank's, its core. */
void steer_partition_box(const steer_partition *p, int rank, double box[4]);

/* This process's rank's core, as {x0, y0, x1, y1}: every point strictly inside it
 * is this rank's. Its box when no other region's box meets the box's inside, else
 * empty (x0 > x1), so that every point is looked up. */
void steer_partition_core(const steer_partition *p, double box[4]);

/* How many times the partition was cut (create counts as 0), and the comm size. */
unsigned steer_partition_cuts(const steer_partition *p);
int steer_partition_ranks(const steer_partition *p);

#ifdef __cplusplus
}
#endif

#endif
