/* A browser's WebSocket relayed to a protobuf connection of its own (web_relay.c). */
#ifndef STEER_WEB_RELAY_H
#define STEER_WEB_RELAY_H

#include <libwebsockets.h>

#include "server.h"

typedef struct relay relay;

/* A WebSocket fragment written at once. libwebsockets is told to send it in one
 * send() (web.c), else it sends 4 KB each time the socket is writable and keeps the
 * rest. */
#define RELAY_FRAGMENT (64u * 1024u)

/* Opens the connection for the WebSocket wsi, just established. NULL after logging
 * why: the WebSocket is then closed. */
relay *relay_open(server *s, struct lws *wsi);
/* One fragment of a message from the browser. -1: close the WebSocket (the reason is
 * set). */
int relay_from_browser(relay *r, const void *data, size_t len);
/* The WebSocket may be written: sends the next message. -1: close it. */
int relay_writable(relay *r);
/* The WebSocket has closed: the connection is closed too, and r freed. */
void relay_closed(relay *r);

#endif
