/* Seeded random numbers for the core. Never rand(), never the clock: the same seed
 * must give the same world on every machine. */
#ifndef STEER_RNG_H
#define STEER_RNG_H

#include <stdint.h>

#include "api.h"

#ifdef __cplusplus
extern "C" {
#endif

/* PCG32 (O'Neill, XSH-RR): the world's generator for spawns and scenarios. */
typedef struct steer_rng {
	uint64_t state;
	uint64_t inc;
} steer_rng;

STEER_API void steer_rng_seed(steer_rng *rng, uint64_t seed, uint64_t stream);
STEER_API uint32_t steer_rng_u32(steer_rng *rng);
/* Uniform in [0, 1), 53 random bits. */
STEER_API double steer_rng_unit(steer_rng *rng);
/* Uniform in [lo, hi). */
STEER_API double steer_rng_range(steer_rng *rng, double lo, double hi);

/* A counter-based draw in [0, 1): a pure function of (seed, a, b). Wander jitter uses
 * it keyed by (vehicle id, tick), so a vehicle's randomness does not depend on the
 * order vehicles are stored or stepped in, nor on how many threads step them, and
 * there is no per-vehicle generator state to save. */
STEER_API double steer_hash_unit(uint64_t seed, uint64_t a, uint64_t b);

#ifdef __cplusplus
}
#endif

#endif
