/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "vtrim.h"

int iogap_vtrim_logged(struct iogap_vtrim *t, const struct iogap_job *j,
		       const struct iogap_verify_log *log)
{
	if (log->nr == 1)   /* a new log (the old one was read back): a new list */
		t->nr = t->head = t->mark = 0;
	/* fio's io_u_should_trim: r <= rand_max / 100 * trim_percentage */
	if (!j->trim_percentage || iogap_rand_below(&t->rnd, 100) >= j->trim_percentage)
		return 0;
	if (t->nr == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 256;
		size_t *q = realloc(t->q, cap * sizeof(*q));

		if (!q)
			return -ENOMEM;
		t->q = q;
		t->cap = cap;
	}
	t->q[t->nr++] = log->nr - 1;
	return 0;
}

bool iogap_vtrim_due(struct iogap_vtrim *t, const struct iogap_job *j,
		     const struct iogap_verify_log *log)
{
	if (t->left)
		return true;
	if (!j->trim_backlog || t->head == t->nr || log->nr % j->trim_backlog ||
	    log->nr == t->mark)
		return false;
	t->mark = log->nr;
	t->left = j->trim_batch ? j->trim_batch : j->trim_backlog;
	return true;
}

const struct iogap_verify_piece *iogap_vtrim_next(struct iogap_vtrim *t, const struct iogap_job *j,
						  struct iogap_verify_log *log)
{
	while (t->head < t->nr) {
		struct iogap_verify_piece *p = &log->v[t->q[t->head++]];

		if (t->q[t->head - 1] < log->next)   /* read back already */
			continue;
		t->left--;
		p->trim = j->trim_zero ? IOGAP_PIECE_TRIMMED : IOGAP_PIECE_DROPPED;
		return p;
	}
	t->left = 0;
	return NULL;
}

int iogap_vtrim_check(const char *file, uint64_t offset, const void *buf, uint32_t len,
		      char *msg, size_t msglen)
{
	const unsigned char *b = buf;

	for (uint32_t i = 0; i < len; i++) {
		if (!b[i])
			continue;
		snprintf(msg, msglen, "trim: verify failed at file %s offset %llu, length %u, "
			 "block offset %u", file, (unsigned long long)offset, len, i);
		return -EILSEQ;
	}
	return 0;
}

void iogap_vtrim_free(struct iogap_vtrim *t)
{
	free(t->q);
	t->q = NULL;
}
