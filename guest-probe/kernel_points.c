/* SPDX-License-Identifier: MIT */
/*
 * Kernel points through a private tracefs instance (docs/kernel-points.md).
 *
 * The instance is instances/iogap-<pid>: trace_clock mono (the probe's
 * CLOCK_MONOTONIC), block_rq_issue/complete filtered by the disk's dev_t,
 * so nothing else fills its buffers.  A thread reads the text trace_pipe
 * (microsecond stamps: the kernel prints no finer in text) and pairs each
 * completion with the oldest outstanding issue of the same sector and
 * size, as btt does; a pair is one record of the kernel trace.
 */
#include "kernel_points.h"

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
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "trace_file.h"
#include "util.h"

/* per CPU: an event takes ~60 bytes in the ring, so ~140k events of slack
 * between two reads of the pipe; overflow is counted (LOST), never silent */
#define KP_BUFFER_KB "8192"

struct outstanding {
	uint64_t sector, ns;
	uint32_t nr_sector;
	uint8_t op, fua;
};

struct iogap_kpoints {
	char dir[512];                  /* the instance's directory */
	struct iogap_trace_writer *w;
	pthread_t reader;
	atomic_bool stop;
	int pipe_fd;
	char line[4096];
	size_t line_len;
	struct outstanding *out;        /* issued, not completed: oldest first */
	size_t nout, capout;
	uint64_t requests, lost, orphan_completes, unparsed;
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
 * device: its offsets are not the disk's (FIEMAP is issue 13, part 2). */
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

static uint8_t rwbs_op(const char *rwbs, uint32_t nr_sector, uint8_t *fua)
{
	const char *rw = strpbrk(rwbs, "RWDEN");

	*fua = rw && strchr(rw + 1, 'F');
	if (!rw)
		return rwbs[0] == 'F' && nr_sector == 0 ? IOGAP_OP_FLUSH : IOGAP_OP_OTHER;
	switch (*rw) {
	case 'R': return IOGAP_OP_READ;
	case 'W': return IOGAP_OP_WRITE;
	case 'D': return IOGAP_OP_TRIM;
	default: return IOGAP_OP_OTHER;
	}
}

/* "<seconds>.<fraction>" right before ": block_rq_" */
static int parse_stamp(const char *line, const char *colon, uint64_t *ns)
{
	const char *q = colon, *dot;
	uint64_t frac = 0, scale = 1000000000ull;

	while (q > line && q[-1] != ' ')
		q--;
	dot = memchr(q, '.', (size_t)(colon - q));
	if (!dot || dot == q)
		return -1;
	*ns = strtoull(q, NULL, 10) * 1000000000ull;
	for (const char *c = dot + 1; c < colon; c++) {
		if (*c < '0' || *c > '9' || scale == 1)
			return -1;
		scale /= 10;
		frac += (uint64_t)(*c - '0') * scale;
	}
	*ns += frac;
	return 0;
}

int iogap_kevent_parse(const char *line, struct iogap_kevent *ev, uint64_t *lost)
{
	const char *p = strstr(line, ": block_rq_"), *lost_at = strstr(line, "[LOST ");
	char rwbs[16];
	unsigned long long sector;
	int n = 0;

	if (!p) {
		unsigned long nlost;

		if (lost_at && sscanf(lost_at, "[LOST %lu EVENTS]", &nlost) == 1)
			*lost += nlost;
		return 0;
	}
	memset(ev, 0, sizeof(*ev));
	if (parse_stamp(line, p, &ev->ns))
		return -1;
	p += 2;
	if (!strncmp(p, "block_rq_issue: ", 16))
		p += 16;
	else if (!strncmp(p, "block_rq_complete: ", 19))
		p += 19, ev->complete = 1;
	else
		return 0;   /* another block_rq_ event (insert, requeue): not enabled */
	if (sscanf(p, "%u,%u %15s %n", &ev->dev_major, &ev->dev_minor, rwbs, &n) != 3 || !n)
		return -1;
	p = strstr(p + n, ") ");   /* after the bytes (issue) and the (cmd) */
	if (!p || sscanf(p + 2, "%llu + %u", &sector, &ev->nr_sector) != 2)
		return -1;
	ev->sector = sector;
	ev->op = rwbs_op(rwbs, ev->nr_sector, &ev->fua);
	if (ev->complete) {
		const char *e = strrchr(p, '[');

		if (!e || sscanf(e, "[%d]", &ev->error) != 1)
			return -1;
	}
	return 1;
}

static int remember_issue(struct iogap_kpoints *k, const struct iogap_kevent *ev)
{
	if (k->nout == k->capout) {
		size_t cap = k->capout ? 2 * k->capout : 64;
		struct outstanding *o = realloc(k->out, cap * sizeof(*o));

		if (!o)
			return -1;
		k->out = o;
		k->capout = cap;
	}
	k->out[k->nout++] = (struct outstanding){ .sector = ev->sector, .ns = ev->ns,
		.nr_sector = ev->nr_sector, .op = ev->op, .fua = ev->fua };
	return 0;
}

/* Outstanding requests are few (the device's queue depth): a scan is cheap. */
static void complete(struct iogap_kpoints *k, const struct iogap_kevent *ev)
{
	struct iogap_trace_record r = { 0 };
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
	if (iogap_trace_writer_append(k->w, &r, 1))
		k->write_error = 1;
}

static void take_line(struct iogap_kpoints *k, const char *line)
{
	struct iogap_kevent ev;
	int got = iogap_kevent_parse(line, &ev, &k->lost);

	if (got < 0)
		k->unparsed++;
	else if (got > 0 && !ev.complete && remember_issue(k, &ev))
		k->write_error = 1;
	else if (got > 0 && ev.complete)
		complete(k, &ev);
}

/* Read what the pipe holds now; 0 when it is empty (EAGAIN). */
static ssize_t drain_once(struct iogap_kpoints *k)
{
	char buf[65536];
	ssize_t n = read(k->pipe_fd, buf, sizeof(buf));

	for (ssize_t i = 0; i < n; i++) {
		if (buf[i] != '\n') {
			if (k->line_len < sizeof(k->line) - 1)
				k->line[k->line_len++] = buf[i];
			continue;
		}
		k->line[k->line_len] = '\0';
		take_line(k, k->line);
		k->line_len = 0;
	}
	return n < 0 && errno == EAGAIN ? 0 : n;
}

static void *reader(void *arg)
{
	struct iogap_kpoints *k = arg;
	struct pollfd pfd = { .fd = k->pipe_fd, .events = POLLIN };

	while (!atomic_load(&k->stop)) {
		if (poll(&pfd, 1, 100) > 0)
			drain_once(k);
	}
	return NULL;
}

static int setup_instance(struct iogap_kpoints *k, const char *root, unsigned maj,
			  unsigned min, char *err, size_t errlen)
{
	char filter[64], pipe[600];

	snprintf(k->dir, sizeof(k->dir), "%s/instances/iogap-%d", root, (int)getpid());
	rmdir(k->dir);   /* our own pid's, left by an exec'd predecessor */
	if (mkdir(k->dir, 0700)) {
		snprintf(err, errlen, "kernel points: mkdir %s: %s", k->dir, strerror(errno));
		k->dir[0] = '\0';
		return -1;
	}
	snprintf(filter, sizeof(filter), "dev == %" PRIu64, ((uint64_t)maj << 20) | min);
	if (write_file(k->dir, "trace_clock", "mono", err, errlen) ||
	    write_file(k->dir, "buffer_size_kb", KP_BUFFER_KB, err, errlen) ||
	    write_file(k->dir, "events/block/block_rq_issue/filter", filter, err, errlen) ||
	    write_file(k->dir, "events/block/block_rq_complete/filter", filter, err, errlen))
		return -1;
	snprintf(pipe, sizeof(pipe), "%s/trace_pipe", k->dir);
	k->pipe_fd = open(pipe, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (k->pipe_fd < 0) {
		snprintf(err, errlen, "kernel points: %s: %s", pipe, strerror(errno));
		return -1;
	}
	return write_file(k->dir, "events/block/block_rq_issue/enable", "1", err, errlen) ||
	       write_file(k->dir, "events/block/block_rq_complete/enable", "1", err, errlen);
}

static void teardown(struct iogap_kpoints *k)
{
	if (k->pipe_fd >= 0)
		close(k->pipe_fd);
	if (k->dir[0]) {
		char e[64];

		/* events off first: an instance with enabled events is busy */
		write_file(k->dir, "events/block/enable", "0", e, sizeof(e));
		rmdir(k->dir);
	}
	free(k->out);
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
		 "tool=iogap-probe kernel points\nrun_id=%016" PRIx64 "\nsource=tracefs text "
		 "trace_pipe (microsecond stamps)\ntarget=%s\ntarget_kind=%s\ndevice=%u:%u\n"
		 "sector_base=%" PRIu64 "\n", run_id, target, kind, maj, min, base);
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
	k->pipe_fd = -1;
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
	pthread_join(k->reader, NULL);
	write_file(k->dir, "tracing_on", "0", e, sizeof(e));
	while (drain_once(k) > 0)
		;
	if (k->unparsed || k->write_error) {
		snprintf(err, errlen, "kernel points: %" PRIu64 " lines in an unknown format%s",
			 k->unparsed, k->write_error ? ", and a write error" : "");
		ret = -1;
	}
	/* lost events are the trace's dropped; the rest is said, not hidden */
	if (iogap_trace_writer_close(k->w, iogap_now_ns(), k->lost, e, sizeof(e)) && !ret) {
		snprintf(err, errlen, "kernel points: %s", e);
		ret = -1;
	}
	if (!ret && (k->lost || k->nout || k->orphan_completes))
		fprintf(stderr, "iogap-probe: kernel points: %" PRIu64 " requests, %" PRIu64
			" events lost, %zu issued but not completed, %" PRIu64
			" completed but issued before recording\n", k->requests, k->lost, k->nout,
			k->orphan_completes);
	teardown(k);
	return ret;
}
