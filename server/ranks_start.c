#include "ranks_start.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "format_cut.h"
#include "journal.h"
#include "log.h"
#include "ranks.h"
#include "savefile.h"
#include "serve.h"
#include "server.h"
#include "share.h"
#include "storage.h"

/* The world the ranks start with until the one read replaces it: the flags' bounds,
 * no vehicles. */
static int lead_empty(server *s)
{
	const server_options *o = &s->opt;
	steer_world_config cfg = server_options_world(o);
	if (!(s->session.world = steer_world_create(&cfg))) {
		steer_log(STEER_LOG_ERROR, "cannot create the world: out of memory");
		return -1;
	}
	s->ranks_told = true;
	ranks_config rc = server_options_ranks(o);
	return (s->ranks = ranks_lead(&s->session, &rc)) ? 0 : -1;
}

/* The save open in fd (size bytes) becomes the world on every rank, each reading it
 * in pieces and keeping its region; one over --max-vehicles is refused unless
 * over_max (a checkpoint: recovery keeps it, as one process does). 0, or -1 with
 * why in err (the world is then unchanged). Closes fd. */
static int read_in_place(server *s, int fd, uint64_t size, bool over_max, char *err, size_t errlen)
{
	storage_file f = {.fd = fd};
	steer_save_source src = {size, storage_read_at, &f, 0};
	steer_save_stream *lead = steer_save_stream_source(&src, err, errlen);
	int rc = -1;
	if (lead &&
	    ranks_load_begin(s->ranks, lead, s->opt.max_vehicles, over_max, err, errlen) == 0) {
		while (ranks_load_step(s->ranks, err, errlen) > 0)
			;
		rc = ranks_load_end(s->ranks, err, errlen); /* says why a step failed */
	}
	steer_save_stream_free(lead);
	close(fd);
	return rc;
}

/* --- --restore NAME, a save ------------------------------------------------------ */

static int restore_save(server *s)
{
	const server_options *o = &s->opt;
	if (!steer_save_name_ok(o->restore)) {
		steer_log(STEER_LOG_ERROR, "--restore: '%s' is not a save name", o->restore);
		return -1;
	}
	if (lead_empty(s) != 0)
		return -1;
	char err[512];
	int fd;
	uint64_t size;
	if (storage_open(o->data_dir, o->restore, &fd, &size, err, sizeof err) != STEER_OK) {
		steer_log(STEER_LOG_ERROR, "--restore %s: %s%s", o->restore, err,
		          server_restore_hint(o));
		return -1;
	}
	if (read_in_place(s, fd, size, false, err, sizeof err) != 0) {
		steer_log(STEER_LOG_ERROR,
		          "--restore %s: %s/%s.steer: %s; the file is left as it is", o->restore,
		          o->data_dir, o->restore, err);
		return -1;
	}
	const steer_world *w = s->session.world;
	steer_log(STEER_LOG_INFO,
	          "restored '%s', each rank reading its region: tick %llu, %zu "
	          "vehicles",
	          o->restore, (unsigned long long)steer_world_tick(w),
	          steer_world_vehicles_total(w));
	return 0;
}

/* --- --recover, --restore NAME of a journal ----------------------------------------- */

/* A checkpoint read in place: the starting one, or a WORLD item's. */
static steer_status read_checkpoint(server *s, const char *path, char *err, size_t errlen)
{
	char why[400];
	int fd;
	uint64_t size;
	if (storage_open_path(path, &fd, &size, why, sizeof why) != STEER_OK) {
		steer_format_cut(err, errlen, "%s", why); /* its words name the file */
		return STEER_ERR_IO;
	}
	if (read_in_place(s, fd, size, true, why, sizeof why) != 0) {
		steer_format_cut(err, errlen, "%s: %s", path, why); /* the records' words */
		return STEER_ERR_IO;
	}
	return STEER_OK;
}

static uint64_t tick_of(void *ud)
{
	return steer_world_tick(((server *)ud)->session.world);
}

static steer_status step_to(void *ud, uint64_t t, char *err, size_t errlen)
{
	server *s = ud;
	while (steer_world_tick(s->session.world) < t) {
		steer_status st = ranks_tick(s->ranks, err, errlen);
		if (st != STEER_OK)
			return st;
	}
	return STEER_OK;
}

/* As a client's command runs over the ranks, with no client (as a single process's
 * recovery runs it). */
static steer_status exec(void *ud, const steer_command *cmd, const char *line, steer_reply *reply)
{
	(void)cmd;
	server *s = ud;
	ranks_command(s->ranks, NULL, line, reply);
	return reply->ok ? STEER_OK : STEER_ERR_REFUSED;
}

static steer_status replace(void *ud, const journal_item *it, char *err, size_t errlen)
{
	server *s = ud;
	steer_status st = read_checkpoint(s, it->checkpoint, err, errlen);
	if (st == STEER_OK)
		s->session.paused = it->paused;
	return st;
}

static int recover(server *s, const char *dir, const char *what, char *keep_as, size_t keep_n)
{
	const server_options *o = &s->opt;
	journal_reader *r = journal_recover_open(o, dir, what);
	if (!r)
		return -1;
	journal_read_defer_worlds(r);
	char path[4200], err[600];
	bool paused = false;
	if (journal_read_world_path(r, &paused, path, sizeof path, err, sizeof err) != STEER_OK) {
		steer_log(STEER_LOG_ERROR, "%s: %s; the server does not start", what, err);
		journal_read_close(r);
		return -1;
	}
	if (lead_empty(s) != 0) { /* logged */
		journal_read_close(r);
		return -1;
	}
	if (read_checkpoint(s, path, err, sizeof err) != STEER_OK) {
		steer_log(STEER_LOG_ERROR, "%s: %s; the server does not start", what, err);
		journal_read_close(r);
		return -1;
	}
	uint64_t from = steer_world_tick(s->session.world);
	s->session.paused = paused;
	journal_apply_ops ops = {tick_of, step_to, exec, replace, s};
	journal_applied a;
	steer_status st = journal_read_apply_ops(r, &ops, JOURNAL_UNTIL_END, &a, err, sizeof err);
	/* The whole world's count, which the records' commands changed (each snapshot
	 * tick counts it again). */
	steer_view all = {0};
	uint64_t total = 0;
	if (st == STEER_OK && ranks_count_views(s->ranks, &all, 1, &total) == 0)
		steer_world_set_vehicles_total(s->session.world, (size_t)total);
	return journal_recover_end(o, r, what, st, err, &a, from,
	                           steer_world_tick(s->session.world), s->session.paused, keep_as,
	                           keep_n);
}

int ranks_start_in_place(server *s, char *keep_as, size_t keep_n)
{
	char dir[4200], what[200];
	keep_as[0] = '\0';
	int from_journal = journal_recover_from(&s->opt, dir, sizeof dir, what, sizeof what);
	if (from_journal < 0)
		return -1;
	if (from_journal == 0)
		return recover(s, dir, what, keep_as, keep_n);
	if (s->opt.restore)
		return restore_save(s);
	return 1;
}
