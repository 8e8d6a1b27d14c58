/* SPDX-License-Identifier: MIT */
/*
 * fio output import: the JSON parser, the text parser on the bug-report
 * fixtures (numbers compared with the text), fio 3.33's own outputs (text
 * vs JSON of the same run, JSON/JSON+ round trip), fio 2.x text (written
 * by hand in fio-2.16's stat.c layout, see data/fio216-*.txt), and errors.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fio_import.h"
#include "json_parse.h"
#include "stats.h"
#include "tap.h"
#include "util.h"

static char path_buf[4096];

static const char *data(const char *name)
{
	const char *src = getenv("IOGAP_SRC");

	snprintf(path_buf, sizeof(path_buf), "%s/tests/import/data/%s", src ? src : ".", name);
	return path_buf;
}

/* the bug report's pastes (../shared/fixtures/fio-output), copied */
static const char *fixture(const char *name)
{
	return data(name);
}

static bool eq(double a, double b, double tol)
{
	return fabs(a - b) <= tol;
}

static const struct fioi_pct *pct(const struct fioi_dir *d, int k, double p)
{
	for (unsigned i = 0; i < d->pct_nr[k]; i++)
		if (eq(d->pct[k][i].p, p, 1e-9))
			return &d->pct[k][i];
	return NULL;
}

static void test_json_parser(void)
{
	static const struct { const char *text, *err; } bad[] = {
		{ "{\"a\": 1,}", "line 1, column 9: expected a string key" },
		{ "[1, 2", "expected ',' or ']'" },
		{ "{\"a\": 01}", "leading zero" },
		{ "\"\\x\"", "bad escape" },
		{ "\"abc", "unterminated string" },
		{ "{\n  \"a\" : tru }", "line 2, column 9: unexpected" },
		{ "1 2", "after the value" },
		{ "\"\\ud800\"", "surrogate" },
		{ "\"\xff\"", "invalid UTF-8" },
		{ "-", "expected a digit" },
		{ "1.", "after '.'" },
		{ "", "end of input" },
	};
	struct jp_value v;
	char err[256], *out = NULL;
	size_t len = 0;
	FILE *m;
	const char *doc = "{\n  \"n\" : 18446744073709551615,\n  \"f\" : 1.500000,\n"
			  "  \"s\" : \"a\\\"b\\u00e9\\ud83d\\ude00\",\n  \"a\" : [\n    true,\n"
			  "    null\n  ]\n}\n";
	int fails = 0;
	char deep[200];

	ok(!jp_parse(doc, strlen(doc), false, &v, NULL, err, sizeof(err)), "valid document parses");
	ok(jp_u64(jp_get(&v, "n"), 0) == UINT64_MAX, "u64 max is exact");
	ok(!strcmp(jp_str(jp_get(&v, "s")), "a\"b\xc3\xa9\xf0\x9f\x98\x80"),
	   "escapes and surrogate pairs decode to UTF-8");
	m = open_memstream(&out, &len);
	jp_write(m, &v);
	fclose(m);
	ok(strstr(out, "\"f\" : 1.500000") && strstr(out, "18446744073709551615"),
	   "numbers are written back as their source text");
	free(out);
	jp_free(&v);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		if (!jp_parse(bad[i].text, strlen(bad[i].text), false, &v, NULL, err, sizeof(err)) ||
		    !strstr(err, bad[i].err)) {
			printf("# '%s': got '%s', want '%s'\n", bad[i].text, err, bad[i].err);
			fails++;
		}
	}
	ok(!fails, "%zu malformed documents rejected with line, column and reason",
	   sizeof(bad) / sizeof(bad[0]));
	memset(deep, '[', sizeof(deep) - 1);
	deep[sizeof(deep) - 1] = '\0';
	ok(jp_parse(deep, strlen(deep), false, &v, NULL, err, sizeof(err)) && strstr(err, "nesting"),
	   "nesting depth is limited: %s", err);
}

static void test_fixture_bare(void)
{
	struct fioi_result r;
	char err[512];
	const struct fioi_dir *rd, *wr;
	const struct fioi_job *j;

	if (!ok(!fioi_parse_file(fixture("nvme-passthrough-baremetal.txt"), &r, err, sizeof(err)),
		"bare-metal fixture parses: %s", err))
		return;
	j = &r.jobs[0];
	rd = &j->dir[0];
	wr = &j->dir[1];
	ok(r.nr == 1 && r.format == FIOI_TEXT3 && !strcmp(r.version, "fio-3.1"),
	   "one job, fio-text-3, fio-3.1");
	ok(r.cmdline && !strncmp(r.cmdline, "fio --ioengine=libaio --name=test", 33),
	   "command line from the prompt line");
	ok(!strcmp(j->name, "test") && !strcmp(j->rw, "randrw") && !strcmp(j->ioengine, "libaio") &&
	   j->iodepth == 1, "header facts: rw=randrw ioengine=libaio iodepth=1");
	ok(rd->have && rd->iops == 9805 && eq(rd->bw_bytes, 38.3 * 1048576, 1) &&
	   rd->io_bytes == 4596ull * 1048576 && rd->runtime_ms == 120001,
	   "read: IOPS=9805, BW=38.3MiB/s, 4596MiB in 120001 ms");
	ok(wr->have && wr->iops == 9799 && wr->io_bytes == 4594ull * 1048576,
	   "write: IOPS=9799, 4594MiB");
	ok(rd->have_total && rd->total_ios == 1176625 && wr->total_ios == 1175958,
	   "issued rwt: 1176625 / 1175958");
	ok(eq(rd->lat[FIOI_SLAT].min, 39000, 0) && eq(rd->lat[FIOI_SLAT].max, 6678000, 0) &&
	   eq(rd->lat[FIOI_SLAT].mean, 94720, 1e-6) && eq(rd->lat[FIOI_SLAT].stdev, 55780, 1e-6),
	   "read slat (usec) min=39 max=6678 avg=94.72 stdev=55.78 in ns");
	ok(eq(rd->lat[FIOI_CLAT].min, 450, 0) && eq(rd->lat[FIOI_CLAT].max, 18224, 0) &&
	   eq(rd->lat[FIOI_CLAT].mean, 525.83, 1e-9) && eq(rd->lat[FIOI_CLAT].stdev, 120.10, 1e-9),
	   "read clat (nsec) min=450 max=18224 avg=525.83 stdev=120.10");
	ok(eq(rd->lat[FIOI_LAT].mean, 95360, 1e-6) && eq(wr->lat[FIOI_LAT].mean, 4740, 1e-6) &&
	   eq(wr->lat[FIOI_SLAT].mean, 4220.09, 1e-9), "lat avg 95.36 us / 4.74 us, write slat 4220.09 ns");
	ok(rd->pct_nr[FIOI_CLAT] == 17 && pct(rd, FIOI_CLAT, 1)->ns == 462 &&
	   pct(rd, FIOI_CLAT, 50)->ns == 502 && pct(rd, FIOI_CLAT, 99)->ns == 860 &&
	   pct(rd, FIOI_CLAT, 99.99)->ns == 3728, "read clat percentiles: 17, 1%%=462 50%%=502 99%%=860 99.99%%=3728 ns");
	ok(wr->pct_nr[FIOI_CLAT] == 17 && pct(wr, FIOI_CLAT, 99.95)->ns == 1288,
	   "write clat 99.95%%=1288 ns");
	ok(rd->bw.have && rd->bw.min == 720 && rd->bw.max == 40736 && eq(rd->bw.mean, 39389, 0) &&
	   eq(rd->bw.stdev, 5317.58, 1e-9) && rd->bw.samples == 239 && eq(rd->bw.agg_pct, 100, 0),
	   "read bw (KiB/s) min=720 max=40736 avg=39389 stdev=5317.58 samples=239");
	ok(rd->iops_s.have && rd->iops_s.min == 180 && rd->iops_s.max == 10184 &&
	   eq(rd->iops_s.mean, 9847.23, 1e-9) && rd->iops_s.samples == 239, "read iops samples");
	ok(j->have_cpu && eq(j->usr_cpu, 2.20, 1e-9) && eq(j->sys_cpu, 10.85, 1e-9) &&
	   j->ctx == 1176675 && j->majf == 0 && j->minf == 1372, "cpu usr=2.20%% sys=10.85%% ctx minf");
	ok(j->have_depth && j->depth[0] == 100.0 && j->submit[1] == 100.0,
	   "IO depths 1=100%%, submit 4=100%%");
	ok(eq(j->lat_n[7], 69.98, 1e-9) && eq(j->lat_n[8], 28.64, 1e-9) && eq(j->lat_u[0], 0.42, 1e-9),
	   "latency buckets nsec 500=69.98%% 750=28.64%%, usec 2=0.42%%");
	ok(!strcmp(fioi_opt(&r, j, "ioengine"), "libaio") && !strcmp(fioi_opt(&r, j, "rw"), "randrw") &&
	   !strcmp(fioi_opt(&r, j, "size"), "40G") && !fioi_opt(&r, j, "direct"),
	   "options from the command line (readwrite as rw; no direct)");
	fioi_free(&r);
}

static void test_fixture_vm(void)
{
	struct fioi_result r;
	char err[512];
	const struct fioi_dir *rd, *wr;

	if (!ok(!fioi_parse_file(fixture("nvme-passthrough-vm.txt"), &r, err, sizeof(err)),
		"VM fixture parses: %s", err))
		return;
	rd = &r.jobs[0].dir[0];
	wr = &r.jobs[0].dir[1];
	ok(rd->iops == 6994 && eq(rd->bw_bytes, 27.3 * 1048576, 1) && rd->runtime_ms == 120000 &&
	   wr->iops == 6985, "VM read IOPS=6994 BW=27.3MiB/s 120000 ms, write IOPS=6985");
	ok(eq(rd->lat[FIOI_SLAT].mean, 115270, 1e-6) && eq(rd->lat[FIOI_SLAT].max, 20476000, 0) &&
	   eq(rd->lat[FIOI_CLAT].mean, 2163.02, 1e-9) && eq(rd->lat[FIOI_LAT].mean, 118510, 1e-6),
	   "VM read slat avg 115.27 us, clat 2163.02 ns, lat 118.51 us");
	ok(eq(wr->lat[FIOI_SLAT].stdev, 6240, 1e-6) && eq(wr->lat[FIOI_CLAT].max, 199250, 0),
	   "VM write slat stdev 6.24 us, clat max 199250 ns");
	ok(pct(rd, FIOI_CLAT, 99.9)->ns == 11072 && pct(wr, FIOI_CLAT, 99.99)->ns == 19072,
	   "VM clat 99.90%%=11072, write 99.99%%=19072");
	ok(eq(r.jobs[0].lat_u[0], 51.56, 1e-9) && eq(r.jobs[0].lat_u[6], 0.01, 1e-9),
	   "two 'lat (usec)' lines: 2=51.56%% and 250=0.01%%");
	ok(rd->total_ios == 839283 && rd->lat[FIOI_CLAT].n == 839283, "samples = issued reads");
	fioi_free(&r);
}

/* fio 3.33 wrote normal and json+ for one run into one file: the text
 * part must agree with the JSON part to the text's precision. */
static void test_text_vs_json(void)
{
	size_t len;
	char *buf = iogap_read_file(data("fio333-randrw-libaio-buffered.out"), 0, &len), err[512];
	const char *text;
	struct fioi_result t, js;
	int bad = 0;

	if (!ok(buf != NULL, "fio333-randrw-libaio-buffered.out"))
		return;
	text = strstr(buf, "\n}\n");
	if (!ok(text && !fioi_parse_buf("json-part", buf, len, &js, err, sizeof(err)) &&
		js.format == FIOI_JSONPLUS, "JSON+ part parses (json+): %s", err))
		return;
	if (!ok(!fioi_parse_buf("text-part", text + 3, len - (size_t)(text + 3 - buf), &t, err,
				sizeof(err)) && t.format == FIOI_TEXT3, "text part parses: %s", err))
		return;
	for (int d = 0; d < 2; d++) {
		const struct fioi_dir *a = &t.jobs[0].dir[d], *b = &js.jobs[0].dir[d];

		bad += a->total_ios != b->total_ios || a->runtime_ms != b->runtime_ms;
		bad += !eq(a->iops, b->iops, b->iops * 0.005 + 1);
		bad += !eq(a->bw_bytes, b->bw_bytes, b->bw_bytes * 0.005);
		for (int k = 0; k < 3; k++) {
			double unit = a->lat[k].mean >= 1e6 ? 1e4 : a->lat[k].mean >= 1e3 ? 10 : 0.01;

			bad += !eq(a->lat[k].mean, b->lat[k].mean, unit / 2 + 1e-6);
			bad += !eq(a->lat[k].min, b->lat[k].min, b->lat[k].min * 0.001 + 1000);
			for (unsigned i = 0; i < a->pct_nr[k]; i++) {
				const struct fioi_pct *q = pct(b, k, a->pct[k][i].p);

				/* usec/msec columns are rounded up */
				if (!q || a->pct[k][i].ns < q->ns || a->pct[k][i].ns - q->ns >= 1000000) {
					printf("# pct %g %llu vs %llu\n", a->pct[k][i].p,
					       (unsigned long long)a->pct[k][i].ns,
					       q ? (unsigned long long)q->ns : 0ull);
					bad++;
				}
			}
		}
		bad += !eq(a->bw.mean, b->bw.mean, 0.01) || a->bw.samples != b->bw.samples;
		bad += !eq(a->iops_s.mean, b->iops_s.mean, 0.01);
	}
	bad += !eq(t.jobs[0].usr_cpu, js.jobs[0].usr_cpu, 0.006);
	ok(!bad, "text and JSON of one fio 3.33 run agree (counts, IOPS, BW, lat, percentiles, bw/iops)");
	fioi_free(&t);
	fioi_free(&js);
	free(buf);
}

/* Every value of fio's JSON equals the imported probe.json's, textually. */
static int cmp_leaves(const struct jp_value *a, const struct jp_value *b, const char *path)
{
	int bad = 0;

	if (!b)
		return printf("# missing %s\n", path), 1;
	if (a->type != b->type)
		return printf("# type %s\n", path), 1;
	if (a->type == JP_OBJECT) {
		for (size_t i = 0; i < a->n; i++) {
			char p[512];

			snprintf(p, sizeof(p), "%s/%s", path, a->members[i].key);
			bad += cmp_leaves(&a->members[i].val, jp_get(b, a->members[i].key), p);
		}
	} else if (a->type == JP_ARRAY) {
		if (a->n != b->n)
			return printf("# length %s\n", path), 1;
		for (size_t i = 0; i < a->n; i++)
			bad += cmp_leaves(&a->items[i], &b->items[i], path);
	} else if (a->text && strcmp(a->text, b->text)) {
		printf("# %s: %s vs %s\n", path, a->text, b->text);
		bad++;
	}
	return bad;
}

static void test_json_round_trip(const char *name, enum fioi_format want)
{
	size_t len, olen = 0;
	char *buf = iogap_read_file(data(name), 0, &len), *out = NULL, err[512];
	struct fioi_result r;
	struct jp_value a, b;
	FILE *m;

	if (!ok(buf && !fioi_parse_buf(name, buf, len, &r, err, sizeof(err)) && r.format == want,
		"%s parses as %s: %s", name, fioi_format_name(want), err))
		return;
	m = open_memstream(&out, &olen);
	fioi_write_json(&r, m, err, sizeof(err));
	fclose(m);
	{
		/* fio's JSON document, after any normal-format text */
		const char *js = buf[0] == '{' ? buf : strstr(buf, "\n{\n") + 1;

		jp_parse(js, len - (size_t)(js - buf), true, &a, NULL, err, sizeof(err));
	}
	ok(!jp_parse(out, olen, false, &b, NULL, err, sizeof(err)) &&
	   !cmp_leaves(&a, &b, ""), "%s: every value of fio's JSON is in probe.json unchanged", name);
	if (want == FIOI_JSONPLUS) {
		/* our histogram, filled from fio's bins, gives fio's percentiles */
		int bad = 0;

		for (size_t i = 0; i < r.nr; i++)
			for (int d = 0; d < 3; d++) {
				const struct fioi_dir *x = &r.jobs[i].dir[d];
				static uint64_t plat[IOGAP_PLAT_NR];
				double list[FIOI_MAX_PCT];
				uint64_t vals[FIOI_MAX_PCT];

				if (!x->bins_nr[FIOI_CLAT])
					continue;
				memset(plat, 0, sizeof(plat));
				for (size_t k = 0; k < x->bins_nr[FIOI_CLAT]; k++)
					plat[iogap_plat_val_to_idx(x->bins[FIOI_CLAT][k].ns)] +=
						x->bins[FIOI_CLAT][k].count;
				for (unsigned k = 0; k < x->pct_nr[FIOI_CLAT]; k++)
					list[k] = x->pct[FIOI_CLAT][k].p;
				iogap_plat_percentiles(plat, list, x->pct_nr[FIOI_CLAT], vals);
				for (unsigned k = 0; k < x->pct_nr[FIOI_CLAT]; k++)
					bad += vals[k] != x->pct[FIOI_CLAT][k].ns;
			}
		ok(!bad, "%s: percentiles recomputed from the json+ bins equal fio's", name);
	}
	jp_free(&a);
	jp_free(&b);
	fioi_free(&r);
	free(out);
	free(buf);
}

static void test_multi_text(void)
{
	struct fioi_result r;
	char err[512];
	const struct fioi_job *j;

	if (!ok(!fioi_parse_file(data("fio333-multi.txt"), &r, err, sizeof(err)),
		"fio333-multi.txt parses: %s", err))
		return;
	ok(r.nr == 4 && r.jobs[0].groupid == 0 && r.jobs[1].groupid == 0 &&
	   r.jobs[2].groupid == 1 && r.jobs[3].groupid == 2, "4 results in groups 0, 0, 1, 2");
	j = &r.jobs[2];
	ok(!strcmp(j->name, "mix-group") && j->members == 2 && j->dir[0].have && j->dir[1].have &&
	   eq(j->dir[0].iops, 16000, 0) && j->dir[1].iops == 7007 && !strcmp(j->bs, "(R) 8192B-8192B, (W) 8192B-8192B, (T) 8192B-8192B"),
	   "group_reporting entry: jobs=2, IOPS=16.0k read / 7007 write, header facts by name");
	ok(eq(j->dir[0].lat[FIOI_CLAT].max, 3625800, 0) && pct(&j->dir[0], FIOI_CLAT, 99.99)->ns == 2605056 &&
	   pct(&j->dir[1], FIOI_CLAT, 99.99)->ns == 5997000,
	   "max=3625.8k nsec; 3-column nsec rows; usec percentiles");
	ok(r.jobs[1].dir[1].have_zone_resets && r.jobs[1].dir[1].zone_resets == 0 &&
	   r.jobs[1].dir[1].bw_bytes == 7425 * 1024.0 && r.jobs[1].dir[1].io_bytes == 7432 * 1024,
	   "'; 0 zone resets', KiB sizes");
	ok(!strcmp(r.jobs[3].ioengine, "libaio") && r.jobs[3].iodepth == 8 &&
	   eq(r.jobs[3].dir[0].lat[FIOI_SLAT].max, 3560800, 0) && r.jobs[3].depth[4] == 0.0 &&
	   r.jobs[3].depth[3] == 100.0, "libaio job: iodepth=8, slat max 3560.8k, depth 8=100%%");
	ok(r.jobs[0].dir[0].bw.have && eq(r.jobs[0].dir[0].bw.min, 1152 * 1024.0, 0),
	   "bw (  MiB/s) converted to KiB/s");
	fioi_free(&r);

	if (!ok(!fioi_parse_file(data("fio333-null.txt"), &r, err, sizeof(err)), "null engine output: %s", err))
		return;
	ok(r.jobs[0].dir[0].iops == 6286000 && eq(r.jobs[0].dir[0].bw_bytes, 24.0 * 1073741824, 1) &&
	   pct(&r.jobs[0].dir[0], FIOI_CLAT, 99.9999)->ns == 53504 && r.jobs[0].dir[0].iops_s.min == 6273998,
	   "IOPS=6286k, 24.0GiB/s, 99.9999th percentile, 7-digit iops samples");
	fioi_free(&r);
}

static void test_fio2(void)
{
	struct fioi_result r;
	char err[512];
	const struct fioi_dir *rd, *wr;

	if (!ok(!fioi_parse_file(data("fio216-randrw-libaio.txt"), &r, err, sizeof(err)),
		"fio 2.16 layout (hand-written from fio-2.16 stat.c) parses: %s", err))
		return;
	rd = &r.jobs[0].dir[0];
	wr = &r.jobs[0].dir[1];
	ok(r.format == FIOI_TEXT2 && !strcmp(r.version, "fio-2.16"), "fio-text-2, fio-2.16");
	ok(rd->iops == 9805 && rd->bw_bytes == 39221 * 1024.0 && eq((double)rd->io_bytes, 4596.2 * 1048576, 1) &&
	   rd->runtime_ms == 120001, "read : io=4596.2MB, bw=39221KB/s, iops=9805, runt=120001msec (KB=KiB)");
	ok(eq(rd->lat[FIOI_CLAT].mean, 810830, 1e-6) && pct(rd, FIOI_CLAT, 99.99)->ns == 3728000,
	   "usec latencies and usec percentiles");
	ok(eq(wr->lat[FIOI_CLAT].max, 18e6, 0) && eq(wr->lat[FIOI_CLAT].mean, 810000, 1e-6),
	   "(msec) latencies");
	ok(rd->total_ios == 1176625 && wr->total_ios == 1175958 && r.jobs[0].iodepth == 16 &&
	   r.jobs[0].depth[4] == 100.0, "issued: total=r=…/w=…/d=…, iodepth 16");
	ok(rd->bw.have && rd->bw.max == 40736 && rd->bw.samples == 0, "bw (KB  /s) line (no samples in 2.x)");
	fioi_free(&r);

	if (!ok(!fioi_parse_file(data("fio216-two-jobs-wrapped.txt"), &r, err, sizeof(err)),
		"fio 2.16 two jobs, wrapped lines: %s", err))
		return;
	ok(r.nr == 2 && r.jobs[1].groupid == 1 && !strcmp(r.jobs[1].ioengine, "psync") &&
	   r.jobs[1].iodepth == 4, "two jobs in two groups, header facts");
	ok(eq(r.jobs[0].dir[0].lat[FIOI_CLAT].stdev, 620700, 1e-6) && r.jobs[0].depth[0] == 100.0 &&
	   r.jobs[0].depth[6] == 0.0, "a wrapped clat line and a wrapped IO depths line are re-joined");
	ok(eq(r.jobs[0].dir[0].bw_bytes, 1234.6 * 1048576, 1) && r.jobs[0].dir[0].bw.max == 1300 * 1024.0,
	   "bw=1234.6MB/s and bw (MB  /s) are MiB in 2.x");
	ok(eq(r.jobs[1].dir[1].io_bytes, 7432 * 1024, 0), "io=7432.0KB");
	fioi_free(&r);
}

static void test_errors(void)
{
	static const struct { const char *text, *want; } cases[] = {
		{ "hello world\nthis is not fio\n", "garbage: no fio results found" },
		{ "test: (g=0): rw=read, bs=4k, ioengine=psync, iodepth=1\nfio-3.33\n",
		  "only the job header lines" },
		{ "t: (groupid=0, jobs=1): err= 0: pid=1: Mon Nov 30 07:39:13 2026\n"
		  "  read: IOPS=10.2k, BW=1279MiB/s (1341MB/s)(1281MiB/1001msec)\n"
		  "    clat (usec): min=7, max=\n", "garbage:3: expected min=, max=, avg=, stdev=" },
		{ "t: (groupid=0, jobs=1): err= 0: pid=1: Mon Nov 30 07:39:13 2026\n"
		  "  read: IOPS=10.2k, BW=\n", "garbage:2: cannot read BW=" },
		{ "t: (groupid=0, jobs=1): err= 0: pid=1: Mon Nov 30 07:39:13 2026\n"
		  "  cpu          : usr=2.60%, sys=30.50%, ctx=1487, majf=0, minf=43\n",
		  "garbage:1: job \"t\" has no read/write/trim results" },
		{ "fio-3.33\n{\n  \"fio version\" : \"fio-3.33\",\n  \"jobs\" : [\n    {\n      \"jobname\" : ",
		  "garbage:6:19: invalid fio JSON" },
		{ "{\n  \"fio version\" : \"fio-3.33\"\n}\n", "garbage:1: JSON without a \"jobs\" array" },
		{ "t: (groupid=0, jobs=1): err= 0: pid=1: Mon Nov 30 07:39:13 2026\n"
		  "  read: IOPS=10.2k, BW=1279MiB/s (1341MB/s)(1281MiB/1001msec)\n"
		  "    clat percentiles (usec):\n     |  1.00th=[   11],  5.00th=[\n",
		  "garbage:4: cannot read a percentile value" },
	};
	int bad = 0;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fioi_result r;
		char err[512] = "";

		if (!fioi_parse_buf("garbage", cases[i].text, strlen(cases[i].text), &r, err,
				    sizeof(err))) {
			fioi_free(&r);
			printf("# case %zu parsed\n", i);
			bad++;
		} else if (!strstr(err, cases[i].want)) {
			printf("# case %zu: '%s', want '%s'\n", i, err, cases[i].want);
			bad++;
		}
	}
	ok(!bad, "%zu broken inputs: errors name file:line (JSON: file:line:column)",
	   sizeof(cases) / sizeof(cases[0]));

	/* a paste cut off in the middle of the fixture */
	{
		size_t len;
		char *buf = iogap_read_file(fixture("nvme-passthrough-baremetal.txt"), 0, &len), err[512] = "";
		char *cut = buf ? strstr(buf, "    clat (nsec): min=450") : NULL;
		struct fioi_result r;

		if (cut)
			cut[strlen("    clat (nsec): min=450")] = '\0';
		ok(cut && fioi_parse_buf("cut.txt", buf, strlen(buf), &r, err, sizeof(err)) &&
		   strstr(err, "cut.txt:17: expected min=, max="), "truncated fixture: %s", err);
		free(buf);
	}
}

/* probe.json of a text import: the stated numbers, fio's schema */
static void test_text_probe_json(void)
{
	struct fioi_result r;
	char err[512], *out = NULL;
	size_t len = 0;
	struct jp_value v;
	FILE *m;

	fioi_parse_file(fixture("nvme-passthrough-vm.txt"), &r, err, sizeof(err));
	m = open_memstream(&out, &len);
	ok(!fioi_write_json(&r, m, err, sizeof(err)), "probe.json written: %s", err);
	fclose(m);
	if (!ok(!jp_parse(out, len, false, &v, NULL, err, sizeof(err)), "probe.json parses: %s", err))
		return;
	ok(!strcmp(jp_str(jp_get(&v, "fio version")), "fio-3.1") &&
	   jp_u64(jp_path(jp_get(&v, "jobs")->items, "read/total_ios"), 0) == 839283 &&
	   eq(jp_num(jp_path(jp_get(&v, "jobs")->items, "read/iops"), 0), 839283 / 120.0, 1e-6),
	   "version, total_ios, iops = total/runtime (6994.025)");
	ok(jp_u64(jp_path(jp_get(&v, "jobs")->items, "read/clat_ns/percentile/99.990000"), 0) == 18560 &&
	   eq(jp_num(jp_path(jp_get(&v, "jobs")->items, "read/slat_ns/mean"), 0), 115270, 1e-6) &&
	   !jp_path(jp_get(&v, "jobs")->items, "read/slat_ns/percentile"),
	   "clat_ns.percentile as given, slat mean 115270 ns, no invented percentiles");
	ok(eq(jp_num(jp_path(jp_get(&v, "jobs")->items, "sys_cpu"), 0), 28.37, 1e-9) &&
	   eq(jp_num(jp_path(jp_get(&v, "jobs")->items, "latency_us/2"), 0), 51.56, 1e-9) &&
	   !strcmp(jp_str(jp_path(jp_get(&v, "jobs")->items, "job options/readwrite")), "randrw"),
	   "cpu, latency buckets and job options from the command line");
	jp_free(&v);
	free(out);
	fioi_free(&r);
}

int main(void)
{
	tap_plan(70);
	test_json_parser();
	test_fixture_bare();
	test_fixture_vm();
	test_text_vs_json();
	test_json_round_trip("fio333-multi.json", FIOI_JSON);
	test_json_round_trip("fio333-multi.jsonplus", FIOI_JSONPLUS);
	test_json_round_trip("fio333-psync-qd8.out", FIOI_JSON);
	test_multi_text();
	test_fio2();
	test_errors();
	test_text_probe_json();
	return tap_done();
}
