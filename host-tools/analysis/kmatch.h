/* SPDX-License-Identifier: MIT */
/*
 * Matching the probe's requests with the kernel's (docs/kernel-points.md,
 * "Matching"): a request matches the one kernel request of the same
 * operation, disk offset and length whose issue and completion lie inside
 * [start, complete] of the request.  Several such candidates are
 * ambiguous; a kernel request covering more than the request (merged) or
 * parts of it (split) are counted, never taken for it.
 *
 * Streaming: kernel requests come in ascending completion, requests in any
 * order; a request may be matched once every kernel request completing up
 * to its completion has been added, and iogap_kmatch_forget_before(t)
 * drops the kernel requests no request starting at t or later can match,
 * so memory holds a window, not the run.
 */
#ifndef IOGAP_KMATCH_H
#define IOGAP_KMATCH_H

#include <stddef.h>
#include <stdint.h>

#include "iogap/trace.h"

enum iogap_kmatch_outcome {
	IOGAP_KMATCH_MATCHED,
	IOGAP_KMATCH_NONE,        /* no kernel request overlaps it in its window */
	IOGAP_KMATCH_AMBIGUOUS,   /* several exact candidates */
	IOGAP_KMATCH_SPLIT,       /* only kernel requests covering part of it */
	IOGAP_KMATCH_MERGED,      /* only a kernel request covering more than it */
};

struct iogap_kmatch_counts {
	uint64_t matched, none, ambiguous, split, merged;
};

struct iogap_kmatch;

/* base: the disk byte offset of the probe's offset 0 (a partition's start);
 * resolution_ns: how coarse the kernel stamps are (the kernel trace's
 * info stamp_resolution_ns: 1 for the probe's binary reader), the slack
 * allowed at the window's start. */
struct iogap_kmatch *iogap_kmatch_new(uint64_t base, uint64_t resolution_ns);
void iogap_kmatch_free(struct iogap_kmatch *m);

/* Add a kernel request (a record of a kernel trace).  0, or -1 if it
 * completes before the previous one (out of order) or memory ran out. */
int iogap_kmatch_add_kernel(struct iogap_kmatch *m, const struct iogap_trace_record *k);

/* Match a probe request; *kernel gets the matched kernel request. */
enum iogap_kmatch_outcome iogap_kmatch_request(struct iogap_kmatch *m,
					       const struct iogap_trace_record *req,
					       struct iogap_trace_record *kernel);

/* No request still to come starts before t. */
void iogap_kmatch_forget_before(struct iogap_kmatch *m, uint64_t t);

/* Kernel requests held now (the window). */
size_t iogap_kmatch_held(const struct iogap_kmatch *m);
const struct iogap_kmatch_counts *iogap_kmatch_counts(const struct iogap_kmatch *m);

#endif
