#ifndef STEER_TOKEN_H
#define STEER_TOKEN_H

#include <stddef.h>

#include "steer/command.h"

/* token, checked: 1-64 characters without spaces. STEER_OK with it in out, or
 * INVALID with a message naming flag in err. */
steer_status steer_token_check(const char *token, const char *flag, char out[STEER_NAME_MAX + 1],
                               char *err, size_t errlen);
/* The first line of the file at path, checked as a token (--token-file). STEER_OK, or
 * INVALID with a message in err (the file cannot be read, the token is not one). */
steer_status steer_token_read(const char *path, char out[STEER_NAME_MAX + 1], char *err,
                              size_t errlen);
/* The token a client presents (steerctl, steer-tui): `token` when not NULL, else the
 * first line of the file `file` when not NULL, else $STEER_TOKEN when set and not
 * empty, else none (out ""). STEER_OK, or INVALID with a message naming the flag in
 * err (a missing file, a token that is not 1-64 characters without spaces). */
steer_status steer_token_choose(const char *token, const char *file, char out[STEER_NAME_MAX + 1],
                                char *err, size_t errlen);

#endif
