/* SPDX-License-Identifier: MIT */
/* fio 3.33's steadystate.c and its output (stat.c); see steadystate.h. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"
#include "steadystate.h"
#include "util.h"
#include "debug.h"

#define NS_PER_SEC 1000000000ULL

/* fio's td_steadystate_init: the job's options, its window in seconds */
static void ss_init(struct iogap_ss *ss, const struct iogap_job *j)
{
	memset(ss, 0, sizeof(*ss));
	ss->dur = (unsigned)(j->ss_dur_ns / NS_PER_SEC);
	if (!ss->dur)
		return;
	ss->limit = j->ss_limit;
	ss->ramp_ns = j->ss_ramp_ns - j->ss_ramp_ns % 1000;   /* fio's microseconds */
	ss->state = j->ss_state;
	if (!ss->ramp_ns)
		ss->state |= IOGAP_SS_RAMP_OVER;
	ss->sum_x = (uint64_t)ss->dur * (ss->dur - 1) / 2;
	ss->sum_x_sq = (uint64_t)(ss->dur - 1) * ss->dur * (2 * ss->dur - 1) / 6;
}

static bool ss_same(const struct iogap_ss *a, const struct iogap_ss *b)
{
	return a->dur == b->dur && a->limit == b->limit && a->ramp_ns == b->ramp_ns &&
	       a->state == b->state;
}

static int ss_alloc(struct iogap_ss *ss)
{
	ss->bw_data = calloc(ss->dur, sizeof(uint64_t));
	ss->iops_data = calloc(ss->dur, sizeof(uint64_t));
	ss->state |= IOGAP_SS_DATA;
	return ss->bw_data && ss->iops_data ? 0 : -1;
}

/* fio's steadystate_setup: who keeps the samples */
static int ss_alloc_holders(struct iogap_ss_view *v, size_t n)
{
	struct iogap_ss_view *prev = NULL;
	long prev_group = -1;

	for (size_t i = 0; i < n; i++) {
		if (!v[i].ss->dur)
			continue;
		if (!v[i].job->group_reporting) {
			if (ss_alloc(v[i].ss))
				return -1;
			continue;
		}
		if (prev_group != (long)v[i].groupid) {
			if (prev && ss_alloc(prev->ss))
				return -1;
			prev_group = (long)v[i].groupid;
		}
		prev = &v[i];
	}
	if (prev && prev->job->group_reporting && ss_alloc(prev->ss))
		return -1;
	return 0;
}

int iogap_ss_setup(struct iogap_ss_view *v, size_t n, char *err, size_t errlen)
{
	bool any = false;

	for (size_t i = 0; i < n; i++) {
		const struct iogap_job *j = v[i].job;

		ss_init(v[i].ss, j);
		any = any || v[i].ss->dur;
		/* a line fitted through one point has no slope: fio never ends such a job */
		if (v[i].ss->dur == 1 && v[i].ss->state & IOGAP_SS_SLOPE)
			return iogap_seterr(err, errlen, "%s:%d: job '%s': ss=%s needs ss_dur of at "
					    "least 2 seconds", j->source_file ? j->source_file : "",
					    j->source_line, j->name,
					    v[i].ss->state & IOGAP_SS_IOPS ? "iops_slope" : "bw_slope");
		for (size_t k = 0; k < i; k++)
			if (v[k].groupid == v[i].groupid && !ss_same(v[k].ss, v[i].ss))
				return iogap_seterr(err, errlen, "%s:%d: job '%s' rejected: steadystate "
						    "options must be consistent within reporting groups",
						    j->source_file ? j->source_file : "",
						    j->source_line, j->name);
	}
	if (any && ss_alloc_holders(v, n))
		return iogap_seterr(err, errlen, "out of memory");
	return any;
}

void iogap_ss_free(struct iogap_ss *ss, size_t n)
{
	for (size_t i = 0; ss && i < n; i++) {
		free(ss[i].bw_data);
		free(ss[i].iops_data);
	}
	free(ss);
}

static uint64_t ss_sample(const struct iogap_ss *ss, unsigned i)
{
	return ss->state & IOGAP_SS_IOPS ? ss->iops_data[i] : ss->bw_data[i];
}

/* the window moves on: the next sample goes after this one */
static void ss_advance(struct iogap_ss *ss)
{
	ss->tail = (ss->tail + 1) % ss->dur;
	if (ss->tail <= ss->head)
		ss->head = (ss->head + 1) % ss->dur;
}

static bool ss_window_full(const struct iogap_ss *ss)
{
	return ss->state & IOGAP_SS_BUFFER_FULL || ss->tail - ss->head == ss->dur - 1;
}

/* fio's steadystate_slope: least squares over x = 0..dur-1 */
static bool ss_slope(struct iogap_ss *ss, uint64_t iops, uint64_t bw)
{
	uint64_t new_val = ss->state & IOGAP_SS_IOPS ? iops : bw;

	ss->bw_data[ss->tail] = bw;
	ss->iops_data[ss->tail] = iops;
	if (ss_window_full(ss)) {
		if (!(ss->state & IOGAP_SS_BUFFER_FULL)) {
			ss->sum_y = 0;
			for (unsigned i = 0; i < ss->dur; i++) {
				ss->sum_y += ss_sample(ss, i);
				ss->sum_xy += i * ss_sample(ss, (ss->head + i) % ss->dur);
			}
			ss->state |= IOGAP_SS_BUFFER_FULL;
		} else {
			ss->sum_y -= ss->oldest_y;
			ss->sum_y += new_val;
			ss->sum_xy = ss->sum_xy - ss->sum_y + ss->dur * new_val;
		}
		ss->oldest_y = ss_sample(ss, ss->head);
		/* the x values are taken as evenly spaced, as fio does */
		ss->slope = ((double)ss->sum_xy - (double)ss->sum_x * (double)ss->sum_y / ss->dur) /
			    ((double)ss->sum_x_sq - (double)ss->sum_x * (double)ss->sum_x / ss->dur);
		ss->criterion = ss->state & IOGAP_SS_PCT ?
			100.0 * ss->slope / (double)(ss->sum_y / ss->dur) : ss->slope;
		if ((ss->criterion < 0.0 ? -ss->criterion : ss->criterion) < ss->limit)
			return true;
	}
	ss_advance(ss);
	return false;
}

/* fio's steadystate_deviation: the largest distance from the mean */
static bool ss_deviation(struct iogap_ss *ss, uint64_t iops, uint64_t bw)
{
	double mean;

	ss->bw_data[ss->tail] = bw;
	ss->iops_data[ss->tail] = iops;
	if (ss_window_full(ss)) {
		if (!(ss->state & IOGAP_SS_BUFFER_FULL)) {
			ss->sum_y = 0;
			for (unsigned i = 0; i < ss->dur; i++)
				ss->sum_y += ss_sample(ss, i);
			ss->state |= IOGAP_SS_BUFFER_FULL;
		} else {
			ss->sum_y -= ss->oldest_y;
			ss->sum_y += ss_sample(ss, ss->tail);
		}
		ss->oldest_y = ss_sample(ss, ss->head);
		mean = (double)ss->sum_y / ss->dur;
		ss->deviation = 0.0;
		for (unsigned i = 0; i < ss->dur; i++) {
			double diff = (double)ss_sample(ss, i) - mean;

			if ((diff < 0.0 ? -diff : diff) > ss->deviation)
				ss->deviation = diff < 0.0 ? -diff : diff;
		}
		ss->criterion = ss->state & IOGAP_SS_PCT ? 100.0 * ss->deviation / mean :
			ss->deviation;
		if (ss->criterion < ss->limit)
			return true;
	}
	ss_advance(ss);
	return false;
}

static void ss_attained(struct iogap_ss_view *v, size_t n, size_t i)
{
	for (size_t k = 0; k < n; k++) {
		if (k == i || (v[i].job->group_reporting && v[k].groupid == v[i].groupid)) {
			v[k].ss->state |= IOGAP_SS_ATTAINED;
			v[k].terminate = true;
		}
	}
}

/*
 * fio's steadystate_check.  One difference: the counts are the thread's
 * completions since it started, where fio's restart at ramp_time's end
 * (whose first sample after it then comes out negative).
 */
void iogap_ss_check(struct iogap_ss_view *v, size_t n, uint64_t now)
{
	uint64_t group_bw = 0, group_iops = 0;
	unsigned group_ramp_over = 0;
	long prev_group = -1;

	for (size_t i = 0; i < n; i++) {
		struct iogap_ss *ss = v[i].ss;
		uint64_t ms;
		bool done;

		if (!ss->dur || !v[i].running || !ss->state || ss->state & IOGAP_SS_ATTAINED)
			continue;
		if (!v[i].job->group_reporting || (long)v[i].groupid != prev_group) {
			group_bw = group_iops = 0;
			group_ramp_over = 0;
		}
		prev_group = (long)v[i].groupid;
		if (ss->epoch_ns != v[i].epoch_ns)   /* started, or ramp_time over */
			ss->epoch_ns = ss->prev_ns = v[i].epoch_ns;
		/* record from one second after ss_ramp on */
		if (ss->ramp_ns && !(ss->state & IOGAP_SS_RAMP_OVER) && now > ss->epoch_ns &&
		    now - ss->epoch_ns >= ss->ramp_ns + NS_PER_SEC)
			ss->state |= IOGAP_SS_RAMP_OVER;
		ms = now > ss->prev_ns ? (now - ss->prev_ns) / 1000000 : 0;
		ss->prev_ns = now;
		if (ss->state & IOGAP_SS_RAMP_OVER) {
			group_bw += 1000 * (v[i].bytes - ss->prev_bytes) / (ms ? ms : 1);
			group_iops += 1000 * (v[i].ios - ss->prev_ios) / (ms ? ms : 1);
			group_ramp_over++;
		}
		ss->prev_ios = v[i].ios;
		ss->prev_bytes = v[i].bytes;
		/* a group's figures are judged at its last thread, once one
		 * of its threads is past ss_ramp */
		if ((v[i].job->group_reporting && !(ss->state & IOGAP_SS_DATA)) || !group_ramp_over)
			continue;
		done = ss->state & IOGAP_SS_SLOPE ? ss_slope(ss, group_iops, group_bw) :
						    ss_deviation(ss, group_iops, group_bw);
		iogap_dprint(IOGAP_DBG_STEADYSTATE, "job %s: iops=%" PRIu64 ", bw=%" PRIu64
			     " B/s: %s\n", v[i].job->name, group_iops, group_bw,
			     done ? "steady state attained" : "not yet");
		if (done)
			ss_attained(v, n, i);
	}
}

static uint64_t ss_mean(const struct iogap_ss *ss, const uint64_t *data)
{
	uint64_t sum = 0;

	for (unsigned i = 0; data && i < ss->dur; i++)
		sum += data[i];
	return sum / ss->dur;
}

void iogap_ss_json(struct jw *w, const struct iogap_ss *ss)
{
	bool pct = ss->state & IOGAP_SS_PCT;
	char buf[64];
	unsigned first;

	if (!ss->dur)
		return;
	jw_obj(w, "steadystate");
	snprintf(buf, sizeof(buf), "%s%s:%f%s", ss->state & IOGAP_SS_IOPS ? "iops" : "bw",
		 ss->state & IOGAP_SS_SLOPE ? "_slope" : "", (float)ss->limit, pct ? "%" : "");
	jw_str(w, "ss", buf);
	jw_int(w, "duration", ss->dur);
	jw_int(w, "attained", (ss->state & IOGAP_SS_ATTAINED) != 0);
	snprintf(buf, sizeof(buf), "%f%s", (float)ss->criterion, pct ? "%" : "");
	jw_str(w, "criterion", buf);
	jw_float(w, "max_deviation", ss->deviation);
	jw_float(w, "slope", ss->slope);
	jw_obj(w, "data");
	/* head is the oldest sample, except in a full window not attained,
	 * where it has moved one past (fio's comment) */
	if (ss->state & IOGAP_SS_ATTAINED || !(ss->state & IOGAP_SS_BUFFER_FULL))
		first = ss->head;
	else
		first = ss->head == 0 ? ss->dur - 1 : ss->head - 1;
	jw_u64(w, "bw_mean", ss_mean(ss, ss->bw_data));
	jw_u64(w, "iops_mean", ss_mean(ss, ss->iops_data));
	jw_open(w, "iops", '[');
	for (unsigned l = 0; l < ss->dur; l++)
		jw_u64(w, NULL, ss->iops_data ? ss->iops_data[(first + l) % ss->dur] : 0);
	jw_close(w, ']');
	jw_open(w, "bw", '[');
	for (unsigned l = 0; l < ss->dur; l++)
		jw_u64(w, NULL, ss->bw_data ? ss->bw_data[(first + l) % ss->dur] : 0);
	jw_close(w, ']');
	jw_end(w);
	jw_end(w);
}

/* fio's show_ss_normal */
void iogap_ss_normal(FILE *f, const struct iogap_job_stat *st)
{
	const struct iogap_ss *ss = st->ss;
	int sig = st->job ? (int)st->job->sig_figs : 4;
	char bw[32], bw_alt[32], iops[32];
	uint64_t bw_kib;

	if (!ss || !ss->dur)
		return;
	bw_kib = ss_mean(ss, ss->bw_data) / 1024;
	iogap_num2str_kib(bw, sizeof(bw), bw_kib, sig, true, IOGAP_N2S_BYTEPERSEC);
	iogap_num2str_kib(bw_alt, sizeof(bw_alt), bw_kib, sig, false, IOGAP_N2S_BYTEPERSEC);
	iogap_num2str(iops, sizeof(iops), ss_mean(ss, ss->iops_data), sig, false, IOGAP_N2S_NONE);
	fprintf(f, "  steadystate  : attained=%s, bw=%s (%s), iops=%s, %s%s=%.3f%s\n",
		ss->state & IOGAP_SS_ATTAINED ? "yes" : "no", bw, bw_alt, iops,
		ss->state & IOGAP_SS_IOPS ? "iops" : "bw",
		ss->state & IOGAP_SS_SLOPE ? " slope" : " mean dev", ss->criterion,
		ss->state & IOGAP_SS_PCT ? "%" : "");
}
