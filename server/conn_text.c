/* The text port's protocol: lines (at most TEXT_MAX_LINE bytes, the limit enforced
 * here), each one command (conn_commands.c), and each reply a line. */
#include "conn.h"

#include <string.h>

#include "conn_internal.h"
#include "journal.h"
#include "journal_format.h"

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
	} else if (!conn_run_command(c, &cmd, 0, &reply)) {
		steer_reply_free(&reply);
		return;
	}
	conn_text_reply(c, &reply);
	steer_reply_free(&reply);
}

void conn_text_reply(conn *c, const steer_reply *reply)
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

void conn_text_read(conn *c, const char *data, size_t n)
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
			if (!c->busy && !c->closing && i + 1 < n && conn_turn_spent(c, t0))
				conn_defer(c);
			if (c->busy && !c->closing)
				conn_hold(c, data + i + 1, n - i - 1);
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
