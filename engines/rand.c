/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "job.h"
#include "rand.h"

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void iogap_rand_seed(struct iogap_rand *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&seed);
}

/* fio caps the zeta sum for speed; the tail beyond adds little mass. */
#define ZIPF_MAX_GEN 10000000ULL

static double zeta(uint64_t n, double theta)
{
	double sum = 0.0;

	for (uint64_t i = 1; i <= n; i++)
		sum += pow(1.0 / (double)i, theta);
	return sum;
}

int iogap_skew_init(struct iogap_skew *z, int kind, double param, uint64_t n, uint64_t seed)
{
	memset(z, 0, sizeof(*z));
	if (n == 0)
		return -EINVAL;
	z->kind = kind;
	z->n = n;
	z->hash_seed = seed;
	if (kind == IOGAP_RAND_ZIPF) {
		uint64_t gen = n < ZIPF_MAX_GEN ? n : ZIPF_MAX_GEN;

		z->theta = param;
		z->zetan = zeta(gen, param);
		z->zeta2 = zeta(2, param);
		z->alpha = 1.0 / (1.0 - param);
		z->eta = (1.0 - pow(2.0 / (double)n, 1.0 - param)) / (1.0 - z->zeta2 / z->zetan);
	} else if (kind == IOGAP_RAND_PARETO) {
		z->pareto_pow = log(param) / log(1.0 - param);
	}
	return 0;
}

static uint64_t scramble(uint64_t v, uint64_t seed, uint64_t n)
{
	uint64_t x = v ^ seed;

	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return x % n;
}

uint64_t iogap_skew_next(struct iogap_skew *z, struct iogap_rand *r)
{
	double u = iogap_rand_double(r);
	uint64_t v;

	if (z->kind == IOGAP_RAND_ZIPF) {
		double uz = u * z->zetan;

		if (uz < 1.0)
			v = 0;
		else if (uz < 1.0 + pow(0.5, z->theta))
			v = 1;
		else
			v = (uint64_t)((double)z->n * pow(z->eta * u - z->eta + 1.0, z->alpha));
	} else if (z->kind == IOGAP_RAND_PARETO) {
		v = (uint64_t)((double)(z->n - 1) * pow(u, z->pareto_pow));
	} else {
		return iogap_rand_below(r, z->n);
	}
	if (v >= z->n)
		v = z->n - 1;
	/* spread hot ranks over the device instead of packing them at 0 */
	return z->no_hash ? v : scramble(v, z->hash_seed, z->n);
}

int iogap_blockmap_init(struct iogap_blockmap *m, uint64_t nblocks)
{
	m->nblocks = nblocks;
	m->used = 0;
	m->bits = calloc((nblocks + 63) / 64, sizeof(uint64_t));
	return m->bits ? 0 : -ENOMEM;
}

void iogap_blockmap_free(struct iogap_blockmap *m)
{
	free(m->bits);
	m->bits = NULL;
}

static bool block_used(const struct iogap_blockmap *m, uint64_t b)
{
	return m->bits[b / 64] & (1ULL << (b % 64));
}

uint64_t iogap_blockmap_find(struct iogap_blockmap *m, uint64_t b)
{
	uint64_t words = (m->nblocks + 63) / 64;
	uint64_t w;

	if (m->used == m->nblocks)
		return UINT64_MAX;
	if (b >= m->nblocks || !block_used(m, b))   /* past the map: free, as fio's axmap_isset */
		return b;
	/* next free block after b: scan words, wrapping once */
	w = b / 64;
	for (uint64_t i = 0; i <= words; i++, w = w + 1 == words ? 0 : w + 1) {
		uint64_t free_bits = ~m->bits[w];

		if (i == 0)
			free_bits &= ~0ULL << (b % 64);
		if (w == words - 1 && m->nblocks % 64)
			free_bits &= (1ULL << (m->nblocks % 64)) - 1;
		if (free_bits)
			return w * 64 + (uint64_t)__builtin_ctzll(free_bits);
	}
	return 0;  /* unreachable: used < nblocks guarantees a free bit */
}

uint64_t iogap_blockmap_mark(struct iogap_blockmap *m, uint64_t b, uint64_t nr)
{
	uint64_t got = 0;

	for (; got < nr && b + got < m->nblocks && !block_used(m, b + got); got++) {
		m->bits[(b + got) / 64] |= 1ULL << ((b + got) % 64);
		m->used++;
	}
	return got;
}

void iogap_rand_fill(void *buf, size_t len, uint64_t seed)
{
	struct iogap_rand r;

	iogap_rand_seed(&r, seed);
	for (size_t i = 0; i < len; i += 8) {
		uint64_t v = iogap_rand_next(&r);

		memcpy((char *)buf + i, &v, len - i < 8 ? len - i : 8);
	}
}
