/*
 * stamp-cost — what one request time stamp costs on this machine: the stamp the filter and
 * the probe take (engines/stamp.h, the TSC where the kernel trusts it), a bare TSC read, and
 * clock_gettime(CLOCK_MONOTONIC), each timed over a loop of back-to-back reads.  The filter
 * takes two stamps per request, so twice the first figure is the part of its added cost no
 * code change can remove; under a hypervisor a TSC read can cost several times bare metal's.
 *
 * Usage: stamp-cost [READS]   (prints "source=S stamp_ns=X rdtsc_ns=Y clock_gettime_ns=Z")
 * Built by bench/meson.build into <build>/bench.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "stamp.h"

static volatile uint64_t sink;

/* ns per call of read() over n calls, the best of 5 passes (a preempted pass is slow) */
static double per_read(uint64_t (*read)(void), uint64_t n)
{
	double best = 1e30;

	for (int pass = 0; pass < 5; pass++) {
		uint64_t t0 = iogap_stamp_monotonic(), acc = 0;

		for (uint64_t i = 0; i < n; i++)
			acc += read();
		sink = acc;
		double ns = (double)(iogap_stamp_monotonic() - t0) / (double)n;
		if (ns < best)
			best = ns;
	}
	return best;
}

static struct iogap_stamp_segment cache;

static uint64_t stamp(void)
{
	return iogap_stamp_ns_cached(&cache);
}

int main(int argc, char **argv)
{
	uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 0) : 2000000;

	if (!n) {
		fprintf(stderr, "usage: %s [READS]\n", argv[0]);
		return 2;
	}
	iogap_stamp_init();
	printf("source=%s stamp_ns=%.1f rdtsc_ns=%.1f clock_gettime_ns=%.1f\n",
	       iogap_stamp_clock.use_tsc ? "tsc" : "clock_gettime", per_read(stamp, n),
	       iogap_stamp_clock.use_tsc ? per_read(iogap_stamp_tsc, n) : 0.0,
	       per_read(iogap_stamp_monotonic, n));
	return 0;
}
