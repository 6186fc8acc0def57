/* The page and its WebSocket (--http): libwebsockets on the server's own loop
 * (web.c). A browser's WebSocket is relayed to a protobuf connection like any other
 * (web_relay.c), so it has every budget, limit and check a TCP client has. */
#ifndef STEER_WEB_H
#define STEER_WEB_H

#include "server.h"

typedef struct web web;

/* Listens on --http's port (0: a free one) at --bind, and prints "listening web
 * ADDR:PORT". 0 with *out set, or NULL under --no-http; -1 after logging why. */
int web_start(server *s, web **out);
/* The port it listens on. */
int web_port(const web *w);
/* Stops listening and closes every page's connection; the loop then runs their
 * closing to its end. */
void web_stop(web *w);
/* Once the loop has ended. NULL is fine. */
void web_free(web *w);

#endif
