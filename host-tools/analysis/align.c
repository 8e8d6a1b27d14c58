/* SPDX-License-Identifier: MIT */
/*
 * Clock alignment and request pairing: see align.h and docs/architecture.md,
 * "Pairing requests and aligning clocks".
 *
 * Conventions: offset = guest - host (guest_ns = host_ns + offset_at(host)).
 * Every guest time is mapped onto the host clock; all host values stay
 * uint64, every difference that feeds double arithmetic is a small int64
 * (never a ~1e18 absolute value).
 *
 * Pairing (iogap_pair_window, one function per pass below), in three
 * steps, all O(n log n), every index sorted by one radix sort (ksort):
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
 * Then the pairs bound the clock offset (iogap_bounds_add()).
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
	/* llround's result (half away from zero) without its libm call: the
	 * pairing maps every guest time through here */
	int64_t t = (int64_t)v;
	double frac = v - (double)t;   /* exact: t is v truncated */

	return t + (frac >= 0.5) - (frac <= -0.5);
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
	static __thread double memo_ppb, memo_corr;   /* k / (1 + k): a division per
						       * call cost more than the rest */
	int64_t x = sadd(sdiff(guest_ns, map->ref_host_ns), -map->offset_ns);
	int64_t d;

	if (map->drift_ppb != memo_ppb) {
		double k = map->drift_ppb * 1e-9;

		memo_corr = k / (1.0 + k);
		memo_ppb = map->drift_ppb;
	}
	d = sadd(x, -dround((double)x * memo_corr));

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

/* Elements out of order with their predecessor, counted up to limit + 1:
 * few for tags, which completion order only shuffles within the queue
 * depth; random keys pass the limit early. */
static size_t kdescents(const struct kent *a, size_t n, size_t limit)
{
	size_t d = 0;

	for (size_t i = 1; i < n && d <= limit; i++)
		d += kless(&a[i], &a[i - 1]);
	return d;
}

/* A stable insertion sort of a nearly sorted array, in a copy: 0 when done
 * within a budget of moves (then copied back), 1 when it would cost more
 * than a radix sort (a is untouched), -1 out of memory.  Stable by (key, t)
 * gives the radix path's order: callers build arrays in index order. */
static int ksort_nearly(struct kent *a, size_t n)
{
	struct kent *b = malloc(n * sizeof(*b));
	size_t budget = 8 * n, i, j;

	if (!b)
		return -1;
	memcpy(b, a, n * sizeof(*b));
	for (i = 1; i < n; i++) {
		struct kent x = b[i];

		for (j = i; j > 0 && kless(&x, &b[j - 1]); j--)
			b[j] = b[j - 1];
		b[j] = x;
		if (i - j > budget) {
			free(b);
			return 1;
		}
		budget -= i - j;
	}
	memcpy(a, b, n * sizeof(*a));
	free(b);
	return 0;
}

/*
 * By (key, t): a stable LSD radix sort on the key only (time digits would
 * double the passes), then each key's group by time.  Keys are nearly
 * unique (random offsets), so the groups cost nothing.  Nearly sorted
 * arrays (tags) take an insertion sort instead.
 */
static int ksort(struct kent *a, size_t n)
{
	size_t (*h)[256];
	struct kent *tmp, *src = a, *dst;
	size_t i, e;
	unsigned d;
	int rc;

	i = kdescents(a, n, n / 8);
	if (!i)
		return 0;    /* already sorted */
	if (i <= n / 8 && (rc = ksort_nearly(a, n)) <= 0)
		return rc;
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
 * Bounds (the core).  offset = guest - host, and for a pair that cannot be
 * wrong -- a write paired by its tag, or a request paired by (op, offset,
 * length) as the only candidate in both directions within its window, not
 * merged with neighbours (a read-only job has no tags) --
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

	if (!p->top || p->merged || p->invalid || p->top_exit < p->top_entry)
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

/* One window's pairing, pass to pass (iogap_pair_window). */
struct pstate {
	const struct iogap_trace_record *guest, *top, *bottom;
	size_t nguest, ntop, nbottom;
	const struct iogap_clock_map *map;
	uint64_t slack;
	struct iogap_pair *pairs;     /* one per guest read/write, in guest order */
	size_t npairs;
	struct kent *gt;              /* guest write tags (tag_ent), sorted */
	size_t ngt;
	struct kent *tk;              /* every read/write top record by (key, entry) */
	size_t ntk;
	uint32_t *top_owner;          /* per top record: the request it belongs to, or NONE */
	uint32_t *merged_top;         /* per request: the merged read's top record, or NONE */
	uint8_t *top_state, *bclaim;  /* per top record IOGAP_TOP_*, per bottom record claimed */
};

/* A tag join entry: sorted by the key sort, the tag in the offset's place. */
static inline struct kent tag_ent(uint64_t tag, size_t idx)
{
	return (struct kent){ .off = tag, .idxop = (uint32_t)idx };
}

/* The pairs, in guest record order, and the per-record state. */
static int ps_alloc(struct pstate *s)
{
	for (size_t i = 0; i < s->nguest; i++)
		s->npairs += is_rw(&s->guest[i]);
	s->pairs = calloc(s->npairs + 1, sizeof(*s->pairs));
	s->gt = malloc((s->npairs + 1) * sizeof(*s->gt));
	s->merged_top = malloc((s->npairs + 1) * sizeof(*s->merged_top));
	s->top_owner = malloc((s->ntop + 1) * sizeof(*s->top_owner));
	s->top_state = calloc(s->ntop + 1, 1);
	s->bclaim = calloc(s->nbottom + 1, 1);
	if (!s->pairs || !s->gt || !s->merged_top || !s->top_owner || !s->top_state || !s->bclaim)
		return -1;
	for (size_t i = 0; i < s->ntop; i++)
		s->top_owner[i] = NONE;
	for (size_t i = 0, j = 0; i < s->nguest; i++) {
		const struct iogap_trace_record *g = &s->guest[i];
		struct iogap_pair *p = &s->pairs[j];

		if (!is_rw(g))
			continue;
		p->guest = g;
		p->invalid = g->complete_ns < g->start_ns;
		s->merged_top[j] = NONE;
		if (g->op == IOGAP_OP_WRITE)
			s->gt[s->ngt++] = tag_ent(g->tag, j);
		j++;
	}
	return ksort(s->gt, s->ngt);
}

/* 1. writes by tag: merge join of the guest tags with the tagged top
 * writes' (several with one tag: the parts of a split request). */
static int ps_by_tag(struct pstate *s)
{
	struct kent *ft;
	size_t nft = 0;

	for (size_t i = 0; i < s->ntop; i++)
		nft += is_tagged_write(&s->top[i]);
	ft = malloc((nft + 1) * sizeof(*ft));
	if (!ft)
		return -1;
	for (size_t i = 0, j = 0; i < s->ntop; i++)
		if (is_tagged_write(&s->top[i]))
			ft[j++] = tag_ent(s->top[i].tag, i);
	if (ksort(ft, nft)) {
		free(ft);
		return -1;
	}
	for (size_t i = 0, j = 0, e; i < s->ngt; i = e) {
		uint64_t tag = s->gt[i].off;
		struct iogap_pair *p = &s->pairs[k_idx(&s->gt[i])];

		for (e = i + 1; e < s->ngt && s->gt[e].off == tag; e++)
			;
		if (e - i > 1) {
			/* tags are unique per run: several guest requests
			 * with one tag cannot be told apart, never guess */
			for (size_t x = i; x < e; x++)
				s->pairs[k_idx(&s->gt[x])].ambiguous = 1;
			continue;
		}
		while (j < nft && ft[j].off < tag)
			j++;
		for (size_t x = j; x < nft && ft[x].off == tag; x++) {
			uint32_t ti = k_idx(&ft[x]);

			if (!part_in(p->guest, &s->top[ti])) {
				s->top_state[ti] |= IOGAP_TOP_TAG_MISMATCH;
				continue;
			}
			add_top(p, &s->top[ti]);
			s->top_owner[ti] = k_idx(&s->gt[i]);
		}
		if (p->top)
			p->exact = 1;
	}
	free(ft);
	return 0;
}

/* Every read/write top record by (key, entry): the candidates of step 2
 * (the untagged ones), the merged reads' and the windows of step 3. */
static int ps_index_top(struct pstate *s)
{
	for (size_t i = 0; i < s->ntop; i++)
		s->ntk += is_rw(&s->top[i]);
	s->tk = malloc((s->ntk + 1) * sizeof(*s->tk));
	if (!s->tk)
		return -1;
	for (size_t i = 0, j = 0; i < s->ntop; i++)
		if (is_rw(&s->top[i])) {
			s->tk[j] = kmake(&s->top[i], s->top[i].start_ns, s->top[i].complete_ns, i);
			if (is_tagged_write(&s->top[i]))
				s->tk[j].idxop |= K_TAGGED;
			j++;
		}
	return ksort(s->tk, s->ntk);
}

/* 2. the rest by (op, offset, length) and time window, against the
 * untagged top records. */
static int ps_by_key(struct pstate *s)
{
	struct kent *fk = malloc((s->ntk + 1) * sizeof(*fk));
	struct kent *qk = malloc((s->npairs + 1) * sizeof(*qk));
	uint32_t *res = malloc((s->npairs + 1) * sizeof(*res));
	uint8_t *st = calloc(s->npairs + 1, sizeof(*st));    /* M_NONE */
	size_t nfk = 0, nq = 0;
	int rc = -1;

	if (!fk || !qk || !res || !st)
		goto out;
	for (size_t i = 0; i < s->ntk; i++)
		if (!(s->tk[i].idxop & K_TAGGED))
			fk[nfk++] = s->tk[i];
	for (size_t i = 0; i < s->npairs; i++) {
		const struct iogap_pair *p = &s->pairs[i];
		uint64_t st_h, c;

		if (p->top || p->ambiguous || p->invalid)
			continue;
		st_h = iogap_guest_to_host(s->map, p->guest->start_ns);
		c = iogap_guest_to_host(s->map, p->guest->complete_ns);
		qk[nq++] = kmake(p->guest, st_h > s->slack ? st_h - s->slack : 0,
				 c > UINT64_MAX - s->slack ? UINT64_MAX : c + s->slack, i);
	}
	if (ksort(qk, nq) || match_windows(qk, nq, fk, nfk, res, st))
		goto out;
	/* in pair order: the records are near that order in real traces */
	for (size_t i = 0; i < s->npairs; i++) {
		struct iogap_pair *p = &s->pairs[i];

		if (st[i] == M_AMBIG)
			p->ambiguous = 1;
		else if (st[i] == M_PAIR) {
			add_top(p, &s->top[res[i]]);
			s->top_owner[res[i]] = (uint32_t)i;
		}
	}
	rc = 0;
out:
	free(fk);
	free(qk);
	free(res);
	free(st);
	return rc;
}

/* 3a. tagged bottom records by tag to the exact pairs (a duplicated guest
 * tag has no exact pair, so nothing joins it). */
static int ps_bottom_by_tag(struct pstate *s)
{
	struct kent *bt;
	size_t nbt = 0;

	for (size_t i = 0; i < s->nbottom; i++)
		nbt += is_tagged_write(&s->bottom[i]);
	bt = malloc((nbt + 1) * sizeof(*bt));
	if (!bt)
		return -1;
	for (size_t i = 0, j = 0; i < s->nbottom; i++)
		if (is_tagged_write(&s->bottom[i]))
			bt[j++] = tag_ent(s->bottom[i].tag, i);
	if (ksort(bt, nbt)) {
		free(bt);
		return -1;
	}
	for (size_t i = 0, j = 0; i < nbt; i++) {
		struct iogap_pair *p;

		while (j < s->ngt && s->gt[j].off < bt[i].off)
			j++;
		if (j >= s->ngt || s->gt[j].off != bt[i].off)
			continue;
		p = &s->pairs[k_idx(&s->gt[j])];
		if (!p->exact)
			continue;
		add_bottom(p, &s->bottom[k_idx(&bt[i])]);
		s->bclaim[k_idx(&bt[i])] = 1;
	}
	free(bt);
	return 0;
}

/* 3b. untagged bottom records nested in a top record's [entry, exit],
 * to that top record's request.  Last use of tk: its invalid windows
 * drop out in place (it stays sorted). */
static int ps_bottom_by_window(struct pstate *s)
{
	struct kent *fk;
	uint32_t *res;
	uint8_t *st;
	size_t nfk = 0, nbq = 0;
	int rc = -1;

	for (size_t i = 0; i < s->nbottom; i++)
		nfk += is_rw(&s->bottom[i]) && !is_tagged_write(&s->bottom[i]);
	if (!nfk || !s->ntk)
		return 0;
	fk = malloc(nfk * sizeof(*fk));
	res = malloc(s->ntop * sizeof(*res));
	st = calloc(s->ntop, sizeof(*st));
	if (!fk || !res || !st)
		goto out;
	for (size_t i = 0, j = 0; i < s->nbottom; i++)
		if (is_rw(&s->bottom[i]) && !is_tagged_write(&s->bottom[i]))
			fk[j++] = kmake(&s->bottom[i], s->bottom[i].start_ns, 0, i);
	if (ksort(fk, nfk))
		goto out;
	for (size_t i = 0; i < s->ntk; i++)
		if (s->tk[i].hi >= s->tk[i].t)
			s->tk[nbq++] = s->tk[i];
	if (match_windows(s->tk, nbq, fk, nfk, res, st))
		goto out;
	for (size_t i = 0; i < s->ntop; i++) {
		uint32_t owner = s->top_owner[i];

		if (st[i] != M_PAIR || owner == NONE)
			continue;   /* unmatched, or the top record belongs to nobody */
		add_bottom(&s->pairs[owner], &s->bottom[res[i]]);
		s->bclaim[res[i]] = 1;
	}
	rc = 0;
out:
	free(fk);
	free(res);
	free(st);
	return rc;
}

/* 3c. merged reads share their top record's bottom */
static void ps_merged_bottoms(struct pstate *s)
{
	for (size_t i = 0; i < s->npairs; i++) {
		uint32_t owner = s->merged_top[i];

		if (owner == NONE || s->pairs[i].bottom)
			continue;
		owner = s->top_owner[owner];
		if (owner != NONE && owner != i && s->pairs[owner].bottom)
			add_bottom(&s->pairs[i], s->pairs[owner].bottom);
	}
}

static int pair_check(const struct iogap_trace_record *guest, size_t nguest,
		      const struct iogap_trace_record *top, size_t ntop,
		      const struct iogap_trace_record *bottom, size_t nbottom,
		      const struct iogap_clock_map *map, char *err, size_t errlen)
{
	if ((nguest && !guest) || (ntop && !top) || (nbottom && !bottom))
		return iogap_seterr(err, errlen, "pairing: records missing");
	if (nguest >= MAXREC || ntop >= MAXREC || nbottom >= MAXREC)
		return iogap_seterr(err, errlen, "pairing: more than %u records in one trace",
				    MAXREC - 1);
	if (!isfinite(map->drift_ppb) || fabs(map->drift_ppb) >= 1e8)
		return iogap_seterr(err, errlen, "pairing: implausible clock drift %g ppb",
				    map->drift_ppb);
	return 0;
}

int iogap_pair_window(const struct iogap_trace_record *guest, size_t nguest,
		      const struct iogap_trace_record *top, size_t ntop,
		      const struct iogap_trace_record *bottom, size_t nbottom,
		      const struct iogap_clock_map *map, struct iogap_pair_window *out,
		      char *err, size_t errlen)
{
	struct pstate s = { guest, top, bottom, nguest, ntop, nbottom, map, 0, NULL, 0, NULL, 0,
			    NULL, 0, NULL, NULL, NULL, NULL };
	size_t nreads;
	int rc = -1;

	if (!out || !map)
		return iogap_seterr(err, errlen, "pairing: no map or output");
	memset(out, 0, sizeof(*out));
	if (pair_check(guest, nguest, top, ntop, bottom, nbottom, map, err, errlen))
		return -1;
	s.slack = iogap_pair_slack(map);
	if (ps_alloc(&s) || ps_by_tag(&s) || ps_index_top(&s) || ps_by_key(&s))
		goto done;
	/* 2b. the reads lead tk (op READ sorts first), by offset */
	for (nreads = 0; nreads < s.ntk && !(s.tk[nreads].idxop >> 31); nreads++)
		;
	pair_merged_reads(s.pairs, s.npairs, top, s.tk, nreads, map, s.slack, s.top_owner,
			  s.merged_top);
	if (ps_bottom_by_tag(&s) || ps_bottom_by_window(&s))
		goto done;
	ps_merged_bottoms(&s);
	for (size_t i = 0; i < ntop; i++)
		if (s.top_owner[i] != NONE)
			s.top_state[i] |= IOGAP_TOP_CLAIMED;
	out->pairs = s.pairs;
	out->nr = s.npairs;
	out->top_state = s.top_state;
	out->bottom_claimed = s.bclaim;
	s.pairs = NULL;
	s.top_state = s.bclaim = NULL;
	rc = 0;
done:
	if (rc)
		iogap_seterr(err, errlen, "pairing: %s", strerror(ENOMEM));
	free(s.pairs);
	free(s.gt);
	free(s.tk);
	free(s.top_owner);
	free(s.merged_top);
	free(s.top_state);
	free(s.bclaim);
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
