/* A growable byte buffer for building replies and files, with JSON helpers. An
 * allocation failure sets oom and turns later appends into no-ops, so callers check
 * once at the end instead of after every append. */
#ifndef STEER_STRBUF_H
#define STEER_STRBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "api.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct steer_strbuf {
	char *data; /* NUL-terminated when len > 0; owned, release with steer_strbuf_free */
	size_t len, cap;
	bool oom;
} steer_strbuf;

STEER_API void steer_strbuf_init(steer_strbuf *b);
STEER_API void steer_strbuf_free(steer_strbuf *b);
STEER_API void steer_strbuf_clear(steer_strbuf *b);
STEER_API void steer_strbuf_put(steer_strbuf *b, const char *s, size_t n);
/* Room for n more bytes at data + len, for a writer that fills them directly and then
 * advances len itself; NULL when memory runs out. */
STEER_API char *steer_strbuf_reserve(steer_strbuf *b, size_t n);
STEER_API void steer_strbuf_puts(steer_strbuf *b, const char *s);
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
STEER_API void
steer_strbuf_printf(steer_strbuf *b, const char *fmt, ...);

/* A number that reads back exactly (%.17g); non-finite values, which JSON cannot
 * hold, become null. */
STEER_API void steer_json_num(steer_strbuf *b, double v);
/* An array of n such numbers: "[a,b,...]". */
STEER_API void steer_json_nums(steer_strbuf *b, const double *v, size_t n);
/* A quoted, escaped JSON string; bytes that are not UTF-8 show as the text \xNN. */
STEER_API void steer_json_str(steer_strbuf *b, const char *s);

#ifdef __cplusplus
}
#endif

#endif
