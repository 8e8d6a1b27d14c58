/* SPDX-License-Identifier: MIT */
/*
 * fio's verify: every verify_interval bytes of a written buffer start with
 * fio's verify header (magic 0xacca, type, length, seed, offset, time,
 * thread, numberio, crc32c of the header) and the checksum of the rest of
 * the block (fio's functions: its CRCs, md5, xxhash, the SHA family in
 * sha.h); verify=pattern writes the pattern alone.  Reads check it.
 *
 * Layout: without write tags it is fio's byte for byte (fio verifies what
 * the probe wrote and the probe what fio wrote).  With write tags, a block
 * that starts at a tag stride keeps the tag (include/iogap/trace.h) at its
 * start and the header follows it; the tag is covered by its own check
 * and by the header, whose seed is the tag's request id.
 */
#ifndef IOGAP_VERIFY_H
#define IOGAP_VERIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define IOGAP_VERIFY_MAGIC 0xacca

struct iogap_verify_hdr {         /* fio's struct verify_header */
	uint16_t magic;
	uint16_t verify_type;
	uint32_t len;
	uint64_t rand_seed;
	uint64_t offset;
	uint32_t time_sec;
	uint32_t time_nsec;
	uint16_t thread;
	uint16_t numberio;
	uint32_t crc32;           /* crc32c of the fields above */
};

/* What one written block carries, known to the writer. */
struct iogap_verify_write {
	unsigned type;            /* enum iogap_verify_type (job.h) */
	uint32_t interval;        /* bytes per header */
	uint64_t offset;          /* of the buffer in the file */
	uint64_t seed;            /* the request id */
	uint64_t time_ns;
	uint16_t thread;
	uint16_t numberio;
	bool tagged;              /* write tags at every IOGAP_TAG_STRIDE */
	uint32_t swap_offset;     /* fio's verify_offset: header and checksum
				   * swapped with the bytes this far on */
};

/* What a read expects; numberio is checked only when check_numberio. */
struct iogap_verify_read {
	const char *file;         /* for the message */
	unsigned type;
	uint32_t interval;
	uint64_t offset;
	uint16_t numberio;
	bool check_numberio;
	const uint8_t *pattern;   /* verify_pattern with meta and pattern: the data
				   * after each header, from the buffer's start */
	unsigned pattern_len;
	uint32_t swap_offset;     /* verify_offset: swapped back before the check */
};

/* fio's name of a type ("crc32c"), NULL if not one iogap has. */
const char *iogap_verify_name(unsigned type);

/* Stamp headers and checksums into buf (len bytes, written at
 * w->offset), after its tags when w->tagged. */
void iogap_verify_fill(const struct iogap_verify_write *w, void *buf, uint32_t len);
/* Check buf as read from r->offset: 0, or -EILSEQ with fio's message
 * ("verify: bad magic header ..." / "crc32c: verify failed ...") in msg. */
int iogap_verify_check(const struct iogap_verify_read *r, const void *buf, uint32_t len,
		       char *msg, size_t msglen);

/* The blocks written in one pass, in the order written, read back by the
 * verify pass (fio's io_piece log). */
struct iogap_verify_piece {
	uint64_t offset;
	uint32_t len;
	uint16_t numberio;
	uint16_t file;            /* which of the worker's files */
	uint8_t trim;             /* verify-trim (vtrim.c): enum iogap_piece_trim */
};
enum iogap_piece_trim {
	IOGAP_PIECE_KEPT,
	IOGAP_PIECE_TRIMMED,      /* reads back zeros */
	IOGAP_PIECE_DROPPED,      /* trimmed, not read back */
};
struct iogap_verify_log {
	struct iogap_verify_piece *v;
	size_t nr, cap, next;
};
int iogap_verify_log_add(struct iogap_verify_log *log, uint16_t file, uint64_t offset,
			 uint32_t len, uint16_t numberio);
/* verify_pattern: buf's len bytes are the pattern repeated from its start
 * (fio's fill_verify_pattern), before tags and headers are stamped. */
void iogap_verify_fill_pattern(const uint8_t *pattern, unsigned plen, void *buf, uint32_t len);
/* verify_pattern as a block at offset has it: each %o replaced by the
 * offset (fio's paste_format, little-endian, cut at the pattern's end).
 * Returns its length. */
#define IOGAP_VERIFY_PATTERN_MAX 512
struct iogap_job;
unsigned iogap_verify_pattern_at(const struct iogap_job *j, uint64_t offset,
				 uint8_t out[IOGAP_VERIFY_PATTERN_MAX]);
/* fio's verify_dump: the block read, into "BASENAME.OFFSET.received" in
 * dir (fio's --aux-path), NULL for the current directory (fio's name).
 * 0 or -errno. */
int iogap_verify_dump(const char *dir, const char *file, uint64_t offset, const void *buf,
		      uint32_t len);
/* The next piece to read back, NULL after the last one. */
const struct iogap_verify_piece *iogap_verify_log_next(struct iogap_verify_log *log);
void iogap_verify_log_clear(struct iogap_verify_log *log);
void iogap_verify_log_free(struct iogap_verify_log *log);

/* fio's checksums, exposed for tests: its CRCs start at 0 (crc32c at ~0)
 * and are never inverted at the end; xxhash32 with seed 1 in verify. */
uint32_t iogap_crc32c(const void *p, size_t len);
uint64_t iogap_crc64(const void *p, size_t len);   /* Jones, reflected */
uint32_t iogap_crc32(const void *p, size_t len);   /* 0x04c11db7, MSB first */
uint16_t iogap_crc16(const void *p, size_t len);   /* 0x8005, reflected */
uint8_t iogap_crc7(const void *p, size_t len);     /* x^7 + x^3 + 1 */
void iogap_md5(const void *p, size_t len, uint8_t digest[16]);
uint32_t iogap_xxhash32(const void *p, size_t len, uint32_t seed);

#endif
