/* SPDX-License-Identifier: MIT */
/*
 * fio's flow control (its flow.c): the jobs sharing a flow_id keep their
 * issued I/O in the ratio of their flow weights.  Every flow has a counter
 * shared by its jobs, each job a counter of its own; a job whose share of
 * the flow's counter is above its share of the flow's weight is held back.
 * Jobs run as threads of one process here, so the counters are atomics.
 */
#ifndef IOGAP_FLOW_H
#define IOGAP_FLOW_H

#include <stdbool.h>
#include <stdint.h>

struct iogap_flow;
struct iogap_flows;             /* the flows of one run */

/* One job's (one clone's) membership; flow NULL: not in a flow. */
struct iogap_flow_member {
	struct iogap_flow *flow;
	uint64_t counter;           /* its passes (fio's td->flow_counter) */
	unsigned weight;
};

/* An empty set; NULL when out of memory. */
struct iogap_flows *iogap_flows_new(void);
/* Join flow id with weight (0: no flow, m->flow stays NULL), as fio does
 * for every job when it is added, before any starts.  0, or -1 when out
 * of memory. */
int iogap_flow_join(struct iogap_flows *set, int id, unsigned weight,
		    struct iogap_flow_member *m);
/* fio's flow_threshold_exceeded without its sleep: true when the member
 * is ahead of its share (hold it back); else its pass is counted. */
bool iogap_flow_ahead(struct iogap_flow_member *m);
/* The member's job ended: its weight and passes leave the flow, so the
 * others keep the ratio among themselves (fio's flow_exit_job). */
void iogap_flow_leave(struct iogap_flow_member *m);
void iogap_flows_free(struct iogap_flows *set);

#endif
