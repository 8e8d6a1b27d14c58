/* SPDX-License-Identifier: MIT */
/*
 * iogap trace format: the one contract between the probe, the QEMU filter
 * and the host tools.  Header-only, no dependencies beyond <stdint.h>, so
 * the filter can include it without linking anything of ours.
 *
 * A trace is a file (or a shared-memory ring file) laid out as:
 *
 *   struct iogap_trace_header          fixed, header_size bytes
 *   info text                          info_size bytes, "key=value\n" lines
 *   padding to a multiple of 64
 *   [struct iogap_ring_control]        only when IOGAP_TRACE_F_RING is set
 *   records                            record_size bytes each
 *
 * The records start at a multiple of 64 bytes (in a ring: after the 64-byte
 * ring control) and are 64 bytes each, so every record fills exactly one
 * cache line: a filter thread storing a record into the shared ring touches
 * one line, never two.
 *
 * Everything is little-endian.  Readers must check magic, version,
 * header_size, record_size and that the file is long enough for what the
 * header claims.  See docs/trace-format.md.
 */
#ifndef IOGAP_TRACE_H
#define IOGAP_TRACE_H

#include <stdint.h>

#define IOGAP_TRACE_MAGIC       "IOGAPTRC"   /* 8 bytes, no terminator stored */
#define IOGAP_TRACE_MAGIC_LEN   8
#define IOGAP_TRACE_VERSION     2   /* 2: 64-byte records (1: 56) */
#define IOGAP_TRACE_ALIGN       64

/* Who wrote the trace. */
enum iogap_producer {
	IOGAP_PRODUCER_PROBE_BARE  = 1,   /* iogap-probe on the host */
	IOGAP_PRODUCER_PROBE_GUEST = 2,   /* iogap-probe inside a VM */
	IOGAP_PRODUCER_FILTER      = 3,   /* QEMU filter node, layer in header */
};

/* Which clock the timestamps come from (ns). */
enum iogap_clock {
	IOGAP_CLOCK_HOST_MONOTONIC  = 1,  /* CLOCK_MONOTONIC of the host */
	IOGAP_CLOCK_GUEST_MONOTONIC = 2,  /* CLOCK_MONOTONIC of a guest: needs mapping */
};

enum iogap_trace_flags {
	IOGAP_TRACE_F_RING     = 1u << 0, /* records live in a ring, see ring control */
	IOGAP_TRACE_F_COMPLETE = 1u << 1, /* writer closed the trace cleanly */
};

struct iogap_trace_header {
	char     magic[IOGAP_TRACE_MAGIC_LEN];
	uint16_t version;
	uint16_t header_size;     /* sizeof(struct iogap_trace_header) */
	uint16_t record_size;     /* sizeof(struct iogap_trace_record) */
	uint16_t producer;        /* enum iogap_producer */
	uint16_t clock;           /* enum iogap_clock */
	uint16_t flags;           /* enum iogap_trace_flags */
	uint32_t info_size;       /* bytes of info text after the header */
	uint64_t run_id;          /* random per run; also inside write tags */
	uint8_t  boot_id[16];     /* /proc/sys/kernel/random/boot_id of the writer */
	char     layer[16];       /* producer's layer name, NUL padded: "guest", "bare", "top", ... */
	uint64_t records_offset;  /* byte offset of the first record (or ring control) */
	uint64_t record_count;    /* plain files: records written; rings: capacity */
	uint64_t dropped;         /* records lost (ring full, write error) */
	uint64_t start_ns;        /* clock value when the writer started */
	uint64_t end_ns;          /* clock value when it closed; 0 while open */
	uint8_t  reserved[56];
};

/*
 * Shared-memory ring (filter).  Several QEMU threads may produce into one
 * ring: write_seq is the contiguous count of complete records, readers
 * consume [read_seq, write_seq) after an acquire load of write_seq and
 * then advance read_seq.  Capacity (the header's record_count) is a power
 * of two; a record's slot is seq & (capacity - 1).  When the ring is full
 * the newest record is dropped and counted in dropped (the oldest are kept
 * until a reader advances read_seq); the I/O path never blocks.  At close
 * the writer copies dropped into the header.  A filter record's thread is
 * the thread that completed the request.
 */
struct iogap_ring_control {
	uint64_t write_seq;       /* records published (monotonic) */
	uint64_t read_seq;        /* records consumed by a live reader */
	uint64_t dropped;         /* records the producer could not store */
	uint64_t reserved[5];
};

enum iogap_op {
	IOGAP_OP_READ  = 0,
	IOGAP_OP_WRITE = 1,
	IOGAP_OP_TRIM  = 2,   /* fio's ddir order: read, write, trim */
	IOGAP_OP_FLUSH = 3,
	IOGAP_OP_WRITE_ZEROES = 4,
	IOGAP_OP_OTHER = 5,
};

enum iogap_record_flags {
	IOGAP_REC_TAGGED   = 1u << 0, /* tag came from a valid write tag */
	IOGAP_REC_RAMP     = 1u << 1, /* issued during ramp_time (not in stats) */
	IOGAP_REC_FUA      = 1u << 2,
	IOGAP_REC_SYNC_OP  = 1u << 3, /* fsync/fdatasync issued by the job */
	IOGAP_REC_MERGED   = 1u << 4, /* filter: one part of a request that carried
				       * several write tags (the guest merged
				       * requests); each part gets its own record */
};

/*
 * A probe job with several files per clone (fio's nrfiles, filename=a:b)
 * records, in offset, the file's index in the clone's list (0..nrfiles-1)
 * above this bit, and the offset in that file below it; a job with one
 * file per clone records plain offsets (index 0).  The trace's info text
 * names the files (docs/trace-format.md).
 */
#define IOGAP_TRACE_FILE_SHIFT 48
#define IOGAP_TRACE_FILE_OFFSET(off) ((off) & ((1ULL << IOGAP_TRACE_FILE_SHIFT) - 1))

/*
 * One request.  The probe fills start/issue/complete as fio's slat/clat:
 * slat = issue_ns - start_ns, clat = complete_ns - issue_ns,
 * lat = complete_ns - start_ns.  The filter sets start_ns = issue_ns =
 * entry into the node and complete_ns = exit from it.
 */
struct iogap_trace_record {
	uint64_t tag;             /* request id (probe) or tag read from payload (filter) */
	uint64_t offset;          /* bytes */
	uint64_t start_ns;        /* probe: I/O prepared, submit begins */
	uint64_t issue_ns;        /* probe: submit call returned */
	uint64_t complete_ns;     /* completion seen */
	uint32_t length;          /* bytes */
	int32_t  result;          /* bytes transferred, or -errno */
	uint32_t thread;          /* producer thread (tid) */
	uint16_t job;             /* probe: job index; filter: 0 */
	uint8_t  op;              /* enum iogap_op */
	uint8_t  flags;           /* enum iogap_record_flags */
	uint64_t reserved;        /* zero: pads the record to one cache line */
};

/*
 * Write tag: stamped at the start of every IOGAP_TAG_STRIDE bytes of a
 * written buffer, so a request split below the guest still carries it.
 */
#define IOGAP_TAG_MAGIC   0x5441544741474f49ULL   /* "IOGAGTAT" */
#define IOGAP_TAG_STRIDE  4096u

struct iogap_write_tag {
	uint64_t magic;           /* IOGAP_TAG_MAGIC */
	uint64_t run_id;
	uint64_t request_id;
	uint32_t block;           /* index of this stride inside the request */
	uint32_t check;           /* iogap_tag_check() of the fields above */
};

static inline uint32_t iogap_tag_check(const struct iogap_write_tag *t)
{
	uint64_t h = t->magic ^ (t->run_id * 0x9e3779b97f4a7c15ULL) ^
		     (t->request_id * 0xc2b2ae3d27d4eb4fULL) ^ t->block;
	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ULL;
	h ^= h >> 32;
	return (uint32_t)h;
}

/* Is buf (at least sizeof(struct iogap_write_tag) bytes) a valid tag? */
static inline int iogap_tag_valid(const struct iogap_write_tag *t)
{
	return t->magic == IOGAP_TAG_MAGIC && t->check == iogap_tag_check(t);
}

_Static_assert(sizeof(struct iogap_trace_header) == 160, "trace header size");
_Static_assert(sizeof(struct iogap_trace_record) == IOGAP_TRACE_ALIGN, "a record is one cache line");
_Static_assert(sizeof(struct iogap_ring_control) == 64, "ring control size");
_Static_assert(sizeof(struct iogap_write_tag) == 32, "write tag size");

#endif
