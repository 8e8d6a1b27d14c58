/* SPDX-License-Identifier: MIT */
/* libFuzzer target: job-file parsing and finalizing never crash or leak. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "job.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct iogap_job_list list = { 0 };
	char err[512];

	setenv("IOGAP_FUZZ_VAR", "4k", 0);
	if (iogap_jobfile_parse_buf("fuzz.fio", (const char *)data, size, NULL, &list, err,
				    sizeof(err)) == 0) {
		for (size_t i = 0; i < list.nr; i++)
			iogap_job_finalize(&list.jobs[i], err, sizeof(err));
	}
	iogap_job_list_free(&list);
	return 0;
}
