/* SPDX-License-Identifier: MIT */
/*
 * libaio: Linux native AIO.  queue() collects iocbs, commit() submits them
 * in one io_submit, as fio does, so slat covers the wait in the batch.
 * Trims run synchronously (there is no AIO discard).
 */
#include <errno.h>
#include <libaio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "iogap/trace.h"
#include "job.h"

/* linux/aio_abi.h's: the iocb carries a priority (aio_reqprio) */
#ifndef IOCB_FLAG_IOPRIO
#define IOCB_FLAG_IOPRIO (1 << 1)
#endif

struct libaio_state {
	io_context_t ctx;
	struct iocb *iocbs;          /* one per slot */
	struct iocb **pending;       /* queued, not yet submitted */
	struct iogap_io **pending_io;
	unsigned nr_pending;
	struct io_event *events;
	int rw_flags;                /* RWF_NOWAIT (nowait) on every read and write */
};

static int libaio_init(struct iogap_engine_ctx *ctx, char *err, size_t errlen)
{
	struct libaio_state *s = calloc(1, sizeof(*s));
	int r;

	if (!s)
		return -ENOMEM;
	s->iocbs = calloc(ctx->depth, sizeof(*s->iocbs));
	s->pending = calloc(ctx->depth, sizeof(*s->pending));
	s->pending_io = calloc(ctx->depth, sizeof(*s->pending_io));
	s->events = calloc(ctx->depth, sizeof(*s->events));
	if (!s->iocbs || !s->pending || !s->pending_io || !s->events) {
		r = -ENOMEM;
		goto fail;
	}
	r = io_setup((int)ctx->depth, &s->ctx);
	if (r < 0) {
		snprintf(err, errlen, "libaio: io_setup(%u): %s%s", ctx->depth, strerror(-r),
			 r == -EAGAIN ? " (raise /proc/sys/fs/aio-max-nr)" : "");
		goto fail;
	}
	s->rw_flags = iogap_engine_rw_flags(ctx->job);
	ctx->priv = s;
	return 0;
fail:
	free(s->iocbs);
	free(s->pending);
	free(s->pending_io);
	free(s->events);
	free(s);
	return r;
}

static int libaio_queue(struct iogap_engine_ctx *ctx, struct iogap_io *io)
{
	struct libaio_state *s = ctx->priv;
	struct iocb *cb = &s->iocbs[io->slot];

	if (io->ddir == IOGAP_OP_TRIM) {
		int r;

		if (s->nr_pending)
			return IOGAP_Q_BUSY;   /* keep ordering: submit queued first */
		r = iogap_engine_sync_trim(ctx->fd, io->offset, io->len);
		io->result = r ? r : (int64_t)io->len;
		return IOGAP_Q_COMPLETED;
	}
	if (s->nr_pending == ctx->depth)
		return IOGAP_Q_BUSY;
	if (io->ddir == IOGAP_OP_READ)
		io_prep_pread(cb, ctx->fd, io->buf, io->len, (long long)io->offset);
	else
		io_prep_pwrite(cb, ctx->fd, io->buf, io->len, (long long)io->offset);
	cb->aio_rw_flags = (unsigned)s->rw_flags;
	if (io->ioprio) {   /* cmdprio (prio.c), as fio's libaio */
		cb->aio_reqprio = (short)io->ioprio;
		cb->u.c.flags |= IOCB_FLAG_IOPRIO;
	}
	cb->data = io;
	s->pending[s->nr_pending] = cb;
	s->pending_io[s->nr_pending] = io;
	s->nr_pending++;
	return IOGAP_Q_QUEUED;
}

static int libaio_commit(struct iogap_engine_ctx *ctx)
{
	struct libaio_state *s = ctx->priv;
	unsigned done = 0;

	while (done < s->nr_pending) {
		int r = io_submit(s->ctx, (long)(s->nr_pending - done), s->pending + done);

		if (r > 0) {
			uint64_t now = ctx->now_ns();

			/* fio stamps issue time when io_submit returns */
			for (int i = 0; i < r; i++)
				s->pending_io[done + (unsigned)i]->issue_ns = now;
			done += (unsigned)r;
			continue;
		}
		if (r == -EAGAIN || r == -EINTR || r == 0)
			break;   /* the runner reaps and calls commit again */
		return r;
	}
	if (done && done < s->nr_pending) {
		memmove(s->pending, s->pending + done, (s->nr_pending - done) * sizeof(*s->pending));
		memmove(s->pending_io, s->pending_io + done,
			(s->nr_pending - done) * sizeof(*s->pending_io));
	}
	s->nr_pending -= done;
	return (int)done;
}

/*
 * The kernel's completion ring, mapped at the io_context address: fio's
 * userspace_reap reads it without a system call.
 */
struct aio_ring {
	unsigned id, nr, head, tail;
	unsigned magic, compat_features, incompat_features, header_length;
	struct io_event events[];
};
#define AIO_RING_MAGIC 0xa10a10a1

static unsigned user_reap(struct aio_ring *ring, struct io_event *ev, unsigned max)
{
	unsigned n = 0;

	while (n < max) {
		unsigned head = __atomic_load_n(&ring->head, __ATOMIC_RELAXED);

		if (head == __atomic_load_n(&ring->tail, __ATOMIC_ACQUIRE))
			break;
		ev[n++] = ring->events[head];
		__atomic_store_n(&ring->head, (head + 1) % ring->nr, __ATOMIC_RELEASE);
	}
	return n;
}

/*
 * fio's fio_libaio_getevents: io_getevents waits for min (max at most);
 * with iodepth_batch_complete_min=0 nothing is waited for in the kernel:
 * it asks for 0 until min have come, from the ring itself with
 * userspace_reap (the only case fio reaps there).
 */
static int libaio_getevents(struct iogap_engine_ctx *ctx, unsigned min, unsigned max,
			    struct iogap_io **done)
{
	struct libaio_state *s = ctx->priv;
	struct aio_ring *ring = (struct aio_ring *)s->ctx;
	unsigned wait_nr = ctx->job->iodepth_batch_complete_min ? min : 0;
	bool in_user = ctx->job->userspace_reap && !wait_nr && ring->magic == AIO_RING_MAGIC;
	unsigned n = 0;

	while (n < min) {
		int k = in_user ? (int)user_reap(ring, s->events + n, max - n)
				: io_getevents(s->ctx, (long)(wait_nr > n ? wait_nr - n : 0),
					       (long)(max - n), s->events + n, NULL);

		if (k > 0)
			n += (unsigned)k;
		else if (k < 0 && k != -EINTR && k != -EAGAIN)
			return n ? (int)n : k;
	}
	for (unsigned i = 0; i < n; i++) {
		struct iogap_io *io = s->events[i].data;
		long res = (long)s->events[i].res;

		io->result = res < 0 ? res : (int64_t)res;
		done[i] = io;
	}
	return (int)n;
}

static void libaio_cleanup(struct iogap_engine_ctx *ctx)
{
	struct libaio_state *s = ctx->priv;

	if (!s)
		return;
	io_destroy(s->ctx);
	free(s->iocbs);
	free(s->pending);
	free(s->pending_io);
	free(s->events);
	free(s);
	ctx->priv = NULL;
}

const struct iogap_engine_ops iogap_engine_libaio = {
	.name = "libaio",
	.flags = IOGAP_ENGINE_SETS_ISSUE,
	.init = libaio_init,
	.queue = libaio_queue,
	.commit = libaio_commit,
	.getevents = libaio_getevents,
	.cleanup = libaio_cleanup,
};
