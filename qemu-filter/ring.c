/* SPDX-License-Identifier: MIT */
/* iogap shared-memory ring writer: setup and teardown (see ring.h). */
#include "ring.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

uint64_t iogap_ring_capacity(uint64_t want)
{
	uint64_t c = 2;
	if (want > (1ull << 30))
		want = 1ull << 30;
	while (c < want)
		c <<= 1;
	return c;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static void read_boot_id(uint8_t out[16])
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
		int v = hexval(*p);
		if (v < 0)
			continue;
		out[i / 2] |= (uint8_t)(i % 2 ? v : v << 4);
		i++;
	}
}

int iogap_ring_create(struct iogap_ring *r, const char *path, uint64_t capacity,
		      const char *layer, uint64_t run_id, const char *info,
		      uint64_t start_ns, char *err, size_t errlen)
{
	uint32_t info_size = info ? (uint32_t)strlen(info) : 0;
	uint64_t ctl_off = iogap_ring_ctl_offset(info_size);
	uint64_t cap = iogap_ring_capacity(capacity);
	uint64_t size = iogap_ring_file_size(info_size, cap);
	struct iogap_trace_header *h;
	char *base;
	int fd, e;

	memset(r, 0, sizeof(*r));
	r->fd = -1;
	if (size > IOGAP_RING_MAX_FILE) {
		snprintf(err, errlen, "ring %s: %llu records need %llu bytes, over the %llu-byte "
			 "limit (at most %llu records)", path, (unsigned long long)cap,
			 (unsigned long long)size, (unsigned long long)IOGAP_RING_MAX_FILE,
			 (unsigned long long)iogap_ring_max_capacity(info_size));
		return -EFBIG;
	}
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		e = errno;
		snprintf(err, errlen, "cannot create ring file %s: %s", path, strerror(e));
		return -e;
	}
	/*
	 * Allocate every block now.  ftruncate alone makes a sparse file: on a full
	 * tmpfs or disk the first store into an unbacked page of the mapping (the
	 * memset below, or a record on the I/O path) kills QEMU with SIGBUS.
	 */
	e = posix_fallocate(fd, 0, (off_t)size);
	if (e) {
		if (e == ENOSPC || e == EDQUOT)
			snprintf(err, errlen, "ring %s: no room for %llu bytes (%s)", path,
				 (unsigned long long)size, strerror(e));
		else
			snprintf(err, errlen, "cannot allocate %llu bytes for ring file %s: %s",
				 (unsigned long long)size, path, strerror(e));
		close(fd);
		unlink(path);
		return -e;
	}
	base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);
	if (base == MAP_FAILED) {
		e = errno;
		snprintf(err, errlen, "cannot map ring file %s: %s", path, strerror(e));
		close(fd);
		unlink(path);
		return -e;
	}
	r->commit = calloc(cap, sizeof(uint64_t));
	if (!r->commit) {
		snprintf(err, errlen, "out of memory for a %llu-record ring", (unsigned long long)cap);
		munmap(base, size);
		close(fd);
		unlink(path);
		return -ENOMEM;
	}
	/* blocks are allocated; touch every page now: no page faults on the I/O path */
	memset(base, 0, size);

	h = (struct iogap_trace_header *)base;
	h->version = IOGAP_TRACE_VERSION;
	h->header_size = sizeof(*h);
	h->record_size = sizeof(struct iogap_trace_record);
	h->producer = IOGAP_PRODUCER_FILTER;
	h->clock = IOGAP_CLOCK_HOST_MONOTONIC;
	h->flags = IOGAP_TRACE_F_RING;
	h->info_size = info_size;
	h->run_id = run_id;
	read_boot_id(h->boot_id);
	strncpy(h->layer, layer ? layer : "", sizeof(h->layer) - 1);
	h->records_offset = ctl_off;
	h->record_count = cap;
	h->start_ns = start_ns;
	if (info_size)
		memcpy(base + sizeof(*h), info, info_size);
	/* magic last: a reader never sees a half-written header as valid */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	memcpy(h->magic, IOGAP_TRACE_MAGIC, IOGAP_TRACE_MAGIC_LEN);

	r->hdr = h;
	r->ctl = (struct iogap_ring_control *)(base + ctl_off);
	r->slots = (struct iogap_trace_record *)(base + ctl_off + sizeof(struct iogap_ring_control));
	r->mask = cap - 1;
	r->map = base;
	r->map_size = size;
	r->fd = fd;
	r->reserve = 0;
	return 0;
}

void iogap_ring_close(struct iogap_ring *r, uint64_t end_ns)
{
	if (!r->map)
		return;
	r->hdr->dropped = __atomic_load_n(&r->ctl->dropped, __ATOMIC_ACQUIRE);
	r->hdr->end_ns = end_ns;
	__atomic_fetch_or(&r->hdr->flags, (uint16_t)IOGAP_TRACE_F_COMPLETE, __ATOMIC_RELEASE);
	munmap(r->map, r->map_size);
	close(r->fd);
	free(r->commit);
	r->map = NULL;
	r->commit = NULL;
	r->fd = -1;
}
