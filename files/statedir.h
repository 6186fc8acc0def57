/* The per-user state directory ($XDG_STATE_HOME/steer, else ~/.local/state/steer):
 * steer-server's saves and steerctl's history live there. */
#ifndef STEER_STATEDIR_H
#define STEER_STATEDIR_H

#include <stdbool.h>
#include <stddef.h>

#include "steer/status.h"

/* The directory's path; not created here. $XDG_STATE_HOME counts only when it is an
 * absolute path (the XDG spec says to ignore a relative one). STEER_OK, or a
 * failure with a message in err (neither variable set, or the path does not fit). */
steer_status steer_state_dir(char *out, size_t n, char *err, size_t errlen);
/* mkdir -p dir (0755). STEER_OK, or a failure with a message naming the part that
 * failed. */
steer_status steer_make_dirs(const char *dir, char *err, size_t errlen);
/* Takes dir for this process alone: a write lock on dir/lock (dir and the file made
 * if missing), held while the descriptor returned stays open, at most until the
 * process ends. The descriptor; or -1 with a message in err, and *taken true when
 * another process holds it (false: the lock could not be made). */
int steer_dir_lock(const char *dir, bool *taken, char *err, size_t errlen);

#endif
