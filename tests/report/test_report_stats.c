/* SPDX-License-Identifier: MIT */
/* The statistics behind iogap report and compare: stage accumulators,
 * percentiles, per-second series, bootstrap intervals (TAP). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "report.h"
#include "tap.h"

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

static double u01(uint64_t *s)
{
	return ((double)(iogap_cmp_rand(s) >> 11) + 0.5) / 9007199254740992.0;
}

static double normal(uint64_t *s)
{
	return sqrt(-2 * log(u01(s))) * cos(2 * M_PI * u01(s));
}

int main(void)
{
	static struct iogap_rstat a, b, ab, all;
	static int64_t v[20000];
	uint64_t rng = 42;
	size_t n = sizeof(v) / sizeof(v[0]);
	double sum = 0, sq = 0, mean, sd;

	/* 1-5: exact min/max/mean/stddev, negatives included */
	for (size_t i = 0; i < n; i++) {
		v[i] = (int64_t)(100000 + 30000 * normal(&rng)) - (i % 97 == 0 ? 200000 : 0);
		iogap_rstat_add(&all, v[i]);
		iogap_rstat_add(i < n / 3 ? &a : &b, v[i]);
		sum += (double)v[i];
	}
	mean = sum / (double)n;
	for (size_t i = 0; i < n; i++)
		sq += ((double)v[i] - mean) * ((double)v[i] - mean);
	sd = sqrt(sq / (double)(n - 1));
	qsort(v, n, sizeof(v[0]), cmp_i64);
	ok(all.n == n && all.min == v[0] && all.max == v[n - 1], "rstat: n, min, max exact");
	ok(fabs(iogap_rstat_mean(&all) - mean) < 1e-6 * fabs(mean), "rstat: mean %.3f == %.3f",
	   iogap_rstat_mean(&all), mean);
	ok(fabs(iogap_rstat_stddev(&all) - sd) < 1e-6 * sd, "rstat: stddev %.3f == %.3f",
	   iogap_rstat_stddev(&all), sd);
	{
		uint64_t negs = 0;

		for (size_t i = 0; i < n; i++)
			negs += v[i] < 0;
		ok(all.neg == negs && negs > 0, "rstat: %llu negative values counted",
		   (unsigned long long)negs);
	}
	ab = a;
	iogap_rstat_merge(&ab, &b);
	ok(ab.n == all.n && ab.min == all.min && ab.max == all.max &&
	   fabs(iogap_rstat_mean(&ab) - mean) < 1e-6 * fabs(mean) &&
	   fabs(iogap_rstat_stddev(&ab) - sd) < 1e-6 * sd &&
	   !memcmp(ab.hist, all.hist, sizeof(ab.hist)), "rstat: merge of two halves == the whole");

	/* 6-7: percentiles as fio's, within its bucket width of the exact ones */
	{
		static const double pl[] = { 50, 90, 99, 99.9 };
		uint64_t pv[4], fio[4];
		int good = 1;

		iogap_rstat_pcts(&all, pl, 4, pv);
		iogap_plat_percentiles(all.hist, pl, 4, fio);
		ok(!memcmp(pv, fio, sizeof(pv)), "rstat: percentiles are fio's histogram percentiles");
		for (int i = 0; i < 4; i++) {
			int64_t exact = v[(size_t)ceil(pl[i] / 100.0 * (double)n) - 1];

			if (fabs((double)pv[i] - (double)exact) > 0.02 * (double)exact + 64)
				good = 0;
		}
		ok(good, "rstat: p50..p99.9 within 2%% of the exact order statistics");
	}

	/* 8: coarse histogram percentile within 12.5% */
	{
		uint32_t h[IOGAP_CHIST_NR] = { 0 };
		uint64_t cnt = 0;
		double p99;

		for (size_t i = 0; i < n; i++)
			if (v[i] > 0) {
				h[iogap_chist_idx((uint64_t)v[i])]++;
				cnt++;
			}
		p99 = (double)iogap_chist_pct(h, cnt, 99.0);
		ok(fabs(p99 - (double)v[(size_t)(0.99 * (double)n)]) < 0.125 * p99,
		   "chist: p99 %.0f near the exact %lld", p99, (long long)v[(size_t)(0.99 * (double)n)]);
	}

	/* 9: per-second series */
	{
		struct iogap_series s = { .t0 = 5000000000ull };
		int good = 1;

		for (int i = 0; i < 3000; i++)
			good &= !iogap_series_add(&s, s.t0 + (uint64_t)i * 1000000ull, 4096, 100000);
		good &= s.nsec == 3 && s.s[0].n == 1000 && s.s[2].n == 1000 &&
			s.s[1].bytes == 4096000 && fabs(s.s[1].lat_sum - 1e8) < 1;
		ok(good, "series: 3000 completions 1 ms apart land in 3 seconds of 1000");
		iogap_series_free(&s);
	}

	/* 10-11: Poisson draws have the right mean and variance */
	{
		for (int k = 0; k < 2; k++) {
			double m = k ? 500 : 4, s1 = 0, s2 = 0;
			int N = 20000;

			for (int i = 0; i < N; i++) {
				double x = (double)iogap_cmp_poisson(&rng, m);

				s1 += x;
				s2 += x * x;
			}
			s1 /= N;
			s2 = s2 / N - s1 * s1;
			ok(fabs(s1 - m) < 0.05 * m && fabs(s2 - m) < 0.1 * m,
			   "poisson(%g): mean %.2f variance %.2f", m, s1, s2);
		}
	}

	/* 12: quantile */
	{
		double q[5] = { 5, 1, 4, 2, 3 };

		ok(iogap_cmp_quantile(q, 5, 0.5) == 3 && iogap_cmp_quantile(q, 5, 0.25) == 2 &&
		   iogap_cmp_quantile(q, 5, 0.125) == 1.5, "quantile: linear interpolation");
	}

	/* 13-14: histogram (Poisson) bootstrap of p99 and of the mean */
	{
		static uint64_t ha[IOGAP_PLAT_NR], hb[IOGAP_PLAT_NR], hc[IOGAP_PLAT_NR];
		double lo, hi, lo2, hi2;

		for (int i = 0; i < 100000; i++) {
			double l = 50000 - log(u01(&rng)) * 50000;

			ha[iogap_plat_val_to_idx((uint64_t)l)]++;
			hb[iogap_plat_val_to_idx((uint64_t)(l * 1.05))]++;
			hc[iogap_plat_val_to_idx((uint64_t)(50000 - log(u01(&rng)) * 50000))]++;
		}
		iogap_cmp_boot_hist_diff(ha, hb, 99.0, 500, 3, &lo, &hi);
		iogap_cmp_boot_hist_diff(ha, hc, 99.0, 500, 3, &lo2, &hi2);
		ok(lo > 0 && !(lo2 > 0 || hi2 < 0), "hist bootstrap p99: 5%% slower [%.0f, %.0f] "
		   "significant; same distribution [%.0f, %.0f] holds 0", lo, hi, lo2, hi2);
		iogap_cmp_boot_hist_diff(ha, hb, -1, 500, 3, &lo, &hi);
		iogap_cmp_boot_hist_diff(ha, hc, -1, 500, 3, &lo2, &hi2);
		ok(lo > 0 && lo2 < 0 && hi2 > 0, "hist bootstrap mean: 5%% slower [%.0f, %.0f]; same "
		   "distribution [%.0f, %.0f]", lo, hi, lo2, hi2);
	}
	tap_plan(tap_n);
	return tap_done();
}
