/* SPDX-License-Identifier: MIT */
/*
 * mmap: the target mapped shared, requests are memcpy to or from the
 * mapping, completed inline (fio's mmap engine).  As fio: the mapping is
 * advised after the access pattern and its pages dropped first, a flush is
 * msync(MS_SYNC), and with direct=1 each request is msync'ed and its pages
 * dropped ("not really direct, but should drop the pages from the cache").
 */
#include <errno.h>
#include <linux/fs.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine.h"
#include "iogap/trace.h"
#include "job.h"
#include "util.h"

struct mmap_one {                 /* one file's mapping */
	int fd;
	char *map;
	size_t len;
};

struct mmap_state {
	struct mmap_one *m;       /* a job's files, mapped as they come */
	unsigned nr;
};

static int target_size(int fd, uint64_t *size)
{
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	if (S_ISBLK(st.st_mode))
		return ioctl(fd, BLKGETSIZE64, size) ? -errno : 0;
	*size = (uint64_t)st.st_size;
	return 0;
}

/* ctx->fd's mapping, made at its first request (fio maps each file as it
 * opens it); NULL with *r = -errno when it cannot be. */
static struct mmap_one *mapping(struct iogap_engine_ctx *ctx, int *r)
{
	const struct iogap_job *j = ctx->job;
	struct mmap_state *s = ctx->priv;
	struct mmap_one *m;
	int prot = PROT_READ;
	uint64_t size;

	for (unsigned i = 0; i < s->nr; i++)
		if (s->m[i].fd == ctx->fd)
			return &s->m[i];
	if ((*r = target_size(ctx->fd, &size)) < 0)
		return NULL;
	m = realloc(s->m, (s->nr + 1) * sizeof(*m));
	if (!m) {
		*r = -ENOMEM;
		return NULL;
	}
	s->m = m;
	if (j->rw & (IOGAP_RW_WRITE | IOGAP_RW_TRIM))
		prot |= PROT_WRITE;
	m = &s->m[s->nr];
	m->fd = ctx->fd;
	m->len = (size_t)size;
	m->map = mmap(NULL, m->len, prot, MAP_SHARED, ctx->fd, 0);
	if (m->map == MAP_FAILED) {
		*r = -errno;
		return NULL;
	}
	s->nr++;
	posix_madvise(m->map, m->len, j->rw & IOGAP_RW_RAND ? POSIX_MADV_RANDOM :
		      POSIX_MADV_SEQUENTIAL);
	posix_madvise(m->map, m->len, POSIX_MADV_DONTNEED);
	if (j->thp)   /* fio ignores the answer too: a hint */
		madvise(m->map, m->len, MADV_HUGEPAGE);
	return m;
}

static int mmap_init(struct iogap_engine_ctx *ctx, char *err, size_t errlen)
{
	struct mmap_state *s = calloc(1, sizeof(*s));
	int r = 0;

	if (!s)
		return -ENOMEM;
	ctx->priv = s;
	if (!mapping(ctx, &r))   /* the first file now: its errors before the run */
		return iogap_seterr(err, errlen, "mmap of the target: %s", strerror(-r)), r;
	return 0;
}

/* direct=1: write back and drop the pages under [at, at+len); 0 or -errno */
static int drop_pages(char *at, size_t len)
{
	uintptr_t mask = (uintptr_t)sysconf(_SC_PAGESIZE) - 1;
	char *page = (char *)((uintptr_t)at & ~mask);
	size_t span = (size_t)(at + len - page);
	int r;

	if (msync(page, span, MS_SYNC))
		return -errno;
	r = posix_madvise(page, span, POSIX_MADV_DONTNEED);
	return -r;
}

static int mmap_queue(struct iogap_engine_ctx *ctx, struct iogap_io *io)
{
	int r = 0;
	struct mmap_one *m = mapping(ctx, &r);
	char *at;

	if (!m) {
		io->result = r;
		return IOGAP_Q_COMPLETED;
	}
	at = m->map + io->offset;
	if (io->offset + io->len > m->len) {   /* fio's FIO_NOEXTEND */
		io->result = -EINVAL;
		return IOGAP_Q_COMPLETED;
	}
	switch (io->ddir) {
	case IOGAP_OP_READ:
		memcpy(io->buf, at, io->len);
		break;
	case IOGAP_OP_WRITE:
		memcpy(at, io->buf, io->len);
		break;
	case IOGAP_OP_TRIM:
		iogap_engine_trim_io(ctx->fd, io);
		return IOGAP_Q_COMPLETED;
	default:
		io->result = -EINVAL;
		return IOGAP_Q_COMPLETED;
	}
	io->result = io->len;
	if (ctx->job->direct)
		io->result = drop_pages(at, io->len) ?: (int64_t)io->len;
	return IOGAP_Q_COMPLETED;
}

static int mmap_flush(struct iogap_engine_ctx *ctx)
{
	int r = 0;
	struct mmap_one *m = mapping(ctx, &r);

	return !m ? r : msync(m->map, m->len, MS_SYNC) ? -errno : 0;
}

static void mmap_cleanup(struct iogap_engine_ctx *ctx)
{
	struct mmap_state *s = ctx->priv;

	if (!s)
		return;
	for (unsigned i = 0; i < s->nr; i++)
		munmap(s->m[i].map, s->m[i].len);
	free(s->m);
	free(s);
	ctx->priv = NULL;
}

const struct iogap_engine_ops iogap_engine_mmap = {
	.name = "mmap",
	.flags = IOGAP_ENGINE_SYNC,
	.init = mmap_init,
	.queue = mmap_queue,
	.flush = mmap_flush,
	.cleanup = mmap_cleanup,
};
