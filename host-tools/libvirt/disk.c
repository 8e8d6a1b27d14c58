/* SPDX-License-Identifier: MIT */
/* A disk of a running domain as its live XML describes it: the backend the
 * bare-metal side runs on, and how the guest finds the device. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libvirt/virterror.h>

#include "lv.h"
#include "util.h"

/* The value of attribute attr in the element starting at el (up to its
 * '>'), into out; false when absent. */
static bool attr(const char *el, const char *attr, char *out, size_t outlen)
{
	const char *end = strchr(el, '>'), *p = el;
	size_t an = strlen(attr);

	while (end && (p = strstr(p, attr)) && p < end) {
		if (p[-1] == ' ' && p[an] == '=' && (p[an + 1] == '\'' || p[an + 1] == '"')) {
			const char *v = p + an + 2, *q = strchr(v, p[an + 1]);

			if (!q || q > end)
				return false;
			snprintf(out, outlen, "%.*s", (int)(q - v), v);
			return true;
		}
		p += an;
	}
	return false;
}

/* The first element <name ...> between p and end, or NULL. */
static const char *element(const char *p, const char *end, const char *name)
{
	char want[64];
	size_t n = (size_t)snprintf(want, sizeof(want), "<%s", name);

	for (; (p = strstr(p, want)) && p < end; p += n)
		if (p[n] == ' ' || p[n] == '/' || p[n] == '>')
			return p;
	return NULL;
}

static int fill(const char *blk, const char *end, const char *dev, struct iogap_lv_disk *d,
		char *err, size_t errlen)
{
	const char *src = element(blk, end, "source"), *drv = element(blk, end, "driver");
	const char *addr = element(blk, end, "address"), *ser = element(blk, end, "serial");
	char type[32] = "", v[4096];

	attr(blk, "type", type, sizeof(type));
	d->read_only = element(blk, end, "readonly") != NULL;
	d->shareable = element(blk, end, "shareable") != NULL;
	if (!drv || !attr(drv, "type", d->format, sizeof(d->format)))
		snprintf(d->format, sizeof(d->format), "raw");
	if (ser)
		snprintf(d->serial, sizeof(d->serial), "%.*s", (int)strcspn(ser + 8, "<"), ser + 8);
	if (addr && attr(addr, "type", v, sizeof(v)) && !strcmp(v, "pci")) {
		char dom[16], bus[16], slot[16], fn[16];

		if (attr(addr, "domain", dom, sizeof(dom)) && attr(addr, "bus", bus, sizeof(bus)) &&
		    attr(addr, "slot", slot, sizeof(slot)) && attr(addr, "function", fn, sizeof(fn))) {
			d->pci[0] = (int)strtol(dom, NULL, 0);
			d->pci[1] = (int)strtol(bus, NULL, 0);
			d->pci[2] = (int)strtol(slot, NULL, 0);
			d->pci[3] = (int)strtol(fn, NULL, 0);
			d->has_pci = true;
		}
	}
	if (src && !strcmp(type, "file") && attr(src, "file", v, sizeof(v)))
		snprintf(d->spec, sizeof(d->spec), "file:%s", v);
	else if (src && !strcmp(type, "block") && attr(src, "dev", v, sizeof(v)))
		snprintf(d->spec, sizeof(d->spec), "dev:%s", v);
	else if (src && !strcmp(type, "network") && attr(src, "protocol", v, sizeof(v)) &&
		 !strcmp(v, "rbd") && attr(src, "name", v, sizeof(v)))
		snprintf(d->spec, sizeof(d->spec), "rbd:%s", v);
	else
		return iogap_seterr(err, errlen, "disk %s: a %s disk%s: iogap knows file, block and rbd "
				    "disks", dev, type[0] ? type : "typeless",
				    src ? "" : " without a source (an empty drive?)");
	/* the XML escapes &, <, ' and ": such a path would be read wrong */
	if (strchr(d->spec, '&'))
		return iogap_seterr(err, errlen, "disk %s: its source %s has an XML escape: not "
				    "supported", dev, d->spec);
	return 0;
}

int iogap_lv_disk_from_xml(const char *xml, const char *dev, struct iogap_lv_disk *d, char *err,
			   size_t errlen)
{
	const char *p;
	int rc = 1;

	memset(d, 0, sizeof(*d));
	for (p = xml; rc > 0 && (p = strstr(p, "<disk ")); p++) {
		const char *end = strstr(p, "</disk>"), *t = end ? element(p, end, "target") : NULL;
		char tdev[64];

		if (!end)
			break;
		if (t && attr(t, "dev", tdev, sizeof(tdev)) && !strcmp(tdev, dev))
			rc = fill(p, end, dev, d, err, errlen);
	}
	if (rc > 0)
		iogap_seterr(err, errlen, "disk %s not found in the domain's XML", dev);
	return rc ? -1 : 0;
}

int iogap_lv_disk_info(virDomainPtr dom, const char *dev, struct iogap_lv_disk *d, char *err,
		       size_t errlen)
{
	char *xml = virDomainGetXMLDesc(dom, 0);
	int rc;

	if (!xml)
		return iogap_seterr(err, errlen, "the domain's XML: %s", virGetLastErrorMessage());
	rc = iogap_lv_disk_from_xml(xml, dev, d, err, errlen);
	free(xml);
	return rc;
}
