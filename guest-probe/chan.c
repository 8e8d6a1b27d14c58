/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "chan.h"

int iogap_chan_fill(struct iogap_chan *c)
{
	ssize_t n;

	if (c->pos < c->len)
		return 0;
	if (c->before_read && c->before_read(c))
		return -1;
	do {
		n = read(c->fd, c->buf, sizeof(c->buf));
	} while (n < 0 && errno == EINTR);
	if (n <= 0) {
		if (n == 0)
			errno = 0;
		return -1;
	}
	c->pos = 0;
	c->len = (size_t)n;
	return 0;
}

int iogap_chan_line(struct iogap_chan *c, char *line, size_t max)
{
	size_t n = 0;

	for (;;) {
		if (iogap_chan_fill(c))
			return -1;
		while (c->pos < c->len) {
			char ch = c->buf[c->pos++];

			if (ch == '\n') {
				line[n] = '\0';
				return 0;
			}
			if (n + 1 < max)
				line[n++] = ch;
		}
	}
}

int iogap_chan_read(struct iogap_chan *c, void *dst, size_t len)
{
	char *p = dst;

	while (len) {
		size_t n;

		if (iogap_chan_fill(c))
			return -1;
		n = c->len - c->pos < len ? c->len - c->pos : len;
		memcpy(p, c->buf + c->pos, n);
		c->pos += n;
		p += n;
		len -= n;
	}
	return 0;
}

int iogap_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n < 0 && errno == ENOTSOCK)
			n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}
