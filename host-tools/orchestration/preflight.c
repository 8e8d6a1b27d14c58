/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <inttypes.h>
#include <linux/fs.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "job.h"
#include "preflight.h"
#include "util.h"

/* The target as both sides see it: its size and, for files, the room its
 * holes could take. */
struct target_facts {
	uint64_t size;
	uint64_t holes;           /* bytes not allocated yet (files) */
	uint64_t fs_free;         /* free bytes on its filesystem (files) */
	bool is_file;
};

static int target_facts(const struct iogap_target *t, struct target_facts *f, char *err,
			size_t errlen)
{
	struct stat st;
	struct statvfs vfs;
	int fd;

	memset(f, 0, sizeof(*f));
	if (t->kind == IOGAP_TARGET_NULL) {
		f->size = t->size;
		return 0;
	}
	fd = open(t->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		iogap_seterr(err, errlen, "%s: %s", t->path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	f->is_file = S_ISREG(st.st_mode);
	if (f->is_file) {
		uint64_t allocated = (uint64_t)st.st_blocks * 512;

		f->size = (uint64_t)st.st_size;
		f->holes = allocated < f->size ? f->size - allocated : 0;
		if (!fstatvfs(fd, &vfs))
			f->fs_free = (uint64_t)vfs.f_bavail * vfs.f_frsize;
	} else if (ioctl(fd, BLKGETSIZE64, &f->size)) {
		iogap_seterr(err, errlen, "%s: size: %s", t->path, strerror(errno));
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

/* A job's region [offset, offset + size) must lie inside the target: on
 * bare metal the probe would grow a file, in the VM the disk ends there. */
/* Where the last clone's region ends, as fio bounds it: clone N starts at
 * offset + N x offset_increment; UINT64_MAX past 2^64. */
static uint64_t region_end(const struct iogap_job *j)
{
	uint64_t clones = j->numjobs > 1 ? j->numjobs - 1 : 0, step, end;

	if (__builtin_mul_overflow(j->offset_increment, clones, &step) ||
	    __builtin_add_overflow(j->offset, step, &end) ||
	    __builtin_add_overflow(end, j->size, &end))
		return UINT64_MAX;
	return end;
}

static int check_region(const struct iogap_job *j, const struct target_facts *f,
			const char *what, char *err, size_t errlen)
{
	if (j->file_append)
		return iogap_seterr(err, errlen, "job '%s': file_append=1 writes past the end of a "
				    "regular file, but the VM sees %s as a disk that ends there: run "
				    "this job with iogap-probe on the file itself", j->name, what);
	if (j->offset_pct == 0 && j->offset >= f->size)
		return iogap_seterr(err, errlen, "job '%s': offset=%" PRIu64 " is beyond the end of "
				    "%s (%" PRIu64 " bytes)", j->name, j->offset, what, f->size);
	if (j->size_pct == 0 && j->size && region_end(j) > f->size)
		return iogap_seterr(err, errlen, "job '%s': %s (%" PRIu64 " bytes) is larger than %s "
				    "(%" PRIu64 " bytes): the VM's disk ends there and bare metal would "
				    "grow the file; make the target larger or the job smaller", j->name,
				    j->numjobs > 1 && j->offset_increment ?
				    "offset + offset_increment x (numjobs-1) + size" : "offset+size",
				    region_end(j), what, f->size);
	return 0;
}

static uint64_t region_len(const struct iogap_job *j, uint64_t target_size)
{
	uint64_t end = j->size && !j->size_pct ? j->offset + j->size : target_size;

	return end > j->offset ? end - j->offset : 0;
}

/* Writing needs a target this process may write (root too: immutable
 * files, read-only mounts) and that nobody else holds: QEMU keeps OFD
 * locks on the images of a running VM. */
static int check_writable(const char *path, char *err, size_t errlen)
{
	struct flock lk = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	int fd = open(path, O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		int e = errno;

		return iogap_seterr(err, errlen, "%s cannot be written (%s)%s: a job writes to it",
				    path, strerror(e), e == EPERM ? "; immutable? (lsattr, chattr -i)" :
				    e == EROFS ? "; a read-only filesystem" : "");
	}
	if (fcntl(fd, F_OFD_GETLK, &lk) == 0 && lk.l_type != F_UNLCK) {
		close(fd);
		return iogap_seterr(err, errlen, "%s is locked by another process (QEMU locks the "
				    "images of a running VM): refusing to write to it", path);
	}
	close(fd);
	return 0;
}

/* How long a job runs by its own clock, at most; 0: no bound (no runtime,
 * or a verify pass read back after the runtime ended). */
static uint64_t job_time_bound(const struct iogap_job *j)
{
	bool verify_pass = j->do_verify && j->verify != IOGAP_VERIFY_NONE &&
			   (j->rw & IOGAP_RW_WRITE);

	if (!j->runtime_ns || verify_pass || j->proc.pre_read)
		return 0;
	return j->startdelay_ns + j->ramp_time_ns + j->runtime_ns;
}

static int check_jobs(const struct iogap_job_list *l, size_t nr, const struct target_facts *f,
		      const char *what, uint64_t *write_span, struct iogap_job_needs *needs,
		      bool *unbounded, char *err, size_t errlen)
{
	for (size_t k = 0; k < nr; k++) {
		const struct iogap_job *j = &l->jobs[k];
		uint64_t bound = job_time_bound(j);

		if (check_region(j, f, what, err, errlen))
			return -1;
		if (j->rw & (IOGAP_RW_WRITE | IOGAP_RW_TRIM)) {
			needs->writes = true;
			*write_span += region_len(j, f->size);
		}
		needs->time_bound_ns += bound;
		*unbounded |= !bound;
		if ((j->unlink || j->proc.unlink_each_loop) && !needs->unlinks[0])
			snprintf(needs->unlinks, sizeof(needs->unlinks), "%s", j->name);
	}
	return 0;
}

int iogap_preflight(const struct iogap_target *t, char *const *jobs, int nr_jobs,
		    bool domain_disk, struct iogap_job_needs *needs, char *err, size_t errlen)
{
	struct target_facts f;
	uint64_t write_span = 0;
	bool unbounded = false;
	char what[4200];

	memset(needs, 0, sizeof(*needs));
	if (t->kind == IOGAP_TARGET_RBD) {
		/* the image's size needs the cluster: the probe checks it */
		f = (struct target_facts){ .size = UINT64_MAX };
	} else if (target_facts(t, &f, err, errlen)) {
		return -1;
	}
	if (t->kind == IOGAP_TARGET_NULL)
		snprintf(what, sizeof(what), "the null target");
	else
		snprintf(what, sizeof(what), "%s", t->path);
	if (f.size == 0)
		return iogap_seterr(err, errlen, "%s is empty (0 bytes): the VM would see no disk; give "
				    "it a size first (truncate -s SIZE or fill it with data)", what);
	for (int i = 0; i < nr_jobs; i++) {
		struct iogap_job_list l = { 0 };
		char perr[512];
		size_t valid;
		int r;

		if (iogap_jobfile_parse(jobs[i], NULL, &l, perr, sizeof(perr))) {
			unbounded = true;
			continue;   /* the probe reports job errors itself */
		}
		for (valid = 0; valid < l.nr; valid++)
			if (iogap_job_finalize(&l.jobs[valid], perr, sizeof(perr)))
				break;   /* ditto: the jobs before it are checked */
		unbounded |= valid < l.nr;
		r = check_jobs(&l, valid, &f, what, &write_span, needs, &unbounded, err, errlen);
		iogap_job_list_free(&l);
		if (r)
			return -1;
	}
	if (unbounded)
		needs->time_bound_ns = 0;
	if (!needs->writes || t->kind == IOGAP_TARGET_NULL || t->kind == IOGAP_TARGET_RBD)
		return 0;
	/* a domain's disk: its QEMU holds the lock (iogap run checks the domain) */
	if (!domain_disk && check_writable(t->path, err, errlen))
		return -1;
	if (f.is_file && (write_span < f.holes ? write_span : f.holes) > f.fs_free)
		return iogap_seterr(err, errlen, "%s is sparse: the jobs' writes could allocate up to "
				    "%" PRIu64 " MiB in its holes, more than the %" PRIu64 " MiB free on "
				    "its filesystem (and they would fill it); preallocate the file "
				    "(fallocate) or give the jobs a smaller size", t->path,
				    (write_span < f.holes ? write_span : f.holes) >> 20, f.fs_free >> 20);
	return 0;
}
