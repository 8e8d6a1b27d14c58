/* SPDX-License-Identifier: MIT */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "block_info.h"
#include "output.h"
#include "util.h"

/* fio's BLOCK_INFO encoding: the state in the top 3 bits, trims below */
#define STATE_SHIFT 29
#define TRIMS(b) ((b) & ((1u << STATE_SHIFT) - 1))
#define STATE(b) ((b) >> STATE_SHIFT)
enum { ST_UNINIT, ST_TRIMMED, ST_WRITTEN, ST_TRIM_FAILURE, ST_WRITE_FAILURE, ST_NR };
static const char *const state_names[ST_NR] = {
	"unwritten", "trimmed", "written", "trim failure", "write failure",
};

int iogap_block_infos_init(struct iogap_job_stat *st, uint64_t len, uint32_t trim_bs,
			   char *err, size_t errlen)
{
	uint64_t nr = trim_bs ? len / trim_bs : 0;

	if (!nr || nr > IOGAP_BLOCK_INFOS_MAX)
		return iogap_seterr(err, errlen, "cannot calculate block histogram with %llu trim "
				    "blocks, maximum %d", (unsigned long long)nr,
				    IOGAP_BLOCK_INFOS_MAX);
	st->nr_block_infos = (uint32_t)nr;
	memset(st->block_infos, 0, nr * sizeof(st->block_infos[0]));   /* unwritten, 0 */
	return 0;
}

void iogap_block_info_trim(struct iogap_job_stat *st, uint64_t offset, uint32_t trim_bs)
{
	uint64_t idx = offset / trim_bs;
	uint32_t *b;

	if (idx >= st->nr_block_infos)
		return;
	b = &st->block_infos[idx];
	if (STATE(*b) < ST_TRIM_FAILURE)   /* fio's trim_block_info */
		*b = (TRIMS(*b) + 1) | (uint32_t)ST_TRIMMED << STATE_SHIFT;
}

static int category(uint32_t state)
{
	return state == ST_UNINIT ? 0 : state <= ST_WRITTEN ? 1 : 2;
}

/* fio's compare_block_infos: category, then trims, then state */
static int block_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	if (category(STATE(x)) != category(STATE(y)))
		return category(STATE(x)) - category(STATE(y));
	if (TRIMS(x) != TRIMS(y))
		return TRIMS(x) < TRIMS(y) ? -1 : 1;
	return (int)STATE(x) - (int)STATE(y);
}

/* fio's calc_block_percentiles: the trims at each percentile of the
 * touched blocks (in vals), and the states' counts; 0 when none. */
static unsigned block_percentiles(const struct iogap_job_stat *st, double *list,
				  uint32_t *vals, uint32_t counts[ST_NR])
{
	uint32_t n = st->nr_block_infos, uninit = 0, *sorted;
	unsigned nr;

	if (!n || !(sorted = malloc(n * sizeof(*sorted))))
		return 0;
	memcpy(sorted, st->block_infos, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), block_cmp);
	while (uninit < n && STATE(sorted[uninit]) == ST_UNINIT)
		uninit++;
	nr = uninit == n ? 0 : iogap_report_percentiles(st, list);
	for (unsigned i = 0; i < nr; i++) {
		uint64_t idx = (uint64_t)(list[i] * (n - uninit) / 100) + uninit;

		vals[i] = TRIMS(sorted[idx < n ? idx : n - 1]);   /* fio reads past at 100 */
	}
	memset(counts, 0, ST_NR * sizeof(counts[0]));
	for (uint32_t i = 0; i < n; i++)
		counts[STATE(sorted[i]) < ST_NR ? STATE(sorted[i]) : ST_UNINIT]++;
	free(sorted);
	return nr;
}

void iogap_block_infos_normal(FILE *f, const struct iogap_job_stat *st)
{
	double list[IOGAP_MAX_PERCENTILES];
	uint32_t vals[IOGAP_MAX_PERCENTILES], counts[ST_NR];
	unsigned nr = block_percentiles(st, list, vals, counts);
	int pos = 0;

	if (!nr)
		return;
	fputs("  block lifetime percentiles :\n   |", f);
	for (unsigned i = 0; i < nr; i++) {
		char s[75];
		int len = snprintf(s, sizeof(s), " %3.2fth=%u%c", list[i], vals[i],
				   i == nr - 1 ? '\n' : ',');

		if (pos + len > 75) {   /* fio's LINE_LENGTH */
			pos = 0;
			fputs("\n   |", f);
		}
		fputs(s, f);
		pos += len;
	}
	fputs("        states               :", f);
	for (unsigned i = 0; i < ST_NR; i++)
		fprintf(f, " %s=%u%c", state_names[i], counts[i], i == ST_NR - 1 ? '\n' : ',');
}

void iogap_block_infos_json(struct jw *w, const struct iogap_job_stat *st)
{
	double list[IOGAP_MAX_PERCENTILES];
	uint32_t vals[IOGAP_MAX_PERCENTILES], counts[ST_NR];
	unsigned nr = block_percentiles(st, list, vals, counts);

	if (!nr)
		return;
	jw_obj(w, "block");
	jw_obj(w, "percentiles");
	for (unsigned i = 0; i < nr; i++) {
		char key[32];

		snprintf(key, sizeof(key), "%f", list[i]);
		jw_u64(w, key, vals[i]);
	}
	jw_end(w);
	jw_obj(w, "states");
	for (unsigned i = 0; i < ST_NR; i++)
		jw_u64(w, state_names[i], counts[i]);
	jw_end(w);
	jw_end(w);
}
