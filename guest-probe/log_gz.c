/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "log_gz.h"
#include "util.h"
#include "debug.h"

/* fio's struct io_sample_offset, byte for byte (its .fz files hold these);
 * without log_offset the records end before offset (struct io_sample) */
struct fio_sample {
	uint64_t time;
	uint64_t val;
	uint32_t ddir;            /* with fio's flag bits below */
	uint16_t prio;
	uint64_t bs;
	uint64_t offset;
};
#define SAMPLE_OFFSET_BIT 0x80000000u   /* fio's LOG_OFFSET_SAMPLE_BIT */
#define SAMPLE_PRIO_BIT   0x40000000u   /* fio's LOG_PRIO_SAMPLE_BIT */

static size_t sample_size(bool offset)
{
	return offset ? sizeof(struct fio_sample) : offsetof(struct fio_sample, offset);
}

struct iogap_log_gz {
	uint32_t chunk;
	bool offset, prio;
	char *samples;            /* not deflated yet */
	size_t used;
	char *z;                  /* the streams so far */
	size_t zlen;
	FILE *zf;                 /* open_memstream of z */
	int err;
	bool pin;                 /* log_compression_cpus: deflate on cpus only */
	cpu_set_t cpus;
};

struct iogap_log_gz *iogap_log_gz_new(uint32_t chunk, bool offset, bool prio,
				      const cpu_set_t *cpus)
{
	struct iogap_log_gz *g = calloc(1, sizeof(*g));

	if (!g)
		return NULL;
	if (cpus) {
		g->pin = true;
		g->cpus = *cpus;
	}
	g->chunk = chunk;
	g->offset = offset;
	g->prio = prio;
	g->samples = malloc(chunk + sizeof(struct fio_sample));
	g->zf = open_memstream(&g->z, &g->zlen);
	if (!g->samples || !g->zf) {
		if (g->zf)
			fclose(g->zf);
		free(g->z);
		free(g->samples);
		free(g);
		return NULL;
	}
	return g;
}

/* fio's gz_work: the buffered samples as one zlib stream */
static int deflate_samples(struct iogap_log_gz *g)
{
	unsigned char out[65536];
	z_stream s = { 0 };
	int r;

	if (!g->used)
		return 0;
	if (deflateInit(&s, Z_DEFAULT_COMPRESSION) != Z_OK)
		return -1;
	s.next_in = (unsigned char *)g->samples;
	s.avail_in = (uInt)g->used;
	do {
		s.next_out = out;
		s.avail_out = sizeof(out);
		r = deflate(&s, Z_FINISH);
		if (r == Z_STREAM_ERROR)
			break;
		fwrite(out, 1, sizeof(out) - s.avail_out, g->zf);
	} while (r != Z_STREAM_END);
	deflateEnd(&s);
	g->used = 0;
	return r == Z_STREAM_END ? 0 : -1;
}

/* fio runs gz_work in a worker pinned to log_compression_cpus; the probe
 * deflates in the job's thread, moved onto those CPUs for the while. */
static int deflate_pinned(struct iogap_log_gz *g)
{
	cpu_set_t job_cpus;
	int r;

	if (!g->used)
		return 0;
	if (g->pin && (sched_getaffinity(0, sizeof(job_cpus), &job_cpus) ||
		       sched_setaffinity(0, sizeof(g->cpus), &g->cpus)))
		return -1;
	iogap_dprint(IOGAP_DBG_COMPRESS, "deflate %zu bytes of samples on cpu %d\n", g->used,
		     sched_getcpu());
	r = deflate_samples(g);
	if (g->pin && sched_setaffinity(0, sizeof(job_cpus), &job_cpus))
		return -1;
	return r;
}

int iogap_log_gz_add(struct iogap_log_gz *g, uint64_t ms, uint64_t val, uint32_t ddir,
		     uint64_t bs, uint64_t offset)
{
	struct fio_sample s = {
		.time = ms, .val = val, .bs = bs, .offset = offset,
		.ddir = ddir | (g->offset ? SAMPLE_OFFSET_BIT : 0) | (g->prio ? SAMPLE_PRIO_BIT : 0),
	};

	memcpy(g->samples + g->used, &s, sample_size(g->offset));
	g->used += sample_size(g->offset);
	if (g->used >= g->chunk && deflate_pinned(g))
		g->err = -1;
	return g->err;
}

/* fio's flush_samples: the lines of a run of records */
static void print_samples(FILE *out, const char *buf, size_t len)
{
	struct fio_sample s;
	bool offset, prio;
	size_t sz;

	if (len < sample_size(false))
		return;
	memcpy(&s, buf, sample_size(false));
	offset = s.ddir & SAMPLE_OFFSET_BIT;
	prio = s.ddir & SAMPLE_PRIO_BIT;
	sz = sample_size(offset);
	for (size_t i = 0; i + sz <= len; i += sz) {
		memcpy(&s, buf + i, sz);
		fprintf(out, "%" PRIu64 ", %" PRId64 ", %u, %" PRIu64, s.time, (int64_t)s.val,
			s.ddir & ~(SAMPLE_OFFSET_BIT | SAMPLE_PRIO_BIT), s.bs);
		if (offset)
			fprintf(out, ", %" PRIu64, s.offset);
		/* without log_prio fio prints whether the class is RT: never here */
		fprintf(out, prio ? ", 0x%04x\n" : ", %u\n", prio ? s.prio : 0u);
	}
}

/* fio's inflate_chunk loop: each stream inflated and printed in turn */
static int inflate_streams(const char *z, size_t len, FILE *out, int wbits)
{
	size_t cap = 1 << 20;
	char *buf = malloc(cap);
	int r = Z_OK;
	bool ok;

	while (buf && len) {
		z_stream s = { .next_in = (unsigned char *)z, .avail_in = (uInt)len };
		size_t used = 0;

		if (inflateInit2(&s, wbits) != Z_OK)
			break;
		do {
			if (used == cap) {
				char *b = realloc(buf, cap * 2);

				if (!b) {
					r = Z_MEM_ERROR;
					break;
				}
				buf = b;
				cap *= 2;
			}
			s.next_out = (unsigned char *)buf + used;
			s.avail_out = (uInt)(cap - used);
			r = inflate(&s, Z_NO_FLUSH);
			used = cap - s.avail_out;
		} while (r == Z_OK);
		print_samples(out, buf, used);
		z += len - s.avail_in;
		len = s.avail_in;
		inflateEnd(&s);
		if (r != Z_STREAM_END)
			break;
	}
	ok = buf && r == Z_STREAM_END;
	free(buf);
	return ok ? 0 : -1;
}

int iogap_log_gz_finish(struct iogap_log_gz *g, FILE *out, bool store)
{
	int r = g->err;

	if (deflate_pinned(g))
		r = -1;
	fclose(g->zf);
	if (store)
		fwrite(g->z, 1, g->zlen, out);
	else if (g->zlen && inflate_streams(g->z, g->zlen, out, 15))
		r = -1;
	free(g->z);
	free(g->samples);
	free(g);
	return r;
}

int iogap_log_inflate_file(const char *path, FILE *out, char *err, size_t errlen)
{
	size_t len;
	char *z = iogap_read_file(path, 0, &len);
	int r;

	if (!z)
		return iogap_seterr(err, errlen, "%s: %s", path, strerror(errno));
	/* fio: + 32, a gzip header is recognised as well */
	r = len ? inflate_streams(z, len, out, 15 + 32) : 0;
	free(z);
	return r ? iogap_seterr(err, errlen, "%s: not a compressed fio log", path) : 0;
}
