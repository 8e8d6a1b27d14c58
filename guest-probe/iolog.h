/* SPDX-License-Identifier: MIT */
/*
 * fio's I/O logs: write_iolog writes fio's version 3 text log (a header
 * line, then "usec file action [offset length]" per line); read_iolog
 * replays version 2 and 3 text logs and binary blktrace captures (told
 * apart by the blktrace magic, as fio), with fio's replay_* options.
 */
#ifndef IOGAP_IOLOG_H
#define IOGAP_IOLOG_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "job.h"

/* fio's ddir order (its io_ddir_name), then the file actions */
enum iogap_iolog_act {
	IOGAP_IOLOG_READ,
	IOGAP_IOLOG_WRITE,
	IOGAP_IOLOG_TRIM,
	IOGAP_IOLOG_SYNC,
	IOGAP_IOLOG_DATASYNC,
	IOGAP_IOLOG_SYNC_FILE_RANGE,
	IOGAP_IOLOG_WAIT,             /* version 2: until N ms after the start */
	IOGAP_IOLOG_ADD,
	IOGAP_IOLOG_OPEN,
	IOGAP_IOLOG_CLOSE,
};

/* replay_skip bits: 1 << read, write, trim, sync (fio's; blktrace only) */
#define IOGAP_IOLOG_SKIP(act) (1u << (act))

struct iogap_iolog_piece {
	enum iogap_iolog_act act;
	uint64_t offset;              /* replay_scale and replay_align applied */
	uint32_t len;
	uint64_t delay_us;            /* after the previous issue (wait: ms) */
	const char *file;             /* valid until the next call */
	unsigned file_index;          /* of file among the log's files, in order of
				       * their "add" lines (blktrace: devices as met) */
};

struct iogap_iolog_reader;

/* Open path (a text log or a blktrace file) for the replay options of j:
 * 0, or -1 with a message in err. */
int iogap_iolog_open(const char *path, const struct iogap_job *j,
		     struct iogap_iolog_reader **out, char *err, size_t errlen);
/* The next piece: 1, 0 at the end of the log, -1 with "file:line: why"
 * (blktrace: "file: record N: why") in err. */
int iogap_iolog_next(struct iogap_iolog_reader *r, struct iogap_iolog_piece *p,
		     char *err, size_t errlen);
void iogap_iolog_close(struct iogap_iolog_reader *r);

/* read_iolog (merged first by blktrace_merge.c): read the whole log once before the run (every error is found
 * before anything is written) and make j its replay, as fio: the target is
 * the one file the log's I/O goes to (or replay_redirect), rw the
 * directions it holds, bs the largest request per direction, size its
 * extent, iodepth a blktrace's deepest queue unless iodepth is set. */
int iogap_iolog_prepare_job(struct iogap_job *j, char *err, size_t errlen);

/* write_iolog */
struct iogap_iolog_writer {
	/* whole lines only reach the file, each write() at its end (O_APPEND):
	 * clones appending to one log never split each other's lines */
	int fd;
	char *buf;                    /* NULL: not writing */
	size_t len;
	const struct iogap_job *job;  /* its files, as named in the lines */
	unsigned clone, nr_files;
	bool *open;                   /* per file: "open" logged, "close" not yet */
	uint64_t t0_ns;               /* timestamps are microseconds from here */
	uint64_t last_offset;         /* fio logs a sync with its io_u's last offset */
};

/* Append fio's header and an "add" line per file of j's clone to path. */
int iogap_iolog_writer_open(struct iogap_iolog_writer *w, const char *path,
			    const struct iogap_job *j, unsigned clone, unsigned nr_files,
			    char *err, size_t errlen);
static inline bool iogap_iolog_writing(const struct iogap_iolog_writer *w)
{
	return w->buf != NULL;
}
/* A request or sync on file: its "open" line first if the file has none
 * since its last "close" (fio opens a file at its first use). */
void iogap_iolog_write(struct iogap_iolog_writer *w, enum iogap_iolog_act act, unsigned file,
		       uint64_t offset, uint64_t len);
/* file's "close" line, if it is open in the log. */
void iogap_iolog_close_file(struct iogap_iolog_writer *w, unsigned file);
/* "close" for every open file (in file order, as fio's close_files). */
void iogap_iolog_close_files(struct iogap_iolog_writer *w);
/* close_files, then close the log. */
void iogap_iolog_writer_close(struct iogap_iolog_writer *w);

#endif
