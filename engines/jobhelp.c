/* SPDX-License-Identifier: MIT */
/*
 * The job options' help texts (fio's --cmdhelp), one entry per option the
 * parser (jobfile.c and its option families) accepts.  The texts are
 * short descriptions in the probe's words; docs/iogap-probe.md has the
 * details.
 */
#include <limits.h>
#include <string.h>

#include "jobhelp.h"

#define STR IOGAP_OT_STR
#define SIZE IOGAP_OT_SIZE
#define TIME IOGAP_OT_TIME
#define INT IOGAP_OT_INT
#define BOOL IOGAP_OT_BOOL
#define SET IOGAP_OT_SET
#define RANGE IOGAP_OT_RANGE
#define FLOATS IOGAP_OT_FLOATS

const struct iogap_job_help iogap_job_helps[] = {
	/* job and target */
	{ "name", NULL, STR, "The job's name (starts a new job)" },
	{ "description", NULL, STR, "Free text describing the job" },
	{ "wait_for", NULL, STR, "Start only after the named earlier job has ended" },
	{ "filename", NULL, STR, "The file(s) or device(s) the job works on, ':' separated" },
	{ "directory", NULL, STR, "Where the job's files are created, ':' separated" },
	{ "filename_format", NULL, STR, "How file names are built ($jobname, $jobnum, $filenum)" },
	{ "unique_filename", NULL, BOOL, "fio's client prefix for file names (accepted, no clients)" },
	{ "opendir", NULL, STR, "Use every file under this directory" },
	{ "lockfile", NULL, STR, "Lock each file while doing I/O to it (none, exclusive, readwrite)" },
	{ "nrfiles", "nr_files", INT, "Spread the job over this many files" },
	{ "openfiles", NULL, INT, "Keep at most this many files open at once" },
	{ "file_service_type", NULL, STR, "Which file gets the next I/O (random, roundrobin, sequential, ...)" },
	{ "filesize", NULL, RANGE, "The size of each file, or a range of sizes" },
	{ "size", NULL, SIZE, "Bytes of the file(s) or device the job covers" },
	{ "offset", NULL, SIZE, "Where in each file the I/O starts" },
	{ "offset_align", NULL, SIZE, "Align a percentage offset to this size" },
	{ "offset_increment", NULL, SIZE, "Each clone's offset is this much past the previous one's" },
	{ "io_size", "io_limit", SIZE, "Bytes of I/O to do, if not size" },
	{ "number_ios", NULL, SIZE, "Stop the job after this many I/Os" },
	{ "fill_device", "fill_fs", BOOL, "Write until the device or file system is full" },
	{ "file_append", NULL, BOOL, "Start I/O at the end of each file" },
	{ "allow_file_create", NULL, BOOL, "Create files that do not exist" },
	{ "allow_mounted_write", NULL, BOOL, "Permit writes to a mounted device" },
	{ "create_on_open", NULL, BOOL, "Create each file when it is opened for I/O" },
	{ "create_only", NULL, BOOL, "Only lay the files out, do no I/O" },
	{ "create_fsync", NULL, BOOL, "fsync each file after laying it out" },
	{ "create_serialize", NULL, BOOL, "Lay the clones' files out one at a time" },
	{ "fallocate", NULL, STR, "How files are reserved when laid out (none, native, posix, keep, truncate)" },
	{ "pre_read", NULL, BOOL, "Read the files into the page cache before starting" },
	{ "invalidate", NULL, BOOL, "Drop the files' page cache before starting" },
	{ "overwrite", NULL, BOOL, "Lay files out so that writes overwrite data" },
	{ "unlink", NULL, BOOL, "Delete the job's files when it ends" },
	{ "unlink_each_loop", NULL, BOOL, "Delete the job's files after each loop" },
	{ "ioscheduler", NULL, STR, "Switch the device to this I/O scheduler" },
	/* block sizes and pattern */
	{ "bs", "blocksize", SIZE, "Block size, per direction (read,write,trim)" },
	{ "bsrange", "blocksize_range", RANGE, "Block sizes drawn from this range, per direction" },
	{ "bssplit", NULL, STR, "A weighted mix of block sizes (bs/percent:...)" },
	{ "bs_unaligned", NULL, SET, "Block sizes from a range need not be sector multiples" },
	{ "ba", "blockalign", SIZE, "Random offsets are multiples of this, per direction" },
	{ "rw", "readwrite", STR, "The I/O pattern (read, write, randrw, ...) and its :N modifier" },
	{ "rw_sequencer", NULL, STR, "What the :N of rw counts (sequential, identical)" },
	{ "rwmixread", NULL, INT, "Percent of a mixed workload that reads" },
	{ "rwmixwrite", NULL, INT, "Percent of a mixed workload that writes" },
	{ "percentage_random", NULL, INT, "Percent of I/Os at random offsets, per direction" },
	{ "norandommap", NULL, SET, "Random offsets may repeat (no map of blocks done)" },
	{ "randrepeat", NULL, BOOL, "The same random offsets on every run" },
	{ "allrandrepeat", NULL, BOOL, "Every random generator repeatable" },
	{ "randseed", NULL, SIZE, "Seed of the random generators" },
	{ "random_distribution", NULL, STR, "Distribution of random offsets (random, zipf, pareto, normal, zoned, ...)" },
	{ "random_generator", NULL, STR, "Random generator (tausworthe, lfsr, tausworthe64)" },
	{ "serialize_overlap", NULL, BOOL, "Wait for in-flight I/Os an I/O overlaps" },
	/* engine and depth */
	{ "ioengine", NULL, STR, "How I/O is submitted (psync, libaio, io_uring, ...)" },
	{ "iodepth", NULL, INT, "I/Os kept in flight" },
	{ "iodepth_batch", "iodepth_batch_submit", INT, "I/Os submitted at once" },
	{ "iodepth_batch_complete_min", "iodepth_batch_complete", INT, "Fewest completions reaped at once" },
	{ "iodepth_batch_complete_max", NULL, INT, "Most completions reaped at once" },
	{ "iodepth_low", NULL, INT, "Refill the queue when it drains to this depth" },
	{ "io_submit_mode", NULL, STR, "Submit in the job (inline) or from helper threads (offload)" },
	{ "hipri", NULL, SET, "Polled completions (RWF_HIPRI, IORING_SETUP_IOPOLL)" },
	{ "hipri_percentage", NULL, INT, "pvsync2: percent of I/Os with RWF_HIPRI" },
	{ "nowait", NULL, BOOL, "Fail rather than block (RWF_NOWAIT)" },
	{ "uncached", NULL, INT, "Buffered I/O that leaves no page cache (RWF_UNCACHED)" },
	{ "force_async", NULL, INT, "io_uring: IOSQE_ASYNC on every Nth request" },
	{ "userspace_reap", NULL, SET, "libaio: reap completions from user space" },
	{ "thp", NULL, INT, "mmap: ask for transparent huge pages" },
	{ "fixedbufs", NULL, SET, "io_uring: register the I/O buffers" },
	{ "registerfiles", NULL, SET, "io_uring: register the files" },
	{ "sqthread_poll", NULL, SET, "io_uring: a kernel thread polls the submission queue" },
	{ "sqthread_poll_cpu", NULL, INT, "io_uring: the CPU of that kernel thread" },
	{ "nonvectored", NULL, INT, "io_uring: plain READ/WRITE instead of READV/WRITEV" },
	{ "cmd_type", NULL, STR, "io_uring_cmd: the passthrough command set (nvme)" },
	/* time */
	{ "runtime", "timeout", TIME, "Stop the job after this long" },
	{ "time_based", NULL, SET, "Run for the whole runtime, repeating the workload" },
	{ "ramp_time", NULL, TIME, "Run this long before counting statistics" },
	{ "startdelay", NULL, TIME, "Wait this long before starting" },
	{ "thinktime", NULL, TIME, "Pause this long between I/O batches (plain numbers: usec)" },
	{ "thinktime_spin", NULL, TIME, "Spend this part of the pause spinning" },
	{ "thinktime_blocks", NULL, INT, "I/Os between pauses" },
	{ "thinktime_blocks_type", NULL, STR, "What thinktime_blocks counts (complete, issue)" },
	{ "thinktime_iotime", NULL, TIME, "Pause after this much time of I/O" },
	{ "max_latency", NULL, TIME, "Fail the job when an I/O takes longer (plain numbers: usec)" },
	{ "loops", NULL, INT, "Run the workload this many times" },
	/* I/O flags */
	{ "direct", NULL, BOOL, "O_DIRECT I/O" },
	{ "buffered", NULL, BOOL, "Buffered I/O (the opposite of direct)" },
	{ "atomic", NULL, BOOL, "Atomic writes (O_DIRECT and RWF_ATOMIC)" },
	{ "sync", NULL, STR, "Synchronous writes (O_SYNC or O_DSYNC)" },
	{ "fsync", NULL, INT, "fsync after this many writes" },
	{ "fdatasync", NULL, INT, "fdatasync after this many writes" },
	{ "sync_file_range", NULL, STR, "sync_file_range after this many writes, with these flags" },
	{ "end_fsync", NULL, BOOL, "fsync at the end of the job" },
	{ "fsync_on_close", NULL, BOOL, "fsync each file when it is closed" },
	{ "write_barrier", NULL, INT, "Every Nth write is a barrier write" },
	{ "write_hint", NULL, STR, "Write lifetime hint of the files" },
	{ "fadvise_hint", NULL, STR, "posix_fadvise advice for the files" },
	/* process */
	{ "numjobs", NULL, INT, "Run this many clones of the job" },
	{ "thread", "threads", SET, "Clones are threads, not processes" },
	{ "nice", NULL, INT, "The job's nice value" },
	{ "prio", NULL, INT, "The job's I/O priority level" },
	{ "prioclass", NULL, INT, "The job's I/O priority class" },
	{ "cmdprio_percentage", NULL, INT, "Percent of I/Os sent with cmdprio's priority" },
	{ "cmdprio_class", NULL, INT, "Priority class of those I/Os" },
	{ "cmdprio", NULL, INT, "Priority level of those I/Os" },
	{ "cmdprio_bssplit", NULL, STR, "Per block size percentages and priorities of I/Os" },
	{ "uid", NULL, INT, "Run the job as this user" },
	{ "gid", NULL, INT, "Run the job as this group" },
	{ "cgroup", NULL, STR, "Run the job in this cgroup" },
	{ "cgroup_weight", NULL, INT, "The cgroup's I/O weight" },
	{ "cgroup_nodelete", NULL, BOOL, "Keep the cgroup after the job" },
	{ "cpumask", NULL, INT, "CPUs the job may run on, as a bit mask" },
	{ "cpus_allowed", NULL, STR, "CPUs the job may run on, as a list" },
	{ "cpus_allowed_policy", NULL, STR, "How clones share those CPUs (shared, split)" },
	{ "numa_cpu_nodes", NULL, STR, "Run the job on these NUMA nodes" },
	{ "numa_mem_policy", NULL, STR, "NUMA memory policy of the job" },
	{ "gtod_cpu", NULL, INT, "Keep this CPU free of the job (fio's time thread's CPU)" },
	{ "lockmem", NULL, SIZE, "Lock this much memory while the job runs" },
	{ "mem", "iomem", STR, "Where I/O buffers come from (malloc, shm, mmap, ...)" },
	{ "hugepage-size", NULL, SIZE, "Huge page size for huge page buffers" },
	{ "exec_prerun", NULL, STR, "Run this command before the job" },
	{ "exec_postrun", NULL, STR, "Run this command after the job" },
	{ "exitall", NULL, SET, "Stop every job when this one ends" },
	{ "exitall_on_error", NULL, SET, "Stop every job when this one fails" },
	{ "exit_what", NULL, STR, "Which jobs exitall stops (group, stonewall, all)" },
	{ "stonewall", "wait_for_previous", SET, "Wait for the earlier jobs to end first" },
	{ "new_group", NULL, SET, "Start a new reporting group" },
	{ "group_reporting", NULL, SET, "Report a group as one" },
	{ "continue_on_error", NULL, STR, "Which errors do not stop the job (none, read, write, io, ...)" },
	{ "ignore_error", NULL, STR, "Errors to carry on after, per direction" },
	{ "error_dump", NULL, BOOL, "Print every error" },
	{ "profile", NULL, STR, "Accepted and ignored, as fio 3.33 (profiles: --profile=NAME)" },
	{ "kb_base", NULL, INT, "1024 or 1000: the base of size units" },
	{ "unit_base", NULL, INT, "Bandwidth in bytes (8) or bits (1)" },
	/* rate and flow */
	{ "rate", NULL, SIZE, "Bandwidth limit, per direction" },
	{ "rate_iops", NULL, INT, "IOPS limit, per direction" },
	{ "rate_min", "ratemin", SIZE, "Fail the job below this bandwidth" },
	{ "rate_iops_min", NULL, INT, "Fail the job below these IOPS" },
	{ "rate_cycle", "ratecycle", INT, "Window of the minimum rates (msec)" },
	{ "rate_process", NULL, STR, "How rated I/Os are spaced (linear, poisson)" },
	{ "rate_ignore_thinktime", NULL, BOOL, "Rated I/O does not count think time" },
	{ "flow_id", NULL, INT, "The flow this job shares" },
	{ "flow", NULL, INT, "The job's weight in its flow" },
	{ "flow_sleep", NULL, INT, "Sleep this long when the flow holds the job (usec)" },
	{ "flow_watermark", NULL, INT, "Deprecated in fio, no effect" },
	/* steady state and latency target */
	{ "steadystate", "ss", STR, "Stop when this metric is steady (iops, bw, _slope)" },
	{ "steadystate_duration", "ss_dur", TIME, "The window steady state is judged over" },
	{ "steadystate_ramp_time", "ss_ramp", TIME, "Wait this long before judging steady state" },
	{ "latency_target", NULL, TIME, "Find the deepest queue meeting this latency" },
	{ "latency_window", NULL, TIME, "The window the target must be met over" },
	{ "latency_percentile", NULL, FLOATS, "Percent of I/Os that must meet the target" },
	{ "latency_run", NULL, BOOL, "Keep adjusting the depth all run" },
	/* I/O logs */
	{ "write_iolog", NULL, STR, "Write the job's I/Os to this file" },
	{ "read_iolog", NULL, STR, "Replay the I/Os of this iolog or blktrace file" },
	{ "read_iolog_chunked", NULL, BOOL, "Read the replayed log in chunks" },
	{ "replay_no_stall", NULL, BOOL, "Replay as fast as possible, ignoring the log's times" },
	{ "replay_redirect", NULL, STR, "Replay every I/O onto this device" },
	{ "replay_time_scale", NULL, INT, "Replay time scale, percent" },
	{ "replay_scale", NULL, INT, "Divide replayed offsets by this" },
	{ "replay_align", NULL, INT, "Align replayed offsets to this" },
	{ "replay_skip", NULL, STR, "Replay no I/Os of these kinds (read, write, trim, sync)" },
	{ "merge_blktrace_file", NULL, STR, "Merge the read_iolog blktrace captures into this file" },
	{ "merge_blktrace_scalars", NULL, STR, "Each capture's times in percent, ':' separated" },
	{ "merge_blktrace_iters", NULL, STR, "How often each capture repeats, ':' separated" },
	/* logs and statistics */
	{ "write_lat_log", NULL, STR, "Log the latencies, under this prefix" },
	{ "write_bw_log", NULL, STR, "Log the bandwidth, under this prefix" },
	{ "write_iops_log", NULL, STR, "Log the IOPS, under this prefix" },
	{ "write_hist_log", NULL, STR, "Log latency histograms, under this prefix" },
	{ "log_avg_msec", NULL, INT, "Average log samples over this window (msec)" },
	{ "log_max_value", NULL, BOOL, "Log a window's largest sample, not its mean" },
	{ "log_hist_msec", NULL, INT, "Histogram log period (msec)" },
	{ "log_hist_coarseness", NULL, INT, "0-6: fewer histogram bins the higher" },
	{ "log_offset", NULL, BOOL, "Log each I/O's offset" },
	{ "log_prio", NULL, BOOL, "Log each I/O's priority" },
	{ "per_job_logs", NULL, BOOL, "One log per clone" },
	{ "log_compression", NULL, SIZE, "Keep logs deflated in chunks of this size" },
	{ "log_compression_cpus", NULL, STR, "CPUs the log compression runs on" },
	{ "log_store_compressed", NULL, BOOL, "Write the logs deflated (.fz)" },
	{ "log_unix_epoch", NULL, BOOL, "Log times from the Unix epoch" },
	{ "log_alternate_epoch", NULL, BOOL, "Log times from another clock's epoch" },
	{ "log_alternate_epoch_clock_id", NULL, INT, "That clock's clock_gettime id" },
	{ "log_entries", NULL, INT, "fio's initial log size (checked only)" },
	{ "bwavgtime", NULL, INT, "Bandwidth sample window (msec)" },
	{ "iopsavgtime", NULL, INT, "IOPS sample window (msec)" },
	{ "percentile_list", NULL, FLOATS, "The latency percentiles reported" },
	{ "clat_percentiles", NULL, BOOL, "Report completion latency percentiles" },
	{ "lat_percentiles", NULL, BOOL, "Report total latency percentiles" },
	{ "slat_percentiles", NULL, BOOL, "Report submission latency percentiles" },
	{ "significant_figures", NULL, INT, "Digits of the normal output's numbers" },
	{ "gtod_reduce", NULL, BOOL, "No latency or bandwidth statistics" },
	{ "disable_lat", NULL, BOOL, "No total latency statistics" },
	{ "disable_clat", NULL, BOOL, "No completion latency statistics" },
	{ "disable_slat", NULL, BOOL, "No submission latency statistics" },
	{ "disable_bw_measurement", "disable_bw", BOOL, "No bandwidth statistics" },
	{ "clocksource", NULL, STR, "The clock of the timestamps (clock_gettime, ...)" },
	{ "stats", NULL, BOOL, "Collect and report the job's statistics" },
	{ "disk_util", NULL, BOOL, "Report the disks' utilization" },
	{ "unified_rw_reporting", NULL, STR, "Report the directions summed (mixed) or both" },
	{ "block_error_percentiles", NULL, BOOL, "Track trims per block and report them" },
	/* verify */
	{ "verify", NULL, STR, "Checksum written blocks and check them (md5, crc32c, sha256, pattern, ...)" },
	{ "do_verify", NULL, BOOL, "Read back and check after writing" },
	{ "verify_fatal", NULL, BOOL, "Stop at the first bad block" },
	{ "verify_dump", NULL, BOOL, "Save a bad block's data" },
	{ "verify_async", NULL, INT, "Checking threads" },
	{ "verify_interval", NULL, INT, "A header every this many bytes" },
	{ "verify_offset", NULL, INT, "Put the header this far into the block" },
	{ "verify_backlog", NULL, INT, "Check after this many blocks are written" },
	{ "verify_backlog_batch", NULL, INT, "Blocks checked at a time" },
	{ "verify_only", NULL, SET, "Only check data written before" },
	{ "verify_pattern", NULL, STR, "The pattern written and checked (%o: the block's offset)" },
	{ "verify_state_save", NULL, BOOL, "Save the completed writes at the end (verify state)" },
	{ "verify_state_load", NULL, BOOL, "Check only what the saved verify state says completed" },
	{ "experimental_verify", NULL, BOOL, "fio's replayed verify (the same blocks here)" },
	{ "trim_percentage", NULL, INT, "Percent of checked blocks trimmed" },
	{ "trim_backlog", NULL, SIZE, "Trim after this many blocks are written" },
	{ "trim_backlog_batch", NULL, INT, "Blocks trimmed at a time" },
	{ "trim_verify_zero", NULL, BOOL, "Trimmed blocks must read back as zeros" },
	/* buffers */
	{ "refill_buffers", NULL, SET, "New data for every write" },
	{ "zero_buffers", NULL, SET, "Buffers start as zeros" },
	{ "scramble_buffers", NULL, BOOL, "Make each write's buffer a little different" },
	{ "buffer_pattern", NULL, STR, "Fill write buffers with this pattern" },
	{ "buffer_compress_percentage", NULL, INT, "How compressible write buffers are, percent" },
	{ "buffer_compress_chunk", NULL, SIZE, "Size of the compressible runs" },
	{ "dedupe_percentage", NULL, INT, "Percent of writes that repeat an earlier buffer" },
	{ "dedupe_mode", NULL, STR, "How repeated buffers are picked (repeat, working_set)" },
	{ "dedupe_working_set_percentage", NULL, INT, "Share of the target the repeats come from" },
	{ "dedupe_global", NULL, BOOL, "Repeats shared between jobs" },
	/* zones */
	{ "zonemode", NULL, STR, "How zones are used (none, strided, zbd)" },
	{ "zonesize", NULL, SIZE, "Bytes done per zone (strided), zone size (zbd)" },
	{ "zonecapacity", NULL, SIZE, "Usable bytes of a zone" },
	{ "zonerange", NULL, SIZE, "Size of a strided zone" },
	{ "zoneskip", NULL, SIZE, "Bytes skipped between zones" },
	{ "read_beyond_wp", NULL, BOOL, "zbd: read past write pointers too" },
	{ "max_open_zones", NULL, INT, "zbd: zones open for writing at once" },
	{ "job_max_open_zones", NULL, INT, "zbd: of them, this job's" },
	{ "ignore_zone_limits", NULL, BOOL, "zbd: ignore the device's open zone limits" },
	{ "zone_reset_threshold", NULL, FLOATS, "zbd: reset zones past this share of data written" },
	{ "zone_reset_frequency", NULL, FLOATS, "zbd: how often zones are reset" },
	/* Ceph */
	{ "pool", NULL, STR, "rbd/rados: the Ceph pool" },
	{ "rbdname", NULL, STR, "rbd: the image" },
	{ "clientname", NULL, STR, "rbd/rados: the Ceph client name" },
	{ "clustername", NULL, STR, "rbd/rados: the Ceph cluster name" },
	{ "ceph_conf", "conf", STR, "rbd/rados: a ceph.conf" },
	{ "busy_poll", NULL, BOOL, "rbd/rados: poll for completions" },
	{ "touch_objects", NULL, BOOL, "rados: create the objects at the start" },
};

const size_t iogap_nr_job_helps = sizeof(iogap_job_helps) / sizeof(iogap_job_helps[0]);

/* fio's show_option_help typehelp texts */
static const char *const type_texts[] = {
	[IOGAP_OT_STR] = "string (opt=bla)",
	[IOGAP_OT_SIZE] = "string with possible k/m/g postfix (opt=4k)",
	[IOGAP_OT_TIME] = "string with time postfix (opt=10s)",
	[IOGAP_OT_INT] = "integer value (opt=100)",
	[IOGAP_OT_BOOL] = "boolean value (opt=1)",
	[IOGAP_OT_SET] = "empty or boolean value ([0|1])",
	[IOGAP_OT_RANGE] = "one to three ranges (opt=1k-4k[,4k-8k[,1k-8k]])",
	[IOGAP_OT_FLOATS] = "list of floating point values separated by ':' (opt=5.9:7.8)",
};

static void show_one(FILE *out, const struct iogap_job_help *h)
{
	fprintf(out, "%20s: %s\n", h->name, h->help);
	if (h->alias)
		fprintf(out, "%20s: %s\n", "alias", h->alias);
	fprintf(out, "%20s: %s\n", "type", type_texts[h->type]);
}

/* Levenshtein distance of a and b (fio's string_distance), at most 255 */
static unsigned distance(const char *a, const char *b)
{
	unsigned row[2][256];
	size_t la = strnlen(a, 255), lb = strnlen(b, 255);

	for (size_t j = 0; j <= lb; j++)
		row[0][j] = (unsigned)j;
	for (size_t i = 1; i <= la; i++) {
		unsigned *p = row[(i - 1) & 1], *q = row[i & 1];

		q[0] = (unsigned)i;
		for (size_t j = 1; j <= lb; j++) {
			unsigned sub = p[j - 1] + (a[i - 1] != b[j - 1]);
			unsigned ins = q[j - 1] + 1, del = p[j] + 1;

			q[j] = sub < ins ? (sub < del ? sub : del) : (ins < del ? ins : del);
		}
	}
	return row[la & 1][lb];
}

int iogap_job_help_show(FILE *out, const char *name)
{
	const struct iogap_job_help *closest = NULL;
	unsigned best = UINT_MAX;

	for (size_t i = 0; i < iogap_nr_job_helps; i++) {
		const struct iogap_job_help *h = &iogap_job_helps[i];

		if (!name || !strcmp(name, "all")) {
			fprintf(out, "%-24s: %s\n", h->name, h->help);
		} else if (!strcmp(name, h->name) || (h->alias && !strcmp(name, h->alias))) {
			show_one(out, h);
			return 0;
		} else if (distance(name, h->name) < best) {
			best = distance(name, h->name);
			closest = h;
		}
	}
	if (!closest)
		return 0;
	/* fio's shape: the error without a newline, then on its output the
	 * closest name when it is less than 3 edits away */
	fprintf(stderr, "No such command: %s", name);
	fflush(stderr);
	if (best < 3) {
		fputs(" - showing closest match\n", out);
		show_one(out, closest);
	} else {
		fputc('\n', out);
	}
	return 1;
}
