/* SPDX-License-Identifier: MIT */
/*
 * ring-dump: minimal reader of an iogap filter ring file, for the filter tests
 * (host tools get the full reader in guest-probe/trace_file.c).
 *
 *   ring-dump [--consume] RING
 *
 * Prints one summary line, then one line per published record in
 * [read_seq, write_seq):
 *   # layer=top capacity=N write_seq=W read_seq=R dropped=D complete=0|1 start_ns=S end_ns=E
 *   OP OFFSET LENGTH START_NS COMPLETE_NS RESULT THREAD TAG FLAGS
 * --consume advances read_seq past what was printed (a live reader).
 * Exit 2 with a message on a foreign, truncated or inconsistent file.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "iogap/trace.h"

static const char *op_name(unsigned op)
{
	static const char *const n[] = { "read", "write", "trim", "flush", "wzero", "other" };
	return op < sizeof(n) / sizeof(n[0]) ? n[op] : "?";
}

static int bad(const char *path, const char *what)
{
	fprintf(stderr, "ring-dump: %s: %s\n", path, what);
	return 2;
}

int main(int argc, char **argv)
{
	int consume = 0, fd;
	const char *path;
	struct stat st;
	uint8_t *base;
	const struct iogap_trace_header *h;
	struct iogap_ring_control *ctl;
	const struct iogap_trace_record *slots;
	uint64_t cap, w, r, need;

	if (argc == 3 && !strcmp(argv[1], "--consume"))
		consume = 1;
	else if (argc != 2)
		return fprintf(stderr, "usage: ring-dump [--consume] RING\n"), 2;
	path = argv[argc - 1];
	fd = open(path, consume ? O_RDWR : O_RDONLY);
	if (fd < 0 || fstat(fd, &st) < 0)
		return bad(path, strerror(errno));
	if ((uint64_t)st.st_size < sizeof(*h))
		return bad(path, "shorter than a trace header");
	base = mmap(NULL, st.st_size, PROT_READ | (consume ? PROT_WRITE : 0), MAP_SHARED, fd, 0);
	if (base == MAP_FAILED)
		return bad(path, strerror(errno));
	h = (const void *)base;
	if (memcmp(h->magic, IOGAP_TRACE_MAGIC, IOGAP_TRACE_MAGIC_LEN))
		return bad(path, "bad magic (not an iogap trace)");
	if (h->version != IOGAP_TRACE_VERSION || h->header_size != sizeof(*h) ||
	    h->record_size != sizeof(struct iogap_trace_record))
		return bad(path, "unsupported version, header size or record size");
	if (!(h->flags & IOGAP_TRACE_F_RING))
		return bad(path, "not a ring (F_RING not set)");
	cap = h->record_count;
	if (cap < 2 || (cap & (cap - 1)))
		return bad(path, "ring capacity is not a power of two >= 2");
	if (h->records_offset < sizeof(*h) + h->info_size || h->records_offset % IOGAP_TRACE_ALIGN)
		return bad(path, "records_offset inconsistent with info_size/alignment");
	need = h->records_offset + sizeof(*ctl) + cap * sizeof(struct iogap_trace_record);
	if ((uint64_t)st.st_size < need)
		return bad(path, "truncated: file shorter than the ring the header claims");
	ctl = (void *)(base + h->records_offset);
	slots = (const void *)(base + h->records_offset + sizeof(*ctl));
	w = __atomic_load_n(&ctl->write_seq, __ATOMIC_ACQUIRE);
	r = __atomic_load_n(&ctl->read_seq, __ATOMIC_ACQUIRE);
	if (w < r || w - r > cap)
		return bad(path, "write_seq/read_seq inconsistent");
	printf("# layer=%.16s capacity=%" PRIu64 " write_seq=%" PRIu64 " read_seq=%" PRIu64
	       " dropped=%" PRIu64 " complete=%d start_ns=%" PRIu64 " end_ns=%" PRIu64
	       " header_dropped=%" PRIu64 " producer=%u clock=%u\n",
	       h->layer, cap, w, r, __atomic_load_n(&ctl->dropped, __ATOMIC_RELAXED),
	       !!(h->flags & IOGAP_TRACE_F_COMPLETE), h->start_ns, h->end_ns, h->dropped,
	       h->producer, h->clock);
	for (uint64_t s = r; s < w; s++) {
		const struct iogap_trace_record *x = &slots[s & (cap - 1)];
		printf("%s %" PRIu64 " %u %" PRIu64 " %" PRIu64 " %d %u %" PRIu64 " %u\n",
		       op_name(x->op), x->offset, x->length, x->start_ns, x->complete_ns,
		       x->result, x->thread, x->tag, x->flags);
	}
	if (consume)
		__atomic_store_n(&ctl->read_seq, w, __ATOMIC_RELEASE);
	return 0;
}
