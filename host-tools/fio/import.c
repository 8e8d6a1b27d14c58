/* SPDX-License-Identifier: MIT */
/*
 * iogap import: fio output (JSON, JSON+, normal text of fio 2.x/3.x) into
 * a run directory laid out like ours (docs/iogap-run.md): LABEL/probe.json
 * in fio's JSON schema plus manifest.json.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fio_import.h"
#include "fio.h"
#include "manifest.h"
#include "output.h"
#include "util.h"

static const char *const ddir_names[IOGAP_DDIR_NR] = { "read", "write", "trim" };
static const char *const lat_keys[3] = { "slat_ns", "clat_ns", "lat_ns" };

static void io_stat_set(struct iogap_io_stat *s, double min, double max, double mean,
			double stdev, uint64_t n)
{
	s->min_val = min > 0 ? (uint64_t)llround(min) : 0;
	s->max_val = max > 0 ? (uint64_t)llround(max) : 0;
	s->samples = n;
	s->mean = mean;
	s->S = n > 1 ? stdev * stdev * (double)(n - 1) : 0;
}

/* Per-direction block size from "(R) 4096B-4096B, (W) …" (3.x),
 * "4K-4K/4K-4K/4K-4K" (2.x) or a plain bs= option; 0 when not fixed. */
static uint64_t fixed_bs(const struct fioi_result *r, const struct fioi_job *j, int d)
{
	static const char *const tag[3] = { "(R)", "(W)", "(T)" };
	const char *p = NULL, *o = fioi_opt(r, j, "bs");
	uint64_t a, b;
	char x[32], y[32];

	if (o && !strchr(o, ',') && !strchr(o, ':') && !iogap_parse_size(o, &a))
		return a;
	if (!j->bs[0])
		return 0;
	if ((p = strstr(j->bs, tag[d]))) {
		p += 3;
	} else {
		p = j->bs;
		for (int i = 0; i < d && p; i++)
			if ((p = strchr(p, '/')))
				p++;
	}
	if (!p || sscanf(p, " %31[^-]-%31[^,/ ]", x, y) != 2)
		return 0;
	/* "4096B", "128KiB", "4K": the job parser reads fio's size syntax */
	if (x[strlen(x) - 1] == 'B' && strlen(x) > 1)
		x[strlen(x) - 1] = '\0';
	if (y[strlen(y) - 1] == 'B' && strlen(y) > 1)
		y[strlen(y) - 1] = '\0';
	if (iogap_parse_size(x, &a) || iogap_parse_size(y, &b) || a != b)
		return 0;
	return a;
}

static bool near(double a, double b, double rel)
{
	return fabs(a - b) <= fabs(b) * rel + 1.0;
}

/* IOPS, io bytes and bandwidth as fio computed them, from the exact
 * issued counts when the printed (rounded) numbers agree with them. */
static void exact_rates(const struct fioi_result *r, const struct fioi_job *j, int d,
			double *iops, uint64_t *io_bytes, uint64_t *bw)
{
	const struct fioi_dir *x = &j->dir[d];
	uint64_t bs = fixed_bs(r, j, d);

	*iops = x->iops;
	*io_bytes = x->io_bytes;
	*bw = (uint64_t)llround(x->bw_bytes);
	if (r->format == FIOI_JSON || r->format == FIOI_JSONPLUS || !x->runtime_ms)
		return;
	if (x->have_total) {
		double e = (double)x->total_ios * 1000.0 / (double)x->runtime_ms;

		if (near(e, x->iops, 0.02))
			*iops = e;
		if (bs && near((double)(x->total_ios * bs), (double)x->io_bytes, 0.02))
			*io_bytes = x->total_ios * bs;
	}
	if (near((double)(1000 * *io_bytes / x->runtime_ms), x->bw_bytes, 0.03))
		*bw = 1000 * *io_bytes / x->runtime_ms;
}

static void fill_stat(const struct fioi_result *r, const struct fioi_job *j,
		      struct iogap_job_stat *st, struct iogap_job *job)
{
	uint64_t issued = 0, run_ms = 0;
	bool pct_set = false;

	snprintf(st->name, sizeof(st->name), "%s", j->name);
	snprintf(st->description, sizeof(st->description), "%s", j->description);
	st->groupid = j->groupid > 0 ? (unsigned)j->groupid : 0;
	st->members = j->members > 0 ? (unsigned)j->members : 1;
	st->error = j->error;
	st->pid = j->pid;
	for (int d = 0; d < IOGAP_DDIR_NR; d++) {
		const struct fioi_dir *x = &j->dir[d];
		struct iogap_ddir_stat *ds = &st->dir[d];
		double iops;
		uint64_t bw;

		if (!x->have)
			continue;
		exact_rates(r, j, d, &iops, &ds->io_bytes, &bw);
		ds->total_io_u = x->total_ios;
		ds->short_io_u = x->short_ios;
		ds->drop_io_u = x->drop_ios;
		ds->runtime_ms = x->runtime_ms;
		ds->zone_resets = x->zone_resets;
		issued += x->total_ios;
		if (x->runtime_ms > run_ms)
			run_ms = x->runtime_ms;
		for (int k = 0; k < 3; k++) {
			const struct fioi_lat *l = &x->lat[k];

			if (l->have)
				io_stat_set(&ds->lat[k], l->min, l->max, l->mean, l->stdev,
					    l->n ? l->n : x->total_ios);
			for (size_t b = 0; b < x->bins_nr[k]; b++)
				ds->plat[k][iogap_plat_val_to_idx(x->bins[k][b].ns)] +=
					x->bins[k][b].count;
			if (x->pct_nr[k]) {
				if (k == 0)
					st->slat_percentiles = true;
				else if (k == 1)
					st->clat_percentiles = true;
				else
					st->lat_percentiles = true;
				if (!pct_set) {
					unsigned n = x->pct_nr[k] < IOGAP_MAX_PERCENTILES ?
						     x->pct_nr[k] : IOGAP_MAX_PERCENTILES;

					for (unsigned i = 0; i < n; i++)
						st->percentile_list[i] = x->pct[k][i].p;
					st->percentile_nr = n;
					pct_set = true;
				}
			}
		}
		if (x->bw.have)
			io_stat_set(&ds->bw, x->bw.min, x->bw.max, x->bw.mean, x->bw.stdev,
				    x->bw.samples ? x->bw.samples : 1);
		if (x->iops_s.have)
			io_stat_set(&ds->iops, x->iops_s.min, x->iops_s.max, x->iops_s.mean,
				    x->iops_s.stdev, x->iops_s.samples ? x->iops_s.samples : 1);
	}
	st->total_run_time_ms = j->job_runtime_ms ? j->job_runtime_ms : run_ms;
	st->usr_time_us = (uint64_t)llround(j->usr_cpu * (double)st->total_run_time_ms * 10);
	st->sys_time_us = (uint64_t)llround(j->sys_cpu * (double)st->total_run_time_ms * 10);
	st->ctx = j->ctx;
	st->majf = j->majf;
	st->minf = j->minf;
	for (int i = 0; i < 7; i++) {
		st->io_u_map[i] = (uint64_t)llround(j->depth[i] * (double)issued / 100);
		st->io_u_submit[i] = (uint64_t)llround(j->submit[i] * 10);
		st->io_u_complete[i] = (uint64_t)llround(j->complete[i] * 10);
		st->total_submit += st->io_u_submit[i];
		st->total_complete += st->io_u_complete[i];
	}
	for (int i = 0; i < 10; i++) {
		st->io_u_lat_n[i] = (uint64_t)llround(j->lat_n[i] * (double)issued / 100);
		st->io_u_lat_u[i] = (uint64_t)llround(j->lat_u[i] * (double)issued / 100);
	}
	for (int i = 0; i < 12; i++)
		st->io_u_lat_m[i] = (uint64_t)llround(j->lat_m[i] * (double)issued / 100);
	snprintf(st->ioengine, sizeof(st->ioengine), "%s", j->ioengine);
	st->iodepth = j->iodepth;
	job->kv = j->opts;
	job->kv_nr = j->opts_nr;
	job->name = (char *)j->name;
	st->job = job;
}

/* Source members win; objects merge recursively. */
static void merge(struct jp_value *dst, const struct jp_value *src)
{
	for (size_t i = 0; i < src->n; i++) {
		const struct jp_member *m = &src->members[i];
		struct jp_value *d = jp_get(dst, m->key);

		if (m->val.type == JP_OBJECT && d && d->type == JP_OBJECT)
			merge(d, &m->val);
		else
			jp_set_value(dst, m->key, &m->val);
	}
}

static void set_map(struct jp_value *job, const char *key, const char *const *keys,
		    const double *v, unsigned nr)
{
	struct jp_value *o = jp_obj_child(job, key);

	for (unsigned i = 0; o && i < nr; i++)
		jp_set_double(o, keys[i], v[i]);
}

/* The values a text paste states, exactly as stated. */
static void text_overlay(const struct fioi_result *r, const struct fioi_job *j,
			 struct jp_value *g)
{
	static const char *const depth_keys[] = { "1", "2", "4", "8", "16", "32", ">=64" };
	static const char *const batch_keys[] = { "0", "4", "8", "16", "32", "64", ">=64" };
	static const char *const lat_b[] = { "2", "4", "10", "20", "50", "100", "250", "500",
					     "750", "1000", "2000", ">=2000" };

	for (int d = 0; d < IOGAP_DDIR_NR; d++) {
		const struct fioi_dir *x = &j->dir[d];
		struct jp_value *o = jp_get(g, ddir_names[d]);
		uint64_t io, bw;
		double iops;

		if (!x->have || !o)
			continue;
		exact_rates(r, j, d, &iops, &io, &bw);
		jp_set_u64(o, "io_bytes", io);
		jp_set_u64(o, "io_kbytes", io >> 10);
		jp_set_u64(o, "bw_bytes", bw);
		jp_set_u64(o, "bw", bw / 1024);
		jp_set_double(o, "iops", iops);
		for (int k = 0; k < 3; k++) {
			const struct fioi_lat *l = &x->lat[k];
			struct jp_value *lo = jp_get(o, lat_keys[k]);

			if (!lo)
				continue;
			if (l->have) {
				jp_set_u64(lo, "min", (uint64_t)llround(l->min));
				jp_set_u64(lo, "max", (uint64_t)llround(l->max));
				jp_set_double(lo, "mean", l->mean);
				jp_set_double(lo, "stddev", l->stdev);
			}
			jp_remove(lo, "percentile");
			if (x->pct_nr[k]) {
				struct jp_value *p = jp_obj_child(lo, "percentile");
				char key[32];

				for (unsigned i = 0; p && i < x->pct_nr[k]; i++) {
					snprintf(key, sizeof(key), "%f", x->pct[k][i].p);
					jp_set_u64(p, key, x->pct[k][i].ns);
				}
			}
		}
		if (x->bw.have) {
			jp_set_u64(o, "bw_min", (uint64_t)llround(x->bw.min));
			jp_set_u64(o, "bw_max", (uint64_t)llround(x->bw.max));
			jp_set_double(o, "bw_agg", x->bw.agg_pct);
			jp_set_double(o, "bw_mean", x->bw.mean);
			jp_set_double(o, "bw_dev", x->bw.stdev);
			jp_set_u64(o, "bw_samples", x->bw.samples);
		}
		if (x->iops_s.have) {
			jp_set_u64(o, "iops_min", (uint64_t)llround(x->iops_s.min));
			jp_set_u64(o, "iops_max", (uint64_t)llround(x->iops_s.max));
			jp_set_double(o, "iops_mean", x->iops_s.mean);
			jp_set_double(o, "iops_stddev", x->iops_s.stdev);
			jp_set_u64(o, "iops_samples", x->iops_s.samples);
		}
	}
	if (j->have_cpu) {
		jp_set_double(g, "usr_cpu", j->usr_cpu);
		jp_set_double(g, "sys_cpu", j->sys_cpu);
	}
	if (j->have_depth) {
		set_map(g, "iodepth_level", depth_keys, j->depth, 7);
		set_map(g, "iodepth_submit", batch_keys, j->submit, 7);
		set_map(g, "iodepth_complete", batch_keys, j->complete, 7);
	}
	if (j->have_latdist) {
		set_map(g, "latency_ns", lat_b, j->lat_n, 10);
		set_map(g, "latency_us", lat_b, j->lat_u, 10);
		set_map(g, "latency_ms", lat_b, j->lat_m, 12);
	}
}

int fioi_write_json(const struct fioi_result *r, FILE *f, char *err, size_t errlen)
{
	struct iogap_run_report rep = { 0 };
	struct iogap_job_stat *st = calloc(r->nr ? r->nr : 1, sizeof(*st));
	struct iogap_job *jobs = calloc(r->nr ? r->nr : 1, sizeof(*jobs));
	struct jp_value doc = { 0 }, *arr;
	char *buf = NULL, jerr[256];
	size_t len = 0;
	FILE *m;
	int ret = -1;

	if (!st || !jobs)
		goto out;
	for (size_t i = 0; i < r->nr; i++) {
		fill_stat(r, &r->jobs[i], &st[i], &jobs[i]);
		st[i].thread_number = (unsigned)i + 1;
	}
	rep.stats = st;
	rep.nr = r->nr;
	rep.version = r->version;
	rep.timestamp = (time_t)r->timestamp;
	rep.global_kv = r->global_opts;
	rep.global_kv_nr = r->global_nr;
	if (iogap_group_stats_compute(&rep))
		goto out;
	m = open_memstream(&buf, &len);
	if (!m)
		goto out;
	iogap_output_json(m, &rep, r->format == FIOI_JSONPLUS);
	if (fclose(m))
		goto out;
	if (jp_parse(buf, len, false, &doc, NULL, jerr, sizeof(jerr))) {
		snprintf(err, errlen, "internal: our JSON does not parse: %s", jerr);
		goto out;
	}
	arr = jp_get(&doc, "jobs");
	if (r->format == FIOI_JSON || r->format == FIOI_JSONPLUS) {
		const struct jp_value *sj = jp_get(&r->doc, "jobs");

		for (size_t i = 0; i < r->doc.n; i++)
			if (strcmp(r->doc.members[i].key, "jobs"))
				jp_set_value(&doc, r->doc.members[i].key, &r->doc.members[i].val);
		arr = jp_get(&doc, "jobs");    /* the members moved */
		for (size_t i = 0; arr && sj && i < arr->n && i < sj->n; i++)
			merge(&arr->items[i], &sj->items[i]);
	} else {
		for (size_t i = 0; arr && i < arr->n && i < r->nr; i++)
			text_overlay(r, &r->jobs[i], &arr->items[i]);
		/* the text showed all options only with a plain command line */
		jp_set_u64(&doc, "iogap_options_complete", r->opts_complete);
	}
	jp_write(f, &doc);
	ret = ferror(f) ? -1 : 0;
	if (ret)
		snprintf(err, errlen, "write error");
out:
	if (ret && err && !*err)
		snprintf(err, errlen, "out of memory");
	jp_free(&doc);
	free(buf);
	free(rep.groups);
	free(st);
	free(jobs);
	return ret;
}

/* ---- the command -------------------------------------------------------- */

static bool label_ok(const char *l)
{
	if (!*l || !strcmp(l, ".") || !strcmp(l, "..") || strlen(l) > 64)
		return false;
	for (const char *p = l; *p; p++)
		if (!(isalnum((unsigned char)*p) || *p == '-' || *p == '_' || *p == '.'))
			return false;
	return true;
}

static int write_text(const char *path, const char *text, size_t len)
{
	FILE *f = fopen(path, "wb");
	int ret = 0;

	if (!f)
		return -1;
	if (fwrite(text, 1, len, f) != len)
		ret = -1;
	if (fclose(f))
		ret = -1;
	return ret;
}

static void usage(FILE *f)
{
	fputs("usage: iogap import [--dir RUN_DIR] [--label vm|bare|NAME] FILE [[--label L] FILE]...\n"
	      "  fio output (JSON, JSON+, normal text of fio 2.x/3.x as pasted) into\n"
	      "  RUN_DIR/LABEL/probe.json (fio JSON schema) and RUN_DIR/manifest.json.\n"
	      "  --label applies to the files after it; default: the file name without\n"
	      "  extension.  RUN_DIR defaults to ./iogap-import.\n", f);
}

/* One fio output (a file's text, or one run of a paste) into dir/label. */
static int import_one(const char *dir, const char *file, const char *src, size_t srclen,
		      const char *label, const char *cmd)
{
	struct fioi_result r;
	char err[1024] = "", path[8192], mpath[8192];
	struct jp_value man = { 0 }, *ph, *imp, rec = { 0 };
	FILE *f;
	int ret = 1;

	if (fioi_parse_buf(file, src, srclen, &r, err, sizeof(err))) {
		fprintf(stderr, "iogap import: %s\n", err);
		return 1;
	}
	snprintf(path, sizeof(path), "%s/%s", dir, label);
	if (mkdir(path, 0755) && errno != EEXIST) {
		fprintf(stderr, "iogap import: %s: %s\n", path, strerror(errno));
		goto out;
	}
	snprintf(path, sizeof(path), "%s/%s/probe.json", dir, label);
	f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "iogap import: %s: %s\n", path, strerror(errno));
		goto out;
	}
	if (fioi_write_json(&r, f, err, sizeof(err))) {
		fclose(f);
		fprintf(stderr, "iogap import: %s: %s\n", path, err);
		goto out;
	}
	if (fclose(f)) {
		fprintf(stderr, "iogap import: %s: %s\n", path, strerror(errno));
		goto out;
	}
	/* the source as given, and for text the fio-style report */
	snprintf(path, sizeof(path), "%s/%s/source.%s", dir, label,
		 r.format == FIOI_TEXT2 || r.format == FIOI_TEXT3 ? "txt" : "json");
	if (write_text(path, src, srclen))
		fprintf(stderr, "iogap import: warning: cannot copy %s to %s\n", file, path);
	if (r.format == FIOI_TEXT2 || r.format == FIOI_TEXT3) {
		snprintf(path, sizeof(path), "%s/%s/probe.txt", dir, label);
		write_text(path, src, srclen);
	}

	/* manifest: kept and updated when the directory has one */
	snprintf(mpath, sizeof(mpath), "%s/" IOGAP_MANIFEST_FILE, dir);
	if (!access(mpath, F_OK)) {
		if (iogap_json_load(mpath, &man, err, sizeof(err))) {
			fprintf(stderr, "iogap import: %s\n", err);
			goto out;
		}
	} else {
		man.type = JP_OBJECT;
		jp_set_string(&man, "iogap", IOGAP_VERSION);
		jp_set_string(&man, "command", cmd);
	}
	if (man.type != JP_OBJECT) {
		fprintf(stderr, "iogap import: %s: not a JSON object\n", mpath);
		goto out;
	}
	rec.type = JP_OBJECT;
	jp_set_string(&rec, "source", file);
	jp_set_string(&rec, "format", fioi_format_name(r.format));
	jp_set_string(&rec, "fio_version", r.version);
	jp_set_string(&rec, "label", label);
	if (r.cmdline)
		jp_set_string(&rec, "fio_command", r.cmdline);
	jp_set_value(&man, "imported", &rec);
	ph = jp_obj_child(&man, "phases");
	ph = jp_obj_child(ph, label);
	jp_set_string(ph, "status", "ok");
	jp_set_string(ph, "message", "imported from fio output");
	imp = ph;
	jp_set_value(imp, "imported", &rec);
	f = fopen(mpath, "w");
	if (!f) {
		fprintf(stderr, "iogap import: %s: %s\n", mpath, strerror(errno));
		goto out;
	}
	jp_write(f, &man);
	if (fclose(f)) {
		fprintf(stderr, "iogap import: %s: %s\n", mpath, strerror(errno));
		goto out;
	}
	printf("%s: %s, %s, %zu job%s -> %s/%s/probe.json\n", file, fioi_format_name(r.format),
	       r.version[0] ? r.version : "fio version unknown", r.nr, r.nr == 1 ? "" : "s",
	       dir, label);
	ret = 0;
out:
	jp_free(&man);
	jp_free(&rec);
	fioi_free(&r);
	return ret;
}

/* A file: one fio output, or a paste of several ("name line, then fio's
 * output", again), each run into its own label: the name line's (prefixed
 * "LABEL-" when --label was given), made unique with "-2", "-3"... */
static int import_file(const char *dir, const char *file, const char *label, bool given,
		       const char *cmd)
{
	struct fioi_segment *segs = NULL;
	size_t len, nseg = 0;
	char err[4096], (*names)[140] = NULL;
	char *text = iogap_input_read(file, IOGAP_INPUT_MAX, &len, err, sizeof(err));
	int ret = 1;

	if (!text) {
		fprintf(stderr, "iogap import: %s\n", err);
		return 1;
	}
	if (fioi_split_runs(text, len, &segs, &nseg) || nseg < 2) {
		ret = import_one(dir, file, text, len, label, cmd);
		goto out;
	}
	if (!(names = calloc(nseg, sizeof(*names))))
		goto out;
	for (size_t i = 0; i < nseg; i++) {
		unsigned same = 1;
		char name[140];

		snprintf(name, sizeof(name), "%s%s%s", given ? label : "", given ? "-" : "",
			 segs[i].label);
		for (size_t k = 0; k < i; k++)
			same += !strcmp(segs[k].label, segs[i].label);
		if (same > 1)
			snprintf(names[i], sizeof(names[i]), "%.120s-%u", name, same);
		else
			snprintf(names[i], sizeof(names[i]), "%s", name);
		if (!label_ok(names[i])) {
			fprintf(stderr, "iogap import: %s: run %zu: bad label '%s'\n", file, i + 1,
				names[i]);
			goto out;
		}
	}
	for (size_t i = 0; i < nseg; i++)
		if (import_one(dir, file, text + segs[i].off, segs[i].len, names[i], cmd))
			goto out;
	ret = 0;
out:
	free(names);
	free(segs);
	free(text);
	return ret;
}

int iogap_cmd_import(int argc, char **argv)
{
	const char *dir = "iogap-import", *label = NULL;
	const char *files[256], *labels[256];
	bool label_given[256];
	char cmd[4096] = "iogap", def[256][80];
	size_t nf = 0, off = strlen(cmd);

	for (int i = 0; i < argc; i++)
		off += (size_t)snprintf(cmd + (off < sizeof(cmd) ? off : sizeof(cmd) - 1),
					off < sizeof(cmd) ? sizeof(cmd) - off : 1, " %s", argv[i]);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(argv[i], "--dir") && i + 1 < argc) {
			dir = argv[++i];
		} else if (!strncmp(argv[i], "--dir=", 6)) {
			dir = argv[i] + 6;
		} else if (!strcmp(argv[i], "--label") && i + 1 < argc) {
			label = argv[++i];
		} else if (!strncmp(argv[i], "--label=", 8)) {
			label = argv[i] + 8;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(stderr, "iogap import: unknown option %s\n", argv[i]);
			usage(stderr);
			return 2;
		} else if (nf < 256) {
			files[nf] = argv[i];
			label_given[nf] = label != NULL;
			if (!label) {
				const char *b = strrchr(argv[i], '/');
				char *dot;

				snprintf(def[nf], sizeof(def[nf]), "%s", b ? b + 1 : argv[i]);
				dot = strrchr(def[nf], '.');
				if (dot && dot != def[nf])
					*dot = '\0';
				labels[nf] = def[nf];
			} else {
				labels[nf] = label;
			}
			nf++;
		}
	}
	if (!nf) {
		usage(stderr);
		return 2;
	}
	for (size_t i = 0; i < nf; i++) {
		if (!label_ok(labels[i])) {
			fprintf(stderr, "iogap import: bad label '%s' (letters, digits, '-', '_', "
				"'.')\n", labels[i]);
			return 2;
		}
		for (size_t k = 0; k < i; k++)
			if (!strcmp(labels[k], labels[i])) {
				fprintf(stderr, "iogap import: %s and %s both go to label '%s': "
					"give each its own --label\n", files[k], files[i], labels[i]);
				return 2;
			}
	}
	if (mkdir(dir, 0755) && errno != EEXIST) {
		fprintf(stderr, "iogap import: %s: %s\n", dir, strerror(errno));
		return 1;
	}
	for (size_t i = 0; i < nf; i++)
		if (import_file(dir, files[i], labels[i], label_given[i], cmd))
			return 1;
	return 0;
}
