/* SPDX-License-Identifier: MIT */
/* Inside host-tools/libvirt: the domain XML edits and the live filter node. */
#ifndef IOGAP_LV_H
#define IOGAP_LV_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <libvirt/libvirt.h>

/*
 * Add the preload (<qemu:env> LD_PRELOAD=filter_so, IOGAP_FILTER_ALIAS=
 * compress) to a domain definition XML.  0 with the new XML in *out
 * (malloc'd), 1 when it is already there (nothing to do), -1 with err (e.g.
 * another LD_PRELOAD is set).
 */
int iogap_domxml_enable(const char *xml, const char *filter_so, char **out,
			char *err, size_t errlen);
/* Remove what enable added (and the empty block / namespace it created).
 * 0 with *out, 1 when there is nothing of iogap's, -1 with err. */
int iogap_domxml_disable(const char *xml, char **out, char *err, size_t errlen);

/* A running domain's QEMU, seen from this host. */
struct iogap_lv_qemu {
	virDomainPtr dom;
	const char *name;
	pid_t pid;
	char ring_dir[4096];      /* IOGAP_FILTER_RING_DIR of that QEMU, else /dev/shm */
};

/* Find the QEMU process of a running domain on this host (by its UUID on
 * the command line).  0, or -1 with err. */
int iogap_lv_qemu_find(virDomainPtr dom, const char *name, struct iogap_lv_qemu *q,
		       char *err, size_t errlen);
/* Is iogap's filter loaded in it under the compress alias?  0, or -1 with
 * err naming the `iogap libvirt enable` command. */
int iogap_lv_check_filter(const struct iogap_lv_qemu *q, char *err, size_t errlen);

/* The filter node iogap puts below disk DEV: "iogap-DEV". */
void iogap_lv_node_name(const char *dev, char *out, size_t outlen);

/* Insert the filter below DEV's format node; *ring receives its ring path. */
int iogap_lv_insert(const struct iogap_lv_qemu *q, const char *dev, char *ring, size_t ringlen,
		    char *err, size_t errlen);
/* Remove the filter node of DEV: the format node gets its child back. */
int iogap_lv_remove(const struct iogap_lv_qemu *q, const char *dev, char *err, size_t errlen);
/* Remove every iogap-* node (a run killed mid-way); the count or -1. */
int iogap_lv_cleanup(const struct iogap_lv_qemu *q, char *err, size_t errlen);
/* The block graph by names, one sorted "parent -edge-> child" line each,
 * plus "node NAME" lines (malloc'd), or NULL with err. */
char *iogap_lv_graph(virDomainPtr dom, char *err, size_t errlen);

#endif
