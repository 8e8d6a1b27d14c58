/* SPDX-License-Identifier: MIT */
/*
 * iogap-probe: a fio-compatible workload runner that also writes a
 * per-request trace.  Command line as fio's: job files and --key=value job
 * options, plus the probe's own options below.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"
#include "blktrace_merge.h"
#include "debug.h"
#include "engine.h"
#include "idle_prof.h"
#include "job.h"
#include "jobhelp.h"
#include "log_gz.h"
#include "output.h"
#include "profile.h"
#include "runner.h"
#include "selftest.h"
#include "trace_file.h"

#define VERSION_STRING "iogap-probe-" IOGAP_VERSION

static void usage(FILE *f)
{
	fputs("usage: iogap-probe [options] [--name=JOB --OPTION=VALUE ...] [jobfile ...]\n"
	      "\n"
	      "Runs fio-compatible jobs and records every request.\n"
	      "\n"
	      "Probe options:\n"
	      "  --output=FILE            write results to FILE instead of stdout\n"
	      "  --output-format=LIST     normal, terse (or minimal, csv), json, json+\n"
	      "                           (comma separated)\n"
	      "  --minimal                terse output (fio's --minimal)\n"
	      "  --append-terse           terse output as well (fio's --append-terse)\n"
	      "  --terse-version=N        terse output version 2, 3 (default), 4 or 5\n"
	      "  --section=NAME           run only job NAME of the job files (repeatable)\n"
	      "  --readonly               refuse jobs that write or trim, and file layout\n"
	      "  --warnings-fatal         accepted: the probe's job checks are all errors\n"
	      "  --alloc-size=KIB         accepted and ignored (fio's shared memory pool)\n"
	      "  --enghelp                list the I/O engines\n"
	      "  --cmdhelp[=OPTION|all]   a job option's help, or every option's\n"
	      "  --debug=CATEGORY,...     fio's debug lines on stderr (--debug=help)\n"
	      "  --idle-prof=system|percpu|calibrate\n"
	      "                           measure CPU idleness (fio's idle profiling)\n"
	      "  --crctest[=TYPE,...]     the verify checksums' speed\n"
	      "  --memcpytest[=TYPE,...]  memory copy speeds\n"
	      "  --cpuclock-test          check that the clock ascends across CPUs\n"
	      "  --aux-path=DIR           where verify_dump writes its files\n"
	      "  --trigger-file=FILE      stop every job when FILE appears (it is removed)\n"
	      "  --trigger-timeout=TIME   stop every job TIME after the start\n"
	      "  --trigger=CMD            then run CMD (fio's local trigger)\n"
	      "  --parse-only             parse and check the job options, run nothing\n"
	      "  --merge-blktrace-only    merge the jobs' blktrace captures, run nothing\n"
	      "  --profile=NAME           run fio's built-in profile NAME (tiobench, act)\n"
	      "                           with its own options (docs/iogap-probe.md)\n"
	      "  --showcmd                print each job file (and --profile's jobs) as\n"
	      "                           command-line options\n"
	      "  --inflate-log=FILE       print a log_store_compressed log (.fz) as text\n"
	      "  --max-jobs=N             accepted and ignored, as fio 3.33 does\n"
	      "  --status-interval=TIME   print the results so far every TIME (fio's)\n"
	      "  --trace=FILE             write a per-request trace (docs/trace-format.md)\n"
	      "  --kernel-trace=FILE      also record the disk's block_rq_issue/complete\n"
	      "                           (tracefs, root; docs/kernel-points.md)\n"
	      "  --tag-writes / --no-tag-writes\n"
	      "                           stamp write payloads with request tags\n"
	      "                           (default: on when tracing)\n"
	      "  --run-id=HEX             run id for the trace and write tags\n"
	      "  --producer=bare|guest    which side this run is (trace header)\n"
	      "  --allow-destroy-data     write even to targets that hold data\n"
	      "  --eta=auto|always|never  progress line on stderr (auto: when a TTY)\n"
	      "  --eta-interval=TIME      progress line every TIME (default 1s, at least 250ms)\n"
	      "  --eta-newline=TIME       start a new progress line every TIME\n"
	      "  --dump-trace=FILE        print a trace as text and exit\n"
	      "  --agent=PORT             serve iogap run's control channel (in a guest)\n"
	      "  --force=KEY=VALUE        set a job option in every job, over what the job\n"
	      "                           files say (iogap run: same job, other target)\n"
	      "  --output-json=FILE       also write JSON (json+ with --output-format=json+) to FILE\n"
	      "  --null-latency-ns=N      null engine: each request takes N ns\n"
	      "  --version, --help\n"
	      "\n"
	      "Job options are fio's; see docs/iogap-probe.md for the supported set.\n", f);
}

static int parse_formats(const char *s, unsigned *out)
{
	char buf[128], *save = NULL, *tok;

	*out = 0;
	snprintf(buf, sizeof(buf), "%s", s);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "normal"))
			*out |= IOGAP_OUT_NORMAL;
		else if (!strcmp(tok, "json"))
			*out |= IOGAP_OUT_JSON;
		else if (!strcmp(tok, "json+"))
			*out |= IOGAP_OUT_JSONPLUS;
		else if (!strcmp(tok, "terse") || !strcmp(tok, "minimal") || !strcmp(tok, "csv"))
			*out |= IOGAP_OUT_TERSE;
		else
			return -1;
	}
	return *out ? 0 : -1;
}

struct probe_args {
	const char *output;
	const char *trace;
	const char *kernel_trace;
	const char *dump;
	const char *agent;
	const char **force;       /* "key=value" */
	size_t nr_force;
	const char *output_json;
	uint64_t null_latency_ns;
	unsigned formats;
	int tag_writes;           /* -1: default */
	bool allow_destroy;
	uint64_t run_id;
	enum iogap_producer producer;
	int eta;                  /* -1 auto, 0 never, 1 always */
	bool parse_only;
	bool merge_only;          /* fio's --merge-blktrace-only */
	bool showcmd;
	const char *inflate_log;  /* fio's --inflate-log */
	uint64_t status_interval_ns;
	uint64_t eta_interval_ns, eta_newline_ns;
	int terse_version;
	const char **sections;    /* --section names, nr_sections of them */
	size_t nr_sections;
	bool readonly;
	bool enghelp;
	const char *trigger_file, *trigger_cmd;
	uint64_t trigger_timeout_ns;
	const char *aux_path;
	enum iogap_idle_mode idle_mode;
	enum { SELFTEST_NONE, SELFTEST_CMDHELP, SELFTEST_CRC, SELFTEST_MEMCPY,
	       SELFTEST_CPUCLOCK } selftest;
	const char *selftest_arg;  /* the test's =VALUE, NULL when none */
};

/* fio's informational options that run instead of the jobs: --cmdhelp,
 * --crctest, --memcpytest, --cpuclock-test.  1 if key is one. */
static int selftest_option(struct probe_args *a, const char *key, const char *val)
{
	if (!strcmp(key, "cmdhelp"))
		a->selftest = SELFTEST_CMDHELP;
	else if (!strcmp(key, "crctest"))
		a->selftest = SELFTEST_CRC;
	else if (!strcmp(key, "memcpytest"))
		a->selftest = SELFTEST_MEMCPY;
	else if (!strcmp(key, "cpuclock-test"))
		a->selftest = SELFTEST_CPUCLOCK;
	else
		return 0;
	a->selftest_arg = val;
	return 1;
}

static int run_selftest(const struct probe_args *a)
{
	switch (a->selftest) {
	case SELFTEST_CMDHELP:
		return iogap_job_help_show(stdout, a->selftest_arg);
	case SELFTEST_CRC:
		return iogap_crctest(a->selftest_arg);
	case SELFTEST_MEMCPY:
		return iogap_memcpytest(a->selftest_arg);
	case SELFTEST_CPUCLOCK:
		return iogap_cpuclock_test();
	default:
		return 0;
	}
}

/* A positive whole number (--max-jobs, --alloc-size). */
static int positive_number(const char *key, const char *val)
{
	char *end;

	errno = 0;
	if (!val || strtoul(val, &end, 10) == 0 || errno || *end) {
		fprintf(stderr, "iogap-probe: --%s needs a positive number\n", key);
		return -1;
	}
	return 0;
}

/* fio's --eta-interval, --eta-newline, --trigger-timeout: a time, plain
 * numbers seconds. */
static int cli_time(const char *key, const char *val, uint64_t min_ns, uint64_t *out)
{
	if (!val || iogap_parse_time_ns(val, 1000000000ULL, out) || *out < min_ns) {
		fprintf(stderr, "iogap-probe: --%s needs a time of at least %" PRIu64 "ms (plain "
			"numbers are seconds)\n", key, min_ns / 1000000);
		return -1;
	}
	return 0;
}

/* Options fio has for its own output and safety; 1 if key is one. */
static int fio_cli_option(struct probe_args *a, const char *key, const char *val)
{
	if (!strcmp(key, "append-terse")) {
		a->formats |= IOGAP_OUT_TERSE;
	} else if (!strcmp(key, "terse-version")) {
		if (!val || !val[0] || val[1] || !strchr("2345", val[0])) {
			fprintf(stderr, "iogap-probe: --terse-version must be 2, 3, 4 or 5\n");
			return -1;
		}
		a->terse_version = val[0] - '0';
	} else if (!strcmp(key, "section")) {
		if (!val || !*val) {
			fprintf(stderr, "iogap-probe: --section needs a job name\n");
			return -1;
		}
		a->sections[a->nr_sections++] = val;
	} else if (!strcmp(key, "readonly")) {
		a->readonly = true;
	} else if (!strcmp(key, "warnings-fatal")) {
		/* nothing to do: every check of the probe already fails the job */
	} else if (!strcmp(key, "alloc-size") || !strcmp(key, "max-jobs")) {
		/* fio 3.33 ignores --max-jobs ("we don't track/need this
		 * anymore"); --alloc-size sizes fio's shared memory pool, which
		 * the probe does not have.  t/run-fio-tests.py passes --max-jobs */
		return positive_number(key, val) ? -1 : 1;
	} else if (!strcmp(key, "eta-interval")) {
		return cli_time(key, val, 250000000ULL, &a->eta_interval_ns) ? -1 : 1;
	} else if (!strcmp(key, "eta-newline")) {
		return cli_time(key, val, 1000000ULL, &a->eta_newline_ns) ? -1 : 1;
	} else if (!strcmp(key, "enghelp")) {
		a->enghelp = true;
	} else if (!strcmp(key, "trigger-file") || !strcmp(key, "trigger")) {
		if (!val || !*val) {
			fprintf(stderr, "iogap-probe: --%s needs a value\n", key);
			return -1;
		}
		if (!strcmp(key, "trigger"))
			a->trigger_cmd = val;
		else
			a->trigger_file = val;
	} else if (!strcmp(key, "trigger-timeout")) {
		return cli_time(key, val, 1000000000ULL, &a->trigger_timeout_ns) ? -1 : 1;
	} else if (!strcmp(key, "aux-path")) {
		if (!val || !*val) {
			fprintf(stderr, "iogap-probe: --aux-path needs a directory\n");
			return -1;
		}
		a->aux_path = val;
	} else if (!strcmp(key, "idle-prof")) {
		if (iogap_idle_parse(val, &a->idle_mode)) {
			fprintf(stderr, "iogap-probe: --idle-prof must be system, percpu or calibrate\n");
			return -1;
		}
	} else if (!strcmp(key, "debug")) {
		/* set before the job options are read: see set_debug */
	} else if (selftest_option(a, key, val)) {
		/* run instead of the jobs */
	} else if (!strcmp(key, "trigger-remote")) {
		fprintf(stderr, "iogap-probe: --trigger-remote is for fio's client/server mode, "
			"which the probe does not have\n");
		return -1;
	} else {
		return 0;
	}
	return 1;
}

/* Returns 1 if arg was a probe option, 0 if not, -1 on a bad value. */
static int probe_option(struct probe_args *a, const char *key, const char *val)
{
	if (!strcmp(key, "output")) {
		a->output = val;
	} else if (!strcmp(key, "output-format")) {
		if (!val || parse_formats(val, &a->formats)) {
			fprintf(stderr, "iogap-probe: --output-format: '%s' is not normal, terse, json "
				"or json+\n", val ? val : "");
			return -1;
		}
	} else if (!strcmp(key, "minimal")) {
		a->formats = IOGAP_OUT_TERSE;
	} else if (!strcmp(key, "parse-only")) {
		a->parse_only = true;
	} else if (!strcmp(key, "merge-blktrace-only")) {
		a->merge_only = true;
	} else if (!strcmp(key, "showcmd")) {
		a->showcmd = true;
	} else if (!strcmp(key, "inflate-log")) {
		if (!val || !*val) {
			fprintf(stderr, "iogap-probe: --inflate-log needs a log file\n");
			return -1;
		}
		a->inflate_log = val;
	} else if (!strcmp(key, "status-interval")) {
		if (!val || iogap_parse_time_ns(val, 1000000000ULL, &a->status_interval_ns) ||
		    a->status_interval_ns < 1000000ULL) {
			fprintf(stderr, "iogap-probe: --status-interval needs a time of at least 1ms "
				"(plain numbers are seconds)\n");
			return -1;
		}
	} else if (!strcmp(key, "trace")) {
		a->trace = val;
	} else if (!strcmp(key, "tag-writes")) {
		a->tag_writes = 1;
	} else if (!strcmp(key, "no-tag-writes")) {
		a->tag_writes = 0;
	} else if (!strcmp(key, "kernel-trace")) {
		if (!val || !*val) {
			fprintf(stderr, "iogap-probe: --kernel-trace needs a file name\n");
			return -1;
		}
		a->kernel_trace = val;
	} else if (!strcmp(key, "allow-destroy-data")) {
		a->allow_destroy = true;
	} else if (!strcmp(key, "run-id")) {
		char *end;

		errno = 0;
		a->run_id = val ? strtoull(val, &end, 16) : 0;
		if (!val || errno || *end || !a->run_id) {
			fprintf(stderr, "iogap-probe: --run-id needs a non-zero hex number\n");
			return -1;
		}
	} else if (!strcmp(key, "producer")) {
		if (val && !strcmp(val, "bare"))
			a->producer = IOGAP_PRODUCER_PROBE_BARE;
		else if (val && !strcmp(val, "guest"))
			a->producer = IOGAP_PRODUCER_PROBE_GUEST;
		else {
			fprintf(stderr, "iogap-probe: --producer must be bare or guest\n");
			return -1;
		}
	} else if (!strcmp(key, "eta")) {
		if (val && !strcmp(val, "auto"))
			a->eta = -1;
		else if (val && !strcmp(val, "always"))
			a->eta = 1;
		else if (val && !strcmp(val, "never"))
			a->eta = 0;
		else {
			fprintf(stderr, "iogap-probe: --eta must be auto, always or never\n");
			return -1;
		}
	} else if (!strcmp(key, "dump-trace")) {
		a->dump = val;
	} else if (!strcmp(key, "agent")) {
		a->agent = val;
	} else if (!strcmp(key, "force")) {
		if (!val || !strchr(val, '=') || val[0] == '=') {
			fprintf(stderr, "iogap-probe: --force needs KEY=VALUE\n");
			return -1;
		}
		a->force[a->nr_force++] = val;
	} else if (!strcmp(key, "output-json")) {
		a->output_json = val;
	} else if (!strcmp(key, "null-latency-ns")) {
		char *end;

		errno = 0;
		a->null_latency_ns = val ? strtoull(val, &end, 10) : 0;
		if (!val || errno || *end) {
			fprintf(stderr, "iogap-probe: --null-latency-ns needs a number of nanoseconds\n");
			return -1;
		}
	} else {
		return fio_cli_option(a, key, val);
	}
	if (val == NULL && (!strcmp(key, "output") || !strcmp(key, "trace") ||
			    !strcmp(key, "dump-trace") || !strcmp(key, "agent") ||
			    !strcmp(key, "output-json"))) {
		fprintf(stderr, "iogap-probe: --%s needs a value\n", key);
		return -1;
	}
	return 1;
}

/* fio's --enghelp: "Available IO engines:" and one tab-indented name a line. */
static void print_engines(const char *names)
{
	puts("Available IO engines:");
	for (const char *p = names; *p;) {
		size_t n = strcspn(p, ",");

		printf("\t%.*s\n", (int)n, p);
		p += n;
		p += strspn(p, ", ");
	}
}

/* fio's --readonly: no job may write or trim (file layout is refused by
 * the runner).  Returns -1 after naming the first such job. */
static int refuse_writers(const struct iogap_job_list *jobs)
{
	for (size_t i = 0; i < jobs->nr; i++) {
		const struct iogap_job *j = &jobs->jobs[i];

		if (j->rw & (IOGAP_RW_WRITE | IOGAP_RW_TRIM)) {
			fprintf(stderr, "iogap-probe: job '%s': trim and write operations are not "
				"allowed with --readonly\n", j->name);
			return -1;
		}
	}
	return 0;
}

struct report_sinks {
	unsigned formats;
	int terse_version;
	FILE *out, *json_out;
};

/* The results in every format asked for, in fio's order: terse, json, normal. */
static void print_report(const struct report_sinks *rs, const struct iogap_run_report *report)
{
	if (rs->formats & IOGAP_OUT_TERSE) {
		struct iogap_run_report terse = *report;

		terse.terse_version = rs->terse_version;
		iogap_output_terse(rs->out, &terse);
	}
	if (rs->formats & (IOGAP_OUT_JSON | IOGAP_OUT_JSONPLUS) && !rs->json_out)
		iogap_output_json(rs->out, report, rs->formats & IOGAP_OUT_JSONPLUS);
	if (rs->formats & IOGAP_OUT_NORMAL)
		iogap_output_normal(rs->out, report);
	if (rs->json_out)
		iogap_output_json(rs->json_out, report, rs->formats & IOGAP_OUT_JSONPLUS);
	fflush(rs->out);
	if (rs->json_out)
		fflush(rs->json_out);
}

static void print_status(const struct iogap_run_report *report, void *arg)
{
	print_report(arg, report);
}

/* --debug before anything else, so that the parsing of the job options
 * is logged wherever --debug stands.  1: exit with *rc (help, error). */
static int set_debug(int argc, char **argv, int *rc)
{
	char err[256];

	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];
		int r;

		if (strcmp(arg, "--debug") && strncmp(arg, "--debug=", 8))
			continue;
		r = iogap_debug_set(arg[7] ? arg + 8 : NULL, stdout, err, sizeof(err));
		if (r < 0)
			fprintf(stderr, "iogap-probe: %s\n", err);
		if (r) {
			*rc = r < 0;
			return 1;
		}
	}
	return 0;
}

/* --idle-prof=calibrate: fio calibrates, prints the unit time and exits */
static int idle_calibrate(void)
{
	char err[256];
	struct iogap_idle_prof *p = iogap_idle_start(IOGAP_IDLE_CALIBRATE, err, sizeof(err));

	if (!p) {
		fprintf(stderr, "iogap-probe: %s\n", err);
		return 1;
	}
	iogap_idle_stop(p);
	iogap_idle_normal(stdout, p);
	iogap_idle_free(p);
	return 0;
}

int main(int argc, char **argv)
{
	struct probe_args a = { .formats = IOGAP_OUT_NORMAL, .tag_writes = -1,
				.producer = IOGAP_PRODUCER_PROBE_BARE, .eta = -1 };
	struct iogap_job_list jobs = { 0 };
	struct iogap_job cmd_global;
	bool have_global = false;
	struct iogap_run_opts ro = { 0 };
	struct iogap_run_report report;
	struct report_sinks sinks;
	char err[1024];
	FILE *out = stdout, *json_out = NULL;
	struct iogap_idle_prof *idle = NULL;
	int rc = 1;

	const char **jobfiles = calloc((size_t)argc, sizeof(*jobfiles));
	size_t nr_jobfiles = 0;

	a.force = calloc((size_t)argc, sizeof(*a.force));
	a.sections = calloc((size_t)argc, sizeof(*a.sections));
	if (!jobfiles || !a.force || !a.sections || set_debug(argc, argv, &rc))
		goto out;
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];

		if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
			usage(stdout);
			rc = 0;
			goto out;
		}
		if (!strcmp(arg, "--version")) {
			puts(VERSION_STRING);
			rc = 0;
			goto out;
		}
		if (!strncmp(arg, "--", 2)) {
			char key[256];
			const char *eq = strchr(arg, '=');
			const char *val = eq ? eq + 1 : NULL;
			size_t kl = eq ? (size_t)(eq - arg - 2) : strlen(arg + 2);
			int r;

			if (kl == 0 || kl >= sizeof(key)) {
				fprintf(stderr, "iogap-probe: bad option '%s'\n", arg);
				goto out;
			}
			memcpy(key, arg + 2, kl);
			key[kl] = '\0';
			/* "--dump-trace FILE" and "--output FILE" also take the next word */
			if (!val && i + 1 < argc &&
			    (!strcmp(key, "dump-trace") || !strcmp(key, "output") ||
			     !strcmp(key, "trace") || !strcmp(key, "output-format") ||
			     !strcmp(key, "profile")))
				val = argv[++i];
			r = probe_option(&a, key, val);
			if (r == 0)
				r = iogap_profile_cli_option(key, val);
			if (r < 0)
				goto out;
			if (r == 0 && iogap_cmdline_add(&jobs, &cmd_global, &have_global, key, val,
							 err, sizeof(err))) {
				fprintf(stderr, "iogap-probe: %s\n", err);
				goto out;
			}
			continue;
		}
		jobfiles[nr_jobfiles++] = arg;
	}
	if (a.selftest) {
		rc = run_selftest(&a);
		goto out;
	}
	if (a.idle_mode == IOGAP_IDLE_CALIBRATE) {
		rc = idle_calibrate();
		goto out;
	}
	if (a.enghelp) {
		print_engines(iogap_engine_names());
		rc = 0;
		goto out;
	}
	jobs.sections = a.sections;
	jobs.nr_sections = a.nr_sections;
	/* as fio: command-line options before any --name are the defaults of
	 * every job, job files included; job files are read after them */
	for (size_t i = 0; a.showcmd && i < nr_jobfiles; i++) {
		if (iogap_jobfile_showcmd(jobfiles[i], stdout, err, sizeof(err))) {
			fprintf(stderr, "iogap-probe: %s\n", err);
			goto out;
		}
	}
	if (a.showcmd) {
		rc = iogap_profile_showcmd(stdout, err, sizeof(err)) ? 1 : 0;
		if (rc)
			fprintf(stderr, "iogap-probe: %s\n", err);
		goto out;
	}
	if (a.inflate_log) {   /* as fio: print it, run nothing */
		rc = iogap_log_inflate_file(a.inflate_log, stdout, err, sizeof(err)) ? 1 : 0;
		if (rc)
			fprintf(stderr, "iogap-probe: %s\n", err);
		goto out;
	}
	for (size_t i = 0; i < nr_jobfiles; i++) {
		if (iogap_jobfile_parse(jobfiles[i], have_global ? &cmd_global : NULL, &jobs, err,
					sizeof(err))) {
			fprintf(stderr, "iogap-probe: %s\n", err);
			goto out;
		}
	}
	/* as fio: the profile's jobs come after those of the command line
	 * and the job files */
	if (iogap_profile_add_jobs(&jobs, &cmd_global, &have_global, err, sizeof(err))) {
		fprintf(stderr, "iogap-probe: %s\n", err);
		goto out;
	}
	if (a.agent) {
		rc = iogap_agent_main(a.agent, VERSION_STRING);
		goto out;
	}
	if (a.dump) {
		if (iogap_trace_dump(stdout, a.dump, err, sizeof(err))) {
			fprintf(stderr, "iogap-probe: %s\n", err);
			goto out;
		}
		rc = 0;
		goto out;
	}
	if (!jobs.nr) {
		if (a.nr_sections)
			fprintf(stderr, "iogap-probe: no job section named by --section\n");
		else if (have_global && !nr_jobfiles)
			fprintf(stderr, "iogap-probe: job options given but no --name=JOB to run them\n");
		else
			usage(stderr);
		goto out;
	}
	for (size_t i = 0; i < jobs.nr; i++) {
		struct iogap_job *j = &jobs.jobs[i];

		j->null_latency_ns = a.null_latency_ns;
		for (size_t k = 0; k < a.nr_force; k++) {
			char kv[1024], *eq;

			snprintf(kv, sizeof(kv), "%s", a.force[k]);
			eq = strchr(kv, '=');
			*eq = '\0';
			if (iogap_job_set(j, "--force", kv, eq + 1, err, sizeof(err))) {
				fprintf(stderr, "iogap-probe: %s\n", err);
				goto out;
			}
		}
	}
	if (a.readonly && refuse_writers(&jobs))
		goto out;
	if (a.parse_only || a.merge_only) {   /* fio: --parse-only merges nothing */
		for (size_t i = 0; i < jobs.nr; i++) {
			struct iogap_job *j = &jobs.jobs[i];

			if (iogap_job_finalize(j, err, sizeof(err)) ||
			    (!a.parse_only && iogap_blktrace_merge(j, err, sizeof(err)))) {
				fprintf(stderr, "iogap-probe: %s\n", err);
				goto out;
			}
		}
		rc = 0;
		goto out;
	}
	if (a.output_json) {
		json_out = fopen(a.output_json, "w");
		if (!json_out) {
			fprintf(stderr, "iogap-probe: %s: %s\n", a.output_json, strerror(errno));
			goto out;
		}
	}
	if (a.output) {
		out = fopen(a.output, "w");
		if (!out) {
			fprintf(stderr, "iogap-probe: %s: %s\n", a.output, strerror(errno));
			goto out;
		}
	}
	ro.trace_path = a.trace;
	ro.kernel_trace_path = a.kernel_trace;
	ro.tag_writes = a.tag_writes < 0 ? a.trace != NULL : a.tag_writes;
	ro.allow_destroy_data = a.allow_destroy;
	ro.progress = a.eta == 1 || (a.eta < 0 && isatty(STDERR_FILENO) && !a.output);
	ro.eta_interval_ns = a.eta_interval_ns;
	ro.eta_newline_ns = a.eta_newline_ns;
	ro.readonly = a.readonly;
	ro.trigger_file = a.trigger_file;
	ro.trigger_timeout_ns = a.trigger_timeout_ns;
	ro.trigger_cmd = a.trigger_cmd;
	if (iogap_profile_selected())
		ro.prof = iogap_profile_selected()->hooks;
	iogap_profile_set_output(out);
	ro.aux_path = a.aux_path;
	ro.quiet = !(a.formats & IOGAP_OUT_NORMAL);
	ro.run_id = a.run_id;
	ro.producer = a.producer;
	ro.version = VERSION_STRING;
	ro.out = out;
	sinks = (struct report_sinks){ .formats = a.formats, .terse_version = a.terse_version,
				       .out = out, .json_out = json_out };
	ro.status_interval_ns = a.status_interval_ns;
	ro.status = print_status;
	ro.status_arg = &sinks;
	/* fio: the idle threads are calibrated and running before the jobs start */
	if (a.idle_mode != IOGAP_IDLE_NONE && !(idle = iogap_idle_start(a.idle_mode, err, sizeof(err)))) {
		fprintf(stderr, "iogap-probe: %s\n", err);
		goto out;
	}
	if (iogap_run_jobs(&jobs, &ro, &report, err, sizeof(err))) {
		fprintf(stderr, "iogap-probe: %s\n", err);
		goto out;
	}
	if (idle)
		iogap_idle_stop(idle);
	report.idle = idle;
	print_report(&sinks, &report);
	rc = 0;
	for (size_t i = 0; i < report.nr; i++) {
		const struct iogap_job_stat *st = &report.stats[i];

		if (!st->error || st->error_continued)
			continue;
		/* the reason on stderr too: the reports may not be read */
		fprintf(stderr, "iogap-probe: job '%s': error %d (%s): %s\n", st->name, st->error,
			strerror(st->error), st->verror[0] ? st->verror : strerror(st->error));
		rc = 1;
	}
	iogap_run_report_free(&report);
out:
	if (json_out && fclose(json_out) && rc == 0) {
		fprintf(stderr, "iogap-probe: %s: %s\n", a.output_json, strerror(errno));
		rc = 1;
	}
	if (out && out != stdout && fclose(out) && rc == 0) {
		fprintf(stderr, "iogap-probe: %s: %s\n", a.output, strerror(errno));
		rc = 1;
	}
	iogap_idle_free(idle);
	if (have_global)
		iogap_cmdline_global_free(&cmd_global);
	iogap_job_list_free(&jobs);
	free(jobfiles);
	free(a.force);
	free(a.sections);
	return rc;
}
