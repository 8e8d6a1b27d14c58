/* SPDX-License-Identifier: MIT */
/*
 * iogap: the host-side command.  For now: `iogap demo` runs the operators'
 * seed profile (embedded, scaled to a short ramp and runtime) with
 * iogap-probe on bare metal against a sparse file, and prints fio's
 * report.  The VM phase and the per-layer report come with `iogap run`.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "demo_profile.h"
#include "run.h"

static void usage(FILE *f)
{
	fputs("usage: iogap run [options] --target SPEC JOBFILE...   (iogap run --help)\n"
	      "       iogap demo [--dir DIR] [--runtime SEC]\n"
	      "       iogap --version\n"
	      "\n"
	      "demo: run the seed profile (6 phases, 4k, libaio, QD32) on a sparse\n"
	      "file with iogap-probe and print the fio-style report.\n", f);
}

/* iogap-probe next to us in the build tree, or installed beside us. */
static int find_probe(char *out, size_t len)
{
	char self[PATH_MAX], *slash;
	ssize_t n;
	const char *env = getenv("IOGAP_PROBE");
	const char *cands[] = { "/../guest-probe/iogap-probe", "/iogap-probe" };

	if (env) {
		snprintf(out, len, "%s", env);
		return access(out, X_OK);
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n < 0)
		return -1;
	self[n] = '\0';
	slash = strrchr(self, '/');
	if (!slash)
		return -1;
	*slash = '\0';
	for (size_t i = 0; i < sizeof(cands) / sizeof(cands[0]); i++) {
		if (snprintf(out, len, "%s%s", self, cands[i]) >= (int)len)
			continue;
		if (!access(out, X_OK))
			return 0;
	}
	return -1;
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

static int cmd_demo(int argc, char **argv)
{
	char probe[PATH_MAX], dir[PATH_MAX] = "", job[PATH_MAX + 16], disk[PATH_MAX + 16];
	const char *runtime = "2";
	pid_t pid;
	int status, fd;

	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--dir") && i + 1 < argc)
			snprintf(dir, sizeof(dir), "%s", argv[++i]);
		else if (!strcmp(argv[i], "--runtime") && i + 1 < argc)
			runtime = argv[++i];
		else {
			usage(stderr);
			return 2;
		}
	}
	if (find_probe(probe, sizeof(probe))) {
		fprintf(stderr, "iogap: cannot find iogap-probe (build it, or set IOGAP_PROBE)\n");
		return 1;
	}
	if (!dir[0]) {
		/* a real filesystem for O_DIRECT: beside the binaries, not /tmp */
		snprintf(dir, sizeof(dir), "%s", probe);
		*strrchr(dir, '/') = '\0';
		strncat(dir, "/../demo", sizeof(dir) - strlen(dir) - 1);
	}
	if (mkdir(dir, 0755) && errno != EEXIST) {
		fprintf(stderr, "iogap: %s: %s\n", dir, strerror(errno));
		return 1;
	}
	snprintf(job, sizeof(job), "%s/seed-profile.fio", dir);
	snprintf(disk, sizeof(disk), "%s/disk.img", dir);
	if (write_file(job, iogap_demo_profile))
		return 1;
	/* a sparse target: the demo shows the pipeline, not a device */
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
	printf("iogap demo: seed profile, bare metal, target %s (sparse, 256 MiB)\n"
	       "            BLKSIZE=4k IODEPTH=32 NUMJOBS=1 RUNTIME=%s ramp_time=1\n\n",
	       disk, runtime);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		execl(probe, probe, "--eta=never", "--allow-destroy-data", job, (char *)NULL);
		fprintf(stderr, "iogap: exec %s: %s\n", probe, strerror(errno));
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0) {
		fprintf(stderr, "iogap: cannot run %s: %s\n", probe, strerror(errno));
		return 1;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
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
	fprintf(stderr, "iogap: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
