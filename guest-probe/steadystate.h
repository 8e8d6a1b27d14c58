/* SPDX-License-Identifier: MIT */
/*
 * fio's steady-state detection (its steadystate.c): every second, a job's
 * (or its reporting group's) IOPS and bandwidth go into a window of ss_dur
 * seconds; once the window is full, the job ends as soon as the maximum
 * deviation from the mean (ss=iops, ss=bw) or the least-squares slope
 * (iops_slope, bw_slope) is below the limit.  The window and the verdict
 * are reported as fio does (JSON "steadystate", the normal output's line).
 */
#ifndef IOGAP_STEADYSTATE_H
#define IOGAP_STEADYSTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "job.h"
#include "json_writer.h"
#include "stats.h"

struct iogap_ss {                 /* fio's steadystate_data, one per thread */
	double limit;
	unsigned dur;                 /* the window, seconds; 0: off */
	uint64_t ramp_ns;             /* ss_ramp */
	unsigned state;               /* IOGAP_SS_* */
	unsigned head, tail;
	uint64_t *iops_data, *bw_data; /* dur samples, only with IOGAP_SS_DATA */
	double slope, deviation, criterion;
	uint64_t sum_y, sum_x, sum_x_sq, sum_xy, oldest_y;
	uint64_t epoch_ns;            /* the thread's epoch the samples count from */
	uint64_t prev_ns, prev_ios, prev_bytes;
};

/* One thread as the check sees it; the runner refreshes the moving
 * fields before each check and applies terminate after it. */
struct iogap_ss_view {
	struct iogap_ss *ss;
	const struct iogap_job *job;
	unsigned groupid;
	bool running;                 /* in its I/O loop */
	uint64_t epoch_ns;            /* fio's epoch: its start, reset after ramp_time */
	uint64_t ios, bytes;          /* completed so far (monotonic) */
	bool terminate;               /* set by the check: end this thread */
};

/* Fill each view's ss from its job (views in fio's thread order), reject
 * a reporting group whose threads differ in their steady-state options (as
 * fio), and give each group's last thread (or each thread, without
 * group_reporting) the sample window.  Returns whether any thread uses
 * steady state, or -1 with "file:line: ..." in err. */
int iogap_ss_setup(struct iogap_ss_view *v, size_t n, char *err, size_t errlen);
/* fio's steadystate_check, run once a second. */
void iogap_ss_check(struct iogap_ss_view *v, size_t n, uint64_t now_ns);
void iogap_ss_free(struct iogap_ss *ss, size_t n);

/* fio's "steadystate" JSON object and normal-output line for a report
 * entry (nothing when it has no steady state). */
void iogap_ss_json(struct jw *w, const struct iogap_ss *ss);
void iogap_ss_normal(FILE *f, const struct iogap_job_stat *st);

#endif
