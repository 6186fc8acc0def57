/* How the core reports failure: one convention for every public function.
 *
 * - A function that can fail returns steer_status: STEER_OK (0) on success, else one
 *   of the codes below, and leaves its outputs and the state it acts on as they were.
 *   Where there is more to say than the code, it writes a message a user can act on
 *   into the caller's `char *err, size_t errlen` (the command table writes it into
 *   the reply instead).
 * - A constructor returns a pointer, or NULL on failure (with the message in err
 *   where it takes one).
 * - A predicate (is this valid? is this a name?) returns bool: false is an answer,
 *   not an error.
 * - A count, index or lookup returns its value; a sentinel such as -1 or NULL means
 *   "not found", never "failed", and is documented where the function is.
 *
 * A growing buffer that records running out of memory in a flag (steer_strbuf's oom)
 * reports it once, where the buffer is used, rather than on every append. */
#ifndef STEER_STATUS_H
#define STEER_STATUS_H

#include "api.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum steer_status {
	STEER_OK = 0,
	STEER_ERR_NOMEM,   /* allocation failed (or a size overflowed); nothing changed */
	STEER_ERR_NOENT,   /* no vehicle, obstacle or other thing with that name or id */
	STEER_ERR_INVALID, /* an argument out of range, or text that does not parse */
	STEER_ERR_LIMIT,   /* a hard limit (vehicles, waypoints, words) reached */
	STEER_ERR_ACCESS,  /* the caller may not do this (a read-only connection) */
	STEER_ERR_REFUSED, /* a command failed; its reply says why */
	STEER_ERR_IO,      /* the host could not read or write a file; err says why */
} steer_status;

/* A short lower-case description of s ("out of memory"); never NULL. */
STEER_API const char *steer_status_str(steer_status s);

#ifdef __cplusplus
}
#endif

#endif
