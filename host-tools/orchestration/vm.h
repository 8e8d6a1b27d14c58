/* SPDX-License-Identifier: MIT */
/* Starting the guest: QEMU command line, the filter preload, KVM detection. */
#ifndef IOGAP_VM_H
#define IOGAP_VM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "child.h"

enum iogap_target_kind {
	IOGAP_TARGET_FILE, IOGAP_TARGET_DEV, IOGAP_TARGET_NULL, IOGAP_TARGET_RBD,
	IOGAP_TARGET_ZNS,         /* a file behind QEMU's emulated ZNS namespace */
};

struct iogap_target {
	enum iogap_target_kind kind;
	char path[4096];          /* file or device */
	char format[16];          /* raw or qcow2 (file targets) */
	uint64_t size;            /* null: size in bytes */
	uint64_t zone_size;       /* zns: zone size in bytes */
	uint64_t latency_ns;      /* null: latency-ns */
	char pool[128], image[256]; /* rbd: the image */
	char conf[1024];          /* rbd: ceph.conf ("" = CEPH_CONF or Ceph's default) */
	char id[128];             /* rbd: client id ("" = admin) */
};

/* "file:PATH", "dev:PATH", "null:SIZE[,latency-ns=N]",
 * "rbd:POOL/IMAGE[,conf=PATH][,id=USER]", "zns:PATH[,zone-size=SIZE]".
 * 0 or -1 + err. */
int iogap_target_parse(const char *spec, struct iogap_target *t, char *err, size_t errlen);

/* rbd targets: the librbd cache settings the configuration gives (conf,
 * CEPH_CONF, CEPH_ARGS; no connection), as "rbd_cache=true ...".  0 or -1
 * with the reason in out. */
int iogap_rbd_cache_settings(const struct iogap_target *t, char *out, size_t len);

struct iogap_vm_config {
	const char *qemu;         /* qemu-system-x86_64 */
	const char *kernel, *initrd;
	const char *filter_so;    /* LD_PRELOADed; NULL = no filter nodes */
	const char *accel;        /* "kvm" or "tcg" */
	const char *machine;      /* "pc" */
	unsigned smp, memory_mb;
	const char *cache;        /* none, writeback, ... */
	const char *aio;          /* native, io_uring, threads */
	bool iothread;
	uint64_t inject_delay_ns; /* test only: delay-ns= on the bottom filter node */
	unsigned ring_size;       /* records per filter ring; 0: the filter's default */
	uint64_t run_id;          /* run-id= of both filter nodes: in their ring headers */
	const char *mode;         /* guest init mode: "agent", "marker" */
	const char *append_extra; /* more kernel command line */
	const char *dir;          /* where sockets, rings, logs go */
	const struct iogap_target *target;   /* NULL: no disk */
	bool read_only;           /* the jobs only read: QEMU opens the drive read-only */
	/* NULL: the target behind virtio-blk (with filter nodes when
	 * filter_so); "nvme": the target on QEMU's emulated NVMe, no filter (a
	 * stand-in for an assigned device); else a PCI address given to the
	 * guest with vfio-pci (no drive at all) */
	const char *passthrough;
};

struct iogap_vm {
	struct iogap_child qemu;
	char ctl_sock[4096];
	char console[4096];
	char top_ring[4096], bottom_ring[4096];
	char cmdline_file[4096], stderr_file[4096];
};

/* The target's device node inside iogap's guest: /dev/vda, or /dev/nvme0n1
 * for zns targets and a passed-through device (passthrough non-NULL). */
const char *iogap_target_guest_dev(const struct iogap_target *t, const char *passthrough);

/* Start QEMU in the background; writes the command line to dir/qemu.cmdline. */
int iogap_vm_start(const struct iogap_vm_config *cfg, struct iogap_vm *vm, char *err, size_t errlen);
/* Wait for QEMU to exit until deadline_ns or an interrupt.  Its exit
 * status, or -1 when it still runs (iogap_vm_kill it). */
int iogap_vm_wait(struct iogap_vm *vm, uint64_t deadline_ns);
/* Stop QEMU (SIGTERM, then SIGKILL after 3 s) and reap it. */
void iogap_vm_kill(struct iogap_vm *vm);
/* When QEMU has ended by itself: "QEMU exited (exit status 1): <its last
 * stderr lines>", and true; false while it runs. */
bool iogap_vm_ended(struct iogap_vm *vm, char *why, size_t whylen);

/* Can QEMU open the target with every driver it needs (rbd is a module of
 * its own package), and is it free of other users' locks?  qemu-img opens
 * the block graph without the filter, in seconds.  0, or -1 with QEMU's
 * message in err. */
int iogap_vm_check_target(const struct iogap_vm_config *cfg, char *err, size_t errlen);

/* Does KVM really run a guest here?  A timed boot of the marker guest
 * (DESIGN: -accel kvm can be accepted and then spin forever).  Fills why. */
bool iogap_kvm_usable(const struct iogap_vm_config *base, char *why, size_t whylen);

/* Last lines of a file, for error messages. */
void iogap_tail_file(const char *path, char *out, size_t outlen, int lines);

#endif
