/* SPDX-License-Identifier: MIT */
/* Inside host-tools/libvirt: the domain XML edits and the live filter node. */
#ifndef IOGAP_LV_H
#define IOGAP_LV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>

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
/* Remove the filter nodes of DEV (top, bottom: whichever are there); the
 * nodes below get their parents back. */
int iogap_lv_remove(const struct iogap_lv_qemu *q, const char *dev, char *err, size_t errlen);
/* Remove every iogap-* node (a run killed mid-way); the count or -1. */
int iogap_lv_cleanup(const struct iogap_lv_qemu *q, char *err, size_t errlen);
/* The block graph by names, one sorted "parent -edge-> child" line each,
 * plus "node NAME" lines (malloc'd), or NULL with err. */
char *iogap_lv_graph(virDomainPtr dom, char *err, size_t errlen);

/* Put a filter node, iogap-top-DEV, above disk DEV's root node (the device
 * then uses it: qom-set of the device's drive); *ring its ring. */
int iogap_lv_insert_top(const struct iogap_lv_qemu *q, const char *dev, char *ring,
			size_t ringlen, char *err, size_t errlen);
void iogap_lv_top_node_name(const char *dev, char *out, size_t outlen);

struct jp_value;
/* One QMP command through libvirt; its "return" into *ret (if not NULL). */
int iogap_lv_qmp(virDomainPtr dom, const char *cmd, struct jp_value *ret, char *err,
		 size_t errlen);
/* A QMP or guest agent reply (freed here) from who: its "return" into *ret. */
int iogap_lv_reply(const char *who, char *reply, struct jp_value *ret, char *err, size_t errlen);

/* libvirt prints every error on stderr by default: iogap says it once,
 * itself (virSetErrorFunc). */
void iogap_lv_quiet_errors(void *data, virErrorPtr e);

/* The node at the root of disk DEV's device (its format node, or a top
 * filter above it) and the device's QOM path (dpath), from query-block. */
int iogap_lv_disk_root(const struct iogap_lv_qemu *q, const char *dev, char *node, size_t nlen,
		       char dpath[400], char *err, size_t errlen);

/* A domain disk from its live XML. */
struct iogap_lv_disk {
	char spec[4200];          /* iogap's target: file:PATH, dev:PATH, rbd:POOL/IMAGE */
	char format[16];          /* <driver type>: raw, qcow2, ... */
	bool read_only, shareable;
	char serial[64];          /* "" without <serial> */
	bool has_pci;             /* <address type='pci'>: domain, bus, slot, function */
	int pci[4];
	char bus[16];             /* <target bus>: virtio, scsi, sata, ide, ... */
	bool has_drive;           /* <address type='drive'>: on a controller */
	int drive[4];             /* its controller (index), bus, target, unit */
	bool has_ctrl_pci;        /* that controller's <address type='pci'> */
	int ctrl_pci[4];
};
int iogap_lv_disk_info(virDomainPtr dom, const char *dev, struct iogap_lv_disk *d, char *err,
		       size_t errlen);
/* The same from the live XML's text. */
int iogap_lv_disk_from_xml(const char *xml, const char *dev, struct iogap_lv_disk *d, char *err,
			   size_t errlen);

/* Which of qemu-ga's guest-get-disks entries (disks, its "return") is disk
 * d: a virtio-blk disk by its PCI address; a disk on a SCSI, SATA or IDE
 * controller by the controller's PCI address and the bus/target/unit of
 * its drive address (each as qemu-ga reports that bus); either also by
 * <serial> (as is, or as udev presents it).  The number of whole disks that
 * match; their names, space-separated, in out. */
size_t iogap_lv_guest_disk(const struct jp_value *disks, const struct iogap_lv_disk *d,
			   char *out, size_t outlen);

/* The guest agent (ga.c); guest paths without quotes.  0, or -1 with err. */
int iogap_ga_cmd(virDomainPtr dom, const char *cmd, int timeout_s, struct jp_value *ret,
		 char *err, size_t errlen);
int iogap_ga_put(virDomainPtr dom, const char *guest_path, const void *data, size_t len,
		 char *err, size_t errlen);
int iogap_ga_get(virDomainPtr dom, const char *guest_path, const char *host_path, char *err,
		 size_t errlen);
/* guest-exec of argv (argv[0] a path, or a name looked up in the guest's
 * PATH); env (NAME=value, NULL-ended), when not NULL or empty, is its whole
 * environment (qemu-ga's rule), else it has qemu-ga's. */
int iogap_ga_exec_start(virDomainPtr dom, const char *const *argv, const char *const *env,
			int64_t *pid, char *err, size_t errlen);
/* 1 when it has exited (*status: exit code, 128 + signal; err_tail: the end
 * of its stderr, else of its stdout), 0 while it runs, -1 with err. */
int iogap_ga_exec_poll(virDomainPtr dom, int64_t pid, int *status, char *err_tail,
		       size_t taillen, char *err, size_t errlen);
/* Clock sync rounds: the guest's CLOCK_MONOTONIC between two host stamps. */
int iogap_ga_clock(virDomainPtr dom, uint64_t *t_send, uint64_t *guest_ns, uint64_t *t_recv,
		   char *err, size_t errlen);

#endif
