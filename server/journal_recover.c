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

int journal_recover(const server_options *o, steer_session *s, char *keep_as, size_t keep_n)
{
	char dir[4200], what[200];
	keep_as[0] = '\0';
	if (o->recover) {
		if (!o->data_dir) {
			steer_log(STEER_LOG_ERROR,
			          "--recover: no data directory (give --data-dir)");
			return -1;
		}
		snprintf(dir, sizeof dir, "%s/journal", o->data_dir);
		snprintf(what, sizeof what, "--recover");
	} else if (o->restore && o->data_dir) {
		snprintf(dir, sizeof dir, "%s/journals/%s", o->data_dir, o->restore);
		if (!steer_save_name_ok(o->restore) || !journal_is_dir(dir))
			return 1; /* a save, or nothing: --restore as before */
		char save[4200];
		snprintf(save, sizeof save, "%s/%s.steer", o->data_dir, o->restore);
		if (access(save, F_OK) == 0) {
			steer_log(
			    STEER_LOG_ERROR,
			    "--restore %s: both a save (%s) and a journal (%s) have that name; "
			    "rename or remove one of them",
			    o->restore, save, dir);
			return -1;
		}
		snprintf(what, sizeof what, "--restore %s", o->restore);
	} else {
		return 1;
	}
	char err[512];
	journal_reader *r = journal_read_open(dir, JOURNAL_FROM_NEWEST, err, sizeof err);
	if (!r) {
		steer_log(STEER_LOG_ERROR, "%s: %s; the server does not start", what, err);
		return -1;
	}
	if (o->accept_loss)
		journal_read_accept_loss(r);
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
	const char *why;
	uint64_t dropped = journal_read_dropped(r, &why);
	if (st != STEER_OK) {
		bool damaged = journal_read_damaged(r);
		steer_log(STEER_LOG_ERROR, "%s: %s; the server does not start%s", what, err,
		          damaged ? ". To start from what comes before the damage, add "
		                    "--accept-loss (the journal is then kept, as it is, under "
		                    "journals/recovered-...)"
		                  : "");
		journal_read_close(r);
		steer_world_destroy(s->world);
		s->world = NULL;
		return -1;
	}
	bool damaged = journal_read_damaged(r);
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
	          what, (unsigned long long)steer_world_tick(s->world), (unsigned long long)from,
	          (unsigned long long)a.records, (unsigned long long)a.marks,
	          (unsigned long long)a.replaced, (unsigned long long)a.dropped,
	          (unsigned long long)dropped, why[0] ? " - " : "", why,
	          s->paused ? "paused" : "running");
	journal_read_close(r);
	return 0;
}
