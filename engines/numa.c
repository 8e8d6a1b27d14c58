/* SPDX-License-Identifier: MIT */
/*
 * NUMA placement with fio's options and meanings (its options.c and
 * backend.c, which use libnuma): numa_cpu_nodes=LIST runs the job on the
 * CPUs of those nodes; numa_mem_policy=MODE[:LIST] (default, prefer:N,
 * bind:LIST, interleave[:LIST], local) is the policy of its memory.
 */
#include <ctype.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "job.h"
#include "numa.h"
#include "util.h"

#define NODE_DIR "/sys/devices/system/node"

/* The kernel's MPOL_* (linux/mempolicy.h) by enum iogap_numa_policy */
static const int mpol_mode[] = {
	[IOGAP_NUMA_DEFAULT] = 0, [IOGAP_NUMA_PREFER] = 1, [IOGAP_NUMA_BIND] = 2,
	[IOGAP_NUMA_INTERLEAVE] = 3, [IOGAP_NUMA_LOCAL] = 4,
};

/* "0-1,3": a bit per node.  Also the CPU lists of sysfs (cpu < max). */
static int parse_list(const char *s, unsigned max, uint64_t *nodes, unsigned char *cpus)
{
	while (*s) {
		char *end;
		unsigned long a, b;

		if (!isdigit((unsigned char)*s))
			return -1;
		a = b = strtoul(s, &end, 10);
		if (*end == '-') {
			if (!isdigit((unsigned char)end[1]))
				return -1;
			b = strtoul(end + 1, &end, 10);
		}
		if (a > b || b >= max || (*end && *end != ',' && *end != '\n'))
			return -1;
		for (unsigned long n = a; n <= b; n++) {
			if (nodes)
				*nodes |= 1ull << n;
			else
				cpus[n / 8] |= (unsigned char)(1u << (n % 8));
		}
		s = *end ? end + 1 : end;
	}
	return 0;
}

static int parse_nodes(const char *s, uint64_t *nodes, char *why, size_t whylen)
{
	*nodes = 0;
	if (!strcmp(s, "all")) {
		*nodes = ~0ull;   /* every node there is, when applied */
		return 0;
	}
	if (!*s || parse_list(s, IOGAP_NUMA_MAX_NODES, nodes, NULL))
		return iogap_seterr(why, whylen, "expected node numbers below %d, e.g. 0-1,3",
				    IOGAP_NUMA_MAX_NODES);
	return 0;
}

/* fio's str_numa_mpol_cb */
static int parse_policy(struct iogap_numa_opts *n, const char *val, char *why, size_t whylen)
{
	static const char *const names[] = { "default", "prefer", "bind", "interleave", "local" };
	const char *colon = strchr(val, ':');
	size_t len = colon ? (size_t)(colon - val) : strlen(val);
	unsigned mode;

	for (mode = 0; mode < 5; mode++)
		if (strlen(names[mode]) == len && !strncmp(val, names[mode], len))
			break;
	if (mode == 5)
		return iogap_seterr(why, whylen, "memory policy should be: default, prefer, bind, "
				    "interleave, local");
	n->mem_policy = (enum iogap_numa_policy)mode;
	n->mem_nodes = 0;
	n->mem_set = true;
	if ((mode == IOGAP_NUMA_DEFAULT || mode == IOGAP_NUMA_LOCAL) && colon)
		return iogap_seterr(why, whylen, "NO nodelist for '%s'", names[mode]);
	if ((mode == IOGAP_NUMA_PREFER || mode == IOGAP_NUMA_BIND) && !colon)
		return iogap_seterr(why, whylen, "a nodelist is needed for '%s'", names[mode]);
	if (mode == IOGAP_NUMA_INTERLEAVE && !colon)
		return parse_nodes("all", &n->mem_nodes, why, whylen);
	if (!colon)
		return 0;
	if (mode == IOGAP_NUMA_PREFER && strspn(colon + 1, "0123456789") != strlen(colon + 1))
		return iogap_seterr(why, whylen, "one node only for 'prefer'");
	return parse_nodes(colon + 1, &n->mem_nodes, why, whylen);
}

int iogap_job_numa_option(struct iogap_job *j, const char *key, const char *val, char *why,
			  size_t whylen)
{
	if (strcmp(key, "numa_cpu_nodes") && strcmp(key, "numa_mem_policy"))
		return 1;
	if (!val || !*val)
		return iogap_seterr(why, whylen, "needs a value");
	if (!strcmp(key, "numa_mem_policy"))
		return parse_policy(&j->numa, val, why, whylen);
	return parse_nodes(val, &j->numa.cpu_nodes, why, whylen);
}

/* The nodes of *nodes that exist ("all": every one); -1 with err when a
 * named node does not. */
static int existing_nodes(uint64_t *nodes, const char *opt, char *err, size_t errlen)
{
	uint64_t online = 0;
	size_t len;
	char *s = iogap_read_file(NODE_DIR "/online", 0, &len);

	if (!s || parse_list(s, IOGAP_NUMA_MAX_NODES, &online, NULL)) {
		free(s);
		return iogap_seterr(err, errlen, "%s: cannot read the nodes (" NODE_DIR "/online)",
				    opt);
	}
	free(s);
	if (*nodes == ~0ull)
		*nodes = online;
	if (*nodes & ~online)
		return iogap_seterr(err, errlen, "%s: node %d does not exist",
				    opt, __builtin_ctzll(*nodes & ~online));
	return 0;
}

static int run_on_nodes(uint64_t nodes, char *err, size_t errlen)
{
	unsigned char cpus[CPU_SETSIZE / 8] = { 0 };
	cpu_set_t set;

	if (existing_nodes(&nodes, "numa_cpu_nodes", err, errlen))
		return -1;
	for (unsigned n = 0; n < IOGAP_NUMA_MAX_NODES; n++) {
		char path[64], *s;
		size_t len;
		int bad;

		if (!(nodes & (1ull << n)))
			continue;
		snprintf(path, sizeof(path), NODE_DIR "/node%u/cpulist", n);
		s = iogap_read_file(path, 0, &len);
		bad = !s || parse_list(s, CPU_SETSIZE, NULL, cpus);
		free(s);
		if (bad)
			return iogap_seterr(err, errlen, "numa_cpu_nodes: cannot read %s", path);
	}
	CPU_ZERO(&set);
	for (unsigned c = 0; c < CPU_SETSIZE; c++)
		if (cpus[c / 8] & (1u << (c % 8)))
			CPU_SET(c, &set);
	if (!CPU_COUNT(&set))
		return iogap_seterr(err, errlen, "numa_cpu_nodes: the nodes have no CPU");
	if (sched_setaffinity(0, sizeof(set), &set))
		return iogap_seterr(err, errlen, "numa_cpu_nodes: sched_setaffinity: %s",
				    strerror(errno));
	return 0;
}

static int set_policy(const struct iogap_numa_opts *n, char *err, size_t errlen)
{
	enum { LONG_BITS = 8 * sizeof(unsigned long) };
	uint64_t nodes = n->mem_nodes;
	unsigned long mask[IOGAP_NUMA_MAX_NODES / LONG_BITS] = { 0 };
	long r;

	if (nodes && existing_nodes(&nodes, "numa_mem_policy", err, errlen))
		return -1;
	for (unsigned b = 0; b < IOGAP_NUMA_MAX_NODES; b++)
		if (nodes >> b & 1)
			mask[b / LONG_BITS] |= 1ul << (b % LONG_BITS);
	r = syscall(SYS_set_mempolicy, mpol_mode[n->mem_policy], nodes ? mask : NULL,
		    nodes ? (unsigned long)IOGAP_NUMA_MAX_NODES + 1 : 0ul);
	if (r)
		return iogap_seterr(err, errlen, "numa_mem_policy: set_mempolicy: %s",
				    strerror(errno));
	return 0;
}

int iogap_numa_apply(const struct iogap_job *j, char *err, size_t errlen)
{
	if (j->numa.cpu_nodes && run_on_nodes(j->numa.cpu_nodes, err, errlen))
		return -1;
	if (j->numa.mem_set && set_policy(&j->numa, err, errlen))
		return -1;
	return 0;
}
