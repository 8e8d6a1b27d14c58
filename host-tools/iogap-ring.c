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
 *   iogap-ring --clean [DIR]             remove the rings in DIR (default
 *                                        /dev/shm) whose QEMU is gone
 *                                        (iogap_ring_remove_stale)
 *
 * Prints one summary line, then one line per published record:
 *   # layer=top capacity=N write_seq=W read_seq=R dropped=D complete=0|1 start_ns=S end_ns=E
 *     ... run_id=HEX
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
#include "ringmap.h"

static const char *op_name(unsigned op)
{
	static const char *const n[] = { "read", "write", "trim", "flush", "wzero", "other" };
	return op < sizeof(n) / sizeof(n[0]) ? n[op] : "?";
}

/* Print [read_seq, write_seq); consume advances read_seq.  0 or 2;
 * *n (if given) gets the number of records printed. */
static int ring_drain(const char *path, struct iogap_ring_map *rg, bool consume, bool header,
		      uint64_t *n)
{
	uint64_t r;
	int64_t count = iogap_ring_map_pending(rg, &r);

	if (count < 0) {
		fprintf(stderr, "iogap-ring: %s: write_seq/read_seq inconsistent\n", path);
		return 2;
	}
	if (header)
		printf("# layer=%.16s capacity=%" PRIu64 " write_seq=%" PRIu64 " read_seq=%" PRIu64
		       " dropped=%" PRIu64 " complete=%d start_ns=%" PRIu64 " end_ns=%" PRIu64
		       " header_dropped=%" PRIu64 " producer=%u clock=%u run_id=%016" PRIx64 "\n",
		       rg->h->layer, rg->cap, r + (uint64_t)count, r,
		       __atomic_load_n(&rg->ctl->dropped, __ATOMIC_RELAXED),
		       !!(rg->h->flags & IOGAP_TRACE_F_COMPLETE), rg->h->start_ns, rg->h->end_ns,
		       rg->h->dropped, rg->h->producer, rg->h->clock, rg->h->run_id);
	for (uint64_t s = r; s < r + (uint64_t)count; s++) {
		const struct iogap_trace_record *x = &rg->slots[s & (rg->cap - 1)];

		printf("%s %" PRIu64 " %u %" PRIu64 " %" PRIu64 " %d %u %" PRIu64 " %u\n",
		       op_name(x->op), x->offset, x->length, x->start_ns, x->complete_ns,
		       x->result, x->thread, x->tag, x->flags);
	}
	if (consume)
		iogap_ring_map_consume(rg, r + (uint64_t)count);
	if (n)
		*n = (uint64_t)count;
	return 0;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Does path exist with something other than zeros where the magic goes? */
static bool magic_written(const char *path)
{
	char magic[IOGAP_TRACE_MAGIC_LEN] = { 0 }, zero[IOGAP_TRACE_MAGIC_LEN] = { 0 };
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return false;
	n = read(fd, magic, sizeof(magic));
	close(fd);
	return n == (ssize_t)sizeof(magic) && memcmp(magic, zero, sizeof(magic));
}

static int follow(const char *path, unsigned timeout_s)
{
	uint64_t deadline = now_ms() + (uint64_t)timeout_s * 1000;
	struct iogap_ring_map rg;
	char err[512];
	int r;

	/* QEMU creates the ring when it opens the node, and writes the magic
	 * last, after allocating and clearing the whole file */
	while (!magic_written(path)) {
		if (now_ms() > deadline)
			return fprintf(stderr, "iogap-ring: %s: did not appear\n", path), 3;
		usleep(20000);
	}
	if (iogap_ring_map_open(path, true, &rg, err, sizeof(err)))
		return fprintf(stderr, "iogap-ring: %s\n", err), 2;
	if ((r = ring_drain(path, &rg, true, true, NULL)))
		return r;
	for (;;) {
		/* read the flag before draining: nothing is published after it */
		bool complete = iogap_ring_map_complete(&rg);
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

static int clean(const char *dir)
{
	char err[512];
	int n = iogap_ring_remove_stale(dir, stdout, err, sizeof(err));

	if (n < 0)
		return fprintf(stderr, "iogap-ring: --clean: %s\n", err), 2;
	printf("%d stale ring%s removed from %s\n", n, n == 1 ? "" : "s", dir);
	return 0;
}

int main(int argc, char **argv)
{
	bool consume = false, follow_mode = false;
	unsigned timeout_s = 3600;
	struct iogap_ring_map rg;
	char err[512];
	int i;

	if (argc >= 2 && !strcmp(argv[1], "--clean") && argc <= 3)
		return clean(argc == 3 ? argv[2] : "/dev/shm");
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
		return fprintf(stderr, "usage: iogap-ring [--consume | --follow [--timeout S]] RING\n"
			       "       iogap-ring --clean [DIR]\n"), 2;
	if (follow_mode)
		return follow(argv[i], timeout_s);
	if (iogap_ring_map_open(argv[i], consume, &rg, err, sizeof(err)))
		return fprintf(stderr, "iogap-ring: %s\n", err), 2;
	return ring_drain(argv[i], &rg, consume, true, NULL);
}
