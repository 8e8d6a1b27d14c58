/* SPDX-License-Identifier: MIT */
/*
 * Written buffers with fio's content model (io_u.c fill_io_buffer,
 * dedupe.c, lib/rand.c): a buffer is chunks of buffer_compress_chunk
 * bytes, each from one seed: (100 - buffer_compress_percentage)% random
 * bytes, the rest zeros (or buffer_pattern).  dedupe_percentage% of the
 * buffers take their seeds from an earlier point instead of new ones, so
 * they repeat another buffer: the last unique one (dedupe_mode=repeat) or
 * a page of a working set of dedupe_working_set_percentage% of the job's
 * size (working_set), shared by the jobs with dedupe_global.
 */
#include <stdlib.h>
#include <string.h>

#include "dedupe.h"
#include "util.h"

static int parse_percent(const char *val, unsigned *out, char *why, size_t whylen)
{
	unsigned long long v;

	if (!val || iogap_parse_uint(val, 100, &v))
		return iogap_seterr(why, whylen, "expected 0 to 100");
	*out = (unsigned)v;
	return 0;
}

int iogap_job_buf_option(struct iogap_job *j, const char *key, const char *val, char *why,
			 size_t whylen)
{
	struct iogap_buf_opts *o = &j->bufopts;
	uint64_t v;

	if (!strcmp(key, "buffer_compress_percentage"))
		return parse_percent(val, &o->compress_percentage, why, whylen);
	if (!strcmp(key, "dedupe_percentage"))
		return parse_percent(val, &o->dedupe_percentage, why, whylen);
	if (!strcmp(key, "dedupe_working_set_percentage"))
		return parse_percent(val, &o->dedupe_working_set_percentage, why, whylen);
	if (!strcmp(key, "dedupe_global"))
		return iogap_parse_bool(val, &o->dedupe_global) ?
		       iogap_seterr(why, whylen, "expected 0 or 1") : 0;
	if (!strcmp(key, "dedupe_mode")) {
		if (val && !strcmp(val, "repeat"))
			o->dedupe_mode = IOGAP_DEDUPE_REPEAT;
		else if (val && !strcmp(val, "working_set"))
			o->dedupe_mode = IOGAP_DEDUPE_WORKING_SET;
		else
			return iogap_seterr(why, whylen, "expected repeat or working_set");
		return 0;
	}
	if (strcmp(key, "buffer_compress_chunk"))
		return 1;
	if (!val || iogap_parse_size(val, &v) || v > UINT32_MAX)
		return iogap_seterr(why, whylen, "expected a size in bytes");
	o->compress_chunk = (uint32_t)v;
	return 0;
}

int iogap_job_buf_finalize(struct iogap_job *j, char *err, size_t errlen)
{
	const struct iogap_buf_opts *o = &j->bufopts;

	if (!o->dedupe_percentage || o->dedupe_mode != IOGAP_DEDUPE_WORKING_SET)
		return 0;
	/* fio's fixup_options messages */
	if (!j->size)
		return iogap_seterr(err, errlen, "pregenerated dedupe working set requires size "
				    "to be set");
	if (j->nrfiles != 1)
		return iogap_seterr(err, errlen, "dedupe working set mode supported with single "
				    "file per job, but %u files provided", j->nrfiles);
	if (o->dedupe_working_set_percentage + o->dedupe_percentage > 100)
		return iogap_seterr(err, errlen, "impossible to reach expected dedupe percentage "
				    "%u since %u percentage of size is reserved to dedupe working "
				    "set (those are unique pages)", o->dedupe_percentage,
				    o->dedupe_working_set_percentage);
	return 0;
}

bool iogap_bufgen_wanted(const struct iogap_job *j)
{
	return j->bufopts.compress_percentage || j->bufopts.dedupe_percentage;
}

/* fio's init_dedupe_working_set_seeds: page i's seed state is the job's
 * first one advanced by i pages; with dedupe_global the pages go round
 * the workers in runs of ws_nr / workers, each run from that worker's
 * first state, so jobs write each other's pages. */
static int working_set(struct iogap_bufgen *g, const uint64_t *seeds, size_t nseeds, size_t self)
{
	const struct iogap_buf_opts *o = &g->job->bufopts;
	uint32_t chunk = o->compress_chunk && o->compress_chunk < g->min_write ?
			 o->compress_chunk : g->min_write;
	uint64_t advances = g->min_write / chunk;
	uint64_t per_seed = g->ws_nr / nseeds ? g->ws_nr / nseeds : 1;
	struct iogap_rand s = g->state;

	g->ws = calloc(g->ws_nr ? g->ws_nr : 1, sizeof(*g->ws));
	if (!g->ws)
		return -1;
	for (uint64_t i = 0; i < g->ws_nr; i++) {
		if (i) {
			for (uint64_t k = 0; k < advances; k++)
				iogap_rand_next(&s);
		}
		if (o->dedupe_global && i && i % per_seed == 0)
			iogap_rand_seed(&s, seeds[(self + i / per_seed) % nseeds]);
		g->ws[i] = s;
	}
	return 0;
}

int iogap_bufgen_init(struct iogap_bufgen *g, const struct iogap_job *j, const uint64_t *seeds,
		      size_t nseeds, size_t self, char *err, size_t errlen)
{
	const struct iogap_buf_opts *o = &j->bufopts;

	memset(g, 0, sizeof(*g));
	g->job = j;
	g->min_write = j->bs_min[1] ? j->bs_min[1] : 4096;
	iogap_rand_seed(&g->state, seeds[self]);
	g->prev = g->state;
	iogap_rand_seed(&g->pick, seeds[self] ^ 0xdede);
	iogap_rand_seed(&g->ws_pick, seeds[self] ^ 0x5e75);
	if (!o->dedupe_percentage || o->dedupe_mode != IOGAP_DEDUPE_WORKING_SET)
		return 0;
	g->ws_nr = j->size * o->dedupe_working_set_percentage / 100 / g->min_write;
	if (working_set(g, seeds, nseeds, self))
		return iogap_seterr(err, errlen, "could not allocate dedupe working set of %llu "
				    "pages", (unsigned long long)g->ws_nr);
	return 0;
}

void iogap_bufgen_free(struct iogap_bufgen *g)
{
	free(g->ws);
	g->ws = NULL;
}

/* fio's get_buf_state: the state this buffer's seeds come from (a copy
 * in *scratch when it repeats earlier content) */
static struct iogap_rand *buf_state(struct iogap_bufgen *g, struct iogap_rand *scratch)
{
	const struct iogap_buf_opts *o = &g->job->bufopts;

	if (!o->dedupe_percentage)
		return &g->state;
	if (o->dedupe_percentage == 100) {
		g->prev = g->state;
		return &g->state;
	}
	if (iogap_rand_below(&g->pick, 100) + 1 > o->dedupe_percentage)
		return &g->state;
	if (o->dedupe_mode == IOGAP_DEDUPE_WORKING_SET && g->ws_nr)
		*scratch = g->ws[iogap_rand_below(&g->ws_pick, g->ws_nr)];
	else
		*scratch = g->prev;
	return scratch;
}

static void fill_compressible(const struct iogap_job *j, uint8_t *buf, uint32_t len)
{
	for (uint32_t i = 0; i < len; i++)
		buf[i] = j->buffer_pattern_len ? j->buffer_pattern[i % j->buffer_pattern_len] : 0;
}

/* fio's __fill_random_buf_percentage: segments of (100 - perc)% random
 * bytes then the rest compressible (a tail of a word or less joins it) */
static void fill_chunk(const struct iogap_job *j, uint8_t *buf, uint32_t len, uint64_t seed)
{
	unsigned perc = j->bufopts.compress_percentage;
	uint32_t segment = len, n;

	if (perc == 100) {
		fill_compressible(j, buf, len);
		return;
	}
	while (len) {
		n = (uint32_t)((uint64_t)segment * (100 - perc) / 100);
		if (n > len)
			n = len;
		iogap_rand_fill(buf, n, seed);
		len -= n;
		if (!len)
			break;
		buf += n;
		n = segment - n;
		if (n > len || len - n <= sizeof(long))
			n = len;
		fill_compressible(j, buf, n);
		buf += n;
		len -= n;
	}
}

void iogap_bufgen_fill(struct iogap_bufgen *g, void *buf, uint32_t len)
{
	const struct iogap_buf_opts *o = &g->job->bufopts;
	struct iogap_rand scratch, *rs = buf_state(g, &scratch);
	uint8_t *p = buf;
	uint32_t left = len;

	do {
		uint32_t min_write = g->min_write < left ? g->min_write : left;
		uint32_t n = o->compress_chunk && o->compress_chunk < min_write ? o->compress_chunk :
			     min_write;

		fill_chunk(g->job, p, n, iogap_rand_next(rs));
		p += n;
		left -= n;
		/* fio's save_buf_state */
		if (o->dedupe_percentage == 100)
			*rs = g->prev;
		else if (rs == &g->state)
			g->prev = *rs;
	} while (left);
}
