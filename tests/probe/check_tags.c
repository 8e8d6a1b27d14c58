/* SPDX-License-Identifier: MIT */
/*
 * check_tags TRACE TARGET: every write recorded in TRACE must have left a
 * valid write tag with its request id at the start of each 4 KiB stride
 * of the written range in TARGET.  Assumes no block was written twice
 * (a random map run over the whole file).  Prints "tags: N writes ok" or
 * the first mismatch; exit 0 only when all match.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <unistd.h>

#include "trace_file.h"

int main(int argc, char **argv)
{
	struct iogap_trace_reader *r;
	struct iogap_trace_record rec;
	char err[512];
	uint64_t writes = 0, run_id;
	int fd, n;

	if (argc != 3) {
		fprintf(stderr, "usage: check_tags TRACE TARGET\n");
		return 2;
	}
	r = iogap_trace_reader_open(argv[1], err, sizeof(err));
	if (!r) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	run_id = iogap_trace_reader_header(r)->run_id;
	fd = open(argv[2], O_RDONLY);
	if (fd < 0) {
		perror(argv[2]);
		return 1;
	}
	while ((n = iogap_trace_reader_next(r, &rec, err, sizeof(err))) == 1) {
		if (rec.op != IOGAP_OP_WRITE || rec.result <= 0)
			continue;
		for (uint32_t pos = 0, blk = 0; pos < rec.length; pos += IOGAP_TAG_STRIDE, blk++) {
			struct iogap_write_tag t;

			if (pread(fd, &t, sizeof(t), (off_t)(rec.offset + pos)) != sizeof(t)) {
				fprintf(stderr, "short read at %" PRIu64 "\n", rec.offset + pos);
				return 1;
			}
			if (!iogap_tag_valid(&t) || t.run_id != run_id || t.request_id != rec.tag ||
			    t.block != blk) {
				fprintf(stderr, "bad tag at offset %" PRIu64 " (request %" PRIx64
					", block %u): magic ok=%d run %" PRIx64 " req %" PRIx64 " blk %u\n",
					rec.offset + pos, rec.tag, blk, t.magic == IOGAP_TAG_MAGIC,
					t.run_id, t.request_id, t.block);
				return 1;
			}
		}
		writes++;
	}
	if (n < 0) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	printf("tags: %" PRIu64 " writes ok\n", writes);
	iogap_trace_reader_close(r);
	close(fd);
	return writes ? 0 : 1;
}
