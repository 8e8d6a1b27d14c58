/* SPDX-License-Identifier: MIT */
/*
 * fio's own random numbers (lib/rand.c): the Tausworthe generators, its
 * per-job seeds (init.c) and its block draw (io_u.c), so that a job picks
 * the same random offsets as fio does for the same job file.
 */
#ifndef IOGAP_FRAND_H
#define IOGAP_FRAND_H

#include <stdbool.h>
#include <stdint.h>

struct iogap_job;

/* fio's frand_state: taus88 (32-bit) or taus258 (tausworthe64) */
struct iogap_frand {
	bool use64;
	uint32_t s32[3];
	uint64_t s64[5];
};

void iogap_frand_seed(struct iogap_frand *r, uint64_t seed, bool use64);
uint64_t iogap_frand_next(struct iogap_frand *r);

/* fio's block draw: lastb * (r / (rand_max + 1.0)), in [0, lastb) */
uint64_t iogap_frand_block(struct iogap_frand *r, uint64_t lastb);

/* fio's rand_between: in [start, end], both inclusive */
uint64_t iogap_frand_between(struct iogap_frand *r, uint64_t start, uint64_t end);

/* fio's rand_seeds[] indexes (fio.h) the probe draws from */
enum iogap_fio_seed {
	IOGAP_FIO_SEED_BS = 0,         /* FIO_RAND_BS_OFF: read sizes (+1 write, +2 trim) */
	IOGAP_FIO_SEED_MIX = 4,        /* FIO_RAND_MIX_OFF: rwmix's direction */
	IOGAP_FIO_SEED_FILE = 5,       /* FIO_RAND_FILE_OFF: file_service_type=random */
	IOGAP_FIO_SEED_BLOCK = 6,      /* FIO_RAND_BLOCK_OFF: random offsets */
	IOGAP_FIO_SEED_FILE_SIZE = 7,  /* FIO_RAND_FILE_SIZE_OFF: filesize ranges */
	IOGAP_FIO_SEED_SEQ_RAND = 10,  /* FIO_RAND_SEQ_RAND_READ_OFF: percentage_random */
	IOGAP_FIO_SEED_ZONE = 16,      /* FIO_RAND_ZONE_OFF: zoned's zone choice */
};

/* The seed fio gives job thread_number (1-based over the run, clones
 * counted) for rand_seeds[idx] (init.c setup_random_seeds and
 * td_fill_rand_seeds): from randseed, or FIO_RANDSEED under randrepeat for
 * the offsets and under allrandrepeat for all; random_seed stands in for fio's /dev/urandom seeds when
 * randrepeat=0 without randseed. */
uint64_t iogap_fio_seed(const struct iogap_job *j, unsigned thread_number, enum iogap_fio_seed idx,
			uint64_t random_seed);

/* The seed fio gives a file's nonuniform offsets (filesetup.c
 * __init_rand_distribution): fio's jhash of its name times thread_number,
 * or without randrepeat the offsets' seed; fio keeps 32 bits. */
uint32_t iogap_fio_dist_seed(const struct iogap_job *j, unsigned thread_number, const char *name,
			     uint64_t random_seed);

#endif
