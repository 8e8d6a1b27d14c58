/* SPDX-License-Identifier: MIT */
/*
 * The report's first screen: one row per job and direction (IOPS, p50/p99,
 * the gap per request and its largest stages), then one line per finding
 * that needs action, each with the command that fixes it (docs/reports.md,
 * "The summary").  report.c fills it from the same numbers as its tables;
 * the text, --json and --html show it as it is here.
 */
#ifndef IOGAP_SUMMARY_H
#define IOGAP_SUMMARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "json_writer.h"

#define IOGAP_SUMMARY_ROWS 12     /* six jobs, both directions */
#define IOGAP_SUMMARY_TOP 2       /* stages named per row */
#define IOGAP_SUMMARY_FINDINGS 8

struct iogap_summary_side {
	bool have;
	double iops, p50_ns, p99_ns;
};

struct iogap_summary_stage {
	char key[48];
	double ns, share, err_ns; /* share of the gap (or of the VM's total without bare metal) */
};

struct iogap_summary_row {
	char job[64];
	const char *dir;          /* "read", "write" */
	struct iogap_summary_side vm, bare;
	bool have_gap, comparable; /* comparable: equal load (or stages only the VM has) */
	double gap_ns;
	struct iogap_summary_stage top[IOGAP_SUMMARY_TOP];
	int ntop;
};

struct iogap_summary_finding {
	char what[256], fix[160];
};

struct iogap_summary {
	const char *dir;
	struct iogap_summary_row row[IOGAP_SUMMARY_ROWS];
	size_t nrow, more_rows;   /* more_rows: rows beyond the table, in --full only */
	struct iogap_summary_finding find[IOGAP_SUMMARY_FINDINGS];
	size_t nfind;
};

/* Add a finding: what (printf-style), then the command that fixes it.  The
 * report has fewer kinds of finding than IOGAP_SUMMARY_FINDINGS. */
void iogap_summary_find(struct iogap_summary *s, const char *fix, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void iogap_summary_print(const struct iogap_summary *s, FILE *f);
void iogap_summary_json(const struct iogap_summary *s, struct jw *w);
void iogap_summary_html(const struct iogap_summary *s, FILE *f);
/* S as HTML text (also in an attribute's quotes). */
void iogap_html_esc(FILE *f, const char *s);

#endif
