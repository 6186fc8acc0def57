/* steerctl: one command (or one per stdin line) to a steer-server's text port, each
 * reply printed. Exit status: 0 all OK, 1 some reply was ERR, 2 no connection. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int dial(const char *host, const char *port)
{
	struct addrinfo hints = {0}, *res, *ai;
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	int rc = getaddrinfo(host, port, &hints, &res);
	if (rc != 0) {
		fprintf(stderr, "steerctl: %s:%s: %s\n", host, port, gai_strerror(rc));
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
		fprintf(stderr,
		        "steerctl: cannot connect to %s:%s: %s (is steer-server running?)\n", host,
		        port, strerror(saved));
	return fd;
}

static int send_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t k = send(fd, p, n, MSG_NOSIGNAL);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

/* Reads from fd through a carried-over buffer until a newline; prints the line.
 * Returns 1 for ERR, 0 for OK, -1 when the connection ended. */
typedef struct reader {
	char *buf;
	size_t len, cap;
} reader;

static int read_reply(int fd, reader *r)
{
	for (;;) {
		char *nl = r->len ? memchr(r->buf, '\n', r->len) : NULL;
		if (nl) {
			size_t n = (size_t)(nl - r->buf);
			fwrite(r->buf, 1, n + 1, stdout);
			fflush(stdout);
			int err = n >= 3 && !memcmp(r->buf, "ERR", 3);
			memmove(r->buf, nl + 1, r->len - n - 1);
			r->len -= n + 1;
			return err;
		}
		if (r->len == r->cap) {
			size_t ncap = r->cap ? r->cap * 2 : 65536;
			char *p = realloc(r->buf, ncap);
			if (!p) {
				fprintf(stderr, "steerctl: out of memory\n");
				return -1;
			}
			r->buf = p;
			r->cap = ncap;
		}
		ssize_t k = recv(fd, r->buf + r->len, r->cap - r->len, 0);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			fprintf(stderr, "steerctl: the server closed the connection\n");
			return -1;
		}
		r->len += (size_t)k;
	}
}

static void usage(FILE *f)
{
	fprintf(f, "usage: steerctl [--host H] [--port P] [COMMAND ...]\n"
	           "  Sends COMMAND to steer-server's text port (default 127.0.0.1:7701) and\n"
	           "  prints the reply. With no COMMAND, sends each line of standard input.\n"
	           "  'steerctl help' lists the commands. Exit: 0 OK, 1 ERR, 2 no connection.\n");
}

int main(int argc, char **argv)
{
	const char *host = "127.0.0.1", *port = "7701";
	int i = 1;
	for (; i < argc; i++) {
		if (!strcmp(argv[i], "--host") && i + 1 < argc)
			host = argv[++i];
		else if (!strcmp(argv[i], "--port") && i + 1 < argc)
			port = argv[++i];
		else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(argv[i], "--")) {
			i++;
			break;
		} else if (argv[i][0] == '-' && argv[i][1] == '-') {
			fprintf(stderr, "steerctl: unknown option %s\n", argv[i]);
			usage(stderr);
			return 2;
		} else
			break;
	}
	int fd = dial(host, port);
	if (fd < 0)
		return 2;
	reader r = {0};
	int status = 0;
	if (i < argc) {
		size_t n = 0;
		for (int k = i; k < argc; k++)
			n += strlen(argv[k]) + 1;
		char *line = malloc(n + 1);
		if (!line)
			return 2;
		line[0] = '\0';
		for (int k = i; k < argc; k++) {
			strcat(line, argv[k]);
			strcat(line, k + 1 < argc ? " " : "\n");
		}
		int rc = send_all(fd, line, strlen(line)) == 0 ? read_reply(fd, &r) : -1;
		free(line);
		status = rc < 0 ? 2 : rc;
	} else {
		char *line = NULL;
		size_t cap = 0;
		ssize_t n;
		while ((n = getline(&line, &cap, stdin)) > 0) {
			if (line[n - 1] != '\n') {
				/* the last line may lack its newline */
				if (send_all(fd, line, (size_t)n) != 0 ||
				    send_all(fd, "\n", 1) != 0)
					break;
			} else if (send_all(fd, line, (size_t)n) != 0) {
				status = 2;
				break;
			}
			/* blank lines get no reply */
			if (strspn(line, " \t\r\n") == (size_t)n)
				continue;
			int rc = read_reply(fd, &r);
			if (rc < 0) {
				status = 2;
				break;
			}
			if (rc)
				status = 1;
		}
		free(line);
	}
	free(r.buf);
	close(fd);
	return status;
}
