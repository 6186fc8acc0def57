/* The server over MPI ranks: `mpirun -np N steer-server [flags]`. Every rank holds one
 * region of the world (cluster/cluster.h); rank 0 also runs the server itself (both
 * ports, the clients, the journal). Rank 0 leads: each operation it starts (a tick, a
 * command, a snapshot's views, a gather, a new world) is broadcast first, and the
 * other ranks, in ranks_follow, take part in it. They hold no connection and write no
 * file. */
#ifndef STEER_RANKS_H
#define STEER_RANKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "savefile.h"
#include "serve.h"
#include "steer/command.h"
#include "steer/strbuf.h"
#include "steer/wire.h"

typedef struct ranks ranks;

/* What the ranks take from the server's flags. */
typedef struct ranks_config {
	int threads;         /* each rank's tick threads (--threads) */
	double rank_timeout; /* seconds of a rank's silence that end the job; 0 = none */
	bool autosave;       /* whether rank 0 saves on the way out (said when it starts) */
} ranks_config;

/* Whether this process was started by mpirun with other ranks beside it. */
bool ranks_launched(void);
/* Starts MPI. 0 with this rank's number and the rank count, or -1 after logging why. */
int ranks_init(int *argc, char ***argv, int *rank, int *size);
/* Ends MPI, after ranks_finish or ranks_follow. */
void ranks_exit(void);

/* Rank 0: splits the session's world, whole on this rank, over every rank; the
 * session is the server's. NULL after logging why (the world cannot be split: a
 * solid world) and the other ranks are told to stop. */
ranks *ranks_lead(steer_session *session, const ranks_config *cfg);
/* Rank 0, when the server could not start: tells the others to stop. */
void ranks_dismiss(void);
/* Rank 0, once the server has stopped: tells the others to stop and frees r. */
void ranks_finish(ranks *r);
/* Every other rank: takes part in what rank 0 starts until it says stop. The exit
 * status. */
int ranks_follow(const ranks_config *cfg);

/* One tick of the whole world. STEER_OK, or a failure with a message in err. */
steer_status ranks_tick(ranks *r, char *err, size_t errlen);
/* Runs a command that changes or reads the world on every rank (the cluster's
 * refusals apply); reply is one process's, bar stats and list (see below). */
void ranks_command(ranks *r, const steer_host *h, const char *line, steer_reply *reply);
/* stats: the whole world's counts and flock figures, then the command on rank 0. */
void ranks_stats(ranks *r, const steer_command *cmd, const steer_host *h, steer_reply *reply);
/* list: copies of the page's vehicles fetched from the ranks (never the whole world
 * unless it is listed whole), then the command on rank 0; one process's reply. */
void ranks_list(ranks *r, const steer_command *cmd, const steer_host *h, steer_reply *reply);
/* The whole world saved in place (cluster.h's steer_cluster_save), so that no rank
 * gathers it; up to RANKS_SAVES at once (a save and a journal's checkpoint), each in
 * its slot: ranks_save_begin takes every rank's snapshot (the slot, or -1 with why in
 * err); ranks_save_step writes the next `records` or so vehicles' text, merged in id
 * order on this rank into *text (until the next op): 1, 0 once all are written, or -1
 * with why in err, after which only the end may follow; ranks_save_head and
 * ranks_save_geometry are the rest of the file's text, and the end line's count of
 * records (savefile.h); ranks_save_end drops the snapshots and frees the slot. Other
 * ops may come between the steps: the world goes on. */
#define RANKS_SAVES 4
int ranks_save_begin(ranks *r, char *err, size_t errlen);
/* How many ranks there are. */
int ranks_size(const ranks *r);
int ranks_save_step(ranks *r, int slot, size_t records, const char **text, size_t *len, char *err,
                    size_t errlen);
const char *ranks_save_head(const ranks *r, int slot, size_t *len);
const char *ranks_save_geometry(const ranks *r, int slot, size_t *len, uint64_t *records);
void ranks_save_end(ranks *r, int slot);
/* Copies of the other ranks' vehicles within any of the views (with their margins:
 * what a snapshot of each reads) or named in picks, added to this rank's world, which
 * is told the whole world's vehicle count (total) for the snapshots' headers, until
 * ranks_drop_views. STEER_OK, or a failure with why in err (no copy is left). */
steer_status ranks_fetch_views(ranks *r, const steer_view *views, size_t nviews,
                               const uint32_t *picks, size_t npicks, uint64_t total, char *err,
                               size_t errlen);
/* Removes the copies ranks_fetch_views added; before any other operation. */
void ranks_drop_views(ranks *r);
/* How many vehicles of the whole world each view holds, with its margin (an unset
 * view: all of them), into counts[n]. */
int ranks_count_views(ranks *r, const steer_view *view, size_t n, uint64_t *counts);
/* The whole world's vehicles in view counted into cols x rows cells (a density
 * snapshot's), into d, encoded: each rank counts its own and rank 0 adds them up.
 * The heading sums are added in rank order, so a cell's arrow may differ from one
 * process's by a rounding. STEER_OK, or a failure with why in err. */
steer_status ranks_density(ranks *r, steer_density *d, const steer_view *view, uint32_t cols,
                           uint32_t rows, char *err, size_t errlen);
/* Replaces the world on every rank with w (whole, on this rank): w becomes the
 * session's world and keeps this rank's region, the other ranks getting theirs from
 * it. 0, or -1 with why in err: the old world is then kept, and w, which may have
 * lost vehicles, is still the caller's. */
int ranks_replace(ranks *r, steer_world *w, char *err, size_t errlen);
/* Replaces the world on every rank with the save that file reads (a leader of
 * savefile.h's steer_save_stream, the caller's until the end), in steps between which
 * the old world goes on (steer_cluster_load_begin and after): every rank reads the
 * file in pieces and keeps its region, so that no rank holds the whole world;
 * max_vehicles (0: none) is counted over it, and a file over it refused unless
 * over_max (a recovery's checkpoint, kept as it was). begin: 0, or -1 with why in err
 * (nothing more to do). step, until it returns 0 (read) or -1 (failed): one piece.
 * end, after any step: 0 when the new world is in place, or -1 with why in err
 * (steer_save_decode's words for a bad file; one not read to the end is abandoned):
 * the old world then stays. */
int ranks_load_begin(ranks *r, steer_save_stream *file, size_t max_vehicles, bool over_max,
                     char *err, size_t errlen);
int ranks_load_step(ranks *r, char *err, size_t errlen);
int ranks_load_end(ranks *r, char *err, size_t errlen);
/* Appends the ranks' figures to a stats object: the rank count, each rank's
 * vehicles, halo and tick time, and the slowest rank. */
void ranks_stats_json(const ranks *r, steer_strbuf *json);

#endif
