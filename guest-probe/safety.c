/* SPDX-License-Identifier: MIT */
/*
 * Data safety: before a job writes to a file or device, look for anything
 * that says it holds data someone cares about.
 *
 *  - in use: mounted (by device number or by mount source), used as swap,
 *    held by device-mapper/md (sysfs holders), or a file backing a loop
 *    device;
 *  - content: disk image headers libblkid does not know (qcow2, VMDK, VHDX,
 *    VHD, VDI, QED, Parallels), then every libblkid signature: filesystems,
 *    RAID/LVM members, crypto (LUKS), swap, partition tables.
 *
 * Everything found is listed in why, joined by "; ".  The function only
 * answers; whether read-only use is fine anyway is the caller's decision.
 */
#include <blkid/blkid.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "safety.h"

/* What was found so far, as "a; b; c". */
struct findings {
	char *buf;
	size_t len;
	size_t pos;
	int count;
};

static void found(struct findings *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void found(struct findings *f, const char *fmt, ...)
{
	va_list ap;
	int n;

	f->count++;
	if (!f->buf || f->pos + 1 >= f->len)
		return;
	if (f->pos) {
		n = snprintf(f->buf + f->pos, f->len - f->pos, "; ");
		f->pos += (size_t)n;
		if (f->pos >= f->len) {
			f->pos = f->len - 1;
			return;
		}
	}
	va_start(ap, fmt);
	n = vsnprintf(f->buf + f->pos, f->len - f->pos, fmt, ap);
	va_end(ap);
	f->pos += n > 0 ? (size_t)n : 0;
	if (f->pos >= f->len)
		f->pos = f->len - 1;
}

static void say(char *why, size_t whylen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void say(char *why, size_t whylen, const char *fmt, ...)
{
	va_list ap;

	if (!why || !whylen)
		return;
	va_start(ap, fmt);
	vsnprintf(why, whylen, fmt, ap);
	va_end(ap);
}

/* Reads a small sysfs/proc file, strips the trailing newline. */
static bool read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	bool ok;

	if (!f)
		return false;
	ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	if (ok)
		buf[strcspn(buf, "\n")] = 0;
	return ok;
}

/* ------------------------------------------------------------ the target */

/* The device numbers whose use makes the target busy: the device itself
 * and, for a whole disk, each of its partitions (from sysfs). */
struct devset {
	dev_t dev[256];
	char name[256][32];
	int n;
};

static void devset_add(struct devset *s, dev_t d, const char *name)
{
	if (s->n >= (int)(sizeof(s->dev) / sizeof(s->dev[0])))
		return;
	s->dev[s->n] = d;
	snprintf(s->name[s->n], sizeof(s->name[0]), "%.31s", name);
	s->n++;
}

static int devset_find(const struct devset *s, dev_t d)
{
	for (int i = 0; i < s->n; i++)
		if (s->dev[i] == d)
			return i;
	return -1;
}

static bool parse_dev(const char *s, dev_t *d)
{
	unsigned ma, mi;

	if (sscanf(s, "%u:%u", &ma, &mi) != 2)
		return false;
	*d = makedev(ma, mi);
	return true;
}

static void collect_partitions(struct devset *s, dev_t disk)
{
	char dir[64], p[PATH_MAX], line[64];
	struct dirent *de;
	DIR *d;
	dev_t pd;

	snprintf(dir, sizeof(dir), "/sys/dev/block/%u:%u", major(disk), minor(disk));
	d = opendir(dir);
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s/partition", dir, de->d_name);
		if (access(p, F_OK))
			continue;
		snprintf(p, sizeof(p), "%s/%s/dev", dir, de->d_name);
		if (read_line(p, line, sizeof(line)) && parse_dev(line, &pd))
			devset_add(s, pd, de->d_name);
	}
	closedir(d);
}

/* ------------------------------------------------------------ in use */

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static void unescape(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' &&
		    s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*o++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*o++ = *s;
		}
	}
	*o = 0;
}

/* Does a mount source (a path) name the target? */
static bool source_matches(const char *src, const struct stat *tst,
			   const struct devset *devs, int *which)
{
	struct stat st;

	if (src[0] != '/' || stat(src, &st))
		return false;
	if (S_ISBLK(st.st_mode) && S_ISBLK(tst->st_mode)) {
		*which = devset_find(devs, st.st_rdev);
		return *which >= 0;
	}
	*which = 0;
	return S_ISREG(st.st_mode) && st.st_dev == tst->st_dev && st.st_ino == tst->st_ino;
}

static void check_mounts(const struct stat *tst, const struct devset *devs,
			 struct findings *f)
{
	FILE *mi = fopen("/proc/self/mountinfo", "re");
	char *line = NULL;
	size_t cap = 0;

	if (!mi)
		return;
	while (getline(&line, &cap, mi) > 0) {
		char mm[32], mnt[4096], src[4096], *sep;
		dev_t d;
		int which = -1;

		/* id parent major:minor root mountpoint ... - fstype source ... */
		if (sscanf(line, "%*d %*d %31s %*s %4095s", mm, mnt) != 2)
			continue;
		sep = strstr(line, " - ");
		if (!sep || sscanf(sep + 3, "%*s %4095s", src) != 1)
			continue;
		unescape(mnt);
		unescape(src);
		if (S_ISBLK(tst->st_mode) && parse_dev(mm, &d))
			which = devset_find(devs, d);
		if (which < 0 && !source_matches(src, tst, devs, &which))
			continue;
		if (which > 0)
			found(f, "partition %s mounted on %s", devs->name[which], mnt);
		else
			found(f, "mounted on %s", mnt);
	}
	free(line);
	fclose(mi);
}

static void check_swaps(const struct stat *tst, const struct devset *devs,
			struct findings *f)
{
	FILE *sw = fopen("/proc/swaps", "re");
	char line[4352], name[4096];

	if (!sw)
		return;
	while (fgets(line, sizeof(line), sw)) {
		int which = -1;

		if (sscanf(line, "%4095s", name) != 1 || name[0] != '/')
			continue;
		unescape(name);
		if (source_matches(name, tst, devs, &which))
			found(f, "%s in use as swap", which > 0 ? devs->name[which] :
			      "active");
	}
	fclose(sw);
}

/* What a holder is: device-mapper names itself in dm/name, md in md/. */
static void describe_holder(const char *holder, char *out, size_t len)
{
	char p[PATH_MAX], name[128];

	snprintf(p, sizeof(p), "/sys/block/%s/dm/name", holder);
	if (read_line(p, name, sizeof(name))) {
		snprintf(out, len, "device-mapper %s (%s)", holder, name);
		return;
	}
	snprintf(p, sizeof(p), "/sys/block/%s/md", holder);
	if (!access(p, F_OK)) {
		snprintf(out, len, "md RAID %s", holder);
		return;
	}
	snprintf(out, len, "%s", holder);
}

static void check_holders(const struct devset *devs, struct findings *f)
{
	for (int i = 0; i < devs->n; i++) {
		char dir[96], what[768];
		struct dirent *de;
		DIR *d;

		snprintf(dir, sizeof(dir), "/sys/dev/block/%u:%u/holders",
			 major(devs->dev[i]), minor(devs->dev[i]));
		d = opendir(dir);
		if (!d)
			continue;
		while ((de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			describe_holder(de->d_name, what, sizeof(what));
			if (i)
				found(f, "partition %s held by %s", devs->name[i], what);
			else
				found(f, "held by %s", what);
		}
		closedir(d);
	}
}

/* A regular file attached to a loop device is in use through it. */
static void check_loop_backing(const struct stat *tst, struct findings *f)
{
	DIR *d = opendir("/sys/block");
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		char p[PATH_MAX], backing[PATH_MAX];
		struct stat st;

		if (strncmp(de->d_name, "loop", 4))
			continue;
		snprintf(p, sizeof(p), "/sys/block/%s/loop/backing_file", de->d_name);
		if (!read_line(p, backing, sizeof(backing)))
			continue;
		if (!stat(backing, &st) && st.st_dev == tst->st_dev &&
		    st.st_ino == tst->st_ino)
			found(f, "backing file of /dev/%s", de->d_name);
	}
	closedir(d);
}

/* ------------------------------------------------------------ content */

static bool at(const unsigned char *buf, size_t len, size_t off, const void *magic,
	       size_t mlen)
{
	return off + mlen <= len && !memcmp(buf + off, magic, mlen);
}

/* Image formats libblkid has no prober for.  head: the first bytes of the
 * target; tail: its last 512 bytes (a fixed VHD keeps its footer there). */
static void check_images(const unsigned char *head, size_t hlen,
			 const unsigned char *tail, size_t tlen, struct findings *f)
{
	static const uint8_t vdi_magic[4] = { 0x7f, 0x10, 0xda, 0xbe };

	if (at(head, hlen, 0, "QFI\xfb", 4))
		found(f, "qcow2 disk image header");
	if (at(head, hlen, 0, "KDMV", 4) || at(head, hlen, 0, "# Disk DescriptorFile", 21))
		found(f, "vmdk disk image header");
	if (at(head, hlen, 0, "vhdxfile", 8))
		found(f, "vhdx disk image header");
	if (at(head, hlen, 0, "conectix", 8) || at(tail, tlen, 0, "conectix", 8))
		found(f, "vhd (vpc) disk image header");
	if (at(head, hlen, 0x40, vdi_magic, 4))
		found(f, "vdi disk image header");
	if (at(head, hlen, 0, "QED\0", 4))
		found(f, "qed disk image header");
	if (at(head, hlen, 0, "WithoutFreeSpace", 16) ||
	    at(head, hlen, 0, "WithouFreSpacExt", 16))
		found(f, "parallels disk image header");
}

static const char *usage_words(const char *usage, const char *type)
{
	if (!usage)
		return "signature";
	if (!strcmp(usage, "filesystem"))
		return "filesystem";
	if (!strcmp(usage, "raid"))
		return strstr(type, "LVM") ? "LVM physical volume" : "RAID member";
	if (!strcmp(usage, "crypto"))
		return "encrypted volume";
	return "signature";
}

static const char *lookup(blkid_probe pr, const char *name)
{
	const char *v = NULL;

	return blkid_probe_lookup_value(pr, name, &v, NULL) == 0 ? v : NULL;
}

/* One result of the superblocks or partitions chain. */
static void describe_probe(blkid_probe pr, struct findings *f)
{
	const char *type = lookup(pr, "TYPE"), *pt = lookup(pr, "PTTYPE");
	const char *uuid, *label;
	char extra[256] = "";

	if (!type) {
		if (pt)
			found(f, "%s partition table", pt);
		return;
	}
	uuid = lookup(pr, "UUID");
	label = lookup(pr, "LABEL");
	if (uuid && label)
		snprintf(extra, sizeof(extra), " (UUID %s, label \"%s\")", uuid, label);
	else if (uuid)
		snprintf(extra, sizeof(extra), " (UUID %s)", uuid);
	else if (label)
		snprintf(extra, sizeof(extra), " (label \"%s\")", label);
	found(f, "%s %s%s", type, usage_words(lookup(pr, "USAGE"), type), extra);
}

static int check_blkid(int fd, struct findings *f, char *why, size_t whylen)
{
	blkid_probe pr = blkid_new_probe();
	int rc;

	if (!pr || blkid_probe_set_device(pr, fd, 0, 0)) {
		if (pr)
			blkid_free_probe(pr);
		say(why, whylen, "libblkid cannot probe the target");
		return -1;
	}
	blkid_probe_enable_superblocks(pr, 1);
	/* BADCSUM: a signature with a bad checksum is still someone's data. */
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE | BLKID_SUBLKS_USAGE |
					  BLKID_SUBLKS_UUID | BLKID_SUBLKS_LABEL |
					  BLKID_SUBLKS_BADCSUM);
	blkid_probe_enable_partitions(pr, 1);
	blkid_probe_set_partitions_flags(pr, BLKID_PARTS_MAGIC);
	/* Each call yields the next result of the enabled chains. */
	while ((rc = blkid_do_probe(pr)) == 0)
		describe_probe(pr, f);
	blkid_free_probe(pr);
	if (rc < 0) {
		say(why, whylen, "libblkid probing failed");
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------------ entry */

static int check_content(const char *path, struct findings *f, char *why, size_t whylen)
{
	unsigned char head[4096], tail[512];
	ssize_t hn, tn = 0;
	off_t size;
	int fd, rc;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		say(why, whylen, "%s: %s", path, strerror(errno));
		return -1;
	}
	size = lseek(fd, 0, SEEK_END);
	hn = pread(fd, head, sizeof(head), 0);
	if (size >= (off_t)sizeof(tail))
		tn = pread(fd, tail, sizeof(tail), size - (off_t)sizeof(tail));
	if (hn < 0 || tn < 0 || size < 0) {
		say(why, whylen, "%s: reading: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	check_images(head, (size_t)hn, tail, (size_t)tn, f);
	rc = size > 0 ? check_blkid(fd, f, why, whylen) : 0;
	close(fd);
	return rc;
}

int iogap_target_check(const char *path, char *why, size_t whylen)
{
	struct findings f = { .buf = why, .len = whylen };
	struct devset *devs;
	struct stat st;
	char err[512];

	if (why && whylen)
		why[0] = 0;
	if (stat(path, &st)) {
		if (errno == ENOENT)
			return 0;
		say(why, whylen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (S_ISDIR(st.st_mode)) {
		say(why, whylen, "%s is a directory, not a file or block device", path);
		return -1;
	}
	if (S_ISCHR(st.st_mode)) {
		/* /dev/null and /dev/zero hold nothing; any other character
		 * device (/dev/mem, /dev/sg*, NVMe generic nodes) cannot be
		 * checked for data, so it is refused like one that holds some */
		if (major(st.st_rdev) == 1 && (minor(st.st_rdev) == 3 || minor(st.st_rdev) == 5))
			return 0;
		say(why, whylen, "a character device (%u:%u), whose contents cannot be checked",
		    major(st.st_rdev), minor(st.st_rdev));
		return 1;
	}
	if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode))
		return 0;       /* fifos, sockets: nothing to probe */

	devs = calloc(1, sizeof(*devs));
	if (!devs) {
		say(why, whylen, "out of memory");
		return -1;
	}
	if (S_ISBLK(st.st_mode)) {
		devset_add(devs, st.st_rdev, "");
		collect_partitions(devs, st.st_rdev);
		check_holders(devs, &f);
	} else {
		check_loop_backing(&st, &f);
	}
	check_mounts(&st, devs, &f);
	check_swaps(&st, devs, &f);
	free(devs);

	if (check_content(path, &f, err, sizeof(err)) < 0) {
		/* Already known to be in use: that answer stands. */
		if (f.count)
			return 1;
		say(why, whylen, "%s", err);
		return -1;
	}
	return f.count ? 1 : 0;
}
