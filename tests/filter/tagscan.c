/* SPDX-License-Identifier: MIT */
/*
 * The filter's write-tag scan (qemu-filter/tagscan.h) over iovecs of many small
 * elements: tags (and their magic) straddling element boundaries are found,
 * the parts emitted are those of a whole-vector reference scan (the previous,
 * from-element-0 peek, kept here as the reference), and a 1 MiB write in
 * 4 KiB elements costs linear time.  TAP output.
 */
#include <stdlib.h>
#include <time.h>

#include "../tap.h"
#include "tagscan.h"

#define MAXPARTS 4096

struct parts {
	int n;
	struct { uint64_t start, len, tag; uint8_t flags; } p[MAXPARTS];
};

static void collect(void *ctx, uint64_t start, uint64_t len, uint8_t flags, uint64_t tag)
{
	struct parts *ps = ctx;

	if (ps->n < MAXPARTS) {
		ps->p[ps->n].start = start;
		ps->p[ps->n].len = len;
		ps->p[ps->n].tag = tag;
		ps->p[ps->n].flags = flags;
	}
	ps->n++;
}

/* ---- reference: the previous scan, peeking from element 0 at every sector */
static bool ref_peek(const struct iovec *iov, int niov, size_t off, size_t pos, void *dst,
		     size_t len)
{
	size_t skip = off + pos, got = 0;

	for (int i = 0; i < niov && got < len; i++) {
		size_t l = iov[i].iov_len, c;

		if (skip >= l) {
			skip -= l;
			continue;
		}
		c = l - skip < len - got ? l - skip : len - got;
		memcpy((uint8_t *)dst + got, (const uint8_t *)iov[i].iov_base + skip, c);
		got += c;
		skip = 0;
	}
	return got == len;
}

static void ref_scan(const struct iovec *iov, int niov, size_t off, uint64_t bytes,
		     uint64_t run_id, struct parts *ps)
{
	uint64_t seg_tag = 0, seg_start = 0;
	bool tagged = false;

	for (size_t pos = 0; pos + sizeof(struct iogap_write_tag) <= bytes; pos += IOGAP_SECTOR) {
		struct iogap_write_tag t;
		uint64_t magic, req_start;

		if (!ref_peek(iov, niov, off, pos, &magic, sizeof(magic)))
			break;
		if (magic != IOGAP_TAG_MAGIC || !ref_peek(iov, niov, off, pos, &t, sizeof(t)) ||
		    !iogap_tag_valid(&t) || (run_id && t.run_id != run_id) ||
		    (tagged && t.request_id == seg_tag))
			continue;
		req_start = (uint64_t)t.block * IOGAP_TAG_STRIDE <= pos ?
			    pos - (uint64_t)t.block * IOGAP_TAG_STRIDE : 0;
		if (req_start < seg_start)
			req_start = seg_start;
		if (req_start > seg_start)
			collect(ps, seg_start, req_start - seg_start,
				(tagged ? IOGAP_REC_TAGGED : 0) | IOGAP_REC_MERGED, seg_tag);
		seg_start = req_start;
		seg_tag = t.request_id;
		tagged = true;
	}
	collect(ps, seg_start, bytes - seg_start,
		(seg_start ? IOGAP_REC_MERGED : 0) | (tagged ? IOGAP_REC_TAGGED : 0), seg_tag);
}

/* ---- payload building */
static uint64_t rng = 0x1234567887654321ull;
static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void put_tag(uint8_t *buf, uint64_t run, uint64_t req, uint32_t block, int garble)
{
	struct iogap_write_tag t = { IOGAP_TAG_MAGIC, run, req, block, 0 };

	t.check = iogap_tag_check(&t) + (garble ? 1 : 0);
	memcpy(buf, &t, sizeof(t));
}

/* A merged payload: requests of 1..12 sectors back to back, a tag at each 4 KiB
 * stride of each; some garbled, some of another run. */
static void fill_merged(uint8_t *buf, size_t len, uint64_t run)
{
	size_t pos = 0;
	uint64_t req = 1000;

	for (size_t i = 0; i < len; i++)
		buf[i] = (uint8_t)rnd();
	while (pos < len) {
		size_t rl = (1 + rnd() % 12) * IOGAP_SECTOR;
		uint64_t kind = rnd() % 8;

		req++;
		for (uint32_t b = 0; (size_t)b * IOGAP_TAG_STRIDE < rl &&
		     pos + (size_t)b * IOGAP_TAG_STRIDE + 32 <= len; b++)
			put_tag(buf + pos + (size_t)b * IOGAP_TAG_STRIDE,
				kind == 0 ? run + 1 : run, req, b, kind == 1 && b == 0);
		pos += rl;
	}
}

/* Split [0, len) of buf into elements of random sizes (0..maxel), preceded by a
 * prefix element of skip garbage bytes (the qiov_offset). */
static int split(uint8_t *buf, size_t len, uint8_t *prefix, size_t skip, size_t maxel,
		 struct iovec *iov, int maxiov)
{
	int n = 0;
	size_t pos = 0;

	if (skip)
		iov[n++] = (struct iovec){ prefix, skip };
	while (pos < len && n < maxiov - 1) {
		size_t l = rnd() % (maxel + 1);

		if (l > len - pos)
			l = len - pos;
		iov[n++] = (struct iovec){ buf + pos, l };
		pos += l;
	}
	if (pos < len)
		iov[n++] = (struct iovec){ buf + pos, len - pos };
	return n;
}

static int same(const struct parts *a, const struct parts *b)
{
	if (a->n != b->n)
		return 0;
	for (int i = 0; i < a->n && i < MAXPARTS; i++)
		if (a->p[i].start != b->p[i].start || a->p[i].len != b->p[i].len ||
		    a->p[i].tag != b->p[i].tag || a->p[i].flags != b->p[i].flags)
			return 0;
	return 1;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#define MAXIOV 70000

int main(void)
{
	static uint8_t buf[1 << 20], prefix[4096];
	static struct iovec iov[MAXIOV];
	static struct parts a, b;
	int n, bad;

	tap_plan(9);

	/* 1. two requests (4 KiB, then 8 KiB: tags at 0, 4 and 8 KiB) merged, in
	 * 7-byte elements: every magic and tag straddles elements */
	memset(buf, 0x5a, 12288);
	put_tag(buf, 7, 501, 0, 0);
	put_tag(buf + 4096, 7, 502, 0, 0);
	put_tag(buf + 8192, 7, 502, 1, 0);
	n = 0;
	for (size_t pos = 0; pos < 12288; pos += 7)
		iov[n++] = (struct iovec){ buf + pos, pos + 7 <= 12288 ? 7 : 12288 - pos };
	a.n = 0;
	iogap_tagscan(iov, n, 0, 12288, 7, collect, &a);
	ok(a.n == 2 && a.p[0].start == 0 && a.p[0].len == 4096 && a.p[0].tag == 501 &&
	   a.p[0].flags == (IOGAP_REC_TAGGED | IOGAP_REC_MERGED) && a.p[1].start == 4096 &&
	   a.p[1].len == 8192 && a.p[1].tag == 502 &&
	   a.p[1].flags == (IOGAP_REC_TAGGED | IOGAP_REC_MERGED),
	   "merged write in 7-byte elements: one part per request, tags 501 and 502 (%d parts)",
	   a.n);

	/* 2. garbled stride 0, valid stride 1; element boundary inside the tag's
	 * request_id (byte 4096 + 20) and inside stride 0's magic (byte 3) */
	memset(buf, 0x11, 8192);
	put_tag(buf, 7, 4242, 0, 1);
	put_tag(buf + 4096, 7, 4242, 1, 0);
	iov[0] = (struct iovec){ prefix, 100 };
	iov[1] = (struct iovec){ buf, 3 };
	iov[2] = (struct iovec){ buf + 3, 0 };
	iov[3] = (struct iovec){ buf + 3, 4096 + 20 - 3 };
	iov[4] = (struct iovec){ buf + 4096 + 20, 8192 - 4096 - 20 };
	a.n = 0;
	iogap_tagscan(iov, 5, 100, 8192, 7, collect, &a);
	ok(a.n == 1 && a.p[0].start == 0 && a.p[0].len == 8192 && a.p[0].tag == 4242 &&
	   a.p[0].flags == IOGAP_REC_TAGGED,
	   "garbled stride 0, valid straddling tag at stride 1: request 4242, whole write");
	a.n = 0;
	iogap_tagscan(iov, 5, 100, 8192, 8, collect, &a);
	ok(a.n == 1 && a.p[0].tag == 0 && a.p[0].flags == 0,
	   "run-id mismatch: untagged, across elements too");

	/* 3. a tag cut off by the end of the vector is not read past it */
	a.n = 0;
	iogap_tagscan(iov, 4, 100, 4096 + 20, 0, collect, &a);
	ok(a.n == 1 && a.p[0].len == 4096 + 20 && a.p[0].tag == 0,
	   "payload ending inside a tag: no tag, no overread");

	/* 4. random merged payloads, random element sizes and offsets: same parts
	 * as the reference scan */
	bad = 0;
	long total = 0;
	for (int round = 0; round < 400; round++) {
		size_t len = (1 + rnd() % 256) * IOGAP_SECTOR + (round % 5 == 0 ? rnd() % 512 : 0);
		size_t skip = round % 3 ? rnd() % 4096 : 0;
		size_t maxel = (size_t[]){ 1, 7, 33, 512, 700, 4096, 9000 }[round % 7];
		uint64_t run = round % 4 ? 7 : 0;

		fill_merged(buf, len, 7);
		n = split(buf, len, prefix, skip, maxel, iov, MAXIOV);
		a.n = b.n = 0;
		iogap_tagscan(iov, n, skip, len, run, collect, &a);
		ref_scan(iov, n, skip, len, run, &b);
		total += a.n;
		if (!same(&a, &b)) {
			if (bad++ < 3)
				printf("# round %d: len %zu skip %zu maxel %zu: %d parts, reference %d\n",
				       round, len, skip, maxel, a.n, b.n);
		}
	}
	ok(bad == 0 && total > 2000,
	   "400 random merged payloads in random elements: parts == reference "
	   "(%d differ, %ld parts)", bad, total);

	/* 4b. untagged payloads in one element (the pointer loop without the
	 * cursor), some with a bare magic in the last sector a tag fits in: one
	 * untagged part, as the reference scan */
	bad = 0;
	for (int round = 0; round < 200; round++) {
		size_t len = (1 + rnd() % 64) * IOGAP_SECTOR + (round % 3 ? 0 : rnd() % 512);
		size_t skip = round % 4 ? rnd() % 600 : 0;
		uint64_t magic = IOGAP_TAG_MAGIC;

		for (size_t i = 0; i < skip + len; i++)
			buf[i] = (uint8_t)rnd();
		if (round % 2)
			memcpy(buf + skip + (len - sizeof(struct iogap_write_tag)) / IOGAP_SECTOR *
			       IOGAP_SECTOR, &magic, sizeof(magic));
		iov[0] = (struct iovec){ buf, skip + len };
		a.n = b.n = 0;
		iogap_tagscan(iov, 1, skip, len, round % 5 ? 7 : 0, collect, &a);
		ref_scan(iov, 1, skip, len, round % 5 ? 7 : 0, &b);
		bad += !same(&a, &b) || a.n != 1 || a.p[0].flags || a.p[0].len != len;
	}
	ok(bad == 0, "200 untagged payloads in one element, half with a bare magic in the "
	   "last sector: one untagged part each, as the reference (%d differ)", bad);

	/* 4c. one request's payload in one element (the probe's writes): the
	 * one-part shortcut decides it, as the reference scan; a payload that is
	 * two parts (a second request; kind 5: untagged data, then a request that
	 * starts at sector 1) is left to the scan */
	bad = 0;
	int shortcut = 0;
	for (int round = 0; round < 300; round++) {
		size_t len = (1 + rnd() % 128) * IOGAP_SECTOR, skip = round % 4 ? rnd() % 600 : 0;
		int kind = round % 6;
		uint32_t first = kind == 1 ? 2 : 0;
		uint8_t flags;
		uint64_t tag;

		for (size_t i = 0; i < skip + len; i++)
			buf[i] = (uint8_t)rnd();
		for (size_t at = 0; kind != 5 && at + 32 <= len; at += IOGAP_TAG_STRIDE)
			put_tag(buf + skip + at, kind == 3 && at == 0 ? 8 : 7, 900 + round,
				first + (uint32_t)(at / IOGAP_TAG_STRIDE), kind == 2 && at == 0);
		if (kind == 4 && len >= 3 * IOGAP_SECTOR)
			put_tag(buf + skip + 2 * IOGAP_SECTOR, 7, 5000 + round, 0, 0);
		if (kind == 5 && len >= 2 * IOGAP_SECTOR)
			put_tag(buf + skip + IOGAP_SECTOR, 7, 5000 + round, 0, 0);
		iov[0] = (struct iovec){ buf, skip + len };
		a.n = b.n = 0;
		iogap_tagscan(iov, 1, skip, len, 7, collect, &a);
		ref_scan(iov, 1, skip, len, 7, &b);
		bool one = iogap_tagscan_one_part(iov, 1, skip, len, 7, &flags, &tag);
		bool two = (kind == 4 && len >= 3 * IOGAP_SECTOR) || (kind == 5 && len >= 2 * IOGAP_SECTOR);

		shortcut += one;
		bad += !same(&a, &b) || one == two || (one && (b.n != 1 || b.p[0].flags != flags ||
								b.p[0].tag != tag));
	}
	ok(bad == 0 && shortcut > 150, "300 one-request payloads in one element (tags garbled, "
	   "of another run, of a request begun earlier; some with a second request): parts == "
	   "reference, one-part shortcut exactly where the reference has one part (%d differ, "
	   "%d by the shortcut)", bad, shortcut);

	/* 5. cost: 1 MiB in 4 KiB elements, one tag per 4 KiB (a 1 MiB guest write) */
	memset(buf, 0, sizeof(buf));
	for (uint32_t blk = 0; blk < 256; blk++)
		put_tag(buf + (size_t)blk * 4096, 7, 77, blk, 0);
	for (n = 0; n < 256; n++)
		iov[n] = (struct iovec){ buf + (size_t)n * 4096, 4096 };
	{
		const int reps = 200;
		uint64_t t0, t_new, t_ref;

		t0 = now_ns();
		for (int r = 0; r < reps; r++) {
			a.n = 0;
			iogap_tagscan(iov, 256, 0, sizeof(buf), 7, collect, &a);
		}
		t_new = (now_ns() - t0) / reps;
		t0 = now_ns();
		for (int r = 0; r < reps; r++) {
			b.n = 0;
			ref_scan(iov, 256, 0, sizeof(buf), 7, &b);
		}
		t_ref = (now_ns() - t0) / reps;
		printf("# 1 MiB in 256 x 4 KiB elements: cursor scan %llu ns, "
		       "from-element-0 scan %llu ns\n",
		       (unsigned long long)t_new, (unsigned long long)t_ref);
		ok(same(&a, &b) && a.n == 1 && a.p[0].tag == 77 && a.p[0].len == sizeof(buf),
		   "1 MiB tagged write in 4 KiB elements: one part, request 77");
		/* generous: the reference walks ~2048 x 128 elements */
		ok(t_new * 4 < t_ref || t_new < 20000,
		   "cursor scan is linear: %llu ns vs %llu ns", (unsigned long long)t_new,
		   (unsigned long long)t_ref);
	}
	return tap_done();
}
