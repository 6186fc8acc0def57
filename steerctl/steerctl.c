/* steerctl: steer-server's command-line client, after redis-cli. One command from the
 * arguments, one per line of standard input, a command repeated (--watch), or an
 * interactive prompt with line editing and history (libedit). Exit status: 0 every
 * reply OK, 1 some reply was ERR, 2 no connection (the server full too), not a
 * command port, the token refused, or bad usage. */
#define _POSIX_C_SOURCE 200809L
#include <editline/readline.h>
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "cmdhelp.h"
#include "complete.h"
#include "ctl_format.h"
#include "host_port.h"
#include "journal_export.h"
#include "reserve.h"
#include "statedir.h"
#include "steer/command.h"
#include "token.h"

typedef struct reader {
	char *buf;
	size_t len, cap;
} reader;

typedef struct ctl {
	const char *host, *port, *name;
	char where[300];                /* host:port as printed: [::1]:7701 */
	char token[STEER_NAME_MAX + 1]; /* "" none: sent as `auth` on every connection */
	ctl_mode mode;
	int fd;         /* -1: not connected */
	bool verified;  /* the server's first bytes were a text reply */
	int timeout_ms; /* the longest wait for a reply; -1 waits forever */
	reader r;
} ctl;

/* Long enough for a big `step`; short enough that a silent peer is reported. */
#define CTL_TIMEOUT_S 30

static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
	(void)sig;
	interrupted = 1;
}

/* --- the connection ----------------------------------------------------------- */

static int dial(const char *host, const char *port, const char *where)
{
	struct addrinfo hints = {0}, *res, *ai;
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	int rc = getaddrinfo(host, port, &hints, &res);
	if (rc != 0) {
		fprintf(stderr, "steerctl: %s: %s\n", where, gai_strerror(rc));
		return -1;
	}
	int fd = -1, saved = 0;
	for (ai = res; ai; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
		if (fd < 0)
			continue;
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
			break;
		saved = errno;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0)
		fprintf(stderr, "steerctl: cannot connect to %s: %s (is steer-server running?)\n",
		        where, strerror(saved));
	return fd;
}

static int send_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t k = send(fd, p, n, MSG_NOSIGNAL);
		if (k < 0 && errno == EINTR && !interrupted)
			continue;
		if (k <= 0)
			return -1;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

static void disconnect(ctl *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	c->r.len = 0;
	c->verified = false;
}

/* Makes the coming close a reset. An orderly close reads, to the server, like the
 * end of our sending side only, after which it still runs what we asked (a step of
 * minutes) to answer it; a reset tells it that no one waits, and it stops. */
static void abandon(ctl *c)
{
	struct linger now = {.l_onoff = 1, .l_linger = 0};
	if (c->fd >= 0)
		(void)setsockopt(c->fd, SOL_SOCKET, SO_LINGER, &now, sizeof now);
}

/* Whether host:port answers as a command port: `quit` gets "OK" within half a second.
 * Only the defaults pair a protobuf port with a command port (7700, 7701), and only a
 * port that answers is worth naming. */
static bool answers_as_text(const char *host, const char *port)
{
	struct addrinfo hints = {0}, *res;
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	if (getaddrinfo(host, port, &hints, &res) != 0)
		return false;
	bool yes = false;
	int fd = socket(res->ai_family, res->ai_socktype, res->ai_protocol);
	if (fd >= 0 && connect(fd, res->ai_addr, res->ai_addrlen) == 0 &&
	    send_all(fd, "quit\n", 5) == 0) {
		char buf[8];
		size_t got = 0;
		struct pollfd p = {fd, POLLIN, 0};
		while (got < 3 && poll(&p, 1, 500) == 1) {
			ssize_t k = recv(fd, buf + got, sizeof buf - got, 0);
			if (k <= 0)
				break;
			got += (size_t)k;
		}
		yes = got >= 3 && !memcmp(buf, "OK\n", 3);
	}
	if (fd >= 0)
		close(fd);
	freeaddrinfo(res);
	return yes;
}

/* Reads the next reply line; *line points into the reader (no newline) until
 * consume_line. 0, or -1 after saying why (closed, not a command port, Ctrl-C). */
static int next_line(ctl *c, const char **line, size_t *len)
{
	reader *r = &c->r;
	for (;;) {
		if (!c->verified && r->len) {
			int v = ctl_looks_like_text(r->buf, r->len);
			if (v == 0) {
				char why[256];
				const char *text_port = ctl_looks_like_protobuf(r->buf, r->len) &&
				                                !strcmp(c->port, "7700") &&
				                                answers_as_text(c->host, "7701")
				                            ? "7701"
				                            : NULL;
				ctl_explain_not_text(r->buf, r->len, text_port, why, sizeof why);
				fprintf(stderr, "steerctl: %s: %s\n", c->where, why);
				return -1;
			}
			c->verified = v == 1;
		}
		char *nl = c->verified && r->len ? memchr(r->buf, '\n', r->len) : NULL;
		if (nl) {
			*line = r->buf;
			*len = (size_t)(nl - r->buf);
			return 0;
		}
		/* Room for a large read, so a big reply takes few calls. */
		if (r->len == r->cap &&
		    steer_reserve((void **)&r->buf, &r->cap, r->len + 65536, 1) != STEER_OK) {
			fprintf(stderr, "steerctl: out of memory\n");
			return -1;
		}
		/* A peer that accepts and never answers would otherwise hold us forever. */
		struct pollfd p = {c->fd, POLLIN, 0};
		int ready = poll(&p, 1, c->timeout_ms);
		if (ready < 0 && errno == EINTR && !interrupted)
			continue;
		if (ready < 0 && interrupted) {
			abandon(c);
			return -1;
		}
		if (ready == 0) {
			abandon(c);
			fprintf(
			    stderr,
			    "steerctl: %s: no reply within %g s; gave up, and the server stops "
			    "a step it ran for us (--timeout 0 waits as long as it takes; is it "
			    "steer-server's command port?)\n",
			    c->where, c->timeout_ms / 1000.0);
			return -1;
		}
		ssize_t k = recv(c->fd, r->buf + r->len, r->cap - r->len, 0);
		if (k < 0 && errno == EINTR && !interrupted)
			continue;
		if (k < 0 && interrupted) {
			abandon(c);
			return -1;
		}
		if (k <= 0) {
			fprintf(stderr, "steerctl: %s closed the connection\n", c->where);
			return -1;
		}
		r->len += (size_t)k;
	}
}

static void consume_line(ctl *c, size_t len)
{
	memmove(c->r.buf, c->r.buf + len + 1, c->r.len - len - 1);
	c->r.len -= len + 1;
}

/* The reply line read for command: printed (print), copied to *keep (not NULL) and
 * consumed. 0 OK, 1 ERR, -1 out of memory (said). */
static int take_reply(ctl *c, const char *command, bool print, char **keep, const char *line,
                      size_t len)
{
	/* Sent at once to a connection over --max-clients, which the server then
	 * closes: no command ran, so it is no connection (exit 2), not a failed one. */
	static const char full[] = "ERR server full";
	if (len >= sizeof full - 1 && !memcmp(line, full, sizeof full - 1)) {
		fprintf(stderr, "steerctl: %s: %.*s\n", c->where, (int)len, line);
		consume_line(c, len);
		return -1;
	}
	int err = ctl_is_err(line, len);
	if (print)
		ctl_print_reply(c->mode, command, line, len);
	if (keep && !(*keep = strndup(line, len))) {
		consume_line(c, len);
		fprintf(stderr, "steerctl: out of memory\n");
		return -1;
	}
	consume_line(c, len);
	return err;
}

/* Sends one command line (no newline) and reads its reply. With print, prints it in
 * c->mode; with keep (not NULL), hands back a malloc'd copy of the reply line.
 * Returns 0 OK, 1 ERR, -1 when the connection failed (said why). */
static int run(ctl *c, const char *command, bool print, char **keep)
{
	size_t n = strlen(command);
	const char *line;
	size_t len;
	if (send_all(c->fd, command, n) != 0 || send_all(c->fd, "\n", 1) != 0) {
		/* A server that turned us away (full) said why before closing: show that. */
		int saved = errno;
		struct pollfd p = {c->fd, POLLIN, 0};
		if (poll(&p, 1, 200) == 1) {
			if (next_line(c, &line, &len) != 0)
				return -1; /* it said why */
			int rc = take_reply(c, command, print, keep, line, len);
			return rc == 1 ? 1 : -1;
		}
		errno = saved;
		if (errno == EPIPE || errno == ECONNRESET)
			fprintf(stderr, "steerctl: %s closed the connection\n", c->where);
		else
			fprintf(stderr, "steerctl: %s: cannot send: %s\n", c->where,
			        strerror(errno));
		return -1;
	}
	if (next_line(c, &line, &len) != 0)
		return -1;
	return take_reply(c, command, print, keep, line, len);
}

/* Presents the token. 0 (also when the server takes none: nothing to unlock), or -1
 * after saying why. */
static int present_token(ctl *c)
{
	char cmd[sizeof c->token + 8], *reply = NULL;
	snprintf(cmd, sizeof cmd, "auth %s", c->token);
	int rc = run(c, cmd, false, &reply);
	if (rc == 1 && strstr(reply, "takes no token"))
		rc = 0;
	else if (rc == 1) /* a full server's turn-away is no reply: take_reply says it */
		fprintf(stderr, "steerctl: %s refused the token: %s\n", c->where, reply);
	free(reply);
	return rc == 0 ? 0 : -1;
}

/* Connects, presents the token if there is one and, with --name, names the
 * connection. 0, or -1 after saying why. */
static int connect_ctl(ctl *c)
{
	disconnect(c);
	if ((c->fd = dial(c->host, c->port, c->where)) < 0)
		return -1;
	if (c->token[0] && present_token(c) != 0) {
		disconnect(c);
		return -1;
	}
	if (!c->name)
		return 0;
	char cmd[128], *reply = NULL;
	snprintf(cmd, sizeof cmd, "name %s", c->name);
	int rc = run(c, cmd, false, &reply);
	if (rc == 1)
		fprintf(stderr, "steerctl: --name %s: %s\n", c->name, reply);
	free(reply);
	if (rc != 0) {
		disconnect(c);
		return -1;
	}
	return 0;
}

/* --- modes ----------------------------------------------------------------------- */

static char *join(int argc, char **argv)
{
	size_t n = 1;
	for (int k = 0; k < argc; k++)
		n += strlen(argv[k]) + 1;
	char *line = malloc(n);
	if (!line)
		return NULL;
	line[0] = '\0';
	for (int k = 0; k < argc; k++) {
		if (k)
			strcat(line, " ");
		strcat(line, argv[k]);
	}
	return line;
}

/* Sleeps `seconds` unless Ctrl-C comes first. */
static void nap(double seconds)
{
	struct timespec ts = {(time_t)seconds, (long)((seconds - floor(seconds)) * 1e9)};
	while (!interrupted && nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

static int watch(ctl *c, const char *command, double every, long count)
{
	int status = 0;
	for (long k = 0; !interrupted && (count <= 0 || k < count); k++) {
		if (k)
			nap(every);
		if (interrupted)
			break;
		int rc = run(c, command, true, NULL);
		if (rc < 0)
			return interrupted ? status : 2;
		status |= rc;
	}
	return status;
}

/* Whether a line holds only blanks, or is a '#' comment. */
static bool nothing_to_send(const char *line)
{
	line += strspn(line, " \t\r\n");
	return !*line || *line == '#';
}

static int batch(ctl *c)
{
	char *line = NULL;
	size_t cap = 0, sent = 0, failed = 0;
	ssize_t n;
	int status = 0;
	while ((n = getline(&line, &cap, stdin)) > 0) {
		line[strcspn(line, "\r\n")] = '\0';
		if (nothing_to_send(line))
			continue;
		sent++;
		int rc = run(c, line, true, NULL);
		if (rc < 0) {
			status = 2;
			break;
		}
		failed += (size_t)rc;
	}
	free(line);
	if (failed) {
		fprintf(stderr, "steerctl: %zu of %zu commands failed\n", failed, sent);
		if (!status)
			status = 1;
	}
	return status;
}

/* --- interactive ----------------------------------------------------------------- */

/* The candidates for the word at the cursor (cmd/complete.c: the rules steer-tui's
 * command line follows), gathered when the line editor asks for the first; each is
 * handed over to it, which frees it. */
typedef struct matches {
	char **word;
	size_t n, next, cap;
} matches;

static matches found;

static void matches_clear(matches *m)
{
	for (size_t k = m->next; k < m->n; k++)
		free(m->word[k]);
	m->n = m->next = 0;
}

static void gather(void *ud, const char *word, size_t len)
{
	matches *m = ud;
	char *copy = strndup(word, len);
	if (!copy ||
	    steer_reserve((void **)&m->word, &m->cap, m->n + 1, sizeof *m->word) != STEER_OK) {
		free(copy);
		return;
	}
	m->word[m->n++] = copy;
}

static char *next_match(const char *text, int state)
{
	(void)text; /* what was typed of the word: the candidates already start with it */
	(void)state;
	return found.next < found.n ? found.word[found.next++] : NULL;
}

static char **complete(const char *text, int start, int end)
{
	rl_attempted_completion_over = 1; /* never fall back to file names */
	matches_clear(&found);
	steer_completion how =
	    steer_cmd_complete(rl_line_buffer, (size_t)end, NULL, 0, gather, &found);
	/* The editor's word (it breaks at '=' too) must be the one completed. */
	if (found.n == 0 || how.from != (size_t)start) {
		matches_clear(&found);
		return NULL;
	}
	rl_completion_append_character = how.keys ? '=' : ' ';
	return rl_completion_matches(text, next_match);
}

/* Takes what the server sent unasked (its idle-timeout notice) and notices a closed
 * connection, so the next command does not read a stale line as its reply. */
static void drain(ctl *c)
{
	struct pollfd p = {c->fd, POLLIN, 0};
	while (c->fd >= 0 && poll(&p, 1, 0) == 1) {
		char buf[4096];
		ssize_t k = recv(c->fd, buf, sizeof buf, 0);
		if (k <= 0) {
			fprintf(stderr,
			        "steerctl: the server closed the connection; reconnecting\n");
			disconnect(c);
			return;
		}
		/* A line at a time, as text: bytes that would drive the terminal as dots. */
		for (size_t at = 0, n; at < (size_t)k; at += n + 1) {
			for (n = 0; at + n < (size_t)k && buf[at + n] != '\n'; n++)
				;
			char shown[sizeof buf + 1];
			size_t w = ctl_printable(shown, sizeof shown, buf + at, n);
			if (w && buf[at + w - 1] == '\r')
				shown[--w] = '\0'; /* a CRLF's CR */
			if (w)
				fprintf(stderr, "steerctl: the server said: %s\n", shown);
		}
	}
}

/* Writes the history file, created private (0600) from the start: it may hold what
 * was typed at the server. */
static void save_history(const char *path)
{
	static bool warned;
	mode_t old = umask(077);
	if (write_history(path) != 0 && !warned) {
		fprintf(stderr, "steerctl: cannot write the history file %s\n", path);
		warned = true;
	}
	umask(old);
}

static int interactive(ctl *c)
{
	char dir[4096], history[4200] = "", err[256];
	if (steer_state_dir(dir, sizeof dir, err, sizeof err) == STEER_OK &&
	    steer_make_dirs(dir, err, sizeof err) == STEER_OK)
		snprintf(history, sizeof history, "%s/steerctl_history", dir);
	else
		fprintf(stderr, "steerctl: no history file: %s\n", err);
	/* One exchange first, so that a port that is not a command port says so before
	 * the prompt shows. */
	if (run(c, "help", false, NULL) < 0)
		return 2;
	rl_readline_name = "steerctl";
	rl_attempted_completion_function = complete;
	using_history();
	stifle_history(1000);
	if (history[0])
		read_history(history);
	printf("steerctl %s: type a command ('help' lists them), Tab completes, Ctrl-D or "
	       "'quit' leaves.\n",
	       STEER_VERSION);
	char prompt[sizeof c->where + 16];
	for (;;) {
		if (c->fd < 0)
			snprintf(prompt, sizeof prompt, "steer (not connected)> ");
		else
			snprintf(prompt, sizeof prompt, "steer %s> ", c->where);
		char *line = readline(prompt);
		if (!line) {
			printf("\n");
			break;
		}
		if (nothing_to_send(line)) {
			free(line);
			continue;
		}
		const char *w = line + strspn(line, " \t");
		/* A token typed in must not end up in a file (redis-cli keeps AUTH out too). */
		if (strncmp(w, "auth", 4) || (w[4] && w[4] != ' ' && w[4] != '\t')) {
			add_history(line);
			if (history[0])
				save_history(history);
		}
		if (!strcmp(w, "quit") || !strcmp(w, "exit")) {
			free(line);
			break;
		}
		drain(c); /* the server may have closed it while we waited for the line */
		if (c->fd < 0 && connect_ctl(c) != 0) {
			free(line);
			continue;
		}
		interrupted = 0;
		if (run(c, line, true, NULL) < 0)
			disconnect(c); /* the next command connects again */
		free(line);
	}
	return 0;
}

/* --- steerctl journal ------------------------------------------------------------- */

/* `steerctl journal NAME`: read here, from the data directory, not asked of a server:
 * the saves the script loads are written next to the journal. */
static int export_journal(int argc, char **argv, const char *data_dir)
{
	if (argc != 2) {
		fprintf(stderr,
		        "steerctl: usage: steerctl [--data-dir DIR] journal NAME|live|PATH\n");
		return 2;
	}
	char dir[4096], err[600];
	if (!data_dir) {
		if (steer_state_dir(dir, sizeof dir, err, sizeof err) != STEER_OK) {
			fprintf(stderr, "steerctl: journal: %s; give --data-dir\n", err);
			return 2;
		}
		data_dir = dir;
	}
	if (journal_export(argv[1], data_dir, stdout, err, sizeof err) != STEER_OK) {
		fprintf(stderr, "steerctl: journal %s: %s\n", argv[1], err);
		return 1;
	}
	return 0;
}

/* --- options --------------------------------------------------------------------- */

static void usage(FILE *f)
{
	fprintf(f, "usage: steerctl [options] [COMMAND ...]\n"
	           "Talks to steer-server's text command port. With COMMAND, sends it and prints\n"
	           "the reply. Without, on a terminal, an interactive prompt (line editing, Tab\n"
	           "completion, history in $XDG_STATE_HOME/steer or ~/.local/state/steer);\n"
	           "otherwise one command per line of standard input ('#' lines are skipped).\n"
	           "  -h, --host HOST      server address (default 127.0.0.1)\n"
	           "  -p, --port N         its command port (default 7701)\n"
	           "  --name NAME          name this connection first: others see 'NAME paused'\n"
	           "  --token SECRET       present steer-server's --token first (auth SECRET)\n"
	           "  --token-file PATH    the same, read from the file's first line (not in ps);\n"
	           "                       without either, $STEER_TOKEN if set\n"
	           "  --json               print only the JSON of each OK reply; ERR to stderr\n"
	           "  --raw                print replies exactly as the server sent them\n"
	           "  --watch SECONDS      repeat COMMAND every SECONDS until Ctrl-C\n"
	           "  --count N            with --watch: stop after N replies\n"
	           "  --timeout SECONDS    give up on a reply after SECONDS (default 30; 0 never)\n"
	           "  --data-dir DIR       for journal: steer-server's data directory (default\n"
	           "                       $XDG_STATE_HOME/steer or ~/.local/state/steer)\n"
	           "steerctl journal NAME prints the journal NAME (live, a name in the data\n"
	           "directory's journals/, or a path) as the commands that recreate its session,\n"
	           "writing the saves they load into the data directory.\n"
	           "  --version            print the version\n"
	           "  --help               this text\n"
	           "'steerctl help' lists the server's commands. Exit status: 0 every reply OK;\n"
	           "1 a reply was ERR (with standard input: how many is printed); 2 no connection\n"
	           "(the server full too), not a command port, the token refused, or bad usage.\n");
}

enum {
	OPT_HELP = 256,
	OPT_VERSION,
	OPT_JSON,
	OPT_RAW,
	OPT_NAME,
	OPT_DATA_DIR,
	OPT_TOKEN,
	OPT_TOKEN_FILE,
	OPT_WATCH,
	OPT_COUNT,
	OPT_TIMEOUT,
};

static const struct option longs[] = {
    {"help", no_argument, NULL, OPT_HELP},
    {"version", no_argument, NULL, OPT_VERSION},
    {"json", no_argument, NULL, OPT_JSON},
    {"raw", no_argument, NULL, OPT_RAW},
    {"host", required_argument, NULL, 'h'},
    {"port", required_argument, NULL, 'p'},
    {"name", required_argument, NULL, OPT_NAME},
    {"data-dir", required_argument, NULL, OPT_DATA_DIR},
    {"token", required_argument, NULL, OPT_TOKEN},
    {"token-file", required_argument, NULL, OPT_TOKEN_FILE},
    {"watch", required_argument, NULL, OPT_WATCH},
    {"count", required_argument, NULL, OPT_COUNT},
    {"timeout", required_argument, NULL, OPT_TIMEOUT},
    {NULL, 0, NULL, 0},
};

static int bad_usage(const char *fmt, const char *what)
{
	fprintf(stderr, "steerctl: ");
	fprintf(stderr, fmt, what);
	fprintf(stderr, " (see --help)\n");
	return 2;
}

/* What the options ask for beyond the connection (ctl). */
typedef struct ctl_args {
	const char *token, *token_file, *data_dir;
	double every; /* --watch's seconds, 0 without */
	long count;   /* --count, 0 without */
	bool json, raw;
} ctl_args;

/* Reads the options into c and a. -1 to go on (the COMMAND from optind), else the exit
 * status: 0 after --help or --version, 2 after saying what is wrong. */
static int parse_options(int argc, char **argv, ctl *c, ctl_args *a)
{
	opterr = 0;
	int opt;
	while ((opt = getopt_long(argc, argv, "+:h:p:", longs, NULL)) != -1) {
		const char *v = optarg;
		char *end, why[200];
		if (steer_cli_value_is_option(v, argv, optind, longs, "hp")) {
			steer_cli_value_refusal(argv[optind - 2], v, why, sizeof why);
			return bad_usage("%s", why);
		}
		switch (opt) {
		case OPT_HELP:
			usage(stdout);
			return 0;
		case OPT_VERSION:
			printf("steerctl %s\n", STEER_VERSION);
			return 0;
		case OPT_JSON:
			a->json = true;
			break;
		case OPT_RAW:
			a->raw = true;
			break;
		case 'h':
			if (!strcmp(argv[optind - 1], "-help")) { /* not the host "elp" */
				usage(stdout);
				return 0;
			}
			if (!*v)
				return bad_usage("%s", "--host: an empty host name");
			c->host = v;
			break;
		case 'p': {
			long p = strtol(v, &end, 10);
			if (end == v || *end || p < 1 || p > 65535)
				return bad_usage("--port: '%s' is not a port number (1-65535)", v);
			c->port = v;
			break;
		}
		case OPT_NAME:
			if (!steer_client_name_ok(v)) {
				char shown[80];
				ctl_printable(shown, sizeof shown, v, strlen(v));
				return bad_usage("--name: '%s' is not 1-64 printable ASCII "
				                 "characters without spaces",
				                 shown);
			}
			c->name = v;
			break;
		case OPT_DATA_DIR:
			a->data_dir = v;
			break;
		case OPT_TOKEN_FILE:
			a->token_file = v;
			break;
		case OPT_TOKEN:
			a->token = v;
			break;
		case OPT_WATCH:
			a->every = strtod(v, &end);
			if (end == v || *end || !(a->every >= 0.01 && a->every <= 86400))
				return bad_usage(
				    "--watch: '%s' is not a number of seconds (0.01 or more)", v);
			break;
		case OPT_COUNT:
			a->count = strtol(v, &end, 10);
			if (end == v || *end || a->count < 1)
				return bad_usage("--count: '%s' is not a whole number above 0", v);
			break;
		case OPT_TIMEOUT: {
			double t = strtod(v, &end);
			/* Whole milliseconds, at least one: a fraction like 0.0001 is not 0
			 * (never). */
			if (end == v || *end || !(t >= 0 && t <= 86400))
				return bad_usage(
				    "--timeout: '%s' is not a number of seconds (0-86400, 0 never)",
				    v);
			c->timeout_ms = t == 0 ? -1 : t < 0.001 ? 1 : (int)(t * 1000);
			break;
		}
		default: /* '?' or ':' */
			if (opt == ':' && optopt == 'h')
				return bad_usage("%s", "-h is --host and needs a value");
			steer_cli_refusal(opt, argv[optind - 1], optopt, longs, why, sizeof why);
			return bad_usage("%s", why);
		}
	}
	return -1;
}

/* The COMMAND's words, argv[i..argc): none is more than one line, and not all blank.
 * 0, or 2 after saying what is wrong. */
static int check_command(int argc, char **argv, int i)
{
	for (int k = i; k < argc; k++)
		if (strpbrk(argv[k], "\r\n")) /* it would send a second, unseen command */
			return bad_usage("'%s': a COMMAND is one line, without line breaks",
			                 argv[k]);
	/* The server answers no blank line: waiting for a reply would only time out. */
	bool blank = true;
	for (int k = i; k < argc && blank; k++)
		blank = argv[k][strspn(argv[k], " \t")] == '\0';
	if (i < argc && blank)
		return bad_usage("the COMMAND is blank%s", "");
	return 0;
}

int main(int argc, char **argv)
{
	ctl c = {.host = "127.0.0.1",
	         .port = "7701",
	         .mode = CTL_HUMAN,
	         .fd = -1,
	         .timeout_ms = CTL_TIMEOUT_S * 1000};
	ctl_args a = {0};
	/* Editline drops every byte past ASCII in the C locale: a typed "café" would go
	 * out as "caf" and succeed. With the user's character set the line goes out whole
	 * and the server says what it does not take. */
	setlocale(LC_CTYPE, "");
	int done = parse_options(argc, argv, &c, &a);
	if (done >= 0)
		return done;
	int i = optind;
	if (a.json && a.raw)
		return bad_usage("%s: choose one of --json and --raw", "--json --raw");
	c.mode = a.json ? CTL_JSON : a.raw ? CTL_RAW : CTL_HUMAN;
	if (a.token && a.token_file)
		return bad_usage("%s: choose one of --token and --token-file",
		                 "--token --token-file");
	char terr[300];
	if (steer_token_choose(a.token, a.token_file, c.token, terr, sizeof terr) != STEER_OK) {
		fprintf(stderr, "steerctl: %s\n", terr); /* a file's fault, not the usage's */
		return 2;
	}
	steer_host_port(c.where, sizeof c.where, c.host, c.port);
	bool has_command = i < argc;
	if (has_command && !strcmp(argv[i], "journal"))
		return export_journal(argc - i, argv + i, a.data_dir);
	if (a.data_dir)
		return bad_usage("%s goes with 'steerctl journal NAME'", "--data-dir");
	if (a.every > 0 && !has_command)
		return bad_usage("%s needs a COMMAND to repeat", "--watch");
	if (a.count > 0 && a.every <= 0)
		return bad_usage("%s goes with --watch", "--count");
	if (check_command(argc, argv, i) != 0)
		return 2;

	struct sigaction sa = {0};
	sa.sa_handler = on_sigint; /* no SA_RESTART: a blocked read returns at Ctrl-C */
	sigemptyset(&sa.sa_mask);
	bool prompt = !has_command && isatty(STDIN_FILENO);
	if (!prompt)
		sigaction(SIGINT, &sa, NULL);

	if (connect_ctl(&c) != 0) {
		free(c.r.buf); /* a refused token or name read a reply into it */
		return 2;
	}
	int status;
	if (has_command) {
		char *line = join(argc - i, argv + i);
		if (!line) {
			disconnect(&c);
			return 2;
		}
		if (a.every > 0) {
			status = watch(&c, line, a.every, a.count);
		} else {
			int rc = run(&c, line, true, NULL);
			status = rc < 0 ? 2 : rc;
		}
		free(line);
	} else if (prompt) {
		status = interactive(&c);
	} else {
		status = batch(&c);
	}
	disconnect(&c);
	free(c.r.buf);
	return status;
}
