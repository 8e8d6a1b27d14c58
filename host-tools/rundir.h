/* SPDX-License-Identifier: MIT */
/*
 * A run directory's measurements, loaded and aligned: the probe traces of
 * both sides, the filter rings, the sync samples, the clock map and the
 * request pairs.  Shared by `iogap run` (right after a run) and the
 * reports (docs/iogap-run.md describes the directory).
 */
#ifndef IOGAP_RUNDIR_H
#define IOGAP_RUNDIR_H

#include <stdbool.h>
#include <stddef.h>

#include "align.h"

struct iogap_records {
	struct iogap_trace_record *r;
	size_t nr;
	struct iogap_trace_header header;
};

struct iogap_rundir {
	struct iogap_records bare, guest, top, bottom;
	bool have_bare, have_vm;
	struct iogap_sync_sample *sync_before, *sync_after;
	size_t n_before, n_after;
	struct iogap_pairing pairing;     /* valid when have_vm */
	/* clock sanity over exact pairs: mapped guest submit <= top entry <=
	 * bottom entry <= bottom exit <= top exit <= mapped guest completion */
	uint64_t order_checked, order_violations;
};

/* Load every trace/ring file (readers validate them). */
int iogap_records_load(const char *path, struct iogap_records *out, char *err, size_t errlen);

/* Sync samples as written by iogap_sync_save ("host_send guest host_recv"). */
int iogap_sync_save(const char *path, const struct iogap_sync_sample *s, size_t n);
int iogap_sync_load(const char *path, struct iogap_sync_sample **s, size_t *n, char *err,
		    size_t errlen);

/* Load dir/bare and dir/vm as present, align and pair the VM side.
 * 0, or -1 with err ("DIR: no bare/ or vm/ results"). */
int iogap_rundir_load(const char *dir, struct iogap_rundir *rd, char *err, size_t errlen);
void iogap_rundir_free(struct iogap_rundir *rd);

#endif
