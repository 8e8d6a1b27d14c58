/* SPDX-License-Identifier: MIT */
/*
 * fio's JSON and JSON+ output (stat.c show_thread_status_json, json.c's
 * printer): same keys, same order, same nesting and indentation, integers
 * as %lld and floats as %f, so scripts written against fio's JSON (and
 * fio's own fio_jsonplus_clat2csv) read ours.
 */
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "block_info.h"
#include "json_writer.h"
#include "output.h"
#include "steadystate.h"
#include "idle_prof.h"

/* fio's add_ddir_lat_json: summary, percentiles when enabled and there
 * are samples, and for JSON+ the non-empty histogram buckets by value. */
static void lat_json(struct jw *w, const char *key, const struct iogap_job_stat *st,
		     bool percentiles, const struct iogap_io_stat *s, const uint64_t *plat,
		     bool plus)
{
	double list[IOGAP_MAX_PERCENTILES];
	uint64_t vals[IOGAP_MAX_PERCENTILES];
	unsigned i, nr;
	char buf[64];

	jw_obj(w, key);
	jw_u64(w, "min", s->samples ? s->min_val : 0);
	jw_u64(w, "max", s->samples ? s->max_val : 0);
	jw_float(w, "mean", s->samples ? s->mean : 0.0);
	jw_float(w, "stddev", s->samples ? iogap_io_stat_stddev(s) : 0.0);
	jw_u64(w, "N", s->samples);

	if (percentiles && s->samples) {
		nr = iogap_report_percentiles(st, list);
		iogap_plat_percentiles(plat, list, nr, vals);
		jw_obj(w, "percentile");
		for (i = 0; i < nr; i++) {
			snprintf(buf, sizeof(buf), "%f", list[i]);
			jw_u64(w, buf, vals[i]);
		}
		jw_end(w);

		if (plus) {
			jw_obj(w, "bins");
			for (i = 0; i < IOGAP_PLAT_NR; i++) {
				if (!plat[i])
					continue;
				snprintf(buf, sizeof(buf), "%" PRIu64, iogap_plat_idx_to_val(i));
				jw_u64(w, buf, plat[i]);
			}
			jw_end(w);
		}
	}
	jw_end(w);
}

/* fio's per-priority latencies (cmdprio): only with two priorities or
 * more that have samples; clat, or lat with lat_percentiles */
static void prios_json(struct jw *w, const struct iogap_job_stat *st, unsigned d, bool plus)
{
	if (d > 1 || st->disable_prio_stat || iogap_clat_prio_with_samples(st, d) < 2)
		return;
	jw_open(w, "prios", '[');
	for (unsigned i = 0; i < st->nr_clat_prio[d]; i++) {
		const struct iogap_clat_prio *cp = &st->clat_prio[d][i];

		if (!cp->lat.samples)
			continue;
		jw_open(w, NULL, '{');
		jw_int(w, "prioclass", cp->ioprio >> 13);
		jw_int(w, "prio", cp->ioprio & 7);
		lat_json(w, st->lat_percentiles ? "lat_ns" : "clat_ns", st,
			 st->clat_percentiles || st->lat_percentiles, &cp->lat, cp->plat, plus);
		jw_close(w, '}');
	}
	jw_close(w, ']');
}

static const struct iogap_group_stat *group_of(const struct iogap_run_report *r,
					       const struct iogap_job_stat *st)
{
	size_t i;

	for (i = 0; i < r->groups_nr; i++)
		if (r->groups[i].groupid == st->groupid)
			return &r->groups[i];
	return NULL;
}

/* fio's add_ddir_status_json for read, write, trim, or "mixed" (dir 0
 * of a unified_rw_reporting stat). */
static void ddir_json(struct jw *w, const struct iogap_job_stat *st,
		      const struct iogap_group_stat *rs, unsigned d, const char *name, bool plus)
{
	const struct iogap_ddir_stat *ds = &st->dir[d];
	uint64_t bw_bytes = 0;
	double iops = 0.0, p_of_agg = 0.0;

	if (ds->runtime_ms) {
		bw_bytes = 1000 * ds->io_bytes / ds->runtime_ms;
		iops = 1000.0 * (double)ds->total_io_u / (double)ds->runtime_ms;
	}

	jw_obj(w, name);
	jw_u64(w, "io_bytes", ds->io_bytes);
	jw_u64(w, "io_kbytes", ds->io_bytes >> 10);
	jw_u64(w, "bw_bytes", bw_bytes);
	jw_u64(w, "bw", bw_bytes / 1024);
	jw_float(w, "iops", iops);
	jw_u64(w, "runtime", ds->runtime_ms);
	jw_u64(w, "total_ios", ds->total_io_u);
	jw_u64(w, "short_ios", ds->short_io_u);
	jw_u64(w, "drop_ios", ds->drop_io_u);
	lat_json(w, "slat_ns", st, st->slat_percentiles, &ds->lat[IOGAP_SLAT],
		 ds->plat[IOGAP_SLAT], plus);
	lat_json(w, "clat_ns", st, st->clat_percentiles, &ds->lat[IOGAP_CLAT],
		 ds->plat[IOGAP_CLAT], plus);
	lat_json(w, "lat_ns", st, st->lat_percentiles, &ds->lat[IOGAP_LAT],
		 ds->plat[IOGAP_LAT], plus);
	prios_json(w, st, d, plus);

	/* fio's convert_agg_kbytes_percent, whose mean parameter is an int. */
	if (ds->bw.samples) {
		p_of_agg = 100.0;
		if (rs && rs->agg_bw[d] > 1024) {
			p_of_agg = (int)ds->bw.mean * 100.0 / ((double)rs->agg_bw[d] / 1024.0);
			if (p_of_agg > 100.0)
				p_of_agg = 100.0;
		}
	}
	jw_u64(w, "bw_min", ds->bw.samples ? ds->bw.min_val : 0);
	jw_u64(w, "bw_max", ds->bw.samples ? ds->bw.max_val : 0);
	jw_float(w, "bw_agg", p_of_agg);
	jw_float(w, "bw_mean", ds->bw.samples ? ds->bw.mean : 0.0);
	jw_float(w, "bw_dev", ds->bw.samples ? iogap_io_stat_stddev(&ds->bw) : 0.0);
	jw_u64(w, "bw_samples", ds->bw.samples);
	jw_u64(w, "iops_min", ds->iops.samples ? ds->iops.min_val : 0);
	jw_u64(w, "iops_max", ds->iops.samples ? ds->iops.max_val : 0);
	jw_float(w, "iops_mean", ds->iops.samples ? ds->iops.mean : 0.0);
	jw_float(w, "iops_stddev", ds->iops.samples ? iogap_io_stat_stddev(&ds->iops) : 0.0);
	jw_u64(w, "iops_samples", ds->iops.samples);
	jw_end(w);
}

/* read, write, trim; unified_rw_reporting=mixed: "mixed" alone (the
 * stat is mixed already); both: "mixed" after them, from a mixed copy */
static void ddirs_json(struct jw *w, const struct iogap_job_stat *st,
		       const struct iogap_group_stat *rs, bool plus)
{
	static const char *const names[IOGAP_DDIR_NR] = { "read", "write", "trim" };
	unsigned unified = st->job ? st->job->unified_rw : IOGAP_UNIFIED_SPLIT;
	struct iogap_job_stat *mixed;

	if (unified == IOGAP_UNIFIED_MIXED) {
		ddir_json(w, st, rs, 0, "mixed", plus);
		return;
	}
	for (unsigned d = 0; d < IOGAP_DDIR_NR; d++)
		ddir_json(w, st, rs, d, names[d], plus);
	if (unified != IOGAP_UNIFIED_BOTH || !(mixed = malloc(sizeof(*mixed))))
		return;
	*mixed = *st;
	iogap_job_stat_mix(mixed);
	ddir_json(w, mixed, rs, 0, "mixed", plus);
	free(mixed);
}

static void depth_json(struct jw *w, const char *key, const uint64_t *map, uint64_t total,
		       bool batch)
{
	static const char *const depth[] = { "1", "2", "4", "8", "16", "32", ">=64" };
	static const char *const batches[] = { "0", "4", "8", "16", "32", "64", ">=64" };
	unsigned i;

	jw_obj(w, key);
	for (i = 0; i < IOGAP_DEPTH_MAP_NR; i++)
		jw_float(w, batch ? batches[i] : depth[i], iogap_share_pct(map[i], total, 0.1));
	jw_end(w);
}

static void lat_share_json(struct jw *w, const char *key, const uint64_t *src,
			   unsigned nr, uint64_t total)
{
	static const char *const ranges[] = { "2", "4", "10", "20", "50", "100", "250",
		"500", "750", "1000", "2000", ">=2000" };
	unsigned i;

	jw_obj(w, key);
	for (i = 0; i < nr; i++)
		jw_float(w, ranges[i], iogap_share_pct(src[i], total, 0.01));
	jw_end(w);
}

static const char *kv_value(const struct iogap_job_kv *kv)
{
	return kv->value ? kv->value : "";
}

/* fio's json_add_job_opts: absent when there are no options; options
 * without a value are left out (fio cannot store an empty string). */
static void opts_json(struct jw *w, const char *key, const struct iogap_job_kv *kv,
		      size_t nr)
{
	size_t i;

	if (!nr)
		return;
	jw_obj(w, key);
	for (i = 0; i < nr; i++)
		if (kv[i].key)
			jw_str(w, kv[i].key, kv_value(&kv[i]));
	jw_end(w);
}

/* How many leading options of a job repeat the [global] ones. */
static size_t global_prefix(const struct iogap_run_report *r, const struct iogap_job *job)
{
	size_t i;

	if (!r->global_kv || job->kv_nr < r->global_kv_nr)
		return 0;
	for (i = 0; i < r->global_kv_nr; i++) {
		const struct iogap_job_kv *a = &r->global_kv[i], *b = &job->kv[i];

		if (!a->key || !b->key || strcmp(a->key, b->key) ||
		    strcmp(kv_value(a), kv_value(b)))
			return 0;
	}
	return r->global_kv_nr;
}

/* fio's ts->continue_on_error: set by continue_on_error or ignore_error */
static bool continue_on_error(const struct iogap_job *job)
{
	return job && job->continue_on_error;
}

static uint64_t elapsed_sec(const struct iogap_run_report *r)
{
	uint64_t ms = r->elapsed_ms;
	size_t i;
	unsigned d;

	if (!ms)
		for (i = 0; i < r->nr; i++)
			for (d = 0; d < IOGAP_DDIR_NR; d++)
				if (r->stats[i].dir[d].runtime_ms > ms)
					ms = r->stats[i].dir[d].runtime_ms;
	return (ms + 999) / 1000;
}

static void job_json(struct jw *w, const struct iogap_run_report *r,
		     const struct iogap_job_stat *st, bool plus)
{
	const struct iogap_group_stat *rs = group_of(r, st);
	const struct iogap_job *opts = st->opts_job ? st->opts_job : st->job;
	uint64_t issued = 0, elapsed = elapsed_sec(r);
	double usr = 0, sys = 0;
	unsigned d;

	for (d = 0; d < IOGAP_DDIR_NR; d++)
		issued += st->dir[d].total_io_u;

	jw_obj(w, NULL);
	jw_str(w, "jobname", st->name);
	jw_int(w, "groupid", st->groupid);
	jw_int(w, "error", st->error);
	/* fio's eta at the end of a run: INT_MAX while under 3 s elapsed,
	 * else the (finished) jobs' remaining time, 0. */
	jw_int(w, "eta", elapsed < 3 ? INT_MAX : 0);
	jw_u64(w, "elapsed", elapsed);
	if (opts && opts->kv) {
		size_t skip = global_prefix(r, opts);

		opts_json(w, "job options", opts->kv + skip, opts->kv_nr - skip);
	}

	ddirs_json(w, st, rs, plus);
	jw_obj(w, "sync");
	jw_u64(w, "total_ios", st->total_sync);
	lat_json(w, "lat_ns", st, st->lat_percentiles || st->clat_percentiles,
		 &st->sync_stat, st->sync_plat, plus);
	jw_end(w);

	/* fio keeps cpu times in whole milliseconds. */
	if (st->total_run_time_ms) {
		usr = (double)(st->usr_time_us / 1000) * 100 / (double)st->total_run_time_ms;
		sys = (double)(st->sys_time_us / 1000) * 100 / (double)st->total_run_time_ms;
	}
	jw_u64(w, "job_runtime", st->total_run_time_ms);
	jw_float(w, "usr_cpu", usr);
	jw_float(w, "sys_cpu", sys);
	jw_u64(w, "ctx", st->ctx);
	jw_u64(w, "majf", st->majf);
	jw_u64(w, "minf", st->minf);

	depth_json(w, "iodepth_level", st->io_u_map, issued, false);
	depth_json(w, "iodepth_submit", st->io_u_submit, st->total_submit, true);
	depth_json(w, "iodepth_complete", st->io_u_complete, st->total_complete, true);
	lat_share_json(w, "latency_ns", st->io_u_lat_n, IOGAP_LAT_N_NR, issued);
	lat_share_json(w, "latency_us", st->io_u_lat_u, IOGAP_LAT_U_NR, issued);
	lat_share_json(w, "latency_ms", st->io_u_lat_m, IOGAP_LAT_M_NR, issued);

	if (continue_on_error(st->job)) {
		jw_u64(w, "total_err", st->total_err_count);
		jw_int(w, "first_error", st->first_error);
	}
	if (st->iodepth) {
		jw_int(w, "latency_depth", st->iodepth);
		jw_u64(w, "latency_target", st->job ? st->job->latency_target_ns : 0);
		jw_float(w, "latency_percentile", st->job ? st->job->latency_percentile : 100.0);
		jw_u64(w, "latency_window", st->job ? st->job->latency_window_us : 0);
	}
	jw_str(w, "desc", st->description);
	if (st->ss)
		iogap_ss_json(w, st->ss);
	iogap_block_infos_json(w, st);   /* block_error_percentiles */
	jw_end(w);
}

/* fio's json_array_add_disk_util. */
static void disk_json(struct jw *w, const struct iogap_disk_util *du)
{
	double util = 0;

	if (du->msec)
		util = 100.0 * (double)du->io_ticks / (double)du->msec;
	if (util > 100.0)
		util = 100.0;

	jw_obj(w, NULL);
	jw_str(w, "name", du->name);
	jw_u64(w, "read_ios", du->ios[0]);
	jw_u64(w, "write_ios", du->ios[1]);
	jw_u64(w, "read_merges", du->merges[0]);
	jw_u64(w, "write_merges", du->merges[1]);
	jw_u64(w, "read_ticks", du->ticks[0]);
	jw_u64(w, "write_ticks", du->ticks[1]);
	jw_u64(w, "in_queue", du->time_in_queue);
	jw_float(w, "util", util);
	if (du->slavecount) {
		uint64_t n = du->slavecount;

		jw_u64(w, "aggr_read_ios", du->agg_ios[0] / n);
		jw_u64(w, "aggr_write_ios", du->agg_ios[1] / n);
		jw_u64(w, "aggr_read_merges", du->agg_merges[0] / n);
		jw_u64(w, "aggr_write_merge", du->agg_merges[1] / n);   /* sic, fio */
		jw_u64(w, "aggr_read_ticks", du->agg_ticks[0] / n);
		jw_u64(w, "aggr_write_ticks", du->agg_ticks[1] / n);
		jw_u64(w, "aggr_in_queue", du->agg_time_in_queue / n);
		jw_float(w, "aggr_util", du->agg_max_util);
	}
	jw_end(w);
}

void iogap_output_json(FILE *f, const struct iogap_run_report *r, bool plus)
{
	struct jw w = { .f = f };
	uint64_t ms = r->timestamp_ms ? r->timestamp_ms : (uint64_t)r->timestamp * 1000;
	char when[32] = "";
	size_t i;

	ctime_r(&r->timestamp, when);
	when[strcspn(when, "\n")] = '\0';

	jw_obj(&w, NULL);
	jw_str(&w, "fio version", r->version);
	jw_int(&w, "timestamp", (long long)r->timestamp);
	jw_u64(&w, "timestamp_ms", ms);
	jw_str(&w, "time", when);
	opts_json(&w, "global options", r->global_kv, r->global_kv ? r->global_kv_nr : 0);
	jw_open(&w, "jobs", '[');
	for (i = 0; i < r->nr; i++)
		job_json(&w, r, &r->stats[i], plus);
	jw_close(&w, ']');
	if (r->disks_nr) {
		jw_open(&w, "disk_util", '[');
		for (i = 0; i < r->disks_nr; i++)
			disk_json(&w, &r->disks[i]);
		jw_close(&w, ']');
	}
	if (r->idle)
		iogap_idle_json(&w, r->idle);
	jw_end(&w);
	fputc('\n', f);
}
