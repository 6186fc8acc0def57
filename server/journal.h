/* The journal: every command that changes the world, appended to <data dir>/journal/
 * so that --recover rebuilds the world after a crash (docs/DESIGN.md, "The journal").
 *
 * The loop only appends records to a batch in memory; each tick timer firing (and
 * each slice of a step) closes the batch with a mark of the world's tick and hands it
 * to a writer thread, which writes and fsyncs it (--journal-fsync). Checkpoints (saves
 * of the world) are written by a forked child, as `save` is, at start, every
 * --checkpoint seconds and when the world is replaced; each starts a new segment, and
 * older segments are dropped once a newer checkpoint is durable.
 *
 * Every function takes j NULL (no journal: --no-journal, or no data directory) and
 * then does nothing, so that each hook is one line. */
#ifndef STEER_SERVER_JOURNAL_H
#define STEER_SERVER_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "journal_read.h"
#include "options.h"
#include "steer.pb.h"
#include "steer/command.h"
#include "steer/strbuf.h"

typedef struct server server;
typedef struct conn conn;
typedef struct journal journal;

/* The most named journals (<data dir>/journals/NAME) kept: the oldest beyond it is
 * removed when another is kept. */
#define JOURNAL_KEEP_NAMED 16

/* The session to start from, for --recover (the live journal) or --restore NAME when
 * NAME is a named journal: s->world and s->paused rebuilt to the last durable mark,
 * with what was recovered logged. 1: not a journal restore (start as usual); 0: done;
 * -1: refused or failed, logged (the server must not start; nothing was changed).
 * Damage is refused unless o->accept_loss. When --recover dropped anything, keep_as
 * (n bytes) gets the name to keep the live journal under, as it was; else "". */
int journal_recover(const server_options *o, steer_session *s, char *keep_as, size_t n);
/* --recover where the data directory has no journal at all: true after logging so,
 * before the journal's lock makes the directory. */
bool journal_recover_missing(const server_options *o);
/* journal_recover in parts, for a start over MPI ranks that applies the records in
 * place (ranks_start.c). from: the journal a start recovers from, its directory in
 * dir and the flag that names it in what (0); 1 when it recovers none; -1 after
 * logging why. open: its reader (NULL after logging why). end: the reader closed,
 * and what the recovery came to logged (st, err: how applying the records ended; a,
 * from, tick, paused: what it did), keep_as set as by journal_recover; 0, or -1 when
 * the server must not start. */
int journal_recover_from(const server_options *o, char *dir, size_t dn, char *what, size_t wn);
journal_reader *journal_recover_open(const server_options *o, const char *dir, const char *what);
int journal_recover_end(const server_options *o, journal_reader *r, const char *what,
                        steer_status st, const char *err, const journal_applied *a, uint64_t from,
                        uint64_t tick, bool paused, char *keep_as, size_t keep_n);

/* Starts the live journal of server s (whose world is set): its first checkpoint and
 * the writer thread. A journal already in the directory is kept as the named journal
 * "before-YYYYMMDD-HHMMSS" (UTC) unless this start recovered from it; then as
 * recovered_keep_as when that is not empty (journal_recover dropped something). NULL when s has
 * no journal (--no-journal, no data directory); a journal that cannot start is logged
 * and s runs without one. */
journal *journal_open(server *s, const char *recovered_keep_as);
/* Flushes what is left, waits for the writer and any checkpoint under way, and
 * answers the replies held for it. */
void journal_stop(journal *j);
void journal_free(journal *j); /* after the loop has ended; NULL is fine */

/* The words of the command about to run, as steer_cmd_parse receives them (the text
 * port's, or a protobuf Command's); kept for journal_command. */
void journal_words(journal *j, int argc, char **words);
void journal_proto_words(journal *j, const steer_Command *cmd);

/* Before cmd runs: under --journal-fsync always, while the journal fails, a command
 * that changes the world is refused (true, with the reason in *reply), since its OK
 * could not mean durable. */
bool journal_refuses(journal *j, const steer_command *cmd, steer_reply *reply);

/* Before cmd runs: whether it would start a new history (`load`, or a change in the
 * past, which forks it: fork_history) while a checkpoint is still being written. It
 * then waits (conn_commands.c) until that one has ended: one checkpoint child at a time.
 * again: the same command asks again (counted once in stats). */
bool journal_busy(journal *j, const steer_command *cmd, bool fork_history, bool again);
/* The words staged for the command about to run (journal_words), and staging them
 * again from such a line, for a command that waited. */
const steer_strbuf *journal_staged(const journal *j);
void journal_restage(journal *j, const char *line, size_t len);

/* After cmd ran (reply says how): records it if it succeeded and changed the world.
 * True when it took the reply, to be sent through conn_job_done once the record is
 * durable (--journal-fsync always); *reply is then left empty. */
bool journal_command(journal *j, conn *c, const steer_command *cmd, uint32_t request_id,
                     steer_reply *reply);
/* Holds a job's reply (step's, load's) until everything so far, a step's ticks and a
 * loaded world's checkpoint included, is durable (--journal-fsync always): true when
 * it took it (*reply left empty; sent through conn_job_done). */
bool journal_hold(journal *j, conn *c, const steer_command *cmd, uint32_t request_id,
                  steer_reply *reply);
/* The tick timer fired, or a step's slice ended: the batch is closed with a mark of
 * the world's tick and handed to the writer; a checkpoint starts when one is due. */
void journal_tick(journal *j);
/* The world was swapped for w (load, rewind): a new segment starts with w as its
 * checkpoint (NULL: the server's world, over ranks gathered for the fork). A command that swaps the
 * world (rewind) is then not recorded as a command, whether this is called before or after
 * journal_command. keep_as NULL drops the old history once w's checkpoint is durable; a name keeps
 * it as the named journal <data dir>/journals/NAME (replacing one of that name). */
void journal_world_replaced(journal *j, const steer_world *w, const char *keep_as);
/* Around a fork by the loop (a save): the writer thread is between its works, so
 * the child does not start with it inside the allocator. */
void journal_fork_begin(journal *j);
void journal_fork_end(journal *j);
/* Makes name (n bytes) one that no journal kept in <data dir>/journals has, by a
 * suffix -2, -3, ... when needed: names count from 1 again after a restart. */
void journal_unique_name(journal *j, char *name, size_t n);
/* c is closing: a reply held for it is dropped. */
void journal_conn_gone(journal *j, conn *c);
/* Appends ,"journal":{...} to the stats object. */
void journal_stats(journal *j, steer_strbuf *json);

#endif
