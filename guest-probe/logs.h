/* SPDX-License-Identifier: MIT */
/*
 * fio's per-job logs, with its file names and line formats:
 * write_lat_log (PREFIX_slat/clat/lat), write_bw_log (PREFIX_bw),
 * write_iops_log (PREFIX_iops), write_hist_log (PREFIX_clat_hist), each
 * PREFIX_KIND.N.log (N the thread number) or, with per_job_logs=0,
 * PREFIX_KIND.log shared by the jobs (appended to, as fio).
 * Lines: "msec, value, ddir, bs[, offset], prio" (prio "0x%04x" with
 * log_prio); every request, or with log_avg_msec one average (or the
 * maximum, log_max_value) per window and direction; histogram lines
 * "msec, ddir, bs, count, ..." every log_hist_msec.
 */
#ifndef IOGAP_LOGS_H
#define IOGAP_LOGS_H

#include <stdbool.h>
#include <stdint.h>

#include "iogap/trace.h"
#include "job.h"

struct iogap_job_logs;

/* Does j ask for any of these logs? */
bool iogap_logs_wanted(const struct iogap_job *j);
/* Open j's logs for thread thread_number (1-based); has_slat: the engine
 * measures slat (fio's async engines).  0, or -1 with a message in err
 * (*out is set either way: close it). */
int iogap_logs_open(struct iogap_job_logs **out, const struct iogap_job *j,
		    unsigned thread_number, bool has_slat, char *err, size_t errlen);
/* The job's start: log times are ms from it (fio's epoch). */
void iogap_logs_start(struct iogap_job_logs *l, uint64_t t0_ns);
/* One completed request (ramp-time and failed ones are left out). */
/* prio: the request's I/O priority (prio.c), for the logs' last column */
void iogap_logs_add(struct iogap_job_logs *l, const struct iogap_trace_record *r, uint16_t prio);
/* The last windows' averages at t_end_ns, then close (and free). */
void iogap_logs_close(struct iogap_job_logs *l, uint64_t t_end_ns);

#endif
