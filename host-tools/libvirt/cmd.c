/* SPDX-License-Identifier: MIT */
/* `iogap libvirt enable|disable|insert|remove|cleanup|graph DOMAIN ...` */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libvirt/virterror.h>

#include "iogap-libvirt.h"
#include "lv.h"
#include "qemubin.h"

struct lv_opts {
	const char *cmd, *domain, *uri, *disk, *filter;
};

static void usage(FILE *f)
{
	fputs("usage: iogap libvirt enable DOMAIN [--uri URI] [--filter SO]\n"
	      "       iogap libvirt disable DOMAIN [--uri URI]\n"
	      "       iogap libvirt insert DOMAIN --disk DEV [--uri URI]\n"
	      "       iogap libvirt remove DOMAIN --disk DEV [--uri URI]\n"
	      "       iogap libvirt cleanup DOMAIN [--uri URI]\n"
	      "       iogap libvirt graph DOMAIN [--uri URI]\n"
	      "\n"
	      "enable/disable: add/remove the filter preload in the domain's definition\n"
	      "(takes effect at its next start).  insert/remove: put iogap's filter node\n"
	      "below disk DEV (vdb, ...) of the running domain, or take its filter nodes\n"
	      "out; cleanup removes every iogap node left behind; graph prints QEMU's\n"
	      "block graph.  `iogap run --domain` measures such a domain.\n"
	      "See docs/libvirt.md.\n", f);
}

static int parse(int argc, char **argv, struct lv_opts *o)
{
	memset(o, 0, sizeof(*o));
	if (argc < 3)
		return -1;
	o->cmd = argv[1];
	o->domain = argv[2];
	for (int i = 3; i < argc; i++) {
		const char **slot = !strcmp(argv[i], "--uri") ? &o->uri :
				    !strcmp(argv[i], "--disk") ? &o->disk :
				    !strcmp(argv[i], "--filter") ? &o->filter : NULL;

		if (!slot || i + 1 >= argc)
			return -1;
		*slot = argv[++i];
	}
	if ((!strcmp(o->cmd, "insert") || !strcmp(o->cmd, "remove")) != !!o->disk)
		return -1;
	return 0;
}

/* The filter for the domain's <emulator>, chosen by its stamp (qemubin.h):
 * --filter or $IOGAP_FILTER_SO, checked, else the one built for that binary;
 * an absolute path (QEMU's cwd differs). */
static int filter_for(const char *xml, const char *given, char *out, size_t outlen)
{
	const char *e = strstr(xml, "<emulator>"), *end = e ? strstr(e, "</emulator>") : NULL;
	char emulator[PATH_MAX], dirs[2][PATH_MAX], err[4096];
	struct iogap_qemu q;

	if (!end) {
		fprintf(stderr, "iogap: the domain's definition has no <emulator>\n");
		return -1;
	}
	e += strlen("<emulator>");
	snprintf(emulator, sizeof(emulator), "%.*s", (int)(end - e), e);
	if (iogap_qemu_identify(emulator, &q, err, sizeof(err)) ||
	    iogap_qemu_filter(&q, given ?: getenv("IOGAP_FILTER_SO"), dirs, iogap_filter_dirs(dirs),
			      err, sizeof(err))) {
		fprintf(stderr, "iogap: %s\n", err);
		return -1;
	}
	snprintf(out, outlen, "%s", q.filter);
	return 0;
}

/* enable / disable: the persistent definition, read, edited and defined again. */
static int redefine(virConnectPtr conn, virDomainPtr dom, const struct lv_opts *o)
{
	bool enable = !strcmp(o->cmd, "enable");
	char so[PATH_MAX], err[1024];
	char *xml, *out = NULL;
	struct stat st;
	int rc;

	if (virDomainIsPersistent(dom) != 1) {
		fprintf(stderr, "iogap: domain %s is transient: it has no definition to change\n",
			o->domain);
		return 1;
	}
	/* SECURE: passwords stay in the definition we write back */
	xml = virDomainGetXMLDesc(dom, VIR_DOMAIN_XML_INACTIVE | VIR_DOMAIN_XML_SECURE);
	if (!xml) {
		fprintf(stderr, "iogap: %s: %s\n", o->domain, virGetLastErrorMessage());
		return 1;
	}
	if (enable && filter_for(xml, o->filter, so, sizeof(so))) {
		free(xml);
		return 1;
	}
	rc = enable ? iogap_domxml_enable(xml, so, &out, err, sizeof(err)) :
		      iogap_domxml_disable(xml, &out, err, sizeof(err));
	free(xml);
	if (rc < 0) {
		fprintf(stderr, "iogap: %s: %s\n", o->domain, err);
		return 1;
	}
	if (rc == 1) {
		printf("iogap: domain %s: %s\n", o->domain, enable ? "the filter preload is "
		       "already in its definition" : "no iogap preload in its definition");
		return 0;
	}
	dom = virDomainDefineXML(conn, out);
	free(out);
	if (!dom) {
		fprintf(stderr, "iogap: %s: libvirt refused the changed definition: %s\n",
			o->domain, virGetLastErrorMessage());
		return 1;
	}
	virDomainFree(dom);
	printf("iogap: domain %s: filter preload %s its definition; this takes effect at the "
	       "domain's next start (a running domain keeps its QEMU until then)\n", o->domain,
	       enable ? "added to" : "removed from");
	if (enable && !stat(so, &st) && !(st.st_mode & S_IROTH))
		fprintf(stderr, "iogap: warning: %s is not readable by other users: the QEMU user "
			"(libvirt-qemu) must be able to read it\n", so);
	return 0;
}

static int live(virDomainPtr dom, const struct lv_opts *o)
{
	struct iogap_lv_qemu q;
	char err[2048], ring[4400], node[64], *graph;
	int n;

	if (!strcmp(o->cmd, "graph")) {
		graph = virDomainIsActive(dom) == 1 ? iogap_lv_graph(dom, err, sizeof(err)) : NULL;
		if (!graph) {
			fprintf(stderr, "iogap: %s: %s\n", o->domain,
				virDomainIsActive(dom) == 1 ? err : "not running");
			return 1;
		}
		fputs(graph, stdout);
		free(graph);
		return 0;
	}
	if (iogap_lv_qemu_find(dom, o->domain, &q, err, sizeof(err))) {
		fprintf(stderr, "iogap: %s\n", err);
		return 1;
	}
	if (!strcmp(o->cmd, "insert")) {
		if (iogap_lv_insert(&q, o->disk, ring, sizeof(ring), err, sizeof(err)))
			goto fail;
		iogap_lv_node_name(o->disk, node, sizeof(node));
		printf("iogap: filter node %s inserted below disk %s of domain %s; ring %s\n", node,
		       o->disk, o->domain, ring);
		return 0;
	}
	if (!strcmp(o->cmd, "remove")) {
		if (iogap_lv_remove(&q, o->disk, err, sizeof(err)))
			goto fail;
		printf("iogap: filter removed from disk %s of domain %s\n", o->disk, o->domain);
		return 0;
	}
	n = iogap_lv_cleanup(&q, err, sizeof(err));
	if (n < 0)
		goto fail;
	printf("iogap: domain %s: %d iogap filter node%s removed\n", o->domain, n, n == 1 ? "" : "s");
	return 0;
fail:
	fprintf(stderr, "iogap: %s\n", err);
	return 1;
}

int iogap_cmd_libvirt(int argc, char **argv)
{
	static const char *const cmds[] = { "enable", "disable", "insert", "remove", "cleanup",
					    "graph" };
	struct lv_opts o;
	virConnectPtr conn;
	virDomainPtr dom;
	bool known = false;
	int rc;

	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "help"))) {
		usage(stdout);
		return 0;
	}
	for (size_t i = 0; argc > 1 && i < sizeof(cmds) / sizeof(cmds[0]); i++)
		known = known || !strcmp(argv[1], cmds[i]);
	if (!known || parse(argc, argv, &o)) {
		usage(stderr);
		return 2;
	}
	virSetErrorFunc(NULL, iogap_lv_quiet_errors);
	conn = virConnectOpen(o.uri);
	if (!conn) {
		fprintf(stderr, "iogap: cannot connect to libvirt%s%s: %s\n", o.uri ? " at " : "",
			o.uri ?: "", virGetLastErrorMessage());
		return 1;
	}
	dom = virDomainLookupByName(conn, o.domain);
	if (!dom) {
		fprintf(stderr, "iogap: domain %s: %s\n", o.domain, virGetLastErrorMessage());
		virConnectClose(conn);
		return 1;
	}
	rc = !strcmp(o.cmd, "enable") || !strcmp(o.cmd, "disable") ? redefine(conn, dom, &o) :
		live(dom, &o);
	virDomainFree(dom);
	virConnectClose(conn);
	return rc;
}
