/* SPDX-License-Identifier: MIT */
/*
 * `iogap run`: the same job on bare metal and in a VM, traces from both
 * sides and from QEMU's block layer, clocks aligned and requests paired.
 * Everything lands in one run directory (docs/iogap-run.md).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "align.h"
#include "child.h"
#include "control.h"
#include "cpuload.h"
#include "extents.h"
#include "iogap-domain.h"
#include "iogap-paths.h"
#include "job.h"
#include "json_writer.h"
#include "kernel_points.h"
#include "preflight.h"
#include "progress.h"
#include "orchestration.h"
#include "qemubin.h"
#include "repeat.h"
#include "ringmap.h"
#include "rundir.h"
#include "runlock.h"
#include "timeline.h"
#include "trace_file.h"
#include "util.h"
#include "vm.h"

#define SYNC_ROUNDS 200
#define DEFAULT_JOB_TIMEOUT_S 600
#define STUCK_FILE "probe.stuck.txt"
#define MAX_WARNINGS 16
#define IOGAP_HOST_TRACEFS "/sys/kernel/tracing"   /* the guest's too */

struct run_opts {
	const char *dir;
	const char *target_spec;
	const char *accel;
	const char *qemu;          /* --qemu PATH (else $IOGAP_QEMU, else the system's) */
	const char *cache, *aio, *machine;
	const char *kernel, *initrd;
	unsigned smp, memory_mb;
	bool iothread, vm_only, bare_only, allow_destroy, force;
	bool match_load;           /* --match-load: bare-matched/ at the VM's IOPS */
	unsigned repeat;           /* --repeat N: N runs into DIR/rep-K (0: one run in DIR) */
	bool quiet;                /* --quiet: no progress line even on a terminal */
	bool no_kernel_points;     /* --no-kernel-points: no --kernel-trace on either side */
	const char *passthrough;   /* --passthrough nvme|BDF: no filter, the disk assigned */
	const char *bare_run;      /* --bare-run DIR: bare metal is DIR's recorded run */
	uint64_t inject_delay_ns;  /* test only (--inject-delay-ns): delay on the bottom filter */
	unsigned ring_size;        /* --ring-size: records per filter ring */
	unsigned timeout_s, boot_timeout_s;
	const char *append;
	const char *domain, *disk, *uri;   /* --domain: a running libvirt domain's disk */
	char **jobs;
	int nr_jobs;
};

struct phase {
	const char *name;
	/* "pending" (to run), "running" (iogap died during it: kill -9),
	 * "ok", "failed", "interrupted" (SIGINT/SIGTERM during it), "skipped" */
	const char *status;
	char message[1024];
	int probe_status;
};

struct run_state {
	struct run_opts o;
	struct iogap_target target;
	char dir[PATH_MAX];
	char tools[PATH_MAX];     /* directory of the iogap binary */
	char probe[PATH_MAX], kernel[PATH_MAX], initrd[PATH_MAX];
	struct iogap_qemu qemu;        /* the VM's QEMU and its filter (qemu.filter) */
	char probe_static[PATH_MAX];   /* copied into a libvirt domain's guest */
	struct iogap_domain *dom;      /* --domain */
	char domain_target[4300];      /* the domain disk's backend, as --target */
	char bare_run_target[4200];    /* --bare-run's target, as --target */
	char guest_dev[64];            /* that disk in the guest */
	char blockstats[256];          /* QEMU's statistics of the device, summed up */
	char top_stats[256];           /* the top filter's, summed up the same way */
	uint64_t run_id;
	char passthrough[64];     /* manifest vm.passthrough: "nvme", "vfio-pci,host=BDF" */
	const char *accel_used;
	char accel_note[512];
	struct phase bare, vm, matched;
	struct iogap_sync_sample sync_before[SYNC_ROUNDS], sync_after[SYNC_ROUNDS];
	size_t n_before, n_after;
	char guest_hello[512];
	struct iogap_rundir rd;   /* loaded back after the run */
	bool have_pairing;
	/* per direction: mean ns of each stage of the VM's timeline (stages)
	 * over the requests with every point of it, outside ramp */
	struct iogap_stages stages;
	double stage_mean[IOGAP_PAIR_DIRS][IOGAP_TL_MAX_STAGES];
	uint64_t stage_n[IOGAP_PAIR_DIRS];
	struct iogap_ring_drain *drain[2];           /* top, bottom */
	uint64_t ring_records[2], ring_dropped[2];
	char warnings[MAX_WARNINGS][320];   /* also in the manifest: the first ones */
	size_t nr_warnings;                 /* all of them, kept or not */
	char env_names[64][128];
	size_t nr_env;
	struct iogap_job_needs needs;   /* what the jobs do to the target */
	/* per side: why its probe records no kernel points ("": it does,
	 * into SIDE/kernel.trace; docs/kernel-points.md) */
	char kernel_why[IOGAP_SIDES][320];
	/* likewise for the host kernel under QEMU during the VM phase
	 * (vm/host-kernel.trace), and its recorder while it runs */
	char host_kernel_why[320];
	struct iogap_kpoints *host_kernel;
	int argc;                 /* the command line, for the manifest */
	char **argv;
	bool manifest_failed;     /* said so on stderr already */
	int target_fd;            /* holds the target's locks for the run (-1: none) */
};

static int stage_stats(struct run_state *s, char *err, size_t errlen);

/* --passthrough BDF: a PCI device assigned to the guest (vfio-pci). */
static bool vfio(const struct run_state *s)
{
	return s->o.passthrough && strcmp(s->o.passthrough, "nvme");
}

__attribute__((format(printf, 2, 3)))
static void warn(struct run_state *s, const char *fmt, ...)
{
	va_list ap;
	char w[sizeof(s->warnings[0])], line[sizeof(w) + 32];

	va_start(ap, fmt);
	vsnprintf(w, sizeof(w), fmt, ap);
	va_end(ap);
	if (s->nr_warnings < MAX_WARNINGS)
		memcpy(s->warnings[s->nr_warnings], w, sizeof(w));
	s->nr_warnings++;
	snprintf(line, sizeof(line), "iogap: warning: %s", w);
	iogap_progress_message(line);
}

/* QEMU 7.2's ZNS emulation loses completions above queue depth 1
 * (docs/architecture.md): say so before the run rather than after a hang. */
static void check_zns_depth(struct run_state *s)
{
	for (int i = 0; i < s->o.nr_jobs; i++) {
		struct iogap_job_list l = { 0 };
		char err[512];

		if (iogap_jobfile_parse(s->o.jobs[i], NULL, &l, err, sizeof(err)))
			continue;   /* the probe reports job errors itself */
		for (size_t k = 0; k < l.nr; k++) {
			if (l.jobs[k].iodepth > 1) {
				warn(s, "job '%s' uses iodepth=%u on a ZNS target: QEMU 7.2's ZNS emulation "
				     "loses completions at queue depth > 1 (nvme timeouts, resets)",
				     l.jobs[k].name, l.jobs[k].iodepth);
				iogap_job_list_free(&l);
				return;
			}
		}
		iogap_job_list_free(&l);
	}
}

/* ${NAME} references in a job file: their values travel to the guest. */
static void collect_env_names(struct run_state *s, const char *text)
{
	for (const char *p = strstr(text, "${"); p; p = strstr(p + 2, "${")) {
		const char *close = strchr(p, '}');
		size_t n;
		bool seen = false;

		if (!close || (n = (size_t)(close - p - 2)) == 0 || n >= sizeof(s->env_names[0]))
			continue;
		for (size_t i = 0; i < s->nr_env; i++)
			seen = seen || (!strncmp(s->env_names[i], p + 2, n) && !s->env_names[i][n]);
		if (!seen && s->nr_env < 64) {
			memcpy(s->env_names[s->nr_env], p + 2, n);
			s->env_names[s->nr_env++][n] = '\0';
		}
	}
}

/* Installed (our binary sits in the install's bindir, iogap-paths.h) or
 * run from a build tree, where the pieces are beside us. */
static bool installed(const char *self_dir)
{
	char bindir[PATH_MAX];

	return realpath(IOGAP_INSTALL_BINDIR, bindir) && !strcmp(bindir, self_dir);
}

/* The probe and guest: the command line, the environment, then the
 * install's paths or the build tree's. */
static int locate(struct run_state *s, char *err, size_t errlen)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	struct {
		char *dst;
		const char *env, *rel, *inst, *what;
	} want[] = {
		{ s->probe, "IOGAP_PROBE", "../guest-probe/iogap-probe",
		  IOGAP_INSTALL_BINDIR "/iogap-probe", "iogap-probe" },
		{ s->kernel, "IOGAP_KERNEL", "../images/vmlinux",
		  IOGAP_INSTALL_PKGLIBDIR "/vmlinux", "the guest kernel" },
		{ s->initrd, "IOGAP_INITRD", "../images/initramfs.cpio",
		  IOGAP_INSTALL_PKGLIBDIR "/initramfs.cpio", "the guest initramfs" },
		{ s->probe_static, "IOGAP_PROBE_STATIC", "../images/iogap-probe-static",
		  IOGAP_INSTALL_PKGLIBDIR "/iogap-probe-static", "the static iogap-probe" },
	};
	bool inst;

	if (n < 0)
		return -1;
	self[n] = '\0';
	*strrchr(self, '/') = '\0';
	inst = installed(self);
	snprintf(s->tools, sizeof(s->tools), "%s", self);
	if (s->o.kernel)
		snprintf(s->kernel, sizeof(s->kernel), "%s", s->o.kernel);
	if (s->o.initrd)
		snprintf(s->initrd, sizeof(s->initrd), "%s", s->o.initrd);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const char *env = getenv(want[i].env);

		if (want[i].dst[0])
			;   /* given on the command line */
		else if (env)
			snprintf(want[i].dst, PATH_MAX, "%s", env);
		else if (inst)
			snprintf(want[i].dst, PATH_MAX, "%s", want[i].inst);
		else if (snprintf(want[i].dst, PATH_MAX, "%s/%s", self, want[i].rel) >= PATH_MAX)
			return -1;
		if (access(want[i].dst, R_OK)) {
			/* the VM pieces matter only when there is a VM phase: iogap's
			 * own (kernel, initrd) or a domain's (the static probe) */
			bool domain_piece = i == 3;
			bool wanted = domain_piece == !!s->o.domain;

			if (i == 0 || (!s->o.bare_only && wanted)) {
				snprintf(err, errlen, "cannot find %s at %s (set %s, or %s)",
					 want[i].what, want[i].dst, want[i].env,
					 inst ? "reinstall iogap" : "build it");
				return -1;
			}
		}
	}
	return 0;
}

/* The QEMU of iogap's own VM and the filter built for that binary
 * (qemubin.h): a QEMU without one is refused before anything runs. */
static int locate_qemu(struct run_state *s, char *err, size_t errlen)
{
	char dirs[2][PATH_MAX];

	if (s->o.bare_only || s->o.domain)
		return 0;
	if (iogap_qemu_identify(s->o.qemu, &s->qemu, err, errlen))
		return -1;
	if (s->o.passthrough)
		return 0;   /* no filter nodes */
	return iogap_qemu_filter(&s->qemu, getenv("IOGAP_FILTER_SO"), dirs,
				 iogap_filter_dirs(dirs), err, errlen);
}

enum phase_result { PHASE_OK, PHASE_FAILED, PHASE_INTERRUPTED };

/* "--force=filename=PATH" with PATH's colons escaped: in fio's syntax a
 * colon separates files (a /dev/disk/by-path name has some). */
static void force_filename(char *out, size_t len, const char *path)
{
	size_t o = (size_t)snprintf(out, len, "--force=filename=");

	for (; *path && o + 3 < len; path++) {
		if (*path == ':')
			out[o++] = '\\';
		out[o++] = *path;
	}
	out[o] = '\0';
}

/* The strings of the bare-metal probe's command line. */
struct probe_args {
	const char *argv[64];
	char trace[PATH_MAX + 32], out[PATH_MAX + 48], json[PATH_MAX + 48], runid[32];
	char ktrace[PATH_MAX + 48], size[64], latency[64], fname[PATH_MAX + 32], zonesize[64];
	char pool[160], image[300], conf[1100], id[160];
};

/* The engine and target options on bare metal: the VM side's target. */
static int target_args(const struct run_state *s, struct probe_args *a, int argc)
{
	const struct iogap_target *t = &s->target;

	if (t->kind == IOGAP_TARGET_NULL) {
		/* QEMU's null-co on the VM side; the probe's null engine here */
		snprintf(a->size, sizeof(a->size), "--force=size=%" PRIu64, t->size);
		snprintf(a->latency, sizeof(a->latency), "--null-latency-ns=%" PRIu64, t->latency_ns);
		a->argv[argc++] = "--force=ioengine=null";
		a->argv[argc++] = a->size;
		a->argv[argc++] = a->latency;
	} else if (t->kind == IOGAP_TARGET_RBD) {
		/* QEMU's rbd driver on the VM side; the probe's rbd engine here */
		snprintf(a->pool, sizeof(a->pool), "--force=pool=%s", t->pool);
		snprintf(a->image, sizeof(a->image), "--force=rbdname=%s", t->image);
		a->argv[argc++] = "--force=ioengine=rbd";
		a->argv[argc++] = a->pool;
		a->argv[argc++] = a->image;
		if (t->conf[0]) {
			snprintf(a->conf, sizeof(a->conf), "--force=ceph_conf=%s", t->conf);
			a->argv[argc++] = a->conf;
		}
		if (t->id[0]) {
			snprintf(a->id, sizeof(a->id), "--force=clientname=%s", t->id);
			a->argv[argc++] = a->id;
		}
	} else {
		force_filename(a->fname, sizeof(a->fname), t->path);
		a->argv[argc++] = a->fname;
		if (t->kind == IOGAP_TARGET_ZNS) {
			/* the guest sees a zoned device: emulate the same zones here */
			snprintf(a->zonesize, sizeof(a->zonesize), "--force=zonesize=%" PRIu64,
				 t->zone_size);
			a->argv[argc++] = "--force=zonemode=zbd";
			a->argv[argc++] = a->zonesize;
		}
	}
	return argc;
}

static void probe_argv(struct run_state *s, enum iogap_side side, const char *dir, char **jobs,
		       int nr_jobs, struct probe_args *a)
{
	int argc = 0;

	snprintf(a->trace, sizeof(a->trace), "%s/probe.trace", dir);
	snprintf(a->out, sizeof(a->out), "--output=%s/probe.txt", dir);
	snprintf(a->json, sizeof(a->json), "--output-json=%s/probe.json", dir);
	snprintf(a->runid, sizeof(a->runid), "--run-id=%" PRIx64, s->run_id);
	a->argv[argc++] = s->probe;
	a->argv[argc++] = "--eta=never";
	a->argv[argc++] = "--producer=bare";
	a->argv[argc++] = "--output-format=normal,json+";
	a->argv[argc++] = a->out;
	a->argv[argc++] = a->json;
	a->argv[argc++] = a->runid;
	a->argv[argc++] = "--trace";
	a->argv[argc++] = a->trace;
	if (!s->kernel_why[side][0]) {
		snprintf(a->ktrace, sizeof(a->ktrace), "--kernel-trace=%s/" IOGAP_KERNEL_TRACE, dir);
		a->argv[argc++] = a->ktrace;
	}
	if (s->o.allow_destroy)
		a->argv[argc++] = "--allow-destroy-data";
	/* fio deletes a job's file on unlink: never the user's target */
	a->argv[argc++] = "--force=unlink=0";
	a->argv[argc++] = "--force=unlink_each_loop=0";
	argc = target_args(s, a, argc);
	for (int i = 0; i < nr_jobs && argc < 62; i++)
		a->argv[argc++] = jobs[i];
	a->argv[argc] = NULL;
}

/* The last lines of text in buf. */
static const char *last_lines(const char *buf, int lines)
{
	const char *p = buf + strlen(buf);

	while (p > buf && p[-1] == '\n')
		p--;
	while (p > buf && (p[-1] != '\n' || --lines > 0))
		p--;
	return p;
}

/* Remove from buf the lines that start with prefix (in place). */
static void drop_lines(char *buf, const char *prefix)
{
	char *out = buf;
	size_t n = strlen(prefix);

	for (const char *p = buf; *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) + 1 : strlen(p);

		if (strncmp(p, prefix, n)) {
			memmove(out, p, len);
			out += len;
		}
		p += len;
	}
	*out = '\0';
}

static void say_interrupted(struct phase *p, const char *what)
{
	const char *sig = sigabbrev_np(iogap_interrupted());

	iogap_seterr(p->message, sizeof(p->message), "interrupted by %s%s: %s", sig ? "SIG" : "",
		     sig ? sig : "a signal", what);
}

/* How long a side's probe may take: --timeout; else, for jobs bounded
 * by their clocks, twice that plus two minutes of set-up (a TCG guest's
 * included); else DEFAULT_JOB_TIMEOUT_S.  A hung probe fails the run. */
static uint64_t job_limit_ns(const struct run_state *s)
{
	uint64_t bound = s->needs.time_bound_ns;

	if (s->o.timeout_s)
		return (uint64_t)s->o.timeout_s * 1000000000ULL;
	if (bound)
		return bound > UINT64_MAX / 8 ? UINT64_MAX / 4 : 2 * bound + 120000000000ULL;
	return DEFAULT_JOB_TIMEOUT_S * 1000000000ULL;
}

/* DIR/probe.stuck.txt: where the child's threads wait (no file if unread). */
static void snapshot_stuck(const struct iogap_child *c, const char *dir)
{
	char path[PATH_MAX + 32];

	snprintf(path, sizeof(path), "%s/" STUCK_FILE, dir);
	if (iogap_child_snapshot(c, path))
		unlink(path);
}

/* The stuck file's "inflight DISK READS WRITES" lines as "; DISK R reads W
 * writes, ..." (empty without any): requests the side's kernel issued that
 * its device had not completed at the limit (in a guest: QEMU). */
static void stuck_inflight(const char *path, char *out, size_t len)
{
	char *text = iogap_read_file(path, 1 << 20, NULL), *save = NULL;
	size_t used = 0;

	out[0] = '\0';
	if (!text)
		return;
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		unsigned long long reads, writes;
		char disk[64];
		int n;

		if (sscanf(l, "inflight %63s %llu %llu", disk, &reads, &writes) != 3)
			continue;
		n = snprintf(out + used, len - used, "%s %s %llu reads %llu writes",
			     used ? "," : "; in flight at the limit (issued, not completed by the device):",
			     disk, reads, writes);
		if (n < 0 || (size_t)n >= len - used)
			break;
		used += (size_t)n;
	}
	free(text);
}

/* Why a side failed when its probe was stopped at the limit. */
static int say_stuck(const struct run_state *s, const char *side, char *err, size_t errlen)
{
	char path[PATH_MAX + 64], where[96], inflight[256];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s/" STUCK_FILE, s->dir, side);
	if (stat(path, &st))
		snprintf(where, sizeof(where), "where it waited could not be read");
	else
		snprintf(where, sizeof(where), "where its threads waited: %s/" STUCK_FILE, side);
	stuck_inflight(path, inflight, sizeof(inflight));
	return iogap_seterr(err, errlen, "the probe did not end within %" PRIu64 " s (%s): it was "
			    "stopped; %s%s", (uint64_t)(job_limit_ns(s) / 1000000000ULL),
			    s->o.timeout_s ? "--timeout" : s->needs.time_bound_ns ?
			    "twice the jobs' runtime plus 120 s" : "the jobs are not bounded by time",
			    where, inflight);
}

/* Why a probe that failed left no message, as far as iogap can tell: a
 * full run directory, a SIGKILL iogap did not send (the OOM killer). */
static const char *no_message(const struct run_state *s, int copy_errno, int signal, bool guest)
{
	struct statvfs vfs;

	if (copy_errno == ENOSPC || (!statvfs(s->dir, &vfs) && vfs.f_bavail == 0))
		return "it left no message: the run directory's filesystem is full (No space left "
		       "on device)";
	if (signal == SIGKILL)
		return guest ? "it left no message; something in the guest killed it (SIGKILL): see "
			       "vm/dmesg.txt" :
			       "it left no message; iogap did not send that SIGKILL: the kernel's OOM "
			       "killer? (dmesg)";
	return "it gave no reason";
}

/* The guest kernel's OOM kill in vm/dmesg.txt, as "..." for a message
 * ("": none). */
static void guest_oom(const char *vmdir, char *out, size_t len)
{
	char path[PATH_MAX + 32], line[512];
	FILE *f;

	out[0] = '\0';
	snprintf(path, sizeof(path), "%s/dmesg.txt", vmdir);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "Out of memory: Killed process") || strstr(line, "oom-kill:")) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(out, len, "%s", line);
			if (strstr(line, "Out of memory"))
				break;
		}
	fclose(f);
}

/* The probe on the host into RUN/SIDE.  On SIGINT/SIGTERM it gets SIGTERM
 * (it ends its jobs and writes what it has), SIGKILL 5 s later; past
 * job_limit_ns the same, where it waited kept first.  Its stderr
 * goes to SIDE/probe.err through iogap, which keeps the last of it in
 * memory: the reason of a failure survives a full disk. */
static enum phase_result run_host_probe(struct run_state *s, struct phase *p, enum iogap_side sd,
					char **jobs, int nr_jobs)
{
	const char *side = iogap_side_dir[sd];
	char dir[PATH_MAX + 16], errf[PATH_MAX + 32], how[128];
	struct probe_args *args = calloc(1, sizeof(*args));
	struct iogap_spawn sp = { .stderr_path = errf, .capture_stderr = true };
	struct iogap_child c;
	size_t n;
	int started;

	snprintf(dir, sizeof(dir), "%s/%s", s->dir, side);
	snprintf(errf, sizeof(errf), "%s/probe.err", dir);
	if (!args || (mkdir(dir, 0755) && errno != EEXIST)) {
		iogap_seterr(p->message, sizeof(p->message), "%s: %s", dir, strerror(errno));
		free(args);
		return PHASE_FAILED;
	}
	probe_argv(s, sd, dir, jobs, nr_jobs, args);
	sp.argv = args->argv;
	started = iogap_child_start(&c, &sp, p->message, sizeof(p->message));
	free(args);
	if (started)
		return PHASE_FAILED;
	if (!iogap_child_wait(&c, iogap_now_ns() + job_limit_ns(s))) {
		bool stuck = !iogap_interrupted();

		if (stuck)
			snapshot_stuck(&c, dir);
		iogap_child_stop(&c, 5000);
		iogap_child_release(&c);
		if (stuck) {
			say_stuck(s, side, p->message, sizeof(p->message));
			return PHASE_FAILED;
		}
		say_interrupted(p, "the probe was stopped");
		return PHASE_INTERRUPTED;
	}
	iogap_child_release(&c);
	p->probe_status = c.status;
	if (c.status == 0) {
		if (c.err_copy_errno)
			warn(s, "%s could not be written: %s", errf, strerror(c.err_copy_errno));
		return PHASE_OK;
	}
	iogap_child_describe(&c, how, sizeof(how));
	/* the kernel points' summary is news, not the reason (probe.err keeps it) */
	drop_lines(c.err_tail, "iogap-probe: kernel points: ");
	n = (size_t)snprintf(p->message, sizeof(p->message), "the probe failed on bare metal (%s): %s",
			     how, c.err_tail[0] ? last_lines(c.err_tail, 4) :
			     no_message(s, c.err_copy_errno, c.signal, false));
	if (c.err_copy_errno && n < sizeof(p->message))
		iogap_seterr(p->message + n, sizeof(p->message) - n, " [%s could not be written: %s]",
			     errf, strerror(c.err_copy_errno));
	return PHASE_FAILED;
}

/* The guest kernel's tracefs (always mounted in iogap's guest; another
 * --kernel may lack it): can the probe record block events there? */
static bool guest_kernel_points(struct run_state *s, struct iogap_ctl *c)
{
	int status = -1;

	if (s->kernel_why[IOGAP_SIDE_VM][0])
		return false;
	if (iogap_ctl_sh(c, "test -e " IOGAP_HOST_TRACEFS "/events/block/block_rq_issue -a -w "
			 IOGAP_HOST_TRACEFS "/instances", &status) || status)
		snprintf(s->kernel_why[IOGAP_SIDE_VM], sizeof(s->kernel_why[0]),
			 "the guest has no tracefs with block events and writable instances at "
			 IOGAP_HOST_TRACEFS);
	return !s->kernel_why[IOGAP_SIDE_VM][0];
}

static int guest_get(struct iogap_ctl *c, const char *dir, const char *name, const char *as)
{
	char path[PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/%s", dir, as ? as : name);
	return iogap_ctl_get(c, name, path);
}

/* The guest kernel's log as vm/dmesg.txt, best effort. */
static void guest_dmesg(struct iogap_ctl *c, const char *vmdir)
{
	int status;

	if (!iogap_ctl_sh(c, "dmesg > /tmp/iogap/dmesg.txt", &status))
		guest_get(c, vmdir, "dmesg.txt", NULL);
}

static void free_env(char **env)
{
	for (size_t i = 0; env[i]; i++)
		free(env[i]);
}

/* NAME=value of the ${NAME}s the job files use, for the guest probe, up to
 * the first one unset here (the probe names it itself), NULL-ended; each
 * malloc'd (free_env).  0, or -1 (nothing to free). */
static int job_env(const struct run_state *s, char *env[65])
{
	size_t k = 0;

	for (; k < s->nr_env && getenv(s->env_names[k]); k++) {
		if (asprintf(&env[k], "%s=%s", s->env_names[k], getenv(s->env_names[k])) < 0) {
			env[k] = NULL;
			free_env(env);
			return -1;
		}
	}
	env[k] = NULL;
	return 0;
}

/* Why the guest's probe failed: the guest kernel's OOM kill first (it
 * leaves no message), then the end of its stderr. */
static int guest_probe_failed(const struct run_state *s, const char *vmdir, char *err,
			      size_t errlen)
{
	char tail[600], oom[512], errf[PATH_MAX + 32];
	int st = s->vm.probe_status;

	guest_oom(vmdir, oom, sizeof(oom));
	if (oom[0] && st == 128 + SIGKILL)
		return iogap_seterr(err, errlen, "the probe was killed in the guest (status %d): the "
				    "guest ran out of memory (vm/dmesg.txt: \"%s\"); give it more with "
				    "--memory (it had %u MiB)", st, oom, s->o.memory_mb);
	snprintf(errf, sizeof(errf), "%s/probe.err", vmdir);
	iogap_tail_file(errf, tail, sizeof(tail), 4);
	drop_lines(tail, "iogap-probe: kernel points: ");
	return iogap_seterr(err, errlen, "the probe failed in the guest (status %d): %s", st,
			    tail[0] ? tail : no_message(s, 0, st == 128 + SIGKILL ? SIGKILL : 0, true));
}

/* Talk to the agent: environment, job files, sync, run, sync, results. */
static int vm_session(struct run_state *s, struct iogap_ctl *c, const char *vmdir, char *err,
		      size_t errlen)
{
	char line[512], runid[32], *argv[64], path[PATH_MAX + 32], names[60][16], guest_dev[64];
	char *env[65];
	int argc = 0, status;
	bool stuck;

	if (iogap_ctl_request(c, "HELLO", line, sizeof(line)) || strncmp(line, "OK ", 3)) {
		snprintf(err, errlen, "guest agent: %s", c->err[0] ? c->err : line);
		return -1;
	}
	snprintf(s->guest_hello, sizeof(s->guest_hello), "%s", line + 3);
	iogap_progress_phase("VM job");   /* the guest has booted and answered */
	if (job_env(s, env) < 0)
		return iogap_seterr(err, errlen, "out of memory");
	if (env[0] && iogap_ctl_env(c, env)) {
		snprintf(err, errlen, "%s", c->err);
		free_env(env);
		return -1;
	}
	free_env(env);
	argv[argc++] = "--eta=never";
	argv[argc++] = "--producer=guest";
	argv[argc++] = "--output-format=normal,json+";
	argv[argc++] = "--output=probe.txt";
	argv[argc++] = "--output-json=probe.json";
	argv[argc++] = "--trace=probe.trace";
	if (guest_kernel_points(s, c))
		argv[argc++] = "--kernel-trace=" IOGAP_KERNEL_TRACE;
	snprintf(runid, sizeof(runid), "--run-id=%" PRIx64, s->run_id);
	argv[argc++] = runid;
	force_filename(guest_dev, sizeof(guest_dev),
		       iogap_target_guest_dev(&s->target, s->o.passthrough));
	argv[argc++] = guest_dev;
	if (s->target.kind == IOGAP_TARGET_ZNS)
		argv[argc++] = "--force=zonemode=zbd";   /* zone size: the device's */
	if (s->o.allow_destroy)
		argv[argc++] = "--allow-destroy-data";
	/* fio deletes a job's file on unlink: never the user's target */
	argv[argc++] = "--force=unlink=0";
	argv[argc++] = "--force=unlink_each_loop=0";
	for (int i = 0; i < s->o.nr_jobs && argc < 60; i++) {
		char *name = names[i];
		size_t len;
		char *text = iogap_read_file(s->o.jobs[i], 0, &len);

		if (!text) {
			snprintf(err, errlen, "%s: %s", s->o.jobs[i], strerror(errno));
			return -1;
		}
		snprintf(name, sizeof(names[i]), "job%d.fio", i);
		if (iogap_ctl_put(c, name, text, len)) {
			free(text);
			snprintf(err, errlen, "%s", c->err);
			return -1;
		}
		free(text);
		argv[argc++] = name;
	}
	argv[argc] = NULL;

	s->n_before = SYNC_ROUNDS;
	if (iogap_ctl_sync(c, s->sync_before, SYNC_ROUNDS)) {
		snprintf(err, errlen, "clock sync: %s", c->err);
		return -1;
	}
	snprintf(path, sizeof(path), "%s/sync-before.txt", vmdir);
	if (iogap_sync_save(path, s->sync_before, s->n_before))
		return iogap_seterr(err, errlen, "%s: %s", path, strerror(errno ? errno : EIO));
	/* the agent stops a stuck probe at the limit: give it time to say so */
	c->deadline_ns = iogap_now_ns() + job_limit_ns(s) + 60000000000ULL;
	if (iogap_ctl_run(c, argv, job_limit_ns(s) / 1000000, &status, &stuck)) {
		snprintf(err, errlen, "running the job in the guest: %s", c->err);
		return -1;
	}
	if (stuck) {   /* what the guest knows of it, best effort */
		guest_get(c, vmdir, STUCK_FILE, NULL);
		guest_get(c, vmdir, "probe.err", NULL);
		guest_dmesg(c, vmdir);
		return say_stuck(s, iogap_side_dir[IOGAP_SIDE_VM], err, errlen);
	}
	s->vm.probe_status = status;
	c->deadline_ns = iogap_now_ns() + 120000000000ULL;
	s->n_after = SYNC_ROUNDS;
	if (iogap_ctl_sync(c, s->sync_after, SYNC_ROUNDS)) {
		snprintf(err, errlen, "clock sync after the job: %s", c->err);
		return -1;
	}
	snprintf(path, sizeof(path), "%s/sync-after.txt", vmdir);
	if (iogap_sync_save(path, s->sync_after, s->n_after))
		return iogap_seterr(err, errlen, "%s: %s", path, strerror(errno ? errno : EIO));
	if (guest_get(c, vmdir, "probe.err", NULL) || guest_get(c, vmdir, "probe.out", NULL))
		goto get_failed;
	guest_dmesg(c, vmdir);
	if (s->vm.probe_status)
		return guest_probe_failed(s, vmdir, err, errlen);
	if (guest_get(c, vmdir, "probe.txt", NULL) || guest_get(c, vmdir, "probe.json", NULL) ||
	    guest_get(c, vmdir, "probe.trace", NULL) ||
	    (!s->kernel_why[IOGAP_SIDE_VM][0] && guest_get(c, vmdir, IOGAP_KERNEL_TRACE, NULL)))
		goto get_failed;
	/* from here on the run is complete, whatever happens to QEMU */
	iogap_progress_message("iogap: results fetched from the guest");
	iogap_ctl_request(c, "QUIT", line, sizeof(line));
	return 0;
get_failed:
	snprintf(err, errlen, "fetching results from the guest: %s", c->err);
	return -1;
}

/* The filter rings live in tmpfs while QEMU runs; a drain thread per ring
 * moves its records to vm/top.trace and vm/bottom.trace so no ring fills. */
static int start_drains(struct run_state *s, const struct iogap_vm *vm, const char *vmdir,
			char *err, size_t errlen)
{
	const char *rings[2] = { vm->top_ring, vm->bottom_ring };
	static const char *names[2] = { "top", "bottom" };

	for (int i = 0; i < 2; i++) {
		char out[PATH_MAX + 32];

		snprintf(out, sizeof(out), "%s/%s.trace", vmdir, names[i]);
		s->drain[i] = iogap_ring_drain_start(rings[i], out, err, errlen);
		if (!s->drain[i])
			return -1;
	}
	return 0;
}

/* 0 when both rings were complete and moved; with err NULL (a failed run),
 * takes whatever is there and only records it. */
static int finish_drains(struct run_state *s, const struct iogap_vm *vm, char *err, size_t errlen)
{
	const char *rings[2] = { vm->top_ring, vm->bottom_ring };
	int rc = 0;

	for (int i = 0; i < 2; i++) {
		char e[512];

		if (!s->drain[i])
			continue;
		if (iogap_ring_drain_finish(s->drain[i], iogap_now_ns() + (err ? 10000000000ULL : 1000000000ULL),
					    &s->ring_records[i], &s->ring_dropped[i], e, sizeof(e)) &&
		    err && !rc)
			rc = iogap_seterr(err, errlen, "filter ring: %s", e);
		s->drain[i] = NULL;
		unlink(rings[i]);
		if (s->ring_dropped[i])
			warn(s, "the %s filter ring dropped %" PRIu64 " records (the drain fell behind): "
			     "those requests are unpaired", i ? "bottom" : "top", s->ring_dropped[i]);
	}
	return rc;
}

/* auto: KVM if a timed test boot works, else TCG with a warning. */
static void choose_accel(struct run_state *s, const struct iogap_vm_config *cfg)
{
	char why[512];

	if (strcmp(s->o.accel, "auto")) {
		s->accel_used = s->o.accel;
	} else if (iogap_kvm_usable(cfg, why, sizeof(why))) {
		s->accel_used = "kvm";
	} else {
		s->accel_used = "tcg";
		snprintf(s->accel_note, sizeof(s->accel_note),
			 "KVM not usable (%.400s): using TCG; timings include emulation", why);
		if (!iogap_interrupted())
			warn(s, "%s", s->accel_note);
	}
}

static bool qemu_gone(void *vm)
{
	return iogap_child_ended(&((struct iogap_vm *)vm)->qemu);
}

/* The guest has given every result: wait for it to power off, stop QEMU if
 * it does not (or on an interrupt), and take the rest of the rings. */
static int finish_vm(struct run_state *s, struct iogap_vm *vm, char *err, size_t errlen)
{
	iogap_progress_phase("draining");
	if (iogap_vm_wait(vm, iogap_now_ns() + 30000000000ULL) < 0) {
		if (iogap_interrupted())
			iogap_progress_message("iogap: interrupted after every result was fetched: "
					       "stopping QEMU and keeping the run");
		else
			warn(s, "the guest did not power off within 30 s after the job: QEMU was "
			     "stopped (every result had been fetched)");
		iogap_vm_kill(vm);
	}
	/* QEMU has closed the rings: take what is left */
	return finish_drains(s, vm, err, errlen);
}

/* Why the VM phase failed: QEMU's own words first when it ended by itself,
 * then what iogap saw, then the guest console. */
static void vm_failure(struct iogap_vm *vm, const char *what, char *err, size_t errlen)
{
	char qemu[1200] = "", console[800];
	bool ended;

	/* a QEMU that died closed the channel a moment before it can be reaped */
	iogap_child_wait(&vm->qemu, iogap_now_ns() + 1000000000ULL);
	/* exit status 0 is the guest powering off: no news */
	ended = iogap_vm_ended(vm, qemu, sizeof(qemu)) && (vm->qemu.signal || vm->qemu.status);

	iogap_vm_kill(vm);
	iogap_tail_file(vm->console, console, sizeof(console), 3);
	if (ended) {
		iogap_seterr(err, errlen, "%s\n(%s)", qemu, what);
	} else {
		char tail[800];

		iogap_seterr(err, errlen, "%s", what);
		iogap_tail_file(vm->stderr_file, tail, sizeof(tail), 3);
		if (tail[0])
			snprintf(err + strlen(err), errlen - strlen(err), "\nQEMU: %s", tail);
	}
	if (console[0])
		snprintf(err + strlen(err), errlen - strlen(err), "\nguest console: %s", console);
}

static enum phase_result run_vm(struct run_state *s, struct phase *p)
{
	char vmdir[PATH_MAX + 8], what[2048];
	struct iogap_vm_config cfg = {
		.qemu = s->qemu.path,
		.kernel = s->kernel, .initrd = s->initrd,
		.filter_so = s->o.passthrough ? NULL : s->qemu.filter, .passthrough = s->o.passthrough,
		.machine = s->o.machine, .smp = s->o.smp, .memory_mb = s->o.memory_mb,
		.cache = s->o.cache, .aio = s->o.aio, .iothread = s->o.iothread,
		.inject_delay_ns = s->o.inject_delay_ns, .ring_size = s->o.ring_size,
		.run_id = s->run_id,
		.mode = "agent", .target = &s->target, .append_extra = s->o.append,
		.read_only = !s->needs.writes,
	};
	struct iogap_vm vm;
	struct iogap_ctl c = { .cancel = iogap_interrupt_flag(), .peer_gone = qemu_gone,
			       .peer_arg = &vm };
	int r;

	snprintf(vmdir, sizeof(vmdir), "%s/%s", s->dir, iogap_side_dir[IOGAP_SIDE_VM]);
	if (mkdir(vmdir, 0755) && errno != EEXIST) {
		iogap_seterr(p->message, sizeof(p->message), "%s: %s", vmdir, strerror(errno));
		return PHASE_FAILED;
	}
	cfg.dir = vmdir;
	iogap_progress_phase("VM boot");   /* the KVM test boot included */
	choose_accel(s, &cfg);
	cfg.accel = s->accel_used;
	if (iogap_interrupted()) {
		say_interrupted(p, "QEMU was not started");
		return PHASE_INTERRUPTED;
	}
	if (iogap_vm_start(&cfg, &vm, p->message, sizeof(p->message)))
		return PHASE_FAILED;
	if (cfg.filter_so && start_drains(s, &vm, vmdir, p->message, sizeof(p->message))) {
		iogap_vm_kill(&vm);
		return PHASE_FAILED;
	}
	if (iogap_ctl_connect(&c, vm.ctl_sock, iogap_now_ns() +
			      (uint64_t)s->o.boot_timeout_s * 1000000000ULL)) {
		snprintf(what, sizeof(what), "QEMU did not start: %s", c.err);
		r = -1;
	} else {
		r = vm_session(s, &c, vmdir, what, sizeof(what));
		iogap_ctl_close(&c);
	}
	unlink(vm.ctl_sock);
	if (!r) {
		if (finish_vm(s, &vm, p->message, sizeof(p->message)))
			return PHASE_FAILED;
		return PHASE_OK;
	}
	if (iogap_interrupted()) {
		iogap_vm_kill(&vm);
		finish_drains(s, &vm, NULL, 0);
		say_interrupted(p, what);
		snprintf(p->message + strlen(p->message), sizeof(p->message) - strlen(p->message),
			 "; QEMU was stopped");
		return PHASE_INTERRUPTED;
	}
	vm_failure(&vm, what, p->message, sizeof(p->message));
	finish_drains(s, &vm, NULL, 0);
	return PHASE_FAILED;
}

/* The end of the guest probe's stderr, as probe.err (best effort: the
 * message of a failure carries it too). */
static void save_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* The top filter's reads and writes, as QEMU's blockstats count them at the
 * device (every request, mean entry to exit): the cross-check beside them. */
static void top_summary(struct run_state *s, const char *vmdir)
{
	char path[PATH_MAX + 32], e[512];
	struct iogap_trace_reader *r;
	const struct iogap_trace_record *recs;
	uint64_t n[2] = { 0 }, ns[2] = { 0 };
	ptrdiff_t got;

	snprintf(path, sizeof(path), "%s/top.trace", vmdir);
	r = iogap_trace_reader_open(path, e, sizeof(e));
	if (!r)
		return;
	while ((got = iogap_trace_reader_batch(r, &recs, e, sizeof(e))) > 0)
		for (ptrdiff_t i = 0; i < got; i++) {
			int op = recs[i].op;

			if (op > IOGAP_OP_WRITE || recs[i].complete_ns < recs[i].start_ns)
				continue;
			n[op]++;
			ns[op] += recs[i].complete_ns - recs[i].start_ns;
		}
	iogap_trace_reader_close(r);
	if (got == 0)
		snprintf(s->top_stats, sizeof(s->top_stats), "reads %" PRIu64 " (mean %.1f us), "
			 "writes %" PRIu64 " (mean %.1f us)", n[0], n[0] ? ns[0] / 1e3 / n[0] : 0.0,
			 n[1], n[1] ? ns[1] / 1e3 / n[1] : 0.0);
}

/* A guest file of this run: /tmp/iogap-<run id>-NAME. */
static void guest_path(const struct run_state *s, const char *name, char *out, size_t len)
{
	snprintf(out, len, "/tmp/iogap-%016" PRIx64 "-%s", s->run_id, name);
}

/* The static probe and the job files into the domain's guest; the probe's
 * command line there into argv (strings in names). */
static int domain_stage(struct run_state *s, const char *argv[64], char names[64][96],
			char *err, size_t errlen)
{
	static const char *const outs[] = { "--output=", "--output-json=", "--trace=" };
	static const char *const files[] = { "probe.txt", "probe.json", "probe.trace" };
	int argc = 0, n = 0;

	guest_path(s, "iogap-probe", names[n], sizeof(names[0]));
	if (iogap_domain_put(s->dom, s->probe_static, names[n], true, err, errlen))
		return -1;
	argv[argc++] = names[n++];
	argv[argc++] = "--eta=never";
	argv[argc++] = "--producer=guest";
	argv[argc++] = "--output-format=normal,json+";
	for (int i = 0; i < 3; i++) {
		char g[80];

		guest_path(s, files[i], g, sizeof(g));
		snprintf(names[n], sizeof(names[0]), "%s%s", outs[i], g);
		argv[argc++] = names[n++];
	}
	snprintf(names[n], sizeof(names[0]), "--run-id=%" PRIx64, s->run_id);
	argv[argc++] = names[n++];
	snprintf(names[n], sizeof(names[0]), "--force=filename=%s", s->guest_dev);
	argv[argc++] = names[n++];
	if (s->o.allow_destroy)
		argv[argc++] = "--allow-destroy-data";
	/* fio deletes a job's file on unlink: never the domain's disk */
	argv[argc++] = "--force=unlink=0";
	argv[argc++] = "--force=unlink_each_loop=0";
	for (int i = 0; i < s->o.nr_jobs && argc < 62; i++) {
		char job[32];

		snprintf(job, sizeof(job), "job%d.fio", i);
		guest_path(s, job, names[n], sizeof(names[0]));
		if (iogap_domain_put(s->dom, s->o.jobs[i], names[n], false, err, errlen))
			return -1;
		argv[argc++] = names[n++];
	}
	argv[argc] = NULL;
	return 0;
}

/* Clock sync rounds through the guest agent into vm/sync-WHEN.txt.  A
 * round takes milliseconds there (iogap's own channel: microseconds), so
 * more of them, and the sets as far apart as the run allows: the drift is
 * estimated from the sets' difference. */
static int domain_sync(struct run_state *s, const char *vmdir, bool after, char *err,
		       size_t errlen)
{
	struct iogap_sync_sample *set = after ? s->sync_after : s->sync_before;
	size_t *n = after ? &s->n_after : &s->n_before;
	char path[PATH_MAX + 32], e[1024];

	iogap_progress_phase("VM clock sync");
	*n = SYNC_ROUNDS / 4;
	if (iogap_domain_sync(s->dom, set, *n, e, sizeof(e)))
		return iogap_seterr(err, errlen, "clock sync%s: %s", after ? " after the job" : "", e);
	snprintf(path, sizeof(path), "%s/sync-%s.txt", vmdir, after ? "after" : "before");
	if (iogap_sync_save(path, set, *n))
		return iogap_seterr(err, errlen, "%s: %s", path, strerror(errno ? errno : EIO));
	return 0;
}

/* The guest's side of the run, filters in: the probe, then the clock sync. */
static int domain_job(struct run_state *s, const char *vmdir, const char *const *argv,
		      char *err, size_t errlen)
{
	char path[PATH_MAX + 32], tail[4096], e[1024], *env[65];
	int status, rc;

	iogap_progress_phase("VM job");
	if (job_env(s, env) < 0)
		return iogap_seterr(err, errlen, "out of memory");
	rc = iogap_domain_exec(s->dom, argv, (const char *const *)env,
			       iogap_now_ns() + job_limit_ns(s), iogap_interrupt_flag(), &status,
			       tail, sizeof(tail), e, sizeof(e));
	free_env(env);
	if (rc)
		return iogap_seterr(err, errlen, "running the probe in the guest: %s", e);
	s->vm.probe_status = status;
	snprintf(path, sizeof(path), "%s/probe.err", vmdir);
	save_text(path, tail);
	if (status) {
		drop_lines(tail, "iogap-probe: kernel points: ");
		return iogap_seterr(err, errlen, "the probe failed in the guest (status %d): %s", status,
				    tail[0] ? last_lines(tail, 4) : "it gave no reason");
	}
	return domain_sync(s, vmdir, true, err, errlen);
}

/* The probe's results out of the guest, its files there removed. */
static int domain_fetch(struct run_state *s, const char *vmdir, char *err, size_t errlen)
{
	static const char *const files[] = { "probe.txt", "probe.json", "probe.trace" };
	const char *rm[8] = { "rm", "-f" };
	char g[4][80], host[PATH_MAX + 32], tail[256], e[512];
	int rc = 0, status;

	for (int i = 0; i < 3; i++) {
		guest_path(s, files[i], g[i], sizeof(g[i]));
		snprintf(host, sizeof(host), "%s/%s", vmdir, files[i]);
		if (!rc && iogap_domain_get(s->dom, g[i], host, e, sizeof(e)))
			rc = iogap_seterr(err, errlen, "fetching %s from the guest: %s", files[i], e);
		rm[2 + i] = g[i];
	}
	guest_path(s, "iogap-probe", g[3], sizeof(g[3]));
	rm[5] = g[3];
	rm[6] = NULL;
	/* the job files too: /tmp/iogap-<id>-job*.fio (no glob without a shell) */
	iogap_domain_exec(s->dom, rm, NULL, iogap_now_ns() + 60000000000ULL, NULL, &status, tail,
			  sizeof(tail), e, sizeof(e));
	for (int i = 0; i < s->o.nr_jobs; i++) {
		char job[32], gj[80];
		const char *rmj[] = { "rm", "-f", gj, NULL };

		snprintf(job, sizeof(job), "job%d.fio", i);
		guest_path(s, job, gj, sizeof(gj));
		iogap_domain_exec(s->dom, rmj, NULL, iogap_now_ns() + 60000000000ULL, NULL, &status, tail,
				  sizeof(tail), e, sizeof(e));
	}
	return rc;
}

/*
 * The VM side in a running libvirt domain (--domain): the probe and jobs
 * copied in through the guest agent, both filters inserted live and
 * drained as iogap's own VM's are, the job, the filters removed (the graph
 * as found), the results fetched, QEMU's statistics of the device beside.
 */
static enum phase_result run_domain(struct run_state *s, struct phase *p)
{
	char vmdir[PATH_MAX + 8], names[64][96], e[2048], path[PATH_MAX + 32];
	const char *argv[64];
	struct iogap_vm rings = { 0 };
	int rc;

	snprintf(vmdir, sizeof(vmdir), "%s/%s", s->dir, iogap_side_dir[IOGAP_SIDE_VM]);
	if (mkdir(vmdir, 0755) && errno != EEXIST) {
		iogap_seterr(p->message, sizeof(p->message), "%s: %s", vmdir, strerror(errno));
		return PHASE_FAILED;
	}
	if (domain_sync(s, vmdir, false, p->message, sizeof(p->message)))
		return PHASE_FAILED;
	iogap_progress_phase("VM: copying the probe into the guest");
	if (domain_stage(s, argv, names, p->message, sizeof(p->message)))
		return PHASE_FAILED;
	if (iogap_domain_stats_begin(s->dom, e, sizeof(e)))
		warn(s, "QEMU's block statistics: %s", e);
	if (iogap_domain_insert(s->dom, rings.top_ring, rings.bottom_ring, p->message,
				sizeof(p->message)))
		return PHASE_FAILED;
	rc = start_drains(s, &rings, vmdir, p->message, sizeof(p->message));
	if (!rc)
		rc = domain_job(s, vmdir, argv, p->message, sizeof(p->message));
	/* out again whatever happened; the graph must be as found */
	if (iogap_domain_remove(s->dom, e, sizeof(e))) {
		if (!rc)
			iogap_seterr(p->message, sizeof(p->message), "removing the filters: %s", e);
		else
			warn(s, "removing the filters: %s", e);
		rc = -1;
	}
	if (finish_drains(s, &rings, rc ? NULL : p->message, sizeof(p->message)))
		rc = -1;
	if (!rc)
		rc = domain_fetch(s, vmdir, p->message, sizeof(p->message));
	if (!rc)
		top_summary(s, vmdir);
	snprintf(path, sizeof(path), "%s/" IOGAP_BLOCKSTATS_FILE, vmdir);
	if (iogap_domain_stats_end(s->dom, path, s->blockstats, sizeof(s->blockstats), e, sizeof(e)))
		warn(s, "QEMU's block statistics: %s", e);
	if (!rc)
		return PHASE_OK;
	if (iogap_interrupted()) {
		say_interrupted(p, p->message);
		return PHASE_INTERRUPTED;
	}
	return PHASE_FAILED;
}

static int align_vm(struct run_state *s, char *err, size_t errlen)
{
	if (iogap_rundir_load(s->dir, &s->rd, err, errlen))
		return -1;
	s->have_pairing = s->rd.have_vm;
	return stage_stats(s, err, errlen);
}

static void phase_json(struct jw *w, const struct phase *p, const struct run_state *s)
{
	jw_obj(w, p->name);
	jw_member(w, IOGAP_MF_STATUS);
	jw_string(w, p->status);
	jw_member(w, IOGAP_MF_MESSAGE);
	jw_string(w, p->message);
	jw_int(w, "probe_status", p->probe_status);
	jw_u64(w, "limit_s", job_limit_ns(s) / 1000000000ULL);
	jw_end(w);
}

/* Per side that ran or will: its kernel trace, or why there is none. */
static void kernel_points_json(struct jw *w, const struct run_state *s)
{
	const struct phase *ph[IOGAP_SIDES] = { [IOGAP_SIDE_VM] = &s->vm,
						[IOGAP_SIDE_BARE] = &s->bare,
						[IOGAP_SIDE_MATCHED] = &s->matched };

	jw_obj(w, IOGAP_MF_KERNEL_POINTS);
	for (int i = 0; i < IOGAP_SIDES; i++) {
		char trace[64] = "";

		if (!strcmp(ph[i]->status, "skipped"))
			continue;
		if (!s->kernel_why[i][0])
			snprintf(trace, sizeof(trace), "%s/" IOGAP_KERNEL_TRACE, iogap_side_dir[i]);
		jw_obj(w, iogap_side_key[i]);
		jw_str(w, IOGAP_MF_KTRACE, trace);
		jw_str(w, IOGAP_MF_KWHY, s->kernel_why[i]);
		jw_end(w);
	}
	if (strcmp(s->vm.status, "skipped")) {
		jw_obj(w, IOGAP_MF_KP_VM_HOST);
		if (!s->host_kernel_why[0])
			jw_str(w, IOGAP_MF_KTRACE, "vm/" IOGAP_HOST_KERNEL_TRACE);
		jw_str(w, IOGAP_MF_KWHY, s->host_kernel_why);
		jw_end(w);
	}
	jw_end(w);
}

static void counts_json(struct jw *w, const char *key, const uint64_t v[IOGAP_PAIR_DIRS])
{
	jw_obj(w, key);
	jw_u64(w, "read", v[IOGAP_PAIR_READ]);
	jw_u64(w, "write", v[IOGAP_PAIR_WRITE]);
	jw_end(w);
}

static void manifest_emit(struct jw *wp, const void *ctx)
{
	const struct run_state *s = ctx;
	struct jw w = *wp;
	char host[256] = "?";
	struct utsname u;
	int argc = s->argc;
	char **argv = s->argv;

	gethostname(host, sizeof(host) - 1);
	uname(&u);
	jw_obj(&w, NULL);
	jw_str(&w, "iogap", IOGAP_VERSION);
	jw_open(&w, "command", '[');
	for (int i = 0; i < argc; i++) {
		jw_member(&w, NULL);
		jw_string(&w, argv[i]);
	}
	jw_close(&w, ']');
	{
		char id[32];

		snprintf(id, sizeof(id), "%016" PRIx64, s->run_id);
		jw_str(&w, IOGAP_MF_RUN_ID, id);
	}
	jw_obj(&w, "host");
	jw_str(&w, "name", host);
	jw_str(&w, "kernel", u.release);
	jw_str(&w, "machine", u.machine);
	jw_end(&w);
	jw_obj(&w, IOGAP_MF_TARGET);
	jw_str(&w, IOGAP_MF_SPEC, s->o.target_spec);
	jw_str(&w, IOGAP_MF_FORMAT, s->target.format);
	if (s->target.kind == IOGAP_TARGET_RBD) {
		char cache[512];
		bool direct = !strcmp(s->o.cache, "none") || !strcmp(s->o.cache, "directsync");

		jw_str(&w, "pool", s->target.pool);
		jw_str(&w, "image", s->target.image);
		jw_str(&w, "conf", s->target.conf[0] ? s->target.conf :
		       getenv("CEPH_CONF") ? getenv("CEPH_CONF") : "");
		jw_str(&w, "id", s->target.id);
		iogap_rbd_cache_settings(&s->target, cache, sizeof(cache));
		jw_str(&w, "rbd_cache_config", cache);
		jw_str(&w, "rbd_cache_vm", direct ? "rbd_cache=false (QEMU, cache.direct)" :
		       "rbd_cache=true (QEMU, no cache.direct)");
		jw_str(&w, "rbd_cache_bare", "rbd_cache=false for jobs with direct=1 (as fio), "
		       "else as rbd_cache_config");
	}
	jw_end(&w);
	jw_obj(&w, IOGAP_MF_VM);
	jw_str(&w, IOGAP_MF_ACCEL, s->accel_used ? s->accel_used : "");
	jw_str(&w, "accel_note", s->accel_note);
	if (s->o.domain) {
		/* the domain's own configuration is the user's: its XML has it */
		jw_u64(&w, "smp", s->o.smp);
		jw_u64(&w, "memory_mb", s->o.memory_mb);
		jw_str(&w, "domain", s->o.domain);
		jw_str(&w, "disk", s->o.disk);
		jw_str(&w, "uri", s->o.uri ? s->o.uri : "");
		jw_str(&w, "guest_dev", s->guest_dev);
		jw_str(&w, "blockstats", s->blockstats);
	} else {
		jw_str(&w, "machine", s->o.machine);
		jw_u64(&w, "smp", s->o.smp);
		jw_u64(&w, "memory_mb", s->o.memory_mb);
		jw_str(&w, "cache", s->o.cache);
		jw_str(&w, "aio", s->o.aio);
		jw_int(&w, "iothread", s->o.iothread);
		jw_str(&w, "kernel", s->kernel);
		jw_str(&w, "initrd", s->initrd);
		jw_member(&w, "filter");   /* "" without filter nodes: the schema requires it */
		jw_string(&w, s->qemu.filter);
		jw_str(&w, IOGAP_MF_FILTER_STAMP, s->qemu.filter[0] ? s->qemu.stamp : "");
		jw_str(&w, IOGAP_MF_QEMU, s->qemu.path);
		jw_str(&w, IOGAP_MF_QEMU_VERSION, s->qemu.version);
		jw_str(&w, IOGAP_MF_QEMU_STAMP, s->qemu.stamp);
		if (s->o.passthrough)
			jw_str(&w, IOGAP_MF_PASSTHROUGH, s->passthrough);
	}
	if (s->o.inject_delay_ns)
		jw_u64(&w, IOGAP_MF_INJECT_DELAY, s->o.inject_delay_ns);
	jw_str(&w, "guest_agent", s->guest_hello);
	jw_u64(&w, "top_records", s->ring_records[0]);
	jw_u64(&w, "top_dropped", s->ring_dropped[0]);
	jw_u64(&w, "bottom_records", s->ring_records[1]);
	jw_u64(&w, "bottom_dropped", s->ring_dropped[1]);
	jw_end(&w);
	jw_obj(&w, IOGAP_MF_PHASES);
	phase_json(&w, &s->bare, s);
	phase_json(&w, &s->vm, s);
	if (s->o.match_load)
		phase_json(&w, &s->matched, s);
	jw_end(&w);
	kernel_points_json(&w, s);
	if (s->have_pairing) {
		const struct iogap_clock_map *m = &s->rd.pairing.map;
		const struct iogap_pair_counts *pc = &s->rd.pairing.counts;

		jw_obj(&w, "clock");
		jw_str(&w, "method", m->method);
		jw_int(&w, "offset_ns", m->offset_ns);
		jw_float(&w, "drift_ppb", m->drift_ppb);
		jw_u64(&w, "ref_host_ns", m->ref_host_ns);
		jw_int(&w, "sync_offset_ns", m->sync_offset_ns);
		jw_u64(&w, "sync_rtt_ns", m->sync_rtt_ns);
		jw_u64(&w, "sync_uncertainty_ns", m->sync_uncertainty_ns);
		jw_int(&w, "bound_lo_ns", m->bound_lo_ns);
		jw_int(&w, "bound_hi_ns", m->bound_hi_ns);
		jw_int(&w, "bound_width_ns", m->bound_hi_ns - m->bound_lo_ns);
		jw_u64(&w, "bound_pairs", m->bound_pairs);
		jw_int(&w, "bound_consistent", m->bound_consistent);
		jw_u64(&w, "order_checked", s->rd.order_checked);
		jw_u64(&w, "order_violations", s->rd.order_violations);
		jw_end(&w);
		jw_obj(&w, "stage_mean_ns");
		for (int d = 0; d < IOGAP_PAIR_DIRS; d++) {
			if (!s->stage_n[d])
				continue;
			jw_obj(&w, d ? "write" : "read");
			jw_u64(&w, "n", s->stage_n[d]);
			for (size_t k = 0; k < s->stages.n; k++)
				if (!(s->stages.s[k].flags & IOGAP_STAGE_DETAIL))
					jw_float(&w, s->stages.s[k].key, s->stage_mean[d][k]);
			jw_end(&w);
		}
		jw_end(&w);
		jw_obj(&w, "pairing");
		counts_json(&w, "guest", pc->guest);
		counts_json(&w, "paired_top", pc->paired_top);
		counts_json(&w, "paired_bottom", pc->paired_bottom);
		counts_json(&w, "exact", pc->exact);
		counts_json(&w, "ambiguous", pc->ambiguous);
		counts_json(&w, "unpaired", pc->unpaired);
		counts_json(&w, "split", pc->split);
		counts_json(&w, "merged", pc->merged);
		jw_u64(&w, "top_unclaimed", pc->top_unclaimed);
		jw_u64(&w, "bottom_unclaimed", pc->bottom_unclaimed);
		jw_end(&w);
	}
	jw_open(&w, "warnings", '[');
	for (size_t i = 0; i < s->nr_warnings && i < MAX_WARNINGS; i++) {
		jw_member(&w, NULL);
		jw_string(&w, s->warnings[i]);
	}
	if (s->nr_warnings > MAX_WARNINGS) {
		char more[64];

		snprintf(more, sizeof(more), "%zu more warnings: on stderr only",
			 s->nr_warnings - MAX_WARNINGS);
		jw_member(&w, NULL);
		jw_string(&w, more);
	}
	jw_close(&w, ']');
	jw_open(&w, "env", '{');
	for (size_t i = 0; i < s->nr_env; i++) {
		const char *v = getenv(s->env_names[i]);

		jw_member(&w, s->env_names[i]);
		jw_string(&w, v ? v : "");
	}
	jw_close(&w, '}');
	jw_end(&w);
	fputc('\n', w.f);
}

/* manifest.json is replaced whole (a temporary file renamed over it): it is
 * always valid JSON, the state at the last step, also after kill -9.  When
 * it cannot be written, stderr says why (once). */
static void write_manifest(struct run_state *s)
{
	char path[PATH_MAX + 32];
	int e;

	snprintf(path, sizeof(path), "%s/" IOGAP_MANIFEST_FILE, s->dir);
	e = jw_save_atomic(path, manifest_emit, s);
	if (e && !s->manifest_failed) {
		fprintf(stderr, "iogap run: cannot write %s: %s\n", path, strerror(e));
		s->manifest_failed = true;
	}
}

/* The clock and the pairing's counts (a VM with filter nodes). */
static void print_pairing(const struct run_state *s)
{
	static const char *dirs[] = { "read", "write" };
	const struct iogap_clock_map *m = &s->rd.pairing.map;
	const struct iogap_pair_counts *pc = &s->rd.pairing.counts;

	printf("  clock: %s, offset %" PRId64 " ns, drift %.1f ppb, bound width %" PRId64
	       " ns%s\n", m->method, m->offset_ns, m->drift_ppb,
	       m->bound_hi_ns - m->bound_lo_ns, m->bound_consistent ? "" : " (INCONSISTENT)");
	for (int d = 0; d < IOGAP_PAIR_DIRS; d++) {
		if (!pc->guest[d])
			continue;
		printf("  %-5s: %" PRIu64 " requests, %" PRIu64 " paired (%" PRIu64
		       " by tag, %" PRIu64 " merged by the guest), %" PRIu64 " ambiguous, %"
		       PRIu64 " unpaired\n", dirs[d], pc->guest[d], pc->paired_top[d],
		       pc->exact[d], pc->merged[d], pc->ambiguous[d], pc->unpaired[d]);
	}
}

/* Until the attribution report lands: mean per stage over exact pairs. */
static void print_summary(struct run_state *s)
{
	static const char *dirs[] = { "read", "write" };

	printf("\niogap run: %s\n", s->dir);
	printf("  bare metal: %s%s%s\n", s->bare.status, s->bare.message[0] ? ": " : "",
	       s->bare.message);
	printf("  VM (%s):    %s%s%s\n", s->accel_used ? s->accel_used : "-", s->vm.status,
	       s->vm.message[0] ? ": " : "", s->vm.message);
	if (s->blockstats[0])
		printf("  QEMU's blockstats of %s: %s (vm/" IOGAP_BLOCKSTATS_FILE ")\n"
		       "  the top filter:           %s\n", s->o.disk, s->blockstats,
		       s->top_stats[0] ? s->top_stats : "-");
	if (!s->have_pairing)
		return;
	if (s->o.passthrough)
		printf("  passthrough: %s (no filter nodes: the VM's stages are the guest's)\n",
		       s->passthrough);
	else
		print_pairing(s);
	for (int d = 0; d < IOGAP_PAIR_DIRS; d++) {
		const char *sep = "";

		if (!s->stage_n[d])
			continue;
		printf("  %-5s mean us: ", dirs[d]);
		for (size_t k = 0; k < s->stages.n; k++) {
			if (s->stages.s[k].flags & IOGAP_STAGE_DETAIL)
				continue;
			printf("%s%s %.1f", sep, s->stages.s[k].key, s->stage_mean[d][k] / 1e3);
			sep = " | ";
		}
		printf(" (n=%" PRIu64 ")\n", s->stage_n[d]);
	}
	if (s->rd.order_checked)
		printf("  clock sanity: %" PRIu64 " of %" PRIu64 " exact pairs out of order\n",
		       s->rd.order_violations, s->rd.order_checked);
}

/* Stage means over the requests with every point of the timeline, outside ramp. */
struct stage_sums {
	const struct iogap_stages *stages;
	double sum[IOGAP_PAIR_DIRS][IOGAP_TL_MAX_STAGES];
	uint64_t *n;
};

static int stage_add(void *ctx, const struct iogap_pair *p)
{
	struct stage_sums *ss = ctx;
	struct iogap_timeline tl;

	iogap_timeline_from_pair(p, &tl);
	if (tl.op >= IOGAP_PAIR_DIRS || tl.flags & IOGAP_REC_RAMP ||
	    !iogap_timeline_complete(&tl, ss->stages))
		return 0;
	for (size_t k = 0; k < ss->stages->n; k++)
		ss->sum[tl.op][k] += (double)iogap_timeline_stage_ns(&tl, &ss->stages->s[k]);
	ss->n[tl.op]++;
	return 0;
}

/* The VM's stages (with the kernel points it has) summed over its pairs. */
static int stage_pass(struct run_state *s, struct stage_sums *ss, char *err, size_t errlen)
{
	iogap_timeline_stages(IOGAP_TL_VM,
			      iogap_timeline_produced_by(IOGAP_TL_VM, s->rd.kernel[IOGAP_SIDE_VM].present,
							 s->rd.host_kernel.present, s->rd.filters),
			      &s->stages);
	return iogap_rundir_each_pair(&s->rd, stage_add, ss, err, errlen);
}

static int stage_stats(struct run_state *s, char *err, size_t errlen)
{
	struct stage_sums ss = { .stages = &s->stages, .n = s->stage_n };

	if (stage_pass(s, &ss, err, errlen))
		return -1;
	/* a kernel trace that matched too few requests: again without it */
	if (iogap_rundir_drop_unmatched_kernel(&s->rd)) {
		ss = (struct stage_sums){ .stages = &s->stages, .n = s->stage_n };
		memset(s->stage_n, 0, sizeof(s->stage_n));
		if (stage_pass(s, &ss, err, errlen))
			return -1;
	}
	for (int d = 0; d < IOGAP_PAIR_DIRS; d++)
		for (size_t k = 0; k < s->stages.n && s->stage_n[d]; k++)
			s->stage_mean[d][k] = ss.sum[d][k] / (double)s->stage_n[d];
	return 0;
}

/* The run could not start: say why in the manifest and on stderr. */
static void setup_failed(struct run_state *s, const char *why)
{
	struct phase *phases[] = { &s->bare, &s->vm };

	for (int i = 0; i < 2; i++) {
		if (strcmp(phases[i]->status, "pending"))
			continue;
		phases[i]->status = "failed";
		iogap_seterr(phases[i]->message, sizeof(phases[i]->message), "not started: %s", why);
	}
	write_manifest(s);
	fprintf(stderr, "iogap run: %s\n(run directory: %s)\n", why, s->dir);
}

static void usage(FILE *f)
{
	fputs("usage: iogap run [options] --target SPEC JOBFILE...\n"
	      "       iogap run [options] --domain DOMAIN --disk DEV [--uri URI] JOBFILE...\n"
	      "  --target file:PATH | dev:PATH | null:SIZE[,latency-ns=N] | zns:PATH[,zone-size=SIZE]\n"
	      "           | rbd:POOL/IMAGE[,conf=CEPH.CONF][,id=USER]\n"
	      "  --domain DOMAIN       the VM side in this running libvirt domain, on its disk\n"
	      "  --disk DEV            DEV (vdb, ...); bare metal runs on the disk's backend; the\n"
	      "                        domain needs `iogap libvirt enable` and qemu-ga\n"
	      "  --uri URI             libvirt connection (default: libvirt's default)\n"
	      "  --dir DIR             run directory (default ./iogap-run-<time>); it must be\n"
	      "                        empty, and one run at a time uses it\n"
	      "  --force               reuse a run directory: an earlier run's files are removed\n"
	      "  --vm-only, --bare-only\n"
	      "  --accel auto|kvm|tcg  (auto: KVM if a test boot works, else TCG)\n"
	      "  --qemu PATH           the qemu-system-x86_64 to run (default $IOGAP_QEMU, else\n"
	      "                        the system's); the filter built for it is chosen\n"
	      "  --cache MODE          none (default), writeback, writethrough, directsync, unsafe\n"
	      "  --aio MODE            native (default), io_uring, threads\n"
	      "  --iothread            virtio-blk in an iothread\n"
	      "  --machine TYPE        default pc\n"
	      "  --smp N --memory MB   default 1, 512\n"
	      "  --kernel PATH --initrd PATH   guest to boot (default: iogap's image)\n"
	      "  --timeout SEC         each side's probe limit (default: twice the jobs'\n"
	      "                        runtime + 120 s; 600 if a job has no runtime)\n"
	      "  --boot-timeout SEC    the guest must answer within this (default 60)\n"
	      "  --append ARGS         more guest kernel command line (e.g. null_blk.zoned=1)\n"
	      "  --allow-destroy-data  write even to a target that holds data\n"
	      "  --ring-size N         records per filter ring in memory (default 262144); the\n"
	      "                        rings are drained into the run directory while QEMU runs\n"
	      "  --repeat N            N runs into DIR/rep-1 ... DIR/rep-N (bare metal, then the\n"
	      "                        VM, each time) and DIR/repeat.json; `iogap compare DIR`\n"
	      "                        pools them as one group\n"
	      "  --match-load          after the VM, bare metal again (bare-matched/) open loop\n"
	      "                        at the IOPS the VM achieved, per job (rate_iops)\n"
	      "  --quiet               no progress line (it is shown only on a terminal)\n"
	      "  --no-kernel-points    no kernel points (block layer issue/complete through\n"
	      "                        tracefs) on either side\n"
	      "  --inject-delay-ns N   test only: the bottom filter sleeps N ns before each\n"
	      "                        request (a known delay in Q.fmt, for accuracy tests)\n"
	      "  --passthrough nvme|BDF  the guest's disk without QEMU's block layer in the\n"
	      "                        data path (no filter nodes): nvme = the target on QEMU's\n"
	      "                        emulated NVMe (a stand-in), BDF = that PCI device given\n"
	      "                        to the guest with vfio-pci (needs --bare-run)\n"
	      "  --bare-run DIR        the bare-metal side is DIR's recorded run (its bare/,\n"
	      "                        run id and, without --target, target)\n", f);
}

/* A whole number in [min, max], or an error naming the option. */
static int parse_number(const char *opt, const char *arg, uint64_t min, uint64_t max,
			uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(arg, &end, 10);
	if (errno || end == arg || *end || arg[0] == '-' || v < min || v > max) {
		fprintf(stderr, "iogap run: --%s '%s': expected a whole number from %" PRIu64
			" to %" PRIu64 "\n", opt, arg, min, max);
		return -1;
	}
	*out = v;
	return 0;
}

/* Options into s->o; -1 when the run goes on, else the exit status. */
static const struct option run_longopts[] = {
	{ "target", required_argument, NULL, 't' },
	{ "dir", required_argument, NULL, 'd' },
	{ "force", no_argument, NULL, 'f' },
	{ "vm-only", no_argument, NULL, 'V' },
	{ "bare-only", no_argument, NULL, 'B' },
	{ "accel", required_argument, NULL, 'a' },
	{ "qemu", required_argument, NULL, 'Q' },
	{ "cache", required_argument, NULL, 'c' },
	{ "aio", required_argument, NULL, 'A' },
	{ "iothread", no_argument, NULL, 'i' },
	{ "machine", required_argument, NULL, 'm' },
	{ "smp", required_argument, NULL, 's' },
	{ "memory", required_argument, NULL, 'M' },
	{ "kernel", required_argument, NULL, 'k' },
	{ "initrd", required_argument, NULL, 'r' },
	{ "timeout", required_argument, NULL, 'T' },
	{ "boot-timeout", required_argument, NULL, 'b' },
	{ "append", required_argument, NULL, 'p' },
	{ "allow-destroy-data", no_argument, NULL, 'D' },
	{ "inject-delay-ns", required_argument, NULL, 'J' },
	{ "ring-size", required_argument, NULL, 'R' },
	{ "match-load", no_argument, NULL, 'L' },
	{ "repeat", required_argument, NULL, 'N' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "no-kernel-points", no_argument, NULL, 'K' },
	{ "passthrough", required_argument, NULL, 'P' },
	{ "bare-run", required_argument, NULL, 'X' },
	{ "domain", required_argument, NULL, 'o' },
	{ "disk", required_argument, NULL, 'g' },
	{ "uri", required_argument, NULL, 'U' },
	{ "help", no_argument, NULL, 'h' },
	{ 0 }
};

/* --passthrough and --bare-run against the rest; 0, or -1 said on stderr. */
static int passthrough_options(struct run_state *s)
{
	const char *pt = s->o.passthrough, *bad = NULL;

	if (pt && strcmp(pt, "nvme") && (!*pt || strlen(pt) > 16 ||
					 strspn(pt, "0123456789abcdefABCDEF:.") != strlen(pt)))
		bad = "--passthrough takes nvme or a PCI address (0000:5e:00.0)";
	else if (pt && (s->o.iothread || s->o.inject_delay_ns))
		bad = "--passthrough has no virtio-blk and no filter: no --iothread or "
		      "--inject-delay-ns";
	else if (vfio(s) && !s->o.bare_run)
		bad = "--passthrough BDF needs --bare-run: the device is the guest's during the run";
	else if (s->o.bare_run && (s->o.vm_only || s->o.bare_only || s->o.match_load ||
				   s->o.repeat))
		bad = "--bare-run is the bare side: no --vm-only, --bare-only, --match-load or "
		      "--repeat";
	if (bad) {
		fprintf(stderr, "iogap run: %s\n", bad);
		return -1;
	}
	if (pt)
		snprintf(s->passthrough, sizeof(s->passthrough), "%s%s",
			 vfio(s) ? "vfio-pci,host=" : "", pt);
	return 0;
}

static bool one_of(const char *v, const char *const *set)
{
	for (; *set; set++)
		if (!strcmp(v, *set))
			return true;
	return false;
}

/* The options that reach QEMU's command line as they are: only their
 * known values (a comma would add options of its own, file.locking=off). */
static bool qemu_options_valid(const struct run_opts *o)
{
	static const char *const caches[] = { "none", "writeback", "writethrough", "directsync",
					      "unsafe", NULL };
	static const char *const aios[] = { "native", "io_uring", "threads", NULL };

	if (!one_of(o->cache, caches)) {
		fprintf(stderr, "iogap run: --cache must be none, writeback, writethrough, directsync "
			"or unsafe\n");
		return false;
	}
	if (!one_of(o->aio, aios)) {
		fprintf(stderr, "iogap run: --aio must be native, io_uring or threads\n");
		return false;
	}
	if (!o->machine[0] || strchr(o->machine, ',')) {
		fprintf(stderr, "iogap run: --machine takes a machine type (no options: no comma)\n");
		return false;
	}
	return true;
}

static int parse_options(struct run_state *s, int argc, char **argv)
{
	int opt, idx;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "", run_longopts, &idx)) != -1) {
		uint64_t v = 0;
		int bad = 0;

		switch (opt) {
		case 't': s->o.target_spec = optarg; break;
		case 'd': s->o.dir = optarg; break;
		case 'f': s->o.force = true; break;
		case 'V': s->o.vm_only = true; break;
		case 'B': s->o.bare_only = true; break;
		case 'a': s->o.accel = optarg; break;
		case 'Q': s->o.qemu = optarg; break;
		case 'c': s->o.cache = optarg; break;
		case 'A': s->o.aio = optarg; break;
		case 'i': s->o.iothread = true; break;
		case 'm': s->o.machine = optarg; break;
		case 'k': s->o.kernel = optarg; break;
		case 'r': s->o.initrd = optarg; break;
		case 'p': s->o.append = optarg; break;
		case 'D': s->o.allow_destroy = true; break;
		case 'L': s->o.match_load = true; break;
		case 'q': s->o.quiet = true; break;
		case 'K': s->o.no_kernel_points = true; break;
		case 'P': s->o.passthrough = optarg; break;
		case 'X': s->o.bare_run = optarg; break;
		case 'o': s->o.domain = optarg; break;
		case 'g': s->o.disk = optarg; break;
		case 'U': s->o.uri = optarg; break;
		case 's': bad = parse_number("smp", optarg, 1, 255, &v); s->o.smp = (unsigned)v; break;
		case 'M': bad = parse_number("memory", optarg, 128, 1u << 20, &v);
			  s->o.memory_mb = (unsigned)v; break;
		case 'T': bad = parse_number("timeout", optarg, 1, 604800, &v);
			  s->o.timeout_s = (unsigned)v; break;
		case 'b': bad = parse_number("boot-timeout", optarg, 1, 604800, &v);
			  s->o.boot_timeout_s = (unsigned)v; break;
		case 'J': bad = parse_number("inject-delay-ns", optarg, 0, 10000000000ULL, &v);
			  s->o.inject_delay_ns = v; break;
		case 'R': bad = parse_number("ring-size", optarg, 2, 1u << 23, &v);
			  s->o.ring_size = (unsigned)v; break;
		case 'N': bad = parse_number("repeat", optarg, 1, IOGAP_REPEAT_MAX, &v);
			  s->o.repeat = (unsigned)v; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
		if (bad)
			return 2;
	}
	s->o.jobs = argv + optind;
	s->o.nr_jobs = argc - optind;
	if (passthrough_options(s))
		return 2;
	if (s->o.domain ? s->o.target_spec || !s->o.disk || s->o.passthrough || s->o.bare_run ||
			  s->o.qemu : s->o.disk || s->o.uri) {
		fprintf(stderr, "iogap run: --domain needs --disk and takes no --target, --passthrough, "
			"--bare-run or --qemu (the domain's <emulator> runs); --disk and --uri go with "
			"--domain\n");
		return 2;
	}
	if ((!s->o.target_spec && !s->o.bare_run && !s->o.domain) || !s->o.nr_jobs) {
		fprintf(stderr, "iogap run: need --target (or --domain) and at least one job file\n");
		usage(stderr);
		return 2;
	}
	if (s->o.domain && s->o.bare_only) {
		fprintf(stderr, "iogap run: --domain runs the VM side; --bare-only excludes it\n");
		return 2;
	}
	if (s->o.vm_only && s->o.bare_only) {
		fprintf(stderr, "iogap run: --vm-only and --bare-only exclude each other\n");
		return 2;
	}
	if (s->o.match_load && (s->o.vm_only || s->o.bare_only)) {
		fprintf(stderr, "iogap run: --match-load needs both phases\n");
		return 2;
	}
	if (strcmp(s->o.accel, "auto") && strcmp(s->o.accel, "kvm") && strcmp(s->o.accel, "tcg")) {
		fprintf(stderr, "iogap run: --accel must be auto, kvm or tcg\n");
		return 2;
	}
	return qemu_options_valid(&s->o) ? -1 : 2;
}

/* --dir, or a new ./iogap-run-<time>[-N]; created, locked, checked. */
static int claim_dir(struct run_state *s)
{
	char err[PATH_MAX + 512], real[PATH_MAX];
	int fd;

	if (s->o.dir) {
		snprintf(s->dir, sizeof(s->dir), "%s", s->o.dir);
	} else {
		time_t t = time(NULL);
		struct tm tm;
		char base[64];

		localtime_r(&t, &tm);
		strftime(base, sizeof(base), "iogap-run-%Y%m%d-%H%M%S", &tm);
		snprintf(s->dir, sizeof(s->dir), "%s", base);
		for (int n = 2; n < 100 && !access(s->dir, F_OK); n++)
			snprintf(s->dir, sizeof(s->dir), "%s-%d", base, n);
	}
	fd = iogap_rundir_claim(s->dir, s->o.force, (const char *const *)s->o.jobs, s->o.nr_jobs,
				 err, sizeof(err));
	if (fd < 0) {
		fprintf(stderr, "iogap run: %s\n", err);
		return -1;
	}
	if (realpath(s->dir, real))
		snprintf(s->dir, sizeof(s->dir), "%s", real);
	return fd;
}

/* --bare-run DIR: its bare phase must have succeeded; its run id becomes
 * this run's (its traces carry it), its target this one's unless given,
 * and its kernel points' reason stays. */
static int load_bare_run(struct run_state *s, char *err, size_t errlen)
{
	const char *dir = s->o.bare_run, *st, *why;
	struct iogap_manifest m;
	int rc = 0;

	if (iogap_manifest_read(dir, &m, err, errlen))
		return -1;
	st = m.phase[IOGAP_SIDE_BARE].status;
	why = m.phase[IOGAP_SIDE_BARE].kernel_why;
	if (!st || strcmp(st, "ok"))
		rc = iogap_seterr(err, errlen, "--bare-run %.3000s: its bare-metal phase is %s, not ok",
				  dir, st ? st : "not recorded");
	else if (!m.run_id || !m.target_spec)
		rc = iogap_seterr(err, errlen, "--bare-run %.3000s: manifest.json has no run id or "
				  "target", dir);
	if (!rc) {
		s->run_id = m.run_id;
		snprintf(s->bare_run_target, sizeof(s->bare_run_target), "%s", m.target_spec);
		if (!s->o.target_spec)
			s->o.target_spec = s->bare_run_target;
		snprintf(s->kernel_why[IOGAP_SIDE_BARE], sizeof(s->kernel_why[0]), "%s",
			 why ? why : "");
	}
	iogap_manifest_free(&m);
	return rc;
}

/* --bare-run: the recorded run's bare/ files become this run's bare side. */
static enum phase_result copy_bare_phase(struct run_state *s, struct phase *p)
{
	char from[PATH_MAX], to[PATH_MAX + 16], real[PATH_MAX];
	DIR *d;
	struct dirent *de;
	int rc = 0;

	snprintf(from, sizeof(from), "%s/%s", s->o.bare_run, iogap_side_dir[IOGAP_SIDE_BARE]);
	snprintf(to, sizeof(to), "%s/%s", s->dir, iogap_side_dir[IOGAP_SIDE_BARE]);
	if (!(d = opendir(from)) || (mkdir(to, 0755) && errno != EEXIST)) {
		iogap_seterr(p->message, sizeof(p->message), "%s: %s", d ? to : from, strerror(errno));
		if (d)
			closedir(d);
		return PHASE_FAILED;
	}
	while (!rc && (de = readdir(d))) {
		char a[PATH_MAX + 300], b[PATH_MAX + 300];
		struct stat st;

		snprintf(a, sizeof(a), "%s/%s", from, de->d_name);
		snprintf(b, sizeof(b), "%s/%s", to, de->d_name);
		if (!stat(a, &st) && S_ISREG(st.st_mode))
			rc = iogap_copy_file(a, b, p->message, sizeof(p->message));
	}
	closedir(d);
	if (!rc)
		snprintf(p->message, sizeof(p->message), "recorded: copied from %.900s",
			 realpath(from, real) ? real : from);
	return rc ? PHASE_FAILED : PHASE_OK;
}

/* Can this host's tracefs record block events in a private instance?  ""
 * or why not, into why.  Mounts tracefs where it is missing
 * (docs/architecture.md, "The host"); $IOGAP_TRACEFS names another place, as for the probe. */
static void host_tracefs(char *why, size_t n)
{
	const char *root = getenv("IOGAP_TRACEFS");
	char p[PATH_MAX];

	if (!root || !*root) {
		root = IOGAP_HOST_TRACEFS;
		snprintf(p, sizeof(p), "%s/events", root);
		if (access(p, F_OK) && mount("nodev", root, "tracefs", 0, NULL))
			snprintf(why, n, "tracefs is not mounted at %s and mounting it failed: %s",
				 root, strerror(errno));
		if (why[0])
			return;
	}
	snprintf(p, sizeof(p), "%.4000s/events/block/block_rq_issue", root);
	if (access(p, F_OK)) {
		snprintf(why, n, "no block tracepoints under %.200s (a kernel without them)", root);
		return;
	}
	snprintf(p, sizeof(p), "%.4000s/instances", root);
	if (access(p, W_OK))
		snprintf(why, n, "%.200s/instances: %s (private tracefs instances need root)", root,
			 strerror(errno));
}

/* A file target's file system must be on a block device the kernel traces. */
static void target_disk(const struct iogap_target *t, char *why, size_t n)
{
	struct stat st;
	char p[128];
	dev_t d;

	if (stat(t->path, &st)) {
		snprintf(why, n, "%.200s: %s", t->path, strerror(errno));
		return;
	}
	d = S_ISBLK(st.st_mode) ? st.st_rdev : st.st_dev;
	snprintf(p, sizeof(p), "/sys/dev/block/%u:%u", major(d), minor(d));
	if (access(p, F_OK))
		snprintf(why, n, "%.200s is on a file system without a block device (tmpfs, a "
			 "network file system, ...): no block events to record", t->path);
}

/* Which sides record kernel points: the VM's unless turned off (the guest
 * is asked when it runs), bare metal's when the host can (kernel_why). */
static void plan_kernel_points(struct run_state *s)
{
	char host[sizeof(s->kernel_why[0])] = "";
	/* a recorded bare run (--bare-run) keeps what it recorded */
	char *bare = s->o.bare_run ? host : s->kernel_why[IOGAP_SIDE_BARE];
	size_t n = sizeof(s->kernel_why[0]);

	if (s->o.no_kernel_points) {
		for (int i = 0; i < IOGAP_SIDES; i++)
			if (i != IOGAP_SIDE_BARE || !s->o.bare_run)
				snprintf(s->kernel_why[i], n, "turned off (--no-kernel-points)");
		snprintf(s->host_kernel_why, n, "turned off (--no-kernel-points)");
		return;
	}
	if (vfio(s))
		snprintf(bare, n, "the device is assigned to the guest (vfio-pci): not the host's");
	else if (s->target.kind == IOGAP_TARGET_NULL)
		snprintf(bare, n, "a null: target: the probe's null engine does no block I/O");
	else if (s->target.kind == IOGAP_TARGET_RBD)
		snprintf(bare, n, "an rbd: target: its I/O goes to the Ceph cluster, not to a "
			 "local block device");
	else
		target_disk(&s->target, bare, n);
	if (!bare[0])
		host_tracefs(bare, n);
	memcpy(s->kernel_why[IOGAP_SIDE_MATCHED], bare, n);
	memcpy(s->host_kernel_why, bare, n);
	if (s->o.passthrough)
		snprintf(s->host_kernel_why, n, "passthrough: QEMU's block layer is not in the data "
			 "path (no bottom filter requests to match the host kernel's with)");
}

/* A file target's extent map, for the analysis to map the file offsets of
 * the bare probe's requests (side bare) or the bottom filter's (side vm)
 * to the disk's (extents.h); taken after the phase, so blocks its jobs
 * allocated are in it.  A failure is a warning: the report then counts the
 * requests as not mapped. */
static void record_extents(struct run_state *s, enum iogap_side side)
{
	char out[PATH_MAX + 64], err[PATH_MAX + 256];
	struct stat st;

	if (stat(s->target.path, &st) || !S_ISREG(st.st_mode))
		return;
	snprintf(out, sizeof(out), "%s/%s/" IOGAP_EXTENTS_FILE, s->dir, iogap_side_dir[side]);
	if (iogap_extents_record(s->target.path, out, err, sizeof(err)))
		warn(s, "kernel points: the target's extent map: %s (%s requests cannot be matched "
		     "with the kernel's)", err, iogap_side_name[side]);
}

/* The host kernel's block events of the target's disk while the VM runs
 * (the same recorder as the probe's, in iogap's own instance), for the
 * QEMU side's kernel and device points; a failure to start is a reason in
 * the manifest, not a failed run. */
static void host_kernel_start(struct run_state *s)
{
	char path[PATH_MAX + 64], err[512];

	if (s->host_kernel_why[0])
		return;
	snprintf(path, sizeof(path), "%s/%s/" IOGAP_HOST_KERNEL_TRACE, s->dir,
		 iogap_side_dir[IOGAP_SIDE_VM]);
	s->host_kernel = iogap_kpoints_start(s->target.path, path, IOGAP_PRODUCER_PROBE_BARE,
					     s->run_id, err, sizeof(err));
	if (!s->host_kernel)
		snprintf(s->host_kernel_why, sizeof(s->host_kernel_why), "%.300s", err);
}

static void host_kernel_stop(struct run_state *s)
{
	char err[512];

	if (!s->host_kernel)
		return;
	if (iogap_kpoints_stop(s->host_kernel, err, sizeof(err)))
		warn(s, "host kernel points: %s", err);
	s->host_kernel = NULL;
	record_extents(s, IOGAP_SIDE_VM);
}

/* --domain: the running domain, its QEMU with the filter, the disk and the
 * guest agent; the disk's backend becomes the target. */
static int open_domain(struct run_state *s, char *err, size_t errlen)
{
	int leftovers = 0;

	s->dom = iogap_domain_open(s->o.uri, s->o.domain, s->o.disk, &leftovers, err, errlen);
	if (!s->dom)
		return -1;
	if (leftovers)
		warn(s, "removed %d iogap filter node%s an earlier run left in domain %s", leftovers,
		     leftovers == 1 ? "" : "s", s->o.domain);
	snprintf(s->domain_target, sizeof(s->domain_target), "%s", iogap_domain_target(s->dom));
	s->accel_used = iogap_domain_accel(s->dom);
	snprintf(s->guest_hello, sizeof(s->guest_hello), "%s", iogap_domain_agent(s->dom));
	{
		uint64_t mb;

		iogap_domain_size(s->dom, &s->o.smp, &mb);
		s->o.memory_mb = (unsigned)mb;
	}
	s->o.target_spec = s->domain_target;
	return 0;
}

/* --domain, once the jobs are known: can the guest write, and may bare
 * metal run on the backend while the domain has it? */
static int check_domain_disk(struct run_state *s, char *err, size_t errlen)
{
	char why[1024];
	int busy;

	if (iogap_domain_guest_dev(s->dom, s->guest_dev, sizeof(s->guest_dev), err, errlen))
		return -1;
	if (strcmp(iogap_domain_format(s->dom), "raw") && !s->o.vm_only)
		return iogap_seterr(err, errlen, "disk %s of domain %s is a %s image: bare metal cannot "
				    "run on it the way the guest sees it; use --vm-only", s->o.disk,
				    s->o.domain, iogap_domain_format(s->dom));
	if (s->needs.writes && iogap_domain_read_only(s->dom))
		return iogap_seterr(err, errlen, "disk %s of domain %s is read-only (<readonly/>) and "
				    "the jobs write", s->o.disk, s->o.domain);
	if (!s->needs.writes || s->o.vm_only)
		return 0;
	/* bare metal writes the backend under the running domain: only when
	 * nothing else writes it (docs/libvirt.md) */
	if (iogap_domain_shareable(s->dom))
		return iogap_seterr(err, errlen, "disk %s of domain %s is <shareable/>: other domains "
				    "may write it while bare metal does; use --vm-only", s->o.disk,
				    s->o.domain);
	busy = iogap_domain_guest_busy(s->dom, s->guest_dev, why, sizeof(why));
	if (busy < 0)
		return iogap_seterr(err, errlen, "is disk %s in use in the guest? %s", s->o.disk, why);
	if (busy)
		return iogap_seterr(err, errlen, "%s: the guest uses the disk for writes while bare "
				    "metal would write it; use --vm-only", why);
	return 0;
}

/* Everything that can be checked before any I/O; 0, or -1 with err. */
static int prepare(struct run_state *s, char *err, size_t errlen)
{
	for (int i = 0; i < s->o.nr_jobs; i++) {
		char dst[PATH_MAX + 32];
		size_t len;
		char *text = iogap_read_file(s->o.jobs[i], 0, &len);

		if (!text)
			return iogap_seterr(err, errlen, "%s: %s", s->o.jobs[i], strerror(errno));
		collect_env_names(s, text);
		free(text);
		snprintf(dst, sizeof(dst), "%s/job%d.fio", s->dir, i);
		if (iogap_copy_file(s->o.jobs[i], dst, err, errlen))
			return -1;
	}
	if ((s->o.bare_run && load_bare_run(s, err, errlen)) ||
	    (s->o.domain && open_domain(s, err, errlen)) || locate(s, err, errlen) ||
	    locate_qemu(s, err, errlen))
		return -1;
	if (vfio(s)) {   /* the device is the guest's: nothing of it to check here */
		plan_kernel_points(s);
		return 0;
	}
	if (iogap_target_parse(s->o.target_spec, &s->target, err, errlen))
		return -1;
	if (s->target.kind == IOGAP_TARGET_FILE && strcmp(s->target.format, "raw") && !s->o.vm_only)
		return iogap_seterr(err, errlen, "%.3000s is a %s image: bare metal cannot run on it the "
				    "way the guest sees it; use --vm-only", s->target.path,
				    s->target.format);
	if (s->target.kind == IOGAP_TARGET_ZNS && s->o.passthrough)
		return iogap_seterr(err, errlen, "a zns: target is QEMU's emulated zoned namespace: "
				    "not with --passthrough");
	if (s->target.kind == IOGAP_TARGET_ZNS && !s->o.bare_only)
		check_zns_depth(s);
	if (iogap_preflight(&s->target, s->o.jobs, s->o.nr_jobs, s->dom != NULL, &s->needs, err,
			    errlen))
		return -1;
	if (s->needs.unlinks[0])
		warn(s, "job '%s' asks for its file to be deleted (unlink): iogap run never deletes "
		     "the target; both sides run with unlink=0", s->needs.unlinks);
	if (s->o.domain && check_domain_disk(s, err, errlen))
		return -1;
	if (!s->o.bare_only && !s->o.domain) {
		/* QEMU must be able to open the target before bare metal runs:
		 * a missing driver module fails here, in seconds */
		struct iogap_vm_config cfg = { .qemu = s->qemu.path, .cache = s->o.cache, .aio = s->o.aio,
					       .target = &s->target, .read_only = !s->needs.writes };

		if (iogap_vm_check_target(&cfg, err, errlen))
			return -1;
	}
	plan_kernel_points(s);   /* last: a refused run mounts nothing */
	if (s->o.domain && !s->kernel_why[IOGAP_SIDE_VM][0])
		snprintf(s->kernel_why[IOGAP_SIDE_VM], sizeof(s->kernel_why[0]),
			 "a libvirt domain's guest: iogap run --domain records no guest kernel points");
	return 0;
}

static void new_run_id(struct run_state *s)
{
	int fd;

	if (s->run_id)
		return;   /* --bare-run's: its traces carry it */
	fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);

	if (fd < 0 || read(fd, &s->run_id, sizeof(s->run_id)) != sizeof(s->run_id))
		s->run_id = iogap_now_ns();
	if (fd >= 0)
		close(fd);
	s->run_id |= 1;
}

/* Host CPU use while a phase runs, into RUN/SIDE/cpuload.txt (cpuload.h). */
static struct iogap_cpuload_sampler *cpu_start(struct run_state *s, const char *side)
{
	char path[PATH_MAX + 32], err[512];
	struct iogap_cpuload_sampler *cpu;

	snprintf(path, sizeof(path), "%s/%s", s->dir, side);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%s/cpuload.txt", s->dir, side);
	cpu = iogap_cpuload_start(path, err, sizeof(err));
	if (!cpu)
		warn(s, "%s", err);
	return cpu;
}

/* One phase, its host CPU use recorded into RUN/SIDE. */
static void run_phase(struct run_state *s, struct phase *p, const char *side,
		      enum phase_result (*fn)(struct run_state *, struct phase *))
{
	static const char *names[] = { [PHASE_OK] = "ok", [PHASE_FAILED] = "failed",
				       [PHASE_INTERRUPTED] = "interrupted" };
	struct iogap_cpuload_sampler *cpu;

	p->status = "running";
	write_manifest(s);
	cpu = cpu_start(s, side);
	p->status = names[fn(s, p)];
	iogap_cpuload_stop(cpu);
	write_manifest(s);
}

/* The probe on bare metal with the locks a QEMU using the target holds:
 * no other VM opens it meanwhile.  Dropped after: iogap's QEMU takes its own. */
static enum phase_result held_probe(struct run_state *s, struct phase *p, enum iogap_side side,
				    char **jobs, int nr_jobs)
{
	bool held = s->target_fd >= 0 && !s->dom &&
		    !iogap_target_hold(s->target_fd, true, s->needs.writes);
	enum phase_result r = run_host_probe(s, p, side, jobs, nr_jobs);

	if (held)
		iogap_target_hold(s->target_fd, false, false);
	return r;
}

static enum phase_result bare_phase(struct run_state *s, struct phase *p)
{
	enum phase_result r = held_probe(s, p, IOGAP_SIDE_BARE, s->o.jobs, s->o.nr_jobs);

	if (r == PHASE_OK && !s->kernel_why[IOGAP_SIDE_BARE][0])
		record_extents(s, IOGAP_SIDE_BARE);
	return r;
}

/* --match-load: bare metal again, open loop at the IOPS the VM achieved,
 * so backend and device stages compare at equal load (docs/reports.md). */
static enum phase_result matched_phase(struct run_state *s, struct phase *p)
{
	char dir[PATH_MAX + 16], *jobs[64] = { NULL }, note[512] = "";
	int n = s->o.nr_jobs < 64 ? s->o.nr_jobs : 64;
	enum phase_result r;

	snprintf(dir, sizeof(dir), "%s/%s", s->dir, iogap_side_dir[IOGAP_SIDE_MATCHED]);
	if (iogap_rundir_rated_jobs(s->dir, s->o.jobs, n, dir, jobs, note, sizeof(note),
				    p->message, sizeof(p->message)))
		return PHASE_FAILED;
	if (note[0])
		warn(s, "--match-load: %s", note);
	r = held_probe(s, p, IOGAP_SIDE_MATCHED, jobs, n);
	for (int i = 0; i < n; i++)
		free(jobs[i]);
	return r;
}

static enum phase_result vm_phase(struct run_state *s, struct phase *p)
{
	enum phase_result r;
	char err[4096];

	host_kernel_start(s);
	r = s->dom ? run_domain(s, p) : run_vm(s, p);
	host_kernel_stop(s);

	if (r == PHASE_OK)
		iogap_progress_phase("analysis");
	if (r == PHASE_OK && align_vm(s, err, sizeof(err))) {
		iogap_seterr(p->message, sizeof(p->message), "alignment: %s", err);
		r = PHASE_FAILED;
	}
	return r;
}

/* A phase that never started because an earlier one ended the run. */
static void not_started(struct phase *p, const char *why)
{
	if (strcmp(p->status, "pending"))
		return;
	p->status = "skipped";
	snprintf(p->message, sizeof(p->message), "not started: %s", why);
}

/* 0 when every phase that ran succeeded; 128 + the signal when one was
 * interrupted; else 1. */
static int exit_status(struct run_state *s)
{
	bool failed = !strcmp(s->bare.status, "failed") || !strcmp(s->vm.status, "failed") ||
		      !strcmp(s->matched.status, "failed");

	if (!strcmp(s->bare.status, "interrupted") || !strcmp(s->vm.status, "interrupted") ||
	    !strcmp(s->matched.status, "interrupted"))
		return 128 + iogap_interrupted();
	if (failed) {
		if (!strcmp(s->bare.status, "failed"))
			fprintf(stderr, "iogap run: bare metal phase failed: %s\n", s->bare.message);
		if (!strcmp(s->vm.status, "failed"))
			fprintf(stderr, "iogap run: VM phase failed: %s\n", s->vm.message);
		if (!strcmp(s->matched.status, "failed"))
			fprintf(stderr, "iogap run: matched-load phase failed: %s\n",
				s->matched.message);
		fprintf(stderr, "iogap run: see %s/manifest.json\n", s->dir);
	}
	return failed ? 1 : 0;
}

/* A target with a path: locked for the whole run (runlock.h). */
static int lock_target(struct run_state *s, char *err, size_t errlen)
{
	if (vfio(s) || s->target.kind == IOGAP_TARGET_NULL || s->target.kind == IOGAP_TARGET_RBD)
		return 0;
	s->target_fd = iogap_target_lock(s->target.path, err, errlen);
	return s->target_fd < 0 ? -1 : 0;
}

static int run_phases(struct run_state *s)
{
	char err[4096] = "";

	s->bare.status = s->o.vm_only ? "skipped" : "pending";
	s->vm.status = s->o.bare_only ? "skipped" : "pending";
	s->matched.status = s->o.match_load ? "pending" : "skipped";
	if (prepare(s, err, sizeof(err)) || lock_target(s, err, sizeof(err))) {
		setup_failed(s, err);
		return iogap_interrupted() ? 128 + iogap_interrupted() : 1;
	}
	new_run_id(s);
	iogap_progress_start(s->o.quiet);
	iogap_progress_phases(!s->o.vm_only + !s->o.bare_only + s->o.match_load);
	if (s->o.bare_run) {
		s->bare.status = copy_bare_phase(s, &s->bare) == PHASE_OK ? "ok" : "failed";
		write_manifest(s);
	} else if (!s->o.vm_only) {
		iogap_progress_next("bare metal");
		run_phase(s, &s->bare, iogap_side_dir[IOGAP_SIDE_BARE], bare_phase);
	}
	if (!strcmp(s->bare.status, "failed"))
		not_started(&s->vm, "the bare-metal phase failed");
	if (!strcmp(s->bare.status, "interrupted"))
		not_started(&s->vm, "interrupted");
	if (!strcmp(s->vm.status, "pending")) {
		iogap_progress_next(NULL);   /* its steps (VM boot, VM job...) name it */
		run_phase(s, &s->vm, iogap_side_dir[IOGAP_SIDE_VM], vm_phase);
	}
	if (strcmp(s->vm.status, "ok"))
		not_started(&s->matched, "the VM phase did not succeed");
	if (!strcmp(s->matched.status, "pending")) {
		iogap_progress_next("bare metal at the VM's IOPS");
		run_phase(s, &s->matched, iogap_side_dir[IOGAP_SIDE_MATCHED], matched_phase);
	}
	iogap_progress_stop();
	write_manifest(s);
	print_summary(s);
	return exit_status(s);
}

/* The arguments of one run of --repeat: every option but --repeat and
 * --dir (parse_options() moved the job files last), then --dir sub and the
 * job files.  NULL on allocation failure. */
static char **repeat_argv(int argc, char **argv, const char *sub, int *nargc)
{
	char **out = calloc((size_t)argc + 3, sizeof(*out));
	int opt, idx, prev = 1, n = 1;

	if (!out)
		return NULL;
	out[0] = argv[0];
	optind = 1;
	while ((opt = getopt_long(argc, argv, "+", run_longopts, &idx)) != -1) {
		bool drop = opt == 'N' || opt == 'd';

		for (int i = prev; i < optind; i++)
			if (!drop)
				out[n++] = argv[i];
		prev = optind;
	}
	out[n++] = "--dir";
	out[n++] = (char *)sub;
	for (int i = optind; i < argc; i++)
		out[n++] = argv[i];
	*nargc = n;
	return out;
}

/*
 * --repeat N: N whole runs (bare metal, then the VM) into s->dir/rep-K,
 * one after the other, so the sides alternate in time and a drift of the
 * machine affects both alike; repeat.json lists them after each run.
 * Stops at an interruption.  The worst exit status.
 */
static int run_repeat(struct run_state *s, int argc, char **argv)
{
	struct iogap_repeat rep = { .planned = s->o.repeat };
	char err[PATH_MAX + 256];
	int worst = 0;

	for (unsigned k = 1; k <= s->o.repeat && !iogap_interrupted(); k++) {
		char sub[PATH_MAX + 32];
		int nargc, rc;
		char **args;

		iogap_repeat_name(&rep, k);
		snprintf(sub, sizeof(sub), "%s/%s", s->dir, rep.name[k - 1]);
		args = repeat_argv(argc, argv, sub, &nargc);
		if (!args)
			return 1;
		fprintf(stderr, "iogap: run %u of %u (%s)\n", k, s->o.repeat, sub);
		rc = iogap_cmd_run(nargc, args);
		free(args);
		rep.status[rep.nr++] = rc;
		worst = rc > worst ? rc : worst;
		if (iogap_repeat_save(s->dir, &rep, err, sizeof(err))) {
			fprintf(stderr, "iogap run: %s\n", err);
			return 1;
		}
	}
	fprintf(stderr, "iogap run: %u of %u runs in %s (compare them: iogap compare %s "
		"[another repeat directory])\n", rep.nr, s->o.repeat, s->dir, s->dir);
	return worst;
}

int iogap_run_scan(int argc, char **argv, const char **dir)
{
	int opt, err = opterr;

	*dir = NULL;
	optind = 1;
	opterr = 0;   /* iogap_cmd_run says what is wrong */
	while ((opt = getopt_long(argc, argv, "", run_longopts, NULL)) != -1)
		if (opt == 'd')
			*dir = optarg;
	opterr = err;
	return optind;
}

int iogap_cmd_run(int argc, char **argv)
{
	struct run_state *s = calloc(1, sizeof(*s));
	int rc, lock_fd;

	if (!s)
		return 1;
	s->o = (struct run_opts){ .accel = "auto", .cache = "none", .aio = "native",
				  .machine = "pc", .smp = 1, .memory_mb = 512,
				  .boot_timeout_s = 60 };
	s->bare = (struct phase){ .name = iogap_side_key[IOGAP_SIDE_BARE], .status = "skipped" };
	s->vm = (struct phase){ .name = iogap_side_key[IOGAP_SIDE_VM], .status = "skipped" };
	s->matched = (struct phase){ .name = iogap_side_key[IOGAP_SIDE_MATCHED],
				     .status = "skipped" };
	s->argc = argc;
	s->argv = argv;
	s->target_fd = -1;
	rc = parse_options(s, argc, argv);
	if (rc >= 0) {
		free(s);
		return rc;
	}
	/* from here on, children are stopped on SIGINT/SIGTERM */
	iogap_catch_interrupts();
	lock_fd = claim_dir(s);
	if (lock_fd < 0) {
		free(s);
		return 1;
	}
	rc = s->o.repeat ? run_repeat(s, argc, argv) : run_phases(s);
	iogap_domain_close(s->dom);
	iogap_rundir_free(&s->rd);
	if (s->target_fd >= 0)
		close(s->target_fd);
	close(lock_fd);
	free(s);
	return rc;
}
