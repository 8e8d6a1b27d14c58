/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "cbq.h"

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

int iogap_cbq_init(struct iogap_cbq *q, unsigned depth, bool busy_poll, const char *engine,
		   char *err, size_t errlen)
{
	memset(q, 0, sizeof(*q));
	q->busy_poll = busy_poll;
	q->ready = calloc(depth, sizeof(*q->ready));
	if (!q->ready)
		return -ENOMEM;
	q->efd = eventfd(0, EFD_CLOEXEC);
	if (q->efd < 0) {
		int r = -errno;

		snprintf(err, errlen, "%s: eventfd: %s", engine, strerror(errno));
		free(q->ready);
		return r;
	}
	pthread_spin_init(&q->lock, PTHREAD_PROCESS_PRIVATE);
	return 0;
}

void iogap_cbq_destroy(struct iogap_cbq *q)
{
	close(q->efd);
	pthread_spin_destroy(&q->lock);
	free(q->ready);
}

void iogap_cbq_push(struct iogap_cbq *q, struct iogap_io *io)
{
	pthread_spin_lock(&q->lock);
	{
		unsigned n = atomic_load_explicit(&q->nr_ready, memory_order_relaxed);

		q->ready[n] = io;
		atomic_store_explicit(&q->nr_ready, n + 1, memory_order_relaxed);
	}
	pthread_spin_unlock(&q->lock);
	atomic_thread_fence(memory_order_seq_cst);
	if (atomic_load_explicit(&q->sleeping, memory_order_relaxed)) {
		uint64_t one = 1;

		if (write(q->efd, &one, sizeof(one)) < 0)
			perror("eventfd write");
	}
}

static unsigned take_ready(struct iogap_cbq *q, unsigned max, struct iogap_io **done)
{
	unsigned n, have;

	if (!atomic_load_explicit(&q->nr_ready, memory_order_relaxed))
		return 0;
	pthread_spin_lock(&q->lock);
	have = atomic_load_explicit(&q->nr_ready, memory_order_relaxed);
	n = have < max ? have : max;
	memcpy(done, q->ready, n * sizeof(*done));
	if (n < have)
		memmove(q->ready, q->ready + n, (have - n) * sizeof(*q->ready));
	atomic_store_explicit(&q->nr_ready, have - n, memory_order_relaxed);
	pthread_spin_unlock(&q->lock);
	return n;
}

int iogap_cbq_wait(struct iogap_cbq *q, unsigned min, unsigned max, struct iogap_io **done)
{
	unsigned got = 0;

	for (;;) {
		uint64_t v;

		got += take_ready(q, max - got, done + got);
		if (got >= min || got == max)
			return (int)got;
		if (q->busy_poll) {
			cpu_relax();
			continue;
		}
		atomic_store(&q->sleeping, 1);
		atomic_thread_fence(memory_order_seq_cst);
		if (!atomic_load_explicit(&q->nr_ready, memory_order_relaxed) &&
		    read(q->efd, &v, sizeof(v)) < 0 && errno != EINTR) {
			atomic_store(&q->sleeping, 0);
			return -errno;
		}
		atomic_store(&q->sleeping, 0);
	}
}

int iogap_cbq_commit(struct iogap_cbq *q)
{
	int n = (int)q->nr_uncommitted;

	q->nr_uncommitted = 0;
	return n;
}
