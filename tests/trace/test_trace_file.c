/* SPDX-License-Identifier: MIT */
/*
 * Trace file writer/reader/dump (guest-probe/trace_file.c).  TAP output.
 * Everything runs in a private temp directory that is removed at the end.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../tap.h"
#include "trace_file.h"
#include "util.h"

static char dir[] = "/tmp/iogap-trace-test-XXXXXX";

#define RS ((uint64_t)sizeof(struct iogap_trace_record))   /* a record's place in a file */

static char *tmp(const char *name)
{
	static char buf[8][256];
	static int i;
	char *p = buf[i++ % 8];

	snprintf(p, 256, "%s/%s", dir, name);
	return p;
}

/* Deterministic record for a tag, so read-back can be checked exactly. */
static struct iogap_trace_record rec_for(uint64_t tag, uint32_t thread)
{
	struct iogap_trace_record r = {
		.tag = tag,
		.offset = tag * 4096,
		.start_ns = 1000000 + tag * 10,
		.length = 4096,
		.result = 4096,
		.thread = thread,
		.job = (uint16_t)(tag % 3),
		.op = (uint8_t)(tag % 2),
		.flags = tag % 2 ? IOGAP_REC_TAGGED : 0,
	};

	r.issue_ns = r.start_ns + 3;
	r.complete_ns = r.issue_ns + tag % 100;
	return r;
}

static bool rec_eq(const struct iogap_trace_record *a, const struct iogap_trace_record *b)
{
	return !memcmp(a, b, sizeof(*a));
}

static struct iogap_trace_header proto(void)
{
	struct iogap_trace_header h;

	memset(&h, 0, sizeof(h));
	h.producer = IOGAP_PRODUCER_PROBE_GUEST;
	h.clock = IOGAP_CLOCK_GUEST_MONOTONIC;
	h.run_id = 0x1122334455667788ULL;
	h.start_ns = 999;
	memcpy(h.layer, "guest", 5);
	for (int i = 0; i < 16; i++)
		h.boot_id[i] = (uint8_t)i;
	return h;
}

static const char *INFO = "engine=psync\njob=randread\n";

/* records_offset of the traces made here: 160 + info, rounded up to 64.
 * Both INFO and the ring's info text are short enough for 192. */
#define RO 192

/* Writes n records with tags 0..n-1 single-threaded; 0 on success. */
static int make_trace(const char *path, uint64_t n)
{
	struct iogap_trace_header h = proto();
	struct iogap_trace_writer *w;
	char err[256];

	w = iogap_trace_writer_open(path, &h, INFO, err, sizeof(err));
	if (!w)
		return -1;
	for (uint64_t i = 0; i < n; i++) {
		struct iogap_trace_record r = rec_for(i, 7);

		if (iogap_trace_writer_append(w, &r, 1))
			return -1;
	}
	return iogap_trace_writer_close(w, 5000, 3, err, sizeof(err));
}

static void copy_file(const char *from, const char *to)
{
	char err[1024];

	if (iogap_copy_file(from, to, err, sizeof(err)))
		fprintf(stderr, "# %s\n", err);
}

static void patch(const char *path, uint64_t off, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY);

	if (fd < 0 || pwrite(fd, data, len, (off_t)off) != (ssize_t)len)
		perror(path);
	close(fd);
}

static void cut(const char *path, uint64_t size)
{
	if (truncate(path, (off_t)size))
		perror(path);
}

/* Opens path expecting failure; true when err contains want. */
static bool open_fails_with(const char *path, const char *want, char *err, size_t errlen)
{
	struct iogap_trace_reader *r = iogap_trace_reader_open(path, err, errlen);

	if (r) {
		snprintf(err, errlen, "(opened fine)");
		iogap_trace_reader_close(r);
		return false;
	}
	return strstr(err, want) != NULL;
}

/* Reads all records; returns count or -1 with err. */
static int64_t read_all(const char *path, struct iogap_trace_record *out, size_t max,
			char *err, size_t errlen)
{
	struct iogap_trace_reader *r = iogap_trace_reader_open(path, err, errlen);
	struct iogap_trace_record rec;
	int64_t n = 0;
	int rc;

	if (!r)
		return -1;
	while ((rc = iogap_trace_reader_next(r, &rec, err, errlen)) == 1) {
		if (out && (size_t)n < max)
			out[n] = rec;
		n++;
	}
	iogap_trace_reader_close(r);
	return rc < 0 ? -1 : n;
}

/* ------------------------------------------------------------ threads */

#define THREADS 4
#define PER_THREAD 25000

struct worker {
	struct iogap_trace_writer *w;
	uint32_t id;
	int rc;
};

static void *worker_main(void *arg)
{
	struct worker *wk = arg;
	struct iogap_trace_record batch[300];
	uint64_t i = 0;
	unsigned seed = wk->id;

	while (i < PER_THREAD) {
		size_t n = 1 + (size_t)(rand_r(&seed) % 300);

		if (n > PER_THREAD - i)
			n = PER_THREAD - i;
		for (size_t k = 0; k < n; k++)
			batch[k] = rec_for(wk->id * 1000000ULL + i + k, wk->id);
		wk->rc = iogap_trace_writer_append(wk->w, batch, n);
		if (wk->rc)
			return NULL;
		i += n;
	}
	return NULL;
}

static void test_threads(void)
{
	const char *path = tmp("threads.trace");
	struct iogap_trace_header h = proto();
	struct worker wk[THREADS];
	pthread_t th[THREADS];
	struct iogap_trace_reader *r;
	struct iogap_trace_record rec;
	uint64_t next[THREADS] = { 0 }, total = 0;
	bool all_ok = true, in_order = true;
	char err[256];
	int rc, wrc = 0;

	struct iogap_trace_writer *w = iogap_trace_writer_open(path, &h, INFO, err,
								 sizeof(err));
	ok(w != NULL, "writer opens (%s)", w ? "ok" : err);
	if (!w)
		return;
	for (int t = 0; t < THREADS; t++) {
		wk[t] = (struct worker){ .w = w, .id = (uint32_t)t + 1 };
		pthread_create(&th[t], NULL, worker_main, &wk[t]);
	}
	for (int t = 0; t < THREADS; t++) {
		pthread_join(th[t], NULL);
		wrc |= wk[t].rc;
	}
	ok(wrc == 0, "4 threads append 100k records");
	rc = iogap_trace_writer_close(w, 123456, 2, err, sizeof(err));
	ok(rc == 0, "writer closes (%s)", rc ? err : "ok");

	r = iogap_trace_reader_open(path, err, sizeof(err));
	ok(r != NULL, "reader opens the 100k trace (%s)", r ? "ok" : err);
	if (!r)
		return;
	const struct iogap_trace_header *rh = iogap_trace_reader_header(r);
	ok(rh->record_count == THREADS * PER_THREAD && rh->dropped == 2 &&
	   rh->end_ns == 123456 && rh->start_ns == 999 &&
	   (rh->flags & IOGAP_TRACE_F_COMPLETE) && rh->run_id == h.run_id &&
	   rh->producer == IOGAP_PRODUCER_PROBE_GUEST && !strcmp(rh->layer, "guest") &&
	   rh->records_offset % IOGAP_TRACE_ALIGN == 0,
	   "header: count, dropped, end_ns, COMPLETE, ids as written");
	ok(!strcmp(iogap_trace_reader_info(r), INFO), "info text round-trips");

	while ((rc = iogap_trace_reader_next(r, &rec, err, sizeof(err))) == 1) {
		uint32_t t = rec.thread;
		struct iogap_trace_record want;

		total++;
		if (t < 1 || t > THREADS) {
			all_ok = false;
			continue;
		}
		/* A batch is appended atomically, so each thread's records
		 * stay in its own order. */
		if (rec.tag != t * 1000000ULL + next[t - 1])
			in_order = false;
		want = rec_for(rec.tag, t);
		if (!rec_eq(&rec, &want))
			all_ok = false;
		next[t - 1]++;
	}
	ok(rc == 0 && total == THREADS * PER_THREAD, "read back %" PRIu64 " records (%s)",
	   total, rc ? err : "end");
	ok(all_ok && in_order, "every record exact, per-thread order kept");
	ok(iogap_trace_reader_next(r, &rec, err, sizeof(err)) == 0, "next after end is 0");
	iogap_trace_reader_close(r);
}

/* ------------------------------------------------------------ large traces */

#define BIG_RECORDS 200000   /* 11 MB: several times what the writer stages */

/* One append of BIG_RECORDS records at path, read back exactly. */
static bool big_trace_round_trips(const char *path, char *err, size_t errlen)
{
	struct iogap_trace_header h = proto();
	struct iogap_trace_record *recs = malloc(BIG_RECORDS * sizeof(*recs));
	struct iogap_trace_writer *w;
	struct iogap_trace_reader *r;
	struct iogap_trace_record rec;
	uint64_t n = 0;
	bool same = true;
	int rc;

	if (!recs)
		return false;
	for (uint64_t i = 0; i < BIG_RECORDS; i++)
		recs[i] = rec_for(i, 9);
	w = iogap_trace_writer_open(path, &h, INFO, err, errlen);
	rc = !w || iogap_trace_writer_append(w, recs, BIG_RECORDS) ||
	     iogap_trace_writer_close(w, 5000, 0, err, errlen);
	free(recs);
	r = rc ? NULL : iogap_trace_reader_open(path, err, errlen);
	if (!r)
		return false;
	while ((rc = iogap_trace_reader_next(r, &rec, err, errlen)) == 1) {
		struct iogap_trace_record want = rec_for(n++, 9);

		same = same && rec_eq(&rec, &want);
	}
	same = same && rc == 0 && n == BIG_RECORDS &&
	       iogap_trace_reader_header(r)->record_count == BIG_RECORDS;
	iogap_trace_reader_close(r);
	unlink(path);
	return same;
}

/* The writer stages records and writes them in the background, with
 * O_DIRECT where the file system takes it (the temp directory, usually)
 * and through the page cache where it does not (tmpfs): both give the
 * same file, also when one append is larger than everything staged. */
static void test_big(void)
{
	char shm[64], err[256] = "";

	ok(big_trace_round_trips(tmp("big.trace"), err, sizeof(err)),
	   "one 11 MB append round-trips exactly (%s)", err[0] ? err : "ok");
	snprintf(shm, sizeof(shm), "/dev/shm/iogap-trace-test-%d.trace", (int)getpid());
	ok(big_trace_round_trips(shm, err, sizeof(err)),
	   "on tmpfs /dev/shm (no O_DIRECT) too (%s)", err[0] ? err : "ok");
}

/* ------------------------------------------------------------ damage */

static void test_damage(void)
{
	const char *good = tmp("good.trace"), *bad = tmp("bad.trace");
	struct iogap_trace_header h;
	char err[512];
	uint64_t ro;
	int fd;

	ok(make_trace(good, 1000) == 0, "1000-record trace written");
	fd = open(good, O_RDONLY);
	if (fd < 0 || pread(fd, &h, sizeof(h), 0) != sizeof(h))
		perror(good);
	close(fd);
	ro = h.records_offset;

	copy_file(good, bad);
	cut(bad, ro + 998 * RS + 10);
	ok(open_fails_with(bad, "truncated: header says 1000 records, file holds 998 "
			   "(+10 stray bytes)", err, sizeof(err)),
	   "cut mid-record: %s", err);

	copy_file(good, bad);
	cut(bad, 100);
	ok(open_fails_with(bad, "truncated: file is 100 bytes, shorter than the 160-byte "
			   "header", err, sizeof(err)), "cut mid-header: %s", err);

	copy_file(good, bad);
	cut(bad, 170);
	ok(open_fails_with(bad, "truncated: file is 170 bytes, header and info text need",
			   err, sizeof(err)), "cut in info text: %s", err);

	copy_file(good, bad);
	cut(bad, 5);
	ok(open_fails_with(bad, "shorter than the 160-byte header", err, sizeof(err)),
	   "cut inside the magic: %s", err);

	copy_file(good, bad);
	cut(bad, ro + 1001 * RS);
	ok(open_fails_with(bad, "trailing data: header says 1000 records, file holds 1001",
			   err, sizeof(err)), "extra record: %s", err);

	copy_file(good, bad);
	patch(bad, 0, "NOTATRCE", 8);
	ok(open_fails_with(bad, "not an iogap trace", err, sizeof(err)), "bad magic: %s",
	   err);

	copy_file(good, bad);
	patch(bad, 8, &(uint16_t){ 3 }, 2);
	ok(open_fails_with(bad, "trace format version 3, this reader knows 2", err,
			   sizeof(err)), "newer version: %s", err);

	copy_file(good, bad);
	patch(bad, 8, &(uint16_t){ 1 }, 2);
	ok(open_fails_with(bad, "trace format version 1 (56-byte records), this reader knows "
			   "only 2 (64-byte records)", err, sizeof(err)),
	   "older version: %s", err);

	copy_file(good, bad);
	patch(bad, 8, &(uint16_t){ 0 }, 2);
	ok(open_fails_with(bad, "invalid trace format version 0", err, sizeof(err)),
	   "version 0: %s", err);

	copy_file(good, bad);
	patch(bad, 12, &(uint16_t){ 56 }, 2);
	ok(open_fails_with(bad, "record_size 56, version 2 has 64", err, sizeof(err)),
	   "bad record_size: %s", err);

	copy_file(good, bad);
	patch(bad, 10, &(uint16_t){ 128 }, 2);
	ok(open_fails_with(bad, "header_size 128", err, sizeof(err)), "bad header_size: %s",
	   err);

	copy_file(good, bad);
	patch(bad, 18, &(uint16_t){ IOGAP_TRACE_F_COMPLETE | 0x40 }, 2);
	ok(open_fails_with(bad, "unknown header flags 0x0040", err, sizeof(err)),
	   "unknown flag: %s", err);

	copy_file(good, bad);
	patch(bad, 14, &(uint16_t){ 9 }, 2);
	ok(open_fails_with(bad, "unknown producer", err, sizeof(err)), "bad producer: %s",
	   err);

	copy_file(good, bad);
	patch(bad, offsetof(struct iogap_trace_header, records_offset), &(uint64_t){ 512 }, 8);
	ok(open_fails_with(bad, "records_offset 512 inconsistent", err, sizeof(err)),
	   "bad records_offset: %s", err);

	copy_file(good, bad);
	patch(bad, offsetof(struct iogap_trace_header, info_size), &(uint32_t){ 0x7fffffff },
	      4);
	ok(open_fails_with(bad, "info_size 2147483647 is implausible", err, sizeof(err)),
	   "huge info_size: %s", err);

	copy_file(good, bad);
	patch(bad, offsetof(struct iogap_trace_header, record_count),
	      &(uint64_t){ UINT64_MAX / 3 }, 8);
	ok(open_fails_with(bad, "truncated: header says", err, sizeof(err)),
	   "absurd record_count: %s", err);

	copy_file(good, bad);
	patch(bad, 160, "engine psync\n", 13);
	ok(open_fails_with(bad, "info line 1 is not key=value", err, sizeof(err)),
	   "bad info line: %s", err);

	/* Record-level damage: the error names the record. */
	copy_file(good, bad);
	patch(bad, ro + 500 * RS + offsetof(struct iogap_trace_record, op), "\x09", 1);
	ok(read_all(bad, NULL, 0, err, sizeof(err)) < 0 &&
	   strstr(err, "record 500: op 9 is not a known operation"),
	   "bad op: %s", err);

	copy_file(good, bad);
	patch(bad, ro + 7 * RS + offsetof(struct iogap_trace_record, complete_ns),
	      &(uint64_t){ 1 }, 8);
	ok(read_all(bad, NULL, 0, err, sizeof(err)) < 0 &&
	   strstr(err, "record 7: complete_ns 1 < issue_ns"), "complete < issue: %s", err);

	copy_file(good, bad);
	patch(bad, ro + 9 * RS + offsetof(struct iogap_trace_record, result),
	      &(int32_t){ 8192 }, 4);
	ok(read_all(bad, NULL, 0, err, sizeof(err)) < 0 &&
	   strstr(err, "record 9: result 8192 impossible"), "result > length: %s", err);

	copy_file(good, bad);
	patch(bad, ro + 11 * RS + offsetof(struct iogap_trace_record, reserved),
	      &(uint64_t){ 0xdeadbeef }, 8);
	ok(read_all(bad, NULL, 0, err, sizeof(err)) < 0 &&
	   strstr(err, "record 11: reserved record bytes are not zero"),
	   "reserved bytes set: %s", err);

	/* Foreign files. */
	fd = open(bad, O_WRONLY | O_TRUNC);
	close(fd);
	ok(open_fails_with(bad, "empty file, not an iogap trace", err, sizeof(err)),
	   "empty file: %s", err);

	{
		char cmd[600];

		snprintf(cmd, sizeof(cmd), "head -c 65536 /dev/urandom > '%s'", bad);
		if (system(cmd))
			perror(cmd);
	}
	ok(open_fails_with(bad, "not an iogap trace", err, sizeof(err)), "random bytes: %s",
	   err);
	ok(open_fails_with("/etc/passwd", "not an iogap trace", err, sizeof(err)),
	   "a text file: %s", err);
	ok(open_fails_with(dir, "not a regular file", err, sizeof(err)), "a directory: %s",
	   err);
	ok(open_fails_with(tmp("missing"), "No such file", err, sizeof(err)),
	   "missing file: %s", err);
}

/* An unclosed trace: no COMPLETE flag, count from the file size. */
static void test_incomplete(void)
{
	const char *good = tmp("good.trace"), *inc = tmp("incomplete.trace");
	struct iogap_trace_header h;
	struct iogap_trace_reader *r;
	struct iogap_trace_record recs[1000];
	char err[256];
	int fd;
	int64_t n;

	copy_file(good, inc);
	fd = open(inc, O_RDWR);
	if (fd < 0 || pread(fd, &h, sizeof(h), 0) != sizeof(h))
		perror(inc);
	h.flags = 0;
	h.record_count = 0;
	h.end_ns = 0;
	if (pwrite(fd, &h, sizeof(h), 0) != sizeof(h))
		perror(inc);
	close(fd);
	cut(inc, h.records_offset + 600 * RS + 20);

	r = iogap_trace_reader_open(inc, err, sizeof(err));
	ok(r && iogap_trace_reader_header(r)->record_count == 600 &&
	   !(iogap_trace_reader_header(r)->flags & IOGAP_TRACE_F_COMPLETE),
	   "incomplete trace opens, record_count from file size (%s)", r ? "ok" : err);
	iogap_trace_reader_close(r);
	n = read_all(inc, recs, 1000, err, sizeof(err));
	bool same = n == 600;
	for (int64_t i = 0; same && i < n; i++) {
		struct iogap_trace_record want = rec_for((uint64_t)i, 7);

		same = rec_eq(&recs[i], &want);
	}
	ok(same, "incomplete trace yields its 600 whole records");
}

/* Writer errors are reported: ENOSPC at open, EFBIG mid-run. */
static void test_write_errors(void)
{
	struct iogap_trace_header h = proto();
	struct iogap_trace_writer *w;
	struct iogap_trace_record bad = rec_for(1, 1);
	char err[256] = "";
	pid_t pid;
	int st;

	w = iogap_trace_writer_open("/dev/full", &h, INFO, err, sizeof(err));
	ok(!w && strstr(err, "No space left on device"), "ENOSPC at open: %s", err);

	w = iogap_trace_writer_open(tmp("inval.trace"), &h, INFO, err, sizeof(err));
	bad.complete_ns = 0;
	ok(w && iogap_trace_writer_append(w, &bad, 1) == -EINVAL,
	   "append refuses an impossible record");
	if (w)
		iogap_trace_writer_close(w, 1, 0, err, sizeof(err));

	h.flags = IOGAP_TRACE_F_RING;
	w = iogap_trace_writer_open(tmp("ring-w.trace"), &h, INFO, err, sizeof(err));
	ok(!w && strstr(err, "not rings"), "writer refuses the ring flag: %s", err);
	h.flags = 0;
	w = iogap_trace_writer_open(tmp("ctl.trace"), &h, "a=b\x01\n", err, sizeof(err));
	ok(!w && strstr(err, "control byte"), "writer refuses bad info: %s", err);

	/* A file size limit makes pwrite fail with EFBIG part way. */
	pid = fork();
	if (pid == 0) {
		struct rlimit rl = { 256 * 1024, 256 * 1024 };
		const char *path = tmp("efbig.trace");
		int rc = 0;

		signal(SIGXFSZ, SIG_IGN);
		setrlimit(RLIMIT_FSIZE, &rl);
		w = iogap_trace_writer_open(path, &h, INFO, err, sizeof(err));
		if (!w)
			_exit(10);
		for (uint64_t i = 0; i < 100000 && !rc; i++) {
			struct iogap_trace_record r = rec_for(i, 1);

			rc = iogap_trace_writer_append(w, &r, 1);
		}
		if (rc != -EFBIG)
			_exit(11);
		rc = iogap_trace_writer_close(w, 1, 0, err, sizeof(err));
		if (rc != -EFBIG || !strstr(err, "write failed after"))
			_exit(12);
		_exit(0);
	}
	waitpid(pid, &st, 0);
	ok(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	   "EFBIG mid-run returned by append and close (child status %d)", st);
	{
		struct iogap_trace_reader *r = iogap_trace_reader_open(tmp("efbig.trace"),
								       err, sizeof(err));

		struct iogap_trace_record rec;
		uint64_t n = 0;
		bool same = true;
		int rc = 0;

		ok(r && !(iogap_trace_reader_header(r)->flags & IOGAP_TRACE_F_COMPLETE),
		   "failed trace is left incomplete, still readable (%s)", r ? "ok" : err);
		while (r && (rc = iogap_trace_reader_next(r, &rec, err, sizeof(err))) == 1) {
			struct iogap_trace_record want = rec_for(n++, 1);

			same = same && rec_eq(&rec, &want);
		}
		/* cut where the failure hit: only records written before it */
		ok(r && rc == 0 && same && n > 0 && n * RS <= 256 * 1024,
		   "its %" PRIu64 " records are the first ones appended, nothing after", n);
		iogap_trace_reader_close(r);
	}
}

/* ------------------------------------------------------------ dump */

static bool file_has(const char *path, const char *needle)
{
	static char buf[1 << 20];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	fclose(f);
	return strstr(buf, needle) != NULL;
}

static void test_dump(void)
{
	const char *path = tmp("small.trace"), *out = tmp("dump.txt");
	char err[256];
	FILE *f;
	int rc;

	make_trace(path, 3);
	f = fopen(out, "w");
	rc = iogap_trace_dump(f, path, err, sizeof(err));
	fclose(f);
	ok(rc == 0, "dump succeeds (%s)", rc ? err : "ok");
	ok(file_has(out, "\nproducer: 2 (probe-guest)\n") &&
	   file_has(out, "\nclock: 2 (guest-monotonic)\n") &&
	   file_has(out, "\nflags: 0x0002 (complete)\n") &&
	   file_has(out, "\nrun_id: 0x1122334455667788\n") &&
	   file_has(out, "\nboot_id: 00010203-0405-0607-0809-0a0b0c0d0e0f\n") &&
	   file_has(out, "\nlayer: guest\n") &&
	   file_has(out, "\nrecord_count: 3\n") && file_has(out, "\ndropped: 3\n") &&
	   file_has(out, "\nstate: complete, 3 records\n"),
	   "dump header lines");
	ok(file_has(out, "\ninfo: engine=psync\ninfo: job=randread\n"), "dump info lines");
	ok(file_has(out, "\nrecord 1: tag=0x0000000000000001 op=write offset=4096 "
		    "length=4096 start_ns=1000010 issue_ns=1000013 complete_ns=1000014 "
		    "slat_ns=3 clat_ns=1 result=4096 thread=7 job=1 flags=tagged\n") &&
	   file_has(out, "\nrecord 0: tag=0x0000000000000000 op=read ") &&
	   file_has(out, "\nend: 3 records\n"), "dump record lines");

	/* A damaged record: records before it, then the error. */
	patch(path, RO + 2 * RS + offsetof(struct iogap_trace_record, op), "\x07", 1);
	f = fopen(out, "w");
	rc = iogap_trace_dump(f, path, err, sizeof(err));
	fclose(f);
	ok(rc == -1 && strstr(err, "record 2: op 7") && file_has(out, "\nrecord 1: ") &&
	   !file_has(out, "\nend: "), "dump stops at a bad record: %s", err);
}

/* ------------------------------------------------------------ rings */

/* A ring file as the filter would leave it. */
static void make_ring(const char *path, uint64_t cap, uint64_t write_seq, uint64_t read_seq)
{
	struct iogap_trace_header h = proto();
	struct iogap_ring_control c = { .write_seq = write_seq, .read_seq = read_seq,
					.dropped = 4 };
	const char *info = "layer=top\n";
	FILE *f = fopen(path, "w");

	memcpy(h.magic, IOGAP_TRACE_MAGIC, 8);
	h.version = IOGAP_TRACE_VERSION;
	h.header_size = sizeof(h);
	h.record_size = sizeof(struct iogap_trace_record);
	h.producer = IOGAP_PRODUCER_FILTER;
	h.clock = IOGAP_CLOCK_HOST_MONOTONIC;
	h.flags = IOGAP_TRACE_F_RING;
	h.info_size = (uint32_t)strlen(info);
	h.records_offset = RO;
	h.record_count = cap;
	memset(h.layer, 0, sizeof(h.layer));
	memcpy(h.layer, "top", 3);
	fwrite(&h, sizeof(h), 1, f);
	fwrite(info, strlen(info), 1, f);
	for (long p = ftell(f); p < RO; p++)
		fputc(0, f);
	fwrite(&c, sizeof(c), 1, f);
	/* Slot s holds the newest sequence number that maps to it. */
	for (uint64_t s = 0; s < cap; s++) {
		uint64_t seq = s;
		struct iogap_trace_record r;

		while (seq + cap < write_seq)
			seq += cap;
		r = rec_for(seq, 9);
		if (seq >= write_seq)
			memset(&r, 0, sizeof(r));  /* never written */
		fwrite(&r, sizeof(r), 1, f);
	}
	fclose(f);
}

static bool ring_reads(const char *path, uint64_t first, uint64_t count, char *err,
		       size_t errlen)
{
	struct iogap_trace_record recs[64];
	int64_t n = read_all(path, recs, 64, err, errlen);

	if (n != (int64_t)count) {
		if (n >= 0)
			snprintf(err, errlen, "got %" PRId64 " records", n);
		return false;
	}
	for (uint64_t i = 0; i < count; i++) {
		struct iogap_trace_record want = rec_for(first + i, 9);

		if (!rec_eq(&recs[i], &want)) {
			snprintf(err, errlen, "record %" PRIu64 " differs", i);
			return false;
		}
	}
	return true;
}

static void test_ring(void)
{
	const char *path = tmp("ring.trace"), *out = tmp("ring.txt");
	char err[256] = "";
	FILE *f;

	make_ring(path, 8, 5, 0);
	ok(ring_reads(path, 0, 5, err, sizeof(err)), "ring, not wrapped: seq 0..4 (%s)", err);

	make_ring(path, 8, 13, 10);
	ok(ring_reads(path, 5, 8, err, sizeof(err)), "ring, wrapped: seq 5..12 in order (%s)",
	   err);

	make_ring(path, 8, 16, 8);
	ok(ring_reads(path, 8, 8, err, sizeof(err)), "ring, full at a wrap point (%s)", err);

	make_ring(path, 8, 0, 0);
	ok(ring_reads(path, 0, 0, err, sizeof(err)), "empty ring yields nothing (%s)", err);

	make_ring(path, 8, 13, 10);
	f = fopen(out, "w");
	iogap_trace_dump(f, path, err, sizeof(err));
	fclose(f);
	ok(file_has(out, "\nflags: 0x0001 (ring)\n") &&
	   file_has(out, "\nring: capacity=8 write_seq=13 read_seq=10 dropped=4 records=8\n") &&
	   file_has(out, "\nrecord 5: tag=0x0000000000000005 ") &&
	   file_has(out, "\nrecord 12: tag=0x000000000000000c ") &&
	   !file_has(out, "\nrecord 4: ") && file_has(out, "\nend: 8 records\n"),
	   "ring dump: control line, records by sequence number");

	make_ring(path, 8, 20, 2);
	ok(open_fails_with(path, "ring control inconsistent", err, sizeof(err)),
	   "write_seq - read_seq > capacity: %s", err);
	make_ring(path, 8, 2, 3);
	ok(open_fails_with(path, "ring control inconsistent", err, sizeof(err)),
	   "read_seq > write_seq: %s", err);

	make_ring(path, 8, 5, 0);
	cut(path, RO + 64 + 5 * RS);
	ok(open_fails_with(path, "truncated: ring header says 8 slots, file holds 5 "
			   "(+0 stray bytes)", err, sizeof(err)), "truncated ring: %s", err);
	cut(path, RO + 30);
	ok(open_fails_with(path, "truncated: ring header says 8 slots, file holds 0 "
			   "(+30 stray bytes)", err, sizeof(err)), "ring cut in control: %s", err);

	make_ring(path, 0, 0, 0);
	ok(open_fails_with(path, "capacity 0", err, sizeof(err)), "zero-capacity ring: %s",
	   err);

	/* A never-written slot inside the range is garbage: caught. */
	make_ring(path, 8, 5, 0);
	patch(path, RO + 64 + 3 * RS + offsetof(struct iogap_trace_record, op), "\xff", 1);
	ok(read_all(path, NULL, 0, err, sizeof(err)) < 0 && strstr(err, "record 3: op 255"),
	   "corrupt ring slot named by sequence: %s", err);
}

int main(void)
{
	char cmd[300];

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	test_threads();
	test_big();
	test_damage();
	test_incomplete();
	test_write_errors();
	test_dump();
	test_ring();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		fprintf(stderr, "could not remove %s\n", dir);
	tap_plan(tap_n);   /* trailing plan: valid TAP */
	return tap_done();
}
