/* --recover: the world of the journal's newest usable checkpoint and the records after
 * it, before the server serves anyone. */
#include "journal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "child.h"
#include "conn.h"
#include "history.h"
#include "journal_format.h"
#include "journal_internal.h"
#include "journal_read.h"
#include "log.h"
#include "savefile.h"
#include "serve.h"
#include "server.h"
#include "statedir.h"
#include "storage.h"

/* --- recovery -------------------------------------------------------------------------- */

bool journal_recover_missing(const server_options *o)
{
	if (!o->recover || !o->data_dir)
		return false;
	char dir[4200];
	snprintf(dir, sizeof dir, "%s/journal", o->data_dir);
	if (journal_is_dir(dir))
		return false;
	steer_log(STEER_LOG_ERROR,
	          "--recover: there is no journal in %s: no server has kept one with this "
	          "--data-dir; start without --recover, or give the data directory the "
	          "journal is in; the server does not start",
	          o->data_dir);
	return true;
}

int journal_recover_from(const server_options *o, char *dir, size_t dn, char *what, size_t wn)
{
	if (o->recover) {
		if (!o->data_dir) {
			steer_log(STEER_LOG_ERROR,
			          "--recover: no data directory (give --data-dir)");
			return -1;
		}
		snprintf(dir, dn, "%s/journal", o->data_dir);
		snprintf(what, wn, "--recover");
		return 0;
	}
	if (!o->restore || !o->data_dir)
		return 1;
	snprintf(dir, dn, "%s/journals/%s", o->data_dir, o->restore);
	if (!steer_save_name_ok(o->restore) || !journal_is_dir(dir))
		return 1; /* a save, or nothing: --restore as before */
	char save[4200];
	snprintf(save, sizeof save, "%s/%s.steer", o->data_dir, o->restore);
	if (access(save, F_OK) == 0) {
		steer_log(STEER_LOG_ERROR,
		          "--restore %s: both a save (%s) and a journal (%s) have that name; "
		          "rename or remove one of them",
		          o->restore, save, dir);
		return -1;
	}
	snprintf(what, wn, "--restore %s", o->restore);
	return 0;
}

journal_reader *journal_recover_open(const server_options *o, const char *dir, const char *what)
{
	char err[512];
	journal_reader *r = journal_read_open(dir, JOURNAL_FROM_NEWEST, err, sizeof err);
	if (!r) {
		steer_log(STEER_LOG_ERROR, "%s: %s; the server does not start", what, err);
		return NULL;
	}
	if (o->accept_loss)
		journal_read_accept_loss(r);
	return r;
}

int journal_recover_end(const server_options *o, journal_reader *r, const char *what,
                        steer_status st, const char *err, const journal_applied *a, uint64_t from,
                        uint64_t tick, bool paused, char *keep_as, size_t keep_n)
{
	bool damaged = journal_read_damaged(r);
	if (st != STEER_OK) {
		steer_log(STEER_LOG_ERROR, "%s: %s; the server does not start%s", what, err,
		          damaged ? ". To start from what comes before the damage, add "
		                    "--accept-loss (the journal is then kept, as it is, under "
		                    "journals/recovered-...)"
		                  : "");
		journal_read_close(r);
		return -1;
	}
	const char *why;
	uint64_t dropped = journal_read_dropped(r, &why);
	if ((dropped || damaged) && o->recover) {
		time_t t = time(NULL);
		struct tm tm;
		gmtime_r(&t, &tm);
		strftime(keep_as, keep_n, "recovered-%Y%m%d-%H%M%S", &tm);
	}
	steer_log(damaged ? STEER_LOG_WARN : STEER_LOG_INFO,
	          "%s: recovered tick %llu from the checkpoint at tick %llu: %llu commands, "
	          "%llu marks, %llu worlds replaced; %llu commands after the last mark and %llu "
	          "torn bytes dropped%s%s; %s",
	          what, (unsigned long long)tick, (unsigned long long)from,
	          (unsigned long long)a->records, (unsigned long long)a->marks,
	          (unsigned long long)a->replaced, (unsigned long long)a->dropped,
	          (unsigned long long)dropped, why[0] ? " - " : "", why,
	          paused ? "paused" : "running");
	journal_read_close(r);
	return 0;
}

int journal_recover(const server_options *o, steer_session *s, char *keep_as, size_t keep_n)
{
	char dir[4200], what[200];
	keep_as[0] = '\0';
	int from_journal = journal_recover_from(o, dir, sizeof dir, what, sizeof what);
	if (from_journal != 0)
		return from_journal;
	journal_reader *r = journal_recover_open(o, dir, what);
	if (!r)
		return -1;
	char err[512];
	bool paused = false;
	steer_world *w = journal_read_world(r, &paused, err, sizeof err);
	if (!w) {
		steer_log(STEER_LOG_ERROR, "%s: %s; the server does not start", what, err);
		journal_read_close(r);
		return -1;
	}
	uint64_t from = steer_world_tick(w);
	steer_world_set_max_vehicles(w, o->max_vehicles);
	if (steer_world_set_threads(w, o->threads) != STEER_OK) {
		steer_log(STEER_LOG_ERROR, "%s: cannot start %d threads", what, o->threads);
		steer_world_destroy(w);
		journal_read_close(r);
		return -1;
	}
	s->world = w;
	s->paused = paused;
	journal_applied a;
	steer_status st = journal_read_apply(r, s, NULL, JOURNAL_UNTIL_END, &a, err, sizeof err);
	if (journal_recover_end(o, r, what, st, err, &a, from, steer_world_tick(s->world),
	                        s->paused, keep_as, keep_n) != 0) {
		steer_world_destroy(s->world);
		s->world = NULL;
		return -1;
	}
	return 0;
}
