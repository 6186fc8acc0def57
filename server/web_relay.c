/* One browser's WebSocket relayed to a protobuf connection of its own. The
 * connection (conn.c) holds one end of a socket pair and is served like any TCP
 * client, with the same budgets, limits and token; this relay holds the other end.
 * Each WebSocket message is one protobuf message, so the relay adds the length prefix
 * on the way in and takes it off on the way out.
 *
 * Backpressure travels through: while the browser has not taken the last message,
 * the relay stops reading its end, the socket pair fills, and the connection's own
 * rules for slow readers apply (only the newest snapshot waits; replies are capped).
 * While the connection has not taken what the browser sent, the WebSocket is not
 * read. */
#include "web_relay.h"

#include "reserve.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "conn.h"
#include "log.h"

/* The most of a message sent in one turn of the loop, in fragments. */
#define RELAY_TURN_MAX (1024u * 1024u)
/* Bytes of the connection's stream the relay reads ahead of the browser. */
#define RELAY_READ_AHEAD (256u * 1024u)
/* Bytes of the browser's messages written to the pair and not yet taken: past it,
 * the WebSocket is not read until they are. */
#define RELAY_WRITE_AHEAD (64u * 1024u)
/* Seconds a WebSocket whose connection has ended may take to receive what was read
 * before it is closed anyway: a browser that does not read is not kept for ever. */
#define RELAY_DRAIN_SECS 5
/* The largest message the server sends: a snapshot of a whole large world. */
#define RELAY_MAX_SERVER_FRAME (256u * 1024u * 1024u)

struct relay {
	struct lws *wsi; /* NULL once the WebSocket has closed */
	uv_pipe_t pipe;  /* the relay's end of the pair */
	bool pipe_closed;
	bool stream_ended; /* the connection closed its end: close the WebSocket */
	bool read_stopped;
	bool rx_paused;
	int idle_secs; /* --idle-timeout: how long the browser may take nothing */
	/* The connection's stream, read and not yet sent: [head, len) of buf. */
	uint8_t *in;
	size_t in_head, in_len, in_cap;
	/* The message being written to the browser, after LWS_PRE bytes lws may use. */
	uint8_t *out;
	size_t out_len, out_cap;
	size_t out_sent; /* of it, in fragments already written */
	/* The browser's message being received, in fragments. */
	uint8_t *msg;
	size_t msg_len;
	size_t written_ahead; /* bytes written to the pair, not yet taken */
	char why[96];         /* why the WebSocket closes, for its Close frame */
};

typedef struct relay_write {
	uv_write_t req;
	relay *r;
	size_t len;
	uint8_t data[];
} relay_write;

static void relay_free_if_done(relay *r)
{
	if (r->wsi || !r->pipe_closed)
		return;
	free(r->in);
	free(r->out);
	free(r->msg);
	free(r);
}

static void on_pipe_closed(uv_handle_t *h)
{
	relay *r = h->data;
	r->pipe_closed = true;
	relay_free_if_done(r);
}

static void close_pipe(relay *r)
{
	if (!uv_is_closing((uv_handle_t *)&r->pipe))
		uv_close((uv_handle_t *)&r->pipe, on_pipe_closed);
}

/* The connection's stream has ended (or failed): the WebSocket closes once what was
 * read has been sent. */
static void end_stream(relay *r, const char *why)
{
	if (r->stream_ended)
		return;
	r->stream_ended = true;
	snprintf(r->why, sizeof r->why, "%s", why);
	close_pipe(r);
	if (r->wsi) {
		lws_set_timeout(r->wsi, PENDING_TIMEOUT_USER_OK, RELAY_DRAIN_SECS);
		lws_callback_on_writable(r->wsi);
	}
}

/* Moves the next whole message of the stream into out, when out is free. */
static void take_message(relay *r)
{
	if (r->out_len || r->in_head == r->in_len)
		return;
	uint64_t len = 0;
	size_t i = r->in_head, shift = 0;
	for (;;) {
		if (i == r->in_len)
			return; /* the prefix is not all here */
		uint8_t b = r->in[i++];
		len |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			break;
		shift += 7;
		if (shift >= 35) {
			end_stream(r, "the server's stream is malformed");
			return;
		}
	}
	if (len > RELAY_MAX_SERVER_FRAME) {
		end_stream(r, "a message from the server is too large to relay");
		return;
	}
	if (r->in_len - i < len)
		return;
	if (steer_reserve((void **)&r->out, &r->out_cap, LWS_PRE + (size_t)len, 1) != STEER_OK) {
		end_stream(r, "out of memory");
		return;
	}
	memcpy(r->out + LWS_PRE, r->in + i, (size_t)len);
	r->out_len = (size_t)len;
	r->in_head = i + (size_t)len;
	if (r->in_head == r->in_len)
		r->in_head = r->in_len = 0;
	if (r->wsi)
		lws_callback_on_writable(r->wsi);
}

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
	relay *r = h->data;
	(void)suggested;
	if (r->in_head > 0 && r->in_head * 2 >= r->in_len) {
		memmove(r->in, r->in + r->in_head, r->in_len - r->in_head);
		r->in_len -= r->in_head;
		r->in_head = 0;
	}
	/* Room to read into; the buffer grows to hold a whole long message. */
	if (steer_reserve((void **)&r->in, &r->in_cap, r->in_len + 16 * 1024, 1) != STEER_OK) {
		*buf = uv_buf_init(NULL, 0); /* libuv reports UV_ENOBUFS */
		return;
	}
	*buf = uv_buf_init((char *)r->in + r->in_len, (unsigned)(r->in_cap - r->in_len));
}

static void on_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
	relay *r = s->data;
	(void)buf;
	if (n < 0) {
		end_stream(r,
		           n == UV_EOF ? "the server closed the connection" : uv_strerror((int)n));
		return;
	}
	r->in_len += (size_t)n;
	take_message(r);
	/* A message longer than the read-ahead is read whole before it is sent. */
	if (r->out_len && r->in_len - r->in_head >= RELAY_READ_AHEAD && !r->read_stopped) {
		uv_read_stop(s);
		r->read_stopped = true;
		/* Not reading, the relay would not see the connection end: a browser that
		 * takes nothing for --idle-timeout is closed here, as the connection would
		 * close it. */
		if (r->wsi && r->idle_secs > 0)
			lws_set_timeout(r->wsi, PENDING_TIMEOUT_USER_OK, r->idle_secs);
	}
}

relay *relay_open(server *s, struct lws *wsi)
{
	relay *r = calloc(1, sizeof *r);
	if (!r) {
		steer_log(STEER_LOG_ERROR, "out of memory for a web client");
		return NULL;
	}
	int fd[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fd) != 0) {
		steer_log(STEER_LOG_ERROR, "web client: socketpair: %s", strerror(errno));
		free(r);
		return NULL;
	}
	struct sockaddr_storage peer;
	socklen_t plen = sizeof peer;
	memset(&peer, 0, sizeof peer);
	if (getpeername(lws_get_socket_fd(wsi), (struct sockaddr *)&peer, &plen) != 0)
		peer.ss_family = AF_UNSPEC;
	int rc = uv_pipe_init(s->loop, &r->pipe, 0);
	if (rc == 0)
		rc = uv_pipe_open(&r->pipe, fd[1]);
	if (rc != 0) {
		steer_log(STEER_LOG_ERROR, "web client: %s", uv_strerror(rc));
		close(fd[0]);
		close(fd[1]);
		free(r);
		return NULL;
	}
	r->pipe.data = r;
	r->wsi = wsi;
	r->idle_secs = s->opt.idle_timeout > 0 ? (int)ceil(s->opt.idle_timeout) : 0;
	if (!conn_adopt(s, fd[0], &peer)) {
		close(fd[0]);
		r->wsi = NULL;
		close_pipe(r); /* closes fd[1] and frees r */
		return NULL;
	}
	rc = uv_read_start((uv_stream_t *)&r->pipe, on_alloc, on_read);
	if (rc != 0)
		end_stream(r, uv_strerror(rc));
	return r;
}

int relay_writable(relay *r)
{
	if (r->out_len) {
		/* A long message goes in fragments of RELAY_FRAGMENT, as many a turn as the
		 * socket takes without waiting, up to RELAY_TURN_MAX. What the socket does
		 * not take of a write, libwebsockets copies and keeps, and the pipe is then
		 * choked: a slow browser holds at most a fragment there, not a whole world's
		 * snapshot, and one that keeps up gets a big snapshot in a turn or two, as a
		 * TCP client does. */
		size_t turn = 0;
		for (;;) {
			size_t left = r->out_len - r->out_sent;
			size_t n = left < RELAY_FRAGMENT ? left : RELAY_FRAGMENT;
			int flags =
			    lws_write_ws_flags(LWS_WRITE_BINARY, r->out_sent == 0, n == left);
			if (lws_write(r->wsi, r->out + LWS_PRE + r->out_sent, n,
			              (enum lws_write_protocol)flags) < (int)n)
				return -1;
			r->out_sent += n;
			turn += n;
			if (n == left)
				break;
			if (turn >= RELAY_TURN_MAX || lws_send_pipe_choked(r->wsi)) {
				lws_callback_on_writable(r->wsi);
				return 0;
			}
		}
		r->out_len = r->out_sent = 0;
		take_message(r);
		/* Reading stopped while a message waited to be sent: it has been. The next
		 * may not be whole yet, however much is read ahead. */
		if (r->read_stopped && !r->stream_ended &&
		    (!r->out_len || r->in_len - r->in_head < RELAY_READ_AHEAD)) {
			if (uv_read_start((uv_stream_t *)&r->pipe, on_alloc, on_read) != 0)
				return -1;
			r->read_stopped = false;
			lws_set_timeout(r->wsi, NO_PENDING_TIMEOUT, 0);
		}
		if (r->out_len || !r->stream_ended)
			return 0;
	}
	if (r->stream_ended && !r->out_len) {
		lws_close_reason(r->wsi, LWS_CLOSE_STATUS_NORMAL, (unsigned char *)r->why,
		                 strlen(r->why));
		return -1;
	}
	return 0;
}

static void on_written(uv_write_t *req, int status)
{
	relay_write *w = (relay_write *)req;
	relay *r = w->r;
	r->written_ahead -= w->len;
	free(w);
	if (status < 0)
		return; /* the pair is closing: the read side ends the WebSocket */
	if (r->rx_paused && r->wsi && r->written_ahead < RELAY_WRITE_AHEAD) {
		r->rx_paused = false;
		lws_rx_flow_control(r->wsi, 1);
	}
}

/* Writes the browser's whole message to the pair, with its length prefix. */
static int send_message(relay *r)
{
	relay_write *w = malloc(sizeof *w + STEER_FRAME_PREFIX_MAX + r->msg_len);
	if (!w)
		return -1;
	size_t n = 0;
	uint64_t v = r->msg_len;
	do {
		uint8_t b = v & 0x7f;
		v >>= 7;
		w->data[n++] = (uint8_t)(b | (v ? 0x80 : 0));
	} while (v);
	memcpy(w->data + n, r->msg, r->msg_len);
	w->len = n + r->msg_len;
	w->r = r;
	r->msg_len = 0;
	uv_buf_t buf = uv_buf_init((char *)w->data, (unsigned)w->len);
	if (uv_write(&w->req, (uv_stream_t *)&r->pipe, &buf, 1, on_written) != 0) {
		free(w);
		return -1;
	}
	r->written_ahead += w->len;
	if (r->written_ahead >= RELAY_WRITE_AHEAD && !r->rx_paused) {
		r->rx_paused = true;
		lws_rx_flow_control(r->wsi, 0);
	}
	return 0;
}

int relay_from_browser(relay *r, const void *data, size_t len)
{
	if (r->stream_ended)
		return 0; /* closing: what the browser still sends is dropped */
	if (!lws_frame_is_binary(r->wsi)) {
		const char *why = "only binary messages (protobuf ClientMessage) are taken";
		lws_close_reason(r->wsi, LWS_CLOSE_STATUS_UNACCEPTABLE_OPCODE, (unsigned char *)why,
		                 strlen(why));
		return -1;
	}
	if (r->msg_len + len > STEER_MAX_CLIENT_FRAME) {
		char why[96];
		int n =
		    snprintf(why, sizeof why, "a message over %u bytes", STEER_MAX_CLIENT_FRAME);
		lws_close_reason(r->wsi, LWS_CLOSE_STATUS_MESSAGE_TOO_LARGE, (unsigned char *)why,
		                 (size_t)n);
		return -1;
	}
	if (!r->msg) {
		r->msg = malloc(STEER_MAX_CLIENT_FRAME);
		if (!r->msg)
			return -1;
	}
	memcpy(r->msg + r->msg_len, data, len);
	r->msg_len += len;
	if (!lws_is_final_fragment(r->wsi) || lws_remaining_packet_payload(r->wsi))
		return 0;
	return send_message(r);
}

void relay_closed(relay *r)
{
	r->wsi = NULL;
	close_pipe(r); /* the connection reads the end of its stream and closes */
	relay_free_if_done(r);
}
