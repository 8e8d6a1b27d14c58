/* SPDX-License-Identifier: MIT */
/*
 * fio's I/O logs (its iolog.c and blktrace.c, rewritten): the version 3
 * text log write_iolog writes, and the reader read_iolog replays — text
 * versions 2 and 3, or a blktrace capture (blkparse -d output), told apart
 * by the blktrace magic in the first record.  Where fio prints "bad
 * iolog" and skips a line, iogap stops with file:line: a replay that
 * silently drops requests is not the recorded workload.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "blktrace.h"
#include "iolog.h"
#include "util.h"
#include "debug.h"

static const char *const act_names[] = {
	[IOGAP_IOLOG_READ] = "read", [IOGAP_IOLOG_WRITE] = "write", [IOGAP_IOLOG_TRIM] = "trim",
	[IOGAP_IOLOG_SYNC] = "sync", [IOGAP_IOLOG_DATASYNC] = "datasync",
	[IOGAP_IOLOG_SYNC_FILE_RANGE] = "sync_file_range", [IOGAP_IOLOG_WAIT] = "wait",
	[IOGAP_IOLOG_ADD] = "add", [IOGAP_IOLOG_OPEN] = "open", [IOGAP_IOLOG_CLOSE] = "close",
};

#define IOLOG_V2 "fio version 2 iolog"
#define IOLOG_V3 "fio version 3 iolog"
#define IOLOG_LINE_MAX 4095     /* fio reads lines with fgets(4096) */
#define IOLOG_NAME_MAX 256      /* and names with %256s */
#define NAME_BUF 4352           /* a name: the log's, replay_redirect or /dev/... */

struct iogap_iolog_reader {
	FILE *f;
	char *path;
	bool blktrace, swap;
	int version;              /* text: 2 or 3 */
	uint64_t line;            /* text: line number; blktrace: record number */
	uint64_t last_ttime;      /* fio's io_log_last_ttime */
	const struct iogap_job *job;   /* the replay_* options */
	char *buf;                /* text: the current line */
	size_t cap;
	char name[NAME_BUF];
	char **added;             /* the log's files: text, its "add" lines; blktrace,
				   * the devices resolved (a piece's file indexes it) */
	size_t nadded;
	/* blktrace */
	uint32_t dev;             /* the device name[] resolves */
	unsigned dev_index;       /* its index in added */
	bool dev_known, warned_zero;
	int depth_now[3], depth_max[3];   /* fio's queue depth probe */
};

/* fio's delay_since_ttime: the gap since the previous entry, scaled */
static uint64_t delay_since(struct iogap_iolog_reader *r, uint64_t t)
{
	uint64_t last = r->last_ttime, d;
	double scaled;

	r->last_ttime = t;
	if (!last || r->job->replay_no_stall || t < last)
		return 0;
	d = t - last;
	if (r->job->replay_time_scale == 100)
		return d;
	scaled = (double)d * (100.0 / (double)r->job->replay_time_scale);
	return scaled >= 0x1p64 ? UINT64_MAX : (uint64_t)scaled;
}

/* replay_scale, then replay_align (a power of 2), as fio's ipo_bytes_align */
static uint64_t scaled_offset(const struct iogap_job *j, uint64_t off)
{
	if (j->replay_scale)
		off /= j->replay_scale;
	if (j->replay_align)
		off &= ~(j->replay_align - 1);
	return off;
}

static int rerr(struct iogap_iolog_reader *r, char *err, size_t errlen, const char *what,
		const char *detail)
{
	if (r->blktrace)
		return iogap_seterr(err, errlen, "%s: record %" PRIu64 ": %s%s", r->path, r->line,
				    what, detail);
	return iogap_seterr(err, errlen, "%s:%" PRIu64 ": %s%s", r->path, r->line, what, detail);
}

/* ---- text logs ---- */

static int parse_u64(const char *s, uint64_t *out)
{
	char *end;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	*out = strtoull(s, &end, 10);
	return errno || *end ? -1 : 0;
}

static int act_by_name(const char *s)
{
	for (int a = 0; a < (int)(sizeof(act_names) / sizeof(act_names[0])); a++)
		if (!strcmp(s, act_names[a]))
			return a;
	return -1;
}

/* The index of a file the log added, or -1; I/O to another is an error
 * (fio would index its file table with -1). */
static int added_index(const struct iogap_iolog_reader *r, const char *name)
{
	for (size_t i = 0; i < r->nadded; i++)
		if (!strcmp(r->added[i], name))
			return (int)i;
	return -1;
}

/* name's index, added if new; -1 when out of memory */
static int note_added(struct iogap_iolog_reader *r, const char *name)
{
	int k = added_index(r, name);
	char **a;

	if (k >= 0)
		return k;
	a = realloc(r->added, (r->nadded + 1) * sizeof(*a));
	if (!a)
		return -1;
	r->added = a;
	if (!(a[r->nadded] = strdup(name)))
		return -1;
	return (int)r->nadded++;
}

/* Split a line into at most max white-space separated words. */
static int split_words(char *s, char **w, int max)
{
	int n = 0;

	for (char *save = NULL, *t = strtok_r(s, " \t\r\n", &save); t;
	     t = strtok_r(NULL, " \t\r\n", &save)) {
		if (n == max)
			return max + 1;
		w[n++] = t;
	}
	return n;
}

/* One line: "[usec] file action" or "[usec] file action offset length". */
static int text_line(struct iogap_iolog_reader *r, char **w, int n, struct iogap_iolog_piece *p,
		     char *err, size_t errlen)
{
	const struct iogap_job *j = r->job;
	int base = r->version == 3, act, file;
	uint64_t t = 0, off = 0, len = 0;

	if (n != base + 2 && n != base + 4)
		return rerr(r, err, errlen, r->version == 3 ?
			    "expected 'usec file action' or 'usec file action offset length'" :
			    "expected 'file action' or 'file action offset length'", "");
	if (base && parse_u64(w[0], &t))
		return rerr(r, err, errlen, "bad time (microseconds): ", w[0]);
	if (strlen(w[base]) > IOLOG_NAME_MAX)
		return rerr(r, err, errlen, "file name longer than 256 characters", "");
	act = act_by_name(w[base + 1]);
	if (act < 0 || act == IOGAP_IOLOG_SYNC_FILE_RANGE)
		return rerr(r, err, errlen, "bad action: ", w[base + 1]);
	if ((n == base + 2) != (act >= IOGAP_IOLOG_ADD))
		return rerr(r, err, errlen, act >= IOGAP_IOLOG_ADD ?
			    "a file action takes no offset or length: " :
			    "an I/O action needs an offset and a length: ", w[base + 1]);
	if (n == base + 4 && (parse_u64(w[base + 2], &off) || parse_u64(w[base + 3], &len) ||
			      len > UINT32_MAX || off > UINT64_MAX - len))
		return rerr(r, err, errlen, "bad offset or length (decimal bytes, length < 4 GiB)", "");
	if (act == IOGAP_IOLOG_WAIT && r->version == 3)
		return rerr(r, err, errlen, "'wait' is not allowed in a version 3 log (fio's rule)", "");
	if (act <= IOGAP_IOLOG_TRIM && !len)
		return rerr(r, err, errlen, "an I/O of length 0", "");
	snprintf(r->name, sizeof(r->name), "%s", j->replay_redirect ? j->replay_redirect : w[base]);
	file = act == IOGAP_IOLOG_ADD ? note_added(r, r->name) : added_index(r, r->name);
	if (file < 0)
		return rerr(r, err, errlen, act == IOGAP_IOLOG_ADD ? "out of memory" :
			    "the log did not add this file: ", act == IOGAP_IOLOG_ADD ? "" : w[base]);
	*p = (struct iogap_iolog_piece){
		.act = (enum iogap_iolog_act)act, .len = (uint32_t)len, .file = r->name,
		.file_index = (unsigned)file,
		.delay_us = base ? delay_since(r, t) : 0,
		.offset = act == IOGAP_IOLOG_WAIT ? off : scaled_offset(j, off),
	};
	if (act == IOGAP_IOLOG_WAIT)
		p->delay_us = off;   /* ms after the start */
	return 1;
}

static int text_next(struct iogap_iolog_reader *r, struct iogap_iolog_piece *p, char *err,
		     size_t errlen)
{
	for (;;) {
		ssize_t n = getline(&r->buf, &r->cap, r->f);
		char *w[6];
		int nw, ret;

		if (n < 0)
			return ferror(r->f) ? rerr(r, err, errlen, "read error: ", strerror(errno)) : 0;
		r->line++;
		if (n > IOLOG_LINE_MAX + 1 || (n == IOLOG_LINE_MAX + 1 && r->buf[n - 1] != '\n'))
			return rerr(r, err, errlen, "line longer than 4095 characters", "");
		if ((size_t)n != strlen(r->buf))
			return rerr(r, err, errlen, "NUL byte in a text log", "");
		nw = split_words(r->buf, w, 5);
		if (!nw)
			continue;   /* a blank line (fio complains and goes on) */
		ret = text_line(r, w, nw, p, err, errlen);
		if (ret == 1 && p->act == IOGAP_IOLOG_WAIT && r->job->replay_no_stall)
			continue;   /* fio drops waits with replay_no_stall */
		return ret;
	}
}

/* ---- blktrace ---- */

/* r->name is dev's file: the pieces that follow go to it */
static int device_known(struct iogap_iolog_reader *r, uint32_t dev, char *err, size_t errlen)
{
	int k = note_added(r, r->name);

	if (k < 0)
		return rerr(r, err, errlen, "out of memory", "");
	r->dev = dev;
	r->dev_index = (unsigned)k;
	r->dev_known = true;
	return 0;
}

/* The block device of a trace's dev_t (fio looks it up under /dev; the
 * kernel names it in sysfs), or replay_redirect. */
static int resolve_device(struct iogap_iolog_reader *r, uint32_t dev, char *err, size_t errlen)
{
	unsigned maj = dev >> 20, min = dev & 0xfffff;
	char path[64], line[256], devname[NAME_BUF] = "";
	struct stat st;
	FILE *f;

	if (r->dev_known && r->dev == dev)
		return 0;
	if (r->job->replay_redirect) {
		snprintf(r->name, sizeof(r->name), "%s", r->job->replay_redirect);
		return device_known(r, dev, err, errlen);
	}
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/uevent", maj, min);
	if ((f = fopen(path, "r"))) {
		while (fgets(line, sizeof(line), f))
			if (!strncmp(line, "DEVNAME=", 8))
				snprintf(devname, sizeof(devname), "/dev/%.*s",
					 (int)strcspn(line + 8, "\n"), line + 8);
		fclose(f);
	}
	if (!devname[0] || stat(devname, &st) || !S_ISBLK(st.st_mode) ||
	    major(st.st_rdev) != maj || minor(st.st_rdev) != min) {
		snprintf(line, sizeof(line), "%u:%u (set replay_redirect= to the device to replay on)",
			 maj, min);
		return rerr(r, err, errlen, "no block device here has the trace's number ", line);
	}
	snprintf(r->name, sizeof(r->name), "%s", devname);
	return device_known(r, dev, err, errlen);
}

/* fio's probe of the capture's queue depth: queued minus merged requests
 * between completions, the most seen per direction */
static void bt_depth(struct iogap_iolog_reader *r, const struct blk_io_trace *t)
{
	int d = iogap_blktrace_ddir(t->action);
	uint32_t what = t->action & 0xffff;

	if (t->action & BT_TC_NOTIFY || d < 0)
		return;
	if (what == BT_TA_QUEUE)
		r->depth_now[d]++;
	else if (what == BT_TA_BACKMERGE || what == BT_TA_FRONTMERGE)
		r->depth_now[d]--;
	else if (what == BT_TA_COMPLETE) {
		if (r->depth_now[d] > r->depth_max[d])
			r->depth_max[d] = r->depth_now[d];
		r->depth_now[d] = 0;
	}
}

static int bt_read(struct iogap_iolog_reader *r, struct blk_io_trace *t, char *err, size_t errlen)
{
	char why[256];
	int ret = iogap_blktrace_read(r->f, r->swap, t, why, sizeof(why));

	if (!ret)
		return 0;
	r->line++;
	if (ret < 0)
		return rerr(r, err, errlen, why, "");
	iogap_dprint(IOGAP_DBG_BLKTRACE, "record %" PRIu64 ": action 0x%x, sector %llu, %u bytes\n",
		     r->line, t->action, (unsigned long long)t->sector, t->bytes);
	bt_depth(r, t);
	return 1;
}

/* fio's queue_trace: only queue events become requests */
static int bt_piece(struct iogap_iolog_reader *r, struct blk_io_trace *t,
		    struct iogap_iolog_piece *p, char *err, size_t errlen)
{
	const struct iogap_job *j = r->job;
	uint64_t delay = 0, bytes = t->bytes;
	int act;

	if ((t->action & 0xffff) != BT_TA_QUEUE)
		return 0;
	if (!(t->action & BT_TC_NOTIFY))
		delay = delay_since(r, t->time);
	if (j->replay_align)   /* fio rounds the length up (u32 arithmetic) */
		bytes = (uint32_t)((bytes + j->replay_align - 1) & ~(j->replay_align - 1));
	if (t->action & BT_TC_NOTIFY)
		return 0;
	if (t->action & BT_TC_DISCARD)
		act = IOGAP_IOLOG_TRIM;
	else if (t->action & BT_TC_FLUSH)
		act = IOGAP_IOLOG_SYNC;
	else
		act = t->action & BT_TC_WRITE ? IOGAP_IOLOG_WRITE : IOGAP_IOLOG_READ;
	if (j->replay_skip & IOGAP_IOLOG_SKIP(act))
		return 0;
	if (act != IOGAP_IOLOG_SYNC && !bytes) {
		if (!r->warned_zero)
			fprintf(stderr, "blktrace: ignoring zero byte trace: action=%x\n", t->action);
		r->warned_zero = true;
		return 0;
	}
	if (t->sector > UINT64_MAX / 512 - (bytes + 511) / 512)
		return rerr(r, err, errlen, "sector beyond 2^64 bytes", "");
	if (resolve_device(r, t->device, err, errlen))
		return -1;
	*p = (struct iogap_iolog_piece){
		.act = (enum iogap_iolog_act)act, .delay_us = delay / 1000, .file = r->name,
		.file_index = r->dev_index,
		.offset = act == IOGAP_IOLOG_SYNC ? 0 : scaled_offset(j, t->sector * 512),
		.len = act == IOGAP_IOLOG_SYNC ? 0 : (uint32_t)bytes,
	};
	return 1;
}

static int bt_next(struct iogap_iolog_reader *r, struct iogap_iolog_piece *p, char *err,
		   size_t errlen)
{
	struct blk_io_trace t;
	int ret;

	while ((ret = bt_read(r, &t, err, errlen)) == 1)
		if ((ret = bt_piece(r, &t, p, err, errlen)) != 0)
			return ret;
	return ret;
}

/* ---- the reader ---- */

static int text_header(struct iogap_iolog_reader *r, char *err, size_t errlen)
{
	char head[256];

	if (!fgets(head, sizeof(head), r->f))
		return iogap_seterr(err, errlen, "%s: empty log (fio iolog or blktrace expected)",
				    r->path);
	r->line = 1;
	if (!strncmp(head, IOLOG_V2, strlen(IOLOG_V2)))
		r->version = 2;
	else if (!strncmp(head, IOLOG_V3, strlen(IOLOG_V3)))
		r->version = 3;
	else
		return iogap_seterr(err, errlen, "%s:1: not a fio iolog ('%s' or '%s') nor blktrace "
				    "data (fio's iolog version 1 is no longer supported)", r->path,
				    IOLOG_V2, IOLOG_V3);
	if (!strchr(head, '\n'))
		return iogap_seterr(err, errlen, "%s:1: header line too long", r->path);
	return 0;
}

int iogap_iolog_open(const char *path, const struct iogap_job *j,
		     struct iogap_iolog_reader **out, char *err, size_t errlen)
{
	struct iogap_iolog_reader *r = calloc(1, sizeof(*r));

	*out = NULL;
	if (!r || !(r->path = strdup(path))) {
		free(r);
		return iogap_seterr(err, errlen, "out of memory");
	}
	r->job = j;
	r->f = fopen(path, "rb");
	if (!r->f) {
		iogap_seterr(err, errlen, "%s: cannot open the iolog: %s", path, strerror(errno));
		iogap_iolog_close(r);
		return -1;
	}
	r->blktrace = iogap_blktrace_detect(r->f, &r->swap);
	if (!r->blktrace && text_header(r, err, errlen)) {
		iogap_iolog_close(r);
		return -1;
	}
	*out = r;
	return 0;
}

int iogap_iolog_next(struct iogap_iolog_reader *r, struct iogap_iolog_piece *p, char *err,
		     size_t errlen)
{
	return r->blktrace ? bt_next(r, p, err, errlen) : text_next(r, p, err, errlen);
}

void iogap_iolog_close(struct iogap_iolog_reader *r)
{
	if (!r)
		return;
	if (r->f)
		fclose(r->f);
	for (size_t i = 0; i < r->nadded; i++)
		free(r->added[i]);
	free(r->added);
	free(r->buf);
	free(r->path);
	free(r);
}

/* ---- read_iolog: the job a log describes ---- */

struct log_summary {
	char *targets;            /* the log's files as a filename= list */
	unsigned nr_targets;
	uint64_t ios[3], other;   /* other: syncs and waits */
	uint32_t min_len[3], max_len[3];
	uint64_t extent;          /* the largest of any file */
	int depth;
};

static void summarize_piece(struct log_summary *s, const struct iogap_iolog_piece *p)
{
	if (p->act > IOGAP_IOLOG_TRIM) {
		s->other += p->act < IOGAP_IOLOG_ADD;
		return;
	}
	if (!s->ios[p->act]++ || p->len < s->min_len[p->act])
		s->min_len[p->act] = p->len;
	if (p->len > s->max_len[p->act])
		s->max_len[p->act] = p->len;
	if (p->offset + p->len > s->extent)
		s->extent = p->offset + p->len;
}

/* The log's files as one filename= value: ':' between names, "\:" in them */
static char *target_list(const struct iogap_iolog_reader *r)
{
	size_t n = 1;
	char *list, *o;

	for (size_t i = 0; i < r->nadded; i++)
		for (const char *c = r->added[i]; *c; c++)
			n += 1 + (*c == ':');
	if (!(o = list = malloc(n + r->nadded)))
		return NULL;
	for (size_t i = 0; i < r->nadded; i++) {
		if (i)
			*o++ = ':';
		for (const char *c = r->added[i]; *c; c++) {
			if (*c == ':')
				*o++ = '\\';
			*o++ = *c;
		}
	}
	*o = 0;
	return list;
}

static int summarize(const struct iogap_job *j, struct log_summary *s, char *err, size_t errlen)
{
	struct iogap_iolog_reader *r;
	struct iogap_iolog_piece p;
	int ret;

	if (iogap_iolog_open(j->read_iolog, j, &r, err, errlen))
		return -1;
	while ((ret = iogap_iolog_next(r, &p, err, errlen)) == 1)
		summarize_piece(s, &p);
	for (int d = 0; d < 3; d++) {   /* fio: at most 1024, at least 1 with I/O */
		int dd = r->depth_max[d] > 1024 ? 1024 : r->depth_max[d] ? r->depth_max[d] : s->ios[d] > 0;

		s->depth = dd > s->depth ? dd : s->depth;
	}
	if (!ret && r->blktrace && !s->depth)
		s->depth = 1;   /* syncs only */
	if (!ret && !s->ios[0] && !s->ios[1] && !s->ios[2] && !s->other)
		ret = iogap_seterr(err, errlen, "%s: no I/O to replay", j->read_iolog);
	if (!ret && !r->nadded)
		ret = iogap_seterr(err, errlen, "%s: the log names no file", j->read_iolog);
	if (!ret && !(s->targets = target_list(r)))
		ret = iogap_seterr(err, errlen, "out of memory");
	s->nr_targets = (unsigned)r->nadded;
	ret = ret < 0 ? -1 : r->blktrace;
	iogap_iolog_close(r);
	return ret;
}

static bool option_given(const struct iogap_job *j, const char *key)
{
	for (size_t i = 0; i < j->kv_nr; i++)
		if (!strcmp(j->kv[i].key, key))
			return true;
	return false;
}

int iogap_iolog_prepare_job(struct iogap_job *j, char *err, size_t errlen)
{
	struct log_summary s = { 0 };
	int bt;

	if (!j->read_iolog)
		return 0;
	if (j->verify || j->zone_mode > IOGAP_ZONE_MODE_NONE)
		return iogap_seterr(err, errlen, "job '%s': read_iolog does not go with verify or "
				    "zonemode in iogap-probe", j->name);
	bt = summarize(j, &s, err, errlen);
	if (bt < 0) {
		free(s.targets);
		return -1;
	}
	free(j->filename);
	j->filename = s.targets;   /* fio drops the job's files for the log's */
	j->nrfiles = s.nr_targets;
	j->rw = 0;
	for (int d = 0; d < 3; d++) {
		if (!s.ios[d])
			continue;
		j->rw |= 1u << d;
		j->bs[d] = j->bs_max[d] = s.max_len[d];
		j->bs_min[d] = s.min_len[d];
		j->bssplit_nr[d] = 0;
	}
	if (!j->rw)
		j->rw = IOGAP_RW_READ;   /* syncs and waits only */
	j->rw_seq_add = 0;
	j->offset = j->offset_increment = j->io_size = 0;
	j->offset_pct = j->size_pct = 0;
	j->size = s.extent * s.nr_targets;   /* split evenly: each file holds its part */
	if (bt && !option_given(j, "iodepth"))   /* fio: the capture's depth */
		j->iodepth = j->iodepth_low = (unsigned)s.depth;
	return 0;
}

/* ---- write_iolog ---- */

#define IOLOG_BUF (64 << 10)

static void writer_flush(struct iogap_iolog_writer *w)
{
	for (size_t done = 0; done < w->len;) {
		ssize_t n = write(w->fd, w->buf + done, w->len - done);

		if (n <= 0)
			break;   /* a full disk: the log is short, as fio's would be */
		done += (size_t)n;
	}
	w->len = 0;
}

static void writer_line(struct iogap_iolog_writer *w, const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(line))
		return;
	if (w->len + (size_t)n > IOLOG_BUF)
		writer_flush(w);
	memcpy(w->buf + w->len, line, (size_t)n);
	w->len += (size_t)n;
}

static void file_line(struct iogap_iolog_writer *w, unsigned file, enum iogap_iolog_act act)
{
	writer_line(w, "%" PRIu64 " %s %s\n", (iogap_now_ns() - w->t0_ns) / 1000,
		    iogap_job_file(w->job, w->clone, file), act_names[act]);
}

int iogap_iolog_writer_open(struct iogap_iolog_writer *w, const char *path,
			    const struct iogap_job *j, unsigned clone, unsigned nr_files,
			    char *err, size_t errlen)
{
	w->buf = malloc(IOLOG_BUF);
	w->open = w->buf ? calloc(nr_files, sizeof(*w->open)) : NULL;
	w->fd = w->open ? open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644) : -1;
	if (w->fd < 0) {   /* fio appends */
		int e = w->open ? errno : ENOMEM;

		free(w->buf);
		free(w->open);
		w->buf = NULL;
		return iogap_seterr(err, errlen, "%.200s: write_iolog: %s", path, strerror(e));
	}
	w->len = 0;
	w->job = j;
	w->clone = clone;
	w->nr_files = nr_files;
	w->t0_ns = iogap_now_ns();
	w->last_offset = 0;
	writer_line(w, "%s\n", IOLOG_V3);
	for (unsigned k = 0; k < nr_files; k++)
		file_line(w, k, IOGAP_IOLOG_ADD);
	return 0;
}

void iogap_iolog_write(struct iogap_iolog_writer *w, enum iogap_iolog_act act, unsigned file,
		       uint64_t offset, uint64_t len)
{
	if (!w->buf)
		return;
	if (!w->open[file]) {
		file_line(w, file, IOGAP_IOLOG_OPEN);
		w->open[file] = true;
	}
	if (act == IOGAP_IOLOG_SYNC || act == IOGAP_IOLOG_DATASYNC ||
	    act == IOGAP_IOLOG_SYNC_FILE_RANGE)
		offset = w->last_offset;   /* the io_u's previous offset, as fio */
	w->last_offset = offset;
	writer_line(w, "%" PRIu64 " %s %s %" PRIu64 " %" PRIu64 "\n",
		    (iogap_now_ns() - w->t0_ns) / 1000, iogap_job_file(w->job, w->clone, file),
		    act_names[act], offset, len);
}

void iogap_iolog_close_file(struct iogap_iolog_writer *w, unsigned file)
{
	if (!w->buf || !w->open[file])
		return;
	file_line(w, file, IOGAP_IOLOG_CLOSE);
	w->open[file] = false;
}

void iogap_iolog_close_files(struct iogap_iolog_writer *w)
{
	for (unsigned k = 0; w->buf && k < w->nr_files; k++)
		iogap_iolog_close_file(w, k);
}

void iogap_iolog_writer_close(struct iogap_iolog_writer *w)
{
	if (!w->buf)
		return;
	iogap_iolog_close_files(w);
	writer_flush(w);
	close(w->fd);
	free(w->buf);
	free(w->open);
	w->buf = NULL;
}
