/* SPDX-License-Identifier: MIT */
/*
 * fio's verify headers and checksums (see verify.h for the layout).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "iogap/trace.h"
#include "job.h"
#include "sha.h"
#include "verify.h"

/* ---- checksums ---------------------------------------------------------- */

static uint32_t crc32c_table[256];
static pthread_once_t crc32c_once = PTHREAD_ONCE_INIT;

static void crc32c_make_table(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ 0x82f63b78u : c >> 1;   /* Castagnoli, reflected */
		crc32c_table[i] = c;
	}
}

uint32_t iogap_crc32c(const void *p, size_t len)
{
	const uint8_t *b = p;
	uint32_t crc = ~0u;   /* fio's crc32c: no final inversion */

	pthread_once(&crc32c_once, crc32c_make_table);
	while (len--)
		crc = crc32c_table[(crc ^ *b++) & 0xff] ^ (crc >> 8);
	return crc;
}

/* fio's other CRCs, table-driven; tables built once */
static uint64_t crc64_table[256];
static uint32_t crc32_table[256];
static uint16_t crc16_table[256];
static uint8_t crc7_table[256];
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

static void crc_make_tables(void)
{
	for (unsigned i = 0; i < 256; i++) {
		uint64_t c64 = i;
		uint32_t c32 = (uint32_t)i << 24;
		uint16_t c16 = (uint16_t)i;
		unsigned c7 = i;

		for (int k = 0; k < 8; k++) {
			c64 = c64 & 1 ? (c64 >> 1) ^ 0x95ac9329ac4bc9b5ull : c64 >> 1;
			c32 = c32 & 0x80000000u ? (c32 << 1) ^ 0x04c11db7u : c32 << 1;
			c16 = c16 & 1 ? (uint16_t)((c16 >> 1) ^ 0xa001) : (uint16_t)(c16 >> 1);
			c7 = (c7 & 0x80 ? (c7 << 1) ^ 0x12 : c7 << 1) & 0xff;   /* 0x09 << 1 */
		}
		crc64_table[i] = c64;
		crc32_table[i] = c32;
		crc16_table[i] = c16;
		crc7_table[i] = (uint8_t)(c7 >> 1);
	}
}

uint64_t iogap_crc64(const void *p, size_t len)
{
	const uint8_t *b = p;
	uint64_t crc = 0;

	pthread_once(&crc_once, crc_make_tables);
	while (len--)
		crc = crc64_table[(crc ^ *b++) & 0xff] ^ (crc >> 8);
	return crc;
}

uint32_t iogap_crc32(const void *p, size_t len)
{
	const uint8_t *b = p;
	uint32_t crc = 0;

	pthread_once(&crc_once, crc_make_tables);
	while (len--)
		crc = (crc << 8) ^ crc32_table[((crc >> 24) ^ *b++) & 0xff];
	return crc;
}

uint16_t iogap_crc16(const void *p, size_t len)
{
	const uint8_t *b = p;
	uint16_t crc = 0;

	pthread_once(&crc_once, crc_make_tables);
	while (len--)
		crc = (uint16_t)((crc >> 8) ^ crc16_table[(crc ^ *b++) & 0xff]);
	return crc;
}

uint8_t iogap_crc7(const void *p, size_t len)
{
	const uint8_t *b = p;
	uint8_t crc = 0;

	pthread_once(&crc_once, crc_make_tables);
	while (len--)
		crc = crc7_table[((unsigned)crc << 1 ^ *b++) & 0xff];
	return crc;
}

static uint32_t rotl32(uint32_t x, unsigned r)
{
	return (x << r) | (x >> (32 - r));
}

static uint32_t load32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

#define XXH_P1 2654435761u
#define XXH_P2 2246822519u
#define XXH_P3 3266489917u
#define XXH_P4 668265263u
#define XXH_P5 374761393u

static uint32_t xxh32_round(uint32_t acc, uint32_t in)
{
	return rotl32(acc + in * XXH_P2, 13) * XXH_P1;
}

uint32_t iogap_xxhash32(const void *p, size_t len, uint32_t seed)
{
	const uint8_t *b = p, *end = b + len;
	uint32_t h;

	if (len >= 16) {
		uint32_t v[4] = { seed + XXH_P1 + XXH_P2, seed + XXH_P2, seed, seed - XXH_P1 };

		for (; end - b >= 16; b += 16)
			for (int i = 0; i < 4; i++)
				v[i] = xxh32_round(v[i], load32(b + 4 * i));
		h = rotl32(v[0], 1) + rotl32(v[1], 7) + rotl32(v[2], 12) + rotl32(v[3], 18);
	} else {
		h = seed + XXH_P5;
	}
	h += (uint32_t)len;
	for (; end - b >= 4; b += 4)
		h = rotl32(h + load32(b) * XXH_P3, 17) * XXH_P4;
	for (; b < end; b++)
		h = rotl32(h + *b * XXH_P5, 11) * XXH_P1;
	h ^= h >> 15;
	h *= XXH_P2;
	h ^= h >> 13;
	h *= XXH_P3;
	return h ^ (h >> 16);
}

/* MD5 (RFC 1321) */
static const uint32_t md5_k[64] = {
	0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613,
	0xfd469501, 0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193,
	0xa679438e, 0x49b40821, 0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d,
	0x02441453, 0xd8a1e681, 0xe7d3fbc8, 0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed,
	0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a, 0xfffa3942, 0x8771f681, 0x6d9d6122,
	0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70, 0x289b7ec6, 0xeaa127fa,
	0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665, 0xf4292244,
	0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
	0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb,
	0xeb86d391,
};
static const uint8_t md5_r[64] = {
	7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
	5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20,
	4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
	6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21,
};

static void md5_block(uint32_t h[4], const uint8_t *blk)
{
	uint32_t a = h[0], b = h[1], c = h[2], d = h[3];

	for (unsigned i = 0; i < 64; i++) {
		uint32_t f, t;
		unsigned g;

		if (i < 16)
			f = (b & c) | (~b & d), g = i;
		else if (i < 32)
			f = (d & b) | (~d & c), g = (5 * i + 1) % 16;
		else if (i < 48)
			f = b ^ c ^ d, g = (3 * i + 5) % 16;
		else
			f = c ^ (b | ~d), g = (7 * i) % 16;
		t = d;
		d = c;
		c = b;
		b += rotl32(a + f + md5_k[i] + load32(blk + 4 * g), md5_r[i]);
		a = t;
	}
	h[0] += a;
	h[1] += b;
	h[2] += c;
	h[3] += d;
}

void iogap_md5(const void *p, size_t len, uint8_t digest[16])
{
	uint32_t h[4] = { 0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476 };

	iogap_md64(p, len, true, md5_block, h, NULL);
	for (int i = 0; i < 4; i++)
		for (int k = 0; k < 4; k++)
			digest[4 * i + k] = (uint8_t)(h[i] >> (8 * k));
}

/* ---- headers -------------------------------------------------------------- */

const char *iogap_verify_name(unsigned type)
{
	switch (type) {
	case IOGAP_VERIFY_MD5:
		return "md5";
	case IOGAP_VERIFY_CRC32C:
		return "crc32c";
	case IOGAP_VERIFY_CRC32C_INTEL:
		return "crc32c-intel";
	case IOGAP_VERIFY_XXHASH:
		return "xxhash";
	case IOGAP_VERIFY_CRC64:
		return "crc64";
	case IOGAP_VERIFY_CRC32:
		return "crc32";
	case IOGAP_VERIFY_CRC16:
		return "crc16";
	case IOGAP_VERIFY_CRC7:
		return "crc7";
	case IOGAP_VERIFY_SHA1:
		return "sha1";
	case IOGAP_VERIFY_SHA256:
		return "sha256";
	case IOGAP_VERIFY_SHA512:
		return "sha512";
	case IOGAP_VERIFY_SHA3_224:
		return "sha3-224";
	case IOGAP_VERIFY_SHA3_256:
		return "sha3-256";
	case IOGAP_VERIFY_SHA3_384:
		return "sha3-384";
	case IOGAP_VERIFY_SHA3_512:
		return "sha3-512";
	case IOGAP_VERIFY_META:
		return "meta";
	case IOGAP_VERIFY_PATTERN:
	case IOGAP_VERIFY_PATTERN_NO_HDR:
		return "pattern";
	case IOGAP_VERIFY_NULL:
		return "null";
	default:
		return NULL;
	}
}

/* The SHA family's bytes as fio stores them (sha.h) */
static void sha_sum(unsigned type, const uint8_t *data, size_t len, uint8_t *out)
{
	uint32_t h[5];

	switch (type) {
	case IOGAP_VERIFY_SHA1:   /* fio keeps the words in host order */
		iogap_sha1(data, len, h);
		for (int i = 0; i < 20; i++)
			out[i] = (uint8_t)(h[i / 4] >> (8 * (i % 4)));
		break;
	case IOGAP_VERIFY_SHA256:
		iogap_sha256_fio(data, len, out);
		break;
	case IOGAP_VERIFY_SHA512:
		iogap_sha512_fio(data, len, out);
		break;
	default:   /* sha3-*: the digest fills its vhdr */
		iogap_sha3(data, len, iogap_verify_sum_size(type), out);
		break;
	}
}

/* The checksum of a block's data (after header and checksum), as fio's
 * fill_* functions store it (little-endian): the type's sum size in out. */
static size_t block_sum(unsigned type, const uint8_t *data, size_t len,
			uint8_t out[IOGAP_VERIFY_MAX_HDR])
{
	uint64_t v;

	switch (type) {
	case IOGAP_VERIFY_MD5:
		iogap_md5(data, len, out);
		return 16;
	case IOGAP_VERIFY_SHA1:
	case IOGAP_VERIFY_SHA256:
	case IOGAP_VERIFY_SHA512:
	case IOGAP_VERIFY_SHA3_224:
	case IOGAP_VERIFY_SHA3_256:
	case IOGAP_VERIFY_SHA3_384:
	case IOGAP_VERIFY_SHA3_512:
		sha_sum(type, data, len, out);
		return iogap_verify_sum_size(type);
	case IOGAP_VERIFY_CRC64:
		v = iogap_crc64(data, len);
		break;
	case IOGAP_VERIFY_CRC32:
		v = iogap_crc32(data, len);
		break;
	case IOGAP_VERIFY_CRC16:
		v = iogap_crc16(data, len);
		break;
	case IOGAP_VERIFY_CRC7:
		v = iogap_crc7(data, len);
		break;
	case IOGAP_VERIFY_XXHASH:
		v = iogap_xxhash32(data, len, 1);
		break;
	case IOGAP_VERIFY_CRC32C:
	case IOGAP_VERIFY_CRC32C_INTEL:
		v = iogap_crc32c(data, len);
		break;
	default:
		return 0;
	}
	for (size_t i = 0; i < iogap_verify_sum_size(type); i++)
		out[i] = (uint8_t)(v >> (8 * i));
	return iogap_verify_sum_size(type);
}

/* Where a block's header starts: after the write tag when one is there. */
static size_t hdr_pos(uint32_t blk_len, bool tagged)
{
	return tagged && blk_len >= sizeof(struct iogap_write_tag) ? sizeof(struct iogap_write_tag) : 0;
}

static bool tag_at(const uint8_t *blk, uint32_t blk_len)
{
	struct iogap_write_tag t;

	if (blk_len < sizeof(t))
		return false;
	memcpy(&t, blk, sizeof(t));
	return iogap_tag_valid(&t);
}

/* fio's memswp for verify_offset: the header and checksum at at trade
 * places with the bytes swap bytes further (when the block holds them) */
static void swap_header(uint8_t *blk, uint32_t blk_len, size_t at, size_t hsz, uint32_t swap)
{
	uint8_t tmp[IOGAP_VERIFY_MAX_HDR];

	if (!swap || hsz > sizeof(tmp) || at + swap + hsz > blk_len)
		return;
	memcpy(tmp, blk + at, hsz);
	memcpy(blk + at, blk + at + swap, hsz);
	memcpy(blk + at + swap, tmp, hsz);
}

void iogap_verify_fill(const struct iogap_verify_write *w, void *buf, uint32_t len)
{
	size_t hsz = iogap_verify_hdr_size(w->type);

	if (!hsz)   /* null and verify=pattern: fio writes no header */
		return;
	for (uint32_t pos = 0; pos < len; pos += w->interval) {
		uint32_t blk_len = len - pos < w->interval ? len - pos : w->interval;
		uint8_t *blk = (uint8_t *)buf + pos;
		size_t at = hdr_pos(blk_len, w->tagged && pos % IOGAP_TAG_STRIDE == 0);
		struct iogap_verify_hdr h = {
			.magic = IOGAP_VERIFY_MAGIC,
			.verify_type = (uint16_t)w->type,
			.len = blk_len,
			.rand_seed = w->seed,
			.offset = w->offset + pos,
			.time_sec = (uint32_t)(w->time_ns / 1000000000u),
			.time_nsec = (uint32_t)(w->time_ns % 1000000000u),
			.thread = w->thread,
			.numberio = w->numberio,
		};
		uint8_t sum[IOGAP_VERIFY_MAX_HDR];
		size_t sum_len;

		if (at + hsz > blk_len)   /* the job check keeps intervals larger */
			continue;
		h.crc32 = iogap_crc32c(&h, offsetof(struct iogap_verify_hdr, crc32));
		memcpy(blk + at, &h, sizeof(h));
		sum_len = block_sum(w->type, blk + at + hsz, blk_len - at - hsz, sum);
		memcpy(blk + at + sizeof(h), sum, sum_len);
		swap_header(blk, blk_len, at, hsz, w->swap_offset);
	}
}

static int check_header(const struct iogap_verify_read *r, const struct iogap_verify_hdr *h,
			uint32_t blk_len, uint64_t blk_off, char *msg, size_t msglen)
{
	if (h->magic != IOGAP_VERIFY_MAGIC)
		snprintf(msg, msglen, "verify: bad magic header %x, wanted %x", h->magic,
			 IOGAP_VERIFY_MAGIC);
	else if (h->len != blk_len)
		snprintf(msg, msglen, "verify: bad header length %u, wanted %u", h->len, blk_len);
	else if (h->offset != blk_off)
		snprintf(msg, msglen, "verify: bad header offset %llu, wanted %llu",
			 (unsigned long long)h->offset, (unsigned long long)blk_off);
	else if (r->check_numberio && h->numberio != r->numberio)
		snprintf(msg, msglen, "verify: bad header numberio %u, wanted %u", h->numberio,
			 r->numberio);
	else if (h->crc32 != iogap_crc32c(h, offsetof(struct iogap_verify_hdr, crc32)))
		snprintf(msg, msglen, "verify: bad header crc %x, calculated %x", h->crc32,
			 iogap_crc32c(h, offsetof(struct iogap_verify_hdr, crc32)));
	else
		return 0;
	return -EILSEQ;
}

unsigned iogap_verify_pattern_at(const struct iogap_job *j, uint64_t offset,
				 uint8_t out[IOGAP_VERIFY_PATTERN_MAX])
{
	memcpy(out, j->verify_pattern, j->verify_pattern_len);
	for (unsigned i = 0; i < j->verify_fmt_nr; i++) {   /* fio's paste_blockoff */
		unsigned at = j->verify_fmt_off[i];

		for (unsigned k = 0; k < 8 && at + k < j->verify_pattern_len; k++)
			out[at + k] = (uint8_t)(offset >> (8 * k));
	}
	return j->verify_pattern_len;
}

void iogap_verify_fill_pattern(const uint8_t *pattern, unsigned plen, void *buf, uint32_t len)
{
	for (uint32_t i = 0; i < len; i++)
		((uint8_t *)buf)[i] = pattern[i % plen];
}

/* fio's verify_io_u_pattern: the bytes after the header are the pattern
 * at their place in the buffer (buf_pos: the block's), write tags aside */
static int check_pattern(const struct iogap_verify_read *r, const uint8_t *blk, uint32_t blk_len,
			 uint32_t from, uint32_t buf_pos, bool tagged, char *msg, size_t msglen)
{
	for (uint32_t i = from; i < blk_len; i++) {
		uint32_t at = buf_pos + i;
		uint8_t want = r->pattern[at % r->pattern_len];

		if (tagged && at % IOGAP_TAG_STRIDE < sizeof(struct iogap_write_tag))
			continue;
		if (blk[i] != want) {
			snprintf(msg, msglen, "fio: got pattern '%02x', wanted '%02x'. Bad bits %d\n"
				 "fio: bad pattern block offset %u\npattern: verify failed", blk[i], want,
				 __builtin_popcount((unsigned)(blk[i] ^ want)), i - from);
			return -EILSEQ;
		}
	}
	return 0;
}

static int check_block(const struct iogap_verify_read *r, const uint8_t *blk, uint32_t blk_len,
		       uint64_t blk_off, uint32_t buf_pos, char *msg, size_t msglen)
{
	size_t hsz = iogap_verify_hdr_size(r->type), at = hdr_pos(blk_len, tag_at(blk, blk_len));
	struct iogap_verify_hdr h;
	uint8_t sum[IOGAP_VERIFY_MAX_HDR];
	size_t sum_len;

	if (r->type == IOGAP_VERIFY_PATTERN_NO_HDR)   /* the pattern alone, tags aside */
		return check_pattern(r, blk, blk_len, 0, buf_pos, at != 0, msg, msglen);
	if (at + hsz > blk_len) {
		snprintf(msg, msglen, "verify: block of %u bytes cannot hold a header", blk_len);
		return -EILSEQ;
	}
	memcpy(&h, blk + at, sizeof(h));
	if (check_header(r, &h, blk_len, blk_off, msg, msglen))
		return -EILSEQ;
	if (at) {   /* the tag's request id is the header's seed */
		struct iogap_write_tag t;

		memcpy(&t, blk, sizeof(t));
		if (t.request_id != h.rand_seed) {
			snprintf(msg, msglen, "verify: write tag of request %llu, header of %llu",
				 (unsigned long long)t.request_id, (unsigned long long)h.rand_seed);
			return -EILSEQ;
		}
	}
	if ((r->type == IOGAP_VERIFY_META || r->type == IOGAP_VERIFY_PATTERN) && r->pattern_len)
		return check_pattern(r, blk, blk_len, (uint32_t)(at + hsz), buf_pos, at != 0, msg,
				     msglen);
	sum_len = block_sum(r->type, blk + at + hsz, blk_len - at - hsz, sum);
	if (!memcmp(blk + at + sizeof(h), sum, sum_len))
		return 0;
	snprintf(msg, msglen, "%s: verify failed", iogap_verify_name(r->type));
	return -EILSEQ;
}

int iogap_verify_check(const struct iogap_verify_read *r, const void *buf, uint32_t len,
		       char *msg, size_t msglen)
{
	if (r->type == IOGAP_VERIFY_NULL)   /* fio: pretend to verify */
		return 0;
	for (uint32_t pos = 0; pos < len; pos += r->interval) {
		uint32_t blk_len = len - pos < r->interval ? len - pos : r->interval;
		size_t n;

		const uint8_t *blk = (const uint8_t *)buf + pos;
		uint8_t *copy = NULL;
		int bad;

		if (r->swap_offset && (copy = malloc(blk_len))) {   /* the header back in place */
			memcpy(copy, blk, blk_len);
			swap_header(copy, blk_len, hdr_pos(blk_len, tag_at(copy, blk_len)),
				    iogap_verify_hdr_size(r->type), r->swap_offset);
			blk = copy;
		}
		bad = check_block(r, blk, blk_len, r->offset + pos, pos, msg, msglen);
		free(copy);
		if (!bad)
			continue;
		n = strlen(msg);   /* fio's tail: where, and the request */
		snprintf(msg + n, msglen - n, " at file %s offset %llu, length %u (requested block: "
			 "offset=%llu, length=%u)", r->file, (unsigned long long)(r->offset + pos), blk_len,
			 (unsigned long long)r->offset, len);
		return -EILSEQ;
	}
	return 0;
}

/* ---- the log of written blocks --------------------------------------------- */

int iogap_verify_log_add(struct iogap_verify_log *log, uint16_t file, uint64_t offset,
			 uint32_t len, uint16_t numberio)
{
	if (log->next == log->nr)   /* all read back (verify_backlog): start over */
		log->nr = log->next = 0;
	if (log->nr == log->cap) {
		size_t cap = log->cap ? log->cap * 2 : 1024;
		struct iogap_verify_piece *v = realloc(log->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		log->v = v;
		log->cap = cap;
	}
	log->v[log->nr++] = (struct iogap_verify_piece){ offset, len, numberio, file, 0 };
	return 0;
}

int iogap_verify_dump(const char *dir, const char *file, uint64_t offset, const void *buf,
		      uint32_t len)
{
	const char *base = strrchr(file, '/');
	char name[4096];
	int fd, r = 0;

	snprintf(name, sizeof(name), "%s%s%s.%llu.received", dir ? dir : "", dir ? "/" : "",
		 base ? base + 1 : file, (unsigned long long)offset);
	fd = open(name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	if (write(fd, buf, len) != (ssize_t)len)
		r = -EIO;
	close(fd);
	return r;
}

const struct iogap_verify_piece *iogap_verify_log_next(struct iogap_verify_log *log)
{
	while (log->next < log->nr && log->v[log->next].trim == IOGAP_PIECE_DROPPED)
		log->next++;
	return log->next < log->nr ? &log->v[log->next++] : NULL;
}

void iogap_verify_log_clear(struct iogap_verify_log *log)
{
	log->nr = log->next = 0;
}

void iogap_verify_log_free(struct iogap_verify_log *log)
{
	free(log->v);
	*log = (struct iogap_verify_log){ 0 };
}
