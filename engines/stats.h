/* SPDX-License-Identifier: MIT */
/*
 * Latency and throughput statistics with fio's definitions: the same
 * log-linear histogram (so percentiles and json+ bins match fio's), the
 * same running mean/variance, the same depth and latency buckets.
 */
#ifndef IOGAP_STATS_H
#define IOGAP_STATS_H

#include <stdbool.h>
#include <stdint.h>

#include "job.h"

#define IOGAP_PLAT_BITS     6
#define IOGAP_PLAT_VAL      (1u << IOGAP_PLAT_BITS)
#define IOGAP_PLAT_GROUP_NR 29
#define IOGAP_PLAT_NR       (IOGAP_PLAT_GROUP_NR * IOGAP_PLAT_VAL)

#define IOGAP_DEPTH_MAP_NR  7    /* 1, 2, 4, 8, 16, 32, >=64 */
#define IOGAP_LAT_N_NR      10   /* 2,4,10,20,50,100,250,500,750,1000 ns */
#define IOGAP_LAT_U_NR      10   /* same steps in us */
#define IOGAP_LAT_M_NR      12   /* 2..2000 ms, >=2000 */
#define IOGAP_BLOCK_INFOS_MAX 8192  /* fio's MAX_NR_BLOCK_INFOS */

enum iogap_lat_kind { IOGAP_SLAT = 0, IOGAP_CLAT = 1, IOGAP_LAT = 2, IOGAP_LAT_KINDS = 3 };

/* fio's io_stat: min/max/samples and Welford mean/variance. */
struct iogap_io_stat {
	uint64_t min_val;
	uint64_t max_val;
	uint64_t samples;
	double mean;
	double S;                 /* sum of squared deviations */
};

struct iogap_ddir_stat {
	struct iogap_io_stat lat[IOGAP_LAT_KINDS];   /* ns */
	struct iogap_io_stat bw;                     /* KiB/s per sample window */
	struct iogap_io_stat iops;                   /* IOPS per sample window */
	uint64_t plat[IOGAP_LAT_KINDS][IOGAP_PLAT_NR]; /* histograms, ns */
	uint64_t io_bytes;        /* completed bytes (after ramp) */
	uint64_t total_io_u;      /* issued requests, fio's "issued rwts" */
	uint64_t short_io_u;
	uint64_t drop_io_u;
	uint64_t runtime_ms;      /* time this direction was active */
	uint64_t zone_resets;
};

struct iogap_ss;
/* fio's clat_prio_stat: one priority's latencies in a direction (clat,
 * or lat with lat_percentiles, as fio) */
struct iogap_clat_prio {
	uint16_t ioprio;          /* class << 13 | level */
	struct iogap_io_stat lat;
	uint64_t plat[IOGAP_PLAT_NR];
};

/* Per job (or per reporting group when group_reporting), fio's thread_stat. */
struct iogap_job_stat {
	char name[128];
	char description[256];
	char verror[128];
	int error;
	bool error_continued;     /* error is the first one the job went on after
				   * (continue_on_error; fio reports it): no failure */
	unsigned groupid;
	unsigned members;         /* threads folded in (group_reporting) */
	unsigned thread_number;   /* 1-based, as fio */
	int pid;

	struct iogap_ddir_stat dir[IOGAP_DDIR_NR];
	struct iogap_io_stat sync_stat;        /* fsync/fdatasync latency */
	uint64_t sync_plat[IOGAP_PLAT_NR];
	uint64_t total_sync;

	uint64_t usr_time_us, sys_time_us;
	uint64_t ctx, minf, majf;

	uint64_t io_u_map[IOGAP_DEPTH_MAP_NR];      /* depth when submitting */
	uint64_t io_u_submit[IOGAP_DEPTH_MAP_NR];   /* ios per submit call */
	uint64_t io_u_complete[IOGAP_DEPTH_MAP_NR]; /* ios per reap call */
	uint64_t io_u_lat_n[IOGAP_LAT_N_NR];        /* clat buckets */
	uint64_t io_u_lat_u[IOGAP_LAT_U_NR];
	uint64_t io_u_lat_m[IOGAP_LAT_M_NR];
	uint64_t total_submit, total_complete;
	uint64_t total_run_time_ms;
	uint64_t total_err_count;
	int first_error;

	bool clat_percentiles, lat_percentiles, slat_percentiles;
	double percentile_list[IOGAP_MAX_PERCENTILES];
	unsigned percentile_nr;

	/* prio.c: per priority, when a job's requests have several (cmdprio) */
	uint16_t ioprio;          /* the job's (prio/prioclass), 0: none */
	bool disable_prio_stat;   /* group members of different priorities */
	unsigned nr_clat_prio[2];
	struct iogap_clat_prio clat_prio[2][IOGAP_MAX_CLAT_PRIO];

	/* block_error_percentiles (guest-probe/block_info.c): fio's state and
	 * trim count of each trim-sized block of the job's file */
	uint32_t nr_block_infos;
	uint32_t block_infos[IOGAP_BLOCK_INFOS_MAX];
	const struct iogap_job *job;  /* options of the (first) job it reports */
	/* JSON "job options": of the last job a group sums, as fio (NULL: job) */
	const struct iogap_job *opts_job;
	char ioengine[32];
	unsigned iodepth;         /* fio's latency_depth: the depth the latency
				   * target settled on, else iodepth */
	const struct iogap_ss *ss; /* steady state (guest-probe/steadystate.h), or NULL */
};

/* fio's group_run_stats: one per reporting group, for "Run status group". */
struct iogap_group_stat {
	unsigned groupid;
	uint64_t max_run_ms[IOGAP_DDIR_NR], min_run_ms[IOGAP_DDIR_NR];
	uint64_t max_bw[IOGAP_DDIR_NR], min_bw[IOGAP_DDIR_NR];  /* bytes/s */
	uint64_t io_bytes[IOGAP_DDIR_NR];
	uint64_t agg_bw[IOGAP_DDIR_NR];                         /* bytes/s */
	int sig_figs;             /* the group's last job's significant_figures */
	bool kb_base_1000;        /* its kb_base=1000: SI units first in the output */
	int unit_base;            /* its unit_base as fio's num2str units (B/s or bit/s) */
};

/* Block device counters from /sys/block/X/stat, before/after a run. */
struct iogap_disk_util {
	char name[64];
	uint64_t ios[2], merges[2], sectors[2], ticks[2];
	uint64_t io_ticks, time_in_queue;
	uint64_t msec;            /* wall time covered */
	double util;              /* percent */
	/* fio's disk_util_agg: sums over the slaves of a dm/md device,
	 * printed as "aggrios=..." (averaged over slavecount) */
	unsigned slavecount;
	uint64_t agg_ios[2], agg_merges[2], agg_sectors[2], agg_ticks[2];
	uint64_t agg_time_in_queue;
	double agg_max_util;
};

/* Hot-path helpers (inline: called per I/O). */
/*
 * Histogram layout (fio's plat_val_to_idx): values below 2^(PLAT_BITS+1)
 * get one bucket each; above, each power of two is split into PLAT_VAL
 * buckets, so the relative error stays below 1/PLAT_VAL.
 */
static inline unsigned iogap_plat_val_to_idx(uint64_t val)
{
	unsigned msb, error_bits, base, offset, idx;

	msb = val ? 63u - (unsigned)__builtin_clzll(val) : 0;

	/* Small values are exact: the value is the index. */
	if (msb <= IOGAP_PLAT_BITS)
		return (unsigned)val;

	error_bits = msb - IOGAP_PLAT_BITS;
	base = (error_bits + 1) << IOGAP_PLAT_BITS;
	offset = (IOGAP_PLAT_VAL - 1) & (unsigned)(val >> error_bits);

	/* Everything beyond the last group lands in the last bucket. */
	idx = base + offset;
	if (idx > IOGAP_PLAT_NR - 1)
		idx = IOGAP_PLAT_NR - 1;
	return idx;
}

uint64_t iogap_plat_idx_to_val(unsigned idx);

static inline void iogap_io_stat_add(struct iogap_io_stat *s, uint64_t val)
{
	double delta, val_d = (double)val;

	if (val > s->max_val)
		s->max_val = val;
	if (val < s->min_val || s->samples == 0)
		s->min_val = val;
	s->samples++;
	delta = val_d - s->mean;
	if (delta != 0.0) {
		s->mean += delta / (double)s->samples;
		s->S += delta * (val_d - s->mean);
	}
}

void iogap_io_stat_merge(struct iogap_io_stat *dst, const struct iogap_io_stat *src);
double iogap_io_stat_stddev(const struct iogap_io_stat *s);
void iogap_lat_bucket_add(struct iogap_job_stat *st, uint64_t nsec);
unsigned iogap_depth_to_map_idx(unsigned depth);
/* Index into io_u_submit/io_u_complete for a batch of nr requests per
 * submit or reap call (fio's __io_u_mark_map: 0, 1-4, 5-8, ..., >64). */
unsigned iogap_batch_to_map_idx(unsigned nr);

/* A completion's latency for its priority entry (fio's add_stat_prio_sample:
 * pass clat, or lat when lat_percentiles). */
static inline void iogap_clat_prio_add(struct iogap_job_stat *st, unsigned ddir, unsigned idx,
				       uint64_t nsec)
{
	struct iogap_clat_prio *cp;

	if (ddir > 1 || idx >= st->nr_clat_prio[ddir])
		return;
	cp = &st->clat_prio[ddir][idx];
	iogap_io_stat_add(&cp->lat, nsec);
	cp->plat[iogap_plat_val_to_idx(nsec)]++;
}
/* fio's get_nr_prios_with_samples */
unsigned iogap_clat_prio_with_samples(const struct iogap_job_stat *st, unsigned ddir);

/* Merge src into dst as fio's sum_thread_stats (group_reporting). */
void iogap_job_stat_merge(struct iogap_job_stat *dst, const struct iogap_job_stat *src);

/* unified_rw_reporting=mixed: fold every direction into dir[0]. */
void iogap_job_stat_mix(struct iogap_job_stat *st);
/* Percentiles from a histogram, fio's calc_clat_percentiles: fills vals
 * for each of plist (sorted ascending).  Returns number of samples. */
uint64_t iogap_plat_percentiles(const uint64_t *plat, const double *plist, unsigned nr,
				uint64_t *vals);

#endif
