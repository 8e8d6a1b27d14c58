/* SPDX-License-Identifier: MIT */
/*
 * Test helper: rebuild iogap_job_stat entries from a flat, tab-separated
 * description (made by test_fio_replay.py from real fio JSON+ output) and
 * print them with iogap's output code.  The script then compares the
 * result with what fio itself printed.
 *
 *   replay normal|json|json+ < description
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"

#define MAX_JOBS  16
#define MAX_KV    64
#define MAX_DISKS 16

struct replay_job {
	struct iogap_job job;
	struct iogap_job_kv kv[MAX_KV];
};

static struct iogap_job_stat stats[MAX_JOBS];
static struct replay_job jobs[MAX_JOBS];
static struct iogap_job_kv gkv[MAX_KV];
static struct iogap_disk_util disks[MAX_DISKS];
static char version[64];

static char *field(char **save)
{
	char *t = strtok_r(NULL, "\t\n", save);

	return t ? t : "";
}

static uint64_t u64(char **save)
{
	return strtoull(field(save), NULL, 10);
}

static double dbl(char **save)
{
	return strtod(field(save), NULL);
}

/* min max mean stddev N -> io_stat with S recovered from the stddev */
static void io_stat(struct iogap_io_stat *s, char **save)
{
	double dev;

	s->min_val = u64(save);
	s->max_val = u64(save);
	s->mean = dbl(save);
	dev = dbl(save);
	s->samples = u64(save);
	s->S = s->samples > 1 ? dev * dev * (double)(s->samples - 1) : 0.0;
}

static void kv_add(struct iogap_job_kv *kv, size_t *nr, char **save)
{
	if (*nr >= MAX_KV)
		return;
	kv[*nr].key = strdup(field(save));
	kv[*nr].value = strdup(field(save));
	(*nr)++;
}

static void job_line(struct iogap_job_stat *st, struct replay_job *rj, const char *tag,
		     char **save)
{
	unsigned d, k;
	uint64_t v;

	if (!strcmp(tag, "jopt")) {
		kv_add(rj->kv, &rj->job.kv_nr, save);
	} else if (!strcmp(tag, "id")) {
		st->groupid = (unsigned)u64(save);
		st->members = (unsigned)u64(save);
		st->pid = (int)u64(save);
		st->error = (int)u64(save);
	} else if (!strcmp(tag, "verror")) {
		snprintf(st->verror, sizeof(st->verror), "%s", field(save));
	} else if (!strcmp(tag, "desc")) {
		snprintf(st->description, sizeof(st->description), "%s", field(save));
	} else if (!strcmp(tag, "pflags")) {
		st->clat_percentiles = u64(save);
		st->lat_percentiles = u64(save);
		st->slat_percentiles = u64(save);
	} else if (!strcmp(tag, "plist")) {
		char *t;

		while ((t = strtok_r(NULL, "\t\n", save)) && st->percentile_nr < IOGAP_MAX_PERCENTILES)
			st->percentile_list[st->percentile_nr++] = strtod(t, NULL);
	} else if (!strcmp(tag, "dir")) {
		d = (unsigned)u64(save);
		st->dir[d].io_bytes = u64(save);
		st->dir[d].runtime_ms = u64(save);
		st->dir[d].total_io_u = u64(save);
		st->dir[d].short_io_u = u64(save);
		st->dir[d].drop_io_u = u64(save);
		st->dir[d].zone_resets = u64(save);
	} else if (!strcmp(tag, "lat")) {
		d = (unsigned)u64(save);
		k = (unsigned)u64(save);
		io_stat(&st->dir[d].lat[k], save);
	} else if (!strcmp(tag, "bin")) {
		d = (unsigned)u64(save);
		k = (unsigned)u64(save);
		v = u64(save);
		st->dir[d].plat[k][iogap_plat_val_to_idx(v)] += u64(save);
	} else if (!strcmp(tag, "bw")) {
		d = (unsigned)u64(save);
		io_stat(&st->dir[d].bw, save);
	} else if (!strcmp(tag, "iops")) {
		d = (unsigned)u64(save);
		io_stat(&st->dir[d].iops, save);
	} else if (!strcmp(tag, "sync")) {
		st->total_sync = u64(save);
		io_stat(&st->sync_stat, save);
	} else if (!strcmp(tag, "syncbin")) {
		v = u64(save);
		st->sync_plat[iogap_plat_val_to_idx(v)] += u64(save);
	} else if (!strcmp(tag, "cpu")) {
		st->usr_time_us = u64(save) * 1000;
		st->sys_time_us = u64(save) * 1000;
		st->total_run_time_ms = u64(save);
		st->ctx = u64(save);
		st->majf = u64(save);
		st->minf = u64(save);
	} else if (!strcmp(tag, "lat_n") || !strcmp(tag, "lat_u") || !strcmp(tag, "lat_m")) {
		uint64_t *a = tag[4] == 'n' ? st->io_u_lat_n : tag[4] == 'u' ? st->io_u_lat_u :
			      st->io_u_lat_m;

		k = (unsigned)u64(save);
		a[k] = u64(save);
	} else if (!strcmp(tag, "map") || !strcmp(tag, "submit") || !strcmp(tag, "complete")) {
		uint64_t *a = tag[0] == 'm' ? st->io_u_map : tag[0] == 's' ? st->io_u_submit :
			      st->io_u_complete;

		k = (unsigned)u64(save);
		a[k] = u64(save);
	} else if (!strcmp(tag, "totals")) {
		st->total_submit = u64(save);
		st->total_complete = u64(save);
	} else if (!strcmp(tag, "iodepth")) {
		st->iodepth = (unsigned)u64(save);
	} else if (!strcmp(tag, "lattarget")) {   /* fio's latency_target, _window, _percentile */
		rj->job.latency_target_ns = u64(save);
		rj->job.latency_window_us = u64(save);
		rj->job.latency_percentile = dbl(save);
	}
}

int main(int argc, char **argv)
{
	struct iogap_run_report r = { .stats = stats, .disks = disks };
	size_t global_nr = 0;
	char line[8192];
	int cur = -1;

	if (argc != 2)
		return 2;
	while (fgets(line, sizeof(line), stdin)) {
		char *save, *tag = strtok_r(line, "\t\n", &save);

		if (!tag)
			continue;
		if (!strcmp(tag, "report")) {
			r.timestamp = (time_t)u64(&save);
			r.timestamp_ms = u64(&save);
			r.elapsed_ms = u64(&save) * 1000;
			snprintf(version, sizeof(version), "%s", field(&save));
			r.version = version;
		} else if (!strcmp(tag, "gopt")) {
			kv_add(gkv, &global_nr, &save);
		} else if (!strcmp(tag, "job") && r.nr < MAX_JOBS) {
			struct replay_job *rj;
			size_t i;

			cur = (int)r.nr++;
			rj = &jobs[cur];
			snprintf(stats[cur].name, sizeof(stats[cur].name), "%s", field(&save));
			/* a job's kv: the globals first, as the job parser keeps them */
			for (i = 0; i < global_nr; i++)
				rj->kv[i] = gkv[i];
			rj->job.kv = rj->kv;
			rj->job.kv_nr = global_nr;
			stats[cur].job = &rj->job;
		} else if (!strcmp(tag, "disk") && r.disks_nr < MAX_DISKS) {
			struct iogap_disk_util *du = &disks[r.disks_nr++];

			snprintf(du->name, sizeof(du->name), "%s", field(&save));
			du->ios[0] = u64(&save);
			du->ios[1] = u64(&save);
			du->merges[0] = u64(&save);
			du->merges[1] = u64(&save);
			du->ticks[0] = u64(&save);
			du->ticks[1] = u64(&save);
			du->time_in_queue = u64(&save);
			du->msec = u64(&save);
			du->io_ticks = u64(&save);
		} else if (cur >= 0) {
			job_line(&stats[cur], &jobs[cur], tag, &save);
		}
	}
	if (global_nr) {
		r.global_kv = gkv;
		r.global_kv_nr = global_nr;
	}
	if (iogap_group_stats_compute(&r))
		return 1;

	if (!strcmp(argv[1], "normal"))
		iogap_output_normal(stdout, &r);
	else
		iogap_output_json(stdout, &r, !strcmp(argv[1], "json+"));
	free(r.groups);
	return 0;
}
