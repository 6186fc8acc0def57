/* The protobuf port's protocol (a browser's too, relayed by web_relay.c): framed client
 * messages (Hello, Viewport, Command; commands run by conn_commands.c) and the replies. */
#include "conn.h"

#include <string.h>

#include "conn_internal.h"
#include "journal.h"
#include "log.h"
#include "serve.h"
#include "utf8.h"

void conn_proto_reply(conn *c, uint32_t request_id, const steer_reply *reply)
{
	server *s = c->srv;
	steer_strbuf_clear(&s->scratch);
	if (steer_wire_reply(&s->scratch, request_id, reply) != STEER_OK || s->scratch.oom) {
		steer_reply small;
		steer_reply_init(&small);
		small.ok = false;
		snprintf(small.error, sizeof small.error, "reply too large to encode");
		steer_strbuf_clear(&s->scratch);
		if (steer_wire_reply(&s->scratch, request_id, &small) != STEER_OK ||
		    s->scratch.oom) {
			steer_log(STEER_LOG_WARN, "cannot encode a reply");
			return;
		}
	}
	conn_send_copy(c, s->scratch.data, s->scratch.len);
}

void conn_proto_error(conn *c, uint32_t request_id, const char *msg)
{
	steer_reply r;
	steer_reply_init(&r);
	r.ok = false;
	snprintf(r.error, sizeof r.error, "%s", msg);
	conn_proto_reply(c, request_id, &r);
}

static void proto_message(conn *c, const uint8_t *msg, size_t len)
{
	/* 20 KiB decoded struct: one per server, reused (the loop is single-threaded). */
	static steer_ClientMessage m;
	char err[256];
	c->last_active_ms = uv_now(c->srv->loop);
	if (steer_wire_decode_client(msg, len, &m, err, sizeof err) != STEER_OK) {
		steer_log(STEER_LOG_WARN, "%s client %llu: %s", conn_kind_name(c),
		          (unsigned long long)c->id, err);
		conn_proto_error(c, 0, err);
		return;
	}
	if (steer_wire_client_strings_ok(msg, len, &m, err, sizeof err) != STEER_OK) {
		bool command = m.which_msg == steer_ClientMessage_command_tag;
		conn_proto_error(c, command ? m.msg.command.request_id : 0, err);
		return;
	}
	if (m.which_msg == steer_ClientMessage_hello_tag) {
		/* Its snapshots would not decode as it expects: say why, and hang up. A
		 * Hello that leaves the version out (0, proto3's absent) says nothing of
		 * what it expects, like a client that sends no Hello. */
		if (m.msg.hello.protocol_version != 0 &&
		    steer_wire_version_ok(m.msg.hello.protocol_version, "client", err,
		                          sizeof err) != STEER_OK) {
			steer_log(STEER_LOG_WARN, "%s client %llu: %s", conn_kind_name(c),
			          (unsigned long long)c->id, err);
			conn_proto_error(c, 0, err);
			conn_finish(c, "protocol version mismatch");
			return;
		}
		/* Its name for notices and clients; one that is not a valid name is ignored,
		 * and the log quotes it escaped (it may hold anything UTF-8 allows). */
		if (steer_client_name_ok(m.msg.hello.client)) {
			snprintf(c->name, sizeof c->name, "%s", m.msg.hello.client);
			steer_log(STEER_LOG_INFO, "%s client %llu is '%s'", conn_kind_name(c),
			          (unsigned long long)c->id, c->name);
		} else if (m.msg.hello.client[0]) {
			char shown[4 * sizeof m.msg.hello.client];
			steer_utf8_escape(shown, sizeof shown, m.msg.hello.client,
			                  strlen(m.msg.hello.client));
			steer_log(STEER_LOG_INFO,
			          "%s client %llu gave the name '%s', which is not a name (1-64 "
			          "printable ASCII characters without spaces): ignored",
			          conn_kind_name(c), (unsigned long long)c->id, shown);
		}
		/* A server with no token lets everyone change the world: a token offered
		 * to it (one set for another server) is no wrong guess. */
		char why[200];
		if (m.msg.hello.token[0] && c->srv->opt.has_token &&
		    server_auth(c->srv, c, m.msg.hello.token, why, sizeof why) != 0) {
			char text[256];
			snprintf(text, sizeof text, "hello: %s", why);
			conn_proto_error(c, 0, text);
		}
	} else if (m.which_msg == steer_ClientMessage_viewport_tag) {
		/* Both parts or neither: a bad request leaves the stream as it was. */
		steer_view view = {0};
		steer_compact_req req;
		if (steer_wire_to_view(&m.msg.viewport, &view, err, sizeof err) != STEER_OK ||
		    steer_wire_to_compact(&m.msg.viewport, &req, err, sizeof err) != STEER_OK) {
			conn_proto_error(c, 0, err);
		} else {
			/* A new view decides density afresh; a new pick alone does not. */
			if (!steer_view_same(&view, &c->view) ||
			    !steer_compact_req_same(&req, &c->compact))
				c->dense_last = false;
			c->view = view;
			c->compact = req;
		}
	} else {
		steer_command cmd;
		uint32_t rid = m.msg.command.request_id;
		if (steer_wire_to_command(&m.msg.command, &cmd, err, sizeof err) != STEER_OK) {
			conn_proto_error(c, rid, err);
			return;
		}
		steer_reply reply;
		steer_reply_init(&reply);
		journal_proto_words(c->srv->journal, &m.msg.command);
		if (c->srv->ranks) {
			steer_strbuf_clear(&c->srv->line);
			if (steer_wire_command_words(&m.msg.command, &c->srv->line) != STEER_OK)
				c->srv->line.oom = true;
		}
		if (!conn_run_command(c, &cmd, rid, &reply)) {
			steer_reply_free(&reply);
			return;
		}
		conn_proto_reply(c, rid, &reply);
		if (reply.close)
			conn_finish(c, "quit");
		steer_reply_free(&reply);
	}
}

void conn_proto_read(conn *c, const char *data, size_t n)
{
	uint64_t t0 = uv_hrtime();
	const uint8_t *p = (const uint8_t *)data;
	while (!c->closing) {
		size_t took = steer_framer_feed(&c->framer, p, n);
		p += took;
		n -= took;
		const uint8_t *msg;
		size_t len;
		char err[128];
		steer_status rc = STEER_OK;
		while (!c->closing && !c->busy &&
		       (rc = steer_framer_next(&c->framer, &msg, &len, err, sizeof err)) ==
		           STEER_OK &&
		       msg) {
			proto_message(c, msg, len);
			if (!c->busy && !c->closing && conn_turn_spent(c, t0))
				conn_defer(c);
		}
		if (c->closing)
			return;
		if (c->busy) { /* frames still in the framer wait there */
			conn_hold(c, (const char *)p, n);
			return;
		}
		if (rc != STEER_OK) {
			conn_proto_error(c, 0, err);
			conn_finish(c, err);
			return;
		}
		if (n == 0)
			return;
		if (took == 0) { /* buffer full and no frame: cannot happen under max_frame */
			conn_close(c, "input buffer exhausted");
			return;
		}
	}
}
