/* SPDX-License-Identifier: MIT */
/* pvsync: preadv/pwritev with one iovec, completed inline (fio's pvsync). */
#include <errno.h>
#include <sys/uio.h>

#include "engine.h"
#include "iogap/trace.h"

static int pvsync_init(struct iogap_engine_ctx *ctx, char *err, size_t errlen)
{
	(void)ctx;
	(void)err;
	(void)errlen;
	return 0;
}

static ssize_t pvsync_rw(struct iogap_engine_ctx *ctx, struct iogap_io *io)
{
	struct iovec iov = { .iov_base = io->buf, .iov_len = io->len };

	if (io->ddir == IOGAP_OP_READ)
		return preadv(ctx->fd, &iov, 1, (off_t)io->offset);
	return pwritev(ctx->fd, &iov, 1, (off_t)io->offset);
}

static int pvsync_queue(struct iogap_engine_ctx *ctx, struct iogap_io *io)
{
	return iogap_engine_sync_queue(ctx, io, pvsync_rw);
}

static void pvsync_cleanup(struct iogap_engine_ctx *ctx)
{
	(void)ctx;
}

const struct iogap_engine_ops iogap_engine_pvsync = {
	.name = "pvsync",
	.flags = IOGAP_ENGINE_SYNC,
	.init = pvsync_init,
	.queue = pvsync_queue,
	.cleanup = pvsync_cleanup,
};
