/* SPDX-License-Identifier: MIT */
/* fio 3.33's latency target (io_u.c); see lat_target.h. */
#include "lat_target.h"

void iogap_lat_target_new_window(struct iogap_lat_target *lt, uint64_t now_ns, uint64_t ios)
{
	lt->window_ns = now_ns;
	lt->ios = ios;
	lt->failed = 0;
}

void iogap_lat_target_init(struct iogap_lat_target *lt, const struct iogap_job *j,
			   uint64_t now_ns, uint64_t ios)
{
	lt->end_run = false;
	lt->quiesce = false;
	lt->window_ns = now_ns;
	lt->qd = 1;
	lt->qd_high = j->iodepth;
	lt->qd_low = 1;
	lt->ios = ios;
}

/* fio's __lat_target_failed: halve the way down to the last good depth;
 * true when there is no lower depth to try */
static bool lat_failed(struct iogap_lat_target *lt)
{
	if (lt->qd == 1)
		return true;
	lt->qd_high = lt->qd;
	if (lt->qd == lt->qd_low)
		lt->qd_low--;
	lt->qd = (lt->qd + lt->qd_low) / 2;
	lt->stable_count = 0;
	/* as fio: the deeper queue's requests complete before the new window,
	 * so they do not fail it too */
	lt->quiesce = true;
	return false;
}

bool iogap_lat_target_complete(struct iogap_lat_target *lt, const struct iogap_job *j,
			       uint64_t lat_ns)
{
	if (lat_ns <= j->latency_target_ns)
		return false;
	if (j->latency_percentile == 100.0)
		return lat_failed(lt);
	lt->failed++;
	return false;
}

/* fio's lat_target_success: double up to the first failing depth, then
 * bisect; the same depth twice in a row is the answer */
static enum iogap_lat_step lat_success(struct iogap_lat_target *lt, const struct iogap_job *j,
				       uint64_t now_ns, uint64_t ios)
{
	const unsigned qd = lt->qd;

	lt->qd_low = lt->qd;
	/* one below the failing depth: let that be tried again now and then */
	if (lt->qd + 1 == lt->qd_high && ++lt->stable_count >= 3) {
		lt->qd_high++;
		lt->stable_count = 0;
	}
	if (lt->qd_high != j->iodepth)
		lt->qd = (lt->qd + lt->qd_high) / 2;
	else
		lt->qd *= 2;
	if (lt->qd > j->iodepth)
		lt->qd = j->iodepth;
	if (!j->latency_run && lt->qd == qd) {
		if (lt->end_run)
			return IOGAP_LAT_DONE;
		lt->end_run = true;
		return IOGAP_LAT_FINAL;
	}
	iogap_lat_target_new_window(lt, now_ns, ios);
	return IOGAP_LAT_KEEP;
}

enum iogap_lat_step iogap_lat_target_check(struct iogap_lat_target *lt, const struct iogap_job *j,
					   uint64_t now_ns, uint64_t ios)
{
	uint64_t n = ios - lt->ios;

	if (lt->quiesce) {   /* a completion lowered the depth */
		lt->quiesce = false;
		return IOGAP_LAT_QUIESCE;
	}
	if ((now_ns - lt->window_ns) / 1000 < j->latency_window_us)
		return IOGAP_LAT_KEEP;
	/* fio's success rate of a window without completions is NaN: a failure */
	if (n && (double)(n - lt->failed) / (double)n * 100.0 >= j->latency_percentile)
		return lat_success(lt, j, now_ns, ios);
	if (lat_failed(lt))
		return IOGAP_LAT_KEEP;
	lt->quiesce = false;
	return IOGAP_LAT_QUIESCE;
}
