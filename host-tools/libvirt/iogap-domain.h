/* SPDX-License-Identifier: MIT */
/* `iogap run --domain`: the VM side in a running libvirt domain (docs/libvirt.md). */
#ifndef IOGAP_DOMAIN_H
#define IOGAP_DOMAIN_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct iogap_domain;
struct iogap_sync_sample;

/*
 * Connect (uri NULL: libvirt's default), find the running domain's QEMU on
 * this host, check the filter is loaded there, remove iogap nodes an
 * earlier run left behind (*leftovers: how many), find disk DEV and make
 * sure the guest agent answers.  NULL with err.
 */
struct iogap_domain *iogap_domain_open(const char *uri, const char *name, const char *dev,
				       int *leftovers, char *err, size_t errlen);
void iogap_domain_close(struct iogap_domain *d);

/* The disk's backend as an iogap target (file:PATH, dev:PATH, rbd:POOL/IMAGE). */
const char *iogap_domain_target(const struct iogap_domain *d);
/* The disk's <driver type> (raw, qcow2, ...). */
const char *iogap_domain_format(const struct iogap_domain *d);
/* "kvm", "tcg" (<domain type='qemu'>), or "" for another type. */
const char *iogap_domain_accel(const struct iogap_domain *d);
/* The guest agent's name and version ("qemu-ga 7.2.22"). */
const char *iogap_domain_agent(const struct iogap_domain *d);
/* Its virtual CPUs and memory (virDomainGetInfo; 0 when unknown). */
void iogap_domain_size(const struct iogap_domain *d, unsigned *vcpus, uint64_t *memory_mb);
bool iogap_domain_read_only(const struct iogap_domain *d);
bool iogap_domain_shareable(const struct iogap_domain *d);
/* The disk's device in the guest (/dev/vdX, /dev/sdX), found by its PCI
 * address, its controller's and drive address, or its serial. */
int iogap_domain_guest_dev(struct iogap_domain *d, char *out, size_t outlen, char *err,
			   size_t errlen);
/* Is the guest using the disk (mounted, or held by another device)?  0
 * (no), 1 with why, -1 with why. */
int iogap_domain_guest_busy(struct iogap_domain *d, const char *gdev, char *why, size_t whylen);

/* Files into and out of the guest; exec: executable.  0, or -1 with err. */
int iogap_domain_put(struct iogap_domain *d, const char *host_path, const char *guest_path,
		     bool exec, char *err, size_t errlen);
int iogap_domain_get(struct iogap_domain *d, const char *guest_path, const char *host_path,
		     char *err, size_t errlen);
/* Run argv in the guest, with env (NAME=value, NULL-ended) as its whole
 * environment when not NULL or empty (else qemu-ga's), until it exits (*status), the deadline passes
 * or *cancel is set (then it is killed in the guest).  err_tail: the end of
 * its stderr.  0 when it exited, -1 with err. */
int iogap_domain_exec(struct iogap_domain *d, const char *const *argv, const char *const *env,
		      uint64_t deadline_ns,
		      const volatile sig_atomic_t *cancel, int *status, char *err_tail,
		      size_t taillen, char *err, size_t errlen);
/* n clock sync rounds through the agent. */
int iogap_domain_sync(struct iogap_domain *d, struct iogap_sync_sample *s, size_t n,
		      char *err, size_t errlen);

/* Insert the top and bottom filters live (their rings into top_ring and
 * bottom_ring, 4096 bytes each), the graph kept as found before. */
int iogap_domain_insert(struct iogap_domain *d, char *top_ring, char *bottom_ring, char *err,
			size_t errlen);
/* Remove them; -1 with err also when the graph is not as found. */
int iogap_domain_remove(struct iogap_domain *d, char *err, size_t errlen);

/* QEMU's statistics of the disk's device: query-blockstats before and
 * after, latency histograms (block-latency-histogram-set at begin), into
 * a JSON file at end.  The text summary into summary. */
int iogap_domain_stats_begin(struct iogap_domain *d, char *err, size_t errlen);
int iogap_domain_stats_end(struct iogap_domain *d, const char *json_path, char *summary,
			   size_t sumlen, char *err, size_t errlen);

#endif
