/* SPDX-License-Identifier: MIT */
/* Findings and root-relative sysfs/procfs reads for `iogap passthrough`. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json_writer.h"
#include "pt.h"
#include "util.h"

static const char *const level_name[] = { "INFO", "WARNING", "ERROR" };

void pt_finding(struct pt *p, enum pt_level lv, const char *code, const char *why,
		const char *todo, const char *fmt, ...)
{
	struct pt_finding *n = realloc(p->f, (p->count + 1) * sizeof(*n));
	va_list ap;

	if ((int)lv > p->worst)
		p->worst = (int)lv;     /* the verdict holds even without memory */
	if (!n)
		return;
	p->f = n;
	n = &p->f[p->count++];
	*n = (struct pt_finding){ lv, code, why, todo, NULL };
	va_start(ap, fmt);
	if (vasprintf(&n->msg, fmt, ap) < 0)
		n->msg = NULL;
	va_end(ap);
}

void pt_unreadable(struct pt *p, const char *path, const char *what)
{
	pt_finding(p, PT_WARNING, "unreadable",
		   "a check whose input is missing or malformed cannot pass: the setup is "
		   "unknown in that respect",
		   "run the check as root on the host (or guest) itself, or record the tree "
		   "again with scripts/passthrough-collect.sh",
		   "%s: %s", path, what);
}

void pt_print_findings(const struct pt *p)
{
	for (size_t i = 0; i < p->count; i++) {
		const struct pt_finding *f = &p->f[i];

		printf("%s %s: %s\n    why: %s\n    do: %s\n", level_name[f->lv], f->code,
		       f->msg ? f->msg : "", f->why, f->todo);
	}
}

void pt_print(const struct pt *p, const char *verdict)
{
	pt_print_findings(p);
	printf("verdict: %s\n", verdict);
}

void pt_print_json(const struct pt *p, const char *verdict)
{
	struct jw w = { .f = stdout };

	jw_obj(&w, NULL);
	jw_str(&w, "verdict", verdict);
	jw_int(&w, "pass", p->worst < PT_WARNING);
	jw_open(&w, "findings", '[');
	for (size_t i = 0; i < p->count; i++) {
		jw_obj(&w, NULL);
		jw_str(&w, "level", level_name[p->f[i].lv]);
		jw_str(&w, "code", p->f[i].code);
		jw_str(&w, "message", p->f[i].msg);
		jw_str(&w, "why", p->f[i].why);
		jw_str(&w, "do", p->f[i].todo);
		jw_end(&w);
	}
	jw_close(&w, ']');
	jw_end(&w);
	putchar('\n');
}

void pt_free(struct pt *p)
{
	for (size_t i = 0; i < p->count; i++)
		free(p->f[i].msg);
	free(p->f);
	p->f = NULL;
	p->count = 0;
}

void pt_path(const struct pt *p, char *out, size_t n, const char *fmt, ...)
{
	int k = snprintf(out, n, "%s", p->root);
	va_list ap;

	if (k < 0 || (size_t)k >= n)
		return;
	va_start(ap, fmt);
	vsnprintf(out + k, n - (size_t)k, fmt, ap);
	va_end(ap);
}

char *pt_read_len(const struct pt *p, const char *path, size_t *len)
{
	char full[4096];

	pt_path(p, full, sizeof(full), "%s", path);
	return iogap_read_file(full, 64u << 20, len);
}

char *pt_read(const struct pt *p, const char *path)
{
	size_t len;

	return pt_read_len(p, path, &len);
}

bool pt_read_line(const struct pt *p, const char *path, char *out, size_t n)
{
	char *t = pt_read(p, path);
	size_t k;

	if (!t)
		return false;
	k = strcspn(t, "\n");
	while (k && (t[k - 1] == ' ' || t[k - 1] == '\t' || t[k - 1] == '\r'))
		k--;
	snprintf(out, n, "%.*s", (int)k, t);
	free(t);
	return k > 0;
}

bool pt_link_name(const struct pt *p, const char *path, char *out, size_t n)
{
	char full[4096], target[4096];
	ssize_t k;
	const char *base;

	pt_path(p, full, sizeof(full), "%s", path);
	k = readlink(full, target, sizeof(target) - 1);
	if (k <= 0)
		return false;
	target[k] = '\0';
	base = strrchr(target, '/');
	snprintf(out, n, "%s", base ? base + 1 : target);
	return out[0] != '\0';
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

char **pt_list(const struct pt *p, const char *path, size_t *n)
{
	char full[4096];
	DIR *d;
	struct dirent *de;
	char **names = NULL;

	*n = 0;
	pt_path(p, full, sizeof(full), "%s", path);
	if (!(d = opendir(full)))
		return NULL;
	names = malloc(sizeof(*names));
	while (names && (de = readdir(d))) {
		char **m;

		if (de->d_name[0] == '.')
			continue;
		m = realloc(names, (*n + 2) * sizeof(*m));
		if (!m || !(m[*n] = strdup(de->d_name))) {
			pt_names_free(m ? m : names, *n);
			names = NULL;
			break;
		}
		names = m;
		(*n)++;
	}
	closedir(d);
	if (names)
		qsort(names, *n, sizeof(*names), cmp_name);
	else
		*n = 0;
	return names;
}

void pt_names_free(char **names, size_t n)
{
	for (size_t i = 0; names && i < n; i++)
		free(names[i]);
	free(names);
}

bool pt_cpus_parse(const char *s, struct pt_cpus *c)
{
	memset(c, 0, sizeof(*c));
	while (*s && *s != '\n') {
		char *end;
		unsigned long a = strtoul(s, &end, 10), b = a;

		if (end == s || a >= PT_MAX_CPUS)
			return false;
		s = end;
		if (*s == '-') {
			b = strtoul(s + 1, &end, 10);
			if (end == s + 1 || b >= PT_MAX_CPUS || b < a)
				return false;
			s = end;
		}
		for (unsigned long i = a; i <= b; i++)
			c->bits[i / 64] |= 1ull << (i % 64);
		if (*s == ',')
			s++;
		else if (*s && *s != '\n')
			return false;
	}
	return true;
}

bool pt_cpus_has(const struct pt_cpus *c, unsigned cpu)
{
	return cpu < PT_MAX_CPUS && (c->bits[cpu / 64] >> (cpu % 64) & 1);
}

bool pt_cpus_subset(const struct pt_cpus *a, const struct pt_cpus *b)
{
	for (size_t i = 0; i < PT_MAX_CPUS / 64; i++)
		if (a->bits[i] & ~b->bits[i])
			return false;
	return true;
}

unsigned pt_cpus_count(const struct pt_cpus *c)
{
	unsigned n = 0;

	for (size_t i = 0; i < PT_MAX_CPUS / 64; i++)
		n += (unsigned)__builtin_popcountll(c->bits[i]);
	return n;
}

/* "0000:01:00.0" or "01:00.0" (domain 0), ending the string or followed by
 * a separator (',', '"', newline), into the canonical form. */
bool pt_parse_bdf(const char *s, char out[PT_BDF_LEN])
{
	unsigned dom = 0, bus, dev, fn;
	int k = 0;

	if (sscanf(s, "%4x:%2x:%2x.%1u%n", &dom, &bus, &dev, &fn, &k) != 4 || !k) {
		dom = 0;
		k = 0;
		if (sscanf(s, "%2x:%2x.%1u%n", &bus, &dev, &fn, &k) != 3 || !k)
			return false;
	}
	if (isalnum((unsigned char)s[k]) || s[k] == '.' || s[k] == ':' || dev > 31 || fn > 7)
		return false;
	snprintf(out, PT_BDF_LEN, "%04x:%02x:%02x.%u", dom, bus, dev, fn);
	return true;
}
