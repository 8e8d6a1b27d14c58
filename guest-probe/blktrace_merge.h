/* SPDX-License-Identifier: MIT */
/*
 * fio's blktrace merging (blktrace.c merge_blktrace_iologs): the captures
 * of read_iolog=a.bin:b.bin merged by time into merge_blktrace_file, each
 * capture's times scaled by its merge_blktrace_scalars percentage and the
 * capture repeated merge_blktrace_iters times, so the probe writes the
 * file fio writes and replays it.
 */
#ifndef IOGAP_BLKTRACE_MERGE_H
#define IOGAP_BLKTRACE_MERGE_H

#include <stddef.h>

#include "job.h"

/* With merge_blktrace_file, merge j's captures into it (the options
 * checked first: iogap_job_iolog_check); j then replays that file:
 * read_iolog names it and the merge options are cleared.  Nothing to do
 * without it.  0, or -1 with the reason in err. */
int iogap_blktrace_merge(struct iogap_job *j, char *err, size_t errlen);

#endif
