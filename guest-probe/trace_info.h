/* SPDX-License-Identifier: MIT */
/*
 * The probe's job lines in a trace's info text, written and read here
 * only: "job.N=name=NAME rw=RW ioengine=E iodepth=D numjobs=K filename=F"
 * (docs/trace-format.md, "Info text").  N is the job index the records
 * carry.  A job with several files per clone adds "file.N.K=PATH" for
 * each file K of its first clone (the index its records' offsets carry
 * above IOGAP_TRACE_FILE_SHIFT).
 */
#ifndef IOGAP_TRACE_INFO_H
#define IOGAP_TRACE_INFO_H

#include <stddef.h>

#include "job.h"

/* What a reader learns of job N. */
struct iogap_trace_job {
	char name[128];
	unsigned numjobs;         /* clones; >= 1 */
};

/* Append one line per job to info[used..size), stopping while 512 bytes
 * are left for the writer; the new length. */
size_t iogap_trace_info_put_jobs(char *info, size_t size, size_t used,
				 const struct iogap_job_list *jobs);

/* Job idx of the info text (NULL: none): 0, or -1 when it has no line for
 * idx (out then holds "jobIDX", one clone). */
int iogap_trace_info_job(const char *info, size_t idx, struct iogap_trace_job *out);

#endif
