/* SPDX-License-Identifier: MIT */
/*
 * mkrun: synthetic run directories for the report/compare tests and
 * bench/report-throughput, written with the project's own writers.
 *
 *   mkrun --dir D [--seed S] [--vm N] [--bare-seconds T] [--scale F]
 *         [--mean-ns M] [--spec SPEC]
 *
 * --vm N: a VM side of N requests from tests/align/synth.h (known clock
 *   offset and drift, known stage latencies, write tags): vm/probe.trace,
 *   vm/top.trace, vm/bottom.trace, vm/sync-*.txt,
 *   vm/probe.json; stage truth printed as "truth STAGE MEAN_NS".
 * --bare-seconds T: a bare-metal side, QD1 closed loop for T seconds, each
 *   request 20 us + exponential(M) ns, times F (--scale): bare/probe.trace
 *   and bare/probe.json (fio JSON with the same numbers).
 * --bare-iops R: the bare-metal side open loop instead, a request every 1/R s.
 * --matched-iops R: also bare-matched/ (as `iogap run --match-load`), open
 *   loop at R IOPS, same latencies.
 * --stall NS: the middle VM request starts NS earlier (one request far
 *   longer than the rest, as a device stall makes it).
 * --cpu hog|quiet: vm/cpuload.txt over the VM's host time: hog = every
 *   core busy each second; quiet = the host half busy, the vCPU thread at
 *   100% (as under TCG), the iothread at 20%.
 * Broken runs, for the completeness and run-id checks:
 * --open FILE: FILE (e.g. vm/top.trace) left without the COMPLETE flag;
 * --foreign FILE: FILE written with another run's id;
 * --phase NAME=STATUS: manifest.json's phases.NAME.status (repeatable).
 * --kernel-points SIDES: kernel points (docs/kernel-points.md) for the
 *   sides listed (of "vm", "bare", "vm_host", comma-separated):
 *   SIDE/kernel.trace (vm_host: vm/host-kernel.trace, the host kernel under
 *   QEMU), a kernel request per request, issued SUB ns after its start and
 *   completing RET ns before its completion (vm: the guest records, 3000 and
 *   4000 on the guest clock; vm_host: the bottom filter's records, 2000 and
 *   3000; bare: half its slat and 5000), except every 10th request (none:
 *   counted "none") and every 50th, recorded twice (counted "ambiguous");
 *   the manifest's kernel_points names them, and for one not listed says
 *   why "mkrun: not asked".  Without it nothing about kernel points is
 *   written.
 * --passthrough: the VM without filter nodes (`iogap run --passthrough`): no
 *   vm/top.trace or vm/bottom.trace, the manifest's vm.passthrough "nvme".
 * --buffered: the VM job's options in vm/probe.json say libaio at iodepth
 *   32 without direct=1 (buffered), vm.memory_mb 1024.
 * --filter-every K: only the filter records of every K-th offset (4 KiB
 *   units) are written, as when the guest's page cache absorbs the rest:
 *   about 1 in K VM requests pairs.
 * --rate-jobs FILE: then write FILE as `iogap run --match-load` would run it
 *   (iogap_rundir_rated_jobs) to D/job0.fio; prints "note ..." if any.
 * manifest.json gets target.spec = SPEC (compare groups runs by it) and
 * run_id 1234, the traces' id.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../align/synth.h"
#include "cpuload.h"
#include "json_writer.h"
#include "rundir.h"
#include "stats.h"
#include "trace_file.h"

#define RUN_ID 0x1234

static const char *dir;
static const char *open_file, *foreign_file;
static uint64_t stall_ns;
/* Clear the COMPLETE flag, as a writer that never closed leaves it. */
static int leave_open(const char *path)
{
	struct iogap_trace_header h;
	FILE *f = fopen(path, "r+b");
	int rc = -1;

	if (f && fread(&h, sizeof(h), 1, f) == 1) {
		h.flags &= (uint16_t)~IOGAP_TRACE_F_COMPLETE;
		rc = fseek(f, 0, SEEK_SET) || fwrite(&h, sizeof(h), 1, f) != 1 ? -1 : 0;
	}
	if (f && fclose(f))
		rc = -1;
	return rc;
}

/* A trace written chunk by chunk: opened with the first chunk (the header
 * names the first record's start), closed with the last completion. */
struct trace_out {
	const char *name, *layer, *info;
	uint16_t producer, clock;
	char path[4096];
	struct iogap_trace_writer *w;
	uint64_t end_ns;
};

static int trace_open(struct trace_out *o, uint64_t start_ns)
{
	char err[512];
	struct iogap_trace_header h;

	memset(&h, 0, sizeof(h));
	h.producer = o->producer;
	h.clock = o->clock;
	h.run_id = foreign_file && !strcmp(o->name, foreign_file) ? 0xbad0bad0 : RUN_ID;
	snprintf((char *)h.layer, sizeof(h.layer), "%s", o->layer);
	h.start_ns = start_ns;
	snprintf(o->path, sizeof(o->path), "%s/%s", dir, o->name);
	o->w = iogap_trace_writer_open(o->path, &h, o->info, err, sizeof(err));
	if (!o->w)
		fprintf(stderr, "mkrun: %s\n", err);
	return o->w ? 0 : -1;
}

static int trace_append(struct trace_out *o, const struct iogap_trace_record *r, size_t n)
{
	if (!n)
		return 0;
	if (!o->w && trace_open(o, r[0].start_ns))
		return -1;
	for (size_t i = 0; i < n; i += 65536)
		if (iogap_trace_writer_append(o->w, r + i, n - i < 65536 ? n - i : 65536)) {
			fprintf(stderr, "mkrun: %s: append failed\n", o->path);
			return -1;
		}
	o->end_ns = r[n - 1].complete_ns;
	return 0;
}

static int trace_close(struct trace_out *o)
{
	char err[512];

	if (!o->w && trace_open(o, 0))
		return -1;
	if (iogap_trace_writer_close(o->w, o->end_ns, 0, err, sizeof(err))) {
		fprintf(stderr, "mkrun: %s\n", err);
		return -1;
	}
	return open_file && !strcmp(o->name, open_file) ? leave_open(o->path) : 0;
}

static const char *kernel_sides;   /* --kernel-points */
static bool passthrough;           /* --passthrough: no filter traces */
static bool buffered;              /* --buffered */
static unsigned filter_every = 1;  /* --filter-every */

/* The filter records of r[0..n) that --filter-every keeps, into out. */
static size_t filter_kept(const struct iogap_trace_record *r, size_t n,
			  struct iogap_trace_record *out)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if ((r[i].offset / 4096) % filter_every == 0)
			out[k++] = r[i];
	return k;
}

/* A chunk of filter records appended, thinned by --filter-every. */
static int filter_append(struct trace_out *o, const struct iogap_trace_record *r, size_t n)
{
	struct iogap_trace_record *kept;
	int rc;

	if (filter_every == 1)
		return trace_append(o, r, n);
	if (!(kept = malloc((n ? n : 1) * sizeof(*kept))))
		return -1;
	rc = trace_append(o, kept, filter_kept(r, n, kept));
	free(kept);
	return rc;
}

/* A side's kernel requests, sorted by completion when written (as the
 * probe's kernel trace has them). */
struct kernel_out {
	struct iogap_trace_record *k;
	size_t n, cap, seq;
};

static bool kernel_wanted(const char *side)
{
	size_t l = strlen(side);

	for (const char *p = kernel_sides; p && (p = strstr(p, side)); p += l)
		if ((p == kernel_sides || p[-1] == ',') && (p[l] == ',' || !p[l]))
			return true;
	return false;
}

static int kernel_push(struct kernel_out *ko, const struct iogap_trace_record *k)
{
	if (ko->n == ko->cap) {
		size_t cap = ko->cap ? 2 * ko->cap : 4096;
		struct iogap_trace_record *nk = realloc(ko->k, cap * sizeof(*nk));

		if (!nk)
			return -1;
		ko->k = nk;
		ko->cap = cap;
	}
	ko->k[ko->n++] = *k;
	return 0;
}

/* The kernel request(s) of request r: [start + sub, complete - ret]. */
static int kernel_add(struct kernel_out *ko, const struct iogap_trace_record *r, uint64_t sub,
		      uint64_t ret)
{
	struct iogap_trace_record k = { 0 };
	size_t seq = ko->seq++;

	if (seq % 10 == 9)
		return 0;
	k.op = r->op;
	k.offset = r->offset;
	k.length = r->length;
	k.result = (int32_t)r->length;
	k.start_ns = k.issue_ns = r->start_ns + sub;
	k.complete_ns = r->complete_ns - ret;
	return kernel_push(ko, &k) || (seq % 50 == 0 && kernel_push(ko, &k)) ? -1 : 0;
}

static int by_completion(const void *a, const void *b)
{
	const struct iogap_trace_record *x = a, *y = b;

	return (x->complete_ns > y->complete_ns) - (x->complete_ns < y->complete_ns);
}

static int kernel_write(struct kernel_out *ko, const char *file, uint16_t producer,
			uint16_t clock)
{
	char name[64];
	struct trace_out out = {
		.name = name, .layer = producer == IOGAP_PRODUCER_PROBE_GUEST ? "guest-kernel" :
				       "bare-kernel",
		.producer = producer, .clock = clock,
		.info = "tool=mkrun kernel points\nsource=mkrun\nstamp_resolution_ns=1\n"
			"target=x\ntarget_kind=disk\ndevice=254:0\nsector_base=0\n",
	};
	int rc;

	snprintf(name, sizeof(name), "%s", file);
	qsort(ko->k, ko->n, sizeof(*ko->k), by_completion);
	rc = trace_append(&out, ko->k, ko->n) || trace_close(&out) ? -1 : 0;
	free(ko->k);
	memset(ko, 0, sizeof(*ko));
	return rc;
}

/* fio JSON's numbers (the subset compare and report read), gathered chunk
 * by chunk */
struct fio_acc {
	uint64_t hist[2][3][IOGAP_PLAT_NR];
	struct iogap_io_stat st[2][3];
	uint64_t bytes[2], first, last;
};

static void fio_add(struct fio_acc *a, const struct iogap_trace_record *r, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int d = r[i].op;
		uint64_t v[3] = { r[i].issue_ns - r[i].start_ns, r[i].complete_ns - r[i].issue_ns,
				  r[i].complete_ns - r[i].start_ns };

		if (d > 1 || r[i].flags & IOGAP_REC_RAMP)
			continue;
		for (int k = 0; k < 3; k++) {
			iogap_io_stat_add(&a->st[d][k], v[k]);
			a->hist[d][k][iogap_plat_val_to_idx(v[k])]++;
		}
		a->bytes[d] += r[i].length;
		if (r[i].start_ns < a->first)
			a->first = r[i].start_ns;
		if (r[i].complete_ns > a->last)
			a->last = r[i].complete_ns;
	}
}

static int write_fio_json(const char *name, const struct fio_acc *a, const char *jobname)
{
	char path[4096];
	static const double pl[] = { 1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 99.5, 99.9,
				     99.95, 99.99 };
	static const char *const kind[3] = { "slat_ns", "clat_ns", "lat_ns" };
	static const char *const dk[2] = { "read", "write" };
	struct jw w;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		return -1;
	w = (struct jw){ .f = f };
	jw_obj(&w, NULL);
	jw_str(&w, "fio version", "mkrun");
	jw_obj(&w, "global options");
	jw_str(&w, "ioengine", "synthetic");
	jw_end(&w);
	jw_open(&w, "jobs", '[');
	jw_obj(&w, NULL);
	jw_str(&w, "jobname", jobname);
	jw_int(&w, "groupid", 0);
	if (buffered && !strcmp(name, "vm/probe.json")) {
		jw_obj(&w, "job options");
		jw_str(&w, "rw", "randrw");
		jw_str(&w, "ioengine", "libaio");
		jw_str(&w, "iodepth", "32");
		jw_end(&w);
	}
	for (int d = 0; d < 2; d++) {
		double rt = a->last > a->first ? (double)(a->last - a->first) / 1e9 : 1;

		jw_obj(&w, dk[d]);
		jw_u64(&w, "io_bytes", a->bytes[d]);
		jw_float(&w, "bw_bytes", (double)a->bytes[d] / rt);
		jw_float(&w, "iops", (double)a->st[d][2].samples / rt);
		jw_u64(&w, "runtime", (uint64_t)(rt * 1000));
		jw_u64(&w, "total_ios", a->st[d][2].samples);
		for (int k = 0; k < 3; k++) {
			const struct iogap_io_stat *st = &a->st[d][k];
			uint64_t pv[17];

			jw_obj(&w, kind[k]);
			jw_u64(&w, "min", st->samples ? st->min_val : 0);
			jw_u64(&w, "max", st->max_val);
			jw_float(&w, "mean", st->mean);
			jw_float(&w, "stddev", iogap_io_stat_stddev(st));
			jw_u64(&w, "N", st->samples);
			if (k == 1 && st->samples) {
				iogap_plat_percentiles(a->hist[d][k], pl, 17, pv);
				jw_obj(&w, "percentile");
				for (int p = 0; p < 17; p++) {
					char key[32];

					snprintf(key, sizeof(key), "%f", pl[p]);
					jw_u64(&w, key, pv[p]);
				}
				jw_end(&w);
			}
			jw_end(&w);
		}
		jw_end(&w);
	}
	jw_end(&w);
	jw_close(&w, ']');
	jw_end(&w);
	fputc('\n', f);
	return fclose(f);
}

/* A bare-metal side: closed loop (QD1, the next request 300 ns after the
 * last completion) or, with iops > 0, open loop at that rate. */
static int write_bare(const char *side, uint64_t seed, double secs, double iops, uint64_t mean_ns,
		      double scale)
{
	uint64_t rs = seed * 0x9e3779b97f4a7c15ull + 7, t = 1000000000000ull, end;
	size_t cap = 1 << 16, n = 0, total = 0;
	struct iogap_trace_record *r = malloc(cap * sizeof(*r));
	struct fio_acc *acc = calloc(1, sizeof(*acc));
	struct kernel_out ko = { 0 };
	bool kp = !strcmp(side, "bare") && kernel_wanted("bare");
	char path[4096], name[4096];
	struct trace_out out = {
		.name = name, .layer = "bare", .producer = IOGAP_PRODUCER_PROBE_BARE,
		.clock = IOGAP_CLOCK_HOST_MONOTONIC,
		.info = "tool=mkrun\njob.0=name=mixed rw=randrw ioengine=synthetic iodepth=1 "
			"numjobs=1 filename=x\n",
	};
	int rc = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, side);
	mkdir(path, 0755);
	snprintf(name, sizeof(name), "%s/probe.trace", side);
	if (!r || !acc)
		rc = -1;
	else
		acc->first = UINT64_MAX;
	end = t + (uint64_t)(secs * 1e9);
	while (!rc && t < end) {
		uint64_t slat = 500 + synth_rand(&rs) % 200;
		uint64_t clat = (uint64_t)((20000.0 + -log(synth_u01(&rs)) * (double)mean_ns) * scale);

		memset(&r[n], 0, sizeof(r[n]));
		r[n].tag = total + 1;
		r[n].offset = (synth_rand(&rs) % 262144) * 4096;
		r[n].length = 4096;
		r[n].result = 4096;
		r[n].start_ns = t;
		r[n].issue_ns = t + slat;
		r[n].complete_ns = t + slat + clat;
		r[n].op = synth_u01(&rs) < 0.5 ? IOGAP_OP_READ : IOGAP_OP_WRITE;
		r[n].thread = 1;
		t = iops > 0 ? t + (uint64_t)(1e9 / iops) : r[n].complete_ns + 300;
		if (kp && kernel_add(&ko, &r[n], slat / 2, 5000))
			rc = -1;
		total++;
		if (++n == cap || t >= end) {
			fio_add(acc, r, n);
			rc = trace_append(&out, r, n);
			n = 0;
		}
	}
	rc = rc || trace_close(&out);
	if (kp)
		rc = rc || kernel_write(&ko, "bare/kernel.trace", IOGAP_PRODUCER_PROBE_BARE,
					IOGAP_CLOCK_HOST_MONOTONIC);
	snprintf(path, sizeof(path), "%s/probe.json", side);
	rc = rc || write_fio_json(path, acc, "mixed");
	printf("%s records %zu\n", side, total);
	free(r);
	free(acc);
	return rc;
}

/* vm/cpuload.txt over [first, last] on the host clock, one line a second. */
static int write_cpuload(const char *kind, uint64_t first, uint64_t last)
{
	char path[4096];
	FILE *f;
	bool hog = !strcmp(kind, "hog");

	if (!hog && strcmp(kind, "quiet"))
		return -1;
	snprintf(path, sizeof(path), "%s/vm/cpuload.txt", dir);
	f = fopen(path, "w");
	if (!f)
		return -1;
	iogap_cpuload_write_header(f, 2);
	iogap_cpuload_write_task(f, 0, 100, 101, "vcpu", "CPU 0/TCG");
	iogap_cpuload_write_task(f, 1, 100, 102, "iothread", "IO iothread0");
	for (uint64_t t = first - 1000000; t <= last; t += 1000000000ull) {
		iogap_cpuload_write_sec(f, t, t + 1000000000ull, hog ? 100.0 : 55.0);
		iogap_cpuload_write_use(f, 0, 100.0);
		iogap_cpuload_write_use(f, 1, 20.0);
	}
	return fclose(f);
}

/* The VM side, a million requests at a time (runs larger than memory for
 * bench/report-throughput); *records: guest + top + bottom records,
 * span: the first top record's entry and the last one's exit. */
static int write_vm(const struct synth_cfg *c, struct synth *s, const char *info,
		    size_t *records, uint64_t span[2])
{
	struct trace_out out[3] = {
		{ .name = "vm/probe.trace", .layer = "guest", .info = info,
		  .producer = IOGAP_PRODUCER_PROBE_GUEST, .clock = IOGAP_CLOCK_GUEST_MONOTONIC },
		{ .name = "vm/top.trace", .layer = "top", .info = "producer=mkrun\n",
		  .producer = IOGAP_PRODUCER_FILTER, .clock = IOGAP_CLOCK_HOST_MONOTONIC },
		{ .name = "vm/bottom.trace", .layer = "bottom", .info = "producer=mkrun\n",
		  .producer = IOGAP_PRODUCER_FILTER, .clock = IOGAP_CLOCK_HOST_MONOTONIC },
	};
	struct fio_acc *acc = calloc(1, sizeof(*acc));
	struct kernel_out ko = { 0 }, hko = { 0 };
	size_t ng = 0;
	char path[4096];
	int rc = !acc || synth_begin(c, s, c->n < 1000000 ? c->n : 1000000) ? -1 : 0;

	if (acc)
		acc->first = UINT64_MAX;
	while (!rc && synth_next(c, s)) {
		if (!ng)
			span[0] = s->t[0].start_ns;
		span[1] = s->t[s->nt - 1].complete_ns;
		if (stall_ns && ng <= c->n / 2 && c->n / 2 < ng + s->ng)
			s->g[c->n / 2 - ng].start_ns -= stall_ns;
		ng += s->ng;
		for (size_t i = 0; kernel_wanted("vm") && i < s->ng && !rc; i++)
			rc = kernel_add(&ko, &s->g[i], 3000, 4000);
		for (size_t i = 0; kernel_wanted("vm_host") && i < s->nb && !rc; i++)
			rc = kernel_add(&hko, &s->b[i], 2000, 3000);
		*records += s->ng + s->nt + s->nb;
		fio_add(acc, s->g, s->ng);
		rc = trace_append(&out[0], s->g, s->ng) ||
		     (!passthrough && (filter_append(&out[1], s->t, s->nt) ||
				       filter_append(&out[2], s->b, s->nb)));
	}
	rc = rc || trace_close(&out[0]) ||
	     (!passthrough && (trace_close(&out[1]) || trace_close(&out[2]))) ||
	     write_fio_json("vm/probe.json", acc, "mixed");
	if (kernel_wanted("vm"))
		rc = rc || kernel_write(&ko, "vm/kernel.trace", IOGAP_PRODUCER_PROBE_GUEST,
					IOGAP_CLOCK_GUEST_MONOTONIC);
	if (kernel_wanted("vm_host"))
		rc = rc || kernel_write(&hko, "vm/host-kernel.trace", IOGAP_PRODUCER_PROBE_BARE,
					IOGAP_CLOCK_HOST_MONOTONIC);
	free(acc);
	if (rc)
		return -1;
	synth_end(c, s);
	snprintf(path, sizeof(path), "%s/vm/sync-before.txt", dir);
	if (iogap_sync_save(path, s->sa, s->nsa))
		return -1;
	snprintf(path, sizeof(path), "%s/vm/sync-after.txt", dir);
	if (iogap_sync_save(path, s->sb, s->nsb))
		return -1;
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t seed = 1, mean_ns = 80000;
	size_t nvm = 0;
	double bare_s = 0, scale = 1.0;
	const char *spec = "synthetic", *cpu = NULL, *phase[8], *rate_jobs = NULL;
	double bare_iops = 0, matched_iops = 0;
	size_t nphase = 0;
	struct synth_cfg synth_cfg0;
	char path[4096];
	FILE *f;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--dir") && i + 1 < argc)
			dir = argv[++i];
		else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			seed = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--vm") && i + 1 < argc)
			nvm = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--bare-seconds") && i + 1 < argc)
			bare_s = atof(argv[++i]);
		else if (!strcmp(argv[i], "--scale") && i + 1 < argc)
			scale = atof(argv[++i]);
		else if (!strcmp(argv[i], "--mean-ns") && i + 1 < argc)
			mean_ns = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--spec") && i + 1 < argc)
			spec = argv[++i];
		else if (!strcmp(argv[i], "--bare-iops") && i + 1 < argc)
			bare_iops = atof(argv[++i]);
		else if (!strcmp(argv[i], "--matched-iops") && i + 1 < argc)
			matched_iops = atof(argv[++i]);
		else if (!strcmp(argv[i], "--stall") && i + 1 < argc)
			stall_ns = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--cpu") && i + 1 < argc)
			cpu = argv[++i];
		else if (!strcmp(argv[i], "--open") && i + 1 < argc)
			open_file = argv[++i];
		else if (!strcmp(argv[i], "--foreign") && i + 1 < argc)
			foreign_file = argv[++i];
		else if (!strcmp(argv[i], "--kernel-points") && i + 1 < argc)
			kernel_sides = argv[++i];
		else if (!strcmp(argv[i], "--passthrough"))
			passthrough = true;
		else if (!strcmp(argv[i], "--buffered"))
			buffered = true;
		else if (!strcmp(argv[i], "--filter-every") && i + 1 < argc &&
			 (filter_every = (unsigned)strtoul(argv[i + 1], NULL, 0)))
			i++;
		else if (!strcmp(argv[i], "--rate-jobs") && i + 1 < argc)
			rate_jobs = argv[++i];
		else if (!strcmp(argv[i], "--phase") && i + 1 < argc && nphase < 8)
			phase[nphase++] = argv[++i];
		else {
			fprintf(stderr, "usage: mkrun --dir D [--seed S] [--vm N] [--bare-seconds T] "
				"[--scale F] [--mean-ns M] [--spec SPEC] [--bare-iops R] "
				"[--matched-iops R] [--stall NS] [--cpu hog|quiet] [--open FILE] [--foreign FILE] "
				"[--phase NAME=STATUS]... [--kernel-points vm,bare,vm_host] [--passthrough] "
				"[--buffered] [--filter-every K]\n");
			return 2;
		}
	}
	if (!dir)
		return 2;
	mkdir(dir, 0755);
	synth_default(&synth_cfg0);   /* the VM side's clock offset, for the manifest */
	snprintf(path, sizeof(path), "%s/manifest.json", dir);
	f = fopen(path, "w");
	if (!f)
		return 1;
	fprintf(f, "{\n  \"iogap\" : \"mkrun\",\n  \"run_id\" : \"%016x\",\n  \"target\" : "
		"{\n    \"spec\" : \"%s\"\n  },\n  \"vm\" : {\n    \"accel\" : \"synthetic\"%s%s\n  },\n"
		"  \"clock\" : {\n    \"offset_ns\" : %" PRId64 "\n  },\n  \"phases\" : {", RUN_ID, spec,
		passthrough ? ",\n    \"passthrough\" : \"nvme\"" : "",
		buffered ? ",\n    \"memory_mb\" : 1024" : "", (int64_t)synth_cfg0.off0);
	for (size_t i = 0; i < nphase; i++) {
		const char *eq = strchr(phase[i], '=');

		if (!eq)
			return 2;
		fprintf(f, "%s\n    \"%.*s\" : { \"status\" : \"%s\", \"message\" : \"mkrun\" }",
			i ? "," : "", (int)(eq - phase[i]), phase[i], eq + 1);
	}
	fprintf(f, "\n  }");
	if (kernel_sides) {
		static const char *const kp[][2] = { { "vm", "vm/kernel.trace" },
						     { "bare", "bare/kernel.trace" },
						     { "vm_host", "vm/host-kernel.trace" } };

		fprintf(f, ",\n  \"kernel_points\" : {");
		for (int i = 0; i < 3; i++)
			fprintf(f, "%s\n    \"%s\" : { \"%s\" : \"%s\" }", i ? "," : "", kp[i][0],
				kernel_wanted(kp[i][0]) ? "trace" : "why",
				kernel_wanted(kp[i][0]) ? kp[i][1] : "mkrun: not asked");
		fprintf(f, "\n  }");
	}
	fprintf(f, "\n}\n");
	fclose(f);

	if (nvm) {
		struct synth_cfg c;
		struct synth s;
		size_t records = 0;
		uint64_t span[2] = { 0, 0 };
		const char *info = "tool=mkrun\njob.0=name=mixed rw=randrw ioengine=synthetic iodepth=1 "
				   "numjobs=1 filename=x\n";

		synth_default(&c);
		c.seed = seed;
		c.n = nvm;
		c.shuffle = 0;
		c.split_frac = 0.0;
		c.ramp_frac = 0.0;
		snprintf(path, sizeof(path), "%s/vm", dir);
		mkdir(path, 0755);
		if (write_vm(&c, &s, info, &records, span))
			return 1;
		printf("truth G->Q %.0f\ntruth Q.fmt %.0f\ntruth B %.0f\ntruth Q.ret %.0f\n"
		       "truth Q->G %.0f\n", (double)(c.g2q_base + c.g2q_mean),
		       (double)(c.fmt_base + c.fmt_mean), (double)(c.be_base + c.be_mean),
		       (double)(c.ret_base + c.ret_mean), (double)(c.q2g_base + c.q2g_mean));
		printf("records %zu\n", records);
		if (cpu && write_cpuload(cpu, span[0], span[1]))
			return 1;
		synth_free(&s);
	}
	if (bare_s > 0 && write_bare("bare", seed, bare_s, bare_iops, mean_ns, scale))
		return 1;
	if (rate_jobs) {
		char *out = NULL, note[512] = "", err[512];
		int rc = iogap_rundir_rated_jobs(dir, (char **)&rate_jobs, 1, dir, &out, note,
						 sizeof(note), err, sizeof(err));

		free(out);
		if (rc) {
			fprintf(stderr, "mkrun: %s\n", err);
			return 1;
		}
		if (note[0])
			printf("note %s\n", note);
	}
	if (bare_s > 0 && matched_iops > 0 &&
	    write_bare("bare-matched", seed + 1, bare_s, matched_iops, mean_ns, scale))
		return 1;
	return 0;
}
