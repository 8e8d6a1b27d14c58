/* SPDX-License-Identifier: MIT */
/*
 * fio's verify state (its verify-state.h, verify.c): a job that writes
 * with verify= and verify_state_save=1 (the default) leaves
 * "local-NAME-N-verify.state" (N: its thread number - 1) when it ends:
 * the writes it issued, the offsets of its last iodepth completed writes
 * per file, its random state.  A job with verify_state_load=1 reads the
 * same name and stops verifying where a read is past what had completed.
 * The file is fio's byte for byte (version 3, crc32c as fio's), so the
 * two load each other's.
 */
#ifndef IOGAP_VERIFY_STATE_H
#define IOGAP_VERIFY_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "frand.h"

/* The writing side: fio's last_write_comp ring per file. */
struct iogap_vstate_rec {
	uint64_t *ring;           /* nfiles rings of depth offsets */
	unsigned *next;           /* each ring's next slot */
	unsigned depth, nfiles;
	uint64_t completed;       /* fio's io_blocks[DDIR_WRITE] */
};
int iogap_vstate_rec_init(struct iogap_vstate_rec *rec, unsigned nfiles, unsigned depth);
void iogap_vstate_rec_write(struct iogap_vstate_rec *rec, unsigned file, uint64_t offset);
/* Write the state file (local-NAME-INDEX-verify.state in dir, fio's
 * --aux-path, or the current directory when NULL); numberio: the writes
 * issued.  0, or -1 with fio's message in err. */
int iogap_vstate_save(const struct iogap_vstate_rec *rec, const char *dir, const char *name,
		      unsigned index, uint64_t numberio, const struct iogap_frand *rnd, char *err, size_t errlen);
void iogap_vstate_rec_free(struct iogap_vstate_rec *rec);

/* The reading side. */
struct iogap_vstate_comp {
	uint64_t fileno, offset;
};
struct iogap_vstate {
	uint64_t numberio, nr;
	uint32_t depth;
	struct iogap_vstate_comp *comps;
};
int iogap_vstate_load(struct iogap_vstate *s, const char *dir, const char *name, unsigned index,
		      char *err, size_t errlen);
/* fio's verify_state_should_stop: reads_done is the job's completed reads */
bool iogap_vstate_should_stop(const struct iogap_vstate *s, unsigned file, uint64_t offset,
			      uint64_t reads_done);
void iogap_vstate_free(struct iogap_vstate *s);

#endif
