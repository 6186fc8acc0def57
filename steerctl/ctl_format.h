/* How steerctl prints a reply line of the text protocol ("OK", "OK {json}",
 * "ERR message"): as received (raw), only its JSON (json), or for a person (human:
 * help laid out as a table from the compiled-in command table, anything else as
 * received). */
#ifndef STEER_CTL_FORMAT_H
#define STEER_CTL_FORMAT_H

#include <stdbool.h>
#include <stddef.h>

typedef enum ctl_mode {
	CTL_HUMAN,
	CTL_JSON,
	CTL_RAW,
} ctl_mode;

/* True when line (without its newline) is an ERR reply. */
bool ctl_is_err(const char *line, size_t len);
/* Prints the reply line (without its newline) to the command `command` (its first
 * word decides the human layout) in mode. */
void ctl_print_reply(ctl_mode mode, const char *command, const char *line, size_t len);

/* Copies up to n - 1 of the len bytes at in to out (NUL-terminated), each byte that
 * is not printable ASCII (control characters, escape sequences, UTF-8) as '.', so
 * what a server or a user sent cannot drive the terminal. Returns the length. */
size_t ctl_printable(char *out, size_t n, const char *in, size_t len);

/* Whether the first bytes a server sent are a text-protocol reply: 1 yes, 0 no, -1
 * not enough bytes to tell. */
int ctl_looks_like_text(const char *buf, size_t len);
/* Whether they are steer-server's protobuf port's first frame. */
bool ctl_looks_like_protobuf(const char *buf, size_t len);
/* Why the first bytes are not: names steer-server's protobuf stream when they are its
 * first frame, and text_port (when not NULL: a port seen to answer as a command port)
 * as the one to use. */
void ctl_explain_not_text(const char *buf, size_t len, const char *text_port, char *out, size_t n);

#endif
