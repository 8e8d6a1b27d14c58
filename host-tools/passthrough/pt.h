/* SPDX-License-Identifier: MIT */
/*
 * Inside `iogap passthrough`: findings (as lint's: level, code, message,
 * why it matters, what to do) and reads of sysfs/procfs files under a root
 * directory, so that recorded trees are checked as the live system is.
 */
#ifndef IOGAP_PT_H
#define IOGAP_PT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum pt_level { PT_INFO, PT_WARNING, PT_ERROR };

struct pt_finding {
	enum pt_level lv;
	const char *code, *why, *todo;  /* string constants */
	char *msg;
};

struct pt {
	const char *root;               /* "" for / */
	int worst;                      /* -1: no finding */
	struct pt_finding *f;
	size_t count;
};

/* Record a finding; code, why and todo are string constants. */
void pt_finding(struct pt *p, enum pt_level lv, const char *code, const char *why,
		const char *todo, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
/* "unreadable": an input a check needs is missing or malformed. */
void pt_unreadable(struct pt *p, const char *path, const char *what);
void pt_print(const struct pt *p, const char *verdict);
void pt_print_findings(const struct pt *p);   /* pt_print without the verdict */
void pt_print_json(const struct pt *p, const char *verdict);
void pt_free(struct pt *p);

/* ROOT + path ("/sys/..."), for messages and opening. */
void pt_path(const struct pt *p, char *out, size_t n, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* The file ROOT/path, NUL-terminated, at most 64 MiB; NULL if unreadable.
 * pt_read_len also gives its length (for NUL-separated files). */
char *pt_read(const struct pt *p, const char *path);
char *pt_read_len(const struct pt *p, const char *path, size_t *len);
/* Its first line, trailing whitespace cut: true if read and non-empty. */
bool pt_read_line(const struct pt *p, const char *path, char *out, size_t n);
/* The last component of the symlink ROOT/path (a driver's, a group's name). */
bool pt_link_name(const struct pt *p, const char *path, char *out, size_t n);
/* The names in directory ROOT/path, sorted, not starting with '.';
 * NULL if it cannot be listed.  Free with pt_names_free. */
char **pt_list(const struct pt *p, const char *path, size_t *n);
void pt_names_free(char **names, size_t n);

/* A PCI address: "0000:01:00.0" or "01:00.0" (domain 0), ending the
 * string or followed by a separator (',', '"', newline), into the
 * canonical form; false if it is none. */
#define PT_BDF_LEN 16
bool pt_parse_bdf(const char *s, char out[PT_BDF_LEN]);

/* A CPU list as the kernel prints it ("0-3,8,10-11"), up to PT_MAX_CPUS. */
#define PT_MAX_CPUS 4096
struct pt_cpus {
	uint64_t bits[PT_MAX_CPUS / 64];
};
bool pt_cpus_parse(const char *s, struct pt_cpus *c);
bool pt_cpus_has(const struct pt_cpus *c, unsigned cpu);
bool pt_cpus_subset(const struct pt_cpus *a, const struct pt_cpus *b);
unsigned pt_cpus_count(const struct pt_cpus *c);

/* The checks.  Each returns 0, or -1 with a message on stderr when the
 * input cannot be checked at all (exit status 2). */
struct pt_host_opts {
	const char *domain, *device;
	long qemu_pid;                  /* 0: none given */
};
int pt_check_host(struct pt *p, const struct pt_host_opts *o);
int pt_check_guest(struct pt *p, const char *device);

/* thresholds for the fio verdict: a side within abs_ns or pct of bare metal */
struct pt_within {
	bool set;
	double abs_ns, pct;
};
int pt_check_fio(struct pt *p, const char *bare, const char *vm, const struct pt_within *p50,
		 const struct pt_within *p99, bool force, char *verdict, size_t n);
/* A paste holding a bare-metal and a VM fio output (told apart by their
 * labels, pt_side_of_label), judged as pt_check_fio judges two files. */
int pt_check_paste(struct pt *p, const char *file, const struct pt_within *p50,
		   const struct pt_within *p99, bool force, char *verdict, size_t n);

/* Which side a label names, from its words ("Bare metal", "From-vm",
 * "host", "guest"); UNKNOWN for neither or both. */
enum pt_side { PT_SIDE_UNKNOWN, PT_SIDE_BARE, PT_SIDE_VM };
enum pt_side pt_side_of_label(const char *label);
/* The one label of each side among n: which[PT_SIDE_BARE], which[PT_SIDE_VM];
 * 0, or -1 with the labels found and how to name them in err. */
int pt_pick_sides(const char *const *labels, size_t n, size_t which[3], char *err,
		  size_t errlen);
/* The paste's two outputs parsed into r[0] (bare metal) and r[1], with their labels. */
struct fioi_result;
int pt_parse_paste(const char *file, struct fioi_result *r, char names[2][80], char *err,
		   size_t errlen);
/* A run directory's probe.json of each side: bare/ and vm/, else the
 * subdirectories whose names tell the sides apart (iogap import's). */
int pt_run_sides(const char *dir, char bare[], char vm[], size_t n, char *err, size_t errlen);

/* "5us,10%", "5us", "10%" into w; false if malformed. */
bool pt_parse_within(const char *s, struct pt_within *w);
/* Lint's findings on job files before they run (pt_check_fio's rule: a
 * warning makes the comparison invalid): 1 invalid, with the verdict; 0
 * valid; -1 with a message on stderr for an unreadable job file. */
int pt_lint_jobs(struct pt *p, const char *const *jobs, size_t n, char *verdict, size_t vn);

/* `iogap passthrough run ...` (argv[0] "run"): the exit status. */
int pt_run(int argc, char **argv);

#endif
