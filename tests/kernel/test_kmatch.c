/* SPDX-License-Identifier: MIT */
/*
 * Kernel points: the trace_pipe line parser on lines of the two kernels
 * iogap meets (6.1 in the guest, 6.18 on this host), and the matching rule
 * (docs/kernel-points.md) on synthetic requests with a known truth.
 */
#include <stdio.h>
#include <string.h>

#include "kernel_points.h"
#include "kmatch.h"
#include "../tap.h"

static void test_parse(void)
{
	struct iogap_kevent ev;
	uint64_t lost = 0;

	ok(iogap_kevent_parse("  clang-13897   [001] ..... 24964.642302: block_rq_issue: 254,0 W "
			      "204800 () 352064000 + 400 be,0,4 [clang]", &ev, &lost) == 1 &&
	   !ev.complete && ev.ns == 24964642302000ull && ev.sector == 352064000 &&
	   ev.nr_sector == 400 && ev.op == IOGAP_OP_WRITE && ev.dev_major == 254,
	   "6.18 issue line: stamp, sector, size, op, device");
	ok(iogap_kevent_parse("  <idle>-0 [001] ..s1. 24964.650388: block_rq_complete: 254,0 RS () "
			      "352064000 + 8 be,0,4 [-5]", &ev, &lost) == 1 && ev.complete &&
	   ev.error == -5 && ev.op == IOGAP_OP_READ && ev.nr_sector == 8,
	   "6.18 complete line: error and op");
	ok(iogap_kevent_parse(" iogap-probe-231 [000] d..2.   88.000001: block_rq_issue: 254,0 WFS "
			      "4096 () 2048 + 8 [iogap-probe]", &ev, &lost) == 1 &&
	   ev.fua && ev.op == IOGAP_OP_WRITE && ev.ns == 88000001000ull,
	   "6.1 issue line (no ioprio), FUA write");
	ok(iogap_kevent_parse("  <idle>-0 [000] ..s.   88.000101: block_rq_complete: 254,0 FF () "
			      "0 + 0 [0]", &ev, &lost) == 1 && ev.op == IOGAP_OP_FLUSH,
	   "6.1 complete line of a flush");
	ok(iogap_kevent_parse("CPU:1 [LOST 42 EVENTS]", &ev, &lost) == 0 && lost == 42,
	   "lost events are counted");
	ok(iogap_kevent_parse("  x-1 [000] ..... 1.5: block_rq_issue: garbage", &ev, &lost) == -1,
	   "a block line in an unknown format is an error, not a silent skip");
}

static struct iogap_trace_record rec(uint8_t op, uint64_t off, uint32_t len, uint64_t s,
				     uint64_t c)
{
	return (struct iogap_trace_record){ .op = op, .offset = off, .length = len,
					    .start_ns = s, .issue_ns = s, .complete_ns = c };
}

static void test_rule(void)
{
	struct iogap_kmatch *m = iogap_kmatch_new(1 << 20, 1000);
	struct iogap_trace_record k[] = {
		rec(IOGAP_OP_READ, (1 << 20) + 4096, 4096, 10500, 19000),   /* A: exact */
		rec(IOGAP_OP_READ, (1 << 20) + 8192, 4096, 30000, 31000),   /* B1 twin */
		rec(IOGAP_OP_READ, (1 << 20) + 8192, 4096, 30500, 32000),   /* B2 twin */
		rec(IOGAP_OP_READ, (1 << 20) + 65536, 8192, 41000, 45000),  /* C: merged */
		rec(IOGAP_OP_READ, (1 << 20) + 131072, 4096, 51000, 53000), /* D: part 1 */
		rec(IOGAP_OP_READ, (1 << 20) + 135168, 4096, 51000, 54000), /* D: part 2 */
		rec(IOGAP_OP_WRITE, (1 << 20) + 262144, 4096, 61000, 62000), /* E: other op */
		rec(IOGAP_OP_READ, (1 << 20) + 4096, 4096, 72000, 79000),   /* F: late twin of A */
	};
	struct iogap_trace_record got = { 0 };
	const struct iogap_kmatch_counts *c;
	int in_order = 1;

	for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++)
		in_order &= iogap_kmatch_add_kernel(m, &k[i]) == 0;
	ok(in_order, "kernel requests added in completion order");
	/* A's issue stamp 10500 is truncated: the request started at 10900 */
	ok(iogap_kmatch_request(m, &(struct iogap_trace_record){ .op = IOGAP_OP_READ,
			.offset = 4096, .length = 4096, .start_ns = 10900, .complete_ns = 20000 },
			&got) == IOGAP_KMATCH_MATCHED && got.start_ns == 10500 &&
	   got.complete_ns == 19000,
	   "same sector, size and window: matched, within one stamp step of the start");
	ok(iogap_kmatch_request(m, &(struct iogap_trace_record){ .op = IOGAP_OP_READ,
			.offset = 4096, .length = 4096, .start_ns = 12000, .complete_ns = 20000 },
			&got) == IOGAP_KMATCH_NONE,
	   "a kernel issue more than a stamp step before the start is outside the window");
	ok(iogap_kmatch_request(m, &(struct iogap_trace_record){ .op = IOGAP_OP_READ,
			.offset = 8192, .length = 4096, .start_ns = 29000, .complete_ns = 33000 },
			&got) == IOGAP_KMATCH_AMBIGUOUS, "two candidates: ambiguous, none taken");
	ok(iogap_kmatch_request(m, &(struct iogap_trace_record){ .op = IOGAP_OP_READ,
			.offset = 65536, .length = 4096, .start_ns = 40000, .complete_ns = 46000 },
			&got) == IOGAP_KMATCH_MERGED, "a larger kernel request around it: merged");
	ok(iogap_kmatch_request(m, &(struct iogap_trace_record){ .op = IOGAP_OP_READ,
			.offset = 131072, .length = 8192, .start_ns = 50000, .complete_ns = 55000 },
			&got) == IOGAP_KMATCH_SPLIT, "two halves: split");
	ok(iogap_kmatch_request(m, &(struct iogap_trace_record){ .op = IOGAP_OP_READ,
			.offset = 262144, .length = 4096, .start_ns = 60000, .complete_ns = 63000 },
			&got) == IOGAP_KMATCH_NONE, "a write at the sector of a read: no match");
	iogap_kmatch_forget_before(m, 70000);
	ok(iogap_kmatch_held(m) == 1, "forgetting before 70 us keeps the one request after it (%zu)",
	   iogap_kmatch_held(m));
	ok(iogap_kmatch_request(m, &(struct iogap_trace_record){ .op = IOGAP_OP_READ,
			.offset = 4096, .length = 4096, .start_ns = 71000, .complete_ns = 80000 },
			&got) == IOGAP_KMATCH_MATCHED && got.start_ns == 72000,
	   "the same sector later matches its own kernel request");
	ok(iogap_kmatch_add_kernel(m, &k[0]) == -1, "a kernel request out of order is refused");
	c = iogap_kmatch_counts(m);
	ok(c->matched == 2 && c->none == 2 && c->ambiguous == 1 && c->merged == 1 && c->split == 1,
	   "counts: 2 matched, 2 none, 1 ambiguous, 1 merged, 1 split");
	iogap_kmatch_free(m);
}

/* 100k requests at queue depth 4 streamed window by window: every one
 * matched while the window stays the size of the queue, not the run. */
static void test_stream(void)
{
	struct iogap_kmatch *m = iogap_kmatch_new(0, 1000);
	size_t matched = 0, most_held = 0;

	for (uint64_t i = 0; i < 100000; i++) {
		uint64_t s = 1000000 + i * 10000, off = (i * 7919 % 100000) * 4096;
		struct iogap_trace_record k = rec(IOGAP_OP_READ, off, 4096, s + 2000, s + 30000);
		struct iogap_trace_record r = rec(IOGAP_OP_READ, off, 4096, s, s + 31000), got;

		iogap_kmatch_add_kernel(m, &k);
		if (i >= 4) {   /* the request issued 4 earlier has completed */
			uint64_t ps = s - 40000, poff = ((i - 4) * 7919 % 100000) * 4096;

			r = rec(IOGAP_OP_READ, poff, 4096, ps, ps + 31000);
			matched += iogap_kmatch_request(m, &r, &got) == IOGAP_KMATCH_MATCHED;
			iogap_kmatch_forget_before(m, ps);
		}
		if (iogap_kmatch_held(m) > most_held)
			most_held = iogap_kmatch_held(m);
	}
	ok(matched == 100000 - 4, "streamed: every request matched (%zu)", matched);
	ok(most_held <= 8, "the window held at most %zu kernel requests", most_held);
	iogap_kmatch_free(m);
}

int main(void)
{
	tap_plan(19);
	test_parse();
	test_rule();
	test_stream();
	return tap_done();
}
