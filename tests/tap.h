/* SPDX-License-Identifier: MIT */
/* Minimal TAP for C tests: ok(), tap_skip(), a plan first or last, tap_done(). */
#ifndef IOGAP_TAP_H
#define IOGAP_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int tap_n, tap_failed;

static inline void tap_plan(int n)
{
	printf("1..%d\n", n);
}

__attribute__((format(printf, 2, 3)))
static inline int ok(int cond, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", cond ? "" : "not ", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!cond)
		tap_failed++;
	fflush(stdout);
	return cond;
}

/* A test that cannot run here: counted as passed with a SKIP directive
 * (CI counts skips as failures: it provides everything). */
static inline void tap_skip(const char *what, const char *reason)
{
	printf("ok %d - %s # SKIP %s\n", ++tap_n, what, reason);
	fflush(stdout);
}

static inline int tap_done(void)
{
	return tap_failed ? 1 : 0;
}

#endif
