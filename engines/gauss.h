/* SPDX-License-Identifier: MIT */
/*
 * fio's normal distribution (lib/gauss.c): the mean of 12 draws of its
 * 32-bit Tausworthe generator, moved by up to the deviation, hashed over
 * the range unless told not to, so random_distribution=normal gives fio's
 * offsets and file_service_type=normal fio's choice of files.
 */
#ifndef IOGAP_GAUSS_H
#define IOGAP_GAUSS_H

#include <stdbool.h>
#include <stdint.h>

#include "frand.h"

struct iogap_gauss {              /* fio's gauss_state */
	struct iogap_frand r;
	uint64_t nranges;
	unsigned stddev;
	unsigned rand_off;
	bool disable_hash;        /* file_service_type: rank 0 is file 0 */
};

/* nranges > 0; dev in percent of the range (0: none); center in 0..1, or
 * -1 for none; seed as fio truncates it (unsigned int). */
void iogap_gauss_init(struct iogap_gauss *g, uint64_t nranges, double dev, double center,
		      uint32_t seed, bool disable_hash);
/* A draw in [0, nranges). */
uint64_t iogap_gauss_next(struct iogap_gauss *g);

#endif
