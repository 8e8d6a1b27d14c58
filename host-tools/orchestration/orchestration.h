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

#endif
