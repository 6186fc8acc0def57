/* New connections, accepted on a port or adopted from the web relay: the peer's address,
 * the --max-clients limit, the Welcome (in full again once the token is shown). */
#include "conn.h"

#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "conn_internal.h"
#include "host_port.h"
#include "log.h"
#include "serve.h"

/* The peer's address, for the log and the auth guard; "?" when it has none. */
static void describe_peer(conn *c, const struct sockaddr_storage *ss)
{
	snprintf(c->peer, sizeof c->peer, "?");
	char host[48] = "?";
	int port = 0;
	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *a = (const struct sockaddr_in *)ss;
		uv_ip4_name(a, host, sizeof host);
		port = ntohs(a->sin_port);
		/* As ::ffff:a.b.c.d, the same key an IPv4 client of an IPv6 socket has. */
		c->addr.b[10] = c->addr.b[11] = 0xff;
		memcpy(&c->addr.b[12], &a->sin_addr, 4);
	} else if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)ss;
		uv_ip6_name(a, host, sizeof host);
		port = ntohs(a->sin6_port);
		static const uint8_t v4mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
		bool v4 = !memcmp(&a->sin6_addr, v4mapped, sizeof v4mapped);
		/* One host is usually given a whole /64: count it as one address. */
		memcpy(c->addr.b, &a->sin6_addr, v4 ? 16 : 8);
	}
	char port_text[8];
	snprintf(port_text, sizeof port_text, "%d", port);
	steer_host_port(c->peer, sizeof c->peer, host, port_text);
}

/* On a private server, a connection that has not shown the token learns nothing
 * about the world: it gets a Welcome without it, and the full one after auth. */
static void send_welcome(conn *c)
{
	server *s = c->srv;
	steer_welcome_info info = {NULL, 0};
	if (c->may_watch)
		info = (steer_welcome_info){steer_world_config_get(s->session.world),
		                            s->opt.snapshot_rate};
	/* Watchers hear of a change before this one joins them: it gets the current
	 * geometry right after its Welcome, and every change after that. */
	if (c->may_watch)
		server_geometry_sync(s);
	steer_strbuf_clear(&s->scratch);
	if (steer_wire_welcome(&s->scratch, &info) != STEER_OK) {
		conn_close(c, "cannot encode welcome");
		return;
	}
	conn_send_copy(c, s->scratch.data, s->scratch.len);
	if (c->may_watch)
		server_send_geometry(s, c);
	c->welcomed = true;
}

void conn_grant(conn *c)
{
	if (!c->may_write)
		steer_log(STEER_LOG_INFO, "client %llu (%s) presented the token",
		          (unsigned long long)c->id, c->peer);
	bool was_hidden = !c->may_watch;
	/* The watchers hear of a change first: this one gets the geometry with its
	 * Welcome, once. */
	if (was_hidden && c->kind == CONN_PROTO)
		server_geometry_sync(c->srv);
	c->may_write = c->may_watch = true;
	if (was_hidden && c->kind == CONN_PROTO && c->welcomed)
		send_welcome(c);
}

/* A connection, linked in, whose stream is not open yet; NULL after logging why. */
static conn *conn_new(server *s, conn_kind kind, bool web)
{
	conn *c = calloc(1, sizeof *c);
	if (!c) {
		steer_log(STEER_LOG_ERROR, "out of memory accepting a connection");
		return NULL;
	}
	c->srv = s;
	c->kind = kind;
	c->web = web;
	c->id = ++s->next_conn_id;
	c->vtime = s->vclock; /* a newcomer starts level with those being served */
	c->may_write = !s->opt.has_token;
	c->may_watch = !s->opt.private_world;
	c->last_active_ms = uv_now(s->loop);
	c->served_tick = s->snapshot_ticks;
	steer_framer_init(&c->framer, STEER_MAX_CLIENT_FRAME);
	int rc = uv_tcp_init(s->loop, &c->tcp);
	if (rc != 0) {
		steer_log(STEER_LOG_ERROR, "uv_tcp_init: %s", uv_strerror(rc));
		steer_framer_free(&c->framer);
		free(c);
		return NULL;
	}
	c->tcp.data = c;
	c->next = s->conns;
	if (s->conns)
		s->conns->prev = c;
	s->conns = c;
	s->nconns++;
	return c;
}

/* Refuses c when the server is full; else starts reading and greets a protobuf
 * client. */
static void conn_begin(conn *c)
{
	server *s = c->srv;
	/* Connections whose peer shut its sending side wait only for a reply, and
	 * finished ones only for their peer to close: up to --max-clients of them hold no
	 * slot, more do (each holds a descriptor). */
	size_t waiting = s->npeer_done + s->nlingering;
	size_t done = waiting < s->opt.max_clients ? waiting : s->opt.max_clients;
	if (s->nconns - done > s->opt.max_clients) {
		char msg[128];
		int n;
		if (c->kind == CONN_TEXT) {
			n = snprintf(msg, sizeof msg,
			             "ERR server full (--max-clients %zu); try later\n",
			             s->opt.max_clients);
			conn_send_copy(c, msg, (size_t)n);
		} else {
			snprintf(msg, sizeof msg, "server full (--max-clients %zu); try later",
			         s->opt.max_clients);
			conn_proto_error(c, 0, msg);
		}
		if (conn_churn_log_ok(s))
			steer_log(STEER_LOG_WARN, "refused %s: server full (%zu clients)", c->peer,
			          s->opt.max_clients);
		conn_finish(c, "server full");
		return;
	}
	if (conn_churn_log_ok(s))
		steer_log(STEER_LOG_INFO, "%s client %llu connected from %s", conn_kind_name(c),
		          (unsigned long long)c->id, c->peer);
	int rc = uv_read_start((uv_stream_t *)&c->tcp, conn_on_alloc, conn_on_read);
	if (rc != 0) {
		conn_close(c, uv_strerror(rc));
		return;
	}
	if (c->kind == CONN_PROTO)
		send_welcome(c);
}

void conn_accept(server *s, uv_stream_t *listener, conn_kind kind)
{
	conn *c = conn_new(s, kind, false);
	if (!c)
		return;
	int rc = uv_accept(listener, (uv_stream_t *)&c->tcp);
	if (rc != 0) {
		conn_close(c, uv_strerror(rc));
		return;
	}
	uv_tcp_nodelay(&c->tcp, 1);
	struct sockaddr_storage ss;
	int len = sizeof ss;
	if (uv_tcp_getpeername(&c->tcp, (struct sockaddr *)&ss, &len) == 0)
		describe_peer(c, &ss);
	else
		snprintf(c->peer, sizeof c->peer, "?");
	conn_begin(c);
}

bool conn_adopt(server *s, uv_os_sock_t sock, const struct sockaddr_storage *peer)
{
	conn *c = conn_new(s, CONN_PROTO, true);
	if (!c)
		return false;
	int rc = uv_tcp_open(&c->tcp, sock);
	if (rc != 0) {
		steer_log(STEER_LOG_ERROR, "web client: %s", uv_strerror(rc));
		conn_close(c, uv_strerror(rc));
		return false;
	}
	describe_peer(c, peer);
	conn_begin(c);
	return true;
}
