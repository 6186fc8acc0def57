/* Rewind in memory: a bounded ring of recent checkpoints of the live world and every
 * world-changing command since the oldest of them, so that the world can be brought
 * back to any tick still covered (the nearest checkpoint at or before it, decoded,
 * plus the recorded commands replayed at their stamps) and forward again to its live
 * tick exactly, bit for bit.
 *
 * A command applied while the world's tick is T is stamped T: it was applied before
 * the tick that takes the world from T to T+1. "The world at tick T" is the world
 * just after the tick that brought it to T, before the commands stamped T; a
 * checkpoint is taken there. At the live tick L every command stamped L so far is in.
 *
 * While the world is behind its live tick ("past mode") ticking replays the recorded
 * future, which ends past mode at L; any other world-changing command forks history
 * first: the recorded future is dropped here, and kept by the journal under a name
 * the reply gives. A world replaced by load, reset or scenario starts the history
 * afresh (ticks restart with it).
 *
 * No I/O and no libuv: the server calls it from its loop, tests call it directly. */
#ifndef STEER_HISTORY_H
#define STEER_HISTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "steer/command.h"

typedef struct history history;
typedef struct history_seek history_seek;

/* budget: the bytes the checkpoints and commands may hold (0: rewinding is off);
 * every_s: the seconds of ticks between checkpoints. NULL when out of memory. */
history *history_new(size_t budget, double every_s);
void history_free(history *h);

/* Starts the history afresh at w (the server's first world, or one that replaced
 * it): forgets everything, ends past mode and checkpoints w. */
void history_restart(history *h, const steer_world *w);

/* Called when replaying the recorded future changes the tick rate (a rate command
 * in it): the host re-arms its clock. */
void history_set_rate_hook(history *h, void (*rate_changed)(void *), void *ud);

/* One tick of the session's world, in place of steer_world_step: in past mode the
 * recorded commands stamped at the world's tick are applied first, and reaching the
 * live tick ends past mode; live, a checkpoint is taken when one is due. */
steer_status history_step(history *h, steer_session *s);

/* Who a fork tells: the host's journal (journal_world_replaced), called with the
 * world the new history starts from and the name the old one is kept as, which it
 * may change (to one no kept journal has) within its n bytes. */
typedef void (*history_fork_fn)(void *ud, const steer_world *w, char *keep_as, size_t n);
void history_set_fork_hook(history *h, history_fork_fn fn, void *ud);

/* Before cmd runs (before any job takes it): in past mode, load, reset and scenario
 * fork history here; any other command that changes the world forks in
 * history_after if it succeeded. */
void history_before(history *h, steer_session *s, const steer_command *cmd);
/* After cmd ran with reply r (commands run as jobs too: load): records it when it
 * changed the world, restarts the history when it replaced it, and says in r when
 * history_before forked. */
void history_after(history *h, steer_session *s, const steer_command *cmd, steer_reply *r);

/* Whether the world is behind its live tick, and that tick (the world's own when not
 * behind). While behind, ticks replay what the journal holds already: it should not
 * record them again. */
bool history_past(const history *h);
/* Whether cmd, run now, would fork history (a change made in the past). */
bool history_would_fork(const history *h, const steer_command *cmd);
uint64_t history_live_tick(const history *h, const steer_world *w);
/* Appends the history's figures to the stats object: ",\"live_tick\":L,...". */
void history_stats(const history *h, const steer_world *w, steer_strbuf *json);

/* Bringing the world to another tick (rewind, goto-tick), in steps a host can run
 * between its other work. history_seek_begin answers at once (done, in r) when there
 * is nothing to run, an error, or the tick is the world's own: returns NULL. Else the
 * seek it returns is ticked by history_seek_run until true, then history_seek_end
 * swaps the world in (or fails, in r) and frees it; history_seek_abort frees one
 * that will not finish. While seeks run no checkpoint is dropped. */
history_seek *history_seek_begin(history *h, steer_session *s, const steer_command *cmd,
                                 steer_reply *r);
/* Runs one tick of the seek. True when it is done (reached, or failed: the end
 * says). */
bool history_seek_run(history_seek *k, steer_session *s);
/* Swaps the world in and answers in r; rate_changed (may be NULL) is told when the
 * tick rate changed with it. */
void history_seek_end(history_seek *k, steer_session *s, steer_reply *r,
                      void (*rate_changed)(void *), void *ud);
void history_seek_abort(history_seek *k);

/* The whole of rewind / goto-tick at once, for steer_host.history. */
steer_status history_goto_now(history *h, const steer_command *cmd, steer_session *s,
                              steer_reply *r);

/* The checkpoint codec, exposed for tests and the benchmark: an in-memory image of
 * everything a save file holds, and the world it gives back (threads 1). */
typedef struct history_image history_image;
history_image *history_image_take(const steer_world *w);
steer_world *history_image_world(const history_image *img);
size_t history_image_bytes(const history_image *img);
void history_image_free(history_image *img);

#endif
