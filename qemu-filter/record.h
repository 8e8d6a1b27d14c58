/* SPDX-License-Identifier: MIT */
/*
 * The filter's per-request recording: its stamps, its record stored straight
 * into a ring slot, and the write-tag scan that splits a write into the guest
 * requests it carries.  No QEMU dependency: iogap-filter.c calls it around
 * the child request, bench/filter-record-cost.c times the same code alone.
 */
#ifndef IOGAP_QEMU_FILTER_RECORD_H
#define IOGAP_QEMU_FILTER_RECORD_H

#include <stdint.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "iogap/trace.h"
#include "ring.h"
#include "stamp.h"
#include "tagscan.h"

/*
 * Per thread: its id and its own copy of the stamp map (stamp.h: no shared
 * load per stamp).  Reached through iogap_this_thread() only, noinline with a
 * barrier: a coroutine may resume on another thread across a yield, so the TLS
 * address must not be cached by the compiler across the child call (QEMU's
 * coroutine-tls.h has the same trick); call it again after every yield.
 */
struct iogap_thread {
	struct iogap_stamp_segment seg;   /* zero at first: refreshed on first use */
	uint32_t tid;                     /* 0 until first asked */
};

static __thread struct iogap_thread iogap_thread_state
	__attribute__((tls_model("initial-exec")));

static __attribute__((noinline, unused)) struct iogap_thread *iogap_this_thread(void)
{
	__asm__ volatile("" ::: "memory");
	return &iogap_thread_state;
}

/* Host CLOCK_MONOTONIC ns, from the TSC where the kernel trusts it (stamp.h). */
static inline uint64_t iogap_thread_ns(struct iogap_thread *th)
{
	return iogap_stamp_ns_cached(&th->seg);
}

static inline uint64_t iogap_now_ns(void)
{
	return iogap_thread_ns(iogap_this_thread());
}

static inline uint32_t iogap_thread_id(struct iogap_thread *th)
{
	if (__builtin_expect(th->tid == 0, 0))
		th->tid = (uint32_t)syscall(SYS_gettid);
	return th->tid;
}

/*
 * One record, stored straight into its ring slot (one cache line, written
 * once).  th: the completing thread (iogap_this_thread() after the child call).
 */
static inline __attribute__((always_inline)) void
iogap_record(struct iogap_ring *ring, struct iogap_thread *th, uint8_t op, int64_t offset,
	     int64_t bytes, uint64_t t0, uint64_t t1, int ret, uint8_t flags, uint64_t tag)
{
	uint64_t seq = iogap_ring_reserve(ring);
	struct iogap_trace_record *rec;

	if (seq == IOGAP_RING_FULL)
		return;         /* dropped and counted, the I/O goes on */
	rec = iogap_ring_slot(ring, seq);
	rec->tag = tag;
	rec->offset = (uint64_t)offset;
	rec->start_ns = t0;
	rec->issue_ns = t0;
	/* a TSC stamp taken on another CPU, or across a re-anchoring of the
	 * tick-to-ns map, may come out a few ns early: never before the entry */
	rec->complete_ns = t1 < t0 ? t0 : t1;
	rec->length = bytes > (int64_t)UINT32_MAX ? UINT32_MAX : (uint32_t)bytes;
	rec->result = ret < 0 ? ret : (bytes > INT32_MAX ? INT32_MAX : (int32_t)bytes);
	rec->thread = iogap_thread_id(th);
	rec->job = 0;
	rec->op = op;
	rec->flags = flags;
	rec->reserved = 0;
	iogap_ring_publish(ring, seq);
}

/* A request that ended now: its record, stamped by the completing thread. */
static inline __attribute__((always_inline)) void
iogap_record_now(struct iogap_ring *ring, uint8_t op, int64_t offset, int64_t bytes,
		 uint64_t t0, int ret, uint8_t flags)
{
	struct iogap_thread *th = iogap_this_thread();

	iogap_record(ring, th, op, offset, bytes, t0, iogap_thread_ns(th), ret, flags, 0);
}

/* Write tags: one record per guest request found in the payload (tagscan.h). */
struct iogap_write_ctx {
	struct iogap_ring *ring;
	struct iogap_thread *th;
	int64_t offset;
	uint64_t t0, t1;
	int ret;
	uint8_t flags;
};

static inline void iogap_write_part(void *ctx, uint64_t start, uint64_t len, uint8_t flags,
				    uint64_t tag)
{
	struct iogap_write_ctx *w = ctx;

	iogap_record(w->ring, w->th, IOGAP_OP_WRITE, w->offset + (int64_t)start, (int64_t)len,
		     w->t0, w->t1, w->ret, w->flags | flags, tag);
}

/* A payload that may carry tags: the full scan, one record per part.  Out of
 * line: its context on the stack would give the write path a stack canary. */
static __attribute__((noinline, unused)) void
iogap_record_parts(struct iogap_ring *ring, uint64_t run_id, struct iogap_thread *th,
		   const struct iovec *iov, int niov, size_t iov_offset, int64_t offset,
		   uint64_t len, uint64_t t0, uint64_t t1, int ret, uint8_t flags)
{
	struct iogap_write_ctx w = { ring, th, offset, t0, t1, ret, flags };

	iogap_tagscan_parts(iov, niov, iov_offset, len, run_id, iogap_write_part, &w);
}

/* A write's records: run_id, when set, is the one its tags must carry. */
static inline void iogap_record_write(struct iogap_ring *ring, uint64_t run_id,
				      struct iogap_thread *th, const struct iovec *iov, int niov,
				      size_t iov_offset, int64_t offset, int64_t bytes, uint64_t t0,
				      uint64_t t1, int ret, uint8_t flags)
{
	uint64_t len = bytes > 0 ? (uint64_t)bytes : 0, tag;
	uint8_t tflags;

	if (iogap_tagscan_one_part(iov, niov, iov_offset, len, run_id, &tflags, &tag))
		/* untagged, or one request (the common cases): without the callback */
		iogap_record(ring, th, IOGAP_OP_WRITE, offset, bytes, t0, t1, ret, flags | tflags,
			     tag);
	else
		iogap_record_parts(ring, run_id, th, iov, niov, iov_offset, offset, len, t0, t1,
				   ret, flags);
}

#endif
