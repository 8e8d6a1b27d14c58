/* SPDX-License-Identifier: MIT */
/*
 * The QEMU of a run and its filter, matched by stamp (qemubin.h): a fake
 * QEMU (a script that prints a version and holds a stamp string) and fake
 * filters (files holding stamp strings) in a temporary directory.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "qemubin.h"
#include "tap.h"

#define STAMP_A "aaaeb9677289408cbc7ea2f6d9aec158c575c3fe"
#define STAMP_B "f1b4c2639e440a9f989736fb1ad6d8336564df2e"
#define STAMP_C "0123456789abcdef0123456789abcdef01234567"

static char dir[PATH_MAX];

static void put(const char *name, const char *text, mode_t mode)
{
	char path[PATH_MAX + 64];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f) || chmod(path, mode)) {
		perror(path);
		exit(1);
	}
}

/* A filter holds the bare key (its own check's) before its stamp. */
static void filter(const char *name, const char *stamp)
{
	char text[256];

	snprintf(text, sizeof(text), "\x7f" "ELF\1qemu_stamp_\1no qemu_stamp_ string\1"
		 "qemu_stamp_%s\1", stamp);
	put(name, text, 0644);
}

static void test_file_stamp(void)
{
	char path[PATH_MAX + 64], stamp[IOGAP_QEMU_STAMP_HEX + 1] = "";

	filter("f.bin", STAMP_B);
	snprintf(path, sizeof(path), "%s/f.bin", dir);
	ok(iogap_file_stamp(path, stamp) == 0 && !strcmp(stamp, STAMP_B),
	   "the stamp after a bare key is found (%s)", stamp);
	put("long.bin", "qemu_stamp_" STAMP_A "0 qemu_stamp_" STAMP_C "\n", 0644);
	snprintf(path, sizeof(path), "%s/long.bin", dir);
	ok(iogap_file_stamp(path, stamp) == 0 && !strcmp(stamp, STAMP_C),
	   "41 hex digits are no stamp; the next one is (%s)", stamp);
	put("none.bin", "qemu_stamp_xyz", 0644);
	snprintf(path, sizeof(path), "%s/none.bin", dir);
	errno = 0;
	ok(iogap_file_stamp(path, stamp) == -1 && errno == ENOMSG, "a file without a stamp: ENOMSG");
}

static void test_identify(struct iogap_qemu *q)
{
	char qemu[PATH_MAX + 64], err[4096] = "", tool[PATH_MAX];

	ok(iogap_qemu_identify("/nonexistent/qemu", q, err, sizeof(err)) == -1 &&
	   strstr(err, "/nonexistent/qemu"), "a missing QEMU is refused: %s", err);
	ok(iogap_qemu_identify(dir, q, err, sizeof(err)) == -1,
	   "a directory is no QEMU: %s", err);
	put("qemu-system-x86_64", "#!/bin/sh\necho 'QEMU emulator version 9.9.1 (fake)'\n"
	    "echo 'Copyright'\nexit 0\n# qemu_stamp_" STAMP_A "\n", 0755);
	snprintf(qemu, sizeof(qemu), "%s/qemu-system-x86_64", dir);
	ok(iogap_qemu_identify(qemu, q, err, sizeof(err)) == 0 &&
	   !strcmp(q->version, "QEMU emulator version 9.9.1 (fake)") && !strcmp(q->stamp, STAMP_A) &&
	   !strcmp(q->path, qemu), "--qemu PATH: its version line and stamp (%s)", q->version);
	setenv("IOGAP_QEMU", qemu, 1);
	ok(iogap_qemu_identify(NULL, q, err, sizeof(err)) == 0 && !strcmp(q->path, qemu),
	   "no --qemu: $IOGAP_QEMU");
	unsetenv("IOGAP_QEMU");
	iogap_qemu_tool(qemu, "qemu-img", tool, sizeof(tool));
	snprintf(qemu, sizeof(qemu), "%s/qemu-img", dir);
	ok(!strcmp(tool, qemu), "qemu-img comes from the QEMU's own directory (%s)", tool);
}

static void test_choose(struct iogap_qemu *q)
{
	char dirs[2][PATH_MAX], err[4096] = "", want[PATH_MAX + 64], given[PATH_MAX + 64];

	snprintf(dirs[0], PATH_MAX, "%s/build", dir);
	snprintf(dirs[1], PATH_MAX, "%s/lib", dir);
	mkdir(dirs[0], 0755);
	mkdir(dirs[1], 0755);
	filter("build/iogap-filter.so", STAMP_B);
	filter("build/other.so", STAMP_A);   /* not a filter's name */
	filter("lib/iogap-filter-qemu-9.9.1.so", STAMP_A);
	ok(iogap_qemu_filter(q, NULL, dirs, 2, err, sizeof(err)) == 0 &&
	   snprintf(want, sizeof(want), "%s/lib/iogap-filter-qemu-9.9.1.so", dir) &&
	   !strcmp(q->filter, want), "the filter with the QEMU's stamp is chosen (%s)", q->filter);
	ok(iogap_qemu_filter(q, NULL, dirs, 1, err, sizeof(err)) == -1 && !q->filter[0],
	   "without it, refused");
	ok(strstr(err, "QEMU 9.9.1") && strstr(err, "stamp " STAMP_A) &&
	   strstr(err, "iogap-filter.so (the QEMU installed when it was built, stamp " STAMP_B ")") &&
	   !strstr(err, "other.so") && strstr(err, "-Dextra_qemu=") && strstr(err, q->path),
	   "the refusal names the QEMU's version and stamp, each filter found and the build "
	   "command: %s", err);
	snprintf(given, sizeof(given), "%s/build/iogap-filter.so", dir);
	ok(iogap_qemu_filter(q, given, dirs, 2, err, sizeof(err)) == -1 &&
	   strstr(err, "stamp " STAMP_B), "a given filter of another build is refused: %s", err);
	snprintf(given, sizeof(given), "%s/build/other.so", dir);
	ok(iogap_qemu_filter(q, given, dirs, 0, err, sizeof(err)) == 0 && strstr(q->filter, "other.so"),
	   "a given filter of this build is taken, whatever its name");
	ok(iogap_qemu_filter(q, NULL, dirs + 1, 0, err, sizeof(err)) == -1 &&
	   strstr(err, "no iogap-filter*.so found"), "no filter at all: said so: %s", err);
}

int main(void)
{
	struct iogap_qemu q;
	char cmd[PATH_MAX + 16];

	snprintf(dir, sizeof(dir), "/tmp/iogap-qemubin-XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	tap_plan(14);
	test_file_stamp();
	test_identify(&q);
	test_choose(&q);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		return 1;
	return tap_done();
}
