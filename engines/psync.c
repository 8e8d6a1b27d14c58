/* SPDX-License-Identifier: MIT */
/* psync: pread/pwrite, one request at a time, completed inline. */
#include <errno.h>
#include <unistd.h>

#include "engine.h"
#include "iogap/trace.h"

static int psync_init(struct iogap_engine_ctx *ctx, char *err, size_t errlen)
{
	(void)ctx;
	(void)err;
	(void)errlen;
	return 0;
}

static ssize_t psync_rw(struct iogap_engine_ctx *ctx, struct iogap_io *io)
{
	if (io->ddir == IOGAP_OP_READ)
		return pread(ctx->fd, io->buf, io->len, (off_t)io->offset);
	return pwrite(ctx->fd, io->buf, io->len, (off_t)io->offset);
}

static int psync_queue(struct iogap_engine_ctx *ctx, struct iogap_io *io)
{
	return iogap_engine_sync_queue(ctx, io, psync_rw);
}

static void psync_cleanup(struct iogap_engine_ctx *ctx)
{
	(void)ctx;
}

const struct iogap_engine_ops iogap_engine_psync = {
	.name = "psync",
	.flags = IOGAP_ENGINE_SYNC,
	.init = psync_init,
	.queue = psync_queue,
	.cleanup = psync_cleanup,
};
