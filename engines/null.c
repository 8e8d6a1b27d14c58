/* SPDX-License-Identifier: MIT */
/*
 * null: no I/O at all, for measuring the runner itself (fio's null
 * engine).  With iodepth > 1 requests are queued and completed on the next
 * getevents, like fio's.  With job->null_latency_ns each request completes
 * that long after submission (a timer sleep, as QEMU's null-co latency-ns),
 * so a null: target is comparable between the VM and bare metal.
 */
#include <errno.h>
#include <stdlib.h>

#include "util.h"
#include "engine.h"
#include "iogap/trace.h"
#include "job.h"

struct null_state {
	struct iogap_io **queued;
	unsigned nr_queued;       /* queued, not committed */
	unsigned nr_inflight;     /* committed, not reaped */
};

static int null_init(struct iogap_engine_ctx *ctx, char *err, size_t errlen)
{
	struct null_state *s = calloc(1, sizeof(*s));

	(void)err;
	(void)errlen;
	if (!s)
		return -ENOMEM;
	s->queued = calloc(ctx->depth, sizeof(*s->queued));
	if (!s->queued) {
		free(s);
		return -ENOMEM;
	}
	ctx->priv = s;
	/* as fio's null engine: a sync engine at iodepth 1 */
	ctx->sync = ctx->depth == 1;
	return 0;
}

static int null_queue(struct iogap_engine_ctx *ctx, struct iogap_io *io)
{
	struct null_state *s = ctx->priv;

	io->result = io->len;
	if (ctx->depth == 1) {
		if (ctx->job->null_latency_ns)
			iogap_sleep_until_ns(ctx->now_ns() + ctx->job->null_latency_ns);
		return IOGAP_Q_COMPLETED;
	}
	if (s->nr_queued + s->nr_inflight == ctx->depth)
		return IOGAP_Q_BUSY;
	s->queued[s->nr_queued + s->nr_inflight] = io;
	s->nr_queued++;
	return IOGAP_Q_QUEUED;
}

static int null_commit(struct iogap_engine_ctx *ctx)
{
	struct null_state *s = ctx->priv;
	unsigned n = s->nr_queued;
	uint64_t now = ctx->now_ns();

	for (unsigned i = 0; i < n; i++)
		s->queued[s->nr_inflight + i]->issue_ns = now;
	s->nr_inflight += n;
	s->nr_queued = 0;
	return (int)n;
}

static int null_getevents(struct iogap_engine_ctx *ctx, unsigned min, unsigned max,
			  struct iogap_io **done)
{
	struct null_state *s = ctx->priv;
	uint64_t lat = ctx->job->null_latency_ns;
	unsigned n = s->nr_inflight < max ? s->nr_inflight : max;

	if (lat && n) {
		/* in flight in submission order: the oldest is due first */
		unsigned due = 0;
		uint64_t now = ctx->now_ns();

		if (min < 1)
			min = 1;
		if (min > n)
			min = n;
		if (s->queued[min - 1]->issue_ns + lat > now) {
			iogap_sleep_until_ns(s->queued[min - 1]->issue_ns + lat);
			now = ctx->now_ns();
		}
		while (due < n && s->queued[due]->issue_ns + lat <= now)
			due++;
		n = due;
	}
	for (unsigned i = 0; i < n; i++)
		done[i] = s->queued[i];
	/* keep the rest (and anything queued behind them) at the front */
	for (unsigned i = n; i < s->nr_inflight + s->nr_queued; i++)
		s->queued[i - n] = s->queued[i];
	s->nr_inflight -= n;
	return (int)n;
}

static void null_cleanup(struct iogap_engine_ctx *ctx)
{
	struct null_state *s = ctx->priv;

	if (!s)
		return;
	free(s->queued);
	free(s);
	ctx->priv = NULL;
}

const struct iogap_engine_ops iogap_engine_null = {
	.name = "null",
	.flags = IOGAP_ENGINE_NO_FILE | IOGAP_ENGINE_SETS_ISSUE,
	.init = null_init,
	.queue = null_queue,
	.commit = null_commit,
	.getevents = null_getevents,
	.cleanup = null_cleanup,
};
