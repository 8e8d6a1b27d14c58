/* SPDX-License-Identifier: MIT */
/*
 * fio's disk utilisation (diskutil.c): for every block device under the
 * job files, /sys/block/X/stat before and after the run; a partition is
 * reported as its whole disk, and a dm/md device also lists its slaves and
 * carries their averaged ("aggr") counters.  Files on tmpfs, overlay and
 * other device-less filesystems simply contribute no disk.
 */
#include <dirent.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "output.h"
#include "debug.h"

#define MAX_DISKS        64
#define MAX_SLAVE_DEPTH  4     /* dm on md on ...: plenty */

struct disk_counters {
	uint64_t ios[2], merges[2], sectors[2], ticks[2];
	uint64_t io_ticks, time_in_queue;
};

struct disk_ent {
	char name[64];
	char stat_path[PATH_MAX];
	unsigned maj, min;           /* of the file or slave that led here */
	int master;                  /* index of the dm/md above, -1 if none */
	struct disk_counters before;
};

struct iogap_disk_set {
	struct disk_ent d[MAX_DISKS];
	size_t nr;
	struct timespec t0;
};

/* /sys/block/X/stat: fio reads these eleven fields (in_flight skipped). */
static int read_counters(const char *path, struct disk_counters *c)
{
	unsigned long long v[11];
	char line[512];
	FILE *f = fopen(path, "r");
	int n;

	if (!f)
		return -1;
	if (!fgets(line, sizeof(line), f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	n = sscanf(line, "%llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu",
		   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8],
		   &v[9], &v[10]);
	if (n != 11)
		return -1;
	c->ios[0] = v[0], c->merges[0] = v[1], c->sectors[0] = v[2], c->ticks[0] = v[3];
	c->ios[1] = v[4], c->merges[1] = v[5], c->sectors[1] = v[6], c->ticks[1] = v[7];
	c->io_ticks = v[9], c->time_in_queue = v[10];
	return 0;
}

/*
 * fio's get_device_numbers: a block device stands for itself, a character
 * device or fifo for nothing, anything else for the filesystem it lives
 * on; a file not created yet for its directory's filesystem.  (fio uses
 * lstat and so finds nothing behind a symlink such as /dev/disk/by-id/x;
 * iogap follows the link.)
 */
static int device_numbers(const char *file, unsigned *maj, unsigned *min)
{
	char tmp[PATH_MAX];
	struct stat st;

	if (!stat(file, &st)) {
		if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))
			return -1;
		if (S_ISBLK(st.st_mode)) {
			*maj = major(st.st_rdev), *min = minor(st.st_rdev);
			return 0;
		}
	} else {
		snprintf(tmp, sizeof(tmp), "%s", file);
		if (stat(dirname(tmp), &st))
			return -1;
	}
	*maj = major(st.st_dev), *min = minor(st.st_dev);
	return 0;
}

/* The sysfs directory of a device number, or -1 when the kernel has no
 * block device by that number (tmpfs, overlay, btrfs subvolumes...). */
static int sysfs_dir(unsigned maj, unsigned min, char *out)
{
	char link[64];

	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", maj, min);
	return realpath(link, out) ? 0 : -1;
}

/* A partition has no queue/ but its parent disk has: report the disk, as
 * fio's __init_per_file_disk_util does. */
static void whole_disk(char *dir)
{
	char tmp[PATH_MAX + 16];
	struct stat st;

	snprintf(tmp, sizeof(tmp), "%s/queue", dir);
	if (!stat(tmp, &st))
		return;
	snprintf(tmp, sizeof(tmp), "%s/../queue", dir);
	if (stat(tmp, &st))
		return;
	*strrchr(dir, '/') = '\0';
}

static int find_name(const struct iogap_disk_set *set, const char *name)
{
	size_t i;

	for (i = 0; i < set->nr; i++)
		if (!strcmp(set->d[i].name, name))
			return (int)i;
	return -1;
}

static int find_devno(const struct iogap_disk_set *set, unsigned maj, unsigned min)
{
	size_t i;

	for (i = 0; i < set->nr; i++)
		if (set->d[i].maj == maj && set->d[i].min == min)
			return (int)i;
	return -1;
}

static int add_dir(struct iogap_disk_set *set, char *dir, unsigned maj, unsigned min,
		   int master, int depth);

/* fio's find_add_disk_slaves: every device under a dm/md one. */
static void add_slaves(struct iogap_disk_set *set, const char *dir, int master, int depth)
{
	char path[PATH_MAX + 64], sdir[PATH_MAX];
	struct dirent *de;
	unsigned maj, min;
	DIR *d;

	if (depth >= MAX_SLAVE_DEPTH)
		return;
	snprintf(path, sizeof(path), "%s/slaves", dir);
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d))) {
		FILE *f;
		int ok;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/slaves/%s", dir, de->d_name);
		if (!realpath(path, sdir))
			continue;
		snprintf(path, sizeof(path), "%s/dev", sdir);
		f = fopen(path, "r");
		if (!f)
			continue;
		ok = fscanf(f, "%u:%u", &maj, &min) == 2;
		fclose(f);
		if (ok && find_devno(set, maj, min) < 0)
			add_dir(set, sdir, maj, min, master, depth + 1);
	}
	closedir(d);
}

/* fio's disk_util_add: one entry per disk name, counters read now. */
static int add_dir(struct iogap_disk_set *set, char *dir, unsigned maj, unsigned min,
		   int master, int depth)
{
	struct disk_ent *e;
	int idx;

	whole_disk(dir);
	idx = find_name(set, strrchr(dir, '/') + 1);
	if (idx >= 0)
		return idx;
	if (set->nr >= MAX_DISKS)
		return -1;

	e = &set->d[set->nr];
	memset(e, 0, sizeof(*e));
	snprintf(e->name, sizeof(e->name), "%s", strrchr(dir, '/') + 1);
	snprintf(e->stat_path, sizeof(e->stat_path), "%.*s/stat", PATH_MAX - 8, dir);
	iogap_dprint(IOGAP_DBG_DISKUTIL, "add disk %s (%u:%u) from %s\n", e->name, maj, min, dir);
	e->maj = maj, e->min = min;
	e->master = master;
	if (read_counters(e->stat_path, &e->before))
		return -1;
	idx = (int)set->nr++;
	add_slaves(set, dir, idx, depth);
	return idx;
}

struct iogap_disk_set *iogap_disk_util_start(const char *const *files, size_t nr)
{
	struct iogap_disk_set *set = calloc(1, sizeof(*set));
	char dir[PATH_MAX];
	unsigned maj, min;
	size_t i;

	if (!set)
		return NULL;
	for (i = 0; i < nr; i++) {
		if (!files[i] || device_numbers(files[i], &maj, &min))
			continue;
		if (find_devno(set, maj, min) >= 0 || sysfs_dir(maj, min, dir))
			continue;
		add_dir(set, dir, maj, min, -1, 0);
	}
	clock_gettime(CLOCK_MONOTONIC, &set->t0);
	return set;
}

static uint64_t delta(uint64_t after, uint64_t before)
{
	return after - before;   /* counters only grow; wrap as fio's do */
}

/* fio's aggregate_slaves_stats: sums over the slaves, utilisation of the
 * busiest one. */
static void aggregate(struct iogap_disk_util *out, const struct iogap_disk_set *set, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		struct iogap_disk_util *m, *s = &out[i];
		double util;
		int k;

		if (set->d[i].master < 0)
			continue;
		m = &out[set->d[i].master];
		for (k = 0; k < 2; k++) {
			m->agg_ios[k] += s->ios[k];
			m->agg_merges[k] += s->merges[k];
			m->agg_sectors[k] += s->sectors[k];
			m->agg_ticks[k] += s->ticks[k];
		}
		m->agg_time_in_queue += s->time_in_queue;
		m->slavecount++;
		util = 100.0 * (double)s->io_ticks / (double)s->msec;
		if (util > m->agg_max_util)
			m->agg_max_util = util;
	}
	for (i = 0; i < nr; i++)
		if (out[i].agg_max_util > 100.0)
			out[i].agg_max_util = 100.0;
}

size_t iogap_disk_util_finish(struct iogap_disk_set *set, struct iogap_disk_util **out)
{
	struct iogap_disk_util *du;
	struct timespec t1;
	uint64_t msec;
	size_t i;

	*out = NULL;
	if (!set)
		return 0;
	if (!set->nr || !(du = calloc(set->nr, sizeof(*du)))) {
		free(set);
		return 0;
	}

	clock_gettime(CLOCK_MONOTONIC, &t1);
	msec = (uint64_t)((t1.tv_sec - set->t0.tv_sec) * 1000000000LL +
			  (t1.tv_nsec - set->t0.tv_nsec)) / 1000000;

	for (i = 0; i < set->nr; i++) {
		const struct disk_ent *e = &set->d[i];
		struct disk_counters now;
		int k;

		snprintf(du[i].name, sizeof(du[i].name), "%s", e->name);
		du[i].msec = msec;
		/* A device gone mid-run reports what it did until then: nothing. */
		if (read_counters(e->stat_path, &now))
			now = e->before;
		for (k = 0; k < 2; k++) {
			du[i].ios[k] = delta(now.ios[k], e->before.ios[k]);
			du[i].merges[k] = delta(now.merges[k], e->before.merges[k]);
			du[i].sectors[k] = delta(now.sectors[k], e->before.sectors[k]);
			du[i].ticks[k] = delta(now.ticks[k], e->before.ticks[k]);
		}
		du[i].io_ticks = delta(now.io_ticks, e->before.io_ticks);
		du[i].time_in_queue = delta(now.time_in_queue, e->before.time_in_queue);
		du[i].util = msec ? 100.0 * (double)du[i].io_ticks / (double)msec : 0.0;
		if (du[i].util > 100.0)
			du[i].util = 100.0;
	}
	aggregate(du, set, set->nr);

	*out = du;
	i = set->nr;
	free(set);
	return i;
}
