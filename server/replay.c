#include "replay.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conn.h"
#include "history.h"
#include "jobs.h"
#include "journal_read.h"
#include "log.h"
#include "reserve.h"
#include "server.h"
#include "session_cache.h"

/* One record of the batch read ahead: a command (its line in `lines`) or a world
 * that replaced the one before (owned until taken). */
typedef struct replay_item {
	bool world;
	uint64_t tick;
	size_t off, len;
	steer_world *w;
} replay_item;

struct replay {
	server *srv;
	journal_reader *reader;
	char name[256];
	bool has_until;
	uint64_t until;
	double speed;
	bool writable;
	bool ended; /* the journal's end was reached, or a record failed: nothing to apply */
	bool live;  /* a client changed the world (--writable): the replay is over */
	/* The next batch: the records up to a mark, read whole before any is applied, so
	 * one the journal never marked is left out. */
	replay_item *items;
	size_t n, cap, next;
	steer_strbuf lines;
	uint64_t mark;
	bool loaded;
	uint64_t applied, worlds;
};

static void drop_batch(replay *r)
{
	for (size_t i = r->next; i < r->n; i++)
		steer_world_destroy(r->items[i].w);
	r->n = r->next = 0;
	r->loaded = false;
	steer_strbuf_clear(&r->lines);
}

/* Reads the next whole batch; at the journal's end (or a batch it never marked)
 * r->ended. 0, or -1 with a message in err. */
static int load_batch(replay *r, char *err, size_t errlen)
{
	drop_batch(r);
	for (;;) {
		journal_item it;
		if (journal_read_next(r->reader, &it, err, errlen) != STEER_OK)
			return -1;
		if (it.kind == JOURNAL_ITEM_END) {
			drop_batch(r);
			r->ended = true;
			return 0;
		}
		if (it.kind == JOURNAL_ITEM_MARK) {
			r->mark = it.tick;
			r->loaded = true;
			return 0;
		}
		if (steer_reserve((void **)&r->items, &r->cap, r->n + 1, sizeof *r->items) !=
		    STEER_OK) {
			steer_world_destroy(it.world);
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		replay_item *x = &r->items[r->n++];
		*x = (replay_item){.world = it.kind == JOURNAL_ITEM_WORLD, .tick = it.tick};
		if (x->world) {
			x->w = it.world;
			continue;
		}
		x->off = r->lines.len;
		x->len = it.line_len;
		steer_strbuf_put(&r->lines, it.line, it.line_len);
		steer_strbuf_put(&r->lines, "", 1);
		if (r->lines.oom) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
	}
}

/* Stops the clock: the session pauses and every watcher hears why. */
static void stop(replay *r, const char *why)
{
	server *s = r->srv;
	s->session.paused = true;
	char who[300];
	snprintf(who, sizeof who, "the replay of %s", r->name);
	conn_announce(s, NULL, who, why);
}

static void take_world(replay *r, steer_world *w)
{
	server *s = r->srv;
	steer_world_set_max_vehicles(w, s->opt.max_vehicles);
	steer_world_set_simd(w, steer_world_simd(s->session.world));
	steer_status st = steer_world_set_threads(w, s->opt.threads);
	if (st != STEER_OK)
		steer_log(STEER_LOG_WARN,
		          "replay: cannot start %d threads (%s); the world ticks on one",
		          s->opt.threads, steer_status_str(st));
	steer_world_destroy(s->session.world);
	s->session.world = w;
	steer_session_stale(&s->session);
	history_restart(s->history, w);
	r->worlds++;
	char who[300];
	snprintf(who, sizeof who, "the replay of %s", r->name);
	jobs_world_replaced(s, who, "replaced the world, as the recorded session did");
	conn_announce(s, NULL, who, "replaced the world, as the recorded session did");
	if (s->host.rate_changed)
		s->host.rate_changed(s->host.ud);
}

/* Applies one recorded command. 0, or -1 with the reason in err. */
static int apply_line(replay *r, const char *line, uint64_t tick, char *err, size_t errlen)
{
	server *s = r->srv;
	steer_command cmd;
	char why[256];
	if (steer_cmd_parse_line(&cmd, line, why, sizeof why) != STEER_OK) {
		snprintf(err, errlen, "record '%s' at tick %llu: %s", line,
		         (unsigned long long)tick, why);
		return -1;
	}
	/* Pausing is the viewer's: the recorded ticks say when the world moved. */
	const char *name = cmd.entry->name;
	if (!strcmp(name, "pause") || !strcmp(name, "resume"))
		return 0;
	steer_reply reply;
	steer_reply_init(&reply);
	steer_status st = steer_cmd_exec(&cmd, &s->session, &s->host, &reply);
	history_after(s->history, &s->session, &cmd, &reply); /* so rewind can replay it */
	if (st != STEER_OK)
		snprintf(err, errlen, "record '%s' at tick %llu failed: %s", line,
		         (unsigned long long)tick, reply.error);
	steer_reply_free(&reply);
	if (st != STEER_OK)
		return -1;
	steer_session_stale(&s->session);
	r->applied++;
	return 0;
}

/* Applies what is due at the world's tick. 1: the world may tick; 0: the journal
 * ended; -1: a record failed (err). */
static int catch_up(replay *r, char *err, size_t errlen)
{
	server *s = r->srv;
	for (;;) {
		if (!r->loaded) {
			if (load_batch(r, err, errlen) != 0)
				return -1;
			if (r->ended)
				return 0;
		}
		for (; r->next < r->n; r->next++) {
			replay_item *it = &r->items[r->next];
			if (it->world) {
				take_world(r, it->w);
				it->w = NULL;
				continue;
			}
			uint64_t t = steer_world_tick(s->session.world);
			if (it->tick > t)
				return 1;
			if (it->tick < t) {
				snprintf(err, errlen,
				         "a record at tick %llu behind the world's tick %llu",
				         (unsigned long long)it->tick, (unsigned long long)t);
				return -1;
			}
			if (apply_line(r, r->lines.data + it->off, it->tick, err, errlen) != 0)
				return -1;
		}
		uint64_t t = steer_world_tick(s->session.world);
		if (t < r->mark)
			return 1;
		if (t > r->mark) {
			snprintf(err, errlen, "a mark at tick %llu behind the world's tick %llu",
			         (unsigned long long)r->mark, (unsigned long long)t);
			return -1;
		}
		r->loaded = false;
	}
}

bool replay_before_tick(replay *r, char *why, size_t n)
{
	if (!r || r->live || r->ended)
		return true;
	uint64_t t = steer_world_tick(r->srv->session.world);
	/* The world as it was on reaching T: before the commands stamped T, as a mark's
	 * bound is in recovery. */
	if (r->has_until && t >= r->until) {
		r->has_until = false; /* resuming plays on */
		snprintf(why, n, "paused at tick %llu (--until %llu)", (unsigned long long)t,
		         (unsigned long long)r->until);
		stop(r, why);
		return false;
	}
	char err[512];
	int rc = catch_up(r, err, sizeof err);
	if (rc > 0)
		return true;
	t = steer_world_tick(r->srv->session.world);
	if (rc == 0) {
		snprintf(why, n,
		         "reached the journal's end at tick %llu (%llu commands applied); resuming "
		         "runs the world on with nothing more recorded",
		         (unsigned long long)t, (unsigned long long)r->applied);
	} else {
		r->ended = true;
		drop_batch(r);
		snprintf(why, n, "stopped at tick %llu: %s (the journal and this build disagree)",
		         (unsigned long long)t, err);
		steer_log(STEER_LOG_ERROR, "replay of %s: %s", r->name, why);
	}
	stop(r, why);
	server_rearm_clock(r->srv); /* the world's own rate again, not --speed's */
	return false;
}

replay *replay_open(server *s)
{
	const server_options *o = &s->opt;
	char dir[4200], err[512];
	if (journal_read_dir(o->replay, o->data_dir, dir, sizeof dir, err, sizeof err) !=
	    STEER_OK) {
		steer_log(STEER_LOG_ERROR, "--replay: %s", err);
		return NULL;
	}
	replay *r = calloc(1, sizeof *r);
	if (!r) {
		steer_log(STEER_LOG_ERROR, "--replay: out of memory");
		return NULL;
	}
	r->srv = s;
	snprintf(r->name, sizeof r->name, "%s", o->replay);
	r->has_until = o->has_until;
	r->until = o->until;
	r->speed = o->speed;
	r->writable = o->writable;
	steer_strbuf_init(&r->lines);
	r->reader = journal_read_open(dir, JOURNAL_FROM_OLDEST, err, sizeof err);
	bool paused;
	steer_world *w = r->reader ? journal_read_world(r->reader, &paused, err, sizeof err) : NULL;
	if (!w) {
		steer_log(STEER_LOG_ERROR, "--replay %s: %s", o->replay, err);
		replay_free(r);
		return NULL;
	}
	steer_world_set_max_vehicles(w, o->max_vehicles);
	s->session.world = w;
	steer_log(STEER_LOG_INFO, "replaying %s (%s) from tick %llu%s at %gx speed%s", o->replay,
	          dir, (unsigned long long)steer_world_tick(w),
	          r->has_until ? " until --until" : "", r->speed,
	          r->writable ? ", writable" : ", read-only");
	return r;
}

void replay_free(replay *r)
{
	if (!r)
		return;
	drop_batch(r);
	free(r->items);
	steer_strbuf_free(&r->lines);
	journal_read_close(r->reader);
	free(r);
}

/* Commands that watch or move through the recording rather than change it. */
static bool viewing(const steer_command *cmd)
{
	static const char *const names[] = {"pause", "resume", "step",
	                                    "save",  "rewind", "goto-tick"};
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		if (!strcmp(cmd->entry->name, names[i]))
			return true;
	return false;
}

/* A client changed the world (--writable): the recording no longer applies. */
static void go_live(replay *r, const char *who)
{
	r->live = true;
	drop_batch(r);
	char what[400];
	snprintf(what, sizeof what,
	         "changed the world at tick %llu: the replay of %s ended there, the world is "
	         "live",
	         (unsigned long long)steer_world_tick(r->srv->session.world), r->name);
	conn_announce(r->srv, NULL, who, what);
	server_rearm_clock(r->srv); /* the world's own rate again, not --speed's */
}

bool replay_allows(replay *r, const steer_command *cmd, const char *who, steer_reply *out)
{
	if (!r || r->live || !steer_cmd_writes(cmd) || viewing(cmd))
		return true;
	if (r->writable) {
		/* A load's world arrives later, from the disk: the replay ends as it starts. */
		if (!strcmp(cmd->entry->name, "load"))
			go_live(r, who);
		return true;
	}
	out->ok = false;
	snprintf(out->error, sizeof out->error,
	         "read-only: this server replays the journal %.80s; pause, resume, step, save, "
	         "rewind and goto-tick work (start it with --writable to change the world, which "
	         "ends the replay)",
	         r->name);
	return false;
}

void replay_after_command(replay *r, const steer_command *cmd, const steer_reply *reply,
                          const char *who)
{
	if (r && !r->live && reply->ok && steer_cmd_writes(cmd) && !viewing(cmd))
		go_live(r, who);
}

double replay_speed(const replay *r)
{
	return r && !r->live && !r->ended ? r->speed : 1.0;
}

void replay_stats(const replay *r, steer_strbuf *json)
{
	if (!r)
		return;
	steer_strbuf_puts(json, ",\"replay\":{\"journal\":");
	steer_json_str(json, r->name);
	steer_strbuf_printf(json,
	                    ",\"state\":\"%s\",\"commands_applied\":%llu,\"worlds_replaced\":%llu,"
	                    "\"writable\":%s,\"speed\":",
	                    r->live    ? "live"
	                    : r->ended ? "ended"
	                               : "playing",
	                    (unsigned long long)r->applied, (unsigned long long)r->worlds,
	                    r->writable ? "true" : "false");
	steer_json_num(json, r->speed);
	steer_strbuf_puts(json, ",\"until\":");
	if (r->has_until)
		steer_strbuf_printf(json, "%llu", (unsigned long long)r->until);
	else
		steer_strbuf_puts(json, "null");
	steer_strbuf_puts(json, "}");
}
