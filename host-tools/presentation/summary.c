/* SPDX-License-Identifier: MIT */
/* The report's first screen (summary.h): text, JSON and HTML of one summary. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "summary.h"

void iogap_summary_find(struct iogap_summary *s, const char *fix, const char *fmt, ...)
{
	struct iogap_summary_finding *f;
	va_list ap;

	if (s->nfind >= IOGAP_SUMMARY_FINDINGS)
		return;
	f = &s->find[s->nfind++];
	va_start(ap, fmt);
	vsnprintf(f->what, sizeof(f->what), fmt, ap);
	va_end(ap);
	snprintf(f->fix, sizeof(f->fix), "%s", fix);
}

/* "2716/31029": a pair of figures, VM then bare metal, "-" for a side not run */
static void pair_text(char *out, size_t n, const char *fmt, bool vm_have, double vm,
		      bool bare_have, double bare)
{
	char a[32] = "-", b[32] = "-";

	if (vm_have)
		snprintf(a, sizeof(a), fmt, vm);
	if (bare_have)
		snprintf(b, sizeof(b), fmt, bare);
	snprintf(out, n, "%s/%s", a, b);
}

/* "B 61% +-2.1, Q->G 20%": the row's largest stages */
static void stages_text(const struct iogap_summary_row *r, char *out, size_t n)
{
	size_t l = 0;

	out[0] = 0;
	for (int i = 0; i < r->ntop && l < n; i++) {
		const struct iogap_summary_stage *t = &r->top[i];

		l += (size_t)snprintf(out + l, n - l, "%s%s %.0f%%", i ? ", " : "", t->key, t->share);
		if (t->err_ns > 0 && l < n)
			l += (size_t)snprintf(out + l, n - l, " +-%.1f", t->err_ns / 1e3);
	}
	if (!r->comparable && l < n)
		snprintf(out + l, n - l, "%sloads differ", l ? "; " : "");
}

/* A row's cells as text and HTML print them. */
struct row_cells {
	char iops[48], p50[48], p99[48], gap[24], where[160];
};

static void row_cells(const struct iogap_summary_row *r, struct row_cells *c)
{
	pair_text(c->iops, sizeof(c->iops), "%.0f", r->vm.have, r->vm.iops, r->bare.have,
		  r->bare.iops);
	pair_text(c->p50, sizeof(c->p50), "%.1f", r->vm.have, r->vm.p50_ns / 1e3, r->bare.have,
		  r->bare.p50_ns / 1e3);
	pair_text(c->p99, sizeof(c->p99), "%.1f", r->vm.have, r->vm.p99_ns / 1e3, r->bare.have,
		  r->bare.p99_ns / 1e3);
	if (r->have_gap)
		snprintf(c->gap, sizeof(c->gap), "%+.1f", r->gap_ns / 1e3);
	else
		snprintf(c->gap, sizeof(c->gap), "-");
	stages_text(r, c->where, sizeof(c->where));
}

static void print_row(const struct iogap_summary_row *r, int job_width, FILE *f)
{
	struct row_cells c;

	row_cells(r, &c);
	fprintf(f, "  %-*s %-5s %15s %17s %17s %9s%s%s\n", job_width, r->job, r->dir, c.iops,
		c.p50, c.p99, c.gap, c.where[0] ? "  " : "", c.where);
}

/* The job column's width: its longest name, at least 14. */
static int job_width(const struct iogap_summary *s)
{
	size_t w = 14;

	for (size_t i = 0; i < s->nrow; i++)
		if (strlen(s->row[i].job) > w)
			w = strlen(s->row[i].job);
	return (int)w;
}

void iogap_summary_print(const struct iogap_summary *s, FILE *f)
{
	int w = job_width(s);

	fprintf(f, "summary (latency in us; gap = VM - bare metal mean per request):\n");
	fprintf(f, "  %-*s %-5s %15s %17s %17s %9s  %s\n", w, "job", "dir", "IOPS VM/bare",
		"p50 VM/bare", "p99 VM/bare", "gap", "largest terms of the gap (share, +-clock)");
	for (size_t i = 0; i < s->nrow; i++)
		print_row(&s->row[i], w, f);
	if (s->more_rows)
		fprintf(f, "  ... %zu more job/direction rows: iogap report %s --full\n", s->more_rows,
			s->dir);
	for (size_t i = 0; i < s->nfind; i++)
		fprintf(f, "! %s: %s\n", s->find[i].what, s->find[i].fix);
}

static void json_side(struct jw *w, const char *key, const struct iogap_summary_side *sd)
{
	if (!sd->have)
		return;
	jw_obj(w, key);
	jw_float(w, "iops", sd->iops);
	jw_float(w, "p50_ns", sd->p50_ns);
	jw_float(w, "p99_ns", sd->p99_ns);
	jw_end(w);
}

static void json_row(struct jw *w, const struct iogap_summary_row *r)
{
	jw_obj(w, NULL);
	jw_str(w, "job", r->job);
	jw_str(w, "dir", r->dir);
	json_side(w, "vm", &r->vm);
	json_side(w, "bare", &r->bare);
	if (r->have_gap)
		jw_float(w, "gap_ns", r->gap_ns);
	jw_int(w, "loads_comparable", r->comparable);
	jw_open(w, "largest_stages", '[');
	for (int i = 0; i < r->ntop; i++) {
		jw_obj(w, NULL);
		jw_str(w, "stage", r->top[i].key);
		jw_float(w, "mean_ns", r->top[i].ns);
		jw_float(w, "share_pct", r->top[i].share);
		jw_float(w, "error_ns", r->top[i].err_ns);
		jw_end(w);
	}
	jw_close(w, ']');
	jw_end(w);
}

void iogap_summary_json(const struct iogap_summary *s, struct jw *w)
{
	jw_obj(w, "summary");
	jw_open(w, "rows", '[');
	for (size_t i = 0; i < s->nrow; i++)
		json_row(w, &s->row[i]);
	jw_close(w, ']');
	jw_open(w, "findings", '[');
	for (size_t i = 0; i < s->nfind; i++) {
		jw_obj(w, NULL);
		jw_str(w, "what", s->find[i].what);
		jw_str(w, "fix", s->find[i].fix);
		jw_end(w);
	}
	jw_close(w, ']');
	jw_end(w);
}

void iogap_html_esc(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(*s, f);
		}
	}
}

void iogap_summary_html(const struct iogap_summary *s, FILE *f)
{
	fputs("<h2>Summary</h2>\n<table class=\"num summary\"><tr><th>job</th><th>dir</th>"
	      "<th>IOPS VM/bare</th><th>p50 µs VM/bare</th><th>p99 µs VM/bare</th>"
	      "<th>gap µs</th><th>largest stages of the gap</th></tr>\n", f);
	for (size_t i = 0; i < s->nrow; i++) {
		const struct iogap_summary_row *r = &s->row[i];
		struct row_cells c;

		row_cells(r, &c);
		fputs("<tr><td>", f);
		iogap_html_esc(f, r->job);
		fprintf(f, "</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>", r->dir,
			c.iops, c.p50, c.p99, c.gap);
		iogap_html_esc(f, c.where);
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
	for (size_t i = 0; i < s->nfind; i++) {
		fputs("<p class=\"verdict finding\">", f);
		iogap_html_esc(f, s->find[i].what);
		fputs(": <code>", f);
		iogap_html_esc(f, s->find[i].fix);
		fputs("</code></p>\n", f);
	}
}
