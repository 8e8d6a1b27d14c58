/* SPDX-License-Identifier: MIT */
/*
 * A file's extent map (host-tools/analysis/extents.h): file offsets to
 * device offsets as the analysis maps the bare probe's requests on a file
 * target, never guessing (a hole, a request across extents apart on the
 * device, a read of an unwritten extent, an extent of unknown place are
 * not mapped); the run directory's extents.txt refused with its line when
 * malformed; FIEMAP of a real file on this host's file system.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fiemap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "extents.h"
#include "../tap.h"

static const char *tmpdir;

static int load_text(const char *text, struct iogap_extents *x, char *err, size_t errlen)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/extents.txt", tmpdir);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(text, f);
	fclose(f);
	return iogap_extents_load(path, x, err, errlen);
}

static void test_map(void)
{
	struct iogap_extents x;
	char err[512];
	uint64_t d = 0;

	/* [0,8K) at 1M, [8K,16K) right after it on the device, [16K,24K)
	 * elsewhere, a hole [24K,32K), [32K,40K) unwritten, [40K,44K) delalloc */
	ok(!load_text("# logical physical length flags\n0 1048576 8192 0\n8192 1056768 8192 0\n"
		      "16384 4194304 8192 0\n32768 8388608 8192 800\n40960 0 4096 5\n", &x, err,
		      sizeof(err)) && x.n == 5, "extents.txt: five extents loaded");
	ok(!iogap_extents_map(&x, 4096, 4096, true, &d) && d == 1048576 + 4096,
	   "inside one extent: its device offset");
	ok(!iogap_extents_map(&x, 4096, 8192, true, &d) && d == 1048576 + 4096,
	   "across two extents contiguous on the device: mapped");
	ok(iogap_extents_map(&x, 12288, 8192, true, &d),
	   "across two extents apart on the device: not mapped");
	ok(iogap_extents_map(&x, 24576, 4096, false, &d), "in a hole: not mapped");
	ok(iogap_extents_map(&x, 20480, 8192, false, &d), "running into a hole: not mapped");
	ok(iogap_extents_map(&x, 32768, 4096, true, &d),
	   "a read of an unwritten extent (never reaches the device): not mapped");
	ok(!iogap_extents_map(&x, 32768, 4096, false, &d) && d == 8388608,
	   "a write to an unwritten extent: mapped");
	ok(iogap_extents_map(&x, 40960, 4096, false, &d),
	   "an extent of unknown place (delalloc): not mapped");
	ok(iogap_extents_map(&x, 1 << 20, 4096, true, &d), "past the last extent: not mapped");
	iogap_extents_free(&x);
}

static void test_bad_files(void)
{
	struct iogap_extents x;
	char err[512] = "";

	ok(load_text("0 4096 4096 0\n4096 x 4096 0\n", &x, err, sizeof(err)) &&
	   strstr(err, "extents.txt:2:") && !x.n, "a malformed line: refused, named (%s)", err);
	ok(load_text("8192 0 4096 0\n0 4096 4096 0\n", &x, err, sizeof(err)) &&
	   strstr(err, "extents.txt:2:"), "extents out of order: refused (%s)", err);
	ok(load_text("0 0 0 0\n", &x, err, sizeof(err)) && strstr(err, ":1:"),
	   "an empty extent: refused");
	ok(iogap_extents_load("/nonexistent/extents.txt", &x, err, sizeof(err)) &&
	   strstr(err, "/nonexistent/extents.txt"), "a missing file: refused, named");
}

/* FIEMAP of a file written here: every block of it maps, in order. */
static void test_record(void)
{
	char file[4096], out[4096], err[4096], buf[65536];
	struct iogap_extents x;
	uint64_t d0 = 0, d = 0;
	int fd, bad = 0;

	snprintf(file, sizeof(file), "%s/data", tmpdir);
	snprintf(out, sizeof(out), "%s/recorded.txt", tmpdir);
	memset(buf, 0x5a, sizeof(buf));
	fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	for (int i = 0; fd >= 0 && i < 16; i++)
		bad |= write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf);
	if (fd < 0 || bad || fsync(fd)) {
		ok(0, "writing %s: %s", file, strerror(errno));
		return;
	}
	close(fd);
	if (iogap_extents_record(file, out, err, sizeof(err))) {
		if (strstr(err, strerror(EOPNOTSUPP)))
			tap_skip("FIEMAP of a real file", "the file system has no FIEMAP");
		else
			ok(0, "FIEMAP of a real file: %s", err);
		return;
	}
	bad = iogap_extents_load(out, &x, err, sizeof(err));
	ok(!bad && x.n >= 1, "FIEMAP of a 1 MiB file: %zu extents recorded and loaded", x.n);
	bad = iogap_extents_map(&x, 0, 4096, true, &d0);
	for (uint64_t off = 4096; !bad && off < (1u << 20); off += 4096)
		bad = iogap_extents_map(&x, off, 4096, true, &d) ||
		      (x.n == 1 && d != d0 + off);
	ok(!bad, "every 4 KiB block of it maps (at its offset from the first, in one extent)");
	ok(iogap_extents_record("/nonexistent/file", out, err, sizeof(err)) &&
	   strstr(err, "/nonexistent/file"), "FIEMAP of a missing file: refused, named");
	iogap_extents_free(&x);
}

int main(void)
{
	char tmpl[] = "/tmp/iogap-extents-XXXXXX", path[4096];
	static const char *const files[] = { "extents.txt", "data", "recorded.txt" };

	tmpdir = mkdtemp(tmpl);
	if (!tmpdir)
		return 1;
	tap_plan(17);
	test_map();
	test_bad_files();
	test_record();
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", tmpdir, files[i]);
		unlink(path);
	}
	rmdir(tmpdir);
	return tap_failed ? 1 : 0;
}
