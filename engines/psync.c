/* SPDX-License-Identifier: MIT */
/* psync: pread/pwrite, one request at a time, completed inline. */
#include <errno.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "engine.h"
#include "iogap/trace.h"

static int psync_init(struct iogap_engine_ctx *ctx, char *err, size_t errlen)
{
	(void)ctx;
	(void)err;
	(void)errlen;
	return 0;
}

/*
 * The system calls themselves where the offset is one register: glibc's
 * pread and pwrite are cancellation points, and in a process with several
 * threads each call turns asynchronous cancellation on and off around the
 * system call (two atomic compare-and-swaps per request).  Job threads are
 * never cancelled, and a single-threaded loop (fio's process per job,
 * bench/pread-loop.c) does not pay them.
 */
static ssize_t psync_rw(struct iogap_engine_ctx *ctx, struct iogap_io *io)
{
#if defined(__LP64__) && defined(SYS_pread64) && defined(SYS_pwrite64)
	long nr = io->ddir == IOGAP_OP_READ ? SYS_pread64 : SYS_pwrite64;

	return syscall(nr, ctx->fd, io->buf, (size_t)io->len, (off_t)io->offset);
#else
	if (io->ddir == IOGAP_OP_READ)
		return pread(ctx->fd, io->buf, io->len, (off_t)io->offset);
	return pwrite(ctx->fd, io->buf, io->len, (off_t)io->offset);
#endif
}

static int psync_queue(struct iogap_engine_ctx *ctx, struct iogap_io *io)
{
	return iogap_engine_sync_queue(ctx, io, psync_rw);
}

static void psync_cleanup(struct iogap_engine_ctx *ctx)
{
	(void)ctx;
}

const struct iogap_engine_ops iogap_engine_psync = {
	.name = "psync",
	.flags = IOGAP_ENGINE_SYNC,
	.init = psync_init,
	.queue = psync_queue,
	.cleanup = psync_cleanup,
};
