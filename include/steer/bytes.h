/* The one byte writer and reader, below every binary format: a growable byte string
 * and a bounds-checked reader, protobuf's varints and zigzag coding for the wire
 * (wire/), little-endian fixed-width words for files (the journal), and plain copies in
 * this build's own layout for messages between processes of one build (the world
 * records of sim/world_record.h, the solid pass's parts). Knows nothing of messages,
 * frames or the world. The per-byte functions are inline: they run once or more per
 * vehicle of every frame. */
#ifndef STEER_BYTES_H
#define STEER_BYTES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "api.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The longest varint: 64 bits at 7 a byte. */
#define STEER_VARINT_MAX 10

/* Writes x as a varint (7 bits a byte, low first) to out; returns the bytes written. */
static inline size_t steer_varint_encode(uint8_t out[STEER_VARINT_MAX], uint64_t x)
{
	size_t n = 0;
	while (x >= 0x80) {
		out[n++] = (uint8_t)(x | 0x80);
		x >>= 7;
	}
	out[n++] = (uint8_t)x;
	return n;
}

/* The bytes steer_varint_encode writes for x. */
static inline size_t steer_varint_size(uint64_t x)
{
	size_t n = 1;
	while (x >= 0x80) {
		x >>= 7;
		n++;
	}
	return n;
}

/* The one varint decoder. Reads the varint at p[0..len) into *v; returns the bytes
 * it took, 0 when p ends inside it (more may come), -1 when it runs past max_len
 * bytes (at most STEER_VARINT_MAX: bits past 64 are dropped). */
static inline int steer_varint_decode(const uint8_t *p, size_t len, size_t max_len, uint64_t *v)
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

/* Zigzag in unsigned arithmetic: the two's-complement reading of d, small either way
 * round, with no signed overflow or shifts of negative numbers. */
static inline uint32_t steer_zigzag32(uint32_t d)
{
	return (d << 1) ^ (0u - (d >> 31));
}

static inline uint32_t steer_unzigzag32(uint32_t z)
{
	return (z >> 1) ^ (0u - (z & 1));
}

/* A growable byte string. Owned: free with steer_blob_free. A failed append sets
 * oom, and every later append is then dropped, so a run of appends is checked once. */
typedef struct steer_blob {
	uint8_t *data;
	size_t len, cap;
	bool oom;
} steer_blob;

STEER_API void steer_blob_clear(steer_blob *b);
STEER_API void steer_blob_free(steer_blob *b);
/* Grows the blob for n more bytes: STEER_OK, or NOMEM (and oom set) when memory runs
 * out or has run out before. */
STEER_API steer_status steer_blob_grow(steer_blob *b, size_t n);

/* Room for n more bytes, growing the blob if need be: STEER_OK, or NOMEM (and oom
 * set) when memory runs out. */
static inline steer_status steer_blob_room(steer_blob *b, size_t n)
{
	if (!b->oom && b->cap - b->len >= n)
		return STEER_OK;
	return steer_blob_grow(b, n);
}

static inline void steer_blob_put_byte(steer_blob *b, uint8_t v)
{
	if (steer_blob_room(b, 1) == STEER_OK)
		b->data[b->len++] = v;
}

static inline void steer_blob_put_varint(steer_blob *b, uint64_t x)
{
	if (steer_blob_room(b, STEER_VARINT_MAX) == STEER_OK)
		b->len += steer_varint_encode(b->data + b->len, x);
}

/* Appends n bytes copied from p (this build's layout, for this build to read back). */
static inline void steer_blob_put(steer_blob *b, const void *p, size_t n)
{
	if (n && steer_blob_room(b, n) == STEER_OK) {
		memcpy(b->data + b->len, p, n);
		b->len += n;
	}
}

static inline void steer_blob_put_u32(steer_blob *b, uint32_t v)
{
	steer_blob_put(b, &v, sizeof v);
}

/* What a run of appends came to: STEER_OK, or NOMEM when one of them failed. */
static inline steer_status steer_blob_status(const steer_blob *b)
{
	return b->oom ? STEER_ERR_NOMEM : STEER_OK;
}

/* Little-endian fixed-width words at p, for files read on any machine. */
static inline void steer_le32_put(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline void steer_le64_put(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline uint32_t steer_le32_get(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t steer_le64_get(const uint8_t *p)
{
	return (uint64_t)steer_le32_get(p) | (uint64_t)steer_le32_get(p + 4) << 32;
}

/* Reads p[0..len) front to back; a read past the end fails and leaves pos. */
typedef struct steer_reader {
	const uint8_t *p;
	size_t len, pos;
} steer_reader;

static inline bool steer_read_byte(steer_reader *r, uint8_t *v)
{
	if (r->pos >= r->len)
		return false;
	*v = r->p[r->pos++];
	return true;
}

/* Copies the next n bytes to out; false, with out and pos untouched, when fewer are
 * left. */
static inline bool steer_read_bytes(steer_reader *r, void *out, size_t n)
{
	if (r->len - r->pos < n)
		return false;
	if (n)
		memcpy(out, r->p + r->pos, n);
	r->pos += n;
	return true;
}

/* Whether every byte has been read. */
static inline bool steer_read_done(const steer_reader *r)
{
	return r->pos == r->len;
}

/* False when the bytes end inside the varint or it is over STEER_VARINT_MAX bytes. */
static inline bool steer_read_varint(steer_reader *r, uint64_t *v)
{
	if (r->pos >= r->len) /* and an empty reader's p may be NULL */
		return false;
	int n = steer_varint_decode(r->p + r->pos, r->len - r->pos, STEER_VARINT_MAX, v);
	if (n <= 0)
		return false;
	r->pos += (size_t)n;
	return true;
}

/* The same, and false for a value over 32 bits. */
static inline bool steer_read_varint32(steer_reader *r, uint32_t *v)
{
	uint64_t x;
	if (!steer_read_varint(r, &x) || x > UINT32_MAX)
		return false;
	*v = (uint32_t)x;
	return true;
}

#ifdef __cplusplus
}
#endif

#endif
