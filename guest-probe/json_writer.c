/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <unistd.h>

#include "json_writer.h"

/*
 * A streaming writer with json.c's layout: "{", one pair per line indented
 * two spaces per level, `"key" : value`, ",\n" between members, the
 * closing brace on its own line at the parent's indentation.
 */
static void jw_indent(struct jw *w, int level)
{
	while (level-- > 0)
		fputs("  ", w->f);
}

/* fio escapes only '\\' and '"'; control characters are escaped too so
 * the document stays valid JSON whatever a job name contains. */
void jw_string(struct jw *w, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', w->f);
	for (; *p; p++) {
		if (*p == '\\' || *p == '"')
			fprintf(w->f, "\\%c", *p);
		else if (*p < 0x20)
			fprintf(w->f, "\\u%04x", *p);
		else
			fputc(*p, w->f);
	}
	fputc('"', w->f);
}

/* Start a member of the innermost container: separator and indentation,
 * and the key when the container is an object. */
void jw_member(struct jw *w, const char *key)
{
	if (w->has_member[w->depth])
		fputs(",\n", w->f);
	w->has_member[w->depth] = true;
	jw_indent(w, w->depth);
	if (key) {
		jw_string(w, key);
		fputs(" : ", w->f);
	}
}

void jw_open(struct jw *w, const char *key, char c)
{
	if (w->depth > 0)
		jw_member(w, key);
	fputc(c, w->f);
	fputc('\n', w->f);
	if (w->depth < JW_DEPTH - 1)
		w->depth++;
	else
		w->overflow++;
	w->has_member[w->depth] = false;
}

void jw_close(struct jw *w, char c)
{
	fputc('\n', w->f);
	if (w->overflow)
		w->overflow--;
	else if (w->depth > 0)
		w->depth--;
	jw_indent(w, w->depth);
	fputc(c, w->f);
}

void jw_obj(struct jw *w, const char *key)
{
	jw_open(w, key, '{');
}

void jw_end(struct jw *w)
{
	jw_close(w, '}');
}

void jw_int(struct jw *w, const char *key, long long v)
{
	jw_member(w, key);
	fprintf(w->f, "%lld", v);
}

void jw_u64(struct jw *w, const char *key, uint64_t v)
{
	jw_member(w, key);
	fprintf(w->f, "%" PRIu64, v);
}

void jw_float(struct jw *w, const char *key, double v)
{
	jw_member(w, key);
	fprintf(w->f, "%f", v);
}

/* fio cannot store an empty string value: the pair is dropped. */
void jw_str(struct jw *w, const char *key, const char *v)
{
	if (!v || !*v)
		return;
	jw_member(w, key);
	jw_string(w, v);
}

int jw_save_atomic(const char *path, void (*emit)(struct jw *w, const void *ctx),
		   const void *ctx)
{
	char tmp[PATH_MAX + 8];
	struct jw w = { 0 };
	int e = 0;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
		return ENAMETOOLONG;
	w.f = fopen(tmp, "w");
	if (!w.f)
		return errno;
	emit(&w, ctx);
	if (fflush(w.f) || ferror(w.f) || fsync(fileno(w.f)))
		e = errno ? errno : EIO;
	if (fclose(w.f) && !e)
		e = errno;
	if (!e && rename(tmp, path))
		e = errno;
	if (e)
		unlink(tmp);
	return e;
}
