/* SPDX-License-Identifier: MIT */
/*
 * splice: every transfer goes through a pipe, as fio's splice engine
 * (engines/splice.c in fio 3.33), completed inline.  A read splices the file
 * into the pipe and vmsplices the pipe into the buffer; a write vmsplices
 * the buffer into the pipe and splices the pipe into the file; both in
 * pieces of fio's SPLICE_DEF_SIZE (64 KiB, a default pipe's capacity).
 * Trims are punched as for the other synchronous engines.
 *
 * A read vmsplices into the request's buffer, where fio ends up after its
 * first try (into a read-only anonymous mapping) fails with EFAULT; fio's
 * fallback for kernels without vmsplice to user memory (before 2.6.23) is
 * not kept.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "engine.h"
#include "iogap/trace.h"

#define SPLICE_PIECE (64u * 1024)

struct splice_state {
	int pipe[2];                 /* [0] read end, [1] write end */
};

static int splice_init(struct iogap_engine_ctx *ctx, char *err, size_t errlen)
{
	struct splice_state *s = malloc(sizeof(*s));

	if (!s)
		return -ENOMEM;
	if (pipe2(s->pipe, O_CLOEXEC)) {
		int r = -errno;

		snprintf(err, errlen, "splice: pipe: %s", strerror(errno));
		free(s);
		return r;
	}
	ctx->priv = s;
	return 0;
}

/* Move exactly len bytes out of the pipe into buf (vmsplice to user
 * memory); 0, or -1 with errno. */
static int pipe_to_buf(int rfd, char *buf, size_t len)
{
	while (len) {
		struct iovec iov = { .iov_base = buf, .iov_len = len };
		ssize_t n = vmsplice(rfd, &iov, 1, 0);

		if (n <= 0) {
			if (n == 0)
				errno = EIO;   /* the pipe holds less than spliced in */
			return -1;
		}
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Move exactly len bytes out of the pipe into the file at *off. */
static int pipe_to_file(int rfd, int fd, off_t *off, size_t len)
{
	while (len) {
		ssize_t n = splice(rfd, NULL, fd, off, len, 0);

		if (n <= 0) {
			if (n == 0)
				errno = EIO;
			return -1;
		}
		len -= (size_t)n;
	}
	return 0;
}

static ssize_t splice_read(struct splice_state *s, int fd, struct iogap_io *io)
{
	off_t off = (off_t)io->offset;
	size_t done = 0;

	while (done < io->len) {
		size_t want = io->len - done < SPLICE_PIECE ? io->len - done : SPLICE_PIECE;
		ssize_t n = splice(fd, &off, s->pipe[1], NULL, want,
				   io->len - done > want ? SPLICE_F_MORE : 0);

		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (n < 0)
			return -1;
		if (n == 0)      /* end of file: a short read */
			break;
		if (pipe_to_buf(s->pipe[0], (char *)io->buf + done, (size_t)n))
			return -1;
		done += (size_t)n;
	}
	return (ssize_t)done;
}

static ssize_t splice_write(struct splice_state *s, int fd, struct iogap_io *io)
{
	off_t off = (off_t)io->offset;
	size_t done = 0;

	while (done < io->len) {
		struct iovec iov = { .iov_base = (char *)io->buf + done,
				     .iov_len = io->len - done < SPLICE_PIECE ? io->len - done :
										SPLICE_PIECE };
		ssize_t n = vmsplice(s->pipe[1], &iov, 1, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 || pipe_to_file(s->pipe[0], fd, &off, (size_t)n))
			return -1;
		done += (size_t)n;
	}
	return (ssize_t)done;
}

/* After a failed transfer the pipe may hold data of it: start over with
 * an empty one, or the next request would carry it. */
static void pipe_reset(struct splice_state *s)
{
	int saved = errno, fresh[2];

	if (pipe2(fresh, O_CLOEXEC))
		return;   /* keep the old pipe; this request fails anyway */
	close(s->pipe[0]);
	close(s->pipe[1]);
	memcpy(s->pipe, fresh, sizeof(fresh));
	errno = saved;
}

static ssize_t splice_rw(struct iogap_engine_ctx *ctx, struct iogap_io *io)
{
	struct splice_state *s = ctx->priv;
	ssize_t r = io->ddir == IOGAP_OP_READ ? splice_read(s, ctx->fd, io) :
						splice_write(s, ctx->fd, io);

	if (r < 0) {
		if (errno == EINVAL)   /* as fio says */
			fprintf(stderr, "splice: looks like splice doesn't work on this file "
				"system\n");
		pipe_reset(s);
	}
	return r;
}

static int splice_queue(struct iogap_engine_ctx *ctx, struct iogap_io *io)
{
	return iogap_engine_sync_queue(ctx, io, splice_rw);
}

static void splice_cleanup(struct iogap_engine_ctx *ctx)
{
	struct splice_state *s = ctx->priv;

	if (!s)
		return;
	close(s->pipe[0]);
	close(s->pipe[1]);
	free(s);
	ctx->priv = NULL;
}

const struct iogap_engine_ops iogap_engine_splice = {
	.name = "splice",
	.flags = IOGAP_ENGINE_SYNC,
	.init = splice_init,
	.queue = splice_queue,
	.cleanup = splice_cleanup,
};
