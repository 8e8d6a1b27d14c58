/* SPDX-License-Identifier: MIT */
/*
 * The preload edit of a domain definition (host-tools/libvirt/domxml.c)
 * on libvirt-formatted XML: enable adds exactly two entries (block and
 * namespace when missing), disable gives the input back byte for byte,
 * another preload is refused and kept, paths are escaped.  And a disk of
 * the live XML (disk.c): its backend as iogap's target, format, read-only,
 * shareable, serial, PCI address, controller and drive address; and which
 * of qemu-ga's guest-get-disks entries (as qemu-ga 7.2 answers) it is.
 */
#include <stdlib.h>
#include <string.h>

#include "../tap.h"
#include "json_parse.h"
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

/* A pc domain: virtio-scsi controller 0 at 00:02.0 with sda (0/0/0) and sdb
 * (0/0/1), a virtio-blk vdb at 00:05.0, the piix IDE controller at 00:01.1
 * with hdc (bus 1, unit 0), a SATA controller 0 at 00:1f.2 with sdc (port
 * 2), a scsi disk on a controller the XML lacks. */
static const char buses[] =
	"<domain type='qemu' id='4'>\n"
	"  <devices>\n"
	"    <disk type='file' device='disk'>\n"
	"      <source file='/img/a.img' index='4'/>\n"
	"      <target dev='sda' bus='scsi'/>\n"
	"      <serial>vol-a</serial>\n"
	"      <address type='drive' controller='0' bus='0' target='0' unit='0'/>\n"
	"    </disk>\n"
	"    <disk type='file' device='disk'>\n"
	"      <source file='/img/b.img' index='3'/>\n"
	"      <target dev='sdb' bus='scsi'/>\n"
	"      <address type='drive' controller='0' bus='0' target='0' unit='1'/>\n"
	"    </disk>\n"
	"    <disk type='file' device='disk'>\n"
	"      <source file='/img/v.img' index='2'/>\n"
	"      <target dev='vdb' bus='virtio'/>\n"
	"      <address type='pci' domain='0x0000' bus='0x00' slot='0x05' function='0x0'/>\n"
	"    </disk>\n"
	"    <disk type='file' device='disk'>\n"
	"      <source file='/img/h.img' index='1'/>\n"
	"      <target dev='hdc' bus='ide'/>\n"
	"      <address type='drive' controller='0' bus='1' target='0' unit='0'/>\n"
	"    </disk>\n"
	"    <disk type='file' device='disk'>\n"
	"      <source file='/img/s.img' index='5'/>\n"
	"      <target dev='sdc' bus='sata'/>\n"
	"      <address type='drive' controller='0' bus='0' target='0' unit='2'/>\n"
	"    </disk>\n"
	"    <disk type='file' device='disk'>\n"
	"      <source file='/img/x.img' index='6'/>\n"
	"      <target dev='sdx' bus='scsi'/>\n"
	"      <address type='drive' controller='3' bus='0' target='0' unit='0'/>\n"
	"    </disk>\n"
	"    <controller type='usb' index='0' model='piix3-uhci'>\n"
	"      <address type='pci' domain='0x0000' bus='0x00' slot='0x01' function='0x2'/>\n"
	"    </controller>\n"
	"    <controller type='scsi' index='0' model='virtio-scsi'>\n"
	"      <alias name='scsi0'/>\n"
	"      <address type='pci' domain='0x0000' bus='0x00' slot='0x02' function='0x0'/>\n"
	"    </controller>\n"
	"    <controller type='pci' index='0' model='pci-root'/>\n"
	"    <controller type='ide' index='0'>\n"
	"      <address type='pci' domain='0x0000' bus='0x00' slot='0x01' function='0x1'/>\n"
	"    </controller>\n"
	"    <controller type='sata' index='0'>\n"
	"      <address type='pci' domain='0x0000' bus='0x00' slot='0x1f' function='0x2'/>\n"
	"    </controller>\n"
	"  </devices>\n"
	"</domain>\n";

#define PCI(s, f) "\"pci-controller\":{\"bus\":0,\"slot\":" #s ",\"domain\":0,\"function\":" #f "}"
#define BTU(b, t, u) "\"bus\":" #b ",\"target\":" #t ",\"unit\":" #u

/* guest-get-disks of that guest with udev (serials as ID_SERIAL): sda/sdb
 * on the virtio-scsi controller, a partition of sda, vda (the virtio-blk
 * disk), sdd (IDE), sde (SATA port 2). */
static const char ga_disks[] = "[{\"name\":\"/dev/sda1\",\"partition\":true,"
	"\"dependencies\":[\"/dev/sda\"],\"address\":{" PCI(2, 0) ",\"bus-type\":\"scsi\","
	BTU(0, 0, 0) ",\"dev\":\"/dev/sda1\"}},"
	"{\"name\":\"/dev/sda\",\"partition\":false,\"address\":{\"serial\":"
	"\"0QEMU_QEMU_HARDDISK_vol-a\"," PCI(2, 0) ",\"bus-type\":\"scsi\"," BTU(0, 0, 0) ","
	"\"dev\":\"/dev/sda\"}},"
	"{\"name\":\"/dev/sdb\",\"partition\":false,\"address\":{" PCI(2, 0) ","
	"\"bus-type\":\"scsi\"," BTU(0, 0, 1) ",\"dev\":\"/dev/sdb\"}},"
	"{\"name\":\"/dev/vda\",\"partition\":false,\"address\":{\"serial\":\"iogap0\","
	PCI(5, 0) ",\"bus-type\":\"virtio\"," BTU(0, 0, 0) ",\"dev\":\"/dev/vda\"}},"
	"{\"name\":\"/dev/sdd\",\"partition\":false,\"address\":{" PCI(1, 1) ","
	"\"bus-type\":\"ide\"," BTU(1, 0, 0) ",\"dev\":\"/dev/sdd\"}},"
	"{\"name\":\"/dev/sde\",\"partition\":false,\"address\":{" PCI(31, 2) ","
	"\"bus-type\":\"sata\"," BTU(0, 0, 2) ",\"dev\":\"/dev/sde\"}}]";

/* The guest device of dev in buses[] against the disks (in out, or the
 * error); how many matched. */
static size_t guest_of(const struct jp_value *disks, const char *dev, char *out, size_t outlen)
{
	struct iogap_lv_disk d;

	if (iogap_lv_disk_from_xml(buses, dev, &d, out, outlen))
		return SIZE_MAX;
	return iogap_lv_guest_disk(disks, &d, out, outlen);
}

static void controllers(void)
{
	struct iogap_lv_disk d;
	char err[1024] = "";

	ok(!iogap_lv_disk_from_xml(buses, "sda", &d, err, sizeof(err)) && !d.has_pci &&
	   !strcmp(d.bus, "scsi") && d.has_drive && d.drive[0] == 0 && d.drive[3] == 0 &&
	   d.has_ctrl_pci && d.ctrl_pci[2] == 2 && d.ctrl_pci[3] == 0,
	   "a virtio-scsi disk: its drive address and its controller's PCI address %s", err);
	ok(!iogap_lv_disk_from_xml(buses, "hdc", &d, err, sizeof(err)) && d.drive[1] == 1 &&
	   d.has_ctrl_pci && d.ctrl_pci[2] == 1 && d.ctrl_pci[3] == 1,
	   "an IDE disk: the ide controller's PCI address, not the usb one's");
	ok(!iogap_lv_disk_from_xml(buses, "sdx", &d, err, sizeof(err)) && d.has_drive &&
	   !d.has_ctrl_pci, "a controller the XML lacks: no controller address");
}

static void guest_disks(const struct jp_value *disks)
{
	static const struct { const char *dev, *want; } cases[] = {
		{ "sda", "/dev/sda" }, { "sdb", "/dev/sdb" }, { "vdb", "/dev/vda" },
		{ "hdc", "/dev/sdd" }, { "sdc", "/dev/sde" },
	};
	char out[256];
	size_t n;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		n = guest_of(disks, cases[i].dev, out, sizeof(out));
		ok(n == 1 && !strcmp(out, cases[i].want), "%s is %s in the guest: %zu match, %s",
		   cases[i].dev, cases[i].want, n, out);
	}
	n = guest_of(disks, "sdx", out, sizeof(out));
	ok(n == 0, "a disk on a controller the XML lacks matches nothing: %zu", n);
}

/* Without the controller's address (another XML), sda still matches by
 * udev's form of its serial; a serial that is only a suffix does not. */
static void serials(const struct jp_value *disks)
{
	struct iogap_lv_disk d = { .bus = "scsi" };
	char out[256];

	snprintf(d.serial, sizeof(d.serial), "vol-a");
	ok(iogap_lv_guest_disk(disks, &d, out, sizeof(out)) == 1 && !strcmp(out, "/dev/sda"),
	   "serial vol-a is udev's 0QEMU_QEMU_HARDDISK_vol-a: %s", out);
	snprintf(d.serial, sizeof(d.serial), "a");
	ok(iogap_lv_guest_disk(disks, &d, out, sizeof(out)) == 0, "serial a matches nothing: %s",
	   out);
	/* the controller's address without a drive address: every disk on it */
	d.has_pci = true;
	memcpy(d.pci, (int[4]){ 0, 0, 2, 0 }, sizeof(d.pci));
	ok(iogap_lv_guest_disk(disks, &d, out, sizeof(out)) == 2 && !strcmp(out, "/dev/sda /dev/sdb"),
	   "two disks at one PCI address are both named: %s", out);
}

int main(void)
{
	struct jp_value ga;
	char err[256] = "";

	tap_plan(29);
	round_trip("no qemu namespace", plain);
	round_trip("existing qemu:commandline", with_args);
	already_enabled();
	foreign_preload();
	escaping();
	not_a_domain();
	disks();
	controllers();
	if (ok(!jp_parse(ga_disks, strlen(ga_disks), false, &ga, NULL, err, sizeof(err)),
	       "the recorded guest-get-disks parses %s", err)) {
		guest_disks(&ga);
		serials(&ga);
		jp_free(&ga);
	}
	return tap_done();
}
