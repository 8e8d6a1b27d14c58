/* SPDX-License-Identifier: MIT */
/*
 * As fio's merge (fixed in fio after 3.33, whose merge reads a pointer's
 * worth of each record, stops at "iolog short read" and leaves the file
 * empty): the queued reads, writes and trims of every capture, earliest
 * first (ties to the capture listed first, in fio's order, which a
 * finished capture's move into its slot changes), written without their
 * payloads in this machine's byte order.  A capture's time t in pass k
 * (from 0) becomes (t + k * L) * scalar / 100, L being the first pass's
 * last time fio read (scaled if that record was queued I/O); between two
 * passes fio writes the last record it read once more, and so does this.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blktrace.h"
#include "blktrace_merge.h"
#include "util.h"

struct cursor {                   /* fio's blktrace_cursor */
	FILE *f;
	const char *name;
	bool swap;
	struct blk_io_trace t;    /* the record to write next (or last read) */
	uint64_t length;          /* L above */
	uint64_t rec;             /* records read in this pass */
	unsigned scalar, iter, nr_iter;
};

/* fio's read_trace: the next queued read, write or trim, its time moved
 * by the passes before and scaled: 1, 0 at the end, -1 with err */
static int read_queued(struct cursor *c, char *err, size_t errlen)
{
	char why[256];
	int ret;

	for (;;) {
		ret = iogap_blktrace_read(c->f, c->swap, &c->t, why, sizeof(why));
		if (ret < 0)
			return iogap_seterr(err, errlen, "%s: record %" PRIu64 ": %s", c->name,
					    c->rec + 1, why);
		if (!ret) {
			if (!c->length)
				c->length = c->t.time;
			return 0;
		}
		c->rec++;
		if ((c->t.action & 0xffff) == BT_TA_QUEUE && iogap_blktrace_ddir(c->t.action) >= 0)
			break;
	}
	c->t.time = (c->t.time + (uint64_t)c->iter * c->length) * c->scalar / 100;
	return 1;
}

/* fio's merge_finish_file: another pass (the record read last stays, to
 * be written again), or the capture is done and the last one takes its
 * slot */
static void next_pass(struct cursor *cs, unsigned i, unsigned *nr)
{
	struct cursor *c = &cs[i];

	if (++c->iter < c->nr_iter) {
		rewind(c->f);
		c->rec = 0;
		return;
	}
	fclose(c->f);
	cs[i] = cs[--*nr];
}

/* fio's find_earliest_io */
static unsigned earliest(const struct cursor *cs, unsigned nr)
{
	uint64_t time = UINT64_MAX;
	unsigned idx = 0;

	for (unsigned i = 0; i < nr; i++) {
		if (cs[i].t.time < time) {
			time = cs[i].t.time;
			idx = i;
		}
	}
	return idx;
}

/* Open the captures, each at its first queued I/O; one without any is
 * left out.  0, or -1 with err. */
static int open_captures(const struct iogap_job *j, char **names, unsigned nr_names,
			 struct cursor *cs, unsigned *nr, char *err, size_t errlen)
{
	for (unsigned k = 0; k < nr_names; k++) {
		struct cursor *c = &cs[*nr];
		int ret;

		*c = (struct cursor){ .name = names[k], .nr_iter = 1, .scalar = 100 };
		if (j->merge_scalars_nr)
			c->scalar = j->merge_scalars[k];
		if (j->merge_iters_nr)
			c->nr_iter = j->merge_iters[k];
		if (!(c->f = fopen(names[k], "rb")))
			return iogap_seterr(err, errlen, "%s: cannot open the capture: %s", names[k],
					    strerror(errno));
		(*nr)++;
		if (!iogap_blktrace_detect(c->f, &c->swap))
			return iogap_seterr(err, errlen, "%s: not a blktrace capture (fio merges only "
					    "those)", names[k]);
		ret = read_queued(c, err, errlen);
		if (ret < 0)
			return -1;
		if (!ret)
			fclose(cs[--*nr].f);
	}
	return 0;
}

static int merge_into(FILE *out, const char *path, struct cursor *cs, unsigned *nr, char *err,
		      size_t errlen)
{
	while (*nr) {
		unsigned i = earliest(cs, *nr);
		int ret;

		if (iogap_blktrace_write(out, &cs[i].t))
			return iogap_seterr(err, errlen, "%s: %s", path, strerror(errno));
		ret = read_queued(&cs[i], err, errlen);
		if (ret < 0)
			return -1;
		if (!ret)
			next_pass(cs, i, nr);
	}
	return 0;
}

static int merge_files(const struct iogap_job *j, char **names, unsigned nr_names, FILE *out,
		       char *err, size_t errlen)
{
	struct cursor *cs = calloc(nr_names, sizeof(*cs));
	unsigned nr = 0;
	int ret;

	if (!cs)
		return iogap_seterr(err, errlen, "out of memory");
	ret = open_captures(j, names, nr_names, cs, &nr, err, errlen);
	if (!ret)
		ret = merge_into(out, j->merge_blktrace_file, cs, &nr, err, errlen);
	for (unsigned i = 0; i < nr; i++)
		fclose(cs[i].f);
	free(cs);
	return ret;
}

static int merge_names(struct iogap_job *j, char **names, unsigned nr, char *err, size_t errlen)
{
	const char *path = j->merge_blktrace_file;
	FILE *out;
	int ret;

	for (unsigned k = 0; k < nr; k++)   /* fio would empty it before reading it */
		if (!strcmp(names[k], path))
			return iogap_seterr(err, errlen, "merge_blktrace_file %s is one of the "
					    "captures it merges", path);
	if (!(out = fopen(path, "w")))
		return iogap_seterr(err, errlen, "%s: merge_blktrace_file: %s", path,
				    strerror(errno));
	ret = merge_files(j, names, nr, out, err, errlen);
	if (fclose(out) && !ret)
		ret = iogap_seterr(err, errlen, "%s: %s", path, strerror(errno));
	if (ret)
		unlink(path);   /* no half-merged file to replay by mistake */
	return ret;
}

int iogap_blktrace_merge(struct iogap_job *j, char *err, size_t errlen)
{
	char *copy, **names;
	unsigned nr;
	int ret;

	if (iogap_job_iolog_check(j, err, errlen))
		return -1;
	if (!j->merge_blktrace_file)
		return 0;
	if (!(names = iogap_split_names(j->read_iolog, &copy, &nr)))
		return iogap_seterr(err, errlen, "out of memory");
	ret = merge_names(j, names, nr, err, errlen);
	free(names);
	free(copy);
	if (ret)
		return -1;
	free(j->read_iolog);   /* fio then replays the merged file */
	j->read_iolog = j->merge_blktrace_file;
	j->merge_blktrace_file = NULL;
	j->merge_scalars_nr = j->merge_iters_nr = 0;
	return 0;
}
