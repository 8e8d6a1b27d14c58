/* SPDX-License-Identifier: MIT */
/*
 * Clock alignment and request pairing (host-tools/analysis/align.c) on synthetic
 * traces with a known truth (synth.h), plus adversarial inputs.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tap.h"
#include "synth.h"

static char err[256];

struct pcheck {
	size_t wrong_top, wrong_bottom;   /* paired with another request's record */
	size_t exact_checked, sanity_bad; /* exact pairs violating the clock chain */
	size_t reads_sanity_bad;
	size_t sum_bad;                   /* counts that do not add up */
	size_t split_bad;
};

/* ordering of every stage for one pair, with final mapped guest times */
static int chain_ok(const struct iogap_pair *p)
{
	if (!(p->g_start <= p->top_entry && p->top_exit <= p->g_complete &&
	      p->top_entry <= p->top_exit))
		return 0;
	if (p->bottom && !(p->top_entry <= p->bottom_entry && p->bottom_entry <= p->bottom_exit &&
			   p->bottom_exit <= p->top_exit))
		return 0;
	return 1;
}

static struct pcheck check(const struct iogap_trace_record *g, const struct iogap_pairing *pr)
{
	struct pcheck c = { 0 };

	for (size_t i = 0; i < pr->nr; i++) {
		const struct iogap_pair *p = &pr->pairs[i];
		uint32_t gi = (uint32_t)(p->guest - g);

		if (p->top && p->top->thread != gi)
			c.wrong_top++;
		if (p->bottom && p->bottom->thread != gi)
			c.wrong_bottom++;
		if (p->top && p->ambiguous)
			c.wrong_top++;   /* ambiguous never carries a guess */
		if (p->exact) {
			c.exact_checked++;
			if (!chain_ok(p))
				c.sanity_bad++;
		} else if (p->top && !chain_ok(p)) {
			c.reads_sanity_bad++;
		}
		if (p->top_parts > 1 && (p->top_entry > p->top->start_ns || !p->exact))
			c.split_bad++;
	}
	for (int d = 0; d < IOGAP_PAIR_DIRS; d++)
		if (pr->counts.guest[d] != pr->counts.paired_top[d] + pr->counts.ambiguous[d] +
					   pr->counts.unpaired[d])
			c.sum_bad++;
	return c;
}

/* ------------------------------------------------------------------ */

static void test_mapping(void)
{
	struct iogap_clock_map m = { 0 };
	size_t bad_fwd = 0, bad_rt = 0, bad_rt0 = 0;
	uint64_t rs = 7;

	m.ref_host_ns = 1700000000000000000ull;
	m.offset_ns = 12345678901;
	m.drift_ppb = 3000;
	for (int i = 0; i < 100000; i++) {
		/* +-1 day around ref */
		int64_t d = (int64_t)(synth_rand(&rs) % 172800000000000ull) - 86400000000000ll;
		uint64_t h = m.ref_host_ns + (uint64_t)d;
		__int128 exp = (__int128)h + m.offset_ns;
		long double dd = (long double)d * 3000.0L / 1e9L;
		uint64_t g = iogap_host_to_guest(&m, h);

		exp += (__int128)llroundl(dd);
		if ((__int128)g - exp > 1 || exp - (__int128)g > 1)
			bad_fwd++;
		uint64_t back = iogap_guest_to_host(&m, g);
		if (back > h + 1 || back + 1 < h)
			bad_rt++;
	}
	ok(bad_fwd == 0, "host->guest at ~1.7e18 ns, +-1 day, 3000 ppb: within 1 ns of 128-bit math (%zu bad)", bad_fwd);
	ok(bad_rt == 0, "guest->host(host->guest(h)) == h +-1 ns (%zu bad)", bad_rt);
	m.drift_ppb = 0;
	for (int i = 0; i < 10000; i++) {
		uint64_t h = m.ref_host_ns + synth_rand(&rs) % 1000000000000ull;

		if (iogap_guest_to_host(&m, iogap_host_to_guest(&m, h)) != h ||
		    iogap_host_to_guest(&m, h) != h + 12345678901ull)
			bad_rt0++;
	}
	ok(bad_rt0 == 0, "no drift: mapping is exact integer math (%zu bad)", bad_rt0);
	m.ref_host_ns = 1000000000000ull;
	m.offset_ns = 5000;
	m.drift_ppb = -250000;
	ok(iogap_guest_to_host(&m, 0) == 0, "guest->host clamps at 0 instead of wrapping");
	m.drift_ppb = 250000;
	ok(iogap_host_to_guest(&m, UINT64_MAX - 10) == UINT64_MAX &&
	   iogap_guest_to_host(&m, UINT64_MAX) < UINT64_MAX,
	   "host->guest clamps at UINT64_MAX instead of wrapping");
}

static void test_sync(void)
{
	struct synth_cfg c;
	struct synth s;
	struct iogap_clock_map m;
	int64_t truth;
	double derr;

	synth_default(&c);
	c.n = 200000;
	if (synth_make(&c, &s)) {
		ok(0, "synth");
		return;
	}
	ok(iogap_clock_from_sync(s.sa, s.nsa, s.sb, s.nsb, &m) == 0, "clock_from_sync: ok");
	truth = synth_offset_at(&c, m.ref_host_ns);
	derr = m.drift_ppb - c.drift_ppb;
	ok(llabs(m.sync_offset_ns - truth) <= (long long)m.sync_uncertainty_ns,
	   "ping-pong offset within its uncertainty: err %" PRId64 " ns, uncertainty %" PRIu64 " ns",
	   m.sync_offset_ns - truth, m.sync_uncertainty_ns);
	ok(m.offset_ns == m.sync_offset_ns && !strcmp(m.method, "ping-pong") && m.bound_pairs == 0 &&
	   m.bound_lo_ns <= m.offset_ns && m.offset_ns <= m.bound_hi_ns,
	   "ping-pong map: method, offset, bound = offset +- uncertainty");
	ok(fabs(derr) < 500, "drift recovered: %.1f ppb (true %.0f, span %.1f s)", m.drift_ppb,
	   c.drift_ppb, (double)(s.sb[0].t_send - s.sa[0].t_send) / 1e9);
	ok(m.sync_rtt_ns >= c.fwd_base + c.back_base && m.sync_uncertainty_ns * 2 >= m.sync_rtt_ns,
	   "sync_rtt %" PRIu64 " >= floor, uncertainty %" PRIu64 " >= rtt/2", m.sync_rtt_ns,
	   m.sync_uncertainty_ns);

	{
		/* sets 0.3 s apart: too close for a drift */
		struct synth_cfg c2 = c;
		struct synth s2;

		c2.n = 10000;
		c2.nsync = 100;
		if (synth_make(&c2, &s2) == 0) {
			int rc = iogap_clock_from_sync(s2.sa, s2.nsa, s2.sb, s2.nsb, &m);

			ok(rc == 0 && m.drift_ppb == 0 &&
			   s2.sb[0].t_send - s2.sa[0].t_send < IOGAP_ALIGN_MIN_DRIFT_SPAN_NS,
			   "sync sets < %.1f s apart: no drift estimated", IOGAP_ALIGN_MIN_DRIFT_SPAN_NS / 1e9);
			synth_free(&s2);
		}
	}
	/* before set only: no drift */
	ok(iogap_clock_from_sync(s.sa, s.nsa, NULL, 0, &m) == 0 && m.drift_ppb == 0,
	   "no after set: drift 0");
	ok(iogap_clock_from_sync(NULL, 0, s.sb, s.nsb, &m) == -1, "no before set: -1");
	{
		struct iogap_sync_sample bad[3] = { { 100, 5, 50 }, { 200, 5, 10 }, { 9, 9, 1 } };

		ok(iogap_clock_from_sync(bad, 3, NULL, 0, &m) == -1,
		   "only corrupt rounds (recv < send): -1");
	}
	{
		/* one good round among corrupt ones, plus an outlier with a
		 * wildly asymmetric but long round: the short one wins */
		struct iogap_sync_sample mix[4] = {
			{ 1000000, 1000000 + 500 + 777, 1001000 },
			{ 2000000, 5, 10 },
			{ 3000000, 3000000 + 90000 + 777, 3100000 },
			{ 4000000, 4000000 + 1000 + 777, 4001900 },
		};

		int rc = iogap_clock_from_sync(mix, 4, NULL, 0, &m);

		/* kept: rtt 1000 (offset 777) and 1900 (offset 827); not 100000 */
		ok(rc == 0 && m.offset_ns == 802 && m.sync_rtt_ns == 1000 && m.sync_uncertainty_ns == 950,
		   "corrupt rounds skipped, long rounds not kept: offset %" PRId64 ", rtt %" PRIu64
		   ", uncertainty %" PRIu64, m.offset_ns, m.sync_rtt_ns, m.sync_uncertainty_ns);
	}
	synth_free(&s);
}

/* Reads that bound the clock: paired at the top, not merged. */
static uint64_t bounding_reads(const struct iogap_pairing *pr)
{
	return pr->counts.paired_top[0] - pr->counts.merged[0];
}

/* Does the map's bound contain the true offset? */
static int within(const struct synth_cfg *c, const struct iogap_clock_map *m)
{
	int64_t truth = synth_offset_at(c, m->ref_host_ns);

	return m->bound_lo_ns <= truth && truth <= m->bound_hi_ns;
}

/* the main scenario */
static void test_base(const char *name, int tagging)
{
	struct synth_cfg c;
	struct synth s;
	struct iogap_clock_map m;
	struct iogap_pairing pr;
	struct pcheck k;
	int64_t truth, width, tol;
	double span_s;

	synth_default(&c);
	c.tagging = tagging;
	c.seed = tagging ? 11 : 12;
	if (synth_make(&c, &s)) {
		ok(0, "synth");
		return;
	}
	iogap_clock_from_sync(s.sa, s.nsa, s.sb, s.nsb, &m);
	ok(iogap_pair_requests(s.g, s.ng, s.t, s.nt, s.b, s.nb, &m, &pr, err, sizeof(err)) == 0,
	   "%s: pairing ok %s", name, err);
	k = check(s.g, &pr);
	ok(pr.nr == s.ng && k.sum_bad == 0, "%s: one pair per guest record, counts add up", name);
	ok(k.wrong_top == 0 && k.wrong_bottom == 0, "%s: no wrong pair (top %zu, bottom %zu)", name,
	   k.wrong_top, k.wrong_bottom);
	ok(pr.counts.paired_top[0] * 100 >= pr.counts.guest[0] * 99,
	   "%s: reads paired >= 99%%: %" PRIu64 "/%" PRIu64 " (ambiguous %" PRIu64 ")", name,
	   pr.counts.paired_top[0], pr.counts.guest[0], pr.counts.ambiguous[0]);
	ok(pr.counts.paired_bottom[0] == pr.counts.paired_top[0] &&
	   pr.counts.paired_bottom[1] == pr.counts.paired_top[1],
	   "%s: every paired request has its bottom record", name);
	if (tagging) {
		ok(pr.counts.exact[1] == pr.counts.guest[1] && pr.counts.unpaired[1] == 0,
		   "%s: every write paired exactly: %" PRIu64 "/%" PRIu64, name, pr.counts.exact[1],
		   pr.counts.guest[1]);
		ok(pr.counts.split[1] == s.splits && s.splits > 100 && k.split_bad == 0,
		   "%s: splits combined: %" PRIu64 " (generated %zu)", name, pr.counts.split[1], s.splits);
		ok(k.sanity_bad == 0 && k.exact_checked == pr.counts.exact[1],
		   "%s: every exact pair: g_start <= top entry <= bottom entry <= bottom exit <= top exit <= g_complete (%zu bad of %zu)",
		   name, k.sanity_bad, k.exact_checked);
		ok(k.reads_sanity_bad == 0, "%s: every paired read in the chain too (%zu outside)",
		   name, k.reads_sanity_bad);
		truth = synth_offset_at(&c, pr.map.ref_host_ns);
		width = pr.map.bound_hi_ns - pr.map.bound_lo_ns;
		span_s = (double)(s.last_h - s.first_h) / 1e9;
		/* the bounds live in the frame of the estimated drift; its
		 * error moves the per-pair margins by at most this */
		tol = (int64_t)ceil(fabs(pr.map.drift_ppb - c.drift_ppb) * span_s) + 4;
		ok(pr.map.bound_consistent && !strcmp(pr.map.method, "ping-pong+request-bounds") &&
		   pr.map.bound_pairs == pr.counts.exact[1] + bounding_reads(&pr),
		   "%s: bounds consistent, method %s, %" PRIu64 " pairs: the exact ones and the "
		   "reads paired unmerged", name, pr.map.method, pr.map.bound_pairs);
		ok(pr.map.bound_lo_ns <= truth && truth <= pr.map.bound_hi_ns,
		   "%s: bound [%+" PRId64 ", %+" PRId64 "] around the truth contains it", name,
		   pr.map.bound_lo_ns - truth, pr.map.bound_hi_ns - truth);
		ok(width <= s.min_margin + 2 * tol,
		   "%s: bound width %" PRId64 " ns <= smallest per-request slack %" PRId64 " ns (+%" PRId64 ")",
		   name, width, s.min_margin, 2 * tol);
		ok(llabs(pr.map.offset_ns - truth) <= width / 2 + tol,
		   "%s: offset error %" PRId64 " ns within half the bound width", name,
		   pr.map.offset_ns - truth);
		ok(width < (int64_t)(2 * m.sync_uncertainty_ns) &&
		   llabs(pr.map.offset_ns - truth) <= llabs(m.sync_offset_ns - truth),
		   "%s: request bounds beat the ping-pong: width %" PRId64 " vs %" PRIu64 ", error %" PRId64 " vs %" PRId64,
		   name, width, 2 * m.sync_uncertainty_ns, pr.map.offset_ns - truth,
		   m.sync_offset_ns - truth);
		ok(pr.map.sync_offset_ns == m.sync_offset_ns && pr.map.drift_ppb == m.drift_ppb,
		   "%s: the ping-pong values stay reported beside the refined offset", name);
	} else {
		/* an untagged split has no key in common with its request */
		ok(pr.counts.exact[1] == 0 &&
		   pr.counts.paired_top[1] * 100 >= (pr.counts.guest[1] - s.splits) * 99 &&
		   pr.counts.split[1] == 0 && pr.counts.unpaired[1] >= s.splits,
		   "%s: untagged writes pair by offset/length/time: %" PRIu64 "/%" PRIu64
		   " (%zu split ones cannot)", name, pr.counts.paired_top[1], pr.counts.guest[1], s.splits);
		ok(pr.map.bound_consistent && !strcmp(pr.map.method, "ping-pong+request-bounds") &&
		   pr.map.bound_pairs == pr.counts.paired_top[1] + bounding_reads(&pr) &&
		   within(&c, &pr.map),
		   "%s: no exact pairs, the ones paired by key bound the clock (%" PRIu64 ")", name,
		   pr.map.bound_pairs);
	}
	{
		uint64_t amb = pr.counts.ambiguous[0] + pr.counts.ambiguous[1];
		uint64_t unexplained = tagging ? 0 : 2 * s.splits;

		ok(pr.counts.top_unclaimed <= 2 * amb + unexplained &&
		   pr.counts.bottom_unclaimed <= 2 * amb + unexplained,
		   "%s: filter records unclaimed (top %" PRIu64 ", bottom %" PRIu64 ") only by ambiguous requests (%" PRIu64 ")%s",
		   name, pr.counts.top_unclaimed, pr.counts.bottom_unclaimed, amb,
		   tagging ? "" : " and untagged splits");
	}
	iogap_pairing_free(&pr);
	synth_free(&s);
}

/* One job's bound width (ns) with write_frac, tagged; -1 when the bound is
 * not consistent or misses the truth. */
static int64_t job_width(double write_frac, int64_t *min_margin)
{
	struct synth_cfg c;
	struct synth s;
	struct iogap_clock_map m;
	struct iogap_pairing pr;
	int64_t width = -1;

	synth_default(&c);
	c.n = 50000;
	c.seed = 21;
	c.write_frac = write_frac;
	if (synth_make(&c, &s))
		return -1;
	iogap_clock_from_sync(s.sa, s.nsa, s.sb, s.nsb, &m);
	if (!iogap_pair_requests(s.g, s.ng, s.t, s.nt, s.b, s.nb, &m, &pr, err, sizeof(err))) {
		if (pr.map.bound_consistent && pr.map.bound_pairs && within(&c, &pr.map))
			width = pr.map.bound_hi_ns - pr.map.bound_lo_ns;
		iogap_pairing_free(&pr);
	}
	*min_margin = write_frac > 0 ? s.min_margin : s.min_read_margin;
	synth_free(&s);
	return width;
}

/* A read-only job (no tags at all) bounds the clock through its reads as
 * narrowly as the same job writing does through its tags. */
static void test_read_only(void)
{
	int64_t rm, wm, r = job_width(0.0, &rm), w = job_width(1.0, &wm);

	ok(r >= 0 && r <= rm + 8, "read-only job: bound consistent around the truth, width %" PRId64
	   " ns <= the smallest read margin %" PRId64 " ns", r, rm);
	ok(r >= 0 && w > 0 && r <= 2 * w, "read-only job's bound %" PRId64 " ns <= 2x the "
	   "write job's %" PRId64 " ns", r, w);
}

/* several seeds, offsets of both signs (a guest booted after the host has
 * the smaller monotonic clock), drifts of both signs, with and without
 * shuffling: the core properties hold in every one */
static void test_sweep(void)
{
	static const int64_t offs[] = { 12345678901, -987654321012345, 0, 777 };
	static const double drifts[] = { 3000, -12000, 0, 150 };
	size_t runs = 0, bad_rc = 0, wrong = 0, chain = 0, contain = 0, unpaired_w = 0, reads = 0;

	for (unsigned seed = 0; seed < 8; seed++) {
		struct synth_cfg c;
		struct synth s;
		struct iogap_clock_map m;
		struct iogap_pairing pr;
		struct pcheck k;
		int64_t truth;

		synth_default(&c);
		c.seed = 1000 + seed;
		c.n = 30000 + 5000 * seed;
		c.gap_mean = 40000;   /* spans >= 1.2 s: drift estimated */
		c.off0 = offs[seed % 4];
		c.drift_ppb = drifts[(seed / 2) % 4];
		c.shuffle = seed & 1;
		c.host0 = seed < 4 ? 1700000000000000000ull : 2000000000000000ull;   /* 23 days of uptime */
		if (synth_make(&c, &s))
			continue;
		runs++;
		if (iogap_clock_from_sync(s.sa, s.nsa, s.sb, s.nsb, &m) ||
		    iogap_pair_requests(s.g, s.ng, s.t, s.nt, s.b, s.nb, &m, &pr, err, sizeof(err))) {
			bad_rc++;
			synth_free(&s);
			continue;
		}
		k = check(s.g, &pr);
		truth = synth_offset_at(&c, pr.map.ref_host_ns);
		wrong += k.wrong_top + k.wrong_bottom + k.sum_bad;
		chain += k.sanity_bad;
		if (!pr.map.bound_consistent || truth < pr.map.bound_lo_ns || truth > pr.map.bound_hi_ns)
			contain++;
		unpaired_w += pr.counts.guest[1] - pr.counts.exact[1];
		if (pr.counts.paired_top[0] * 100 < pr.counts.guest[0] * 99)
			reads++;
		iogap_pairing_free(&pr);
		synth_free(&s);
	}
	ok(runs == 8 && bad_rc == 0, "sweep: 8 scenarios ran");
	ok(wrong == 0, "sweep: no wrong pair, counts add up (%zu bad)", wrong);
	ok(unpaired_w == 0 && reads == 0, "sweep: all writes exact, reads >= 99%% in every scenario");
	ok(chain == 0, "sweep: clock chain holds for every exact pair (%zu bad)", chain);
	ok(contain == 0, "sweep: bounds consistent and containing the true offset (%zu bad)", contain);
}

/* append a request (guest + top + bottom) with explicit host times */
static void add_req(const struct synth_cfg *c, struct synth *s, int w, uint64_t off, uint32_t len,
		    uint64_t hs, uint64_t te, uint64_t be, uint64_t bx, uint64_t tx, uint64_t hc,
		    int with_top)
{
	size_t i = s->ng++;
	struct iogap_trace_record *g = &s->g[i];

	memset(g, 0, sizeof(*g));
	g->tag = i + 1;
	g->offset = off;
	g->length = len;
	g->start_ns = synth_guest(c, hs);
	g->issue_ns = synth_guest(c, hs + 1000);
	g->complete_ns = synth_guest(c, hc);
	g->op = w ? IOGAP_OP_WRITE : IOGAP_OP_READ;
	g->result = (int32_t)len;
	if (with_top)
		synth_filter(&s->t[s->nt++], c, i, w, off, len, te, tx);
	synth_filter(&s->b[s->nb++], c, i, w, off, len, be, bx);
}

static int grow(struct synth *s, size_t extra)
{
	void *g = realloc(s->g, (s->ng + extra) * sizeof(*s->g));
	void *t, *b;

	if (!g)
		return -1;
	s->g = g;
	t = realloc(s->t, (s->nt + extra) * sizeof(*s->t));
	if (!t)
		return -1;
	s->t = t;
	b = realloc(s->b, (s->nb + extra) * sizeof(*s->b));
	if (!b)
		return -1;
	s->b = b;
	return 0;
}

static size_t pair_of(const struct synth *s, const struct iogap_pairing *pr, size_t gi)
{
	for (size_t i = 0; i < pr->nr; i++)
		if (pr->pairs[i].guest == &s->g[gi])
			return i;
	return SIZE_MAX;
}

static void test_ambiguity(void)
{
	struct synth_cfg c;
	struct synth s;
	struct iogap_clock_map m;
	struct iogap_pairing pr;
	struct pcheck k;
	uint64_t h, K = 12345ull * 4096;
	size_t a, b, x, y, dA, dB;

	synth_default(&c);
	c.n = 2000;
	c.seed = 3;
	c.span = 1ull << 30;   /* away from K's neighbourhood? K is in it: fine, keys differ in time */
	if (synth_make(&c, &s) || grow(&s, 16)) {
		ok(0, "synth");
		return;
	}
	h = s.last_h + 10000000;
	/* two reads of one offset/length in flight together */
	a = s.ng;
	add_req(&c, &s, 0, K, 4096, h, h + 20000, h + 25000, h + 90000, h + 92000, h + 110000, 1);
	b = s.ng;
	add_req(&c, &s, 0, K, 4096, h + 5000, h + 30000, h + 35000, h + 80000, h + 82000, h + 100000, 1);
	/* the same key twice more, far apart in time: both pair */
	x = s.ng;
	add_req(&c, &s, 0, K, 4096, h + 5000000, h + 5020000, h + 5025000, h + 5090000, h + 5092000,
		h + 5110000, 1);
	y = s.ng;
	add_req(&c, &s, 0, K, 4096, h + 9000000, h + 9020000, h + 9025000, h + 9090000, h + 9092000,
		h + 9110000, 1);
	/* two in flight together, one's top record dropped: the survivor
	 * lies in both windows, so neither may claim it */
	dA = s.ng;
	add_req(&c, &s, 0, K + 4096, 4096, h, h + 20000, h + 25000, h + 90000, h + 92000, h + 110000, 0);
	dB = s.ng;
	add_req(&c, &s, 0, K + 4096, 4096, h + 5000, h + 30000, h + 35000, h + 80000, h + 82000,
		h + 100000, 1);
	iogap_clock_from_sync(s.sa, s.nsa, s.sb, s.nsb, &m);
	ok(iogap_pair_requests(s.g, s.ng, s.t, s.nt, s.b, s.nb, &m, &pr, err, sizeof(err)) == 0,
	   "ambiguity: pairing ok");
	k = check(s.g, &pr);
	ok(k.wrong_top == 0 && k.wrong_bottom == 0 && k.sum_bad == 0, "ambiguity: no wrong pair");
	{
		const struct iogap_pair *pa = &pr.pairs[pair_of(&s, &pr, a)];
		const struct iogap_pair *pb = &pr.pairs[pair_of(&s, &pr, b)];
		const struct iogap_pair *px = &pr.pairs[pair_of(&s, &pr, x)];
		const struct iogap_pair *py = &pr.pairs[pair_of(&s, &pr, y)];
		const struct iogap_pair *pA = &pr.pairs[pair_of(&s, &pr, dA)];
		const struct iogap_pair *pB = &pr.pairs[pair_of(&s, &pr, dB)];

		ok(pa->ambiguous && pb->ambiguous && !pa->top && !pb->top,
		   "two same-key reads overlapping in time: both ambiguous, no guess");
		ok(px->top && py->top && !px->ambiguous && !py->ambiguous,
		   "the same key at other times pairs normally");
		ok(!pA->top && !pB->top && pA->ambiguous && pB->ambiguous,
		   "one of two overlapping same-key records dropped: no pair at all (ambiguous)");
	}
	ok(pr.counts.ambiguous[0] >= 4 && pr.counts.top_unclaimed >= 3,
	   "ambiguous counted (%" PRIu64 "), their records unclaimed (%" PRIu64 ")",
	   pr.counts.ambiguous[0], pr.counts.top_unclaimed);
	iogap_pairing_free(&pr);
	synth_free(&s);
}

/* Reads the guest block layer merged: one larger top record covers them. */
static void test_merged_reads(void)
{
	struct synth_cfg c;
	struct synth s;
	struct iogap_clock_map m;
	struct iogap_pairing pr;
	uint64_t h, K = 777ull * 4096;
	size_t a, b, x;

	synth_default(&c);
	c.n = 2000;
	c.seed = 5;
	if (synth_make(&c, &s) || grow(&s, 16)) {
		ok(0, "synth");
		return;
	}
	h = s.last_h + 10000000;
	a = s.ng;
	add_req(&c, &s, 0, K, 4096, h, h + 20000, h + 25000, h + 90000, h + 92000, h + 110000, 0);
	b = s.ng;
	add_req(&c, &s, 0, K + 4096, 4096, h + 3000, h + 20000, h + 25000, h + 90000, h + 92000,
		h + 111000, 0);
	synth_filter(&s.t[s.nt++], &c, a, 0, K, 8192, h + 20000, h + 92000);
	/* a lone read whose only containing record lies far outside its time */
	x = s.ng;
	add_req(&c, &s, 0, K + 3 * 4096, 4096, h + 50000000, h + 50020000, h + 50025000,
		h + 50090000, h + 50092000, h + 50110000, 0);
	synth_filter(&s.t[s.nt++], &c, x, 0, K + 2 * 4096, 8192, h + 90000000, h + 90092000);
	iogap_clock_from_sync(s.sa, s.nsa, s.sb, s.nsb, &m);
	ok(iogap_pair_requests(s.g, s.ng, s.t, s.nt, s.b, s.nb, &m, &pr, err, sizeof(err)) == 0,
	   "merged reads: pairing ok");
	{
		const struct iogap_pair *pa = &pr.pairs[pair_of(&s, &pr, a)];
		const struct iogap_pair *pb = &pr.pairs[pair_of(&s, &pr, b)];
		const struct iogap_pair *px = &pr.pairs[pair_of(&s, &pr, x)];

		ok(pa->top && pb->top && pa->top == pb->top && pa->merged && pb->merged &&
		   pa->top->length == 8192, "two merged reads both pair with the 8 KiB top record");
		ok(!px->top && !px->merged, "a containing record outside the time window is not taken");
		ok(pr.counts.merged[0] == 2, "merged reads counted (%" PRIu64 ")", pr.counts.merged[0]);
	}
	iogap_pairing_free(&pr);
	synth_free(&s);
}

static void test_dropped(void)
{
	struct synth_cfg c;
	struct synth s;
	struct iogap_clock_map m;
	struct iogap_pairing pr;
	struct pcheck k;
	uint64_t rs = 99;
	size_t nt = 0, drop_r = 0, drop_w = 0, nb;
	unsigned char *gone;

	synth_default(&c);
	c.n = 100000;
	c.seed = 5;
	c.split_frac = 0;
	if (synth_make(&c, &s)) {
		ok(0, "synth");
		return;
	}
	gone = calloc(s.ng, 1);
	for (size_t i = 0; i < s.nt; i++) {
		if (synth_u01(&rs) < 0.01) {
			gone[s.t[i].thread] = 1;
			if (s.t[i].op == IOGAP_OP_WRITE)
				drop_w++;
			else
				drop_r++;
			continue;
		}
		s.t[nt++] = s.t[i];
	}
	s.nt = nt;
	/* and 1% of the bottom records */
	nb = 0;
	for (size_t i = 0; i < s.nb; i++)
		if (synth_u01(&rs) >= 0.01)
			s.b[nb++] = s.b[i];
	s.nb = nb;
	iogap_clock_from_sync(s.sa, s.nsa, s.sb, s.nsb, &m);
	ok(iogap_pair_requests(s.g, s.ng, s.t, s.nt, s.b, s.nb, &m, &pr, err, sizeof(err)) == 0,
	   "dropped records: pairing ok");
	k = check(s.g, &pr);
	ok(k.wrong_top == 0 && k.wrong_bottom == 0 && k.sum_bad == 0,
	   "dropped records: never a wrong pair (top %zu, bottom %zu)", k.wrong_top, k.wrong_bottom);
	ok(pr.counts.unpaired[1] == drop_w && pr.counts.exact[1] == pr.counts.guest[1] - drop_w,
	   "dropped write records: %" PRIu64 " unpaired (dropped %zu)", pr.counts.unpaired[1], drop_w);
	ok(pr.counts.unpaired[0] + pr.counts.ambiguous[0] >= drop_r &&
	   pr.counts.unpaired[0] <= drop_r + pr.counts.guest[0] / 100,
	   "dropped read records: %" PRIu64 " unpaired + %" PRIu64 " ambiguous (dropped %zu)",
	   pr.counts.unpaired[0], pr.counts.ambiguous[0], drop_r);
	{
		size_t bad = 0;

		for (size_t i = 0; i < pr.nr; i++)
			if (gone[pr.pairs[i].guest - s.g] && pr.pairs[i].top)
				bad++;
		ok(bad == 0, "no request whose top record was dropped got one");
	}
	ok(pr.counts.paired_bottom[0] + pr.counts.paired_bottom[1] <
	   pr.counts.paired_top[0] + pr.counts.paired_top[1] && pr.counts.bottom_unclaimed > 0,
	   "dropped bottoms/tops: fewer bottom pairs (%" PRIu64 "), orphans counted (%" PRIu64 ")",
	   pr.counts.paired_bottom[0] + pr.counts.paired_bottom[1], pr.counts.bottom_unclaimed);
	ok(pr.map.bound_consistent && k.sanity_bad == 0, "dropped records: bounds still consistent");
	free(gone);
	iogap_pairing_free(&pr);
	synth_free(&s);
}

static void test_inconsistent(void)
{
	struct synth_cfg c;
	struct synth s;
	struct iogap_clock_map m, bad;
	struct iogap_pairing pr;
	size_t wa = SIZE_MAX, wb = SIZE_MAX;
	int rc;

	synth_default(&c);
	c.n = 50000;
	c.seed = 8;
	c.shuffle = 0;
	c.split_frac = 0;
	if (synth_make(&c, &s)) {
		ok(0, "synth");
		return;
	}
	iogap_clock_from_sync(s.sa, s.nsa, s.sb, s.nsb, &m);

	/* bad drift: 50 ppm off over seconds moves late requests by 100s of us */
	bad = m;
	bad.drift_ppb += 50000;
	rc = iogap_pair_requests(s.g, s.ng, s.t, s.nt, s.b, s.nb, &bad, &pr, err, sizeof(err));
	ok(rc == 0 && !pr.map.bound_consistent && pr.map.bound_lo_ns > pr.map.bound_hi_ns &&
	   pr.map.offset_ns == bad.offset_ns && !strcmp(pr.map.method, "ping-pong"),
	   "wrong drift: bounds cross (lo-hi = %" PRId64 " ns), ping-pong offset kept and reported",
	   pr.map.bound_lo_ns - pr.map.bound_hi_ns);
	iogap_pairing_free(&pr);

	/* a wrong pair: the top record of an early write carries the tag and
	 * offset of a write a second later */
	for (size_t i = 0; i < s.nt; i++) {
		if (s.t[i].op != IOGAP_OP_WRITE)
			continue;
		if (wa == SIZE_MAX)
			wa = i;
		else if (s.h_start[s.t[i].thread] > s.h_start[s.t[wa].thread] + 500000000ull) {
			wb = i;
			break;
		}
	}
	if (wb == SIZE_MAX) {
		ok(0, "scenario");
	} else {
		s.t[wa].tag = s.t[wb].tag;
		s.t[wa].offset = s.t[wb].offset;
		rc = iogap_pair_requests(s.g, s.ng, s.t, s.nt, s.b, s.nb, &m, &pr, err, sizeof(err));
		ok(rc == 0 && !pr.map.bound_consistent && pr.map.offset_ns == m.offset_ns &&
		   pr.map.bound_pairs > 0,
		   "a wrong exact pair (1 in %" PRIu64 "): bound_consistent = 0, lo-hi = %" PRId64 " ns",
		   pr.map.bound_pairs, pr.map.bound_lo_ns - pr.map.bound_hi_ns);
		ok(pr.counts.split[1] == 1, "the stray tagged record shows as a split of its tag's request");
		iogap_pairing_free(&pr);
	}
	/* a stale tag: the tag of another request but an offset outside it */
	s.t[wa].offset = s.t[wb].offset + (1ull << 40);
	ok(iogap_pair_requests(s.g, s.ng, s.t, s.nt, s.b, s.nb, &m, &pr, err, sizeof(err)) == 0 &&
	   pr.counts.tag_mismatch == 1 && pr.map.bound_consistent && pr.counts.top_unclaimed == 1 &&
	   pr.counts.unpaired[1] == 1,
	   "tagged record outside its tag's request: tag_mismatch, unclaimed, bounds unharmed");
	iogap_pairing_free(&pr);
	synth_free(&s);
}

static void test_adversarial(void)
{
	struct iogap_clock_map m = { .offset_ns = 1000, .ref_host_ns = 1000000, .method = "ping-pong",
				     .sync_uncertainty_ns = 10000, .bound_consistent = 1 };
	struct iogap_pairing pr;
	struct iogap_trace_record g[64], t[64];
	struct pcheck k;

	ok(iogap_pair_requests(NULL, 0, NULL, 0, NULL, 0, &m, &pr, err, sizeof(err)) == 0 && pr.nr == 0 &&
	   pr.counts.guest[0] == 0 && pr.map.offset_ns == 1000 && !strcmp(pr.map.method, "ping-pong"),
	   "zero records: ok, nothing paired, map unchanged");
	iogap_pairing_free(&pr);
	iogap_pairing_free(NULL);
	ok(iogap_pair_requests(NULL, 3, NULL, 0, NULL, 0, &m, &pr, err, sizeof(err)) == -1 && err[0],
	   "records missing: -1 with an error (%s)", err);
	ok(iogap_pair_requests(NULL, 0, NULL, 0, NULL, 0, NULL, &pr, err, sizeof(err)) == -1,
	   "no map: -1");
	{
		struct iogap_clock_map nan = m;

		nan.drift_ppb = NAN;
		ok(iogap_pair_requests(NULL, 0, NULL, 0, NULL, 0, &nan, &pr, err, sizeof(err)) == -1,
		   "NaN drift: -1 (%s)", err);
	}

	{
		struct iogap_sync_sample x[4] = { { 0, UINT64_MAX, 10 }, { 0, 0, 10 },
						  { 5, UINT64_MAX / 2, 6 },
						  { UINT64_MAX - 5, 0, UINT64_MAX } };
		struct iogap_clock_map xm;
		int rc = iogap_clock_from_sync(x, 4, x, 4, &xm);

		ok(rc == 0 && isfinite(xm.drift_ppb) && xm.sync_uncertainty_ns <= 5,
		   "sync rounds at the ends of the clock range: no overflow (offset %" PRId64 ")",
		   xm.offset_ns);
	}

	/* all reads at one offset: sequential ones pair, overlapping ones
	 * never pair wrongly */
	{
		struct synth_cfg c;
		struct synth s;
		uint64_t h = 5000000;

		synth_default(&c);
		c.host0 = 0;
		c.off0 = 1000;
		c.drift_ppb = 0;
		c.n = 0;
		c.nsync = 0;
		memset(&s, 0, sizeof(s));
		if (grow(&s, 2000)) {
			ok(0, "alloc");
			return;
		}
		for (int i = 0; i < 1000; i++, h += 1000000)   /* QD1, 1 ms apart */
			add_req(&c, &s, 0, 0, 4096, h, h + 20000, h + 25000, h + 90000, h + 92000,
				h + 110000, 1);
		for (int i = 0; i < 1000; i++, h += 15000)     /* QD ~8 */
			add_req(&c, &s, 0, 0, 4096, h, h + 20000, h + 25000, h + 90000, h + 92000,
				h + 110000, 1);
		m.sync_uncertainty_ns = 1000;
		ok(iogap_pair_requests(s.g, s.ng, s.t, s.nt, s.b, s.nb, &m, &pr, err, sizeof(err)) == 0,
		   "all reads at one offset: ok");
		k = check(s.g, &pr);
		ok(k.wrong_top == 0 && k.wrong_bottom == 0 && k.sum_bad == 0 &&
		   pr.counts.paired_top[0] >= 1000 && pr.counts.ambiguous[0] >= 990,
		   "all reads at one offset: QD1 ones pair (%" PRIu64 " paired), overlapping ones ambiguous (%" PRIu64 "), none wrong",
		   pr.counts.paired_top[0], pr.counts.ambiguous[0]);
		iogap_pairing_free(&pr);
		synth_free(&s);
		m.sync_uncertainty_ns = 10000;
	}

	/* duplicate guest tags, complete < start, garbage ops, offsets at
	 * the end of the address space */
	memset(g, 0, sizeof(g));
	memset(t, 0, sizeof(t));
	for (int i = 0; i < 8; i++) {
		g[i] = (struct iogap_trace_record){ .tag = 7, .offset = 4096u * i, .length = 4096,
						    .start_ns = 2000000 + 1000000u * i,
						    .issue_ns = 2000100 + 1000000u * i,
						    .complete_ns = 2100000 + 1000000u * i,
						    .op = IOGAP_OP_WRITE };
		t[i] = (struct iogap_trace_record){ .tag = 7, .offset = 4096u * i, .length = 4096,
						    .start_ns = 2000000 + 1000000u * i,
						    .complete_ns = 2050000 + 1000000u * i,
						    .op = IOGAP_OP_WRITE, .flags = IOGAP_REC_TAGGED };
	}
	ok(iogap_pair_requests(g, 8, t, 8, NULL, 0, &m, &pr, err, sizeof(err)) == 0 &&
	   pr.counts.ambiguous[1] == 8 && pr.counts.exact[1] == 0 && pr.counts.top_unclaimed == 8 &&
	   pr.map.bound_pairs == 0,
	   "duplicate guest tags: all ambiguous, no exact pair, no bounds from them");
	iogap_pairing_free(&pr);

	for (int i = 0; i < 64; i++) {
		g[i] = (struct iogap_trace_record){ .tag = 100 + (uint64_t)i,
						    .offset = UINT64_MAX - 4096u * (uint64_t)(i % 3),
						    .length = (uint32_t)(i % 5) * 4096u,
						    .start_ns = 9000000 - 1000u * i,
						    .issue_ns = 1,
						    .complete_ns = 100000u * (uint64_t)i,
						    .op = (uint8_t)(i % 7), .flags = (uint8_t)i };
		t[i] = (struct iogap_trace_record){ .tag = 100 + (uint64_t)(63 - i),
						    .offset = UINT64_MAX - 4096u * (uint64_t)(i % 4),
						    .length = (uint32_t)(i % 5) * 4096u,
						    .start_ns = 5000000 + 100000u * (uint64_t)i,
						    .complete_ns = 9000000 - 200000u * (uint64_t)i,
						    .op = (uint8_t)(i % 3), .flags = (uint8_t)(i * 3) };
	}
	ok(iogap_pair_requests(g, 64, t, 64, t, 64, &m, &pr, err, sizeof(err)) == 0,
	   "complete < start, garbage ops/flags, offsets at UINT64_MAX: ok");
	{
		uint64_t inv = pr.counts.invalid[0] + pr.counts.invalid[1];
		size_t rw = 0, ninv = 0;

		for (int i = 0; i < 64; i++)
			if (g[i].op <= IOGAP_OP_WRITE) {
				rw++;
				ninv += g[i].complete_ns < g[i].start_ns;
			}
		k = check(g, &pr);
		ok(pr.nr == rw && k.sum_bad == 0 && inv == ninv,
		   "sane counts: %zu pairs for %zu reads/writes, %" PRIu64 " invalid", pr.nr, rw, inv);
		for (size_t i = 0; i < pr.nr; i++)
			if (pr.pairs[i].invalid && pr.pairs[i].top && !pr.pairs[i].exact)
				inv = UINT64_MAX;
		ok(inv != UINT64_MAX, "invalid records never paired by time");
	}
	iogap_pairing_free(&pr);
}

/* Per guest request (by its tag, unique in synth runs): the top and
 * bottom records it got (by entry time) and its flags. */
struct pair_sig {
	uint64_t top, bottom;
	uint8_t exact, ambiguous, merged;
};

static struct pair_sig *pair_sigs(const struct iogap_pairing *pr, size_t ng)
{
	struct pair_sig *sig = calloc(ng + 1, sizeof(*sig));

	for (size_t i = 0; sig && i < pr->nr; i++) {
		const struct iogap_pair *p = &pr->pairs[i];
		struct pair_sig *x = &sig[p->guest->tag <= ng ? p->guest->tag : 0];

		x->top = p->top ? p->top->start_ns : 0;
		x->bottom = p->bottom ? p->bottom->start_ns : 0;
		x->exact = p->exact;
		x->ambiguous = p->ambiguous;
		x->merged = p->merged;
	}
	return sig;
}

/* Swap one neighbour pair in 16: nearly sorted, as completion order
 * leaves issue-ordered tags. */
static void near_shuffle(struct iogap_trace_record *r, size_t n, uint64_t *rs)
{
	for (size_t i = 0; i + 1 < n; i += 2)
		if (synth_rand(rs) % 8 == 0) {
			struct iogap_trace_record t = r[i];

			r[i] = r[i + 1];
			r[i + 1] = t;
		}
}

/* The pairs do not depend on the traces' order: nearly sorted input
 * (tags sorted by insertion) pairs as shuffled input (radix sort). */
static void test_order_independent(void)
{
	struct synth_cfg c;
	struct synth s;
	struct iogap_clock_map m;
	struct iogap_pairing pa, pb;
	struct pair_sig *sa = NULL, *sb = NULL;
	uint64_t rs = 77;
	size_t differ = 0, exact = 0;

	synth_default(&c);
	c.n = 40000;
	c.seed = 21;
	c.shuffle = 0;
	if (synth_make(&c, &s)) {
		ok(0, "synth");
		return;
	}
	iogap_clock_from_sync(s.sa, s.nsa, s.sb, s.nsb, &m);
	near_shuffle(s.g, s.ng, &rs);
	near_shuffle(s.t, s.nt, &rs);
	if (!iogap_pair_requests(s.g, s.ng, s.t, s.nt, s.b, s.nb, &m, &pa, err, sizeof(err))) {
		sa = pair_sigs(&pa, s.ng);
		iogap_pairing_free(&pa);
	}
	synth_shuffle(s.g, s.ng, &rs);
	synth_shuffle(s.t, s.nt, &rs);
	if (!iogap_pair_requests(s.g, s.ng, s.t, s.nt, s.b, s.nb, &m, &pb, err, sizeof(err))) {
		sb = pair_sigs(&pb, s.ng);
		iogap_pairing_free(&pb);
	}
	for (size_t i = 1; sa && sb && i <= s.ng; i++) {
		differ += memcmp(&sa[i], &sb[i], sizeof(sa[i])) != 0;
		exact += sa[i].exact;
	}
	ok(sa && sb && differ == 0 && exact > s.ng / 4,
	   "order: nearly sorted and shuffled traces give the same %zu pairs (%zu differ, %zu by tag)",
	   s.ng, differ, exact);
	free(sa);
	free(sb);
	synth_free(&s);
}

int main(void)
{
	test_mapping();
	test_sync();
	test_base("tagged", 1);
	test_base("untagged", 0);
	test_sweep();
	test_ambiguity();
	test_merged_reads();
	test_read_only();
	test_dropped();
	test_inconsistent();
	test_adversarial();
	test_order_independent();
	tap_plan(tap_n);
	return tap_done();
}
