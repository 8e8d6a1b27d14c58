/* SPDX-License-Identifier: MIT */
/*
 * Host CPU use per second: the sampler (/proc/stat, /proc/PID/task/TID/stat),
 * the file it writes, its parser and the saturation summary (cpuload.h).
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cpuload.h"
#include "trace_file.h"
#include "util.h"

/* local backend daemons watched by process name (besides our children) */
static const char *const daemons[] = { "ceph-osd", "ceph-mon" };

/* ---------------------------------------------------------------- writer */

void iogap_cpuload_write_header(FILE *f, unsigned ncpu)
{
	fprintf(f, "iogap-cpuload 1\nncpu %u\n", ncpu);
}

void iogap_cpuload_write_task(FILE *f, long id, int pid, int tid, const char *role,
			      const char *comm)
{
	fprintf(f, "task %ld %d %d %s %s\n", id, pid, tid, role, comm);
}

void iogap_cpuload_write_sec(FILE *f, uint64_t start_ns, uint64_t end_ns, double host_pct)
{
	fprintf(f, "s %" PRIu64 " %" PRIu64 " %.1f\n", start_ns, end_ns, host_pct);
}

void iogap_cpuload_write_use(FILE *f, long id, double pct)
{
	fprintf(f, "u %ld %.1f\n", id, pct);
}

/* ---------------------------------------------------------------- parser */

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
	void *n;

	if (need <= *cap)
		return 0;
	n = realloc(*p, (*cap = need * 2 + 16) * size);
	if (!n)
		return -1;
	*p = n;
	return 0;
}

static int parse_line(struct iogap_cpuload *cl, char *line, size_t caps[3])
{
	struct iogap_cpu_task t = { 0 };
	unsigned long long a, b;
	double pct;
	size_t id;
	int off = 0;

	if (sscanf(line, "ncpu %u", &cl->ncpu) == 1)
		return cl->ncpu ? 0 : -1;
	if (sscanf(line, "task %zu %d %d %15s %n", &id, &t.pid, &t.tid, t.role, &off) == 4 && off) {
		if (id != cl->ntask || grow((void **)&cl->task, &caps[0], id + 1, sizeof(t)))
			return -1;
		snprintf(t.comm, sizeof(t.comm), "%.*s", (int)strcspn(line + off, "\n"), line + off);
		cl->task[cl->ntask++] = t;
		return 0;
	}
	if (sscanf(line, "s %llu %llu %lf", &a, &b, &pct) == 3) {
		if (b < a || pct < 0 || pct > 100.5 ||
		    grow((void **)&cl->sec, &caps[1], cl->nsec + 1, sizeof(*cl->sec)))
			return -1;
		cl->sec[cl->nsec++] = (struct iogap_cpu_sec){ a, b, pct, cl->nuse, 0 };
		return 0;
	}
	if (sscanf(line, "u %zu %lf", &id, &pct) == 2) {
		if (!cl->nsec || id >= cl->ntask || pct < 0 ||
		    grow((void **)&cl->use, &caps[2], cl->nuse + 1, sizeof(*cl->use)))
			return -1;
		cl->use[cl->nuse++] = (struct iogap_cpu_use){ id, pct };
		cl->sec[cl->nsec - 1].nuse++;
		return 0;
	}
	return -1;
}

int iogap_cpuload_load(const char *path, struct iogap_cpuload *cl, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	char line[512];
	size_t caps[3] = { 0 };
	int lineno = 0;

	memset(cl, 0, sizeof(*cl));
	if (!f)
		return iogap_seterr(err, errlen, "%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		if (lineno == 1 ? strcmp(line, "iogap-cpuload 1\n") : parse_line(cl, line, caps)) {
			fclose(f);
			iogap_cpuload_free(cl);
			return iogap_seterr(err, errlen, "%s:%d: not a cpuload line", path, lineno);
		}
	}
	fclose(f);
	if (!cl->ncpu) {
		iogap_cpuload_free(cl);
		return iogap_seterr(err, errlen, "%s: no ncpu line", path);
	}
	return 0;
}

void iogap_cpuload_free(struct iogap_cpuload *cl)
{
	free(cl->task);
	free(cl->sec);
	free(cl->use);
	memset(cl, 0, sizeof(*cl));
}

/* --------------------------------------------------------------- summary */

static void count_busy(struct iogap_cpu_summary *s, size_t task)
{
	size_t i = 0;

	while (i < s->nbusy && s->busy[i].task != task)
		i++;
	if (i == s->nbusy) {
		if (s->nbusy == sizeof(s->busy) / sizeof(s->busy[0]))
			return;
		s->busy[s->nbusy++] = (struct iogap_cpu_busy_task){ task, 0 };
	}
	s->busy[i].nsec++;
}

static int by_nsec(const void *a, const void *b)
{
	const struct iogap_cpu_busy_task *x = a, *y = b;

	return x->nsec < y->nsec ? 1 : x->nsec > y->nsec ? -1 : 0;
}

int iogap_cpuload_summarize(const struct iogap_cpuload *cl, struct iogap_cpu_summary *s)
{
	memset(s, 0, sizeof(*s));
	s->nsec = cl->nsec;
	s->sec_sat = calloc(cl->nsec + 1, sizeof(*s->sec_sat));
	if (!s->sec_sat)
		return -1;
	for (size_t k = 0; k < cl->nsec; k++) {
		const struct iogap_cpu_sec *sec = &cl->sec[k];
		bool sat = sec->host_pct >= IOGAP_CPU_SATURATED_PCT;
		double watched = 0;

		s->host_sat += sat;
		s->host_mean_pct += sec->host_pct / (double)cl->nsec;
		if (sec->host_pct > s->host_max_pct)
			s->host_max_pct = sec->host_pct;
		for (size_t u = sec->first_use; u < sec->first_use + sec->nuse; u++) {
			const struct iogap_cpu_use *use = &cl->use[u];

			watched += use->pct;
			if (use->pct < IOGAP_CPU_SATURATED_PCT)
				continue;
			count_busy(s, use->task);
			sat = sat || strcmp(cl->task[use->task].role, "vcpu");
		}
		s->others_mean_pct += fmax(sec->host_pct * cl->ncpu - watched, 0) / (double)cl->nsec;
		s->sec_sat[k] = sat;
		s->sat += sat;
	}
	qsort(s->busy, s->nbusy, sizeof(s->busy[0]), by_nsec);
	return 0;
}

void iogap_cpu_summary_free(struct iogap_cpu_summary *s)
{
	free(s->sec_sat);
	memset(s, 0, sizeof(*s));
}

bool iogap_cpu_saturated_at(const struct iogap_cpuload *cl, const struct iogap_cpu_summary *s,
			    uint64_t t)
{
	size_t lo = 0, hi = cl->nsec;

	/* intervals are in time order and do not overlap */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (cl->sec[mid].end_ns <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < cl->nsec && cl->sec[lo].start_ns <= t && s->sec_sat[lo];
}

int iogap_cpuload_trace_share(const struct iogap_cpuload *cl, const struct iogap_cpu_summary *s,
			      const char *trace, int64_t offset_ns, uint64_t *hit, uint64_t *all,
			      char *err, size_t errlen)
{
	struct iogap_trace_reader *r = iogap_trace_reader_open(trace, err, errlen);
	struct iogap_trace_record rec;
	int got;

	*hit = *all = 0;
	if (!r)
		return -1;
	while ((got = iogap_trace_reader_next(r, &rec, err, errlen)) > 0) {
		if (rec.flags & IOGAP_REC_RAMP || rec.op > IOGAP_OP_WRITE)
			continue;
		(*all)++;
		*hit += iogap_cpu_saturated_at(cl, s, (uint64_t)((int64_t)rec.start_ns - offset_ns));
	}
	iogap_trace_reader_close(r);
	return got < 0 ? -1 : 0;
}

void iogap_cpu_summary_text(const struct iogap_cpuload *cl, const struct iogap_cpu_summary *s,
			    char *buf, size_t n)
{
	size_t l;

	buf[0] = 0;
	if (!s->nsec)
		return;
	l = (size_t)snprintf(buf, n, "host CPU (%u cores): mean %.0f%%, max %.0f%%, all cores busy "
			     "(>= %.0f%%) in %zu of %zu s; processes outside this run (and threads "
			     "under 1%%) %.0f%% of a core on average", cl->ncpu, s->host_mean_pct,
			     s->host_max_pct, IOGAP_CPU_SATURATED_PCT, s->host_sat, s->nsec,
			     s->others_mean_pct);
	for (size_t i = 0; i < s->nbusy && l < n; i++) {
		const struct iogap_cpu_task *t = &cl->task[s->busy[i].task];

		l += (size_t)snprintf(buf + l, n - l, "; %s thread '%s' (pid %d tid %d) >= %.0f%% of a "
				      "core in %zu s%s", t->role, t->comm, t->pid, t->tid,
				      IOGAP_CPU_SATURATED_PCT, s->busy[i].nsec,
				      strcmp(t->role, "vcpu") ? "" :
				      " (a vCPU busy with the guest's work, emulated under TCG: a fact, "
				      "not counted as saturation)");
	}
}

/* --------------------------------------------------------------- sampler */

struct watched {
	int pid, tid;
	unsigned long long ticks;
	long id;                  /* task id in the file, -1 until used */
	bool seen;
};

struct iogap_cpuload_sampler {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool stop;
	FILE *f;
	long hz;
	pid_t self;
	struct watched *w;
	size_t nw, capw;
	long ntask;
	unsigned long long busy, total;
};

/* "cpu  user nice system idle iowait irq softirq steal": busy and total ticks */
static int read_proc_stat(unsigned long long *busy, unsigned long long *total, unsigned *ncpu)
{
	FILE *f = fopen("/proc/stat", "r");
	char line[512];
	unsigned long long v[8] = { 0 };
	int rc = -1;

	if (!f)
		return -1;
	*ncpu = 0;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "cpu ", 4) &&
		    sscanf(line + 4, "%llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
			   &v[3], &v[4], &v[5], &v[6], &v[7]) >= 4)
			rc = 0;
		else if (!strncmp(line, "cpu", 3))
			(*ncpu)++;
	}
	fclose(f);
	*total = v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7];
	*busy = *total - v[3] - v[4];
	return rc;
}

/* comm, ppid and utime + stime of /proc/PID[/task/TID]/stat */
static int read_task_stat(const char *path, char *comm, size_t clen, int *ppid,
			  unsigned long long *ticks)
{
	char buf[1024], *open_p, *close_p;
	FILE *f = fopen(path, "r");
	size_t n;
	unsigned long long ut, st;

	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	open_p = strchr(buf, '(');
	close_p = strrchr(buf, ')');   /* comm may hold ')' */
	if (!open_p || !close_p || close_p < open_p)
		return -1;
	snprintf(comm, clen, "%.*s", (int)(close_p - open_p - 1), open_p + 1);
	/* after "comm) ": state ppid pgrp session tty tpgid flags minflt cminflt
	 * majflt cmajflt utime stime */
	if (sscanf(close_p + 2, "%*c %d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", ppid, &ut,
		   &st) != 3)
		return -1;
	*ticks = ut + st;
	return 0;
}

static const char *role_of(const char *proc, const char *thread, bool main_thread)
{
	if (!strncmp(proc, "qemu-system", 11)) {
		if (!strncmp(thread, "CPU ", 4))
			return "vcpu";
		if (!strncmp(thread, "IO ", 3))
			return "iothread";
		if (main_thread)
			return "qemu-main";
		return strcmp(thread, "worker") ? "qemu" : "qemu-worker";
	}
	if (!strcmp(proc, "iogap-probe"))
		return "probe";
	return proc;
}

static bool watch_process(const struct iogap_cpuload_sampler *smp, const char *comm, int ppid)
{
	if (ppid == smp->self)
		return true;
	for (size_t i = 0; i < sizeof(daemons) / sizeof(daemons[0]); i++)
		if (!strcmp(comm, daemons[i]))
			return true;
	return false;
}

static struct watched *find_watched(struct iogap_cpuload_sampler *smp, int tid)
{
	for (size_t i = 0; i < smp->nw; i++)
		if (smp->w[i].tid == tid)
			return &smp->w[i];
	if (grow((void **)&smp->w, &smp->capw, smp->nw + 1, sizeof(*smp->w)))
		return NULL;
	smp->w[smp->nw] = (struct watched){ .tid = tid, .id = -1 };
	return &smp->w[smp->nw++];
}

/* One thread's ticks since the last sample: a "u" line when >= 1%. */
static void sample_thread(struct iogap_cpuload_sampler *smp, int pid, int tid, const char *proc,
			  double secs, bool first)
{
	char path[96], comm[64];
	int ppid;
	unsigned long long ticks;
	struct watched *w;
	double pct;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", pid, tid);
	if (read_task_stat(path, comm, sizeof(comm), &ppid, &ticks) || !(w = find_watched(smp, tid)))
		return;
	pct = w->seen && !first ? 100.0 * (double)(ticks - w->ticks) / (double)smp->hz / secs : 0;
	w->pid = pid;
	w->ticks = ticks;
	w->seen = true;
	if (pct < 1.0)
		return;
	if (w->id < 0) {
		w->id = smp->ntask++;
		iogap_cpuload_write_task(smp->f, w->id, pid, tid, role_of(proc, comm, pid == tid),
					 comm);
	}
	iogap_cpuload_write_use(smp->f, w->id, pct > 100 ? 100.0 : pct);
}

static void sample_processes(struct iogap_cpuload_sampler *smp, double secs, bool first)
{
	DIR *proc = opendir("/proc");
	struct dirent *de;

	while (proc && (de = readdir(proc))) {
		char path[64], comm[64];
		int pid = atoi(de->d_name), ppid;
		unsigned long long ticks;
		DIR *tasks;
		struct dirent *te;

		if (pid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/stat", pid);
		if (read_task_stat(path, comm, sizeof(comm), &ppid, &ticks) ||
		    !watch_process(smp, comm, ppid))
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task", pid);
		tasks = opendir(path);
		while (tasks && (te = readdir(tasks)))
			if (atoi(te->d_name) > 0)
				sample_thread(smp, pid, atoi(te->d_name), comm, secs, first);
		if (tasks)
			closedir(tasks);
	}
	if (proc)
		closedir(proc);
}

/* Wait up to 1 s; true when asked to stop. */
static bool wait_second(struct iogap_cpuload_sampler *smp)
{
	struct timespec ts;
	bool stop;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec++;
	pthread_mutex_lock(&smp->lock);
	while (!smp->stop && pthread_cond_timedwait(&smp->cond, &smp->lock, &ts) != ETIMEDOUT)
		;
	stop = smp->stop;
	pthread_mutex_unlock(&smp->lock);
	return stop;
}

static void *sampler_main(void *arg)
{
	struct iogap_cpuload_sampler *smp = arg;
	uint64_t t_prev = iogap_now_ns();
	unsigned ncpu;
	bool stop = false;

	sample_processes(smp, 1, true);
	while (!stop) {
		unsigned long long busy, total;
		uint64_t t;

		stop = wait_second(smp);
		t = iogap_now_ns();
		if (read_proc_stat(&busy, &total, &ncpu) || total <= smp->total)
			continue;
		iogap_cpuload_write_sec(smp->f, t_prev, t,
					100.0 * (double)(busy - smp->busy) / (double)(total - smp->total));
		sample_processes(smp, (double)(t - t_prev) / 1e9, false);
		fflush(smp->f);
		smp->busy = busy;
		smp->total = total;
		t_prev = t;
	}
	return NULL;
}

struct iogap_cpuload_sampler *iogap_cpuload_start(const char *path, char *err, size_t errlen)
{
	struct iogap_cpuload_sampler *smp = calloc(1, sizeof(*smp));
	unsigned ncpu;

	if (!smp || !(smp->f = fopen(path, "w"))) {
		iogap_seterr(err, errlen, "%s: %s", path, strerror(errno));
		free(smp);
		return NULL;
	}
	smp->hz = sysconf(_SC_CLK_TCK);
	smp->self = getpid();
	pthread_mutex_init(&smp->lock, NULL);
	pthread_cond_init(&smp->cond, NULL);
	if (read_proc_stat(&smp->busy, &smp->total, &ncpu) || smp->hz <= 0)
		goto fail;
	iogap_cpuload_write_header(smp->f, ncpu);
	if (pthread_create(&smp->thread, NULL, sampler_main, smp))
		goto fail;
	return smp;
fail:
	iogap_seterr(err, errlen, "cannot sample the host's CPU use (/proc/stat)");
	fclose(smp->f);
	free(smp);
	return NULL;
}

void iogap_cpuload_stop(struct iogap_cpuload_sampler *smp)
{
	if (!smp)
		return;
	pthread_mutex_lock(&smp->lock);
	smp->stop = true;
	pthread_cond_signal(&smp->cond);
	pthread_mutex_unlock(&smp->lock);
	pthread_join(smp->thread, NULL);
	fclose(smp->f);
	free(smp->w);
	free(smp);
}
