/* SPDX-License-Identifier: MIT */
/*
 * Zoned workloads (zbd.h): fio 3.33's zonemode=strided and zonemode=zbd.
 *
 * Locking: one mutex per zone table (device or file).  A zone with
 * requests in flight belongs to the worker that issued them (fio holds the
 * zone mutex from zbd_adjust_block() to zbd_put_io(): the same effect);
 * another worker that needs it first completes its own in-flight I/O
 * (IOGAP_ZBD_DRAIN) and only then waits, so no cycle can form.  Write
 * pointers advance when a write is issued (fio's zbd_queue_io()); reads
 * see only data whose writes have all completed (wp_done); a failed write
 * re-reads the zone (real devices) or rewinds the pointer (emulated).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/blkzoned.h>
#include <linux/fs.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#ifdef IOGAP_HAVE_LIBZBD
#include <libzbd/zbd.h>
#endif

#include "iogap/trace.h"
#include "zbd.h"
#include "debug.h"

#define NO_ZONE UINT32_MAX
#define NO_OFF UINT64_MAX

enum zmodel { ZM_NONE, ZM_HOST_MANAGED, ZM_HOST_AWARE };

struct zinfo {
	uint64_t start, end, cap_end;
	uint64_t wp;                 /* next write goes here (advanced at issue) */
	uint64_t wp_done;            /* below: written, all writes completed */
	uint64_t err_off;            /* lowest failed write, NO_OFF if none */
	struct iogap_zbd_worker *owner;   /* has requests in flight here */
	struct iogap_zbd_worker *opener;  /* counted in its job_max_open_zones */
	uint32_t inflight, inflight_w;
	uint8_t has_wp, offline, open, reset_pending;
};

struct zdev {
	struct zdev *next;
	char *path;
	dev_t dev;
	ino_t ino;
	int fd;                      /* zone operations (real devices), else -1 */
	enum zmodel model;
	bool qemu_zns;
	uint64_t size, zone_size;
	uint32_t nr_zones;
	struct zinfo *z;             /* nr_zones + a sentinel */
	unsigned max_open;           /* 0: no limit, open zones not tracked */
	unsigned dev_max_open;       /* the device's limit, 0 none */
	bool max_open_set;
	unsigned num_open;
	uint32_t open_zones[IOGAP_ZBD_MAX_OPEN_ZONES];
	uint64_t wp_bytes;           /* data in write-pointer zones */
	uint32_t write_cnt;          /* zone_reset_frequency countdown */
	uint64_t inflight;           /* tracked requests in flight, all workers */
	const struct iogap_job *first_job;
	pthread_mutex_t lock;
	pthread_cond_t cond;
};

struct zjob {
	const struct iogap_job *job;
	struct zdev *dev;
	uint64_t start, len;         /* fio's file_offset, io_size */
	uint32_t min_zone, max_zone; /* [min, max) */
};

struct iogap_zbd_set {
	struct zdev *devs;
	struct zjob *jobs;
	size_t njobs;
};

struct iogap_zbd_worker {
	const struct iogap_job *job;
	struct zdev *dev;            /* NULL: strided */
	struct zjob *zj;
	uint64_t *resets;
	unsigned open_count;         /* zones this worker opened */
	uint64_t inflight;           /* its tracked requests in flight */
	uint32_t *slot_zone;
	unsigned depth;
	uint32_t min_bs[IOGAP_DDIR_NR];
	bool rnd;
	uint64_t region_start, region_end;
	uint64_t file_offset;        /* zoneskip / strided window start */
	uint64_t zone_bytes;         /* fio's td->zone_bytes */
	char err[256];
};

int iogap_zbd_have_libzbd(void)
{
#ifdef IOGAP_HAVE_LIBZBD
	return 1;
#else
	return 0;
#endif
}

static int msg(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int msg(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

static bool job_has_writes(const struct iogap_job *j)
{
	return (j->rw & IOGAP_RW_WRITE) != 0;
}

/* Writes move write pointers, trims reset zones. */
static bool job_changes_zones(const struct iogap_job *j)
{
	return (j->rw & (IOGAP_RW_WRITE | IOGAP_RW_TRIM)) != 0;
}

/* ---- job checks (fio's fixup_options) ---------------------------------- */

int iogap_zbd_job_check(struct iogap_job *j, char *err, size_t errlen)
{
	if (j->zone_mode == IOGAP_ZONE_MODE_NOT_SPECIFIED)
		j->zone_mode = j->zone_size ? IOGAP_ZONE_MODE_STRIDED : IOGAP_ZONE_MODE_NONE;
	else if (j->zone_mode == IOGAP_ZONE_MODE_NONE && j->zone_size)
		return msg(err, errlen, "job '%s': zonemode=none and zonesize are not compatible "
			   "(use zonemode=strided or zonemode=zbd)", j->name);
	if (j->zone_mode == IOGAP_ZONE_MODE_NONE)
		return 0;
	if (j->zone_mode == IOGAP_ZONE_MODE_STRIDED) {
		if (!j->zone_size)
			return msg(err, errlen, "job '%s': zonemode=strided needs zonesize", j->name);
		if (!j->zone_range)
			j->zone_range = j->zone_size;   /* fio: backward compatibility */
		if (j->zone_skip_nz)
			j->zone_skip = (uint64_t)j->zone_skip_nz * j->zone_size;
		return 0;
	}
	/* zbd */
	if (j->zone_size && j->zone_size < 512)
		return msg(err, errlen, "job '%s': zonesize must be at least 512 bytes with zonemode=zbd",
			   j->name);
	if (j->zone_capacity && j->zone_size && j->zone_capacity > j->zone_size)
		return msg(err, errlen, "job '%s': zonecapacity %" PRIu64 " is larger than zonesize %" PRIu64,
			   j->name, j->zone_capacity, j->zone_size);
	/* a trim resets a whole zone (fio's zbd_verify_bs; the size is checked
	 * against the zones in check_region) */
	if ((j->rw & IOGAP_RW_TRIM) &&
	    (j->bs_min[IOGAP_OP_TRIM] != j->bs_max[IOGAP_OP_TRIM] || j->bssplit_nr[IOGAP_OP_TRIM]))
		return msg(err, errlen, "job '%s': bsrange and bssplit are not allowed for trim with "
			   "zonemode=zbd", j->name);
	for (int d = 0; d < IOGAP_DDIR_NR; d++) {
		if (!(j->rw & (1u << d)))
			continue;
		if (j->bs_min[d] % 512)
			return msg(err, errlen, "job '%s': block sizes must be multiples of 512 with zonemode=zbd",
				   j->name);
	}
	return 0;
}

/* ---- device access: libzbd or the kernel's zone ioctls ---------------- */

struct rzone {
	uint64_t start, len, cap, wp;
	unsigned type, cond;
};

static int sysfs_read(dev_t dev, const char *file, char *buf, size_t len)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/%s", major(dev), minor(dev), file);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (!fgets(buf, (int)len, f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static __attribute__((unused)) unsigned sysfs_uint(dev_t dev, const char *file)
{
	char buf[64];

	if (sysfs_read(dev, file, buf, sizeof(buf)))
		return 0;
	return (unsigned)strtoul(buf, NULL, 10);
}

static enum zmodel dev_model(dev_t dev)
{
	char buf[64];

	if (sysfs_read(dev, "queue/zoned", buf, sizeof(buf)))
		return ZM_NONE;
	if (!strcmp(buf, "host-managed"))
		return ZM_HOST_MANAGED;
	if (!strcmp(buf, "host-aware"))
		return ZM_HOST_AWARE;
	return ZM_NONE;
}

static bool dev_is_qemu_nvme(dev_t dev)
{
	char buf[128];

	return !sysfs_read(dev, "device/model", buf, sizeof(buf)) && strstr(buf, "QEMU NVMe");
}

static int zops_open(const char *path, bool rw, unsigned *max_open, unsigned *max_active)
{
#ifdef IOGAP_HAVE_LIBZBD
	struct zbd_info info;
	int fd;

	zbd_set_log_level(ZBD_LOG_NONE);
	fd = zbd_open(path, (rw ? O_RDWR : O_RDONLY) | O_CLOEXEC, &info);
	if (fd < 0)
		return fd < -1 ? fd : -errno;
	*max_open = info.max_nr_open_zones;
	*max_active = info.max_nr_active_zones;
	return fd;
#else
	struct stat st;
	int fd = open(path, (rw ? O_RDWR : O_RDONLY) | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		close(fd);
		return -errno;
	}
	*max_open = sysfs_uint(st.st_rdev, "queue/max_open_zones");
	*max_active = sysfs_uint(st.st_rdev, "queue/max_active_zones");
	return fd;
#endif
}

static void zops_close(int fd)
{
#ifdef IOGAP_HAVE_LIBZBD
	zbd_close(fd);
#else
	close(fd);
#endif
}

/* Up to max zones from offset; returns the count or -errno. */
static int zops_report(int fd, uint64_t offset, uint64_t dev_size, struct rzone *out, unsigned max)
{
#ifdef IOGAP_HAVE_LIBZBD
	struct zbd_zone *zones = calloc(max, sizeof(*zones));
	unsigned nr = max;
	int r;

	if (!zones)
		return -ENOMEM;
	r = zbd_report_zones(fd, (off_t)offset, (off_t)(dev_size - offset), ZBD_RO_ALL, zones, &nr);
	if (r) {
		free(zones);
		return -errno ? -errno : -EIO;
	}
	for (unsigned i = 0; i < nr; i++) {
		out[i].start = zones[i].start;
		out[i].len = zones[i].len;
		out[i].cap = zones[i].capacity ? zones[i].capacity : zones[i].len;
		out[i].wp = zones[i].wp;
		out[i].type = zones[i].type;
		out[i].cond = zones[i].cond;
	}
	free(zones);
	return (int)nr;
#else
	size_t sz = sizeof(struct blk_zone_report) + max * sizeof(struct blk_zone);
	struct blk_zone_report *rep = calloc(1, sz);
	int n;

	(void)dev_size;
	if (!rep)
		return -ENOMEM;
	rep->sector = offset >> 9;
	rep->nr_zones = max;
	if (ioctl(fd, BLKREPORTZONE, rep)) {
		n = -errno;
		free(rep);
		return n;
	}
	for (unsigned i = 0; i < rep->nr_zones; i++) {
		const struct blk_zone *z = &rep->zones[i];

		out[i].start = z->start << 9;
		out[i].len = z->len << 9;
		out[i].cap = (rep->flags & BLK_ZONE_REP_CAPACITY) && z->capacity ?
			     z->capacity << 9 : z->len << 9;
		out[i].wp = z->wp << 9;
		out[i].type = z->type;
		out[i].cond = z->cond;
	}
	n = (int)rep->nr_zones;
	free(rep);
	return n;
#endif
}

enum zop { ZOP_RESET, ZOP_OPEN, ZOP_CLOSE, ZOP_FINISH };

static int zops_op(int fd, enum zop op, uint64_t offset, uint64_t len)
{
#ifdef IOGAP_HAVE_LIBZBD
	static const enum zbd_zone_op ops[] = { ZBD_OP_RESET, ZBD_OP_OPEN, ZBD_OP_CLOSE,
						ZBD_OP_FINISH };

	return zbd_zones_operation(fd, ops[op], (off_t)offset, (off_t)len) ? -errno : 0;
#else
	static const unsigned long ops[] = { BLKRESETZONE, BLKOPENZONE, BLKCLOSEZONE,
					     BLKFINISHZONE };
	struct blk_zone_range range = { .sector = offset >> 9, .nr_sectors = len >> 9 };

	return ioctl(fd, ops[op], &range) ? -errno : 0;
#endif
}

/* ---- zone tables ------------------------------------------------------- */

static uint32_t zone_idx(const struct zdev *d, uint64_t off)
{
	uint64_t i = off / d->zone_size;

	return i > d->nr_zones ? d->nr_zones : (uint32_t)i;
}

static void zone_from_report(struct zinfo *p, const struct rzone *r)
{
	p->start = r->start;
	p->end = r->start + r->len;
	p->cap_end = r->start + r->cap;
	p->has_wp = r->type != BLK_ZONE_TYPE_CONVENTIONAL;
	p->offline = r->cond == BLK_ZONE_COND_OFFLINE || r->cond == BLK_ZONE_COND_READONLY;
	switch (r->cond) {
	case BLK_ZONE_COND_NOT_WP:
	case BLK_ZONE_COND_FULL:
		p->wp = p->cap_end;
		break;
	default:
		p->wp = r->wp < p->start ? p->start : r->wp > p->cap_end ? p->cap_end : r->wp;
		break;
	}
	if (p->offline)
		p->wp = p->start;
	p->wp_done = p->wp;
	p->err_off = NO_OFF;
}

#define REPORT_MAX 4096u

static int read_zones(struct zdev *d, const char *path, char *err, size_t errlen)
{
	struct rzone *rz = calloc(REPORT_MAX, sizeof(*rz));
	uint64_t off = 0;
	uint32_t j = 0;
	int n;

	if (!rz)
		return msg(err, errlen, "out of memory");
	n = zops_report(d->fd, 0, d->size, rz, REPORT_MAX);
	if (n <= 0) {
		free(rz);
		return msg(err, errlen, "%s: zone report failed: %s", path,
			   n ? strerror(-n) : "empty zone report");
	}
	d->zone_size = rz[0].len;
	d->nr_zones = (uint32_t)((d->size + d->zone_size - 1) / d->zone_size);
	d->z = calloc(d->nr_zones + 1, sizeof(*d->z));
	if (!d->z) {
		free(rz);
		return msg(err, errlen, "out of memory for %u zones", d->nr_zones);
	}
	for (;;) {
		for (int i = 0; i < n && j < d->nr_zones; i++, j++) {
			if (j && rz[i].start != d->z[j - 1].start + d->zone_size) {
				free(rz);
				return msg(err, errlen, "%s: zones of different sizes are not supported", path);
			}
			zone_from_report(&d->z[j], &rz[i]);
			off = rz[i].start + rz[i].len;
		}
		if (j >= d->nr_zones || off >= d->size)
			break;
		n = zops_report(d->fd, off, d->size, rz, REPORT_MAX);
		if (n <= 0) {
			free(rz);
			return msg(err, errlen, "%s: zone report from %" PRIu64 " failed: %s", path, off,
				   n ? strerror(-n) : "empty zone report");
		}
	}
	free(rz);
	d->nr_zones = j;
	d->z[j].start = off;             /* sentinel */
	for (uint32_t i = 0; i < j; i++)
		if (d->z[i].has_wp)
			d->wp_bytes += d->z[i].wp - d->z[i].start;
	return 0;
}

static int emulate_zones(struct zdev *d, const struct iogap_job *j, char *err, size_t errlen)
{
	uint64_t cap = j->zone_capacity ? j->zone_capacity : j->zone_size;

	if (!j->zone_size)
		return msg(err, errlen, "%s: zonesize is required for zonemode=zbd on a regular file "
			   "or a device that is not zoned (job '%s')", d->path, j->name);
	if (d->size < j->zone_size)
		return msg(err, errlen, "%s: size %" PRIu64 " is smaller than zonesize %" PRIu64
			   " (job '%s')", d->path, d->size, j->zone_size, j->name);
	d->zone_size = j->zone_size;
	d->nr_zones = (uint32_t)((d->size + d->zone_size - 1) / d->zone_size);
	d->z = calloc(d->nr_zones + 1, sizeof(*d->z));
	if (!d->z)
		return msg(err, errlen, "out of memory for %u zones", d->nr_zones);
	for (uint32_t i = 0; i < d->nr_zones; i++) {
		struct zinfo *p = &d->z[i];

		p->start = (uint64_t)i * d->zone_size;
		p->end = p->start + d->zone_size > d->size ? d->size : p->start + d->zone_size;
		p->cap_end = p->start + cap > p->end ? p->end : p->start + cap;
		p->wp = p->wp_done = p->start;
		p->err_off = NO_OFF;
		p->has_wp = 1;
	}
	d->z[d->nr_zones].start = d->size;
	return 0;
}

/* fio's zbd_set_max_open_zones() for the first job; later jobs must agree */
static int set_limits(struct zdev *d, const struct iogap_job *j, unsigned dev_open,
		      unsigned dev_active, char *err, size_t errlen)
{
	unsigned devlim = dev_open;

	if (!devlim || (dev_active && dev_active < devlim))
		devlim = dev_active;
	d->dev_max_open = devlim;
	if (d->max_open_set) {
		if (j->max_open_zones && j->max_open_zones != d->max_open)
			return msg(err, errlen, "job '%s': max_open_zones=%u differs from the %u of job '%s' "
				   "on %s (fio: \"Different 'max_open_zones' values\")", j->name,
				   j->max_open_zones, d->max_open, d->first_job->name, d->path);
		return 0;
	}
	d->max_open_set = true;
	if (d->model != ZM_HOST_MANAGED || j->ignore_zone_limits || !devlim)
		d->max_open = j->max_open_zones;
	else if (!j->max_open_zones)
		d->max_open = devlim;
	else if (j->max_open_zones <= devlim)
		d->max_open = j->max_open_zones;
	else
		return msg(err, errlen, "job '%s': max_open_zones=%u is above the limit of %s (%u %s zones)",
			   j->name, j->max_open_zones, d->path, devlim,
			   devlim == dev_open ? "open" : "active");
	if (d->max_open > IOGAP_ZBD_MAX_OPEN_ZONES)
		return msg(err, errlen, "job '%s': max_open_zones is larger than %u", j->name,
			   IOGAP_ZBD_MAX_OPEN_ZONES);
	return 0;
}

static void close_zone(struct zdev *d, struct zinfo *z)
{
	uint32_t idx = (uint32_t)(z - d->z);

	if (!z->open)
		return;
	for (unsigned i = 0; i < d->num_open; i++) {
		if (d->open_zones[i] == idx) {
			memmove(&d->open_zones[i], &d->open_zones[i + 1],
				(d->num_open - i - 1) * sizeof(d->open_zones[0]));
			d->num_open--;
			break;
		}
	}
	if (z->opener)
		z->opener->open_count--;
	z->opener = NULL;
	z->open = 0;
	pthread_cond_broadcast(&d->cond);
}

static void add_open(struct zdev *d, struct zinfo *z, struct iogap_zbd_worker *zw)
{
	d->open_zones[d->num_open++] = (uint32_t)(z - d->z);
	z->open = 1;
	z->opener = zw;
	if (zw)
		zw->open_count++;
}

static struct zdev *find_dev(struct iogap_zbd_set *s, const struct stat *st)
{
	for (struct zdev *d = s->devs; d; d = d->next) {
		if (S_ISBLK(st->st_mode) ? d->dev == st->st_rdev && !d->ino :
		    d->dev == st->st_dev && d->ino == st->st_ino)
			return d;
	}
	return NULL;
}

static bool any_writer(const struct iogap_job_list *jobs, const char *path)
{
	for (size_t i = 0; i < jobs->nr; i++)
		if (jobs->jobs[i].zone_mode == IOGAP_ZONE_MODE_ZBD && job_changes_zones(&jobs->jobs[i]) &&
		    !strcmp(jobs->jobs[i].filename, path))
			return true;
	return false;
}

static struct zdev *new_dev(struct iogap_zbd_set *s, const struct iogap_job_list *jobs,
			    const struct iogap_job *j, const struct stat *st, int fd,
			    char *err, size_t errlen)
{
	struct zdev *d = calloc(1, sizeof(*d));
	unsigned dev_open = 0, dev_active = 0;

	if (!d) {
		msg(err, errlen, "out of memory");
		return NULL;
	}
	d->fd = -1;
	d->next = s->devs;
	s->devs = d;
	pthread_mutex_init(&d->lock, NULL);
	pthread_cond_init(&d->cond, NULL);
	d->path = strdup(j->filename);
	d->first_job = j;
	if (S_ISBLK(st->st_mode)) {
		d->dev = st->st_rdev;
		if (ioctl(fd, BLKGETSIZE64, &d->size)) {
			msg(err, errlen, "%s: cannot get the size: %s", j->filename, strerror(errno));
			return NULL;
		}
		d->model = dev_model(st->st_rdev);
		d->qemu_zns = d->model != ZM_NONE && dev_is_qemu_nvme(st->st_rdev);
	} else {
		d->dev = st->st_dev;
		d->ino = st->st_ino;
		d->size = (uint64_t)st->st_size;
	}
	if (d->model != ZM_NONE) {
		int zfd = zops_open(j->filename, any_writer(jobs, j->filename), &dev_open, &dev_active);

		if (zfd < 0) {
			msg(err, errlen, "%s: cannot open the zoned device: %s", j->filename, strerror(-zfd));
			return NULL;
		}
		d->fd = zfd;
		if (read_zones(d, j->filename, err, errlen))
			return NULL;
		if (j->zone_size && j->zone_size != d->zone_size) {
			msg(err, errlen, "job '%s': zonesize=%" PRIu64 " does not match the zone size %" PRIu64
			    " of %s", j->name, j->zone_size, d->zone_size, j->filename);
			return NULL;
		}
		if (j->zone_capacity) {
			msg(err, errlen, "job '%s': zonecapacity applies to emulated zones only; "
			    "%s reports its zone capacities", j->name, j->filename);
			return NULL;
		}
	} else if (emulate_zones(d, j, err, errlen)) {
		return NULL;
	}
	if (set_limits(d, j, dev_open, dev_active, err, errlen))
		return NULL;
	return d;
}

/* fio's zbd_zone_align_file_sizes(), with errors instead of rounding for
 * sizes the user gave */
static int check_region(struct zjob *zj, struct iogap_job *j, char *err, size_t errlen)
{
	struct zdev *d = zj->dev;
	uint64_t end;
	bool seq = false;

	if (j->offset >= d->size)
		return msg(err, errlen, "job '%s': offset=%" PRIu64 " is beyond the end of %s (%" PRIu64
			   " bytes)", j->name, j->offset, d->path, d->size);
	zj->start = j->offset;
	zj->len = j->size ? j->size : d->size - j->offset;
	if (zj->start + zj->len > d->size)
		zj->len = d->size - zj->start;
	for (uint32_t i = zone_idx(d, zj->start); i < d->nr_zones && d->z[i].start < zj->start + zj->len; i++)
		seq = seq || d->z[i].has_wp;
	if (j->zone_size && j->zone_size != d->zone_size)
		return msg(err, errlen, "job '%s': zonesize=%" PRIu64 " differs from the %" PRIu64
			   " of job '%s' on %s", j->name, j->zone_size, d->zone_size, d->first_job->name,
			   d->path);
	if (!j->zone_size)
		j->zone_size = d->zone_size;
	if (j->zone_skip_nz)
		j->zone_skip = (uint64_t)j->zone_skip_nz * d->zone_size;
	if (j->zone_skip % d->zone_size)
		return msg(err, errlen, "job '%s': zoneskip=%" PRIu64 " is not a multiple of the zone size %"
			   PRIu64, j->name, j->zone_skip, d->zone_size);
	for (int k = 0; k < IOGAP_DDIR_NR; k++)
		if (j->rw & (1u << k) && j->bs_max[k] > d->zone_size)
			return msg(err, errlen, "job '%s': block size %u is larger than the zone size %" PRIu64,
				   j->name, j->bs_max[k], d->zone_size);
	if ((j->rw & IOGAP_RW_TRIM) && j->bs_min[IOGAP_OP_TRIM] != d->zone_size)
		return msg(err, errlen, "job '%s': trim block size %u is not the zone size %" PRIu64
			   " of %s (a trim resets one zone)", j->name, j->bs_min[IOGAP_OP_TRIM],
			   d->zone_size, d->path);
	if (seq && job_changes_zones(j)) {
		const struct zinfo *z = &d->z[zone_idx(d, zj->start)];

		if (z->start != zj->start)
			return msg(err, errlen, "job '%s': offset=%" PRIu64 " is not at a zone start "
				   "(zones of %" PRIu64 " bytes on %s; nearest %" PRIu64 ")", j->name,
				   j->offset, d->zone_size, d->path, z->start);
		end = zj->start + zj->len;
		z = &d->z[zone_idx(d, end)];
		if (end != z->start) {
			if (j->size && end != d->size)
				return msg(err, errlen, "job '%s': offset+size=%" PRIu64 " does not end at "
					   "a zone boundary (zones of %" PRIu64 " bytes on %s)", j->name, end,
					   d->zone_size, d->path);
			/* the whole device: leave out a smaller last zone, as fio */
			if (z->start <= zj->start)
				return msg(err, errlen, "job '%s': size must be at least one zone (%" PRIu64
					   " bytes)", j->name, d->zone_size);
			zj->len = z->start - zj->start;
			j->size = zj->len;
		}
	}
	zj->min_zone = zone_idx(d, zj->start);
	zj->max_zone = zone_idx(d, zj->start + zj->len);
	if (zj->max_zone == zj->min_zone)
		zj->max_zone = zj->min_zone + 1;
	if (zj->max_zone > d->nr_zones)
		zj->max_zone = d->nr_zones;
	if (j->job_max_open_zones && !d->max_open)
		return msg(err, errlen, "job '%s': job_max_open_zones needs a max_open_zones limit "
			   "(the job's or the device's)", j->name);
	return 0;
}

static void warn_device(const struct iogap_job *j, const char *path)
{
	struct stat st;
	enum zmodel m;

	if (stat(path, &st) || !S_ISBLK(st.st_mode))
		return;
	m = dev_model(st.st_rdev);
	if (m == ZM_NONE)
		return;
	if (m == ZM_HOST_MANAGED && j->zone_mode != IOGAP_ZONE_MODE_ZBD && job_has_writes(j))
		fprintf(stderr, "iogap-probe: warning: %s is a host-managed zoned device and job '%s' "
			"writes with zonemode=%s: writes off a zone's write pointer will fail "
			"(use zonemode=zbd)\n", path, j->name,
			j->zone_mode == IOGAP_ZONE_MODE_STRIDED ? "strided" : "none");
	if (j->iodepth > 1 && dev_is_qemu_nvme(st.st_rdev))
		fprintf(stderr, "iogap-probe: warning: %s is a zoned namespace of QEMU's emulated NVMe "
			"controller and job '%s' uses iodepth=%u: QEMU 7.2's ZNS emulation loses "
			"completions at queue depth > 1 (nvme timeouts, aborts, resets); use iodepth=1\n",
			path, j->name, j->iodepth);
}

/* fio's zbd_setup_files(): zones already open on the device join the
 * open set up to the limit; the others are reset. */
static int adopt_open_zones(struct zdev *d, const struct zjob *zj, char *err, size_t errlen)
{
	for (uint32_t i = zj->min_zone; i < zj->max_zone; i++) {
		struct zinfo *z = &d->z[i];
		struct rzone r;

		if (!d->max_open || z->open || !z->has_wp || z->wp == z->start || z->wp >= z->cap_end)
			continue;
		if (d->fd < 0 || zops_report(d->fd, z->start, d->size, &r, 1) != 1)
			continue;
		if (r.cond != BLK_ZONE_COND_IMP_OPEN && r.cond != BLK_ZONE_COND_EXP_OPEN)
			continue;
		if (d->num_open < d->max_open) {
			add_open(d, z, NULL);
			continue;
		}
		if (zops_op(d->fd, ZOP_RESET, z->start, z->end - z->start))
			return msg(err, errlen, "%s: resetting open zone %u (beyond max_open_zones) "
				   "failed: %s", d->path, i, strerror(errno));
		d->wp_bytes -= z->wp - z->start;
		z->wp = z->wp_done = z->start;
	}
	return 0;
}

int iogap_zbd_setup(struct iogap_job_list *jobs, struct iogap_zbd_set **out,
		    char *err, size_t errlen)
{
	struct iogap_zbd_set *s;
	size_t nz = 0;

	*out = NULL;
	for (size_t i = 0; i < jobs->nr; i++) {
		const struct iogap_job *j = &jobs->jobs[i];

		if (j->filename && !(j->engine->flags & IOGAP_ENGINE_NO_FILE))
			warn_device(j, j->filename);
		nz += j->zone_mode == IOGAP_ZONE_MODE_ZBD;
	}
	if (!nz)
		return 0;
	s = calloc(1, sizeof(*s));
	if (!s || !(s->jobs = calloc(nz, sizeof(*s->jobs)))) {
		free(s);
		return msg(err, errlen, "out of memory");
	}
	for (size_t i = 0; i < jobs->nr; i++) {
		struct iogap_job *j = &jobs->jobs[i];
		struct zjob *zj;
		struct stat st;
		struct zdev *d;
		int fd;

		if (j->zone_mode != IOGAP_ZONE_MODE_ZBD)
			continue;
		if (j->engine->flags & IOGAP_ENGINE_NO_FILE) {
			msg(err, errlen, "job '%s': zonemode=zbd needs a file or device (ioengine=%s has none)",
			    j->name, j->ioengine);
			goto fail;
		}
		fd = open(j->filename, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || fstat(fd, &st)) {
			msg(err, errlen, "%s: %s", j->filename, strerror(errno));
			if (fd >= 0)
				close(fd);
			goto fail;
		}
		if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode)) {
			close(fd);
			msg(err, errlen, "%s: zonemode=zbd needs a regular file or a block device", j->filename);
			goto fail;
		}
		d = find_dev(s, &st);
		if (!d)
			d = new_dev(s, jobs, j, &st, fd, err, errlen);
		else if (set_limits(d, j, d->dev_max_open, 0, err, errlen))
			d = NULL;
		close(fd);
		if (!d)
			goto fail;
		if (d->model == ZM_HOST_MANAGED && job_has_writes(j) && !j->direct) {
			msg(err, errlen, "job '%s': writes to the host-managed zoned device %s need direct=1 "
			    "(buffered writeback would reorder them)", j->name, j->filename);
			goto fail;
		}
		zj = &s->jobs[s->njobs++];
		zj->job = j;
		zj->dev = d;
		if (check_region(zj, j, err, errlen) || adopt_open_zones(d, zj, err, errlen))
			goto fail;
	}
	for (struct zdev *d = s->devs; d; d = d->next)
		d->write_cnt = UINT32_MAX;
	*out = s;
	return 0;
fail:
	iogap_zbd_free(s);
	return -1;
}

void iogap_zbd_free(struct iogap_zbd_set *s)
{
	if (!s)
		return;
	while (s->devs) {
		struct zdev *d = s->devs;

		s->devs = d->next;
		if (d->fd >= 0)
			zops_close(d->fd);
		pthread_mutex_destroy(&d->lock);
		pthread_cond_destroy(&d->cond);
		free(d->z);
		free(d->path);
		free(d);
	}
	free(s->jobs);
	free(s);
}

/* ---- workers ------------------------------------------------------------ */

int iogap_zbd_worker_new(struct iogap_zbd_set *s, const struct iogap_job *j,
			 uint64_t region_start, uint64_t region_len, unsigned depth,
			 uint64_t *zone_resets, struct iogap_zbd_worker **out,
			 char *err, size_t errlen)
{
	struct iogap_zbd_worker *zw;

	*out = NULL;
	if (j->zone_mode != IOGAP_ZONE_MODE_STRIDED && j->zone_mode != IOGAP_ZONE_MODE_ZBD)
		return 0;
	zw = calloc(1, sizeof(*zw));
	if (!zw)
		return msg(err, errlen, "out of memory");
	zw->job = j;
	zw->resets = zone_resets;
	zw->rnd = j->rw & IOGAP_RW_RAND;
	zw->region_start = zw->file_offset = region_start;
	zw->region_end = region_start + region_len;
	for (int d = 0; d < IOGAP_DDIR_NR; d++)
		zw->min_bs[d] = j->bs_min[d] ? j->bs_min[d] : 512;
	if (j->zone_mode == IOGAP_ZONE_MODE_ZBD) {
		for (size_t i = 0; s && i < s->njobs; i++)
			if (s->jobs[i].job == j)
				zw->zj = &s->jobs[i];
		if (!zw->zj) {
			free(zw);
			return msg(err, errlen, "zonemode=zbd: job '%s' was not set up", j->name);
		}
		zw->dev = zw->zj->dev;
		zw->depth = depth;
		zw->slot_zone = malloc(depth * sizeof(*zw->slot_zone));
		if (!zw->slot_zone) {
			free(zw);
			return msg(err, errlen, "out of memory");
		}
		for (unsigned i = 0; i < depth; i++)
			zw->slot_zone[i] = NO_ZONE;
	}
	*out = zw;
	return 0;
}

void iogap_zbd_worker_free(struct iogap_zbd_worker *zw)
{
	if (!zw)
		return;
	if (zw->dev) {
		struct zdev *d = zw->dev;

		pthread_mutex_lock(&d->lock);
		for (uint32_t i = 0; i < d->nr_zones; i++) {
			if (d->z[i].opener == zw)
				d->z[i].opener = NULL;
			if (d->z[i].owner == zw)
				d->z[i].owner = NULL;
		}
		pthread_cond_broadcast(&d->cond);
		pthread_mutex_unlock(&d->lock);
	}
	free(zw->slot_zone);
	free(zw);
}

const char *iogap_zbd_error(const struct iogap_zbd_worker *zw)
{
	return zw->err;
}

static int fail(struct iogap_zbd_worker *zw, int e, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct iogap_zbd_worker *zw, int e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(zw->err, sizeof(zw->err), fmt, ap);
	va_end(ap);
	return -e;
}

uint8_t iogap_zbd_ddir(struct iogap_zbd_worker *zw, uint8_t ddir)
{
	const struct iogap_job *j = zw->job;

	/* fio's zbd_adjust_ddir(): a read mix starts by writing on empty zones */
	if (!zw->dev || ddir != IOGAP_OP_READ || !(j->rw & IOGAP_RW_WRITE) || j->read_beyond_wp)
		return ddir;
	return __atomic_load_n(&zw->dev->wp_bytes, __ATOMIC_RELAXED) ? ddir : IOGAP_OP_WRITE;
}

/* fio's zonemode=strided: zone_size bytes in each zone_range window, then
 * skip zone_range + zone_skip ahead */
static int strided_prep(struct iogap_zbd_worker *zw, struct iogap_io *io, uint64_t *seq_pos)
{
	const struct iogap_job *j = zw->job;
	uint64_t range = j->zone_range, off = io->offset;

	if (zw->zone_bytes >= j->zone_size) {
		zw->zone_bytes = 0;
		zw->file_offset += j->zone_range + j->zone_skip;
		if (zw->file_offset >= zw->region_end)
			zw->file_offset = zw->region_start;
		off = zw->file_offset;
	}
	if (zw->file_offset + range > zw->region_end)
		range = zw->region_end - zw->file_offset;
	if (zw->rnd) {
		uint64_t span = range > io->len ? range - io->len : 0;
		uint32_t bs = zw->min_bs[io->ddir];

		off = zw->file_offset + ((io->offset - zw->region_start) % (span + 1)) / bs * bs;
	} else if (off < zw->file_offset || off + io->len > zw->file_offset + range) {
		off = zw->file_offset;
	}
	if (off + io->len > zw->region_end)
		return IOGAP_ZBD_EOF;
	io->offset = off;
	if (!zw->rnd)
		seq_pos[io->ddir] = off + io->len;
	zw->zone_bytes += io->len;
	return IOGAP_ZBD_ACCEPT;
}

static void release(struct zdev *d, struct iogap_zbd_worker *zw, struct zinfo *z)
{
	if (z->owner == zw && !z->inflight) {
		z->owner = NULL;
		pthread_cond_broadcast(&d->cond);
	}
}

static void timed_wait(struct zdev *d)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += 20 * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	pthread_cond_timedwait(&d->cond, &d->lock, &ts);
}

/* Make zw the owner of z; another owner first drains our own requests,
 * then we wait (holding nothing) for it to finish. */
static int acquire(struct zdev *d, struct iogap_zbd_worker *zw, struct zinfo *z)
{
	while (z->owner && z->owner != zw) {
		if (zw->inflight)
			return IOGAP_ZBD_DRAIN;
		timed_wait(d);
	}
	z->owner = zw;
	return 0;
}

static void track(struct iogap_zbd_worker *zw, struct iogap_io *io, struct zinfo *z)
{
	struct zdev *d = zw->dev;

	z->inflight++;
	if (io->ddir == IOGAP_OP_WRITE)
		z->inflight_w++;
	zw->inflight++;
	d->inflight++;
	zw->slot_zone[io->slot] = (uint32_t)(z - d->z);
}

/* fio's zbd_find_zone(): the next zone (also the previous ones when
 * random) with min_bytes readable */
static struct zinfo *find_zone(struct iogap_zbd_worker *zw, struct zinfo *zb, uint64_t min_bytes)
{
	struct zdev *d = zw->dev;
	struct zinfo *zf = &d->z[zw->zj->min_zone], *zl = &d->z[zw->zj->max_zone];

	for (struct zinfo *z1 = zb + 1, *z2 = zb - 1; z1 < zl || z2 >= zf; z1++, z2--) {
		if (z1 < zl) {
			if (!z1->offline && z1->start + min_bytes <= (z1->has_wp ? z1->wp_done : z1->cap_end))
				return z1;
		} else if (!zw->rnd) {
			break;
		}
		if (zw->rnd && z2 >= zf && !z2->offline &&
		    z2->start + min_bytes <= (z2->has_wp ? z2->wp_done : z2->cap_end))
			return z2;
	}
	return NULL;
}

static int prep_read(struct iogap_zbd_worker *zw, struct iogap_io *io)
{
	struct zdev *d = zw->dev;
	uint64_t min_bs = zw->min_bs[IOGAP_OP_READ], orig_off = io->offset, range, len;
	struct zinfo *orig = &d->z[zone_idx(d, io->offset)], *z = orig;
	int r;

	if (!z->offline && zw->job->read_beyond_wp)
		return IOGAP_ZBD_ACCEPT;
	for (;;) {
		if (!z->has_wp)
			return IOGAP_ZBD_ACCEPT;   /* conventional zone */
		if ((r = acquire(d, zw, z)))
			return r;
		range = z->offline ? 0 : z->wp_done - z->start;
		if (range >= min_bs && (zw->rnd || io->offset + min_bs <= z->wp_done))
			break;
		release(d, zw, z);
		z = find_zone(zw, z, min_bs);
		if (!z)
			return IOGAP_ZBD_EOF;
		if (!zw->rnd)
			io->offset = z->start;
	}
	if (range <= io->len)
		io->offset = z->start;
	else if (zw->rnd)
		io->offset = z->start + ((orig_off - orig->start) % (range - io->len)) / min_bs * min_bs;
	len = z->wp_done - io->offset < io->len ? z->wp_done - io->offset : io->len;
	len = len / min_bs * min_bs;
	if (!len) {
		release(d, zw, z);
		return IOGAP_ZBD_EOF;
	}
	io->len = (uint32_t)len;
	track(zw, io, z);
	return IOGAP_ZBD_ACCEPT;
}

/* fio's zbd_adjust_block() for a trim: a random trim moves from an empty
 * zone to the nearest one with data; the zone is reset when the trim runs
 * (iogap_zbd_reset_trim) */
static int prep_trim(struct iogap_zbd_worker *zw, struct iogap_io *io)
{
	struct zdev *d = zw->dev;
	struct zinfo *z = &d->z[zone_idx(d, io->offset)];
	int r;

	for (;;) {
		if (!z->has_wp)
			return IOGAP_ZBD_ACCEPT;   /* conventional zone: a plain trim */
		if ((r = acquire(d, zw, z)))
			return r;
		if (!zw->rnd || z->wp > z->start)
			break;
		release(d, zw, z);
		z = find_zone(zw, z, 1);
		if (!z)
			return IOGAP_ZBD_EOF;
		io->offset = z->start;
	}
	if (z->inflight) {   /* our own writes to it first */
		release(d, zw, z);
		return IOGAP_ZBD_DRAIN;
	}
	if (io->offset != z->start) {
		release(d, zw, z);
		return fail(zw, EINVAL, "trim offset %" PRIu64 " is not at a zone start", io->offset);
	}
	track(zw, io, z);
	return IOGAP_ZBD_RESET;
}

/* fio's zbd_open_zone() */
static bool open_zone(struct iogap_zbd_worker *zw, struct zinfo *z)
{
	struct zdev *d = zw->dev;
	const struct iogap_job *j = zw->job;

	if (z->offline)
		return false;
	if (!d->max_open)
		return true;
	if (z->open)
		return z->wp < z->cap_end;
	if (j->job_max_open_zones && zw->open_count >= j->job_max_open_zones)
		return false;
	if (d->num_open >= d->max_open)
		return false;
	add_open(d, z, zw);
	return true;
}

static bool in_range(const struct iogap_zbd_worker *zw, uint32_t idx)
{
	return idx >= zw->zj->min_zone && idx < zw->zj->max_zone;
}

/* fio's zbd_convert_to_open_zone(): an open zone of this job's range with
 * room, else a newly opened one, else wait for zones to close */
static int convert_to_open(struct iogap_zbd_worker *zw, struct iogap_io *io, struct zinfo **zp)
{
	struct zdev *d = zw->dev;
	const struct zjob *zj = zw->zj;
	uint64_t min_bs = zw->min_bs[IOGAP_OP_WRITE];
	uint32_t nzr = zj->max_zone - zj->min_zone;

	for (;;) {
		unsigned n = d->num_open;
		unsigned first = n ? (unsigned)((io->offset - zj->start) * n / zj->len) : 0;
		uint32_t idx = (uint32_t)(*zp - d->z);

		if (first >= n)
			first = 0;
		if (!in_range(zw, idx))
			idx = zj->min_zone;
		for (int pass = 0; pass < 2; pass++) {
			for (unsigned i = 0; i < n; i++) {
				struct zinfo *z = &d->z[d->open_zones[(first + i) % n]];

				if (!in_range(zw, (uint32_t)(z - d->z)))
					continue;
				/* pass 0: room left; pass 1: idle, reset it */
				if (pass == 0 ? z->wp + min_bs <= z->cap_end :
				    !z->inflight && (!z->owner || z->owner == zw)) {
					*zp = z;
					return 0;
				}
			}
			if (pass)
				break;
			for (uint32_t k = 1; k <= nzr; k++) {
				uint32_t c = zj->min_zone + (idx - zj->min_zone + k) % nzr;
				struct zinfo *z = &d->z[c];

				if (!z->open && z->has_wp && open_zone(zw, z)) {
					*zp = z;
					return 0;
				}
			}
		}
		if (zw->inflight)
			return IOGAP_ZBD_DRAIN;
		if (!d->inflight)
			return IOGAP_ZBD_EOF;
		timed_wait(d);
	}
}

static int reset_zone(struct iogap_zbd_worker *zw, struct zinfo *z)
{
	struct zdev *d = zw->dev;

	z->reset_pending = 0;
	if (z->wp == z->start)
		return 0;
	if (d->fd >= 0) {
		int r = zops_op(d->fd, ZOP_RESET, z->start, z->end - z->start);

		if (r)
			return fail(zw, -r, "%s: zone reset at %" PRIu64 " failed: %s", d->path, z->start,
				    strerror(-r));
	}
	iogap_dprint(IOGAP_DBG_ZBD, "%s: resetting wp of zone %" PRIu64 " (wp %" PRIu64 ")\n",
		     d->path, z->start, z->wp);
	d->wp_bytes -= z->wp - z->start;
	z->wp = z->wp_done = z->start;
	(*zw->resets)++;
	return 0;
}

/* fio's zone_reset_threshold/zone_reset_frequency */
static bool reset_due(struct iogap_zbd_worker *zw)
{
	const struct iogap_job *j = zw->job;
	struct zdev *d = zw->dev;

	if (j->zone_reset_frequency <= 0.0)
		return false;
	if ((double)d->wp_bytes < (double)zw->zj->len * j->zone_reset_threshold)
		return false;
	if (d->write_cnt == UINT32_MAX)
		d->write_cnt = (uint32_t)(1.0 / j->zone_reset_frequency);
	if (d->write_cnt && --d->write_cnt)
		return false;
	d->write_cnt = (uint32_t)(1.0 / j->zone_reset_frequency);
	return true;
}

static int prep_write(struct iogap_zbd_worker *zw, struct iogap_io *io)
{
	struct zdev *d = zw->dev;
	uint64_t min_bs = zw->min_bs[IOGAP_OP_WRITE], len;
	struct zinfo *z = &d->z[zone_idx(d, io->offset)];
	int r;

	if (io->len > d->zone_size)
		return fail(zw, EINVAL, "block size %u exceeds the zone size %" PRIu64, io->len,
			    d->zone_size);
	if (!z->has_wp) {
		/* conventional zone: do not cross into a sequential one (fio) */
		struct zinfo *n = z + 1;

		if (z - d->z < d->nr_zones - 1 && n->has_wp && io->offset + io->len > n->start) {
			if (io->offset + min_bs > n->start)
				io->offset = z->start + n->start - io->offset;
			len = n->start - io->offset < io->len ? n->start - io->offset : io->len;
			io->len = (uint32_t)(len / min_bs * min_bs);
		}
		return IOGAP_ZBD_ACCEPT;
	}
	for (;;) {
		if (!open_zone(zw, z) && (r = convert_to_open(zw, io, &z)))
			return r;
		if ((r = acquire(d, zw, z)))
			return r;
		if (!d->max_open || z->open)
			break;
		release(d, zw, z);   /* closed while we waited: choose again */
	}
	if (reset_due(zw))
		z->reset_pending = 1;
	if (z->reset_pending || z->wp + min_bs > z->cap_end) {
		if (z->inflight) {
			z->reset_pending = 1;
			return IOGAP_ZBD_DRAIN;   /* our own writes to it first */
		}
		if ((r = reset_zone(zw, z)) < 0) {
			release(d, zw, z);
			return r;
		}
		if (z->cap_end - z->start < min_bs) {
			release(d, zw, z);
			return fail(zw, EINVAL, "zone capacity %" PRIu64 " is smaller than the block size %"
				    PRIu64, z->cap_end - z->start, min_bs);
		}
	}
	io->offset = z->wp;
	if (io->offset < zw->zj->start || io->offset >= zw->zj->start + zw->zj->len) {
		release(d, zw, z);
		return fail(zw, EINVAL, "write pointer %" PRIu64 " outside the job's range", io->offset);
	}
	len = z->cap_end - io->offset < io->len ? z->cap_end - io->offset : io->len;
	len = len / min_bs * min_bs;
	if (len < min_bs) {
		release(d, zw, z);
		return fail(zw, EIO, "zone remainder %" PRIu64 " is smaller than the block size %" PRIu64,
			    z->cap_end - io->offset, min_bs);
	}
	io->len = (uint32_t)len;
	z->wp += len;
	d->wp_bytes += len;
	track(zw, io, z);
	return IOGAP_ZBD_ACCEPT;
}

/* fio's setup_zbd_zone_mode() for sequential jobs, io->offset being the
 * last position: jump over the capacity gap, apply zoneskip */
static void seq_zone_mode(struct iogap_zbd_worker *zw, struct iogap_io *io)
{
	const struct iogap_job *j = zw->job;
	struct zdev *d = zw->dev;
	struct zinfo *z = &d->z[zone_idx(d, io->offset)];

	if (io->ddir == IOGAP_OP_WRITE && z->cap_end < z->end && io->offset >= z->cap_end &&
	    io->offset < z->end)
		io->offset = z->end;
	if (!j->zone_skip)
		return;
	if (zw->zone_bytes >= d->zone_size || io->offset >= z->end ||
	    (io->ddir == IOGAP_OP_READ && !j->read_beyond_wp && io->offset >= z->wp_done)) {
		zw->zone_bytes = 0;
		zw->file_offset += d->zone_size + j->zone_skip;
		if (zw->file_offset >= zw->region_end)
			zw->file_offset = zw->region_start;
		io->offset = zw->file_offset;
	}
}

int iogap_zbd_prep(struct iogap_zbd_worker *zw, struct iogap_io *io, uint64_t *seq_pos)
{
	uint64_t off = io->offset;
	uint32_t len = io->len;
	int r;

	if (!zw->dev)
		return strided_prep(zw, io, seq_pos);
	pthread_mutex_lock(&zw->dev->lock);
	if (!zw->rnd)
		seq_zone_mode(zw, io);
	if (io->offset + zw->min_bs[io->ddir] > zw->region_end)
		io->offset = zw->region_start;
	r = io->ddir == IOGAP_OP_WRITE ? prep_write(zw, io) :
	    io->ddir == IOGAP_OP_TRIM ? prep_trim(zw, io) : prep_read(zw, io);
	pthread_mutex_unlock(&zw->dev->lock);
	if (r == IOGAP_ZBD_DRAIN) {
		/* the runner chooses again: a sequential job resumes where it was */
		io->offset = off;
		io->len = len;
		if (!zw->rnd)
			seq_pos[io->ddir] = off;
	} else if (r == IOGAP_ZBD_ACCEPT || r == IOGAP_ZBD_RESET) {
		if (!zw->rnd)
			seq_pos[io->ddir] = io->offset + io->len;
		zw->zone_bytes += io->len;
	}
	return r;
}

/* re-learn a zone's write pointer after a failed write */
static void resync(struct zdev *d, struct zinfo *z)
{
	uint64_t wp = z->err_off;
	struct rzone r;

	if (d->fd >= 0 && zops_report(d->fd, z->start, d->size, &r, 1) == 1) {
		struct zinfo tmp;

		zone_from_report(&tmp, &r);
		wp = tmp.wp;
	}
	wp -= wp % 512;
	if (wp < z->start)
		wp = z->start;
	if (wp < z->wp) {
		d->wp_bytes -= z->wp - wp;
		z->wp = wp;
	}
	z->err_off = NO_OFF;
	if (z->wp >= z->cap_end)
		close_zone(d, z);
}

static void finish_io(struct iogap_zbd_worker *zw, const struct iogap_io *io, bool ok)
{
	struct zdev *d = zw->dev;
	struct zinfo *z;
	uint32_t idx;

	if (!d || io->slot >= zw->depth || (idx = zw->slot_zone[io->slot]) == NO_ZONE)
		return;
	zw->slot_zone[io->slot] = NO_ZONE;
	pthread_mutex_lock(&d->lock);
	z = &d->z[idx];
	z->inflight--;
	zw->inflight--;
	d->inflight--;
	if (io->ddir == IOGAP_OP_WRITE) {
		z->inflight_w--;
		if (!ok) {
			uint64_t at = io->offset + (io->result > 0 ? (uint64_t)io->result : 0);

			if (at < z->err_off)
				z->err_off = at;
		} else if (io->offset + io->len >= z->cap_end) {
			close_zone(d, z);   /* fio's zbd_end_zone_io() */
		}
		if (!z->inflight_w) {
			if (z->err_off != NO_OFF)
				resync(d, z);
			z->wp_done = z->wp;
		}
	}
	if (!z->inflight) {
		z->owner = NULL;
		pthread_cond_broadcast(&d->cond);
	}
	pthread_mutex_unlock(&d->lock);
}

int iogap_zbd_reset_trim(struct iogap_zbd_worker *zw, struct iogap_io *io)
{
	struct zdev *d = zw->dev;
	int r;

	pthread_mutex_lock(&d->lock);
	r = reset_zone(zw, &d->z[zone_idx(d, io->offset)]);
	pthread_mutex_unlock(&d->lock);
	io->result = r < 0 ? r : (int64_t)io->len;
	return IOGAP_Q_COMPLETED;
}

void iogap_zbd_complete(struct iogap_zbd_worker *zw, const struct iogap_io *io)
{
	finish_io(zw, io, io->result >= 0 && (uint64_t)io->result == io->len);
}

void iogap_zbd_cancel(struct iogap_zbd_worker *zw, const struct iogap_io *io)
{
	struct iogap_io tmp = *io;

	tmp.result = 0;
	finish_io(zw, &tmp, false);
}
