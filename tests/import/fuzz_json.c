/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the JSON parser, its error path and the writer. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct jp_value v, c;
	char err[256];
	size_t end;

	if (jp_parse((const char *)data, size, size & 1, &v, &end, err, sizeof(err))) {
		if (!memchr(err, '\0', sizeof(err)) || strncmp(err, "line ", 5))
			abort();
		return 0;
	}
	if (end > size)
		abort();
	if (!jp_copy(&c, &v)) {
		char *out = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&out, &len);
		struct jp_value again;

		if (f) {
			jp_write(f, &c);
			fclose(f);
			/* what we write parses again */
			if (v.type != JP_STRING || !memchr(v.text, '\0', v.len)) {
				if (jp_parse(out, len, false, &again, NULL, err, sizeof(err)))
					abort();
				jp_free(&again);
			}
			free(out);
		}
		jp_set_u64(&c, "x", 1);
		jp_get(&c, "x");
		jp_path(&c, "a/b/c");
		jp_remove(&c, "x");
	}
	jp_free(&c);
	jp_free(&v);
	return 0;
}
