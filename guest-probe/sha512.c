/* SPDX-License-Identifier: MIT */
/*
 * fio 3.33's verify=sha512 bytes (sha.h).  Its fill_sha512 and
 * verify_io_u_sha512 call fio_sha512_init and fio_sha512_update but no
 * final, and compare the context's buffer: the 128-byte block buffer
 * that update first fills with the data's first block and at the end
 * overwrites with the data's trailing partial block.  The SHA-512 state
 * is computed and thrown away, so no SHA-512 is needed to match it: the
 * "digest" is a copy of the data's first and last bytes (a change
 * elsewhere in the block goes unnoticed by fio and by the probe alike).
 */
#include <string.h>

#include "sha.h"

void iogap_sha512_fio(const void *p, size_t len, uint8_t out[128])
{
	const uint8_t *b = p;
	size_t rest = len % 128;

	memcpy(out, b, 128);
	memcpy(out, b + len - rest, rest);
}
