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
#include "util.h"
#include "json_parse.h"
#include "json_writer.h"
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

void iogap_cmp_boot_mean_diff(const double *a, size_t na, const double *b, size_t nb,
			      unsigned nboot, uint64_t seed, double *lo, double *hi)
{
	double *d = malloc(nboot * sizeof(*d));
	uint64_t rng = seed;

	*lo = *hi = NAN;
	if (!d || !na || !nb) {
		free(d);
		return;
	}
	for (unsigned r = 0; r < nboot; r++) {
		double sa = 0, sb = 0;

		for (size_t i = 0; i < na; i++)
			sa += a[iogap_cmp_rand(&rng) % na];
		for (size_t i = 0; i < nb; i++)
			sb += b[iogap_cmp_rand(&rng) % nb];
		d[r] = sb / (double)nb - sa / (double)na;
	}
	*lo = iogap_cmp_quantile(d, nboot, 0.025);
	*hi = iogap_cmp_quantile(d, nboot, 0.975);
	free(d);
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
			x = hist_stat(ha, p);
			y = hist_stat(hb, p);
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

/* A block of consecutive seconds (one second unless the run is long). */
struct csec {
	uint64_t n, bytes;
	double clat_sum, lat_sum;
	uint32_t secs;
};

#define MAX_BLOCKS 300

enum { M_IOPS, M_BW, M_CLAT_MEAN, M_LAT_MEAN, M_CLAT_P50, M_CLAT_P99, M_NR };
static const char *const metric_key[M_NR] = { "iops", "bw_bytes", "clat_mean_ns", "lat_mean_ns",
					      "clat_p50_ns", "clat_p99_ns" };
static const char *const metric_label[M_NR] = { "IOPS", "BW (KiB/s)", "clat mean (us)",
						"lat mean (us)", "clat p50 (us)", "clat p99 (us)" };
/* higher is better? (for the words only) */
static const bool metric_higher_better[M_NR] = { true, true, false, false, false, false };
static const char *const dir_key[2] = { "read", "write" };

struct cdir {
	bool have;
	double v[M_NR];                 /* fio's values (NAN when absent) */
	double clat_sd, lat_sd;
	uint64_t clat_n, lat_n;
	double iops_sd, bw_sd;          /* fio's per-window samples */
	uint64_t iops_samples, bw_samples;
	uint64_t *hist;                 /* clat, fio buckets: trace or json+ bins */
	struct csec *sec;               /* per second, from the trace */
	size_t nsec;
};

struct cjob {
	char name[128];
	struct cdir d[2];
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

static int parse_json_file(const char *path, struct jp_value *v, char *err, size_t errlen)
{
	size_t len;
	char *t = iogap_read_file(path, 0, &len), perr[256];

	if (!t) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (jp_parse(t, len, false, v, NULL, perr, sizeof(perr))) {
		snprintf(err, errlen, "%s: %s", path, perr);
		free(t);
		return -1;
	}
	free(t);
	return 0;
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
		for (int m = 0; m < M_NR; m++)
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
static int add_fio_dir(struct cdir *d, const struct jp_value *dj)
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
		d->v[M_IOPS] = iops;
		d->v[M_BW] = bw;
		d->v[M_CLAT_MEAN] = jp_num(jp_get(clat, "mean"), NAN);
		d->v[M_LAT_MEAN] = jp_num(jp_get(lat, "mean"), NAN);
		d->v[M_CLAT_P50] = pct_of(jp_get(clat, "percentile"), 50.0);
		d->v[M_CLAT_P99] = pct_of(jp_get(clat, "percentile"), 99.0);
		d->clat_sd = jp_num(jp_get(clat, "stddev"), NAN);
		d->lat_sd = jp_num(jp_get(lat, "stddev"), NAN);
		d->clat_n = cn;
		d->lat_n = ln;
		d->iops_sd = jp_num(jp_get(dj, "iops_stddev"), NAN);
		d->iops_samples = jp_u64(jp_get(dj, "iops_samples"), 0);
		d->bw_sd = jp_num(jp_get(dj, "bw_dev"), NAN) * 1024.0;
		d->bw_samples = jp_u64(jp_get(dj, "bw_samples"), 0);
	} else {
		double cm = jp_num(jp_get(clat, "mean"), NAN), lm = jp_num(jp_get(lat, "mean"), NAN);

		d->v[M_IOPS] += iops;
		d->v[M_BW] += bw;
		if (d->clat_n + cn)
			d->v[M_CLAT_MEAN] = (d->v[M_CLAT_MEAN] * (double)d->clat_n + cm * (double)cn) /
					    (double)(d->clat_n + cn);
		if (d->lat_n + ln)
			d->v[M_LAT_MEAN] = (d->v[M_LAT_MEAN] * (double)d->lat_n + lm * (double)ln) /
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

static int load_probe_json(struct cside *s, const char *path, char *err, size_t errlen)
{
	struct jp_value v;
	const struct jp_value *jobs;
	int rc = 0;

	if (parse_json_file(path, &v, err, errlen))
		return -1;
	jobs = jp_get(&v, "jobs");
	if (!jobs || jobs->type != JP_ARRAY) {
		snprintf(err, errlen, "%s: no \"jobs\" array (not fio JSON output)", path);
		jp_free(&v);
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
	jp_free(&v);
	return rc;
}

/* per job-index accumulation while reading a trace */
struct tacc {
	char name[128];
	uint64_t *hist[2];
	struct csec *sec[2];
	size_t nsec[2], cap[2];
};

static int sec_add(struct tacc *t, int d, uint64_t k, const struct iogap_trace_record *r)
{
	struct csec *s;

	if (k > 10u * 86400u)
		k = 10u * 86400u;
	if (k >= t->cap[d]) {
		size_t cap = t->cap[d] ? t->cap[d] : 16;
		struct csec *n;

		while (cap <= k)
			cap *= 2;
		n = realloc(t->sec[d], cap * sizeof(*n));
		if (!n)
			return -1;
		memset(n + t->cap[d], 0, (cap - t->cap[d]) * sizeof(*n));
		t->sec[d] = n;
		t->cap[d] = cap;
	}
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
static void sec_finish(struct csec *s, size_t *n)
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
		struct csec blk = { 0 };

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
	size_t nacc = 0;
	uint64_t t0;
	const char *info;
	int got, rc = 0;

	if (!r)
		return -1;
	t0 = iogap_trace_reader_header(r)->start_ns;
	info = iogap_trace_reader_info(r);
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
			for (size_t j = nacc; j <= rec.job; j++) {
				char key[40];
				const char *p;
				size_t kl = (size_t)snprintf(key, sizeof(key), "job.%zu=name=", j);

				snprintf(n[j].name, sizeof(n[j].name), "job%zu", j);
				for (p = info; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
					if (!strncmp(p, key, kl)) {
						const char *v = p + kl, *e = strstr(v, " rw="),
							   *nl = strchr(v, '\n');

						if (!e || (nl && e > nl))
							e = nl ? nl : v + strlen(v);
						snprintf(n[j].name, sizeof(n[j].name), "%.*s", (int)(e - v), v);
						break;
					}
			}
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
	else if (rc)
		snprintf(err, errlen, "out of memory");
	iogap_trace_reader_close(r);
	/* hand over to the jobs of the same name (JSON entries) */
	for (size_t j = 0; j < nacc && !rc; j++) {
		struct cjob *cj = job_get(s, acc[j].name);

		for (int d = 0; d < 2 && cj; d++) {
			struct cdir *cd = &cj->d[d];

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
	if (load_probe_json(s, json, err, errlen))
		return -1;
	if (trace && is_file(trace) && load_trace(s, trace, err, errlen))
		return -1;
	return 0;
}

/* The configuration: what ran and against what, not when or where. */
static void run_key(struct crun *run, const char *rundir, const char *first_json)
{
	static const char *const fields[] = { "target/spec", "target/format", "vm/accel",
		"vm/machine", "vm/smp", "vm/memory_mb", "vm/cache", "vm/aio", "vm/iothread",
		"vm/inject_delay_ns", NULL };
	char path[PATH_MAX + 32], err[256];
	struct jp_value m;
	uint64_t h = 0;
	size_t dl = 0;
	bool jobfiles = false;

	run->desc[0] = 0;
	snprintf(path, sizeof(path), "%s/manifest.json", rundir);
	if (rundir[0] && is_file(path) && !parse_json_file(path, &m, err, sizeof(err))) {
		for (int i = 0; fields[i]; i++) {
			const struct jp_value *v = jp_path(&m, fields[i]);
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
		jp_free(&m);
	}
	for (int i = 0; i < 64; i++) {
		size_t len;
		char *t;

		snprintf(path, sizeof(path), "%s/job%d.fio", rundir, i);
		if (!rundir[0] || !(t = iogap_read_file(path, 0, &len)))
			break;
		h = fnv(h, t, len);
		free(t);
		jobfiles = true;
	}
	if (!jobfiles && first_json) {
		/* imported: the job options fio printed */
		struct jp_value v;

		if (!parse_json_file(first_json, &v, err, sizeof(err))) {
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
				int ri = !strcmp(names[i], "vm") ? 0 : !strcmp(names[i], "bare") ? 1 : 2;
				int rj = !strcmp(names[j], "vm") ? 0 : !strcmp(names[j], "bare") ? 1 : 2;

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
	run_key(run, rundir, first[0] ? first : NULL);
	return 0;
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
static const struct cdir *find_dir(const struct crun *run, const char *label, const char *job, int d)
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

static double sec_stat(int m, uint64_t n, uint64_t bytes, double cs, double ls, uint64_t secs)
{
	switch (m) {
	case M_IOPS: return secs ? (double)n / (double)secs : NAN;
	case M_BW: return secs ? (double)bytes / (double)secs : NAN;
	case M_CLAT_MEAN: return n ? cs / (double)n : NAN;
	case M_LAT_MEAN: return n ? ls / (double)n : NAN;
	}
	return NAN;
}

/* statistic over all blocks of all runs, or a replicate (rng != NULL):
 * runs resampled when several, blocks resampled within each */
static double sec_group(const struct cdir *const *c, size_t nc, int m, uint64_t *rng)
{
	uint64_t n = 0, bytes = 0, secs = 0;
	double cs = 0, ls = 0;

	for (size_t k = 0; k < nc; k++) {
		const struct cdir *d = c[rng && nc > 1 ? iogap_cmp_rand(rng) % nc : k];

		for (size_t i = 0; i < d->nsec; i++) {
			const struct csec *s = &d->sec[rng ? iogap_cmp_rand(rng) % d->nsec : i];

			n += s->n;
			bytes += s->bytes;
			cs += s->clat_sum;
			ls += s->lat_sum;
			secs += s->secs;
		}
	}
	return sec_stat(m, n, bytes, cs, ls, secs);
}

struct result {
	double a, b, diff, lo, hi;      /* lo/hi: CI of diff (NAN: none) */
	const char *method;
	char detail[64];
};

/* the group's value: fio's numbers, pooled over its runs */
static double group_value(const struct cdir *const *c, size_t nc, int m)
{
	double s = 0, w = 0;
	bool allhist = true;

	for (size_t k = 0; k < nc; k++)
		allhist &= c[k]->hist != NULL;
	if ((m == M_CLAT_P50 || m == M_CLAT_P99) && allhist && nc > 1) {
		uint64_t *h = calloc(IOGAP_PLAT_NR, sizeof(*h));
		double v;

		if (!h)
			return NAN;
		for (size_t k = 0; k < nc; k++)
			for (unsigned i = 0; i < IOGAP_PLAT_NR; i++)
				h[i] += c[k]->hist[i];
		v = hist_stat(h, m == M_CLAT_P50 ? 50.0 : 99.0);
		free(h);
		return v;
	}
	for (size_t k = 0; k < nc; k++) {
		double v = c[k]->v[m], wt = 1;

		if (isnan(v))
			return NAN;
		if (m == M_CLAT_MEAN)
			wt = (double)(c[k]->clat_n ? c[k]->clat_n : 1);
		if (m == M_LAT_MEAN)
			wt = (double)(c[k]->lat_n ? c[k]->lat_n : 1);
		s += v * wt;
		w += wt;
	}
	return w > 0 ? s / w : NAN;
}

static void compare_metric(const struct cdir *const *ca, size_t na, const struct cdir *const *cb,
			   size_t nb, int m, unsigned nboot, uint64_t seed, struct result *r)
{
	bool sec = true, hist = true;
	size_t sa = 0, sb = 0;

	memset(r, 0, sizeof(*r));
	r->a = group_value(ca, na, m);
	r->b = group_value(cb, nb, m);
	r->diff = r->b - r->a;
	r->lo = r->hi = NAN;
	r->method = "none";
	for (size_t k = 0; k < na; k++) {
		sec &= ca[k]->nsec >= 2;
		hist &= ca[k]->hist != NULL;
		sa += ca[k]->nsec;
	}
	for (size_t k = 0; k < nb; k++) {
		sec &= cb[k]->nsec >= 2;
		hist &= cb[k]->hist != NULL;
		sb += cb[k]->nsec;
	}
	if (isnan(r->a) || isnan(r->b))
		return;
	if (m <= M_LAT_MEAN && sec) {
		double *d = malloc(nboot * sizeof(*d)), dhat;
		uint64_t rng = seed;
		size_t nd = 0;

		if (!d)
			return;
		dhat = sec_group(cb, nb, m, NULL) - sec_group(ca, na, m, NULL);
		for (unsigned i = 0; i < nboot; i++) {
			double x = sec_group(ca, na, m, &rng), y = sec_group(cb, nb, m, &rng);

			if (!isnan(x) && !isnan(y))
				d[nd++] = y - x;
		}
		if (nd) {
			/* the percentile interval, moved onto fio's difference */
			r->lo = r->diff + iogap_cmp_quantile(d, nd, 0.025) - dhat;
			r->hi = r->diff + iogap_cmp_quantile(d, nd, 0.975) - dhat;
		}
		free(d);
		r->method = "per-second";
		snprintf(r->detail, sizeof(r->detail), "%zu+%zu s", sa, sb);
		return;
	}
	if ((m == M_CLAT_MEAN || m == M_CLAT_P50 || m == M_CLAT_P99) && hist) {
		double p = m == M_CLAT_MEAN ? -1 : m == M_CLAT_P50 ? 50.0 : 99.0, dhat, lo, hi;
		uint64_t *ha = calloc(IOGAP_PLAT_NR, sizeof(*ha)), *hb = calloc(IOGAP_PLAT_NR, sizeof(*hb));
		uint64_t **ra = calloc(na, sizeof(*ra)), **rb = calloc(nb, sizeof(*rb));
		uint64_t n1 = 0, n2 = 0;

		if (ha && hb && ra && rb) {
			for (size_t k = 0; k < na; k++) {
				ra[k] = ca[k]->hist;
				for (unsigned i = 0; i < IOGAP_PLAT_NR; i++)
					ha[i] += ca[k]->hist[i];
			}
			for (size_t k = 0; k < nb; k++) {
				rb[k] = cb[k]->hist;
				for (unsigned i = 0; i < IOGAP_PLAT_NR; i++)
					hb[i] += cb[k]->hist[i];
			}
			for (unsigned i = 0; i < IOGAP_PLAT_NR; i++) {
				n1 += ha[i];
				n2 += hb[i];
			}
			dhat = hist_stat(hb, p) - hist_stat(ha, p);
			boot_hist_runs(ra, na, rb, nb, p, nboot / 2 ? nboot / 2 : 1, seed, &lo, &hi);
			r->lo = r->diff + lo - dhat;
			r->hi = r->diff + hi - dhat;
			r->method = "per-request (histogram)";
			snprintf(r->detail, sizeof(r->detail), "%" PRIu64 "+%" PRIu64 " req", n1, n2);
		}
		free(ha);
		free(hb);
		free(ra);
		free(rb);
		if (!isnan(r->lo))
			return;
	}
	if (na >= 2 && nb >= 2) {
		double *a = malloc(na * sizeof(*a)), *b = malloc(nb * sizeof(*b)), lo, hi;

		if (a && b) {
			double ma = 0, mb = 0;

			for (size_t k = 0; k < na; k++)
				ma += (a[k] = ca[k]->v[m]) / (double)na;
			for (size_t k = 0; k < nb; k++)
				mb += (b[k] = cb[k]->v[m]) / (double)nb;
			iogap_cmp_boot_mean_diff(a, na, b, nb, nboot, seed, &lo, &hi);
			r->lo = r->diff + lo - (mb - ma);
			r->hi = r->diff + hi - (mb - ma);
			r->method = "repeated runs";
			snprintf(r->detail, sizeof(r->detail), "%zu+%zu runs", na, nb);
		}
		free(a);
		free(b);
		return;
	}
	if (na == 1 && nb == 1) {
		/* analytic, from fio's own spread */
		const struct cdir *x = ca[0], *y = cb[0];
		double sx = NAN, sy = NAN, nx = 0, ny = 0;

		if (m == M_CLAT_MEAN || m == M_LAT_MEAN) {
			sx = m == M_CLAT_MEAN ? x->clat_sd : x->lat_sd;
			sy = m == M_CLAT_MEAN ? y->clat_sd : y->lat_sd;
			nx = (double)(m == M_CLAT_MEAN ? x->clat_n : x->lat_n);
			ny = (double)(m == M_CLAT_MEAN ? y->clat_n : y->lat_n);
			r->method = "normal (fio mean/stddev/N)";
		} else if (m == M_IOPS || m == M_BW) {
			sx = m == M_IOPS ? x->iops_sd : x->bw_sd;
			sy = m == M_IOPS ? y->iops_sd : y->bw_sd;
			nx = (double)(m == M_IOPS ? x->iops_samples : x->bw_samples);
			ny = (double)(m == M_IOPS ? y->iops_samples : y->bw_samples);
			r->method = "normal (fio per-window samples)";
		}
		/* fewer than 5 samples a side, or no spread at all: no interval */
		if (!isnan(sx) && !isnan(sy) && nx >= 5 && ny >= 5 && sx + sy > 0) {
			double se = sqrt(sx * sx / nx + sy * sy / ny);

			r->lo = r->diff - 1.96 * se;
			r->hi = r->diff + 1.96 * se;
			snprintf(r->detail, sizeof(r->detail), "%.0f+%.0f", nx, ny);
		} else {
			r->method = "none";
		}
	}
}

static const char *verdict_of(const struct result *r)
{
	if (isnan(r->lo) || isnan(r->hi))
		return "no interval";
	if (r->lo > 0 || r->hi < 0)
		return "significant";
	return "within noise";
}

static double scale_of(int m)
{
	return m == M_BW ? 1.0 / 1024 : (m >= M_CLAT_MEAN ? 1e-3 : 1.0);
}

static void usage(FILE *f)
{
	fputs("usage: iogap compare RUN_A RUN_B [RUN...] [--json FILE|-] [--seed N] [--boot N]\n"
	      "                     [--no-pool]\n"
	      "  RUN: a run directory (ours or `iogap import`ed), one side of one (a directory\n"
	      "  with probe.json), or a fio JSON file.  Runs of one configuration are pooled;\n"
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
	unsigned significant, noise, none;
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
			const struct cdir **ca = calloc(A->nr, sizeof(*ca)), **cb = calloc(B->nr, sizeof(*cb));
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
				fprintf(c->out, "  %-15s %12s %12s %9s  %-21s %-32s %s\n", "metric", "A",
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
			for (int m = 0; m < M_NR; m++) {
				struct result r;
				const char *v;
				char ci[64] = "-", meth[96];
				double sc = scale_of(m);

				compare_metric(ca, A->nr, cb, B->nr, m, c->nboot,
					       c->seed ^ ((uint64_t)m << 48) ^ ((uint64_t)j << 32) ^ (uint64_t)d,
					       &r);
				if (isnan(r.a) || isnan(r.b))
					continue;
				v = verdict_of(&r);
				if (!strcmp(v, "significant"))
					c->significant++;
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
					fprintf(c->out, "  %-15s %12.2f %12.2f %9s  %-21s %-32s %s%s\n",
						metric_label[m], r.a * sc, r.b * sc, dif, ci, meth, v,
						!strcmp(v, "significant") ?
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
	if (na < 2 || c.nboot < 100 || c.nboot > 1000000) {
		usage(stderr);
		free(args);
		return 2;
	}
	c.runs = calloc(na, sizeof(*c.runs));
	c.g = calloc(na, sizeof(*c.g));
	if (!c.runs || !c.g) {
		free(args);
		return 1;
	}
	for (size_t i = 0; i < na; i++) {
		if (load_run(&c.runs[i], args[i], err, sizeof(err))) {
			fprintf(stderr, "iogap compare: %s\n", err);
			c.nruns = i + 1;
			rc = 1;
			goto out;
		}
		c.nruns = i + 1;
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
		fprintf(c.out, "iogap compare: 95%% confidence intervals of B - A (seeded bootstrap, "
			"%u resamples; docs/reports.md)\n", c.nboot);
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
			jw_u64(&w, "within_noise", c.noise);
			jw_u64(&w, "no_interval", c.none);
			jw_end(&w);
			fputc('\n', jf);
			if (jf != stdout)
				fclose(jf);
		}
	}
	if (c.out)
		fprintf(c.out, "\nsummary: %u significant, %u within noise, %u without an interval\n",
			c.significant, c.noise, c.none);
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
