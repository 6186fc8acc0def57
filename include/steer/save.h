/* Save files: a whole world as text, and back (the format: store/savefile.h in the
 * sources). A buffer codec with no I/O: where the bytes live is the caller's. A
 * loaded world continues bit for bit as the saved one would have. */
#ifndef STEER_SAVE_H
#define STEER_SAVE_H

#include <stddef.h>

#include "api.h"
#include "status.h"
#include "world.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The format version this build writes. */
#define STEER_SAVE_VERSION 4
/* The first word of every save file. */
#define STEER_SAVE_MAGIC "steer-save"
/* The largest save file: encoding refuses to produce more, and decoding (and the
 * server reading a file) refuses more, so every save that is written can be loaded. */
#define STEER_SAVE_MAX_BYTES (1024u * 1024u * 1024u)

/* Serializes the whole world (config incl. size/edges/tick_rate/seed, meta: tick,
 * next_id, rng state; every vehicle record with all params, behaviours, targets,
 * pursue/evade ids, group state, wander angle, path points/index/loop, heading and last force;
 * every obstacle, wall and polygon) into a newly malloc'd buffer; the caller frees
 * *out. The buffer is also NUL-terminated (not counted in *len). STEER_ERR_NOMEM on
 * allocation failure, with *out untouched; STEER_ERR_LIMIT when the file would be
 * over STEER_SAVE_MAX_BYTES. */
STEER_API steer_status steer_save_encode(const steer_world *w, char **out, size_t *len);

/* Parses a buffer produced by steer_save_encode into a NEW world (max_vehicles 0). On
 * any error returns NULL and writes a message a user can act on into err (e.g.
 * "line 12: bad number 'x' for max_speed", "file is truncated", "checksum mismatch:
 * file is corrupted", "unsupported format version 7 (this build reads 1)"). Never
 * touches any existing world. buf need not be NUL-terminated; any bytes are safe. */
STEER_API steer_world *steer_save_decode(const char *buf, size_t len, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
