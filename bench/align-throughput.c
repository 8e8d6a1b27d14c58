/* SPDX-License-Identifier: MIT */
/*
 * Pairing throughput: a synthetic VM run (tests/align/synth.h) of N
 * requests, half reads, half tagged writes, 5% of the large writes split;
 * times iogap_clock_from_sync + iogap_pair_requests and prints guest
 * requests paired per second.  Built by bench/align-throughput.
 * Filter records come in time order (as a ring delivers them), or shuffled
 * (worst case: every join by index is a cache miss).
 *
 *   align-throughput [requests] [untagged 0|1] [shuffled 0|1]
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "synth.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	struct synth_cfg c;
	struct synth s;
	struct iogap_clock_map m;
	struct iogap_pairing pr;
	char err[256];
	double t0, t1, t2;

	synth_default(&c);
	c.n = argc > 1 ? strtoull(argv[1], NULL, 0) : 5000000;
	c.tagging = !(argc > 2 && atoi(argv[2]));
	c.shuffle = argc > 3 && atoi(argv[3]);
	c.gap_mean = 2000;   /* ~500k IOPS: 5M requests in ~10 s */
	if (synth_make(&c, &s)) {
		fprintf(stderr, "align-throughput: out of memory\n");
		return 1;
	}
	t0 = now();
	if (iogap_clock_from_sync(s.sa, s.nsa, s.sb, s.nsb, &m)) {
		fprintf(stderr, "align-throughput: clock_from_sync failed\n");
		return 1;
	}
	t1 = now();
	if (iogap_pair_requests(s.g, s.ng, s.t, s.nt, s.b, s.nb, &m, &pr, err, sizeof(err))) {
		fprintf(stderr, "align-throughput: %s\n", err);
		return 1;
	}
	t2 = now();
	printf("requests %zu (top %zu, bottom %zu records), writes %s, filter records %s\n", s.ng,
	       s.nt, s.nb, c.tagging ? "tagged" : "untagged", c.shuffle ? "shuffled" : "in time order");
	printf("paired: reads %" PRIu64 "/%" PRIu64 " (ambiguous %" PRIu64 "), writes %" PRIu64 "/%" PRIu64
	       " (exact %" PRIu64 ", split %" PRIu64 ")\n",
	       pr.counts.paired_top[0], pr.counts.guest[0], pr.counts.ambiguous[0],
	       pr.counts.paired_top[1], pr.counts.guest[1], pr.counts.exact[1], pr.counts.split[1]);
	printf("map: %s, offset error %+" PRId64 " ns, bound width %" PRId64 " ns, consistent %d\n",
	       pr.map.method, pr.map.offset_ns - synth_offset_at(&c, pr.map.ref_host_ns),
	       pr.map.bound_hi_ns - pr.map.bound_lo_ns, pr.map.bound_consistent);
	printf("clock_from_sync %.3f ms, pair_requests %.3f s\n", (t1 - t0) * 1e3, t2 - t1);
	printf("pairs/s %.0f\n", (double)s.ng / (t2 - t1));
	iogap_pairing_free(&pr);
	synth_free(&s);
	return 0;
}
