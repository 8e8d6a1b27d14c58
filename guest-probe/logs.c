/* SPDX-License-Identifier: MIT */
/*
 * fio's per-job logs (its stat.c add_*_sample and iolog.c flush_samples,
 * rewritten), fed from the completed requests' trace records: the same
 * stamps the report and the trace use.  Averages follow fio's windows:
 * latencies per direction once a window has passed at a completion, and
 * at the end; bandwidth and IOPS as fio's helper thread samples them,
 * every log_avg_msec (a last partial window is not logged, as in fio).
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "log_gz.h"
#include "logs.h"
#include "prio.h"
#include "stats.h"
#include "util.h"

enum kind { K_SLAT, K_CLAT, K_LAT, K_BW, K_IOPS, K_HIST, K_NR };
static const char *const kind_names[K_NR] = { "slat", "clat", "lat", "bw", "iops", "clat_hist" };

struct window {                   /* fio's io_stat, as its avg_window */
	uint64_t n, max;
	double mean;
};

struct one_log {
	FILE *f;
	char *path;
	char *mem;                /* per_job_logs=0: the lines, appended at the end */
	size_t memlen;
	struct window win[IOGAP_DDIR_NR];
	uint64_t avg_last[IOGAP_DDIR_NR];   /* ms */
	struct iogap_log_gz *gz;  /* log_compression: the samples (log_gz.c) */
};

struct iogap_job_logs {
	const struct iogap_job *job;
	uint64_t t0_ns;
	uint64_t epoch_ms;        /* added to every time: log_unix_epoch and
				   * log_alternate_epoch's clock at the start */
	bool has_slat;
	struct one_log log[K_NR];
	uint64_t next_sample;     /* bw/iops with log_avg_msec: ms */
	uint64_t bytes[IOGAP_DDIR_NR], ios[IOGAP_DDIR_NR];
	uint64_t hist_last[IOGAP_DDIR_NR];  /* ms, 0 = not started (fio's) */
	uint64_t *plat[IOGAP_DDIR_NR], *plat_prev[IOGAP_DDIR_NR];
};

/* per_job_logs=0: jobs append their whole log to the shared file in turn */
static pthread_mutex_t shared_file_lock = PTHREAD_MUTEX_INITIALIZER;

static const char *prefix(const struct iogap_job *j, enum kind k)
{
	const char *p = k <= K_LAT ? j->write_lat_log : k == K_BW ? j->write_bw_log :
			k == K_IOPS ? j->write_iops_log : j->write_hist_log;

	return p && !*p ? j->name : p;   /* a bare option: the job's name */
}

bool iogap_logs_wanted(const struct iogap_job *j)
{
	for (int k = 0; k < K_NR; k++)
		if (prefix(j, k))
			return true;
	return false;
}

static bool kind_disabled(const struct iogap_job *j, enum kind k)
{
	return (k == K_SLAT && j->disable_slat) || (k == K_CLAT && j->disable_clat) ||
	       (k == K_LAT && j->disable_lat);
}

/* log_compression_cpus as a cpu_set_t; an error when the probe may run on
 * none of them (fio: "gz: failed to set CPU affinity") */
static int log_gz_cpus(const struct iogap_job *j, cpu_set_t *cpus, char *err, size_t errlen)
{
	cpu_set_t allowed;

	CPU_ZERO(cpus);
	if (!j->proc.log_gz_cpus_set)
		return 0;
	for (unsigned c = 0; c < IOGAP_MAX_CPUS && c < CPU_SETSIZE; c++)
		if (j->proc.log_gz_cpus[c / 8] & (1u << (c % 8)))
			CPU_SET(c, cpus);
	/* the main thread's CPUs: the job's own may be narrower (cpus_allowed) */
	if (sched_getaffinity(getpid(), sizeof(allowed), &allowed))
		allowed = *cpus;
	CPU_AND(&allowed, &allowed, cpus);
	if (!CPU_COUNT(&allowed))
		return iogap_seterr(err, errlen, "log_compression_cpus: the probe may run on none "
				    "of these CPUs");
	return 0;
}

static int open_one(struct one_log *o, const struct iogap_job *j, enum kind k, unsigned thread,
		    char *err, size_t errlen)
{
	const char *pre = prefix(j, k);
	size_t n = strlen(pre) + 48;

	if (!(o->path = malloc(n)))
		return iogap_seterr(err, errlen, "out of memory");
	if (j->per_job_logs)
		snprintf(o->path, n, "%s_%s.%u.log%s", pre, kind_names[k], thread,
			 j->log_gz_store ? ".fz" : "");
	else
		snprintf(o->path, n, "%s_%s.log%s", pre, kind_names[k], j->log_gz_store ? ".fz" : "");
	if (j->log_gz && k != K_HIST) {
		cpu_set_t cpus;

		if (log_gz_cpus(j, &cpus, err, errlen))
			return -1;
		o->gz = iogap_log_gz_new(j->log_gz, j->log_offset, j->log_prio,
					 j->proc.log_gz_cpus_set ? &cpus : NULL);
		if (!o->gz)
			return iogap_seterr(err, errlen, "out of memory for the compressed log");
	}
	o->f = j->per_job_logs ? fopen(o->path, "w") : open_memstream(&o->mem, &o->memlen);
	if (!o->f)
		return iogap_seterr(err, errlen, "%.200s: %s", o->path, strerror(errno));
	return 0;
}

int iogap_logs_open(struct iogap_job_logs **out, const struct iogap_job *j,
		    unsigned thread_number, bool has_slat, char *err, size_t errlen)
{
	struct iogap_job_logs *l = calloc(1, sizeof(*l));

	*out = l;
	if (!l)
		return iogap_seterr(err, errlen, "out of memory for the logs");
	l->job = j;
	l->has_slat = has_slat;
	l->next_sample = j->log_avg_msec;
	for (int k = 0; k < K_NR; k++)
		if (prefix(j, k) && !kind_disabled(j, k) &&
		    open_one(&l->log[k], j, k, thread_number, err, errlen))
			return -1;
	for (int d = 0; l->log[K_HIST].f && d < IOGAP_DDIR_NR; d++)
		if (!(l->plat[d] = calloc(IOGAP_PLAT_NR, sizeof(uint64_t))) ||
		    !(l->plat_prev[d] = calloc(IOGAP_PLAT_NR, sizeof(uint64_t))))
			return iogap_seterr(err, errlen, "out of memory for the histogram log");
	return 0;
}

void iogap_logs_start(struct iogap_job_logs *l, uint64_t t0_ns)
{
	const struct iogap_job *j = l->job;
	struct timespec ts;

	l->t0_ns = t0_ns;
	/* fio's set_epoch_time: log_unix_epoch is log_alternate_epoch with
	 * log_alternate_epoch_clock_id's clock (CLOCK_REALTIME by default) */
	if ((j->log_unix_epoch || j->log_alternate_epoch) &&
	    !clock_gettime((clockid_t)j->log_epoch_clock, &ts))
		l->epoch_ms = (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* "msec, value, ddir, bs[, offset], prio"; offset: the record's, within
 * its file (a job with several files keeps the file's index above it) */
static void put_line(const struct iogap_job_logs *l, struct one_log *o, uint64_t ms, uint64_t val,
		     unsigned ddir, uint64_t bs, uint64_t offset, uint16_t prio)
{
	ms += l->epoch_ms;
	if (o->gz) {
		iogap_log_gz_add(o->gz, ms, val, ddir, bs,
				 (uint64_t)IOGAP_TRACE_FILE_OFFSET(offset));
		return;
	}
	fprintf(o->f, "%" PRIu64 ", %" PRIu64 ", %u, %" PRIu64, ms, val, ddir, bs);
	if (l->job->log_offset)
		fprintf(o->f, ", %" PRIu64, (uint64_t)IOGAP_TRACE_FILE_OFFSET(offset));
	/* fio: the request's priority, or whether it is of the real-time class */
	if (l->job->log_prio)
		fprintf(o->f, ", 0x%04x\n", prio);
	else
		fprintf(o->f, ", %d\n", prio >> IOGAP_IOPRIO_CLASS_SHIFT == 1);
}

static void window_add(struct window *w, uint64_t v)
{
	w->n++;
	w->mean += ((double)v - w->mean) / (double)w->n;
	if (v > w->max)
		w->max = v;
}

/* fio's __add_stat_to_log: the window's mean (rounded) or maximum */
static void window_flush(const struct iogap_job_logs *l, struct one_log *o, unsigned d,
			 uint64_t ms)
{
	struct window *w = &o->win[d];

	if (w->n)
		put_line(l, o, ms, l->job->log_max_value ? w->max : (uint64_t)(w->mean + 0.50), d, 0,
			 0, 0);
	memset(w, 0, sizeof(*w));
}

/* fio's add_log_sample for a latency log: every request, or into the
 * window, which is logged once log_avg_msec have passed */
static void lat_sample(const struct iogap_job_logs *l, struct one_log *o, uint64_t ms,
		       uint64_t val, const struct iogap_trace_record *r, uint16_t prio)
{
	uint64_t avg = l->job->log_avg_msec;
	unsigned d = r->op;

	if (!avg) {
		put_line(l, o, ms, val, d, r->length, r->offset, prio);
		return;
	}
	window_add(&o->win[d], val);
	if (ms < o->avg_last[d] || ms - o->avg_last[d] < avg)
		return;
	window_flush(l, o, d, ms);
	o->avg_last[d] = ms - ms % avg;
}

/* fio's helper thread every log_avg_msec: the rates of the directions that
 * moved in the window that ended (KiB/s and IOPS) */
static void rate_samples(struct iogap_job_logs *l, uint64_t ms)
{
	uint64_t avg = l->job->log_avg_msec;

	for (; ms >= l->next_sample; l->next_sample += avg) {
		for (unsigned d = 0; d < IOGAP_DDIR_NR; d++) {
			if (!l->ios[d])
				continue;
			if (l->log[K_BW].f)
				put_line(l, &l->log[K_BW], l->next_sample,
					 l->bytes[d] * 1000 / avg / 1024, d, 0, 0, 0);
			if (l->log[K_IOPS].f)
				put_line(l, &l->log[K_IOPS], l->next_sample, l->ios[d] * 1000 / avg,
					 d, 0, 0, 0);
			l->bytes[d] = l->ios[d] = 0;
		}
	}
}

/* fio's add_clat_sample for write_hist_log: the clat histogram's counts
 * since the previous line, log_hist_coarseness buckets summed */
static void hist_sample(struct iogap_job_logs *l, uint64_t ms, uint64_t clat,
			const struct iogap_trace_record *r)
{
	const struct iogap_job *j = l->job;
	struct one_log *o = &l->log[K_HIST];
	unsigned d = r->op, stride = 1u << j->log_hist_coarseness;
	uint64_t *now = l->plat[d], *prev = l->plat_prev[d], window;

	if (j->clat_percentiles)
		now[iogap_plat_val_to_idx(clat)]++;
	if (!j->log_hist_msec)
		return;
	if (!l->hist_last[d])
		l->hist_last[d] = ms;
	window = ms - l->hist_last[d];
	if (window < j->log_hist_msec)
		return;
	fprintf(o->f, "%" PRIu64 ", %u, %u", ms + l->epoch_ms, d, r->length);
	for (unsigned i = 0; i < IOGAP_PLAT_NR; i += stride) {
		uint64_t sum = 0;

		for (unsigned k = i; k < i + stride; k++)
			sum += now[k] - prev[k];
		fprintf(o->f, ", %" PRIu64, sum);
	}
	fputc('\n', o->f);
	memcpy(prev, now, IOGAP_PLAT_NR * sizeof(*now));
	l->hist_last[d] = ms - (window - j->log_hist_msec);
}

void iogap_logs_add(struct iogap_job_logs *l, const struct iogap_trace_record *r, uint16_t prio)
{
	uint64_t val[3] = { r->issue_ns - r->start_ns, r->complete_ns - r->issue_ns,
			    r->complete_ns - r->start_ns };
	uint64_t ms = (r->complete_ns - l->t0_ns) / 1000000, bytes;

	if (r->flags & IOGAP_REC_RAMP || r->op > IOGAP_OP_TRIM || r->result < 0)
		return;
	bytes = (uint64_t)r->result;
	for (int k = K_SLAT; k <= K_LAT; k++)
		if (l->log[k].f && (k != K_SLAT || l->has_slat))
			lat_sample(l, &l->log[k], ms, val[k], r, prio);
	if (l->job->log_avg_msec && (l->log[K_BW].f || l->log[K_IOPS].f)) {
		rate_samples(l, ms);
		l->bytes[r->op] += bytes;
		l->ios[r->op]++;
	} else {
		if (l->log[K_BW].f && !l->job->disable_bw)   /* bytes per ms of clat: KB/s */
			put_line(l, &l->log[K_BW], ms, val[1] ? bytes * 1000000 / val[1] : 0, r->op,
				 bytes, r->offset, prio);
		if (l->log[K_IOPS].f)
			put_line(l, &l->log[K_IOPS], ms, 1, r->op, bytes, r->offset, prio);
	}
	if (l->log[K_HIST].f)
		hist_sample(l, ms, val[1], r);
}

static void close_one(const struct iogap_job_logs *l, struct one_log *o)
{
	FILE *f;

	if (!o->f)
		return;
	if (o->gz && iogap_log_gz_finish(o->gz, o->f, l->job->log_gz_store))
		fprintf(stderr, "iogap-probe: %s: compressing the log failed\n", o->path);
	fclose(o->f);
	if (o->mem) {   /* per_job_logs=0: appended whole, one job at a time */
		pthread_mutex_lock(&shared_file_lock);
		f = fopen(o->path, "a");
		if (f) {
			fwrite(o->mem, 1, o->memlen, f);
			fclose(f);
		} else {
			fprintf(stderr, "iogap-probe: %s: %s\n", o->path, strerror(errno));
		}
		pthread_mutex_unlock(&shared_file_lock);
		free(o->mem);
	}
}

void iogap_logs_close(struct iogap_job_logs *l, uint64_t t_end_ns)
{
	uint64_t ms;

	if (!l)
		return;
	ms = (t_end_ns - l->t0_ns) / 1000000;
	for (int k = K_SLAT; k <= K_LAT && l->job->log_avg_msec; k++)
		for (unsigned d = 0; l->log[k].f && d < IOGAP_DDIR_NR; d++)
			window_flush(l, &l->log[k], d, ms);   /* fio's finalize_logs */
	for (int k = 0; k < K_NR; k++) {
		close_one(l, &l->log[k]);
		free(l->log[k].path);
	}
	for (unsigned d = 0; d < IOGAP_DDIR_NR; d++) {
		free(l->plat[d]);
		free(l->plat_prev[d]);
	}
	free(l);
}
