/* fuzz_web's per-input logic (harness_web.h): what a browser's connection sends to the page's port
 * (--http), read by libwebsockets and the WebSocket relay of a real server on its own loop, in this
 * process. The server runs the seek scenario with a token (so commands are refused and
 * the fuzzer stays on the transport; fuzz_client_message covers the commands).
 *
 * Byte 0: bit 0, a valid WebSocket upgrade request (GET /ws, subprotocol steer) goes
 * first; bit 1, the rest is frames the harness encodes (see put_frames), else it is
 * sent as it is; bit 2, the server's answers are read for a while before the
 * connection is half-closed (see exchange). It is then read until the server closes
 * it. Checked, beyond the sanitizers: the server closes every connection whose client
 * has stopped sending, within 10 s; once the client has gone, the server holds no
 * connection for it within 10 s; and every 64 inputs, the page is still served. */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <uv.h>

#include "harness.h"
#include "harness_web.h"
#include "log.h"
#include "options.h"
#include "server.h"
#include "web.h"

static uv_loop_t loop;
static server srv;
static int port;
static char data_dir[] = "/tmp/steer-fuzz-web-XXXXXX";

static const char upgrade[] = "GET /ws HTTP/1.1\r\n"
                              "Host: 127.0.0.1\r\n"
                              "Upgrade: websocket\r\n"
                              "Connection: Upgrade\r\n"
                              "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                              "Sec-WebSocket-Version: 13\r\n"
                              "Sec-WebSocket-Protocol: steer\r\n\r\n";

void harness_web_start(void)
{
	/* A client gone mid-write must be an error return, as in steer-server. */
	signal(SIGPIPE, SIG_IGN);
	if (!mkdtemp(data_dir))
		harness_violated("mkdtemp: %s", strerror(errno));
	/* Only what would stop the server: every bad input is logged as a warning. */
	steer_log_set_level(STEER_LOG_ERROR);
	char *args[] = {"fuzz_web",
	                "--port",
	                "0",
	                "--cmd-port",
	                "0",
	                "--http",
	                "0",
	                "--no-journal",
	                "--scenario",
	                "seek",
	                "--data-dir",
	                data_dir,
	                "--token",
	                "fuzz-web-token-0123456789",
	                "--max-clients",
	                "64",
	                NULL};
	server_options o;
	server_options_default(&o);
	if (server_options_parse(&o, (int)(sizeof args / sizeof args[0]) - 1, args) != 0)
		harness_violated("the server's options were refused");
	if (uv_loop_init(&loop) != 0 || server_start(&srv, &loop, &o) != 0 || !srv.web)
		harness_violated("the server did not start");
	port = web_port(srv.web);
}

void harness_web_stop(void)
{
	server_stop(&srv, "the fuzz run is over");
	uv_run(&loop, UV_RUN_DEFAULT);
	server_free(&srv);
	if (uv_loop_close(&loop) != 0)
		harness_violated("the server's loop closed with handles open");
	rmdir(data_dir); /* empty unless an input saved (commands need the token) */
}

/* A growing buffer of the bytes to send. */
typedef struct out {
	uint8_t *b;
	size_t len, cap;
} out;

static void put(out *o, const void *data, size_t n)
{
	if (o->len + n > o->cap) {
		o->cap = (o->len + n) * 2;
		if (!(o->b = realloc(o->b, o->cap)))
			harness_violated("out of memory");
	}
	memcpy(o->b + o->len, data, n);
	o->len += n;
}

/* Frames as a browser encodes them, from records of [first byte][length, 2 bytes big
 * endian][payload]: the first byte (FIN, RSV, opcode) as given, the length in the
 * shortest form, a mask, the payload masked. A record cut short carries what is left. */
static void put_frames(out *o, const uint8_t *in, size_t n)
{
	static const uint8_t key[4] = {0x37, 0xfa, 0x21, 0x3d};
	while (n >= 3) {
		uint8_t first = in[0];
		size_t len = (size_t)in[1] << 8 | in[2];
		in += 3;
		n -= 3;
		if (len > n)
			len = n;
		uint8_t head[8] = {first};
		size_t hl = 2;
		if (len < 126) {
			head[1] = (uint8_t)(0x80 | len);
		} else {
			head[1] = 0x80 | 126;
			head[2] = (uint8_t)(len >> 8);
			head[3] = (uint8_t)len;
			hl = 4;
		}
		put(o, head, hl);
		put(o, key, 4);
		for (size_t i = 0; i < len; i++) {
			uint8_t c = in[i] ^ key[i % 4];
			put(o, &c, 1);
		}
		in += len;
		n -= len;
	}
}

/* Turns the server's loop once, having waited up to ms for it or for fd. */
static void turn(int fd, int ms)
{
	int t = uv_backend_timeout(&loop);
	struct pollfd p[2] = {{.fd = uv_backend_fd(&loop), .events = POLLIN},
	                      {.fd = fd, .events = POLLIN | POLLOUT}};
	poll(p, fd >= 0 ? 2 : 1, t >= 0 && t < ms ? t : ms);
	uv_run(&loop, UV_RUN_NOWAIT);
}

static uint64_t now_ms(void)
{
	return uv_hrtime() / 1000000u;
}

static int connect_page(void)
{
	/* Blocking: the kernel completes a loopback connection before the server accepts. */
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		harness_violated("socket: %s", strerror(errno));
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	/* A signal (libFuzzer's timer) leaves the connection under way: wait for it. */
	while (connect(fd, (struct sockaddr *)&a, sizeof a) != 0 && errno != EISCONN)
		if (errno != EINTR && errno != EALREADY)
			harness_violated("connect to the page's port: %s", strerror(errno));
	/* Closed with a reset, so that tens of thousands of inputs leave no TIME_WAIT. */
	struct linger now = {.l_onoff = 1, .l_linger = 0};
	if (setsockopt(fd, SOL_SOCKET, SO_LINGER, &now, sizeof now) != 0)
		harness_violated("SO_LINGER: %s", strerror(errno));
	if (fcntl(fd, F_SETFL, O_NONBLOCK) != 0)
		harness_violated("fcntl: %s", strerror(errno));
	return fd;
}

/* Sends bytes (as far as the server takes them within 10 s), half-closes, and reads
 * until the server closes. How many bytes came back; the first first_cap of them in
 * first. */
static size_t exchange(int fd, const uint8_t *bytes, size_t len, bool linger, char *first,
                       size_t first_cap)
{
	size_t sent = 0, got = 0;
	bool shut = false;
	uint64_t start = now_ms(), shut_at = 0, quiet_since = start;
	for (;;) {
		turn(fd, 1);
		if (!shut && sent < len) {
			ssize_t w = send(fd, bytes + sent, len - sent, MSG_NOSIGNAL);
			if (w > 0)
				sent += (size_t)w;
			else if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
				shut = true; /* the server closed first */
				shut_at = now_ms();
			}
		}
		/* Lingering, it reads what the server answers first (its writing path),
		 * until 5 ms pass with nothing new, or 100 ms in all. */
		if (linger && !shut && sent == len && now_ms() - quiet_since < 5 &&
		    now_ms() - start < 100)
			continue;
		if (!shut && (sent == len || now_ms() - start > 10000)) {
			shutdown(fd, SHUT_WR);
			shut = true;
			shut_at = now_ms();
		}
		char buf[65536];
		ssize_t r = recv(fd, buf, sizeof buf, 0);
		if (r > 0) {
			quiet_since = now_ms();
			if (got < first_cap) {
				size_t k =
				    (size_t)r < first_cap - got ? (size_t)r : first_cap - got;
				memcpy(first + got, buf, k);
			}
			got += (size_t)r;
		} else if (r == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) {
			return got;
		}
		if (shut && now_ms() - shut_at > 10000)
			harness_violated(
			    "the server kept a connection open 10 s after its client stopped "
			    "sending (%zu of %zu bytes sent)",
			    sent, len);
	}
}

static void settle(void)
{
	uint64_t start = now_ms();
	while (srv.nconns > 0) {
		turn(-1, 1);
		if (now_ms() - start > 10000)
			harness_violated("%zu connections left 10 s after their clients went",
			                 srv.nconns);
	}
}

static void page_still_served(void)
{
	static const char get[] = "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
	char head[16] = "";
	int fd = connect_page();
	exchange(fd, (const uint8_t *)get, sizeof get - 1, false, head, sizeof head - 1);
	close(fd);
	if (strncmp(head, "HTTP/1.1 200", 12))
		harness_violated("the page is no longer served: \"%s\"", head);
}

int harness_web(const uint8_t *data, size_t size)
{
	static unsigned inputs;
	uint8_t flags = size ? data[0] : 0;
	static const uint8_t nothing[1];
	out o = {0};
	if (flags & 1)
		put(&o, upgrade, sizeof upgrade - 1);
	if (size > 1) {
		if (flags & 2)
			put_frames(&o, data + 1, size - 1);
		else
			put(&o, data + 1, size - 1);
	}
	int fd = connect_page();
	char first[1];
	exchange(fd, o.b ? o.b : nothing, o.len, flags & 4, first, 0);
	close(fd);
	free(o.b);
	settle();
	if (++inputs % 64 == 0)
		page_still_served();
	return 0;
}
