/* SPDX-License-Identifier: MIT */
/*
 * SHA-3 (FIPS 202): Keccak-f[1600] as a sponge of rate 200 - 2 * md_len
 * bytes, padding 0x06 ... 0x80; fio's verify=sha3-* (sha.h).
 */
#include <string.h>

#include "sha.h"

static const uint64_t round_const[24] = {
	0x0000000000000001ull, 0x0000000000008082ull, 0x800000000000808aull, 0x8000000080008000ull,
	0x000000000000808bull, 0x0000000080000001ull, 0x8000000080008081ull, 0x8000000000008009ull,
	0x000000000000008aull, 0x0000000000000088ull, 0x0000000080008009ull, 0x000000008000000aull,
	0x000000008000808bull, 0x800000000000008bull, 0x8000000000008089ull, 0x8000000000008003ull,
	0x8000000000008002ull, 0x8000000000000080ull, 0x000000000000800aull, 0x800000008000000aull,
	0x8000000080008081ull, 0x8000000000008080ull, 0x0000000080000001ull, 0x8000000080008008ull,
};
/* rho's rotations and pi's lanes, along pi's path from lane 1 */
static const unsigned rho[24] = { 1, 3, 6, 10, 15, 21, 28, 36, 45, 55, 2, 14,
				  27, 41, 56, 8, 25, 43, 62, 18, 39, 61, 20, 44 };
static const unsigned pi[24] = { 10, 7, 11, 17, 18, 3, 5, 16, 8, 21, 24, 4,
				 15, 23, 19, 13, 12, 2, 20, 14, 22, 9, 6, 1 };

static uint64_t rol64(uint64_t x, unsigned r)
{
	return (x << r) | (x >> (64 - r));
}

static void keccak_f(uint64_t a[25])
{
	for (int round = 0; round < 24; round++) {
		uint64_t c[5], t;

		for (int x = 0; x < 5; x++)   /* theta */
			c[x] = a[x] ^ a[x + 5] ^ a[x + 10] ^ a[x + 15] ^ a[x + 20];
		for (int x = 0; x < 5; x++) {
			t = c[(x + 4) % 5] ^ rol64(c[(x + 1) % 5], 1);
			for (int y = 0; y < 25; y += 5)
				a[y + x] ^= t;
		}
		t = a[1];   /* rho and pi */
		for (int i = 0; i < 24; i++) {
			uint64_t next = a[pi[i]];

			a[pi[i]] = rol64(t, rho[i]);
			t = next;
		}
		for (int y = 0; y < 25; y += 5) {   /* chi */
			for (int x = 0; x < 5; x++)
				c[x] = a[y + x];
			for (int x = 0; x < 5; x++)
				a[y + x] ^= ~c[(x + 1) % 5] & c[(x + 2) % 5];
		}
		a[0] ^= round_const[round];   /* iota */
	}
}

/* XOR a block of rate bytes into the state, lanes little-endian */
static void absorb(uint64_t a[25], const uint8_t *blk, unsigned rate)
{
	for (unsigned i = 0; i < rate; i++)
		a[i / 8] ^= (uint64_t)blk[i] << (8 * (i % 8));
	keccak_f(a);
}

void iogap_sha3(const void *p, size_t len, unsigned md_len, uint8_t *digest)
{
	const uint8_t *b = p;
	unsigned rate = 200 - 2 * md_len;
	uint64_t a[25] = { 0 };
	uint8_t last[200] = { 0 };
	size_t rest;

	for (; len >= rate; b += rate, len -= rate)
		absorb(a, b, rate);
	rest = len;
	if (rest)
		memcpy(last, b, rest);
	last[rest] = 0x06;
	last[rate - 1] |= 0x80;
	absorb(a, last, rate);
	for (unsigned i = 0; i < md_len; i++)
		digest[i] = (uint8_t)(a[i / 8] >> (8 * (i % 8)));
}
