/* SPDX-License-Identifier: MIT */
/*
 * The content of written buffers as fio's fill_io_buffer (dedupe.c):
 * buffer_compress_percentage/_chunk (a share of each chunk zeros or
 * buffer_pattern), dedupe_percentage with dedupe_mode repeat or
 * working_set (dedupe_working_set_percentage, dedupe_global).
 */
#ifndef IOGAP_DEDUPE_H
#define IOGAP_DEDUPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "job.h"
#include "rand.h"

/* 1 when key is not one of the options above, 0 when set, -1 with what
 * is wrong with val in why. */
int iogap_job_buf_option(struct iogap_job *j, const char *key, const char *val, char *why,
			 size_t whylen);
/* fio's checks of the working set mode: 0, or -1 with err. */
int iogap_job_buf_finalize(struct iogap_job *j, char *err, size_t errlen);
/* Whether writes of j get their content from a generator (else fio's
 * plain random buffers). */
bool iogap_bufgen_wanted(const struct iogap_job *j);

/* One worker's generator: fio's buf_state, buf_state_prev, dedupe_state
 * and working set of seeds. */
struct iogap_bufgen {
	const struct iogap_job *job;
	uint32_t min_write;
	struct iogap_rand state, prev, pick, ws_pick;
	struct iogap_rand *ws;     /* working_set: the seeds of unique pages */
	uint64_t ws_nr;
};

/* seeds: the first buffer seed of every worker of the run (dedupe_global
 * shares pages between them, as fio's init_global_dedupe_working_set_seeds),
 * self: this worker's.  0, or -1 with err (out of memory). */
int iogap_bufgen_init(struct iogap_bufgen *g, const struct iogap_job *j, const uint64_t *seeds,
		      size_t nseeds, size_t self, char *err, size_t errlen);
/* Fill one write's buffer of len bytes. */
void iogap_bufgen_fill(struct iogap_bufgen *g, void *buf, uint32_t len);
void iogap_bufgen_free(struct iogap_bufgen *g);

#endif
