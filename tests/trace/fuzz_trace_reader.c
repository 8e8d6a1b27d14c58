/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the trace reader: any byte string, as a file, must
 * give either records or a clean error, never a crash, a hang or an
 * out-of-bounds access.  The input lives in a memfd reached through
 * /proc/self/fd, so the real path-based API is exercised without touching
 * the disk.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace_file.h"

static int fd = -1;
static char path[64];
static FILE *devnull;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* ------------------------------------------------------------ seeds */

static struct iogap_trace_record seed_rec(uint64_t i)
{
	struct iogap_trace_record r = {
		.tag = i, .offset = i * 4096, .start_ns = 100 + i, .issue_ns = 110 + i,
		.complete_ns = 200 + i, .length = 4096, .result = 4096, .thread = 42,
		.op = (uint8_t)(i % 6), .flags = (uint8_t)(i & 15),
	};

	return r;
}

static void seed_header(struct iogap_trace_header *h, const char *info)
{
	memset(h, 0, sizeof(*h));
	memcpy(h->magic, IOGAP_TRACE_MAGIC, IOGAP_TRACE_MAGIC_LEN);
	h->version = IOGAP_TRACE_VERSION;
	h->header_size = sizeof(*h);
	h->record_size = sizeof(struct iogap_trace_record);
	h->producer = IOGAP_PRODUCER_FILTER;
	h->clock = IOGAP_CLOCK_HOST_MONOTONIC;
	h->info_size = (uint32_t)strlen(info);
	h->records_offset = (sizeof(*h) + h->info_size + IOGAP_TRACE_ALIGN - 1) /
			    IOGAP_TRACE_ALIGN * IOGAP_TRACE_ALIGN;
	memcpy(h->layer, "top", 3);
}

/* Writes header + info + padding; the caller appends the rest. */
static FILE *seed_open(const char *dir, const char *name, const struct iogap_trace_header *h,
		       const char *info)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		return NULL;
	fwrite(h, sizeof(*h), 1, f);
	fwrite(info, h->info_size, 1, f);
	for (long p = ftell(f); p < (long)h->records_offset; p++)
		fputc(0, f);
	return f;
}

/* A few valid traces of each kind, so fuzzing starts past the header checks. */
static void write_seeds(const char *dir)
{
	const char *info = "layer=top\nnode=disk0\n";
	struct iogap_trace_header h;
	struct iogap_trace_record r;
	struct iogap_ring_control c = { .write_seq = 6, .read_seq = 3, .dropped = 1 };
	FILE *f;

	if (mkdir(dir, 0755) && errno != EEXIST)
		return;
	seed_header(&h, info);
	h.flags = IOGAP_TRACE_F_COMPLETE;
	h.record_count = 6;
	if ((f = seed_open(dir, "seed-plain", &h, info))) {
		for (uint64_t i = 0; i < 6; i++) {
			r = seed_rec(i);
			fwrite(&r, sizeof(r), 1, f);
		}
		fclose(f);
	}
	h.flags = 0;
	h.record_count = 0;
	if ((f = seed_open(dir, "seed-incomplete", &h, info))) {
		for (uint64_t i = 0; i < 2; i++) {
			r = seed_rec(i);
			fwrite(&r, sizeof(r), 1, f);
		}
		fwrite("stray", 5, 1, f);
		fclose(f);
	}
	h.flags = IOGAP_TRACE_F_RING;
	h.record_count = 4;
	if ((f = seed_open(dir, "seed-ring", &h, info))) {
		fwrite(&c, sizeof(c), 1, f);
		for (uint64_t s = 0; s < 4; s++) {
			r = seed_rec(s < 2 ? s + 4 : s);
			fwrite(&r, sizeof(r), 1, f);
		}
		fclose(f);
	}
}

/* IOGAP_FUZZ_SEED_DIR: where to put the seed traces (the corpus dir). */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *dir = getenv("IOGAP_FUZZ_SEED_DIR");

	(void)argc;
	(void)argv;
	if (dir && *dir)
		write_seeds(dir);
	return 0;
}

/* ------------------------------------------------------------ target */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct iogap_trace_reader *r;
	struct iogap_trace_record rec;
	char err[512];

	if (fd < 0) {
		fd = memfd_create("iogap-fuzz", MFD_CLOEXEC);
		if (fd < 0)
			abort();
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		devnull = fopen("/dev/null", "w");
	}
	if (ftruncate(fd, 0) || (size && pwrite(fd, data, size, 0) != (ssize_t)size))
		abort();

	r = iogap_trace_reader_open(path, err, sizeof(err));
	if (r) {
		const struct iogap_trace_header *h = iogap_trace_reader_header(r);
		uint64_t n = 0;

		/* Whatever was accepted must be self-consistent. */
		if (h->header_size != sizeof(*h) || h->record_size != sizeof(rec) ||
		    !iogap_trace_reader_info(r))
			abort();
		while (iogap_trace_reader_next(r, &rec, err, sizeof(err)) == 1)
			if (++n > size / sizeof(rec))
				abort();        /* more records than bytes allow */
		iogap_trace_reader_close(r);
	}
	if (devnull)
		iogap_trace_dump(devnull, path, err, sizeof(err));
	return 0;
}
