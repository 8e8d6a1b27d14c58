/* SPDX-License-Identifier: MIT */
/*
 * The run directory's shared readers: the probe's job lines in the trace
 * info text (written and read back), a run's jobs and reporting units,
 * the manifest, the sides' table and the trace-header validator; and the
 * shared file and array helpers they use (engines/util.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../tap.h"
#include "jobs.h"
#include "manifest.h"
#include "sides.h"
#include "trace_file.h"
#include "trace_info.h"
#include "util.h"

static char dir[] = "/tmp/iogap-readers-XXXXXX";

static void write_file(const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void test_info_round_trip(void)
{
	struct iogap_job jobs[2] = {
		{ .name = "rand read", .filename = "/dev/x", .ioengine = "psync", .numjobs = 4,
		  .iodepth = 1, .rw = IOGAP_RW_READ | IOGAP_RW_RAND },
		{ .name = "w", .filename = "f", .ioengine = "libaio", .numjobs = 1, .iodepth = 8,
		  .rw = IOGAP_RW_WRITE },
	};
	struct iogap_job_list l = { .jobs = jobs, .nr = 2 };
	struct iogap_trace_job tj;
	char info[4096] = "tool=x\n";
	size_t n = iogap_trace_info_put_jobs(info, sizeof(info), strlen(info), &l);
	char small[600];

	ok(n == strlen(info) && strstr(info, "tool=x\njob.0=name=rand read rw=randread "),
	   "job lines appended after the writer's own");
	ok(!iogap_trace_info_job(info, 0, &tj) && !strcmp(tj.name, "rand read") &&
	   tj.numjobs == 4, "job 0 read back: name with a space, 4 clones");
	ok(!iogap_trace_info_job(info, 1, &tj) && !strcmp(tj.name, "w") && tj.numjobs == 1,
	   "job 1 read back");
	ok(iogap_trace_info_job(info, 2, &tj) == -1 && !strcmp(tj.name, "job2") &&
	   tj.numjobs == 1, "no line for job 2: -1, named job2, one clone");
	ok(iogap_trace_info_job(NULL, 0, &tj) == -1 && !strcmp(tj.name, "job0"),
	   "no info text: job0");
	ok(!iogap_trace_info_job("job.0=name=x numjobs=0\n", 0, &tj) && tj.numjobs == 1,
	   "numjobs=0 counts as one clone");
	ok(iogap_trace_info_put_jobs(small, sizeof(small), 100, &l) == 100,
	   "no job line once fewer than 512 bytes are left for the writer");
}

/* group_reporting: one JSON entry per group, named after its first job */
static void test_units(void)
{
	const char *info = "job.0=name=a rw=read numjobs=2\njob.1=name=b rw=read numjobs=1\n"
			   "job.2=name=c rw=read numjobs=1\n";
	const char *grouped = "{\"jobs\":[{\"jobname\":\"a\"},{\"jobname\":\"c\"}]}";
	const char *clones = "{\"jobs\":[{\"jobname\":\"a\"},{\"jobname\":\"a\"},"
			     "{\"jobname\":\"b\"},{\"jobname\":\"c\"}]}";
	struct jp_value v;
	struct iogap_jobs j;
	char err[256];

	jp_parse(grouped, strlen(grouped), false, &v, NULL, err, sizeof(err));
	ok(!iogap_jobs_from(info, jp_get(&v, "jobs"), 3, &j) && j.nunit == 2 &&
	   !strcmp(j.unit[0].name, "a") && !strcmp(j.unit[0].jobs, "0,1") &&
	   !strcmp(j.unit[1].jobs, "2") && j.unit_of[1] == 0 && j.unit_of[2] == 1,
	   "grouped: b joins a's unit");
	iogap_jobs_free(&j);
	jp_free(&v);
	jp_parse(clones, strlen(clones), false, &v, NULL, err, sizeof(err));
	ok(!iogap_jobs_from(info, jp_get(&v, "jobs"), 3, &j) && j.nunit == 3 &&
	   !strcmp(j.unit[1].name, "b") && j.unit_of[2] == 2,
	   "clones reported one by one: one unit per job");
	iogap_jobs_free(&j);
	jp_free(&v);
	ok(!iogap_jobs_from(NULL, NULL, 0, &j) && j.njob == 1 && j.nunit == 1 &&
	   !strcmp(j.unit[0].name, "job0"), "nothing known: one job, job0");
	iogap_jobs_free(&j);
}

static void test_manifest(void)
{
	struct iogap_manifest m;
	char err[512];

	ok(iogap_manifest_read(dir, &m, err, sizeof(err)) == -1 && !m.present &&
	   strstr(err, strerror(ENOENT)), "missing manifest: %s", err);
	write_file(IOGAP_MANIFEST_FILE, "{\"run_id\":");
	ok(iogap_manifest_read(dir, &m, err, sizeof(err)) == -1 && strstr(err, "line 1"),
	   "malformed manifest: %s", err);
	write_file(IOGAP_MANIFEST_FILE,
		   "{\"run_id\":\"00000000000000ff\",\"target\":{\"spec\":\"null:size=1G,"
		   "latency-ns=2500\"},\"vm\":{\"accel\":\"tcg\",\"memory_mb\":512,"
		   "\"inject_delay_ns\":7},\"clock\":{\"offset_ns\":-42},\"phases\":{"
		   "\"bare\":{\"status\":\"ok\",\"message\":\"\"},\"bare_matched\":"
		   "{\"status\":\"failed\",\"message\":\"why\"},\"x\":{\"imported\":{}}}}");
	ok(!iogap_manifest_read(dir, &m, err, sizeof(err)) && m.present && m.run_id == 0xff &&
	   !strcmp(m.accel, "tcg") && m.inject_delay_ns == 7 && m.null_latency_ns == 2500 &&
	   m.vm_memory_mb == 512 && m.clock_offset_ns == -42 &&
	   !strcmp(m.target_spec, "null:size=1G,latency-ns=2500"), "fields read");
	ok(m.phase[IOGAP_SIDE_BARE].status && !strcmp(m.phase[IOGAP_SIDE_BARE].status, "ok") &&
	   !m.phase[IOGAP_SIDE_VM].status &&
	   !strcmp(m.phase[IOGAP_SIDE_MATCHED].message, "why"),
	   "phases by side key (bare_matched), an absent one NULL");
	ok(iogap_manifest_imported(&m, "x") && !iogap_manifest_imported(&m, "bare"),
	   "an imported phase is told apart");
	iogap_manifest_free(&m);
}

static void test_sides(void)
{
	bool all = true;

	for (int s = 0; s < IOGAP_SIDES; s++)
		all = all && iogap_side_of_dir(iogap_side_dir[s]) == (enum iogap_side)s;
	ok(all && iogap_side_of_dir("fio") == IOGAP_SIDES &&
	   !strcmp(iogap_side_dir[IOGAP_SIDE_MATCHED], "bare-matched") &&
	   !strcmp(iogap_side_key[IOGAP_SIDE_MATCHED], "bare_matched"),
	   "each side's directory maps back to it; another name to none");
}

static void test_header_check(void)
{
	struct iogap_trace_header h = { .version = IOGAP_TRACE_VERSION,
					.header_size = sizeof(h),
					.record_size = sizeof(struct iogap_trace_record),
					.producer = IOGAP_PRODUCER_FILTER,
					.clock = IOGAP_CLOCK_HOST_MONOTONIC,
					.flags = IOGAP_TRACE_F_RING, .info_size = 0,
					.records_offset = 192, .record_count = 4 };
	uint64_t ring = 192 + sizeof(struct iogap_ring_control) +
			4 * sizeof(struct iogap_trace_record);
	char why[320];

	memcpy(h.magic, IOGAP_TRACE_MAGIC, IOGAP_TRACE_MAGIC_LEN);
	ok(!iogap_trace_header_check(&h, sizeof(h), ring, why, sizeof(why)) &&
	   !iogap_trace_ring_check(&h, ring, why, sizeof(why)), "a ring of 4 slots passes");
	ok(iogap_trace_ring_check(&h, ring - 1, why, sizeof(why)) == -1 &&
	   strstr(why, "truncated: ring header says 4 slots, file holds 3"), "%s", why);
	ok(iogap_trace_header_check(&h, 100, 100, why, sizeof(why)) == -1 &&
	   !strcmp(why, "truncated: file is 100 bytes, shorter than the 160-byte header"), "%s",
	   why);
	h.records_offset = 256;
	ok(iogap_trace_header_check(&h, sizeof(h), ring, why, sizeof(why)) == -1 &&
	   strstr(why, "records_offset 256 inconsistent"), "%s", why);
	h.records_offset = 192;
	h.version = 3;
	ok(iogap_trace_header_check(&h, sizeof(h), ring, why, sizeof(why)) == -1 &&
	   strstr(why, "trace format version 3, this reader knows 2"), "%s", why);
	h.magic[0] = 'X';
	ok(iogap_trace_header_check(&h, sizeof(h), ring, why, sizeof(why)) == -1 &&
	   strstr(why, "not an iogap trace"), "%s", why);
}

static void test_util(void)
{
	char from[256], to[256], err[512], *text = NULL;
	size_t cap = 0, len = 0;
	uint64_t *a = iogap_grow_zeroed(NULL, &cap, sizeof(*a), 20), *b;
	bool zero = a != NULL;

	for (size_t i = 0; a && i < cap; i++)
		zero = zero && !a[i];
	ok(a && cap == 32 && zero, "grown to fit index 20: 32 zeroed elements");
	if (a)
		a[20] = 7;
	b = iogap_grow_zeroed(a, &cap, sizeof(*a), 31);
	ok(b == a && cap == 32, "an index that fits: the same array");
	b = iogap_grow_zeroed(a, &cap, sizeof(*a), 32);
	ok(b && cap == 64 && b[20] == 7 && !b[63], "grown again: values kept, new ones zero");
	free(b ? b : a);

	snprintf(from, sizeof(from), "%s/%s", dir, IOGAP_MANIFEST_FILE);
	snprintf(to, sizeof(to), "%s/copy", dir);
	ok(!iogap_copy_file(from, to, err, sizeof(err)) &&
	   (text = iogap_read_file(to, 0, &len)) && strstr(text, "bare_matched"),
	   "copied: the copy holds the source's text");
	free(text);
	unlink(to);
	ok(iogap_copy_file(to, from, err, sizeof(err)) == -1 && strstr(err, to),
	   "a missing source names the file: %s", err);
}

int main(void)
{
	char path[256];

	if (!mkdtemp(dir))
		return 1;
	test_info_round_trip();
	test_units();
	test_manifest();
	test_sides();
	test_header_check();
	test_util();
	snprintf(path, sizeof(path), "%s/%s", dir, IOGAP_MANIFEST_FILE);
	unlink(path);
	rmdir(dir);
	tap_plan(tap_n);
	return tap_done();
}
