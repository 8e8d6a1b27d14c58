/* SPDX-License-Identifier: MIT */
/* Pairing a run in windows: see pairstream.h. */
#include <malloc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pairstream.h"
#include "trace_file.h"
#include "util.h"

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t sub_sat(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

static int is_rw(const struct iogap_trace_record *r)
{
	return r->op == IOGAP_OP_READ || r->op == IOGAP_OP_WRITE;
}

/* A record's later time on the host clock: the traces' (near) order. */
static uint64_t rec_key(const struct iogap_clock_map *map, const struct iogap_trace_record *r)
{
	uint64_t t = r->complete_ns > r->start_ns ? r->complete_ns : r->start_ns;

	return map ? iogap_guest_to_host(map, t) : t;
}

static uint64_t span_len(const struct iogap_span *s)
{
	return s->end - s->start;
}

static size_t long_max(const struct iogap_stream_facts *f)
{
	return f->long_max && f->long_max < IOGAP_STREAM_LONG ? f->long_max : IOGAP_STREAM_LONG;
}

/* Keep span s if among the longest: f->lng a min-heap by length.  Rare
 * once the heap is full (out of line: the per-record path stays short). */
static __attribute__((noinline)) void keep_long(struct iogap_stream_facts *f, struct iogap_span s)
{
	struct iogap_span *h = f->lng;
	size_t n = f->nlong, i = 0;

	if (n < long_max(f)) {
		for (i = f->nlong++; i && span_len(&h[(i - 1) / 2]) > span_len(&s); i = (i - 1) / 2)
			h[i] = h[(i - 1) / 2];
		h[i] = s;
		f->long_floor = f->nlong < long_max(f) ? 0 : span_len(&h[0]);
		return;
	}
	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && span_len(&h[c + 1]) < span_len(&h[c]))
			c++;
		if (span_len(&h[c]) >= span_len(&s))
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = s;
	f->long_floor = span_len(&h[0]);
}

void iogap_stream_fact(struct iogap_stream_facts *f, const struct iogap_trace_record *r)
{
	uint64_t k = rec_key(NULL, r);
	struct iogap_span s = { r->complete_ns > r->start_ns ? r->start_ns : r->complete_ns, k };
	uint64_t len = span_len(&s);

	if (len > f->longest)
		f->longest = len;
	if (k > f->max_key)
		f->max_key = k;
	else if (f->max_key - k > f->disorder)
		f->disorder = f->max_key - k;
	f->lengths[len ? 64 - __builtin_clzll(len) : 0]++;
	if (len > f->long_floor)
		keep_long(f, s);
}

static int by_start(const void *a, const void *b)
{
	const struct iogap_span *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* The log2 bucket of the 99.9th percentile length. */
static int high_bucket(const struct iogap_stream_facts *f)
{
	uint64_t n = 0, below = 0;
	int b = 0;

	for (int i = 0; i < 65; i++)
		n += f->lengths[i];
	while (b < 64 && (below += f->lengths[b]) < n - n / 1000)
		b++;
	return b;
}

void iogap_stream_facts_finish(struct iogap_stream_facts *f)
{
	int b = high_bucket(f);
	uint64_t longer = 0;
	size_t k = 0;

	/* 4 x the bucket's upper bound 2^b: records longer lie in b + 3 on */
	f->cap = b + 2 < 64 ? (uint64_t)1 << (b + 2) : f->longest;
	for (int i = b + 3; i < 65; i++)
		longer += f->lengths[i];
	if (f->cap >= f->longest || longer > long_max(f)) {
		f->cap = f->longest;
		f->nlong = 0;
		return;
	}
	for (size_t i = 0; i < f->nlong; i++)
		if (span_len(&f->lng[i]) > f->cap)
			f->lng[k++] = f->lng[i];
	f->nlong = k;
	qsort(f->lng, k, sizeof(f->lng[0]), by_start);
}

void iogap_stream_facts_to_host(struct iogap_stream_facts *f, const struct iogap_clock_map *map)
{
	/* host differences are guest ones / (1 + k), k = drift: at most
	 * / (1 - |k|); + 1 us for the mapping's rounding */
	double k = fabs(map->drift_ppb) * 1e-9;
	double stretch = k < 0.5 ? 1.0 / (1.0 - k) : 2.0;   /* >= 0.5: pairing refuses it */

	f->longest = (uint64_t)((double)f->longest * stretch) + 1000;
	f->disorder = (uint64_t)((double)f->disorder * stretch) + 1000;
	f->max_key = iogap_guest_to_host(map, f->max_key);
	if (f->cap)
		f->cap = (uint64_t)((double)f->cap * stretch) + 1000;
	/* not widened for the rounding: a length compared with cap stays the
	 * record's (the reach, 4 H, is wider than any rounding) */
	for (size_t i = 0; i < f->nlong; i++) {
		f->lng[i].start = iogap_guest_to_host(map, f->lng[i].start);
		f->lng[i].end = iogap_guest_to_host(map, f->lng[i].end);
	}
}

/* ------------------------------------------------------------ sources */

enum src_filter { SRC_ALL, SRC_NONE };

struct src {
	const struct iogap_rec_src *in;
	struct iogap_trace_reader *rd;
	const struct iogap_trace_record *batch;   /* of rd, read in place */
	size_t pos, nbatch;
	enum src_filter filter;
};

static int src_open(struct src *s, const struct iogap_rec_src *in, enum src_filter filter,
		    char *err, size_t errlen)
{
	memset(s, 0, sizeof(*s));
	s->in = in;
	s->filter = filter;
	if (filter != SRC_NONE && in->path && !(s->rd = iogap_trace_reader_open(in->path, err, errlen)))
		return -1;
	return 0;
}

/* 1 = got one, 0 = end, -1 = error (in err) */
static int src_next(struct src *s, struct iogap_trace_record *r, char *err, size_t errlen)
{
	if (s->filter == SRC_NONE)
		return 0;
	if (s->rd && s->pos == s->nbatch) {
		ptrdiff_t n = iogap_trace_reader_batch(s->rd, &s->batch, err, errlen);

		if (n <= 0)
			return (int)n;
		s->nbatch = (size_t)n;
		s->pos = 0;
	} else if (!s->rd && s->pos >= s->in->nr) {
		return 0;
	}
	*r = s->rd ? s->batch[s->pos++] : s->in->r[s->pos++];
	if (s->in->seen)
		s->in->seen(s->in->seen_ctx, r);
	return 1;
}

/* The rest of a source whose records someone wants to see. */
static int src_drain(struct src *s, char *err, size_t errlen)
{
	struct iogap_trace_record r;
	int rc = 0;

	while (s->in->seen && (rc = src_next(s, &r, err, errlen)) > 0)
		;
	return rc;
}

/* ------------------------------------------------------------ windows */

/* The records of one trace a window holds: r[0, n), in trace order. */
struct win {
	struct src src;
	const struct iogap_clock_map *map;   /* keys of guest records */
	struct iogap_trace_record *r;
	uint64_t *key;                       /* of r[i], kept: mapping costs */
	size_t n, cap, budget;
	uint64_t last_key;                   /* of the last record read */
	bool any, eof;
};

/* 1 = read one, 0 = end, 2 = budget reached, -1 = error */
static int win_read(struct win *w, char *err, size_t errlen)
{
	int rc;

	if (w->eof)
		return 0;
	if (w->n == w->budget)
		return 2;
	if (w->n == w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 65536;
		struct iogap_trace_record *r;
		uint64_t *key;

		cap = cap > w->budget ? w->budget : cap;
		r = realloc(w->r, cap * sizeof(*r));
		if (r)
			w->r = r;
		key = r ? realloc(w->key, cap * sizeof(*key)) : NULL;
		if (!key)
			return iogap_seterr(err, errlen, "pairing: out of memory");
		w->key = key;
		w->cap = cap;
	}
	rc = src_next(&w->src, &w->r[w->n], err, errlen);
	if (rc <= 0) {
		w->eof = !rc;
		return rc;
	}
	w->last_key = w->key[w->n] = rec_key(w->map, &w->r[w->n]);
	w->n++;
	w->any = true;
	return 1;
}

static size_t win_drop(struct win *w, uint64_t floor, size_t keep);

/* Drop the first k records held. */
static void win_shift(struct win *w, size_t k)
{
	memmove(w->r, w->r + k, (w->n - k) * sizeof(*w->r));
	memmove(w->key, w->key + k, (w->n - k) * sizeof(*w->key));
	w->n -= k;
}

/* Read until every record with key <= ceil is held (a record beyond
 * ceil + disorder proves it).  At the budget, the context behind the
 * window's own records (leading keys < own_lo, none at or after keep)
 * goes first, so that windows keep moving.  0, 1 if the budget cut the
 * window short, -1. */
static int win_fill(struct win *w, uint64_t ceil, uint64_t disorder, uint64_t own_lo,
		    size_t *keep, char *err, size_t errlen)
{
	uint64_t stop = add_sat(ceil, disorder);
	int cut = 0;

	while (!w->eof && (!w->any || w->last_key <= stop || stop == UINT64_MAX)) {
		int rc = win_read(w, err, errlen);
		size_t dropped;

		if (rc < 0)
			return -1;
		if (rc != 2)
			continue;
		cut = 1;
		dropped = win_drop(w, own_lo, *keep);
		*keep -= *keep == SIZE_MAX ? 0 : dropped;
		if (!dropped)
			return 1;
	}
	return cut;
}

/* Drop the leading records with key < floor, none at or after keep;
 * returns how many. */
static size_t win_drop(struct win *w, uint64_t floor, size_t keep)
{
	size_t k = 0;

	while (k < w->n && k < keep && w->key[k] < floor)
		k++;
	if (k)
		win_shift(w, k);
	return k;
}

/* ------------------------------------------------------------- passes */

struct pass {
	const struct iogap_pair_stream *ps;
	bool no_bottom;                        /* the bounds need the top only */
	const struct iogap_clock_map *times;   /* NULL: pairs keep no times */
	iogap_pair_visit fn;
	void *ctx;
	struct iogap_pair_counts *counts;      /* NULL: not counted */
	struct iogap_stream_cut cut;
	struct win w[3];                       /* guest, top, bottom */
	uint64_t horizon, disorder;
	/* the long records' spans widened by cut.reach, merged, by start */
	struct iogap_span *reach;
	size_t nreach;
};

/* Does [start, end] meet a long record's reach? */
static bool near_long(const struct pass *p, uint64_t start, uint64_t end)
{
	size_t lo = 0, hi = p->nreach;

	/* the last reach starting at or before end */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->reach[mid].start <= end)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && p->reach[lo - 1].end >= start;
}

static inline bool rec_near_long(const struct pass *p, const struct iogap_clock_map *map,
				 const struct iogap_trace_record *r, uint64_t key)
{
	uint64_t start;

	if (!p->nreach)
		return false;
	start = r->complete_ns > r->start_ns ? r->start_ns : r->complete_ns;
	return near_long(p, map ? iogap_guest_to_host(map, start) : start, key);
}

/* What the window owns: guest records [gs, ge) and the filter records
 * with key in [lo, hi). */
struct own {
	size_t gs, ge;
	uint64_t lo, hi;
	bool cut;
	bool whole;   /* the only window, holding every record: the whole run's pairing */
};

static void count_filters(struct pass *p, const struct iogap_pair_window *pw, const struct own *o)
{
	const struct win *t = &p->w[1], *b = &p->w[2];

	for (size_t i = 0; i < t->n; i++) {
		uint64_t k = rec_key(NULL, &t->r[i]);

		if (k < o->lo || k >= o->hi)
			continue;
		iogap_pair_count_top(p->counts, &t->r[i], pw->top_state[i]);
		p->cut.near_filters += !o->whole && rec_near_long(p, NULL, &t->r[i], k);
	}
	for (size_t i = 0; i < b->n; i++) {
		uint64_t k = rec_key(NULL, &b->r[i]);

		if (k < o->lo || k >= o->hi)
			continue;
		iogap_pair_count_bottom(p->counts, &b->r[i], pw->bottom_claimed[i]);
		p->cut.near_filters += !o->whole && rec_near_long(p, NULL, &b->r[i], k);
	}
}

static int pair_window(struct pass *p, const struct own *o, char *err, size_t errlen)
{
	const struct win *g = &p->w[0];
	struct iogap_pair_window pw;
	size_t k = 0;
	int rc = 0;

	if (iogap_pair_window(g->r, g->n, p->w[1].r, p->w[1].n, p->w[2].r, p->w[2].n, p->ps->pp,
			      &pw, err, errlen))
		return -1;
	for (size_t i = 0; i < o->gs; i++)
		k += is_rw(&g->r[i]);
	for (size_t i = o->gs; i < o->ge && !rc; i++) {
		struct iogap_pair *pr;

		if (!is_rw(&g->r[i]))
			continue;
		pr = &pw.pairs[k++];
		if (p->times)
			iogap_pair_set_times(p->times, pr);
		if (p->counts)
			iogap_pair_count(p->counts, pr);
		p->cut.truncated += o->cut;
		p->cut.near += !o->whole && rec_near_long(p, p->ps->pp, &g->r[i], g->key[i]);
		rc = p->fn(p->ctx, pr);
	}
	if (!rc && p->counts)
		count_filters(p, &pw, o);
	iogap_pair_window_free(&pw);
	return rc;
}

/* The next slice's own guest records held: r[gs, ge).  0 (ge == gs: no
 * more), or -1.  A guest window full before them drops its oldest
 * context (o->cut). */
static int own_guest(struct pass *p, struct own *o, size_t slice, char *err, size_t errlen)
{
	struct win *g = &p->w[0];

	while (g->n < o->gs + slice) {
		int rc = win_read(g, err, errlen);

		if (rc < 0)
			return -1;
		if (rc == 0)
			break;
		if (rc == 2) {
			size_t k = g->n - g->budget / 2 < o->gs ? g->n - g->budget / 2 : o->gs;

			win_shift(g, k);
			o->gs -= k;
			o->cut = true;
		}
	}
	o->ge = g->n < o->gs + slice ? g->n : o->gs + slice;
	return 0;
}

static int slices(struct pass *p, size_t slice, char *err, size_t errlen)
{
	struct win *g = &p->w[0];
	uint64_t r = 0, h = p->horizon, d = p->disorder;
	size_t gs = 0;

	for (;;) {
		struct own o = { .gs = gs, .lo = r };
		uint64_t r1 = r;
		size_t dropped, keep;
		bool last;
		int cut, rc;

		if (own_guest(p, &o, slice, err, errlen))
			return -1;
		/* no more guest records; but a first window without any still
		 * owns (counts) every filter record */
		if (o.ge == o.gs && gs)
			return 0;
		for (size_t i = o.gs; i < o.ge; i++)
			r1 = g->key[i] > r1 ? g->key[i] : r1;
		/* context: guest records within 3 H, filter records within 4 H */
		dropped = win_drop(g, sub_sat(r, d + 3 * h), o.gs);

		o.gs -= dropped;
		o.ge -= dropped;
		win_drop(&p->w[1], sub_sat(r, d + 4 * h), SIZE_MAX);
		win_drop(&p->w[2], sub_sat(r, d + 4 * h), SIZE_MAX);
		keep = o.gs;
		cut = win_fill(g, add_sat(r1, 3 * h), d, r, &keep, err, errlen);
		o.ge -= o.gs - keep;
		o.gs = keep;
		last = g->eof && o.ge == g->n;
		for (int f = 1; f < 3 && cut >= 0; f++) {
			int c;

			keep = SIZE_MAX;
			c = win_fill(&p->w[f], last ? UINT64_MAX : add_sat(r1, 4 * h), d, r, &keep,
				     err, errlen);
			cut = c < 0 ? -1 : cut | c;
		}
		if (cut < 0)
			return -1;
		o.cut |= cut;
		o.hi = last ? UINT64_MAX : r1;
		o.whole = last && !gs && !o.cut;
		rc = pair_window(p, &o, err, errlen);
		if (rc)
			return rc;
		if (last)
			return 0;
		r = r1;
		gs = o.ge;
	}
}

/* The records longer than cap, widened by reach = 4 H: merged, by start. */
static int reach_of(struct pass *p)
{
	const struct iogap_stream_facts *f = p->ps->facts;
	struct iogap_span *r = malloc((f[0].nlong + f[1].nlong + f[2].nlong + 1) * sizeof(*r));
	size_t n = 0;

	if (!r)
		return -1;
	for (int i = 0; i < 3; i++)
		for (size_t j = 0; j < f[i].nlong; j++)
			if (span_len(&f[i].lng[j]) > p->cut.cap)
				r[n++] = (struct iogap_span){ sub_sat(f[i].lng[j].start, p->cut.reach),
							      add_sat(f[i].lng[j].end, p->cut.reach) };
	p->cut.nlong = n;
	qsort(r, n, sizeof(*r), by_start);
	p->nreach = 0;
	for (size_t j = 0; j < n; j++) {
		if (p->nreach && r[j].start <= r[p->nreach - 1].end) {
			if (r[j].end > r[p->nreach - 1].end)
				r[p->nreach - 1].end = r[j].end;
			continue;
		}
		r[p->nreach++] = r[j];
	}
	p->reach = r;
	return 0;
}

/* H = slack + cap + disorder (pairstream.h); the long records' reach.
 * 0, or -1 (out of memory). */
static int horizon_of(struct pass *p)
{
	const struct iogap_pair_stream *ps = p->ps;

	for (int i = 0; i < 3; i++) {
		uint64_t cap = ps->facts[i].cap ? ps->facts[i].cap : ps->facts[i].longest;

		p->cut.cap = cap > p->cut.cap ? cap : p->cut.cap;
		if (ps->facts[i].disorder > p->disorder)
			p->disorder = ps->facts[i].disorder;
	}
	/* + 1 us: the guest keys' mapping rounds */
	p->horizon = add_sat(add_sat(iogap_pair_slack(ps->pp), p->cut.cap), p->disorder + 1000);
	p->cut.reach = p->horizon > UINT64_MAX / 4 ? UINT64_MAX : 4 * p->horizon;
	return reach_of(p);
}

static int run_pass(struct pass *p, char *err, size_t errlen)
{
	const struct iogap_pair_stream *ps = p->ps;
	const struct iogap_rec_src *in[3] = { &ps->guest, &ps->top, &ps->bottom };
	enum src_filter filter[3] = { SRC_ALL, SRC_ALL, SRC_ALL };
	size_t slice = ps->slice ? ps->slice : IOGAP_STREAM_SLICE;
	size_t budget = ps->budget ? ps->budget : IOGAP_STREAM_BUDGET;
	int rc = 0;

	if (p->no_bottom)
		filter[2] = SRC_NONE;
	struct iogap_pair_window none;

	/* the map's checks (a drift too large to pair with), also when the
	 * run has no request to pair */
	if (iogap_pair_window(NULL, 0, NULL, 0, NULL, 0, ps->pp, &none, err, errlen))
		return -1;
	iogap_pair_window_free(&none);
	budget = budget < 2 * slice ? 2 * slice : budget;
	/* every window allocates and frees the same large arrays: keep them
	 * in the heap (no mmap, no trim), or each window pays their page
	 * faults and zeroing again; the peak stays a window's */
	mallopt(M_MMAP_THRESHOLD, 512 << 20);
	mallopt(M_TRIM_THRESHOLD, 1024 << 20);
	if (horizon_of(p))
		return iogap_seterr(err, errlen, "pairing: out of memory");
	for (int i = 0; i < 3 && !rc; i++) {
		p->w[i].map = i ? NULL : ps->pp;
		p->w[i].budget = budget;
		rc = src_open(&p->w[i].src, in[i], filter[i], err, errlen);
	}
	if (!rc)
		rc = slices(p, slice, err, errlen);
	for (int i = 0; i < 3 && !rc; i++)
		rc = src_drain(&p->w[i].src, err, errlen);
	for (int i = 0; i < 3; i++) {
		iogap_trace_reader_close(p->w[i].src.rd);
		free(p->w[i].r);
		free(p->w[i].key);
	}
	free(p->reach);
	return rc;
}

struct bounds_ctx {
	struct iogap_bounds *b;
	const struct iogap_clock_map *pp;
};

static int add_bound(void *ctx, const struct iogap_pair *pr)
{
	struct bounds_ctx *c = ctx;

	iogap_bounds_add(c->b, c->pp, pr);
	return 0;
}

int iogap_pair_stream_bounds(const struct iogap_pair_stream *ps, struct iogap_bounds *b,
			     struct iogap_stream_cut *cut, char *err, size_t errlen)
{
	struct bounds_ctx c = { b, ps->pp };
	struct pass p = { .ps = ps, .no_bottom = true, .fn = add_bound, .ctx = &c };
	int rc;

	iogap_bounds_init(b);
	rc = run_pass(&p, err, errlen);
	*cut = p.cut;
	return rc;
}

int iogap_pair_stream_run(const struct iogap_pair_stream *ps, const struct iogap_clock_map *map,
			  iogap_pair_visit fn, void *ctx, struct iogap_pair_counts *counts,
			  struct iogap_stream_cut *cut, char *err, size_t errlen)
{
	struct pass p = { .ps = ps, .times = map, .fn = fn, .ctx = ctx, .counts = counts };
	int rc;

	memset(counts, 0, sizeof(*counts));
	rc = run_pass(&p, err, errlen);
	*cut = p.cut;
	return rc;
}
