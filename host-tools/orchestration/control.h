/* SPDX-License-Identifier: MIT */
/* Host side of the control channel to the guest agent (guest-probe/agent.c). */
#ifndef IOGAP_CONTROL_H
#define IOGAP_CONTROL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "align.h"
#include "chan.h"

struct iogap_ctl {
	struct iogap_chan ch;     /* first: the read hook finds the ctl from it */
	uint64_t deadline_ns;     /* absolute: every wait gives up after it */
	volatile int *cancel;     /* set (e.g. by SIGINT) to give up now */
	/* true once the other end is gone for good (QEMU exited): connecting
	 * stops then instead of at its deadline (a closed channel already
	 * ends the other waits); NULL: not watched */
	bool (*peer_gone)(void *arg);
	void *peer_arg;
	char err[512];
};

/* Connect to QEMU's chardev socket, retrying until deadline_ns. */
int iogap_ctl_connect(struct iogap_ctl *c, const char *sock_path, uint64_t deadline_ns);
void iogap_ctl_close(struct iogap_ctl *c);

/* Send a request line; read one reply line into line. */
int iogap_ctl_request(struct iogap_ctl *c, const char *req, char *line, size_t max);
int iogap_ctl_put(struct iogap_ctl *c, const char *name, const void *data, size_t len);
/* GET name into a local file. */
int iogap_ctl_get(struct iogap_ctl *c, const char *name, const char *dest_path);
/* RUN argv in the guest (probe args without argv[0]); *status = exit code.
 * A probe still running after limit_ms (0: no limit) is stopped by the
 * agent, its threads' stacks left in the guest as probe.stuck.txt, and
 * *stuck set. */
int iogap_ctl_run(struct iogap_ctl *c, char *const *argv, unsigned long limit_ms, int *status,
		  bool *stuck);
/* Shell command in the guest, output kept in the guest as sh.out/sh.err;
 * stopped after 30 s. */
int iogap_ctl_sh(struct iogap_ctl *c, const char *cmd, int *status);
/* Set NAME=VALUE entries in the agent's environment. */
int iogap_ctl_env(struct iogap_ctl *c, char *const *assignments);
/* rounds ping-pong samples. */
int iogap_ctl_sync(struct iogap_ctl *c, struct iogap_sync_sample *s, size_t rounds);

#endif
