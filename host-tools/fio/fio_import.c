/* SPDX-License-Identifier: MIT */
/*
 * Parsers for fio's output: JSON/JSON+ through json_parse.c, and the
 * normal text format of fio 2.x and 3.x (stat.c's show_thread_status_normal
 * and show_ddir_status in both generations) as it appears in bug reports.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util.h"
#include "fio_import.h"

static const char *const ddir_names[IOGAP_DDIR_NR] = { "read", "write", "trim" };

const char *fioi_format_name(enum fioi_format f)
{
	switch (f) {
	case FIOI_JSON: return "fio-json";
	case FIOI_JSONPLUS: return "fio-json+";
	case FIOI_TEXT2: return "fio-text-2";
	case FIOI_TEXT3: return "fio-text-3";
	}
	return "?";
}

static void copy(char *dst, size_t n, const char *src, size_t len)
{
	if (len >= n)
		len = n - 1;
	memcpy(dst, src, len);
	dst[len] = '\0';
}

/* Conversions that clamp (fuzzed or absurd input must not be UB). */
static uint64_t to_u64(double v)
{
	if (!(v > 0))
		return 0;
	if (v >= 18446744073709549568.0)
		return UINT64_MAX;
	return (uint64_t)llround(v);
}

static int to_int(double v)
{
	if (!(v > -2147483648.0))
		return v != v ? 0 : INT32_MIN;
	if (v >= 2147483647.0)
		return INT32_MAX;
	return (int)v;
}

static unsigned to_uint(double v)
{
	return v >= 4294967295.0 ? UINT32_MAX : !(v > 0) ? 0 : (unsigned)v;
}

/* ---- options ---------------------------------------------------------- */

static int kv_add(struct iogap_job_kv **kv, size_t *nr, const char *key, size_t klen,
		  const char *val, size_t vlen)
{
	struct iogap_job_kv *n = realloc(*kv, (*nr + 1) * sizeof(**kv));

	if (!n)
		return -1;
	*kv = n;
	n[*nr].key = strndup(key, klen);
	n[*nr].value = val ? strndup(val, vlen) : NULL;
	if (!n[*nr].key || (val && !n[*nr].value))
		return -1;
	(*nr)++;
	return 0;
}

static void kv_free(struct iogap_job_kv *kv, size_t nr)
{
	for (size_t i = 0; i < nr; i++) {
		free(kv[i].key);
		free(kv[i].value);
	}
	free(kv);
}

static const char *kv_get(const struct iogap_job_kv *kv, size_t nr, const char *key)
{
	const char *v = NULL;

	for (size_t i = 0; i < nr; i++)
		if (kv[i].key && !strcmp(kv[i].key, key))
			v = kv[i].value ? kv[i].value : "";
	return v;
}

const char *fioi_opt(const struct fioi_result *r, const struct fioi_job *j, const char *key)
{
	static const char *const alias[][2] = {
		{ "rw", "readwrite" }, { "bs", "blocksize" }, { "size", "filesize" },
		{ "runtime", "timeout" }, { "direct", NULL },
	};
	const char *other = NULL, *v;

	for (size_t i = 0; i < sizeof(alias) / sizeof(alias[0]); i++)
		if (!strcmp(alias[i][0], key))
			other = alias[i][1];
	if (j) {
		if ((v = kv_get(j->opts, j->opts_nr, key)))
			return v;
		if (other && (v = kv_get(j->opts, j->opts_nr, other)))
			return v;
	}
	if ((v = kv_get(r->global_opts, r->global_nr, key)))
		return v;
	if (other && (v = kv_get(r->global_opts, r->global_nr, other)))
		return v;
	return NULL;
}

/* ---- numbers ---------------------------------------------------------- */

static const char *skip_sp(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* A plain decimal (digits, one '.'), no sign, no exponent. */
static const char *decimal(const char *s, double *out)
{
	const char *p = s;
	char buf[64];
	size_t n;

	while (isdigit((unsigned char)*p))
		p++;
	if (*p == '.' && isdigit((unsigned char)p[1])) {
		p++;
		while (isdigit((unsigned char)*p))
			p++;
	}
	if (p == s || (size_t)(p - s) >= sizeof(buf))
		return NULL;
	n = (size_t)(p - s);
	memcpy(buf, s, n);
	buf[n] = '\0';
	*out = strtod(buf, NULL);
	return p;
}

static int prefix_pow(char c)
{
	switch (c) {
	case 'k': case 'K': return 1;
	case 'M': return 2;
	case 'G': return 3;
	case 'T': return 4;
	case 'P': return 5;
	case 'E': return 6;
	}
	return 0;
}

const char *fioi_num(const char *s, double *out)
{
	const char *p;
	int pw;

	s = skip_sp(s);
	p = decimal(s, out);
	if (!p)
		return NULL;
	pw = prefix_pow(*p);
	if (pw && p[1] != 'i' && p[1] != 'B' && p[1] != 'b') {
		*out *= pow(1000.0, pw);
		p++;
	}
	return p;
}

/* A size or rate: "4596MiB", "40.2MB", "7603kB", "39220KB" (fio 2.x: K/M
 * are 1024), "24.0GiB", "512B", "1.2Mibit".  Bytes; NULL when not one. */
static const char *size_val(const char *s, bool v2, double *out)
{
	const char *p;
	double m = 1;
	int pw;

	s = skip_sp(s);
	p = decimal(s, out);
	if (!p)
		return NULL;
	pw = prefix_pow(*p);
	if (pw) {
		p++;
		if (*p == 'i') {
			m = pow(1024.0, pw);
			p++;
		} else {
			m = pow(v2 ? 1024.0 : 1000.0, pw);
		}
	}
	if (!strncmp(p, "bit", 3)) {
		m /= 8;
		p += 3;
	} else if (*p == 'B') {
		p++;
	} else if (pw) {
		return NULL;
	}
	*out *= m;
	return p;
}

/* The value after "key=" where key starts at a word boundary. */
static const char *find_key(const char *s, const char *key)
{
	size_t n = strlen(key);
	const char *p = s;

	while ((p = strstr(p, key))) {
		if (p == s || !(isalnum((unsigned char)p[-1]) || p[-1] == '_'))
			return skip_sp(p + n);
		p += n;
	}
	return NULL;
}

static bool key_num(const char *s, const char *key, double *out)
{
	const char *p = find_key(s, key);

	return p && fioi_num(p, out);
}

static bool key_u64(const char *s, const char *key, uint64_t *out)
{
	double d;

	if (!key_num(s, key, &d))
		return false;
	*out = to_u64(d);
	return true;
}

/* ---- JSON ------------------------------------------------------------- */

static void opts_from_json(const struct jp_value *o, struct iogap_job_kv **kv, size_t *nr)
{
	for (size_t i = 0; o && o->type == JP_OBJECT && i < o->n; i++) {
		const struct jp_value *v = &o->members[i].val;
		const char *s = v->type == JP_STRING ? v->text : v->type == JP_NUMBER ? v->text : "";

		kv_add(kv, nr, o->members[i].key, strlen(o->members[i].key), s, strlen(s));
	}
}

static int cmp_bin(const void *a, const void *b)
{
	const struct fioi_bin *x = a, *y = b;

	return x->ns < y->ns ? -1 : x->ns > y->ns;
}

static void lat_from_json(const struct jp_value *d, const char *key_ns, const char *key_us,
			  struct fioi_dir *dd, int k, bool *plus)
{
	const struct jp_value *o = jp_get(d, key_ns), *pc;
	double scale = 1;

	if (!o) {
		o = jp_get(d, key_us);          /* fio 2.x: usec */
		scale = 1000;
	}
	if (!o || o->type != JP_OBJECT)
		return;
	dd->lat[k].have = jp_u64(jp_get(o, "N"), 1) > 0 || jp_get(o, "mean");
	dd->lat[k].min = jp_num(jp_get(o, "min"), 0) * scale;
	dd->lat[k].max = jp_num(jp_get(o, "max"), 0) * scale;
	dd->lat[k].mean = jp_num(jp_get(o, "mean"), 0) * scale;
	dd->lat[k].stdev = jp_num(jp_get(o, "stddev"), 0) * scale;
	dd->lat[k].n = jp_u64(jp_get(o, "N"), 0);
	if (!dd->lat[k].n && dd->lat[k].mean == 0 && dd->lat[k].max == 0)
		dd->lat[k].have = false;
	pc = jp_get(o, "percentile");
	for (size_t i = 0; pc && pc->type == JP_OBJECT && i < pc->n && i < FIOI_MAX_PCT; i++) {
		dd->pct[k][dd->pct_nr[k]].p = strtod(pc->members[i].key, NULL);
		dd->pct[k][dd->pct_nr[k]].ns = to_u64(jp_num(&pc->members[i].val, 0) * scale);
		dd->pct_nr[k]++;
	}
	pc = jp_get(o, "bins");
	if (pc && pc->type == JP_OBJECT && pc->n) {
		*plus = true;
		dd->bins[k] = calloc(pc->n, sizeof(struct fioi_bin));
		for (size_t i = 0; dd->bins[k] && i < pc->n; i++) {
			dd->bins[k][i].ns = strtoull(pc->members[i].key, NULL, 10);
			dd->bins[k][i].count = jp_u64(&pc->members[i].val, 0);
			dd->bins_nr[k]++;
		}
		if (dd->bins[k])
			qsort(dd->bins[k], dd->bins_nr[k], sizeof(struct fioi_bin), cmp_bin);
	}
}

static void map_from_json(const struct jp_value *o, const char *const *keys, unsigned nr,
			  double *out)
{
	for (unsigned i = 0; i < nr; i++)
		out[i] = jp_num(jp_get(o, keys[i]), 0);
}

static void facts_from_opts(struct fioi_result *r, struct fioi_job *j)
{
	const char *v;

	if (!j->rw[0] && (v = fioi_opt(r, j, "rw")))
		snprintf(j->rw, sizeof(j->rw), "%s", v);
	if (!j->bs[0] && (v = fioi_opt(r, j, "bs")))
		snprintf(j->bs, sizeof(j->bs), "%s", v);
	if (!j->ioengine[0] && (v = fioi_opt(r, j, "ioengine")))
		snprintf(j->ioengine, sizeof(j->ioengine), "%s", v);
	if (!j->iodepth && (v = fioi_opt(r, j, "iodepth")))
		j->iodepth = (unsigned)strtoul(v, NULL, 10);
}

static int parse_json(const char *name, const char *text, size_t len, size_t line0,
		      struct fioi_result *r, char *err, size_t errlen)
{
	static const char *const depth_keys[] = { "1", "2", "4", "8", "16", "32", ">=64" };
	static const char *const batch_keys[] = { "0", "4", "8", "16", "32", "64", ">=64" };
	static const char *const lat_keys[] = { "2", "4", "10", "20", "50", "100", "250", "500",
						"750", "1000", "2000", ">=2000" };
	char jerr[256];
	const struct jp_value *jobs;
	bool plus = false;
	unsigned line, col;

	if (jp_parse(text, len, true, &r->doc, NULL, jerr, sizeof(jerr))) {
		/* "line L, column C: what" relative to the JSON start */
		if (sscanf(jerr, "line %u, column %u:", &line, &col) == 2)
			return iogap_seterr(err, errlen, "%s:%zu:%u: invalid fio JSON: %s", name,
				    line0 + line - 1, col, strchr(jerr, ':') + 2);
		return iogap_seterr(err, errlen, "%s: invalid fio JSON: %s", name, jerr);
	}
	jobs = jp_get(&r->doc, "jobs");
	if (!jobs || jobs->type != JP_ARRAY)
		return iogap_seterr(err, errlen, "%s:%zu: JSON without a \"jobs\" array: not fio output",
			    name, line0);
	snprintf(r->version, sizeof(r->version), "%s",
		 jp_str(jp_get(&r->doc, "fio version")) ? jp_str(jp_get(&r->doc, "fio version")) : "");
	r->timestamp = to_int(jp_num(jp_get(&r->doc, "timestamp"), 0));
	opts_from_json(jp_get(&r->doc, "global options"), &r->global_opts, &r->global_nr);
	/* fio lists every option a job set; an import of a paste says itself */
	r->opts_complete = jp_get(&r->doc, "iogap_options_complete") ?
			   jp_num(jp_get(&r->doc, "iogap_options_complete"), 0) != 0 : true;
	if (jobs->n > FIOI_MAX_JOBS)
		return iogap_seterr(err, errlen, "%s: %zu jobs, more than the %d iogap converts (split "
				    "the output, or run fio with group_reporting)", name, jobs->n,
				    FIOI_MAX_JOBS);
	r->jobs = calloc(jobs->n ? jobs->n : 1, sizeof(*r->jobs));
	if (!r->jobs)
		return iogap_seterr(err, errlen, "%s: out of memory", name);
	for (size_t i = 0; i < jobs->n; i++) {
		const struct jp_value *o = &jobs->items[i], *d;
		struct fioi_job *j = &r->jobs[r->nr];
		const char *s;

		if (o->type != JP_OBJECT)
			return iogap_seterr(err, errlen, "%s: jobs[%zu] is not an object", name, i);
		r->nr++;
		s = jp_str(jp_get(o, "jobname"));
		snprintf(j->name, sizeof(j->name), "%s", s ? s : "");
		s = jp_str(jp_get(o, "desc"));
		snprintf(j->description, sizeof(j->description), "%s", s ? s : "");
		j->groupid = to_int(jp_num(jp_get(o, "groupid"), 0));
		j->error = to_int(jp_num(jp_get(o, "error"), 0));
		j->members = 1;
		opts_from_json(jp_get(o, "job options"), &j->opts, &j->opts_nr);
		r->opts_complete &= jp_get(o, "job options") != NULL;
		for (int dd = 0; dd < IOGAP_DDIR_NR; dd++) {
			struct fioi_dir *x = &j->dir[dd];

			d = jp_get(o, ddir_names[dd]);
			if (!d || d->type != JP_OBJECT)
				continue;
			x->runtime_ms = jp_u64(jp_get(d, "runtime"), 0);
			x->total_ios = jp_u64(jp_get(d, "total_ios"), 0);
			x->have = x->runtime_ms > 0 || x->total_ios > 0;
			x->have_total = jp_get(d, "total_ios") != NULL;
			x->short_ios = jp_u64(jp_get(d, "short_ios"), 0);
			x->drop_ios = jp_u64(jp_get(d, "drop_ios"), 0);
			x->io_bytes = jp_u64(jp_get(d, "io_bytes"), 0);
			if (!jp_get(d, "io_kbytes"))          /* fio 2.x: KiB */
				x->io_bytes *= 1024;
			x->iops = jp_num(jp_get(d, "iops"), 0);
			if (jp_get(d, "bw_bytes"))
				x->bw_bytes = jp_num(jp_get(d, "bw_bytes"), 0);
			else
				x->bw_bytes = jp_num(jp_get(d, "bw"), 0) * 1024;
			lat_from_json(d, "slat_ns", "slat", x, FIOI_SLAT, &plus);
			lat_from_json(d, "clat_ns", "clat", x, FIOI_CLAT, &plus);
			lat_from_json(d, "lat_ns", "lat", x, FIOI_LAT, &plus);
			x->bw.have = jp_get(d, "bw_samples") ? jp_u64(jp_get(d, "bw_samples"), 0) > 0
							  : jp_num(jp_get(d, "bw_mean"), 0) > 0;
			x->bw.min = jp_num(jp_get(d, "bw_min"), 0);
			x->bw.max = jp_num(jp_get(d, "bw_max"), 0);
			x->bw.mean = jp_num(jp_get(d, "bw_mean"), 0);
			x->bw.stdev = jp_num(jp_get(d, "bw_dev"), 0);
			x->bw.agg_pct = jp_num(jp_get(d, "bw_agg"), 0);
			x->bw.samples = jp_u64(jp_get(d, "bw_samples"), 0);
			x->iops_s.have = jp_u64(jp_get(d, "iops_samples"), 0) > 0;
			x->iops_s.min = jp_num(jp_get(d, "iops_min"), 0);
			x->iops_s.max = jp_num(jp_get(d, "iops_max"), 0);
			x->iops_s.mean = jp_num(jp_get(d, "iops_mean"), 0);
			x->iops_s.stdev = jp_num(jp_get(d, "iops_stddev"), 0);
			x->iops_s.samples = jp_u64(jp_get(d, "iops_samples"), 0);
		}
		j->have_cpu = jp_get(o, "usr_cpu") != NULL;
		j->usr_cpu = jp_num(jp_get(o, "usr_cpu"), 0);
		j->sys_cpu = jp_num(jp_get(o, "sys_cpu"), 0);
		j->ctx = jp_u64(jp_get(o, "ctx"), 0);
		j->majf = jp_u64(jp_get(o, "majf"), 0);
		j->minf = jp_u64(jp_get(o, "minf"), 0);
		j->job_runtime_ms = jp_u64(jp_get(o, "job_runtime"), 0);
		if ((d = jp_get(o, "iodepth_level"))) {
			j->have_depth = true;
			map_from_json(d, depth_keys, 7, j->depth);
			map_from_json(jp_get(o, "iodepth_submit"), batch_keys, 7, j->submit);
			map_from_json(jp_get(o, "iodepth_complete"), batch_keys, 7, j->complete);
		}
		if ((d = jp_get(o, "latency_us"))) {
			j->have_latdist = true;
			map_from_json(jp_get(o, "latency_ns"), lat_keys, 10, j->lat_n);
			map_from_json(d, lat_keys, 10, j->lat_u);
			map_from_json(jp_get(o, "latency_ms"), lat_keys, 12, j->lat_m);
		}
		if (jp_get(o, "latency_depth"))
			j->iodepth = to_uint(jp_num(jp_get(o, "latency_depth"), 0));
		facts_from_opts(r, j);
		if (!j->iodepth && j->opts_nr)
			j->iodepth = 1;
	}
	r->format = plus ? FIOI_JSONPLUS : FIOI_JSON;
	return 0;
}

/* ---- text ------------------------------------------------------------- */

struct tline {
	char *s;        /* trimmed, continuation lines appended */
	int line;       /* first physical line */
};

enum kind {
	K_UNKNOWN, K_CMD, K_VERSION, K_JOBHDR, K_JOBRES, K_DESC, K_DIR3, K_DIR2, K_LATSTAT,
	K_PCTHDR, K_PCTROW, K_BW, K_IOPS, K_LATDIST, K_CPU, K_DEPTH, K_SUBMIT, K_COMPLETE,
	K_ISSUED, K_LATENCY, K_ERRORS, K_SYNCHDR, K_GROUP, K_GROUPLINE, K_DISKHDR, K_DISK,
	K_JOBS, K_IGNORE, K_PRIO,
};

static bool starts(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

/* "name: (g=0): rw=" / "name: (groupid=0, jobs=1):" */
static const char *after_name(const char *s, const char *what)
{
	const char *p = strstr(s, what);

	if (!p || p - s < 2 || p[-1] != ' ' || p[-2] != ':')
		return NULL;
	return p;
}

/* A shell prompt at the start of a pasted line: "$ ", "# ", "% ", "> ",
 * "[user@host dir]# ", "user@host:~$ ".  Returns what follows, or s. */
static const char *skip_prompt(const char *s)
{
	const char *p = s;

	if (*p == '[' && strchr(p, ']'))
		p = strchr(p, ']') + 1;
	else if (strcspn(p, " \t") > 1 && strchr("#$%>", p[strcspn(p, " \t") - 1]) &&
		 p[strcspn(p, "@:")] && strcspn(p, "@:") < strcspn(p, " \t"))
		p += strcspn(p, " \t") - 1;        /* user@host:dir$ */
	if (strchr("#$%>", *p) && *p && (p[1] == ' ' || p[1] == '\t'))
		return skip_sp(p + 1);
	return s;
}

/* The words a command can hide behind: sudo [-flags], time, env, nohup,
 * VAR=value. */
static const char *skip_wrappers(const char *p)
{
	bool after_sudo = false;

	for (;;) {
		size_t w = strcspn(p, " \t");

		if (!w)
			return p;
		if ((w == 4 && !strncmp(p, "sudo", 4))) {
			after_sudo = true;
		} else if (after_sudo && p[0] == '-') {
			if (w == 2 && strchr("ugCDhpr", p[1]))
				p = skip_sp(p + w) + strcspn(skip_sp(p + w), " \t");  /* -u user */
		} else if (!((w == 4 && !strncmp(p, "time", 4)) || (w == 3 && !strncmp(p, "env", 3)) ||
			     (w == 5 && !strncmp(p, "nohup", 5)) ||
			     (memchr(p, '=', w) && (isalpha((unsigned char)p[0]) || p[0] == '_')))) {
			return p;
		}
		p = skip_sp(p + strcspn(p, " \t"));
	}
}

/* Is this pasted line fio's command line?  *off: where "fio" starts. */
static bool is_cmdline(const char *s, size_t *off)
{
	const char *p = skip_wrappers(skip_prompt(s)), *w;
	size_t n = strcspn(p, " \t");

	/* after a prompt and wrappers: a word whose basename is fio */
	for (w = p + n; w > p && w[-1] != '/'; w--)
		;
	if (p + n - w == 3 && !strncmp(w, "fio", 3)) {
		*off = (size_t)(p - s);
		return true;
	}
	/* anywhere else in the line: "fio --…" or "fio x.fio" */
	p = s;
	while ((p = strstr(p, "fio"))) {
		bool word_start = p == s || p[-1] == ' ' || p[-1] == '/' || p[-1] == '$' ||
				  p[-1] == '#' || p[-1] == '>';

		if (word_start && (p[3] == ' ') && (strstr(p, " --") || strstr(p, ".fio"))) {
			*off = (size_t)(p - s);
			return true;
		}
		p += 3;
	}
	return false;
}

static enum kind classify(const char *s, bool in_job)
{
	size_t off;

	if (!*s)
		return K_IGNORE;
	if (starts(s, "Jobs:"))
		return K_JOBS;
	if (starts(s, "fio-") && isdigit((unsigned char)s[4]))
		return K_VERSION;
	if (after_name(s, "(groupid="))
		return K_JOBRES;
	if (after_name(s, "(g="))
		return K_JOBHDR;
	if (starts(s, "Starting ") || strstr(s, ": Laying out IO file") || starts(s, "...") ||
	    starts(s, "fio: ") || starts(s, "note: ") || starts(s, "All clients:") ||
	    starts(s, "<") || strstr(s, "Laying out IO file"))
		return K_IGNORE;
	if (starts(s, "Description  :") || starts(s, "Description :"))
		return K_DESC;
	if (starts(s, "Run status group "))
		return K_GROUP;
	if (strstr(s, "Disk stats (read/write)"))
		return K_DISKHDR;
	if (strstr(s, ": ios=") && strstr(s, "merge="))
		return K_DISK;
	if (!in_job && is_cmdline(s, &off))
		return K_CMD;
	if (starts(s, "READ:") || starts(s, "WRITE:") || starts(s, "TRIM:") ||
	    starts(s, "MIXED:"))
		return K_GROUPLINE;
	for (int d = 0; d < IOGAP_DDIR_NR + 1; d++) {
		const char *n = d < IOGAP_DDIR_NR ? ddir_names[d] : "mixed";
		size_t len = strlen(n);

		if (!strncmp(s, n, len)) {
			const char *p = skip_sp(s + len);

			if (*p == ':') {
				p = skip_sp(p + 1);
				if (starts(p, "IOPS="))
					return K_DIR3;
				if (starts(p, "io="))
					return K_DIR2;
			}
		}
	}
	if (strstr(s, " prio ") && (starts(s, "clat") || starts(s, "lat") || starts(s, "slat")))
		return K_PRIO;
	if ((starts(s, "slat ") || starts(s, "clat ") || starts(s, "lat ") || starts(s, "sync ")) &&
	    strstr(s, "percentiles"))
		return K_PCTHDR;
	if (s[0] == '|')
		return K_PCTROW;
	if ((starts(s, "slat (") || starts(s, "clat (") || starts(s, "lat (") ||
	     starts(s, "sync (")) && strstr(s, "min="))
		return K_LATSTAT;
	if (starts(s, "lat (") && strchr(s, '%'))
		return K_LATDIST;
	if (starts(s, "lat (") && strchr(s, ':'))
		return K_LATDIST;   /* wrapped: the values continue below */
	if (starts(s, "bw (") || starts(s, "bw  ("))
		return K_BW;
	if (starts(s, "iops") && strchr(s, ':'))
		return K_IOPS;
	if (starts(s, "cpu") && strstr(s, "usr="))
		return K_CPU;
	if (starts(s, "cpu") && strchr(s, ':'))
		return K_CPU;
	if (starts(s, "IO depths"))
		return K_DEPTH;
	if (starts(s, "submit"))
		return K_SUBMIT;
	if (starts(s, "complete"))
		return K_COMPLETE;
	if (starts(s, "issued"))
		return K_ISSUED;
	if (starts(s, "latency") && strstr(s, "target="))
		return K_LATENCY;
	if (starts(s, "latency") && strchr(s, ':'))
		return K_LATENCY;
	if (starts(s, "errors") && strchr(s, ':'))
		return K_ERRORS;
	if (starts(s, "fsync/fdatasync"))
		return K_SYNCHDR;
	if (starts(s, "IO depths") || starts(s, "bw (") || starts(s, "slat") || starts(s, "clat"))
		return K_LATSTAT;
	return K_UNKNOWN;
}

/* Can a line of kind k be followed by a wrapped continuation? */
static bool joinable(enum kind k)
{
	return k != K_UNKNOWN && k != K_IGNORE && k != K_VERSION && k != K_JOBS &&
	       k != K_GROUP && k != K_DISKHDR && k != K_SYNCHDR;
}

struct fioi_hdr {
	char name[128], rw[32], bs[96], ioengine[32];
	int groupid;
	unsigned iodepth;
};

struct tctx {
	struct fioi_hdr *hdr;
	size_t hdr_nr;
	const char *name;
	char *err;
	size_t errlen;
	struct fioi_result *r;
	struct fioi_job *job;
	int dir;                 /* current direction of the job, -1 none */
	int pct_kind;            /* current percentile block, -1 none */
	double pct_unit;
	bool in_sync;            /* inside the fsync block: ignored */
	bool v2;
	size_t cap;
};

#define TFAIL(c, l, ...) tfail(c, (l)->line, __VA_ARGS__)

__attribute__((format(printf, 3, 4)))
static int tfail(struct tctx *c, int line, const char *fmt, ...)
{
	va_list ap;
	int o;

	if (!c->err || !c->errlen)
		return -1;
	o = snprintf(c->err, c->errlen, "%s:%d: ", c->name, line);
	if (o >= 0 && (size_t)o < c->errlen) {
		va_start(ap, fmt);
		vsnprintf(c->err + o, c->errlen - (size_t)o, fmt, ap);
		va_end(ap);
	}
	return -1;
}

static double unit_ns(const char *s, bool v2)
{
	const char *p = strchr(s, '(');

	if (p && starts(p, "(nsec)"))
		return 1;
	if (p && starts(p, "(usec)"))
		return 1e3;
	if (p && starts(p, "(msec)"))
		return 1e6;
	if (p && starts(p, "(sec)"))
		return 1e9;
	return v2 ? 1e3 : -1;
}

/* fio's job header: "name: (g=0): rw=randrw, bs=(R) 4096B-4096B, (W) …,
 * ioengine=libaio, iodepth=1" (3.x) or "bs=4K-4K/4K-4K/4K-4K" (2.x). */
static void parse_jobhdr(struct tctx *c, const struct tline *l)
{
	const char *s = l->s, *p = strstr(s, ": (g=");
	struct fioi_hdr *h, *n;
	double v;

	n = realloc(c->hdr, (c->hdr_nr + 1) * sizeof(*n));
	if (!n)
		return;
	c->hdr = n;
	h = &n[c->hdr_nr++];
	memset(h, 0, sizeof(*h));
	copy(h->name, sizeof(h->name), s, (size_t)(p - s));
	h->groupid = key_num(s, "(g=", &v) ? to_int(v) : -1;
	if ((p = find_key(s, "rw=")))
		copy(h->rw, sizeof(h->rw), p, strcspn(p, ", "));
	if ((p = find_key(s, "bs=")) || (p = find_key(s, "bs(seq/rand)="))) {
		const char *e = strstr(p, ", ioengine=");

		copy(h->bs, sizeof(h->bs), p, e ? (size_t)(e - p) : strcspn(p, " "));
	}
	if ((p = find_key(s, "ioengine=")))
		copy(h->ioengine, sizeof(h->ioengine), p, strcspn(p, ", "));
	if ((p = find_key(s, "iodepth=")))
		h->iodepth = (unsigned)strtoul(p, NULL, 10);
}

static struct fioi_job *new_result(struct tctx *c, const struct tline *l)
{
	const char *s = l->s, *p = strstr(s, ": (groupid=");
	struct fioi_job *j;
	double v;

	if (c->r->nr == c->cap) {
		struct fioi_job *n;

		c->cap = c->cap ? c->cap * 2 : 8;
		n = realloc(c->r->jobs, c->cap * sizeof(*n));
		if (!n)
			return NULL;
		c->r->jobs = n;
	}
	j = &c->r->jobs[c->r->nr++];
	memset(j, 0, sizeof(*j));
	copy(j->name, sizeof(j->name), s, (size_t)(p - s));
	j->line = l->line;
	j->groupid = key_num(s, "groupid=", &v) ? to_int(v) : 0;
	j->members = key_num(s, "jobs=", &v) ? to_int(v) : 1;
	j->error = key_num(s, "err=", &v) ? to_int(v) : 0;
	j->pid = key_num(s, "pid=", &v) ? to_int(v) : 0;
	if ((p = find_key(s, "pid="))) {
		struct tm tm;

		p = strchr(p, ':');
		memset(&tm, 0, sizeof(tm));
		if (p && strptime(skip_sp(p + 1), "%a %b %d %H:%M:%S %Y", &tm))
			c->r->timestamp = (long long)timegm(&tm);
	}
	return j;
}

/* The header facts of a result: the header of the same name (a
 * group_reporting entry carries its first job's name), else the group's
 * first header. */
static void adopt_header(struct tctx *c, struct fioi_job *j)
{
	const struct fioi_hdr *h = NULL;

	for (size_t i = 0; i < c->hdr_nr && !h; i++)
		if (!strcmp(c->hdr[i].name, j->name))
			h = &c->hdr[i];
	for (size_t i = 0; i < c->hdr_nr && !h; i++)
		if (c->hdr[i].groupid == j->groupid)
			h = &c->hdr[i];
	if (!h)
		return;
	memcpy(j->rw, h->rw, sizeof(j->rw));
	memcpy(j->bs, h->bs, sizeof(j->bs));
	memcpy(j->ioengine, h->ioengine, sizeof(j->ioengine));
	if (!j->iodepth)
		j->iodepth = h->iodepth;
}

/* "(4596MiB/120001msec)" after BW=… (…) */
static int parse_dir3(struct tctx *c, const struct tline *l, struct fioi_dir *d)
{
	const char *s = l->s, *p;
	double v;

	p = find_key(s, "IOPS=");
	if (!p || !fioi_num(p, &d->iops))
		return TFAIL(c, l, "cannot read IOPS= in \"%s\"", s);
	p = find_key(s, "BW=");
	if (!p || !(p = size_val(p, false, &d->bw_bytes)) || strncmp(p, "/s", 2))
		return TFAIL(c, l, "cannot read BW= in \"%s\"", s);
	/* the "(40.2MB/s)" alternative and then "(IO/RUNTIMEmsec)" */
	p = strchr(p, '(');
	if (p)
		p = strchr(p + 1, '(');
	if (!p || !(p = size_val(p + 1, false, &v)))
		return TFAIL(c, l, "cannot read the (io/runtime) part of \"%s\"", s);
	d->io_bytes = to_u64(v);
	p = skip_sp(p);
	if (*p != '/' || !(p = decimal(skip_sp(p + 1), &v)) || strncmp(skip_sp(p), "msec", 4))
		return TFAIL(c, l, "cannot read the runtime in \"%s\"", s);
	d->runtime_ms = to_u64(v);
	if ((p = strstr(s, "zone resets"))) {
		const char *q = strrchr(s, ';');

		if (q && fioi_num(q + 1, &v)) {
			d->zone_resets = to_u64(v);
			d->have_zone_resets = true;
		}
	}
	return 0;
}

/* fio 2.x: "read : io=4596.9MB, bw=39220KB/s, iops=9805, runt=120001msec" */
static int parse_dir2(struct tctx *c, const struct tline *l, struct fioi_dir *d)
{
	const char *s = l->s, *p;
	double v;

	p = find_key(s, "io=");
	if (!p || !size_val(p, true, &v))
		return TFAIL(c, l, "cannot read io= in \"%s\"", s);
	d->io_bytes = to_u64(v);
	p = find_key(s, "bw=");
	if (!p || !(p = size_val(p, true, &d->bw_bytes)) || strncmp(p, "/s", 2))
		return TFAIL(c, l, "cannot read bw= in \"%s\"", s);
	if (!key_num(s, "iops=", &d->iops))
		return TFAIL(c, l, "cannot read iops= in \"%s\"", s);
	p = find_key(s, "runt=");
	if (!p || !(p = decimal(skip_sp(p), &v)) || strncmp(skip_sp(p), "msec", 4))
		return TFAIL(c, l, "cannot read runt= in \"%s\"", s);
	d->runtime_ms = to_u64(v);
	return 0;
}

static int parse_latstat(struct tctx *c, const struct tline *l, struct fioi_dir *d)
{
	const char *s = l->s;
	double unit = unit_ns(s, c->v2);
	int k = starts(s, "slat") ? FIOI_SLAT : starts(s, "clat") ? FIOI_CLAT : FIOI_LAT;
	struct fioi_lat *x = &d->lat[k];

	if (unit < 0)
		return TFAIL(c, l, "no time unit (nsec/usec/msec) in \"%s\"", s);
	if (!key_num(s, "min=", &x->min) || !key_num(s, "max=", &x->max) ||
	    !key_num(s, "avg=", &x->mean) || !key_num(s, "stdev=", &x->stdev))
		return TFAIL(c, l, "expected min=, max=, avg=, stdev= in \"%s\" (truncated?)", s);
	x->min *= unit;
	x->max *= unit;
	x->mean *= unit;
	x->stdev *= unit;
	x->have = true;
	return 0;
}

static int parse_pctrow(struct tctx *c, const struct tline *l, struct fioi_dir *d)
{
	const char *p = l->s;
	int k = c->pct_kind;

	while (*p) {
		double pc, v;
		const char *q;

		while (*p == '|' || *p == ' ' || *p == ',' || *p == '\t')
			p++;
		if (!*p)
			break;
		q = decimal(p, &pc);
		if (!q || strncmp(q, "th=[", 4))
			return TFAIL(c, l, "cannot read a percentile at \"%.30s\"", p);
		q = skip_sp(q + 4);
		q = decimal(q, &v);
		if (!q || *(q = skip_sp(q)) != ']')
			return TFAIL(c, l, "cannot read a percentile value at \"%.30s\"", p);
		if (d->pct_nr[k] < FIOI_MAX_PCT) {
			d->pct[k][d->pct_nr[k]].p = pc;
			d->pct[k][d->pct_nr[k]].ns = to_u64(v * c->pct_unit);
			d->pct_nr[k]++;
		}
		p = q + 1;
	}
	return 0;
}

static int parse_bw(struct tctx *c, const struct tline *l, struct fioi_dir *d)
{
	const char *s = l->s, *u = strchr(s, '(');
	double scale = 1;      /* to KiB/s */
	char unit[16] = "";
	size_t n = 0;

	if (!u)
		return TFAIL(c, l, "no unit in \"%s\"", s);
	for (u++; *u && *u != ')' && n < sizeof(unit) - 1; u++)
		if (*u != ' ')
			unit[n++] = *u;
	unit[n] = '\0';
	if (!strcmp(unit, "KiB/s") || (c->v2 && !strcmp(unit, "KB/s")))
		scale = 1;
	else if (!strcmp(unit, "MiB/s") || (c->v2 && !strcmp(unit, "MB/s")))
		scale = 1024;
	else if (!strcmp(unit, "kB/s"))
		scale = 1000.0 / 1024;
	else if (!strcmp(unit, "MB/s"))
		scale = 1000.0 * 1000 / 1024;   /* kb_base=1000: printed /1000 */
	else if (!strcmp(unit, "Kibit/s") || (c->v2 && !strcmp(unit, "Kbit/s")))
		scale = 1.0 / 8;
	else if (!strcmp(unit, "Mibit/s") || (c->v2 && !strcmp(unit, "Mbit/s")))
		scale = 1024.0 / 8;
	else if (!strcmp(unit, "kbit/s"))
		scale = 1000.0 / 1024 / 8;
	else
		return TFAIL(c, l, "unknown bandwidth unit \"%s\"", unit);
	if (!key_num(s, "min=", &d->bw.min) || !key_num(s, "max=", &d->bw.max) ||
	    !key_num(s, "avg=", &d->bw.mean) || !key_num(s, "stdev=", &d->bw.stdev))
		return TFAIL(c, l, "expected min=, max=, avg=, stdev= in \"%s\" (truncated?)", s);
	key_num(s, "per=", &d->bw.agg_pct);
	key_u64(s, "samples=", &d->bw.samples);
	d->bw.min *= scale;
	d->bw.max *= scale;
	d->bw.mean *= scale;
	d->bw.stdev *= scale;
	d->bw.have = true;
	return 0;
}

static int parse_iops(struct tctx *c, const struct tline *l, struct fioi_dir *d)
{
	const char *s = l->s;

	if (!key_num(s, "min=", &d->iops_s.min) || !key_num(s, "max=", &d->iops_s.max) ||
	    !key_num(s, "avg=", &d->iops_s.mean) || !key_num(s, "stdev=", &d->iops_s.stdev))
		return TFAIL(c, l, "expected min=, max=, avg=, stdev= in \"%s\" (truncated?)", s);
	key_u64(s, "samples=", &d->iops_s.samples);
	d->iops_s.have = true;
	return 0;
}

/* "2=51.56%, 4=47.17%, >=2000=0.01%" into buckets named by keys */
static int parse_pctmap(struct tctx *c, const struct tline *l, const char *const *keys,
			unsigned nr, double *out)
{
	const char *p = strchr(l->s, ':');
	bool any = false;

	if (!p)
		return TFAIL(c, l, "expected ':' in \"%s\"", l->s);
	p++;
	while (*p) {
		char key[16];
		size_t n;
		double v;
		unsigned i;

		while (*p == ' ' || *p == ',')
			p++;
		if (!*p)
			break;
		n = starts(p, ">=") ? 2 + strcspn(p + 2, "=") : strcspn(p, "=");
		if (!p[n] || n >= sizeof(key))
			return TFAIL(c, l, "cannot read \"%.20s\"", p);
		copy(key, sizeof(key), p, n);
		p += n + 1;
		if (!(p = decimal(skip_sp(p), &v)) || *p != '%')
			return TFAIL(c, l, "expected a percentage after \"%s=\"", key);
		p++;
		for (i = 0; i < nr && strcmp(keys[i], key); i++)
			;
		if (i == nr)
			return TFAIL(c, l, "unknown bucket \"%s\"", key);
		out[i] = v;
		any = true;
	}
	if (!any)
		return TFAIL(c, l, "no values in \"%s\" (truncated?)", l->s);
	return 0;
}

static int parse_issued(struct tctx *c, const struct tline *l, struct fioi_job *j)
{
	const char *s = l->s, *p;
	uint64_t v[3][3] = { { 0 } };
	static const char *const keys[3] = { "total=", "short=", "drop" };

	for (int k = 0; k < 3; k++) {
		p = find_key(s, keys[k]);
		if (k == 2 && p)
			p = strchr(p, '=') ? strchr(p, '=') + 1 : NULL;
		if (!p) {
			if (k == 0)
				return TFAIL(c, l, "expected total= in \"%s\"", s);
			continue;
		}
		if (c->v2 || starts(p, "r=")) {
			/* fio 2.x: total=r=1/w=2/d=3 */
			const char *tags[3] = { "r=", "w=", "d=" };

			for (int d = 0; d < 3; d++) {
				const char *q = find_key(p, tags[d]);

				if (q)
					v[k][d] = strtoull(q, NULL, 10);
			}
		} else {
			for (int d = 0; d < 3; d++) {
				char *e;

				v[k][d] = strtoull(p, &e, 10);
				if (e == p)
					return TFAIL(c, l, "cannot read \"%s\"", keys[k]);
				p = e;
				if (*p == ',')
					p++;
			}
		}
	}
	for (int d = 0; d < 3; d++) {
		j->dir[d].have_total = true;
		j->dir[d].total_ios = v[0][d];
		j->dir[d].short_ios = v[1][d];
		j->dir[d].drop_ios = v[2][d];
	}
	return 0;
}

static int text_line(struct tctx *c, const struct tline *l, enum kind k)
{
	static const char *const depth_keys[] = { "1", "2", "4", "8", "16", "32", ">=64" };
	static const char *const batch_keys[] = { "0", "4", "8", "16", "32", "64", ">=64" };
	static const char *const lat_keys[] = { "2", "4", "10", "20", "50", "100", "250", "500",
						"750", "1000", "2000", ">=2000" };
	struct fioi_job *j = c->job;
	struct fioi_dir *d = j && c->dir >= 0 ? &j->dir[c->dir] : NULL;
	const char *s = l->s;
	double v;

	switch (k) {
	case K_CMD:
		if (!c->r->cmdline) {
			size_t off = 0;

			is_cmdline(s, &off);
			c->r->cmdline = strdup(s + off);
		}
		return 0;
	case K_VERSION:
		copy(c->r->version, sizeof(c->r->version), s, strcspn(s, " "));
		c->v2 = starts(s, "fio-2.") || starts(s, "fio-1.");
		return 0;
	case K_JOBHDR:
		parse_jobhdr(c, l);
		return 0;
	case K_JOBRES:
		if (c->r->nr == FIOI_MAX_JOBS)
			return TFAIL(c, l, "more than %d job results: more than iogap converts (split "
				     "the output, or run fio with group_reporting)", FIOI_MAX_JOBS);
		c->job = new_result(c, l);
		if (!c->job)
			return TFAIL(c, l, "out of memory");
		c->dir = -1;
		c->pct_kind = -1;
		c->in_sync = false;
		return 0;
	case K_GROUP:
	case K_DISKHDR:
		c->job = NULL;
		c->dir = -1;
		return 0;
	default:
		break;
	}
	if (!j)
		return 0;     /* group lines, disk stats, chatter */
	switch (k) {
	case K_DESC: {
		const char *p = strchr(s, '[');

		if (p)
			copy(j->description, sizeof(j->description), p + 1, strcspn(p + 1, "]"));
		return 0;
	}
	case K_DIR3:
	case K_DIR2: {
		int dd;

		for (dd = 0; dd < IOGAP_DDIR_NR; dd++)
			if (starts(s, ddir_names[dd]))
				break;
		if (dd == IOGAP_DDIR_NR) {
			dd = 0;                  /* "mixed": unified_rw_reporting */
			j->unified = true;
		}
		c->dir = dd;
		c->pct_kind = -1;
		c->in_sync = false;
		j->dir[dd].have = true;
		j->dir[dd].line = l->line;
		if (k == K_DIR2)
			c->v2 = true;
		return k == K_DIR3 ? parse_dir3(c, l, &j->dir[dd]) : parse_dir2(c, l, &j->dir[dd]);
	}
	case K_SYNCHDR:
		c->in_sync = true;
		c->pct_kind = -1;
		return 0;
	case K_LATSTAT:
		if (c->in_sync || starts(s, "sync"))
			return 0;
		if (!d)
			return TFAIL(c, l, "\"%s\" outside a read/write/trim section", s);
		return parse_latstat(c, l, d);
	case K_PCTHDR:
		c->pct_unit = unit_ns(s, c->v2);
		c->pct_kind = starts(s, "slat") ? FIOI_SLAT : starts(s, "clat") ? FIOI_CLAT
			    : starts(s, "lat") ? FIOI_LAT : -1;
		if (c->in_sync || starts(s, "sync"))
			c->pct_kind = -1;
		if (c->pct_kind >= 0 && !d)
			return TFAIL(c, l, "percentiles outside a read/write/trim section");
		if (c->pct_kind >= 0 && c->pct_unit < 0)
			return TFAIL(c, l, "no time unit in \"%s\"", s);
		if (c->pct_kind >= 0)
			d->pct_nr[c->pct_kind] = 0;
		return 0;
	case K_PCTROW:
		if (c->pct_kind < 0 || !d)
			return 0;
		return parse_pctrow(c, l, d);
	case K_BW:
		if (!d)
			return TFAIL(c, l, "bw line outside a read/write/trim section");
		return parse_bw(c, l, d);
	case K_IOPS:
		if (!d)
			return TFAIL(c, l, "iops line outside a read/write/trim section");
		return parse_iops(c, l, d);
	case K_LATDIST: {
		double u = unit_ns(s, c->v2);

		c->pct_kind = -1;
		c->dir = -1;
		j->have_latdist = true;
		if (u == 1)
			return parse_pctmap(c, l, lat_keys, 10, j->lat_n);
		if (u == 1e3)
			return parse_pctmap(c, l, lat_keys, 10, j->lat_u);
		if (u == 1e6)
			return parse_pctmap(c, l, lat_keys, 12, j->lat_m);
		return TFAIL(c, l, "unknown unit in \"%s\"", s);
	}
	case K_CPU:
		c->dir = -1;
		if (!key_num(s, "usr=", &j->usr_cpu) || !key_num(s, "sys=", &j->sys_cpu))
			return TFAIL(c, l, "expected usr= and sys= in \"%s\" (truncated?)", s);
		key_u64(s, "ctx=", &j->ctx);
		key_u64(s, "majf=", &j->majf);
		key_u64(s, "minf=", &j->minf);
		j->have_cpu = true;
		return 0;
	case K_DEPTH:
		j->have_depth = true;
		return parse_pctmap(c, l, depth_keys, 7, j->depth);
	case K_SUBMIT:
		return parse_pctmap(c, l, batch_keys, 7, j->submit);
	case K_COMPLETE:
		return parse_pctmap(c, l, batch_keys, 7, j->complete);
	case K_ISSUED:
		return parse_issued(c, l, j);
	case K_LATENCY:
		if (key_num(s, "depth=", &v) && !j->iodepth)
			j->iodepth = to_uint(v);
		return 0;
	default:
		return 0;
	}
}

/* The next shell word of *p with quotes and backslashes removed, into
 * out; false at the end or at an operator (| > < ; &), which ends fio's
 * part of the line. */
static bool shell_word(const char **p, char *out, size_t outlen)
{
	const char *s = skip_sp(*p);
	size_t o = 0;
	char q = 0;

	if (!*s || strchr("|<>;&", *s) || (isdigit((unsigned char)*s) && s[1] == '>'))
		return false;
	for (; *s && (q || (*s != ' ' && *s != '\t')); s++) {
		if (q && *s == q) {
			q = 0;
			continue;
		}
		if (!q && (*s == '\'' || *s == '"')) {
			q = *s;
			continue;
		}
		if (!q && strchr("|<>;&", *s))
			break;
		if (*s == '\\' && s[1] && q != '\'')
			s++;
		if (o + 1 < outlen)
			out[o++] = *s;
	}
	out[o] = '\0';
	*p = s;
	return true;
}

/* fio's arguments that are not job options */
static bool not_a_job_option(const char *k)
{
	static const char *const skip[] = { "output", "eta", "minimal", "section", "debug",
		"parse-only", "showcmd", "warnings-fatal", "max-jobs", "inflate-log", "status-interval",
		"trigger", "aux-path", "alloc-size", "readonly", "latency-log", "terse-version",
		"append-terse", "bandwidth-log", "merge-blktrace-only", NULL };

	for (int i = 0; skip[i]; i++)
		if (!strncmp(k, skip[i], strlen(skip[i])))
			return true;
	return false;
}

/* fio's command line as pasted: "fio --name=a --rw=read job.fio".  Its
 * options are the whole story only without job files (or a client). */
static void cmdline_opts(struct fioi_result *r)
{
	const char *p;
	char tok[4096];
	struct fioi_job *cur = NULL;
	bool any_job = false, program = true;

	r->opts_complete = r->cmdline != NULL;
	for (p = r->cmdline; p && shell_word(&p, tok, sizeof(tok)); program = false) {
		char *k = tok, *eq;

		if (program)
			continue;               /* "fio" itself */
		if (strncmp(k, "--", 2)) {
			r->opts_complete = false;       /* a job file, or something unknown */
			continue;
		}
		k += 2;
		if (!strncmp(k, "client", 6) || !strncmp(k, "server", 6))
			r->opts_complete = false;
		if (not_a_job_option(k))
			continue;
		eq = strchr(k, '=');
		if (!strncmp(k, "name=", 5)) {
			cur = NULL;
			any_job = true;
			for (size_t i = 0; i < r->nr; i++)
				if (!strcmp(r->jobs[i].name, eq + 1) && !r->jobs[i].opts_nr)
					cur = &r->jobs[i];
		}
		if (cur)
			kv_add(&cur->opts, &cur->opts_nr, k, eq ? (size_t)(eq - k) : strlen(k),
			       eq ? eq + 1 : NULL, eq ? strlen(eq + 1) : 0);
		else if (!any_job)
			kv_add(&r->global_opts, &r->global_nr, k, eq ? (size_t)(eq - k) : strlen(k),
			       eq ? eq + 1 : NULL, eq ? strlen(eq + 1) : 0);
	}
}

static bool ends_with_backslash(const char *s)
{
	size_t n = strlen(s);

	return n && s[n - 1] == '\\';
}

/* Append continuation line t (its "> " prompt dropped) to a command line
 * ending in a backslash; t is consumed. */
static int join_continued(struct tline *cmd, char *t)
{
	const char *c = t;
	char *m = NULL;
	size_t n = strlen(cmd->s) - 1;

	if (*c == '>' && (c[1] == ' ' || c[1] == '\t' || !c[1]))
		c = skip_sp(c + 1);
	if (asprintf(&m, "%.*s %s", (int)n, cmd->s, c) < 0)
		m = NULL;
	free(t);
	if (!m)
		return -1;
	free(cmd->s);
	cmd->s = m;
	return 0;
}

static int parse_text(const char *name, const char *text, size_t len, struct fioi_result *r,
		      char *err, size_t errlen)
{
	struct tctx c = { .name = name, .err = err, .errlen = errlen, .r = r, .dir = -1,
			  .pct_kind = -1 };
	struct tline *lines = NULL;
	enum kind *kinds = NULL;
	size_t nl = 0, cap = 0, pos = 0;
	int lineno = 0, ret = 0;
	bool in_job = false;

	/* logical lines: blank lines dropped, wrapped lines re-joined */
	while (pos < len) {
		size_t e = pos, n;
		const char *s;
		char *t;
		enum kind k;

		while (e < len && text[e] != '\n')
			e++;
		lineno++;
		s = text + pos;
		n = e - pos;
		pos = e + 1;
		while (n && (s[n - 1] == '\r' || s[n - 1] == ' ' || s[n - 1] == '\t'))
			n--;
		while (n && (*s == ' ' || *s == '\t')) {
			s++;
			n--;
		}
		if (!n)
			continue;
		if (memchr(s, '\0', n)) {
			ret = iogap_seterr(err, errlen, "%s:%d: binary data (NUL byte): not fio output",
				   name, lineno);
			goto out;
		}
		t = strndup(s, n);
		if (!t) {
			ret = iogap_seterr(err, errlen, "%s: out of memory", name);
			goto out;
		}
		/* a "Jobs: …" progress line may share the line with carriage
		 * returns: keep what follows the last one */
		if (strchr(t, '\r')) {
			char *last = strrchr(t, '\r') + 1;

			memmove(t, last, strlen(last) + 1);
		}
		if (nl && kinds[nl - 1] == K_CMD && ends_with_backslash(lines[nl - 1].s)) {
			/* "fio --a \" then "> --b": the shell's line continuation */
			if (join_continued(&lines[nl - 1], t)) {
				ret = iogap_seterr(err, errlen, "%s: out of memory", name);
				goto out;
			}
			continue;
		}
		k = classify(t, in_job);
		if (k == K_JOBRES)
			in_job = true;
		if (k == K_UNKNOWN && nl && joinable(kinds[nl - 1]) && in_job) {
			struct tline *p = &lines[nl - 1];
			size_t a = strlen(p->s), b = strlen(t);
			char *m = realloc(p->s, a + b + 2);

			if (!m) {
				free(t);
				ret = iogap_seterr(err, errlen, "%s: out of memory", name);
				goto out;
			}
			m[a] = ' ';
			memcpy(m + a + 1, t, b + 1);
			p->s = m;
			free(t);
			kinds[nl - 1] = kinds[nl - 1] == K_UNKNOWN ? K_UNKNOWN :
					classify(m, in_job) == K_UNKNOWN ? kinds[nl - 1] :
					classify(m, in_job);
			continue;
		}
		if (k == K_CMD && nl && kinds[nl - 1] == K_CMD && t[0] == '-') {
			/* a wrapped command line */
			k = K_UNKNOWN;
		}
		if (nl == cap) {
			void *a, *b;

			cap = cap ? cap * 2 : 64;
			a = realloc(lines, cap * sizeof(*lines));
			if (a)
				lines = a;
			b = realloc(kinds, cap * sizeof(*kinds));
			if (b)
				kinds = b;
			if (!a || !b) {
				free(t);
				ret = iogap_seterr(err, errlen, "%s: out of memory", name);
				goto out;
			}
		}
		lines[nl].s = t;
		lines[nl].line = lineno;
		kinds[nl] = k;
		/* a wrapped command line: "--opt" lines after it */
		if (k != K_CMD && nl && kinds[nl - 1] == K_CMD && !in_job && t[0] == '-') {
			struct tline *p = &lines[nl - 1];
			char *m = NULL;

			if (asprintf(&m, "%s %s", p->s, t) > 0) {
				free(p->s);
				p->s = m;
			}
			free(t);
			continue;
		}
		nl++;
	}

	for (size_t i = 0; i < nl; i++) {
		if (text_line(&c, &lines[i], kinds[i])) {
			ret = -1;
			goto out;
		}
	}
	if (!r->nr) {
		ret = iogap_seterr(err, errlen, "%s: no fio results found (expected \"<job>: "
			   "(groupid=N, jobs=N): err=…\" lines)%s", name,
			   c.hdr_nr ? ": only the job header lines (truncated?)" : "");
		goto out;
	}
	for (size_t i = 0; i < r->nr; i++)
		adopt_header(&c, &r->jobs[i]);
	for (size_t i = 0; i < r->nr; i++) {
		struct fioi_job *j = &r->jobs[i];
		bool any = false;

		for (int d = 0; d < IOGAP_DDIR_NR; d++) {
			any |= j->dir[d].have;
			for (int k = 0; k < 3; k++)
				if (j->dir[d].lat[k].have && j->dir[d].have_total)
					j->dir[d].lat[k].n = j->dir[d].total_ios;
			if (j->dir[d].have && !j->dir[d].have_total) {
				/* truncated paste: estimate from IOPS × runtime */
				j->dir[d].total_ios = to_u64(j->dir[d].iops *
						      (double)j->dir[d].runtime_ms / 1000.0);
			}
		}
		if (!any && !j->error) {
			ret = iogap_seterr(err, errlen, "%s:%d: job \"%s\" has no read/write/trim results "
				   "(truncated?)", name, j->line, j->name);
			goto out;
		}
		if (!j->members)
			j->members = 1;
	}
	r->format = c.v2 ? FIOI_TEXT2 : FIOI_TEXT3;
	cmdline_opts(r);
	for (size_t i = 0; i < r->nr; i++)
		facts_from_opts(r, &r->jobs[i]);
out:
	for (size_t i = 0; i < nl; i++)
		free(lines[i].s);
	free(lines);
	free(kinds);
	free(c.hdr);
	return ret;
}

/* The start of fio's JSON document: a line that is just "{" followed by
 * a "fio version" or "jobs" member. */
static const char *json_start(const char *text, size_t len, size_t *line)
{
	size_t ln = 1;

	for (size_t i = 0; i < len; i++) {
		if (text[i] == '\n') {
			ln++;
			continue;
		}
		if (text[i] == '{' && (i == 0 || text[i - 1] == '\n')) {
			size_t j = i + 1;

			while (j < len && isspace((unsigned char)text[j]))
				j++;
			if ((len - j >= 13 && !strncmp(text + j, "\"fio version\"", 13)) ||
			    (len - j >= 6 && !strncmp(text + j, "\"jobs\"", 6))) {
				*line = ln;
				return text + i;
			}
		}
	}
	return NULL;
}

/* A segment's label from its name line: what a directory name can hold. */
static void segment_label(struct fioi_segment *g, const char *line, size_t n, size_t index)
{
	size_t o = 0;

	while (n && (line[n - 1] == ':' || line[n - 1] == ' ' || line[n - 1] == '\r'))
		n--;
	for (size_t i = 0; i < n && o + 1 < sizeof(g->label); i++) {
		char c = line[i];

		if (isalnum((unsigned char)c) || c == '.' || c == '_' || c == '-')
			g->label[o++] = c;
		else if (o && g->label[o - 1] != '-')
			g->label[o++] = '-';
	}
	while (o && (g->label[o - 1] == '-' || g->label[o - 1] == '.'))
		o--;
	g->label[o] = '\0';
	if (!o || g->label[0] == '.')
		snprintf(g->label, sizeof(g->label), "run%zu", index + 1);
}

/* Does a line of kind k start another fio run, given what the current one
 * has shown (results; the run status / disk stats that end an output)? */
static bool starts_run(enum kind k, bool started, bool results, bool ended)
{
	if (!started)
		return k == K_CMD || k == K_VERSION || k == K_JOBHDR || k == K_JOBRES;
	return (results && (k == K_CMD || k == K_VERSION || k == K_JOBHDR)) ||
	       (ended && k == K_JOBRES);
}

static int add_segment(struct fioi_segment **segs, size_t *n, size_t off, const char *name,
		       size_t name_len)
{
	struct fioi_segment *ns = realloc(*segs, (*n + 1) * sizeof(*ns));

	if (!ns)
		return -1;
	*segs = ns;
	if (*n)
		ns[*n - 1].len = off - ns[*n - 1].off;
	ns[*n].off = off;
	ns[*n].len = 0;
	segment_label(&ns[*n], name, name_len, *n);
	(*n)++;
	return 0;
}

int fioi_split_runs(const char *text, size_t len, struct fioi_segment **out, size_t *nout)
{
	struct fioi_segment *segs = NULL;
	size_t n = 0, pos = 0, last_fio_end = 0, name_at = 0, name_len = 0, line0;
	bool started = false, results = false, ended = false;

	*out = NULL;
	*nout = 0;
	if (json_start(text, len, &line0))
		return 0;                       /* a JSON document: one run */
	for (; pos < len; pos++) {
		size_t e = pos, a, b, off;
		char line[1024];
		enum kind k;

		while (e < len && text[e] != '\n')
			e++;
		for (a = pos; a < e && (text[a] == ' ' || text[a] == '\t'); a++)
			;
		for (b = e; b > a && (text[b - 1] == ' ' || text[b - 1] == '\t' ||
				      text[b - 1] == '\r'); b--)
			;
		snprintf(line, sizeof(line), "%.*s", (int)(b - a), text + a);
		k = line[0] ? classify(line, false) : K_IGNORE;
		if (starts_run(k, started, results, ended)) {
			/* the run owns the text since the previous run's last fio
			 * line; its name is the last other line in that text */
			if (add_segment(&segs, &n, n ? last_fio_end : 0, text + name_at, name_len)) {
				free(segs);
				return -1;
			}
			started = true;
			results = ended = false;
		}
		results |= k == K_JOBRES;
		ended |= k == K_GROUP || k == K_DISKHDR || k == K_DISK;
		off = 0;
		if (k == K_UNKNOWN && !is_cmdline(line, &off) && skip_prompt(line)[0] &&
		    skip_prompt(line) == line) {
			name_at = a;
			name_len = b - a;
		} else if (k != K_UNKNOWN && k != K_IGNORE) {
			name_len = 0;
			last_fio_end = e < len ? e + 1 : e;
		}
		pos = e;
	}
	if (n)
		segs[n - 1].len = len - segs[n - 1].off;
	*out = segs;
	*nout = n;
	return 0;
}

bool fioi_looks_like_output(const char *text, size_t len)
{
	size_t line;
	const char *p;

	if (json_start(text, len, &line))
		return true;
	p = memmem(text, len, "(groupid=", 9);
	return p != NULL;
}

int fioi_parse_buf(const char *name, const char *text, size_t len, struct fioi_result *r,
		   char *err, size_t errlen)
{
	const char *js;
	size_t line0 = 1;
	int ret;

	memset(r, 0, sizeof(*r));
	snprintf(r->source, sizeof(r->source), "%s", name);
	js = json_start(text, len, &line0);
	if (js)
		ret = parse_json(name, js, len - (size_t)(js - text), line0, r, err, errlen);
	else
		ret = parse_text(name, text, len, r, err, errlen);
	if (ret)
		fioi_free(r);
	return ret;
}

int fioi_parse_file(const char *path, struct fioi_result *r, char *err, size_t errlen)
{
	size_t len;
	char *buf = iogap_input_read(path, IOGAP_INPUT_MAX, &len, err, errlen);
	int ret;

	memset(r, 0, sizeof(*r));
	if (!buf)
		return -1;
	ret = fioi_parse_buf(path, buf, len, r, err, errlen);
	free(buf);
	return ret;
}

void fioi_free(struct fioi_result *r)
{
	for (size_t i = 0; i < r->nr; i++) {
		struct fioi_job *j = &r->jobs[i];

		kv_free(j->opts, j->opts_nr);
		for (int d = 0; d < IOGAP_DDIR_NR; d++)
			for (int k = 0; k < 3; k++)
				free(j->dir[d].bins[k]);
	}
	free(r->jobs);
	kv_free(r->global_opts, r->global_nr);
	free(r->cmdline);
	jp_free(&r->doc);
	memset(r, 0, sizeof(*r));
}
