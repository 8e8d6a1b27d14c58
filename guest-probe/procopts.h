/* SPDX-License-Identifier: MIT */
/*
 * fio's job options on the job as a process and on its files (struct
 * iogap_job_proc, engines/jobproc.c), done as fio's thread_main does them:
 * the worker thread of each clone stands for fio's job process.
 */
#ifndef IOGAP_PROCOPTS_H
#define IOGAP_PROCOPTS_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "job.h"

/* The I/O buffers, as mem= asks (fio's allocate_io_mem). */
struct iogap_iomem {
	void *p;
	size_t len;               /* mapped or allocated (hugepage-rounded) */
	int shmid;                /* shm, shmhuge; -1 */
	int fd;                   /* mmap file; -1 */
	int keep;                 /* the mmap file existed: not removed */
};

/* len bytes, 4 KiB aligned: 0, or -errno with err set. */
int iogap_iomem_alloc(const struct iogap_job *j, size_t len, struct iogap_iomem *m,
		      char *err, size_t errlen);
void iogap_iomem_free(const struct iogap_job *j, struct iogap_iomem *m);

/* What a worker holds for the job's process options until it ends. */
struct iogap_proc_run {
	void *pinned;             /* lockmem */
	char cgroup_dir[512];     /* joined (fio's cgroup) */
	char cgroup_root[256];    /* its mount, where the thread goes back */
	int cgroup_v2;
	int cgroup_made;          /* created by this job: removed at its end */
};

/* fio's setgid/setuid at the start of the job (before its files are
 * opened), for this thread only.  0, or -errno with err set. */
int iogap_proc_creds(const struct iogap_job *j, char *err, size_t errlen);
/* After the buffers: lockmem, cgroup, nice, exec_prerun, in fio's order.
 * 0, or -errno with err set. */
int iogap_proc_start(const struct iogap_job *j, struct iogap_proc_run *pr, pid_t tid,
		     char *err, size_t errlen);
/* exec_postrun when the job ran, then the memory and the cgroup back. */
void iogap_proc_end(const struct iogap_job *j, struct iogap_proc_run *pr, pid_t tid, bool ran);

/* Once a file is open: fadvise_hint and write_hint (fio's td_io_open_file).
 * 0, or -errno with err set. */
int iogap_proc_file_opened(const struct iogap_job *j, int fd, uint64_t off, uint64_t len,
			   char *err, size_t errlen);
/* pre_read: the region read once into the page cache. */
int iogap_proc_pre_read(const struct iogap_job *j, int fd, uint64_t off, uint64_t len,
			char *err, size_t errlen);

/* ioscheduler: written to the queue/scheduler of the disk under path and
 * read back, as fio.  0, or -1 with err set. */
int iogap_proc_ioscheduler(const struct iogap_job *j, const char *path, char *err, size_t errlen);

/* lockfile: the run's lock of the file named path (NULL: out of memory),
 * taken around each request's prep and queue as fio (readwrite: reads
 * share it); released with pthread_rwlock_unlock. */
pthread_rwlock_t *iogap_file_lock(const char *path);
void iogap_file_lock_take(const struct iogap_job *j, pthread_rwlock_t *l, int is_read);

#endif
