/* SPDX-License-Identifier: MIT */
/* TSC-based CLOCK_MONOTONIC stamps: calibration and re-anchoring (stamp.h). */
#include "stamp.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The correction of a segment's slope: at most 1/1024 of the rate, so two
 * segments differ by less than 0.1% and a stamp taken on the old one just
 * before a switch is never noticeably later than the next on the new one. */
#define MAX_CORRECTION_SHIFT 10

struct iogap_stamp_clock iogap_stamp_clock;

static pthread_once_t stamp_once = PTHREAD_ONCE_INIT;
static char stamp_source[160] = "clock_gettime";
static int reanchoring;                 /* try-lock of the re-anchoring thread */
static uint64_t base_tsc, base_ns;      /* first anchor: the long-run rate */

uint64_t iogap_stamp_monotonic(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

struct anchor {
	uint64_t tsc, ns;
};

/* A (tsc, CLOCK_MONOTONIC) pair taken together: the clock read bracketed by
 * two TSC reads, the tightest of a few tries (a preempted try is wide). */
static struct anchor take_anchor(void)
{
	struct anchor best = { 0, 0 };
	uint64_t best_width = UINT64_MAX;

	for (int i = 0; i < 5; i++) {
		uint64_t a = iogap_stamp_tsc(), ns = iogap_stamp_monotonic(), b = iogap_stamp_tsc();

		if (b - a < best_width) {
			best_width = b - a;
			best.tsc = a + (b - a) / 2;
			best.ns = ns;
		}
	}
	return best;
}

static bool file_starts_with(const char *path, const char *want)
{
	char buf[64] = "";
	FILE *f = fopen(path, "re");
	bool ok;

	if (!f)
		return false;
	ok = fgets(buf, sizeof(buf), f) && !strncmp(buf, want, strlen(want));
	fclose(f);
	return ok;
}

/* constant_tsc and nonstop_tsc in the first "flags" line of /proc/cpuinfo. */
static bool cpu_has_stable_tsc(void)
{
	FILE *f = fopen("/proc/cpuinfo", "re");
	char line[4096];
	bool constant = false, nonstop = false;

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "flags", 5))
			continue;
		constant = strstr(line, " constant_tsc") != NULL;
		nonstop = strstr(line, " nonstop_tsc") != NULL;
		break;
	}
	fclose(f);
	return constant && nonstop;
}

/* NULL when the TSC may be used, else why not. */
static const char *tsc_refused(void)
{
	const char *force = getenv("IOGAP_CLOCK");

	if (force && !strcmp(force, "monotonic"))
		return "IOGAP_CLOCK=monotonic";
#if !defined(__x86_64__)
	return "no TSC on this architecture";
#endif
	if (!file_starts_with("/sys/devices/system/clocksource/clocksource0/current_clocksource",
			      "tsc\n"))
		return "the kernel's clocksource is not tsc";
	if (!cpu_has_stable_tsc())
		return "the CPU lacks constant_tsc or nonstop_tsc";
	return NULL;
}

static void publish(uint64_t tsc0, uint64_t ns0, uint64_t mult)
{
	struct iogap_stamp_clock *c = &iogap_stamp_clock;
	unsigned next = (__atomic_load_n(&c->current, __ATOMIC_RELAXED) + 1) & 1;
	struct iogap_stamp_segment *s = &c->seg[next];
	uint64_t q = __atomic_load_n(&s->seq, __ATOMIC_RELAXED);

	__atomic_store_n(&s->seq, q + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	__atomic_store_n(&s->tsc0, tsc0, __ATOMIC_RELAXED);
	__atomic_store_n(&s->ns0, ns0, __ATOMIC_RELAXED);
	__atomic_store_n(&s->mult, mult, __ATOMIC_RELAXED);
	__atomic_store_n(&s->seq, q + 2, __ATOMIC_RELEASE);
	__atomic_store_n(&c->current, next, __ATOMIC_RELEASE);
}

/* ns per tick (32.32) between two anchors. */
static uint64_t rate(struct anchor a, struct anchor b)
{
	if (b.tsc <= a.tsc || b.ns <= a.ns)
		return 0;
	return (uint64_t)(((unsigned __int128)(b.ns - a.ns) << 32) / (b.tsc - a.tsc));
}

static void stamp_setup(void)
{
	struct iogap_stamp_clock *c = &iogap_stamp_clock;
	const char *why = tsc_refused();
	struct anchor a, b;
	uint64_t mult;

	if (why) {
		snprintf(stamp_source, sizeof(stamp_source), "clock_gettime (%s)", why);
		return;
	}
	/* a first rate over 5 ms; the re-anchoring refines it as the baseline grows */
	a = take_anchor();
	nanosleep(&(struct timespec){ 0, 5000000 }, NULL);
	b = take_anchor();
	mult = rate(a, b);
	if (!mult) {
		snprintf(stamp_source, sizeof(stamp_source), "clock_gettime (the TSC did not "
			 "advance with CLOCK_MONOTONIC while calibrating)");
		return;
	}
	base_tsc = a.tsc;
	base_ns = a.ns;
	c->window_ticks = (uint64_t)(((unsigned __int128)IOGAP_STAMP_WINDOW_NS << 32) / mult);
	publish(b.tsc, b.ns, mult);
	snprintf(stamp_source, sizeof(stamp_source), "tsc");
	__atomic_store_n(&c->use_tsc, true, __ATOMIC_RELEASE);
}

void iogap_stamp_init(void)
{
	pthread_once(&stamp_once, stamp_setup);
}

const char *iogap_stamp_source(void)
{
	return stamp_source;
}

/* The next segment from a fresh anchor: continuous with the current one at
 * the anchor, slope = long-run rate + a bounded correction of the error. */
static void reanchor(void)
{
	struct iogap_stamp_segment s;
	struct anchor now = take_anchor();
	uint64_t here, mult, limit;
	__int128 err, fix;

	iogap_stamp_load(&s);
	here = iogap_stamp_convert(now.tsc, s.tsc0, s.ns0, s.mult);
	mult = rate((struct anchor){ base_tsc, base_ns }, now);
	if (!mult)
		mult = s.mult;
	/* cancel the error err = true - mapped over the next window */
	err = (__int128)now.ns - (__int128)here;
	fix = err * ((__int128)1 << 32) / (__int128)iogap_stamp_clock.window_ticks;   /* err may be < 0: no shift */
	limit = mult >> MAX_CORRECTION_SHIFT;
	if (fix > (__int128)limit)
		fix = limit;
	if (fix < -(__int128)limit)
		fix = -(__int128)limit;
	/* after an idle spell (no stamp for several windows) start on the anchor
	 * itself rather than creep towards it (a request that spanned the spell
	 * keeps complete >= start through the filter's clamp); so also when far
	 * behind (a clock step forward) */
	if (now.tsc - s.tsc0 > 4 * iogap_stamp_clock.window_ticks ||
	    err > (__int128)IOGAP_STAMP_WINDOW_NS) {
		here = now.ns;
		fix = 0;
	}
	publish(now.tsc, here, (uint64_t)((__int128)mult + fix));
}

uint64_t iogap_stamp_reanchor(uint64_t t)
{
	struct iogap_stamp_segment s;

	iogap_stamp_load(&s);
	/* t before the segment (another thread just moved it on): no new anchor */
	if ((int64_t)(t - s.tsc0) > 0 &&
	    !__atomic_exchange_n(&reanchoring, 1, __ATOMIC_ACQUIRE)) {
		reanchor();
		__atomic_store_n(&reanchoring, 0, __ATOMIC_RELEASE);
		iogap_stamp_load(&s);
	}
	return iogap_stamp_convert(t, s.tsc0, s.ns0, s.mult);
}

uint64_t iogap_stamp_refresh(struct iogap_stamp_segment *cache, uint64_t t)
{
	iogap_stamp_load(cache);
	if (t - cache->tsc0 > iogap_stamp_clock.window_ticks) {
		uint64_t ns = iogap_stamp_reanchor(t);

		iogap_stamp_load(cache);
		return ns;
	}
	return iogap_stamp_convert(t, cache->tsc0, cache->ns0, cache->mult);
}
