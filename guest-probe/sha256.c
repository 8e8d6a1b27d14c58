/* SPDX-License-Identifier: MIT */
/*
 * SHA-256 (FIPS 180-4, 6.2), and fio's verify=sha256 bytes (sha.h).
 */
#include <stdbool.h>
#include <string.h>

#include "sha.h"

static const uint32_t K[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static uint32_t ror(uint32_t x, unsigned r)
{
	return (x >> r) | (x << (32 - r));
}

static void sha256_block(uint32_t st[8], const uint8_t *blk)
{
	uint32_t w[64], v[8];

	for (int t = 0; t < 16; t++)
		w[t] = (uint32_t)blk[4 * t] << 24 | (uint32_t)blk[4 * t + 1] << 16 |
		       (uint32_t)blk[4 * t + 2] << 8 | blk[4 * t + 3];
	for (int t = 16; t < 64; t++)
		w[t] = (ror(w[t - 2], 17) ^ ror(w[t - 2], 19) ^ (w[t - 2] >> 10)) + w[t - 7] +
		       (ror(w[t - 15], 7) ^ ror(w[t - 15], 18) ^ (w[t - 15] >> 3)) + w[t - 16];
	memcpy(v, st, sizeof(v));
	for (int t = 0; t < 64; t++) {
		uint32_t t1 = v[7] + (ror(v[4], 6) ^ ror(v[4], 11) ^ ror(v[4], 25)) +
			      ((v[4] & v[5]) ^ (~v[4] & v[6])) + K[t] + w[t];
		uint32_t t2 = (ror(v[0], 2) ^ ror(v[0], 13) ^ ror(v[0], 22)) +
			      ((v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]));

		memmove(v + 1, v, 7 * sizeof(v[0]));
		v[4] += t1;
		v[0] = t1 + t2;
	}
	for (int i = 0; i < 8; i++)
		st[i] += v[i];
}

/* The whole message with its padding; the length big-endian (FIPS) or, as
 * fio's final() appends its host-order uint64, little-endian.  last: the
 * final padded block. */
static void sha256_run(const void *p, size_t len, bool le_length, uint32_t st[8], uint8_t last[64])
{
	static const uint32_t init[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
					  0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };

	memcpy(st, init, sizeof(init));
	iogap_md64(p, len, le_length, sha256_block, st, last);
}

void iogap_sha256(const void *p, size_t len, uint8_t digest[32])
{
	uint32_t st[8];
	uint8_t last[64];

	sha256_run(p, len, false, st, last);
	for (int i = 0; i < 32; i++)
		digest[i] = (uint8_t)(st[i / 4] >> (24 - 8 * (i % 4)));
}

/* fio's final() pads in its 64-byte buffer (the header's vhdr_sha256),
 * then stores each state word into one byte of it: "buf[i] = state[i]". */
void iogap_sha256_fio(const void *p, size_t len, uint8_t out[64])
{
	uint32_t st[8];

	sha256_run(p, len, true, st, out);
	for (int i = 0; i < 8; i++)
		out[i] = (uint8_t)st[i];
}
