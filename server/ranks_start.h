/* A start over MPI ranks that reads its world: --restore NAME (a save or a named
 * journal) and --recover. The world is built in place: each save or checkpoint is
 * read in pieces, every rank keeping its region, and a journal's records are applied
 * over the ranks as a live server's commands are, so that no rank holds the whole
 * world at any moment. */
#ifndef STEER_SERVER_RANKS_START_H
#define STEER_SERVER_RANKS_START_H

#include <stddef.h>

typedef struct server server;

/* Rank 0 of s, before it serves: 1 when the start reads no world (a scenario or a
 * new world, made whole here and split: ranks_lead); 0 when s->ranks leads and
 * s->session holds this rank's region of the world read (keep_as as for
 * journal_recover); -1 after logging why the server does not start (s->ranks, when
 * set, is the caller's to finish). */
int ranks_start_in_place(server *s, char *keep_as, size_t keep_n);

#endif
