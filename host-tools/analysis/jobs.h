/* SPDX-License-Identifier: MIT */
/*
 * A run's jobs and the units they are reported in, read once: names and
 * clones from a probe trace's info text (trace_info.h), reporting groups
 * from the probe's JSON (group_reporting folds several job indices into
 * one entry).  report and compare use these.
 */
#ifndef IOGAP_JOBS_H
#define IOGAP_JOBS_H

#include <stddef.h>
#include <stdint.h>

#include "json_parse.h"
#include "trace_info.h"

/* The job indices the probe reported together, named after the first. */
struct iogap_unit {
	char name[128];
	char jobs[128];           /* job indices folded in, "0" or "0,1" */
};

struct iogap_jobs {
	size_t njob;              /* job indices covered, >= 1 */
	struct iogap_trace_job *job;          /* per job index ("jobN" if unnamed) */
	uint16_t *unit_of;        /* job index -> unit */
	struct iogap_unit *unit;
	size_t nunit;
};

/* The jobs 0..njob-1 (at least one) named by info (NULL: none known) and
 * grouped as the probe JSON's "jobs" array reports them (NULL: one unit
 * per job).  0, or -1 out of memory. */
int iogap_jobs_from(const char *info, const struct jp_value *json_jobs, size_t njob,
		    struct iogap_jobs *out);

/* The same for a run directory: from the first side (vm/, then bare/)
 * whose probe.trace opens, and that side's probe.json when it parses.
 * 0, or -1 with err. */
int iogap_jobs_load(const char *dir, size_t njob, struct iogap_jobs *out, char *err,
		    size_t errlen);

void iogap_jobs_free(struct iogap_jobs *j);

#endif
