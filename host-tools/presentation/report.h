/* SPDX-License-Identifier: MIT */
/*
 * iogap report: the per-layer VM-vs-bare-metal breakdown of a run directory
 * (docs/reports.md).  Terminal tables, --json, --html.
 *
 * The statistics stream over the records into fixed-size histograms (fio's
 * log-linear histogram, engines/stats.h) and per-second aggregates: memory
 * is bounded by the number of jobs and the run's duration, never by the
 * number of requests.  Only the pairing (rundir.h) holds per-request arrays.
 */
#ifndef IOGAP_REPORT_H
#define IOGAP_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stats.h"

/* One quantity (a stage's duration, a latency): exact min/max/mean, fio's
 * histogram for the percentiles.  Values may be negative (a stage that
 * crosses the guest/host boundary, within the clock error): they count
 * exactly in min/max/mean and as 0 in the histogram (neg counts them). */
struct iogap_rstat {
	uint64_t n, neg;
	int64_t min, max;
	double sum, sumsq;        /* of (v - shift): mean and stddev */
	int64_t shift;            /* the first value */
	uint64_t hist[IOGAP_PLAT_NR];
};

static inline void iogap_rstat_add(struct iogap_rstat *s, int64_t v)
{
	double d;

	if (__builtin_expect(s->n == 0, 0)) {
		s->min = s->max = v;
		s->shift = v;
	}
	if (v < s->min)
		s->min = v;
	if (v > s->max)
		s->max = v;
	s->n++;
	d = (double)(v - s->shift);
	s->sum += d;
	s->sumsq += d * d;
	if (__builtin_expect(v < 0, 0)) {
		s->neg++;
		s->hist[0]++;
	} else {
		s->hist[iogap_plat_val_to_idx((uint64_t)v)]++;
	}
}

void iogap_rstat_merge(struct iogap_rstat *dst, const struct iogap_rstat *src);
double iogap_rstat_mean(const struct iogap_rstat *s);
double iogap_rstat_stddev(const struct iogap_rstat *s);
/* Percentiles (plist ascending, in %) as fio computes them from its
 * histogram: the middle of the bucket holding the rank (vals: ns). */
void iogap_rstat_pcts(const struct iogap_rstat *s, const double *plist, unsigned nr,
		      uint64_t *vals);

/* A coarse latency histogram for per-second aggregates: fio's bucket
 * index / 8 (8 sub-buckets per power of two, <= 12.5% wide). */
#define IOGAP_CHIST_SHIFT 3
#define IOGAP_CHIST_NR ((IOGAP_PLAT_NR >> IOGAP_CHIST_SHIFT) + 1)

static inline unsigned iogap_chist_idx(uint64_t v)
{
	return iogap_plat_val_to_idx(v) >> IOGAP_CHIST_SHIFT;
}
uint64_t iogap_chist_val(unsigned cidx);
/* Percentile p (in %) of a coarse histogram with total n; 0 if empty. */
uint64_t iogap_chist_pct(const uint32_t *h, uint64_t n, double p);

/* One second of one job/direction/side: completions in that second. */
struct iogap_sec {
	uint64_t n, bytes;
	double lat_sum;           /* ns */
	uint32_t h[IOGAP_CHIST_NR];
};

/* Per-second series, second k covers [t0 + k s, t0 + (k + 1) s). */
struct iogap_series {
	uint64_t t0;
	size_t nsec, cap;
	struct iogap_sec *s;
};

/* Add a completion at time t (>= t0; later seconds grow the series, up
 * to 10 days).  0, or -1 on allocation failure. */
int iogap_series_add(struct iogap_series *ser, uint64_t t, uint64_t bytes, uint64_t lat);
void iogap_series_free(struct iogap_series *ser);


#endif
