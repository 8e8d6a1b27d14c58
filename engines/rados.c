/* SPDX-License-Identifier: MIT */
/*
 * rados: Ceph RADOS objects through librados' asynchronous API, with fio's
 * rados engine options and behaviour (engines/rados.c in fio 3.33):
 *
 *  - each of the job's files is an object of the pool, named as fio names
 *    files (filename=, else "jobname.jobnum.filenum"); its size is the
 *    job's size / nrfiles.
 *  - touch_objects (default 1) creates every object (a zero-length write)
 *    when the worker starts; the objects are removed when it ends, as fio
 *    removes them.
 *  - reads and writes are rados_aio_read/rados_aio_write at the offset; a
 *    trim zeroes the range (a write op with rados_write_op_zero).
 *  - a read past an object's end counts as whole, as in fio (librados
 *    returns the bytes that exist); an error, which fio ignores, fails
 *    the request.
 *  - fsync and end_fsync are no-ops: a write completes once the OSDs
 *    committed it (fio's rados fails them).
 *  - an object that exists before the run is refused (the data-safety
 *    check, --allow-destroy-data overrides): it would be removed.
 *
 * Connection (clientname, clustername, conf/ceph_conf, pool): ceph.c;
 * completions on librados' callback thread: cbq.c (busy_poll).
 */
#include <errno.h>
#include <rados/librados.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cbq.h"
#include "ceph.h"
#include "engine.h"
#include "iogap/trace.h"
#include "job.h"

struct rados_state;
struct rados_req {
	struct rados_state *s;
	struct iogap_io *io;
	rados_write_op_t zero_op;    /* a trim's, released on completion */
};

struct rados_state {
	rados_t cluster;
	rados_ioctx_t ioctx;
	const char **objects;        /* by io->file */
	unsigned nr_objects;
	struct rados_req *reqs;      /* by slot */
	struct iogap_cbq done;
};

static void remove_objects(struct rados_state *s, unsigned n)
{
	for (unsigned k = 0; k < n; k++)
		rados_remove(s->ioctx, s->objects[k]);
}

/* fio's touch_objects: every object exists (empty) before the first I/O. */
static int touch_objects(struct rados_state *s, char *err, size_t errlen)
{
	for (unsigned k = 0; k < s->nr_objects; k++) {
		int r = rados_write(s->ioctx, s->objects[k], "", 0, 0);

		if (r < 0) {
			snprintf(err, errlen, "rados: creating object '%s' (touch_objects): %s",
				 s->objects[k], strerror(-r));
			remove_objects(s, k);
			return r;
		}
	}
	return 0;
}

static void state_free(struct rados_state *s)
{
	iogap_ceph_disconnect(s->cluster, s->ioctx);
	free(s->objects);
	free(s->reqs);
	free(s);
}

static int rados_engine_init(struct iogap_engine_ctx *ctx, char *err, size_t errlen)
{
	const struct iogap_job *j = ctx->job;
	struct rados_state *s = calloc(1, sizeof(*s));
	int r;

	if (!s)
		return -ENOMEM;
	s->nr_objects = ctx->nr_fds;
	s->objects = calloc(s->nr_objects, sizeof(*s->objects));
	s->reqs = calloc(ctx->depth, sizeof(*s->reqs));
	if (!s->objects || !s->reqs) {
		state_free(s);
		return -ENOMEM;
	}
	for (unsigned k = 0; k < s->nr_objects; k++)
		s->objects[k] = iogap_job_file(j, ctx->clone, k);
	r = iogap_cbq_init(&s->done, ctx->depth, j->rbd_busy_poll, "rados", err, errlen);
	if (r < 0) {
		state_free(s);
		return r;
	}
	r = iogap_ceph_connect(j, "rados", &s->cluster, &s->ioctx, err, errlen);
	if (!r && j->rados_touch_objects)
		r = touch_objects(s, err, errlen);
	if (r < 0) {
		iogap_cbq_destroy(&s->done);
		state_free(s);
		return r;
	}
	ctx->priv = s;
	return 0;
}

/* librados' callback thread. */
static void rados_done(rados_completion_t c, void *arg)
{
	struct rados_req *req = arg;
	int r = rados_aio_get_return_value(c);

	req->io->result = r < 0 ? (int64_t)r : (int64_t)req->io->len;
	rados_aio_release(c);
	if (req->zero_op) {
		rados_release_write_op(req->zero_op);
		req->zero_op = NULL;
	}
	iogap_cbq_push(&req->s->done, req->io);
}

/* A trim: the range reads back as zeroes (fio's rados_write_op_zero). */
static int queue_zero(struct rados_state *s, struct rados_req *req, const char *oid,
		      rados_completion_t c)
{
	int r;

	req->zero_op = rados_create_write_op();
	if (!req->zero_op)
		return -ENOMEM;
	rados_write_op_zero(req->zero_op, req->io->offset, req->io->len);
	r = rados_aio_write_op_operate(req->zero_op, s->ioctx, c, oid, NULL, 0);
	if (r < 0) {
		rados_release_write_op(req->zero_op);
		req->zero_op = NULL;
	}
	return r;
}

static int rados_engine_queue(struct iogap_engine_ctx *ctx, struct iogap_io *io)
{
	struct rados_state *s = ctx->priv;
	struct rados_req *req = &s->reqs[io->slot];
	const char *oid = s->objects[io->file];
	rados_completion_t c;
	int r;

	req->s = s;
	req->io = io;
	r = rados_aio_create_completion2(req, rados_done, &c);
	if (r < 0)
		return r;
	switch (io->ddir) {
	case IOGAP_OP_READ:
		r = rados_aio_read(s->ioctx, oid, c, io->buf, io->len, io->offset);
		break;
	case IOGAP_OP_WRITE:
		r = rados_aio_write(s->ioctx, oid, c, io->buf, io->len, io->offset);
		break;
	case IOGAP_OP_TRIM:
		r = queue_zero(s, req, oid, c);
		break;
	default:
		r = -EINVAL;
		break;
	}
	if (r < 0) {
		rados_aio_release(c);
		return r;
	}
	s->done.nr_uncommitted++;
	return IOGAP_Q_QUEUED;
}

static int rados_engine_commit(struct iogap_engine_ctx *ctx)
{
	struct rados_state *s = ctx->priv;

	return iogap_cbq_commit(&s->done);
}

static int rados_engine_getevents(struct iogap_engine_ctx *ctx, unsigned min, unsigned max,
				  struct iogap_io **done)
{
	struct rados_state *s = ctx->priv;

	return iogap_cbq_wait(&s->done, min, max, done);
}

static int rados_engine_flush(struct iogap_engine_ctx *ctx)
{
	(void)ctx;
	return 0;
}

static void rados_engine_cleanup(struct iogap_engine_ctx *ctx)
{
	struct rados_state *s = ctx->priv;

	if (!s)
		return;
	/* the runner drained every request */
	remove_objects(s, s->nr_objects);
	iogap_cbq_destroy(&s->done);
	state_free(s);
	ctx->priv = NULL;
}

/* The job's object must not exist yet: the engine writes it and removes
 * it when done (fio's rados does both without asking). */
static int rados_engine_holds_data(const struct iogap_job *j, char *why, size_t whylen)
{
	rados_t cluster;
	rados_ioctx_t ioctx;
	uint64_t size;
	time_t mtime;
	int r = iogap_ceph_connect(j, "rados", &cluster, &ioctx, why, whylen);

	if (r < 0)
		return r;
	r = rados_stat(ioctx, j->filename, &size, &mtime);
	if (r == 0) {
		snprintf(why, whylen, "object '%s' exists in pool '%s' (%llu bytes), and the rados "
			 "engine removes its objects when done", j->filename, j->rbd_pool,
			 (unsigned long long)size);
		r = 1;
	} else if (r == -ENOENT) {
		r = 0;
	} else {
		snprintf(why, whylen, "rados: stat of object '%s': %s", j->filename, strerror(-r));
	}
	iogap_ceph_disconnect(cluster, ioctx);
	return r;
}

const struct iogap_engine_ops iogap_engine_rados = {
	.name = "rados",
	.flags = IOGAP_ENGINE_NO_FILE,
	.init = rados_engine_init,
	.queue = rados_engine_queue,
	.commit = rados_engine_commit,
	.getevents = rados_engine_getevents,
	.cleanup = rados_engine_cleanup,
	.flush = rados_engine_flush,
	.holds_data = rados_engine_holds_data,
};
