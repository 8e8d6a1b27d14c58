/* SPDX-License-Identifier: MIT */
/*
 * Zoned workloads: fio's zonemode=strided|zbd (fio 3.33 zbd.c semantics).
 *
 * zonemode=zbd keeps one zone table per target (shared by every job and
 * thread that uses it, one mutex): write pointers, open zones, which
 * worker has I/O in flight in a zone.  Real zoned block devices
 * (host-managed/host-aware) are driven through libzbd when built with it,
 * else the kernel's zone ioctls; regular files and non-zoned devices get
 * zones emulated by the probe (write pointers kept in memory for the run).
 *
 * The runner calls, per request: iogap_zbd_ddir() after choosing the
 * direction, iogap_zbd_prep() after choosing offset and length (it moves
 * writes to the zone's write pointer, keeps reads below it, resets full
 * zones, honours open-zone limits; a trim of a sequential zone becomes its
 * reset, iogap_zbd_reset_trim()), and iogap_zbd_complete() for every
 * completion (iogap_zbd_cancel() for a request the engine did not take).
 */
#ifndef IOGAP_ZBD_H
#define IOGAP_ZBD_H

#include <stddef.h>
#include <stdint.h>

#include "engine.h"
#include "job.h"

#define IOGAP_ZBD_MAX_OPEN_ZONES 4096   /* fio's ZBD_MAX_OPEN_ZONES */

struct iogap_zbd_set;      /* all zone tables of a run */
struct iogap_zbd_worker;   /* one worker thread's zoned state */

enum iogap_zbd_verdict {
	IOGAP_ZBD_ACCEPT = 0,   /* issue io as adjusted */
	IOGAP_ZBD_DRAIN  = 1,   /* complete this worker's in-flight I/O, then call prep again */
	IOGAP_ZBD_EOF    = 2,   /* no zone can take this request: the job ends, as fio's io_u_eof */
	IOGAP_ZBD_RESET  = 3,   /* a trim of a sequential zone: run it as iogap_zbd_reset_trim() */
};

/* Job-level checks and derived defaults (fio's fixup_options part):
 * zonemode resolution, zonerange default, capacities.  0, or -1 with a
 * message (no file:line prefix) in err. */
int iogap_zbd_job_check(struct iogap_job *j, char *err, size_t errlen);

/* Before workers start: opens every zonemode=zbd target, reads its zones
 * (or sets up emulated ones), checks sizes, alignment, limits and
 * direct=1; may round a whole-device size down to whole zones.  Warns on
 * stderr about writes without zonemode=zbd to a host-managed device and
 * about QEMU's ZNS emulation at iodepth > 1.  *set is NULL when no job is
 * zoned.  0, or -1 with a message in err. */
int iogap_zbd_setup(struct iogap_job_list *jobs, struct iogap_zbd_set **set,
		    char *err, size_t errlen);
void iogap_zbd_free(struct iogap_zbd_set *set);

/* Per worker: *out is NULL for zonemode=none.  region is the worker's
 * offset/length, depth its iodepth (slots), zone_resets its counter.
 * 0, or -1 with a message in err. */
int iogap_zbd_worker_new(struct iogap_zbd_set *set, const struct iogap_job *job,
			 uint64_t region_start, uint64_t region_len, unsigned depth,
			 uint64_t *zone_resets, struct iogap_zbd_worker **out,
			 char *err, size_t errlen);
void iogap_zbd_worker_free(struct iogap_zbd_worker *zw);

uint8_t iogap_zbd_ddir(struct iogap_zbd_worker *zw, uint8_t ddir);
/* Returns a verdict, or -errno with the reason in iogap_zbd_error(). */
int iogap_zbd_prep(struct iogap_zbd_worker *zw, struct iogap_io *io, uint64_t *seq_pos);
/* A trim prep answered IOGAP_ZBD_RESET: reset its zone (fio's zbd_do_io_u_trim:
 * the device's zone reset, or the write pointer alone on emulated zones;
 * no discard), in place of the engine's queue().  Sets io->result and
 * returns IOGAP_Q_COMPLETED. */
int iogap_zbd_reset_trim(struct iogap_zbd_worker *zw, struct iogap_io *io);
void iogap_zbd_complete(struct iogap_zbd_worker *zw, const struct iogap_io *io);
void iogap_zbd_cancel(struct iogap_zbd_worker *zw, const struct iogap_io *io);
const char *iogap_zbd_error(const struct iogap_zbd_worker *zw);

/* True when built with libzbd (else the kernel's zone ioctls are used). */
int iogap_zbd_have_libzbd(void);

#endif
