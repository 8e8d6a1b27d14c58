/* SPDX-License-Identifier: MIT */
/*
 * fio's block-size draws (io_u.c get_next_buflen: bsrange and bssplit)
 * and its read/write mix (get_rw_ddir: rwmixread), from fio's own
 * generators and seeds (init.c: FIO_RAND_BS_OFF.., FIO_RAND_MIX_OFF), so a
 * mixed job issues the sizes and directions fio issues, in fio's order.
 */
#ifndef IOGAP_RAND_MIX_H
#define IOGAP_RAND_MIX_H

#include <stdbool.h>
#include <stdint.h>

#include "iogap/trace.h"
#include "frand.h"
#include "job.h"

struct iogap_randmix {
	struct iogap_frand bs[IOGAP_DDIR_NR];  /* fio's bsrange_state */
	struct iogap_frand mix;                /* fio's rwmix_state */
	struct iogap_frand seqrand[IOGAP_DDIR_NR];  /* fio's seq_rand_state */
	uint8_t ddir;                          /* fio's rwmix_ddir */
	uint64_t switch_at;                    /* fio's rwmix_issues */
};

/* Seeded as fio seeds job thread_number (1-based, clones counted);
 * random_seed stands in for fio's /dev/urandom seeds (randrepeat=0). */
void iogap_randmix_init(struct iogap_randmix *m, const struct iogap_job *j, unsigned thread_number,
			uint64_t random_seed);

/* A new pass over the files (fio's clear_io_state): the direction's count
 * starts over and, under randrepeat, the generators too. */
void iogap_randmix_new_pass(struct iogap_randmix *m, const struct iogap_job *j,
			    unsigned thread_number, uint64_t random_seed);

/* fio's get_rw_ddir for rw=rw|randrw: the direction holds until the I/O
 * counts (issued, per direction) reach fio's rwmix_issues, then a new one
 * is drawn. */
uint8_t iogap_randmix_ddir(struct iogap_randmix *m, const struct iogap_job *j,
			   const uint64_t issued[IOGAP_DDIR_NR]);

/* percentage_random: does this I/O of a random job get a random offset
 * (fio's should_do_random)? */
bool iogap_randmix_random(struct iogap_randmix *m, const struct iogap_job *j, uint8_t ddir);

/* fio's draw loop of get_next_buflen for a job with a bsrange or bssplit:
 * sizes are drawn until one fits the room left in the region (the caller
 * saw that the smallest does).  Out of line: inlined into the probe's
 * next_buflen() it made a fixed-bs request save six registers. */
__attribute__((noinline)) uint32_t iogap_randmix_bs(struct iogap_randmix *m,
						    const struct iogap_job *j, uint8_t ddir,
						    uint64_t room);

#endif
