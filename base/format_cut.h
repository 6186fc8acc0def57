/* A message for a user, formatted into a fixed buffer: one that does not fit is cut
 * short and ends with "...", so that its reader knows part of it is missing (a long
 * path or host name, say), where snprintf would cut it silently. */
#ifndef STEER_FORMAT_CUT_H
#define STEER_FORMAT_CUT_H

#include <stddef.h>

/* fmt and its arguments into buf[n] (n > 0), as snprintf does, but cut short with
 * "..." when longer than n - 1, never inside a UTF-8 character. */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
void steer_format_cut(char *buf, size_t n, const char *fmt, ...);

/* A word as a refusal quotes it: whole when short, else its first bytes (cut on a
 * character boundary) and "...", so that the reason after it still fits the message.
 * out holds STEER_QUOTE_SIZE bytes; returns word itself or out. */
#define STEER_QUOTE_SIZE 48
const char *steer_quote_cut(const char *word, char *out);

#endif
