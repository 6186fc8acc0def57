/* A connection's input: reading frames and lines, running the commands they carry
 * (held while a job or the journal is busy), and the turns by which connections share
 * the loop fairly. Its output and lifetime: conn.c. */
#include "conn.h"

#include <stdlib.h>
#include <string.h>
#ifdef __linux__
#include <linux/sockios.h>
#include <linux/tcp.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#endif

#include "history.h"
#include "host_port.h"
#include "jobs.h"
#include "journal.h"
#include "journal_format.h"
#include "log.h"
#include "replay.h"
#include "reserve.h"
#include "serve.h"
#include "utf8.h"

/* --- commands --------------------------------------------------------------------- */

/* What a connection on a --private server may do before it presents the token. */
static bool allowed_unseen(const steer_command *cmd)
{
	const char *n = cmd->entry->name;
	return !strcmp(n, "auth") || !strcmp(n, "help") || !strcmp(n, "quit") || !strcmp(n, "name");
}

void conn_display_name(const conn *c, char *out, size_t n)
{
	if (c->name[0]) {
		snprintf(out, n, "%s", c->name);
		return;
	}
	/* The address without its port: "127.0.0.1:40312" or "::1:40312". */
	char host[sizeof c->peer];
	snprintf(host, sizeof host, "%s", c->peer);
	char *colon = strrchr(host, ':');
	if (colon && colon != host)
		*colon = '\0';
	snprintf(out, n, "client %llu (%s)", (unsigned long long)c->id, host);
}

/* What a command did to the session that everyone watching should hear about, as
 * the words after the client's name ("paused"); "" for anything else. */
static void session_change(const steer_command *cmd, char *out, size_t n)
{
	const char *name = cmd->entry->name;
	out[0] = '\0';
	if (!strcmp(name, "pause"))
		snprintf(out, n, "paused");
	else if (!strcmp(name, "resume"))
		snprintf(out, n, "resumed");
	else if (!strcmp(name, "reset"))
		snprintf(out, n, "reset the world");
	else if (!strcmp(name, "load"))
		snprintf(out, n, "loaded '%s'", cmd->name);
	else if (!strcmp(name, "scenario"))
		snprintf(out, n, "loaded the scenario %s", cmd->name);
	else if (!strcmp(name, "rewind"))
		snprintf(out, n, "rewound the world %llu ticks", (unsigned long long)cmd->tick);
	else if (!strcmp(name, "goto-tick") && cmd->sub)
		snprintf(out, n, "took the world to its live tick");
	else if (!strcmp(name, "goto-tick"))
		snprintf(out, n, "took the world to tick %llu", (unsigned long long)cmd->tick);
}

void conn_announce(server *s, const conn *skip, const char *who, const char *what)
{
	char text[256];
	snprintf(text, sizeof text, "%s %s", who, what);
	steer_log(STEER_LOG_INFO, "%s", text);
	steer_strbuf_clear(&s->scratch);
	if (steer_wire_notice(&s->scratch, text) != STEER_OK || s->scratch.oom) {
		steer_log(STEER_LOG_WARN, "cannot encode a notice");
		return;
	}
	for (conn *o = s->conns; o; o = o->next)
		if (o != skip && o->kind == CONN_PROTO && o->welcomed && o->may_watch &&
		    !o->closing)
			conn_send_copy(o, s->scratch.data, s->scratch.len);
}

/* Tells every other protobuf client that c did `what`. */
static void announce(conn *c, const char *what)
{
	char who[96];
	conn_display_name(c, who, sizeof who);
	conn_announce(c->srv, c, who, what);
}

/* Logs a command's outcome and tells the others what it changed. */
static void command_done(conn *c, const steer_command *cmd, const steer_reply *reply)
{
	steer_log(STEER_LOG_DEBUG, "client %llu: %s -> %s", (unsigned long long)c->id,
	          cmd->entry->name, reply->ok ? "ok" : reply->error);
	char what[128];
	session_change(cmd, what, sizeof what);
	if (reply->ok && what[0])
		announce(c, what);
	const char *name = cmd->entry->name;
	if (reply->ok && (!strcmp(name, "reset") || !strcmp(name, "scenario"))) {
		char who[96];
		conn_display_name(c, who, sizeof who);
		jobs_world_replaced(c->srv, who, what);
	}
}

/* cmd would start a new history while the journal writes a checkpoint: it runs once
 * that has ended (conn_resume_deferred), and c reads nothing more meanwhile. False,
 * nothing changed, when its journal words cannot be kept for then. */
static bool wait_for_journal(conn *c, const steer_command *cmd, uint32_t request_id)
{
	server *s = c->srv;
	const steer_strbuf *w = journal_staged(s->journal);
	char *copy = malloc(w->len + 1);
	if (!copy)
		return false; /* it would be journaled as an empty line */
	memcpy(copy, w->data ? w->data : "", w->len);
	copy[w->len] = '\0';
	free(c->retry_words);
	c->retry_words = copy;
	c->retry_len = w->len;
	c->retry_cmd = *cmd;
	c->retry_rid = request_id;
	c->retry = true;
	c->busy = c->deferred = true;
	server_wake_deferred(s);
	return true;
}

/* Runs a parsed command, after the access checks. False when a job took it, or it
 * waits for the journal: the reply comes later (conn_job_done, run_retry). */
static bool run_command(conn *c, const steer_command *cmd, uint32_t request_id, steer_reply *reply)
{
	server *s = c->srv;
	if (!c->may_watch && !allowed_unseen(cmd)) {
		reply->ok = false;
		snprintf(reply->error, sizeof reply->error,
		         "this server is private: send 'auth TOKEN' first");
		return true;
	}
	char who[96];
	conn_display_name(c, who, sizeof who);
	if (steer_cmd_check_access(cmd, c->may_write, reply) != STEER_OK ||
	    !replay_allows(s->replay, cmd, who, reply) || journal_refuses(s->journal, cmd, reply))
		return true;
	if (journal_busy(s->journal, cmd, history_would_fork(s->history, cmd), c->retrying)) {
		if (wait_for_journal(c, cmd, request_id))
			return false;
		reply->ok = false;
		snprintf(reply->error, sizeof reply->error,
		         "out of memory while it waited for the journal's checkpoint; nothing "
		         "was run");
		return true;
	}
	history_before(s->history, &s->session, cmd); /* a change in the past forks */
	c->busy = true; /* before jobs_start: a job may end within it */
	if (jobs_start(s, c, cmd, request_id))
		return false;
	c->busy = false;
	steer_host host = s->host; /* this call's copy knows who is asking */
	host.caller = c;
	server_exec(s, cmd, &host, reply);
	replay_after_command(s->replay, cmd, reply, who);
	history_after(s->history, &s->session, cmd, reply); /* a fork tells the journal */
	if (journal_command(s->journal, c, cmd, request_id, reply))
		return false; /* its reply waits for its record to be durable */
	command_done(c, cmd, reply);
	return true;
}

/* Keeps bytes that arrived behind a command whose job runs, to run after its reply. */
static void hold(conn *c, const char *rest, size_t n)
{
	if (n == 0)
		return;
	if (steer_reserve((void **)&c->held, &c->held_cap, c->held_len + n, 1) != STEER_OK) {
		conn_close(c, "out of memory");
		return;
	}
	memcpy(c->held + c->held_len, rest, n);
	c->held_len += n;
	if (c->held_len >= CONN_HELD_MAX && !c->read_stopped) {
		uv_read_stop((uv_stream_t *)&c->tcp);
		c->read_stopped = true;
	}
}

/* Whether c's turn, which began at t0, has spent its command time, or all
 * connections together have spent the loop turn's. */
static bool turn_spent(const conn *c, uint64_t t0)
{
	uint64_t used = uv_hrtime() - t0;
	return used >= CONN_TURN_BUDGET_NS || c->srv->turn_used_ns + used >= LOOP_TURN_BUDGET_NS;
}

/* A client without the token on a server that has one. */
static bool untrusted(const conn *c)
{
	return c->srv->opt.has_token && !c->may_write;
}

/* A connection back from idling keeps no more credit than the slack: it cannot
 * starve the others with what it did not use. */
static void level(conn *c)
{
	server *s = c->srv;
	if (s->vclock > CONN_VTIME_SLACK_NS && c->vtime < s->vclock - CONN_VTIME_SLACK_NS)
		c->vtime = s->vclock - CONN_VTIME_SLACK_NS;
}

/* c is about to run commands: the virtual clock moves up to where it starts, on every
 * path (served at once or after waiting), so that a newcomer starts level with those
 * being served rather than with the clock as it stood when the loop was last
 * contended. */
static void start_turn(conn *c)
{
	level(c);
	if (c->vtime > c->srv->vclock)
		c->srv->vclock = c->vtime;
}

/* Charges c the command time since t0: to the loop's turn, and (weighted) to its
 * share. */
static void charge(conn *c, uint64_t t0)
{
	uint64_t used = uv_hrtime() - t0;
	server *s = c->srv;
	s->turn_used_ns += used;
	c->last_cost = used * (untrusted(c) ? CONN_UNTRUSTED_WEIGHT : 1u);
	c->costed = true;
	c->vtime += c->last_cost;
}

/* Whether what arrives now must wait its turn: the loop's command time is spent, or
 * others wait for theirs and it must not go ahead of them. */
static bool must_wait(const server *s)
{
	return s->turn_used_ns >= LOOP_TURN_BUDGET_NS || s->turns_waiting;
}

/* c's turn is over: it reads nothing more until the next turn of the loop, when
 * conn_resume_deferred runs what waits (busy holds it, as behind a job). */
static void defer(conn *c)
{
	c->busy = c->deferred = true;
	c->srv->turns_waiting = true;
	server_wake_deferred(c->srv);
}

static void text_reply(conn *c, const steer_reply *reply);

/* One line of len bytes (NUL-terminated at len). */
static void text_line(conn *c, char *line, size_t len)
{
	steer_reply reply;
	steer_reply_init(&reply);
	steer_command cmd;
	char err[256];
	char *words[STEER_CMD_MAX_WORDS];
	/* A NUL would end the line early as a C string: what follows it would be
	 * silently dropped (and a line of only NUL would get no reply). */
	bool nul = memchr(line, '\0', len) != NULL;
	int argc = 1;
	steer_status split =
	    nul ? STEER_OK : steer_cmd_split(line, words, STEER_CMD_MAX_WORDS, &argc);
	if (split == STEER_OK && argc == 0) { /* a blank line is not a command: no reply */
		steer_reply_free(&reply);
		return;
	}
	if (!nul && split == STEER_OK) {
		journal_words(c->srv->journal, argc, words); /* its record, if it writes */
		if (c->srv->ranks) {                         /* what the other ranks run */
			steer_strbuf_clear(&c->srv->line);
			steer_journal_join(&c->srv->line, argc, words);
		}
	}
	if (nul) {
		reply.ok = false;
		snprintf(reply.error, sizeof reply.error,
		         "the line holds a NUL byte; nothing was run");
	} else if (split != STEER_OK) {
		reply.ok = false;
		snprintf(reply.error, sizeof reply.error,
		         "more than %d words (a polygon: at most %d points)", STEER_CMD_MAX_WORDS,
		         STEER_CMD_MAX_POINTS);
	} else if (steer_cmd_parse(&cmd, argc, words, err, sizeof err) != STEER_OK) {
		reply.ok = false;
		snprintf(reply.error, sizeof reply.error, "%s", err);
	} else if (!run_command(c, &cmd, 0, &reply)) {
		steer_reply_free(&reply);
		return;
	}
	text_reply(c, &reply);
	steer_reply_free(&reply);
}

static void text_reply(conn *c, const steer_reply *reply)
{
	server *s = c->srv;
	steer_strbuf_clear(&s->scratch);
	steer_reply_text(reply, &s->scratch);
	steer_strbuf_put(&s->scratch, "\n", 1);
	if (s->scratch.oom) {
		steer_strbuf_clear(&s->scratch);
		steer_strbuf_puts(&s->scratch, "ERR out of memory while sending the reply\n");
	}
	conn_send_copy(c, s->scratch.data, s->scratch.len);
	if (reply->close)
		conn_finish(c, "quit");
}

static void text_read(conn *c, const char *data, size_t n)
{
	uint64_t t0 = uv_hrtime();
	for (size_t i = 0; i < n && !c->closing; i++) {
		char ch = data[i];
		if (ch == '\n') {
			size_t len = c->line_len;
			c->line[len] = '\0';
			c->line_len = 0;
			c->last_active_ms = uv_now(c->srv->loop);
			text_line(c, c->line, len);
			if (!c->busy && !c->closing && i + 1 < n && turn_spent(c, t0))
				defer(c);
			if (c->busy && !c->closing)
				hold(c, data + i + 1, n - i - 1);
			if (c->busy)
				return;
			continue;
		}
		if (c->line_len == TEXT_MAX_LINE) {
			char why[64], msg[80];
			snprintf(why, sizeof why, "line longer than %d bytes", TEXT_MAX_LINE);
			int len = snprintf(msg, sizeof msg, "ERR %s; closing\n", why);
			conn_send_copy(c, msg, (size_t)len);
			conn_finish(c, why);
			return;
		}
		c->line[c->line_len++] = ch;
	}
}

static void proto_reply(conn *c, uint32_t request_id, const steer_reply *reply)
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

static void proto_error(conn *c, uint32_t request_id, const char *msg)
{
	steer_reply r;
	steer_reply_init(&r);
	r.ok = false;
	snprintf(r.error, sizeof r.error, "%s", msg);
	proto_reply(c, request_id, &r);
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
		proto_error(c, 0, err);
		return;
	}
	if (steer_wire_client_strings_ok(msg, len, &m, err, sizeof err) != STEER_OK) {
		bool command = m.which_msg == steer_ClientMessage_command_tag;
		proto_error(c, command ? m.msg.command.request_id : 0, err);
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
			proto_error(c, 0, err);
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
			proto_error(c, 0, text);
		}
	} else if (m.which_msg == steer_ClientMessage_viewport_tag) {
		/* Both parts or neither: a bad request leaves the stream as it was. */
		steer_view view = {0};
		steer_compact_req req;
		if (steer_wire_to_view(&m.msg.viewport, &view, err, sizeof err) != STEER_OK ||
		    steer_wire_to_compact(&m.msg.viewport, &req, err, sizeof err) != STEER_OK) {
			proto_error(c, 0, err);
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
			proto_error(c, rid, err);
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
		if (!run_command(c, &cmd, rid, &reply)) {
			steer_reply_free(&reply);
			return;
		}
		proto_reply(c, rid, &reply);
		if (reply.close)
			conn_finish(c, "quit");
		steer_reply_free(&reply);
	}
}

static void proto_read(conn *c, const char *data, size_t n)
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
			if (!c->busy && !c->closing && turn_spent(c, t0))
				defer(c);
		}
		if (c->closing)
			return;
		if (c->busy) { /* frames still in the framer wait there */
			hold(c, (const char *)p, n);
			return;
		}
		if (rc != STEER_OK) {
			proto_error(c, 0, err);
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

/* --- reading ---------------------------------------------------------------------- */

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
	conn *c = h->data;
	(void)suggested;
	buf->base = c->srv->read_buf;
	buf->len = sizeof c->srv->read_buf;
}

static void conn_input(conn *c, const char *data, size_t n);

/* TCP_CLOSE of the kernel's TCP states (include/net/tcp_states.h): no header a
 * program includes names it. */
#define TCP_STATE_CLOSED 7

/* Whether the peer reset the connection (TCP's state is CLOSED): it reads nothing
 * more, unlike a peer that only closed its sending side (CLOSE_WAIT). */
static bool peer_reset(conn *c)
{
	int fd;
	struct tcp_info ti;
	socklen_t len = sizeof ti;
	return uv_fileno((uv_handle_t *)&c->tcp, &fd) == 0 &&
	       getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) == 0 &&
	       ti.tcpi_state == TCP_STATE_CLOSED;
}

/* At the end of a peer's input: a text line begun and never ended (printf 'stats' |
 * nc) is not run, as it may have been cut short, but the peer is told so rather
 * than left without a reply. True when there was one. */
static bool unended_line(conn *c)
{
	static const char msg[] = "ERR the input ended inside a line: a command ends with a "
	                          "newline, so nothing was run\n";
	if (c->kind != CONN_TEXT || c->line_len == 0)
		return false;
	c->line_len = 0;
	conn_send_copy(c, msg, sizeof msg - 1);
	return true;
}

static void on_read(uv_stream_t *stream, ssize_t n, const uv_buf_t *buf)
{
	conn *c = stream->data;
	if (n == UV_EOF && c->busy && !peer_reset(c)) {
		/* Perhaps only its sending side (echo step 100 | nc): it gets the reply. It
		 * can send nothing more, and holds no slot (up to a pool of --max-clients of
		 * them: see conn_accept). */
		uv_read_stop(stream);
		c->peer_done = true;
		c->srv->npeer_done++;
		c->last_active_ms = uv_now(c->srv->loop); /* the idle clock starts here */
		return;
	}
	if (n == UV_EOF && !peer_reset(c) && unended_line(c)) {
		conn_finish(c, "input ended inside a line");
		return;
	}
	if (n < 0) {
		conn_close(c, n == UV_EOF ? "disconnected" : uv_strerror((int)n));
		return;
	}
	if (c->busy) {
		hold(c, buf->base, (size_t)n);
		return;
	}
	if (must_wait(c->srv)) {
		c->srv->turns_throttled++;
		defer(c);
		hold(c, buf->base, (size_t)n);
		return;
	}
	conn_input(c, buf->base, (size_t)n);
}

/* Runs what c sent, charging it the time. */
static void conn_input(conn *c, const char *data, size_t n)
{
	start_turn(c);
	uint64_t t0 = uv_hrtime();
	if (c->kind == CONN_TEXT)
		text_read(c, data, n);
	else
		proto_read(c, data, n);
	charge(c, t0);
}

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

static void run_held(conn *c);

void conn_job_done(conn *c, const steer_command *cmd, uint32_t request_id, const steer_reply *reply)
{
	c->busy = false;
	c->last_active_ms = uv_now(c->srv->loop);
	if (c->closing)
		return;
	command_done(c, cmd, reply);
	if (c->kind == CONN_TEXT)
		text_reply(c, reply);
	else
		proto_reply(c, request_id, reply);
	if (c->closing || c->srv->stopping)
		return;
	if (c->held_len && must_wait(c->srv)) {
		defer(c); /* what it sent behind the job waits its turn among the waiting */
		return;
	}
	run_held(c);
}

/* Runs what came in behind a job or a spent turn, in order; it may start another
 * job or spend the turn again. */
static void run_held(conn *c)
{
	char *held = c->held;
	size_t n = c->held_len;
	c->held = NULL;
	c->held_len = c->held_cap = 0;
	conn_input(c, held ? held : "", n);
	free(held);
	if (c->closing || c->busy)
		return;
	if (c->peer_done) {
		conn_finish(c, unended_line(c) ? "input ended inside a line" : "disconnected");
		return;
	}
	if (!c->read_stopped)
		return;
	c->read_stopped = false;
	int rc = uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read);
	if (rc != 0)
		conn_close(c, uv_strerror(rc));
}

/* Runs the command that waited for the journal, then what came in behind it. */
static void run_retry(conn *c)
{
	server *s = c->srv;
	start_turn(c);
	uint64_t t0 = uv_hrtime();
	c->retry = false;
	journal_restage(s->journal, c->retry_words, c->retry_len);
	if (s->ranks) {
		steer_strbuf_clear(&s->line);
		steer_strbuf_put(&s->line, c->retry_words, c->retry_len);
	}
	steer_command cmd = c->retry_cmd;
	steer_reply reply;
	steer_reply_init(&reply);
	c->retrying = true;
	bool answered = run_command(c, &cmd, c->retry_rid, &reply);
	c->retrying = false;
	if (answered) {
		if (c->kind == CONN_TEXT) {
			text_reply(c, &reply);
		} else {
			proto_reply(c, c->retry_rid, &reply);
			if (reply.close)
				conn_finish(c, "quit");
		}
	}
	steer_reply_free(&reply);
	charge(c, t0); /* the retried command; what follows charges itself */
	if (!c->busy && !c->closing)
		run_held(c);
}

/* The weighted command time a connection's next turn is expected to cost: its last
 * turn's, or for one that has run nothing yet a whole turn. */
static uint64_t next_cost(const conn *c)
{
	return c->costed ? c->last_cost
	                 : CONN_TURN_BUDGET_NS * (untrusted(c) ? CONN_UNTRUSTED_WEIGHT : 1u);
}

/* The waiting are served the token's holders first (on a server that has a token),
 * then by when each would have had its share if served now (its command time so far
 * and what its next turn is expected to cost): a client of cheap commands goes ahead
 * of newcomers that have run nothing yet but would each take a whole turn, and one
 * without the token pays four times over for each. */
static int by_vtime(const void *a, const void *b)
{
	const conn *x = *(conn *const *)a, *y = *(conn *const *)b;
	bool ux = untrusted(x), uy = untrusted(y);
	if (ux != uy)
		return ux ? 1 : -1;
	uint64_t fx = x->vtime + next_cost(x), fy = y->vtime + next_cost(y);
	return fx < fy ? -1 : fx > fy;
}

/* The holders' precedence is bounded: after CONN_HOLDER_STREAK turns to them in a row
 * while others wait, the first of the others goes first, so that a holder's backlog
 * cannot starve them. Whether any of the n in order is without the token. */
static bool bound_holders(server *s, conn **order, size_t n)
{
	size_t k = 0;
	while (k < n && !untrusted(order[k]))
		k++;
	if (k == n)
		return false;
	if (s->holder_streak >= CONN_HOLDER_STREAK && k > 0) {
		conn *first = order[k];
		memmove(order + 1, order, k * sizeof *order);
		order[0] = first;
	}
	return true;
}

/* Whether c may take this loop turn's cheap turn (CONN_CHEAP_TURN_NS). */
static bool cheap_turn(const server *s, const conn *c)
{
	return !s->cheap_turn_taken && !untrusted(c) && !c->retry && c->costed &&
	       c->last_cost <= CONN_CHEAP_TURN_NS;
}

bool conn_resume_deferred(server *s, bool *ran)
{
	*ran = false;
	if (s->stopping)
		return false;
	/* The waiting, least served first, while the loop's turn has time. A connection
	 * may leave the list only in a close callback, never within this walk. */
	size_t n = 0;
	for (conn *c = s->conns; c; c = c->next)
		n += c->deferred && !c->closing;
	if (n == 0)
		return false;
	conn **order = malloc(n * sizeof *order);
	if (!order)
		return true; /* the next turn tries again */
	size_t k = 0;
	for (conn *c = s->conns; c; c = c->next)
		if (c->deferred && !c->closing) {
			level(c);
			order[k++] = c;
		}
	qsort(order, n, sizeof *order, by_vtime);
	bool others = bound_holders(s, order, n);
	bool waiting = false;
	s->turns_waiting = false; /* set again by whoever is left waiting for a turn */
	for (k = 0; k < n; k++) {
		conn *c = order[k];
		if (s->turn_used_ns >= LOOP_TURN_BUDGET_NS) {
			if (!cheap_turn(s, c)) {
				/* It keeps its place: next turn. */
				waiting = s->turns_waiting = true;
				continue;
			}
			s->cheap_turn_taken = true;
		}
		if (c->retry && c->srv->journal &&
		    journal_busy(s->journal, &c->retry_cmd,
		                 history_would_fork(s->history, &c->retry_cmd), true)) {
			waiting = true; /* the checkpoint it waits for runs on */
			continue;
		}
		c->deferred = c->busy = false;
		*ran = true;
		if (untrusted(c))
			s->holder_streak = 0;
		else if (others)
			s->holder_streak++;
		if (c->retry) {
			run_retry(c);
		} else {
			run_held(c);
		}
		waiting |= c->deferred;
	}
	free(order);
	return waiting;
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

void conn_check_idle(conn *c, uint64_t now_ms)
{
	double limit = c->srv->opt.idle_timeout;
	if (c->closing || limit <= 0)
		return;
	conn_note_taken(c);
	/* A connection waiting for its job's reply is not idle, unless its peer ended
	 * its side meanwhile: that cannot be told from a peer that has gone (steerctl
	 * giving up, nc on Ctrl-C), which would keep its slot and its step running to
	 * the end. */
	if ((c->busy && !c->peer_done) || (double)(now_ms - c->last_active_ms) < limit * 1000.0)
		return;
	/* Bytes waiting that never drain: the peer is gone, or not reading. */
	bool stuck = uv_stream_get_write_queue_size((uv_stream_t *)&c->tcp) > 0 || c->pending ||
	             c->nuntaken > 0;
	char why[sizeof c->finish_why]; /* conn_finish keeps it for the log */
	if (c->busy)                    /* closing stops its step (on_closed) */
		snprintf(why, sizeof why,
		         "its side closed %.0f s ago during its command (--idle-timeout): keep "
		         "it open for the reply",
		         limit);
	else
		snprintf(why, sizeof why, "%s for %g s (--idle-timeout)",
		         stuck ? "not reading: nothing taken" : "idle: nothing received", limit);
	if (!stuck && c->kind == CONN_TEXT) {
		char line[sizeof why + 16];
		int n = snprintf(line, sizeof line, "ERR %s; closing\n", why);
		conn_send_copy(c, line, (size_t)n);
		conn_finish(c, why);
		return;
	}
	conn_close(c, why);
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
			proto_error(c, 0, msg);
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
	int rc = uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read);
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
