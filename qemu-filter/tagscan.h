/* SPDX-License-Identifier: MIT */
/*
 * Write-tag scan of a write payload given as an iovec (no QEMU dependency:
 * the filter calls it with a QEMUIOVector's iov/niov, tests/filter/tagscan.c
 * with its own vectors).
 *
 * Tags: struct iogap_write_tag at the start of every IOGAP_TAG_STRIDE bytes of
 * each request the guest issued.  The guest block layer may merge adjacent
 * requests into one, so the payload is scanned at every 512-byte sector start
 * (a merged request's parts start on sectors) and one part is emitted per tag
 * found: each guest request then pairs exactly.
 *
 * Cost: a payload in one element that is one part (untagged, or the tags of
 * one request) is a pointer stepping by sectors, one 8-byte compare each, and
 * a tag check where the magic is (iogap_tagscan_one_part);
 * otherwise a forward-only cursor (element index, offset in element) follows the
 * sector position, so a scan is linear in sectors + elements, whatever the
 * shape of the vector (a 1 MiB write in 4 KiB elements: 2048 steps, not
 * 2048 x 256).  Only an 8-byte magic compare per sector unless a tag is there
 * (sectors inside one element: a pointer step each, iogap_tagscan_plain);
 * a magic or tag that straddles elements is gathered across them.  No
 * allocation.
 */
#ifndef IOGAP_QEMU_FILTER_TAGSCAN_H
#define IOGAP_QEMU_FILTER_TAGSCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/uio.h>
#include "iogap/trace.h"

#define IOGAP_SECTOR 512u

struct iogap_iov_cursor {
	const struct iovec *iov;
	int niov;
	int i;            /* current element (niov: past the end) */
	size_t off;       /* offset inside element i; always < its length */
};

/* Move forward n bytes; skips empty elements, so off < iov[i].iov_len or i == niov. */
static inline void iogap_iov_cursor_skip(struct iogap_iov_cursor *c, size_t n)
{
	while (c->i < c->niov) {
		size_t left = c->iov[c->i].iov_len - c->off;

		if (n < left) {
			c->off += n;
			return;
		}
		n -= left;
		c->i++;
		c->off = 0;
	}
}

static inline void iogap_iov_cursor_init(struct iogap_iov_cursor *c, const struct iovec *iov,
					 int niov, size_t offset)
{
	c->iov = iov;
	c->niov = niov;
	c->i = 0;
	c->off = 0;
	iogap_iov_cursor_skip(c, offset);
}

/* Copy len bytes at the cursor (gathering across elements) without moving it. */
static inline bool iogap_iov_cursor_peek(const struct iogap_iov_cursor *c, void *dst, size_t len)
{
	size_t off = c->off, got = 0;
	int i = c->i;

	if (__builtin_expect(i < c->niov && c->iov[i].iov_len - off >= len, 1)) {
		memcpy(dst, (const uint8_t *)c->iov[i].iov_base + off, len);
		return true;
	}
	for (; i < c->niov && got < len; i++, off = 0) {
		size_t l = c->iov[i].iov_len - off, n = l < len - got ? l : len - got;

		memcpy((uint8_t *)dst + got, (const uint8_t *)c->iov[i].iov_base + off, n);
		got += n;
	}
	return got == len;
}

/*
 * From sector position pos, pass over the sectors whose first 8 bytes lie in
 * the cursor's current element and are not the tag magic (the common case:
 * an untagged payload, or the sectors between tags): a pointer stepping
 * through the element, the cursor moved once.  Returns the new position: a
 * sector to look at closely (magic found, or not wholly in this element), or
 * the end of the scan range.
 */
static inline uint64_t iogap_tagscan_plain(struct iogap_iov_cursor *c, uint64_t pos,
					   uint64_t bytes)
{
	const uint8_t *p, *end;
	uint64_t n, in_elem;
	size_t left;

	if (c->i >= c->niov || pos + sizeof(struct iogap_write_tag) > bytes)
		return pos;
	left = c->iov[c->i].iov_len - c->off;
	if (left < sizeof(uint64_t))
		return pos;
	/* the sectors to look at: a tag fits before the end of the range, and
	 * the magic lies in this element; counted once, so the loop below is a
	 * load, a compare and a pointer step per sector */
	n = (bytes - sizeof(struct iogap_write_tag) - pos) / IOGAP_SECTOR + 1;
	in_elem = (left - sizeof(uint64_t)) / IOGAP_SECTOR + 1;
	if (in_elem < n)
		n = in_elem;
	p = (const uint8_t *)c->iov[c->i].iov_base + c->off;
	end = p + n * IOGAP_SECTOR;
	for (const uint8_t *q = p; q < end; q += IOGAP_SECTOR) {
		uint64_t magic;

		memcpy(&magic, q, sizeof(magic));
		if (magic == IOGAP_TAG_MAGIC) {
			end = q;
			break;
		}
	}
	iogap_iov_cursor_skip(c, (size_t)(end - p));
	return pos + (uint64_t)(end - p);
}

/*
 * emit(ctx, part_start, part_len, flags, tag) once per part of the payload
 * [0, bytes) of iov (starting iov_offset bytes in): flags are IOGAP_REC_TAGGED
 * (tag read from a valid write tag) and IOGAP_REC_MERGED (the payload held
 * several requests).  run_id != 0: tags of another run are ignored.
 */
typedef void (*iogap_tagscan_emit)(void *ctx, uint64_t start, uint64_t len, uint8_t flags,
				   uint64_t tag);

/* The rest of iogap_tagscan_one_part() from the first magic, at p: sectors
 * from start to end.  Out of line, so that the untagged payload's pointer
 * loop keeps everything in registers. */
static __attribute__((noinline, unused)) bool
iogap_tagscan_one_part_tags(const uint8_t *p, const uint8_t *start, const uint8_t *end,
			    uint64_t run_id, uint8_t *flags, uint64_t *tag)
{
	for (;; p += IOGAP_SECTOR) {
		struct iogap_write_tag t;

		memcpy(&t, p, sizeof(t));
		if (t.magic == IOGAP_TAG_MAGIC && iogap_tag_valid(&t) &&
		    (!run_id || t.run_id == run_id)) {
			/* a second request, or one that starts inside: two parts */
			if (*flags ? t.request_id != *tag :
				     (uint64_t)t.block * IOGAP_TAG_STRIDE < (uint64_t)(p - start))
				return false;
			*flags = IOGAP_REC_TAGGED;
			*tag = t.request_id;
		}
		if (p == end)
			return true;
	}
}

/*
 * The tags of a payload in one element, read by a pointer stepping through
 * the sectors where a whole tag fits: true when they make it one part, the
 * parts scan's result decided without its cursor.  That is when no valid tag
 * (of run_id, when set) is there (*flags 0, *tag 0: an untagged payload, the
 * common case of any other workload), or when all valid tags name one request
 * that starts at the payload's start (*flags IOGAP_REC_TAGGED, *tag its id:
 * the common case of the probe's writes).  A caller that gets true records the
 * request directly, without the emit callback.
 */
static inline bool iogap_tagscan_one_part(const struct iovec *iov, int niov, size_t iov_offset,
					  uint64_t bytes, uint64_t run_id, uint8_t *flags,
					  uint64_t *tag)
{
	const uint8_t *start, *end;

	if (!iov || niov < 1 || bytes < sizeof(struct iogap_write_tag) ||
	    iov[0].iov_len < iov_offset || iov[0].iov_len - iov_offset < bytes)
		return false;
	*flags = 0;
	*tag = 0;
	start = (const uint8_t *)iov[0].iov_base + iov_offset;
	end = start + (bytes - sizeof(struct iogap_write_tag)) / IOGAP_SECTOR * IOGAP_SECTOR;
	for (const uint8_t *p = start;; p += IOGAP_SECTOR) {
		uint64_t magic;

		memcpy(&magic, p, sizeof(magic));
		if (__builtin_expect(magic == IOGAP_TAG_MAGIC, 0))
			return iogap_tagscan_one_part_tags(p, start, end, run_id, flags, tag);
		if (p == end)
			return true;
	}
}

/* The scan with the cursor: any vector, any tags (iogap_tagscan() without its
 * shortcut, for a caller that tried iogap_tagscan_one_part() itself). */
static inline void iogap_tagscan_parts(const struct iovec *iov, int niov, size_t iov_offset,
				       uint64_t bytes, uint64_t run_id, iogap_tagscan_emit emit,
				       void *ctx)
{
	struct iogap_iov_cursor c;
	uint64_t seg_tag = 0, seg_start = 0;
	bool tagged = false;

	iogap_iov_cursor_init(&c, iov, iov ? niov : 0, iov_offset);
	for (uint64_t pos = 0; iov && pos + sizeof(struct iogap_write_tag) <= bytes;
	     pos += IOGAP_SECTOR, iogap_iov_cursor_skip(&c, IOGAP_SECTOR)) {
		struct iogap_write_tag t;
		uint64_t magic, req_start;

		pos = iogap_tagscan_plain(&c, pos, bytes);
		if (pos + sizeof(struct iogap_write_tag) > bytes)
			break;
		if (!iogap_iov_cursor_peek(&c, &magic, sizeof(magic)))
			break;
		if (magic != IOGAP_TAG_MAGIC || !iogap_iov_cursor_peek(&c, &t, sizeof(t)) ||
		    !iogap_tag_valid(&t) || (run_id && t.run_id != run_id) ||
		    (tagged && t.request_id == seg_tag))
			continue;
		/* another request: it began t.block strides before this tag
		 * (not before the current part); close the current part there */
		req_start = (uint64_t)t.block * IOGAP_TAG_STRIDE <= pos ?
			    pos - (uint64_t)t.block * IOGAP_TAG_STRIDE : 0;
		if (req_start < seg_start)
			req_start = seg_start;
		if (req_start > seg_start)
			emit(ctx, seg_start, req_start - seg_start,
			     (tagged ? IOGAP_REC_TAGGED : 0) | IOGAP_REC_MERGED, seg_tag);
		seg_start = req_start;
		seg_tag = t.request_id;
		tagged = true;
	}
	emit(ctx, seg_start, bytes - seg_start,
	     (seg_start ? IOGAP_REC_MERGED : 0) | (tagged ? IOGAP_REC_TAGGED : 0), seg_tag);
}

static inline void iogap_tagscan(const struct iovec *iov, int niov, size_t iov_offset,
				 uint64_t bytes, uint64_t run_id, iogap_tagscan_emit emit,
				 void *ctx)
{
	uint8_t flags;
	uint64_t tag;

	if (iogap_tagscan_one_part(iov, niov, iov_offset, bytes, run_id, &flags, &tag))
		emit(ctx, 0, bytes, flags, tag);
	else
		iogap_tagscan_parts(iov, niov, iov_offset, bytes, run_id, emit, ctx);
}

#endif
