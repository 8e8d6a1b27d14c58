/*
 * loop-clock — a precise clock around qemu-img bench's request loop, loaded with
 * LD_PRELOAD (bench/filter-overhead).  qemu-img bench reads gettimeofday() once before
 * its loop and once after it and prints the difference to the millisecond: 20 ns per
 * request on a 50 000-request run, and wall time only.  This library wraps gettimeofday()
 * and, for the calls qemu-img itself makes (not glib's), takes CLOCK_MONOTONIC and the
 * process's CPU time (CLOCK_PROCESS_CPUTIME_ID: every thread, none of the time spent
 * waiting for a CPU).  At exit it prints, on stderr:
 *
 *   loop-clock: calls=N wall_ns=W cpu_ns=C
 *
 * N the calls from the executable (2 for qemu-img bench: a caller checks it), W and C the
 * wall and CPU time between the last two.
 *
 * Start barrier (optional): with IOGAP_LOOP_CLOCK_START=DIR and IOGAP_LOOP_CLOCK_PEERS=K,
 * the first call creates DIR/ready.PID and waits until K such files exist, so that K
 * processes pinned to one CPU start their loops together and share that CPU's conditions
 * for the whole run (a slow spell of the machine then hits all of them alike).  It gives
 * up after 60 s with a message, and the run then counts as not timed together.
 */
#include <dirent.h>
#include <errno.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define BARRIER_TIMEOUT_NS (60 * 1000000000LL)

static int calls;
static int64_t wall_prev, cpu_prev, wall_span, cpu_span;
static int barrier_failed;

static int64_t now_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Files named ready.* in dir, or -1 when it cannot be read. */
static int ready_count(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += strncmp(e->d_name, "ready.", 6) == 0;
	closedir(d);
	return n;
}

static void start_barrier(void)
{
	const char *dir = getenv("IOGAP_LOOP_CLOCK_START"), *peers = getenv("IOGAP_LOOP_CLOCK_PEERS");
	int64_t deadline = now_ns(CLOCK_MONOTONIC) + BARRIER_TIMEOUT_NS;
	char path[4096];
	int fd, want;

	if (!dir || !peers)
		return;
	want = atoi(peers);
	snprintf(path, sizeof(path), "%s/ready.%ld", dir, (long)getpid());
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0) {
		barrier_failed = 1;
		return;
	}
	close(fd);
	while (ready_count(dir) < want) {
		if (now_ns(CLOCK_MONOTONIC) > deadline) {
			barrier_failed = 1;
			return;
		}
		usleep(100);
	}
}

/* The executable's loaded segments (the first object dl_iterate_phdr() reports). */
static uintptr_t exe_lo = UINTPTR_MAX, exe_hi;

static int find_executable(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	(void)data;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type != PT_LOAD)
			continue;
		if (lo < exe_lo)
			exe_lo = lo;
		if (lo + ph->p_memsz > exe_hi)
			exe_hi = lo + ph->p_memsz;
	}
	return 1;       /* the executable only */
}

/* Whether the caller's return address lies in the executable (qemu-img), not a library. */
static int called_from_executable(const void *ret)
{
	if (!exe_hi)
		dl_iterate_phdr(find_executable, NULL);
	return (uintptr_t)ret >= exe_lo && (uintptr_t)ret < exe_hi;
}

int gettimeofday(struct timeval *restrict tv, void *restrict tz)
{
	static int (*real)(struct timeval *restrict, void *restrict);

	if (!real)
		real = (int (*)(struct timeval *restrict, void *restrict))dlsym(RTLD_NEXT,
										"gettimeofday");
	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	if (called_from_executable(__builtin_return_address(0))) {
		int64_t wall, cpu;
		int ret;

		if (++calls == 1)
			start_barrier();
		/* the wall clock right beside qemu-img's own reading, so the two agree
		 * (the CPU-time read is a system call: a CPU shared with the peers may
		 * be handed over there) */
		ret = real(tv, tz);
		wall = now_ns(CLOCK_MONOTONIC);
		cpu = now_ns(CLOCK_PROCESS_CPUTIME_ID);
		wall_span = wall - wall_prev;
		cpu_span = cpu - cpu_prev;
		wall_prev = wall;
		cpu_prev = cpu;
		return ret;
	}
	return real(tv, tz);
}

static __attribute__((destructor)) void report(void)
{
	if (barrier_failed)
		fprintf(stderr, "loop-clock: the start barrier failed: not timed together\n");
	else
		fprintf(stderr, "loop-clock: calls=%d wall_ns=%lld cpu_ns=%lld\n", calls,
			calls > 1 ? (long long)wall_span : 0LL, calls > 1 ? (long long)cpu_span : 0LL);
}
