/* SPDX-License-Identifier: MIT */
/*
 * One `iogap run` per run directory: the directory is locked (flock on
 * DIR/.iogap-run.lock) for the whole run, and a directory that already
 * holds files is refused unless --force, which removes the files an
 * earlier run left (manifest.json, repeat.json, job*.fio, bare/, vm/,
 * bare-matched/) and nothing else.
 */
#ifndef IOGAP_RUNLOCK_H
#define IOGAP_RUNLOCK_H

#include <stdbool.h>
#include <stddef.h>

/* Create dir (and its parents), lock it, check or clear it.  The lock's
 * file descriptor (held until iogap exits), or -1 with err. */
int iogap_rundir_claim(const char *dir, bool force, char *err, size_t errlen);

#endif
