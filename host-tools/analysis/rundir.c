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

/* The trace files of a run directory, by side; facts: the pairing facts
 * slot of a VM trace (-1: none). */
struct trace_slot {
	const char *side, *name;
	struct iogap_trace_file *tf;
	enum iogap_side of;
	int facts;
};

static void slots(struct iogap_rundir *rd, struct trace_slot out[6])
{
	const char *bare = iogap_side_dir[IOGAP_SIDE_BARE], *vm = iogap_side_dir[IOGAP_SIDE_VM];

	out[0] = (struct trace_slot){ bare, "probe", &rd->bare, IOGAP_SIDE_BARE, -1 };
	out[1] = (struct trace_slot){ iogap_side_dir[IOGAP_SIDE_MATCHED], "probe", &rd->matched,
				      IOGAP_SIDE_MATCHED, -1 };
	out[2] = (struct trace_slot){ vm, "probe", &rd->guest, IOGAP_SIDE_VM, 0 };
	out[3] = (struct trace_slot){ vm, "top", &rd->top, IOGAP_SIDE_VM, 1 };
	out[4] = (struct trace_slot){ vm, "bottom", &rd->bottom, IOGAP_SIDE_VM, 2 };
	out[5] = (struct trace_slot){ NULL, NULL, NULL, IOGAP_SIDES, -1 };
}

/* What the writer left: a trace it never closed, records it dropped. */
static void check_trace_state(struct iogap_rundir *rd, const char *rel,
			      const struct iogap_trace_file *tf)
{
	if (!(tf->header.flags & IOGAP_TRACE_F_COMPLETE))
		incomplete(rd, "%s was not closed by its writer (no COMPLETE flag): the run was cut "
			   "short, %" PRIu64 " records present", rel, tf->nr);
	if (tf->header.dropped)
		incomplete(rd, "%s: its writer dropped %" PRIu64 " records", rel, tf->header.dropped);
}

/* What a phase's status in the manifest says about its data: NULL when
 * nothing is missing ("ok", "skipped"). */
static const char *phase_lacks(const char *status)
{
	if (!strcmp(status, "failed") || !strcmp(status, "interrupted"))
		return status;
	/* `iogap run` marks a phase running while it runs and leaves none
	 * pending when it ends: either means iogap was stopped (kill -9) */
	if (!strcmp(status, "running"))
		return "still running: iogap stopped during it and the run never ended";
	if (!strcmp(status, "pending"))
		return "still pending: iogap stopped before it and the run never ended";
	return NULL;
}

/* The manifest: the run id, and every phase that did not end well; -1
 * with err when its run id is no run id (nothing could be checked). */
static int read_manifest(const char *dir, struct iogap_rundir *rd, char *err, size_t errlen)
{
	static const enum iogap_side order[] = { IOGAP_SIDE_BARE, IOGAP_SIDE_VM,
						  IOGAP_SIDE_MATCHED };
	const struct iogap_manifest *m = &rd->manifest;
	char path[PATH_MAX + 32], e[4096];
	int rc = iogap_manifest_read(dir, &rd->manifest, e, sizeof(e));

	if (rc == IOGAP_MANIFEST_BAD_ID)
		return iogap_seterr(err, errlen, "%s", e);
	if (rc) {
		/* e: "PATH: why" (too large, malformed) */
		snprintf(path, sizeof(path), "%s/" IOGAP_MANIFEST_FILE, dir);
		incomplete(rd, "no readable manifest.json (%.200s): the phases' outcome and the run "
			   "id are unknown", access(path, F_OK) ? "missing" :
			   !strncmp(e, path, strlen(path)) ? e + strlen(path) + 2 : e);
		return 0;
	}
	rd->run_id = m->run_id;
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		const char *phase = iogap_side_key[order[i]], *sd = iogap_side_dir[order[i]];
		const char *st = m->phase[order[i]].status, *msg = m->phase[order[i]].message;
		const char *lacks = st ? phase_lacks(st) : NULL;

		if (lacks)
			incomplete(rd, "the %s phase %s (manifest.json)%s%.200s", phase, lacks,
				   msg && msg[0] ? ": " : "", msg ? msg : "");
		snprintf(path, sizeof(path), "%s/%s/probe.trace", dir, sd);
		if (st && !strcmp(st, "ok") && access(path, F_OK))
			incomplete(rd, "the %s phase is ok in manifest.json but %s/probe.trace is missing",
				   phase, sd);
	}
	return 0;
}

/* path, where there, is a regular file (iogap_input_open): no reader
 * blocks on a FIFO or reads a device without end. */
static int check_input(const char *path, char *err, size_t errlen)
{
	size_t size;
	int fd;

	if (access(path, F_OK))
		return 0;
	if ((fd = iogap_input_open(path, 0, &size, err, errlen)) < 0)
		return -1;
	close(fd);
	return 0;
}

/* Every file of a run directory a reader may open (check_input). */
static int check_inputs(const char *dir, char *err, size_t errlen)
{
	static const char *const in_side[] = {
		"probe.trace", "top.trace", "bottom.trace", "top.ring", "bottom.ring", "probe.json",
		"cpuload.txt", "sync-before.txt", "sync-after.txt", IOGAP_KERNEL_TRACE,
		IOGAP_HOST_KERNEL_TRACE, IOGAP_EXTENTS_FILE, NULL };
	char path[PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/" IOGAP_MANIFEST_FILE, dir);
	if (check_input(path, err, errlen))
		return -1;
	for (int s = 0; s < IOGAP_SIDES; s++)
		for (int i = 0; in_side[i]; i++) {
			snprintf(path, sizeof(path), "%s/%s/%s", dir, iogap_side_dir[s], in_side[i]);
			if (check_input(path, err, errlen))
				return -1;
		}
	return 0;
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
	for (int i = 0; !rd->run_id && sl[i].tf; i++)
		if (!strcmp(sl[i].name, "probe") && sl[i].tf->loaded)
			rd->run_id = sl[i].tf->header.run_id;
	for (int i = 0; sl[i].tf; i++) {
		uint64_t id = sl[i].tf->header.run_id;

		if (!sl[i].tf->loaded || !id || id == rd->run_id)
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

/* What one pass over a probe trace gathers for its side (si, NULL for a
 * filter trace): job count and the earliest start of a measured request
 * (t0, on the trace's clock: reads and writes only when rw_only). */
struct scan {
	struct iogap_side_info *si;
	bool rw_only;
	uint64_t t0;
	struct iogap_stream_facts *facts;   /* NULL: not paired */
	struct iogap_kernel_side *ks;       /* a bare side's: its slack for kernel points */
	uint64_t max_key;
};

/* A trace's record (validated by the reader) counted and gathered into sc. */
static void scan_record(struct iogap_trace_file *tf, struct scan *sc,
			const struct iogap_trace_record *rec)
{
	tf->nr++;
	if (sc->facts)
		iogap_stream_fact(sc->facts, rec);
	if (sc->ks) {
		uint64_t len = rec->complete_ns > rec->start_ns ? rec->complete_ns - rec->start_ns :
			       rec->start_ns - rec->complete_ns;

		sc->ks->longest = len > sc->ks->longest ? len : sc->ks->longest;
		if (sc->max_key > rec->complete_ns && sc->max_key - rec->complete_ns > sc->ks->disorder)
			sc->ks->disorder = sc->max_key - rec->complete_ns;
		sc->max_key = rec->complete_ns > sc->max_key ? rec->complete_ns : sc->max_key;
	}
	if (!sc->si)
		return;
	if (rec->job >= sc->si->njobs)
		sc->si->njobs = rec->job + 1u;
	if (!(rec->flags & IOGAP_REC_RAMP) && (!sc->rw_only || rec->op <= IOGAP_OP_WRITE) &&
	    rec->start_ns < sc->t0)
		sc->t0 = rec->start_ns;
}

/* A pass over a trace's header and its first `limit` records (0: all);
 * counts them and gathers sc. */
static int scan_trace(struct iogap_trace_file *tf, struct scan *sc, uint64_t limit, char *err,
		      size_t errlen)
{
	struct iogap_trace_reader *r = iogap_trace_reader_open(tf->path, err, errlen);
	const struct iogap_trace_record *recs;
	ptrdiff_t got = 0;

	if (!r)
		return -1;
	tf->header = *iogap_trace_reader_header(r);
	while ((!limit || tf->nr < limit) && (got = iogap_trace_reader_batch(r, &recs, err, errlen)) > 0)
		for (ptrdiff_t i = 0; i < got && (!limit || tf->nr < limit); i++)
			scan_record(tf, sc, &recs[i]);
	iogap_trace_reader_close(r);
	if (got < 0)
		return -1;
	tf->loaded = true;
	return 0;
}

/* Records of the guest and top traces read before their whole scan, which
 * the clock bounds pass does (align_vm): their facts are its first guess. */
#define FOLD_PREFIX (2u * IOGAP_STREAM_SLICE)

/* Go once through whatever trace files the directory holds (a side counts
 * when its probe trace is there): validated, counted, side facts known;
 * the VM traces' state and side facts once aligned (align_vm), the guest
 * and top traces read whole there. */
static int scan_traces(const char *dir, struct iogap_rundir *rd, char *err, size_t errlen)
{
	struct trace_slot sl[6];
	char rel[64];

	slots(rd, sl);
	for (int i = 0; sl[i].tf; i++) {
		bool filter = strcmp(sl[i].name, "probe");
		struct iogap_trace_file *tf = sl[i].tf;
		struct scan sc = { .t0 = UINT64_MAX };

		snprintf(rel, sizeof(rel), "%s/%s.trace", sl[i].side, sl[i].name);
		snprintf(tf->path, sizeof(tf->path), "%s/%s", dir, rel);
		/* filter records: drained traces, or the rings themselves (run
		 * directories written before the rings were drained) */
		if (filter && access(tf->path, F_OK)) {
			snprintf(rel, sizeof(rel), "%s/%s.ring", sl[i].side, sl[i].name);
			snprintf(tf->path, sizeof(tf->path), "%s/%s", dir, rel);
		}
		/* a side without its probe trace did not run; a VM side with one
		 * needs both filter traces (the reader says if one is missing),
		 * unless it had no filter nodes */
		if (filter ? !rd->guest.loaded || !rd->filters : access(tf->path, F_OK))
			continue;
		if (!filter) {
			sc.si = &rd->side[sl[i].of];
			sc.rw_only = sl[i].of == IOGAP_SIDE_VM;
			if (sl[i].of != IOGAP_SIDE_VM)
				sc.ks = &rd->kernel[sl[i].of];
		}
		if (sl[i].facts >= 0)
			sc.facts = &rd->facts[sl[i].facts];
		if (scan_trace(tf, &sc, sl[i].facts == 0 || sl[i].facts == 1 ? FOLD_PREFIX : 0,
			       err, errlen))
			return -1;
		if (sl[i].of == IOGAP_SIDE_VM)
			continue;
		check_trace_state(rd, rel, tf);
		if (sc.si) {
			sc.si->records = tf->nr;
			sc.si->t0 = sc.t0 == UINT64_MAX ? 0 : sc.t0;
			sc.si->present = true;
		}
	}
	rd->have_bare = rd->side[IOGAP_SIDE_BARE].present;
	rd->have_matched = rd->side[IOGAP_SIDE_MATCHED].present;
	return 0;
}

static void stream_of(const struct iogap_rundir *rd, struct iogap_pair_stream *ps)
{
	memset(ps, 0, sizeof(*ps));
	ps->guest.path = rd->guest.path;
	/* no filter nodes: no records (an empty array) to pair with */
	ps->top.path = rd->filters ? rd->top.path : NULL;
	ps->bottom.path = rd->filters ? rd->bottom.path : NULL;
	ps->pp = &rd->ping_pong;
	memcpy(ps->facts, rd->facts, sizeof(ps->facts));
}

/* Requests paired in a window cut to the memory budget, or near a record
 * longer than the horizon allows for (pairstream.h); bounds: the clock
 * bounds pass's (writes only). */
static void note_cut(struct iogap_rundir *rd, const struct iogap_stream_cut *cut, bool bounds)
{
	bool *noted = bounds ? &rd->noted_near_bounds : &rd->noted_near;

	if (cut->truncated && !rd->noted_cut) {
		rd->noted_cut = true;
		incomplete(rd, "%" PRIu64 " requests were paired in a window cut to the memory "
			   "budget (%u records a trace; a request or completion delay longer than "
			   "such a window): their pairing may differ from a whole-run pairing",
			   cut->truncated, IOGAP_STREAM_BUDGET);
	}
	if (!(cut->near || cut->near_filters) || *noted)
		return;
	*noted = true;
	if (bounds)
		incomplete(rd, "%" PRIu64 " writes lie within %.3f ms of a record longer than the "
			   "pairing horizon allows for (%.3f ms; %" PRIu64 " such records): the clock "
			   "bounds' exact pairs among them may differ from a whole-run pairing's",
			   cut->near, (double)cut->reach / 1e6, (double)cut->cap / 1e6, cut->nlong);
	else
		incomplete(rd, "%" PRIu64 " requests and %" PRIu64 " filter records lie within "
			   "%.3f ms of a record longer than the pairing horizon allows for (%.3f "
			   "ms; %" PRIu64 " such records): their pairing (or its count as "
			   "unclaimed) may differ from a whole-run pairing", cut->near,
			   cut->near_filters, (double)cut->reach / 1e6, (double)cut->cap / 1e6,
			   cut->nlong);
}

struct fold {
	struct iogap_trace_file *tf;
	struct scan sc;
};

static void fold_seen(void *ctx, const struct iogap_trace_record *r)
{
	struct fold *f = ctx;

	scan_record(f->tf, &f->sc, r);
}

static bool facts_within(const struct iogap_stream_facts *f, const struct iogap_stream_facts *g)
{
	uint64_t fl = 0, fd = 0, gl = 0, gd = 0;

	for (int i = 0; i < 3; i++) {
		fl = f[i].longest > fl ? f[i].longest : fl;
		fd = f[i].disorder > fd ? f[i].disorder : fd;
		gl = g[i].longest > gl ? g[i].longest : gl;
		gd = g[i].disorder > gd ? g[i].disorder : gd;
	}
	return fl <= gl && fd <= gd;
}

/* The clock bounds pass, reading the guest and top traces whole for the
 * first time (their scan folded in: one read less).  Its horizon comes
 * from the facts of their first records, doubled; a pass whose horizon
 * turns out shorter than the traces' (or with a window cut) is redone
 * with the measured facts, so the bounds are those of a pass with them. */
static int bounds_folded(struct iogap_rundir *rd, struct iogap_bounds *b,
			 struct iogap_stream_cut *cut,
			 char *err, size_t errlen)
{
	struct fold fg = { &rd->guest, { .si = &rd->side[IOGAP_SIDE_VM], .rw_only = true,
					 .t0 = UINT64_MAX, .facts = &rd->facts[0] } };
	struct fold ft = { &rd->top, { .t0 = UINT64_MAX, .facts = &rd->facts[1] } };
	struct iogap_pair_stream ps;

	stream_of(rd, &ps);
	for (int i = 0; i < 2; i++) {
		ps.facts[i].longest *= 2;
		ps.facts[i].disorder *= 2;
		memset(&rd->facts[i], 0, sizeof(rd->facts[i]));
	}
	iogap_stream_facts_to_host(&ps.facts[0], &rd->ping_pong);
	rd->guest.nr = rd->top.nr = 0;
	ps.guest.seen = ps.top.seen = fold_seen;
	ps.guest.seen_ctx = &fg;
	ps.top.seen_ctx = &ft;
	if (iogap_pair_stream_bounds(&ps, b, cut, err, errlen))
		return -1;
	fg.sc.si->t0 = fg.sc.t0;
	for (int i = 0; i < 3; i++)
		iogap_stream_facts_finish(&rd->facts[i]);
	iogap_stream_facts_to_host(&rd->facts[0], &rd->ping_pong);
	if (!cut->truncated && facts_within(rd->facts, ps.facts))
		return 0;
	stream_of(rd, &ps);
	return iogap_pair_stream_bounds(&ps, b, cut, err, errlen);
}

/* The clock map: ping-pong, refined by the exact pairs' bounds (a first
 * pairing pass over the writes); the VM side's info on the host clock. */
static int align_vm(const char *dir, struct iogap_rundir *rd, char *err, size_t errlen)
{
	char path[PATH_MAX + 64];
	struct iogap_side_info *si = &rd->side[IOGAP_SIDE_VM];
	struct iogap_bounds b;
	struct iogap_stream_cut cut;

	snprintf(path, sizeof(path), "%s/vm/sync-before.txt", dir);
	if (iogap_sync_load(path, &rd->sync_before, &rd->n_before, err, errlen))
		return -1;
	snprintf(path, sizeof(path), "%s/vm/sync-after.txt", dir);
	if (iogap_sync_load(path, &rd->sync_after, &rd->n_after, err, errlen))
		return -1;
	if (iogap_clock_from_sync(rd->sync_before, rd->n_before, rd->sync_after, rd->n_after,
				  &rd->ping_pong)) {
		snprintf(err, errlen, "%s/vm: no clock sync samples", dir);
		return -1;
	}
	if (bounds_folded(rd, &b, &cut, err, errlen))
		return -1;
	for (int i = 0; i < (rd->filters ? 3 : 1); i++) {
		const struct iogap_trace_file *tf = i ? i == 1 ? &rd->top : &rd->bottom : &rd->guest;

		check_trace_state(rd, tf->path + strlen(dir) + 1, tf);
	}
	note_cut(rd, &cut, true);
	iogap_bounds_apply(&b, &rd->ping_pong, &rd->pairing.map);
	si->t0 = si->t0 == UINT64_MAX ? 0 : iogap_guest_to_host(&rd->pairing.map, si->t0);
	si->records = rd->guest.nr + rd->top.nr + rd->bottom.nr;
	si->present = true;
	rd->have_vm = true;
	return 0;
}

/* ------------------------------------------------------- kernel points */

/* The kernel trace's info (written by the probe): the partition's start,
 * the target's kind, the stamps' step. */
static void kernel_info(struct iogap_kernel_side *ks, const char *info)
{
	const char *b = strstr(info, "\nsector_base="), *kind = strstr(info, "\ntarget_kind=");
	const char *res = strstr(info, "\nstamp_resolution_ns=");
	uint64_t step = res ? strtoull(res + 21, NULL, 10) : 0;

	ks->base = b ? strtoull(b + 13, NULL, 10) * 512u : 0;
	ks->file = kind && !strncmp(kind + 13, "file\n", 5);
	/* a trace that does not say its stamps' step (written before the
	 * binary reader) is taken at the text trace_pipe's microsecond */
	ks->resolution_ns = step ? step : 1000;
}

/* A file target's extents (bare/extents.txt for both bare sides,
 * vm/extents.txt for the host kernel under QEMU). */
static void kernel_extents(const char *dir, struct iogap_kernel_side *ks, enum iogap_side side)
{
	char path[PATH_MAX + 64], e[PATH_MAX + 128];

	snprintf(path, sizeof(path), "%s/%s/" IOGAP_EXTENTS_FILE, dir,
		 iogap_side_dir[side == IOGAP_SIDE_VM ? IOGAP_SIDE_VM : IOGAP_SIDE_BARE]);
	if (iogap_extents_load(path, &ks->extents, e, sizeof(e)))
		snprintf(ks->extents_why, sizeof(ks->extents_why), "%.300s", e);
}

/* Why a kernel trace the run lacks is missing: the manifest's word. */
static void kernel_absent(struct iogap_rundir *rd, struct iogap_kernel_side *ks, const char *why,
			  const char *rel)
{
	if (why)
		snprintf(ks->why, sizeof(ks->why), "%s", why);
	else if (rd->manifest.kernel_points)
		snprintf(ks->why, sizeof(ks->why), "%s is missing (its recorder did not finish it)",
			 rel);
}

/* One kernel trace (rel in dir) of side: its header checked against the
 * run, its info read, a file target's extents loaded; the records are read
 * as the visits go.  Absent: why, from the manifest. */
static int load_kernel_trace(const char *dir, struct iogap_rundir *rd, struct iogap_kernel_side *ks,
			     enum iogap_side side, const char *rel, const char *why, char *err,
			     size_t errlen)
{
	struct iogap_trace_reader *r;
	const struct iogap_trace_header *h;

	snprintf(ks->path, sizeof(ks->path), "%s/%s", dir, rel);
	if (access(ks->path, F_OK)) {
		kernel_absent(rd, ks, why, rel);
		return 0;
	}
	if (!(r = iogap_trace_reader_open(ks->path, err, errlen)))
		return -1;
	h = iogap_trace_reader_header(r);
	if (h->run_id && rd->run_id && h->run_id != rd->run_id) {
		iogap_seterr(err, errlen, "%s: traces from another run: %s (run id %016" PRIx64
			     ", this run's %016" PRIx64 ")", dir, rel, h->run_id, rd->run_id);
		iogap_trace_reader_close(r);
		return -1;
	}
	if (!(h->flags & IOGAP_TRACE_F_COMPLETE))
		incomplete(rd, "%s was not closed by its writer: kernel points end early", rel);
	if (h->dropped)
		incomplete(rd, "%s: %" PRIu64 " kernel events were lost (a tracefs buffer "
			   "overflowed): their requests match none", rel, h->dropped);
	kernel_info(ks, iogap_trace_reader_info(r));
	iogap_trace_reader_close(r);
	if (ks->file)
		kernel_extents(dir, ks, side);
	ks->present = rd->kernel_recorded = true;
	return 0;
}

/* SIDE/kernel.trace of each side present, vm/host-kernel.trace. */
static int load_kernel_points(const char *dir, struct iogap_rundir *rd, char *err, size_t errlen)
{
	const struct iogap_clock_map *m = &rd->pairing.map;

	rd->kernel_recorded = rd->manifest.kernel_points;
	for (int s = 0; s < IOGAP_SIDES; s++) {
		char rel[64];

		snprintf(rel, sizeof(rel), "%s/" IOGAP_KERNEL_TRACE, iogap_side_dir[s]);
		if (rd->side[s].present &&
		    load_kernel_trace(dir, rd, &rd->kernel[s], (enum iogap_side)s, rel,
				      rd->manifest.phase[s].kernel_why, err, errlen))
			return -1;
	}
	if (!rd->have_vm)
		return 0;
	if (load_kernel_trace(dir, rd, &rd->host_kernel, IOGAP_SIDE_VM,
			      "vm/" IOGAP_HOST_KERNEL_TRACE, rd->manifest.vm_host_kernel_why, err,
			      errlen))
		return -1;
	/* the guest's facts, on the host clock: the drift's stretch is far
	 * below the margin kstream_forget allows */
	for (int i = 0; i < 2; i++) {
		struct iogap_kernel_side *ks = i ? &rd->host_kernel : &rd->kernel[IOGAP_SIDE_VM];

		ks->longest = rd->facts[0].longest;
		ks->disorder = rd->facts[0].disorder;
	}
	/* the host kernel's window is found from the mapped guest times: add
	 * the clock bound's width and a millisecond */
	rd->host_kernel.extra = (uint64_t)(m->bound_hi_ns > m->bound_lo_ns ?
					   m->bound_hi_ns - m->bound_lo_ns : 0) + 1000000u;
	return 0;
}

/* A side's kernel requests read as its requests are visited, matched
 * through a window (kmatch.h): a request's candidates complete by its
 * completion, so the kernel trace (in completion order) is read up to
 * there; what no request still to come can match is forgotten. */
struct kstream {
	struct iogap_kernel_side *ks;
	struct iogap_trace_reader *r;
	struct iogap_kmatch *m;
	struct iogap_trace_record next, matched;
	bool have_next;
	uint64_t max_complete;    /* of the requests visited */
	uint64_t split;           /* requests in several parts (host: bottom records) */
};

static int kstream_read(struct kstream *k, char *err, size_t errlen)
{
	int got = iogap_trace_reader_next(k->r, &k->next, err, errlen);

	k->have_next = got > 0;
	return got < 0 ? -1 : 0;
}

/* k->ks NULL when the side has no kernel points. */
static int kstream_open(struct kstream *k, struct iogap_kernel_side *ks, char *err, size_t errlen)
{
	memset(k, 0, sizeof(*k));
	if (!ks->present)
		return 0;
	memset(&ks->counts, 0, sizeof(ks->counts));
	ks->unmapped = ks->held_max = 0;
	k->ks = ks;
	k->m = iogap_kmatch_new(ks->base, ks->resolution_ns);
	k->r = k->m ? iogap_trace_reader_open(ks->path, err, errlen) : NULL;
	if (!k->m)
		iogap_seterr(err, errlen, "out of memory (kernel points)");
	return k->r ? kstream_read(k, err, errlen) : -1;
}

static void kstream_close(struct kstream *k)
{
	if (k->m) {
		k->ks->counts = *iogap_kmatch_counts(k->m);
		k->ks->counts.split += k->split;
	}
	iogap_kmatch_free(k->m);
	if (k->r)
		iogap_trace_reader_close(k->r);
	memset(k, 0, sizeof(*k));
}

/* No request still to come starts before the latest completion so far
 * (complete: this request's) less the trace's disorder and its longest
 * request (plus a margin for the guest facts' mapping, the stamps' step
 * and ks->extra). */
static void kstream_forget(struct kstream *k, uint64_t complete)
{
	const struct iogap_kernel_side *ks = k->ks;
	uint64_t slack, reach;

	if (!ks)
		return;
	slack = ks->longest + ks->disorder;
	if (complete > k->max_complete)
		k->max_complete = complete;
	reach = slack + slack / 1000 + ks->resolution_ns + ks->extra;
	if (k->max_complete > reach)
		iogap_kmatch_forget_before(k->m, k->max_complete - reach);
}

/* req's kernel request into *kernel (NULL: none matched); complete: the
 * request's completion on the clock kstream_forget goes by.  0, or -1 with
 * err. */
static int kstream_match(struct kstream *k, const struct iogap_trace_record *req,
			 uint64_t complete, const struct iogap_trace_record **kernel, char *err,
			 size_t errlen)
{
	struct iogap_trace_record q = *req;
	size_t held;

	*kernel = NULL;
	if (!k->ks || req->op > IOGAP_OP_TRIM)
		return 0;
	while (k->have_next && k->next.complete_ns <= req->complete_ns) {
		if (iogap_kmatch_add_kernel(k->m, &k->next))
			return iogap_seterr(err, errlen, "%s: a kernel request out of completion "
					    "order, or out of memory", k->ks->path);
		if (kstream_read(k, err, errlen))
			return -1;
	}
	kstream_forget(k, complete);
	held = iogap_kmatch_held(k->m);
	k->ks->held_max = held > k->ks->held_max ? held : k->ks->held_max;
	if (k->ks->file && iogap_extents_map(&k->ks->extents, req->offset, req->length,
					     req->op == IOGAP_OP_READ, &q.offset))
		k->ks->unmapped++;
	else if (iogap_kmatch_request(k->m, &q, &k->matched) == IOGAP_KMATCH_MATCHED)
		*kernel = &k->matched;
	return 0;
}

struct pair_visit {
	struct iogap_rundir *rd;
	iogap_pair_visit fn;
	void *ctx;
	uint64_t seq;             /* the pair's position in the visit */
	struct kstream k;         /* the guest kernel's requests */
	struct kstream hk;        /* the host kernel's under QEMU */
	char kerr[512];           /* why matching them failed */
};

/* A pair's kernel requests: the guest kernel's for its guest record, the
 * host kernel's for its bottom record (one part only: a request QEMU sent
 * down in several is split).  0, or -1 with v->kerr. */
static int match_pair_kernel(struct pair_visit *v, const struct iogap_pair *p,
			     struct iogap_pair *q)
{
	if (kstream_match(&v->k, p->guest, p->guest->complete_ns, &q->kernel, v->kerr,
			  sizeof(v->kerr)))
		return -1;
	if (!v->hk.ks || !p->bottom)
		return 0;
	if (p->bottom_parts > 1)
		v->hk.split++;
	else if (kstream_match(&v->hk, p->bottom, p->g_complete, &q->host_kernel, v->kerr,
			       sizeof(v->kerr)))
		return -1;
	return 0;
}

void iogap_rundir_pairs_to(struct iogap_rundir *rd, FILE *f)
{
	rd->pairs_out = f;
	fputs("seq job op offset length ramp how g_start g_issue g_complete top_entry top_exit "
	      "top_parts bottom_entry bottom_exit bottom_parts\n", f);
}

/* how a pair was made: by write tag, by key and time window, as part of a
 * merged read; or why not */
static const char *pair_how(const struct iogap_pair *p)
{
	if (p->top)
		return p->exact ? "tag" : p->merged ? "merged" : "key";
	if (p->ambiguous)
		return "ambiguous";
	return p->invalid ? "invalid" : "unpaired";
}

static void write_pair(FILE *f, uint64_t seq, const struct iogap_pair *p)
{
	const struct iogap_trace_record *g = p->guest;

	fprintf(f, "%" PRIu64 " %u %s %" PRIu64 " %u %d %s %" PRIu64 " %" PRIu64 " %" PRIu64
		" %" PRIu64 " %" PRIu64 " %u %" PRIu64 " %" PRIu64 " %u\n", seq, g->job,
		g->op == IOGAP_OP_WRITE ? "write" : "read", g->offset, g->length,
		!!(g->flags & IOGAP_REC_RAMP), pair_how(p), p->g_start, p->g_issue, p->g_complete,
		p->top_entry, p->top_exit, p->top_parts, p->bottom_entry, p->bottom_exit,
		p->bottom_parts);
}

/* Clock sanity of an exact pair (rd->order_*), then the caller's visit. */
static int visit_pair(void *ctx, const struct iogap_pair *p)
{
	struct pair_visit *v = ctx;

	if (p->exact && p->top && p->bottom) {
		v->rd->order_checked++;
		if (!(p->g_start <= p->top->start_ns && p->top->start_ns <= p->bottom->start_ns &&
		      p->bottom->start_ns <= p->bottom->complete_ns &&
		      p->bottom->complete_ns <= p->top->complete_ns &&
		      p->top->complete_ns <= p->g_complete))
			v->rd->order_violations++;
	}
	if (v->rd->pairs_out)
		write_pair(v->rd->pairs_out, v->seq++, p);
	if (v->k.ks || v->hk.ks) {
		struct iogap_pair q = *p;

		if (match_pair_kernel(v, p, &q))
			return -1;
		return v->fn(v->ctx, &q);
	}
	return v->fn(v->ctx, p);
}

int iogap_rundir_each_pair(struct iogap_rundir *rd, iogap_pair_visit fn, void *ctx,
			   char *err, size_t errlen)
{
	struct pair_visit v = { rd, fn, ctx, 0, { 0 }, { 0 }, "" };
	struct iogap_pair_stream ps;
	struct iogap_stream_cut cut;
	int rc;

	if (!rd->have_vm)
		return 0;
	if (kstream_open(&v.k, &rd->kernel[IOGAP_SIDE_VM], err, errlen) ||
	    kstream_open(&v.hk, &rd->host_kernel, err, errlen)) {
		kstream_close(&v.k);
		kstream_close(&v.hk);
		return -1;
	}
	rd->order_checked = rd->order_violations = 0;
	stream_of(rd, &ps);
	rc = iogap_pair_stream_run(&ps, &rd->pairing.map, visit_pair, &v, &rd->pairing.counts,
				   &cut, err, errlen);
	kstream_close(&v.k);
	kstream_close(&v.hk);
	if (v.kerr[0])
		return iogap_seterr(err, errlen, "%s", v.kerr);
	note_cut(rd, &cut, false);
	return rc;
}

int iogap_rundir_each_record(struct iogap_rundir *rd, enum iogap_side side,
			     iogap_record_visit fn, void *ctx, char *err, size_t errlen)
{
	const struct iogap_trace_file *tf = side == IOGAP_SIDE_BARE ? &rd->bare :
					    side == IOGAP_SIDE_MATCHED ? &rd->matched : NULL;
	struct iogap_trace_reader *r;
	const struct iogap_trace_record *recs, *kernel;
	struct kstream k;
	ptrdiff_t got = 0;
	int rc = 0;

	if (!tf) {
		snprintf(err, errlen, "not a bare-metal side: %d", (int)side);
		return -1;
	}
	if (!rd->side[side].present)
		return 0;
	if (!(r = iogap_trace_reader_open(tf->path, err, errlen)))
		return -1;
	if (kstream_open(&k, &rd->kernel[side], err, errlen))
		got = -1;
	while (!rc && got >= 0 && (got = iogap_trace_reader_batch(r, &recs, err, errlen)) > 0)
		for (ptrdiff_t i = 0; !rc && i < got; i++)
			rc = kstream_match(&k, &recs[i], recs[i].complete_ns, &kernel, err, errlen) ?
			     -1 : fn(ctx, &recs[i], kernel);
	kstream_close(&k);
	iogap_trace_reader_close(r);
	return rc ? rc : got < 0 ? -1 : 0;
}

/* Leave ks out if it matched fewer than half its requests; true if so. */
static bool drop_unmatched(struct iogap_kernel_side *ks, const char *rel)
{
	const struct iogap_kmatch_counts *c = &ks->counts;
	uint64_t asked = c->matched + c->none + c->ambiguous + c->split + c->merged + ks->unmapped;

	if (!ks->present || 2 * c->matched >= asked)
		return false;
	snprintf(ks->why, sizeof(ks->why), "%s matched only %" PRIu64 " of %" PRIu64 " requests "
		 "(none %" PRIu64 ", ambiguous %" PRIu64 ", split %" PRIu64 ", merged %" PRIu64
		 ", unmapped %" PRIu64 "): left out of the stages", rel, c->matched, asked, c->none,
		 c->ambiguous, c->split, c->merged, ks->unmapped);
	ks->present = false;
	return true;
}

bool iogap_rundir_drop_unmatched_kernel(struct iogap_rundir *rd)
{
	bool dropped = drop_unmatched(&rd->host_kernel, "vm/" IOGAP_HOST_KERNEL_TRACE);

	for (int s = 0; s < IOGAP_SIDES; s++) {
		char rel[64];

		snprintf(rel, sizeof(rel), "%s/" IOGAP_KERNEL_TRACE, iogap_side_dir[s]);
		dropped |= drop_unmatched(&rd->kernel[s], rel);
	}
	return dropped;
}

int iogap_rundir_load(const char *dir, struct iogap_rundir *rd, char *err, size_t errlen)
{
	char path[PATH_MAX + 64];
	bool vm;

	memset(rd, 0, sizeof(*rd));
	if (check_inputs(dir, err, errlen) || read_manifest(dir, rd, err, errlen))
		goto fail;
	rd->filters = !(rd->manifest.passthrough && rd->manifest.passthrough[0]);
	snprintf(path, sizeof(path), "%s/vm/probe.trace", dir);
	vm = !access(path, F_OK);
	if (scan_traces(dir, rd, err, errlen) || check_run_ids(dir, rd, err, errlen) ||
	    (vm && align_vm(dir, rd, err, errlen)) || load_kernel_points(dir, rd, err, errlen))
		goto fail;
	if (!rd->have_bare && !rd->have_vm) {
		snprintf(err, errlen, "%s: no bare/ or vm/ results", dir);
		goto fail;
	}
	return 0;
fail:
	iogap_rundir_free(rd);
	return -1;
}

/* The phase that did not end well, by the manifest: -1 with err. */
static int check_phases(const char *dir, const struct iogap_manifest *m, char *err, size_t errlen)
{
	for (int i = 0; i < IOGAP_SIDES; i++) {
		const char *st = m->phase[i].status, *lacks = st ? phase_lacks(st) : NULL;

		if (lacks)
			return iogap_seterr(err, errlen, "%s: the %s phase %s (manifest.json): its data "
					    "is incomplete", dir, iogap_side_key[i], lacks);
	}
	return 0;
}

int iogap_rundir_check(const char *dir, char *err, size_t errlen)
{
	struct iogap_rundir *rd = calloc(1, sizeof(*rd));
	struct trace_slot sl[6];
	int rc = -1;

	if (!rd)
		return iogap_seterr(err, errlen, "out of memory");
	if (check_inputs(dir, err, errlen) || read_manifest(dir, rd, err, errlen) ||
	    check_phases(dir, &rd->manifest, err, errlen))
		goto out;
	slots(rd, sl);
	for (int i = 0; sl[i].tf; i++) {
		struct iogap_trace_file *tf = sl[i].tf;
		struct iogap_trace_reader *r;

		snprintf(tf->path, sizeof(tf->path), "%s/%s/%s.trace", dir, sl[i].side, sl[i].name);
		if (access(tf->path, F_OK))
			continue;
		if (!(r = iogap_trace_reader_open(tf->path, err, errlen)))
			goto out;
		tf->header = *iogap_trace_reader_header(r);
		tf->loaded = true;
		iogap_trace_reader_close(r);
	}
	rc = check_run_ids(dir, rd, err, errlen);
out:
	iogap_rundir_free(rd);
	free(rd);
	return rc;
}

void iogap_rundir_free(struct iogap_rundir *rd)
{
	for (int s = 0; s < IOGAP_SIDES; s++)
		iogap_extents_free(&rd->kernel[s].extents);
	iogap_extents_free(&rd->host_kernel.extents);
	free(rd->sync_before);
	free(rd->sync_after);
	iogap_manifest_free(&rd->manifest);
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
	struct iogap_trace_reader *r;
	struct iogap_trace_record rec;
	/* per job index (uint16_t): first start, last completion */
	uint64_t (*span)[2] = calloc(UINT16_MAX + 1, sizeof(*span));
	double (*iops)[2] = calloc(UINT16_MAX + 1, sizeof(*iops));
	size_t n = 0;
	int got = -1;

	snprintf(path, sizeof(path), "%s/vm/probe.trace", dir);
	if (!span || !iops)
		iogap_seterr(err, errlen, "out of memory");
	else if ((r = iogap_trace_reader_open(path, err, errlen))) {
		while ((got = iogap_trace_reader_next(r, &rec, err, errlen)) > 0) {
			n = rec.job >= n ? rec.job + 1u : n;
			if (rec.flags & IOGAP_REC_RAMP || rec.op > IOGAP_OP_WRITE)
				continue;
			if (!span[rec.job][0] || rec.start_ns < span[rec.job][0])
				span[rec.job][0] = rec.start_ns;
			if (rec.complete_ns > span[rec.job][1])
				span[rec.job][1] = rec.complete_ns;
			iops[rec.job][rec.op]++;
		}
		iogap_trace_reader_close(r);
	}
	for (size_t j = 0; !got && j < n; j++)
		for (int d = 0; d < 2; d++)
			iops[j][d] = span[j][1] > span[j][0] ?
				     iops[j][d] * 1e9 / (double)(span[j][1] - span[j][0]) : 0;
	free(span);
	if (got) {
		free(iops);
		return NULL;
	}
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
