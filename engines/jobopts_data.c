/* SPDX-License-Identifier: MIT */
/*
 * fio's statistics, log and buffer options (its options.c:
 * names, aliases, defaults, limits): bwavgtime, iopsavgtime, log_entries,
 * log_compression, log_store_compressed, log_unix_epoch,
 * log_alternate_epoch, log_alternate_epoch_clock_id, block_error_percentiles,
 * stats, disk_util,
 * unified_rw_reporting, zero_buffers, scramble_buffers, verify_offset,
 * trim_percentage, trim_verify_zero, trim_backlog, trim_backlog_batch.  The runner, the
 * logs and the outputs give them fio's meaning (guest-probe/).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "job.h"
#include "util.h"

#define LOG_ENTRIES_DEF 1024          /* fio's DEF_LOG_ENTRIES */
#define LOG_ENTRIES_MAX (1024 * 1024) /* fio's MAX_LOG_ENTRIES */

void iogap_job_data_defaults(struct iogap_job *j)
{
	j->bw_avg_msec = 500;
	j->iops_avg_msec = 500;
	j->log_entries = LOG_ENTRIES_DEF;
	j->log_epoch_clock = CLOCK_REALTIME;
	j->stats = true;
	j->disk_util = true;
	j->scramble_buffers = true;
	j->trim_zero = true;
}

static int parse_bool(const char *val, bool *out)
{
	if (!val || !strcmp(val, "1") || !strcasecmp(val, "true") || !strcasecmp(val, "on") ||
	    !strcasecmp(val, "yes"))
		*out = true;
	else if (!strcmp(val, "0") || !strcasecmp(val, "false") || !strcasecmp(val, "off") ||
		 !strcasecmp(val, "no"))
		*out = false;
	else
		return -1;
	return 0;
}

/* An integer in [min, max]; sizes (4k) where fio's option takes them. */
static int parse_num(const char *val, bool size, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;

	if (!val || !*val)
		return -1;
	if (size) {
		if (iogap_parse_size(val, out))
			return -1;
	} else {
		if (*val < '0' || *val > '9')
			return -1;
		errno = 0;
		*out = strtoull(val, &end, 0);
		if (errno || *end)
			return -1;
	}
	return *out < min || *out > max ? -1 : 0;
}

static bool *bool_field(struct iogap_job *j, const char *key)
{
	static const struct { const char *name; size_t off; } bools[] = {
		{ "log_store_compressed", offsetof(struct iogap_job, log_gz_store) },
		{ "log_unix_epoch", offsetof(struct iogap_job, log_unix_epoch) },
		{ "log_alternate_epoch", offsetof(struct iogap_job, log_alternate_epoch) },
		{ "block_error_percentiles", offsetof(struct iogap_job, block_error_hist) },
		{ "stats", offsetof(struct iogap_job, stats) },
		{ "trim_verify_zero", offsetof(struct iogap_job, trim_zero) },
		{ "disk_util", offsetof(struct iogap_job, disk_util) },
	};

	for (size_t i = 0; i < sizeof(bools) / sizeof(bools[0]); i++)
		if (!strcmp(key, bools[i].name))
			return (bool *)((char *)j + bools[i].off);
	return NULL;
}

/* zero_buffers, scramble_buffers: fio needs to know they were given
 * (its fio_option_is_set) to decide whether writes are scrambled */
static int buffer_flag(struct iogap_job *j, const char *key, const char *val, char *why,
		       size_t whylen)
{
	bool zero = !strcmp(key, "zero_buffers");
	bool *field = zero ? &j->zero_buffers : &j->scramble_buffers;

	if (parse_bool(val, field))
		return iogap_seterr(why, whylen, "expected 0 or 1");
	*(zero ? &j->zero_buffers_set : &j->scramble_buffers_set) = true;
	return 0;
}

static int unified(struct iogap_job *j, const char *val, char *why, size_t whylen)
{
	static const char *const names[][2] = { { "none", "0" }, { "mixed", "1" }, { "both", "2" } };

	for (unsigned i = 0; val && i < 3; i++)
		if (!strcmp(val, names[i][0]) || !strcmp(val, names[i][1])) {
			j->unified_rw = i;   /* enum iogap_unified_rw's order */
			return 0;
		}
	return iogap_seterr(why, whylen, "expected none, mixed, both (or 0, 1, 2)");
}

struct num_opt {
	const char *name;
	bool size;                /* takes 4k-style sizes */
	uint64_t min, max;
	const char *what;
};

static const struct num_opt nums[] = {
	{ "bwavgtime", false, 1, UINT32_MAX, "expected milliseconds, at least 1" },
	{ "iopsavgtime", false, 1, UINT32_MAX, "expected milliseconds, at least 1" },
	{ "log_entries", false, LOG_ENTRIES_DEF, LOG_ENTRIES_MAX,
	  "expected a number of entries from 1024 to 1048576" },
	{ "log_compression", true, 1024, 512 * 1024 * 1024,
	  "expected a chunk size from 1k to 512m" },
	{ "log_alternate_epoch_clock_id", false, 0, INT32_MAX, "expected a clock id" },
	{ "trim_percentage", false, 0, 100, "expected a percentage from 0 to 100" },
	{ "trim_backlog", true, 0, UINT64_MAX, "expected a number of written blocks" },
	{ "trim_backlog_batch", false, 0, UINT32_MAX, "expected a number of blocks" },
	{ "verify_offset", true, 40, UINT32_MAX,   /* fio: at least its header's 40 bytes */
	  "expected bytes into the block, at least 40 (the verify header)" },
};

static void set_num(struct iogap_job *j, const char *key, uint64_t v)
{
	if (!strcmp(key, "bwavgtime"))
		j->bw_avg_msec = (unsigned)v;
	else if (!strcmp(key, "iopsavgtime"))
		j->iops_avg_msec = (unsigned)v;
	else if (!strcmp(key, "log_entries"))
		j->log_entries = (unsigned)v;
	else if (!strcmp(key, "log_compression"))
		j->log_gz = (uint32_t)v;
	else if (!strcmp(key, "trim_percentage"))
		j->trim_percentage = (unsigned)v;
	else if (!strcmp(key, "trim_backlog"))
		j->trim_backlog = v;
	else if (!strcmp(key, "trim_backlog_batch"))
		j->trim_batch = (unsigned)v;
	else if (!strcmp(key, "verify_offset"))
		j->verify_offset = (uint32_t)v;
	else
		j->log_epoch_clock = (int)v;
}

static int clock_id(struct iogap_job *j, char *why, size_t whylen)
{
	struct timespec ts;

	if (clock_gettime((clockid_t)j->log_epoch_clock, &ts))
		return iogap_seterr(why, whylen, "clock_gettime(%d): %s", j->log_epoch_clock,
				    strerror(errno));
	return 0;
}

int iogap_job_data_option(struct iogap_job *j, const char *key, const char *val,
			  char *why, size_t whylen)
{
	bool *b = bool_field(j, key);
	uint64_t v;

	if (b)
		return parse_bool(val, b) ? iogap_seterr(why, whylen, "expected 0 or 1") : 0;
	if (!strcmp(key, "zero_buffers") || !strcmp(key, "scramble_buffers"))
		return buffer_flag(j, key, val, why, whylen);
	if (!strcmp(key, "unified_rw_reporting"))
		return unified(j, val, why, whylen);
	for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++) {
		if (strcmp(key, nums[i].name))
			continue;
		if (parse_num(val, nums[i].size, nums[i].min, nums[i].max, &v))
			return iogap_seterr(why, whylen, "%s", nums[i].what);
		set_num(j, key, v);
		return strcmp(key, "log_alternate_epoch_clock_id") ? 0 : clock_id(j, why, whylen);
	}
	return 1;
}
