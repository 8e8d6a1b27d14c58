/* SPDX-License-Identifier: MIT */
/*
 * The processes `iogap run` starts (the bare-metal probe, QEMU, qemu-img):
 * each dies with iogap, even on kill -9 (PR_SET_PDEATHSIG), runs in its own
 * process group (a terminal's Ctrl-C reaches iogap only, which then stops
 * it), and is stopped and reaped on every path.
 */
#ifndef IOGAP_CHILD_H
#define IOGAP_CHILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct iogap_child {
	pid_t pid;                /* 0: not running (never started, or reaped) */
	int status;               /* after it ended: exit code, or 128 + signal */
	int signal;               /* the signal that ended it, or 0 */
	bool ended;
	/* capture_stderr: the child's stderr, copied to err_path as it comes,
	 * and its last bytes kept here (the reason survives a full disk) */
	int err_fd;
	int err_copy_fd;
	int err_copy_errno;       /* why err_path could not be written (0: it could) */
	char err_tail[2048];
	size_t err_tail_len;
};

struct iogap_spawn {
	const char *const *argv;  /* argv[0] is looked up in PATH */
	const char *stdout_path;  /* NULL: /dev/null */
	const char *stderr_path;  /* NULL: /dev/null */
	bool capture_stderr;      /* through iogap: see struct iogap_child */
	const char *preload;      /* LD_PRELOAD for the child, or NULL */
};

/* SIGINT and SIGTERM set a flag that every wait of `iogap run` checks,
 * every time: a second Ctrl-C does not cut the bounded cleanup short
 * (children stopped, tracing stopped, manifest written). */
void iogap_catch_interrupts(void);
/* The signal that interrupted the run, or 0. */
int iogap_interrupted(void);
/* For waits that take a flag to watch (control.c). */
volatile int *iogap_interrupt_flag(void);

/* Start a child; 0, or -1 with err. */
int iogap_child_start(struct iogap_child *c, const struct iogap_spawn *sp, char *err,
		      size_t errlen);
/* Has it ended?  Reaps it and sets status (never blocks). */
bool iogap_child_ended(struct iogap_child *c);
/* Wait until it ends (true), or until deadline_ns or an interrupt (false),
 * copying its captured stderr meanwhile. */
bool iogap_child_wait(struct iogap_child *c, uint64_t deadline_ns);
/* SIGTERM, grace_ms to end, then SIGKILL; reaped after, unless it cannot
 * die (D state) within 10 s more. */
void iogap_child_stop(struct iogap_child *c, unsigned grace_ms);
/* Close the captured stderr (after the child ended). */
void iogap_child_release(struct iogap_child *c);
/* Where a child that does not end is waiting: per thread its name, state,
 * wchan, system call and kernel stack (/proc, the stack needs root), into
 * path.  For a hang's report, before the child is stopped; 0, or -1. */
int iogap_child_snapshot(const struct iogap_child *c, const char *path);
/* "exit status 3", "killed by signal 9 (SIGKILL)". */
void iogap_child_describe(const struct iogap_child *c, char *out, size_t outlen);

#endif
