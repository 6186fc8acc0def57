#include "net.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format_cut.h"
#include "host_port.h"

#define BACKOFF_MIN_MS 250
#define BACKOFF_MAX_MS 5000
/* steer-server's protobuf port sends its Welcome as it accepts. A port silent this long
 * gets a probe: a newline ends the text port's partial line (the Hello's bytes), which
 * it then answers with ERR. A protobuf port would take the byte for a frame length, so
 * only a port that has already failed to greet gets it. */
#define PROBE_AFTER_MS   1000
#define GIVE_UP_AFTER_MS 3000

static void try_connect(tui_net *n);

static void on_tcp_closed(uv_handle_t *h)
{
	free(h);
}

static void drop_tcp(tui_net *n)
{
	uv_timer_stop(&n->greet);
	if (n->tcp) {
		uv_read_stop((uv_stream_t *)n->tcp);
		uv_close((uv_handle_t *)n->tcp, on_tcp_closed);
		n->tcp = NULL;
	}
	steer_framer_free(&n->framer);
}

static void on_retry(uv_timer_t *t)
{
	tui_net *n = t->data;
	try_connect(n);
}

static void schedule_retry(tui_net *n, const char *why)
{
	drop_tcp(n);
	if (n->state == NET_STOPPED)
		return;
	snprintf(n->last_error, sizeof n->last_error, "%s", why);
	n->state = NET_WAITING;
	n->retry_at_ms = uv_now(n->loop) + n->backoff_ms;
	uv_timer_start(&n->retry, on_retry, n->backoff_ms, 0);
	n->backoff_ms = n->backoff_ms * 2 > BACKOFF_MAX_MS ? BACKOFF_MAX_MS : n->backoff_ms * 2;
	if (n->ev.disconnected)
		n->ev.disconnected(n->ev.ud, why);
}

/* Fails a connection that did not greet like steer-server's protobuf port. */
static void not_steer(tui_net *n, const char *what)
{
	char why[sizeof n->last_error];
	steer_format_cut(why, sizeof why, "%.60s:%s is not a steer-server protobuf port (%s)",
	                 n->host, n->port, what);
	schedule_retry(n, why);
}

static void on_probe_sent(uv_write_t *req, int status)
{
	(void)status; /* a failure shows up as a read error */
	free(req);
}

static void on_greet_timer(uv_timer_t *t)
{
	tui_net *n = t->data;
	if (!n->tcp || n->spoke)
		return;
	if (n->probed) {
		not_steer(n, "no Welcome within 3 s");
		return;
	}
	n->probed = true;
	uv_write_t *req = malloc(sizeof *req);
	static char newline[] = "\n";
	uv_buf_t b = uv_buf_init(newline, 1);
	if (req && uv_write(req, (uv_stream_t *)n->tcp, &b, 1, on_probe_sent) != 0)
		free(req);
	uv_timer_start(&n->greet, on_greet_timer, GIVE_UP_AFTER_MS - PROBE_AFTER_MS, 0);
}

/* Whether the connection's first bytes are the text port's replies. */
static bool text_reply(const tui_net *n)
{
	return (n->head_len >= 3 && !memcmp(n->head, "OK ", 3)) ||
	       (n->head_len >= 4 && !memcmp(n->head, "ERR ", 4));
}

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
	static char chunk[64 * 1024]; /* consumed before the next read: one is enough */
	(void)h, (void)suggested;
	buf->base = chunk;
	buf->len = sizeof chunk;
}

/* "HOST:PORT what", and another try later. */
static void retry_wrong_port(tui_net *n, const char *what)
{
	char why[sizeof n->last_error];
	snprintf(why, sizeof why, "%.70s %s", n->where, what);
	schedule_retry(n, why);
}

static void on_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf)
{
	tui_net *n = s->data;
	if (nread < 0) {
		if (!n->spoke && n->head_len) {
			not_steer(n, "it sent something else, then closed the connection");
		} else if (!n->spoke && nread == UV_EOF) {
			/* steer-server answers every Hello, even one it refuses; an HTTP server
			 * (the page's port) closes on it without a word. */
			retry_wrong_port(n,
			                 "closed without a word: not steer-server's protobuf port "
			                 "(--port, 7700 by default), or stopping?");
		} else if (nread == UV_EOF && n->refusal[0]) {
			char why[sizeof n->last_error];
			snprintf(why, sizeof why, "server closed the connection: %s", n->refusal);
			schedule_retry(n, why);
		} else
			schedule_retry(n, nread == UV_EOF ? "server closed the connection"
			                                  : uv_strerror((int)nread));
		return;
	}
	n->bytes_in += (uint64_t)nread;
	if (!n->spoke && n->head_len < sizeof n->head) {
		size_t take = sizeof n->head - n->head_len;
		take = take < (size_t)nread ? take : (size_t)nread;
		memcpy(n->head + n->head_len, buf->base, take);
		n->head_len += take;
		if (text_reply(n)) {
			retry_wrong_port(n, "is steer-server's command port; steer-tui needs the "
			                    "protobuf port (--port, 7700 by default)");
			return;
		}
	}
	const uint8_t *p = (const uint8_t *)buf->base;
	size_t left = (size_t)nread;
	while (left && n->tcp) {
		size_t took = steer_framer_feed(&n->framer, p, left);
		p += took;
		left -= took;
		const uint8_t *msg;
		size_t len;
		char err[160];
		steer_status rc = STEER_OK;
		while (n->tcp &&
		       (rc = steer_framer_next(&n->framer, &msg, &len, err, sizeof err)) ==
		           STEER_OK &&
		       msg) {
			if (steer_wire_decode_stream(msg, len, &n->msg, &n->snapshot, &n->compact,
			                             err, sizeof err) != STEER_OK) {
				if (n->spoke)
					schedule_retry(n, err);
				else
					not_steer(n, err);
				return;
			}
			/* steer-server: its Welcome, or a refusal ("server full") */
			n->spoke = true;
			uv_timer_stop(&n->greet);
			if (n->msg.kind == STEER_MSG_WELCOME &&
			    steer_wire_version_ok(n->msg.welcome.protocol_version, "server", err,
			                          sizeof err) != STEER_OK) {
				/* A server of another release: its snapshots would be misread. */
				schedule_retry(n, err);
				return;
			}
			if (!n->welcomed && n->msg.kind == STEER_MSG_WELCOME) {
				/* Only a greeting resets the backoff: a port that
				 * accepts and then fails must not be retried 4 times a
				 * second. */
				n->welcomed = true;
				n->backoff_ms = BACKOFF_MIN_MS;
			}
			if (n->ev.message)
				n->ev.message(n->ev.ud, &n->msg);
		}
		if (!n->tcp)
			return;
		if (rc != STEER_OK) {
			if (n->spoke)
				schedule_retry(n, err);
			else
				not_steer(n, err);
			return;
		}
		if (took == 0 && left) {
			schedule_retry(n, "frame too large");
			return;
		}
	}
}

static void on_connected(uv_connect_t *req, int status)
{
	tui_net *n = req->data;
	if (n->state == NET_STOPPED)
		return;
	if (status < 0) {
		schedule_retry(n, uv_strerror(status));
		return;
	}
	n->state = NET_CONNECTED;
	n->last_error[0] = n->refusal[0] = '\0';
	n->welcomed = n->spoke = n->probed = false;
	n->head_len = 0;
	/* A new connection starts a new compact stream: its first frame is a key. */
	steer_compact_state_reset(&n->compact);
	/* And the server sends its geometry again after the Welcome. */
	steer_snap_geometry_clear(&n->snapshot.geometry);
	/* Snapshots of a big world are large: allow far more than a client frame. */
	steer_framer_init(&n->framer, 256u * 1024u * 1024u);
	int rc = uv_read_start((uv_stream_t *)n->tcp, on_alloc, on_read);
	if (rc != 0) {
		schedule_retry(n, uv_strerror(rc));
		return;
	}
	uv_timer_start(&n->greet, on_greet_timer, PROBE_AFTER_MS, 0);
	if (n->ev.connected)
		n->ev.connected(n->ev.ud);
}

static void on_resolved(uv_getaddrinfo_t *req, int status, struct addrinfo *res)
{
	tui_net *n = req->data;
	if (n->state == NET_STOPPED) {
		uv_freeaddrinfo(res);
		return;
	}
	if (status < 0) {
		char why[160];
		snprintf(why, sizeof why, "cannot resolve %.80s: %s", n->host, uv_strerror(status));
		uv_freeaddrinfo(res);
		schedule_retry(n, why);
		return;
	}
	n->tcp = malloc(sizeof *n->tcp);
	if (!n->tcp || uv_tcp_init(n->loop, n->tcp) != 0) {
		free(n->tcp);
		n->tcp = NULL;
		uv_freeaddrinfo(res);
		schedule_retry(n, "out of memory");
		return;
	}
	n->tcp->data = n;
	uv_tcp_nodelay(n->tcp, 1);
	n->connect_req.data = n;
	int rc = uv_tcp_connect(&n->connect_req, n->tcp, res->ai_addr, on_connected);
	uv_freeaddrinfo(res);
	if (rc != 0)
		schedule_retry(n, uv_strerror(rc));
}

static void try_connect(tui_net *n)
{
	n->state = NET_CONNECTING;
	struct addrinfo hints;
	memset(&hints, 0, sizeof hints);
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	n->gai.data = n;
	int rc = uv_getaddrinfo(n->loop, &n->gai, on_resolved, n->host, n->port, &hints);
	if (rc != 0)
		schedule_retry(n, uv_strerror(rc));
}

int tui_net_start(tui_net *n, uv_loop_t *loop, const char *host, int port, const tui_net_events *ev)
{
	memset(n, 0, sizeof *n);
	n->loop = loop;
	snprintf(n->host, sizeof n->host, "%s", host);
	snprintf(n->port, sizeof n->port, "%d", port);
	steer_host_port(n->where, sizeof n->where, n->host, n->port);
	n->ev = *ev;
	n->backoff_ms = BACKOFF_MIN_MS;
	steer_strbuf_init(&n->out);
	steer_strbuf_init(&n->msg.json);
	steer_compact_state_init(&n->compact);
	int rc = uv_timer_init(loop, &n->retry);
	if (rc != 0)
		return rc;
	n->retry.data = n;
	rc = uv_timer_init(loop, &n->greet);
	if (rc != 0)
		return rc;
	n->greet.data = n;
	try_connect(n);
	return 0;
}

typedef struct send_req {
	uv_write_t req;
	char data[];
} send_req;

static void on_sent(uv_write_t *req, int status)
{
	(void)status; /* a failed write shows up as a read error and a reconnect */
	free(req);
}

bool tui_net_send_out(tui_net *n)
{
	if (n->state != NET_CONNECTED || !n->tcp || n->out.oom || n->out.len == 0)
		return false;
	send_req *r = malloc(sizeof *r + n->out.len);
	if (!r)
		return false;
	memcpy(r->data, n->out.data, n->out.len);
	uv_buf_t b = uv_buf_init(r->data, (unsigned)n->out.len);
	if (uv_write(&r->req, (uv_stream_t *)n->tcp, &b, 1, on_sent) != 0) {
		free(r);
		return false;
	}
	return true;
}

void tui_net_refused(tui_net *n, const char *why)
{
	snprintf(n->refusal, sizeof n->refusal, "%s", why);
}

void tui_net_stop(tui_net *n)
{
	n->state = NET_STOPPED;
	uv_timer_stop(&n->retry);
	if (!uv_is_closing((uv_handle_t *)&n->retry))
		uv_close((uv_handle_t *)&n->retry, NULL);
	drop_tcp(n);
	if (!uv_is_closing((uv_handle_t *)&n->greet))
		uv_close((uv_handle_t *)&n->greet, NULL);
}

void tui_net_free(tui_net *n)
{
	steer_snapshot_free(&n->snapshot);
	steer_compact_state_free(&n->compact);
	steer_strbuf_free(&n->msg.json);
	steer_strbuf_free(&n->out);
	steer_framer_free(&n->framer);
}
