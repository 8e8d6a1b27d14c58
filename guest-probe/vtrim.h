/* SPDX-License-Identifier: MIT */
/*
 * fio's verify-trim (its trim.c, io_u.c check_get_trim, verify.c
 * verify_trimmed_io_u): trim_percentage of the written blocks logged for
 * verify go on a trim list; with trim_backlog=N, once the log holds a
 * multiple of N blocks, trim_backlog_batch of them (default N) are
 * trimmed.  With trim_verify_zero (default 1) the read-back then expects
 * zeros in them, else they are not read back.
 */
#ifndef IOGAP_VTRIM_H
#define IOGAP_VTRIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "job.h"
#include "rand.h"
#include "verify.h"

struct iogap_vtrim {
	size_t *q;                /* the trim list: indexes into the verify log */
	size_t nr, cap, head;
	size_t mark;              /* the log's size at the last batch */
	uint64_t left;            /* trims left in this batch */
	struct iogap_rand rnd;
};

/* A write was just logged in log: put it on the trim list at
 * trim_percentage.  0, or -ENOMEM. */
int iogap_vtrim_logged(struct iogap_vtrim *t, const struct iogap_job *j,
		       const struct iogap_verify_log *log);
/* Does a trim batch start (or go on) now? */
bool iogap_vtrim_due(struct iogap_vtrim *t, const struct iogap_job *j,
		     const struct iogap_verify_log *log);
/* The next block to trim, marked trimmed (trim_verify_zero) or dropped
 * from the read-back; NULL when the list is empty (the batch ends). */
const struct iogap_verify_piece *iogap_vtrim_next(struct iogap_vtrim *t, const struct iogap_job *j,
						  struct iogap_verify_log *log);
/* A trimmed block read back: 0 when all zeros, else -EILSEQ with fio's
 * message in msg. */
int iogap_vtrim_check(const char *file, uint64_t offset, const void *buf, uint32_t len,
		      char *msg, size_t msglen);
void iogap_vtrim_free(struct iogap_vtrim *t);

#endif
