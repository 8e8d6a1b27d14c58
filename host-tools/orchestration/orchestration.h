/* SPDX-License-Identifier: MIT */
/*
 * Orchestration: `iogap run` boots the VM (vm.h), drives both sides over
 * the control channel (control.h), manages children, locks and pre-flight
 * checks (child.h, runlock.h, preflight.h) and the filter rings
 * (ringmap.h).  Depends on analysis/ (it reads the run directory it wrote).
 */
#ifndef IOGAP_ORCHESTRATION_H
#define IOGAP_ORCHESTRATION_H

/* `iogap run ...`: argv[0] is "run".  Returns the exit status. */
int iogap_cmd_run(int argc, char **argv);
/* `iogap run` arguments read as iogap_cmd_run reads them, silently (it
 * says what is wrong): argv is permuted so that argv[returned..argc) are
 * the job files; *dir is --dir's value, NULL without it. */
int iogap_run_scan(int argc, char **argv, const char **dir);

#endif
