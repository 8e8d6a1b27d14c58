/* SPDX-License-Identifier: MIT */
/*
 * io_uring through liburing: queue() fills SQEs, commit() submits them in
 * one io_uring_enter, getevents() reaps CQEs in batches (one head update per
 * batch, one wait for the missing ones: fio's cqring_reap, t/io_uring's
 * reap).  Trims run synchronously.
 *
 * fio's options: hipri (IORING_SETUP_IOPOLL), sqthread_poll and
 * sqthread_poll_cpu (IORING_SETUP_SQPOLL, SQ_AFF; they imply registerfiles,
 * as in fio), registerfiles (the worker's files registered, a request names its
 * file's index with IOSQE_FIXED_FILE),
 * fixedbufs (the request buffers registered, READ_FIXED/WRITE_FIXED with the
 * slot as buffer index), nonvectored (0: READV/WRITEV of one iovec; -1, the
 * default: READ/WRITE where the kernel has them, as fio's probe).
 *
 * io_uring_cmd (cmd_type=nvme, fio's only one) is the same ring with
 * 128-byte SQEs and 32-byte CQEs carrying NVMe read/write commands
 * (IORING_OP_URING_CMD, nvme.c) to NVMe generic character devices; a
 * command succeeds with res 0.  There nonvectored=-1 (the default) means
 * NVME_URING_CMD_IO and 0 NVME_URING_CMD_IO_VEC, as in fio; fixedbufs sets
 * IORING_URING_CMD_FIXED.
 */
#include <errno.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "job.h"
#include "iogap/trace.h"
#include "nvme.h"

struct uring_state {
	struct io_uring ring;
	struct iogap_io **pending;   /* queued, not yet submitted */
	unsigned nr_pending;
	struct iovec *iov;           /* per slot: READV/WRITEV's vector, or the
				      * registered buffer (fixedbufs) */
	unsigned char sqe_flags;     /* IOSQE_FIXED_FILE with registerfiles */
	int rw_flags;                /* RWF_NOWAIT, RWF_UNCACHED */
	unsigned force_async, prepped;  /* IOSQE_ASYNC on every force_async-th */
	bool fixed, vectored, sqpoll;
	struct iogap_nvme_ns *ns;    /* io_uring_cmd: each file's namespace */
};

/* The flags fio asks for beyond the job's, dropped one by one (the first
 * two together) where the kernel refuses them, as fio: a CQ ring of the
 * SQ's size, cooperative task work, and completions run only when the one
 * submitting thread enters the ring (not with SQPOLL). */
static const unsigned fio_ring_flags[] = {
	IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
	IORING_SETUP_COOP_TASKRUN,
	IORING_SETUP_CQSIZE,
};

/* The job's ring options, and fio's own flags where the kernel has them. */
static int ring_setup(struct uring_state *s, const struct iogap_job *j, unsigned depth)
{
	struct io_uring_params p;
	unsigned extra = 0;
	int r;

	memset(&p, 0, sizeof(p));
	if (j->hipri)
		p.flags |= IORING_SETUP_IOPOLL;
	if (j->sqthread_poll)
		p.flags |= IORING_SETUP_SQPOLL;
	if (j->sqthread_poll && j->sqthread_poll_cpu >= 0) {
		p.flags |= IORING_SETUP_SQ_AFF;
		p.sq_thread_cpu = (unsigned)j->sqthread_poll_cpu;
	}
	if (s->ns)   /* room for an NVMe command and its completion */
		p.flags |= IORING_SETUP_SQE128 | IORING_SETUP_CQE32;
	s->sqpoll = j->sqthread_poll;
	for (size_t i = 0; i < sizeof(fio_ring_flags) / sizeof(fio_ring_flags[0]); i++)
		extra |= fio_ring_flags[i];
	for (size_t i = 0;; i++) {
		struct io_uring_params q = p;

		q.flags |= extra;
		q.cq_entries = depth;
		r = io_uring_queue_init_params(depth, &s->ring, &q);
		if (r != -EINVAL || i == sizeof(fio_ring_flags) / sizeof(fio_ring_flags[0]))
			return r;
		extra &= ~fio_ring_flags[i];
	}
}

/* fio's nonvectored=-1: READ/WRITE if the kernel has both, else vectored. */
static bool has_plain_rw(struct io_uring *ring)
{
	struct io_uring_probe *p = io_uring_get_probe_ring(ring);
	bool yes = p && io_uring_opcode_supported(p, IORING_OP_READ) &&
		   io_uring_opcode_supported(p, IORING_OP_WRITE);

	if (p)
		io_uring_free_probe(p);
	return yes;
}

/* registerfiles and fixedbufs; 0 or -errno with the step in err. */
static int ring_register(struct uring_state *s, struct iogap_engine_ctx *ctx, char *err,
			 size_t errlen)
{
	const struct iogap_job *j = ctx->job;
	int r;

	s->rw_flags = iogap_engine_rw_flags(j);
	s->force_async = j->force_async;
	if (j->registerfiles || j->sqthread_poll) {
		r = io_uring_register_files(&s->ring, ctx->fds, ctx->nr_fds);
		if (r < 0) {
			snprintf(err, errlen, "io_uring: registering %u file(s) (registerfiles): %s",
				 ctx->nr_fds, strerror(-r));
			return r;
		}
		s->sqe_flags = IOSQE_FIXED_FILE;
	}
	if (j->fixedbufs) {
		for (unsigned i = 0; i < ctx->depth; i++)
			s->iov[i] = (struct iovec){ (char *)ctx->bufmem + i * ctx->buf_size,
						    ctx->buf_size };
		r = io_uring_register_buffers(&s->ring, s->iov, ctx->depth);
		if (r < 0) {
			snprintf(err, errlen, "io_uring: registering %u buffers of %zu bytes "
				 "(fixedbufs): %s", ctx->depth, ctx->buf_size, strerror(-r));
			return r;
		}
		s->fixed = true;
	}
	if (s->ns)
		s->vectored = j->nonvectored == 0;
	else
		s->vectored = !j->fixedbufs && (j->nonvectored == 0 ||
						(j->nonvectored == -1 && !has_plain_rw(&s->ring)));
	return 0;
}

static void state_free(struct uring_state *s)
{
	free(s->pending);
	free(s->iov);
	free(s->ns);
	free(s);
}

/* Every request of j in whole LBAs of lba bytes. */
static bool in_whole_lbas(const struct iogap_job *j, uint32_t lba)
{
	for (int d = 0; d < IOGAP_DDIR_NR; d++)
		if (j->rw & (1u << d) && (j->bs_min[d] % lba || j->bs_max[d] % lba))
			return false;
	return j->offset % lba == 0;
}

/* io_uring_cmd: each file's namespace. */
static int nvme_setup(struct uring_state *s, struct iogap_engine_ctx *ctx, char *err,
		      size_t errlen)
{
	const struct iogap_job *j = ctx->job;

	s->ns = calloc(ctx->nr_fds, sizeof(*s->ns));
	if (!s->ns)
		return -ENOMEM;
	for (unsigned k = 0; k < ctx->nr_fds; k++) {
		const char *path = iogap_job_file(j, ctx->clone, k);
		int r = iogap_nvme_ns_info(ctx->fds[k], path, &s->ns[k], err, errlen);

		if (r < 0)
			return r;
		if (!in_whole_lbas(j, 1u << s->ns[k].lba_shift)) {
			snprintf(err, errlen, "io_uring_cmd: %s: block sizes and offset must be "
				 "multiples of the namespace's %u-byte LBAs", path,
				 1u << s->ns[k].lba_shift);
			return -EINVAL;
		}
	}
	return 0;
}

static int uring_init(struct iogap_engine_ctx *ctx, char *err, size_t errlen)
{
	struct uring_state *s = calloc(1, sizeof(*s));
	int r;

	if (!s)
		return -ENOMEM;
	s->pending = calloc(ctx->depth, sizeof(*s->pending));
	s->iov = calloc(ctx->depth, sizeof(*s->iov));
	if (!s->pending || !s->iov) {
		state_free(s);
		return -ENOMEM;
	}
	if (ctx->job->engine == &iogap_engine_io_uring_cmd &&
	    (r = nvme_setup(s, ctx, err, errlen)) < 0) {
		state_free(s);
		return r;
	}
	r = ring_setup(s, ctx->job, ctx->depth);
	if (r < 0) {
		snprintf(err, errlen, "io_uring: io_uring_queue_init(%u%s%s): %s", ctx->depth,
			 ctx->job->hipri ? ", hipri" : "",
			 ctx->job->sqthread_poll ? ", sqthread_poll" : "", strerror(-r));
		state_free(s);
		return r;
	}
	r = ring_register(s, ctx, err, errlen);
	if (r < 0) {
		io_uring_queue_exit(&s->ring);
		state_free(s);
		return r;
	}
	ctx->priv = s;
	return 0;
}

static void prep_rw(struct uring_state *s, struct io_uring_sqe *sqe, struct iogap_io *io, int fd)
{
	bool rd = io->ddir == IOGAP_OP_READ;

	if (s->fixed) {
		if (rd)
			io_uring_prep_read_fixed(sqe, fd, io->buf, io->len, io->offset, (int)io->slot);
		else
			io_uring_prep_write_fixed(sqe, fd, io->buf, io->len, io->offset, (int)io->slot);
	} else if (s->vectored) {
		struct iovec *v = &s->iov[io->slot];

		*v = (struct iovec){ io->buf, io->len };
		if (rd)
			io_uring_prep_readv(sqe, fd, v, 1, io->offset);
		else
			io_uring_prep_writev(sqe, fd, v, 1, io->offset);
	} else if (rd) {
		io_uring_prep_read(sqe, fd, io->buf, io->len, io->offset);
	} else {
		io_uring_prep_write(sqe, fd, io->buf, io->len, io->offset);
	}
	sqe->flags |= s->sqe_flags;
	sqe->rw_flags = s->rw_flags;
	if (s->force_async && ++s->prepped == s->force_async) {
		s->prepped = 0;
		sqe->flags |= IOSQE_ASYNC;
	}
	sqe->ioprio = io->ioprio;   /* cmdprio (prio.c); 0: the job's */
	io_uring_sqe_set_data(sqe, io);
}

/* An NVMe read or write command (cmd, built) in a 128-byte SQE. */
static void prep_nvme(struct uring_state *s, struct io_uring_sqe *sqe, struct iogap_io *io,
		      int fd, const struct nvme_uring_cmd *cmd)
{
	memset(sqe, 0, 2 * sizeof(*sqe));
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = fd;
	sqe->cmd_op = s->vectored ? NVME_URING_CMD_IO_VEC : NVME_URING_CMD_IO;
	if (s->fixed) {
		sqe->uring_cmd_flags = IORING_URING_CMD_FIXED;
		sqe->buf_index = (uint16_t)io->slot;
	}
	memcpy(sqe->cmd, cmd, sizeof(*cmd));
	sqe->flags = s->sqe_flags;
	io_uring_sqe_set_data(sqe, io);
}

static int uring_queue(struct iogap_engine_ctx *ctx, struct iogap_io *io)
{
	struct uring_state *s = ctx->priv;
	struct io_uring_sqe *sqe;
	struct nvme_uring_cmd cmd;
	int r;

	if (io->ddir == IOGAP_OP_TRIM) {
		if (s->nr_pending)
			return IOGAP_Q_BUSY;
		r = iogap_engine_sync_trim(ctx->fd, io->offset, io->len);
		io->result = r ? r : (int64_t)io->len;
		return IOGAP_Q_COMPLETED;
	}
	if (s->ns) {
		r = iogap_nvme_rw_cmd(&cmd, &s->ns[io->file], io,
				      s->vectored ? &s->iov[io->slot] : NULL);
		if (r < 0) {
			io->result = r;
			return IOGAP_Q_COMPLETED;
		}
	}
	sqe = io_uring_get_sqe(&s->ring);
	/* SQPOLL: the kernel thread may post a request's completion before it
	 * marks the request's SQE consumed; wait for that, not for completions */
	if (!sqe && s->sqpoll && !s->nr_pending && io_uring_sqring_wait(&s->ring) >= 0)
		sqe = io_uring_get_sqe(&s->ring);
	if (!sqe)
		return IOGAP_Q_BUSY;
	if (s->ns)
		prep_nvme(s, sqe, io, s->sqe_flags ? (int)io->file : ctx->fd, &cmd);
	else
		prep_rw(s, sqe, io, s->sqe_flags ? (int)io->file : ctx->fd);   /* registered: its index */
	s->pending[s->nr_pending++] = io;
	return IOGAP_Q_QUEUED;
}

/* fio's fio_ioring_commit: one io_uring_enter for what is queued, asking
 * for completions too (the deferred ones are posted then); with SQPOLL the
 * SQ tail moved, and a system call only to wake the thread up. */
static int uring_commit(struct iogap_engine_ctx *ctx)
{
	struct uring_state *s = ctx->priv;
	uint64_t now;
	int r;

	if (!s->nr_pending)
		return 0;
	do {
		r = s->sqpoll ? io_uring_submit(&s->ring) : io_uring_submit_and_get_events(&s->ring);
	} while (r == -EINTR);
	if (r == -EAGAIN || r == -EBUSY)
		return 0;
	if (r < 0)
		return r;
	/* SQPOLL: every SQE is in the kernel's ring now, for its thread to take
	 * (the count returned is of those it has not taken yet) */
	if (s->sqpoll)
		r = (int)s->nr_pending;
	now = ctx->now_ns();
	/* io_uring consumes SQEs in order: the first r are submitted */
	for (int i = 0; i < r && (unsigned)i < s->nr_pending; i++)
		s->pending[i]->issue_ns = now;
	if ((unsigned)r < s->nr_pending)
		memmove(s->pending, s->pending + r, (s->nr_pending - (unsigned)r) * sizeof(*s->pending));
	s->nr_pending -= (unsigned)r < s->nr_pending ? (unsigned)r : s->nr_pending;
	return r;
}

/* Take what the completion ring holds (at most max), in one batch: read
 * in place, the ring's head moved once. */
static unsigned reap_batch(struct uring_state *s, unsigned max, struct iogap_io **done)
{
	struct io_uring_cqe *cqe;
	unsigned head, n = 0;

	io_uring_for_each_cqe(&s->ring, head, cqe) {
		int res = cqe->res;

		if (n == max)
			break;
		done[n] = io_uring_cqe_get_data(cqe);
		/* a passthrough command: 0 done, an NVMe status (> 0) failed */
		if (s->ns)
			res = res == 0 ? (int)done[n]->len : res < 0 ? res : -EIO;
		done[n++]->result = res;
	}
	io_uring_cq_advance(&s->ring, n);
	return n;
}

/*
 * fio's fio_ioring_getevents: what the ring holds (max at most), then one
 * io_uring_enter waiting for the rest of min, until min have come.  With
 * iodepth_batch_complete_min=0 the enter waits for none; with SQPOLL the
 * kernel's thread posts completions and fio spins on the ring.
 */
static int uring_getevents(struct iogap_engine_ctx *ctx, unsigned min, unsigned max,
			   struct iogap_io **done)
{
	struct uring_state *s = ctx->priv;
	unsigned wait_nr = ctx->job->iodepth_batch_complete_min ? min : 0;
	unsigned n = 0;

	if (max > ctx->depth)
		max = ctx->depth;
	for (;;) {
		int r;

		n += reap_batch(s, max - n, done + n);
		if (n >= min || n == max)
			return (int)n;
		if (s->sqpoll)
			continue;
		r = io_uring_enter(s->ring.ring_fd, 0, wait_nr > n ? wait_nr - n : 0,
				   IORING_ENTER_GETEVENTS, NULL);
		if (r < 0 && r != -EINTR && r != -EAGAIN)
			return r;
	}
}

static void uring_cleanup(struct iogap_engine_ctx *ctx)
{
	struct uring_state *s = ctx->priv;

	if (!s)
		return;
	io_uring_queue_exit(&s->ring);
	state_free(s);
	ctx->priv = NULL;
}

/* io_uring_cmd's files are namespaces: their size is the identify's
 * (fio's fio_ioring_cmd_get_file_size), a non-NVMe file refused. */
static int uring_cmd_file_size(const char *path, uint64_t *size, char *err, size_t errlen)
{
	struct iogap_nvme_ns ns;
	int r = iogap_nvme_path_info(path, &ns, err, errlen);

	if (r == 0)
		*size = ns.nlba << ns.lba_shift;
	return r;
}

const struct iogap_engine_ops iogap_engine_io_uring = {
	.name = "io_uring",
	.flags = IOGAP_ENGINE_SETS_ISSUE,
	.init = uring_init,
	.queue = uring_queue,
	.commit = uring_commit,
	.getevents = uring_getevents,
	.cleanup = uring_cleanup,
};

const struct iogap_engine_ops iogap_engine_io_uring_cmd = {
	.name = "io_uring_cmd",
	.flags = IOGAP_ENGINE_SETS_ISSUE,
	.init = uring_init,
	.queue = uring_queue,
	.commit = uring_commit,
	.getevents = uring_getevents,
	.cleanup = uring_cleanup,
	.file_size = uring_cmd_file_size,
};
