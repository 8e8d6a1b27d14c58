/* SPDX-License-Identifier: MIT */
/* `iogap import` and `iogap lint` without the rest of iogap, and a dump of
 * the parsed model, for the tests. */
#include <stdio.h>
#include <string.h>

#include "fio.h"
#include "fio_import.h"
#include "presentation.h"

static void dump(const struct fioi_result *r)
{
	static const char *const dn[3] = { "read", "write", "trim" };
	static const char *const ln[3] = { "slat", "clat", "lat" };

	printf("format=%s version=%s jobs=%zu cmdline=%s\n", fioi_format_name(r->format),
	       r->version, r->nr, r->cmdline ? r->cmdline : "");
	for (size_t i = 0; i < r->nr; i++) {
		const struct fioi_job *j = &r->jobs[i];

		printf("job %s g=%d members=%d rw=%s bs=%s ioengine=%s iodepth=%u usr=%.2f sys=%.2f "
		       "ctx=%llu majf=%llu minf=%llu\n", j->name, j->groupid, j->members, j->rw,
		       j->bs, j->ioengine, j->iodepth, j->usr_cpu, j->sys_cpu,
		       (unsigned long long)j->ctx, (unsigned long long)j->majf,
		       (unsigned long long)j->minf);
		for (int d = 0; d < 3; d++) {
			const struct fioi_dir *x = &j->dir[d];

			if (!x->have)
				continue;
			printf("  %s iops=%.2f bw=%.0f io=%llu runtime=%llu total=%llu zr=%llu\n", dn[d],
			       x->iops, x->bw_bytes, (unsigned long long)x->io_bytes,
			       (unsigned long long)x->runtime_ms, (unsigned long long)x->total_ios,
			       (unsigned long long)x->zone_resets);
			for (int k = 0; k < 3; k++) {
				if (x->lat[k].have)
					printf("    %s min=%.0f max=%.0f mean=%.2f stdev=%.2f n=%llu\n", ln[k],
					       x->lat[k].min, x->lat[k].max, x->lat[k].mean,
					       x->lat[k].stdev, (unsigned long long)x->lat[k].n);
				if (x->pct_nr[k]) {
					printf("    %s pct:", ln[k]);
					for (unsigned p = 0; p < x->pct_nr[k]; p++)
						printf(" %g=%llu", x->pct[k][p].p,
						       (unsigned long long)x->pct[k][p].ns);
					printf("\n");
				}
			}
			if (x->bw.have)
				printf("    bw(KiB/s) min=%.2f max=%.2f avg=%.2f stdev=%.2f per=%.2f samples=%llu\n",
				       x->bw.min, x->bw.max, x->bw.mean, x->bw.stdev, x->bw.agg_pct,
				       (unsigned long long)x->bw.samples);
			if (x->iops_s.have)
				printf("    iops min=%.0f max=%.0f avg=%.2f stdev=%.2f samples=%llu\n",
				       x->iops_s.min, x->iops_s.max, x->iops_s.mean, x->iops_s.stdev,
				       (unsigned long long)x->iops_s.samples);
		}
		printf("  depth:");
		for (int k = 0; k < 7; k++)
			printf(" %.1f", j->depth[k]);
		printf("\n  lat_u:");
		for (int k = 0; k < 10; k++)
			printf(" %.2f", j->lat_u[k]);
		printf("\n");
	}
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "import"))
		return iogap_cmd_import(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "lint"))
		return iogap_cmd_lint(argc - 1, argv + 1);
	if (argc == 3 && (!strcmp(argv[1], "dump") || !strcmp(argv[1], "json"))) {
		struct fioi_result r;
		char err[1024];
		int ret = 0;

		if (fioi_parse_file(argv[2], &r, err, sizeof(err))) {
			fprintf(stderr, "%s\n", err);
			return 1;
		}
		if (!strcmp(argv[1], "dump"))
			dump(&r);
		else if (fioi_write_json(&r, stdout, err, sizeof(err))) {
			fprintf(stderr, "%s\n", err);
			ret = 1;
		}
		fioi_free(&r);
		return ret;
	}
	fprintf(stderr, "usage: fioi_tool import|lint ARGS... | dump|json FILE\n");
	return 2;
}
