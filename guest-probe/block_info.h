/* SPDX-License-Identifier: MIT */
/*
 * fio's block_error_percentiles (its stat.c block_infos): a state and a
 * trim count for every trim-sized block of the job's file, reported as
 * percentiles of the trim counts over the blocks that were touched
 * ("block lifetime percentiles") and a count per state.  As in fio 3.33
 * only completed trims are recorded, so the states are unwritten and
 * trimmed.
 */
#ifndef IOGAP_BLOCK_INFO_H
#define IOGAP_BLOCK_INFO_H

#include <stdint.h>
#include <stdio.h>

#include "json_writer.h"
#include "stats.h"

/* Start st's blocks for a file region of len bytes in trim_bs blocks:
 * 0, or -1 with fio's message in err (none, or more than
 * IOGAP_BLOCK_INFOS_MAX). */
int iogap_block_infos_init(struct iogap_job_stat *st, uint64_t len, uint32_t trim_bs,
			   char *err, size_t errlen);
/* A completed trim at offset (from the region's start). */
void iogap_block_info_trim(struct iogap_job_stat *st, uint64_t offset, uint32_t trim_bs);
/* fio's show_block_infos (normal output) and its JSON "block" object;
 * nothing when st has no blocks or none was touched. */
void iogap_block_infos_normal(FILE *f, const struct iogap_job_stat *st);
void iogap_block_infos_json(struct jw *w, const struct iogap_job_stat *st);

#endif
