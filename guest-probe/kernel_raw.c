/* SPDX-License-Identifier: MIT */
/*
 * The pages of a tracefs instance's per_cpu/cpuN/trace_pipe_raw, decoded
 * with libtraceevent (docs/kernel-points.md, "Recording"): the fields of
 * block_rq_issue/complete are found by name in the kernel's own event
 * formats (6.1 and 6.10+ lay them out differently), the stamps are the
 * ring buffer's, in nanoseconds.
 */
#include "kernel_raw.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>
#include <traceevent/kbuffer.h>

#include "iogap/trace.h"
#include "util.h"

/* kbuffer's: the low bits of a page's commit word are its bytes of events */
#define COMMIT_MASK ((1u << 27) - 1)
/* the largest sub-buffer tracefs allows (buffer_subbuf_size_kb) */
#define MAX_PAGE (1 << 20)

/* The fields read of one event, found by name in its format. */
struct block_event {
	int id;
	struct tep_format_field *dev, *sector, *nr_sector, *rwbs, *error;
	int need;                       /* bytes of the event the fields span */
};

struct iogap_kdecoder {
	struct tep_handle *tep;
	struct kbuffer *kbuf;
	struct tep_format_field *type;  /* common_type: which event */
	struct block_event issue, complete;
	size_t page_size, header_size;
	unsigned char *page;            /* the page decoded, with a zeroed tail */
};

/* The field name of ev; a number unless it is the rwbs string. */
static int find_field(struct tep_event *ev, const char *name,
		      struct tep_format_field **f, int *need, char *err, size_t errlen)
{
	*f = tep_find_field(ev, name);
	if (!*f)
		return iogap_seterr(err, errlen, "kernel points: block/%s has no field '%s'",
				    ev->name, name);
	if ((*f)->offset < 0 || (*f)->size <= 0 ||
	    (strcmp(name, "rwbs") && (*f)->size != 1 && (*f)->size != 2 && (*f)->size != 4 &&
	     (*f)->size != 8))
		return iogap_seterr(err, errlen, "kernel points: block/%s: field '%s' of %d bytes",
				    ev->name, name, (*f)->size);
	if ((*f)->offset + (*f)->size > *need)
		*need = (*f)->offset + (*f)->size;
	return 0;
}

static int load_event(struct iogap_kdecoder *d, const char *dir, const char *name,
		      struct block_event *be, char *err, size_t errlen)
{
	char p[768], *fmt;
	struct tep_event *ev;
	size_t len;

	snprintf(p, sizeof(p), "%s/events/block/%s/format", dir, name);
	fmt = iogap_read_file(p, 1 << 20, &len);
	if (!fmt)
		return iogap_seterr(err, errlen, "kernel points: %s: %s", p, strerror(errno));
	/* the result is not checked: a print format libtraceevent cannot parse
	 * still leaves the event's fields, all that is read here */
	tep_parse_event(d->tep, fmt, len, "block");
	free(fmt);
	ev = tep_find_event_by_name(d->tep, "block", name);
	if (!ev)
		return iogap_seterr(err, errlen, "kernel points: %s: not an event format", p);
	be->id = ev->id;
	be->need = 0;
	d->type = tep_find_common_field(ev, "common_type");
	if (!d->type || d->type->size != 2)
		return iogap_seterr(err, errlen, "kernel points: %s: no 2-byte common_type", p);
	if (find_field(ev, "dev", &be->dev, &be->need, err, errlen) ||
	    find_field(ev, "sector", &be->sector, &be->need, err, errlen) ||
	    find_field(ev, "nr_sector", &be->nr_sector, &be->need, err, errlen) ||
	    find_field(ev, "rwbs", &be->rwbs, &be->need, err, errlen))
		return -1;
	be->error = NULL;
	return strcmp(name, "block_rq_complete") ? 0 :
	       find_field(ev, "error", &be->error, &be->need, err, errlen);
}

struct iogap_kdecoder *iogap_kdecoder_open(const char *dir, char *err, size_t errlen)
{
	struct iogap_kdecoder *d = calloc(1, sizeof(*d));
	char p[768], *hp = NULL;
	size_t len;

	if (!d || !(d->tep = tep_alloc())) {
		iogap_seterr(err, errlen, "out of memory");
		goto fail;
	}
	tep_set_loglevel(TEP_LOG_NONE);   /* its complaints are said here, once */
	snprintf(p, sizeof(p), "%s/events/header_page", dir);
	hp = iogap_read_file(p, 1 << 16, &len);
	if (!hp) {
		iogap_seterr(err, errlen, "kernel points: %s: %s", p, strerror(errno));
		goto fail;
	}
	if (tep_parse_header_page(d->tep, hp, len, sizeof(long)) ||
	    tep_get_header_page_size(d->tep) <= 0 || tep_get_header_page_size(d->tep) > 8 ||
	    tep_get_header_timestamp_size(d->tep) != 8 ||
	    tep_get_sub_buffer_size(d->tep) <= 8 + tep_get_header_page_size(d->tep) ||
	    tep_get_sub_buffer_size(d->tep) > MAX_PAGE) {
		iogap_seterr(err, errlen, "kernel points: %s: not a ring buffer page header", p);
		goto fail;
	}
	/* the page header's commit is a kernel long: kbuffer takes its size */
	tep_set_long_size(d->tep, tep_get_header_page_size(d->tep));
	d->header_size = 8 + (size_t)tep_get_header_page_size(d->tep);
	d->page_size = (size_t)tep_get_sub_buffer_size(d->tep);
	if (load_event(d, dir, "block_rq_issue", &d->issue, err, errlen) ||
	    load_event(d, dir, "block_rq_complete", &d->complete, err, errlen))
		goto fail;
	d->kbuf = tep_kbuffer(d->tep);
	d->page = calloc(1, d->page_size + 64);
	if (!d->kbuf || !d->page) {
		iogap_seterr(err, errlen, "out of memory");
		goto fail;
	}
	free(hp);
	return d;
fail:
	free(hp);
	iogap_kdecoder_free(d);
	return NULL;
}

void iogap_kdecoder_free(struct iogap_kdecoder *d)
{
	if (!d)
		return;
	if (d->kbuf)
		kbuffer_free(d->kbuf);
	if (d->tep)
		tep_free(d->tep);
	free(d->page);
	free(d);
}

size_t iogap_kdecoder_page_size(const struct iogap_kdecoder *d)
{
	return d->page_size;
}

static uint8_t rwbs_op(const char *rwbs, uint32_t nr_sector, uint8_t *fua)
{
	const char *rw = strpbrk(rwbs, "RWDEN");

	*fua = rw && strchr(rw + 1, 'F');
	if (!rw)
		return rwbs[0] == 'F' && nr_sector == 0 ? IOGAP_OP_FLUSH : IOGAP_OP_OTHER;
	switch (*rw) {
	case 'R': return IOGAP_OP_READ;
	case 'W': return IOGAP_OP_WRITE;
	case 'D': return IOGAP_OP_TRIM;
	default: return IOGAP_OP_OTHER;
	}
}

/* A number field, in the host's order: the trace is the running kernel's
 * (find_field took only sizes 1, 2, 4 and 8).  Faster than libtraceevent's
 * reader, which the reader thread would call five times per event. */
static uint64_t number(const struct tep_format_field *f, const void *data)
{
	const unsigned char *p = (const unsigned char *)data + f->offset;
	uint8_t u8;
	uint16_t u16;
	uint32_t u32;
	uint64_t u64;

	switch (f->size) {
	case 1: memcpy(&u8, p, 1); return u8;
	case 2: memcpy(&u16, p, 2); return u16;
	case 4: memcpy(&u32, p, 4); return u32;
	default: memcpy(&u64, p, 8); return u64;
	}
}

/* One event's fields; -1 when it is not one of the two or is too short. */
static int decode_event(const struct iogap_kdecoder *d, const void *data, int size,
			struct iogap_kevent *ev)
{
	int id = (int)number(d->type, data);
	const struct block_event *be = id == d->issue.id ? &d->issue :
				       id == d->complete.id ? &d->complete : NULL;
	char rwbs[16] = "";
	uint64_t dev;

	if (!be || size < be->need)
		return -1;
	memset(ev, 0, sizeof(*ev));
	ev->complete = be == &d->complete;
	dev = number(be->dev, data);
	ev->dev_major = (uint32_t)(dev >> 20);
	ev->dev_minor = (uint32_t)(dev & ((1u << 20) - 1));
	ev->sector = number(be->sector, data);
	ev->nr_sector = (uint32_t)number(be->nr_sector, data);
	if (be->error)
		ev->error = (int32_t)number(be->error, data);
	memcpy(rwbs, (const char *)data + be->rwbs->offset,
	       be->rwbs->size < (int)sizeof(rwbs) ? (size_t)be->rwbs->size : sizeof(rwbs) - 1);
	ev->op = rwbs_op(rwbs, ev->nr_sector, &ev->fua);
	return 0;
}

int iogap_kdecoder_page(struct iogap_kdecoder *d, const void *page, size_t len,
			void (*take)(void *arg, const struct iogap_kevent *ev), void *arg,
			char *err, size_t errlen)
{
	unsigned long long ts;
	uint64_t commit = 0;
	int n = 0;

	if (len < d->header_size || len > d->page_size)
		return iogap_seterr(err, errlen, "a page of %zu bytes (pages are %zu)", len,
				    d->page_size);
	/* the copy's zeroed tail: a bad length in the page cannot lead
	 * libtraceevent past the buffer */
	memcpy(d->page, page, len);
	memset(d->page + len, 0, d->page_size + 64 - len);
	memcpy(&commit, d->page + 8, d->header_size - 8);   /* after the u64 stamp */
	if ((commit & COMMIT_MASK) > len - d->header_size)
		return iogap_seterr(err, errlen, "a page claims %" PRIu64 " bytes of events in %zu",
				    commit & COMMIT_MASK, len - d->header_size);
	kbuffer_load_subbuffer(d->kbuf, d->page);
	for (void *data = kbuffer_read_event(d->kbuf, &ts); data;
	     data = kbuffer_next_event(d->kbuf, &ts)) {
		struct iogap_kevent ev;
		int size = kbuffer_event_size(d->kbuf);

		if ((unsigned char *)data + size > d->page + len || decode_event(d, data, size, &ev))
			return iogap_seterr(err, errlen, "an event of type %d, %d bytes, at offset "
					    "%d is not a block request event",
					    (int)number(d->type, data), size,
					    kbuffer_curr_offset(d->kbuf));
		ev.ns = ts;
		take(arg, &ev);
		n++;
	}
	return n;
}

uint64_t iogap_kstats_lost(const char *stats)
{
	static const char *const counted[] = { "overrun: ", "commit overrun: ",
					       "dropped events: " };
	uint64_t lost = 0;

	for (const char *line = stats; line && *line; line = strchr(line, '\n'), line += !!line)
		for (size_t i = 0; i < sizeof(counted) / sizeof(*counted); i++)
			if (!strncmp(line, counted[i], strlen(counted[i])))
				lost += strtoull(line + strlen(counted[i]), NULL, 10);
	return lost;
}
