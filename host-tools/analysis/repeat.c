/* SPDX-License-Identifier: MIT */
/* repeat.json, written and read here (repeat.h). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "json_writer.h"
#include "repeat.h"
#include "rundir.h"
#include "util.h"

void iogap_repeat_name(struct iogap_repeat *r, unsigned k)
{
	snprintf(r->name[k - 1], sizeof(r->name[0]), "rep-%u", k);
}

static void repeat_json(struct jw *w, const void *ctx)
{
	const struct iogap_repeat *r = ctx;

	jw_open(w, NULL, '{');
	jw_int(w, "iogap_repeat", 1);
	jw_int(w, "planned", r->planned);
	jw_open(w, "runs", '[');
	for (unsigned i = 0; i < r->nr; i++) {
		jw_open(w, NULL, '{');
		jw_str(w, "dir", r->name[i]);
		jw_int(w, "exit_status", r->status[i]);
		jw_close(w, '}');
	}
	jw_close(w, ']');
	jw_end(w);
}

int iogap_repeat_save(const char *dir, const struct iogap_repeat *r, char *err, size_t errlen)
{
	char path[PATH_MAX + 32];
	int e;

	snprintf(path, sizeof(path), "%s/" IOGAP_REPEAT_FILE, dir);
	e = jw_save_atomic(path, repeat_json, r);
	return e ? iogap_seterr(err, errlen, "%s: %s", path, strerror(e)) : 0;
}

bool iogap_repeat_is(const char *dir)
{
	char path[PATH_MAX + 32];

	snprintf(path, sizeof(path), "%s/" IOGAP_REPEAT_FILE, dir);
	return !access(path, F_OK);
}

/* One entry of "runs": { "dir": "rep-K", "exit_status": N }. */
static int load_entry(const struct jp_value *e, struct iogap_repeat *r, const char *path,
		      char *err, size_t errlen)
{
	const char *name = jp_str(jp_get(e, "dir"));
	unsigned k;
	char tail;

	if (!name || sscanf(name, "rep-%u%c", &k, &tail) != 1 || k != r->nr + 1)
		return iogap_seterr(err, errlen, "%s: runs[%u].dir is not \"rep-%u\"", path, r->nr,
				    r->nr + 1);
	iogap_repeat_name(r, k);
	r->status[r->nr++] = (int)jp_num(jp_get(e, "exit_status"), -1);
	return 0;
}

int iogap_repeat_load(const char *dir, struct iogap_repeat *r, char *err, size_t errlen)
{
	char path[PATH_MAX + 32];
	struct jp_value v;
	const struct jp_value *runs;
	int rc = 0;

	memset(r, 0, sizeof(*r));
	snprintf(path, sizeof(path), "%s/" IOGAP_REPEAT_FILE, dir);
	if (iogap_json_load(path, &v, err, errlen))
		return -1;
	runs = jp_get(&v, "runs");
	r->planned = (unsigned)jp_num(jp_get(&v, "planned"), 0);
	if (jp_num(jp_get(&v, "iogap_repeat"), 0) != 1 || !runs || runs->type != JP_ARRAY ||
	    runs->n > IOGAP_REPEAT_MAX)
		rc = iogap_seterr(err, errlen, "%s: not an iogap repeat listing (iogap_repeat 1, "
				  "runs: at most %d)", path, IOGAP_REPEAT_MAX);
	for (size_t i = 0; !rc && i < runs->n; i++)
		rc = load_entry(&runs->items[i], r, path, err, errlen);
	jp_free(&v);
	return rc;
}
