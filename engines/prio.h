/* SPDX-License-Identifier: MIT */
/*
 * I/O priorities (prio.c), fio's: prio/prioclass set the job's with
 * ioprio_set; libaio's and io_uring's cmdprio options give a share of the
 * requests another priority (fio's engines/cmdprio.c), reported apart.
 */
#ifndef IOGAP_PRIO_H
#define IOGAP_PRIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine.h"
#include "job.h"
#include "rand.h"

struct iogap_job_stat;

#define IOGAP_IOPRIO_CLASS_SHIFT 13

/* fio's ioprio_value: class 0 means best effort */
static inline uint16_t iogap_ioprio_value(unsigned cls, unsigned level)
{
	return (uint16_t)(((cls ? cls : 2u) << IOGAP_IOPRIO_CLASS_SHIFT) | level);
}

/* prio, prioclass, cmdprio_percentage, cmdprio_class, cmdprio,
 * cmdprio_bssplit: 1 when key is not one of them, 0 when set, -1 with
 * what is wrong with val in why. */
int iogap_job_prio_option(struct iogap_job *j, const char *key, const char *val, char *why,
			  size_t whylen);
/* fio's checks once the job is parsed (engine, exclusive options). */
int iogap_job_prio_finalize(struct iogap_job *j, char *err, size_t errlen);
/* The job's own priority (0: none set). */
uint16_t iogap_job_ioprio(const struct iogap_job *j);
/* ioprio_set for the calling thread when the job sets prio/prioclass:
 * 0, or -errno. */
int iogap_prio_apply(const struct iogap_job *j);

/* One worker's cmdprio choices (fio's struct cmdprio). */
struct iogap_prio_state {
	const struct iogap_job *job;
	struct iogap_rand rnd;     /* fio's prio_state */
	bool active[2];            /* a direction with cmdprio */
};

/* Set up the choices and the stat's per-priority entries (index 0: the
 * job's priority).  Nothing when the job has no cmdprio. */
void iogap_prio_setup(struct iogap_prio_state *ps, const struct iogap_job *j, uint64_t seed,
		      struct iogap_job_stat *st);
/* The choice of a request of a direction with cmdprio (prio.c). */
void iogap_prio_draw(struct iogap_prio_state *ps, const struct iogap_job_stat *st,
		     struct iogap_io *io);
/* fio's fio_cmdprio_set_ioprio: io->ioprio and io->prio_index for this
 * request (0 and 0: the job's priority).  Inline: most jobs have no cmdprio. */
static inline void iogap_prio_pick(struct iogap_prio_state *ps, const struct iogap_job_stat *st,
				   struct iogap_io *io)
{
	io->ioprio = 0;
	io->prio_index = 0;
	if (io->ddir < 2 && ps->active[io->ddir])
		iogap_prio_draw(ps, st, io);
}

#endif
