/* SPDX-License-Identifier: MIT */
/* iogap: the host-side command; one function per subcommand. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "demo_profile.h"
#include "fio.h"
#include "iogap-libvirt.h"
#include "manifest.h"
#include "orchestration.h"
#include "passthrough.h"
#include "presentation.h"

static void usage(FILE *f)
{
	fputs("usage: iogap run [options] --target SPEC JOBFILE...   (iogap run --help)\n"
	      "       iogap demo [--dir DIR] [--runtime SEC] [--accel auto|kvm|tcg] [--qemu PATH]\n"
	      "                  [--quiet]\n"
	      "       iogap report RUN_DIR [--full] [--json FILE|-] [--html FILE]\n"
	      "       iogap compare RUN_A RUN_B [RUN...] [--json FILE|-]\n"
	      "       iogap import [--dir RUN_DIR] [--label vm|bare|NAME] FILE...\n"
	      "       iogap lint JOB|RUN_DIR|FIO_OUTPUT...\n"
	      "       iogap passthrough check|run [...]   (iogap passthrough --help)\n"
	      "       iogap libvirt enable|disable|insert|remove|cleanup|graph DOMAIN ...\n"
	      "       iogap --version\n"
	      "\n"
	      "demo: `iogap run` of the seed profile (6 phases, 4k, libaio, QD32) on a\n"
	      "sparse image, bare metal and VM, then `iogap report` of it.\n", f);
}

static void demo_usage(FILE *f)
{
	fputs("usage: iogap demo [--dir DIR] [--runtime SEC] [--accel auto|kvm|tcg] [--qemu PATH]\n"
	      "                  [--quiet]\n"
	      "  `iogap run` of the seed profile (6 phases, 4k, libaio, QD32) on a sparse\n"
	      "  256 MiB image: bare metal, VM, and bare metal at the VM's IOPS (run's\n"
	      "  match-load, so every stage compares at equal load), then `iogap report`.\n"
	      "  --dir DIR       run directory (default: a new /var/tmp/iogap-demo-XXXXXX)\n"
	      "  --runtime SEC   seconds per phase (default 2)\n"
	      "  --accel MODE    auto (default), kvm or tcg, as iogap run\n"
	      "  --qemu PATH     the qemu-system-x86_64 to run, as iogap run\n"
	      "  --quiet         no progress line\n", f);
}

static int write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f)) {
		fprintf(stderr, "iogap: %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* What the demo ran, in one line, and the command for one's own disk. */
static void demo_next(const char *dir, const char *target)
{
	struct iogap_manifest m;
	char err[256];
	bool have = !iogap_manifest_read(dir, &m, err, sizeof(err));

	printf("demo: seed profile (6 jobs) on %s, VM under %s; on your own disk: "
	       "iogap run --match-load --target dev:/dev/YOUR_DISK %s/seed-profile.fio\n", target,
	       have && m.accel[0] ? m.accel : "an unknown accelerator", dir);
	if (have)
		iogap_manifest_free(&m);
}

/*
 * iogap demo: `iogap run` of the operators' seed profile (embedded, ramp
 * scaled to 1 s, RUNTIME seconds a phase) against a sparse image in a new
 * run directory under /var/tmp (a disk-backed filesystem, for O_DIRECT).
 */
static int cmd_demo(int argc, char **argv)
{
	char dir[PATH_MAX] = "", job[PATH_MAX + 32], disk[PATH_MAX + 32], target[PATH_MAX + 48];
	const char *runtime = "2", *accel = "auto";
	bool quiet = false;
	int fd;

	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			demo_usage(stdout);
			return 0;
		} else if (!strcmp(argv[i], "--quiet"))
			quiet = true;
		else if (!strcmp(argv[i], "--dir") && i + 1 < argc)
			snprintf(dir, sizeof(dir), "%s", argv[++i]);
		else if (!strcmp(argv[i], "--runtime") && i + 1 < argc)
			runtime = argv[++i];
		else if (!strcmp(argv[i], "--accel") && i + 1 < argc)
			accel = argv[++i];
		else if (!strcmp(argv[i], "--qemu") && i + 1 < argc)
			setenv("IOGAP_QEMU", argv[++i], 1);   /* iogap run's default */
		else {
			demo_usage(stderr);
			return 2;
		}
	}
	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "/var/tmp/iogap-demo-XXXXXX");
		if (!mkdtemp(dir)) {
			fprintf(stderr, "iogap: %s: %s\n", dir, strerror(errno));
			return 1;
		}
	} else if (mkdir(dir, 0755) && errno != EEXIST) {
		fprintf(stderr, "iogap: %s: %s\n", dir, strerror(errno));
		return 1;
	}
	snprintf(job, sizeof(job), "%s/seed-profile.fio", dir);
	snprintf(disk, sizeof(disk), "%s/disk.img", dir);
	snprintf(target, sizeof(target), "file:%s", disk);
	if (write_file(job, iogap_demo_profile))
		return 1;
	/* a sparse image: the demo shows the pipeline, not a device */
	fd = open(disk, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0 || ftruncate(fd, 256 << 20)) {
		fprintf(stderr, "iogap: %s: %s\n", disk, strerror(errno));
		return 1;
	}
	close(fd);
	setenv("BLKSIZE", "4k", 1);
	setenv("IODEPTH", "32", 1);
	setenv("NUMJOBS", "1", 1);
	setenv("RUNTIME", runtime, 1);
	setenv("DEVICE", disk, 1);
	printf("iogap demo: the seed profile (6 phases, BLKSIZE=4k IODEPTH=32 NUMJOBS=1 RUNTIME=%s,\n"
	       "ramp_time=1) on bare metal, in a VM and on bare metal at the VM's IOPS, against a\n"
	       "sparse 256 MiB image.\n"
	       "Run directory: %s\n\n", runtime, dir);
	fflush(stdout);
	{
		/* --force: the directory holds the profile and the image; --match-load:
		 * bare metal again at the VM's IOPS, so every stage is compared */
		char *run_argv[] = { "run", "--force", "--match-load", "--dir", dir, "--accel",
				     (char *)accel, "--target", target, job,
				     quiet ? "--quiet" : NULL, NULL };

		char *report_argv[] = { "report", dir, NULL };
		int rc = iogap_cmd_run(quiet ? 11 : 10, run_argv);

		if (rc)
			return rc;
		printf("\n");
		fflush(stdout);
		rc = iogap_cmd_report(2, report_argv);
		demo_next(dir, target);
		return rc;
	}
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--version")) {
		puts("iogap " IOGAP_VERSION);
		return 0;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "demo"))
		return cmd_demo(argc - 2, argv + 2);
	if (!strcmp(argv[1], "run"))
		return iogap_cmd_run(argc - 1, argv + 1);
	if (!strcmp(argv[1], "report"))
		return iogap_cmd_report(argc - 1, argv + 1);
	if (!strcmp(argv[1], "compare"))
		return iogap_cmd_compare(argc - 1, argv + 1);
	if (!strcmp(argv[1], "import"))
		return iogap_cmd_import(argc - 1, argv + 1);
	if (!strcmp(argv[1], "libvirt"))
		return iogap_cmd_libvirt(argc - 1, argv + 1);
	if (!strcmp(argv[1], "lint"))
		return iogap_cmd_lint(argc - 1, argv + 1);
	if (!strcmp(argv[1], "passthrough"))
		return iogap_cmd_passthrough(argc - 1, argv + 1);
	fprintf(stderr, "iogap: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
