/* SPDX-License-Identifier: MIT */
/*
 * fio's "normal" text output (stat.c show_thread_status_normal,
 * show_group_stats, print_disk_util), line for line: same units, same
 * rounding, same column widths, so that tools and eyes used to fio's output
 * read ours unchanged.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "block_info.h"
#include "output.h"
#include "steadystate.h"
#include "idle_prof.h"

/* fio's unit_base as num2str units: 1 bits, else (0 auto, 8) bytes */
static int unit_base(const struct iogap_job *j)
{
	return j && j->proc.unit_base == 1 ? IOGAP_N2S_BITPERSEC : IOGAP_N2S_BYTEPERSEC;
}

/* a job's significant_figures (fio's default 4 for an imported job) */
static int sig_figs(const struct iogap_job *j)
{
	return j && j->sig_figs ? (int)j->sig_figs : 4;
}

static const double default_percentiles[] = {
	1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99,
};

/*
 * fio's num2str: shorten num to at most maxlen digits by dividing by
 * 1000/1024 and adding a prefix, keeping as many decimals as still fit,
 * with fio's carry rounding (so 1004/1024 of a unit becomes ".0" plus one).
 */
static char *num2str_from(char *buf, size_t len, uint64_t num, unsigned post, int maxlen,
			  bool pow2, int units)
{
	static const char *const si[] = { "", "k", "M", "G", "T", "P", "E" };
	static const char *const iec[] = { "", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei" };
	const char *const *prefix = pow2 ? iec : si;
	const char *unit = units == IOGAP_N2S_BYTE ? "B" :
			   units == IOGAP_N2S_BYTEPERSEC ? "B/s" :
			   units == IOGAP_N2S_BITPERSEC ? "bit/s" : "";
	const unsigned thousand = pow2 ? 1024 : 1000;
	unsigned modulo = -1u;
	int carry = 0, digits, decimals;
	char tmp[32];

	if (units == IOGAP_N2S_BITPERSEC)   /* unit_base=1 */
		num *= 8;

	for (;;) {
		digits = snprintf(tmp, sizeof(tmp), "%" PRIu64, num);
		if (post >= 7 || digits <= maxlen)
			break;
		modulo = (unsigned)(num % thousand);
		num /= thousand;
		carry = modulo >= thousand / 2;
		post++;
	}
	if (post >= 7)
		post = 0;

	if (modulo == -1u) {
		snprintf(buf, len, "%" PRIu64 "%s%s", num, prefix[post], unit);
		return buf;
	}

	/* No room for a decimal point and a digit: round and stop. */
	decimals = maxlen - digits - 1;
	if (decimals <= 0) {
		if (carry)
			num++;
		snprintf(buf, len, "%" PRIu64 "%s%s", num, prefix[post], unit);
		return buf;
	}

	snprintf(tmp, sizeof(tmp), "%.*f", decimals, (double)modulo / (double)thousand);
	if (tmp[0] == '1')
		num++;
	snprintf(buf, len, "%" PRIu64 ".%s%s%s", num, tmp + 2, prefix[post], unit);
	return buf;
}

char *iogap_num2str(char *buf, size_t len, uint64_t num, int maxlen, bool pow2,
		    int units)
{
	return num2str_from(buf, len, num, 0, maxlen, pow2, units);
}

/* fio's num2str with base 1024: the prefix starts at k/Ki either way */
char *iogap_num2str_kib(char *buf, size_t len, uint64_t kib, int maxlen, bool pow2,
			int units)
{
	return num2str_from(buf, len, kib, 1, maxlen, pow2, units);
}

static int double_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x > y ? 1 : x < y ? -1 : 0;
}

unsigned iogap_report_percentiles(const struct iogap_job_stat *st, double *list)
{
	unsigned nr = 0, i;

	/* fio's list ends at the first 0.0 entry. */
	for (i = 0; i < st->percentile_nr && i < IOGAP_MAX_PERCENTILES; i++) {
		if (st->percentile_list[i] == 0.0)
			break;
		list[nr++] = st->percentile_list[i];
	}
	if (nr == 0) {
		nr = sizeof(default_percentiles) / sizeof(default_percentiles[0]);
		memcpy(list, default_percentiles, sizeof(default_percentiles));
	}
	qsort(list, nr, sizeof(*list), double_cmp);
	return nr;
}

/* The job's value for an option as written, last setting wins. */
static const char *job_opt(const struct iogap_job *job, const char *key)
{
	const char *val = NULL;
	size_t i;

	if (!job || !job->kv)
		return NULL;
	for (i = 0; i < job->kv_nr; i++)
		if (job->kv[i].key && !strcmp(job->kv[i].key, key))
			val = job->kv[i].value ? job->kv[i].value : "";
	return val;
}

/*
 * fio prints percentiles with as many decimals as the user wrote in
 * percentile_list (parse.c counts the digits after each '.'); its default
 * list has "99.95", hence 2.  Without the text, count what the values need.
 */
static unsigned percentile_precision(const struct iogap_job_stat *st,
				     const double *list, unsigned nr)
{
	const char *s = job_opt(st->job, "percentile_list");
	unsigned prec = 0, i;

	if (s) {
		for (; *s; s++) {
			unsigned n = 0;

			if (*s != '.')
				continue;
			while (s[n + 1] >= '0' && s[n + 1] <= '9')
				n++;
			if (n > prec)
				prec = n;
		}
		return prec;
	}
	if (st->percentile_nr == 0)
		return 2;
	for (i = 0; i < nr; i++) {
		unsigned p = 0;

		while (p < 6 && fabs(list[i] * pow(10, p) - round(list[i] * pow(10, p))) > 1e-9)
			p++;
		if (p > prec)
			prec = p;
	}
	return prec;
}

/* fio's show_clat_percentiles: unit chosen from the smallest and largest
 * reported value, fixed-width columns, as many per line as fit 80 chars. */
static void show_percentiles(FILE *f, const struct iogap_job_stat *st,
			     const uint64_t *plat, const char *pre)
{
	double list[IOGAP_MAX_PERCENTILES];
	uint64_t vals[IOGAP_MAX_PERCENTILES], minv = UINT64_MAX, maxv = 0;
	unsigned nr, prec, j, divisor, scale, per_line;
	int width;
	const char *unit;

	nr = iogap_report_percentiles(st, list);
	iogap_plat_percentiles(plat, list, nr, vals);
	for (j = 0; j < nr; j++) {
		if (vals[j] < minv)
			minv = vals[j];
		if (vals[j] > maxv)
			maxv = vals[j];
	}
	prec = percentile_precision(st, list, nr);

	if (minv > 2000000 && maxv > 99999999ULL) {
		scale = 2, divisor = 1000000, unit = "msec";
	} else if (minv > 2000 && maxv > 99999) {
		scale = 1, divisor = 1000, unit = "usec";
	} else {
		scale = 0, divisor = 1, unit = "nsec";
	}
	fprintf(f, "    %s percentiles (%s):\n     |", pre, unit);

	width = 5;
	if (maxv / divisor > 0 && (int)(log10((double)(maxv / divisor)) + 1) > width)
		width = (int)(log10((double)(maxv / divisor)) + 1);
	per_line = (80 - 7) / (prec + 10 + (unsigned)width);

	for (j = 0; j < nr; j++) {
		uint64_t v = vals[j];
		unsigned s;
		bool last = j == nr - 1;

		if (j != 0 && j % per_line == 0)
			fputs("     |", f);
		/* Scaled values round up, as fio does. */
		for (s = 0; s < scale; s++)
			v = (v + 999) / 1000;
		fprintf(f, " %*.*fth=[%*" PRIu64 "]%c", prec + 3, prec, list[j], width, v,
			last ? '\n' : ',');
		if (!last && j % per_line == per_line - 1)
			fputc('\n', f);
	}
}

/* fio's display_lat: nsec, switching to usec/msec only when the values
 * are large *and* spread (stdev) enough. */
static void display_lat(FILE *f, const char *name, const struct iogap_io_stat *s)
{
	uint64_t min = s->min_val, max = s->max_val;
	double mean = s->mean, dev = iogap_io_stat_stddev(s);
	const char *base = "(nsec)";
	char minp[32], maxp[32];

	if (min > 2000000 && max > 99999999ULL && dev > 1000000.0) {
		min /= 1000000, max /= 1000000;
		mean /= 1000000.0, dev /= 1000000.0;
		base = "(msec)";
	} else if (min > 2000 && max > 99999 && dev > 1000.0) {
		min /= 1000, max /= 1000;
		mean /= 1000.0, dev /= 1000.0;
		base = "(usec)";
	}
	iogap_num2str(minp, sizeof(minp), min, 6, false, IOGAP_N2S_NONE);
	iogap_num2str(maxp, sizeof(maxp), max, 6, false, IOGAP_N2S_NONE);
	fprintf(f, "    %s %s: min=%s, max=%s, avg=%5.02f, stdev=%5.02f\n",
		name, base, minp, maxp, mean, dev);
}

/* fio's per-priority lines (cmdprio): with two priorities or more that
 * have samples, "clat prio CLASS/LEVEL" ("lat" with lat_percentiles) */
static bool show_prios(const struct iogap_job_stat *st, unsigned d)
{
	return d < 2 && !st->disable_prio_stat && iogap_clat_prio_with_samples(st, d) >= 2;
}

static void show_prio_lat(FILE *f, const struct iogap_job_stat *st, unsigned d)
{
	char name[64];

	for (unsigned i = 0; show_prios(st, d) && i < st->nr_clat_prio[d]; i++) {
		const struct iogap_clat_prio *cp = &st->clat_prio[d][i];

		if (!cp->lat.samples)
			continue;
		snprintf(name, sizeof(name), "%s prio %u/%u", st->lat_percentiles ? "lat" : "clat",
			 cp->ioprio >> 13, cp->ioprio & 7u);
		display_lat(f, name, &cp->lat);
	}
}

static void show_prio_percentiles(FILE *f, const struct iogap_job_stat *st, unsigned d)
{
	uint64_t samples = st->dir[d].lat[st->lat_percentiles ? IOGAP_LAT : IOGAP_CLAT].samples;
	char name[64];

	for (unsigned i = 0; show_prios(st, d) && i < st->nr_clat_prio[d]; i++) {
		const struct iogap_clat_prio *cp = &st->clat_prio[d][i];

		if (!cp->lat.samples)
			continue;
		snprintf(name, sizeof(name), "%s prio %u/%u (%.2f%% of IOs)",
			 st->lat_percentiles ? "lat" : "clat", cp->ioprio >> 13, cp->ioprio & 7u,
			 100.0 * (double)cp->lat.samples / (double)samples);
		show_percentiles(f, st, cp->plat, name);
	}
}

/* fio's convert_agg_kbytes_percent; its mean parameter is an int. */
static double agg_percent(const struct iogap_group_stat *rs, unsigned d, double mean)
{
	double p = 100.0;

	if (rs && rs->agg_bw[d] > 1024) {
		p = (int)mean * 100.0 / ((double)rs->agg_bw[d] / 1024.0);
		if (p > 100.0)
			p = 100.0;
	}
	return p;
}

static void show_bw_iops(FILE *f, const struct iogap_group_stat *rs,
			 const struct iogap_ddir_stat *ds, unsigned d)
{
	if (ds->bw.samples) {
		uint64_t min = ds->bw.min_val, max = ds->bw.max_val;
		double mean = ds->bw.mean, dev = iogap_io_stat_stddev(&ds->bw);
		double per = agg_percent(rs, d, mean);
		/* fio's labels and divisor by kb_base (its test for bits compares
		 * unit_base with 1, which never holds: N2S_BITPERSEC is 5) */
		double kb = rs->kb_base_1000 ? 1000.0 : 1024.0;
		const char *unit = rs->kb_base_1000 ? "kB" : "KiB";

		if (mean > kb * kb) {
			min = (uint64_t)((double)min / kb);
			max = (uint64_t)((double)max / kb);
			mean /= kb;
			dev /= kb;
			unit = "MiB";
		}
		fprintf(f, "   bw (%5s/s): min=%5" PRIu64 ", max=%5" PRIu64 ", per=%3.2f%%, "
			"avg=%5.02f, stdev=%5.02f, samples=%" PRIu64 "\n",
			unit, min, max, per, mean, dev, ds->bw.samples);
	}
	if (ds->iops.samples)
		fprintf(f, "   iops        : min=%5" PRIu64 ", max=%5" PRIu64 ", "
			"avg=%5.02f, stdev=%5.02f, samples=%" PRIu64 "\n",
			ds->iops.min_val, ds->iops.max_val, ds->iops.mean,
			iogap_io_stat_stddev(&ds->iops), ds->iops.samples);
}

static const char *const ddir_names[IOGAP_DDIR_NR] = { "read", "write", "trim" };

/* fio's show_ddir_status for read/write/trim, or "mixed" (dir 0 of a
 * unified_rw_reporting stat). */
static void show_ddir(FILE *f, const struct iogap_job_stat *st,
		      const struct iogap_group_stat *rs, unsigned d, const char *name)
{
	const struct iogap_ddir_stat *ds = &st->dir[d];
	char io_p[32], bw_p[32], bw_alt[32], iops_p[32], post[48] = "";
	uint64_t runt = ds->runtime_ms, bw, iops;
	int sig = sig_figs(st->job), units = unit_base(st->job);
	bool i2p = !rs->kb_base_1000;   /* fio: the group's kb_base, the job's unit_base */

	if (!runt)
		return;

	bw = 1000 * ds->io_bytes / runt;
	iops = 1000 * ds->total_io_u / runt;
	iogap_num2str(io_p, sizeof(io_p), ds->io_bytes, sig, i2p, IOGAP_N2S_BYTE);
	iogap_num2str(bw_p, sizeof(bw_p), bw, sig, i2p, units);
	iogap_num2str(bw_alt, sizeof(bw_alt), bw, sig, !i2p, units);
	iogap_num2str(iops_p, sizeof(iops_p), iops, sig, false, IOGAP_N2S_NONE);
	/* fio appends zbd_write_status() to every write line, zoned or not. */
	if (d == 1)
		snprintf(post, sizeof(post), "; %" PRIu64 " zone resets", ds->zone_resets);

	fprintf(f, "  %s: IOPS=%s, BW=%s (%s)(%s/%" PRIu64 "msec)%s\n",
		name, iops_p, bw_p, bw_alt, io_p, runt, post);

	if (ds->lat[IOGAP_SLAT].samples)
		display_lat(f, "slat", &ds->lat[IOGAP_SLAT]);
	if (ds->lat[IOGAP_CLAT].samples)
		display_lat(f, "clat", &ds->lat[IOGAP_CLAT]);
	if (ds->lat[IOGAP_LAT].samples)
		display_lat(f, " lat", &ds->lat[IOGAP_LAT]);
	show_prio_lat(f, st, d);

	if (st->slat_percentiles && ds->lat[IOGAP_SLAT].samples)
		show_percentiles(f, st, ds->plat[IOGAP_SLAT], "slat");
	if (st->clat_percentiles && ds->lat[IOGAP_CLAT].samples)
		show_percentiles(f, st, ds->plat[IOGAP_CLAT], "clat");
	if (st->lat_percentiles && ds->lat[IOGAP_LAT].samples)
		show_percentiles(f, st, ds->plat[IOGAP_LAT], "lat");
	if (st->clat_percentiles || st->lat_percentiles)
		show_prio_percentiles(f, st, d);

	show_bw_iops(f, rs, ds, d);
}

/* unified_rw_reporting: none, mixed ("mixed" alone: the stat is mixed
 * already), or both ("mixed" after the directions, from a mixed copy) */
static void show_ddirs(FILE *f, const struct iogap_job_stat *st, const struct iogap_group_stat *rs)
{
	unsigned unified = st->job ? st->job->unified_rw : IOGAP_UNIFIED_SPLIT;
	struct iogap_job_stat *mixed;

	for (unsigned d = 0; d < IOGAP_DDIR_NR; d++)
		if (st->dir[d].io_bytes)
			show_ddir(f, st, rs, d, unified == IOGAP_UNIFIED_MIXED ? "mixed" : ddir_names[d]);
	if (unified != IOGAP_UNIFIED_BOTH || !(mixed = malloc(sizeof(*mixed))))
		return;
	*mixed = *st;
	iogap_job_stat_mix(mixed);
	if (mixed->dir[0].io_bytes)
		show_ddir(f, mixed, rs, 0, "mixed");
	free(mixed);
}

double iogap_share_pct(uint64_t n, uint64_t total, double least)
{
	double v;

	if (!total)
		return 0.0;
	v = (double)n / (double)total * 100.0;
	return v < least && n ? least : v;
}

/* fio's stat_calc_lat: share of all issued I/Os, anything non-zero shown
 * as at least 0.01%. */
static void calc_lat_share(const struct iogap_job_stat *st, const uint64_t *src,
			   unsigned nr, double *dst)
{
	uint64_t total = 0;
	unsigned i, d;

	for (d = 0; d < IOGAP_DDIR_NR; d++)
		total += st->dir[d].total_io_u;
	for (i = 0; i < nr; i++)
		dst[i] = iogap_share_pct(src[i], total, 0.01);
}

/* fio's show_lat: the non-empty buckets, five to a line. */
static void show_lat_row(FILE *f, const struct iogap_job_stat *st, const uint64_t *src,
			 unsigned nr, const char *unit)
{
	static const char *const ranges[] = { "2=", "4=", "10=", "20=", "50=", "100=",
		"250=", "500=", "750=", "1000=", "2000=", ">=2000=" };
	double share[IOGAP_LAT_M_NR];
	unsigned i, line = 0;
	bool shown = false;

	calc_lat_share(st, src, nr, share);
	for (i = 0; i < nr; i++) {
		if (share[i] <= 0.0)
			continue;
		if (!shown || line == 5) {
			if (shown)
				fputc('\n', f);
			fprintf(f, "  lat (%s)   : ", unit);
			line = 0;
		}
		shown = true;
		fprintf(f, "%s%s%3.2f%%", line ? ", " : "", ranges[i], share[i]);
		line++;
	}
	if (shown)
		fputc('\n', f);
}

/* fio's stat_calc_dist: IO depth shares, non-zero shown as at least 0.1%. */
static void calc_dist(const uint64_t *map, uint64_t total, double *dist)
{
	unsigned i;

	for (i = 0; i < IOGAP_DEPTH_MAP_NR; i++)
		dist[i] = iogap_share_pct(map[i], total, 0.1);
}

static void show_sync(FILE *f, const struct iogap_job_stat *st)
{
	fprintf(f, "  %s:\n", "fsync/fdatasync/sync_file_range");
	display_lat(f, "sync", &st->sync_stat);
	/* fio shows sync percentiles whatever the *_percentiles options say. */
	show_percentiles(f, st, st->sync_plat, "sync");
}

/* fio's ts->continue_on_error: set by continue_on_error or ignore_error */
static bool continue_on_error(const struct iogap_job_stat *st)
{
	return st->job && st->job->continue_on_error;
}

static void show_depths(FILE *f, const struct iogap_job_stat *st, uint64_t issued)
{
	double dist[IOGAP_DEPTH_MAP_NR];

	calc_dist(st->io_u_map, issued, dist);
	fprintf(f, "  IO depths    : 1=%3.1f%%, 2=%3.1f%%, 4=%3.1f%%, 8=%3.1f%%,"
		" 16=%3.1f%%, 32=%3.1f%%, >=64=%3.1f%%\n",
		dist[0], dist[1], dist[2], dist[3], dist[4], dist[5], dist[6]);
	calc_dist(st->io_u_submit, st->total_submit, dist);
	fprintf(f, "     submit    : 0=%3.1f%%, 4=%3.1f%%, 8=%3.1f%%, 16=%3.1f%%,"
		" 32=%3.1f%%, 64=%3.1f%%, >=64=%3.1f%%\n",
		dist[0], dist[1], dist[2], dist[3], dist[4], dist[5], dist[6]);
	calc_dist(st->io_u_complete, st->total_complete, dist);
	fprintf(f, "     complete  : 0=%3.1f%%, 4=%3.1f%%, 8=%3.1f%%, 16=%3.1f%%,"
		" 32=%3.1f%%, 64=%3.1f%%, >=64=%3.1f%%\n",
		dist[0], dist[1], dist[2], dist[3], dist[4], dist[5], dist[6]);
}

static void show_cpu(FILE *f, const struct iogap_job_stat *st)
{
	double usr = 0, sys = 0;

	/* fio keeps cpu times in whole milliseconds. */
	if (st->total_run_time_ms) {
		usr = (double)(st->usr_time_us / 1000) * 100 / (double)st->total_run_time_ms;
		sys = (double)(st->sys_time_us / 1000) * 100 / (double)st->total_run_time_ms;
	}
	fprintf(f, "  cpu          : usr=%3.2f%%, sys=%3.2f%%, ctx=%" PRIu64
		", majf=%" PRIu64 ", minf=%" PRIu64 "\n",
		usr, sys, st->ctx, st->majf, st->minf);
}

static void show_job(FILE *f, const struct iogap_run_report *r,
		     const struct iogap_job_stat *st)
{
	const struct iogap_group_stat *rs = NULL;
	uint64_t bytes = 0, issued = 0;
	char when[32] = "\n";
	unsigned d;
	size_t i;

	for (d = 0; d < IOGAP_DDIR_NR; d++) {
		bytes += st->dir[d].io_bytes;
		issued += st->dir[d].total_io_u;
	}
	if (!bytes && !issued)
		return;
	for (i = 0; i < r->groups_nr; i++)
		if (r->groups[i].groupid == st->groupid)
			rs = &r->groups[i];

	ctime_r(&r->timestamp, when);
	if (!st->error)
		fprintf(f, "%s: (groupid=%u, jobs=%u): err=%2d: pid=%d: %s",
			st->name, st->groupid, st->members, st->error, st->pid, when);
	else
		fprintf(f, "%s: (groupid=%u, jobs=%u): err=%2d (%s): pid=%d: %s",
			st->name, st->groupid, st->members, st->error, st->verror,
			st->pid, when);
	if (st->description[0])
		fprintf(f, "  Description  : [%s]\n", st->description);

	show_ddirs(f, st, rs);

	show_lat_row(f, st, st->io_u_lat_n, IOGAP_LAT_N_NR, "nsec");
	show_lat_row(f, st, st->io_u_lat_u, IOGAP_LAT_U_NR, "usec");
	show_lat_row(f, st, st->io_u_lat_m, IOGAP_LAT_M_NR, "msec");

	if (st->sync_stat.samples)
		show_sync(f, st);

	show_cpu(f, st);
	show_depths(f, st, issued);
	fprintf(f, "     issued rwts: total=%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
		" short=%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",0"
		" dropped=%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",0\n",
		st->dir[0].total_io_u, st->dir[1].total_io_u, st->dir[2].total_io_u,
		st->total_sync,
		st->dir[0].short_io_u, st->dir[1].short_io_u, st->dir[2].short_io_u,
		st->dir[0].drop_io_u, st->dir[1].drop_io_u, st->dir[2].drop_io_u);
	if (continue_on_error(st))
		fprintf(f, "     errors    : total=%" PRIu64 ", first_error=%d/<%s>\n",
			st->total_err_count, st->first_error, strerror(st->first_error));
	/* fio's latency_depth is the job's iodepth unless latency_target
	 * tunes it; fio prints the target in ns, the window in us */
	if (st->iodepth)
		fprintf(f, "     latency   : target=%" PRIu64 ", window=%" PRIu64
			", percentile=%.2f%%, depth=%u\n",
			st->job ? st->job->latency_target_ns : 0,
			st->job ? st->job->latency_window_us : 0,
			st->job ? st->job->latency_percentile : 100.0, st->iodepth);
	iogap_ss_normal(f, st);
	iogap_block_infos_normal(f, st);   /* block_error_percentiles */
}

/* fio's show_group_stats. */
static void show_group(FILE *f, const struct iogap_group_stat *rs)
{
	static const char *const str[IOGAP_DDIR_NR] = { "   READ", "  WRITE", "   TRIM" };
	bool i2p = !rs->kb_base_1000;
	unsigned d;

	fprintf(f, "\nRun status group %u (all jobs):\n", rs->groupid);
	for (d = 0; d < IOGAP_DDIR_NR; d++) {
		char io[32], io_alt[32], agg[32], agg_alt[32];
		char min[32], min_alt[32], max[32], max_alt[32];

		if (!rs->max_run_ms[d])
			continue;
		iogap_num2str(io, sizeof(io), rs->io_bytes[d], rs->sig_figs, i2p, IOGAP_N2S_BYTE);
		iogap_num2str(io_alt, sizeof(io_alt), rs->io_bytes[d], rs->sig_figs, !i2p,
			      IOGAP_N2S_BYTE);
		iogap_num2str(agg, sizeof(agg), rs->agg_bw[d], rs->sig_figs, i2p, rs->unit_base);
		iogap_num2str(agg_alt, sizeof(agg_alt), rs->agg_bw[d], rs->sig_figs, !i2p,
			      rs->unit_base);
		iogap_num2str(min, sizeof(min), rs->min_bw[d], rs->sig_figs, i2p, rs->unit_base);
		iogap_num2str(min_alt, sizeof(min_alt), rs->min_bw[d], rs->sig_figs, !i2p,
			      rs->unit_base);
		iogap_num2str(max, sizeof(max), rs->max_bw[d], rs->sig_figs, i2p, rs->unit_base);
		iogap_num2str(max_alt, sizeof(max_alt), rs->max_bw[d], rs->sig_figs, !i2p,
			      rs->unit_base);
		fprintf(f, "%s: bw=%s (%s), %s-%s (%s-%s), io=%s (%s), run=%" PRIu64 "-%"
			PRIu64 "msec\n", str[d], agg, agg_alt, min, max, min_alt, max_alt,
			io, io_alt, rs->min_run_ms[d], rs->max_run_ms[d]);
	}
}

/* fio's print_disk_util (normal format). */
static void show_disk(FILE *f, const struct iogap_disk_util *du)
{
	double util = 0;

	if (du->msec)
		util = 100.0 * (double)du->io_ticks / (double)du->msec;
	if (util > 100.0)
		util = 100.0;

	fprintf(f, "%s  %s: ios=%" PRIu64 "/%" PRIu64 ", merge=%" PRIu64 "/%" PRIu64
		", ticks=%" PRIu64 "/%" PRIu64 ", in_queue=%" PRIu64 ", util=%3.2f%%",
		du->slavecount ? "  " : "", du->name, du->ios[0], du->ios[1],
		du->merges[0], du->merges[1], du->ticks[0], du->ticks[1],
		du->time_in_queue, util);
	if (du->slavecount) {
		uint64_t n = du->slavecount;

		fprintf(f, ", aggrios=%" PRIu64 "/%" PRIu64 ", aggrmerge=%" PRIu64 "/%"
			PRIu64 ", aggrticks=%" PRIu64 "/%" PRIu64 ", aggrin_queue=%" PRIu64
			", aggrutil=%3.2f%%",
			du->agg_ios[0] / n, du->agg_ios[1] / n, du->agg_merges[0] / n,
			du->agg_merges[1] / n, du->agg_ticks[0] / n, du->agg_ticks[1] / n,
			du->agg_time_in_queue / n, du->agg_max_util);
	}
	fputc('\n', f);
}

void iogap_output_normal(FILE *f, const struct iogap_run_report *r)
{
	size_t i;

	/* fio starts its final report with an empty line. */
	fputc('\n', f);
	for (i = 0; i < r->nr; i++)
		show_job(f, r, &r->stats[i]);
	for (i = 0; i < r->groups_nr; i++)
		show_group(f, &r->groups[i]);
	if (r->disks_nr) {
		fputs("\nDisk stats (read/write):\n", f);
		for (i = 0; i < r->disks_nr; i++)
			show_disk(f, &r->disks[i]);
	}
	if (r->idle)
		iogap_idle_normal(f, r->idle);
}

/*
 * fio's show_run_stats group pass: per group and direction the fastest and
 * slowest member (runtime, bandwidth), the bytes moved, and the aggregate
 * bandwidth = all bytes over the longest runtime.  Groups are numbered
 * 0..max groupid, and fio prints every one of them.
 */
int iogap_group_stats_compute(struct iogap_run_report *r)
{
	struct iogap_group_stat *g;
	size_t i, nr = 0;
	unsigned d;

	for (i = 0; i < r->nr; i++)
		if (r->stats[i].groupid + 1u > nr)
			nr = r->stats[i].groupid + 1u;
	g = calloc(nr ? nr : 1, sizeof(*g));
	if (!g)
		return -1;
	for (i = 0; i < nr; i++) {
		g[i].groupid = (unsigned)i;
		for (d = 0; d < IOGAP_DDIR_NR; d++)
			g[i].min_bw[d] = UINT64_MAX;
	}

	for (i = 0; i < r->nr; i++) {
		const struct iogap_job_stat *st = &r->stats[i];
		struct iogap_group_stat *rs = &g[st->groupid];

		rs->sig_figs = sig_figs(st->job);   /* fio: the last job's */
		rs->kb_base_1000 = st->job && st->job->proc.kb_base == 1000;
		rs->unit_base = unit_base(st->job);
		for (d = 0; d < IOGAP_DDIR_NR; d++) {
			uint64_t runt = st->dir[d].runtime_ms, bw;

			if (!runt)
				continue;
			if (runt < rs->min_run_ms[d] || !rs->min_run_ms[d])
				rs->min_run_ms[d] = runt;
			if (runt > rs->max_run_ms[d])
				rs->max_run_ms[d] = runt;
			bw = st->dir[d].io_bytes * 1000 / runt;
			if (bw < rs->min_bw[d])
				rs->min_bw[d] = bw;
			if (bw > rs->max_bw[d])
				rs->max_bw[d] = bw;
			rs->io_bytes[d] += st->dir[d].io_bytes;
		}
	}

	for (i = 0; i < nr; i++) {
		for (d = 0; d < IOGAP_DDIR_NR; d++) {
			if (g[i].max_run_ms[d])
				g[i].agg_bw[d] = g[i].io_bytes[d] * 1000 / g[i].max_run_ms[d];
			else
				g[i].min_bw[d] = 0;   /* unused direction: no sentinel */
		}
	}

	free(r->groups);
	r->groups = g;
	r->groups_nr = nr;
	return 0;
}

/* fio's ddir_str, indexed by fio's td_ddir bits (read 1, write 2,
 * random 4, trim 8). */
static const char *rw_str(unsigned rw)
{
	static const char *const str[] = { NULL, "read", "write", "rw", "rand",
		"randread", "randwrite", "randrw", "trim", NULL, "trimwrite", NULL,
		"randtrim", NULL, "randtrimwrite" };
	unsigned idx = 0;

	if (rw & IOGAP_RW_READ)
		idx |= 1;
	if (rw & IOGAP_RW_WRITE)
		idx |= 2;
	if (rw & IOGAP_RW_RAND)
		idx |= 4;
	if (rw & IOGAP_RW_TRIM)
		idx |= 8;
	return idx < sizeof(str) / sizeof(str[0]) && str[idx] ? str[idx] : "read";
}

/* fio's min_bs/max_bs: from bssplit, else bsrange, else bs. */
static void bs_range(const struct iogap_job *job, unsigned d, uint64_t *min, uint64_t *max)
{
	unsigned i;

	if (job->bssplit_nr[d]) {
		*min = UINT64_MAX, *max = 0;
		for (i = 0; i < job->bssplit_nr[d]; i++) {
			if (job->bssplit[d][i].bs < *min)
				*min = job->bssplit[d][i].bs;
			if (job->bssplit[d][i].bs > *max)
				*max = job->bssplit[d][i].bs;
		}
		return;
	}
	*min = job->bs_min[d] ? job->bs_min[d] : job->bs[d];
	*max = job->bs_max[d] ? job->bs_max[d] : job->bs[d];
}

void iogap_output_job_line(FILE *f, const struct iogap_job *job, unsigned groupid)
{
	char c[IOGAP_DDIR_NR][2][32];
	unsigned d;

	for (d = 0; d < IOGAP_DDIR_NR; d++) {
		uint64_t min, max;

		bs_range(job, d, &min, &max);
		iogap_num2str(c[d][0], sizeof(c[d][0]), min, sig_figs(job), true, IOGAP_N2S_BYTE);
		iogap_num2str(c[d][1], sizeof(c[d][1]), max, sig_figs(job), true, IOGAP_N2S_BYTE);
	}
	fprintf(f, "%s: (g=%u): rw=%s, bs=(R) %s-%s, (W) %s-%s, (T) %s-%s, "
		"ioengine=%s, iodepth=%u\n",
		job->name ? job->name : "", groupid, rw_str(job->rw),
		c[0][0], c[0][1], c[1][0], c[1][1], c[2][0], c[2][1],
		job->ioengine ? job->ioengine : "psync", job->iodepth);
}
