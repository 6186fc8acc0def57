#include "bytes.h"

#include <stdlib.h>
#include <string.h>

#include "reserve.h"

size_t steer_varint_encode(uint8_t out[STEER_VARINT_MAX], uint64_t x)
{
	size_t n = 0;
	while (x >= 0x80) {
		out[n++] = (uint8_t)(x | 0x80);
		x >>= 7;
	}
	out[n++] = (uint8_t)x;
	return n;
}

size_t steer_varint_size(uint64_t x)
{
	size_t n = 1;
	while (x >= 0x80) {
		x >>= 7;
		n++;
	}
	return n;
}

int steer_varint_decode(const uint8_t *p, size_t len, size_t max_len, uint64_t *v)
{
	uint64_t x = 0;
	if (max_len > STEER_VARINT_MAX)
		max_len = STEER_VARINT_MAX;
	for (size_t i = 0; i < max_len; i++) {
		if (i == len)
			return 0;
		x |= (uint64_t)(p[i] & 0x7f) << (7 * i);
		if (!(p[i] & 0x80)) {
			*v = x;
			return (int)i + 1;
		}
	}
	return -1;
}

void steer_blob_clear(steer_blob *b)
{
	b->len = 0;
	b->oom = false;
}

void steer_blob_free(steer_blob *b)
{
	free(b->data);
	memset(b, 0, sizeof *b);
}

bool steer_blob_room(steer_blob *b, size_t n)
{
	if (b->oom)
		return false;
	if (n > SIZE_MAX - b->len ||
	    steer_reserve((void **)&b->data, &b->cap, b->len + n, 1) != 0) {
		b->oom = true;
		return false;
	}
	return true;
}

void steer_blob_put_byte(steer_blob *b, uint8_t v)
{
	if (steer_blob_room(b, 1))
		b->data[b->len++] = v;
}

void steer_blob_put_varint(steer_blob *b, uint64_t x)
{
	if (steer_blob_room(b, STEER_VARINT_MAX))
		b->len += steer_varint_encode(b->data + b->len, x);
}

bool steer_read_byte(steer_reader *r, uint8_t *v)
{
	if (r->pos >= r->len)
		return false;
	*v = r->p[r->pos++];
	return true;
}

bool steer_read_varint(steer_reader *r, uint64_t *v)
{
	if (r->pos >= r->len) /* and an empty reader's p may be NULL */
		return false;
	int n = steer_varint_decode(r->p + r->pos, r->len - r->pos, STEER_VARINT_MAX, v);
	if (n <= 0)
		return false;
	r->pos += (size_t)n;
	return true;
}

bool steer_read_varint32(steer_reader *r, uint32_t *v)
{
	uint64_t x;
	if (!steer_read_varint(r, &x) || x > UINT32_MAX)
		return false;
	*v = (uint32_t)x;
	return true;
}
