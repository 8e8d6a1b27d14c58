/* SPDX-License-Identifier: MIT */
/*
 * iogap report RUN_DIR [--json FILE|-] [--html FILE] [--timing]
 *
 * btt-style tables of where a request's time goes, VM vs bare metal
 * (docs/architecture.md's layer model; every number is defined in docs/reports.md).
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cpuload.h"
#include "fio_import.h"
#include "json_parse.h"
#include "json_writer.h"
#include "jobs.h"
#include "report.h"
#include "presentation.h"
#include "rundir.h"
#include "summary.h"
#include "timeline.h"
#include "trace_file.h"
#include "util.h"

/* ------------------------------------------------------------ statistics */

void iogap_rstat_merge(struct iogap_rstat *dst, const struct iogap_rstat *src)
{
	double shift;

	if (!src->n)
		return;
	if (!dst->n) {
		*dst = *src;
		return;
	}
	/* move src's sums onto dst's shift */
	shift = (double)(src->shift - dst->shift);
	dst->sumsq += src->sumsq + 2.0 * shift * src->sum + shift * shift * (double)src->n;
	dst->sum += src->sum + shift * (double)src->n;
	dst->n += src->n;
	dst->neg += src->neg;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	for (unsigned i = 0; i < IOGAP_PLAT_NR; i++)
		dst->hist[i] += src->hist[i];
}

double iogap_rstat_mean(const struct iogap_rstat *s)
{
	return s->n ? (double)s->shift + s->sum / (double)s->n : 0.0;
}

double iogap_rstat_stddev(const struct iogap_rstat *s)
{
	double m, v;

	if (s->n < 2)
		return 0.0;
	m = s->sum / (double)s->n;
	v = (s->sumsq - m * s->sum) / (double)(s->n - 1);
	return v > 0 ? sqrt(v) : 0.0;
}

void iogap_rstat_pcts(const struct iogap_rstat *s, const double *plist, unsigned nr,
		      uint64_t *vals)
{
	iogap_plat_percentiles(s->hist, plist, nr, vals);
	/* a bucket's middle can lie past the extremes actually seen */
	for (unsigned i = 0; i < nr && s->n; i++) {
		if (s->max >= 0 && vals[i] > (uint64_t)s->max)
			vals[i] = (uint64_t)s->max;
		if (s->min > 0 && vals[i] < (uint64_t)s->min)
			vals[i] = (uint64_t)s->min;
	}
}

uint64_t iogap_chist_val(unsigned cidx)
{
	unsigned idx = (cidx << IOGAP_CHIST_SHIFT) + (1u << (IOGAP_CHIST_SHIFT - 1));

	if (idx >= IOGAP_PLAT_NR)
		idx = IOGAP_PLAT_NR - 1;
	return iogap_plat_idx_to_val(idx);
}

uint64_t iogap_chist_pct(const uint32_t *h, uint64_t n, double p)
{
	uint64_t sum = 0;
	double rank = p / 100.0 * (double)n;

	if (!n)
		return 0;
	for (unsigned i = 0; i < IOGAP_CHIST_NR; i++) {
		sum += h[i];
		if ((double)sum >= rank && sum)
			return iogap_chist_val(i);
	}
	return iogap_chist_val(IOGAP_CHIST_NR - 1);
}

#define SERIES_MAX_SEC (10u * 86400u)

int iogap_series_add(struct iogap_series *ser, uint64_t t, uint64_t bytes, uint64_t lat)
{
	uint64_t k = t > ser->t0 ? (t - ser->t0) / 1000000000ull : 0;
	struct iogap_sec *sec;

	if (k >= SERIES_MAX_SEC)
		k = SERIES_MAX_SEC - 1;
	sec = iogap_grow_zeroed(ser->s, &ser->cap, sizeof(*sec), k);
	if (!sec)
		return -1;
	ser->s = sec;
	if (k >= ser->nsec)
		ser->nsec = k + 1;
	sec = &ser->s[k];
	sec->n++;
	sec->bytes += bytes;
	sec->lat_sum += (double)lat;
	sec->h[iogap_chist_idx(lat)]++;
	return 0;
}

void iogap_series_free(struct iogap_series *ser)
{
	free(ser->s);
	memset(ser, 0, sizeof(*ser));
}

/* ---------------------------------------------------------------- model */

/* SIDE_MATCHED: bare-matched/, bare metal at the VM's IOPS (--match-load) */
enum { SIDE_VM = IOGAP_SIDE_VM, SIDE_BARE = IOGAP_SIDE_BARE, SIDE_MATCHED = IOGAP_SIDE_MATCHED,
       SIDES = IOGAP_SIDES };
enum { K_SLAT, K_CLAT, K_LAT, K_NR };
static const char *const *const side_key = iogap_side_key;
static const char *const *const side_name = iogap_side_name;
static const char *const dir_key[2] = { "read", "write" };
static const char *const kind_key[K_NR] = { "slat", "clat", "lat" };

static const double pct_list[] = { 50.0, 90.0, 99.0, 99.9 };
#define NPCT 4

struct dirstat {                  /* one job, one direction, one side */
	struct iogap_rstat lat[K_NR];
	uint64_t bytes, errors;
	struct iogap_series sec;
};

struct unit {
	char name[128];
	char jobs[128];           /* job indices folded in, "0" or "0,1" */
	uint64_t t_first[SIDES], t_last[SIDES];
	struct dirstat d[SIDES][2];
	/* per direction, VM requests with every point of the run: its stages
	 * (report.vm), then the total; the reference side's stages (report.bare) */
	struct iogap_rstat *stage[2], *bstage[2];
	uint64_t not_paired[2];
	uint64_t cpu_sat[SIDES];  /* requests submitted in a CPU-saturated second */
	bool buffered;            /* its job ran without direct=1 (lint's reading) */
};

/* What the backend is, for the advice (manifest's target.spec). */
enum backend { BK_UNKNOWN, BK_FILE, BK_RBD, BK_NULL };

/* One side's host CPU record (SIDE/cpuload.txt) and what was saturated. */
struct cpu_side {
	bool have;
	struct iogap_cpuload cl;
	struct iogap_cpu_summary sum;
};

/* A lint finding as the report shows it: level, code, message. */
#define LINT_LINE 640

struct gap {
	bool ok;
	bool load_differs;        /* loads differ by > 10%: backend not compared */
	double vm_total, bare_total, gap;
	/* per row of report.rows, then "other" (unpaired, drift) */
	double contrib[IOGAP_TL_MAX_STAGES + 1], err[IOGAP_TL_MAX_STAGES + 1];
	int largest;
};

struct report {
	const char *dir;
	struct iogap_rundir rd;
	char accel[32];
	uint64_t inject_delay_ns, null_latency_ns;
	enum backend backend;
	int ref;                  /* the bare-metal side the gap compares with */
	struct cpu_side cpu[SIDES];
	struct unit *u;
	size_t nu;
	uint16_t *unit_of;        /* job index -> unit */
	size_t njob;
	double err_ns;            /* error bar of a crossing stage's mean */
	const char *err_source;
	/* the timeline's stages of each side and the gap table's rows */
	struct iogap_stages vm, bare;
	struct iogap_gap_rows rows;
	uint64_t records;         /* records the stats pass went through */
	double t_load, t_stats;
	uint64_t t0[SIDES];
	struct gap gap[256][2];   /* per unit (first 256) and direction */
	/* lint's warnings over the VM's job options, for the first screen */
	char (*lint)[LINT_LINE];
	size_t nlint;
	struct iogap_summary summary;   /* the first screen (summary.h) */
	bool full;                /* --full: the per-stage tables after it */
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The report's units: the jobs the probe reported together (jobs.h). */
static int make_units(struct report *rep, char *err, size_t errlen)
{
	struct iogap_jobs jobs;
	size_t maxjob = 0;

	for (int s = 0; s < SIDES; s++)
		if (rep->rd.side[s].njobs > maxjob)
			maxjob = rep->rd.side[s].njobs;
	if (iogap_jobs_load(rep->dir, maxjob, &jobs, err, errlen))
		return -1;
	rep->u = calloc(jobs.njob, sizeof(*rep->u));
	if (!rep->u) {
		iogap_jobs_free(&jobs);
		return iogap_seterr(err, errlen, "out of memory");
	}
	for (size_t k = 0; k < jobs.nunit; k++) {
		snprintf(rep->u[k].name, sizeof(rep->u[k].name), "%s", jobs.unit[k].name);
		snprintf(rep->u[k].jobs, sizeof(rep->u[k].jobs), "%s", jobs.unit[k].jobs);
	}
	rep->nu = jobs.nunit;
	rep->njob = jobs.njob;
	rep->unit_of = jobs.unit_of;
	jobs.unit_of = NULL;
	iogap_jobs_free(&jobs);
	return 0;
}

static void span(struct unit *u, int side, uint64_t start, uint64_t complete)
{
	if (!u->t_first[side] || start < u->t_first[side])
		u->t_first[side] = start;
	if (complete > u->t_last[side])
		u->t_last[side] = complete;
}

static int add_rec(struct dirstat *d, uint64_t t_complete, const struct iogap_trace_record *r)
{
	uint64_t slat = r->issue_ns - r->start_ns, clat = r->complete_ns - r->issue_ns;
	uint64_t lat = r->complete_ns - r->start_ns, bytes = r->result > 0 ? (uint64_t)r->result : 0;

	iogap_rstat_add(&d->lat[K_SLAT], (int64_t)slat);
	iogap_rstat_add(&d->lat[K_CLAT], (int64_t)clat);
	iogap_rstat_add(&d->lat[K_LAT], (int64_t)lat);
	d->bytes += bytes;
	d->errors += r->result < 0;
	return iogap_series_add(&d->sec, t_complete, bytes, lat);
}

/* A request submitted at host time t in a CPU-saturated second. */
static void count_cpu_sat(const struct report *rep, struct unit *u, int side, uint64_t t)
{
	const struct cpu_side *c = &rep->cpu[side];

	if (c->have && iogap_cpu_saturated_at(&c->cl, &c->sum, t))
		u->cpu_sat[side]++;
}

/* A complete timeline's stages into st[], then its total. */
static void add_stages(struct iogap_rstat *st, const struct iogap_stages *ss,
		       const struct iogap_timeline *tl)
{
	for (size_t i = 0; i < ss->n; i++)
		iogap_rstat_add(&st[i], iogap_timeline_stage_ns(tl, &ss->s[i]));
	iogap_rstat_add(&st[ss->n], iogap_timeline_total_ns(tl, ss));
}

/* One VM request into its unit's statistics; non-zero: out of memory. */
static int stats_pair(void *ctx, const struct iogap_pair *p)
{
	struct report *rep = ctx;
	const struct iogap_trace_record *g = p->guest;
	struct unit *u;
	struct iogap_timeline tl;
	int d = g->op;

	if (g->flags & IOGAP_REC_RAMP || d > 1)
		return 0;
	u = &rep->u[rep->unit_of[g->job]];
	span(u, SIDE_VM, p->g_start, p->g_complete);
	count_cpu_sat(rep, u, SIDE_VM, p->g_start);
	if (add_rec(&u->d[SIDE_VM][d], p->g_complete, g))
		return 1;
	iogap_timeline_from_pair(p, &tl);
	if (!iogap_timeline_complete(&tl, &rep->vm)) {
		u->not_paired[d]++;
		return 0;
	}
	add_stages(u->stage[d], &rep->vm, &tl);
	return 0;
}

/* One bare-metal record (host clock) of side bare_side. */
struct bare_visit {
	struct report *rep;
	int side;
};

static int stats_bare(void *ctx, const struct iogap_trace_record *r,
		      const struct iogap_trace_record *kernel)
{
	struct bare_visit *v = ctx;
	struct unit *u;

	if (r->flags & IOGAP_REC_RAMP || r->op > 1)
		return 0;
	u = &v->rep->u[v->rep->unit_of[r->job]];
	span(u, v->side, r->start_ns, r->complete_ns);
	count_cpu_sat(v->rep, u, v->side, r->start_ns);
	if (v->side == v->rep->ref) {
		struct iogap_timeline tl;

		iogap_timeline_from_record_kernel(r, kernel, &tl);
		if (iogap_timeline_complete(&tl, &v->rep->bare))
			add_stages(u->bstage[r->op], &v->rep->bare, &tl);
	}
	return add_rec(&u->d[v->side][r->op], r->complete_ns, r) ? 1 : 0;
}

/* A side's points: with the kernel-fed ones when it recorded kernel
 * points, the host-kernel-fed ones (VM) when the host kernel was traced. */
static iogap_tl_mask points_of(const struct report *rep, int side, enum iogap_tl_side tl)
{
	return iogap_timeline_produced_by(tl, rep->rd.kernel[side].present,
					  side == SIDE_VM && rep->rd.host_kernel.present,
					  rep->rd.filters);
}

static double mean_of(const struct iogap_rstat *s);

/* The sum of the reference side's main stage means. */
static double bare_stage_sum(const struct report *rep, const struct unit *u, int d)
{
	double sum = 0;

	for (size_t s = 0; s < rep->bare.n; s++)
		if (!(rep->bare.s[s].flags & IOGAP_STAGE_DETAIL))
			sum += mean_of(&u->bstage[d][s]);
	return sum;
}

/* Does the reference side have stages of its own (kernel points)? */
static bool bare_stages_shown(const struct report *rep)
{
	return rep->rd.kernel[rep->ref].present;
}

/* The stages of the points each side's producers stamp, the gap rows
 * between them, and each unit's stage statistics.  -1: out of memory. */
static int stages_setup(struct report *rep)
{
	iogap_timeline_stages(IOGAP_TL_VM, points_of(rep, SIDE_VM, IOGAP_TL_VM), &rep->vm);
	iogap_timeline_stages(IOGAP_TL_BARE, points_of(rep, rep->ref, IOGAP_TL_BARE), &rep->bare);
	iogap_timeline_gap_rows(&rep->vm, &rep->bare, &rep->rows);
	for (size_t k = 0; k < rep->nu; k++)
		for (int d = 0; d < 2; d++) {
			struct unit *u = &rep->u[k];

			u->stage[d] = calloc(rep->vm.n + 1, sizeof(*u->stage[d]));
			u->bstage[d] = calloc(rep->bare.n + 1, sizeof(*u->bstage[d]));
			if (!u->stage[d] || !u->bstage[d])
				return -1;
		}
	return 0;
}

/* The stats pass: every request once (rundir's visits), into histograms
 * and per-second bins whose origin is each side's first measured request. */
static int stats_pass(struct report *rep, char *err, size_t errlen)
{
	int rc = 0;

	if (stages_setup(rep)) {
		snprintf(err, errlen, "out of memory (stage statistics)");
		return -1;
	}
	for (int s = 0; s < SIDES; s++)
		rep->t0[s] = rep->rd.side[s].t0;
	for (size_t k = 0; k < rep->nu; k++)
		for (int s = 0; s < SIDES; s++)
			for (int d = 0; d < 2; d++)
				rep->u[k].d[s][d].sec.t0 = rep->t0[s];
	if (rep->rd.side[SIDE_VM].present)
		rc = iogap_rundir_each_pair(&rep->rd, stats_pair, rep, err, errlen);
	for (int s = SIDE_BARE; s < SIDES && !rc; s++) {
		struct bare_visit v = { rep, s };

		if (rep->rd.side[s].present)
			rc = iogap_rundir_each_record(&rep->rd, (enum iogap_side)s, stats_bare, &v,
						      err, errlen);
	}
	for (int s = 0; s < SIDES; s++)
		rep->records += rep->rd.side[s].records;
	if (rc > 0)
		snprintf(err, errlen, "out of memory (per-second series)");
	return rc ? -1 : 0;
}

static double mean_of(const struct iogap_rstat *s)
{
	return iogap_rstat_mean(s);
}

static double runtime_s(const struct unit *u, int side)
{
	return u->t_last[side] > u->t_first[side] ?
	       (double)(u->t_last[side] - u->t_first[side]) / 1e9 : 0;
}

/* Loads further apart than this (ratio of IOPS - 1) are not comparable. */
#define LOAD_TOLERANCE 0.10

/* The load a side ran a unit at, over both directions: IOPS, and the mean
 * number of requests in flight by Little's law (IOPS x mean latency). */
struct load {
	double iops, inflight;
};

static struct load side_load(const struct unit *u, int side)
{
	struct load l = { 0, 0 };
	double rt = runtime_s(u, side);

	for (int d = 0; d < 2 && rt > 0; d++) {
		double iops = (double)u->d[side][d].lat[K_LAT].n / rt;

		l.iops += iops;
		l.inflight += iops * mean_of(&u->d[side][d].lat[K_LAT]) / 1e9;
	}
	return l;
}

static bool loads_differ(struct load a, struct load b)
{
	return a.iops > 0 && b.iops > 0 &&
	       fmax(a.iops, b.iops) / fmin(a.iops, b.iops) > 1.0 + LOAD_TOLERANCE;
}

/* The VM's total per request, over the requests with every stage. */
static const struct iogap_rstat *total_of(const struct report *rep, const struct unit *u, int d)
{
	return &u->stage[d][rep->vm.n];
}

static double stage_err(const struct report *rep, const struct iogap_stage *s)
{
	return s->flags & IOGAP_STAGE_CROSSING ? rep->err_ns : 0;
}

/* A gap row's mean in the VM: its stages' means. */
static double row_vm_mean(const struct report *rep, const struct unit *u, int d,
			  const struct iogap_gap_row *row)
{
	double m = 0;

	for (size_t i = row->first; i <= row->last; i++)
		if (!(rep->vm.s[i].flags & IOGAP_STAGE_DETAIL))
			m += mean_of(&u->stage[d][i]);
	return m;
}

/* A gap row's mean on bare metal: the reference side's stages between its
 * bare points. */
static double row_bare_mean(const struct report *rep, const struct unit *u, int d,
			    const struct iogap_gap_row *row)
{
	bool in = false;
	double m = 0;

	for (size_t i = 0; i < rep->bare.n; i++) {
		const struct iogap_stage *s = &rep->bare.s[i];

		if (s->flags & IOGAP_STAGE_DETAIL)
			continue;
		in = in || s->from == row->bare_from;
		if (in)
			m += mean_of(&u->bstage[d][i]);
		if (s->to == row->bare_to)
			break;
	}
	return m;
}

static bool row_vs_bare(const struct iogap_gap_row *row)
{
	return row->bare_to >= 0;
}

/* Does the clock tell the crossing stages apart: is its error smaller than
 * each one's mean?  Else each alone would be more the clock's error than
 * the stage: only their sum is printed (the clock's offset cancels in it). */
static bool crossings_told(const struct report *rep, const struct iogap_rstat *st)
{
	for (size_t s = 0; s < rep->vm.n; s++)
		if ((rep->vm.s[s].flags & IOGAP_STAGE_CROSSING) && st[s].n &&
		    rep->err_ns >= mean_of(&st[s]))
			return false;
	return true;
}

/* The crossing stages' keys ("G->Q + Q->G") into keys; the sum of their means. */
static double crossing_sum(const struct report *rep, const struct iogap_rstat *st, char *keys,
			   size_t n)
{
	double sum = 0;
	size_t used = 0;

	keys[0] = '\0';
	for (size_t s = 0; s < rep->vm.n; s++) {
		if (!(rep->vm.s[s].flags & IOGAP_STAGE_CROSSING))
			continue;
		sum += mean_of(&st[s]);
		if (used < n)
			used += (size_t)snprintf(keys + used, n - used, "%s%s", used ? " + " : "",
						 rep->vm.s[s].key);
	}
	return sum;
}

static void compute_gaps(struct report *rep)
{
	for (size_t k = 0; k < rep->nu && k < 256; k++) {
		for (int d = 0; d < 2; d++) {
			struct unit *u = &rep->u[k];
			struct gap *g = &rep->gap[k][d];
			size_t other = rep->rows.n;
			bool told = crossings_told(rep, u->stage[d]);
			double sum = 0;

			memset(g, 0, sizeof(*g));
			g->largest = -1;
			if (!total_of(rep, u, d)->n || !u->d[rep->ref][d].lat[K_LAT].n)
				continue;
			g->ok = true;
			g->load_differs = loads_differ(side_load(u, SIDE_VM), side_load(u, rep->ref));
			g->vm_total = mean_of(&u->d[SIDE_VM][d].lat[K_LAT]);
			g->bare_total = mean_of(&u->d[rep->ref][d].lat[K_LAT]);
			g->gap = g->vm_total - g->bare_total;
			for (size_t c = 0; c < other; c++) {
				const struct iogap_gap_row *row = &rep->rows.r[c];

				g->contrib[c] = row_vm_mean(rep, u, d, row);
				if (row_vs_bare(row))
					g->contrib[c] -= row_bare_mean(rep, u, d, row);
				g->err[c] = row->crossing ? rep->err_ns : 0;
				sum += g->contrib[c];
			}
			g->contrib[other] = g->gap - sum;
			/* at different loads a stage compared with bare metal differs
			 * by queueing: not a term to name (docs/reports.md, "Load");
			 * nor is a crossing stage the clock cannot tell */
			for (size_t c = 0; c < other; c++)
				if (!(row_vs_bare(&rep->rows.r[c]) && g->load_differs) &&
				    (told || !rep->rows.r[c].crossing) &&
				    (g->largest < 0 || g->contrib[c] > g->contrib[g->largest]))
					g->largest = (int)c;
		}
	}
}

/* ------------------------------------------------------------- verdict */

/* What to look at in the backend, by its kind (docs/reports.md); NULL:
 * nothing more than the stage's own advice. */
static const char *backend_hint(enum backend b)
{
	switch (b) {
	case BK_RBD:
		return "check librbd (its cache: rbd_cache and the limits in the manifest's "
		       "target.rbd_cache_*; its threads: rbd_op_threads), QEMU's rbd driver (one image "
		       "handle per drive, iothreads) and the OSDs (ceph osd perf, the OSD's CPU and "
		       "device); QEMU's aio= does not apply to rbd";
	case BK_NULL:
		return "null-co is a synthetic backend: B is its latency-ns plus QEMU's timer "
		       "overshoot, not a device; run against a real target for a backend verdict";
	case BK_FILE:
		return "check the cache mode (cache=none for O_DIRECT as on bare metal), aio= (native, "
		       "io_uring, threads), iothreads, and the host's I/O stack";
	default:
		return NULL;
	}
}

static const char *stage_hint(const struct report *rep, const struct iogap_stage *s)
{
	const char *h = s->flags & IOGAP_STAGE_BACKEND_HINT ? backend_hint(rep->backend) : NULL;

	return h ? h : s->hint;
}

/* The advice for the backend: its stage's, by the backend's kind. */
static const char *backend_advice(const struct report *rep)
{
	for (size_t s = 0; s < rep->vm.n; s++)
		if (rep->vm.s[s].flags & IOGAP_STAGE_BACKEND_HINT)
			return stage_hint(rep, &rep->vm.s[s]);
	return backend_hint(rep->backend);
}

static enum backend backend_of(const char *spec)
{
	if (!spec)
		return BK_UNKNOWN;
	if (!strncmp(spec, "rbd:", 4))
		return BK_RBD;
	if (!strncmp(spec, "null:", 5))
		return BK_NULL;
	if (!strncmp(spec, "file:", 5) || !strncmp(spec, "dev:", 4) || !strncmp(spec, "zns:", 4))
		return BK_FILE;
	return BK_UNKNOWN;
}

/* How sure: over incomplete data never "firm" (the missing part may change it). */
static void sure_text(const struct report *rep, const struct iogap_stage *s, char *buf, size_t n,
		      double contrib, double err)
{
	bool partial = rep->rd.n_incomplete > 0;
	bool guest = iogap_tl_point(s->from)->clock == IOGAP_TL_GUEST;

	if (err <= 0)
		snprintf(buf, n, "measured on the %s clock alone: no clock error bar%s",
			 guest ? "guest's" : "host", partial ? "; over incomplete data" : "");
	else if (err < 0.25 * fabs(contrib) && !partial)
		snprintf(buf, n, "firm: the clock error bar (+-%.1f us) is %.0f%% of it", err / 1e3,
			 100.0 * err / fabs(contrib));
	else if (err < fabs(contrib))
		snprintf(buf, n, "probable%s: the clock error bar (+-%.1f us) is %.0f%% of it",
			 partial ? " (incomplete data)" : "", err / 1e3, 100.0 * err / fabs(contrib));
	else
		snprintf(buf, n, "uncertain: the clock error bar (+-%.1f us) is as large as it",
			 err / 1e3);
}

__attribute__((format(printf, 4, 5)))
static void cat(char *out, size_t n, size_t *l, const char *fmt, ...)
{
	va_list ap;

	if (*l >= n)
		return;
	va_start(ap, fmt);
	*l += (size_t)vsnprintf(out + *l, n - *l, fmt, ap);
	va_end(ap);
}

/* The keys of the stages compared with bare metal: "B". */
/* "B", "HK.sub and D", "HK.sub, D and HK.ret"; the number of rows. */
static size_t keys_vs_bare(const struct report *rep, char *out, size_t n)
{
	size_t l = 0, k = 0, total = 0;

	out[0] = 0;
	for (size_t c = 0; c < rep->rows.n; c++)
		total += row_vs_bare(&rep->rows.r[c]);
	for (size_t c = 0; c < rep->rows.n; c++)
		if (row_vs_bare(&rep->rows.r[c]))
			cat(out, n, &l, "%s%s", !k++ ? "" : k == total ? " and " : ", ",
			    rep->rows.r[c].stage.key);
	return total;
}

/* At different loads: say so, and name the largest stage only the VM has
 * (a VM without filter points has none: each of its stages has a bare one). */
static void verdict_load(const struct report *rep, const struct unit *u, int d,
			 const struct gap *g, char *out, size_t n, size_t *l)
{
	struct load vm = side_load(u, SIDE_VM), bare = side_load(u, rep->ref);
	int c = g->largest;
	const struct iogap_stage *s;
	char sure[160], compared[128];
	bool several;

	several = keys_vs_bare(rep, compared, sizeof(compared)) > 1;
	cat(out, n, l, "%s %s: not at equal load — the VM ran %.0f IOPS (%.1f in flight), %s %.0f "
	    "IOPS (%.1f in flight), %.1fx apart: the backend %s by queueing, not by "
	    "virtualization, so %s %s not compared with bare metal (run `iogap run --match-load`).",
	    u->name, dir_key[d], vm.iops, vm.inflight, side_name[rep->ref], bare.iops,
	    bare.inflight, fmax(vm.iops, bare.iops) / fmin(vm.iops, bare.iops),
	    several ? "stages differ" : "stage differs", compared, several ? "are" : "is");
	if (c < 0) {
		cat(out, n, l, " Every VM stage has its bare-metal counterpart: none is named.");
		return;
	}
	s = &rep->rows.r[c].stage;
	sure_text(rep, s, sure, sizeof(sure), g->contrib[c], g->err[c]);
	cat(out, n, l, " Of the stages only the VM has, the largest is %s, %.1f us (%.0f%% of the "
	    "VM's %.1f us per request), spent %s (%s): %s.", s->key, g->contrib[c] / 1e3,
	    100.0 * g->contrib[c] / g->vm_total, g->vm_total / 1e3, s->where, sure,
	    stage_hint(rep, s));
}

/* A detail stage inside the gap row that is most of its contribution. */
static void verdict_detail(const struct report *rep, const struct unit *u, int d,
			   const struct iogap_gap_row *row, double contrib, char *out, size_t n,
			   size_t *l)
{
	for (size_t i = 0; i < rep->vm.n; i++) {
		const struct iogap_stage *s = &rep->vm.s[i];
		double m = mean_of(&u->stage[d][i]);

		if (s->flags & IOGAP_STAGE_DETAIL && s->within >= (int)row->first &&
		    s->within <= (int)row->last && m > 0.5 * contrib)
			cat(out, n, l, " %c%s (%s, %.1f us) is most of it: %s.", toupper(s->what[0]),
			    s->what + 1, s->key, m / 1e3, stage_hint(rep, s));
	}
}

static void verdict_gap(const struct report *rep, const struct unit *u, int d,
			const struct gap *g, char *out, size_t n, size_t *l)
{
	int c = g->largest;
	const struct iogap_gap_row *row = &rep->rows.r[c];
	const struct iogap_stage *s = &row->stage;
	double share = g->gap > 0 ? 100.0 * g->contrib[c] / g->gap : 0;
	char sure[160];

	if (g->gap <= 0) {
		cat(out, n, l, "%s %s: the VM is not slower than bare metal (%.1f vs %.1f us per "
		    "request).", u->name, dir_key[d], g->vm_total / 1e3, g->bare_total / 1e3);
		return;
	}
	sure_text(rep, s, sure, sizeof(sure), g->contrib[c], g->err[c]);
	if (row_vs_bare(row))
		cat(out, n, l, "%s %s: %.0f%% of the %+.1f us per request (VM %.1f us vs bare metal "
		    "%.1f us) is %s being slower in the VM (%s %.1f us vs %.1f us on bare "
		    "metal; %s): %s.", u->name, dir_key[d], share, g->gap / 1e3, g->vm_total / 1e3,
		    g->bare_total / 1e3, s->what, s->key, row_vm_mean(rep, u, d, row) / 1e3,
		    row_bare_mean(rep, u, d, row) / 1e3, sure, stage_hint(rep, s));
	else
		cat(out, n, l, "%s %s: %.0f%% of the %+.1f us per request (VM %.1f us vs bare metal "
		    "%.1f us) is spent %s (%.1f us; %s): %s.", u->name, dir_key[d], share,
		    g->gap / 1e3, g->vm_total / 1e3, g->bare_total / 1e3, s->where,
		    g->contrib[c] / 1e3, sure, stage_hint(rep, s));
	verdict_detail(rep, u, d, row, g->contrib[c], out, n, l);
}

static void verdict_vm_only(const struct report *rep, const struct unit *u, int d, char *out,
			    size_t n, size_t *l)
{
	const struct iogap_rstat *st = u->stage[d];
	int best = -1;
	double tot = mean_of(total_of(rep, u, d));
	bool told = crossings_told(rep, st);
	char sure[160];

	for (size_t i = 0; i < rep->vm.n; i++)
		if (!(rep->vm.s[i].flags & IOGAP_STAGE_DETAIL) &&
		    (told || !(rep->vm.s[i].flags & IOGAP_STAGE_CROSSING)) &&
		    (best < 0 || mean_of(&st[i]) > mean_of(&st[best])))
			best = (int)i;
	sure_text(rep, &rep->vm.s[best], sure, sizeof(sure), mean_of(&st[best]),
		  stage_err(rep, &rep->vm.s[best]));
	cat(out, n, l, "%s %s: no bare-metal run to compare with; the largest stage in the VM is "
	    "%s, %.0f%% of the %.1f us per request, spent %s (%s): %s.", u->name, dir_key[d],
	    rep->vm.s[best].key, tot > 0 ? 100.0 * mean_of(&st[best]) / tot : 0, tot / 1e3,
	    rep->vm.s[best].where, sure, stage_hint(rep, &rep->vm.s[best]));
}

/* The share of a side's requests submitted while the CPU was saturated. */
static void verdict_cpu(const struct report *rep, const struct unit *u, char *out, size_t n,
			size_t *l)
{
	for (int s = 0; s < SIDES; s++) {
		uint64_t all = u->d[s][0].lat[K_LAT].n + u->d[s][1].lat[K_LAT].n;

		/* the sides the verdict compares */
		if (!u->cpu_sat[s] || !all || (s != SIDE_VM && s != rep->ref))
			continue;
		cat(out, n, l, " The host CPU was saturated (%s) while %.0f%% of the %s requests were "
		    "submitted: their times include waiting for a CPU%s.", rep->cpu[s].sum.host_sat ?
		    "all cores busy" : "a QEMU, probe or backend thread at a full core",
		    100.0 * (double)u->cpu_sat[s] / (double)all, side_name[s],
		    s == SIDE_VM ? " (in the backend and the crossings alike)" : "");
	}
}

/*
 * Why no stage may be named for this job and direction, said in out: a job
 * without direct=1 (the guest's page cache answers or absorbs requests, and
 * the filters see only what it sends on), fewer than half of the requests
 * paired (the stage means then describe a selection, not the requests the
 * gap is over: the gap's "other" row is larger than any stage), or a stage
 * mean below zero by more than its error bar (no request can spend negative
 * time: the pairs are not the requests').  false: a verdict may be given.
 */
static bool verdict_withheld(const struct report *rep, const struct unit *u, int d, char *out,
			     size_t n, size_t *l)
{
	uint64_t paired = total_of(rep, u, d)->n, all = paired + u->not_paired[d];

	if (u->buffered) {
		cat(out, n, l, "%s %s: no per-layer verdict: the job ran without direct=1, so the "
		    "guest's page cache answered or absorbed requests and the filters saw only those "
		    "it sent on (see lint's warning at the top).", u->name, dir_key[d]);
		return true;
	}
	if (rep->rd.filters && 2 * paired < all) {
		cat(out, n, l, "%s %s: no per-layer verdict: only %" PRIu64 " of %" PRIu64 " %ss "
		    "(%.1f%%) were seen at both filters; a verdict needs at least half, for the "
		    "stage means to describe the requests the gap is over.", u->name, dir_key[d],
		    paired, all, dir_key[d], all ? 100.0 * (double)paired / (double)all : 0);
		return true;
	}
	for (size_t i = 0; paired && i < rep->vm.n; i++) {
		const struct iogap_stage *s = &rep->vm.s[i];
		double m = mean_of(&u->stage[d][i]), e = stage_err(rep, s);

		if (!(s->flags & IOGAP_STAGE_DETAIL) && m < -e) {
			cat(out, n, l, "%s %s: no per-layer verdict: %s's mean, %.1f us, is below zero "
			    "by more than its error bar (+-%.1f us): the pairs do not describe these "
			    "requests.", u->name, dir_key[d], s->key, m / 1e3, e / 1e3);
			return true;
		}
	}
	return false;
}

/* The verdict for one job and direction, in words; "" if nothing to say. */
static void verdict(const struct report *rep, size_t k, int d, char *out, size_t n)
{
	const struct unit *u = &rep->u[k];
	const struct gap *g = k < 256 ? &rep->gap[k][d] : NULL;
	size_t l = 0;

	out[0] = 0;
	if (!(g && g->ok) && !total_of(rep, u, d)->n)
		return;
	if (rep->rd.n_incomplete)
		cat(out, n, &l, "PROVISIONAL, over incomplete data (see the first line): ");
	if (!(rep->rd.have_vm && verdict_withheld(rep, u, d, out, n, &l))) {
		if (g && g->ok && g->load_differs)
			verdict_load(rep, u, d, g, out, n, &l);
		else if (g && g->ok)
			verdict_gap(rep, u, d, g, out, n, &l);
		else
			verdict_vm_only(rep, u, d, out, n, &l);
	}
	if (!crossings_told(rep, u->stage[d])) {
		char keys[128];
		double across = crossing_sum(rep, u->stage[d], keys, sizeof(keys));

		cat(out, n, &l, " %s are told only together, %.1f us: the clock's error (+-%.1f us) "
		    "is as large as each of them.", keys, across / 1e3, rep->err_ns / 1e3);
	}
	verdict_cpu(rep, u, out, n, &l);
}

/* ------------------------------------------------------------- summary */

/* The stages with an end on the guest's clock: "G.submit, G->Q, Q->G". */
static void guest_stage_keys(const struct report *rep, char *out, size_t n)
{
	size_t l = 0;

	out[0] = 0;
	for (size_t s = 0; s < rep->vm.n; s++)
		if (iogap_tl_point(rep->vm.s[s].from)->clock == IOGAP_TL_GUEST ||
		    iogap_tl_point(rep->vm.s[s].to)->clock == IOGAP_TL_GUEST)
			cat(out, n, &l, "%s%s", l ? ", " : "", rep->vm.s[s].key);
}

static void summary_side(const struct unit *u, int side, int d, struct iogap_summary_side *out)
{
	const struct iogap_rstat *lat = &u->d[side][d].lat[K_LAT];
	double rt = runtime_s(u, side);
	const double p[2] = { 50.0, 99.0 };
	uint64_t v[2];

	out->have = lat->n > 0;
	if (!out->have)
		return;
	iogap_rstat_pcts(lat, p, 2, v);
	out->iops = rt > 0 ? (double)lat->n / rt : 0;
	out->p50_ns = (double)v[0];
	out->p99_ns = (double)v[1];
}

/* Keep the IOGAP_SUMMARY_TOP largest positive stages of a row, largest first. */
static void summary_offer(struct iogap_summary_row *r, const char *key, double ns, double of,
			  double err)
{
	int i;

	if (ns <= 0 || of <= 0)
		return;
	for (i = r->ntop; i > 0 && r->top[i - 1].ns < ns; i--)
		if (i < IOGAP_SUMMARY_TOP)
			r->top[i] = r->top[i - 1];
	if (i >= IOGAP_SUMMARY_TOP)
		return;
	snprintf(r->top[i].key, sizeof(r->top[i].key), "%s", key);
	r->top[i].ns = ns;
	r->top[i].share = 100.0 * ns / of;
	r->top[i].err_ns = err;
	if (r->ntop < IOGAP_SUMMARY_TOP)
		r->ntop++;
}

/* The gap's rows a verdict may name (compute_gaps' rule), and the crossing
 * stages' sum where the clock tells them only together. */
static void summary_gap_stages(const struct report *rep, const struct unit *u, int d,
			       const struct gap *g, struct iogap_summary_row *r)
{
	bool told = crossings_told(rep, u->stage[d]);
	double across = 0;

	for (size_t c = 0; c < rep->rows.n; c++) {
		const struct iogap_gap_row *row = &rep->rows.r[c];

		if (!told && row->crossing)
			across += g->contrib[c];
		else if (!(row_vs_bare(row) && g->load_differs))
			summary_offer(r, row->stage.gap_key, g->contrib[c], g->gap, g->err[c]);
	}
	if (!told)
		summary_offer(r, "across the clocks", across, g->gap, rep->err_ns);
}

/* Without bare metal: the VM's largest stages, as shares of its total. */
static void summary_vm_stages(const struct report *rep, const struct unit *u, int d,
			      struct iogap_summary_row *r)
{
	double tot = mean_of(total_of(rep, u, d));
	bool told = crossings_told(rep, u->stage[d]);

	for (size_t i = 0; i < rep->vm.n; i++)
		if (!(rep->vm.s[i].flags & IOGAP_STAGE_DETAIL) &&
		    (told || !(rep->vm.s[i].flags & IOGAP_STAGE_CROSSING)))
			summary_offer(r, rep->vm.s[i].key, mean_of(&u->stage[d][i]), tot,
				      stage_err(rep, &rep->vm.s[i]));
}

/* One row; true if no stage may be named (verdict_withheld). */
static bool summary_row(const struct report *rep, size_t k, int d, struct iogap_summary_row *r)
{
	const struct unit *u = &rep->u[k];
	const struct gap *g = k < 256 ? &rep->gap[k][d] : NULL;
	char why[1024];
	size_t l = 0;

	snprintf(r->job, sizeof(r->job), "%s", u->name);
	r->dir = dir_key[d];
	summary_side(u, SIDE_VM, d, &r->vm);
	summary_side(u, rep->ref, d, &r->bare);
	r->comparable = !(g && g->ok && g->load_differs);
	r->have_gap = g && g->ok;
	r->gap_ns = r->have_gap ? g->gap : 0;
	if (rep->rd.have_vm && total_of(rep, u, d)->n && verdict_withheld(rep, u, d, why,
									   sizeof(why), &l))
		return true;
	if (r->have_gap)
		summary_gap_stages(rep, u, d, g, r);
	else if (total_of(rep, u, d)->n)
		summary_vm_stages(rep, u, d, r);
	return false;
}

/* "randread read, seqwrite write", or "every job" when it is all of them:
 * the rows a finding is about; "" for none */
static void summary_rows_named(const struct iogap_summary *s, const bool *which, char *out,
			       size_t n)
{
	size_t l = 0, k = 0;

	out[0] = 0;
	for (size_t i = 0; i < s->nrow; i++)
		k += which[i];
	if (k > 1 && k == s->nrow && !s->more_rows) {
		snprintf(out, n, "every job");
		return;
	}
	for (size_t i = 0; i < s->nrow; i++)
		if (which[i])
			cat(out, n, &l, "%s%s %s", l ? ", " : "", s->row[i].job, s->row[i].dir);
}

static void summary_findings(const struct report *rep, struct iogap_summary *s,
			     const bool *differ, const bool *withheld, const bool *buffered,
			     const bool *cpu)
{
	char named[128], fix[160];

	if (rep->rd.n_incomplete)
		iogap_summary_find(s, "rerun `iogap run` with the same job file",
				   "data incomplete (first line): every figure is provisional");
	guest_stage_keys(rep, named, sizeof(named));
	if (rep->rd.have_vm && !strcmp(rep->accel, "tcg"))
		iogap_summary_find(s, "run on a host with /dev/kvm (`iogap run --accel kvm ...`)",
				   "TCG: the guest stages (%s) include emulation", named);
	summary_rows_named(s, differ, named, sizeof(named));
	if (named[0])
		iogap_summary_find(s, "`iogap run --match-load ...` compares them at equal load",
				   "loads differ by over %.0f%% (%s): backend stages not compared",
				   100 * LOAD_TOLERANCE, named);
	summary_rows_named(s, buffered, named, sizeof(named));
	if (named[0])
		iogap_summary_find(s, "add direct=1 to the job file",
				   "buffered I/O (%s): the page cache hides the stages", named);
	snprintf(fix, sizeof(fix), "`iogap report %s --full` says why", rep->dir);
	summary_rows_named(s, withheld, named, sizeof(named));
	if (named[0])
		iogap_summary_find(s, fix, "no per-layer verdict (%s)", named);
	summary_rows_named(s, cpu, named, sizeof(named));
	if (named[0])
		iogap_summary_find(s, "rerun on an idle host, or with fewer jobs",
				   "host CPU saturated (%s): times include waiting for a CPU", named);
	snprintf(fix, sizeof(fix), "`iogap lint %s`", rep->dir);
	if (rep->nlint)
		iogap_summary_find(s, fix, "%zu lint warning%s on the VM's job options", rep->nlint,
				   rep->nlint > 1 ? "s" : "");
}

static bool cpu_saturated(const struct report *rep, const struct unit *u)
{
	return u->cpu_sat[SIDE_VM] || u->cpu_sat[rep->ref];
}

/* The first screen, from the numbers the tables show. */
static void make_summary(const struct report *rep, struct iogap_summary *s)
{
	bool differ[IOGAP_SUMMARY_ROWS] = { false }, withheld[IOGAP_SUMMARY_ROWS] = { false };
	bool buffered[IOGAP_SUMMARY_ROWS] = { false }, cpu[IOGAP_SUMMARY_ROWS] = { false };

	memset(s, 0, sizeof(*s));
	s->dir = rep->dir;
	for (size_t k = 0; k < rep->nu; k++)
		for (int d = 0; d < 2; d++) {
			const struct unit *u = &rep->u[k];
			struct iogap_summary_row *r = &s->row[s->nrow];

			if (!u->d[SIDE_VM][d].lat[K_LAT].n && !u->d[rep->ref][d].lat[K_LAT].n)
				continue;
			if (s->nrow == IOGAP_SUMMARY_ROWS) {
				s->more_rows++;
				continue;
			}
			withheld[s->nrow] = summary_row(rep, k, d, r) && !u->buffered;
			differ[s->nrow] = !r->comparable;
			buffered[s->nrow] = rep->rd.have_vm && u->buffered;
			cpu[s->nrow] = cpu_saturated(rep, u);
			s->nrow++;
		}
	summary_findings(rep, s, differ, withheld, buffered, cpu);
}

/* ------------------------------------------------------------ terminal */

static void fmt_us(char *b, size_t n, double ns)
{
	double a = fabs(ns);

	if (a >= 1e8)
		snprintf(b, n, "%.0f", ns / 1e3);
	else if (a >= 1e5)
		snprintf(b, n, "%.1f", ns / 1e3);
	else
		snprintf(b, n, "%.2f", ns / 1e3);
}

/* submit: a submit call's time, which sync engines do not have */
static void print_row(FILE *f, const char *label, const struct iogap_rstat *s, double err,
		      bool submit)
{
	uint64_t p[NPCT];
	char b[8][32], e[32] = "";

	if (!s->n) {
		fprintf(f, "  %-12s %9s\n", label, "0");
		return;
	}
	if (s->min == 0 && s->max == 0 && submit) {
		/* fio's sync engines stamp issue = start: there is no submit time */
		fprintf(f, "  %-12s %9" PRIu64 "   n/a: a sync engine (psync) has no submit time, as in fio\n",
			label, s->n);
		return;
	}
	iogap_rstat_pcts(s, pct_list, NPCT, p);
	fmt_us(b[0], 32, (double)s->min);
	fmt_us(b[1], 32, mean_of(s));
	for (int i = 0; i < NPCT; i++)
		fmt_us(b[2 + i], 32, (double)p[i]);
	fmt_us(b[6], 32, (double)s->max);
	if (err > 0)
		snprintf(e, sizeof(e), "+-%.1f", err / 1e3);
	fprintf(f, "  %-12s %9" PRIu64 " %9s %9s %9s %9s %9s %9s %9s  %s\n", label, s->n, b[0], b[1],
		b[2], b[3], b[4], b[5], b[6], e);
}

/* Each side's load for this job (both directions), and the flag. */
static void print_load(FILE *f, const struct unit *u,
		       const struct gap *g)
{
	fprintf(f, "load (both directions; in flight = IOPS x mean latency):");
	for (int s = 0; s < SIDES; s++) {
		struct load l = side_load(u, s);

		if (l.iops > 0)
			fprintf(f, " %s %.0f IOPS, %.1f in flight;", side_name[s], l.iops, l.inflight);
	}
	fputc('\n', f);
	if (g && g->ok && g->load_differs)
		fprintf(f, "LOADS DIFFER by more than %.0f%%: the backend stage is not comparable "
			"(it differs by queueing, not by virtualization)\n", 100 * LOAD_TOLERANCE);
}

/* "   (G.submit lies inside it)" for the detail stages inside stage i. */
static void inside_text(const struct report *rep, size_t i, char *out, size_t n)
{
	size_t l = 0;

	out[0] = 0;
	for (size_t j = 0; j < rep->vm.n; j++)
		if (rep->vm.s[j].within == (int)i)
			cat(out, n, &l, "   (%s lies inside it)", rep->vm.s[j].key);
}

/* A gap row's label: "backend (B - bare)" where it is compared with bare
 * metal (minus: "-" or "−"). */
static void row_label(const struct iogap_gap_row *row, const char *minus, char *out, size_t n)
{
	if (row_vs_bare(row))
		snprintf(out, n, "%s (%s %s bare)", row->stage.gap_key, row->stage.key, minus);
	else
		snprintf(out, n, "%s", row->stage.gap_key);
}

static void print_gap_rows(const struct report *rep, FILE *f, const struct gap *g, bool told)
{
	double across = 0;

	for (size_t c = 0; c <= rep->rows.n; c++) {
		char e[32] = "", label[128] = "other (unpaired, drift)";

		if (c < rep->rows.n && !told && rep->rows.r[c].crossing) {
			across += g->contrib[c];
			continue;
		}
		if (c == rep->rows.n && !told)
			fprintf(f, "  %-22s %+10.2f us          %6.1f%%\n", "across the clocks",
				across / 1e3, g->gap ? 100.0 * across / g->gap : 0);
		if (c < rep->rows.n)
			row_label(&rep->rows.r[c], "-", label, sizeof(label));
		if (g->err[c] > 0)
			snprintf(e, sizeof(e), "+-%.1f", g->err[c] / 1e3);
		if (c < rep->rows.n && row_vs_bare(&rep->rows.r[c]) && g->load_differs) {
			fprintf(f, "  %-22s %+10.2f us          not comparable: the loads differ\n",
				label, g->contrib[c] / 1e3);
			continue;
		}
		fprintf(f, "  %-22s %+10.2f us %-8s %6.1f%%\n", label, g->contrib[c] / 1e3, e,
			g->gap ? 100.0 * g->contrib[c] / g->gap : 0);
	}
}

/* The reference side's main stages (kernel points): rows, then their
 * sum against its total. */
static void print_bare_stages(const struct report *rep, FILE *f, const struct unit *u, int d)
{
	const struct iogap_rstat *total = &u->bstage[d][rep->bare.n];
	double sum = bare_stage_sum(rep, u, d), tot = mean_of(total);

	for (size_t s = 0; s < rep->bare.n; s++) {
		char label[64];

		snprintf(label, sizeof(label), "bare %s", rep->bare.s[s].key);
		if (!(rep->bare.s[s].flags & IOGAP_STAGE_DETAIL))
			print_row(f, label, &u->bstage[d][s], 0, false);
	}
	fprintf(f, "  bare stages (%s, %" PRIu64 " requests matched in the kernel) sum to %.2f us, "
		"%+.3f%% of their total %.2f us\n", side_name[rep->ref], total->n, sum / 1e3,
		tot > 0 ? 100.0 * (sum - tot) / tot : 0.0, tot / 1e3);
}

static void print_unit_dir(const struct report *rep, FILE *f, size_t k, int d)
{
	const struct unit *u = &rep->u[k];
	const struct iogap_rstat *st = u->stage[d], *total = total_of(rep, u, d);
	const struct dirstat *vm = &u->d[SIDE_VM][d], *bare = &u->d[SIDE_BARE][d];
	const struct gap *g = k < 256 ? &rep->gap[k][d] : NULL;
	bool told = crossings_told(rep, st);
	char v[2048], keys[128];
	double across = crossing_sum(rep, st, keys, sizeof(keys));

	if (!vm->lat[K_LAT].n && !bare->lat[K_LAT].n)
		return;
	fprintf(f, "\n== %s (job %s), %s ==\n", u->name, u->jobs, dir_key[d]);
	if (vm->lat[K_LAT].n)
		fprintf(f, "VM: %" PRIu64 " requests, %" PRIu64 " %s%s%s "
			"(%.1f%%)%s\n", vm->lat[K_LAT].n, total->n,
			rep->rd.filters ? "seen at the top and bottom filter" :
			"with every point (passthrough: no filter nodes)",
			rep->rd.kernel[SIDE_VM].present ? " and matched in the guest kernel" : "",
			rep->rd.host_kernel.present ? " and the host's" : "",
			100.0 * (double)total->n / (double)vm->lat[K_LAT].n,
			u->not_paired[d] ? "; the others are left out of the stage rows" : "");
	fprintf(f, "  %-12s %9s %9s %9s %9s %9s %9s %9s %9s  %s\n", "stage (us)", "N", "min",
		"mean", "p50", "p90", "p99", "p99.9", "max", "clock");
	if (total->n) {
		for (size_t s = 0; s < rep->vm.n; s++)
			if (!told && (rep->vm.s[s].flags & IOGAP_STAGE_CROSSING))
				fprintf(f, "  %-12s %9" PRIu64 "   not a number: it crosses the clocks, "
					"whose error (+-%.1f us) is as large as it\n", rep->vm.s[s].key,
					st[s].n, rep->err_ns / 1e3);
			else
				print_row(f, rep->vm.s[s].key, &st[s], stage_err(rep, &rep->vm.s[s]),
					  rep->vm.s[s].flags & IOGAP_STAGE_DETAIL);
		if (!told)
			fprintf(f, "  %-12s %9s %9s %9.2f   mean of %s together: the clock's offset "
				"cancels in it\n", "across", "", "", across / 1e3, keys);
		print_row(f, "total (VM)", total, 0, false);
	}
	if (bare->lat[K_LAT].n) {
		print_row(f, "bare total", &bare->lat[K_LAT], 0, false);
		print_row(f, "bare slat", &bare->lat[K_SLAT], 0, true);
		print_row(f, "bare clat", &bare->lat[K_CLAT], 0, false);
	}
	if (bare_stages_shown(rep) && u->bstage[d][rep->bare.n].n)
		print_bare_stages(rep, f, u, d);
	if (total->n) {
		double tot = mean_of(total), sum = 0;

		fprintf(f, "share of the VM total (btt style):\n");
		for (size_t s = 0; s < rep->vm.n; s++) {
			double m = mean_of(&st[s]);
			char inside[128];

			if (rep->vm.s[s].flags & IOGAP_STAGE_DETAIL)
				continue;
			sum += m;
			if (!told && (rep->vm.s[s].flags & IOGAP_STAGE_CROSSING))
				continue;
			inside_text(rep, s, inside, sizeof(inside));
			fprintf(f, "  %-12s %6.1f%%  %10.2f us%s\n", rep->vm.s[s].key, 100.0 * m / tot,
				m / 1e3, inside);
		}
		if (!told)
			fprintf(f, "  %-12s %6.1f%%  %10.2f us   (%s together)\n", "across",
				100.0 * across / tot, across / 1e3, keys);
		fprintf(f, "  %-12s %6.1f%%  %10.2f us   (total %.2f us: stages sum to %+.3f%% of it)\n",
			"sum", 100.0 * sum / tot, sum / 1e3, tot / 1e3, 100.0 * (sum - tot) / tot);
	}
	print_load(f, u, g);
	if (g && g->ok) {
		fprintf(f, "the gap: VM %.2f us - %s %.2f us = %+.2f us per request\n",
			g->vm_total / 1e3, side_name[rep->ref], g->bare_total / 1e3, g->gap / 1e3);
		print_gap_rows(rep, f, g, told);
	}
	verdict(rep, k, d, v, sizeof(v));
	if (v[0])
		fprintf(f, "verdict: %s\n", v);
}

static void print_throughput(const struct report *rep, FILE *f)
{
	fprintf(f, "\nthroughput and fio-style latency (us; every request outside ramp):\n");
	for (size_t k = 0; k < rep->nu; k++) {
		const struct unit *u = &rep->u[k];

		for (int d = 0; d < 2; d++) {
			for (int s = 0; s < SIDES; s++) {
				const struct dirstat *ds = &u->d[s][d];
				double rt = runtime_s(u, s);

				if (!ds->lat[K_LAT].n)
					continue;
				fprintf(f, "  %-10s %-5s %-4s IOPS=%.1f BW=%.0fKiB/s runtime=%.3fs n=%" PRIu64
					"%s\n", u->name, dir_key[d], side_key[s],
					rt > 0 ? (double)ds->lat[K_LAT].n / rt : 0,
					rt > 0 ? (double)ds->bytes / 1024.0 / rt : 0, rt, ds->lat[K_LAT].n,
					ds->errors ? " (with errors)" : "");
				for (int kk = 0; kk < K_NR; kk++) {
					const struct iogap_rstat *r = &ds->lat[kk];
					uint64_t p[NPCT];

					iogap_rstat_pcts(r, pct_list, NPCT, p);
					fprintf(f, "      %s: min=%.2f avg=%.2f max=%.2f stdev=%.2f p50=%.2f "
						"p99=%.2f\n", kind_key[kk], (double)r->min / 1e3, mean_of(r) / 1e3,
						(double)r->max / 1e3, iogap_rstat_stddev(r) / 1e3,
						(double)p[0] / 1e3, (double)p[2] / 1e3);
				}
			}
		}
	}
}

/* "matched 5, none 1, ...": a side's kernel matching, every outcome. */
static void kernel_counts_text(const struct iogap_kernel_side *ks, char *out, size_t n)
{
	const struct iogap_kmatch_counts *c = &ks->counts;

	snprintf(out, n, "matched %" PRIu64 ", none %" PRIu64 ", ambiguous %" PRIu64 ", split %"
		 PRIu64 ", merged %" PRIu64 ", unmapped %" PRIu64, c->matched, c->none, c->ambiguous,
		 c->split, c->merged, ks->unmapped);
}

/* One kernel trace's line: how its requests matched, or why it is absent. */
static void print_kernel_side(FILE *f, const char *name, const char *absent,
			      const struct iogap_kernel_side *ks)
{
	char c[256];

	if (!ks->present) {
		fprintf(f, "%s: none (%s): %s\n", name, ks->why[0] ? ks->why : "not recorded",
			absent);
		return;
	}
	kernel_counts_text(ks, c, sizeof(c));
	fprintf(f, "%s: requests %s%s%s\n", name, c,
		ks->file && ks->extents_why[0] ? "; no extent map: " : "",
		ks->file ? ks->extents_why : "");
}

/* Which sides have kernel points (and how their requests matched), which
 * lack them and why; said only for runs that recorded what they did. */
static void print_kernel_points(const struct report *rep, FILE *f)
{
	char name[96];

	if (!rep->rd.kernel_recorded)
		return;
	for (int s = 0; s < SIDES; s++) {
		snprintf(name, sizeof(name), "%s kernel points", side_name[s]);
		if (rep->rd.side[s].present)
			print_kernel_side(f, name, "its kernel and device stages are absent",
					  &rep->rd.kernel[s]);
	}
	if (rep->rd.have_vm)
		print_kernel_side(f, "VM host kernel points (under QEMU, bottom filter requests)",
				  "the backend's kernel and device stages (HK.sub, D, HK.ret) are "
				  "absent", &rep->rd.host_kernel);
}

/* The run's setup, first in --full: sides, CPU, accel, clock, lint, kernel points. */
static void print_setup(const struct report *rep, FILE *f)
{
	const struct iogap_clock_map *m = &rep->rd.pairing.map;

	fprintf(f, "sides: %s%s%s%s\n", rep->rd.have_vm ? "VM" : "",
		rep->rd.have_vm && rep->rd.have_bare ? " + " : "", rep->rd.have_bare ? "bare metal" : "",
		rep->rd.have_matched ? " + bare metal at the VM's IOPS (bare-matched/, the gap's "
		"reference)" : "");
	for (int s = 0; s < SIDES; s++) {
		char line[2048];

		iogap_cpu_summary_text(&rep->cpu[s].cl, &rep->cpu[s].sum, line, sizeof(line));
		if (rep->cpu[s].have && line[0])
			fprintf(f, "%s CPU: %s\n", side_name[s], line);
	}
	if (rep->rd.have_vm) {
		fprintf(f, "VM accel: %s%s\n", rep->accel[0] ? rep->accel : "unknown",
			!strcmp(rep->accel, "tcg") ? " (TCG: software emulation; guest-side timings "
			"include emulation and are far larger than under KVM)" : "");
		if (rep->rd.filters)
			fprintf(f, "clock: %s, bound width %.1f us (%s), crossing stages +-%.1f us "
				"(%s)\n", m->method ? m->method : "?",
				(double)(m->bound_hi_ns - m->bound_lo_ns) / 1e3, m->bound_consistent ?
				"consistent" : "INCONSISTENT: ping-pong estimate kept", rep->err_ns / 1e3,
				rep->err_source);
		else
			fprintf(f, "passthrough: %s (no filter nodes: every VM stage is on the guest's "
				"clock, clock %s)\n", rep->rd.manifest.passthrough,
				m->method ? m->method : "?");
		if (rep->null_latency_ns || rep->inject_delay_ns)
			fprintf(f, "known delays: backend null-co latency-ns=%" PRIu64
				", injected top->bottom delay-ns=%" PRIu64 "\n",
				rep->null_latency_ns, rep->inject_delay_ns);
	}
	for (size_t i = 0; i < rep->nlint; i++)
		fprintf(f, "lint: %s\n", rep->lint[i]);
	print_kernel_points(rep, f);
}

/* The summary first; the per-stage tables (with each verdict) with --full. */
static void print_text(const struct report *rep, FILE *f)
{
	if (rep->rd.n_incomplete) {
		fprintf(f, "iogap report: %s: INCOMPLETE DATA, verdicts provisional:", rep->dir);
		for (size_t i = 0; i < rep->rd.n_incomplete; i++)
			fprintf(f, "%s %s", i ? ";" : "", rep->rd.incomplete[i]);
		fputc('\n', f);
	} else {
		fprintf(f, "iogap report: %s\n", rep->dir);
	}
	iogap_summary_print(&rep->summary, f);
	if (!rep->full) {
		fprintf(f, "per-stage tables, verdicts and the clock: iogap report %s --full\n",
			rep->dir);
		return;
	}
	fprintf(f, "\n==== details: per-stage tables ====\n");
	print_setup(rep, f);
	for (size_t k = 0; k < rep->nu; k++)
		for (int d = 0; d < 2; d++)
			print_unit_dir(rep, f, k, d);
	print_throughput(rep, f);
}

/* ----------------------------------------------------------------- JSON */

static void json_rstat(struct jw *w, const char *key, const struct iogap_rstat *s, double err)
{
	uint64_t p[NPCT];

	iogap_rstat_pcts(s, pct_list, NPCT, p);
	jw_obj(w, key);
	jw_u64(w, "n", s->n);
	jw_int(w, "min_ns", s->n ? s->min : 0);
	jw_float(w, "mean_ns", mean_of(s));
	jw_float(w, "stddev_ns", iogap_rstat_stddev(s));
	jw_u64(w, "p50_ns", p[0]);
	jw_u64(w, "p90_ns", p[1]);
	jw_u64(w, "p99_ns", p[2]);
	jw_u64(w, "p99.9_ns", p[3]);
	jw_int(w, "max_ns", s->n ? s->max : 0);
	jw_u64(w, "negative", s->neg);
	if (err >= 0)
		jw_float(w, "error_ns", err);
	jw_end(w);
}

static void json_side(struct jw *w, const struct report *rep, const struct unit *u, int s, int d)
{
	const struct dirstat *ds = &u->d[s][d];
	double rt = runtime_s(u, s);

	(void)rep;
	jw_obj(w, side_key[s]);
	jw_u64(w, "n", ds->lat[K_LAT].n);
	jw_u64(w, "errors", ds->errors);
	jw_u64(w, "io_bytes", ds->bytes);
	jw_float(w, "runtime_s", rt);
	jw_float(w, "iops", rt > 0 ? (double)ds->lat[K_LAT].n / rt : 0);
	jw_float(w, "bw_bytes", rt > 0 ? (double)ds->bytes / rt : 0);
	for (int k = 0; k < K_NR; k++)
		json_rstat(w, kind_key[k], &ds->lat[k], -1);
	jw_open(w, "per_second", '[');
	for (size_t i = 0; i < ds->sec.nsec; i++) {
		const struct iogap_sec *sec = &ds->sec.s[i];

		jw_member(w, NULL);
		fprintf(w->f, "{ \"t\" : %zu, \"n\" : %" PRIu64 ", \"bytes\" : %" PRIu64
			", \"lat_mean_ns\" : %.1f, \"lat_p99_ns\" : %" PRIu64 " }", i, sec->n, sec->bytes,
			sec->n ? sec->lat_sum / (double)sec->n : 0, iogap_chist_pct(sec->h, sec->n, 99.0));
	}
	jw_close(w, ']');
	jw_end(w);
}

static const char *const backend_key[] = { "unknown", "file", "rbd", "null" };

/* Whether the data is whole and from one run, the backend, the host CPU. */
static void json_truth(struct jw *w, const struct report *rep)
{
	jw_int(w, "complete", rep->rd.n_incomplete == 0);
	jw_open(w, "incomplete", '[');
	for (size_t i = 0; i < rep->rd.n_incomplete; i++) {
		jw_member(w, NULL);
		jw_string(w, rep->rd.incomplete[i]);
	}
	jw_close(w, ']');
	jw_obj(w, "backend");
	jw_str(w, "kind", backend_key[rep->backend]);
	jw_str(w, "advice", backend_advice(rep));
	jw_end(w);
	jw_obj(w, "cpu");
	for (int s = 0; s < SIDES; s++) {
		const struct cpu_side *c = &rep->cpu[s];

		if (!c->have)
			continue;
		jw_obj(w, side_key[s]);
		jw_u64(w, "ncpu", c->cl.ncpu);
		jw_u64(w, "seconds", c->sum.nsec);
		jw_u64(w, "host_saturated_s", c->sum.host_sat);
		jw_u64(w, "saturated_s", c->sum.sat);
		jw_float(w, "host_mean_pct", c->sum.host_mean_pct);
		jw_float(w, "host_max_pct", c->sum.host_max_pct);
		jw_float(w, "others_mean_pct", c->sum.others_mean_pct);
		jw_open(w, "busy_threads", '[');
		for (size_t i = 0; i < c->sum.nbusy; i++) {
			const struct iogap_cpu_task *t = &c->cl.task[c->sum.busy[i].task];

			jw_obj(w, NULL);
			jw_str(w, "role", t->role);
			jw_str(w, "comm", t->comm);
			jw_int(w, "pid", t->pid);
			jw_int(w, "tid", t->tid);
			jw_u64(w, "saturated_s", c->sum.busy[i].nsec);
			jw_end(w);
		}
		jw_close(w, ']');
		jw_end(w);
	}
	jw_end(w);
}

/* A job's VM stages, their shares of the total and how close they sum to it. */
static void json_stages(struct jw *w, const struct report *rep, const struct unit *u, int d)
{
	const struct iogap_rstat *st = u->stage[d], *total = total_of(rep, u, d);
	double tot = mean_of(total), sum = 0;

	jw_obj(w, "stages");
	jw_u64(w, "not_paired", u->not_paired[d]);
	for (size_t s = 0; s < rep->vm.n; s++)
		json_rstat(w, rep->vm.s[s].key, &st[s], stage_err(rep, &rep->vm.s[s]));
	json_rstat(w, "total", total, 0);
	jw_end(w);
	jw_obj(w, "share_pct");
	for (size_t s = 0; s < rep->vm.n; s++) {
		if (rep->vm.s[s].flags & IOGAP_STAGE_DETAIL)
			continue;
		sum += mean_of(&st[s]);
		jw_float(w, rep->vm.s[s].key, 100.0 * mean_of(&st[s]) / tot);
	}
	jw_float(w, "sum", 100.0 * sum / tot);
	jw_end(w);
	jw_float(w, "stage_sum_ns", sum);
	jw_float(w, "stage_sum_error_pct", 100.0 * (sum - tot) / tot);
}

/* The reference side's stages (kernel points), their sum and its total. */
static void json_bare_stages(struct jw *w, const struct report *rep, const struct unit *u, int d)
{
	const struct iogap_rstat *total = &u->bstage[d][rep->bare.n];

	jw_obj(w, "bare_stages");
	jw_str(w, "side", side_key[rep->ref]);
	for (size_t s = 0; s < rep->bare.n; s++)
		json_rstat(w, rep->bare.s[s].key, &u->bstage[d][s], 0);
	json_rstat(w, "total", total, 0);
	jw_float(w, "stage_sum_ns", bare_stage_sum(rep, u, d));
	jw_end(w);
}

/* The gap table: a row's key, then "other". */
static const char *row_key(const struct report *rep, size_t c)
{
	return c < rep->rows.n ? rep->rows.r[c].stage.gap_key : "other";
}

static void json_gap(struct jw *w, const struct report *rep, const struct gap *g)
{
	jw_obj(w, "gap");
	jw_float(w, "vm_total_mean_ns", g->vm_total);
	jw_float(w, "bare_total_mean_ns", g->bare_total);
	jw_float(w, "gap_ns", g->gap);
	jw_obj(w, "contrib_ns");
	for (size_t c = 0; c <= rep->rows.n; c++)
		jw_float(w, row_key(rep, c), g->contrib[c]);
	jw_end(w);
	jw_obj(w, "error_ns");
	for (size_t c = 0; c <= rep->rows.n; c++)
		jw_float(w, row_key(rep, c), g->err[c]);
	jw_end(w);
	jw_member(w, "largest");   /* "": none may be named (verdict_load) */
	jw_string(w, g->largest < 0 ? "" : row_key(rep, (size_t)g->largest));
	jw_end(w);
}

/* A job's load per side and whether the comparison is at equal load. */
static void json_load(struct jw *w, const struct report *rep, size_t k)
{
	const struct unit *u = &rep->u[k];
	bool differs = false;

	for (int d = 0; d < 2 && k < 256; d++)
		differs = differs || (rep->gap[k][d].ok && rep->gap[k][d].load_differs);
	jw_obj(w, "load");
	for (int s = 0; s < SIDES; s++) {
		struct load l = side_load(u, s);
		uint64_t all = u->d[s][0].lat[K_LAT].n + u->d[s][1].lat[K_LAT].n;

		if (l.iops <= 0)
			continue;
		jw_obj(w, side_key[s]);
		jw_float(w, "iops", l.iops);
		jw_float(w, "in_flight", l.inflight);
		if (rep->cpu[s].have)
			jw_float(w, "cpu_saturated_pct", all ? 100.0 * (double)u->cpu_sat[s] / (double)all : 0);
		jw_end(w);
	}
	jw_str(w, "reference", side_key[rep->ref]);
	jw_int(w, "differs", differs);
	jw_end(w);
}

/* One kernel trace's matching, or why it is absent. */
static void json_kernel_side(struct jw *w, const char *key, const struct iogap_kernel_side *ks)
{
	jw_obj(w, key);
	jw_int(w, "recorded", ks->present);
	jw_str(w, "why", ks->present ? "" : ks->why[0] ? ks->why : "not recorded");
	if (ks->present) {
		jw_u64(w, "matched", ks->counts.matched);
		jw_u64(w, "none", ks->counts.none);
		jw_u64(w, "ambiguous", ks->counts.ambiguous);
		jw_u64(w, "split", ks->counts.split);
		jw_u64(w, "merged", ks->counts.merged);
		jw_u64(w, "unmapped", ks->unmapped);
		jw_u64(w, "window_max", ks->held_max);
		if (ks->file)
			jw_str(w, "extents_error", ks->extents_why);
	}
	jw_end(w);
}

/* kernel_points: per side present, its matching or why it has none; the
 * VM's host kernel as vm_host. */
static void json_kernel_points(struct jw *w, const struct report *rep)
{
	if (!rep->rd.kernel_recorded)
		return;
	jw_obj(w, "kernel_points");
	for (int s = 0; s < SIDES; s++)
		if (rep->rd.side[s].present)
			json_kernel_side(w, side_key[s], &rep->rd.kernel[s]);
	if (rep->rd.have_vm)
		json_kernel_side(w, "vm_host", &rep->rd.host_kernel);
	jw_end(w);
}

static int write_json(const struct report *rep, FILE *f)
{
	struct jw w = { .f = f };
	const struct iogap_clock_map *m = &rep->rd.pairing.map;

	jw_obj(&w, NULL);
	jw_int(&w, "iogap_report", 1);
	jw_str(&w, "run_dir", rep->dir);
	jw_int(&w, "have_vm", rep->rd.have_vm);
	jw_int(&w, "have_bare", rep->rd.have_bare);
	jw_str(&w, "accel", rep->accel);
	jw_u64(&w, "null_latency_ns", rep->null_latency_ns);
	jw_u64(&w, "inject_delay_ns", rep->inject_delay_ns);
	if (!rep->rd.filters)   /* only then: other runs' JSON stays as it was */
		jw_str(&w, "passthrough", rep->rd.manifest.passthrough);
	json_truth(&w, rep);
	json_kernel_points(&w, rep);
	if (rep->rd.have_vm) {
		const struct iogap_pair_counts *c = &rep->rd.pairing.counts;

		jw_obj(&w, "clock");
		jw_str(&w, "method", m->method);
		jw_int(&w, "offset_ns", m->offset_ns);
		jw_float(&w, "drift_ppb", m->drift_ppb);
		jw_int(&w, "bound_lo_ns", m->bound_lo_ns);
		jw_int(&w, "bound_hi_ns", m->bound_hi_ns);
		jw_int(&w, "bound_width_ns", m->bound_hi_ns - m->bound_lo_ns);
		jw_int(&w, "bound_consistent", m->bound_consistent);
		jw_u64(&w, "sync_uncertainty_ns", m->sync_uncertainty_ns);
		jw_float(&w, "stage_error_ns", rep->err_ns);
		jw_str(&w, "stage_error_source", rep->err_source);
		jw_end(&w);
		jw_obj(&w, "pairing");
		for (int d = 0; d < 2; d++) {
			jw_obj(&w, dir_key[d]);
			jw_u64(&w, "guest", c->guest[d]);
			jw_u64(&w, "paired_top", c->paired_top[d]);
			jw_u64(&w, "paired_bottom", c->paired_bottom[d]);
			jw_u64(&w, "exact", c->exact[d]);
			jw_u64(&w, "ambiguous", c->ambiguous[d]);
			jw_u64(&w, "unpaired", c->unpaired[d]);
			jw_u64(&w, "split", c->split[d]);
			jw_u64(&w, "merged", c->merged[d]);
			jw_end(&w);
		}
		jw_u64(&w, "order_checked", rep->rd.order_checked);
		jw_u64(&w, "order_violations", rep->rd.order_violations);
		jw_end(&w);
	}
	iogap_summary_json(&rep->summary, &w);
	jw_open(&w, "jobs", '[');
	for (size_t k = 0; k < rep->nu; k++) {
		const struct unit *u = &rep->u[k];

		jw_obj(&w, NULL);
		jw_str(&w, "name", u->name);
		jw_str(&w, "job_indices", u->jobs);
		json_load(&w, rep, k);
		for (int d = 0; d < 2; d++) {
			const struct gap *g = k < 256 ? &rep->gap[k][d] : NULL;
			char v[2048];

			if (!u->d[SIDE_VM][d].lat[K_LAT].n && !u->d[SIDE_BARE][d].lat[K_LAT].n)
				continue;
			jw_obj(&w, dir_key[d]);
			for (int s = 0; s < SIDES; s++)
				if (u->d[s][d].lat[K_LAT].n)
					json_side(&w, rep, u, s, d);
			if (total_of(rep, u, d)->n)
				json_stages(&w, rep, u, d);
			if (bare_stages_shown(rep) && u->bstage[d][rep->bare.n].n)
				json_bare_stages(&w, rep, u, d);
			if (g && g->ok)
				json_gap(&w, rep, g);
			verdict(rep, k, d, v, sizeof(v));
			jw_str(&w, "verdict", v);
			jw_end(&w);
		}
		jw_end(&w);
	}
	jw_close(&w, ']');
	jw_end(&w);
	fputc('\n', f);
	return ferror(f) ? -1 : 0;
}

/* ----------------------------------------------------------------- HTML */

#define VM_COLOR "#d62728"
#define BARE_COLOR "#1f77b4"

static double nice_step(double range)
{
	double e = pow(10, floor(log10(range > 0 ? range : 1))), r = range / e;

	return (r <= 2 ? 0.25 : r <= 5 ? 0.5 : 1.0) * e * 2;
}

/* CDF of VM total vs bare total from the histograms, x logarithmic (us). */
static void svg_cdf(FILE *f, const struct iogap_rstat *vm, const struct iogap_rstat *bare)
{
	const int W = 560, H = 260, L = 50, B = 30, T = 10, R = 10;
	const struct iogap_rstat *set[2] = { vm, bare };
	const char *col[2] = { VM_COLOR, BARE_COLOR }, *lab[2] = { "VM", "bare metal" };
	double lo = 1e300, hi = 0, llo, lhi;

	for (int i = 0; i < 2; i++) {
		if (!set[i] || !set[i]->n)
			continue;
		lo = fmin(lo, fmax((double)set[i]->min, 100.0));
		hi = fmax(hi, fmax((double)set[i]->max, 200.0));
	}
	if (hi <= 0)
		return;
	llo = floor(log10(lo / 1e3) * 2) / 2;
	lhi = ceil(log10(hi / 1e3) * 2) / 2;
	if (lhi <= llo)
		lhi = llo + 1;
	fprintf(f, "<svg class=\"chart cdf\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" "
		"role=\"img\"><title>latency CDF</title>\n", W, H, W, H);
	fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" class=\"plot\"/>\n", L, T,
		W - L - R, H - T - B);
	for (double e = ceil(llo); e <= lhi; e += 1) {
		double x = L + (e - llo) / (lhi - llo) * (W - L - R);

		fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" class=\"grid\"/>"
			"<text x=\"%.1f\" y=\"%d\" class=\"ax\" text-anchor=\"middle\">%g µs</text>\n",
			x, T, x, H - B, x, H - B + 14, pow(10, e));
	}
	for (int q = 0; q <= 4; q++) {
		double y = H - B - q / 4.0 * (H - T - B);

		fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" class=\"grid\"/>"
			"<text x=\"%d\" y=\"%.1f\" class=\"ax\" text-anchor=\"end\">%d%%</text>\n",
			L, y, W - R, y, L - 4, y + 4, q * 25);
	}
	for (int i = 0; i < 2; i++) {
		uint64_t cum = 0;
		bool first = true;

		if (!set[i] || !set[i]->n)
			continue;
		fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", col[i]);
		for (unsigned b = 0; b < IOGAP_PLAT_NR; b++) {
			double v, x, y;

			if (!set[i]->hist[b])
				continue;
			cum += set[i]->hist[b];
			v = fmax((double)iogap_plat_idx_to_val(b), 1.0) / 1e3;
			x = L + (fmin(fmax(log10(v), llo), lhi) - llo) / (lhi - llo) * (W - L - R);
			y = H - B - (double)cum / (double)set[i]->n * (H - T - B);
			if (first)
				fprintf(f, "%.1f,%d ", x, H - B);
			first = false;
			fprintf(f, "%.1f,%.1f ", x, y);
		}
		fprintf(f, "\"/>\n<text x=\"%d\" y=\"%d\" fill=\"%s\" class=\"lg\">%s</text>\n", L + 8,
			T + 16 + 16 * i, col[i], lab[i]);
	}
	fputs("</svg>\n", f);
}

/* Seconds of bucket k the unit was active on this side (edges are partial). */
static double sec_cover(const struct unit *u, int side, uint64_t t0, size_t k)
{
	double a = (double)t0 + (double)k * 1e9, b = a + 1e9;
	double lo = fmax(a, (double)u->t_first[side]), hi = fmin(b, (double)u->t_last[side]);

	return hi > lo ? (hi - lo) / 1e9 : 0;
}

/* a bucket's value: IOPS over the time covered, or p99 in us; NAN to skip
 * (less than a quarter of a second covered) */
static double sec_value(const struct unit *u, int side, const struct iogap_series *s, size_t k,
			int what)
{
	double cov = sec_cover(u, side, s->t0, k);
	const struct iogap_sec *sec = &s->s[k];

	if (cov < 0.25 || !sec->n)
		return NAN;
	return what ? (double)iogap_chist_pct(sec->h, sec->n, 99.0) / 1e3 : (double)sec->n / cov;
}

/* One time series chart: per-second values for VM and bare metal, each
 * from the start of its own run of this job. */
static void svg_time(FILE *f, const char *cls, const char *title, const struct unit *u, int d,
		     int what)
{
	const int W = 560, H = 200, L = 60, B = 30, T = 10, R = 10;
	const struct iogap_series *set[2] = { &u->d[SIDE_VM][d].sec, &u->d[SIDE_BARE][d].sec };
	const char *col[2] = { VM_COLOR, BARE_COLOR }, *lab[2] = { "VM", "bare metal" };
	size_t first[2] = { 0, 0 }, last[2] = { 0, 0 }, maxlen = 1;
	double ymax = 0, step, xstep;

	for (int i = 0; i < 2; i++) {
		const struct iogap_series *s = set[i];

		if (!s->nsec)
			continue;
		while (first[i] < s->nsec && !s->s[first[i]].n)
			first[i]++;
		last[i] = s->nsec;
		while (last[i] > first[i] && !s->s[last[i] - 1].n)
			last[i]--;
		if (last[i] - first[i] > maxlen)
			maxlen = last[i] - first[i];
		for (size_t k = first[i]; k < last[i]; k++) {
			double v = sec_value(u, i, s, k, what);

			if (!isnan(v))
				ymax = fmax(ymax, v);
		}
	}
	if (ymax <= 0)
		ymax = 1;
	step = nice_step(ymax);
	ymax = ceil(ymax / step) * step;
	xstep = maxlen <= 10 ? 1 : nice_step((double)maxlen);
	fprintf(f, "<svg class=\"chart %s\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" "
		"role=\"img\"><title>", cls, W, H, W, H);
	iogap_html_esc(f, title);
	fprintf(f, "</title>\n<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" class=\"plot\"/>\n",
		L, T, W - L - R, H - T - B);
	for (double y = 0; y <= ymax + step / 2; y += step) {
		double py = H - B - y / ymax * (H - T - B);

		fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" class=\"grid\"/>"
			"<text x=\"%d\" y=\"%.1f\" class=\"ax\" text-anchor=\"end\">%g</text>\n",
			L, py, W - R, py, L - 4, py + 4, y);
	}
	for (double x = 0; x <= (double)maxlen + 1e-9; x += xstep) {
		double px = L + x / (double)maxlen * (W - L - R);

		fprintf(f, "<text x=\"%.1f\" y=\"%d\" class=\"ax\" text-anchor=\"middle\">%g</text>\n",
			px, H - B + 13, x);
	}
	fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"ax\" text-anchor=\"middle\">%s, per second "
		"(s since the job started)</text>\n", (W + L) / 2, H - 3, what ? "p99 (µs)" : "IOPS");
	for (int i = 0; i < 2; i++) {
		const struct iogap_series *s = set[i];

		if (last[i] <= first[i])
			continue;
		fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", col[i]);
		for (size_t k = first[i]; k < last[i]; k++) {
			double v = sec_value(u, i, s, k, what);
			double x = L + ((double)(k - first[i]) + 0.5) / (double)maxlen * (W - L - R);

			if (!isnan(v))
				fprintf(f, "%.1f,%.1f ", x, H - B - v / ymax * (H - T - B));
		}
		fprintf(f, "\"/>\n<text x=\"%d\" y=\"%d\" fill=\"%s\" class=\"lg\">%s</text>\n", L + 8,
			T + 16 + 16 * i, col[i], lab[i]);
	}
	fputs("</svg>\n", f);
}

/* Stacked stage bars: one VM bar and one bare-metal bar per job/direction. */
#define LEGEND_X 10
#define LEGEND_ROW 18
#define LEGEND_ITEM 125   /* room for a swatch and "bare metal total" */

/* One legend entry at (*lx, *ly); the next one wraps to a new row when the
 * chart's width W is used up. */
static void legend_item(FILE *f, int W, const char *color, const char *name, int *lx, int *ly)
{
	if (*lx + LEGEND_ITEM > W) {
		*lx = LEGEND_X;
		*ly += LEGEND_ROW;
	}
	fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>"
		"<text x=\"%d\" y=\"%d\" class=\"lg\">%s</text>\n", *lx, *ly, color, *lx + 16,
		*ly + 11, name);
	*lx += LEGEND_ITEM;
}

/* The rows the stage chart's legend takes (legend_item's wrapping). */
static int legend_rows(const struct report *rep, int W)
{
	int per_row = (W - LEGEND_X) / LEGEND_ITEM, items = 1;

	for (size_t s = 0; s < rep->vm.n; s++)
		items += !(rep->vm.s[s].flags & IOGAP_STAGE_DETAIL);
	return (items + per_row - 1) / per_row;
}

static void svg_stages(FILE *f, const struct report *rep)
{
	const int W = 900, L = 170, R = 20, BAR = 18;
	int rows = 0, y, lx = LEGEND_X, ly = 6, top;
	double xmax = 0;

	for (size_t k = 0; k < rep->nu; k++)
		for (int d = 0; d < 2; d++) {
			const struct unit *u = &rep->u[k];

			if (total_of(rep, u, d)->n || u->d[SIDE_BARE][d].lat[K_LAT].n)
				rows++;
			xmax = fmax(xmax, fmax(mean_of(total_of(rep, u, d)),
					       mean_of(&u->d[SIDE_BARE][d].lat[K_LAT])));
			double s = 0;
			for (size_t st = 0; st < rep->vm.n; st++)
				if (!(rep->vm.s[st].flags & IOGAP_STAGE_DETAIL))
					s += fmax(mean_of(&u->stage[d][st]), 0);
			xmax = fmax(xmax, s);
		}
	if (xmax <= 0)
		xmax = 1;
	double step = nice_step(xmax / 1e3);
	double xm = ceil(xmax / 1e3 / step) * step;
	int H;

	top = 24 + LEGEND_ROW * (legend_rows(rep, W) - 1) + 6;
	H = top + 10 + rows * (2 * BAR + 16) + 30;

	fprintf(f, "<svg class=\"chart stages\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" "
		"role=\"img\"><title>mean time per stage</title>\n", W, H, W, H);
	/* the legend names every colour drawn, in rows that fit the width */
	for (size_t s = 0; s < rep->vm.n; s++)
		if (!(rep->vm.s[s].flags & IOGAP_STAGE_DETAIL))
			legend_item(f, W, rep->vm.s[s].color, rep->vm.s[s].key, &lx, &ly);
	legend_item(f, W, BARE_COLOR, "bare metal total", &lx, &ly);
	for (double v = 0; v <= xm + step / 2; v += step) {
		double x = L + v / xm * (W - L - R);

		fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" class=\"grid\"/>"
			"<text x=\"%.1f\" y=\"%d\" class=\"ax\" text-anchor=\"middle\">%g µs</text>\n",
			x, top, x, H - 24, x, H - 10, v);
	}
	y = top + 6;
	for (size_t k = 0; k < rep->nu; k++)
		for (int d = 0; d < 2; d++) {
			const struct unit *u = &rep->u[k];
			double x = L;

			if (!total_of(rep, u, d)->n && !u->d[SIDE_BARE][d].lat[K_LAT].n)
				continue;
			fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"lb\" text-anchor=\"end\">", L - 6,
				y + BAR + 4);
			iogap_html_esc(f, u->name);
			fprintf(f, " %s</text>\n", dir_key[d]);
			for (size_t s = 0; s < rep->vm.n && total_of(rep, u, d)->n; s++) {
				double w = fmax(mean_of(&u->stage[d][s]), 0) / 1e3 / xm * (W - L - R);

				if (rep->vm.s[s].flags & IOGAP_STAGE_DETAIL)
					continue;
				fprintf(f, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\">"
					"<title>%s: %.2f µs</title></rect>\n", x, y, w, BAR, rep->vm.s[s].color,
					rep->vm.s[s].key, mean_of(&u->stage[d][s]) / 1e3);
				x += w;
			}
			if (u->d[SIDE_BARE][d].lat[K_LAT].n) {
				double m = mean_of(&u->d[SIDE_BARE][d].lat[K_LAT]);

				fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\">"
					"<title>bare metal: %.2f µs</title></rect>\n", L, y + BAR + 2,
					m / 1e3 / xm * (W - L - R), BAR, BARE_COLOR, m / 1e3);
			}
			y += 2 * BAR + 16;
		}
	fputs("</svg>\n", f);
}

static void html_stage_table(FILE *f, const struct report *rep, const struct unit *u, int d)
{
	const struct iogap_rstat *st = u->stage[d], *total = total_of(rep, u, d);
	const struct iogap_rstat *rows[2 * IOGAP_TL_MAX_STAGES + 4];
	const char *names[2 * IOGAP_TL_MAX_STAGES + 4];
	char bare_names[IOGAP_TL_MAX_STAGES][64];
	double errs[2 * IOGAP_TL_MAX_STAGES + 4];
	bool shared[2 * IOGAP_TL_MAX_STAGES + 4] = { false };
	int n = 0;
	double tot = mean_of(total);

	if (total->n) {
		for (size_t s = 0; s < rep->vm.n; s++) {
			rows[n] = &st[s];
			names[n] = rep->vm.s[s].key;
			shared[n] = !(rep->vm.s[s].flags & IOGAP_STAGE_DETAIL);
			errs[n++] = stage_err(rep, &rep->vm.s[s]);
		}
		rows[n] = total, names[n] = "total (VM)", errs[n++] = 0;
	}
	if (u->d[SIDE_BARE][d].lat[K_LAT].n) {
		rows[n] = &u->d[SIDE_BARE][d].lat[K_LAT], names[n] = "bare total", errs[n++] = 0;
		rows[n] = &u->d[SIDE_BARE][d].lat[K_SLAT], names[n] = "bare slat", errs[n++] = 0;
		rows[n] = &u->d[SIDE_BARE][d].lat[K_CLAT], names[n] = "bare clat", errs[n++] = 0;
	}
	for (size_t s = 0; bare_stages_shown(rep) && s < rep->bare.n; s++) {
		snprintf(bare_names[s], sizeof(bare_names[s]), "bare %s", rep->bare.s[s].key);
		if (u->bstage[d][s].n && !(rep->bare.s[s].flags & IOGAP_STAGE_DETAIL))
			rows[n] = &u->bstage[d][s], names[n] = bare_names[s], errs[n++] = 0;
	}
	fputs("<table class=\"num\"><tr><th>stage (µs)</th><th>N</th><th>min</th><th>mean</th>"
	      "<th>p50</th><th>p90</th><th>p99</th><th>p99.9</th><th>max</th><th>clock ±</th>"
	      "<th>share</th></tr>\n", f);
	for (int i = 0; i < n; i++) {
		uint64_t p[NPCT];

		iogap_rstat_pcts(rows[i], pct_list, NPCT, p);
		fprintf(f, "<tr><td>%s</td><td>%" PRIu64 "</td><td>%.2f</td><td>%.2f</td><td>%.2f</td>"
			"<td>%.2f</td><td>%.2f</td><td>%.2f</td><td>%.2f</td><td>",
			names[i], rows[i]->n, (double)rows[i]->min / 1e3, mean_of(rows[i]) / 1e3,
			(double)p[0] / 1e3, (double)p[1] / 1e3, (double)p[2] / 1e3, (double)p[3] / 1e3,
			(double)rows[i]->max / 1e3);
		if (errs[i] > 0)
			fprintf(f, "±%.1f", errs[i] / 1e3);
		fputs("</td><td>", f);
		if (shared[i] && tot > 0)
			fprintf(f, "%.1f%%", 100.0 * mean_of(rows[i]) / tot);
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

static void html_gap_rows(FILE *f, const struct report *rep, const struct gap *g)
{
	for (size_t c = 0; c <= rep->rows.n; c++) {
		const struct iogap_gap_row *row = c < rep->rows.n ? &rep->rows.r[c] : NULL;
		char e[32] = "", share[64], label[128] = "other (unpaired, drift)";

		if (row)
			row_label(row, "−", label, sizeof(label));
		if (g->err[c] > 0)
			snprintf(e, sizeof(e), "±%.1f", g->err[c] / 1e3);
		if (row && row_vs_bare(row) && g->load_differs)
			snprintf(share, sizeof(share), "not comparable: the loads differ");
		else
			snprintf(share, sizeof(share), "%.1f%%",
				 g->gap ? 100.0 * g->contrib[c] / g->gap : 0);
		fprintf(f, "<tr><td>%s</td><td>%+.2f</td><td>%s</td><td>%s</td></tr>\n", label,
			g->contrib[c] / 1e3, e, share);
	}
}

static void html_load(FILE *f, const struct unit *u, const struct gap *g)
{
	fputs("<p class=\"note\">Load (both directions; in flight = IOPS × mean latency):", f);
	for (int s = 0; s < SIDES; s++) {
		struct load l = side_load(u, s);

		if (l.iops > 0)
			fprintf(f, " %s %.0f IOPS, %.1f in flight;", side_name[s], l.iops, l.inflight);
	}
	if (g && g->ok && g->load_differs)
		fprintf(f, " <b>loads differ by more than %.0f%%: the backend stage is not "
			"comparable</b>", 100 * LOAD_TOLERANCE);
	fputs("</p>\n", f);
}

static int write_html(const struct report *rep, FILE *f)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<title>iogap report</title>\n<style>\n"
	      "body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:1.5em auto;"
	      "max-width:1250px;padding:0 1em;color:#222;background:#fff;font-size:14px}\n"
	      "h1{font-size:1.5em}h2{font-size:1.2em;border-bottom:1px solid #ddd;padding-bottom:.2em;"
	      "margin-top:1.6em}h3{font-size:1.05em;margin:.8em 0 .3em}\n"
	      "table{border-collapse:collapse;margin:.4em 0}td,th{padding:2px 8px;border-bottom:1px "
	      "solid #eee}table.num td{text-align:right;font-variant-numeric:tabular-nums}"
	      "table.num td:first-child{text-align:left}th{background:#f5f5f5;text-align:right}"
	      "th:first-child{text-align:left}\n"
	      ".verdict{background:#fff8e1;border-left:4px solid #f0b400;padding:.5em .8em;margin:.5em 0}"
	      ".note{color:#666}.grid2{display:flex;flex-wrap:wrap;gap:12px}"
	      "svg{background:#fff;max-width:100%;height:auto}svg .plot{fill:#fafafa;stroke:#ccc}"
	      "svg .grid{stroke:#e3e3e3}svg .ax{font-size:11px;fill:#555}svg .lg{font-size:12px}"
	      "svg .lb{font-size:12px;fill:#333}\n</style></head><body>\n<h1>iogap report</h1>\n", f);
	fputs("<p class=\"note\">Run directory: <code>", f);
	iogap_html_esc(f, rep->dir);
	fprintf(f, "</code>. Sides: %s%s%s.", rep->rd.have_vm ? "VM" : "",
		rep->rd.have_vm && rep->rd.have_bare ? " and " : "",
		rep->rd.have_bare ? "bare metal" : "");
	if (rep->rd.have_vm) {
		fprintf(f, " VM accel: %s. Clock: %s, crossing stages ±%.1f µs (%s).",
			rep->accel[0] ? rep->accel : "unknown",
			rep->rd.pairing.map.method ? rep->rd.pairing.map.method : "?", rep->err_ns / 1e3,
			rep->err_source);
		if (!rep->rd.filters) {
			fputs(" Passthrough: ", f);
			iogap_html_esc(f, rep->rd.manifest.passthrough);
			fputs(" (no filter nodes: every VM stage is on the guest's clock).", f);
		}
		if (!strcmp(rep->accel, "tcg"))
			fputs(" <b>The VM ran under TCG</b>: guest-side timings include emulation.", f);
	}
	fputs("</p>\n", f);
	if (rep->rd.n_incomplete) {
		fputs("<p class=\"verdict\"><b>Incomplete data, verdicts provisional:</b>", f);
		for (size_t i = 0; i < rep->rd.n_incomplete; i++) {
			fputs(i ? "; " : " ", f);
			iogap_html_esc(f, rep->rd.incomplete[i]);
		}
		fputs("</p>\n", f);
	}
	iogap_summary_html(&rep->summary, f);
	fputs("<h3>Mean time per stage</h3>\n", f);
	svg_stages(f, rep);
	for (size_t k = 0; k < rep->nu; k++)
		for (int d = 0; d < 2; d++) {
			const struct unit *u = &rep->u[k];
			const struct dirstat *vm = &u->d[SIDE_VM][d], *bare = &u->d[SIDE_BARE][d];
			const struct gap *g = k < 256 ? &rep->gap[k][d] : NULL;
			char title[256], v[2048];

			if (!vm->lat[K_LAT].n && !bare->lat[K_LAT].n)
				continue;
			fputs("<h2>", f);
			iogap_html_esc(f, u->name);
			fprintf(f, " — %s</h2>\n", dir_key[d]);
			verdict(rep, k, d, v, sizeof(v));
			if (v[0]) {
				fputs("<div class=\"verdict\">", f);
				iogap_html_esc(f, v);
				fputs("</div>\n", f);
			}
			html_stage_table(f, rep, u, d);
			html_load(f, u, g);
			if (g && g->ok) {
				fprintf(f, "<h3>The gap: VM %.2f µs − %s %.2f µs = %+.2f µs per "
					"request</h3>\n<table class=\"num\"><tr><th>where</th><th>µs</th>"
					"<th>clock ±</th><th>%% of gap</th></tr>\n", g->vm_total / 1e3,
					side_name[rep->ref], g->bare_total / 1e3, g->gap / 1e3);
				html_gap_rows(f, rep, g);
				fputs("</table>\n", f);
			}
			fprintf(f, "<table class=\"num\"><tr><th>side</th><th>IOPS</th><th>BW KiB/s</th>"
				"<th>runtime s</th><th>slat avg</th><th>clat avg</th><th>lat avg</th>"
				"<th>lat p50</th><th>lat p99</th></tr>\n");
			for (int s = 0; s < SIDES; s++) {
				const struct dirstat *ds = &u->d[s][d];
				double rt = runtime_s(u, s);
				uint64_t p[NPCT];

				if (!ds->lat[K_LAT].n)
					continue;
				iogap_rstat_pcts(&ds->lat[K_LAT], pct_list, NPCT, p);
				fprintf(f, "<tr><td>%s</td><td>%.1f</td><td>%.0f</td><td>%.3f</td><td>%.2f</td>"
					"<td>%.2f</td><td>%.2f</td><td>%.2f</td><td>%.2f</td></tr>\n",
					side_name[s], rt > 0 ? (double)ds->lat[K_LAT].n / rt : 0,
					rt > 0 ? (double)ds->bytes / 1024 / rt : 0, rt,
					mean_of(&ds->lat[K_SLAT]) / 1e3, mean_of(&ds->lat[K_CLAT]) / 1e3,
					mean_of(&ds->lat[K_LAT]) / 1e3, (double)p[0] / 1e3, (double)p[2] / 1e3);
			}
			fputs("</table>\n<div class=\"grid2\">\n", f);
			svg_cdf(f, vm->lat[K_LAT].n ? &vm->lat[K_LAT] : NULL,
				bare->lat[K_LAT].n ? &bare->lat[K_LAT] : NULL);
			snprintf(title, sizeof(title), "%s %s IOPS over time", u->name, dir_key[d]);
			svg_time(f, "iops", title, u, d, 0);
			snprintf(title, sizeof(title), "%s %s p99 over time", u->name, dir_key[d]);
			svg_time(f, "p99", title, u, d, 1);
			fputs("</div>\n", f);
		}
	fprintf(f, "<p class=\"note\">Definitions: docs/reports.md. Stage rows cover the VM requests "
		"%s; percentiles are fio's histogram buckets.</p>\n</body></html>\n",
		rep->rd.filters ? "seen at both filter layers" :
		"with every point (passthrough: no filter nodes)");
	return ferror(f) ? -1 : 0;
}

/* --------------------------------------------------------------- command */

/* What the advice needs from the manifest (read with the run directory). */
static void read_manifest(struct report *rep)
{
	const struct iogap_manifest *m = &rep->rd.manifest;

	snprintf(rep->accel, sizeof(rep->accel), "%s", m->present ? m->accel : "");
	rep->inject_delay_ns = m->inject_delay_ns;
	rep->null_latency_ns = m->null_latency_ns;
	rep->backend = backend_of(m->target_spec);
}

static void lint_take(void *ctx, int level, const char *code, const char *msg, const char *why,
		      const char *todo)
{
	struct report *rep = ctx;
	char (*l)[LINT_LINE];

	(void)why;
	(void)todo;
	/* the page cache's findings: what makes a per-layer verdict void */
	if (level < 1 || (strcmp(code, "buffered-async") && strncmp(code, "cache-", 6)) ||
	    !(l = realloc(rep->lint, (rep->nlint + 1) * sizeof(*l))))
		return;
	rep->lint = l;
	snprintf(l[rep->nlint++], LINT_LINE, "%s %s: %s", level > 1 ? "ERROR" : "WARNING", code,
		 msg);
}

/* lint over the VM's job options (vm/probe.json): its page-cache warnings
 * for the first screen, and the units whose jobs ran buffered
 * (verdict_withheld). */
static void lint_vm_jobs(struct report *rep)
{
	char path[PATH_MAX + 64], what[PATH_MAX + 64], err[512];
	const char *w = what;
	struct fioi_result r;
	const struct fioi_result *rp = &r;

	snprintf(path, sizeof(path), "%s/vm/probe.json", rep->dir);
	snprintf(what, sizeof(what), "%s/vm", rep->dir);
	if (!rep->rd.have_vm || access(path, F_OK) || fioi_parse_file(path, &r, err, sizeof(err)))
		return;
	iogap_lint_results(&rp, &w, 1, rep->rd.manifest.vm_memory_mb << 20, lint_take, rep);
	for (size_t i = 0; i < r.nr; i++)
		for (size_t k = 0; k < rep->nu; k++)
			if (!strcmp(rep->u[k].name, r.jobs[i].name) && !iogap_lint_job_direct(&r, i))
				rep->u[k].buffered = true;
	fioi_free(&r);
}

/* Each side's SIDE/cpuload.txt, when the run recorded one (a malformed one
 * is an error: the saturation verdict would silently go missing). */
static int read_cpuload(struct report *rep, char *err, size_t errlen)
{
	for (int s = 0; s < SIDES; s++) {
		char path[PATH_MAX + 64];
		struct cpu_side *c = &rep->cpu[s];

		snprintf(path, sizeof(path), "%s/%s/cpuload.txt", rep->dir, iogap_side_dir[s]);
		if (access(path, F_OK))
			continue;
		if (iogap_cpuload_load(path, &c->cl, err, errlen))
			return -1;
		if (iogap_cpuload_summarize(&c->cl, &c->sum)) {
			iogap_cpuload_free(&c->cl);
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		c->have = true;
	}
	return 0;
}

static void units_free(struct report *rep)
{
	for (size_t k = 0; k < rep->nu; k++)
		for (int s = 0; s < SIDES; s++)
			for (int d = 0; d < 2; d++)
				iogap_series_free(&rep->u[k].d[s][d].sec);
	for (size_t k = 0; k < rep->nu; k++)
		for (int d = 0; d < 2; d++) {
			free(rep->u[k].stage[d]);
			free(rep->u[k].bstage[d]);
		}
	free(rep->u);
	free(rep->unit_of);
	rep->u = NULL;
	rep->unit_of = NULL;
	rep->nu = 0;
}

static void report_free(struct report *rep)
{
	for (int s = 0; s < SIDES; s++)
		if (rep->cpu[s].have) {
			iogap_cpu_summary_free(&rep->cpu[s].sum);
			iogap_cpuload_free(&rep->cpu[s].cl);
		}
	units_free(rep);
	free(rep->lint);
	iogap_rundir_free(&rep->rd);
}

/* A kernel trace that matched too few requests is left out and the stats
 * pass done again without it (the pairs file, written once, is complete). */
static int stats_without_unmatched_kernel(struct report *rep, char *err, size_t errlen)
{
	if (!iogap_rundir_drop_unmatched_kernel(&rep->rd))
		return 0;
	rep->rd.pairs_out = NULL;
	rep->records = 0;
	units_free(rep);
	return make_units(rep, err, errlen) || stats_pass(rep, err, errlen) ? -1 : 0;
}

static void usage(FILE *f)
{
	fputs("usage: iogap report RUN_DIR [--full] [--json FILE|-] [--html FILE] [--timing]\n"
	      "                    [--pairs FILE]\n"
	      "  first a summary: per job and direction IOPS, p50/p99, the VM-vs-bare-metal gap\n"
	      "  and its largest stages, then what needs action and the command that fixes it.\n"
	      "  --full        then per job and direction: the stage table (VM and bare metal),\n"
	      "                each stage's share, the gap by stage, IOPS/bandwidth, a verdict\n"
	      "  --json FILE   the same as JSON (docs/reports.md); '-' = stdout, no text\n"
	      "  --html FILE   one self-contained HTML page with charts\n"
	      "  --timing      print load/pairing and statistics throughput to stderr\n"
	      "  --pairs FILE  every VM request's pair as one line, written as it streams\n", f);
}

/* --pairs: the file written during the stats pass, closed; 0 or -1 */
static int close_pairs(FILE *f, const char *path, char *err, size_t errlen)
{
	if (!f)
		return 0;
	if (ferror(f) | fclose(f)) {
		snprintf(err, errlen, "%s: write error", path);
		return -1;
	}
	return 0;
}

int iogap_cmd_report(int argc, char **argv)
{
	const char *dir = NULL, *json = NULL, *html = NULL, *pairs = NULL;
	FILE *pairs_f = NULL;
	bool timing = false, full = false;
	struct report *rep;
	char err[4096];
	double t;
	int rc = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json") && i + 1 < argc)
			json = argv[++i];
		else if (!strcmp(argv[i], "--html") && i + 1 < argc)
			html = argv[++i];
		else if (!strcmp(argv[i], "--timing"))
			timing = true;
		else if (!strcmp(argv[i], "--full"))
			full = true;
		else if (!strcmp(argv[i], "--pairs") && i + 1 < argc)
			pairs = argv[++i];
		else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			return 0;
		} else if (argv[i][0] == '-' || dir) {
			usage(stderr);
			return 2;
		} else
			dir = argv[i];
	}
	if (!dir) {
		usage(stderr);
		return 2;
	}
	rep = calloc(1, sizeof(*rep));
	if (!rep)
		return 1;
	rep->dir = dir;
	rep->full = full;
	t = now_s();
	if (iogap_rundir_load(dir, &rep->rd, err, sizeof(err))) {
		fprintf(stderr, "iogap report: %s\n", err);
		free(rep);
		return 1;
	}
	rep->t_load = now_s() - t;
	read_manifest(rep);
	rep->ref = rep->rd.have_matched ? SIDE_MATCHED : SIDE_BARE;
	if (rep->rd.have_vm) {
		const struct iogap_clock_map *m = &rep->rd.pairing.map;

		if (m->bound_consistent && m->bound_hi_ns >= m->bound_lo_ns) {
			rep->err_ns = (double)(m->bound_hi_ns - m->bound_lo_ns) / 2.0;
			rep->err_source = m->bound_pairs ? "half the per-request bound width" :
					  "ping-pong uncertainty";
		} else {
			rep->err_ns = (double)m->sync_uncertainty_ns;
			rep->err_source = "ping-pong uncertainty (request bounds inconsistent)";
		}
	}
	if (read_cpuload(rep, err, sizeof(err)) || make_units(rep, err, sizeof(err))) {
		fprintf(stderr, "iogap report: %s\n", err);
		report_free(rep);
		free(rep);
		return 1;
	}
	if (pairs && !(pairs_f = fopen(pairs, "w")))
		snprintf(err, sizeof(err), "%s: %s", pairs, strerror(errno));
	else if (pairs)
		iogap_rundir_pairs_to(&rep->rd, pairs_f);
	t = now_s();
	if ((pairs && !pairs_f) || stats_pass(rep, err, sizeof(err)) ||
	    close_pairs(pairs_f, pairs, err, sizeof(err)) ||
	    stats_without_unmatched_kernel(rep, err, sizeof(err))) {
		fprintf(stderr, "iogap report: %s\n", err);
		report_free(rep);
		free(rep);
		return 1;
	}
	rep->t_stats = now_s() - t;
	lint_vm_jobs(rep);
	compute_gaps(rep);
	make_summary(rep, &rep->summary);
	if (timing)
		fprintf(stderr, "iogap report: load+pair %.3f s; stats pass %" PRIu64
			" records in %.3f s = %.2f M records/s\n", rep->t_load, rep->records,
			rep->t_stats, rep->t_stats > 0 ? (double)rep->records / rep->t_stats / 1e6 : 0);
	if (!json || strcmp(json, "-"))
		print_text(rep, stdout);
	if (json) {
		FILE *f = strcmp(json, "-") ? fopen(json, "w") : stdout;

		if (!f || write_json(rep, f) || (f != stdout && fclose(f))) {
			fprintf(stderr, "iogap report: %s: %s\n", json, strerror(errno));
			rc = 1;
		}
	}
	if (html) {
		FILE *f = fopen(html, "w");

		if (!f || write_html(rep, f) || fclose(f)) {
			fprintf(stderr, "iogap report: %s: %s\n", html, strerror(errno));
			rc = 1;
		}
	}
	/* printed, but over incomplete data: a distinct status for scripts */
	if (!rc && rep->rd.n_incomplete)
		rc = 3;
	report_free(rep);
	free(rep);
	return rc;
}
