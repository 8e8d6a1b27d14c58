/*
 * pread-loop — the "physical limit" for psync reads: a bare loop of one pread and two
 * clock_gettime calls per I/O, random bs-aligned offsets, nothing else. A job runner doing
 * the same reads cannot go faster than this; bench/probe-overhead compares fio and
 * iogap-probe against it.
 *
 * Usage: pread-loop FILE BS SECONDS [SIZE]   (prints "iops=N mean_ns=N ios=N cpu_ns=N")
 * Reads within the first SIZE bytes (default: the whole file), which should already be in
 * the page cache (the file is opened without O_DIRECT).  cpu_ns is the process's user +
 * system CPU time per I/O (getrusage), which waiting for a CPU on a loaded machine does not
 * inflate, unlike iops.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double cpu_ns(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e9 +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e3;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	struct stat st;
	uint64_t bs, blocks, deadline, start, t0, t1, lat_sum = 0, ios = 0;
	uint64_t x = 0x9e3779b97f4a7c15u;  /* xorshift64 state */
	double cpu0;
	char *buf;
	int fd;

	if (argc != 4 && argc != 5) {
		fprintf(stderr, "usage: %s FILE BS SECONDS [SIZE]\n", argv[0]);
		return 2;
	}
	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || fstat(fd, &st)) {
		perror(argv[1]);
		return 1;
	}
	bs = strtoull(argv[2], NULL, 0);
	blocks = (uint64_t)st.st_size;
	if (argc == 5 && strtoull(argv[4], NULL, 0) < blocks)
		blocks = strtoull(argv[4], NULL, 0);
	blocks /= bs ? bs : 1;
	if (!bs || !blocks || posix_memalign((void **)&buf, 4096, bs)) {
		fprintf(stderr, "bad block size or file too small\n");
		return 1;
	}
	cpu0 = cpu_ns();
	start = t1 = now_ns();
	deadline = start + (uint64_t)(atof(argv[3]) * 1e9);
	while (t1 < deadline) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		t0 = now_ns();
		if (pread(fd, buf, bs, (off_t)((x % blocks) * bs)) != (ssize_t)bs) {
			perror("pread");
			return 1;
		}
		t1 = now_ns();
		lat_sum += t1 - t0;
		ios++;
	}
	printf("iops=%.0f mean_ns=%.1f ios=%" PRIu64 " cpu_ns=%.1f\n",
	       (double)ios * 1e9 / (double)(t1 - start), (double)lat_sum / (double)ios, ios,
	       (cpu_ns() - cpu0) / (double)ios);
	return 0;
}
