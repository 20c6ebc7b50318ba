/* random.h: small, fast, seedable pseudo-random numbers for tests.
 * Not for anything that needs to be unpredictable. */
#ifndef KERNEL_RANDOM_H
#define KERNEL_RANDOM_H

#include <stdint.h>

struct prng {
	uint64_t state;
};

/* splitmix64: turns any seed (even 0 or 1, 2, 3...) into well-spread bits. */
static inline uint64_t mix64(uint64_t x)
{
	x += 0x9E3779B97F4A7C15ULL;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
	return x ^ (x >> 31);
}

static inline void prng_seed(struct prng *r, uint64_t seed)
{
	r->state = mix64(seed) | 1;	/* xorshift must not start at 0 */
}

/* xorshift64*: a 64-bit state, period 2^64 - 1. */
static inline uint64_t prng_next(struct prng *r)
{
	uint64_t x = r->state;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	r->state = x;
	return x * 0x2545F4914F6CDD1DULL;
}

/* Uniform enough in [0, n) for tests (n > 0). */
static inline uint64_t prng_below(struct prng *r, uint64_t n)
{
	return prng_next(r) % n;
}

#endif
