/* SPDX-License-Identifier: MIT */
/*
 * Pairing a run in windows, reading its traces as it goes (rundir.c): the
 * memory is a window's, not the run's (docs/reports.md "Memory").
 *
 * Each trace is nearly in time order: records are appended at completion
 * by several threads, so a record's key (its later time, host ns; guest
 * records mapped with the ping-pong map) lies at most `disorder` behind
 * the largest key before it.  The caller measures that disorder and the
 * longest record (a pass over the files, or, for a pass whose horizon is
 * large enough, that pass itself through `seen`); with the pairing slack
 * they give the horizon H = slack + longest + disorder.  Then windows go through the
 * guest trace `slice` records at a time, in trace order: a window owns its
 * slice's guest records and the filter records whose key falls in the
 * slice's key range, and holds around them the guest records within 3 H
 * and the filter records within 4 H, which covers every candidate, every
 * competing request and their candidates (align.c: uniqueness both ways,
 * merged reads, bottom nesting).  iogap_pair_window pairs the window; what
 * it owns is visited and counted.  The result is the whole-run pairing's,
 * except when
 *  - a window would hold more than `budget` records of one trace (a
 *    request or a completion delay long enough to spread a window over
 *    that many records): the window is cut, its requests are counted in
 *    `truncated` and may pair differently (the caller reports it);
 *  - a write tag repeats farther apart than the horizon (tags are unique
 *    per run; a repeat within it makes both ambiguous, as before).
 */
#ifndef IOGAP_PAIRSTREAM_H
#define IOGAP_PAIRSTREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "align.h"

/* Where records come from: a trace file (path), else an array (tests). */
struct iogap_rec_src {
	const char *path;
	const struct iogap_trace_record *r;
	size_t nr;
	/* if set: handed every record of the source, before a pass's filter,
	 * the pass reading the source to its end (a caller's scan of the
	 * file folded into the pass) */
	void (*seen)(void *ctx, const struct iogap_trace_record *r);
	void *seen_ctx;
};

/* What the first pass measures of one trace. */
struct iogap_stream_facts {
	uint64_t longest;     /* ns: largest |complete - start| */
	uint64_t disorder;    /* ns: largest (max key so far - key) */
	uint64_t max_key;
};

/* Fold record r into f (on its own clock). */
void iogap_stream_fact(struct iogap_stream_facts *f, const struct iogap_trace_record *r);
/* Guest facts onto the host clock through map (a drift stretches them). */
void iogap_stream_facts_to_host(struct iogap_stream_facts *f, const struct iogap_clock_map *map);

/* A visitor of pairs: a non-zero return stops the visit. */
typedef int (*iogap_pair_visit)(void *ctx, const struct iogap_pair *p);

#define IOGAP_STREAM_SLICE  (1u << 18)   /* guest records a window owns */
#define IOGAP_STREAM_BUDGET (6u << 18)   /* records a window holds per trace */

struct iogap_pair_stream {
	struct iogap_rec_src guest, top, bottom;
	const struct iogap_clock_map *pp;          /* ping-pong map */
	struct iogap_stream_facts facts[3];        /* guest, top, bottom: host ns */
	size_t slice, budget;                      /* 0: the defaults above */
};

/* The clock offset bounds of the exact pairs (a pass over guest writes
 * and tagged top writes only: nothing else decides an exact pair).
 * 0, or -1 with err; *truncated: writes in cut windows. */
int iogap_pair_stream_bounds(const struct iogap_pair_stream *ps, struct iogap_bounds *b,
			     uint64_t *truncated, char *err, size_t errlen);

/* Every guest read/write in trace order, times through map (the refined
 * one), to fn (a non-zero return stops and is returned); counts gets
 * everything iogap_pair_requests counts, *truncated the requests paired
 * in cut windows.  0, or -1 with err. */
int iogap_pair_stream_run(const struct iogap_pair_stream *ps, const struct iogap_clock_map *map,
			  iogap_pair_visit fn, void *ctx, struct iogap_pair_counts *counts,
			  uint64_t *truncated, char *err, size_t errlen);

#endif
