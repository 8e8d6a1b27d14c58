/* SPDX-License-Identifier: MIT */
/*
 * The filter's time stamps alone (engines/stamp.c): the source is chosen by
 * the rule of stamp.h, the stamps are CLOCK_MONOTONIC nanoseconds (bracketed by
 * clock_gettime reads, across many re-anchorings of the TSC map), a known
 * sleep shows in full, and per thread they never go back.  The bounds are the
 * map's accuracy (far above what it achieves), not a speed.  TAP output.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../tap.h"
#include "stamp.h"

/* How far a stamp may be from CLOCK_MONOTONIC: 100 us, some thousand times
 * the error of one anchor. */
#define TOLERANCE_NS 100000ull

static bool first_line_is(const char *path, const char *want)
{
	char buf[64] = "";
	FILE *f = fopen(path, "r");
	bool ok;

	if (!f)
		return false;
	ok = fgets(buf, sizeof(buf), f) && !strcmp(buf, want);
	fclose(f);
	return ok;
}

static bool cpuinfo_has(const char *flag)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[4096], word[64];
	bool has = false;

	snprintf(word, sizeof(word), " %s", flag);
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "flags", 5)) {
			has = strstr(line, word) != NULL;
			break;
		}
	if (f)
		fclose(f);
	return has;
}

/* The rule, as the kernel and CPU state it here. */
static bool tsc_expected(void)
{
#if defined(__x86_64__)
	return first_line_is("/sys/devices/system/clocksource/clocksource0/current_clocksource",
			     "tsc\n") && cpuinfo_has("constant_tsc") && cpuinfo_has("nonstop_tsc");
#else
	return false;
#endif
}

/* Stamps between two clock_gettime reads, over ~300 ms of short sleeps (some
 * 30 windows: the map is re-anchored many times). */
static void test_bracketed(void)
{
	unsigned outside = 0, n = 0;

	for (int i = 0; i < 3000; i++) {
		uint64_t before = iogap_stamp_monotonic();
		uint64_t s = iogap_stamp_ns();
		uint64_t after = iogap_stamp_monotonic();

		n++;
		if (s + TOLERANCE_NS < before || s > after + TOLERANCE_NS)
			outside++;
		if (i % 10 == 0)
			usleep(1000);
	}
	ok(outside == 0, "%u of %u stamps within 100 us of the CLOCK_MONOTONIC reads around them",
	   n - outside, n);
}

static void test_known_sleep(void)
{
	uint64_t a = iogap_stamp_ns(), b;

	usleep(50000);
	b = iogap_stamp_ns();
	ok(b - a + TOLERANCE_NS >= 50000000ull,
	   "a 50 ms sleep shows in the stamps (%llu ns)", (unsigned long long)(b - a));
}

struct run {
	unsigned backwards;
	uint64_t worst;
};

static void *stamp_many(void *arg)
{
	struct run *r = arg;
	uint64_t last = iogap_stamp_ns();

	for (int i = 0; i < 3000000; i++) {
		uint64_t s = iogap_stamp_ns();

		if (s < last) {
			r->backwards++;
			if (last - s > r->worst)
				r->worst = last - s;
		}
		last = s;
	}
	return NULL;
}

/* Two threads race through re-anchorings: a stamp may come out at most a few
 * ns before the previous one (the filter clamps a record's end to its start);
 * never by anything the analysis could see. */
static void test_threads(void)
{
	struct run r[2] = { { 0, 0 }, { 0, 0 } };
	pthread_t t[2];

	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, stamp_many, &r[i]);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	ok(r[0].worst < 1000 && r[1].worst < 1000,
	   "per thread, 3M stamps each: none more than 1 us before the one before it "
	   "(%u and %u steps back, by at most %llu ns)", r[0].backwards, r[1].backwards,
	   (unsigned long long)(r[0].worst > r[1].worst ? r[0].worst : r[1].worst));
}

/* IOGAP_CLOCK=monotonic: clock_gettime, whatever the machine. */
static void test_forced(void)
{
	pid_t pid = fork();
	int st = 0;

	if (pid == 0) {
		setenv("IOGAP_CLOCK", "monotonic", 1);
		iogap_stamp_init();
		_exit(!strcmp(iogap_stamp_source(), "clock_gettime (IOGAP_CLOCK=monotonic)") &&
		      !iogap_stamp_clock.use_tsc ? 0 : 1);
	}
	waitpid(pid, &st, 0);
	ok(WIFEXITED(st) && WEXITSTATUS(st) == 0, "IOGAP_CLOCK=monotonic forces clock_gettime");
}

int main(void)
{
	bool want = tsc_expected();

	tap_plan(5);
	unsetenv("IOGAP_CLOCK");
	test_forced();
	iogap_stamp_init();
	ok(iogap_stamp_clock.use_tsc == want,
	   "source %s: %s expected (clocksource tsc, constant_tsc and nonstop_tsc)",
	   iogap_stamp_source(), want ? "tsc" : "clock_gettime");
	test_bracketed();
	test_known_sleep();
	test_threads();
	return tap_done();
}
