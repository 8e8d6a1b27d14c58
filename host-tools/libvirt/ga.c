/* SPDX-License-Identifier: MIT */
/*
 * The QEMU guest agent (qemu-ga) of a domain, through libvirt
 * (virDomainQemuAgentCommand): files copied in and out with guest-file-*,
 * a program run with guest-exec, the guest's CLOCK_MONOTONIC read from
 * /proc/timer_list ("now at N nsecs") for the clock sync.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libvirt/libvirt-qemu.h>
#include <libvirt/virterror.h>

#include "json_parse.h"
#include "lv.h"
#include "util.h"

/* bytes per guest-file-read/write call; 192 KiB made qemu-ga 7.2 reject the
 * write command ("member 'handle' is unexpected"), 64 KiB works */
#define CHUNK (48 * 1024)

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static char *b64_encode(const unsigned char *in, size_t n)
{
	char *out = malloc((n + 2) / 3 * 4 + 1), *o = out;

	for (size_t i = 0; out && i < n; i += 3) {
		uint32_t v = (uint32_t)in[i] << 16 | (i + 1 < n ? (uint32_t)in[i + 1] << 8 : 0) |
			     (i + 2 < n ? in[i + 2] : 0);

		*o++ = b64[v >> 18];
		*o++ = b64[v >> 12 & 63];
		*o++ = i + 1 < n ? b64[v >> 6 & 63] : '=';
		*o++ = i + 2 < n ? b64[v & 63] : '=';
	}
	if (out)
		*o = '\0';
	return out;
}

/* Decodes s into out (room for strlen(s) / 4 * 3); the length, or -1. */
static ssize_t b64_decode(const char *s, unsigned char *out)
{
	size_t n = strlen(s), o = 0;

	if (n % 4)
		return -1;
	for (size_t i = 0; i < n; i += 4) {
		uint32_t v = 0;
		int pad = 0;

		for (int k = 0; k < 4; k++) {
			const char *c = s[i + k] == '=' ? NULL : strchr(b64, s[i + k]);

			if (s[i + k] == '=' && i + 4 == n && k >= 2)
				pad++;
			else if (!c || !s[i + k] || pad)
				return -1;
			v = v << 6 | (c ? (uint32_t)(c - b64) : 0);
		}
		out[o++] = (unsigned char)(v >> 16);
		if (pad < 2)
			out[o++] = (unsigned char)(v >> 8);
		if (pad < 1)
			out[o++] = (unsigned char)v;
	}
	return (ssize_t)o;
}

int iogap_ga_cmd(virDomainPtr dom, const char *cmd, int timeout_s, struct jp_value *ret,
		 char *err, size_t errlen)
{
	char *reply = virDomainQemuAgentCommand(dom, cmd, timeout_s, 0);

	if (!reply)
		return iogap_seterr(err, errlen, "the QEMU guest agent: %s", virGetLastErrorMessage());
	return iogap_lv_reply("the QEMU guest agent", reply, ret, err, errlen);
}

/* A command with one JSON argument object built from fmt. */
__attribute__((format(printf, 6, 7)))
static int ga_cmdf(virDomainPtr dom, int timeout_s, struct jp_value *ret, char *err,
		   size_t errlen, const char *fmt, ...)
{
	va_list ap;
	char *cmd;
	int rc;

	va_start(ap, fmt);
	rc = vasprintf(&cmd, fmt, ap);
	va_end(ap);
	if (rc < 0)
		return iogap_seterr(err, errlen, "out of memory");
	rc = iogap_ga_cmd(dom, cmd, timeout_s, ret, err, errlen);
	free(cmd);
	return rc;
}

/* guest-file-open; the handle or -1. */
static int64_t ga_open(virDomainPtr dom, const char *path, const char *mode, char *err,
		       size_t errlen)
{
	struct jp_value h;
	int64_t fd;

	if (strpbrk(path, "\"\\"))
		return iogap_seterr(err, errlen, "guest path %s: quotes not supported", path);
	if (ga_cmdf(dom, 60, &h, err, errlen, "{\"execute\":\"guest-file-open\",\"arguments\":"
		    "{\"path\":\"%s\",\"mode\":\"%s\"}}", path, mode)) {
		snprintf(err + strlen(err), errlen - strlen(err), " (opening %s in the guest)", path);
		return -1;
	}
	fd = (int64_t)jp_u64(&h, UINT64_MAX);
	jp_free(&h);
	return fd;
}

static void ga_close(virDomainPtr dom, int64_t fd)
{
	char err[256];

	ga_cmdf(dom, 60, NULL, err, sizeof(err), "{\"execute\":\"guest-file-close\",\"arguments\":"
		"{\"handle\":%" PRId64 "}}", fd);
}

int iogap_ga_put(virDomainPtr dom, const char *guest_path, const void *data, size_t len,
		 char *err, size_t errlen)
{
	int64_t fd = ga_open(dom, guest_path, "w", err, errlen);
	int rc = fd < 0 ? -1 : 0;

	for (size_t off = 0; !rc && off < len; off += CHUNK) {
		size_t n = len - off < CHUNK ? len - off : CHUNK;
		char *enc = b64_encode((const unsigned char *)data + off, n);

		rc = enc ? ga_cmdf(dom, 120, NULL, err, errlen, "{\"execute\":\"guest-file-write\","
				   "\"arguments\":{\"handle\":%" PRId64 ",\"buf-b64\":\"%s\"}}", fd,
				   enc) : iogap_seterr(err, errlen, "out of memory");
		free(enc);
	}
	if (fd >= 0)
		ga_close(dom, fd);
	return rc;
}

/* One guest-file-read into out (room for CHUNK); bytes read, *eof. */
static ssize_t ga_read(virDomainPtr dom, int64_t fd, size_t count, unsigned char *out, bool *eof,
		       char *err, size_t errlen)
{
	struct jp_value r;
	const char *enc;
	ssize_t n = -1;

	if (ga_cmdf(dom, 120, &r, err, errlen, "{\"execute\":\"guest-file-read\",\"arguments\":"
		    "{\"handle\":%" PRId64 ",\"count\":%zu}}", fd, count))
		return -1;
	enc = jp_str(jp_get(&r, "buf-b64"));
	*eof = jp_get(&r, "eof") && jp_get(&r, "eof")->b;
	if (!enc || strlen(enc) / 4 * 3 > CHUNK || (n = b64_decode(enc, out)) < 0)
		iogap_seterr(err, errlen, "guest-file-read: a bad reply");
	jp_free(&r);
	return n;
}

int iogap_ga_get(virDomainPtr dom, const char *guest_path, const char *host_path, char *err,
		 size_t errlen)
{
	unsigned char *buf = malloc(CHUNK);
	int64_t fd = buf ? ga_open(dom, guest_path, "r", err, errlen) : -1;
	int out = fd < 0 ? -1 : open(host_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	bool eof = false;
	int rc = out < 0 ? -1 : 0;

	if (fd >= 0 && out < 0)
		iogap_seterr(err, errlen, "%s: %s", host_path, strerror(errno));
	while (!rc && !eof) {
		ssize_t n = ga_read(dom, fd, CHUNK, buf, &eof, err, errlen);

		if (n < 0 || (n && write(out, buf, (size_t)n) != n))
			rc = n < 0 ? -1 : iogap_seterr(err, errlen, "%s: %s", host_path,
						       strerror(errno ? errno : ENOSPC));
	}
	if (out >= 0 && close(out) && !rc)
		rc = iogap_seterr(err, errlen, "%s: %s", host_path, strerror(errno));
	if (fd >= 0)
		ga_close(dom, fd);
	free(buf);
	return buf ? rc : iogap_seterr(err, errlen, "out of memory");
}

/* strs as a JSON array of strings, malloc'd. */
static char *json_strings(const char *const *strs)
{
	char *buf = NULL;
	size_t len;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	fputc('[', f);
	for (int i = 0; strs && strs[i]; i++) {
		struct jp_value v = { .type = JP_STRING, .text = (char *)strs[i],
				     .len = strlen(strs[i]) };

		fputs(i ? "," : "", f);
		jp_write(f, &v);
	}
	fputc(']', f);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

int iogap_ga_exec_start(virDomainPtr dom, const char *const *argv, const char *const *env,
			int64_t *pid, char *err, size_t errlen)
{
	char *args = json_strings(argv + 1), *envs = json_strings(env);
	struct jp_value r;
	int rc;

	if (!args || !envs || strpbrk(argv[0], "\"\\")) {
		free(args);
		free(envs);
		return iogap_seterr(err, errlen, "guest-exec: cannot pass %s", argv[0]);
	}
	/* qemu-ga's env replaces the whole environment: given only when needed */
	rc = ga_cmdf(dom, 60, &r, err, errlen, "{\"execute\":\"guest-exec\",\"arguments\":{\"path\":"
		     "\"%s\",\"arg\":%s%s%s,\"capture-output\":true}}", argv[0], args,
		     env && env[0] ? ",\"env\":" : "", env && env[0] ? envs : "");
	free(args);
	free(envs);
	if (rc)
		return -1;
	*pid = (int64_t)jp_u64(jp_get(&r, "pid"), UINT64_MAX);
	jp_free(&r);
	return 0;
}

/* The last of the base64 text enc decoded into out (a C string). */
static void tail_of(const char *enc, char *out, size_t outlen)
{
	unsigned char *buf = enc ? malloc(strlen(enc) / 4 * 3 + 1) : NULL;
	ssize_t n = buf ? b64_decode(enc, buf) : -1;

	out[0] = '\0';
	if (n > 0) {
		size_t keep = (size_t)n < outlen - 1 ? (size_t)n : outlen - 1;

		memcpy(out, buf + n - keep, keep);
		out[keep] = '\0';
	}
	free(buf);
}

int iogap_ga_exec_poll(virDomainPtr dom, int64_t pid, int *status, char *err_tail,
		       size_t taillen, char *err, size_t errlen)
{
	struct jp_value r;
	int rc;

	if (ga_cmdf(dom, 60, &r, err, errlen, "{\"execute\":\"guest-exec-status\",\"arguments\":"
		    "{\"pid\":%" PRId64 "}}", pid))
		return -1;
	rc = jp_get(&r, "exited") && jp_get(&r, "exited")->b;
	if (rc) {
		const struct jp_value *sig = jp_get(&r, "signal");

		*status = sig ? 128 + (int)jp_u64(sig, 0) : (int)jp_u64(jp_get(&r, "exitcode"), 255);
		tail_of(jp_str(jp_get(&r, "err-data")), err_tail, taillen);
		if (!err_tail[0])
			tail_of(jp_str(jp_get(&r, "out-data")), err_tail, taillen);
	}
	jp_free(&r);
	return rc;
}

/* One round: the guest's CLOCK_MONOTONIC (ktime_get: "now at N nsecs",
 * taken when /proc/timer_list is first read) between two host
 * CLOCK_MONOTONIC stamps.  Opened anew each round: qemu-ga reads through
 * stdio, whose buffer a seek back to 0 does not refill. */
int iogap_ga_clock(virDomainPtr dom, uint64_t *t_send, uint64_t *guest_ns, uint64_t *t_recv,
		   char *err, size_t errlen)
{
	unsigned char *buf = malloc(CHUNK + 1);
	int64_t fd = buf ? ga_open(dom, "/proc/timer_list", "r", err, errlen) : -1;
	const char *now;
	bool eof;
	ssize_t n = -1;

	if (fd >= 0) {
		*t_send = iogap_now_ns();
		n = ga_read(dom, fd, 512, buf, &eof, err, errlen);
		*t_recv = iogap_now_ns();
		ga_close(dom, fd);
	}
	if (n >= 0) {
		buf[n] = '\0';
		now = strstr((char *)buf, "\nnow at ");
		if (!now || sscanf(now, "\nnow at %" SCNu64 " nsecs", guest_ns) != 1)
			n = iogap_seterr(err, errlen, "/proc/timer_list in the guest has no \"now at\" "
					 "line");
	}
	free(buf);
	return n < 0 ? -1 : 0;
}
