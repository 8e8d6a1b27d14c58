/* SPDX-License-Identifier: MIT */
/*
 * Kernel points through a private tracefs instance (docs/kernel-points.md).
 *
 * The instance is instances/iogap-<pid>: trace_clock mono (the probe's
 * CLOCK_MONOTONIC), block_rq_issue/complete filtered by the disk's dev_t,
 * so nothing else fills its buffers.  A thread wakes every KP_PERIOD_MS,
 * reads the per-CPU binary buffers (trace_pipe_raw: nanosecond stamps, no
 * text formatting) and decodes them with libtraceevent, reading the fields
 * by name from the kernel's own event formats (kernel_raw.c).  Events of
 * all CPUs are merged in stamp order, and each completion is paired with
 * the oldest outstanding issue of the same sector and size, as btt does; a
 * pair is one record of the kernel trace.
 */
#include "kernel_points.h"
#include "kernel_raw.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "trace_file.h"
#include "util.h"

/* per CPU: an event takes ~50-70 bytes in the ring, so ~140k events of
 * slack between two reads; overflow is counted (the stats' overrun), never
 * silent */
#define KP_BUFFER_KIB 8192
/* The reader's sleep between two reads of the buffers: ~20 wakeups a
 * second, while a CPU would need ~1 s at 100k requests/s to fill its 8 MiB. */
#define KP_PERIOD_MS 50

struct outstanding {
	uint64_t sector, ns;
	uint32_t nr_sector;
	uint8_t op, fua;
};

/* One CPU's buffer and its events read, not yet paired: in stamp order
 * (the ring buffer stamps by deltas from the page's stamp: never backwards
 * within a CPU). */
struct cpu_pipe {
	char name[16];                  /* cpuN */
	int fd;                         /* its trace_pipe_raw */
	struct iogap_kevent *q;
	size_t head, n, cap;
	int oom;
};

struct iogap_kpoints {
	char dir[512];                  /* the instance's directory */
	struct iogap_trace_writer *w;
	struct iogap_kdecoder *dec;
	pthread_t reader;
	atomic_bool stop;
	int wake_fd;                    /* eventfd: the stop wakes the reader */
	struct cpu_pipe *cpu;
	size_t ncpu, capcpu;
	void *page;
	struct outstanding *out;        /* issued, not completed: oldest first */
	size_t nout, capout;
	struct iogap_trace_record *done;   /* paired, appended at the end of a read */
	size_t ndone, capdone;
	uint64_t requests, lost, orphan_completes, late, last_ns, bad_pages;
	char bad[256];                  /* the first bad page's reason */
	int write_error;
};

const char *iogap_kpoints_tracefs(char *why, size_t whylen)
{
	const char *root = getenv("IOGAP_TRACEFS");
	char p[512];

	if (!root || !*root)
		root = IOGAP_TRACEFS;
	snprintf(p, sizeof(p), "%s/events/block/block_rq_issue", root);
	if (access(p, F_OK)) {
		snprintf(why, whylen, "no block tracepoints under %s (tracefs not mounted: "
			 "mount -t tracefs nodev %s; or a kernel without them)", root, root);
		return NULL;
	}
	snprintf(p, sizeof(p), "%s/instances", root);
	if (access(p, W_OK)) {
		snprintf(why, whylen, "%s: %s (private tracefs instances need root)", p,
			 strerror(errno));
		return NULL;
	}
	return root;
}

static int write_file(const char *dir, const char *name, const char *val, char *err,
		      size_t errlen)
{
	char p[768];
	int fd, ok;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	fd = open(p, O_WRONLY | O_TRUNC | O_CLOEXEC);
	ok = fd >= 0 && write(fd, val, strlen(val)) == (ssize_t)strlen(val);
	if (!ok)
		snprintf(err, errlen, "%s: writing '%s': %s", p, val, strerror(errno));
	if (fd >= 0)
		close(fd);
	return ok ? 0 : -1;
}

static int read_sysfs(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	bool ok = f && fgets(buf, (int)len, f);

	if (f)
		fclose(f);
	return ok ? 0 : -1;
}

/* The whole disk under target and the sector where target's device starts on
 * it (a partition's start; 0 for a disk).  A file maps to its file system's
 * device: its offsets are not the disk's (iogap run maps a file's offsets through FIEMAP). */
static int target_disk(const char *target, unsigned *maj, unsigned *min, uint64_t *base,
		       const char **kind, char *err, size_t errlen)
{
	struct stat st;
	char p[256], buf[64];
	dev_t d;

	if (stat(target, &st)) {
		snprintf(err, errlen, "kernel points: %s: %s", target, strerror(errno));
		return -1;
	}
	d = S_ISBLK(st.st_mode) ? st.st_rdev : st.st_dev;
	*kind = S_ISBLK(st.st_mode) ? "disk" : "file";
	*maj = major(d);
	*min = minor(d);
	*base = 0;
	snprintf(p, sizeof(p), "/sys/dev/block/%u:%u/partition", *maj, *min);
	if (access(p, F_OK))
		return 0;
	snprintf(p, sizeof(p), "/sys/dev/block/%u:%u/start", *maj, *min);
	if (read_sysfs(p, buf, sizeof(buf)) == 0)
		*base = strtoull(buf, NULL, 10);
	snprintf(p, sizeof(p), "/sys/dev/block/%u:%u/../dev", *maj, *min);
	if (read_sysfs(p, buf, sizeof(buf)) || sscanf(buf, "%u:%u", maj, min) != 2) {
		snprintf(err, errlen, "kernel points: %s: no whole disk found for its partition",
			 target);
		return -1;
	}
	if (S_ISBLK(st.st_mode))
		*kind = "partition";
	return 0;
}

/* Instances named iogap-<pid> whose process is gone: left by a probe that
 * was killed.  Another live probe's instance is never touched. */
static void clean_stale(const char *root)
{
	char p[512];
	DIR *d;
	struct dirent *e;

	snprintf(p, sizeof(p), "%s/instances", root);
	d = opendir(p);
	while (d && (e = readdir(d))) {
		char *end;
		long pid;

		if (strncmp(e->d_name, "iogap-", 6))
			continue;
		pid = strtol(e->d_name + 6, &end, 10);
		if (*end || pid <= 0 || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		snprintf(p, sizeof(p), "%s/instances/%s", root, e->d_name);
		rmdir(p);
	}
	if (d)
		closedir(d);
}

static void hold(void *arg, const struct iogap_kevent *ev)
{
	struct cpu_pipe *c = arg;
	struct iogap_kevent *q = iogap_grow_zeroed(c->q, &c->cap, sizeof(*q), c->n);

	if (!q) {
		c->oom = 1;
		return;
	}
	c->q = q;
	q[c->n++] = *ev;
}

static int remember_issue(struct iogap_kpoints *k, const struct iogap_kevent *ev)
{
	struct outstanding *o = iogap_grow_zeroed(k->out, &k->capout, sizeof(*o), k->nout);

	if (!o)
		return -1;
	k->out = o;
	o[k->nout++] = (struct outstanding){ .sector = ev->sector, .ns = ev->ns,
		.nr_sector = ev->nr_sector, .op = ev->op, .fua = ev->fua };
	return 0;
}

/* Outstanding requests are few (the device's queue depth): a scan is cheap. */
static void complete(struct iogap_kpoints *k, const struct iogap_kevent *ev)
{
	struct iogap_trace_record r = { 0 }, *done;
	size_t i = 0;

	while (i < k->nout && (k->out[i].sector != ev->sector ||
			       k->out[i].nr_sector != ev->nr_sector))
		i++;
	if (i == k->nout) {
		k->orphan_completes++;   /* issued before the instance was recording */
		return;
	}
	r.offset = k->out[i].sector * 512;
	r.length = k->out[i].nr_sector * 512;
	r.start_ns = r.issue_ns = k->out[i].ns;
	r.complete_ns = ev->ns;
	r.result = ev->error ? -abs(ev->error) : (int32_t)r.length;
	r.op = k->out[i].op;
	r.flags = k->out[i].fua ? IOGAP_REC_FUA : 0;
	memmove(&k->out[i], &k->out[i + 1], (k->nout - i - 1) * sizeof(*k->out));
	k->nout--;
	k->requests++;
	done = iogap_grow_zeroed(k->done, &k->capdone, sizeof(*done), k->ndone);
	if (!done) {
		k->write_error = 1;
		return;
	}
	k->done = done;
	done[k->ndone++] = r;
}

static void take_event(struct iogap_kpoints *k, const struct iogap_kevent *ev)
{
	k->late += ev->ns < k->last_ns;   /* after a later one was paired */
	k->last_ns = ev->ns > k->last_ns ? ev->ns : k->last_ns;
	if (ev->complete)
		complete(k, ev);
	else if (remember_issue(k, ev))
		k->write_error = 1;
}

/* The CPU whose next event is the oldest, NULL when all are taken: a scan,
 * the CPUs are few. */
static struct cpu_pipe *oldest(struct iogap_kpoints *k)
{
	struct cpu_pipe *first = NULL;

	for (size_t i = 0; i < k->ncpu; i++) {
		struct cpu_pipe *c = &k->cpu[i];

		if (c->head < c->n && (!first || c->q[c->head].ns < first->q[first->head].ns))
			first = c;
	}
	return first;
}

/* Pair the events stamped before horizon, merged in stamp order; the later
 * ones wait: another CPU's events before them may not be read yet. */
static void pair_before(struct iogap_kpoints *k, uint64_t horizon)
{
	struct cpu_pipe *c;

	while ((c = oldest(k)) && c->q[c->head].ns < horizon)
		take_event(k, &c->q[c->head++]);
	if (k->ndone && iogap_trace_writer_append(k->w, k->done, k->ndone))
		k->write_error = 1;
	k->ndone = 0;
	for (size_t i = 0; i < k->ncpu; i++) {
		c = &k->cpu[i];
		if (c->head && c->n > c->head)   /* c->q is NULL before a CPU's first event */
			memmove(c->q, c->q + c->head, (c->n - c->head) * sizeof(*c->q));
		c->n -= c->head;
		c->head = 0;
		k->write_error |= c->oom;
	}
}

static void bad_page(struct iogap_kpoints *k, const char *cpu, const char *why)
{
	if (!k->bad_pages++)
		snprintf(k->bad, sizeof(k->bad), "%s: %s", cpu, why);
}

/* Read every page the CPUs' buffers hold now (the writer's page partly
 * filled included), then pair what is before horizon.  At most a whole
 * buffer per CPU while tracing is on (the last drain, horizon UINT64_MAX,
 * reads all): a CPU writing as fast as this reads cannot keep the reader
 * from its stop. */
static void drain(struct iogap_kpoints *k, uint64_t horizon)
{
	size_t psize = iogap_kdecoder_page_size(k->dec);
	size_t max_reads = horizon == UINT64_MAX ? SIZE_MAX : KP_BUFFER_KIB * 1024 / psize;
	char why[200];

	for (size_t c = 0; c < k->ncpu; c++) {
		size_t reads = 0;
		ssize_t n = 0;

		while (reads++ < max_reads && (n = read(k->cpu[c].fd, k->page, psize)) > 0)
			if (iogap_kdecoder_page(k->dec, k->page, (size_t)n, hold, &k->cpu[c], why,
						sizeof(why)) < 0)
				bad_page(k, k->cpu[c].name, why);
		/* empty: EAGAIN; ENODEV: an offline CPU, no buffer */
		if (n < 0 && errno != EAGAIN && errno != ENODEV && errno != EINTR)
			bad_page(k, k->cpu[c].name, strerror(errno));
	}
	pair_before(k, horizon);
}

/* Wakes every KP_PERIOD_MS (or at the stop); an event stamped before the
 * previous wakeup was committed before this read began, unless its CPU
 * stalled a whole period between stamping and committing it. */
static void *reader(void *arg)
{
	struct iogap_kpoints *k = arg;
	struct pollfd pfd = { .fd = k->wake_fd, .events = POLLIN };
	uint64_t horizon = 0;

	while (!atomic_load(&k->stop)) {
		uint64_t now = iogap_now_ns();

		drain(k, horizon);
		horizon = now;
		poll(&pfd, 1, KP_PERIOD_MS);
	}
	return NULL;
}

/* The instance's per_cpu/cpuN/trace_pipe_raw, opened non-blocking. */
static int open_cpu_pipes(struct iogap_kpoints *k, char *err, size_t errlen)
{
	char p[768];
	DIR *d;
	struct dirent *e;
	int ret = 0;

	snprintf(p, sizeof(p), "%s/per_cpu", k->dir);
	d = opendir(p);
	if (!d)
		return iogap_seterr(err, errlen, "kernel points: %s: %s", p, strerror(errno));
	while (!ret && (e = readdir(d))) {
		struct cpu_pipe *c;

		if (strncmp(e->d_name, "cpu", 3))
			continue;
		c = iogap_grow_zeroed(k->cpu, &k->capcpu, sizeof(*c), k->ncpu);
		if (!c) {
			ret = iogap_seterr(err, errlen, "out of memory");
			break;
		}
		k->cpu = c;
		c = &k->cpu[k->ncpu];
		snprintf(c->name, sizeof(c->name), "%.15s", e->d_name);
		snprintf(p, sizeof(p), "%s/per_cpu/%s/trace_pipe_raw", k->dir, c->name);
		c->fd = open(p, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (c->fd < 0)
			ret = iogap_seterr(err, errlen, "kernel points: %s: %s", p, strerror(errno));
		else
			k->ncpu++;
	}
	closedir(d);
	if (!ret && !k->ncpu)
		ret = iogap_seterr(err, errlen, "kernel points: no CPU under %s/per_cpu", k->dir);
	return ret;
}

/* The events the CPUs' buffers lost, from their stats. */
static int count_lost(struct iogap_kpoints *k, char *err, size_t errlen)
{
	for (size_t c = 0; c < k->ncpu; c++) {
		char p[768], *stats;

		snprintf(p, sizeof(p), "%s/per_cpu/%s/stats", k->dir, k->cpu[c].name);
		stats = iogap_read_file(p, 1 << 16, NULL);
		if (!stats)
			return iogap_seterr(err, errlen, "kernel points: %s: %s", p,
					    strerror(errno));
		k->lost += iogap_kstats_lost(stats);
		free(stats);
	}
	return 0;
}

static int setup_instance(struct iogap_kpoints *k, const char *root, unsigned maj,
			  unsigned min, char *err, size_t errlen)
{
	char filter[64], kib[16];

	snprintf(kib, sizeof(kib), "%d", KP_BUFFER_KIB);
	snprintf(k->dir, sizeof(k->dir), "%s/instances/iogap-%d", root, (int)getpid());
	rmdir(k->dir);   /* our own pid's, left by an exec'd predecessor */
	if (mkdir(k->dir, 0700)) {
		snprintf(err, errlen, "kernel points: mkdir %s: %s", k->dir, strerror(errno));
		k->dir[0] = '\0';
		return -1;
	}
	snprintf(filter, sizeof(filter), "dev == %" PRIu64, ((uint64_t)maj << 20) | min);
	if (write_file(k->dir, "trace_clock", "mono", err, errlen) ||
	    write_file(k->dir, "buffer_size_kb", kib, err, errlen) ||
	    write_file(k->dir, "events/block/block_rq_issue/filter", filter, err, errlen) ||
	    write_file(k->dir, "events/block/block_rq_complete/filter", filter, err, errlen))
		return -1;
	k->dec = iogap_kdecoder_open(k->dir, err, errlen);
	if (!k->dec || open_cpu_pipes(k, err, errlen))
		return -1;
	k->page = malloc(iogap_kdecoder_page_size(k->dec));
	k->wake_fd = eventfd(0, EFD_CLOEXEC);
	if (!k->page || k->wake_fd < 0)
		return iogap_seterr(err, errlen, "kernel points: %s", strerror(errno));
	return write_file(k->dir, "events/block/block_rq_issue/enable", "1", err, errlen) ||
	       write_file(k->dir, "events/block/block_rq_complete/enable", "1", err, errlen);
}

static void teardown(struct iogap_kpoints *k)
{
	for (size_t c = 0; c < k->ncpu; c++) {
		close(k->cpu[c].fd);
		free(k->cpu[c].q);
	}
	if (k->wake_fd >= 0)
		close(k->wake_fd);
	if (k->dir[0]) {
		char e[64];

		/* events off first: an instance with enabled events is busy */
		write_file(k->dir, "events/block/enable", "0", e, sizeof(e));
		rmdir(k->dir);
	}
	iogap_kdecoder_free(k->dec);
	free(k->cpu);
	free(k->page);
	free(k->out);
	free(k->done);
	free(k);
}

static int open_kernel_trace(struct iogap_kpoints *k, const char *target, const char *path,
			     enum iogap_producer producer, uint64_t run_id, unsigned maj,
			     unsigned min, uint64_t base, const char *kind, char *err,
			     size_t errlen)
{
	struct iogap_trace_header h = { 0 };
	char info[1024];

	h.producer = (uint16_t)producer;
	h.clock = producer == IOGAP_PRODUCER_PROBE_GUEST ? IOGAP_CLOCK_GUEST_MONOTONIC :
		  IOGAP_CLOCK_HOST_MONOTONIC;
	h.run_id = run_id;
	h.start_ns = iogap_now_ns();
	snprintf(h.layer, sizeof(h.layer), "%s",
		 producer == IOGAP_PRODUCER_PROBE_GUEST ? "guest-kernel" : "bare-kernel");
	snprintf(info, sizeof(info),
		 "tool=iogap-probe kernel points\nrun_id=%016" PRIx64 "\nsource=tracefs per-CPU "
		 "trace_pipe_raw\nstamp_resolution_ns=1\ntarget=%s\ntarget_kind=%s\n"
		 "device=%u:%u\nsector_base=%" PRIu64 "\n", run_id, target, kind, maj, min, base);
	k->w = iogap_trace_writer_open(path, &h, info, err, errlen);
	return k->w ? 0 : -1;
}

struct iogap_kpoints *iogap_kpoints_start(const char *target, const char *path,
					  enum iogap_producer producer, uint64_t run_id,
					  char *err, size_t errlen)
{
	char why[256];
	const char *root = iogap_kpoints_tracefs(why, sizeof(why)), *kind;
	struct iogap_kpoints *k;
	unsigned maj, min;
	uint64_t base;

	if (!root) {
		snprintf(err, errlen, "kernel points: %s", why);
		return NULL;
	}
	if (target_disk(target, &maj, &min, &base, &kind, err, errlen))
		return NULL;
	k = calloc(1, sizeof(*k));
	if (!k) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	k->wake_fd = -1;
	clean_stale(root);
	if (setup_instance(k, root, maj, min, err, errlen) ||
	    open_kernel_trace(k, target, path, producer, run_id, maj, min, base, kind, err,
			      errlen)) {
		teardown(k);
		return NULL;
	}
	if (pthread_create(&k->reader, NULL, reader, k)) {
		snprintf(err, errlen, "kernel points: cannot start the reader thread");
		iogap_trace_writer_close(k->w, iogap_now_ns(), 0, why, sizeof(why));
		teardown(k);
		return NULL;
	}
	return k;
}

int iogap_kpoints_stop(struct iogap_kpoints *k, char *err, size_t errlen)
{
	char e[256];
	int ret = 0;

	atomic_store(&k->stop, true);
	eventfd_write(k->wake_fd, 1);
	pthread_join(k->reader, NULL);
	write_file(k->dir, "tracing_on", "0", e, sizeof(e));
	drain(k, UINT64_MAX);
	if (k->write_error)
		ret = iogap_seterr(err, errlen, "kernel points: a write error (disk or memory)");
	else if (k->bad_pages)
		ret = iogap_seterr(err, errlen, "kernel points: %" PRIu64 " pages of the kernel's "
				   "buffers not understood (the first: %s)", k->bad_pages, k->bad);
	else
		ret = count_lost(k, err, errlen);
	/* lost events are the trace's dropped; the rest is said, not hidden */
	if (iogap_trace_writer_close(k->w, iogap_now_ns(), k->lost, e, sizeof(e)) && !ret) {
		snprintf(err, errlen, "kernel points: %s", e);
		ret = -1;
	}
	if (!ret && (k->lost || k->nout || k->orphan_completes || k->late))
		fprintf(stderr, "%s: kernel points: %" PRIu64 " requests, %" PRIu64
			" events lost, %zu issued but not completed, %" PRIu64
			" completed but issued before recording, %" PRIu64 " events read after "
			"later ones were paired\n", program_invocation_short_name, k->requests, k->lost, k->nout,
			k->orphan_completes, k->late);
	teardown(k);
	return ret;
}
