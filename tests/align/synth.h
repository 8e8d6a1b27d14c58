/* SPDX-License-Identifier: MIT */
/*
 * Synthetic traces for the alignment/pairing tests and bench: a seeded
 * workload run "in a VM" with a known guest clock (offset + drift), known
 * per-stage latencies and a ping-pong with asymmetric delays.
 *
 * Truth travels inside the filter records: their `thread` field (the
 * filter's producer thread in real traces) holds the index of the guest
 * record they belong to, so a test can tell a right pair from a wrong one
 * however the arrays are shuffled or thinned.
 */
#ifndef IOGAP_TEST_SYNTH_H
#define IOGAP_TEST_SYNTH_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "iogap/trace.h"
#include "align.h"

struct synth_cfg {
	uint64_t seed;
	size_t n;                  /* requests */
	uint64_t host0;            /* host time of the first request */
	int64_t off0;              /* guest = host + off0 + drift (host - host0) */
	double drift_ppb;
	uint64_t gap_mean;         /* mean time between submissions */
	double write_frac;
	double split_frac;         /* writes of >= 8 KiB split in two below the guest */
	int tagging;               /* filter write records carry the tag */
	double ramp_frac;          /* first requests flagged IOGAP_REC_RAMP */
	uint64_t span;             /* offsets random, 4 KiB aligned, in [0, span) */
	/* stage latencies: base + exponential(mean) */
	uint64_t g2q_base, g2q_mean;   /* guest start -> top entry */
	uint64_t fmt_base, fmt_mean;   /* top entry -> bottom entry */
	uint64_t be_base, be_mean;     /* bottom entry -> bottom exit */
	uint64_t ret_base, ret_mean;   /* bottom exit -> top exit */
	uint64_t q2g_base, q2g_mean;   /* top exit -> guest completion */
	/* ping-pong: nsync rounds before and after, forward/back delays */
	size_t nsync;
	uint64_t fwd_base, fwd_mean, back_base, back_mean;
	int shuffle;               /* shuffle the filter arrays */
};

struct synth {
	struct iogap_trace_record *g, *t, *b;
	size_t ng, nt, nb;
	struct iogap_sync_sample *sa, *sb;
	size_t nsa, nsb;
	uint64_t *h_start, *h_complete;  /* true host times per guest record */
	size_t splits;                   /* writes split in two */
	int64_t min_margin;              /* min over exact-pairable writes of
					  * (top entry - start) + (complete - top exit) */
	int64_t min_read_margin;         /* the same over reads */
	uint64_t first_h, last_h;
	/* chunked generation (synth_begin) */
	uint64_t rs, h;                  /* random state, next submission */
	size_t next, chunk;              /* next request index, requests a chunk */
};

static inline void synth_default(struct synth_cfg *c)
{
	memset(c, 0, sizeof(*c));
	c->seed = 1;
	c->n = 200000;
	c->host0 = 1700000000000000000ull;   /* ~1.7e18 ns: precision matters */
	c->off0 = 12345678901;
	c->drift_ppb = 3000;
	c->gap_mean = 20000;
	c->write_frac = 0.5;
	c->split_frac = 0.05;
	c->tagging = 1;
	c->ramp_frac = 0.01;
	c->span = 64ull << 30;
	c->g2q_base = 8000;  c->g2q_mean = 30000;
	c->fmt_base = 3000;  c->fmt_mean = 2000;
	c->be_base = 60000;  c->be_mean = 40000;
	c->ret_base = 1500;  c->ret_mean = 1000;
	c->q2g_base = 6000;  c->q2g_mean = 20000;
	c->nsync = 1000;
	c->fwd_base = 25000; c->fwd_mean = 15000;
	c->back_base = 45000; c->back_mean = 15000;
	c->shuffle = 1;
}

static inline uint64_t synth_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static inline double synth_u01(uint64_t *s)
{
	return ((synth_rand(s) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

static inline uint64_t synth_lat(uint64_t *s, uint64_t base, uint64_t mean)
{
	return base + (uint64_t)(-log(synth_u01(s)) * (double)mean);
}

/* the true guest clock */
static inline uint64_t synth_guest(const struct synth_cfg *c, uint64_t h)
{
	double d = (double)(int64_t)(h - c->host0) * c->drift_ppb * 1e-9;

	return h + (uint64_t)c->off0 + (uint64_t)(int64_t)llround(d);
}

/* the true offset at host time h (guest - host) */
static inline int64_t synth_offset_at(const struct synth_cfg *c, uint64_t h)
{
	return c->off0 + llround((double)(int64_t)(h - c->host0) * c->drift_ppb * 1e-9);
}

static inline void synth_sync(const struct synth_cfg *c, uint64_t *rs, uint64_t t0,
			      struct iogap_sync_sample *out, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t ts = t0 + i * 200000;   /* a round every 200 us */
		uint64_t fwd = synth_lat(rs, c->fwd_base, c->fwd_mean);
		uint64_t back = synth_lat(rs, c->back_base, c->back_mean);

		out[i].t_send = ts;
		out[i].guest_ns = synth_guest(c, ts + fwd);
		out[i].t_recv = ts + fwd + back;
	}
}

static inline void synth_shuffle(struct iogap_trace_record *r, size_t n, uint64_t *rs)
{
	for (size_t i = n; i > 1; i--) {
		size_t j = synth_rand(rs) % i;
		struct iogap_trace_record tmp = r[i - 1];

		r[i - 1] = r[j];
		r[j] = tmp;
	}
}

static inline void synth_free(struct synth *s)
{
	free(s->g);
	free(s->t);
	free(s->b);
	free(s->sa);
	free(s->sb);
	free(s->h_start);
	free(s->h_complete);
	memset(s, 0, sizeof(*s));
}

static inline void synth_filter(struct iogap_trace_record *r, const struct synth_cfg *c,
				size_t i, int w, uint64_t off, uint32_t len,
				uint64_t entry, uint64_t exit)
{
	memset(r, 0, sizeof(*r));
	r->tag = (w && c->tagging) ? i + 1 : 0;
	r->flags = (w && c->tagging) ? IOGAP_REC_TAGGED : 0;
	r->offset = off;
	r->length = len;
	r->start_ns = r->issue_ns = entry;
	r->complete_ns = exit;
	r->result = (int32_t)len;
	r->op = w ? IOGAP_OP_WRITE : IOGAP_OP_READ;
	r->thread = (uint32_t)i;   /* truth: the guest record's index */
}

/*
 * In chunks, for runs larger than memory (tests/report/mkrun): synth_begin
 * sizes the arrays for `chunk` requests; each synth_next makes the next
 * ones (s->g, t, b, h_start, h_complete then hold that chunk only; the
 * truth in the filter records' thread field and the tags stay run-wide
 * indexes); synth_end adds the closing sync rounds.  The same records, in
 * the same order, whatever the chunk size (one random sequence).
 */
static inline int synth_begin(const struct synth_cfg *c, struct synth *s, size_t chunk)
{
	size_t cap = chunk * 2 + 1;

	memset(s, 0, sizeof(*s));
	s->rs = c->seed;
	s->g = calloc(chunk + 1, sizeof(*s->g));
	s->t = calloc(cap, sizeof(*s->t));
	s->b = calloc(cap, sizeof(*s->b));
	s->h_start = calloc(chunk + 1, sizeof(uint64_t));
	s->h_complete = calloc(chunk + 1, sizeof(uint64_t));
	s->sa = calloc(c->nsync + 1, sizeof(*s->sa));
	s->sb = calloc(c->nsync + 1, sizeof(*s->sb));
	if (!s->g || !s->t || !s->b || !s->h_start || !s->h_complete || !s->sa || !s->sb) {
		synth_free(s);
		return -1;
	}
	s->chunk = chunk;
	s->min_margin = INT64_MAX;
	s->min_read_margin = INT64_MAX;
	synth_sync(c, &s->rs, c->host0 - c->nsync * 200000 - 1000000, s->sa, c->nsync);
	s->nsa = c->nsync;
	s->h = c->host0;
	s->first_h = s->h;
	return 0;
}

/* The next chunk's records; returns how many requests (0: all made). */
static inline size_t synth_next(const struct synth_cfg *c, struct synth *s)
{
	static const uint32_t lens[] = { 4096, 4096, 8192, 65536 };
	uint64_t *rs = &s->rs;

	s->ng = s->nt = s->nb = 0;
	for (; s->next < c->n && s->ng < s->chunk; s->next++) {
		size_t i = s->next;
		struct iogap_trace_record *g = &s->g[s->ng];
		int w = synth_u01(rs) < c->write_frac;
		uint32_t len = lens[synth_rand(rs) % 4];
		uint64_t off = (synth_rand(rs) % (c->span / 4096)) * 4096;
		uint64_t hs = s->h, te, be, bx, tx, hc, slat;
		int split;

		s->h += synth_lat(rs, 0, c->gap_mean);
		te = hs + synth_lat(rs, c->g2q_base, c->g2q_mean);
		be = te + synth_lat(rs, c->fmt_base, c->fmt_mean);
		bx = be + synth_lat(rs, c->be_base, c->be_mean);
		tx = bx + synth_lat(rs, c->ret_base, c->ret_mean);
		hc = tx + synth_lat(rs, c->q2g_base, c->q2g_mean);
		slat = synth_lat(rs, 1000, 1000);
		split = w && len >= 8192 && synth_u01(rs) < c->split_frac;

		g->tag = i + 1;
		g->offset = off;
		g->length = len;
		g->start_ns = synth_guest(c, hs);
		g->issue_ns = synth_guest(c, hs + slat);
		g->complete_ns = synth_guest(c, hc);
		g->result = (int32_t)len;
		g->thread = 1;
		g->op = w ? IOGAP_OP_WRITE : IOGAP_OP_READ;
		g->flags = i < (size_t)(c->ramp_frac * (double)c->n) ? IOGAP_REC_RAMP : 0;
		s->h_start[s->ng] = hs;
		s->h_complete[s->ng] = hc;
		if (hc > s->last_h)
			s->last_h = hc;
		{
			int64_t m = (int64_t)(te - hs) + (int64_t)(hc - tx);

			if (w && c->tagging && m < s->min_margin)
				s->min_margin = m;
			if (!w && m < s->min_read_margin)
				s->min_read_margin = m;
		}
		if (split) {
			/* two halves; the second enters a little later and the
			 * request's exit is the later of the two */
			uint32_t hl = len / 2;
			uint64_t te1 = te + synth_lat(rs, 200, 500);
			uint64_t be1 = be + (te1 - te);
			uint64_t bx0 = bx - synth_lat(rs, 0, 2000);
			uint64_t tx0 = tx - synth_lat(rs, 0, 1000);

			if (bx0 < be + 1)
				bx0 = be + 1;
			if (tx0 < bx0)
				tx0 = bx0;
			synth_filter(&s->t[s->nt++], c, i, w, off, hl, te, tx0);
			synth_filter(&s->t[s->nt++], c, i, w, off + hl, hl, te1, tx);
			synth_filter(&s->b[s->nb++], c, i, w, off, hl, be, bx0);
			synth_filter(&s->b[s->nb++], c, i, w, off + hl, hl, be1, bx);
			s->splits++;
		} else {
			synth_filter(&s->t[s->nt++], c, i, w, off, len, te, tx);
			synth_filter(&s->b[s->nb++], c, i, w, off, len, be, bx);
		}
		s->ng++;
	}
	return s->ng;
}

static inline void synth_end(const struct synth_cfg *c, struct synth *s)
{
	synth_sync(c, &s->rs, s->last_h + 1000000, s->sb, c->nsync);
	s->nsb = c->nsync;
}

static inline int synth_make(const struct synth_cfg *c, struct synth *s)
{
	if (synth_begin(c, s, c->n))
		return -1;
	synth_next(c, s);
	synth_end(c, s);
	if (c->shuffle) {
		synth_shuffle(s->t, s->nt, &s->rs);
		synth_shuffle(s->b, s->nb, &s->rs);
	}
	return 0;
}

#endif
