/* SPDX-License-Identifier: MIT */
/*
 * fio's random offsets (io_u.c get_next_rand_offset) for
 * random_distribution=random, zoned, zoned_abs and normal: its generators
 * and seeds (frand.c, lfsr.c, gauss.c), its block draw and its zone tables, so a job
 * reads the blocks fio reads, in fio's order.  The random map's fallback
 * to the next free block stays with the caller (rand.c's blockmap).
 */
#ifndef IOGAP_RAND_OFFSET_H
#define IOGAP_RAND_OFFSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fileset.h"
#include "frand.h"
#include "job.h"

/* fio's zone_split_index: the zone a draw of 1..100 lands in */
struct iogap_zone_pick {
	uint8_t perc_prev, perc;  /* zoned: the zone's span in % of the region */
	uint64_t size_prev, size; /* zoned_abs: in bytes */
};

struct iogap_randoff {
	struct iogap_frand rnd;   /* fio's random_state */
	struct iogap_frand zone;  /* fio's zone_state */
	struct iogap_zone_pick pick[IOGAP_DDIR_NR][100];
};

/* For worker thread_number (1-based, clones counted, as fio's) of job j
 * on files fs (regions set): generators seeded as fio seeds them, each
 * file's LFSR for random_generator=lfsr.  random_seed stands in for fio's
 * /dev/urandom seeds (randrepeat=0 without randseed).  0, or -1 with why. */
int iogap_randoff_init(struct iogap_randoff *g, const struct iogap_job *j, unsigned thread_number,
		       uint64_t random_seed, struct iogap_fileset *fs, char *why, size_t whylen);

/* The generators alone seeded again, as at init (fio's clear_io_state
 * under randrepeat: a new pass repeats the offsets). */
void iogap_randoff_reseed(struct iogap_randoff *g, const struct iogap_job *j, unsigned thread_number,
			  uint64_t random_seed, const struct iogap_fileset *fs);

/* The next random block of f for ddir, in blockalign units from the
 * region's start (normal: in ranges of the smallest block, as fio): 0, or -1 when the file has none left (fio's LFSR
 * gave every block). */
int iogap_randoff_next(struct iogap_randoff *g, const struct iogap_job *j, struct iogap_wfile *f,
		       uint8_t ddir, uint64_t *block);

#endif
