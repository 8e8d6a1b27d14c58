/* SPDX-License-Identifier: MIT */
/*
 * iogap compare A B [C...]: runs (ours or imported fio results) side by side
 * per job, direction and metric, with the difference, a 95% bootstrap
 * confidence interval and a verdict (docs/reports.md, "iogap compare").
 */
#ifndef IOGAP_COMPARE_H
#define IOGAP_COMPARE_H

#include <stddef.h>
#include <stdint.h>

#include "stats.h"

/* Deterministic generator for the bootstrap (splitmix64). */
static inline uint64_t iogap_cmp_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* A Poisson(mean) draw (Knuth below 30, rounded normal above). */
uint64_t iogap_cmp_poisson(uint64_t *rng, double mean);

/* The q-quantile (0..1) of v[0..n) (sorts v), linear interpolation. */
double iogap_cmp_quantile(double *v, size_t n, double q);

/*
 * Percentile bootstrap of the difference of two means: resample a and b
 * (independently, with replacement, nboot times) and return the 2.5% and
 * 97.5% quantiles of mean(b*) - mean(a*).  Deterministic for a seed.
 */
void iogap_cmp_boot_mean_diff(const double *a, size_t na, const double *b, size_t nb,
			      unsigned nboot, uint64_t seed, double *lo, double *hi);

/*
 * Poisson bootstrap over a fio histogram (per-request data reconstructed
 * from its buckets): the 95% interval of percentile p (in %; p < 0: the
 * mean) of histogram b minus that of a.
 */
void iogap_cmp_boot_hist_diff(const uint64_t *a, const uint64_t *b, double p, unsigned nboot,
			      uint64_t seed, double *lo, double *hi);

int iogap_cmd_compare(int argc, char **argv);

#endif
