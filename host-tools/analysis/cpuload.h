/* SPDX-License-Identifier: MIT */
/*
 * Host CPU use per second during a run phase: the whole host (/proc/stat)
 * and every thread of the processes that matter (iogap's own children —
 * QEMU, the probe — and local backend daemons found by name: ceph-osd,
 * ceph-mon).  `iogap run` samples it into SIDE/cpuload.txt; the report
 * and lint read it back and name the seconds in which the host or a
 * thread was saturated (docs/reports.md, "CPU saturation").
 *
 * The file (written and parsed here, side by side), one item a line:
 *   iogap-cpuload 1
 *   ncpu N
 *   task ID PID TID ROLE COMM     declared before its first use; COMM to the end of the line
 *   s START_NS END_NS HOST_PCT    one interval (CLOCK_MONOTONIC); HOST_PCT: busy % of all cores
 *   u ID PCT                      a task's use in the interval above, % of one core (>= 1 only)
 * ROLE: vcpu, iothread, qemu-main, qemu-worker, qemu, probe, or the daemon's name.
 */
#ifndef IOGAP_CPULOAD_H
#define IOGAP_CPULOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* saturated: the host at >= this % of all cores, a thread at >= this % of one */
#define IOGAP_CPU_SATURATED_PCT 95.0

struct iogap_cpu_task {
	int pid, tid;
	char role[16], comm[32];
};

struct iogap_cpu_sec {
	uint64_t start_ns, end_ns;
	double host_pct;
	size_t first_use, nuse;   /* uses[first_use .. +nuse) */
};

struct iogap_cpu_use {
	size_t task;
	double pct;
};

struct iogap_cpuload {
	unsigned ncpu;
	struct iogap_cpu_task *task;
	size_t ntask;
	struct iogap_cpu_sec *sec;
	size_t nsec;
	struct iogap_cpu_use *use;
	size_t nuse;
};

/* Parse a cpuload file; 0, or -1 with err naming file:line. */
int iogap_cpuload_load(const char *path, struct iogap_cpuload *cl, char *err, size_t errlen);
void iogap_cpuload_free(struct iogap_cpuload *cl);

/*
 * What was saturated: seconds in which the host was (all cores busy) and,
 * per task, seconds in which it used >= 95% of one core.  vCPU threads are
 * listed but never make a second "saturated": a vCPU thread is busy with
 * the guest's own work (under TCG, emulating it: always near 100% while
 * the guest runs I/O), which is not contention by itself; contention
 * shows as the host or another thread saturated.
 */
struct iogap_cpu_busy_task {
	size_t task;
	size_t nsec;              /* seconds at >= 95% */
};

struct iogap_cpu_summary {
	size_t nsec, host_sat;    /* seconds sampled, seconds with the host saturated */
	size_t sat;               /* seconds saturated (host, or a non-vCPU task) */
	double host_max_pct, host_mean_pct;
	double others_mean_pct;   /* host use outside the watched threads, % of one core */
	struct iogap_cpu_busy_task busy[16];   /* tasks with saturated seconds, most first */
	size_t nbusy;
	bool *sec_sat;            /* per second: saturated (malloc'd) */
};

int iogap_cpuload_summarize(const struct iogap_cpuload *cl, struct iogap_cpu_summary *s);
void iogap_cpu_summary_free(struct iogap_cpu_summary *s);
/* Is host time t (CLOCK_MONOTONIC ns) inside a saturated second? */
bool iogap_cpu_saturated_at(const struct iogap_cpuload *cl, const struct iogap_cpu_summary *s,
			    uint64_t t);
/* Of a probe trace's requests (outside ramp), those submitted in a
 * saturated second, the trace's clock mapped to the host's as
 * host = t - offset_ns (0 for a bare-metal trace; a guest trace's offset
 * from the run's clock alignment, drift left out: < 1 ms over a run).
 * 0, or -1 with err. */
int iogap_cpuload_trace_share(const struct iogap_cpuload *cl, const struct iogap_cpu_summary *s,
			      const char *trace, int64_t offset_ns, uint64_t *hit, uint64_t *all,
			      char *err, size_t errlen);

/* One line naming what was saturated and how much, into buf ("" if nothing). */
void iogap_cpu_summary_text(const struct iogap_cpuload *cl, const struct iogap_cpu_summary *s,
			    char *buf, size_t n);

/* The file's lines, one writer each (the sampler and test fixtures use them). */
void iogap_cpuload_write_header(FILE *f, unsigned ncpu);
void iogap_cpuload_write_task(FILE *f, long id, int pid, int tid, const char *role,
			      const char *comm);
void iogap_cpuload_write_sec(FILE *f, uint64_t start_ns, uint64_t end_ns, double host_pct);
void iogap_cpuload_write_use(FILE *f, long id, double pct);

/* Sample the host and the watched processes every second into path until
 * stopped (a thread).  NULL with err on failure. */
struct iogap_cpuload_sampler;
struct iogap_cpuload_sampler *iogap_cpuload_start(const char *path, char *err, size_t errlen);
void iogap_cpuload_stop(struct iogap_cpuload_sampler *smp);

#endif
