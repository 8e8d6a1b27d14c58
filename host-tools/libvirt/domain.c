/* SPDX-License-Identifier: MIT */
/*
 * `iogap run --domain`: the VM side in a running libvirt domain.  The
 * filter goes in live at both places (live.c), the probe runs in the guest
 * through the QEMU guest agent (ga.c), QEMU's own statistics of the device
 * are read beside it.  docs/libvirt.md.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "align.h"
#include "iogap-domain.h"
#include "json_parse.h"
#include "lv.h"
#include "util.h"

#define GA_PORT "org.qemu.guest_agent.0"

struct iogap_domain {
	virConnectPtr conn;
	virDomainPtr dom;
	char name[256], dev[64], qdev[400], agent[64];
	const char *accel;
	unsigned vcpus;
	uint64_t memory_mb;
	struct iogap_lv_qemu q;
	struct iogap_lv_disk disk;
	char *graph_before;
	struct jp_value stats_before;
	bool have_stats;
};

void iogap_domain_close(struct iogap_domain *d)
{
	if (!d)
		return;
	free(d->graph_before);
	if (d->have_stats)
		jp_free(&d->stats_before);
	if (d->dom)
		virDomainFree(d->dom);
	if (d->conn)
		virConnectClose(d->conn);
	free(d);
}

/* Does the agent answer?  Its version into d->agent. */
static int ping(struct iogap_domain *d, char *err, size_t errlen)
{
	struct jp_value info;
	char why[1024];

	if (!iogap_ga_cmd(d->dom, "{\"execute\":\"guest-info\"}", 30, &info, why, sizeof(why))) {
		snprintf(d->agent, sizeof(d->agent), "qemu-ga %s",
			 jp_str(jp_get(&info, "version")) ?: "?");
		jp_free(&info);
		return 0;
	}
	return iogap_seterr(err, errlen, "domain %s: %s: the guest needs qemu-ga running on a "
			    "virtio-serial channel named " GA_PORT " (in the domain XML: <channel "
			    "type='unix'><target type='virtio' name='" GA_PORT "'/></channel>; "
			    "docs/libvirt.md)", d->name, why);
}

/* <domain type='kvm'> or 'qemu' (TCG), as iogap run names them. */
static const char *accel_of(virDomainPtr dom)
{
	char *xml = virDomainGetXMLDesc(dom, 0);
	const char *a = !xml ? "" : !strncmp(xml, "<domain type='kvm'", 18) ? "kvm" :
			!strncmp(xml, "<domain type='qemu'", 19) ? "tcg" : "";

	free(xml);
	return a;
}

const char *iogap_domain_accel(const struct iogap_domain *d)
{
	return d->accel;
}

const char *iogap_domain_agent(const struct iogap_domain *d)
{
	return d->agent;
}

void iogap_domain_size(const struct iogap_domain *d, unsigned *vcpus, uint64_t *memory_mb)
{
	*vcpus = d->vcpus;
	*memory_mb = d->memory_mb;
}

struct iogap_domain *iogap_domain_open(const char *uri, const char *name, const char *dev,
				       int *leftovers, char *err, size_t errlen)
{
	struct iogap_domain *d = calloc(1, sizeof(*d));
	virDomainInfo info;
	char root[256];

	if (!d) {
		iogap_seterr(err, errlen, "out of memory");
		return NULL;
	}
	snprintf(d->name, sizeof(d->name), "%s", name);
	snprintf(d->dev, sizeof(d->dev), "%s", dev);
	virSetErrorFunc(NULL, iogap_lv_quiet_errors);
	d->conn = virConnectOpen(uri);
	if (!d->conn) {
		iogap_seterr(err, errlen, "cannot connect to libvirt%s%s: %s", uri ? " at " : "",
			     uri ?: "", virGetLastErrorMessage());
		goto fail;
	}
	d->dom = virDomainLookupByName(d->conn, name);
	if (!d->dom) {
		iogap_seterr(err, errlen, "domain %s: %s", name, virGetLastErrorMessage());
		goto fail;
	}
	d->accel = accel_of(d->dom);
	if (!virDomainGetInfo(d->dom, &info)) {
		d->vcpus = info.nrVirtCpu;
		d->memory_mb = info.maxMem >> 10;
	}
	if (iogap_lv_qemu_find(d->dom, d->name, &d->q, err, errlen) ||
	    iogap_lv_check_filter(&d->q, err, errlen))
		goto fail;
	/* what an iogap killed mid-run left: the graph as the user had it */
	*leftovers = iogap_lv_cleanup(&d->q, err, errlen);
	if (*leftovers < 0 ||
	    iogap_lv_disk_root(&d->q, dev, root, sizeof(root), d->qdev, err, errlen) ||
	    iogap_lv_disk_info(d->dom, dev, &d->disk, err, errlen) || ping(d, err, errlen))
		goto fail;
	return d;
fail:
	iogap_domain_close(d);
	return NULL;
}

const char *iogap_domain_target(const struct iogap_domain *d)
{
	return d->disk.spec;
}

const char *iogap_domain_format(const struct iogap_domain *d)
{
	return d->disk.format;
}

bool iogap_domain_read_only(const struct iogap_domain *d)
{
	return d->disk.read_only;
}

bool iogap_domain_shareable(const struct iogap_domain *d)
{
	return d->disk.shareable;
}

/* ---- the guest's view ---------------------------------------------------------- */

/* What the domain XML says of where the disk is, for the messages. */
static void where_text(const struct iogap_lv_disk *k, char *out, size_t outlen)
{
	const int *p = k->has_pci ? k->pci : k->ctrl_pci;
	int n = 0;

	out[0] = '\0';
	if (k->has_pci || k->has_ctrl_pci)
		n = snprintf(out, outlen, " at PCI address %04x:%02x:%02x.%x", p[0], p[1], p[2], p[3]);
	if (k->has_drive && k->has_ctrl_pci && n >= 0 && (size_t)n < outlen)
		n += snprintf(out + n, outlen - (size_t)n, " (%s bus/target/unit %d/%d/%d)", k->bus,
			      k->drive[1], k->drive[2], k->drive[3]);
	if (k->serial[0] && n >= 0 && (size_t)n < outlen)
		snprintf(out + n, outlen - (size_t)n, "%s with serial %s", n ? " or" : "", k->serial);
}

int iogap_domain_guest_dev(struct iogap_domain *d, char *out, size_t outlen, char *err,
			   size_t errlen)
{
	struct jp_value disks;
	char names[512], where[256];
	size_t n;

	if (iogap_ga_cmd(d->dom, "{\"execute\":\"guest-get-disks\"}", 60, &disks, err, errlen))
		return -1;
	n = iogap_lv_guest_disk(&disks, &d->disk, names, sizeof(names));
	jp_free(&disks);
	where_text(&d->disk, where, sizeof(where));
	if (n == 1) {
		snprintf(out, outlen, "%s", names);
		return 0;
	}
	if (!where[0])
		return iogap_seterr(err, errlen, "disk %s of domain %s has neither a PCI address (of "
				    "its own or of its controller) nor a <serial> in its XML: iogap cannot "
				    "tell which guest device it is (give it a <serial>)", d->dev, d->name);
	if (n > 1)
		return iogap_seterr(err, errlen, "disk %s of domain %s: the guest agent lists several "
				    "disks%s: %s", d->dev, d->name, where, names);
	return iogap_seterr(err, errlen, "disk %s of domain %s: the guest agent lists no disk%s "
			    "(`virsh qemu-agent-command %s '{\"execute\":\"guest-get-disks\"}'`)",
			    d->dev, d->name, where, d->name);
}

/* A small guest file (the first 64 KiB), into a malloc'd string. */
static char *guest_text(struct iogap_domain *d, const char *path, char *err, size_t errlen)
{
	char tmp[] = "/tmp/iogap-ga-XXXXXX";
	int fd = mkstemp(tmp);
	size_t len;
	char *text = NULL;

	if (fd < 0) {
		iogap_seterr(err, errlen, "mkstemp: %s", strerror(errno));
		return NULL;
	}
	close(fd);
	if (!iogap_ga_get(d->dom, path, tmp, err, errlen) &&
	    !(text = iogap_read_file(tmp, 65536, &len)))
		iogap_seterr(err, errlen, "%s: %s", tmp, strerror(errno));
	unlink(tmp);
	return text;
}

/* Does a /proc/mounts or /proc/swaps line start with gdev (or a partition of it)? */
static bool lists_dev(const char *text, const char *gdev)
{
	size_t n = strlen(gdev);

	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (!strncmp(l, gdev, n) && (l[n] == ' ' || l[n] == '\t' || l[n] == 'p' ||
					     (l[n] >= '0' && l[n] <= '9')))
			return true;
	return false;
}

int iogap_domain_guest_busy(struct iogap_domain *d, const char *gdev, char *why, size_t whylen)
{
	static const char *const files[] = { "/proc/mounts", "/proc/swaps" };

	for (size_t i = 0; i < 2; i++) {
		char *text = guest_text(d, files[i], why, whylen);
		bool busy = text && lists_dev(text, gdev);

		free(text);
		if (!text)
			return -1;
		if (busy) {
			iogap_seterr(why, whylen, "%s (disk %s) is in the guest's %s", gdev, d->dev,
				     files[i]);
			return 1;
		}
	}
	return 0;
}

int iogap_domain_put(struct iogap_domain *d, const char *host_path, const char *guest_path,
		     bool exec, char *err, size_t errlen)
{
	size_t len;
	char *data = iogap_read_file(host_path, 0, &len);
	const char *chmod[] = { "chmod", "0755", guest_path, NULL };
	char tail[256];
	int rc, status;

	if (!data)
		return iogap_seterr(err, errlen, "%s: %s", host_path, strerror(errno));
	rc = iogap_ga_put(d->dom, guest_path, data, len, err, errlen);
	free(data);
	if (rc || !exec)
		return rc;
	/* guest-file-open creates 0666 & umask: not executable */
	if (iogap_domain_exec(d, chmod, NULL, iogap_now_ns() + 60000000000ULL, NULL, &status, tail,
			      sizeof(tail), err, errlen))
		return -1;
	return status ? iogap_seterr(err, errlen, "chmod in the guest: status %d: %s", status,
				     tail) : 0;
}

int iogap_domain_get(struct iogap_domain *d, const char *guest_path, const char *host_path,
		     char *err, size_t errlen)
{
	return iogap_ga_get(d->dom, guest_path, host_path, err, errlen);
}

static void sleep_ms(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* kill -SIG pid in the guest (the probe ends its jobs on TERM). */
static void guest_kill(struct iogap_domain *d, int64_t pid, const char *sig)
{
	char p[32], err[256];
	const char *argv[] = { "kill", sig, p, NULL };
	int64_t k;

	snprintf(p, sizeof(p), "%" PRId64, pid);
	iogap_ga_exec_start(d->dom, argv, NULL, &k, err, sizeof(err));
}

int iogap_domain_exec(struct iogap_domain *d, const char *const *argv, const char *const *env,
		      uint64_t deadline_ns,
		      const volatile sig_atomic_t *cancel, int *status, char *err_tail,
		      size_t taillen, char *err, size_t errlen)
{
	int64_t pid;
	uint64_t kill_at = 0;
	int r;

	if (iogap_ga_exec_start(d->dom, argv, env, &pid, err, errlen))
		return -1;
	while (!(r = iogap_ga_exec_poll(d->dom, pid, status, err_tail, taillen, err, errlen))) {
		bool stop = (cancel && *cancel) || iogap_now_ns() > deadline_ns;

		if (stop && !kill_at) {
			guest_kill(d, pid, "-TERM");
			kill_at = iogap_now_ns() + 5000000000ULL;
		} else if (kill_at && iogap_now_ns() > kill_at) {
			guest_kill(d, pid, "-KILL");
			kill_at = UINT64_MAX;
		}
		sleep_ms(200);
	}
	if (r < 0)
		return -1;
	if (kill_at)
		return iogap_seterr(err, errlen, "%s in the guest was stopped (%s)", argv[0],
				    cancel && *cancel ? "interrupted" : "its time limit passed");
	return 0;
}

int iogap_domain_sync(struct iogap_domain *d, struct iogap_sync_sample *s, size_t n, char *err,
		      size_t errlen)
{
	int rc = 0;

	for (size_t i = 0; i < n && !rc; i++)
		rc = iogap_ga_clock(d->dom, &s[i].t_send, &s[i].guest_ns, &s[i].t_recv, err, errlen);
	return rc;
}

/* ---- the filters ------------------------------------------------------------------- */

int iogap_domain_insert(struct iogap_domain *d, char *top_ring, char *bottom_ring, char *err,
			size_t errlen)
{
	char why[2048];

	free(d->graph_before);
	d->graph_before = iogap_lv_graph(d->dom, err, errlen);
	if (!d->graph_before || iogap_lv_insert(&d->q, d->dev, bottom_ring, 4096, err, errlen))
		return -1;
	if (!iogap_lv_insert_top(&d->q, d->dev, top_ring, 4096, err, errlen))
		return 0;
	snprintf(why, sizeof(why), "%s", err);
	iogap_lv_remove(&d->q, d->dev, err, errlen);
	return iogap_seterr(err, errlen, "%s", why);
}

int iogap_domain_remove(struct iogap_domain *d, char *err, size_t errlen)
{
	char *after;
	int rc;

	if (iogap_lv_remove(&d->q, d->dev, err, errlen))
		return -1;
	after = iogap_lv_graph(d->dom, err, errlen);
	if (!after)
		return -1;
	rc = d->graph_before && strcmp(after, d->graph_before) ?
	     iogap_seterr(err, errlen, "the filters are out but the block graph differs from the "
			  "one found (`iogap libvirt graph %s`)", d->name) : 0;
	free(after);
	return rc;
}

/* ---- QEMU's statistics ------------------------------------------------------------- */

/* Latency histogram bins (ns): 10 us ... 1 s. */
#define BOUNDARIES "[10000,20000,50000,100000,200000,500000,1000000,2000000,5000000," \
		   "10000000,20000000,50000000,100000000,1000000000]"

/* query-blockstats' entry of the disk's device (its "stats" object). */
static int device_stats(struct iogap_domain *d, struct jp_value *out, char *err, size_t errlen)
{
	struct jp_value all;
	int rc = -1;

	if (iogap_lv_qmp(d->dom, "{\"execute\":\"query-blockstats\"}", &all, err, errlen))
		return -1;
	for (size_t i = 0; all.type == JP_ARRAY && i < all.n && rc; i++) {
		const char *q = jp_str(jp_get(&all.items[i], "qdev"));

		if (q && !strcmp(q, d->qdev) && jp_get(&all.items[i], "stats"))
			rc = jp_copy(out, jp_get(&all.items[i], "stats")) ?
			     iogap_seterr(err, errlen, "out of memory") : 0;
	}
	jp_free(&all);
	if (rc > 0 || rc == -1)
		iogap_seterr(err, errlen, "query-blockstats has no entry for %s", d->qdev);
	return rc ? -1 : 0;
}

static int histogram_set(struct iogap_domain *d, bool on, char *err, size_t errlen)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), "{\"execute\":\"block-latency-histogram-set\",\"arguments\":"
		 "{\"id\":\"%s\"%s}}", d->qdev, on ? ",\"boundaries\":" BOUNDARIES : "");
	return iogap_lv_qmp(d->dom, cmd, NULL, err, errlen);
}

int iogap_domain_stats_begin(struct iogap_domain *d, char *err, size_t errlen)
{
	if (histogram_set(d, true, err, errlen))
		return -1;
	if (d->have_stats)
		jp_free(&d->stats_before);
	d->have_stats = !device_stats(d, &d->stats_before, err, errlen);
	return d->have_stats ? 0 : -1;
}

static uint64_t delta(const struct jp_value *a, const struct jp_value *b, const char *k)
{
	uint64_t x = jp_u64(jp_get(a, k), 0), y = jp_u64(jp_get(b, k), 0);

	return y > x ? y - x : 0;
}

static void write_delta(FILE *f, const struct jp_value *a, const struct jp_value *b)
{
	static const char *const keys[] = { "rd_operations", "wr_operations", "flush_operations",
					    "unmap_operations", "rd_bytes", "wr_bytes",
					    "rd_total_time_ns", "wr_total_time_ns",
					    "flush_total_time_ns", "failed_rd_operations",
					    "failed_wr_operations", "rd_merged", "wr_merged" };

	fputs("{", f);
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		fprintf(f, "%s\"%s\":%" PRIu64, i ? "," : "", keys[i], delta(a, b, keys[i]));
	fputs("}", f);
}

int iogap_domain_stats_end(struct iogap_domain *d, const char *json_path, char *summary,
			   size_t sumlen, char *err, size_t errlen)
{
	struct jp_value after;
	FILE *f;
	uint64_t rn, wn;

	if (!d->have_stats)
		return iogap_seterr(err, errlen, "no query-blockstats before the run");
	if (device_stats(d, &after, err, errlen))
		return -1;
	histogram_set(d, false, err, errlen);   /* as found: no histogram */
	f = fopen(json_path, "w");
	if (!f) {
		jp_free(&after);
		return iogap_seterr(err, errlen, "%s: %s", json_path, strerror(errno));
	}
	fprintf(f, "{\"device\":\"%s\",\"delta\":", d->qdev);
	write_delta(f, &d->stats_before, &after);
	fputs(",\"before\":", f);
	jp_write(f, &d->stats_before);
	fputs(",\"after\":", f);
	jp_write(f, &after);
	fputs("}\n", f);
	rn = delta(&d->stats_before, &after, "rd_operations");
	wn = delta(&d->stats_before, &after, "wr_operations");
	snprintf(summary, sumlen, "reads %" PRIu64 " (mean %.1f us), writes %" PRIu64
		 " (mean %.1f us)", rn, rn ? (double)delta(&d->stats_before, &after,
		 "rd_total_time_ns") / (double)rn / 1e3 : 0.0, wn,
		 wn ? (double)delta(&d->stats_before, &after, "wr_total_time_ns") / (double)wn /
		 1e3 : 0.0);
	jp_free(&after);
	if (fclose(f))
		return iogap_seterr(err, errlen, "%s: %s", json_path, strerror(errno));
	return 0;
}
