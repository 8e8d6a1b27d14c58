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
#include <inttypes.h>
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

/* One result of the superblocks or partitions chain, found off bytes in. */
static void describe_probe(blkid_probe pr, uint64_t off, struct findings *f)
{
	const char *type = lookup(pr, "TYPE"), *pt = lookup(pr, "PTTYPE");
	const char *uuid, *label;
	char extra[256] = "", where[48] = "";

	if (off)
		snprintf(where, sizeof(where), " at offset %" PRIu64, off);
	if (!type) {
		if (pt)
			found(f, "%s partition table%s", pt, where);
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
	found(f, "%s %s%s%s", type, usage_words(lookup(pr, "USAGE"), type), extra, where);
}

/* Where a signature may start besides 0, as a partition table would say
 * but none may be there (a filesystem written at 1 MiB of a bare disk):
 * the DOS start at sector 63, every MiB of the first 64 MiB and every
 * power of two MiB past them; with r, each clone's start and the first
 * MiBs of its region (REGION_MIBS; the first REGION_CLONES clones).  At
 * most PROBE_MAX offsets: each costs a libblkid pass. */
#define PROBE_MAX 256
#define REGION_CLONES 64
#define REGION_MIBS 16
#define MIB (UINT64_C(1) << 20)

static size_t add_offset(uint64_t *offs, size_t n, uint64_t off, uint64_t size)
{
	if (n >= PROBE_MAX || off >= size)
		return n;
	for (size_t i = 0; i < n; i++)
		if (offs[i] == off)
			return n;
	offs[n] = off;
	return n + 1;
}

static size_t region_offsets(const struct iogap_target_region *r, uint64_t size,
			     uint64_t *offs, size_t n)
{
	for (unsigned c = 0; c < r->numjobs && c < REGION_CLONES; c++) {
		uint64_t start = r->offset + c * r->offset_increment;
		uint64_t end = r->size ? start + r->size : size;
		uint64_t m = (start + MIB - 1) & ~(MIB - 1);

		n = add_offset(offs, n, start & ~UINT64_C(511), size);
		for (unsigned k = 0; m < end && k < REGION_MIBS; m += MIB, k++)
			n = add_offset(offs, n, m, size);
	}
	return n;
}

static size_t probe_offsets(uint64_t size, const struct iogap_target_region *r,
			    uint64_t offs[PROBE_MAX])
{
	size_t n = add_offset(offs, 0, 0, size);

	n = add_offset(offs, n, 63 * 512, size);
	for (uint64_t m = MIB; m <= 64 * MIB; m += MIB)
		n = add_offset(offs, n, m, size);
	for (uint64_t m = 128 * MIB; m && m < size; m <<= 1)
		n = add_offset(offs, n, m, size);
	return r ? region_offsets(r, size, offs, n) : n;
}

/* Every result of the superblocks and partitions chains for the bytes
 * from off on, as if they were a device of their own. */
static int probe_at(blkid_probe pr, int fd, uint64_t off, uint64_t size, struct findings *f)
{
	int rc;

	if (blkid_probe_set_device(pr, fd, (blkid_loff_t)off, (blkid_loff_t)(size - off)))
		return -1;
	blkid_probe_enable_superblocks(pr, 1);
	/* BADCSUM: a signature with a bad checksum is still someone's data. */
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE | BLKID_SUBLKS_USAGE |
					  BLKID_SUBLKS_UUID | BLKID_SUBLKS_LABEL |
					  BLKID_SUBLKS_BADCSUM);
	blkid_probe_enable_partitions(pr, 1);
	blkid_probe_set_partitions_flags(pr, BLKID_PARTS_MAGIC);
	/* Each call yields the next result of the enabled chains. */
	while ((rc = blkid_do_probe(pr)) == 0)
		describe_probe(pr, off, f);
	return rc < 0 ? -1 : 0;
}

static int check_blkid(int fd, uint64_t size, const struct iogap_target_region *r,
		       struct findings *f, char *why, size_t whylen)
{
	blkid_probe pr = blkid_new_probe();
	uint64_t offs[PROBE_MAX];
	size_t n = probe_offsets(size, r, offs);
	int rc = 0;

	if (!pr) {
		say(why, whylen, "libblkid cannot probe the target");
		return -1;
	}
	/* past 0, the first place something is found is enough to say so */
	for (size_t i = 0; i < n && !rc && !(i && f->count); i++)
		rc = probe_at(pr, fd, offs[i], size, f);
	blkid_free_probe(pr);
	if (rc)
		say(why, whylen, "libblkid probing failed");
	return rc;
}

/* ------------------------------------------------------------ entry */

static int check_content(int fd, const struct iogap_target_region *r, struct findings *f,
			 char *why, size_t whylen)
{
	unsigned char head[4096], tail[512];
	ssize_t hn, tn = 0;
	off_t size;

	size = lseek(fd, 0, SEEK_END);
	hn = pread(fd, head, sizeof(head), 0);
	if (size >= (off_t)sizeof(tail))
		tn = pread(fd, tail, sizeof(tail), size - (off_t)sizeof(tail));
	if (hn < 0 || tn < 0 || size < 0) {
		say(why, whylen, "reading: %s", strerror(errno));
		return -1;
	}
	check_images(head, (size_t)hn, tail, (size_t)tn, f);
	return size > 0 ? check_blkid(fd, (uint64_t)size, r, f, why, whylen) : 0;
}

/* Mounted, swap, held, loop backing: what st says the target is used as. */
static int check_in_use(const struct stat *st, struct findings *f, char *why, size_t whylen)
{
	struct devset *devs = calloc(1, sizeof(*devs));

	if (!devs) {
		say(why, whylen, "out of memory");
		return -1;
	}
	if (S_ISBLK(st->st_mode)) {
		devset_add(devs, st->st_rdev, "");
		collect_partitions(devs, st->st_rdev);
		check_holders(devs, f);
	} else {
		check_loop_backing(st, f);
	}
	check_mounts(st, devs, f);
	check_swaps(st, devs, f);
	free(devs);
	return 0;
}

/* What st says without opening anything: 0 writable, 1 holds data, -1
 * refused, 2 a file or block device to open and look into. */
static int check_kind(const struct stat *st, const char *name, char *why, size_t whylen)
{
	if (S_ISDIR(st->st_mode)) {
		say(why, whylen, "%s is a directory, not a file or block device", name);
		return -1;
	}
	if (S_ISCHR(st->st_mode)) {
		/* /dev/null and /dev/zero hold nothing; any other character
		 * device (/dev/mem, /dev/sg*, NVMe generic nodes) cannot be
		 * checked for data, so it is refused like one that holds some */
		if (major(st->st_rdev) == 1 && (minor(st->st_rdev) == 3 || minor(st->st_rdev) == 5))
			return 0;
		say(why, whylen, "a character device (%u:%u), whose contents cannot be checked",
		    major(st->st_rdev), minor(st->st_rdev));
		return 1;
	}
	if (!S_ISREG(st->st_mode) && !S_ISBLK(st->st_mode)) {
		say(why, whylen, "%s is %s, not a regular file or device", name,
		    iogap_file_kind(st));
		return -1;
	}
	return 2;
}

/* Opens path for reading and checks what it opened: the same file as
 * expect (st_dev, st_ino), else it changed while being checked. */
static int check_path(const char *path, const char *name, const struct stat *expect,
		      const struct iogap_target_region *r, struct iogap_file_ids *checked,
		      char *why, size_t whylen)
{
	struct findings f = { .buf = why, .len = whylen };
	char err[512];
	struct stat st;
	int fd, rc;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		/* unreadable (a device cgroup): known in use is answer enough */
		snprintf(err, sizeof(err), "%s: %s", name, strerror(errno));
		if (check_in_use(expect, &f, why, whylen) || !f.count)
			say(why, whylen, "%s", err);
		return f.count ? 1 : -1;
	}
	if (fstat(fd, &st) || st.st_dev != expect->st_dev || st.st_ino != expect->st_ino ||
	    (st.st_mode & S_IFMT) != (expect->st_mode & S_IFMT)) {
		say(why, whylen, "%s changed while it was being checked", name);
		close(fd);
		return -1;
	}
	rc = check_in_use(&st, &f, why, whylen);
	if (!rc && check_content(fd, r, &f, err, sizeof(err)) < 0) {
		/* already known to be in use: that answer stands */
		if (!f.count)
			say(why, whylen, "%s", err);
		rc = f.count ? 0 : -1;
	}
	close(fd);
	if (!rc)
		rc = f.count ? 1 : 0;
	if (!rc && checked && iogap_file_ids_add_stat(checked, &st)) {
		say(why, whylen, "out of memory");
		return -1;
	}
	return rc;
}

int iogap_target_check_region(const char *path, const struct iogap_target_region *r,
			      struct iogap_file_ids *checked, char *why, size_t whylen)
{
	struct stat st;
	int rc;

	if (why && whylen)
		why[0] = 0;
	if (stat(path, &st)) {
		if (errno == ENOENT)
			return 0;
		say(why, whylen, "%s: %s", path, strerror(errno));
		return -1;
	}
	rc = check_kind(&st, path, why, whylen);
	return rc == 2 ? check_path(path, path, &st, r, checked, why, whylen) : rc;
}

int iogap_target_check(const char *path, char *why, size_t whylen)
{
	return iogap_target_check_region(path, NULL, NULL, why, whylen);
}

int iogap_target_check_fd(int fd, const char *name, const struct iogap_target_region *r,
			  char *why, size_t whylen)
{
	char self[64];
	struct stat st;
	int rc;

	if (why && whylen)
		why[0] = 0;
	if (fstat(fd, &st)) {
		say(why, whylen, "%s: %s", name, strerror(errno));
		return -1;
	}
	rc = check_kind(&st, name, why, whylen);
	if (rc != 2)
		return rc;
	/* the descriptor may be write-only or O_DIRECT: read through a new
	 * one of the same open file, which /proc gives whatever the path
	 * names now (thread-self: a worker's descriptor table is its own) */
	snprintf(self, sizeof(self), "/proc/thread-self/fd/%d", fd);
	return check_path(self, name, &st, r, NULL, why, whylen);
}

int iogap_file_ids_add_stat(struct iogap_file_ids *s, const struct stat *st)
{
	struct iogap_file_id *grown;

	if (iogap_file_ids_has(s, st))
		return 0;
	grown = realloc(s->id, (s->nr + 1) * sizeof(*s->id));
	if (!grown)
		return -1;
	s->id = grown;
	s->id[s->nr++] = (struct iogap_file_id){ .dev = st->st_dev, .ino = st->st_ino };
	return 0;
}

int iogap_file_ids_add(struct iogap_file_ids *s, const char *path)
{
	struct stat st;

	return lstat(path, &st) ? 0 : iogap_file_ids_add_stat(s, &st);
}

bool iogap_file_ids_has(const struct iogap_file_ids *s, const struct stat *st)
{
	for (size_t i = 0; s && i < s->nr; i++)
		if (s->id[i].dev == st->st_dev && s->id[i].ino == st->st_ino)
			return true;
	return false;
}

void iogap_file_ids_free(struct iogap_file_ids *s)
{
	free(s->id);
	*s = (struct iogap_file_ids){ 0 };
}

bool iogap_unlink_allowed(const char *path, const struct iogap_file_ids *pre, char *why,
			  size_t whylen)
{
	char found_why[512];
	struct stat st;
	int rc;

	if (why && whylen)
		why[0] = 0;
	if (lstat(path, &st) || !S_ISREG(st.st_mode))
		return false;
	if (iogap_file_ids_has(pre, &st)) {
		say(why, whylen, "it was there before this run, and unlink removes only the "
		    "files a job created");
		return false;
	}
	rc = iogap_target_check(path, found_why, sizeof(found_why));
	if (rc) {
		say(why, whylen, rc > 0 ? "it holds data (%s), and unlink never removes data" :
		    "it cannot be checked for data (%s)", found_why);
		return false;
	}
	return true;
}

const char *iogap_file_kind(const struct stat *st)
{
	switch (st->st_mode & S_IFMT) {
	case S_IFREG: return "a regular file";
	case S_IFBLK: return "a block device";
	case S_IFCHR: return "a character device";
	case S_IFDIR: return "a directory";
	case S_IFIFO: return "a FIFO (named pipe)";
	case S_IFSOCK: return "a socket";
	case S_IFLNK: return "a symbolic link";
	default: return "of an unknown file type";
	}
}
