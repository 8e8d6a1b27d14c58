/* SPDX-License-Identifier: MIT */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "stamp.h"
#include "util.h"

char *iogap_read_file(const char *path, size_t max, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0, got;

	if (!f)
		return NULL;
	do {
		if (n + 65536 > cap) {
			char *b;

			if (max && cap > max) {
				free(buf);
				fclose(f);
				errno = EFBIG;
				return NULL;
			}
			b = realloc(buf, cap = cap * 2 + 65536);
			if (!b) {
				free(buf);
				fclose(f);
				errno = ENOMEM;
				return NULL;
			}
			buf = b;
		}
		got = fread(buf + n, 1, cap - n - 1, f);
		n += got;
	} while (got);
	if (ferror(f) || (max && n > max)) {
		int e = ferror(f) ? EIO : EFBIG;

		free(buf);
		fclose(f);
		errno = e;
		return NULL;
	}
	fclose(f);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

void *iogap_grow_zeroed(void *arr, size_t *cap, size_t elem, size_t i)
{
	size_t n = *cap ? *cap : 16;
	char *a;

	if (i < *cap)
		return arr;
	while (n <= i)
		n *= 2;
	a = realloc(arr, n * elem);
	if (!a)
		return NULL;
	memset(a + *cap * elem, 0, (n - *cap) * elem);
	*cap = n;
	return a;
}

int iogap_copy_file(const char *from, const char *to, char *err, size_t errlen)
{
	size_t len;
	char *data = iogap_read_file(from, 0, &len);
	FILE *f;
	int r;

	if (!data)
		return iogap_seterr(err, errlen, "%s: %s", from, strerror(errno));
	f = fopen(to, "w");
	r = f && fwrite(data, 1, len, f) == len ? 0 : -1;
	if (f && fclose(f))
		r = -1;
	free(data);
	return r ? iogap_seterr(err, errlen, "%s: %s", to, strerror(errno ? errno : EIO)) : 0;
}

int iogap_seterr(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

uint64_t iogap_now_ns(void)
{
	/* a thread's stamps never go back: a TSC stamp may come out a few ns
	 * early across a re-anchoring (stamp.h), and a record's issue and
	 * completion must not precede its start */
	static __thread uint64_t last;
	static __thread struct iogap_stamp_segment seg;   /* this thread's copy of the map */
	uint64_t t = iogap_stamp_ns_cached(&seg);

	if (__builtin_expect(t < last, 0))
		return last;
	last = t;
	return t;
}

void iogap_sleep_until_ns(uint64_t t)
{
	struct timespec ts = { .tv_sec = (time_t)(t / 1000000000ULL),
			       .tv_nsec = (long)(t % 1000000000ULL) };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/* *dst becomes a copy of val (the old one freed); 0, or -1 out of memory */
int iogap_set_str(char **dst, const char *val)
{
	char *d = strdup(val);

	if (!d)
		return -1;
	free(*dst);
	*dst = d;
	return 0;
}

int iogap_parse_bool(const char *s, bool *out)
{
	if (!s || !strcmp(s, "1") || !strcasecmp(s, "true") || !strcasecmp(s, "on") ||
	    !strcasecmp(s, "yes")) {
		*out = true;
		return 0;
	}
	if (!strcmp(s, "0") || !strcasecmp(s, "false") || !strcasecmp(s, "off") ||
	    !strcasecmp(s, "no")) {
		*out = false;
		return 0;
	}
	return -1;
}

int iogap_parse_cpu_list(const char *val, unsigned char *mask, unsigned max_cpus)
{
	char buf[512], *save = NULL, *tok;

	memset(mask, 0, max_cpus / 8);
	if (snprintf(buf, sizeof(buf), "%s", val) >= (int)sizeof(buf))
		return -1;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *dash = strchr(tok, '-'), *end;
		unsigned long lo, hi;

		if (dash)
			*dash = '\0';
		errno = 0;
		lo = strtoul(tok, &end, 10);
		if (end == tok || *end || errno || lo >= max_cpus)
			return -1;
		hi = lo;
		if (dash) {
			hi = strtoul(dash + 1, &end, 10);
			if (end == dash + 1 || *end || errno || hi >= max_cpus || hi < lo)
				return -1;
		}
		for (unsigned long cpu = lo; cpu <= hi; cpu++)
			mask[cpu / 8] |= (unsigned char)(1u << (cpu % 8));
	}
	return 0;
}

/* One /proc/PID/task/TID file, its lines indented, or why it cannot be read. */
static void snapshot_file(FILE *out, const char *task, const char *name)
{
	char path[384], *text, *save = NULL;

	snprintf(path, sizeof(path), "%s/%s", task, name);
	text = iogap_read_file(path, 1 << 16, NULL);
	fprintf(out, "  %s:\n", name);
	if (!text) {
		fprintf(out, "    (%s)\n", strerror(errno));
		return;
	}
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		fprintf(out, "    %s\n", line);
	free(text);
}

/* "inflight DISK READS WRITES" for each block device whose driver has requests
 * it issued and has not seen completed: a process waiting for I/O past its
 * limit with these non-zero waits on the device (in a guest: on QEMU). */
static void snapshot_inflight(FILE *out)
{
	char path[300];
	struct dirent *e;
	DIR *d = opendir("/sys/block");

	if (!d)
		return;
	while ((e = readdir(d))) {
		unsigned long long reads, writes;
		FILE *f;
		int n;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/block/%s/inflight", e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		n = fscanf(f, "%llu %llu", &reads, &writes);
		fclose(f);
		if (n == 2 && reads + writes)
			fprintf(out, "inflight %s %llu %llu\n", e->d_name, reads, writes);
	}
	closedir(d);
}

int iogap_snapshot_threads(pid_t pid, const char *path)
{
	char dir[64], task[384];
	struct dirent *e;
	FILE *out;
	DIR *d;

	snprintf(dir, sizeof(dir), "/proc/%d/task", (int)pid);
	d = opendir(dir);
	if (!d)
		return -1;
	out = fopen(path, "w");
	if (!out) {
		closedir(d);
		return -1;
	}
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(task, sizeof(task), "%s/%s", dir, e->d_name);
		fprintf(out, "thread %s\n", e->d_name);
		snapshot_file(out, task, "comm");
		snapshot_file(out, task, "wchan");
		snapshot_file(out, task, "syscall");
		snapshot_file(out, task, "stack");
	}
	closedir(d);
	snapshot_inflight(out);
	return fclose(out) ? -1 : 0;
}
