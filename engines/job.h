/* SPDX-License-Identifier: MIT */
/*
 * The fio-compatible job model: options with fio's names, defaults and
 * meanings, parsed from job files and command lines (jobfile.c).
 */
#ifndef IOGAP_JOB_H
#define IOGAP_JOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define IOGAP_MAX_MERGE_LOGS 20  /* fio's FIO_IO_U_LIST_MAX_LEN */
#define IOGAP_DDIR_NR 3          /* read, write, trim: fio's order */
#define IOGAP_MAX_PERCENTILES 20
#define IOGAP_MAX_BSSPLIT 64
#define IOGAP_MAX_CPUS 1024

enum iogap_rw_flags {             /* fio's td_ddir bits */
	IOGAP_RW_READ  = 1u << 0,
	IOGAP_RW_WRITE = 1u << 1,
	IOGAP_RW_TRIM  = 1u << 2,
	IOGAP_RW_RAND  = 1u << 3,
};

enum iogap_coe {                  /* fio's continue_on_error classes */
	IOGAP_COE_READ = 1u << 0,
	IOGAP_COE_WRITE = 1u << 1,
	IOGAP_COE_VERIFY = 1u << 2,
	IOGAP_COE_ALL = 0xffu,
};

enum iogap_exit_what {            /* fio's exit_what for exitall */
	IOGAP_EXIT_GROUP,             /* the jobs of its reporting group */
	IOGAP_EXIT_STONEWALL,         /* every running job; the next stonewall starts */
	IOGAP_EXIT_ALL,               /* every job, none starts after */
};

enum iogap_verify_type {          /* fio's verify= numbers (its verify.h) */
	IOGAP_VERIFY_NONE = 0,
	IOGAP_VERIFY_META = 1,        /* the header only */
	IOGAP_VERIFY_MD5 = 2,
	IOGAP_VERIFY_CRC64 = 3,
	IOGAP_VERIFY_CRC32 = 4,
	IOGAP_VERIFY_CRC32C = 5,
	IOGAP_VERIFY_CRC32C_INTEL = 6,
	IOGAP_VERIFY_CRC16 = 7,
	IOGAP_VERIFY_CRC7 = 8,
	IOGAP_VERIFY_SHA256 = 9,
	IOGAP_VERIFY_SHA512 = 10,
	IOGAP_VERIFY_SHA3_224 = 11,
	IOGAP_VERIFY_SHA3_256 = 12,
	IOGAP_VERIFY_SHA3_384 = 13,
	IOGAP_VERIFY_SHA3_512 = 14,
	IOGAP_VERIFY_XXHASH = 15,
	IOGAP_VERIFY_SHA1 = 16,
	IOGAP_VERIFY_PATTERN = 17,    /* verify_pattern alone: header, then the pattern */
	IOGAP_VERIFY_PATTERN_NO_HDR = 18, /* verify=pattern: the pattern alone */
	IOGAP_VERIFY_NULL = 19,       /* read back, check nothing */
};
#define IOGAP_VERIFY_HDR 40            /* fio's struct verify_header */
#define IOGAP_VERIFY_MAX_HDR 168       /* the header with sha512's 128 bytes */
#define IOGAP_VERIFY_FMT_MAX 8         /* fio's verify_fmt[]: %o in verify_pattern */

/* Bytes of a type's checksum after the header (fio's struct vhdr_*). */
static inline unsigned iogap_verify_sum_size(unsigned type)
{
	switch (type) {
	case IOGAP_VERIFY_SHA512:
		return 128;
	case IOGAP_VERIFY_SHA256:   /* fio keeps 64 bytes for its 32 */
	case IOGAP_VERIFY_SHA3_512:
		return 64;
	case IOGAP_VERIFY_SHA3_384:
		return 48;
	case IOGAP_VERIFY_SHA3_256:
		return 32;
	case IOGAP_VERIFY_SHA3_224:
		return 28;
	case IOGAP_VERIFY_SHA1:
		return 20;
	case IOGAP_VERIFY_MD5:
		return 16;
	case IOGAP_VERIFY_CRC64:
		return 8;
	case IOGAP_VERIFY_CRC32:
	case IOGAP_VERIFY_CRC32C:
	case IOGAP_VERIFY_CRC32C_INTEL:
	case IOGAP_VERIFY_XXHASH:
		return 4;
	case IOGAP_VERIFY_CRC16:
		return 2;
	case IOGAP_VERIFY_CRC7:
		return 1;
	default:   /* meta, pattern: the header alone */
		return 0;
	}
}

/* Bytes fio writes before a block's data: header and checksum (none for
 * null and verify=pattern). */
static inline unsigned iogap_verify_hdr_size(unsigned type)
{
	if (type == IOGAP_VERIFY_NULL || type == IOGAP_VERIFY_PATTERN_NO_HDR)
		return 0;
	return IOGAP_VERIFY_HDR + iogap_verify_sum_size(type);
}

enum iogap_file_service {        /* fio's file_service_type */
	IOGAP_FSERVICE_ROUNDROBIN,    /* its default */
	IOGAP_FSERVICE_RANDOM,
	IOGAP_FSERVICE_SEQUENTIAL,    /* finish one file, then the next */
	IOGAP_FSERVICE_ZIPF,
	IOGAP_FSERVICE_PARETO,
	IOGAP_FSERVICE_GAUSS,
};

enum iogap_unified_rw {         /* fio's unified_rw_reporting */
	IOGAP_UNIFIED_SPLIT,          /* none, 0: per direction */
	IOGAP_UNIFIED_MIXED,          /* mixed, 1: the directions summed */
	IOGAP_UNIFIED_BOTH,           /* both, 2: per direction, then summed */
};

enum iogap_rw_sequencer { IOGAP_RWSEQ_SEQUENTIAL, IOGAP_RWSEQ_IDENTICAL };
enum iogap_random_dist { IOGAP_RAND_UNIFORM, IOGAP_RAND_ZIPF, IOGAP_RAND_PARETO,
			 IOGAP_RAND_ZONED, IOGAP_RAND_ZONED_ABS, IOGAP_RAND_GAUSS };
enum iogap_random_gen { IOGAP_RGEN_TAUSWORTHE, IOGAP_RGEN_LFSR, IOGAP_RGEN_TAUSWORTHE64 };
enum iogap_cpus_policy { IOGAP_CPUS_SHARED, IOGAP_CPUS_SPLIT };
enum iogap_zone_mode {            /* fio's zonemode (zbd.c) */
	IOGAP_ZONE_MODE_NOT_SPECIFIED, /* none, or strided when zonesize is set */
	IOGAP_ZONE_MODE_NONE,
	IOGAP_ZONE_MODE_STRIDED,
	IOGAP_ZONE_MODE_ZBD,
};

enum iogap_ss_flags {             /* fio's steady-state bits (steadystate.h) */
	IOGAP_SS_IOPS = 1u << 0,      /* criterion on IOPS, else bandwidth */
	IOGAP_SS_BW = 1u << 1,
	IOGAP_SS_SLOPE = 1u << 2,     /* the slope, else the maximum deviation */
	IOGAP_SS_ATTAINED = 1u << 3,
	IOGAP_SS_RAMP_OVER = 1u << 4,
	IOGAP_SS_DATA = 1u << 5,      /* this one keeps its group's samples */
	IOGAP_SS_PCT = 1u << 6,       /* limit in percent of the mean */
	IOGAP_SS_BUFFER_FULL = 1u << 7,
};

struct iogap_bssplit {
	uint32_t bs;
	uint32_t perc;            /* percent; those not given share the rest (fio) */
};

/* random_distribution=zoned (percentages of the region) or zoned_abs */
#define IOGAP_MAX_ZONESPLIT 256
struct iogap_zonesplit {
	uint8_t access_perc;
	uint8_t size_perc;        /* zoned */
	uint64_t size;            /* zoned_abs: bytes */
};

/* One option as the user wrote it, for JSON "job options" and errors. */
struct iogap_job_kv {
	char *key;
	char *value;              /* NULL for a bare flag */
};

#define IOGAP_ERR_CLASSES 3       /* fio's error_type_bit: read, write, verify */
#define IOGAP_MAX_IGNORE_ERR 32
#define IOGAP_MAX_CMDPRIO 32      /* cmdprio_bssplit entries per direction */
#define IOGAP_MAX_CLAT_PRIO 8     /* distinct priorities a direction reports */

/* One cmdprio_bssplit entry: perc% of the bs-sized requests get prio
 * (fio's ioprio value: class << 13 | level; -1 = cmdprio_class/cmdprio). */
struct iogap_cmdprio_split {
	uint32_t bs;
	uint32_t perc;
	int32_t prio;
};

struct iogap_prio_opts {
	bool prio_set, class_set;  /* prio=, prioclass= given: ioprio_set */
	unsigned prio, prioclass;
	unsigned cmdprio_percentage[2];   /* read, write */
	unsigned cmdprio_class[2];        /* 0: RT, fio's default */
	unsigned cmdprio[2];              /* level */
	struct iogap_cmdprio_split bssplit[2][IOGAP_MAX_CMDPRIO];
	unsigned bssplit_nr[2];
	bool bssplit_set;
};

#define IOGAP_NUMA_MAX_NODES 64
enum iogap_numa_policy { IOGAP_NUMA_DEFAULT, IOGAP_NUMA_PREFER, IOGAP_NUMA_BIND,
			 IOGAP_NUMA_INTERLEAVE, IOGAP_NUMA_LOCAL };
struct iogap_numa_opts {
	uint64_t cpu_nodes;        /* bit per node; 0: not set */
	bool mem_set;
	enum iogap_numa_policy mem_policy;
	uint64_t mem_nodes;        /* bind/interleave/prefer's nodes */
};

enum iogap_dedupe_mode { IOGAP_DEDUPE_REPEAT, IOGAP_DEDUPE_WORKING_SET };
struct iogap_buf_opts {
	unsigned compress_percentage; /* 0: incompressible */
	uint32_t compress_chunk;      /* bytes per random/zero segment; fio default 512 */
	unsigned dedupe_percentage;
	enum iogap_dedupe_mode dedupe_mode;
	unsigned dedupe_working_set_percentage; /* of the job's size; fio default 5 */
	bool dedupe_global;
};

struct iogap_engine_ops;

enum iogap_mem_type {              /* fio's mem= (iomem=): the I/O buffers' memory */
	IOGAP_MEM_MALLOC,             /* its default */
	IOGAP_MEM_SHM,                /* a SysV shared memory segment */
	IOGAP_MEM_SHMHUGE,            /* the same, SHM_HUGETLB */
	IOGAP_MEM_MMAP,               /* anonymous private mmap, or of mem_path */
	IOGAP_MEM_MMAPHUGE,           /* MAP_HUGETLB, or a hugetlbfs mem_path */
	IOGAP_MEM_MMAPSHARED,         /* shared mmap, anonymous or of mem_path */
};

enum iogap_fadvise {               /* fio's fadvise_hint */
	IOGAP_FADV_NONE,              /* 0 */
	IOGAP_FADV_TYPE,              /* 1 (default): random or sequential by rw */
	IOGAP_FADV_RANDOM,
	IOGAP_FADV_SEQUENTIAL,
};

enum iogap_file_lock { IOGAP_LOCK_NONE, IOGAP_LOCK_EXCLUSIVE, IOGAP_LOCK_READWRITE };
enum iogap_fallocate {             /* fio's fallocate (Linux default: native) */
	IOGAP_FALLOC_NATIVE,          /* fallocate(2) mode 0 */
	IOGAP_FALLOC_NONE,
	IOGAP_FALLOC_POSIX,           /* posix_fallocate */
	IOGAP_FALLOC_KEEP,            /* FALLOC_FL_KEEP_SIZE */
	IOGAP_FALLOC_TRUNCATE,        /* ftruncate */
};

/* fio's options on how a job runs as a process, treats its files and
 * counts (engines/jobproc.c parses them; guest-probe/procopts.c acts). */
struct iogap_job_proc {
	char *exec_prerun, *exec_postrun;   /* system(), output in name.pre/postrun.txt */
	char *ioscheduler;            /* written to the target disk's queue/scheduler */
	char *cgroup;                 /* cgroup (blkio v1 or v2) the job runs in */
	bool cgroup_nodelete;
	unsigned cgroup_weight;       /* blkio.weight 100..1000; 0 = unset */
	char *mem_path;               /* mem=mmap:PATH (mmaphuge, mmapshared too) */
	enum iogap_mem_type mem;
	uint64_t hugepage_size;       /* fio's default 4 MiB */
	uint64_t lockmem;             /* mlock this much per job (bytes) */
	int nice;                     /* -20..19 */
	int64_t uid, gid;             /* -1: unchanged */
	int write_hint;               /* RWH_WRITE_LIFE_*; -1: not set */
	enum iogap_fadvise fadvise;
	enum iogap_file_lock lockfile;
	enum iogap_fallocate fallocate;
	bool atomic;                  /* fio 3.33: O_DIRECT (see docs) */
	bool overwrite;               /* a writing job's short file is written out first */
	bool pre_read;                /* read the regions into the page cache first */
	bool fsync_on_close;
	bool unlink_each_loop;
	bool allow_mounted_write;     /* this job may write where the safety check refuses */
	bool serialize_overlap;       /* never two overlapping requests in flight */
	bool allrandrepeat;
	bool unique_filename;         /* fio's client/server file prefix: no effect here */
	bool rate_ignore_thinktime;
	uint64_t thinktime_iotime_ns; /* think after this much I/O time */
	bool thinktime_blocks_set;    /* thinktime_blocks given (fio's option_is_set) */
	uint64_t max_latency_ns[IOGAP_DDIR_NR];   /* 0 = none */
	uint64_t offset_align;        /* offset=N%: rounded up to this; 0 = min bs */
	unsigned write_barrier;       /* fio marks every Nth write; no engine acts on it */
	int gtod_cpu;                 /* left out of cpus_allowed (fio's time thread's); -1 */
	unsigned char log_gz_cpus[IOGAP_MAX_CPUS / 8];   /* log_compression_cpus */
	bool log_gz_cpus_set;         /* log_gz.c deflates on these CPUs */
	unsigned kb_base;             /* 1024 or 1000: sizes' k and the output's units */
	unsigned unit_base;           /* 0 (auto) or 8: bytes; 1: bits in the output */
	bool sizes_seen;              /* a size with a unit was parsed (kb_base must precede) */
};

struct iogap_job {
	char *name;
	char *filename;           /* as given (fio's "a:b:c"; NULL: fio derives
				   * "name.jobnum.filenum"); after finalize the
				   * first of files */
	/* the job's files (jobfiles.c), set by finalize: nrfiles names the
	 * clones share, or numjobs x nrfiles when each clone has its own
	 * (fio's default names with $jobnum, or several directories) */
	char **files;
	unsigned files_nr;        /* entries in files (and file_sizes) */
	unsigned nrfiles;         /* files per clone, fio's nrfiles (1) */
	bool files_per_clone;
	uint64_t filesize_low, filesize_high; /* fio's filesize (a range); 0:
				   * size / nrfiles, or the existing size */
	uint64_t *file_sizes;     /* the runner's: each file's io size (fio's
				   * f->io_size), one per entry of files */
	unsigned openfiles;       /* files open at once; 0 = nrfiles */
	unsigned file_service;    /* enum iogap_file_service */
	unsigned file_service_nr; /* switch file after this many I/Os (:N); 1 */
	double file_service_param; /* zipf theta, pareto h, normal deviation % */
	double file_service_center; /* fio's ":value:center" (0..1); -1 = none */
	bool create_serialize;    /* lay files out one job at a time; fio default 1 */
	bool create_fsync;        /* fsync after laying a file out; fio default 1 */
	bool create_only;         /* lay out, then stop */
	char *ioengine;           /* fio default: psync */
	const struct iogap_engine_ops *engine;    /* ioengine's, set by iogap_job_finalize */
	char *write_lat_log;      /* log file prefixes (guest-probe/logs.c), NULL = */
	char *write_bw_log;       /* off, "" = the job's name */
	char *write_iops_log;
	char *write_hist_log;
	unsigned log_avg_msec;    /* average over windows this long; 0 = every I/O */
	unsigned log_hist_msec;   /* a histogram line every this many ms; 0 = none */
	unsigned log_hist_coarseness; /* 2^N histogram buckets per count */
	bool per_job_logs;        /* one file per thread (fio default 1) */
	bool log_max_value;       /* windows log their maximum, not their mean */
	bool log_prio;            /* the priority column as 0x%04x */
	char *description;
	char *directory;          /* fio's directory: prefix of the file name */
	char *filename_format;    /* fio's default name when filename is unset */

	/* where the section started, for messages */
	char *source_file;
	int   source_line;

	uint64_t size;            /* 0 = whole file/device */
	uint64_t size_nz, offset_nz, offset_increment_nz; /* "Nz": N zones,
				   * resolved once the zone size is known */
	uint64_t offset_increment; /* clone N starts at offset + N * this */
	uint64_t number_ios;      /* stop after this many I/Os (0: no limit) */
	uint64_t offset;
	uint64_t io_size;         /* 0 = size */
	double size_pct, offset_pct; /* size=N%, offset=N%: of the file or device,
				      * resolved by the runner (0 = not given) */
	uint32_t bs[IOGAP_DDIR_NR];
	uint32_t bs_min[IOGAP_DDIR_NR], bs_max[IOGAP_DDIR_NR];   /* bsrange */
	uint32_t ba[IOGAP_DDIR_NR];   /* blockalign: random offsets' unit (0: bs_min) */
	struct iogap_bssplit bssplit[IOGAP_DDIR_NR][IOGAP_MAX_BSSPLIT];
	unsigned bssplit_nr[IOGAP_DDIR_NR];
	bool bs_unaligned;

	unsigned rw;              /* enum iogap_rw_flags */
	unsigned rw_seq_nr;       /* rw=randread:N: N ios per offset switch */
	int64_t rw_seq_add;       /* rw=read:8k / rw=read:-8k: added to each
				   * sequential offset (holes, or backwards) */
	unsigned percentage_random[IOGAP_DDIR_NR]; /* of random I/Os; 100 */
	enum iogap_rw_sequencer rw_sequencer;
	unsigned rwmix[IOGAP_DDIR_NR]; /* rwmixread/rwmixwrite, percent */

	unsigned iodepth;
	unsigned iodepth_batch;            /* iodepth_batch_submit; 0 = iodepth */
	unsigned iodepth_batch_complete_min;
	unsigned iodepth_batch_complete_max; /* 0 (with _min 0): fio's polling */
	unsigned iodepth_low;
	unsigned numjobs;
	unsigned loops;           /* run the job this many times (fio's loops) */

	uint64_t runtime_ns;      /* 0 = until io_size done */
	uint64_t ramp_time_ns;
	uint64_t startdelay_ns;
	uint64_t thinktime_ns;      /* fio's thinktime: pause after I/Os */
	uint64_t thinktime_spin_ns; /* the part of it spent busy-waiting */
	unsigned thinktime_blocks;  /* pause every N I/Os (fio default 1) */
	bool thinktime_issued;      /* thinktime_blocks_type=issue (else complete) */
	bool time_based;

	bool direct;
	bool sync_io;             /* sync=1: O_SYNC */
	unsigned fsync_blocks;    /* fsync every N writes */
	unsigned fdatasync_blocks;
	unsigned sync_file_range_blocks; /* sync_file_range=flags:N: every N writes */
	unsigned sync_file_range_flags;  /* SYNC_FILE_RANGE_* */
	bool end_fsync;
	bool invalidate;          /* fio default 1 */
	bool create_on_open;
	bool unlink;              /* delete the job's file when done */
	bool file_append;         /* offset = the file's size */
	bool allow_file_create;   /* fio default 1 */

	bool norandommap;
	bool randrepeat;          /* fio default 1 */
	uint64_t randseed;        /* default derived as fio does */
	bool randseed_set;
	enum iogap_random_dist random_distribution;
	double random_dist_param; /* zipf theta / pareto h / normal deviation % */
	struct iogap_zonesplit zonesplit[IOGAP_DDIR_NR][IOGAP_MAX_ZONESPLIT];   /* zoned* */
	unsigned zonesplit_nr[IOGAP_DDIR_NR];
	enum iogap_random_gen random_generator;
	bool random_generator_set;

	bool group_reporting;
	bool exitall;             /* a finished job ends others (exit_what says which) */
	enum iogap_exit_what exit_what;
	bool stonewall;
	bool new_group;
	bool thread;              /* report "threads" rather than "processes" */

	unsigned char cpus_allowed[IOGAP_MAX_CPUS / 8];
	bool cpus_allowed_set;
	enum iogap_cpus_policy cpus_allowed_policy;

	uint64_t rate_iops[IOGAP_DDIR_NR];
	uint64_t rate[IOGAP_DDIR_NR];     /* bytes/s, fio's rate */
	uint64_t rate_min[IOGAP_DDIR_NR]; /* bytes/s at least, every ratecycle */
	uint64_t rate_iops_min[IOGAP_DDIR_NR];
	unsigned ratecycle_ms;            /* fio default 1000 */
	bool rate_poisson;                /* rate_process=poisson: exponential gaps */
	bool io_submit_offload;           /* io_submit_mode=offload (offload.c) */
	/* fio's flow control (guest-probe/flow.c): the jobs of one flow_id
	 * keep their issued I/O in the ratio of their flow weights */
	int flow_id;
	unsigned flow;                    /* weight, up to 1000, a negative one wrapped
					   * as fio's; 0 = not in a flow */
	unsigned flow_sleep_us;           /* held back: sleep this long (0: retry) */
	bool exitall_on_error;            /* a job's error ends the others (exit_what) */
	char *wait_for;                   /* start once this earlier job has ended */
	bool refill_buffers;              /* new random data for every write */
	bool log_offset;
	bool disable_lat, disable_clat, disable_slat, disable_bw; /* fio's
				   * switches (gtod_reduce sets all four) */
	bool clock_gettime;       /* clocksource=clock_gettime or gettimeofday:
				   * no TSC stamps for the run (stamp.h) */
	unsigned continue_on_error; /* enum iogap_coe bits */
	double percentile_list[IOGAP_MAX_PERCENTILES];
	unsigned percentile_nr;
	bool clat_percentiles;    /* fio default 1 */
	bool lat_percentiles;
	bool slat_percentiles;

	/* zoned workloads (zbd.c), fio's names and defaults (all 0) */
	enum iogap_zone_mode zone_mode;
	uint64_t zone_size, zone_capacity, zone_range, zone_skip;
	unsigned zone_skip_nz;    /* zoneskip=Nz: N zones */
	bool read_beyond_wp;
	bool ignore_zone_limits;
	unsigned max_open_zones, job_max_open_zones;
	double zone_reset_threshold, zone_reset_frequency;

	/* ioengine=pvsync2's options (fio's names and defaults); hipri is
	 * io_uring's too (IORING_SETUP_IOPOLL) */
	bool hipri;               /* RWF_HIPRI: polled completion */
	unsigned hipri_percentage; /* of the requests hipri applies to; 100 */
	bool nowait;              /* RWF_NOWAIT (libaio's and io_uring's too) */
	bool uncached;            /* RWF_UNCACHED on buffered I/O (io_uring's too) */
	unsigned force_async;     /* io_uring: IOSQE_ASYNC on every Nth request */
	bool userspace_reap;      /* libaio: with iodepth_batch_complete_min=0,
				   * the completion ring read from user space */
	bool thp;                 /* mmap: MADV_HUGEPAGE on the mapping */

	/* ioengine=io_uring's options (fio's names and defaults) */
	bool fixedbufs;           /* registered buffers: READ_FIXED/WRITE_FIXED */
	bool registerfiles;       /* registered file: IOSQE_FIXED_FILE */
	bool sqthread_poll;       /* IORING_SETUP_SQPOLL (implies registerfiles) */
	int sqthread_poll_cpu;    /* IORING_SETUP_SQ_AFF on this CPU; -1: not set */
	int nonvectored;          /* 0: READV/WRITEV; -1 (default): READ/WRITE where
				   * the kernel has them, as fio's probe; else READ/WRITE */
	bool cmd_type_set;        /* io_uring_cmd's cmd_type given (nvme, its only
				   * value and default) */

	/* verify (guest-probe/verify.c), fio's names and defaults */
	unsigned verify;          /* enum iogap_verify_type */
	bool do_verify;           /* read back what a pass wrote; fio default 1 */
	bool verify_only;         /* the writes are only logged, then read back */
	bool verify_dump;         /* a failed block's data into a file (fio's) */
	unsigned verify_async;    /* fio's verify threads; the probe checks each
				   * read in its I/O thread, with the same result */
	bool verify_set;          /* verify= given: verify_pattern keeps it */
	uint8_t verify_pattern[512]; /* written; checked after the header with meta
				   * and pattern (fio's); len 0 = random data */
	unsigned verify_pattern_len;
	uint16_t verify_fmt_off[IOGAP_VERIFY_FMT_MAX]; /* each %o: the write's
				   * offset, 8 bytes little-endian, there */
	unsigned verify_fmt_nr;
	bool verify_state_save;   /* fio's local-NAME-N-verify.state at the end
				   * of a writing job (verify_state.c); default 1 */
	bool verify_state_load;   /* the read-back stops where that state's
				   * completed writes end */
	bool experimental_verify; /* fio replays the writes' offsets for the
				   * read-back instead of logging them; the
				   * probe's log reads back the same blocks */
	bool verify_fatal;        /* stop at the first failure even when
				   * continue_on_error covers verify */
	uint32_t verify_interval; /* bytes per header; finalize: fio's default */
	uint64_t verify_backlog;  /* read back after this many writes (0: at the end) */
	uint64_t verify_backlog_batch; /* blocks read back each time; 0 = backlog */

	/* I/O logs (guest-probe/iolog.c), fio's names and defaults */
	char *write_iolog;        /* fio's version 3 log of the issued I/O */
	char *read_iolog;         /* replay this log (text or blktrace) */
	char *replay_redirect;    /* every replayed I/O to this file */
	bool replay_no_stall;     /* replay as fast as possible */
	unsigned replay_time_scale; /* percent of the recorded rate; 100 */
	uint64_t replay_scale;    /* offsets divided by it; 1 */
	uint64_t replay_align;    /* offsets rounded down to it (power of 2) */
	unsigned replay_skip;     /* IOGAP_IOLOG_SKIP bits (blktrace only) */
	/* blktrace merging (guest-probe/blktrace_merge.c): read_iolog's
	 * captures merged into this file, which is then replayed */
	char *merge_blktrace_file;
	unsigned merge_scalars[IOGAP_MAX_MERGE_LOGS];   /* % of each capture's times */
	unsigned merge_iters[IOGAP_MAX_MERGE_LOGS];     /* passes over each capture */
	unsigned merge_scalars_nr, merge_iters_nr;      /* 0: 100% and 1 pass each */

	/* steady state (guest-probe/steadystate.c), fio's ss/ss_dur/ss_ramp */
	unsigned ss_state;        /* IOGAP_SS_IOPS|BW, SLOPE, PCT; fio's default
				   * iops_slope:0.01% */
	double ss_limit;
	uint64_t ss_dur_ns;       /* 0: off; used in whole seconds, as fio */
	uint64_t ss_ramp_ns;

	/* latency target (guest-probe/lat_target.c), fio's latency_* options */
	uint64_t latency_target_ns; /* 0: off; whole microseconds, as fio's */
	uint64_t latency_window_us;
	double latency_percentile; /* of the I/Os within the target; 100 */
	bool latency_run;         /* keep tuning the depth until the end */

	/* iogap additions */
	uint64_t null_latency_ns; /* null engine: each request takes this long
				   * (mirrors QEMU null-co latency-ns) */

	unsigned sig_figs;        /* significant_figures: 1..10 (fio default 4) */

	uint8_t buffer_pattern[512]; /* fio's buffer_pattern; len 0 = random data */
	unsigned buffer_pattern_len;

	/* ioengine=rbd and rados: fio's rbd and rados options (pool,
	 * clientname, clustername, busy_poll; rbdname is rbd's), and the
	 * ceph.conf path: iogap's ceph_conf, fio's rados conf (when unset
	 * $CEPH_CONF or Ceph's default search path, as fio's rbd) */
	char *rbd_clientname;
	char *rbd_pool;
	char *rbd_name;
	char *rbd_clustername;
	char *ceph_conf;
	bool rbd_busy_poll;
	int rados_touch_objects;  /* fio's touch_objects; -1 unset (rados: 1) */

	/* errors.c: fio's ignore_error lists (read, write, verify; empty: EIO
	 * and EILSEQ, fio's __NON_FATAL_ERR), error_dump, fill_device */
	int ignore_error[IOGAP_ERR_CLASSES][IOGAP_MAX_IGNORE_ERR];
	unsigned ignore_error_nr[IOGAP_ERR_CLASSES];
	bool error_dump;            /* print every I/O error, ignored ones too */
	bool fill_device;           /* write until ENOSPC/EDQUOT, which ends the job */

	/* prio.c: fio's prio/prioclass (ioprio_set for the job) and the
	 * libaio/io_uring cmdprio options (a priority per request) */
	struct iogap_prio_opts prio;

	/* numa.c: fio's numa_cpu_nodes, numa_mem_policy */
	struct iogap_numa_opts numa;

	/* dedupe.c: the content of written buffers (fio's dedupe_*,
	 * buffer_compress_*) */
	struct iogap_buf_opts bufopts;

	/* fio's process, file-handling and accounting options (jobproc.c) */
	struct iogap_job_proc proc;

	/* statistics, logs, buffers (engines/jobopts_data.c),
	 * fio's names and defaults */
	unsigned bw_avg_msec, iops_avg_msec; /* bwavgtime, iopsavgtime: the
				   * report's bw/iops sample windows (500) */
	unsigned log_entries;     /* fio's initial log size; the probe's logs
				   * grow as needed (1024) */
	uint32_t log_gz;          /* log_compression: chunk bytes; 0 = off */
	bool log_gz_store;        /* log_store_compressed: PREFIX_KIND.N.log.fz */
	bool log_unix_epoch, log_alternate_epoch; /* log times from this epoch */
	int log_epoch_clock;      /* log_alternate_epoch_clock_id (CLOCK_REALTIME) */
	bool block_error_hist;    /* block_error_percentiles: trims per block */
	bool stats;               /* fio default 1: 0 leaves the job out of the report */
	bool disk_util;           /* fio default 1: 0 leaves its disks out */
	unsigned unified_rw;      /* enum iogap_unified_rw */
	bool zero_buffers, zero_buffers_set;
	bool scramble_buffers, scramble_buffers_set; /* fio default 1 */
	unsigned trim_percentage; /* of the blocks logged for verify, trimmed */
	bool trim_zero;           /* trim_verify_zero: they read back zeros (1) */
	uint64_t trim_backlog;    /* trim after this many logged blocks (0: never) */
	unsigned trim_batch;      /* trim_backlog_batch: blocks per batch (0: backlog) */
	uint32_t verify_offset;   /* each verify header swapped with the bytes
				   * this far into its block (0: not) */

	/* every option set for this job, globals first, in file order */
	struct iogap_job_kv *kv;
	size_t kv_nr;
};

struct iogap_job_list {
	struct iogap_job *jobs;
	size_t nr;
	/* the first job file's [global] options, for JSON "global options" */
	struct iogap_job_kv *global_kv;
	size_t global_kv_nr;
	/* fio's --section: when nr_sections, job files' other sections are
	 * skipped unparsed ([global] is always read) */
	const char *const *sections;
	size_t nr_sections;
};

enum iogap_output_format {
	IOGAP_OUT_NORMAL = 1u << 0,
	IOGAP_OUT_TERSE  = 1u << 1,
	IOGAP_OUT_JSON   = 1u << 2,
	IOGAP_OUT_JSONPLUS = 1u << 3,
};

/* Parse a job file (path) and append its jobs to list.  Sections start
 * from defaults (fio's defaults when NULL; the command-line globals, as in
 * fio, otherwise).  Returns 0, or -1 with "file:line: message" in err. */
int iogap_jobfile_parse(const char *path, const struct iogap_job *defaults,
			struct iogap_job_list *list, char *err, size_t errlen);
/* fio's --showcmd: parse path (errors as iogap_jobfile_parse) and print
 * it to out as one "fio --key=value ... --name=job ..." line. */
int iogap_jobfile_showcmd(const char *path, FILE *out, char *err, size_t errlen);
/* Parse from memory; name is used in messages. */
int iogap_jobfile_parse_buf(const char *name, const char *text, size_t len,
			    const struct iogap_job *defaults, struct iogap_job_list *list,
			    char *err, size_t errlen);
/*
 * The job-file lexer, shared by the parser above and `iogap lint`: lines
 * trimmed; blank and ;/# comment lines skipped; "[name]" starts a section;
 * "include FILE" in a section lexes FILE's options there (fio's rule:
 * relative to the including file if not found as given; no sections);
 * any other line is an option "key[=value]" (trailing " #…"/" ;…" comment
 * dropped), rewritten first by expand when set (${VAR}).  Callbacks return
 * 0, or -1 after writing their message to err.  Returns 0, or -1 with
 * "name:line: message" in err.
 */
struct iogap_jobfile_lexer {
	void *ctx;
	int (*section)(void *ctx, const char *name, int line);
	int (*option)(void *ctx, const char *key, const char *val, int line);
	int (*expand)(void *ctx, const char *in, char *out, size_t outlen, int line);
	/* optional: "include FILE" switched the file the lines come from
	 * (name), and back to the including one */
	void (*file)(void *ctx, const char *name);
};
int iogap_jobfile_lex(const char *name, const char *text, size_t len,
		      const struct iogap_jobfile_lexer *lx, char *err, size_t errlen);
/* Fill defaults derived after parsing (fio's fixup_options). */
int iogap_job_finalize(struct iogap_job *job, char *err, size_t errlen);
/* read_iolog's list of logs needs merge_blktrace_file, whose lists of
 * scalars and iterations give one value per log: 0, or -1 with
 * "file:line: ..." in err (finalize checks it; read_iolog's replay first). */
int iogap_job_iolog_check(const struct iogap_job *j, char *err, size_t errlen);
void iogap_job_list_free(struct iogap_job_list *list);
/* size=, offset=, offset_increment= given in zones ("8z"): to bytes, once
 * the zone size is known (finalize does it when zonesize is set). */
void iogap_job_resolve_zones(struct iogap_job *job, uint64_t zone_size);

/* Command-line job options (fio style): options before the first
 * --name=X go into *global (initialised on first use); --name starts a
 * job copied from it.  0, or -1 with a message in err. */
int iogap_cmdline_add(struct iogap_job_list *list, struct iogap_job *global, bool *have_global,
		      const char *key, const char *val, char *err, size_t errlen);
void iogap_cmdline_global_free(struct iogap_job *global);

/* Set one option on a parsed job as if written in it (origin names the
 * source in messages).  0, or -1 with a message in err. */
int iogap_job_set(struct iogap_job *job, const char *origin, const char *key, const char *val,
		  char *err, size_t errlen);

/* jobperf.c: the steady-state and latency-target options (ss, ss_dur,
 * ss_ramp, latency_target, latency_window, latency_percentile and fio's
 * long names).  1 when key is not one of them, 0 when set, -1 with what is
 * wrong with val in why. */
int iogap_job_perf_option(struct iogap_job *j, const char *key, const char *val,
			  char *why, size_t whylen);

/* File k (0..nrfiles-1) of clone (0..numjobs-1) of a finalized job. */
static inline const char *iogap_job_file(const struct iogap_job *j, unsigned clone, unsigned k)
{
	return j->files[(j->files_per_clone ? clone * j->nrfiles : 0) + k];
}

/* jobfiles.c: the options that name and size a job's files (filename,
 * directory, filename_format, nrfiles, filesize, openfiles,
 * file_service_type, create_*, fallocate).  1 when key is not one of
 * them, 0 when set, -1 with what is wrong with val in why. */
int iogap_job_file_option(struct iogap_job *j, const char *key, const char *val,
			  char *why, size_t whylen);
/* jobfiles.c: fio's ':' list of names ("\:" keeps a colon, empty names
 * skipped), in a NULL-terminated array whose names point into *copy; the
 * caller frees both.  NULL when out of memory. */
char **iogap_split_names(const char *list, char **copy, unsigned *nr);
/* jobflow.c: flow_id, flow, flow_sleep, flow_watermark, io_submit_mode;
 * returns as iogap_job_file_option. */
int iogap_job_flow_option(struct iogap_job *j, const char *key, const char *val,
			  char *why, size_t whylen);
/* jobflow.c, for finalize: the engines io_submit_mode=offload cannot use.
 * 0, or -1 with why. */
int iogap_job_submit_check(const struct iogap_job *j, char *why, size_t whylen);
/* Build j->files as fio names them (once; later calls do nothing).
 * 0, or -1 with a message in err. */
int iogap_job_files_finalize(struct iogap_job *j, char *err, size_t errlen);
int iogap_job_files_copy(struct iogap_job *dst, const struct iogap_job *src);
void iogap_job_files_free(struct iogap_job *j);

/* jobproc.c: fio's process, file-handling and pacing options (struct
 * iogap_job_proc); returns as iogap_job_file_option. */
int iogap_job_proc_option(struct iogap_job *j, const char *key, const char *val,
			  char *why, size_t whylen);
void iogap_job_proc_defaults(struct iogap_job_proc *p);
/* fio's fixup_options for them: atomic implies direct, pre_read clears
 * invalidate, blockalign defaults to (and off it turns off the random
 * map of) the smallest block size. */
void iogap_job_proc_finalize(struct iogap_job *j);
int iogap_job_proc_copy(struct iogap_job_proc *dst, const struct iogap_job_proc *src);
void iogap_job_proc_free(struct iogap_job_proc *p);
/* jobopts_data.c: the statistics, log and buffer options (bwavgtime,
 * log_compression, stats, unified_rw_reporting, zero_buffers, ...): fio's defaults into j, and the same contract as
 * iogap_job_file_option. */
void iogap_job_data_defaults(struct iogap_job *j);
int iogap_job_data_option(struct iogap_job *j, const char *key, const char *val,
			  char *why, size_t whylen);

/* fio's name for an rw value ("randread"). */
const char *iogap_rw_name(unsigned rw);

/* fio value parsers, exposed for tests */
int iogap_parse_size(const char *s, uint64_t *out);           /* 4k, 1M, 10%? */
int iogap_parse_time_ns(const char *s, uint64_t default_unit_ns, uint64_t *out);
/* fio's unsigned integers up to max: 0, or -1 (booleans: util.h) */
int iogap_parse_uint(const char *s, unsigned long long max, unsigned long long *out);

#endif
