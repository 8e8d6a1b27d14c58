/* SPDX-License-Identifier: MIT */
/* `iogap passthrough check`: arguments, then one of the three checks; `run` goes to run.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "passthrough.h"
#include "pt.h"

static void usage(FILE *f)
{
	fputs("usage: iogap passthrough check [--domain DOMAIN | --qemu-pid PID] [--device BDF]\n"
	      "                               [--root DIR] [--json]\n"
	      "       iogap passthrough check --guest [--device BDF] [--root DIR] [--json]\n"
	      "       iogap passthrough check --bare FIO_OUTPUT --vm FIO_OUTPUT | --run RUN_DIR | PASTE\n"
	      "                               [--p50-within 5us,10%] [--p99-within T] [--force] [--json]\n"
	      "       iogap passthrough run --device nvme|BDF [--p50-within T] [--p99-within T]\n"
	      "                             [--force] [--bare-run DIR] [iogap run options] JOBFILE...\n"
	      "  The host's setup for an assigned PCI device, the device as the guest sees it,\n"
	      "  or whether two fio outputs compare (docs/passthrough.md).  Findings: LEVEL\n"
	      "  CODE: message / why / do, then the verdict.  --root reads sysfs and procfs\n"
	      "  under DIR (a tree from scripts/passthrough-collect.sh).  --run: RUN_DIR/bare\n"
	      "  and RUN_DIR/vm probe.json (iogap run), or the two subdirectories iogap import\n"
	      "  made whose names say which is bare metal and which the VM.  PASTE: one file\n"
	      "  holding both outputs, each after a line naming its side ('Bare metal:',\n"
	      "  'From vm:').\n"
	      "  run: the job on bare metal and in the guest, the report and the verdict\n"
	      "  (the usage of iogap passthrough run has the rest).\n"
	      "  Exit 0 pass, 1 fail (a warning or worse), 2 usage or unusable input.\n", f);
}

/* "5us,10%", "5us", "10%": within 5 µs or within 10% of bare metal. */
bool pt_parse_within(const char *s, struct pt_within *w)
{
	static const struct { const char *u; double ns; } units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
	};

	*w = (struct pt_within){ .set = true, .abs_ns = -1, .pct = -1 };
	while (*s) {
		char *end;
		double v = strtod(s, &end);
		size_t k;

		if (end == s || v < 0)
			return false;
		if (*end == '%') {
			w->pct = v;
			end++;
		} else {
			for (k = 0; k < 4 && strncasecmp(end, units[k].u, strlen(units[k].u)); k++)
				;
			if (k == 4)
				return false;
			w->abs_ns = v * units[k].ns;
			end += strlen(units[k].u);
		}
		if (*end && *end != ',')
			return false;
		s = *end ? end + 1 : end;
	}
	return w->abs_ns >= 0 || w->pct >= 0;
}

struct args {
	struct pt_host_opts host;
	const char *root, *bare, *vm, *run, *paste;
	char run_bare[4096], run_vm[4096];
	bool guest, json, force;
	struct pt_within p50, p99;
};

/* 0, or the exit status for a usage error / help */
static int parse_args(int argc, char **argv, struct args *a)
{
	for (int i = 2; i < argc; i++) {
		const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		char *end;

		if (!strcmp(o, "--help") || !strcmp(o, "-h")) {
			usage(stdout);
			return -1;
		}
		if (!strcmp(o, "--json") || !strcmp(o, "--guest") || !strcmp(o, "--force")) {
			a->json |= !strcmp(o, "--json");
			a->guest |= !strcmp(o, "--guest");
			a->force |= !strcmp(o, "--force");
			continue;
		}
		if (o[0] != '-' && !a->paste) {
			a->paste = o;
			continue;
		}
		if (!v) {
			fprintf(stderr, "iogap passthrough: %s: unknown option or missing value\n", o);
			return 2;
		}
		i++;
		if (!strcmp(o, "--domain"))
			a->host.domain = v;
		else if (!strcmp(o, "--device"))
			a->host.device = v;
		else if (!strcmp(o, "--root"))
			a->root = v;
		else if (!strcmp(o, "--bare"))
			a->bare = v;
		else if (!strcmp(o, "--vm"))
			a->vm = v;
		else if (!strcmp(o, "--run"))
			a->run = v;
		else if (!strcmp(o, "--qemu-pid") && (a->host.qemu_pid = strtol(v, &end, 10)) > 0 &&
			 !*end)
			;
		else if ((!strcmp(o, "--p50-within") && pt_parse_within(v, &a->p50)) ||
			 (!strcmp(o, "--p99-within") && pt_parse_within(v, &a->p99)))
			;
		else {
			fprintf(stderr, "iogap passthrough: %s %s: unknown option or bad value\n", o, v);
			return 2;
		}
	}
	return 0;
}

static const char *usage_conflict(const struct args *a)
{
	bool fio = a->bare || a->vm || a->run || a->paste;

	if ((a->run != NULL) + (a->paste != NULL) + (a->bare || a->vm) > 1)
		return "one of --run, --bare/--vm or a paste";
	if (fio && !a->run && !a->paste && !(a->bare && a->vm))
		return "--bare and --vm go together";
	if (fio && (a->guest || a->root || a->host.domain || a->host.qemu_pid || a->host.device))
		return "--bare/--vm compare fio outputs: no --guest, --root, --domain, --qemu-pid "
		       "or --device with them";
	if (!fio && (a->p50.set || a->p99.set || a->force))
		return "--p50-within, --p99-within and --force need --bare and --vm (or --run)";
	if (a->host.domain && a->host.qemu_pid)
		return "--domain or --qemu-pid, not both";
	if (a->guest && (a->host.domain || a->host.qemu_pid))
		return "--guest checks inside the guest: no --domain or --qemu-pid";
	return NULL;
}

static void verdict_of(const struct pt *p, char *out, size_t n)
{
	size_t lv[3] = { 0 };

	for (size_t i = 0; i < p->count; i++)
		lv[p->f[i].lv]++;
	if (p->worst < PT_WARNING)
		snprintf(out, n, "pass (%zu findings, all INFO)", lv[PT_INFO]);
	else
		snprintf(out, n, "fail (%zu errors, %zu warnings, %zu INFO)", lv[PT_ERROR],
			 lv[PT_WARNING], lv[PT_INFO]);
}

int iogap_cmd_passthrough(int argc, char **argv)
{
	struct args a = { 0 };
	struct pt p = { .root = "", .worst = -1 };
	char verdict[2048];
	const char *conflict;
	int rc;

	if (argc >= 2 && !strcmp(argv[1], "run"))
		return pt_run(argc - 1, argv + 1);
	if (argc < 2 || strcmp(argv[1], "check")) {
		usage(argc > 1 && !strcmp(argv[1], "--help") ? stdout : stderr);
		return argc > 1 && !strcmp(argv[1], "--help") ? 0 : 2;
	}
	if ((rc = parse_args(argc, argv, &a)))
		return rc < 0 ? 0 : rc;
	if ((conflict = usage_conflict(&a))) {
		fprintf(stderr, "iogap passthrough: %s\n", conflict);
		return 2;
	}
	if (a.run) {    /* a run directory's two sides, as iogap run or import wrote them */
		char err[1024];

		if (pt_run_sides(a.run, a.run_bare, a.run_vm, sizeof(a.run_bare), err, sizeof(err))) {
			fprintf(stderr, "iogap passthrough: %s\n", err);
			return 2;
		}
		a.bare = a.run_bare;
		a.vm = a.run_vm;
	}
	if (a.root && strcmp(a.root, "/"))
		p.root = a.root;
	if (a.paste)
		rc = pt_check_paste(&p, a.paste, &a.p50, &a.p99, a.force, verdict, sizeof(verdict));
	else if (a.bare)
		rc = pt_check_fio(&p, a.bare, a.vm, &a.p50, &a.p99, a.force, verdict, sizeof(verdict));
	else
		rc = a.guest ? pt_check_guest(&p, a.host.device) : pt_check_host(&p, &a.host);
	if (rc) {
		pt_free(&p);
		return 2;
	}
	if (!a.bare && !a.paste)
		verdict_of(&p, verdict, sizeof(verdict));
	if (a.json)
		pt_print_json(&p, verdict);
	else
		pt_print(&p, verdict);
	rc = p.worst >= PT_WARNING;
	pt_free(&p);
	return rc;
}
