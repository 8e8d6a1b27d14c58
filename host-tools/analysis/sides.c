/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "sides.h"

const char *const iogap_side_key[IOGAP_SIDES] = { "vm", "bare", "bare_matched" };
const char *const iogap_side_dir[IOGAP_SIDES] = { "vm", "bare", "bare-matched" };
const char *const iogap_side_name[IOGAP_SIDES] = { "VM", "bare metal",
						   "bare metal at the VM's IOPS" };

enum iogap_side iogap_side_of_dir(const char *name)
{
	int s = 0;

	while (s < IOGAP_SIDES && strcmp(iogap_side_dir[s], name))
		s++;
	return (enum iogap_side)s;
}
