/* SPDX-License-Identifier: MIT */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runlock.h"
#include "util.h"

#define LOCK_NAME ".iogap-run.lock"

static int mkdir_p(const char *path)
{
	char tmp[PATH_MAX];

	snprintf(tmp, sizeof(tmp), "%s", path);
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, 0755) && errno != EEXIST)
			return -1;
		*p = '/';
	}
	return mkdir(tmp, 0755) && errno != EEXIST ? -1 : 0;
}

/* Files of an earlier run: what `iogap run` writes at the top level. */
static bool run_file(const char *name)
{
	unsigned k;
	int end = 0;

	return !strcmp(name, "manifest.json") || !strcmp(name, "manifest.json.tmp") ||
	       !strcmp(name, "repeat.json") || !strcmp(name, "repeat.json.tmp") ||
	       (sscanf(name, "job%u.fio%n", &k, &end) == 1 && end && !name[end] &&
		name[3] >= '0' && name[3] <= '9');
}

/* What a run writes in bare/, vm/ and bare-matched/ (the filter rings
 * too when /dev/shm is not writable). */
static bool side_file(const char *name)
{
	static const char *const names[] = {
		"probe.txt", "probe.json", "probe.trace", "probe.err", "probe.out",
		"probe.stuck.txt", "kernel.trace", "host-kernel.trace", "extents.txt",
		"cpuload.txt", "dmesg.txt", "console.log", "qemu.cmdline", "qemu.stderr",
		"ctl.sock", "top.trace", "bottom.trace", "sync-before.txt", "sync-after.txt",
		"blockstats.json",
	};
	size_t n = strlen(name);

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		size_t k = strlen(names[i]);

		if (!strncmp(name, names[i], k) && (!name[k] || !strcmp(name + k, ".tmp")))
			return true;
	}
	return !strncmp(name, "iogap-", 6) && n > 11 && !strcmp(name + n - 5, ".ring");
}

/* The job files given on the command line: never removed nor overwritten. */
struct inputs {
	const char *const *paths;
	int nr;
};

static const char *input_at(const struct inputs *in, int dfd, const char *name)
{
	struct stat st, job;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW))
		return NULL;
	for (int i = 0; i < in->nr; i++)
		if (!stat(in->paths[i], &job) && job.st_dev == st.st_dev && job.st_ino == st.st_ino)
			return in->paths[i];
	return NULL;
}

/* One file of an earlier run, relative to its directory's fd. */
static int remove_run_file(int dfd, const char *dir, const char *name, const struct inputs *in,
			   char *err, size_t errlen)
{
	const char *job = input_at(in, dfd, name);

	if (job)
		return iogap_seterr(err, errlen, "%s is %s/%s, where iogap writes its own file: use "
				    "another --dir", job, dir, name);
	if (unlinkat(dfd, name, 0) && errno != ENOENT)
		return iogap_seterr(err, errlen, "%s/%s: %s", dir, name, strerror(errno));
	return 0;
}

/* bare/, vm/ and bare-matched/: a directory (never a link followed) that
 * holds only what a run wrote there; anything else is refused. */
static int clear_subdir(int dfd, const char *dir, const char *sub, const struct inputs *in,
			char *err, size_t errlen)
{
	char path[PATH_MAX + 300];
	struct dirent *e;
	int fd, rc = 0;
	DIR *d;

	snprintf(path, sizeof(path), "%s/%s", dir, sub);
	fd = openat(dfd, sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return iogap_seterr(err, errlen, "%s: %s%s", path, strerror(errno),
				    errno == ELOOP || errno == ENOTDIR ?
				    " (not a directory iogap made: remove it yourself)" : "");
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return iogap_seterr(err, errlen, "%s: %s", path, strerror(errno));
	}
	while (!rc && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (!side_file(e->d_name))
			rc = iogap_seterr(err, errlen, "%s/%s was not written by iogap: remove it "
					  "yourself or use another --dir", path, e->d_name);
		else
			rc = remove_run_file(fd, path, e->d_name, in, err, errlen);
	}
	closedir(d);
	if (!rc && unlinkat(dfd, sub, AT_REMOVEDIR))
		rc = iogap_seterr(err, errlen, "%s: %s", path, strerror(errno));
	return rc;
}

static bool side_dir(const char *name)
{
	return !strcmp(name, "bare") || !strcmp(name, "vm") || !strcmp(name, "bare-matched");
}

/* Refuse a directory with files in it, or (force) remove a run's files;
 * never a job file given on the command line. */
static int check_empty(int dfd, const char *dir, bool force, const struct inputs *in,
		       char *err, size_t errlen)
{
	int fd = dup(dfd), rc = 0;
	struct dirent *e;
	DIR *d = fd < 0 ? NULL : fdopendir(fd);

	if (!d) {
		if (fd >= 0)
			close(fd);
		return iogap_seterr(err, errlen, "%s: %s", dir, strerror(errno));
	}
	while (!rc && (e = readdir(d))) {
		const char *job;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || !strcmp(e->d_name, LOCK_NAME))
			continue;
		job = run_file(e->d_name) ? input_at(in, dfd, e->d_name) : NULL;
		if (job)
			rc = iogap_seterr(err, errlen, "%s is %s/%s, where iogap writes its own file: "
					  "use another --dir", job, dir, e->d_name);
		else if (!force)
			rc = iogap_seterr(err, errlen, "%s is not empty (%s, ...): an earlier run? Use "
					  "another --dir, or --force to replace that run's files",
					  dir, e->d_name);
		else if (side_dir(e->d_name))
			rc = clear_subdir(dfd, dir, e->d_name, in, err, errlen);
		else if (run_file(e->d_name))
			rc = remove_run_file(dfd, dir, e->d_name, in, err, errlen);
	}
	closedir(d);
	return rc;
}

/* DIR/.iogap-run.lock, never through a link; *created when this call
 * made it.  Its fd, or -1 with err. */
static int open_lock(int dfd, const char *path, bool *created, char *err, size_t errlen)
{
	struct stat st;
	int flags = O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC;
	int fd = openat(dfd, LOCK_NAME, flags | O_CREAT | O_EXCL, 0644);

	*created = fd >= 0;
	if (fd < 0 && errno == EEXIST)
		fd = openat(dfd, LOCK_NAME, flags);
	if (fd < 0)
		return iogap_seterr(err, errlen, "%s: %s%s", path, strerror(errno), errno == ELOOP ?
				    " (a symbolic link: not iogap's lock file; remove it)" : "");
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_nlink != 1) {
		close(fd);
		return iogap_seterr(err, errlen, "%s is not iogap's lock file (not a regular file "
				    "with one name): remove it", path);
	}
	return fd;
}

static int lock_busy(int fd, const char *dir, const char *path, char *err, size_t errlen)
{
	int e = errno;
	char pid[32];
	ssize_t got = pread(fd, pid, sizeof(pid) - 1, 0);

	pid[got > 0 ? got : 0] = '\0';
	pid[strcspn(pid, "\n")] = '\0';
	if (e == EWOULDBLOCK)
		return iogap_seterr(err, errlen, "%s is in use by another iogap run (pid %s)",
				    dir, pid[0] ? pid : "?");
	return iogap_seterr(err, errlen, "%s: lock: %s", path, strerror(e));
}

int iogap_rundir_claim(const char *dir, bool force, const char *const *inputs, int nr_inputs,
		       char *err, size_t errlen)
{
	const struct inputs in = { inputs, nr_inputs };
	char path[PATH_MAX + 32], pid[32];
	bool created;
	int dfd, fd, n;

	err[0] = '\0';
	if (mkdir_p(dir))
		return iogap_seterr(err, errlen, "%s: %s", dir, strerror(errno));
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return iogap_seterr(err, errlen, "%s: %s", dir, strerror(errno));
	snprintf(path, sizeof(path), "%s/" LOCK_NAME, dir);
	fd = open_lock(dfd, path, &created, err, errlen);
	if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB)) {
		lock_busy(fd, dir, path, err, errlen);
		close(fd);
		fd = -1;
	}
	n = snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
	if (fd >= 0 && (check_empty(dfd, dir, force, &in, err, errlen) || ftruncate(fd, 0) ||
			pwrite(fd, pid, (size_t)n, 0) != n)) {
		if (!err[0])
			iogap_seterr(err, errlen, "%s: %s", path, strerror(errno));
		close(fd);
		fd = -1;
		/* a refused directory keeps nothing of this run */
		if (created)
			unlinkat(dfd, LOCK_NAME, 0);
	}
	close(dfd);
	return fd;
}

/* The target: an OFD read lock on a byte QEMU never locks, far past
 * QEMU's own (100 + permission, 200 + permission); a second iogap run sees
 * it.  Read locks: a target opened read-only (immutable) can hold them. */
#define IOGAP_LOCK_BYTE (1LL << 40)
#define QEMU_PERM_BYTE 100
#define QEMU_SHARED_BYTE 200
enum { QEMU_READ, QEMU_WRITE, QEMU_WRITE_UNCHANGED, QEMU_RESIZE };

static int ofd_lock(int fd, short type, off_t byte)
{
	struct flock lk = { .l_type = type, .l_whence = SEEK_SET, .l_start = byte, .l_len = 1 };

	return fcntl(fd, F_OFD_SETLK, &lk);
}

/* Does another open file hold a lock on byte? */
static bool held_elsewhere(int fd, off_t byte)
{
	struct flock lk = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = byte, .l_len = 1 };

	return !fcntl(fd, F_OFD_GETLK, &lk) && lk.l_type != F_UNLCK;
}

int iogap_target_lock(const char *path, char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return iogap_seterr(err, errlen, "%s: %s", path, strerror(errno));
	if (ofd_lock(fd, F_RDLCK, IOGAP_LOCK_BYTE)) {
		int e = errno;

		close(fd);
		return iogap_seterr(err, errlen, "%s: lock: %s", path, strerror(e));
	}
	/* set, then look: of two runs starting at once neither goes on */
	if (held_elsewhere(fd, IOGAP_LOCK_BYTE)) {
		close(fd);
		return iogap_seterr(err, errlen, "%s is in use by another iogap run: one run at a "
				    "time on a target (they would measure each other)", path);
	}
	return fd;
}

int iogap_target_hold(int fd, bool hold, bool writes)
{
	static const off_t bytes[] = { QEMU_PERM_BYTE + QEMU_READ, QEMU_PERM_BYTE + QEMU_WRITE,
				       QEMU_SHARED_BYTE + QEMU_WRITE,
				       QEMU_SHARED_BYTE + QEMU_RESIZE };
	int rc = 0;

	for (size_t i = 0; i < sizeof(bytes) / sizeof(bytes[0]); i++) {
		if (hold && bytes[i] == QEMU_PERM_BYTE + QEMU_WRITE && !writes)
			continue;
		if (ofd_lock(fd, hold ? F_RDLCK : F_UNLCK, bytes[i]))
			rc = -1;
	}
	return rc;
}
