/* SPDX-License-Identifier: MIT */
/*
 * NVMe passthrough for io_uring_cmd (fio's engines/nvme.c): a namespace's
 * identity through an identify-namespace admin ioctl on its generic
 * character device (/dev/ngXnY), and the read/write commands built from its
 * LBA format.
 */
#ifndef IOGAP_NVME_H
#define IOGAP_NVME_H

#include <linux/nvme_ioctl.h>
#include <stddef.h>
#include <stdint.h>

struct iogap_io;

struct iogap_nvme_ns {
	uint32_t nsid;
	uint32_t lba_shift;      /* log2 of the LBA data size */
	uint64_t nlba;           /* namespace size in LBAs */
};

/* The namespace behind fd (an open /dev/ngXnY, named path in messages).
 * 0, or -errno with a message in err: a file that is not an NVMe generic
 * character device is refused as fio refuses it. */
int iogap_nvme_ns_info(int fd, const char *path, struct iogap_nvme_ns *ns, char *err,
		       size_t errlen);
/* The same by path: opens it read-only. */
int iogap_nvme_path_info(const char *path, struct iogap_nvme_ns *ns, char *err, size_t errlen);
/* An NVMe read or write of io on ns (fio's fio_nvme_uring_cmd_prep); with
 * iov the data pointer is that one-entry vector (NVME_URING_CMD_IO_VEC).
 * 0, or -EOPNOTSUPP for other directions, -EINVAL for a request not in
 * whole LBAs. */
int iogap_nvme_rw_cmd(struct nvme_uring_cmd *cmd, const struct iogap_nvme_ns *ns,
		      const struct iogap_io *io, struct iovec *iov);

#endif
