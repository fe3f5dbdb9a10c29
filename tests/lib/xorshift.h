/*
 * xorshift.h - Marsaglia's xorshift64, the generator of every generated
 * trace, workload and random walk in tests/ and bench/: fast, and the
 * same sequence every run from the same seed, so a failure replays.
 * Not for anything that must be unpredictable.
 */
#ifndef PMU_XORSHIFT_H
#define PMU_XORSHIFT_H

#include <stdint.h>

/* The seed of Marsaglia's paper; any non-zero state will do. */
#define XORSHIFT_SEED 88172645463325252ULL

/* The next state of *s, which is also the number drawn. */
static inline uint64_t
xorshift64(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Uniform in [0, 1), from the top 53 bits. */
static inline double
xorshift_uniform(uint64_t *s)
{
	return (double)(xorshift64(s) >> 11) / 9007199254740992.0;
}

#endif
