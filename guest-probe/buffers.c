/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "buffers.h"

bool iogap_buffers_scramble(const struct iogap_job *j)
{
	/* fio's buffer_pattern callback clears scramble_buffers */
	if (!j->scramble_buffers || j->refill_buffers || j->verify || j->buffer_pattern_len)
		return false;
	return j->scramble_buffers_set || !(j->zero_buffers && j->zero_buffers_set);
}

void iogap_buffer_scramble(void *buf, uint32_t len, uint64_t offset, uint64_t now_ns)
{
	uint64_t stamp[2] = { now_ns / 1000000000ULL, now_ns % 1000000000ULL };
	/* fio: one of the 8 cache lines of a block, (nsec ^ offset) & 7 */
	unsigned line = (unsigned)((stamp[1] ^ offset) & 7);
	char *p = buf;

	for (uint32_t i = 0; i < len >> 9; i++, p += 512, offset += 512) {
		memcpy(p + (line << 6), &offset, sizeof(offset));
		memcpy(p + 64 - sizeof(stamp), stamp, sizeof(stamp));
	}
}
