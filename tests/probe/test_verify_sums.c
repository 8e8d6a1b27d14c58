/* SPDX-License-Identifier: MIT */
/*
 * verify.c: fio's checksums against published vectors, and the headers a
 * write stamps read back clean, with and without write tags, while any
 * changed byte, offset or length is caught.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "iogap/trace.h"
#include "job.h"
#include "tap.h"
#include "verify.h"

static int md5_is(const char *s, size_t len, const char *hex)
{
	uint8_t d[16];
	char got[33];

	iogap_md5(s, len, d);
	for (int i = 0; i < 16; i++)
		snprintf(got + 2 * i, 3, "%02x", d[i]);
	return !strcmp(got, hex);
}

static void test_sums(void)
{
	static const char a55[] = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
	static const char a64[] = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";

	/* CRC-32C("123456789") is 0xe3069283; fio keeps it uninverted */
	ok(iogap_crc32c("123456789", 9) == ~0xe3069283u, "crc32c: the check value, uninverted as fio");
	ok(md5_is("", 0, "d41d8cd98f00b204e9800998ecf8427e") &&
	   md5_is("abc", 3, "900150983cd24fb0d6963f7d28e17f72"), "md5: RFC 1321's \"\" and \"abc\"");
	ok(md5_is(a55, 55, "ef1772b6dff9a122358552954ad0df65") &&
	   md5_is("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56,
		  "8215ef0796a20bcaaae116d3876c664a") &&
	   md5_is(a64, 64, "014842d480b571495a4a0363793f7367"),
	   "md5: 55, 56 and 64 bytes (the padding's edge cases)");
	/* the catalogue's check values of the same parameters (CRC-32/POSIX
	 * before its final inversion, CRC-16/ARC, CRC-64/REDIS, CRC-7/MMC) */
	ok(iogap_crc32("123456789", 9) == ~0x765e7680u && iogap_crc16("123456789", 9) == 0xbb3d &&
	   iogap_crc64("123456789", 9) == 0xe9c6d914c4b8d9caull && iogap_crc7("123456789", 9) == 0x75,
	   "crc32, crc16, crc64, crc7: the check values of their parameters");
	ok(iogap_xxhash32("", 0, 0) == 0x02cc5d05u && iogap_xxhash32("abc", 3, 0) == 0x32d153ffu,
	   "xxhash32: the reference's \"\" and \"abc\"");
}

static void stamp_tags(uint8_t *buf, uint32_t len, uint64_t request_id)
{
	for (uint32_t pos = 0, blk = 0; pos + sizeof(struct iogap_write_tag) <= len;
	     pos += IOGAP_TAG_STRIDE, blk++) {
		struct iogap_write_tag t = { .magic = IOGAP_TAG_MAGIC, .run_id = 7,
					     .request_id = request_id, .block = blk };

		t.check = iogap_tag_check(&t);
		memcpy(buf + pos, &t, sizeof(t));
	}
}

static void test_roundtrip(unsigned type, uint32_t interval, bool tagged)
{
	enum { LEN = 16384 };
	uint8_t *buf = malloc(LEN);
	struct iogap_verify_write w = { .type = type, .interval = interval, .offset = 1 << 20,
					.seed = 42, .thread = 1, .numberio = 3, .tagged = tagged };
	struct iogap_verify_read r = { .file = "f", .type = type, .interval = interval,
				       .offset = 1 << 20, .numberio = 3, .check_numberio = true };
	char msg[512];
	const char *name = iogap_verify_name(type);
	struct iogap_verify_hdr h;

	for (int i = 0; i < LEN; i++)
		buf[i] = (uint8_t)(i * 7 + 1);
	if (tagged)
		stamp_tags(buf, LEN, 42);
	iogap_verify_fill(&w, buf, LEN);
	ok(!iogap_verify_check(&r, buf, LEN, msg, sizeof(msg)), "%s, interval %u%s: reads back clean",
	   name, interval, tagged ? ", tagged" : "");
	memcpy(&h, buf + (tagged ? sizeof(struct iogap_write_tag) : 0), sizeof(h));
	ok(h.magic == IOGAP_VERIFY_MAGIC && h.len == interval && h.offset == 1 << 20 &&
	   (!tagged || iogap_tag_valid((struct iogap_write_tag *)buf)),
	   "%s: %s header of the first block (%u bytes at 1 MiB)", name,
	   tagged ? "the tag kept, then the" : "fio's", interval);
	buf[LEN - 1] ^= 1;
	ok(iogap_verify_check(&r, buf, LEN, msg, sizeof(msg)) == -EILSEQ &&
	   strstr(msg, "verify failed at file f offset") && strstr(msg, "requested block"),
	   "%s: one flipped bit in the last block is caught: %s", name, msg);
	buf[LEN - 1] ^= 1;
	r.offset += interval;
	ok(iogap_verify_check(&r, buf, LEN, msg, sizeof(msg)) == -EILSEQ &&
	   strstr(msg, "bad header offset"), "%s: read at another offset: %s", name, msg);
	r.offset -= interval;
	r.numberio = 4;
	ok(iogap_verify_check(&r, buf, LEN, msg, sizeof(msg)) == -EILSEQ &&
	   strstr(msg, "bad header numberio"), "%s: an older write of the block: %s", name, msg);
	free(buf);
}

int main(void)
{
	tap_plan(5 + 9 * 5);
	test_sums();
	test_roundtrip(IOGAP_VERIFY_CRC32C, 4096, false);
	test_roundtrip(IOGAP_VERIFY_MD5, 512, false);
	test_roundtrip(IOGAP_VERIFY_XXHASH, 4096, true);
	test_roundtrip(IOGAP_VERIFY_MD5, 16384, true);
	test_roundtrip(IOGAP_VERIFY_CRC64, 2048, true);
	test_roundtrip(IOGAP_VERIFY_SHA1, 4096, false);
	test_roundtrip(IOGAP_VERIFY_SHA256, 4096, true);
	test_roundtrip(IOGAP_VERIFY_SHA512, 4096, false);
	test_roundtrip(IOGAP_VERIFY_SHA3_384, 2048, true);
	return tap_done();
}
