/* SPDX-License-Identifier: MIT */
/*
 * posixaio: POSIX aio_read/aio_write, completions found with aio_error
 * and waited for with aio_suspend (fio's posixaio).  glibc runs POSIX AIO
 * on its own helper threads: the requests are asynchronous to the runner,
 * not to the kernel, exactly as with fio.
 */
#include <aio.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "iogap/trace.h"

struct posixaio_state {
	struct aiocb *cbs;              /* one per runner slot */
	struct iogap_io **inflight;     /* submitted, not yet reaped */
	const struct aiocb **wait_list; /* aio_suspend's view of inflight */
	unsigned nr_inflight;
	unsigned nr_uncommitted;        /* submitted since the last commit */
};

static int posixaio_init(struct iogap_engine_ctx *ctx, char *err, size_t errlen)
{
	struct posixaio_state *s = calloc(1, sizeof(*s));

	(void)err;
	(void)errlen;
	if (!s)
		return -ENOMEM;
	ctx->priv = s;
	s->cbs = calloc(ctx->depth, sizeof(*s->cbs));
	s->inflight = calloc(ctx->depth, sizeof(*s->inflight));
	s->wait_list = calloc(ctx->depth, sizeof(*s->wait_list));
	return s->cbs && s->inflight && s->wait_list ? 0 : -ENOMEM;
}

static int posixaio_queue(struct iogap_engine_ctx *ctx, struct iogap_io *io)
{
	struct posixaio_state *s = ctx->priv;
	struct aiocb *cb = &s->cbs[io->slot];
	int r;

	if (io->ddir == IOGAP_OP_TRIM) {   /* fio: do_io_u_trim, inline */
		iogap_engine_trim_io(ctx->fd, io);
		return IOGAP_Q_COMPLETED;
	}
	memset(cb, 0, sizeof(*cb));
	cb->aio_fildes = ctx->fd;
	cb->aio_buf = io->buf;
	cb->aio_nbytes = io->len;
	cb->aio_offset = (off_t)io->offset;
	r = io->ddir == IOGAP_OP_READ ? aio_read(cb) : aio_write(cb);
	if (r) {
		if (errno == EAGAIN && s->nr_inflight)
			return IOGAP_Q_BUSY;
		io->result = -errno;
		return IOGAP_Q_COMPLETED;
	}
	s->inflight[s->nr_inflight++] = io;
	s->nr_uncommitted++;
	return IOGAP_Q_QUEUED;
}

/* aio_read/aio_write submitted already; commit only reports how many. */
static int posixaio_commit(struct iogap_engine_ctx *ctx)
{
	struct posixaio_state *s = ctx->priv;
	int n = (int)s->nr_uncommitted;

	s->nr_uncommitted = 0;
	return n;
}

/* Move every finished request from inflight to done[] (as fio's scan, whatever
 * the most asked for: the runner's done[] holds a slot per request); returns
 * how many done[] holds. */
static unsigned posixaio_collect(struct posixaio_state *s, struct iogap_io **done, unsigned have)
{
	for (unsigned i = 0; i < s->nr_inflight;) {
		struct iogap_io *io = s->inflight[i];
		struct aiocb *cb = &s->cbs[io->slot];
		int e = aio_error(cb);

		if (e == EINPROGRESS) {
			i++;
			continue;
		}
		io->result = e ? -e : (int64_t)aio_return(cb);
		if (e)
			aio_return(cb);   /* releases the request's resources */
		done[have++] = io;
		s->inflight[i] = s->inflight[--s->nr_inflight];
	}
	return have;
}

static int posixaio_getevents(struct iogap_engine_ctx *ctx, unsigned min, unsigned max,
			      struct iogap_io **done)
{
	struct posixaio_state *s = ctx->priv;
	unsigned have = 0;

	(void)max;
	if (min > s->nr_inflight)
		min = s->nr_inflight;
	for (;;) {
		have = posixaio_collect(s, done, have);
		if (have >= min)
			return (int)have;
		for (unsigned i = 0; i < s->nr_inflight; i++)
			s->wait_list[i] = &s->cbs[s->inflight[i]->slot];
		if (aio_suspend(s->wait_list, (int)s->nr_inflight, NULL) && errno != EINTR &&
		    errno != EAGAIN)
			return -errno;
	}
}

static void posixaio_cleanup(struct iogap_engine_ctx *ctx)
{
	struct posixaio_state *s = ctx->priv;

	if (!s)
		return;
	/* the runner drains before cleanup; cancel whatever an error left */
	for (unsigned i = 0; i < s->nr_inflight; i++) {
		struct aiocb *cb = &s->cbs[s->inflight[i]->slot];

		if (aio_cancel(cb->aio_fildes, cb) == AIO_NOTCANCELED) {
			const struct aiocb *one = cb;

			while (aio_error(cb) == EINPROGRESS)
				aio_suspend(&one, 1, NULL);
		}
		aio_return(cb);
	}
	free(s->cbs);
	free(s->inflight);
	free(s->wait_list);
	free(s);
	ctx->priv = NULL;
}

const struct iogap_engine_ops iogap_engine_posixaio = {
	.name = "posixaio",
	.flags = 0,
	.init = posixaio_init,
	.queue = posixaio_queue,
	.commit = posixaio_commit,
	.getevents = posixaio_getevents,
	.cleanup = posixaio_cleanup,
};
