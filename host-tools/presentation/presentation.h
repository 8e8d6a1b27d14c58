/* SPDX-License-Identifier: MIT */
/*
 * Presentation: what a user reads of a run directory or of fio output —
 * the report (terminal, JSON, HTML; report.h), the comparison of runs
 * (compare.h) and the job/output lint.  Built on analysis/ and fio/.
 */
#ifndef IOGAP_PRESENTATION_H
#define IOGAP_PRESENTATION_H

/* Subcommands (docs/reports.md); argv[0] is the command's name.  Each
 * returns the exit status. */
int iogap_cmd_report(int argc, char **argv);
int iogap_cmd_compare(int argc, char **argv);
int iogap_cmd_lint(int argc, char **argv);

#endif
