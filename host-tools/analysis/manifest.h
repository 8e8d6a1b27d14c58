/* SPDX-License-Identifier: MIT */
/*
 * RUN/manifest.json, read here only (its fields: docs/iogap-run.md, "Run
 * directory").  `iogap run` writes it with the key names below.
 */
#ifndef IOGAP_MANIFEST_H
#define IOGAP_MANIFEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "json_parse.h"
#include "sides.h"

#define IOGAP_MANIFEST_FILE "manifest.json"

/* top-level keys */
#define IOGAP_MF_RUN_ID "run_id"          /* 16 hex digits */
#define IOGAP_MF_TARGET "target"          /* object: spec, format, ... */
#define IOGAP_MF_VM "vm"                  /* object: accel, inject_delay_ns, ... */
#define IOGAP_MF_PHASES "phases"          /* object: one per side, by iogap_side_key, or
					   * an imported side's label */
#define IOGAP_MF_CLOCK "clock"            /* object: offset_ns, ... */
#define IOGAP_MF_KERNEL_POINTS "kernel_points"  /* object: per side key, {trace, why} */
/* members */
#define IOGAP_MF_SPEC "spec"
#define IOGAP_MF_FORMAT "format"
#define IOGAP_MF_ACCEL "accel"
#define IOGAP_MF_INJECT_DELAY "inject_delay_ns"   /* only when set */
#define IOGAP_MF_MEMORY "memory_mb"
#define IOGAP_MF_PASSTHROUGH "passthrough"   /* in vm: the assigned device ("nvme",
					       * "vfio-pci,host=BDF"); "": none */
/* in vm: the QEMU binary run, the first line of its --version, its
 * qemu_stamp_ hex, and the stamp of the filter loaded into it ("": none) */
#define IOGAP_MF_QEMU "qemu"
#define IOGAP_MF_QEMU_VERSION "qemu_version"
#define IOGAP_MF_QEMU_STAMP "qemu_stamp"
#define IOGAP_MF_FILTER_STAMP "filter_stamp"
#define IOGAP_MF_OFFSET "offset_ns"
#define IOGAP_MF_IMPORTED "imported"      /* in a phase: `iogap import` wrote it */
#define IOGAP_MF_STATUS "status"
#define IOGAP_MF_MESSAGE "message"
#define IOGAP_MF_KTRACE "trace"           /* in kernel_points.SIDE: "SIDE/kernel.trace" or "" */
#define IOGAP_MF_KWHY "why"               /* in kernel_points.SIDE: why it has none, or "" */
#define IOGAP_MF_KP_VM_HOST "vm_host"     /* in kernel_points: the host kernel under QEMU */

/* files of a side's directory (docs/iogap-run.md, "Run directory") */
#define IOGAP_KERNEL_TRACE "kernel.trace" /* the probe's --kernel-trace */
#define IOGAP_EXTENTS_FILE "extents.txt"  /* bare/, vm/: a file target's extents (extents.h) */
/* vm/: QEMU's query-blockstats of the device before and after, with latency
 * histograms (iogap run --domain; docs/libvirt.md) */
#define IOGAP_BLOCKSTATS_FILE "blockstats.json"
#define IOGAP_HOST_KERNEL_TRACE "host-kernel.trace"  /* vm/: the host kernel under QEMU */

struct iogap_manifest {
	bool present;             /* read and parsed; all else is zero otherwise */
	struct jp_value doc;      /* the whole document; strings below point into it */
	uint64_t run_id;          /* 0: none recorded */
	const char *target_spec;  /* NULL when absent */
	const char *accel;        /* "" when absent */
	uint64_t inject_delay_ns;
	uint64_t null_latency_ns; /* a null: target's latency-ns= */
	uint64_t vm_memory_mb;    /* 0 when absent */
	/* vm.passthrough: the guest's disk was a device given to it without
	 * QEMU's block layer (no filter nodes, no filter traces); "" when not */
	const char *passthrough;
	int64_t clock_offset_ns;  /* guest minus host; 0 when absent */
	bool kernel_points;       /* kernel_points recorded (phase[].kernel_why) */
	const char *vm_host_kernel_why;   /* kernel_points.vm_host.why; NULL: none given */
	struct {
		const char *status, *message;     /* NULL: the phase is not recorded */
		const char *kernel_why;           /* why no kernel points; NULL: not recorded */
	} phase[IOGAP_SIDES];
};

/* What defines a run's configuration (what ran and against what, not when
 * or where): "object/member" paths, NULL-terminated. */
extern const char *const iogap_manifest_config[];

/* Was the phase (a side key or an imported label) imported? */
bool iogap_manifest_imported(const struct iogap_manifest *m, const char *phase);

/* DIR/manifest.json: 0, or -1 with err ("PATH: No such file or directory",
 * "PATH: <parse error>"), or IOGAP_MANIFEST_BAD_ID when its run_id is no
 * run id (1 to 16 hex digits: a longer one would be cut to 64 bits and
 * could match another run's); m is then not present. */
#define IOGAP_MANIFEST_BAD_ID (-2)
int iogap_manifest_read(const char *dir, struct iogap_manifest *m, char *err, size_t errlen);
void iogap_manifest_free(struct iogap_manifest *m);

#endif
