/* SPDX-License-Identifier: MIT */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job.h"
#include "jobrand.h"
#include "util.h"

/* fio's percentage of an unset size share (uint8_t -1) */
#define ZONE_PERC_MISSING 255

int iogap_parse_size_prefix(const char *s, uint64_t *out)
{
	char num[64];
	size_t n = 0;

	while (isspace((unsigned char)*s))
		s++;
	while (n < sizeof(num) - 1 && isalnum((unsigned char)s[n])) {
		num[n] = s[n];
		n++;
	}
	num[n] = '\0';
	return iogap_parse_size(num, out);
}

/* fio's split_parse_ddir: "a/b:c/d:..." up to an empty entry */
static int zone_list(struct iogap_zonesplit *zs, unsigned *nr, char *list, bool absolute,
		     char *why, size_t whylen)
{
	char *entry;

	*nr = 0;
	while ((entry = strsep(&list, ":")) && *entry && *nr < IOGAP_MAX_ZONESPLIT) {
		char *size = strchr(entry, '/');
		uint64_t access, bytes = 0;
		long perc = ZONE_PERC_MISSING;

		if (size) {
			*size++ = '\0';
			if (absolute && iogap_parse_size_prefix(size, &bytes))
				return iogap_seterr(why, whylen, "bad zone size '%s'", size);
			if (!absolute) {   /* fio's atoi, capped at 100, 0 unset */
				long p = atol(size);

				perc = p > 100 || p < 0 ? 100 : p ? p : ZONE_PERC_MISSING;
			}
		}
		if (iogap_parse_size_prefix(entry, &access) || access > 100)
			return iogap_seterr(why, whylen, "bad access percentage '%s'", entry);
		zs[*nr].access_perc = (uint8_t)access;
		zs[*nr].size_perc = (uint8_t)perc;
		zs[*nr].size = bytes;
		(*nr)++;
	}
	return 0;
}

/* fio's zone_split_ddir: the sums checked, unset size shares filled */
static int zone_ddir(struct iogap_zonesplit *zs, unsigned *nr, char *list, bool absolute,
		     char *why, size_t whylen)
{
	unsigned perc = 0, sperc = 0, sperc_missing = 0;

	if (zone_list(zs, nr, list, absolute, why, whylen))
		return -1;
	if (!*nr)
		return 0;
	for (unsigned i = 0; i < *nr; i++) {
		perc += zs[i].access_perc;
		if (absolute)
			continue;
		if (zs[i].size_perc == ZONE_PERC_MISSING)
			sperc_missing++;
		else
			sperc += zs[i].size_perc;
	}
	if (perc > 100 || sperc > 100)
		return iogap_seterr(why, whylen, "zone percentages add up to more than 100");
	if (perc < 100)
		return iogap_seterr(why, whylen, "access percentages add up to %u, not 100", perc);
	if (sperc_missing == 1 && *nr == 1)
		sperc = 100;   /* as fio: a lone unset share gets 0% */
	for (unsigned i = 0; i < *nr; i++)
		if (!absolute && zs[i].size_perc == ZONE_PERC_MISSING)
			zs[i].size_perc = (uint8_t)((100 - sperc) / sperc_missing);
	return 0;
}

int iogap_parse_zoned(struct iogap_job *j, const char *val, bool absolute, char *why,
		      size_t whylen)
{
	char *list = strdup(val);
	int r;

	if (!list)
		return iogap_seterr(why, whylen, "out of memory");
	r = zone_ddir(j->zonesplit[0], &j->zonesplit_nr[0], list, absolute, why, whylen);
	free(list);
	for (int d = 1; d < IOGAP_DDIR_NR; d++) {   /* one list serves every direction */
		memcpy(j->zonesplit[d], j->zonesplit[0], sizeof(j->zonesplit[0]));
		j->zonesplit_nr[d] = j->zonesplit_nr[0];
	}
	return r;
}

void iogap_job_fix_random(struct iogap_job *j)
{
	bool aligned_to_bs = true;

	for (int d = 0; d < IOGAP_DDIR_NR; d++) {
		if (!j->ba[d] || !(j->rw & IOGAP_RW_RAND))
			j->ba[d] = j->bs_min[d];
		aligned_to_bs &= j->ba[d] == j->bs_min[d];
	}
	if (!aligned_to_bs && !j->norandommap) {   /* fio's note, and its rule */
		fprintf(stderr, "fio: Any use of blockalign= turns off randommap\n");
		j->norandommap = true;
	}
	if (j->random_distribution != IOGAP_RAND_UNIFORM)   /* fio: a skew keeps no map */
		j->norandommap = true;
}
