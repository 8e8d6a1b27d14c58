/* SPDX-License-Identifier: MIT */
/*
 * A file's extent map (FIEMAP): where its bytes lie on its file system's
 * device, so the bare-metal probe's file offsets can be matched with the
 * kernel's disk offsets (docs/kernel-points.md, "Files").  `iogap run`
 * records it into the run directory while the file is at hand
 * (bare/extents.txt); the analysis maps offsets through it.
 *
 * The file's lines: "# logical physical length flags" then one extent a
 * line, decimal bytes and FIEMAP's flags in hex.
 */
#ifndef IOGAP_EXTENTS_H
#define IOGAP_EXTENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct iogap_extent {
	uint64_t logical, physical, length;
	uint32_t flags;           /* FIEMAP_EXTENT_* */
};

struct iogap_extents {
	struct iogap_extent *e;   /* ascending logical */
	size_t n;
};

/* FIEMAP of file (synced first) written to out.  0, or -1 with err. */
int iogap_extents_record(const char *file, const char *out, char *err, size_t errlen);

/* out of path; 0, or -1 with err naming the line. */
int iogap_extents_load(const char *path, struct iogap_extents *x, char *err, size_t errlen);
void iogap_extents_free(struct iogap_extents *x);

/* The device offset of the file's [off, off + len): 0 when it lies in
 * extents that follow each other on the device too, whose place there is
 * known (not delayed, encoded, inline or of unknown place) and, for a read,
 * written (a read of an unwritten extent never reaches the device); else
 * -1: not mapped, never guessed. */
int iogap_extents_map(const struct iogap_extents *x, uint64_t off, uint64_t len, bool read,
		      uint64_t *dev_off);

#endif
