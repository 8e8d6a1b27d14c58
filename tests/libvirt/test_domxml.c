/* SPDX-License-Identifier: MIT */
/*
 * The preload edit of a domain definition (host-tools/libvirt/domxml.c)
 * on libvirt-formatted XML: enable adds exactly two entries (block and
 * namespace when missing), disable gives the input back byte for byte,
 * another preload is refused and kept, paths are escaped.  And a disk of
 * the live XML (disk.c): its backend as iogap's target, format, read-only,
 * shareable, serial, PCI address.
 */
#include <stdlib.h>
#include <string.h>

#include "../tap.h"
#include "lv.h"

#define SO "/opt/iogap/lib/iogap-filter.so"

static const char plain[] =
	"<domain type='qemu'>\n"
	"  <name>d</name>\n"
	"  <devices>\n"
	"    <emulator>/usr/bin/qemu-system-x86_64</emulator>\n"
	"  </devices>\n"
	"</domain>\n";

static const char with_args[] =
	"<domain type='kvm' xmlns:qemu='http://libvirt.org/schemas/domain/qemu/1.0'>\n"
	"  <name>d</name>\n"
	"  <qemu:commandline>\n"
	"    <qemu:arg value='-trace'/>\n"
	"    <qemu:arg value='virtio_blk*'/>\n"
	"  </qemu:commandline>\n"
	"</domain>\n";

static const char other_preload[] =
	"<domain type='kvm' xmlns:qemu='http://libvirt.org/schemas/domain/qemu/1.0'>\n"
	"  <qemu:commandline>\n"
	"    <qemu:env name='LD_PRELOAD' value='/usr/lib/libjemalloc.so.2'/>\n"
	"  </qemu:commandline>\n"
	"</domain>\n";

/* enable then disable: the input back, byte for byte. */
static void round_trip(const char *what, const char *xml)
{
	char err[1024], *on = NULL, *off = NULL;
	int rc1 = iogap_domxml_enable(xml, SO, &on, err, sizeof(err));
	int rc2 = on ? iogap_domxml_disable(on, &off, err, sizeof(err)) : -1;

	ok(rc1 == 0 && strstr(on, "<qemu:env name='LD_PRELOAD' value='" SO "'/>") &&
	   strstr(on, "<qemu:env name='IOGAP_FILTER_ALIAS' value='compress'/>") &&
	   strstr(on, "xmlns:qemu='http://libvirt.org/schemas/domain/qemu/1.0'>"),
	   "%s: enable adds both entries and the namespace", what);
	ok(rc2 == 0 && off && !strcmp(off, xml), "%s: disable gives the input back byte for byte",
	   what);
	free(on);
	free(off);
}

static void already_enabled(void)
{
	char err[1024], *on = NULL, *again = NULL, *moved = NULL;

	iogap_domxml_enable(plain, SO, &on, err, sizeof(err));
	ok(on && iogap_domxml_enable(on, SO, &again, err, sizeof(err)) == 1 && !again,
	   "enable twice: the second is a no-op");
	ok(on && iogap_domxml_enable(on, "/new/iogap-filter.so", &moved, err, sizeof(err)) == 0 &&
	   strstr(moved, "value='/new/iogap-filter.so'") && !strstr(moved, SO) &&
	   strstr(strstr(moved, "IOGAP_FILTER_ALIAS") + 1, "IOGAP_FILTER_ALIAS") == NULL,
	   "enable with another path to iogap-filter.so replaces the entry, no duplicate");
	free(on);
	free(again);
	free(moved);
}

/* One filter per QEMU build: iogap-filter-qemu-10.0.2.so is iogap's too. */
static void versioned_filter(void)
{
	char err[1024], *on = NULL, *moved = NULL, *off = NULL;

	iogap_domxml_enable(plain, "/lib/iogap/iogap-filter-qemu-10.0.2.so", &on, err, sizeof(err));
	ok(on && iogap_domxml_enable(on, SO, &moved, err, sizeof(err)) == 0 &&
	   strstr(moved, "value='" SO "'") && !strstr(moved, "iogap-filter-qemu-10.0.2.so"),
	   "a filter of another QEMU build in the definition is replaced, not refused");
	ok(on && iogap_domxml_disable(on, &off, err, sizeof(err)) == 0 && off && !strcmp(off, plain),
	   "disable removes an iogap-filter-qemu-VERSION.so preload");
	free(on);
	free(moved);
	free(off);
}

static void foreign_preload(void)
{
	char err[1024] = "", *out = NULL;

	ok(iogap_domxml_enable(other_preload, SO, &out, err, sizeof(err)) == -1 && !out &&
	   strstr(err, "/usr/lib/libjemalloc.so.2"),
	   "another LD_PRELOAD is refused, naming it: %s", err);
	ok(iogap_domxml_disable(other_preload, &out, err, sizeof(err)) == 1 && !out,
	   "disable leaves another LD_PRELOAD alone");
}

static void escaping(void)
{
	char err[1024], *on = NULL;

	ok(iogap_domxml_enable(plain, "/a'b&c/iogap-filter.so", &on, err, sizeof(err)) == 0 &&
	   strstr(on, "value='/a&apos;b&amp;c/iogap-filter.so'/>"),
	   "quote and ampersand in the path are escaped");
	free(on);
}

static void not_a_domain(void)
{
	char err[1024] = "", *out = NULL;

	ok(iogap_domxml_enable("<network/>", SO, &out, err, sizeof(err)) == -1 && !out && err[0],
	   "XML without <domain> is refused: %s", err);
	ok(iogap_domxml_disable(plain, &out, err, sizeof(err)) == 1 && !out,
	   "disable on a domain without the preload: nothing to do");
}

/* A live XML with a file, a block, an rbd and a network (nbd) disk. */
static const char live[] =
	"<domain type='qemu' id='3'>\n"
	"  <devices>\n"
	"    <disk type='file' device='disk'>\n"
	"      <driver name='qemu' type='qcow2' cache='none'/>\n"
	"      <source file='/var/lib/libvirt/images/root.qcow2' index='3'/>\n"
	"      <target dev='vda' bus='virtio'/>\n"
	"      <alias name='virtio-disk0'/>\n"
	"      <address type='pci' domain='0x0000' bus='0x00' slot='0x04' function='0x0'/>\n"
	"    </disk>\n"
	"    <disk type='block' device='disk'>\n"
	"      <driver name='qemu' type='raw'/>\n"
	"      <source dev='/dev/sdz' index='2'/>\n"
	"      <target dev='vdb' bus='virtio'/>\n"
	"      <readonly/>\n"
	"      <shareable/>\n"
	"      <serial>data-1</serial>\n"
	"      <address type='pci' domain='0x0000' bus='0x01' slot='0x1f' function='0x2'/>\n"
	"    </disk>\n"
	"    <disk type='network' device='disk'>\n"
	"      <driver name='qemu' type='raw'/>\n"
	"      <source protocol='rbd' name='volumes/volume-1' index='1'>\n"
	"        <host name='10.0.0.1' port='6789'/>\n"
	"      </source>\n"
	"      <target dev='vdc' bus='virtio'/>\n"
	"    </disk>\n"
	"    <disk type='network' device='disk'>\n"
	"      <source protocol='nbd' name='x'/>\n"
	"      <target dev='vdd' bus='virtio'/>\n"
	"    </disk>\n"
	"  </devices>\n"
	"</domain>\n";

static void disks(void)
{
	struct iogap_lv_disk d;
	char err[1024] = "";

	ok(!iogap_lv_disk_from_xml(live, "vda", &d, err, sizeof(err)) &&
	   !strcmp(d.spec, "file:/var/lib/libvirt/images/root.qcow2") && !strcmp(d.format, "qcow2") &&
	   !d.read_only && !d.shareable && !d.serial[0] && d.has_pci && d.pci[0] == 0 &&
	   d.pci[1] == 0 && d.pci[2] == 4 && d.pci[3] == 0, "a file disk: %s %s", d.spec, err);
	ok(!iogap_lv_disk_from_xml(live, "vdb", &d, err, sizeof(err)) &&
	   !strcmp(d.spec, "dev:/dev/sdz") && !strcmp(d.format, "raw") && d.read_only &&
	   d.shareable && !strcmp(d.serial, "data-1") && d.has_pci && d.pci[1] == 1 &&
	   d.pci[2] == 31 && d.pci[3] == 2, "a block disk, read-only, shareable, serial: %s", d.spec);
	ok(!iogap_lv_disk_from_xml(live, "vdc", &d, err, sizeof(err)) &&
	   !strcmp(d.spec, "rbd:volumes/volume-1") && !d.has_pci, "an rbd disk: %s", d.spec);
	ok(iogap_lv_disk_from_xml(live, "vdd", &d, err, sizeof(err)) == -1 && strstr(err, "vdd"),
	   "an nbd disk is refused: %s", err);
	ok(iogap_lv_disk_from_xml(live, "vde", &d, err, sizeof(err)) == -1 &&
	   strstr(err, "not found"), "a disk the XML lacks: %s", err);
}

int main(void)
{
	tap_plan(18);
	round_trip("no qemu namespace", plain);
	round_trip("existing qemu:commandline", with_args);
	already_enabled();
	versioned_filter();
	foreign_preload();
	escaping();
	not_a_domain();
	disks();
	return tap_done();
}
