/* SPDX-License-Identifier: MIT */
/*
 * A worker's files (fio's td->files): each with its own region, positions
 * and random map, and fio's choice of the file each I/O goes to
 * (file_service_type, openfiles); and the files' sizes (fio's
 * setup_files).
 */
#ifndef IOGAP_FILESET_H
#define IOGAP_FILESET_H

#include <stdbool.h>
#include <stdint.h>

#include "frand.h"
#include "gauss.h"
#include "job.h"
#include "lfsr.h"
#include "rand.h"

struct iogap_wfile {              /* fio's fio_file */
	const char *path;
	int fd;
	uint64_t region_start;    /* fio's file_offset */
	uint64_t region_len;      /* fio's io_size */
	uint64_t target_size;     /* the whole file or device */
	uint64_t nblocks;
	uint64_t seq_pos[IOGAP_DDIR_NR];
	uint64_t last_offset;
	uint64_t issued;          /* bytes issued in this pass over the file */
	struct iogap_blockmap map;
	struct iogap_lfsr lfsr;   /* random_generator=lfsr (rand_offset.c) */
	struct iogap_skew skew;
	struct iogap_gauss gauss; /* random_distribution=normal (rand_offset.c) */
	bool active;              /* in the open set (openfiles) */
	bool done;
	bool closed;              /* done, and its turn came since (fio closes it then) */
	bool kept;                /* unlink_each_loop may not remove it (safety.c) */
};

struct iogap_fileset {
	struct iogap_wfile *f;
	unsigned nr;
	unsigned open_max, nr_active, nr_done, nr_closed;
	unsigned *closed;         /* the files closed this pass, in that order */
	unsigned service, service_nr, left, next;
	uint32_t min_bs;          /* a file with less than this left is done */
	struct iogap_wfile *cur;
	struct iogap_rand rnd;
	struct iogap_frand next_file;   /* random: fio's next_file_state */
	struct iogap_skew skew;   /* zipf, pareto over nr << 10 ranges */
	struct iogap_gauss gauss; /* normal */
	uint64_t rand_off;        /* zipf, pareto: where rank 0 lies, the
				   * center or drawn, as fio */
};

/* Offsets in trace records of a job with several files per clone carry
 * the file's index (0..nrfiles-1) above this bit (include/iogap/trace.h). */
#define IOGAP_FILESET_TRACE_OFFSET(k, off) (((uint64_t)(k) << IOGAP_TRACE_FILE_SHIFT) | (off))

/* f: nr entries with their regions, and min_bs, set by the caller.
 * 0 or -ENOMEM. */
int iogap_fileset_init(struct iogap_fileset *s, const struct iogap_job *j, uint64_t seed);
/* file_service_type=random draws from fio's generator and seed (its
 * FIO_RAND_FILE_OFF of thread_number; random_seed as iogap_fio_seed's):
 * at the start, and again for every pass under randrepeat, as fio. */
void iogap_fileset_reseed(struct iogap_fileset *s, const struct iogap_job *j,
			  unsigned thread_number, uint64_t random_seed);
void iogap_fileset_free(struct iogap_fileset *s);
/* The choice among several files (fileset.c). */
struct iogap_wfile *iogap_fileset_choose(struct iogap_fileset *s);
/* fio's get_next_file: the file the next I/O goes to; NULL once every
 * file is done.  Inline: a single file (most jobs) is no choice. */
static inline struct iogap_wfile *iogap_fileset_next(struct iogap_fileset *s)
{
	return s->nr == 1 ? s->f : iogap_fileset_choose(s);
}
/* The file a sync goes to: the same turn, but a file that is done and not
 * yet closed may take it (fio needs no offset for a sync). */
struct iogap_wfile *iogap_fileset_next_sync(struct iogap_fileset *s);
/* len bytes were issued to f: a file without a block left is done, and
 * closed when its turn next comes, as fio finds out only then (fio's
 * nonuniform services start it over instead).  Single files never finish
 * this way: their offsets wrap as before. */
void iogap_fileset_issued(struct iogap_fileset *s, struct iogap_wfile *f, uint64_t len);
/* f, the file chosen, has no next offset (fio: fill_io_u failed): done
 * and closed, or started over by a nonuniform service.  False when no file
 * is left. */
bool iogap_fileset_finish(struct iogap_fileset *s, struct iogap_wfile *f);
/* A new pass over every file (loops, time_based, io_size beyond size). */
void iogap_fileset_restart(struct iogap_fileset *s);
void iogap_wfile_restart(struct iogap_wfile *f);

/* fio's setup_files: each file's io size, given its existing size (0 if
 * none): size split evenly (the first files one min_bs more while the
 * remainder lasts), or filesize (a random size in its range, drawn from
 * rnd as fio's get_rand_file_size), or the existing size past the offset. */
uint64_t iogap_file_io_size(const struct iogap_job *j, unsigned k, uint64_t real_size,
			    uint64_t offset, uint32_t min_bs, struct iogap_frand *rnd);

#endif
