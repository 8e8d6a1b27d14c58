/* SPDX-License-Identifier: MIT */
/*
 * io_uring through liburing: queue() fills SQEs, commit() submits them in
 * one io_uring_enter, getevents() reaps CQEs.  Trims run synchronously.
 */
#include <errno.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "iogap/trace.h"

struct uring_state {
	struct io_uring ring;
	struct iogap_io **pending;   /* queued, not yet submitted */
	unsigned nr_pending;
};

static int uring_init(struct iogap_engine_ctx *ctx, char *err, size_t errlen)
{
	struct uring_state *s = calloc(1, sizeof(*s));
	int r;

	if (!s)
		return -ENOMEM;
	s->pending = calloc(ctx->depth, sizeof(*s->pending));
	if (!s->pending) {
		free(s);
		return -ENOMEM;
	}
	r = io_uring_queue_init(ctx->depth, &s->ring, 0);
	if (r < 0) {
		snprintf(err, errlen, "io_uring: io_uring_queue_init(%u): %s", ctx->depth,
			 strerror(-r));
		free(s->pending);
		free(s);
		return r;
	}
	ctx->priv = s;
	return 0;
}

static int uring_queue(struct iogap_engine_ctx *ctx, struct iogap_io *io)
{
	struct uring_state *s = ctx->priv;
	struct io_uring_sqe *sqe;

	if (io->ddir == IOGAP_OP_TRIM) {
		int r;

		if (s->nr_pending)
			return IOGAP_Q_BUSY;
		r = iogap_engine_sync_trim(ctx->fd, io->offset, io->len);
		io->result = r ? r : (int64_t)io->len;
		return IOGAP_Q_COMPLETED;
	}
	sqe = io_uring_get_sqe(&s->ring);
	if (!sqe)
		return IOGAP_Q_BUSY;
	if (io->ddir == IOGAP_OP_READ)
		io_uring_prep_read(sqe, ctx->fd, io->buf, io->len, io->offset);
	else
		io_uring_prep_write(sqe, ctx->fd, io->buf, io->len, io->offset);
	io_uring_sqe_set_data(sqe, io);
	s->pending[s->nr_pending++] = io;
	return IOGAP_Q_QUEUED;
}

static int uring_commit(struct iogap_engine_ctx *ctx)
{
	struct uring_state *s = ctx->priv;
	uint64_t now;
	int r;

	if (!s->nr_pending)
		return 0;
	do {
		r = io_uring_submit(&s->ring);
	} while (r == -EINTR);
	if (r == -EAGAIN || r == -EBUSY)
		return 0;
	if (r < 0)
		return r;
	now = ctx->now_ns();
	/* io_uring consumes SQEs in order: the first r are submitted */
	for (int i = 0; i < r && (unsigned)i < s->nr_pending; i++)
		s->pending[i]->issue_ns = now;
	if ((unsigned)r < s->nr_pending)
		memmove(s->pending, s->pending + r, (s->nr_pending - (unsigned)r) * sizeof(*s->pending));
	s->nr_pending -= (unsigned)r < s->nr_pending ? (unsigned)r : s->nr_pending;
	return r;
}

static int uring_getevents(struct iogap_engine_ctx *ctx, unsigned min, unsigned max,
			   struct iogap_io **done)
{
	struct uring_state *s = ctx->priv;
	struct io_uring_cqe *cqe;
	unsigned n = 0;

	while (n < max) {
		int r;

		if (n < min) {
			r = io_uring_wait_cqe(&s->ring, &cqe);
			if (r == -EINTR)
				continue;
		} else {
			r = io_uring_peek_cqe(&s->ring, &cqe);
			if (r == -EAGAIN)
				break;
		}
		if (r < 0)
			return r;
		done[n] = io_uring_cqe_get_data(cqe);
		done[n]->result = cqe->res;
		io_uring_cqe_seen(&s->ring, cqe);
		n++;
	}
	return (int)n;
}

static void uring_cleanup(struct iogap_engine_ctx *ctx)
{
	struct uring_state *s = ctx->priv;

	if (!s)
		return;
	io_uring_queue_exit(&s->ring);
	free(s->pending);
	free(s);
	ctx->priv = NULL;
}

const struct iogap_engine_ops iogap_engine_io_uring = {
	.name = "io_uring",
	.flags = IOGAP_ENGINE_SETS_ISSUE,
	.init = uring_init,
	.queue = uring_queue,
	.commit = uring_commit,
	.getevents = uring_getevents,
	.cleanup = uring_cleanup,
};
