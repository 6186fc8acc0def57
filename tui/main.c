/* steer-tui: watch and steer a shared steer-server world from a terminal. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pwd.h>
#include <unistd.h>

#include "app.h"
#include "cli.h"
#include "steer/command.h"
#include "token.h"

#ifndef STEER_VERSION
#define STEER_VERSION "unknown"
#endif

static void usage(FILE *f)
{
	fprintf(f, "usage: steer-tui [--host H] [--port P] [--cmd-port N] [--name NAME]\n"
	           "                 [--token SECRET | --token-file PATH]\n"
	           "  Connects to steer-server's protobuf port (default 127.0.0.1:7700).\n"
	           "  --cmd-port N   the server's text command port, shown in the help (? key)\n"
	           "  --name NAME    how other clients see you: \"NAME paused\" (default: $USER or "
	           "the login name)\n"
	           "  --token SECRET present steer-server's --token in the Hello, to change the\n"
	           "                 world; a refused token ends steer-tui (exit status 2)\n"
	           "  --token-file PATH  the same, read from the file's first line (not in ps);\n"
	           "                 without either, $STEER_TOKEN if set\n"
	           "  --version      print the version and exit\n"
	           "  --help, -h     this text\n"
	           "  Press ? inside for the keys, q to quit. NO_COLOR=1 turns colours off.\n");
}

enum {
	OPT_HOST = 256,
	OPT_PORT,
	OPT_CMD_PORT,
	OPT_NAME,
	OPT_TOKEN,
	OPT_TOKEN_FILE,
	OPT_VERSION,
};

static const struct option longs[] = {
    {"host", required_argument, NULL, OPT_HOST},
    {"port", required_argument, NULL, OPT_PORT},
    {"cmd-port", required_argument, NULL, OPT_CMD_PORT},
    {"name", required_argument, NULL, OPT_NAME},
    {"token", required_argument, NULL, OPT_TOKEN},
    {"token-file", required_argument, NULL, OPT_TOKEN_FILE},
    {"version", no_argument, NULL, OPT_VERSION},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

/* A port number 1..65535, or -1 with a message. */
static int parse_port(const char *flag, const char *text)
{
	char *end;
	long p = strtol(text, &end, 10);
	if (!*text || *end || p < 1 || p > 65535) {
		fprintf(stderr, "steer-tui: %s: '%s' is not a port number\n", flag, text);
		return -1;
	}
	return (int)p;
}

/* $USER, else the login name of the uid, else "steer-tui": a name others can read. */
static const char *default_name(void)
{
	const char *user = getenv("USER");
	if (user && steer_client_name_ok(user))
		return user;
	const struct passwd *pw = getpwuid(getuid());
	if (pw && pw->pw_name && steer_client_name_ok(pw->pw_name))
		return pw->pw_name;
	return "steer-tui";
}

int main(int argc, char **argv)
{
	tui_options o = {"127.0.0.1", 7700, 0, default_name(), NULL};
	const char *token = NULL, *token_file = NULL;
	opterr = 0;
	int opt, index = -1;
	while ((opt = getopt_long(argc, argv, "+:h", longs, &index)) != -1) {
		char flag[40], why[200];
		const char *f = index >= 0 ? steer_cli_flag(longs, index, flag, sizeof flag) : "";
		if (steer_cli_value_is_option(optarg, argv, optind, longs, "h")) {
			steer_cli_value_refusal(argv[optind - 2], optarg, why, sizeof why);
			fprintf(stderr, "steer-tui: %s\n", why);
			return 2;
		}
		switch (opt) {
		case OPT_HOST:
			if (!*optarg) {
				fprintf(stderr, "steer-tui: --host: an empty host name\n");
				return 2;
			}
			o.host = optarg;
			break;
		case OPT_PORT:
			if ((o.port = parse_port(f, optarg)) < 0)
				return 2;
			break;
		case OPT_CMD_PORT:
			if ((o.cmd_port = parse_port(f, optarg)) < 0)
				return 2;
			break;
		case OPT_NAME:
			o.name = optarg;
			if (!steer_client_name_ok(o.name)) {
				fprintf(stderr,
				        "steer-tui: --name: use 1-%d printable ASCII characters "
				        "without spaces\n",
				        STEER_NAME_MAX);
				return 2;
			}
			break;
		case OPT_TOKEN:
			token = optarg;
			break;
		case OPT_TOKEN_FILE:
			token_file = optarg;
			break;
		case OPT_VERSION:
			printf("steer-tui %s\n", STEER_VERSION);
			return 0;
		case 'h':
			usage(stdout);
			return 0;
		default: /* '?' or ':' */
			steer_cli_refusal(opt, argv[optind - 1], optopt, longs, why, sizeof why);
			fprintf(stderr, "steer-tui: %s\n", why);
			usage(stderr);
			return 2;
		}
		index = -1;
	}
	if (optind < argc) {
		fprintf(stderr, "steer-tui: '%s' is not an option\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	if (token && token_file) {
		fprintf(stderr, "steer-tui: choose one of --token and --token-file\n");
		return 2;
	}
	static char chosen[STEER_NAME_MAX + 1];
	char err[300];
	if (steer_token_choose(token, token_file, chosen, err, sizeof err) != STEER_OK) {
		fprintf(stderr, "steer-tui: %s\n", err);
		return 2;
	}
	o.token = chosen;
	return tui_app_run(&o);
}
