/* Commands on the session: help, save, load, saves, name, clients, auth, quit. */
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

steer_status steer_cmd_parse_help(steer_command *c, int argc, char **argv, char *err, size_t errlen)
{
	char q[STEER_QUOTE_SIZE];
	if (argc == 2) {
		if (!steer_cmd_find(argv[1]))
			return steer_cmd_fail(err, errlen, "no command '%s'",
			                      steer_quote_cut(argv[1], q));
		snprintf(c->name, sizeof c->name, "%s", argv[1]);
	}
	return STEER_OK;
}

steer_status steer_cmd_run_help(const steer_command *c, steer_session *s, const steer_host *h,
                                steer_reply *r)
{
	(void)s, (void)h;
	steer_strbuf *b = &r->json;
	if (c->name[0]) {
		const steer_cmd_entry *e = steer_cmd_find(c->name);
		steer_strbuf_puts(b, "{\"name\":");
		steer_json_str(b, e->name);
		steer_strbuf_puts(b, ",\"usage\":");
		char usage[256];
		snprintf(usage, sizeof usage, "%s%s%s", e->name, e->usage[0] ? " " : "", e->usage);
		steer_json_str(b, usage);
		steer_strbuf_puts(b, ",\"help\":");
		steer_json_str(b, e->help);
		if (!strcmp(e->name, "set") || !strcmp(e->name, "spawn")) {
			steer_strbuf_puts(b, ",\"keys\":{\"vx\":\"initial velocity x\",\"vy\":"
			                     "\"initial velocity y\"");
			for (size_t k = 0; k < steer_param_count; k++) {
				steer_strbuf_puts(b, ",");
				steer_json_str(b, steer_param_defs[k].name);
				steer_strbuf_puts(b, ":");
				steer_json_str(b, steer_param_defs[k].help);
			}
			steer_strbuf_puts(b, "}");
		}
		steer_strbuf_puts(b, "}");
		return STEER_OK;
	}
	steer_strbuf_puts(b, "{\"commands\":[");
	for (size_t k = 0; k < steer_cmd_count; k++) {
		const steer_cmd_entry *e = &steer_cmd_table[k];
		char usage[256];
		snprintf(usage, sizeof usage, "%s%s%s", e->name, e->usage[0] ? " " : "", e->usage);
		if (k)
			steer_strbuf_puts(b, ",");
		steer_json_str(b, usage);
	}
	/* What each does, by name: a client can lay the list out as it likes. */
	steer_strbuf_puts(b, "],\"about\":{");
	for (size_t k = 0; k < steer_cmd_count; k++) {
		if (k)
			steer_strbuf_puts(b, ",");
		steer_json_str(b, steer_cmd_table[k].name);
		steer_strbuf_puts(b, ":");
		steer_json_str(b, steer_cmd_table[k].help);
	}
	steer_strbuf_puts(b, "},\"scenarios\":[");
	for (int k = 0; steer_scenario_names[k]; k++) {
		if (k)
			steer_strbuf_puts(b, ",");
		steer_json_str(b, steer_scenario_names[k]);
	}
	steer_strbuf_puts(b, "]}");
	return STEER_OK;
}

bool steer_save_name_ok(const char *name)
{
	size_t n = strlen(name);
	if (n == 0 || n > STEER_NAME_MAX || name[0] == '.')
		return false;
	for (size_t i = 0; i < n; i++) {
		char ch = name[i];
		bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		          (ch >= '0' && ch <= '9') || ch == '.' || ch == '_' || ch == '-';
		if (!ok)
			return false;
	}
	return true;
}

steer_status steer_cmd_parse_save_name(steer_command *c, int argc, char **argv, char *err,
                                       size_t errlen)
{
	if (steer_cmd_parse_name(c, argc, argv, err, errlen))
		return STEER_ERR_INVALID;
	if (!steer_save_name_ok(c->name))
		return steer_cmd_fail(
		    err, errlen, "NAME: use 1-64 of A-Z a-z 0-9 . _ - (not starting with '.')");
	return STEER_OK;
}

steer_status steer_cmd_run_save(const steer_command *c, steer_session *s, const steer_host *h,
                                steer_reply *r)
{
	if (!h || !h->save)
		return steer_reply_fail(r, "save is not available here");
	char *data;
	size_t len;
	steer_status st = steer_save_encode(s->world, &data, &len);
	if (st == STEER_ERR_LIMIT)
		return steer_reply_fail(
		    r,
		    "save %s: the world takes more than %u bytes, the most a save "
		    "may hold (load refuses larger files); nothing was written",
		    c->name, STEER_SAVE_MAX_BYTES);
	if (st != STEER_OK)
		return steer_reply_fail(
		    r, "out of memory while encoding the world; nothing was written");
	char msg[200];
	steer_status rc = h->save(h->ud, c->name, data, len, msg, sizeof msg);
	free(data);
	if (rc != STEER_OK) /* the host's writes leave the file as it was */
		return steer_reply_fail(r, "save %s: %s; nothing was written", c->name, msg);
	steer_strbuf_printf(&r->json, "{\"bytes\":%zu}", len);
	return STEER_OK;
}

steer_status steer_cmd_run_load(const steer_command *c, steer_session *s, const steer_host *h,
                                steer_reply *r)
{
	if (!h || !h->load)
		return steer_reply_fail(r, "load is not available here");
	char *data = NULL;
	size_t len = 0;
	char msg[200];
	if (h->load(h->ud, c->name, &data, &len, msg, sizeof msg) != STEER_OK)
		return steer_reply_fail(r, "load %s: %s", c->name, msg);
	steer_world *loaded = steer_save_decode(data, len, msg, sizeof msg);
	free(data);
	if (!loaded)
		return steer_reply_fail(r, "load %s: %s; the running world is unchanged", c->name,
		                        msg);
	return steer_cmd_load_swap(c, s, h, loaded, r);
}

steer_status steer_cmd_load_swap(const steer_command *c, steer_session *s, const steer_host *h,
                                 steer_world *loaded, steer_reply *r)
{
	size_t max = steer_world_config_get(s->world)->max_vehicles;
	if (max && steer_world_vehicles(loaded)->count > max) {
		size_t n = steer_world_vehicles(loaded)->count;
		steer_world_destroy(loaded);
		return steer_reply_fail(
		    r,
		    "load %s: %zu vehicles exceed --max-vehicles %zu; the running "
		    "world is unchanged",
		    c->name, n, max);
	}
	steer_world_set_max_vehicles(loaded, max);
	if (steer_world_set_threads(loaded, steer_world_threads(s->world)) != STEER_OK) {
		int n = steer_world_threads(s->world);
		steer_world_destroy(loaded);
		return steer_reply_fail(r,
		                        "load %s: cannot start the world's %d threads; the running "
		                        "world is unchanged",
		                        c->name, n);
	}
	/* A cap on the vector lanes (speed only) is the host's choice, like threads. */
	steer_world_set_simd(loaded, steer_world_simd(s->world));
	bool rate_changed = steer_world_config_get(loaded)->tick_rate !=
	                    steer_world_config_get(s->world)->tick_rate;
	steer_world_destroy(s->world);
	s->world = loaded;
	steer_session_stale(s);
	if (rate_changed && h && h->rate_changed)
		h->rate_changed(h->ud);
	steer_strbuf_printf(&r->json, "{\"tick\":%llu,\"vehicles\":%zu}",
	                    (unsigned long long)steer_world_tick(loaded),
	                    steer_world_vehicles(loaded)->count);
	return STEER_OK;
}

steer_status steer_cmd_run_saves(const steer_command *c, steer_session *s, const steer_host *h,
                                 steer_reply *r)
{
	(void)c, (void)s;
	if (!h || !h->saves)
		return steer_reply_fail(r, "saves is not available here");
	char msg[200];
	if (h->saves(h->ud, &r->json, msg, sizeof msg) != STEER_OK) {
		steer_strbuf_clear(&r->json);
		return steer_reply_fail(r, "saves: %s", msg);
	}
	return STEER_OK;
}

bool steer_client_name_ok(const char *name)
{
	size_t n = strlen(name);
	if (n == 0 || n > STEER_NAME_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if (name[i] <= ' ' || name[i] > '~')
			return false;
	return true;
}

steer_status steer_cmd_parse_client_name(steer_command *c, int argc, char **argv, char *err,
                                         size_t errlen)
{
	(void)argc;
	if (!steer_client_name_ok(argv[1]))
		return steer_cmd_fail(err, errlen,
		                      "NAME: use 1-%d printable ASCII characters without spaces",
		                      STEER_NAME_MAX);
	snprintf(c->name, sizeof c->name, "%s", argv[1]);
	return STEER_OK;
}

steer_status steer_cmd_run_name(const steer_command *c, steer_session *s, const steer_host *h,
                                steer_reply *r)
{
	(void)s;
	if (!h || !h->set_name)
		return steer_reply_fail(r, "name is not available here");
	char msg[200];
	if (h->set_name(h->ud, h->caller, c->name, msg, sizeof msg) != STEER_OK)
		return steer_reply_fail(r, "name: %s", msg);
	return STEER_OK;
}

steer_status steer_cmd_run_clients(const steer_command *c, steer_session *s, const steer_host *h,
                                   steer_reply *r)
{
	(void)c, (void)s;
	if (!h || !h->clients)
		return steer_reply_fail(r, "clients is not available here");
	h->clients(h->ud, h->caller, &r->json);
	return STEER_OK;
}

steer_status steer_cmd_parse_token(steer_command *c, int argc, char **argv, char *err,
                                   size_t errlen)
{
	(void)argc;
	if (strlen(argv[1]) > STEER_NAME_MAX)
		return steer_cmd_fail(err, errlen, "TOKEN: longer than %d characters",
		                      STEER_NAME_MAX);
	snprintf(c->name, sizeof c->name, "%s", argv[1]);
	return STEER_OK;
}

steer_status steer_cmd_run_auth(const steer_command *c, steer_session *s, const steer_host *h,
                                steer_reply *r)
{
	(void)s;
	if (!h || !h->auth)
		return steer_reply_fail(
		    r, "this server takes no token: everyone may already change the world");
	char msg[200];
	if (h->auth(h->ud, h->caller, c->name, msg, sizeof msg) != STEER_OK)
		return steer_reply_fail(r, "%s", msg);
	steer_strbuf_puts(&r->json, "{\"access\":\"write\"}");
	return STEER_OK;
}

steer_status steer_cmd_run_quit(const steer_command *c, steer_session *s, const steer_host *h,
                                steer_reply *r)
{
	(void)c, (void)s, (void)h;
	r->close = true;
	return STEER_OK;
}
