#include "history.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "reserve.h"
#include "session_cache.h"
#include "world_record.h"

/* --- checkpoints: the world as records ------------------------------------------- */

/* Everything a save file holds, as the world's records in bytes (sim/world_record.h:
 * a few copies a vehicle, where a save's text costs a second at 100,000 vehicles),
 * restored the way a save is, so that the world continues exactly as a loaded one
 * does. */
struct history_image {
	steer_world_config cfg;
	steer_world_meta meta;
	steer_pack records;
	size_t bytes;
};

void history_image_free(history_image *img)
{
	if (!img)
		return;
	steer_pack_free(&img->records);
	free(img);
}

size_t history_image_bytes(const history_image *img)
{
	return img->bytes;
}

history_image *history_image_take(const steer_world *w)
{
	history_image *img = calloc(1, sizeof *img);
	if (!img)
		return NULL;
	img->cfg = *steer_world_config_get(w);
	img->meta = steer_world_meta_get(w);
	steer_pack_init(&img->records);
	if (steer_pack_world(&img->records, w) != STEER_OK) {
		history_image_free(img);
		return NULL;
	}
	/* Kept for minutes: without the slack the bytes grew with. */
	steer_blob *b = &img->records.bytes;
	uint8_t *fit = realloc(b->data, b->len ? b->len : 1);
	if (fit) {
		b->data = fit;
		b->cap = b->len;
	}
	img->bytes = sizeof *img + img->records.bytes.cap +
	             img->records.set_map_cap * sizeof *img->records.set_map;
	return img;
}

/* Restores up to n more records of the image into w, and ends the world after the
 * last (*done). */
static steer_status restore_some(const history_image *img, steer_unpacker *u, steer_world *w,
                                 size_t n, bool *done, char *err, size_t errlen)
{
	steer_status st = STEER_OK;
	for (size_t k = 0; k < n && st == STEER_OK && !steer_unpacker_done(u); k++)
		st = steer_unpack_next(u, w, NULL, err, errlen);
	*done = st == STEER_OK && steer_unpacker_done(u);
	if (*done)
		st = steer_record_finish(w, &img->meta);
	return st;
}

static void unpacker_for(steer_unpacker *u, const history_image *img)
{
	steer_unpacker_init(u, img->records.bytes.data, img->records.bytes.len, STEER_UNPACK_REFUSE,
	                    true);
}

steer_world *history_image_world(const history_image *img)
{
	steer_world *w = steer_world_create(&img->cfg);
	if (!w)
		return NULL;
	steer_unpacker u;
	unpacker_for(&u, img);
	char err[200];
	bool done;
	steer_status st = restore_some(img, &u, w, SIZE_MAX, &done, err, sizeof err);
	steer_unpacker_free(&u);
	if (st != STEER_OK) {
		steer_world_destroy(w);
		return NULL;
	}
	return w;
}

/* --- the history ------------------------------------------------------------------ */

typedef struct checkpoint {
	uint64_t tick;
	history_image *img;
} checkpoint;

typedef struct recorded {
	uint64_t stamp;
	steer_command cmd;
} recorded;

struct history {
	size_t budget, bytes;
	double every_s;
	checkpoint *ck; /* oldest first */
	size_t nck, ck_cap;
	recorded *cmds; /* by stamp, in the order applied */
	size_t ncmds, cmds_cap;
	uint64_t last_ck_tick;
	bool past;
	uint64_t live_tick;
	unsigned seeks;      /* seeks under way: nothing is dropped meanwhile */
	uint64_t generation; /* moves when history restarts or forks: seeks begun before fail */
	unsigned forks;      /* names the discarded futures */
	char forked_as[64];  /* history_before forked: the name, for history_after's reply */
	uint64_t forked_tick, forked_live;
	history_image *before; /* the world before a command that may fork */
	void (*rate_changed)(void *);
	void *rate_ud;
	bool too_big_logged;
	size_t last_image_bytes;
	history_fork_fn fork_fn; /* tells the journal of a fork; NULL: no one */
	void *fork_ud;
};

history *history_new(size_t budget, double every_s)
{
	history *h = calloc(1, sizeof *h);
	if (!h)
		return NULL;
	h->budget = budget;
	h->every_s = every_s > 0 ? every_s : 2.0;
	return h;
}

static void drop_checkpoint(history *h, size_t i)
{
	h->bytes -= history_image_bytes(h->ck[i].img);
	history_image_free(h->ck[i].img);
	memmove(h->ck + i, h->ck + i + 1, (h->nck - i - 1) * sizeof *h->ck);
	h->nck--;
}

/* Drops the commands stamped before `tick` (from the front) or from `tick` on. */
static void drop_commands(history *h, uint64_t tick, bool before)
{
	size_t k = 0;
	while (k < h->ncmds && h->cmds[k].stamp < tick)
		k++;
	size_t gone = before ? k : h->ncmds - k;
	if (before && k)
		memmove(h->cmds, h->cmds + k, (h->ncmds - k) * sizeof *h->cmds);
	h->ncmds -= gone;
	h->bytes -= gone * sizeof *h->cmds;
}

static void forget(history *h)
{
	while (h->nck)
		drop_checkpoint(h, h->nck - 1);
	h->bytes -= h->ncmds * sizeof *h->cmds;
	h->ncmds = 0;
	h->past = false;
	h->generation++;
}

void history_free(history *h)
{
	if (!h)
		return;
	forget(h);
	history_image_free(h->before);
	free(h->ck);
	free(h->cmds);
	free(h);
}

/* Keeps within the budget by dropping the oldest checkpoints (and the commands only
 * they needed); never while a seek runs, which reads them. */
static void trim(history *h)
{
	while (h->bytes > h->budget && h->nck && !h->seeks) {
		drop_checkpoint(h, 0);
		drop_commands(h, h->nck ? h->ck[0].tick : UINT64_MAX, true);
	}
}

static void checkpoint_now(history *h, const steer_world *w)
{
	uint64_t tick = steer_world_tick(w);
	h->last_ck_tick = tick;
	if (h->budget == 0)
		return;
	history_image *img = history_image_take(w);
	if (!img ||
	    steer_reserve((void **)&h->ck, &h->ck_cap, h->nck + 1, sizeof *h->ck) != STEER_OK) {
		/* Rewinding then reaches only as far back as the checkpoints kept. */
		steer_log(STEER_LOG_ERROR, "rewind: out of memory taking a checkpoint");
		history_image_free(img);
		return;
	}
	h->last_image_bytes = history_image_bytes(img);
	if (h->last_image_bytes > h->budget && !h->too_big_logged) {
		steer_log(STEER_LOG_WARN,
		          "rewind: a checkpoint of this world takes %.1f MB, over "
		          "--rewind-memory %.1f MB: nothing can be rewound",
		          (double)h->last_image_bytes / 1048576.0, (double)h->budget / 1048576.0);
		h->too_big_logged = true;
	}
	h->ck[h->nck++] = (checkpoint){tick, img};
	h->bytes += h->last_image_bytes;
	trim(h);
}

void history_restart(history *h, const steer_world *w)
{
	forget(h);
	checkpoint_now(h, w);
}

/* Applies the recorded commands stamped at w's tick, in order. */
static void apply_stamped(const history *h, steer_world **w)
{
	uint64_t tick = steer_world_tick(*w);
	size_t lo = 0, hi = h->ncmds;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (h->cmds[mid].stamp < tick)
			lo = mid + 1;
		else
			hi = mid;
	}
	steer_session s = {.world = *w, .paused = true};
	for (size_t k = lo; k < h->ncmds && h->cmds[k].stamp == tick; k++) {
		steer_reply r;
		steer_reply_init(&r);
		/* They succeeded on the same world: they succeed again, to the same effect. */
		steer_cmd_exec(&h->cmds[k].cmd, &s, NULL, &r);
		steer_reply_free(&r);
	}
	*w = s.world;
}

void history_set_rate_hook(history *h, void (*rate_changed)(void *), void *ud)
{
	h->rate_changed = rate_changed;
	h->rate_ud = ud;
}

/* apply_stamped on the session's world, telling the host when a replayed rate
 * command changed the tick rate. */
static void apply_live(history *h, steer_session *s)
{
	double hz = steer_world_config_get(s->world)->tick_rate;
	apply_stamped(h, &s->world);
	if (steer_world_config_get(s->world)->tick_rate != hz && h->rate_changed)
		h->rate_changed(h->rate_ud);
}

steer_status history_step(history *h, steer_session *s)
{
	if (h->past) {
		apply_live(h, s);
		steer_status st = steer_world_step(s->world);
		if (st == STEER_OK && steer_world_tick(s->world) >= h->live_tick) {
			apply_live(h, s);
			h->past = false; /* live again */
		}
		return st;
	}
	steer_status st = steer_world_step(s->world);
	if (st == STEER_OK && h->budget && !h->seeks) {
		double every = h->every_s * steer_world_config_get(s->world)->tick_rate;
		if ((double)(steer_world_tick(s->world) - h->last_ck_tick) >= every)
			checkpoint_now(h, s->world);
	}
	return st;
}

/* The command changes the world (what the journal records, bar the ticks of step). */
static bool changes_world(const steer_command *cmd)
{
	static const char *const not [] = {"save",   "step", "auth",   "name",     "pause",
	                                   "resume", "quit", "rewind", "goto-tick"};
	if (!steer_cmd_writes(cmd))
		return false;
	for (size_t k = 0; k < sizeof not / sizeof *not ; k++)
		if (!strcmp(cmd->entry->name, not [k]))
			return false;
	return true;
}

static bool replaces_world(const steer_command *cmd)
{
	const char *n = cmd->entry->name;
	return !strcmp(n, "load") || !strcmp(n, "reset") || !strcmp(n, "scenario");
}

void history_set_fork_hook(history *h, history_fork_fn fn, void *ud)
{
	h->fork_fn = fn;
	h->fork_ud = ud;
}

/* Forks history at the session's tick: the journal starts afresh from the world as
 * it was before the command (before, or the session's world when NULL) and keeps the
 * old history; here the future goes. */
static void fork_here(history *h, const steer_session *s, const history_image *before)
{
	uint64_t tick = steer_world_tick(s->world);
	h->forked_tick = tick;
	h->forked_live = h->live_tick;
	snprintf(h->forked_as, sizeof h->forked_as, "rewound-%" PRIu64 "-%u", tick, ++h->forks);
	if (h->fork_fn) {
		steer_world *w = before ? history_image_world(before) : NULL;
		if (before && !w)
			steer_log(STEER_LOG_ERROR, "rewind: out of memory rebuilding the world "
			                           "before a fork for the journal");
		h->fork_fn(h->fork_ud, w ? w : s->world, h->forked_as, sizeof h->forked_as);
		steer_world_destroy(w);
	}
	/* The world at `tick` has none of the commands stamped `tick` yet: they and all
	 * after them are the discarded future; the checkpoint at `tick` still holds. */
	while (h->nck && h->ck[h->nck - 1].tick > tick)
		drop_checkpoint(h, h->nck - 1);
	drop_commands(h, tick, false);
	h->past = false;
	h->last_ck_tick = h->nck ? h->ck[h->nck - 1].tick : tick;
	h->generation++;
}

void history_before(history *h, steer_session *s, const steer_command *cmd)
{
	h->forked_as[0] = '\0';
	history_image_free(h->before);
	h->before = NULL;
	if (!h->past || !changes_world(cmd))
		return;
	/* load, reset and scenario replace the world whatever becomes of them. Any other
	 * command forks only when it succeeds (history_after): a mistyped id in the past
	 * keeps the future. The journal's new start is the world before it, kept here. */
	if (!replaces_world(cmd) && (h->before = history_image_take(s->world)))
		return;
	fork_here(h, s, NULL);
}

/* Adds a field to a reply's JSON object (or makes one). */
static void reply_field(steer_reply *r, const char *field)
{
	if (r->json.len && r->json.data[r->json.len - 1] == '}') {
		r->json.len--;
		steer_strbuf_printf(&r->json, "%s%s}", r->json.len > 1 ? "," : "", field);
	} else if (!r->json.len) {
		steer_strbuf_printf(&r->json, "{%s}", field);
	}
}

void history_after(history *h, steer_session *s, const steer_command *cmd, steer_reply *r)
{
	if (h->before) {
		if (r->ok && h->past)
			fork_here(h, s, h->before);
		history_image_free(h->before);
		h->before = NULL;
	}
	if (h->forked_as[0]) {
		char note[200];
		if (r->ok) {
			snprintf(note, sizeof note,
			         "\"forked\":{\"at_tick\":%" PRIu64 ",\"discarded_to\":%" PRIu64
			         ",\"kept_as\":\"%s\"}",
			         h->forked_tick, h->forked_live, h->forked_as);
			reply_field(r, note);
		} else {
			size_t n = strlen(r->error);
			snprintf(r->error + n, sizeof r->error - n,
			         " (history forked at tick %" PRIu64 ": the future to tick %" PRIu64
			         " is kept as journal %s)",
			         h->forked_tick, h->forked_live, h->forked_as);
		}
		h->forked_as[0] = '\0';
	}
	if (!r->ok || !changes_world(cmd))
		return;
	if (replaces_world(cmd)) {
		history_restart(h, s->world);
		return;
	}
	if (h->budget == 0 || !h->nck)
		return; /* nothing to replay them from */
	if (steer_reserve((void **)&h->cmds, &h->cmds_cap, h->ncmds + 1, sizeof *h->cmds) !=
	    STEER_OK) {
		/* Without it no tick before now can be rebuilt. */
		steer_log(STEER_LOG_ERROR,
		          "rewind: out of memory recording a command: the history kept is dropped");
		forget(h);
		return;
	}
	h->cmds[h->ncmds++] = (recorded){steer_world_tick(s->world), *cmd};
	h->bytes += sizeof *h->cmds;
	trim(h);
}

bool history_past(const history *h)
{
	return h->past;
}

bool history_would_fork(const history *h, const steer_command *cmd)
{
	return h && h->past && changes_world(cmd);
}

uint64_t history_live_tick(const history *h, const steer_world *w)
{
	return h->past ? h->live_tick : steer_world_tick(w);
}

static uint64_t oldest_tick(const history *h)
{
	return h->nck ? h->ck[0].tick : UINT64_MAX;
}

void history_stats(const history *h, const steer_world *w, steer_strbuf *json)
{
	steer_strbuf_printf(json,
	                    ",\"live_tick\":%" PRIu64 ",\"past\":%s,\"rewind_checkpoints\":%zu,"
	                    "\"rewind_commands\":%zu,\"rewind_bytes\":%zu",
	                    history_live_tick(h, w), h->past ? "true" : "false", h->nck, h->ncmds,
	                    h->bytes);
	if (h->nck)
		steer_strbuf_printf(json, ",\"oldest_tick\":%" PRIu64, oldest_tick(h));
}

/* --- seeking ------------------------------------------------------------------------ */

/* Records restored per turn of a seek: about a tick's time at 100,000 vehicles. */
#define RESTORE_SLICE 10000

struct history_seek {
	history *h;
	uint64_t generation, target;
	steer_world *w; /* being brought to target (owned); NULL: forward on the session */
	/* The checkpoint w is restored from, a slice of vehicles a turn (the ring keeps
	 * it while seeks run; a fork or a restart moves the generation first). */
	const history_image *img;
	steer_unpacker records;
	bool failed;
	char err[200];
	const char *verb; /* rewind / goto-tick */
};

static void where(const history *h, const steer_world *w, steer_reply *r)
{
	steer_strbuf_clear(&r->json);
	steer_strbuf_printf(&r->json, "{\"tick\":%" PRIu64 ",\"live_tick\":%" PRIu64 ",\"past\":%s",
	                    steer_world_tick(w), history_live_tick(h, w),
	                    h->past ? "true" : "false");
	if (h->nck)
		steer_strbuf_printf(&r->json, ",\"oldest_tick\":%" PRIu64, oldest_tick(h));
	steer_strbuf_puts(&r->json, "}");
}

history_seek *history_seek_begin(history *h, steer_session *s, const steer_command *cmd,
                                 steer_reply *r)
{
	bool rew = !strcmp(cmd->entry->name, "rewind");
	const char *verb = cmd->entry->name;
	uint64_t now = steer_world_tick(s->world), live = history_live_tick(h, s->world);
	uint64_t target;
	if (h->budget == 0) {
		steer_reply_fail(r, "%s: rewinding is off on this server (--rewind-memory 0)",
		                 verb);
		return NULL;
	}
	if (rew) {
		if (cmd->tick > now) {
			steer_reply_fail(r,
			                 "rewind %" PRIu64 ": the world is only at tick %" PRIu64
			                 "; the oldest tick kept is %" PRIu64,
			                 cmd->tick, now, oldest_tick(h));
			return NULL;
		}
		target = now - cmd->tick;
	} else {
		target = cmd->sub ? live : cmd->tick;
	}
	if (target > live) {
		steer_reply_fail(r, "goto-tick %" PRIu64 ": beyond the live tick %" PRIu64, target,
		                 live);
		return NULL;
	}
	if (target < oldest_tick(h) && target < now) {
		if (h->nck)
			steer_reply_fail(r,
			                 "%s: tick %" PRIu64
			                 " is no longer kept; the oldest tick kept "
			                 "is %" PRIu64 " (live tick %" PRIu64 ")",
			                 verb, target, oldest_tick(h), live);
		else
			steer_reply_fail(
			    r,
			    "%s: no checkpoint is kept (a checkpoint of this world needs "
			    "%zu MB; see --rewind-memory)",
			    verb, (h->last_image_bytes >> 20) + 1);
		return NULL;
	}
	if (target == now) {
		where(h, s->world, r);
		return NULL;
	}
	history_seek *k = calloc(1, sizeof *k);
	if (!k) {
		steer_reply_fail(r, "%s: out of memory", verb);
		return NULL;
	}
	k->h = h;
	k->generation = h->generation;
	k->target = target;
	k->verb = verb;
	/* The live world stops where it is while the other is made ready. */
	s->paused = true;
	if (target > now)
		return k; /* forward, past mode: ticks replay the recorded future */
	size_t i = h->nck;
	while (i > 0 && h->ck[i - 1].tick > target)
		i--;
	k->img = i ? h->ck[i - 1].img : NULL;
	k->w = k->img ? steer_world_create(&k->img->cfg) : NULL;
	if (!k->w || steer_world_set_threads(k->w, steer_world_threads(s->world)) != STEER_OK) {
		steer_world_destroy(k->w);
		free(k);
		steer_reply_fail(r, "%s: out of memory rebuilding tick %" PRIu64, verb, target);
		return NULL;
	}
	unpacker_for(&k->records, k->img);
	steer_world_set_simd(k->w, steer_world_simd(s->world));
	steer_world_set_max_vehicles(k->w, steer_world_config_get(s->world)->max_vehicles);
	h->seeks++;
	return k;
}

bool history_seek_run(history_seek *k, steer_session *s)
{
	history *h = k->h;
	if (k->generation != h->generation) {
		/* Back: the rebuilt world is dropped; forward: it stopped where it was. */
		snprintf(k->err, sizeof k->err,
		         "%s: the world's history changed meanwhile (reset, load, scenario or a "
		         "fork); the world is at tick %" PRIu64,
		         k->verb, steer_world_tick(s->world));
		k->failed = true;
		return true;
	}
	steer_world *w = k->w ? k->w : s->world;
	if (k->img) {
		/* A slice of the restore: the loop is never held for all of it. */
		bool done;
		char err[160];
		steer_status st =
		    restore_some(k->img, &k->records, k->w, RESTORE_SLICE, &done, err, sizeof err);
		if (done) {
			steer_unpacker_free(&k->records);
			k->img = NULL;
		}
		if (st != STEER_OK) {
			snprintf(k->err, sizeof k->err, "%s: cannot rebuild the checkpoint: %s",
			         k->verb, st == STEER_ERR_INVALID ? err : steer_status_str(st));
			k->failed = true;
			return true;
		}
		return false;
	}
	if (steer_world_tick(w) >= k->target)
		return true;
	steer_status st;
	if (k->w) {
		apply_stamped(h, &k->w);
		st = steer_world_step(k->w);
	} else {
		st = history_step(h, s);
	}
	if (st != STEER_OK) {
		snprintf(k->err, sizeof k->err, "%s: out of memory at tick %" PRIu64, k->verb,
		         steer_world_tick(w));
		k->failed = true;
	}
	return k->failed || steer_world_tick(k->w ? k->w : s->world) >= k->target;
}

void history_seek_abort(history_seek *k)
{
	if (!k)
		return;
	if (k->w) {
		k->h->seeks--;
		steer_world_destroy(k->w);
	}
	steer_unpacker_free(&k->records);
	free(k);
}

void history_seek_end(history_seek *k, steer_session *s, steer_reply *r,
                      void (*rate_changed)(void *), void *ud)
{
	history *h = k->h;
	if (!k->failed && k->generation != h->generation)
		history_seek_run(k, s); /* says why */
	if (k->failed) {
		steer_reply_fail(r, "%s", k->err);
	} else {
		if (k->w) {
			if (!h->past)
				h->live_tick = steer_world_tick(s->world);
			h->past = steer_world_tick(k->w) < h->live_tick;
			bool rate = steer_world_config_get(k->w)->tick_rate !=
			            steer_world_config_get(s->world)->tick_rate;
			steer_world_destroy(s->world);
			s->world = k->w;
			k->w = NULL;
			h->seeks--;
			steer_session_stale(s);
			if (rate && rate_changed)
				rate_changed(ud);
			trim(h);
		}
		s->paused = true;
		where(h, s->world, r);
	}
	history_seek_abort(k);
}

steer_status history_goto_now(history *h, const steer_command *cmd, steer_session *s,
                              steer_reply *r)
{
	history_seek *k = history_seek_begin(h, s, cmd, r);
	if (!k)
		return r->ok ? STEER_OK : STEER_ERR_REFUSED;
	while (!history_seek_run(k, s))
		;
	history_seek_end(k, s, r, NULL, NULL);
	return r->ok ? STEER_OK : STEER_ERR_REFUSED;
}
