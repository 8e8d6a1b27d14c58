/* SPDX-License-Identifier: MIT */
/*
 * A compact JSON DOM parser (RFC 8259, strict: no comments, no trailing
 * commas, no NaN, no leading zeros, UTF-8 checked, depth-limited).  Errors
 * name the line and column.  Numbers keep their source text, so a document
 * read and written again keeps every value byte for byte (fio prints
 * floats with %f; a double would not always give them back).
 */
#ifndef IOGAP_JSON_PARSE_H
#define IOGAP_JSON_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define JP_MAX_DEPTH 64

enum jp_type { JP_NULL, JP_BOOL, JP_NUMBER, JP_STRING, JP_ARRAY, JP_OBJECT };

struct jp_member;

struct jp_value {
	enum jp_type type;
	bool b;
	double num;           /* JP_NUMBER */
	char *text;           /* JP_NUMBER: source text; JP_STRING: decoded, NUL-terminated */
	size_t len;           /* JP_STRING: length (may contain NUL) */
	struct jp_value *items;     /* JP_ARRAY */
	struct jp_member *members;  /* JP_OBJECT, in document order */
	size_t n;                   /* items or members */
};

struct jp_member {
	char *key;
	struct jp_value val;
};

/* Parse exactly one JSON value from text[0..len) (white space around it
 * allowed, nothing else).  0, or -1 with "line L, column C: what" in err.
 * *end_off (optional) receives the offset just after the value; with
 * allow_trailing, text after the value is not an error. */
int jp_parse(const char *text, size_t len, bool allow_trailing, struct jp_value *out,
	     size_t *end_off, char *err, size_t errlen);
void jp_free(struct jp_value *v);
/* Parse a whole JSON file (an input: iogap_input_read, IOGAP_INPUT_MAX);
 * 0, or -1 with err naming the file (missing: "PATH: strerror", errno kept;
 * malformed: "PATH: line L, column C: ..."). */
int iogap_json_load(const char *path, struct jp_value *v, char *err, size_t errlen);

/* Inputs (run directories' files, fio's outputs, job files) are read only
 * when they are regular files no larger than a limit: a FIFO blocks its
 * reader until a writer comes, a device such as /dev/zero never ends. */
#define IOGAP_INPUT_MAX ((size_t)256 << 20)   /* bytes: fio output, JSON, text */
/* PATH opened for reading, blocking; *size its size: an fd, or -1 with err
 * ("PATH: strerror", errno kept; "PATH: not a regular file (a FIFO)";
 * "PATH: N bytes, more than the limit of M MiB").  max 0: no limit. */
int iogap_input_open(const char *path, size_t max, size_t *size, char *err, size_t errlen);
/* The whole of PATH (at most max bytes), NUL-terminated; NULL with err. */
char *iogap_input_read(const char *path, size_t max, size_t *len, char *err, size_t errlen);

/* Object member by key (first match), or NULL; NULL-safe. */
struct jp_value *jp_get(const struct jp_value *obj, const char *key);
/* Path of keys separated by '/', e.g. "read/clat_ns/mean". */
struct jp_value *jp_path(const struct jp_value *obj, const char *path);
/* Numeric value (a number, or a string holding one), else dflt. */
double jp_num(const struct jp_value *v, double dflt);
/* Unsigned integer value: exact for integer literals up to 2^64-1. */
uint64_t jp_u64(const struct jp_value *v, uint64_t dflt);
const char *jp_str(const struct jp_value *v);   /* NULL unless a string */

/* Editing (for overlays): set a member of obj to a number given as
 * text, a string, or a deep copy of a value; created when absent (at the
 * end).  0, -1 on allocation failure or when obj is not an object. */
int jp_set_text(struct jp_value *obj, const char *key, const char *numtext);
int jp_set_double(struct jp_value *obj, const char *key, double v);    /* "%f", as fio */
int jp_set_u64(struct jp_value *obj, const char *key, uint64_t v);
int jp_set_string(struct jp_value *obj, const char *key, const char *s);
int jp_set_value(struct jp_value *obj, const char *key, const struct jp_value *v);
/* The member's value, created as an empty object when absent. */
struct jp_value *jp_obj_child(struct jp_value *obj, const char *key);
int jp_copy(struct jp_value *dst, const struct jp_value *src);
/* Remove a member; 1 when removed. */
int jp_remove(struct jp_value *obj, const char *key);
int jp_array_append(struct jp_value *arr, const struct jp_value *v);

/* Write v in fio's layout (json_writer.h); a top-level value ends with "\n". */
void jp_write(FILE *f, const struct jp_value *v);

#endif
