/* SPDX-License-Identifier: MIT */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rand.h"
#include "selftest.h"
#include "sha.h"
#include "stamp.h"
#include "util.h"
#include "verify.h"

struct bench {
	const char *name;
	void (*fn)(void *arg);
};

/* fio's get_test_mask: the tests named in list (NULL: all); 0 if none */
static unsigned long pick(const struct bench *t, size_t nr, const char *list, const char *what)
{
	unsigned long mask = 0;
	char buf[256], *save = NULL, *tok;

	if (!list)
		return ~0UL;
	snprintf(buf, sizeof(buf), "%s", list);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		size_t i;

		for (i = 0; i < nr && strcmp(t[i].name, tok); i++)
			;
		if (i == nr) {
			fprintf(stderr, "fio: unknown %s `%s`. Available:\n", what, tok);
			return 0;
		}
		mask |= 1UL << i;
	}
	return mask;
}

static int list_names(const struct bench *t, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		printf("%s\n", t[i].name);
	return 1;
}

/* fio's usec_spin: busy for us microseconds (CPUs spun up) */
static void spin_us(uint64_t us)
{
	uint64_t end = iogap_now_ns() + us * 1000;

	while (iogap_now_ns() < end)
		;
}

static double mib_per_sec(uint64_t bytes, uint64_t ns)
{
	/* fio: bytes / usec / (1.024 * 1.024) */
	return (double)bytes / ((double)ns / 1000.0) / (1.024 * 1.024);
}

/* ---- --crctest ---- */

#define CRC_CHUNK 131072U       /* fio's: 2048 times a 128 KiB buffer */
#define CRC_CHUNKS 2048U

static volatile uint64_t sink;   /* keeps the sums from being optimised out */

struct crc_arg {
	const unsigned char *buf;
};

static void t_md5(void *arg)
{
	const struct crc_arg *a = arg;
	uint8_t d[16];

	for (unsigned i = 0; i < CRC_CHUNKS; i++) {
		iogap_md5(a->buf, CRC_CHUNK, d);
		sink += d[0];
	}
}

#define CRC_TEST(fn, call)                                             \
	static void fn(void *arg)               \
	{                                                              \
		const struct crc_arg *a = arg;                         \
		for (unsigned i = 0; i < CRC_CHUNKS; i++)              \
			sink += call;                                  \
	}
CRC_TEST(t_crc64, iogap_crc64(a->buf, CRC_CHUNK))
CRC_TEST(t_crc32, iogap_crc32(a->buf, CRC_CHUNK))
CRC_TEST(t_crc32c, iogap_crc32c(a->buf, CRC_CHUNK))
CRC_TEST(t_crc16, iogap_crc16(a->buf, CRC_CHUNK))
CRC_TEST(t_crc7, iogap_crc7(a->buf, CRC_CHUNK))
CRC_TEST(t_xxhash, iogap_xxhash32(a->buf, CRC_CHUNK, 0x8989))

/* a digest of `size` bytes per chunk, its first byte summed */
#define DIGEST_TEST(fn, size, call)                                    \
	static void fn(void *arg)                                      \
	{                                                              \
		const struct crc_arg *a = arg;                         \
		uint8_t d[size];                                       \
		for (unsigned i = 0; i < CRC_CHUNKS; i++) {            \
			call;                                          \
			sink += d[0];                                  \
		}                                                      \
	}
DIGEST_TEST(t_sha1, 20, iogap_sha1(a->buf, CRC_CHUNK, (uint32_t *)(void *)d))
DIGEST_TEST(t_sha256, 32, iogap_sha256(a->buf, CRC_CHUNK, d))
DIGEST_TEST(t_sha3_224, 28, iogap_sha3(a->buf, CRC_CHUNK, 28, d))
DIGEST_TEST(t_sha3_256, 32, iogap_sha3(a->buf, CRC_CHUNK, 32, d))
DIGEST_TEST(t_sha3_384, 48, iogap_sha3(a->buf, CRC_CHUNK, 48, d))
DIGEST_TEST(t_sha3_512, 64, iogap_sha3(a->buf, CRC_CHUNK, 64, d))

/* fio's order; its sha512 (the probe's verify=sha512 needs none: sha512.c),
 * murmur3, jhash and fnv are no checksums of the probe */
static const struct bench crc_tests[] = {
	{ "md5", t_md5 }, { "crc64", t_crc64 }, { "crc32", t_crc32 },
	{ "crc32c", t_crc32c }, { "crc16", t_crc16 }, { "crc7", t_crc7 },
	{ "sha1", t_sha1 }, { "sha256", t_sha256 }, { "xxhash", t_xxhash },
	{ "sha3-224", t_sha3_224 }, { "sha3-256", t_sha3_256 }, { "sha3-384", t_sha3_384 },
	{ "sha3-512", t_sha3_512 },
};
#define NR_CRC (sizeof(crc_tests) / sizeof(crc_tests[0]))

int iogap_crctest(const char *type)
{
	struct crc_arg a;
	unsigned long mask;
	unsigned char *buf;
	bool first = true;

	if (type && (!strcmp(type, "help") || !strcmp(type, "list")))
		return list_names(crc_tests, NR_CRC);
	mask = pick(crc_tests, NR_CRC, type, "hash");
	if (!mask)
		return list_names(crc_tests, NR_CRC);
	buf = malloc(CRC_CHUNK);
	if (!buf) {
		fprintf(stderr, "iogap-probe: --crctest: out of memory\n");
		return 1;
	}
	iogap_rand_fill(buf, CRC_CHUNK, 0x8989);
	a.buf = buf;
	for (size_t i = 0; i < NR_CRC; i++) {
		uint64_t t0, ns;

		if (!(mask & (1UL << i)))
			continue;
		if (first) {   /* fio: CPUs spun up, the data touched */
			spin_us(100000);
			crc_tests[i].fn(&a);
			first = false;
		}
		t0 = iogap_now_ns();
		crc_tests[i].fn(&a);
		ns = iogap_now_ns() - t0;
		if (ns >= 1000)
			printf("%s:%s%8.2f MiB/sec\n", crc_tests[i].name,
			       strlen(crc_tests[i].name) >= 7 ? "\t" : "\t\t",
			       mib_per_sec((uint64_t)CRC_CHUNK * CRC_CHUNKS, ns));
		else
			printf("%s:inf MiB/sec\n", crc_tests[i].name);
	}
	free(buf);
	return 0;
}

/* ---- --memcpytest ---- */

#define COPY_BUF (32U << 20)    /* fio's: 64 times 32 MiB, in pieces of each size */
#define COPY_ITERS 64

static const size_t copy_sizes[] = { 8, 16, 96, 128, 256, 512, 2048, 8192, 131072, 262144,
				     524288 };

struct copy_arg {
	unsigned char *src, *dst;
	size_t size;
};

static void simple_copy(void *dst, const void *src, size_t len)
{
	volatile unsigned char *d = dst;   /* byte by byte, as fio's simple_memcpy */
	const unsigned char *s = src;

	while (len--)
		*d++ = *s++;
}

static void copy_with(const struct copy_arg *a, void (*fn)(void *, const void *, size_t))
{
	for (int i = 0; i < COPY_ITERS; i++)
		for (size_t off = 0; off < COPY_BUF; off += a->size)
			fn(a->dst + off, a->src + off,
			   COPY_BUF - off < a->size ? COPY_BUF - off : a->size);
}

static void libc_memcpy(void *d, const void *s, size_t n)
{
	memcpy(d, s, n);
}

static void libc_memmove(void *d, const void *s, size_t n)
{
	memmove(d, s, n);
}

static void t_memcpy(void *arg)
{
	copy_with(arg, libc_memcpy);
}

static void t_memmove(void *arg)
{
	copy_with(arg, libc_memmove);
}

static void t_simple(void *arg)
{
	copy_with(arg, simple_copy);
}

/* fio's hybrid: byte by byte from 64 bytes up, memcpy below */
static void t_hybrid(void *arg)
{
	const struct copy_arg *a = arg;

	copy_with(a, a->size >= 64 ? simple_copy : libc_memcpy);
}

static const struct bench copy_tests[] = {
	{ "memcpy", t_memcpy }, { "memmove", t_memmove }, { "simple", t_simple },
	{ "hybrid", t_hybrid },
};
#define NR_COPY (sizeof(copy_tests) / sizeof(copy_tests[0]))

int iogap_memcpytest(const char *type)
{
	struct copy_arg a;
	unsigned long mask;

	if (type && (!strcmp(type, "help") || !strcmp(type, "list")))
		return list_names(copy_tests, NR_COPY);
	mask = pick(copy_tests, NR_COPY, type, "hash");   /* fio's word, "hash" */
	if (!mask)
		return list_names(copy_tests, NR_COPY);
	a.src = malloc(COPY_BUF);
	a.dst = malloc(COPY_BUF);
	if (!a.src || !a.dst) {
		free(a.src);
		free(a.dst);
		fprintf(stderr, "setting up mem regions failed\n");
		return 1;
	}
	iogap_rand_fill(a.src, COPY_BUF, 0x8989);
	for (size_t i = 0; i < NR_COPY; i++) {
		if (!(mask & (1UL << i)))
			continue;
		spin_us(100000);
		a.size = copy_sizes[0];
		copy_tests[i].fn(&a);
		printf("%s\n", copy_tests[i].name);
		for (size_t k = 0; k < sizeof(copy_sizes) / sizeof(copy_sizes[0]); k++) {
			uint64_t t0 = iogap_now_ns(), ns;

			a.size = copy_sizes[k];
			copy_tests[i].fn(&a);
			ns = iogap_now_ns() - t0;
			if (ns >= 1000)
				printf("\t%zu bytes:\t%8.2f MiB/sec\n", copy_sizes[k],
				       mib_per_sec((uint64_t)COPY_ITERS * COPY_BUF, ns));
			else
				printf("\t%zu bytes:inf MiB/sec\n", copy_sizes[k]);
		}
	}
	free(a.src);
	free(a.dst);
	return 0;
}

/* ---- --cpuclock-test ---- */

#define CLOCK_ENTRIES 100000    /* fio's CLOCK_ENTRIES_DEBUG */

struct clock_entry {
	uint32_t seq;
	int cpu;
	uint64_t ns;
};

struct clock_thread {
	pthread_t thread;
	int cpu;
	_Atomic uint32_t *seq;
	atomic_bool *go;
	struct clock_entry *e;
	int err;
};

/* fio's clock_thread_fn: a stamp and the next sequence number, taken
 * together (the number only if no other CPU took one between) */
static void *clock_thread(void *arg)
{
	struct clock_thread *t = arg;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(t->cpu, &set);
	if ((t->err = pthread_setaffinity_np(pthread_self(), sizeof(set), &set)))
		return NULL;
	while (!atomic_load(t->go))
		;
	for (int i = 0; i < CLOCK_ENTRIES; i++) {
		uint32_t seq;
		uint64_t ns;

		do {
			seq = atomic_load(t->seq);
			ns = iogap_stamp_ns();
		} while (!atomic_compare_exchange_weak(t->seq, &seq, seq + 1));
		t->e[i] = (struct clock_entry){ .seq = seq, .cpu = t->cpu, .ns = ns };
	}
	printf("cs: cpu%3d: %llu clocks seen, first %llu\n", t->cpu,
	       (unsigned long long)(t->e[CLOCK_ENTRIES - 1].ns - t->e[0].ns),
	       (unsigned long long)t->e[0].ns);
	return NULL;
}

static int by_seq(const void *a, const void *b)
{
	const struct clock_entry *x = a, *y = b;

	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The entries in sequence order: every backward step is a mismatch. */
static unsigned long mismatches(struct clock_entry *e, size_t n)
{
	unsigned long failed = 0;

	qsort(e, n, sizeof(*e), by_seq);
	for (size_t i = 1; i < n; i++) {
		if (e[i - 1].ns <= e[i].ns)
			continue;
		printf("cs: CPU clock mismatch (diff=%llu):\n",
		       (unsigned long long)(e[i - 1].ns - e[i].ns));
		printf("\t CPU%3d: TSC=%llu, SEQ=%u\n", e[i - 1].cpu,
		       (unsigned long long)e[i - 1].ns, e[i - 1].seq);
		printf("\t CPU%3d: TSC=%llu, SEQ=%u\n", e[i].cpu, (unsigned long long)e[i].ns, e[i].seq);
		failed++;
	}
	return failed;
}

int iogap_cpuclock_test(void)
{
	_Atomic uint32_t seq = 0;
	atomic_bool go = false;
	struct clock_thread *t;
	struct clock_entry *e;
	unsigned long failed = 0;
	size_t nr = 0, started = 0;
	cpu_set_t allowed;

	iogap_stamp_init();
	printf("cs: reliable_tsc: %s\n", iogap_stamp_clock.use_tsc ? "yes" : "no");
	if (sched_getaffinity(0, sizeof(allowed), &allowed)) {
		perror("iogap-probe: --cpuclock-test: sched_getaffinity");
		return 1;
	}
	t = calloc((size_t)CPU_COUNT(&allowed), sizeof(*t));
	e = calloc((size_t)CPU_COUNT(&allowed) * CLOCK_ENTRIES, sizeof(*e));
	if (!t || !e) {
		free(t);
		free(e);
		fprintf(stderr, "iogap-probe: --cpuclock-test: out of memory\n");
		return 1;
	}
	printf("cs: Testing %d CPUs\n", CPU_COUNT(&allowed));
	fflush(stdout);
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, &allowed))
			continue;
		t[nr] = (struct clock_thread){ .cpu = cpu, .seq = &seq, .go = &go,
					       .e = e + nr * CLOCK_ENTRIES };
		nr++;
	}
	for (; started < nr; started++)
		if (pthread_create(&t[started].thread, NULL, clock_thread, &t[started]))
			break;
	atomic_store(&go, true);
	for (size_t i = 0; i < started; i++) {
		pthread_join(t[i].thread, NULL);
		failed += t[i].err != 0;
	}
	if (started < nr || failed) {
		fprintf(stderr, "Clocksource test: %lu threads failed\n", failed + (nr - started));
		failed = 1;
	} else {
		failed = mismatches(e, nr * CLOCK_ENTRIES);
		if (failed)
			printf("cs: Failed: %lu\n", failed);
		else
			printf("cs: Pass!\n");
	}
	free(t);
	free(e);
	return failed ? 1 : 0;
}
