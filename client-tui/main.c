/* steer-tui: watch and steer a shared steer-server world from a terminal. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: steer-tui [--host H] [--port P]\n"
	           "  Connects to steer-server's protobuf port (default 127.0.0.1:7700).\n"
	           "  Press ? inside for the keys, q to quit.\n");
}

int main(int argc, char **argv)
{
	const char *host = "127.0.0.1";
	int port = 7700;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--host") && i + 1 < argc) {
			host = argv[++i];
		} else if (!strcmp(argv[i], "--port") && i + 1 < argc) {
			char *end;
			long p = strtol(argv[++i], &end, 10);
			if (*end || p < 1 || p > 65535) {
				fprintf(stderr, "steer-tui: --port: '%s' is not a port number\n",
				        argv[i]);
				return 2;
			}
			port = (int)p;
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			return 0;
		} else {
			fprintf(stderr, "steer-tui: unknown argument '%s'\n", argv[i]);
			usage(stderr);
			return 2;
		}
	}
	return tui_app_run(host, port);
}
