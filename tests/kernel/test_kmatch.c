/* SPDX-License-Identifier: MIT */
/*
 * Kernel points: the decoder of the kernel's binary trace pages on pages
 * recorded on the two kernels iogap meets (6.1 in the guest, 6.18 on this
 * host: tests/kernel/raw-*, made by capture-raw.sh), checked against the
 * same events as the kernel printed them in text; and the matching rule
 * (docs/kernel-points.md) on synthetic requests with a known truth.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "kernel_raw.h"
#include "kmatch.h"
#include "util.h"
#include "../tap.h"

#define MAX_EVENTS 512

struct events {
	struct iogap_kevent ev[MAX_EVENTS];
	size_t n;
};

static void collect(void *arg, const struct iogap_kevent *ev)
{
	struct events *e = arg;

	if (e->n < MAX_EVENTS)
		e->ev[e->n++] = *ev;
}

static char *fixture(const char *dir, const char *name, size_t *len)
{
	char p[1024];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return iogap_read_file(p, 0, len);
}

/* Mismatches between the decoded events and the first lines of the text
 * the kernel printed for the same buffer (its stamps: rounded to the
 * microsecond). */
static size_t compare_with_text(const struct events *e, const char *expect, size_t *lines)
{
	size_t bad = 0;

	*lines = 0;
	for (const char *l = expect; l && *l && *lines < e->n; l = strchr(l, '\n'), l += !!l) {
		const struct iogap_kevent *ev = &e->ev[(*lines)++];
		char kind[16], rwbs[16];
		unsigned long long sec, usec, sector;
		unsigned maj, min, nr;
		int error;

		if (sscanf(l, "%15s %llu.%llu %u,%u %15s %llu %u %d", kind, &sec, &usec, &maj, &min,
			   rwbs, &sector, &nr, &error) != 9 ||
		    ev->complete != !strcmp(kind, "complete") ||
		    (ev->ns + 500) / 1000 != sec * 1000000 + usec || ev->dev_major != maj ||
		    ev->dev_minor != min || ev->sector != sector || ev->nr_sector != nr ||
		    ev->error != error || (ev->op == IOGAP_OP_READ) != (rwbs[0] == 'R'))
			bad++;
	}
	return bad;
}

/* The page with bytes at off replaced: decoded, or -1. */
static int patched(struct iogap_kdecoder *d, const char *page, size_t len, size_t off,
		   const void *bytes, size_t n, struct events *e, char *err, size_t errlen)
{
	char copy[65536];

	memcpy(copy, page, len);
	memcpy(copy + off, bytes, n);
	e->n = 0;
	return iogap_kdecoder_page(d, copy, len, collect, e, err, errlen);
}

/* Random bytes at random places, many times: an error or events, never a
 * crash (the sanitized build checks the reads). */
static int survives_noise(struct iogap_kdecoder *d, const char *page, size_t len)
{
	struct events *e = malloc(sizeof(*e));
	char err[256];
	int fine = 1;

	srand(13);
	for (int i = 0; e && i < 2000; i++) {
		unsigned char noise[8];
		int n;

		for (size_t b = 0; b < sizeof(noise); b++)
			noise[b] = (unsigned char)rand();
		n = patched(d, page, len, (size_t)rand() % (len - sizeof(noise)), noise,
			    sizeof(noise), e, err, sizeof(err));
		fine &= n >= -1 && (n < 0 || (size_t)n == e->n);
	}
	free(e);
	return e && fine;
}

static void test_decode(const char *dir, const char *kernel, uint64_t overrun)
{
	char err[256], *page, *expect, *stats;
	struct iogap_kdecoder *d = iogap_kdecoder_open(dir, err, sizeof(err));
	struct events *e = calloc(1, sizeof(*e));
	size_t len = 0, lines = 0, at;
	int n;

	page = fixture(dir, "cpu.raw", &len);
	expect = fixture(dir, "cpu.expect", NULL);
	stats = fixture(dir, "cpu.stats", NULL);
	if (!ok(d && e && page && expect && stats && len == iogap_kdecoder_page_size(d),
		"%s: decoder from the kernel's formats, a recorded page of its size (%s)",
		kernel, d ? "" : err)) {
		tap_skip("the decoder's checks", "no decoder or fixture");
		goto out;
	}
	n = iogap_kdecoder_page(d, page, len, collect, e, err, sizeof(err));
	ok(n > 40 && (size_t)n == e->n, "%s: the page decodes to %d events (%s)", kernel, n,
	   n < 0 ? err : "");
	ok(compare_with_text(e, expect, &lines) == 0 && lines == e->n,
	   "%s: each event's kind, stamp, device, sector, size, error and op are the text's",
	   kernel);
	ok(e->ev[0].ns % 1000 || e->ev[1].ns % 1000 || e->ev[2].ns % 1000,
	   "%s: stamps have nanoseconds (%" PRIu64 ")", kernel, e->ev[0].ns);
	ok(iogap_kstats_lost(stats) == overrun, "%s: the lost events of its stats: %" PRIu64,
	   kernel, iogap_kstats_lost(stats));

	/* the first event's rwbs, found in the page, made a FUA write */
	at = (size_t)((const char *)memmem(page + 16, len - 16, "RS", 3) - page);
	n = patched(d, page, len, at, "WFS", 4, e, err, sizeof(err));
	ok(n > 0 && e->ev[0].op == IOGAP_OP_WRITE && e->ev[0].fua && e->ev[1].op == IOGAP_OP_READ,
	   "%s: rwbs WFS: a FUA write", kernel);
	n = patched(d, page, len, 8, "\xff\xff\x00\x00", 4, e, err, sizeof(err));
	ok(n == -1 && strstr(err, "claims 65535 bytes"), "%s: a page claiming more than it "
	   "holds: %s", kernel, err);
	n = patched(d, page, len, 16, "\xab\xab\xab\xab\xab\xab\xab\xab", 8, e, err, sizeof(err));
	ok(n == -1 && strstr(err, "not a block request event"), "%s: another event: %s",
	   kernel, err);
	ok(iogap_kdecoder_page(d, page, 8, collect, e, err, sizeof(err)) == -1,
	   "%s: a page shorter than its header: %s", kernel, err);
	ok(survives_noise(d, page, len), "%s: 2000 pages with noise: errors, no crash", kernel);
out:
	iogap_kdecoder_free(d);
	free(e);
	free(page);
	free(expect);
	free(stats);
}

/* A copy of the 6.18 formats under a temporary dir, the complete event's
 * error field removed: the decoder refuses it. */
static int missing_field_refused(const char *from, char *err, size_t errlen)
{
	char tmp[] = "/tmp/kmatch-XXXXXX", src[1024], dst[1024], *fmt, *line;
	const char *ev[] = { "block_rq_issue", "block_rq_complete" };
	struct iogap_kdecoder *d = NULL;
	int refused = 0;
	FILE *f;

	if (!mkdtemp(tmp))
		return 0;
	snprintf(dst, sizeof(dst), "%s/events", tmp);
	mkdir(dst, 0700);
	snprintf(dst, sizeof(dst), "%s/events/block", tmp);
	mkdir(dst, 0700);
	snprintf(src, sizeof(src), "%s/events/header_page", from);
	snprintf(dst, sizeof(dst), "%s/events/header_page", tmp);
	refused = !iogap_copy_file(src, dst, err, errlen);
	for (int i = 0; i < 2 && refused; i++) {
		snprintf(src, sizeof(src), "%s/events/block/%s/format", from, ev[i]);
		snprintf(dst, sizeof(dst), "%s/events/block/%s", tmp, ev[i]);
		mkdir(dst, 0700);
		strcat(dst, "/format");
		fmt = iogap_read_file(src, 0, NULL);
		line = fmt && i == 1 ? strstr(fmt, "\tfield:int error;") : NULL;
		if (line)
			memmove(line, strchr(line, '\n') + 1, strlen(strchr(line, '\n') + 1) + 1);
		f = fopen(dst, "w");
		refused = fmt && f && fputs(fmt, f) >= 0 && (i == 0 || line);
		if (f)
			fclose(f);
		free(fmt);
	}
	if (refused)
		d = iogap_kdecoder_open(tmp, err, errlen);
	iogap_kdecoder_free(d);
	snprintf(dst, sizeof(dst), "rm -rf %s", tmp);
	return refused && !d && system(dst) == 0;
}

static void test_decoder_errors(const char *raw618)
{
	char err[256];

	ok(!iogap_kdecoder_open("/nonexistent", err, sizeof(err)) &&
	   strstr(err, "/nonexistent/events/header_page: No such file"),
	   "no formats: %s", err);
	ok(missing_field_refused(raw618, err, sizeof(err)) &&
	   strstr(err, "block/block_rq_complete has no field 'error'"),
	   "a format without a field read: %s", err);
	ok(iogap_kstats_lost("entries: 3\noverrun: 5\ncommit overrun: 2\nbytes: 9\n"
			     "dropped events: 7\nread events: 11\n") == 14,
	   "lost: overrun + commit overrun + dropped events");
}

static struct iogap_trace_record rec(uint8_t op, uint64_t off, uint32_t len, uint64_t s,
				     uint64_t c)
{
	return (struct iogap_trace_record){ .op = op, .offset = off, .length = len,
					    .start_ns = s, .issue_ns = s, .complete_ns = c };
}

static void test_rule(void)
{
	struct iogap_kmatch *m = iogap_kmatch_new(1 << 20, 1000);
	struct iogap_trace_record k[] = {
		rec(IOGAP_OP_READ, (1 << 20) + 4096, 4096, 10500, 19000),   /* A: exact */
		rec(IOGAP_OP_READ, (1 << 20) + 8192, 4096, 30000, 31000),   /* B1 twin */
		rec(IOGAP_OP_READ, (1 << 20) + 8192, 4096, 30500, 32000),   /* B2 twin */
		rec(IOGAP_OP_READ, (1 << 20) + 65536, 8192, 41000, 45000),  /* C: merged */
		rec(IOGAP_OP_READ, (1 << 20) + 131072, 4096, 51000, 53000), /* D: part 1 */
		rec(IOGAP_OP_READ, (1 << 20) + 135168, 4096, 51000, 54000), /* D: part 2 */
		rec(IOGAP_OP_WRITE, (1 << 20) + 262144, 4096, 61000, 62000), /* E: other op */
		rec(IOGAP_OP_READ, (1 << 20) + 4096, 4096, 72000, 79000),   /* F: late twin of A */
	};
	struct iogap_trace_record got = { 0 };
	const struct iogap_kmatch_counts *c;
	int in_order = 1;

	for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++)
		in_order &= iogap_kmatch_add_kernel(m, &k[i]) == 0;
	ok(in_order, "kernel requests added in completion order");
	/* A's issue stamp 10500 is truncated: the request started at 10900 */
	ok(iogap_kmatch_request(m, &(struct iogap_trace_record){ .op = IOGAP_OP_READ,
			.offset = 4096, .length = 4096, .start_ns = 10900, .complete_ns = 20000 },
			&got) == IOGAP_KMATCH_MATCHED && got.start_ns == 10500 &&
	   got.complete_ns == 19000,
	   "same sector, size and window: matched, within one stamp step of the start");
	ok(iogap_kmatch_request(m, &(struct iogap_trace_record){ .op = IOGAP_OP_READ,
			.offset = 4096, .length = 4096, .start_ns = 12000, .complete_ns = 20000 },
			&got) == IOGAP_KMATCH_NONE,
	   "a kernel issue more than a stamp step before the start is outside the window");
	ok(iogap_kmatch_request(m, &(struct iogap_trace_record){ .op = IOGAP_OP_READ,
			.offset = 8192, .length = 4096, .start_ns = 29000, .complete_ns = 33000 },
			&got) == IOGAP_KMATCH_AMBIGUOUS, "two candidates: ambiguous, none taken");
	ok(iogap_kmatch_request(m, &(struct iogap_trace_record){ .op = IOGAP_OP_READ,
			.offset = 65536, .length = 4096, .start_ns = 40000, .complete_ns = 46000 },
			&got) == IOGAP_KMATCH_MERGED, "a larger kernel request around it: merged");
	ok(iogap_kmatch_request(m, &(struct iogap_trace_record){ .op = IOGAP_OP_READ,
			.offset = 131072, .length = 8192, .start_ns = 50000, .complete_ns = 55000 },
			&got) == IOGAP_KMATCH_SPLIT, "two halves: split");
	ok(iogap_kmatch_request(m, &(struct iogap_trace_record){ .op = IOGAP_OP_READ,
			.offset = 262144, .length = 4096, .start_ns = 60000, .complete_ns = 63000 },
			&got) == IOGAP_KMATCH_NONE, "a write at the sector of a read: no match");
	iogap_kmatch_forget_before(m, 70000);
	ok(iogap_kmatch_held(m) == 1, "forgetting before 70 us keeps the one request after it (%zu)",
	   iogap_kmatch_held(m));
	ok(iogap_kmatch_request(m, &(struct iogap_trace_record){ .op = IOGAP_OP_READ,
			.offset = 4096, .length = 4096, .start_ns = 71000, .complete_ns = 80000 },
			&got) == IOGAP_KMATCH_MATCHED && got.start_ns == 72000,
	   "the same sector later matches its own kernel request");
	ok(iogap_kmatch_add_kernel(m, &k[0]) == -1, "a kernel request out of order is refused");
	c = iogap_kmatch_counts(m);
	ok(c->matched == 2 && c->none == 2 && c->ambiguous == 1 && c->merged == 1 && c->split == 1,
	   "counts: 2 matched, 2 none, 1 ambiguous, 1 merged, 1 split");
	iogap_kmatch_free(m);
}

/* 100k requests at queue depth 4 streamed window by window: every one
 * matched while the window stays the size of the queue, not the run. */
static void test_stream(void)
{
	struct iogap_kmatch *m = iogap_kmatch_new(0, 1000);
	size_t matched = 0, most_held = 0;

	for (uint64_t i = 0; i < 100000; i++) {
		uint64_t s = 1000000 + i * 10000, off = (i * 7919 % 100000) * 4096;
		struct iogap_trace_record k = rec(IOGAP_OP_READ, off, 4096, s + 2000, s + 30000);
		struct iogap_trace_record r = rec(IOGAP_OP_READ, off, 4096, s, s + 31000), got;

		iogap_kmatch_add_kernel(m, &k);
		if (i >= 4) {   /* the request issued 4 earlier has completed */
			uint64_t ps = s - 40000, poff = ((i - 4) * 7919 % 100000) * 4096;

			r = rec(IOGAP_OP_READ, poff, 4096, ps, ps + 31000);
			matched += iogap_kmatch_request(m, &r, &got) == IOGAP_KMATCH_MATCHED;
			iogap_kmatch_forget_before(m, ps);
		}
		if (iogap_kmatch_held(m) > most_held)
			most_held = iogap_kmatch_held(m);
	}
	ok(matched == 100000 - 4, "streamed: every request matched (%zu)", matched);
	ok(most_held <= 8, "the window held at most %zu kernel requests", most_held);
	iogap_kmatch_free(m);
}

/* argv: the fixtures of 6.1 and 6.18, and their overrun */
int main(int argc, char **argv)
{
	if (argc != 5) {
		fprintf(stderr, "usage: test_kmatch RAW-6.1 OVERRUN RAW-6.18 OVERRUN\n");
		return 2;
	}
	tap_plan(36);
	test_decode(argv[1], "6.1", strtoull(argv[2], NULL, 10));
	test_decode(argv[3], "6.18", strtoull(argv[4], NULL, 10));
	test_decoder_errors(argv[3]);
	test_rule();
	test_stream();
	return tap_done();
}
