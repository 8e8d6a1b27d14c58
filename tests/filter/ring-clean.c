/* SPDX-License-Identifier: MIT */
/*
 * Ring lifetime without QEMU: the filter's ring writer (qemu-filter/ring.c)
 * and the host side (host-tools/orchestration/ringmap.c).
 *  - iogap_ring_remove_stale removes exactly the rings whose writer is gone
 *    (pid gone, pid reused, another boot, a zombie) and keeps rings whose writer runs or
 *    holds the ring open, files that are not rings, rings under other names,
 *    symlinks and FIFOs.
 *  - the drain of `iogap run` loses nothing when the writer removes its ring
 *    right after closing it (the drain has it mapped), and carries the ring's
 *    run id into the trace; a ring gone before the drain mapped it is an
 *    error, not an empty trace.
 * TAP output.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../tap.h"
#include "procid.h"
#include "ring.h"
#include "ringmap.h"
#include "trace_file.h"
#include "util.h"

static char dir[] = "/tmp/iogap-ring-clean.XXXXXX";

static const char *in_dir(const char *name)
{
	static char path[4][128];
	static int slot;

	slot = (slot + 1) % 4;
	snprintf(path[slot], sizeof(path[slot]), "%s/%s", dir, name);
	return path[slot];
}

static bool exists(const char *name)
{
	struct stat st;

	return !lstat(in_dir(name), &st);
}

/* A pid that ran and is gone: a child that exited and was reaped. */
static int dead_pid(void)
{
	pid_t p = fork();

	if (p == 0)
		_exit(0);
	waitpid(p, NULL, 0);
	return (int)p;
}

/* A child that exited and is not reaped yet (a zombie, as an orphaned QEMU
 * is until its reaper gets to it); *start: its start time while it ran. */
static int zombie_pid(uint64_t *start)
{
	int fds[2];
	pid_t p;
	char c;

	if (pipe(fds))
		return -1;
	p = fork();
	if (p == 0) {
		close(fds[1]);
		_exit(read(fds[0], &c, 1) < 0);
	}
	close(fds[0]);
	*start = iogap_proc_start_time(p);
	close(fds[1]);          /* the child exits */
	for (int i = 0; i < 5000 && iogap_proc_start_time(p); i++)
		usleep(1000);
	return (int)p;
}

/* A ring whose info names writer pid/pid_start (pid_start 0: key absent);
 * closed (lock released) unless open is wanted. */
static int make_ring(struct iogap_ring *r, const char *name, int pid, uint64_t pid_start,
		     bool open)
{
	char info[256], err[256];
	int rc;

	if (pid_start)
		snprintf(info, sizeof(info), "producer=iogap-filter\npid=%d\npid_start=%llu\n", pid,
			 (unsigned long long)pid_start);
	else
		snprintf(info, sizeof(info), "producer=iogap-filter\npid=%d\n", pid);
	rc = iogap_ring_create(r, in_dir(name), 16, "top", 7, info, 1, err, sizeof(err));
	if (rc)
		fprintf(stderr, "# %s\n", err);
	else if (!open)
		iogap_ring_close(r, 2, false);
	return rc;
}

/* The names of test_remove_stale's rings: as the filter names its own
 * (iogap-<writer's pid>-<node>.ring) unless said otherwise. */
enum { GONE, REUSED, LIVE, OPEN, OLDBOOT, NOSTART, PLAIN, ZOMBIE, USER, RUN_GONE, RUN_LIVE,
       NR_RINGS };

static void test_remove_stale(void)
{
	struct iogap_ring r[NR_RINGS];
	int self = (int)getpid(), gone = dead_pid(), zombie;
	uint64_t start = iogap_proc_start_time(self), zombie_start = 0;
	uint8_t other_boot[16];
	char err[256], n_[NR_RINGS][64];
	int fd, n;

	ok(start > 0, "own start time read from /proc/self/stat (%llu)", (unsigned long long)start);
	zombie = zombie_pid(&zombie_start);
	ok(zombie > 0 && zombie_start > 0 && !iogap_proc_start_time(zombie),
	   "a zombie counts as gone (start time %llu while it ran)",
	   (unsigned long long)zombie_start);
	snprintf(n_[GONE], 64, "iogap-%d-gone.ring", gone);
	snprintf(n_[REUSED], 64, "iogap-%d-reused.ring", self);
	snprintf(n_[LIVE], 64, "iogap-%d-live.ring", self);
	snprintf(n_[OPEN], 64, "iogap-%d-open.ring", gone);
	snprintf(n_[OLDBOOT], 64, "iogap-%d-oldboot.ring", self);
	snprintf(n_[NOSTART], 64, "iogap-%d-nostart.ring", self);
	snprintf(n_[PLAIN], 64, "gone.ring");
	snprintf(n_[ZOMBIE], 64, "iogap-%d-zombie.ring", zombie);
	/* ring=DIR/... of the user's, its QEMU gone: kept */
	snprintf(n_[USER], 64, "iogap-%d-kept.ring", gone + 1);
	/* iogap run's names: iogap's pid, the run id, the layer */
	snprintf(n_[RUN_GONE], 64, "iogap-%d-00000000000000ab-top.ring", gone);
	snprintf(n_[RUN_LIVE], 64, "iogap-%d-00000000000000ab-bottom.ring", self);
	ok(make_ring(&r[GONE], n_[GONE], gone, 12345, false) == 0 &&
	   make_ring(&r[REUSED], n_[REUSED], self, start + 1, false) == 0 &&
	   make_ring(&r[LIVE], n_[LIVE], self, start, false) == 0 &&
	   make_ring(&r[OPEN], n_[OPEN], gone, 12345, true) == 0 &&
	   make_ring(&r[OLDBOOT], n_[OLDBOOT], self, start, false) == 0 &&
	   make_ring(&r[NOSTART], n_[NOSTART], self, 0, false) == 0 &&
	   make_ring(&r[PLAIN], n_[PLAIN], gone, 12345, false) == 0 &&
	   make_ring(&r[ZOMBIE], n_[ZOMBIE], zombie, zombie_start, false) == 0 &&
	   make_ring(&r[USER], n_[USER], gone, 12345, false) == 0 &&
	   make_ring(&r[RUN_GONE], n_[RUN_GONE], gone + 2, 12345, false) == 0 &&
	   make_ring(&r[RUN_LIVE], n_[RUN_LIVE], gone + 2, 12345, false) == 0,
	   "rings made");
	/* a ring from before a reboot: another boot id in its header */
	fd = open(in_dir(n_[OLDBOOT]), O_WRONLY);
	memset(other_boot, 0x5a, sizeof(other_boot));
	ok(fd >= 0 && pwrite(fd, other_boot, sizeof(other_boot),
			     offsetof(struct iogap_trace_header, boot_id)) == sizeof(other_boot),
	   "boot id of one ring changed");
	if (fd >= 0)
		close(fd);
	fd = open(in_dir("iogap-7-text.ring"), O_WRONLY | O_CREAT | O_EXCL, 0644);
	ok(fd >= 0 && write(fd, "not a ring\n", 11) == 11, "a text file named like a ring");
	if (fd >= 0)
		close(fd);
	ok(!symlink(in_dir("gone.ring"), in_dir("iogap-8-link.ring")) &&
	   !mkfifo(in_dir("iogap-9-fifo.ring"), 0600), "a symlink and a FIFO named like rings");

	n = iogap_ring_remove_stale(dir, NULL, err, sizeof(err));
	ok(n == 5, "five stale rings removed (%d)", n);
	ok(!exists(n_[GONE]), "removed: writer's pid is gone");
	ok(!exists(n_[REUSED]), "removed: writer's pid is another process now");
	ok(!exists(n_[OLDBOOT]), "removed: written in another boot");
	ok(!exists(n_[ZOMBIE]), "removed: writer exited, not yet reaped (zombie)");
	ok(!exists(n_[RUN_GONE]), "removed: iogap run's ring, that iogap and its QEMU gone");
	waitpid(zombie, NULL, 0);
	ok(exists(n_[LIVE]), "kept: writer (pid and start time) still runs");
	ok(exists(n_[OPEN]), "kept: a process holds the ring open (its lock)");
	ok(exists(n_[NOSTART]), "kept: no pid_start and the pid runs");
	ok(exists("gone.ring"), "kept: stale, but not named iogap-*.ring");
	ok(exists(n_[USER]), "kept: a ring=PATH of the user's (not the writer's pid in its name)");
	ok(exists(n_[RUN_LIVE]), "kept: iogap run's ring while that iogap runs");
	ok(exists("iogap-7-text.ring") && exists("iogap-8-link.ring") && exists("iogap-9-fifo.ring"),
	   "kept: a text file, a symlink and a FIFO named like rings");
	ok(iogap_ring_remove_stale(in_dir("nonexistent"), NULL, err, sizeof(err)) == -1 &&
	   strstr(err, "nonexistent"), "a missing directory is an error naming it (%s)", err);

	iogap_ring_close(&r[OPEN], 3, true);
	ok(!exists(n_[OPEN]), "the writer removes its own ring at close");
	for (const char *const *p = (const char *const[]){ n_[LIVE], n_[NOSTART], n_[USER],
			n_[RUN_LIVE], "gone.ring", "iogap-7-text.ring", "iogap-8-link.ring",
			"iogap-9-fifo.ring", NULL }; *p; p++)
		unlink(in_dir(*p));
}

/* Write n records through a ring the drain keeps empty: each waits until the
 * drain made room (a put into a full ring would count a drop). */
static void produce(struct iogap_ring *r, uint64_t n)
{
	struct iogap_trace_record rec;

	memset(&rec, 0, sizeof(rec));
	for (uint64_t i = 0; i < n; i++) {
		rec.tag = i;
		rec.offset = i * 4096;
		rec.length = 4096;
		rec.result = 4096;
		rec.start_ns = rec.issue_ns = rec.complete_ns = 10 + i;
		while (r->reserve - __atomic_load_n(&r->ctl->read_seq, __ATOMIC_ACQUIRE) > r->mask)
			usleep(100);
		iogap_ring_put(r, &rec);
	}
}

static void test_drain_after_unlink(void)
{
	static struct iogap_ring r;
	const uint64_t run_id = 0x1122334455667788ull, total = 1000;
	struct iogap_ring_drain *d;
	struct iogap_trace_reader *rd;
	struct iogap_trace_record rec;
	uint64_t records = 0, dropped = 0, got = 0, in_order = 1;
	char err[256] = "", out[128];
	int rc;

	snprintf(out, sizeof(out), "%s/top.trace", dir);
	ok(iogap_ring_create(&r, in_dir("iogap-drain.ring"), 64, "top", run_id,
			     "producer=iogap-filter\n", 5, err, sizeof(err)) == 0, "ring made (%s)", err);
	d = iogap_ring_drain_start(in_dir("iogap-drain.ring"), out, err, sizeof(err));
	ok(d != NULL, "drain started (%s)", err);
	if (!d)
		return;
	produce(&r, total);     /* 1000 records through 64 slots: the drain has it mapped */
	iogap_ring_close(&r, 2000, true);
	ok(!exists("iogap-drain.ring"), "the ring is removed right after its close");
	rc = iogap_ring_drain_finish(d, iogap_now_ns() + 10000000000ull, &records, &dropped, err,
				     sizeof(err));
	ok(rc == 0 && records == total && dropped == 0,
	   "the drain took all %llu records, none dropped (rc %d, %llu, %s)",
	   (unsigned long long)total, rc, (unsigned long long)records, err);
	rd = iogap_trace_reader_open(out, err, sizeof(err));
	ok(rd != NULL, "the trace is valid (%s)", err);
	if (!rd)
		return;
	ok(iogap_trace_reader_header(rd)->run_id == run_id &&
	   !strcmp(iogap_trace_reader_header(rd)->layer, "top"),
	   "the trace carries the ring's run id and layer");
	while (iogap_trace_reader_next(rd, &rec, err, sizeof(err)) == 1)
		in_order &= rec.tag == got++;
	ok(got == total && in_order, "the trace holds every record, in order (%llu)",
	   (unsigned long long)got);
	iogap_trace_reader_close(rd);
	unlink(out);

	/* gone before the drain could map it: an error, never an empty trace */
	ok(iogap_ring_create(&r, in_dir("iogap-early.ring"), 16, "top", run_id, NULL, 5, err,
			     sizeof(err)) == 0, "second ring made");
	iogap_ring_close(&r, 6, true);
	d = iogap_ring_drain_start(in_dir("iogap-early.ring"), out, err, sizeof(err));
	rc = d ? iogap_ring_drain_finish(d, iogap_now_ns() + 200000000ull, &records, &dropped, err,
					 sizeof(err)) : 0;
	ok(rc == -1 && strstr(err, "iogap-early.ring"),
	   "a ring removed before the drain mapped it is reported (%s)", err);
	unlink(out);
}

int main(void)
{
	tap_plan(30);
	if (!mkdtemp(dir))
		return perror("mkdtemp"), 1;
	test_remove_stale();
	test_drain_after_unlink();
	rmdir(dir);
	return tap_done();
}
