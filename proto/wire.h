/* The wire format in one place: delimited frames, and conversion between protobuf
 * messages (steer.proto, via nanopb) and the core's types. Used by the server, the
 * terminal client and the tests; nothing here touches a socket. */
#ifndef STEER_WIRE_H
#define STEER_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "command.h"
#include "steer.pb.h"
#include "strbuf.h"
#include "world.h"

#define STEER_PROTOCOL_VERSION 1
/* The largest ClientMessage frame accepted: the biggest legal message (a 4 KiB
 * text line, or 64 arguments of 256 bytes) with room to spare. */
#define STEER_MAX_CLIENT_FRAME 20000u

/* --- framing ------------------------------------------------------------------- */

/* Splits a byte stream into delimited frames. Owns its buffer; holds at most one
 * frame plus its length prefix, so a peer cannot make it grow past max_frame + 10. */
typedef struct steer_framer {
	uint8_t *buf;
	size_t len, cap;
	size_t start; /* first byte not yet returned */
	size_t max_frame;
} steer_framer;

void steer_framer_init(steer_framer *f, size_t max_frame);
void steer_framer_free(steer_framer *f);
/* Takes up to n bytes; returns how many it took (fewer when its buffer is full:
 * call next, then feed the rest). */
size_t steer_framer_feed(steer_framer *f, const uint8_t *data, size_t n);
/* 1: msg and len hold the next frame (valid until the next feed); 0: need more bytes;
 * -1: the stream is malformed (message in err): drop the connection. */
int steer_framer_next(steer_framer *f, const uint8_t **msg, size_t *len, char *err, size_t errlen);

/* Appends a varint-length-prefixed message to out. */
void steer_frame_put(steer_strbuf *out, const uint8_t *msg, size_t len);

/* --- server side ---------------------------------------------------------------- */

typedef struct steer_view {
	bool set;
	double x0, y0, x1, y1; /* x0 <= x1, y0 <= y1 */
} steer_view;

typedef struct steer_welcome_info {
	const steer_world_config *cfg;
	double snapshot_rate;
} steer_welcome_info;

/* Each appends one delimited ServerMessage frame to out; false on encode failure. */
bool steer_wire_welcome(steer_strbuf *out, const steer_welcome_info *info);
bool steer_wire_reply(steer_strbuf *out, uint32_t request_id, const steer_reply *r);
/* The world cut to view (plus a margin so things entering the edge are drawn), or
 * all of it. scratch holds the index list between calls to avoid reallocating. */
bool steer_wire_snapshot(steer_strbuf *out, const steer_world *w, bool paused,
                         const steer_view *view, uint32_t **scratch, size_t *scratch_cap);

/* Decodes one ClientMessage frame body. false with a message on malformed input. */
bool steer_wire_decode_client(const uint8_t *msg, size_t len, steer_ClientMessage *out, char *err,
                              size_t errlen);
/* A Command message to the core's command struct (text line, or name + args). */
int steer_wire_to_command(const steer_Command *c, steer_command *cmd, char *err, size_t errlen);
/* A Viewport message to a view; false (message in err) when it is not a finite,
 * non-empty rectangle. */
bool steer_wire_to_view(const steer_Viewport *v, steer_view *out, char *err, size_t errlen);

/* --- client side ---------------------------------------------------------------- */

bool steer_wire_hello(steer_strbuf *out, const char *client_name);
bool steer_wire_command_line(steer_strbuf *out, uint32_t request_id, const char *line);
bool steer_wire_viewport(steer_strbuf *out, const steer_view *view);

typedef struct steer_snap_vehicle {
	uint32_t id, group, behaviors;
	float x, y, vx, vy, fx, fy;
} steer_snap_vehicle;

typedef struct steer_snap_route {
	uint32_t id;
	bool has_target;
	float target_x, target_y;
	uint32_t pursue_id, evade_id;
	uint32_t path_index;
	bool path_loop;
	uint32_t npath;
	float *path_x, *path_y; /* owned by the snapshot */
} steer_snap_route;

/* A decoded snapshot. Arrays are owned by it; reuse one across frames (decode
 * resets counts and keeps capacity) and free it once. */
typedef struct steer_snapshot {
	uint64_t tick;
	bool paused;
	uint32_t total_vehicles;
	double width, height, tick_rate;
	steer_edges edges;
	bool has_view;
	steer_view view;
	float avoid_distance_max;
	size_t count, cap;
	steer_snap_vehicle *v;
	size_t nobstacles, obstacles_cap;
	steer_obstacle *obstacles;
	size_t nroutes, routes_cap;
	steer_snap_route *routes;
} steer_snapshot;

void steer_snapshot_free(steer_snapshot *s);

typedef enum steer_server_msg_kind {
	STEER_MSG_WELCOME = 1,
	STEER_MSG_SNAPSHOT = 2,
	STEER_MSG_REPLY = 3,
} steer_server_msg_kind;

typedef struct steer_server_msg {
	steer_server_msg_kind kind;
	steer_Welcome welcome;
	steer_snapshot *snapshot; /* decoded into the caller's snapshot */
	uint32_t request_id;
	bool ok;
	char error[256];
	steer_strbuf json; /* reply body; owned, reused */
} steer_server_msg;

/* Decodes one ServerMessage frame body. snap receives a snapshot; json a reply body. */
bool steer_wire_decode_server(const uint8_t *msg, size_t len, steer_server_msg *out,
                              steer_snapshot *snap, char *err, size_t errlen);

#endif
