/* An address as a person reads and types it: host:port, with an IPv6 host in
 * brackets ([::1]:7701), as URLs and most tools write it. */
#ifndef STEER_HOST_PORT_H
#define STEER_HOST_PORT_H

#include <stddef.h>

/* host and port (as text) into out (n bytes, cut short if need be); returns out. */
const char *steer_host_port(char *out, size_t n, const char *host, const char *port);

#endif
