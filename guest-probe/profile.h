/* SPDX-License-Identifier: MIT */
/*
 * fio's built-in profiles (its profile.c, profiles/tiobench.c, act.c):
 * --profile=NAME picks one; its own options (--device-names=..., ...) fill
 * its settings; it then writes job options as fio's "cmdline" strings,
 * which go through the command-line job parser as if typed after the
 * other options.  A profile may also watch each request's latency and
 * print a report of its own when the jobs are done (act).
 */
#ifndef IOGAP_PROFILE_H
#define IOGAP_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "job.h"
#include "runner.h"

/* How fio parses a profile option's value (its FIO_OPT_* types). */
enum iogap_profile_opt_type {
	IOGAP_POPT_STR,     /* FIO_OPT_STR_STORE: the text */
	IOGAP_POPT_INT,     /* FIO_OPT_INT: a number, size suffixes allowed */
	IOGAP_POPT_SIZE,    /* FIO_OPT_STR_VAL: a 64-bit size */
	IOGAP_POPT_TIME_US, /* FIO_OPT_STR_VAL_TIME: plain numbers are microseconds */
	IOGAP_POPT_SET,     /* FIO_OPT_STR_SET: no value is 1 */
};

struct iogap_profile_opt {
	const char *name;   /* the --option */
	const char *help;   /* fio's help text */
	const char *def;    /* fio's default (NULL: none) */
	enum iogap_profile_opt_type type;
	size_t off;         /* where the value goes in the profile's settings */
	/* a job option of the same name comes first in fio's option table
	 * (tiobench's size): the command line never reaches this one */
	bool shadowed;
};

/* Job options so far, fio's "cmdline" array. */
struct iogap_profile_cmd {
	char **opt;
	size_t nr;
};

struct iogap_profile {
	const char *name;
	const char *desc;
	const struct iogap_profile_opt *opts;   /* ends with a NULL name */
	void *settings;
	/* fio's prep_cmd: append the job options to cmd.  0, or -1 after a
	 * message on stderr (fio's "profile NAME prep failed" follows) */
	int (*prep)(struct iogap_profile_cmd *cmd);
	/* per-request hooks while the jobs run (NULL: none) */
	const struct iogap_prof_hooks *hooks;
};

extern const struct iogap_profile iogap_profile_tiobench;
extern const struct iogap_profile iogap_profile_act;

/* Append "key[=value]" (printf format) to cmd.  0, or -1 out of memory. */
int iogap_profile_cmd_add(struct iogap_profile_cmd *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* A command-line option: 1 if it was --profile or a profile option (its
 * value stored), 0 if neither, -1 after a message for a bad value. */
int iogap_profile_cli_option(const char *key, const char *val);

/* The profile picked by --profile, or NULL. */
const struct iogap_profile *iogap_profile_selected(void);

/* Generate the selected profile's jobs and add them to jobs: options
 * before its first name= into *global (fio's def_thread: the defaults of
 * later jobs), the others into the jobs they name.  0, or -1 with a
 * message in err. */
int iogap_profile_add_jobs(struct iogap_job_list *jobs, struct iogap_job *global,
			   bool *have_global, char *err, size_t errlen);

/* --showcmd: the selected profile's jobs as one "fio --opt ..." line to
 * out (fio prints nothing for a profile).  0, or -1 with a message in err. */
int iogap_profile_showcmd(FILE *out, char *err, size_t errlen);

/* Where a profile's report goes (fio's log_info: its --output), and
 * where the profile finds it (stdout until set). */
void iogap_profile_set_output(FILE *out);
FILE *iogap_profile_output(void);

#endif
