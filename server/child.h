/* What every process the server forks (a save, a journal checkpoint) does first: it
 * writes the world as it was at the fork (copy-on-write, as Redis's BGSAVE) and must
 * neither outlive the server nor hold its clients' sockets open. */
#ifndef STEER_CHILD_H
#define STEER_CHILD_H

#include <sys/types.h>

/* In the child, right after fork: dies with the server (kill -9; an orphan finishing
 * a write could race the next server's cleanup of temporary files), ignores the
 * SIGINT and SIGTERM that stop the server (it finishes its file; the parent waits),
 * and closes every descriptor but stdio and keep (-1: none). Exits with status 3
 * when the parent is already gone. */
void child_begin(pid_t parent, int keep);

#endif
