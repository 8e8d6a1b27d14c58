/* SPDX-License-Identifier: MIT */
/*
 * The workload runner: fio's execution model (groups split at stonewall,
 * numjobs clones as threads, ramp/runtime/io_size, iodepth with batching)
 * with fio's definitions of slat, clat and lat, and a trace record per
 * request.  The per-I/O path does no allocation, no locking and no text.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/fs.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "util.h"
#include "blktrace_merge.h"
#include "dedupe.h"
#include "engine.h"
#include "errors.h"
#include "fileset.h"
#include "flow.h"
#include "rand.h"
#include "rand_mix.h"
#include "rand_offset.h"
#include "runner.h"
#include "stamp.h"
#include "safety.h"
#include "trace_file.h"
#include "kernel_points.h"
#include "trace_info.h"
#include "verify.h"
#include "verify_state.h"
#include "iolog.h"
#include "block_info.h"
#include "buffers.h"
#include "vtrim.h"
#include "logs.h"
#include "lat_target.h"
#include "steadystate.h"
#include "offload.h"
#include "numa.h"
#include "prio.h"
#include "procopts.h"
#include "zbd.h"
#include "debug.h"

#define TRACE_BATCH 4096

static volatile sig_atomic_t stop_requested;
static _Atomic int exit_all;             /* exitall with exit_what=all */
static _Atomic unsigned status_wanted;   /* --status-interval generation */

struct worker {
	pthread_t thread;
	const struct iogap_job *job;
	const struct iogap_run_opts *opts;
	unsigned job_index;
	unsigned clone;             /* 0..numjobs-1 */
	unsigned thread_number;     /* 1-based over the whole run */
	unsigned groupid;
	uint64_t run_id;

	struct iogap_job_stat stat;

	/* targets (fileset.c): the files, and the one of the I/O in hand */
	struct iogap_fileset fs;
	struct iogap_wfile *f;
	uint64_t io_budget;
	uint32_t min_bs;

	/* engine */
	const struct iogap_engine_ops *ops;
	struct iogap_engine_ctx ectx;

	/* zbd.c: zonemode=strided|zbd state (NULL for zonemode=none) */
	struct iogap_zbd_set *zbd_set;
	const struct iogap_file_ids *pre_existing;   /* what unlink leaves alone */
	const struct iogap_file_ids *checked;        /* found writable, or created */
	struct iogap_zbd_worker *zbd;
	struct iogap_io *ios;
	struct iogap_io **free_slots;
	struct iogap_io **done;
	unsigned nr_free;
	void *bufmem;
	struct iogap_iomem iomem;   /* bufmem as mem= has it (procopts.c) */
	struct iogap_proc_run prun; /* lockmem, cgroup (procopts.c) */
	uint64_t last_think_ns;     /* thinktime_iotime: the last pause */
	uint8_t last_ddir;          /* rate_ignore_thinktime: of the last I/O */
	bool end_syncing;           /* end_fsync: traced, not counted (fio's TD_FSYNCING) */
	pthread_rwlock_t **flocks;  /* lockfile: each file's lock (procopts.c) */
	int *fds;                   /* each file's descriptor, for the engine (ectx.fds) */

	/* offsets */
	struct iogap_rand rnd_off, rnd_bs;
	struct iogap_randoff randoff;   /* fio's random offsets (rand_offset.c) */
	struct iogap_randmix mix;       /* fio's block sizes and rwmix (rand_mix.c) */
	unsigned seq_left;          /* rw=rand*:N: ios before a new random offset */
	struct iogap_rand rnd_poisson;  /* rate_process=poisson's gaps */
	struct iogap_rand rnd_buf;      /* refill_buffers' data */
	uint64_t seed;              /* the worker's streams derive from it */
	struct iogap_bufgen bufgen;     /* dedupe.c: compress/dedupe content */
	struct iogap_prio_state prio;   /* prio.c: cmdprio's choices */
	uint64_t poisson_us[IOGAP_DDIR_NR]; /* when the next I/O is due (fio's last_usec) */
	uint64_t rate_check_ns[IOGAP_DDIR_NR];   /* rate_min: the previous check */
	uint64_t rate_check_bytes[IOGAP_DDIR_NR], rate_check_ios[IOGAP_DDIR_NR];
	uint64_t trim_offset;       /* trimwrite: the write follows this trim */
	uint32_t trim_len;
	bool write_after_trim;
	uint64_t ios_total;         /* every I/O issued, for number_ios */
	uint64_t last_think_blocks; /* thinktime: the count at the last pause */
	uint64_t bytes_issued;
	struct iogap_flow_member flow;   /* flow.c: flow_id and flow */
	bool flow_token;                 /* flow: a share taken, no I/O issued on it yet */
	uint64_t ios_issued[IOGAP_DDIR_NR];
	uint64_t bytes_dir_issued[IOGAP_DDIR_NR];   /* for rate= */
	uint64_t writes_since_sync;
	uint64_t written_lo, written_hi;  /* span written since the last sync_file_range */

	/* verify (verify.c): what this pass wrote, read back after it */
	struct iogap_verify_log vlog;
	bool verify_pass;
	unsigned backlog_left;      /* verify_backlog: reads left in this batch */
	struct iogap_vtrim vtrim;   /* trim_percentage's list (vtrim.c) */
	uint16_t numberio;          /* writes issued: fio's numberio */
	struct verify_slot {        /* per request slot */
		bool check;         /* a read of a logged block */
		bool trimmed;       /* of a block trimmed since: zeros expected */
		uint16_t numberio;  /* the write it expects */
	} *vslot;
	uint64_t verify_ns;         /* time spent in verify passes */
	struct iogap_vstate_rec vrec;   /* verify_state_save: completed writes */
	struct iogap_vstate vstate;     /* verify_state_load: where verifying stops */
	bool vstate_loaded;

	/* read_iolog / write_iolog (iolog.c) */
	struct iogap_iolog_reader *replay;
	uint64_t last_issue_ns;     /* fio's last_issue: replay delays count from it */
	uint64_t replay_late_us;    /* fio's time_offset: the last sleep's overrun */
	struct iogap_iolog_writer iolog;
	unsigned iolog_closed;              /* fs.nr_closed as of the last line */

	/* timing */
	uint64_t t_start, t_ramp_end, t_end;
	_Atomic uint64_t epoch_ns;  /* fio's epoch: the start, then ramp_time's end
				     * (steadystate.c's samples count from it) */
	struct iogap_lat_target lat; /* latency_target's depth search (lat_target.c) */
	void *prof_state;           /* the profile's, for opts->prof (profile.h) */
	bool in_ramp;
	uint64_t rate_start;
	bool rated;                 /* rate or rate_iops in some direction */
	bool rate_floor;            /* rate_min or rate_iops_min in some direction */
	/* set up once, so that a request of a plain job tests one value, not each option */
	uint64_t ios_cap, bytes_cap; /* budget_left's: number_ios, io_size, over every loop */
	bool turn_extras;           /* a sync every N writes, verify_backlog, latency_target, flow */
	uint64_t next_sample_due;   /* the earlier next_sample, UINT64_MAX while none is taken */
	/* the report's bandwidth [0] and IOPS [1] samples: fio's bwavgtime
	 * and iopsavgtime windows */
	uint64_t next_sample[2], last_sample_ns[2], sample_window_ns[2];
	uint64_t sample_bytes[IOGAP_DDIR_NR], sample_ios[IOGAP_DDIR_NR];
	struct rusage ru_start;

	/* trace and latency logs */
	struct iogap_trace_writer *trace;
	struct iogap_trace_record *recs;
	uint16_t *rec_prio;         /* each record's I/O priority, for the logs */
	unsigned nr_recs;
	uint64_t dropped;
	struct iogap_job_logs *logs;   /* fio's per-job logs (logs.c) */
	uint64_t req_seq;
	pid_t tid;

	/* --status-interval: the main thread asks for a copy of stat by
	 * bumping status_wanted; the worker answers in snap, then snap_done */
	struct iogap_job_stat *snap;
	unsigned snap_seen;
	_Atomic unsigned snap_done;
	_Atomic int terminate;      /* exitall: another job finished */
	struct worker *all;         /* every worker of the run, for exitall */
	unsigned segment;           /* which stonewall-separated run it is in */
	size_t nall;
	_Atomic int running;        /* 0 not started, 1 in its I/O loop (stat is
				     * being updated), 2 done measuring */

	/* progress, read by the main thread */
	_Atomic uint64_t prog_bytes[IOGAP_DDIR_NR];
	_Atomic uint64_t prog_ios[IOGAP_DDIR_NR];
	uint64_t done_bytes[IOGAP_DDIR_NR], done_ios[IOGAP_DDIR_NR];
	_Atomic int finished;

	char err[256];
	int err_code;               /* the errno behind err, when one is (else EINVAL) */
};

/* ---- small helpers ---------------------------------------------------- */

static bool job_writes(const struct iogap_job *j)
{
	return (j->rw & (IOGAP_RW_WRITE | IOGAP_RW_TRIM)) != 0;
}

static bool job_trimwrite(const struct iogap_job *j)
{
	return (j->rw & (IOGAP_RW_WRITE | IOGAP_RW_TRIM)) == (IOGAP_RW_WRITE | IOGAP_RW_TRIM);
}

/* Where clone c's region starts (fio's offset + offset_increment * c). */
static uint64_t clone_offset(const struct iogap_job *j, unsigned c)
{
	return j->offset + (uint64_t)c * j->offset_increment;
}

/* The end of the last clone's region when the job gives a size. */
static uint64_t job_end(const struct iogap_job *j)
{
	return clone_offset(j, j->numjobs - 1) + j->size;
}

static uint64_t file_or_dev_size(int fd)
{
	struct stat st;
	uint64_t sz = 0;

	if (fstat(fd, &st))
		return 0;
	if (S_ISBLK(st.st_mode)) {
		if (ioctl(fd, BLKGETSIZE64, &sz))
			return 0;
		return sz;
	}
	if (S_ISCHR(st.st_mode))   /* fio on Linux: a character device has no end */
		return UINT64_MAX;
	return (uint64_t)st.st_size;
}

/* ---- trace and logs --------------------------------------------------- */

static void flush_records(struct worker *w)
{
	if (!w->nr_recs)
		return;
	if (w->trace && iogap_trace_writer_append(w->trace, w->recs, w->nr_recs))
		w->dropped += w->nr_recs;
	for (unsigned i = 0; w->logs && w->job->stats && i < w->nr_recs; i++)   /* stats=0: none */
		iogap_logs_add(w->logs, &w->recs[i], w->rec_prio[i]);
	w->nr_recs = 0;
}

static void record_io(struct worker *w, const struct iogap_io *io, uint64_t complete_ns,
		      uint8_t op, uint8_t flags)
{
	struct iogap_trace_record *r;

	if (!w->recs)
		return;
	if (iogap_unlikely(w->logs))   /* fio logs the request's priority: cmdprio's, else the job's */
		w->rec_prio[w->nr_recs] = io->ioprio ? io->ioprio : w->stat.ioprio;
	r = &w->recs[w->nr_recs++];
	r->tag = io->request_id;
	r->offset = IOGAP_FILESET_TRACE_OFFSET(io->file, io->offset);
	r->start_ns = io->start_ns;
	r->issue_ns = io->issue_ns;
	r->complete_ns = complete_ns;
	r->length = io->len;
	r->result = io->result < INT32_MIN ? INT32_MIN :
		    io->result > INT32_MAX ? INT32_MAX : (int32_t)io->result;
	r->thread = (uint32_t)w->tid;
	r->job = (uint16_t)w->job_index;
	r->op = op;
	r->flags = flags | (io->in_ramp ? IOGAP_REC_RAMP : 0);
	if (iogap_unlikely(w->nr_recs == TRACE_BATCH))
		flush_records(w);
}

/* ---- choosing the next request ----------------------------------------- */

static uint8_t pick_ddir(struct worker *w)
{
	unsigned rw = w->job->rw;

	if (job_trimwrite(w->job))   /* fio: trim a block, then write it */
		return w->write_after_trim ? IOGAP_OP_WRITE : IOGAP_OP_TRIM;
	if ((rw & (IOGAP_RW_READ | IOGAP_RW_WRITE)) == (IOGAP_RW_READ | IOGAP_RW_WRITE))
		return iogap_randmix_ddir(&w->mix, w->job, w->ios_issued);   /* rand_mix.c */
	if (rw & IOGAP_RW_WRITE)
		return IOGAP_OP_WRITE;
	if (rw & IOGAP_RW_TRIM)
		return IOGAP_OP_TRIM;
	return IOGAP_OP_READ;
}

/* fio's get_next_buflen for an I/O at off of the file in hand: bs, or a
 * bsrange/bssplit size that fits the region (rand_mix.c); 0 when not even
 * the smallest does (fio: the file is done).  A fixed bs is not checked
 * against the region: fio issues the block that straddles its end when
 * the file goes on. */
static uint32_t next_buflen(struct worker *w, uint8_t ddir, uint64_t off)
{
	const struct iogap_job *j = w->job;
	uint64_t end = w->f->region_start + w->f->region_len;

	if (j->bs_min[ddir] == j->bs_max[ddir])
		return j->bs_min[ddir];
	if (off + j->bs_min[ddir] > end)
		return 0;
	return iogap_randmix_bs(&w->mix, j, ddir, end - off);
}

#define NO_MORE_IO UINT64_MAX

/* fio's get_next_seq_offset with an offset modifier (rw=read:8k holes,
 * rw=read:-8k backwards), quirks included: the position is relative to
 * the region but wraps against the file's size, a backward job starts
 * from the region's length, and an offset past the region ends the job
 * (fio's get_next_offset) unless it is time_based. */
static uint64_t next_sequential_modified(struct worker *w, uint8_t ddir, uint32_t len)
{
	int64_t add = w->job->rw_seq_add;
	uint64_t start = w->f->region_start, io_size = w->f->region_len, real = w->f->target_size;
	uint64_t end = real > io_size ? io_size : real;
	uint64_t last = w->f->seq_pos[ddir], pos;

	if (last >= start + io_size && w->job->time_based)
		last = start;
	if (last >= real)
		return NO_MORE_IO;
	if (last == start && start && add < 0)
		last = end;
	pos = last - start;
	if (pos) {
		pos += (uint64_t)add;
		if (pos >= real)
			pos = add > 0 ? start : end + (uint64_t)add;
	}
	if (pos + len > io_size) {
		if (!w->job->time_based)
			return NO_MORE_IO;
		pos = 0;
	}
	return start + pos;
}

/* fio's get_next_seq_offset with get_next_offset's bounds: the next
 * sequential offset for ddir, NO_MORE_IO at the end of the region or of
 * the file (a single file of a time_based job wraps, as fio's). */
static uint64_t next_sequential(struct worker *w, uint8_t ddir)
{
	uint64_t off = w->f->seq_pos[ddir], end = w->f->region_start + w->f->region_len;

	if (w->job->rw_seq_add)
		return next_sequential_modified(w, ddir, w->job->bs_min[ddir]);
	if (off >= end && w->job->time_based && w->fs.nr == 1)
		off = w->f->region_start;
	return off >= end || off >= w->f->target_size ? NO_MORE_IO : off;
}

/* trimwrite: the write that follows a trim goes to the same block. */
static uint64_t trim_done(struct worker *w, uint8_t ddir, uint64_t off, uint32_t len)
{
	if (ddir == IOGAP_OP_TRIM && job_trimwrite(w->job)) {
		w->trim_offset = off;
		w->trim_len = len;
		w->write_after_trim = true;
	}
	return off;
}

static bool skewed(const struct iogap_job *j)
{
	return j->random_distribution == IOGAP_RAND_ZIPF || j->random_distribution == IOGAP_RAND_PARETO;
}

/* A random position in the file's region for ddir (before the random
 * map): zipf and pareto as rand.c skews them, the others as fio draws
 * them (rand_offset.c).  0, or -1 when the file has no block left. */
static int random_position(struct worker *w, uint8_t ddir, uint64_t *pos)
{
	const struct iogap_job *j = w->job;
	uint64_t b;

	if (skewed(j)) {
		*pos = iogap_skew_next(&w->f->skew, &w->rnd_off) * w->min_bs;
		return 0;
	}
	if (iogap_randoff_next(&w->randoff, j, w->f, ddir, &b))
		return -1;
	*pos = b * j->ba[ddir];
	return 0;
}

/* fio's get_next_rand_block: a random position, with the random map the
 * drawn block if free, else the next free one.  The map's bits are of the
 * smallest block of any direction, yet fio looks them up by the block in
 * blockalign units (and marks them by the direction's own smallest block):
 * the same unless directions differ.  A full map ends the file, unless
 * time_based: the file starts over and a new position is drawn. */
static int random_map_position(struct worker *w, uint8_t ddir, uint64_t *pos)
{
	const struct iogap_job *j = w->job;

	for (int tries = 0; tries < 2; tries++) {
		uint64_t b;

		if (random_position(w, ddir, pos))
			return -1;
		if (!w->f->map.bits)
			return 0;
		b = iogap_blockmap_find(&w->f->map, iogap_div_bs(*pos, j->ba[ddir]));
		if (b != UINT64_MAX) {
			*pos = b * j->ba[ddir];
			return 0;
		}
		if (!j->time_based)
			return -1;
		iogap_wfile_restart(w->f);   /* fio_file_reset */
	}
	return -1;
}

/* fio's mark_random_map: the blocks (of ddir's smallest size) of the
 * request marked done; the request shrinks to the free run it starts */
static uint32_t mark_random_map(struct worker *w, uint8_t ddir, uint64_t off, uint32_t len)
{
	uint32_t min = w->job->bs_min[ddir];
	uint64_t nr = iogap_blockmap_mark(&w->f->map, iogap_div_bs(off - w->f->region_start, min),
					  iogap_div_bs((uint64_t)len + min - 1, min));

	return nr && nr * min < len ? (uint32_t)(nr * min) : len;
}

/* The sequential I/O at off (NO_MORE_IO: none) and its length (*lenp):
 * none when its block would pass the end of the file */
static uint64_t sequential_io(struct worker *w, uint8_t ddir, uint64_t off, uint32_t *lenp)
{
	uint32_t len;

	if (off == NO_MORE_IO || !(len = next_buflen(w, ddir, off)) || off + len > w->f->target_size)
		return NO_MORE_IO;
	*lenp = len;
	w->f->seq_pos[ddir] = off + len;
	return trim_done(w, ddir, off, len);
}

/* The offset and length (*lenp) of the next I/O of ddir in the file in
 * hand, as fio's fill_io_u: the offset first, then a length that fits
 * it; the random map may shorten it.  NO_MORE_IO when the file has no
 * I/O left. */
static uint64_t pick_offset(struct worker *w, uint8_t ddir, uint32_t *lenp)
{
	const struct iogap_job *j = w->job;
	uint64_t end = w->f->region_start + w->f->region_len;
	uint64_t off;
	uint32_t len;
	bool hit;

	if (w->write_after_trim && ddir == IOGAP_OP_WRITE) {   /* trimwrite */
		w->write_after_trim = false;
		*lenp = w->trim_len;
		return w->trim_offset;
	}
	/* percentage_random's sequential share falls back to a random offset
	 * once past the end of the file (fio's get_next_block) */
	if (!(j->rw & IOGAP_RW_RAND) || !iogap_randmix_random(&w->mix, j, ddir)) {
		off = next_sequential(w, ddir);
		if (off != NO_MORE_IO || !(j->rw & IOGAP_RW_RAND) ||
		    w->f->seq_pos[ddir] < w->f->target_size)
			return sequential_io(w, ddir, off, lenp);
	}
	/* rw=rand*:N: a new random offset every Nth I/O, the others follow
	 * on; one that cannot follow takes a random offset outside the count,
	 * unmarked in the random map (fio's IO_U_F_BUSY_OK) */
	hit = !w->seq_left;
	if (w->seq_left) {
		w->seq_left--;
		*lenp = len = next_buflen(w, ddir, w->f->last_offset);
		off = j->rw_sequencer == IOGAP_RWSEQ_IDENTICAL ? w->f->last_offset :
			w->f->last_offset + len;
		if (len && off + len <= end)
			return w->f->last_offset = off;
	}
	if (random_map_position(w, ddir, &off))
		return NO_MORE_IO;
	off += w->f->region_start;
	if (off >= end || !(len = next_buflen(w, ddir, off)))   /* fio's get_next_offset */
		return NO_MORE_IO;
	if (skewed(j) && off + len > end)   /* the probe's own draws stay in the region */
		off = end - len - (end - len - w->f->region_start) % w->min_bs;
	if (off + len > w->f->target_size)
		return NO_MORE_IO;
	if (w->f->map.bits && hit)
		len = mark_random_map(w, ddir, off, len);
	*lenp = len;
	if (hit && j->rw_seq_nr > 1)
		w->seq_left = j->rw_seq_nr - 1;
	if (j->percentage_random[ddir] < 100)
		w->f->seq_pos[ddir] = off + len;   /* the sequential share continues here */
	return trim_done(w, ddir, w->f->last_offset = off, len);
}

/* fio's clear_io_state before each pass after the first (loops, and
 * time_based or io_size beyond the files): the files start over and,
 * under randrepeat, the generators are seeded again, so the pass
 * repeats the first one's offsets, sizes and directions. */
static void new_pass(struct worker *w)
{
	iogap_fileset_restart(&w->fs);
	iogap_iolog_close_files(&w->iolog);   /* each opens again at its first use */
	w->iolog_closed = 0;
	iogap_randmix_new_pass(&w->mix, w->job, w->thread_number, w->seed);
	if (w->job->randrepeat && w->job->rw & IOGAP_RW_RAND)
		iogap_randoff_reseed(&w->randoff, w->job, w->thread_number, w->seed, &w->fs);
	if (w->job->randrepeat)
		iogap_fileset_reseed(&w->fs, w->job, w->thread_number, w->seed);
}

/* Files the choice found done: fio finds that out by a failed fill,
 * whose random offset (a full random map) took a draw */
static void closed_draws(struct worker *w, uint8_t ddir, unsigned n)
{
	const struct iogap_job *j = w->job;

	if (!(j->rw & IOGAP_RW_RAND) || j->norandommap || j->random_generator == IOGAP_RGEN_LFSR ||
	    j->percentage_random[ddir] < 100 || j->random_distribution != IOGAP_RAND_UNIFORM)
		return;
	while (n--)
		iogap_frand_next(&w->randoff.rnd);
}

/* The file and offset of the next I/O (fio's set_io_u_file): a file
 * with no next offset is done and another is served. */
static uint64_t pick_file_offset(struct worker *w, uint8_t ddir, uint32_t *lenp)
{
	for (unsigned tries = 0; tries <= 2 * w->fs.nr; tries++) {
		uint64_t off;

		if (!w->write_after_trim) {   /* trimwrite's write: the trim's file */
			unsigned closed = w->fs.nr_closed;
			struct iogap_wfile *f = iogap_fileset_next(&w->fs);

			if (w->fs.nr_closed != closed)   /* rare: no call per request */
				closed_draws(w, ddir, w->fs.nr_closed - closed);
			if (!f && !w->job->time_based)   /* the pass is over (keep_running) */
				return NO_MORE_IO;
			if (!f) {
				new_pass(w);
				f = iogap_fileset_next(&w->fs);
			}
			w->f = f;
		}
		off = pick_offset(w, ddir, lenp);
		if (off != NO_MORE_IO)
			return off;
		if (w->fs.nr == 1 && w->job->time_based) {   /* fio's keep_running: a new pass */
			new_pass(w);
			continue;
		}
		if (w->fs.nr < 2 || !iogap_fileset_finish(&w->fs, w->f))
			return off;
	}
	return NO_MORE_IO;
}

/* fio's refill_buffers: fresh random data for every write */
static void refill_buffer(struct worker *w, struct iogap_io *io)
{
	for (uint32_t i = 0; i < io->len; i += 8) {
		uint64_t v = iogap_rand_next(&w->rnd_buf);

		memcpy((char *)io->buf + i, &v, io->len - i < 8 ? io->len - i : 8);
	}
}

static void stamp_tags(struct worker *w, struct iogap_io *io)
{
	struct iogap_write_tag tag = {
		.magic = IOGAP_TAG_MAGIC,
		.run_id = w->run_id,
		.request_id = io->request_id,
	};

	for (uint32_t pos = 0, blk = 0; pos + sizeof(tag) <= io->len;
	     pos += IOGAP_TAG_STRIDE, blk++) {
		tag.block = blk;
		tag.check = iogap_tag_check(&tag);
		memcpy((char *)io->buf + pos, &tag, sizeof(tag));
	}
}

/* ---- accounting ---------------------------------------------------------- */

/* fio's continue_on_error and ignore_error (errors.c): the errors listed
 * for the named classes (EIO and EILSEQ unless ignore_error says) are
 * counted (total_err, first_error) and the job goes on. */
static bool error_survivable(const struct iogap_job *j, const struct iogap_io *io,
			     bool verify_failed)
{
	return iogap_job_error_ignored(j, io->ddir == IOGAP_OP_READ,
				       verify_failed ? EILSEQ : (int)-io->result);
}

/* fio verifies the reads of a job that only reads, and the verify pass */
static bool verify_this_read(const struct worker *w, const struct iogap_io *io)
{
	const struct iogap_job *j = w->job;

	return iogap_unlikely(j->verify) && io->ddir == IOGAP_OP_READ && io->result == io->len &&
	       (w->vslot[io->slot].check || !(j->rw & IOGAP_RW_WRITE));
}

/* A completed read that fails verification becomes -EILSEQ, with fio's
 * message on stderr; verify_fatal ends the job even when it goes on. */
static bool verify_read(struct worker *w, struct iogap_io *io)
{
	const struct iogap_job *j = w->job;
	struct iogap_verify_read r = {
		.file = w->fs.f[io->file].path,
		.type = j->verify,
		.interval = j->verify_interval,
		.offset = io->offset,
		/* fio's rule, and no overwrites (norandommap may rewrite a block) */
		.check_numberio = w->vslot[io->slot].check && j->bs_min[IOGAP_OP_WRITE] == j->bs_max[IOGAP_OP_WRITE] &&
				  !j->time_based && !j->norandommap && !j->verify_only,
		.swap_offset = j->verify_offset,
	};
	uint8_t pattern[IOGAP_VERIFY_PATTERN_MAX];
	char msg[512];

	r.numberio = w->vslot[io->slot].numberio;
	r.pattern = pattern;
	r.pattern_len = iogap_verify_pattern_at(j, io->offset, pattern);
	if (w->vslot[io->slot].trimmed ?
	    !iogap_vtrim_check(r.file, io->offset, io->buf, io->len, msg, sizeof(msg)) :
	    !iogap_verify_check(&r, io->buf, io->len, msg, sizeof(msg))) {
		iogap_dprint(IOGAP_DBG_VERIFY, "verify %s: %s off=%llu len=%u ok\n",
			     w->vslot[io->slot].trimmed ? "trim" : iogap_verify_name(j->verify), r.file,
			     (unsigned long long)io->offset, io->len);
		return false;
	}
	iogap_dprint(IOGAP_DBG_VERIFY, "verify: %s off=%llu len=%u failed\n", r.file,
		     (unsigned long long)io->offset, io->len);
	fprintf(stderr, "%s\n", msg);
	if (j->verify_dump && iogap_verify_dump(w->opts->aux_path, r.file, io->offset, io->buf,
						io->len))
		fprintf(stderr, "fio: verify_dump of %s at %llu failed\n", r.file,
			(unsigned long long)io->offset);
	io->result = -EILSEQ;
	if (j->verify_fatal)
		atomic_store_explicit(&w->terminate, 1, memory_order_relaxed);
	return true;
}

/* Write side: headers and checksums into the buffer, and the block in the
 * log the verify pass reads back (not when time_based: no pass follows,
 * unless verify_backlog reads back along the way). */
static int verify_stamp(struct worker *w, struct iogap_io *io)
{
	const struct iogap_job *j = w->job;
	struct iogap_verify_write vw = {
		.type = j->verify,
		.interval = j->verify_interval,
		.offset = io->offset,
		.seed = io->request_id,
		.time_ns = iogap_now_ns(),
		.thread = (uint16_t)w->thread_number,
		.numberio = w->numberio,
		.tagged = w->opts->tag_writes,
		.swap_offset = j->verify_offset,
	};
	int r;

	iogap_verify_fill(&vw, io->buf, io->len);
	if (!j->do_verify || (j->time_based && !j->verify_backlog))
		return 0;
	r = iogap_verify_log_add(&w->vlog, (uint16_t)io->file, io->offset, io->len, w->numberio++);
	return r ? r : iogap_vtrim_logged(&w->vtrim, j, &w->vlog);
}

/* verify_only: a write of the workload is logged for the read-back, not
 * issued, counted or traced (fio counts it, with no runtime). */
static int verify_skip_write(struct worker *w, struct iogap_io *io)
{
	const struct iogap_job *j = w->job;
	int r = j->verify && j->do_verify ?
		iogap_verify_log_add(&w->vlog, (uint16_t)io->file, io->offset, io->len,
				     w->numberio++) : 0;

	w->bytes_issued += io->len;
	iogap_fileset_issued(&w->fs, w->f, io->len);
	w->ios_total++;
	return r;
}

/* verify_pattern with its %o at the write's offset, over the buffer */
static void fill_verify_pattern(struct worker *w, struct iogap_io *io)
{
	uint8_t pattern[IOGAP_VERIFY_PATTERN_MAX];
	unsigned len = iogap_verify_pattern_at(w->job, io->offset, pattern);

	iogap_verify_fill_pattern(pattern, len, io->buf, io->len);
}

/* verify_state_load: fio ends the job at the first verified read among
 * the last depth issues that the saved state does not list as completed */
static bool vstate_stops(struct worker *w, const struct iogap_io *io, bool verifying)
{
	const struct iogap_job *j = w->job;

	return iogap_unlikely(w->vstate_loaded) && j->verify &&
	       (verifying || !(j->rw & IOGAP_RW_WRITE)) &&
	       iogap_vstate_should_stop(&w->vstate, io->file, io->offset,
					w->done_ios[IOGAP_OP_READ]);
}

/* The next read of the verify pass or a backlog batch: a block the pass
 * wrote, in the order written. */
static uint64_t verify_next(struct worker *w, struct iogap_io *io)
{
	const struct iogap_verify_piece *p = iogap_verify_log_next(&w->vlog);

	if (!p)
		return NO_MORE_IO;
	io->len = p->len;
	w->f = &w->fs.f[p->file];
	w->vslot[io->slot] = (struct verify_slot){ .check = true, .numberio = p->numberio,
						   .trimmed = p->trim == IOGAP_PIECE_TRIMMED };
	return p->offset;
}

/* fio's verify_backlog: once N written blocks wait in the log, the next
 * verify_backlog_batch I/Os read them back (after the writes complete). */
static bool backlog_due(struct worker *w)
{
	const struct iogap_job *j = w->job;

	if (!j->verify_backlog || w->verify_pass || w->backlog_left ||
	    w->vlog.nr - w->vlog.next < j->verify_backlog)
		return false;
	w->backlog_left = j->verify_backlog_batch ? j->verify_backlog_batch : j->verify_backlog;
	return true;
}

static uint64_t completed(const struct worker *w)
{
	return w->done_ios[0] + w->done_ios[1] + w->done_ios[2];
}

/* fio's lat_fatal: a request over max_latency, or over latency_target at
 * depth 1, ends the job with ETIMEDOUT */
static void lat_fatal(struct worker *w, const struct iogap_io *io, uint64_t lat, uint64_t max_ns)
{
	static const char *const names[IOGAP_DDIR_NR] = { "read", "write", "trim" };

	if (!w->stat.error)
		fprintf(stderr, "fio: latency of %" PRIu64 " nsec exceeds specified max (%" PRIu64
			" nsec): %s %s %" PRIu64 " %u\n", lat, max_ns, w->fs.f[io->file].path,
			names[io->ddir], io->offset, io->len);
	if (!w->stat.first_error)
		w->stat.first_error = ETIMEDOUT;
	w->stat.error = ETIMEDOUT;
	snprintf(w->stat.verror, sizeof(w->stat.verror), "max latency exceeded");
}

/* a profile's latency check failed: fio's icd->error (EPERM) ends the job */
static void prof_fatal(struct worker *w)
{
	if (!w->stat.first_error)
		w->stat.first_error = EPERM;
	if (!w->stat.error) {
		w->stat.error = EPERM;
		snprintf(w->stat.verror, sizeof(w->stat.verror), "io_u_sync_complete");
	}
}

/* A failed request: fio's continue_on_error and the fill-the-device end,
 * the error line, the job's first error.  Out of line: cold, and inlined
 * it made every completion save more registers. */
static __attribute__((cold, noinline)) void account_error(struct worker *w,
							  const struct iogap_io *io,
							  bool verify_failed)
{
	struct iogap_job_stat *st = &w->stat;
	const struct iogap_job *j = w->job;
	bool survives = error_survivable(j, io, verify_failed);

	if (!survives && io->ddir == IOGAP_OP_WRITE &&
	    iogap_job_error_ends_fill(j, (int)-io->result)) {   /* errors.c */
		atomic_store_explicit(&w->terminate, 1, memory_order_relaxed);
		return;   /* fio: the device is full, the job is done */
	}
	if (!survives || j->error_dump)   /* fio's __io_u_log_error */
		fprintf(stderr, "fio: io_u error on file %s: %s: %s offset=%" PRIu64
			", buflen=%u\n", w->fs.f[io->file].path, strerror((int)-io->result),
			iogap_rw_name(io->ddir == IOGAP_OP_READ ? IOGAP_RW_READ :
				      io->ddir == IOGAP_OP_WRITE ? IOGAP_RW_WRITE : IOGAP_RW_TRIM),
			io->offset, io->len);
	st->total_err_count++;
	if (!st->first_error)
		st->first_error = (int)-io->result;
	if (!st->error && !survives) {
		st->error = (int)-io->result;
		snprintf(st->verror, sizeof(st->verror), "%s", strerror((int)-io->result));
	}
}

static void account(struct worker *w, struct iogap_io *io, uint64_t now, bool has_slat)
{
	struct iogap_job_stat *st = &w->stat;
	struct iogap_ddir_stat *ds = &st->dir[io->ddir];
	const struct iogap_job *j = w->job;
	uint64_t clat = now - io->issue_ns, lat = now - io->start_ns;
	bool verify_failed;

	if (iogap_unlikely(w->zbd))   /* zbd.c: write pointers advance on success, re-synced on failure */
		iogap_zbd_complete(w->zbd, io);
	record_io(w, io, now, io->ddir, 0);
	iogap_dprint(IOGAP_DBG_IO, "complete: io_u %p: off=0x%llx,len=0x%x,ddir=%d,result=%lld\n",
		     (void *)io, (unsigned long long)io->offset, io->len, io->ddir, (long long)io->result);
	verify_failed = verify_this_read(w, io) && verify_read(w, io);
	/* only this thread writes them: plain adds, published for the
	 * progress line without a locked instruction */
	atomic_store_explicit(&w->prog_ios[io->ddir], ++w->done_ios[io->ddir], memory_order_relaxed);
	if (iogap_likely(io->result > 0)) {
		w->done_bytes[io->ddir] += (uint64_t)io->result;
		atomic_store_explicit(&w->prog_bytes[io->ddir], w->done_bytes[io->ddir],
				      memory_order_relaxed);
	}
	if (iogap_unlikely(io->result < 0)) {
		account_error(w, io, verify_failed);
		return;
	}
	if (iogap_unlikely(w->vrec.ring) && io->ddir == IOGAP_OP_WRITE)   /* verify_state_save */
		iogap_vstate_rec_write(&w->vrec, io->file, io->offset);
	if (iogap_unlikely(j->latency_target_ns) && !j->disable_lat && io->ddir != IOGAP_OP_TRIM &&
	    iogap_lat_target_complete(&w->lat, j, lat))
		lat_fatal(w, io, lat, w->job->latency_target_ns);
	if (iogap_unlikely(io->in_ramp))
		return;
	if (iogap_unlikely((uint64_t)io->result < io->len))
		ds->short_io_u++;
	if (iogap_unlikely(st->nr_block_infos) && io->ddir == IOGAP_OP_TRIM)   /* block_info.c */
		iogap_block_info_trim(st, io->offset - w->fs.f[io->file].region_start,
				      j->bs[IOGAP_OP_TRIM]);
	ds->io_bytes += (uint64_t)io->result;
	w->sample_bytes[io->ddir] += (uint64_t)io->result;
	w->sample_ios[io->ddir]++;
	if (has_slat && !j->disable_slat) {
		uint64_t slat = io->issue_ns - io->start_ns;

		iogap_io_stat_add(&ds->lat[IOGAP_SLAT], slat);
		if (iogap_unlikely(j->slat_percentiles))
			ds->plat[IOGAP_SLAT][iogap_plat_val_to_idx(slat)]++;
	}
	if (iogap_likely(!j->disable_clat)) {
		iogap_io_stat_add(&ds->lat[IOGAP_CLAT], clat);
		ds->plat[IOGAP_CLAT][iogap_plat_val_to_idx(clat)]++;
		iogap_lat_bucket_add(st, clat);
	}
	/* prio.c: fio keeps lat per priority with lat_percentiles, else clat */
	if (j->lat_percentiles ? !j->disable_lat : !j->disable_clat)
		iogap_clat_prio_add(st, io->ddir, io->prio_index, j->lat_percentiles ? lat : clat);
	if (iogap_likely(!j->disable_lat)) {
		iogap_io_stat_add(&ds->lat[IOGAP_LAT], lat);
		if (iogap_unlikely(j->lat_percentiles))
			ds->plat[IOGAP_LAT][iogap_plat_val_to_idx(lat)]++;
		if (iogap_unlikely(j->proc.max_latency_ns[io->ddir]) &&
		    lat > j->proc.max_latency_ns[io->ddir])
			lat_fatal(w, io, lat, w->job->proc.max_latency_ns[io->ddir]);
		if (iogap_unlikely(w->prof_state) && w->opts->prof->io_lat(w->prof_state, lat))
			prof_fatal(w);
	}
}

/* fio's __add_samples: bandwidth (KiB/s, iops false) or IOPS over the
 * window that ended at now */
static void add_samples(struct worker *w, uint64_t now, bool iops)
{
	uint64_t span = now - w->last_sample_ns[iops];

	if (span == 0 || (!iops && w->job->disable_bw))
		return;
	for (int d = 0; d < IOGAP_DDIR_NR; d++) {
		/* the verify pass only reads */
		if (w->verify_pass ? d != IOGAP_OP_READ : !(w->job->rw & (1u << d)))
			continue;
		if (iops) {
			iogap_io_stat_add(&w->stat.dir[d].iops,
					  w->sample_ios[d] * 1000000000ULL / span);
			w->sample_ios[d] = 0;
		} else {
			iogap_io_stat_add(&w->stat.dir[d].bw,
					  w->sample_bytes[d] * 1000000000ULL / 1024 / span);
			w->sample_bytes[d] = 0;
		}
	}
	w->last_sample_ns[iops] = now;
}

static void sample_due(struct worker *w)
{
	w->next_sample_due = w->in_ramp || !w->job->stats ? UINT64_MAX :
			     w->next_sample[0] < w->next_sample[1] ? w->next_sample[0] :
			     w->next_sample[1];
}

/* the bandwidth and IOPS samples whose window ended by now */
static void take_samples(struct worker *w, uint64_t now)
{
	for (int k = 0; k < 2 && !w->in_ramp && w->job->stats; k++) {
		if (now < w->next_sample[k])
			continue;
		add_samples(w, now, k);
		w->next_sample[k] += w->sample_window_ns[k];
	}
	sample_due(w);
}

static void end_ramp(struct worker *w, uint64_t now)
{
	atomic_store(&w->epoch_ns, now);
	if (w->job->latency_target_ns && !w->lat.end_run)   /* fio's lat_target_reset */
		iogap_lat_target_init(&w->lat, w->job, now, completed(w));
	w->in_ramp = false;
	w->sample_window_ns[0] = w->job->bw_avg_msec * 1000000ULL;
	w->sample_window_ns[1] = w->job->iops_avg_msec * 1000000ULL;
	for (int k = 0; k < 2; k++) {
		w->last_sample_ns[k] = now;
		w->next_sample[k] = now + w->sample_window_ns[k];
	}
	sample_due(w);
	w->rate_start = now;
	memset(w->ios_issued, 0, sizeof(w->ios_issued));
	memset(w->bytes_dir_issued, 0, sizeof(w->bytes_dir_issued));
	getrusage(RUSAGE_THREAD, &w->ru_start);
}

/* ---- the I/O loop ---------------------------------------------------- */

static struct iogap_io *get_slot(struct worker *w)
{
	return w->nr_free ? w->free_slots[--w->nr_free] : NULL;
}

static void put_slot(struct worker *w, struct iogap_io *io)
{
	w->free_slots[w->nr_free++] = io;
}

static unsigned in_flight(const struct worker *w)
{
	return w->ectx.depth - w->nr_free;
}

/* Reap at least min completions of the queued-and-submitted requests
 * (queued ones not yet committed are never waited for), at most
 * iodepth_batch_complete_max of them unless min is more (fio's
 * td_io_getevents). */
static int reap(struct worker *w, unsigned min, unsigned queued)
{
	unsigned max = w->job->iodepth_batch_complete_max;
	unsigned submitted = in_flight(w) - queued;
	uint64_t now;
	int n;

	if (!w->ops->getevents || submitted == 0)
		return 0;
	if (min > submitted)
		min = submitted;
	if (max > submitted)
		max = submitted;
	if (max < min)
		max = min;
	n = w->ops->getevents(&w->ectx, min, max, w->done);
	if (n < 0)
		return n;
	now = iogap_now_ns();
	if (n && !w->in_ramp) {
		w->stat.io_u_complete[iogap_batch_to_map_idx((unsigned)n)]++;
		w->stat.total_complete++;
	}
	for (int i = 0; i < n; i++) {
		struct iogap_io *io = w->done[i];

		if (w->job->io_submit_offload)   /* offload.c: stamped by its submitter */
			account(w, io, io->complete_ns, !io->no_slat);
		else
			account(w, io, now, !w->ectx.sync);
		put_slot(w, io);
	}
	return n;
}

static int commit(struct worker *w, unsigned *queued)
{
	int n;

	if (!*queued || !w->ops->commit)
		return 0;
	n = w->ops->commit(&w->ectx);
	if (n < 0)
		return n;
	if (n > 0) {
		if (!w->in_ramp) {
			w->stat.io_u_submit[iogap_batch_to_map_idx((unsigned)n)]++;
			w->stat.total_submit++;
			w->stat.io_u_map[iogap_depth_to_map_idx(in_flight(w))] += (unsigned)n;
		}
		*queued -= (unsigned)n;
	}
	return n;
}

/* Commit and reap until nothing is in flight: each reap waits for one
 * completion (fio's io_u_quiesce) or, with all, for every one submitted
 * (the end of fio's do_io). */
static int drain_waiting(struct worker *w, unsigned *queued, bool all)
{
	while (in_flight(w)) {
		int r = commit(w, queued);

		if (r < 0)
			return r;
		r = reap(w, all ? in_flight(w) : 1, *queued);
		if (r < 0)
			return r;
	}
	return 0;
}

static int drain(struct worker *w, unsigned *queued)
{
	return drain_waiting(w, queued, false);
}

enum sync_kind { SYNC_FSYNC, SYNC_FDATASYNC, SYNC_FILE_RANGE };

/* sync_file_range over the span written since the last one, as fio */
static int sync_range(struct worker *w, int fd)
{
	uint64_t from = w->written_lo, len = w->written_hi - w->written_lo;

	w->written_lo = UINT64_MAX;
	w->written_hi = 0;
	if (from == UINT64_MAX)
		return 0;
	return sync_file_range(fd, (off_t)from, (off_t)len, w->job->sync_file_range_flags) ?
		-errno : 0;
}

/* Sync file f (the one last written to; every file for end_fsync). */
static int do_sync(struct worker *w, unsigned *queued, enum sync_kind kind,
		   const struct iogap_wfile *f)
{
	struct iogap_io io = { .request_id = ++w->req_seq | ((uint64_t)w->thread_number << 40),
			       .file = (uint32_t)(f - w->fs.f) };
	uint64_t done;
	int r = drain(w, queued);

	if (r < 0)
		return r;
	io.start_ns = io.issue_ns = iogap_now_ns();
	w->ectx.fd = f->fd;
	if (w->ops->flush)
		r = w->ops->flush(&w->ectx);   /* 0 or -errno */
	else
		r = kind == SYNC_FILE_RANGE ? sync_range(w, f->fd) :
		    (kind == SYNC_FDATASYNC ? fdatasync(f->fd) : fsync(f->fd)) ? -errno : 0;
	done = iogap_now_ns();
	io.result = r;
	record_io(w, &io, done, IOGAP_OP_FLUSH, IOGAP_REC_SYNC_OP);
	if (!w->in_ramp && !w->end_syncing) {
		iogap_io_stat_add(&w->stat.sync_stat, done - io.issue_ns);
		w->stat.sync_plat[iogap_plat_val_to_idx(done - io.issue_ns)]++;
		/* fio's total_ios here counts fsyncs only (its DDIR_SYNC); the
		 * latencies of fdatasync and sync_file_range join theirs */
		w->stat.total_sync += kind == SYNC_FSYNC;
	}
	return r;
}

/* write_iolog: the files fileset.c closed since the last request first,
 * in the order it closed them; the rest close at the end */
static void log_request(struct worker *w, enum iogap_iolog_act act, unsigned file,
			uint64_t offset, uint64_t len)
{
	if (iogap_likely(!iogap_iolog_writing(&w->iolog)))
		return;
	for (; w->iolog_closed < w->fs.nr_closed; w->iolog_closed++)
		iogap_iolog_close_file(&w->iolog, w->fs.closed[w->iolog_closed]);
	iogap_iolog_write(&w->iolog, act, file, offset, len);
}

/* A sync the job's options ask for, in write_iolog as fio logs it (the
 * end_fsync is not: fio issues it outside its queue). */
static int job_sync(struct worker *w, unsigned *queued, enum sync_kind kind)
{
	static const enum iogap_iolog_act act[] = {
		[SYNC_FSYNC] = IOGAP_IOLOG_SYNC, [SYNC_FDATASYNC] = IOGAP_IOLOG_DATASYNC,
		[SYNC_FILE_RANGE] = IOGAP_IOLOG_SYNC_FILE_RANGE,
	};
	/* fio chooses the file before it knows the request is a sync: the sync
	 * goes to the file whose turn is next, and takes that turn */
	struct iogap_wfile *f = w->fs.nr > 1 ? iogap_fileset_next_sync(&w->fs) : NULL;

	if (!f)
		f = w->f;
	log_request(w, act[kind], f ? (unsigned)(f - w->fs.f) : 0, 0, 0);
	return do_sync(w, queued, kind, f);
}

/* ---- read_iolog: the next request comes from the log ---- */

enum { REPLAY_IO, REPLAY_OTHER, REPLAY_END };

static bool replay_stopped(const struct worker *w)
{
	return stop_requested || atomic_load_explicit(&w->terminate, memory_order_relaxed) ||
	       (w->t_end && iogap_now_ns() >= w->t_end);
}

/* fio's iolog_delay: sleep what is left of delay_us since the last issue,
 * less what the previous sleep overran, in pieces of at most 0.5 s */
static void replay_delay(struct worker *w, uint64_t delay_us)
{
	uint64_t since = (iogap_now_ns() - w->last_issue_ns) / 1000, orig = delay_us, t0, slept;

	if (!delay_us)
		return;
	if (delay_us < w->replay_late_us) {
		w->replay_late_us = 0;
		return;
	}
	delay_us -= w->replay_late_us;
	if (delay_us < since)
		return;
	delay_us -= since;
	t0 = iogap_now_ns();
	while (delay_us && !replay_stopped(w)) {
		uint64_t part = delay_us > 500000 ? 500000 : delay_us;

		iogap_sleep_until_ns(iogap_now_ns() + part * 1000);
		delay_us -= part;
	}
	slept = (iogap_now_ns() - t0) / 1000;
	w->replay_late_us = slept > orig ? slept - orig : 0;
}

/* The job's files are the log's, in order (iolog.c's prepare_job) */
static struct iogap_wfile *replay_file(struct worker *w, const struct iogap_iolog_piece *p)
{
	return &w->fs.f[p->file_index < w->fs.nr ? p->file_index : 0];
}

/* A piece that is not a request: io's slot goes back first (a sync drains
 * the queue).  0, or -errno. */
static int replay_other(struct worker *w, struct iogap_io *io, unsigned *queued,
			const struct iogap_iolog_piece *p)
{
	int r = 0;

	put_slot(w, io);
	if (p->act == IOGAP_IOLOG_WAIT) {   /* fio: until N ms after the start */
		uint64_t at = p->delay_us > (UINT64_MAX - w->t_start) / 1000000 ? UINT64_MAX :
			      w->t_start + p->delay_us * 1000000;

		while (iogap_now_ns() < at && !replay_stopped(w))
			iogap_sleep_until_ns(at - iogap_now_ns() > 500000000 ? iogap_now_ns() + 500000000 : at);
		return 0;
	}
	replay_delay(w, p->delay_us);
	if (p->act == IOGAP_IOLOG_SYNC || p->act == IOGAP_IOLOG_DATASYNC)
		r = do_sync(w, queued, p->act == IOGAP_IOLOG_SYNC ? SYNC_FSYNC : SYNC_FDATASYNC,
			    replay_file(w, p));
	w->last_issue_ns = iogap_now_ns();   /* file actions too, as fio */
	return r;
}

/* Fill io from the log: REPLAY_IO; REPLAY_OTHER after a sync, wait or
 * file action (io given back); REPLAY_END; or -errno with w->err set. */
static int replay_next(struct worker *w, struct iogap_io *io, unsigned *queued)
{
	struct iogap_iolog_piece p;
	int r = iogap_iolog_next(w->replay, &p, w->err, sizeof(w->err));

	if (r <= 0) {
		put_slot(w, io);
		if (r < 0 && !w->stat.error) {
			w->stat.error = EINVAL;
			snprintf(w->stat.verror, sizeof(w->stat.verror), "%.127s", w->err);
		}
		return r < 0 ? -EINVAL : REPLAY_END;
	}
	if (p.act > IOGAP_IOLOG_TRIM) {
		r = replay_other(w, io, queued, &p);
		return r < 0 ? r : REPLAY_OTHER;
	}
	replay_delay(w, p.delay_us);
	w->f = replay_file(w, &p);
	io->ddir = (uint8_t)p.act;
	io->offset = p.offset;
	io->len = p.len;
	return REPLAY_IO;
}

/* fio's exitall: this job is done, so are the others exit_what names
 * (those of its group; every running one; or every one, none to start). */
static void exit_others(struct worker *w)
{
	for (size_t i = 0; i < w->nall; i++) {
		struct worker *o = &w->all[i];

		bool hit = w->job->exit_what == IOGAP_EXIT_ALL ||
			   (w->job->exit_what == IOGAP_EXIT_STONEWALL && o->segment == w->segment) ||
			   o->groupid == w->groupid;

		if (hit)
			atomic_store(&o->terminate, 1);
	}
	if (w->job->exit_what == IOGAP_EXIT_ALL)
		atomic_store(&exit_all, 1);
}

/* CPU use and run times of the measured period up to t_stop, into st. */
static void close_stats(const struct worker *w, struct iogap_job_stat *st, uint64_t t_stop)
{
	uint64_t ms = (t_stop - w->t_ramp_end) / 1000000ULL;
	struct rusage ru_end;

	getrusage(RUSAGE_THREAD, &ru_end);
	st->usr_time_us = (uint64_t)((ru_end.ru_utime.tv_sec - w->ru_start.ru_utime.tv_sec) * 1000000LL +
				     (ru_end.ru_utime.tv_usec - w->ru_start.ru_utime.tv_usec));
	st->sys_time_us = (uint64_t)((ru_end.ru_stime.tv_sec - w->ru_start.ru_stime.tv_sec) * 1000000LL +
				     (ru_end.ru_stime.tv_usec - w->ru_start.ru_stime.tv_usec));
	st->ctx = (uint64_t)(ru_end.ru_nvcsw - w->ru_start.ru_nvcsw +
			     ru_end.ru_nivcsw - w->ru_start.ru_nivcsw);
	st->minf = (uint64_t)(ru_end.ru_minflt - w->ru_start.ru_minflt);
	st->majf = (uint64_t)(ru_end.ru_majflt - w->ru_start.ru_majflt);
	st->total_run_time_ms = ms;
	for (int d = 0; d < IOGAP_DDIR_NR; d++)
		if (w->job->rw & (1u << d))
			st->dir[d].runtime_ms = ms ? ms : 1;
	if (w->verify_ns && !(w->job->rw & IOGAP_RW_READ)) {
		/* fio: the verify pass is the reads' runtime, not the writes' */
		uint64_t vms = w->verify_ns / 1000000;

		st->dir[IOGAP_OP_READ].runtime_ms = vms ? vms : 1;
		st->dir[IOGAP_OP_WRITE].runtime_ms = ms > vms ? ms - vms : 1;
	}
}

/* --status-interval: answer the main thread's request with a copy of the
 * statistics so far (cumulative from the job's start, as fio's dump). */
static void answer_status(struct worker *w, uint64_t now)
{
	unsigned want = atomic_load_explicit(&status_wanted, memory_order_acquire);

	if (want == w->snap_seen)
		return;
	memcpy(w->snap, &w->stat, sizeof(*w->snap));
	if (!w->in_ramp)
		close_stats(w, w->snap, now);
	w->snap_seen = want;
	atomic_store_explicit(&w->snap_done, want, memory_order_release);
}

static void set_budget(struct worker *w)
{
	const struct iogap_job *j = w->job;

	/* fio's exceeds_number_ios: a count over every loop; time_based
	 * runs do not check it */
	w->ios_cap = j->number_ios && !j->time_based ? j->number_ios * j->loops : UINT64_MAX;
	/* fio's do_io: the bytes of every loop so far against the budget of all */
	w->bytes_cap = j->time_based || w->replay ? UINT64_MAX : w->io_budget * j->loops;
}

static bool budget_left(const struct worker *w)
{
	/* the verify pass: the log says when it ends */
	return w->verify_pass || (w->ios_total < w->ios_cap && w->bytes_issued < w->bytes_cap);
}

/* fio's usec_for_io with rate_process=poisson: exponential gaps whose
 * mean is the rate's (rate as IOPS of the smallest block) */
static uint64_t poisson_gap_us(struct worker *w, uint8_t ddir)
{
	const struct iogap_job *j = w->job;
	uint64_t iops = j->rate_iops[ddir] ? j->rate_iops[ddir] : j->rate[ddir] / j->bs_min[ddir];
	double u = (double)(iogap_rand_next(&w->rnd_poisson) >> 11) * 0x1.0p-53;

	if (!iops)
		return 0;
	return (uint64_t)((double)(1000000 / iops) * -log(u > 0 ? u : 0x1.0p-53));
}

/* fio's check_min_rate: from 2 s in, every ratecycle, each direction that
 * moved must have kept rate_min (bytes/s) or rate_iops_min since the
 * previous check, else the job ends with EIO (its message on stderr). */
static bool min_rate_missed(struct worker *w, uint64_t now)
{
	const struct iogap_job *j = w->job;

	if (iogap_likely(!w->rate_floor) || now - w->t_start < 2000000000ULL)
		return false;
	for (int d = 0; d < IOGAP_DDIR_NR; d++) {
		uint64_t spent, got;

		if ((!j->rate_min[d] && !j->rate_iops_min[d]) || !w->done_bytes[d])
			continue;   /* before the division: this runs for every request */
		spent = (now - w->rate_check_ns[d]) / 1000000;
		if (w->rate_check_ns[d] && (spent < j->ratecycle_ms || !spent))
			continue;
		if (w->rate_check_ns[d] && j->rate_min[d] &&
		    (got = (w->done_bytes[d] - w->rate_check_bytes[d]) * 1000 / spent) < j->rate_min[d]) {
			fprintf(stderr, "%s: rate_min=%" PRIu64 "B/s not met, got %" PRIu64 "B/s\n",
				j->name, j->rate_min[d], got);
			return true;
		}
		if (w->rate_check_ns[d] && !j->rate_min[d] &&
		    (got = (w->done_ios[d] - w->rate_check_ios[d]) * 1000 / spent) < j->rate_iops_min[d]) {
			fprintf(stderr, "%s: rate_iops_min=%" PRIu64 " not met, got %" PRIu64 " IOPS\n",
				j->name, j->rate_iops_min[d], got);
			return true;
		}
		w->rate_check_bytes[d] = w->done_bytes[d];
		w->rate_check_ios[d] = w->done_ios[d];
		w->rate_check_ns[d] = now;
	}
	return false;
}

/* Is a rate (or a minimum rate) set for some direction, by IOPS or bytes? */
static bool any_rate(const uint64_t iops[IOGAP_DDIR_NR], const uint64_t bytes[IOGAP_DDIR_NR])
{
	for (int d = 0; d < IOGAP_DDIR_NR; d++)
		if (iops[d] || bytes[d])
			return true;
	return false;
}

/* When the next I/O of ddir is due under rate_iops and rate (fio's
 * rate_next_io_time), 0 when the direction has no rate */
static uint64_t rate_due(const struct worker *w, uint8_t ddir)
{
	uint64_t iops = w->job->rate_iops[ddir], bps = w->job->rate[ddir], due = 0;

	if (!iops && !bps)
		return 0;
	if (w->job->rate_poisson)
		return w->rate_start + w->poisson_us[ddir] * 1000;
	if (iops)
		due = w->rate_start + w->ios_issued[ddir] * 1000000000ULL / iops;
	if (bps) {
		uint64_t by_bytes = w->rate_start +
			(uint64_t)((double)w->bytes_dir_issued[ddir] * 1e9 / (double)bps);

		due = by_bytes > due ? by_bytes : due;
	}
	return due;
}

/* rate_iops and rate (w->rated): wait until this direction is due again.  As fio's
 * rate_ddir, a job that reads and writes turns to the other direction
 * (*ddir, when may_switch) if that one is due first.  Ahead of the rate:
 * as fio (rate_ddir -> io_u_quiesce), first complete every request in
 * flight, then sleep.  Sleeping with requests in flight would stamp their
 * completions late (they are seen only when reaped). */
static int rate_wait(struct worker *w, uint8_t *ddir, bool may_switch, unsigned *queued)
{
	const struct iogap_job *j = w->job;
	uint64_t due, now;
	int r = 0;

	if (w->in_ramp)
		return 0;
	now = iogap_now_ns();
	due = rate_due(w, *ddir);
	if (due > now && may_switch && *ddir != IOGAP_OP_TRIM && j->rwmix[*ddir ^ 1] &&
	    (j->rw & (IOGAP_RW_READ | IOGAP_RW_WRITE)) == (IOGAP_RW_READ | IOGAP_RW_WRITE)) {
		uint64_t other = rate_due(w, *ddir ^ 1);

		if (other < due) {
			w->mix.ddir = *ddir ^= 1;   /* fio's rwmix_ddir follows */
			due = other;
		}
	}
	if (j->rate_poisson && (j->rate_iops[*ddir] || j->rate[*ddir]))
		w->poisson_us[*ddir] += poisson_gap_us(w, *ddir);
	if (now < due) {
		iogap_dprint(IOGAP_DBG_RATE, "ddir=%d: %llu usec until the next I/O is due\n", *ddir,
			     (unsigned long long)(due - now) / 1000);
		/* the slot in hand (not yet queued) counts as in flight; with
		 * io_submit_mode=offload the submitters go on (fio's rate_ddir) */
		while (!j->io_submit_offload && in_flight(w) > 1 &&
		       (r = commit(w, queued)) >= 0 && (r = reap(w, 1, *queued)) > 0)
			;
		iogap_sleep_until_ns(due);
	}
	return r < 0 ? r : 0;
}

/* Is a request other than io, of its file, in flight over its bytes? */
static bool overlaps_in_flight(const struct worker *w, const struct iogap_io *io)
{
	for (unsigned i = 0; i < w->ectx.depth; i++) {
		const struct iogap_io *o = &w->ios[i];
		bool free_slot = false;

		for (unsigned k = 0; k < w->nr_free && !free_slot; k++)
			free_slot = w->free_slots[k] == o;
		if (o != io && !free_slot && o->file == io->file && o->offset < io->offset + io->len &&
		    io->offset < o->offset + o->len)
			return true;
	}
	return false;
}

/* fio's serialize_overlap: io waits for the requests in flight it overlaps */
static int wait_overlap(struct worker *w, const struct iogap_io *io, unsigned *queued)
{
	int r = 0;

	while (r >= 0 && overlaps_in_flight(w, io))
		if ((r = commit(w, queued)) >= 0)
			r = reap(w, 1, *queued);
	return r < 0 ? r : 0;
}

/* Queue io; while the engine answers BUSY, submit what it holds, reap,
 * and offer the same request again (fio's FIO_Q_BUSY: requeue). */
static int queue_retrying(struct worker *w, struct iogap_io *io, unsigned *queued)
{
	for (;;) {
		int q = w->ops->queue(&w->ectx, io), r;

		if (iogap_likely(q != IOGAP_Q_BUSY))
			return q;
		r = commit(w, queued);
		if (r >= 0 && in_flight(w) - 1 > *queued)   /* io's own slot is not in flight */
			r = reap(w, 1, *queued + 1);
		else if (r == 0)
			r = -EBUSY;                          /* nothing to wait for: no progress */
		if (r < 0)
			return r;
		if (w->ectx.sync)   /* fio re-stamps a requeued request */
			io->issue_ns = iogap_now_ns();
	}
}

/* fio's rate_ignore_thinktime: the pause counts as issued at the rate
 * (less a block, to issue right after it), so no catching up follows */
static void rate_skip_pause(struct worker *w, uint64_t paused_ns)
{
	uint8_t d = w->last_ddir;
	uint64_t bs = w->job->bs_min[d];
	uint64_t bps = w->job->rate[d] ? w->job->rate[d] : w->job->rate_iops[d] * bs;
	uint64_t us = paused_ns / 1000, missed = bps * us / 1000000;
	uint64_t over = bs * 1000000 / (bps ? bps : 1) <= us ? bs : 0;

	if (!bps || missed < over)
		return;
	w->bytes_dir_issued[d] += missed - over;
	w->ios_issued[d] += (missed - over) / bs;
	w->poisson_us[d] += us;
}

/* fio's handle_thinktime: every thinktime_blocks I/Os (completed, or
 * issued), or once thinktime_iotime of I/O has passed, let the queue
 * drain, spin thinktime_spin, sleep the rest. */
static int think(struct worker *w, unsigned *queued)
{
	const struct iogap_job *j = w->job;
	uint64_t blocks = j->thinktime_issued ? w->ios_total :
			  w->done_ios[0] + w->done_ios[1] + w->done_ios[2];
	uint64_t t = iogap_now_ns();
	bool due = false;
	int r;

	if (j->proc.thinktime_iotime_ns) {
		due = t - w->last_think_ns >= j->proc.thinktime_iotime_ns + j->thinktime_ns;
		if (!due && !j->proc.thinktime_blocks_set)
			return 0;   /* fio: the default thinktime_blocks=1 would pause always */
	}
	if (!due && blocks < w->last_think_blocks + j->thinktime_blocks)
		return 0;
	if ((r = drain(w, queued)) < 0)
		return r;
	w->last_think_ns = t;   /* fio: the time before the pause */
	t = iogap_now_ns();
	while (iogap_now_ns() - t < j->thinktime_spin_ns)
		;
	iogap_sleep_until_ns(t + j->thinktime_ns);
	if (j->proc.rate_ignore_thinktime)
		rate_skip_pause(w, iogap_now_ns() - t);
	w->last_think_blocks = blocks;
	return 0;
}

/* fio's reset_all_stats and reset_io_stats, for the latency target's
 * final window: the measurement, and the runtime, start again */
static void restart_stats(struct worker *w, uint64_t now)
{
	struct iogap_job_stat *st = &w->stat;

	memset(st->dir, 0, sizeof(st->dir));
	memset(st->sync_plat, 0, sizeof(st->sync_plat));
	st->total_sync = 0;
	memset(st->io_u_map, 0, sizeof(st->io_u_map));
	memset(st->io_u_submit, 0, sizeof(st->io_u_submit));
	memset(st->io_u_complete, 0, sizeof(st->io_u_complete));
	memset(st->io_u_lat_n, 0, sizeof(st->io_u_lat_n));
	memset(st->io_u_lat_u, 0, sizeof(st->io_u_lat_u));
	memset(st->io_u_lat_m, 0, sizeof(st->io_u_lat_m));
	st->total_submit = st->total_complete = 0;
	memset(w->sample_bytes, 0, sizeof(w->sample_bytes));
	memset(w->sample_ios, 0, sizeof(w->sample_ios));
	end_ramp(w, now);
	w->t_ramp_end = now;
	if (w->job->runtime_ns)
		w->t_end = now + w->job->runtime_ns;
}

/* latency_target: the depth search's step after a turn; 1 when the job
 * is done, or a negative errno */
static int lat_target_turn(struct worker *w, unsigned *queued, uint64_t now)
{
	enum iogap_lat_step step = iogap_lat_target_check(&w->lat, w->job, now, completed(w));
	int r;

	if (step == IOGAP_LAT_DONE) {   /* fio's td->done: no further loop either */
		atomic_store(&w->terminate, 1);
		return 1;
	}
	if (step == IOGAP_LAT_KEEP)
		return 0;
	if ((r = drain(w, queued)) < 0)   /* fio's io_u_quiesce */
		return r;
	now = iogap_now_ns();
	if (step == IOGAP_LAT_FINAL)
		restart_stats(w, now);
	iogap_lat_target_new_window(&w->lat, now, completed(w));
	return 0;
}

/* fio's flow_threshold_exceeded: ahead of its share of the flow, the job
 * completes what it has in flight and sleeps flow_sleep (zonemode=zbd
 * completes it even without a sleep).  Without a sleep fio spins; the
 * probe yields the CPU on each retry, so that a job it waits for, on the
 * same CPU, gets there sooner.  1 when held back. */
static int flow_hold(struct worker *w, unsigned *queued)
{
	const struct iogap_job *j = w->job;
	int r;

	/* one share per I/O, as fio's loop takes one per io_u: a turn that
	 * issued nothing (queue full, zbd's drain) leaves its share to the next */
	if (!w->flow.flow || w->flow_token)
		return 0;
	if (!iogap_flow_ahead(&w->flow)) {
		w->flow_token = true;
		return 0;
	}
	if ((j->flow_sleep_us || j->zone_mode == IOGAP_ZONE_MODE_ZBD) && (r = drain(w, queued)) < 0)
		return r;
	if (j->flow_sleep_us)
		usleep(j->flow_sleep_us);
	else
		sched_yield();
	return 1;
}

enum turn { TURN_GO, TURN_AGAIN, TURN_STOP };

/* A turn's rare steps, in fio's order: flow, the syncs every N writes, a
 * verify backlog, latency_target's search.  TURN_GO: on to this turn's
 * I/O; TURN_AGAIN: a new turn; TURN_STOP: the loop ends with *r. */
static enum turn turn_extras(struct worker *w, unsigned *queued, uint64_t now, int *r)
{
	static const enum sync_kind kinds[] = { SYNC_FSYNC, SYNC_FDATASYNC, SYNC_FILE_RANGE };
	const struct iogap_job *j = w->job;
	const unsigned every[] = { j->fsync_blocks, j->fdatasync_blocks, j->sync_file_range_blocks };

	if ((*r = flow_hold(w, queued)) != 0) {
		if (*r < 0)
			return TURN_STOP;
		*r = 0;
		return TURN_AGAIN;
	}
	for (int k = 0; k < 3; k++) {
		if (!every[k] || w->writes_since_sync < every[k])
			continue;
		w->writes_since_sync = 0;
		*r = job_sync(w, queued, kinds[k]);
		return *r < 0 ? TURN_STOP : TURN_AGAIN;
	}
	if (backlog_due(w) && (*r = drain(w, queued)) < 0)
		return TURN_STOP;
	if (j->latency_target_ns && !w->verify_pass && (!w->in_ramp || w->lat.quiesce) &&
	    (*r = lat_target_turn(w, queued, now)) != 0) {
		*r = *r < 0 ? *r : 0;
		return TURN_STOP;
	}
	return TURN_GO;
}

static int run_loop(struct worker *w)
{
	const struct iogap_job *j = w->job;
	bool sync_engine = w->ectx.sync;
	unsigned queued = 0;
	uint64_t done = 0;   /* the stamp of an inline completion, the next turn's now */
	int r = 0;

	if (j->latency_target_ns && !w->verify_pass)   /* each pass searches afresh, as fio */
		iogap_lat_target_init(&w->lat, j, iogap_now_ns(), completed(w));
	for (;;) {
		uint64_t now = done ? done : iogap_now_ns();
		struct iogap_io *io;
		uint8_t ddir;
		bool verifying, trimming, zone_reset = false;
		int q;

		done = 0;

		if (iogap_unlikely(w->in_ramp) && now >= w->t_ramp_end)
			end_ramp(w, now);
		if (iogap_unlikely(w->snap))
			answer_status(w, now);
		if (iogap_unlikely(now >= w->next_sample_due))
			take_samples(w, now);
		/* as fio, the pause follows the I/O, the last one included */
		if (iogap_unlikely(j->thinktime_ns) && !w->verify_pass && !stop_requested &&
		    (r = think(w, &queued)) < 0)
			break;
		if (iogap_unlikely(stop_requested || w->stat.error || (w->t_end && now >= w->t_end) ||
				   !budget_left(w) ||
				   atomic_load_explicit(&w->terminate, memory_order_relaxed)))
			break;
		if (iogap_unlikely(!w->in_ramp && min_rate_missed(w, now))) {
			r = -EIO;   /* fio's td_verror(EIO, "check_min_rate") */
			break;
		}
		if (iogap_unlikely(w->turn_extras)) {
			enum turn t = turn_extras(w, &queued, now, &r);

			if (t == TURN_STOP)
				break;
			if (t == TURN_AGAIN)
				continue;
		}

		/* latency_target: the depth it allows is the queue's */
		io = in_flight(w) < iogap_lat_target_depth(&w->lat, j) ? get_slot(w) : NULL;
		if (!io) {
			/* queue full: submit what is pending and reap down to iodepth_low */
			if ((r = commit(w, &queued)) < 0)
				break;
			do {
				if ((r = reap(w, j->iodepth_batch_complete_min ?
						 j->iodepth_batch_complete_min : 1, queued)) <= 0)
					break;
			} while (in_flight(w) > j->iodepth_low && j->iodepth_low < j->iodepth);
			if (r < 0)
				break;
			continue;
		}
		if (iogap_unlikely(w->replay)) {
			int rp = replay_next(w, io, &queued);   /* gives io back unless REPLAY_IO */

			if (rp == REPLAY_OTHER)
				continue;
			if (rp != REPLAY_IO) {
				r = rp < 0 ? rp : 0;
				break;
			}
		}
		verifying = w->verify_pass || w->backlog_left;
		trimming = !verifying && iogap_unlikely(j->trim_percentage) &&
			   iogap_vtrim_due(&w->vtrim, j, &w->vlog);
		ddir = verifying ? IOGAP_OP_READ : trimming ? IOGAP_OP_TRIM :
		       w->replay ? io->ddir : pick_ddir(w);
		/* zbd.c: a read mix writes first on empty zones */
		if (iogap_unlikely(w->zbd) && !verifying)
			ddir = iogap_zbd_ddir(w->zbd, ddir);
		/* only a job with a rate reads the clock once more per request */
		if (iogap_unlikely(w->rated) &&
		    (r = rate_wait(w, &ddir, !verifying && !trimming && !w->replay, &queued)) < 0) {
			put_slot(w, io);
			break;
		}
		io->ddir = ddir;
		if (iogap_unlikely(verifying)) {
			io->offset = verify_next(w, io);
			if (w->backlog_left && io->offset == NO_MORE_IO) {   /* batch > log */
				w->backlog_left = 0;
				put_slot(w, io);
				continue;
			}
			if (w->backlog_left)
				w->backlog_left--;
		} else if (iogap_unlikely(trimming)) {
			/* vtrim.c: a logged block, as fio's get_next_trim */
			const struct iogap_verify_piece *p = iogap_vtrim_next(&w->vtrim, j, &w->vlog);

			if (!p) {
				put_slot(w, io);
				continue;
			}
			io->len = p->len;
			io->offset = p->offset;
			w->f = &w->fs.f[p->file];
			w->vslot[io->slot].check = false;
		} else if (!w->replay) {
			io->offset = pick_file_offset(w, ddir, &io->len);
			if (iogap_unlikely(w->vslot))
				w->vslot[io->slot].check = false;
		}
		if (iogap_unlikely(io->offset == NO_MORE_IO)) {   /* the offset modifier left the region,
						   * or the verify pass read everything */
			put_slot(w, io);
			break;
		}
		io->file = (uint32_t)(w->f - w->fs.f);
		w->ectx.fd = w->f->fd;
		if (ddir == IOGAP_OP_READ && vstate_stops(w, io, verifying)) {
			put_slot(w, io);
			break;
		}
		if (iogap_unlikely(j->verify_only) && ddir == IOGAP_OP_WRITE) {   /* fio's dry run */
			r = verify_skip_write(w, io);
			put_slot(w, io);
			if (r < 0)
				break;
			continue;
		}
		if (iogap_unlikely(w->zbd)) {   /* zbd.c: write pointers, open-zone limits, zone resets */
			int zr = iogap_zbd_prep(w->zbd, io, w->f->seq_pos);

			if (zr == IOGAP_ZBD_DRAIN) {   /* complete our own I/O, choose again */
				put_slot(w, io);
				if ((r = drain(w, &queued)) < 0)
					break;
				continue;
			}
			zone_reset = zr == IOGAP_ZBD_RESET;
			if (zr != IOGAP_ZBD_ACCEPT && !zone_reset) {
				put_slot(w, io);
				if (zr < 0 && !w->stat.error) {
					w->stat.error = -zr;
					w->stat.first_error = -zr;
					snprintf(w->stat.verror, sizeof(w->stat.verror), "%s",
						 iogap_zbd_error(w->zbd));
				}
				break;   /* IOGAP_ZBD_EOF: no zone can take more, as fio */
			}
		}
		io->request_id = ((uint64_t)w->thread_number << 40) | ++w->req_seq;
		io->in_ramp = w->in_ramp;
		io->result = 0;
		if (ddir == IOGAP_OP_WRITE && j->verify_pattern_len)   /* reads may have overwritten it */
			fill_verify_pattern(w, io);
		else if (ddir == IOGAP_OP_WRITE && iogap_bufgen_wanted(j))   /* dedupe.c */
			iogap_bufgen_fill(&w->bufgen, io->buf, io->len);
		else if (ddir == IOGAP_OP_WRITE && j->refill_buffers && !j->buffer_pattern_len)
			refill_buffer(w, io);
		else if (ddir == IOGAP_OP_WRITE && iogap_buffers_scramble(j))   /* buffers.c */
			iogap_buffer_scramble(io->buf, io->len, io->offset, iogap_now_ns());
		iogap_prio_pick(&w->prio, &w->stat, io);   /* prio.c: cmdprio */
		if (ddir == IOGAP_OP_WRITE && w->opts->tag_writes)
			stamp_tags(w, io);
		if (ddir == IOGAP_OP_WRITE && j->verify && (r = verify_stamp(w, io)) < 0) {
			put_slot(w, io);
			break;
		}
		if (iogap_unlikely(j->proc.serialize_overlap) && !sync_engine &&
		    (r = wait_overlap(w, io, &queued)) < 0) {
			put_slot(w, io);
			break;
		}
		log_request(w, (enum iogap_iolog_act)ddir, io->file, io->offset, io->len);
		/* lockfile: from prep to queued, as fio (before its start_time) */
		if (iogap_unlikely(w->flocks))
			iogap_file_lock_take(j, w->flocks[io->file], ddir == IOGAP_OP_READ);
		io->start_ns = iogap_now_ns();
		q = w->ops->prep ? w->ops->prep(&w->ectx, io) : 0;   /* fio's ->prep */
		/* fio: issue_time just before queue for sync engines and for the
		 * trims async engines run synchronously (async_ioengine_sync_trim) */
		if (sync_engine || ddir == IOGAP_OP_TRIM)
			io->issue_ns = w->ops->prep ? iogap_now_ns() : io->start_ns;
		if (q == 0)
			q = iogap_unlikely(zone_reset) ? iogap_zbd_reset_trim(w->zbd, io) :
							 queue_retrying(w, io, &queued);
		iogap_dprint(IOGAP_DBG_IO, "queue: io_u %p: off=0x%llx,len=0x%x,ddir=%d,file=%s: %d\n",
			     (void *)io, (unsigned long long)io->offset, io->len, ddir,
			     w->fs.f[io->file].path, q);
		if (iogap_unlikely(w->flocks))
			pthread_rwlock_unlock(w->flocks[io->file]);
		if (iogap_unlikely(q < 0)) {
			io->result = q;
			io->issue_ns = iogap_now_ns();
			account(w, io, io->issue_ns, false);
			put_slot(w, io);
			break;
		}
		/* fio counts the writes of trimwrite, and no read-back or
		 * verify-trim in io_size */
		if (!(ddir == IOGAP_OP_TRIM && job_trimwrite(j)) && !verifying && !trimming) {
			w->bytes_issued += io->len;
			iogap_fileset_issued(&w->fs, w->f, io->len);
		}
		w->ios_issued[ddir]++;
		w->flow_token = false;
		w->bytes_dir_issued[ddir] += io->len;
		w->last_ddir = ddir;
		w->ios_total++;
		w->last_issue_ns = sync_engine ? io->issue_ns : iogap_now_ns();
		if (!io->in_ramp)
			w->stat.dir[ddir].total_io_u++;
		if (ddir == IOGAP_OP_WRITE) {
			w->writes_since_sync++;
			if (io->offset < w->written_lo)   /* sync_file_range's span */
				w->written_lo = io->offset;
			if (io->offset + io->len > w->written_hi)
				w->written_hi = io->offset + io->len;
		}
		if (q == IOGAP_Q_COMPLETED) {
			done = iogap_now_ns();
			if (!sync_engine && ddir != IOGAP_OP_TRIM)
				io->issue_ns = done;
			if (!io->in_ramp) {
				w->stat.io_u_map[0]++;
				w->stat.io_u_submit[1]++;
				w->stat.io_u_complete[1]++;
				w->stat.total_submit++;
				w->stat.total_complete++;
			}
			account(w, io, done, false);
			put_slot(w, io);
			if (iogap_unlikely(w->stat.error))
				break;
			continue;
		}
		if (!(w->ops->flags & IOGAP_ENGINE_SETS_ISSUE) && !sync_engine)
			io->issue_ns = iogap_now_ns();
		if (++queued >= j->iodepth_batch && (r = commit(w, &queued)) < 0)
			break;
		/* fio's io_in_polling: a completion reaped after every request */
		if (iogap_unlikely(!j->iodepth_batch_complete_min && !j->iodepth_batch_complete_max) &&
		    ((r = commit(w, &queued)) < 0 || (r = reap(w, 1, queued)) < 0))
			break;
	}
	{
		int d = drain_waiting(w, &queued, true);

		if (!r)
			r = d;
	}
	/* fio: fsync_on_close syncs there too; outside its running state,
	 * so neither is in the statistics */
	w->end_syncing = true;
	for (unsigned k = 0; !r && (j->end_fsync || j->proc.fsync_on_close) && job_writes(j) &&
	     !w->verify_pass && k < w->fs.nr; k++)
		r = do_sync(w, &queued, SYNC_FSYNC, &w->fs.f[k]);
	w->end_syncing = false;
	return r;
}

/* ---- worker setup ----------------------------------------------------- */

static int target_flags(const struct iogap_job *j)
{
	return (job_writes(j) ? O_RDWR : O_RDONLY) | (j->direct ? O_DIRECT : 0) |
	       (j->sync_io ? O_SYNC : 0) | O_CLOEXEC;
}

/* fio's generic_open_file: a target that is not a regular file (a device)
 * opens with O_NOATIME, so that reads do not update its inode, and
 * without it where the kernel refuses (EPERM: not the owner). */
static int open_target_path(const char *path, int flags)
{
	struct stat st;
	int fd;

	if (!stat(path, &st) && !S_ISREG(st.st_mode)) {
		fd = open(path, flags | O_NOATIME);
		if (fd >= 0 || errno != EPERM)
			return fd;
	}
	return open(path, flags);
}

/* Opened without blocking, so that a FIFO swapped in for the file
 * cannot hang the job (check_target_kind refuses it); the I/O then
 * blocks as fio's. */
static int open_target_fd(const char *path, int flags)
{
	int fd = open_target_path(path, flags | O_NONBLOCK), fl;

	if (fd >= 0 && ((fl = fcntl(fd, F_GETFL)) < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0)) {
		close(fd);
		return -1;
	}
	return fd;
}

static int check_target_kind(struct worker *w, const struct iogap_wfile *f)
{
	struct stat st;

	if (fstat(f->fd, &st))
		return iogap_seterr(w->err, sizeof(w->err), "%s: %s", f->path, strerror(errno));
	if (S_ISREG(st.st_mode) || S_ISBLK(st.st_mode) || S_ISCHR(st.st_mode))
		return 0;
	w->err_code = EINVAL;
	return iogap_seterr(w->err, sizeof(w->err), "%s is %s, not a regular file or device "
			    "(job '%s')", f->path, iogap_file_kind(&st), w->job->name);
}

/* A job that writes checks what its own descriptor reaches: the file
 * check_targets found writable or the layout created, else (the path
 * names another file since) that one, through the descriptor. */
static int check_opened_target(struct worker *w, const struct iogap_wfile *f)
{
	const struct iogap_job *j = w->job;
	struct iogap_target_region r = { f->region_start, 0, f->region_len, 1 };
	struct stat st;
	char why[512];
	int rc;

	if (w->opts->allow_destroy_data || j->proc.allow_mounted_write || !job_writes(j) ||
	    j->verify_only || (!fstat(f->fd, &st) && iogap_file_ids_has(w->checked, &st)))
		return 0;
	rc = iogap_target_check_fd(f->fd, f->path, &r, why, sizeof(why));
	if (rc > 0)
		snprintf(w->err, sizeof(w->err), "%s: refusing to write (job '%s'): what it names "
			 "now holds data: %s. Use --allow-destroy-data to overwrite it.", f->path,
			 j->name, why);
	else if (rc < 0)
		snprintf(w->err, sizeof(w->err), "%s: %s", f->path, why);
	return rc ? -1 : 0;
}

/* Open file k of the worker (or the engine's own target) and set its
 * region: fio's file_offset and io_size. */
static int open_target(struct worker *w, struct iogap_wfile *f, unsigned k)
{
	const struct iogap_job *j = w->job;
	const char *path = f->path;
	struct stat st;
	uint64_t size, share = j->file_sizes ?
		j->file_sizes[(j->files_per_clone ? w->clone * j->nrfiles : 0) + k] : j->size;

	int r;

	if (w->ops->flags & IOGAP_ENGINE_NO_FILE && w->ops->target_info) {
		/* a target of the engine's own (an rbd image): its size */
		f->fd = -1;
		r = w->ops->target_info(j, &size, -1, 0, w->err, sizeof(w->err));
		if (r < 0) {
			if (!w->err[0])
				snprintf(w->err, sizeof(w->err), "%s: %s", j->filename, strerror(-r));
			return -1;
		}
	} else if (w->ops->flags & IOGAP_ENGINE_NO_FILE) {
		f->fd = -1;
		if (!share) {
			snprintf(w->err, sizeof(w->err), "ioengine=%s needs a size", j->ioengine);
			return -1;
		}
		size = clone_offset(j, j->numjobs - 1) + share;
	} else {
		f->fd = open_target_fd(path, target_flags(j));
		if (f->fd < 0) {
			w->err_code = errno;
			snprintf(w->err, sizeof(w->err), "%s: open: %s%s", path,
				 strerror(errno), errno == EINVAL && j->direct ?
				 " (the filesystem may not support O_DIRECT; try direct=0)" : "");
			return -1;
		}
		if (check_target_kind(w, f))
			return -1;
		if (!w->ops->file_size)
			size = file_or_dev_size(f->fd);
		else if (w->ops->file_size(path, &size, w->err, sizeof(w->err)) < 0)
			return -1;
		/* fill_device: the file grows until the filesystem is full; a
		 * file the writes extend (layout_file): the job's region */
		if (share && size < clone_offset(j, w->clone) + share &&
		    (j->fill_device || (job_writes(j) && !fstat(f->fd, &st) && S_ISREG(st.st_mode))))
			size = clone_offset(j, w->clone) + share;
	}
	f->target_size = size;
	f->region_start = clone_offset(j, w->clone);
	if (f->region_start >= size) {
		snprintf(w->err, sizeof(w->err), "%s: offset %" PRIu64 " is beyond the end (%" PRIu64 " bytes)",
			 path, f->region_start, size);
		return -1;
	}
	/* without size or filesize: the file past this clone's offset */
	f->region_len = j->size || j->filesize_low ? share : size - f->region_start;
	if (size && f->region_start + f->region_len > size)
		f->region_len = size - f->region_start;
	for (int d = 0; d < IOGAP_DDIR_NR && j->nrfiles == 1; d++) {   /* several: fileset.c */
		if (j->rw & (1u << d) && j->bs_max[d] > f->region_len) {
			snprintf(w->err, sizeof(w->err), "%s: block size %u is larger than the %" PRIu64
				 " bytes to work on", path, j->bs_max[d], f->region_len);
			return -1;
		}
	}
	f->nblocks = f->region_len / w->min_bs;
	iogap_wfile_restart(f);
	if (f->fd >= 0 && check_opened_target(w, f))
		return -1;
	if (f->fd >= 0 && (r = iogap_proc_file_opened(j, f->fd, f->region_start, f->region_len,
						       w->err, sizeof(w->err))) < 0) {
		w->err_code = -r;   /* fadvise_hint, write_hint (procopts.c) */
		return -1;
	}
	return 0;
}

/* The worker's files (fileset.c): opened, with their regions, random
 * maps and distributions; the I/O budget is their regions together. */
static int open_targets(struct worker *w, uint64_t seed)
{
	const struct iogap_job *j = w->job;
	uint64_t total = 0;

	w->min_bs = UINT32_MAX;
	for (int d = 0; d < IOGAP_DDIR_NR; d++)
		if (j->rw & (1u << d) && j->bs_min[d] < w->min_bs)
			w->min_bs = j->bs_min[d];
	if (w->min_bs == UINT32_MAX)
		w->min_bs = j->bs[0];
	w->fs.f = calloc(j->nrfiles, sizeof(*w->fs.f));
	if (!w->fs.f) {
		snprintf(w->err, sizeof(w->err), "out of memory for %u files", j->nrfiles);
		return -1;
	}
	w->fs.nr = j->nrfiles;
	w->fs.min_bs = w->min_bs;
	for (unsigned k = 0; k < j->nrfiles; k++)
		w->fs.f[k].fd = -1;
	for (unsigned k = 0; k < j->nrfiles; k++) {
		struct iogap_wfile *f = &w->fs.f[k];

		f->path = iogap_job_file(j, w->clone, k);
		if (open_target(w, f, k))
			return -1;
		iogap_dprint(IOGAP_DBG_FILE, "fd open %s: fd=%d, region %llu+%llu\n", f->path, f->fd,
			     (unsigned long long)f->region_start, (unsigned long long)f->region_len);
		total += f->region_len;
		if (j->rw & IOGAP_RW_RAND && (j->random_distribution == IOGAP_RAND_ZIPF ||
					      j->random_distribution == IOGAP_RAND_PARETO) &&
		    iogap_skew_init(&f->skew, j->random_distribution, j->random_dist_param,
				    f->nblocks, seed)) {
			snprintf(w->err, sizeof(w->err), "random distribution setup failed");
			return -1;
		}
		/* fio keeps no random map for an LFSR: it gives each block once */
		if (j->rw & IOGAP_RW_RAND && !j->norandommap && j->random_generator != IOGAP_RGEN_LFSR &&
		    iogap_blockmap_init(&f->map, f->nblocks)) {
			snprintf(w->err, sizeof(w->err), "out of memory for the random map");
			return -1;
		}
	}
	if (iogap_fileset_init(&w->fs, j, seed)) {
		snprintf(w->err, sizeof(w->err), "file_service_type: setup failed");
		return -1;
	}
	iogap_fileset_reseed(&w->fs, j, w->thread_number, w->seed);
	w->f = &w->fs.f[0];
	/* fio's setup_files: size caps the files' regions together */
	w->io_budget = j->io_size ? j->io_size : j->size && j->size < total ? j->size : total;
	return 0;
}

/* fio's init_iolog: a job that replays a log writes none */
static int setup_iologs(struct worker *w)
{
	const struct iogap_job *j = w->job;

	if (j->read_iolog)
		return iogap_iolog_open(j->read_iolog, j, &w->replay, w->err, sizeof(w->err));
	if (j->write_iolog)
		return iogap_iolog_writer_open(&w->iolog, j->write_iolog, j, w->clone, w->fs.nr,
					       w->err, sizeof(w->err));
	return 0;
}

/* dedupe.c: every worker's first buffer seed, for dedupe_global */
static int setup_bufgen(struct worker *w)
{
	uint64_t *seeds;
	size_t self = (size_t)(w - w->all);
	int r;

	if (!iogap_bufgen_wanted(w->job))
		return 0;
	seeds = calloc(w->nall, sizeof(*seeds));
	if (!seeds) {
		w->err_code = ENOMEM;
		return iogap_seterr(w->err, sizeof(w->err), "out of memory");
	}
	for (size_t i = 0; i < w->nall; i++)
		seeds[i] = w->all[i].seed ^ 0xb0f;
	r = iogap_bufgen_init(&w->bufgen, w->job, seeds, w->nall, self, w->err, sizeof(w->err));
	free(seeds);
	return r;
}

/* verify_state_load: fio's lines on stderr; the job does not run without it */
static int load_verify_state(struct worker *w)
{
	char msg[PATH_MAX + 128];

	if (iogap_vstate_load(&w->vstate, w->opts->aux_path, w->job->name, w->thread_number - 1,
			      msg, sizeof(msg))) {
		fprintf(stderr, "%s\n", msg);
		w->err_code = EINVAL;
		snprintf(w->err, sizeof(w->err), "verify_state_load: no usable verify state");
		return -1;
	}
	w->vstate_loaded = true;
	return 0;
}

static int setup_worker(struct worker *w)
{
	const struct iogap_job *j = w->job;
	uint32_t max_bs = 0;
	size_t bufsz;
	uint64_t seed = w->seed;
	int r;

	iogap_rand_seed(&w->rnd_off, seed);
	iogap_rand_seed(&w->rnd_bs, seed ^ 0xaaaa);
	iogap_rand_seed(&w->rnd_poisson, seed ^ 0x7777);
	iogap_rand_seed(&w->rnd_buf, seed ^ 0x9999);
	iogap_rand_seed(&w->vtrim.rnd, seed ^ 0x4444);

	w->ops = j->engine;
	if (open_targets(w, seed) || setup_iologs(w) || setup_bufgen(w))
		return -1;
	if (j->rw & IOGAP_RW_RAND && iogap_randoff_init(&w->randoff, j, w->thread_number, seed, &w->fs,
							w->err, sizeof(w->err)))
		return -1;
	iogap_randmix_init(&w->mix, j, w->thread_number, seed);
	iogap_prio_setup(&w->prio, j, seed ^ 0x1010, &w->stat);   /* prio.c */
	if (iogap_zbd_worker_new(w->zbd_set, j, w->f->region_start, w->f->region_len, j->iodepth,
				 &w->stat.dir[IOGAP_OP_WRITE].zone_resets, &w->zbd, w->err,
				 sizeof(w->err)))   /* zbd.c */
		return -1;
	for (int d = 0; d < IOGAP_DDIR_NR; d++)
		if (j->bs_max[d] > max_bs)
			max_bs = j->bs_max[d];
	bufsz = ((size_t)max_bs + 4095) & ~(size_t)4095;
	w->ios = calloc(j->iodepth, sizeof(*w->ios));
	w->free_slots = calloc(j->iodepth, sizeof(*w->free_slots));
	w->done = calloc(j->iodepth, sizeof(*w->done));
	if (!w->ios || !w->free_slots || !w->done) {
		w->err_code = ENOMEM;
		snprintf(w->err, sizeof(w->err), "out of memory for %u requests", j->iodepth);
		return -1;
	}
	/* mem= (procopts.c): malloc, shm, mmap, huge pages */
	if ((r = iogap_iomem_alloc(j, bufsz * j->iodepth, &w->iomem, w->err, sizeof(w->err))) < 0) {
		w->err_code = -r;
		return -1;
	}
	w->bufmem = w->iomem.p;
	/* incompressible payload, as fio's default random buffers */
	for (size_t i = 0; i < bufsz * j->iodepth / 8; i++) {
		uint64_t v = iogap_rand_next(&w->rnd_bs);
		memcpy((char *)w->bufmem + i * 8, &v, 8);
	}
	if (j->block_error_hist &&
	    iogap_block_infos_init(&w->stat, w->f->region_len, j->bs[IOGAP_OP_TRIM], w->err,
				   sizeof(w->err))) {
		w->err_code = EINVAL;
		return -1;
	}
	if (j->zero_buffers)   /* fio's zero_buffers, unless a pattern is given */
		memset(w->bufmem, 0, bufsz * j->iodepth);
	/* fio's buffer_pattern: each buffer starts with the pattern */
	for (size_t i = 0; j->buffer_pattern_len && i < bufsz * j->iodepth; i++)
		((uint8_t *)w->bufmem)[i] = j->buffer_pattern[(i % bufsz) % j->buffer_pattern_len];
	for (unsigned i = 0; i < j->iodepth; i++) {
		w->ios[i].slot = i;
		w->ios[i].buf = (char *)w->bufmem + bufsz * i;
		w->free_slots[j->iodepth - 1 - i] = &w->ios[i];
	}
	w->nr_free = j->iodepth;
	w->ectx.job = j;
	w->ectx.fd = w->f->fd;
	if (!(w->fds = calloc(w->fs.nr, sizeof(*w->fds)))) {
		w->err_code = ENOMEM;
		snprintf(w->err, sizeof(w->err), "out of memory for the file table");
		return -1;
	}
	for (unsigned k = 0; k < w->fs.nr; k++)
		w->fds[k] = w->fs.f[k].fd;
	w->ectx.fds = w->fds;
	if (j->proc.lockfile != IOGAP_LOCK_NONE && !(w->flocks = calloc(w->fs.nr, sizeof(*w->flocks)))) {
		w->err_code = ENOMEM;
		snprintf(w->err, sizeof(w->err), "out of memory for the file locks");
		return -1;
	}
	for (unsigned k = 0; w->flocks && k < w->fs.nr; k++) {
		if (!(w->flocks[k] = iogap_file_lock(w->fs.f[k].path))) {
			w->err_code = ENOMEM;
			snprintf(w->err, sizeof(w->err), "out of memory for the file locks");
			return -1;
		}
	}
	w->ectx.nr_fds = w->fs.nr;
	w->ectx.clone = w->clone;
	w->ectx.depth = j->iodepth;
	w->ectx.bufmem = w->bufmem;
	w->ectx.buf_size = bufsz;
	w->ectx.now_ns = iogap_now_ns;
	if (j->io_submit_offload)   /* offload.c: a pool of submitters in front of it */
		w->ops = iogap_offload_engine(j->engine);
	w->ectx.sync = w->ops->flags & (IOGAP_ENGINE_SYNC | IOGAP_ENGINE_SYNC_ISSUE);
	if (w->ops->init(&w->ectx, w->err, sizeof(w->err))) {
		if (!w->err[0])
			snprintf(w->err, sizeof(w->err), "%s: engine init failed", w->ops->name);
		return -1;
	}
	if (j->verify && (!(w->vslot = calloc(j->iodepth, sizeof(*w->vslot))) ||
			  (j->verify_state_save &&
			   iogap_vstate_rec_init(&w->vrec, w->fs.nr, j->iodepth)))) {
		w->err_code = ENOMEM;
		snprintf(w->err, sizeof(w->err), "out of memory for verify");
		return -1;
	}
	if (j->verify_state_load && load_verify_state(w))
		return -1;

	set_budget(w);
	w->turn_extras = j->fsync_blocks || j->fdatasync_blocks || j->sync_file_range_blocks ||
			 j->verify_backlog || j->latency_target_ns || w->flow.flow;
	if (w->trace || iogap_logs_wanted(j)) {
		w->recs = calloc(TRACE_BATCH, sizeof(*w->recs));
		w->rec_prio = calloc(TRACE_BATCH, sizeof(*w->rec_prio));
		if (!w->recs || !w->rec_prio) {
			snprintf(w->err, sizeof(w->err), "out of memory for trace records");
			return -1;
		}
	}
	if (iogap_logs_wanted(j))   /* fio: no slat for its synchronous engines */
		return iogap_logs_open(&w->logs, j, w->thread_number, !w->ectx.sync, w->err,
				       sizeof(w->err));
	return 0;
}

static void teardown_worker(struct worker *w)
{
	flush_records(w);
	iogap_iolog_close(w->replay);
	iogap_iolog_writer_close(&w->iolog);
	iogap_logs_close(w->logs, iogap_now_ns());
	w->logs = NULL;
	if (w->ectx.priv)
		w->ops->cleanup(&w->ectx);
	for (unsigned k = 0; w->fs.f && k < w->fs.nr; k++) {
		if (w->fs.f[k].fd < 0)
			continue;
		if (w->job->proc.fsync_on_close && job_writes(w->job))   /* fio's close_file */
			fsync(w->fs.f[k].fd);
		close(w->fs.f[k].fd);
	}
	iogap_fileset_free(&w->fs);   /* the random maps too */
	w->f = NULL;
	iogap_zbd_worker_free(w->zbd);   /* zbd.c */
	w->zbd = NULL;
	free(w->ios);
	free(w->free_slots);
	free(w->done);
	free(w->fds);
	free(w->flocks);
	w->flocks = NULL;
	iogap_iomem_free(w->job, &w->iomem);
	w->bufmem = NULL;
	free(w->recs);
	free(w->rec_prio);
	free(w->vslot);
	iogap_verify_log_free(&w->vlog);
	iogap_vstate_rec_free(&w->vrec);
	iogap_vstate_free(&w->vstate);
	iogap_bufgen_free(&w->bufgen);
	iogap_vtrim_free(&w->vtrim);
}

static void set_affinity(struct worker *w, unsigned index_in_job)
{
	const struct iogap_job *j = w->job;
	cpu_set_t set;
	unsigned ncpu = 0, pick, seen = 0;
	int r;

	if (!j->cpus_allowed_set)
		return;
	CPU_ZERO(&set);
	for (unsigned c = 0; c < IOGAP_MAX_CPUS; c++)
		if (j->cpus_allowed[c / 8] & (1u << (c % 8)))
			ncpu++;
	pick = index_in_job % (ncpu ? ncpu : 1);
	for (unsigned c = 0; c < IOGAP_MAX_CPUS && c < CPU_SETSIZE; c++) {
		if (!(j->cpus_allowed[c / 8] & (1u << (c % 8))))
			continue;
		/* split: one CPU per clone, round robin; shared: all of them */
		if (j->cpus_allowed_policy == IOGAP_CPUS_SHARED || seen == pick)
			CPU_SET(c, &set);
		seen++;
	}
	/* fio's gtod_cpu: that CPU is kept for fio's time thread, never the
	 * job's (backend.c); the probe has no such thread (clock_gettime) */
	if (j->proc.gtod_cpu >= 0 && j->proc.gtod_cpu < CPU_SETSIZE)
		CPU_CLR(j->proc.gtod_cpu, &set);
	iogap_dprint(IOGAP_DBG_PROCESS, "pid=%d affinity: %d CPUs%s\n", (int)w->tid, CPU_COUNT(&set),
		     j->proc.gtod_cpu >= 0 ? " (gtod_cpu left out)" : "");
	if ((r = pthread_setaffinity_np(pthread_self(), sizeof(set), &set)))
		snprintf(w->err, sizeof(w->err), "cpus_allowed: cannot set affinity: %s",
			 strerror(r));
}

/* fio's thread_main: the job's I/O priority, NUMA nodes and memory
 * policy, before its buffers are allocated */
static void apply_placement(struct worker *w)
{
	int r = iogap_prio_apply(w->job);   /* prio.c */

	if (r) {
		w->err_code = -r;
		snprintf(w->err, sizeof(w->err), "ioprio_set: %s", strerror(-r));
		return;
	}
	if (iogap_numa_apply(w->job, w->err, sizeof(w->err)))   /* numa.c */
		w->err_code = EINVAL;
}

/* fio's unlink and unlink_each_loop remove the files a job created; one
 * that was there before the run, or holds data, stays (said once, with
 * the rule), unless --allow-destroy-data. */
static bool may_unlink(const struct iogap_run_opts *opts, const struct iogap_job *j,
		       const char *path, const struct iogap_file_ids *pre)
{
	char why[640];

	if (opts->allow_destroy_data || iogap_unlink_allowed(path, pre, why, sizeof(why)))
		return true;
	if (why[0])
		fprintf(stderr, "iogap-probe: %s: not removed (job '%s', %s=1): %s. "
			"--allow-destroy-data removes it anyway.\n", path, j->name,
			j->proc.unlink_each_loop ? "unlink_each_loop" : "unlink", why);
	return false;
}

/* fio's unlink_each_loop: before each loop after the first, the regular
 * files go, and are opened again (created by a writing job, missing for
 * a reading one: ENOENT, as fio) on the same descriptors */
static int unlink_reopen(struct worker *w)
{
	for (unsigned k = 0; k < w->fs.nr; k++) {
		struct iogap_wfile *f = &w->fs.f[k];
		struct stat st;
		int fd;

		if (f->fd < 0 || f->kept || fstat(f->fd, &st) || !S_ISREG(st.st_mode))
			continue;
		if (!may_unlink(w->opts, w->job, f->path, w->pre_existing)) {
			f->kept = true;
			continue;
		}
		if (unlink(f->path) && errno != ENOENT)
			return -errno;
		fd = open(f->path, target_flags(w->job) |
			  (job_writes(w->job) && w->job->allow_file_create ? O_CREAT : 0), 0600);
		if (fd < 0) {
			snprintf(w->stat.verror, sizeof(w->stat.verror), "%s: open: %s", f->path,
				 strerror(errno));
			w->stat.error = errno;
			return -errno;
		}
		dup2(fd, f->fd);
		close(fd);
	}
	return 0;
}

static int restart_pass(struct worker *w)
{
	if (w->job->proc.unlink_each_loop) {
		int r = unlink_reopen(w);

		if (r < 0)
			return r;
	}
	new_pass(w);
	w->seq_left = 0;
	w->write_after_trim = false;
	return 0;
}

/* fio's thread_main end: a writing job's verify state, for a later
 * verify_state_load (a failure is reported, the job goes on as fio's) */
static void save_verify_state(struct worker *w)
{
	const struct iogap_job *j = w->job;
	char err[PATH_MAX + 128];

	if (!w->vrec.ring || !(j->rw & IOGAP_RW_WRITE))
		return;
	if (iogap_vstate_save(&w->vrec, w->opts->aux_path, j->name, w->thread_number - 1,
			      w->ios_issued[IOGAP_OP_WRITE], &w->randoff.rnd, err, sizeof(err)))
		fprintf(stderr, "%s\n", err);
}

/* fio's keep_running: another pass over the files after pass ended?
 * Every loop; after the last, while io_size asks for a largest block more
 * (fio counts the bytes of every pass against it, loops included). */
static bool keep_running(const struct worker *w, unsigned pass)
{
	const struct iogap_job *j = w->job;
	uint32_t max_bs = 0;

	if (pass < j->loops)
		return true;
	if (!j->io_size || j->time_based || w->replay || !budget_left(w))
		return false;
	for (int d = 0; d < IOGAP_DDIR_NR; d++)
		if (j->rw & (1u << d) && j->bs_max[d] > max_bs)
			max_bs = j->bs_max[d];
	return w->bytes_issued + max_bs <= w->io_budget;
}

/* fio's do_verify after a pass that wrote: read back every block it
 * wrote, in the order written, checking each; the reads count as reads. */
static int verify_written(struct worker *w)
{
	uint64_t t0;
	int r;

	if (w->vlog.next == w->vlog.nr || w->stat.error || stop_requested || atomic_load(&w->terminate) ||
	    (w->t_end && iogap_now_ns() >= w->t_end))
		return 0;
	t0 = iogap_now_ns();
	w->verify_pass = true;
	w->backlog_left = 0;
	r = run_loop(w);
	w->verify_pass = false;
	w->verify_ns += iogap_now_ns() - t0;
	iogap_verify_log_clear(&w->vlog);
	return r;
}

/* fio's wait_for: start once every clone of the named job has ended */
static void wait_for_waitee(struct worker *w)
{
	for (size_t i = 0; w->job->wait_for && i < w->nall; i++) {
		struct worker *o = &w->all[i];

		if (strcmp(o->job->name, w->job->wait_for))
			continue;
		while (!atomic_load(&o->finished) && !stop_requested && !atomic_load(&w->terminate))
			usleep(1000);
	}
}

/* fio's setgid/setuid, first thing in the job (procopts.c) */
static int proc_creds(struct worker *w)
{
	int r = iogap_proc_creds(w->job, w->err, sizeof(w->err));

	w->err_code = -r;
	return r;
}

/* After the buffers, as fio's thread_main: lockmem, cgroup, nice,
 * ioscheduler, exec_prerun, pre_read (procopts.c) */
static int proc_setup(struct worker *w)
{
	const struct iogap_job *j = w->job;
	int r = iogap_proc_start(j, &w->prun, w->tid, w->err, sizeof(w->err));

	for (unsigned k = 0; !r && j->proc.ioscheduler && k < w->fs.nr; k++)
		if (w->fs.f[k].fd >= 0 && iogap_proc_ioscheduler(j, w->fs.f[k].path, w->err,
								  sizeof(w->err)))
			r = -EINVAL;
	for (unsigned k = 0; !r && j->proc.pre_read && k < w->fs.nr; k++)
		if (w->fs.f[k].fd >= 0)
			r = iogap_proc_pre_read(j, w->fs.f[k].fd, w->fs.f[k].region_start,
						w->fs.f[k].region_len, w->err, sizeof(w->err));
	w->err_code = -r;
	return r;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	const struct iogap_job *j = w->job;
	uint64_t t_stop;
	int r = 0;

	w->tid = (pid_t)syscall(SYS_gettid);
	iogap_dprint(IOGAP_DBG_PROCESS, "jobs pid=%d started (job %s clone %u)\n", (int)w->tid,
		     j->name, w->clone);
	/* a table of open files of its own, as a fio job process has: with the
	 * table unshared the kernel looks a file up without counting a
	 * reference (fdget), on every system call of the I/O path.  The worker
	 * opens and closes its files itself; failing, it only runs slower. */
	if (unshare(CLONE_FILES))
		iogap_dprint(IOGAP_DBG_PROCESS, "unshare(CLONE_FILES): %s\n", strerror(errno));
	w->written_lo = UINT64_MAX;
	w->stat.pid = w->tid;
	{
		uint64_t t0 = iogap_now_ns();   /* fio: startdelay counts from the start */

		wait_for_waitee(w);
		if (j->startdelay_ns)
			iogap_sleep_until_ns(t0 + j->startdelay_ns);
	}
	set_affinity(w, w->clone);
	if (!w->err[0])
		apply_placement(w);
	if (w->err[0] || proc_creds(w) || setup_worker(w) || proc_setup(w)) {
		w->stat.error = w->err_code ? w->err_code : EINVAL;
		snprintf(w->stat.verror, sizeof(w->stat.verror), "%.127s", w->err);
		iogap_proc_end(j, &w->prun, w->tid, false);
		teardown_worker(w);
		atomic_store(&w->finished, 1);
		return NULL;
	}
	w->t_start = w->last_issue_ns = w->last_think_ns = iogap_now_ns();
	if (w->logs)
		iogap_logs_start(w->logs, w->t_start);
	w->t_ramp_end = w->t_start + j->ramp_time_ns;
	w->in_ramp = j->ramp_time_ns > 0;
	if (!w->in_ramp)
		end_ramp(w, w->t_start);
	w->t_end = j->runtime_ns ? w->t_ramp_end + j->runtime_ns : 0;
	atomic_store(&w->epoch_ns, w->t_start);
	atomic_store(&w->running, 1);

	/* fio's loops: the same job again, from the start of the region, and
	 * more passes while io_size asks (keep_running); create_only: the
	 * files are laid out, nothing more */
	for (unsigned loop = 0; !j->create_only && keep_running(w, loop); loop++) {
		if (loop && (r = restart_pass(w)) < 0)
			break;
		r = run_loop(w);
		if (r >= 0)   /* run_loop may end with the count drained */
			r = verify_written(w);
		if (r < 0 || w->stat.error || stop_requested || atomic_load(&w->terminate) ||
		    (w->t_end && iogap_now_ns() >= w->t_end))
			break;
	}
	t_stop = iogap_now_ns();
	save_verify_state(w);
	if (r < 0 && !w->stat.error) {
		w->stat.error = -r;
		snprintf(w->stat.verror, sizeof(w->stat.verror), "%s", strerror(-r));
	}
	if (!w->stat.error && j->continue_on_error && w->stat.first_error) {
		/* fio reports the first error it went on after (stat.c) */
		w->stat.error = w->stat.first_error;
		w->stat.error_continued = true;
		snprintf(w->stat.verror, sizeof(w->stat.verror), "%s", strerror(w->stat.error));
	}
	if (!w->in_ramp) {
		for (int k = 0; k < 2; k++)
			if (t_stop - w->last_sample_ns[k] >= w->sample_window_ns[k] / 2)
				add_samples(w, t_stop, k);
		close_stats(w, &w->stat, t_stop);
	}
	if (j->latency_target_ns)
		w->stat.iodepth = w->lat.qd;   /* fio's latency_depth */
	atomic_store(&w->running, 2);   /* measuring done: final stats follow */
	iogap_proc_end(j, &w->prun, w->tid, true);   /* exec_postrun, as fio before exitall */
	if (j->exitall || (j->exitall_on_error && w->stat.error && !w->stat.error_continued))
		exit_others(w);
	teardown_worker(w);
	iogap_dprint(IOGAP_DBG_PROCESS, "pid=%d exited, error %d\n", (int)w->tid, w->stat.error);
	atomic_store(&w->finished, 1);
	return NULL;
}

/* ---- files: layout, safety, invalidation ------------------------------- */

/* A new file for j, created here (O_EXCL: never one swapped in since
 * the checks), recorded in created: its writes need no new look.  The
 * open descriptor, or -1 with err set. */
static int create_new(const struct iogap_job *j, struct iogap_file_ids *created, char *err,
		      size_t errlen)
{
	int fd = open(j->filename, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	struct stat st;

	if (fd < 0)
		return iogap_seterr(err, errlen, "%s: cannot create: %s", j->filename,
				    strerror(errno));
	if (fstat(fd, &st) || iogap_file_ids_add_stat(created, &st)) {
		close(fd);
		return iogap_seterr(err, errlen, "%s: %s", j->filename, strerror(errno));
	}
	return fd;
}

/* The file as it is, else a new one (create_new).  O_NONBLOCK: a FIFO
 * swapped in fails (ENXIO) instead of waiting for a reader; writes to a
 * regular file ignore it. */
static int open_or_create(const struct iogap_job *j, struct iogap_file_ids *created, char *err,
			  size_t errlen)
{
	int fd = open(j->filename, O_WRONLY | O_CLOEXEC | O_NONBLOCK);

	if (fd >= 0 || errno != ENOENT) {
		if (fd < 0)
			iogap_seterr(err, errlen, "%s: cannot open: %s", j->filename, strerror(errno));
		return fd;
	}
	return create_new(j, created, err, errlen);
}

/* fill_device: nothing laid out, the job's writes fill the file */
static int create_fill_file(const struct iogap_job *j, struct iogap_file_ids *created,
			    char *err, size_t errlen)
{
	struct stat st;
	int fd;

	if (stat(j->filename, &st) == 0)
		return 0;
	fd = create_new(j, created, err, errlen);
	return fd < 0 ? -1 : close(fd);
}

/* fio's extend_file: a file too small for the job is written out in full
 * for a job that reads, or writes with overwrite=1 (not file_append), or
 * through mmap (fio's FIO_NOEXTEND); a job that only writes starts from a
 * new empty file its writes extend; one that only trims from the file as
 * it is. */
static bool fills_file(const struct iogap_job *j)
{
	/* (zonemode=zbd needs the zones to exist: fio refuses an empty file) */
	return j->rw & IOGAP_RW_READ || (j->rw & IOGAP_RW_WRITE && j->proc.overwrite && !j->file_append) ||
	       (j->rw & IOGAP_RW_WRITE && !strcmp(j->ioengine, "mmap")) ||
	       j->zone_mode == IOGAP_ZONE_MODE_ZBD;
}

static int start_empty(const struct iogap_job *j, struct iogap_file_ids *created, char *err,
		       size_t errlen)
{
	int fd;

	if (j->rw & IOGAP_RW_WRITE && !j->file_append && unlink(j->filename) && errno != ENOENT)
		return iogap_seterr(err, errlen, "%s: unlink: %s", j->filename, strerror(errno));
	fd = open_or_create(j, created, err, errlen);
	if (fd < 0)
		return -1;
	/* fio's fallocate_file: space reserved as the job says (from the
	 * job's offset: the hole before it stays, where fio reserves from 0);
	 * a failure is only fio's debug note */
	if (j->proc.fallocate == IOGAP_FALLOC_NATIVE)
		(void)!fallocate(fd, 0, (off_t)j->offset, (off_t)(job_end(j) - j->offset));
	else if (j->proc.fallocate == IOGAP_FALLOC_POSIX)
		(void)!posix_fallocate(fd, (off_t)j->offset, (off_t)(job_end(j) - j->offset));
	else if (j->proc.fallocate == IOGAP_FALLOC_KEEP)
		(void)!fallocate(fd, FALLOC_FL_KEEP_SIZE, (off_t)j->offset,
				 (off_t)(job_end(j) - j->offset));
	else if (j->proc.fallocate == IOGAP_FALLOC_TRUNCATE)
		(void)!ftruncate(fd, (off_t)job_end(j));
	close(fd);
	return 0;
}

static int layout_file(const struct iogap_job *j, struct iogap_file_ids *created, char *err,
		       size_t errlen)
{
	uint64_t need = job_end(j);
	struct stat st;
	int fd;
	char *buf;
	uint64_t have;

	if (j->fill_device)
		return create_fill_file(j, created, err, errlen);
	if (stat(j->filename, &st) == 0) {
		if (!S_ISREG(st.st_mode))
			return 0;      /* devices are used as they are */
		have = (uint64_t)st.st_size;
	} else if (errno != ENOENT) {
		snprintf(err, errlen, "%s: %s", j->filename, strerror(errno));
		return -1;
	} else if (!j->allow_file_create) {
		snprintf(err, errlen, "%s: does not exist and allow_file_create=0", j->filename);
		return -1;
	} else {
		have = 0;
	}
	if (!j->size) {
		if (have)
			return 0;
		snprintf(err, errlen, "%s: does not exist (or is empty) and job '%s' gives no size",
			 j->filename, j->name);
		return -1;
	}
	if (have >= need)
		return 0;
	if (!fills_file(j))
		return start_empty(j, created, err, errlen);
	fd = open_or_create(j, created, err, errlen);
	if (fd < 0)
		return -1;
	/* what was opened, not what the path named before: only ever
	 * written past its end */
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || (have = (uint64_t)st.st_size) >= need) {
		close(fd);
		return 0;
	}
	/* the job never touches what lies before its offset: leave a hole */
	if (have < j->offset) {
		if (ftruncate(fd, (off_t)j->offset)) {
			snprintf(err, errlen, "%s: extending to offset %" PRIu64 ": %s", j->filename,
				 j->offset, strerror(errno));
			close(fd);
			return -1;
		}
		have = j->offset;
	}
	/* write real data: a sparse or fallocated file reads back zeros
	 * without touching the device and would measure nothing */
	buf = malloc(1 << 20);
	if (!buf) {
		close(fd);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	{
		struct iogap_rand r;

		iogap_rand_seed(&r, need);
		for (size_t i = 0; i < (1 << 20) / 8; i++) {
			uint64_t v = iogap_rand_next(&r);
			memcpy(buf + i * 8, &v, 8);
		}
	}
	while (have < need) {
		size_t n = need - have > (1 << 20) ? (1 << 20) : (size_t)(need - have);
		ssize_t wr = pwrite(fd, buf, n, (off_t)have);

		if (wr <= 0) {
			snprintf(err, errlen, "%s: laying out file: %s", j->filename,
				 wr < 0 ? strerror(errno) : "short write");
			free(buf);
			close(fd);
			return -1;
		}
		have += (uint64_t)wr;
	}
	free(buf);
	if (j->create_fsync && fsync(fd)) {
		snprintf(err, errlen, "%s: fsync after layout: %s", j->filename, strerror(errno));
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

/* Bytes layout_file will write for j: 0 for devices and big enough files. */
static uint64_t layout_bytes(const struct iogap_job *j)
{
	uint64_t need = job_end(j), have = 0;
	struct stat st;

	if (!j->size || j->fill_device || (j->engine->flags & IOGAP_ENGINE_NO_FILE))
		return 0;
	if (stat(j->filename, &st) == 0) {
		if (!S_ISREG(st.st_mode))
			return 0;
		have = (uint64_t)st.st_size;
	}
	if (have < j->offset)
		have = j->offset;   /* a hole, see layout_file */
	return need > have ? need - have : 0;
}

/* The directory a (possibly not yet existing) file will be created in. */
static void parent_dir(const char *path, char *dir, size_t len)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		snprintf(dir, len, ".");
	else if (slash == path)
		snprintf(dir, len, "/");
	else
		snprintf(dir, len, "%.*s", (int)(slash - path), path);
}

/* Refuse, with the sizes, files to lay out that do not fit in the free
 * space of their filesystems (all jobs' files together, per filesystem). */
static int check_free_space(const struct iogap_job_list *jobs, char *err, size_t errlen)
{
	for (size_t i = 0; i < jobs->nr; i++) {
		const struct iogap_job *j = &jobs->jobs[i];
		uint64_t want = layout_bytes(j), total = 0, avail;
		char dir[4096];
		struct statvfs vfs;
		struct stat st;
		dev_t dev;

		if (!want)
			continue;
		parent_dir(j->filename, dir, sizeof(dir));
		if (statvfs(dir, &vfs) || stat(dir, &st))
			continue;   /* layout_file reports a missing directory */
		dev = st.st_dev;
		avail = (uint64_t)vfs.f_bavail * vfs.f_frsize;
		/* earlier jobs on the same filesystem lay out first (a file
		 * shared by several jobs is counted at its largest need) */
		for (size_t k = 0; k <= i; k++) {
			const struct iogap_job *o = &jobs->jobs[k];
			char odir[4096];
			struct stat ost;
			bool later_bigger = false;

			parent_dir(o->filename, odir, sizeof(odir));
			if (stat(odir, &ost) || ost.st_dev != dev)
				continue;
			for (size_t m = 0; m < jobs->nr && !later_bigger; m++)
				later_bigger = m != k && !strcmp(jobs->jobs[m].filename, o->filename) &&
					       (layout_bytes(&jobs->jobs[m]) > layout_bytes(o) ||
						(layout_bytes(&jobs->jobs[m]) == layout_bytes(o) && m < k));
			if (!later_bigger)
				total += layout_bytes(o);
		}
		if (total > avail)
			return iogap_seterr(err, errlen, "job '%s': %s: laying out %" PRIu64 " bytes "
					    "(%" PRIu64 " for all files on that filesystem) does not fit in "
					    "the %" PRIu64 " bytes free there; nothing was written",
					    j->name, j->filename, want, total, avail);
	}
	return 0;
}

/* Checks that need no file: run before anything is laid out, so a job
 * that cannot run creates nothing (as fio). */
/* fio's wait_for_ok: the job waited for is another one defined before,
 * once (a later one may never start: the wait would never end) */
static int check_wait_for(const struct iogap_job_list *jobs, char *err, size_t errlen)
{
	for (size_t i = 0; i < jobs->nr; i++) {
		const struct iogap_job *j = &jobs->jobs[i];
		unsigned found = 0;

		if (!j->wait_for)
			continue;
		if (!strcmp(j->wait_for, j->name))
			return iogap_seterr(err, errlen, "%s: a job cannot wait for itself (wait_for=%s)",
					    j->name, j->wait_for);
		for (size_t k = 0; k < i; k++)
			found += !strcmp(jobs->jobs[k].name, j->wait_for);
		if (found != 1)
			return iogap_seterr(err, errlen, found ? "%s: multiple waitees %s found" :
					    "%s: waitee job %s unknown (it must come before)", j->name,
					    j->wait_for);
	}
	return 0;
}

/* A FIFO, socket or directory is no target: refused before anything,
 * where opening it could block. */
static int check_target_kinds(const struct iogap_job_list *jobs, char *err, size_t errlen)
{
	for (size_t i = 0; i < jobs->nr; i++) {
		const struct iogap_job *j = &jobs->jobs[i];
		struct stat st;

		if (!(j->engine->flags & IOGAP_ENGINE_NO_FILE) && !stat(j->filename, &st) &&
		    !S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode) && !S_ISCHR(st.st_mode))
			return iogap_seterr(err, errlen, "%s is %s, not a regular file or device (job "
					    "'%s')", j->filename, iogap_file_kind(&st), j->name);
	}
	return 0;
}

static int check_before_layout(const struct iogap_job_list *jobs, char *err, size_t errlen)
{
	for (size_t i = 0; i < jobs->nr; i++) {
		const struct iogap_job *j = &jobs->jobs[i];
		struct stat st;
		bool is_blk = stat(j->filename, &st) == 0 && S_ISBLK(st.st_mode);

		if (j->zone_mode == IOGAP_ZONE_MODE_ZBD && !j->zone_size && !is_blk &&
		    !(j->engine->flags & IOGAP_ENGINE_NO_FILE))
			return iogap_seterr(err, errlen, "%s: zonesize is required for zonemode=zbd on a "
					    "regular file (job '%s'; fio's rule, checked before any layout)",
					    j->filename, j->name);
	}
	return check_free_space(jobs, err, errlen);
}

/* fio's --readonly: no file is created or extended. */
static int refuse_layout(const struct iogap_job_list *jobs, char *err, size_t errlen)
{
	for (size_t i = 0; i < jobs->nr; i++)
		if (layout_bytes(&jobs->jobs[i]))
			return iogap_seterr(err, errlen, "job '%s': %s would be laid out (%" PRIu64
					    " bytes written), refused with --readonly",
					    jobs->jobs[i].name, jobs->jobs[i].filename,
					    layout_bytes(&jobs->jobs[i]));
	return 0;
}

static void invalidate_cache(const char *path)
{
	struct stat st;
	/* O_NONBLOCK: a FIFO swapped in must not hang the run here */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		return;
	if (!fstat(fd, &st) && S_ISBLK(st.st_mode))
		ioctl(fd, BLKFLSBUF, 0);
	else
		posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	close(fd);
}

/* The zone size of a zoned block device (sysfs chunk_sectors), 0 if none. */
static uint64_t device_zone_size(const struct stat *st)
{
	char path[128], buf[32];
	unsigned long long sectors = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/queue/chunk_sectors",
		 major(st->st_rdev), minor(st->st_rdev));
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fgets(buf, sizeof(buf), f))
		sectors = strtoull(buf, NULL, 10);
	fclose(f);
	return sectors * 512;
}

/* Options resolved against the target as it is now, before any layout:
 * file_append (offset = the file's size, as fio) and sizes in zones on a
 * zoned device whose zone size the job does not give. */
static int resolve_target_options(struct iogap_job *j, char *err, size_t errlen)
{
	struct stat st;
	bool exists = stat(j->filename, &st) == 0;

	if (j->file_append && exists && S_ISREG(st.st_mode))
		j->offset = (uint64_t)st.st_size;
	if (j->size_nz || j->offset_nz || j->offset_increment_nz) {
		uint64_t zs = exists && S_ISBLK(st.st_mode) ? device_zone_size(&st) : 0;

		if (!zs)
			return iogap_seterr(err, errlen, "job '%s': sizes in zones ('z') need zonesize= "
					    "or a zoned block device (%s is neither)", j->name, j->filename);
		iogap_job_resolve_zones(j, zs);
	}
	return 0;
}

/* fio's fill_device without size: write until ENOSPC (its size -1).  A
 * file's region is its filesystem's whole capacity, which no file can
 * reach; a device is written to its end. */
static int resolve_fill_device(struct iogap_job *j, char *err, size_t errlen)
{
	struct statvfs vfs;
	struct stat st;
	char dir[4096];

	if (!j->fill_device || j->size || (j->engine->flags & IOGAP_ENGINE_NO_FILE) ||
	    (stat(j->filename, &st) == 0 && !S_ISREG(st.st_mode)))
		return 0;
	parent_dir(j->filename, dir, sizeof(dir));
	if (statvfs(dir, &vfs))
		return iogap_seterr(err, errlen, "job '%s': fill_device: %s: %s", j->name, dir,
				    strerror(errno));
	j->size = (uint64_t)vfs.f_blocks * vfs.f_frsize;
	return 0;
}

/* fio's unlink=1: remove the job's regular files once it is done. */
static void unlink_files(const struct iogap_job_list *jobs, const struct iogap_run_opts *opts,
			 const struct iogap_file_ids *pre)
{
	for (size_t i = 0; i < jobs->nr; i++) {
		const struct iogap_job *j = &jobs->jobs[i];
		struct stat st;

		if (j->unlink && !(j->engine->flags & IOGAP_ENGINE_NO_FILE) &&
		    lstat(j->filename, &st) == 0 && S_ISREG(st.st_mode) &&
		    may_unlink(opts, j, j->filename, pre))
			unlink(j->filename);
	}
}

/* size=N% and offset=N% are of the existing file or device, rounded down
 * to the smallest block size as fio does. */
static int resolve_percentages(struct iogap_job *j, char *err, size_t errlen)
{
	uint64_t total, align = UINT32_MAX;
	int fd;

	if (!j->size_pct && !j->offset_pct)
		return 0;
	if (j->engine->flags & IOGAP_ENGINE_NO_FILE)
		return iogap_seterr(err, errlen, "job '%s': size/offset in %% need a file or device, "
				    "not ioengine=%s", j->name, j->ioengine);
	fd = open(j->filename, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return iogap_seterr(err, errlen, "job '%s': size/offset in %% need an existing file: "
				    "%s: %s", j->name, j->filename, strerror(errno));
	total = file_or_dev_size(fd);
	close(fd);
	for (int d = 0; d < IOGAP_DDIR_NR; d++)
		if (j->bs_min[d] < align)
			align = j->bs_min[d];
	if (j->offset_pct) {   /* fio: up to offset_align, or the smallest block size */
		uint64_t oa = j->proc.offset_align ? j->proc.offset_align : align;

		j->offset = (uint64_t)((double)total * j->offset_pct / 100.0);
		j->offset = (j->offset + oa - 1) / oa * oa;
	}
	if (j->size_pct)
		j->size = (uint64_t)((double)total * j->size_pct / 100.0) / align * align;
	if (j->size_pct && j->offset + j->size > total)
		j->size = (total - j->offset) / align * align;
	if ((j->size_pct && j->size == 0) || j->offset >= total)
		return iogap_seterr(err, errlen, "job '%s': %s is too small for size=%g%% offset=%g%%",
				    j->name, j->filename, j->size_pct, j->offset_pct);
	return 0;
}

/* ---- progress line ---------------------------------------------------- */

static void print_progress(struct worker *ws, size_t nr, uint64_t t0, uint64_t expected_ns,
			   uint64_t prev_bytes[IOGAP_DDIR_NR], uint64_t prev_ios[IOGAP_DDIR_NR],
			   uint64_t span_ns)
{
	uint64_t bytes[IOGAP_DDIR_NR] = { 0 }, ios[IOGAP_DDIR_NR] = { 0 };
	unsigned running = 0;
	char states[64];
	size_t sp = 0;
	uint64_t el = iogap_now_ns() - t0;
	double pct = expected_ns ? 100.0 * (double)el / (double)expected_ns : 0.0;
	uint64_t eta = expected_ns > el ? (expected_ns - el) / 1000000000ULL : 0;

	for (size_t i = 0; i < nr; i++) {
		bool fin = atomic_load(&ws[i].finished);

		running += !fin;
		for (int d = 0; d < IOGAP_DDIR_NR; d++) {
			bytes[d] += atomic_load_explicit(&ws[i].prog_bytes[d], memory_order_relaxed);
			ios[d] += atomic_load_explicit(&ws[i].prog_ios[d], memory_order_relaxed);
		}
		if (sp < sizeof(states) - 2) {
			unsigned rw = ws[i].job->rw;
			char c = fin ? '_' :
				 (rw & IOGAP_RW_READ && rw & IOGAP_RW_WRITE) ?
				 (rw & IOGAP_RW_RAND ? 'm' : 'M') :
				 rw & IOGAP_RW_WRITE ? (rw & IOGAP_RW_RAND ? 'w' : 'W') :
				 rw & IOGAP_RW_TRIM ? (rw & IOGAP_RW_RAND ? 't' : 'T') :
				 (rw & IOGAP_RW_RAND ? 'r' : 'R');
			states[sp++] = c;
		}
	}
	states[sp] = '\0';
	if (pct > 100.0)
		pct = 100.0;
	fprintf(stderr, "\rJobs: %u (f=%u): [%s][%.1f%%][r=%.1fMiB/s,w=%.1fMiB/s][r=%" PRIu64
		",w=%" PRIu64 " IOPS][eta %02" PRIu64 "m:%02" PRIu64 "s]   ",
		running, running, states, pct,
		(double)(bytes[0] - prev_bytes[0]) * 1e9 / (double)span_ns / 1048576.0,
		(double)(bytes[1] - prev_bytes[1]) * 1e9 / (double)span_ns / 1048576.0,
		(uint64_t)((ios[0] - prev_ios[0]) * 1000000000ULL / span_ns),
		(uint64_t)((ios[1] - prev_ios[1]) * 1000000000ULL / span_ns), eta / 60, eta % 60);
	memcpy(prev_bytes, bytes, sizeof(bytes));
	memcpy(prev_ios, ios, sizeof(ios));
}

/* ---- groups ---------------------------------------------------------- */

/* Fold per-worker statistics (stats[i], or the workers' own) into the
 * reported entries: group_reporting sums a group. */
static int build_report(struct worker *ws, size_t nw, struct iogap_job_stat *const *stats,
			const struct iogap_job_list *jobs, const struct iogap_run_opts *opts,
			uint64_t run_start, struct iogap_run_report *report)
{
	struct timespec ts;

	report->stats = calloc(nw, sizeof(*report->stats));
	if (!report->stats)
		return -1;
	for (size_t i = 0; i < nw; i++) {
		struct worker *w = &ws[i];
		const struct iogap_job_stat *st = stats ? stats[i] : &w->stat;
		struct iogap_job_stat *into = NULL;

		if (!w->job->stats)   /* fio's stats=0: not reported */
			continue;
		if (w->job->group_reporting) {
			for (size_t k = 0; k < report->nr; k++) {
				if (report->stats[k].groupid == w->groupid &&
				    report->stats[k].job->group_reporting) {
					into = &report->stats[k];
					break;
				}
			}
		}
		if (into)
			iogap_job_stat_merge(into, st);
		else
			into = &report->stats[report->nr++], *into = *st;
		into->opts_job = w->job;
	}
	for (size_t k = 0; k < report->nr; k++)
		if (report->stats[k].job->unified_rw == IOGAP_UNIFIED_MIXED)
			iogap_job_stat_mix(&report->stats[k]);
	report->timestamp = time(NULL);
	clock_gettime(CLOCK_REALTIME, &ts);
	report->timestamp_ms = (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
	report->version = opts->version;
	report->elapsed_ms = (iogap_now_ns() - run_start) / 1000000ULL;
	report->global_kv = jobs->global_kv;
	report->global_kv_nr = jobs->global_kv_nr;
	return iogap_group_stats_compute(report);
}

/* --status-interval: every worker's statistics so far, printed by the
 * caller's status callback.  Running workers answer from their I/O loop;
 * finished ones give their final figures, those not started their zeros. */
static void dump_status(struct worker *ws, size_t nw, const struct iogap_job_list *jobs,
			const struct iogap_run_opts *opts, uint64_t run_start)
{
	struct iogap_job_stat **stats = calloc(nw, sizeof(*stats));
	struct iogap_run_report report = { 0 };
	unsigned want = atomic_fetch_add(&status_wanted, 1) + 1;

	if (!stats)
		return;
	for (size_t i = 0; i < nw; i++) {
		struct worker *w = &ws[i];

		for (;;) {   /* a running worker answers after its current I/O */
			int state = atomic_load(&w->running);

			if (atomic_load(&w->finished)) {
				stats[i] = &w->stat;
				break;
			}
			if (state == 0 || (state == 1 && atomic_load_explicit(&w->snap_done,
						memory_order_acquire) == want)) {
				stats[i] = w->snap;   /* its answer, or zeros before it started */
				break;
			}
			usleep(1000);
		}
	}
	if (!build_report(ws, nw, stats, jobs, opts, run_start, &report))
		opts->status(&report, opts->status_arg);
	iogap_run_report_free(&report);
	free(stats);
}

/* What --status-interval dumps: every worker of the run. */
struct status_ctx {
	struct worker *ws;
	size_t nw;
	const struct iogap_job_list *jobs;
	uint64_t run_start, next;
	bool triggered;
	struct iogap_ss_view *ss;   /* every worker's, when a job uses steady state */
};

/* fio's check_trigger_file: the trigger file (removed when seen) or the
 * trigger time stops every job, then the trigger command runs. */
static void check_trigger(const struct iogap_run_opts *opts, struct status_ctx *sc)
{
	bool fire = false;

	if (sc->triggered)
		return;
	if (opts->trigger_file && access(opts->trigger_file, F_OK) == 0) {
		if (unlink(opts->trigger_file))
			fprintf(stderr, "iogap-probe: failed to unlink %s: %s\n", opts->trigger_file,
				strerror(errno));
		fire = true;
	}
	if (opts->trigger_timeout_ns && iogap_now_ns() - sc->run_start >= opts->trigger_timeout_ns)
		fire = true;
	if (!fire)
		return;
	sc->triggered = true;
	stop_requested = 1;
	if (opts->trigger_cmd && *opts->trigger_cmd && system(opts->trigger_cmd) == -1)
		fprintf(stderr, "iogap-probe: failed executing %s trigger\n", opts->trigger_cmd);
}

/* fio's helper thread, once a second: steady state judged on every
 * worker's completions so far; those that reached it end */
static void ss_tick(struct status_ctx *sc)
{
	for (size_t i = 0; i < sc->nw; i++) {
		struct worker *w = &sc->ws[i];
		struct iogap_ss_view *v = &sc->ss[i];

		v->running = atomic_load(&w->running) == 1;
		v->epoch_ns = atomic_load(&w->epoch_ns);
		v->ios = v->bytes = 0;
		for (int d = 0; d < IOGAP_DDIR_NR; d++) {
			v->ios += atomic_load_explicit(&w->prog_ios[d], memory_order_relaxed);
			v->bytes += atomic_load_explicit(&w->prog_bytes[d], memory_order_relaxed);
		}
		v->terminate = false;
	}
	iogap_ss_check(sc->ss, sc->nw, iogap_now_ns());
	for (size_t i = 0; i < sc->nw; i++)
		if (sc->ss[i].terminate)
			atomic_store(&sc->ws[i].terminate, 1);
}

static int run_segment(struct worker *ws, size_t nr, const struct iogap_run_opts *opts,
		       struct status_ctx *sc)
{
	uint64_t t0 = iogap_now_ns(), expected = 0, prev_b[IOGAP_DDIR_NR] = { 0 },
		 prev_i[IOGAP_DDIR_NR] = { 0 }, last = t0, last_newline = t0,
		 ss_next = t0 + 1000000000ULL;
	uint64_t eta_interval = opts->eta_interval_ns ? opts->eta_interval_ns : 1000000000ULL;

	for (size_t i = 0; i < nr; i++) {
		const struct iogap_job *j = ws[i].job;
		uint64_t e = j->startdelay_ns + j->ramp_time_ns + j->runtime_ns;

		if (e > expected)
			expected = e;
		if (j->invalidate && (ws[i].clone == 0 || j->files_per_clone) &&
		    !(j->engine->flags & IOGAP_ENGINE_NO_FILE))
			for (unsigned k = 0; k < j->nrfiles; k++)
				invalidate_cache(iogap_job_file(j, ws[i].clone, k));
	}
	for (size_t i = 0; i < nr; i++) {
		int r = pthread_create(&ws[i].thread, NULL, worker_main, &ws[i]);

		if (r) {
			ws[i].stat.error = r;
			snprintf(ws[i].stat.verror, sizeof(ws[i].stat.verror),
				 "pthread_create: %s", strerror(r));
			atomic_store(&ws[i].finished, 1);
			ws[i].thread = 0;
		}
	}
	for (;;) {
		bool all = true;

		for (size_t i = 0; i < nr; i++) {
			bool done = atomic_load(&ws[i].finished);

			/* as fio's reap_threads (flow_exit_job): a job that ended
			 * leaves its flow when seen here; the others go on in
			 * their own ratio */
			if (done)
				iogap_flow_leave(&ws[i].flow);
			all = all && done;
		}
		if (all)
			break;
		usleep(50000);
		check_trigger(opts, sc);
		if (opts->status_interval_ns && iogap_now_ns() >= sc->next) {
			dump_status(sc->ws, sc->nw, sc->jobs, opts, sc->run_start);
			sc->next += opts->status_interval_ns;
		}
		if (sc->ss && iogap_now_ns() >= ss_next) {
			ss_tick(sc);
			ss_next += 1000000000ULL;
		}
		if (opts->progress && iogap_now_ns() - last >= eta_interval) {
			uint64_t now = iogap_now_ns();

			/* fio's --eta-newline: the line shown is kept, a new one starts */
			if (opts->eta_newline_ns && now - last_newline > opts->eta_newline_ns) {
				fputc('\n', stderr);
				last_newline = now;
			}
			print_progress(ws, nr, t0, expected, prev_b, prev_i, now - last);
			last = now;
		}
	}
	for (size_t i = 0; i < nr; i++)
		if (ws[i].thread)
			pthread_join(ws[i].thread, NULL);
	if (opts->progress)
		fprintf(stderr, "\r%*s\r", 100, "");
	return 0;
}

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

/* A target the engine reaches itself (rbd): its first and last MiBs,
 * copied into a sparse memfd of its size, get the same checks as a file. */
/* Steady state (steadystate.c) for the workers whose jobs use it: *ss
 * and *views stay NULL when none does.  0, or -1 with a message in err. */
static int setup_steadystate(struct worker *ws, size_t nw, struct iogap_ss **ss,
			     struct iogap_ss_view **views, char *err, size_t errlen)
{
	int any;

	*ss = calloc(nw, sizeof(**ss));
	*views = calloc(nw, sizeof(**views));
	if (!*ss || !*views)
		return iogap_seterr(err, errlen, "out of memory");
	for (size_t i = 0; i < nw; i++)
		(*views)[i] = (struct iogap_ss_view){ .ss = &(*ss)[i], .job = ws[i].job,
						      .groupid = ws[i].groupid };
	any = iogap_ss_setup(*views, nw, err, errlen);
	if (any <= 0) {
		iogap_ss_free(*ss, nw);
		free(*views);
		*ss = NULL;
		*views = NULL;
		return any;
	}
	for (size_t i = 0; i < nw; i++)
		if ((*ss)[i].dur)
			ws[i].stat.ss = &(*ss)[i];
	return 0;
}

static int check_engine_target(const struct iogap_job *j, const struct iogap_engine_ops *ops,
			       char *why, size_t whylen)
{
	int fd = memfd_create("iogap-target-edges", MFD_CLOEXEC);
	uint64_t size;
	char path[64];
	int r;

	if (fd < 0) {
		snprintf(why, whylen, "memfd_create: %s", strerror(errno));
		return -1;
	}
	r = ops->target_info(j, &size, fd, 4u << 20, why, whylen);
	if (r < 0) {
		close(fd);
		return -1;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	r = iogap_target_check(path, why, whylen);
	close(fd);
	return r;
}

static int check_targets(struct iogap_job_list *jobs, const struct iogap_run_opts *opts,
			 struct iogap_file_ids *checked, char *err, size_t errlen)
{
	for (size_t i = 0; i < jobs->nr; i++) {
		const struct iogap_job *j = &jobs->jobs[i];
		const struct iogap_engine_ops *ops = j->engine;
		char why[512];
		int r;

		if (opts->allow_destroy_data)
			continue;
		if (j->proc.allow_mounted_write && !(ops->flags & IOGAP_ENGINE_NO_FILE)) {
			/* the job's own --allow-destroy-data (fio's allow_mounted_write) */
			if (iogap_target_check(j->filename, why, sizeof(why)) > 0)
				fprintf(stderr, "iogap-probe: %s: writing (job '%s', allow_mounted_write=1) "
					"although it holds data: %s\n", j->filename, j->name, why);
			continue;
		}
		if (ops->holds_data)
			r = ops->holds_data(j, why, sizeof(why));
		else if ((ops->flags & IOGAP_ENGINE_NO_FILE && !ops->target_info) || !job_writes(j) ||
			 j->verify_only)
			continue;
		else if (ops->target_info)
			r = check_engine_target(j, ops, why, sizeof(why));
		else
			r = iogap_target_check_region(j->filename, &(struct iogap_target_region){
				j->offset, j->offset_increment, j->size, j->numjobs }, checked, why,
						      sizeof(why));
		if (r < 0) {
			snprintf(err, errlen, "%s: %s", j->filename, why);
			return -1;
		}
		if (r > 0) {
			snprintf(err, errlen,
				 "%s: refusing to write (job '%s'): it holds data: %s. "
				 "Use --allow-destroy-data to overwrite it.", j->filename, j->name, why);
			return -1;
		}
	}
	return 0;
}

static void fill_random(void *p, size_t n)
{
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);

	if (fd < 0 || read(fd, p, n) != (ssize_t)n) {
		uint64_t v = iogap_now_ns() ^ ((uint64_t)getpid() << 32);
		memcpy(p, &v, n < sizeof(v) ? n : sizeof(v));
	}
	if (fd >= 0)
		close(fd);
}

static struct iogap_trace_writer *open_trace(const struct iogap_run_opts *opts,
					     struct iogap_job_list *jobs, uint64_t run_id,
					     char *err, size_t errlen)
{
	struct iogap_trace_header h = { 0 };
	struct utsname u;
	char info[8192], host[256] = "?";
	size_t n = 0;
	FILE *f;

	h.producer = (uint16_t)opts->producer;
	h.clock = opts->producer == IOGAP_PRODUCER_PROBE_GUEST ? IOGAP_CLOCK_GUEST_MONOTONIC :
		  IOGAP_CLOCK_HOST_MONOTONIC;
	h.run_id = run_id;
	h.start_ns = iogap_now_ns();
	snprintf(h.layer, sizeof(h.layer), "%s",
		 opts->producer == IOGAP_PRODUCER_PROBE_GUEST ? "guest" : "bare");
	f = fopen("/proc/sys/kernel/random/boot_id", "r");
	if (f) {
		char b[64] = "";
		unsigned k = 0;

		if (fgets(b, sizeof(b), f)) {
			for (char *p = b; *p && k < 32; p++) {
				unsigned v;

				if (*p == '-' || *p == '\n' || sscanf(p, "%1x", &v) != 1)
					continue;
				h.boot_id[k / 2] |= (uint8_t)(v << ((k % 2) ? 0 : 4));
				k++;
			}
		}
		fclose(f);
	}
	gethostname(host, sizeof(host) - 1);
	uname(&u);
	n += (size_t)snprintf(info + n, sizeof(info) - n,
			      "tool=iogap-probe %s\nrun_id=%016" PRIx64 "\nhost=%s\nkernel=%s %s\n"
			      "tag_writes=%d\nstamps=%s\n",
			      opts->version, run_id, host, u.release, u.machine, opts->tag_writes,
			      iogap_stamp_source());
	n = iogap_trace_info_put_jobs(info, sizeof(info), n, jobs);
	return iogap_trace_writer_open(opts->trace_path, &h, info, err, errlen);
}

static dev_t target_dev(const char *path)
{
	struct stat st;

	if (stat(path, &st))
		return 0;
	return S_ISBLK(st.st_mode) ? st.st_rdev : st.st_dev;
}

/* Kernel points follow one disk: the jobs' targets must all be on it. */
static struct iogap_kpoints *start_kernel_points(const struct iogap_run_opts *opts,
						 const struct iogap_job_list *jobs,
						 uint64_t run_id, char *err, size_t errlen)
{
	const char *first = NULL;

	for (size_t i = 0; i < jobs->nr; i++) {
		const char *f = jobs->jobs[i].filename;

		if ((jobs->jobs[i].engine->flags & IOGAP_ENGINE_NO_FILE) || !f)
			continue;
		if (!first) {
			first = f;
		} else if (target_dev(f) != target_dev(first)) {
			snprintf(err, errlen, "--kernel-trace follows one disk, but %s and %s are "
				 "on different devices", first, f);
			return NULL;
		}
	}
	if (!first) {
		snprintf(err, errlen, "--kernel-trace: no job has a file or device target");
		return NULL;
	}
	return iogap_kpoints_start(first, opts->kernel_trace_path, opts->producer, run_id, err,
				   errlen);
}

/* One job per file, for the checks, layout and unlink that go file by
 * file: a shallow copy per file of the job, its name and size (fio's
 * io_size), and for the files of a clone of its own the clone's region. */
static int file_views(const struct iogap_job_list *jobs, struct iogap_job_list *views)
{
	size_t n = 0;

	for (size_t i = 0; i < jobs->nr; i++)
		n += jobs->jobs[i].files_nr;
	views->jobs = calloc(n, sizeof(*views->jobs));
	if (!views->jobs)
		return -1;
	views->nr = 0;
	for (size_t i = 0; i < jobs->nr; i++) {
		const struct iogap_job *j = &jobs->jobs[i];

		for (unsigned c = 0; c < (j->files_per_clone ? j->numjobs : 1); c++) {
			for (unsigned k = 0; k < j->nrfiles; k++) {
				struct iogap_job *v = &views->jobs[views->nr++];
				size_t e = (j->files_per_clone ? c * j->nrfiles : 0) + k;

				*v = *j;
				v->filename = j->files[e];
				v->size = j->file_sizes[e];
				v->nrfiles = 1;
				if (!j->files_per_clone)
					continue;
				v->offset = clone_offset(j, c);
				v->offset_increment = 0;
				v->numjobs = 1;
			}
		}
	}
	return 0;
}

/* Each clone gets its own streams; guest and host get the same ones. */
static uint64_t worker_seed(const struct iogap_job *j, unsigned job_index, unsigned clone)
{
	/* allrandrepeat: every generator repeatable even with randrepeat=0, as fio */
	uint64_t seed = j->randrepeat || j->proc.allrandrepeat ? j->randseed :
			(uint64_t)iogap_now_ns() ^ (uint64_t)getpid();

	return seed ^ ((uint64_t)job_index << 32) ^ ((uint64_t)clone * 0x9e3779b97f4a7c15ULL);
}

/* fio's setup_files: each file's io size (size split over nrfiles, or
 * filesize, or the existing size), fixed once for the layout and the
 * workers; a random filesize is drawn as fio draws it for the clone
 * (first_thread: the job's first thread number; shared files: its). */
static int resolve_file_sizes(struct iogap_job *j, unsigned job_index, unsigned first_thread,
			      char *err, size_t errlen)
{
	size_t n = j->files_nr;
	uint32_t min_bs = UINT32_MAX;
	struct iogap_frand rnd;

	if (j->file_sizes)
		return 0;
	j->file_sizes = calloc(n, sizeof(*j->file_sizes));
	if (!j->file_sizes)
		return iogap_seterr(err, errlen, "out of memory");
	if (!j->size && !j->filesize_low)
		return 0;   /* the files as they are (the layout refuses missing ones) */
	for (int d = 0; d < IOGAP_DDIR_NR; d++)
		if (j->rw & (1u << d) && j->bs_min[d] < min_bs)
			min_bs = j->bs_min[d];
	if (min_bs == UINT32_MAX)
		min_bs = j->bs[0];
	for (size_t e = 0; e < n; e++) {
		unsigned clone = j->files_per_clone ? (unsigned)(e / j->nrfiles) : 0;
		struct stat st;
		uint64_t real = 0;

		if (e % j->nrfiles == 0)   /* fio's file_size_state, per clone */
			iogap_frand_seed(&rnd, iogap_fio_seed(j, first_thread + clone,
					 IOGAP_FIO_SEED_FILE_SIZE, worker_seed(j, job_index, clone)),
					 j->random_generator == IOGAP_RGEN_TAUSWORTHE64);

		if (!(j->engine->flags & IOGAP_ENGINE_NO_FILE) && stat(j->files[e], &st) == 0 &&
		    S_ISREG(st.st_mode))
			real = (uint64_t)st.st_size;
		j->file_sizes[e] = iogap_file_io_size(j, (unsigned)(e % j->nrfiles), real,
						      j->files_per_clone ? clone_offset(j, (unsigned)(e / j->nrfiles)) :
						      j->offset, min_bs, &rnd);
	}
	return 0;
}

/* Stamps from the TSC (fio's clocksource=cpu) unless a job asks for a
 * clock_gettime per stamp, or the TSC is not to be trusted (stamp.h). */
static void choose_clock(const struct iogap_job_list *jobs)
{
	for (size_t i = 0; i < jobs->nr; i++)
		if (jobs->jobs[i].clock_gettime)
			return;
	iogap_stamp_init();
}

int iogap_run_jobs(struct iogap_job_list *jobs, const struct iogap_run_opts *opts,
		   struct iogap_run_report *report, char *err, size_t errlen)
{
	struct iogap_job_list files = { 0 };   /* file_views: not owned */
	struct iogap_file_ids pre_existing = { 0 };   /* safety.c: before any layout */
	struct iogap_file_ids checked = { 0 };        /* written to without a new look */
	struct worker *ws = NULL;
	size_t nw = 0, wi = 0;
	unsigned groupid = 0, segment = 0;
	uint64_t run_id = opts->run_id;
	struct iogap_trace_writer *trace = NULL;
	struct iogap_kpoints *kpoints = NULL;
	struct iogap_zbd_set *zset = NULL;   /* zbd.c */
	struct iogap_ss *ss = NULL;          /* steadystate.c, one per worker */
	struct iogap_ss_view *ssv = NULL;
	struct iogap_flows *flows = NULL;    /* flow.c */
	struct status_ctx sc;
	struct sigaction sa = { .sa_handler = on_signal };
	uint64_t run_start;
	int ret = -1;

	choose_clock(jobs);
	run_start = iogap_now_ns();
	memset(report, 0, sizeof(*report));
	for (size_t i = 0, thread = 1; i < jobs->nr; thread += jobs->jobs[i++].numjobs)
		if (iogap_blktrace_merge(&jobs->jobs[i], err, errlen) ||   /* blktrace_merge.c */
		    iogap_iolog_prepare_job(&jobs->jobs[i], err, errlen) ||
		    iogap_job_finalize(&jobs->jobs[i], err, errlen) ||
		    resolve_percentages(&jobs->jobs[i], err, errlen) ||
		    resolve_target_options(&jobs->jobs[i], err, errlen) ||
		    resolve_fill_device(&jobs->jobs[i], err, errlen) ||
		    resolve_file_sizes(&jobs->jobs[i], (unsigned)i, (unsigned)thread, err, errlen))
			return -1;
	if (file_views(jobs, &files)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (check_wait_for(jobs, err, errlen) || check_target_kinds(&files, err, errlen) ||
	    check_targets(&files, opts, &checked, err, errlen) ||
	    check_before_layout(&files, err, errlen) ||
	    (opts->readonly && refuse_layout(&files, err, errlen)))
		goto out;
	for (size_t i = 0; i < files.nr; i++) {
		if (iogap_file_ids_add(&pre_existing, files.jobs[i].filename)) {
			snprintf(err, errlen, "out of memory");
			goto out;
		}
	}
	for (size_t i = 0; i < files.nr; i++) {
		const struct iogap_job *j = &files.jobs[i];
		const struct iogap_engine_ops *ops = j->engine;
		uint64_t size;

		if (ops->file_size) {   /* a device the engine sizes: nothing is laid out */
			if (ops->file_size(j->filename, &size, err, errlen) < 0)
				goto out;
		} else if (!(ops->flags & IOGAP_ENGINE_NO_FILE) && layout_file(j, &checked, err, errlen)) {
			goto out;
		}
		/* a target of the engine's own must exist: say so before starting */
		if (ops->target_info && ops->target_info(j, &size, -1, 0, err, errlen) < 0)
			goto out;
	}
	for (size_t i = 0; i < jobs->nr; i++)
		nw += jobs->jobs[i].numjobs;
	if (iogap_zbd_setup(jobs, &zset, err, errlen))   /* zbd.c: zone tables, checks */
		goto out;
	if (!run_id)
		fill_random(&run_id, sizeof(run_id));
	if (opts->trace_path) {
		trace = open_trace(opts, jobs, run_id, err, errlen);
		if (!trace)
			goto out;
	}
	if (opts->kernel_trace_path) {
		kpoints = start_kernel_points(opts, jobs, run_id, err, errlen);
		if (!kpoints)
			goto out;
	}
	ws = calloc(nw, sizeof(*ws));
	flows = iogap_flows_new();
	if (!ws || !flows) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < jobs->nr; i++) {
		const struct iogap_job *j = &jobs->jobs[i];

		if (i > 0 && (j->stonewall || j->new_group))
			groupid++;
		segment += i > 0 && j->stonewall;
		for (unsigned c = 0; c < j->numjobs; c++, wi++) {
			struct worker *w = &ws[wi];

			w->job = j;
			w->opts = opts;
			w->job_index = (unsigned)i;
			w->clone = c;
			w->seed = worker_seed(j, (unsigned)i, c);
			w->rated = any_rate(j->rate_iops, j->rate);
			w->rate_floor = any_rate(j->rate_iops_min, j->rate_min);
			iogap_dprint(IOGAP_DBG_RANDOM, "job %s clone %u: seed %llu\n", j->name, c,
				     (unsigned long long)w->seed);
			iogap_dprint(IOGAP_DBG_JOB, "job %s clone %u: rw=%s, ioengine=%s, group %u\n",
				     j->name, c, iogap_rw_name(j->rw), j->ioengine, groupid);
			w->thread_number = (unsigned)wi + 1;
			w->groupid = groupid;
			w->run_id = run_id;
			w->trace = trace;
			w->zbd_set = zset;
			w->pre_existing = &pre_existing;
			w->checked = &checked;
			w->all = ws;
			w->nall = nw;
			w->segment = segment;
			w->stat.groupid = groupid;
			w->stat.thread_number = w->thread_number;
			w->stat.members = 1;
			w->stat.job = j;
			w->stat.iodepth = j->iodepth;
			snprintf(w->stat.name, sizeof(w->stat.name), "%s", j->name);
			snprintf(w->stat.description, sizeof(w->stat.description), "%s",
				 j->description ? j->description : "");
			snprintf(w->stat.ioengine, sizeof(w->stat.ioengine), "%s", j->ioengine);
			w->stat.clat_percentiles = j->clat_percentiles;
			w->stat.lat_percentiles = j->lat_percentiles;
			w->stat.slat_percentiles = j->slat_percentiles;
			memcpy(w->stat.percentile_list, j->percentile_list, sizeof(j->percentile_list));
			w->stat.percentile_nr = j->percentile_nr;
			if (opts->prof)   /* fio's profile_td_init, as each job is added */
				w->prof_state = opts->prof->td_init();
			/* as fio: every job is in its flow from the start, the
			 * ones after a stonewall too */
			if (iogap_flow_join(flows, j->flow_id, j->flow, &w->flow)) {
				snprintf(err, errlen, "out of memory");
				goto out;
			}
		}
	}
	if (setup_steadystate(ws, nw, &ss, &ssv, err, errlen))
		goto out;
	if (!opts->quiet) {
		FILE *out = opts->out ? opts->out : stdout;
		unsigned last_job = UINT32_MAX;

		for (size_t i = 0; i < nw; i++) {
			if (ws[i].job_index == last_job)
				continue;
			last_job = ws[i].job_index;
			iogap_output_job_line(out, ws[i].job, ws[i].groupid);
			if (ws[i].job->numjobs > 1)
				fputs("...\n", out);   /* fio's line for the other clones */
		}
		fprintf(out, "%s\nStarting %zu %s%s\n", opts->version, nw,
		       jobs->jobs[0].thread ? "thread" : "process",
		       nw > 1 ? (jobs->jobs[0].thread ? "s" : "es") : "");
		fflush(out);
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sc = (struct status_ctx){ .ws = ws, .nw = nw, .jobs = jobs, .run_start = run_start,
				  .next = iogap_now_ns() + opts->status_interval_ns, .ss = ssv };
	for (size_t i = 0; opts->status_interval_ns && i < nw; i++) {
		ws[i].snap = malloc(sizeof(*ws[i].snap));
		if (!ws[i].snap) {
			snprintf(err, errlen, "out of memory");
			goto out;
		}
		*ws[i].snap = ws[i].stat;   /* the zeros of a worker not started yet */
	}
	{
		struct iogap_disk_set *disks;
		const char **files = calloc(jobs->nr, sizeof(*files));
		size_t nf = 0;

		for (size_t i = 0; files && i < jobs->nr; i++)
			if (!(jobs->jobs[i].engine->flags & IOGAP_ENGINE_NO_FILE) &&
			    jobs->jobs[i].disk_util)
				files[nf++] = jobs->jobs[i].filename;
		disks = iogap_disk_util_start(files, nf);
		free(files);
		/* stonewall splits execution; a job without it joins the running set */
		for (size_t start = 0; start < nw && !stop_requested && !atomic_load(&exit_all);) {
			size_t end = start + 1;

			while (end < nw && !(ws[end].clone == 0 && ws[end].job->stonewall))
				end++;
			run_segment(ws + start, end - start, opts, &sc);
			start = end;
		}
		report->disks_nr = iogap_disk_util_finish(disks, &report->disks);
	}
	unlink_files(&files, opts, &pre_existing);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);

	if (build_report(ws, nw, NULL, jobs, opts, run_start, report)) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	report->ss = ss;   /* the report's entries point into it */
	report->ss_nr = nw;
	ss = NULL;
	ret = 0;
out:
	if (kpoints) {
		char kerr[256];

		if (iogap_kpoints_stop(kpoints, kerr, sizeof(kerr)) && ret == 0) {
			snprintf(err, errlen, "%s", kerr);
			ret = -1;
		}
	}
	if (trace) {
		uint64_t dropped = 0;
		char cerr[256];

		for (size_t i = 0; ws && i < nw; i++)
			dropped += ws[i].dropped;
		if (iogap_trace_writer_close(trace, iogap_now_ns(), dropped, cerr, sizeof(cerr)) &&
		    ret == 0) {
			snprintf(err, errlen, "trace: %s", cerr);
			ret = -1;
		}
	}
	for (size_t i = 0; ws && i < nw; i++) {
		if (ws[i].prof_state)   /* fio's profile_td_exit as each job is reaped */
			opts->prof->td_exit(ws[i].prof_state);
		free(ws[i].snap);
	}
	free(ws);
	iogap_ss_free(ss, nw);
	free(ssv);
	free(files.jobs);
	iogap_file_ids_free(&pre_existing);
	iogap_file_ids_free(&checked);
	iogap_zbd_free(zset);   /* zbd.c */
	iogap_flows_free(flows);
	return ret;
}

void iogap_run_report_free(struct iogap_run_report *report)
{
	iogap_ss_free(report->ss, report->ss_nr);
	free(report->stats);
	free(report->groups);
	free(report->disks);
	memset(report, 0, sizeof(*report));
}
