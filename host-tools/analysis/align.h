/* SPDX-License-Identifier: MIT */
/*
 * Clock alignment and request pairing (docs/architecture.md, "Pairing requests
 * and aligning clocks"): guest probe records, filter records at the top and
 * bottom of QEMU's block graph, and control-channel sync samples in; one
 * time line (host CLOCK_MONOTONIC) and per-request pairs out.
 */
#ifndef IOGAP_ALIGN_H
#define IOGAP_ALIGN_H

#include <stddef.h>
#include <stdint.h>

#include "iogap/trace.h"

/* One ping-pong round: host sends at t_send, guest stamps guest_ns, host
 * receives the answer at t_recv (host ns). */
struct iogap_sync_sample {
	uint64_t t_send;
	uint64_t guest_ns;
	uint64_t t_recv;
};

/*
 * guest_ns = host_ns + offset_at(host_ns), with
 * offset_at(h) = offset_ns + drift_ppb * (h - ref_host_ns) / 1e9.
 */
struct iogap_clock_map {
	int64_t offset_ns;        /* at ref_host_ns */
	double drift_ppb;         /* guest clock rate error, parts per billion */
	uint64_t ref_host_ns;
	/* from the ping-pong alone */
	int64_t sync_offset_ns;
	uint64_t sync_rtt_ns;     /* smallest round trip kept */
	uint64_t sync_uncertainty_ns; /* error bound of sync_offset_ns: half the
				       * largest round trip kept (the median is
				       * one of the kept rounds, each within
				       * rtt/2 of the truth) */
	/* refined by paired requests: offset lies in [bound_lo, bound_hi];
	 * from the ping-pong alone: offset -+ sync_uncertainty_ns */
	int64_t bound_lo_ns, bound_hi_ns;
	uint64_t bound_pairs;     /* pairs that contributed */
	int bound_consistent;     /* 0 if the bounds crossed (lo > hi): then
				   * offset_ns stays the ping-pong one and
				   * bound_lo/hi keep the crossed values */
	const char *method;       /* "ping-pong", "ping-pong+request-bounds" */
};

/* Sets of sync rounds closer than this give no drift estimate. */
#define IOGAP_ALIGN_MIN_DRIFT_SPAN_NS 1000000000ull

/* Estimate offset and drift from sync rounds taken before (a) and after
 * (b) the workload; nb may be 0 (no drift then; also when the two sets are
 * less than IOGAP_ALIGN_MIN_DRIFT_SPAN_NS apart).  Keeps the rounds with
 * the smallest round trips; rounds with t_recv < t_send are skipped.
 * Sets method "ping-pong" and bound_lo/hi = offset -+ sync_uncertainty_ns
 * (bound_pairs 0).  0, or -1 if a has no valid round. */
int iogap_clock_from_sync(const struct iogap_sync_sample *a, size_t na,
			  const struct iogap_sync_sample *b, size_t nb,
			  struct iogap_clock_map *map);

/* guest time -> host time and back, with the map's drift. */
uint64_t iogap_guest_to_host(const struct iogap_clock_map *map, uint64_t guest_ns);
uint64_t iogap_host_to_guest(const struct iogap_clock_map *map, uint64_t host_ns);

/* Time window slack for pairing by (op, offset, length): a filter record
 * matches a guest request when its entry lies in [mapped start - slack,
 * mapped completion + slack], slack = 3 * sync_uncertainty_ns + this
 * (offset error <= u, drift error <= 2u over the run: see align.c). */
#define IOGAP_ALIGN_READ_SLACK_NS 20000u
/* That slack for map (ns). */
uint64_t iogap_pair_slack(const struct iogap_clock_map *map);

/*
 * A request as seen at one point; times are host ns once mapped.  A guest
 * request split below the guest shows up as several filter records with
 * one tag: top/bottom then point at the part that entered first, and
 * top_entry/top_exit (bottom_entry/bottom_exit) span all parts.
 */
struct iogap_pair {
	const struct iogap_trace_record *guest;   /* probe record (guest clock) */
	const struct iogap_trace_record *top;     /* filter top, NULL if unpaired */
	const struct iogap_trace_record *bottom;  /* filter bottom, NULL if unpaired */
	uint64_t g_start, g_issue, g_complete;    /* guest times mapped to host ns */
	uint64_t top_entry, top_exit;             /* min entry, max exit over the parts; 0 if no top */
	uint64_t bottom_entry, bottom_exit;       /* likewise; 0 if no bottom */
	uint16_t top_parts, bottom_parts;         /* filter records combined (0 = none) */
	uint8_t exact;            /* paired by write tag */
	uint8_t ambiguous;        /* several candidates matched: top stays NULL, no guess */
	uint8_t invalid;          /* guest record with complete < start: never
				   * paired by time, never used for bounds */
	uint8_t merged;           /* a read the guest merged with neighbours: its
				   * top/bottom records cover more than it */
	/* the guest kernel's request matched to it (kmatch.h), set by the
	 * run-directory reader's visit when the run has kernel points; NULL:
	 * none (not recorded, or not matched) */
	const struct iogap_trace_record *kernel;
	/* the host kernel's request matched to its bottom filter record (the
	 * host traced during the VM run), likewise; NULL: none */
	const struct iogap_trace_record *host_kernel;
};

enum iogap_pair_dir { IOGAP_PAIR_READ = 0, IOGAP_PAIR_WRITE = 1, IOGAP_PAIR_DIRS = 2 };

struct iogap_pair_counts {
	uint64_t guest[IOGAP_PAIR_DIRS];          /* guest requests considered */
	uint64_t paired_top[IOGAP_PAIR_DIRS];
	uint64_t paired_bottom[IOGAP_PAIR_DIRS];
	uint64_t exact[IOGAP_PAIR_DIRS];          /* by tag */
	uint64_t ambiguous[IOGAP_PAIR_DIRS];
	uint64_t unpaired[IOGAP_PAIR_DIRS];       /* no top record found */
	uint64_t merged[IOGAP_PAIR_DIRS];         /* paired to a larger (merged) filter record */
	/* guest[d] == paired_top[d] + ambiguous[d] + unpaired[d] */
	uint64_t top_unclaimed, bottom_unclaimed; /* read/write filter records not
						   * attached to any request */
	uint64_t split[IOGAP_PAIR_DIRS];          /* guest request seen as several filter records */
	uint64_t invalid[IOGAP_PAIR_DIRS];        /* guest records with complete < start
						   * (counted within unpaired/exact too) */
	uint64_t tag_mismatch;                    /* tagged top records whose offset lies outside their
						   * tag's guest request (stale tag): left unclaimed */
};

struct iogap_pairing {
	struct iogap_pair *pairs;                 /* one per guest read/write record */
	size_t nr;
	struct iogap_pair_counts counts;
	struct iogap_clock_map map;               /* refined */
};

/*
 * Pair guest records (every read and write, ramp records included; flush,
 * trim and other ops are skipped) with filter records, then refine map with
 * the per-request bounds of the pairs (exact ones and those paired by key,
 * unique in their window, not merged): guest start <= top entry and top
 * exit <= guest completion.  pairs[] follows the guest records' order.
 * Record arrays must stay alive while the pairing is used.  map is the
 * ping-pong estimate (used for the read time windows); out->map is the
 * refined one, with sync_* and drift unchanged.  At most 2^30 - 1 records
 * per array.  O(n log n) time; memory: the pairs (88 bytes each) and
 * ~150 bytes per request of indexes while pairing.  Returns 0, or -1 with
 * err set (out then holds no allocation).
 */
int iogap_pair_requests(const struct iogap_trace_record *guest, size_t nguest,
			const struct iogap_trace_record *top, size_t ntop,
			const struct iogap_trace_record *bottom, size_t nbottom,
			const struct iogap_clock_map *map, struct iogap_pairing *out,
			char *err, size_t errlen);
void iogap_pairing_free(struct iogap_pairing *p);

/*
 * The same pairing in parts, for a reader that pairs a run window by
 * window (rundir.c, pairstream.h) and keeps only what each window owns.
 * iogap_pair_requests is iogap_pair_window, then iogap_pair_count* over
 * every pair and filter record, the bounds of every pair, and the times.
 */
#define IOGAP_TOP_CLAIMED      1u   /* attached to a request */
#define IOGAP_TOP_TAG_MISMATCH 2u   /* counted in tag_mismatch */

struct iogap_pair_window {
	struct iogap_pair *pairs;   /* one per guest read/write record, in order; times unset */
	size_t nr;
	uint8_t *top_state;         /* per top record: IOGAP_TOP_* */
	uint8_t *bottom_claimed;    /* per bottom record: 1 if attached */
};

/* Pair with the ping-pong map only (no counts, no bounds, no times). */
int iogap_pair_window(const struct iogap_trace_record *guest, size_t nguest,
		      const struct iogap_trace_record *top, size_t ntop,
		      const struct iogap_trace_record *bottom, size_t nbottom,
		      const struct iogap_clock_map *map, struct iogap_pair_window *out,
		      char *err, size_t errlen);
void iogap_pair_window_free(struct iogap_pair_window *w);

/* The counts one pair, one top record, one bottom record add. */
void iogap_pair_count(struct iogap_pair_counts *c, const struct iogap_pair *p);
void iogap_pair_count_top(struct iogap_pair_counts *c, const struct iogap_trace_record *r,
			  uint8_t state);
void iogap_pair_count_bottom(struct iogap_pair_counts *c, const struct iogap_trace_record *r,
			     uint8_t claimed);

/* The clock offset's bounds from pairs (order-free: max and min): exact
 * ones and the rest paired at the top, unmerged (iogap_pair_requests). */
struct iogap_bounds {
	int64_t lo, hi;
	uint64_t n;
};
void iogap_bounds_init(struct iogap_bounds *b);
/* pp: the ping-pong map the pairs were made with */
void iogap_bounds_add(struct iogap_bounds *b, const struct iogap_clock_map *pp,
		      const struct iogap_pair *p);
/* out = pp refined by the bounds (pp unchanged when no pair bounded it) */
void iogap_bounds_apply(const struct iogap_bounds *b, const struct iogap_clock_map *pp,
			struct iogap_clock_map *out);
/* g_start, g_issue, g_complete from the guest record through map */
void iogap_pair_set_times(const struct iogap_clock_map *map, struct iogap_pair *p);

#endif
