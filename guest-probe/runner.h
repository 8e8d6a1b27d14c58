/* SPDX-License-Identifier: MIT */
/* Runs parsed jobs: groups, worker threads, engines, stats, traces. */
#ifndef IOGAP_RUNNER_H
#define IOGAP_RUNNER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "iogap/trace.h"
#include "job.h"
#include "output.h"
#include "util.h"

/* fio's prof_io_ops (profile.h): td_init per job thread as the run is
 * set up (its state, NULL: none); io_lat per read or write counted in
 * lat (start to completion, ns), non-zero failing the job with EPERM as
 * fio's icd->error does; td_exit per job thread when the run is over. */
struct iogap_prof_hooks {
	void *(*td_init)(void);
	int (*io_lat)(void *state, uint64_t lat_ns);
	void (*td_exit)(void *state);
};

struct iogap_run_opts {
	const char *trace_path;     /* NULL: no trace */
	const char *kernel_trace_path;  /* NULL: no kernel points (kernel_points.h) */
	bool tag_writes;            /* stamp iogap_write_tag into written blocks */
	bool allow_destroy_data;    /* skip the data-safety refusal */
	bool progress;              /* fio-style "Jobs:" line on stderr */
	uint64_t eta_interval_ns;   /* its period (0: fio's 1 s) */
	uint64_t eta_newline_ns;    /* keep a line every this long (0: never) */
	bool readonly;              /* fio's --readonly: refuse to lay out files */
	bool quiet;                 /* no job lines / "Starting" banner */
	uint64_t run_id;            /* 0: random */
	enum iogap_producer producer;
	const char *version;
	FILE *out;                  /* job lines and banner (stdout if NULL) */
	/* --status-interval: every status_interval_ns (0: never) the report
	 * so far, cumulative from the start, goes to status(report, arg) */
	uint64_t status_interval_ns;
	void (*status)(const struct iogap_run_report *report, void *arg);
	void *status_arg;
	/* fio's triggers: when trigger_file appears (it is removed) or
	 * trigger_timeout_ns after the start, every job stops and
	 * trigger_cmd (if any) runs */
	const char *trigger_file;
	uint64_t trigger_timeout_ns;
	const char *trigger_cmd;
	const struct iogap_prof_hooks *prof;   /* NULL: no profile hooks */
	const char *aux_path;     /* fio's --aux-path: where verify_dump writes */
};

/* Run every job; fill report (entries in fio's reporting order).  Returns
 * 0 when all jobs ran (job errors are in the stats, as fio reports them),
 * -1 when the run could not start, with a message in err. */
int iogap_run_jobs(struct iogap_job_list *jobs, const struct iogap_run_opts *opts,
		   struct iogap_run_report *report, char *err, size_t errlen);
void iogap_run_report_free(struct iogap_run_report *report);


#endif
