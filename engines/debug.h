/* SPDX-License-Identifier: MIT */
/*
 * fio's --debug: categories of diagnostic lines, each line "CATEGORY PID
 * text" as fio's (category padded to 8, the thread id to 5), on stderr so
 * that the reports on stdout stay parseable.
 */
#ifndef IOGAP_DEBUG_H
#define IOGAP_DEBUG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "util.h"

/* fio's categories, in fio's order (its debug_levels[]) */
enum iogap_dbg {
	IOGAP_DBG_PROCESS,
	IOGAP_DBG_FILE,
	IOGAP_DBG_IO,
	IOGAP_DBG_MEM,
	IOGAP_DBG_BLKTRACE,
	IOGAP_DBG_VERIFY,
	IOGAP_DBG_RANDOM,
	IOGAP_DBG_PARSE,
	IOGAP_DBG_DISKUTIL,
	IOGAP_DBG_JOB,
	IOGAP_DBG_MUTEX,
	IOGAP_DBG_PROFILE,
	IOGAP_DBG_TIME,
	IOGAP_DBG_NET,
	IOGAP_DBG_RATE,
	IOGAP_DBG_COMPRESS,
	IOGAP_DBG_STEADYSTATE,
	IOGAP_DBG_HELPERTHREAD,
	IOGAP_DBG_ZBD,
	IOGAP_DBG_NR,
};

extern unsigned long iogap_debug_mask;

static inline bool iogap_debug_on(enum iogap_dbg cat)
{
	return iogap_debug_mask & (1UL << cat);
}

void iogap_dprint_line(enum iogap_dbg cat, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#define iogap_dprint(cat, ...)                          \
	do {                                            \
		if (iogap_unlikely(iogap_debug_on(cat)))  \
			iogap_dprint_line(cat, __VA_ARGS__); \
	} while (0)

/* --debug=LIST: fio's category names, comma separated, or "all".  "help"
 * (or "?") prints the categories to out and returns 1; 0 when set; -1
 * with a message in err for an unknown name. */
int iogap_debug_set(const char *list, FILE *out, char *err, size_t errlen);

#endif
