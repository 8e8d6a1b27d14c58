/* SPDX-License-Identifier: MIT */
/*
 * fio-compatible output: normal text, JSON and JSON+ (same keys and
 * nesting as fio 3.33), from the runner's per-job statistics.
 */
#ifndef IOGAP_OUTPUT_H
#define IOGAP_OUTPUT_H

#include <stdio.h>
#include <time.h>

#include "stats.h"

struct iogap_idle_prof;

struct iogap_run_report {
	struct iogap_job_stat *stats;     /* reported entries, in job order */
	size_t nr;
	struct iogap_group_stat *groups;  /* filled by iogap_group_stats_compute */
	size_t groups_nr;
	struct iogap_disk_util *disks;
	size_t disks_nr;
	time_t timestamp;                 /* end of run, for JSON "time" */
	uint64_t timestamp_ms;
	const char *version;              /* "iogap-probe-0.1.0" */
	int terse_version;                /* --terse-version 2..5; 0: fio's 3 */
	uint64_t elapsed_ms;              /* run start to end, JSON "elapsed";
					   * 0: derived from the job runtimes */
	/* [global] options for JSON "global options"; leading entries of a
	 * job's kv equal to these are left out of its "job options" */
	const struct iogap_job_kv *global_kv;
	size_t global_kv_nr;
	struct iogap_ss *ss;              /* steady state, the stats' ss point in */
	size_t ss_nr;
	const struct iogap_idle_prof *idle;   /* --idle-prof, final report only */
};

/* fio's per-job start line: "name: (g=0): rw=randread, bs=(R) 4096B-4096B,
 * (W) ..., (T) ..., ioengine=libaio, iodepth=32" */
void iogap_output_job_line(FILE *f, const struct iogap_job *job, unsigned groupid);

/* Fill r->groups from r->stats (fio's show_run_stats group pass);
 * allocates r->groups. */
int iogap_group_stats_compute(struct iogap_run_report *r);

void iogap_output_normal(FILE *f, const struct iogap_run_report *r);
/* n as a percentage of total, any non-zero share below least shown as least
 * (fio's stat_calc_lat: 0.01; stat_calc_dist: 0.1). */
double iogap_share_pct(uint64_t n, uint64_t total, double least);

/* fio's num2str (lib/num2str.c) into buf: maxlen significant characters,
 * pow2 picks KiB/MiB over kB/MB.  units: 0 none, 2 "B", 4 "B/s". */
enum { IOGAP_N2S_NONE = 0, IOGAP_N2S_BYTE = 2, IOGAP_N2S_BYTEPERSEC = 4, IOGAP_N2S_BITPERSEC = 5 };
char *iogap_num2str(char *buf, size_t len, uint64_t num, int maxlen, bool pow2,
		    int units);
/* The same for a number of KiB (fio's num2str with base 1024). */
char *iogap_num2str_kib(char *buf, size_t len, uint64_t kib, int maxlen, bool pow2,
			int units);
/* The percentile list a report entry uses (fio's default when the job set
 * none), sorted ascending as fio sorts it; returns the count. */
unsigned iogap_report_percentiles(const struct iogap_job_stat *st, double *list);

void iogap_output_json(FILE *f, const struct iogap_run_report *r, bool plus);

/* fio's terse output, version 3 (--minimal): one line per reported job. */
void iogap_output_terse(FILE *f, const struct iogap_run_report *r);

/* Disk stats (fio's disk_util) for the block devices under the given
 * files: snapshot before the run, then finish after it. */
struct iogap_disk_set;
struct iogap_disk_set *iogap_disk_util_start(const char *const *files, size_t nr);
size_t iogap_disk_util_finish(struct iogap_disk_set *set, struct iogap_disk_util **out);

#endif
