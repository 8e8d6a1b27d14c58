/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "idle_prof.h"
#include "util.h"

#define CALIBRATE_RUNS 10      /* fio's: the fastest of 10 runs ... */
#define CALIBRATE_SCALE 1000   /* ... of 1000 units each */

struct idle_cpu {
	struct iogap_idle_prof *p;
	pthread_t thread;
	bool started;
	int cpu;
	unsigned char *page;
	double unit_us;           /* calibrated time of one unit */
	double units;             /* done while measuring */
	uint64_t t0, t1;          /* measuring from, to (ns) */
	double idleness;          /* 0..1 */
	int err;                  /* errno of a failed step */
	const char *step;
};

struct iogap_idle_prof {
	enum iogap_idle_mode mode;
	size_t page_size;
	struct idle_cpu *cpus;
	size_t nr;
	pthread_mutex_t lock;     /* ready, go, failed */
	pthread_cond_t cond;
	size_t ready;             /* threads calibrated (or failed) */
	bool go;                  /* the threads may start measuring */
	bool failed;              /* a thread failed: the others end at once */
	atomic_bool stop;
	double unit_mean, unit_stddev;
};

int iogap_idle_parse(const char *arg, enum iogap_idle_mode *mode)
{
	if (arg && !strcmp(arg, "system"))
		*mode = IOGAP_IDLE_SYSTEM;
	else if (arg && !strcmp(arg, "percpu"))
		*mode = IOGAP_IDLE_PERCPU;
	else if (arg && !strcmp(arg, "calibrate"))
		*mode = IOGAP_IDLE_CALIBRATE;
	else
		return -1;
	return 0;
}

/* fio's unit of work: a page written byte by byte, the stop flag checked
 * after each byte (in calibration too, so that both loops cost the same).
 * Returns the bytes written before a stop. */
static size_t unit(struct idle_cpu *c, size_t j)
{
	size_t ps = c->p->page_size;

	for (size_t k = 0; k < ps; k++) {
		c->page[(k + j) % ps] = (unsigned char)(k % 256);
		if (atomic_load_explicit(&c->p->stop, memory_order_relaxed))
			return k;
	}
	return ps;
}

static void calibrate(struct idle_cpu *c)
{
	for (int i = 0; i < CALIBRATE_RUNS; i++) {
		uint64_t t0 = iogap_now_ns(), us;

		for (size_t j = 0; j < CALIBRATE_SCALE; j++)
			unit(c, j);
		us = (iogap_now_ns() - t0) / 1000;
		if (us && (c->unit_us == 0.0 || (double)us < c->unit_us * CALIBRATE_SCALE))
			c->unit_us = (double)us / CALIBRATE_SCALE;
	}
}

static int pin_and_idle(struct idle_cpu *c)
{
	struct sched_param sp = { 0 };
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(c->cpu, &set);
	if ((c->err = pthread_setaffinity_np(pthread_self(), sizeof(set), &set))) {
		c->step = "setting the CPU affinity";
		return -1;
	}
	calibrate(c);
	/* SCHED_IDLE only after calibrating, as fio: calibration needs the CPU */
	if (sched_setscheduler(0, SCHED_IDLE, &sp)) {
		c->err = errno;
		c->step = "sched_setscheduler(SCHED_IDLE)";
		return -1;
	}
	return 0;
}

static void *idle_thread(void *arg)
{
	struct idle_cpu *c = arg;
	struct iogap_idle_prof *p = c->p;
	size_t j = 0, k;
	int r = pin_and_idle(c);
	bool measure;

	pthread_mutex_lock(&p->lock);
	p->failed |= r != 0;
	p->ready++;
	pthread_cond_broadcast(&p->cond);
	while (!p->go)
		pthread_cond_wait(&p->cond, &p->lock);
	measure = !p->failed && p->mode != IOGAP_IDLE_CALIBRATE;
	pthread_mutex_unlock(&p->lock);
	if (!measure)
		return NULL;
	c->t0 = iogap_now_ns();
	while ((k = unit(c, j)) == p->page_size)
		j++;
	c->t1 = iogap_now_ns();
	c->units = (double)j + (double)k / (double)p->page_size;
	return NULL;
}

static void unit_stats(struct iogap_idle_prof *p)
{
	double sum = 0.0, var = 0.0;

	for (size_t i = 0; i < p->nr; i++)
		sum += p->cpus[i].unit_us;
	p->unit_mean = sum / (double)p->nr;
	for (size_t i = 0; i < p->nr; i++)
		var += pow(p->cpus[i].unit_us - p->unit_mean, 2);
	/* fio divides by nr - 1: with one CPU that is 0/0 (fio prints nan) */
	p->unit_stddev = p->nr > 1 ? sqrt(var / (double)(p->nr - 1)) : 0.0;
}

static struct iogap_idle_prof *idle_new(enum iogap_idle_mode mode, char *err, size_t errlen)
{
	struct iogap_idle_prof *p = calloc(1, sizeof(*p));
	cpu_set_t allowed;

	if (!p || sched_getaffinity(0, sizeof(allowed), &allowed)) {
		free(p);
		iogap_seterr(err, errlen, "--idle-prof: %s", strerror(errno));
		return NULL;
	}
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cond, NULL);
	p->mode = mode;
	p->page_size = (size_t)sysconf(_SC_PAGESIZE);
	p->cpus = calloc((size_t)CPU_COUNT(&allowed), sizeof(*p->cpus));
	if (!p->cpus) {
		free(p);
		iogap_seterr(err, errlen, "--idle-prof: out of memory");
		return NULL;
	}
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, &allowed))
			continue;
		p->cpus[p->nr].cpu = cpu;
		p->cpus[p->nr].p = p;
		p->nr++;
	}
	return p;
}

struct iogap_idle_prof *iogap_idle_start(enum iogap_idle_mode mode, char *err, size_t errlen)
{
	struct iogap_idle_prof *p = idle_new(mode, err, errlen);
	size_t started = 0;

	if (!p)
		return NULL;
	for (size_t i = 0; i < p->nr; i++) {
		struct idle_cpu *c = &p->cpus[i];

		c->page = malloc(p->page_size);
		if (!c->page || pthread_create(&c->thread, NULL, idle_thread, c)) {
			c->step = "starting a thread";
			break;
		}
		c->started = true;
		started++;
	}
	pthread_mutex_lock(&p->lock);
	p->failed |= started < p->nr;
	while (p->ready < started)
		pthread_cond_wait(&p->cond, &p->lock);
	if (!p->failed)
		unit_stats(p);
	p->go = true;   /* fio: the idle threads start before the jobs */
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
	if (p->failed) {
		for (size_t i = 0; i < p->nr; i++) {
			if (!p->cpus[i].step)
				continue;
			iogap_seterr(err, errlen, "--idle-prof: cpu %d: %s failed%s%s", p->cpus[i].cpu,
				     p->cpus[i].step, p->cpus[i].err ? ": " : "",
				     p->cpus[i].err ? strerror(p->cpus[i].err) : "");
			break;
		}
		iogap_idle_stop(p);
		iogap_idle_free(p);
		return NULL;
	}
	return p;
}

void iogap_idle_stop(struct iogap_idle_prof *p)
{
	atomic_store(&p->stop, true);
	for (size_t i = 0; i < p->nr; i++) {
		struct idle_cpu *c = &p->cpus[i];
		uint64_t us;

		if (!c->started)
			continue;
		pthread_join(c->thread, NULL);
		c->started = false;
		us = c->t1 > c->t0 ? (c->t1 - c->t0) / 1000 : 0;
		c->idleness = us ? c->units * p->unit_mean / (double)us : 0.0;
	}
}

static double system_pct(const struct iogap_idle_prof *p)
{
	double sum = 0.0;

	for (size_t i = 0; i < p->nr; i++)
		sum += p->cpus[i].idleness;
	return sum / (double)p->nr * 100.0;
}

void iogap_idle_normal(FILE *f, const struct iogap_idle_prof *p)
{
	fputs(p->mode == IOGAP_IDLE_CALIBRATE ? "CPU idleness:\n" : "\nCPU idleness:\n", f);
	if (p->mode >= IOGAP_IDLE_SYSTEM)
		fprintf(f, "  system: %3.2f%%\n", system_pct(p));
	if (p->mode == IOGAP_IDLE_PERCPU) {
		for (size_t i = 0; i < p->nr; i++)
			fprintf(f, "%s%3.2f%%", i ? ", " : "  percpu: ", p->cpus[i].idleness * 100.0);
		fputc('\n', f);
	}
	fprintf(f, "  unit work: mean=%3.2fus, stddev=%3.2f\n", p->unit_mean, p->unit_stddev);
}

void iogap_idle_json(struct jw *w, const struct iogap_idle_prof *p)
{
	char key[32];

	jw_obj(w, "cpu_idleness");
	jw_float(w, "system", system_pct(p));
	for (size_t i = 0; p->mode == IOGAP_IDLE_PERCPU && i < p->nr; i++) {
		snprintf(key, sizeof(key), "cpu-%d", p->cpus[i].cpu);
		jw_float(w, key, p->cpus[i].idleness * 100.0);
	}
	jw_float(w, "unit_mean", p->unit_mean);
	jw_float(w, "unit_stddev", p->unit_stddev);
	jw_end(w);
}

void iogap_idle_free(struct iogap_idle_prof *p)
{
	if (!p)
		return;
	iogap_idle_stop(p);   /* threads still measuring (a run that failed) end first */
	for (size_t i = 0; i < p->nr; i++)
		free(p->cpus[i].page);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->cond);
	free(p->cpus);
	free(p);
}
