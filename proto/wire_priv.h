/* Pieces of wire.c that compact.c shares: the plain and the compact snapshot carry
 * the same obstacles and routes, and every message is framed the same way. Not part
 * of the library's interface. */
#ifndef STEER_WIRE_PRIV_H
#define STEER_WIRE_PRIV_H

#include <pb.h>

#include "wire.h"

/* Encodes a message as one delimited frame at the end of out. */
bool wire_encode_frame(steer_strbuf *out, const pb_msgdesc_t *fields, const void *msg);

/* Encode callbacks: the obstacles touching view, and the routes of vehicles idx[0..n). */
typedef struct wire_obstacle_list {
	const steer_obstacle *o;
	size_t n;
	const steer_view *view;
} wire_obstacle_list;

typedef struct wire_route_list {
	const steer_world *w;
	const uint32_t *idx;
	size_t n;
} wire_route_list;

bool wire_enc_obstacles(pb_ostream_t *s, const pb_field_t *f, void *const *arg);
bool wire_enc_routes(pb_ostream_t *s, const pb_field_t *f, void *const *arg);

/* The longest avoidance feeler among vehicles idx[0..n), for drawing aids. */
double wire_feeler(const steer_world *w, const uint32_t *idx, size_t n);

/* Decode callbacks appending to a steer_snapshot (arg); the caller resets its counts. */
bool wire_dec_obstacle(pb_istream_t *s, const pb_field_t *f, void **arg);
bool wire_dec_route(pb_istream_t *s, const pb_field_t *f, void **arg);

/* Decodes a CompactSnapshot from its substream into snap against cs; a message in
 * err on failure (cs then unchanged). */
bool wire_decode_compact(pb_istream_t *s, steer_snapshot *snap, steer_compact_state *cs, char *err,
                         size_t errlen);

/* Grows *p (elements of sz) so that index n is valid; new space zeroed. */
bool wire_grow_to(void **p, size_t *cap, size_t n, size_t sz);

#endif
