/* SPDX-License-Identifier: MIT */
/*
 * A streaming JSON writer with fio's json.c layout: "{", one member per
 * line indented two spaces per level, `"key" : value`, ",\n" between
 * members.  Used for fio-compatible output and for iogap's own files.
 */
#ifndef IOGAP_JSON_WRITER_H
#define IOGAP_JSON_WRITER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* nesting tracked exactly up to this (the JSON parser allows 64); deeper
 * levels share the last slot: still no out-of-bounds access */
#define JW_DEPTH 80

struct jw {
	FILE *f;
	int depth;                /* open containers, <= JW_DEPTH - 1 */
	int overflow;             /* levels opened beyond that */
	bool has_member[JW_DEPTH];
};

void jw_string(struct jw *w, const char *s);
/* separator, indentation and key of the next member (key NULL in arrays) */
void jw_member(struct jw *w, const char *key);
void jw_open(struct jw *w, const char *key, char c);   /* '{' or '[' */
void jw_close(struct jw *w, char c);
void jw_obj(struct jw *w, const char *key);
void jw_end(struct jw *w);
void jw_int(struct jw *w, const char *key, long long v);
void jw_u64(struct jw *w, const char *key, uint64_t v);
void jw_float(struct jw *w, const char *key, double v);
/* as fio: an empty or NULL string value drops the member */
void jw_str(struct jw *w, const char *key, const char *v);

/* Write a JSON document to path atomically: emit(w, ctx) writes it into
 * path.tmp, which is flushed, synced and renamed over path (a reader
 * sees the old document or the new one, never a part).  0, or an errno
 * (path.tmp is removed then). */
int jw_save_atomic(const char *path, void (*emit)(struct jw *w, const void *ctx),
		   const void *ctx);

#endif
