/* SPDX-License-Identifier: MIT */
/*
 * A buffered byte stream of text lines and binary payloads: both ends of
 * iogap's control channel (the guest agent and the host's control.c).
 */
#ifndef IOGAP_CHAN_H
#define IOGAP_CHAN_H

#include <stddef.h>

struct iogap_chan {
	int fd;
	size_t len, pos;          /* buffered bytes: buf[pos, len) */
	/* Called before each blocking read (may be NULL): nonzero gives up
	 * the read (the hook records why). */
	int (*before_read)(struct iogap_chan *c);
	char buf[65536];
};

/* Make at least one byte available: 0, or -1 at the end of the stream
 * (errno 0), on a read error (errno), or when before_read gave up. */
int iogap_chan_fill(struct iogap_chan *c);
/* One line without its '\n' (longer lines are cut at max - 1). */
int iogap_chan_line(struct iogap_chan *c, char *line, size_t max);
/* Exactly len bytes. */
int iogap_chan_read(struct iogap_chan *c, void *dst, size_t len);
/* All of buf to fd (a socket, a port or a file), retrying short writes
 * and never raising SIGPIPE: 0 or -1 (errno). */
int iogap_write_all(int fd, const void *buf, size_t len);

#endif
