/* SPDX-License-Identifier: MIT */
/*
 * A repeat directory (`iogap run --repeat N`): N run directories
 * DIR/rep-1 … DIR/rep-N of the same jobs, listed in DIR/repeat.json with
 * each run's exit status (docs/iogap-run.md, "Repeats").  Written after
 * every run (atomically), so an interrupted repeat still lists what ran.
 */
#ifndef IOGAP_REPEAT_H
#define IOGAP_REPEAT_H

#include <stdbool.h>
#include <stddef.h>

#define IOGAP_REPEAT_FILE "repeat.json"
#define IOGAP_REPEAT_MAX 100

struct iogap_repeat {
	unsigned planned;                     /* N */
	unsigned nr;                          /* runs listed */
	char name[IOGAP_REPEAT_MAX][16];      /* "rep-K", relative to the directory */
	int status[IOGAP_REPEAT_MAX];         /* `iogap run`'s exit status */
};

/* The directory name of run k (1-based). */
void iogap_repeat_name(struct iogap_repeat *r, unsigned k);
/* Write DIR/repeat.json; 0, or -1 with err. */
int iogap_repeat_save(const char *dir, const struct iogap_repeat *r, char *err, size_t errlen);
/* Is dir a repeat directory (it holds repeat.json)? */
bool iogap_repeat_is(const char *dir);
/* Read DIR/repeat.json; 0, or -1 with err (missing, malformed, a run
 * name that is not rep-K). */
int iogap_repeat_load(const char *dir, struct iogap_repeat *r, char *err, size_t errlen);

#endif
