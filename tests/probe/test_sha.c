/* SPDX-License-Identifier: MIT */
/*
 * sha.h: SHA-1, SHA-256 and SHA3-224/256/384/512 against the test vectors
 * of FIPS 180-4 and FIPS 202 (NIST's examples: "", "abc", the 448-bit
 * message, 200 bytes of 0xa3, a million 'a'), and the layout fio's verify
 * keeps for sha256 and sha512.
 */
#include <stdlib.h>
#include <string.h>

#include "sha.h"
#include "tap.h"

static const char m448[] = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";

static void hex(const uint8_t *d, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		snprintf(out + 2 * i, 3, "%02x", d[i]);
}

static int sha1_is(const void *p, size_t len, const char *want)
{
	uint32_t h[5];
	uint8_t d[20];
	char got[41];

	iogap_sha1(p, len, h);
	for (int i = 0; i < 20; i++)   /* the digest: the words big-endian */
		d[i] = (uint8_t)(h[i / 4] >> (24 - 8 * (i % 4)));
	hex(d, 20, got);
	return !strcmp(got, want);
}

static int sha256_is(const void *p, size_t len, const char *want)
{
	uint8_t d[32];
	char got[65];

	iogap_sha256(p, len, d);
	hex(d, 32, got);
	return !strcmp(got, want);
}

static int sha3_is(const void *p, size_t len, unsigned md_len, const char *want)
{
	uint8_t d[64];
	char got[129];

	iogap_sha3(p, len, md_len, d);
	hex(d, md_len, got);
	return !strcmp(got, want);
}

static void test_sha1(const char *million)
{
	ok(sha1_is("", 0, "da39a3ee5e6b4b0d3255bfef95601890afd80709") &&
	   sha1_is("abc", 3, "a9993e364706816aba3e25717850c26c9cd0d89d"), "sha1: \"\" and \"abc\"");
	ok(sha1_is(m448, 56, "84983e441c3bd26ebaae4aa1f95129e5e54670f1") &&
	   sha1_is(million, 1000000, "34aa973cd4c4daa4f61eeb2bdbad27316534016f"),
	   "sha1: the 448-bit message (two padding blocks) and a million 'a'");
}

static void test_sha256(const char *million)
{
	ok(sha256_is("", 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855") &&
	   sha256_is("abc", 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
	   "sha256: \"\" and \"abc\"");
	ok(sha256_is(m448, 56, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1") &&
	   sha256_is(million, 1000000,
		     "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"),
	   "sha256: the 448-bit message and a million 'a'");
}

static void test_sha3(const char *million)
{
	uint8_t a3[200];

	memset(a3, 0xa3, sizeof(a3));
	ok(sha3_is("", 0, 28, "6b4e03423667dbb73b6e15454f0eb1abd4597f9a1b078e3f5b5a6bc7") &&
	   sha3_is("abc", 3, 28, "e642824c3f8cf24ad09234ee7d3c766fc9a3a5168d0c94ad73b46fdf") &&
	   sha3_is(a3, 200, 28, "9376816aba503f72f96ce7eb65ac095deee3be4bf9bbc2a1cb7e11e0"),
	   "sha3-224: \"\", \"abc\", 200 x 0xa3");
	ok(sha3_is("", 0, 32, "a7ffc6f8bf1ed76651c14756a061d662f580ff4de43b49fa82d80a4b80f8434a") &&
	   sha3_is("abc", 3, 32, "3a985da74fe225b2045c172d6bd390bd855f086e3e9d525b46bfe24511431532") &&
	   sha3_is(a3, 200, 32, "79f38adec5c20307a98ef76e8324afbfd46cfd81b22e3973c65fa1bd9de31787") &&
	   sha3_is(million, 1000000, 32,
		   "5c8875ae474a3634ba4fd55ec85bffd661f32aca75c6d699d0cdcb6c115891c1"),
	   "sha3-256: \"\", \"abc\", 200 x 0xa3, a million 'a'");
	ok(sha3_is("", 0, 48, "0c63a75b845e4f7d01107d852e4c2485c51a50aaaa94fc61995e71bbee983a2a"
		   "c3713831264adb47fb6bd1e058d5f004") &&
	   sha3_is("abc", 3, 48, "ec01498288516fc926459f58e2c6ad8df9b473cb0fc08c2596da7cf0e49be4b2"
		   "98d88cea927ac7f539f1edf228376d25") &&
	   sha3_is(a3, 200, 48, "1881de2ca7e41ef95dc4732b8f5f002b189cc1e42b74168ed1732649ce1dbcdd"
		   "76197a31fd55ee989f2d7050dd473e8f"),
	   "sha3-384: \"\", \"abc\", 200 x 0xa3");
	ok(sha3_is("", 0, 64, "a69f73cca23a9ac5c8b567dc185a756e97c982164fe25859e0d1dcc1475c80a6"
		   "15b2123af1f5f94c11e3e9402c3ac558f500199d95b6d3e301758586281dcd26") &&
	   sha3_is("abc", 3, 64, "b751850b1a57168a5693cd924b6b096e08f621827444f70d884f5d0240d2712e"
		   "10e116e9192af3c91a7ec57647e3934057340b4cf408d5a56592f8274eec53f0") &&
	   sha3_is(a3, 200, 64, "e76dfad22084a8b1467fcf2ffa58361bec7628edf5f3fdc0e4805dc48caeeca8"
		   "1b7c13c30adf52a3659584739a2df46be589c51ca1a4a8416df6545a1ce8ba00"),
	   "sha3-512: \"\", \"abc\", 200 x 0xa3");
}

/* fio's layouts: sha256 keeps the rest of its last padded block (with a
 * little-endian bit count at 56) after 8 state bytes; sha512 the data's
 * trailing partial block over its first block */
static void test_fio_layouts(void)
{
	uint8_t out[128], zeros[48] = { 0 }, data[300];

	iogap_sha256_fio("abc", 3, out);
	ok(!memcmp(out + 8, zeros, 48) && out[56] == 24 && !memcmp(out + 57, zeros, 7),
	   "fio's sha256 of \"abc\": its last block after 8 state bytes, 24 bits little-endian");
	for (int i = 0; i < 300; i++)
		data[i] = (uint8_t)i;
	iogap_sha512_fio(data, 300, out);
	ok(!memcmp(out, data + 256, 44) && !memcmp(out + 44, data + 44, 84),
	   "fio's sha512 of 300 bytes: bytes 256..299, then 44..127");
	iogap_sha512_fio(data, 256, out);
	ok(!memcmp(out, data, 128), "fio's sha512 of 256 bytes: the first 128");
}

int main(void)
{
	char *million = malloc(1000000);

	if (!million)
		return 1;
	memset(million, 'a', 1000000);
	tap_plan(2 + 2 + 4 + 3);
	test_sha1(million);
	test_sha256(million);
	test_sha3(million);
	test_fio_layouts();
	free(million);
	return tap_done();
}
