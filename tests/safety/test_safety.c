/* SPDX-License-Identifier: MIT */
/*
 * iogap_target_check() against real signatures made by the real tools
 * (mkfs.ext4, sfdisk, qemu-img, mkswap) and by hand (MBR, LUKS1, an LVM2
 * physical volume label), plus one in-use check every machine allows: the
 * block device under "/" (or under another mount).  TAP.  A missing tool
 * is a failure naming its package (scripts/debian-packages.txt lists them).
 *
 * The in-use checks that need loop devices, null_blk or mounting (mounted
 * whole device, image file backing a mounted loop device, disk with a
 * mounted partition, active swap, "/" on a device) run in the guest, where
 * they always can: tests/vm/test_safety.sh.  Everything here lives in a
 * private temp dir, removed at exit.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "../tap.h"
#include "safety.h"

static char dir[] = "/tmp/iogap-safety-test-XXXXXX";

static char *tmp(const char *name)
{
	static char buf[8][300];
	static int i;
	char *p = buf[i++ % 8];

	snprintf(p, 300, "%s/%s", dir, name);
	return p;
}

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Runs a shell command quietly; its exit status. */
static int sh(const char *fmt, ...)
{
	char cmd[2048];
	va_list ap;
	int n, st;

	va_start(ap, fmt);
	n = vsnprintf(cmd, sizeof(cmd) - 20, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -1;
	strcat(cmd, " >/dev/null 2>&1");
	st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Is the tool installed?  When not, that is a failed step naming the
 * package: CI installs every one of them. */
static bool need(const char *tool, const char *package, const char *what)
{
	if (sh("command -v %s", tool) == 0)
		return true;
	ok(false, "%s: %s not installed (Debian package %s)", what, tool, package);
	return false;
}

/* Asserts the answer and that why contains want (NULL: why is empty). */
static void expect(const char *what, const char *path, int want_rc, const char *want)
{
	char why[1024] = "junk";
	int rc = iogap_target_check(path, why, sizeof(why));
	bool good = rc == want_rc && (want ? strstr(why, want) != NULL : why[0] == 0);

	ok(good, "%s -> %d \"%s\"", what, rc, why);
}

static void make_file(const char *path, const void *head, size_t hlen, size_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	if (fd < 0 || ftruncate(fd, (off_t)size) ||
	    (hlen && pwrite(fd, head, hlen, 0) != (ssize_t)hlen))
		perror(path);
	close(fd);
}

static void cleanup(void)
{
	sh("rm -rf '%s'", dir);
}

/* ------------------------------------------------------------ empty */

static void test_blank(void)
{
	char why[64];

	expect("missing path", tmp("nope"), 0, NULL);
	make_file(tmp("empty"), NULL, 0, 0);
	expect("empty file", tmp("empty"), 0, NULL);
	make_file(tmp("zero"), NULL, 0, 16 << 20);
	expect("all-zero 16M file", tmp("zero"), 0, NULL);
	sh("head -c 4194304 /dev/urandom > '%s'", tmp("random"));
	expect("random-data file", tmp("random"), 0, NULL);
	expect("a directory", dir, -1, "is a directory");
	expect("/dev/null (holds nothing)", "/dev/null", 0, NULL);
	expect("another character device (/dev/full)", "/dev/full", 1, "character device (1:7)");
	ok(iogap_target_check(tmp("zero"), NULL, 0) == 0 &&
	   iogap_target_check(dir, why, 1) == -1 && why[0] == 0,
	   "NULL or 1-byte why is fine");
}

/* ------------------------------------------------------------ signatures */

static void test_filesystems(void)
{
	const char *f = tmp("ext4.img");

	if (need("mkfs.ext4", "e2fsprogs", "ext4 filesystem")) {
		make_file(f, NULL, 0, 16 << 20);
		sh("mkfs.ext4 -q -F -L iogaplbl -U 0b4ab8b5-1cd8-4fbb-9a4e-6d6a2cb2a401 '%s'", f);
		expect("ext4", f, 1, "ext4 filesystem (UUID 0b4ab8b5-1cd8-4fbb-9a4e-"
		       "6d6a2cb2a401, label \"iogaplbl\")");
	}
	if (need("mkswap", "util-linux", "swap signature")) {
		make_file(tmp("swap.img"), NULL, 0, 4 << 20);
		sh("mkswap '%s'", tmp("swap.img"));
		expect("swap area", tmp("swap.img"), 1, "swap signature");
	}
}

/* No partition table says where these are: found where a partition
 * would start (1 MiB), or where a clone of the job starts writing. */
static void test_offsets(void)
{
	struct iogap_target_region clones = { .offset = 0, .offset_increment = 100 << 20,
					      .size = 1 << 20, .numjobs = 4 };
	char why[1024];
	int rc;

	if (!need("mkfs.ext4", "e2fsprogs", "ext4 at an offset"))
		return;
	make_file(tmp("at1m.img"), NULL, 0, 64 << 20);
	sh("mkfs.ext4 -q -F -E offset=1048576 -U 0b4ab8b5-1cd8-4fbb-9a4e-6d6a2cb2a402 '%s' 16M",
	   tmp("at1m.img"));
	expect("ext4 at 1 MiB, no partition table", tmp("at1m.img"), 1,
	       "ext4 filesystem (UUID 0b4ab8b5-1cd8-4fbb-9a4e-6d6a2cb2a402) at offset 1048576");
	make_file(tmp("at200m.img"), NULL, 0, 400 << 20);
	sh("mkfs.ext4 -q -F -E offset=209715200 '%s' 16M", tmp("at200m.img"));
	rc = iogap_target_check_region(tmp("at200m.img"), &clones, NULL, why, sizeof(why));
	ok(rc == 1 && strstr(why, "at offset 209715200"),
	   "ext4 at 200 MiB, where clone 3 of numjobs=4, offset_increment=100m starts -> %d \"%s\"",
	   rc, why);
}

/* What is checked is the file opened, not the path again: a descriptor
 * keeps reaching the file it was opened on after the path is swapped. */
static void test_descriptor(void)
{
	char why[1024];
	int fd, rc;

	if (!need("mkfs.ext4", "e2fsprogs", "descriptor check"))
		return;
	make_file(tmp("swap-a"), NULL, 0, 16 << 20);
	sh("mkfs.ext4 -q -F '%s'", tmp("swap-a"));
	make_file(tmp("swap-b"), NULL, 0, 16 << 20);
	fd = open(tmp("swap-a"), O_WRONLY);
	rename(tmp("swap-b"), tmp("swap-a"));
	rc = iogap_target_check_fd(fd, "swapped", NULL, why, sizeof(why));
	ok(rc == 1 && strstr(why, "ext4 filesystem"), "a write-only descriptor whose path now "
	   "names a blank file -> %d \"%s\"", rc, why);
	close(fd);
	expect("the path itself, now blank", tmp("swap-a"), 0, NULL);
	sh("mkfifo '%s'", tmp("fifo"));
	expect("a FIFO", tmp("fifo"), -1, "is a FIFO (named pipe), not a regular file or device");
}

/* fio's unlink: only files the run created, holding no data. */
static void test_unlink_rules(void)
{
	struct iogap_file_ids pre = { 0 };
	char why[512];
	bool kept, removable;

	make_file(tmp("old.dat"), NULL, 0, 1 << 20);
	make_file(tmp("ext4-new.img"), NULL, 0, 16 << 20);
	iogap_file_ids_add(&pre, tmp("old.dat"));
	iogap_file_ids_add(&pre, tmp("not-there-yet"));
	make_file(tmp("not-there-yet"), NULL, 0, 1 << 20);
	kept = !iogap_unlink_allowed(tmp("old.dat"), &pre, why, sizeof(why)) &&
	       strstr(why, "there before this run");
	removable = iogap_unlink_allowed(tmp("not-there-yet"), &pre, why, sizeof(why));
	ok(kept && removable, "a file there before is kept, one created since may go");
	sh("mkfs.ext4 -q -F '%s'", tmp("ext4-new.img"));
	ok(!iogap_unlink_allowed(tmp("ext4-new.img"), &pre, why, sizeof(why)) &&
	   strstr(why, "holds data (ext4"), "a created file holding a filesystem is kept: %s", why);
	ok(!iogap_unlink_allowed(tmp("missing"), &pre, why, sizeof(why)) && !why[0] &&
	   !iogap_unlink_allowed(dir, &pre, why, sizeof(why)) && !why[0],
	   "nothing to remove (missing, a directory): no, silently");
	iogap_file_ids_free(&pre);
}

static void test_partition_tables(void)
{
	unsigned char mbr[512] = { 0 };

	/* A hand-made MBR: one Linux partition, boot signature. */
	mbr[446 + 4] = 0x83;
	mbr[446 + 8] = 2048 & 0xff;
	mbr[446 + 9] = 2048 >> 8;
	mbr[446 + 12] = 0x00;
	mbr[446 + 13] = 0x10;           /* 4096 sectors */
	mbr[510] = 0x55;
	mbr[511] = 0xaa;
	make_file(tmp("mbr.img"), mbr, sizeof(mbr), 8 << 20);
	expect("hand-made MBR", tmp("mbr.img"), 1, "dos partition table");

	if (!need("sfdisk", "fdisk", "gpt and dos via sfdisk"))
		return;
	make_file(tmp("gpt.img"), NULL, 0, 8 << 20);
	sh("echo 'label: gpt' | sfdisk -q '%s'", tmp("gpt.img"));
	expect("gpt (sfdisk, no partitions)", tmp("gpt.img"), 1, "gpt partition table");
	make_file(tmp("dos.img"), NULL, 0, 8 << 20);
	sh("printf 'label: dos\\n,4M,L\\n' | sfdisk -q '%s'", tmp("dos.img"));
	expect("dos (sfdisk, one partition)", tmp("dos.img"), 1, "dos partition table");
}

static void test_images(void)
{
	static const struct { const char *fmt, *opts, *want; } imgs[] = {
		{ "qcow2", "", "qcow2 disk image header" },
		{ "vmdk", "", "vmdk disk image header" },
		{ "vmdk", "-o subformat=monolithicFlat", "vmdk disk image header" },
		{ "vhdx", "", "vhdx disk image header" },
		{ "vdi", "", "vdi disk image header" },
		{ "qed", "", "qed disk image header" },
		{ "vpc", "-o subformat=fixed", "vhd (vpc) disk image header" },
		{ "parallels", "", "parallels disk image header" },
	};
	unsigned char luks[1024] = "LUKS\xba\xbe\0\x01";

	/* The magic alone is enough: no dependency on qemu-img here. */
	make_file(tmp("magic.qcow2"), "QFI\xfb\0\0\0\3", 8, 1 << 20);
	expect("bare qcow2 magic", tmp("magic.qcow2"), 1, "qcow2 disk image header");
	memcpy(luks + 40, "aes", 3);
	memcpy(luks + 168, "c0ffee00-1111-2222-3333-444455556666", 36);
	make_file(tmp("luks.img"), luks, sizeof(luks), 2 << 20);
	expect("hand-made LUKS1 header", tmp("luks.img"), 1,
	       "crypto_LUKS encrypted volume (UUID c0ffee00-1111-2222-3333-444455556666)");

	if (!need("qemu-img", "qemu-utils", "disk images via qemu-img"))
		return;
	for (size_t i = 0; i < sizeof(imgs) / sizeof(imgs[0]); i++) {
		char name[64], what[96];

		snprintf(name, sizeof(name), "image%zu.%s", i, imgs[i].fmt);
		snprintf(what, sizeof(what), "qemu-img %s %s", imgs[i].fmt, imgs[i].opts);
		if (sh("qemu-img create -q -f %s %s '%s' 16M", imgs[i].fmt, imgs[i].opts,
		       tmp(name)))
			ok(false, "%s: qemu-img create failed", what);
		else
			expect(what, tmp(name), 1, imgs[i].want);
	}
}

/* ------------------------------------------------------------ LVM */

/* LVM's label checksum: CRC-32 (reflected, 0xedb88320) seeded with
 * 0xf597a6cf, no final inversion (lvm2's lib/misc/crc.c). */
static uint32_t lvm_crc(const unsigned char *p, size_t n)
{
	uint32_t crc = 0xf597a6cf;

	for (size_t i = 0; i < n; i++) {
		crc ^= p[i];
		for (int b = 0; b < 8; b++)
			crc = (crc >> 1) ^ (0xedb88320u & -(crc & 1));
	}
	return crc;
}

static void put_le(unsigned char *p, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

/* An LVM2 physical volume label as pvcreate writes it, by hand (pvcreate
 * needs a block device): in sector 1 "LABELONE", the label's sector
 * number, its checksum, the offset of the PV header, "LVM2 001", then the
 * PV header (UUID, device size). */
static void test_lvm_label(void)
{
	unsigned char img[1024] = { 0 }, *label = img + 512;

	memcpy(label, "LABELONE", 8);
	put_le(label + 8, 1, 8);
	put_le(label + 20, 32, 4);
	memcpy(label + 24, "LVM2 001", 8);
	memcpy(label + 32, "IogapHandMadePhysicalVolume00001", 32);
	put_le(label + 64, 16 << 20, 8);
	put_le(label + 16, lvm_crc(label + 20, 512 - 20), 4);
	make_file(tmp("pv.img"), img, sizeof(img), 16 << 20);
	expect("hand-made LVM2 physical volume label", tmp("pv.img"), 1,
	       "LVM2_member LVM physical volume (UUID IogapH-andM-adeP-hysi-calV-olum-e00001)");
}

/* ------------------------------------------------------------ in use */

/* A mounted filesystem's block device: the one under "/" when there is
 * one, else the first other mount on a block device (in a container,
 * /etc/hosts is one).  The device number is the mount source's when that
 * is a block device node (btrfs reports an anonymous number in mountinfo),
 * else mountinfo's.  Mount points with escaped characters are passed over. */
static bool mounted_device(char *mnt, size_t mlen, char *src, size_t slen, dev_t *dev)
{
	FILE *mi = fopen("/proc/self/mountinfo", "re");
	char *line = NULL;
	size_t cap = 0;
	bool got = false;

	if (!mi)
		return false;
	while (getline(&line, &cap, mi) > 0) {
		char mm[32], m[4096], s[4096] = "", sys[96], *sep;
		unsigned ma, mi_;
		struct stat st;
		dev_t d = 0;

		if (sscanf(line, "%*d %*d %31s %*s %4095s", mm, m) != 2 || strchr(m, '\\') ||
		    (got && strcmp(m, "/")))
			continue;
		sep = strstr(line, " - ");
		if (sep && sscanf(sep + 3, "%*s %4095s", s) == 1 && !stat(s, &st) &&
		    S_ISBLK(st.st_mode)) {
			d = st.st_rdev;
		} else if (sscanf(mm, "%u:%u", &ma, &mi_) == 2) {
			snprintf(sys, sizeof(sys), "/sys/dev/block/%u:%u", ma, mi_);
			if (!access(sys, F_OK))
				d = makedev(ma, mi_);
			s[0] = 0;
		}
		if (!d)
			continue;
		snprintf(mnt, mlen, "%s", m);
		snprintf(src, slen, "%s", s);
		*dev = d;
		got = true;
	}
	free(line);
	fclose(mi);
	return got;
}

/* The check finds a mounted device by its number, whatever the node's
 * path: asked about a private node of its own, it says where it is
 * mounted ("mounted on MNT" then "; " or the end). */
static void test_mounted_device(void)
{
	char mnt[4096], src[4096], node[300], why[1024], want[4200], *at;
	const char *path = node;
	dev_t dev;
	int rc;

	if (!mounted_device(mnt, sizeof(mnt), src, sizeof(src), &dev)) {
		ok(false, "no mounted filesystem on a block device in /proc/self/mountinfo");
		return;
	}
	snprintf(node, sizeof(node), "%s/mounted-dev", dir);
	if (mknod(node, S_IFBLK | 0600, dev)) {
		/* no CAP_MKNOD: the mount source's own node, when it has one */
		if (!src[0]) {
			ok(false, "device %u:%u mounted on %s: no node (mknod: %s)", major(dev),
			   minor(dev), mnt, strerror(errno));
			return;
		}
		path = src;
	}
	rc = iogap_target_check(path, why, sizeof(why));
	snprintf(want, sizeof(want), "mounted on %s", mnt);
	at = strstr(why, want);
	while (at && at[strlen(want)] != ';' && at[strlen(want)] != 0)
		at = strstr(at + 1, want);
	ok(rc == 1 && at, "device %u:%u (%s) -> %d \"%s\"", major(dev), minor(dev), mnt, rc, why);
}

int main(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	atexit(cleanup);
	test_blank();
	test_filesystems();
	test_partition_tables();
	test_images();
	test_offsets();
	test_descriptor();
	test_unlink_rules();
	test_lvm_label();
	test_mounted_device();
	tap_plan(tap_n);
	return tap_done();
}
