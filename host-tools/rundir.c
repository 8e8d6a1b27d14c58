/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rundir.h"
#include "trace_file.h"

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

static int load_vm(const char *dir, struct iogap_rundir *rd, char *err, size_t errlen)
{
	char path[PATH_MAX + 64];
	struct iogap_clock_map map;

	snprintf(path, sizeof(path), "%s/vm/probe.trace", dir);
	if (iogap_records_load(path, &rd->guest, err, errlen))
		return -1;
	/* filter records: drained traces, or the rings themselves (run
	 * directories written before the rings were drained) */
	for (int i = 0; i < 2; i++) {
		const char *layer = i ? "bottom" : "top";
		struct iogap_records *rec = i ? &rd->bottom : &rd->top;

		snprintf(path, sizeof(path), "%s/vm/%s.trace", dir, layer);
		if (access(path, F_OK))
			snprintf(path, sizeof(path), "%s/vm/%s.ring", dir, layer);
		if (iogap_records_load(path, rec, err, errlen))
			return -1;
	}
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

int iogap_rundir_load(const char *dir, struct iogap_rundir *rd, char *err, size_t errlen)
{
	char path[PATH_MAX + 64];

	memset(rd, 0, sizeof(*rd));
	snprintf(path, sizeof(path), "%s/bare/probe.trace", dir);
	if (!access(path, F_OK)) {
		if (iogap_records_load(path, &rd->bare, err, errlen))
			goto fail;
		rd->have_bare = true;
	}
	snprintf(path, sizeof(path), "%s/vm/probe.trace", dir);
	if (!access(path, F_OK) && load_vm(dir, rd, err, errlen))
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

void iogap_rundir_free(struct iogap_rundir *rd)
{
	free(rd->bare.r);
	free(rd->guest.r);
	free(rd->top.r);
	free(rd->bottom.r);
	free(rd->sync_before);
	free(rd->sync_after);
	if (rd->have_vm)
		iogap_pairing_free(&rd->pairing);
	memset(rd, 0, sizeof(*rd));
}
