/* SPDX-License-Identifier: MIT */
/*
 * Host side of the control channel: a unix socket that QEMU bridges to
 * the guest's virtio-serial port "iogap.ctl".  Every read is bounded by
 * the deadline, so a guest that stops answering ends the run with a
 * message instead of a hang.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "util.h"
#include "control.h"

__attribute__((format(printf, 2, 3)))
static int fail(struct iogap_ctl *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->err, sizeof(c->err), fmt, ap);
	va_end(ap);
	return -1;
}

static int ctl_wait(struct iogap_chan *ch);

int iogap_ctl_connect(struct iogap_ctl *c, const char *sock_path, uint64_t deadline_ns)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	volatile int *cancel = c->cancel;
	bool (*peer_gone)(void *) = c->peer_gone;
	void *peer_arg = c->peer_arg;

	memset(c, 0, sizeof(*c));
	c->cancel = cancel;
	c->peer_gone = peer_gone;
	c->peer_arg = peer_arg;
	c->ch.fd = -1;
	c->ch.before_read = ctl_wait;
	c->deadline_ns = deadline_ns;
	if (strlen(sock_path) >= sizeof(sa.sun_path))
		return fail(c, "%s: socket path too long", sock_path);
	strcpy(sa.sun_path, sock_path);
	for (;;) {
		c->ch.fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (c->ch.fd < 0)
			return fail(c, "socket: %s", strerror(errno));
		if (!connect(c->ch.fd, (struct sockaddr *)&sa, sizeof(sa)))
			return 0;
		close(c->ch.fd);
		c->ch.fd = -1;
		if (c->peer_gone && c->peer_gone(c->peer_arg))
			return fail(c, "the process behind %s exited", sock_path);
		if (c->cancel && *c->cancel)
			return fail(c, "interrupted");
		if (iogap_now_ns() > deadline_ns)
			return fail(c, "%s: cannot connect: %s", sock_path, strerror(errno));
		usleep(20000);
	}
}

void iogap_ctl_close(struct iogap_ctl *c)
{
	if (c->ch.fd >= 0)
		close(c->ch.fd);
	c->ch.fd = -1;
}

/* Before each read: give up at the deadline or on cancellation, waking
 * now and then to notice the latter. */
static int ctl_wait(struct iogap_chan *ch)
{
	struct iogap_ctl *c = (struct iogap_ctl *)ch;

	for (;;) {
		struct pollfd p = { .fd = ch->fd, .events = POLLIN };
		int r;

		if (c->cancel && *c->cancel)
			return fail(c, "interrupted");
		if (iogap_now_ns() >= c->deadline_ns)
			return fail(c, "the guest did not answer in time");
		r = poll(&p, 1, 200);
		if (r > 0)
			return 0;
		if (r < 0 && errno != EINTR)
			return fail(c, "poll: %s", strerror(errno));
	}
}

/* A failed channel read: the hook said why, or say it here. */
static int chan_failed(struct iogap_ctl *c)
{
	if (c->err[0])
		return -1;
	if (errno == 0)
		return fail(c, "the guest closed the control channel");
	return fail(c, "control channel: %s", strerror(errno));
}

static int fill(struct iogap_ctl *c)
{
	return iogap_chan_fill(&c->ch) ? chan_failed(c) : 0;
}

static int read_line(struct iogap_ctl *c, char *line, size_t max)
{
	return iogap_chan_line(&c->ch, line, max) ? chan_failed(c) : 0;
}

static int send_all(struct iogap_ctl *c, const void *buf, size_t len)
{
	if (iogap_write_all(c->ch.fd, buf, len))
		return fail(c, "control channel: send: %s", strerror(errno));
	return 0;
}

int iogap_ctl_request(struct iogap_ctl *c, const char *req, char *line, size_t max)
{
	char out[1024];
	int n = snprintf(out, sizeof(out), "%s\n", req);

	if (n < 0 || (size_t)n >= sizeof(out))
		return fail(c, "request too long");
	if (send_all(c, out, (size_t)n) || read_line(c, line, max))
		return -1;
	if (!strncmp(line, "ERR", 3))
		return fail(c, "guest: %s", line + (line[3] ? 4 : 3));
	return 0;
}

static int expect_ok(struct iogap_ctl *c, const char *what)
{
	char line[512];

	if (read_line(c, line, sizeof(line)))
		return -1;
	if (strncmp(line, "OK", 2))
		return fail(c, "%s: guest answered '%s'", what, line);
	return 0;
}

int iogap_ctl_put(struct iogap_ctl *c, const char *name, const void *data, size_t len)
{
	char hdr[512];
	int n = snprintf(hdr, sizeof(hdr), "PUT %s %zu\n", name, len);

	if (n < 0 || (size_t)n >= sizeof(hdr))
		return fail(c, "name too long");
	if (send_all(c, hdr, (size_t)n) || send_all(c, data, len))
		return -1;
	return expect_ok(c, name);
}

int iogap_ctl_get(struct iogap_ctl *c, const char *name, const char *dest_path)
{
	char req[512], line[512];
	unsigned long long len;
	FILE *f;

	snprintf(req, sizeof(req), "GET %s", name);
	if (iogap_ctl_request(c, req, line, sizeof(line)))
		return -1;
	if (sscanf(line, "DATA %llu", &len) != 1)
		return fail(c, "GET %s: unexpected answer '%s'", name, line);
	f = fopen(dest_path, "w");
	if (!f)
		return fail(c, "%s: %s", dest_path, strerror(errno));
	while (len) {
		size_t n;

		if (fill(c)) {
			fclose(f);
			return -1;
		}
		n = c->ch.len - c->ch.pos < len ? c->ch.len - c->ch.pos : (size_t)len;
		if (fwrite(c->ch.buf + c->ch.pos, 1, n, f) != n) {
			fclose(f);
			return fail(c, "%s: write: %s", dest_path, strerror(errno));
		}
		c->ch.pos += n;
		len -= n;
	}
	if (fclose(f))
		return fail(c, "%s: %s", dest_path, strerror(errno));
	return 0;
}

/* a guest shell command (dmesg, a test) is quick, or stuck */
#define SH_LIMIT_MS 30000

static int run_payload(struct iogap_ctl *c, const char *verb, const char *payload, size_t len,
		       unsigned long limit_ms, int *status, bool *stuck)
{
	char hdr[64], line[512];
	int n = snprintf(hdr, sizeof(hdr), "%s %zu %lu\n", verb, len, limit_ms), end = 0;

	if (send_all(c, hdr, (size_t)n) || send_all(c, payload, len) ||
	    read_line(c, line, sizeof(line)))
		return -1;
	if (sscanf(line, "DONE %d%n", status, &end) != 1)
		return fail(c, "%s: unexpected answer '%s'", verb, line);
	*stuck = !strcmp(line + end, " stuck");
	return 0;
}

/* argv as one NUL-separated buffer */
static char *join_nul(char *const *argv, size_t *lenp)
{
	size_t len = 0;
	char *buf, *p;

	for (size_t i = 0; argv[i]; i++)
		len += strlen(argv[i]) + 1;
	buf = malloc(len ? len : 1);
	if (!buf)
		return NULL;
	p = buf;
	for (size_t i = 0; argv[i]; i++) {
		size_t l = strlen(argv[i]) + 1;

		memcpy(p, argv[i], l);
		p += l;
	}
	*lenp = len;
	return buf;
}

int iogap_ctl_env(struct iogap_ctl *c, char *const *assignments)
{
	size_t len;
	char *buf = join_nul(assignments, &len), hdr[64];
	int n, r;

	if (!buf)
		return fail(c, "out of memory");
	n = snprintf(hdr, sizeof(hdr), "ENV %zu\n", len);
	r = send_all(c, hdr, (size_t)n) || send_all(c, buf, len) || expect_ok(c, "ENV") ? -1 : 0;
	free(buf);
	return r;
}

int iogap_ctl_run(struct iogap_ctl *c, char *const *argv, unsigned long limit_ms, int *status,
		  bool *stuck)
{
	size_t len;
	char *buf;
	int r;

	buf = join_nul(argv, &len);
	if (!buf)
		return fail(c, "out of memory");
	r = run_payload(c, "RUN", buf, len, limit_ms, status, stuck);
	free(buf);
	return r;
}

int iogap_ctl_sh(struct iogap_ctl *c, const char *cmd, int *status)
{
	bool stuck;

	return run_payload(c, "SH", cmd, strlen(cmd), SH_LIMIT_MS, status, &stuck);
}

int iogap_ctl_sync(struct iogap_ctl *c, struct iogap_sync_sample *s, size_t rounds)
{
	char req[64], line[64];

	snprintf(req, sizeof(req), "SYNC %zu", rounds);
	if (send_all(c, req, strlen(req)) || send_all(c, "\n", 1) || expect_ok(c, "SYNC"))
		return -1;
	for (size_t i = 0; i < rounds; i++) {
		unsigned long long g;

		s[i].t_send = iogap_now_ns();
		if (send_all(c, "P\n", 2) || read_line(c, line, sizeof(line)))
			return -1;
		s[i].t_recv = iogap_now_ns();
		if (sscanf(line, "%llu", &g) != 1)
			return fail(c, "SYNC: bad answer '%s'", line);
		s[i].guest_ns = g;
	}
	return 0;
}
