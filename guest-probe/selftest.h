/* SPDX-License-Identifier: MIT */
/*
 * fio's self-tests, with the probe's own code: --crctest (the speed of the
 * verify checksums of verify.c), --memcpytest (copy speeds) and
 * --cpuclock-test (the probe's clock, engines/stamp.h, read on every CPU
 * in turn must never run backwards).  Output as fio's.
 */
#ifndef IOGAP_SELFTEST_H
#define IOGAP_SELFTEST_H

/* type: NULL for all, a comma separated list, or "help"/"list" (prints
 * the names, returns 1 as fio).  0, or 1 after a message on stderr. */
int iogap_crctest(const char *type);
int iogap_memcpytest(const char *type);
/* 0 when the stamps taken in sequence on every CPU ascend, else 1. */
int iogap_cpuclock_test(void);

#endif
