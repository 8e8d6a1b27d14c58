/* SPDX-License-Identifier: MIT */
/*
 * Kernel points (docs/kernel-points.md): the block layer's block_rq_issue
 * and block_rq_complete for the measured disk, recorded through a private
 * tracefs instance while the probe runs, written as a trace of their own
 * (one record per kernel request: issue and completion paired).
 */
#ifndef IOGAP_KERNEL_POINTS_H
#define IOGAP_KERNEL_POINTS_H

#include <stddef.h>
#include <stdint.h>

#include "iogap/trace.h"

#define IOGAP_TRACEFS "/sys/kernel/tracing"

struct iogap_kpoints;

/* Where tracefs is (IOGAP_TRACEFS unless the environment's IOGAP_TRACEFS
 * says otherwise), or NULL with the reason in why when it has no block
 * events (not mounted, no tracepoints). */
const char *iogap_kpoints_tracefs(char *why, size_t whylen);

/* Start recording the disk that holds target (a block device, a partition
 * or a file on one) into a trace at path.  producer and run_id go into the
 * header as the probe's own trace has them.  Stale instances of processes
 * that are gone are removed first.  NULL with a message in err. */
struct iogap_kpoints *iogap_kpoints_start(const char *target, const char *path,
					  enum iogap_producer producer, uint64_t run_id,
					  char *err, size_t errlen);

/* Stop, drain what the kernel still holds, close the trace, remove the
 * instance.  0, or -1 with a message in err (the instance is removed even
 * then). */
int iogap_kpoints_stop(struct iogap_kpoints *k, char *err, size_t errlen);

#endif
