/* The server's services to the command table (steer_host): saves and loads in the data
 * directory, names, the clients list, tokens, the stats the server adds, rewind. */
#include "server.h"

#include <math.h>
#include <stdio.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdlib.h>
#include <string.h>

#include "conn.h"
#include "history.h"
#include "jobs.h"
#include "journal.h"
#include "log.h"
#include "ranks.h"
#include "replay.h"
#include "savefile.h"
#include "scenario.h"
#include "serve.h"
#include "share.h"
#include "statedir.h"
#include "storage.h"

/* --- host services for the command table ------------------------------------------- */

steer_status server_host_save(void *ud, const char *name, const char *data, size_t len, char *err,
                              size_t errlen)
{
	server *s = ud;
	steer_status st = storage_write(s->opt.data_dir, name, data, len, err, errlen);
	if (st != STEER_OK)
		return st;
	steer_log(STEER_LOG_INFO, "saved '%s' (%zu bytes) in %s", name, len, s->opt.data_dir);
	return STEER_OK;
}

static steer_status host_load(void *ud, const char *name, char **data, size_t *len, char *err,
                              size_t errlen)
{
	server *s = ud;
	return storage_read(s->opt.data_dir, name, data, len, err, errlen);
}

static steer_status host_saves(void *ud, steer_strbuf *json, char *err, size_t errlen)
{
	server *s = ud;
	return storage_list(s->opt.data_dir, json, err, errlen);
}

static steer_status host_set_name(void *ud, void *caller, const char *name, char *err,
                                  size_t errlen)
{
	conn *c = caller;
	(void)ud;
	if (!c) {
		snprintf(err, errlen, "no connection to name");
		return STEER_ERR_NOENT;
	}
	/* Names need not be unique: the id in 'clients' tells two bobs apart. */
	steer_log(STEER_LOG_INFO, "client %llu (%s) is now '%s'", (unsigned long long)c->id,
	          c->peer, name);
	snprintf(c->name, sizeof c->name, "%s", name);
	return STEER_OK;
}

static void host_clients(void *ud, void *caller, steer_strbuf *json)
{
	server *s = ud;
	conn *last = s->conns;
	while (last && last->next)
		last = last->next;
	/* The list is newest first: walk it backwards, oldest (lowest id) first. */
	steer_strbuf_puts(json, "{\"clients\":[");
	bool first = true;
	for (conn *c = last; c; c = c->prev) {
		if (c->closing)
			continue;
		steer_strbuf_printf(json, "%s{\"id\":%llu,\"name\":", first ? "" : ",",
		                    (unsigned long long)c->id);
		first = false;
		if (c->name[0])
			steer_json_str(json, c->name);
		else
			steer_strbuf_puts(json, "null");
		steer_strbuf_puts(json, ",\"address\":");
		steer_json_str(json, c->peer);
		steer_strbuf_printf(json, ",\"kind\":\"%s\",\"access\":\"%s\"",
		                    c->web                  ? "web"
		                    : c->kind == CONN_PROTO ? "proto"
		                                            : "text",
		                    c->may_write   ? "write"
		                    : c->may_watch ? "read"
		                                   : "none");
		if (c->kind == CONN_PROTO) {
			steer_strbuf_puts(json, ",\"view\":");
			if (c->view.set) {
				double v[4] = {c->view.x0, c->view.y0, c->view.x1, c->view.y1};
				steer_json_nums(json, v, 4);
			} else {
				steer_strbuf_puts(json, "null"); /* the whole world */
			}
		}
		if (c == caller)
			steer_strbuf_puts(json, ",\"you\":true");
		steer_strbuf_puts(json, "}");
	}
	steer_strbuf_puts(json, "]}");
}

bool server_check_token(const server *s, const char *token)
{
	if (!s->opt.has_token)
		return false;
	/* Every byte of both, always: the time taken says nothing about how much of a
	 * guess was right. Both buffers are at least 65 bytes once copied. */
	char given[sizeof s->opt.token] = {0};
	size_t n = strnlen(token, sizeof given);
	if (n == sizeof given)
		return false;
	memcpy(given, token, n);
	unsigned char diff = 0;
	for (size_t i = 0; i < sizeof given; i++)
		diff |= (unsigned char)(given[i] ^ s->opt.token[i]);
	return diff == 0;
}

/* The count that makes c wait longest right now: its own, its address's or its
 * network's. */
static auth_count *auth_blocker(server *s, conn *c, uint64_t now, uint64_t *wait)
{
	auth_addr net = auth_addr_net(&c->addr);
	auth_count *addr = auth_table_find(&s->auth_guard.addrs, &c->addr);
	auth_count *nets = auth_table_find(&s->auth_guard.nets, &net);
	auth_count *k = &c->auth;
	if (addr && auth_count_wait(addr, now) > auth_count_wait(k, now))
		k = addr;
	if (nets && auth_count_wait(nets, now) > auth_count_wait(k, now))
		k = nets;
	*wait = auth_count_wait(k, now);
	return k;
}

int server_auth(server *s, conn *c, const char *token, char *err, size_t errlen)
{
	uint64_t now = uv_now(s->loop), wait;
	auth_count *blocker = auth_blocker(s, c, now, &wait);
	if (wait > 0) {
		/* Refused unchecked. Logged once per backoff: a client repeating itself
		 * cannot fill the log. */
		blocker->refused++;
		if (!blocker->refusal_logged)
			steer_log(STEER_LOG_WARN,
			          "client %llu (%s): auth refused for %.1f s more (too many wrong "
			          "tokens); further refusals until then are counted, not logged",
			          (unsigned long long)c->id, c->peer, (double)wait / 1000.0);
		blocker->refusal_logged = true;
		snprintf(err, errlen,
		         "too many wrong tokens: auth is refused for %.1f s more; this connection "
		         "stays read-only",
		         (double)wait / 1000.0);
		return -1;
	}
	if (server_check_token(s, token)) {
		conn_grant(c);
		memset(&c->auth, 0, sizeof c->auth);
		return 0;
	}
	auth_addr netkey = auth_addr_net(&c->addr);
	auth_count *addr = auth_table_get(&s->auth_guard.addrs, &c->addr, now);
	auth_count *net = auth_table_get(&s->auth_guard.nets, &netkey, now);
	uint64_t refused = addr->refused + c->auth.refused + net->refused;
	uint64_t b_conn = auth_count_fail(&c->auth, now), b_addr = auth_count_fail(addr, now);
	uint64_t b_net = auth_net_fail(net, now);
	uint64_t backoff = b_conn > b_addr ? b_conn : b_addr;
	if (b_net > backoff)
		backoff = b_net;
	uint32_t n = c->auth.failures > addr->failures ? c->auth.failures : addr->failures;
	char after[64] = "", meanwhile[64] = "";
	if (backoff)
		snprintf(after, sizeof after, "; auth is refused for the next %.0f s",
		         (double)backoff / 1000.0);
	if (refused)
		snprintf(meanwhile, sizeof meanwhile, " (%llu attempts refused since the last)",
		         (unsigned long long)refused);
	steer_log(STEER_LOG_WARN,
	          "client %llu (%s): wrong token (%u in a row from its address)%s%s",
	          (unsigned long long)c->id, c->peer, n, after, meanwhile);
	snprintf(err, errlen,
	         "wrong token (%u in a row from this address)%s; this connection stays read-only",
	         n, after);
	return -1;
}

static steer_status host_auth(void *ud, void *caller, const char *token, char *err, size_t errlen)
{
	return server_auth(ud, caller, token, err, errlen) == 0 ? STEER_OK : STEER_ERR_ACCESS;
}

/* What serving snapshots costs and who it holds back (fanout.c), and the replies
 * queued: for an operator to see hostile or slow clients. */
static void snapshot_stats(const server *s, steer_strbuf *json)
{
	double p50, p99;
	timings_percentiles(&s->encode_ms, uv_hrtime(), &p50, &p99);
	steer_strbuf_puts(json, ",\"snapshot_encode_ms_p50\":");
	steer_json_num(json, p50);
	steer_strbuf_puts(json, ",\"snapshot_encode_ms_p99\":");
	steer_json_num(json, p99);
	steer_strbuf_printf(json,
	                    ",\"snapshot_ticks\":%llu,\"snapshot_encodings_last\":%zu,"
	                    "\"snapshot_bytes_queued\":%zu,"
	                    "\"reply_bytes_queued\":%zu,\"clients_throttled\":%zu,"
	                    "\"snapshots_throttled\":%llu,\"commands_throttled\":%llu",
	                    (unsigned long long)s->snapshot_ticks, s->encodings_last,
	                    s->snapshot_live, s->reply_queued, s->clients_throttled,
	                    (unsigned long long)s->snapshots_throttled,
	                    (unsigned long long)s->turns_throttled);
}

static void host_stats(void *ud, steer_strbuf *json)
{
	server *s = ud;
	double p50, p99;
	timings_percentiles(&s->tick_ms, uv_hrtime(), &p50, &p99);
	size_t proto = 0, text = 0, queued_max = 0;
	uint64_t replaced = 0;
	for (conn *c = s->conns; c; c = c->next) {
		*(c->kind == CONN_PROTO ? &proto : &text) += 1;
		size_t q = uv_stream_get_write_queue_size((uv_stream_t *)&c->tcp) +
		           (c->pending ? c->pending->len : 0);
		queued_max = q > queued_max ? q : queued_max;
		replaced += c->snapshots_replaced;
	}
	steer_strbuf_printf(json, ",\"clients\":%zu,\"proto_clients\":%zu,\"cmd_clients\":%zu",
	                    proto + text, proto, text);
	/* What the slowest reader has waiting: bounded by design, watched by tests. */
	steer_strbuf_printf(json, ",\"queued_bytes_max\":%zu,\"snapshots_replaced\":%llu",
	                    queued_max, (unsigned long long)replaced);
	steer_strbuf_puts(json, ",\"tick_ms_p50\":");
	steer_json_num(json, p50);
	steer_strbuf_puts(json, ",\"tick_ms_p99\":");
	steer_json_num(json, p99);
	steer_strbuf_puts(json, ",\"snapshot_rate\":");
	steer_json_num(json, s->opt.snapshot_rate);
	steer_strbuf_printf(
	    json,
	    ",\"ticks_dropped\":%llu,\"snapshots_encoded\":%llu,"
	    "\"snapshot_bytes\":%llu,\"compact_encoded\":%llu,"
	    "\"compact_keyframes\":%llu,\"density_encoded\":%llu,\"uptime_s\":",
	    (unsigned long long)s->ticks_dropped, (unsigned long long)s->snapshots_encoded,
	    (unsigned long long)s->snapshot_bytes, (unsigned long long)s->compact_encoded,
	    (unsigned long long)s->compact_keyframes, (unsigned long long)s->density_encoded);
	steer_json_num(json, (double)(uv_hrtime() - s->started_ns) / 1e9);
	snapshot_stats(s, json);
	journal_stats(s->journal, json);
	replay_stats(s->replay, json);
	history_stats(s->history, s->session.world, json);
	if (s->ranks)
		ranks_stats_json(s->ranks, json);
}

/* rewind / goto-tick all at once: the server runs them as jobs (jobs.c) instead. */
static steer_status host_history(void *ud, const steer_command *cmd, steer_session *ss,
                                 steer_reply *r)
{
	server *s = ud;
	return history_goto_now(s->history, cmd, ss, r);
}

static void host_rate_changed(void *ud)
{
	server *s = ud;
	server_rearm_clock(s);
	steer_log(STEER_LOG_INFO, "tick rate now %g Hz",
	          steer_world_config_get(s->session.world)->tick_rate);
}

steer_host server_host(server *s, bool auth)
{
	return (steer_host){.ud = s,
	                    .save = server_host_save,
	                    .load = host_load,
	                    .stats = host_stats,
	                    .rate_changed = host_rate_changed,
	                    .auth = auth ? host_auth : NULL,
	                    .saves = host_saves,
	                    .set_name = host_set_name,
	                    .clients = host_clients,
	                    .history = host_history};
}
