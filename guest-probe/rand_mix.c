/* SPDX-License-Identifier: MIT */
#include "rand_mix.h"

/* A job whose only bssplit draws cannot fit would loop for ever in fio;
 * the probe takes the smallest size after this many. */
#define MAX_BS_DRAWS 100000

static void seed_all(struct iogap_randmix *m, const struct iogap_job *j, unsigned thread_number,
		     uint64_t random_seed)
{
	bool use64 = j->random_generator == IOGAP_RGEN_TAUSWORTHE64;
	uint64_t seed[IOGAP_DDIR_NR];

	for (int d = 0; d < IOGAP_DDIR_NR; d++)
		seed[d] = iogap_fio_seed(j, thread_number, IOGAP_FIO_SEED_BS + d, random_seed ^ (0xb5 + d));
	/* fio's td_fill_rand_seeds_internal: verify reads back with the
	 * writes' sizes, trimwrite writes with the trims' */
	if (j->verify != IOGAP_VERIFY_NONE)
		seed[IOGAP_OP_WRITE] = seed[IOGAP_OP_READ];
	if ((j->rw & (IOGAP_RW_WRITE | IOGAP_RW_TRIM)) == (IOGAP_RW_WRITE | IOGAP_RW_TRIM))
		seed[IOGAP_OP_TRIM] = seed[IOGAP_OP_WRITE];
	for (int d = 0; d < IOGAP_DDIR_NR; d++)
		iogap_frand_seed(&m->bs[d], seed[d], use64);
	iogap_frand_seed(&m->mix, iogap_fio_seed(j, thread_number, IOGAP_FIO_SEED_MIX,
						 random_seed ^ 0x313), false);
	for (int d = 0; d < IOGAP_DDIR_NR; d++)   /* fio: every direction from the read seed */
		iogap_frand_seed(&m->seqrand[d], iogap_fio_seed(j, thread_number,
				 IOGAP_FIO_SEED_SEQ_RAND, random_seed ^ 0x3333), false);
}

void iogap_randmix_init(struct iogap_randmix *m, const struct iogap_job *j, unsigned thread_number,
			uint64_t random_seed)
{
	seed_all(m, j, thread_number, random_seed);
	m->ddir = IOGAP_OP_READ;
	m->switch_at = 0;
}

void iogap_randmix_new_pass(struct iogap_randmix *m, const struct iogap_job *j,
			    unsigned thread_number, uint64_t random_seed)
{
	if (j->randrepeat)
		seed_all(m, j, thread_number, random_seed);
	m->switch_at = 0;
}

uint8_t iogap_randmix_ddir(struct iogap_randmix *m, const struct iogap_job *j,
			   const uint64_t issued[IOGAP_DDIR_NR])
{
	uint8_t ddir;

	if (issued[m->ddir] < m->switch_at)
		return m->ddir;
	ddir = iogap_frand_between(&m->mix, 1, 100) <= j->rwmix[IOGAP_OP_READ] ?
	       IOGAP_OP_READ : IOGAP_OP_WRITE;
	/* fio's set_rwmix_bytes, with the direction it leaves */
	if (ddir != m->ddir)
		m->switch_at = issued[m->ddir] * j->rwmix[ddir] / 100;
	return m->ddir = ddir;
}

bool iogap_randmix_random(struct iogap_randmix *m, const struct iogap_job *j, uint8_t ddir)
{
	return j->percentage_random[ddir] >= 100 ||
	       iogap_frand_between(&m->seqrand[ddir], 1, 100) <= j->percentage_random[ddir];
}

/* fio's bssplit pick: the first entry (by percentage, ascending) whose
 * cumulative share covers r and that fits, else the last one tried */
static uint64_t split_pick(const struct iogap_job *j, uint8_t ddir, uint64_t r, uint64_t rmax,
			   uint64_t room)
{
	uint64_t len = 0, perc = 0;

	for (unsigned i = 0; i < j->bssplit_nr[ddir]; i++) {
		const struct iogap_bssplit *b = &j->bssplit[ddir][i];

		if (!b->perc)
			continue;
		len = b->bs;
		perc += b->perc;
		if (r / perc <= rmax / 100 && len <= room)
			break;
	}
	return len;
}

uint32_t iogap_randmix_bs(struct iogap_randmix *m, const struct iogap_job *j, uint8_t ddir,
			  uint64_t room)
{
	struct iogap_frand *s = &m->bs[ddir];
	uint64_t min = j->bs_min[ddir], max = j->bs_max[ddir], len;
	uint64_t rmax = s->use64 ? UINT64_MAX : UINT32_MAX;
	double rmax_plus_one = s->use64 ? 0x1.0p64 : 0x1.0p32;

	for (unsigned tries = 0; tries < MAX_BS_DRAWS; tries++) {
		uint64_t r = iogap_frand_next(s);

		if (j->bssplit_nr[ddir])
			len = split_pick(j, ddir, r, rmax, room);
		else
			len = min + (uint64_t)((double)max * ((double)r / rmax_plus_one));
		if (!j->bs_unaligned)
			len -= len % min;
		if (len > max)
			len = max;
		if (len <= room)
			return (uint32_t)len;
	}
	return (uint32_t)min;
}
