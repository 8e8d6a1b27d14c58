/* SPDX-License-Identifier: MIT */
/*
 * fio's --idle-prof (its idletime.c): one thread per CPU, pinned, times a
 * unit of work (writing a page, byte by byte) while the machine is quiet,
 * then drops to SCHED_IDLE and repeats the unit for as long as the jobs
 * run.  It only runs when nothing else wants its CPU, so the units it
 * completed, times the calibrated unit time, over the elapsed time are
 * the CPU's idleness.
 */
#ifndef IOGAP_IDLE_PROF_H
#define IOGAP_IDLE_PROF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "json_writer.h"

enum iogap_idle_mode {
	IOGAP_IDLE_NONE,
	IOGAP_IDLE_CALIBRATE,   /* calibrate, print the unit time, run nothing */
	IOGAP_IDLE_SYSTEM,      /* the mean idleness of the CPUs */
	IOGAP_IDLE_PERCPU,      /* and each CPU's */
};

struct iogap_idle_prof;

/* "system", "percpu" or "calibrate": 0, or -1 for anything else. */
int iogap_idle_parse(const char *arg, enum iogap_idle_mode *mode);
/* Start a thread on each CPU the probe may use and wait for their
 * calibration; unless mode is CALIBRATE they then measure until
 * iogap_idle_stop.  NULL with a message in err when a thread cannot be
 * started, pinned or given SCHED_IDLE (fio aborts the profiling then). */
struct iogap_idle_prof *iogap_idle_start(enum iogap_idle_mode mode, char *err, size_t errlen);
/* Stop measuring and compute each CPU's idleness. */
void iogap_idle_stop(struct iogap_idle_prof *p);
/* fio's show_idle_prof_stats: "CPU idleness:" lines, and the JSON
 * "cpu_idleness" object (system, cpu-N with percpu, unit_mean,
 * unit_stddev). */
void iogap_idle_normal(FILE *f, const struct iogap_idle_prof *p);
void iogap_idle_json(struct jw *w, const struct iogap_idle_prof *p);
void iogap_idle_free(struct iogap_idle_prof *p);

#endif
