/* SPDX-License-Identifier: MIT */
/*
 * kmatch_files PROBE.trace KERNEL.trace FILE|-: match the probe's requests
 * on FILE with the kernel trace (kmatch.h) and print the counts and the
 * matched requests' median kernel stages (submit: start -> kernel issue,
 * device: kernel issue -> completion, return: -> the probe's completion;
 * medians: under TCG the means follow a few long stalls).
 * FILE's offsets are mapped to disk offsets through FIEMAP here, for the
 * test on this host (whose disk cannot be opened directly); a request
 * crossing an extent boundary is counted as unmapped.  "-": the probe ran
 * on the whole disk, its offsets are the disk's.  The whole kernel trace
 * is held: a test's trace is small.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "kmatch.h"
#include "trace_file.h"

#define MAX_EXTENTS 4096

static struct fiemap *file_extents(const char *path)
{
	struct fiemap *fm = calloc(1, sizeof(*fm) + MAX_EXTENTS * sizeof(struct fiemap_extent));
	int fd = open(path, O_RDONLY);

	if (!fm || fd < 0)
		goto fail;
	fm->fm_length = FIEMAP_MAX_OFFSET;
	fm->fm_flags = FIEMAP_FLAG_SYNC;
	fm->fm_extent_count = MAX_EXTENTS;
	if (ioctl(fd, FS_IOC_FIEMAP, fm))
		goto fail;
	close(fd);
	return fm;
fail:
	fprintf(stderr, "kmatch_files: %s: FIEMAP: %s\n", path, strerror(errno));
	if (fd >= 0)
		close(fd);
	free(fm);
	return NULL;
}

/* The disk offset of [off, off + len) of the file, if one extent holds it. */
static int to_disk(const struct fiemap *fm, uint64_t off, uint64_t len, uint64_t *disk)
{
	for (uint32_t i = 0; i < fm->fm_mapped_extents; i++) {
		const struct fiemap_extent *e = &fm->fm_extents[i];

		if (off >= e->fe_logical && off + len <= e->fe_logical + e->fe_length) {
			*disk = e->fe_physical + (off - e->fe_logical);
			return 0;
		}
	}
	return -1;
}

enum { SUBMIT, DEVICE, RETURN, STAGES };

struct values {
	int64_t *v;
	size_t n, cap;
};

static int push(struct values *vs, int64_t v)
{
	if (vs->n == vs->cap) {
		size_t cap = vs->cap ? 2 * vs->cap : 1024;
		int64_t *p = realloc(vs->v, cap * sizeof(*p));

		if (!p)
			return -1;
		vs->v = p;
		vs->cap = cap;
	}
	vs->v[vs->n++] = v;
	return 0;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

static int64_t median(struct values *vs)
{
	qsort(vs->v, vs->n, sizeof(*vs->v), cmp_i64);
	return vs->v[vs->n / 2];
}

int main(int argc, char **argv)
{
	struct iogap_trace_reader *pr, *kr;
	struct iogap_trace_record r, k;
	struct iogap_kmatch *m;
	struct fiemap *fm;
	const struct iogap_kmatch_counts *c;
	uint64_t unmapped = 0, requests = 0, kernel = 0;
	struct values st[STAGES] = { 0 };
	char err[512];
	const char *res;
	int got;

	if (argc != 4) {
		fprintf(stderr, "usage: kmatch_files PROBE.trace KERNEL.trace FILE\n");
		return 2;
	}
	pr = iogap_trace_reader_open(argv[1], err, sizeof(err));
	kr = pr ? iogap_trace_reader_open(argv[2], err, sizeof(err)) : NULL;
	fm = kr && strcmp(argv[3], "-") ? file_extents(argv[3]) : NULL;
	if (!pr || !kr || (!fm && strcmp(argv[3], "-"))) {
		fprintf(stderr, "kmatch_files: %s\n", err);
		return 1;
	}
	/* the kernel stamps' resolution, as the probe wrote it */
	res = strstr(iogap_trace_reader_info(kr), "\nstamp_resolution_ns=");
	if (!res) {
		fprintf(stderr, "kmatch_files: %s: no stamp_resolution_ns in its info\n", argv[2]);
		return 1;
	}
	m = iogap_kmatch_new(0, strtoull(res + 21, NULL, 10));
	if (!m) {
		fprintf(stderr, "kmatch_files: out of memory\n");
		return 1;
	}
	while ((got = iogap_trace_reader_next(kr, &k, err, sizeof(err))) == 1) {
		kernel++;
		if (iogap_kmatch_add_kernel(m, &k)) {
			fprintf(stderr, "kmatch_files: kernel trace out of completion order\n");
			return 1;
		}
	}
	if (got == 0)
		got = iogap_trace_reader_next(pr, &r, err, sizeof(err));
	for (; got == 1; got = iogap_trace_reader_next(pr, &r, err, sizeof(err))) {
		struct iogap_trace_record mapped = r;

		requests++;
		if (fm && to_disk(fm, r.offset, r.length, &mapped.offset)) {
			unmapped++;
		} else if (iogap_kmatch_request(m, &mapped, &k) == IOGAP_KMATCH_MATCHED) {
			if (push(&st[SUBMIT], (int64_t)(k.issue_ns - r.start_ns)) ||
			    push(&st[DEVICE], (int64_t)(k.complete_ns - k.issue_ns)) ||
			    push(&st[RETURN], (int64_t)(r.complete_ns - k.complete_ns))) {
				fprintf(stderr, "kmatch_files: out of memory\n");
				return 1;
			}
		}
	}
	if (got < 0) {
		fprintf(stderr, "kmatch_files: %s\n", err);
		return 1;
	}
	c = iogap_kmatch_counts(m);
	printf("requests=%" PRIu64 " kernel=%" PRIu64 " matched=%" PRIu64 " none=%" PRIu64
	       " ambiguous=%" PRIu64 " split=%" PRIu64 " merged=%" PRIu64 " unmapped=%" PRIu64,
	       requests, kernel, c->matched, c->none, c->ambiguous, c->split, c->merged, unmapped);
	if (c->matched)
		printf(" submit_p50_ns=%" PRId64 " device_p50_ns=%" PRId64 " return_p50_ns=%" PRId64,
		       median(&st[SUBMIT]), median(&st[DEVICE]), median(&st[RETURN]));
	printf("\n");
	iogap_kmatch_free(m);
	for (int i = 0; i < STAGES; i++)
		free(st[i].v);
	free(fm);
	iogap_trace_reader_close(pr);
	iogap_trace_reader_close(kr);
	return 0;
}
