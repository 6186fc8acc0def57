#include "conn.h"

#include <limits.h>
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
#include "jobs.h"
#include "journal.h"
#include "journal_format.h"
#include "log.h"
#include "replay.h"
#include "reserve.h"
#include "serve.h"

typedef struct write_req {
	uv_write_t req;
	sbuf *buf;
	bool snapshot;
} write_req;

static void on_closed(uv_handle_t *h)
{
	conn *c = h->data;
	server *s = c->srv;
	if (c->prev)
		c->prev->next = c->next;
	else if (s->conns == c)
		s->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	s->nconns--;
	s->npeer_done -= c->peer_done;
	s->nlingering -= c->linger_until_ms != 0;
	jobs_conn_gone(s, c);
	journal_conn_gone(s->journal, c);
	free(c->held);
	free(c->retry_words);
	/* What it held (snapshots, replies it never read, its share of buffers) goes back
	 * to the system. */
	s->trim_due = true;
	sbuf_unref(c->pending);
	cframe_unref(c->pending_frame);
	cframe_unref(c->base);
	steer_framer_free(&c->framer);
	free(c);
}

/* Whether a connection's opening or closing may be logged now: at most
 * CHURN_LOG_PER_SEC a second, the rest counted and told in one line, so that clients
 * connecting and leaving in a loop cannot fill the log. */
#define CHURN_LOG_PER_SEC 20

bool conn_churn_log_ok(server *s)
{
	uint64_t sec = uv_now(s->loop) / 1000;
	if (sec != s->churn_sec) {
		if (s->churn_unlogged)
			steer_log(STEER_LOG_INFO,
			          "%llu more connections opened or closed in the last seconds, not "
			          "logged one by one",
			          (unsigned long long)s->churn_unlogged);
		s->churn_sec = sec;
		s->churn_logged = 0;
		s->churn_unlogged = 0;
	}
	if (s->churn_logged < CHURN_LOG_PER_SEC) {
		s->churn_logged++;
		return true;
	}
	s->churn_unlogged++;
	return false;
}

const char *conn_kind_name(const conn *c)
{
	return c->web ? "web" : c->kind == CONN_PROTO ? "proto" : "cmd";
}

void conn_close(conn *c, const char *why)
{
	if (c->closing)
		return;
	c->closing = true;
	/* A routine leaving is churn; any other reason (idle, not reading, a bad frame) is
	 * always told. */
	bool routine = !strcmp(why, "disconnected") || !strcmp(why, "quit") ||
	               strstr(why, "reset") || !strcmp(why, "server full") ||
	               !strcmp(why, "server stopping") || strstr(why, "broken pipe");
	if (!routine || conn_churn_log_ok(c->srv))
		steer_log(STEER_LOG_INFO, "%s client %llu (%s) closed: %s", conn_kind_name(c),
		          (unsigned long long)c->id, c->peer, why);
	uv_read_stop((uv_stream_t *)&c->tcp);
	uv_close((uv_handle_t *)&c->tcp, on_closed);
}

/* How long, and for how many bytes, a finished connection reads what its peer still
 * sends before it closes. */
#define LINGER_MS    2000
#define LINGER_BYTES (1u << 20)

void conn_end_linger(conn *c)
{
	c->closing = false; /* conn_finish set it to stop further reads and writes */
	conn_close(c, c->finish_why);
}

static void on_linger_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
	static char dropped[64 * 1024]; /* written, never read */
	(void)h;
	(void)suggested;
	*buf = uv_buf_init(dropped, sizeof dropped);
}

static void on_linger_read(uv_stream_t *st, ssize_t n, const uv_buf_t *buf)
{
	conn *c = st->data;
	(void)buf;
	if (n > 0)
		c->lingered_bytes += (size_t)n;
	if (n < 0 || c->lingered_bytes > LINGER_BYTES)
		conn_end_linger(c);
}

static void on_shutdown(uv_shutdown_t *req, int status)
{
	conn *c = req->handle->data;
	(void)status;
	free(req);
	/* A forced close (server stopping) cancels a pending shutdown: this callback then
	 * runs during that close, and closing again would close the handle twice. */
	if (uv_is_closing((uv_handle_t *)&c->tcp))
		return;
	/* The peer may still be sending (the rest of a line too long, say). Closed with
	 * bytes unread, the socket would send a reset, which can destroy the last reply in
	 * the peer's buffers before it is read: so what comes is read and dropped until
	 * the peer closes, for LINGER_MS at most. */
	if (c->srv->stopping ||
	    uv_read_start((uv_stream_t *)&c->tcp, on_linger_alloc, on_linger_read) != 0) {
		conn_end_linger(c);
		return;
	}
	c->linger_until_ms = uv_now(c->srv->loop) + LINGER_MS;
	c->srv->nlingering++;
	server_linger_started(c->srv);
}

void conn_finish(conn *c, const char *why)
{
	if (c->closing)
		return;
	uv_shutdown_t *req = malloc(sizeof *req);
	if (!req || uv_shutdown(req, (uv_stream_t *)&c->tcp, on_shutdown) != 0) {
		free(req);
		conn_close(c, why);
		return;
	}
	snprintf(c->finish_why, sizeof c->finish_why, "%s", why);
	c->closing = true;
	uv_read_stop((uv_stream_t *)&c->tcp);
}

static void write_shared(conn *c, sbuf *b, bool snapshot);
static void write_snapshot(conn *c, sbuf *b, cframe *frame, uint64_t base_seq);

static void forget_pending(conn *c)
{
	sbuf_unref(c->pending);
	cframe_unref(c->pending_frame);
	c->pending = NULL;
	c->pending_frame = NULL;
}

static void on_written(uv_write_t *req, int status)
{
	write_req *w = (write_req *)req;
	conn *c = req->handle->data;
	if (w->snapshot) {
		c->snapshots_in_flight--;
	} else {
		c->reply_queued -= w->buf->len;
		c->srv->reply_queued -= w->buf->len;
	}
	sbuf_unref(w->buf);
	free(w);
	if (status < 0) {
		if (status != UV_ECANCELED)
			conn_close(c, uv_strerror(status));
		return;
	}
	/* A protobuf client is judged by what it takes, not by what the kernel took. */
	if (c->kind == CONN_TEXT)
		c->last_active_ms = uv_now(c->srv->loop);
	if (!c->closing && c->pending && c->snapshots_in_flight < SNAPSHOTS_IN_FLIGHT) {
		sbuf *next = c->pending;
		cframe *frame = c->pending_frame;
		c->pending = NULL;
		c->pending_frame = NULL;
		write_snapshot(c, next, frame, c->pending_base);
		sbuf_unref(next);
		cframe_unref(frame);
	}
}

/* Makes room for len more bytes of replies to c under --reply-queue-max: past it,
 * the connection with the most replies queued is dropped, until there is room or c
 * itself was. False when c was. */
static bool reply_room(conn *c, size_t len)
{
	server *s = c->srv;
	while (s->reply_queued + len > s->opt.reply_queue_max) {
		/* Closed connections' writes are cancelled later in this loop turn. */
		size_t open = 0;
		conn *most = c;
		for (conn *o = s->conns; o; o = o->next) {
			if (o->closing)
				continue;
			open += o->reply_queued;
			if (o->reply_queued > most->reply_queued)
				most = o;
		}
		if (open + len <= s->opt.reply_queue_max)
			return true;
		char why[128];
		snprintf(why, sizeof why,
		         "replies queued for all clients over --reply-queue-max; this one had "
		         "the most (%zu bytes): not reading",
		         most->reply_queued);
		conn_close(most, why);
		if (most == c)
			return false;
	}
	return true;
}

/* Writes b (taking a reference). Closes the connection past the queue cap. */
static void write_shared(conn *c, sbuf *b, bool snapshot)
{
	if (c->closing)
		return;
	size_t queued = uv_stream_get_write_queue_size((uv_stream_t *)&c->tcp);
	if (queued + b->len > c->srv->opt.client_queue_max) {
		conn_close(c, "output queue over its cap: the client is not reading");
		return;
	}
	if (!snapshot && !reply_room(c, b->len))
		return;
	if (b->len > UINT_MAX) { /* one libuv buffer's length is an unsigned int */
		conn_close(c, "a message over 4 GiB, too large to send");
		return;
	}
	write_req *w = malloc(sizeof *w);
	if (!w) {
		conn_close(c, "out of memory");
		return;
	}
	w->buf = b;
	w->snapshot = snapshot;
	b->refs++;
	uv_buf_t buf = uv_buf_init(b->data, (unsigned)b->len);
	int rc = uv_write(&w->req, (uv_stream_t *)&c->tcp, &buf, 1, on_written);
	if (rc != 0) {
		sbuf_unref(b);
		free(w);
		conn_close(c, uv_strerror(rc));
		return;
	}
	c->bytes_written += b->len;
	if (snapshot) {
		c->snapshots_in_flight++;
		c->snapshots_sent++;
	} else {
		c->reply_queued += b->len;
		c->srv->reply_queued += b->len;
	}
}

/* How many of the bytes written to c its peer has taken: those handed to the kernel
 * and no longer in its send queue (SIOCOUTQ: not yet acknowledged). Without
 * SIOCOUTQ, those handed to the kernel. */
static uint64_t bytes_taken(conn *c)
{
	uint64_t in_kernel =
	    c->bytes_written - uv_stream_get_write_queue_size((uv_stream_t *)&c->tcp);
#ifdef SIOCOUTQ
	uv_os_fd_t fd;
	int unacked;
	if (uv_fileno((uv_handle_t *)&c->tcp, &fd) == 0 && ioctl(fd, SIOCOUTQ, &unacked) == 0 &&
	    unacked >= 0 && (uint64_t)unacked <= in_kernel)
		return in_kernel - (uint64_t)unacked;
#endif
	return in_kernel;
}

/* Forgets the snapshots the peer has taken; taking one is activity. */
void conn_note_taken(conn *c)
{
	if (c->nuntaken == 0)
		return;
	uint64_t taken = bytes_taken(c);
	size_t k = 0;
	while (k < c->nuntaken && c->untaken[k].end <= taken)
		k++;
	if (k == 0)
		return;
	c->last_active_ms = uv_now(c->srv->loop);
	c->nuntaken -= k;
	memmove(c->untaken, c->untaken + k, c->nuntaken * sizeof *c->untaken);
}

/* Remembers a snapshot just written, so that its taking can be noticed. With the
 * list full the newest entry moves: the one before it then stands for both, and a
 * client that far behind is judged by the older. */
static void note_written(conn *c)
{
	uint64_t now = uv_now(c->srv->loop);
	conn_note_taken(c);
	if (c->nuntaken == 0)
		c->last_active_ms = now; /* it had taken everything: up to date until now */
	if (c->nuntaken == UNTAKEN_MAX)
		c->nuntaken--;
	c->untaken[c->nuntaken++] = (written_mark){c->bytes_written, now};
}

/* A compact snapshot becomes the connection's base once handed to uv_write: nothing
 * written later can overtake it. */
static void write_snapshot(conn *c, sbuf *b, cframe *frame, uint64_t base_seq)
{
	if (frame && base_seq && (!c->base || c->base->f.seq != base_seq)) {
		/* Encoded on a frame this client will not hold: never sent, and the next
		 * one is a key frame. (Pending snapshots are written in order, so this
		 * guards against a future change breaking that, not a known case.) */
		steer_log(STEER_LOG_WARN, "client %llu: dropped a delta on a stale base",
		          (unsigned long long)c->id);
		cframe_unref(c->base);
		c->base = NULL;
		return;
	}
	write_shared(c, b, true);
	if (!c->closing)
		note_written(c);
	if (frame && !c->closing) {
		frame->refs++;
		cframe_unref(c->base);
		c->base = frame;
	}
}

bool conn_send_copy(conn *c, const char *data, size_t len)
{
	if (c->closing)
		return false;
	/* A snapshot still waiting was encoded before whatever this reply answers: drop
	 * it, so every snapshot a client reads after a reply reflects that command. The
	 * base stays: the dropped frame was never written. */
	forget_pending(c);
	sbuf *b = sbuf_new(data, len);
	if (!b) {
		conn_close(c, "out of memory");
		return false;
	}
	write_shared(c, b, false);
	sbuf_unref(b);
	return !c->closing;
}

bool conn_send_shared(conn *c, sbuf *b)
{
	if (c->closing)
		return false;
	forget_pending(c);
	write_shared(c, b, false);
	return !c->closing;
}

uint64_t conn_untaken_ms(conn *c)
{
	conn_note_taken(c);
	return c->nuntaken ? uv_now(c->srv->loop) - c->untaken[0].ms : 0;
}

void conn_drop_waiting_snapshot(conn *c)
{
	forget_pending(c);
	cframe_unref(c->base);
	c->base = NULL;
}

void conn_offer_snapshot(conn *c, sbuf *snap, cframe *frame, uint64_t base_seq)
{
	if (c->closing || !c->welcomed)
		return;
	if (c->snapshots_in_flight < SNAPSHOTS_IN_FLIGHT) {
		write_snapshot(c, snap, frame, base_seq);
		return;
	}
	/* The client is behind: keep only the newest. It was encoded on the same base
	 * as the one it replaces, since nothing was written in between. */
	if (c->pending)
		c->snapshots_replaced++;
	forget_pending(c);
	snap->refs++;
	c->pending = snap;
	if (frame)
		frame->refs++;
	c->pending_frame = frame;
	c->pending_base = base_seq;
}
