/* SPDX-License-Identifier: MIT */
/*
 * The SHA family as fio 3.33's verify stores it (its crc/sha*.c), on the
 * standard algorithms (FIPS 180-4, FIPS 202) checked against their test
 * vectors in tests/probe/test_sha.c.  fio's quirks, kept for its layout:
 * sha1 keeps its five words in host (little-endian) order; sha256 pads
 * with a little-endian length and keeps 64 bytes: the low byte of each
 * state word, then the rest of its last padded block; sha512 never
 * finishes (no padding, no digest out): its 128 bytes are the data's
 * partial-block buffer.  sha3 is the standard digest.
 */
#ifndef IOGAP_SHA_H
#define IOGAP_SHA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef void iogap_md64_block_fn(uint32_t *state, const uint8_t *block);
/* The Merkle-Damgard pass of MD5, SHA-1 and SHA-256: every 64-byte block
 * of p, then the padding with the bit length big-endian (SHA) or
 * little-endian (MD5, fio's sha256); last, if not NULL, gets the final
 * padded block. */
void iogap_md64(const void *p, size_t len, bool le_length, iogap_md64_block_fn *block,
		    uint32_t *state, uint8_t last[64]);

/* SHA-1: the five state words (the digest is them big-endian). */
void iogap_sha1(const void *p, size_t len, uint32_t h[5]);

/* SHA-256's digest (FIPS 180-4). */
void iogap_sha256(const void *p, size_t len, uint8_t digest[32]);
/* fio's 64 bytes of verify=sha256. */
void iogap_sha256_fio(const void *p, size_t len, uint8_t out[64]);

/* fio's 128 bytes of verify=sha512 (len >= 128; below, fio compares
 * bytes it never set). */
void iogap_sha512_fio(const void *p, size_t len, uint8_t out[128]);

/* SHA3-224/256/384/512 (FIPS 202): md_len 28, 32, 48 or 64 bytes. */
void iogap_sha3(const void *p, size_t len, unsigned md_len, uint8_t *digest);

#endif
