/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iogap/trace.h"
#include "job.h"
#include "offload.h"
#include "util.h"

struct submitter {
	pthread_t thread;
	bool started;
	struct iogap_engine_ctx ctx;   /* the real engine's, depth 1 */
	struct pool *pool;
};

/* Requests handed over (work) and finished (done): rings of ctx->depth,
 * enough for every request slot of the job. */
struct pool {
	const struct iogap_engine_ops *real;
	pthread_mutex_t lock;
	pthread_cond_t work_cond, done_cond;
	struct iogap_io **work, **done;
	unsigned depth, work_head, work_nr, done_head, done_nr;
	unsigned uncommitted;          /* handed over since the last commit */
	bool stopping;
	struct submitter *subs;
};

/* One request through the real engine, with fio's td_io_queue's stamps. */
static void submit_one(struct submitter *s, struct iogap_io *io)
{
	const struct iogap_engine_ops *real = s->pool->real;
	struct iogap_engine_ctx *c = &s->ctx;
	bool stamp_before = c->sync || io->ddir == IOGAP_OP_TRIM;  /* as fio's sync trims */
	struct iogap_io *got;
	uint32_t slot = io->slot;
	int q = 0;

	io->slot = 0;   /* the one request of this depth-1 instance */
	if (io->file < c->nr_fds)
		c->fd = c->fds[io->file];
	if (real->prep)
		q = real->prep(c, io);
	if (stamp_before)
		io->issue_ns = iogap_now_ns();
	if (q == 0)
		q = real->queue(c, io);
	/* fio records slat only for a request its engine queued (io_u_queued) */
	io->no_slat = c->sync || q != IOGAP_Q_QUEUED;
	if (q == IOGAP_Q_QUEUED) {
		int r = real->commit ? real->commit(c) : 0;

		if (!stamp_before && !(real->flags & IOGAP_ENGINE_SETS_ISSUE))
			io->issue_ns = iogap_now_ns();
		while (r >= 0 && (r = real->getevents(c, 1, 1, &got)) == 0)
			;
		if (r < 0)
			io->result = r;
	} else if (q != IOGAP_Q_COMPLETED) {
		/* BUSY with nothing else in flight cannot make progress */
		io->result = q < 0 ? q : -EBUSY;
	}
	if (!stamp_before && q != IOGAP_Q_QUEUED)
		io->issue_ns = iogap_now_ns();
	io->complete_ns = iogap_now_ns();
	io->slot = slot;
}

static void *submitter_main(void *arg)
{
	struct submitter *s = arg;
	struct pool *p = s->pool;

	pthread_mutex_lock(&p->lock);
	for (;;) {
		struct iogap_io *io;

		while (!p->work_nr && !p->stopping)
			pthread_cond_wait(&p->work_cond, &p->lock);
		if (!p->work_nr)
			break;
		io = p->work[p->work_head];
		p->work_head = (p->work_head + 1) % p->depth;
		p->work_nr--;
		pthread_mutex_unlock(&p->lock);
		submit_one(s, io);
		pthread_mutex_lock(&p->lock);
		p->done[(p->done_head + p->done_nr++) % p->depth] = io;
		pthread_cond_signal(&p->done_cond);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

static void pool_stop(struct pool *p)
{
	pthread_mutex_lock(&p->lock);
	p->stopping = true;
	pthread_cond_broadcast(&p->work_cond);
	pthread_mutex_unlock(&p->lock);
	for (unsigned i = 0; p->subs && i < p->depth; i++)
		if (p->subs[i].started)
			pthread_join(p->subs[i].thread, NULL);
}

static void offload_cleanup(struct iogap_engine_ctx *ctx)
{
	struct pool *p = ctx->priv;

	if (!p)
		return;
	pool_stop(p);
	for (unsigned i = 0; p->subs && i < p->depth; i++)
		if (p->subs[i].ctx.priv)
			p->real->cleanup(&p->subs[i].ctx);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->work_cond);
	pthread_cond_destroy(&p->done_cond);
	free(p->subs);
	free(p->work);
	free(p->done);
	free(p);
	ctx->priv = NULL;
}

static int start_submitter(struct pool *p, struct submitter *s, const struct iogap_engine_ctx *ctx,
			   char *err, size_t errlen)
{
	int r;

	s->pool = p;
	s->ctx = *ctx;
	s->ctx.priv = NULL;
	s->ctx.depth = 1;   /* as fio's workers: iodepth=1 each */
	s->ctx.sync = p->real->flags & (IOGAP_ENGINE_SYNC | IOGAP_ENGINE_SYNC_ISSUE);
	if ((r = p->real->init(&s->ctx, err, errlen)) < 0)
		return r;
	if ((r = pthread_create(&s->thread, NULL, submitter_main, s))) {
		snprintf(err, errlen, "offload: pthread_create: %s", strerror(r));
		return -r;
	}
	s->started = true;
	return 0;
}

static int offload_init(struct iogap_engine_ctx *ctx, char *err, size_t errlen)
{
	struct pool *p = calloc(1, sizeof(*p));

	if (!p)
		return -ENOMEM;
	ctx->priv = p;
	p->real = ctx->job->engine;
	p->depth = ctx->depth;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->work_cond, NULL);
	pthread_cond_init(&p->done_cond, NULL);
	p->subs = calloc(p->depth, sizeof(*p->subs));
	p->work = calloc(p->depth, sizeof(*p->work));
	p->done = calloc(p->depth, sizeof(*p->done));
	if (!p->subs || !p->work || !p->done) {
		offload_cleanup(ctx);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < p->depth; i++) {
		int r = start_submitter(p, &p->subs[i], ctx, err, errlen);

		if (r < 0) {
			offload_cleanup(ctx);
			return r;
		}
	}
	ctx->sync = false;
	return 0;
}

static int offload_queue(struct iogap_engine_ctx *ctx, struct iogap_io *io)
{
	struct pool *p = ctx->priv;

	pthread_mutex_lock(&p->lock);
	p->work[(p->work_head + p->work_nr++) % p->depth] = io;
	pthread_cond_signal(&p->work_cond);
	pthread_mutex_unlock(&p->lock);
	p->uncommitted++;
	return IOGAP_Q_QUEUED;
}

/* Each request went to the submitters when queued: only the count. */
static int offload_commit(struct iogap_engine_ctx *ctx)
{
	struct pool *p = ctx->priv;
	int n = (int)p->uncommitted;

	p->uncommitted = 0;
	return n;
}

static int offload_getevents(struct iogap_engine_ctx *ctx, unsigned min, unsigned max,
			     struct iogap_io **done)
{
	struct pool *p = ctx->priv;
	unsigned n;

	pthread_mutex_lock(&p->lock);
	while (p->done_nr < min)
		pthread_cond_wait(&p->done_cond, &p->lock);
	n = p->done_nr < max ? p->done_nr : max;
	for (unsigned i = 0; i < n; i++) {
		done[i] = p->done[p->done_head];
		p->done_head = (p->done_head + 1) % p->depth;
	}
	p->done_nr -= n;
	pthread_mutex_unlock(&p->lock);
	return (int)n;
}

/* The runner drains before it syncs: submitter 0 is idle. */
static int offload_flush(struct iogap_engine_ctx *ctx)
{
	struct pool *p = ctx->priv;
	struct iogap_engine_ctx *c = &p->subs[0].ctx;

	c->fd = ctx->fd;
	return p->real->flush(c);
}

static const struct iogap_engine_ops offload = {
	.name = "offload",
	.flags = IOGAP_ENGINE_SETS_ISSUE,
	.init = offload_init,
	.queue = offload_queue,
	.commit = offload_commit,
	.getevents = offload_getevents,
	.cleanup = offload_cleanup,
};

/* for real engines with a flush of their own (rbd) */
static const struct iogap_engine_ops offload_flushing = {
	.name = "offload",
	.flags = IOGAP_ENGINE_SETS_ISSUE,
	.init = offload_init,
	.queue = offload_queue,
	.commit = offload_commit,
	.getevents = offload_getevents,
	.cleanup = offload_cleanup,
	.flush = offload_flush,
};

const struct iogap_engine_ops *iogap_offload_engine(const struct iogap_engine_ops *real)
{
	return real->flush ? &offload_flushing : &offload;
}
