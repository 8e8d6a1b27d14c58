/* SPDX-License-Identifier: MIT */
/*
 * SHA-1 (FIPS 180-4, 6.1) for fio's verify=sha1 (sha.h).
 */
#include <string.h>

#include "sha.h"

static uint32_t rol(uint32_t x, unsigned r)
{
	return (x << r) | (x >> (32 - r));
}

static void sha1_block(uint32_t h[5], const uint8_t *blk)
{
	uint32_t w[80], a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];

	for (int t = 0; t < 16; t++)
		w[t] = (uint32_t)blk[4 * t] << 24 | (uint32_t)blk[4 * t + 1] << 16 |
		       (uint32_t)blk[4 * t + 2] << 8 | blk[4 * t + 3];
	for (int t = 16; t < 80; t++)
		w[t] = rol(w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16], 1);
	for (int t = 0; t < 80; t++) {
		uint32_t f, k, tmp;

		if (t < 20)
			f = (b & c) | (~b & d), k = 0x5a827999;
		else if (t < 40)
			f = b ^ c ^ d, k = 0x6ed9eba1;
		else if (t < 60)
			f = (b & c) | (b & d) | (c & d), k = 0x8f1bbcdc;
		else
			f = b ^ c ^ d, k = 0xca62c1d6;
		tmp = rol(a, 5) + f + e + k + w[t];
		e = d;
		d = c;
		c = rol(b, 30);
		b = a;
		a = tmp;
	}
	h[0] += a;
	h[1] += b;
	h[2] += c;
	h[3] += d;
	h[4] += e;
}

void iogap_md64(const void *p, size_t len, bool le_length, iogap_md64_block_fn *block,
		    uint32_t *st, uint8_t last[64])
{
	const uint8_t *b = p;
	uint8_t tail[128] = { 0 };
	size_t rest = len % 64, tail_len = rest < 56 ? 64 : 128;
	uint64_t bits = (uint64_t)len * 8;

	for (size_t i = 0; i + 64 <= len; i += 64)
		block(st, b + i);
	if (rest)
		memcpy(tail, b + len - rest, rest);
	tail[rest] = 0x80;
	for (int i = 0; i < 8; i++)
		tail[le_length ? tail_len - 8 + i : tail_len - 1 - i] = (uint8_t)(bits >> (8 * i));
	for (size_t i = 0; i < tail_len; i += 64)
		block(st, tail + i);
	if (last)
		memcpy(last, tail + tail_len - 64, 64);
}

void iogap_sha1(const void *p, size_t len, uint32_t h[5])
{
	static const uint32_t init[5] = { 0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0 };

	memcpy(h, init, sizeof(init));
	iogap_md64(p, len, false, sha1_block, h, NULL);
}
