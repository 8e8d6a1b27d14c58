/* SPDX-License-Identifier: MIT */
/*
 * engines/jobhelp.c (--cmdhelp) against the parser: every name and alias
 * of the help table is an option the parser knows (a bad value may be
 * refused, an unknown option may not), and a made-up name is reported
 * unknown, so the check can tell the two apart.  The other way round,
 * every option of fio's own list (fio --cmdhelp=all) the parser knows is
 * in the table.
 */
#include <stdbool.h>
#include <stdlib.h>

#include "job.h"
#include "jobhelp.h"
#include "tap.h"

/* 1 when the parser reports key as an option it does not have. */
static int unknown_to_parser(const char *key)
{
	struct iogap_job_list list = { 0 };
	struct iogap_job global;
	bool have_global = false;
	char err[1024] = "", a[300], b[300];
	int unknown;

	if (iogap_cmdline_add(&list, &global, &have_global, "name", "x", err, sizeof(err)))
		return 1;
	iogap_cmdline_add(&list, &global, &have_global, key, "1", err, sizeof(err));
	snprintf(a, sizeof(a), "option '%s' is not supported by iogap-probe", key);
	snprintf(b, sizeof(b), "option '%s' belongs to ioengine=", key);
	unknown = strstr(err, a) || strstr(err, b);
	iogap_cmdline_global_free(&global);
	iogap_job_list_free(&list);
	return unknown;
}

static bool in_table(const char *name)
{
	for (size_t i = 0; i < iogap_nr_job_helps; i++)
		if (!strcmp(iogap_job_helps[i].name, name) ||
		    (iogap_job_helps[i].alias && !strcmp(iogap_job_helps[i].alias, name)))
			return true;
	return false;
}

/* fio's options ("%-24s: help", children indented) the parser knows and
 * the table lacks; -1 without fio */
static int fio_options_missing(size_t *known)
{
	FILE *f = popen("fio --cmdhelp=all 2> /dev/null", "r");
	char line[512], name[256];
	int missing = 0;

	*known = 0;
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, " %255[^ :]", name) != 1 || unknown_to_parser(name))
			continue;
		(*known)++;
		if (!in_table(name)) {
			printf("# fio's option '%s' is known to the parser, not in the table\n", name);
			missing++;
		}
	}
	return pclose(f) == 0 ? missing : -1;
}

int main(void)
{
	size_t bad = 0, known;
	int missing;

	tap_plan(5);
	ok(unknown_to_parser("no_such_option_xyz") && unknown_to_parser("hostname"),
	   "the parser reports a made-up name and another engine's option as unknown");
	for (size_t i = 0; i < iogap_nr_job_helps; i++) {
		const struct iogap_job_help *h = &iogap_job_helps[i];

		if (unknown_to_parser(h->name) || (h->alias && unknown_to_parser(h->alias))) {
			printf("# the parser does not know '%s' (alias '%s')\n", h->name,
			       h->alias ? h->alias : "");
			bad++;
		}
	}
	ok(bad == 0, "every name and alias of the help table is a parser option (%zu of %zu not)",
	   bad, iogap_nr_job_helps);
	bad = 0;
	for (size_t i = 0; i < iogap_nr_job_helps; i++)
		for (size_t k = i + 1; k < iogap_nr_job_helps; k++)
			bad += !strcmp(iogap_job_helps[i].name, iogap_job_helps[k].name);
	ok(bad == 0, "no option is in the table twice");
	bad = 0;
	for (size_t i = 0; i < iogap_nr_job_helps; i++)
		bad += !iogap_job_helps[i].help[0] || strchr(iogap_job_helps[i].help, '\n') != NULL;
	ok(bad == 0, "every entry has a one-line help");
	missing = fio_options_missing(&known);
	if (missing < 0)
		tap_skip("fio's options the parser knows are in the table", "fio is not installed");
	else
		ok(missing == 0 && known > 200, "each of the %zu fio options the parser knows is in "
		   "the table (%d not)", known, missing);
	return tap_done();
}
