/* SPDX-License-Identifier: MIT */
#include <stdatomic.h>
#include <stdlib.h>

#include "flow.h"

struct iogap_flow {
	int id;
	_Atomic uint64_t counter;   /* starts at 1, as fio's */
	_Atomic unsigned total_weight;
	struct iogap_flow *next;
};

struct iogap_flows {
	struct iogap_flow *list;
};

struct iogap_flows *iogap_flows_new(void)
{
	return calloc(1, sizeof(struct iogap_flows));
}

/* Joins happen before the run's threads start: the list needs no lock. */
int iogap_flow_join(struct iogap_flows *set, int id, unsigned weight,
		    struct iogap_flow_member *m)
{
	struct iogap_flow *f = set->list;

	*m = (struct iogap_flow_member){ .weight = weight };
	if (!weight)
		return 0;
	while (f && f->id != id)
		f = f->next;
	if (!f) {
		f = calloc(1, sizeof(*f));
		if (!f)
			return -1;
		f->id = id;
		atomic_init(&f->counter, 1);
		f->next = set->list;
		set->list = f;
	}
	atomic_fetch_add(&f->total_weight, weight);
	m->flow = f;
	return 0;
}

bool iogap_flow_ahead(struct iogap_flow_member *m)
{
	struct iogap_flow *f = m->flow;
	double counter_ratio = (double)m->counter /
		(double)atomic_load_explicit(&f->counter, memory_order_relaxed);
	double weight_ratio = (double)m->weight /
		(double)atomic_load_explicit(&f->total_weight, memory_order_relaxed);

	if (counter_ratio > weight_ratio)
		return true;
	atomic_fetch_add_explicit(&f->counter, 1, memory_order_relaxed);
	m->counter++;
	return false;
}

void iogap_flow_leave(struct iogap_flow_member *m)
{
	if (!m->flow)
		return;
	atomic_fetch_sub(&m->flow->counter, m->counter);
	atomic_fetch_sub(&m->flow->total_weight, m->weight);
	m->flow = NULL;
}

void iogap_flows_free(struct iogap_flows *set)
{
	while (set && set->list) {
		struct iogap_flow *f = set->list;

		set->list = f->next;
		free(f);
	}
	free(set);
}
