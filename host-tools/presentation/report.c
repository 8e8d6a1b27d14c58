/* SPDX-License-Identifier: MIT */
/*
 * iogap report RUN_DIR [--json FILE|-] [--html FILE] [--timing]
 *
 * btt-style tables of where a request's time goes, VM vs bare metal
 * (DESIGN.md's layer model; every number is defined in docs/reports.md).
 */
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
#include "json_parse.h"
#include "json_writer.h"
#include "report.h"
#include "presentation.h"
#include "rundir.h"
#include "trace_file.h"

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
	if (k >= ser->nsec) {
		if (k >= ser->cap) {
			size_t cap = ser->cap ? ser->cap : 16;
			struct iogap_sec *n;

			while (cap <= k)
				cap *= 2;
			n = realloc(ser->s, cap * sizeof(*n));
			if (!n)
				return -1;
			memset(n + ser->cap, 0, (cap - ser->cap) * sizeof(*n));
			ser->s = n;
			ser->cap = cap;
		}
		ser->nsec = k + 1;
	}
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

enum { ST_GSUB, ST_G2Q, ST_QFMT, ST_B, ST_QRET, ST_Q2G, ST_TOTAL, ST_NR };
/* SIDE_MATCHED: bare-matched/, bare metal at the VM's IOPS (--match-load) */
enum { SIDE_VM, SIDE_BARE, SIDE_MATCHED, SIDES };
enum { K_SLAT, K_CLAT, K_LAT, K_NR };
/* contributions to the gap */
enum { C_G2Q, C_QFMT, C_BACKEND, C_QRET, C_Q2G, C_OTHER, C_NR };

static const char *const stage_key[ST_NR] = { "G.submit", "G->Q", "Q.fmt", "B", "Q.ret",
					      "Q->G", "total" };
static const char *const side_key[SIDES] = { "vm", "bare", "bare_matched" };
static const char *const side_name[SIDES] = { "VM", "bare metal", "bare metal at the VM's IOPS" };
static const char *const dir_key[2] = { "read", "write" };
static const char *const kind_key[K_NR] = { "slat", "clat", "lat" };
static const char *const contrib_key[C_NR] = { "G->Q", "Q.fmt", "backend", "Q.ret", "Q->G",
					       "other" };
/* the stage each contribution comes from (C_BACKEND: B minus bare) */
static const int contrib_stage[C_NR] = { ST_G2Q, ST_QFMT, ST_B, ST_QRET, ST_Q2G, -1 };

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
	struct iogap_rstat stage[2][ST_NR];   /* VM requests seen at top and bottom */
	uint64_t not_paired[2];
	uint64_t cpu_sat[SIDES];  /* requests submitted in a CPU-saturated second */
};

/* What the backend is, for the advice (manifest's target.spec). */
enum backend { BK_UNKNOWN, BK_FILE, BK_RBD, BK_NULL };

/* One side's host CPU record (SIDE/cpuload.txt) and what was saturated. */
struct cpu_side {
	bool have;
	struct iogap_cpuload cl;
	struct iogap_cpu_summary sum;
};

struct gap {
	bool ok;
	bool load_differs;        /* loads differ by > 10%: backend not compared */
	double vm_total, bare_total, gap;
	double contrib[C_NR], err[C_NR];
	int largest;
};

struct report {
	const char *dir;
	struct iogap_rundir rd;
	struct jp_value manifest;
	bool have_manifest;
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
	uint64_t records;         /* records the stats pass went through */
	double t_load, t_stats;
	uint64_t t0[SIDES];
	struct gap gap[256][2];   /* per unit (first 256) and direction */
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The info text of a probe trace (job names); malloc'd or NULL. */
static char *trace_info(const char *path)
{
	char err[256];
	struct iogap_trace_reader *r = iogap_trace_reader_open(path, err, sizeof(err));
	char *s = NULL;

	if (r) {
		const char *i = iogap_trace_reader_info(r);

		s = strdup(i ? i : "");
		iogap_trace_reader_close(r);
	}
	return s;
}

/* job.N=name=X rw=... numjobs=K ... */
static int info_job(const char *info, size_t idx, char *name, size_t nlen, unsigned *numjobs)
{
	char key[32];
	const char *p;
	size_t kl = (size_t)snprintf(key, sizeof(key), "job.%zu=name=", idx);

	for (p = info; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		if (!strncmp(p, key, kl)) {
			const char *v = p + kl, *e = strstr(v, " rw=");
			const char *nl = strchr(v, '\n'), *nj;

			if (!e || (nl && e > nl))
				e = nl ? nl : v + strlen(v);
			snprintf(name, nlen, "%.*s", (int)(e - v), v);
			nj = strstr(v, " numjobs=");
			*numjobs = nj && (!nl || nj < nl) ? (unsigned)atoi(nj + 9) : 1;
			if (!*numjobs)
				*numjobs = 1;
			return 0;
		}
	}
	return -1;
}

/*
 * Units: the job indices the probe reported together.  Its JSON has one
 * entry per thread (numjobs clones each) or, with group_reporting, one per
 * reporting group, named after the first job in it.  Walk the jobs in
 * order: a job whose name matches the next entry starts a unit (and
 * consumes its clones' entries); any other joins the current unit.
 */
static int make_units(struct report *rep, char *err, size_t errlen)
{
	char path[PATH_MAX + 64], *info = NULL;
	struct jp_value pj;
	struct jp_value *jobs = NULL;
	size_t entry = 0, maxjob = 0;
	bool have_pj = false;
	long cur = -1;

	for (int s = 0; s < SIDES; s++)
		if (rep->rd.side[s].njobs > maxjob)
			maxjob = rep->rd.side[s].njobs;
	rep->njob = maxjob ? maxjob : 1;
	rep->unit_of = calloc(rep->njob, sizeof(*rep->unit_of));
	rep->u = calloc(rep->njob, sizeof(*rep->u));
	if (!rep->unit_of || !rep->u) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (int s = 0; s < 2 && !info; s++) {
		snprintf(path, sizeof(path), "%s/%s/probe.trace", rep->dir, s ? "bare" : "vm");
		info = trace_info(path);
		if (info) {
			char e2[4096];

			snprintf(path, sizeof(path), "%s/%s/probe.json", rep->dir, s ? "bare" : "vm");
			if (!iogap_json_load(path, &pj, e2, sizeof(e2))) {
				have_pj = true;
				jobs = jp_get(&pj, "jobs");
				if (jobs && jobs->type != JP_ARRAY)
					jobs = NULL;
			}
		}
	}
	for (size_t j = 0; j < rep->njob; j++) {
		char name[128];
		unsigned numjobs = 1;
		bool start = cur < 0 || !jobs;

		if (!info || info_job(info, j, name, sizeof(name), &numjobs))
			snprintf(name, sizeof(name), "job%zu", j);
		if (jobs && entry < jobs->n) {
			const char *en = jp_str(jp_get(&jobs->items[entry], "jobname"));

			if (en && !strcmp(en, name)) {
				start = true;
				entry++;
				/* clones reported one by one */
				for (unsigned c = 1; c < numjobs && entry < jobs->n; c++) {
					en = jp_str(jp_get(&jobs->items[entry], "jobname"));
					if (!en || strcmp(en, name))
						break;
					entry++;
				}
			}
		}
		if (start) {
			cur = (long)rep->nu++;
			snprintf(rep->u[cur].name, sizeof(rep->u[cur].name), "%s", name);
			snprintf(rep->u[cur].jobs, sizeof(rep->u[cur].jobs), "%zu", j);
		} else {
			size_t l = strlen(rep->u[cur].jobs);

			snprintf(rep->u[cur].jobs + l, sizeof(rep->u[cur].jobs) - l, ",%zu", j);
		}
		rep->unit_of[j] = (uint16_t)cur;
	}
	free(info);
	if (have_pj)
		jp_free(&pj);
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

/* One VM request into its unit's statistics; non-zero: out of memory. */
static int stats_pair(void *ctx, const struct iogap_pair *p)
{
	struct report *rep = ctx;
	const struct iogap_trace_record *g = p->guest;
	struct unit *u;
	struct iogap_rstat *st;
	int d = g->op;

	if (g->flags & IOGAP_REC_RAMP || d > 1)
		return 0;
	u = &rep->u[rep->unit_of[g->job]];
	span(u, SIDE_VM, p->g_start, p->g_complete);
	count_cpu_sat(rep, u, SIDE_VM, p->g_start);
	if (add_rec(&u->d[SIDE_VM][d], p->g_complete, g))
		return 1;
	if (!p->top || !p->bottom || p->ambiguous || p->invalid) {
		u->not_paired[d]++;
		return 0;
	}
	st = u->stage[d];
	iogap_rstat_add(&st[ST_GSUB], (int64_t)(g->issue_ns - g->start_ns));
	iogap_rstat_add(&st[ST_G2Q], (int64_t)(p->top_entry - p->g_start));
	iogap_rstat_add(&st[ST_QFMT], (int64_t)(p->bottom_entry - p->top_entry));
	iogap_rstat_add(&st[ST_B], (int64_t)(p->bottom_exit - p->bottom_entry));
	iogap_rstat_add(&st[ST_QRET], (int64_t)(p->top_exit - p->bottom_exit));
	iogap_rstat_add(&st[ST_Q2G], (int64_t)(p->g_complete - p->top_exit));
	iogap_rstat_add(&st[ST_TOTAL], (int64_t)(g->complete_ns - g->start_ns));
	return 0;
}

/* One bare-metal record (host clock) of side bare_side. */
struct bare_visit {
	struct report *rep;
	int side;
};

static int stats_bare(void *ctx, const struct iogap_trace_record *r)
{
	struct bare_visit *v = ctx;
	struct unit *u;

	if (r->flags & IOGAP_REC_RAMP || r->op > 1)
		return 0;
	u = &v->rep->u[v->rep->unit_of[r->job]];
	span(u, v->side, r->start_ns, r->complete_ns);
	count_cpu_sat(v->rep, u, v->side, r->start_ns);
	return add_rec(&u->d[v->side][r->op], r->complete_ns, r) ? 1 : 0;
}

/* The stats pass: every request once (rundir's visits), into histograms
 * and per-second bins whose origin is each side's first measured request. */
static int stats_pass(struct report *rep, char *err, size_t errlen)
{
	int rc = 0;

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

static void compute_gaps(struct report *rep)
{
	for (size_t k = 0; k < rep->nu && k < 256; k++) {
		for (int d = 0; d < 2; d++) {
			struct unit *u = &rep->u[k];
			struct gap *g = &rep->gap[k][d];
			const struct iogap_rstat *st = u->stage[d];
			double sum = 0;

			memset(g, 0, sizeof(*g));
			g->largest = -1;
			if (!st[ST_TOTAL].n || !u->d[rep->ref][d].lat[K_LAT].n)
				continue;
			g->ok = true;
			g->load_differs = loads_differ(side_load(u, SIDE_VM), side_load(u, rep->ref));
			g->vm_total = mean_of(&u->d[SIDE_VM][d].lat[K_LAT]);
			g->bare_total = mean_of(&u->d[rep->ref][d].lat[K_LAT]);
			g->gap = g->vm_total - g->bare_total;
			for (int c = 0; c < C_OTHER; c++) {
				g->contrib[c] = mean_of(&st[contrib_stage[c]]);
				if (c == C_BACKEND)
					g->contrib[c] -= g->bare_total;
				g->err[c] = (c == C_G2Q || c == C_Q2G) ? rep->err_ns : 0;
				sum += g->contrib[c];
			}
			g->contrib[C_OTHER] = g->gap - sum;
			/* at different loads the backend differs by queueing: not a
			 * term to name (docs/reports.md, "Load") */
			for (int c = 0; c < C_OTHER; c++)
				if (!(c == C_BACKEND && g->load_differs) &&
				    (g->largest < 0 || g->contrib[c] > g->contrib[g->largest]))
					g->largest = c;
		}
	}
}

/* ------------------------------------------------------------- verdict */

static const char *const where_text[ST_NR] = {
	[ST_GSUB] = "in the guest's submit call (guest syscall, guest block layer)",
	[ST_G2Q] = "between the guest's submit and QEMU's device (guest block layer, virtio "
		   "kick, VM exit)",
	[ST_QFMT] = "in QEMU between the device and the backend (format layer, throttling, "
		    "coroutines)",
	[ST_B] = "in the backend",
	[ST_QRET] = "returning through QEMU's block layer (format layer completion)",
	[ST_Q2G] = "between QEMU's completion and the guest reaping it (interrupt injection, "
		   "guest completion path)",
	[ST_TOTAL] = "",
};

static const char *const hint_text[ST_NR] = {
	[ST_GSUB] = "consider io_uring or batching submissions, check the guest's I/O scheduler",
	[ST_G2Q] = "consider iothreads / polling / vhost",
	[ST_QFMT] = "check the image format (raw vs qcow2, L2 cache, preallocation) and "
		    "throttle groups",
	[ST_B] = "check the backend: cache mode, aio= (native, io_uring, threads), the host's "
		 "I/O stack",
	[ST_QRET] = "check the format layer (qcow2 metadata updates) and coroutine scheduling",
	[ST_Q2G] = "consider iothreads, interrupt coalescing / MSI-X vectors, guest polling",
	[ST_TOTAL] = "",
};

/* What to look at in the backend, by its kind (docs/reports.md). */
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
		return hint_text[ST_B];
	}
}

static const char *stage_hint(const struct report *rep, int st)
{
	return st == ST_B ? backend_hint(rep->backend) : hint_text[st];
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
static void sure_text(const struct report *rep, char *buf, size_t n, double contrib, double err)
{
	bool partial = rep->rd.n_incomplete > 0;

	if (err <= 0)
		snprintf(buf, n, "measured on the host clock alone: no clock error bar%s",
			 partial ? "; over incomplete data" : "");
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

/* At different loads: say so, and name the largest stage only the VM has. */
static void verdict_load(const struct report *rep, const struct unit *u, int d,
			 const struct gap *g, char *out, size_t n, size_t *l)
{
	struct load vm = side_load(u, SIDE_VM), bare = side_load(u, rep->ref);
	int c = g->largest, s = contrib_stage[c];
	char sure[160];

	sure_text(rep, sure, sizeof(sure), g->contrib[c], g->err[c]);
	cat(out, n, l, "%s %s: not at equal load — the VM ran %.0f IOPS (%.1f in flight), %s %.0f "
	    "IOPS (%.1f in flight), %.1fx apart: the backend stage differs by queueing, not by "
	    "virtualization, so B is not compared with bare metal (run `iogap run --match-load`). "
	    "Of the stages only the VM has, the largest is %s, %.1f us (%.0f%% of the VM's %.1f us "
	    "per request), spent %s (%s): %s.", u->name, dir_key[d], vm.iops, vm.inflight,
	    side_name[rep->ref], bare.iops, bare.inflight,
	    fmax(vm.iops, bare.iops) / fmin(vm.iops, bare.iops), stage_key[s], g->contrib[c] / 1e3,
	    100.0 * g->contrib[c] / g->vm_total, g->vm_total / 1e3, where_text[s], sure,
	    stage_hint(rep, s));
}

static void verdict_gap(const struct report *rep, const struct unit *u, int d,
			const struct gap *g, char *out, size_t n, size_t *l)
{
	const struct iogap_rstat *st = u->stage[d];
	int c = g->largest, s = contrib_stage[c];
	double share = g->gap > 0 ? 100.0 * g->contrib[c] / g->gap : 0;
	char sure[160];

	if (g->gap <= 0) {
		cat(out, n, l, "%s %s: the VM is not slower than bare metal (%.1f vs %.1f us per "
		    "request).", u->name, dir_key[d], g->vm_total / 1e3, g->bare_total / 1e3);
		return;
	}
	sure_text(rep, sure, sizeof(sure), g->contrib[c], g->err[c]);
	if (c == C_BACKEND)
		cat(out, n, l, "%s %s: %.0f%% of the %+.1f us per request (VM %.1f us vs bare metal "
		    "%.1f us) is the backend itself being slower in the VM (B %.1f us vs %.1f us on bare "
		    "metal; %s): %s.", u->name, dir_key[d], share, g->gap / 1e3, g->vm_total / 1e3,
		    g->bare_total / 1e3, mean_of(&st[ST_B]) / 1e3, g->bare_total / 1e3, sure,
		    backend_hint(rep->backend));
	else
		cat(out, n, l, "%s %s: %.0f%% of the %+.1f us per request (VM %.1f us vs bare metal "
		    "%.1f us) is spent %s (%.1f us; %s): %s.", u->name, dir_key[d], share,
		    g->gap / 1e3, g->vm_total / 1e3, g->bare_total / 1e3, where_text[s],
		    g->contrib[c] / 1e3, sure, hint_text[s]);
	if (c == C_G2Q && mean_of(&st[ST_GSUB]) > 0.5 * g->contrib[c])
		cat(out, n, l, " The guest's own submit call (G.submit, %.1f us) is most of it: %s.",
		    mean_of(&st[ST_GSUB]) / 1e3, hint_text[ST_GSUB]);
}

static void verdict_vm_only(const struct report *rep, const struct unit *u, int d, char *out,
			    size_t n, size_t *l)
{
	const struct iogap_rstat *st = u->stage[d];
	int best = ST_G2Q;
	double tot = mean_of(&st[ST_TOTAL]);
	char sure[160];

	for (int s = ST_G2Q; s <= ST_Q2G; s++)
		if (mean_of(&st[s]) > mean_of(&st[best]))
			best = s;
	sure_text(rep, sure, sizeof(sure), mean_of(&st[best]),
		  (best == ST_G2Q || best == ST_Q2G) ? rep->err_ns : 0);
	cat(out, n, l, "%s %s: no bare-metal run to compare with; the largest stage in the VM is "
	    "%s, %.0f%% of the %.1f us per request, spent %s (%s): %s.", u->name, dir_key[d],
	    stage_key[best], tot > 0 ? 100.0 * mean_of(&st[best]) / tot : 0, tot / 1e3,
	    where_text[best], sure, stage_hint(rep, best));
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

/* The verdict for one job and direction, in words; "" if nothing to say. */
static void verdict(const struct report *rep, size_t k, int d, char *out, size_t n)
{
	const struct unit *u = &rep->u[k];
	const struct gap *g = k < 256 ? &rep->gap[k][d] : NULL;
	size_t l = 0;

	out[0] = 0;
	if (!(g && g->ok) && !u->stage[d][ST_TOTAL].n)
		return;
	if (rep->rd.n_incomplete)
		cat(out, n, &l, "PROVISIONAL, over incomplete data (see the first line): ");
	if (g && g->ok && g->load_differs)
		verdict_load(rep, u, d, g, out, n, &l);
	else if (g && g->ok)
		verdict_gap(rep, u, d, g, out, n, &l);
	else
		verdict_vm_only(rep, u, d, out, n, &l);
	verdict_cpu(rep, u, out, n, &l);
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

static void print_row(FILE *f, const char *label, const struct iogap_rstat *s, double err)
{
	uint64_t p[NPCT];
	char b[8][32], e[32] = "";

	if (!s->n) {
		fprintf(f, "  %-12s %9s\n", label, "0");
		return;
	}
	if (s->min == 0 && s->max == 0 && (strstr(label, "submit") || strstr(label, "slat"))) {
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

static void print_unit_dir(const struct report *rep, FILE *f, size_t k, int d)
{
	const struct unit *u = &rep->u[k];
	const struct iogap_rstat *st = u->stage[d];
	const struct dirstat *vm = &u->d[SIDE_VM][d], *bare = &u->d[SIDE_BARE][d];
	const struct gap *g = k < 256 ? &rep->gap[k][d] : NULL;
	char v[2048];

	if (!vm->lat[K_LAT].n && !bare->lat[K_LAT].n)
		return;
	fprintf(f, "\n== %s (job %s), %s ==\n", u->name, u->jobs, dir_key[d]);
	if (vm->lat[K_LAT].n)
		fprintf(f, "VM: %" PRIu64 " requests, %" PRIu64 " seen at the top and bottom filter "
			"(%.1f%%)%s\n", vm->lat[K_LAT].n, st[ST_TOTAL].n,
			100.0 * (double)st[ST_TOTAL].n / (double)vm->lat[K_LAT].n,
			u->not_paired[d] ? "; the others are left out of the stage rows" : "");
	fprintf(f, "  %-12s %9s %9s %9s %9s %9s %9s %9s %9s  %s\n", "stage (us)", "N", "min",
		"mean", "p50", "p90", "p99", "p99.9", "max", "clock");
	if (st[ST_TOTAL].n)
		for (int s = 0; s < ST_NR; s++)
			print_row(f, s == ST_TOTAL ? "total (VM)" : stage_key[s], &st[s],
				  (s == ST_G2Q || s == ST_Q2G) ? rep->err_ns : 0);
	if (bare->lat[K_LAT].n) {
		print_row(f, "bare total", &bare->lat[K_LAT], 0);
		print_row(f, "bare slat", &bare->lat[K_SLAT], 0);
		print_row(f, "bare clat", &bare->lat[K_CLAT], 0);
	}
	if (st[ST_TOTAL].n) {
		double tot = mean_of(&st[ST_TOTAL]), sum = 0;

		fprintf(f, "share of the VM total (btt style):\n");
		for (int s = ST_G2Q; s <= ST_Q2G; s++) {
			double m = mean_of(&st[s]);

			sum += m;
			fprintf(f, "  %-12s %6.1f%%  %10.2f us%s\n", stage_key[s], 100.0 * m / tot, m / 1e3,
				s == ST_G2Q ? "   (G.submit lies inside it)" : "");
		}
		fprintf(f, "  %-12s %6.1f%%  %10.2f us   (total %.2f us: stages sum to %+.3f%% of it)\n",
			"sum", 100.0 * sum / tot, sum / 1e3, tot / 1e3, 100.0 * (sum - tot) / tot);
	}
	print_load(f, u, g);
	if (g && g->ok) {
		fprintf(f, "the gap: VM %.2f us - %s %.2f us = %+.2f us per request\n",
			g->vm_total / 1e3, side_name[rep->ref], g->bare_total / 1e3, g->gap / 1e3);
		for (int c = 0; c < C_NR; c++) {
			char e[32] = "";

			if (g->err[c] > 0)
				snprintf(e, sizeof(e), "+-%.1f", g->err[c] / 1e3);
			if (c == C_BACKEND && g->load_differs) {
				fprintf(f, "  %-22s %+10.2f us          not comparable: the loads differ\n",
					"backend (B - bare)", g->contrib[c] / 1e3);
				continue;
			}
			fprintf(f, "  %-22s %+10.2f us %-8s %6.1f%%\n",
				c == C_BACKEND ? "backend (B - bare)" :
				c == C_OTHER ? "other (unpaired, drift)" : contrib_key[c],
				g->contrib[c] / 1e3, e, g->gap ? 100.0 * g->contrib[c] / g->gap : 0);
		}
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

static void print_text(const struct report *rep, FILE *f)
{
	const struct iogap_clock_map *m = &rep->rd.pairing.map;

	if (rep->rd.n_incomplete) {
		fprintf(f, "iogap report: %s: INCOMPLETE DATA, verdicts provisional:", rep->dir);
		for (size_t i = 0; i < rep->rd.n_incomplete; i++)
			fprintf(f, "%s %s", i ? ";" : "", rep->rd.incomplete[i]);
		fputc('\n', f);
	} else {
		fprintf(f, "iogap report: %s\n", rep->dir);
	}
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
		fprintf(f, "clock: %s, bound width %.1f us (%s), crossing stages +-%.1f us (%s)\n",
			m->method ? m->method : "?", (double)(m->bound_hi_ns - m->bound_lo_ns) / 1e3,
			m->bound_consistent ? "consistent" : "INCONSISTENT: ping-pong estimate kept",
			rep->err_ns / 1e3, rep->err_source);
		if (rep->null_latency_ns || rep->inject_delay_ns)
			fprintf(f, "known delays: backend null-co latency-ns=%" PRIu64
				", injected top->bottom delay-ns=%" PRIu64 "\n",
				rep->null_latency_ns, rep->inject_delay_ns);
	}
	for (size_t k = 0; k < rep->nu; k++)
		for (int d = 0; d < 2; d++)
			print_unit_dir(rep, f, k, d);
	print_throughput(rep, f);
	fprintf(f, "\nverdict:\n");
	if (rep->rd.have_vm && !strcmp(rep->accel, "tcg"))
		fprintf(f, "  The VM ran under TCG: the guest-side stages (G.submit, G->Q, Q->G) include "
			"instruction emulation; expect them much smaller under KVM.\n");
	for (size_t k = 0; k < rep->nu; k++)
		for (int d = 0; d < 2; d++) {
			char v[2048];

			verdict(rep, k, d, v, sizeof(v));
			if (v[0])
				fprintf(f, "  %s\n", v);
		}
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
	jw_str(w, "advice", backend_hint(rep->backend));
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
	json_truth(&w, rep);
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
	jw_open(&w, "jobs", '[');
	for (size_t k = 0; k < rep->nu; k++) {
		const struct unit *u = &rep->u[k];

		jw_obj(&w, NULL);
		jw_str(&w, "name", u->name);
		jw_str(&w, "job_indices", u->jobs);
		json_load(&w, rep, k);
		for (int d = 0; d < 2; d++) {
			const struct iogap_rstat *st = u->stage[d];
			const struct gap *g = k < 256 ? &rep->gap[k][d] : NULL;
			char v[2048];

			if (!u->d[SIDE_VM][d].lat[K_LAT].n && !u->d[SIDE_BARE][d].lat[K_LAT].n)
				continue;
			jw_obj(&w, dir_key[d]);
			for (int s = 0; s < SIDES; s++)
				if (u->d[s][d].lat[K_LAT].n)
					json_side(&w, rep, u, s, d);
			if (st[ST_TOTAL].n) {
				double tot = mean_of(&st[ST_TOTAL]), sum = 0;

				jw_obj(&w, "stages");
				jw_u64(&w, "not_paired", u->not_paired[d]);
				for (int s = 0; s < ST_NR; s++)
					json_rstat(&w, stage_key[s], &st[s],
						   (s == ST_G2Q || s == ST_Q2G) ? rep->err_ns : 0);
				jw_end(&w);
				jw_obj(&w, "share_pct");
				for (int s = ST_G2Q; s <= ST_Q2G; s++) {
					sum += mean_of(&st[s]);
					jw_float(&w, stage_key[s], 100.0 * mean_of(&st[s]) / tot);
				}
				jw_float(&w, "sum", 100.0 * sum / tot);
				jw_end(&w);
				jw_float(&w, "stage_sum_ns", sum);
				jw_float(&w, "stage_sum_error_pct", 100.0 * (sum - tot) / tot);
			}
			if (g && g->ok) {
				jw_obj(&w, "gap");
				jw_float(&w, "vm_total_mean_ns", g->vm_total);
				jw_float(&w, "bare_total_mean_ns", g->bare_total);
				jw_float(&w, "gap_ns", g->gap);
				jw_obj(&w, "contrib_ns");
				for (int c = 0; c < C_NR; c++)
					jw_float(&w, contrib_key[c], g->contrib[c]);
				jw_end(&w);
				jw_obj(&w, "error_ns");
				for (int c = 0; c < C_NR; c++)
					jw_float(&w, contrib_key[c], g->err[c]);
				jw_end(&w);
				jw_str(&w, "largest", contrib_key[g->largest]);
				jw_end(&w);
			}
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

static void html_esc(FILE *f, const char *s)
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

static const char *const stage_color[ST_NR] = { "#999", "#4e79a7", "#f28e2b", "#59a14f",
						 "#edc948", "#e15759", "#333" };
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
	html_esc(f, title);
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
static void svg_stages(FILE *f, const struct report *rep)
{
	const int W = 900, L = 170, R = 20, BAR = 18;
	int rows = 0, y;
	double xmax = 0;

	for (size_t k = 0; k < rep->nu; k++)
		for (int d = 0; d < 2; d++) {
			const struct unit *u = &rep->u[k];

			if (u->stage[d][ST_TOTAL].n || u->d[SIDE_BARE][d].lat[K_LAT].n)
				rows++;
			xmax = fmax(xmax, fmax(mean_of(&u->stage[d][ST_TOTAL]),
					       mean_of(&u->d[SIDE_BARE][d].lat[K_LAT])));
			double s = 0;
			for (int st = ST_G2Q; st <= ST_Q2G; st++)
				s += fmax(mean_of(&u->stage[d][st]), 0);
			xmax = fmax(xmax, s);
		}
	if (xmax <= 0)
		xmax = 1;
	double step = nice_step(xmax / 1e3);
	double xm = ceil(xmax / 1e3 / step) * step;
	int H = 40 + rows * (2 * BAR + 16) + 30;

	fprintf(f, "<svg class=\"chart stages\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" "
		"role=\"img\"><title>mean time per stage</title>\n", W, H, W, H);
	/* legend */
	for (int s = ST_G2Q, x = L; s <= ST_Q2G; s++, x += 120)
		fprintf(f, "<rect x=\"%d\" y=\"6\" width=\"12\" height=\"12\" fill=\"%s\"/>"
			"<text x=\"%d\" y=\"17\" class=\"lg\">%s</text>\n", x, stage_color[s], x + 16,
			stage_key[s]);
	fprintf(f, "<rect x=\"%d\" y=\"6\" width=\"12\" height=\"12\" fill=\"%s\"/>"
		"<text x=\"%d\" y=\"17\" class=\"lg\">bare metal total</text>\n", L + 600, BARE_COLOR,
		L + 616);
	for (double v = 0; v <= xm + step / 2; v += step) {
		double x = L + v / xm * (W - L - R);

		fprintf(f, "<line x1=\"%.1f\" y1=\"30\" x2=\"%.1f\" y2=\"%d\" class=\"grid\"/>"
			"<text x=\"%.1f\" y=\"%d\" class=\"ax\" text-anchor=\"middle\">%g µs</text>\n",
			x, x, H - 24, x, H - 10, v);
	}
	y = 36;
	for (size_t k = 0; k < rep->nu; k++)
		for (int d = 0; d < 2; d++) {
			const struct unit *u = &rep->u[k];
			double x = L;

			if (!u->stage[d][ST_TOTAL].n && !u->d[SIDE_BARE][d].lat[K_LAT].n)
				continue;
			fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"lb\" text-anchor=\"end\">", L - 6,
				y + BAR + 4);
			html_esc(f, u->name);
			fprintf(f, " %s</text>\n", dir_key[d]);
			for (int s = ST_G2Q; s <= ST_Q2G && u->stage[d][ST_TOTAL].n; s++) {
				double w = fmax(mean_of(&u->stage[d][s]), 0) / 1e3 / xm * (W - L - R);

				fprintf(f, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\">"
					"<title>%s: %.2f µs</title></rect>\n", x, y, w, BAR, stage_color[s],
					stage_key[s], mean_of(&u->stage[d][s]) / 1e3);
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
	const struct iogap_rstat *st = u->stage[d];
	const struct iogap_rstat *rows[ST_NR + 3];
	const char *names[ST_NR + 3];
	double errs[ST_NR + 3];
	int n = 0;
	double tot = mean_of(&st[ST_TOTAL]);

	if (st[ST_TOTAL].n)
		for (int s = 0; s < ST_NR; s++) {
			rows[n] = &st[s];
			names[n] = s == ST_TOTAL ? "total (VM)" : stage_key[s];
			errs[n++] = (s == ST_G2Q || s == ST_Q2G) ? rep->err_ns : 0;
		}
	if (u->d[SIDE_BARE][d].lat[K_LAT].n) {
		rows[n] = &u->d[SIDE_BARE][d].lat[K_LAT], names[n] = "bare total", errs[n++] = 0;
		rows[n] = &u->d[SIDE_BARE][d].lat[K_SLAT], names[n] = "bare slat", errs[n++] = 0;
		rows[n] = &u->d[SIDE_BARE][d].lat[K_CLAT], names[n] = "bare clat", errs[n++] = 0;
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
		if (rows[i] >= &st[ST_G2Q] && rows[i] <= &st[ST_Q2G] && tot > 0)
			fprintf(f, "%.1f%%", 100.0 * mean_of(rows[i]) / tot);
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
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
	html_esc(f, rep->dir);
	fprintf(f, "</code>. Sides: %s%s%s.", rep->rd.have_vm ? "VM" : "",
		rep->rd.have_vm && rep->rd.have_bare ? " and " : "",
		rep->rd.have_bare ? "bare metal" : "");
	if (rep->rd.have_vm) {
		fprintf(f, " VM accel: %s. Clock: %s, crossing stages ±%.1f µs (%s).",
			rep->accel[0] ? rep->accel : "unknown",
			rep->rd.pairing.map.method ? rep->rd.pairing.map.method : "?", rep->err_ns / 1e3,
			rep->err_source);
		if (!strcmp(rep->accel, "tcg"))
			fputs(" <b>The VM ran under TCG</b>: guest-side timings include emulation.", f);
	}
	fputs("</p>\n", f);
	if (rep->rd.n_incomplete) {
		fputs("<p class=\"verdict\"><b>Incomplete data, verdicts provisional:</b>", f);
		for (size_t i = 0; i < rep->rd.n_incomplete; i++) {
			fputs(i ? "; " : " ", f);
			html_esc(f, rep->rd.incomplete[i]);
		}
		fputs("</p>\n", f);
	}
	fputs("<h2>Verdict</h2>\n", f);
	for (size_t k = 0; k < rep->nu; k++)
		for (int d = 0; d < 2; d++) {
			char v[2048];

			verdict(rep, k, d, v, sizeof(v));
			if (v[0]) {
				fputs("<div class=\"verdict\">", f);
				html_esc(f, v);
				fputs("</div>\n", f);
			}
		}
	fputs("<h2>Mean time per stage</h2>\n", f);
	svg_stages(f, rep);
	for (size_t k = 0; k < rep->nu; k++)
		for (int d = 0; d < 2; d++) {
			const struct unit *u = &rep->u[k];
			const struct dirstat *vm = &u->d[SIDE_VM][d], *bare = &u->d[SIDE_BARE][d];
			const struct gap *g = k < 256 ? &rep->gap[k][d] : NULL;
			char title[256];

			if (!vm->lat[K_LAT].n && !bare->lat[K_LAT].n)
				continue;
			fputs("<h2>", f);
			html_esc(f, u->name);
			fprintf(f, " — %s</h2>\n", dir_key[d]);
			html_stage_table(f, rep, u, d);
			html_load(f, u, g);
			if (g && g->ok) {
				fprintf(f, "<h3>The gap: VM %.2f µs − %s %.2f µs = %+.2f µs per "
					"request</h3>\n<table class=\"num\"><tr><th>where</th><th>µs</th>"
					"<th>clock ±</th><th>%% of gap</th></tr>\n", g->vm_total / 1e3,
					side_name[rep->ref], g->bare_total / 1e3, g->gap / 1e3);
				for (int c = 0; c < C_NR; c++) {
					char e[32] = "", share[64];

					if (g->err[c] > 0)
						snprintf(e, sizeof(e), "±%.1f", g->err[c] / 1e3);
					if (c == C_BACKEND && g->load_differs)
						snprintf(share, sizeof(share), "not comparable: the loads differ");
					else
						snprintf(share, sizeof(share), "%.1f%%",
							 g->gap ? 100.0 * g->contrib[c] / g->gap : 0);
					fprintf(f, "<tr><td>%s</td><td>%+.2f</td><td>%s</td><td>%s</td></tr>\n",
						c == C_BACKEND ? "backend (B − bare)" :
						c == C_OTHER ? "other (unpaired, drift)" : contrib_key[c],
						g->contrib[c] / 1e3, e, share);
				}
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
	fputs("<p class=\"note\">Definitions: docs/reports.md. Stage rows cover the VM requests "
	      "seen at both filter layers; percentiles are fio's histogram buckets.</p>\n"
	      "</body></html>\n", f);
	return ferror(f) ? -1 : 0;
}

/* --------------------------------------------------------------- command */

static void read_manifest(struct report *rep)
{
	char path[PATH_MAX + 32], err[4096];
	const char *s;

	snprintf(path, sizeof(path), "%s/manifest.json", rep->dir);
	if (iogap_json_load(path, &rep->manifest, err, sizeof(err)))
		return;
	rep->have_manifest = true;
	s = jp_str(jp_path(&rep->manifest, "vm/accel"));
	snprintf(rep->accel, sizeof(rep->accel), "%s", s ? s : "");
	rep->inject_delay_ns = jp_u64(jp_path(&rep->manifest, "vm/inject_delay_ns"), 0);
	s = jp_str(jp_path(&rep->manifest, "target/spec"));
	rep->backend = backend_of(s);
	if (s && !strncmp(s, "null:", 5) && strstr(s, "latency-ns="))
		rep->null_latency_ns = strtoull(strstr(s, "latency-ns=") + 11, NULL, 10);
}

/* Each side's SIDE/cpuload.txt, when the run recorded one (a malformed one
 * is an error: the saturation verdict would silently go missing). */
static int read_cpuload(struct report *rep, char *err, size_t errlen)
{
	static const char *const dirs[SIDES] = { "vm", "bare", "bare-matched" };

	for (int s = 0; s < SIDES; s++) {
		char path[PATH_MAX + 64];
		struct cpu_side *c = &rep->cpu[s];

		snprintf(path, sizeof(path), "%s/%s/cpuload.txt", rep->dir, dirs[s]);
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

static void report_free(struct report *rep)
{
	for (int s = 0; s < SIDES; s++)
		if (rep->cpu[s].have) {
			iogap_cpu_summary_free(&rep->cpu[s].sum);
			iogap_cpuload_free(&rep->cpu[s].cl);
		}
	for (size_t k = 0; k < rep->nu; k++)
		for (int s = 0; s < SIDES; s++)
			for (int d = 0; d < 2; d++)
				iogap_series_free(&rep->u[k].d[s][d].sec);
	free(rep->u);
	free(rep->unit_of);
	if (rep->have_manifest)
		jp_free(&rep->manifest);
	iogap_rundir_free(&rep->rd);
}

static void usage(FILE *f)
{
	fputs("usage: iogap report RUN_DIR [--json FILE|-] [--html FILE] [--timing] [--pairs FILE]\n"
	      "  per job and direction: the stage table (VM and bare metal), each stage's share,\n"
	      "  the VM-vs-bare-metal gap by stage, IOPS/bandwidth, and a verdict.\n"
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
	bool timing = false;
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
	    close_pairs(pairs_f, pairs, err, sizeof(err))) {
		fprintf(stderr, "iogap report: %s\n", err);
		report_free(rep);
		free(rep);
		return 1;
	}
	rep->t_stats = now_s() - t;
	compute_gaps(rep);
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
