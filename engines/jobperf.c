/* SPDX-License-Identifier: MIT */
/*
 * The options that end or tune a job by what it measures, with fio 3.33's
 * names, units and defaults (its options.c): steady state (ss=, ss_dur=,
 * ss_ramp=; guest-probe/steadystate.c runs it) and the latency target
 * (latency_target=, latency_window=, latency_percentile=;
 * guest-probe/lat_target.c).  latency_run is a plain flag in jobfile.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "job.h"
#include "util.h"

/* A number (fio's str_to_float) with nothing after it. */
static int parse_double(const char *s, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	return errno || end == s || *end ? -1 : 0;
}

/* fio's str_steadystate_cb: "criterion:limit", the limit a percentage of
 * the mean ("10%"), IOPS (a number) or bandwidth (a size: bytes/s). */
static int opt_steadystate(struct iogap_job *j, const char *val, char *why, size_t whylen)
{
	static const struct { const char *name; unsigned state; } crit[] = {
		{ "iops", IOGAP_SS_IOPS }, { "iops_slope", IOGAP_SS_IOPS | IOGAP_SS_SLOPE },
		{ "bw", IOGAP_SS_BW }, { "bw_slope", IOGAP_SS_BW | IOGAP_SS_SLOPE },
	};
	const char *colon = strchr(val, ':'), *limit = colon ? colon + 1 : NULL;
	size_t len = colon ? (size_t)(colon - val) : strlen(val), pct;
	unsigned state = 0;
	char num[64];

	for (size_t i = 0; i < sizeof(crit) / sizeof(crit[0]); i++)
		if (strlen(crit[i].name) == len && !strncmp(crit[i].name, val, len))
			state = crit[i].state;
	if (!state)
		return iogap_seterr(why, whylen, "expected iops, iops_slope, bw or bw_slope, "
				    "then ':' and the limit");
	if (!limit)
		return iogap_seterr(why, whylen, "the limit must follow the criterion, "
				    "as in iops:10%% or bw_slope:1m");
	pct = strlen(limit);
	if (pct && limit[pct - 1] == '%') {
		if (pct >= sizeof(num))
			return iogap_seterr(why, whylen, "the percentage is too long");
		memcpy(num, limit, pct - 1);
		num[pct - 1] = '\0';
		if (parse_double(num, &j->ss_limit))
			return iogap_seterr(why, whylen, "expected a percentage such as 10%%");
		state |= IOGAP_SS_PCT;
	} else if (state & IOGAP_SS_IOPS) {
		if (parse_double(limit, &j->ss_limit))
			return iogap_seterr(why, whylen, "expected an IOPS limit or a percentage");
	} else {
		uint64_t bytes;

		if (iogap_parse_size(limit, &bytes))
			return iogap_seterr(why, whylen, "expected a bandwidth (bytes/s, such as 10m) "
					    "or a percentage");
		j->ss_limit = (double)bytes;
	}
	j->ss_state = state;
	return 0;
}

/* fio's latency_percentile: one float from 0 to 100 */
static int opt_latency_percentile(struct iogap_job *j, const char *val, char *why, size_t whylen)
{
	double p;

	if (parse_double(val, &p) || !(p >= 0.0 && p <= 100.0))
		return iogap_seterr(why, whylen, "expected a percentage from 0 to 100");
	j->latency_percentile = p;
	return 0;
}

/* fio's times: seconds for ss_dur and ss_ramp, microseconds for the
 * latency options, which it keeps in whole microseconds */
static int opt_time(const char *key, const char *val, uint64_t *ns, char *why, size_t whylen)
{
	bool usec = !strncmp(key, "latency", 7);

	if (iogap_parse_time_ns(val, usec ? 1000ULL : 1000000000ULL, ns))
		return iogap_seterr(why, whylen, "expected a time such as %s",
				    usec ? "500 (us), 2ms" : "30 (s), 30s, 1m");
	if (usec)
		*ns -= *ns % 1000;
	return 0;
}

int iogap_job_perf_option(struct iogap_job *j, const char *key, const char *val,
			  char *why, size_t whylen)
{
	uint64_t ns;

	if (strcmp(key, "ss") && strcmp(key, "steadystate") && strcmp(key, "ss_dur") &&
	    strcmp(key, "steadystate_duration") && strcmp(key, "ss_ramp") &&
	    strcmp(key, "steadystate_ramp_time") && strcmp(key, "latency_target") &&
	    strcmp(key, "latency_window") && strcmp(key, "latency_percentile"))
		return 1;
	if (!val || !*val)
		return iogap_seterr(why, whylen, "a value is needed");
	if (!strcmp(key, "ss") || !strcmp(key, "steadystate"))
		return opt_steadystate(j, val, why, whylen);
	if (!strcmp(key, "latency_percentile"))
		return opt_latency_percentile(j, val, why, whylen);
	if (opt_time(key, val, &ns, why, whylen))
		return -1;
	if (!strcmp(key, "ss_dur") || !strcmp(key, "steadystate_duration"))
		j->ss_dur_ns = ns;
	else if (!strcmp(key, "ss_ramp") || !strcmp(key, "steadystate_ramp_time"))
		j->ss_ramp_ns = ns;
	else if (!strcmp(key, "latency_target"))
		j->latency_target_ns = ns;
	else
		j->latency_window_us = ns / 1000;
	return 0;
}
