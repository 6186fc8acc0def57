/* The cluster's insides, shared by its files (cluster.c: creating it and agreeing;
 * tick.c, exchange.c, halo.c, migrate.c, recut.c: the tick) and commands.c (commands
 * and the whole world's gather). Private to cluster/. */
#ifndef STEER_CLUSTER_INTERNAL_H
#define STEER_CLUSTER_INTERNAL_H

#include "cluster.h"
#include "partition.h"
#include "world_record.h"

struct steer_cluster {
	MPI_Comm comm;
	int rank, ranks;
	steer_world *w; /* the caller's */
	steer_partition *part;
	steer_cluster_options opt;
	steer_pack *out; /* a message for each rank */
	int *send_counts, *send_displs, *recv_counts, *recv_displs, *near;
	/* The ranks this one exchanges halos and migrants with point to point: those
	 * whose regions come within peers_reach of its own or its own within theirs (the
	 * same relation on every rank). peers is their count, -1 until known for the
	 * current cut; a message beyond them sends the exchange through every rank. */
	bool *peer;       /* by rank */
	int *peer_at;     /* the peers, ascending */
	double *peer_box; /* each peer's region's box, 4 a peer (within a bounded world) */
	int peers;
	double peers_reach;
	MPI_Request *req; /* 2 * ranks */
	/* The last exchange got past agreeing: every rank's messages were ready and may
	 * have left (a migration's leavers are then gone from here). */
	bool sent_out;
	uint8_t *send, *recv;
	size_t send_cap, recv_cap;
	steer_id_list halo; /* the copies held for this tick */
	int *halo_src;      /* the rank each came from, parallel to halo.at */
	size_t halo_src_cap;
	/* What went wrong in a collective the world's bodies pass asked for. */
	char bodies_err[256];
	steer_cluster_figure *figures; /* every rank's, for the last tick */
	double *window_s;              /* each rank's step time over the current window */
	unsigned window_ticks, since_cut;
	double since_cut_s; /* this rank's step time summed over the ticks since the cut */
	double mine[4];     /* this rank's region lies within it (partition's box) */
	double core[4];     /* every point strictly inside it is this rank's */
	/* The world's --max-vehicles, counted here over the whole world (a rank's own
	 * world counts only its region, so its check never refuses first). */
	size_t max_vehicles;
	/* A failure left the ranks' worlds incomplete (vehicles lost in migration, a
	 * step some ranks made): everything is refused from then on. */
	bool broken;
};

#define BROKEN                                                                                     \
	"the cluster's world is incomplete after an earlier failure: end the job and start "       \
	"again from a save"

/* err gets what, and st comes back: for `return steer_cluster_fail(...)`. */
steer_status steer_cluster_fail(char *err, size_t errlen, steer_status st, const char *what);
/* err says which MPI call failed and why; IO comes back. */
steer_status steer_cluster_mpi_failed(char *err, size_t errlen, int rc, const char *what);
/* Collective over comm, where this process is `rank` of `ranks`: STEER_OK when every
 * rank's st is; else the status of the first rank that failed, whose number goes in
 * *first and whose err every rank gets (words of at most 511 bytes). IO with why in
 * err, and *first -1, when MPI fails. Needs no cluster: a load agrees before its
 * cluster exists. */
steer_status steer_agree_first(MPI_Comm comm, int rank, int ranks, steer_status st, int *first,
                               char *err, size_t errlen);
/* Collective "did any rank fail": st where this rank failed, else the first failure
 * of another rank, reported as such ("rank R: ..."). */
steer_status steer_cluster_agree(steer_cluster *c, steer_status st, char *err, size_t errlen);
/* Collective: copies of the vehicles named in `want` (on any rank) to every rank
 * that lacks them, their ids added to c->halo; *bytes grows by what this rank sent. */
steer_status steer_cluster_share(steer_cluster *c, const steer_id_list *want, uint64_t *bytes,
                                 char *err, size_t errlen);
/* Detaches the copies in c->halo. */
void steer_cluster_drop_halo(steer_cluster *c);
/* Collective: every vehicle outside this rank's region to its owner; vehicles with
 * ids from made_from up, or all when replaced, were made alike on every rank and are
 * dropped where they do not belong. */
steer_status steer_cluster_migrate(steer_cluster *c, uint32_t made_from, bool replaced, char *err,
                                   size_t errlen);

#endif
