/* SPDX-License-Identifier: MIT */
/*
 * Statistics helpers against fio's definitions: histogram index/value
 * formulas, percentile walk, Welford merge, latency and depth buckets,
 * group_reporting merge.  TAP.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tap.h"
#include "stats.h"


/* fio's bucket of a value, derived independently: values below 128 are
 * exact; above, the 6 bits under the MSB pick one of 64 buckets of the
 * MSB's group, group g (msb = g + 5) starting at index 64 * (g + 1)... */
static unsigned ref_idx(uint64_t v)
{
	unsigned msb = 0, idx;

	if (v < 128)
		return (unsigned)v;
	while ((v >> msb) > 1)
		msb++;
	idx = (msb - 5) * 64 + (unsigned)((v >> (msb - 6)) & 63);
	return idx > IOGAP_PLAT_NR - 1 ? IOGAP_PLAT_NR - 1 : idx;
}

static void test_plat_idx(void)
{
	static const struct { uint64_t v; unsigned idx; } known[] = {
		{ 0, 0 }, { 1, 1 }, { 63, 63 }, { 64, 64 }, { 127, 127 },
		{ 128, 128 }, { 129, 128 }, { 130, 129 }, { 255, 191 }, { 256, 192 },
		{ 462, 243 }, { 1000, 317 },
	};
	/* bucket values fio 3.33 printed in JSON+ "bins" (keys are
	 * plat_idx_to_val of the bucket) */
	static const uint64_t fio_bins[] = {
		28800, 31616, 33024, 37120, 37632, 38144, 66048, 67072, 962560,
		1144, 1240, 1304, 179200, 1286144, 1581056, 2007040, 78336, 94720,
	};
	unsigned i, bad = 0;
	uint64_t v;

	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (iogap_plat_val_to_idx(known[i].v) != known[i].idx)
			bad++;
	ok(!bad, "plat_val_to_idx of boundary values matches hand-computed indexes");

	bad = 0;
	for (i = 0; i < 64; i++) {
		uint64_t p = (uint64_t)1 << i;

		if (iogap_plat_val_to_idx(p) != ref_idx(p) ||
		    iogap_plat_val_to_idx(p - 1) != ref_idx(p - 1) ||
		    iogap_plat_val_to_idx(p + 1) != ref_idx(p + 1))
			bad++;
	}
	for (v = 0; v < 1000000; v += 7)
		if (iogap_plat_val_to_idx(v) != ref_idx(v))
			bad++;
	ok(!bad, "plat_val_to_idx equals the reference formula at powers of two +-1 and a sweep");

	ok(iogap_plat_val_to_idx(UINT64_MAX) == IOGAP_PLAT_NR - 1 &&
	   iogap_plat_val_to_idx((uint64_t)1 << 34) == IOGAP_PLAT_NR - 1 &&
	   iogap_plat_val_to_idx(((uint64_t)1 << 34) - 1) == IOGAP_PLAT_NR - 1,
	   "values beyond the last group land in the last bucket");

	ok(iogap_plat_idx_to_val(0) == 0 && iogap_plat_idx_to_val(127) == 127 &&
	   iogap_plat_idx_to_val(128) == 129 && iogap_plat_idx_to_val(191) == 255 &&
	   iogap_plat_idx_to_val(192) == 258 && iogap_plat_idx_to_val(243) == 462 &&
	   iogap_plat_idx_to_val(IOGAP_PLAT_NR - 1) == 17112760320ULL,
	   "plat_idx_to_val gives the middle of the bucket (fio's formula)");

	bad = 0;
	for (i = 0; i < IOGAP_PLAT_NR; i++)
		if (iogap_plat_val_to_idx(iogap_plat_idx_to_val(i)) != i)
			bad++;
	ok(!bad, "idx -> val -> idx round-trips for all %u buckets", IOGAP_PLAT_NR);

	bad = 0;
	for (i = 0; i < sizeof(fio_bins) / sizeof(fio_bins[0]); i++)
		if (iogap_plat_idx_to_val(iogap_plat_val_to_idx(fio_bins[i])) != fio_bins[i])
			bad++;
	ok(!bad, "bucket values printed by fio 3.33 are bucket values here too");

	bad = 0;
	for (v = 128; v < 100000000; v = v * 3 / 2 + 1) {
		uint64_t m = iogap_plat_idx_to_val(iogap_plat_val_to_idx(v));

		if ((m > v ? m - v : v - m) > v / 64)
			bad++;
	}
	ok(!bad, "bucket value is within 1/64 of the sample");
}

static void test_percentiles(void)
{
	static uint64_t plat[IOGAP_PLAT_NR];
	const double pl[] = { 1, 50, 99, 99.99, 100 };
	uint64_t vals[5], n;
	unsigned i;

	memset(plat, 0, sizeof(plat));
	for (i = 1; i <= 100; i++)
		plat[iogap_plat_val_to_idx(i)]++;
	n = iogap_plat_percentiles(plat, pl, 5, vals);
	ok(n == 100 && vals[0] == 1 && vals[1] == 50 && vals[2] == 99 && vals[3] == 100 &&
	   vals[4] == 100, "uniform 1..100: p1=1 p50=50 p99=99 p99.99=100 p100=100 "
	   "(got %llu %llu %llu %llu %llu)", (unsigned long long)vals[0],
	   (unsigned long long)vals[1], (unsigned long long)vals[2],
	   (unsigned long long)vals[3], (unsigned long long)vals[4]);

	/* 99% fast (1000 ns), 1% slow (1 ms): the tail shows from p99.5 on;
	 * p99 is exactly at the edge (sum >= 99% of N is reached at 1000). */
	memset(plat, 0, sizeof(plat));
	plat[iogap_plat_val_to_idx(1000)] = 9900;
	plat[iogap_plat_val_to_idx(1000000)] = 100;
	{
		const double pl2[] = { 50, 99, 99.5 };
		uint64_t v2[3];

		iogap_plat_percentiles(plat, pl2, 3, v2);
		ok(v2[0] == iogap_plat_idx_to_val(iogap_plat_val_to_idx(1000)) &&
		   v2[1] == v2[0] &&
		   v2[2] == iogap_plat_idx_to_val(iogap_plat_val_to_idx(1000000)),
		   "bimodal: p50=p99=fast bucket, p99.5=slow bucket");
	}

	memset(plat, 0, sizeof(plat));
	n = iogap_plat_percentiles(plat, pl, 5, vals);
	ok(n == 0 && vals[0] == 0 && vals[4] == 0, "empty histogram gives zeros");

	/* A single sample: every percentile is that sample's bucket. */
	plat[iogap_plat_val_to_idx(5000)] = 1;
	iogap_plat_percentiles(plat, pl, 5, vals);
	ok(vals[0] == 5024 && vals[4] == 5024, "one sample of 5000 ns reports bucket 5024");
}

static uint64_t lcg(uint64_t *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return *s >> 33;
}

static int close_rel(double a, double b, double tol)
{
	return fabs(a - b) <= tol * fmax(1.0, fmax(fabs(a), fabs(b)));
}

static void test_merge_and_stddev(void)
{
	struct iogap_io_stat a = { 0 }, b = { 0 }, all = { 0 }, m = { 0 }, e = { 0 };
	static const uint64_t wiki[] = { 2, 4, 4, 4, 5, 5, 7, 9 };
	uint64_t s = 42;
	unsigned i;

	for (i = 0; i < 8; i++)
		iogap_io_stat_add(&e, wiki[i]);
	ok(e.samples == 8 && e.mean == 5.0 && close_rel(iogap_io_stat_stddev(&e),
	   sqrt(32.0 / 7.0), 1e-12) && e.min_val == 2 && e.max_val == 9,
	   "2,4,4,4,5,5,7,9: mean 5, sample stddev sqrt(32/7)");

	memset(&e, 0, sizeof(e));
	iogap_io_stat_add(&e, 7);
	ok(iogap_io_stat_stddev(&e) == 0.0 && e.min_val == 7,
	   "one sample: stddev 0, as fio's calc_lat");

	for (i = 0; i < 3000; i++) {
		uint64_t v = 1000 + lcg(&s) % 100000;

		iogap_io_stat_add(i % 3 ? &a : &b, v);
		iogap_io_stat_add(&all, v);
	}
	m = a;
	iogap_io_stat_merge(&m, &b);
	ok(m.samples == all.samples && m.min_val == all.min_val && m.max_val == all.max_val &&
	   close_rel(m.mean, all.mean, 1e-12) && close_rel(m.S, all.S, 1e-9),
	   "merge of two halves equals the stat over the union (mean, S, min, max, N)");

	memset(&m, 0, sizeof(m));
	iogap_io_stat_merge(&m, &a);
	ok(!memcmp(&m, &a, sizeof(a)), "merging into an empty stat copies it");
	memset(&e, 0, sizeof(e));
	m = a;
	iogap_io_stat_merge(&m, &e);
	ok(!memcmp(&m, &a, sizeof(a)), "merging an empty stat changes nothing");
}

static void test_buckets(void)
{
	static struct iogap_job_stat st;
	static const struct { uint64_t ns; int row; unsigned idx; } cases[] = {
		{ 0, 0, 0 }, { 1, 0, 0 }, { 2, 0, 1 }, { 999, 0, 9 }, { 750, 0, 9 },
		{ 749, 0, 8 }, { 1000, 1, 0 }, { 1999, 1, 0 }, { 2000, 1, 1 },
		{ 999999, 1, 9 }, { 1000000, 2, 0 }, { 3999999, 2, 1 }, { 4000000, 2, 2 },
		{ 999999999, 2, 9 }, { 1000000000, 2, 10 }, { 1999999999, 2, 10 },
		{ 2000000000, 2, 11 }, { UINT64_MAX, 2, 11 },
	};
	unsigned i, bad = 0;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t *row;

		memset(&st, 0, sizeof(st));
		iogap_lat_bucket_add(&st, cases[i].ns);
		row = cases[i].row == 0 ? st.io_u_lat_n : cases[i].row == 1 ? st.io_u_lat_u :
		      st.io_u_lat_m;
		if (row[cases[i].idx] != 1) {
			printf("# %llu ns not in row %d idx %u\n",
			       (unsigned long long)cases[i].ns, cases[i].row, cases[i].idx);
			bad++;
		}
	}
	ok(!bad, "latency buckets at every boundary (io_u_mark_latency)");

	ok(iogap_depth_to_map_idx(1) == 0 && iogap_depth_to_map_idx(2) == 1 &&
	   iogap_depth_to_map_idx(3) == 1 && iogap_depth_to_map_idx(4) == 2 &&
	   iogap_depth_to_map_idx(7) == 2 && iogap_depth_to_map_idx(8) == 3 &&
	   iogap_depth_to_map_idx(16) == 4 && iogap_depth_to_map_idx(31) == 4 &&
	   iogap_depth_to_map_idx(32) == 5 && iogap_depth_to_map_idx(63) == 5 &&
	   iogap_depth_to_map_idx(64) == 6 && iogap_depth_to_map_idx(1000) == 6 &&
	   iogap_depth_to_map_idx(0) == 6,
	   "depth map: 1, 2-3, 4-7, 8-15, 16-31, 32-63, >=64 (0 -> >=64 as fio)");

	ok(iogap_batch_to_map_idx(0) == 0 && iogap_batch_to_map_idx(1) == 1 &&
	   iogap_batch_to_map_idx(4) == 1 && iogap_batch_to_map_idx(5) == 2 &&
	   iogap_batch_to_map_idx(8) == 2 && iogap_batch_to_map_idx(9) == 3 &&
	   iogap_batch_to_map_idx(32) == 4 && iogap_batch_to_map_idx(33) == 5 &&
	   iogap_batch_to_map_idx(64) == 5 && iogap_batch_to_map_idx(65) == 6,
	   "submit/complete map: 0, 1-4, 5-8, 9-16, 17-32, 33-64, >64");
}

static void fill_job(struct iogap_job_stat *st, const char *name, uint64_t seed,
		     unsigned n, struct iogap_job_stat *all)
{
	uint64_t rnd = seed;
	unsigned i;

	snprintf(st->name, sizeof(st->name), "%s", name);
	st->members = 1;
	st->pid = (int)seed;
	for (i = 0; i < n; i++) {
		uint64_t v = 500 + lcg(&rnd) % 2000000;
		unsigned d = i % 2;

		iogap_io_stat_add(&st->dir[d].lat[IOGAP_CLAT], v);
		st->dir[d].plat[IOGAP_CLAT][iogap_plat_val_to_idx(v)]++;
		iogap_lat_bucket_add(st, v);
		st->dir[d].total_io_u++;
		st->dir[d].io_bytes += 4096;
		if (all) {
			iogap_io_stat_add(&all->dir[d].lat[IOGAP_CLAT], v);
			all->dir[d].plat[IOGAP_CLAT][iogap_plat_val_to_idx(v)]++;
		}
	}
	st->dir[0].runtime_ms = 1000 + seed % 100;
	st->dir[1].runtime_ms = 1000 + seed % 50;
	iogap_io_stat_add(&st->dir[0].bw, 40000 + seed);
	iogap_io_stat_add(&st->dir[0].bw, 42000 + seed);
	st->total_run_time_ms = 1000;
	st->usr_time_us = 1000 * seed;
	st->io_u_map[0] = n;
}

static void test_job_merge(void)
{
	static struct iogap_job_stat a, b, g, all;
	const double pl[] = { 50, 99 };
	uint64_t v1[2], v2[2];

	fill_job(&a, "first", 11, 1000, &all);
	fill_job(&b, "second", 23, 1500, &all);
	a.error = 0;
	b.error = 5;
	snprintf(b.verror, sizeof(b.verror), "boom");

	iogap_job_stat_merge(&g, &a);
	iogap_job_stat_merge(&g, &b);
	ok(g.members == 2 && !strcmp(g.name, "first") && g.pid == 11,
	   "group entry: two members, named after the first");
	ok(g.dir[0].io_bytes == a.dir[0].io_bytes + b.dir[0].io_bytes &&
	   g.dir[1].total_io_u == a.dir[1].total_io_u + b.dir[1].total_io_u &&
	   g.io_u_map[0] == 2500 && g.total_run_time_ms == 2000 &&
	   g.usr_time_us == 34000,
	   "bytes, ios, depth maps, run time and cpu time add up");
	ok(g.dir[0].runtime_ms == (a.dir[0].runtime_ms > b.dir[0].runtime_ms ?
	   a.dir[0].runtime_ms : b.dir[0].runtime_ms), "direction runtime is the longest member's");
	ok(g.dir[0].lat[IOGAP_CLAT].samples == all.dir[0].lat[IOGAP_CLAT].samples &&
	   close_rel(g.dir[0].lat[IOGAP_CLAT].mean, all.dir[0].lat[IOGAP_CLAT].mean, 1e-12) &&
	   close_rel(g.dir[0].lat[IOGAP_CLAT].S, all.dir[0].lat[IOGAP_CLAT].S, 1e-9) &&
	   g.dir[1].lat[IOGAP_CLAT].min_val == all.dir[1].lat[IOGAP_CLAT].min_val &&
	   g.dir[1].lat[IOGAP_CLAT].max_val == all.dir[1].lat[IOGAP_CLAT].max_val,
	   "clat merges as the distribution of all samples");
	iogap_plat_percentiles(g.dir[0].plat[IOGAP_CLAT], pl, 2, v1);
	iogap_plat_percentiles(all.dir[0].plat[IOGAP_CLAT], pl, 2, v2);
	ok(!memcmp(v1, v2, sizeof(v1)), "merged histogram gives the union's percentiles");
	ok(g.dir[0].bw.samples == 4 && g.dir[0].bw.min_val == 40011 + 40023 &&
	   g.dir[0].bw.max_val == 42011 + 42023 &&
	   close_rel(g.dir[0].bw.mean, a.dir[0].bw.mean + b.dir[0].bw.mean, 1e-12),
	   "bandwidth samples add up (fio's pure sum), not averaged");
	ok(g.error == 5 && !strcmp(g.verror, "boom"), "first member error is kept");
	ok(g.io_u_lat_u[0] + g.io_u_lat_u[1] + g.io_u_lat_u[2] + g.io_u_lat_u[3] +
	   g.io_u_lat_u[4] + g.io_u_lat_u[5] + g.io_u_lat_u[6] + g.io_u_lat_u[7] +
	   g.io_u_lat_u[8] + g.io_u_lat_u[9] + g.io_u_lat_m[0] + g.io_u_lat_m[1] +
	   g.io_u_lat_m[2] + g.io_u_lat_n[9] + g.io_u_lat_n[8] == 2500,
	   "latency buckets add up");

	/* dst as a copy of the first member, then the rest merged in */
	memset(&g, 0, sizeof(g));
	g = a;
	iogap_job_stat_merge(&g, &b);
	ok(g.members == 2 && g.dir[0].io_bytes == a.dir[0].io_bytes + b.dir[0].io_bytes,
	   "merge into a copy of the first member counts two members too");
}

int main(void)
{
	test_plat_idx();
	test_percentiles();
	test_merge_and_stddev();
	test_buckets();
	test_job_merge();
	tap_plan(tap_n);
	return tap_done();
}
