/* Commands on the world: pause, step, rewind and goto-tick, its size and rules,
 * rate, seed, reset, scenario, stats. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "behaviors.h"
#include "cmd_internal.h"
#include "format_cut.h"
#include "savefile.h"
#include "scenario.h"
#include "session_cache.h"
#include "steer/goto.h"
#include "targets.h"
#include "utf8.h"

steer_status steer_cmd_run_pause(const steer_command *c, steer_session *s, const steer_host *h,
                                 steer_reply *r)
{
	(void)h, (void)r;
	s->paused = !strcmp(c->entry->name, "pause");
	return STEER_OK;
}

steer_status steer_cmd_parse_step(steer_command *c, int argc, char **argv, char *err, size_t errlen)
{
	uint64_t n = 1;
	if (argc == 2 && steer_arg_u64("N", argv[1], STEER_CMD_MAX_STEP, &n, err, errlen))
		return STEER_ERR_INVALID;
	if (n == 0)
		return steer_cmd_fail(err, errlen, "N: step at least 1 tick");
	c->count = (uint32_t)n;
	return STEER_OK;
}

steer_status steer_cmd_run_step(const steer_command *c, steer_session *s, const steer_host *h,
                                steer_reply *r)
{
	(void)h;
	for (uint32_t k = 0; k < c->count; k++)
		if (steer_world_step(s->world) != STEER_OK)
			return steer_reply_fail(r, "out of memory after %u ticks", k);
	steer_strbuf_printf(&r->json, "{\"tick\":%llu}",
	                    (unsigned long long)steer_world_tick(s->world));
	return STEER_OK;
}

steer_status steer_cmd_parse_rewind(steer_command *c, int argc, char **argv, char *err,
                                    size_t errlen)
{
	(void)argc;
	if (steer_arg_u64("TICKS", argv[1], UINT64_MAX, &c->tick, err, errlen))
		return STEER_ERR_INVALID;
	if (c->tick == 0)
		return steer_cmd_fail(err, errlen, "TICKS: rewind at least 1 tick");
	return STEER_OK;
}

steer_status steer_cmd_parse_goto_tick(steer_command *c, int argc, char **argv, char *err,
                                       size_t errlen)
{
	(void)argc;
	if (!strcmp(argv[1], "live")) {
		c->sub = 1;
		return STEER_OK;
	}
	return steer_arg_u64("T", argv[1], UINT64_MAX, &c->tick, err, errlen) ? STEER_ERR_INVALID
	                                                                      : STEER_OK;
}

/* rewind, goto-tick: the history is the host's. */
steer_status steer_cmd_run_history(const steer_command *c, steer_session *s, const steer_host *h,
                                   steer_reply *r)
{
	if (!h || !h->history)
		return steer_reply_fail(r, "%s is not available here", c->entry->name);
	return h->history(h->ud, c, s, r);
}

/* world [W H] [wrap|bounce|none] [solid on|off] [contain on|off]: what is not given
 * stays as it is. */
steer_status steer_cmd_parse_world(steer_command *c, int argc, char **argv, char *err,
                                   size_t errlen)
{
	int k = 1;
	c->solid = c->contain = -1;
	if (argc >= 3 && strcmp(argv[1], "solid") != 0 && strcmp(argv[1], "contain") != 0 &&
	    steer_edges_parse(argv[1], &c->edges) != STEER_OK) {
		if (steer_arg_num("W", argv[1], &c->x, err, errlen) ||
		    steer_arg_num("H", argv[2], &c->y, err, errlen))
			return STEER_ERR_INVALID;
		if (!(c->x >= 1) || !(c->y >= 1))
			return steer_cmd_fail(err, errlen, "W and H must be at least 1");
		c->has_size = true;
		k = 3;
	}
	for (; k < argc; k++) {
		int8_t *rule = !strcmp(argv[k], "solid")     ? &c->solid
		               : !strcmp(argv[k], "contain") ? &c->contain
		                                             : NULL;
		if (rule) {
			bool on = false;
			if (k + 1 >= argc)
				return steer_cmd_fail(err, errlen, "%s: give on or off", argv[k]);
			if (*rule >= 0)
				return steer_cmd_fail(err, errlen, "%s: given twice", argv[k]);
			if (steer_arg_onoff(argv[k + 1], &on, err, errlen))
				return STEER_ERR_INVALID;
			*rule = on;
			k++;
		} else if (!c->has_edges && steer_edges_parse(argv[k], &c->edges) == STEER_OK) {
			c->has_edges = true;
		} else {
			char q[STEER_QUOTE_SIZE];
			return steer_cmd_fail(
			    err, errlen,
			    "'%s': want W H, then edges (wrap|bounce|none), solid on|off, "
			    "contain on|off",
			    steer_quote_cut(argv[k], q));
		}
	}
	return STEER_OK;
}

/* `world` alone: a question, not a change. */
bool steer_cmd_world_query(const steer_command *c)
{
	return c->entry->exec == steer_cmd_run_world && !c->has_size && !c->has_edges &&
	       c->solid < 0 && c->contain < 0;
}

/* The world's bounds and rules as JSON members (width, height, edges, solid,
 * contain), for `world` and `stats`. */
static void world_bounds_json(steer_strbuf *b, const steer_world_config *cfg)
{
	steer_strbuf_puts(b, "\"width\":");
	steer_json_num(b, cfg->width);
	steer_strbuf_puts(b, ",\"height\":");
	steer_json_num(b, cfg->height);
	steer_strbuf_printf(b, ",\"edges\":\"%s\",\"solid\":%s,\"contain\":%s",
	                    steer_edges_name(cfg->edges), cfg->solid ? "true" : "false",
	                    cfg->contain ? "true" : "false");
}

/* The settings `world` (and rate, seed) can change, as a reply. */
static void world_settings(steer_strbuf *b, const steer_world_config *cfg)
{
	steer_strbuf_puts(b, "{");
	world_bounds_json(b, cfg);
	steer_strbuf_puts(b, ",\"tick_rate\":");
	steer_json_num(b, cfg->tick_rate);
	steer_strbuf_puts(b, ",\"dt\":");
	steer_json_num(b, 1.0 / cfg->tick_rate);
	steer_strbuf_printf(b, ",\"seed\":%llu,\"max_vehicles\":%zu}",
	                    (unsigned long long)cfg->seed, cfg->max_vehicles);
}

steer_status steer_cmd_run_world(const steer_command *c, steer_session *s, const steer_host *h,
                                 steer_reply *r)
{
	(void)h;
	const steer_world_config *now = steer_world_config_get(s->world);
	if (steer_cmd_world_query(c)) {
		world_settings(&r->json, now);
		return STEER_OK;
	}
	steer_edges e = c->has_edges ? c->edges : now->edges;
	double width = c->has_size ? c->x : now->width;
	double height = c->has_size ? c->y : now->height;
	if (steer_world_set_bounds(s->world, width, height, e) != STEER_OK) {
		char msg[160];
		steer_world_config cfg = *now;
		cfg.width = width;
		cfg.height = height;
		cfg.edges = e;
		if (steer_world_config_check(&cfg, msg, sizeof msg) == STEER_OK)
			snprintf(
			    msg, sizeof msg,
			    "a vehicle or circle is too large for a %s world of %g x %g (radius "
			    "at most %g); the world is unchanged",
			    steer_edges_name(e), width, height, steer_world_radius_max(&cfg));
		return steer_reply_fail(r, "%s", msg);
	}
	if (c->solid >= 0)
		steer_world_set_solid(s->world, c->solid);
	if (c->contain >= 0 && steer_world_set_contain(s->world, c->contain) != STEER_OK)
		return steer_reply_fail(r, "out of memory");
	return STEER_OK;
}

steer_status steer_cmd_parse_rate(steer_command *c, int argc, char **argv, char *err, size_t errlen)
{
	(void)argc;
	if (steer_arg_num("HZ", argv[1], &c->rate, err, errlen))
		return STEER_ERR_INVALID;
	if (!(c->rate >= 1 && c->rate <= 1000))
		return steer_cmd_fail(err, errlen, "HZ: tick rate must be 1..1000");
	return STEER_OK;
}

steer_status steer_cmd_run_rate(const steer_command *c, steer_session *s, const steer_host *h,
                                steer_reply *r)
{
	if (steer_world_set_tick_rate(s->world, c->rate) != STEER_OK)
		return steer_reply_fail(r, "tick rate must be 1..1000");
	if (h && h->rate_changed)
		h->rate_changed(h->ud);
	return STEER_OK;
}

steer_status steer_cmd_parse_seed(steer_command *c, int argc, char **argv, char *err, size_t errlen)
{
	(void)argc;
	return steer_arg_u64("N", argv[1], UINT64_MAX, &c->seed, err, errlen);
}

steer_status steer_cmd_run_seed(const steer_command *c, steer_session *s, const steer_host *h,
                                steer_reply *r)
{
	(void)h, (void)r;
	steer_world_set_seed(s->world, c->seed);
	return STEER_OK;
}

steer_status steer_cmd_run_reset(const steer_command *c, steer_session *s, const steer_host *h,
                                 steer_reply *r)
{
	(void)c, (void)h, (void)r;
	steer_world_reset(s->world);
	return STEER_OK;
}

steer_status steer_cmd_parse_name(steer_command *c, int argc, char **argv, char *err, size_t errlen)
{
	(void)argc;
	if (strlen(argv[1]) > STEER_NAME_MAX)
		return steer_cmd_fail(err, errlen, "NAME: longer than %d characters",
		                      STEER_NAME_MAX);
	snprintf(c->name, sizeof c->name, "%s", argv[1]);
	return STEER_OK;
}

steer_status steer_cmd_run_scenario(const steer_command *c, steer_session *s, const steer_host *h,
                                    steer_reply *r)
{
	(void)h;
	/* Tried first on a scratch world of the same bounds, so that a scenario that does
	 * not fit them changes nothing (loading one resets the world before it fails). */
	steer_world *trial = steer_world_create(steer_world_config_get(s->world));
	if (!trial)
		return steer_reply_fail(r, "out of memory; the world is unchanged");
	steer_status st = steer_scenario_load(trial, c->name);
	steer_world_destroy(trial);
	if (st == STEER_OK)
		st = steer_scenario_load(s->world, c->name);
	if (st == STEER_ERR_INVALID) {
		const steer_world_config *cfg = steer_world_config_get(s->world);
		return steer_reply_fail(
		    r,
		    "scenario %s does not fit a %s world of %g x %g (its bodies "
		    "are wider than it allows): make it larger with 'world W H'; "
		    "the world is unchanged",
		    c->name, steer_edges_name(cfg->edges), cfg->width, cfg->height);
	}
	if (st == STEER_ERR_NOENT) {
		char names[256] = "";
		for (int k = 0; steer_scenario_names[k]; k++) {
			strncat(names, " ", sizeof names - strlen(names) - 1);
			strncat(names, steer_scenario_names[k], sizeof names - strlen(names) - 1);
		}
		return steer_reply_fail(r, "no scenario '%s'; there are:%s", c->name, names);
	}
	return steer_reply_status(r, st, 0);
}

steer_status steer_cmd_run_stats(const steer_command *c, steer_session *s, const steer_host *h,
                                 steer_reply *r)
{
	(void)c;
	const steer_world *w = s->world;
	const steer_world_config *cfg = steer_world_config_get(w);
	world_counts n = steer_cmd_count_world(w);
	steer_strbuf *b = &r->json;
	steer_strbuf_printf(b,
	                    "{\"tick\":%llu,\"paused\":%s,\"vehicles\":%zu,\"obstacles\":%zu,"
	                    "\"walls\":%zu,\"polygons\":%zu,\"seed\":%llu,\"tick_rate\":",
	                    (unsigned long long)steer_world_tick(w), s->paused ? "true" : "false",
	                    n.vehicles + steer_session_elsewhere(s), n.obstacles, n.walls,
	                    n.polygons, (unsigned long long)cfg->seed);
	steer_json_num(b, cfg->tick_rate);
	steer_strbuf_puts(b, ",");
	world_bounds_json(b, cfg);
	steer_strbuf_printf(b, ",\"threads\":%d,\"simd\":\"%s\"", steer_world_threads(w),
	                    steer_simd_name(steer_world_simd(w)));
	steer_session_cache *cache = s->cache;
	if (cache && (!cache->health_valid || cache->health_tick != steer_world_tick(w))) {
		cache->health = steer_world_flock_health(w);
		cache->health_tick = steer_world_tick(w);
		cache->health_valid = true;
	}
	steer_flock_health fh = cache ? cache->health : steer_world_flock_health(w);
	steer_strbuf_printf(b, ",\"flockers\":%zu,\"flock_mean_speed\":", fh.flockers);
	steer_json_num(b, fh.mean_speed);
	steer_strbuf_puts(b, ",\"flock_polarization\":");
	steer_json_num(b, fh.polarization);
	if (h && h->stats)
		h->stats(h->ud, b);
	steer_strbuf_puts(b, "}");
	return STEER_OK;
}
