/* SPDX-License-Identifier: MIT */
/*
 * `iogap passthrough check --bare OUT --vm OUT`: can a bare-metal and a VM
 * fio output of the same device be compared, and if so, is the VM within
 * the user's thresholds?  Validity is lint's (presentation.h): any lint
 * warning makes the comparison invalid unless forced.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fio_import.h"
#include "presentation.h"
#include "pt.h"

struct lint_sink {
	struct pt *p;
	char reasons[1024];
	bool invalid;
};

/* What makes a comparison invalid, in a verdict's words, by lint code. */
static const char *reason_of(const char *code)
{
	static const char *const r[][2] = {
		{ "buffered-async", "the runs were buffered (direct=0): libaio/io_uring then "
		  "complete each request inside the submit call, so the device time shows as "
		  "slat and the sides compare page-cache paths, not the device; run both with "
		  "direct=1" },
		{ "cache-working-set", "the runs were buffered (direct=0) over a working set that "
		  "fits in RAM: they measure the page cache, not the device; run both with "
		  "direct=1" },
		{ "cache-hits", "the runs were buffered (direct=0): completions this fast come from "
		  "the page cache, not the device; run both with direct=1" },
		{ "sides-differ", "the two sides ran different workloads; run the identical job" },
		{ "engine-differs", "the two sides used different I/O engines; use the same" },
		{ "jobs-differ", "the two sides ran different job lists; use the same job file" },
		{ "version-differs", "the two sides ran different fio versions; use the same" },
		{ "sync-iodepth", "a synchronous engine ignored iodepth; use libaio/io_uring" },
		{ "few-samples", "too few samples for the percentiles; run longer" },
		{ "cpu-saturated", "fio itself was CPU-bound; add jobs or compare at a set rate" },
		{ "job-error", "a job failed; fix it and run again" },
	};

	for (size_t i = 0; i < sizeof(r) / sizeof(r[0]); i++)
		if (!strcmp(code, r[i][0]))
			return r[i][1];
	return code;
}

static void take_lint(void *ctx, int level, const char *code, const char *msg, const char *why,
		      const char *todo)
{
	struct lint_sink *s = ctx;
	const char *reason = reason_of(code);
	size_t o = strlen(s->reasons);

	/* too few samples for some percentile: the verdict checks its own ones */
	if (!strcmp(code, "few-samples"))
		level = 0;
	pt_finding(s->p, level >= 2 ? PT_ERROR : level ? PT_WARNING : PT_INFO, code, why, todo,
		   "%s", msg);
	if (level < 1)
		return;
	s->invalid = true;
	/* buffered-async, cache-hits, cache-working-set: one reason, said once */
	if (!strstr(s->reasons, reason) && !(strstr(s->reasons, "buffered (direct=0)") &&
					     strstr(reason, "buffered (direct=0)")) &&
	    o < sizeof(s->reasons))
		snprintf(s->reasons + o, sizeof(s->reasons) - o, "%s%s", o ? "; " : "", reason);
}

/* The percentile pct of a direction: of total latency when fio printed its
 * percentiles (lat_percentiles=1), else of completion latency; -1 none. */
static double percentile(const struct fioi_dir *d, double pct, const char **which)
{
	int k = d->pct_nr[2] ? 2 : 1;

	*which = k == 2 ? "lat" : "clat";
	for (unsigned i = 0; i < d->pct_nr[k]; i++)
		if (fabs(d->pct[k][i].p - pct) < 1e-6)
			return (double)d->pct[k][i].ns;
	return -1;
}

static uint64_t samples(const struct fioi_dir *d)
{
	return d->lat[1].n ? d->lat[1].n : d->total_ios;
}

/* Enough samples for percentile pct: at least 10 beyond it (lint's rule). */
static bool enough(const struct fioi_dir *d, double pct)
{
	return (double)samples(d) >= 10.0 / (1.0 - pct / 100.0);
}

/* One job, direction and percentile against its threshold; true if within. */
static bool judge(struct pt *p, const char *job, const char *dir, double pct,
		  const struct fioi_dir *bare, const struct fioi_dir *vm, const struct pt_within *w)
{
	const char *kb, *kv;
	double b = percentile(bare, pct, &kb), v = percentile(vm, pct, &kv), gap = v - b;

	if (b >= 0 && v >= 0 && !strcmp(kb, kv) && (!enough(bare, pct) || !enough(vm, pct))) {
		const struct fioi_dir *few = enough(bare, pct) ? vm : bare;

		pt_finding(p, PT_WARNING, "few-samples-judged", "a percentile p rests on the slowest "
			   "(1-p/100) of the samples; fewer than 10/(1-p/100) samples leave it to "
			   "fewer than 10 requests: noise", "run longer, or judge a lower percentile",
			   "job '%s' %s: p%g from %llu samples %s", job, dir, pct,
			   (unsigned long long)samples(few), few == bare ? "on bare metal" : "in the VM");
		return false;
	}
	if (b < 0 || v < 0 || strcmp(kb, kv)) {
		pt_finding(p, PT_WARNING, "no-percentile", "the threshold is on a percentile both "
			   "outputs must print", "keep fio's default percentile_list (or add the "
			   "percentile), and the same lat_percentiles setting on both sides",
			   "job '%s' %s: p%g not printed by both sides (as the same latency)", job,
			   dir, pct);
		return false;
	}
	if (gap <= w->abs_ns || gap <= w->pct / 100.0 * b) {
		pt_finding(p, PT_INFO, "within", "the VM's latency is within the threshold set",
			   "nothing", "job '%s' %s: %s p%g %.2f us in the VM, %.2f us on bare metal "
			   "(%+.2f us, %+.1f%%): within %.2f us or %.1f%%", job, dir, kv, pct, v / 1e3,
			   b / 1e3, gap / 1e3, b > 0 ? 100.0 * gap / b : 0.0, w->abs_ns / 1e3, w->pct);
		return true;
	}
	pt_finding(p, PT_WARNING, "beyond", "the VM's latency exceeds the threshold set: the "
		   "passthrough path adds more than allowed",
		   "look at the host setup (iogap passthrough check --domain/--qemu-pid) and the "
		   "guest (--guest): interrupts, placement, hugepages",
		   "job '%s' %s: %s p%g %.2f us in the VM, %.2f us on bare metal (%+.2f us, %+.1f%%): "
		   "beyond %.2f us and %.1f%%", job, dir, kv, pct, v / 1e3, b / 1e3, gap / 1e3,
		   b > 0 ? 100.0 * gap / b : 0.0, w->abs_ns / 1e3, w->pct);
	return false;
}

/* Every job of the VM side against its bare-metal namesake (else the same
 * index); false if any is beyond or cannot be judged. */
static bool judge_all(struct pt *p, const struct fioi_result *bare, const struct fioi_result *vm,
		      const struct pt_within *p50, const struct pt_within *p99, unsigned *judged)
{
	static const char *const dirs[IOGAP_DDIR_NR] = { "read", "write", "trim" };
	bool ok = true;

	*judged = 0;
	for (size_t i = 0; i < vm->nr; i++) {
		const struct fioi_job *jv = &vm->jobs[i], *jb = i < bare->nr ? &bare->jobs[i] : NULL;

		for (size_t k = 0; k < bare->nr; k++)
			if (!strcmp(bare->jobs[k].name, jv->name))
				jb = &bare->jobs[k];
		for (int d = 0; jb && d < IOGAP_DDIR_NR; d++) {
			if (!jv->dir[d].have || !jb->dir[d].have ||
			    (!jv->dir[d].total_ios && !jb->dir[d].total_ios))
				continue;
			if (p50->set)
				ok &= judge(p, jv->name, dirs[d], 50, &jb->dir[d], &jv->dir[d], p50);
			if (p99->set)
				ok &= judge(p, jv->name, dirs[d], 99, &jb->dir[d], &jv->dir[d], p99);
			(*judged)++;
		}
	}
	return ok && *judged;
}

int pt_lint_jobs(struct pt *p, const char *const *jobs, size_t n, char *verdict, size_t vn)
{
	struct lint_sink ls = { .p = p };
	char err[1024];

	if (iogap_lint_jobfiles(jobs, n, take_lint, &ls, err, sizeof(err))) {
		fprintf(stderr, "iogap passthrough: %s\n", err);
		return -1;
	}
	if (ls.invalid)
		snprintf(verdict, vn, "comparison invalid: %s (lint's findings above say why and what "
			 "to do; nothing was run; --force runs and compares anyway)", ls.reasons);
	return ls.invalid;
}

/* Two parsed outputs, bare metal and VM, named for messages: lint's
 * findings, then each job and direction against the thresholds. */
static void judge_outputs(struct pt *p, const struct fioi_result r[2], const char *const what[2],
			  const struct pt_within *p50, const struct pt_within *p99, bool force,
			  char *verdict, size_t n)
{
	const struct fioi_result *rp[2] = { &r[0], &r[1] };
	struct lint_sink ls = { .p = p };
	/* QD1 p50 within 5 µs or 10% when no threshold is given */
	const struct pt_within def = { .set = true, .abs_ns = 5e3, .pct = 10 };
	unsigned judged;
	bool ok;

	if (!p50->set && !p99->set)
		p50 = &def;
	pt_finding(p, PT_INFO, "sides", "the VM's output is judged against bare metal's",
		   "if the sides are swapped, label them 'Bare metal:' and 'VM:'",
		   "bare metal: '%s'; VM: '%s'", what[0], what[1]);
	iogap_lint_results(rp, what, 2, 0, take_lint, &ls);
	if (ls.invalid && !force) {
		snprintf(verdict, n, "comparison invalid: %s (lint's findings above say why and what "
			 "to do; --force compares anyway)", ls.reasons);
		return;
	}
	ok = judge_all(p, &r[0], &r[1], p50, p99, &judged);
	snprintf(verdict, n, "%s%s", ls.invalid ? "comparison invalid, compared anyway "
		 "(--force): " : "", !judged ? "fail: no job and direction on both sides" :
		 ok ? "pass: the VM is within the thresholds" :
		 "fail: the VM is beyond a threshold (or one could not be judged)");
	if (!judged || !ok || ls.invalid)
		p->worst = p->worst < PT_WARNING ? PT_WARNING : p->worst;
}

int pt_check_fio(struct pt *p, const char *bare, const char *vm, const struct pt_within *p50,
		 const struct pt_within *p99, bool force, char *verdict, size_t n)
{
	struct fioi_result r[2];
	const char *what[2] = { bare, vm };
	char err[1024];

	memset(r, 0, sizeof(r));
	for (int i = 0; i < 2; i++)
		if (fioi_parse_file(what[i], &r[i], err, sizeof(err))) {
			fprintf(stderr, "iogap passthrough: %s\n", err);
			fioi_free(&r[0]);
			return -1;
		}
	judge_outputs(p, r, what, p50, p99, force, verdict, n);
	fioi_free(&r[0]);
	fioi_free(&r[1]);
	return 0;
}

int pt_check_paste(struct pt *p, const char *file, const struct pt_within *p50,
		   const struct pt_within *p99, bool force, char *verdict, size_t n)
{
	struct fioi_result r[2];
	char names[2][80], err[1024];
	const char *what[2] = { names[0], names[1] };

	memset(r, 0, sizeof(r));
	if (pt_parse_paste(file, r, names, err, sizeof(err))) {
		fprintf(stderr, "iogap passthrough: %s\n", err);
		return -1;
	}
	judge_outputs(p, r, what, p50, p99, force, verdict, n);
	fioi_free(&r[0]);
	fioi_free(&r[1]);
	return 0;
}
