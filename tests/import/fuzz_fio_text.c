/* SPDX-License-Identifier: MIT */
/* libFuzzer target: fio output import (normal text of fio 2.x/3.x, and the
 * JSON path when the input holds a fio JSON document). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fio_import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fioi_result r;
	char err[512];

	if (fioi_parse_buf("fuzz", (const char *)data, size, &r, err, sizeof(err))) {
		if (!memchr(err, '\0', sizeof(err)) || strncmp(err, "fuzz", 4))
			abort();
		return 0;
	}
	for (size_t i = 0; i < r.nr; i++) {
		fioi_opt(&r, &r.jobs[i], "rw");
		for (int d = 0; d < IOGAP_DDIR_NR; d++)
			if (r.jobs[i].dir[d].pct_nr[1] > FIOI_MAX_PCT)
				abort();
	}
	fioi_free(&r);
	return 0;
}
