/* SPDX-License-Identifier: MIT */
/*
 * pvsync2: preadv2/pwritev2 with one iovec, completed inline (fio's
 * pvsync2).  Engine options as fio's: hipri sets RWF_HIPRI (polled
 * completion) on hipri_percentage percent of the requests, nowait sets
 * RWF_NOWAIT (EAGAIN instead of blocking).
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/uio.h>

#include "engine.h"
#include "iogap/trace.h"
#include "job.h"
#include "rand.h"

struct pvsync2_state {
	struct iogap_rand hipri_rand;
	int flags;                /* RWF_NOWAIT, RWF_UNCACHED: every request */
};

static int pvsync2_init(struct iogap_engine_ctx *ctx, char *err, size_t errlen)
{
	struct pvsync2_state *s = calloc(1, sizeof(*s));

	(void)err;
	(void)errlen;
	if (!s)
		return -ENOMEM;
	iogap_rand_seed(&s->hipri_rand, ctx->job->randseed ^ 0x4869707269ULL);
	s->flags = iogap_engine_rw_flags(ctx->job);
	ctx->priv = s;
	return 0;
}

static int pvsync2_flags(struct iogap_engine_ctx *ctx)
{
	struct pvsync2_state *s = ctx->priv;
	const struct iogap_job *j = ctx->job;

	/* fio: rand_between(1, 100) <= hipri_percentage */
	if (j->hipri && iogap_rand_below(&s->hipri_rand, 100) < j->hipri_percentage)
		return s->flags | RWF_HIPRI;
	return s->flags;
}

static ssize_t pvsync2_rw(struct iogap_engine_ctx *ctx, struct iogap_io *io)
{
	struct iovec iov = { .iov_base = io->buf, .iov_len = io->len };

	if (io->ddir == IOGAP_OP_READ)
		return preadv2(ctx->fd, &iov, 1, (off_t)io->offset, pvsync2_flags(ctx));
	return pwritev2(ctx->fd, &iov, 1, (off_t)io->offset, pvsync2_flags(ctx));
}

static int pvsync2_queue(struct iogap_engine_ctx *ctx, struct iogap_io *io)
{
	return iogap_engine_sync_queue(ctx, io, pvsync2_rw);
}

static void pvsync2_cleanup(struct iogap_engine_ctx *ctx)
{
	free(ctx->priv);
	ctx->priv = NULL;
}

const struct iogap_engine_ops iogap_engine_pvsync2 = {
	.name = "pvsync2",
	.flags = IOGAP_ENGINE_SYNC,
	.init = pvsync2_init,
	.queue = pvsync2_queue,
	.cleanup = pvsync2_cleanup,
};
