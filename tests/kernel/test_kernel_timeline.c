/* SPDX-License-Identifier: MIT */
/*
 * The kernel-fed timeline points (timeline.def, IOGAP_KERNEL_FED;
 * docs/kernel-points.md): a run without kernel points keeps today's points
 * and stages; with them, a request's matched kernel request stamps the guest
 * kernel's issue and completion (VM, guest clock mapped through the
 * request's own offset) and the bare kernel's issue and device completion,
 * the stages split at them and still sum to the total; a request without a
 * matched kernel request is not complete.
 */
#include <stdio.h>
#include <string.h>

#include "../tap.h"
#include "timeline.h"

#define BIT(p) ((iogap_tl_mask)1 << IOGAP_TL_##p)

static const char *keys(const struct iogap_stages *ss)
{
	static char b[512];
	size_t l = 0;

	b[0] = 0;
	for (size_t i = 0; i < ss->n; i++)
		l += (size_t)snprintf(b + l, sizeof(b) - l, "%s%s", i ? "," : "", ss->s[i].key);
	return b;
}

/* sum of the main stages' durations */
static int64_t main_sum(const struct iogap_timeline *tl, const struct iogap_stages *ss)
{
	int64_t sum = 0;

	for (size_t i = 0; i < ss->n; i++)
		if (!(ss->s[i].flags & IOGAP_STAGE_DETAIL))
			sum += iogap_timeline_stage_ns(tl, &ss->s[i]);
	return sum;
}

static void test_vm(void)
{
	/* guest clock = host clock - 500000 */
	struct iogap_trace_record g = { .start_ns = 1000, .issue_ns = 1300, .complete_ns = 9000 };
	struct iogap_trace_record k = { .start_ns = 1200, .issue_ns = 1200, .complete_ns = 8000 };
	struct iogap_trace_record top = { .start_ns = 501500, .complete_ns = 507000 };
	struct iogap_trace_record bottom = { .start_ns = 502000, .complete_ns = 506000 };
	struct iogap_pair p = { .guest = &g, .top = &top, .bottom = &bottom,
				.g_start = 501000, .g_issue = 501300, .g_complete = 509000,
				.top_entry = 501500, .top_exit = 507000,
				.bottom_entry = 502000, .bottom_exit = 506000 };
	struct iogap_stages today, deep;
	struct iogap_timeline tl;

	iogap_timeline_stages(IOGAP_TL_VM, iogap_timeline_produced(IOGAP_TL_VM), &today);
	ok(!(today.points & (BIT(VM_GK_ISSUE) | BIT(VM_GK_COMPLETE))) &&
	   !strcmp(keys(&today), "G.submit,G->Q,Q.fmt,B,Q.ret,Q->G"),
	   "a run without kernel points: today's VM stages (%s)", keys(&today));
	iogap_timeline_stages(IOGAP_TL_VM, iogap_timeline_produced_kernel(IOGAP_TL_VM), &deep);
	ok(!strcmp(keys(&deep), "G.submit,G.kern,GK->Q,Q.fmt,B,Q.ret,Q->GK,G.ret"),
	   "with kernel points: %s", keys(&deep));
	iogap_timeline_from_pair_kernel(&p, &k, &tl);
	ok(iogap_timeline_complete(&tl, &deep), "a pair with its kernel request has every point");
	ok(tl.at[IOGAP_TL_VM_GK_ISSUE].own == 1200 && tl.at[IOGAP_TL_VM_GK_ISSUE].t == 501200 &&
	   tl.at[IOGAP_TL_VM_GK_COMPLETE].t == 508000,
	   "guest kernel stamps: on the guest clock, and mapped as the request's start is");
	ok(iogap_timeline_stage_ns(&tl, &deep.s[1]) == 200 &&
	   iogap_timeline_stage_ns(&tl, &deep.s[2]) == 300 &&
	   iogap_timeline_stage_ns(&tl, &deep.s[6]) == 1000 &&
	   iogap_timeline_stage_ns(&tl, &deep.s[7]) == 1000,
	   "G.kern 200, GK->Q 300, Q->GK 1000, G.ret 1000 ns");
	ok(main_sum(&tl, &deep) == iogap_timeline_total_ns(&tl, &deep),
	   "the stages sum to the total (%lld)", (long long)main_sum(&tl, &deep));
	iogap_timeline_from_pair_kernel(&p, NULL, &tl);
	ok(!iogap_timeline_complete(&tl, &deep) && iogap_timeline_complete(&tl, &today),
	   "no kernel request matched: not complete with kernel points, complete without");
}

static void test_bare(void)
{
	struct iogap_trace_record r = { .start_ns = 1000, .issue_ns = 1300, .complete_ns = 9000 };
	struct iogap_trace_record k = { .start_ns = 1100, .issue_ns = 1100, .complete_ns = 8500 };
	struct iogap_stages deep;
	struct iogap_timeline tl;

	iogap_timeline_stages(IOGAP_TL_BARE, iogap_timeline_produced_kernel(IOGAP_TL_BARE), &deep);
	ok(!strcmp(keys(&deep), "slat,K.sub,D,K.ret"), "bare stages with kernel points: %s",
	   keys(&deep));
	iogap_timeline_from_record_kernel(&r, &k, &tl);
	ok(iogap_timeline_complete(&tl, &deep) && iogap_timeline_stage_ns(&tl, &deep.s[1]) == 100 &&
	   iogap_timeline_stage_ns(&tl, &deep.s[2]) == 7400 &&
	   iogap_timeline_stage_ns(&tl, &deep.s[3]) == 500,
	   "kernel submit 100, device 7400, completion path 500 ns");
	ok(main_sum(&tl, &deep) == iogap_timeline_total_ns(&tl, &deep) &&
	   iogap_timeline_total_ns(&tl, &deep) == 8000, "they sum to the request's 8000 ns");
}

int main(void)
{
	tap_plan(10);
	test_vm();
	test_bare();
	return tap_done();
}
