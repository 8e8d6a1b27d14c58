/* SPDX-License-Identifier: MIT */
/*
 * The decoder of the kernel's binary trace pages (kernel_raw.c): the
 * block_rq_issue/complete events of a tracefs instance's trace_pipe_raw,
 * for the kernel points recorder (kernel_points.c) and its tests.
 */
#ifndef IOGAP_KERNEL_RAW_H
#define IOGAP_KERNEL_RAW_H

#include <stddef.h>
#include <stdint.h>

/* One block event of a page. */
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

struct iogap_kdecoder;

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
