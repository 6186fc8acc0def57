/* What the encoders and decoders of the three snapshot kinds (wire.c's Snapshot,
 * compact.c's CompactSnapshot, density.c's DensitySnapshot) share: a message as a
 * delimited frame, the SnapshotHeader, obstacles and routes, byte-string fields and
 * the direction byte. Sits above bytes.c and below the three; not part of the
 * library's interface. */
#ifndef STEER_MESSAGE_H
#define STEER_MESSAGE_H

#include <pb.h>

#include "steer/bytes.h"
#include "steer/vec2.h"
#include "steer/wire.h"

/* Encodes a message as one delimited frame at the end of out: STEER_OK, NOMEM, or
 * INVALID when nanopb cannot encode it (out then as it was). */
steer_status steer_wire_encode_frame(steer_strbuf *out, const pb_msgdesc_t *fields,
                                     const void *msg);

/* A view's rectangle as a message. */
steer_Rect steer_wire_rect(const steer_view *v);

/* The header of a snapshot of w, and a decoded header into snap. */
steer_SnapshotHeader steer_wire_header(const steer_world *w, bool paused);
void steer_wire_header_get(steer_snapshot *snap, const steer_SnapshotHeader *h);

/* Encode callbacks: the obstacles touching view, and the routes of vehicles idx[0..n). */
typedef struct steer_wire_obstacle_list {
	const steer_obstacle *o;
	size_t n;
	const steer_view *view;
} steer_wire_obstacle_list;

typedef struct steer_wire_route_list {
	const steer_world *w;
	const uint32_t *idx;
	size_t n;
} steer_wire_route_list;

/* The obstacles of w touching view (all of them when view is not set). */
steer_wire_obstacle_list steer_wire_obstacles_in(const steer_world *w, const steer_view *view);
bool steer_wire_enc_obstacles(pb_ostream_t *s, const pb_field_t *f, void *const *arg);
bool steer_wire_enc_routes(pb_ostream_t *s, const pb_field_t *f, void *const *arg);

/* The longest avoidance feeler among vehicles idx[0..n), for drawing aids. */
double steer_wire_feeler(const steer_world *w, const uint32_t *idx, size_t n);

/* Decode callbacks appending to a steer_snapshot (arg); the caller resets its counts. */
bool steer_wire_dec_obstacle(pb_istream_t *s, const pb_field_t *f, void **arg);
bool steer_wire_dec_route(pb_istream_t *s, const pb_field_t *f, void **arg);

/* nanopb callbacks for a bytes field held in a steer_blob (arg). */
bool steer_wire_enc_blob(pb_ostream_t *s, const pb_field_t *f, void *const *arg);
bool steer_wire_dec_blob(pb_istream_t *s, const pb_field_t *f, void **arg);

/* The direction of (x, y) in 256ths of a turn counter-clockwise from +x; 0 for 0. */
uint8_t steer_wire_direction_byte(double x, double y);

#endif
