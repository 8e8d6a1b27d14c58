/* SPDX-License-Identifier: MIT */
/*
 * The sides of a run directory and their names, in one table: the key
 * (report JSON, manifest phase), the directory, the name shown to people.
 */
#ifndef IOGAP_SIDES_H
#define IOGAP_SIDES_H

/* vm/, bare/, bare-matched/ (the bare-metal run at the VM's IOPS,
 * `iogap run --match-load`). */
enum iogap_side { IOGAP_SIDE_VM, IOGAP_SIDE_BARE, IOGAP_SIDE_MATCHED, IOGAP_SIDES };

/* "vm", "bare", "bare_matched": report JSON keys and manifest phases */
extern const char *const iogap_side_key[IOGAP_SIDES];
/* "vm", "bare", "bare-matched": the side's directory in the run */
extern const char *const iogap_side_dir[IOGAP_SIDES];
/* "VM", "bare metal", "bare metal at the VM's IOPS" */
extern const char *const iogap_side_name[IOGAP_SIDES];

/* The side whose directory is name; IOGAP_SIDES for any other name. */
enum iogap_side iogap_side_of_dir(const char *name);

#endif
