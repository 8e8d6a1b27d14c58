/* SPDX-License-Identifier: MIT */
/*
 * fio's statistics helpers (stat.c, io_u.c), reimplemented so that every
 * histogram index, percentile and merged mean comes out as fio computes it:
 * a report from iogap must be comparable number for number with fio's.
 */
#include <math.h>
#include <string.h>

#include "stats.h"

/* The value a bucket stands for: the middle of its range (fio's
 * plat_idx_to_val, including its double arithmetic). */
uint64_t iogap_plat_idx_to_val(unsigned idx)
{
	unsigned error_bits;
	uint64_t k, base;

	if (idx >= IOGAP_PLAT_NR)
		idx = IOGAP_PLAT_NR - 1;
	if (idx < (IOGAP_PLAT_VAL << 1))
		return idx;

	error_bits = (idx >> IOGAP_PLAT_BITS) - 1;
	base = (uint64_t)1 << (error_bits + IOGAP_PLAT_BITS);
	k = idx % IOGAP_PLAT_VAL;

	return base + (uint64_t)(((double)k + 0.5) * (double)(1u << error_bits));
}

/*
 * fio's sum_stat() without pure_sum: merge two Welford accumulators with
 * the parallel-variance formula (Chan et al.), so merging per-thread stats
 * gives the mean and S of the union of their samples.
 */
void iogap_io_stat_merge(struct iogap_io_stat *dst, const struct iogap_io_stat *src)
{
	double n_dst, n_src, delta;

	if (src->samples == 0)
		return;
	if (dst->samples == 0) {
		/* fio starts dst at min=ULONG_MAX; a zeroed dst means "empty". */
		*dst = *src;
		return;
	}

	if (src->min_val < dst->min_val)
		dst->min_val = src->min_val;
	if (src->max_val > dst->max_val)
		dst->max_val = src->max_val;

	n_dst = (double)dst->samples;
	n_src = (double)src->samples;
	delta = src->mean - dst->mean;
	dst->S = src->S + dst->S + pow(delta, 2.0) * (n_dst * n_src) / (n_dst + n_src);
	dst->mean = (src->mean * n_src + dst->mean * n_dst) / (n_dst + n_src);
	dst->samples += src->samples;
}

/* fio's sum_stat() with pure_sum: bandwidth and IOPS of group members add
 * up (the group did that much), they are not averaged. */
static void io_stat_sum(struct iogap_io_stat *dst, const struct iogap_io_stat *src)
{
	if (src->samples == 0)
		return;
	if (dst->samples == 0) {
		*dst = *src;
		return;
	}
	dst->min_val += src->min_val;
	dst->max_val += src->max_val;
	dst->samples += src->samples;
	dst->mean += src->mean;
	dst->S += src->S;
}

/* Sample standard deviation, as fio's calc_lat(). */
double iogap_io_stat_stddev(const struct iogap_io_stat *s)
{
	double n = (double)s->samples;

	if (n > 1.0)
		return sqrt(s->S / (n - 1.0));
	return 0.0;
}

/* Which of 2,4,10,20,50,100,250,500,750,1000 a value in [0,1000) falls
 * under (fio's switch in io_u_mark_lat_nsec/usec): the count of bounds v
 * reaches, by decade (a request's latency seldom changes decade, so the
 * branch is foreseen; a loop over the bounds would run to them all). */
static unsigned lat_step_idx(uint64_t v)
{
	if (v < 10)
		return (v >= 2) + (v >= 4);
	if (v < 100)
		return 3 + (v >= 20) + (v >= 50);
	return 6 + (v >= 250) + (v >= 500) + (v >= 750);
}

/* fio's io_u_mark_latency: one count per completion in the ns, us or ms
 * bucket row (the runner passes clat, as fio does). */
void iogap_lat_bucket_add(struct iogap_job_stat *st, uint64_t nsec)
{
	uint64_t msec;

	if (nsec < 1000) {
		st->io_u_lat_n[lat_step_idx(nsec)]++;
		return;
	}
	if (nsec < 1000000) {
		st->io_u_lat_u[lat_step_idx(nsec / 1000)]++;
		return;
	}
	msec = nsec / 1000000;
	if (msec < 1000)
		st->io_u_lat_m[lat_step_idx(msec)]++;
	else if (msec < 2000)
		st->io_u_lat_m[10]++;
	else
		st->io_u_lat_m[11]++;
}

/* fio's io_u_mark_depth: buckets 1, 2-3, 4-7, 8-15, 16-31, 32-63, else.
 * Like fio, a depth of 0 counts as ">=64". */
unsigned iogap_depth_to_map_idx(unsigned depth)
{
	if (depth == 0 || depth >= 64)
		return 6;
	if (depth >= 32)
		return 5;
	if (depth >= 16)
		return 4;
	if (depth >= 8)
		return 3;
	if (depth >= 4)
		return 2;
	if (depth >= 2)
		return 1;
	return 0;
}

/* fio's __io_u_mark_map: 0, 1-4, 5-8, 9-16, 17-32, 33-64, >64. */
unsigned iogap_batch_to_map_idx(unsigned nr)
{
	if (nr == 0)
		return 0;
	if (nr <= 4)
		return 1;
	if (nr <= 8)
		return 2;
	if (nr <= 16)
		return 3;
	if (nr <= 32)
		return 4;
	if (nr <= 64)
		return 5;
	return 6;
}

static void u64_add(uint64_t *dst, const uint64_t *src, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		dst[i] += src[i];
}

static void ddir_stat_merge(struct iogap_ddir_stat *dst, const struct iogap_ddir_stat *src)
{
	unsigned k;

	for (k = 0; k < IOGAP_LAT_KINDS; k++) {
		iogap_io_stat_merge(&dst->lat[k], &src->lat[k]);
		u64_add(dst->plat[k], src->plat[k], IOGAP_PLAT_NR);
	}
	io_stat_sum(&dst->bw, &src->bw);
	io_stat_sum(&dst->iops, &src->iops);

	dst->io_bytes += src->io_bytes;
	dst->total_io_u += src->total_io_u;
	dst->short_io_u += src->short_io_u;
	dst->drop_io_u += src->drop_io_u;
	dst->zone_resets += src->zone_resets;
	/* Group members run side by side: the direction ran as long as the
	 * longest member. */
	if (dst->runtime_ms < src->runtime_ms)
		dst->runtime_ms = src->runtime_ms;
}

unsigned iogap_clat_prio_with_samples(const struct iogap_job_stat *st, unsigned ddir)
{
	unsigned n = 0;

	for (unsigned i = 0; ddir < 2 && i < st->nr_clat_prio[ddir]; i++)
		n += st->clat_prio[ddir][i].lat.samples > 0;
	return n;
}

/* Samples of priority prio into dst's entry for it (added when new, while
 * there is room). */
static void clat_prio_add_samples(struct iogap_job_stat *dst, unsigned d, uint16_t prio,
				  const struct iogap_io_stat *lat, const uint64_t *plat)
{
	unsigned i;

	for (i = 0; i < dst->nr_clat_prio[d] && dst->clat_prio[d][i].ioprio != prio; i++)
		;
	if (i == IOGAP_MAX_CLAT_PRIO)
		return;
	if (i == dst->nr_clat_prio[d]) {
		memset(&dst->clat_prio[d][i], 0, sizeof(dst->clat_prio[d][i]));
		dst->clat_prio[d][i].ioprio = prio;
		dst->nr_clat_prio[d]++;
	}
	iogap_io_stat_merge(&dst->clat_prio[d][i].lat, lat);
	u64_add(dst->clat_prio[d][i].plat, plat, IOGAP_PLAT_NR);
}

/* fio's sum_clat_prio_stats: a member without per-priority entries
 * counts all its samples (clat, or lat with lat_percentiles) under its
 * job's priority; dst, when a copy of its first member, gets them too. */
static void clat_prio_merge(struct iogap_job_stat *dst, const struct iogap_job_stat *src)
{
	unsigned k = src->lat_percentiles ? IOGAP_LAT : IOGAP_CLAT;

	if (dst->members == 0)
		dst->ioprio = src->ioprio;
	else if (dst->ioprio != src->ioprio)
		dst->disable_prio_stat = true;
	if (dst->disable_prio_stat)
		return;
	for (unsigned d = 0; d < 2; d++) {
		if (dst->members && !dst->nr_clat_prio[d] && src->nr_clat_prio[d])
			clat_prio_add_samples(dst, d, dst->ioprio, &dst->dir[d].lat[k],
					      dst->dir[d].plat[k]);
		if (!src->nr_clat_prio[d] && (dst->nr_clat_prio[d] || !dst->members))
			clat_prio_add_samples(dst, d, src->ioprio, &src->dir[d].lat[k],
					      src->dir[d].plat[k]);
		for (unsigned i = 0; i < src->nr_clat_prio[d]; i++)
			clat_prio_add_samples(dst, d, src->clat_prio[d][i].ioprio,
					      &src->clat_prio[d][i].lat, src->clat_prio[d][i].plat);
	}
}

/* The first member names the entry (fio's "ts->groupid == -1" branch). */
static void take_identity(struct iogap_job_stat *dst, const struct iogap_job_stat *src)
{
	memcpy(dst->name, src->name, sizeof(dst->name));
	memcpy(dst->description, src->description, sizeof(dst->description));
	memcpy(dst->ioengine, src->ioengine, sizeof(dst->ioengine));
	dst->groupid = src->groupid;
	dst->thread_number = src->thread_number;
	dst->pid = src->pid;
	dst->job = src->job;
}

/*
 * fio's __show_run_stats member loop plus sum_thread_stats(): latencies
 * merge as distributions, counters and histograms add up, bandwidth/IOPS
 * samples add up, runtimes take the maximum.  dst may be zeroed (it then
 * takes src's name, group, pid) or a copy of the first member.
 */
void iogap_job_stat_merge(struct iogap_job_stat *dst, const struct iogap_job_stat *src)
{
	unsigned d;

	if (dst->members == 0)
		take_identity(dst, src);

	/* Per-member settings: fio copies them from every member, the last
	 * one wins. */
	dst->clat_percentiles = src->clat_percentiles;
	dst->lat_percentiles = src->lat_percentiles;
	dst->slat_percentiles = src->slat_percentiles;
	memcpy(dst->percentile_list, src->percentile_list, sizeof(dst->percentile_list));
	dst->percentile_nr = src->percentile_nr;
	dst->iodepth = src->iodepth;       /* fio's latency_depth */
	dst->ss = src->ss;                 /* the group's last thread keeps the samples */
	dst->first_error = src->first_error;
	dst->total_err_count += src->total_err_count;
	if (!dst->error && src->error) {
		dst->error = src->error;
		dst->error_continued = src->error_continued;
		memcpy(dst->verror, src->verror, sizeof(dst->verror));
	}

	clat_prio_merge(dst, src);   /* before dst's totals take src's */
	for (d = 0; d < IOGAP_DDIR_NR; d++)
		ddir_stat_merge(&dst->dir[d], &src->dir[d]);
	if (src->nr_block_infos) {   /* fio copies the last member's blocks */
		dst->nr_block_infos = src->nr_block_infos;
		memcpy(dst->block_infos, src->block_infos,
		       src->nr_block_infos * sizeof(src->block_infos[0]));
	}

	iogap_io_stat_merge(&dst->sync_stat, &src->sync_stat);
	u64_add(dst->sync_plat, src->sync_plat, IOGAP_PLAT_NR);
	dst->total_sync += src->total_sync;

	dst->usr_time_us += src->usr_time_us;
	dst->sys_time_us += src->sys_time_us;
	dst->ctx += src->ctx;
	dst->minf += src->minf;
	dst->majf += src->majf;

	u64_add(dst->io_u_map, src->io_u_map, IOGAP_DEPTH_MAP_NR);
	u64_add(dst->io_u_submit, src->io_u_submit, IOGAP_DEPTH_MAP_NR);
	u64_add(dst->io_u_complete, src->io_u_complete, IOGAP_DEPTH_MAP_NR);
	u64_add(dst->io_u_lat_n, src->io_u_lat_n, IOGAP_LAT_N_NR);
	u64_add(dst->io_u_lat_u, src->io_u_lat_u, IOGAP_LAT_U_NR);
	u64_add(dst->io_u_lat_m, src->io_u_lat_m, IOGAP_LAT_M_NR);

	dst->total_submit += src->total_submit;
	dst->total_complete += src->total_complete;
	/* fio sums it: cpu% of a group is relative to the summed job time. */
	dst->total_run_time_ms += src->total_run_time_ms;

	/* A stat that was never merged counts as one job. */
	dst->members += src->members ? src->members : 1;
}

/* fio's sum_thread_stats into a unified_rw_reporting=mixed thread_stat:
 * every direction's numbers into dir[0], as one direction. */
void iogap_job_stat_mix(struct iogap_job_stat *st)
{
	for (unsigned d = 1; d < IOGAP_DDIR_NR; d++) {
		ddir_stat_merge(&st->dir[0], &st->dir[d]);
		memset(&st->dir[d], 0, sizeof(st->dir[d]));
	}
}

/*
 * fio's calc_clat_percentiles walk: go up the buckets accumulating counts;
 * the p-th percentile is the first bucket where the running sum reaches
 * p% of the samples.  The comparison is done in long double as fio does,
 * which matters for percentiles such as 99.99 of large counts.
 */
uint64_t iogap_plat_percentiles(const uint64_t *plat, const double *plist, unsigned nr,
				uint64_t *vals)
{
	uint64_t samples = 0, sum = 0;
	unsigned i, j = 0;
	bool is_last = false;

	for (i = 0; i < IOGAP_PLAT_NR; i++)
		samples += plat[i];
	for (i = 0; i < nr; i++)
		vals[i] = 0;
	if (nr == 0 || samples == 0)
		return samples;

	for (i = 0; i < IOGAP_PLAT_NR && !is_last; i++) {
		sum += plat[i];
		while ((long double)sum >= (long double)plist[j] / 100.0 * samples) {
			vals[j] = iogap_plat_idx_to_val(i);
			is_last = (j == nr - 1);
			if (is_last)
				break;
			j++;
		}
	}
	return samples;
}
