/* SPDX-License-Identifier: MIT */
/* Small helpers every component uses: whole-file reads, error messages. */
#ifndef IOGAP_UTIL_H
#define IOGAP_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The whole file, NUL-terminated (also when it holds NULs: *len says how
 * much), at most max bytes (0: no limit).  NULL with errno set (EFBIG when
 * over max). */
char *iogap_read_file(const char *path, size_t max, size_t *len);

/* The array arr of *cap elements of elem bytes, grown (doubling, from 16,
 * new elements zeroed) until index i fits: the array, moved or not, with
 * *cap updated; NULL when out of memory (arr and *cap unchanged). */
void *iogap_grow_zeroed(void *arr, size_t *cap, size_t elem, size_t i);

/* Copy the file from to to (created or truncated): 0, or -1 with err
 * naming the file that failed. */
int iogap_copy_file(const char *from, const char *to, char *err, size_t errlen);

/* vsnprintf into err (if err and errlen); returns -1 for `return iogap_seterr(...)`. */
int iogap_seterr(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* n / d for a block size d: a shift when d is a power of two (every usual
 * size), sparing a request's path the division's latency */
static inline uint64_t iogap_div_bs(uint64_t n, uint32_t d)
{
	return !d || (d & (d - 1)) ? n / d : n >> __builtin_ctz(d);
}

/* Branch hints on a request's path: the code of the features most jobs
 * leave off goes out of its straight line, so a request runs through fewer
 * instruction cache lines (the kernel's read path evicts them every call). */
#define iogap_likely(x)   __builtin_expect(!!(x), 1)
#define iogap_unlikely(x) __builtin_expect(!!(x), 0)

/* CLOCK_MONOTONIC in ns: the clock every trace uses on the host. */
uint64_t iogap_now_ns(void);
/* Sleep until CLOCK_MONOTONIC reaches t (ns), resuming after signals. */
void iogap_sleep_until_ns(uint64_t t);

/* *dst becomes a copy of val, the old value freed: 0, or -1 out of memory. */
int iogap_set_str(char **dst, const char *val);

/* fio's booleans: 1/0, true/false, on/off, yes/no; a bare flag (NULL) is
 * true.  0, or -1 for anything else. */
int iogap_parse_bool(const char *s, bool *out);
/* fio's CPU lists ("0-3,6") into mask (max_cpus bits, cleared first):
 * 0, or -1 for a malformed list or a CPU of max_cpus or more. */
int iogap_parse_cpu_list(const char *val, unsigned char *mask, unsigned max_cpus);

/* Where a process is waiting: per thread its name, wchan, system call and
 * kernel stack (/proc; the stack needs root), then "inflight DISK READS
 * WRITES" for each block device with requests in flight, into path.  Taken
 * before a hung child is stopped, for the report.  0, or -1 with errno. */
int iogap_snapshot_threads(pid_t pid, const char *path);

#endif
