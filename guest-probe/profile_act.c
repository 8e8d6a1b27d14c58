/* SPDX-License-Identifier: MIT */
/*
 * fio's act profile (profiles/act.c), the Aerospike Certification Tool's
 * load: per device, threads_per_queue rate-limited small random readers
 * and one large-block random writer (or, with --prep, a zero fill and a
 * random 4 KiB overwrite).  Each request's latency (start to completion)
 * goes into one-hour slices counting those over 1, 8 and 64 ms; at the
 * end fio prints the slices and PASSED or FAILED.
 *
 * As fio 3.33: --test-duration is read in microseconds (plain numbers
 * too) and written as "runtime=<that number>s"; the number of slices is
 * that many microseconds over 3600.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"
#include "util.h"

#define R_LOAD     2000          /* the 1x load: reads, writes per second */
#define W_LOAD     1000
#define SAMPLE_SEC 3600          /* a slice: one hour */
#define ACT_MAX_CRIT 3
#define ACT_MAX_OPTS 128         /* fio's fixed cmdline array */

static const struct { unsigned max_usec, max_perm; } act_pass[ACT_MAX_CRIT] = {
	{ 1000, 50 }, { 8000, 10 }, { 64000, 1 },
};

struct act_settings {
	const char *device_names;
	unsigned load, prep, threads_per_queue, num_read_blocks, write_size;
	uint64_t test_duration;  /* microseconds */
};

static struct act_settings act;

static const struct iogap_profile_opt act_opts[] = {
	{ "device-names", "Devices to use", NULL, IOGAP_POPT_STR,
	  offsetof(struct act_settings, device_names), false },
	{ "load", "ACT load multipler (default 1x)", "1", IOGAP_POPT_INT,
	  offsetof(struct act_settings, load), false },
	{ "test-duration", "How long the entire test takes to run", "24h", IOGAP_POPT_TIME_US,
	  offsetof(struct act_settings, test_duration), false },
	{ "threads-per-queue", "Number of read IO threads per device", "8", IOGAP_POPT_INT,
	  offsetof(struct act_settings, threads_per_queue), false },
	{ "read-req-num-512-blocks", "Number of 512B blocks to read at the time", "3",
	  IOGAP_POPT_INT, offsetof(struct act_settings, num_read_blocks), false },
	{ "large-block-op-kbytes", "Size of large block ops in KiB (writes)", "131072",
	  IOGAP_POPT_INT, offsetof(struct act_settings, write_size), false },
	{ "prep", "Set to run ACT prep phase", NULL, IOGAP_POPT_SET,
	  offsetof(struct act_settings, prep), false },
	{ NULL },
};

/* fio's act_add_opt: its array holds ACT_MAX_OPTS options */
static int add(struct iogap_profile_cmd *cmd, int *fail, const char *fmt, const char *a,
	       unsigned long long n)
{
	if (*fail)
		return -1;
	if (cmd->nr == ACT_MAX_OPTS) {
		fprintf(stderr, "act: ACT_MAX_OPTS is too small\n");
		return *fail = -1;
	}
	*fail = a ? iogap_profile_cmd_add(cmd, fmt, a) : iogap_profile_cmd_add(cmd, fmt, n);
	return *fail;
}

static int add_rw(struct iogap_profile_cmd *cmd, const char *dev, bool reads)
{
	int fail = 0;

	add(cmd, &fail, reads ? "name=act-read-%s" : "name=act-write-%s", dev, 0);
	add(cmd, &fail, "filename=%s", dev, 0);
	add(cmd, &fail, reads ? "rw=randread" : "rw=randwrite", NULL, 0);
	if (reads) {
		add(cmd, &fail, "numjobs=%llu", NULL, act.threads_per_queue);
		add(cmd, &fail, "rate_iops=%llu", NULL, act.load * R_LOAD / act.threads_per_queue);
		add(cmd, &fail, "bs=%llu", NULL, act.num_read_blocks * 512u);
	} else {
		const unsigned rsize = act.write_size / (act.num_read_blocks * 512);

		add(cmd, &fail, "rate_iops=%llu", NULL, (act.load * W_LOAD + rsize - 1) / rsize);
		add(cmd, &fail, "bs=%llu", NULL, act.write_size);
	}
	return fail;
}

static int add_dev_prep(struct iogap_profile_cmd *cmd, const char *dev)
{
	int fail = 0;

	add(cmd, &fail, "name=act-prep-zeroes-%s", dev, 0);   /* sequential zeros */
	add(cmd, &fail, "filename=%s", dev, 0);
	add(cmd, &fail, "bs=1048576", NULL, 0);
	add(cmd, &fail, "zero_buffers", NULL, 0);
	add(cmd, &fail, "rw=write", NULL, 0);
	add(cmd, &fail, "name=act-prep-salt-%s", dev, 0);     /* then random overwrite */
	add(cmd, &fail, "stonewall", NULL, 0);
	add(cmd, &fail, "filename=%s", dev, 0);
	add(cmd, &fail, "bs=4096", NULL, 0);
	add(cmd, &fail, "ioengine=libaio", NULL, 0);
	add(cmd, &fail, "iodepth=64", NULL, 0);
	add(cmd, &fail, "rw=randwrite", NULL, 0);
	return fail;
}

static int add_dev(struct iogap_profile_cmd *cmd, const char *dev)
{
	int fail = 0;

	if (act.prep)
		return add_dev_prep(cmd, dev);
	/* before the first device's jobs these are global options; later
	 * ones land in the previous device's writer, as in fio */
	add(cmd, &fail, "runtime=%llus", NULL, (unsigned long long)act.test_duration);
	add(cmd, &fail, "time_based=1", NULL, 0);
	return fail || add_rw(cmd, dev, true) || add_rw(cmd, dev, false) ? -1 : 0;
}

static int act_prep(struct iogap_profile_cmd *cmd)
{
	static const char *const head[] = {
		"direct=1", "ioengine=sync", "random_generator=lfsr", "group_reporting=1",
		"thread", NULL,
	};
	char *names, *rest, *dev;

	if (!act.device_names) {
		fprintf(stderr, "act: you need to set IO target(s) with the device-names option.\n");
		return -1;
	}
	if (act.threads_per_queue == 0 || act.num_read_blocks == 0 ||
	    act.write_size < act.num_read_blocks * 512) {
		/* fio divides by these (a crash); the probe says which */
		fprintf(stderr, "act: threads-per-queue and read-req-num-512-blocks must be at "
			"least 1, large-block-op-kbytes at least 512 * read-req-num-512-blocks\n");
		return -1;
	}
	for (size_t i = 0; head[i]; i++)
		if (iogap_profile_cmd_add(cmd, "%s", head[i]))
			return -1;
	rest = names = strdup(act.device_names);
	if (!names)
		return -1;
	/* as fio: a device that does not fit is left out, the others run */
	while ((dev = strsep(&rest, ",")) != NULL) {
		if (add_dev(cmd, dev)) {
			fprintf(stderr, "act: failed adding device to the mix\n");
			break;
		}
	}
	free(names);
	return 0;
}

/* ---- latency slices and the report ----------------------------------- */

struct act_slice {
	uint64_t lat_buckets[ACT_MAX_CRIT];
	uint64_t total_ios;
};

/* One job thread's slices.  fio allocates all test_duration/3600 of
 * them; only those reached hold counts, so they grow as time passes. */
struct act_thread {
	uint64_t sample_ns;      /* when the current slice began */
	struct act_slice *slices;
	unsigned cur_slice, nr_used;
};

static struct {
	struct act_slice *slices;  /* the sum over the threads, nr_used of them */
	unsigned nr_used;
	unsigned pending;          /* threads set up and not yet done */
} run;

static uint64_t nr_slices(void)
{
	return (act.test_duration + SAMPLE_SEC - 1) / SAMPLE_SEC;
}

static void *act_td_init(void)
{
	struct act_thread *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->sample_ns = iogap_now_ns();
	run.pending++;
	return t;
}

/* the slice being filled, made on first use; NULL out of memory */
static struct act_slice *cur_slice(struct act_thread *t)
{
	if (t->cur_slice >= t->nr_used) {
		struct act_slice *s = realloc(t->slices, (t->cur_slice + 1) * sizeof(*s));

		if (!s)
			return NULL;
		memset(s + t->nr_used, 0, (t->cur_slice + 1 - t->nr_used) * sizeof(*s));
		t->slices = s;
		t->nr_used = t->cur_slice + 1;
	}
	return &t->slices[t->cur_slice];
}

/* fio's act_io_u_lat: count the request; once a slice is an hour old,
 * judge it (non-zero: a criterion failed, the job's error) */
static int act_io_lat(void *state, uint64_t lat_ns)
{
	struct act_thread *t = state;
	struct act_slice *slice;
	uint64_t usec = lat_ns / 1000;
	int ret = 0;

	if (act.prep || t->cur_slice >= nr_slices())
		return 0;
	slice = cur_slice(t);
	if (!slice)
		return 0;
	slice->total_ios++;
	for (int i = ACT_MAX_CRIT - 1; i >= 0; i--) {
		if (usec > act_pass[i].max_usec) {   /* only the highest exceeded */
			slice->lat_buckets[i]++;
			break;
		}
	}
	if ((iogap_now_ns() - t->sample_ns) / 1000000000ULL < SAMPLE_SEC)
		return 0;
	for (int i = 0; i < ACT_MAX_CRIT; i++) {
		double perm = 1000.0 * (double)slice->lat_buckets[i] / (double)slice->total_ios;

		if (perm < act_pass[i].max_perm)
			continue;
		fprintf(stderr, "act: %f%% exceeds pass criteria of %f%%\n", perm / 10.0,
			(double)act_pass[i].max_perm / 10.0);
		ret = 1;
		break;
	}
	t->sample_ns = iogap_now_ns();
	t->cur_slice++;
	return ret;
}

static double slice_pct(const struct act_slice *s, int i)
{
	return s->total_ios ? 100.0 * (double)s->lat_buckets[i] / (double)s->total_ios : 0.0;
}

/* fio's show_slice: the trans and device columns are the same numbers */
static unsigned show_slice(FILE *f, const struct act_slice *s, uint64_t num)
{
	unsigned failed = 0;

	fprintf(f, "   %2llu", (unsigned long long)num);
	for (int i = 0; i < ACT_MAX_CRIT; i++) {
		if (slice_pct(s, i) * 10.0 >= act_pass[i].max_perm)
			failed++;
		fprintf(f, "\t%2.2f", slice_pct(s, i));
	}
	for (int i = 0; i < ACT_MAX_CRIT; i++)
		fprintf(f, "\t%2.2f", slice_pct(s, i));
	fputc('\n', f);
	return failed;
}

static void show_all(FILE *f)
{
	static const struct act_slice empty;
	unsigned fails = 0;

	fprintf(f, "        trans                   device\n");
	fprintf(f, "        %%>(ms)                  %%>(ms)\n");
	fprintf(f, " slice");
	for (int k = 0; k < 2; k++)
		for (int i = 0; i < ACT_MAX_CRIT; i++)
			fprintf(f, "\t %2u", act_pass[i].max_usec / 1000);
	fprintf(f, "\n -----  -----   -----  ------   -----   -----  ------\n");
	for (uint64_t i = 0; i < nr_slices(); i++)
		fails += show_slice(f, i < run.nr_used ? &run.slices[i] : &empty, i + 1);
	fprintf(f, "\nact: test complete, device(s): %s\n", fails ? "FAILED" : "PASSED");
	fflush(f);
}

/* fio's put_act_ref: add the thread's slices; the last one prints */
static void act_td_exit(void *state)
{
	struct act_thread *t = state;

	if (t->nr_used > run.nr_used) {
		struct act_slice *s = realloc(run.slices, t->nr_used * sizeof(*s));

		if (s) {
			memset(s + run.nr_used, 0, (t->nr_used - run.nr_used) * sizeof(*s));
			run.slices = s;
			run.nr_used = t->nr_used;
		}
	}
	for (unsigned i = 0; i < t->nr_used && i < run.nr_used; i++) {
		run.slices[i].total_ios += t->slices[i].total_ios;
		for (int k = 0; k < ACT_MAX_CRIT; k++)
			run.slices[i].lat_buckets[k] += t->slices[i].lat_buckets[k];
	}
	free(t->slices);
	free(t);
	if (--run.pending == 0) {
		show_all(iogap_profile_output());
		free(run.slices);
		run.slices = NULL;
		run.nr_used = 0;
	}
}

static const struct iogap_prof_hooks act_hooks = {
	.td_init = act_td_init,
	.io_lat = act_io_lat,
	.td_exit = act_td_exit,
};

const struct iogap_profile iogap_profile_act = {
	.name = "act",
	.desc = "ACT Aerospike like benchmark",
	.opts = act_opts,
	.settings = &act,
	.prep = act_prep,
	.hooks = &act_hooks,
};
