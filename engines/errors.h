/* SPDX-License-Identifier: MIT */
/* Which I/O errors a job survives (errors.c): fio's ignore_error,
 * continue_on_error's classes, fill_device. */
#ifndef IOGAP_ERRORS_H
#define IOGAP_ERRORS_H

#include <stdbool.h>
#include <stddef.h>

struct iogap_job;

/* ignore_error, error_dump, fill_device (alias fill_fs): 1 when key is
 * not one of them, 0 when set, -1 with what is wrong with val in why. */
int iogap_job_error_option(struct iogap_job *j, const char *key, const char *val, char *why,
			   size_t whylen);
/* fio's td_non_fatal_error: err (positive errno) of a read or a write
 * (EILSEQ: verify) is counted and the job goes on. */
bool iogap_job_error_ignored(const struct iogap_job *j, bool read, int err);
/* fill_device: err is the full device, the end of the job, no error. */
bool iogap_job_error_ends_fill(const struct iogap_job *j, int err);

#endif
