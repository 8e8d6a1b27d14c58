/* SPDX-License-Identifier: MIT */
/*
 * One `iogap run` per run directory: the directory is locked (flock on
 * DIR/.iogap-run.lock) for the whole run, and a directory that already
 * holds files is refused unless --force, which removes the files an
 * earlier run left (manifest.json, repeat.json, jobN.fio, and in bare/,
 * vm/, bare-matched/ the names a run writes there) and nothing else: no
 * link is followed, nothing outside the directory is touched, and a job
 * file given on the command line is never removed nor overwritten.
 */
#ifndef IOGAP_RUNLOCK_H
#define IOGAP_RUNLOCK_H

#include <stdbool.h>
#include <stddef.h>

/* Create dir (and its parents), lock it, check or clear it; inputs are
 * the job files.  The lock's file descriptor (held until iogap exits), or
 * -1 with err (and no lock file left behind). */
int iogap_rundir_claim(const char *dir, bool force, const char *const *inputs, int nr_inputs,
		       char *err, size_t errlen);

/*
 * The target, for the whole run: a second iogap run on it is refused.  Its
 * fd, or -1 with err ("in use by another iogap run").
 */
int iogap_target_lock(const char *path, char *err, size_t errlen);

/* hold: take on fd the OFD locks QEMU takes on an image it reads (and, if
 * writes, writes) and does not share for writing or resizing, so another
 * QEMU cannot open the target while bare metal runs; !hold: drop them
 * before iogap's own QEMU opens it.  0, or -1. */
int iogap_target_hold(int fd, bool hold, bool writes);

#endif
