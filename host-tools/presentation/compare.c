/* SPDX-License-Identifier: MIT */
/*
 * iogap compare A B [C...] [--json FILE|-] [--seed N] [--boot N] [--no-pool]
 *
 * Every argument is a run directory (ours: RUN/vm, RUN/bare; imported:
 * RUN/<label>), one side of one (a directory holding probe.json), or a fio
 * JSON file.  fio's JSON is the common denominator; traces, where present,
 * give per-second samples and exact histograms.  Runs of the same
 * configuration are pooled.  See docs/reports.md, "iogap compare".
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "compare.h"
#include "presentation.h"
#include "repeat.h"
#include "fio_import.h"
#include "util.h"
#include "json_parse.h"
#include "json_writer.h"
#include "jobs.h"
#include "manifest.h"
#include "rundir.h"
#include "trace_file.h"

/* ------------------------------------------------------------ bootstrap */

uint64_t iogap_cmp_poisson(uint64_t *rng, double mean)
{
	if (mean <= 0)
		return 0;
	if (mean < 30) {
		double l = exp(-mean), p = 1.0;
		uint64_t k = 0;

		do {
			k++;
			p *= ((double)(iogap_cmp_rand(rng) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
		} while (p > l);
		return k - 1;
	} else {
		double u1 = ((double)(iogap_cmp_rand(rng) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
		double u2 = ((double)(iogap_cmp_rand(rng) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
		double z = sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
		double v = floor(mean + sqrt(mean) * z + 0.5);

		return v < 0 ? 0 : (uint64_t)v;
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double iogap_cmp_quantile(double *v, size_t n, double q)
{
	double pos, frac;
	size_t i;

	if (!n)
		return NAN;
	qsort(v, n, sizeof(*v), cmp_double);
	pos = q * (double)(n - 1);
	i = (size_t)pos;
	frac = pos - (double)i;
	return i + 1 < n ? v[i] * (1 - frac) + v[i + 1] * frac : v[n - 1];
}

/* percentile p (%) of a fio histogram, or its mean when p < 0 */
static double hist_stat(const uint64_t *h, double p)
{
	if (p < 0) {
		double s = 0, n = 0;

		for (unsigned i = 0; i < IOGAP_PLAT_NR; i++)
			if (h[i]) {
				s += (double)h[i] * (double)iogap_plat_idx_to_val(i);
				n += (double)h[i];
			}
		return n > 0 ? s / n : NAN;
	} else {
		uint64_t v;

		return iogap_plat_percentiles(h, &p, 1, &v) ? (double)v : NAN;
	}
}

/*
 * Percentile p (%) with linear interpolation inside the bucket (mean when
 * p < 0): a bootstrap of fio's bucket values is a lattice whose quantiles
 * land on bucket edges and over-cover; interpolating makes it continuous.
 */
static double hist_stat_smooth(const uint64_t *h, double p)
{
	double n = 0, target, cum = 0;

	if (p < 0)
		return hist_stat(h, p);
	for (unsigned i = 0; i < IOGAP_PLAT_NR; i++)
		n += (double)h[i];
	target = p / 100.0 * n;
	for (unsigned i = 0; i < IOGAP_PLAT_NR; i++) {
		double v, lo, hi;

		if (!h[i] || cum + (double)h[i] < target) {
			cum += (double)h[i];
			continue;
		}
		v = (double)iogap_plat_idx_to_val(i);
		lo = i ? (v + (double)iogap_plat_idx_to_val(i - 1)) / 2 : 0;
		hi = i + 1 < IOGAP_PLAT_NR ? (v + (double)iogap_plat_idx_to_val(i + 1)) / 2 : v;
		return lo + (hi - lo) * (target - cum) / (double)h[i];
	}
	return NAN;
}

/* One replicate of a group of runs' histograms: runs resampled (when
 * several), each bucket Poisson-resampled. */
static void hist_replicate(uint64_t *const *runs, size_t nr, uint64_t *rng, uint64_t *out)
{
	memset(out, 0, IOGAP_PLAT_NR * sizeof(*out));
	for (size_t k = 0; k < nr; k++) {
		const uint64_t *h = runs[nr > 1 ? iogap_cmp_rand(rng) % nr : 0];

		for (unsigned i = 0; i < IOGAP_PLAT_NR; i++)
			if (h[i])
				out[i] += iogap_cmp_poisson(rng, (double)h[i]);
	}
}

static void boot_hist_runs(uint64_t *const *a, size_t na, uint64_t *const *b, size_t nb, double p,
			   unsigned nboot, uint64_t seed, double *lo, double *hi)
{
	uint64_t *ha = malloc(IOGAP_PLAT_NR * sizeof(*ha)), *hb = malloc(IOGAP_PLAT_NR * sizeof(*hb));
	double *d = malloc(nboot * sizeof(*d));
	uint64_t rng = seed;
	size_t nd = 0;

	*lo = *hi = NAN;
	if (ha && hb && d) {
		for (unsigned r = 0; r < nboot; r++) {
			double x, y;

			hist_replicate(a, na, &rng, ha);
			hist_replicate(b, nb, &rng, hb);
			x = hist_stat_smooth(ha, p);
			y = hist_stat_smooth(hb, p);
			if (!isnan(x) && !isnan(y))
				d[nd++] = y - x;
		}
		if (nd) {
			*lo = iogap_cmp_quantile(d, nd, 0.025);
			*hi = iogap_cmp_quantile(d, nd, 0.975);
		}
	}
	free(ha);
	free(hb);
	free(d);
}

void iogap_cmp_boot_hist_diff(const uint64_t *a, const uint64_t *b, double p, unsigned nboot,
			      uint64_t seed, double *lo, double *hi)
{
	uint64_t *ra[1] = { (uint64_t *)a }, *rb[1] = { (uint64_t *)b };

	boot_hist_runs(ra, 1, rb, 1, p, nboot, seed, lo, hi);
}

/* ------------------------------------------------------------ the data */

#define MAX_BLOCKS 300

static const char *const metric_key[IOGAP_CMP_NR] = { "iops", "bw_bytes", "clat_mean_ns", "lat_mean_ns",
					      "clat_p50_ns", "clat_p99_ns" };
static const char *const metric_label[IOGAP_CMP_NR] = { "IOPS", "BW (KiB/s)", "clat mean (us)",
						"lat mean (us)", "clat p50 (us)", "clat p99 (us)" };
/* higher is better? (for the words only) */
static const bool metric_higher_better[IOGAP_CMP_NR] = { true, true, false, false, false, false };
static const char *const dir_key[2] = { "read", "write" };


struct cjob {
	char name[128];
	struct iogap_cmp_dir d[2];
};

struct cside {
	char label[64];
	struct cjob *j;
	size_t nj;
	bool trace;
};

struct crun {
	char path[PATH_MAX];
	char desc[512];
	uint64_t key;
	struct cside *s;
	size_t ns;
};

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;

	if (!h)
		h = 1469598103934665603ull;
	for (size_t i = 0; i < n; i++) {
		h ^= c[i];
		h *= 1099511628211ull;
	}
	return h;
}

static struct cjob *job_get(struct cside *s, const char *name)
{
	struct cjob *n;

	for (size_t i = 0; i < s->nj; i++)
		if (!strcmp(s->j[i].name, name))
			return &s->j[i];
	n = realloc(s->j, (s->nj + 1) * sizeof(*n));
	if (!n)
		return NULL;
	s->j = n;
	n = &s->j[s->nj++];
	memset(n, 0, sizeof(*n));
	snprintf(n->name, sizeof(n->name), "%s", name);
	for (int d = 0; d < 2; d++)
		for (int m = 0; m < IOGAP_CMP_NR; m++)
			n->d[d].v[m] = NAN;
	return n;
}

static double pct_of(const struct jp_value *pcts, double p)
{
	for (size_t i = 0; pcts && pcts->type == JP_OBJECT && i < pcts->n; i++)
		if (fabs(atof(pcts->members[i].key) - p) < 1e-6)
			return jp_num(&pcts->members[i].val, NAN);
	return NAN;
}

/* Fold one fio JSON direction into a job (several entries of one name:
 * threads reported one by one — summed / N-weighted). */
static int add_fio_dir(struct iogap_cmp_dir *d, const struct jp_value *dj)
{
	const struct jp_value *clat = jp_get(dj, "clat_ns"), *lat = jp_get(dj, "lat_ns");
	const struct jp_value *bins = jp_get(clat, "bins");
	uint64_t n = jp_u64(jp_get(dj, "total_ios"), 0);
	uint64_t cn = jp_u64(jp_get(clat, "N"), 0), ln = jp_u64(jp_get(lat, "N"), 0);
	double iops = jp_num(jp_get(dj, "iops"), NAN), bw = jp_num(jp_get(dj, "bw_bytes"), NAN);

	if (!n && !(iops > 0))
		return 0;
	if (!d->have) {
		d->have = true;
		d->v[IOGAP_CMP_IOPS] = iops;
		d->v[IOGAP_CMP_BW] = bw;
		d->v[IOGAP_CMP_CLAT_MEAN] = jp_num(jp_get(clat, "mean"), NAN);
		d->v[IOGAP_CMP_LAT_MEAN] = jp_num(jp_get(lat, "mean"), NAN);
		d->v[IOGAP_CMP_CLAT_P50] = pct_of(jp_get(clat, "percentile"), 50.0);
		d->v[IOGAP_CMP_CLAT_P99] = pct_of(jp_get(clat, "percentile"), 99.0);
		d->clat_n = cn;
		d->lat_n = ln;
		d->iops_sd = jp_num(jp_get(dj, "iops_stddev"), NAN);
		d->iops_samples = jp_u64(jp_get(dj, "iops_samples"), 0);
		d->bw_sd = jp_num(jp_get(dj, "bw_dev"), NAN) * 1024.0;
		d->bw_samples = jp_u64(jp_get(dj, "bw_samples"), 0);
	} else {
		double cm = jp_num(jp_get(clat, "mean"), NAN), lm = jp_num(jp_get(lat, "mean"), NAN);

		d->v[IOGAP_CMP_IOPS] += iops;
		d->v[IOGAP_CMP_BW] += bw;
		if (d->clat_n + cn)
			d->v[IOGAP_CMP_CLAT_MEAN] = (d->v[IOGAP_CMP_CLAT_MEAN] * (double)d->clat_n + cm * (double)cn) /
					    (double)(d->clat_n + cn);
		if (d->lat_n + ln)
			d->v[IOGAP_CMP_LAT_MEAN] = (d->v[IOGAP_CMP_LAT_MEAN] * (double)d->lat_n + lm * (double)ln) /
					   (double)(d->lat_n + ln);
		d->clat_n += cn;
		d->lat_n += ln;
		d->iops_sd = d->bw_sd = NAN;    /* per-thread windows do not add up */
	}
	if (bins && bins->type == JP_OBJECT && bins->n) {
		if (!d->hist && !(d->hist = calloc(IOGAP_PLAT_NR, sizeof(uint64_t))))
			return -1;
		for (size_t i = 0; i < bins->n; i++)
			d->hist[iogap_plat_val_to_idx(strtoull(bins->members[i].key, NULL, 10))] +=
				jp_u64(&bins->members[i].val, 0);
	}
	return 0;
}

/* fio's JSON document v (what: its name in messages) into side s */
static int load_fio_doc(struct cside *s, const struct jp_value *v, const char *what, char *err,
			size_t errlen)
{
	const struct jp_value *jobs = jp_get(v, "jobs");
	int rc = 0;

	if (!jobs || jobs->type != JP_ARRAY) {
		snprintf(err, errlen, "%s: no \"jobs\" array (not fio JSON output)", what);
		return -1;
	}
	for (size_t i = 0; i < jobs->n && !rc; i++) {
		const char *name = jp_str(jp_get(&jobs->items[i], "jobname"));
		struct cjob *j = job_get(s, name ? name : "job");

		if (!j) {
			rc = -1;
			break;
		}
		for (int d = 0; d < 2 && !rc; d++) {
			const struct jp_value *dj = jp_get(&jobs->items[i], dir_key[d]);

			if (dj && dj->type == JP_OBJECT)
				rc = add_fio_dir(&j->d[d], dj);
		}
	}
	if (rc)
		snprintf(err, errlen, "out of memory");
	return rc;
}

static int load_probe_json(struct cside *s, const char *path, char *err, size_t errlen)
{
	struct jp_value v;
	int rc;

	if (iogap_json_load(path, &v, err, errlen))
		return -1;
	rc = load_fio_doc(s, &v, path, err, errlen);
	jp_free(&v);
	return rc;
}

/* per job-index accumulation while reading a trace */
struct tacc {
	uint64_t *hist[2];
	struct iogap_cmp_sec *sec[2];
	size_t nsec[2], cap[2];
};

static int sec_add(struct tacc *t, int d, uint64_t k, const struct iogap_trace_record *r)
{
	struct iogap_cmp_sec *s;

	if (k > 10u * 86400u)
		k = 10u * 86400u;
	s = iogap_grow_zeroed(t->sec[d], &t->cap[d], sizeof(*s), k);
	if (!s)
		return -1;
	t->sec[d] = s;
	if (k >= t->nsec[d])
		t->nsec[d] = k + 1;
	s = &t->sec[d][k];
	s->n++;
	s->bytes += r->result > 0 ? (uint64_t)r->result : 0;
	s->clat_sum += (double)(r->complete_ns - r->issue_ns);
	s->lat_sum += (double)(r->complete_ns - r->start_ns);
	s->secs = 1;
	return 0;
}

/* Trim idle seconds at both ends and the partial first/last second, then
 * fold into at most MAX_BLOCKS blocks of consecutive seconds. */
static void sec_finish(struct iogap_cmp_sec *s, size_t *n)
{
	size_t a = 0, b = *n, nb, w, o = 0;

	while (a < b && !s[a].n)
		a++;
	while (b > a && !s[b - 1].n)
		b--;
	if (b - a >= 4) {
		a++;
		b--;
	}
	nb = b - a;
	w = (nb + MAX_BLOCKS - 1) / MAX_BLOCKS;
	if (!w)
		w = 1;
	for (size_t i = a; i < b; i += w) {
		struct iogap_cmp_sec blk = { 0 };

		for (size_t k = i; k < b && k < i + w; k++) {
			blk.n += s[k].n;
			blk.bytes += s[k].bytes;
			blk.clat_sum += s[k].clat_sum;
			blk.lat_sum += s[k].lat_sum;
			blk.secs++;
		}
		s[o++] = blk;
	}
	*n = o;
}

static int load_trace(struct cside *s, const char *path, char *err, size_t errlen)
{
	struct iogap_trace_reader *r = iogap_trace_reader_open(path, err, errlen);
	struct iogap_trace_record rec;
	struct tacc *acc = NULL;
	struct iogap_jobs names = { 0 };
	size_t nacc = 0;
	uint64_t t0;
	int got, rc = 0;

	if (!r)
		return -1;
	t0 = iogap_trace_reader_header(r)->start_ns;
	while ((got = iogap_trace_reader_next(r, &rec, err, errlen)) == 1) {
		struct tacc *t;
		int d = rec.op;

		if (d > 1 || rec.flags & IOGAP_REC_RAMP)
			continue;
		if (rec.job >= nacc) {
			struct tacc *n = realloc(acc, (rec.job + 1u) * sizeof(*n));

			if (!n) {
				rc = -1;
				break;
			}
			memset(n + nacc, 0, (rec.job + 1u - nacc) * sizeof(*n));
			acc = n;
			nacc = rec.job + 1u;
		}
		t = &acc[rec.job];
		if (!t->hist[d] && !(t->hist[d] = calloc(IOGAP_PLAT_NR, sizeof(uint64_t)))) {
			rc = -1;
			break;
		}
		t->hist[d][iogap_plat_val_to_idx(rec.complete_ns - rec.issue_ns)]++;
		if (sec_add(t, d, rec.complete_ns > t0 ? (rec.complete_ns - t0) / 1000000000ull : 0, &rec)) {
			rc = -1;
			break;
		}
	}
	if (got < 0)
		rc = -1;
	else if (rc || iogap_jobs_from(iogap_trace_reader_info(r), NULL, nacc, &names))
		rc = iogap_seterr(err, errlen, "out of memory");
	iogap_trace_reader_close(r);
	/* hand over to the jobs of the same name (JSON entries) */
	for (size_t j = 0; j < nacc && !rc; j++) {
		struct cjob *cj = job_get(s, names.job[j].name);

		for (int d = 0; d < 2 && cj; d++) {
			struct iogap_cmp_dir *cd = &cj->d[d];

			if (!acc[j].hist[d])
				continue;
			sec_finish(acc[j].sec[d], &acc[j].nsec[d]);
			if (cd->sec) {          /* a second job index of the same name */
				free(acc[j].sec[d]);
				acc[j].sec[d] = NULL;
			} else {
				cd->sec = acc[j].sec[d];
				cd->nsec = acc[j].nsec[d];
				acc[j].sec[d] = NULL;
			}
			if (!cd->hist) {
				cd->hist = acc[j].hist[d];
				acc[j].hist[d] = NULL;
			} else {
				for (unsigned i = 0; i < IOGAP_PLAT_NR; i++)
					cd->hist[i] += acc[j].hist[d][i];
			}
		}
	}
	for (size_t j = 0; j < nacc; j++)
		for (int d = 0; d < 2; d++) {
			free(acc[j].hist[d]);
			free(acc[j].sec[d]);
		}
	free(acc);
	iogap_jobs_free(&names);
	if (!rc)
		s->trace = true;
	return rc;
}

static bool is_dir(const char *p)
{
	struct stat st;

	return !stat(p, &st) && S_ISDIR(st.st_mode);
}

static bool is_file(const char *p)
{
	struct stat st;

	return !stat(p, &st) && S_ISREG(st.st_mode);
}

static int add_side(struct crun *run, const char *label, const char *json, const char *trace,
		    char *err, size_t errlen)
{
	struct cside *n = realloc(run->s, (run->ns + 1) * sizeof(*n)), *s;

	if (!n) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	run->s = n;
	s = &run->s[run->ns++];
	memset(s, 0, sizeof(*s));
	snprintf(s->label, sizeof(s->label), "%s", label);
	if (json && load_probe_json(s, json, err, errlen))
		return -1;
	if (trace && is_file(trace) && load_trace(s, trace, err, errlen))
		return -1;
	return 0;
}

/* The configuration: what ran and against what, not when or where. */
static void run_key(struct crun *run, const char *rundir, const char *first_json)
{
	const char *const *fields = iogap_manifest_config;
	char path[PATH_MAX + 32], err[PATH_MAX + 256];
	struct iogap_manifest m;
	uint64_t h = 0;
	size_t dl = 0;
	bool jobfiles = false;

	run->desc[0] = 0;
	if (rundir[0] && !iogap_manifest_read(rundir, &m, err, sizeof(err))) {
		for (int i = 0; fields[i]; i++) {
			const struct jp_value *v = jp_path(&m.doc, fields[i]);
			char buf[256];

			if (!v)
				continue;
			if (v->type == JP_STRING)
				snprintf(buf, sizeof(buf), "%s", v->text);
			else if (v->type == JP_NUMBER)
				snprintf(buf, sizeof(buf), "%s", v->text);
			else
				continue;
			h = fnv(h, fields[i], strlen(fields[i]));
			h = fnv(h, buf, strlen(buf) + 1);
			if (buf[0] && strcmp(buf, "0") && dl < sizeof(run->desc) - 1)
				dl += (size_t)snprintf(run->desc + dl, sizeof(run->desc) - dl, "%s%s=%s",
						       dl ? " " : "", strchr(fields[i], '/') + 1, buf);
		}
		iogap_manifest_free(&m);
	}
	for (int i = 0; i < 64; i++) {
		size_t len;
		char *t;

		snprintf(path, sizeof(path), "%s/job%d.fio", rundir, i);
		if (!rundir[0] || !(t = iogap_input_read(path, IOGAP_INPUT_MAX, &len, NULL, 0)))
			break;
		h = fnv(h, t, len);
		free(t);
		jobfiles = true;
	}
	if (!jobfiles && first_json) {
		/* imported: the job options fio printed */
		struct jp_value v;

		if (!iogap_json_load(first_json, &v, err, sizeof(err))) {
			const struct jp_value *g = jp_get(&v, "global options"),
					      *jobs = jp_get(&v, "jobs");
			char *buf = NULL;
			size_t bl = 0;
			FILE *f = open_memstream(&buf, &bl);

			if (f) {
				if (g)
					jp_write(f, g);
				for (size_t i = 0; jobs && jobs->type == JP_ARRAY && i < jobs->n; i++) {
					const char *n = jp_str(jp_get(&jobs->items[i], "jobname"));
					const struct jp_value *o = jp_get(&jobs->items[i], "job options");

					fputs(n ? n : "", f);
					if (o)
						jp_write(f, o);
				}
				fclose(f);
				h = fnv(h, buf, bl);
				free(buf);
			}
			jp_free(&v);
		}
	}
	run->key = h;
}

/* vm first, then bare, then the rest */
static int side_rank(const char *name)
{
	enum iogap_side s = iogap_side_of_dir(name);

	return s == IOGAP_SIDE_VM ? 0 : s == IOGAP_SIDE_BARE ? 1 : 2;
}

static int load_run(struct crun *run, const char *arg, char *err, size_t errlen)
{
	char path[PATH_MAX + 64], trace[PATH_MAX + 64], rundir[PATH_MAX], first[PATH_MAX + 64] = "";

	memset(run, 0, sizeof(*run));
	snprintf(run->path, sizeof(run->path), "%s", arg);
	snprintf(rundir, sizeof(rundir), "%s", arg);
	if (is_file(arg)) {
		/* a fio JSON file */
		const char *b = strrchr(arg, '/');
		char label[64];

		snprintf(label, sizeof(label), "%s", b ? b + 1 : arg);
		if (strchr(label, '.'))
			*strchr(label, '.') = 0;
		rundir[0] = 0;
		if (add_side(run, label, arg, NULL, err, errlen))
			return -1;
		snprintf(first, sizeof(first), "%s", arg);
	} else if (snprintf(path, sizeof(path), "%s/probe.json", arg), is_file(path)) {
		/* one side of a run: its label is the directory's name */
		char *slash;
		const char *b;

		while (strlen(rundir) > 1 && rundir[strlen(rundir) - 1] == '/')
			rundir[strlen(rundir) - 1] = 0;
		slash = strrchr(rundir, '/');
		b = slash ? slash + 1 : rundir;
		snprintf(trace, sizeof(trace), "%s/probe.trace", arg);
		if (add_side(run, b, path, trace, err, errlen))
			return -1;
		snprintf(first, sizeof(first), "%s", path);
		if (slash)
			*slash = 0;
		else
			snprintf(rundir, sizeof(rundir), ".");
	} else if (is_dir(arg)) {
		DIR *d = opendir(arg);
		struct dirent *e;
		char **names = NULL;
		size_t nn = 0;

		while (d && (e = readdir(d))) {
			char **n;

			if (e->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s/probe.json", arg, e->d_name);
			if (!is_file(path) || !(n = realloc(names, (nn + 1) * sizeof(*n))))
				continue;
			names = n;
			names[nn++] = strdup(e->d_name);
		}
		if (d)
			closedir(d);
		/* vm first, then bare, then the rest by name */
		for (size_t i = 0; i < nn; i++)
			for (size_t j = i + 1; j < nn; j++) {
				int ri = side_rank(names[i]), rj = side_rank(names[j]);

				if (rj < ri || (rj == ri && strcmp(names[j], names[i]) < 0)) {
					char *t = names[i];

					names[i] = names[j];
					names[j] = t;
				}
			}
		for (size_t i = 0; i < nn; i++) {
			int rc;

			snprintf(path, sizeof(path), "%s/%s/probe.json", arg, names[i]);
			snprintf(trace, sizeof(trace), "%s/%s/probe.trace", arg, names[i]);
			if (!first[0])
				snprintf(first, sizeof(first), "%s", path);
			rc = names[i] ? add_side(run, names[i], path, trace, err, errlen) : -1;
			if (rc) {
				for (size_t k = i; k < nn; k++)
					free(names[k]);
				free(names);
				return -1;
			}
			free(names[i]);
		}
		free(names);
		if (!run->ns) {
			snprintf(err, errlen, "%s: no probe.json in it or in any subdirectory", arg);
			return -1;
		}
	} else {
		snprintf(err, errlen, "%s: %s", arg, strerror(ENOENT));
		return -1;
	}
	/* an interrupted run or another run's traces would be pooled as data */
	if (rundir[0] && iogap_rundir_check(rundir, err, errlen))
		return -1;
	run_key(run, rundir, first[0] ? first : NULL);
	return 0;
}

/*
 * One fio output of a paste as a run: parsed and converted to fio's JSON
 * exactly as `iogap import` does, one side named by the segment's label.
 * The label is the configuration: runs of one name are pooled.
 */
static int load_segment(struct crun *run, const char *file, const char *text,
			const struct fioi_segment *g, char *err, size_t errlen)
{
	struct fioi_result r;
	struct jp_value v = { 0 };
	char name[PATH_MAX + 80], *buf = NULL;
	size_t blen = 0;
	FILE *m;
	int rc = -1;

	memset(run, 0, sizeof(*run));
	snprintf(run->path, sizeof(run->path), "%s[%s]", file, g->label);
	snprintf(name, sizeof(name), "%s[%s]", file, g->label);
	if (fioi_parse_buf(name, text + g->off, g->len, &r, err, errlen))
		return -1;
	m = open_memstream(&buf, &blen);
	if (m && !fioi_write_json(&r, m, err, errlen) && !fclose(m)) {
		m = NULL;
		if (!jp_parse(buf, blen, false, &v, NULL, err, errlen) &&
		    !add_side(run, g->label, NULL, NULL, err, errlen))
			rc = load_fio_doc(&run->s[0], &v, name, err, errlen);
	}
	if (m)
		fclose(m);
	run->key = fnv(0, g->label, strlen(g->label));
	snprintf(run->desc, sizeof(run->desc), "pasted run '%s'", g->label);
	jp_free(&v);
	free(buf);
	fioi_free(&r);
	return rc;
}

/* A text file of pasted fio output: its runs (*n = 0 when it is not one) */
static int load_paste(const char *file, struct crun **runs, size_t *n, char *err, size_t errlen)
{
	struct fioi_segment *segs = NULL;
	size_t nseg = 0, len;
	char *text = iogap_input_read(file, IOGAP_INPUT_MAX, &len, NULL, 0);
	int rc = 0;

	*n = 0;
	if (!text || !fioi_looks_like_output(text, len) || fioi_split_runs(text, len, &segs, &nseg)) {
		free(text);
		return 0;
	}
	if (nseg && !(*runs = calloc(nseg, sizeof(**runs))))
		rc = -1;
	for (size_t i = 0; !rc && i < nseg; i++) {
		rc = load_segment(&(*runs)[i], file, text, &segs[i], err, errlen);
		*n = i + 1;
	}
	free(segs);
	free(text);
	return rc;
}

/* A repeat directory (`iogap run --repeat`): its runs, one group — the
 * directory's name is part of their configuration, so two repeat
 * directories of one configuration (two builds, say) are two groups.
 * *n = 0 when dir is not one. */
static int load_repeat(const char *dir, struct crun **runs, size_t *n, char *err, size_t errlen)
{
	struct iogap_repeat rep;
	const char *base = strrchr(dir, '/');
	char path[PATH_MAX];
	int rc = 0;

	*n = 0;
	if (!is_dir(dir) || !iogap_repeat_is(dir))
		return 0;
	if (iogap_repeat_load(dir, &rep, err, errlen))
		return -1;
	if (!rep.nr)
		return iogap_seterr(err, errlen, "%s: a repeat directory without runs", dir);
	base = base && base[1] ? base + 1 : dir;
	if (!(*runs = calloc(rep.nr, sizeof(**runs))))
		return iogap_seterr(err, errlen, "out of memory");
	for (unsigned i = 0; !rc && i < rep.nr; i++) {
		struct crun *r = &(*runs)[i];
		size_t dl;

		snprintf(path, sizeof(path), "%s/%s", dir, rep.name[i]);
		rc = load_run(r, path, err, errlen);
		*n = i + 1;
		if (rc)
			break;
		r->key = fnv(r->key, base, strlen(base));
		dl = strlen(r->desc);
		snprintf(r->desc + dl, sizeof(r->desc) - dl, "%srepeat=%s", dl ? " " : "", base);
	}
	return rc;
}

static void run_free(struct crun *run)
{
	for (size_t i = 0; i < run->ns; i++) {
		for (size_t j = 0; j < run->s[i].nj; j++)
			for (int d = 0; d < 2; d++) {
				free(run->s[i].j[j].d[d].hist);
				free(run->s[i].j[j].d[d].sec);
			}
		free(run->s[i].j);
	}
	free(run->s);
}

/* ------------------------------------------------------------- compare */

struct group {
	size_t *runs;
	size_t nr;
};

/* the runs' data for one side label, job and direction (NULL if absent) */
static const struct iogap_cmp_dir *find_dir(const struct crun *run, const char *label, const char *job, int d)
{
	for (size_t i = 0; i < run->ns; i++) {
		if (strcmp(run->s[i].label, label))
			continue;
		for (size_t j = 0; j < run->s[i].nj; j++)
			if (!strcmp(run->s[i].j[j].name, job))
				return run->s[i].j[j].d[d].have ? &run->s[i].j[j].d[d] : NULL;
	}
	return NULL;
}

/* ------------------------------------------------------------ t intervals */

/* Regularised incomplete beta I_x(a, b) (continued fraction, Lentz). */
static double inc_beta(double x, double a, double b)
{
	double front, f = 1, c = 1, d = 0;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	if (x > (a + 1) / (a + b + 2))
		return 1 - inc_beta(1 - x, b, a);
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log(1 - x)) / a;
	for (int i = 0; i <= 400; i++) {
		int m = i / 2;
		double num = !i ? 1 : i % 2 ? -((a + m) * (a + b + m) * x) / ((a + 2 * m) * (a + 2 * m + 1))
				   : (m * (b - m) * x) / ((a + 2 * m - 1) * (a + 2 * m));

		d = 1 + num * d;
		d = fabs(d) < 1e-300 ? 1e-300 : d;
		d = 1 / d;
		c = 1 + num / c;
		c = fabs(c) < 1e-300 ? 1e-300 : c;
		f *= c * d;
		if (fabs(1 - c * d) < 1e-12)
			break;
	}
	return front * (f - 1);
}

static double t_cdf(double t, double df)
{
	double tail = 0.5 * inc_beta(df / (df + t * t), df / 2, 0.5);

	return t > 0 ? 1 - tail : tail;
}

double iogap_cmp_t_quantile(double p, double df)
{
	double lo = -1e6, hi = 1e6;

	if (!(p > 0 && p < 1 && df > 0))
		return NAN;
	for (int i = 0; i < 200 && hi - lo > 1e-10 * (1 + fabs(lo)); i++) {
		double mid = (lo + hi) / 2;

		if (t_cdf(mid, df) < p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

/* An estimate from k units with its squared standard error. */
struct tsample {
	double est, se2;
	size_t k;
};

/*
 * The ratio estimator sum(y)/sum(x) over k units (runs: y = the run's value,
 * x = 1, i.e. the mean; seconds: e.g. y = completions, x = seconds), with
 * its linearised standard error: the units are the independent samples, not
 * the requests inside them (batch means).
 */
static struct tsample ratio_sample(const double *y, const double *x, size_t k)
{
	struct tsample t = { NAN, NAN, k };
	double sy = 0, sx = 0, ss = 0;

	for (size_t i = 0; i < k; i++) {
		sy += y[i];
		sx += x[i];
	}
	if (k < 2 || !(sx > 0))
		return t;
	t.est = sy / sx;
	for (size_t i = 0; i < k; i++) {
		double e = (y[i] - t.est * x[i]) / (sx / (double)k);

		ss += e * e;
	}
	t.se2 = ss / ((double)k * (double)(k - 1));
	return t;
}

/* Welch's interval for B - A, centred on diff; false without two samples a
 * side.  Samples that agree exactly on both sides (a rate limiter that hit
 * its rate in every run) leave no doubt: the interval is diff itself. */
static bool welch(struct tsample a, struct tsample b, double diff, double *lo, double *hi)
{
	double se2 = a.se2 + b.se2, df, half;

	if (a.k < 2 || b.k < 2 || isnan(se2))
		return false;
	if (se2 == 0) {
		*lo = *hi = diff;
		return true;
	}
	df = se2 * se2 / (a.se2 * a.se2 / (double)(a.k - 1) + b.se2 * b.se2 / (double)(b.k - 1));
	half = iogap_cmp_t_quantile(0.975, df) * sqrt(se2);
	*lo = diff - half;
	*hi = diff + half;
	return true;
}

/* ------------------------------------------------------------- methods */

/* Between runs: each run's value is one sample. */
static bool between_runs(const struct iogap_cmp_dir *const *c, size_t nc, int m,
			 struct tsample *t)
{
	double *y = malloc(nc * sizeof(*y)), *x = malloc(nc * sizeof(*x));
	bool ok = y && x;

	for (size_t k = 0; ok && k < nc; k++) {
		y[k] = c[k]->v[m];
		x[k] = 1;
		ok = !isnan(y[k]);
	}
	if (ok)
		*t = ratio_sample(y, x, nc);
	free(y);
	free(x);
	return ok;
}

/* Per-second blocks of all runs of a side (batch means): the metric's
 * numerator and denominator per block. */
static bool per_second(const struct iogap_cmp_dir *const *c, size_t nc, int m,
		       struct tsample *t)
{
	size_t n = 0, k = 0;
	double *y, *x;

	for (size_t r = 0; r < nc; r++) {
		if (c[r]->nsec < 2)
			return false;
		n += c[r]->nsec;
	}
	y = malloc(n * sizeof(*y));
	x = malloc(n * sizeof(*x));
	if (y && x) {
		for (size_t r = 0; r < nc; r++)
			for (size_t i = 0; i < c[r]->nsec; i++, k++) {
				const struct iogap_cmp_sec *s = &c[r]->sec[i];

				y[k] = m == IOGAP_CMP_IOPS ? (double)s->n :
				       m == IOGAP_CMP_BW ? (double)s->bytes :
				       m == IOGAP_CMP_CLAT_MEAN ? s->clat_sum : s->lat_sum;
				x[k] = m <= IOGAP_CMP_BW ? (double)s->secs : (double)s->n;
			}
		*t = ratio_sample(y, x, n);
	}
	free(y);
	free(x);
	return y && x;
}

/* fio's per-window IOPS/BW samples of one run (mean, stddev, count). */
static bool fio_windows(const struct iogap_cmp_dir *d, int m, struct tsample *t)
{
	double sd = m == IOGAP_CMP_IOPS ? d->iops_sd : d->bw_sd;
	uint64_t n = m == IOGAP_CMP_IOPS ? d->iops_samples : d->bw_samples;

	if (isnan(sd) || n < 5)
		return false;
	t->est = d->v[m];
	t->se2 = sd * sd / (double)n;
	t->k = n;
	return true;
}

/* Percentiles from per-request histograms (Poisson bootstrap). */
static bool per_request(const struct iogap_cmp_dir *const *ca, size_t na,
			const struct iogap_cmp_dir *const *cb, size_t nb, int m, unsigned nboot,
			uint64_t seed, struct iogap_cmp_result *r)
{
	double p = m == IOGAP_CMP_CLAT_P50 ? 50.0 : 99.0;
	uint64_t *ha = calloc(IOGAP_PLAT_NR, sizeof(*ha)), *hb = calloc(IOGAP_PLAT_NR, sizeof(*hb));
	uint64_t **ra = calloc(na, sizeof(*ra)), **rb = calloc(nb, sizeof(*rb));
	uint64_t n1 = 0, n2 = 0;
	bool ok = ha && hb && ra && rb;

	for (size_t k = 0; ok && k < na; k++)
		ok = (ra[k] = ca[k]->hist) != NULL;
	for (size_t k = 0; ok && k < nb; k++)
		ok = (rb[k] = cb[k]->hist) != NULL;
	if (ok) {
		for (size_t k = 0; k < na; k++)
			for (unsigned i = 0; i < IOGAP_PLAT_NR; i++)
				ha[i] += ra[k][i];
		for (size_t k = 0; k < nb; k++)
			for (unsigned i = 0; i < IOGAP_PLAT_NR; i++)
				hb[i] += rb[k][i];
		for (unsigned i = 0; i < IOGAP_PLAT_NR; i++) {
			n1 += ha[i];
			n2 += hb[i];
		}
		/* an interval for the true difference (the printed one is fio's,
		 * rounded to its buckets) */
		boot_hist_runs(ra, na, rb, nb, p, nboot / 2 ? nboot / 2 : 1, seed, &r->lo, &r->hi);
		snprintf(r->detail, sizeof(r->detail), "%" PRIu64 "+%" PRIu64 " req", n1, n2);
		ok = !isnan(r->lo);
	}
	free(ha);
	free(hb);
	free(ra);
	free(rb);
	return ok;
}

/* Within the runs: the first method the data allow. */
static void within_runs(const struct iogap_cmp_dir *const *ca, size_t na,
			const struct iogap_cmp_dir *const *cb, size_t nb, int m, unsigned nboot,
			uint64_t seed, struct iogap_cmp_result *r)
{
	struct tsample ta, tb;

	if (m <= IOGAP_CMP_LAT_MEAN && per_second(ca, na, m, &ta) && per_second(cb, nb, m, &tb)) {
		r->method = "per-second batch means (Welch t)";
		snprintf(r->detail, sizeof(r->detail), "%zu+%zu s", ta.k, tb.k);
		welch(ta, tb, r->diff, &r->lo, &r->hi);
	} else if (m >= IOGAP_CMP_CLAT_P50) {
		r->method = "per-request histogram (requests assumed independent)";
		per_request(ca, na, cb, nb, m, nboot, seed, r);
	} else if (m <= IOGAP_CMP_BW && na == 1 && nb == 1 && fio_windows(ca[0], m, &ta) &&
		   fio_windows(cb[0], m, &tb)) {
		r->method = "fio per-window samples (Welch t)";
		snprintf(r->detail, sizeof(r->detail), "%zu+%zu", ta.k, tb.k);
		welch(ta, tb, r->diff, &r->lo, &r->hi);
	}
	if (!isnan(r->lo))
		r->scope = IOGAP_CMP_WITHIN_RUN;
}

static double group_value(const struct iogap_cmp_dir *const *c, size_t nc, int m)
{
	double s = 0, w = 0;
	bool allhist = true;

	for (size_t k = 0; k < nc; k++)
		allhist &= c[k]->hist != NULL;
	if ((m == IOGAP_CMP_CLAT_P50 || m == IOGAP_CMP_CLAT_P99) && allhist && nc > 1) {
		uint64_t *h = calloc(IOGAP_PLAT_NR, sizeof(*h));
		double v;

		if (!h)
			return NAN;
		for (size_t k = 0; k < nc; k++)
			for (unsigned i = 0; i < IOGAP_PLAT_NR; i++)
				h[i] += c[k]->hist[i];
		v = hist_stat(h, m == IOGAP_CMP_CLAT_P50 ? 50.0 : 99.0);
		free(h);
		return v;
	}
	for (size_t k = 0; k < nc; k++) {
		double v = c[k]->v[m], wt = 1;

		if (isnan(v))
			return NAN;
		if (m == IOGAP_CMP_CLAT_MEAN)
			wt = (double)(c[k]->clat_n ? c[k]->clat_n : 1);
		if (m == IOGAP_CMP_LAT_MEAN)
			wt = (double)(c[k]->lat_n ? c[k]->lat_n : 1);
		s += v * wt;
		w += wt;
	}
	return w > 0 ? s / w : NAN;
}


void iogap_cmp_metric(const struct iogap_cmp_dir *const *a, size_t na,
		      const struct iogap_cmp_dir *const *b, size_t nb, int m, unsigned nboot,
		      uint64_t seed, struct iogap_cmp_result *r)
{
	struct tsample ta, tb;

	memset(r, 0, sizeof(*r));
	r->a = group_value(a, na, m);
	r->b = group_value(b, nb, m);
	r->diff = r->b - r->a;
	r->lo = r->hi = NAN;
	r->method = "none";
	if (isnan(r->a) || isnan(r->b))
		return;
	if (na >= 2 && nb >= 2) {
		/* runs are the unit: their spread holds within- and between-run noise */
		r->method = "between runs (Welch t)";
		snprintf(r->detail, sizeof(r->detail), "%zu+%zu runs", na, nb);
		if (between_runs(a, na, m, &ta) && between_runs(b, nb, m, &tb) &&
		    welch(ta, tb, r->diff, &r->lo, &r->hi))
			r->scope = IOGAP_CMP_BETWEEN_RUNS;
		return;
	}
	within_runs(a, na, b, nb, m, nboot, seed, r);
	if (isnan(r->lo)) {
		r->method = "none";
		r->detail[0] = 0;
	}
}

const char *iogap_cmp_verdict(const struct iogap_cmp_result *r)
{
	if (r->scope == IOGAP_CMP_NONE || isnan(r->lo) || isnan(r->hi))
		return "no interval";
	if (r->lo <= 0 && r->hi >= 0)
		return "within noise";
	return r->scope == IOGAP_CMP_BETWEEN_RUNS ? "significant" : "differs within runs";
}

static const char *const scope_name[] = { "none", "within-run", "between-runs" };

static double scale_of(int m)
{
	return m == IOGAP_CMP_BW ? 1.0 / 1024 : (m >= IOGAP_CMP_CLAT_MEAN ? 1e-3 : 1.0);
}

static void usage(FILE *f)
{
	fputs("usage: iogap compare RUN_A RUN_B [RUN...] [--json FILE|-] [--seed N] [--boot N]\n"
	      "                     [--no-pool]\n"
	      "       iogap compare PASTE [...]\n"
	      "  RUN: a run directory (ours or `iogap import`ed), one side of one (a directory\n"
	      "  with probe.json), a fio JSON file, or fio text output; PASTE: a text file of\n"
	      "  several fio outputs, each after its name line; a repeat directory (made by\n"
	      "  iogap run with a repeat count): its runs, as one group.  Runs of one\n"
	      "  configuration (a\n"
	      "  paste: one name) are pooled;\n"
	      "  every other configuration is compared with the first: per side, job, direction\n"
	      "  and metric, the difference, its 95% confidence interval and a verdict.\n", f);
}

struct cmp_ctx {
	struct crun *runs;
	size_t nruns;
	struct group *g;
	size_t ng;
	unsigned nboot;
	uint64_t seed;
	struct jw *jw;
	FILE *out;
	unsigned significant, within_run, noise, none;
};

/* compare group gi with group 0 for side labels la (in group 0) and lb */
static void compare_pair(struct cmp_ctx *c, size_t gi, const char *la, const char *lb)
{
	const struct group *A = &c->g[0], *B = &c->g[gi];
	const struct crun *first = &c->runs[A->runs[0]];
	const struct cside *side = NULL;

	for (size_t i = 0; i < first->ns; i++)
		if (!strcmp(first->s[i].label, la))
			side = &first->s[i];
	if (!side)
		return;
	for (size_t j = 0; j < side->nj; j++) {
		for (int d = 0; d < 2; d++) {
			const struct iogap_cmp_dir **ca = calloc(A->nr, sizeof(*ca)), **cb = calloc(B->nr, sizeof(*cb));
			bool ok = ca && cb;

			for (size_t k = 0; ok && k < A->nr; k++)
				ok = (ca[k] = find_dir(&c->runs[A->runs[k]], la, side->j[j].name, d)) != NULL;
			for (size_t k = 0; ok && k < B->nr; k++)
				ok = (cb[k] = find_dir(&c->runs[B->runs[k]], lb, side->j[j].name, d)) != NULL;
			if (!ok) {
				free(ca);
				free(cb);
				continue;
			}
			if (c->out) {
				fprintf(c->out, "\n%s%s%s / %s / %s   (A: %zu run%s, B%zu: %zu run%s)\n", la,
					strcmp(la, lb) ? " vs " : "", strcmp(la, lb) ? lb : "",
					side->j[j].name, dir_key[d], A->nr, A->nr > 1 ? "s" : "", gi, B->nr,
					B->nr > 1 ? "s" : "");
				fprintf(c->out, "  %-15s %12s %12s %9s  %-21s %-40s %s\n", "metric", "A",
					"B", "diff", "95% CI of diff", "method", "verdict");
			}
			if (c->jw) {
				jw_obj(c->jw, NULL);
				jw_str(c->jw, "side_a", la);
				jw_str(c->jw, "side_b", lb);
				jw_int(c->jw, "group_b", (long long)gi);
				jw_str(c->jw, "job", side->j[j].name);
				jw_str(c->jw, "dir", dir_key[d]);
				jw_obj(c->jw, "metrics");
			}
			for (int m = 0; m < IOGAP_CMP_NR; m++) {
				struct iogap_cmp_result r;
				const char *v;
				char ci[64] = "-", meth[96];
				double sc = scale_of(m);

				iogap_cmp_metric(ca, A->nr, cb, B->nr, m, c->nboot,
						 c->seed ^ ((uint64_t)m << 48) ^ ((uint64_t)j << 32) ^ (uint64_t)d,
						 &r);
				if (isnan(r.a) || isnan(r.b))
					continue;
				v = iogap_cmp_verdict(&r);
				if (!strcmp(v, "significant"))
					c->significant++;
				else if (!strcmp(v, "differs within runs"))
					c->within_run++;
				else if (!strcmp(v, "within noise"))
					c->noise++;
				else
					c->none++;
				if (!isnan(r.lo) && r.a != 0)
					snprintf(ci, sizeof(ci), "[%+.2f%%, %+.2f%%]", 100 * r.lo / r.a,
						 100 * r.hi / r.a);
				snprintf(meth, sizeof(meth), "%s%s%s%s", r.method, r.detail[0] ? " (" : "",
					 r.detail, r.detail[0] ? ")" : "");
				if (c->out) {
					char dif[32] = "-";

					if (r.a != 0)
						snprintf(dif, sizeof(dif), "%+.2f%%", 100 * r.diff / r.a);
					fprintf(c->out, "  %-15s %12.2f %12.2f %9s  %-21s %-40s %s%s\n",
						metric_label[m], r.a * sc, r.b * sc, dif, ci, meth, v,
						strcmp(v, "within noise") && strcmp(v, "no interval") ?
						((r.diff > 0) == metric_higher_better[m] ? " (B better)" :
						 " (B worse)") : "");
				}
				if (c->jw) {
					jw_obj(c->jw, metric_key[m]);
					jw_float(c->jw, "a", r.a);
					jw_float(c->jw, "b", r.b);
					jw_float(c->jw, "diff", r.diff);
					jw_float(c->jw, "diff_pct", r.a != 0 ? 100 * r.diff / r.a : 0);
					if (!isnan(r.lo)) {
						jw_float(c->jw, "ci_lo", r.lo);
						jw_float(c->jw, "ci_hi", r.hi);
					}
					jw_str(c->jw, "method", r.method);
					jw_str(c->jw, "samples", r.detail);
					jw_str(c->jw, "scope", scope_name[r.scope]);
					jw_str(c->jw, "verdict", v);
					jw_end(c->jw);
				}
			}
			if (c->jw) {
				jw_end(c->jw);
				jw_end(c->jw);
			}
			free(ca);
			free(cb);
		}
	}
}

int iogap_cmd_compare(int argc, char **argv)
{
	struct cmp_ctx c = { .nboot = 2000, .seed = 0x10ca1c0ffee };
	const char *json = NULL;
	char err[4096];
	bool pool = true;
	const char **args = calloc((size_t)argc, sizeof(*args));
	size_t na = 0;
	int rc = 0;

	if (!args)
		return 1;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json") && i + 1 < argc)
			json = argv[++i];
		else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			c.seed = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--boot") && i + 1 < argc)
			c.nboot = (unsigned)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--no-pool"))
			pool = false;
		else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			free(args);
			return 0;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			usage(stderr);
			free(args);
			return 2;
		} else
			args[na++] = argv[i];
	}
	if (!na || c.nboot < 100 || c.nboot > 1000000) {
		usage(stderr);
		free(args);
		return 2;
	}
	for (size_t i = 0; i < na; i++) {
		struct crun *pasted = NULL, *nr;
		size_t np = 0;

		if ((is_file(args[i]) ? load_paste(args[i], &pasted, &np, err, sizeof(err)) :
		     load_repeat(args[i], &pasted, &np, err, sizeof(err)))) {
			for (size_t k = 0; k < np; k++)
				run_free(&pasted[k]);
			free(pasted);
			fprintf(stderr, "iogap compare: %s\n", err);
			rc = 1;
			goto out;
		}
		nr = realloc(c.runs, (c.nruns + (np ? np : 1)) * sizeof(*nr));
		if (!nr) {
			free(pasted);
			rc = 1;
			goto out;
		}
		c.runs = nr;
		if (np) {
			memcpy(&c.runs[c.nruns], pasted, np * sizeof(*pasted));
			c.nruns += np;
			free(pasted);
			continue;
		}
		c.nruns++;
		if (load_run(&c.runs[c.nruns - 1], args[i], err, sizeof(err))) {
			fprintf(stderr, "iogap compare: %s\n", err);
			rc = 1;
			goto out;
		}
	}
	if (c.nruns < 2) {
		fprintf(stderr, "iogap compare: %s: one run; compare needs two (or a paste "
			"holding several fio outputs)\n", args[0]);
		rc = 2;
		goto out;
	}
	na = c.nruns;
	c.g = calloc(na, sizeof(*c.g));
	if (!c.g) {
		rc = 1;
		goto out;
	}
	/* groups: one per configuration, unless that leaves just one */
	for (size_t i = 0; i < na; i++) {
		size_t gi = c.ng;

		for (size_t k = 0; pool && k < c.ng; k++)
			if (c.runs[c.g[k].runs[0]].key == c.runs[i].key)
				gi = k;
		if (gi == c.ng) {
			c.g[c.ng].runs = calloc(na, sizeof(size_t));
			if (!c.g[c.ng].runs) {
				rc = 1;
				goto out;
			}
			c.ng++;
		}
		c.g[gi].runs[c.g[gi].nr++] = i;
	}
	if (c.ng < 2) {
		for (size_t k = 0; k < c.ng; k++)
			free(c.g[k].runs);
		c.ng = 0;
		for (size_t i = 0; i < na; i++) {
			c.g[i].runs = calloc(1, sizeof(size_t));
			if (!c.g[i].runs) {
				rc = 1;
				goto out;
			}
			c.g[i].runs[0] = i;
			c.g[i].nr = 1;
			c.ng++;
		}
		pool = false;
	}
	if (!json || strcmp(json, "-"))
		c.out = stdout;
	if (c.out) {
		fprintf(c.out, "iogap compare: 95%% confidence intervals of B - A (what each covers: "
			"method column; docs/reports.md)\n");
		for (size_t k = 0; k < c.ng; k++) {
			const struct crun *r0 = &c.runs[c.g[k].runs[0]];

			char name[32];

			if (k)
				snprintf(name, sizeof(name), "B%zu", k);
			else
				snprintf(name, sizeof(name), "A");
			fprintf(c.out, "  %s: %zu run%s%s%s\n", name, c.g[k].nr,
				c.g[k].nr > 1 ? "s (pooled: same configuration)" : "",
				r0->desc[0] ? ", " : "", r0->desc);
			for (size_t i = 0; i < c.g[k].nr; i++) {
				const struct crun *r = &c.runs[c.g[k].runs[i]];

				fprintf(c.out, "      %s  [", r->path);
				for (size_t s = 0; s < r->ns; s++)
					fprintf(c.out, "%s%s%s", s ? " " : "", r->s[s].label,
						r->s[s].trace ? "+trace" : "");
				fputs("]\n", c.out);
			}
		}
		if (!pool && na > 2)
			fprintf(c.out, "  (all runs have one configuration: compared one by one with the "
				"first, not pooled)\n");
	}
	{
		struct jw w = { 0 };
		FILE *jf = NULL;

		if (json) {
			jf = strcmp(json, "-") ? fopen(json, "w") : stdout;
			if (!jf) {
				fprintf(stderr, "iogap compare: %s: %s\n", json, strerror(errno));
				rc = 1;
				goto out;
			}
			w.f = jf;
			c.jw = &w;
			jw_obj(&w, NULL);
			jw_int(&w, "iogap_compare", 1);
			jw_u64(&w, "bootstrap_resamples", c.nboot);
			jw_u64(&w, "seed", c.seed);
			jw_open(&w, "groups", '[');
			for (size_t k = 0; k < c.ng; k++) {
				jw_obj(&w, NULL);
				jw_str(&w, "config", c.runs[c.g[k].runs[0]].desc);
				jw_open(&w, "runs", '[');
				for (size_t i = 0; i < c.g[k].nr; i++) {
					jw_member(&w, NULL);
					jw_string(&w, c.runs[c.g[k].runs[i]].path);
				}
				jw_close(&w, ']');
				jw_end(&w);
			}
			jw_close(&w, ']');
			jw_open(&w, "comparisons", '[');
		}
		for (size_t gi = 1; gi < c.ng; gi++) {
			const struct crun *a0 = &c.runs[c.g[0].runs[0]], *b0 = &c.runs[c.g[gi].runs[0]];
			bool any = false;

			for (size_t s = 0; s < a0->ns; s++)
				for (size_t t = 0; t < b0->ns; t++)
					if (!strcmp(a0->s[s].label, b0->s[t].label)) {
						compare_pair(&c, gi, a0->s[s].label, a0->s[s].label);
						any = true;
					}
			if (!any && a0->ns == 1 && b0->ns == 1)
				compare_pair(&c, gi, a0->s[0].label, b0->s[0].label);
			else if (!any && c.out)
				fprintf(c.out, "\nB%zu has no side in common with A (labels differ)\n", gi);
		}
		if (c.jw) {
			jw_close(&w, ']');
			jw_u64(&w, "significant", c.significant);
			jw_u64(&w, "differs_within_runs", c.within_run);
			jw_u64(&w, "within_noise", c.noise);
			jw_u64(&w, "no_interval", c.none);
			jw_end(&w);
			fputc('\n', jf);
			if (jf != stdout)
				fclose(jf);
		}
	}
	if (c.out) {
		fprintf(c.out, "\nsummary: %u significant, %u differ within runs, %u within noise, "
			"%u without an interval\n", c.significant, c.within_run, c.noise, c.none);
		if (c.within_run)
			fputs("note: \"differs within runs\": the difference exceeds the variation "
			      "within these runs;\n      run-to-run variation is not measured (one run "
			      "a side): repeat each side\n      >= 3 times and compare the runs "
			      "together for a verdict.\n", c.out);
	}
out:
	for (size_t i = 0; i < c.nruns; i++)
		run_free(&c.runs[i]);
	for (size_t k = 0; k < c.ng; k++)
		free(c.g[k].runs);
	free(c.runs);
	free(c.g);
	free(args);
	return rc;
}
