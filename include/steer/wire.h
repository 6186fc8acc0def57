/* The wire format as a client sees it: delimited frames, the messages a client sends
 * (Hello, Command, Viewport), and the server's messages decoded into plain structs,
 * compact snapshots against the last frame. The server's side (its encoders, the
 * client messages decoded into commands) is wire/serve.h, not part of libsteer's API.
 * Nothing here touches a socket. */
#ifndef STEER_WIRE_H
#define STEER_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "api.h"
#include "bytes.h"
#include "command.h"
#include "status.h"
#include "steer.pb.h"
#include "strbuf.h"
#include "world.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Raised whenever a message changes shape; a Hello with another version is refused.
 * 2: the snapshot header fields moved into SnapshotHeader. 3: the Geometry message
 * (walls and polygons), which a version 2 client would take for an empty frame. */
#define STEER_PROTOCOL_VERSION 3
/* The largest ClientMessage frame accepted: the biggest legal message (a 4 KiB
 * text line, or 64 arguments of 256 bytes) with room to spare. */
#define STEER_MAX_CLIENT_FRAME 20000u

/* --- framing ------------------------------------------------------------------- */

/* The longest length prefix a framer reads: 35 bits, far past any max_frame. */
#define STEER_FRAME_PREFIX_MAX 5

/* Splits a byte stream into delimited frames. Owns its buffer; holds at most one
 * frame plus its length prefix, so a peer cannot make it grow past max_frame + 10. */
typedef struct steer_framer {
	uint8_t *buf;
	size_t len, cap;
	size_t start; /* first byte not yet returned */
	size_t max_frame;
} steer_framer;

STEER_API void steer_framer_init(steer_framer *f, size_t max_frame);
STEER_API void steer_framer_free(steer_framer *f);
/* Takes up to n bytes; returns how many it took (fewer when its buffer is full:
 * call next, then feed the rest). */
STEER_API size_t steer_framer_feed(steer_framer *f, const uint8_t *data, size_t n);
/* The next frame: STEER_OK with *msg and *len set to it (valid until the next feed),
 * or STEER_OK with *msg NULL (and *len 0) when more bytes are needed; INVALID, with
 * a message in err, when the stream is malformed: drop the connection. Loop with
 * `while (steer_framer_next(...) == STEER_OK && msg)`, then check the status. */
STEER_API steer_status steer_framer_next(steer_framer *f, const uint8_t **msg, size_t *len,
                                         char *err, size_t errlen);

/* Appends a varint-length-prefixed message to out. */
STEER_API void steer_frame_put(steer_strbuf *out, const uint8_t *msg, size_t len);

/* --- views -------------------------------------------------------------------- */

typedef struct steer_view {
	bool set;
	double x0, y0, x1, y1; /* x0 <= x1, y0 <= y1 */
} steer_view;

/* Views reach at most this far from the origin. Worlds are at most 1e9 across and
 * the TUI's widest zoom spans about 1e12; beyond that the sum origin + offset that a
 * client decodes positions with would lose all precision, and then overflow the
 * snapshot's floats. */
#define STEER_VIEW_COORD_MAX 1e13
/* True when x0 < x1 and y0 < y1, all within +-STEER_VIEW_COORD_MAX (so not NaN). */
STEER_API bool steer_view_rect_ok(double x0, double y0, double x1, double y1);

/* Vehicles within this distance outside a view still come along, so that a client
 * drawing the edge of its screen sees what is about to enter it. */
STEER_API double steer_view_margin(const steer_view *v);
/* True when (x, y) is within margin of the view, or the view is not set. */
STEER_API bool steer_view_contains(const steer_view *v, double x, double y, double margin);
/* The same rectangle, or both unset. */
STEER_API bool steer_view_same(const steer_view *a, const steer_view *b);

/* --- compact snapshots (compact.c) ------------------------------------------------ */

/* Quanta per terminal cell on each axis: positions are sent 16 times finer than the
 * client can draw them, so a vehicle lands in the right cell however the client
 * rounds, and sub-cell aids (forces, feelers) still look smooth. */
#define STEER_COMPACT_SUB 16
/* Speeds travel in quarters of a world unit per second. */
#define STEER_COMPACT_SPEED_Q 0.25
/* The largest map area a client may announce, per axis. */
#define STEER_COMPACT_MAX_CELLS 4096u
/* Quantized coordinates stay within +-2^29, so a difference of two fits 31 bits. */
#define STEER_COMPACT_MAX_Q (1 << 29)

/* When a compact client gets per-cell density instead of vehicles (Viewport.density). */
typedef enum steer_density_mode {
	STEER_DENSITY_AUTO = 0, /* when its view holds more vehicles than its map has cells */
	STEER_DENSITY_ALWAYS = 1,
	STEER_DENSITY_NEVER = 2,
} steer_density_mode;

/* What a client asked of its snapshot stream besides the rectangle. */
typedef struct steer_compact_req {
	bool on;
	uint32_t cols, rows; /* its map area in cells: the precision */
	steer_density_mode density;
	uint32_t pick; /* a vehicle density frames carry whole (0: none); not a group key */
} steer_compact_req;

/* Whether two requests ask for the same picture of a view (pick aside): what the
 * clients of one snapshot encoding share. */
STEER_API bool steer_compact_req_same(const steer_compact_req *a, const steer_compact_req *b);

/* One view's vehicles quantized for one precision, in ascending id order: what the
 * server encodes from and deltas against, and what a client decodes into. Arrays are
 * owned; reuse a frame across ticks (build keeps capacity) and free it once. */
typedef struct steer_compact_frame {
	uint64_t seq;  /* the server's number for this frame; 0 = none */
	uint64_t tick; /* world tick it was built at */
	steer_view view;
	uint32_t cols, rows;
	size_t count, cap;
	uint32_t *id;     /* strictly ascending */
	uint32_t *idx;    /* server side: world index at build time, for routes (that tick only) */
	int32_t *qx, *qy; /* position - view origin, in quanta */
	uint8_t *heading; /* 256ths of a turn, counter-clockwise from +x in world axes */
	uint32_t *speed;  /* in STEER_COMPACT_SPEED_Q */
	uint32_t *group, *behaviors;
} steer_compact_frame;

STEER_API void steer_compact_frame_init(steer_compact_frame *f);
STEER_API void steer_compact_frame_free(steer_compact_frame *f);
/* True when b can serve as a's base: same rectangle and precision. */
STEER_API bool steer_compact_compatible(const steer_compact_frame *a, const steer_compact_frame *b);

enum {
	STEER_BLOB_IDS,
	STEER_BLOB_POS,
	STEER_BLOB_HEADING,
	STEER_BLOB_SPEED,
	STEER_BLOB_GROUP,
	STEER_BLOB_BEHAVIORS,
	STEER_BLOB_COUNT
};

/* Working memory of one encoder or decoder, reused across frames; owned by the
 * caller (init once, free once). */
typedef struct steer_compact_scratch {
	steer_blob blob[STEER_BLOB_COUNT]; /* the columns while encoded or decoded */
	int32_t *src;                      /* per vehicle: its slot in the base frame, or -1 */
	uint32_t *delta;                   /* per vehicle: one column's change from its prior */
	size_t cap;
} steer_compact_scratch;

STEER_API void steer_compact_scratch_init(steer_compact_scratch *sc);
STEER_API void steer_compact_scratch_free(steer_compact_scratch *sc);

/* --- density snapshots (density.c; the server's side in wire/serve.h) ------------- */

/* The most cells a density frame may have (a 1000 x 1000 map area, with room); a
 * larger map gets vehicles. Bounds what the server and a client allocate. */
#define STEER_DENSITY_MAX_CELLS (1u << 20)

/* Whether a peer's protocol version (a Hello's on the server, a Welcome's on a
 * client) is this build's: STEER_OK, else INVALID with a message in err naming both.
 * peer: "client" or "server", the other side. */
STEER_API steer_status steer_wire_version_ok(uint32_t version, const char *peer, char *err,
                                             size_t errlen);

/* --- client side ---------------------------------------------------------------- */

/* The client's encoders: each appends one delimited frame to out and returns
 * STEER_OK; NOMEM when memory runs out, INVALID when the message cannot be encoded
 * (a command line too long for the message, a view out of range). INVALID appends
 * nothing; after NOMEM out may hold part of a frame (and its oom flag set): discard
 * it. */
STEER_API steer_status steer_wire_hello(steer_strbuf *out, const char *client_name);
/* The same presenting the server's token (NULL or "": none; too long: INVALID). */
STEER_API steer_status steer_wire_hello_token(steer_strbuf *out, const char *client_name,
                                              const char *token);
STEER_API steer_status steer_wire_command_line(steer_strbuf *out, uint32_t request_id,
                                               const char *line);
STEER_API steer_status steer_wire_viewport(steer_strbuf *out, const steer_view *view);
/* The same with a compact request (req NULL or off: plain snapshots). */
STEER_API steer_status steer_wire_viewport_ex(steer_strbuf *out, const steer_view *view,
                                              const steer_compact_req *req);

typedef struct steer_snap_vehicle {
	uint32_t id, group, behaviors;
	float x, y, vx, vy, fx, fy;
} steer_snap_vehicle;

/* One occupied cell of a density frame: cols x rows cells over the view, row 0 at
 * the view's y0. heading: their mean direction, in 256ths of a turn from +x. */
typedef struct steer_snap_cell {
	uint32_t col, row, count;
	uint8_t heading;
} steer_snap_cell;

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

/* The world's static geometry as a client holds it: the last Geometry message. */
typedef struct steer_snap_wall {
	uint32_t id;
	double x0, y0, x1, y1;
} steer_snap_wall;

typedef struct steer_snap_polygon {
	uint32_t id;
	bool inside;         /* a containing polygon: vehicles stay inside it */
	size_t first, count; /* its vertices: vertices[first .. first + count) */
} steer_snap_polygon;

/* Arrays owned; steer_snap_geometry_free (or steer_snapshot_free, for the one a
 * snapshot holds) releases them. */
typedef struct steer_snap_geometry {
	uint64_t version; /* 0: none received on this connection */
	bool contain;     /* the world's bounds are walls */
	size_t nwalls, walls_cap;
	steer_snap_wall *walls;
	size_t npolygons, polygons_cap;
	steer_snap_polygon *polygons;
	size_t nvertices, vertices_cap;
	steer_vec2 *vertices;
} steer_snap_geometry;

/* The most a Geometry message may hold, so a client's memory stays bounded. */
#define STEER_GEOMETRY_MAX_WALLS    1000000u
#define STEER_GEOMETRY_MAX_VERTICES 4000000u

/* Forgets the geometry (version 0), keeping capacity: a new connection. */
STEER_API void steer_snap_geometry_clear(steer_snap_geometry *g);
STEER_API void steer_snap_geometry_free(steer_snap_geometry *g);

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
	/* A density frame: the occupied cells of a dcols x drows grid over the view,
	 * and no vehicles but the one the client picked (count 0 or 1). */
	bool density;
	uint32_t dcols, drows, in_view, max_count;
	size_t ncells, cells_cap;
	steer_snap_cell *cells;
	/* The Geometry version this frame goes with (its header's), and the geometry last
	 * received, which snapshots leave as it is: it is current when the versions are
	 * equal. */
	uint64_t geometry_version;
	steer_snap_geometry geometry;
} steer_snapshot;

STEER_API void steer_snapshot_free(steer_snapshot *s);

typedef enum steer_server_msg_kind {
	STEER_MSG_WELCOME = 1,
	STEER_MSG_SNAPSHOT = 2,
	STEER_MSG_REPLY = 3,
	STEER_MSG_NOTICE = 6,
	STEER_MSG_GEOMETRY = 7, /* decoded into the caller's snapshot's geometry */
} steer_server_msg_kind;

typedef struct steer_server_msg {
	steer_server_msg_kind kind;
	bool compact; /* STEER_MSG_SNAPSHOT decoded from a CompactSnapshot or DensitySnapshot */
	steer_Welcome welcome;
	steer_snapshot *snapshot; /* decoded into the caller's snapshot */
	uint32_t request_id;
	bool ok;
	char error[256];
	steer_strbuf json; /* reply body; owned, reused */
	char notice[257];  /* STEER_MSG_NOTICE: its text */
} steer_server_msg;

/* Decodes one ServerMessage frame body. snap receives a snapshot (a DensitySnapshot
 * too: it stands alone), or in snap->geometry a Geometry (replaced whole, and left as
 * it was when the message is malformed); json a reply body. STEER_OK; INVALID with a message in err
 * when the frame is malformed (or memory runs out inside nanopb's decoding, which
 * reports it as a decode error; err says so); NOMEM when it runs out elsewhere. A
 * CompactSnapshot is refused (INVALID): it needs the state of
 * steer_wire_decode_stream. */
STEER_API steer_status steer_wire_decode_server(const uint8_t *msg, size_t len,
                                                steer_server_msg *out, steer_snapshot *snap,
                                                char *err, size_t errlen);

/* A client's memory of the compact stream: the last frame it decoded, which the
 * server's next delta builds on. Owned by the caller: init once, reset whenever a
 * new connection starts (the server then begins with a key frame), free once. */
typedef struct steer_compact_state {
	bool have_base;
	steer_compact_frame base, next;
	steer_compact_scratch scratch;
	double cos[256], sin[256]; /* of each heading: a table, not two libm calls a vehicle */
} steer_compact_state;

STEER_API void steer_compact_state_init(steer_compact_state *cs);
STEER_API void steer_compact_state_reset(steer_compact_state *cs);
STEER_API void steer_compact_state_free(steer_compact_state *cs);

/* steer_wire_decode_server for a stream that may hold CompactSnapshots: each is
 * rebuilt into snap (the same struct a plain Snapshot gives, force columns zero)
 * against cs, which then holds it as the base of the next. A compact frame that is
 * malformed, or a delta against a frame cs does not hold, is refused and leaves cs
 * as it was. The status as steer_wire_decode_server's. */
STEER_API steer_status steer_wire_decode_stream(const uint8_t *msg, size_t len,
                                                steer_server_msg *out, steer_snapshot *snap,
                                                steer_compact_state *cs, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
