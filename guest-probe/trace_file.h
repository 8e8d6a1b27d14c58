/* SPDX-License-Identifier: MIT */
/* Writing and validating trace files in the format of <iogap/trace.h>. */
#ifndef IOGAP_TRACE_FILE_H
#define IOGAP_TRACE_FILE_H

#include <stddef.h>
#include <stdio.h>

#include "iogap/trace.h"

struct iogap_trace_writer;

/* Create path with the given header fields (magic, version, sizes,
 * offsets are filled in here) and info text ("key=value\n" lines).
 * NULL on error with a message in err. */
struct iogap_trace_writer *iogap_trace_writer_open(const char *path,
		const struct iogap_trace_header *proto, const char *info,
		char *err, size_t errlen);
/* Append records; thread-safe; buffered.  0 or -errno. */
int iogap_trace_writer_append(struct iogap_trace_writer *w,
		const struct iogap_trace_record *recs, size_t nr);
/* Flush, write record_count/dropped/end_ns and the COMPLETE flag, close. */
int iogap_trace_writer_close(struct iogap_trace_writer *w, uint64_t end_ns,
		uint64_t dropped, char *err, size_t errlen);

/* The header checks every reader shares, of files and live rings alike
 * (docs/trace-format.md, "Validation", 1-6 but the info text's content):
 * raw holds the first got bytes (at most a header's) of a file or mapping
 * of size bytes.  0, or -1 with the reason in why ("truncated: file is 100
 * bytes, shorter than the 160-byte header"; callers name the file). */
int iogap_trace_header_check(const void *raw, size_t got, uint64_t size, char *why,
			     size_t whylen);
/* A ring's geometry (F_RING, header checked): capacity > 0 and size exactly
 * records_offset + control + capacity slots.  0, or -1 with why. */
int iogap_trace_ring_check(const struct iogap_trace_header *h, uint64_t size, char *why,
			   size_t whylen);

struct iogap_trace_reader;

/* Open and validate header and size.  NULL with a clear reason in err
 * ("FILE: truncated: header says 1000 records, file holds 998"). */
struct iogap_trace_reader *iogap_trace_reader_open(const char *path, char *err, size_t errlen);
const struct iogap_trace_header *iogap_trace_reader_header(const struct iogap_trace_reader *r);
const char *iogap_trace_reader_info(const struct iogap_trace_reader *r);
/* Next record: 1 = got one, 0 = end, -1 = error (in err). */
int iogap_trace_reader_next(struct iogap_trace_reader *r, struct iogap_trace_record *rec,
		char *err, size_t errlen);
/* The next records at once, read in place: *recs points at n > 0 valid
 * records, good until the next call; 0 = end, -1 = error (in err).  For
 * passes over every record (a report reads each several times). */
ptrdiff_t iogap_trace_reader_batch(struct iogap_trace_reader *r,
				   const struct iogap_trace_record **recs,
				   char *err, size_t errlen);
void iogap_trace_reader_close(struct iogap_trace_reader *r);

/* Print header, info and every record as text; 0 or -1 with err. */
int iogap_trace_dump(FILE *out, const char *path, char *err, size_t errlen);

#endif
