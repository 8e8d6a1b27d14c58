/* SPDX-License-Identifier: MIT */
/*
 * The filter inserted live into a running libvirt domain, through QMP
 * passed by libvirt (virDomainQemuMonitorCommand):
 *
 *   before:  device ─▶ FORMAT ─file─▶ STORAGE
 *   after:   device ─▶ FORMAT ─file─▶ iogap-DEV (compress = iogap) ─file─▶ STORAGE
 *
 * blockdev-add of the filter over STORAGE, then blockdev-reopen of FORMAT
 * with file = the filter (docs/architecture.md, "QEMU": live insertion).
 * blockdev-reopen resets every option it is not given, so FORMAT is
 * reopened with exactly the options it was opened with: libvirt's own
 * -blockdev JSON from QEMU's command line, only `file` changed.
 *
 * A top filter (iogap run --domain) goes above the device's root node:
 * blockdev-add over FORMAT, then qom-set of the device's `drive`, which
 * QEMU allows on a realized device (the BlockBackend's root is replaced).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libvirt/libvirt-qemu.h>
#include <libvirt/virterror.h>

#include "json_parse.h"
#include "lv.h"
#include "qemubin.h"
#include "util.h"

#define NODE_PREFIX "iogap-"

void iogap_lv_quiet_errors(void *data, virErrorPtr e)
{
	(void)data;
	(void)e;
}

/* A whole /proc file (NUL-separated lists included); *len its size. */
static char *read_proc(pid_t pid, const char *what, size_t *len)
{
	char path[64], *buf = NULL;
	size_t cap = 0;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, what);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	*len = 0;
	do {
		if (*len + 4096 + 1 > cap) {
			char *b = realloc(buf, cap = cap * 2 + 8192);

			if (!b) {
				free(buf);
				close(fd);
				return NULL;
			}
			buf = b;
		}
		n = read(fd, buf + *len, cap - *len - 1);
		if (n > 0)
			*len += (size_t)n;
	} while (n > 0);
	close(fd);
	if (n < 0) {
		free(buf);
		return NULL;
	}
	buf[*len] = '\0';
	return buf;
}

/* Does the NUL-separated list hold the entry want (whole entry)? */
static const char *nul_list_find(const char *list, size_t len, const char *want, bool prefix)
{
	size_t wl = strlen(want);

	for (size_t i = 0; i < len; i += strlen(list + i) + 1)
		if (prefix ? !strncmp(list + i, want, wl) : !strcmp(list + i, want))
			return list + i;
	return NULL;
}

/* Where the filter in that QEMU puts its rings (as the filter decides). */
static void ring_dir_of(struct iogap_lv_qemu *q)
{
	size_t len = 0;
	char *env = read_proc(q->pid, "environ", &len);
	const char *dir = env ? nul_list_find(env, len, "IOGAP_FILTER_RING_DIR=", true) : NULL;

	dir = dir ? dir + strlen("IOGAP_FILTER_RING_DIR=") : "";
	snprintf(q->ring_dir, sizeof(q->ring_dir), "%s", *dir ? dir : "/dev/shm");
	free(env);
}

int iogap_lv_qemu_find(virDomainPtr dom, const char *name, struct iogap_lv_qemu *q,
		       char *err, size_t errlen)
{
	char uuid[VIR_UUID_STRING_BUFLEN];
	DIR *d;
	struct dirent *e;

	memset(q, 0, sizeof(*q));
	q->dom = dom;
	q->name = name;
	if (virDomainIsActive(dom) != 1) {
		iogap_seterr(err, errlen, "domain %s is not running (start it first: virsh start %s)",
			name, name);
		return -1;
	}
	if (virDomainGetUUIDString(dom, uuid)) {
		iogap_seterr(err, errlen, "%s: %s", name, virGetLastErrorMessage());
		return -1;
	}
	d = opendir("/proc");
	while (d && (e = readdir(d)) && !q->pid) {
		size_t len;
		char *cmd;

		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		cmd = read_proc(atoi(e->d_name), "cmdline", &len);
		/* libvirt passes -uuid UUID to every QEMU it starts */
		if (cmd) {
			const char *u = nul_list_find(cmd, len, "-uuid", false);

			if (u && u + 6 < cmd + len && !strcmp(u + 6, uuid))
				q->pid = atoi(e->d_name);
		}
		free(cmd);
	}
	if (d)
		closedir(d);
	if (!q->pid) {
		iogap_seterr(err, errlen, "the QEMU process of domain %s (uuid %s) is not on this host: "
			"iogap must run on the host that runs the domain (the filter's rings are "
			"in that host's /dev/shm)", name, uuid);
		return -1;
	}
	ring_dir_of(q);
	return 0;
}

/* The iogap filter among the objects of an LD_PRELOAD value (separated by
 * colons or spaces) into out; false when there is none. */
static bool preloaded_filter(const char *value, char *out, size_t outlen)
{
	for (const char *p = value; *p;) {
		size_t n = strcspn(p, ": ");

		snprintf(out, outlen, "%.*s", (int)n, p);
		if (iogap_is_filter_name(out))
			return true;
		p += n + (p[n] != '\0');
	}
	return false;
}

/* The filter preloaded into the domain's QEMU was built for that binary (its
 * stamp, qemubin.h): 0, or -1 naming both stamps (the filter stays inert in a
 * QEMU of another build). */
static int check_stamps(const struct iogap_lv_qemu *q, const char *filter, char *err,
			size_t errlen)
{
	char exe[64], qemu_stamp[IOGAP_QEMU_STAMP_HEX + 1] = "",
	     filter_stamp[IOGAP_QEMU_STAMP_HEX + 1] = "";

	snprintf(exe, sizeof(exe), "/proc/%d/exe", (int)q->pid);
	iogap_file_stamp(exe, qemu_stamp);
	iogap_file_stamp(filter, filter_stamp);
	if (qemu_stamp[0] && !strcmp(qemu_stamp, filter_stamp))
		return 0;
	return iogap_seterr(err, errlen, "domain %s's QEMU (pid %d, stamp %s) preloads %s, built "
			    "for another QEMU (stamp %s): the filter stays inert there; run `iogap "
			    "libvirt enable %s` (it takes the filter built for the domain's "
			    "<emulator>), then restart the domain", q->name, (int)q->pid,
			    qemu_stamp[0] ? qemu_stamp : "unknown", filter,
			    filter_stamp[0] ? filter_stamp : "none", q->name);
}

int iogap_lv_check_filter(const struct iogap_lv_qemu *q, char *err, size_t errlen)
{
	size_t elen = 0, mlen = 0;
	char *env = read_proc(q->pid, "environ", &elen);
	char *maps = read_proc(q->pid, "maps", &mlen);
	const char *pre = env ? nul_list_find(env, elen, "LD_PRELOAD=", true) : NULL;
	const char *alias = env ? nul_list_find(env, elen, "IOGAP_FILTER_ALIAS=", true) : NULL;
	char filter[PATH_MAX] = "";
	bool preloaded = pre && preloaded_filter(pre + strlen("LD_PRELOAD="), filter, sizeof(filter));
	/* " (deleted)" may follow: an object rebuilt since QEMU started */
	bool mapped = preloaded && maps && strstr(maps, filter);
	int rc = -1;

	if (!env || !maps)
		iogap_seterr(err, errlen, "cannot read /proc/%d of domain %s's QEMU: %s", (int)q->pid,
			q->name, strerror(errno));
	else if (!preloaded)
		iogap_seterr(err, errlen, "the iogap filter is not loaded in domain %s's QEMU (pid %d): "
			"run `iogap libvirt enable %s`, then restart the domain (virsh shutdown %s; "
			"virsh start %s)", q->name, (int)q->pid, q->name, q->name, q->name);
	else if (!mapped)
		iogap_seterr(err, errlen, "domain %s's QEMU (pid %d) has %s but did not load it: can the "
			"QEMU user (libvirt-qemu) read the file and its directories?", q->name,
			(int)q->pid, pre);
	else if (!alias || strcmp(alias, "IOGAP_FILTER_ALIAS=compress"))
		iogap_seterr(err, errlen, "domain %s's QEMU (pid %d) has the filter without "
			"IOGAP_FILTER_ALIAS=compress: run `iogap libvirt enable %s` and restart it",
			q->name, (int)q->pid, q->name);
	else
		rc = check_stamps(q, filter, err, errlen);
	free(env);
	free(maps);
	return rc;
}

void iogap_lv_node_name(const char *dev, char *out, size_t outlen)
{
	snprintf(out, outlen, NODE_PREFIX "%s", dev);
}

int iogap_lv_reply(const char *who, char *reply, struct jp_value *ret, char *err, size_t errlen)
{
	char perr[256];
	struct jp_value v;
	const struct jp_value *e;
	int rc = -1;

	if (jp_parse(reply, strlen(reply), false, &v, NULL, perr, sizeof(perr))) {
		iogap_seterr(err, errlen, "%s reply is not JSON: %s", who, perr);
		free(reply);
		return -1;
	}
	free(reply);
	if ((e = jp_get(&v, "error")))
		iogap_seterr(err, errlen, "%s: %s", who, jp_str(jp_get(e, "desc")) ?: "error");
	else if (!jp_get(&v, "return"))
		iogap_seterr(err, errlen, "%s reply without return", who);
	else if (ret && jp_copy(ret, jp_get(&v, "return")))
		iogap_seterr(err, errlen, "out of memory");
	else
		rc = 0;
	jp_free(&v);
	return rc;
}

int iogap_lv_qmp(virDomainPtr dom, const char *cmd, struct jp_value *ret, char *err, size_t errlen)
{
	char *reply = NULL;

	if (virDomainQemuMonitorCommand(dom, cmd, &reply, VIR_DOMAIN_QEMU_MONITOR_COMMAND_DEFAULT)) {
		iogap_seterr(err, errlen, "QMP through libvirt: %s", virGetLastErrorMessage());
		return -1;
	}
	return iogap_lv_reply("QEMU", reply, ret, err, errlen);
}

/* v as JSON text (malloc'd). */
static char *to_json(const struct jp_value *v)
{
	char *buf = NULL;
	size_t len;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	jp_write(f, v);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

static int qmp_value(virDomainPtr dom, const struct jp_value *cmd, char *err, size_t errlen)
{
	char *text = to_json(cmd);
	int rc;

	if (!text) {
		iogap_seterr(err, errlen, "out of memory");
		return -1;
	}
	rc = iogap_lv_qmp(dom, text, NULL, err, errlen);
	free(text);
	return rc;
}

/* ---- the block graph, by node name ---------------------------------------- */

struct graph_edge {
	const char *parent, *child, *name;
};

struct graph {
	struct jp_value raw;      /* x-debug-query-block-graph's return */
	size_t nr_nodes, nr_edges;
	const char **nodes;
	struct graph_edge *edges;
};

static const char *node_by_id(const struct jp_value *nodes, uint64_t id)
{
	for (size_t i = 0; nodes && i < nodes->n; i++)
		if (jp_u64(jp_get(&nodes->items[i], "id"), UINT64_MAX) == id)
			return jp_str(jp_get(&nodes->items[i], "name"));
	return NULL;
}

static void graph_free(struct graph *g)
{
	jp_free(&g->raw);
	free(g->nodes);
	free(g->edges);
	memset(g, 0, sizeof(*g));
}

static int graph_read(virDomainPtr dom, struct graph *g, char *err, size_t errlen)
{
	const struct jp_value *nodes, *edges;

	memset(g, 0, sizeof(*g));
	if (iogap_lv_qmp(dom, "{\"execute\":\"x-debug-query-block-graph\"}", &g->raw, err, errlen))
		return -1;
	nodes = jp_get(&g->raw, "nodes");
	edges = jp_get(&g->raw, "edges");
	if (!nodes || !edges || nodes->type != JP_ARRAY || edges->type != JP_ARRAY) {
		iogap_seterr(err, errlen, "x-debug-query-block-graph: unexpected reply");
		goto fail;
	}
	g->nodes = calloc(nodes->n + 1, sizeof(*g->nodes));
	g->edges = calloc(edges->n + 1, sizeof(*g->edges));
	if (!g->nodes || !g->edges) {
		iogap_seterr(err, errlen, "out of memory");
		goto fail;
	}
	for (size_t i = 0; i < nodes->n; i++)
		if ((g->nodes[g->nr_nodes] = jp_str(jp_get(&nodes->items[i], "name"))))
			g->nr_nodes++;
	for (size_t i = 0; i < edges->n; i++) {
		const struct jp_value *e = &edges->items[i];
		struct graph_edge *ge = &g->edges[g->nr_edges];

		ge->parent = node_by_id(nodes, jp_u64(jp_get(e, "parent"), UINT64_MAX));
		ge->child = node_by_id(nodes, jp_u64(jp_get(e, "child"), UINT64_MAX));
		ge->name = jp_str(jp_get(e, "name"));
		if (ge->parent && ge->child && ge->name)
			g->nr_edges++;
	}
	return 0;
fail:
	graph_free(g);
	return -1;
}

static bool graph_has_node(const struct graph *g, const char *name)
{
	for (size_t i = 0; i < g->nr_nodes; i++)
		if (!strcmp(g->nodes[i], name))
			return true;
	return false;
}

/* The child of parent through the edge called name, or NULL. */
static const char *graph_child(const struct graph *g, const char *parent, const char *name)
{
	for (size_t i = 0; i < g->nr_edges; i++)
		if (!strcmp(g->edges[i].parent, parent) && !strcmp(g->edges[i].name, name))
			return g->edges[i].child;
	return NULL;
}

/* The node whose `file` child is child, or NULL. */
static const char *graph_file_parent(const struct graph *g, const char *child)
{
	for (size_t i = 0; i < g->nr_edges; i++)
		if (!strcmp(g->edges[i].child, child) && !strcmp(g->edges[i].name, "file"))
			return g->edges[i].parent;
	return NULL;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

char *iogap_lv_graph(virDomainPtr dom, char *err, size_t errlen)
{
	struct graph g;
	char **lines, *out = NULL;
	size_t n = 0, len = 0;
	FILE *f;

	if (graph_read(dom, &g, err, errlen))
		return NULL;
	lines = calloc(g.nr_nodes + g.nr_edges + 1, sizeof(*lines));
	for (size_t i = 0; lines && i < g.nr_nodes; i++)
		if (asprintf(&lines[n], "node %s", g.nodes[i]) >= 0)
			n++;
	for (size_t i = 0; lines && i < g.nr_edges; i++)
		if (asprintf(&lines[n], "edge %s -%s-> %s", g.edges[i].parent, g.edges[i].name,
			     g.edges[i].child) >= 0)
			n++;
	f = lines ? open_memstream(&out, &len) : NULL;
	if (f) {
		qsort(lines, n, sizeof(*lines), cmp_str);
		for (size_t i = 0; i < n; i++)
			fprintf(f, "%s\n", lines[i]);
		fclose(f);
	}
	for (size_t i = 0; i < n; i++)
		free(lines[i]);
	free(lines);
	graph_free(&g);
	if (!out)
		iogap_seterr(err, errlen, "out of memory");
	return out;
}

/* ---- node options, as libvirt gave them ----------------------------------- */

/* The -blockdev JSON QEMU was started with for node, into *opts. */
static int node_options(const struct iogap_lv_qemu *q, const char *node, struct jp_value *opts,
			char *err, size_t errlen)
{
	size_t len = 0;
	char *cmd = read_proc(q->pid, "cmdline", &len);
	int rc = -1;

	for (size_t i = 0; cmd && i < len && rc; i += strlen(cmd + i) + 1) {
		const char *arg = cmd + i, *next = arg + strlen(arg) + 1;
		struct jp_value v;
		char perr[128];

		if (strcmp(arg, "-blockdev") || next >= cmd + len || *next != '{')
			continue;
		if (jp_parse(next, strlen(next), false, &v, NULL, perr, sizeof(perr)))
			continue;
		if (!strcmp(jp_str(jp_get(&v, "node-name")) ?: "", node))
			rc = jp_copy(opts, &v) ? -2 : 0;
		jp_free(&v);
	}
	free(cmd);
	if (rc == -1)
		iogap_seterr(err, errlen, "node %s is not on QEMU's command line (a hot-plugged disk?): "
			"iogap reopens a node only with the exact options it was opened with",
			node);
	else if (rc < 0)
		iogap_seterr(err, errlen, "out of memory");
	return rc < 0 ? -1 : 0;
}

/* blockdev-reopen of a node with its own options, `file` = file. */
static int reopen_with_file(const struct iogap_lv_qemu *q, const char *node, const char *file,
			    char *err, size_t errlen)
{
	struct jp_value cmd, opts, *options;
	char perr[128];
	const char *tmpl = "{\"execute\":\"blockdev-reopen\",\"arguments\":{\"options\":[]}}";
	int rc = -1;

	if (node_options(q, node, &opts, err, errlen))
		return -1;
	if (jp_parse(tmpl, strlen(tmpl), false, &cmd, NULL, perr, sizeof(perr))) {
		jp_free(&opts);
		iogap_seterr(err, errlen, "internal: %s", perr);
		return -1;
	}
	options = jp_path(&cmd, "arguments/options");
	if (jp_set_string(&opts, "file", file) || jp_array_append(options, &opts))
		iogap_seterr(err, errlen, "out of memory");
	else
		rc = qmp_value(q->dom, &cmd, err, errlen);
	jp_free(&opts);
	jp_free(&cmd);
	return rc;
}

/* blockdev-add of the filter over storage: it takes the storage node's
 * read-only, cache, discard and detect-zeroes settings, so requests pass it
 * unchanged (a filter without discard=unmap would drop the guest's
 * discards). */
static int add_filter(const struct iogap_lv_qemu *q, const char *node, const char *storage,
		      char *err, size_t errlen)
{
	static const char *const inherit[] = { "read-only", "cache", "discard", "detect-zeroes" };
	struct jp_value cmd, sopts, *args;
	char tmpl[512], perr[128];
	int rc = -1;

	if (node_options(q, storage, &sopts, err, errlen))
		return -1;
	snprintf(tmpl, sizeof(tmpl), "{\"execute\":\"blockdev-add\",\"arguments\":"
		 "{\"driver\":\"compress\",\"node-name\":\"%s\",\"file\":\"%s\"}}", node, storage);
	if (jp_parse(tmpl, strlen(tmpl), false, &cmd, NULL, perr, sizeof(perr))) {
		iogap_seterr(err, errlen, "node name %s: %s", storage, perr);
		jp_free(&sopts);
		return -1;
	}
	args = jp_get(&cmd, "arguments");
	for (size_t i = 0; i < sizeof(inherit) / sizeof(inherit[0]); i++) {
		const struct jp_value *v = jp_get(&sopts, inherit[i]);

		if (v && jp_set_value(args, inherit[i], v)) {
			iogap_seterr(err, errlen, "out of memory");
			goto out;
		}
	}
	rc = qmp_value(q->dom, &cmd, err, errlen);
out:
	jp_free(&sopts);
	jp_free(&cmd);
	return rc;
}

static int del_node(const struct iogap_lv_qemu *q, const char *node, char *err, size_t errlen)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd),
		 "{\"execute\":\"blockdev-del\",\"arguments\":{\"node-name\":\"%s\"}}", node);
	return iogap_lv_qmp(q->dom, cmd, NULL, err, errlen);
}

/* ---- the disk --------------------------------------------------------------- */

/* Disk target names are short words (vdb, sda, hdc): nothing to quote. */
static bool dev_name_ok(const char *dev)
{
	size_t n = strlen(dev);

	if (!n || n > 32)
		return false;
	for (; *dev; dev++)
		if (!islower((unsigned char)*dev) && !isdigit((unsigned char)*dev))
			return false;
	return true;
}

/* The libvirt alias of disk DEV from the live XML (<target dev='DEV'/> …
 * <alias name='A'/> inside one <disk>); "known" lists the targets seen. */
static int disk_alias(virDomainPtr dom, const char *dev, char *alias, size_t alen,
		      char *known, size_t klen)
{
	char *xml = virDomainGetXMLDesc(dom, 0), want[64];
	const char *p = xml;
	int rc = -1;

	if (!xml) {
		snprintf(known, klen, "none readable: %s", virGetLastErrorMessage());
		return -1;
	}
	known[0] = '\0';
	snprintf(want, sizeof(want), "<target dev='%s'", dev);
	while (p && (p = strstr(p, "<disk ")) && rc) {
		const char *end = strstr(p, "</disk>"), *t = strstr(p, "<target dev='");
		const char *a = strstr(p, "<alias name='");

		if (!end)
			break;
		if (t && t < end) {
			size_t kl = strlen(known);

			snprintf(known + kl, klen - kl, "%s%.*s", kl ? ", " : "",
				 (int)strcspn(t + 13, "'"), t + 13);
			if (!strncmp(t, want, strlen(want)) && a && a < end) {
				snprintf(alias, alen, "%.*s", (int)strcspn(a + 13, "'"), a + 13);
				rc = 0;
			}
		}
		p = end;
	}
	free(xml);
	return rc;
}

/* The node at the root of disk DEV's device (its format node, or a top
 * filter above it) and the device's QOM path (dpath), from query-block. */
int iogap_lv_disk_root(const struct iogap_lv_qemu *q, const char *dev, char *node, size_t nlen,
		       char dpath[400], char *err, size_t errlen)
{
	char alias[256], known[1024], qdev[400];
	struct jp_value blk;
	int rc = -1;

	if (!dev_name_ok(dev)) {
		iogap_seterr(err, errlen, "disk name '%s': give the target name (vdb, sda, ...)", dev);
		return -1;
	}
	if (disk_alias(q->dom, dev, alias, sizeof(alias), known, sizeof(known))) {
		iogap_seterr(err, errlen, "disk %s not found in domain %s (its disks: %s)", dev, q->name,
			known[0] ? known : "none");
		return -1;
	}
	if (iogap_lv_qmp(q->dom, "{\"execute\":\"query-block\"}", &blk, err, errlen))
		return -1;
	snprintf(qdev, sizeof(qdev), "/machine/peripheral/%s/", alias);
	for (size_t i = 0; blk.type == JP_ARRAY && i < blk.n && rc; i++) {
		const char *d = jp_str(jp_get(&blk.items[i], "qdev")) ?: "";
		const char *n = jp_str(jp_path(&blk.items[i], "inserted/node-name"));

		if ((!strncmp(d, qdev, strlen(qdev)) || !strcmp(d, alias)) && n) {
			snprintf(node, nlen, "%s", n);
			snprintf(dpath, 400, "%s", d);
			rc = 0;
		}
	}
	jp_free(&blk);
	if (rc)
		iogap_seterr(err, errlen, "disk %s (device %s) has no medium in QEMU", dev, alias);
	return rc;
}

/* ---- insert, remove, cleanup ------------------------------------------------ */

static bool is_iogap(const char *node)
{
	return node && !strncmp(node, NODE_PREFIX, strlen(NODE_PREFIX));
}

/* The filter node must have made its ring: else the compress in that QEMU
 * is not iogap's (the filter refused to register: its stamp guard), and the
 * node is deleted again. */
static int check_ring(const struct iogap_lv_qemu *q, const char *node, char *ring,
		      size_t ringlen, char *err, size_t errlen)
{
	char why[1024];
	struct stat st;

	snprintf(ring, ringlen, "%s/iogap-%d-%s.ring", q->ring_dir, (int)q->pid, node);
	if (!stat(ring, &st))
		return 0;
	snprintf(why, sizeof(why), "the compress driver of domain %s's QEMU is not iogap's "
		 "filter (no ring %s after blockdev-add: see the domain's QEMU log for an "
		 "iogap-filter line)", q->name, ring);
	del_node(q, node, err, errlen);
	iogap_seterr(err, errlen, "%s", why);
	return -1;
}

/* The device at dpath (a QOM path) uses node as its root from now on:
 * qom-set of its drive property, which QEMU allows on a realized device
 * (the BlockBackend's root node is replaced). */
static int set_device_root(const struct iogap_lv_qemu *q, const char *dpath, const char *node,
			   char *err, size_t errlen)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), "{\"execute\":\"qom-set\",\"arguments\":{\"path\":\"%s\","
		 "\"property\":\"drive\",\"value\":\"%s\"}}", dpath, node);
	return iogap_lv_qmp(q->dom, cmd, NULL, err, errlen);
}

void iogap_lv_top_node_name(const char *dev, char *out, size_t outlen)
{
	snprintf(out, outlen, NODE_PREFIX "top-%s", dev);
}

int iogap_lv_insert_top(const struct iogap_lv_qemu *q, const char *dev, char *ring,
			size_t ringlen, char *err, size_t errlen)
{
	char root[256], dpath[400], node[64], why[1024];

	if (iogap_lv_check_filter(q, err, errlen) ||
	    iogap_lv_disk_root(q, dev, root, sizeof(root), dpath, err, errlen))
		return -1;
	iogap_lv_top_node_name(dev, node, sizeof(node));
	if (is_iogap(root)) {
		iogap_seterr(err, errlen, "disk %s already has an iogap filter node on top (%s): "
			"`iogap libvirt cleanup %s`", dev, root, q->name);
		return -1;
	}
	if (add_filter(q, node, root, err, errlen) || check_ring(q, node, ring, ringlen, err, errlen))
		return -1;
	if (set_device_root(q, dpath, node, err, errlen)) {
		snprintf(why, sizeof(why), "%s", err);
		del_node(q, node, err, errlen);
		iogap_seterr(err, errlen, "putting the filter above %s: %s", root, why);
		return -1;
	}
	return 0;
}

/* The QOM path of the device whose root is node, into dpath; 0, 1 when no
 * device has it as its root, -1 with err. */
static int device_of_root(const struct iogap_lv_qemu *q, const char *node, char dpath[400],
			  char *err, size_t errlen)
{
	struct jp_value blk;
	int rc = 1;

	if (iogap_lv_qmp(q->dom, "{\"execute\":\"query-block\"}", &blk, err, errlen))
		return -1;
	for (size_t i = 0; blk.type == JP_ARRAY && i < blk.n && rc; i++) {
		const char *n = jp_str(jp_path(&blk.items[i], "inserted/node-name"));
		const char *d = jp_str(jp_get(&blk.items[i], "qdev"));

		if (n && d && !strcmp(n, node)) {
			snprintf(dpath, 400, "%s", d);
			rc = 0;
		}
	}
	jp_free(&blk);
	return rc;
}

int iogap_lv_insert(const struct iogap_lv_qemu *q, const char *dev, char *ring, size_t ringlen,
		    char *err, size_t errlen)
{
	char fmt[256], node[64], storage[256], why[1024];
	struct graph g;
	const char *child;
	char dpath[400];

	if (iogap_lv_check_filter(q, err, errlen) ||
	    iogap_lv_disk_root(q, dev, fmt, sizeof(fmt), dpath, err, errlen) ||
	    graph_read(q->dom, &g, err, errlen))
		return -1;
	iogap_lv_node_name(dev, node, sizeof(node));
	child = graph_child(&g, fmt, "file");
	if (graph_has_node(&g, node) || is_iogap(child) || is_iogap(fmt)) {
		iogap_seterr(err, errlen, "disk %s already has an iogap filter node (%s): `iogap libvirt "
			"remove %s --disk %s` or `iogap libvirt cleanup %s`", dev,
			graph_has_node(&g, node) ? node : is_iogap(fmt) ? fmt : child, q->name, dev,
			q->name);
		graph_free(&g);
		return -1;
	}
	if (!child) {
		iogap_seterr(err, errlen, "disk %s: format node %s has no file child", dev, fmt);
		graph_free(&g);
		return -1;
	}
	snprintf(storage, sizeof(storage), "%s", child);
	graph_free(&g);
	if (add_filter(q, node, storage, err, errlen) ||
	    check_ring(q, node, ring, ringlen, err, errlen))
		return -1;
	if (reopen_with_file(q, fmt, node, err, errlen)) {
		snprintf(why, sizeof(why), "%s", err);
		del_node(q, node, err, errlen);
		iogap_seterr(err, errlen, "reopening %s over the filter: %s", fmt, why);
		return -1;
	}
	return 0;
}

/* Take out filter node `node`: its parent gets the filter's child back. */
static int remove_node(const struct iogap_lv_qemu *q, const struct graph *g, const char *node,
		       char *err, size_t errlen)
{
	const char *parent = graph_file_parent(g, node), *child = graph_child(g, node, "file");
	char dpath[400];
	int rc = parent ? 0 : device_of_root(q, node, dpath, err, errlen);

	if (rc < 0)
		return -1;
	if ((parent || !rc) && !child) {
		iogap_seterr(err, errlen, "filter node %s has no file child", node);
		return -1;
	}
	/* a top filter: its device gets the node below back; a node added but
	 * never put in place (killed in between) has no parent at all */
	if (parent ? reopen_with_file(q, parent, child, err, errlen) :
	    !rc && set_device_root(q, dpath, child, err, errlen))
		return -1;
	return del_node(q, node, err, errlen);
}

int iogap_lv_remove(const struct iogap_lv_qemu *q, const char *dev, char *err, size_t errlen)
{
	char node[64], top[64];
	struct graph g;
	int rc;

	if (!dev_name_ok(dev)) {
		iogap_seterr(err, errlen, "disk name '%s': give the target name (vdb, sda, ...)", dev);
		return -1;
	}
	if (graph_read(q->dom, &g, err, errlen))
		return -1;
	iogap_lv_top_node_name(dev, top, sizeof(top));
	iogap_lv_node_name(dev, node, sizeof(node));
	if (!graph_has_node(&g, node) && !graph_has_node(&g, top)) {
		iogap_seterr(err, errlen, "disk %s of domain %s has no iogap filter node (%s, %s)", dev,
			q->name, top, node);
		graph_free(&g);
		return -1;
	}
	/* the top first: removing it changes no edge of the bottom's */
	rc = graph_has_node(&g, top) ? remove_node(q, &g, top, err, errlen) : 0;
	if (!rc && graph_has_node(&g, node))
		rc = remove_node(q, &g, node, err, errlen);
	graph_free(&g);
	return rc;
}

/* The first iogap node of the graph, or NULL. */
static const char *first_iogap_node(const struct graph *g)
{
	for (size_t i = 0; i < g->nr_nodes; i++)
		if (is_iogap(g->nodes[i]))
			return g->nodes[i];
	return NULL;
}

int iogap_lv_cleanup(const struct iogap_lv_qemu *q, char *err, size_t errlen)
{
	int removed = 0;

	/* one node at a time, the graph read again: a removal changes parents;
	 * bounded, should a removal ever leave its node behind */
	for (int round = 0; round < 64; round++) {
		struct graph g;
		const char *node;
		int rc;

		if (graph_read(q->dom, &g, err, errlen))
			return -1;
		node = first_iogap_node(&g);
		rc = node ? remove_node(q, &g, node, err, errlen) : 1;
		graph_free(&g);
		if (rc)
			return rc < 0 ? -1 : removed;
		removed++;
	}
	iogap_seterr(err, errlen, "iogap nodes remain after 64 removals");
	return -1;
}
