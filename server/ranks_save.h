/* A save over MPI ranks written in place (`save`, the autosave): every rank keeps a
 * snapshot of its region, and the file is written a step at a time from the records
 * the ranks merge on rank 0 (cluster/save.c), so that no rank holds the whole world
 * or its text. The steps run on the loop, the world ticking between them; the file's
 * writes run on the thread pool. The file is the bytes one process's save has. */
#ifndef STEER_SERVER_RANKS_SAVE_H
#define STEER_SERVER_RANKS_SAVE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <uv.h>

typedef struct ranks ranks;
typedef struct ranks_save ranks_save;

/* Called on the loop when a write ranks_save_advance queued is done (or failed). */
typedef void (*ranks_save_wrote_fn)(void *ud);

/* Every rank's snapshot taken and the temporary file made in dir. NULL with why in
 * err, nothing written. */
ranks_save *ranks_save_open(ranks *r, const char *dir, const char *name, char *err, size_t errlen);
/* The same into the file at path (a journal's checkpoint, named by its writer once it
 * is whole): it is synced at the end, not renamed. */
ranks_save *ranks_save_open_file(ranks *r, const char *path, char *err, size_t errlen);
/* The next pieces of the file made (steps over the ranks, for about budget_ns) and
 * written on loop's thread pool, a few MiB a write, one write at a time while the
 * next are made: 1 while a write is under way, and wrote(ud) when it ends, to call
 * this again; 0 once the whole file is written and in place; -1 with why in err
 * (nothing is written: close it). */
int ranks_save_advance(ranks_save *sv, uv_loop_t *loop, uint64_t budget_ns,
                       ranks_save_wrote_fn wrote, void *ud, char *err, size_t errlen);
/* The rest of the file made and written here, on the loop, after the write under way
 * (whose wrote is then never called), unless *stop is set meanwhile (stop may be NULL;
 * a signal handler's flag): 0, or -1 with why in err. */
int ranks_save_finish_now(ranks_save *sv, const volatile sig_atomic_t *stop, char *err,
                          size_t errlen);
/* The file's bytes so far. */
uint64_t ranks_save_bytes(const ranks_save *sv);
/* The snapshots dropped on every rank, and the file removed unless it was put in
 * place; after a write under way. */
void ranks_save_close(ranks_save *sv);

#endif
