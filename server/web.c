/* The page and its WebSocket (--http): libwebsockets on the server's own libuv loop.
 * It serves the page's files, built into the program (web/), and upgrades /ws to a
 * WebSocket whose messages are relayed to a protobuf connection (web_relay.c). */
#include "web.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "assets.h"
#include "conn.h"
#include "host_port.h"
#include "log.h"
#include "web_relay.h"

struct web {
	server *srv;
	struct lws_context *ctx;
	struct lws_vhost *vhost;
	int port;
};

/* What one connection holds: the file it is being sent, or, once it is a WebSocket,
 * its relay. */
typedef struct session {
	const steer_web_asset *asset;
	size_t sent;
	relay *relay;
} session;

#define HTTP_CHUNK (16u * 1024u)

static const steer_web_asset *find_asset(const char *path)
{
	if (!strcmp(path, "/"))
		path = "/index.html";
	for (size_t i = 0; i < steer_web_asset_count; i++)
		if (!strcmp(steer_web_assets[i].path, path))
			return &steer_web_assets[i];
	return NULL;
}

static int add_header(struct lws *wsi, const char *name, const char *value, unsigned char **p,
                      unsigned char *end)
{
	return lws_add_http_header_by_name(wsi, (const unsigned char *)name,
	                                   (const unsigned char *)value, (int)strlen(value), p,
	                                   end);
}

/* Starts sending a file: its headers now, its bytes as the socket takes them. */
static int serve_file(struct lws *wsi, session *ss, const char *path)
{
	const steer_web_asset *a = find_asset(path);
	if (!a) {
		if (lws_return_http_status(wsi, HTTP_STATUS_NOT_FOUND, "no such file"))
			return -1;
		return lws_http_transaction_completed(wsi) ? -1 : 0;
	}
	unsigned char buf[LWS_PRE + 1024], *start = buf + LWS_PRE, *p = start,
	                                   *end = buf + sizeof buf - 1;
	/* The page talks only to this server: nothing from elsewhere may run in it. */
	if (lws_add_http_common_headers(wsi, HTTP_STATUS_OK, a->type, a->len, &p, end) ||
	    add_header(wsi, "cache-control:", "no-cache", &p, end) ||
	    add_header(wsi, "x-content-type-options:", "nosniff", &p, end) ||
	    add_header(
	        wsi, "content-security-policy:",
	        "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
	        "connect-src 'self'; frame-ancestors 'none'",
	        &p, end) ||
	    lws_finalize_write_http_header(wsi, start, &p, end))
		return -1;
	ss->asset = a;
	ss->sent = 0;
	lws_callback_on_writable(wsi);
	return 0;
}

static int send_file_part(struct lws *wsi, session *ss)
{
	const steer_web_asset *a = ss->asset;
	if (!a)
		return 0;
	unsigned char buf[LWS_PRE + HTTP_CHUNK];
	size_t n = a->len - ss->sent < HTTP_CHUNK ? a->len - ss->sent : HTTP_CHUNK;
	memcpy(buf + LWS_PRE, a->data + ss->sent, n);
	bool last = ss->sent + n == a->len;
	if (lws_write(wsi, buf + LWS_PRE, n, last ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP) < (int)n)
		return -1;
	ss->sent += n;
	if (!last) {
		lws_callback_on_writable(wsi);
		return 0;
	}
	ss->asset = NULL;
	return lws_http_transaction_completed(wsi) ? -1 : 0;
}

/* A WebSocket is taken only from the page this server served: a page from another
 * site, open in the same browser, must not drive the world with the browser's
 * access to this address. Clients that are not browsers send no Origin. */
static bool same_origin(struct lws *wsi)
{
	char origin[256], host[256];
	if (lws_hdr_copy(wsi, origin, sizeof origin, WSI_TOKEN_ORIGIN) <= 0)
		return true;
	if (lws_hdr_copy(wsi, host, sizeof host, WSI_TOKEN_HOST) <= 0)
		return false;
	const char *o = origin;
	if (!strncasecmp(o, "http://", 7))
		o += 7;
	else if (!strncasecmp(o, "https://", 8))
		o += 8;
	else
		return false;
	return !strcasecmp(o, host);
}

static int on_lws(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                  size_t len)
{
	struct lws_vhost *vh = lws_get_vhost(wsi);
	web *w = vh ? lws_get_vhost_user(vh) : NULL;
	session *ss = user;
	switch (reason) {
	case LWS_CALLBACK_HTTP:
		if (lws_hdr_total_length(wsi, WSI_TOKEN_GET_URI) <= 0) {
			lws_return_http_status(wsi, HTTP_STATUS_METHOD_NOT_ALLOWED, "only GET");
			return -1;
		}
		return serve_file(wsi, ss, in);
	case LWS_CALLBACK_HTTP_WRITEABLE:
		return send_file_part(wsi, ss);
	case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
		if (w->srv->stopping)
			return 1;
		if (!same_origin(wsi)) {
			char origin[256] = "";
			lws_hdr_copy(wsi, origin, sizeof origin, WSI_TOKEN_ORIGIN);
			steer_log(STEER_LOG_WARN,
			          "refused a WebSocket from a page of another origin (%s)", origin);
			return 1;
		}
		return 0;
	case LWS_CALLBACK_ESTABLISHED:
		ss->relay = relay_open(w->srv, wsi);
		return ss->relay ? 0 : -1;
	case LWS_CALLBACK_RECEIVE:
		return ss->relay ? relay_from_browser(ss->relay, in, len) : -1;
	case LWS_CALLBACK_SERVER_WRITEABLE:
		return ss->relay ? relay_writable(ss->relay) : -1;
	case LWS_CALLBACK_CLOSED:
		if (ss->relay)
			relay_closed(ss->relay);
		ss->relay = NULL;
		return 0;
	default:
		return lws_callback_http_dummy(wsi, reason, user, in, len);
	}
}

static const struct lws_protocols protocols[] = {
    /* tx_packet_size: a whole fragment in one send(). Left 0, libwebsockets sends
     * 4 KB each time the socket is writable and keeps the rest: once the tick takes
     * most of each loop turn, a browser got about 100 KB a second. */
    {"steer", on_lws, sizeof(session), 0, 0, NULL, RELAY_FRAGMENT},
    {NULL, NULL, 0, 0, 0, NULL, 0},
};

static void on_lws_log(int level, const char *line)
{
	size_t n = strlen(line);
	while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
		n--;
	steer_log(level & LLL_ERR ? STEER_LOG_ERROR : STEER_LOG_WARN, "http: %.*s", (int)n, line);
}

int web_start(server *s, web **out)
{
	*out = NULL;
	if (s->opt.http_port < 0)
		return 0;
	web *w = calloc(1, sizeof *w);
	if (!w) {
		steer_log(STEER_LOG_ERROR, "out of memory starting the page");
		return -1;
	}
	w->srv = s;
	lws_set_log_level(LLL_ERR | LLL_WARN, on_lws_log);
	struct lws_context_creation_info ci;
	memset(&ci, 0, sizeof ci);
	void *loops[] = {s->loop};
	ci.options = LWS_SERVER_OPTION_LIBUV | LWS_SERVER_OPTION_EXPLICIT_VHOSTS |
	             LWS_SERVER_OPTION_UV_NO_SIGSEGV_SIGFPE_SPIN;
	ci.foreign_loops = loops;
	ci.port = CONTEXT_PORT_NO_LISTEN;
	ci.gid = -1;
	ci.uid = -1;
	w->ctx = lws_create_context(&ci);
	if (!w->ctx) {
		steer_log(STEER_LOG_ERROR, "cannot start the page: libwebsockets (with its libuv "
		                           "event library, libwebsockets-evlib-uv) did not start");
		free(w);
		return -1;
	}
	struct lws_context_creation_info vi;
	memset(&vi, 0, sizeof vi);
	vi.port = s->opt.http_port;
	vi.iface = s->opt.bind;
	vi.protocols = protocols;
	vi.user = w;
	vi.vhost_name = "steer";
	vi.options = LWS_SERVER_OPTION_VALIDATE_UTF8;
	/* A connection that has not finished its request or handshake by then is closed. */
	vi.timeout_secs = 10;
	w->vhost = lws_create_vhost(w->ctx, &vi);
	if (!w->vhost) {
		steer_log(STEER_LOG_ERROR,
		          "cannot listen on %s port %d for the page (in use?); give --http another "
		          "port, --http 0 for a free one, or --no-http",
		          s->opt.bind, s->opt.http_port);
		lws_context_destroy(w->ctx);
		free(w);
		return -1;
	}
	w->port = lws_get_vhost_listen_port(w->vhost);
	char port_text[8], where[300];
	snprintf(port_text, sizeof port_text, "%d", w->port);
	steer_host_port(where, sizeof where, s->opt.bind, port_text);
	printf("listening web %s\n", where);
	fflush(stdout);
	steer_log(STEER_LOG_INFO, "listening web %s (the page: http://%s/)", where, where);
	*out = w;
	return 0;
}

int web_port(const web *w)
{
	return w->port;
}

void web_stop(web *w)
{
	if (!w || !w->ctx)
		return;
	lws_context_destroy(w->ctx);
	w->ctx = NULL;
}

void web_free(web *w)
{
	if (!w)
		return;
	if (w->ctx)
		lws_context_destroy(w->ctx);
	free(w);
}
