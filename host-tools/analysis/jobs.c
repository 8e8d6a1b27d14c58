/* SPDX-License-Identifier: MIT */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobs.h"
#include "sides.h"
#include "trace_file.h"

/* Does JSON entry e name this job? */
static bool entry_is(const struct jp_value *json_jobs, size_t e, const char *name)
{
	const char *en = jp_str(jp_get(&json_jobs->items[e], "jobname"));

	return en && !strcmp(en, name);
}

/*
 * Units: the probe's JSON has one entry per thread (numjobs clones each)
 * or, with group_reporting, one per reporting group, named after the
 * first job in it.  Walk the jobs in order: a job whose name matches the
 * next entry starts a unit (and consumes its clones' entries); any other
 * joins the current unit.
 */
static void group(struct iogap_jobs *out, const struct jp_value *json_jobs)
{
	size_t entry = 0;
	long cur = -1;

	for (size_t j = 0; j < out->njob; j++) {
		const struct iogap_trace_job *tj = &out->job[j];
		bool start = cur < 0 || !json_jobs;

		if (json_jobs && entry < json_jobs->n && entry_is(json_jobs, entry, tj->name)) {
			start = true;
			entry++;
			/* clones reported one by one */
			for (unsigned c = 1; c < tj->numjobs && entry < json_jobs->n &&
			     entry_is(json_jobs, entry, tj->name); c++)
				entry++;
		}
		if (start) {
			cur = (long)out->nunit++;
			snprintf(out->unit[cur].name, sizeof(out->unit[cur].name), "%s", tj->name);
			snprintf(out->unit[cur].jobs, sizeof(out->unit[cur].jobs), "%zu", j);
		} else {
			size_t l = strlen(out->unit[cur].jobs);

			snprintf(out->unit[cur].jobs + l, sizeof(out->unit[cur].jobs) - l, ",%zu", j);
		}
		out->unit_of[j] = (uint16_t)cur;
	}
}

int iogap_jobs_from(const char *info, const struct jp_value *json_jobs, size_t njob,
		    struct iogap_jobs *out)
{
	memset(out, 0, sizeof(*out));
	out->njob = njob ? njob : 1;
	out->job = calloc(out->njob, sizeof(*out->job));
	out->unit_of = calloc(out->njob, sizeof(*out->unit_of));
	out->unit = calloc(out->njob, sizeof(*out->unit));
	if (!out->job || !out->unit_of || !out->unit) {
		iogap_jobs_free(out);
		return -1;
	}
	for (size_t j = 0; j < out->njob; j++)
		iogap_trace_info_job(info, j, &out->job[j]);
	if (json_jobs && json_jobs->type != JP_ARRAY)
		json_jobs = NULL;
	group(out, json_jobs);
	return 0;
}

int iogap_jobs_load(const char *dir, size_t njob, struct iogap_jobs *out, char *err,
		    size_t errlen)
{
	static const enum iogap_side order[] = { IOGAP_SIDE_VM, IOGAP_SIDE_BARE };
	struct iogap_trace_reader *r = NULL;
	char path[PATH_MAX + 64], e2[4096];
	struct jp_value pj;
	bool have_pj = false;
	int rc;

	for (size_t s = 0; s < 2 && !r; s++) {
		const char *sd = iogap_side_dir[order[s]];

		snprintf(path, sizeof(path), "%s/%s/probe.trace", dir, sd);
		r = iogap_trace_reader_open(path, e2, sizeof(e2));
		snprintf(path, sizeof(path), "%s/%s/probe.json", dir, sd);
		have_pj = r && !iogap_json_load(path, &pj, e2, sizeof(e2));
	}
	rc = iogap_jobs_from(r ? iogap_trace_reader_info(r) : NULL,
			     have_pj ? jp_get(&pj, "jobs") : NULL, njob, out);
	if (rc)
		snprintf(err, errlen, "out of memory");
	if (r)
		iogap_trace_reader_close(r);
	if (have_pj)
		jp_free(&pj);
	return rc;
}

void iogap_jobs_free(struct iogap_jobs *j)
{
	free(j->job);
	free(j->unit_of);
	free(j->unit);
	memset(j, 0, sizeof(*j));
}
