/* SPDX-License-Identifier: MIT */
/*
 * fio's verify state files (verify_state.h): the layout of its
 * verify_state_hdr and thread_io_list, little-endian.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "verify.h"
#include "verify_state.h"

#define VSTATE_VERSION 3

struct vstate_hdr {               /* fio's verify_state_hdr */
	uint64_t version;
	uint64_t size;            /* of the thread_io_list that follows */
	uint64_t crc;             /* its crc32c, fio's */
};

struct thread_io_list {           /* fio's, followed by depth * nofiles comps */
	uint64_t no_comps;
	uint32_t depth;
	uint32_t nofiles;
	uint64_t numberio;
	uint64_t index;
	uint64_t use64;
	union {
		uint32_t s32[4];
		uint64_t s64[6];
	} rand;
	uint8_t name[64];
};
_Static_assert(sizeof(struct thread_io_list) == 152, "fio's thread_io_list");

/* fio's verify_state_gen_name under its "local" prefix: '/' in the name
 * becomes '.' */
static void state_name(char *out, size_t size, const char *dir, const char *name, unsigned index)
{
	char esc[PATH_MAX];

	snprintf(esc, sizeof(esc), "%s", name);
	for (char *p = esc; *p; p++)
		if (*p == '/')
			*p = '.';
	snprintf(out, size, "%s%slocal-%s-%u-verify.state", dir ? dir : "", dir ? "/" : "", esc,
		 index);
}

int iogap_vstate_rec_init(struct iogap_vstate_rec *rec, unsigned nfiles, unsigned depth)
{
	*rec = (struct iogap_vstate_rec){ .depth = depth, .nfiles = nfiles };
	rec->ring = calloc((size_t)nfiles * depth, sizeof(*rec->ring));
	rec->next = calloc(nfiles, sizeof(*rec->next));
	return rec->ring && rec->next ? 0 : -ENOMEM;
}

/* fio's file_log_write_comp */
void iogap_vstate_rec_write(struct iogap_vstate_rec *rec, unsigned file, uint64_t offset)
{
	unsigned *next = &rec->next[file];

	rec->completed++;
	rec->ring[(size_t)file * rec->depth + *next] = offset;
	if (++*next == rec->depth)
		*next = 0;
}

/* fio's fill_file_completions: per file, the last min(completed, depth)
 * slots of its ring, newest first (slots never written read as 0) */
static uint64_t fill_comps(const struct iogap_vstate_rec *rec, struct iogap_vstate_comp *c)
{
	uint64_t per = rec->completed < rec->depth ? rec->completed : rec->depth, n = 0;

	for (unsigned f = 0; f < rec->nfiles; f++) {
		unsigned k = rec->next[f];

		for (uint64_t i = 0; i < per; i++) {
			k = k ? k - 1 : rec->depth - 1;
			c[n++] = (struct iogap_vstate_comp){ f, rec->ring[(size_t)f * rec->depth + k] };
		}
	}
	return n;
}

static void fill_rand(struct thread_io_list *s, const struct iogap_frand *rnd)
{
	s->use64 = rnd->use64;
	if (rnd->use64)
		memcpy(s->rand.s64, rnd->s64, sizeof(rnd->s64));
	else
		memcpy(s->rand.s32, rnd->s32, sizeof(rnd->s32));
}

int iogap_vstate_save(const struct iogap_vstate_rec *rec, const char *dir, const char *name,
		      unsigned index, uint64_t numberio, const struct iogap_frand *rnd, char *err, size_t errlen)
{
	size_t size = sizeof(struct thread_io_list) +
		      (size_t)rec->depth * rec->nfiles * sizeof(struct iogap_vstate_comp);
	struct thread_io_list *s = calloc(1, size);
	struct vstate_hdr h;
	char path[PATH_MAX + 32];
	int fd, r = 0;

	if (!s)
		return iogap_seterr(err, errlen, "fio: out of memory for the verify state");
	s->no_comps = fill_comps(rec, (struct iogap_vstate_comp *)(s + 1));
	s->depth = rec->depth;
	s->nofiles = rec->nfiles;
	s->numberio = numberio;
	s->index = index;
	fill_rand(s, rnd);
	snprintf((char *)s->name, sizeof(s->name), "%s", name);
	h = (struct vstate_hdr){ VSTATE_VERSION, size, iogap_crc32c(s, size) };
	state_name(path, sizeof(path), dir, name, index);
	fd = open(path, O_CREAT | O_TRUNC | O_WRONLY | O_SYNC | O_CLOEXEC, 0644);
	if (fd < 0)
		r = iogap_seterr(err, errlen, "fio: open state file: %s\nfio: state file: %s "
				 "(for_write=1)", strerror(errno), path);
	else if (write(fd, &h, sizeof(h)) != (ssize_t)sizeof(h) ||
		 write(fd, s, size) != (ssize_t)size)
		r = iogap_seterr(err, errlen, "fio: failed to write state file");
	if (fd >= 0)
		close(fd);
	free(s);
	return r;
}

void iogap_vstate_rec_free(struct iogap_vstate_rec *rec)
{
	free(rec->ring);
	free(rec->next);
	*rec = (struct iogap_vstate_rec){ 0 };
}

/* The list after its header, checked as fio's verify_load_state */
static int read_list(int fd, const char *path, struct thread_io_list **out, char *err,
		     size_t errlen)
{
	struct vstate_hdr h;
	struct thread_io_list *s;

	if (read(fd, &h, sizeof(h)) != (ssize_t)sizeof(h))
		return iogap_seterr(err, errlen, "fio: failed reading verify state header (%s)", path);
	if (h.version != VSTATE_VERSION)
		return iogap_seterr(err, errlen, "fio: unsupported (%u) version in verify state "
				    "header (%s)", (unsigned)h.version, path);
	if (h.size < sizeof(*s) || h.size > (64u << 20) || !(s = malloc(h.size)))
		return iogap_seterr(err, errlen, "fio: verify state is corrupt (%s)", path);
	if (read(fd, s, h.size) != (ssize_t)h.size) {
		free(s);
		return iogap_seterr(err, errlen, "fio: failed reading verity state (%s)", path);
	}
	if (iogap_crc32c(s, h.size) != h.crc ||
	    s->no_comps > (h.size - sizeof(*s)) / sizeof(struct iogap_vstate_comp)) {
		free(s);
		return iogap_seterr(err, errlen, "fio: verify state is corrupt (%s)", path);
	}
	*out = s;
	return 0;
}

int iogap_vstate_load(struct iogap_vstate *st, const char *dir, const char *name, unsigned index,
		      char *err, size_t errlen)
{
	char path[PATH_MAX + 32];
	struct thread_io_list *s = NULL;
	int fd, r;

	state_name(path, sizeof(path), dir, name, index);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return iogap_seterr(err, errlen, "fio: open state file: %s\nfio: state file: %s "
				    "(for_write=0)", strerror(errno), path);
	r = read_list(fd, path, &s, err, errlen);
	close(fd);
	if (r)
		return r;
	*st = (struct iogap_vstate){ .numberio = s->numberio, .nr = s->no_comps, .depth = s->depth };
	st->comps = malloc((s->no_comps ? s->no_comps : 1) * sizeof(*st->comps));
	if (!st->comps) {
		free(s);
		return iogap_seterr(err, errlen, "fio: out of memory for the verify state");
	}
	memcpy(st->comps, s + 1, s->no_comps * sizeof(*st->comps));
	free(s);
	return 0;
}

bool iogap_vstate_should_stop(const struct iogap_vstate *s, unsigned file, uint64_t offset,
			      uint64_t reads_done)
{
	/* fio: outside the last depth issues nothing is checked (its
	 * unsigned arithmetic included) */
	if ((reads_done < s->depth || s->numberio - reads_done > s->depth) &&
	    s->numberio > s->depth)
		return false;
	for (uint64_t i = 0; i < s->nr; i++)
		if (s->comps[i].fileno == file && s->comps[i].offset == offset)
			return false;
	return true;
}

void iogap_vstate_free(struct iogap_vstate *s)
{
	free(s->comps);
	*s = (struct iogap_vstate){ 0 };
}
