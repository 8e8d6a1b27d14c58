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

/* One block event of the instance's binary buffers (exposed for the tests). */
struct iogap_kevent {
	uint64_t ns;              /* trace_clock mono: the probe's CLOCK_MONOTONIC */
	uint64_t sector;
	uint32_t nr_sector;
	uint32_t dev_major, dev_minor;
	int32_t error;            /* complete only */
	uint8_t op;               /* enum iogap_op */
	uint8_t fua;
	uint8_t complete;         /* 0: block_rq_issue, 1: block_rq_complete */
};

/* The decoder of the pages of an instance's per_cpu/cpuN/trace_pipe_raw,
 * built from the formats tracefs gives: dir/events/header_page and
 * dir/events/block/block_rq_{issue,complete}/format (dir: an instance, or a
 * copy of those files).  NULL with a message in err. */
struct iogap_kdecoder *iogap_kdecoder_open(const char *dir, char *err, size_t errlen);
void iogap_kdecoder_free(struct iogap_kdecoder *d);

/* The size of one page (sub-buffer) of trace_pipe_raw: read it whole. */
size_t iogap_kdecoder_page_size(const struct iogap_kdecoder *d);

/* Decode one page of len bytes read from a trace_pipe_raw: take(arg, ev)
 * for each event, in the page's order.  The number of events, or -1 with
 * a message in err when the page is malformed or holds an event of another
 * kind (never skipped silently); take was called for the events before. */
int iogap_kdecoder_page(struct iogap_kdecoder *d, const void *page, size_t len,
			void (*take)(void *arg, const struct iogap_kevent *ev), void *arg,
			char *err, size_t errlen);

/* Events a per-CPU buffer lost, from its per_cpu/cpuN/stats text: the
 * overwritten ("overrun", "commit overrun") and the refused ("dropped
 * events"). */
uint64_t iogap_kstats_lost(const char *stats);

#endif
