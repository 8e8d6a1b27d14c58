/*
 * filter-record-cost — what the filter's own code adds to one request, timed alone: the
 * code of qemu-filter/record.h (two stamps, the record stored into a real ring, and for a
 * write the tag scan of its 4 KiB payload) around a call that stands for the child request,
 * against the same call alone.  qemu-img bench measures the filter inside QEMU, where one
 * request costs 1-3 us and this machine's round-to-round noise is hundreds of ns; here a
 * round's noise is a few ns, so the figure is stable.  It leaves out what the extra block
 * node costs QEMU (the raw layer's share, measured by bench/filter-overhead).
 *
 * Cases, each against the bare call:
 *   read          entry stamp, completion stamp, one record
 *   write         the same, with the scan of an untagged 4 KiB payload (qemu-img bench's)
 *   write-tagged  a 4 KiB payload carrying the probe's tag (iogap run): the full scan, one
 *                 record per tag found
 * A reader is emulated by moving the ring's read cursor every 1024 requests, so no record
 * is dropped.
 *
 * Usage: filter-record-cost RING-DIR [ROUNDS [REQUESTS]]   (defaults 41 rounds of 200000)
 * Prints per case: median [25%, 75%] (min, max) ns added per request over the rounds.
 * Built by bench/meson.build into <build>/bench.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record.h"

#define PAYLOAD 4096
#define RUN_ID 0x1f

enum { BARE, READ, WRITE, WRITE_TAGGED, NR_CASES };
static const char *const case_name[NR_CASES] = { "bare call", "read", "write", "write-tagged" };

static struct iogap_ring ring;
static uint8_t plain_buf[PAYLOAD] __attribute__((aligned(64)));
static uint8_t tagged_buf[PAYLOAD] __attribute__((aligned(64)));

/* Stands for bdrv_co_p{read,write}v_part(): opaque to the compiler. */
static __attribute__((noinline)) int child(int64_t offset, int64_t bytes)
{
	__asm__ volatile("" ::: "memory");
	return offset >= 0 ? 0 : (int)bytes;
}

/* What a live reader does (iogap-ring drain): consume everything published. */
static void consume(void)
{
	uint64_t w = __atomic_load_n(&ring.ctl->write_seq, __ATOMIC_ACQUIRE);

	__atomic_store_n(&ring.ctl->read_seq, w, __ATOMIC_RELEASE);
}

static void one_request(int which, int64_t offset)
{
	struct iovec iov;
	struct iogap_thread *th;
	uint64_t t0, t1;
	int ret;

	if (which == BARE) {
		child(offset, PAYLOAD);
		return;
	}
	t0 = iogap_now_ns();
	ret = child(offset, PAYLOAD);
	if (which == READ) {
		iogap_record_now(&ring, IOGAP_OP_READ, offset, PAYLOAD, t0, ret, 0);
		return;
	}
	th = iogap_this_thread();
	t1 = iogap_thread_ns(th);
	iov.iov_base = which == WRITE ? plain_buf : tagged_buf;
	iov.iov_len = PAYLOAD;
	iogap_record_write(&ring, RUN_ID, th, &iov, 1, 0, offset, PAYLOAD, t0, t1, ret, 0);
}

/* ns per request of n requests of one case */
static double timed(int which, uint64_t n)
{
	uint64_t t0 = iogap_stamp_monotonic();

	for (uint64_t i = 0; i < n; i++) {
		one_request(which, (int64_t)(i % 65536) * PAYLOAD);
		if ((i & 1023) == 1023)
			consume();
	}
	consume();
	return (double)(iogap_stamp_monotonic() - t0) / (double)n;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double at(const double *sorted, unsigned n, double q)
{
	return sorted[(unsigned)(q * (n - 1) + 0.5)];
}

static void tag_payload(void)
{
	struct iogap_write_tag tag = { .magic = IOGAP_TAG_MAGIC, .run_id = RUN_ID,
				       .request_id = 1, .block = 0 };

	tag.check = iogap_tag_check(&tag);
	memcpy(tagged_buf, &tag, sizeof(tag));
	memset(plain_buf, 0xa5, sizeof(plain_buf));
}

int main(int argc, char **argv)
{
	unsigned rounds = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 0) : 41;
	uint64_t n = argc > 3 ? strtoull(argv[3], NULL, 0) : 200000;
	char path[4096], err[256];
	double *added[NR_CASES];

	if (argc < 2 || argc > 4 || rounds < 1 || n < 1) {
		fprintf(stderr, "usage: %s RING-DIR [ROUNDS [REQUESTS]]\n", argv[0]);
		return 2;
	}
	for (int c = 0; c < NR_CASES; c++)
		if (!(added[c] = calloc(rounds, sizeof(double)))) {
			fprintf(stderr, "out of memory for %u rounds\n", rounds);
			return 1;
		}
	iogap_stamp_init();
	snprintf(path, sizeof(path), "%s/filter-record-cost.%d.ring", argv[1], (int)getpid());
	if (iogap_ring_create(&ring, path, 65536, "bench", RUN_ID, NULL, iogap_now_ns(), err,
			      sizeof(err)) < 0) {
		fprintf(stderr, "%s: %s\n", path, err);
		return 1;
	}
	tag_payload();
	for (unsigned r = 0; r < rounds; r++) {
		double ns[NR_CASES];

		for (int k = 0; k < NR_CASES; k++) {   /* the order rotates: drift hits each case */
			int c = (int)((r + (unsigned)k) % NR_CASES);

			ns[c] = timed(c, n);
		}
		for (int c = 0; c < NR_CASES; c++)
			added[c][r] = c == BARE ? ns[BARE] : ns[c] - ns[BARE];
	}
	printf("%u rounds of %llu requests per case, cases interleaved; ring %s (%s), dropped %llu\n",
	       rounds, (unsigned long long)n, path, iogap_stamp_source(),
	       (unsigned long long)ring.ctl->dropped);
	for (int c = 0; c < NR_CASES; c++) {
		qsort(added[c], rounds, sizeof(double), cmp_double);
		printf("%-13s %s %6.1f [%6.1f, %6.1f] (%6.1f, %6.1f) ns\n", case_name[c],
		       c == BARE ? "per request:" : "added:      ", at(added[c], rounds, 0.5),
		       at(added[c], rounds, 0.25), at(added[c], rounds, 0.75), added[c][0],
		       added[c][rounds - 1]);
		free(added[c]);
	}
	iogap_ring_close(&ring, iogap_now_ns(), true);
	return 0;
}
