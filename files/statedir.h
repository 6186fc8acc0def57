/* The per-user state directory ($XDG_STATE_HOME/steer, else ~/.local/state/steer):
 * steer-server's saves and steerctl's history live there. */
#ifndef STEER_STATEDIR_H
#define STEER_STATEDIR_H

#include <stdbool.h>
#include <stddef.h>

/* The directory's path; not created here. $XDG_STATE_HOME counts only when it is an
 * absolute path (the XDG spec says to ignore a relative one). 0, or -1 with a
 * message in err (neither variable set, or the path does not fit). */
int steer_state_dir(char *out, size_t n, char *err, size_t errlen);
/* mkdir -p dir (0755). 0, or -1 with a message naming the part that failed. */
int steer_make_dirs(const char *dir, char *err, size_t errlen);
/* Takes dir for this process alone: a write lock on dir/lock (dir and the file made
 * if missing), held while the descriptor returned stays open, at most until the
 * process ends. The descriptor; or -1 with a message in err, and *taken true when
 * another process holds it (false: the lock could not be made). */
int steer_dir_lock(const char *dir, bool *taken, char *err, size_t errlen);

#endif
