/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "frand.h"
#include "job.h"

/* fio's FIO_RANDSEED (init.c) */
#define FIO_RANDSEED 0xb1899bedULL
/* fio's multiplier between its per-job seeds (init.c setup_random_seeds) */
#define FIO_SEED_MULT 0x9e370001ULL

static uint32_t taus88_next(uint32_t s[3])
{
	s[0] = ((s[0] & 4294967294U) << 12) ^ (((s[0] << 13) ^ s[0]) >> 19);
	s[1] = ((s[1] & 4294967288U) << 4) ^ (((s[1] << 2) ^ s[1]) >> 25);
	s[2] = ((s[2] & 4294967280U) << 17) ^ (((s[2] << 3) ^ s[2]) >> 11);
	return s[0] ^ s[1] ^ s[2];
}

static uint64_t taus258_next(uint64_t s[5])
{
	s[0] = ((s[0] & 18446744073709551614ULL) << 10) ^ (((s[0] << 1) ^ s[0]) >> 53);
	s[1] = ((s[1] & 18446744073709551104ULL) << 5) ^ (((s[1] << 24) ^ s[1]) >> 50);
	s[2] = ((s[2] & 18446744073709547520ULL) << 29) ^ (((s[2] << 3) ^ s[2]) >> 23);
	s[3] = ((s[3] & 18446744073709420544ULL) << 23) ^ (((s[3] << 5) ^ s[3]) >> 24);
	s[4] = ((s[4] & 18446744073701163008ULL) << 8) ^ (((s[4] << 3) ^ s[4]) >> 33);
	return s[0] ^ s[1] ^ s[2] ^ s[3] ^ s[4];
}

/* L'Ecuyer's seeding condition: each component above its minimum */
static uint64_t above(uint64_t x, uint64_t m)
{
	return x < m ? x + m : x;
}

void iogap_frand_seed(struct iogap_frand *r, uint64_t seed, bool use64)
{
	/* fio writes its LCG start (2^31) + (2^17) + (2^7): XORs in C, 53 */
	const uint64_t start = 53;
	static const uint64_t min64[5] = { 1, 7, 15, 33, 49 };
	static const uint32_t min32[3] = { 1, 7, 15 };

	r->use64 = use64;
	if (use64) {
		uint64_t x = start;

		for (int i = 0; i < 5; i++)
			x = r->s64[i] = above(x * 6906969069ULL ^ seed, min64[i]);
	} else {
		uint32_t x = (uint32_t)start, s = (uint32_t)seed;

		for (int i = 0; i < 3; i++)
			x = r->s32[i] = (uint32_t)above((uint32_t)(x * 69069U ^ s), min32[i]);
	}
	for (int i = 0; i < 6; i++)   /* fio's "cranks" */
		iogap_frand_next(r);
}

uint64_t iogap_frand_next(struct iogap_frand *r)
{
	return r->use64 ? taus258_next(r->s64) : taus88_next(r->s32);
}

uint64_t iogap_frand_block(struct iogap_frand *r, uint64_t lastb)
{
	/* v / 2^32 (2^64) as fio divides, by the exact inverse: the same value,
	 * without a floating-point division per draw */
	double scale = r->use64 ? 0x1.0p-64 : 0x1.0p-32;
	uint64_t v = iogap_frand_next(r);

	return (uint64_t)((double)lastb * ((double)v * scale));
}

uint64_t iogap_frand_between(struct iogap_frand *r, uint64_t start, uint64_t end)
{
	uint64_t n = end - start + 1;

	if (r->use64)
		return start + (uint64_t)((double)n * ((double)taus258_next(r->s64) / 0x1.0p64));
	return start + (uint32_t)(int)((double)(uint32_t)n * (taus88_next(r->s32) / 0x1.0p32));
}

uint64_t iogap_fio_seed(const struct iogap_job *j, unsigned thread_number, enum iogap_fio_seed idx,
			uint64_t random_seed)
{
	uint64_t seed = j->randseed;

	if (idx == IOGAP_FIO_SEED_BLOCK && j->randrepeat)
		return FIO_RANDSEED * thread_number;
	if (j->proc.allrandrepeat)
		return FIO_RANDSEED * thread_number + (uint64_t)idx;
	if (!j->randrepeat && !j->randseed_set)
		return random_seed;
	for (int i = 0; i < 4; i++)
		seed *= FIO_SEED_MULT;
	for (unsigned i = 0; i < (unsigned)idx; i++)
		seed *= FIO_SEED_MULT;
	return seed * thread_number + (uint64_t)idx;
}

static uint32_t rol32(uint32_t w, unsigned shift)
{
	return (w << shift) | (w >> (32 - shift));
}

#define JHASH_MIX(a, b, c) do {					\
	a -= c; a ^= rol32(c, 4); c += b;			\
	b -= a; b ^= rol32(a, 6); a += c;			\
	c -= b; c ^= rol32(b, 8); b += a;			\
	a -= c; a ^= rol32(c, 16); c += b;			\
	b -= a; b ^= rol32(a, 19); a += c;			\
	c -= b; c ^= rol32(b, 4); b += a;			\
} while (0)

#define JHASH_FINAL(a, b, c) do {				\
	c ^= b; c -= rol32(b, 14);				\
	a ^= c; a -= rol32(c, 11);				\
	b ^= a; b -= rol32(a, 25);				\
	c ^= b; c -= rol32(b, 16);				\
	a ^= c; a -= rol32(c, 4);				\
	b ^= a; b -= rol32(a, 14);				\
	c ^= b; c -= rol32(b, 24);				\
} while (0)

/* fio's jhash (hash.h), initval 0: its 12-byte blocks add one byte per
 * word, not the whole word, and so must this */
static uint32_t fio_jhash(const char *key, uint32_t len)
{
	const uint8_t *k = (const uint8_t *)key;
	uint32_t a, b, c, tail[3] = { 0, 0, 0 };

	a = b = c = 0x61C88647u + len;   /* fio's JHASH_INITVAL */
	for (; len > 12; len -= 12, k += 12) {
		a += k[0];
		b += k[4];
		c += k[8];
		JHASH_MIX(a, b, c);
	}
	if (!len)
		return c;
	for (uint32_t i = 0; i < len; i++)   /* the last block, little end first */
		tail[i / 4] += (uint32_t)k[i] << (8 * (i % 4));
	a += tail[0];
	b += tail[1];
	c += tail[2];
	JHASH_FINAL(a, b, c);
	return c;
}

uint32_t iogap_fio_dist_seed(const struct iogap_job *j, unsigned thread_number, const char *name,
			     uint64_t random_seed)
{
	if (!j->randrepeat)
		return (uint32_t)iogap_fio_seed(j, thread_number, IOGAP_FIO_SEED_BLOCK, random_seed);
	return fio_jhash(name, (uint32_t)strlen(name)) * thread_number;
}
