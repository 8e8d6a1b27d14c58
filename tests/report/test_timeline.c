/* SPDX-License-Identifier: MIT */
/*
 * The request timeline (host-tools/analysis/timeline.h, docs/timeline.md):
 * the stages of a point set, detail stages, clocks and crossings, the gap
 * rows' pairing with bare metal (kernel with kernel, device with device,
 * merged where the bare run knows nothing finer), a VM without filter
 * points (passthrough) compared point for point, and a request's stage
 * durations from its pair or record.
 */
#include <stdio.h>
#include <string.h>

#include "tap.h"
#include "timeline.h"

#define BIT(p) ((iogap_tl_mask)1 << IOGAP_TL_##p)

/* "k1,k2,..." of a side's stages */
static const char *keys(const struct iogap_stages *ss)
{
	static char b[512];
	size_t l = 0;

	b[0] = 0;
	for (size_t i = 0; i < ss->n; i++)
		l += (size_t)snprintf(b + l, sizeof(b) - l, "%s%s", i ? "," : "", ss->s[i].key);
	return b;
}

/* "key[bare_from..bare_to]" per gap row, -1 where only the VM has it */
static const char *rows(const struct iogap_gap_rows *gr)
{
	static char b[512];
	size_t l = 0;

	b[0] = 0;
	for (size_t i = 0; i < gr->n; i++)
		l += (size_t)snprintf(b + l, sizeof(b) - l, "%s%s[%d..%d]", i ? "," : "",
				      gr->r[i].stage.gap_key, gr->r[i].bare_from, gr->r[i].bare_to);
	return b;
}

static void test_today(void)
{
	struct iogap_stages vm, bare;
	struct iogap_gap_rows gr;
	char want[256];

	iogap_timeline_stages(IOGAP_TL_VM, iogap_timeline_produced(IOGAP_TL_VM), &vm);
	iogap_timeline_stages(IOGAP_TL_BARE, iogap_timeline_produced(IOGAP_TL_BARE), &bare);
	ok(!strcmp(keys(&vm), "G.submit,G->Q,Q.fmt,B,Q.ret,Q->G"),
	   "VM stages with today's producers: %s", keys(&vm));
	ok(vm.s[0].flags & IOGAP_STAGE_DETAIL && vm.s[0].within == 1 &&
	   !(vm.s[1].flags & IOGAP_STAGE_DETAIL),
	   "G.submit is a detail inside G->Q");
	ok((vm.s[1].flags & IOGAP_STAGE_CROSSING) && (vm.s[5].flags & IOGAP_STAGE_CROSSING) &&
	   !(vm.s[0].flags & IOGAP_STAGE_CROSSING) && !(vm.s[2].flags & IOGAP_STAGE_CROSSING) &&
	   !(vm.s[3].flags & IOGAP_STAGE_CROSSING) && !(vm.s[4].flags & IOGAP_STAGE_CROSSING),
	   "only G->Q and Q->G cross clocks");
	ok(vm.first == IOGAP_TL_VM_START && vm.last == IOGAP_TL_VM_REAP, "the total: start to reap");
	ok(!strcmp(keys(&bare), "slat,lat"), "bare stages: %s", keys(&bare));
	iogap_timeline_gap_rows(&vm, &bare, &gr);
	snprintf(want, sizeof(want), "G->Q[-1..-1],Q.fmt[-1..-1],backend[%d..%d],Q.ret[-1..-1],"
		 "Q->G[-1..-1]", IOGAP_TL_BARE_START, IOGAP_TL_BARE_REAP);
	ok(!strcmp(rows(&gr), want), "gap rows: %s (B against the bare total)", rows(&gr));
	ok(gr.r[0].crossing && gr.r[4].crossing && !gr.r[2].crossing, "crossing rows carry e");
}

/* The kernel and device points on both sides: B splits, each part is
 * compared with its bare-metal counterpart. */
static void test_deeper(void)
{
	iogap_tl_mask vmp = iogap_timeline_produced(IOGAP_TL_VM) | BIT(VM_HK_ISSUE) |
			    BIT(VM_DEV_COMPLETE);
	iogap_tl_mask barep = iogap_timeline_produced(IOGAP_TL_BARE) | BIT(BARE_K_ISSUE) |
			      BIT(BARE_DEV_COMPLETE);
	struct iogap_stages vm, bare, bare_plain, unnamed;
	struct iogap_gap_rows gr;
	char want[512];

	iogap_timeline_stages(IOGAP_TL_VM, vmp, &vm);
	iogap_timeline_stages(IOGAP_TL_BARE, barep, &bare);
	ok(!strcmp(keys(&vm), "G.submit,G->Q,Q.fmt,HK.sub,D,HK.ret,Q.ret,Q->G"),
	   "VM stages with kernel and device: %s", keys(&vm));
	iogap_timeline_stages(IOGAP_TL_VM, vmp & ~BIT(VM_TOP_ENTRY), &unnamed);
	ok(!strcmp(unnamed.s[1].key, "G.start->Q.bottom.in") &&
	   !strcmp(unnamed.s[1].where, "between the guest's start of the request and QEMU's bottom "
		   "filter entry"), "an unnamed stage is described by its points: %s: %s",
	   unnamed.s[1].key, unnamed.s[1].where);
	iogap_timeline_gap_rows(&vm, &bare, &gr);
	snprintf(want, sizeof(want), "G->Q[-1..-1],Q.fmt[-1..-1],K.sub[%d..%d],"
		 "device[%d..%d],K.ret[%d..%d],Q.ret[-1..-1],"
		 "Q->G[-1..-1]", IOGAP_TL_BARE_START, IOGAP_TL_BARE_K_ISSUE, IOGAP_TL_BARE_K_ISSUE,
		 IOGAP_TL_BARE_DEV_COMPLETE, IOGAP_TL_BARE_DEV_COMPLETE, IOGAP_TL_BARE_REAP);
	ok(!strcmp(rows(&gr), want), "kernel with kernel, device with device: %s", rows(&gr));

	/* the bare run without them: the VM's parts of B are one row against the bare total */
	iogap_timeline_stages(IOGAP_TL_BARE, iogap_timeline_produced(IOGAP_TL_BARE), &bare_plain);
	iogap_timeline_gap_rows(&vm, &bare_plain, &gr);
	snprintf(want, sizeof(want), "G->Q[-1..-1],Q.fmt[-1..-1],backend[%d..%d],Q.ret[-1..-1],"
		 "Q->G[-1..-1]", IOGAP_TL_BARE_START, IOGAP_TL_BARE_REAP);
	ok(!strcmp(rows(&gr), want) && gr.r[2].first == 3 && gr.r[2].last == 5,
	   "bare run without kernel points: B's three parts merge into the backend row: %s",
	   rows(&gr));
}

/* A passed-through device (no filter points): the guest kernel's issue to
 * its completion is the device, and each guest stage has its bare one. */
static void test_passthrough(void)
{
	iogap_tl_mask vmp = iogap_timeline_produced_by(IOGAP_TL_VM, true, false, false);
	struct iogap_stages vm, bare, bare_plain;
	struct iogap_gap_rows gr;
	struct iogap_trace_record g = { .start_ns = 1000, .issue_ns = 1300, .complete_ns = 9000 };
	struct iogap_trace_record k = { .issue_ns = 2000, .complete_ns = 7000 };
	struct iogap_pair p = { .guest = &g, .kernel = &k, .g_start = 501000, .g_issue = 501300,
				.g_complete = 509000 };
	struct iogap_timeline tl;
	char want[512];

	ok(!(vmp & (BIT(VM_TOP_ENTRY) | BIT(VM_BOTTOM_ENTRY) | BIT(VM_BOTTOM_EXIT) |
		    BIT(VM_TOP_EXIT) | BIT(VM_HK_ISSUE))), "no filter points without filters");
	iogap_timeline_stages(IOGAP_TL_VM, vmp, &vm);
	iogap_timeline_stages(IOGAP_TL_BARE, iogap_timeline_produced_kernel(IOGAP_TL_BARE), &bare);
	ok(!strcmp(keys(&vm), "G.submit,G.kern,D,G.ret"), "passthrough VM stages: %s", keys(&vm));
	ok(!(vm.s[1].flags & IOGAP_STAGE_CROSSING) && !(vm.s[2].flags & IOGAP_STAGE_CROSSING) &&
	   !(vm.s[3].flags & IOGAP_STAGE_CROSSING), "every stage on the guest's clock");
	iogap_timeline_gap_rows(&vm, &bare, &gr);
	snprintf(want, sizeof(want), "G.kern[%d..%d],device[%d..%d],G.ret[%d..%d]",
		 IOGAP_TL_BARE_START, IOGAP_TL_BARE_K_ISSUE, IOGAP_TL_BARE_K_ISSUE,
		 IOGAP_TL_BARE_DEV_COMPLETE, IOGAP_TL_BARE_DEV_COMPLETE, IOGAP_TL_BARE_REAP);
	ok(!strcmp(rows(&gr), want), "each against its bare stage: %s", rows(&gr));
	iogap_timeline_stages(IOGAP_TL_BARE, iogap_timeline_produced(IOGAP_TL_BARE), &bare_plain);
	iogap_timeline_gap_rows(&vm, &bare_plain, &gr);
	snprintf(want, sizeof(want), "G.start->G.reap[%d..%d]", IOGAP_TL_BARE_START,
		 IOGAP_TL_BARE_REAP);
	ok(!strcmp(rows(&gr), want), "bare run without kernel points: one row against its total: %s",
	   rows(&gr));
	iogap_timeline_from_pair(&p, &tl);
	ok(iogap_timeline_complete(&tl, &vm) && iogap_timeline_stage_ns(&tl, &vm.s[1]) == 1000 &&
	   iogap_timeline_stage_ns(&tl, &vm.s[2]) == 5000 &&
	   iogap_timeline_stage_ns(&tl, &vm.s[3]) == 2000,
	   "a pair without filter records is complete: G.kern 1000, D 5000, G.ret 2000");
}

static void test_durations(void)
{
	struct iogap_trace_record g = { .start_ns = 1000, .issue_ns = 1300, .complete_ns = 9000 };
	struct iogap_trace_record top = { 0 }, bottom = { 0 };
	/* the guest clock runs 500000 ns behind the host's, plus 7 ns of mapping drift */
	struct iogap_pair p = { .guest = &g, .top = &top, .bottom = &bottom,
				.g_start = 501000, .g_issue = 501307, .g_complete = 509007,
				.top_entry = 502000, .bottom_entry = 503000, .bottom_exit = 507000,
				.top_exit = 508000 };
	struct iogap_stages vm, bare;
	struct iogap_timeline tl;
	int64_t want[] = { 300, 1000, 1000, 4000, 1000, 1007 };
	int64_t sum = 0;
	bool same = true;

	iogap_timeline_stages(IOGAP_TL_VM, iogap_timeline_produced(IOGAP_TL_VM), &vm);
	iogap_timeline_from_pair(&p, &tl);
	ok(iogap_timeline_complete(&tl, &vm), "a pair seen at both filters has every point");
	for (size_t i = 0; i < vm.n; i++) {
		same = same && iogap_timeline_stage_ns(&tl, &vm.s[i]) == want[i];
		sum += vm.s[i].flags & IOGAP_STAGE_DETAIL ? 0 : iogap_timeline_stage_ns(&tl, &vm.s[i]);
	}
	ok(same, "stage durations: guest-only on the guest clock, crossings on the host clock");
	ok(iogap_timeline_total_ns(&tl, &vm) == 8000 && sum == 8007,
	   "total on the guest clock (8000), main stages sum to the mapped span (%lld)",
	   (long long)sum);
	p.bottom = NULL;
	iogap_timeline_from_pair(&p, &tl);
	ok(!iogap_timeline_complete(&tl, &vm), "without a bottom record: not complete");
	p.bottom = &bottom;
	p.invalid = 1;
	iogap_timeline_from_pair(&p, &tl);
	ok(!iogap_timeline_complete(&tl, &vm), "an invalid guest record: not complete");

	iogap_timeline_stages(IOGAP_TL_BARE, iogap_timeline_produced(IOGAP_TL_BARE), &bare);
	iogap_timeline_from_record(&g, &tl);
	ok(iogap_timeline_complete(&tl, &bare) && iogap_timeline_stage_ns(&tl, &bare.s[0]) == 300 &&
	   iogap_timeline_stage_ns(&tl, &bare.s[1]) == 8000 && tl.job == g.job && tl.op == g.op,
	   "a bare record: slat 300, lat 8000");
}

int main(void)
{
	test_today();
	test_deeper();
	test_passthrough();
	test_durations();
	tap_plan(tap_n);
	return tap_done();
}
