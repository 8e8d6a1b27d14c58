/* SPDX-License-Identifier: MIT */
/*
 * fio's terse output (--minimal, --output-format=terse), versions 2 to 5
 * (--terse-version, default 3): one semicolon-separated line per reported
 * job, fields in the order of fio 3.33's show_thread_status_terse_all (and
 * the HOWTO's "Terse output"), so scripts that cut fields out of fio's
 * terse lines read ours.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"

#define TERSE_VERSION 3           /* fio's default */
#define TERSE_PERCENTILES 20      /* fio's FIO_IO_U_LIST_MAX_LEN */

/* min;max;mean;stddev of a latency in usec (fio divides ns by 1000). */
static void terse_lat(FILE *f, const struct iogap_io_stat *s)
{
	if (!s->samples) {
		fprintf(f, ";%llu;%llu;%f;%f", 0ULL, 0ULL, 0.0, 0.0);
		return;
	}
	fprintf(f, ";%" PRIu64 ";%" PRIu64 ";%f;%f", s->min_val / 1000, s->max_val / 1000,
		s->mean / 1000, iogap_io_stat_stddev(s) / 1000);
}

/* Twenty "P%=usec" fields: lat percentiles when enabled, else clat ones
 * (zeros for a direction without samples), padded with "0%=0" as fio
 * pads them. */
static void terse_percentiles(FILE *f, const struct iogap_job_stat *st,
			      const struct iogap_ddir_stat *ds)
{
	double list[IOGAP_MAX_PERCENTILES];
	uint64_t vals[IOGAP_MAX_PERCENTILES] = { 0 };
	const uint64_t *plat = st->lat_percentiles ? ds->plat[IOGAP_LAT] :
			       st->clat_percentiles ? ds->plat[IOGAP_CLAT] : NULL;
	unsigned i, nr = 0;

	if (plat) {
		nr = iogap_report_percentiles(st, list);
		iogap_plat_percentiles(plat, list, nr, vals);
	}
	for (i = 0; i < TERSE_PERCENTILES; i++) {
		if (i >= nr)
			fputs(";0%=0", f);
		else
			fprintf(f, ";%f%%=%" PRIu64, list[i], vals[i] / 1000);
	}
}

/* Version 5's bandwidth sample count and IOPS min;max;mean;stddev;samples. */
static void terse_v5_samples(FILE *f, const struct iogap_ddir_stat *ds)
{
	const struct iogap_io_stat *io = &ds->iops;

	fprintf(f, ";%" PRIu64, ds->bw.samples);
	if (io->samples)
		fprintf(f, ";%" PRIu64 ";%" PRIu64 ";%f;%f;%" PRIu64, io->min_val, io->max_val,
			io->mean, iogap_io_stat_stddev(io), io->samples);
	else
		fprintf(f, ";%llu;%llu;%f;%f;%llu", 0ULL, 0ULL, 0.0, 0.0, 0ULL);
}

/* fio's show_ddir_status_terse for one direction. */
static void terse_ddir(FILE *f, const struct iogap_job_stat *st,
		       const struct iogap_group_stat *rs, unsigned d, int ver)
{
	const struct iogap_ddir_stat *ds = &st->dir[d];
	uint64_t bw = 0, iops = 0;

	if (ds->runtime_ms) {
		bw = 1000 * ds->io_bytes / ds->runtime_ms / 1024;
		iops = 1000 * ds->total_io_u / ds->runtime_ms;
	}
	fprintf(f, ";%" PRIu64 ";%" PRIu64 ";%" PRIu64 ";%" PRIu64, ds->io_bytes >> 10, bw, iops,
		ds->runtime_ms);
	terse_lat(f, &ds->lat[IOGAP_SLAT]);
	terse_lat(f, &ds->lat[IOGAP_CLAT]);
	terse_percentiles(f, st, ds);
	terse_lat(f, &ds->lat[IOGAP_LAT]);
	if (ds->bw.samples) {
		double p_of_agg = 100.0;
		uint64_t agg_kib = rs ? rs->agg_bw[d] / 1024 : 0;

		if (agg_kib) {
			p_of_agg = ds->bw.mean * 100 / (double)agg_kib;
			if (p_of_agg > 100.0)
				p_of_agg = 100.0;
		}
		fprintf(f, ";%" PRIu64 ";%" PRIu64 ";%f%%;%f;%f", ds->bw.min_val, ds->bw.max_val,
			p_of_agg, ds->bw.mean, iogap_io_stat_stddev(&ds->bw));
	} else {
		fprintf(f, ";%llu;%llu;%f%%;%f;%f", 0ULL, 0ULL, 0.0, 0.0, 0.0);
	}
	if (ver == 5)
		terse_v5_samples(f, ds);
}

/* fio's show_mixed_ddir_status_terse: the directions summed */
static void terse_mixed(FILE *f, const struct iogap_job_stat *st, const struct iogap_group_stat *rs,
			int ver)
{
	struct iogap_job_stat *mixed = malloc(sizeof(*mixed));

	if (!mixed)
		return;
	*mixed = *st;
	iogap_job_stat_mix(mixed);
	terse_ddir(f, mixed, rs, 0, ver);
	free(mixed);
}

static void terse_disk(FILE *f, const struct iogap_disk_util *du)
{
	double util = du->msec ? 100.0 * (double)du->io_ticks / (double)du->msec : 0.0;

	if (util > 100.0)
		util = 100.0;
	fprintf(f, ";%s;%" PRIu64 ";%" PRIu64 ";%" PRIu64 ";%" PRIu64 ";%" PRIu64 ";%" PRIu64
		";%" PRIu64 ";%3.2f%%", du->name, du->ios[0], du->ios[1], du->merges[0],
		du->merges[1], du->ticks[0], du->ticks[1], du->time_in_queue, util);
	if (du->slavecount) {
		uint64_t n = du->slavecount;

		fprintf(f, ";slaves;%" PRIu64 ";%" PRIu64 ";%" PRIu64 ";%" PRIu64 ";%" PRIu64
			";%" PRIu64 ";%" PRIu64 ";%3.2f%%", du->agg_ios[0] / n, du->agg_ios[1] / n,
			du->agg_merges[0] / n, du->agg_merges[1] / n, du->agg_ticks[0] / n,
			du->agg_ticks[1] / n, du->agg_time_in_queue / n, du->agg_max_util);
	}
}

/* fio's ts->continue_on_error: set by continue_on_error or ignore_error */
static bool continue_on_error(const struct iogap_job *job)
{
	return job && job->continue_on_error;
}

static void terse_job(FILE *f, const struct iogap_run_report *r, const struct iogap_job_stat *st)
{
	const struct iogap_group_stat *rs = NULL;
	uint64_t issued = 0, ns_total = 0;
	double usr = 0, sys = 0;
	unsigned d, i;
	int ver = r->terse_version ? r->terse_version : TERSE_VERSION;

	for (i = 0; i < r->groups_nr; i++)
		if (r->groups[i].groupid == st->groupid)
			rs = &r->groups[i];
	for (d = 0; d < IOGAP_DDIR_NR; d++)
		issued += st->dir[d].total_io_u;

	if (ver == 2)
		fprintf(f, "2;%s;%u;%d", st->name, st->groupid, st->error);
	else
		fprintf(f, "%d;%s;%s;%u;%d", ver, r->version, st->name, st->groupid, st->error);
	/* unified_rw_reporting as fio: mixed alone, or after the directions */
	terse_ddir(f, st, rs, 0, ver);
	if (!st->job || st->job->unified_rw != IOGAP_UNIFIED_MIXED) {
		terse_ddir(f, st, rs, 1, ver);
		if (ver != 3)   /* trim: in versions 2, 4 and 5 */
			terse_ddir(f, st, rs, 2, ver);
	}
	if (st->job && st->job->unified_rw == IOGAP_UNIFIED_BOTH)
		terse_mixed(f, st, rs, ver);

	if (st->total_run_time_ms) {   /* cpu times in whole ms, as fio */
		usr = (double)(st->usr_time_us / 1000) * 100 / (double)st->total_run_time_ms;
		sys = (double)(st->sys_time_us / 1000) * 100 / (double)st->total_run_time_ms;
	}
	fprintf(f, ";%f%%;%f%%;%" PRIu64 ";%" PRIu64 ";%" PRIu64, usr, sys, st->ctx, st->majf,
		st->minf);
	for (i = 0; i < IOGAP_DEPTH_MAP_NR; i++)
		fprintf(f, ";%3.1f%%", iogap_share_pct(st->io_u_map[i], issued, 0.1));
	/* fio's stat_calc_lat_nu: the ns buckets fold into the first us one */
	for (i = 0; i < IOGAP_LAT_N_NR; i++)
		ns_total += st->io_u_lat_n[i];
	for (i = 0; i < IOGAP_LAT_U_NR; i++)
		fprintf(f, ";%3.2f%%", iogap_share_pct(st->io_u_lat_u[i], issued, 0.01) +
			(i == 0 && issued ? 100.0 * (double)ns_total / (double)issued : 0.0));
	for (i = 0; i < IOGAP_LAT_M_NR; i++)
		fprintf(f, ";%3.2f%%", iogap_share_pct(st->io_u_lat_m[i], issued, 0.01));
	for (i = 0; ver >= 3 && i < r->disks_nr; i++)
		terse_disk(f, &r->disks[i]);
	if (continue_on_error(st->job))
		fprintf(f, ";%" PRIu64 ";%d", st->total_err_count, st->first_error);
	if (st->description[0])
		fprintf(f, "%s;%s", ver == 2 ? "\n" : "", st->description);
	fputc('\n', f);
}

void iogap_output_terse(FILE *f, const struct iogap_run_report *r)
{
	for (size_t i = 0; i < r->nr; i++)
		terse_job(f, r, &r->stats[i]);
}
