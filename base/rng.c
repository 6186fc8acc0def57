#include "steer/rng.h"

void steer_rng_seed(steer_rng *rng, uint64_t seed, uint64_t stream)
{
	rng->state = 0;
	rng->inc = (stream << 1u) | 1u;
	steer_rng_u32(rng);
	rng->state += seed;
	steer_rng_u32(rng);
}

uint32_t steer_rng_u32(steer_rng *rng)
{
	uint64_t old = rng->state;
	rng->state = old * 6364136223846793005ULL + rng->inc;
	uint32_t xorshifted = (uint32_t)(((old >> 18u) ^ old) >> 27u);
	uint32_t rot = (uint32_t)(old >> 59u);
	return (xorshifted >> rot) | (xorshifted << ((32u - rot) & 31u));
}

double steer_rng_unit(steer_rng *rng)
{
	uint64_t hi = steer_rng_u32(rng) >> 5; /* 27 bits */
	uint64_t lo = steer_rng_u32(rng) >> 6; /* 26 bits */
	return (double)((hi << 26) | lo) * (1.0 / 9007199254740992.0);
}

double steer_rng_range(steer_rng *rng, double lo, double hi)
{
	return lo + (hi - lo) * steer_rng_unit(rng);
}

/* SplitMix64's finalizer: a bijective avalanche mix, so distinct inputs never collide
 * and neighbouring counters give unrelated outputs. */
static uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

double steer_hash_unit(uint64_t seed, uint64_t a, uint64_t b)
{
	uint64_t h = mix64(seed + 0x9e3779b97f4a7c15ULL);
	h = mix64(h ^ (a + 0x632be59bd9b4e019ULL));
	h = mix64(h ^ (b + 0x85157af5a1f3c1b7ULL));
	return (double)(h >> 11) * (1.0 / 9007199254740992.0);
}
