/* SPDX-License-Identifier: MIT */
/* The QEMU binary of a run and the filter built for it, matched by stamp. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "iogap-paths.h"
#include "qemubin.h"
#include "util.h"

#define STAMP_KEY "qemu_stamp_"
#define FILTER_PREFIX "iogap-filter"

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

/* The first key followed by exactly 40 hex digits in [p, end). */
static bool find_stamp(const char *p, const char *end, char stamp[IOGAP_QEMU_STAMP_HEX + 1])
{
	const size_t klen = sizeof(STAMP_KEY) - 1;

	for (; (p = memmem(p, (size_t)(end - p), STAMP_KEY, klen)); p += klen) {
		const char *hex = p + klen;
		size_t n = 0;

		while (hex + n < end && n <= IOGAP_QEMU_STAMP_HEX && is_hex(hex[n]))
			n++;
		if (n == IOGAP_QEMU_STAMP_HEX) {
			memcpy(stamp, hex, n);
			stamp[n] = '\0';
			return true;
		}
	}
	return false;
}

int iogap_file_stamp(const char *path, char stamp[IOGAP_QEMU_STAMP_HEX + 1])
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	void *map;
	bool found;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || st.st_size == 0) {
		errno = errno ? errno : ENOMSG;
		close(fd);
		return -1;
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return -1;
	found = find_stamp(map, (const char *)map + st.st_size, stamp);
	munmap(map, (size_t)st.st_size);
	if (!found)
		errno = ENOMSG;
	return found ? 0 : -1;
}

/* name as the shell finds it: an absolute path, or a program on PATH. */
static int resolve(const char *name, char out[PATH_MAX])
{
	const char *path = getenv("PATH");
	char *dirs, *dir, *save = NULL;
	int rc = -1;

	if (strchr(name, '/'))
		return realpath(name, out) ? 0 : -1;
	dirs = strdup(path ? path : "/usr/bin:/bin");
	for (dir = dirs ? strtok_r(dirs, ":", &save) : NULL; dir && rc;
	     dir = strtok_r(NULL, ":", &save)) {
		char cand[PATH_MAX];

		if (snprintf(cand, sizeof(cand), "%s/%s", dir, name) < (int)sizeof(cand) &&
		    !access(cand, X_OK) && realpath(cand, out))
			rc = 0;
	}
	free(dirs);
	if (rc)
		errno = ENOENT;
	return rc;
}

/* The first line `bin --version` prints; 0, or -1. */
static int version_line(const char *bin, char *out, size_t len)
{
	int fds[2], status;
	char drain[4096];
	ssize_t n = 0, got;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid == 0) {
		dup2(fds[1], STDOUT_FILENO);
		execl(bin, bin, "--version", (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	/* all of it: a writer whose pipe closed early would die of SIGPIPE */
	while (pid > 0 && n < (ssize_t)len - 1 && (got = read(fds[0], out + n, len - 1 - (size_t)n)) > 0)
		n += got;
	while (pid > 0 && read(fds[0], drain, sizeof(drain)) > 0)
		;
	close(fds[0]);
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) || n <= 0)
		return -1;
	out[n] = '\0';
	out[strcspn(out, "\n")] = '\0';
	return 0;
}

int iogap_qemu_identify(const char *given, struct iogap_qemu *q, char *err, size_t errlen)
{
	const char *name = given ? given : getenv("IOGAP_QEMU");

	memset(q, 0, sizeof(*q));
	if (!name || !*name)
		name = "qemu-system-x86_64";
	if (resolve(name, q->path))
		return iogap_seterr(err, errlen, "QEMU %s: %s%s", name, strerror(errno),
				    strchr(name, '/') ? "" : " (not on PATH: install qemu-system-x86 "
				    "or give --qemu PATH)");
	if (version_line(q->path, q->version, sizeof(q->version)))
		return iogap_seterr(err, errlen, "QEMU %s: `%s --version` failed: not a QEMU binary?",
				    q->path, q->path);
	if (iogap_file_stamp(q->path, q->stamp))
		return iogap_seterr(err, errlen, "QEMU %s (%s): no %s<40 hex> string in the binary: "
				    "iogap cannot tell which filter fits it", q->path, q->version,
				    STAMP_KEY);
	return 0;
}

void iogap_qemu_tool(const char *qemu, const char *tool, char *out, size_t len)
{
	const char *slash = strrchr(qemu, '/');

	snprintf(out, len, "%.*s/%s", slash ? (int)(slash - qemu) : 1, slash ? qemu : ".", tool);
}

void iogap_qemu_short_version(const char *version, char *out, size_t len)
{
	static const char key[] = "version ";
	const char *v = strstr(version, key);

	if (!v) {
		snprintf(out, len, "%s", version);
		return;
	}
	v += sizeof(key) - 1;
	snprintf(out, len, "%.*s", (int)strcspn(v, " ("), v);
}

size_t iogap_filter_dirs(char dirs[2][PATH_MAX])
{
	char self[PATH_MAX], bindir[PATH_MAX], tree[PATH_MAX + 16];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	size_t nr = 0;

	if (n > 0) {
		self[n] = '\0';
		*strrchr(self, '/') = '\0';
		/* not installed: the build tree's filters sit beside us */
		snprintf(tree, sizeof(tree), "%s/../qemu-filter", self);
		if ((!realpath(IOGAP_INSTALL_BINDIR, bindir) || strcmp(bindir, self)) &&
		    realpath(tree, dirs[nr]))
			nr++;
	}
	snprintf(dirs[nr++], PATH_MAX, "%s", IOGAP_INSTALL_PKGLIBDIR);
	return nr;
}

bool iogap_is_filter_name(const char *path)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	size_t n = strlen(base);

	return !strncmp(base, FILTER_PREFIX, sizeof(FILTER_PREFIX) - 1) && n > 3 &&
	       !strcmp(base + n - 3, ".so");
}

static int is_filter(const struct dirent *e)
{
	return iogap_is_filter_name(e->d_name);
}

/* "QEMU V" from iogap-filter-qemu-V.so; the plain iogap-filter.so is the
 * build's default QEMU's, named nowhere else. */
static void filter_built_for(const char *name, char *out, size_t len)
{
	static const char pre[] = FILTER_PREFIX "-qemu-";

	if (!strncmp(name, pre, sizeof(pre) - 1))
		snprintf(out, len, "QEMU %.*s", (int)(strlen(name) - sizeof(pre) + 1 - 3),
			 name + sizeof(pre) - 1);
	else
		snprintf(out, len, "the QEMU installed when it was built");
}

/* Append "name (built for ..., stamp S)" of one filter to the list in err. */
static void list_filter(const char *dir, const char *name, const char *stamp, char *err,
			size_t errlen)
{
	size_t used = strlen(err);
	char built[128];

	filter_built_for(name, built, sizeof(built));
	snprintf(err + used, errlen - used, "%s%s/%s (%s, stamp %s)", used ? "; " : "", dir, name,
		 built, stamp[0] ? stamp : "none");
}

/* The filters of one directory: a match into q->filter; the rest listed. */
static void scan_dir(struct iogap_qemu *q, const char *dir, char *list, size_t listlen)
{
	struct dirent **names;
	int n = scandir(dir, &names, is_filter, alphasort);

	for (int i = 0; i < n; i++) {
		char path[PATH_MAX + 256], stamp[IOGAP_QEMU_STAMP_HEX + 1] = "";
		bool match;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
		iogap_file_stamp(path, stamp);
		match = !strcmp(stamp, q->stamp);
		if (match && !q->filter[0] && !realpath(path, q->filter))
			q->filter[0] = '\0';
		if (!match)
			list_filter(dir, names[i]->d_name, stamp, list, listlen);
		free(names[i]);
	}
	if (n > 0)
		free(names);
}

static int refuse(const struct iogap_qemu *q, const char *found, char *err, size_t errlen)
{
	char version[64];

	iogap_qemu_short_version(q->version, version, sizeof(version));
	return iogap_seterr(err, errlen, "no iogap filter built for QEMU %s (%s, stamp %s): %s; "
			    "build one for it: meson setup --reconfigure build -Dextra_qemu=%s && "
			    "ninja -C build (docs/qemu-filter.md)", version, q->path, q->stamp,
			    found[0] ? found : "no iogap-filter*.so found", q->path);
}

int iogap_qemu_filter(struct iogap_qemu *q, const char *explicit, char dirs[][PATH_MAX],
		      size_t ndirs, char *err, size_t errlen)
{
	char found[3072] = "";

	q->filter[0] = '\0';
	if (explicit) {
		char stamp[IOGAP_QEMU_STAMP_HEX + 1] = "";

		if (iogap_file_stamp(explicit, stamp) && errno != ENOMSG)
			return iogap_seterr(err, errlen, "filter %s: %s", explicit, strerror(errno));
		if (!strcmp(stamp, q->stamp) && realpath(explicit, q->filter))
			return 0;
		snprintf(found, sizeof(found), "the given filter %s has stamp %s", explicit,
			 stamp[0] ? stamp : "none");
		return refuse(q, found, err, errlen);
	}
	for (size_t i = 0; i < ndirs && !q->filter[0]; i++)
		scan_dir(q, dirs[i], found, sizeof(found));
	return q->filter[0] ? 0 : refuse(q, found, err, errlen);
}
