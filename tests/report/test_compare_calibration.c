/* SPDX-License-Identifier: MIT */
/*
 * Are iogap compare's 95% intervals 95% intervals?  Many seeded synthetic
 * pairs of runs from known latency distributions (one lognormal, one with a
 * bimodal tail like a real disk's) go through iogap_cmp_metric, the
 * function behind every row `iogap compare` prints.  Per method: the share
 * of intervals holding the true difference must be 93-97%, and on equal
 * distributions "differs"/"significant" must come out <= 7% of the time.
 * The same tally with every interval 3x wider or narrower must fail the
 * coverage check, so the check can tell.  TAP.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "tap.h"

#define SECS 40                 /* seconds per synthetic run */
#define BOOT 1000               /* bootstrap resamples (iogap compare: 2000) */

__attribute__((format(printf, 1, 2)))
static void diag(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static double u01(uint64_t *s)
{
	return ((double)(iogap_cmp_rand(s) >> 11) + 0.5) / 9007199254740992.0;
}

static double normal(uint64_t *s)
{
	return sqrt(-2 * log(u01(s))) * cos(2 * M_PI * u01(s));
}

/* A latency distribution: lognormal, with weight w_tail of a second,
 * slower lognormal mode (the bimodal tail). */
struct dist {
	const char *name;
	double med, sig, w_tail, med_tail, sig_tail;   /* ns */
};

static double draw(const struct dist *d, uint64_t *s)
{
	bool tail = d->w_tail > 0 && u01(s) < d->w_tail;

	return tail ? d->med_tail * exp(d->sig_tail * normal(s)) : d->med * exp(d->sig * normal(s));
}

static double true_mean(const struct dist *d)
{
	return (1 - d->w_tail) * d->med * exp(d->sig * d->sig / 2) +
	       d->w_tail * d->med_tail * exp(d->sig_tail * d->sig_tail / 2);
}

static double cdf(const struct dist *d, double x)
{
	double a = 0.5 * erfc(-log(x / d->med) / d->sig / M_SQRT2);
	double b = d->w_tail > 0 ? 0.5 * erfc(-log(x / d->med_tail) / d->sig_tail / M_SQRT2) : 0;

	return (1 - d->w_tail) * a + d->w_tail * b;
}

static double true_quantile(const struct dist *d, double p)
{
	double lo = 1, hi = 1e12;

	for (int i = 0; i < 200; i++) {
		double mid = sqrt(lo * hi);

		if (cdf(d, mid) < p)
			lo = mid;
		else
			hi = mid;
	}
	return sqrt(lo * hi);
}

/* One closed-loop QD1 run of SECS seconds, latencies scaled by scale:
 * per-second blocks, histogram, fio's values and per-window samples. */
static void synth_run(struct iogap_cmp_dir *r, const struct dist *d, double scale, uint64_t *s)
{
	double t = 0, sum = 0, ss = 0, p[2] = { 50.0, 99.0 };
	uint64_t n = 0, v[2];

	memset(r->sec, 0, SECS * sizeof(*r->sec));
	memset(r->hist, 0, IOGAP_PLAT_NR * sizeof(*r->hist));
	for (;;) {
		double lat = draw(d, s) * scale;
		struct iogap_cmp_sec *b;

		t += lat;
		if (t >= SECS * 1e9)
			break;
		b = &r->sec[(size_t)(t / 1e9)];
		b->n++;
		b->bytes += 4096;
		b->clat_sum += lat;
		b->lat_sum += lat;
		r->hist[iogap_plat_val_to_idx((uint64_t)lat)]++;
		sum += lat;
		n++;
	}
	for (size_t i = 0; i < SECS; i++) {
		double dv = (double)r->sec[i].n - (double)n / SECS;

		r->sec[i].secs = 1;
		ss += dv * dv;
	}
	r->nsec = SECS;
	r->have = true;
	r->v[IOGAP_CMP_IOPS] = (double)n / SECS;
	r->v[IOGAP_CMP_BW] = 4096.0 * (double)n / SECS;
	r->v[IOGAP_CMP_CLAT_MEAN] = r->v[IOGAP_CMP_LAT_MEAN] = sum / (double)n;
	iogap_plat_percentiles(r->hist, p, 2, v);
	r->v[IOGAP_CMP_CLAT_P50] = (double)v[0];
	r->v[IOGAP_CMP_CLAT_P99] = (double)v[1];
	r->clat_n = r->lat_n = n;
	/* fio's per-window IOPS samples: here one per second */
	r->iops_samples = r->bw_samples = SECS;
	r->iops_sd = sqrt(ss / (SECS - 1));
	r->bw_sd = 4096.0 * r->iops_sd;
}

/* the true B - A of metric m when B's latencies are A's times scale */
static double truth(const struct dist *d, double scale, int m)
{
	switch (m) {
	case IOGAP_CMP_IOPS: return 1e9 / (scale * true_mean(d)) - 1e9 / true_mean(d);
	case IOGAP_CMP_BW: return 4096 * (1e9 / (scale * true_mean(d)) - 1e9 / true_mean(d));
	case IOGAP_CMP_CLAT_MEAN:
	case IOGAP_CMP_LAT_MEAN: return (scale - 1) * true_mean(d);
	default: return (scale - 1) * true_quantile(d, m == IOGAP_CMP_CLAT_P50 ? 0.5 : 0.99);
	}
}

/* a method's tally; the coverage also with intervals 3x wider / narrower */
struct tally {
	const char *method;
	unsigned n, covered, wide_cov, narrow_cov, eq_n, eq_differs;
};

static void count(struct tally *t, const struct iogap_cmp_result *r, double truth_v, bool equal)
{
	double c = (r->lo + r->hi) / 2, h = (r->hi - r->lo) / 2;

	if (isnan(r->lo))
		return;
	t->n++;
	t->covered += r->lo <= truth_v && truth_v <= r->hi;
	t->wide_cov += fabs(truth_v - c) <= 3 * h;
	t->narrow_cov += fabs(truth_v - c) <= h / 3;
	if (equal) {
		t->eq_n++;
		t->eq_differs += strcmp(iogap_cmp_verdict(r), "within noise") != 0;
	}
}

static bool in_band(unsigned k, unsigned n)
{
	return n && 100.0 * k / n >= 93.0 && 100.0 * k / n <= 97.0;
}

static void report(const struct tally *t)
{
	ok(t->n >= 800 && in_band(t->covered, t->n),
	   "%s: %u of %u intervals hold the true difference (%.1f%%, want 93-97%%)", t->method,
	   t->covered, t->n, 100.0 * t->covered / (t->n ? t->n : 1));
	ok(t->eq_n >= 200 && 100.0 * t->eq_differs / t->eq_n <= 7.0,
	   "%s: equal distributions judged different in %u of %u (%.1f%%, want <= 7%%)",
	   t->method, t->eq_differs, t->eq_n, 100.0 * t->eq_differs / (t->eq_n ? t->eq_n : 1));
	ok(!in_band(t->wide_cov, t->n) && !in_band(t->narrow_cov, t->n),
	   "%s: the check would catch 3x too wide (%.1f%%) or 3x too narrow (%.1f%%) intervals",
	   t->method, 100.0 * t->wide_cov / (t->n ? t->n : 1),
	   100.0 * t->narrow_cov / (t->n ? t->n : 1));
}

static const struct dist dists[] = {
	{ "lognormal", 5e6, 0.6, 0, 0, 0 },
	{ "bimodal tail", 4e6, 0.3, 0.04, 40e6, 0.4 },
};
static const double scales[] = { 1.0, 1.05 };

static struct iogap_cmp_dir *new_dir(void)
{
	struct iogap_cmp_dir *r = calloc(1, sizeof(*r));

	r->sec = calloc(SECS, sizeof(*r->sec));
	r->hist = calloc(IOGAP_PLAT_NR, sizeof(*r->hist));
	return r;
}

static void free_dir(struct iogap_cmp_dir *r)
{
	free(r->sec);
	free(r->hist);
	free(r);
}

/* One run a side: per-second batch means (IOPS, BW, means), per-request
 * histogram (percentiles), and fio's per-window samples (IOPS, BW alone). */
static void within_run(struct tally *sec, struct tally *req, struct tally *win, unsigned trials,
		       unsigned req_trials)
{
	struct iogap_cmp_dir *a = new_dir(), *b = new_dir();
	const struct iogap_cmp_dir *pa[1] = { a }, *pb[1] = { b };
	uint64_t rng = 1;

	for (size_t di = 0; di < 2; di++)
		for (size_t si = 0; si < 2; si++) {
			const struct dist *d = &dists[di];
			unsigned c0 = sec->covered, n0 = sec->n, c1 = req->covered, n1 = req->n;

			for (unsigned t = 0; t < trials; t++) {
				synth_run(a, d, 1.0, &rng);
				synth_run(b, d, scales[si], &rng);
				for (int m = 0; m < IOGAP_CMP_NR; m++) {
					struct iogap_cmp_result r;

					/* (the histogram bootstrap is the slow one) */
					if (m > IOGAP_CMP_LAT_MEAN && t >= req_trials)
						break;
					iogap_cmp_metric(pa, 1, pb, 1, m, BOOT, rng + (uint64_t)m, &r);
					count(m <= IOGAP_CMP_LAT_MEAN ? sec : req, &r,
					      truth(d, scales[si], m), si == 0);
				}
				/* without per-second data: fio's windows for IOPS/BW */
				a->nsec = b->nsec = 0;
				for (int m = IOGAP_CMP_IOPS; m <= IOGAP_CMP_BW; m++) {
					struct iogap_cmp_result r;

					iogap_cmp_metric(pa, 1, pb, 1, m, BOOT, rng, &r);
					count(win, &r, truth(d, scales[si], m), si == 0);
				}
			}
			diag("%s, B = %.2f x A: per-second %.1f%% covered, per-request %.1f%%",
			     d->name, scales[si], 100.0 * (sec->covered - c0) / (sec->n - n0),
			     100.0 * (req->covered - c1) / (req->n - n1));
		}
	free_dir(a);
	free_dir(b);
}

/* Several runs a side whose means vary from run to run (the machine's
 * noise: normal, or now and then a slow run): runs are the unit. */
static void between_runs(struct tally *t, unsigned trials)
{
	enum { RUNS = 3 };
	struct iogap_cmp_dir a[RUNS], b[RUNS];
	const struct iogap_cmp_dir *pa[RUNS], *pb[RUNS];
	uint64_t rng = 2;

	memset(a, 0, sizeof(a));
	memset(b, 0, sizeof(b));
	for (int k = 0; k < RUNS; k++) {
		pa[k] = &a[k];
		pb[k] = &b[k];
	}
	for (int noise = 0; noise < 2; noise++)
		for (size_t si = 0; si < 2; si++) {
			unsigned c0 = t->covered, n0 = t->n;

			for (unsigned tr = 0; tr < trials; tr++) {
				for (int k = 0; k < 2 * RUNS; k++) {
					struct iogap_cmp_dir *r = k < RUNS ? &a[k] : &b[k - RUNS];
					/* a run's speed: 3% sd, or 2% sd plus one run in
					 * ten 15% slower (normal vs heavy-tailed) */
					double f = noise ? exp(0.02 * normal(&rng)) *
							   (u01(&rng) < 0.1 ? 1.15 : 1.0) :
							   exp(0.03 * normal(&rng));
					double lat = 1e6 * f * (k < RUNS ? 1.0 : scales[si]);

					r->have = true;
					r->v[IOGAP_CMP_IOPS] = 1e9 / lat;
					r->v[IOGAP_CMP_BW] = 4096e9 / lat;
					r->v[IOGAP_CMP_CLAT_MEAN] = r->v[IOGAP_CMP_LAT_MEAN] = lat;
					r->v[IOGAP_CMP_CLAT_P50] = 0.9 * lat;
					r->v[IOGAP_CMP_CLAT_P99] = 3 * lat;
				}
				for (int m = 0; m < IOGAP_CMP_NR; m++) {
					struct iogap_cmp_result r;
					/* E[f] of the run factor, for the true means */
					double ef = noise ? exp(0.0002) * 1.015 : exp(0.00045);
					double eif = noise ? exp(0.0002) * (0.9 + 0.1 / 1.15) : exp(0.00045);
					double tv = m <= IOGAP_CMP_BW ?
						    (m == IOGAP_CMP_BW ? 4096.0 : 1.0) * 1e3 * eif *
						    (1 / scales[si] - 1) :
						    (m == IOGAP_CMP_CLAT_P50 ? 0.9 : m == IOGAP_CMP_CLAT_P99 ?
						     3.0 : 1.0) * 1e6 * ef * (scales[si] - 1);

					iogap_cmp_metric(pa, RUNS, pb, RUNS, m, BOOT, rng, &r);
					count(t, &r, tv, si == 0);
				}
			}
			diag("runs %s, B = %.2f x A: %.1f%% covered", noise ? "with slow outliers" :
			     "normal", scales[si], 100.0 * (t->covered - c0) / (t->n - n0));
		}
}

int main(void)
{
	struct tally sec = { .method = "per-second batch means" },
		     req = { .method = "per-request histogram" },
		     win = { .method = "fio per-window samples" },
		     runs = { .method = "between runs (3 + 3)" };
	struct iogap_cmp_result r;

	{
		double t2 = iogap_cmp_t_quantile(0.975, 2), t30 = iogap_cmp_t_quantile(0.975, 30),
		       tinf = iogap_cmp_t_quantile(0.975, 1e6), t05 = iogap_cmp_t_quantile(0.5, 7);

		ok(fabs(t2 - 4.3027) < 1e-3 && fabs(t30 - 2.0423) < 1e-3 &&
		   fabs(tinf - 1.9600) < 1e-3 && fabs(t05) < 1e-6,
		   "Student t quantiles: df 2 %.4f, df 30 %.4f, df 1e6 %.4f, median %.2g", t2, t30,
		   tinf, t05);
	}

	within_run(&sec, &req, &win, 300, 100);
	between_runs(&runs, 400);
	report(&sec);
	report(&req);
	report(&win);
	report(&runs);
	/* a one-run-a-side interval never reads as a firm "significant" */
	r = (struct iogap_cmp_result){ .lo = 1, .hi = 2, .scope = IOGAP_CMP_WITHIN_RUN };
	ok(!strcmp(iogap_cmp_verdict(&r), "differs within runs"),
	   "an interval excluding 0 within one run a side: \"differs within runs\"");
	r.scope = IOGAP_CMP_BETWEEN_RUNS;
	ok(!strcmp(iogap_cmp_verdict(&r), "significant"), "between runs: \"significant\"");
	tap_plan(tap_n);
	return tap_done();
}
