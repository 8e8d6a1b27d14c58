/* SPDX-License-Identifier: MIT */
/*
 * iogap_target_check() against real signatures made by the real tools
 * (mkfs.ext4, sfdisk, qemu-img, mkswap, pvcreate) and by hand, plus the
 * in-use checks (loop-mounted image, mounted partition, the root device).
 * TAP.  Steps needing a missing tool or privilege are skipped with the
 * reason.  Everything lives in a private temp dir; loop devices and mounts
 * made here are undone at exit.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "../tap.h"
#include "safety.h"

static char dir[] = "/tmp/iogap-safety-test-XXXXXX";
static char loops[4][64];       /* attached here; detached at exit */
static char mounts[4][300];     /* mounted here; unmounted at exit */

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

static bool have(const char *tool)
{
	return sh("command -v %s", tool) == 0;
}

/* Output of a command, first line. */
static bool sh_out(char *out, size_t len, const char *cmd)
{
	FILE *p = popen(cmd, "r");
	bool got;

	if (!p)
		return false;
	got = fgets(out, (int)len, p) != NULL;
	pclose(p);
	if (got)
		out[strcspn(out, "\n")] = 0;
	return got && *out;
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
	for (int i = 3; i >= 0; i--)
		if (mounts[i][0])
			sh("umount '%s'", mounts[i]);
	for (int i = 3; i >= 0; i--)
		if (loops[i][0])
			sh("losetup -d '%s'", loops[i]);
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

	if (!have("mkfs.ext4")) {
		tap_skip("ext4 filesystem", "mkfs.ext4 not installed (e2fsprogs)");
	} else {
		make_file(f, NULL, 0, 16 << 20);
		sh("mkfs.ext4 -q -F -L iogaplbl -U 0b4ab8b5-1cd8-4fbb-9a4e-6d6a2cb2a401 '%s'", f);
		expect("ext4", f, 1, "ext4 filesystem (UUID 0b4ab8b5-1cd8-4fbb-9a4e-"
		       "6d6a2cb2a401, label \"iogaplbl\")");
	}
	if (!have("mkswap")) {
		tap_skip("swap signature", "mkswap not installed (util-linux)");
	} else {
		make_file(tmp("swap.img"), NULL, 0, 4 << 20);
		sh("mkswap '%s'", tmp("swap.img"));
		expect("swap area", tmp("swap.img"), 1, "swap signature");
	}
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

	if (!have("sfdisk")) {
		tap_skip("gpt via sfdisk", "sfdisk not installed (fdisk)");
		return;
	}
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

	if (!have("qemu-img")) {
		tap_skip("disk images via qemu-img", "qemu-img not installed (qemu-utils)");
		return;
	}
	for (size_t i = 0; i < sizeof(imgs) / sizeof(imgs[0]); i++) {
		char name[64], what[96];

		snprintf(name, sizeof(name), "image%zu.%s", i, imgs[i].fmt);
		snprintf(what, sizeof(what), "qemu-img %s %s", imgs[i].fmt, imgs[i].opts);
		if (sh("qemu-img create -q -f %s %s '%s' 16M", imgs[i].fmt, imgs[i].opts,
		       tmp(name))) {
			tap_skip(what, "qemu-img create failed");
			continue;
		}
		expect(what, tmp(name), 1, imgs[i].want);
	}
}

/* ------------------------------------------------------------ loop devices */

/* Attaches a file to a free loop device (with partition scan). */
static const char *attach(const char *file)
{
	char cmd[512];

	for (int i = 0; i < 4; i++) {
		if (loops[i][0])
			continue;
		snprintf(cmd, sizeof(cmd), "losetup -f -P --show '%s' 2>/dev/null", file);
		if (!sh_out(loops[i], sizeof(loops[i]), cmd))
			return NULL;
		return loops[i];
	}
	return NULL;
}

static void detach(const char *dev)
{
	for (int i = 0; i < 4; i++) {
		if (loops[i] != dev)
			continue;
		sh("losetup -d '%s'", dev);
		loops[i][0] = 0;
	}
}

static bool do_mount(const char *dev, const char *where)
{
	for (int i = 0; i < 4; i++) {
		if (mounts[i][0])
			continue;
		mkdir(where, 0755);
		if (sh("timeout 30 mount '%s' '%s'", dev, where))
			return false;
		snprintf(mounts[i], sizeof(mounts[i]), "%s", where);
		return true;
	}
	return false;
}

/* The node of dev's first partition: udev makes /dev/loopNp1, but without
 * udev (containers, CI) make a private node from the sysfs numbers. */
static bool partition_node(const char *dev, char *node, size_t len)
{
	char sys[200], line[64];
	unsigned ma, mi;
	FILE *f;
	bool got;

	snprintf(node, len, "%sp1", dev);
	if (!access(node, F_OK))
		return true;
	snprintf(sys, sizeof(sys), "/sys/block/%s/%sp1/dev", dev + 5, dev + 5);
	/* losetup -P does not always get the kernel to scan: ask again. */
	if (access(sys, F_OK))
		sh("partx -a '%s'", dev);
	f = fopen(sys, "r");
	if (!f)
		return false;
	got = fgets(line, sizeof(line), f) && sscanf(line, "%u:%u", &ma, &mi) == 2;
	fclose(f);
	snprintf(node, len, "%s/%sp1", dir, dev + 5);
	return got && !mknod(node, S_IFBLK | 0600, makedev(ma, mi));
}

static bool loops_usable(const char **reason)
{
	if (geteuid() != 0)
		*reason = "needs root";
	else if (!have("losetup") || !have("mkfs.ext4"))
		*reason = "losetup or mkfs.ext4 missing";
	else if (access("/dev/loop-control", R_OK | W_OK))
		*reason = "no /dev/loop-control";
	else
		return true;
	return false;
}

static void test_lvm(void)
{
	const char *f = tmp("pv.img"), *why = NULL, *dev;

	if (!have("pvcreate")) {
		tap_skip("LVM physical volume", "pvcreate not installed (lvm2)");
		return;
	}
	if (!loops_usable(&why)) {
		tap_skip("LVM physical volume", why);
		return;
	}
	make_file(f, NULL, 0, 16 << 20);
	dev = attach(f);
	/* No udev in containers/CI: do not wait for it; ignore devices file. */
	if (!dev || sh("timeout 60 pvcreate -q --config 'activation { udev_sync = 0 "
		       "udev_rules = 0 } devices { use_devicesfile = 0 }' '%s'", dev)) {
		tap_skip("LVM physical volume", "losetup or pvcreate failed here");
		return;
	}
	expect("LVM PV (loop device)", dev, 1, "LVM2_member LVM physical volume (UUID ");
	expect("LVM PV image attached to a loop device", f, 1, "backing file of ");
	detach(dev);
	expect("LVM PV image (detached)", f, 1, "LVM2_member LVM physical volume");
}

static void test_mounted(void)
{
	const char *why = NULL, *dev;
	char part[300], what[400];

	if (!loops_usable(&why) || !have("sfdisk")) {
		tap_skip("mounted whole device", why ? why : "sfdisk missing");
		tap_skip("mounted partition of a disk", why ? why : "sfdisk missing");
		return;
	}
	/* Whole device carrying a mounted filesystem. */
	make_file(tmp("fs.img"), NULL, 0, 16 << 20);
	sh("mkfs.ext4 -q -F '%s'", tmp("fs.img"));
	dev = attach(tmp("fs.img"));
	if (!dev || !do_mount(dev, tmp("mnt1"))) {
		tap_skip("mounted whole device", "loop mount not permitted here");
	} else {
		snprintf(what, sizeof(what), "mounted on %s", tmp("mnt1"));
		expect("mounted loop device", dev, 1, what);
		expect("image file of a mounted loop device", tmp("fs.img"), 1,
		       "backing file of /dev/loop");
	}

	/* A disk whose partition is mounted. */
	make_file(tmp("disk.img"), NULL, 0, 32 << 20);
	sh("printf 'label: dos\\n2048,,L\\n' | sfdisk -q '%s'", tmp("disk.img"));
	dev = attach(tmp("disk.img"));
	if (dev && !partition_node(dev, part, sizeof(part)))
		dev = NULL;
	if (!dev || sh("mkfs.ext4 -q -F '%s'", part) || !do_mount(part, tmp("mnt2"))) {
		tap_skip("mounted partition of a disk", "partitioned loop device not usable here");
		return;
	}
	snprintf(what, sizeof(what), "partition %sp1 mounted on %s", dev + 5, tmp("mnt2"));
	expect("disk with a mounted partition", dev, 1, what);
}

/* The device under "/" (when it is one): a private node for it. */
static void test_root_device(void)
{
	struct stat st;
	char sys[96], node[300];

	if (stat("/", &st) || major(st.st_dev) == 0) {
		tap_skip("root block device", "/ is not on a block device");
		return;
	}
	snprintf(sys, sizeof(sys), "/sys/dev/block/%u:%u", major(st.st_dev),
		 minor(st.st_dev));
	snprintf(node, sizeof(node), "%s/rootdev", dir);
	if (access(sys, F_OK) || mknod(node, S_IFBLK | 0600, st.st_dev)) {
		tap_skip("root block device", "cannot make a device node here");
		return;
	}
	expect("the device mounted on /", node, 1, "mounted on /");
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
	test_lvm();
	test_mounted();
	test_root_device();
	tap_plan(tap_n);
	return tap_done();
}
