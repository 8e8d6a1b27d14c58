/* SPDX-License-Identifier: MIT */
/*
 * `iogap passthrough check` on the host: one finding per check and device
 * (INFO when the setup is right), read from sysfs and procfs only
 * (docs/passthrough.md has what each check reads and why).
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt.h"

struct qemu {
	long pid;               /* 0: no QEMU process given */
	char what[64];          /* "QEMU pid 4242" for messages */
};

/* ---- which QEMU, which devices ---------------------------------------- */

static int resolve_pid(struct pt *p, const struct pt_host_opts *o, struct qemu *q)
{
	char path[512], line[64], *end;

	q->pid = o->qemu_pid;
	if (o->domain) {
		snprintf(path, sizeof(path), "/run/libvirt/qemu/%s.pid", o->domain);
		if (strchr(o->domain, '/') || !pt_read_line(p, path, line, sizeof(line))) {
			pt_path(p, path, sizeof(path), "/run/libvirt/qemu/%s.pid", o->domain);
			fprintf(stderr, "iogap passthrough: domain '%s': no pid file %s (is it "
				"running under libvirt's system instance?)\n", o->domain, path);
			return -1;
		}
		q->pid = strtol(line, &end, 10);
		if (q->pid <= 0 || *end) {
			fprintf(stderr, "iogap passthrough: %s: not a pid: '%s'\n", path, line);
			return -1;
		}
	}
	if (!q->pid)
		return 0;
	snprintf(q->what, sizeof(q->what), "QEMU pid %ld", q->pid);
	snprintf(path, sizeof(path), "/proc/%ld/status", q->pid);
	if (!pt_read_line(p, path, line, sizeof(line))) {
		pt_path(p, path, sizeof(path), "/proc/%ld", q->pid);
		fprintf(stderr, "iogap passthrough: %s: no such process (%s)\n", q->what, path);
		return -1;
	}
	return 0;
}

/* The devices QEMU was given: `-device vfio-pci,host=BDF` or libvirt's
 * JSON form `{"driver":"vfio-pci","host":"BDF",...}`. */
static size_t qemu_devices(struct pt *p, const struct qemu *q, char (*out)[PT_BDF_LEN],
			   size_t max)
{
	char path[64], *cmd, *s;
	size_t n = 0, len;

	snprintf(path, sizeof(path), "/proc/%ld/cmdline", q->pid);
	if (!(cmd = pt_read_len(p, path, &len)))
		return 0;
	/* NUL-separated: argument by argument (the file ends with a NUL) */
	for (s = cmd; s < cmd + len; s += strlen(s) + 1) {
		const char *h = strstr(s, "host=");
		size_t skip = 5;

		if (!strstr(s, "vfio-pci"))
			continue;
		if (!h && (h = strstr(s, "\"host\":\"")))
			skip = 8;
		if (h && n < max && pt_parse_bdf(h + skip, out[n]))
			n++;
	}
	free(cmd);
	return n;
}

static size_t vfio_bound_devices(struct pt *p, char (*out)[PT_BDF_LEN], size_t max)
{
	size_t nn, n = 0;
	char **names = pt_list(p, "/sys/bus/pci/drivers/vfio-pci", &nn);

	for (size_t i = 0; i < nn && n < max; i++)
		if (strchr(names[i], ':') && pt_parse_bdf(names[i], out[n]))
			n++;
	pt_names_free(names, nn);
	return n;
}

/* ---- per device --------------------------------------------------------- */

static void check_driver(struct pt *p, const char *bdf)
{
	char path[128], drv[128];

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/driver", bdf);
	if (!pt_link_name(p, path, drv, sizeof(drv)))
		snprintf(drv, sizeof(drv), "no driver");
	if (!strcmp(drv, "vfio-pci"))
		return;
	pt_finding(p, PT_ERROR, "not-vfio",
		   "only a device bound to vfio-pci can be assigned to a guest; bound to a host "
		   "driver the host uses it (and QEMU cannot open it)",
		   "unbind it and bind it to vfio-pci (driverctl set-override BDF vfio-pci, or "
		   "libvirt <hostdev managed='yes'>)",
		   "%s is bound to %s, not vfio-pci", bdf, drv);
}

static bool is_bridge(struct pt *p, const char *bdf)
{
	char path[128], cls[32];

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/class", bdf);
	return pt_read_line(p, path, cls, sizeof(cls)) && !strncmp(cls, "0x0604", 6);
}

/* "0000:01:00.1 [8086:1521] driver igb" */
static void describe(struct pt *p, const char *bdf, char *out, size_t n)
{
	char path[128], ven[16] = "?", dev[16] = "?", drv[64] = "none";

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/vendor", bdf);
	pt_read_line(p, path, ven, sizeof(ven));
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/device", bdf);
	pt_read_line(p, path, dev, sizeof(dev));
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/driver", bdf);
	pt_link_name(p, path, drv, sizeof(drv));
	snprintf(out, n, "%s [%s:%s] driver %s", bdf, ven + (ven[1] == 'x' ? 2 : 0),
		 dev + (dev[1] == 'x' ? 2 : 0), drv);
}

/* The device's IOMMU group number into group; false when it has none. */
static bool check_group(struct pt *p, const char *bdf, char *group, size_t gn)
{
	char path[256], others[2048] = "";
	size_t nn, o = 0, shared = 0;
	char **names;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/iommu_group", bdf);
	if (!pt_link_name(p, path, group, gn)) {
		pt_finding(p, PT_ERROR, "no-iommu-group",
			   "without an IOMMU group the device cannot be assigned: VFIO isolates "
			   "devices by group, and a device has one only with the IOMMU on",
			   "enable VT-d/AMD-Vi in the firmware and the IOMMU on the kernel command "
			   "line (intel_iommu=on; AMD: on by default)",
			   "%s has no iommu_group link", bdf);
		return false;
	}
	snprintf(path, sizeof(path), "/sys/kernel/iommu_groups/%s/devices", group);
	if (!(names = pt_list(p, path, &nn))) {
		pt_unreadable(p, path, "cannot list the group's devices");
		return true;
	}
	for (size_t i = 0; i < nn; i++) {
		char d[256];

		if (!strcmp(names[i], bdf) || is_bridge(p, names[i]))
			continue;
		describe(p, names[i], d, sizeof(d));
		if (o < sizeof(others))
			o += (size_t)snprintf(others + o, sizeof(others) - o, "%s%s", o ? ", " : "", d);
		shared++;
	}
	pt_names_free(names, nn);
	if (shared)
		pt_finding(p, PT_WARNING, "iommu-group-shared",
			   "the IOMMU cannot isolate devices of one group from each other (no ACS "
			   "between them): every one of them must be bound to vfio-pci and given to "
			   "the same guest, and they can reach each other's DMA",
			   "put the card in a slot with its own group (one behind an ACS-capable root "
			   "port), or assign the whole group; the ACS override patch only hides the "
			   "problem",
			   "%s shares IOMMU group %s with %zu other device%s: %s", bdf, group, shared,
			   shared == 1 ? "" : "s", others);
	return true;
}

/* ---- the IOMMU: mode, interrupt remapping, posted interrupts ---------------- */

struct iommu {
	char units[256];        /* "dmar0,dmar1" */
	bool intel, amd;
	bool ir_hw, pi_hw;      /* every unit supports it */
	char hw_why[256];       /* the unit lacking it, for messages */
};

/* A hex register from sysfs ("f050da", "0x..."); false if malformed. */
static bool read_hex(struct pt *p, const char *path, uint64_t *v)
{
	char line[64], *end;

	if (!pt_read_line(p, path, line, sizeof(line)))
		return false;
	*v = strtoull(line, &end, 16);
	return *end == '\0';
}

/* One IOMMU unit's remapping and posting support from its registers:
 * VT-d ecap bit 3 (IR), cap bit 59 (PI); AMD's extended feature register
 * bit 7 (GASup, the guest virtual APIC posting needs); AMD IOMMUs always
 * remap interrupts. */
static void read_unit(struct pt *p, struct iommu *m, const char *u)
{
	char path[256];
	uint64_t cap, ecap, efr;

	snprintf(path, sizeof(path), "/sys/class/iommu/%s/intel-iommu/ecap", u);
	if (read_hex(p, path, &ecap)) {
		m->intel = true;
		snprintf(path, sizeof(path), "/sys/class/iommu/%s/intel-iommu/cap", u);
		if (!read_hex(p, path, &cap)) {
			pt_unreadable(p, path, "no hexadecimal capability register");
			cap = 0;
		}
		if (!(ecap >> 3 & 1) && m->ir_hw) {
			m->ir_hw = false;
			snprintf(m->hw_why, sizeof(m->hw_why), "%s's ecap 0x%" PRIx64 " has IR (bit 3) "
				 "clear", u, ecap);
		}
		if (!(cap >> 59 & 1) && m->pi_hw) {
			m->pi_hw = false;
			if (m->ir_hw)
				snprintf(m->hw_why, sizeof(m->hw_why), "%s's cap 0x%" PRIx64 " has PI "
					 "(bit 59) clear", u, cap);
		}
		return;
	}
	snprintf(path, sizeof(path), "/sys/class/iommu/%s/amd-iommu/features", u);
	if (read_hex(p, path, &efr)) {
		m->amd = true;
		if (!(efr >> 7 & 1) && m->pi_hw) {
			m->pi_hw = false;
			snprintf(m->hw_why, sizeof(m->hw_why), "%s's extended features 0x%" PRIx64
				 " have GASup (bit 7) clear", u, efr);
		}
		return;
	}
	snprintf(path, sizeof(path), "/sys/class/iommu/%s", u);
	pt_unreadable(p, path, "neither intel-iommu/ecap nor amd-iommu/features is a hexadecimal "
		      "register");
	if (m->ir_hw)
		snprintf(m->hw_why, sizeof(m->hw_why), "%s's capability registers are unreadable", u);
	m->ir_hw = m->pi_hw = false;
}

static bool read_iommu(struct pt *p, struct iommu *m)
{
	size_t nn, o = 0;
	char **names = pt_list(p, "/sys/class/iommu", &nn);

	*m = (struct iommu){ .ir_hw = true, .pi_hw = true };
	for (size_t i = 0; i < nn; i++) {
		if (o < sizeof(m->units))
			o += (size_t)snprintf(m->units + o, sizeof(m->units) - o, "%s%s",
					      o ? "," : "", names[i]);
		read_unit(p, m, names[i]);
	}
	pt_names_free(names, nn);
	if (nn)
		return true;
	pt_finding(p, PT_ERROR, "no-iommu",
		   "no IOMMU is active: a device cannot be assigned safely (its DMA would reach "
		   "all host memory), and VFIO refuses it unless in its unsafe no-IOMMU mode",
		   "enable VT-d/AMD-Vi in the firmware and intel_iommu=on on the kernel command line",
		   "/sys/class/iommu lists no IOMMU unit");
	return false;
}

/* Is word (a "key" or "key=value") on the kernel command line? */
static bool cmdline_has(const char *cmdline, const char *word)
{
	size_t n = strlen(word);

	for (const char *s = cmdline; (s = strstr(s, word)); s += n)
		if ((s == cmdline || s[-1] == ' ') && (!s[n] || isspace((unsigned char)s[n]) ||
						       (word[n - 1] != '=' && s[n] == '=')))
			return true;
	return false;
}

static void check_iommu_mode(struct pt *p, const struct iommu *m, const char *group,
			     const char *cmdline)
{
	char path[128], type[32] = "unknown";
	const char *mode;

	snprintf(path, sizeof(path), "/sys/kernel/iommu_groups/%s/type", group);
	pt_read_line(p, path, type, sizeof(type));
	if (!strcmp(type, "identity"))
		mode = "passthrough: host drivers' DMA is not translated";
	else if (!strcmp(type, "DMA-FQ"))
		mode = "translated, lazy IOTLB invalidation (flush queue)";
	else if (!strcmp(type, "DMA"))
		mode = "translated, strict: every unmap invalidates the IOTLB";
	else
		mode = "not known to this check";
	pt_finding(p, PT_INFO, "iommu-mode",
		   "an assigned device's DMA is always translated (VFIO maps guest memory once); "
		   "on bare metal the same device runs in the host's default mode, so a strict "
		   "host pays map/unmap per I/O that the guest does not, and an identity host "
		   "skips translation the guest pays in IOTLB misses",
		   "compare with bare metal knowing this; iommu=pt (identity) makes the host side "
		   "the untranslated best case",
		   "IOMMU %s (%s); group %s default domain %s (%s); kernel command line: %s",
		   m->units, m->intel ? "Intel VT-d" : m->amd ? "AMD-Vi" : "unknown kind", group,
		   type, mode, cmdline[0] ? cmdline : "(unreadable)");
}

/* What /proc/interrupts says about the device's vfio vectors, and about
 * MSI interrupts in general (their chip is "IR-…" when remapped). */
struct irq_view {
	bool read;
	unsigned lines, ir_lines;       /* the device's vfio lines */
	uint64_t count;                 /* host interrupts on them, all CPUs */
	struct pt_cpus fired;           /* CPUs that took any of them */
	unsigned msi_lines, msi_ir_lines;       /* every MSI line */
};

static const char *skip_ws(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* One "IRQ: count... CHIP HWIRQ NAME" line; cpu[] maps column to CPU. */
static void irq_line(struct irq_view *v, const char *line, const unsigned *cpu, unsigned ncol,
		     const char *tag)
{
	const char *s = skip_ws(line);
	char chip[128];
	uint64_t counts[PT_MAX_CPUS / 8];
	bool mine = strstr(line, "vfio") && strstr(line, tag);

	if (!isdigit((unsigned char)*s))
		return;
	s += strspn(s, "0123456789");
	if (*s++ != ':')
		return;
	for (unsigned c = 0; c < ncol; c++) {
		char *end;

		counts[c] = strtoull(s, &end, 10);
		if (end == s)
			return;
		s = end;
	}
	if (sscanf(s, " %127s", chip) != 1 || !strstr(chip, "MSI"))
		return;
	v->msi_lines++;
	v->msi_ir_lines += !strncmp(chip, "IR-", 3);
	if (!mine)
		return;
	v->lines++;
	v->ir_lines += !strncmp(chip, "IR-", 3);
	for (unsigned c = 0; c < ncol; c++) {
		v->count += counts[c];
		if (counts[c])
			v->fired.bits[cpu[c] / 64] |= 1ull << (cpu[c] % 64);
	}
}

static void read_irqs(struct pt *p, const char *bdf, struct irq_view *v)
{
	char *text = pt_read(p, "/proc/interrupts"), *line, *save = NULL, tag[PT_BDF_LEN + 2];
	unsigned cpu[PT_MAX_CPUS / 8], ncol = 0;

	memset(v, 0, sizeof(*v));
	if (!text)
		return;
	snprintf(tag, sizeof(tag), "(%s)", bdf);
	line = strtok_r(text, "\n", &save);
	/* the header names the columns: "CPU0 CPU1 …" (offline CPUs absent) */
	for (const char *s = line ? line : ""; (s = strstr(s, "CPU")) && ncol < PT_MAX_CPUS / 8;) {
		char *end;
		unsigned long c = strtoul(s + 3, &end, 10);

		if (end == s + 3 || c >= PT_MAX_CPUS)
			break;
		cpu[ncol++] = (unsigned)c;
		s = end;
	}
	v->read = ncol > 0;
	while (v->read && (line = strtok_r(NULL, "\n", &save)))
		irq_line(v, line, cpu, ncol, tag);
	free(text);
}

static bool param_on(struct pt *p, const char *path, bool *on)
{
	char v[16];

	if (!pt_read_line(p, path, v, sizeof(v)))
		return false;
	*on = !strcmp(v, "Y") || !strcmp(v, "1");
	return true;
}

static void append(char *buf, size_t n, const char *s)
{
	size_t o = strlen(buf);

	if (o < n)
		snprintf(buf + o, n - o, "%s%s", o ? "; " : "", s);
}

/* Why interrupts are not remapped ("" when they are). */
static void remap_blockers(struct pt *p, const struct iommu *m, const char *cmdline,
			   const struct irq_view *v, char *why, size_t n)
{
	char s[256];
	bool unsafe;

	why[0] = '\0';
	if (!m->ir_hw)
		append(why, n, m->hw_why);
	if (cmdline_has(cmdline, "intremap=off") || cmdline_has(cmdline, "nointremap"))
		append(why, n, "the kernel command line turns it off (intremap=off)");
	if (v->lines && !v->ir_lines) {
		snprintf(s, sizeof(s), "the device's %u vfio interrupts go through a PCI-MSI chip, "
			 "not IR-PCI-MSI", v->lines);
		append(why, n, s);
	} else if (!v->lines && v->msi_lines && !v->msi_ir_lines) {
		snprintf(s, sizeof(s), "none of the %u MSI lines in /proc/interrupts is remapped "
			 "(IR-)", v->msi_lines);
		append(why, n, s);
	}
	if (why[0] && param_on(p, "/sys/module/vfio_iommu_type1/parameters/allow_unsafe_interrupts",
			       &unsafe) && unsafe)
		append(why, n, "vfio_iommu_type1 allow_unsafe_interrupts=Y lets VFIO assign "
		       "devices anyway");
}

/* Why device interrupts are not posted to the vCPUs ("" when they are). */
static void post_blockers(struct pt *p, const struct iommu *m, const char *cmdline, char *why,
			  size_t n)
{
	bool on;

	why[0] = '\0';
	if (!m->pi_hw)
		append(why, n, m->hw_why);
	if (m->intel) {
		char *cpuinfo = pt_read(p, "/proc/cpuinfo");
		const char *vmx = cpuinfo ? strstr(cpuinfo, "vmx flags") : NULL;
		size_t len = vmx ? strcspn(vmx, "\n") : 0;
		const char *pi = vmx ? strstr(vmx, " posted_intr") : NULL;

		if (cmdline_has(cmdline, "intremap=nopost"))
			append(why, n, "the kernel command line has intremap=nopost");
		if (!param_on(p, "/sys/module/kvm_intel/parameters/enable_apicv", &on))
			append(why, n, "kvm_intel is not loaded (no parameters/enable_apicv)");
		else if (!on)
			append(why, n, "kvm_intel enable_apicv=N");
		if (!cpuinfo)
			append(why, n, "/proc/cpuinfo unreadable");
		else if (!pi || pi > vmx + len)
			append(why, n, "the CPU's vmx flags lack posted_intr");
		free(cpuinfo);
	} else if (m->amd) {
		if (cmdline_has(cmdline, "amd_iommu_intr=legacy"))
			append(why, n, "the kernel command line has amd_iommu_intr=legacy");
		if (!param_on(p, "/sys/module/kvm_amd/parameters/avic", &on) || !on)
			append(why, n, "kvm_amd avic is off (or kvm_amd not loaded)");
	}
}

static void check_interrupts(struct pt *p, const struct iommu *m, const char *bdf,
			     const char *cmdline)
{
	struct irq_view v;
	char why[1024];

	read_irqs(p, bdf, &v);
	if (!v.read)
		pt_unreadable(p, "/proc/interrupts", "no CPU header line");
	remap_blockers(p, m, cmdline, &v, why, sizeof(why));
	if (why[0]) {
		pt_finding(p, PT_WARNING, "no-interrupt-remapping",
			   "without interrupt remapping a device's MSI writes are not checked: the "
			   "assigned device (the guest) could inject any interrupt into the host, "
			   "and device interrupts cannot be posted to vCPUs, so every one exits "
			   "the guest",
			   "enable interrupt remapping (VT-d/AMD-Vi in the firmware, no intremap=off; "
			   "x2APIC on), then drop allow_unsafe_interrupts",
			   "%s: %s", bdf, why);
		return;
	}
	post_blockers(p, m, cmdline, why, sizeof(why));
	if (why[0]) {
		pt_finding(p, PT_WARNING, "no-posted-interrupts",
			   "without posted interrupts each device interrupt lands on the host, "
			   "which then injects it into the vCPU (an exit or IPI per completion): at "
			   "QD1 that is on every I/O's path",
			   "use a CPU and IOMMU with posted interrupts (VT-d PI / AMD AVIC+GA), "
			   "kvm_intel enable_apicv=Y (kvm_amd avic=1), no intremap=nopost",
			   "%s: %s", bdf, why);
		return;
	}
	pt_finding(p, PT_INFO, "interrupts",
		   "remapped and posted interrupts reach the running vCPU without a host exit",
		   "nothing", "%s: remapped (%u of %u vfio lines IR-), posted (%s); host "
		   "interrupts on its vfio lines: %" PRIu64 " (posted ones bypass these counts)",
		   bdf, v.ir_lines, v.lines, m->intel ? "VT-d PI, enable_apicv=Y, posted_intr" :
		   "AMD GA, avic=1", v.count);
}

/* ---- NUMA placement ------------------------------------------------------ */

/* Cpus_allowed_list of /proc/PID[/task/TID]/status into c and text. */
static bool allowed_cpus(struct pt *p, const char *dir, struct pt_cpus *c, char *text, size_t n)
{
	char path[256], *st, *l;
	bool ok = false;

	snprintf(path, sizeof(path), "%s/status", dir);
	if (!(st = pt_read(p, path)))
		return false;
	if ((l = strstr(st, "\nCpus_allowed_list:"))) {
		l = (char *)skip_ws(l + 19);
		l[strcspn(l, "\n")] = '\0';
		snprintf(text, n, "%s", l);
		ok = l[0] && pt_cpus_parse(l, c);
	}
	free(st);
	return ok;
}

/* vCPU threads ("CPU n/KVM", named with -name …,debug-threads=on) whose
 * allowed CPUs reach beyond local; all threads when none is named.
 * Returns how many threads were looked at, -1 if the tasks are unreadable. */
static int remote_vcpus(struct pt *p, const struct qemu *q, const struct pt_cpus *local,
			char *out, size_t n, bool *named)
{
	char dir[128], path[192], comm[64], cpus[256];
	size_t nn, o = 0;
	char **tids;
	int seen = 0;

	snprintf(dir, sizeof(dir), "/proc/%ld/task", q->pid);
	if (!(tids = pt_list(p, dir, &nn)) || !nn) {
		pt_names_free(tids, nn);
		return -1;
	}
	*named = false;
	for (size_t i = 0; i < nn; i++) {
		unsigned id;

		snprintf(path, sizeof(path), "%s/%s/comm", dir, tids[i]);
		*named |= pt_read_line(p, path, comm, sizeof(comm)) && sscanf(comm, "CPU %u/", &id) == 1;
	}
	for (size_t i = 0; i < nn; i++) {
		struct pt_cpus c;
		unsigned id;

		snprintf(path, sizeof(path), "%s/%s/comm", dir, tids[i]);
		if (!pt_read_line(p, path, comm, sizeof(comm)))
			snprintf(comm, sizeof(comm), "?");
		if (*named && sscanf(comm, "CPU %u/", &id) != 1)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, tids[i]);
		if (!allowed_cpus(p, path, &c, cpus, sizeof(cpus))) {
			pt_unreadable(p, path, "no Cpus_allowed_list in its status");
			continue;
		}
		seen++;
		if (!pt_cpus_subset(&c, local) && o < n)
			o += (size_t)snprintf(out + o, n - o, "%s%s %s (CPUs %s)", o ? ", " : "",
					      comm, tids[i], cpus);
	}
	pt_names_free(tids, nn);
	return seen;
}

/* Resident guest memory per NUMA node (kB) from /proc/PID/numa_maps;
 * the policy of the largest mapping into policy.  false if unreadable. */
static bool memory_nodes(struct pt *p, const struct qemu *q, uint64_t *kb, size_t nodes,
			 char *policy, size_t pn)
{
	char path[64], *text, *line, *save = NULL;
	uint64_t biggest = 0;

	snprintf(path, sizeof(path), "/proc/%ld/numa_maps", q->pid);
	if (!(text = pt_read(p, path)))
		return false;
	memset(kb, 0, nodes * sizeof(*kb));
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		uint64_t pages[64] = { 0 }, psize = 4, total = 0;
		char pol[64] = "";
		const char *s;

		sscanf(line, "%*s %63s", pol);
		for (s = strchr(line, ' '); s; s = strchr(s + 1, ' ')) {
			unsigned node;
			unsigned long long v;

			if (sscanf(s, " N%u=%llu", &node, &v) == 2 && node < 64)
				pages[node] = v;
			else if (sscanf(s, " kernelpagesize_kB=%llu", &v) == 1)
				psize = v;
		}
		for (size_t k = 0; k < nodes && k < 64; k++) {
			kb[k] += pages[k] * psize;
			total += pages[k] * psize;
		}
		if (total > biggest) {
			biggest = total;
			snprintf(policy, pn, "%s", pol);
		}
	}
	free(text);
	return true;
}

/* false when the memory is remote or its placement unknown */
static bool check_numa_memory(struct pt *p, const struct qemu *q, unsigned node,
			      const struct pt_cpus *nodes, const char *bdf, char *summary, size_t n)
{
	uint64_t kb[64], all = 0;
	char policy[64] = "?", path[128];

	if (!memory_nodes(p, q, kb, 64, policy, sizeof(policy))) {
		snprintf(path, sizeof(path), "/proc/%ld/numa_maps", q->pid);
		pt_unreadable(p, path, "cannot read the guest memory's NUMA placement");
		return false;
	}
	for (unsigned k = 0; k < 64; k++)
		all += pt_cpus_has(nodes, k) ? kb[k] : 0;
	snprintf(summary, n, "%.0f%% of %s's resident memory (%.1f GiB) on node %u, policy "
		 "of its largest mapping %s", all ? 100.0 * (double)kb[node] / (double)all : 0.0,
		 q->what, (double)all / (1 << 20), node, policy);
	if (!all) {
		snprintf(path, sizeof(path), "/proc/%ld/numa_maps", q->pid);
		pt_unreadable(p, path, "no resident pages on any online node");
		return false;
	}
	if (2 * kb[node] >= all)
		return true;
	pt_finding(p, PT_WARNING, "numa-memory-remote",
			   "the device DMAs into guest memory: on another node every transfer "
			   "and the completion entries cross the interconnect",
			   "bind guest memory to the device's node (libvirt <numatune><memory "
			   "mode='strict' nodeset='N'/>, or numactl --membind=N for QEMU)",
			   "%s is on node %u; %s", bdf, node, summary);
	return false;
}

/* The device's node and local CPUs; false (with a finding) if unknown. */
static bool device_node(struct pt *p, const char *bdf, int *node, struct pt_cpus *local,
			char *cpus, size_t n)
{
	char path[128], line[64], *end;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/numa_node", bdf);
	if (!pt_read_line(p, path, line, sizeof(line)) ||
	    (*node = (int)strtol(line, &end, 10), *end) || *node < -1 || *node >= 64) {
		pt_unreadable(p, path, "not a node number");
		return false;
	}
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/local_cpulist", bdf);
	if (!pt_read_line(p, path, cpus, n) || !pt_cpus_parse(cpus, local) ||
	    !pt_cpus_count(local)) {
		pt_unreadable(p, path, "not a CPU list");
		return false;
	}
	return true;
}

static void check_numa(struct pt *p, const struct qemu *q, const char *bdf)
{
	struct pt_cpus nodes, local;
	char line[256], cpus[256], remote[2048] = "", mem[512] = "";
	int node, seen;
	bool named = true;

	if (!pt_read_line(p, "/sys/devices/system/node/online", line, sizeof(line)) ||
	    !pt_cpus_parse(line, &nodes) || !pt_cpus_count(&nodes)) {
		pt_unreadable(p, "/sys/devices/system/node/online", "not a node list");
		return;
	}
	if (pt_cpus_count(&nodes) == 1 || !device_node(p, bdf, &node, &local, cpus, sizeof(cpus)))
		return;         /* one node: placement cannot be wrong */
	if (node < 0) {
		pt_finding(p, PT_INFO, "numa-unknown",
			   "the firmware does not say which node the device is attached to, so "
			   "placement cannot be checked", "look up the slot's socket in the board's "
			   "manual", "%s: numa_node -1 on a %u-node host", bdf, pt_cpus_count(&nodes));
		return;
	}
	if (!q->pid)
		return;
	seen = remote_vcpus(p, q, &local, remote, sizeof(remote), &named);
	if (seen < 0) {
		snprintf(line, sizeof(line), "/proc/%ld/task", q->pid);
		pt_unreadable(p, line, "cannot list QEMU's threads");
	}
	if (!named)
		pt_finding(p, PT_INFO, "vcpu-threads-unnamed",
			   "QEMU names its vCPU threads (\"CPU n/KVM\") only with -name "
			   "…,debug-threads=on; without it every QEMU thread is checked as a vCPU",
			   "start QEMU with -name NAME,debug-threads=on (libvirt does)",
			   "%s: no thread is named \"CPU n/KVM\"", q->what);
	if (remote[0])
		pt_finding(p, PT_WARNING, "numa-remote",
			   "a vCPU running off the device's node handles its interrupts and "
			   "completions across the interconnect, and its memory accesses go remote",
			   "pin the vCPUs to the device's node's CPUs (libvirt <vcpupin>, taskset "
			   "-p), and the emulator threads there too",
			   "%s is on node %u (local CPUs %s); %s may run elsewhere: %s", bdf, node,
			   cpus, named ? "vCPU threads" : "QEMU threads", remote);
	if (check_numa_memory(p, q, (unsigned)node, &nodes, bdf, mem, sizeof(mem)) &&
	    !remote[0] && seen > 0)
		pt_finding(p, PT_INFO, "numa", "vCPUs and memory on the device's node keep "
			   "interrupts, completions and DMA local", "nothing",
			   "%s is on node %u (local CPUs %s); %d %s threads pinned there; %s", bdf,
			   node, cpus, seen, named ? "vCPU" : "QEMU", mem);
}

/* ---- guest memory: hugepages ---------------------------------------------- */

struct mapping {
	uint64_t size, rss, anon_huge, page;    /* kB */
	char path[256];
};

/* The largest mapping of /proc/PID/smaps: QEMU's guest RAM block. */
static bool largest_mapping(struct pt *p, const struct qemu *q, struct mapping *big)
{
	char path[64], *text, *line, *save = NULL;
	struct mapping cur = { 0 };
	bool any = false;

	snprintf(path, sizeof(path), "/proc/%ld/smaps", q->pid);
	if (!(text = pt_read(p, path)))
		return false;
	memset(big, 0, sizeof(*big));
	for (line = strtok_r(text, "\n", &save); ; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long a, b, v;
		int off = 0;

		if (!line || sscanf(line, "%llx-%llx %*s %*s %*s %*s %n", &a, &b, &off) == 2) {
			if (any && cur.size > big->size)
				*big = cur;
			if (!line)
				break;
			memset(&cur, 0, sizeof(cur));
			if (off)
				snprintf(cur.path, sizeof(cur.path), "%s", line + off);
			any = true;
		} else if (sscanf(line, "Size: %llu kB", &v) == 1) {
			cur.size = v;
		} else if (sscanf(line, "Rss: %llu kB", &v) == 1) {
			cur.rss = v;
		} else if (sscanf(line, "AnonHugePages: %llu kB", &v) == 1) {
			cur.anon_huge = v;
		} else if (sscanf(line, "KernelPageSize: %llu kB", &v) == 1) {
			cur.page = v;
		}
	}
	free(text);
	return big->size > 0;
}

static void check_hugepages(struct pt *p, const struct qemu *q)
{
	struct mapping m;
	char path[128], what[512];

	if (!largest_mapping(p, q, &m)) {
		snprintf(path, sizeof(path), "/proc/%ld/smaps", q->pid);
		pt_unreadable(p, path, "no mapping with a Size line");
		return;
	}
	snprintf(what, sizeof(what), "%s's guest RAM (its largest mapping, %.1f GiB%s%s)",
		 q->what, (double)m.size / (1 << 20), m.path[0] ? ", " : "", m.path);
	if (m.page >= 2048) {
		pt_finding(p, PT_INFO, "hugepages", "guest memory in huge pages needs few IOMMU "
			   "and EPT entries: DMA and guest accesses rarely miss the TLBs", "nothing",
			   "%s is in hugetlbfs %llu kB pages", what, (unsigned long long)m.page);
		return;
	}
	if (m.rss && m.anon_huge * 10 >= m.rss * 9) {
		pt_finding(p, PT_INFO, "hugepages", "guest memory in huge pages needs few IOMMU "
			   "and EPT entries: DMA and guest accesses rarely miss the TLBs",
			   "nothing; hugetlbfs would guarantee it (THP may be split or not yet "
			   "collapsed)", "%s: %.0f%% of its resident %.1f GiB in transparent huge "
			   "pages", what, 100.0 * (double)m.anon_huge / (double)m.rss,
			   (double)m.rss / (1 << 20));
		return;
	}
	pt_finding(p, PT_WARNING, "no-hugepages",
		   "guest memory in 4 KiB pages: the IOMMU maps DMA buffers with 4 KiB entries and "
		   "the EPT the guest's accesses, so both miss their TLBs far more often (DMA "
		   "page walks add latency to every transfer)",
		   "back guest memory with hugetlbfs (-object memory-backend-file,mem-path="
		   "/dev/hugepages,prealloc=on,… or libvirt <memoryBacking><hugepages/>)",
		   "%s: %llu kB pages, %.0f%% of its resident %.1f GiB in transparent huge pages",
		   what, (unsigned long long)(m.page ? m.page : 4),
		   m.rss ? 100.0 * (double)m.anon_huge / (double)m.rss : 0.0,
		   (double)m.rss / (1 << 20));
}

/* ---- MSI-X vectors ------------------------------------------------------------ */

static void check_msix(struct pt *p, const char *bdf)
{
	char path[192], type[16], fired[64] = "none";
	size_t nn, msix = 0, msi = 0;
	char **irqs;
	struct irq_view v;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/msi_irqs", bdf);
	irqs = pt_list(p, path, &nn);
	for (size_t i = 0; i < nn; i++) {
		char f[256];

		snprintf(f, sizeof(f), "%s/%s", path, irqs[i]);
		if (!pt_read_line(p, f, type, sizeof(type)))
			continue;
		msix += !strcmp(type, "msix");
		msi += !strcmp(type, "msi");
	}
	pt_names_free(irqs, nn);
	if (!msix && !msi) {
		pt_finding(p, PT_WARNING, "no-msi",
			   "no MSI/MSI-X vector is enabled: either the guest has not started the "
			   "device's driver, or the device runs on legacy INTx, which is shared, "
			   "cannot be posted and is masked and unmasked by the host per interrupt",
			   "check while the guest runs with its driver loaded; a device on INTx "
			   "needs its driver's MSI-X support (or pci=nomsi removed)",
			   "%s: msi_irqs lists no vector", bdf);
		return;
	}
	read_irqs(p, bdf, &v);
	if (pt_cpus_count(&v.fired)) {
		size_t o = 0;

		for (unsigned c = 0; c < PT_MAX_CPUS && o < sizeof(fired); c++)
			if (pt_cpus_has(&v.fired, c))
				o += (size_t)snprintf(fired + o, sizeof(fired) - o, "%s%u", o ? "," : "", c);
	}
	pt_finding(p, PT_INFO, "msix", "each queue of an NVMe device completes on its own vector; "
		   "their count and where the host takes them is where completions go",
		   "nothing; compare with the guest's queue and vector count (check --guest)",
		   "%s: %zu MSI-X and %zu MSI vectors enabled; /proc/interrupts has %u vfio lines, "
		   "%" PRIu64 " host interrupts, taken on CPUs %s", bdf, msix, msi, v.lines,
		   v.count, fired);
}

/* ---- the command ------------------------------------------------------------- */

static void check_device(struct pt *p, const struct qemu *q, const char *bdf,
			 const char *cmdline)
{
	char path[128], group[32];
	struct iommu m;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/vendor", bdf);
	if (!pt_read_line(p, path, group, sizeof(group))) {
		pt_finding(p, PT_ERROR, "no-device", "there is nothing to check without the device",
			   "give the PCI address as lspci -D prints it (--device 0000:01:00.0)",
			   "%s: no such PCI device (%s unreadable)", bdf, path);
		return;
	}
	check_driver(p, bdf);
	if (read_iommu(p, &m)) {        /* without an IOMMU, no group, mode or remapping */
		if (check_group(p, bdf, group, sizeof(group)))
			check_iommu_mode(p, &m, group, cmdline);
		check_interrupts(p, &m, bdf, cmdline);
	}
	check_numa(p, q, bdf);
	check_msix(p, bdf);
}

int pt_check_host(struct pt *p, const struct pt_host_opts *o)
{
	char devs[16][PT_BDF_LEN], cmdline[2048] = "";
	struct qemu q = { 0 };
	size_t n = 0;

	if (resolve_pid(p, o, &q))
		return -1;
	if (o->device && !(n = pt_parse_bdf(o->device, devs[0]))) {
		fprintf(stderr, "iogap passthrough: --device '%s': not a PCI address "
			"(DDDD:BB:DD.F)\n", o->device);
		return -1;
	}
	if (!n && q.pid)
		n = qemu_devices(p, &q, devs, 16);
	if (!n)
		n = vfio_bound_devices(p, devs, 16);
	if (!n) {
		fprintf(stderr, "iogap passthrough: no device to check: none given (--device), "
			"none on QEMU's command line, none bound to vfio-pci under %s/sys\n",
			p->root);
		return -1;
	}
	if (!pt_read_line(p, "/proc/cmdline", cmdline, sizeof(cmdline)))
		pt_unreadable(p, "/proc/cmdline", "the kernel command line is unreadable");
	for (size_t i = 0; i < n; i++)
		check_device(p, &q, devs[i], cmdline);
	if (q.pid)
		check_hugepages(p, &q);
	else
		pt_finding(p, PT_INFO, "no-qemu", "vCPU placement and guest memory belong to the "
			   "QEMU process", "give --domain DOMAIN or --qemu-pid PID",
			   "no QEMU process given: vCPU placement and hugepages not checked");
	return 0;
}
