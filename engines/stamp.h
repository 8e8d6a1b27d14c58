/* SPDX-License-Identifier: MIT */
/*
 * Request time stamps of the filter and the probe: CLOCK_MONOTONIC
 * nanoseconds, as in every trace, but read from the TSC where the kernel
 * itself trusts it (fio's clocksource=cpu, its default on such machines).
 *
 * Why: clock_gettime() (vDSO) costs several times a bare rdtsc on this kind of
 * machine (it orders the read with lfence and goes through the vDSO), and the
 * filter takes two stamps per request, the probe two or three.  The records keep CLOCK_MONOTONIC ns, so
 * the ring, the drain and every trace file are unchanged.
 *
 * How: ticks become ns through a piecewise-linear map, ns = ns0 + (tsc - tsc0)
 * * mult / 2^32, that is re-anchored on CLOCK_MONOTONIC every STAMP_WINDOW_NS
 * by whichever thread first finds it older than that (one clock_gettime per
 * window, not per request).  Each new segment starts where the previous one
 * is at that moment (no jump) and its slope is the average rate since the
 * first anchor, corrected so that the remaining error is gone by the end of
 * the next window (the correction is bounded: the map never runs backwards).
 * The error against clock_gettime stays around the jitter of one anchor
 * (tens of ns); tests/filter/stamp.c checks it.  Segments live in two slots
 * that the re-anchoring thread alternates, each with a sequence counter, so a
 * reader never waits for a writer (a preempted writer cannot stall I/O).
 *
 * TSC only when the kernel uses it as its clocksource (it then keeps it
 * synchronized across CPUs and checks it) and the CPU says constant_tsc and
 * nonstop_tsc; IOGAP_CLOCK=monotonic forces clock_gettime.  Otherwise,
 * or on another architecture, every stamp is a clock_gettime().
 *
 * No QEMU dependency and no other source of ours: the filter compiles it in,
 * tests/filter/stamp.c uses it alone.  Stamps of one thread can come out a
 * few ns early across a re-anchoring: callers that need them ordered clamp
 * (the filter per record, iogap_now_ns() per thread).
 */
#ifndef IOGAP_STAMP_H
#define IOGAP_STAMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#define IOGAP_STAMP_WINDOW_NS 10000000ull   /* re-anchor every 10 ms */

struct iogap_stamp_segment {
	uint64_t seq;         /* odd while being written */
	uint64_t tsc0;
	uint64_t ns0;
	uint64_t mult;        /* ns per tick, 32.32 fixed point */
};

struct iogap_stamp_clock {
	bool use_tsc;
	unsigned current;                         /* slot readers use */
	uint64_t window_ticks;                    /* STAMP_WINDOW_NS in ticks */
	struct iogap_stamp_segment seg[2] __attribute__((aligned(64)));
};

extern struct iogap_stamp_clock iogap_stamp_clock;

/* Decide the source and calibrate (a few ms, once per process; later calls
 * return at once).  Safe to call from several threads. */
void iogap_stamp_init(void);
/* "tsc", or "clock_gettime (why not the TSC)": for the ring's info text. */
const char *iogap_stamp_source(void);
/* The slow path of iogap_stamp_ns(): the map is older than a window.  The
 * slow paths stay out of line (also under link-time optimization): inlined,
 * they made every stamp save and restore six registers. */
__attribute__((cold, noinline)) uint64_t iogap_stamp_reanchor(uint64_t tsc);
/* The slow path of iogap_stamp_ns_cached(): copy the current segment into
 * *cache (re-anchoring first if it is older than a window too); ns of tsc. */
__attribute__((cold, noinline)) uint64_t iogap_stamp_refresh(struct iogap_stamp_segment *cache,
								   uint64_t tsc);

/* CLOCK_MONOTONIC ns from clock_gettime().  Out of line: its timespec would
 * give every caller that inlines a stamp a stack canary (the filter is built
 * with -fstack-protector-strong) on the TSC path too. */
__attribute__((noinline)) uint64_t iogap_stamp_monotonic(void);

static inline uint64_t iogap_stamp_tsc(void)
{
#if defined(__x86_64__)
	return __rdtsc();
#else
	return 0;   /* never used: use_tsc stays false */
#endif
}

/* ns of tick t on segment s; t may lie before s->tsc0. */
static inline uint64_t iogap_stamp_convert(uint64_t t, uint64_t tsc0, uint64_t ns0,
					   uint64_t mult)
{
	if (t >= tsc0)
		return ns0 + (uint64_t)(((unsigned __int128)(t - tsc0) * mult) >> 32);
	return ns0 - (uint64_t)(((unsigned __int128)(tsc0 - t) * mult) >> 32);
}

/* A consistent copy of the current segment. */
static inline void iogap_stamp_load(struct iogap_stamp_segment *out)
{
	const struct iogap_stamp_clock *c = &iogap_stamp_clock;

	for (;;) {
		const struct iogap_stamp_segment *s =
			&c->seg[__atomic_load_n(&c->current, __ATOMIC_ACQUIRE) & 1];
		uint64_t q = __atomic_load_n(&s->seq, __ATOMIC_ACQUIRE);

		out->tsc0 = __atomic_load_n(&s->tsc0, __ATOMIC_RELAXED);
		out->ns0 = __atomic_load_n(&s->ns0, __ATOMIC_RELAXED);
		out->mult = __atomic_load_n(&s->mult, __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (!(q & 1) && __atomic_load_n(&s->seq, __ATOMIC_RELAXED) == q)
			return;
	}
}

/* Host CLOCK_MONOTONIC ns, now. */
static inline uint64_t iogap_stamp_ns(void)
{
	struct iogap_stamp_segment s;
	uint64_t t;

	if (!iogap_stamp_clock.use_tsc)
		return iogap_stamp_monotonic();
	t = iogap_stamp_tsc();
	iogap_stamp_load(&s);
	if (__builtin_expect(t - s.tsc0 > iogap_stamp_clock.window_ticks, 0))
		return iogap_stamp_reanchor(t);
	return iogap_stamp_convert(t, s.tsc0, s.ns0, s.mult);
}

/*
 * The same stamp from a copy of the segment the caller keeps (one per thread,
 * zeroed at first): no shared load per stamp, only at the copy's window end.
 * The result is the one iogap_stamp_ns() gives: a segment is replaced only
 * once a stamp past its window was taken, and its successor starts where it
 * ends, so within its window the copy is the map.
 */
static inline uint64_t iogap_stamp_ns_cached(struct iogap_stamp_segment *cache)
{
	uint64_t t;

	if (!iogap_stamp_clock.use_tsc)
		return iogap_stamp_monotonic();
	t = iogap_stamp_tsc();
	if (__builtin_expect(t - cache->tsc0 > iogap_stamp_clock.window_ticks, 0))
		return iogap_stamp_refresh(cache, t);
	return iogap_stamp_convert(t, cache->tsc0, cache->ns0, cache->mult);
}

#endif
