/* SPDX-License-Identifier: MIT */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ringmap.h"
#include "procid.h"
#include "trace_file.h"
#include "util.h"

int iogap_ring_map_open(const char *path, bool writable, struct iogap_ring_map *m,
			char *err, size_t errlen)
{
	struct stat st;
	char why[320];
	int fd = open(path, (writable ? O_RDWR : O_RDONLY) | O_CLOEXEC);

	memset(m, 0, sizeof(*m));
	if (fd < 0 || fstat(fd, &st) < 0) {
		int e = errno;

		if (fd >= 0)
			close(fd);
		return iogap_seterr(err, errlen, "%s: %s", path, strerror(e));
	}
	if ((uint64_t)st.st_size < sizeof(*m->h)) {
		close(fd);
		return iogap_seterr(err, errlen, "%s: shorter than a trace header", path);
	}
	m->size = (size_t)st.st_size;
	m->base = mmap(NULL, m->size, PROT_READ | (writable ? PROT_WRITE : 0), MAP_SHARED, fd, 0);
	close(fd);
	if (m->base == MAP_FAILED) {
		m->base = NULL;
		return iogap_seterr(err, errlen, "%s: mmap: %s", path, strerror(errno));
	}
	m->h = (const void *)m->base;
	if (iogap_trace_header_check(m->base, sizeof(*m->h), m->size, why, sizeof(why)))
		goto fail;
	if (!(m->h->flags & IOGAP_TRACE_F_RING)) {
		snprintf(why, sizeof(why), "not a ring (F_RING not set)");
		goto fail;
	}
	if (iogap_trace_ring_check(m->h, m->size, why, sizeof(why)))
		goto fail;
	m->cap = m->h->record_count;
	/* slots are found by masking the sequence number */
	if (m->cap < 2 || (m->cap & (m->cap - 1))) {
		snprintf(why, sizeof(why), "ring capacity is not a power of two >= 2");
		goto fail;
	}
	m->ctl = (void *)(m->base + m->h->records_offset);
	m->slots = (const void *)(m->base + m->h->records_offset + sizeof(*m->ctl));
	return 0;
fail:
	iogap_seterr(err, errlen, "%s: %s", path, why);
	iogap_ring_map_close(m);
	return -1;
}

void iogap_ring_map_close(struct iogap_ring_map *m)
{
	if (m->base)
		munmap(m->base, m->size);
	memset(m, 0, sizeof(*m));
}

int64_t iogap_ring_map_pending(const struct iogap_ring_map *m, uint64_t *first)
{
	uint64_t w = __atomic_load_n(&m->ctl->write_seq, __ATOMIC_ACQUIRE);
	uint64_t r = __atomic_load_n(&m->ctl->read_seq, __ATOMIC_ACQUIRE);

	if (w < r || w - r > m->cap)
		return -1;
	*first = r;
	return (int64_t)(w - r);
}

void iogap_ring_map_consume(struct iogap_ring_map *m, uint64_t upto)
{
	__atomic_store_n(&m->ctl->read_seq, upto, __ATOMIC_RELEASE);
}

/* ---- the drain -------------------------------------------------------- */

struct iogap_ring_drain {
	pthread_t thread;
	char ring[4096], out[4096];
	struct iogap_ring_map m;
	struct iogap_trace_writer *w;
	_Atomic uint64_t stop_at;   /* 0: run; else: give up waiting at this time */
	uint64_t records;
	char err[512];
	int failed;
};

/* Move what is published; returns the number moved or -1. */
static int64_t drain_once(struct iogap_ring_drain *d)
{
	uint64_t first;
	int64_t n = iogap_ring_map_pending(&d->m, &first);

	if (n < 0) {
		iogap_seterr(d->err, sizeof(d->err), "%s: write_seq/read_seq inconsistent", d->ring);
		return -1;
	}
	for (uint64_t s = first; s < first + (uint64_t)n;) {
		/* contiguous slots up to the wrap, in one append */
		uint64_t idx = s & (d->m.cap - 1), run = d->m.cap - idx;

		if (run > first + (uint64_t)n - s)
			run = first + (uint64_t)n - s;
		if (iogap_trace_writer_append(d->w, &d->m.slots[idx], run)) {
			iogap_seterr(d->err, sizeof(d->err), "%s: cannot write records", d->out);
			return -1;
		}
		s += run;
	}
	iogap_ring_map_consume(&d->m, first + (uint64_t)n);
	d->records += (uint64_t)n;
	return n;
}

static void *drain_main(void *arg)
{
	struct iogap_ring_drain *d = arg;
	struct iogap_trace_header proto;
	char *info;

	/* QEMU creates the ring when it opens the drive */
	while (iogap_ring_map_open(d->ring, true, &d->m, d->err, sizeof(d->err))) {
		uint64_t stop = atomic_load(&d->stop_at);

		if (stop && iogap_now_ns() >= stop) {
			d->failed = 1;
			return NULL;
		}
		usleep(5000);
	}
	d->err[0] = '\0';
	proto = *d->m.h;
	info = strndup((const char *)d->m.base + d->m.h->header_size, d->m.h->info_size);
	if (!info) {
		d->failed = 1;
		return NULL;
	}
	proto.flags = 0;
	d->w = iogap_trace_writer_open(d->out, &proto, info, d->err, sizeof(d->err));
	free(info);
	if (!d->w) {
		d->failed = 1;
		return NULL;
	}
	for (;;) {
		/* the flag first: nothing is published after it is set */
		bool complete = iogap_ring_map_complete(&d->m);
		uint64_t stop = atomic_load(&d->stop_at);
		int64_t n = drain_once(d);

		if (n < 0) {
			d->failed = 1;
			return NULL;
		}
		if (complete || (stop && iogap_now_ns() >= stop))
			return NULL;
		if (n == 0)
			usleep(2000);   /* idle: a few ms of records fit any ring */
	}
}

struct iogap_ring_drain *iogap_ring_drain_start(const char *ring, const char *out,
						char *err, size_t errlen)
{
	struct iogap_ring_drain *d = calloc(1, sizeof(*d));
	int r;

	if (!d) {
		iogap_seterr(err, errlen, "out of memory");
		return NULL;
	}
	snprintf(d->ring, sizeof(d->ring), "%s", ring);
	snprintf(d->out, sizeof(d->out), "%s", out);
	r = pthread_create(&d->thread, NULL, drain_main, d);
	if (r) {
		iogap_seterr(err, errlen, "pthread_create: %s", strerror(r));
		free(d);
		return NULL;
	}
	return d;
}

int iogap_ring_drain_finish(struct iogap_ring_drain *d, uint64_t deadline_ns,
			    uint64_t *records, uint64_t *dropped, char *err, size_t errlen)
{
	int rc = 0;

	atomic_store(&d->stop_at, deadline_ns ? deadline_ns : 1);
	pthread_join(d->thread, NULL);
	*records = d->records;
	*dropped = d->m.ctl ? __atomic_load_n(&d->m.ctl->dropped, __ATOMIC_RELAXED) : 0;
	if (d->failed) {
		rc = iogap_seterr(err, errlen, "%s", d->err[0] ? d->err : "the ring never appeared");
	} else if (!iogap_ring_map_complete(&d->m)) {
		rc = iogap_seterr(err, errlen, "%s: QEMU did not close the ring (it stopped early)",
				  d->ring);
	}
	if (d->w) {
		char cerr[256];

		if (iogap_trace_writer_close(d->w, d->m.h->end_ns ? d->m.h->end_ns : iogap_now_ns(),
					     *dropped, cerr, sizeof(cerr)) && !rc)
			rc = iogap_seterr(err, errlen, "%s: %s", d->out, cerr);
	}
	iogap_ring_map_close(&d->m);
	free(d);
	return rc;
}

/* ---- stale rings ------------------------------------------------------ */

static bool ring_file_name(const char *n)
{
	size_t l = strlen(n);

	return l > strlen("iogap-.ring") && !strncmp(n, "iogap-", 6) && !strcmp(n + l - 5, ".ring");
}

/* The number after "\nKEY=" in info (which starts with a line); false if none. */
static bool info_number(const char *info, const char *key, uint64_t *v)
{
	size_t kl = strlen(key);
	char *end;

	for (const char *p = info; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (strncmp(p, key, kl) || p[kl] != '=')
			continue;
		errno = 0;
		*v = strtoull(p + kl + 1, &end, 10);
		return !errno && end != p + kl + 1 && *end == '\n';
	}
	return false;
}

/*
 * A ring nobody kept: named as the filter names its own without ring=
 * (iogap-<its QEMU's pid>-<node>.ring), or as iogap run names the rings
 * it gives (iogap-<iogap's pid>-<16 hex run id>-top|bottom.ring), that
 * iogap gone.  A ring=PATH the user chose is the user's: never one of these.
 */
static bool unkept_name(const char *name, uint64_t qemu_pid)
{
	char *end;
	unsigned long pid = strtoul(name + strlen("iogap-"), &end, 10);
	size_t hex;

	if (end == name + strlen("iogap-") || *end != '-')
		return false;
	if (pid == qemu_pid)
		return true;
	end++;
	hex = strspn(end, "0123456789abcdef");
	return hex == 16 && (!strcmp(end + hex, "-top.ring") || !strcmp(end + hex, "-bottom.ring")) &&
	       pid <= INT32_MAX && kill((pid_t)pid, 0) && errno == ESRCH;
}

/* Is the open file an unkept iogap filter ring whose writer is gone?  why:
 * for the log. */
static bool writer_gone(int fd, const char *name, const struct stat *st, char *why,
			size_t whylen)
{
	struct iogap_trace_header h;
	char info[4096], bad[320];
	uint64_t pid, pid_start, now_start, keep;
	uint8_t boot[16], none[16] = { 0 };

	if (pread(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h) ||
	    iogap_trace_header_check(&h, sizeof(h), (uint64_t)st->st_size, bad, sizeof(bad)) ||
	    h.producer != IOGAP_PRODUCER_FILTER || !(h.flags & IOGAP_TRACE_F_RING) ||
	    h.info_size >= sizeof(info) ||
	    pread(fd, info, h.info_size, sizeof(h)) != (ssize_t)h.info_size)
		return false;
	info[h.info_size] = '\0';
	if (!info_number(info, "pid", &pid) || !pid || pid > INT32_MAX || !unkept_name(name, pid))
		return false;
	if (info_number(info, "keep", &keep) && keep)
		return false;       /* ring-keep=on: the user's, whatever its name */
	iogap_read_boot_id(boot);
	if (memcmp(boot, none, sizeof(boot)) && memcmp(boot, h.boot_id, sizeof(boot))) {
		snprintf(why, whylen, "written before the last boot");
		return true;
	}
	now_start = iogap_proc_start_time((int)pid);
	if (!now_start) {
		snprintf(why, whylen, "its QEMU, pid %" PRIu64 ", is gone", pid);
		return true;
	}
	if (info_number(info, "pid_start", &pid_start) && pid_start != now_start) {
		snprintf(why, whylen, "its QEMU, pid %" PRIu64 ", is gone (the pid is another "
			 "process now)", pid);
		return true;
	}
	return false;
}

/* Remove dir/name if it is a stale ring; 1 removed, 0 left alone. */
static int remove_if_stale(int dirfd, const char *dir, const char *name, FILE *log)
{
	struct stat st, now;
	char why[128];
	int fd, removed = 0;

	/* never open what is not a regular file: opening a device can act */
	if (!ring_file_name(name) || fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) ||
	    !S_ISREG(st.st_mode) || (st.st_uid != geteuid() && geteuid()))
		return 0;
	fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return 0;
	/* the same file still; then the lock: a QEMU with the ring open holds a
	 * shared one; then the name must still be this file when it goes */
	if (!fstat(fd, &now) && now.st_dev == st.st_dev && now.st_ino == st.st_ino &&
	    !flock(fd, LOCK_EX | LOCK_NB) && writer_gone(fd, name, &st, why, sizeof(why)) &&
	    !fstatat(dirfd, name, &now, AT_SYMLINK_NOFOLLOW) && now.st_dev == st.st_dev &&
	    now.st_ino == st.st_ino && !unlinkat(dirfd, name, 0)) {
		removed = 1;
		if (log)
			fprintf(log, "removed stale ring %s/%s: %s\n", dir, name, why);
	}
	close(fd);
	return removed;
}

int iogap_ring_remove_stale(const char *dir, FILE *log, char *err, size_t errlen)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return iogap_seterr(err, errlen, "%s: %s", dir, strerror(errno));
	while ((e = readdir(d)))
		n += remove_if_stale(dirfd(d), dir, e->d_name, log);
	closedir(d);
	return n;
}
