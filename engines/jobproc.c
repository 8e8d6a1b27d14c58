/* SPDX-License-Identifier: MIT */
/*
 * fio's options on how a job runs as a process (nice, uid, gid, cgroup,
 * lockmem, exec_prerun/postrun, mem), treats its files (fadvise_hint,
 * write_hint, pre_read, fsync_on_close, unlink_each_loop, overwrite,
 * atomic, opendir, ioscheduler, allow_mounted_write) and paces and checks
 * its I/O (ba, offset_align, serialize_overlap, max_latency,
 * thinktime_iotime, rate_ignore_thinktime): fio 3.33's names, syntax and
 * defaults (its options.c).  guest-probe/procopts.c and the runner act
 * on them.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "job.h"
#include "util.h"

void iogap_job_proc_defaults(struct iogap_job_proc *p)
{
	memset(p, 0, sizeof(*p));
	p->fadvise = IOGAP_FADV_TYPE;
	p->hugepage_size = 4u << 20;     /* fio's FIO_HUGE_PAGE */
	p->uid = p->gid = -1;
	p->write_hint = -1;
	p->unique_filename = true;
	p->kb_base = 1024;
	p->gtod_cpu = -1;
}

static int parse_int(const char *val, long long lo, long long hi, long long *out)
{
	char *end;

	if (!val || !*val)
		return -1;
	errno = 0;
	*out = strtoll(val, &end, 0);
	return errno || *end || *out < lo || *out > hi ? -1 : 0;
}

/* One of names (NULL-terminated): its index, or -1. */
static int pick(const char *val, const char *const *names)
{
	for (int i = 0; val && names[i]; i++)
		if (!strcmp(val, names[i]))
			return i;
	return -1;
}

/* fio's str_opendir_cb (add_dir_files): every regular file under dir,
 * recursively, joins the job's files (filename's ':' list, '\:' escaped). */
static int add_dir(char **list, const char *dir, unsigned depth, char *why, size_t whylen)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int r = 0;

	if (!d)
		return iogap_seterr(why, whylen, "%s: %s", dir, strerror(errno));
	if (depth > 64) {
		closedir(d);
		return iogap_seterr(why, whylen, "%s: directories nested more than 64 deep", dir);
	}
	while (!r && (e = readdir(d)) != NULL) {
		char path[PATH_MAX], esc[2 * PATH_MAX], *n;
		struct stat st;
		size_t k = 0, len;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) >= sizeof(path) ||
		    lstat(path, &st))
			continue;
		if (S_ISDIR(st.st_mode)) {
			r = add_dir(list, path, depth + 1, why, whylen);
			continue;
		}
		if (!S_ISREG(st.st_mode))
			continue;
		for (const char *p = path; *p; p++) {
			if (*p == ':')
				esc[k++] = '\\';
			esc[k++] = *p;
		}
		esc[k] = '\0';
		len = (*list ? strlen(*list) + 1 : 0) + k + 1;
		if (!(n = malloc(len))) {
			r = iogap_seterr(why, whylen, "out of memory");
			break;
		}
		snprintf(n, len, "%s%s%s", *list ? *list : "", *list ? ":" : "", esc);
		free(*list);
		*list = n;
	}
	closedir(d);
	return r;
}

static int opt_opendir(struct iogap_job *j, const char *val, char *why, size_t whylen)
{
	char *before = j->filename;

	if (add_dir(&j->filename, val, 0, why, whylen))
		return -1;
	if (j->filename == before)
		return iogap_seterr(why, whylen, "no regular file under %s", val);
	return 0;
}

/* mem=malloc|shm|shmhuge|mmap[:file]|mmaphuge[:file]|mmapshared[:file]
 * (fio's str_mem_cb: the file after ':' backs the mmap kinds) */
static int opt_mem(struct iogap_job_proc *p, const char *val, char *why, size_t whylen)
{
	static const char *const names[] = { "malloc", "shm", "shmhuge", "mmap", "mmaphuge",
					     "mmapshared", NULL };
	char type[32];
	const char *colon = strchr(val, ':');
	int t;

	snprintf(type, sizeof(type), "%.*s", colon ? (int)(colon - val) : (int)strlen(val), val);
	if (!strcmp(type, "cudamalloc"))
		return iogap_seterr(why, whylen, "cudamalloc is GPU memory of fio's CUDA builds "
				    "(GPUDirect RDMA), which iogap-probe does not have");
	t = pick(type, names);
	if (t < 0)
		return iogap_seterr(why, whylen, "expected malloc, shm, shmhuge, mmap[:file], "
				    "mmaphuge[:file] or mmapshared[:file]");
	if (colon && t < IOGAP_MEM_MMAP)
		return iogap_seterr(why, whylen, "only mmap, mmaphuge and mmapshared take a :file");
	if (colon && !colon[1])
		return iogap_seterr(why, whylen, "a file name after ':'");
	p->mem = (enum iogap_mem_type)t;
	if (!colon) {
		free(p->mem_path);
		p->mem_path = NULL;
		return 0;
	}
	return iogap_set_str(&p->mem_path, colon + 1) ? iogap_seterr(why, whylen, "out of memory") : 0;
}

/* max_latency=T[,T[,T]]: per direction, plain numbers in microseconds */
static int opt_max_latency(struct iogap_job_proc *p, const char *val, char *why, size_t whylen)
{
	char buf[128], *save = NULL, *tok;
	int n = 0;

	snprintf(buf, sizeof(buf), "%s", val);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (n == IOGAP_DDIR_NR || iogap_parse_time_ns(tok, 1000, &p->max_latency_ns[n++]))
			return iogap_seterr(why, whylen, "expected a time such as 500 (us), 10ms, or "
					    "read,write,trim times");
	}
	if (!n)
		return iogap_seterr(why, whylen, "expected a time");
	for (int d = n; d < IOGAP_DDIR_NR; d++)
		p->max_latency_ns[d] = p->max_latency_ns[n - 1];
	return 0;
}

static bool *bool_field(struct iogap_job_proc *p, const char *key)
{
	static const struct { const char *name; size_t off; } flags[] = {
		{ "cgroup_nodelete", offsetof(struct iogap_job_proc, cgroup_nodelete) },
		{ "atomic", offsetof(struct iogap_job_proc, atomic) },
		{ "overwrite", offsetof(struct iogap_job_proc, overwrite) },
		{ "pre_read", offsetof(struct iogap_job_proc, pre_read) },
		{ "fsync_on_close", offsetof(struct iogap_job_proc, fsync_on_close) },
		{ "unlink_each_loop", offsetof(struct iogap_job_proc, unlink_each_loop) },
		{ "allow_mounted_write", offsetof(struct iogap_job_proc, allow_mounted_write) },
		{ "serialize_overlap", offsetof(struct iogap_job_proc, serialize_overlap) },
		{ "allrandrepeat", offsetof(struct iogap_job_proc, allrandrepeat) },
		{ "unique_filename", offsetof(struct iogap_job_proc, unique_filename) },
		{ "rate_ignore_thinktime", offsetof(struct iogap_job_proc, rate_ignore_thinktime) },
	};

	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		if (!strcmp(key, flags[i].name))
			return (bool *)((char *)p + flags[i].off);
	return NULL;
}

static char **str_field(struct iogap_job_proc *p, const char *key)
{
	return !strcmp(key, "exec_prerun") ? &p->exec_prerun :
	       !strcmp(key, "exec_postrun") ? &p->exec_postrun :
	       !strcmp(key, "ioscheduler") ? &p->ioscheduler :
	       !strcmp(key, "cgroup") ? &p->cgroup : NULL;
}

/* lockmem, hugepage-size, offset_align: sizes; nice, uid, gid,
 * cgroup_weight, write_barrier, gtod_cpu: integers in fio's ranges */
static int opt_number(struct iogap_job_proc *p, const char *key, const char *val, char *why,
		      size_t whylen)
{
	uint64_t *size = !strcmp(key, "lockmem") ? &p->lockmem :
			 !strcmp(key, "hugepage-size") ? &p->hugepage_size :
			 !strcmp(key, "offset_align") ? &p->offset_align : NULL;
	long long v;

	if (size)
		return iogap_parse_size(val, size) || (size == &p->hugepage_size && !*size) ?
			iogap_seterr(why, whylen, "expected a size such as 2m") : 0;
	if (!strcmp(key, "nice")) {
		if (parse_int(val, -20, 19, &v))
			return iogap_seterr(why, whylen, "expected a nice value from -20 to 19");
		p->nice = (int)v;
	} else if (!strcmp(key, "uid") || !strcmp(key, "gid")) {
		if (parse_int(val, 0, UINT32_MAX - 1, &v))
			return iogap_seterr(why, whylen, "expected a numeric %s", key);
		*(key[0] == 'u' ? &p->uid : &p->gid) = v;
	} else if (!strcmp(key, "cgroup_weight")) {
		if (parse_int(val, 100, 1000, &v))   /* fio's range */
			return iogap_seterr(why, whylen, "expected a weight from 100 to 1000");
		p->cgroup_weight = (unsigned)v;
	} else if (!strcmp(key, "gtod_cpu")) {
		if (parse_int(val, 0, IOGAP_MAX_CPUS - 1, &v))
			return iogap_seterr(why, whylen, "expected a CPU number below %d", IOGAP_MAX_CPUS);
		p->gtod_cpu = (int)v;
	} else if (!strcmp(key, "log_compression_cpus")) {
		if (iogap_parse_cpu_list(val, p->log_gz_cpus, IOGAP_MAX_CPUS))
			return iogap_seterr(why, whylen, "expected a CPU list such as 0-3,6");
		p->log_gz_cpus_set = true;
	} else if (!strcmp(key, "write_barrier")) {
		if (parse_int(val, 0, UINT32_MAX, &v))
			return iogap_seterr(why, whylen, "expected a number of writes");
		p->write_barrier = (unsigned)v;
	} else {
		return 1;
	}
	return 0;
}

static int opt_named(struct iogap_job_proc *p, const char *key, const char *val, char *why,
		     size_t whylen)
{
	static const char *const locks[] = { "none", "exclusive", "readwrite", NULL };
	/* fio 3.33's values; "noreuse" came in a later fio */
	static const char *const fadv[] = { "0", "1", "random", "sequential", NULL };
	static const char *const hints[] = { "none", "short", "medium", "long", "extreme", NULL };
	static const char *const units[] = { "0", "8", "1", NULL };
	int i;

	if (!strcmp(key, "kb_base")) {
		static const char *const bases[] = { "1024", "1000", NULL };
		unsigned b;

		if ((i = pick(val, bases)) < 0)
			return iogap_seterr(why, whylen, "expected 1024 or 1000");
		b = i ? 1000 : 1024;
		if (p->sizes_seen && b != p->kb_base)   /* fio parses it before the others */
			return iogap_seterr(why, whylen, "it changes sizes given before it (fio applies "
					    "it to its whole section): give kb_base first");
		p->kb_base = b;
		return 0;
	}
	if (!strcmp(key, "unit_base")) {
		if ((i = pick(val, units)) < 0)
			return iogap_seterr(why, whylen, "expected 0 (auto), 8 (bytes) or 1 (bits)");
		p->unit_base = (unsigned)atoi(val);
		return 0;
	}
	if (!strcmp(key, "lockfile")) {
		if ((i = pick(val, locks)) < 0)
			return iogap_seterr(why, whylen, "expected none, exclusive or readwrite");
		p->lockfile = (enum iogap_file_lock)i;
	} else if (!strcmp(key, "fadvise_hint")) {
		if ((i = pick(val, fadv)) < 0)
			return iogap_seterr(why, whylen, "expected 0, 1, random or sequential "
					    "(fio 3.33's values)");
		p->fadvise = (enum iogap_fadvise)i;
	} else if (!strcmp(key, "write_hint")) {
		if ((i = pick(val, hints)) < 0)
			return iogap_seterr(why, whylen, "expected none, short, medium, long or extreme");
		p->write_hint = i + 1;   /* RWH_WRITE_LIFE_NONE is 1 */
	} else {
		return 1;
	}
	return 0;
}

static bool is_proc_option(const char *key)
{
	static const char *const keys[] = {
		"opendir", "mem", "iomem", "max_latency", "thinktime_iotime",
		"lockmem", "hugepage-size", "offset_align", "nice", "uid", "gid", "cgroup_weight",
		"write_barrier", "gtod_cpu", "log_compression_cpus", "lockfile", "fadvise_hint", "write_hint", "kb_base", "unit_base", NULL,
	};

	return pick(key, keys) >= 0;
}

int iogap_job_proc_option(struct iogap_job *j, const char *key, const char *val,
			  char *why, size_t whylen)
{
	struct iogap_job_proc *p = &j->proc;
	bool *flag = bool_field(p, key);
	char **str = str_field(p, key);
	int r;

	if (flag)
		return iogap_parse_bool(val, flag) ? iogap_seterr(why, whylen, "expected 0 or 1") : 0;
	/* fio keeps a job's profile= (any name) and never reads it: the
	 * command line's --profile runs one (guest-probe/profile.c) */
	if (!strcmp(key, "profile"))
		return val && *val ? 0 : iogap_seterr(why, whylen, "a profile name is needed");
	if (!str && !is_proc_option(key))
		return 1;
	if (!val || !*val)
		return iogap_seterr(why, whylen, "a value is needed");
	if (str)
		return iogap_set_str(str, val) ? iogap_seterr(why, whylen, "out of memory") : 0;
	if (!strcmp(key, "opendir"))
		return opt_opendir(j, val, why, whylen);
	if (!strcmp(key, "mem") || !strcmp(key, "iomem"))
		return opt_mem(p, val, why, whylen);
	if (!strcmp(key, "max_latency"))
		return opt_max_latency(p, val, why, whylen);
	if (!strcmp(key, "thinktime_iotime"))   /* fio: plain numbers are seconds */
		return iogap_parse_time_ns(val, 1000000000ULL, &p->thinktime_iotime_ns) ?
			iogap_seterr(why, whylen, "expected a time such as 1, 500ms") : 0;
	if ((r = opt_number(p, key, val, why, whylen)) != 1)
		return r;
	return opt_named(p, key, val, why, whylen);
}

int iogap_job_proc_copy(struct iogap_job_proc *dst, const struct iogap_job_proc *src)
{
	char **d[] = { &dst->exec_prerun, &dst->exec_postrun, &dst->ioscheduler, &dst->cgroup,
		       &dst->mem_path };
	int r = 0;

	*dst = *src;
	for (size_t i = 0; i < sizeof(d) / sizeof(d[0]); i++)
		if (*d[i] && !(*d[i] = strdup(*d[i])))
			r = -1;
	return r;
}

void iogap_job_proc_free(struct iogap_job_proc *p)
{
	free(p->exec_prerun);
	free(p->exec_postrun);
	free(p->ioscheduler);
	free(p->cgroup);
	free(p->mem_path);
}

void iogap_job_proc_finalize(struct iogap_job *j)
{
	struct iogap_job_proc *p = &j->proc;

	if (p->atomic)
		j->direct = true;
	if (p->pre_read)
		j->invalidate = false;
	for (size_t i = 0; i < j->kv_nr; i++)
		p->thinktime_blocks_set |= !strcmp(j->kv[i].key, "thinktime_blocks");
}
