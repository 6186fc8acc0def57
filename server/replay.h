/* --replay: a server that plays a recorded journal instead of its own clients'
 * commands. The world starts from the journal's oldest checkpoint; before each tick
 * (the clock's or a step's) the records stamped with the world's tick are applied, a
 * whole batch at a time (one that never reached its mark is left out, as recovery
 * does), and the world pauses at --until or at the journal's end. Clients watch as
 * usual; they may pause, resume, step and save, and change nothing else unless the
 * server was started --writable, when the first change ends the replay and the world
 * goes on live from there. */
#ifndef STEER_REPLAY_H
#define STEER_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "steer/command.h"
#include "steer/strbuf.h"

typedef struct server server;
typedef struct replay replay;

/* Opens the journal --replay names and sets s->world to its oldest checkpoint's
 * world; its records are applied from the first tick on. NULL after logging why (the
 * server must not start). */
replay *replay_open(server *s);
void replay_free(replay *r); /* NULL is fine */

/* Before a tick of s's world: applies what the journal holds for the world's tick.
 * True when the world may tick; false when the replay has stopped it (its end or
 * --until, with why in `why`, or a record the world refused) and the session was
 * paused. After its end the world ticks on with nothing more to apply. */
bool replay_before_tick(replay *r, char *why, size_t n);

/* Whether cmd, from who, may run on a replaying server: true to run it (after which
 * the caller calls replay_after_command); false with the reason in *out. r NULL
 * allows all. A load on a --writable replay ends the replay here. */
bool replay_allows(replay *r, const steer_command *cmd, const char *who, steer_reply *out);
/* cmd ran (reply says how): a successful change by who ends the replay (--writable). */
void replay_after_command(replay *r, const steer_command *cmd, const steer_reply *reply,
                          const char *who);

/* The tick rate multiplier (--speed) while replaying; 1 when r is NULL or ended. */
double replay_speed(const replay *r);

/* Appends ,"replay":{...} to the stats object; nothing when r is NULL. */
void replay_stats(const replay *r, steer_strbuf *json);

#endif
