/* SPDX-License-Identifier: MIT */
/*
 * fio's --cmdhelp: every job option the probe's parser accepts, with its
 * alias, value type and a one-line help.  tests/probe/test_cmdhelp.sh
 * checks the table against the parser and docs/iogap-probe.md.
 */
#ifndef IOGAP_JOBHELP_H
#define IOGAP_JOBHELP_H

#include <stddef.h>
#include <stdio.h>

enum iogap_opt_type {
	IOGAP_OT_STR,
	IOGAP_OT_SIZE,
	IOGAP_OT_TIME,
	IOGAP_OT_INT,
	IOGAP_OT_BOOL,
	IOGAP_OT_SET,
	IOGAP_OT_RANGE,
	IOGAP_OT_FLOATS,
};

struct iogap_job_help {
	const char *name, *alias;   /* alias NULL when none */
	enum iogap_opt_type type;
	const char *help;
};

extern const struct iogap_job_help iogap_job_helps[];
extern const size_t iogap_nr_job_helps;

/* fio's --cmdhelp: NULL or "all" lists every option ("%-24s: help"), a
 * name or alias prints that option's help, alias and type.  0, or 1
 * after "No such command: NAME" on stderr (and the closest option, when
 * less than 3 edits away, to out). */
int iogap_job_help_show(FILE *out, const char *name);

#endif
