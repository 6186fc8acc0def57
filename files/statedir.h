/* The per-user state directory ($XDG_STATE_HOME/steer, else ~/.local/state/steer):
 * steer-server's saves and steerctl's history live there. */
#ifndef STEER_STATEDIR_H
#define STEER_STATEDIR_H

#include <stddef.h>

/* The directory's path; not created here. $XDG_STATE_HOME counts only when it is an
 * absolute path (the XDG spec says to ignore a relative one). 0, or -1 with a
 * message in err (neither variable set, or the path does not fit). */
int steer_state_dir(char *out, size_t n, char *err, size_t errlen);
/* mkdir -p dir (0755). 0, or -1 with a message naming the part that failed. */
int steer_make_dirs(const char *dir, char *err, size_t errlen);

#endif
