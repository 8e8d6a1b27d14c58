/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine.h"
#include "job.h"
#include "iogap/trace.h"

static const struct {
	const char *name;
	const struct iogap_engine_ops *ops;
} registry[] = {
	{ "psync", &iogap_engine_psync },
	{ "sync", &iogap_engine_sync },
	{ "vsync", &iogap_engine_vsync },
	{ "pvsync", &iogap_engine_pvsync },
	{ "pvsync2", &iogap_engine_pvsync2 },
	{ "posixaio", &iogap_engine_posixaio },
	{ "mmap", &iogap_engine_mmap },
	{ "libaio", &iogap_engine_libaio },
	{ "io_uring", &iogap_engine_io_uring },
	{ "io_uring_cmd", &iogap_engine_io_uring_cmd },
	{ "splice", &iogap_engine_splice },
	{ "null", &iogap_engine_null },
#ifdef IOGAP_HAVE_RBD
	{ "rbd", &iogap_engine_rbd },
	{ "rados", &iogap_engine_rados },
#endif
};

const struct iogap_engine_ops *iogap_engine_find(const char *name)
{
	for (size_t i = 0; i < sizeof(registry) / sizeof(registry[0]); i++)
		if (!strcmp(registry[i].name, name))
			return registry[i].ops;
	return NULL;
}

const char *iogap_engine_names(void)
{
	static char names[256];   /* built once, from the registry */
	size_t n = 0;

	if (names[0])
		return names;
	for (size_t i = 0; i < sizeof(registry) / sizeof(registry[0]); i++) {
		n += (size_t)snprintf(names + n, sizeof(names) - n, "%s%s", i ? ", " : "",
				      registry[i].name);
		if (n >= sizeof(names))
			break;   /* truncated: still a usable message */
	}
	return names;
}

int iogap_engine_rw_flags(const struct iogap_job *j)
{
	return (j->nowait ? RWF_NOWAIT : 0) | (j->uncached && !j->direct ? RWF_UNCACHED : 0);
}

/* Discard synchronously, as fio's async engines do for trims: a block
 * device gets BLKDISCARD, a file a punched hole. */
int iogap_engine_sync_trim(int fd, uint64_t offset, uint64_t len)
{
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	if (S_ISBLK(st.st_mode)) {
		uint64_t range[2] = { offset, len };

		if (ioctl(fd, BLKDISCARD, range))
			return -errno;
		return 0;
	}
	if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)offset, (off_t)len))
		return -errno;
	return 0;
}

void iogap_engine_trim_io(int fd, struct iogap_io *io)
{
	int r = iogap_engine_sync_trim(fd, io->offset, io->len);

	io->result = r ? r : (int64_t)io->len;
}

void iogap_engine_set_result(struct iogap_io *io, long ret)
{
	io->result = ret < 0 ? -errno : (int64_t)ret;
}

int iogap_engine_sync_queue(struct iogap_engine_ctx *ctx, struct iogap_io *io,
			    ssize_t (*rw)(struct iogap_engine_ctx *ctx, struct iogap_io *io))
{
	switch (io->ddir) {
	case IOGAP_OP_READ:
	case IOGAP_OP_WRITE:
		iogap_engine_set_result(io, (long)rw(ctx, io));
		break;
	case IOGAP_OP_TRIM:
		iogap_engine_trim_io(ctx->fd, io);
		break;
	default:
		io->result = -EINVAL;
	}
	return IOGAP_Q_COMPLETED;
}
