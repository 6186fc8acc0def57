/* One world over many MPI ranks, bit-identical to one process.
 *
 * The plane is cut into one region per rank (partition.h); each rank's steer_world
 * holds the vehicles whose positions lie in its region. Each tick:
 *   1. the ranks agree on the figures a tick reads from the whole world (largest
 *      sight and radius, fastest vehicle, ...: maxima and logical ands, exact in any
 *      order) and on the reach: how far any vehicle reads another;
 *   2. every vehicle within that reach of another region is copied there (the halo,
 *      point to point between neighbouring regions), and every vehicle another one
 *      pursues, follows, hides from or interposes by is copied to every rank (the
 *      targets), as exact state;
 *   3. each rank steps its world: the core orders neighbours by (cell, id) in a grid
 *      over the whole world's bounds, so a vehicle meets the same neighbours in the
 *      same order as in one process and gets the same bits;
 *   4. the copies are dropped and vehicles that crossed into another region move
 *      there (migration).
 * Regions are cut again from measured cost (steer_cluster_options).
 *
 * goto's planning budget is the whole world's: each rank plans its own vehicles and
 * the ranks admit the same prefix of the id order one process would reach
 * (steer_replan_share).
 *
 * Solid bodies: the bodies pass resolves contacts one after another in the order
 * of the whole world's grid, each seeing the pushes before it. Each rank finds its
 * own vehicles' contacts among exact copies of its neighbours (refreshed, and
 * widened, before every round of contacts) and sends them, with the vehicles in
 * them, to rank 0, which merges them into one process's order, resolves them and
 * sends each rank its vehicles' new positions (steer_bodies_share).
 *
 * Vehicles added in bulk (spawn flock N) are made in place: every rank draws them all
 * but keeps only those in its region (steer_world_set_region_keep), so no rank holds
 * the whole spawn. So is a loaded save (steer_cluster_load): every rank reads every
 * record, rank 0 broadcasting the file in pieces, and keeps its region's.
 *
 * Every function taking a steer_cluster is collective: every rank calls it, in the
 * same order, with the same arguments (except where said). */
#ifndef STEER_CLUSTER_H
#define STEER_CLUSTER_H

#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>

#include "savefile.h"
#include "share.h"
#include "steer/command.h"
#include "steer/world.h"

typedef struct steer_cluster steer_cluster;

typedef struct steer_cluster_options {
	/* Cut the regions again every this many ticks (0: only on imbalance). */
	unsigned rebalance_ticks;
	/* ... or when, over the last `window` ticks, the slowest rank's step time is more
	 * than this fraction above the mean (0: never on imbalance). */
	double imbalance;
	unsigned window;
	/* At create: rank 0's world holds every vehicle and the others' none, and rank 0
	 * sends each region its vehicles (else every rank holds the whole world). */
	bool whole_on_rank0;
	/* steer_cluster_load: a file over max_vehicles is kept, not refused (a journal's
	 * history, recovered, is what it was). */
	bool load_over_max;
} steer_cluster_options;

steer_cluster_options steer_cluster_options_default(void);

/* One rank's figures for the last tick. */
typedef struct steer_cluster_figure {
	uint64_t owned;         /* vehicles in its region */
	uint64_t halo;          /* copies of other ranks' vehicles it held for the tick */
	uint64_t halo_bytes;    /* bytes of halo and targets it sent */
	uint64_t migrated;      /* vehicles it sent to another region after the tick */
	uint64_t migrate_bytes; /* their bytes */
	double step_s;          /* its world's step */
	double exchange_s;      /* agreeing, copying and migrating */
	/* The last cut of the regions (kept until the next): the vehicles it sent away,
	 * their bytes and the time it took here. */
	uint64_t cut_moved, cut_bytes;
	double cut_s;
	/* The ranks it exchanges halos and migrants with point to point (its regions'
	 * neighbours within reach), and how many of the tick's exchanges went through
	 * every rank instead, because a message was for a rank beyond them. */
	uint32_t peers, wide;
} steer_cluster_figure;

/* Takes part in one world over comm. w is this rank's world, the caller's (it
 * outlives the cluster): every rank passes the same world (made by the same commands
 * from the same seed, or loaded from the same save), of which each keeps the vehicles
 * in its region; or, with whole_on_rank0, the same world without its vehicles but on
 * rank 0 (steer_save_encode_shell's); or the same world with no vehicles at all, to
 * which vehicles are then added in bulk in place (steer_vehicles_add keeps each
 * rank's own). The cluster counts its max_vehicles over the whole world. NULL with
 * a message in err when MPI fails or memory runs out; the world may then have lost
 * the vehicles outside this rank's region. */
steer_cluster *steer_cluster_create(MPI_Comm comm, steer_world *w, const steer_cluster_options *opt,
                                    char *err, size_t errlen);
/* A world loaded in place from a save that rank 0 reads (file: a leader of
 * savefile.h's steer_save_stream, opened by the caller, who frees it; NULL on the
 * other ranks): rank 0 reads it a piece of whole records at a time and broadcasts
 * each piece, and every rank reads every record but keeps only the vehicles in its
 * region, so that no rank holds the whole world, decoded, packed or as text; then
 * the regions are cut by cost. The world is one process's steer_save_decode of the
 * file, with max_vehicles (0: none) counted over the whole world. *out gets this
 * rank's world, the caller's, which outlives the cluster. NULL on every rank, with the
 * same message in err, when the file is not a good save (steer_save_decode's words),
 * holds more vehicles than max_vehicles, or MPI fails or memory runs out. */
steer_cluster *steer_cluster_load(MPI_Comm comm, steer_save_stream *file, size_t max_vehicles,
                                  const steer_cluster_options *opt, steer_world **out, char *err,
                                  size_t errlen);

/* The same in steps, so that a caller can do other work between pieces (on the old
 * world: the new one is made aside). Each is collective. begin reads the head and
 * makes the new cluster (NULL on every rank, with why in err, on failure); each step
 * reads one piece (about 1 MiB): 1 while more are to come, 0 once the file is read,
 * -1 on failure (the same on every rank, why in err); end, after any step or none,
 * checks the whole file and cuts the regions, giving the cluster and *out, or NULL
 * with why in err (one not read to the end is abandoned), and frees the loader. */
typedef struct steer_cluster_loader steer_cluster_loader;
steer_cluster_loader *steer_cluster_load_begin(MPI_Comm comm, steer_save_stream *file,
                                               size_t max_vehicles,
                                               const steer_cluster_options *opt, char *err,
                                               size_t errlen);
int steer_cluster_load_step(steer_cluster_loader *l, char *err, size_t errlen);
steer_cluster *steer_cluster_load_end(steer_cluster_loader *l, steer_world **out, char *err,
                                      size_t errlen);

/* Collective. The world stays the caller's and steps by its own figures again. */
void steer_cluster_destroy(steer_cluster *c);

/* One tick of the whole world. STEER_OK, or a failure with a message in err (the
 * same on every rank). */
steer_status steer_cluster_step(steer_cluster *c, char *err, size_t errlen);

/* Runs one command on the whole world: every rank runs it on its part, with copies of
 * the vehicles it names, then vehicles it made or moved go to the regions they are
 * in. Every rank gets one process's reply for commands about vehicles and the world
 * (the world-wide answer to list, stats and the like is the caller's to assemble:
 * each rank answers for its part). Refused, changing nothing: step, rewind and
 * goto-tick (the cluster steps with steer_cluster_step),
 * save and load (steer_cluster_gather makes the whole world; steer_cluster_load loads
 * one in place). --max-vehicles is counted over the whole world. A command
 * that changes the world and succeeds on some ranks but fails on others ends the job
 * (MPI_Abort), saying which. h is this rank's host (may be NULL); commands about the
 * host rather than the world (auth, name, clients, saves, quit) are the caller's to
 * run on the rank that has one. After a failure that left the ranks' worlds
 * incomplete (a migration cut short, a step some ranks made), every step, command
 * and gather is refused. */
steer_status steer_cluster_command(steer_cluster *c, steer_session *s, const steer_host *h,
                                   const char *line, steer_reply *out);

/* The whole world, gathered on rank 0 into a new world (the caller's); NULL on the
 * other ranks. STEER_OK or a failure with a message in err. For tests and tools that
 * compare a cluster's world with one process's: the server saves in place (below). */
steer_status steer_cluster_gather(steer_cluster *c, steer_world **out, char *err, size_t errlen);

/* The world saved in place (cluster/save.c), so that no rank holds the whole world:
 * steer_cluster_save_begin, every rank, packs its vehicles of w (its region's) in id
 * order, the snapshot the file is written from while the world goes on, and rank 0,
 * whose w holds the whole world's rules, meta and geometry, writes the head and the
 * geometry; NULL with why in err, on every rank. Then each steer_cluster_save_step
 * (every rank) writes the next `records` or so of the whole world's vehicles, in id
 * order, each rank those of its own snapshot, into text merged on rank 0 (*text and
 * *len, valid until the next step; nothing elsewhere): 1 after a step, 0 once every
 * record was written, -1 with why in err on every rank (and from then on). A file is
 * the head, the steps' text, the geometry and the end line (savefile.h): the bytes
 * one process's save of the same world has. */
typedef struct steer_cluster_saver steer_cluster_saver;
steer_cluster_saver *steer_cluster_save_begin(MPI_Comm comm, const steer_world *w, char *err,
                                              size_t errlen);
int steer_cluster_save_step(steer_cluster_saver *s, size_t records, const char **text, size_t *len,
                            char *err, size_t errlen);
/* The whole world's vehicles, on every rank. */
uint64_t steer_cluster_save_vehicles(const steer_cluster_saver *s);
/* Rank 0: the head's text; the geometry's, and the end line's count of records. */
const char *steer_cluster_save_head(const steer_cluster_saver *s, size_t *len);
const char *steer_cluster_save_geometry(const steer_cluster_saver *s, size_t *len,
                                        uint64_t *records);
/* Rank 0: the most vehicles' records a step merged. */
size_t steer_cluster_save_held_most(const steer_cluster_saver *s);
void steer_cluster_save_free(steer_cluster_saver *s);

/* Whether steer_cluster_fetch takes vehicle i of a rank's world w. */
typedef bool (*steer_cluster_keep_fn)(const steer_world *w, size_t i, void *ud);
/* Copies on rank 0 of the other ranks' vehicles that keep takes (a snapshot's views),
 * added to rank 0's world until steer_cluster_drop_fetched, and nothing done to the
 * world in between: so that rank 0 reads them in place, with its own geometry. A
 * failure leaves no copy. */
steer_status steer_cluster_fetch(steer_cluster *c, steer_cluster_keep_fn keep, void *ud, char *err,
                                 size_t errlen);
/* Rank 0 alone: removes the fetched copies. */
void steer_cluster_drop_fetched(steer_cluster *c);

/* Cuts the regions again now, from each rank's mean step time since the last cut
 * (the model of cost alone when no tick ran since). */
steer_status steer_cluster_rebalance(steer_cluster *c, char *err, size_t errlen);

/* Every rank's figures for the last tick, into out[one per rank] (not
 * collective: every rank holds them all after each tick). */
void steer_cluster_figures(const steer_cluster *c, steer_cluster_figure *out);
/* How many times the regions were cut since create. */
unsigned steer_cluster_cuts(const steer_cluster *c);

#endif
