/* SPDX-License-Identifier: MIT */
/*
 * Pairing in windows (host-tools/analysis/pairstream.c) against the
 * whole-run pairing (iogap_pair_requests) on synthetic traces: with small
 * slices, so that many requests straddle a slice's edge; with records out
 * of order within a bound (several completing threads); with same-key
 * requests in flight together (ambiguity across edges); and a request so
 * long that the window would exceed its budget, which must be counted,
 * never silently paired differently.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tap.h"
#include "pairstream.h"
#include "synth.h"

static char err[256];

/* What the stream visited, in visit order (the records are the window's
 * copies: kept by value). */
struct seen {
	struct iogap_pair *p;
	struct iogap_trace_record *g, *t, *b;
	size_t n, cap;
};

static int record_pair(void *ctx, const struct iogap_pair *p)
{
	struct seen *s = ctx;

	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 1024;
		s->p = realloc(s->p, s->cap * sizeof(*s->p));
		s->g = realloc(s->g, s->cap * sizeof(*s->g));
		s->t = realloc(s->t, s->cap * sizeof(*s->t));
		s->b = realloc(s->b, s->cap * sizeof(*s->b));
		if (!s->p || !s->g || !s->t || !s->b)
			return 1;
	}
	s->p[s->n] = *p;
	s->g[s->n] = *p->guest;
	memset(&s->t[s->n], 0, sizeof(s->t[0]));
	memset(&s->b[s->n], 0, sizeof(s->b[0]));
	if (p->top)
		s->t[s->n] = *p->top;
	if (p->bottom)
		s->b[s->n] = *p->bottom;
	s->n++;
	return 0;
}

static void seen_free(struct seen *s)
{
	free(s->p);
	free(s->g);
	free(s->t);
	free(s->b);
	memset(s, 0, sizeof(*s));
}

static int same_rec(const struct iogap_trace_record *a, const struct iogap_trace_record *b)
{
	return a ? b && !memcmp(a, b, sizeof(*a)) : !b;
}

/* pairs that differ from the whole-run ones (fields and records) */
static size_t diff_pairs(const struct iogap_pairing *whole, const struct seen *s)
{
	size_t bad = 0;

	if (whole->nr != s->n)
		return whole->nr > s->n ? whole->nr - s->n : s->n - whole->nr;
	for (size_t i = 0; i < s->n; i++) {
		const struct iogap_pair *a = &whole->pairs[i], *b = &s->p[i];

		if (!same_rec(a->guest, &s->g[i]) || !same_rec(a->top, b->top ? &s->t[i] : NULL) ||
		    !same_rec(a->bottom, b->bottom ? &s->b[i] : NULL) ||
		    a->g_start != b->g_start || a->g_issue != b->g_issue ||
		    a->g_complete != b->g_complete || a->top_entry != b->top_entry ||
		    a->top_exit != b->top_exit || a->bottom_entry != b->bottom_entry ||
		    a->bottom_exit != b->bottom_exit || a->top_parts != b->top_parts ||
		    a->bottom_parts != b->bottom_parts || a->exact != b->exact ||
		    a->ambiguous != b->ambiguous || a->invalid != b->invalid ||
		    a->merged != b->merged)
			bad++;
	}
	return bad;
}

/* Swap records within `reach` positions of each other: the disorder of
 * several completing threads. */
static void jitter(struct iogap_trace_record *r, size_t n, size_t reach, uint64_t *rs)
{
	for (size_t i = 0; reach && i + 1 < n; i++) {
		size_t j = i + 1 + synth_rand(rs) % reach;
		struct iogap_trace_record t;

		if (j >= n)
			continue;
		t = r[i];
		r[i] = r[j];
		r[j] = t;
	}
}

struct outcome {
	size_t differ;
	size_t differ_far;        /* of them, not within reach of a long record */
	size_t expect_near;       /* requests within reach of one (the test's count) */
	uint64_t truncated;       /* both passes */
	uint64_t run_cut;         /* the pair visit's */
	struct iogap_stream_cut cut;   /* the pair visit's */
	int counts_same, map_same, rc;
};

/* How the facts are measured: finished (a horizon shorter than the longest
 * record, when a few are far longer), the long list's capacity (0: the
 * default). */
struct how {
	int finish;
	size_t long_max;
};

static const struct how today = { 0, 0 };

/* Is guest request g within reach (host ns) of one of the long records
 * (guest clock)? */
static int within_reach(const struct iogap_trace_record *g, const struct iogap_clock_map *pp,
			const struct iogap_trace_record *lng, size_t nlong, uint64_t reach)
{
	uint64_t s = iogap_guest_to_host(pp, g->start_ns), e = iogap_guest_to_host(pp, g->complete_ns);

	for (size_t i = 0; i < nlong; i++) {
		uint64_t ls = iogap_guest_to_host(pp, lng[i].start_ns) - reach;
		uint64_t le = iogap_guest_to_host(pp, lng[i].complete_ns) + reach;

		if (s <= le && e >= ls)
			return 1;
	}
	return 0;
}

/* The pairs that differ, and those of them not within reach of the long
 * records lng[0, nlong); the requests within reach. */
static void where_differ(const struct iogap_pairing *whole, const struct seen *sn,
			 const struct iogap_clock_map *pp, const struct iogap_trace_record *lng,
			 size_t nlong, struct outcome *o)
{
	if (whole->nr != sn->n)
		return;
	for (size_t i = 0; i < sn->n; i++) {
		struct seen one = { &sn->p[i], &sn->g[i], &sn->t[i], &sn->b[i], 1, 1 };
		struct iogap_pairing w1 = { .pairs = &whole->pairs[i], .nr = 1 };
		int near = within_reach(&sn->g[i], pp, lng, nlong, o->cut.reach);

		o->expect_near += near;
		o->differ_far += !near && diff_pairs(&w1, &one);
	}
}

/* Stream the synthetic traces with the given slice and budget, facts
 * measured as `how` says; compare.  lng: the long records (for
 * where_differ). */
static struct outcome stream_vs_whole_how(const struct synth *s, size_t slice, size_t budget,
					  struct how how, const struct iogap_trace_record *lng,
					  size_t nlong)
{
	struct iogap_pair_stream ps = { 0 };
	struct iogap_clock_map pp, map;
	struct iogap_pairing whole;
	struct iogap_pair_counts counts;
	struct iogap_bounds b;
	struct outcome o = { 0 };
	struct seen seen = { 0 };
	struct iogap_stream_cut bcut = { 0 }, cut = { 0 };

	iogap_clock_from_sync(s->sa, s->nsa, s->sb, s->nsb, &pp);
	if (iogap_pair_requests(s->g, s->ng, s->t, s->nt, s->b, s->nb, &pp, &whole, err,
				sizeof(err))) {
		o.rc = -1;
		return o;
	}
	ps.guest = (struct iogap_rec_src){ .r = s->g, .nr = s->ng };
	ps.top = (struct iogap_rec_src){ .r = s->t, .nr = s->nt };
	ps.bottom = (struct iogap_rec_src){ .r = s->b, .nr = s->nb };
	ps.pp = &pp;
	ps.slice = slice;
	ps.budget = budget;
	for (size_t i = 0; i < s->ng; i++)
		iogap_stream_fact(&ps.facts[0], &s->g[i]);
	for (size_t i = 0; i < s->nt; i++)
		iogap_stream_fact(&ps.facts[1], &s->t[i]);
	for (size_t i = 0; i < s->nb; i++)
		iogap_stream_fact(&ps.facts[2], &s->b[i]);
	for (int i = 0; i < 3 && how.finish; i++) {
		ps.facts[i].long_max = how.long_max;
		iogap_stream_facts_finish(&ps.facts[i]);
	}
	iogap_stream_facts_to_host(&ps.facts[0], &pp);
	o.rc = iogap_pair_stream_bounds(&ps, &b, &bcut, err, sizeof(err));
	iogap_bounds_apply(&b, &pp, &map);
	if (!o.rc)
		o.rc = iogap_pair_stream_run(&ps, &map, record_pair, &seen, &counts, &cut, err,
					     sizeof(err));
	o.truncated = bcut.truncated + cut.truncated;
	o.run_cut = cut.truncated;
	o.cut = cut;
	o.differ = diff_pairs(&whole, &seen);
	where_differ(&whole, &seen, &pp, lng, nlong, &o);
	o.counts_same = !memcmp(&counts, &whole.counts, sizeof(counts));
	o.map_same = map.offset_ns == whole.map.offset_ns &&
		     map.bound_lo_ns == whole.map.bound_lo_ns &&
		     map.bound_hi_ns == whole.map.bound_hi_ns &&
		     map.bound_pairs == whole.map.bound_pairs;
	seen_free(&seen);
	iogap_pairing_free(&whole);
	return o;
}

/* With the facts as measured before long-record lists (cap = longest). */
static struct outcome stream_vs_whole(const struct synth *s, size_t slice, size_t budget)
{
	return stream_vs_whole_how(s, slice, budget, today, NULL, 0);
}

static int same_as_whole(const struct outcome *o)
{
	return o->rc == 0 && o->differ == 0 && o->counts_same && o->map_same &&
	       o->truncated == 0 && o->cut.near == 0 && o->cut.near_filters == 0;
}

/* Facts as before and finished (no record far longer than the rest here:
 * none listed, the horizon allows for the longest): the same either way. */
static void expect_same(const char *name, const struct synth *s, size_t slice)
{
	struct how finished = { 1, 0 };
	struct outcome o = stream_vs_whole(s, slice, 0);
	struct outcome of = stream_vs_whole_how(s, slice, 0, finished, NULL, 0);

	ok(same_as_whole(&o) && same_as_whole(&of) && of.cut.nlong == 0,
	   "%s, slices of %zu: every pair, the counts and the clock map as the whole-run "
	   "pairing's, facts finished or not (rc %d %s, %zu pairs differ, counts %s, map %s, %"
	   PRIu64 " cut; finished: %zu differ, %" PRIu64 " cut, %" PRIu64 " long)", name,
	   slice, o.rc, o.rc ? err : "", o.differ, o.counts_same ? "same" : "differ",
	   o.map_same ? "same" : "differs", o.truncated, of.differ, of.truncated, of.cut.nlong);
}

/* What a source's `seen` got: its records, in order? */
struct seen_order {
	const struct iogap_trace_record *r;
	size_t nr, n;
	int in_order;
};

static void check_seen(void *ctx, const struct iogap_trace_record *r)
{
	struct seen_order *c = ctx;

	c->in_order &= c->n < c->nr && same_rec(&c->r[c->n], r);
	c->n++;
}

/* The clock bounds pass with seen on guest and top. */
static void expect_all_seen(const struct synth *s, size_t slice)
{
	struct seen_order sg = { s->g, s->ng, 0, 1 }, st = { s->t, s->nt, 0, 1 };
	struct iogap_pair_stream ps = { 0 };
	struct iogap_clock_map pp;
	struct iogap_bounds b;
	struct iogap_stream_cut cut;
	int rc;

	iogap_clock_from_sync(s->sa, s->nsa, s->sb, s->nsb, &pp);
	ps.guest = (struct iogap_rec_src){ .r = s->g, .nr = s->ng, .seen = check_seen,
					   .seen_ctx = &sg };
	ps.top = (struct iogap_rec_src){ .r = s->t, .nr = s->nt, .seen = check_seen,
					 .seen_ctx = &st };
	ps.bottom = (struct iogap_rec_src){ .r = s->b, .nr = s->nb };
	ps.pp = &pp;
	ps.slice = slice;
	rc = iogap_pair_stream_bounds(&ps, &b, &cut, err, sizeof(err));
	ok(rc == 0 && sg.in_order && sg.n == s->ng && st.in_order && st.n == s->nt,
	   "the bounds pass hands every guest and top record to seen in trace order (guest %zu of %zu, top %zu of %zu)", sg.n, s->ng, st.n, s->nt);
}

/* in trace order, unshuffled: the order a run writes */
static int make(struct synth_cfg *c, struct synth *s)
{
	if (synth_make(c, s)) {
		ok(0, "synth");
		return -1;
	}
	return 0;
}

int main(void)
{
	struct synth_cfg c;
	struct synth s;
	uint64_t rs = 99;

	tap_plan(17);

	/* tags, splits, ramp, drift: requests straddle every edge */
	synth_default(&c);
	c.n = 20000;
	c.shuffle = 0;
	if (!make(&c, &s)) {
		expect_same("tagged writes", &s, 1000);
		expect_same("tagged writes", &s, 7);
		expect_all_seen(&s, 1000);
		synth_free(&s);
	}

	/* no tags: every write by key and window; a narrow offset span puts
	 * same-key requests in flight together (ambiguous) across edges;
	 * records out of order within a bound, as several threads append */
	synth_default(&c);
	c.n = 20000;
	c.shuffle = 0;
	c.tagging = 0;
	c.span = 64 * 4096;
	if (!make(&c, &s)) {
		jitter(s.g, s.ng, 8, &rs);
		jitter(s.t, s.nt, 16, &rs);
		jitter(s.b, s.nb, 16, &rs);
		expect_same("untagged, same-key, out of order", &s, 500);
		expect_same("untagged, same-key, out of order", &s, 33);
		synth_free(&s);
	}

	/* the same with a 50 ms stall: pairs by key, ambiguities, disorder;
	 * out of the stall's reach every request still pairs as the whole run */
	if (!make(&c, &s)) {
		struct how finished = { 1, 0 };
		struct outcome o;

		jitter(s.g, s.ng, 8, &rs);
		jitter(s.t, s.nt, 16, &rs);
		jitter(s.b, s.nb, 16, &rs);
		s.g[10000].start_ns -= 50000000;
		o = stream_vs_whole_how(&s, 100, 4000, finished, &s.g[10000], 1);
		ok(o.rc == 0 && o.truncated == 0 && o.cut.nlong == 1 && o.cut.near == o.expect_near &&
		   o.differ_far == 0,
		   "untagged, same-key, out of order, a stall: %zu requests within its reach "
		   "counted, %zu of the others differ (%zu in all)", o.expect_near, o.differ_far,
		   o.differ);
		synth_free(&s);
	}

	/* invalid records and a dropped top record: counted alike */
	synth_default(&c);
	c.n = 5000;
	c.shuffle = 0;
	if (!make(&c, &s)) {
		s.g[1234].complete_ns = s.g[1234].start_ns - 5;
		s.g[4000].complete_ns = s.g[4000].start_ns - 100000;
		memmove(&s.t[2500], &s.t[2501], (s.nt - 2501) * sizeof(s.t[0]));
		s.nt--;
		expect_same("invalid and dropped records", &s, 100);
		synth_free(&s);
	}

	/* one request a second long among 100 us ones: the horizon spreads a
	 * window over the whole run, past a budget of 400 records */
	synth_default(&c);
	c.n = 20000;
	c.shuffle = 0;
	if (!make(&c, &s)) {
		struct outcome o;

		s.g[10000].start_ns -= 1000000000;
		o = stream_vs_whole(&s, 100, 0);
		ok(o.rc == 0 && o.differ == 0 && o.truncated == 0,
		   "long request, default budget: same pairs, nothing cut (%zu differ, %" PRIu64
		   " cut)", o.differ, o.truncated);
		o = stream_vs_whole(&s, 100, 400);
		ok(o.rc == 0 && o.truncated > 0,
		   "long request past the budget: the requests of cut windows are counted: %" PRIu64,
		   o.truncated);
		ok(o.differ <= o.run_cut && o.run_cut <= s.ng,
		   "long request past the budget: pairs differ only among them (%zu of %" PRIu64
		   " counted)", o.differ, o.run_cut);
		synth_free(&s);
	}

	/* a 50 ms stall among 100 us requests, facts finished: the horizon
	 * allows for the short ones, the stall is listed; windows stay within
	 * a budget of 4000 records (which the stall's horizon, 150 ms of
	 * requests, exceeds); only the requests within reach of the stall
	 * are counted, every other pairs as the whole run does */
	synth_default(&c);
	c.n = 20000;
	c.shuffle = 0;
	if (!make(&c, &s)) {
		struct how finished = { 1, 0 };
		struct outcome o, before;

		s.g[10000].start_ns -= 50000000;
		o = stream_vs_whole_how(&s, 100, 4000, finished, &s.g[10000], 1);
		before = stream_vs_whole(&s, 100, 4000);
		ok(before.truncated > 0 && o.rc == 0 && o.truncated == 0 && o.cut.nlong == 1 && o.cut.near > 0 &&
		   o.cut.near == o.expect_near && o.cut.near < s.ng / 2,
		   "one long request, listed: no window cut, the %zu requests within %.3f ms of it "
		   "counted (%" PRIu64 " by the stream, %" PRIu64 " long, cap %" PRIu64 " ns; %"
		   PRIu64 " cut before; rc %d %s)", o.expect_near, (double)o.cut.reach / 1e6, o.cut.near, o.cut.nlong,
		   o.cut.cap, before.truncated, o.rc, o.rc ? err : "");
		ok(o.differ_far == 0,
		   "one long request, listed: every request out of its reach pairs as the whole "
		   "run (%zu differ out of reach, %zu in all)", o.differ_far, o.differ);
		synth_free(&s);
	}

	/* the same stall in a run that one window holds whole (the default
	 * slice): the whole run's pairing, nothing counted as near it */
	synth_default(&c);
	c.n = 20000;
	c.shuffle = 0;
	if (!make(&c, &s)) {
		struct how finished = { 1, 0 };
		struct outcome o;

		s.g[10000].start_ns -= 50000000;
		o = stream_vs_whole_how(&s, 0, 0, finished, &s.g[10000], 1);
		ok(same_as_whole(&o) && o.cut.nlong == 1 && o.expect_near > 0,
		   "one long request, one window holds the run: the whole run's pairs, none of "
		   "the %zu requests within its reach counted (%" PRIu64 " counted, %zu differ)",
		   o.expect_near, o.cut.near, o.differ);
		synth_free(&s);
	}

	/* more long records than the list holds: the horizon of the longest,
	 * as before (its windows cut to the budget, nothing counted as near) */
	synth_default(&c);
	c.n = 20000;
	c.shuffle = 0;
	if (!make(&c, &s)) {
		struct how finished = { 1, 4 };
		struct iogap_trace_record lng[10];
		struct outcome o, before;

		for (size_t i = 1000; i < s.ng; i += 2000)
			s.g[i].start_ns -= 20000000;
		o = stream_vs_whole_how(&s, 100, 400, finished, NULL, 0);
		before = stream_vs_whole(&s, 100, 400);
		ok(o.rc == 0 && o.cut.nlong == 0 && o.cut.near == 0 && o.truncated > 0 &&
		   o.truncated == before.truncated && o.differ == before.differ &&
		   o.cut.cap == before.cut.cap,
		   "10 long requests, a list of 4: the longest's horizon, as before (%" PRIu64
		   " cut, before %" PRIu64 "; cap %" PRIu64 " ns, before %" PRIu64 ")", o.truncated,
		   before.truncated, o.cut.cap, before.cut.cap);
		finished.long_max = 16;
		for (size_t i = 1000, k = 0; i < s.ng; i += 2000)
			lng[k++] = s.g[i];
		o = stream_vs_whole_how(&s, 100, 4000, finished, lng, 10);
		ok(o.rc == 0 && o.cut.nlong == 10 && o.truncated == 0 &&
		   o.cut.near == o.expect_near && o.differ_far == 0,
		   "10 long requests, a list of 16: all listed, the %" PRIu64 " requests within "
		   "their reach counted, every other pairs as the whole run (%zu differ out of "
		   "reach)", o.cut.near, o.differ_far);
		synth_free(&s);
	}

	/* filter records without guest records: all unclaimed */
	synth_default(&c);
	c.n = 3000;
	c.shuffle = 0;
	if (!make(&c, &s)) {
		s.ng = 0;
		expect_same("no guest records", &s, 100);
		synth_free(&s);
	}

	/* nothing to pair */
	{
		struct synth empty = { 0 };
		struct iogap_sync_sample sa[1] = { { 100, 200, 300 } };
		struct outcome o;

		empty.sa = sa;
		empty.nsa = 1;
		o = stream_vs_whole(&empty, 10, 0);
		ok(o.rc == 0 && o.differ == 0 && o.counts_same, "empty traces: no pair, no error");
	}
	return tap_done();
}
