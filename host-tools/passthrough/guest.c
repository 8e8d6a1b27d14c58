/* SPDX-License-Identifier: MIT */
/*
 * `iogap passthrough check --guest`: the storage device as the guest sees
 * it — its PCI IDs (QEMU's emulated ones or a real device's), its NVMe
 * queues and their interrupt vectors, the I/O scheduler and polling.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt.h"

struct pci_ids {
	unsigned vendor, device, sub_vendor, sub_device, cls;
};

static bool read_id(struct pt *p, const char *bdf, const char *file, unsigned *v)
{
	char path[192], line[32], *end;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/%s", bdf, file);
	if (!pt_read_line(p, path, line, sizeof(line)))
		return false;
	*v = (unsigned)strtoul(line, &end, 16);
	return *end == '\0';
}

static bool read_ids(struct pt *p, const char *bdf, struct pci_ids *id)
{
	memset(id, 0, sizeof(*id));
	read_id(p, bdf, "subsystem_vendor", &id->sub_vendor);
	read_id(p, bdf, "subsystem_device", &id->sub_device);
	return read_id(p, bdf, "vendor", &id->vendor) && read_id(p, bdf, "device", &id->device) &&
	       read_id(p, bdf, "class", &id->cls);
}

/* What QEMU emulates says so in its IDs: its NVMe is 1b36:0010, virtio is
 * vendor 1af4, and QEMU gives the devices it models subsystem 1af4:1100;
 * an assigned device keeps its maker's IDs. */
static void check_ids(struct pt *p, const char *bdf, const struct pci_ids *id)
{
	const char *kind = NULL;

	if (id->vendor == 0x1b36 && id->device == 0x0010)
		kind = "emulated device (QEMU NVMe)";
	else if (id->vendor == 0x1af4)
		kind = "paravirtual device (virtio)";
	else if (id->sub_vendor == 0x1af4 && id->sub_device == 0x1100)
		kind = "emulated device (QEMU's subsystem ID 1af4:1100)";
	if (kind) {
		pt_finding(p, PT_WARNING, "not-passthrough",
			   "QEMU emulates this device: every request goes through QEMU's device "
			   "model and block layer, so it measures emulation, not passthrough",
			   "assign the device with vfio-pci (-device vfio-pci,host=BDF or libvirt "
			   "<hostdev>) and check again; on the host run iogap passthrough check",
			   "%s [%04x:%04x] subsystem %04x:%04x: %s, not passthrough", bdf,
			   id->vendor, id->device, id->sub_vendor, id->sub_device, kind);
		return;
	}
	pt_finding(p, PT_INFO, "device", "a device with its maker's IDs is an assigned one (or "
		   "an emulation of a real model)", "nothing",
		   "%s [%04x:%04x] subsystem %04x:%04x class 0x%06x: a real device's IDs", bdf,
		   id->vendor, id->device, id->sub_vendor, id->sub_device, id->cls);
}

/* Interrupt vectors of controller ctrl ("nvme0"): /proc/interrupts lines
 * whose name is CTRLqN (q0 the admin queue); their interrupts into *count. */
static int nvme_vectors(struct pt *p, const char *ctrl, unsigned long long *count)
{
	char *text = pt_read(p, "/proc/interrupts"), *line, *save = NULL;
	int n = 0;
	size_t len = strlen(ctrl);

	*count = 0;
	if (!text)
		return -1;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *name = strrchr(line, ' '), *s;
		unsigned q;

		if (!name || !strchr(line, ':') || strncmp(name + 1, ctrl, len) ||
		    sscanf(name + 1 + len, "q%u", &q) != 1)
			continue;
		n++;
		/* "IRQ: count count … CHIP …": the counts end at the chip's name */
		for (s = strchr(line, ':') + 1;;) {
			char *end;
			unsigned long long v = strtoull(s, &end, 10);

			if (end == s)
				break;
			*count += v;
			s = end;
		}
	}
	free(text);
	return n;
}

/* The scheduler in use: the bracketed one of "none [mq-deadline] kyber". */
static bool scheduler(struct pt *p, const char *ns, char *out, size_t n)
{
	char path[128], line[256], *a, *b;

	snprintf(path, sizeof(path), "/sys/block/%s/queue/scheduler", ns);
	if (!pt_read_line(p, path, line, sizeof(line)))
		return false;
	a = strchr(line, '[');
	b = a ? strchr(a, ']') : NULL;
	if (!a || !b) {
		snprintf(out, n, "%.63s", line);   /* one scheduler only: "none" */
		return !strchr(line, ' ');
	}
	snprintf(out, n, "%.*s", (int)(b - a - 1), a + 1);
	return true;
}

static void check_namespace(struct pt *p, const char *ctrl, const char *ns, int vectors,
			    unsigned long long irqs, const char *cpus)
{
	char path[128], sched[64], poll[16] = "?", delay[16] = "?", pq[16] = "?";
	size_t nq = 0, nn;
	char **mq;

	snprintf(path, sizeof(path), "/sys/block/%s/mq", ns);
	if (!(mq = pt_list(p, path, &nn))) {
		pt_unreadable(p, path, "cannot list the namespace's hardware queues");
		return;
	}
	for (size_t i = 0; i < nn; i++)
		nq += strspn(mq[i], "0123456789") == strlen(mq[i]);
	pt_names_free(mq, nn);
	snprintf(path, sizeof(path), "/sys/block/%s/queue/io_poll", ns);
	pt_read_line(p, path, poll, sizeof(poll));
	snprintf(path, sizeof(path), "/sys/block/%s/queue/io_poll_delay", ns);
	pt_read_line(p, path, delay, sizeof(delay));
	pt_read_line(p, "/sys/module/nvme/parameters/poll_queues", pq, sizeof(pq));
	pt_finding(p, PT_INFO, "nvme-queues",
		   "each hardware queue has its own interrupt vector; fewer queues than CPUs "
		   "means CPUs share a queue and take completions for each other",
		   "compare with the host (iogap passthrough check: msix); polling needs "
		   "nvme.poll_queues > 0 and an engine asking for it (io_uring hipri)",
		   "%s (%s): %zu hardware queues, %d interrupt vectors (%sq*, admin included, %llu "
		   "interrupts), CPUs online %s; io_poll=%s io_poll_delay=%s nvme.poll_queues=%s",
		   ns, ctrl, nq, vectors, ctrl, irqs, cpus, poll, delay, pq);
	if (!scheduler(p, ns, sched, sizeof(sched))) {
		snprintf(path, sizeof(path), "/sys/block/%s/queue/scheduler", ns);
		pt_unreadable(p, path, "no scheduler list");
		return;
	}
	pt_finding(p, strcmp(sched, "none") ? PT_WARNING : PT_INFO, "io-scheduler",
		   "an I/O scheduler adds per-request work and may hold requests back; NVMe "
		   "hosts run without one (none) by default",
		   "use the same scheduler as on bare metal; for NVMe: echo none > "
		   "/sys/block/NS/queue/scheduler", "%s: scheduler %s", ns, sched);
}

static void check_nvme(struct pt *p, const char *bdf)
{
	char path[128], cpus[256] = "?";
	size_t nc, nb;
	char **ctrls, **blocks;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/nvme", bdf);
	if (!(ctrls = pt_list(p, path, &nc)) || !nc) {
		pt_names_free(ctrls, nc);
		pt_unreadable(p, path, "no NVMe controller (is the nvme driver bound?)");
		return;
	}
	pt_read_line(p, "/sys/devices/system/cpu/online", cpus, sizeof(cpus));
	blocks = pt_list(p, "/sys/block", &nb);
	for (size_t c = 0; c < nc; c++) {
		unsigned long long irqs;
		int vectors = nvme_vectors(p, ctrls[c], &irqs);
		size_t len = strlen(ctrls[c]), found = 0;

		if (vectors < 0)
			pt_unreadable(p, "/proc/interrupts", "unreadable");
		for (size_t b = 0; b < nb; b++) {
			unsigned nsid;
			char tail;

			if (strncmp(blocks[b], ctrls[c], len) ||
			    sscanf(blocks[b] + len, "n%u%c", &nsid, &tail) != 1)
				continue;
			check_namespace(p, ctrls[c], blocks[b], vectors, irqs, cpus);
			found++;
		}
		if (!found)
			pt_unreadable(p, "/sys/block", "no namespace block device of the controller");
	}
	pt_names_free(blocks, nb);
	pt_names_free(ctrls, nc);
}

/* Storage the check looks at without --device: NVMe controllers and
 * virtio storage. */
static bool is_storage(const struct pci_ids *id)
{
	return (id->cls >> 8) == 0x0108 || (id->vendor == 0x1af4 && (id->cls >> 16) == 0x01);
}

int pt_check_guest(struct pt *p, const char *device)
{
	char bdf[PT_BDF_LEN];
	size_t nn, checked = 0;
	char **names;
	struct pci_ids id;

	if (device && !pt_parse_bdf(device, bdf)) {
		fprintf(stderr, "iogap passthrough: --device '%s': not a PCI address "
			"(DDDD:BB:DD.F)\n", device);
		return -1;
	}
	if (!(names = pt_list(p, "/sys/bus/pci/devices", &nn))) {
		fprintf(stderr, "iogap passthrough: %s/sys/bus/pci/devices: cannot list the PCI "
			"devices\n", p->root);
		return -1;
	}
	for (size_t i = 0; i < nn; i++) {
		if (device ? strcmp(names[i], bdf) : !read_ids(p, names[i], &id) || !is_storage(&id))
			continue;
		if (!read_ids(p, names[i], &id)) {
			char path[128];

			snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s", names[i]);
			pt_unreadable(p, path, "its vendor, device or class is not a hexadecimal ID");
			continue;
		}
		check_ids(p, names[i], &id);
		if ((id.cls >> 8) == 0x0108)
			check_nvme(p, names[i]);
		checked++;
	}
	pt_names_free(names, nn);
	if (!checked)
		pt_finding(p, PT_ERROR, "no-device", "there is nothing to check without the device",
			   "give the guest's PCI address of the disk (--device, lspci -D in the guest)",
			   "%s", device ? "no such PCI device" : "no NVMe or virtio storage device "
			   "in /sys/bus/pci/devices");
	return 0;
}
