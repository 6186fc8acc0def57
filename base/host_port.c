#include "host_port.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

const char *steer_host_port(char *out, size_t n, const char *host, const char *port)
{
	/* A colon in the host is IPv6's; without brackets its last group reads as the port. */
	bool v6 = strchr(host, ':') && host[0] != '[';
	snprintf(out, n, v6 ? "[%s]:%s" : "%s:%s", host, port);
	return out;
}
