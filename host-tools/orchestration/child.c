/* SPDX-License-Identifier: MIT */
/*
 * Process supervision for `iogap run` (child.h).  Between fork and exec
 * the child calls only async-signal-safe functions: iogap has threads
 * (the ring drains), so everything else is prepared before the fork.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"
#include "chan.h"
#include "util.h"

extern char **environ;

static volatile int interrupt_signal;

static void on_interrupt(int sig)
{
	interrupt_signal = sig;
}

void iogap_catch_interrupts(void)
{
	/* caught every time: a second Ctrl-C must not kill iogap before it has
	 * stopped its children and tracing and written the manifest */
	struct sigaction sa = { .sa_handler = on_interrupt };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

int iogap_interrupted(void)
{
	return interrupt_signal;
}

volatile int *iogap_interrupt_flag(void)
{
	return &interrupt_signal;
}

/* environ with LD_PRELOAD replaced: built before the fork (malloc). */
static char **env_with_preload(const char *preload)
{
	size_t n = 0, k = 0;
	char **env;

	while (environ[n])
		n++;
	env = calloc(n + 2, sizeof(*env));
	if (!env)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "LD_PRELOAD=", 11))
			env[k++] = environ[i];
	if (preload) {
		size_t len = strlen(preload) + 12;

		env[k] = malloc(len);
		if (!env[k]) {
			free(env);
			return NULL;
		}
		snprintf(env[k++], len, "LD_PRELOAD=%s", preload);
	}
	env[k] = NULL;
	return env;
}

static void free_env(char **env, const char *preload)
{
	size_t k = 0;

	if (!env)
		return;
	while (env[k])
		k++;
	if (preload && k)
		free(env[k - 1]);
	free(env);
}

/* In the child: die with iogap, own process group, the given stdio. */
static __attribute__((noreturn)) void exec_child(const struct iogap_spawn *sp, pid_t parent,
						  int out_fd, int err_fd, char **env)
{
	int null = open("/dev/null", O_RDWR);

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)   /* iogap died before the line above */
		_exit(127);
	setpgid(0, 0);
	if (null >= 0)
		dup2(null, 0);
	dup2(out_fd >= 0 ? out_fd : null, 1);
	dup2(err_fd >= 0 ? err_fd : null, 2);
	execvpe(sp->argv[0], (char *const *)sp->argv, env);
	{
		static const char msg[] = "cannot execute the program\n";

		if (write(2, sp->argv[0], strlen(sp->argv[0])) < 0 || write(2, ": ", 2) < 0 ||
		    write(2, msg, sizeof(msg) - 1) < 0)
			_exit(127);
	}
	_exit(127);
}

static int open_output(const char *path)
{
	return path ? open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644) : -1;
}

int iogap_child_start(struct iogap_child *c, const struct iogap_spawn *sp, char *err,
		      size_t errlen)
{
	int pipefd[2] = { -1, -1 }, out_fd, err_fd;
	char **env = env_with_preload(sp->preload);
	pid_t parent = getpid();

	memset(c, 0, sizeof(*c));
	c->err_fd = c->err_copy_fd = -1;
	if (!env)
		return iogap_seterr(err, errlen, "out of memory");
	out_fd = open_output(sp->stdout_path);
	if (sp->capture_stderr) {
		c->err_copy_fd = open_output(sp->stderr_path);
		c->err_copy_errno = c->err_copy_fd < 0 && sp->stderr_path ? errno : 0;
		if (pipe2(pipefd, O_CLOEXEC)) {
			free_env(env, sp->preload);
			return iogap_seterr(err, errlen, "pipe: %s", strerror(errno));
		}
		err_fd = pipefd[1];
	} else {
		err_fd = open_output(sp->stderr_path);
	}
	c->pid = fork();
	if (c->pid == 0)
		exec_child(sp, parent, out_fd, err_fd, env);
	free_env(env, sp->preload);
	if (out_fd >= 0)
		close(out_fd);
	if (err_fd >= 0)
		close(err_fd);
	if (c->pid < 0) {
		c->pid = 0;
		if (pipefd[0] >= 0)
			close(pipefd[0]);
		return iogap_seterr(err, errlen, "fork: %s", strerror(errno));
	}
	c->err_fd = pipefd[0];
	if (c->err_fd >= 0)
		fcntl(c->err_fd, F_SETFL, O_NONBLOCK);
	return 0;
}

/* Move what the child wrote to stderr into the copy and the tail. */
static void copy_stderr(struct iogap_child *c)
{
	char buf[4096];
	ssize_t n;

	while (c->err_fd >= 0 && (n = read(c->err_fd, buf, sizeof(buf))) != 0) {
		size_t keep = sizeof(c->err_tail) - 1;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN)
				iogap_child_release(c);
			return;
		}
		if (c->err_copy_fd >= 0 && iogap_write_all(c->err_copy_fd, buf, (size_t)n)) {
			c->err_copy_errno = errno;
			close(c->err_copy_fd);
			c->err_copy_fd = -1;
		}
		if ((size_t)n >= keep) {
			memcpy(c->err_tail, buf + n - keep, keep);
			c->err_tail_len = keep;
		} else {
			size_t drop = c->err_tail_len + (size_t)n > keep ?
				      c->err_tail_len + (size_t)n - keep : 0;

			memmove(c->err_tail, c->err_tail + drop, c->err_tail_len - drop);
			memcpy(c->err_tail + c->err_tail_len - drop, buf, (size_t)n);
			c->err_tail_len += (size_t)n - drop;
		}
		c->err_tail[c->err_tail_len] = '\0';
	}
	iogap_child_release(c);   /* end of file: the child is gone */
}

bool iogap_child_ended(struct iogap_child *c)
{
	int ws;
	pid_t r;

	if (c->ended || c->pid <= 0)
		return c->ended;
	do
		r = waitpid(c->pid, &ws, WNOHANG);
	while (r < 0 && errno == EINTR);
	if (r == 0)
		return false;
	c->ended = true;
	c->pid = 0;
	c->status = r < 0 ? -1 : WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
	c->signal = r >= 0 && WIFSIGNALED(ws) ? WTERMSIG(ws) : 0;
	copy_stderr(c);
	return true;
}

bool iogap_child_wait(struct iogap_child *c, uint64_t deadline_ns)
{
	while (!iogap_child_ended(c)) {
		struct pollfd p = { .fd = c->err_fd, .events = POLLIN };

		if (iogap_interrupted() || iogap_now_ns() >= deadline_ns)
			return false;
		if (c->err_fd >= 0 && poll(&p, 1, 50) > 0)
			copy_stderr(c);
		else if (c->err_fd < 0)
			usleep(20000);
	}
	return true;
}

void iogap_child_stop(struct iogap_child *c, unsigned grace_ms)
{
	uint64_t until = iogap_now_ns() + (uint64_t)grace_ms * 1000000ULL;

	if (c->pid <= 0)
		return;
	kill(c->pid, SIGTERM);
	while (!iogap_child_ended(c) && iogap_now_ns() < until) {
		copy_stderr(c);
		usleep(20000);
	}
	if (c->pid > 0) {
		/* a task in D state (I/O that never completes) cannot die: after
		 * 10 s it is left to init, not waited for forever */
		until = iogap_now_ns() + 10000000000ULL;
		kill(c->pid, SIGKILL);
		while (!iogap_child_ended(c) && iogap_now_ns() < until)
			usleep(20000);
		if (c->ended)
			return;
		c->ended = true;
		c->pid = 0;
		c->status = 128 + SIGKILL;
		c->signal = SIGKILL;
		copy_stderr(c);
	}
}

void iogap_child_release(struct iogap_child *c)
{
	if (c->err_fd >= 0)
		close(c->err_fd);
	if (c->err_copy_fd >= 0 && close(c->err_copy_fd) && !c->err_copy_errno)
		c->err_copy_errno = errno;
	c->err_fd = c->err_copy_fd = -1;
}

int iogap_child_snapshot(const struct iogap_child *c, const char *path)
{
	return c->pid > 0 ? iogap_snapshot_threads(c->pid, path) : -1;
}

void iogap_child_describe(const struct iogap_child *c, char *out, size_t outlen)
{
	if (c->signal)
		snprintf(out, outlen, "killed by signal %d (%s)", c->signal, strsignal(c->signal));
	else
		snprintf(out, outlen, "exit status %d", c->status);
}
