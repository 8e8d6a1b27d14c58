/* SPDX-License-Identifier: MIT */
#ifndef IOGAP_RUN_H
#define IOGAP_RUN_H

/* `iogap run ...`: argv[0] is "run".  Returns the exit status. */
int iogap_cmd_run(int argc, char **argv);

#endif
