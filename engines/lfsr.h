/* SPDX-License-Identifier: MIT */
/*
 * fio's random_generator=lfsr (lib/lfsr.c): a maximal-length linear
 * feedback shift register over the smallest width holding the file's
 * blocks; it visits every block exactly once, with no random map.
 */
#ifndef IOGAP_LFSR_H
#define IOGAP_LFSR_H

#include <stdbool.h>
#include <stdint.h>

struct iogap_lfsr {
	uint64_t xormask;
	uint64_t last_val;
	uint64_t cached_bit;      /* the register's top bit */
	uint64_t max_val;         /* blocks - 1 */
	uint64_t seed;
	uint64_t num_vals;        /* values given since the seed */
	bool stepped;             /* a value was given since init */
};

/* For blocks values (1 .. 2^63): 0, or -1 (too many blocks, or a seed
 * giving the register's forbidden all-ones state). */
int iogap_lfsr_init(struct iogap_lfsr *l, uint64_t blocks, uint64_t seed);
/* Start over from the seed (fio's lfsr_reset in fio_file_reset). */
void iogap_lfsr_restart(struct iogap_lfsr *l);
/* Set up by iogap_lfsr_init (a register always has taps). */
static inline bool iogap_lfsr_active(const struct iogap_lfsr *l)
{
	return l->xormask != 0;
}
/* The next block in [0, blocks): 0, or -1 once every block was given. */
int iogap_lfsr_next(struct iogap_lfsr *l, uint64_t *block);

#endif
