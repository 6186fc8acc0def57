/* The byte level of the wire format, below every message: protobuf's varints, zigzag
 * coding, a growable byte string and a bounds-checked reader. Knows nothing of
 * messages, frames or the world; the rest of proto/ builds on it. */
#ifndef STEER_BYTES_H
#define STEER_BYTES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The longest varint: 64 bits at 7 a byte. */
#define STEER_VARINT_MAX 10

/* Writes x as a varint (7 bits a byte, low first) to out; returns the bytes written. */
size_t steer_varint_encode(uint8_t out[STEER_VARINT_MAX], uint64_t x);
/* The bytes steer_varint_encode writes for x. */
size_t steer_varint_size(uint64_t x);
/* The one varint decoder. Reads the varint at p[0..len) into *v; returns the bytes
 * it took, 0 when p ends inside it (more may come), -1 when it runs past max_len
 * bytes (at most STEER_VARINT_MAX: bits past 64 are dropped). */
int steer_varint_decode(const uint8_t *p, size_t len, size_t max_len, uint64_t *v);

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

void steer_blob_clear(steer_blob *b);
void steer_blob_free(steer_blob *b);
/* Room for n more bytes; false (and oom set) when memory runs out. */
bool steer_blob_room(steer_blob *b, size_t n);
void steer_blob_put_byte(steer_blob *b, uint8_t v);
void steer_blob_put_varint(steer_blob *b, uint64_t x);

/* Reads p[0..len) front to back; a read past the end fails and leaves pos. */
typedef struct steer_reader {
	const uint8_t *p;
	size_t len, pos;
} steer_reader;

bool steer_read_byte(steer_reader *r, uint8_t *v);
/* False when the bytes end inside the varint or it is over STEER_VARINT_MAX bytes. */
bool steer_read_varint(steer_reader *r, uint64_t *v);
/* The same, and false for a value over 32 bits. */
bool steer_read_varint32(steer_reader *r, uint32_t *v);

#endif
