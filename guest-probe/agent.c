/* SPDX-License-Identifier: MIT */
/*
 * Guest agent: `iogap-probe --agent=PORT` serves the host over the
 * virtio-serial control port (docs/iogap-run.md, "Control channel").
 * Requests are one text line each, some followed by a binary payload:
 *
 *   HELLO                     -> OK <version> boot_id=<id> kernel=<release>
 *   PUT <name> <len>\n<bytes> -> OK            (stores /tmp/iogap/<name>)
 *   RUN <len> [<limit_ms>]\n<argv>
 *                             -> DONE <status> [stuck] (argv NUL-separated;
 *                                the probe runs as a child, output to files;
 *                                past the limit its threads' stacks go to
 *                                probe.stuck.txt and it is stopped)
 *   GET <name>                -> DATA <len>\n<bytes> | ERR <why>
 *   SYNC <rounds>             -> <rounds> x (host "P\n", guest "<ns>\n")
 *   SH <len> [<limit_ms>]\n<command>
 *                             -> DONE <status> [stuck]  (busybox sh -c, for
 *                                dmesg etc.; the limit as RUN's, sh.stuck.txt)
 *   ENV <len>\n<NAME=VALUE>   -> OK   (NUL-separated; for ${VAR} in job files)
 *   QUIT                      -> OK, then the agent exits
 *
 * The sync exchange answers each ping with one CLOCK_MONOTONIC read taken
 * right after the ping arrives: the host keeps the rounds with the
 * smallest round trip (NTP style).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util.h"
#include "agent.h"
#include "chan.h"

#define AGENT_DIR "/tmp/iogap"
#define MAX_PAYLOAD (1u << 30)

__attribute__((format(printf, 2, 3)))
static int reply(struct iogap_chan *c, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0 || n >= (int)sizeof(line) - 1)
		n = (int)sizeof(line) - 2;
	line[n++] = '\n';
	return iogap_write_all(c->fd, line, (size_t)n);
}

/* Names are plain file names inside AGENT_DIR: no paths from the host. */
static int safe_name(const char *name)
{
	return name[0] && name[0] != '.' && !strchr(name, '/') && strlen(name) < 200;
}

static char *read_payload(struct iogap_chan *c, const char *lenstr, size_t *len)
{
	char *end, *buf;
	unsigned long long v = strtoull(lenstr, &end, 10);

	if (*end || v > MAX_PAYLOAD)
		return NULL;
	buf = malloc(v + 1);
	if (!buf)
		return NULL;
	if (iogap_chan_read(c, buf, v)) {
		free(buf);
		return NULL;
	}
	buf[v] = '\0';
	*len = v;
	return buf;
}

static int do_put(struct iogap_chan *c, char *args)
{
	char *sp = strchr(args, ' '), path[PATH_MAX];
	size_t len;
	char *data;
	int fd, r;

	if (!sp)
		return reply(c, "ERR usage: PUT name len");
	*sp = '\0';
	data = read_payload(c, sp + 1, &len);
	if (!data)
		return -1;         /* the stream is out of step: give up */
	if (!safe_name(args)) {
		free(data);
		return reply(c, "ERR bad name");
	}
	snprintf(path, sizeof(path), AGENT_DIR "/%s", args);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	r = fd >= 0 ? iogap_write_all(fd, data, len) : -1;
	if (fd >= 0 && close(fd))
		r = -1;
	free(data);
	return r ? reply(c, "ERR %s: %s", path, strerror(errno)) : reply(c, "OK");
}

static int do_get(struct iogap_chan *c, const char *name)
{
	char path[PATH_MAX], hdr[64];
	struct stat st;
	int fd, n;
	char buf[65536];

	if (!safe_name(name))
		return reply(c, "ERR bad name");
	snprintf(path, sizeof(path), AGENT_DIR "/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		if (fd >= 0)
			close(fd);
		return reply(c, "ERR %s: %s", name, strerror(errno));
	}
	n = snprintf(hdr, sizeof(hdr), "DATA %lld\n", (long long)st.st_size);
	if (iogap_write_all(c->fd, hdr, (size_t)n)) {
		close(fd);
		return -1;
	}
	for (off_t left = st.st_size; left > 0;) {
		ssize_t r = read(fd, buf, (size_t)left < sizeof(buf) ? (size_t)left : sizeof(buf));

		if (r <= 0) {
			/* the length is promised: pad so the host sees a short file */
			memset(buf, 0, sizeof(buf));
			r = left < (off_t)sizeof(buf) ? (ssize_t)left : (ssize_t)sizeof(buf);
		}
		if (iogap_write_all(c->fd, buf, (size_t)r)) {
			close(fd);
			return -1;
		}
		left -= r;
	}
	close(fd);
	return 0;
}

/* Sleep until a child ends (SIGCHLD, blocked by run_child) or until
 * the time t_ns: no wakeups while the job is measured. */
static void sleep_for_child(uint64_t t_ns)
{
	uint64_t now = iogap_now_ns(), left = t_ns > now ? t_ns - now : 0;
	struct timespec ts = { (time_t)(left / 1000000000ULL), (long)(left % 1000000000ULL) };
	sigset_t chld;

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigtimedwait(&chld, NULL, &ts);
}

/* Wait for pid until limit_ns (0: none); past it, where its threads wait
 * goes to stuck_path and it is stopped: SIGTERM, SIGKILL 5 s later, and
 * 10 s after that it is given up (a task in D state, waiting for I/O that
 * never completes, cannot die): 128 + SIGKILL. */
static int wait_child(pid_t pid, uint64_t limit_ns, const char *stuck_path, bool *stuck)
{
	uint64_t wake = limit_ns ? limit_ns : UINT64_MAX;
	int status, signals = 0;
	pid_t r;

	while ((r = waitpid(pid, &status, WNOHANG)) <= 0) {
		if (r < 0 && errno != EINTR)
			return -1;
		if (iogap_now_ns() >= wake) {
			if (signals == 2)
				return 128 + SIGKILL;
			if (!signals)
				iogap_snapshot_threads(pid, stuck_path);
			*stuck = true;
			kill(pid, signals++ ? SIGKILL : SIGTERM);
			wake = iogap_now_ns() + (signals == 1 ? 5000000000ULL : 10000000000ULL);
		}
		sleep_for_child(wake);
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Run argv with stdout/stderr into AGENT_DIR files, for at most limit_ms
 * (0: no limit). */
static int run_child(char **argv, const char *out_name, unsigned long limit_ms, bool *stuck)
{
	char out[PATH_MAX], errp[PATH_MAX], stuck_path[PATH_MAX];
	/* a limit too far to add to the clock is none */
	uint64_t limit_ns = limit_ms && limit_ms < UINT64_MAX / 4000000 ?
			    iogap_now_ns() + limit_ms * 1000000ULL : 0;
	sigset_t chld, old;
	pid_t pid;
	int r;

	snprintf(out, sizeof(out), AGENT_DIR "/%s.out", out_name);
	snprintf(errp, sizeof(errp), AGENT_DIR "/%s.err", out_name);
	snprintf(stuck_path, sizeof(stuck_path), AGENT_DIR "/%s.stuck.txt", out_name);
	unlink(stuck_path);
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, &old);   /* before the fork: no SIGCHLD missed */
	pid = fork();
	if (pid == 0) {
		int o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int e = open(errp, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		sigprocmask(SIG_SETMASK, &old, NULL);
		if (o < 0 || e < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0 || chdir(AGENT_DIR))
			_exit(126);
		execv(argv[0], argv);
		_exit(127);
	}
	r = pid < 0 ? -1 : wait_child(pid, limit_ns, stuck_path, stuck);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return r;
}

/* RUN and SH: "<len> [<limit_ms>]", then the payload. */
static int do_run(struct iogap_chan *c, const char *args, bool shell)
{
	size_t len, argc = 0;
	const char *sp = strchr(args, ' ');
	unsigned long limit_ms = sp ? strtoul(sp + 1, NULL, 10) : 0;
	char lenstr[32], *data, **argv;
	bool stuck = false;
	int status;

	snprintf(lenstr, sizeof(lenstr), "%.*s", (int)(sp ? sp - args : (long)strlen(args)), args);
	data = read_payload(c, lenstr, &len);
	if (!data)
		return -1;
	if (shell) {
		char *sh_argv[] = { "/bin/sh", "-c", data, NULL };

		status = run_child(sh_argv, "sh", limit_ms, &stuck);
		free(data);
		return reply(c, "DONE %d%s", status, stuck ? " stuck" : "");
	}
	for (size_t i = 0; i < len; i++)
		argc += data[i] == '\0';
	argv = calloc(argc + 2, sizeof(*argv));
	if (!argv) {
		free(data);
		return reply(c, "ERR out of memory");
	}
	argv[0] = "/proc/self/exe";
	for (size_t i = 0, k = 1; i < len; i += strlen(data + i) + 1)
		argv[k++] = data + i;
	status = run_child(argv, "probe", limit_ms, &stuck);
	free(argv);
	free(data);
	return reply(c, "DONE %d%s", status, stuck ? " stuck" : "");
}

static int do_env(struct iogap_chan *c, const char *lenstr)
{
	size_t len;
	char *data = read_payload(c, lenstr, &len);

	if (!data)
		return -1;
	for (size_t i = 0; i < len; i += strlen(data + i) + 1) {
		char *eq = strchr(data + i, '=');

		if (!eq || eq == data + i) {
			free(data);
			return reply(c, "ERR bad ENV entry");
		}
		*eq = '\0';
		setenv(data + i, eq + 1, 1);
		*eq = '=';
	}
	free(data);
	return reply(c, "OK");
}

static int do_sync(struct iogap_chan *c, const char *count)
{
	long rounds = strtol(count, NULL, 10);
	char line[64];

	if (rounds <= 0 || rounds > 100000)
		return reply(c, "ERR bad round count");
	if (reply(c, "OK"))
		return -1;
	for (long i = 0; i < rounds; i++) {
		uint64_t t;
		char out[32];
		int n;

		if (iogap_chan_line(c, line, sizeof(line)))
			return -1;
		t = iogap_now_ns();
		n = snprintf(out, sizeof(out), "%" PRIu64 "\n", t);
		if (iogap_write_all(c->fd, out, (size_t)n))
			return -1;
	}
	return 0;
}

static void boot_id(char *out, size_t len)
{
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");

	snprintf(out, len, "unknown");
	if (f) {
		if (fgets(out, (int)len, f))
			out[strcspn(out, "\n")] = '\0';
		fclose(f);
	}
}

int iogap_agent_main(const char *port, const char *version)
{
	static struct iogap_chan c = { .fd = -1 };
	char line[4096];

	mkdir(AGENT_DIR, 0755);
	c.fd = open(port, O_RDWR | O_CLOEXEC);
	if (c.fd < 0) {
		fprintf(stderr, "iogap-probe: agent: %s: %s\n", port, strerror(errno));
		return 1;
	}
	while (iogap_chan_line(&c, line, sizeof(line)) == 0) {
		char *arg = strchr(line, ' ');
		int r;

		if (arg)
			*arg++ = '\0';
		else
			arg = line + strlen(line);
		if (!strcmp(line, "HELLO")) {
			struct utsname u;
			char id[64];

			uname(&u);
			boot_id(id, sizeof(id));
			r = reply(&c, "OK %s boot_id=%s kernel=%s", version, id, u.release);
		} else if (!strcmp(line, "PUT")) {
			r = do_put(&c, arg);
		} else if (!strcmp(line, "GET")) {
			r = do_get(&c, arg);
		} else if (!strcmp(line, "RUN")) {
			r = do_run(&c, arg, false);
		} else if (!strcmp(line, "SH")) {
			r = do_run(&c, arg, true);
		} else if (!strcmp(line, "ENV")) {
			r = do_env(&c, arg);
		} else if (!strcmp(line, "SYNC")) {
			r = do_sync(&c, arg);
		} else if (!strcmp(line, "QUIT")) {
			reply(&c, "OK");
			break;
		} else if (!line[0]) {
			continue;
		} else {
			r = reply(&c, "ERR unknown request '%.100s'", line);
		}
		if (r) {
			fprintf(stderr, "iogap-probe: agent: control channel broken\n");
			close(c.fd);
			return 1;
		}
	}
	close(c.fd);
	return 0;
}
