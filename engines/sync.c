/* SPDX-License-Identifier: MIT */
/*
 * sync: lseek + read/write, one request at a time, completed inline
 * (fio's sync engine).  As fio, the seek happens in prep, before the issue
 * time is taken, and only when the file position is not already there.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "engine.h"
#include "iogap/trace.h"

struct sync_state {
	uint64_t pos;             /* file position after the last request */
	bool pos_known;
};

static int sync_init(struct iogap_engine_ctx *ctx, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	ctx->priv = calloc(1, sizeof(struct sync_state));
	return ctx->priv ? 0 : -ENOMEM;
}

static int sync_prep(struct iogap_engine_ctx *ctx, struct iogap_io *io)
{
	struct sync_state *s = ctx->priv;

	if (io->ddir == IOGAP_OP_TRIM || (s->pos_known && s->pos == io->offset))
		return 0;
	if (lseek(ctx->fd, (off_t)io->offset, SEEK_SET) < 0) {
		s->pos_known = false;
		return -errno;
	}
	s->pos = io->offset;
	s->pos_known = true;
	return 0;
}

/* read/write at the file position sync_prep set; the position follows */
static ssize_t sync_rw(struct iogap_engine_ctx *ctx, struct iogap_io *io)
{
	struct sync_state *s = ctx->priv;
	ssize_t r;

	if (io->ddir == IOGAP_OP_READ)
		r = read(ctx->fd, io->buf, io->len);
	else
		r = write(ctx->fd, io->buf, io->len);
	s->pos_known = r >= 0;
	s->pos = io->offset + (uint64_t)(r > 0 ? r : 0);
	return r;
}

static int sync_queue(struct iogap_engine_ctx *ctx, struct iogap_io *io)
{
	return iogap_engine_sync_queue(ctx, io, sync_rw);
}

static void sync_cleanup(struct iogap_engine_ctx *ctx)
{
	free(ctx->priv);
	ctx->priv = NULL;
}

const struct iogap_engine_ops iogap_engine_sync = {
	.name = "sync",
	.flags = IOGAP_ENGINE_SYNC,
	.init = sync_init,
	.prep = sync_prep,
	.queue = sync_queue,
	.cleanup = sync_cleanup,
};
