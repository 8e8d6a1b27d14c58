/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace_info.h"

size_t iogap_trace_info_put_jobs(char *info, size_t size, size_t used,
				 const struct iogap_job_list *jobs)
{
	for (size_t i = 0; i < jobs->nr && used < size - 512; i++) {
		const struct iogap_job *j = &jobs->jobs[i];

		used += (size_t)snprintf(info + used, size - used,
					 "job.%zu=name=%s rw=%s ioengine=%s iodepth=%u numjobs=%u "
					 "filename=%s\n", i, j->name, iogap_rw_name(j->rw),
					 j->ioengine, j->iodepth, j->numjobs, j->filename);
		/* several files per clone: the records' offsets carry the
		 * index (IOGAP_TRACE_FILE_SHIFT); these lines name them */
		for (unsigned k = 0; j->nrfiles > 1 && k < j->nrfiles && used < size - 512; k++)
			used += (size_t)snprintf(info + used, size - used, "file.%zu.%u=%s\n", i, k,
						 iogap_job_file(j, 0, k));
	}
	return used;
}

int iogap_trace_info_job(const char *info, size_t idx, struct iogap_trace_job *out)
{
	char key[40];
	size_t kl = (size_t)snprintf(key, sizeof(key), "job.%zu=name=", idx);

	snprintf(out->name, sizeof(out->name), "job%zu", idx);
	out->numjobs = 1;
	for (const char *p = info; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		const char *v = p + kl, *nl, *e, *nj;

		if (strncmp(p, key, kl))
			continue;
		/* the name ends before " rw=" on its line (a name may hold spaces) */
		nl = strchr(v, '\n');
		e = strstr(v, " rw=");
		if (!e || (nl && e > nl))
			e = nl ? nl : v + strlen(v);
		snprintf(out->name, sizeof(out->name), "%.*s", (int)(e - v), v);
		nj = strstr(v, " numjobs=");
		if (nj && (!nl || nj < nl) && atoi(nj + 9) > 0)
			out->numjobs = (unsigned)atoi(nj + 9);
		return 0;
	}
	return -1;
}
