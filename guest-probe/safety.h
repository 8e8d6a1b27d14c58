/* SPDX-License-Identifier: MIT */
/* Data safety: never write over something that holds data by mistake. */
#ifndef IOGAP_SAFETY_H
#define IOGAP_SAFETY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

/* Where a job writes, in fio's terms: numjobs clones, clone c from
 * offset + offset_increment * c, size bytes each. */
struct iogap_target_region {
	uint64_t offset, offset_increment, size;
	unsigned numjobs;
};

/* A set of files by st_dev and st_ino: those a run found in place before
 * it created any (fio's unlink is for the files a job created, never
 * these), those checked or created for writing. */
struct iogap_file_ids {
	struct iogap_file_id {
		dev_t dev;
		ino_t ino;
	} *id;
	size_t nr;
};

/* 0 when path may be written; 1 when it carries data (a filesystem,
 * partition table, RAID/LVM member, disk image header such as qcow2, or
 * is mounted / holds a mounted filesystem), with what was found in why
 * (e.g. "ext4 filesystem signature"); -1 on error or when it is no file
 * or device (a directory, a FIFO), why says it.  A path that does not
 * exist, or an empty/zero-filled file, is writable.  What is looked at is
 * the file opened once, not the path again: a path swapped meanwhile is
 * an error; checked (may be NULL) gets what was found writable.
 * Signatures are looked for at 0, at the usual partition
 * starts and, with r, where each clone's region starts and in its first
 * MiBs. */
int iogap_target_check_region(const char *path, const struct iogap_target_region *r,
			      struct iogap_file_ids *checked, char *why, size_t whylen);
int iogap_target_check(const char *path, char *why, size_t whylen);
/* The same for the file open on fd (any access mode), named name in
 * messages: what a job's descriptor reaches, whatever its path names now. */
int iogap_target_check_fd(int fd, const char *name, const struct iogap_target_region *r,
			  char *why, size_t whylen);
/* "a regular file", "a FIFO (named pipe)", ... for messages. */
const char *iogap_file_kind(const struct stat *st);

/* Records path (its directory entry) if it exists.  0, or -1 when out of
 * memory. */
int iogap_file_ids_add(struct iogap_file_ids *s, const char *path);
/* Records the file st describes.  0, or -1 when out of memory. */
int iogap_file_ids_add_stat(struct iogap_file_ids *s, const struct stat *st);
bool iogap_file_ids_has(const struct iogap_file_ids *s, const struct stat *st);
void iogap_file_ids_free(struct iogap_file_ids *s);
/* May fio's unlink remove path?  True for a regular file this run
 * created that holds no data; else false, with the rule that keeps it in
 * why (empty when there is nothing to remove: missing, not a file). */
bool iogap_unlink_allowed(const char *path, const struct iogap_file_ids *pre, char *why,
			  size_t whylen);

#endif
