/* SPDX-License-Identifier: MIT */
/* iogap shared-memory ring writer: setup and teardown (see ring.h). */
#include "ring.h"
#include "procid.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

uint64_t iogap_ring_capacity(uint64_t want)
{
	uint64_t c = 2;
	if (want > (1ull << 30))
		want = 1ull << 30;
	while (c < want)
		c <<= 1;
	return c;
}

static const char *file_kind(mode_t m)
{
	switch (m & S_IFMT) {
	case S_IFREG: return "a regular file";
	case S_IFLNK: return "a symbolic link";
	case S_IFCHR: return "a character device";
	case S_IFBLK: return "a block device";
	case S_IFDIR: return "a directory";
	case S_IFIFO: return "a FIFO";
	case S_IFSOCK: return "a socket";
	default: return "a file";
	}
}

static bool shared_sticky_dir(const struct stat *d)
{
	return (d->st_mode & S_ISVTX) && (d->st_mode & S_IWOTH);
}

/* The directory part of path: "." without a slash, "/" for "/name". */
static void parent_dir(const char *path, char *dir, size_t len)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		snprintf(dir, len, ".");
	else
		snprintf(dir, len, "%.*s", slash == path ? 1 : (int)(slash - path), path);
}

/*
 * A symbolic link in the ring path's directories that another user planted in
 * a shared sticky directory (/dev/shm, /tmp) would redirect the ring into a
 * directory of the attacker's choice: refuse it, whatever the kernel's
 * fs.protected_symlinks says (the rule is the one that sysctl enforces).
 */
static int check_path_links(const char *path, size_t dir_len, char *err, size_t errlen)
{
	char prefix[PATH_MAX], parent[PATH_MAX];
	struct stat l, d;

	for (size_t i = 1; i <= dir_len; i++) {
		if (i < dir_len && path[i] != '/')
			continue;
		snprintf(prefix, sizeof(prefix), "%.*s", (int)i, path);
		if (lstat(prefix, &l) || !S_ISLNK(l.st_mode))
			continue;
		parent_dir(prefix, parent, sizeof(parent));
		if (stat(parent, &d))
			continue;
		if (shared_sticky_dir(&d) && l.st_uid != geteuid() && l.st_uid != d.st_uid) {
			snprintf(err, errlen, "ring %s: refusing to follow the symbolic link %s: it "
				 "belongs to uid %u, in the shared directory %s", path, prefix,
				 (unsigned)l.st_uid, parent);
			return -EPERM;
		}
	}
	return 0;
}

/* The directory that will hold the ring must be ours (or root's) and not
 * open to other users unless sticky: nobody else may replace the ring. */
static int check_ring_dir(int dirfd, const char *dir, char *err, size_t errlen)
{
	struct stat d;

	if (fstat(dirfd, &d)) {
		int e = errno;
		snprintf(err, errlen, "ring directory %s: %s", dir, strerror(e));
		return -e;
	}
	if (d.st_uid != geteuid() && d.st_uid != 0) {
		snprintf(err, errlen, "ring directory %s belongs to uid %u, neither to this user "
			 "(uid %u) nor to root: refusing to create the ring there", dir,
			 (unsigned)d.st_uid, (unsigned)geteuid());
		return -EPERM;
	}
	if ((d.st_mode & (S_IWGRP | S_IWOTH)) && !(d.st_mode & S_ISVTX)) {
		snprintf(err, errlen, "ring directory %s is writable by other users and not "
			 "sticky: refusing to create the ring there (they could replace it)", dir);
		return -EPERM;
	}
	return 0;
}

/* Open the ring's directory and check it; 0 with r->dirfd and r->name set. */
static int open_ring_dir(struct iogap_ring *r, const char *path, char *err, size_t errlen)
{
	const char *slash = strrchr(path, '/');
	const char *name = slash ? slash + 1 : path;
	size_t dir_len = slash ? (size_t)(slash - path) : 0;
	char dir[PATH_MAX];
	int e;

	if (!*name || !strcmp(name, ".") || !strcmp(name, "..") ||
	    strlen(name) >= sizeof(r->name)) {
		snprintf(err, errlen, "ring %s: not a file name", path);
		return -EINVAL;
	}
	if (dir_len >= sizeof(dir)) {
		snprintf(err, errlen, "ring %s: path too long", path);
		return -ENAMETOOLONG;
	}
	parent_dir(path, dir, sizeof(dir));
	e = check_path_links(path, dir_len, err, errlen);
	if (e)
		return e;
	r->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (r->dirfd < 0) {
		e = errno;
		snprintf(err, errlen, "ring directory %s: %s", dir, strerror(e));
		return -e;
	}
	snprintf(r->name, sizeof(r->name), "%s", name);
	return check_ring_dir(r->dirfd, dir, err, errlen);
}

/*
 * Remove the ring file only if its name still refers to the file this process
 * created (same device and inode), through the directory opened at creation:
 * a path swapped in meanwhile is never touched.
 */
static void unlink_own(struct iogap_ring *r)
{
	struct stat st;

	if (r->dirfd < 0 || !r->created)
		return;
	if (!fstatat(r->dirfd, r->name, &st, AT_SYMLINK_NOFOLLOW) && st.st_dev == r->dev &&
	    st.st_ino == r->ino)
		unlinkat(r->dirfd, r->name, 0);
	r->created = false;
}

static void release_dir(struct iogap_ring *r)
{
	if (r->dirfd >= 0)
		close(r->dirfd);
	r->dirfd = -1;
}

/* Create the ring file: a new regular file or nothing. */
static int create_file(struct iogap_ring *r, const char *path, char *err, size_t errlen)
{
	struct stat st;
	int fd, e;

	fd = openat(r->dirfd, r->name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		e = errno;
		if (e == EEXIST && !fstatat(r->dirfd, r->name, &st, AT_SYMLINK_NOFOLLOW))
			snprintf(err, errlen, "ring %s already exists (%s): the filter only creates "
				 "a new ring and never reuses, truncates or removes an existing file; "
				 "remove it or name another ring", path, file_kind(st.st_mode));
		else
			snprintf(err, errlen, "cannot create ring file %s: %s", path, strerror(e));
		return -e;
	}
	if (fstat(fd, &st)) {
		e = errno;
		close(fd);
		snprintf(err, errlen, "ring %s: fstat: %s", path, strerror(e));
		return -e;
	}
	r->dev = st.st_dev;
	r->ino = st.st_ino;
	r->created = true;
	/*
	 * Held until the fd closes, also by kill -9: the stale-ring cleanup
	 * (host-tools/orchestration/ringmap.c) never removes a ring whose lock is taken.  A
	 * failure only leaves it to the pid check there.
	 */
	(void)flock(fd, LOCK_SH | LOCK_NB);
	return fd;
}

static int fail_created(struct iogap_ring *r, int fd, int e)
{
	close(fd);
	unlink_own(r);
	release_dir(r);
	return e;
}

int iogap_ring_create(struct iogap_ring *r, const char *path, uint64_t capacity,
		      const char *layer, uint64_t run_id, const char *info,
		      uint64_t start_ns, char *err, size_t errlen)
{
	uint32_t info_size = info ? (uint32_t)strlen(info) : 0;
	uint64_t ctl_off = iogap_ring_ctl_offset(info_size);
	uint64_t cap = iogap_ring_capacity(capacity);
	uint64_t size = iogap_ring_file_size(info_size, cap);
	struct iogap_trace_header *h;
	char *base;
	int fd, e;

	memset(r, 0, sizeof(*r));
	r->fd = -1;
	r->dirfd = -1;
	if (size > IOGAP_RING_MAX_FILE) {
		snprintf(err, errlen, "ring %s: %llu records need %llu bytes, over the %llu-byte "
			 "limit (at most %llu records)", path, (unsigned long long)cap,
			 (unsigned long long)size, (unsigned long long)IOGAP_RING_MAX_FILE,
			 (unsigned long long)iogap_ring_max_capacity(info_size));
		return -EFBIG;
	}
	e = open_ring_dir(r, path, err, errlen);
	if (e) {
		release_dir(r);
		return e;
	}
	fd = create_file(r, path, err, errlen);
	if (fd < 0) {
		release_dir(r);
		return fd;
	}
	/*
	 * Allocate every block now.  ftruncate alone makes a sparse file: on a full
	 * tmpfs or disk the first store into an unbacked page of the mapping (the
	 * memset below, or a record on the I/O path) kills QEMU with SIGBUS.
	 */
	e = posix_fallocate(fd, 0, (off_t)size);
	if (e) {
		if (e == ENOSPC || e == EDQUOT)
			snprintf(err, errlen, "ring %s: no room for %llu bytes (%s)", path,
				 (unsigned long long)size, strerror(e));
		else
			snprintf(err, errlen, "cannot allocate %llu bytes for ring file %s: %s",
				 (unsigned long long)size, path, strerror(e));
		return fail_created(r, fd, -e);
	}
	base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);
	if (base == MAP_FAILED) {
		e = errno;
		snprintf(err, errlen, "cannot map ring file %s: %s", path, strerror(e));
		return fail_created(r, fd, -e);
	}
	r->commit = calloc(cap, sizeof(uint64_t));
	if (!r->commit) {
		snprintf(err, errlen, "out of memory for a %llu-record ring", (unsigned long long)cap);
		munmap(base, size);
		return fail_created(r, fd, -ENOMEM);
	}
	/* blocks are allocated; touch every page now: no page faults on the I/O path */
	memset(base, 0, size);

	h = (struct iogap_trace_header *)base;
	h->version = IOGAP_TRACE_VERSION;
	h->header_size = sizeof(*h);
	h->record_size = sizeof(struct iogap_trace_record);
	h->producer = IOGAP_PRODUCER_FILTER;
	h->clock = IOGAP_CLOCK_HOST_MONOTONIC;
	h->flags = IOGAP_TRACE_F_RING;
	h->info_size = info_size;
	h->run_id = run_id;
	iogap_read_boot_id(h->boot_id);
	strncpy(h->layer, layer ? layer : "", sizeof(h->layer) - 1);
	h->records_offset = ctl_off;
	h->record_count = cap;
	h->start_ns = start_ns;
	if (info_size)
		memcpy(base + sizeof(*h), info, info_size);
	/* magic last: a reader never sees a half-written header as valid */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	memcpy(h->magic, IOGAP_TRACE_MAGIC, IOGAP_TRACE_MAGIC_LEN);

	r->hdr = h;
	r->ctl = (struct iogap_ring_control *)(base + ctl_off);
	r->slots = (struct iogap_trace_record *)(base + ctl_off + sizeof(struct iogap_ring_control));
	r->mask = cap - 1;
	r->map = base;
	r->map_size = size;
	r->fd = fd;
	r->reserve = 0;
	return 0;
}

void iogap_ring_close(struct iogap_ring *r, uint64_t end_ns, bool remove)
{
	if (!r->map)
		return;
	r->hdr->dropped = __atomic_load_n(&r->ctl->dropped, __ATOMIC_ACQUIRE);
	r->hdr->end_ns = end_ns;
	__atomic_fetch_or(&r->hdr->flags, (uint16_t)IOGAP_TRACE_F_COMPLETE, __ATOMIC_RELEASE);
	munmap(r->map, r->map_size);
	close(r->fd);
	free(r->commit);
	r->map = NULL;
	r->commit = NULL;
	r->fd = -1;
	/* after COMPLETE: a reader that has the ring mapped keeps it, and sees it end */
	if (remove)
		unlink_own(r);
	release_dir(r);
}

void iogap_ring_unlink(struct iogap_ring *r)
{
	unlink_own(r);
}
