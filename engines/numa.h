/* SPDX-License-Identifier: MIT */
/*
 * fio's numa_cpu_nodes and numa_mem_policy without libnuma (numa.c): the
 * nodes' CPUs from /sys/devices/system/node/nodeN/cpulist, then
 * sched_setaffinity; the memory policy with set_mempolicy.
 */
#ifndef IOGAP_NUMA_H
#define IOGAP_NUMA_H

#include <stddef.h>

struct iogap_job;

/* 1 when key is not numa_cpu_nodes/numa_mem_policy, 0 when set, -1 with
 * what is wrong with val in why. */
int iogap_job_numa_option(struct iogap_job *j, const char *key, const char *val, char *why,
			  size_t whylen);
/* For the calling thread, as fio's thread_main: 0, or -1 with err. */
int iogap_numa_apply(const struct iogap_job *j, char *err, size_t errlen);

#endif
