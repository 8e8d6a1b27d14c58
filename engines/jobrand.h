/* SPDX-License-Identifier: MIT */
/*
 * Job options of fio's random I/O that need more than a value:
 * random_distribution=zoned|zoned_abs tables, fio's lenient sizes in
 * bsrange, and the rules fio applies once a job is read (blockalign).
 */
#ifndef IOGAP_JOBRAND_H
#define IOGAP_JOBRAND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct iogap_job;

/* fio's str_to_decimal for sizes: the number and its unit at the start
 * of s, the text after them ignored ("512/25" is 512).  0 or -1. */
int iogap_parse_size_prefix(const char *s, uint64_t *out);

/* val after "zoned:" or "zoned_abs:": fio's list of access%/size% (or
 * access%/bytes), for every direction.  0, or -1 with the reason in why. */
int iogap_parse_zoned(struct iogap_job *j, const char *val, bool absolute, char *why,
		      size_t whylen);

/* fio's fixup_options for random I/O: blockalign defaults to the minimum
 * block size and, set otherwise, turns the random map off; so does any
 * distribution but random. */
void iogap_job_fix_random(struct iogap_job *j);

#endif
