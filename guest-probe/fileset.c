/* SPDX-License-Identifier: MIT */
/*
 * A worker's files and fio's choice among them (io_u.c __get_next_file):
 * roundrobin (its default) and sequential take the files in order,
 * random draws uniformly, zipf/pareto draw skewed with file 0 the
 * hottest, normal (fio's gauss.c) around the middle file; each keeps a file for file_service_nr I/Os (sequential until
 * the file is done).  At most openfiles files are in the open set: a
 * file joins it when another is done.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "iogap/trace.h"
#include "fileset.h"

#define FSERVICE_SHIFT 10   /* fio's: skewed draws over nr << 10 ranges */

/* A file of a set without room for a block is done from the start (fio
 * finds no offset in it). */
static void skip_empty(struct iogap_fileset *s)
{
	for (unsigned i = 0; i < s->nr && s->nr > 1; i++) {
		if (s->f[i].region_len < s->min_bs) {
			s->f[i].done = true;
			s->nr_done++;
		}
	}
}

int iogap_fileset_init(struct iogap_fileset *s, const struct iogap_job *j, uint64_t seed)
{
	uint64_t ranges = (uint64_t)s->nr << FSERVICE_SHIFT;

	s->open_max = j->openfiles && j->openfiles < s->nr ? j->openfiles : s->nr;
	if (!(s->closed = calloc(s->nr, sizeof(*s->closed))))
		return -ENOMEM;
	skip_empty(s);
	s->service = j->file_service;
	s->service_nr = j->file_service_nr ? j->file_service_nr : 1;
	iogap_rand_seed(&s->rnd, seed ^ 0x6666);
	if (s->service == IOGAP_FSERVICE_ZIPF || s->service == IOGAP_FSERVICE_PARETO) {
		if (iogap_skew_init(&s->skew, s->service == IOGAP_FSERVICE_ZIPF ? IOGAP_RAND_ZIPF :
				    IOGAP_RAND_PARETO, j->file_service_param, ranges, seed))
			return -ENOMEM;
		s->skew.no_hash = true;   /* fio: file 0 is the hottest */
	}
	if (s->service == IOGAP_FSERVICE_GAUSS)   /* unhashed: file 0 is rank 0, as fio */
		iogap_gauss_init(&s->gauss, ranges, j->file_service_param, j->file_service_center,
				 (uint32_t)seed, true);
	else if (j->file_service_center >= 0.0)
		s->rand_off = (uint64_t)((double)ranges * j->file_service_center) % ranges;
	else
		s->rand_off = iogap_rand_below(&s->rnd, ranges);
	return 0;
}

void iogap_fileset_reseed(struct iogap_fileset *s, const struct iogap_job *j,
			  unsigned thread_number, uint64_t random_seed)
{
	iogap_frand_seed(&s->next_file, iogap_fio_seed(j, thread_number, IOGAP_FIO_SEED_FILE,
						       random_seed),
			 j->random_generator == IOGAP_RGEN_TAUSWORTHE64);
}

void iogap_fileset_free(struct iogap_fileset *s)
{
	free(s->closed);
	s->closed = NULL;
	for (unsigned i = 0; s->f && i < s->nr; i++)
		iogap_blockmap_free(&s->f[i].map);
	free(s->f);
	s->f = NULL;
}

static bool nonuniform(const struct iogap_fileset *s)
{
	return s->service >= IOGAP_FSERVICE_ZIPF;
}

static unsigned draw(struct iogap_fileset *s)
{
	uint64_t ranges = (uint64_t)s->nr << FSERVICE_SHIFT;
	uint64_t v;

	if (s->service == IOGAP_FSERVICE_RANDOM)   /* fio's __get_next_fileno_rand */
		return (unsigned)iogap_frand_block(&s->next_file, s->nr);
	if (s->service == IOGAP_FSERVICE_GAUSS)
		return (unsigned)(iogap_gauss_next(&s->gauss) >> FSERVICE_SHIFT);
	v = iogap_skew_next(&s->skew, &s->rnd);
	return (unsigned)(((v + s->rand_off) % ranges) >> FSERVICE_SHIFT);
}

/* fio finds a file done only when its turn comes and it has no offset
 * left: it closes it then, and only then is its place in the open set free */
static void close_done(struct iogap_fileset *s, struct iogap_wfile *f)
{
	if (f->closed)
		return;
	f->closed = true;
	s->closed[s->nr_closed++] = (unsigned)(f - s->f);
	if (f->active) {
		f->active = false;
		s->nr_active--;
	}
}

/* May f serve the next request?  A file outside the open set joins it
 * while there is room (fio opens it; with the set full it answers EBUSY
 * and the caller tries another).  A sync may go to a file that is done but
 * still open: fio's fill_io_u needs no offset for it. */
static bool usable(struct iogap_fileset *s, struct iogap_wfile *f, bool sync)
{
	if (f->done) {
		if (sync && f->active)
			return true;
		close_done(s, f);
		return false;
	}
	if (f->active)
		return true;
	if (s->nr_active >= s->open_max)
		return false;
	f->active = true;
	s->nr_active++;
	return true;
}

static struct iogap_wfile *choose(struct iogap_fileset *s, bool sync)
{
	struct iogap_wfile *f = s->cur;
	bool stays = f && (s->service == IOGAP_FSERVICE_SEQUENTIAL || s->left);

	if (s->nr == 1)   /* a single file is never done: its offsets wrap */
		return s->f;
	if (s->nr_done >= s->nr)
		return NULL;
	if (stays && f->done && !sync)
		close_done(s, f);   /* the service stays with it: fio comes to it again */
	if (stays && f->active) {
		if (s->service != IOGAP_FSERVICE_SEQUENTIAL)
			s->left--;
		return f;
	}
	do {
		if (s->service == IOGAP_FSERVICE_ROUNDROBIN ||
		    s->service == IOGAP_FSERVICE_SEQUENTIAL) {
			f = &s->f[s->next];
			s->next = (s->next + 1) % s->nr;
		} else {
			f = &s->f[draw(s) % s->nr];
		}
	} while (!usable(s, f, sync));
	s->cur = f;
	s->left = s->service_nr - 1;
	return f;
}

struct iogap_wfile *iogap_fileset_choose(struct iogap_fileset *s)
{
	return choose(s, false);
}

struct iogap_wfile *iogap_fileset_next_sync(struct iogap_fileset *s)
{
	return choose(s, true);
}

void iogap_wfile_restart(struct iogap_wfile *f)
{
	for (int d = 0; d < IOGAP_DDIR_NR; d++)
		f->seq_pos[d] = f->region_start;
	f->issued = 0;
	if (f->map.bits) {
		memset(f->map.bits, 0, (f->map.nblocks + 63) / 64 * sizeof(uint64_t));
		f->map.used = 0;
	}
	if (iogap_lfsr_active(&f->lfsr))
		iogap_lfsr_restart(&f->lfsr);
}

/* f has nothing left: done (closed now if it is the file chosen, else when
 * its turn comes), or started over by a nonuniform service */
static bool end_file(struct iogap_fileset *s, struct iogap_wfile *f, bool chosen)
{
	if (nonuniform(s)) {   /* fio_file_reset: drawn again, from its start */
		iogap_wfile_restart(f);
		return true;
	}
	if (!f->done) {
		f->done = true;
		s->nr_done++;
	}
	if (chosen)
		close_done(s, f);
	return s->nr_done < s->nr;
}

bool iogap_fileset_finish(struct iogap_fileset *s, struct iogap_wfile *f)
{
	return end_file(s, f, true);
}

void iogap_fileset_issued(struct iogap_fileset *s, struct iogap_wfile *f, uint64_t len)
{
	if (s->nr < 2)
		return;
	f->issued += len;
	if (f->issued + s->min_bs > f->region_len)
		end_file(s, f, false);
}

void iogap_fileset_restart(struct iogap_fileset *s)
{
	for (unsigned i = 0; i < s->nr; i++) {
		iogap_wfile_restart(&s->f[i]);
		s->f[i].done = false;
		s->f[i].active = false;
		s->f[i].closed = false;
	}
	s->nr_active = s->nr_done = s->nr_closed = 0;
	skip_empty(s);
	s->cur = NULL;
	s->left = 0;
	s->next = 0;
}

/* fio's get_rand_file_size: low + (high - low) × u, rounded down to the
 * smallest block of any direction (fio's rw_min_bs) */
static uint64_t rand_file_size(const struct iogap_job *j, struct iogap_frand *rnd)
{
	uint64_t low = j->filesize_low, high = j->filesize_high, fs, rw_min_bs = UINT64_MAX;
	double max_plus_one = rnd->use64 ? 0x1.0p64 : 0x1.0p32;

	for (int d = 0; d < IOGAP_DDIR_NR; d++)
		if (j->bs_min[d] < rw_min_bs)
			rw_min_bs = j->bs_min[d];
	fs = low + (uint64_t)((double)(high - low) * ((double)iogap_frand_next(rnd) / max_plus_one));
	return fs - fs % rw_min_bs;
}

uint64_t iogap_file_io_size(const struct iogap_job *j, unsigned k, uint64_t real_size,
			    uint64_t offset, uint32_t min_bs, struct iogap_frand *rnd)
{
	uint64_t low = j->filesize_low, high = j->filesize_high, fs, extra;

	if (!low) {
		fs = j->size / j->nrfiles;
		extra = (j->size - fs * j->nrfiles) / min_bs;
		fs += k < extra ? min_bs : 0;
		if (fs)
			return fs;
		return real_size > offset ? real_size - offset : 0;
	}
	if (real_size >= low && real_size <= high)
		return real_size > offset ? real_size - offset : 0;
	fs = high != low ? rand_file_size(j, rnd) : low;
	return fs > offset ? fs - offset : 0;
}
