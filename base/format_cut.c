#include "format_cut.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *steer_quote_cut(const char *word, char *out)
{
	size_t keep = STEER_QUOTE_SIZE - 4;
	if (strlen(word) < STEER_QUOTE_SIZE)
		return word;
	while (keep > 0 && ((unsigned char)word[keep] & 0xc0) == 0x80)
		keep--; /* not inside a character */
	memcpy(out, word, keep);
	memcpy(out + keep, "...", 4);
	return out;
}

void steer_format_cut(char *buf, size_t n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int k = vsnprintf(buf, n, fmt, ap);
	va_end(ap);
	if (k < 0 && n > 0)
		buf[0] = '\0'; /* an encoding error: nothing to say */
	else if ((size_t)k >= n && n > 4) {
		/* Cut on a character's first byte, so that the text stays UTF-8. */
		size_t at = n - 4;
		while (at > 0 && ((unsigned char)buf[at] & 0xc0) == 0x80)
			at--;
		memcpy(buf + at, "...", 4);
	}
}
