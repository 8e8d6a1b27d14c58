/* SPDX-License-Identifier: MIT */
/*
 * fio-compatible output from synthetic statistics: num2str, unit switching,
 * percentile layout, group and disk lines, the job line, and a
 * reproduction of the fio output in ../shared/fixtures/fio-output (copied into tests/import/data)
 * (nvme-passthrough-baremetal.txt, as fio 3.33 lays it out) from the
 * numbers it shows.  JSON is checked with python3's parser (the one meson
 * found: IOGAP_PYTHON3).
 * TAP.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../tap.h"
#include "output.h"


/* Whole line present in text? Prints the neighbourhood when not. */
static int has_line(const char *text, const char *line)
{
	size_t n = strlen(line);
	const char *p = text;

	while ((p = strstr(p, line))) {
		if ((p == text || p[-1] == '\n') && (p[n] == '\n' || p[n] == '\0'))
			return 1;
		p++;
	}
	printf("# missing line: '%s'\n", line);
	return 0;
}

static void set_stat(struct iogap_io_stat *s, uint64_t min, uint64_t max, double mean,
		     double dev, uint64_t n)
{
	s->min_val = min;
	s->max_val = max;
	s->mean = mean;
	s->samples = n;
	s->S = dev * dev * (double)(n - 1);
}

/* A histogram of n samples whose percentiles are exactly vals: put just
 * enough samples at each value's bucket for fio's walk to stop there. */
static void make_hist(uint64_t *plat, const double *pl, const uint64_t *vals, unsigned nr,
		      uint64_t n)
{
	uint64_t cum = 0;
	unsigned j;

	for (j = 0; j < nr; j++) {
		uint64_t need = (uint64_t)ceill((long double)pl[j] / 100.0 * n);

		if (need > cum) {
			plat[iogap_plat_val_to_idx(vals[j])] += need - cum;
			cum = need;
		}
	}
	plat[iogap_plat_val_to_idx(vals[nr - 1])] += n - cum;
}

static char *render(void (*fn)(FILE *, const struct iogap_run_report *),
		    const struct iogap_run_report *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	fn(f, r);
	fclose(f);
	return buf;
}

static void test_num2str(void)
{
	static const struct {
		uint64_t num;
		int maxlen;
		bool pow2;
		int units;
		const char *want;
	} c[] = {
		{ 41000000, 4, true, IOGAP_N2S_BYTEPERSEC, "39.1MiB/s" },
		{ 41000000, 4, false, IOGAP_N2S_BYTEPERSEC, "41.0MB/s" },
		{ 4096, 4, true, IOGAP_N2S_BYTE, "4096B" },
		{ 65536, 4, true, IOGAP_N2S_BYTE, "64.0KiB" },
		{ 1048576, 4, true, IOGAP_N2S_BYTE, "1024KiB" },
		{ 13253, 4, false, IOGAP_N2S_NONE, "13.3k" },
		{ 9805, 4, false, IOGAP_N2S_NONE, "9805" },
		{ 204800, 4, false, IOGAP_N2S_NONE, "205k" },
		{ 1575722, 6, false, IOGAP_N2S_NONE, "1575.7k" },
		{ 0, 4, true, IOGAP_N2S_BYTE, "0B" },
		{ 54505472, 4, true, IOGAP_N2S_BYTE, "52.0MiB" },
		{ 4819456000ULL, 4, true, IOGAP_N2S_BYTE, "4596MiB" },
		{ 4816723968ULL, 4, false, IOGAP_N2S_BYTE, "4817MB" },
		{ 4194304, 4, false, IOGAP_N2S_BYTE, "4194kB" },
		{ UINT64_MAX, 4, true, IOGAP_N2S_BYTE, "16.0EiB" },
	};
	unsigned i, bad = 0;
	char buf[64];

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		iogap_num2str(buf, sizeof(buf), c[i].num, c[i].maxlen, c[i].pow2, c[i].units);
		if (strcmp(buf, c[i].want)) {
			printf("# num2str(%llu) = '%s', want '%s'\n",
			       (unsigned long long)c[i].num, buf, c[i].want);
			bad++;
		}
	}
	ok(!bad, "num2str: fio's prefixes, significant figures and carry rounding");
}

/*
 * The bare-metal fixture: fio 3.1, QD1 4k randrw, 120 s.  Same numbers,
 * fio 3.33 layout ("issued rwts" with four fields, "; 0 zone resets").
 */
static const double default_pl[] = {
	1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99,
};
static const uint64_t read_pct[] = {
	462, 478, 482, 486, 490, 494, 502, 510, 516, 532, 596, 676, 860, 1048, 1384, 2480, 3728,
};
static const uint64_t write_pct[] = {
	414, 418, 422, 430, 434, 434, 438, 438, 442, 446, 462, 588, 700, 916, 1208, 1288, 3536,
};

static void fixture_stat(struct iogap_job_stat *st)
{
	const uint64_t nr = 1176625, nw = 1175958, total = nr + nw;
	struct iogap_ddir_stat *rd = &st->dir[0], *wr = &st->dir[1];

	snprintf(st->name, sizeof(st->name), "test");
	st->members = 1;
	st->pid = 50892;
	st->clat_percentiles = true;
	st->iodepth = 1;

	rd->io_bytes = nr * 4096, rd->total_io_u = nr, rd->runtime_ms = 120001;
	set_stat(&rd->lat[IOGAP_SLAT], 39400, 6678300, 94720.0, 55780.0, nr);
	set_stat(&rd->lat[IOGAP_CLAT], 450, 18224, 525.83, 120.10, nr);
	set_stat(&rd->lat[IOGAP_LAT], 39500, 6679000, 95360.0, 55790.0, nr);
	make_hist(rd->plat[IOGAP_CLAT], default_pl, read_pct, 17, nr);
	set_stat(&rd->bw, 720, 40736, 39389.00, 5317.58, 239);
	set_stat(&rd->iops, 180, 10184, 9847.23, 1329.39, 239);

	wr->io_bytes = nw * 4096, wr->total_io_u = nw, wr->runtime_ms = 120001;
	set_stat(&wr->lat[IOGAP_SLAT], 2982, 106207, 4220.09, 980.04, nw);
	set_stat(&wr->lat[IOGAP_CLAT], 407, 18130, 451.48, 103.71, nw);
	set_stat(&wr->lat[IOGAP_LAT], 3100, 111000, 4740.0, 1030.0, nw);
	make_hist(wr->plat[IOGAP_CLAT], default_pl, write_pct, 17, nw);
	set_stat(&wr->bw, 752, 42608, 39366.63, 5355.73, 239);
	set_stat(&wr->iops, 188, 10652, 9841.64, 1338.93, 239);

	/* shares as printed, turned back into counts of all issued I/Os */
	st->io_u_lat_n[7] = (uint64_t)llround(69.98 * total / 100);
	st->io_u_lat_n[8] = (uint64_t)llround(28.64 * total / 100);
	st->io_u_lat_n[9] = (uint64_t)llround(0.90 * total / 100);
	st->io_u_lat_u[0] = (uint64_t)llround(0.42 * total / 100);
	st->io_u_lat_u[1] = (uint64_t)llround(0.04 * total / 100);
	st->io_u_lat_u[2] = (uint64_t)llround(0.01 * total / 100);
	st->io_u_lat_u[3] = 1;

	st->usr_time_us = 2640000, st->sys_time_us = 13020000;
	st->total_run_time_ms = 120001;
	st->ctx = 1176675, st->minf = 1372;
	st->io_u_map[0] = total;
	st->io_u_submit[1] = st->io_u_complete[1] = total;
	st->total_submit = st->total_complete = total;
}

static void test_fixture(void)
{
	static struct iogap_job_stat st;
	struct iogap_disk_util du = {
		.name = "nvme9n1", .ios = { 1174695, 883620 }, .ticks = { 105502, 72225 },
		.time_in_queue = 192101, .msec = 100000, .io_ticks = 99280,
	};
	struct iogap_run_report r = {
		.stats = &st, .nr = 1, .disks = &du, .disks_nr = 1,
		.timestamp = 1556749365, .version = "iogap-probe-test",
	};
	static const char *const want[] = {
		"test: (groupid=0, jobs=1): err= 0: pid=50892: Wed May  1 22:22:45 2019",
		"  read: IOPS=9805, BW=38.3MiB/s (40.2MB/s)(4596MiB/120001msec)",
		"    slat (usec): min=39, max=6678, avg=94.72, stdev=55.78",
		"    clat (nsec): min=450, max=18224, avg=525.83, stdev=120.10",
		"     lat (usec): min=39, max=6679, avg=95.36, stdev=55.79",
		"    clat percentiles (nsec):",
		"     |  1.00th=[  462],  5.00th=[  478], 10.00th=[  482], 20.00th=[  486],",
		"     | 30.00th=[  490], 40.00th=[  494], 50.00th=[  502], 60.00th=[  510],",
		"     | 70.00th=[  516], 80.00th=[  532], 90.00th=[  596], 95.00th=[  676],",
		"     | 99.00th=[  860], 99.50th=[ 1048], 99.90th=[ 1384], 99.95th=[ 2480],",
		"     | 99.99th=[ 3728]",
		"   bw (  KiB/s): min=  720, max=40736, per=100.00%, avg=39389.00, stdev=5317.58, samples=239",
		"   iops        : min=  180, max=10184, avg=9847.23, stdev=1329.39, samples=239",
		"  write: IOPS=9799, BW=38.3MiB/s (40.1MB/s)(4594MiB/120001msec); 0 zone resets",
		"    slat (nsec): min=2982, max=106207, avg=4220.09, stdev=980.04",
		"    clat (nsec): min=407, max=18130, avg=451.48, stdev=103.71",
		"     lat (usec): min=3, max=111, avg= 4.74, stdev= 1.03",
		"     |  1.00th=[  414],  5.00th=[  418], 10.00th=[  422], 20.00th=[  430],",
		"     | 30.00th=[  434], 40.00th=[  434], 50.00th=[  438], 60.00th=[  438],",
		"     | 70.00th=[  442], 80.00th=[  446], 90.00th=[  462], 95.00th=[  588],",
		"     | 99.00th=[  700], 99.50th=[  916], 99.90th=[ 1208], 99.95th=[ 1288],",
		"     | 99.99th=[ 3536]",
		"   bw (  KiB/s): min=  752, max=42608, per=100.00%, avg=39366.63, stdev=5355.73, samples=239",
		"   iops        : min=  188, max=10652, avg=9841.64, stdev=1338.93, samples=239",
		"  lat (nsec)   : 500=69.98%, 750=28.64%, 1000=0.90%",
		"  lat (usec)   : 2=0.42%, 4=0.04%, 10=0.01%, 20=0.01%",
		"  cpu          : usr=2.20%, sys=10.85%, ctx=1176675, majf=0, minf=1372",
		"  IO depths    : 1=100.0%, 2=0.0%, 4=0.0%, 8=0.0%, 16=0.0%, 32=0.0%, >=64=0.0%",
		"     submit    : 0=0.0%, 4=100.0%, 8=0.0%, 16=0.0%, 32=0.0%, 64=0.0%, >=64=0.0%",
		"     complete  : 0=0.0%, 4=100.0%, 8=0.0%, 16=0.0%, 32=0.0%, 64=0.0%, >=64=0.0%",
		"     issued rwts: total=1176625,1175958,0,0 short=0,0,0,0 dropped=0,0,0,0",
		"     latency   : target=0, window=0, percentile=100.00%, depth=1",
		"",
		"Run status group 0 (all jobs):",
		"   READ: bw=38.3MiB/s (40.2MB/s), 38.3MiB/s-38.3MiB/s (40.2MB/s-40.2MB/s), io=4596MiB (4819MB), run=120001-120001msec",
		"  WRITE: bw=38.3MiB/s (40.1MB/s), 38.3MiB/s-38.3MiB/s (40.1MB/s-40.1MB/s), io=4594MiB (4817MB), run=120001-120001msec",
		"Disk stats (read/write):",
		"  nvme9n1: ios=1174695/883620, merge=0/0, ticks=105502/72225, in_queue=192101, util=99.28%",
	};
	unsigned i, bad = 0;
	char *out;

	fixture_stat(&st);
	ok(iogap_group_stats_compute(&r) == 0 && r.groups_nr == 1 &&
	   r.groups[0].agg_bw[0] == 1000 * st.dir[0].io_bytes / 120001,
	   "group pass: one group, aggregate bandwidth = bytes / longest runtime");
	out = render(iogap_output_normal, &r);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		bad += !has_line(out, want[i]);
	ok(!bad, "fixture's fio lines reproduced from its numbers (%u lines)",
	   (unsigned)(sizeof(want) / sizeof(want[0])));
	ok(out[0] == '\n' && !strstr(out, "Description") && !strstr(out, "sync"),
	   "leading empty line; no description or sync block when absent");
	free(out);
	free(r.groups);
}

/* Millisecond-scale job: units switch, percentile values round up. */
static void test_units(void)
{
	static struct iogap_job_stat st;
	struct iogap_run_report r = { .stats = &st, .nr = 1, .timestamp = 0, .version = "x" };
	static const uint64_t ms_pct[] = {
		3014656, 4000000, 8000000, 12000000, 16000000, 20000000, 25000000, 30000000,
		35000000, 40000000, 50000000, 60000000, 80000000, 100000000, 150000000,
		180000000, 200000000,
	};
	uint64_t pv[17];
	unsigned i;
	char *out, line[256];

	for (i = 0; i < 17; i++)   /* the bucket values these fall in */
		pv[i] = iogap_plat_idx_to_val(iogap_plat_val_to_idx(ms_pct[i]));
	snprintf(st.name, sizeof(st.name), "slow");
	st.members = 2;
	st.clat_percentiles = true;
	st.dir[0].io_bytes = 1 << 30, st.dir[0].total_io_u = 1024, st.dir[0].runtime_ms = 30000;
	set_stat(&st.dir[0].lat[IOGAP_CLAT], 2500000, 250000000, 30123456.7, 2000000.0, 1024);
	set_stat(&st.dir[0].lat[IOGAP_SLAT], 2500, 150000, 3333.3, 999.0, 1024);
	set_stat(&st.dir[0].lat[IOGAP_LAT], 2500, 150000, 3333.3, 1001.0, 1024);
	make_hist(st.dir[0].plat[IOGAP_CLAT], default_pl, pv, 17, 1024);
	set_stat(&st.dir[0].bw, 30000, 3000000, 1500000.5, 20000.25, 60);
	st.io_u_lat_m[5] = 1000;
	st.io_u_lat_m[11] = 24;
	iogap_group_stats_compute(&r);
	out = render(iogap_output_normal, &r);

	ok(has_line(out, "    clat (msec): min=2, max=250, avg=30.12, stdev= 2.00"),
	   "clat in msec when min > 2 ms, max > 100 ms and stdev > 1 ms");
	ok(has_line(out, "    slat (nsec): min=2500, max=150000, avg=3333.30, stdev=999.00") &&
	   has_line(out, "     lat (usec): min=2, max=150, avg= 3.33, stdev= 1.00"),
	   "stdev decides: 999 ns stays nsec, 1001 ns switches to usec");
	ok(has_line(out, "    clat percentiles (msec):"), "percentiles in msec");
	snprintf(line, sizeof(line), "     |  1.00th=[%5llu],  5.00th=[%5llu], 10.00th=[%5llu], 20.00th=[%5llu],",
		 (unsigned long long)(((pv[0] + 999) / 1000 + 999) / 1000),
		 (unsigned long long)(((pv[1] + 999) / 1000 + 999) / 1000),
		 (unsigned long long)(((pv[2] + 999) / 1000 + 999) / 1000),
		 (unsigned long long)(((pv[3] + 999) / 1000 + 999) / 1000));
	ok(has_line(out, line) && has_line(out, "     |  1.00th=[    4],  5.00th=[    5], 10.00th=[    9], 20.00th=[   12],"),
	   "msec percentile values round up per step, width 5");
	ok(has_line(out, "   bw (  MiB/s): min=   29, max= 2929, per=100.00%, avg=1464.84, stdev=19.53, samples=60"),
	   "bw line switches to MiB/s above 1 GiB/s mean, min/max truncated");
	ok(has_line(out, "  lat (msec)   : 100=97.66%, >=2000=2.34%"), "msec bucket row");
	ok(strstr(out, "slow: (groupid=0, jobs=2): err= 0: pid=0: ") == out + 1,
	   "header counts group members");
	ok(has_line(out, "   READ: bw=34.1MiB/s (35.8MB/s), 34.1MiB/s-34.1MiB/s (35.8MB/s-35.8MB/s), io=1024MiB (1074MB), run=30000-30000msec"),
	   "group line for the read direction only");
	ok(!strstr(out, "WRITE:") && !strstr(out, "Disk stats"), "no write group line, no disk section");
	free(out);
	free(r.groups);
}

static void test_groups_and_layout(void)
{
	static struct iogap_job_stat st[3];
	struct iogap_job job = { 0 };
	struct iogap_job_kv kv[] = { { "percentile_list", "50:99.9:99.999" },
				     { "continue_on_error", "all" } };
	struct iogap_run_report r = { .stats = st, .nr = 3, .version = "x" };
	const double pl[] = { 50, 99.9, 99.999 };
	const uint64_t pv[] = { 5000, 1234567, 9999999 };
	char *out;
	unsigned i;

	job.kv = kv, job.kv_nr = 2;
	job.continue_on_error = IOGAP_COE_ALL;   /* as parsed from the kv above */
	for (i = 0; i < 3; i++) {
		snprintf(st[i].name, sizeof(st[i].name), "j%u", i);
		st[i].members = 1;
		st[i].groupid = i == 2 ? 2 : 0;   /* group 1 has no member */
		st[i].dir[1].io_bytes = (i + 1) * 1000000ULL;
		st[i].dir[1].total_io_u = 100;
		st[i].dir[1].runtime_ms = 1000 * (i + 1);
	}
	st[0].job = &job;
	st[0].clat_percentiles = true;
	st[0].percentile_nr = 3;
	memcpy(st[0].percentile_list, pl, sizeof(pl));
	set_stat(&st[0].dir[1].lat[IOGAP_CLAT], 4900, 12000000, 50000, 100, 100000);
	make_hist(st[0].dir[1].plat[IOGAP_CLAT], pl, pv, 3, 100000);
	snprintf(st[0].description, sizeof(st[0].description), "a test");
	st[0].error = 5;
	snprintf(st[0].verror, sizeof(st[0].verror), "Input/output error");
	st[0].first_error = 5;
	st[0].total_err_count = 3;
	st[1].dir[1].zone_resets = 7;
	set_stat(&st[1].sync_stat, 1000, 3000, 2000, 500, 4);
	st[1].total_sync = 4;
	st[1].sync_plat[iogap_plat_val_to_idx(1000)] = 2;
	st[1].sync_plat[iogap_plat_val_to_idx(3000)] = 2;

	iogap_group_stats_compute(&r);
	ok(r.groups_nr == 3 && r.groups[0].min_run_ms[1] == 1000 &&
	   r.groups[0].max_run_ms[1] == 2000 && r.groups[0].io_bytes[1] == 3000000 &&
	   r.groups[0].min_bw[1] == 1000000 && r.groups[0].max_bw[1] == 1000000 &&
	   r.groups[0].agg_bw[1] == 1500000 && r.groups[1].max_run_ms[1] == 0,
	   "groups: min/max runtime and bandwidth, bytes, aggregate over the longest run");
	out = render(iogap_output_normal, &r);
	ok(has_line(out, "j0: (groupid=0, jobs=1): err= 5 (Input/output error): pid=0: Thu Jan  1 00:00:00 1970"),
	   "error header");
	ok(has_line(out, "  Description  : [a test]"), "description line");
	ok(has_line(out, "    clat percentiles (usec):") &&
	   has_line(out, "     | 50.000th=[    6], 99.900th=[ 1237], 99.999th=[10028]"),
	   "precision from the percentile_list text (3 decimals), usec, per-line fit");
	ok(has_line(out, "     errors    : total=3, first_error=5/<Input/output error>"),
	   "errors line with continue_on_error");
	ok(has_line(out, "  write: IOPS=50, BW=977KiB/s (1000kB/s)(1953KiB/2000msec); 7 zone resets"),
	   "zone resets on the write line");
	ok(has_line(out, "  fsync/fdatasync/sync_file_range:") &&
	   has_line(out, "    sync (nsec): min=1000, max=3000, avg=2000.00, stdev=500.00") &&
	   has_line(out, "    sync percentiles (nsec):") &&
	   has_line(out, "     issued rwts: total=0,100,0,4 short=0,0,0,0 dropped=0,0,0,0"),
	   "sync block and the sync count in issued rwts");
	ok(has_line(out, "  WRITE: bw=1465KiB/s (1500kB/s), 977KiB/s-977KiB/s (1000kB/s-1000kB/s), io=2930KiB (3000kB), run=1000-2000msec") &&
	   has_line(out, "Run status group 1 (all jobs):") &&
	   has_line(out, "Run status group 2 (all jobs):"),
	   "group lines, including the empty group as fio prints it");
	ok(!strstr(out, "latency   :"), "no latency line without a depth");
	free(out);
	free(r.groups);
}

static void test_job_line(void)
{
	struct iogap_job job = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	job.name = "test";
	job.rw = IOGAP_RW_READ | IOGAP_RW_WRITE | IOGAP_RW_RAND;
	job.bs[0] = job.bs[1] = job.bs[2] = 4096;
	job.ioengine = "libaio";
	job.iodepth = 1;
	iogap_output_job_line(f, &job, 0);

	job.name = "big";
	job.rw = IOGAP_RW_WRITE;
	job.bs[0] = job.bs[1] = job.bs[2] = 1 << 20;
	job.bs_min[1] = 4096;
	job.bs_max[1] = 131072;
	job.ioengine = NULL;
	job.iodepth = 32;
	iogap_output_job_line(f, &job, 3);
	fclose(f);

	ok(has_line(buf, "test: (g=0): rw=randrw, bs=(R) 4096B-4096B, (W) 4096B-4096B, (T) 4096B-4096B, ioengine=libaio, iodepth=1"),
	   "job line as fio prints it");
	ok(has_line(buf, "big: (g=3): rw=write, bs=(R) 1024KiB-1024KiB, (W) 4096B-128KiB, (T) 1024KiB-1024KiB, ioengine=psync, iodepth=32"),
	   "job line with bsrange and the default engine");
	free(buf);
}

/* Run python3 on the document: its exit status (127: python3 not found). */
static int py_check(const char *doc, const char *script)
{
	char path[] = "/tmp/iogap-test-json-XXXXXX", cmd[4096];
	int fd = mkstemp(path), rc;
	FILE *f;

	if (fd < 0)
		return -1;
	f = fdopen(fd, "w");
	fputs(doc, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "'%s' -c '%s' %s", IOGAP_PYTHON3, script, path);
	rc = system(cmd);
	unlink(path);
	return rc == -1 ? -1 : WEXITSTATUS(rc);
}

/* Why py_check failed, when it is not the document ("" when it ran). */
static const char *py_failure(int rc)
{
	return rc == 127 ? " (" IOGAP_PYTHON3 " not found: python3 is a build dependency)" :
	       rc < 0 ? " (could not run python3)" : "";
}

static void test_json(void)
{
	static struct iogap_job_stat st;
	struct iogap_job job = { 0 };
	struct iogap_job_kv gkv[] = { { "ioengine", "psync" }, { "time_based", NULL } };
	struct iogap_job_kv kv[] = { { "ioengine", "psync" }, { "time_based", NULL },
				     { "name", "we\"ird\\name" }, { "rw", "randread" } };
	struct iogap_disk_util du = { .name = "vda", .ios = { 5, 6 }, .msec = 1000, .io_ticks = 500 };
	struct iogap_run_report r = {
		.stats = &st, .nr = 1, .disks = &du, .disks_nr = 1, .timestamp = 1796000000,
		.timestamp_ms = 1796000000123ULL, .version = "iogap-probe-0.1.0",
		.global_kv = gkv, .global_kv_nr = 2,
	};
	const char *head = "{\n  \"fio version\" : \"iogap-probe-0.1.0\",\n"
			   "  \"timestamp\" : 1796000000,\n  \"timestamp_ms\" : 1796000000123,\n"
			   "  \"time\" : \"Mon Nov 30 00:53:20 2026\",\n";
	char *out = NULL;
	size_t len = 0;
	FILE *f;
	int rc;

	job.kv = kv, job.kv_nr = 4;
	fixture_stat(&st);
	st.job = &job;
	snprintf(st.name, sizeof(st.name), "we\"ird\\name\n");
	iogap_group_stats_compute(&r);

	f = open_memstream(&out, &len);
	iogap_output_json(f, &r, true);
	fclose(f);
	ok(strncmp(out, head, strlen(head)) == 0,
	   "JSON starts as fio's: version, timestamp, timestamp_ms, 2-space indent");
	ok(strstr(out, "      \"job options\" : {\n        \"name\" : \"we\\\"ird\\\\name\",\n"
		   "        \"rw\" : \"randread\"\n      },\n") != NULL,
	   "job options without the [global] ones, escaped");
	ok(strstr(out, "\"global options\" : {\n    \"ioengine\" : \"psync\"\n  },") != NULL,
	   "global options, bare flags left out as fio does");
	ok(strstr(out, "\"iops\" : 9805.126624,") && strstr(out, "\"bw\" : 39220,") &&
	   strstr(out, "\"bw_agg\" : 100.000000,"),
	   "iops as float, bw in KiB/s as integer, bw_agg capped at 100");

	rc = py_check(out,
		"import json, sys\n"
		"d = json.load(open(sys.argv[1]))\n"
		"j = d[\"jobs\"][0]\n"
		"keys = [\"jobname\", \"groupid\", \"error\", \"eta\", \"elapsed\", \"job options\", \"read\", \"write\", \"trim\", \"sync\", \"job_runtime\", \"usr_cpu\", \"sys_cpu\", \"ctx\", \"majf\", \"minf\", \"iodepth_level\", \"iodepth_submit\", \"iodepth_complete\", \"latency_ns\", \"latency_us\", \"latency_ms\", \"latency_depth\", \"latency_target\", \"latency_percentile\", \"latency_window\"]\n"
		"assert list(j.keys()) == keys, list(j.keys())\n"
		"assert j[\"jobname\"] == \"we\\\"ird\\\\name\\n\"\n"
		"r = j[\"read\"]\n"
		"assert list(r.keys())[:9] == [\"io_bytes\", \"io_kbytes\", \"bw_bytes\", \"bw\", \"iops\", \"runtime\", \"total_ios\", \"short_ios\", \"drop_ios\"]\n"
		"assert r[\"clat_ns\"][\"percentile\"][\"99.990000\"] == 3728\n"
		"assert sum(r[\"clat_ns\"][\"bins\"].values()) == r[\"clat_ns\"][\"N\"]\n"
		"assert \"percentile\" not in r[\"slat_ns\"]\n"
		"assert list(j[\"iodepth_submit\"].keys()) == [\"0\", \"4\", \"8\", \"16\", \"32\", \"64\", \">=64\"]\n"
		"assert abs(j[\"latency_ns\"][\"500\"] - 69.98) < 0.001\n"
		"assert d[\"disk_util\"][0][\"util\"] == 50.0\n"
		"assert \"desc\" not in j and \"total_err\" not in j\n");
	ok(rc == 0, "JSON+ parses; keys, order and values as fio's%s", py_failure(rc));
	free(out);

	/* plain JSON: no bins; an empty run is still a valid document */
	st.clat_percentiles = false;
	r.nr = 0;
	r.disks_nr = 0;
	f = open_memstream(&out, &len);
	iogap_output_json(f, &r, false);
	fclose(f);
	rc = py_check(out, "import json, sys\nd = json.load(open(sys.argv[1]))\n"
			   "assert d[\"jobs\"] == [] and \"disk_util\" not in d\n");
	ok(rc == 0, "empty report: valid JSON, no disk_util%s", py_failure(rc));
	free(out);
	free(r.groups);
}

static void test_disk_util(void)
{
	const char *none[] = { "/dev/null", "/nonexistent-dir/x", "/proc/self/status" };
	const char *some[] = { ".", "/", "/tmp/iogap-not-there-yet", "." };
	struct iogap_disk_util *du = NULL;
	struct iogap_disk_set *set;
	size_t n, i;
	int sane = 1;

	set = iogap_disk_util_start(none, 3);
	n = iogap_disk_util_finish(set, &du);
	ok(set && n == 0 && du == NULL,
	   "no disk for a character device, a missing directory, procfs");

	set = iogap_disk_util_start(some, 4);
	n = iogap_disk_util_finish(set, &du);
	for (i = 0; i < n; i++) {
		size_t j;

		if (!du[i].name[0] || du[i].util < 0 || du[i].util > 100)
			sane = 0;
		for (j = 0; j < i; j++)
			if (!strcmp(du[i].name, du[j].name))
				sane = 0;
	}
	ok(sane, "disks under the work dir and / (%zu found): named, deduplicated", n);
	free(du);
	ok(iogap_disk_util_finish(NULL, &du) == 0 && du == NULL, "finish(NULL) reports nothing");
}

/* fio's terse v3 line: field count and positions (stat.c's order). */
static void test_terse(void)
{
	static struct iogap_job_stat st;
	struct iogap_disk_util du = { .name = "nvme9n1", .ios = { 7, 9 }, .msec = 100, .io_ticks = 50 };
	struct iogap_run_report r = { .stats = &st, .nr = 1, .disks = &du, .disks_nr = 1,
				      .version = "iogap-probe-test" };
	char *line, *save = NULL, *tok, *f[160];
	unsigned n = 0;

	fixture_stat(&st);
	snprintf(st.description, sizeof(st.description), "a job");
	line = render(iogap_output_terse, &r);
	ok(line && strchr(line, '\n') == line + strlen(line) - 1, "terse: one line");
	for (tok = strtok_r(line, ";\n", &save); tok && n < 160; tok = strtok_r(NULL, ";\n", &save))
		f[n++] = tok;
	/* 5 general + 2 x 41 per direction + 5 cpu + 7 depths + 10 us + 12 ms + 9 disk + desc */
	ok(n == 131, "terse: 131 fields with one disk and a description (%u)", n);
	if (n != 131) {
		free(line);
		return;
	}
	ok(!strcmp(f[0], "3") && !strcmp(f[1], "iogap-probe-test") && !strcmp(f[2], "test") &&
	   !strcmp(f[3], "0") && !strcmp(f[4], "0"), "terse: version 3, version string, name, group, error");
	ok(!strcmp(f[5], "4706500") && !strcmp(f[6], "39220") && !strcmp(f[7], "9805") &&
	   !strcmp(f[8], "120001"), "terse: read KiB, KiB/s, IOPS, runtime ms (%s %s %s %s)",
	   f[5], f[6], f[7], f[8]);
	ok(!strcmp(f[9], "39") && !strcmp(f[10], "6678") && !strcmp(f[11], "94.720000") &&
	   !strcmp(f[12], "55.780000"), "terse: slat min, max, mean, stddev in usec");
	ok(!strcmp(f[17], "1.000000%=0") && !strcmp(f[33], "99.990000%=3") &&
	   !strcmp(f[34], "0%=0") && !strcmp(f[36], "0%=0"),
	   "terse: 17 clat percentiles in usec, padded to 20 with 0%%=0 (%s %s %s)", f[17], f[33], f[34]);
	ok(!strcmp(f[87], "2.199982%") && !strcmp(f[89], "1176675") && !strcmp(f[92], "100.0%"),
	   "terse: cpu usr%%, ctx, then the depth shares (%s %s %s)", f[87], f[89], f[92]);
	ok(!strcmp(f[99], "99.94%"), "terse: ns latencies fold into the first usec bucket (%s)", f[99]);
	ok(!strcmp(f[121], "nvme9n1") && !strcmp(f[122], "7") && !strcmp(f[129], "50.00%") &&
	   !strcmp(f[130], "a job"), "terse: disk name, ios, util, then the description");
	free(line);
}

int main(void)
{
	setenv("TZ", "UTC", 1);
	tzset();
	test_num2str();
	test_fixture();
	test_units();
	test_groups_and_layout();
	test_job_line();
	test_json();
	test_disk_util();
	test_terse();
	tap_plan(tap_n);
	return tap_done();
}
