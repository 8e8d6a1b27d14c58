/*
 * libFuzzer target for the filter's write-tag scan (qemu-filter/tagscan.h).
 * Its input is what a guest writes, so anything: the scan runs inside QEMU
 * and must never read outside the payload nor misreport it.
 *
 * Input: byte 0: number of elements (1..16); byte 1: the offset into the
 * vector (qiov_offset); byte 2: run id 0 (any run) or 7; then one byte per
 * element, its length: (byte >> 6) KiB plus (byte & 63) x 16 bytes, the last
 * element taking the rest; the rest is the payload, spread over the elements
 * (each its own allocation, so ASan sees any read past one).  Checked:
 *   - the parts are contiguous, non-empty and cover [0, bytes) exactly;
 *   - a tagged part's tag is the request id of a valid tag inside the payload;
 *   - where the one-part shortcut decides (iogap_tagscan_one_part), it gives
 *     the full scan's single part, flags and tag.
 * Seeds (IOGAP_FUZZ_SEED_DIR): untagged, one request, two merged requests (in
 * three elements and in one).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tagscan.h"

#define MAXEL 16
#define MAXPARTS 4096

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct parts {
	unsigned n;
	struct { uint64_t start, len, tag; uint8_t flags; } p[MAXPARTS];
};

static void collect(void *ctx, uint64_t start, uint64_t len, uint8_t flags, uint64_t tag)
{
	struct parts *ps = ctx;

	if (ps->n >= MAXPARTS)
		abort();   /* at most one part per sector */
	ps->p[ps->n].start = start;
	ps->p[ps->n].len = len;
	ps->p[ps->n].flags = flags;
	ps->p[ps->n].tag = tag;
	ps->n++;
}

/* ------------------------------------------------------------ seeds */

static void put_tag(uint8_t *p, uint64_t run, uint64_t req, uint32_t block)
{
	struct iogap_write_tag t = { IOGAP_TAG_MAGIC, run, req, block, 0 };

	t.check = iogap_tag_check(&t);
	memcpy(p, &t, sizeof(t));
}

static void write_seed(const char *dir, int k, const uint8_t *buf, size_t len)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/seed-%d", dir, k);
	f = fopen(path, "wb");
	if (!f)
		return;
	fwrite(buf, 1, len, f);
	fclose(f);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *dir = getenv("IOGAP_FUZZ_SEED_DIR");
	static uint8_t buf[3 + MAXEL + 8192];

	(void)argc;
	(void)argv;
	if (!dir || !*dir || (mkdir(dir, 0755) && errno != EEXIST))
		return 0;
	for (int k = 0; k < 5; k++) {
		size_t nel = k == 3 ? 3 : 1, len = 3 + nel + 8192;

		memset(buf, 0x5a, sizeof(buf));
		buf[0] = (uint8_t)nel;
		buf[1] = k == 2 ? 100 : 0;
		buf[2] = k % 2 ? 7 : 0;
		for (size_t e = 0; e < nel; e++)
			buf[3 + e] = nel == 1 ? 255 : (uint8_t)(40 + e);
		if (k > 0)   /* one 8 KiB request: tags at 0 and 4 KiB */
			for (uint32_t b = 0; b < 2; b++)
				put_tag(buf + 3 + nel + buf[1] + b * IOGAP_TAG_STRIDE, 7, 500, b);
		if (k >= 3)   /* and a second request from sector 3 */
			put_tag(buf + 3 + nel + 3 * IOGAP_SECTOR, 7, 501, 0);
		write_seed(dir, k, buf, len);
	}
	return 0;
}

/* ------------------------------------------------------------ target */

/* Is tag the request id of a valid tag (of run, when set) at a sector start? */
static bool tag_in_payload(const uint8_t *flat, uint64_t bytes, uint64_t run, uint64_t tag)
{
	for (uint64_t pos = 0; pos + sizeof(struct iogap_write_tag) <= bytes; pos += IOGAP_SECTOR) {
		struct iogap_write_tag t;

		memcpy(&t, flat + pos, sizeof(t));
		if (iogap_tag_valid(&t) && (!run || t.run_id == run) && t.request_id == tag)
			return true;
	}
	return false;
}

static void check(const struct iovec *iov, int n, size_t skip, uint64_t bytes, uint64_t run,
		  const uint8_t *flat)
{
	static struct parts a;
	uint64_t at = 0, tag;
	uint8_t flags;

	a.n = 0;
	iogap_tagscan_parts(iov, n, skip, bytes, run, collect, &a);
	if (a.n == 0)
		abort();
	for (unsigned i = 0; i < a.n; i++) {
		if (a.p[i].start != at || (a.p[i].len == 0 && bytes) ||
		    ((a.p[i].flags & IOGAP_REC_TAGGED) && !tag_in_payload(flat, bytes, run, a.p[i].tag)))
			abort();
		at += a.p[i].len;
	}
	if (at != bytes)
		abort();
	if (iogap_tagscan_one_part(iov, n, skip, bytes, run, &flags, &tag) &&
	    (a.n != 1 || a.p[0].flags != flags || a.p[0].tag != tag))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct iovec iov[MAXEL];
	uint8_t *flat;
	size_t nel, skip, hdr, left, total = 0;
	uint64_t run;

	if (size < 4)
		return 0;
	nel = (size_t)(data[0] % MAXEL) + 1;
	skip = data[1];
	run = data[2] & 1 ? 7 : 0;
	hdr = 3 + nel;
	if (size < hdr)
		return 0;
	left = size - hdr;
	for (size_t e = 0; e < nel; e++) {
		size_t want = (size_t)(data[3 + e] >> 6) * 1024 + (size_t)(data[3 + e] & 63) * 16;
		size_t len = e == nel - 1 || want > left ? left : want;

		iov[e].iov_base = malloc(len ? len : 1);
		iov[e].iov_len = len;
		memcpy(iov[e].iov_base, data + hdr + total, len);
		total += len;
		left -= len;
	}
	if (skip <= total) {
		/* the payload as one flat copy, for the tag check */
		flat = malloc(total - skip + 1);
		memcpy(flat, data + hdr + skip, total - skip);
		check(iov, (int)nel, skip, total - skip, run, flat);
		free(flat);
	}
	for (size_t e = 0; e < nel; e++)
		free(iov[e].iov_base);
	return 0;
}
