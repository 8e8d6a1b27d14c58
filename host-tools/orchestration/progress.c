/* SPDX-License-Identifier: MIT */
/* `iogap run`'s progress line on a terminal (progress.h). */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "progress.h"
#include "util.h"

#define TICK_NS 500000000L

static struct {
	bool on;             /* the thread runs */
	bool broken;         /* a write failed: the terminal is gone */
	bool stop;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	const char *phase;   /* NULL between phases */
	uint64_t phase_start_ns;
	int main_phase, main_phases;   /* "phase 2 of 3"; 0 of 0: not counted */
} progress = { .lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER };

/* write(2), not stdio: no stdio lock is ever held by this thread when the
 * main thread forks QEMU or the probe. */
static void draw(const char *end)
{
	char line[160], count[32] = "";
	int n;

	if (!progress.phase || progress.broken)
		return;
	if (progress.main_phases)
		snprintf(count, sizeof(count), "phase %d of %d: ", progress.main_phase,
			 progress.main_phases);
	n = snprintf(line, sizeof(line), "\r\033[Kiogap: %s%s %.1f s%s", count, progress.phase,
		     (double)(iogap_now_ns() - progress.phase_start_ns) / 1e9, end);
	if (n > 0 && write(STDERR_FILENO, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1) < 0)
		progress.broken = true;
}

static void *ticker(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&progress.lock);
	while (!progress.stop) {
		struct timespec until;

		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += TICK_NS;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&progress.wake, &progress.lock, &until);
		if (!progress.stop)
			draw("");
	}
	pthread_mutex_unlock(&progress.lock);
	return NULL;
}

void iogap_progress_start(bool quiet)
{
	sigset_t all, old;

	if (quiet || !isatty(STDERR_FILENO))
		return;
	/* signals (SIGINT, SIGTERM, SIGCHLD) stay with the main thread */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	progress.on = !pthread_create(&progress.thread, NULL, ticker, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

void iogap_progress_phase(const char *phase)
{
	if (!progress.on)
		return;
	pthread_mutex_lock(&progress.lock);
	draw("\n");
	progress.phase = phase;
	progress.phase_start_ns = iogap_now_ns();
	draw("");
	pthread_mutex_unlock(&progress.lock);
}

void iogap_progress_phases(int total)
{
	pthread_mutex_lock(&progress.lock);
	progress.main_phase = 0;
	progress.main_phases = total;
	pthread_mutex_unlock(&progress.lock);
}

void iogap_progress_next(const char *phase)
{
	if (!progress.on)
		return;
	pthread_mutex_lock(&progress.lock);
	draw("\n");           /* the line ends with the number it began with */
	progress.phase = NULL;
	if (progress.main_phase < progress.main_phases)
		progress.main_phase++;
	pthread_mutex_unlock(&progress.lock);
	iogap_progress_phase(phase);
}

void iogap_progress_message(const char *text)
{
	if (!progress.on) {
		fprintf(stderr, "%s\n", text);
		return;
	}
	pthread_mutex_lock(&progress.lock);
	if (progress.phase && !progress.broken && write(STDERR_FILENO, "\r\033[K", 4) < 0)
		progress.broken = true;
	fprintf(stderr, "%s\n", text);
	draw("");
	pthread_mutex_unlock(&progress.lock);
}

void iogap_progress_stop(void)
{
	if (!progress.on)
		return;
	iogap_progress_phase(NULL);
	pthread_mutex_lock(&progress.lock);
	progress.stop = true;
	pthread_cond_signal(&progress.wake);
	pthread_mutex_unlock(&progress.lock);
	pthread_join(progress.thread, NULL);
	progress.on = false;
}
