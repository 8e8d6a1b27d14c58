/* SPDX-License-Identifier: MIT */
/*
 * rbd: Ceph RADOS block devices through librbd's asynchronous API, with
 * fio's rbd engine options and behaviour (engines/rbd.c in fio 3.33):
 *
 *  - clientname, pool, rbdname, clustername, busy_poll as fio; the
 *    configuration comes from ceph_conf= (iogap) or, as in fio, from
 *    $CEPH_CONF and Ceph's default search path.  CEPH_ARGS is honoured too
 *    (e.g. CEPH_ARGS="--rados-osd-op-timeout=5"), which fio does not do.
 *  - direct=1 turns the librbd cache off (rbd_cache=false); otherwise an
 *    initial flush switches a writethrough-until-flush cache to writeback.
 *  - requests are submitted in queue() (rbd_aio_read/write/discard), so
 *    the issue time is taken when queue() returns, as fio does for an
 *    engine without commit.
 *
 * Completions arrive on librbd's callback thread (cbq.c; busy_poll spins
 * there instead of sleeping).
 */
#include <errno.h>
#include <rbd/librbd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cbq.h"
#include "ceph.h"
#include "engine.h"
#include "iogap/trace.h"
#include "job.h"

struct rbd_conn {
	rados_t cluster;
	rados_ioctx_t ioctx;
	rbd_image_t image;
};

/* The request a completion belongs to: one per slot. */
struct rbd_state;
struct rbd_req {
	struct rbd_state *s;
	struct iogap_io *io;
};

struct rbd_state {
	struct rbd_conn conn;
	struct rbd_req *reqs;        /* by slot */
	struct iogap_cbq done;
};

static void conn_close(struct rbd_conn *c)
{
	if (c->image)
		rbd_close(c->image);
	iogap_ceph_disconnect(c->cluster, c->ioctx);
	memset(c, 0, sizeof(*c));
}

/* fio's _fio_rbd_connect, with messages that say what failed. */
static int conn_open(const struct iogap_job *j, struct rbd_conn *c, bool read_only,
		     char *err, size_t errlen)
{
	int r;

	memset(c, 0, sizeof(*c));
	r = iogap_ceph_connect(j, "rbd", &c->cluster, &c->ioctx, err, errlen);
	if (r < 0)
		return r;
	if (j->direct && rados_conf_set(c->cluster, "rbd_cache", "false") < 0)
		fprintf(stderr, "rbd: failed to disable the librbd cache\n");
	r = read_only ? rbd_open_read_only(c->ioctx, j->rbd_name, &c->image, NULL) :
			rbd_open(c->ioctx, j->rbd_name, &c->image, NULL);
	if (r < 0) {
		c->image = NULL;
		snprintf(err, errlen, "rbd: image '%s/%s': %s", j->rbd_pool, j->rbd_name,
			 r == -ENOENT ? "does not exist" : strerror(-r));
		conn_close(c);
	}
	return r < 0 ? r : 0;
}

static int rbd_engine_init(struct iogap_engine_ctx *ctx, char *err, size_t errlen)
{
	struct rbd_state *s = calloc(1, sizeof(*s));
	int r;

	if (!s)
		return -ENOMEM;
	s->reqs = calloc(ctx->depth, sizeof(*s->reqs));
	r = s->reqs ? iogap_cbq_init(&s->done, ctx->depth, ctx->job->rbd_busy_poll, "rbd", err,
				     errlen) : -ENOMEM;
	if (r < 0) {
		free(s->reqs);
		free(s);
		return r;
	}
	r = conn_open(ctx->job, &s->conn, false, err, errlen);
	if (r < 0) {
		iogap_cbq_destroy(&s->done);
		free(s->reqs);
		free(s);
		return r;
	}
	/* fio: make a writethrough-until-flush cache write back */
	if (!ctx->job->direct && rbd_flush(s->conn.image) < 0)
		fprintf(stderr, "rbd: failed to issue the initial flush\n");
	ctx->priv = s;
	return 0;
}

/* librbd's callback thread. */
static void rbd_done(rbd_completion_t c, void *arg)
{
	struct rbd_req *req = arg;
	struct rbd_state *s = req->s;
	struct iogap_io *io = req->io;
	ssize_t r = rbd_aio_get_return_value(c);

	/* reads return the bytes read, writes and discards 0: no partial I/O */
	io->result = r < 0 ? (int64_t)r : (int64_t)io->len;
	rbd_aio_release(c);
	iogap_cbq_push(&s->done, io);
}

static int rbd_engine_queue(struct iogap_engine_ctx *ctx, struct iogap_io *io)
{
	struct rbd_state *s = ctx->priv;
	struct rbd_req *req = &s->reqs[io->slot];
	rbd_completion_t c;
	int r;

	req->s = s;
	req->io = io;
	r = rbd_aio_create_completion(req, rbd_done, &c);
	if (r < 0)
		return r;
	switch (io->ddir) {
	case IOGAP_OP_READ:
		r = rbd_aio_read(s->conn.image, io->offset, io->len, io->buf, c);
		break;
	case IOGAP_OP_WRITE:
		r = rbd_aio_write(s->conn.image, io->offset, io->len, io->buf, c);
		break;
	case IOGAP_OP_TRIM:
		r = rbd_aio_discard(s->conn.image, io->offset, io->len, c);
		break;
	default:
		r = -EINVAL;
		break;
	}
	if (r < 0) {
		rbd_aio_release(c);
		return r;
	}
	s->done.nr_uncommitted++;
	return IOGAP_Q_QUEUED;
}

static int rbd_engine_commit(struct iogap_engine_ctx *ctx)
{
	struct rbd_state *s = ctx->priv;

	return iogap_cbq_commit(&s->done);
}

static int rbd_engine_getevents(struct iogap_engine_ctx *ctx, unsigned min, unsigned max,
				struct iogap_io **done)
{
	struct rbd_state *s = ctx->priv;

	return iogap_cbq_wait(&s->done, min, max, done);
}

static int rbd_engine_flush(struct iogap_engine_ctx *ctx)
{
	struct rbd_state *s = ctx->priv;

	return rbd_flush(s->conn.image);
}

static void rbd_engine_cleanup(struct iogap_engine_ctx *ctx)
{
	struct rbd_state *s = ctx->priv;

	if (!s)
		return;
	/* the runner drained every request; rbd_close flushes the cache */
	conn_close(&s->conn);
	iogap_cbq_destroy(&s->done);
	free(s->reqs);
	free(s);
	ctx->priv = NULL;
}

static int copy_range(rbd_image_t image, int fd, uint64_t off, uint64_t len, char *buf,
		      size_t buflen, char *err, size_t errlen)
{
	while (len) {
		size_t n = len < buflen ? (size_t)len : buflen;
		ssize_t r = rbd_read(image, off, n, buf);

		if (r < 0) {
			snprintf(err, errlen, "rbd: reading the image at %llu: %s",
				 (unsigned long long)off, strerror((int)-r));
			return (int)r;
		}
		if (r == 0)
			break;
		if (pwrite(fd, buf, (size_t)r, (off_t)off) != r) {
			snprintf(err, errlen, "rbd: copying the image's edges: %s", strerror(errno));
			return -EIO;
		}
		off += (uint64_t)r;
		len -= (uint64_t)r;
	}
	return 0;
}

/* Size of the image and, for the data-safety check, a sparse copy of its
 * first and last edge_len bytes.  Opened read-only: nothing is changed. */
static int rbd_engine_target_info(const struct iogap_job *job, uint64_t *size, int copy_fd,
				  size_t edge_len, char *err, size_t errlen)
{
	struct rbd_conn c;
	rbd_image_info_t info;
	int r = conn_open(job, &c, true, err, errlen);

	if (r < 0)
		return r;
	r = rbd_stat(c.image, &info, sizeof(info));
	if (r < 0) {
		snprintf(err, errlen, "rbd: image '%s/%s': rbd_stat: %s", job->rbd_pool,
			 job->rbd_name, strerror(-r));
		goto out;
	}
	if (info.size == 0) {
		snprintf(err, errlen, "rbd: image '%s/%s' has size 0", job->rbd_pool, job->rbd_name);
		r = -EINVAL;
		goto out;
	}
	*size = info.size;
	if (copy_fd >= 0) {
		size_t buflen = 1 << 20;
		char *buf = malloc(buflen);
		uint64_t head = edge_len < info.size ? edge_len : info.size;
		uint64_t tail_off = info.size - (edge_len < info.size ? edge_len : info.size);

		if (!buf) {
			r = -ENOMEM;
			goto out;
		}
		if (ftruncate(copy_fd, (off_t)info.size)) {
			snprintf(err, errlen, "rbd: sizing the copy of the image's edges: %s",
				 strerror(errno));
			r = -errno;
		} else {
			r = copy_range(c.image, copy_fd, 0, head, buf, buflen, err, errlen);
			if (!r && tail_off > head)
				r = copy_range(c.image, copy_fd, tail_off, info.size - tail_off, buf,
					       buflen, err, errlen);
			else if (!r && tail_off < head)
				r = copy_range(c.image, copy_fd, head, info.size - head, buf,
					       buflen, err, errlen);
		}
		free(buf);
	}
out:
	conn_close(&c);
	return r;
}

const struct iogap_engine_ops iogap_engine_rbd = {
	.name = "rbd",
	.flags = IOGAP_ENGINE_NO_FILE,
	.init = rbd_engine_init,
	.queue = rbd_engine_queue,
	.commit = rbd_engine_commit,
	.getevents = rbd_engine_getevents,
	.cleanup = rbd_engine_cleanup,
	.flush = rbd_engine_flush,
	.target_info = rbd_engine_target_info,
};
