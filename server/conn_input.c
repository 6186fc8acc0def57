/* A connection's input: its bytes read and handed to its port's protocol (conn_text.c,
 * conn_proto.c), what arrives while it is busy held and run after, the end of its input,
 * the idle timeout. Its output and lifetime: conn.c. */
#include "conn.h"

#include <stdlib.h>
#include <string.h>
#ifdef __linux__
#include <linux/tcp.h>
#include <netinet/in.h>
#include <sys/socket.h>
#endif

#include "conn_internal.h"
#include "reserve.h"

void conn_on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
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

void conn_on_read(uv_stream_t *stream, ssize_t n, const uv_buf_t *buf)
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
		conn_hold(c, buf->base, (size_t)n);
		return;
	}
	if (conn_must_wait(c->srv)) {
		c->srv->turns_throttled++;
		conn_defer(c);
		conn_hold(c, buf->base, (size_t)n);
		return;
	}
	conn_input(c, buf->base, (size_t)n);
}

/* Runs what c sent, charging it the time. */
static void conn_input(conn *c, const char *data, size_t n)
{
	conn_start_turn(c);
	uint64_t t0 = uv_hrtime();
	if (c->kind == CONN_TEXT)
		conn_text_read(c, data, n);
	else
		conn_proto_read(c, data, n);
	conn_charge(c, t0);
}

/* Keeps bytes that arrived behind a command whose job runs, to run after its reply. */
void conn_hold(conn *c, const char *rest, size_t n)
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

/* Runs what came in behind a job or a spent turn, in order; it may start another
 * job or spend the turn again. */
void conn_run_held(conn *c)
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
	int rc = uv_read_start((uv_stream_t *)&c->tcp, conn_on_alloc, conn_on_read);
	if (rc != 0)
		conn_close(c, uv_strerror(rc));
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
