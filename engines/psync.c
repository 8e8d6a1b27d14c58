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

static int psync_queue(struct iogap_engine_ctx *ctx, struct iogap_io *io)
{
	ssize_t r;

	switch (io->ddir) {
	case IOGAP_OP_READ:
		r = pread(ctx->fd, io->buf, io->len, (off_t)io->offset);
		break;
	case IOGAP_OP_WRITE:
		r = pwrite(ctx->fd, io->buf, io->len, (off_t)io->offset);
		break;
	case IOGAP_OP_TRIM:
		iogap_engine_trim_io(ctx->fd, io);
		return IOGAP_Q_COMPLETED;
	default:
		io->result = -EINVAL;
		return IOGAP_Q_COMPLETED;
	}
	iogap_engine_set_result(io, (long)r);
	return IOGAP_Q_COMPLETED;
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
