/* Text that leaves the program (replies, notices, JSON strings, log lines) is valid
 * UTF-8 on one line whatever bytes a client sent: protobuf parsers refuse a `string`
 * that is not UTF-8, and a control character quoted back could forge a log line or
 * drive the reader's terminal. */
#ifndef STEER_UTF8_H
#define STEER_UTF8_H

#include <stddef.h>

/* The bytes in the well-formed UTF-8 character at s (1 to 4; n bytes available), or
 * 0 when s does not start one: a stray continuation byte, an overlong form, a
 * surrogate, a code point past U+10FFFF, or a character cut short. n must be > 0. */
size_t steer_utf8_char(const char *s, size_t n);

/* The longest prefix of s (len bytes) of at most max bytes that does not end inside
 * a character. */
size_t steer_utf8_cut(const char *s, size_t len, size_t max);

/* Copies src (len bytes) into dst (n >= 1 bytes, always NUL-terminated) as valid
 * UTF-8 on one line: control characters (C0, DEL, C1) and bytes that are not
 * well-formed UTF-8 become the four characters \xNN; when it does not all fit, it is
 * cut before a whole character or escape. Returns the length written. */
size_t steer_utf8_escape(char *dst, size_t n, const char *src, size_t len);

#endif
