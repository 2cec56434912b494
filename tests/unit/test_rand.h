/* test_rand.h — the unit tests' seeded xorshift64* generator (deterministic across platforms). A test that wants
 * another sequence defines TEST_RAND_SEED before including this header. */
#ifndef TEST_RAND_H
#define TEST_RAND_H

#include <stdint.h>

#ifndef TEST_RAND_SEED
#define TEST_RAND_SEED 0x9E3779B97F4A7C15ull
#endif

static uint64_t rng_state = TEST_RAND_SEED;

/* Uniform in [0, 1). */
static inline double urand(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (double)((rng_state * 2685821657736338717ull) >> 11) * (1.0 / 9007199254740992.0);
}

#endif
