/* SPDX-License-Identifier: MIT */
/* Matching probe requests with kernel requests: see kmatch.h. */
#include "kmatch.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct iogap_kmatch {
	struct iogap_trace_record *k;   /* [head, n): ascending complete_ns */
	size_t head, n, cap;
	uint64_t base, resolution_ns;
	struct iogap_kmatch_counts counts;
};

struct iogap_kmatch *iogap_kmatch_new(uint64_t base, uint64_t resolution_ns)
{
	struct iogap_kmatch *m = calloc(1, sizeof(*m));

	if (m) {
		m->base = base;
		m->resolution_ns = resolution_ns;
	}
	return m;
}

void iogap_kmatch_free(struct iogap_kmatch *m)
{
	if (m)
		free(m->k);
	free(m);
}

static int make_room(struct iogap_kmatch *m)
{
	struct iogap_trace_record *k;
	size_t cap;

	if (m->head > 0 && m->head >= m->n / 2) {   /* reuse what was forgotten */
		memmove(m->k, m->k + m->head, (m->n - m->head) * sizeof(*m->k));
		m->n -= m->head;
		m->head = 0;
	}
	if (m->n < m->cap)
		return 0;
	cap = m->cap ? 2 * m->cap : 256;
	k = realloc(m->k, cap * sizeof(*k));
	if (!k)
		return -1;
	m->k = k;
	m->cap = cap;
	return 0;
}

int iogap_kmatch_add_kernel(struct iogap_kmatch *m, const struct iogap_trace_record *k)
{
	if (m->n > m->head && k->complete_ns < m->k[m->n - 1].complete_ns)
		return -1;
	if (make_room(m))
		return -1;
	m->k[m->n++] = *k;
	return 0;
}

/* First held kernel request completing at or after t. */
static size_t first_completing(const struct iogap_kmatch *m, uint64_t t)
{
	size_t lo = m->head, hi = m->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->k[mid].complete_ns < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* t less one stamp step: a truncated stamp of an instant at t reads that early */
static uint64_t early(const struct iogap_kmatch *m, uint64_t t)
{
	return t > m->resolution_ns ? t - m->resolution_ns : 0;
}

static bool inside_window(const struct iogap_kmatch *m, const struct iogap_trace_record *k,
			  const struct iogap_trace_record *req)
{
	/* a stamp truncated to the resolution may read up to one step early */
	return k->start_ns + m->resolution_ns > req->start_ns &&
	       k->complete_ns <= req->complete_ns;
}

enum iogap_kmatch_outcome iogap_kmatch_request(struct iogap_kmatch *m,
					       const struct iogap_trace_record *req,
					       struct iogap_trace_record *kernel)
{
	uint64_t off = req->offset + m->base, end = off + req->length;
	size_t exact = 0, split = 0, merged = 0;

	for (size_t i = first_completing(m, early(m, req->start_ns));
	     i < m->n && m->k[i].complete_ns <= req->complete_ns; i++) {
		const struct iogap_trace_record *k = &m->k[i];
		uint64_t kend = k->offset + k->length;

		if (k->op != req->op || !inside_window(m, k, req) || kend <= off || k->offset >= end)
			continue;
		if (k->offset == off && kend == end) {
			if (!exact++)
				*kernel = *k;
		} else if (k->offset <= off && kend >= end) {
			merged++;
		} else {
			split++;
		}
	}
	if (exact == 1)
		return m->counts.matched++, IOGAP_KMATCH_MATCHED;
	if (exact > 1)
		return m->counts.ambiguous++, IOGAP_KMATCH_AMBIGUOUS;
	if (merged)
		return m->counts.merged++, IOGAP_KMATCH_MERGED;
	if (split)
		return m->counts.split++, IOGAP_KMATCH_SPLIT;
	return m->counts.none++, IOGAP_KMATCH_NONE;
}

void iogap_kmatch_forget_before(struct iogap_kmatch *m, uint64_t t)
{
	/* a kernel request completing before t lies in no window starting at t */
	m->head = first_completing(m, early(m, t));
}

size_t iogap_kmatch_held(const struct iogap_kmatch *m)
{
	return m->n - m->head;
}

const struct iogap_kmatch_counts *iogap_kmatch_counts(const struct iogap_kmatch *m)
{
	return &m->counts;
}
