/* SPDX-License-Identifier: MIT */
/*
 * iogap-ring: read a QEMU filter's ring while QEMU runs (the complete
 * reader of finished traces and rings is `iogap-probe --dump-trace`).
 *
 *   iogap-ring [--consume] RING          print what is in the ring now
 *   iogap-ring --follow [--timeout S] RING
 *                                        wait for RING to appear, then print
 *                                        records as they are published,
 *                                        consuming them, until QEMU closes
 *                                        the ring (COMPLETE) or S seconds
 *
 * Prints one summary line, then one line per published record:
 *   # layer=top capacity=N write_seq=W read_seq=R dropped=D complete=0|1 start_ns=S end_ns=E
 *   OP OFFSET LENGTH START_NS COMPLETE_NS RESULT THREAD TAG FLAGS
 * --consume advances read_seq past what was printed, so the filter never
 * drops records while a reader keeps up.  Exit 2 with a message on a
 * foreign, truncated or inconsistent file; 3 when --follow timed out.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "iogap/trace.h"

static const char *op_name(unsigned op)
{
	static const char *const n[] = { "read", "write", "trim", "flush", "wzero", "other" };
	return op < sizeof(n) / sizeof(n[0]) ? n[op] : "?";
}

static int bad(const char *path, const char *what)
{
	fprintf(stderr, "iogap-ring: %s: %s\n", path, what);
	return 2;
}

struct ring {
	uint8_t *base;
	const struct iogap_trace_header *h;
	struct iogap_ring_control *ctl;
	const struct iogap_trace_record *slots;
	uint64_t cap;
};

/* Map and validate; 0 or the exit status after a message. */
static int ring_open(const char *path, bool writable, struct ring *rg)
{
	struct stat st;
	uint64_t need;
	int fd = open(path, writable ? O_RDWR : O_RDONLY);

	if (fd < 0 || fstat(fd, &st) < 0)
		return bad(path, strerror(errno));
	if ((uint64_t)st.st_size < sizeof(*rg->h)) {
		close(fd);
		return bad(path, "shorter than a trace header");
	}
	rg->base = mmap(NULL, st.st_size, PROT_READ | (writable ? PROT_WRITE : 0), MAP_SHARED, fd, 0);
	close(fd);
	if (rg->base == MAP_FAILED)
		return bad(path, strerror(errno));
	rg->h = (const void *)rg->base;
	if (memcmp(rg->h->magic, IOGAP_TRACE_MAGIC, IOGAP_TRACE_MAGIC_LEN))
		return bad(path, "bad magic (not an iogap trace)");
	if (rg->h->version != IOGAP_TRACE_VERSION || rg->h->header_size != sizeof(*rg->h) ||
	    rg->h->record_size != sizeof(struct iogap_trace_record))
		return bad(path, "unsupported version, header size or record size");
	if (!(rg->h->flags & IOGAP_TRACE_F_RING))
		return bad(path, "not a ring (F_RING not set)");
	rg->cap = rg->h->record_count;
	if (rg->cap < 2 || (rg->cap & (rg->cap - 1)))
		return bad(path, "ring capacity is not a power of two >= 2");
	if (rg->h->records_offset < sizeof(*rg->h) + rg->h->info_size ||
	    rg->h->records_offset % IOGAP_TRACE_ALIGN)
		return bad(path, "records_offset inconsistent with info_size/alignment");
	need = rg->h->records_offset + sizeof(*rg->ctl) + rg->cap * sizeof(struct iogap_trace_record);
	if ((uint64_t)st.st_size < need)
		return bad(path, "truncated: file shorter than the ring the header claims");
	rg->ctl = (void *)(rg->base + rg->h->records_offset);
	rg->slots = (const void *)(rg->base + rg->h->records_offset + sizeof(*rg->ctl));
	return 0;
}

/* Print [read_seq, write_seq); consume advances read_seq.  0 or 2;
 * *n (if given) gets the number of records printed. */
static int ring_drain(const char *path, struct ring *rg, bool consume, bool header, uint64_t *n)
{
	uint64_t w = __atomic_load_n(&rg->ctl->write_seq, __ATOMIC_ACQUIRE);
	uint64_t r = __atomic_load_n(&rg->ctl->read_seq, __ATOMIC_ACQUIRE);

	if (w < r || w - r > rg->cap)
		return bad(path, "write_seq/read_seq inconsistent");
	if (header)
		printf("# layer=%.16s capacity=%" PRIu64 " write_seq=%" PRIu64 " read_seq=%" PRIu64
		       " dropped=%" PRIu64 " complete=%d start_ns=%" PRIu64 " end_ns=%" PRIu64
		       " header_dropped=%" PRIu64 " producer=%u clock=%u\n",
		       rg->h->layer, rg->cap, w, r,
		       __atomic_load_n(&rg->ctl->dropped, __ATOMIC_RELAXED),
		       !!(rg->h->flags & IOGAP_TRACE_F_COMPLETE), rg->h->start_ns, rg->h->end_ns,
		       rg->h->dropped, rg->h->producer, rg->h->clock);
	for (uint64_t s = r; s < w; s++) {
		const struct iogap_trace_record *x = &rg->slots[s & (rg->cap - 1)];

		printf("%s %" PRIu64 " %u %" PRIu64 " %" PRIu64 " %d %u %" PRIu64 " %u\n",
		       op_name(x->op), x->offset, x->length, x->start_ns, x->complete_ns,
		       x->result, x->thread, x->tag, x->flags);
	}
	if (consume)
		__atomic_store_n(&rg->ctl->read_seq, w, __ATOMIC_RELEASE);
	if (n)
		*n = w - r;
	return 0;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static int follow(const char *path, unsigned timeout_s)
{
	uint64_t deadline = now_ms() + (uint64_t)timeout_s * 1000;
	struct ring rg;
	int r;

	/* QEMU creates the ring when it opens the node */
	while (access(path, R_OK)) {
		if (now_ms() > deadline)
			return fprintf(stderr, "iogap-ring: %s: did not appear\n", path), 3;
		usleep(20000);
	}
	usleep(20000);   /* the header is written right after creation */
	if ((r = ring_open(path, true, &rg)))
		return r;
	if ((r = ring_drain(path, &rg, true, true, NULL)))
		return r;
	for (;;) {
		/* read the flag before draining: nothing is published after it */
		bool complete = __atomic_load_n(&rg.h->flags, __ATOMIC_ACQUIRE) & IOGAP_TRACE_F_COMPLETE;
		uint64_t n;

		if ((r = ring_drain(path, &rg, true, false, &n)))
			return r;
		if (complete) {
			fflush(stdout);
			return 0;
		}
		if (now_ms() > deadline)
			return fprintf(stderr, "iogap-ring: %s: still open after %u s\n", path,
				       timeout_s), 3;
		/* keep up while records flow; nap when idle */
		if (!n) {
			fflush(stdout);
			usleep(1000);
		}
	}
}

int main(int argc, char **argv)
{
	bool consume = false, follow_mode = false;
	unsigned timeout_s = 3600;
	struct ring rg;
	int i, r;

	for (i = 1; i < argc - 1; i++) {
		if (!strcmp(argv[i], "--consume"))
			consume = true;
		else if (!strcmp(argv[i], "--follow"))
			follow_mode = true;
		else if (!strcmp(argv[i], "--timeout") && i + 2 < argc)
			timeout_s = (unsigned)atoi(argv[++i]);
		else
			break;
	}
	if (i != argc - 1 || (consume && follow_mode))
		return fprintf(stderr, "usage: iogap-ring [--consume | --follow [--timeout S]] RING\n"), 2;
	if (follow_mode)
		return follow(argv[i], timeout_s);
	if ((r = ring_open(argv[i], consume, &rg)))
		return r;
	return ring_drain(argv[i], &rg, consume, true, NULL);
}
