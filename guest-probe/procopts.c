/* SPDX-License-Identifier: MIT */
/*
 * fio's job options on the job as a process (uid, gid, nice, lockmem,
 * cgroup, exec_prerun/postrun, mem) and on its open files (fadvise_hint,
 * write_hint, pre_read, ioscheduler), after fio 3.33's backend.c,
 * memory.c, cgroup.c and ioengines.c.  Credentials and cgroups are set
 * for the calling thread only: each worker thread is a job as fio's
 * process is.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <mntent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "procopts.h"
#include "util.h"

#ifndef F_SET_RW_HINT
#define F_SET_RW_HINT (1024 + 12)
#endif
#ifndef F_SET_FILE_RW_HINT
#define F_SET_FILE_RW_HINT (1024 + 14)
#endif

static int fail(char *err, size_t errlen, int e, const char *fmt, const char *what)
{
	snprintf(err, errlen, fmt, what, strerror(e));
	return -e;
}

/* ---- mem= -------------------------------------------------------------- */

static int iomem_shm(const struct iogap_job *j, struct iogap_iomem *m, char *err, size_t errlen)
{
	int flags = IPC_CREAT | 0600;

	if (j->proc.mem == IOGAP_MEM_SHMHUGE)
		flags |= SHM_HUGETLB;
	m->shmid = shmget(IPC_PRIVATE, m->len, flags);
	if (m->shmid < 0)
		return fail(err, errlen, errno, "mem=%s: shmget: %s",
			    j->proc.mem == IOGAP_MEM_SHM ? "shm" : "shmhuge");
	m->p = shmat(m->shmid, NULL, 0);
	/* removed once detached: nothing is left behind by a crash */
	shmctl(m->shmid, IPC_RMID, NULL);
	if (m->p == (void *)-1) {
		m->p = NULL;
		return fail(err, errlen, errno, "mem=%s: shmat: %s", "shm");
	}
	return 0;
}

static int iomem_mmap(const struct iogap_job *j, struct iogap_iomem *m, char *err, size_t errlen)
{
	const char *path = j->proc.mem_path;
	int flags = MAP_PRIVATE | MAP_ANONYMOUS;

	if (j->proc.mem == IOGAP_MEM_MMAPSHARED)
		flags = MAP_SHARED | MAP_ANONYMOUS;
	if (j->proc.mem == IOGAP_MEM_MMAPHUGE && !path)
		flags |= MAP_HUGETLB;
	if (path) {   /* fio: shared for mmaphuge and mmapshared, else private */
		m->keep = access(path, F_OK) == 0;
		m->fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
		if (m->fd < 0)
			return fail(err, errlen, errno, "mem: open mmap file %s: %s", path);
		/* fio sizes only mmap's file; a shorter file would fault (SIGBUS) */
		if (ftruncate(m->fd, (off_t)m->len))
			return fail(err, errlen, errno, "mem: truncate mmap file %s: %s", path);
		flags = j->proc.mem == IOGAP_MEM_MMAP ? MAP_PRIVATE : MAP_SHARED;
	}
	m->p = mmap(NULL, m->len, PROT_READ | PROT_WRITE, flags, m->fd, 0);
	if (m->p == MAP_FAILED) {
		m->p = NULL;
		return fail(err, errlen, errno, "mem: mmap%s: %s",
			    flags & MAP_HUGETLB ? " (huge pages)" : "");
	}
	return 0;
}

int iogap_iomem_alloc(const struct iogap_job *j, size_t len, struct iogap_iomem *m,
		      char *err, size_t errlen)
{
	enum iogap_mem_type t = j->proc.mem;

	*m = (struct iogap_iomem){ .len = len, .shmid = -1, .fd = -1 };
	if (t == IOGAP_MEM_SHMHUGE || t == IOGAP_MEM_MMAPHUGE) {   /* fio rounds up */
		uint64_t mask = j->proc.hugepage_size - 1;

		m->len = (size_t)((len + mask) & ~mask);
	}
	if (t == IOGAP_MEM_MALLOC) {
		int r = posix_memalign(&m->p, 4096, len);

		if (r) {
			m->p = NULL;
			return fail(err, errlen, r, "%s: %s", "out of memory for the I/O buffers");
		}
		return 0;
	}
	if (t == IOGAP_MEM_SHM || t == IOGAP_MEM_SHMHUGE)
		return iomem_shm(j, m, err, errlen);
	return iomem_mmap(j, m, err, errlen);
}

void iogap_iomem_free(const struct iogap_job *j, struct iogap_iomem *m)
{
	if (j->proc.mem == IOGAP_MEM_MALLOC)
		free(m->p);
	else if (m->shmid >= 0 && m->p)
		shmdt(m->p);
	else if (m->p)
		munmap(m->p, m->len);
	if (m->fd >= 0) {
		close(m->fd);
		if (!m->keep)
			unlink(j->proc.mem_path);
	}
	m->p = NULL;
	m->fd = -1;
}

/* ---- the process: uid, gid, lockmem, cgroup, nice, exec ---------------- */

int iogap_proc_creds(const struct iogap_job *j, char *err, size_t errlen)
{
	/* the raw calls: glibc's setuid() would change every thread */
	if (j->proc.gid >= 0 && syscall(SYS_setgid, (gid_t)j->proc.gid))
		return fail(err, errlen, errno, "%s: %s", "setgid");
	if (j->proc.uid >= 0 && syscall(SYS_setuid, (uid_t)j->proc.uid))
		return fail(err, errlen, errno, "%s: %s", "setuid");
	return 0;
}

/* fio's exec_string: the command's output in NAME.MODE.txt */
static int exec_string(const struct iogap_job *j, const char *cmd, const char *mode,
		       char *err, size_t errlen)
{
	char *line;
	int st;

	if (asprintf(&line, "%s > %s.%s.txt 2>&1", cmd, j->name, mode) < 0)
		return fail(err, errlen, ENOMEM, "exec_%s: %s", mode);
	fprintf(stderr, "%s : Saving output of %s in %s.%s.txt\n", j->name, mode, j->name, mode);
	st = system(line);
	free(line);
	if (st == -1)
		return fail(err, errlen, errno, "exec_%s: %s", mode);
	if (st) {
		snprintf(err, errlen, "exec_%s: '%s' exited with status %d", mode, cmd,
			 WIFEXITED(st) ? WEXITSTATUS(st) : st);
		return -ECANCELED;
	}
	return 0;
}

/* fio's find_cgroup_mnt: the first cgroup v1 hierarchy with blkio, or cgroup2 */
static int cgroup_mount(struct iogap_proc_run *pr)
{
	FILE *f = setmntent("/proc/mounts", "re");
	struct mntent *e, ent;
	char buf[1024];
	int r = -1;

	if (!f)
		return -1;
	while ((e = getmntent_r(f, &ent, buf, sizeof(buf))) != NULL) {
		bool v1 = !strcmp(e->mnt_type, "cgroup") && hasmntopt(e, "blkio");

		if (v1 || !strcmp(e->mnt_type, "cgroup2")) {
			snprintf(pr->cgroup_root, sizeof(pr->cgroup_root), "%s", e->mnt_dir);
			pr->cgroup_v2 = !v1;
			r = 0;
			break;
		}
	}
	endmntent(f);
	return r;
}

static int write_num(const char *dir, const char *file, long long v)
{
	char path[PATH_MAX], num[32];
	int fd, n, r = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	n = snprintf(num, sizeof(num), "%lld", v);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, num, (size_t)n) != n)
		r = -errno;
	close(fd);
	return r;
}

/* fio's cgroup_setup: NAME under the blkio (or v2) mount, created if need
 * be, cgroup_weight as blkio.weight (v1 only, as fio), and the job in it
 * (v1: this thread; v2: cgroup.procs moves the process, as fio's pid) */
static int cgroup_join(const struct iogap_job *j, struct iogap_proc_run *pr, pid_t tid,
		       char *err, size_t errlen)
{
	int r;

	if (cgroup_mount(pr)) {
		snprintf(err, errlen, "cgroup: cgroup blkio does not appear to be mounted");
		return -ENOENT;
	}
	snprintf(pr->cgroup_dir, sizeof(pr->cgroup_dir), "%s/%s", pr->cgroup_root, j->proc.cgroup);
	if (mkdir(pr->cgroup_dir, 0755) == 0)
		pr->cgroup_made = 1;
	else if (errno != EEXIST)
		return fail(err, errlen, errno, "cgroup mkdir %s: %s", pr->cgroup_dir);
	if (j->proc.cgroup_weight && pr->cgroup_v2) {
		snprintf(err, errlen, "cgroup_weight: fio sets it as blkio.weight, which cgroup v2 "
			 "(%s) does not have", pr->cgroup_root);
		return -EINVAL;
	}
	if (j->proc.cgroup_weight &&
	    (r = write_num(pr->cgroup_dir, "blkio.weight", j->proc.cgroup_weight)) < 0)
		return fail(err, errlen, -r, "cgroup_weight: %s/blkio.weight: %s", pr->cgroup_dir);
	r = write_num(pr->cgroup_dir, pr->cgroup_v2 ? "cgroup.procs" : "tasks", tid);
	if (r < 0)
		return fail(err, errlen, -r, "cgroup: joining %s: %s", pr->cgroup_dir);
	return 0;
}

int iogap_proc_start(const struct iogap_job *j, struct iogap_proc_run *pr, pid_t tid,
		     char *err, size_t errlen)
{
	const struct iogap_job_proc *p = &j->proc;
	int r;

	memset(pr, 0, sizeof(*pr));
	if (p->lockmem) {   /* fio_pin_memory: memory taken away from the page cache */
		pr->pinned = mmap(NULL, p->lockmem, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (pr->pinned == MAP_FAILED) {
			pr->pinned = NULL;
			return fail(err, errlen, errno, "lockmem: %s: %s", "mmap");
		}
		/* the raw call: sanitizers make mlock() a no-op */
		if (syscall(SYS_mlock, pr->pinned, (size_t)p->lockmem))
			return fail(err, errlen, errno, "lockmem: %s: %s", "mlock");
	}
	if (p->cgroup && (r = cgroup_join(j, pr, tid, err, errlen)) < 0)
		return r;
	if (p->nice && setpriority(PRIO_PROCESS, (id_t)tid, p->nice))
		return fail(err, errlen, errno, "%s: %s", "nice");
	if (p->exec_prerun)
		return exec_string(j, p->exec_prerun, "prerun", err, errlen);
	return 0;
}

void iogap_proc_end(const struct iogap_job *j, struct iogap_proc_run *pr, pid_t tid, bool ran)
{
	char err[256];

	if (ran && j->proc.exec_postrun && exec_string(j, j->proc.exec_postrun, "postrun", err, sizeof(err)))
		fprintf(stderr, "%s: %s\n", j->name, err);   /* fio: the job is done already */
	if (pr->pinned) {
		syscall(SYS_munlock, pr->pinned, (size_t)j->proc.lockmem);
		munmap(pr->pinned, j->proc.lockmem);
		pr->pinned = NULL;
	}
	if (pr->cgroup_dir[0]) {   /* fio: back to the root */
		write_num(pr->cgroup_root, pr->cgroup_v2 ? "cgroup.procs" : "tasks", tid);
		/* fio removes the cgroups it made; clones still in it leave soon */
		for (int i = 0; pr->cgroup_made && !j->proc.cgroup_nodelete && i < 100 &&
		     rmdir(pr->cgroup_dir) && errno == EBUSY; i++)
			usleep(10000);
		pr->cgroup_dir[0] = '\0';
	}
}

/* ---- files ------------------------------------------------------------- */

int iogap_proc_file_opened(const struct iogap_job *j, int fd, uint64_t off, uint64_t len,
			   char *err, size_t errlen)
{
	const struct iogap_job_proc *p = &j->proc;
	struct stat st;

	if (fstat(fd, &st) || !(S_ISREG(st.st_mode) || S_ISBLK(st.st_mode)))
		return 0;   /* fio: regular files and block devices */
	if (p->fadvise != IOGAP_FADV_NONE) {
		int adv = p->fadvise == IOGAP_FADV_RANDOM ? POSIX_FADV_RANDOM :
			  p->fadvise == IOGAP_FADV_SEQUENTIAL ? POSIX_FADV_SEQUENTIAL :
			  j->rw & IOGAP_RW_RAND ? POSIX_FADV_RANDOM : POSIX_FADV_SEQUENTIAL;

		if (posix_fadvise(fd, (off_t)off, (off_t)len, adv))
			fprintf(stderr, "fio: fadvise hint failed\n");   /* fio: a warning */
	}
	if (p->write_hint >= 0) {
		/* fio: on the descriptor for direct I/O, on the inode otherwise */
		uint64_t hint = (uint64_t)p->write_hint;

		if (fcntl(fd, j->direct ? F_SET_FILE_RW_HINT : F_SET_RW_HINT, &hint) < 0)
			return fail(err, errlen, errno, "%s: %s", "fcntl write hint");
	}
	return 0;
}

/* fio's pre_read_file: the region read front to back, max read bs at a time */
int iogap_proc_pre_read(const struct iogap_job *j, int fd, uint64_t off, uint64_t len,
			char *err, size_t errlen)
{
	size_t bs = j->bs_max[0] < len ? j->bs_max[0] : (size_t)len;
	void *b;

	if (!bs)
		return 0;
	if (posix_memalign(&b, 4096, bs))   /* aligned: the file may be O_DIRECT */
		return fail(err, errlen, ENOMEM, "%s: %s", "pre_read");
	while (len) {
		size_t n = len < bs ? (size_t)len : bs;

		if (pread(fd, b, n, (off_t)off) != (ssize_t)n) {
			free(b);
			snprintf(err, errlen, "pre_read: a short or failed read at %llu",
				 (unsigned long long)off);
			return -EIO;   /* fio's td_verror(EIO, "pre_read") */
		}
		off += n;
		len -= n;
	}
	free(b);
	return 0;
}

/* The whole disk's sysfs directory for dev (a partition's parent). */
static int disk_sysfs(dev_t dev, char *dir, size_t len)
{
	char path[PATH_MAX + 16], real[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u", major(dev), minor(dev));
	if (!realpath(path, real) || strlen(real) + 4 > len)
		return -1;
	snprintf(path, sizeof(path), "%s/partition", real);
	if (!stat(path, &st))
		snprintf(dir, len, "%s/..", real);
	else
		snprintf(dir, len, "%s", real);
	return 0;
}

int iogap_proc_ioscheduler(const struct iogap_job *j, const char *path, char *err, size_t errlen)
{
	const char *want = j->proc.ioscheduler;
	char dir[PATH_MAX], file[PATH_MAX + 32], now[256], mark[128];
	struct stat st;
	ssize_t n;
	int fd;

	if (stat(path, &st))
		return iogap_seterr(err, errlen, "ioscheduler: %s: %s", path, strerror(errno));
	if (disk_sysfs(S_ISBLK(st.st_mode) ? st.st_rdev : st.st_dev, dir, sizeof(dir)))
		return iogap_seterr(err, errlen, "ioscheduler=%s: %s is not a block device nor on "
				    "one (no I/O scheduler to switch)", want, path);
	snprintf(file, sizeof(file), "%s/queue/scheduler", dir);
	fd = open(file, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return iogap_seterr(err, errlen, "ioscheduler: %s: %s", file, strerror(errno));
	n = write(fd, want, strlen(want));
	n = n < 0 ? n : pread(fd, now, sizeof(now) - 1, 0);
	close(fd);
	if (n < 0)
		return iogap_seterr(err, errlen, "unable to set io scheduler to %s (%s: %s)", want,
				    file, strerror(errno));
	now[n] = '\0';
	now[strcspn(now, "\n")] = '\0';
	if (!strcmp(now, "none")) {   /* fio: writing to "none" cannot fail; a note */
		fprintf(stderr, "fio: io scheduler is not tunable\n");
		return 0;
	}
	snprintf(mark, sizeof(mark), "[%s]", want);
	if (!strstr(now, mark))
		return iogap_seterr(err, errlen, "unable to set io scheduler to %s (%s: %s)", want,
				    file, now);
	return 0;
}

/* ---- lockfile ---------------------------------------------------------- */

/* One lock per file name, shared by every job and clone of the run (fio's
 * file hash): made on first use, kept until the process ends. */
static struct named_lock {
	char *path;
	pthread_rwlock_t lock;
	struct named_lock *next;
} *named_locks;
static pthread_mutex_t named_locks_mutex = PTHREAD_MUTEX_INITIALIZER;

pthread_rwlock_t *iogap_file_lock(const char *path)
{
	struct named_lock *l;

	pthread_mutex_lock(&named_locks_mutex);
	for (l = named_locks; l && strcmp(l->path, path); l = l->next)
		;
	if (!l && (l = calloc(1, sizeof(*l))) != NULL) {
		if ((l->path = strdup(path)) == NULL || pthread_rwlock_init(&l->lock, NULL)) {
			free(l->path);
			free(l);
			l = NULL;
		} else {
			l->next = named_locks;
			named_locks = l;
		}
	}
	pthread_mutex_unlock(&named_locks_mutex);
	return l ? &l->lock : NULL;
}

/* fio's lock_file: exclusive, or shared for reads under readwrite */
void iogap_file_lock_take(const struct iogap_job *j, pthread_rwlock_t *l, int is_read)
{
	if (j->proc.lockfile == IOGAP_LOCK_READWRITE && is_read)
		pthread_rwlock_rdlock(l);
	else
		pthread_rwlock_wrlock(l);
}
