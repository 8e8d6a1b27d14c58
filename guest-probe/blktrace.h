/* SPDX-License-Identifier: MIT */
/*
 * blktrace's binary records (blkparse -d output, blktrace_api.h's struct
 * blk_io_trace, version 7): read by read_iolog's replay (iolog.c) and
 * written by blktrace merging (blktrace_merge.c).
 */
#ifndef IOGAP_BLKTRACE_H
#define IOGAP_BLKTRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct blk_io_trace {
	uint32_t magic;           /* BT_MAGIC << 8 | version */
	uint32_t sequence;
	uint64_t time;            /* ns */
	uint64_t sector;
	uint32_t bytes;
	uint32_t action;          /* low 16 bits: what; high: category bits */
	uint32_t pid;
	uint32_t device;          /* kernel dev_t: major << 20 | minor */
	uint32_t cpu;
	uint16_t error;
	uint16_t pdu_len;         /* bytes of payload after the record */
};

#define BT_MAGIC 0x65617400u
#define BT_VERSION 0x07u
#define BT_TA_QUEUE 1u
#define BT_TA_BACKMERGE 2u
#define BT_TA_FRONTMERGE 3u
#define BT_TA_COMPLETE 8u
#define BT_TC(bit) ((uint32_t)(bit) << 16)
#define BT_TC_READ BT_TC(1u << 0)
#define BT_TC_WRITE BT_TC(1u << 1)
#define BT_TC_FLUSH BT_TC(1u << 2)
#define BT_TC_NOTIFY BT_TC(1u << 10)
#define BT_TC_DISCARD BT_TC(1u << 13)

/* fio's is_blktrace: the first record's magic, in either byte order
 * (*swap: the other one).  f is rewound. */
bool iogap_blktrace_detect(FILE *f, bool *swap);

/* The next record of f into t, in this machine's byte order, its payload
 * skipped: 1, 0 at the end, -1 with the reason in why. */
int iogap_blktrace_read(FILE *f, bool swap, struct blk_io_trace *t, char *why, size_t whylen);

/* fio's t_get_ddir: 0 read, 1 write, 2 trim (discard), -1 none of them */
int iogap_blktrace_ddir(uint32_t action);

/* Append t to f as fio's merge writes a record: without its payload
 * (pdu_len 0), in this machine's byte order.  0, or -1 with errno. */
int iogap_blktrace_write(FILE *f, const struct blk_io_trace *t);

#endif
