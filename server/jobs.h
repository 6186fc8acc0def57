/* Commands that take longer than a tick, run without holding the loop: `step N` as
 * slices of ticks between the loop's other work; `save` in a forked child, which
 * writes the world as it was at the fork (copy-on-write, as Redis's BGSAVE) while the
 * parent goes on; `load` read and decoded on libuv's thread pool and swapped in
 * between ticks. Saves and loads run one at a time, in the order asked; steps run
 * side by side. The connection that asked gets its reply when the job ends, and reads
 * nothing more until then (conn_input.c), so its commands stay in order. */
#ifndef STEER_JOBS_H
#define STEER_JOBS_H

#include <stdbool.h>
#include <stdint.h>

#include "steer/command.h"

typedef struct server server;
typedef struct conn conn;
typedef struct job job;

/* 0, or a libuv error code. */
int jobs_init(server *s);
/* Takes cmd as a job when it is one (step, save, load): true, and its reply comes
 * through conn_job_done with request_id. False: run it as any other command. */
bool jobs_start(server *s, conn *c, const steer_command *cmd, uint32_t request_id);
/* Queues a save named 'autosave' with no one waiting for it, unless one is queued. */
void jobs_autosave(server *s);
/* c is closing: its step stops, its save or load goes on with no one to answer. */
void jobs_conn_gone(server *s, conn *c);
/* The world was replaced (reset, scenario, load) by who: the steps under way end with
 * an error saying so, rather than ticking on in the new world. */
void jobs_world_replaced(server *s, const char *who, const char *what);
/* The server is stopping: steps answer how far they got, a running save is waited
 * for and answered, a running load is abandoned (its world never swapped in), queued
 * ones are refused. Closes the handles jobs_init opened. */
void jobs_stop(server *s);

#endif
