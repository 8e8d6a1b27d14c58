/* SPDX-License-Identifier: MIT */
/*
 * Clock alignment and request pairing: see align.h and DESIGN.md "Pairing
 * requests and aligning clocks".
 *
 * Conventions: offset = guest - host (guest_ns = host_ns + offset_at(host)).
 * Every guest time is mapped onto the host clock; all host values stay
 * uint64, every difference that feeds double arithmetic is a small int64
 * (never a ~1e18 absolute value).
 *
 * Pairing, in three steps, all O(n log n):
 *  1. writes by tag: guest write records sorted by tag, tagged top write
 *     records sorted by tag, merge-joined.  Several top records with one
 *     tag (a split below the guest) are combined: entry = min, exit = max.
 *  2. everything else by (op, offset, length) + time window, on a sorted
 *     index of the untagged top records and binary search.  A pair is made
 *     only when it is unique in both directions (see match_windows()), so a
 *     dropped record or two same-key requests in flight together never give
 *     a wrong pair: they are counted as unpaired or ambiguous.
 *  3. bottom records: tagged ones by tag to the exact pairs, untagged ones
 *     by key and nesting in a top record's [entry, exit], then to the guest
 *     request through that top record.  Top and bottom offsets are the same
 *     for raw images (our case); a qcow2 image maps guest offsets to host
 *     cluster offsets, so untagged bottom records would need that mapping
 *     (tagged writes still pair by tag: the tag travels with the payload).
 * Then the exact pairs bound the clock offset (bound_refine()).
 *
 * Flush, trim, write-zeroes and other ops (op > IOGAP_OP_WRITE) are not
 * paired: they carry no payload tag, a flush has no offset/length, and
 * their counts are not in the pairs or in *_unclaimed.  Reads split below
 * the guest (several filter records of other offsets/lengths) stay unpaired
 * (each part's key differs from the guest request's).
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "align.h"

#define NONE UINT32_MAX

/* ------------------------------------------------------------------ */
/* Clock map                                                           */

static uint64_t add_clamp(uint64_t base, int64_t d)
{
	if (d < 0) {
		uint64_t m = (uint64_t)(-(d + 1)) + 1;   /* |d| without overflow */
		return m > base ? 0 : base - m;
	}
	return (uint64_t)d > UINT64_MAX - base ? UINT64_MAX : base + (uint64_t)d;
}

/* a - b as int64, saturating (the values we subtract are near each other). */
static int64_t sdiff(uint64_t a, uint64_t b)
{
	if (a >= b)
		return a - b > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)(a - b);
	return b - a > (uint64_t)INT64_MAX ? INT64_MIN + 1 : -(int64_t)(b - a);
}

static int64_t sadd(int64_t a, int64_t b)
{
	int64_t r;

	if (__builtin_add_overflow(a, b, &r))
		return a > 0 ? INT64_MAX : INT64_MIN + 1;
	return r;
}

static int64_t dround(double v)
{
	if (!(v == v))
		return 0;
	if (v >= 9.2e18)
		return INT64_MAX;
	if (v <= -9.2e18)
		return INT64_MIN + 1;
	return llround(v);
}

uint64_t iogap_host_to_guest(const struct iogap_clock_map *map, uint64_t host_ns)
{
	int64_t d = sdiff(host_ns, map->ref_host_ns);
	int64_t drift = dround((double)d * map->drift_ppb * 1e-9);

	return add_clamp(host_ns, sadd(map->offset_ns, drift));
}

uint64_t iogap_guest_to_host(const struct iogap_clock_map *map, uint64_t guest_ns)
{
	/* guest = ref + d + offset + k d  =>  d = x / (1 + k) = x - x k/(1 + k),
	 * x = guest - ref - offset; only the small correction is in double. */
	double k = map->drift_ppb * 1e-9;
	int64_t x = sadd(sdiff(guest_ns, map->ref_host_ns), -map->offset_ns);
	int64_t d = sadd(x, -dround((double)x * (k / (1.0 + k))));

	return add_clamp(map->ref_host_ns, d);
}

/* ------------------------------------------------------------------ */
/* Ping-pong                                                           */

struct round {
	int64_t off;      /* guest_ns - (t_send + t_recv) / 2 */
	uint64_t rtt;
	uint64_t mid;     /* (t_send + t_recv) / 2 */
};

static int cmp_rtt(const void *a, const void *b)
{
	const struct round *x = a, *y = b;

	return (x->rtt > y->rtt) - (x->rtt < y->rtt);
}

static int cmp_off(const void *a, const void *b)
{
	const struct round *x = a, *y = b;

	return (x->off > y->off) - (x->off < y->off);
}

struct sync_est {
	int64_t off;
	uint64_t mid;
	uint64_t min_rtt, max_kept_rtt;
	size_t kept;
};

/*
 * One set of rounds.  Each round bounds the offset: the guest stamped
 * guest_ns somewhere in [t_send, t_recv], so its offset is within rtt/2 of
 * the round's midpoint estimate, and the error is (forward - back delay)/2.
 * The RTT distribution has a hard floor (the channel's fixed cost) and a
 * long tail (scheduling, queueing), and the tail is where the asymmetry
 * lives.  So: keep the lowest 10% of rounds by RTT (at least 5 when there
 * are that many), and of those only the ones within min + max(min/2, 1 us)
 * (near-floor rounds: their error bound is at most ~1.5x the best one's).
 * The median offset of the kept rounds then rejects the odd round whose
 * delay fell asymmetrically despite a low RTT; it is one of the kept
 * rounds (or the mean of two), so it is within max_kept_rtt/2 of the truth.
 */
static int sync_set(const struct iogap_sync_sample *s, size_t n, struct sync_est *e)
{
	struct round *r;
	size_t nv = 0, k, i;
	uint64_t limit;

	if (!n)
		return 0;
	r = malloc(n * sizeof(*r));
	if (!r)
		return -1;
	for (i = 0; i < n; i++) {
		if (s[i].t_recv < s[i].t_send)
			continue;      /* corrupt round */
		r[nv].rtt = s[i].t_recv - s[i].t_send;
		r[nv].mid = s[i].t_send + r[nv].rtt / 2;
		r[nv].off = sdiff(s[i].guest_ns, r[nv].mid);
		nv++;
	}
	if (!nv) {
		free(r);
		return 0;
	}
	qsort(r, nv, sizeof(*r), cmp_rtt);
	k = (nv + 9) / 10;
	if (k < 5)
		k = nv < 5 ? nv : 5;
	limit = r[0].rtt + (r[0].rtt / 2 > 1000 ? r[0].rtt / 2 : 1000);
	for (i = 1; i < k; i++)
		if (r[i].rtt > limit)
			break;
	k = i;
	e->min_rtt = r[0].rtt;
	e->max_kept_rtt = r[k - 1].rtt;
	e->kept = k;
	qsort(r, k, sizeof(*r), cmp_off);
	if (k & 1) {
		e->off = r[k / 2].off;
		e->mid = r[k / 2].mid;
	} else {
		const struct round *a = &r[k / 2 - 1], *b = &r[k / 2];

		/* b->off >= a->off: the unsigned difference cannot overflow */
		e->off = (int64_t)((uint64_t)a->off + ((uint64_t)b->off - (uint64_t)a->off) / 2);
		e->mid = a->mid < b->mid ? a->mid + (b->mid - a->mid) / 2
					 : b->mid + (a->mid - b->mid) / 2;
	}
	free(r);
	return 1;
}

int iogap_clock_from_sync(const struct iogap_sync_sample *a, size_t na,
			  const struct iogap_sync_sample *b, size_t nb,
			  struct iogap_clock_map *map)
{
	struct sync_est ea, eb;
	int ra, rb;
	uint64_t unc;

	memset(map, 0, sizeof(*map));
	map->method = "ping-pong";
	map->bound_consistent = 1;
	if (!a || !na)
		return -1;
	ra = sync_set(a, na, &ea);
	if (ra <= 0)
		return -1;
	rb = b ? sync_set(b, nb, &eb) : 0;
	if (rb < 0)
		return -1;

	map->offset_ns = ea.off;
	map->ref_host_ns = ea.mid;
	map->sync_offset_ns = ea.off;
	map->sync_rtt_ns = ea.min_rtt;
	unc = ea.max_kept_rtt / 2;
	if (rb > 0) {
		if (eb.min_rtt < map->sync_rtt_ns)
			map->sync_rtt_ns = eb.min_rtt;
		if (eb.max_kept_rtt / 2 > unc)
			unc = eb.max_kept_rtt / 2;
		/* the two offsets a span apart: only their difference and
		 * the span (both small) go through double.  Sets less than
		 * IOGAP_ALIGN_MIN_DRIFT_SPAN_NS apart give no drift: the
		 * offsets' errors (up to the uncertainty, tens of us) over a
		 * span of ms would make a drift of 1000s of ppm out of noise. */
		if (eb.mid > ea.mid && eb.mid - ea.mid >= IOGAP_ALIGN_MIN_DRIFT_SPAN_NS)
			map->drift_ppb = (double)sadd(eb.off, ea.off == INT64_MIN ? INT64_MAX : -ea.off) /
					 (double)(eb.mid - ea.mid) * 1e9;
	}
	map->sync_uncertainty_ns = unc;
	map->bound_lo_ns = sadd(map->offset_ns, -(int64_t)unc);
	map->bound_hi_ns = sadd(map->offset_ns, (int64_t)unc);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Sorted indexes                                                      */

/*
 * 10M records must pair in seconds: everything below is sorting (LSD radix,
 * digits that are the same in every element skipped) and linear merge
 * sweeps over sorted arrays; binary search over 100s of MB (a cache miss
 * per step) was 20x slower at 5M.  The only searches left are gallops
 * inside one key's group, O(log group size).
 */
#define MAXREC 0x3fffffffu   /* record indexes fit 30 bits (op, flag above) */
#define K_TAGGED (1u << 30)

/* (op, offset, length, time) -> record index; hi: the end of a query's
 * window (carried here: a side array would cost a cache miss per query) */
struct kent {
	uint64_t off;
	uint64_t t;
	uint64_t hi;
	uint32_t len;
	uint32_t idxop;   /* index | K_TAGGED | op << 31 (op is READ 0 or WRITE 1) */
};

static inline uint32_t k_idx(const struct kent *k)
{
	return k->idxop & MAXREC;
}

static inline struct kent kmake(const struct iogap_trace_record *r, uint64_t t, uint64_t hi,
				size_t idx)
{
	return (struct kent){ .off = r->offset, .t = t, .hi = hi, .len = r->length,
			      .idxop = (uint32_t)idx | (uint32_t)(r->op == IOGAP_OP_WRITE) << 31 };
}

static inline int ksame(const struct kent *x, const struct kent *y)
{
	return x->off == y->off && x->len == y->len && (x->idxop >> 31) == (y->idxop >> 31);
}

/* (key, t) of x < (key, t) of y */
static inline int kless(const struct kent *x, const struct kent *y)
{
	if ((x->idxop >> 31) != (y->idxop >> 31))
		return (x->idxop >> 31) < (y->idxop >> 31);
	if (x->off != y->off)
		return x->off < y->off;
	if (x->len != y->len)
		return x->len < y->len;
	return x->t < y->t;
}

/* digit d (8 bits) of the sort key, least significant first:
 * t (8 bytes), len (4), off (8), op (1 bit) */
static inline unsigned kdigit(const struct kent *k, unsigned d)
{
	if (d < 8)
		return (unsigned)(k->t >> (8 * d)) & 255;
	if (d < 12)
		return (k->len >> (8 * (d - 8))) & 255;
	if (d < 20)
		return (unsigned)(k->off >> (8 * (d - 12))) & 255;
	return k->idxop >> 31;
}

#define KDIGITS 21

static int cmp_kent_t(const void *a, const void *b)
{
	const struct kent *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return (k_idx(x) > k_idx(y)) - (k_idx(x) < k_idx(y));
}

/* One key's group by time: usually tiny and already in order (stable
 * radix sort of time-ordered input). */
static void ksort_group(struct kent *a, size_t n)
{
	size_t i, j;

	for (i = 1; i < n && a[i - 1].t <= a[i].t; i++)
		;
	if (i >= n)
		return;
	if (n > 16) {
		qsort(a, n, sizeof(*a), cmp_kent_t);
		return;
	}
	for (i = 1; i < n; i++) {
		struct kent x = a[i];

		for (j = i; j > 0 && a[j - 1].t > x.t; j--)
			a[j] = a[j - 1];
		a[j] = x;
	}
}

/*
 * By (key, t): a stable LSD radix sort on the key only (time digits would
 * double the passes), then each key's group by time.  Keys are nearly
 * unique (random offsets), so the groups cost nothing.
 */
static int ksort(struct kent *a, size_t n)
{
	size_t (*h)[256];
	struct kent *tmp, *src = a, *dst;
	size_t i, e;
	unsigned d;

	for (i = 1; i < n && !kless(&a[i], &a[i - 1]); i++)
		;
	if (i >= n)
		return 0;    /* already sorted */
	h = calloc(KDIGITS, sizeof(*h));
	tmp = malloc(n * sizeof(*tmp));
	if (!h || !tmp) {
		free(h);
		free(tmp);
		return -1;
	}
	for (i = 0; i < n; i++) {
		uint64_t o = a[i].off;
		uint32_t l = a[i].len;

		for (d = 0; d < 4; d++)
			h[8 + d][(l >> (8 * d)) & 255]++;
		for (d = 0; d < 8; d++)
			h[12 + d][(o >> (8 * d)) & 255]++;
		h[20][a[i].idxop >> 31]++;
	}
	dst = tmp;
	for (d = 8; d < KDIGITS; d++) {
		size_t sum = 0, c;
		int trivial = 0;

		for (c = 0; c < 256; c++) {
			size_t v = h[d][c];

			if (v == n)
				trivial = 1;
			h[d][c] = sum;
			sum += v;
		}
		if (trivial)
			continue;
		for (i = 0; i < n; i++)
			dst[h[d][kdigit(&src[i], d)]++] = src[i];
		dst = src;
		src = src == a ? tmp : a;
	}
	if (src != a)
		memcpy(a, src, n * sizeof(*a));
	free(tmp);
	free(h);
	for (i = 0; i < n; i = e) {
		for (e = i + 1; e < n && ksame(&a[e], &a[i]); e++)
			;
		if (e - i > 1)
			ksort_group(a + i, e - i);
	}
	return 0;
}

/* tag -> record index */
struct tent {
	uint64_t tag;
	uint32_t idx;
	uint32_t pad;
};

/* Stable radix sort by tag. */
static int tsort(struct tent *a, size_t n)
{
	size_t (*h)[256];
	struct tent *tmp, *src = a, *dst;
	size_t i;
	unsigned d;

	for (i = 1; i < n && a[i].tag >= a[i - 1].tag; i++)
		;
	if (i >= n)
		return 0;
	h = calloc(8, sizeof(*h));
	tmp = malloc(n * sizeof(*tmp));
	if (!h || !tmp) {
		free(h);
		free(tmp);
		return -1;
	}
	for (i = 0; i < n; i++)
		for (d = 0; d < 8; d++)
			h[d][(a[i].tag >> (8 * d)) & 255]++;
	dst = tmp;
	for (d = 0; d < 8; d++) {
		size_t sum = 0, c;
		int trivial = 0;

		for (c = 0; c < 256; c++) {
			size_t v = h[d][c];

			if (v == n)
				trivial = 1;
			h[d][c] = sum;
			sum += v;
		}
		if (trivial)
			continue;
		for (i = 0; i < n; i++)
			dst[h[d][(src[i].tag >> (8 * d)) & 255]++] = src[i];
		dst = src;
		src = src == a ? tmp : a;
	}
	if (src != a)
		memcpy(a, src, n * sizeof(*a));
	free(tmp);
	free(h);
	return 0;
}

enum { M_NONE = 0, M_PAIR = 1, M_AMBIG = 2 };

/*
 * Time-window matching.  q: queries sorted by (key, lo), k_idx = the
 * caller's query number, whose window is [q.t, q.hi]; f: records
 * sorted by (key, time).  For each query, its candidates are the records
 * of its key with time in its window: a contiguous run f[a, b) of the
 * sorted index (a moves monotonically with the sorted queries; b is found
 * by galloping inside the key's group).
 *
 * A pair needs uniqueness both ways: exactly one candidate, and that
 * record inside no other query's window (cover == 1, counted with a
 * difference array over the runs).  The second condition is what keeps a
 * dropped record from turning into a wrong pair (request A's record lost,
 * request B of the same key in flight at the same time: A would see only
 * B's record).  Such cases are M_AMBIG, never guessed.
 * res[number] = record index or NONE, st[number] = M_*.
 */
static int match_windows(const struct kent *q, size_t nq, const struct kent *f, size_t nf,
			 uint32_t *res, uint8_t *st)
{
	uint32_t *qa, *qb;
	int32_t *cover;
	size_t i, fp = 0;

	if (!nq)
		return 0;
	qa = malloc(nq * sizeof(*qa));
	qb = malloc(nq * sizeof(*qb));
	cover = calloc(nf + 1, sizeof(*cover));
	if (!qa || !qb || !cover) {
		free(qa);
		free(qb);
		free(cover);
		return -1;
	}
	for (i = 0; i < nq; i++) {
		const struct kent *x = &q[i];
		uint64_t h = x->hi;
		size_t a, b;

		while (fp < nf && kless(&f[fp], x))
			fp++;
		a = b = fp;
		if (b < nf && ksame(&f[b], x) && f[b].t <= h) {
			/* gallop to the first record out of the window */
			size_t lo = b + 1, top, step = 1, probe = b + 1;

			while (probe < nf && ksame(&f[probe], x) && f[probe].t <= h) {
				lo = probe + 1;
				step *= 2;
				probe = b + step;
			}
			top = probe < nf ? probe : nf;
			while (lo < top) {
				size_t m = lo + (top - lo) / 2;

				if (ksame(&f[m], x) && f[m].t <= h)
					lo = m + 1;
				else
					top = m;
			}
			b = lo;
		}
		qa[i] = (uint32_t)a;
		qb[i] = (uint32_t)b;
		if (b > a) {
			cover[a]++;
			cover[b]--;
		}
	}
	for (i = 1; i < nf; i++)
		cover[i] += cover[i - 1];
	for (i = 0; i < nq; i++) {
		uint32_t n = k_idx(&q[i]);

		res[n] = NONE;
		if (qb[i] == qa[i])
			st[n] = M_NONE;
		else if (qb[i] - qa[i] > 1 || cover[qa[i]] != 1)
			st[n] = M_AMBIG;
		else {
			st[n] = M_PAIR;
			res[n] = k_idx(&f[qa[i]]);
		}
	}
	free(qa);
	free(qb);
	free(cover);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Pairing                                                             */

static int is_rw(const struct iogap_trace_record *r)
{
	return r->op == IOGAP_OP_READ || r->op == IOGAP_OP_WRITE;
}

static int is_tagged_write(const struct iogap_trace_record *r)
{
	return r->op == IOGAP_OP_WRITE && (r->flags & IOGAP_REC_TAGGED);
}

static void add_top(struct iogap_pair *p, const struct iogap_trace_record *r)
{
	if (!p->top_parts || r->start_ns < p->top_entry) {
		p->top = r;
		p->top_entry = r->start_ns;
	}
	if (!p->top_parts || r->complete_ns > p->top_exit)
		p->top_exit = r->complete_ns;
	if (p->top_parts < UINT16_MAX)
		p->top_parts++;
}

static void add_bottom(struct iogap_pair *p, const struct iogap_trace_record *r)
{
	if (!p->bottom_parts || r->start_ns < p->bottom_entry) {
		p->bottom = r;
		p->bottom_entry = r->start_ns;
	}
	if (!p->bottom_parts || r->complete_ns > p->bottom_exit)
		p->bottom_exit = r->complete_ns;
	if (p->bottom_parts < UINT16_MAX)
		p->bottom_parts++;
}

/* Is the filter part's offset inside the guest request?  (A split part
 * starts inside it; a merged request starts at its first request.) */
static int part_in(const struct iogap_trace_record *g, const struct iogap_trace_record *f)
{
	return f->offset >= g->offset && f->offset - g->offset < (uint64_t)g->length;
}

/*
 * Bounds (the core).  offset = guest - host, and for an exact pair
 *   guest start <= top entry  =>  off0 >= lo_i
 *   top exit <= guest complete =>  off0 <= hi_i
 * in the frame the ping-pong drift corrects, so only the constant off0
 * (offset at ref_host_ns) is bounded.  With H() the ping-pong guest->host
 * map, shifting off0 by D moves every mapped time by -D/(1+k), k = drift
 * 1e-9, hence
 *   lo_i = off0 - (1+k) (top_entry - H(g_start)),
 *   hi_i = off0 + (1+k) (H(g_complete) - top_exit)
 * (margins are small int64; (1+k) changes them by < 1 ns per 300 us at
 * 3000 ppb but is kept for exactness).  lo = max lo_i, hi = min hi_i.
 */
void iogap_bounds_init(struct iogap_bounds *b)
{
	b->lo = INT64_MIN;
	b->hi = INT64_MAX;
	b->n = 0;
}

void iogap_bounds_add(struct iogap_bounds *b, const struct iogap_clock_map *pp,
		      const struct iogap_pair *p)
{
	double k1 = 1.0 + pp->drift_ppb * 1e-9;
	int64_t ms, mc;

	if (!p->exact || !p->top || p->invalid || p->top_exit < p->top_entry)
		return;
	ms = sdiff(p->top_entry, iogap_guest_to_host(pp, p->guest->start_ns));
	mc = sdiff(iogap_guest_to_host(pp, p->guest->complete_ns), p->top_exit);
	ms = dround((double)ms * k1);
	mc = dround((double)mc * k1);
	if (sadd(pp->offset_ns, -ms) > b->lo)
		b->lo = sadd(pp->offset_ns, -ms);
	if (sadd(pp->offset_ns, mc) < b->hi)
		b->hi = sadd(pp->offset_ns, mc);
	b->n++;
}

void iogap_bounds_apply(const struct iogap_bounds *b, const struct iogap_clock_map *pp,
			struct iogap_clock_map *m)
{
	*m = *pp;
	if (!m->method)
		m->method = "ping-pong";
	if (!b->n)
		return;      /* ping-pong map and its bound stay as they are */
	m->bound_lo_ns = b->lo;
	m->bound_hi_ns = b->hi;
	m->bound_pairs = b->n;
	if (b->lo <= b->hi) {
		m->bound_consistent = 1;
		m->offset_ns = b->lo + (int64_t)(((uint64_t)b->hi - (uint64_t)b->lo) / 2);
		m->method = "ping-pong+request-bounds";
	} else {
		/* crossed: a wrong pair, a bad drift, or a filter clock that
		 * is not the host's.  Keep (and report) the ping-pong offset. */
		m->bound_consistent = 0;
		m->offset_ns = pp->offset_ns;
		m->method = "ping-pong";
	}
}

void iogap_pair_set_times(const struct iogap_clock_map *map, struct iogap_pair *p)
{
	p->g_start = iogap_guest_to_host(map, p->guest->start_ns);
	p->g_issue = iogap_guest_to_host(map, p->guest->issue_ns);
	p->g_complete = iogap_guest_to_host(map, p->guest->complete_ns);
}

void iogap_pair_count(struct iogap_pair_counts *c, const struct iogap_pair *p)
{
	int d = p->guest->op == IOGAP_OP_WRITE;

	c->guest[d]++;
	if (p->invalid)
		c->invalid[d]++;
	if (p->top) {
		c->paired_top[d]++;
		if (p->exact)
			c->exact[d]++;
		if (p->top_parts > 1)
			c->split[d]++;
		if (p->merged)
			c->merged[d]++;
		if (p->bottom)
			c->paired_bottom[d]++;
	} else if (p->ambiguous) {
		c->ambiguous[d]++;
	} else {
		c->unpaired[d]++;
	}
}

void iogap_pair_count_top(struct iogap_pair_counts *c, const struct iogap_trace_record *r,
			  uint8_t state)
{
	if (is_rw(r) && !(state & IOGAP_TOP_CLAIMED))
		c->top_unclaimed++;
	if (state & IOGAP_TOP_TAG_MISMATCH)
		c->tag_mismatch++;
}

void iogap_pair_count_bottom(struct iogap_pair_counts *c, const struct iogap_trace_record *r,
			     uint8_t claimed)
{
	if (is_rw(r) && !claimed)
		c->bottom_unclaimed++;
}

void iogap_pair_window_free(struct iogap_pair_window *w)
{
	free(w->pairs);
	free(w->top_state);
	free(w->bottom_claimed);
	memset(w, 0, sizeof(*w));
}

void iogap_pairing_free(struct iogap_pairing *p)
{
	if (!p)
		return;
	free(p->pairs);
	p->pairs = NULL;
	p->nr = 0;
}

/*
 * 2b. Reads the guest block layer merged with adjacent ones reach QEMU as
 * one larger request: pair a still unpaired read with the untagged top
 * read that contains its range and entered within its time window, when
 * exactly one does (several: ambiguous, never a guess).  merged_top[i]
 * gets the top record's index so the bottom can follow it.
 */
static void pair_merged_reads(struct iogap_pair *pairs, size_t npairs,
			      const struct iogap_trace_record *top, const struct kent *o, size_t no,
			      const struct iogap_clock_map *map, uint64_t slack,
			      uint32_t *top_owner, uint32_t *merged_top)
{
	uint32_t max_len = 0;

	for (size_t i = 0; i < no; i++)
		if (o[i].len > max_len)
			max_len = o[i].len;
	for (size_t i = 0; i < npairs; i++) {
		struct iogap_pair *p = &pairs[i];
		const struct iogap_trace_record *g = p->guest;
		uint64_t end = g->offset + g->length, s, c, lo_off;
		size_t a = 0, b = no, found = 0, hit = 0;

		if (p->top || p->ambiguous || p->invalid || g->op != IOGAP_OP_READ)
			continue;
		s = iogap_guest_to_host(map, g->start_ns);
		c = iogap_guest_to_host(map, g->complete_ns);
		s = s > slack ? s - slack : 0;
		c = c > UINT64_MAX - slack ? UINT64_MAX : c + slack;
		lo_off = end > max_len ? end - max_len : 0;
		while (a < b) {              /* first entry with offset >= lo_off */
			size_t m = a + (b - a) / 2;

			if (o[m].off < lo_off)
				a = m + 1;
			else
				b = m;
		}
		for (size_t k = a; k < no && o[k].off <= g->offset; k++) {
			const struct iogap_trace_record *t = &top[k_idx(&o[k])];

			uint32_t owner = top_owner[k_idx(&o[k])];

			/* a record another request owns exactly is not a merge */
			if (owner != NONE && !pairs[owner].merged)
				continue;
			if (t->offset + t->length >= end && t->length > g->length &&
			    t->start_ns >= s && t->start_ns <= c) {
				found++;
				hit = k;
			}
		}
		if (found == 1) {
			uint32_t ti = k_idx(&o[hit]);

			add_top(p, &top[ti]);
			p->merged = 1;
			merged_top[i] = ti;
			if (top_owner[ti] == NONE)
				top_owner[ti] = (uint32_t)i;
		} else if (found > 1) {
			p->ambiguous = 1;
		}
	}
}

uint64_t iogap_pair_slack(const struct iogap_clock_map *map)
{
	/* the ping-pong map's error at a request: the offset's (<= u) plus
	 * the drift's times the distance from ref; the drift's error is at
	 * most 2u / span, and requests lie between the two sync sets, so
	 * the error is <= 3u.  The constant absorbs rounding and a guest
	 * stamp taken just outside [t_send, t_recv]. */
	if (map->sync_uncertainty_ns > UINT64_MAX / 8)
		return UINT64_MAX / 4;
	return 3 * map->sync_uncertainty_ns + IOGAP_ALIGN_READ_SLACK_NS;
}

int iogap_pair_window(const struct iogap_trace_record *guest, size_t nguest,
		      const struct iogap_trace_record *top, size_t ntop,
		      const struct iogap_trace_record *bottom, size_t nbottom,
		      const struct iogap_clock_map *map, struct iogap_pair_window *out,
		      char *err, size_t errlen)
{
	struct iogap_pair *pairs = NULL;
	struct tent *gt = NULL, *ft = NULL, *bt = NULL;
	struct kent *fk = NULL, *qk = NULL, *tk = NULL;
	uint32_t *res = NULL, *top_owner = NULL, *merged_top = NULL;
	uint8_t *st = NULL, *bclaim = NULL, *top_state = NULL;
	size_t npairs = 0, ngt = 0, nft = 0, nbt = 0, nfk = 0, nq = 0, ntk = 0, nreads, i, j;
	uint64_t slack;
	int rc = -1;

	if (!out || !map) {
		iogap_seterr(err, errlen, "pairing: no map or output");
		return -1;
	}
	memset(out, 0, sizeof(*out));
	if ((nguest && !guest) || (ntop && !top) || (nbottom && !bottom)) {
		iogap_seterr(err, errlen, "pairing: records missing");
		return -1;
	}
	if (nguest >= MAXREC || ntop >= MAXREC || nbottom >= MAXREC) {
		iogap_seterr(err, errlen, "pairing: more than %u records in one trace", MAXREC - 1);
		return -1;
	}
	if (!isfinite(map->drift_ppb) || fabs(map->drift_ppb) >= 1e8) {
		iogap_seterr(err, errlen, "pairing: implausible clock drift %g ppb", map->drift_ppb);
		return -1;
	}
	slack = iogap_pair_slack(map);

	for (i = 0; i < nguest; i++)
		if (is_rw(&guest[i]))
			npairs++;
	if (npairs) {
		pairs = calloc(npairs, sizeof(*pairs));
		gt = malloc(npairs * sizeof(*gt));
		if (!pairs || !gt)
			goto nomem;
	}
	if (ntop) {
		top_owner = malloc(ntop * sizeof(*top_owner));
		top_state = calloc(ntop, 1);
		if (!top_owner || !top_state)
			goto nomem;
		for (i = 0; i < ntop; i++)
			top_owner[i] = NONE;
	}

	/* pairs, in guest record order */
	for (i = 0, j = 0; i < nguest; i++) {
		const struct iogap_trace_record *g = &guest[i];
		struct iogap_pair *p;
		int d;

		if (!is_rw(g))
			continue;
		p = &pairs[j];
		d = g->op == IOGAP_OP_WRITE;
		p->guest = g;
		p->invalid = g->complete_ns < g->start_ns;
		if (d)
			gt[ngt++] = (struct tent){ .tag = g->tag, .idx = (uint32_t)j };
		j++;
	}

	/* 1. writes by tag: merge join of the two tag-sorted lists */
	for (i = 0; i < ntop; i++)
		if (is_tagged_write(&top[i]))
			nft++;
	if (nft) {
		ft = malloc(nft * sizeof(*ft));
		if (!ft)
			goto nomem;
		for (i = 0, j = 0; i < ntop; i++)
			if (is_tagged_write(&top[i]))
				ft[j++] = (struct tent){ .tag = top[i].tag, .idx = (uint32_t)i };
	}
	if (tsort(gt, ngt) || tsort(ft, nft))
		goto nomem;
	for (i = 0, j = 0; i < ngt;) {
		size_t e = i;

		while (e < ngt && gt[e].tag == gt[i].tag)
			e++;
		if (e - i > 1) {
			/* tags are unique per run: several guest requests
			 * with one tag cannot be told apart, never guess */
			for (size_t x = i; x < e; x++)
				pairs[gt[x].idx].ambiguous = 1;
		} else {
			struct iogap_pair *p = &pairs[gt[i].idx];

			while (j < nft && ft[j].tag < gt[i].tag)
				j++;
			for (size_t x = j; x < nft && ft[x].tag == gt[i].tag; x++) {
				const struct iogap_trace_record *f = &top[ft[x].idx];

				if (!part_in(p->guest, f)) {
					top_state[ft[x].idx] |= IOGAP_TOP_TAG_MISMATCH;
					continue;
				}
				add_top(p, f);
				top_owner[ft[x].idx] = gt[i].idx;
			}
			if (p->top)
				p->exact = 1;
		}
		i = e;
	}

	/* every read/write top record by (key, entry): the candidates for
	 * step 2 (the untagged ones) and the windows for step 3 */
	for (i = 0; i < ntop; i++)
		if (is_rw(&top[i]))
			ntk++;
	if (ntk) {
		tk = malloc(ntk * sizeof(*tk));
		fk = malloc(ntk * sizeof(*fk));
		if (!tk || !fk)
			goto nomem;
		for (i = 0, j = 0; i < ntop; i++)
			if (is_rw(&top[i])) {
				tk[j] = kmake(&top[i], top[i].start_ns, top[i].complete_ns, i);
				if (is_tagged_write(&top[i]))
					tk[j].idxop |= K_TAGGED;
				j++;
			}
		if (ksort(tk, ntk))
			goto nomem;
		for (i = 0; i < ntk; i++)
			if (!(tk[i].idxop & K_TAGGED))
				fk[nfk++] = tk[i];
	}

	/* 2. the rest by (op, offset, length) and time window */
	if (npairs) {
		qk = malloc(npairs * sizeof(*qk));
		res = malloc(npairs * sizeof(*res));
		st = calloc(npairs, sizeof(*st));    /* M_NONE */
		if (!qk || !res || !st)
			goto nomem;
	}
	for (i = 0; i < npairs; i++) {
		struct iogap_pair *p = &pairs[i];
		const struct iogap_trace_record *g = p->guest;
		uint64_t s, c;

		if (p->top || p->ambiguous || p->invalid)
			continue;
		s = iogap_guest_to_host(map, g->start_ns);
		c = iogap_guest_to_host(map, g->complete_ns);
		qk[nq++] = kmake(g, s > slack ? s - slack : 0,
				 c > UINT64_MAX - slack ? UINT64_MAX : c + slack, i);
	}
	if (ksort(qk, nq) || match_windows(qk, nq, fk, nfk, res, st))
		goto nomem;
	/* in pair order: the records are near that order in real traces */
	for (i = 0; i < npairs; i++) {
		struct iogap_pair *p = &pairs[i];

		if (st[i] == M_AMBIG)
			p->ambiguous = 1;
		else if (st[i] == M_PAIR) {
			add_top(p, &top[res[i]]);
			top_owner[res[i]] = (uint32_t)i;
		}
	}
	free(qk);
	free(res);
	free(st);
	qk = NULL;
	res = NULL;
	st = NULL;
	if (npairs) {
		merged_top = malloc(npairs * sizeof(*merged_top));
		if (!merged_top)
			goto nomem;
		for (i = 0; i < npairs; i++)
			merged_top[i] = NONE;
		/* the reads lead tk (op READ sorts first), by offset */
		for (nreads = 0; nreads < ntk && !(tk[nreads].idxop >> 31); nreads++)
			;
		pair_merged_reads(pairs, npairs, top, tk, nreads, map, slack, top_owner, merged_top);
	}

	/* 3. bottom: tagged ones by tag to the exact pairs (merge join with
	 * the guest tags; a duplicated guest tag has no exact pair, so nothing
	 * joins it), the rest nested in a top record's [entry, exit] */
	if (nbottom) {
		bclaim = calloc(nbottom, 1);
		if (!bclaim)
			goto nomem;
	}
	for (i = 0; i < nbottom; i++)
		if (is_tagged_write(&bottom[i]))
			nbt++;
	if (nbt) {
		bt = malloc(nbt * sizeof(*bt));
		if (!bt)
			goto nomem;
		for (i = 0, j = 0; i < nbottom; i++)
			if (is_tagged_write(&bottom[i]))
				bt[j++] = (struct tent){ .tag = bottom[i].tag, .idx = (uint32_t)i };
		if (tsort(bt, nbt))
			goto nomem;
		for (i = 0, j = 0; i < nbt; i++) {
			struct iogap_pair *p;

			while (j < ngt && gt[j].tag < bt[i].tag)
				j++;
			if (j >= ngt || gt[j].tag != bt[i].tag)
				continue;
			p = &pairs[gt[j].idx];
			if (!p->exact)
				continue;
			add_bottom(p, &bottom[bt[i].idx]);
			bclaim[bt[i].idx] = 1;
		}
	}
	nfk = 0;
	for (i = 0; i < nbottom; i++)
		if (is_rw(&bottom[i]) && !is_tagged_write(&bottom[i]))
			nfk++;
	if (nfk && ntk) {
		struct kent *nk = realloc(fk, nfk * sizeof(*fk));
		size_t nbq = 0;

		if (!nk)
			goto nomem;
		fk = nk;
		for (i = 0, j = 0; i < nbottom; i++)
			if (is_rw(&bottom[i]) && !is_tagged_write(&bottom[i]))
				fk[j++] = kmake(&bottom[i], bottom[i].start_ns, 0, i);
		res = malloc(ntop * sizeof(*res));
		st = calloc(ntop, sizeof(*st));
		if (ksort(fk, nfk) || !res || !st)
			goto nomem;
		/* the top records' [entry, exit] are the windows; tk stays
		 * sorted when the invalid ones drop out */
		for (i = 0; i < ntk; i++)
			if (tk[i].hi >= tk[i].t)
				tk[nbq++] = tk[i];
		if (match_windows(tk, nbq, fk, nfk, res, st))
			goto nomem;
		for (i = 0; i < ntop; i++) {
			uint32_t owner = top_owner[i];

			if (st[i] != M_PAIR || owner == NONE)
				continue;   /* unmatched, or the top record belongs to nobody */
			add_bottom(&pairs[owner], &bottom[res[i]]);
			bclaim[res[i]] = 1;
		}
	}

	/* merged reads share their top record's bottom */
	for (i = 0; i < npairs; i++) {
		uint32_t owner = merged_top ? merged_top[i] : NONE;

		if (owner == NONE || pairs[i].bottom)
			continue;
		owner = top_owner[owner];
		if (owner != NONE && owner != i && pairs[owner].bottom)
			add_bottom(&pairs[i], pairs[owner].bottom);
	}

	for (i = 0; i < ntop; i++)
		if (top_owner[i] != NONE)
			top_state[i] |= IOGAP_TOP_CLAIMED;
	out->pairs = pairs;
	out->nr = npairs;
	out->top_state = top_state;
	out->bottom_claimed = bclaim;
	pairs = NULL;
	top_state = bclaim = NULL;
	rc = 0;
	goto done;
nomem:
	iogap_seterr(err, errlen, "pairing: %s", strerror(ENOMEM));
done:
	free(pairs);
	free(gt);
	free(ft);
	free(bt);
	free(fk);
	free(tk);
	free(qk);
	free(res);
	free(st);
	free(top_owner);
	free(merged_top);
	free(bclaim);
	free(top_state);
	return rc;
}

int iogap_pair_requests(const struct iogap_trace_record *guest, size_t nguest,
			const struct iogap_trace_record *top, size_t ntop,
			const struct iogap_trace_record *bottom, size_t nbottom,
			const struct iogap_clock_map *map, struct iogap_pairing *out,
			char *err, size_t errlen)
{
	struct iogap_pair_window w;
	struct iogap_bounds b;

	if (!out) {
		iogap_seterr(err, errlen, "pairing: no map or output");
		return -1;
	}
	memset(out, 0, sizeof(*out));
	if (iogap_pair_window(guest, nguest, top, ntop, bottom, nbottom, map, &w, err, errlen))
		return -1;
	iogap_bounds_init(&b);
	for (size_t i = 0; i < w.nr; i++) {
		iogap_pair_count(&out->counts, &w.pairs[i]);
		iogap_bounds_add(&b, map, &w.pairs[i]);
	}
	for (size_t i = 0; i < ntop; i++)
		iogap_pair_count_top(&out->counts, &top[i], w.top_state[i]);
	for (size_t i = 0; i < nbottom; i++)
		iogap_pair_count_bottom(&out->counts, &bottom[i], w.bottom_claimed[i]);
	iogap_bounds_apply(&b, map, &out->map);
	for (size_t i = 0; i < w.nr; i++)
		iogap_pair_set_times(&out->map, &w.pairs[i]);
	out->pairs = w.pairs;
	out->nr = w.nr;
	w.pairs = NULL;
	iogap_pair_window_free(&w);
	return 0;
}
