/*
 * trace-writer — the cost per record of guest-probe/trace_file.c's writer alone.
 *
 * Usage: trace-writer FILE RECORDS THREADS BATCH ROUNDS
 *
 * Each of THREADS threads fills records into its own buffer of BATCH records, the way the
 * runner does (record_io), and hands a full buffer to iogap_trace_writer_append; RECORDS in
 * all.  The same loop without the append (records filled, buffer reused) is the baseline:
 * the difference is what the writer costs per record.  Rounds alternate baseline and
 * writer runs; per round it prints ns per record (wall clock, and CPU time of the process:
 * user + system, so the kernel's copy into the page cache counts), then the median and
 * min-max of each over the rounds.  The trace is closed (fdatasync) inside the timed part:
 * a writer that only defers its cost to close would not look cheap.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "trace_file.h"

struct filler {
	struct iogap_trace_writer *w;   /* NULL: baseline, records are only filled */
	uint64_t first, count;
	size_t batch;
	uint32_t tid;
	int rc;
};

static uint64_t clock_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t cpu_ns(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000u +
	       (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000u;
}

/* What record_io writes: a plausible record, fields from the request id. */
static void fill(struct iogap_trace_record *r, uint64_t id, uint32_t tid)
{
	r->tag = id;
	r->offset = (id * 4096) & ((1ull << 30) - 1);
	r->start_ns = 1000 + id * 100;
	r->issue_ns = r->start_ns + 10;
	r->complete_ns = r->issue_ns + 50;
	r->length = 4096;
	r->result = 4096;
	r->thread = tid;
	r->job = 0;
	r->op = IOGAP_OP_READ;
	r->flags = 0;
}

static void *filler_main(void *arg)
{
	struct filler *f = arg;
	struct iogap_trace_record *buf = malloc(f->batch * sizeof(*buf));
	volatile uint64_t sink = 0;
	size_t n = 0;

	if (!buf) {
		f->rc = -1;
		return NULL;
	}
	for (uint64_t i = 0; i < f->count && !f->rc; i++) {
		fill(&buf[n++], f->first + i, f->tid);
		if (n < f->batch && i + 1 < f->count)
			continue;
		if (f->w)
			f->rc = iogap_trace_writer_append(f->w, buf, n);
		else
			sink += buf[n - 1].tag;   /* keep the fills */
		n = 0;
	}
	free(buf);
	return NULL;
}

/* One timed run; 0 or -1.  ns per record into wall and cpu. */
static int run(const char *path, uint64_t records, unsigned threads, size_t batch,
	       int with_writer, double *wall, double *cpu)
{
	struct iogap_trace_header h = { .producer = IOGAP_PRODUCER_PROBE_BARE,
					.clock = IOGAP_CLOCK_HOST_MONOTONIC };
	struct filler f[64];
	pthread_t th[64];
	struct iogap_trace_writer *w = NULL;
	char err[256];
	uint64_t t0, c0;
	int rc = 0;

	strcpy(h.layer, "bare");
	t0 = clock_ns(CLOCK_MONOTONIC);
	c0 = cpu_ns();
	if (with_writer) {
		w = iogap_trace_writer_open(path, &h, "tool=trace-writer\n", err, sizeof(err));
		if (!w) {
			fprintf(stderr, "trace-writer: %s\n", err);
			return -1;
		}
	}
	for (unsigned t = 0; t < threads; t++) {
		f[t] = (struct filler){ .w = w, .first = t * (records / threads),
					.count = records / threads, .batch = batch, .tid = t + 1 };
		pthread_create(&th[t], NULL, filler_main, &f[t]);
	}
	for (unsigned t = 0; t < threads; t++) {
		pthread_join(th[t], NULL);
		rc |= f[t].rc;
	}
	if (w && iogap_trace_writer_close(w, clock_ns(CLOCK_MONOTONIC), 0, err, sizeof(err))) {
		fprintf(stderr, "trace-writer: %s\n", err);
		return -1;
	}
	if (rc) {
		fprintf(stderr, "trace-writer: append failed\n");
		return -1;
	}
	*wall = (double)(clock_ns(CLOCK_MONOTONIC) - t0) / (double)records;
	*cpu = (double)(cpu_ns() - c0) / (double)records;
	return 0;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void summary(const char *name, double *v, unsigned n)
{
	qsort(v, n, sizeof(*v), cmp);
	printf("%-28s median %7.1f  [min %6.1f - max %6.1f]  ns/record\n", name,
	       n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2, v[0], v[n - 1]);
}

int main(int argc, char **argv)
{
	double bw[64], bc[64], ww[64], wc[64], dw[64], dc[64];
	uint64_t records;
	unsigned threads, rounds;
	size_t batch;

	if (argc != 6) {
		fprintf(stderr, "usage: trace-writer FILE RECORDS THREADS BATCH ROUNDS\n");
		return 2;
	}
	records = strtoull(argv[2], NULL, 0);
	threads = (unsigned)strtoul(argv[3], NULL, 0);
	batch = strtoull(argv[4], NULL, 0);
	rounds = (unsigned)strtoul(argv[5], NULL, 0);
	if (!records || !threads || threads > 64 || !batch || !rounds || rounds > 64) {
		fprintf(stderr, "trace-writer: RECORDS, BATCH > 0; 1..64 THREADS and ROUNDS\n");
		return 2;
	}
	records -= records % threads;
	for (unsigned r = 0; r < rounds; r++) {
		if (run(argv[1], records, threads, batch, 0, &bw[r], &bc[r]) ||
		    run(argv[1], records, threads, batch, 1, &ww[r], &wc[r]))
			return 1;
		dw[r] = ww[r] - bw[r];
		dc[r] = wc[r] - bc[r];
		printf("round %2u: fill only %.1f wall %.1f cpu, with writer %.1f wall %.1f cpu "
		       "ns/record\n", r + 1, bw[r], bc[r], ww[r], wc[r]);
		unlink(argv[1]);
	}
	printf("%" PRIu64 " records of %zu bytes, %u thread(s), batches of %zu, %u rounds\n",
	       records, sizeof(struct iogap_trace_record), threads, batch, rounds);
	summary("writer cost, wall clock", dw, rounds);
	summary("writer cost, CPU (usr+sys)", dc, rounds);
	summary("fill only, wall clock", bw, rounds);
	return 0;
}
