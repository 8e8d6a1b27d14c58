/* SPDX-License-Identifier: MIT */
/*
 * The options of how a job's I/O is paced against other jobs and how it is
 * submitted, fio 3.33's (its options.c): flow_id, flow, flow_sleep,
 * flow_watermark and io_submit_mode.  The runner applies them
 * (guest-probe/flow.c, guest-probe/offload.c).
 */
#include <stdio.h>
#include <string.h>

#include "job.h"
#include "util.h"

#define FLOW_MAX_WEIGHT 1000   /* fio's flow.h */

/* fio's FIO_OPT_INT: a number with fio's size suffixes ("1k" = 1024),
 * negative where the option is signed; at most max. */
static int parse_int(const char *val, bool is_signed, uint64_t max, int64_t *out)
{
	bool neg = is_signed && *val == '-';
	uint64_t v;

	if (iogap_parse_size(val + neg, &v) || v > max)
		return -1;
	*out = neg ? -(int64_t)v : (int64_t)v;
	return 0;
}

int iogap_job_flow_option(struct iogap_job *j, const char *key, const char *val,
			  char *why, size_t whylen)
{
	int64_t v;

	if (!strcmp(key, "flow_watermark")) {
		/* fio: FIO_OPT_SOFT_DEPRECATED, accepted with a note, no effect */
		fprintf(stderr, "Option flow_watermark is deprecated\n");
		return 0;
	}
	if (strcmp(key, "flow_id") && strcmp(key, "flow") && strcmp(key, "flow_sleep") &&
	    strcmp(key, "io_submit_mode"))
		return 1;
	if (!val || !*val)
		return iogap_seterr(why, whylen, "a value is needed");
	if (!strcmp(key, "io_submit_mode")) {
		if (strcmp(val, "inline") && strcmp(val, "offload"))
			return iogap_seterr(why, whylen, "expected inline or offload");
		j->io_submit_offload = !strcmp(val, "offload");
		return 0;
	}
	if (!strcmp(key, "flow_id")) {
		if (parse_int(val, true, INT32_MAX, &v) || v < INT32_MIN)
			return iogap_seterr(why, whylen, "expected an integer");
		j->flow_id = (int)v;
		return 0;
	}
	if (!strcmp(key, "flow")) {
		/* fio's FIO_OPT_INT: any int up to FLOW_MAX_WEIGHT, kept in its
		 * unsigned weight, where a negative one wraps to a huge weight
		 * (flow=-3 all but stops the other jobs of its flow) */
		if (parse_int(val, true, (uint64_t)INT32_MAX + 1, &v) || v > FLOW_MAX_WEIGHT ||
		    v < INT32_MIN)
			return iogap_seterr(why, whylen, "expected a weight up to %d",
					    FLOW_MAX_WEIGHT);
		j->flow = (unsigned)(int32_t)v;
		return 0;
	}
	if (parse_int(val, false, UINT32_MAX, &v))
		return iogap_seterr(why, whylen, "expected microseconds (a plain number)");
	j->flow_sleep_us = (unsigned)v;
	return 0;
}

int iogap_job_submit_check(const struct iogap_job *j, char *why, size_t whylen)
{
	if (!j->io_submit_offload)
		return 0;
	if (!strcmp(j->ioengine, "io_uring"))   /* fio's FIO_NO_OFFLOAD */
		return iogap_seterr(why, whylen, "io_uring can't be used with "
				    "io_submit_mode=offload (use a sync engine, as fio says)");
	if (!strcmp(j->ioengine, "sync"))
		return iogap_seterr(why, whylen, "ioengine=sync can't be used with "
				    "io_submit_mode=offload in iogap-probe: its submitting threads "
				    "would share each file's position (use psync)");
	return 0;
}
