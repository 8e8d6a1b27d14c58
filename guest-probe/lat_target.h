/* SPDX-License-Identifier: MIT */
/*
 * fio's latency target (its io_u.c lat_target_*): the queue depth starts
 * at 1 and doubles while each latency_window keeps latency_percentile of
 * the I/Os within latency_target, then bisects between the last depth that
 * kept it and the first that did not.  Once a success leaves the depth
 * where it was, the in-flight I/O completes, the statistics restart, and
 * one more window at that depth ends the job (unless latency_run, which
 * keeps tuning until the job's end).  At depth 1 with latency_percentile
 * 100, one I/O over the target is the job's error (ETIMEDOUT).
 */
#ifndef IOGAP_LAT_TARGET_H
#define IOGAP_LAT_TARGET_H

#include <stdbool.h>
#include <stdint.h>

#include "job.h"

struct iogap_lat_target {
	unsigned qd, qd_high, qd_low; /* the depth in use; the search bounds */
	unsigned stable_count;        /* successes in a row one below qd_high */
	uint64_t failed;              /* I/Os over the target in this window */
	uint64_t ios;                 /* completions when the window began */
	uint64_t window_ns;           /* when it began */
	bool end_run;                 /* the final window at the depth found */
	bool quiesce;                 /* the depth went down: complete the in-flight I/O */
};

enum iogap_lat_step {
	IOGAP_LAT_KEEP,               /* go on */
	IOGAP_LAT_QUIESCE,            /* complete the in-flight I/O, then a new window */
	IOGAP_LAT_FINAL,              /* complete it, restart the statistics, new window */
	IOGAP_LAT_DONE,               /* the job is done */
};

/* fio's lat_target_init (the start of each pass, and the end of
 * ramp_time unless the final window runs): ios completed so far. */
void iogap_lat_target_init(struct iogap_lat_target *lt, const struct iogap_job *j,
			   uint64_t now_ns, uint64_t ios);
/* Requests allowed in flight (asked before every request). */
static inline unsigned iogap_lat_target_depth(const struct iogap_lat_target *lt,
					      const struct iogap_job *j)
{
	return j->latency_target_ns ? lt->qd : j->iodepth;
}
/* A read or write completed in lat_ns (start to completion).  true: it
 * is over the target at depth 1 with percentile 100, fio's lat_fatal. */
bool iogap_lat_target_complete(struct iogap_lat_target *lt, const struct iogap_job *j,
			       uint64_t lat_ns);
/* fio's lat_target_check, after each turn out of ramp_time. */
enum iogap_lat_step iogap_lat_target_check(struct iogap_lat_target *lt, const struct iogap_job *j,
					   uint64_t now_ns, uint64_t ios);
/* fio's lat_new_cycle: a window begins (after a QUIESCE or FINAL step) */
void iogap_lat_target_new_window(struct iogap_lat_target *lt, uint64_t now_ns, uint64_t ios);

#endif
