/* SPDX-License-Identifier: MIT */
/*
 * Writing and validating iogap trace files (<iogap/trace.h>,
 * docs/trace-format.md).
 *
 * The writer is fed batches from several worker threads: they copy them
 * into staging segments under one mutex; a background thread writes full
 * segments with O_DIRECT (see the writer section).  Any write error sticks
 * and is returned by every later call, so nothing is lost silently.
 *
 * The reader trusts nothing in the file: every header field is checked,
 * every size computation is overflow-checked against the real file size,
 * and every record is sanity-checked before it is handed out, so a foreign,
 * truncated or corrupted file gives a message naming what is wrong (and
 * where) rather than nonsense numbers or a crash.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"
#include "trace_file.h"

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "iogap traces are little-endian and written with plain struct copies"
#endif

/* Limits that keep a hostile header from making us allocate or loop much. */
#define INFO_MAX        (1u << 20)      /* bytes of info text */
#define RBUF_RECORDS    8192

#define KNOWN_TRACE_FLAGS  (IOGAP_TRACE_F_RING | IOGAP_TRACE_F_COMPLETE)
#define KNOWN_REC_FLAGS    (IOGAP_REC_TAGGED | IOGAP_REC_RAMP | IOGAP_REC_FUA | \
			    IOGAP_REC_SYNC_OP | IOGAP_REC_MERGED)


static uint64_t align_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) / a * a;
}

/* ---------------------------------------------------------------- checks */

/* Shared by writer and reader so the writer can never produce a file the
 * reader rejects.  Returns NULL when fine, else a static description. */
static const char *check_producer_clock(unsigned producer, unsigned clock)
{
	if (producer < IOGAP_PRODUCER_PROBE_BARE || producer > IOGAP_PRODUCER_FILTER)
		return "unknown producer";
	if (clock < IOGAP_CLOCK_HOST_MONOTONIC || clock > IOGAP_CLOCK_GUEST_MONOTONIC)
		return "unknown clock";
	return NULL;
}

/* layer[] is NUL padded: once a NUL appears, only NULs may follow, and the
 * name itself is printable ASCII (it ends up in reports and file names). */
static bool layer_valid(const char layer[16])
{
	bool ended = false;

	for (int i = 0; i < 16; i++) {
		unsigned char c = (unsigned char)layer[i];

		if (ended && c)
			return false;
		if (!c)
			ended = true;
		else if (c < 0x21 || c > 0x7e)
			return false;
	}
	return true;
}

static bool key_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
}

/* Info text: "key=value\n" lines, key of [A-Za-z0-9_.-], value without
 * control characters other than tab, every line newline-terminated.
 * On failure says which line in why. */
static bool info_valid(const char *s, size_t n, char *why, size_t whylen)
{
	size_t line = 1, i = 0;

	while (i < n) {
		size_t k = i;

		while (k < n && key_char((unsigned char)s[k]))
			k++;
		if (k == i || k >= n || s[k] != '=') {
			iogap_seterr(why, whylen, "info line %zu is not key=value", line);
			return false;
		}
		for (k++; k < n && s[k] != '\n'; k++) {
			unsigned char c = (unsigned char)s[k];

			if ((c < 0x20 && c != '\t') || c == 0x7f) {
				iogap_seterr(why, whylen, "info line %zu has control byte 0x%02x",
				       line, c);
				return false;
			}
		}
		if (k >= n) {
			iogap_seterr(why, whylen, "info line %zu is not newline-terminated", line);
			return false;
		}
		i = k + 1;
		line++;
	}
	return true;
}

/* Per-record sanity.  Returns NULL or writes a description into why.
 * Inlined: the reader checks every record of every pass. */
static inline __attribute__((always_inline)) bool record_valid(const struct iogap_trace_record *r, char *why, size_t whylen)
{
	if (r->op > IOGAP_OP_OTHER) {
		iogap_seterr(why, whylen, "op %u is not a known operation", r->op);
		return false;
	}
	if (r->flags & ~KNOWN_REC_FLAGS) {
		iogap_seterr(why, whylen, "unknown flags 0x%02x", r->flags);
		return false;
	}
	if (r->reserved) {
		iogap_seterr(why, whylen, "reserved record bytes are not zero");
		return false;
	}
	if (r->issue_ns < r->start_ns) {
		iogap_seterr(why, whylen, "issue_ns %" PRIu64 " < start_ns %" PRIu64,
		       r->issue_ns, r->start_ns);
		return false;
	}
	if (r->complete_ns < r->issue_ns) {
		iogap_seterr(why, whylen, "complete_ns %" PRIu64 " < issue_ns %" PRIu64,
		       r->complete_ns, r->issue_ns);
		return false;
	}
	if (r->offset > UINT64_MAX - r->length) {
		iogap_seterr(why, whylen, "offset %" PRIu64 " + length %" PRIu32 " overflows",
		       r->offset, r->length);
		return false;
	}
	/* A result is bytes done (never more than asked) or a -errno. */
	if ((int64_t)r->result > (int64_t)r->length || r->result < -4095) {
		iogap_seterr(why, whylen, "result %" PRId32 " impossible for length %" PRIu32,
		       r->result, r->length);
		return false;
	}
	return true;
}

/* ---------------------------------------------------------------- writer */

/*
 * The file is staged as one byte stream (prologue, then records) in
 * NR_SEGS segments of SEG_BYTES: segment k holds file bytes
 * [k * SEG_BYTES, (k + 1) * SEG_BYTES).  Appenders copy their batch into
 * the stream, one at a time (one memcpy; no system call); a background
 * thread writes each full segment with O_DIRECT, so the records never go
 * through the page cache (the kernel's copy there cost more per record
 * than everything else, and the worker threads never wait for the disk
 * unless it falls NR_SEGS segments behind).  Where O_DIRECT is refused
 * (tmpfs, a device without it, an odd alignment) the same thread writes
 * through the page cache.  The tail (last partial segment) and the header
 * are written through the page cache at close.
 */
#define SEG_BYTES       (1u << 20)
#define NR_SEGS         4
#define DIRECT_ALIGN    4096

struct iogap_trace_writer {
	pthread_mutex_t append_lock;    /* one batch at a time into the stream */
	pthread_mutex_t lock;           /* pos, segs_done, error with the flusher */
	pthread_cond_t full;            /* a segment is full, or closing */
	pthread_cond_t freed;           /* a segment was written */
	pthread_t flusher;
	int fd;                         /* page cache: prologue, tail, header */
	int dfd;                        /* O_DIRECT, or -1 */
	int error;                      /* sticky -errno */
	uint64_t failed_off;            /* file offset where the first error hit */
	bool closing;
	char *path;
	struct iogap_trace_header h;
	uint64_t pos;                   /* stream bytes staged so far */
	uint64_t segs_done;             /* segments written (in order) */
	char *seg[NR_SEGS];             /* segment k lives in seg[k % NR_SEGS] */
};

static int pwrite_all(int fd, const void *buf, size_t len, uint64_t off, uint64_t *done)
{
	const char *p = buf;

	while (len) {
		ssize_t n = pwrite(fd, p, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -ENOSPC;  /* no progress: treat as a full device */
		p += n;
		len -= (size_t)n;
		off += (uint64_t)n;
		if (done)
			*done = off;
	}
	return 0;
}

/* Called with the lock held: the first error sticks, with where it hit. */
static void fail_locked(struct iogap_trace_writer *w, int rc, uint64_t off)
{
	if (!w->error || off < w->failed_off)
		w->failed_off = off;
	if (!w->error)
		w->error = rc;
}

/* Write segment k, whole.  A direct write the file system refuses
 * (EINVAL: no O_DIRECT or an alignment it wants bigger) switches the
 * writer to the page cache for good; the segment is then written again. */
static int write_segment(struct iogap_trace_writer *w, uint64_t k, uint64_t *reached)
{
	const char *mem = w->seg[k % NR_SEGS];
	uint64_t off = k * SEG_BYTES;
	int rc;

	*reached = off;
	if (w->dfd >= 0) {
		rc = pwrite_all(w->dfd, mem, SEG_BYTES, off, reached);
		if (rc != -EINVAL)
			return rc;
		close(w->dfd);
		w->dfd = -1;
	}
	return pwrite_all(w->fd, mem, SEG_BYTES, off, reached);
}

/* Writes full segments in order until closing and none is left. */
static void *flusher_main(void *arg)
{
	struct iogap_trace_writer *w = arg;

	pthread_mutex_lock(&w->lock);
	for (;;) {
		uint64_t k = w->segs_done, reached;
		bool failed = w->error != 0;   /* then only free the segments */
		int rc = 0;

		if (k == w->pos / SEG_BYTES) {
			if (w->closing)
				break;
			pthread_cond_wait(&w->full, &w->lock);
			continue;
		}
		pthread_mutex_unlock(&w->lock);
		if (!failed)
			rc = write_segment(w, k, &reached);
		pthread_mutex_lock(&w->lock);
		if (rc)
			fail_locked(w, rc, reached);
		w->segs_done = k + 1;
		pthread_cond_broadcast(&w->freed);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

/* Copy len bytes into the stream; the caller holds append_lock, so a
 * batch lands contiguously even when it has to wait for the flusher
 * (only when it is NR_SEGS segments behind).  The copy itself runs
 * without the flusher's lock: the segment being filled is never one the
 * flusher writes. */
static int stage(struct iogap_trace_writer *w, const void *data, size_t len)
{
	const char *p = data;
	int rc = 0;

	while (len && !rc) {
		uint64_t k = w->pos / SEG_BYTES, in = w->pos % SEG_BYTES;
		size_t n = SEG_BYTES - in < len ? (size_t)(SEG_BYTES - in) : len;

		pthread_mutex_lock(&w->lock);
		while (k - w->segs_done >= NR_SEGS && !w->error)
			pthread_cond_wait(&w->freed, &w->lock);
		rc = w->error;
		pthread_mutex_unlock(&w->lock);
		if (rc)
			break;
		memcpy(w->seg[k % NR_SEGS] + in, p, n);
		p += n;
		len -= n;
		pthread_mutex_lock(&w->lock);
		w->pos += n;
		if (w->pos % SEG_BYTES == 0)
			pthread_cond_signal(&w->full);
		pthread_mutex_unlock(&w->lock);
	}
	return rc;
}

static char *make_info(const char *info, char *err, size_t errlen, const char *path)
{
	size_t n = info ? strlen(info) : 0;
	bool add_nl = n && info[n - 1] != '\n';
	char *s, why[96];

	if (n + 1 > INFO_MAX) {
		iogap_seterr(err, errlen, "%s: info text too long (%zu bytes, max %u)",
		       path, n, INFO_MAX - 1);
		return NULL;
	}
	s = malloc(n + 2);
	if (!s) {
		iogap_seterr(err, errlen, "%s: out of memory", path);
		return NULL;
	}
	if (n)
		memcpy(s, info, n);
	if (add_nl)
		s[n++] = '\n';
	s[n] = 0;
	if (!info_valid(s, n, why, sizeof(why))) {
		iogap_seterr(err, errlen, "%s: %s", path, why);
		free(s);
		return NULL;
	}
	return s;
}

static bool proto_valid(const struct iogap_trace_header *p, const char *path,
			char *err, size_t errlen)
{
	const char *bad = check_producer_clock(p->producer, p->clock);

	if (bad) {
		iogap_seterr(err, errlen, "%s: %s (producer %u, clock %u)", path, bad,
		       p->producer, p->clock);
		return false;
	}
	if (p->flags & IOGAP_TRACE_F_RING) {
		iogap_seterr(err, errlen, "%s: this writer writes plain traces, not rings", path);
		return false;
	}
	if (!layer_valid(p->layer)) {
		iogap_seterr(err, errlen, "%s: layer name is not NUL-padded printable ASCII", path);
		return false;
	}
	return true;
}

/* Header, info and zero padding up to records_offset: staged as the
 * stream's start, and written at once too, so the file is a readable
 * (incomplete) trace from the start and a full device shows at open. */
static int write_prologue(struct iogap_trace_writer *w, const char *info)
{
	size_t len = (size_t)w->h.records_offset;
	char *buf = calloc(1, len);
	int rc;

	if (!buf)
		return -ENOMEM;
	memcpy(buf, &w->h, sizeof(w->h));
	memcpy(buf + sizeof(w->h), info, w->h.info_size);
	rc = pwrite_all(w->fd, buf, len, 0, NULL);
	if (!rc)
		rc = stage(w, buf, len);
	free(buf);
	return rc;
}

static void writer_free(struct iogap_trace_writer *w)
{
	if (!w)
		return;
	pthread_mutex_destroy(&w->append_lock);
	pthread_mutex_destroy(&w->lock);
	pthread_cond_destroy(&w->full);
	pthread_cond_destroy(&w->freed);
	for (int i = 0; i < NR_SEGS; i++)
		free(w->seg[i]);
	free(w->path);
	free(w);
}

static void stop_flusher(struct iogap_trace_writer *w)
{
	pthread_mutex_lock(&w->lock);
	w->closing = true;
	pthread_cond_signal(&w->full);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->flusher, NULL);
}

static void init_header(struct iogap_trace_writer *w, const struct iogap_trace_header *proto,
			const char *text)
{
	w->h = *proto;
	memcpy(w->h.magic, IOGAP_TRACE_MAGIC, IOGAP_TRACE_MAGIC_LEN);
	w->h.version = IOGAP_TRACE_VERSION;
	w->h.header_size = sizeof(struct iogap_trace_header);
	w->h.record_size = sizeof(struct iogap_trace_record);
	w->h.flags = 0;                 /* COMPLETE only once closed cleanly */
	w->h.info_size = (uint32_t)strlen(text);
	w->h.records_offset = align_up(w->h.header_size + (uint64_t)w->h.info_size,
				       IOGAP_TRACE_ALIGN);
	w->h.record_count = 0;
	w->h.dropped = 0;
	w->h.end_ns = 0;
	memset(w->h.reserved, 0, sizeof(w->h.reserved));
}

static struct iogap_trace_writer *writer_alloc(const char *path)
{
	struct iogap_trace_writer *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->fd = w->dfd = -1;
	pthread_mutex_init(&w->append_lock, NULL);
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->full, NULL);
	pthread_cond_init(&w->freed, NULL);
	w->path = strdup(path);
	for (int i = 0; i < NR_SEGS; i++)
		w->seg[i] = aligned_alloc(DIRECT_ALIGN, SEG_BYTES);
	for (int i = 0; i < NR_SEGS; i++)
		if (!w->seg[i] || !w->path) {
			writer_free(w);
			return NULL;
		}
	return w;
}

struct iogap_trace_writer *iogap_trace_writer_open(const char *path,
		const struct iogap_trace_header *proto, const char *info,
		char *err, size_t errlen)
{
	struct iogap_trace_writer *w;
	char *text;
	int rc;

	if (!proto_valid(proto, path, err, errlen))
		return NULL;
	text = make_info(info, err, errlen, path);
	if (!text)
		return NULL;
	w = writer_alloc(path);
	if (!w) {
		iogap_seterr(err, errlen, "%s: out of memory", path);
		free(text);
		return NULL;
	}
	init_header(w, proto, text);
	w->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (w->fd < 0) {
		iogap_seterr(err, errlen, "%s: %s", path, strerror(errno));
		goto fail;
	}
	w->dfd = open(path, O_WRONLY | O_DIRECT | O_CLOEXEC);   /* -1: page cache */
	rc = pthread_create(&w->flusher, NULL, flusher_main, w);
	if (rc) {
		iogap_seterr(err, errlen, "%s: pthread_create: %s", path, strerror(rc));
		goto fail;
	}
	rc = write_prologue(w, text);
	if (rc) {
		/* No unlink(): path may be a device or someone's file. */
		iogap_seterr(err, errlen, "%s: writing header: %s", path, strerror(-rc));
		stop_flusher(w);
		goto fail;
	}
	free(text);
	return w;
fail:
	if (w->dfd >= 0)
		close(w->dfd);
	if (w->fd >= 0)
		close(w->fd);
	writer_free(w);
	free(text);
	return NULL;
}

int iogap_trace_writer_append(struct iogap_trace_writer *w,
		const struct iogap_trace_record *recs, size_t nr)
{
	int rc;

	/* Reject a bad batch whole: a record the reader would refuse later
	 * would make the entire trace unreadable.  Cheap next to the copy. */
	for (size_t i = 0; i < nr; i++)
		if (!record_valid(&recs[i], NULL, 0))
			return -EINVAL;

	pthread_mutex_lock(&w->append_lock);
	rc = stage(w, recs, nr * sizeof(*recs));
	pthread_mutex_unlock(&w->append_lock);
	return rc;
}

/* After the flusher stopped: the last partial segment, through the page
 * cache (its length is not a multiple of the direct I/O alignment). */
static void write_tail(struct iogap_trace_writer *w)
{
	uint64_t k = w->pos / SEG_BYTES, reached;
	int rc;

	if (w->error || w->pos % SEG_BYTES == 0)
		return;
	rc = pwrite_all(w->fd, w->seg[k % NR_SEGS], (size_t)(w->pos % SEG_BYTES),
			k * SEG_BYTES, &reached);
	if (rc)
		fail_locked(w, rc, reached);
}

/* Records wholly on disk before the first failure; the file is cut there
 * so nothing written after it (by the direct writes that went on) can
 * pass for records: the reader sees an incomplete trace of those. */
static uint64_t cut_at_failure(struct iogap_trace_writer *w)
{
	uint64_t end = w->failed_off > w->h.records_offset ? w->failed_off :
		       w->h.records_offset;

	if (ftruncate(w->fd, (off_t)end) < 0) {
		/* a device cannot be cut; its header still lacks COMPLETE */
	}
	return (end - w->h.records_offset) / sizeof(struct iogap_trace_record);
}

int iogap_trace_writer_close(struct iogap_trace_writer *w, uint64_t end_ns,
		uint64_t dropped, char *err, size_t errlen)
{
	int rc = 0;

	if (!w)
		return 0;
	stop_flusher(w);
	write_tail(w);
	rc = w->error;
	if (rc) {
		/* Leave the header without COMPLETE: readers then see an
		 * unfinished trace rather than one that looks whole. */
		iogap_seterr(err, errlen, "%s: write failed after %" PRIu64 " records: %s"
		       " (trace left incomplete)", w->path, cut_at_failure(w), strerror(-rc));
		goto out;
	}
	w->h.record_count = (w->pos - w->h.records_offset) / sizeof(struct iogap_trace_record);
	w->h.dropped = dropped;
	w->h.end_ns = end_ns;
	w->h.flags |= IOGAP_TRACE_F_COMPLETE;
	/* Data must be durable before the header claims it (and fsync is
	 * where delayed-allocation ENOSPC and I/O errors finally show up). */
	if (fdatasync(w->fd) < 0 && errno != EINVAL) {
		rc = -errno;
		iogap_seterr(err, errlen, "%s: syncing records: %s", w->path, strerror(errno));
		goto out;
	}
	rc = pwrite_all(w->fd, &w->h, sizeof(w->h), 0, NULL);
	if (!rc && fdatasync(w->fd) < 0 && errno != EINVAL)
		rc = -errno;
	if (rc)
		iogap_seterr(err, errlen, "%s: writing final header: %s", w->path, strerror(-rc));
out:
	if (w->dfd >= 0)
		close(w->dfd);
	if (close(w->fd) < 0 && !rc) {
		rc = -errno;
		iogap_seterr(err, errlen, "%s: close: %s", w->path, strerror(errno));
	}
	writer_free(w);
	return rc;
}

/* ---------------------------------------------------------------- reader */

struct iogap_trace_reader {
	int fd;
	char *path;
	struct iogap_trace_header h;    /* as handed out (see fix-ups in open) */
	uint64_t file_record_count;     /* record_count as stored in the file */
	uint64_t file_size;
	uint64_t stray;                 /* bytes after the last whole record */
	char *info;
	bool ring;
	struct iogap_ring_control ctl;  /* snapshot taken at open */
	uint64_t slots_off;             /* file offset of record (slot) 0 */
	uint64_t seq, end;              /* next sequence number, one past last */
	struct iogap_trace_record *buf;
	uint64_t buf_seq;               /* sequence number of buf[0] */
	size_t buf_n;
	bool failed;
	char lasterr[320];              /* repeated by next() after a failure */
};

static int pread_all(int fd, void *buf, size_t len, uint64_t off)
{
	char *p = buf;

	while (len) {
		ssize_t n = pread(fd, p, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -ENODATA;        /* file shrank under us */
		p += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

static bool all_zero(const void *p, size_t n)
{
	const unsigned char *c = p;

	for (size_t i = 0; i < n; i++)
		if (c[i])
			return false;
	return true;
}

/* Magic and version first: what tells a foreign or newer
 * file from a broken one, in the order that gives the most useful message
 * for a short file. */
static int check_identity(const unsigned char *raw, size_t got, char *why, size_t whylen)
{
	uint16_t version;

	if (got == 0)
		return iogap_seterr(why, whylen, "empty file, not an iogap trace");
	if (memcmp(raw, IOGAP_TRACE_MAGIC, got < IOGAP_TRACE_MAGIC_LEN ? got :
		   IOGAP_TRACE_MAGIC_LEN))
		return iogap_seterr(why, whylen, "not an iogap trace (no %s magic)",
				    IOGAP_TRACE_MAGIC);
	if (got >= 10) {
		memcpy(&version, raw + 8, sizeof(version));
		if (version > IOGAP_TRACE_VERSION)
			return iogap_seterr(why, whylen, "trace format version %u, this reader "
					    "knows %u", version, IOGAP_TRACE_VERSION);
		if (version == 1)
			return iogap_seterr(why, whylen, "trace format version 1 (56-byte records), "
					    "this reader knows only %u (64-byte records): read it "
					    "with the iogap that wrote it, or record it again",
					    IOGAP_TRACE_VERSION);
		if (version != IOGAP_TRACE_VERSION)
			return iogap_seterr(why, whylen, "invalid trace format version %u", version);
	}
	if (got < sizeof(struct iogap_trace_header))
		return iogap_seterr(why, whylen, "truncated: file is %zu bytes, shorter than the "
				    "%zu-byte header", got, sizeof(struct iogap_trace_header));
	return 0;
}

/* The remaining fields, and where the parts lie in size bytes. */
static int check_layout(const struct iogap_trace_header *h, uint64_t size, char *why,
			size_t whylen)
{
	const char *bad = check_producer_clock(h->producer, h->clock);
	uint64_t want_off;

	if (h->header_size != sizeof(struct iogap_trace_header))
		return iogap_seterr(why, whylen, "header_size %u, version %u has %zu",
				    h->header_size, IOGAP_TRACE_VERSION,
				    sizeof(struct iogap_trace_header));
	if (h->record_size != sizeof(struct iogap_trace_record))
		return iogap_seterr(why, whylen, "record_size %u, version %u has %zu",
				    h->record_size, IOGAP_TRACE_VERSION,
				    sizeof(struct iogap_trace_record));
	if (bad)
		return iogap_seterr(why, whylen, "%s (producer %u, clock %u)", bad, h->producer,
				    h->clock);
	if (h->flags & ~KNOWN_TRACE_FLAGS)
		return iogap_seterr(why, whylen, "unknown header flags 0x%04x",
				    h->flags & ~KNOWN_TRACE_FLAGS);
	if (!layer_valid(h->layer))
		return iogap_seterr(why, whylen, "layer name is not NUL-padded printable ASCII");
	if (!all_zero(h->reserved, sizeof(h->reserved)))
		return iogap_seterr(why, whylen, "reserved header bytes are not zero");
	if (h->info_size >= INFO_MAX)
		return iogap_seterr(why, whylen, "info_size %u is implausible (max %u)",
				    h->info_size, INFO_MAX - 1);
	want_off = align_up(h->header_size + (uint64_t)h->info_size, IOGAP_TRACE_ALIGN);
	if (h->records_offset != want_off)
		return iogap_seterr(why, whylen, "records_offset %" PRIu64 " inconsistent with "
				    "info_size %u (expected %" PRIu64 ")", h->records_offset,
				    h->info_size, want_off);
	if (size < want_off)
		return iogap_seterr(why, whylen, "truncated: file is %" PRIu64 " bytes, header and "
				    "info text need %" PRIu64, size, want_off);
	return 0;
}

int iogap_trace_header_check(const void *raw, size_t got, uint64_t size, char *why,
			     size_t whylen)
{
	struct iogap_trace_header h;

	if (check_identity(raw, got, why, whylen))
		return -1;
	memcpy(&h, raw, sizeof(h));
	return check_layout(&h, size, why, whylen);
}

int iogap_trace_ring_check(const struct iogap_trace_header *h, uint64_t size, char *why,
			   size_t whylen)
{
	const uint64_t rs = sizeof(struct iogap_trace_record);
	const uint64_t cs = sizeof(struct iogap_ring_control);
	const uint64_t cap = h->record_count;
	uint64_t avail = size - h->records_offset, have, stray;

	if (cap == 0)
		return iogap_seterr(why, whylen, "ring with capacity 0");
	if (avail >= cs && cap <= (avail - cs) / rs && avail == cs + cap * rs)
		return 0;
	have = avail < cs ? 0 : (avail - cs) / rs;
	stray = avail < cs ? avail : (avail - cs) % rs;
	return iogap_seterr(why, whylen, "%s: ring header says %" PRIu64 " slots, file holds %"
			    PRIu64 " (+%" PRIu64 " stray bytes)",
			    have < cap ? "truncated" : "trailing data", cap, have, stray);
}

/* The info text (read here), once the header passed. */
static bool read_info(struct iogap_trace_reader *r, char *err, size_t errlen)
{
	const struct iogap_trace_header *h = &r->h;
	char why[96];
	int rc;

	r->info = malloc(h->info_size + 1);
	if (!r->info) {
		iogap_seterr(err, errlen, "%s: out of memory", r->path);
		return false;
	}
	rc = pread_all(r->fd, r->info, h->info_size, h->header_size);
	if (rc) {
		iogap_seterr(err, errlen, "%s: reading info: %s", r->path, strerror(-rc));
		return false;
	}
	r->info[h->info_size] = 0;
	if (!info_valid(r->info, h->info_size, why, sizeof(why))) {
		iogap_seterr(err, errlen, "%s: %s", r->path, why);
		return false;
	}
	return true;
}

static bool setup_plain(struct iogap_trace_reader *r, char *err, size_t errlen)
{
	const uint64_t rs = sizeof(struct iogap_trace_record);
	uint64_t avail = r->file_size - r->h.records_offset;
	uint64_t have = avail / rs;

	r->stray = avail % rs;
	r->slots_off = r->h.records_offset;
	if (r->h.flags & IOGAP_TRACE_F_COMPLETE) {
		if (have != r->h.record_count || r->stray) {
			iogap_seterr(err, errlen, "%s: %s: header says %" PRIu64 " records, file "
			       "holds %" PRIu64 " (+%" PRIu64 " stray bytes)", r->path,
			       have < r->h.record_count ? "truncated" : "trailing data",
			       r->h.record_count, have, r->stray);
			return false;
		}
	} else {
		/* The writer never closed it (crash, still running): take the
		 * whole records present.  Callers see the missing COMPLETE flag;
		 * the dump says so. */
		r->h.record_count = have;
	}
	r->seq = 0;
	r->end = have;
	return true;
}

static bool setup_ring(struct iogap_trace_reader *r, char *err, size_t errlen)
{
	const uint64_t cap = r->h.record_count;
	const uint64_t cs = sizeof(struct iogap_ring_control);
	char why[160];
	int rc;

	if (iogap_trace_ring_check(&r->h, r->file_size, why, sizeof(why))) {
		iogap_seterr(err, errlen, "%s: %s", r->path, why);
		return false;
	}
	rc = pread_all(r->fd, &r->ctl, sizeof(r->ctl), r->h.records_offset);
	if (rc) {
		iogap_seterr(err, errlen, "%s: reading ring control: %s", r->path, strerror(-rc));
		return false;
	}
	if (r->ctl.read_seq > r->ctl.write_seq ||
	    r->ctl.write_seq - r->ctl.read_seq > cap) {
		iogap_seterr(err, errlen, "%s: ring control inconsistent: write_seq %" PRIu64
		       ", read_seq %" PRIu64 ", capacity %" PRIu64, r->path,
		       r->ctl.write_seq, r->ctl.read_seq, cap);
		return false;
	}
	r->slots_off = r->h.records_offset + cs;
	r->end = r->ctl.write_seq;
	r->seq = r->end > cap ? r->end - cap : 0;
	return true;
}

struct iogap_trace_reader *iogap_trace_reader_open(const char *path, char *err, size_t errlen)
{
	struct iogap_trace_reader *r = calloc(1, sizeof(*r));
	unsigned char raw[sizeof(struct iogap_trace_header)];
	char why[320];
	struct stat st;
	size_t got;
	int rc;

	if (!r || !(r->path = strdup(path))) {
		iogap_seterr(err, errlen, "%s: out of memory", path);
		free(r);
		return NULL;
	}
	r->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (r->fd < 0) {
		iogap_seterr(err, errlen, "%s: %s", path, strerror(errno));
		goto fail;
	}
	if (fstat(r->fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		iogap_seterr(err, errlen, "%s: not a regular file", path);
		goto fail;
	}
	r->file_size = (uint64_t)st.st_size;
	/* read front to back, often larger than the page cache: a larger
	 * read-ahead (advice only: its failure changes nothing) */
	(void)posix_fadvise(r->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	got = r->file_size < sizeof(raw) ? (size_t)r->file_size : sizeof(raw);
	rc = pread_all(r->fd, raw, got, 0);
	if (rc) {
		iogap_seterr(err, errlen, "%s: reading header: %s", path, strerror(-rc));
		goto fail;
	}
	memcpy(&r->h, raw, got);
	if (iogap_trace_header_check(raw, got, r->file_size, why, sizeof(why))) {
		iogap_seterr(err, errlen, "%s: %s", path, why);
		goto fail;
	}
	if (!read_info(r, err, errlen))
		goto fail;
	r->file_record_count = r->h.record_count;
	r->ring = r->h.flags & IOGAP_TRACE_F_RING;
	if (!(r->ring ? setup_ring(r, err, errlen) : setup_plain(r, err, errlen)))
		goto fail;
	r->buf = malloc(RBUF_RECORDS * sizeof(*r->buf));
	if (!r->buf) {
		iogap_seterr(err, errlen, "%s: out of memory", path);
		goto fail;
	}
	return r;
fail:
	iogap_trace_reader_close(r);
	return NULL;
}

const struct iogap_trace_header *iogap_trace_reader_header(const struct iogap_trace_reader *r)
{
	return &r->h;
}

const char *iogap_trace_reader_info(const struct iogap_trace_reader *r)
{
	return r->info;
}

/* Refill buf from r->seq: one contiguous run of slots (a ring wraps). */
static int refill(struct iogap_trace_reader *r, char *err, size_t errlen)
{
	uint64_t n = r->end - r->seq, slot = r->seq;
	int rc;

	if (r->ring) {
		slot = r->seq % r->h.record_count;
		if (n > r->h.record_count - slot)
			n = r->h.record_count - slot;
	}
	if (n > RBUF_RECORDS)
		n = RBUF_RECORDS;
	rc = pread_all(r->fd, r->buf, (size_t)n * sizeof(*r->buf),
		       r->slots_off + slot * sizeof(*r->buf));
	if (rc) {
		iogap_seterr(err, errlen, "%s: reading record %" PRIu64 ": %s", r->path, r->seq,
		       rc == -ENODATA ? "file shrank while reading" : strerror(-rc));
		return -1;
	}
	r->buf_seq = r->seq;
	r->buf_n = (size_t)n;
	return 0;
}

/* Everything but a valid record already in the buffer: refill, the end,
 * errors and their messages. */
static __attribute__((noinline)) int reader_next_slow(struct iogap_trace_reader *r,
						       struct iogap_trace_record *rec,
						       char *err, size_t errlen)
{
	char why[128];

	if (r->failed) {
		iogap_seterr(err, errlen, "%s", r->lasterr);
		return -1;
	}
	if (r->seq >= r->end)
		return 0;
	if (r->seq < r->buf_seq || r->seq - r->buf_seq >= r->buf_n) {
		if (refill(r, r->lasterr, sizeof(r->lasterr)))
			goto fail;
	}
	*rec = r->buf[r->seq - r->buf_seq];
	if (!record_valid(rec, why, sizeof(why))) {
		iogap_seterr(r->lasterr, sizeof(r->lasterr), "%s: record %" PRIu64 ": %s", r->path,
		       r->seq, why);
		goto fail;
	}
	r->seq++;
	return 1;
fail:
	r->failed = true;
	iogap_seterr(err, errlen, "%s", r->lasterr);
	return -1;
}

int iogap_trace_reader_next(struct iogap_trace_reader *r, struct iogap_trace_record *rec,
		char *err, size_t errlen)
{
	uint64_t i = r->seq - r->buf_seq;

	if (__builtin_expect(!r->failed && r->seq < r->end && r->seq >= r->buf_seq &&
			     i < r->buf_n && record_valid(&r->buf[i], NULL, 0), 1)) {
		*rec = r->buf[i];
		r->seq++;
		return 1;
	}
	return reader_next_slow(r, rec, err, errlen);
}

ptrdiff_t iogap_trace_reader_batch(struct iogap_trace_reader *r,
				   const struct iogap_trace_record **recs,
				   char *err, size_t errlen)
{
	struct iogap_trace_record first;   /* the checks and messages of _next */
	int rc = iogap_trace_reader_next(r, &first, err, errlen);
	size_t from, to;

	if (rc <= 0)
		return rc;
	from = (size_t)(r->seq - 1 - r->buf_seq);
	for (to = from + 1; to < r->buf_n && r->seq < r->end &&
	     record_valid(&r->buf[to], NULL, 0); to++)
		r->seq++;
	*recs = &r->buf[from];
	return (ptrdiff_t)(to - from);
}

void iogap_trace_reader_close(struct iogap_trace_reader *r)
{
	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);
	free(r->buf);
	free(r->info);
	free(r->path);
	free(r);
}

/* ---------------------------------------------------------------- dump */

static const char *producer_name(unsigned p)
{
	switch (p) {
	case IOGAP_PRODUCER_PROBE_BARE:  return "probe-bare";
	case IOGAP_PRODUCER_PROBE_GUEST: return "probe-guest";
	case IOGAP_PRODUCER_FILTER:      return "filter";
	}
	return "unknown";
}

static const char *clock_name(unsigned c)
{
	switch (c) {
	case IOGAP_CLOCK_HOST_MONOTONIC:  return "host-monotonic";
	case IOGAP_CLOCK_GUEST_MONOTONIC: return "guest-monotonic";
	}
	return "unknown";
}

static const char *op_name(unsigned op)
{
	static const char *const names[] = {
		[IOGAP_OP_READ] = "read", [IOGAP_OP_WRITE] = "write",
		[IOGAP_OP_TRIM] = "trim", [IOGAP_OP_FLUSH] = "flush",
		[IOGAP_OP_WRITE_ZEROES] = "write-zeroes", [IOGAP_OP_OTHER] = "other",
	};

	return op < sizeof(names) / sizeof(names[0]) ? names[op] : "unknown";
}

/* "a|b" names of set bits, "-" when none. */
static void flag_names(char *out, size_t len, unsigned flags,
		       const char *const *names, unsigned n)
{
	size_t pos = 0;

	out[0] = 0;
	for (unsigned i = 0; i < n; i++) {
		if (!(flags & (1u << i)))
			continue;
		pos += (size_t)snprintf(out + pos, len - pos, "%s%s", pos ? "|" : "",
					names[i]);
		if (pos >= len)
			return;
	}
	if (!pos)
		snprintf(out, len, "-");
}

static void dump_header(FILE *out, const struct iogap_trace_reader *r)
{
	static const char *const tf[] = { "ring", "complete" };
	const struct iogap_trace_header *h = &r->h;
	const uint8_t *b = h->boot_id;
	char fl[64];

	flag_names(fl, sizeof(fl), h->flags, tf, 2);
	fprintf(out, "trace: %s\n", r->path);
	fprintf(out, "magic: %.8s\n", h->magic);
	fprintf(out, "version: %u\n", h->version);
	fprintf(out, "header_size: %u\n", h->header_size);
	fprintf(out, "record_size: %u\n", h->record_size);
	fprintf(out, "producer: %u (%s)\n", h->producer, producer_name(h->producer));
	fprintf(out, "clock: %u (%s)\n", h->clock, clock_name(h->clock));
	fprintf(out, "flags: 0x%04x (%s)\n", h->flags, fl);
	fprintf(out, "info_size: %u\n", h->info_size);
	fprintf(out, "run_id: 0x%016" PRIx64 "\n", h->run_id);
	fprintf(out, "boot_id: %02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
		"%02x%02x%02x%02x%02x%02x\n", b[0], b[1], b[2], b[3], b[4], b[5], b[6],
		b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
	fprintf(out, "layer: %.16s\n", h->layer);
	fprintf(out, "records_offset: %" PRIu64 "\n", h->records_offset);
	fprintf(out, "record_count: %" PRIu64 "\n", r->file_record_count);
	fprintf(out, "dropped: %" PRIu64 "\n", h->dropped);
	fprintf(out, "start_ns: %" PRIu64 "\n", h->start_ns);
	fprintf(out, "end_ns: %" PRIu64 "\n", h->end_ns);
	if (r->ring)
		fprintf(out, "ring: capacity=%" PRIu64 " write_seq=%" PRIu64 " read_seq=%"
			PRIu64 " dropped=%" PRIu64 " records=%" PRIu64 "\n",
			h->record_count, r->ctl.write_seq, r->ctl.read_seq,
			r->ctl.dropped, r->end - r->seq);
	else if (h->flags & IOGAP_TRACE_F_COMPLETE)
		fprintf(out, "state: complete, %" PRIu64 " records\n", h->record_count);
	else
		fprintf(out, "state: incomplete (writer did not close the trace), %" PRIu64
			" whole records present (+%" PRIu64 " stray bytes)\n",
			h->record_count, r->stray);
}

static void dump_info(FILE *out, const char *info)
{
	const char *p = info;

	while (*p) {
		const char *nl = strchr(p, '\n');
		int len = (int)(nl - p);   /* info_valid: every line ends in \n */

		fprintf(out, "info: %.*s\n", len, p);
		p = nl + 1;
	}
}

static void dump_record(FILE *out, uint64_t seq, const struct iogap_trace_record *x)
{
	static const char *const rf[] = { "tagged", "ramp", "fua", "sync-op", "merged" };
	uint64_t file = x->offset >> IOGAP_TRACE_FILE_SHIFT;
	char fl[64], fs[32] = "";

	flag_names(fl, sizeof(fl), x->flags, rf, 5);
	if (file)   /* a probe job's file index (trace.h) */
		snprintf(fs, sizeof(fs), " file=%" PRIu64, file);
	fprintf(out, "record %" PRIu64 ": tag=0x%016" PRIx64 " op=%s%s offset=%" PRIu64
		" length=%" PRIu32 " start_ns=%" PRIu64 " issue_ns=%" PRIu64
		" complete_ns=%" PRIu64 " slat_ns=%" PRIu64 " clat_ns=%" PRIu64
		" result=%" PRId32 " thread=%" PRIu32 " job=%u flags=%s\n",
		seq, x->tag, op_name(x->op), fs, (uint64_t)IOGAP_TRACE_FILE_OFFSET(x->offset),
		x->length, x->start_ns,
		x->issue_ns, x->complete_ns, x->issue_ns - x->start_ns,
		x->complete_ns - x->issue_ns, x->result, x->thread, x->job, fl);
}

int iogap_trace_dump(FILE *out, const char *path, char *err, size_t errlen)
{
	struct iogap_trace_reader *r = iogap_trace_reader_open(path, err, errlen);
	struct iogap_trace_record rec;
	uint64_t n = 0;
	int rc;

	if (!r)
		return -1;
	dump_header(out, r);
	dump_info(out, r->info);
	for (;;) {
		uint64_t seq = r->seq;

		rc = iogap_trace_reader_next(r, &rec, err, errlen);
		if (rc <= 0)
			break;
		dump_record(out, seq, &rec);
		n++;
	}
	if (rc == 0)
		fprintf(out, "end: %" PRIu64 " records\n", n);
	iogap_trace_reader_close(r);
	if (ferror(out)) {
		iogap_seterr(err, errlen, "%s: writing dump: %s", path, strerror(errno));
		return -1;
	}
	return rc < 0 ? -1 : 0;
}
