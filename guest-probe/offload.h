/* SPDX-License-Identifier: MIT */
/*
 * io_submit_mode=offload, fio's rate-submit.c: the job's thread prepares
 * each request when it is due (its start: fio's start_time) and hands it to
 * a pool of iodepth submitting threads, each with its own instance of the
 * job's engine at depth 1.  A request that waits for a free submitter, as
 * behind a slow device, has that wait in its latency: with rate/rate_iops
 * the I/O is issued on schedule, with no coordinated omission.
 *
 * To the runner the pool is an engine: queue() hands a request over,
 * getevents() returns finished ones, each with the time it completed
 * (complete_ns) and, as fio's, issue_ns taken by its submitter: before the
 * real queue() for a synchronous engine (no slat then: no_slat), after
 * it (or at its commit) for an asynchronous one.
 */
#ifndef IOGAP_OFFLOAD_H
#define IOGAP_OFFLOAD_H

#include "engine.h"

/* The pool's ops for the job's real engine. */
const struct iogap_engine_ops *iogap_offload_engine(const struct iogap_engine_ops *real);

#endif
