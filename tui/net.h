/* The terminal client's connection to steer-server: resolve, connect, read frames,
 * and reconnect with exponential backoff when the server goes away. Never polls:
 * everything is a libuv callback or timer. */
#ifndef TUI_NET_H
#define TUI_NET_H

#include <stdbool.h>
#include <stdint.h>
#include <uv.h>

#include "steer/wire.h"

typedef enum tui_net_state {
	NET_CONNECTING,
	NET_CONNECTED,
	NET_WAITING, /* disconnected; a retry timer is running */
	NET_STOPPED,
} tui_net_state;

typedef struct tui_net tui_net;

typedef struct tui_net_events {
	void *ud;
	void (*connected)(void *ud);
	/* One decoded ServerMessage; the snapshot (if any) is in net->snapshot. */
	void (*message)(void *ud, const steer_server_msg *m);
	/* The connection dropped or could not be made; why is for the status line. */
	void (*disconnected)(void *ud, const char *why);
} tui_net_events;

struct tui_net {
	uv_loop_t *loop;
	char host[256];
	char port[16];
	char where[300]; /* host:port as printed: [::1]:7700 */
	tui_net_events ev;
	tui_net_state state;
	uv_tcp_t *tcp; /* heap: freed in its close callback, which may outlive a retry */
	uv_getaddrinfo_t gai;
	uv_connect_t connect_req;
	uv_timer_t retry;
	/* Until the Welcome: a probe after a silent second, then giving up (net.c). */
	uv_timer_t greet;
	bool spoke;    /* a frame decoded on this connection: it is steer-server */
	bool welcomed; /* and a Welcome among them */
	bool probed;   /* the probe newline went out on this connection */
	char head[8];  /* the connection's first bytes, to recognise a text port */
	size_t head_len;
	uint64_t backoff_ms;
	uint64_t retry_at_ms; /* loop time of the next attempt, for the status line */
	char last_error[192];
	/* What the server said when it refused the connection (request 0), before it
	 * closed: the reason the retry shows. */
	char refusal[128];
	steer_framer framer;
	steer_server_msg msg;
	steer_snapshot snapshot;
	steer_compact_state compact; /* the base of the server's next compact delta */
	steer_strbuf out;            /* scratch for encoding */
	uint64_t bytes_in;           /* bytes received, over every connection */
};

int tui_net_start(tui_net *n, uv_loop_t *loop, const char *host, int port,
                  const tui_net_events *ev);
/* Sends one frame built by a steer_wire_* encoder into n->out. false when not
 * connected or the write could not be queued. */
bool tui_net_send_out(tui_net *n);
/* The server refused this connection in words (a full server): kept for the retry. */
void tui_net_refused(tui_net *n, const char *why);
void tui_net_stop(tui_net *n);
/* Frees buffers once the loop has finished. */
void tui_net_free(tui_net *n);

#endif
