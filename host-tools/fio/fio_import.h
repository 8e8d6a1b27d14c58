/* SPDX-License-Identifier: MIT */
/*
 * fio results as people have them: fio's JSON and JSON+ output, and its
 * normal text output in the fio 2.x layout (`read : io=…, bw=…, iops=…,
 * runt=…`) and the 3.x one (`read: IOPS=…, BW=…`), pasted with blank
 * lines, wrapped lines, shell prompts and progress lines.  Parsed into one
 * model (all times in ns, sizes in bytes), written out by `iogap import`
 * as a run directory and checked by `iogap lint` (docs/reports.md).
 */
#ifndef IOGAP_FIO_IMPORT_H
#define IOGAP_FIO_IMPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "job.h"
#include "json_parse.h"

enum fioi_format { FIOI_JSON, FIOI_JSONPLUS, FIOI_TEXT2, FIOI_TEXT3 };
enum { FIOI_SLAT = 0, FIOI_CLAT = 1, FIOI_LAT = 2 };
#define FIOI_MAX_PCT 64
/* Jobs of one fio output converted at most: each takes ~0.4 MiB of
 * statistics while converted to fio's JSON (iogap import), so 8192 bound
 * that to ~3.5 GiB; more is refused by the parser. */
#define FIOI_MAX_JOBS 8192

struct fioi_lat {               /* ns */
	bool have;
	double min, max, mean, stdev;
	uint64_t n;             /* samples; text: the direction's issued count */
};

struct fioi_pct {
	double p;               /* percent */
	uint64_t ns;
};

struct fioi_bin {               /* json+ histogram bucket */
	uint64_t ns, count;
};

struct fioi_sampled {           /* fio's bw (KiB/s) and iops sample stats */
	bool have;
	double min, max, mean, stdev, agg_pct;
	uint64_t samples;       /* 0 when the layout does not print it (fio 2.x) */
};

struct fioi_dir {
	bool have;
	double iops;            /* as printed (text) or fio's float (JSON) */
	double bw_bytes;        /* bytes/s */
	uint64_t io_bytes;
	uint64_t runtime_ms;
	bool have_total;
	uint64_t total_ios, short_ios, drop_ios;
	struct fioi_lat lat[3];                 /* slat, clat, lat */
	struct fioi_pct pct[3][FIOI_MAX_PCT];   /* as given: percent -> ns */
	unsigned pct_nr[3];
	struct fioi_bin *bins[3];               /* json+ only */
	size_t bins_nr[3];
	struct fioi_sampled bw, iops_s;
	bool have_zone_resets;
	uint64_t zone_resets;
	int line;               /* text: line of the direction's first line */
};

struct fioi_job {
	char name[128];
	char description[256];
	int groupid, members, error, pid;
	int line;               /* text: line of "name: (groupid=…"; JSON: 0 */
	/* facts from fio's "name: (g=0): rw=…, bs=…, ioengine=…, iodepth=…"
	 * line or from the job options ("" / 0 when unknown) */
	char rw[32], bs[96], ioengine[32];
	unsigned iodepth;
	bool unified;           /* "mixed:" (unified_rw_reporting) */
	/* options as given: JSON "job options", or the pasted command line */
	struct iogap_job_kv *opts;
	size_t opts_nr;
	struct fioi_dir dir[IOGAP_DDIR_NR];
	bool have_cpu;
	double usr_cpu, sys_cpu;          /* percent of one CPU */
	uint64_t ctx, majf, minf;
	uint64_t job_runtime_ms;
	bool have_depth;
	double depth[7], submit[7], complete[7];   /* percent */
	bool have_latdist;
	double lat_n[10], lat_u[10], lat_m[12];    /* percent */
};

struct fioi_result {
	enum fioi_format format;
	char source[4096];
	char version[64];       /* "fio-3.1"; "" when the paste has none */
	char *cmdline;          /* the fio command, when pasted; else NULL */
	/* the options below are all the jobs set (fio's JSON; a pasted
	 * command line without job files): an option absent is at fio's
	 * default.  Otherwise an absent option is unknown. */
	bool opts_complete;
	long long timestamp;    /* JSON "timestamp" or the text's job date; 0 unknown */
	struct iogap_job_kv *global_opts;
	size_t global_nr;
	struct fioi_job *jobs;
	size_t nr;
	struct jp_value doc;    /* JSON input: the whole document */
};

const char *fioi_format_name(enum fioi_format f);  /* "fio-json", "fio-text-3" … */

/* One fio output inside a paste holding several ("name line, then fio's
 * output", again): text[off, off + len), labelled from its name line (a
 * directory-safe form) or "runN". */
struct fioi_segment {
	size_t off, len;
	char label[64];
};

/* Split pasted normal-format text into its fio outputs (a run starts at a
 * command line, version or job header line after the previous run's
 * results).  *n = 0 for JSON or no fio lines.  0, or -1 out of memory. */
int fioi_split_runs(const char *text, size_t len, struct fioi_segment **segs, size_t *n);

/* Does this text look like fio output (JSON or normal)? */
bool fioi_looks_like_output(const char *text, size_t len);

/* Parse fio output from memory; name is used in messages ("name:line:
 * what").  JSON is used when the text holds fio's JSON document (also
 * after a normal-format section), else the normal text.  0, or -1 with
 * a message in err. */
int fioi_parse_buf(const char *name, const char *text, size_t len, struct fioi_result *r,
		   char *err, size_t errlen);
int fioi_parse_file(const char *path, struct fioi_result *r, char *err, size_t errlen);
void fioi_free(struct fioi_result *r);

/* The value of option key in a job's options or else the globals
 * (aliases: readwrite=rw, blocksize=bs); NULL when not given. */
const char *fioi_opt(const struct fioi_result *r, const struct fioi_job *j, const char *key);

/* fio's text numbers: "9805", "10.2k", "3625.8k", "6286k"; with base
 * 1000 for k/M/G/T/P.  Returns the end, or NULL when no number. */
const char *fioi_num(const char *s, double *out);

/* The model as a fio-schema JSON document (guest-probe/output_json.c
 * from iogap_run_report structs built from the model, then the values the
 * source states exactly laid over it).  0, or -1 with err. */
int fioi_write_json(const struct fioi_result *r, FILE *f, char *err, size_t errlen);


#endif
