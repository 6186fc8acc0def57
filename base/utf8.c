#include "utf8.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

size_t steer_utf8_char(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	unsigned char c = p[0];
	if (c < 0x80)
		return 1;
	size_t len;
	unsigned char lo = 0x80, hi = 0xbf; /* the range of the second byte */
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		if (c == 0xe0)
			lo = 0xa0; /* overlong */
		else if (c == 0xed)
			hi = 0x9f; /* surrogates */
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		if (c == 0xf0)
			lo = 0x90; /* overlong */
		else if (c == 0xf4)
			hi = 0x8f; /* past U+10FFFF */
	} else {
		return 0; /* a continuation byte, 0xc0, 0xc1 or 0xf5..0xff */
	}
	if (n < len || p[1] < lo || p[1] > hi)
		return 0;
	for (size_t k = 2; k < len; k++)
		if (p[k] < 0x80 || p[k] > 0xbf)
			return 0;
	return len;
}

size_t steer_utf8_cut(const char *s, size_t len, size_t max)
{
	size_t i = 0;
	while (i < len) {
		size_t k = steer_utf8_char(s + i, len - i);
		if (k == 0)
			k = 1; /* a stray byte stands alone */
		if (i + k > max)
			break;
		i += k;
	}
	return i;
}

/* C0 controls, DEL, and the C1 controls U+0080..U+009F (two bytes, 0xc2 0x80..0x9f),
 * which some terminals obey as escape sequences. */
static bool is_control(const unsigned char *p, size_t k)
{
	return (k == 1 && (p[0] < 0x20 || p[0] == 0x7f)) || (k == 2 && p[0] == 0xc2 && p[1] < 0xa0);
}

size_t steer_utf8_escape(char *dst, size_t n, const char *src, size_t len)
{
	size_t out = 0;
	for (size_t i = 0; i < len;) {
		const unsigned char *p = (const unsigned char *)src + i;
		size_t k = steer_utf8_char(src + i, len - i);
		if (k && !is_control(p, k)) {
			if (out + k >= n)
				break;
			memcpy(dst + out, p, k);
			out += k;
			i += k;
			continue;
		}
		/* Every byte of a control character or of a bad sequence is shown. */
		size_t bytes = k ? k : 1;
		if (out + 4 * bytes >= n)
			break;
		for (size_t b = 0; b < bytes; b++, out += 4)
			snprintf(dst + out, 5, "\\x%02x", p[b]);
		i += bytes;
	}
	dst[out] = '\0';
	return out;
}
