/* SPDX-License-Identifier: MIT */
/*
 * The QEMU binary a run uses and the iogap filter built for that very
 * binary.  Every QEMU build carries a string qemu_stamp_<40 hex> (its
 * configuration's hash: modules check it); every iogap-filter*.so carries
 * the stamp of the QEMU it was compiled against.  Equal stamps are the only
 * match: a filter of another build is never loaded (docs/qemu-filter.md).
 */
#ifndef IOGAP_QEMUBIN_H
#define IOGAP_QEMUBIN_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#define IOGAP_QEMU_STAMP_HEX 40

struct iogap_qemu {
	char path[PATH_MAX];       /* the qemu-system-x86_64, absolute */
	char version[256];         /* the first line of its --version */
	char stamp[IOGAP_QEMU_STAMP_HEX + 1];
	char filter[PATH_MAX];     /* iogap_qemu_filter(): the filter built for it */
};

/* The first qemu_stamp_<40 hex> in a file (a QEMU binary or a filter), its
 * hex digits into stamp.  0; -1 with errno (ENOMSG: the file has none). */
int iogap_file_stamp(const char *path, char stamp[IOGAP_QEMU_STAMP_HEX + 1]);

/* The QEMU to run: given (--qemu), else $IOGAP_QEMU, else
 * qemu-system-x86_64 on PATH; its absolute path, version and stamp.  0, or
 * -1 with err. */
int iogap_qemu_identify(const char *given, struct iogap_qemu *q, char *err, size_t errlen);

/* Another program of the same QEMU installation (qemu-img, qemu-io): the
 * one beside the qemu-system-x86_64 at qemu. */
void iogap_qemu_tool(const char *qemu, const char *tool, char *out, size_t len);

/* The version number in a --version line ("10.0.2"), or the line itself. */
void iogap_qemu_short_version(const char *version, char *out, size_t len);

/* Is path (or a file name) an iogap filter's: iogap-filter*.so? */
bool iogap_is_filter_name(const char *path);

/* The directories that may hold filters: the build tree's qemu-filter/
 * (iogap run from a build tree) and the installation's <libdir>/iogap. */
size_t iogap_filter_dirs(char dirs[2][PATH_MAX]);

/* q->filter: the filter whose stamp is q's.  explicit (a path the user
 * gave) is checked alone; else every iogap-filter*.so in dirs.  0, or -1
 * with err naming the QEMU's version and stamp, the filters found and the
 * command that builds a matching one. */
int iogap_qemu_filter(struct iogap_qemu *q, const char *explicit, char dirs[][PATH_MAX],
		      size_t ndirs, char *err, size_t errlen);

#endif
