/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <string.h>

#include "blktrace.h"
#include "util.h"

static uint32_t swap32(uint32_t v)
{
	return __builtin_bswap32(v);
}

static void swap_trace(struct blk_io_trace *t)
{
	t->magic = swap32(t->magic);
	t->sequence = swap32(t->sequence);
	t->time = __builtin_bswap64(t->time);
	t->sector = __builtin_bswap64(t->sector);
	t->bytes = swap32(t->bytes);
	t->action = swap32(t->action);
	t->pid = swap32(t->pid);
	t->device = swap32(t->device);
	t->cpu = swap32(t->cpu);
	t->error = __builtin_bswap16(t->error);
	t->pdu_len = __builtin_bswap16(t->pdu_len);
}

bool iogap_blktrace_detect(FILE *f, bool *swap)
{
	struct blk_io_trace t;
	bool bt = false;

	if (fread(&t, 1, sizeof(t), f) == sizeof(t)) {
		*swap = (t.magic & 0xffffff00u) != BT_MAGIC;
		bt = !*swap || (swap32(t.magic) & 0xffffff00u) == BT_MAGIC;
	}
	rewind(f);
	return bt;
}

int iogap_blktrace_read(FILE *f, bool swap, struct blk_io_trace *t, char *why, size_t whylen)
{
	size_t got = fread(t, 1, sizeof(*t), f);

	if (!got && feof(f))
		return 0;
	if (ferror(f))
		return iogap_seterr(why, whylen, "read error: %s", strerror(errno));
	if (got < sizeof(*t))
		return iogap_seterr(why, whylen, "truncated record");
	if (swap)
		swap_trace(t);
	if ((t->magic & 0xffffff00u) != BT_MAGIC)
		return iogap_seterr(why, whylen, "bad magic (not blktrace data)");
	if ((t->magic & 0xff) != BT_VERSION)
		return iogap_seterr(why, whylen, "bad blktrace version (fio reads version 7)");
	if (t->pdu_len && fseek(f, t->pdu_len, SEEK_CUR))
		return iogap_seterr(why, whylen, "cannot skip the payload: %s", strerror(errno));
	return 1;
}

int iogap_blktrace_ddir(uint32_t action)
{
	if (action & BT_TC_READ)
		return 0;
	if (action & BT_TC_WRITE)
		return 1;
	return action & BT_TC_DISCARD ? 2 : -1;
}

int iogap_blktrace_write(FILE *f, const struct blk_io_trace *t)
{
	struct blk_io_trace out = *t;

	out.pdu_len = 0;
	return fwrite(&out, sizeof(out), 1, f) == 1 ? 0 : -1;
}
