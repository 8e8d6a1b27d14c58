/* SPDX-License-Identifier: MIT */
/* Data safety: never write over something that holds data by mistake. */
#ifndef IOGAP_SAFETY_H
#define IOGAP_SAFETY_H

#include <stddef.h>

/* 0 when path may be written; 1 when it carries data (a filesystem,
 * partition table, RAID/LVM member, disk image header such as qcow2, or
 * is mounted / holds a mounted filesystem), with what was found in why
 * (e.g. "ext4 filesystem signature"); -1 on error (why says it).  A path
 * that does not exist, or an empty/zero-filled file, is writable. */
int iogap_target_check(const char *path, char *why, size_t whylen);

#endif
