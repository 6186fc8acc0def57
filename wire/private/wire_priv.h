/* The decoders of compact.c and density.c, which wire.c's stream decoder hands a
 * ServerMessage's member to. Not part of the library's interface. */
#ifndef STEER_WIRE_PRIV_H
#define STEER_WIRE_PRIV_H

#include <pb.h>

#include "steer/wire.h"

/* Decodes a CompactSnapshot from its substream into snap against cs: STEER_OK, or
 * INVALID (NOMEM when memory runs out) with a message in err, cs then unchanged. */
steer_status steer_wire_decode_compact(pb_istream_t *s, steer_snapshot *snap,
                                       steer_compact_state *cs, char *err, size_t errlen);

/* Decodes a DensitySnapshot from its substream into snap: STEER_OK, or INVALID (NOMEM
 * when memory runs out) with a message in err. */
steer_status steer_wire_decode_density(pb_istream_t *s, steer_snapshot *snap, char *err,
                                       size_t errlen);

/* Decodes a Geometry from its substream into out, replacing what it held: STEER_OK,
 * or INVALID with a message in err, out then unchanged. */
steer_status steer_wire_decode_geometry(pb_istream_t *s, steer_snap_geometry *out, char *err,
                                        size_t errlen);

#endif
