/* Running a connection's commands (from conn_text.c, conn_proto.c): the access checks,
 * the wait for the journal's checkpoint, a job's reply, the notices of what they changed. */
#include "conn.h"

#include <stdlib.h>
#include <string.h>

#include "conn_internal.h"
#include "history.h"
#include "jobs.h"
#include "journal.h"
#include "log.h"
#include "replay.h"
#include "serve.h"

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
 * waits for the journal: the reply comes later (conn_job_done, conn_run_retry). */
bool conn_run_command(conn *c, const steer_command *cmd, uint32_t request_id, steer_reply *reply)
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

void conn_job_done(conn *c, const steer_command *cmd, uint32_t request_id, const steer_reply *reply)
{
	c->busy = false;
	c->last_active_ms = uv_now(c->srv->loop);
	if (c->closing)
		return;
	command_done(c, cmd, reply);
	if (c->kind == CONN_TEXT)
		conn_text_reply(c, reply);
	else
		conn_proto_reply(c, request_id, reply);
	if (c->closing || c->srv->stopping)
		return;
	if (c->held_len && conn_must_wait(c->srv)) {
		conn_defer(c); /* what it sent behind the job waits its turn among the waiting */
		return;
	}
	conn_run_held(c);
}

/* Runs the command that waited for the journal, then what came in behind it. */
void conn_run_retry(conn *c)
{
	server *s = c->srv;
	conn_start_turn(c);
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
	bool answered = conn_run_command(c, &cmd, c->retry_rid, &reply);
	c->retrying = false;
	if (answered) {
		if (c->kind == CONN_TEXT) {
			conn_text_reply(c, &reply);
		} else {
			conn_proto_reply(c, c->retry_rid, &reply);
			if (reply.close)
				conn_finish(c, "quit");
		}
	}
	steer_reply_free(&reply);
	conn_charge(c, t0); /* the retried command; what follows charges itself */
	if (!c->busy && !c->closing)
		conn_run_held(c);
}
