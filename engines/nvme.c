/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "engine.h"
#include "iogap/trace.h"
#include "nvme.h"

#define NVME_ADMIN_IDENTIFY   0x06
#define NVME_IDENTIFY_CNS_NS  0x00
#define NVME_CMD_WRITE        0x01
#define NVME_CMD_READ         0x02
#define NVME_IDENTIFY_SIZE    4096

/* The identify-namespace data this needs (NVMe base spec, figure "Identify
 * Namespace Data Structure"): NSZE at byte 0, FLBAS at 26, the LBA formats
 * from byte 128, four bytes each with LBADS (log2 of the data size) in
 * their third byte. */
#define ID_NS_NSZE            0
#define ID_NS_NLBAF           25
#define ID_NS_FLBAS           26
#define ID_NS_LBAF            128

static int identify_ns(int fd, uint32_t nsid, uint8_t *data)
{
	struct nvme_passthru_cmd cmd = {
		.opcode = NVME_ADMIN_IDENTIFY,
		.nsid = nsid,
		.addr = (uint64_t)(uintptr_t)data,
		.data_len = NVME_IDENTIFY_SIZE,
		.cdw10 = NVME_IDENTIFY_CNS_NS,
	};

	return ioctl(fd, NVME_IOCTL_ADMIN_CMD, &cmd);
}

int iogap_nvme_ns_info(int fd, const char *path, struct iogap_nvme_ns *ns, char *err,
		       size_t errlen)
{
	uint8_t id[NVME_IDENTIFY_SIZE];
	struct stat st;
	uint64_t nsze;
	unsigned fmt, lbads;
	int nsid, r;

	if (fstat(fd, &st))
		return -errno;
	if (!S_ISCHR(st.st_mode)) {
		snprintf(err, errlen, "io_uring_cmd: %s is not a character device: the engine only "
			 "works with NVMe namespace generic character devices (/dev/ngXnY)", path);
		return -ENOTTY;
	}
	nsid = ioctl(fd, NVME_IOCTL_ID);
	if (nsid <= 0) {
		r = nsid < 0 ? -errno : -ENOTTY;
		snprintf(err, errlen, "io_uring_cmd: %s is not an NVMe namespace (NVME_IOCTL_ID: %s): "
			 "the engine only works with NVMe generic character devices (/dev/ngXnY)",
			 path, strerror(-r));
		return r;
	}
	memset(id, 0, sizeof(id));
	r = identify_ns(fd, (uint32_t)nsid, id);
	if (r) {
		r = r < 0 ? -errno : -EIO;
		snprintf(err, errlen, "io_uring_cmd: %s: identify namespace %d: %s", path, nsid,
			 r == -EIO ? "the command failed (NVMe status)" : strerror(-r));
		return r;
	}
	memcpy(&nsze, id + ID_NS_NSZE, sizeof(nsze));   /* little endian, as the host */
	fmt = id[ID_NS_FLBAS] & 0x0f;
	lbads = id[ID_NS_LBAF + 4 * fmt + 2];
	if (fmt > id[ID_NS_NLBAF] || lbads < 9 || lbads > 31 || !nsze) {
		snprintf(err, errlen, "io_uring_cmd: %s: namespace %d has no usable LBA format "
			 "(format %u, 2^%u bytes, %llu LBAs)", path, nsid, fmt, lbads,
			 (unsigned long long)nsze);
		return -EINVAL;
	}
	ns->nsid = (uint32_t)nsid;
	ns->lba_shift = lbads;
	ns->nlba = nsze;
	return 0;
}

int iogap_nvme_path_info(const char *path, struct iogap_nvme_ns *ns, char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int r;

	if (fd < 0) {
		r = -errno;
		snprintf(err, errlen, "io_uring_cmd: %s: %s", path, strerror(errno));
		return r;
	}
	r = iogap_nvme_ns_info(fd, path, ns, err, errlen);
	close(fd);
	return r;
}

int iogap_nvme_rw_cmd(struct nvme_uring_cmd *cmd, const struct iogap_nvme_ns *ns,
		      const struct iogap_io *io, struct iovec *iov)
{
	uint64_t mask = (1ull << ns->lba_shift) - 1, slba;

	memset(cmd, 0, sizeof(*cmd));
	if (io->ddir == IOGAP_OP_READ)
		cmd->opcode = NVME_CMD_READ;
	else if (io->ddir == IOGAP_OP_WRITE)
		cmd->opcode = NVME_CMD_WRITE;
	else
		return -EOPNOTSUPP;
	if ((io->offset & mask) || (io->len & mask) || !io->len)
		return -EINVAL;
	slba = io->offset >> ns->lba_shift;
	cmd->cdw10 = (uint32_t)slba;            /* starting LBA, low and high */
	cmd->cdw11 = (uint32_t)(slba >> 32);
	cmd->cdw12 = (io->len >> ns->lba_shift) - 1;   /* LBAs, zero-based */
	if (iov) {
		*iov = (struct iovec){ io->buf, io->len };
		cmd->addr = (uint64_t)(uintptr_t)iov;
		cmd->data_len = 1;
	} else {
		cmd->addr = (uint64_t)(uintptr_t)io->buf;
		cmd->data_len = io->len;
	}
	cmd->nsid = ns->nsid;
	return 0;
}
