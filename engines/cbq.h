/* SPDX-License-Identifier: MIT */
/*
 * Completions that arrive on a library's callback thread (librbd,
 * librados): the callback appends the request to a small spinlock-protected
 * array and, only when the worker sleeps, wakes it through an eventfd.  With
 * busy_poll the worker spins on the array instead of sleeping.
 */
#ifndef IOGAP_CBQ_H
#define IOGAP_CBQ_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

struct iogap_io;

struct iogap_cbq {
	struct iogap_io **ready;     /* completed, not yet reaped */
	atomic_uint nr_ready;        /* changed under lock, peeked without */
	pthread_spinlock_t lock;
	atomic_uint sleeping;        /* the worker waits on efd */
	int efd;
	bool busy_poll;
	unsigned nr_uncommitted;     /* queued since the last commit */
};

/* Room for depth completions.  0 or -errno with a message (prefixed by
 * engine) in err. */
int iogap_cbq_init(struct iogap_cbq *q, unsigned depth, bool busy_poll, const char *engine,
		   char *err, size_t errlen);
void iogap_cbq_destroy(struct iogap_cbq *q);
/* On the callback thread: io is done (its result set). */
void iogap_cbq_push(struct iogap_cbq *q, struct iogap_io *io);
/* The engine's getevents: at least min, at most max completions. */
int iogap_cbq_wait(struct iogap_cbq *q, unsigned min, unsigned max, struct iogap_io **done);
/* The engine's commit: its queue() submitted (and counted in
 * nr_uncommitted) already; the batch since the last commit, for fio's
 * submit statistics as fio reports for an engine without commit. */
int iogap_cbq_commit(struct iogap_cbq *q);

#endif
