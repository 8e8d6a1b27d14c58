/* SPDX-License-Identifier: MIT */
/*
 * vsync: readv/writev after an lseek (fio's vsync).  As fio, it emulates
 * queueing: requests that continue the previous one (same direction, next
 * offset) are gathered into one iovec list and submitted by one readv or
 * writev at commit; a request that does not continue it makes queue()
 * answer BUSY, so the runner commits the list and retries.  fio flags it
 * FIO_SYNCIO: the issue time is taken before queue() and there is no slat.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "engine.h"
#include "iogap/trace.h"

struct vsync_state {
	struct iovec *iov;
	struct iogap_io **queued; /* gathered, not yet submitted */
	struct iogap_io **done;   /* submitted, not yet reaped */
	unsigned nr_queued;
	unsigned nr_done;
	uint64_t next_offset;     /* where the gathered list ends */
	uint64_t queued_bytes;
	int fd;                   /* the gathered list's file */
	uint8_t ddir;
};

static int vsync_init(struct iogap_engine_ctx *ctx, char *err, size_t errlen)
{
	struct vsync_state *s = calloc(1, sizeof(*s));

	(void)err;
	(void)errlen;
	if (!s)
		return -ENOMEM;
	s->iov = calloc(ctx->depth, sizeof(*s->iov));
	s->queued = calloc(ctx->depth, sizeof(*s->queued));
	s->done = calloc(ctx->depth, sizeof(*s->done));
	ctx->priv = s;
	return s->iov && s->queued && s->done ? 0 : -ENOMEM;
}

static void vsync_append(struct vsync_state *s, int fd, struct iogap_io *io)
{
	s->fd = fd;
	s->iov[s->nr_queued] = (struct iovec){ .iov_base = io->buf, .iov_len = io->len };
	s->queued[s->nr_queued++] = io;
	s->queued_bytes += io->len;
	s->next_offset = io->offset + io->len;
	s->ddir = io->ddir;
}

static int vsync_queue(struct iogap_engine_ctx *ctx, struct iogap_io *io)
{
	struct vsync_state *s = ctx->priv;

	if (io->ddir == IOGAP_OP_TRIM) {
		if (s->nr_queued)
			return IOGAP_Q_BUSY;
		iogap_engine_trim_io(ctx->fd, io);
		return IOGAP_Q_COMPLETED;
	}
	/* fio's fio_vsyncio_should_append: same file, direction, next offset */
	if (s->nr_queued && (io->offset != s->next_offset || io->ddir != s->ddir ||
			     ctx->fd != s->fd || s->nr_queued == ctx->depth))
		return IOGAP_Q_BUSY;
	vsync_append(s, ctx->fd, io);
	return IOGAP_Q_QUEUED;
}

/* fio's fio_vsyncio_end: a short transfer is shared out in list order. */
static void vsync_results(struct vsync_state *s, ssize_t bytes, int err)
{
	for (unsigned i = 0; i < s->nr_queued; i++) {
		struct iogap_io *io = s->queued[i];

		if (bytes < 0) {
			io->result = -err;
			continue;
		}
		io->result = (uint64_t)bytes < io->len ? bytes : (int64_t)io->len;
		bytes -= io->result;
	}
}

static int vsync_commit(struct iogap_engine_ctx *ctx)
{
	struct vsync_state *s = ctx->priv;
	unsigned n = s->nr_queued;
	ssize_t r;

	if (!n)
		return 0;
	if (lseek(s->fd, (off_t)s->queued[0]->offset, SEEK_SET) < 0)
		r = -1;
	else if (s->ddir == IOGAP_OP_READ)
		r = readv(s->fd, s->iov, (int)n);
	else
		r = writev(s->fd, s->iov, (int)n);
	vsync_results(s, r, errno);
	memcpy(s->done + s->nr_done, s->queued, n * sizeof(*s->done));
	s->nr_done += n;
	s->nr_queued = 0;
	s->queued_bytes = 0;
	return (int)n;
}

static int vsync_getevents(struct iogap_engine_ctx *ctx, unsigned min, unsigned max,
			   struct iogap_io **done)
{
	struct vsync_state *s = ctx->priv;
	unsigned n = s->nr_done < max ? s->nr_done : max;

	(void)min;
	memcpy(done, s->done, n * sizeof(*done));
	memmove(s->done, s->done + n, (s->nr_done - n) * sizeof(*s->done));
	s->nr_done -= n;
	return (int)n;
}

static void vsync_cleanup(struct iogap_engine_ctx *ctx)
{
	struct vsync_state *s = ctx->priv;

	if (!s)
		return;
	free(s->iov);
	free(s->queued);
	free(s->done);
	free(s);
	ctx->priv = NULL;
}

const struct iogap_engine_ops iogap_engine_vsync = {
	.name = "vsync",
	.flags = IOGAP_ENGINE_SYNC_ISSUE,   /* fio's vsync is FIO_SYNCIO */
	.init = vsync_init,
	.queue = vsync_queue,
	.commit = vsync_commit,
	.getevents = vsync_getevents,
	.cleanup = vsync_cleanup,
};
