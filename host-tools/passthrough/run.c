/* SPDX-License-Identifier: MIT */
/*
 * `iogap passthrough run`: lint the job files (a buffered job is refused
 * unless --force), then `iogap run --passthrough DEVICE` (the same job on
 * bare metal, or a recorded bare run, and in the guest with its kernel
 * points, no filter nodes), its report, and the verdict of `iogap
 * passthrough check --run` on the run directory (docs/passthrough.md).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "orchestration.h"
#include "presentation.h"
#include "pt.h"

struct run_args {
	const char *device;
	bool force;
	struct pt_within p50, p99;
	char **rargv;             /* iogap run's arguments */
	int rargc;
	char dir[64];             /* the run directory iogap chose (no --dir) */
};

static void usage(FILE *f)
{
	fputs("usage: iogap passthrough run --device nvme|BDF [--p50-within 5us,10%]\n"
	      "                             [--p99-within T] [--force] [iogap run options]\n"
	      "                             [--bare-run DIR] --target SPEC JOBFILE...\n"
	      "  The same job on bare metal (or DIR's recorded bare-metal run) and in a guest\n"
	      "  whose disk is DEVICE without QEMU's block layer (nvme: QEMU's emulated NVMe on\n"
	      "  the target, a stand-in; BDF: the PCI device assigned with vfio-pci), with the\n"
	      "  guest kernel's points; then its report and the verdict of iogap passthrough\n"
	      "  check on the run directory.  Lint runs first: a job it warns about (buffered\n"
	      "  I/O) is not run unless --force.  Other options are iogap run's (not its\n"
	      "  --force).  Exit 0 pass, 1 fail or refused, 2 usage or unusable input;\n"
	      "  iogap run's status when the run fails.\n", f);
}

/* Our option o (v: the next argument, or NULL) into a: how many arguments
 * it takes (0: not ours, iogap run's), or -1 for a usage error (said). */
static int our_option(const char *o, const char *v, struct run_args *a)
{
	bool value = !strcmp(o, "--device") || !strcmp(o, "--p50-within") ||
		     !strcmp(o, "--p99-within");

	if (!strncmp(o, "--repeat", 8)) {
		fprintf(stderr, "iogap passthrough run: one run, no --repeat (repeat with iogap "
			"run --passthrough, then check --run each run)\n");
		return -1;
	}
	if (!strcmp(o, "--force")) {
		a->force = true;
		return 1;
	}
	if (!value)
		return 0;
	if (!v) {
		fprintf(stderr, "iogap passthrough run: %s needs a value\n", o);
		return -1;
	}
	if ((!strcmp(o, "--p50-within") && !pt_parse_within(v, &a->p50)) ||
	    (!strcmp(o, "--p99-within") && !pt_parse_within(v, &a->p99))) {
		fprintf(stderr, "iogap passthrough run: %s %s: bad threshold\n", o, v);
		return -1;
	}
	if (!strcmp(o, "--device"))
		a->device = v;
	return 2;
}

/* Ours into a; the rest into a->rargv after "run --passthrough DEVICE".
 * 0, or the exit status (help, usage error), -1 after --help. */
static int parse_args(int argc, char **argv, struct run_args *a)
{
	a->rargv = calloc((size_t)argc + 6, sizeof(*a->rargv));
	if (!a->rargv)
		return 2;
	a->rargv[a->rargc++] = "run";
	a->rargc += 2;            /* --passthrough DEVICE, once known */
	for (int i = 1; i < argc; i++) {
		int took;

		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			return -1;
		}
		took = our_option(argv[i], i + 1 < argc ? argv[i + 1] : NULL, a);
		if (took < 0)
			return 2;
		if (!took)
			a->rargv[a->rargc++] = argv[i];
		i += took > 1;
	}
	if (!a->device) {
		fprintf(stderr, "iogap passthrough run: --device nvme|BDF is needed\n");
		usage(stderr);
		return 2;
	}
	a->rargv[1] = "--passthrough";
	a->rargv[2] = (char *)a->device;
	return 0;
}

/* The job files, as iogap run will see them, and the run directory (a new
 * ./iogap-passthrough-<time> when --dir is not given).  The job files'
 * array is malloc'd: free it; NULL on allocation failure. */
static const char **jobs_and_dir(struct run_args *a, const char **dir, size_t *n)
{
	char **copy = malloc(((size_t)a->rargc + 1) * sizeof(*copy));
	int first;

	if (!copy)
		return NULL;
	memcpy(copy, a->rargv, (size_t)a->rargc * sizeof(*copy));
	copy[a->rargc] = NULL;
	first = iogap_run_scan(a->rargc, copy, dir);
	memmove(copy, copy + first, (size_t)(a->rargc - first) * sizeof(*copy));
	*n = (size_t)(a->rargc - first);
	if (!*dir) {
		time_t t = time(NULL);
		struct tm tm;

		localtime_r(&t, &tm);
		strftime(a->dir, sizeof(a->dir), "iogap-passthrough-%Y%m%d-%H%M%S", &tm);
		a->rargv[a->rargc++] = "--dir";
		a->rargv[a->rargc++] = a->dir;
		*dir = a->dir;
	}
	return (const char **)copy;
}

/* Lint first: 0 to run, else the exit status (refused: 1). */
static int lint_first(const struct run_args *a, const char **jobs, size_t n)
{
	struct pt p = { .root = "", .worst = -1 };
	char verdict[2048];
	int invalid = n ? pt_lint_jobs(&p, jobs, n, verdict, sizeof(verdict)) : 0;
	int rc = invalid < 0 ? 2 : invalid && !a->force ? 1 : 0;

	if (invalid > 0 && !a->force)
		pt_print(&p, verdict);
	else if (invalid > 0)
		pt_print_findings(&p);
	if (invalid > 0 && a->force)
		printf("lint: the comparison will be invalid; running anyway (--force)\n");
	pt_free(&p);
	return rc;
}

/* The report of the run, then the verdict on its two sides. */
static int report_and_verdict(const struct run_args *a, const char *dir)
{
	char *rep[] = { "report", (char *)dir, NULL }, bare[PATH_MAX], vm[PATH_MAX], verdict[2048];
	struct pt p = { .root = "", .worst = -1 };
	int rc;

	fflush(stdout);
	if (iogap_cmd_report(2, rep))
		return 2;
	snprintf(bare, sizeof(bare), "%.4000s/bare/probe.json", dir);
	snprintf(vm, sizeof(vm), "%.4000s/vm/probe.json", dir);
	printf("\niogap passthrough check --run %s:\n", dir);
	if (pt_check_fio(&p, bare, vm, &a->p50, &a->p99, a->force, verdict, sizeof(verdict))) {
		pt_free(&p);
		return 2;
	}
	pt_print(&p, verdict);
	rc = p.worst >= PT_WARNING;
	pt_free(&p);
	return rc;
}

int pt_run(int argc, char **argv)
{
	struct run_args a = { 0 };
	const char **jobs = NULL, *dir;
	size_t n = 0;
	int rc = parse_args(argc, argv, &a);

	if (!rc && !(jobs = jobs_and_dir(&a, &dir, &n)))
		rc = 2;
	if (!rc)
		rc = lint_first(&a, jobs, n);
	if (!rc)
		rc = iogap_cmd_run(a.rargc, a.rargv);
	if (!rc)
		rc = report_and_verdict(&a, dir);
	free(jobs);
	free(a.rargv);
	return rc < 0 ? 0 : rc;
}
