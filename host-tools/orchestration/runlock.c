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
	size_t n = strlen(name);

	return !strcmp(name, "manifest.json") || !strcmp(name, "manifest.json.tmp") ||
	       !strcmp(name, "repeat.json") ||
	       (!strncmp(name, "job", 3) && n > 7 && !strcmp(name + n - 4, ".fio"));
}

/* bare/, vm/ and bare-matched/ hold only what a run wrote there. */
static int clear_subdir(const char *dir, const char *sub, char *err, size_t errlen)
{
	char path[PATH_MAX + 300];
	struct dirent *e;
	DIR *d;

	snprintf(path, sizeof(path), "%s/%s", dir, sub);
	d = opendir(path);
	if (!d)
		return errno == ENOENT ? 0 : iogap_seterr(err, errlen, "%s: %s", path, strerror(errno));
	while ((e = readdir(d))) {
		char f[PATH_MAX + 600];

		if (e->d_name[0] == '.' && (!e->d_name[1] || !strcmp(e->d_name, "..")))
			continue;
		snprintf(f, sizeof(f), "%s/%s", path, e->d_name);
		if (unlink(f)) {
			closedir(d);
			return iogap_seterr(err, errlen, "%s: %s", f, strerror(errno));
		}
	}
	closedir(d);
	if (rmdir(path))
		return iogap_seterr(err, errlen, "%s: %s", path, strerror(errno));
	return 0;
}

/* Refuse a directory with files in it, or (force) remove a run's files. */
static int check_empty(const char *dir, bool force, char *err, size_t errlen)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char first[256] = "";

	if (!d)
		return iogap_seterr(err, errlen, "%s: %s", dir, strerror(errno));
	while ((e = readdir(d))) {
		char f[PATH_MAX + 300];

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || !strcmp(e->d_name, LOCK_NAME))
			continue;
		if (!force) {
			snprintf(first, sizeof(first), "%s", e->d_name);
			break;
		}
		snprintf(f, sizeof(f), "%s/%s", dir, e->d_name);
		if (!strcmp(e->d_name, "bare") || !strcmp(e->d_name, "vm") ||
		    !strcmp(e->d_name, "bare-matched")) {
			if (clear_subdir(dir, e->d_name, err, errlen))
				break;
		} else if (run_file(e->d_name) && unlink(f)) {
			iogap_seterr(err, errlen, "%s: %s", f, strerror(errno));
			break;
		}
	}
	closedir(d);
	if (first[0])
		return iogap_seterr(err, errlen, "%s is not empty (%s, ...): an earlier run? Use another "
				    "--dir, or --force to replace that run's files", dir, first);
	return err[0] ? -1 : 0;
}

int iogap_rundir_claim(const char *dir, bool force, char *err, size_t errlen)
{
	char path[PATH_MAX + 32], pid[32];
	int fd, n;

	err[0] = '\0';
	if (mkdir_p(dir))
		return iogap_seterr(err, errlen, "%s: %s", dir, strerror(errno));
	snprintf(path, sizeof(path), "%s/" LOCK_NAME, dir);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return iogap_seterr(err, errlen, "%s: %s", path, strerror(errno));
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		int e = errno;
		ssize_t got = pread(fd, pid, sizeof(pid) - 1, 0);

		pid[got > 0 ? got : 0] = '\0';
		pid[strcspn(pid, "\n")] = '\0';
		close(fd);
		if (e == EWOULDBLOCK)
			return iogap_seterr(err, errlen, "%s is in use by another iogap run (pid %s)",
					    dir, pid[0] ? pid : "?");
		return iogap_seterr(err, errlen, "%s: lock: %s", path, strerror(e));
	}
	n = snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
	if (check_empty(dir, force, err, errlen) || ftruncate(fd, 0) ||
	    pwrite(fd, pid, (size_t)n, 0) != n) {
		if (!err[0])
			iogap_seterr(err, errlen, "%s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}
