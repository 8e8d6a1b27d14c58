/* SPDX-License-Identifier: MIT */
/*
 * fio job files: [sections], key=value, bare flags, ; and # comments,
 * ${VAR} from the environment, $ncpus/$pagesize/$mb_memory.  Every option
 * iogap does not implement is an error naming file:line and the option:
 * a benchmark that silently ignores half its job measures something else.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dedupe.h"
#include "engine.h"
#include "errors.h"
#include "iogap/trace.h"
#include "job.h"
#include "jobrand.h"
#include "numa.h"
#include "prio.h"
#include "util.h"
#include "zbd.h"
#include "debug.h"

struct parse_ctx {
	const char *file;
	int line;
	char *err;
	size_t errlen;
	FILE *showcmd;             /* --showcmd: echo sections and options here */
	bool shown_any;
};

static int perr(struct parse_ctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int perr(struct parse_ctx *c, const char *fmt, ...)
{
	va_list ap;
	int n = 0;

	if (c->file && c->line > 0)
		n = snprintf(c->err, c->errlen, "%s:%d: ", c->file, c->line);
	else if (c->file)
		n = snprintf(c->err, c->errlen, "%s: ", c->file);
	if (n < 0 || (size_t)n >= c->errlen)
		n = 0;
	va_start(ap, fmt);
	vsnprintf(c->err + n, c->errlen - n, fmt, ap);
	va_end(ap);
	return -1;
}

/* ---- value parsers ---------------------------------------------------- */

/* The job's kb_base while set_option parses one of its options (0
 * otherwise), and whether a size with a unit was read (kb_base may not
 * come after one). */
static unsigned size_kb_base;
static bool size_unit_seen;

/* Sizes: k/m/g/t/p with or without "i"/"b" are powers of 1024, except in
 * a job's options, which have fio's rule: powers of kb_base (1024 unless
 * the job says 1000), "kib" and the like of the other base (fio's
 * inversion: 4kib is 4000 bytes with the default kb_base). */
int iogap_parse_size(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;
	uint64_t mult = 1, base = size_kb_base ? size_kb_base : 1024;
	int pow = 0;

	while (isspace((unsigned char)*s))
		s++;
	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		v = strtoull(s, &end, 16);
	else
		v = strtoull(s, &end, 10);
	if (errno)
		return -1;
	switch (tolower((unsigned char)*end)) {
	case 'k': pow = 1; break;
	case 'm': pow = 2; break;
	case 'g': pow = 3; break;
	case 't': pow = 4; break;
	case 'p': pow = 5; break;
	default: break;
	}
	if (pow) {
		end++;
		if (size_kb_base && tolower((unsigned char)end[0]) == 'i' &&
		    tolower((unsigned char)end[1]) == 'b')
			base = base == 1000 ? 1024 : 1000;
		if (tolower((unsigned char)*end) == 'i')
			end++;
		if (tolower((unsigned char)*end) == 'b')
			end++;
		while (pow--)
			mult *= base;
		size_unit_seen = true;
	} else if (tolower((unsigned char)*end) == 'b') {
		end++;
	}
	while (isspace((unsigned char)*end))
		end++;
	if (*end)
		return -1;
	if (v > UINT64_MAX / mult)
		return -1;
	*out = v * mult;
	return 0;
}

/* fio's times: plain numbers are in default_unit_ns (seconds for runtime). */
int iogap_parse_time_ns(const char *s, uint64_t default_unit_ns, uint64_t *out)
{
	char *end;
	unsigned long long v;
	uint64_t mult = default_unit_ns;

	while (isspace((unsigned char)*s))
		s++;
	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -1;
	if (!strcasecmp(end, "ns") || !strcasecmp(end, "nsec"))
		mult = 1;
	else if (!strcasecmp(end, "us") || !strcasecmp(end, "usec"))
		mult = 1000;
	else if (!strcasecmp(end, "ms") || !strcasecmp(end, "msec"))
		mult = 1000000;
	else if (!strcasecmp(end, "s") || !strcasecmp(end, "sec"))
		mult = 1000000000ULL;
	else if (!strcasecmp(end, "m") || !strcasecmp(end, "min"))
		mult = 60000000000ULL;
	else if (!strcasecmp(end, "h"))
		mult = 3600000000000ULL;
	else if (!strcasecmp(end, "d"))
		mult = 86400000000000ULL;
	else if (*end)
		return -1;
	if (v > UINT64_MAX / mult)
		return -1;
	*out = v * mult;
	return 0;
}

static int parse_uint(const char *s, unsigned long long max, unsigned long long *out)
{
	char *end;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	*out = strtoull(s, &end, 0);
	if (errno || *end || *out > max)
		return -1;
	return 0;
}

static int parse_bool(const char *s, bool *out)
{
	return iogap_parse_bool(s, out);
}

int iogap_parse_uint(const char *s, unsigned long long max, unsigned long long *out)
{
	return parse_uint(s, max, out);
}

/* "a,b,c" → per-direction values; fio repeats the last one given. */
static int split_ddir(char *s, char *parts[IOGAP_DDIR_NR])
{
	int n = 0;
	char *save = NULL, *tok;

	for (tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (n == IOGAP_DDIR_NR)
			return -1;
		parts[n++] = tok;
	}
	if (n == 0)
		return -1;
	/* fio: "bs=4k,8k" sets read 4k, write and trim 8k */
	for (int i = n; i < IOGAP_DDIR_NR; i++)
		parts[i] = parts[n - 1];
	return n;
}

/* ---- option handlers -------------------------------------------------- */

typedef int (*opt_fn)(struct parse_ctx *c, struct iogap_job *j, const char *key,
		      const char *val);

#define NEED_VALUE(c, key, val) \
	do { if (!(val) || !*(val)) return perr(c, "option '%s' needs a value", key); } while (0)

static int bad_value(struct parse_ctx *c, const char *key, const char *val, const char *what)
{
	return perr(c, "option '%s': bad value '%s' (%s)", key, val ? val : "", what);
}

static int opt_name(struct parse_ctx *c, struct iogap_job *j, const char *key, const char *val)
{
	NEED_VALUE(c, key, val);
	return iogap_set_str(&j->name, val);
}

/* sync_file_range=wait_before,write,wait_after:N (fio's) */
static int opt_sync_file_range(struct parse_ctx *c, struct iogap_job *j, const char *key,
			       const char *val)
{
	char buf[128], *colon, *save = NULL, *tok;
	unsigned long long n;
	unsigned flags = 0;

	NEED_VALUE(c, key, val);
	snprintf(buf, sizeof(buf), "%s", val);
	colon = strrchr(buf, ':');
	if (!colon || parse_uint(colon + 1, UINT32_MAX, &n) || !n)
		return bad_value(c, key, val, "expected flags:N such as wait_before,write:8");
	*colon = '\0';
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "wait_before"))
			flags |= SYNC_FILE_RANGE_WAIT_BEFORE;
		else if (!strcmp(tok, "write"))
			flags |= SYNC_FILE_RANGE_WRITE;
		else if (!strcmp(tok, "wait_after"))
			flags |= SYNC_FILE_RANGE_WAIT_AFTER;
		else
			return bad_value(c, key, val, "flags are wait_before, write, wait_after");
	}
	j->sync_file_range_flags = flags;
	j->sync_file_range_blocks = (unsigned)n;
	return 0;
}

static int opt_description(struct parse_ctx *c, struct iogap_job *j, const char *key, const char *val)
{
	NEED_VALUE(c, key, val);
	return iogap_set_str(&j->description, val);
}

static int opt_ioengine(struct parse_ctx *c, struct iogap_job *j, const char *key, const char *val)
{
	NEED_VALUE(c, key, val);
	if (!iogap_engine_find(val))
		return perr(c, "option '%s': engine '%s' is not supported (supported: %s)",
			    key, val, iogap_engine_names());
	return iogap_set_str(&j->ioengine, val);
}

/* fio's rbd and rados engine options, and iogap's ceph_conf (a ceph.conf
 * path, fio's rados conf) */
static int opt_rbd_str(struct parse_ctx *c, struct iogap_job *j, const char *key, const char *val)
{
	char **dst = !strcmp(key, "clientname") ? &j->rbd_clientname :
		     !strcmp(key, "pool") ? &j->rbd_pool :
		     !strcmp(key, "rbdname") ? &j->rbd_name :
		     !strcmp(key, "clustername") ? &j->rbd_clustername : &j->ceph_conf;

	NEED_VALUE(c, key, val);
	return iogap_set_str(dst, val);
}

/* write_lat_log, write_bw_log, write_iops_log, write_hist_log: a file name
 * prefix; bare, the job's name (fio's make_log_name) */
static int opt_write_log(struct parse_ctx *c, struct iogap_job *j, const char *key, const char *val)
{
	char **dst = !strcmp(key, "write_lat_log") ? &j->write_lat_log :
		     !strcmp(key, "write_bw_log") ? &j->write_bw_log :
		     !strcmp(key, "write_iops_log") ? &j->write_iops_log : &j->write_hist_log;

	(void)c;
	return iogap_set_str(dst, val ? val : "");
}

/* write_iolog, read_iolog, replay_redirect, merge_blktrace_file: file
 * names (guest-probe/iolog.c, blktrace_merge.c) */
static int opt_iolog_str(struct parse_ctx *c, struct iogap_job *j, const char *key, const char *val)
{
	char **dst = !strcmp(key, "write_iolog") ? &j->write_iolog :
		     !strcmp(key, "read_iolog") ? &j->read_iolog :
		     !strcmp(key, "merge_blktrace_file") ? &j->merge_blktrace_file : &j->replay_redirect;

	NEED_VALUE(c, key, val);
	if (dst == &j->read_iolog && !strcmp(val, "-"))
		return bad_value(c, key, val, "iogap-probe reads the log twice (checked before the "
				 "run), so not from stdin");
	return iogap_set_str(dst, val);
}

/* merge_blktrace_scalars, merge_blktrace_iters: fio's float lists (a:b:c),
 * each value used as a whole number, as fio's int */
static int opt_merge_list(struct parse_ctx *c, struct iogap_job *j, const char *key,
			  const char *val)
{
	bool scalars = !strcmp(key, "merge_blktrace_scalars");
	unsigned *dst = scalars ? j->merge_scalars : j->merge_iters;
	unsigned *nr = scalars ? &j->merge_scalars_nr : &j->merge_iters_nr;
	char buf[512], *save = NULL, *tok;

	NEED_VALUE(c, key, val);
	snprintf(buf, sizeof(buf), "%s", val);
	*nr = 0;
	for (tok = strtok_r(buf, ":", &save); tok; tok = strtok_r(NULL, ":", &save)) {
		char *end;
		double v = strtod(tok, &end);

		if (end == tok || *end || v < 1.0 || v > 1e6)
			return bad_value(c, key, val, scalars ?
					 "percentages of at least 1 separated by ':'" :
					 "iteration counts of at least 1 separated by ':'");
		if (*nr == IOGAP_MAX_MERGE_LOGS)
			return bad_value(c, key, val, "at most 20 values, as fio");
		dst[(*nr)++] = (unsigned)v;
	}
	return *nr ? 0 : bad_value(c, key, val, "empty list");
}

int iogap_job_iolog_check(const struct iogap_job *j, char *err, size_t errlen)
{
	struct parse_ctx c = { .file = j->source_file, .line = j->source_line,
			       .err = err, .errlen = errlen };
	char *copy, **names;
	unsigned logs = 0;

	if (!j->merge_blktrace_file) {
		if (j->read_iolog && strchr(j->read_iolog, ':'))
			return bad_value(&c, "read_iolog", j->read_iolog, "one log per job: several "
					 "are merged with merge_blktrace_file (fio's list of logs for "
					 "the clones is not supported)");
		if (j->merge_scalars_nr || j->merge_iters_nr)
			return perr(&c, "job '%s': merge_blktrace_scalars and merge_blktrace_iters "
				    "need merge_blktrace_file", j->name);
		return 0;
	}
	if (!j->read_iolog)
		return perr(&c, "job '%s': merge_blktrace_file needs read_iolog=a.bin:b.bin:... "
			    "(the blktrace captures to merge)", j->name);
	if (!(names = iogap_split_names(j->read_iolog, &copy, &logs)))   /* fio's count */
		return perr(&c, "out of memory");
	free(names);
	free(copy);
	if (j->merge_scalars_nr && j->merge_scalars_nr != logs)
		return perr(&c, "job '%s': merge_blktrace_scalars gives %u values for %u logs "
			    "(fio's merge_blktrace_scalars(%u) != nr_logs(%u))", j->name,
			    j->merge_scalars_nr, logs, j->merge_scalars_nr, logs);
	if (j->merge_iters_nr && j->merge_iters_nr != logs)
		return perr(&c, "job '%s': merge_blktrace_iters gives %u values for %u logs "
			    "(fio's merge_blktrace_iters(%u) != nr_logs(%u))", j->name,
			    j->merge_iters_nr, logs, j->merge_iters_nr, logs);
	return 0;
}

static int opt_wait_for(struct parse_ctx *c, struct iogap_job *j, const char *key, const char *val)
{
	NEED_VALUE(c, key, val);
	return iogap_set_str(&j->wait_for, val);
}

/* replay_skip=read,write,trim,sync: fio's ddir bits */
static int opt_replay_skip(struct parse_ctx *c, struct iogap_job *j, const char *key,
			   const char *val)
{
	static const char *const kinds[] = { "read", "write", "trim", "sync" };
	char buf[128], *save = NULL, *tok;

	NEED_VALUE(c, key, val);
	snprintf(buf, sizeof(buf), "%s", val);
	j->replay_skip = 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		unsigned k = 0;

		while (k < 4 && strcmp(tok, kinds[k]))
			k++;
		if (k == 4)
			return bad_value(c, key, val, "a list of read, write, trim, sync");
		j->replay_skip |= 1u << k;
	}
	return 0;
}

static int opt_replay_num(struct parse_ctx *c, struct iogap_job *j, const char *key,
			  const char *val)
{
	unsigned long long v;

	NEED_VALUE(c, key, val);
	if (parse_uint(val, UINT32_MAX, &v))
		return bad_value(c, key, val, "expected an integer");
	if (!strcmp(key, "replay_time_scale")) {
		if (!v)
			return bad_value(c, key, val, "a percentage of at least 1");
		j->replay_time_scale = (unsigned)v;
	} else if (!strcmp(key, "replay_align")) {
		if (v & (v - 1))
			return bad_value(c, key, val, "a power of 2");
		j->replay_align = v;
	} else {
		j->replay_scale = v;
	}
	return 0;
}

/* read_iolog_chunked: iogap always streams the log (it reads it whole once,
 * before the run, to check it), so both values replay the same requests */
static int opt_read_iolog_chunked(struct parse_ctx *c, struct iogap_job *j, const char *key,
				  const char *val)
{
	bool b;

	(void)j;
	if (parse_bool(val, &b))
		return bad_value(c, key, val, "expected 0 or 1");
	return 0;
}

#define SIZE_OPT(fn, field) \
static int fn(struct parse_ctx *c, struct iogap_job *j, const char *key, const char *val) \
{ \
	NEED_VALUE(c, key, val); \
	if (strchr(val, '%')) \
		return perr(c, "option '%s': percentage values ('%s') are not supported", key, val); \
	if (iogap_parse_size(val, &j->field)) \
		return bad_value(c, key, val, "expected a size such as 4k, 10m, 1g"); \
	return 0; \
}
SIZE_OPT(opt_size_value, size)
SIZE_OPT(opt_offset_value, offset)

/* "N%" (0 < N <= 100, fractions allowed), as fio's size= and offset= take */
static int parse_percent(const char *val, double *out)
{
	char *end;
	double v = strtod(val, &end);

	if (end == val || strcmp(end, "%") || !(v > 0.0) || v > 100.0)
		return -1;
	*out = v;
	return 0;
}

/* "Nz": N zones (fio's zone unit); 1 with *nz set, 0 if not a zone count,
 * -1 on a bad count */
static int parse_zones(struct parse_ctx *c, const char *key, const char *val, uint64_t *nz)
{
	size_t len = strlen(val);
	unsigned long long n;
	char buf[32];

	if (len < 2 || (val[len - 1] != 'z' && val[len - 1] != 'Z'))
		return 0;
	snprintf(buf, sizeof(buf), "%.*s", (int)(len - 1), val);
	if (parse_uint(buf, UINT32_MAX, &n))
		return bad_value(c, key, val, "a zone count such as 8z");
	*nz = n;
	return 1;
}

static int opt_size(struct parse_ctx *c, struct iogap_job *j, const char *key, const char *val)
{
	int z;

	NEED_VALUE(c, key, val);
	j->size_nz = 0;
	if ((z = parse_zones(c, key, val, &j->size_nz)) != 0) {
		if (z > 0 && !j->size_nz)
			return bad_value(c, key, val, "size must be greater than 0");
		j->size = 0;
		j->size_pct = 0;
		return z < 0 ? -1 : 0;
	}
	if (strchr(val, '%')) {
		if (parse_percent(val, &j->size_pct))
			return bad_value(c, key, val, "a percentage must be in (0%, 100%]");
		j->size = 0;
		return 0;
	}
	j->size_pct = 0;
	if (opt_size_value(c, j, key, val))
		return -1;
	if (j->size == 0)
		return bad_value(c, key, val, "size must be greater than 0");
	return 0;
}

static int opt_offset(struct parse_ctx *c, struct iogap_job *j, const char *key, const char *val)
{
	int z;

	NEED_VALUE(c, key, val);
	j->offset_nz = 0;
	if ((z = parse_zones(c, key, val, &j->offset_nz)) != 0) {
		j->offset = 0;
		j->offset_pct = 0;
		return z < 0 ? -1 : 0;
	}
	if (strchr(val, '%')) {
		if (parse_percent(val, &j->offset_pct))
			return bad_value(c, key, val, "a percentage must be in (0%, 100%]");
		j->offset = 0;
		return 0;
	}
	j->offset_pct = 0;
	return opt_offset_value(c, j, key, val);
}
SIZE_OPT(opt_io_size, io_size)
SIZE_OPT(opt_offset_increment_value, offset_increment)

static int opt_offset_increment(struct parse_ctx *c, struct iogap_job *j, const char *key,
				const char *val)
{
	int z;

	NEED_VALUE(c, key, val);
	j->offset_increment_nz = 0;
	if ((z = parse_zones(c, key, val, &j->offset_increment_nz)) != 0) {
		j->offset_increment = 0;
		return z < 0 ? -1 : 0;
	}
	return opt_offset_increment_value(c, j, key, val);
}

static int opt_number_ios(struct parse_ctx *c, struct iogap_job *j, const char *key,
			  const char *val)
{
	unsigned long long v;

	NEED_VALUE(c, key, val);
	if (parse_uint(val, UINT64_MAX, &v))
		return bad_value(c, key, val, "expected a number of I/Os");
	j->number_ios = v;
	return 0;
}

static int parse_bs_value(const char *s, uint32_t *out)
{
	uint64_t v;

	if (iogap_parse_size(s, &v) || v == 0 || v > (1u << 30))
		return -1;
	*out = (uint32_t)v;
	return 0;
}

/* fio's str_to_decimal: text after the number and unit is ignored */
static int parse_bs_prefix(const char *s, uint32_t *out)
{
	uint64_t v;

	if (iogap_parse_size_prefix(s, &v) || v == 0 || v > (1u << 30))
		return -1;
	*out = (uint32_t)v;
	return 0;
}

static int opt_bs(struct parse_ctx *c, struct iogap_job *j, const char *key, const char *val)
{
	char buf[256], *parts[IOGAP_DDIR_NR];

	NEED_VALUE(c, key, val);
	snprintf(buf, sizeof(buf), "%s", val);
	if (split_ddir(buf, parts) < 0)
		return bad_value(c, key, val, "expected bs or read,write,trim sizes");
	for (int d = 0; d < IOGAP_DDIR_NR; d++) {
		uint32_t bs;

		if (parse_bs_value(parts[d], &bs))
			return bad_value(c, key, val, "block size must be a size between 1 and 1g");
		j->bs[d] = j->bs_min[d] = j->bs_max[d] = bs;
		j->bssplit_nr[d] = 0;
	}
	return 0;
}

static int opt_bsrange(struct parse_ctx *c, struct iogap_job *j, const char *key, const char *val)
{
	char buf[256], *parts[IOGAP_DDIR_NR];

	NEED_VALUE(c, key, val);
	snprintf(buf, sizeof(buf), "%s", val);
	if (split_ddir(buf, parts) < 0)
		return bad_value(c, key, val, "expected min-max[,min-max[,min-max]]");
	for (int d = 0; d < IOGAP_DDIR_NR; d++) {
		char one[64], *dash;
		uint32_t lo, hi;

		snprintf(one, sizeof(one), "%s", parts[d]);
		dash = strchr(one, '-');   /* fio's FIO_OPT_RANGE: '-', else ':' */
		if (!dash)
			dash = strchr(one, ':');
		if (!dash)
			return bad_value(c, key, val, "expected min-max");
		*dash = '\0';
		if (parse_bs_prefix(one, &lo) || parse_bs_prefix(dash + 1, &hi))
			return bad_value(c, key, val, "block sizes must be sizes between 1 and 1g");
		if (lo > hi) {
			uint32_t t = lo;
			lo = hi;
			hi = t;
		}
		j->bs_min[d] = lo;
		j->bs_max[d] = hi;
		j->bs[d] = lo;
		j->bssplit_nr[d] = 0;
	}
	return 0;
}

/* blockalign=4k[,write[,trim]]: random offsets in multiples of it */
static int opt_blockalign(struct parse_ctx *c, struct iogap_job *j, const char *key, const char *val)
{
	char buf[256], *parts[IOGAP_DDIR_NR];

	NEED_VALUE(c, key, val);
	snprintf(buf, sizeof(buf), "%s", val);
	if (split_ddir(buf, parts) < 0)
		return bad_value(c, key, val, "expected a size or read,write,trim sizes");
	for (int d = 0; d < IOGAP_DDIR_NR; d++)
		if (parse_bs_value(parts[d], &j->ba[d]))
			return bad_value(c, key, val, "alignment must be a size between 1 and 1g");
	return 0;
}

/* fio's bssplit_ddir: entries without a percentage share what is left
 * (a lone entry gets 0: its size is the only one), then the list is
 * ordered by percentage, ascending (glibc's qsort keeps ties in order) */
static void bssplit_fill(struct iogap_bssplit *b, unsigned n, unsigned total)
{
	unsigned missing = 0;

	for (unsigned i = 0; i < n; i++)
		missing += !b[i].perc;
	for (unsigned i = 0; i < n && missing; i++)
		if (!b[i].perc)
			b[i].perc = n == 1 ? 0 : (100 - total) / missing;
	for (unsigned i = 1; i < n; i++) {
		struct iogap_bssplit e = b[i];
		unsigned k = i;

		for (; k && b[k - 1].perc > e.perc; k--)
			b[k] = b[k - 1];
		b[k] = e;
	}
}

/* bssplit=4k/10:64k/50:32k/40[,write list[,trim list]] */
static int opt_bssplit(struct parse_ctx *c, struct iogap_job *j, const char *key, const char *val)
{
	char buf[1024], *parts[IOGAP_DDIR_NR];

	NEED_VALUE(c, key, val);
	snprintf(buf, sizeof(buf), "%s", val);
	if (split_ddir(buf, parts) < 0)
		return bad_value(c, key, val, "expected bs/percent:bs/percent...");
	for (int d = 0; d < IOGAP_DDIR_NR; d++) {
		char list[512], *save = NULL, *tok;
		unsigned n = 0, total = 0;
		uint32_t lo = UINT32_MAX, hi = 0;

		snprintf(list, sizeof(list), "%s", parts[d]);
		for (tok = strtok_r(list, ":", &save); tok; tok = strtok_r(NULL, ":", &save)) {
			char *slash = strchr(tok, '/');
			unsigned long long perc = 0;
			uint32_t bs;

			if (n == IOGAP_MAX_BSSPLIT)
				return bad_value(c, key, val, "too many entries");
			if (slash) {
				*slash = '\0';
				if (parse_uint(slash + 1, 100, &perc))
					return bad_value(c, key, val, "percentage must be 0..100");
			}
			if (parse_bs_prefix(tok, &bs))
				return bad_value(c, key, val, "bad block size");
			j->bssplit[d][n].bs = bs;
			j->bssplit[d][n].perc = (uint32_t)perc;
			total += (unsigned)perc;
			lo = bs < lo ? bs : lo;
			hi = bs > hi ? bs : hi;
			n++;
		}
		if (n == 0 || total > 100)
			return bad_value(c, key, val, "percentages add up to more than 100");
		j->bssplit_nr[d] = n;
		bssplit_fill(j->bssplit[d], n, total);
		j->bs[d] = j->bs_min[d] = lo;
		j->bs_max[d] = hi;
	}
	return 0;
}

static const struct {
	const char *name;
	unsigned rw;
} rw_names[] = {
	{ "read", IOGAP_RW_READ },
	{ "write", IOGAP_RW_WRITE },
	{ "trim", IOGAP_RW_TRIM },
	{ "randread", IOGAP_RW_READ | IOGAP_RW_RAND },
	{ "randwrite", IOGAP_RW_WRITE | IOGAP_RW_RAND },
	{ "randtrim", IOGAP_RW_TRIM | IOGAP_RW_RAND },
	{ "rw", IOGAP_RW_READ | IOGAP_RW_WRITE },
	{ "readwrite", IOGAP_RW_READ | IOGAP_RW_WRITE },
	{ "randrw", IOGAP_RW_READ | IOGAP_RW_WRITE | IOGAP_RW_RAND },
	{ "trimwrite", IOGAP_RW_TRIM | IOGAP_RW_WRITE },
	{ "randtrimwrite", IOGAP_RW_TRIM | IOGAP_RW_WRITE | IOGAP_RW_RAND },
};

const char *iogap_rw_name(unsigned rw)
{
	for (size_t i = 0; i < sizeof(rw_names) / sizeof(rw_names[0]); i++)
		if (rw_names[i].rw == rw)
			return rw_names[i].name;
	return "unknown";
}

/* fio's offset modifier: a count of I/Os per random offset for random
 * patterns, a (signed) size added to each sequential offset otherwise. */
static int rw_suffix(struct parse_ctx *c, struct iogap_job *j, const char *key, const char *val,
		     const char *suffix)
{
	unsigned long long n;
	uint64_t sz;
	bool neg = suffix[0] == '-';

	if (j->rw & IOGAP_RW_RAND) {
		if (parse_uint(suffix, UINT32_MAX, &n))
			return bad_value(c, key, val, "the :N suffix of a random pattern is a count");
		j->rw_seq_nr = (unsigned)n;
		return 0;
	}
	if (iogap_parse_size(suffix + neg, &sz) || sz > INT64_MAX)
		return bad_value(c, key, val, "the :N suffix of a sequential pattern is a size such as 4k or -8k");
	j->rw_seq_add = neg ? -(int64_t)sz : (int64_t)sz;
	return 0;
}

static int opt_rw(struct parse_ctx *c, struct iogap_job *j, const char *key, const char *val)
{
	char buf[64], *colon;

	NEED_VALUE(c, key, val);
	snprintf(buf, sizeof(buf), "%s", val);
	colon = strchr(buf, ':');
	j->rw_seq_nr = 0;
	j->rw_seq_add = 0;
	if (colon)
		*colon = '\0';
	for (size_t i = 0; i < sizeof(rw_names) / sizeof(rw_names[0]); i++) {
		if (!strcmp(buf, rw_names[i].name)) {
			j->rw = rw_names[i].rw;
			return colon ? rw_suffix(c, j, key, val, colon + 1) : 0;
		}
	}
	return bad_value(c, key, val, "expected read, write, trim, randread, randwrite, randtrim, "
			 "rw, readwrite, randrw, trimwrite or randtrimwrite");
}

static int opt_rw_sequencer(struct parse_ctx *c, struct iogap_job *j, const char *key, const char *val)
{
	NEED_VALUE(c, key, val);
	if (!strcmp(val, "sequential"))
		j->rw_sequencer = IOGAP_RWSEQ_SEQUENTIAL;
	else if (!strcmp(val, "identical"))
		j->rw_sequencer = IOGAP_RWSEQ_IDENTICAL;
	else
		return bad_value(c, key, val, "expected sequential or identical");
	return 0;
}

static int opt_rwmix(struct parse_ctx *c, struct iogap_job *j, const char *key, const char *val)
{
	unsigned long long p;

	NEED_VALUE(c, key, val);
	if (parse_uint(val, 100, &p))
		return bad_value(c, key, val, "a percentage 0..100");
	if (!strcmp(key, "rwmixread")) {
		j->rwmix[0] = (unsigned)p;
		j->rwmix[1] = 100 - (unsigned)p;
	} else {
		j->rwmix[1] = (unsigned)p;
		j->rwmix[0] = 100 - (unsigned)p;
	}
	return 0;
}

static bool at_least(unsigned long long v, unsigned long long min)
{
	return v >= min;
}

#define UINT_OPT(fn, field, max, minv) \
static int fn(struct parse_ctx *c, struct iogap_job *j, const char *key, const char *val) \
{ \
	unsigned long long v; \
	NEED_VALUE(c, key, val); \
	if (parse_uint(val, (max), &v) || !at_least(v, (minv))) \
		return bad_value(c, key, val, "expected an integer from " #minv " to " #max); \
	j->field = (unsigned)v; \
	return 0; \
}
UINT_OPT(opt_iodepth, iodepth, 65536, 1)
UINT_OPT(opt_iodepth_batch, iodepth_batch, 65536, 0)    /* 0 = iodepth */
UINT_OPT(opt_iodepth_batch_complete_min, iodepth_batch_complete_min, 65536, 0)
UINT_OPT(opt_iodepth_batch_complete_max, iodepth_batch_complete_max, 65536, 0)
UINT_OPT(opt_iodepth_low, iodepth_low, 65536, 0)
UINT_OPT(opt_numjobs, numjobs, 4096, 1)
UINT_OPT(opt_loops, loops, UINT32_MAX, 1)
UINT_OPT(opt_fsync, fsync_blocks, UINT32_MAX, 0)
UINT_OPT(opt_fdatasync, fdatasync_blocks, UINT32_MAX, 0)
UINT_OPT(opt_log_avg_msec, log_avg_msec, UINT32_MAX, 0)
UINT_OPT(opt_log_hist_msec, log_hist_msec, UINT32_MAX, 0)
UINT_OPT(opt_log_hist_coarseness, log_hist_coarseness, 6, 0)   /* fio's maxval */
UINT_OPT(opt_significant_figures, sig_figs, 10, 1)
UINT_OPT(opt_ratecycle, ratecycle_ms, UINT32_MAX, 1)

static int opt_rate_process(struct parse_ctx *c, struct iogap_job *j, const char *key,
			    const char *val)
{
	NEED_VALUE(c, key, val);
	if (strcmp(val, "linear") && strcmp(val, "poisson"))
		return bad_value(c, key, val, "expected linear or poisson");
	j->rate_poisson = !strcmp(val, "poisson");
	return 0;
}

#define TIME_OPT(fn, field, unit) \
static int fn(struct parse_ctx *c, struct iogap_job *j, const char *key, const char *val) \
{ \
	NEED_VALUE(c, key, val); \
	if (iogap_parse_time_ns(val, (unit), &j->field)) \
		return bad_value(c, key, val, "expected a time such as 30, 30s, 500ms, 2m"); \
	return 0; \
}
/* runtime: fio keeps microseconds, so it takes times the probe's
 * nanoseconds cannot hold (fio's act profile asks for 86400000000s by
 * default); those are forever to both, here 146 years (room to add the
 * clock and startdelay without wrapping) */
static int opt_runtime(struct parse_ctx *c, struct iogap_job *j, const char *key, const char *val)
{
	char one[32];
	size_t digits;

	NEED_VALUE(c, key, val);
	if (!iogap_parse_time_ns(val, 1000000000ULL, &j->runtime_ns))
		return 0;
	/* too large, if the same unit with a 1 in front parses */
	digits = strspn(val, "0123456789");
	if (digits && (size_t)snprintf(one, sizeof(one), "1%s", val + digits) < sizeof(one) &&
	    !iogap_parse_time_ns(one, 1000000000ULL, &j->runtime_ns)) {
		j->runtime_ns = UINT64_MAX / 4;
		return 0;
	}
	return bad_value(c, key, val, "expected a time such as 30, 30s, 500ms, 2m");
}
TIME_OPT(opt_ramp_time, ramp_time_ns, 1000000000ULL)
TIME_OPT(opt_startdelay, startdelay_ns, 1000000000ULL)
TIME_OPT(opt_thinktime, thinktime_ns, 1000ULL)          /* fio: plain numbers are usec */
TIME_OPT(opt_thinktime_spin, thinktime_spin_ns, 1000ULL)
UINT_OPT(opt_thinktime_blocks, thinktime_blocks, UINT32_MAX, 1)

static int opt_thinktime_blocks_type(struct parse_ctx *c, struct iogap_job *j, const char *key,
				     const char *val)
{
	NEED_VALUE(c, key, val);
	if (strcmp(val, "complete") && strcmp(val, "issue"))
		return bad_value(c, key, val, "expected complete or issue");
	j->thinktime_issued = !strcmp(val, "issue");
	return 0;
}

#define BOOL_OPT(fn, field) \
static int fn(struct parse_ctx *c, struct iogap_job *j, const char *key, const char *val) \
{ \
	if (parse_bool(val, &j->field)) \
		return bad_value(c, key, val, "expected 0 or 1"); \
	return 0; \
}
BOOL_OPT(opt_time_based, time_based)
BOOL_OPT(opt_direct, direct)
BOOL_OPT(opt_sync, sync_io)
BOOL_OPT(opt_end_fsync, end_fsync)
BOOL_OPT(opt_invalidate, invalidate)
BOOL_OPT(opt_create_on_open, create_on_open)
BOOL_OPT(opt_allow_file_create, allow_file_create)
BOOL_OPT(opt_norandommap, norandommap)
BOOL_OPT(opt_randrepeat, randrepeat)
BOOL_OPT(opt_group_reporting, group_reporting)
BOOL_OPT(opt_stonewall, stonewall)
BOOL_OPT(opt_new_group, new_group)
BOOL_OPT(opt_thread, thread)
BOOL_OPT(opt_log_offset, log_offset)
BOOL_OPT(opt_clat_percentiles, clat_percentiles)
BOOL_OPT(opt_lat_percentiles, lat_percentiles)
BOOL_OPT(opt_slat_percentiles, slat_percentiles)
BOOL_OPT(opt_bs_unaligned, bs_unaligned)
BOOL_OPT(opt_unlink, unlink)
BOOL_OPT(opt_exitall, exitall)
BOOL_OPT(opt_do_verify, do_verify)
BOOL_OPT(opt_verify_fatal, verify_fatal)
BOOL_OPT(opt_verify_dump, verify_dump)
UINT_OPT(opt_verify_async, verify_async, 1024, 0)
BOOL_OPT(opt_experimental_verify, experimental_verify)
BOOL_OPT(opt_verify_only, verify_only)
BOOL_OPT(opt_verify_state_save, verify_state_save)
BOOL_OPT(opt_verify_state_load, verify_state_load)
BOOL_OPT(opt_replay_no_stall, replay_no_stall)
BOOL_OPT(opt_per_job_logs, per_job_logs)
BOOL_OPT(opt_log_max_value, log_max_value)
BOOL_OPT(opt_log_prio, log_prio)
BOOL_OPT(opt_exitall_on_error, exitall_on_error)
BOOL_OPT(opt_refill_buffers, refill_buffers)
BOOL_OPT(opt_latency_run, latency_run)

/* verify=: fio's checksum names; the others of fio's are refused by name */
static int opt_verify(struct parse_ctx *c, struct iogap_job *j, const char *key, const char *val)
{
	static const struct { const char *name; unsigned type; } types[] = {
		{ "0", IOGAP_VERIFY_NONE }, { "none", IOGAP_VERIFY_NONE },
		{ "md5", IOGAP_VERIFY_MD5 }, { "crc32c", IOGAP_VERIFY_CRC32C },
		{ "crc32c-intel", IOGAP_VERIFY_CRC32C_INTEL }, { "xxhash", IOGAP_VERIFY_XXHASH },
		{ "crc64", IOGAP_VERIFY_CRC64 }, { "crc32", IOGAP_VERIFY_CRC32 },
		{ "crc16", IOGAP_VERIFY_CRC16 }, { "crc7", IOGAP_VERIFY_CRC7 },
		{ "sha1", IOGAP_VERIFY_SHA1 }, { "sha256", IOGAP_VERIFY_SHA256 },
		{ "sha512", IOGAP_VERIFY_SHA512 }, { "sha3-224", IOGAP_VERIFY_SHA3_224 },
		{ "sha3-256", IOGAP_VERIFY_SHA3_256 }, { "sha3-384", IOGAP_VERIFY_SHA3_384 },
		{ "sha3-512", IOGAP_VERIFY_SHA3_512 }, { "meta", IOGAP_VERIFY_META },
		{ "pattern", IOGAP_VERIFY_PATTERN_NO_HDR }, { "null", IOGAP_VERIFY_NULL },
	};

	NEED_VALUE(c, key, val);
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (!strcmp(val, types[i].name)) {
			j->verify = types[i].type;
			j->verify_set = true;
			return 0;
		}
	return bad_value(c, key, val, "expected md5, crc64, crc32c, crc32c-intel, crc32, crc16, "
			 "crc7, xxhash, sha1, sha256, sha512, sha3-224, sha3-256, sha3-384, "
			 "sha3-512, meta, pattern, null (or none)");
}

#define COUNT_OPT(fn, field, what) \
static int fn(struct parse_ctx *c, struct iogap_job *j, const char *key, const char *val) \
{ \
	unsigned long long v; \
\
	NEED_VALUE(c, key, val); \
	if (parse_uint(val, UINT64_MAX, &v)) \
		return bad_value(c, key, val, what); \
	j->field = v; \
	return 0; \
}
COUNT_OPT(opt_verify_backlog, verify_backlog, "expected a number of written blocks")
COUNT_OPT(opt_verify_backlog_batch, verify_backlog_batch, "expected a number of blocks")

static int opt_verify_interval(struct parse_ctx *c, struct iogap_job *j, const char *key,
			       const char *val)
{
	uint64_t v;

	NEED_VALUE(c, key, val);
	if (iogap_parse_size(val, &v) || !v || v > UINT32_MAX)
		return bad_value(c, key, val, "expected a size in bytes");
	j->verify_interval = (uint32_t)v;
	return 0;
}

static int opt_exit_what(struct parse_ctx *c, struct iogap_job *j, const char *key, const char *val)
{
	NEED_VALUE(c, key, val);
	if (!strcmp(val, "group"))
		j->exit_what = IOGAP_EXIT_GROUP;
	else if (!strcmp(val, "stonewall"))
		j->exit_what = IOGAP_EXIT_STONEWALL;
	else if (!strcmp(val, "all"))
		j->exit_what = IOGAP_EXIT_ALL;
	else
		return bad_value(c, key, val, "expected group, stonewall or all");
	return 0;
}
BOOL_OPT(opt_file_append, file_append)
BOOL_OPT(opt_disable_lat, disable_lat)
BOOL_OPT(opt_disable_clat, disable_clat)
BOOL_OPT(opt_disable_slat, disable_slat)
BOOL_OPT(opt_disable_bw, disable_bw)

/* fio's gtod_reduce: no latency or bandwidth statistics at all */
static int opt_gtod_reduce(struct parse_ctx *c, struct iogap_job *j, const char *key,
			   const char *val)
{
	bool on;

	if (parse_bool(val, &on))
		return bad_value(c, key, val, "expected 0 or 1");
	j->disable_lat = j->disable_clat = j->disable_slat = j->disable_bw = on;
	j->clat_percentiles = !on;
	return 0;
}

/* percentage_random=N[,N[,N]]: share of random offsets per direction */
static int opt_percentage_random(struct parse_ctx *c, struct iogap_job *j, const char *key,
				 const char *val)
{
	char buf[128], *parts[IOGAP_DDIR_NR];

	NEED_VALUE(c, key, val);
	snprintf(buf, sizeof(buf), "%s", val);
	if (split_ddir(buf, parts) < 0)
		return bad_value(c, key, val, "expected a percentage or read,write,trim percentages");
	for (int d = 0; d < IOGAP_DDIR_NR; d++) {
		unsigned long long p;

		if (parse_uint(parts[d], 100, &p))
			return bad_value(c, key, val, "percentages are 0..100");
		j->percentage_random[d] = (unsigned)p;
	}
	return 0;
}

/* fio's continue_on_error: which errors (EIO, EILSEQ) a job survives */
static int opt_continue_on_error(struct parse_ctx *c, struct iogap_job *j, const char *key,
				 const char *val)
{
	static const struct { const char *name; unsigned bits; } v[] = {
		{ "none", 0 }, { "0", 0 }, { "read", IOGAP_COE_READ }, { "write", IOGAP_COE_WRITE },
		{ "io", IOGAP_COE_READ | IOGAP_COE_WRITE }, { "verify", IOGAP_COE_VERIFY },
		{ "all", IOGAP_COE_ALL }, { "1", IOGAP_COE_ALL },
	};

	NEED_VALUE(c, key, val);
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		if (!strcmp(val, v[i].name)) {
			j->continue_on_error = v[i].bits;
			return 0;
		}
	}
	return bad_value(c, key, val, "expected none, read, write, io, verify, all, 0 or 1");
}

/* cpumask=N: a bit mask of CPUs (fio's older form of cpus_allowed) */
static int opt_cpumask(struct parse_ctx *c, struct iogap_job *j, const char *key, const char *val)
{
	unsigned long long mask;

	NEED_VALUE(c, key, val);
	if (parse_uint(val, UINT64_MAX, &mask) || !mask)
		return bad_value(c, key, val, "a non-zero CPU bit mask such as 0x3");
	memset(j->cpus_allowed, 0, sizeof(j->cpus_allowed));
	for (unsigned cpu = 0; cpu < 64; cpu++)
		if (mask >> cpu & 1)
			j->cpus_allowed[cpu / 8] |= (unsigned char)(1u << (cpu % 8));
	j->cpus_allowed_set = true;
	return 0;
}

/* fio's clocksource: cpu (the TSC, where the kernel trusts it: the
 * default) or a clock_gettime per stamp; every stamp is CLOCK_MONOTONIC
 * ns, the trace format's clock (docs/iogap-probe.md) */
static int opt_clocksource(struct parse_ctx *c, struct iogap_job *j, const char *key,
			   const char *val)
{
	NEED_VALUE(c, key, val);
	if (strcmp(val, "gettimeofday") && strcmp(val, "clock_gettime") && strcmp(val, "cpu"))
		return bad_value(c, key, val, "expected gettimeofday, clock_gettime or cpu");
	j->clock_gettime = strcmp(val, "cpu") != 0;
	return 0;
}

static int opt_buffered(struct parse_ctx *c, struct iogap_job *j, const char *key, const char *val)
{
	bool b;

	if (parse_bool(val, &b))
		return bad_value(c, key, val, "expected 0 or 1");
	j->direct = !b;
	return 0;
}

static int opt_randseed(struct parse_ctx *c, struct iogap_job *j, const char *key, const char *val)
{
	unsigned long long v;

	NEED_VALUE(c, key, val);
	if (parse_uint(val, UINT64_MAX, &v))
		return bad_value(c, key, val, "expected an integer");
	j->randseed = v;
	j->randseed_set = true;
	return 0;
}

static int opt_random_generator(struct parse_ctx *c, struct iogap_job *j, const char *key,
				const char *val)
{
	static const char *const names[] = {
		[IOGAP_RGEN_TAUSWORTHE] = "tausworthe", [IOGAP_RGEN_LFSR] = "lfsr",
		[IOGAP_RGEN_TAUSWORTHE64] = "tausworthe64",
	};

	NEED_VALUE(c, key, val);
	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!strcmp(val, names[i])) {
			j->random_generator = (enum iogap_random_gen)i;
			j->random_generator_set = true;
			return 0;
		}
	}
	return bad_value(c, key, val, "expected tausworthe, lfsr or tausworthe64");
}

static int opt_random_distribution(struct parse_ctx *c, struct iogap_job *j, const char *key,
				   const char *val)
{
	const char *colon;
	char *end;

	NEED_VALUE(c, key, val);
	colon = strchr(val, ':');
	if (!strcmp(val, "random")) {
		j->random_distribution = IOGAP_RAND_UNIFORM;
		return 0;
	}
	if (!strncmp(val, "zoned:", 6) || !strncmp(val, "zoned_abs:", 10)) {
		char why[256];
		bool absolute = val[5] == '_';

		j->random_distribution = absolute ? IOGAP_RAND_ZONED_ABS : IOGAP_RAND_ZONED;
		/* fio 3.33 matches the value's text up to a ',' against its
		 * names: per-direction lists, though documented, fail there */
		if (strchr(val, ','))
			return bad_value(c, key, val, "fio 3.33 refuses per-direction lists (a ',') here");
		if (iogap_parse_zoned(j, colon + 1, absolute, why, sizeof(why)))
			return bad_value(c, key, val, why);
		return 0;
	}
	if (!strncmp(val, "zipf", 4) && (val[4] == ':' || !val[4])) {
		j->random_distribution = IOGAP_RAND_ZIPF;
		j->random_dist_param = 1.2;
	} else if (!strncmp(val, "pareto", 6) && (val[6] == ':' || !val[6])) {
		j->random_distribution = IOGAP_RAND_PARETO;
		j->random_dist_param = 0.2;
	} else if (!strncmp(val, "normal", 6) && (val[6] == ':' || !val[6])) {
		j->random_distribution = IOGAP_RAND_GAUSS;
		j->random_dist_param = 0.0;
	} else {
		return perr(c, "option '%s': distribution '%s' is not supported (random, zipf[:theta], "
			    "pareto[:h], normal[:deviation], zoned:..., zoned_abs:...)",
			    key, val);
	}
	if (colon) {
		double p = strtod(colon + 1, &end);

		if (end == colon + 1 || *end)
			return bad_value(c, key, val, "bad distribution parameter");
		if (j->random_distribution == IOGAP_RAND_ZIPF && (p <= 0.0 || p == 1.0))
			return bad_value(c, key, val, "zipf theta must be > 0 and != 1");
		if (j->random_distribution == IOGAP_RAND_PARETO && (p <= 0.0 || p >= 1.0))
			return bad_value(c, key, val, "pareto h must be in (0,1)");
		if (j->random_distribution == IOGAP_RAND_GAUSS && (p < 0.0 || p >= 100.0))
			return bad_value(c, key, val, "the normal deviation must be in [0,100)");
		j->random_dist_param = p;
	}
	return 0;
}

/* cpus_allowed=0-3,6 */
static int opt_cpus_allowed(struct parse_ctx *c, struct iogap_job *j, const char *key, const char *val)
{
	NEED_VALUE(c, key, val);
	if (iogap_parse_cpu_list(val, j->cpus_allowed, IOGAP_MAX_CPUS))
		return bad_value(c, key, val, "expected a CPU list such as 0-3,6");
	j->cpus_allowed_set = true;
	return 0;
}

static int opt_cpus_allowed_policy(struct parse_ctx *c, struct iogap_job *j, const char *key,
				   const char *val)
{
	NEED_VALUE(c, key, val);
	if (!strcmp(val, "shared"))
		j->cpus_allowed_policy = IOGAP_CPUS_SHARED;
	else if (!strcmp(val, "split"))
		j->cpus_allowed_policy = IOGAP_CPUS_SPLIT;
	else
		return bad_value(c, key, val, "expected shared or split");
	return 0;
}

static int opt_rate_iops(struct parse_ctx *c, struct iogap_job *j, const char *key, const char *val)
{
	uint64_t *dst = !strcmp(key, "rate_iops") ? j->rate_iops : j->rate_iops_min;
	char buf[256], *parts[IOGAP_DDIR_NR];
	int n;

	NEED_VALUE(c, key, val);
	snprintf(buf, sizeof(buf), "%s", val);
	n = split_ddir(buf, parts);
	if (n < 0)
		return bad_value(c, key, val, "expected iops or read,write,trim iops");
	for (int d = 0; d < IOGAP_DDIR_NR; d++) {
		unsigned long long v;

		/* fio: a single value applies to reads and writes alike */
		if (parse_uint(parts[d][0] ? parts[d] : "0", UINT32_MAX, &v))
			return bad_value(c, key, val, "expected an integer IOPS rate");
		dst[d] = v;
	}
	return 0;
}

/* rate=1m[,500k[,...]]: bytes per second per direction; an empty part
 * ("rate=,500k") leaves that direction unlimited, as fio */
static int opt_rate(struct parse_ctx *c, struct iogap_job *j, const char *key, const char *val)
{
	uint64_t *dst = !strcmp(key, "rate") ? j->rate : j->rate_min;
	char buf[256], *p = buf;

	NEED_VALUE(c, key, val);
	snprintf(buf, sizeof(buf), "%s", val);
	memset(dst, 0, sizeof(j->rate));
	for (int d = 0; d < IOGAP_DDIR_NR && p; d++) {
		char *comma = strchr(p, ',');

		if (comma)
			*comma = '\0';
		if (*p && iogap_parse_size(p, &dst[d]))
			return bad_value(c, key, val, "expected bytes per second such as 1m or 1m,500k");
		if (!comma && d == 0)   /* one value: reads and writes alike */
			dst[1] = dst[2] = dst[0];
		p = comma ? comma + 1 : NULL;
	}
	if (p)
		return bad_value(c, key, val, "at most read,write,trim rates");
	return 0;
}

static int opt_percentile_list(struct parse_ctx *c, struct iogap_job *j, const char *key,
			       const char *val)
{
	char buf[512], *save = NULL, *tok;
	unsigned n = 0;

	NEED_VALUE(c, key, val);
	snprintf(buf, sizeof(buf), "%s", val);
	for (tok = strtok_r(buf, ":", &save); tok; tok = strtok_r(NULL, ":", &save)) {
		char *end;
		double p = strtod(tok, &end);

		if (end == tok || *end || p < 0.0 || p > 100.0)
			return bad_value(c, key, val, "percentiles must be numbers in 0..100 separated by ':'");
		if (n == IOGAP_MAX_PERCENTILES)
			return bad_value(c, key, val, "at most 20 percentiles");
		j->percentile_list[n++] = p;
	}
	if (!n)
		return bad_value(c, key, val, "empty list");
	j->percentile_nr = n;
	return 0;
}

/* fio's buffer_pattern (lib/pattern.c): a concatenation, in any order, of
 * 0x-hex bytes as written, "strings", decimal numbers in [INT_MIN,
 * INT_MAX] (little-endian, as few bytes as they need; -12 takes four) and
 * 'files' (their contents).  Each part returns what it consumed, or NULL. */
static const char *pattern_hex(const char *p, uint8_t *out, size_t room, size_t *n)
{
	size_t digits = 0;

	p += 2;
	while (isxdigit((unsigned char)p[digits]))
		digits++;
	/* fio: "0xff0x14" is two numbers */
	if (digits > 1 && p[digits] && p[digits - 1] == '0' && (p[digits] == 'x' || p[digits] == 'X'))
		digits--;
	if (!digits || (digits + 1) / 2 > room)
		return NULL;
	*n = 0;
	for (size_t i = 0; i < digits;) {
		size_t take = (digits - i) % 2 ? 1 : 2;   /* an odd count starts with one */
		char byte[3] = { p[i], take == 2 ? p[i + 1] : '\0', '\0' };

		out[(*n)++] = (uint8_t)strtoul(byte, NULL, 16);
		i += take;
	}
	return p + digits;
}

static const char *pattern_decimal(const char *p, uint8_t *out, size_t room, size_t *n)
{
	char *end;
	long v;
	unsigned u;

	errno = 0;
	v = strtol(p, &end, 10);
	if (end == p || errno || v > INT_MAX || v < INT_MIN || !room)
		return NULL;
	u = (unsigned)v;
	*n = 0;
	if (!u)
		out[(*n)++] = 0;
	for (; u; u >>= 8) {
		if (*n == room)
			return NULL;
		out[(*n)++] = (uint8_t)(u & 0xff);
	}
	return end;
}

static const char *pattern_quoted(const char *p, uint8_t *out, size_t room, size_t *n)
{
	const char *close = strchr(p + 1, p[0]);
	size_t len;

	if (!close)
		return NULL;
	len = (size_t)(close - p - 1);
	if (p[0] == '"') {
		if (!len || len > room)
			return NULL;
		memcpy(out, p + 1, len);
		*n = len;
	} else {   /* 'file': as much of it as fits, as fio */
		char path[4096];
		FILE *f;

		snprintf(path, sizeof(path), "%.*s", (int)len, p + 1);
		f = fopen(path, "rb");
		if (!f)
			return NULL;
		*n = fread(out, 1, room, f);
		fclose(f);
		if (!*n)
			return NULL;
	}
	return close + 1;
}

static int opt_buffer_pattern(struct parse_ctx *c, struct iogap_job *j, const char *key,
			      const char *val)
{
	bool verify = !strcmp(key, "verify_pattern");   /* the same syntax */
	uint8_t *pat = verify ? j->verify_pattern : j->buffer_pattern;
	size_t total = 0;

	NEED_VALUE(c, key, val);
	if (verify)
		j->verify_fmt_nr = 0;
	for (const char *p = val; *p;) {
		size_t room = sizeof(j->buffer_pattern) - total, n = 0;

		if (verify && !strncmp(p, "%o", 2)) {   /* fio's only format: 8 bytes */
			if (room < 8 || j->verify_fmt_nr == IOGAP_VERIFY_FMT_MAX)
				return bad_value(c, key, val, "at most 8 %o, in 512 bytes");
			j->verify_fmt_off[j->verify_fmt_nr++] = (uint16_t)total;
			memset(pat + total, 0, 8);
			total += 8;
			p += 2;
			continue;
		}
		if (*p == '"' || *p == '\'')
			p = pattern_quoted(p, pat + total, room, &n);
		else if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
			p = pattern_hex(p, pat + total, room, &n);
		else
			p = pattern_decimal(p, pat + total, room, &n);
		if (!p)
			return bad_value(c, key, val, "fio's pattern: 0x hex, \"string\", a decimal "
					 "number or 'file' (verify_pattern: or %o), in any order, at "
					 "most 512 bytes");
		total += n;
	}
	*(verify ? &j->verify_pattern_len : &j->buffer_pattern_len) = (unsigned)total;
	return 0;
}

BOOL_OPT(opt_hipri, hipri)
BOOL_OPT(opt_nowait, nowait)
BOOL_OPT(opt_uncached, uncached)
UINT_OPT(opt_force_async, force_async, 2147483647, 0)
BOOL_OPT(opt_userspace_reap, userspace_reap)
BOOL_OPT(opt_thp, thp)
UINT_OPT(opt_hipri_percentage, hipri_percentage, 100, 0)
BOOL_OPT(opt_fixedbufs, fixedbufs)
BOOL_OPT(opt_registerfiles, registerfiles)
BOOL_OPT(opt_sqthread_poll, sqthread_poll)

static int opt_sqthread_poll_cpu(struct parse_ctx *c, struct iogap_job *j, const char *key,
				 const char *val)
{
	unsigned long long v;

	NEED_VALUE(c, key, val);
	if (parse_uint(val, INT32_MAX, &v))
		return bad_value(c, key, val, "expected a CPU number");
	j->sqthread_poll_cpu = (int)v;
	return 0;
}

/* fio's nonvectored is an int: -1 (its default) probes, 0 is vectored, any
 * other value is not */
static int opt_nonvectored(struct parse_ctx *c, struct iogap_job *j, const char *key,
			   const char *val)
{
	unsigned long long v;

	NEED_VALUE(c, key, val);
	if (!strcmp(val, "-1")) {
		j->nonvectored = -1;
		return 0;
	}
	if (parse_uint(val, INT32_MAX, &v))
		return bad_value(c, key, val, "expected -1, 0 or 1");
	j->nonvectored = v != 0;
	return 0;
}

/* io_uring_cmd's cmd_type: fio 3.33 has nvme only */
static int opt_cmd_type(struct parse_ctx *c, struct iogap_job *j, const char *key, const char *val)
{
	NEED_VALUE(c, key, val);
	if (strcmp(val, "nvme"))
		return bad_value(c, key, val, "expected nvme");
	j->cmd_type_set = true;
	return 0;
}

static int opt_touch_objects(struct parse_ctx *c, struct iogap_job *j, const char *key,
			     const char *val)
{
	bool v;

	if (parse_bool(val, &v))
		return bad_value(c, key, val, "expected 0 or 1");
	j->rados_touch_objects = v;
	return 0;
}

static int opt_busy_poll(struct parse_ctx *c, struct iogap_job *j, const char *key, const char *val)
{
	if (parse_bool(val, &j->rbd_busy_poll))
		return bad_value(c, key, val, "expected 0 or 1");
	return 0;
}

/* ---- zoned workloads (zbd.c) ---- */

static int opt_zonemode(struct parse_ctx *c, struct iogap_job *j, const char *key, const char *val)
{
	NEED_VALUE(c, key, val);
	if (!strcmp(val, "none"))
		j->zone_mode = IOGAP_ZONE_MODE_NONE;
	else if (!strcmp(val, "strided"))
		j->zone_mode = IOGAP_ZONE_MODE_STRIDED;
	else if (!strcmp(val, "zbd"))
		j->zone_mode = IOGAP_ZONE_MODE_ZBD;
	else
		return bad_value(c, key, val, "expected none, strided or zbd");
	return 0;
}
SIZE_OPT(opt_zonesize, zone_size)
SIZE_OPT(opt_zonecapacity, zone_capacity)
SIZE_OPT(opt_zonerange, zone_range)

/* zoneskip=SIZE or Nz (N zones, as fio) */
static int opt_zoneskip(struct parse_ctx *c, struct iogap_job *j, const char *key, const char *val)
{
	unsigned long long n;
	size_t len;

	NEED_VALUE(c, key, val);
	len = strlen(val);
	if (len > 1 && (val[len - 1] == 'z' || val[len - 1] == 'Z')) {
		char buf[32];

		snprintf(buf, sizeof(buf), "%.*s", (int)(len - 1), val);
		if (parse_uint(buf, UINT32_MAX, &n))
			return bad_value(c, key, val, "expected a size or a zone count such as 2z");
		j->zone_skip_nz = (unsigned)n;
		j->zone_skip = 0;
		return 0;
	}
	j->zone_skip_nz = 0;
	if (iogap_parse_size(val, &j->zone_skip))
		return bad_value(c, key, val, "expected a size or a zone count such as 2z");
	return 0;
}
UINT_OPT(opt_max_open_zones, max_open_zones, 4096, 0)   /* IOGAP_ZBD_MAX_OPEN_ZONES */
UINT_OPT(opt_job_max_open_zones, job_max_open_zones, 4096, 0)
BOOL_OPT(opt_read_beyond_wp, read_beyond_wp)
BOOL_OPT(opt_ignore_zone_limits, ignore_zone_limits)

static int opt_zone_reset(struct parse_ctx *c, struct iogap_job *j, const char *key, const char *val)
{
	char *end;
	double v;

	NEED_VALUE(c, key, val);
	v = strtod(val, &end);
	if (end == val || *end || !(v >= 0.0 && v <= 1.0))
		return bad_value(c, key, val, "expected a number from 0 to 1");
	if (!strcmp(key, "zone_reset_threshold"))
		j->zone_reset_threshold = v;
	else
		j->zone_reset_frequency = v;
	return 0;
}

struct opt_def {
	const char *name;
	opt_fn fn;
};

static const struct opt_def options[] = {
	{ "name", opt_name },
	{ "description", opt_description },
	{ "ioengine", opt_ioengine },
	{ "size", opt_size },
	{ "offset", opt_offset },
	{ "io_size", opt_io_size },
	{ "io_limit", opt_io_size },
	{ "bs", opt_bs },
	{ "blocksize", opt_bs },
	{ "bsrange", opt_bsrange },
	{ "blocksize_range", opt_bsrange },
	{ "bssplit", opt_bssplit },
	{ "blockalign", opt_blockalign },
	{ "ba", opt_blockalign },
	{ "bs_unaligned", opt_bs_unaligned },
	{ "rw", opt_rw },
	{ "readwrite", opt_rw },
	{ "rw_sequencer", opt_rw_sequencer },
	{ "rwmixread", opt_rwmix },
	{ "rwmixwrite", opt_rwmix },
	{ "iodepth", opt_iodepth },
	{ "iodepth_batch", opt_iodepth_batch },
	{ "iodepth_batch_submit", opt_iodepth_batch },
	{ "iodepth_batch_complete", opt_iodepth_batch_complete_min },
	{ "iodepth_batch_complete_min", opt_iodepth_batch_complete_min },
	{ "iodepth_batch_complete_max", opt_iodepth_batch_complete_max },
	{ "iodepth_low", opt_iodepth_low },
	{ "numjobs", opt_numjobs },
	{ "loops", opt_loops },
	{ "runtime", opt_runtime },
	{ "timeout", opt_runtime },
	{ "time_based", opt_time_based },
	{ "ramp_time", opt_ramp_time },
	{ "startdelay", opt_startdelay },
	{ "thinktime", opt_thinktime },
	{ "thinktime_spin", opt_thinktime_spin },
	{ "thinktime_blocks", opt_thinktime_blocks },
	{ "thinktime_blocks_type", opt_thinktime_blocks_type },
	{ "direct", opt_direct },
	{ "buffered", opt_buffered },
	{ "sync", opt_sync },
	{ "fsync", opt_fsync },
	{ "fdatasync", opt_fdatasync },
	{ "end_fsync", opt_end_fsync },
	{ "invalidate", opt_invalidate },
	{ "create_on_open", opt_create_on_open },
	{ "allow_file_create", opt_allow_file_create },
	{ "norandommap", opt_norandommap },
	{ "randrepeat", opt_randrepeat },
	{ "randseed", opt_randseed },
	{ "random_distribution", opt_random_distribution },
	{ "random_generator", opt_random_generator },
	{ "group_reporting", opt_group_reporting },
	{ "stonewall", opt_stonewall },
	{ "wait_for_previous", opt_stonewall },
	{ "new_group", opt_new_group },
	{ "thread", opt_thread },
	{ "cpus_allowed", opt_cpus_allowed },
	{ "cpus_allowed_policy", opt_cpus_allowed_policy },
	{ "rate_iops", opt_rate_iops },
	{ "rate", opt_rate },
	{ "write_lat_log", opt_write_log },
	{ "write_bw_log", opt_write_log },
	{ "write_iops_log", opt_write_log },
	{ "write_hist_log", opt_write_log },
	{ "log_avg_msec", opt_log_avg_msec },
	{ "log_hist_msec", opt_log_hist_msec },
	{ "log_hist_coarseness", opt_log_hist_coarseness },
	{ "per_job_logs", opt_per_job_logs },
	{ "log_max_value", opt_log_max_value },
	{ "log_prio", opt_log_prio },
	{ "significant_figures", opt_significant_figures },
	{ "rate_min", opt_rate },
	{ "ratemin", opt_rate },
	{ "rate_iops_min", opt_rate_iops },
	{ "ratecycle", opt_ratecycle },
	{ "rate_cycle", opt_ratecycle },   /* fio's name; ratecycle its alias */
	{ "rate_process", opt_rate_process },
	{ "latency_run", opt_latency_run },
	{ "exitall_on_error", opt_exitall_on_error },
	{ "wait_for", opt_wait_for },
	{ "refill_buffers", opt_refill_buffers },
	{ "write_iolog", opt_iolog_str },
	{ "read_iolog", opt_iolog_str },
	{ "merge_blktrace_file", opt_iolog_str },
	{ "merge_blktrace_scalars", opt_merge_list },
	{ "merge_blktrace_iters", opt_merge_list },
	{ "replay_redirect", opt_iolog_str },
	{ "read_iolog_chunked", opt_read_iolog_chunked },
	{ "replay_no_stall", opt_replay_no_stall },
	{ "replay_time_scale", opt_replay_num },
	{ "replay_scale", opt_replay_num },
	{ "replay_align", opt_replay_num },
	{ "replay_skip", opt_replay_skip },
	{ "log_offset", opt_log_offset },
	{ "percentile_list", opt_percentile_list },
	{ "clat_percentiles", opt_clat_percentiles },
	{ "lat_percentiles", opt_lat_percentiles },
	{ "slat_percentiles", opt_slat_percentiles },
	{ "sync_file_range", opt_sync_file_range },
	{ "threads", opt_thread },
	{ "continue_on_error", opt_continue_on_error },
	{ "offset_increment", opt_offset_increment },
	{ "number_ios", opt_number_ios },
	{ "unlink", opt_unlink },
	{ "exitall", opt_exitall },
	{ "exit_what", opt_exit_what },
	{ "file_append", opt_file_append },
	{ "gtod_reduce", opt_gtod_reduce },
	{ "disable_lat", opt_disable_lat },
	{ "disable_clat", opt_disable_clat },
	{ "disable_slat", opt_disable_slat },
	{ "disable_bw_measurement", opt_disable_bw },
	{ "disable_bw", opt_disable_bw },
	{ "percentage_random", opt_percentage_random },
	{ "cpumask", opt_cpumask },
	{ "clocksource", opt_clocksource },
	{ "zonemode", opt_zonemode },
	{ "zonesize", opt_zonesize },
	{ "zonecapacity", opt_zonecapacity },
	{ "zonerange", opt_zonerange },
	{ "zoneskip", opt_zoneskip },
	{ "read_beyond_wp", opt_read_beyond_wp },
	{ "max_open_zones", opt_max_open_zones },
	{ "job_max_open_zones", opt_job_max_open_zones },
	{ "ignore_zone_limits", opt_ignore_zone_limits },
	{ "zone_reset_threshold", opt_zone_reset },
	{ "zone_reset_frequency", opt_zone_reset },
	{ "clientname", opt_rbd_str },
	{ "pool", opt_rbd_str },
	{ "rbdname", opt_rbd_str },
	{ "clustername", opt_rbd_str },
	{ "ceph_conf", opt_rbd_str },
	{ "conf", opt_rbd_str },
	{ "touch_objects", opt_touch_objects },
	{ "busy_poll", opt_busy_poll },
	{ "hipri", opt_hipri },
	{ "hipri_percentage", opt_hipri_percentage },
	{ "nowait", opt_nowait },
	{ "uncached", opt_uncached },
	{ "force_async", opt_force_async },
	{ "userspace_reap", opt_userspace_reap },
	{ "thp", opt_thp },
	{ "fixedbufs", opt_fixedbufs },
	{ "registerfiles", opt_registerfiles },
	{ "sqthread_poll", opt_sqthread_poll },
	{ "sqthread_poll_cpu", opt_sqthread_poll_cpu },
	{ "nonvectored", opt_nonvectored },
	{ "cmd_type", opt_cmd_type },
	{ "buffer_pattern", opt_buffer_pattern },
	{ "verify", opt_verify },
	{ "do_verify", opt_do_verify },
	{ "verify_fatal", opt_verify_fatal },
	{ "verify_dump", opt_verify_dump },
	{ "verify_async", opt_verify_async },
	{ "verify_pattern", opt_buffer_pattern },
	{ "experimental_verify", opt_experimental_verify },
	{ "verify_only", opt_verify_only },
	{ "verify_state_save", opt_verify_state_save },
	{ "verify_state_load", opt_verify_state_load },
	{ "verify_interval", opt_verify_interval },
	{ "verify_backlog", opt_verify_backlog },
	{ "verify_backlog_batch", opt_verify_backlog_batch },
};

/* ---- job list building ------------------------------------------------ */

static void job_defaults(struct iogap_job *j)
{
	memset(j, 0, sizeof(*j));
	for (int d = 0; d < IOGAP_DDIR_NR; d++)
		j->bs[d] = j->bs_min[d] = j->bs_max[d] = 4096;
	j->rw = IOGAP_RW_READ;
	j->rwmix[0] = 50;
	j->rwmix[1] = 50;
	j->iodepth = 1;
	j->iodepth_batch = 1;          /* fio: submit each I/O as soon as it is ready */
	j->iodepth_batch_complete_min = 1;
	j->numjobs = 1;
	j->loops = 1;
	j->invalidate = true;
	j->allow_file_create = true;
	j->randrepeat = true;
	j->clat_percentiles = true;
	j->hipri_percentage = 100;
	j->sqthread_poll_cpu = -1;
	j->nonvectored = -1;
	j->rados_touch_objects = -1;
	j->thinktime_blocks = 1;
	j->do_verify = true;
	j->verify_state_save = true;
	j->nrfiles = 1;
	j->file_service_nr = 1;
	j->file_service_center = -1;
	j->create_serialize = true;
	j->create_fsync = true;
	j->replay_time_scale = 100;
	j->per_job_logs = true;
	j->sig_figs = 4;
	j->ratecycle_ms = 1000;
	j->bufopts.compress_chunk = 512;
	j->bufopts.dedupe_working_set_percentage = 5;
	j->replay_scale = 1;
	j->ss_state = IOGAP_SS_IOPS | IOGAP_SS_SLOPE | IOGAP_SS_PCT;   /* fio's iops_slope:0.01% */
	j->ss_limit = 0.01;
	j->latency_percentile = 100.0;
	for (int d = 0; d < IOGAP_DDIR_NR; d++)
		j->percentage_random[d] = 100;
	iogap_job_proc_defaults(&j->proc);
	iogap_job_data_defaults(j);
}

static char *xstrdup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

/* dst: a copy of src's options (NULL, 0 when it has none); -1 when out of memory */
static int kv_copy(struct iogap_job_kv **dst, size_t *dst_nr, const struct iogap_job *src)
{
	*dst = NULL;
	*dst_nr = 0;
	if (!src->kv_nr)
		return 0;
	*dst = calloc(src->kv_nr, sizeof(**dst));
	if (!*dst)
		return -1;
	for (size_t i = 0; i < src->kv_nr; i++) {
		(*dst)[i].key = strdup(src->kv[i].key);
		(*dst)[i].value = xstrdup_or_null(src->kv[i].value);
	}
	*dst_nr = src->kv_nr;
	return 0;
}

/* Deep copy, so a job section starts from the [global] state. */
static int job_copy(struct iogap_job *dst, const struct iogap_job *src)
{
	*dst = *src;
	dst->name = xstrdup_or_null(src->name);
	dst->filename = xstrdup_or_null(src->filename);
	if (iogap_job_files_copy(dst, src))
		return -1;
	dst->ioengine = xstrdup_or_null(src->ioengine);
	dst->write_lat_log = xstrdup_or_null(src->write_lat_log);
	dst->write_iolog = xstrdup_or_null(src->write_iolog);
	dst->write_bw_log = xstrdup_or_null(src->write_bw_log);
	dst->wait_for = xstrdup_or_null(src->wait_for);
	dst->write_iops_log = xstrdup_or_null(src->write_iops_log);
	dst->write_hist_log = xstrdup_or_null(src->write_hist_log);
	dst->read_iolog = xstrdup_or_null(src->read_iolog);
	dst->merge_blktrace_file = xstrdup_or_null(src->merge_blktrace_file);
	dst->replay_redirect = xstrdup_or_null(src->replay_redirect);
	dst->description = xstrdup_or_null(src->description);
	dst->directory = xstrdup_or_null(src->directory);
	dst->filename_format = xstrdup_or_null(src->filename_format);
	dst->source_file = xstrdup_or_null(src->source_file);
	dst->rbd_clientname = xstrdup_or_null(src->rbd_clientname);
	dst->rbd_pool = xstrdup_or_null(src->rbd_pool);
	dst->rbd_name = xstrdup_or_null(src->rbd_name);
	dst->rbd_clustername = xstrdup_or_null(src->rbd_clustername);
	dst->ceph_conf = xstrdup_or_null(src->ceph_conf);
	if (iogap_job_proc_copy(&dst->proc, &src->proc))
		return -1;
	return kv_copy(&dst->kv, &dst->kv_nr, src);
}

static void kv_free(struct iogap_job_kv *kv, size_t nr);

static void job_free(struct iogap_job *j)
{
	free(j->name);
	free(j->filename);
	iogap_job_files_free(j);
	free(j->ioengine);
	free(j->write_lat_log);
	free(j->write_iolog);
	free(j->write_bw_log);
	free(j->wait_for);
	free(j->write_iops_log);
	free(j->write_hist_log);
	free(j->read_iolog);
	free(j->merge_blktrace_file);
	free(j->replay_redirect);
	free(j->description);
	free(j->directory);
	free(j->filename_format);
	free(j->source_file);
	free(j->rbd_clientname);
	free(j->rbd_pool);
	free(j->rbd_name);
	free(j->rbd_clustername);
	free(j->ceph_conf);
	iogap_job_proc_free(&j->proc);
	kv_free(j->kv, j->kv_nr);
}

static void kv_free(struct iogap_job_kv *kv, size_t nr)
{
	for (size_t i = 0; i < nr; i++) {
		free(kv[i].key);
		free(kv[i].value);
	}
	free(kv);
}

void iogap_job_list_free(struct iogap_job_list *list)
{
	for (size_t i = 0; i < list->nr; i++)
		job_free(&list->jobs[i]);
	free(list->jobs);
	kv_free(list->global_kv, list->global_kv_nr);
	memset(list, 0, sizeof(*list));
}

static int kv_record(struct iogap_job *j, const char *key, const char *val)
{
	struct iogap_job_kv *kv;

	/* a later setting of the same key replaces the earlier one */
	for (size_t i = 0; i < j->kv_nr; i++) {
		if (!strcmp(j->kv[i].key, key)) {
			free(j->kv[i].value);
			j->kv[i].value = xstrdup_or_null(val);
			return 0;
		}
	}
	kv = realloc(j->kv, (j->kv_nr + 1) * sizeof(*kv));
	if (!kv)
		return -1;
	j->kv = kv;
	kv[j->kv_nr].key = strdup(key);
	kv[j->kv_nr].value = xstrdup_or_null(val);
	j->kv_nr++;
	return 0;
}

/* Options of fio's engines that iogap lacks (or of their options it lacks),
 * so a rejection names the engine. */
static const struct {
	const char *name, *engine;
} engine_options[] = {
	{ "sg_write_mode", "sg" }, { "readfua", "sg" },
	{ "writefua", "sg" }, { "hostname", "net" }, { "port", "net" }, { "protocol", "net" },
	{ "listen", "net" }, { "pingpong", "net" }, { "interface", "net" }, { "ttl", "net" },
	{ "cpuload", "cpuio" }, { "cpuchunks", "cpuio" }, { "cpumode", "cpuio" },
	{ "exit_on_io_done", "cpuio" }, { "program", "exec" }, { "arguments", "exec" },
	{ "grace_time", "exec" }, { "std_redirect", "exec" }, { "donorname", "e4defrag" },
	{ "inplace", "e4defrag" }, { "stat_type", "filestat" }, { "nfs_url", "nfs" },
	{ "http_host", "http" }, { "http_user", "http" }, { "http_pass", "http" },
	{ "http_mode", "http" }, { "http_verbose", "http" }, { "http_s3_key", "http" },
	{ "skip_bad", "mtd" }, { "spdk_conf", "spdk" }
};

/* Which engines an engine's option belongs to (fio's per-engine option
 * sets); a message when j sets one its engine does not have. */
static const char *engine_option_misplaced(const struct iogap_job *j)
{
	const char *e = j->ioengine;
	bool pvsync2 = !strcmp(e, "pvsync2");
	bool uring = !strcmp(e, "io_uring") || !strcmp(e, "io_uring_cmd");

	if (j->hipri_percentage != 100 && !pvsync2)
		return "hipri_percentage is an option of ioengine=pvsync2";
	if (j->hipri && !pvsync2 && !uring)
		return "hipri is an option of ioengine=pvsync2 and io_uring(_cmd)";
	if (j->nowait && !pvsync2 && !uring && strcmp(e, "libaio"))
		return "nowait is an option of ioengine=pvsync2, libaio and io_uring(_cmd)";
	if (j->uncached && !pvsync2 && !uring)
		return "uncached is an option of ioengine=pvsync2 and io_uring(_cmd)";
	if (j->force_async && !uring)
		return "force_async is an option of ioengine=io_uring(_cmd)";
	if (j->userspace_reap && strcmp(e, "libaio"))
		return "userspace_reap is an option of ioengine=libaio";
	if (j->thp && strcmp(e, "mmap"))
		return "thp is an option of ioengine=mmap";
	return NULL;
}

/* Option families kept in files of their own: each returns 0 when it set
 * the option, -1 with a reason for a bad value, 1 when the key is not its. */
static int (*const option_families[])(struct iogap_job *j, const char *key, const char *val,
				     char *why, size_t whylen) = {
	iogap_job_file_option,    /* jobfiles.c */
	iogap_job_perf_option,    /* jobperf.c */
	iogap_job_flow_option,    /* jobflow.c */
	iogap_job_error_option,   /* errors.c */
	iogap_job_prio_option,    /* prio.c */
	iogap_job_numa_option,    /* numa.c */
	iogap_job_buf_option,     /* dedupe.c */
	iogap_job_proc_option,    /* jobproc.c */
	iogap_job_data_option,    /* jobopts_data.c */
};

static int set_option_in_base(struct parse_ctx *c, struct iogap_job *j, const char *key,
			      const char *val);

/* Sizes in the job's kb_base (fio's prio 1 option: put it first) */
static int set_option(struct parse_ctx *c, struct iogap_job *j, const char *key, const char *val)
{
	int r;

	size_kb_base = j->proc.kb_base;
	size_unit_seen = false;
	iogap_dprint(IOGAP_DBG_PARSE, "handle_option=%s, val=%s (job %s)\n", key, val ? val : "",
		     j->name ? j->name : "global");
	r = set_option_in_base(c, j, key, val);
	j->proc.sizes_seen |= !r && size_unit_seen && strcmp(key, "kb_base");
	size_kb_base = 0;
	return r;
}

static int set_option_in_base(struct parse_ctx *c, struct iogap_job *j, const char *key,
			      const char *val)
{
	char why[256];
	int r = 1;

	for (size_t i = 0; r == 1 && i < sizeof(option_families) / sizeof(option_families[0]); i++)
		r = option_families[i](j, key, val, why, sizeof(why));
	if (r < 0)
		return bad_value(c, key, val, why);
	if (r == 0)
		return kv_record(j, key, val) ? perr(c, "out of memory") : 0;
	for (size_t i = 0; i < sizeof(options) / sizeof(options[0]); i++) {
		if (!strcmp(options[i].name, key)) {
			if (options[i].fn(c, j, key, val))
				return -1;
			if (strcmp(key, "name") && kv_record(j, key, val))
				return perr(c, "out of memory");
			return 0;
		}
	}
	for (size_t i = 0; i < sizeof(engine_options) / sizeof(engine_options[0]); i++)
		if (!strcmp(engine_options[i].name, key))
			return perr(c, "option '%s' belongs to ioengine=%s, %s", key,
				    engine_options[i].engine, iogap_engine_find(engine_options[i].engine) ?
				    "whose option iogap-probe does not support" :
				    "an engine iogap-probe does not have");
	return perr(c, "option '%s' is not supported by iogap-probe", key);
}

/* ${VAR} and fio's $keywords; an unset variable is an error (fio would
 * substitute "" and fail later with a less helpful message). */
static int expand_vars(struct parse_ctx *c, const char *in, char *out, size_t outlen)
{
	size_t o = 0;

	while (*in) {
		const char *rep = NULL;
		char kwbuf[32];
		size_t skip = 0;

		if (in[0] == '$' && in[1] == '{') {
			const char *close = strchr(in, '}');
			char var[128];
			size_t n;

			if (!close)
				return perr(c, "unterminated '${' in '%s'", in);
			n = (size_t)(close - in - 2);
			if (n == 0 || n >= sizeof(var))
				return perr(c, "bad variable reference '%.*s'", (int)(close - in + 1), in);
			memcpy(var, in + 2, n);
			var[n] = '\0';
			rep = getenv(var);
			if (!rep)
				return perr(c, "environment variable '%s' is not set", var);
			skip = (size_t)(close - in + 1);
		} else if (in[0] == '$') {
			if (!strncmp(in, "$pagesize", 9)) {
				snprintf(kwbuf, sizeof(kwbuf), "%ld", sysconf(_SC_PAGESIZE));
				skip = 9;
			} else if (!strncmp(in, "$ncpus", 6)) {
				snprintf(kwbuf, sizeof(kwbuf), "%ld", sysconf(_SC_NPROCESSORS_CONF));
				skip = 6;
			} else if (!strncmp(in, "$mb_memory", 10)) {
				snprintf(kwbuf, sizeof(kwbuf), "%llu",
					 (unsigned long long)sysconf(_SC_PHYS_PAGES) *
					 (unsigned long long)sysconf(_SC_PAGESIZE) >> 20);
				skip = 10;
			}
			if (skip)
				rep = kwbuf;
		}
		if (rep) {
			size_t n = strlen(rep);

			if (o + n >= outlen)
				return perr(c, "line too long after variable expansion");
			memcpy(out + o, rep, n);
			o += n;
			in += skip;
			continue;
		}
		if (o + 1 >= outlen)
			return perr(c, "line too long");
		out[o++] = *in++;
	}
	out[o] = '\0';
	return 0;
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

static struct iogap_job *list_add(struct iogap_job_list *list, const struct iogap_job *proto)
{
	struct iogap_job *jobs = realloc(list->jobs, (list->nr + 1) * sizeof(*jobs));

	if (!jobs)
		return NULL;
	list->jobs = jobs;
	if (job_copy(&jobs[list->nr], proto))
		return NULL;
	return &jobs[list->nr++];
}

struct section_state {
	struct iogap_job global;
	struct iogap_job *cur;     /* job being filled, or &global */
	bool in_global;
};

static int start_section(struct parse_ctx *c, struct section_state *st, struct iogap_job_list *list,
			 const char *name)
{
	if (!*name)
		return perr(c, "empty section name");
	if (!strcmp(name, "global")) {
		/* a later [global] affects only the jobs after it, as in fio */
		st->cur = &st->global;
		st->in_global = true;
		return 0;
	}
	st->cur = list_add(list, &st->global);
	if (!st->cur)
		return perr(c, "out of memory");
	st->in_global = false;
	free(st->cur->name);
	st->cur->name = strdup(name);
	free(st->cur->source_file);
	st->cur->source_file = strdup(c->file ? c->file : "<cmdline>");
	st->cur->source_line = c->line;
	return 0;
}

/* fio's --showcmd: "fio --global-opt=v --name=job --opt=v ..." per file */
static void showcmd_section(struct parse_ctx *c, const char *name)
{
	if (!c->showcmd)
		return;
	if (!c->shown_any)
		fputs("fio ", c->showcmd);
	c->shown_any = true;
	if (strcmp(name, "global"))
		fprintf(c->showcmd, "--name=%s ", name);
}

static void showcmd_option(struct parse_ctx *c, const char *key, const char *val)
{
	if (!c->showcmd)
		return;
	if (val)
		fprintf(c->showcmd, "--%s=%s ", key, val);
	else
		fprintf(c->showcmd, "--%s ", key);
}

#define INCLUDE_DEPTH_MAX 16

static int lex_text(const char *name, const char *text, size_t len,
		    const struct iogap_jobfile_lexer *lx, char *err, size_t errlen, unsigned depth);

/* fio's "include FILE" inside a section: FILE's options (no sections) go
 * into it; a relative FILE that does not exist as given is looked up
 * beside the including file, as fio does. */
static int lex_include(struct parse_ctx *c, const char *fn, const struct iogap_jobfile_lexer *lx,
		       unsigned depth)
{
	const char *slash = strrchr(c->file, '/');
	char path[4096], *buf;
	struct stat st;
	size_t len;
	int r;

	if (!*fn)
		return perr(c, "include needs a file name");
	if (depth >= INCLUDE_DEPTH_MAX)
		return perr(c, "include %s: includes nested more than %d deep", fn, INCLUDE_DEPTH_MAX);
	if (fn[0] != '/' && access(fn, F_OK) && slash)
		snprintf(path, sizeof(path), "%.*s%s", (int)(slash - c->file + 1), c->file, fn);
	else
		snprintf(path, sizeof(path), "%s", fn);
	if (stat(path, &st))
		return perr(c, "include %s: %s", path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return perr(c, "include %s: not a regular file", path);
	buf = iogap_read_file(path, 64u << 20, &len);
	if (!buf)
		return perr(c, "include %s: %s", path, strerror(errno));
	if (lx->file)
		lx->file(lx->ctx, path);
	r = lex_text(path, buf, len, lx, c->err, c->errlen, depth + 1);
	if (lx->file)
		lx->file(lx->ctx, c->file);
	free(buf);
	return r;
}

int iogap_jobfile_lex(const char *name, const char *text, size_t len,
		      const struct iogap_jobfile_lexer *lx, char *err, size_t errlen)
{
	return lex_text(name, text, len, lx, err, errlen, 0);
}

static int lex_text(const char *name, const char *text, size_t len,
		    const struct iogap_jobfile_lexer *lx, char *err, size_t errlen, unsigned depth)
{
	struct parse_ctx c = { .file = name, .line = 0, .err = err, .errlen = errlen };
	const char *p = text, *end = text + len;
	bool in_section = depth > 0;   /* an included file adds to the section */

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char raw[4096], line[8192], *s, *eq, *key, *val = NULL;

		c.line++;
		if (n >= sizeof(raw))
			return perr(&c, "line longer than %zu characters", sizeof(raw) - 1);
		memcpy(raw, p, n);
		raw[n] = '\0';
		p = nl ? nl + 1 : end;
		if (memchr(raw, '\0', n))
			return perr(&c, "NUL byte in job file (binary file?)");
		s = trim(raw);
		if (!*s || *s == '#' || *s == ';')
			continue;
		if (*s == '[' && depth)
			return perr(&c, "no new sections in included files (fio's rule)");
		if (*s == '[') {
			char *close = strchr(s, ']');

			if (!close || trim(close + 1)[0])
				return perr(&c, "bad section header '%s'", s);
			*close = '\0';
			if (lx->section(lx->ctx, trim(s + 1), c.line))
				return -1;
			in_section = true;
			continue;
		}
		if (!in_section)
			return perr(&c, "option '%s' outside of a [section]", s);
		if (!strncmp(s, "include", 7) && isspace((unsigned char)s[7])) {
			if (lex_include(&c, trim(s + 8), lx, depth))
				return -1;
			continue;
		}
		if (lx->expand) {
			if (lx->expand(lx->ctx, s, line, sizeof(line), c.line))
				return -1;
		} else {
			snprintf(line, sizeof(line), "%s", s);
		}
		eq = strchr(line, '=');
		if (eq) {
			*eq = '\0';
			val = trim(eq + 1);
		}
		key = trim(line);
		/* fio allows trailing comments after a value */
		if (val) {
			char *hash = strpbrk(val, "#;");

			if (hash && hash > val && isspace((unsigned char)hash[-1])) {
				*hash = '\0';
				val = trim(val);
			}
		}
		if (!*key)
			return perr(&c, "missing option name before '='");
		if (lx->option(lx->ctx, key, val, c.line))
			return -1;
	}
	return 0;
}

/* the probe's parser on the lexer: sections become jobs, options are set */
struct parse_state {
	struct parse_ctx c;
	struct section_state st;
	struct iogap_job_list *list;
	bool skipping;             /* in a section --section left out */
};

static bool section_selected(const struct iogap_job_list *list, const char *name)
{
	if (!list->nr_sections || !strcmp(name, "global"))
		return true;
	for (size_t i = 0; i < list->nr_sections; i++)
		if (!strcmp(list->sections[i], name))
			return true;
	return false;
}

static int parse_section(void *ctx, const char *name, int line)
{
	struct parse_state *ps = ctx;

	ps->c.line = line;
	ps->skipping = !section_selected(ps->list, name);
	if (ps->skipping)
		return 0;
	if (start_section(&ps->c, &ps->st, ps->list, name))
		return -1;
	showcmd_section(&ps->c, name);
	return 0;
}

static int parse_option(void *ctx, const char *key, const char *val, int line)
{
	struct parse_state *ps = ctx;

	ps->c.line = line;
	if (ps->skipping)
		return 0;
	if (set_option(&ps->c, ps->st.cur, key, val))
		return -1;
	showcmd_option(&ps->c, key, val);
	return 0;
}

/* messages name the included file while the lexer is in it */
static void parse_file_switch(void *ctx, const char *name)
{
	struct parse_state *ps = ctx;

	ps->c.file = name;
}

static int parse_expand(void *ctx, const char *in, char *out, size_t outlen, int line)
{
	struct parse_state *ps = ctx;

	ps->c.line = line;
	return expand_vars(&ps->c, in, out, outlen);
}

static int parse_text(struct parse_ctx *pc, const char *text, size_t len,
		      const struct iogap_job *defaults, struct iogap_job_list *list)
{
	struct parse_state ps = { .c = *pc, .list = list };
	const struct iogap_jobfile_lexer lx = { .ctx = &ps, .section = parse_section,
						.option = parse_option, .expand = parse_expand,
						.file = parse_file_switch };
	const char *name = pc->file;
	char *err = pc->err;
	size_t errlen = pc->errlen;
	size_t first_job = list->nr;
	int ret = -1;

	if (defaults) {
		if (job_copy(&ps.st.global, defaults)) {
			snprintf(err, errlen, "%s: out of memory", name);
			return -1;
		}
	} else {
		job_defaults(&ps.st.global);
	}
	ps.st.cur = NULL;
	ps.st.in_global = false;
	if (iogap_jobfile_lex(name, text, len, &lx, err, errlen))
		goto out;
	if (list->nr == first_job && !list->nr_sections) {
		snprintf(err, errlen, "%s: no job sections (only [global] or nothing)", name);
		goto out;
	}
	if (!list->global_kv && ps.st.global.kv_nr) {
		/* hand the [global] options over to the list */
		list->global_kv = ps.st.global.kv;
		list->global_kv_nr = ps.st.global.kv_nr;
		ps.st.global.kv = NULL;
		ps.st.global.kv_nr = 0;
	}
	if (ps.c.showcmd)
		fputc('\n', ps.c.showcmd);
	ret = 0;
out:
	job_free(&ps.st.global);
	if (ret) {
		while (list->nr > first_job)
			job_free(&list->jobs[--list->nr]);
	}
	return ret;
}

int iogap_jobfile_parse_buf(const char *name, const char *text, size_t len,
			    const struct iogap_job *defaults, struct iogap_job_list *list,
			    char *err, size_t errlen)
{
	struct parse_ctx c = { .file = name, .line = 0, .err = err, .errlen = errlen };

	return parse_text(&c, text, len, defaults, list);
}

static int parse_file(const char *path, const struct iogap_job *defaults,
		      struct iogap_job_list *list, FILE *showcmd, char *err, size_t errlen)
{
	struct parse_ctx c = { .file = path, .err = err, .errlen = errlen, .showcmd = showcmd };
	size_t len;
	char *buf = iogap_read_file(path, 64u << 20, &len);
	int ret;

	if (!buf) {
		if (errno == EFBIG)
			return iogap_seterr(err, errlen, "%s: job file larger than 64 MiB", path);
		return iogap_seterr(err, errlen, "%s: cannot open job file: %s", path, strerror(errno));
	}
	ret = parse_text(&c, buf, len, defaults, list);
	free(buf);
	return ret;
}

int iogap_jobfile_parse(const char *path, const struct iogap_job *defaults,
			struct iogap_job_list *list, char *err, size_t errlen)
{
	return parse_file(path, defaults, list, NULL, err, errlen);
}

int iogap_jobfile_showcmd(const char *path, FILE *out, char *err, size_t errlen)
{
	struct iogap_job_list list = { 0 };
	int ret = parse_file(path, NULL, &list, out, err, errlen);

	iogap_job_list_free(&list);
	return ret;
}

/* Command line: options before the first --name are global; each --name
 * starts a job, as fio does. */
int iogap_cmdline_add(struct iogap_job_list *list, struct iogap_job *global, bool *have_global,
		      const char *key, const char *val, char *err, size_t errlen)
{
	struct parse_ctx c = { .file = NULL, .err = err, .errlen = errlen };
	char expanded[8192];
	struct iogap_job *target;

	if (!*have_global) {
		job_defaults(global);
		*have_global = true;
	}
	if (val) {
		if (expand_vars(&c, val, expanded, sizeof(expanded)))
			return -1;
		val = expanded;
	}
	if (!strcmp(key, "name")) {
		struct iogap_job *j;

		if (!val || !*val)
			return perr(&c, "option 'name' needs a value");
		j = list_add(list, global);
		if (!j)
			return perr(&c, "out of memory");
		free(j->name);
		j->name = strdup(val);
		j->source_file = strdup("<command line>");
		/* fio's JSON: the options before the first --name are its "global
		 * options", and a command-line job's own list starts with its name */
		if (!list->global_kv && global->kv_nr && kv_copy(&list->global_kv,
								 &list->global_kv_nr, global))
			return perr(&c, "out of memory");
		if (!j->name || !j->source_file || kv_record(j, "name", val))
			return perr(&c, "out of memory");
		return 0;
	}
	target = list->nr ? &list->jobs[list->nr - 1] : global;
	if (list->nr && strcmp(list->jobs[list->nr - 1].source_file, "<command line>"))
		target = global;
	if (set_option(&c, target, key, val)) {
		/* prefix so the user knows where it came from */
		char tmp[1024];

		snprintf(tmp, sizeof(tmp), "command line: %s", err);
		snprintf(err, errlen, "%s", tmp);
		return -1;
	}
	return 0;
}

int iogap_job_set(struct iogap_job *job, const char *origin, const char *key, const char *val,
		  char *err, size_t errlen)
{
	struct parse_ctx c = { .file = origin, .err = err, .errlen = errlen };

	return set_option(&c, job, key, val);
}

void iogap_cmdline_global_free(struct iogap_job *global)
{
	job_free(global);
}

static uint32_t gcd32(uint32_t a, uint32_t b)
{
	while (b) {
		uint32_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/* Each interval holds the header after a write tag, verify_offset leaves
 * the header inside it, and sha512's bytes (the data's first and last,
 * sha.h) need 128 bytes of data: fio would read bytes it never set. */
static int check_verify_room(struct parse_ctx *c, const struct iogap_job *j, uint32_t iv)
{
	unsigned hsz = iogap_verify_hdr_size(j->verify);
	unsigned least = hsz ? (unsigned)sizeof(struct iogap_write_tag) + hsz : 0;

	if (j->verify == IOGAP_VERIFY_SHA512)
		least += 128;
	if (iv < least)
		return perr(c, "job '%s': verify_interval %u is smaller than a verify header after "
			    "a write tag%s (%u bytes)", j->name, iv,
			    j->verify == IOGAP_VERIFY_SHA512 ? " and sha512's 128 bytes of data" : "",
			    least);
	if (hsz && j->verify_offset > iv - hsz)   /* fio would write past the block */
		return perr(c, "job '%s': verify_offset %u leaves no room for the verify header "
			    "(%u bytes with %s) in verify_interval %u", j->name, j->verify_offset, hsz,
			    j->verify == IOGAP_VERIFY_META ? "meta" : "its checksum", iv);
	return 0;
}

/* fio's fixup_options for verify=: its warnings and verify_interval's
 * default (a divisor of every write size, at most the smallest). */
static int finalize_verify(struct parse_ctx *c, struct iogap_job *j, bool named)
{
	const char *fmt = j->filename_format ? j->filename_format : "$jobname.$jobnum.$filenum";
	const unsigned W = 1;   /* fio's DDIR_WRITE */
	uint32_t *iv = &j->verify_interval;

	if (j->verify_only && j->time_based)   /* fio's HOWTO: not supported */
		return perr(c, "job '%s': verify_only does not support time_based", j->name);
	if (j->verify_pattern_len && !j->verify_set)   /* fio's str_verify_pattern_cb */
		j->verify = IOGAP_VERIFY_PATTERN;
	if (j->verify == IOGAP_VERIFY_PATTERN_NO_HDR && !j->verify_pattern_len)
		return perr(c, "job '%s': verify=pattern needs verify_pattern", j->name);
	if (!j->verify)
		return 0;
	/* fio's test: the clones may share a file */
	if (j->rw & IOGAP_RW_WRITE && j->do_verify && j->numjobs > 1 &&
	    (named || !strstr(fmt, "$jobname") || !strstr(fmt, "$jobnum") || !strstr(fmt, "$filenum")))
		fprintf(stderr, "fio: multiple writers may overwrite blocks that belong to other "
			"jobs. This can cause verification failures.\n");
	if (j->rw & IOGAP_RW_WRITE && j->do_verify && j->runtime_ns && j->time_based &&
	    !(j->rw & IOGAP_RW_READ))
		fprintf(stderr, "fio: verification read phase will never start because write "
			"phase uses all of runtime\n");
	if (j->bs_min[W] != j->bs_max[W] && !*iv)
		*iv = j->bs_min[W];
	if (*iv > j->bs_min[W])
		*iv = j->bs_min[W];
	else if (j->rw & IOGAP_RW_READ && *iv > j->bs_min[0])
		*iv = j->bs_min[0];
	if (!*iv || j->bs_min[W] % *iv || j->bs_max[W] % *iv)
		*iv = gcd32(j->bs_min[W], j->bs_max[W]);
	return check_verify_room(c, j, *iv);
}

/* fio's fixup_options for the rates: bytes or IOPS, not both; the
 * minimum below the rate */
static int finalize_rates(struct parse_ctx *c, const struct iogap_job *j)
{
	bool bytes = false, iops = false, bytes_min = false, iops_min = false;

	for (int d = 0; d < IOGAP_DDIR_NR; d++) {
		bytes |= j->rate[d] != 0;
		iops |= j->rate_iops[d] != 0;
		bytes_min |= j->rate_min[d] != 0;
		iops_min |= j->rate_iops_min[d] != 0;
		if ((j->rate[d] && j->rate[d] < j->rate_min[d]) ||
		    (j->rate_iops[d] && j->rate_iops[d] < j->rate_iops_min[d]))
			return perr(c, "job '%s': minimum rate exceeds rate, ddir %d (fio's check)",
				    j->name, d);
	}
	if ((bytes && iops) || (bytes_min && iops_min))
		return perr(c, "job '%s': rate and rate_iops are mutually exclusive (fio's check)",
			    j->name);
	return 0;
}

/* fio's fixup_options: derived defaults and cross-option checks. */
int iogap_job_finalize(struct iogap_job *j, char *err, size_t errlen)
{
	struct parse_ctx c = { .file = j->source_file, .line = j->source_line,
			       .err = err, .errlen = errlen };
	bool named, uring;

	if (iogap_job_iolog_check(j, err, errlen))
		return -1;
	if (!j->ioengine)
		j->ioengine = strdup("psync");
	if (!j->ioengine)
		return perr(&c, "out of memory");
	j->engine = iogap_engine_find(j->ioengine);
	if (!j->engine)
		return perr(&c, "job '%s': engine '%s' is not supported (supported: %s)", j->name,
			    j->ioengine, iogap_engine_names());
	if (!strcmp(j->ioengine, "rbd")) {
		if (!j->rbd_pool || !j->rbd_name)
			return perr(&c, "job '%s': ioengine=rbd needs pool= and rbdname=", j->name);
		if (!j->filename) {
			/* fio calls it "rbd"; a name that says which image */
			size_t n = strlen(j->rbd_pool) + strlen(j->rbd_name) + 6;

			j->filename = malloc(n);
			if (!j->filename)
				return perr(&c, "out of memory");
			snprintf(j->filename, n, "rbd:%s/%s", j->rbd_pool, j->rbd_name);
		}
	} else if (!strcmp(j->ioengine, "rados")) {
		if (!j->rbd_pool)
			return perr(&c, "job '%s': ioengine=rados needs pool=", j->name);
		if (j->rbd_name)
			return perr(&c, "job '%s': rbdname applies to ioengine=rbd, not rados", j->name);
		if (j->rados_touch_objects < 0)
			j->rados_touch_objects = 1;   /* fio's default */
	} else if (j->rbd_clientname || j->rbd_pool || j->rbd_name || j->rbd_clustername ||
		   j->ceph_conf || j->rbd_busy_poll) {
		return perr(&c, "job '%s': clientname, pool, rbdname, clustername, ceph_conf/conf and "
			    "busy_poll apply only to ioengine=rbd and rados", j->name);
	}
	{
		char serr[256];

		if (iogap_job_submit_check(j, serr, sizeof(serr)))   /* jobflow.c */
			return perr(&c, "job '%s': %s", j->name, serr);
	}
	if (j->rados_touch_objects >= 0 && strcmp(j->ioengine, "rados"))
		return perr(&c, "job '%s': touch_objects applies only to ioengine=rados", j->name);
	if (j->engine->flags & (IOGAP_ENGINE_SYNC | IOGAP_ENGINE_SYNC_ISSUE) &&
	    j->iodepth > 1)   /* fio's note (its iodepth option, and JSON, keep the value) */
		fprintf(stderr, "note: both iodepth >= 1 and synchronous I/O engine are selected, "
			"queue depth will be capped at 1\n");
	if (engine_option_misplaced(j))
		return perr(&c, "job '%s': %s", j->name, engine_option_misplaced(j));
	uring = !strcmp(j->ioengine, "io_uring") || !strcmp(j->ioengine, "io_uring_cmd");
	if ((j->fixedbufs || j->registerfiles || j->sqthread_poll || j->sqthread_poll_cpu >= 0 ||
	     j->nonvectored != -1) && !uring)
		return perr(&c, "job '%s': fixedbufs, registerfiles, sqthread_poll, "
			    "sqthread_poll_cpu and nonvectored are options of ioengine=io_uring and "
			    "io_uring_cmd, not of %s", j->name, j->ioengine);
	if (j->cmd_type_set && strcmp(j->ioengine, "io_uring_cmd"))
		return perr(&c, "job '%s': cmd_type applies only to ioengine=io_uring_cmd", j->name);
	if (j->directory && (!strcmp(j->ioengine, "rbd") || !strcmp(j->ioengine, "rados")))
		return perr(&c, "job '%s': directory does not apply to ioengine=%s", j->name,
			    j->ioengine);
	named = j->filename != NULL && !j->files;
	{
		char ferr[512];

		if (iogap_job_files_finalize(j, ferr, sizeof(ferr)))   /* jobfiles.c */
			return perr(&c, "%s", ferr);
	}
	if (j->block_error_hist && j->nrfiles != 1)   /* fio's check */
		return perr(&c, "job '%s': block error histogram only available with a single file "
			    "per job, but %u files provided", j->name, j->nrfiles);
	for (int d = 0; d < IOGAP_DDIR_NR; d++) {
		if (j->size && j->bs_max[d] > j->size && (j->rw & (1u << d)))
			return perr(&c, "job '%s': block size %u is larger than size %llu",
				    j->name, j->bs_max[d], (unsigned long long)j->size);
	}
	if (j->iodepth_batch == 0 || j->iodepth_batch > j->iodepth)
		j->iodepth_batch = j->iodepth;
	/* fio: iodepth_batch_complete_max defaults to the _min value (1); both 0
	 * is fio's polling (a completion reaped after every request) */
	if (j->iodepth_batch_complete_min > j->iodepth)
		j->iodepth_batch_complete_min = j->iodepth;
	if (j->iodepth_batch_complete_max < j->iodepth_batch_complete_min)
		j->iodepth_batch_complete_max = j->iodepth_batch_complete_min;
	if (j->iodepth_batch_complete_max > j->iodepth)
		j->iodepth_batch_complete_max = j->iodepth;
	if (j->iodepth_low == 0 || j->iodepth_low > j->iodepth)
		j->iodepth_low = j->iodepth;
	if (finalize_verify(&c, j, named) || finalize_rates(&c, j))
		return -1;
	{
		char gerr[512];

		if (iogap_job_prio_finalize(j, gerr, sizeof(gerr)) ||   /* prio.c */
		    iogap_job_buf_finalize(j, gerr, sizeof(gerr)))      /* dedupe.c */
			return perr(&c, "job '%s': %s", j->name, gerr);
	}
	iogap_job_proc_finalize(j);   /* jobproc.c */
	if (j->thinktime_spin_ns > j->thinktime_ns)
		return perr(&c, "job '%s': thinktime_spin is longer than thinktime", j->name);
	if (j->time_based && !j->runtime_ns) {
		/* fio warns and runs the job as if time_based were not set */
		fprintf(stderr, "iogap-probe: %s:%d: job '%s': time_based requires a runtime/timeout "
			"setting; ignored, as fio does\n", j->source_file, j->source_line, j->name);
		j->time_based = false;
	}
	if (!j->percentile_nr) {
		static const double def[] = { 1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95,
					      99, 99.5, 99.9, 99.95, 99.99 };
		memcpy(j->percentile_list, def, sizeof(def));
		j->percentile_nr = sizeof(def) / sizeof(def[0]);
	} else {
		/* fio sorts the list */
		for (unsigned a = 1; a < j->percentile_nr; a++)
			for (unsigned b = a; b > 0 && j->percentile_list[b - 1] > j->percentile_list[b]; b--) {
				double t = j->percentile_list[b];
				j->percentile_list[b] = j->percentile_list[b - 1];
				j->percentile_list[b - 1] = t;
			}
	}
	if (!j->randseed_set)
		j->randseed = 0x89;   /* fio's FIO_RANDSEED with randrepeat=1 */
	iogap_job_fix_random(j);   /* blockalign (jobrand.c) */
	{
		char zerr[512];

		if (iogap_zbd_job_check(j, zerr, sizeof(zerr)))   /* zonemode (zbd.c) */
			return perr(&c, "%s", zerr);
	}
	if ((j->size_nz || j->offset_nz || j->offset_increment_nz) && j->zone_mode != IOGAP_ZONE_MODE_ZBD)
		return perr(&c, "job '%s': sizes in zones ('z') need zonemode=zbd, as in fio", j->name);
	if (j->zone_size)
		iogap_job_resolve_zones(j, j->zone_size);
	return 0;
}

void iogap_job_resolve_zones(struct iogap_job *j, uint64_t zone_size)
{
	/* fio's zbd_setup_files: "Nz" values become N * the zone size */
	if (j->size_nz)
		j->size = j->size_nz * zone_size;
	if (j->offset_nz)
		j->offset = j->offset_nz * zone_size;
	if (j->offset_increment_nz)
		j->offset_increment = j->offset_increment_nz * zone_size;
	j->size_nz = j->offset_nz = j->offset_increment_nz = 0;
}
