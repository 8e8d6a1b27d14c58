/* SPDX-License-Identifier: MIT */
/*
 * Presentation: what a user reads of a run directory or of fio output —
 * the report (terminal, JSON, HTML; report.h), the comparison of runs
 * (compare.h) and the job/output lint.  Built on analysis/ and fio/.
 */
#ifndef IOGAP_PRESENTATION_H
#define IOGAP_PRESENTATION_H

#include <stddef.h>
#include <stdint.h>

/* Subcommands (docs/reports.md); argv[0] is the command's name.  Each
 * returns the exit status. */
int iogap_cmd_report(int argc, char **argv);
int iogap_cmd_compare(int argc, char **argv);
int iogap_cmd_lint(int argc, char **argv);

/* Lint's checks of fio results, for other commands (iogap passthrough):
 * each job of each result, then every result against the first; what[i]
 * names result i in messages; ram is the machines' RAM (0 unknown).  Each
 * finding goes to sink: level 0 info, 1 warning, 2 error, its code, message,
 * why it matters and what to do. */
struct fioi_result;
typedef void (*iogap_lint_sink)(void *ctx, int level, const char *code, const char *msg,
				const char *why, const char *todo);
void iogap_lint_results(const struct fioi_result *const *r, const char *const *what, size_t n,
			uint64_t ram, iogap_lint_sink sink, void *ctx);
/* Did job of r run with direct=1, as lint reads its options: 1 direct, 0
 * buffered, -1 unknown (the output does not show every option). */
int iogap_lint_job_direct(const struct fioi_result *r, size_t job);
/* Lint's checks of job files before they run (this machine's RAM for the
 * cache check), each finding to sink.  0, or -1 with err for a file that
 * cannot be read or is neither a job file nor fio output. */
int iogap_lint_jobfiles(const char *const *paths, size_t n, iogap_lint_sink sink, void *ctx,
			char *err, size_t errlen);

#endif
