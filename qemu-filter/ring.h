/* SPDX-License-Identifier: MIT */
/*
 * iogap shared-memory ring writer (multi-producer, lock-free, never blocks).
 *
 * File layout is the one of include/iogap/trace.h: header, info text, padding
 * to 64, struct iogap_ring_control, capacity record slots.  capacity is a
 * power of two, so slot = seq % capacity = seq & mask.  The mapping is page
 * aligned and the control starts at a multiple of 64 and is 64 bytes, so every
 * 64-byte slot is exactly one cache line: a producer's store touches one line,
 * and producers on different threads never write into the same line.
 *
 * Producers (any thread): reserve a sequence number with a CAS on a private
 * reservation counter, refusing (drop + count) when reserve - read_seq would
 * reach capacity; fill the slot; publish.  Publishing keeps write_seq a
 * contiguous "everything below is complete" cursor: the producer whose slot is
 * at write_seq advances it with a CAS; a producer that finishes out of order
 * marks its slot in a private per-slot commit array and whoever advances
 * write_seq next also advances over committed slots.  The commit store and the
 * loads that follow are seq_cst, so a committed slot is never stranded (no
 * lost wake-up between "I committed" and "the head moved").  A count of such
 * marks (pending, incremented before the mark is made, seq_cst) lets the
 * in-order producer skip the commit array entirely in the common case: if it
 * reads pending == 0 after its CAS, any later marker will itself see the
 * advanced write_seq.
 *
 * Readers (other processes) read slots [read_seq, write_seq) after an acquire
 * load of write_seq, then store read_seq (release).  Without a reader, the ring
 * fills once and later records are dropped and counted in control->dropped.
 *
 * No QEMU dependency: this file is also used by the tests' ring reader.
 */
#ifndef IOGAP_QEMU_FILTER_RING_H
#define IOGAP_QEMU_FILTER_RING_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <string.h>
#include <sys/types.h>
#include "iogap/trace.h"

struct iogap_ring {
	/* hot, written by producers: own cache line */
	uint64_t reserve __attribute__((aligned(64)));
	uint64_t pending;                 /* slots committed out of order, not yet passed */
	/* read-mostly */
	struct iogap_ring_control *ctl __attribute__((aligned(64)));
	struct iogap_trace_record *slots;
	uint64_t *commit;                 /* private: seq + 1 once slot seq is filled */
	uint64_t mask;
	struct iogap_trace_header *hdr;
	void *map;
	size_t map_size;
	int fd;
	/* the file this process created: removed only through these */
	int dirfd;                        /* its directory, opened at creation */
	char name[NAME_MAX + 1];
	dev_t dev;
	ino_t ino;
	bool created;                     /* still there, as far as we know */
};

/*
 * Create the ring file at path, capacity rounded up to a power of two (minimum
 * 2).  info: "key=value\n" lines, may be NULL.  Returns 0 or -errno with a
 * message in err.
 *
 * The file must be new: an existing name (a file, device node, symlink, even a
 * dangling one) is refused with EEXIST and left as it is (O_CREAT | O_EXCL |
 * O_NOFOLLOW).  Its directory must belong to this user or root and must not be
 * writable by others unless sticky; a symbolic link in the path that another
 * user planted in a sticky world-writable directory is refused (-EPERM).
 *
 * The file's blocks are allocated up front (posix_fallocate): a full
 * filesystem fails here with -ENOSPC ("no room"), never with a SIGBUS on a
 * later store into the mapping.  A file over IOGAP_RING_MAX_FILE: -EFBIG.
 * On a failure after creation the file created here is removed.
 */
int iogap_ring_create(struct iogap_ring *r, const char *path, uint64_t capacity,
		      const char *layer, uint64_t run_id, const char *info,
		      uint64_t start_ns, char *err, size_t errlen);

/* Mark complete (end_ns, dropped, COMPLETE flag) and unmap; with remove, also
 * unlink the file, if its name still refers to the file created here (a
 * reader that has it mapped keeps its records).  Idempotent. */
void iogap_ring_close(struct iogap_ring *r, uint64_t end_ns, bool remove);

/* Unlink the ring file created here (same check as close) without closing it:
 * for process exit, while other threads may still write into the mapping. */
void iogap_ring_unlink(struct iogap_ring *r);

/* Round up to a power of two, clamp to [2, 1<<30]. */
uint64_t iogap_ring_capacity(uint64_t want);

/* Byte offsets inside the file for a given info text size and capacity. */
static inline uint64_t iogap_ring_ctl_offset(uint32_t info_size)
{
	uint64_t o = sizeof(struct iogap_trace_header) + info_size;
	return (o + IOGAP_TRACE_ALIGN - 1) & ~(uint64_t)(IOGAP_TRACE_ALIGN - 1);
}

/* The ring file never grows past this (iogap_ring_create refuses with -EFBIG). */
#define IOGAP_RING_MAX_FILE (1ull << 30)

/* Size of the ring file for an info text size and a (power of two) capacity. */
static inline uint64_t iogap_ring_file_size(uint32_t info_size, uint64_t cap)
{
	return iogap_ring_ctl_offset(info_size) + sizeof(struct iogap_ring_control) +
	       cap * sizeof(struct iogap_trace_record);
}

/* Largest capacity whose file fits IOGAP_RING_MAX_FILE. */
static inline uint64_t iogap_ring_max_capacity(uint32_t info_size)
{
	uint64_t c = 2;
	while (iogap_ring_file_size(info_size, c << 1) <= IOGAP_RING_MAX_FILE)
		c <<= 1;
	return c;
}

#define IOGAP_RING_FULL UINT64_MAX   /* iogap_ring_reserve(): the record is dropped */

/*
 * Reserve the next slot: its sequence number, or IOGAP_RING_FULL when the ring
 * is full (the record is dropped and counted).  Never blocks.  The caller
 * stores the record into iogap_ring_slot() itself (one cache line, written
 * once: no copy through the stack) and then calls iogap_ring_publish().
 */
static inline uint64_t iogap_ring_reserve(struct iogap_ring *r)
{
	struct iogap_ring_control *ctl = r->ctl;
	uint64_t cap = r->mask + 1;
	uint64_t s = __atomic_load_n(&r->reserve, __ATOMIC_RELAXED);

	do {
		uint64_t rd = __atomic_load_n(&ctl->read_seq, __ATOMIC_ACQUIRE);
		if (s - rd >= cap) {
			__atomic_fetch_add(&ctl->dropped, 1, __ATOMIC_RELAXED);
			return IOGAP_RING_FULL;
		}
	} while (!__atomic_compare_exchange_n(&r->reserve, &s, s + 1, 1,
					      __ATOMIC_ACQUIRE, __ATOMIC_RELAXED));
	return s;
}

static inline struct iogap_trace_record *iogap_ring_slot(struct iogap_ring *r, uint64_t seq)
{
	return &r->slots[seq & r->mask];
}

/* Publish the slot of sequence number s, filled since iogap_ring_reserve(). */
static inline void iogap_ring_publish(struct iogap_ring *r, uint64_t s)
{
	struct iogap_ring_control *ctl = r->ctl;
	uint64_t w = s;

	if (__atomic_compare_exchange_n(&ctl->write_seq, &w, s + 1, 0,
					__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
		/* in order (the common case): done unless someone left a mark */
		if (__builtin_expect(__atomic_load_n(&r->pending, __ATOMIC_SEQ_CST) == 0, 1))
			return;
	} else {
		/* out of order: leave a mark for whoever advances the head */
		__atomic_fetch_add(&r->pending, 1, __ATOMIC_SEQ_CST);
		__atomic_store_n(&r->commit[s & r->mask], s + 1, __ATOMIC_SEQ_CST);
	}
	/* help: advance over slots committed out of order */
	for (;;) {
		w = __atomic_load_n(&ctl->write_seq, __ATOMIC_SEQ_CST);
		if (__atomic_load_n(&r->commit[w & r->mask], __ATOMIC_SEQ_CST) != w + 1)
			break;
		if (__atomic_compare_exchange_n(&ctl->write_seq, &w, w + 1, 0,
						__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
			__atomic_fetch_sub(&r->pending, 1, __ATOMIC_SEQ_CST);
	}
}

/* Append a copy of a record built elsewhere; 1 if stored, 0 if dropped. */
static inline int iogap_ring_put(struct iogap_ring *r, const struct iogap_trace_record *rec)
{
	uint64_t seq = iogap_ring_reserve(r);

	if (seq == IOGAP_RING_FULL)
		return 0;
	*iogap_ring_slot(r, seq) = *rec;
	iogap_ring_publish(r, seq);
	return 1;
}

#endif
