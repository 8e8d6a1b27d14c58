/* SPDX-License-Identifier: MIT */
/*
 * A filter ring mapped while QEMU writes it: validation, consuming the
 * published records, and the drain that moves them into a trace file
 * during `iogap run` so the ring never fills.
 */
#ifndef IOGAP_RINGMAP_H
#define IOGAP_RINGMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "iogap/trace.h"

struct iogap_ring_map {
	uint8_t *base;
	size_t size;
	const struct iogap_trace_header *h;
	struct iogap_ring_control *ctl;
	const struct iogap_trace_record *slots;
	uint64_t cap;
};

/* Map and validate RING (writable: to advance read_seq).  0, or -1 with
 * the reason in err. */
int iogap_ring_map_open(const char *path, bool writable, struct iogap_ring_map *m,
			char *err, size_t errlen);
void iogap_ring_map_close(struct iogap_ring_map *m);
static inline bool iogap_ring_map_complete(const struct iogap_ring_map *m)
{
	return __atomic_load_n(&m->h->flags, __ATOMIC_ACQUIRE) & IOGAP_TRACE_F_COMPLETE;
}

/* The records in [read_seq, write_seq): *first is read_seq, the count is
 * returned (-1 if the control block is inconsistent).  Slot of sequence s:
 * m->slots[s & (m->cap - 1)]. */
int64_t iogap_ring_map_pending(const struct iogap_ring_map *m, uint64_t *first);
void iogap_ring_map_consume(struct iogap_ring_map *m, uint64_t upto);

struct iogap_ring_drain;

/* A thread that waits for RING to appear, then moves every published
 * record into a trace file at OUT (header and info copied from the ring),
 * consuming them.  NULL with err on failure to start. */
struct iogap_ring_drain *iogap_ring_drain_start(const char *ring, const char *out,
						char *err, size_t errlen);
/* Wait until QEMU closed the ring (COMPLETE) or deadline, take the rest,
 * close the trace (its dropped = the ring's), free d.  0, or -1 with err
 * (the trace is still written when records were moved). */
int iogap_ring_drain_finish(struct iogap_ring_drain *d, uint64_t deadline_ns,
			    uint64_t *records, uint64_t *dropped, char *err, size_t errlen);

/*
 * Remove from DIR the filter rings nobody kept whose QEMU is gone (kill -9,
 * a destroyed domain): a file is removed only when its name is the one the
 * filter gives its ring without ring= (iogap-<QEMU's pid>-<node>.ring) or
 * the one iogap run gives it (iogap-<iogap's pid>-<run id>-top|bottom.ring,
 * that iogap no longer running) -- a ring=PATH of the user's stays --, it is a
 * regular file of this user (any user's for root), its header is an iogap
 * filter ring's, no process holds the ring's lock (the filter holds one while
 * it has the ring open) and its writer no longer runs: another boot, or the
 * info's pid is gone or now names another process (pid_start, from
 * /proc/PID/stat).  Anything else stays.  Each removal is reported on LOG (if
 * not NULL).  The number removed, or -1 with err when DIR cannot be read.
 */
int iogap_ring_remove_stale(const char *dir, FILE *log, char *err, size_t errlen);

#endif
