/* SPDX-License-Identifier: MIT */
/*
 * Seeded random numbers for offsets, block sizes and read/write mixes:
 * identical seeds give identical workloads in the guest and on bare metal.
 */
#ifndef IOGAP_RAND_H
#define IOGAP_RAND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct iogap_rand {
	uint64_t s[4];          /* xoshiro256** state */
};

void iogap_rand_seed(struct iogap_rand *r, uint64_t seed);
/* len random bytes of a generator seeded with seed. */
void iogap_rand_fill(void *buf, size_t len, uint64_t seed);

static inline uint64_t iogap_rand_rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static inline uint64_t iogap_rand_next(struct iogap_rand *r)
{
	uint64_t *s = r->s;
	uint64_t result = iogap_rand_rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = iogap_rand_rotl(s[3], 45);
	return result;
}

/* Uniform in [0, n), n > 0 (Lemire's multiply-shift, bias < 2^-64·n). */
static inline uint64_t iogap_rand_below(struct iogap_rand *r, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)iogap_rand_next(r) * n) >> 64);
}

/* Uniform double in [0, 1). */
static inline double iogap_rand_double(struct iogap_rand *r)
{
	return (double)(iogap_rand_next(r) >> 11) * 0x1.0p-53;
}

/* Skewed block choice over n blocks (fio's zipf and pareto), with the
 * hot blocks spread over the range by a hash, as fio does. */
struct iogap_skew {
	int kind;               /* enum iogap_random_dist */
	uint64_t n;
	double theta, zetan, zeta2, alpha, eta;   /* zipf (Gray et al.) */
	double pareto_pow;
	uint64_t hash_seed;
	bool no_hash;           /* ranks in order, hottest first (fio's
				 * zipf_disable_hash, for file_service_type) */
};

int iogap_skew_init(struct iogap_skew *z, int kind, double param, uint64_t n, uint64_t seed);
uint64_t iogap_skew_next(struct iogap_skew *z, struct iogap_rand *r);

/* A map of blocks already done in this pass (fio's random map), so random
 * I/O touches each block once before repeating. */
struct iogap_blockmap {
	uint64_t *bits;
	uint64_t nblocks;
	uint64_t used;
};

int iogap_blockmap_init(struct iogap_blockmap *m, uint64_t nblocks);
void iogap_blockmap_free(struct iogap_blockmap *m);
/* Block b if free (or past the map), else the next free one after it
 * (wrapping); UINT64_MAX when every block is used. */
uint64_t iogap_blockmap_find(struct iogap_blockmap *m, uint64_t b);
/* Mark up to nr blocks from b as used, stopping at a used one or the
 * end (fio's axmap_set_nr): how many were marked. */
uint64_t iogap_blockmap_mark(struct iogap_blockmap *m, uint64_t b, uint64_t nr);

#endif
