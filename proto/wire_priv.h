/* Pieces of wire.c that compact.c shares: the plain and the compact snapshot carry
 * the same obstacles and routes, and every message is framed the same way. Not part
 * of the library's interface. */
#ifndef STEER_WIRE_PRIV_H
#define STEER_WIRE_PRIV_H

#include <pb.h>

#include "steer/wire.h"

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

/* Blobs (compact.c): appending and reading the varints and bytes that compact and
 * density frames are made of. A failed append sets the blob's oom; a read past the
 * end, or a varint over ten bytes (or over 32 bits for get_varint32), fails. */
#define STEER_TURN 6.283185307179586

typedef struct wire_reader {
	const uint8_t *p;
	size_t len, pos;
} wire_reader;

void wire_blob_clear(steer_blob *b);
bool wire_blob_room(steer_blob *b, size_t n);
void wire_put_byte(steer_blob *b, uint8_t v);
void wire_put_varint(steer_blob *b, uint64_t x);
bool wire_get_byte(wire_reader *r, uint8_t *v);
bool wire_get_varint(wire_reader *r, uint64_t *v);
bool wire_get_varint32(wire_reader *r, uint32_t *v);
/* The direction of (x, y) in 256ths of a turn counter-clockwise from +x; 0 for 0. */
uint8_t wire_direction_byte(double x, double y);
/* nanopb callbacks for a bytes field held in a steer_blob (arg). */
bool wire_enc_blob(pb_ostream_t *s, const pb_field_t *f, void *const *arg);
bool wire_dec_blob(pb_istream_t *s, const pb_field_t *f, void **arg);

/* The header fields that Snapshot, CompactSnapshot and DensitySnapshot share (m
 * points to any of them; macros, as they are different generated types): the world
 * w into m, and m into the decoded snap. Views differ between the three: not here. */
#define WIRE_PUT_HEADER(m, w, is_paused)                                                           \
	do {                                                                                       \
		const steer_world_config *cfg_ = steer_world_config_get(w);                        \
		(m)->tick = steer_world_tick(w);                                                   \
		(m)->paused = (is_paused);                                                         \
		(m)->total_vehicles = (uint32_t)steer_world_vehicles(w)->count;                    \
		(m)->width = cfg_->width;                                                          \
		(m)->height = cfg_->height;                                                        \
		(m)->edges = (steer_Edges)cfg_->edges;                                             \
		(m)->tick_rate = cfg_->tick_rate;                                                  \
	} while (0)

#define WIRE_GET_HEADER(snap, m)                                                                   \
	do {                                                                                       \
		(snap)->tick = (m)->tick;                                                          \
		(snap)->paused = (m)->paused;                                                      \
		(snap)->total_vehicles = (m)->total_vehicles;                                      \
		(snap)->width = (m)->width;                                                        \
		(snap)->height = (m)->height;                                                      \
		(snap)->tick_rate = (m)->tick_rate;                                                \
		(snap)->edges = (steer_edges)(m)->edges;                                           \
	} while (0)

/* Decodes a DensitySnapshot from its substream into snap; a message in err on
 * failure. */
bool wire_decode_density(pb_istream_t *s, steer_snapshot *snap, char *err, size_t errlen);

/* Grows *p (elements of sz) so that index n is valid; new space zeroed. */
bool wire_grow_to(void **p, size_t *cap, size_t n, size_t sz);

#endif
