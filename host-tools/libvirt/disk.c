/* SPDX-License-Identifier: MIT */
/* A disk of a running domain as its live XML describes it: the backend the
 * bare-metal side runs on, and how the guest finds the device. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libvirt/virterror.h>

#include "json_parse.h"
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

/* The numeric attributes names[0..3] of the <address> at addr, when its
 * type is want and it has all four. */
static bool address(const char *addr, const char *want, const char *const names[4], int out[4])
{
	char v[16];

	if (!addr || !attr(addr, "type", v, sizeof(v)) || strcmp(v, want))
		return false;
	for (int i = 0; i < 4; i++) {
		if (!attr(addr, names[i], v, sizeof(v)))
			return false;
		out[i] = (int)strtol(v, NULL, 0);
	}
	return true;
}

static const char *const pci_names[4] = { "domain", "bus", "slot", "function" };
static const char *const drive_names[4] = { "controller", "bus", "target", "unit" };

/* The PCI address of <controller type='type' index='index'> into pci. */
static bool controller_pci(const char *xml, const char *type, int index, int pci[4])
{
	const char *end = xml + strlen(xml);

	for (const char *c = xml; (c = element(c, end, "controller")); c++) {
		const char *gt = strchr(c, '>'), *close = strstr(c, "</controller>");
		char t[32], i[16];

		if (!attr(c, "type", t, sizeof(t)) || strcmp(t, type) ||
		    !attr(c, "index", i, sizeof(i)) || (int)strtol(i, NULL, 0) != index)
			continue;
		/* <controller .../> has no address */
		return gt && gt[-1] != '/' && close &&
		       address(element(gt, close, "address"), "pci", pci_names, pci);
	}
	return false;
}

static int fill(const char *blk, const char *end, const char *dev, struct iogap_lv_disk *d,
		char *err, size_t errlen)
{
	const char *src = element(blk, end, "source"), *drv = element(blk, end, "driver");
	const char *addr = element(blk, end, "address"), *ser = element(blk, end, "serial");
	const char *tgt = element(blk, end, "target");
	char type[32] = "", v[4096];

	attr(blk, "type", type, sizeof(type));
	d->read_only = element(blk, end, "readonly") != NULL;
	d->shareable = element(blk, end, "shareable") != NULL;
	if (!drv || !attr(drv, "type", d->format, sizeof(d->format)))
		snprintf(d->format, sizeof(d->format), "raw");
	if (ser)
		snprintf(d->serial, sizeof(d->serial), "%.*s", (int)strcspn(ser + 8, "<"), ser + 8);
	if (tgt)
		attr(tgt, "bus", d->bus, sizeof(d->bus));
	d->has_pci = address(addr, "pci", pci_names, d->pci);
	d->has_drive = address(addr, "drive", drive_names, d->drive);
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
	/* libvirt names a disk's controller by its bus: scsi, sata, ide */
	if (!rc && d->has_drive)
		d->has_ctrl_pci = controller_pci(xml, d->bus, d->drive[0], d->ctrl_pci);
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

/* ---- the disk in the guest ---------------------------------------------------- */

static bool pci_is(const struct jp_value *a, const int want[4])
{
	for (int i = 0; i < 4; i++)
		if (jp_u64(jp_get(a, pci_names[i]), UINT64_MAX) != (uint64_t)want[i])
			return false;
	return true;
}

static bool coord_is(const struct jp_value *a, const char *key, int want)
{
	return jp_u64(jp_get(a, key), UINT64_MAX) == (uint64_t)want;
}

/* qemu-ga's address of a disk behind a controller: virtio-scsi gives
 * channel/target/LUN as bus/target/unit (libvirt's drive address alike),
 * ata_piix the IDE bus and unit, ahci the port as unit. */
static bool drive_is(const struct jp_value *a, const struct iogap_lv_disk *d)
{
	const char *type = jp_str(jp_get(a, "bus-type"));
	bool scsi = type && !strcmp(type, "scsi"), ide = type && !strcmp(type, "ide");
	bool sata = type && !strcmp(type, "sata");

	if (!d->has_drive || !d->has_ctrl_pci || !(scsi || ide || sata) ||
	    !pci_is(jp_get(a, "pci-controller"), d->ctrl_pci))
		return false;
	return coord_is(a, "unit", d->drive[3]) && (sata || coord_is(a, "bus", d->drive[1])) &&
	       (!scsi || coord_is(a, "target", d->drive[2]));
}

/* qemu-ga's serial is udev's ID_SERIAL when the guest has udev: for
 * QEMU's SCSI and ATA disks and NVMe controllers the vendor and model come
 * first ("0QEMU_QEMU_HARDDISK_<serial>"), virtio-blk's is the serial. */
static bool serial_is(const char *ser, const char *want)
{
	static const char *const prefix[] = { "", "0QEMU_QEMU_HARDDISK_", "QEMU_HARDDISK_",
					      "QEMU_NVMe_Ctrl_" };

	for (size_t i = 0; ser && want[0] && i < sizeof(prefix) / sizeof(prefix[0]); i++) {
		size_t n = strlen(prefix[i]);

		if (!strncmp(ser, prefix[i], n) && !strcmp(ser + n, want))
			return true;
	}
	return false;
}

size_t iogap_lv_guest_disk(const struct jp_value *disks, const struct iogap_lv_disk *d,
			   char *out, size_t outlen)
{
	size_t found = 0, used = 0;

	out[0] = '\0';
	for (size_t i = 0; disks->type == JP_ARRAY && i < disks->n; i++) {
		const struct jp_value *g = &disks->items[i], *a = jp_get(g, "address");
		const char *name = jp_str(jp_get(g, "name"));
		bool part = jp_get(g, "partition") && jp_get(g, "partition")->b;

		if (!name || part || !a)
			continue;
		if (!(d->has_pci && pci_is(jp_get(a, "pci-controller"), d->pci)) && !drive_is(a, d) &&
		    !serial_is(jp_str(jp_get(a, "serial")), d->serial))
			continue;
		found++;
		if (used < outlen)
			used += (size_t)snprintf(out + used, outlen - used, "%s%s", used ? " " : "", name);
	}
	return found;
}
