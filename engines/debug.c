/* SPDX-License-Identifier: MIT */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "debug.h"
#include "util.h"

unsigned long iogap_debug_mask;

static const struct {
	const char *name;
	bool probe_has;           /* false: accepted, prints nothing (no such code) */
} categories[IOGAP_DBG_NR] = {
	[IOGAP_DBG_PROCESS] = { "process", true },
	[IOGAP_DBG_FILE] = { "file", true },
	[IOGAP_DBG_IO] = { "io", true },
	[IOGAP_DBG_MEM] = { "mem", false },
	[IOGAP_DBG_BLKTRACE] = { "blktrace", true },
	[IOGAP_DBG_VERIFY] = { "verify", true },
	[IOGAP_DBG_RANDOM] = { "random", true },
	[IOGAP_DBG_PARSE] = { "parse", true },
	[IOGAP_DBG_DISKUTIL] = { "diskutil", true },
	[IOGAP_DBG_JOB] = { "job", true },
	[IOGAP_DBG_MUTEX] = { "mutex", false },
	[IOGAP_DBG_PROFILE] = { "profile", false },
	[IOGAP_DBG_TIME] = { "time", false },
	[IOGAP_DBG_NET] = { "net", false },
	[IOGAP_DBG_RATE] = { "rate", true },
	[IOGAP_DBG_COMPRESS] = { "compress", true },
	[IOGAP_DBG_STEADYSTATE] = { "steadystate", true },
	[IOGAP_DBG_HELPERTHREAD] = { "helperthread", false },
	[IOGAP_DBG_ZBD] = { "zbd", true },
};

/* One write() a line: threads' lines do not interleave. */
void iogap_dprint_line(enum iogap_dbg cat, const char *fmt, ...)
{
	char text[512], line[600];
	va_list ap;
	int n;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	n = snprintf(line, sizeof(line), "%-8s %-5d %s%s", categories[cat].name, (int)gettid(),
		     text, text[0] && text[strlen(text) - 1] == '\n' ? "" : "\n");
	if (n > (int)sizeof(line) - 1)
		n = (int)sizeof(line) - 1;
	if (write(STDERR_FILENO, line, (size_t)n) < 0)
		return;   /* nowhere to report it */
}

/* fio's "dumping debug options" line, then the categories without output */
static void print_help(FILE *out)
{
	const char *sep = "";

	fputs("fio: dumping debug options:", out);
	for (int i = 0; i < IOGAP_DBG_NR; i++)
		fprintf(out, "%s,", categories[i].name);
	fputs("all\n", out);
	fputs("iogap-probe: accepted, but no code of the probe prints them: ", out);
	for (int i = 0; i < IOGAP_DBG_NR; i++) {
		if (!categories[i].probe_has) {
			fprintf(out, "%s%s", sep, categories[i].name);
			sep = ",";
		}
	}
	fputc('\n', out);
}

static int category_bit(const char *name, unsigned long *bit)
{
	if (!strcmp(name, "all")) {
		*bit = ~0UL;
		return 0;
	}
	for (int i = 0; i < IOGAP_DBG_NR; i++) {
		if (!strcmp(name, categories[i].name)) {
			*bit = 1UL << i;
			return 0;
		}
	}
	return -1;
}

int iogap_debug_set(const char *list, FILE *out, char *err, size_t errlen)
{
	unsigned long mask = 0, bit;
	char buf[512], *save = NULL, *tok;

	if (!list || !*list)
		return iogap_seterr(err, errlen, "--debug needs a category list (--debug=help lists them)");
	if (!strcmp(list, "help") || !strcmp(list, "?")) {
		print_help(out);
		return 1;
	}
	snprintf(buf, sizeof(buf), "%s", list);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (category_bit(tok, &bit))
			return iogap_seterr(err, errlen, "--debug: no category '%s' (fio's names; "
					    "--debug=help lists them)", tok);
		mask |= bit;
	}
	iogap_debug_mask |= mask;
	return 0;
}
