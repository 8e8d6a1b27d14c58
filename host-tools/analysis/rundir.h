/* SPDX-License-Identifier: MIT */
/*
 * A run directory's measurements, loaded and aligned: the probe traces of
 * both sides, the filter rings, the sync samples, the clock map and the
 * request pairs.  Shared by `iogap run` (right after a run) and the
 * reports (docs/iogap-run.md describes the directory).
 *
 * Every file is checked against the run: a trace whose run id differs
 * from the manifest's is refused (the load fails and names it), and what
 * makes the data incomplete (a trace its writer never closed, dropped
 * records, a phase the manifest records as failed or interrupted) is
 * collected in `incomplete` for the caller to show (docs/reports.md).
 */
#ifndef IOGAP_RUNDIR_H
#define IOGAP_RUNDIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "align.h"
#include "extents.h"
#include "kmatch.h"
#include "json_parse.h"
#include "manifest.h"
#include "sides.h"
#include "pairstream.h"

/* One trace file of a run: read as the visits go, never held whole. */
struct iogap_trace_file {
	char path[4096];
	struct iogap_trace_header header;
	uint64_t nr;              /* records */
	bool loaded;              /* opened and every record validated */
};

#define IOGAP_RUNDIR_MAX_REASONS 12


/* What a side holds, known once loaded, before any request is visited. */
struct iogap_side_info {
	bool present;
	uint64_t records;         /* records in its traces (VM: guest + top + bottom) */
	uint64_t t0;              /* host ns: earliest start of a measured request
				   * (read or write outside ramp); 0 if none */
	size_t njobs;             /* highest job index + 1 (0: no records) */
};

/* A side's kernel points (docs/kernel-points.md): SIDE/kernel.trace,
 * matched to the side's requests as a visit goes (kmatch.h). */
struct iogap_kernel_side {
	bool present;             /* its kernel trace is there and readable */
	char why[320];            /* why not (present false): the manifest's reason,
				   * or "" when the run says nothing (older runs) */
	char path[4096];
	uint64_t base;            /* disk byte offset of the probe's offset 0 */
	uint64_t resolution_ns;   /* the kernel stamps' step */
	bool file;                /* the probe's target is a file: its offsets go
				   * through extents (bare/extents.txt) */
	struct iogap_extents extents;
	char extents_why[320];    /* file: why there is no extent map ("" if there is) */
	/* the slack for forgetting (ns): the probe trace's longest request and
	 * disorder, and more for a time that may be off (the clock map's) */
	uint64_t longest, disorder, extra;
	/* once a visit has gone through the side: every read, write and trim
	 * request (ramp included) matched, or counted in a kmatch outcome or as
	 * unmapped (a file offset without a known place on the disk) */
	struct iogap_kmatch_counts counts;
	uint64_t unmapped;
	uint64_t held_max;        /* most kernel requests held at once */
};

struct iogap_rundir {
	/* matched: bare-matched/, the bare-metal run at the VM's IOPS
	 * (`iogap run --match-load`) */
	struct iogap_trace_file bare, guest, top, bottom, matched;
	bool have_bare, have_vm, have_matched;
	/* the VM had filter nodes (vm/top.trace, vm/bottom.trace); false for
	 * a passed-through device (manifest vm.passthrough): its requests then
	 * pair with no filter record and its stages are the guest's own */
	bool filters;
	struct iogap_sync_sample *sync_before, *sync_after;
	size_t n_before, n_after;
	/* valid when have_vm: map (refined) once loaded; counts once the
	 * pairs have been visited (iogap_rundir_each_pair) */
	struct {
		struct iogap_pair_counts counts;
		struct iogap_clock_map map;
	} pairing;
	/* clock sanity over exact pairs, counted by the pair visit: mapped
	 * guest submit <= top entry <= bottom entry <= bottom exit <= top
	 * exit <= mapped guest completion */
	uint64_t order_checked, order_violations;
	/* the run's id: the manifest's, else the first probe trace's; 0 unknown */
	uint64_t run_id;
	struct iogap_manifest manifest;   /* present when readable */
	struct iogap_side_info side[IOGAP_SIDES];
	struct iogap_kernel_side kernel[IOGAP_SIDES];
	/* the host kernel under QEMU during the VM run (vm/host-kernel.trace),
	 * matched to each pair's bottom filter record (a request the bottom
	 * filter saw in several parts counts as split) */
	struct iogap_kernel_side host_kernel;
	bool kernel_recorded;     /* the manifest says what each side recorded */
	/* why the data is incomplete, one reason each (none: complete) */
	char incomplete[IOGAP_RUNDIR_MAX_REASONS][320];
	size_t n_incomplete;
	/* private: the pairing windows (pairstream.h) */
	struct iogap_clock_map ping_pong;
	struct iogap_stream_facts facts[3];
	bool noted_cut, noted_near_bounds, noted_near;
	FILE *pairs_out;          /* iogap_rundir_pairs_to */
};

/* Sync samples as written by iogap_sync_save ("host_send guest host_recv"). */
int iogap_sync_save(const char *path, const struct iogap_sync_sample *s, size_t n);
int iogap_sync_load(const char *path, struct iogap_sync_sample **s, size_t *n, char *err,
		    size_t errlen);

/* Load dir/bare, dir/vm and dir/bare-matched as present, check every
 * trace's run id, align and pair the VM side.  0, or -1 with err ("DIR: no
 * bare/ or vm/ results", "DIR: traces from another run: …"). */
int iogap_rundir_load(const char *dir, struct iogap_rundir *rd, char *err, size_t errlen);
void iogap_rundir_free(struct iogap_rundir *rd);

/* What a run directory must be to be compared, without reading it whole:
 * its files regular (no FIFO, no device), its manifest's run id valid, no
 * phase failed, interrupted or left running or pending, every trace of
 * this run.  0, or -1 with err. */
int iogap_rundir_check(const char *dir, char *err, size_t errlen);

/* The one way to go through a run's requests (every command's statistics
 * come from these visits, nothing else reads the records): fn gets each
 * request once, in trace order, and a non-zero return stops the visit and
 * is returned.  -1 with err on a read error.  The traces are read as the
 * visit goes (the VM side paired window by window: pairstream.h). */
/* kernel: the record's matched kernel request (the side has kernel points
 * and it matched), else NULL. */
typedef int (*iogap_record_visit)(void *ctx, const struct iogap_trace_record *r,
				  const struct iogap_trace_record *kernel);

/* The VM side: one pair per guest read/write record, ramp included, with
 * the refined clock map's times (rd->pairing.map), p->kernel its matched
 * guest kernel request (rd->kernel[IOGAP_SIDE_VM]) and p->host_kernel the
 * host kernel's (rd->host_kernel); sets rd->pairing.counts
 * and rd->order_* (and notes in rd->incomplete requests paired in a window
 * cut to the memory budget). */
int iogap_rundir_each_pair(struct iogap_rundir *rd, iogap_pair_visit fn, void *ctx,
			   char *err, size_t errlen);
/* After a visit: a kernel trace that matched fewer than half of the
 * requests it was asked about (a sparse file's holes, buffered I/O served
 * by the page cache) is left out of the run (present false, why says how
 * it matched), so a side's stages do not shrink to the few requests it
 * matched; true if one was (the caller gathers its statistics again). */
bool iogap_rundir_drop_unmatched_kernel(struct iogap_rundir *rd);

/* `iogap report --pairs FILE`: from the next pair visit on, every pair is
 * also written to f as one line, as it streams (docs/reports.md
 * "Per-request output"); the header line naming the columns is written
 * now.  The caller checks f for write errors and closes it. */
void iogap_rundir_pairs_to(struct iogap_rundir *rd, FILE *f);
/* A bare-metal side (IOGAP_SIDE_BARE or IOGAP_SIDE_MATCHED): every record,
 * matched to the side's kernel requests when it has kernel points
 * (rd->kernel[side].counts set). */
int iogap_rundir_each_record(struct iogap_rundir *rd, enum iogap_side side,
			     iogap_record_visit fn, void *ctx, char *err, size_t errlen);

/* `iogap run --match-load`: the job files jobs[0..n) copied to
 * OUTDIR/jobI.fio (paths[I], malloc'd, freed by the caller even on error)
 * with rate_iops=R,W after each job's section header: the IOPS per clone
 * the VM achieved for that job (DIR/vm/probe.trace, outside ramp, over the
 * job's active span).  Jobs without VM requests are named in note.  0, or
 * -1 with err. */
int iogap_rundir_rated_jobs(const char *dir, char **jobs, int n, const char *outdir, char **paths,
			    char *note, size_t notelen, char *err, size_t errlen);

#endif
