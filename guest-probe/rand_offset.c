/* SPDX-License-Identifier: MIT */
#include <inttypes.h>

#include "iogap/trace.h"
#include "rand_offset.h"
#include "util.h"

/* fio's last_block: the region in blockalign units, less the tail a
 * minimum-size block would overrun when blockalign is smaller. */
static uint64_t last_block(const struct iogap_job *j, const struct iogap_wfile *f, uint8_t ddir)
{
	uint64_t max_size = f->region_len < f->target_size ? f->region_len : f->target_size;

	if (j->bs_min[ddir] > j->ba[ddir])
		max_size -= j->bs_min[ddir] - j->ba[ddir];
	return iogap_div_bs(max_size, j->ba[ddir]);
}

/* fio's __td_zone_gen_index */
static void zone_index(struct iogap_randoff *g, const struct iogap_job *j)
{
	for (int d = 0; d < IOGAP_DDIR_NR; d++) {
		unsigned aprev = 0, sprev = 0;
		uint64_t sprev_sz = 0;

		for (unsigned i = 0; i < j->zonesplit_nr[d]; i++) {
			const struct iogap_zonesplit *z = &j->zonesplit[d][i];

			for (unsigned v = aprev; v < aprev + z->access_perc && v < 100; v++)
				g->pick[d][v] = (struct iogap_zone_pick){
					.perc_prev = (uint8_t)sprev, .perc = (uint8_t)(sprev + z->size_perc),
					.size_prev = sprev_sz, .size = sprev_sz + z->size,
				};
			aprev += z->access_perc;
			sprev += z->size_perc;
			sprev_sz += z->size;
		}
	}
}

/* fio's check_rand_gen_limits: 32-bit Tausworthe cannot reach more than
 * 2^32 blocks; unless chosen explicitly it becomes tausworthe64 */
static bool use64(const struct iogap_job *j, const struct iogap_fileset *fs)
{
	if (j->random_generator == IOGAP_RGEN_TAUSWORTHE64)
		return true;
	if (j->random_generator != IOGAP_RGEN_TAUSWORTHE || j->random_generator_set)
		return false;
	for (unsigned k = 0; k < fs->nr; k++)
		if (fs->f[k].nblocks > UINT32_MAX)
			return true;
	return false;
}

/* fio's __init_rand_distribution for normal: ranges of the smaller of
 * the read and write minimum block sizes over the file's region */
static void gauss_init(struct iogap_wfile *f, const struct iogap_job *j, unsigned thread_number,
		       uint64_t random_seed)
{
	uint64_t range = j->bs_min[IOGAP_OP_READ] < j->bs_min[IOGAP_OP_WRITE] ?
			 j->bs_min[IOGAP_OP_READ] : j->bs_min[IOGAP_OP_WRITE];
	uint64_t size = f->region_len < f->target_size ? f->region_len : f->target_size;

	iogap_gauss_init(&f->gauss, (size + range - 1) / range, j->random_dist_param, -1,
			 iogap_fio_dist_seed(j, thread_number, f->path, random_seed), false);
}

void iogap_randoff_reseed(struct iogap_randoff *g, const struct iogap_job *j, unsigned thread_number,
			  uint64_t random_seed, const struct iogap_fileset *fs)
{
	iogap_frand_seed(&g->rnd, iogap_fio_seed(j, thread_number, IOGAP_FIO_SEED_BLOCK, random_seed),
			 use64(j, fs));
	iogap_frand_seed(&g->zone, iogap_fio_seed(j, thread_number, IOGAP_FIO_SEED_ZONE,
						  random_seed ^ 0x5a5a), false);
}

int iogap_randoff_init(struct iogap_randoff *g, const struct iogap_job *j, unsigned thread_number,
		       uint64_t random_seed, struct iogap_fileset *fs, char *why, size_t whylen)
{
	uint64_t seed = iogap_fio_seed(j, thread_number, IOGAP_FIO_SEED_BLOCK, random_seed);

	iogap_randoff_reseed(g, j, thread_number, random_seed, fs);
	zone_index(g, j);
	for (unsigned k = 0; k < fs->nr; k++) {
		struct iogap_wfile *f = &fs->f[k];

		if (j->random_distribution == IOGAP_RAND_GAUSS)
			gauss_init(f, j, thread_number, random_seed);
		if (j->random_generator == IOGAP_RGEN_LFSR && iogap_lfsr_init(&f->lfsr, f->nblocks, seed))
			return iogap_seterr(why, whylen, "%s: random_generator=lfsr cannot cover its "
					    "%" PRIu64 " blocks with this seed", f->path, f->nblocks);
		for (int d = 0; d < IOGAP_DDIR_NR && j->random_distribution == IOGAP_RAND_ZONED_ABS; d++)
			if (j->rw & (1u << d) && j->zonesplit_nr[d] &&
			    g->pick[d][99].size / j->ba[d] > last_block(j, f, d))
				return iogap_seterr(why, whylen, "%s: zoned_abs sizes exceed the %" PRIu64
						    " bytes to work on", f->path, f->region_len);
	}
	return 0;
}

/* fio's __get_next_rand_offset: a draw in [0, lastb) */
static int draw(struct iogap_randoff *g, const struct iogap_job *j, struct iogap_wfile *f,
		uint64_t lastb, uint64_t *block)
{
	if (j->random_generator != IOGAP_RGEN_LFSR) {
		*block = iogap_frand_block(&g->rnd, lastb);
		return 0;
	}
	if (!iogap_lfsr_next(&f->lfsr, block))
		return 0;
	if (!j->time_based)
		return -1;
	iogap_lfsr_restart(&f->lfsr);   /* fio: the file starts over */
	return iogap_lfsr_next(&f->lfsr, block);
}

int iogap_randoff_next(struct iogap_randoff *g, const struct iogap_job *j, struct iogap_wfile *f,
		       uint8_t ddir, uint64_t *block)
{
	uint64_t lastb = last_block(j, f, ddir), start = 0;

	if (!lastb)
		return -1;
	if (j->random_distribution == IOGAP_RAND_GAUSS) {   /* fio ignores generator and map */
		*block = iogap_gauss_next(&f->gauss);
		return 0;
	}
	if (j->random_distribution != IOGAP_RAND_UNIFORM && j->zonesplit_nr[ddir]) {
		const struct iogap_zone_pick *z =
			&g->pick[ddir][iogap_frand_between(&g->zone, 1, 100) - 1];

		if (j->random_distribution == IOGAP_RAND_ZONED) {
			start = z->perc_prev * lastb / 100;
			lastb = lastb * (uint64_t)(z->perc - z->perc_prev) / 100;
		} else {
			start = z->size_prev / j->ba[ddir];
			lastb = z->size / j->ba[ddir] - start;
		}
	}
	if (draw(g, j, f, lastb, block))
		return -1;
	*block += start;
	return 0;
}
