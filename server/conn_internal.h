/* What the files of a connection's input share: conn_input.c (reading), conn_text.c and
 * conn_proto.c (the two ports' protocols), conn_commands.c (running commands),
 * conn_turns.c (the fair turns) and conn_accept.c (new connections). Private to them. */
#ifndef STEER_CONN_INTERNAL_H
#define STEER_CONN_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "conn.h"

/* conn_input.c: libuv's callbacks that read a connection (uv_read_start). */
void conn_on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf);
void conn_on_read(uv_stream_t *stream, ssize_t n, const uv_buf_t *buf);
/* Keeps bytes that arrived behind a job or a spent turn, for conn_run_held. */
void conn_hold(conn *c, const char *rest, size_t n);
/* Runs what was held, in order; reading starts again if a full hold stopped it. */
void conn_run_held(conn *c);

/* conn_text.c, conn_proto.c: what a connection sent, read as its port's protocol; a
 * reply, encoded as that protocol's. */
void conn_text_read(conn *c, const char *data, size_t n);
void conn_text_reply(conn *c, const steer_reply *reply);
void conn_proto_read(conn *c, const char *data, size_t n);
void conn_proto_reply(conn *c, uint32_t request_id, const steer_reply *reply);
void conn_proto_error(conn *c, uint32_t request_id, const char *msg);

/* conn_commands.c: runs a parsed command; false when its reply comes later (a job, the
 * journal's checkpoint). */
bool conn_run_command(conn *c, const steer_command *cmd, uint32_t request_id, steer_reply *reply);
/* Runs the command that waited for the journal, then what came in behind it. */
void conn_run_retry(conn *c);

/* conn_turns.c: whether c's turn, begun at t0, or the loop's has spent its command time. */
bool conn_turn_spent(const conn *c, uint64_t t0);
/* c is about to run commands: the virtual clock moves up to where it starts. */
void conn_start_turn(conn *c);
/* Charges c the command time since t0, to the loop's turn and (weighted) to its share. */
void conn_charge(conn *c, uint64_t t0);
/* Whether what arrives now must wait its turn. */
bool conn_must_wait(const server *s);
/* Ends c's turn: what it sent waits for conn_resume_deferred. */
void conn_defer(conn *c);

#endif
