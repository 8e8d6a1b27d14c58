/* SPDX-License-Identifier: MIT */
#include <math.h>
#include <string.h>

#include "gauss.h"

#define GAUSS_ITERS 12
#define GOLDEN_RATIO_64 0x61C8864680B583EBULL   /* fio's __hash_u64 */

/* fio's gauss_dev: up to the deviation either side, in fio's unsigned
 * arithmetic converted back to int */
static int gauss_dev(struct iogap_gauss *g)
{
	uint32_t r;
	int vr;

	if (!g->stddev)
		return 0;
	r = (uint32_t)iogap_frand_next(&g->r);
	vr = (int)(g->stddev * (r / 0x1.0p32));
	return (int)((unsigned)vr - g->stddev / 2);
}

void iogap_gauss_init(struct iogap_gauss *g, uint64_t nranges, double dev, double center,
		      uint32_t seed, bool disable_hash)
{
	memset(g, 0, sizeof(*g));
	iogap_frand_seed(&g->r, seed, false);
	g->nranges = nranges;
	g->disable_hash = disable_hash;
	if (dev != 0.0) {
		g->stddev = (unsigned)ceil((double)nranges * dev / 100.0);
		if (g->stddev > nranges / 2)
			g->stddev = (unsigned)(nranges / 2);
	}
	/* fio stores a center below the middle, negative, in an unsigned
	 * int: x86-64 keeps the low 32 bits of the 64-bit conversion */
	if (center != -1)
		g->rand_off = (unsigned)(int64_t)((double)nranges * (center - 0.5));
}

uint64_t iogap_gauss_next(struct iogap_gauss *g)
{
	uint64_t sum = 0;

	for (int i = 0; i < GAUSS_ITERS; i++)
		sum += iogap_frand_next(&g->r) % (g->nranges + 1);
	sum = (sum + GAUSS_ITERS - 1) / GAUSS_ITERS;
	if (g->stddev) {
		int dev = gauss_dev(g);

		/* fio adds dev as unsigned 64-bit: below 0 wraps above the range.
		 * A sum at the range's end with dev 0 would spin in fio; here
		 * the modulo below folds it. */
		while (dev && sum + (uint64_t)(int64_t)dev >= g->nranges)
			dev /= 2;
		sum += (uint64_t)(int64_t)dev;
	}
	if (!g->disable_hash)
		sum *= GOLDEN_RATIO_64;
	return (sum + g->rand_off) % g->nranges;
}
