/* SPDX-License-Identifier: MIT */
/*
 * The content of written buffers beyond their initial fill: fio's
 * scramble_buffers (io_u.c small_content_scramble), which keeps devices
 * that deduplicate or compress from seeing the same buffer again.
 */
#ifndef IOGAP_BUFFERS_H
#define IOGAP_BUFFERS_H

#include <stdbool.h>
#include <stdint.h>

#include "job.h"

/* fio's TD_F_SCRAMBLE_BUFFERS for a write that is neither refilled nor
 * verified nor of a buffer_pattern: scramble_buffers (default 1) unless
 * zero_buffers was given and scramble_buffers was not. */
bool iogap_buffers_scramble(const struct iogap_job *j);
/* Every 512-byte block of buf: its offset at a cache line picked from
 * the time and offset, the time (s, ns) in the first cache line's end. */
void iogap_buffer_scramble(void *buf, uint32_t len, uint64_t offset, uint64_t now_ns);

#endif
