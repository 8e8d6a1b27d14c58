/* SPDX-License-Identifier: MIT */
/*
 * The filter preload in a domain's definition: two <qemu:env> entries in
 * the libvirt QEMU namespace.  The XML is libvirt's own output (one element
 * a line, single-quoted attributes, namespace prefix "qemu"), edited as
 * text so that everything iogap did not add stays byte for byte.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lv.h"
#include "qemubin.h"
#include "util.h"

#define QEMU_NS "xmlns:qemu='http://libvirt.org/schemas/domain/qemu/1.0'"
#define ENV_PRELOAD "<qemu:env name='LD_PRELOAD' value='"
#define ENV_ALIAS "<qemu:env name='IOGAP_FILTER_ALIAS' value='"

/* s with the span [at, at + cut) replaced by ins; a new string or NULL. */
static char *splice(const char *s, size_t at, size_t cut, const char *ins)
{
	size_t len = strlen(s), n = strlen(ins);
	char *out = malloc(len - cut + n + 1);

	if (!out)
		return NULL;
	memcpy(out, s, at);
	memcpy(out + at, ins, n);
	memcpy(out + at + n, s + at + cut, len - at - cut + 1);
	return out;
}

/* The whole line holding position p: [*start, *end), end past its '\n'. */
static void line_of(const char *s, const char *p, size_t *start, size_t *end)
{
	const char *b = p, *e = strchr(p, '\n');

	while (b > s && b[-1] != '\n')
		b--;
	*start = (size_t)(b - s);
	*end = e ? (size_t)(e - s) + 1 : strlen(s);
}

/* XML-escape a path for a single-quoted attribute. */
static int escape_attr(const char *in, char *out, size_t outlen)
{
	size_t o = 0;

	for (; *in; in++) {
		const char *rep = *in == '&' ? "&amp;" : *in == '<' ? "&lt;" :
				  *in == '\'' ? "&apos;" : NULL;
		size_t n = rep ? strlen(rep) : 1;

		if (o + n >= outlen)
			return -1;
		memcpy(out + o, rep ? rep : in, n);
		o += n;
	}
	out[o] = '\0';
	return 0;
}

/* The value of the env entry starting at e (after its value=' prefix). */
static void env_value(const char *e, size_t prefix, char *out, size_t outlen)
{
	const char *v = e + prefix, *q = strchr(v, '\'');
	size_t n = q ? (size_t)(q - v) : 0;

	snprintf(out, outlen, "%.*s", (int)n, v);
}

/* Remove the line holding p from *xml (replaced in place); 0 or -1. */
static int drop_line(char **xml, const char *p)
{
	size_t start, end;
	char *n;

	line_of(*xml, p, &start, &end);
	n = splice(*xml, start, end - start, "");
	if (!n)
		return -1;
	free(*xml);
	*xml = n;
	return 0;
}

/* Insert text at offset at of *xml; 0 or -1. */
static int insert_at(char **xml, size_t at, const char *text)
{
	char *n = splice(*xml, at, 0, text);

	if (!n)
		return -1;
	free(*xml);
	*xml = n;
	return 0;
}

/* The root element's start tag: offset of its closing '>' (or 0). */
static size_t root_tag_end(const char *xml)
{
	const char *d = strstr(xml, "<domain"), *gt = d ? strchr(d, '>') : NULL;

	return gt ? (size_t)(gt - xml) : 0;
}

static int add_namespace(char **xml)
{
	size_t gt = root_tag_end(*xml);
	char *root = strndup(*xml, gt);
	bool has = root && strstr(root, QEMU_NS);

	free(root);
	if (has)
		return 0;
	return insert_at(xml, gt, " " QEMU_NS);
}

int iogap_domxml_enable(const char *xml, const char *filter_so, char **out,
			char *err, size_t errlen)
{
	char so[4096], cur[4096], lines[8192];
	const char *pre = strstr(xml, ENV_PRELOAD), *alias = strstr(xml, ENV_ALIAS);
	const char *close;
	char *x;

	*out = NULL;
	if (!root_tag_end(xml)) {
		iogap_seterr(err, errlen, "the domain XML has no <domain> element");
		return -1;
	}
	if (escape_attr(filter_so, so, sizeof(so))) {
		iogap_seterr(err, errlen, "filter path too long: %s", filter_so);
		return -1;
	}
	if (pre) {
		env_value(pre, strlen(ENV_PRELOAD), cur, sizeof(cur));
		if (!iogap_is_filter_name(cur)) {
			iogap_seterr(err, errlen, "the domain already sets LD_PRELOAD='%s' in <qemu:commandline>: "
				"iogap does not replace another preload (add %s to that list by hand, "
				"with <qemu:env name='IOGAP_FILTER_ALIAS' value='compress'/>)", cur, filter_so);
			return -1;
		}
		if (!strcmp(cur, so) && alias)
			return 1;   /* already enabled, the same object */
	}
	x = strdup(xml);
	if (!x)
		goto oom;
	/* an older iogap entry (another path) is replaced, not duplicated */
	if ((pre && drop_line(&x, strstr(x, ENV_PRELOAD))) ||
	    (alias && drop_line(&x, strstr(x, ENV_ALIAS))))
		goto oom;
	snprintf(lines, sizeof(lines), "    " ENV_PRELOAD "%s'/>\n    " ENV_ALIAS "compress'/>\n", so);
	close = strstr(x, "</qemu:commandline>");
	if (close) {
		size_t start, end;

		line_of(x, close, &start, &end);
		if (insert_at(&x, start, lines))
			goto oom;
	} else {
		const char *dom_end = strstr(x, "</domain>");
		char block[8400];

		if (!dom_end) {
			free(x);
			iogap_seterr(err, errlen, "the domain XML has no </domain>");
			return -1;
		}
		snprintf(block, sizeof(block), "  <qemu:commandline>\n%s  </qemu:commandline>\n", lines);
		if (insert_at(&x, (size_t)(dom_end - x), block))
			goto oom;
	}
	if (add_namespace(&x))
		goto oom;
	*out = x;
	return 0;
oom:
	free(x);
	iogap_seterr(err, errlen, "out of memory");
	return -1;
}

/* Is the <qemu:commandline> block empty now?  Then drop its two lines. */
static int drop_empty_block(char **xml)
{
	const char *open = strstr(*xml, "<qemu:commandline>");
	const char *close = strstr(*xml, "</qemu:commandline>");
	size_t os, oe, cs, ce;

	if (!open || !close)
		return 0;
	line_of(*xml, open, &os, &oe);
	line_of(*xml, close, &cs, &ce);
	if (oe != cs)
		return 0;   /* something else is in it */
	/* the later line first: os stays valid */
	return drop_line(xml, *xml + cs) || drop_line(xml, *xml + os);
}

/* With no qemu: element left, the namespace declaration goes too. */
static int drop_unused_namespace(char **xml)
{
	const char *ns = strstr(*xml, " " QEMU_NS);
	char *n;

	if (!ns || strstr(*xml, "<qemu:") || (size_t)(ns - *xml) > root_tag_end(*xml))
		return 0;
	n = splice(*xml, (size_t)(ns - *xml), strlen(" " QEMU_NS), "");
	if (!n)
		return -1;
	free(*xml);
	*xml = n;
	return 0;
}

int iogap_domxml_disable(const char *xml, char **out, char *err, size_t errlen)
{
	const char *pre = strstr(xml, ENV_PRELOAD), *alias = strstr(xml, ENV_ALIAS);
	char cur[4096];
	char *x;

	*out = NULL;
	if (pre) {
		env_value(pre, strlen(ENV_PRELOAD), cur, sizeof(cur));
		if (!iogap_is_filter_name(cur))
			pre = NULL;   /* someone else's preload stays */
	}
	if (!pre && !alias)
		return 1;   /* nothing of ours */
	x = strdup(xml);
	if (!x || (pre && drop_line(&x, strstr(x, ENV_PRELOAD))) ||
	    (alias && drop_line(&x, strstr(x, ENV_ALIAS))) ||
	    drop_empty_block(&x) || drop_unused_namespace(&x)) {
		free(x);
		iogap_seterr(err, errlen, "out of memory");
		return -1;
	}
	*out = x;
	return 0;
}
