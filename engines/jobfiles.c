/* SPDX-License-Identifier: MIT */
/*
 * A job's files, as fio names and shares them (its options.c, init.c and
 * filesetup.c): filename=a:b:c ("\:" keeps a colon), directory=d1:d2 (the
 * clones' default names go round robin over them, named files into the
 * first), filename_format's $jobname.$jobnum.$filenum, nrfiles, filesize,
 * openfiles and file_service_type.  The runner sizes, lays out and serves
 * them (guest-probe/fileset.c).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job.h"
#include "util.h"

/* fio's get_next_str: the next ':'-separated name of *s (advanced past
 * it), "\:" unescaped to ':', leading colons skipped; NULL at the end. */
static char *next_name(char **s)
{
	char *start = *s, *p;

	if (!start || !*start)
		return NULL;
	while (*start == ':')
		start++;
	for (p = start; *p; p++) {
		if (*p == '\\' && p[1] == ':') {
			memmove(p, p + 1, strlen(p));
			continue;
		}
		if (*p == ':') {
			*p = '\0';
			*s = p + 1;
			return start;
		}
	}
	*s = NULL;
	return *start ? start : NULL;
}

char **iogap_split_names(const char *list, char **copy, unsigned *nr)
{
	char *s, **names, *n;
	size_t cap = 1;

	for (const char *p = list; *p; p++)
		cap += *p == ':';
	*copy = s = strdup(list);
	names = calloc(cap + 1, sizeof(*names));
	if (!s || !names) {
		free(s);
		free(names);
		return NULL;
	}
	*nr = 0;
	while ((n = next_name(&s)) != NULL)
		names[(*nr)++] = n;
	return names;
}

static int parse_count(const char *val, unsigned *out)
{
	char *end;
	unsigned long v;

	if (!val || !isdigit((unsigned char)*val))
		return -1;
	errno = 0;
	v = strtoul(val, &end, 10);
	if (errno || *end || v > 1u << 20)
		return -1;
	*out = (unsigned)v;
	return 0;
}

/* filesize=N or a range N-M (fio's low and high; a random size between) */
static int opt_filesize(struct iogap_job *j, const char *val, char *why, size_t whylen)
{
	char buf[64], *dash;

	snprintf(buf, sizeof(buf), "%s", val);
	dash = strpbrk(buf, "-:");
	if (dash)
		*dash = '\0';
	if (iogap_parse_size(buf, &j->filesize_low) || !j->filesize_low ||
	    iogap_parse_size(dash ? dash + 1 : buf, &j->filesize_high) ||
	    j->filesize_high < j->filesize_low)
		return iogap_seterr(why, whylen, "expected a size or a range low-high, low > 0");
	return 0;
}

/* file_service_type=random|roundrobin|sequential[:N] (N I/Os per file
 * before switching) or zipf|pareto|normal|gauss[:value[:center]] (fio's
 * defaults: theta 1.1, h 0.2, deviation 0; no center) */
static int opt_file_service(struct iogap_job *j, const char *val, char *why, size_t whylen)
{
	static const struct { const char *name; unsigned type; double def; } types[] = {
		{ "random", IOGAP_FSERVICE_RANDOM, 0 },
		{ "roundrobin", IOGAP_FSERVICE_ROUNDROBIN, 0 },
		{ "sequential", IOGAP_FSERVICE_SEQUENTIAL, 0 },
		{ "zipf", IOGAP_FSERVICE_ZIPF, 1.1 },
		{ "pareto", IOGAP_FSERVICE_PARETO, 0.2 },
		{ "normal", IOGAP_FSERVICE_GAUSS, 0 },
		{ "gauss", IOGAP_FSERVICE_GAUSS, 0 },
	};
	const char *post = strchr(val, ':');
	size_t len = post ? (size_t)(post - val) : strlen(val);

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		double p = types[i].def;
		char *end;

		if (strlen(types[i].name) != len || strncmp(val, types[i].name, len))
			continue;
		j->file_service = types[i].type;
		j->file_service_nr = 1;
		if (types[i].type <= IOGAP_FSERVICE_SEQUENTIAL) {
			if (post && (parse_count(post + 1, &j->file_service_nr) || !j->file_service_nr))
				return iogap_seterr(why, whylen, "the :N after %s is a number of I/Os, "
						    "at least 1", types[i].name);
			return 0;
		}
		j->file_service_center = -1;
		if (post && (p = strtod(post + 1, &end), end == post + 1 || (*end && *end != ':')))
			return iogap_seterr(why, whylen, "the value after %s: is a number", types[i].name);
		if (post && *end == ':') {   /* fio's center of the distribution */
			const char *c = end + 1;

			j->file_service_center = strtod(c, &end);
			if (end == c || *end || j->file_service_center < 0.0 ||
			    j->file_service_center > 1.0)
				return iogap_seterr(why, whylen, "the center after %s:value: is "
						    "between 0 and 1", types[i].name);
		}
		if ((types[i].type == IOGAP_FSERVICE_ZIPF && (p <= 0.0 || p == 1.0)) ||
		    (types[i].type == IOGAP_FSERVICE_PARETO && (p <= 0.0 || p >= 1.0)) ||
		    (types[i].type == IOGAP_FSERVICE_GAUSS && (p < 0.0 || p >= 100.0)))
			return iogap_seterr(why, whylen, "fio's ranges: zipf theta > 0 and not 1, "
					    "0 < pareto h < 1, 0 <= normal deviation < 100");
		j->file_service_param = p;
		return 0;
	}
	return iogap_seterr(why, whylen, "expected random, roundrobin or sequential with an "
			    "optional :N, or zipf, pareto, normal or gauss with an optional :value");
}

/* fallocate: how fio reserves a file it does not write out (a write-only
 * job's new file, guest-probe/runner.c's start_empty); a file written out
 * gets real data whatever the mode (a reserved file reads back zeros
 * without touching the device) */
static int opt_fallocate(struct iogap_job *j, const char *val, char *why, size_t whylen)
{
	static const struct { const char *name; enum iogap_fallocate mode; } modes[] = {
		{ "none", IOGAP_FALLOC_NONE }, { "native", IOGAP_FALLOC_NATIVE },
		{ "posix", IOGAP_FALLOC_POSIX }, { "keep", IOGAP_FALLOC_KEEP },
		{ "truncate", IOGAP_FALLOC_TRUNCATE }, { "0", IOGAP_FALLOC_NONE },
		{ "1", IOGAP_FALLOC_POSIX },
	};

	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		if (!strcmp(val, modes[i].name)) {
			j->proc.fallocate = modes[i].mode;
			return 0;
		}
	}
	return iogap_seterr(why, whylen, "expected none, native, posix, keep, truncate, 0 or 1");
}

static int set_bool(bool *dst, const char *val)
{
	if (!val || !strcmp(val, "1") || !strcmp(val, "true") || !strcmp(val, "on")) {
		*dst = true;
		return 0;
	}
	if (!strcmp(val, "0") || !strcmp(val, "false") || !strcmp(val, "off")) {
		*dst = false;
		return 0;
	}
	return -1;
}

static int opt_filename_format(struct iogap_job *j, const char *val, char *why, size_t whylen)
{
	for (const char *p = strchr(val, '$'); p; p = strchr(p + 1, '$'))
		if (strncmp(p, "$jobname", 8) && strncmp(p, "$jobnum", 7) && strncmp(p, "$filenum", 8))
			return iogap_seterr(why, whylen, "only $jobname, $jobnum and $filenum are supported");
	return iogap_set_str(&j->filename_format, val) ? iogap_seterr(why, whylen, "out of memory") : 0;
}

int iogap_job_file_option(struct iogap_job *j, const char *key, const char *val,
			  char *why, size_t whylen)
{
	bool *flag = !strcmp(key, "create_serialize") ? &j->create_serialize :
		     !strcmp(key, "create_fsync") ? &j->create_fsync :
		     !strcmp(key, "create_only") ? &j->create_only : NULL;

	if (flag)
		return set_bool(flag, val) ? iogap_seterr(why, whylen, "expected 0 or 1") : 0;
	if (!strcmp(key, "nr_files"))   /* fio's alias */
		key = "nrfiles";
	if (strcmp(key, "filename") && strcmp(key, "directory") && strcmp(key, "filename_format") &&
	    strcmp(key, "nrfiles") && strcmp(key, "filesize") && strcmp(key, "openfiles") &&
	    strcmp(key, "file_service_type") && strcmp(key, "fallocate"))
		return 1;
	if (!val || !*val)
		return iogap_seterr(why, whylen, "a value is needed");
	if (!strcmp(key, "filename") || !strcmp(key, "directory"))
		return iogap_set_str(!strcmp(key, "filename") ? &j->filename : &j->directory, val) ?
			iogap_seterr(why, whylen, "out of memory") : 0;
	if (!strcmp(key, "filename_format"))
		return opt_filename_format(j, val, why, whylen);
	if (!strcmp(key, "nrfiles") || !strcmp(key, "openfiles")) {
		unsigned *dst = !strcmp(key, "nrfiles") ? &j->nrfiles : &j->openfiles;

		if (parse_count(val, dst) || (!*dst && dst == &j->nrfiles))
			return iogap_seterr(why, whylen, "expected a number of files%s",
					    dst == &j->nrfiles ? ", at least 1" : "");
		return 0;
	}
	if (!strcmp(key, "filesize"))
		return opt_filesize(j, val, why, whylen);
	if (!strcmp(key, "file_service_type"))
		return opt_file_service(j, val, why, whylen);
	return opt_fallocate(j, val, why, whylen);
}

/* fio's make_filename: $jobname, $jobnum and $filenum of format */
static char *format_name(const struct iogap_job *j, const char *dir, unsigned jobnum,
			 unsigned filenum)
{
	const char *fmt = j->filename_format ? j->filename_format : "$jobname.$jobnum.$filenum";
	char num[2][16];
	/* no character of fmt expands to more than the job name or a number */
	size_t cap = (dir ? strlen(dir) + 1 : 0) + strlen(fmt) * (strlen(j->name) + 16) + 1;
	size_t o = 0;
	char *out = malloc(cap);

	if (!out)
		return NULL;
	snprintf(num[0], sizeof(num[0]), "%u", jobnum);
	snprintf(num[1], sizeof(num[1]), "%u", filenum);
	if (dir)
		o = (size_t)snprintf(out, cap, "%s/", dir);
	for (const char *p = fmt; *p;) {
		const char *rep = NULL;
		size_t skip = 1;

		if (!strncmp(p, "$jobname", 8))
			rep = j->name, skip = 8;
		else if (!strncmp(p, "$jobnum", 7))
			rep = num[0], skip = 7;
		else if (!strncmp(p, "$filenum", 8))
			rep = num[1], skip = 8;
		if (rep) {
			o += (size_t)snprintf(out + o, cap - o, "%s", rep);
			p += skip;
		} else {
			out[o++] = *p++;
		}
	}
	out[o] = '\0';
	return out;
}

static char *join_dir(const char *dir, const char *name)
{
	size_t n = (dir ? strlen(dir) + 1 : 0) + strlen(name) + 1;
	char *out = malloc(n);

	if (out)
		snprintf(out, n, "%s%s%s", dir ? dir : "", dir ? "/" : "", name);
	return out;
}

/* filename=a:b: the names, shared by the clones, in the first directory
 * (fio adds them while parsing, as job number 0) */
static int named_files(struct iogap_job *j, char **dirs)
{
	char *copy, **names;
	unsigned nr = 0;

	if (!strncmp(j->filename, "rbd:", 4) && !strcmp(j->ioengine, "rbd"))
		nr = 1, copy = NULL, names = NULL;   /* the image's name, not a list */
	else if (!(names = iogap_split_names(j->filename, &copy, &nr)))
		return -1;
	if (!nr) {
		free(copy);
		free(names);
		return 1;
	}
	j->files = calloc(nr, sizeof(*j->files));
	j->files_nr = j->files ? nr : 0;
	for (unsigned k = 0; j->files && k < nr; k++)
		if (!(j->files[k] = join_dir(dirs ? dirs[0] : NULL, names ? names[k] : j->filename)))
			break;
	j->nrfiles = nr;
	j->files_per_clone = false;
	free(copy);
	free(names);
	return j->files && j->files[nr - 1] ? 0 : -1;
}

/* fio's add_job without filename: nrfiles names per clone from
 * filename_format, clone c's in directory c % ndirs; the clones have
 * files of their own when the names or the directories differ
 * (zonemode=zbd keeps one set: its zone state is per file) */
static int default_files(struct iogap_job *j, char **dirs, unsigned ndirs)
{
	const char *fmt = j->filename_format ? j->filename_format : "$jobname.$jobnum.$filenum";
	bool per_clone = j->numjobs > 1 && (strstr(fmt, "$jobnum") || ndirs > 1) &&
			 j->zone_mode != IOGAP_ZONE_MODE_ZBD;
	unsigned clones = per_clone ? j->numjobs : 1;

	j->files = calloc((size_t)clones * j->nrfiles, sizeof(*j->files));
	if (!j->files)
		return -1;
	j->files_nr = clones * j->nrfiles;
	j->files_per_clone = per_clone;
	for (unsigned c = 0; c < clones; c++)
		for (unsigned k = 0; k < j->nrfiles; k++)
			if (!(j->files[c * j->nrfiles + k] =
			      format_name(j, dirs ? dirs[c % ndirs] : NULL, c, k)))
				return -1;
	return 0;
}

int iogap_job_files_finalize(struct iogap_job *j, char *err, size_t errlen)
{
	char *dcopy = NULL, **dirs = NULL;
	unsigned ndirs = 0;
	int r;

	if (j->files)
		return 0;
	if (!j->nrfiles)
		j->nrfiles = 1;
	if (j->directory && !(dirs = iogap_split_names(j->directory, &dcopy, &ndirs)))
		return iogap_seterr(err, errlen, "out of memory");
	if (j->directory && !ndirs) {   /* "directory=:" names none */
		free(dcopy);
		free(dirs);
		dcopy = NULL;
		dirs = NULL;
	}
	r = j->filename ? named_files(j, dirs) : default_files(j, dirs, ndirs);
	free(dcopy);
	free(dirs);
	if (r > 0)
		return iogap_seterr(err, errlen, "job '%s': filename '%s' names no file", j->name,
				    j->filename);
	if (r < 0 || !j->files)
		return iogap_seterr(err, errlen, "out of memory");
	free(j->filename);
	j->filename = strdup(j->files[0]);
	free(j->directory);   /* applied: the names carry it */
	j->directory = NULL;
	if (!j->filename)
		return iogap_seterr(err, errlen, "out of memory");
	if (!j->openfiles || j->openfiles > j->nrfiles)   /* fio's fixup_options */
		j->openfiles = j->nrfiles;
	if (j->nrfiles > 1 && j->zone_mode == IOGAP_ZONE_MODE_ZBD)
		return iogap_seterr(err, errlen, "job '%s': zonemode=zbd works on one file per job "
				    "in iogap-probe (nrfiles=%u)", j->name, j->nrfiles);
	return 0;
}

int iogap_job_files_copy(struct iogap_job *dst, const struct iogap_job *src)
{
	unsigned n = src->files ? src->files_nr : 0;

	dst->files = NULL;
	dst->file_sizes = NULL;
	if (!n)
		return 0;
	dst->files = calloc(n, sizeof(*dst->files));
	if (!dst->files)
		return -1;
	for (unsigned i = 0; i < n; i++)
		if (!(dst->files[i] = strdup(src->files[i])))
			return -1;
	if (src->file_sizes) {
		dst->file_sizes = malloc(n * sizeof(*dst->file_sizes));
		if (!dst->file_sizes)
			return -1;
		memcpy(dst->file_sizes, src->file_sizes, n * sizeof(*dst->file_sizes));
	}
	return 0;
}

void iogap_job_files_free(struct iogap_job *j)
{
	for (unsigned i = 0; j->files && i < j->files_nr; i++)
		free(j->files[i]);
	free(j->files);
	free(j->file_sizes);
	j->files = NULL;
	j->file_sizes = NULL;
	j->files_nr = 0;
}
