/* SPDX-License-Identifier: MIT */
/*
 * Multi-producer stress of the filter's ring writer (qemu-filter/ring.c): 4
 * producer threads and one live reader; every record is seen exactly once or
 * counted as dropped, and records are only ever seen complete.  TAP output.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../tap.h"
#include "ring.h"

#define PRODUCERS 4
#define PER_THREAD 200000u

static struct iogap_ring ring __attribute__((aligned(64)));
static int producers_done;

static void *producer(void *arg)
{
	uint32_t id = (uint32_t)(uintptr_t)arg;
	struct iogap_trace_record rec;

	memset(&rec, 0, sizeof(rec));
	for (uint32_t i = 0; i < PER_THREAD; i++) {
		rec.thread = id;
		rec.tag = ((uint64_t)id << 32) | i;
		rec.offset = rec.tag ^ 0x5555555555555555ull;   /* consistency check */
		rec.length = i;
		iogap_ring_put(&ring, &rec);
	}
	__atomic_fetch_add(&producers_done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static uint8_t *seen;
static uint64_t n_seen, n_torn, n_dup;

static void consume(void)
{
	uint64_t w = __atomic_load_n(&ring.ctl->write_seq, __ATOMIC_ACQUIRE);
	uint64_t r = ring.ctl->read_seq;

	for (; r < w; r++) {
		const struct iogap_trace_record *x = &ring.slots[r & ring.mask];
		uint64_t idx = (x->tag >> 32) * PER_THREAD + (uint32_t)x->tag;
		if (x->offset != (x->tag ^ 0x5555555555555555ull) || x->length != (uint32_t)x->tag ||
		    (x->tag >> 32) >= PRODUCERS || x->thread != (x->tag >> 32)) {
			n_torn++;
			continue;
		}
		if (seen[idx])
			n_dup++;
		seen[idx] = 1;
		n_seen++;
	}
	__atomic_store_n(&ring.ctl->read_seq, w, __ATOMIC_RELEASE);
}

int main(void)
{
	pthread_t t[PRODUCERS];
	char err[256];
	char dir[] = "/tmp/iogap-ring-mp.XXXXXX", path[64];
	uint64_t dropped, total = (uint64_t)PRODUCERS * PER_THREAD;
	bool one_line;

	tap_plan(8);
	if (!mkdtemp(dir))
		return perror("mkdtemp"), 1;
	snprintf(path, sizeof(path), "%s/mp.ring", dir);
	seen = calloc(total, 1);
	ok(iogap_ring_create(&ring, path, 1024, "mp", 1, "test=1\n", 1, err, sizeof(err)) == 0,
	   "ring created (%s)", err);
	one_line = sizeof(*ring.slots) == 64 && (uintptr_t)ring.slots % 64 == 0;
	for (uintptr_t i = 0; i < PRODUCERS; i++)
		pthread_create(&t[i], NULL, producer, (void *)i);
	/* live reader until all producers are done */
	while (__atomic_load_n(&producers_done, __ATOMIC_ACQUIRE) < PRODUCERS)
		consume();
	for (int i = 0; i < PRODUCERS; i++)
		pthread_join(t[i], NULL);
	consume();
	dropped = ring.ctl->dropped;
	ok(n_torn == 0, "no torn or foreign record seen (%llu)", (unsigned long long)n_torn);
	ok(n_dup == 0, "no record seen twice (%llu)", (unsigned long long)n_dup);
	ok(n_seen + dropped == total, "seen %llu + dropped %llu == %llu produced",
	   (unsigned long long)n_seen, (unsigned long long)dropped, (unsigned long long)total);
	ok(ring.ctl->write_seq == n_seen, "write_seq == records published (%llu)",
	   (unsigned long long)ring.ctl->write_seq);
	ok(ring.pending == 0, "no out-of-order commit left pending");

	/* no reader: the ring fills once, the rest is dropped */
	iogap_ring_close(&ring, 2, true);
	producers_done = 0;
	iogap_ring_create(&ring, path, 64, "mp", 1, NULL, 1, err, sizeof(err));
	one_line = one_line && (uintptr_t)ring.slots % 64 == 0;
	ok(one_line, "every slot is one 64-byte-aligned cache line (with and without info text)");
	for (uintptr_t i = 0; i < PRODUCERS; i++)
		pthread_create(&t[i], NULL, producer, (void *)i);
	for (int i = 0; i < PRODUCERS; i++)
		pthread_join(t[i], NULL);
	ok(ring.ctl->write_seq == 64 && ring.ctl->dropped == total - 64,
	   "no reader: 64 kept, %llu dropped", (unsigned long long)ring.ctl->dropped);
	iogap_ring_close(&ring, 3, true);
	rmdir(dir);
	free(seen);
	return tap_done();
}
