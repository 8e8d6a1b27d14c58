/* SPDX-License-Identifier: MIT */
/*
 * Target checks of `iogap run`, before any I/O on either side
 * (docs/iogap-run.md, "Target checks"): the same rules hold on bare metal
 * and in the VM, so both sides work on the same bytes.
 */
#ifndef IOGAP_PREFLIGHT_H
#define IOGAP_PREFLIGHT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vm.h"

struct iogap_job_needs {
	bool writes;              /* some job writes or trims */
	/* every job's startdelay + ramp_time + runtime, summed: the most the
	 * jobs run by their own clocks; 0 when some job is not bounded so
	 * (no runtime, a verify pass after it, or a job file left to the
	 * probe to reject) */
	uint64_t time_bound_ns;
	/* the first job that asks for its file to be deleted (unlink,
	 * unlink_each_loop; "": none): iogap run never passes that on */
	char unlinks[128];
};

/* Check the jobs against the target: every job's region inside the target
 * (no file is grown), no empty target, no write to a target that cannot be
 * written (immutable, read-only) or that another process locks (a running
 * VM's QEMU), no writes into holes that could fill the filesystem.  Job
 * files that do not parse are left to the probe, which names the error.
 * domain_disk: t is the disk of a running libvirt domain (iogap run
 * --domain), whose QEMU holds its lock: not checked.  0, or -1 with err. */
int iogap_preflight(const struct iogap_target *t, char *const *jobs, int nr_jobs,
		    bool domain_disk, struct iogap_job_needs *needs, char *err, size_t errlen);

#endif
