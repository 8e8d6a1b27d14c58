/* SPDX-License-Identifier: MIT */
/*
 * Who wrote a ring, in terms that survive pid reuse: the boot (boot_id), the
 * pid and the pid's start time.  The filter stores them in its ring (header
 * boot_id, info keys pid and pid_start); the host tools compare them with the
 * running system to tell a stale ring (its QEMU is gone) from a live one.
 * Header-only and dependency-free: host-tools/orchestration/ringmap.c includes it too.
 */
#ifndef IOGAP_QEMU_FILTER_PROCID_H
#define IOGAP_QEMU_FILTER_PROCID_H

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static inline int iogap_hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* /proc/sys/kernel/random/boot_id as 16 bytes; all zero if unreadable. */
static inline void iogap_read_boot_id(uint8_t out[16])
{
	char buf[64];
	int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
	ssize_t n;
	int i = 0;

	memset(out, 0, 16);
	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = 0;
	for (char *p = buf; *p && i < 32; p++) {
		int v = iogap_hexval(*p);
		if (v < 0)
			continue;
		out[i / 2] |= (uint8_t)(i % 2 ? v : v << 4);
		i++;
	}
}

/*
 * Start time of process PID in clock ticks after boot (/proc/PID/stat field
 * 22); 0 when there is no such process or it is a zombie (dead, its files
 * closed; an orphan may wait a while for its reaper).  Field 2 (comm) may
 * hold spaces and parentheses: the fields after it are counted from its last
 * ')'.
 */
static inline uint64_t iogap_proc_start_time(int pid)
{
	char path[64], buf[1024], *p;
	int fd, field;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	p = strrchr(buf, ')');
	if (!p || !p[1] || !p[2] || p[2] == 'Z' || p[2] == 'X')
		return 0;
	/* p: the space in front of field 3 (state), then of each next field */
	for (field = 3, p++; field < 22 && p; field++)
		p = strchr(p + 1, ' ');
	return p ? strtoull(p + 1, NULL, 10) : 0;
}

#endif
