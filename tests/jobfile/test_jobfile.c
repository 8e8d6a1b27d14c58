/* SPDX-License-Identifier: MIT */
/* Job-file parsing: fio syntax, defaults, and every rejection's message. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "../tap.h"
#include "engine.h"
#include "job.h"

static char err[1024];

static int parse(const char *text, struct iogap_job_list *l)
{
	memset(l, 0, sizeof(*l));
	err[0] = '\0';
	return iogap_jobfile_parse_buf("t.fio", text, strlen(text), NULL, l, err, sizeof(err));
}

/* parse must fail and err must contain want */
static void rejects(const char *text, const char *want, const char *what)
{
	struct iogap_job_list l;
	int r = parse(text, &l);

	ok(r == -1 && strstr(err, want) != NULL, "rejects %s: \"%s\"", what, err);
	iogap_job_list_free(&l);
}

static void test_sizes_and_times(void)
{
	uint64_t v = 0;

	ok(!iogap_parse_size("4k", &v) && v == 4096, "4k = 4096");
	ok(!iogap_parse_size("1M", &v) && v == 1048576, "1M = 1048576");
	ok(!iogap_parse_size("4KiB", &v) && v == 4096, "4KiB = 4096");
	ok(!iogap_parse_size("2g", &v) && v == 2147483648ULL, "2g");
	ok(!iogap_parse_size("512", &v) && v == 512, "plain bytes");
	ok(iogap_parse_size("4q", &v) == -1, "4q rejected");
	ok(iogap_parse_size("", &v) == -1, "empty size rejected");
	ok(iogap_parse_size("99999999999999999999k", &v) == -1, "overflow rejected");
	ok(!iogap_parse_time_ns("30", 1000000000ULL, &v) && v == 30000000000ULL, "runtime 30 = 30 s");
	ok(!iogap_parse_time_ns("500ms", 1000000000ULL, &v) && v == 500000000ULL, "500ms");
	ok(!iogap_parse_time_ns("2m", 1000000000ULL, &v) && v == 120000000000ULL, "2m = 120 s");
	ok(iogap_parse_time_ns("5x", 1000000000ULL, &v) == -1, "5x rejected");
}

static void test_seed_profile(void)
{
	struct iogap_job_list l;
	const char *src = getenv("IOGAP_SRC");
	char path[4096];
	int r;

	setenv("BLKSIZE", "4k", 1);
	setenv("IODEPTH", "32", 1);
	setenv("NUMJOBS", "2", 1);
	setenv("RUNTIME", "60", 1);
	setenv("DEVICE", "/tmp/x", 1);
	snprintf(path, sizeof(path), "%s/tests/data/seed-profile.fio", src ? src : ".");
	memset(&l, 0, sizeof(l));
	r = iogap_jobfile_parse(path, NULL, &l, err, sizeof(err));
	ok(r == 0, "seed profile parses (%s)", r ? err : "ok");
	ok(l.nr == 6, "six job sections (%zu)", l.nr);
	if (l.nr == 6) {
		ok(!strcmp(l.jobs[0].name, "seq-write") && l.jobs[0].rw == IOGAP_RW_WRITE,
		   "seq-write is rw=write");
		ok(l.jobs[3].rw == (IOGAP_RW_READ | IOGAP_RW_RAND), "rand-read is randread");
		ok(l.jobs[4].rwmix[1] == 20 && l.jobs[4].rwmix[0] == 80, "rwmixwrite=20 → 80/20");
		ok(l.jobs[5].stonewall == false && l.jobs[4].stonewall, "last section has no stonewall");
		ok(l.jobs[0].iodepth == 32 && l.jobs[0].bs[0] == 4096 && l.jobs[0].numjobs == 2,
		   "${VAR}s expanded: iodepth, bs, numjobs");
		ok(l.jobs[0].direct && l.jobs[0].time_based && l.jobs[0].norandommap &&
		   l.jobs[0].group_reporting, "globals inherited: direct, time_based, norandommap, group_reporting");
		ok(l.jobs[0].runtime_ns == 60000000000ULL && l.jobs[0].ramp_time_ns == 30000000000ULL,
		   "runtime and ramp_time in seconds");
		ok(!strcmp(l.jobs[2].filename, "/tmp/x") && !strcmp(l.jobs[2].ioengine, "libaio"),
		   "filename and ioengine");
		ok(l.jobs[1].cpus_allowed_policy == IOGAP_CPUS_SPLIT, "cpus_allowed_policy=split");
	}
	iogap_job_list_free(&l);
}

static void test_syntax(void)
{
	struct iogap_job_list l;
	int r;

	r = parse("; comment\n# comment\n[global]\nbs=4k,16k\nrw=randrw:8\n"
		  "rw_sequencer=identical\n\n[a]\nfilename=/tmp/a ; trailing comment\n"
		  "size=1m\nrwmixread=70\n[b]\nfilename=/tmp/b\nbssplit=4k/50:64k/50\n"
		  "random_distribution=zipf:1.1\npercentile_list=99.9:50\n", &l);
	ok(r == 0, "fio syntax parses (%s)", r ? err : "");
	if (!r) {
		ok(l.nr == 2, "two jobs");
		ok(l.jobs[0].bs[0] == 4096 && l.jobs[0].bs[1] == 16384 && l.jobs[0].bs[2] == 16384,
		   "bs=4k,16k: read 4k, write and trim 16k");
		ok(l.jobs[0].rw_seq_nr == 8 && l.jobs[0].rw_sequencer == IOGAP_RWSEQ_IDENTICAL,
		   "rw=randrw:8 with rw_sequencer=identical");
		ok(!strcmp(l.jobs[0].filename, "/tmp/a"), "trailing comment stripped");
		ok(l.jobs[0].rwmix[0] == 70 && l.jobs[0].rwmix[1] == 30, "rwmixread=70");
		ok(l.jobs[1].bssplit_nr[0] == 2 && l.jobs[1].bssplit[0][1].bs == 65536,
		   "bssplit parsed");
		ok(l.jobs[1].random_distribution == IOGAP_RAND_ZIPF &&
		   l.jobs[1].random_dist_param > 1.09 && l.jobs[1].random_dist_param < 1.11,
		   "zipf:1.1");
		ok(iogap_job_finalize(&l.jobs[1], err, sizeof(err)) == 0 &&
		   l.jobs[1].percentile_list[0] == 50.0 && l.jobs[1].percentile_nr == 2,
		   "percentile_list sorted by finalize");
		ok(l.jobs[0].kv_nr >= 5, "options remembered for JSON job options (%zu)", l.jobs[0].kv_nr);
	}
	iogap_job_list_free(&l);
	r = parse("[c]\nbssplit=4k:8k/50:32k:64k/10\n", &l);
	ok(!r && l.jobs[0].bssplit[0][0].bs == 65536 && l.jobs[0].bssplit[0][0].perc == 10 &&
	   l.jobs[0].bssplit[0][1].bs == 4096 && l.jobs[0].bssplit[0][1].perc == 20 &&
	   l.jobs[0].bssplit[0][2].bs == 32768 && l.jobs[0].bssplit[0][2].perc == 20 &&
	   l.jobs[0].bssplit[0][3].bs == 8192 && l.jobs[0].bssplit[0][3].perc == 50,
	   "bssplit as fio's bssplit_ddir: missing shares (100-60)/2, ordered by share, ties kept");
	iogap_job_list_free(&l);

	r = parse("[j]\nfilename=/tmp/j\n", &l);
	ok(r == 0 && iogap_job_finalize(&l.jobs[0], err, sizeof(err)) == 0, "minimal job");
	if (!r) {
		const struct iogap_job *j = &l.jobs[0];

		ok(!strcmp(j->ioengine, "psync") && j->iodepth == 1 && j->bs[0] == 4096 &&
		   j->rw == IOGAP_RW_READ && j->invalidate && j->randrepeat && j->numjobs == 1 &&
		   j->percentile_nr == 17 && j->rwmix[0] == 50,
		   "fio defaults: psync, iodepth 1, bs 4k, rw read, invalidate, randrepeat, 17 percentiles");
	}
	iogap_job_list_free(&l);
}

static void test_rejections(void)
{
	unsetenv("IOGAP_NO_SUCH_VAR");
	rejects("[j]\nfilename=/tmp/x\nfrobnicate=1\n", "t.fio:3: option 'frobnicate' is not supported",
		"unknown option with file:line");
	rejects("[j]\nbs=4q\n", "t.fio:2: option 'bs': bad value '4q'", "bad size value");
	rejects("[j]\nrw=sideways\n", "option 'rw': bad value 'sideways'", "bad rw value");
	rejects("[j]\niodepth=0\n", "option 'iodepth': bad value '0'", "iodepth=0");
	rejects("[j]\ndirect=maybe\n", "option 'direct': bad value 'maybe'", "bad bool");
	rejects("bs=4k\n[j]\n", "t.fio:1: option 'bs=4k' outside of a [section]", "missing section");
	rejects("[global]\nbs=4k\n", "no job sections", "only [global]");
	rejects("[j]\nbs=${IOGAP_NO_SUCH_VAR}\n", "t.fio:2: environment variable 'IOGAP_NO_SUCH_VAR' is not set",
		"unset ${VAR}");
	rejects("[j]\nbs=${BROKEN\n", "unterminated '${'", "unterminated ${");
	rejects("[j]\nsize=0\n", "option 'size': bad value '0' (size must be greater than 0)", "size 0");
	rejects("[j\n", "bad section header", "bad section header");
	rejects("[j]\nioengine=spdk\n", "engine 'spdk' is not supported", "unknown engine");
	rejects("[j]\nsize=150%\n", "option 'size': bad value '150%' (a percentage must be in (0%, 100%])",
		"percentage above 100");
	rejects("[j]\noffset=0%\n", "option 'offset': bad value '0%'", "offset of 0%");
	rejects("[j]\nrandom_distribution=gauss\n", "distribution 'gauss' is not supported",
		"unsupported distribution");
	rejects("[j]\n=5\n", "missing option name", "empty key");
	rejects("[j]\nbssplit=4k/80:8k/80\n", "more than 100", "bssplit over 100%");
	rejects("[j]\nzonemode=zoned\n", "expected none, strided or zbd", "unknown zonemode");

	{
		struct iogap_job_list l;
		int r = parse("[j]\nfilename=/tmp/x\nsize=4k\nbs=8k\n", &l);

		ok(r == 0 && iogap_job_finalize(&l.jobs[0], err, sizeof(err)) == -1 &&
		   strstr(err, "t.fio:1: job 'j': block size 8192 is larger than size 4096"),
		   "bs > size rejected: \"%s\"", err);
		iogap_job_list_free(&l);
	}
	{
		struct iogap_job_list l = { 0 };
		int r = iogap_jobfile_parse("/nonexistent/iogap.fio", NULL, &l, err, sizeof(err));

		ok(r == -1 && strstr(err, "/nonexistent/iogap.fio: cannot open job file"),
		   "unreadable file: \"%s\"", err);
	}
}

static void test_cmdline(void)
{
	struct iogap_job_list l = { 0 };
	struct iogap_job g;
	bool have = false;
	int r = 0;

	r |= iogap_cmdline_add(&l, &g, &have, "bs", "8k", err, sizeof(err));
	r |= iogap_cmdline_add(&l, &g, &have, "name", "one", err, sizeof(err));
	r |= iogap_cmdline_add(&l, &g, &have, "rw", "randwrite", err, sizeof(err));
	r |= iogap_cmdline_add(&l, &g, &have, "name", "two", err, sizeof(err));
	ok(r == 0 && l.nr == 2, "two command-line jobs");
	if (l.nr == 2)
		ok(l.jobs[0].bs[0] == 8192 && l.jobs[1].bs[0] == 8192 &&
		   l.jobs[0].rw == (IOGAP_RW_WRITE | IOGAP_RW_RAND) && l.jobs[1].rw == IOGAP_RW_READ,
		   "globals before --name apply to all; options after apply to that job");
	r = iogap_cmdline_add(&l, &g, &have, "bogus", "1", err, sizeof(err));
	ok(r == -1 && strstr(err, "command line: option 'bogus' is not supported"),
	   "command-line error names the option: \"%s\"", err);
	iogap_cmdline_global_free(&g);
	iogap_job_list_free(&l);
}

/* parse and finalize one job; returns it in *l (free it) or NULL */
static struct iogap_job *one_job(const char *text, struct iogap_job_list *l)
{
	if (parse(text, l) || l->nr != 1 || iogap_job_finalize(&l->jobs[0], err, sizeof(err)))
		return NULL;
	return &l->jobs[0];
}

/* fio options of a later batch, as parsed (their runs: tests/probe/test_options.sh). */
static void test_fio_options(void)
{
	struct iogap_job_list l;
	struct iogap_job *j;

	j = one_job("[j]\nrw=read:-8k\n", &l);
	ok(j && j->rw == IOGAP_RW_READ && j->rw_seq_add == -8192, "rw=read:-8k: backwards by 8k");
	iogap_job_list_free(&l);
	j = one_job("[j]\nrw=randread:8\n", &l);
	ok(j && j->rw_seq_nr == 8 && j->rw_seq_add == 0, "rw=randread:8: a count, not a size");
	iogap_job_list_free(&l);
	rejects("[j]\nrw=randread:-8\n", "is a count", "a negative count for a random pattern");
	j = one_job("[j]\nrw=trimwrite\n", &l);
	ok(j && j->rw == (IOGAP_RW_TRIM | IOGAP_RW_WRITE), "trimwrite accepted");
	iogap_job_list_free(&l);
	j = one_job("[j]\nzonemode=zbd\nzonesize=4m\nsize=8z\noffset=2z\noffset_increment=1z\n", &l);
	ok(j && j->size == 32u << 20 && j->offset == 8u << 20 && j->offset_increment == 4u << 20,
	   "size=8z offset=2z offset_increment=1z with zonesize=4m: 32m, 8m, 4m");
	iogap_job_list_free(&l);
	j = one_job("[j]\nzonemode=zbd\nsize=524z\n", &l);
	ok(j && j->size_nz == 524 && j->size == 0, "size=524z without zonesize: left for the device's zone size");
	iogap_job_list_free(&l);
	j = one_job("[j]\nsize=4z\n", &l);
	ok(!j && strstr(err, "need zonemode=zbd"), "zones without zonemode=zbd: \"%s\"", err);
	iogap_job_list_free(&l);
	rejects("[j]\nsize=0z\n", "size must be greater than 0", "size=0z");
	j = one_job("[j]\npercentage_random=30,70\n", &l);
	ok(j && j->percentage_random[0] == 30 && j->percentage_random[1] == 70 &&
	   j->percentage_random[2] == 70, "percentage_random=30,70: read 30, write and trim 70");
	iogap_job_list_free(&l);
	j = one_job("[j]\ncontinue_on_error=io\n", &l);
	ok(j && j->continue_on_error == (IOGAP_COE_READ | IOGAP_COE_WRITE), "continue_on_error=io");
	iogap_job_list_free(&l);
	rejects("[j]\ncontinue_on_error=some\n", "expected none, read, write, io, verify, all",
		"bad continue_on_error");
	j = one_job("[j]\ncpumask=0x5\n", &l);
	ok(j && j->cpus_allowed_set && j->cpus_allowed[0] == 0x5, "cpumask=0x5: CPUs 0 and 2");
	iogap_job_list_free(&l);
	j = one_job("[j]\ngtod_reduce=1\n", &l);
	ok(j && j->disable_lat && j->disable_clat && j->disable_slat && j->disable_bw &&
	   !j->clat_percentiles, "gtod_reduce=1 sets disable_lat/clat/slat/bw, no clat percentiles");
	iogap_job_list_free(&l);
	j = one_job("[j]\nnumber_ios=100\nunlink=1\nfile_append=1\nclocksource=clock_gettime\n", &l);
	ok(j && j->number_ios == 100 && j->unlink && j->file_append,
	   "number_ios, unlink, file_append, clocksource");
	iogap_job_list_free(&l);
	j = one_job("[j]\nioengine=pvsync2\nhipri=1\nhipri_percentage=50\nnowait=1\n", &l);
	ok(j && j->hipri && j->hipri_percentage == 50 && j->nowait, "pvsync2: hipri, hipri_percentage, nowait");
	iogap_job_list_free(&l);
	j = one_job("[j]\nioengine=libaio\nnowait=1\nuserspace_reap=1\n", &l);
	ok(j && j->nowait && j->userspace_reap, "libaio: nowait, userspace_reap");
	iogap_job_list_free(&l);
	j = one_job("[j]\nioengine=psync\nnowait=1\n", &l);
	ok(!j && strstr(err, "nowait is an option of ioengine=pvsync2, libaio and io_uring"),
	   "nowait on psync: \"%s\"", err);
	iogap_job_list_free(&l);
	j = one_job("[j]\nforce_async=1\n", &l);
	ok(!j && strstr(err, "force_async is an option of ioengine=io_uring"),
	   "force_async on psync: \"%s\"", err);
	iogap_job_list_free(&l);
	j = one_job("[j]\nioengine=io_uring\nfixedbufs\nregisterfiles=1\nsqthread_poll\n"
		    "sqthread_poll_cpu=1\nnonvectored=0\nhipri\n", &l);
	ok(j && j->fixedbufs && j->registerfiles && j->sqthread_poll && j->sqthread_poll_cpu == 1 &&
	   j->nonvectored == 0 && j->hipri, "io_uring: fixedbufs, registerfiles, sqthread_poll(_cpu), "
	   "nonvectored, hipri");
	iogap_job_list_free(&l);
	j = one_job("[j]\nioengine=io_uring\n", &l);
	ok(j && !j->fixedbufs && j->sqthread_poll_cpu == -1 && j->nonvectored == -1,
	   "io_uring's defaults: no fixedbufs, sqthread_poll_cpu unset, nonvectored=-1 (fio's)");
	iogap_job_list_free(&l);
	j = one_job("[j]\nioengine=libaio\nfixedbufs=1\n", &l);
	ok(!j && strstr(err, "options of ioengine=io_uring and io_uring_cmd, not of libaio"), "fixedbufs on libaio: \"%s\"",
	   err);
	iogap_job_list_free(&l);
	rejects("[j]\nhostname=x\n", "belongs to ioengine=net, an engine iogap-probe does not have",
		"an option of a missing engine");
	j = one_job("[j]\ndirectory=/srv\nfilename_format=$jobname-$jobnum.dat\n", &l);
	ok(j && !strcmp(j->filename, "/srv/j-0.dat"), "directory + filename_format: \"%s\"",
	   j ? j->filename : err);
	iogap_job_list_free(&l);
	j = one_job("[j]\nsync_file_range=wait_before,write,wait_after:8\n", &l);
	ok(j && j->sync_file_range_blocks == 8 && j->sync_file_range_flags ==
	   (SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER),
	   "sync_file_range=wait_before,write,wait_after:8");
	iogap_job_list_free(&l);
	rejects("[j]\nsync_file_range=flush:8\n", "flags are wait_before, write, wait_after",
		"an unknown sync_file_range flag");
	j = one_job("[j]\nbuffer_pattern=0xdeadface\"ab\"-12\n", &l);
	ok(j && j->buffer_pattern_len == 10 &&
	   !memcmp(j->buffer_pattern, "\xde\xad\xfa\xce" "ab" "\xf4\xff\xff\xff", 10),
	   "buffer_pattern=0xdeadface\"ab\"-12: hex, string, a negative number in 4 bytes");
	iogap_job_list_free(&l);
	rejects("[j]\nbuffer_pattern=0xzz\n", "fio's pattern", "a bad pattern");
	j = one_job("[j]\nrate=,500k\n", &l);
	ok(j && j->rate[0] == 0 && j->rate[1] == 512000 && j->rate[2] == 0,
	   "rate=,500k: writes only (fio's empty part)");
	iogap_job_list_free(&l);
	j = one_job("[j]\nnrfiles=1\nopenfiles=1\nfile_service_type=roundrobin:4\n", &l);
	ok(j != NULL, "nrfiles=1, openfiles, file_service_type: accepted (one file: no choice to make)");
	iogap_job_list_free(&l);
	rejects("[j]\nfile_service_type=lottery\n", "expected random, roundrobin",
		"an unknown file_service_type");
	j = one_job("[j]\nthinktime=10\nthinktime_spin=4\nthinktime_blocks_type=issue\n", &l);
	ok(j && j->thinktime_ns == 10000 && j->thinktime_spin_ns == 4000 && j->thinktime_blocks == 1 &&
	   j->thinktime_issued, "thinktime=10: usec, as fio; blocks 1 by default");
	iogap_job_list_free(&l);
	j = one_job("[j]\nexitall\nexit_what=stonewall\n", &l);
	ok(j && j->exitall && j->exit_what == IOGAP_EXIT_STONEWALL, "exitall, exit_what=stonewall");
	iogap_job_list_free(&l);
	j = one_job("[j]\ntime_based=1\n", &l);
	ok(j && !j->time_based, "time_based without runtime: dropped with fio's warning");
	iogap_job_list_free(&l);
}

/* verify's options and fio's verify_interval defaults (fixup_options) */
static void test_verify_options(void)
{
	struct iogap_job_list l = { 0 };
	struct iogap_job *j;

	j = one_job("[j]\nrw=write\nbs=16k\nverify=md5\n", &l);
	ok(j && j->verify == IOGAP_VERIFY_MD5 && j->do_verify && !j->verify_fatal &&
	   j->verify_interval == 16384, "verify=md5: do_verify on, interval = the block size");
	iogap_job_list_free(&l);
	j = one_job("[j]\nrw=write\nbsrange=4k-12k\nverify=crc32c\nverify_interval=64k\n", &l);
	ok(j && j->verify_interval == 4096, "verify_interval larger than the smallest write: that size");
	iogap_job_list_free(&l);
	j = one_job("[j]\nrw=write\nbssplit=8k/50:12k/50\nverify=xxhash\nverify_interval=3k\n", &l);
	ok(j && j->verify_interval == 4096, "an interval that divides no write size: gcd(8k, 12k)");
	iogap_job_list_free(&l);
	j = one_job("[j]\nverify=crc32c-intel\nverify_backlog=8\nverify_backlog_batch=2\n"
		    "verify_fatal=1\ndo_verify=0\n", &l);
	ok(j && j->verify == IOGAP_VERIFY_CRC32C_INTEL && j->verify_backlog == 8 &&
	   j->verify_backlog_batch == 2 && j->verify_fatal && !j->do_verify,
	   "crc32c-intel, verify_backlog, verify_backlog_batch, verify_fatal, do_verify");
	iogap_job_list_free(&l);
	rejects("[j]\nverify=sha384\n", "bad value 'sha384'", "verify=sha384 (not one of fio's)");
	j = one_job("[j]\nverify_pattern=0x11%o\"ab\"%o\n", &l);
	ok(j && j->verify == IOGAP_VERIFY_PATTERN && j->verify_pattern_len == 19 &&
	   j->verify_fmt_nr == 2 && j->verify_fmt_off[0] == 1 && j->verify_fmt_off[1] == 11,
	   "verify_pattern alone is fio's VERIFY_PATTERN; each %%o takes 8 bytes where it stands");
	iogap_job_list_free(&l);
	j = one_job("[j]\nverify_pattern=0xab\nverify=sha3-512\n", &l);
	ok(j && j->verify == IOGAP_VERIFY_SHA3_512 && j->verify_pattern_len == 1,
	   "verify= keeps its type beside verify_pattern");
	iogap_job_list_free(&l);
	j = one_job("[j]\nverify=pattern\n", &l);
	ok(!j && strstr(err, "verify=pattern needs verify_pattern"), "verify=pattern without a pattern: "
	   "\"%s\"", err);
	iogap_job_list_free(&l);
	j = one_job("[j]\nbs=256\nverify=sha512\n", &l);
	ok(!j && strstr(err, "sha512's 128 bytes of data"), "verify=sha512 on intervals without 128 "
	   "bytes of data: \"%s\"", err);
	iogap_job_list_free(&l);
	rejects("[j]\nbuffer_pattern=%o\n", "bad value '%o'", "%o in buffer_pattern (fio: verify_pattern only)");
	j = one_job("[j]\nbs=64\nverify=md5\n", &l);
	ok(!j && strstr(err, "verify_interval 64 is smaller than a verify header"),
	   "an interval below 88 bytes is refused: \"%s\"", err);
	iogap_job_list_free(&l);
	j = one_job("[j]\nnumjobs=3\ndirectory=/d\n", &l);
	ok(j && j->files_per_clone && !strcmp(j->filename, "/d/j.0.0") &&
	   !strcmp(iogap_job_file(j, 2, 0), "/d/j.2.0"), "numjobs=3 without filename: /d/j.N.0 per clone");
	iogap_job_list_free(&l);
	j = one_job("[j]\nnumjobs=3\nfilename=f\n", &l);
	ok(j && !j->files_per_clone && !strcmp(iogap_job_file(j, 2, 0), "f"), "filename=f: shared");
	iogap_job_list_free(&l);
}

/* a job's files as fio names them (jobfiles.c) */
static void test_files(void)
{
	struct iogap_job_list l = { 0 };
	struct iogap_job *j;

	j = one_job("[j]\nfilename=a:b\\:c::d\nnrfiles=7\n", &l);
	ok(j && j->nrfiles == 3 && !j->files_per_clone && !strcmp(j->files[0], "a") &&
	   !strcmp(j->files[1], "b:c") && !strcmp(j->files[2], "d"),
	   "filename=a:b\\:c::d: three files, an escaped colon kept, empty names skipped");
	iogap_job_list_free(&l);
	j = one_job("[j]\nnrfiles=2\nnumjobs=3\ndirectory=/x:/y\n", &l);
	ok(j && j->files_per_clone && !strcmp(iogap_job_file(j, 0, 1), "/x/j.0.1") &&
	   !strcmp(iogap_job_file(j, 1, 0), "/y/j.1.0") && !strcmp(iogap_job_file(j, 2, 1), "/x/j.2.1"),
	   "nrfiles=2, numjobs=3, directory=/x:/y: clone N's files in directory N %% 2");
	iogap_job_list_free(&l);
	j = one_job("[j]\nfilename=a:b\nnumjobs=2\ndirectory=/x:/y\n", &l);
	ok(j && !j->files_per_clone && !strcmp(j->files[0], "/x/a") && !strcmp(j->files[1], "/x/b"),
	   "filename=a:b with two directories: both in the first, shared (fio's)");
	iogap_job_list_free(&l);
	j = one_job("[j]\nnrfiles=2\nnumjobs=2\nfilename_format=f.$filenum\n", &l);
	ok(j && !j->files_per_clone && !strcmp(j->files[1], "f.1"),
	   "filename_format without $jobnum: the clones share f.0, f.1");
	iogap_job_list_free(&l);
	j = one_job("[j]\nnrfiles=4\nopenfiles=9\nfilesize=4k-16k\nfile_service_type=zipf:1.5\n", &l);
	ok(j && j->openfiles == 4 && j->filesize_low == 4096 && j->filesize_high == 16384 &&
	   j->file_service == IOGAP_FSERVICE_ZIPF && j->file_service_param == 1.5,
	   "openfiles beyond nrfiles: nrfiles; filesize range; zipf:1.5");
	iogap_job_list_free(&l);
	j = one_job("[j]\nfile_service_type=random:8\ncreate_serialize=0\ncreate_only=1\n"
		    "fallocate=keep\n", &l);
	ok(j && j->file_service == IOGAP_FSERVICE_RANDOM && j->file_service_nr == 8 &&
	   !j->create_serialize && j->create_only && j->create_fsync,
	   "random:8, create_serialize, create_only; create_fsync defaults to 1; fallocate=keep");
	iogap_job_list_free(&l);
	rejects("[j]\nfile_service_type=pareto:1.5\n", "0 < pareto h < 1", "pareto h out of range");
	rejects("[j]\nfile_service_type=sequential:x\n", "number of I/Os", "a bad :N");
	rejects("[j]\nnrfiles=0\n", "at least 1", "nrfiles=0");
	rejects("[j]\nfilesize=16k-4k\n", "a range low-high", "filesize range backwards");
	j = one_job("[j]\nnrfiles=2\nzonemode=zbd\nzonesize=1m\n", &l);
	ok(!j && strstr(err, "one file per job"), "zonemode=zbd with several files: \"%s\"", err);
	iogap_job_list_free(&l);
}

/* rados, io_uring_cmd and splice: fio's options, and where they apply */
static void test_engine_options(void)
{
	struct iogap_job_list l;
	struct iogap_job *j;

	j = one_job("[j]\nioengine=rados\npool=p\nclientname=admin\nconf=/c.conf\nbusy_poll=1\n"
		    "touch_objects=0\nnr_files=4\nsize=4m\n", &l);
	ok(j && !strcmp(j->rbd_pool, "p") && !strcmp(j->rbd_clientname, "admin") &&
	   !strcmp(j->ceph_conf, "/c.conf") && j->rbd_busy_poll && j->rados_touch_objects == 0 &&
	   j->nrfiles == 4 && !strcmp(j->files[3], "j.0.3"),
	   "rados: pool, clientname, conf, busy_poll, touch_objects, nr_files (objects j.0.N)");
	iogap_job_list_free(&l);
	j = one_job("[j]\nioengine=rados\npool=p\n", &l);
	ok(j && j->rados_touch_objects == 1, "rados: touch_objects defaults to 1, as fio");
	iogap_job_list_free(&l);
	j = one_job("[j]\nioengine=rados\n", &l);
	ok(!j && strstr(err, "ioengine=rados needs pool="), "rados without a pool: \"%s\"", err);
	iogap_job_list_free(&l);
	j = one_job("[j]\nioengine=rados\npool=p\nrbdname=i\n", &l);
	ok(!j && strstr(err, "rbdname applies to ioengine=rbd, not rados"), "rbdname with rados: \"%s\"", err);
	iogap_job_list_free(&l);
	j = one_job("[j]\ntouch_objects=1\n", &l);
	ok(!j && strstr(err, "touch_objects applies only to ioengine=rados"), "touch_objects with psync: \"%s\"", err);
	iogap_job_list_free(&l);
	j = one_job("[j]\nfilename=/dev/ng0n1\nioengine=io_uring_cmd\ncmd_type=nvme\nfixedbufs=1\n"
		    "sqthread_poll=1\nnonvectored=1\n", &l);
	ok(j && j->cmd_type_set && j->fixedbufs && j->sqthread_poll && j->nonvectored == 1,
	   "io_uring_cmd: cmd_type=nvme and io_uring's options");
	iogap_job_list_free(&l);
	rejects("[j]\nioengine=io_uring_cmd\ncmd_type=scsi\n", "option 'cmd_type': bad value 'scsi' "
		"(expected nvme)", "cmd_type other than nvme");
	j = one_job("[j]\nioengine=io_uring\ncmd_type=nvme\n", &l);
	ok(!j && strstr(err, "cmd_type applies only to ioengine=io_uring_cmd"), "cmd_type with io_uring: \"%s\"", err);
	iogap_job_list_free(&l);
	j = one_job("[j]\nioengine=splice\n", &l);
	ok(j && j->engine && !strcmp(j->engine->name, "splice") && j->engine->flags & IOGAP_ENGINE_SYNC,
	   "splice: a synchronous engine, as fio's FIO_SYNCIO");
	iogap_job_list_free(&l);
}

int main(void)
{
	tap_plan(12 + 11 + 13 + 20 + 3 + 34 + 8 + 5 + 10 + 9);
	test_sizes_and_times();
	test_seed_profile();
	test_syntax();
	test_rejections();
	test_cmdline();
	test_fio_options();
	test_verify_options();
	test_files();
	test_engine_options();
	return tap_done();
}
