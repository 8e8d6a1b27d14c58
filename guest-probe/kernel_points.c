/* SPDX-License-Identifier: MIT */
/*
 * Kernel points through a private tracefs instance (docs/kernel-points.md).
 *
 * The instance is instances/iogap-<pid>: trace_clock mono (the probe's
 * CLOCK_MONOTONIC), block_rq_issue/complete filtered by the disk's dev_t,
 * so nothing else fills its buffers.  A thread wakes every KP_PERIOD_MS,
 * reads the per-CPU binary buffers (trace_pipe_raw: nanosecond stamps, no
 * text formatting) and decodes them with libtraceevent, reading the fields
 * by name from the kernel's own event formats.  Events of all CPUs are
 * merged in stamp order, and each completion is paired with the oldest
 * outstanding issue of the same sector and size, as btt does; a pair is
 * one record of the kernel trace.
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
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <traceevent/event-parse.h>
#include <traceevent/kbuffer.h>
#include <unistd.h>

#include "trace_file.h"
#include "util.h"

/* per CPU: an event takes ~50-70 bytes in the ring, so ~140k events of
 * slack between two reads; overflow is counted (the stats' overrun), never
 * silent */
#define KP_BUFFER_KB "8192"
/* The reader's sleep between two reads of the buffers: ~20 wakeups a
 * second, while a CPU would need ~1 s at 100k requests/s to fill its 8 MiB. */
#define KP_PERIOD_MS 50

/* The fields read of one event, found by name in its format. */
struct block_event {
	int id;
	struct tep_format_field *dev, *sector, *nr_sector, *rwbs, *error;
	int need;                       /* bytes of the event the fields span */
};

struct iogap_kdecoder {
	struct tep_handle *tep;
	struct kbuffer *kbuf;
	struct tep_format_field *type;  /* common_type: which event */
	struct block_event issue, complete;
	size_t page_size, header_size;
	unsigned char *page;            /* the page decoded, with a zeroed tail */
};

struct outstanding {
	uint64_t sector, ns;
	uint32_t nr_sector;
	uint8_t op, fua;
};

struct cpu_pipe {
	char name[16];                  /* cpuN */
	int fd;                         /* its trace_pipe_raw */
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
	struct iogap_kevent *pending;   /* read, not yet paired: stamp order unsure */
	size_t npending, cappending;
	struct outstanding *out;        /* issued, not completed: oldest first */
	size_t nout, capout;
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

static int find_field(struct tep_event *ev, const char *name,
		      struct tep_format_field **f, int *need, char *err, size_t errlen)
{
	*f = tep_find_field(ev, name);
	if (!*f)
		return iogap_seterr(err, errlen, "kernel points: block/%s has no field '%s'",
				    ev->name, name);
	if ((*f)->offset + (*f)->size > *need)
		*need = (*f)->offset + (*f)->size;
	return 0;
}

static int load_event(struct iogap_kdecoder *d, const char *dir, const char *name,
		      struct block_event *be, char *err, size_t errlen)
{
	char p[768], *fmt;
	struct tep_event *ev;
	size_t len;

	snprintf(p, sizeof(p), "%s/events/block/%s/format", dir, name);
	fmt = iogap_read_file(p, 1 << 20, &len);
	if (!fmt)
		return iogap_seterr(err, errlen, "kernel points: %s: %s", p, strerror(errno));
	/* the result is not checked: a print format libtraceevent cannot parse
	 * still leaves the event's fields, all that is read here */
	tep_parse_event(d->tep, fmt, len, "block");
	free(fmt);
	ev = tep_find_event_by_name(d->tep, "block", name);
	if (!ev)
		return iogap_seterr(err, errlen, "kernel points: %s: not an event format", p);
	be->id = ev->id;
	be->need = 0;
	d->type = tep_find_common_field(ev, "common_type");
	if (!d->type)
		return iogap_seterr(err, errlen, "kernel points: %s: no common_type", p);
	if (find_field(ev, "dev", &be->dev, &be->need, err, errlen) ||
	    find_field(ev, "sector", &be->sector, &be->need, err, errlen) ||
	    find_field(ev, "nr_sector", &be->nr_sector, &be->need, err, errlen) ||
	    find_field(ev, "rwbs", &be->rwbs, &be->need, err, errlen))
		return -1;
	be->error = NULL;
	return strcmp(name, "block_rq_complete") ? 0 :
	       find_field(ev, "error", &be->error, &be->need, err, errlen);
}

struct iogap_kdecoder *iogap_kdecoder_open(const char *dir, char *err, size_t errlen)
{
	struct iogap_kdecoder *d = calloc(1, sizeof(*d));
	char p[768], *hp = NULL;
	size_t len;

	if (!d || !(d->tep = tep_alloc())) {
		iogap_seterr(err, errlen, "out of memory");
		goto fail;
	}
	tep_set_loglevel(TEP_LOG_NONE);   /* its complaints are said here, once */
	snprintf(p, sizeof(p), "%s/events/header_page", dir);
	hp = iogap_read_file(p, 1 << 16, &len);
	if (!hp) {
		iogap_seterr(err, errlen, "kernel points: %s: %s", p, strerror(errno));
		goto fail;
	}
	if (tep_parse_header_page(d->tep, hp, len, sizeof(long)) ||
	    tep_get_header_page_size(d->tep) <= 0 || tep_get_header_page_size(d->tep) > 8 ||
	    tep_get_sub_buffer_size(d->tep) <= 2 * tep_get_header_page_size(d->tep)) {
		iogap_seterr(err, errlen, "kernel points: %s: not a ring buffer page header", p);
		goto fail;
	}
	/* the page header's commit is a kernel long: kbuffer takes its size */
	tep_set_long_size(d->tep, tep_get_header_page_size(d->tep));
	d->header_size = (size_t)tep_get_header_timestamp_size(d->tep) +
			 (size_t)tep_get_header_page_size(d->tep);
	d->page_size = (size_t)tep_get_sub_buffer_size(d->tep);
	if (load_event(d, dir, "block_rq_issue", &d->issue, err, errlen) ||
	    load_event(d, dir, "block_rq_complete", &d->complete, err, errlen))
		goto fail;
	d->kbuf = tep_kbuffer(d->tep);
	d->page = calloc(1, d->page_size + 64);
	if (!d->kbuf || !d->page) {
		iogap_seterr(err, errlen, "out of memory");
		goto fail;
	}
	free(hp);
	return d;
fail:
	free(hp);
	iogap_kdecoder_free(d);
	return NULL;
}

void iogap_kdecoder_free(struct iogap_kdecoder *d)
{
	if (!d)
		return;
	if (d->kbuf)
		kbuffer_free(d->kbuf);
	if (d->tep)
		tep_free(d->tep);
	free(d->page);
	free(d);
}

size_t iogap_kdecoder_page_size(const struct iogap_kdecoder *d)
{
	return d->page_size;
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

static uint64_t number(struct tep_format_field *f, const void *data)
{
	unsigned long long v = 0;

	tep_read_number_field(f, data, &v);
	return v;
}

/* One event's fields; -1 when it is not one of the two or is too short. */
static int decode_event(const struct iogap_kdecoder *d, const void *data, int size,
			struct iogap_kevent *ev)
{
	int id = (int)number(d->type, data);
	const struct block_event *be = id == d->issue.id ? &d->issue :
				       id == d->complete.id ? &d->complete : NULL;
	char rwbs[32];
	uint64_t dev;

	if (!be || size < be->need)
		return -1;
	memset(ev, 0, sizeof(*ev));
	ev->complete = be == &d->complete;
	dev = number(be->dev, data);
	ev->dev_major = (uint32_t)(dev >> 20);
	ev->dev_minor = (uint32_t)(dev & ((1u << 20) - 1));
	ev->sector = number(be->sector, data);
	ev->nr_sector = (uint32_t)number(be->nr_sector, data);
	if (be->error)
		ev->error = (int32_t)number(be->error, data);
	snprintf(rwbs, sizeof(rwbs), "%.*s", be->rwbs->size, (const char *)data + be->rwbs->offset);
	ev->op = rwbs_op(rwbs, ev->nr_sector, &ev->fua);
	return 0;
}

int iogap_kdecoder_page(struct iogap_kdecoder *d, const void *page, size_t len,
			void (*take)(void *arg, const struct iogap_kevent *ev), void *arg,
			char *err, size_t errlen)
{
	unsigned long long ts;
	uint64_t commit = 0;
	int n = 0;

	if (len < d->header_size || len > d->page_size)
		return iogap_seterr(err, errlen, "a page of %zu bytes (pages are %zu)", len,
				    d->page_size);
	/* the copy's zeroed tail: a bad length in the page cannot lead
	 * libtraceevent past the buffer */
	memcpy(d->page, page, len);
	memset(d->page + len, 0, d->page_size + 64 - len);
	memcpy(&commit, d->page + tep_get_header_timestamp_size(d->tep),
	       (size_t)tep_get_header_page_size(d->tep));
	if ((commit & ((1u << 27) - 1)) > len - d->header_size)   /* kbuffer's commit mask */
		return iogap_seterr(err, errlen, "a page claims %" PRIu64 " bytes of events in %zu",
				    commit & ((1u << 27) - 1), len - d->header_size);
	kbuffer_load_subbuffer(d->kbuf, d->page);
	for (void *data = kbuffer_read_event(d->kbuf, &ts); data;
	     data = kbuffer_next_event(d->kbuf, &ts)) {
		struct iogap_kevent ev;
		int size = kbuffer_event_size(d->kbuf);

		if ((unsigned char *)data + size > d->page + len || decode_event(d, data, size, &ev))
			return iogap_seterr(err, errlen, "an event of type %d, %d bytes, at offset "
					    "%d is not a block request event",
					    (int)number(d->type, data), size,
					    kbuffer_curr_offset(d->kbuf));
		ev.ns = ts;
		take(arg, &ev);
		n++;
	}
	return n;
}

uint64_t iogap_kstats_lost(const char *stats)
{
	static const char *const counted[] = { "overrun: ", "commit overrun: ",
					       "dropped events: " };
	uint64_t lost = 0;

	for (const char *line = stats; line && *line; line = strchr(line, '\n'), line += !!line)
		for (size_t i = 0; i < sizeof(counted) / sizeof(*counted); i++)
			if (!strncmp(line, counted[i], strlen(counted[i])))
				lost += strtoull(line + strlen(counted[i]), NULL, 10);
	return lost;
}

static void hold(void *arg, const struct iogap_kevent *ev)
{
	struct iogap_kpoints *k = arg;
	struct iogap_kevent *p = iogap_grow_zeroed(k->pending, &k->cappending, sizeof(*p),
						   k->npending);

	if (!p) {
		k->write_error = 1;
		return;
	}
	k->pending = p;
	p[k->npending++] = *ev;
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

static int by_stamp(const void *a, const void *b)
{
	uint64_t x = ((const struct iogap_kevent *)a)->ns, y = ((const struct iogap_kevent *)b)->ns;

	return (x > y) - (x < y);
}

/* Pair the held events stamped before horizon, in stamp order; the later
 * ones wait: another CPU's events before them may not be read yet. */
static void pair_before(struct iogap_kpoints *k, uint64_t horizon)
{
	size_t n = 0;

	qsort(k->pending, k->npending, sizeof(*k->pending), by_stamp);
	for (; n < k->npending && k->pending[n].ns < horizon; n++) {
		const struct iogap_kevent *ev = &k->pending[n];

		k->late += ev->ns < k->last_ns;   /* after a later one was paired */
		k->last_ns = ev->ns > k->last_ns ? ev->ns : k->last_ns;
		if (ev->complete)
			complete(k, ev);
		else if (remember_issue(k, ev))
			k->write_error = 1;
	}
	memmove(k->pending, k->pending + n, (k->npending - n) * sizeof(*k->pending));
	k->npending -= n;
}

static void bad_page(struct iogap_kpoints *k, const char *cpu, const char *why)
{
	if (!k->bad_pages++)
		snprintf(k->bad, sizeof(k->bad), "%s: %s", cpu, why);
}

/* Read every page the CPUs' buffers hold now (the writer's page partly
 * filled included), then pair what is before horizon. */
static void drain(struct iogap_kpoints *k, uint64_t horizon)
{
	size_t psize = iogap_kdecoder_page_size(k->dec);
	char why[200];

	for (size_t c = 0; c < k->ncpu; c++) {
		ssize_t n;

		while ((n = read(k->cpu[c].fd, k->page, psize)) > 0)
			if (iogap_kdecoder_page(k->dec, k->page, (size_t)n, hold, k, why,
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
	char filter[64];

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
	for (size_t c = 0; c < k->ncpu; c++)
		close(k->cpu[c].fd);
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
	free(k->pending);
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
		fprintf(stderr, "iogap-probe: kernel points: %" PRIu64 " requests, %" PRIu64
			" events lost, %zu issued but not completed, %" PRIu64
			" completed but issued before recording, %" PRIu64 " events read after "
			"later ones were paired\n", k->requests, k->lost, k->nout,
			k->orphan_completes, k->late);
	teardown(k);
	return ret;
}
