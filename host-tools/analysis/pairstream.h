/* SPDX-License-Identifier: MIT */
/*
 * Pairing a run in windows, reading its traces as it goes (rundir.c): the
 * memory is a window's, not the run's (docs/reports.md "Memory").
 *
 * Each trace is nearly in time order: records are appended at completion
 * by several threads, so a record's key (its later time, host ns; guest
 * records mapped with the ping-pong map) lies at most `disorder` behind
 * the largest key before it.  The caller measures that disorder and the
 * records' lengths (a pass over the files, or, for a pass whose horizon is
 * large enough, that pass itself through `seen`); with the pairing slack
 * they give the horizon H = slack + cap + disorder, cap the longest record's
 * length or, when a few records are far longer than the rest, a bound that
 * all but those (listed in the facts) respect.  Then windows go through the
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
 *  - a request or filter record lies within 4 H of a record longer than
 *    cap (the candidates and competitors of a long record reach across
 *    its span, beyond any window): counted in `near` and `near_filters`,
 *    it may pair differently; every other pairs as the whole run does.
 *    A run paired in one window holding every record is the whole run's
 *    pairing: nothing is counted there;
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

#define IOGAP_STREAM_LONG 4096u   /* long records a trace's facts list */

/* A record's time span [start, end]. */
struct iogap_span {
	uint64_t start, end;
};

/* What the first pass measures of one trace. */
struct iogap_stream_facts {
	uint64_t longest;     /* ns: largest |complete - start| */
	uint64_t disorder;    /* ns: largest (max key so far - key) */
	uint64_t max_key;
	uint64_t lengths[65]; /* records by length: [0] 0 ns, [b] [2^(b-1), 2^b) */
	/* the longest records (a min-heap by length while measuring; once
	 * finished, those longer than cap, by start; guest ones on the host
	 * clock once iogap_stream_facts_to_host) */
	struct iogap_span lng[IOGAP_STREAM_LONG];
	size_t nlong;
	uint64_t long_floor;  /* while measuring: the shortest listed, once full (else 0) */
	size_t long_max;      /* the list's capacity: 0 = IOGAP_STREAM_LONG (tests lower it) */
	/* ns, once finished (iogap_stream_facts_finish): the length the
	 * horizon allows for, with every longer record listed; 0: longest */
	uint64_t cap;
};

/* Fold record r into f (on its own clock). */
void iogap_stream_fact(struct iogap_stream_facts *f, const struct iogap_trace_record *r);
/* Once every record is folded: cap = 4 x the upper bound of the 99.9th
 * percentile length's log2 bucket, when the list holds every longer record
 * (else cap = longest: the horizon of the longest record); the list keeps
 * those longer than cap, by start. */
void iogap_stream_facts_finish(struct iogap_stream_facts *f);
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

/* What a pass could not pair as the whole run would (the caller reports it). */
struct iogap_stream_cut {
	uint64_t truncated;     /* requests paired in windows cut to the budget */
	uint64_t near;          /* requests within reach of a long record */
	uint64_t near_filters;  /* filter records counted within reach of one */
	uint64_t nlong;         /* long records: longer than cap */
	uint64_t cap, reach;    /* ns: the length the horizon allows for; 4 H */
};

/* The clock offset bounds of the pairs (iogap_bounds_add: exact ones and
 * unmerged ones paired by key; a pass over the guest and top traces, the
 * bottom is not needed).  0, or -1 with err; *cut: requests in cut windows
 * or near long records. */
int iogap_pair_stream_bounds(const struct iogap_pair_stream *ps, struct iogap_bounds *b,
			     struct iogap_stream_cut *cut, char *err, size_t errlen);

/* Every guest read/write in trace order, times through map (the refined
 * one), to fn (a non-zero return stops and is returned); counts gets
 * everything iogap_pair_requests counts, *cut the requests paired in cut
 * windows or near long records.  0, or -1 with err. */
int iogap_pair_stream_run(const struct iogap_pair_stream *ps, const struct iogap_clock_map *map,
			  iogap_pair_visit fn, void *ctx, struct iogap_pair_counts *counts,
			  struct iogap_stream_cut *cut, char *err, size_t errlen);

#endif
