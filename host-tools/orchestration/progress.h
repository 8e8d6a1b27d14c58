/* SPDX-License-Identifier: MIT */
/*
 * The live progress line of `iogap run`: one line per phase (bare metal,
 * VM boot, VM job, draining, analysis) with the main phase's number
 * ("phase 2 of 3: VM job") and its elapsed time, redrawn in
 * place twice a second by a thread, ended with a newline when the next
 * phase begins.  Only when stderr is a terminal and not --quiet: scripts
 * and CI get no progress bytes at all.
 */
#ifndef IOGAP_PROGRESS_H
#define IOGAP_PROGRESS_H

#include <stdbool.h>

/* Starts the line if stderr is a terminal and !quiet; else every call is a no-op. */
void iogap_progress_start(bool quiet);
/* The run's main phases (bare metal, VM, bare metal at the VM's IOPS):
 * each line then begins "phase N of TOTAL: ". */
void iogap_progress_phases(int total);
/* Ends the current phase's line and begins one for PHASE (a static string),
 * a step within the current main phase. */
void iogap_progress_phase(const char *phase);
/* The same, for the next main phase; NULL: its first step names it. */
void iogap_progress_next(const char *phase);
/* TEXT and a newline on stderr; on a terminal above the progress line,
 * which is redrawn below it. */
void iogap_progress_message(const char *text);
/* Ends the current line and stops the thread. */
void iogap_progress_stop(void);

#endif
