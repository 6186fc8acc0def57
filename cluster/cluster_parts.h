/* What the cluster's files (cluster.c, exchange.c, halo.c, migrate.c, recut.c, tick.c,
 * cluster_bodies.c, load.c) share. */
#ifndef STEER_CLUSTER_PARTS_H
#define STEER_CLUSTER_PARTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cluster_internal.h"

/* st is this rank's status so far, agreed on first. Sends out[r] to every rank r and
 * receives theirs into c->recv (recv_counts and recv_displs say where): point to
 * point with the region's neighbours when every rank's messages are for its own
 * alone, else through every rank. *sent gets the bytes this rank sent to others. */
steer_status steer_cluster_exchange(steer_cluster *c, steer_status st, uint64_t *sent, char *err,
                                    size_t errlen);

/* Unpacks every rank's message in c->recv into the world. Copies added to c->halo
 * note the rank they came from. */
steer_status steer_cluster_take_all(steer_cluster *c, steer_unpack_dup dup, steer_id_list *added,
                                    char *err, size_t errlen);

void steer_cluster_reset_messages(steer_cluster *c);

/* The rank owning (x, y): this one, without a lookup, strictly inside its box. */
int steer_cluster_owner_of(const steer_cluster *c, double x, double y);

/* The ranks other than this one whose regions come within reach of (x, y), into
 * c->near; returns their count. Across the seam of a wrap world too. */
int steer_cluster_near_ranks(steer_cluster *c, double x, double y, double reach, bool *seen);

/* The collectives the world's bodies pass asks for (steer_bodies_share): every rank
 * finds its own vehicles' contacts and resolves the islands wholly its own, and rank
 * 0 those that cross between ranks, in one process's order. Each takes the rank's
 * status so far and agrees on it first, so that no rank enters a collective another
 * skips. */
bool steer_cluster_bodies_own(void *ud, double x, double y);

bool steer_cluster_bodies_inside(void *ud, double x0, double y0, double x1, double y1);

steer_status steer_cluster_bodies_reduce(void *ud, steer_status st, uint64_t *sums, size_t nsums,
                                         double *maxs, size_t nmaxs);

steer_status steer_cluster_bodies_allgather(void *ud, steer_status st, const void *mine, size_t len,
                                            uint8_t **all, size_t *all_len);

steer_status steer_cluster_bodies_gather(void *ud, steer_status st, const void *mine, size_t len,
                                         uint8_t **all, size_t *at);

steer_status steer_cluster_bodies_scatter(void *ud, steer_status st, const uint8_t *all,
                                          const size_t *at, uint8_t **mine, size_t *len);

steer_status steer_cluster_bodies_refresh(void *ud, steer_status st, steer_world *w, double reach,
                                          uint32_t **ids, double **xy, size_t *n);

/* The peers for this reach (see struct steer_cluster), from the regions' boxes every
 * rank holds alike: no message, but every rank calls it at the same point. */
void steer_cluster_find_peers(steer_cluster *c, double reach);

/* The halo: each of this rank's vehicles within reach of another region, to it;
 * *bytes grows by what this rank sent. */
steer_status steer_cluster_send_halo(steer_cluster *c, double reach, uint64_t *bytes, char *err,
                                     size_t errlen);

/* The ids of the vehicles w's vehicles steer by wherever they are (chased, followed,
 * hidden from, interposed between), into out. */
steer_status steer_cluster_targets_of(const steer_world *w, steer_id_list *out);

/* The box the cut's tiles span: the bounds, or the vehicles' extent when there are
 * none (collective in an unbounded world). */
steer_status steer_cluster_tile_box(steer_cluster *c, double box[4], char *err, size_t errlen);

/* This rank's region's boxes (mine, core) from the partition. */
void steer_cluster_take_region(steer_cluster *c);

#endif
