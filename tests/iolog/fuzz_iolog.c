/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for read_iolog's reader (guest-probe/iolog.c): any
 * bytes, as a text log or a blktrace capture, give requests or a clean
 * file:line error, never a crash, a hang or an out-of-bounds access.  The
 * first byte picks the replay options (the seeds start with one); the rest
 * is the log, in a memfd reached through /proc/self/fd.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "iolog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct iogap_job j;
	char path[64], name[] = "fuzz", err[512];
	int fd;

	if (!size)
		return 0;
	fd = memfd_create("iolog", MFD_CLOEXEC);
	if (fd < 0 || write(fd, data + 1, size - 1) != (ssize_t)(size - 1)) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	memset(&j, 0, sizeof(j));
	j.name = name;
	j.read_iolog = path;
	j.replay_redirect = data[0] & 1 ? NULL : path;   /* else sysfs lookups */
	j.replay_no_stall = data[0] & 2;
	j.replay_time_scale = data[0] & 4 ? 100 : 37;
	j.replay_scale = data[0] >> 6;
	j.replay_align = data[0] & 8 ? 4096 : 0;
	j.replay_skip = (data[0] >> 4) & 3;
	iogap_iolog_prepare_job(&j, err, sizeof(err));   /* reads the whole log */
	if (j.filename != NULL)
		free(j.filename);
	close(fd);
	return 0;
}
