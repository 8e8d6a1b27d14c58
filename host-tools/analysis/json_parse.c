/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "json_parse.h"
#include "json_writer.h"
#include "util.h"

struct jp_ctx {
	const char *s;
	size_t len, pos;
	char *err;
	size_t errlen;
	bool failed;
};

__attribute__((format(printf, 2, 3)))
static int jp_fail(struct jp_ctx *c, const char *fmt, ...)
{
	size_t i, line = 1, col = 1, o;
	va_list ap;

	if (c->failed)
		return -1;
	c->failed = true;
	for (i = 0; i < c->pos && i < c->len; i++) {
		if (c->s[i] == '\n') {
			line++;
			col = 1;
		} else {
			col++;
		}
	}
	if (!c->err || !c->errlen)
		return -1;
	o = (size_t)snprintf(c->err, c->errlen, "line %zu, column %zu: ", line, col);
	if (o < c->errlen) {
		va_start(ap, fmt);
		vsnprintf(c->err + o, c->errlen - o, fmt, ap);
		va_end(ap);
	}
	return -1;
}

static void skip_ws(struct jp_ctx *c)
{
	while (c->pos < c->len) {
		char ch = c->s[c->pos];

		if (ch != ' ' && ch != '\t' && ch != '\n' && ch != '\r')
			break;
		c->pos++;
	}
}

static const char *what(struct jp_ctx *c)
{
	static __thread char buf[32];
	unsigned char ch;

	if (c->pos >= c->len)
		return "end of input";
	ch = (unsigned char)c->s[c->pos];
	if (ch >= 0x20 && ch < 0x7f)
		snprintf(buf, sizeof(buf), "'%c'", ch);
	else
		snprintf(buf, sizeof(buf), "byte 0x%02x", ch);
	return buf;
}

static int parse_value(struct jp_ctx *c, struct jp_value *v, int depth);

static int hex4(struct jp_ctx *c, unsigned *out)
{
	unsigned v = 0;
	int i;

	if (c->len - c->pos < 4)
		return jp_fail(c, "truncated \\u escape");
	for (i = 0; i < 4; i++) {
		char ch = c->s[c->pos + i];

		v <<= 4;
		if (ch >= '0' && ch <= '9')
			v |= (unsigned)(ch - '0');
		else if (ch >= 'a' && ch <= 'f')
			v |= (unsigned)(ch - 'a' + 10);
		else if (ch >= 'A' && ch <= 'F')
			v |= (unsigned)(ch - 'A' + 10);
		else
			return jp_fail(c, "bad hex digit in \\u escape");
	}
	c->pos += 4;
	*out = v;
	return 0;
}

static size_t put_utf8(char *o, unsigned cp)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xc0 | (cp >> 6));
		o[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xe0 | (cp >> 12));
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | (cp >> 18));
	o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	o[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* Length of a valid UTF-8 sequence at p (n bytes available), 0 if invalid. */
static size_t utf8_len(const unsigned char *p, size_t n)
{
	unsigned cp;
	size_t k, i;

	if (p[0] < 0x80)
		return 1;
	if ((p[0] & 0xe0) == 0xc0) {
		k = 2;
		cp = p[0] & 0x1f;
	} else if ((p[0] & 0xf0) == 0xe0) {
		k = 3;
		cp = p[0] & 0x0f;
	} else if ((p[0] & 0xf8) == 0xf0) {
		k = 4;
		cp = p[0] & 0x07;
	} else {
		return 0;
	}
	if (n < k)
		return 0;
	for (i = 1; i < k; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (p[i] & 0x3f);
	}
	if ((k == 2 && cp < 0x80) || (k == 3 && cp < 0x800) || (k == 4 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return k;
}

/* The source length of the string whose text starts at start: up to its
 * closing quote (or the end of the input). */
static size_t string_span(const struct jp_ctx *c, size_t start)
{
	size_t i = start;

	while (i < c->len && c->s[i] != '"')
		i += c->s[i] == '\\' ? 2 : 1;
	return (i < c->len ? i : c->len) - start;
}

static int parse_string(struct jp_ctx *c, char **out, size_t *outlen)
{
	size_t start = ++c->pos, n = 0, k;
	char *buf;

	/* decoded text is never longer than its source (not the rest of the
	 * input: that is a whole document's worth for every string) */
	buf = malloc(string_span(c, start) + 1);
	if (!buf)
		return jp_fail(c, "out of memory");
	for (;;) {
		unsigned char ch;

		if (c->pos >= c->len) {
			free(buf);
			return jp_fail(c, "unterminated string");
		}
		ch = (unsigned char)c->s[c->pos];
		if (ch == '"') {
			c->pos++;
			break;
		}
		if (ch < 0x20) {
			free(buf);
			return jp_fail(c, "control character in string");
		}
		if (ch != '\\') {
			k = utf8_len((const unsigned char *)c->s + c->pos, c->len - c->pos);
			if (!k) {
				free(buf);
				return jp_fail(c, "invalid UTF-8 in string");
			}
			memcpy(buf + n, c->s + c->pos, k);
			n += k;
			c->pos += k;
			continue;
		}
		c->pos++;
		if (c->pos >= c->len) {
			free(buf);
			return jp_fail(c, "unterminated string");
		}
		ch = (unsigned char)c->s[c->pos++];
		switch (ch) {
		case '"': buf[n++] = '"'; break;
		case '\\': buf[n++] = '\\'; break;
		case '/': buf[n++] = '/'; break;
		case 'b': buf[n++] = '\b'; break;
		case 'f': buf[n++] = '\f'; break;
		case 'n': buf[n++] = '\n'; break;
		case 'r': buf[n++] = '\r'; break;
		case 't': buf[n++] = '\t'; break;
		case 'u': {
			unsigned cp, lo;

			if (hex4(c, &cp)) {
				free(buf);
				return -1;
			}
			if (cp >= 0xdc00 && cp <= 0xdfff) {
				free(buf);
				return jp_fail(c, "lone low surrogate in \\u escape");
			}
			if (cp >= 0xd800 && cp <= 0xdbff) {
				if (c->len - c->pos < 6 || c->s[c->pos] != '\\' ||
				    c->s[c->pos + 1] != 'u') {
					free(buf);
					return jp_fail(c, "high surrogate without low surrogate");
				}
				c->pos += 2;
				if (hex4(c, &lo)) {
					free(buf);
					return -1;
				}
				if (lo < 0xdc00 || lo > 0xdfff) {
					free(buf);
					return jp_fail(c, "high surrogate without low surrogate");
				}
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
			}
			n += put_utf8(buf + n, cp);
			break;
		}
		default:
			c->pos--;
			free(buf);
			return jp_fail(c, "bad escape \\%c", ch >= 0x20 && ch < 0x7f ? ch : '?');
		}
	}
	buf[n] = '\0';
	*out = buf;
	*outlen = n;
	return 0;
}

static bool is_digit(char ch)
{
	return ch >= '0' && ch <= '9';
}

static int parse_number(struct jp_ctx *c, struct jp_value *v)
{
	size_t start = c->pos;
	const char *s = c->s;

	if (c->pos < c->len && s[c->pos] == '-')
		c->pos++;
	if (c->pos >= c->len || !is_digit(s[c->pos]))
		return jp_fail(c, "expected a digit, got %s", what(c));
	if (s[c->pos] == '0') {
		c->pos++;
		if (c->pos < c->len && is_digit(s[c->pos]))
			return jp_fail(c, "leading zero in number");
	} else {
		while (c->pos < c->len && is_digit(s[c->pos]))
			c->pos++;
	}
	if (c->pos < c->len && s[c->pos] == '.') {
		c->pos++;
		if (c->pos >= c->len || !is_digit(s[c->pos]))
			return jp_fail(c, "expected a digit after '.', got %s", what(c));
		while (c->pos < c->len && is_digit(s[c->pos]))
			c->pos++;
	}
	if (c->pos < c->len && (s[c->pos] == 'e' || s[c->pos] == 'E')) {
		c->pos++;
		if (c->pos < c->len && (s[c->pos] == '+' || s[c->pos] == '-'))
			c->pos++;
		if (c->pos >= c->len || !is_digit(s[c->pos]))
			return jp_fail(c, "expected a digit in exponent, got %s", what(c));
		while (c->pos < c->len && is_digit(s[c->pos]))
			c->pos++;
	}
	v->type = JP_NUMBER;
	v->text = strndup(s + start, c->pos - start);
	if (!v->text)
		return jp_fail(c, "out of memory");
	v->num = strtod(v->text, NULL);
	return 0;
}

static int literal(struct jp_ctx *c, const char *word)
{
	size_t n = strlen(word);

	if (c->len - c->pos < n || memcmp(c->s + c->pos, word, n))
		return jp_fail(c, "unexpected %s", what(c));
	c->pos += n;
	return 0;
}

static int grow(struct jp_ctx *c, void **p, size_t *cap, size_t n, size_t size)
{
	void *q;

	if (n < *cap)
		return 0;
	*cap = *cap ? *cap * 2 : 8;
	q = realloc(*p, *cap * size);
	if (!q)
		return jp_fail(c, "out of memory");
	*p = q;
	return 0;
}

static int parse_array(struct jp_ctx *c, struct jp_value *v, int depth)
{
	size_t cap = 0;

	v->type = JP_ARRAY;
	c->pos++;
	skip_ws(c);
	if (c->pos < c->len && c->s[c->pos] == ']') {
		c->pos++;
		return 0;
	}
	for (;;) {
		if (grow(c, (void **)&v->items, &cap, v->n, sizeof(*v->items)))
			return -1;
		memset(&v->items[v->n], 0, sizeof(*v->items));
		v->n++;
		skip_ws(c);
		if (parse_value(c, &v->items[v->n - 1], depth + 1))
			return -1;
		skip_ws(c);
		if (c->pos < c->len && c->s[c->pos] == ',') {
			c->pos++;
			continue;
		}
		if (c->pos < c->len && c->s[c->pos] == ']') {
			c->pos++;
			return 0;
		}
		return jp_fail(c, "expected ',' or ']' in array, got %s", what(c));
	}
}

static int parse_object(struct jp_ctx *c, struct jp_value *v, int depth)
{
	size_t cap = 0, klen;

	v->type = JP_OBJECT;
	c->pos++;
	skip_ws(c);
	if (c->pos < c->len && c->s[c->pos] == '}') {
		c->pos++;
		return 0;
	}
	for (;;) {
		struct jp_member *m;

		skip_ws(c);
		if (c->pos >= c->len || c->s[c->pos] != '"')
			return jp_fail(c, "expected a string key, got %s", what(c));
		if (grow(c, (void **)&v->members, &cap, v->n, sizeof(*v->members)))
			return -1;
		m = &v->members[v->n];
		memset(m, 0, sizeof(*m));
		v->n++;
		if (parse_string(c, &m->key, &klen))
			return -1;
		skip_ws(c);
		if (c->pos >= c->len || c->s[c->pos] != ':')
			return jp_fail(c, "expected ':' after key \"%s\", got %s", m->key, what(c));
		c->pos++;
		skip_ws(c);
		if (parse_value(c, &m->val, depth + 1))
			return -1;
		skip_ws(c);
		if (c->pos < c->len && c->s[c->pos] == ',') {
			c->pos++;
			continue;
		}
		if (c->pos < c->len && c->s[c->pos] == '}') {
			c->pos++;
			return 0;
		}
		return jp_fail(c, "expected ',' or '}' in object, got %s", what(c));
	}
}

static int parse_value(struct jp_ctx *c, struct jp_value *v, int depth)
{
	if (depth > JP_MAX_DEPTH)
		return jp_fail(c, "nesting deeper than %d", JP_MAX_DEPTH);
	if (c->pos >= c->len)
		return jp_fail(c, "unexpected end of input");
	switch (c->s[c->pos]) {
	case '{':
		return parse_object(c, v, depth);
	case '[':
		return parse_array(c, v, depth);
	case '"':
		v->type = JP_STRING;
		return parse_string(c, &v->text, &v->len);
	case 't':
		v->type = JP_BOOL;
		v->b = true;
		return literal(c, "true");
	case 'f':
		v->type = JP_BOOL;
		return literal(c, "false");
	case 'n':
		v->type = JP_NULL;
		return literal(c, "null");
	default:
		return parse_number(c, v);
	}
}

int jp_parse(const char *text, size_t len, bool allow_trailing, struct jp_value *out,
	     size_t *end_off, char *err, size_t errlen)
{
	struct jp_ctx c = { .s = text, .len = len, .err = err, .errlen = errlen };

	memset(out, 0, sizeof(*out));
	skip_ws(&c);
	if (parse_value(&c, out, 0)) {
		jp_free(out);
		return -1;
	}
	if (end_off)
		*end_off = c.pos;
	skip_ws(&c);
	if (!allow_trailing && c.pos < c.len) {
		jp_fail(&c, "unexpected %s after the value", what(&c));
		jp_free(out);
		return -1;
	}
	return 0;
}

void jp_free(struct jp_value *v)
{
	size_t i;

	if (!v)
		return;
	free(v->text);
	for (i = 0; v->type == JP_ARRAY && i < v->n; i++)
		jp_free(&v->items[i]);
	for (i = 0; v->type == JP_OBJECT && i < v->n; i++) {
		free(v->members[i].key);
		jp_free(&v->members[i].val);
	}
	free(v->items);
	free(v->members);
	memset(v, 0, sizeof(*v));
}

struct jp_value *jp_get(const struct jp_value *obj, const char *key)
{
	size_t i;

	if (!obj || obj->type != JP_OBJECT)
		return NULL;
	for (i = 0; i < obj->n; i++)
		if (!strcmp(obj->members[i].key, key))
			return &obj->members[i].val;
	return NULL;
}

struct jp_value *jp_path(const struct jp_value *obj, const char *path)
{
	char key[128];
	const char *p = path, *slash;
	struct jp_value *v = (struct jp_value *)obj;

	while (v && *p) {
		size_t n;

		slash = strchr(p, '/');
		n = slash ? (size_t)(slash - p) : strlen(p);
		if (n >= sizeof(key))
			return NULL;
		memcpy(key, p, n);
		key[n] = '\0';
		v = jp_get(v, key);
		p += n + (slash ? 1 : 0);
	}
	return v;
}

double jp_num(const struct jp_value *v, double dflt)
{
	char *end;
	double d;

	if (!v)
		return dflt;
	if (v->type == JP_NUMBER)
		return v->num;
	if (v->type == JP_STRING && v->text && *v->text) {
		errno = 0;
		d = strtod(v->text, &end);
		if (!errno && !*end)
			return d;
	}
	return dflt;
}

uint64_t jp_u64(const struct jp_value *v, uint64_t dflt)
{
	char *end;
	unsigned long long u;

	if (!v || v->type != JP_NUMBER)
		return dflt;
	if (v->text[0] != '-' && !strpbrk(v->text, ".eE")) {
		errno = 0;
		u = strtoull(v->text, &end, 10);
		if (!errno && !*end)
			return u;
	}
	if (v->num < 0)
		return 0;
	if (v->num >= 18446744073709551615.0)
		return UINT64_MAX;
	return (uint64_t)v->num;
}

const char *jp_str(const struct jp_value *v)
{
	return v && v->type == JP_STRING ? v->text : NULL;
}

int jp_copy(struct jp_value *dst, const struct jp_value *src)
{
	size_t i;

	memset(dst, 0, sizeof(*dst));
	dst->type = src->type;
	dst->b = src->b;
	dst->num = src->num;
	dst->len = src->len;
	if (src->text) {
		dst->text = malloc(src->type == JP_STRING ? src->len + 1 : strlen(src->text) + 1);
		if (!dst->text)
			return -1;
		memcpy(dst->text, src->text,
		       src->type == JP_STRING ? src->len + 1 : strlen(src->text) + 1);
	}
	if (src->type == JP_ARRAY && src->n) {
		dst->items = calloc(src->n, sizeof(*dst->items));
		if (!dst->items)
			return -1;
		for (i = 0; i < src->n; i++, dst->n++)
			if (jp_copy(&dst->items[i], &src->items[i]))
				return -1;
	}
	if (src->type == JP_OBJECT && src->n) {
		dst->members = calloc(src->n, sizeof(*dst->members));
		if (!dst->members)
			return -1;
		for (i = 0; i < src->n; i++, dst->n++) {
			dst->members[i].key = strdup(src->members[i].key);
			if (!dst->members[i].key ||
			    jp_copy(&dst->members[i].val, &src->members[i].val))
				return -1;
		}
	}
	return 0;
}

/* The member's slot, appended (as null) when absent. */
static struct jp_value *slot(struct jp_value *obj, const char *key)
{
	struct jp_value *v = jp_get(obj, key);
	struct jp_member *m;

	if (v) {
		jp_free(v);
		return v;
	}
	if (!obj || obj->type != JP_OBJECT)
		return NULL;
	m = realloc(obj->members, (obj->n + 1) * sizeof(*m));
	if (!m)
		return NULL;
	obj->members = m;
	memset(&m[obj->n], 0, sizeof(*m));
	m[obj->n].key = strdup(key);
	if (!m[obj->n].key)
		return NULL;
	return &m[obj->n++].val;
}

int jp_set_text(struct jp_value *obj, const char *key, const char *numtext)
{
	struct jp_value *v = slot(obj, key);

	if (!v)
		return -1;
	v->type = JP_NUMBER;
	v->text = strdup(numtext);
	v->num = strtod(numtext, NULL);
	return v->text ? 0 : -1;
}

int jp_set_double(struct jp_value *obj, const char *key, double d)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%f", d);
	return jp_set_text(obj, key, buf);
}

int jp_set_u64(struct jp_value *obj, const char *key, uint64_t u)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%" PRIu64, u);
	return jp_set_text(obj, key, buf);
}

int jp_set_string(struct jp_value *obj, const char *key, const char *s)
{
	struct jp_value *v = slot(obj, key);

	if (!v)
		return -1;
	v->type = JP_STRING;
	v->text = strdup(s);
	v->len = strlen(s);
	return v->text ? 0 : -1;
}

int jp_set_value(struct jp_value *obj, const char *key, const struct jp_value *src)
{
	struct jp_value *v = slot(obj, key);

	if (!v)
		return -1;
	return jp_copy(v, src);
}

struct jp_value *jp_obj_child(struct jp_value *obj, const char *key)
{
	struct jp_value *v = jp_get(obj, key);

	if (v && v->type == JP_OBJECT)
		return v;
	v = slot(obj, key);
	if (v)
		v->type = JP_OBJECT;
	return v;
}

int jp_remove(struct jp_value *obj, const char *key)
{
	size_t i;

	if (!obj || obj->type != JP_OBJECT)
		return 0;
	for (i = 0; i < obj->n; i++) {
		if (strcmp(obj->members[i].key, key))
			continue;
		free(obj->members[i].key);
		jp_free(&obj->members[i].val);
		memmove(&obj->members[i], &obj->members[i + 1],
			(obj->n - i - 1) * sizeof(*obj->members));
		obj->n--;
		return 1;
	}
	return 0;
}

int jp_array_append(struct jp_value *arr, const struct jp_value *v)
{
	struct jp_value *items;

	if (arr->type != JP_ARRAY)
		return -1;
	items = realloc(arr->items, (arr->n + 1) * sizeof(*items));
	if (!items)
		return -1;
	arr->items = items;
	if (jp_copy(&items[arr->n], v))
		return -1;
	arr->n++;
	return 0;
}

static void write_value(struct jw *w, const char *key, const struct jp_value *v)
{
	size_t i;

	switch (v->type) {
	case JP_OBJECT:
	case JP_ARRAY:
		jw_open(w, key, v->type == JP_OBJECT ? '{' : '[');
		for (i = 0; i < v->n; i++) {
			if (v->type == JP_OBJECT)
				write_value(w, v->members[i].key, &v->members[i].val);
			else
				write_value(w, NULL, &v->items[i]);
		}
		jw_close(w, v->type == JP_OBJECT ? '}' : ']');
		return;
	default:
		break;
	}
	if (w->depth > 0)
		jw_member(w, key);
	switch (v->type) {
	case JP_NULL:
		fputs("null", w->f);
		break;
	case JP_BOOL:
		fputs(v->b ? "true" : "false", w->f);
		break;
	case JP_NUMBER:
		fputs(v->text, w->f);
		break;
	case JP_STRING:
		jw_string(w, v->text);
		break;
	default:
		break;
	}
}

void jp_write(FILE *f, const struct jp_value *v)
{
	struct jw w = { .f = f };

	write_value(&w, NULL, v);
	fputc('\n', f);
}

static const char *file_kind(mode_t m)
{
	return S_ISFIFO(m) ? "a FIFO" : S_ISCHR(m) ? "a character device" :
	       S_ISBLK(m) ? "a block device" : S_ISDIR(m) ? "a directory" :
	       S_ISSOCK(m) ? "a socket" : "not a file";
}

int iogap_input_open(const char *path, size_t max, size_t *size, char *err, size_t errlen)
{
	/* O_NONBLOCK: opening a FIFO without a writer would wait for one */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC), e;
	struct stat st;

	if (fd < 0) {
		e = errno;
		iogap_seterr(err, errlen, "%.3000s: %s", path, strerror(e));
		errno = e;
		return -1;
	}
	if (fstat(fd, &st) || fcntl(fd, F_SETFL, 0))
		iogap_seterr(err, errlen, "%.3000s: %s", path, strerror(errno));
	else if (!S_ISREG(st.st_mode))
		iogap_seterr(err, errlen, "%.3000s: not a regular file (%s)", path,
			     file_kind(st.st_mode));
	else if (max && (uint64_t)st.st_size > max)
		iogap_seterr(err, errlen, "%.3000s: %jd bytes, more than the limit of %zu MiB", path,
			     (intmax_t)st.st_size, max >> 20);
	else {
		*size = (size_t)st.st_size;
		return fd;
	}
	close(fd);
	errno = EINVAL;
	return -1;
}

char *iogap_input_read(const char *path, size_t max, size_t *len, char *err, size_t errlen)
{
	size_t size, n = 0;
	int fd = iogap_input_open(path, max, &size, err, errlen);
	char *buf = fd < 0 ? NULL : malloc(size + 1);
	ssize_t got = 1;

	if (fd >= 0 && !buf)
		iogap_seterr(err, errlen, "%.3000s: out of memory", path);
	/* to the size seen at open: a file growing meanwhile is read as it was */
	while (buf && n < size && (got = read(fd, buf + n, size - n)) != 0) {
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			iogap_seterr(err, errlen, "%.3000s: %s", path, strerror(errno));
			free(buf);
			buf = NULL;
			break;
		}
		n += (size_t)got;
	}
	if (fd >= 0)
		close(fd);
	if (buf) {
		buf[n] = '\0';
		*len = n;
	}
	return buf;
}

int iogap_json_load(const char *path, struct jp_value *v, char *err, size_t errlen)
{
	char perr[256];
	size_t len;
	char *text;
	int rc;

	memset(v, 0, sizeof(*v));
	if (!(text = iogap_input_read(path, IOGAP_INPUT_MAX, &len, err, errlen)))
		return -1;
	rc = jp_parse(text, len, false, v, NULL, perr, sizeof(perr));
	free(text);
	return rc ? iogap_seterr(err, errlen, "%.3000s: %.200s", path, perr) : 0;
}
