/* SPDX-License-Identifier: MIT */
/*
 * Which fio output is bare metal and which the VM, told from the words
 * users label them with: a paste's name lines ("Bare metal:", ">From vm:")
 * or the directories `iogap import` made of them (Bare-metal/, From-vm/).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "fio_import.h"
#include "pt.h"
#include "util.h"

/* A word of a label and the side it names. */
static enum pt_side word_side(const char *w, size_t n)
{
	static const char *const bare[] = { "bare", "baremetal", "metal", "host", "physical",
					     "native", "bm", NULL };
	static const char *const vm[] = { "vm", "guest", "virtual", "virtualized", "kvm",
					  "qemu", "domain", NULL };

	for (int i = 0; bare[i]; i++)
		if (strlen(bare[i]) == n && !strncasecmp(w, bare[i], n))
			return PT_SIDE_BARE;
	for (int i = 0; vm[i]; i++)
		if (strlen(vm[i]) == n && !strncasecmp(w, vm[i], n))
			return PT_SIDE_VM;
	/* vm1, vm-2: a numbered VM */
	if (n > 2 && !strncasecmp(w, "vm", 2) && isdigit((unsigned char)w[2]))
		return PT_SIDE_VM;
	return PT_SIDE_UNKNOWN;
}

enum pt_side pt_side_of_label(const char *label)
{
	enum pt_side side = PT_SIDE_UNKNOWN;

	for (const char *s = label; *s;) {
		size_t n = 0;
		enum pt_side w;

		while (*s && !isalnum((unsigned char)*s))
			s++;
		while (isalnum((unsigned char)s[n]))
			n++;
		w = n ? word_side(s, n) : PT_SIDE_UNKNOWN;
		if (w != PT_SIDE_UNKNOWN && side != PT_SIDE_UNKNOWN && w != side)
			return PT_SIDE_UNKNOWN;     /* "host and vm": names both */
		if (w != PT_SIDE_UNKNOWN)
			side = w;
		s += n;
	}
	return side;
}

/* Into which[PT_SIDE_BARE / PT_SIDE_VM] the index of the one label naming
 * each side; 0, or -1 with what was found and how to name it in err. */
int pt_pick_sides(const char *const *labels, size_t n, size_t which[3], char *err,
		  size_t errlen)
{
	size_t count[3] = { 0 }, o;

	for (size_t i = 0; i < n; i++) {
		enum pt_side s = pt_side_of_label(labels[i]);

		count[s]++;
		which[s] = i;
	}
	if (count[PT_SIDE_BARE] == 1 && count[PT_SIDE_VM] == 1)
		return 0;
	o = (size_t)snprintf(err, errlen, "cannot tell bare metal from the VM: %zu output%s labelled",
			     n, n == 1 ? "" : "s");
	for (size_t i = 0; i < n && o < errlen; i++)
		o += (size_t)snprintf(err + o, errlen - o, "%s '%s' (%s)", i ? "," : "", labels[i],
				      pt_side_of_label(labels[i]) == PT_SIDE_BARE ? "bare metal" :
				      pt_side_of_label(labels[i]) == PT_SIDE_VM ? "VM" : "neither");
	if (o < errlen)
		snprintf(err + o, errlen - o, "; exactly one must name bare metal (a line 'Bare "
			 "metal:' or 'Host:' before its output) and one the VM ('VM:' or 'Guest:')");
	return -1;
}

/* A paste holding both sides: each side's output parsed from its segment. */
int pt_parse_paste(const char *file, struct fioi_result *r, char names[2][80], char *err,
		   size_t errlen)
{
	struct fioi_segment *segs = NULL;
	const char **labels = NULL;
	size_t nseg = 0, len, which[3];
	char *text = iogap_read_file(file, 0, &len);
	int rc = -1;

	if (!text) {
		snprintf(err, errlen, "%s: cannot read", file);
		return -1;
	}
	if (!fioi_looks_like_output(text, len) || fioi_split_runs(text, len, &segs, &nseg) ||
	    !nseg) {
		snprintf(err, errlen, "%s: no fio output in normal format found", file);
		goto out;
	}
	if (!(labels = calloc(nseg, sizeof(*labels)))) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < nseg; i++)
		labels[i] = segs[i].label;
	if (pt_pick_sides(labels, nseg, which, err, errlen))
		goto out;
	for (int s = 0; s < 2; s++) {
		const struct fioi_segment *g = &segs[which[s == 0 ? PT_SIDE_BARE : PT_SIDE_VM]];

		snprintf(names[s], 80, "%s", g->label);
		if (fioi_parse_buf(g->label, text + g->off, g->len, &r[s], err, errlen)) {
			if (s)
				fioi_free(&r[0]);
			goto out;
		}
	}
	rc = 0;
out:
	free(labels);
	free(segs);
	free(text);
	return rc;
}

static bool has_probe_json(const char *dir, const char *sub, char *out, size_t n)
{
	struct stat st;

	return (size_t)snprintf(out, n, "%s/%s/probe.json", dir, sub) < n && !stat(out, &st) &&
	       S_ISREG(st.st_mode);
}

/* A run directory's two sides: bare/ and vm/ (iogap run), else the two of
 * its subdirectories with a probe.json whose names tell the sides apart. */
int pt_run_sides(const char *dir, char bare[], char vm[], size_t n, char *err, size_t errlen)
{
	struct pt p = { .root = "" };
	char **subs, path[4096];
	const char **labels;
	size_t nsub, nl = 0, which[3];
	int rc = -1;

	if (has_probe_json(dir, "bare", bare, n) && has_probe_json(dir, "vm", vm, n))
		return 0;
	if (!(subs = pt_list(&p, dir, &nsub))) {
		snprintf(err, errlen, "%s: cannot list the directory", dir);
		return -1;
	}
	if (!(labels = calloc(nsub + 1, sizeof(*labels)))) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < nsub; i++)
		if (has_probe_json(dir, subs[i], path, sizeof(path)))
			labels[nl++] = subs[i];
	if (!nl) {
		snprintf(err, errlen, "%s: no subdirectory with a probe.json (iogap import or iogap "
			 "run writes them)", dir);
		goto out;
	}
	if (pt_pick_sides(labels, nl, which, err, errlen))
		goto out;
	has_probe_json(dir, labels[which[PT_SIDE_BARE]], bare, n);
	has_probe_json(dir, labels[which[PT_SIDE_VM]], vm, n);
	rc = 0;
out:
	free(labels);
	pt_names_free(subs, nsub);
	return rc;
}
