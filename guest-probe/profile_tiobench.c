/* SPDX-License-Identifier: MIT */
/*
 * fio's tiobench profile (profiles/tiobench.c): sequential write, random
 * write, sequential read, random read of four files, each phase after a
 * stonewall.
 *
 * fio 3.33 generates it from file-scope variables its options never set
 * (the options fill a struct of their own), so the job text is always
 * that of the defaults; --size is fio's job option, which the profile's
 * size= overrides.  The probe generates the same jobs and says so when
 * an option is given.
 */
#include <stddef.h>
#include <stdio.h>
#include <unistd.h>

#include "profile.h"

struct tiobench_settings {
	uint64_t size;
	unsigned loops, bs, nthreads;
	const char *dir;
};

static struct tiobench_settings given;   /* what the options say */

static const struct iogap_profile_opt tiobench_opts[] = {
	{ "size", "Size in MiB", NULL, IOGAP_POPT_SIZE,
	  offsetof(struct tiobench_settings, size), true },
	{ "block", "Block size in bytes", "4096", IOGAP_POPT_INT,
	  offsetof(struct tiobench_settings, bs), false },
	{ "numruns", "Number of runs", NULL, IOGAP_POPT_INT,
	  offsetof(struct tiobench_settings, loops), false },
	{ "dir", "Test directory", NULL, IOGAP_POPT_STR,
	  offsetof(struct tiobench_settings, dir), false },
	{ "threads", "Number of Threads", NULL, IOGAP_POPT_INT,
	  offsetof(struct tiobench_settings, nthreads), false },
	{ NULL },
};

/* fio's "size=4*1024*$mb_memory", which fio has bc work out: bytes */
static unsigned long long default_size(void)
{
	unsigned long long mb = (unsigned long long)sysconf(_SC_PHYS_PAGES) *
				(unsigned long long)sysconf(_SC_PAGESIZE) >> 20;

	return 4 * 1024 * mb;
}

static int tb_prep(struct iogap_profile_cmd *cmd)
{
	static const char *const jobs[] = {
		"timeout=600", "group_reporting", "thread", "overwrite=1",
		"filename=.fio.tio.1:.fio.tio.2:.fio.tio.3:.fio.tio.4",
		"ioengine=sync",
		"name=seqwrite", "rw=write", "end_fsync=1",
		"name=randwrite", "stonewall", "rw=randwrite", "end_fsync=1",
		"name=seqread", "stonewall", "rw=read",
		"name=randread", "stonewall", "rw=randread", NULL,
	};

	if (given.bs != 4096 || given.loops || given.dir || given.nthreads)
		fprintf(stderr, "iogap-probe: warning: fio 3.33's tiobench ignores --block, "
			"--numruns, --dir and --threads; so does the probe (same jobs as fio)\n");
	if (iogap_profile_cmd_add(cmd, "buffered=0") ||
	    iogap_profile_cmd_add(cmd, "size=%llu", default_size()) ||
	    iogap_profile_cmd_add(cmd, "bs=4096") ||
	    iogap_profile_cmd_add(cmd, "loops=1") ||
	    iogap_profile_cmd_add(cmd, "directory=./") ||
	    iogap_profile_cmd_add(cmd, "numjobs=1"))
		return -1;
	for (size_t i = 0; jobs[i]; i++)
		if (iogap_profile_cmd_add(cmd, "%s", jobs[i]))
			return -1;
	return 0;
}

const struct iogap_profile iogap_profile_tiobench = {
	.name = "tiobench",
	.desc = "tiotest/tiobench benchmark",
	.opts = tiobench_opts,
	.settings = &given,
	.prep = tb_prep,
};
