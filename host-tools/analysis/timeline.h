/* SPDX-License-Identifier: MIT */
/*
 * The request timeline (docs/timeline.md): a request is an ordered list of
 * stamp points, each with its side (VM or bare metal), layer, clock and
 * producer; a stage is the interval between two points that follow each
 * other in a run.  The points and the named stages come from one table
 * (timeline.def); the run summary, report, compare and lint iterate what
 * is built here and name no stage themselves.
 */
#ifndef IOGAP_TIMELINE_H
#define IOGAP_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "align.h"

enum iogap_tl_point {
#define IOGAP_POINT(id, ...) IOGAP_TL_##id,
#include "timeline.def"
	IOGAP_TL_POINTS
};

enum iogap_tl_side { IOGAP_TL_VM, IOGAP_TL_BARE, IOGAP_TL_SIDES };
enum iogap_tl_clock { IOGAP_TL_GUEST, IOGAP_TL_HOST };

/* A bit per point. */
typedef uint64_t iogap_tl_mask;
_Static_assert(IOGAP_TL_POINTS <= 64, "iogap_tl_mask holds a bit per point");

/* What a producer stamps a point from: a VM pair, or a bare-metal record. */
struct iogap_tl_source {
	const struct iogap_pair *pair;
	const struct iogap_trace_record *record;
	const struct iogap_trace_record *kernel;  /* its kernel request (kmatch.h), or NULL */
	/* VM: the host kernel's request under QEMU (matched to the bottom
	 * filter's record), or NULL */
	const struct iogap_trace_record *host_kernel;
};

struct iogap_tl_stamp {
	uint64_t t;               /* host ns (guest points: mapped) */
	uint64_t own;             /* on the point's own clock */
};

/* One request's timeline. */
struct iogap_timeline {
	enum iogap_tl_side side;
	iogap_tl_mask present;    /* points its producers stamped */
	struct iogap_tl_stamp at[IOGAP_TL_POINTS];
	uint16_t job;
	uint8_t op, flags;        /* the probe record's (enum iogap_op, iogap_record_flags) */
	int32_t result;
};

/* (a pair's kernel-fed points come from p->kernel) */
void iogap_timeline_from_pair(const struct iogap_pair *p, struct iogap_timeline *tl);
void iogap_timeline_from_record(const struct iogap_trace_record *r, struct iogap_timeline *tl);
/* The same, with the request's matched kernel request (NULL: none matched):
 * the kernel-fed points (timeline.def, IOGAP_KERNEL_FED) come from it. */
void iogap_timeline_from_pair_kernel(const struct iogap_pair *p,
				     const struct iogap_trace_record *kernel,
				     struct iogap_timeline *tl);
void iogap_timeline_from_record_kernel(const struct iogap_trace_record *r,
				       const struct iogap_trace_record *kernel,
				       struct iogap_timeline *tl);

struct iogap_tl_point_info {
	enum iogap_tl_side side;
	int order;
	enum iogap_tl_clock clock;
	bool detail;
	int bare_equiv;           /* enum iogap_tl_point, -1: none */
	const char *key, *name;
	bool produced;            /* has a producer */
};
const struct iogap_tl_point_info *iogap_tl_point(enum iogap_tl_point p);

/* The points of a side that have a producer: the ones a run can have;
 * with the kernel-fed ones (the side's probe recorded kernel points), the
 * host-kernel-fed ones (the host kernel traced under QEMU) and the
 * filter-fed ones (the VM had filter nodes: not with --passthrough) or not. */
iogap_tl_mask iogap_timeline_produced_by(enum iogap_tl_side side, bool kernel, bool host_kernel,
					 bool filters);
/* produced_by(side, false, false, true) and (side, true, false, true) */
iogap_tl_mask iogap_timeline_produced(enum iogap_tl_side side);
iogap_tl_mask iogap_timeline_produced_kernel(enum iogap_tl_side side);

#define IOGAP_STAGE_BACKEND_HINT 1u   /* the advice depends on the backend's kind */
#define IOGAP_STAGE_DETAIL       2u   /* inside another stage: not in shares and sums */
#define IOGAP_STAGE_CROSSING     4u   /* its ends are on different clocks */

#define IOGAP_TL_MAX_STAGES 24

struct iogap_stage {
	int from, to;             /* enum iogap_tl_point */
	char key[48];             /* "G->Q", or made of the points' keys */
	char gap_key[48];         /* its row in the gap table */
	char what[96];            /* a noun phrase: "the backend itself" */
	char where[192];          /* where its time goes: "in the backend" */
	const char *hint;         /* advice ("" if none) */
	const char *color;        /* "#rrggbb" for charts */
	unsigned flags;
	int within;               /* DETAIL: the stage it lies inside, else -1 */
};

/* One side's stages for a set of points, in time order (a detail stage
 * right before the stage it lies inside). */
struct iogap_stages {
	enum iogap_tl_side side;
	iogap_tl_mask points;
	int first, last;          /* the first and last main points (total) */
	size_t n;
	struct iogap_stage s[IOGAP_TL_MAX_STAGES];
};

void iogap_timeline_stages(enum iogap_tl_side side, iogap_tl_mask points,
			   struct iogap_stages *out);

/* Does the request have every point of the stage set? */
static inline bool iogap_timeline_complete(const struct iogap_timeline *tl,
					   const struct iogap_stages *ss)
{
	return (tl->present & ss->points) == ss->points;
}

/* from -> to in ns: on the points' own clock when they share one, on the
 * host clock when the interval crosses clocks. */
int64_t iogap_timeline_span_ns(const struct iogap_timeline *tl, int from, int to);
static inline int64_t iogap_timeline_stage_ns(const struct iogap_timeline *tl,
					      const struct iogap_stage *s)
{
	return iogap_timeline_span_ns(tl, s->from, s->to);
}
static inline int64_t iogap_timeline_total_ns(const struct iogap_timeline *tl,
					      const struct iogap_stages *ss)
{
	return iogap_timeline_span_ns(tl, ss->first, ss->last);
}

/*
 * The gap table: VM stages against bare metal.  A row is one VM stage, or
 * VM stages merged from one point with a bare-metal equivalent to the next
 * such point (the bare run knows nothing finer there); a row whose ends
 * both have equivalents in the bare run contributes VM - bare, the bare
 * run's interval between them (bare_from..bare_to); any other row counts
 * whole (only the VM has it).  A VM without filter points takes its
 * points' direct equivalents (timeline.def, IOGAP_DIRECT_EQUIV).
 */
struct iogap_gap_row {
	size_t first, last;       /* VM stages [first, last] */
	int bare_from, bare_to;   /* bare points, or -1 */
	struct iogap_stage stage; /* what it is: the VM stage, or the stage its
				   * span makes (its gap_key keys the row) */
	bool crossing;            /* carries the clock error bar */
};

struct iogap_gap_rows {
	size_t n;
	struct iogap_gap_row r[IOGAP_TL_MAX_STAGES];
};

void iogap_timeline_gap_rows(const struct iogap_stages *vm, const struct iogap_stages *bare,
			     struct iogap_gap_rows *out);

/* Index of the bare stage from..to in bare (main stages only), -1 if none:
 * a gap row's bare interval is the sum of the bare stages between its ends. */
int iogap_timeline_find_stage(const struct iogap_stages *ss, int from, int to);

#endif
