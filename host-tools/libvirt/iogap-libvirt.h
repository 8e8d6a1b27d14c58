/* SPDX-License-Identifier: MIT */
/* `iogap libvirt ...`: the filter in a domain the user already has (docs/libvirt.md). */
#ifndef IOGAP_LIBVIRT_H
#define IOGAP_LIBVIRT_H

/* argv[0] is "libvirt".  Returns the exit status. */
int iogap_cmd_libvirt(int argc, char **argv);

#endif
