/* SPDX-License-Identifier: MIT */
/* libFuzzer target: fio output import (normal text of fio 2.x/3.x, and the
 * JSON path when the input holds a fio JSON document), and the split of a
 * paste into runs (segments inside the input, in order, parsed too). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fio_import.h"

static void split(const char *text, size_t size)
{
	struct fioi_segment *g;
	size_t n, end = 0;

	if (fioi_split_runs(text, size, &g, &n))
		return;
	for (size_t i = 0; i < n; i++) {
		struct fioi_result r;
		char err[512];

		if (g[i].off < end || g[i].off + g[i].len > size || !g[i].label[0] ||
		    !memchr(g[i].label, '\0', sizeof(g[i].label)))
			abort();
		end = g[i].off + g[i].len;
		if (!fioi_parse_buf("seg", text + g[i].off, g[i].len, &r, err, sizeof(err)))
			fioi_free(&r);
	}
	free(g);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fioi_result r;
	char err[512];

	split((const char *)data, size);
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
