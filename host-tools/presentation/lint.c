/* SPDX-License-Identifier: MIT */
/*
 * iogap lint: methodology findings for a fio job file, a run directory
 * (ours or imported) or a fio output, each with the reason and what to do
 * (docs/reports.md).  Exit 1 when any finding is a warning or worse.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cpuload.h"
#include "fio_import.h"
#include "manifest.h"
#include "presentation.h"
#include "util.h"

enum level { L_INFO, L_WARNING, L_ERROR };
static const char *const level_name[] = { "INFO", "WARNING", "ERROR" };
static const char *const ddir_names[IOGAP_DDIR_NR] = { "read", "write", "trim" };
static const char *const lat_names[3] = { "slat", "clat", "lat" };

/* One finding; printed at the end, grouped by kind. */
struct finding {
	enum level lv;
	const char *code, *why, *todo;
	char *msg;
};

struct lint {
	int worst;
	struct finding *f;
	size_t count;
	uint64_t ram;           /* bytes; 0 unknown */
	bool ram_given;
};

/* Record a finding of kind code (code, why and todo are string constants:
 * a new kind of finding is one function calling this). */
__attribute__((format(printf, 6, 7)))
static void finding(struct lint *L, enum level lv, const char *code, const char *why,
		    const char *todo, const char *fmt, ...)
{
	struct finding *n = realloc(L->f, (L->count + 1) * sizeof(*n));
	va_list ap;

	if ((int)lv > L->worst)
		L->worst = (int)lv;     /* the exit status holds even without memory */
	if (!n)
		return;
	L->f = n;
	n = &L->f[L->count];
	*n = (struct finding){ lv, code, why, todo, NULL };
	va_start(ap, fmt);
	if (vasprintf(&n->msg, fmt, ap) < 0)
		n->msg = NULL;
	va_end(ap);
	L->count++;
}

static bool same_kind(const struct finding *a, const struct finding *b)
{
	return !strcmp(a->code, b->code) && !strcmp(a->why, b->why) && !strcmp(a->todo, b->todo);
}

/* One entry per kind: its level is the worst of its findings, the
 * findings' messages one a line, then why and do once. */
static void print_findings(const struct lint *L)
{
	bool *done = calloc(L->count ? L->count : 1, sizeof(*done));

	for (size_t i = 0; done && i < L->count; i++) {
		enum level lv = L->f[i].lv;
		size_t n = 0;

		if (done[i])
			continue;
		for (size_t k = i; k < L->count; k++)
			if (!done[k] && same_kind(&L->f[i], &L->f[k])) {
				n++;
				lv = L->f[k].lv > lv ? L->f[k].lv : lv;
			}
		if (n == 1)
			printf("%s %s: %s\n", level_name[lv], L->f[i].code,
			       L->f[i].msg ? L->f[i].msg : "");
		else
			printf("%s %s (%zu findings):\n", level_name[lv], L->f[i].code, n);
		for (size_t k = i; k < L->count; k++)
			if (!done[k] && same_kind(&L->f[i], &L->f[k])) {
				if (n > 1)
					printf("    - %s\n", L->f[k].msg ? L->f[k].msg : "");
				done[k] = true;
			}
		printf("    why: %s\n    do: %s\n", L->f[i].why, L->f[i].todo);
	}
	free(done);
}

/* ---- a side: one fio result or job file ------------------------------- */

struct side {
	char what[4096];        /* "FILE" or "RUN/vm" for messages */
	char label[64];
	struct fioi_result r;
	bool is_job;            /* options only, no results */
	uint64_t ram;           /* RAM of the machine that ran it; 0 unknown */
};

static bool is_async(const char *e)
{
	return e && (!strcmp(e, "libaio") || !strcmp(e, "io_uring") || !strcmp(e, "posixaio") ||
		     !strcmp(e, "solarisaio") || !strcmp(e, "windowsaio"));
}

static bool is_sync_engine(const char *e)
{
	return e && (!strcmp(e, "psync") || !strcmp(e, "sync") || !strcmp(e, "pvsync") ||
		     !strcmp(e, "pvsync2") || !strcmp(e, "vsync") || !strcmp(e, "mmap"));
}

static bool opt_true(const char *v)
{
	return v && (!*v || !strcmp(v, "1") || !strcasecmp(v, "true") || !strcasecmp(v, "on") ||
		     !strcasecmp(v, "yes"));
}

/* An engine whose I/O goes through the page cache unless direct=1 (NULL:
 * unknown, maybe); io_uring_cmd and sg send commands to the device, rbd,
 * nbd, http and the like talk to a store of their own. */
static bool cached_engine(const char *e)
{
	return !e || is_sync_engine(e) || is_async(e) || !strcmp(e, "splice");
}

/* A character device never goes through the page cache: NVMe's generic
 * /dev/ngXnY, SCSI's /dev/sgN and the /dev/bsg/ nodes. */
static bool char_device_target(const char *filename)
{
	return filename && (!strncmp(filename, "/dev/ng", 7) || !strncmp(filename, "/dev/sg", 7) ||
			    !strncmp(filename, "/dev/bsg/", 9));
}

/* Every write flushed to the device before the next (fsync=N, fdatasync=N,
 * sync=1): a buffered write then ends on the device, not in memory. */
static bool writes_flushed(const struct side *s, const struct fioi_job *j)
{
	const char *fs = fioi_opt(&s->r, j, "fsync"), *fds = fioi_opt(&s->r, j, "fdatasync");
	const char *sync = fioi_opt(&s->r, j, "sync");

	return (fs && strtoul(fs, NULL, 10) > 0) || (fds && strtoul(fds, NULL, 10) > 0) ||
	       (sync && (opt_true(sync) || !strcmp(sync, "sync") || !strcmp(sync, "dsync")));
}

/* The job reads (rw=, fio's default read; unknown: it may). */
static bool job_reads(const struct side *s, const struct fioi_job *j)
{
	const char *rw = j->rw[0] ? j->rw : fioi_opt(&s->r, j, "rw");

	if (!rw)
		return true;
	return strstr(rw, "read") || !strncmp(rw, "rw", 2) || !strncmp(rw, "randrw", 6);
}

/* Does an option's absence mean fio's default (else: unknown)? */
static bool opts_known(const struct side *s)
{
	return s->is_job || s->r.opts_complete;
}

/* 1 direct, 0 buffered, -1 unknown */
static int direct_of(const struct side *s, const struct fioi_job *j)
{
	const char *d = fioi_opt(&s->r, j, "direct"), *b = fioi_opt(&s->r, j, "buffered");

	if (d && strchr(d, '$'))
		return -1;
	if (d)
		return opt_true(d) ? 1 : 0;
	if (b)
		return opt_true(b) ? 0 : 1;
	return opts_known(s) ? 0 : -1;
}

static const char *engine_of(const struct side *s, const struct fioi_job *j)
{
	if (j->ioengine[0])
		return j->ioengine;
	if (opts_known(s))
		return "psync";         /* fio 3.x's default */
	return NULL;
}

static char *fmt_ns(char *buf, size_t n, double ns)
{
	if (ns >= 1e6)
		snprintf(buf, n, "%.2f ms", ns / 1e6);
	else if (ns >= 1e3)
		snprintf(buf, n, "%.2f us", ns / 1e3);
	else
		snprintf(buf, n, "%.0f ns", ns);
	return buf;
}

static char *fmt_bytes(char *buf, size_t n, double b)
{
	if (b >= 1024.0 * 1024 * 1024)
		snprintf(buf, n, "%.1f GiB", b / (1024.0 * 1024 * 1024));
	else
		snprintf(buf, n, "%.1f MiB", b / (1024.0 * 1024));
	return buf;
}

static void check_job(struct lint *L, const struct side *s, const struct fioi_job *j)
{
	const char *eng = engine_of(s, j), *v;
	int direct = direct_of(s, j);
	char a[32], b[32], c[32];
	unsigned depth = j->iodepth;

	if ((v = fioi_opt(&s->r, j, "iodepth")) && !strchr(v, '$'))
		depth = (unsigned)strtoul(v, NULL, 10);

	/* buffered I/O through an async engine */
	if (is_async(eng) && direct != 1) {
		char ev[512] = "";
		size_t o = 0;

		for (int d = 0; d < IOGAP_DDIR_NR; d++) {
			const struct fioi_dir *x = &j->dir[d];

			if (!x->have || !x->lat[0].have || !x->lat[1].have)
				continue;
			if (x->lat[0].mean >= 5 * x->lat[1].mean && x->lat[0].mean >= 10e3 &&
			    o < sizeof(ev))
				o += (size_t)snprintf(ev + o, sizeof(ev) - o, "%s%s slat avg %s ≫ clat avg %s",
						      o ? "; " : "", ddir_names[d],
						      fmt_ns(a, sizeof(a), x->lat[0].mean),
						      fmt_ns(b, sizeof(b), x->lat[1].mean));
		}
		if (direct == 0 || ev[0])
			finding(L, L_WARNING, "buffered-async",
				"without direct=1 the kernel completes buffered I/O inside the submit "
				"call: libaio/io_uring become synchronous, the queue depth is fake and "
				"the device time is reported as submission latency (slat), not clat",
				"set direct=1 (and fill the file first), or use a sync engine when "
				"page-cache behaviour is what you want to measure",
				"%s: job '%s': ioengine=%s %s%s%s", s->what, j->name, eng,
				direct == 0 ? "without direct=1" :
				"with direct unknown (the output does not show all of the job's options)",
				ev[0] ? ": " : "", ev);
	}

	/* iodepth > 1 with a synchronous engine */
	if (is_sync_engine(eng) && depth > 1)
		finding(L, L_WARNING, "sync-iodepth",
			"a synchronous engine has one request in flight per job whatever iodepth "
			"says; the run measured queue depth 1",
			"use ioengine=libaio or io_uring (with direct=1) for depth > 1, or numjobs "
			"for parallel synchronous I/O",
			"%s: job '%s': ioengine=%s with iodepth=%u", s->what, j->name, eng, depth);

	/* the working set fits in the page cache, for a job whose I/O goes
	 * through it and stays there (reads, or writes not each flushed) */
	if (direct != 1 && cached_engine(eng) &&
	    !char_device_target(fioi_opt(&s->r, j, "filename"))) {
		uint64_t size = 0, ram = s->ram ? s->ram : L->ram;

		if ((v = fioi_opt(&s->r, j, "size")) && !strchr(v, '$') && !strchr(v, '%'))
			iogap_parse_size(v, &size);
		if (size && ram && size <= ram && (job_reads(s, j) || !writes_flushed(s, j)))
			finding(L, L_WARNING, "cache-working-set",
				"buffered I/O over a working set smaller than RAM is served from the "
				"page cache after the first touch: the numbers are memory numbers",
				"set direct=1, or make size several times larger than RAM",
				"%s: job '%s': size=%s (%s) fits in %s of RAM with direct=%s",
				s->what, j->name, v, fmt_bytes(a, sizeof(a), (double)size),
				fmt_bytes(b, sizeof(b), (double)ram), direct < 0 ? "unknown" : "0");
		for (int d = 0; d < IOGAP_DDIR_NR; d++) {
			const struct fioi_dir *x = &j->dir[d];
			const struct fioi_lat *l = x->lat[2].have ? &x->lat[2] : &x->lat[1];

			if (!x->have || !l->have)
				continue;
			if ((l->mean > 0 && l->mean < 5e3) || x->iops > 1e6)
				finding(L, L_WARNING, "cache-hits",
					"no storage device completes requests this fast; these were "
					"served by the page cache (reads) or absorbed by it (writes)",
					"set direct=1 and a working set larger than RAM to measure the "
					"device",
					"%s: job '%s': %s %s avg %s at %.0f IOPS%s", s->what, j->name,
					ddir_names[d], lat_names[l == &x->lat[2] ? 2 : 1],
					fmt_ns(c, sizeof(c), l->mean), x->iops,
					direct == 0 ? " without direct=1" : " (direct unknown)");
		}
	}

	/* percentiles claimed beyond the samples */
	for (int d = 0; d < IOGAP_DDIR_NR; d++) {
		const struct fioi_dir *x = &j->dir[d];

		for (int k = 0; x->have && k < 3; k++) {
			uint64_t n = x->lat[k].n ? x->lat[k].n : x->total_ios;
			double worst = 0, best_ok = 0;
			unsigned bad = 0;

			if (!x->pct_nr[k] || !n)
				continue;
			for (unsigned i = 0; i < x->pct_nr[k]; i++) {
				double p = x->pct[k][i].p;

				if (p >= 100)
					continue;
				if ((double)n < 10.0 / (1.0 - p / 100.0)) {
					bad++;
					if (p > worst)
						worst = p;
				} else if (p > best_ok) {
					best_ok = p;
				}
			}
			if (!bad)
				continue;
			finding(L, L_WARNING, "few-samples",
				"a percentile p rests on the slowest (1-p/100) of the samples; with "
				"fewer than 10/(1-p/100) samples fewer than 10 requests decide it and "
				"it is noise",
				"run longer (or repeat and pool runs); quote only percentiles the sample "
				"count supports",
				"%s: job '%s': %s %s p%g from %" PRIu64 " samples needs >= %.0f "
				"(%u percentile%s unsupported; highest supported: %s%g)",
				s->what, j->name, ddir_names[d], lat_names[k], worst, n,
				ceil(10.0 / (1.0 - worst / 100.0)), bad, bad == 1 ? "" : "s",
				best_ok > 0 ? "p" : "none ", best_ok);
		}
	}

	/* the tool itself was the bottleneck */
	if (j->have_cpu && j->usr_cpu + j->sys_cpu >= 90)
		finding(L, L_WARNING, "cpu-saturated",
			"the benchmark thread was busy ≥90% of a CPU: it measured its own CPU "
			"limit (and its scheduling), not the storage",
			"add numjobs (spread over CPUs), use fewer syscalls per I/O (io_uring, "
			"batching), or compare at a rate both sides can sustain",
			"%s: job '%s': usr=%.2f%% sys=%.2f%% of one CPU", s->what, j->name, j->usr_cpu,
			j->sys_cpu);

	if (j->error)
		finding(L, L_WARNING, "job-error",
			"a job that failed stopped early; its numbers cover an unknown part of "
			"the run",
			"fix the error and run again", "%s: job '%s' ended with err=%d", s->what,
			j->name, j->error);
}

/* Options that may differ between the two sides of one comparison. */
static bool ignored_opt(const char *k)
{
	static const char *const ign[] = { "filename", "directory", "name", "description",
		"output", "write_lat_log", "write_bw_log", "write_iops_log", "write_hist_log",
		"log_avg_msec", "per_job_logs", "log_offset", NULL };

	for (int i = 0; ign[i]; i++)
		if (!strcmp(k, ign[i]))
			return true;
	return false;
}

static const struct fioi_job *match(const struct side *o, const struct fioi_job *j, size_t i)
{
	for (size_t k = 0; k < o->r.nr; k++)
		if (!strcmp(o->r.jobs[k].name, j->name))
			return &o->r.jobs[k];
	return i < o->r.nr ? &o->r.jobs[i] : NULL;
}

static void diff_opt(char *out, size_t n, size_t *o, const char *k, const char *a, const char *b)
{
	if (!strcmp(a ? a : "(unset)", b ? b : "(unset)"))
		return;
	if (*o < n)
		*o += (size_t)snprintf(out + *o, n - *o, "%s%s: %s vs %s", *o ? ", " : "", k,
				       a ? (*a ? a : "(set)") : "(unset)",
				       b ? (*b ? b : "(set)") : "(unset)");
}

static void compare_sides(struct lint *L, const struct side *a, const struct side *b)
{
	if (a->r.version[0] && b->r.version[0] && strcmp(a->r.version, b->r.version))
		finding(L, L_WARNING, "version-differs",
			"fio versions change defaults, units and statistics (e.g. 3.x reports "
			"ns-resolution clat; 2.x usec) – the difference may be the tool's",
			"run the same fio (or iogap-probe) build on both sides",
			"%s is %s, %s is %s", a->what, a->r.version, b->what, b->r.version);
	if (a->r.nr != b->r.nr && !a->is_job && !b->is_job)
		finding(L, L_WARNING, "jobs-differ",
			"the two sides ran different job lists; the comparison pairs unrelated "
			"results", "use the same job file on both sides",
			"%s has %zu job result%s, %s has %zu", a->what, a->r.nr, a->r.nr == 1 ? "" : "s",
			b->what, b->r.nr);
	for (size_t i = 0; i < a->r.nr; i++) {
		const struct fioi_job *ja = &a->r.jobs[i], *jb = match(b, ja, i);
		const char *ea, *eb;
		char d[2048] = "";
		size_t o = 0;

		if (!jb)
			continue;
		ea = engine_of(a, ja);
		eb = engine_of(b, jb);
		if (ea && eb && strcmp(ea, eb))
			finding(L, L_WARNING, "engine-differs",
				"different I/O engines submit and complete differently (sync vs "
				"async, batching, polling): the gap includes the engine",
				"use the same ioengine on both sides",
				"job '%s': %s uses %s, %s uses %s", ja->name, a->what, ea, b->what, eb);
		diff_opt(d, sizeof(d), &o, "rw", ja->rw[0] ? ja->rw : NULL, jb->rw[0] ? jb->rw : NULL);
		if (ja->iodepth && jb->iodepth && ja->iodepth != jb->iodepth) {
			char x[16], y[16];

			snprintf(x, sizeof(x), "%u", ja->iodepth);
			snprintf(y, sizeof(y), "%u", jb->iodepth);
			diff_opt(d, sizeof(d), &o, "iodepth", x, y);
		}
		if (opts_known(a) && opts_known(b)) {
			/* every option either side set, each key once */
			const struct side *sd[2] = { a, b };
			const struct fioi_job *jj[2] = { ja, jb };
			const char *keys[512];
			size_t nk = 0;

			for (int s = 0; s < 2; s++) {
				const struct iogap_job_kv *kv[2] = { sd[s]->r.global_opts, jj[s]->opts };
				size_t nr[2] = { sd[s]->r.global_nr, jj[s]->opts_nr };

				for (int g = 0; g < 2; g++)
					for (size_t k = 0; k < nr[g] && nk < 512; k++) {
						const char *key = kv[g][k].key;
						size_t q;

						if (ignored_opt(key) || !strcmp(key, "rw") ||
						    !strcmp(key, "readwrite") ||
						    !strcmp(key, "iodepth") || !strcmp(key, "ioengine"))
							continue;
						for (q = 0; q < nk && strcmp(keys[q], key); q++)
							;
						if (q == nk)
							keys[nk++] = key;
					}
			}
			for (size_t q = 0; q < nk; q++)
				diff_opt(d, sizeof(d), &o, keys[q], fioi_opt(&a->r, ja, keys[q]),
					 fioi_opt(&b->r, jb, keys[q]));
		}
		if (d[0])
			finding(L, L_WARNING, "sides-differ",
				"the two sides did not run the same workload, so their difference is "
				"not the VM's (or the change's) cost",
				"run the identical job (same options; only filename may differ) on both "
				"sides",
				"job '%s': %s vs %s: %s", ja->name, a->what, b->what, d);
	}
}

/* ---- inputs ------------------------------------------------------------- */

static void add_kv(struct iogap_job_kv **kv, size_t *nr, const char *k, const char *v)
{
	struct iogap_job_kv *n = realloc(*kv, (*nr + 1) * sizeof(*n));

	if (!n)
		return;
	*kv = n;
	n[*nr].key = strdup(k);
	n[*nr].value = v ? strdup(v) : NULL;
	(*nr)++;
}

/* Reading a job file with the probe's lexer: [global] options apply to the
 * jobs after them; values are kept as written (${VAR} stays unknown). */
struct jobfile_reader {
	struct side *s;
	struct iogap_job_kv *glob;
	size_t gnr;
	struct fioi_job *cur;           /* NULL: in [global] */
	bool oom;
};

static int jf_section(void *ctx, const char *name, int line)
{
	struct jobfile_reader *jr = ctx;
	struct fioi_result *r = &jr->s->r;
	struct fioi_job *nj;

	(void)line;
	jr->cur = NULL;
	if (!strcmp(name, "global"))
		return 0;
	nj = realloc(r->jobs, (r->nr + 1) * sizeof(*nj));
	if (!nj) {
		jr->oom = true;
		return -1;
	}
	r->jobs = nj;
	jr->cur = &nj[r->nr++];
	memset(jr->cur, 0, sizeof(*jr->cur));
	snprintf(jr->cur->name, sizeof(jr->cur->name), "%s", name);
	for (size_t i = 0; i < jr->gnr; i++)
		add_kv(&jr->cur->opts, &jr->cur->opts_nr, jr->glob[i].key, jr->glob[i].value);
	return 0;
}

static int jf_option(void *ctx, const char *key, const char *val, int line)
{
	struct jobfile_reader *jr = ctx;

	(void)line;
	if (jr->cur)
		add_kv(&jr->cur->opts, &jr->cur->opts_nr, key, val);
	else
		add_kv(&jr->glob, &jr->gnr, key, val);
	return 0;
}

static int read_jobfile(struct side *s, const char *path, const char *text, size_t len,
			char *err, size_t errlen)
{
	struct jobfile_reader jr = { .s = s };
	const struct iogap_jobfile_lexer lx = { .ctx = &jr, .section = jf_section,
						.option = jf_option };
	int ret;

	memset(&s->r, 0, sizeof(s->r));
	s->is_job = true;
	snprintf(s->r.source, sizeof(s->r.source), "%s", path);
	ret = iogap_jobfile_lex(path, text, len, &lx, err, errlen);
	if (jr.oom)
		snprintf(err, errlen, "%s: out of memory", path);
	for (size_t i = 0; i < jr.gnr; i++) {
		free(jr.glob[i].key);
		free(jr.glob[i].value);
	}
	free(jr.glob);
	for (size_t i = 0; !ret && i < s->r.nr; i++) {
		struct fioi_job *j = &s->r.jobs[i];
		const char *v;

		if ((v = fioi_opt(&s->r, j, "ioengine")))
			snprintf(j->ioengine, sizeof(j->ioengine), "%s", v);
		if ((v = fioi_opt(&s->r, j, "rw")))
			snprintf(j->rw, sizeof(j->rw), "%s", v);
		if ((v = fioi_opt(&s->r, j, "iodepth")) && !strchr(v, '$'))
			j->iodepth = (unsigned)strtoul(v, NULL, 10);
	}
	return ret;
}

static uint64_t local_ram(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	unsigned long long kb = 0;
	char line[256];

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemTotal: %llu kB", &kb) == 1)
			break;
	fclose(f);
	return kb * 1024;
}

static bool looks_like_job(const char *text)
{
	const char *p = text;

	while (*p) {
		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
			p++;
		if (*p == '#' || *p == ';') {
			p += strcspn(p, "\n");
			continue;
		}
		return *p == '[';
	}
	return false;
}

/* Room for one more side, zeroed (not yet counted in *ns); NULL: no memory. */
static struct side *new_side(struct side **sides, size_t ns)
{
	struct side *n = realloc(*sides, (ns + 1) * sizeof(*n));

	if (!n)
		return NULL;
	*sides = n;
	memset(&n[ns], 0, sizeof(*n));
	return &n[ns];
}

/* fio output: one side, or one per run of a paste holding several. */
static int load_output(struct side **sides, size_t *ns, const char *path, const char *text,
		       size_t len, char *err, size_t errlen)
{
	struct fioi_segment whole = { 0, len, "" }, *segs = NULL;
	size_t nseg = 0;
	int ret = 0;

	if (fioi_split_runs(text, len, &segs, &nseg) || nseg < 2) {
		free(segs);
		segs = &whole;
		nseg = 1;
	}
	for (size_t i = 0; !ret && i < nseg; i++) {
		struct side *s = new_side(sides, *ns);

		if (!s) {
			snprintf(err, errlen, "%s: out of memory", path);
			ret = -1;
			break;
		}
		snprintf(s->what, sizeof(s->what), "%.4000s%s%.64s%s", path, nseg > 1 ? "[" : "",
			 segs[i].label, nseg > 1 ? "]" : "");
		snprintf(s->label, sizeof(s->label), "%s", segs[i].label);
		ret = fioi_parse_buf(s->what, text + segs[i].off, segs[i].len, &s->r, err, errlen);
		*ns += !ret;
	}
	if (segs != &whole)
		free(segs);
	return ret;
}

/* A file argument: fio output (one or several runs) or a job file. */
static int load_file(struct side **sides, size_t *ns, const char *path, char *err, size_t errlen)
{
	char *text = NULL;
	size_t len;
	int ret;

	if (!(text = iogap_input_read(path, IOGAP_INPUT_MAX, &len, err, errlen)))
		return -1;
	if (fioi_looks_like_output(text, len)) {
		ret = load_output(sides, ns, path, text, len, err, errlen);
	} else if (looks_like_job(text)) {
		struct side *s = new_side(sides, *ns);

		ret = -1;
		if (s) {
			snprintf(s->what, sizeof(s->what), "%s", path);
			ret = read_jobfile(s, path, text, len, err, errlen);
			s->ram = local_ram();
			*ns += 1;       /* counted either way: freed with the others */
		}
	} else {
		snprintf(err, errlen, "%s: neither a fio job file (no [section]) nor fio output "
			 "(no \"(groupid=\" result lines or fio JSON)", path);
		ret = -1;
	}
	free(text);
	return ret;
}

static uint64_t manifest_ram(const char *dir, const char *label, bool *imported)
{
	struct iogap_manifest m;
	char err[PATH_MAX + 256];
	uint64_t ram = 0;

	*imported = false;
	if (iogap_manifest_read(dir, &m, err, sizeof(err)))
		return 0;
	*imported = iogap_manifest_imported(&m, label);
	if (!*imported)
		ram = iogap_side_of_dir(label) == IOGAP_SIDE_VM ? m.vm_memory_mb << 20 : local_ram();
	iogap_manifest_free(&m);
	return ram;
}

/* A VM side's guest-minus-host clock offset from the run's manifest (0 for
 * bare metal or when unknown). */
static int64_t guest_offset(const char *side_dir)
{
	char run[PATH_MAX], err[PATH_MAX + 256];
	const char *slash = strrchr(side_dir, '/');
	struct iogap_manifest m;
	int64_t off;

	if (!slash || iogap_side_of_dir(slash + 1) != IOGAP_SIDE_VM)
		return 0;
	snprintf(run, sizeof(run), "%.*s", (int)(slash - side_dir), side_dir);
	if (iogap_manifest_read(run, &m, err, sizeof(err)))
		return 0;
	off = m.clock_offset_ns;
	iogap_manifest_free(&m);
	return off;
}

/* host-saturated: the run's CPU record (SIDE/cpuload.txt, `iogap run`)
 * shows the host with all cores busy, or a QEMU, probe or backend thread
 * at a full core, while requests were submitted (cpuload.h). */
static void check_cpu_saturation(struct lint *L, const char *side_dir)
{
	char path[8192], err[512], line[2048], share[128] = "share of requests unknown (no "
							  "readable probe.trace)";
	struct iogap_cpuload cl;
	struct iogap_cpu_summary sum;
	uint64_t hit = 0, all = 0;

	snprintf(path, sizeof(path), "%s/cpuload.txt", side_dir);
	if (access(path, F_OK))
		return;
	if (iogap_cpuload_load(path, &cl, err, sizeof(err)) || iogap_cpuload_summarize(&cl, &sum)) {
		fprintf(stderr, "iogap lint: %s\n", err);
		return;
	}
	iogap_cpu_summary_text(&cl, &sum, line, sizeof(line));
	if (sum.sat) {
		snprintf(path, sizeof(path), "%s/probe.trace", side_dir);
		if (!iogap_cpuload_trace_share(&cl, &sum, path, guest_offset(side_dir), &hit, &all,
					       err, sizeof(err)) && all)
			snprintf(share, sizeof(share), "%.0f%% of the requests were submitted in a "
				 "saturated second", 100.0 * (double)hit / (double)all);
		finding(L, L_WARNING, "host-saturated", "requests then wait for a CPU: the backend "
			"and crossing stages include that wait, which is not the I/O path's cost",
			"run with nothing else on the host (or more cores); pin QEMU, its iothread and "
			"local daemons apart", "%s: %s; %s", side_dir, line, share);
	} else if (sum.nbusy) {
		finding(L, L_INFO, "vcpu-busy", "a vCPU thread at a full core is the guest's own work "
			"(under TCG, its emulation), not contention by itself", "nothing, unless the "
			"host also saturates", "%s: %s", side_dir, line);
	}
	iogap_cpu_summary_free(&sum);
	iogap_cpuload_free(&cl);
}

/* Every finding of L to sink, then L's findings freed. */
static void emit(struct lint *L, iogap_lint_sink sink, void *ctx)
{
	for (size_t i = 0; i < L->count; i++) {
		sink(ctx, (int)L->f[i].lv, L->f[i].code, L->f[i].msg ? L->f[i].msg : "", L->f[i].why,
		     L->f[i].todo);
		free(L->f[i].msg);
	}
	free(L->f);
	L->f = NULL;
	L->count = 0;
}

void iogap_lint_results(const struct fioi_result *const *r, const char *const *what, size_t n,
			uint64_t ram, iogap_lint_sink sink, void *ctx)
{
	struct lint L = { .ram = ram };
	struct side *s = calloc(n ? n : 1, sizeof(*s));

	if (!s) {       /* no checks must not read as "no findings" */
		sink(ctx, L_ERROR, "out-of-memory", "", "lint could not run", "run again");
		return;
	}
	for (size_t i = 0; i < n; i++) {
		snprintf(s[i].what, sizeof(s[i].what), "%s", what[i]);
		s[i].r = *r[i];         /* a shallow copy: read only, never freed here */
	}
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < s[i].r.nr; k++)
			check_job(&L, &s[i], &s[i].r.jobs[k]);
	for (size_t i = 1; i < n; i++)
		compare_sides(&L, &s[0], &s[i]);
	emit(&L, sink, ctx);
	free(s);
}

int iogap_lint_job_direct(const struct fioi_result *r, size_t job)
{
	struct side *s = calloc(1, sizeof(*s));
	int direct;

	if (!s)
		return -1;
	s->r = *r;              /* a shallow copy: read only, never freed here */
	direct = direct_of(s, &r->jobs[job]);
	free(s);
	return direct;
}

int iogap_lint_jobfiles(const char *const *paths, size_t n, iogap_lint_sink sink, void *ctx,
			char *err, size_t errlen)
{
	struct lint L = { 0 };
	struct side *sides = NULL;
	size_t ns = 0;
	int ret = 0;

	for (size_t i = 0; i < n && !ret; i++)
		ret = load_file(&sides, &ns, paths[i], err, errlen);
	for (size_t i = 0; i < ns && !ret; i++)
		for (size_t k = 0; k < sides[i].r.nr; k++)
			check_job(&L, &sides[i], &sides[i].r.jobs[k]);
	if (!ret)
		emit(&L, sink, ctx);
	for (size_t i = 0; i < ns; i++)
		fioi_free(&sides[i].r);
	free(sides);
	return ret;
}

static void usage(FILE *f)
{
	fputs("usage: iogap lint [--ram SIZE] JOB|RUN_DIR|FIO_OUTPUT...\n"
	      "  Methodology findings (LEVEL CODE: message / why / do).  Several\n"
	      "  inputs, or a run directory with two sides, are also compared.\n"
	      "  --ram SIZE: RAM of the machine that ran imported outputs (cache check).\n"
	      "  Exit 1 when any finding is a warning or worse, 2 on unusable input.\n", f);
}

int iogap_cmd_lint(int argc, char **argv)
{
	struct lint L = { 0 };
	struct side *sides = NULL;
	size_t ns = 0;
	char err[1024];
	int ret = 0;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		struct stat sb;

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			return 0;
		}
		if ((!strcmp(a, "--ram") && i + 1 < argc) || !strncmp(a, "--ram=", 6)) {
			const char *v = a[5] == '=' ? a + 6 : argv[++i];

			if (iogap_parse_size(v, &L.ram)) {
				fprintf(stderr, "iogap lint: bad --ram '%s'\n", v);
				return 2;
			}
			L.ram_given = true;
			continue;
		}
		if (a[0] == '-' && a[1]) {
			fprintf(stderr, "iogap lint: unknown option %s\n", a);
			usage(stderr);
			return 2;
		}
		if (stat(a, &sb)) {
			fprintf(stderr, "iogap lint: %s: %s\n", a, strerror(errno));
			ret = 2;
			goto out;
		}
		if (S_ISDIR(sb.st_mode)) {
			/* a run directory: every LABEL/probe.json */
			DIR *d = opendir(a);
			struct dirent *de;
			size_t found = 0;
			char names[64][64];
			size_t nn = 0;

			while (d && (de = readdir(d)) && nn < 64) {
				char p[8192];

				if (de->d_name[0] == '.')
					continue;
				snprintf(p, sizeof(p), "%s/%s/probe.json", a, de->d_name);
				if (!access(p, R_OK))
					snprintf(names[nn++], sizeof(names[0]), "%.63s", de->d_name);
			}
			if (d)
				closedir(d);
			/* bare first, vm second, the rest by name */
			qsort(names, nn, sizeof(names[0]), (int (*)(const void *, const void *))strcmp);
			for (size_t k = 0; k < nn; k++) {
				if (iogap_side_of_dir(names[k]) == IOGAP_SIDE_BARE && k) {
					char t[64];

					memcpy(t, names[0], 64);
					memcpy(names[0], names[k], 64);
					memcpy(names[k], t, 64);
				}
			}
			for (size_t k = 0; k < nn; k++) {
				char p[8192];
				struct side *n = realloc(sides, (ns + 1) * sizeof(*n));
				bool imported;

				if (!n) {
					ret = 2;
					goto out;
				}
				sides = n;
				memset(&sides[ns], 0, sizeof(*sides));
				snprintf(p, sizeof(p), "%s/%s/probe.json", a, names[k]);
				if (fioi_parse_file(p, &sides[ns].r, err, sizeof(err))) {
					fprintf(stderr, "iogap lint: %s\n", err);
					ret = 2;
					goto out;
				}
				snprintf(sides[ns].what, sizeof(sides[ns].what), "%.4000s/%.63s", a, names[k]);
				snprintf(sides[ns].label, sizeof(sides[ns].label), "%.63s", names[k]);
				sides[ns].ram = manifest_ram(a, names[k], &imported);
				ns++;
				found++;
			}
			if (!found) {
				fprintf(stderr, "iogap lint: %s: no LABEL/probe.json results (not a run "
					"directory)\n", a);
				ret = 2;
				goto out;
			}
			continue;
		}
		if (load_file(&sides, &ns, a, err, sizeof(err))) {
			fprintf(stderr, "iogap lint: %s\n", err);
			ret = 2;
			goto out;
		}
	}
	if (!ns) {
		usage(stderr);
		return 2;
	}
	for (size_t i = 0; i < ns; i++)
		for (size_t k = 0; k < sides[i].r.nr; k++)
			check_job(&L, &sides[i], &sides[i].r.jobs[k]);
	for (size_t i = 1; i < ns; i++)
		compare_sides(&L, &sides[0], &sides[i]);
	for (size_t i = 0; i < ns; i++)
		check_cpu_saturation(&L, sides[i].what);
	print_findings(&L);
	if (!L.count)
		printf("no findings\n");
	ret = L.worst >= L_WARNING ? 1 : 0;
out:
	for (size_t i = 0; i < L.count; i++)
		free(L.f[i].msg);
	free(L.f);
	for (size_t i = 0; i < ns; i++)
		fioi_free(&sides[i].r);
	free(sides);
	return ret;
}
