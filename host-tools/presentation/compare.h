/* SPDX-License-Identifier: MIT */
/*
 * iogap compare A B [C...]: runs (ours or imported fio results) side by side
 * per job, direction and metric, with the difference, a 95% bootstrap
 * confidence interval and a verdict (docs/reports.md, "iogap compare").
 */
#ifndef IOGAP_COMPARE_H
#define IOGAP_COMPARE_H

#include <stdbool.h>
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
 * Poisson bootstrap over a fio histogram (per-request data reconstructed
 * from its buckets): the 95% interval of percentile p (in %; p < 0: the
 * mean) of histogram b minus that of a.
 */
void iogap_cmp_boot_hist_diff(const uint64_t *a, const uint64_t *b, double p, unsigned nboot,
			      uint64_t seed, double *lo, double *hi);

/* ---- the comparison of one metric (what `iogap compare` prints per row) */

/* A block of consecutive seconds of one run (one second unless the run is
 * long): completions, bytes and latency sums. */
struct iogap_cmp_sec {
	uint64_t n, bytes;
	double clat_sum, lat_sum;
	uint32_t secs;
};

enum { IOGAP_CMP_IOPS, IOGAP_CMP_BW, IOGAP_CMP_CLAT_MEAN, IOGAP_CMP_LAT_MEAN,
       IOGAP_CMP_CLAT_P50, IOGAP_CMP_CLAT_P99, IOGAP_CMP_NR };

/* One run's data for one job and direction. */
struct iogap_cmp_dir {
	bool have;
	double v[IOGAP_CMP_NR];         /* fio's values (NAN when absent) */
	uint64_t clat_n, lat_n;         /* requests behind the means */
	double iops_sd, bw_sd;          /* fio's per-window samples */
	uint64_t iops_samples, bw_samples;
	uint64_t *hist;                 /* clat, fio buckets: trace or json+ bins */
	struct iogap_cmp_sec *sec;      /* per second, from the trace */
	size_t nsec;
};

/* What an interval covers: variation within the runs compared (one run a
 * side: seconds or requests are the unit), or between runs (several runs a
 * side: runs are the unit). */
enum iogap_cmp_scope { IOGAP_CMP_NONE, IOGAP_CMP_WITHIN_RUN, IOGAP_CMP_BETWEEN_RUNS };

struct iogap_cmp_result {
	double a, b, diff, lo, hi;      /* lo/hi: 95% interval of diff (NAN: none) */
	enum iogap_cmp_scope scope;
	const char *method;
	char detail[64];                /* sample counts */
};

/*
 * B - A for metric m over the runs of configuration A (a[0..na)) and B,
 * with its 95% interval, by the first method the data allow
 * (docs/reports.md, "The 95% confidence interval").  Deterministic for a
 * seed (nboot: bootstrap resamples, where a bootstrap is used).
 */
void iogap_cmp_metric(const struct iogap_cmp_dir *const *a, size_t na,
		      const struct iogap_cmp_dir *const *b, size_t nb, int m, unsigned nboot,
		      uint64_t seed, struct iogap_cmp_result *r);

/* The verdict words for a result: "significant", "differs within runs",
 * "within noise" or "no interval". */
const char *iogap_cmp_verdict(const struct iogap_cmp_result *r);

/* Student's t quantile (0 < p < 1) for df > 0 degrees of freedom. */
double iogap_cmp_t_quantile(double p, double df);


#endif
