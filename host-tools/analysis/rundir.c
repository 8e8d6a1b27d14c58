/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "job.h"
#include "rundir.h"
#include "trace_file.h"
#include "util.h"

int iogap_records_load(const char *path, struct iogap_records *out, char *err, size_t errlen)
{
	struct iogap_trace_reader *r = iogap_trace_reader_open(path, err, errlen);
	size_t cap = 0;
	int got;

	memset(out, 0, sizeof(*out));
	if (!r)
		return -1;
	out->header = *iogap_trace_reader_header(r);
	for (;;) {
		if (out->nr == cap) {
			struct iogap_trace_record *n;

			cap = cap ? cap * 2 : 4096;
			n = realloc(out->r, cap * sizeof(*n));
			if (!n) {
				snprintf(err, errlen, "%s: out of memory", path);
				goto fail;
			}
			out->r = n;
		}
		got = iogap_trace_reader_next(r, &out->r[out->nr], err, errlen);
		if (got < 0)
			goto fail;
		if (got == 0)
			break;
		out->nr++;
	}
	iogap_trace_reader_close(r);
	out->loaded = true;
	return 0;
fail:
	iogap_trace_reader_close(r);
	free(out->r);
	memset(out, 0, sizeof(*out));
	return -1;
}

int iogap_sync_save(const char *path, const struct iogap_sync_sample *s, size_t n)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fprintf(f, "# host_send_ns guest_ns host_recv_ns\n");
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%" PRIu64 " %" PRIu64 " %" PRIu64 "\n", s[i].t_send, s[i].guest_ns,
			s[i].t_recv);
	return fclose(f) ? -1 : 0;
}

int iogap_sync_load(const char *path, struct iogap_sync_sample **out, size_t *n, char *err,
		    size_t errlen)
{
	FILE *f = fopen(path, "r");
	char line[256];
	size_t cap = 0;
	int lineno = 0;

	*out = NULL;
	*n = 0;
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		unsigned long long a, b, c;
		char extra;

		lineno++;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (sscanf(line, "%llu %llu %llu %c", &a, &b, &c, &extra) != 3 || c < a) {
			snprintf(err, errlen, "%s:%d: bad sync sample", path, lineno);
			goto fail;
		}
		if (*n == cap) {
			struct iogap_sync_sample *ns = realloc(*out, (cap = cap ? cap * 2 : 256) * sizeof(*ns));

			if (!ns) {
				snprintf(err, errlen, "%s: out of memory", path);
				goto fail;
			}
			*out = ns;
		}
		(*out)[(*n)++] = (struct iogap_sync_sample){ a, b, c };
	}
	fclose(f);
	return 0;
fail:
	fclose(f);
	free(*out);
	*out = NULL;
	*n = 0;
	return -1;
}

static void check_order(struct iogap_rundir *rd)
{
	for (size_t i = 0; i < rd->pairing.nr; i++) {
		const struct iogap_pair *p = &rd->pairing.pairs[i];

		if (!p->exact || !p->top || !p->bottom)
			continue;
		rd->order_checked++;
		if (!(p->g_start <= p->top->start_ns && p->top->start_ns <= p->bottom->start_ns &&
		      p->bottom->start_ns <= p->bottom->complete_ns &&
		      p->bottom->complete_ns <= p->top->complete_ns &&
		      p->top->complete_ns <= p->g_complete))
			rd->order_violations++;
	}
}

__attribute__((format(printf, 2, 3)))
static void incomplete(struct iogap_rundir *rd, const char *fmt, ...)
{
	va_list ap;

	if (rd->n_incomplete == IOGAP_RUNDIR_MAX_REASONS)
		return;
	va_start(ap, fmt);
	vsnprintf(rd->incomplete[rd->n_incomplete++], sizeof(rd->incomplete[0]), fmt, ap);
	va_end(ap);
}

/* The trace files of a run directory, by side. */
struct trace_slot {
	const char *side, *name;
	struct iogap_records *rec;
	bool *have;               /* set once the side's probe trace loaded */
};

static void slots(struct iogap_rundir *rd, struct trace_slot out[6])
{
	const char *bare = iogap_side_dir[IOGAP_SIDE_BARE], *vm = iogap_side_dir[IOGAP_SIDE_VM];

	out[0] = (struct trace_slot){ bare, "probe", &rd->bare, &rd->have_bare };
	out[1] = (struct trace_slot){ iogap_side_dir[IOGAP_SIDE_MATCHED], "probe", &rd->matched,
				      &rd->have_matched };
	out[2] = (struct trace_slot){ vm, "probe", &rd->guest, NULL };
	out[3] = (struct trace_slot){ vm, "top", &rd->top, NULL };
	out[4] = (struct trace_slot){ vm, "bottom", &rd->bottom, NULL };
	out[5] = (struct trace_slot){ NULL, NULL, NULL, NULL };
}

/* What the writer left: a trace it never closed, records it dropped. */
static void check_trace_state(struct iogap_rundir *rd, const char *rel, const struct iogap_records *r)
{
	if (!(r->header.flags & IOGAP_TRACE_F_COMPLETE))
		incomplete(rd, "%s was not closed by its writer (no COMPLETE flag): the run was cut "
			   "short, %zu records present", rel, r->nr);
	if (r->header.dropped)
		incomplete(rd, "%s: its writer dropped %" PRIu64 " records", rel, r->header.dropped);
}

/* The manifest: the run id, and every phase that did not end well. */
static void read_manifest(const char *dir, struct iogap_rundir *rd)
{
	static const enum iogap_side order[] = { IOGAP_SIDE_BARE, IOGAP_SIDE_VM,
						  IOGAP_SIDE_MATCHED };
	const struct iogap_manifest *m = &rd->manifest;
	char path[PATH_MAX + 32], err[4096];

	if (iogap_manifest_read(dir, &rd->manifest, err, sizeof(err))) {
		snprintf(path, sizeof(path), "%s/" IOGAP_MANIFEST_FILE, dir);
		incomplete(rd, "no readable manifest.json (%.200s): the phases' outcome and the run "
			   "id are unknown", access(path, F_OK) ? "missing" : "malformed");
		return;
	}
	rd->run_id = m->run_id;
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		const char *phase = iogap_side_key[order[i]], *sd = iogap_side_dir[order[i]];
		const char *st = m->phase[order[i]].status, *msg = m->phase[order[i]].message;

		if (st && (!strcmp(st, "failed") || !strcmp(st, "interrupted")))
			incomplete(rd, "the %s phase %s (manifest.json)%s%.200s", phase, st,
				   msg && msg[0] ? ": " : "", msg ? msg : "");
		snprintf(path, sizeof(path), "%s/%s/probe.trace", dir, sd);
		if (st && !strcmp(st, "ok") && access(path, F_OK))
			incomplete(rd, "the %s phase is ok in manifest.json but %s/probe.trace is missing",
				   phase, sd);
	}
}

/* Refuse traces from another run: each names its run id in the header
 * (0: a writer that records none, e.g. filters before run ids reached
 * them — accepted, nothing to compare). */
static int check_run_ids(const char *dir, struct iogap_rundir *rd, char *err, size_t errlen)
{
	struct trace_slot sl[6];
	size_t l = 0;
	int foreign = 0;

	slots(rd, sl);
	for (int i = 0; !rd->run_id && sl[i].rec; i++)
		if (!strcmp(sl[i].name, "probe") && sl[i].rec->loaded)
			rd->run_id = sl[i].rec->header.run_id;
	for (int i = 0; sl[i].rec; i++) {
		uint64_t id = sl[i].rec->header.run_id;

		if (!sl[i].rec->loaded || !id || id == rd->run_id)
			continue;
		if (!foreign++)
			l = (size_t)snprintf(err, errlen, "%s: traces from another run (this run's id is "
					     "%016" PRIx64 "%s):", dir, rd->run_id,
					     rd->manifest.present ? ", from manifest.json" : "");
		if (l < errlen)
			l += (size_t)snprintf(err + l, errlen - l, " %s/%s.trace (run id %016" PRIx64 ")",
					      sl[i].side, sl[i].name, id);
	}
	return foreign ? -1 : 0;
}

/* Load whatever trace files the directory holds (a side counts when its
 * probe trace is there). */
static int load_traces(const char *dir, struct iogap_rundir *rd, char *err, size_t errlen)
{
	struct trace_slot sl[6];
	char path[PATH_MAX + 64], rel[64];

	slots(rd, sl);
	for (int i = 0; sl[i].rec; i++) {
		bool filter = strcmp(sl[i].name, "probe");

		snprintf(rel, sizeof(rel), "%s/%s.trace", sl[i].side, sl[i].name);
		snprintf(path, sizeof(path), "%s/%s", dir, rel);
		/* filter records: drained traces, or the rings themselves (run
		 * directories written before the rings were drained) */
		if (filter && access(path, F_OK)) {
			snprintf(rel, sizeof(rel), "%s/%s.ring", sl[i].side, sl[i].name);
			snprintf(path, sizeof(path), "%s/%s", dir, rel);
		}
		/* a side without its probe trace did not run; a VM side with one
		 * needs both filter traces (the reader says if one is missing) */
		if (filter ? !rd->guest.loaded : access(path, F_OK))
			continue;
		if (iogap_records_load(path, sl[i].rec, err, errlen))
			return -1;
		check_trace_state(rd, rel, sl[i].rec);
		if (sl[i].have)
			*sl[i].have = true;
	}
	return 0;
}

static int align_vm(const char *dir, struct iogap_rundir *rd, char *err, size_t errlen)
{
	char path[PATH_MAX + 64];
	struct iogap_clock_map map;

	snprintf(path, sizeof(path), "%s/vm/sync-before.txt", dir);
	if (iogap_sync_load(path, &rd->sync_before, &rd->n_before, err, errlen))
		return -1;
	snprintf(path, sizeof(path), "%s/vm/sync-after.txt", dir);
	if (iogap_sync_load(path, &rd->sync_after, &rd->n_after, err, errlen))
		return -1;
	if (iogap_clock_from_sync(rd->sync_before, rd->n_before, rd->sync_after, rd->n_after, &map)) {
		snprintf(err, errlen, "%s/vm: no clock sync samples", dir);
		return -1;
	}
	if (iogap_pair_requests(rd->guest.r, rd->guest.nr, rd->top.r, rd->top.nr, rd->bottom.r,
				rd->bottom.nr, &map, &rd->pairing, err, errlen))
		return -1;
	check_order(rd);
	rd->have_vm = true;
	return 0;
}

/* records, t0 and njobs of a side whose probe records are rec: the VM's
 * guest times are mapped with map and its t0 counts reads and writes only
 * (the requests it pairs); a bare-metal side (map NULL) is on the host
 * clock and its t0 counts every op outside ramp. */
static void side_info(struct iogap_side_info *si, const struct iogap_records *rec,
		      const struct iogap_clock_map *map)
{
	uint64_t t0 = UINT64_MAX;

	si->present = true;
	si->records += rec->nr;
	for (size_t i = 0; i < rec->nr; i++) {
		const struct iogap_trace_record *r = &rec->r[i];

		if (r->job >= si->njobs)
			si->njobs = r->job + 1u;
		if (!(r->flags & IOGAP_REC_RAMP) && (!map || r->op <= IOGAP_OP_WRITE) &&
		    r->start_ns < t0)
			t0 = r->start_ns;
	}
	if (t0 != UINT64_MAX)
		si->t0 = map ? iogap_guest_to_host(map, t0) : t0;
}

static void side_infos(struct iogap_rundir *rd)
{
	if (rd->have_vm) {
		side_info(&rd->side[IOGAP_SIDE_VM], &rd->guest, &rd->pairing.map);
		rd->side[IOGAP_SIDE_VM].records += rd->top.nr + rd->bottom.nr;
	}
	if (rd->have_bare)
		side_info(&rd->side[IOGAP_SIDE_BARE], &rd->bare, NULL);
	if (rd->have_matched)
		side_info(&rd->side[IOGAP_SIDE_MATCHED], &rd->matched, NULL);
}

int iogap_rundir_each_pair(const struct iogap_rundir *rd, iogap_pair_visit fn, void *ctx,
			   char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	for (size_t i = 0; rd->have_vm && i < rd->pairing.nr; i++) {
		int rc = fn(ctx, &rd->pairing.pairs[i]);

		if (rc)
			return rc;
	}
	return 0;
}

int iogap_rundir_each_record(const struct iogap_rundir *rd, enum iogap_side side,
			     iogap_record_visit fn, void *ctx, char *err, size_t errlen)
{
	const struct iogap_records *rec = side == IOGAP_SIDE_BARE ? &rd->bare :
					  side == IOGAP_SIDE_MATCHED ? &rd->matched : NULL;

	if (!rec) {
		snprintf(err, errlen, "not a bare-metal side: %d", (int)side);
		return -1;
	}
	for (size_t i = 0; rd->side[side].present && i < rec->nr; i++) {
		int rc = fn(ctx, &rec->r[i]);

		if (rc)
			return rc;
	}
	return 0;
}

int iogap_rundir_load(const char *dir, struct iogap_rundir *rd, char *err, size_t errlen)
{
	char path[PATH_MAX + 64];
	bool vm;

	memset(rd, 0, sizeof(*rd));
	read_manifest(dir, rd);
	snprintf(path, sizeof(path), "%s/vm/probe.trace", dir);
	vm = !access(path, F_OK);
	if (load_traces(dir, rd, err, errlen) || check_run_ids(dir, rd, err, errlen) ||
	    (vm && align_vm(dir, rd, err, errlen)))
		goto fail;
	if (!rd->have_bare && !rd->have_vm) {
		snprintf(err, errlen, "%s: no bare/ or vm/ results", dir);
		goto fail;
	}
	side_infos(rd);
	return 0;
fail:
	iogap_rundir_free(rd);
	return -1;
}

void iogap_rundir_free(struct iogap_rundir *rd)
{
	free(rd->bare.r);
	free(rd->guest.r);
	free(rd->top.r);
	free(rd->bottom.r);
	free(rd->matched.r);
	free(rd->sync_before);
	free(rd->sync_after);
	iogap_manifest_free(&rd->manifest);
	if (rd->have_vm)
		iogap_pairing_free(&rd->pairing);
	memset(rd, 0, sizeof(*rd));
}

/* ------------------------------------------------------- --match-load */

/* The VM's IOPS per job index and direction, from vm/probe.trace (records
 * outside ramp over the job's active span, as the report counts them):
 * exact per job even where the probe's JSON reports a group.  NULL with
 * err; *njobs = job indices seen. */
static double (*vm_job_iops(const char *dir, size_t *njobs, char *err, size_t errlen))[2]
{
	char path[PATH_MAX + 32];
	struct iogap_records rec;
	uint64_t (*span)[2];
	double (*iops)[2];
	size_t n = 0;

	snprintf(path, sizeof(path), "%s/vm/probe.trace", dir);
	if (iogap_records_load(path, &rec, err, errlen))
		return NULL;
	for (size_t i = 0; i < rec.nr; i++)
		n = rec.r[i].job >= n ? rec.r[i].job + 1u : n;
	span = calloc(n + 1, sizeof(*span));
	iops = calloc(n + 1, sizeof(*iops));
	for (size_t i = 0; span && iops && i < rec.nr; i++) {
		const struct iogap_trace_record *r = &rec.r[i];

		if (r->flags & IOGAP_REC_RAMP || r->op > IOGAP_OP_WRITE)
			continue;
		if (!span[r->job][0] || r->start_ns < span[r->job][0])
			span[r->job][0] = r->start_ns;
		if (r->complete_ns > span[r->job][1])
			span[r->job][1] = r->complete_ns;
		iops[r->job][r->op]++;
	}
	for (size_t j = 0; span && iops && j < n; j++)
		for (int d = 0; d < 2; d++)
			iops[j][d] = span[j][1] > span[j][0] ?
				     iops[j][d] * 1e9 / (double)(span[j][1] - span[j][0]) : 0;
	if (!span || !iops) {
		free(iops);
		iops = NULL;
		iogap_seterr(err, errlen, "out of memory");
	}
	free(span);
	free(rec.r);
	*njobs = n;
	return iops;
}

/* The rate line after job j's section header, or its name in note. */
static void put_rate(FILE *f, double (*iops)[2], size_t njobs, size_t j,
		     const struct iogap_job *job, char *note, size_t notelen)
{
	unsigned clones = job->numjobs ? job->numjobs : 1;
	size_t nl = strlen(note);

	if (j < njobs && (iops[j][0] > 0 || iops[j][1] > 0))
		fprintf(f, "rate_iops=%.0f,%.0f\n", iops[j][0] / clones, iops[j][1] / clones);
	else if (nl + 1 < notelen)
		snprintf(note + nl, notelen - nl, "%sjob '%.100s' had no VM requests: not rate "
			 "limited", nl ? "; " : "", job->name);
}

/* One job file with the rates inserted after each job's section header
 * (where the job-file parser saw it); *first is its first job index,
 * advanced past its jobs.  Jobs without VM requests go into note. */
static int write_rated_job(const char *in, const char *out, double (*iops)[2], size_t njobs,
			   size_t *first, char *note, size_t notelen, char *err, size_t errlen)
{
	struct iogap_job_list l = { 0 };
	size_t len, k = 0;
	char *text = iogap_read_file(in, 0, &len);
	FILE *f = NULL;
	int line = 0;

	if (!text || iogap_jobfile_parse(in, NULL, &l, err, errlen) || !(f = fopen(out, "w"))) {
		if (!text || !f)
			iogap_seterr(err, errlen, "%s: %s", text ? out : in, strerror(errno));
		free(text);
		iogap_job_list_free(&l);
		return -1;
	}
	for (const char *p = text; *p; line++) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);

		fprintf(f, "%.*s\n", (int)n, p);
		p += n + (nl != NULL);
		for (; k < l.nr && l.jobs[k].source_line == line + 1; k++)
			put_rate(f, iops, njobs, *first + k, &l.jobs[k], note, notelen);
	}
	*first += l.nr;
	free(text);
	iogap_job_list_free(&l);
	return fclose(f) ? iogap_seterr(err, errlen, "%s: %s", out, strerror(errno)) : 0;
}

int iogap_rundir_rated_jobs(const char *dir, char **jobs, int n, const char *outdir, char **paths,
			    char *note, size_t notelen, char *err, size_t errlen)
{
	size_t njobs, first = 0;
	double (*iops)[2] = vm_job_iops(dir, &njobs, err, errlen);
	int rc = 0;

	if (!iops)
		return -1;
	for (int i = 0; i < n && !rc; i++) {
		char path[PATH_MAX + 32];

		snprintf(path, sizeof(path), "%s/job%d.fio", outdir, i);
		if (!(paths[i] = strdup(path)))
			rc = iogap_seterr(err, errlen, "out of memory");
		else
			rc = write_rated_job(jobs[i], path, iops, njobs, &first, note, notelen, err, errlen);
	}
	free(iops);
	return rc;
}
