/* SPDX-License-Identifier: MIT */
/*
 * fio's log_compression (its iolog.c gz_work, inflate_chunk,
 * flush_samples): a log's samples kept as fio's binary io_sample records,
 * deflated in zlib streams of log_compression bytes each.  At the end
 * they are inflated into the usual text lines, or, with
 * log_store_compressed, the streams are written as they are (fio's
 * PREFIX_KIND.N.log.fz), which `fio --inflate-log` and
 * `iogap-probe --inflate-log` turn back into the text.
 */
#ifndef IOGAP_LOG_GZ_H
#define IOGAP_LOG_GZ_H

#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct iogap_log_gz;

/* chunk: bytes of samples per stream; offset/prio: fio's log_offset and
 * log_prio (the record layout and line format); cpus: where the deflating
 * runs (log_compression_cpus), NULL for anywhere.  NULL when out of memory. */
struct iogap_log_gz *iogap_log_gz_new(uint32_t chunk, bool offset, bool prio,
				      const cpu_set_t *cpus);
/* One sample, fio's "time, value, ddir, bs[, offset], prio".  0, or -1
 * when zlib or memory failed (the log is then incomplete). */
int iogap_log_gz_add(struct iogap_log_gz *g, uint64_t ms, uint64_t val, uint32_t ddir,
		     uint64_t bs, uint64_t offset);
/* Write the log to out (the streams when store, else the text) and free
 * it.  0, or -1. */
int iogap_log_gz_finish(struct iogap_log_gz *g, FILE *out, bool store);
/* fio's --inflate-log: the text of a stored (.fz) log to out.  0, or -1
 * with a message in err. */
int iogap_log_inflate_file(const char *path, FILE *out, char *err, size_t errlen);

#endif
