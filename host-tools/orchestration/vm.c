/* SPDX-License-Identifier: MIT */
/*
 * The guest VM: the target behind virtio-blk with iogap filter nodes at
 * the top (device -> filter -> format) and the bottom (format -> filter
 * -> protocol), a virtio-serial control port, console to a file.  The
 * filter driver is not in QEMU's QAPI enum, so the disk is described as a
 * json: filename on -drive (docs/architecture.md, "QEMU").
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <rados/librados.h>

#include "util.h"
#include "job.h"
#include "json_writer.h"
#include "qemubin.h"
#include "ringmap.h"
#include "vm.h"

int iogap_target_parse(const char *spec, struct iogap_target *t, char *err, size_t errlen)
{
	memset(t, 0, sizeof(*t));
	if (!strncmp(spec, "file:", 5) || !strncmp(spec, "dev:", 4)) {
		const char *path = strchr(spec, ':') + 1;
		struct stat st;
		char magic[4] = { 0 };
		int fd;

		t->kind = spec[0] == 'f' ? IOGAP_TARGET_FILE : IOGAP_TARGET_DEV;
		if (!*path || strlen(path) >= sizeof(t->path)) {
			snprintf(err, errlen, "--target %s: missing or too long path", spec);
			return -1;
		}
		snprintf(t->path, sizeof(t->path), "%s", path);
		if (stat(path, &st)) {
			snprintf(err, errlen, "--target %s: %s", spec, strerror(errno));
			return -1;
		}
		if (t->kind == IOGAP_TARGET_DEV && !S_ISBLK(st.st_mode)) {
			snprintf(err, errlen, "--target %s: not a block device", spec);
			return -1;
		}
		if (t->kind == IOGAP_TARGET_FILE && !S_ISREG(st.st_mode)) {
			snprintf(err, errlen, "--target %s: not a regular file (use dev: for devices)", spec);
			return -1;
		}
		snprintf(t->format, sizeof(t->format), "raw");
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			if (read(fd, magic, 4) == 4 && !memcmp(magic, "QFI\xfb", 4))
				snprintf(t->format, sizeof(t->format), "qcow2");
			close(fd);
		}
		return 0;
	}
	if (!strncmp(spec, "null:", 5)) {
		char buf[256], *comma;

		t->kind = IOGAP_TARGET_NULL;
		snprintf(buf, sizeof(buf), "%s", spec + 5);
		comma = strchr(buf, ',');
		if (comma)
			*comma++ = '\0';
		if (iogap_parse_size(buf, &t->size) || t->size == 0) {
			snprintf(err, errlen, "--target %s: bad size '%s'", spec, buf);
			return -1;
		}
		while (comma && *comma) {
			char *next = strchr(comma, ',');
			unsigned long long v;
			char *end;

			if (next)
				*next++ = '\0';
			if (strncmp(comma, "latency-ns=", 11)) {
				snprintf(err, errlen, "--target %s: unknown null option '%s'", spec, comma);
				return -1;
			}
			errno = 0;
			v = strtoull(comma + 11, &end, 10);
			if (errno || *end || end == comma + 11) {
				snprintf(err, errlen, "--target %s: bad latency-ns", spec);
				return -1;
			}
			t->latency_ns = v;
			comma = next;
		}
		return 0;
	}
	if (!strncmp(spec, "zns:", 4)) {
		char buf[4200], *comma;
		struct stat st;

		t->kind = IOGAP_TARGET_ZNS;
		t->zone_size = 8ULL << 20;   /* QEMU's nvme-ns default is 128 MiB; 8 MiB suits tests */
		snprintf(t->format, sizeof(t->format), "raw");
		snprintf(buf, sizeof(buf), "%s", spec + 4);
		comma = strchr(buf, ',');
		if (comma)
			*comma++ = '\0';
		if (!buf[0] || strlen(buf) >= sizeof(t->path) || strpbrk(buf, "\"\\")) {
			snprintf(err, errlen, "--target %s: expected zns:PATH[,zone-size=SIZE]", spec);
			return -1;
		}
		snprintf(t->path, sizeof(t->path), "%s", buf);
		if (stat(t->path, &st) || !S_ISREG(st.st_mode)) {
			snprintf(err, errlen, "--target %s: %s", spec,
				 errno && !S_ISREG(st.st_mode) ? strerror(errno) : "not a regular file");
			return -1;
		}
		if (comma) {
			if (strncmp(comma, "zone-size=", 10) || iogap_parse_size(comma + 10, &t->zone_size) ||
			    t->zone_size < 4096 || t->zone_size & (t->zone_size - 1)) {
				snprintf(err, errlen, "--target %s: zone-size must be a power of two >= 4k", spec);
				return -1;
			}
		}
		if ((uint64_t)st.st_size < t->zone_size || (uint64_t)st.st_size % t->zone_size) {
			snprintf(err, errlen, "--target %s: the file's size (%lld) must be a multiple of the "
				 "zone size (%" PRIu64 ")", spec, (long long)st.st_size, t->zone_size);
			return -1;
		}
		return 0;
	}
	if (!strncmp(spec, "rbd:", 4)) {
		char buf[2048], *opt, *slash;

		t->kind = IOGAP_TARGET_RBD;
		snprintf(t->format, sizeof(t->format), "raw");
		snprintf(buf, sizeof(buf), "%s", spec + 4);
		/* names go into QEMU's json: and the probe's options as they are */
		if (strpbrk(buf, "\"\\ ")) {
			snprintf(err, errlen, "--target %s: quotes, backslashes and spaces are not supported",
				 spec);
			return -1;
		}
		opt = strchr(buf, ',');
		if (opt)
			*opt++ = '\0';
		slash = strchr(buf, '/');
		if (!slash || slash == buf || !slash[1] || strchr(slash + 1, '/') ||
		    (size_t)(slash - buf) >= sizeof(t->pool) || strlen(slash + 1) >= sizeof(t->image)) {
			snprintf(err, errlen, "--target %s: expected rbd:POOL/IMAGE[,conf=PATH][,id=USER]",
				 spec);
			return -1;
		}
		*slash = '\0';
		memcpy(t->pool, buf, strlen(buf) + 1);            /* lengths checked above */
		memcpy(t->image, slash + 1, strlen(slash + 1) + 1);
		while (opt && *opt) {
			char *next = strchr(opt, ',');

			if (next)
				*next++ = '\0';
			if (!strncmp(opt, "conf=", 5) && opt[5] && strlen(opt + 5) < sizeof(t->conf)) {
				memcpy(t->conf, opt + 5, strlen(opt + 5) + 1);
			} else if (!strncmp(opt, "id=", 3) && opt[3] && strlen(opt + 3) < sizeof(t->id)) {
				memcpy(t->id, opt + 3, strlen(opt + 3) + 1);
			} else {
				snprintf(err, errlen, "--target %s: unknown or bad rbd option '%s' "
					 "(conf=PATH, id=USER)", spec, opt);
				return -1;
			}
			opt = next;
		}
		return 0;
	}
	snprintf(err, errlen, "--target %s: expected file:PATH, dev:PATH, null:SIZE[,latency-ns=N] "
		 "or rbd:POOL/IMAGE[,conf=PATH][,id=USER]", spec);
	return -1;
}

int iogap_rbd_cache_settings(const struct iogap_target *t, char *out, size_t len)
{
	static const char *keys[] = { "rbd_cache", "rbd_cache_policy", "rbd_cache_size",
				      "rbd_cache_max_dirty", "rbd_cache_writethrough_until_flush" };
	const char *conf = t->conf[0] ? t->conf : getenv("CEPH_CONF");
	rados_t cluster;
	size_t used = 0;
	int r;

	out[0] = '\0';
	r = rados_create(&cluster, t->id[0] ? t->id : NULL);
	if (r < 0) {
		snprintf(out, len, "rados_create: %s", strerror(-r));
		return -1;
	}
	r = rados_conf_read_file(cluster, conf && *conf ? conf : NULL);
	if (r >= 0)
		r = rados_conf_parse_env(cluster, NULL);
	for (size_t i = 0; r >= 0 && i < sizeof(keys) / sizeof(keys[0]) && used < len; i++) {
		char v[128];

		if (rados_conf_get(cluster, keys[i], v, sizeof(v)) < 0)
			snprintf(v, sizeof(v), "?");
		used += (size_t)snprintf(out + used, len - used, "%s%s=%s", i ? " " : "", keys[i], v);
	}
	if (r < 0)
		snprintf(out, len, "reading the Ceph configuration: %s", strerror(-r));
	rados_shutdown(cluster);
	return r < 0 ? -1 : 0;
}

const char *iogap_target_guest_dev(const struct iogap_target *t, const char *passthrough)
{
	return t->kind == IOGAP_TARGET_ZNS || passthrough ? "/dev/nvme0n1" : "/dev/vda";
}

static void json_bool(struct jw *w, const char *key, bool v)
{
	jw_member(w, key);
	fputs(v ? "true" : "false", w->f);
}

/* The protocol node: the target itself. */
static void proto_json(struct jw *w, const struct iogap_vm_config *cfg)
{
	const struct iogap_target *t = cfg->target;
	bool direct = !strcmp(cfg->cache, "none") || !strcmp(cfg->cache, "directsync");

	jw_obj(w, "file");
	if (t->kind == IOGAP_TARGET_NULL) {
		jw_str(w, "driver", "null-co");
		jw_u64(w, "size", t->size);
		json_bool(w, "read-zeroes", true);
		if (t->latency_ns)
			jw_u64(w, "latency-ns", t->latency_ns);
		jw_end(w);
		return;
	}
	if (t->kind == IOGAP_TARGET_RBD) {
		/* QEMU's rbd driver: librbd in QEMU, below the bottom filter; QEMU
		 * sets rbd_cache=false for cache.direct, true otherwise */
		jw_str(w, "driver", "rbd");
		jw_str(w, "pool", t->pool);
		jw_str(w, "image", t->image);
		jw_str(w, "conf", t->conf);
		jw_str(w, "user", t->id);
	} else {
		jw_str(w, "driver", t->kind == IOGAP_TARGET_DEV ? "host_device" : "file");
		jw_str(w, "filename", t->path);
		jw_str(w, "aio", cfg->aio);
	}
	jw_obj(w, "cache");
	json_bool(w, "direct", direct);
	json_bool(w, "no-flush", !strcmp(cfg->cache, "unsafe"));
	jw_end(w);
	jw_end(w);
}

/* An iogap filter node, left open for its "file" child. */
static void filter_json(struct jw *w, const struct iogap_vm_config *cfg, const char *key,
			const char *layer, const char *ring)
{
	jw_obj(w, key);
	jw_str(w, "driver", "iogap");
	jw_str(w, "layer", layer);
	if (cfg->inject_delay_ns && !strcmp(layer, "bottom"))
		jw_u64(w, "delay-ns", cfg->inject_delay_ns);
	if (cfg->ring_size)
		jw_u64(w, "ring-size", cfg->ring_size);
	jw_u64(w, "run-id", cfg->run_id);
	/* the filter removes its ring at exit: the drain has it mapped by then */
	json_bool(w, "ring-keep", false);
	jw_str(w, "ring", ring);
}

/*
 * The block graph as JSON, every string escaped by the JSON writer:
 * [top filter ->] format -> [bottom filter ->] protocol.  malloc'd, or
 * NULL (out of memory).
 */
static char *drive_json(const struct iogap_vm_config *cfg, const struct iogap_vm *vm)
{
	const struct iogap_target *t = cfg->target;
	struct jw w = { 0 };
	char *out = NULL;
	size_t len, nodes = 0;
	bool failed;

	w.f = open_memstream(&out, &len);
	if (!w.f)
		return NULL;
	if (cfg->filter_so) {
		filter_json(&w, cfg, NULL, "top", vm->top_ring);
		nodes++;
	}
	jw_obj(&w, cfg->filter_so ? "file" : NULL);
	jw_str(&w, "driver", t->kind == IOGAP_TARGET_FILE ? t->format : "raw");
	nodes++;
	if (cfg->filter_so) {
		filter_json(&w, cfg, "file", "bottom", vm->bottom_ring);
		nodes++;
	}
	proto_json(&w, cfg);
	while (nodes--)
		jw_end(&w);
	failed = ferror(w.f);
	if (fclose(w.f) || failed) {
		free(out);
		return NULL;
	}
	return out;
}

/* A value for QEMU's key=value options: commas doubled.  malloc'd. */
static char *qemu_opt_value(const char *prefix, const char *value)
{
	size_t n = strlen(prefix), o = n;
	char *out = malloc(n + 2 * strlen(value) + 1);

	if (!out)
		return NULL;
	memcpy(out, prefix, n);
	for (; *value; value++) {
		out[o++] = *value;
		if (*value == ',')
			out[o++] = ',';
	}
	out[o] = '\0';
	return out;
}

#define MAX_ARGS 64

/* -drive for the target: the block graph as a json: filename. malloc'd. */
static char *drive_option(const struct iogap_vm_config *cfg, const struct iogap_vm *vm)
{
	char *json = drive_json(cfg, vm), *value, *drive = NULL;

	if (!json)
		return NULL;
	value = qemu_opt_value("json:", json);
	free(json);
	if (value && asprintf(&drive, "if=none,id=d0,cache=%s,%sfile=%s", cfg->cache,
			      cfg->read_only ? "readonly=on," : "", value) < 0)
		drive = NULL;
	free(value);
	return drive;
}

/* qemu.cmdline: the command, for the user to read or repeat. */
static int save_cmdline(const struct iogap_vm_config *cfg, const struct iogap_vm *vm,
			const char *const *argv, char *err, size_t errlen)
{
	FILE *f = fopen(vm->cmdline_file, "w");

	if (!f)
		return 0;
	if (cfg->filter_so)
		fprintf(f, "LD_PRELOAD=%s \\\n", cfg->filter_so);
	for (int i = 0; argv[i]; i++)
		fprintf(f, "'%s'%s", argv[i], argv[i + 1] ? " \\\n  " : "\n");
	if (fclose(f))
		return iogap_seterr(err, errlen, "%s: %s", vm->cmdline_file, strerror(errno));
	return 0;
}

/* The rings' names, unique to the run (the filter refuses an existing
 * file), in memory (tmpfs), not on a disk the run may be measuring:
 * `iogap run` drains them into the run directory as they fill. */
static void name_rings(const struct iogap_vm_config *cfg, struct iogap_vm *vm)
{
	const char *rdir = getenv("IOGAP_RING_DIR");

	if (!rdir)
		rdir = access("/dev/shm", W_OK) ? cfg->dir : "/dev/shm";
	snprintf(vm->top_ring, sizeof(vm->top_ring), "%s/iogap-%d-%016" PRIx64 "-top.ring",
		 rdir, (int)getpid(), cfg->run_id);
	snprintf(vm->bottom_ring, sizeof(vm->bottom_ring), "%s/iogap-%d-%016" PRIx64
		 "-bottom.ring", rdir, (int)getpid(), cfg->run_id);
	if (cfg->filter_so)
		iogap_ring_remove_stale(rdir, stderr, NULL, 0);
}

#define MAX_ARGS 64

/* --passthrough BDF: an assigned PCI device, no drive. */
static bool assigned_pci(const struct iogap_vm_config *cfg)
{
	return cfg->passthrough && strcmp(cfg->passthrough, "nvme");
}

/* The devices of the target (or the assigned PCI device). */
static int disk_args(const struct iogap_vm_config *cfg, const char *drive, char *zns_ns,
		     size_t zns_len, char *vfio, size_t vfio_len, const char **argv)
{
	int argc = 0;

	if (assigned_pci(cfg)) {
		/* an assigned PCI device: no drive, the guest's driver talks to it */
		snprintf(vfio, vfio_len, "vfio-pci,host=%s", cfg->passthrough);
		argv[argc++] = "-device"; argv[argc++] = vfio;
		return argc;
	}
	if (!cfg->target)
		return 0;
	argv[argc++] = "-drive"; argv[argc++] = drive;
	if (cfg->passthrough) {
		argv[argc++] = "-device"; argv[argc++] = "nvme,drive=d0,serial=iogap0";
	} else if (cfg->target->kind == IOGAP_TARGET_ZNS) {
		/* the zones live in the device model; the block graph below is plain */
		snprintf(zns_ns, zns_len,
			 "nvme-ns,drive=d0,bus=nvme0,nsid=1,zoned=true,zoned.zone_size=%" PRIu64,
			 cfg->target->zone_size);
		argv[argc++] = "-device"; argv[argc++] = "nvme,id=nvme0,serial=iogap0";
		argv[argc++] = "-device"; argv[argc++] = zns_ns;
	} else if (cfg->iothread) {
		argv[argc++] = "-object"; argv[argc++] = "iothread,id=io0";
		argv[argc++] = "-device";
		argv[argc++] = "virtio-blk-pci,drive=d0,serial=iogap0,iothread=io0";
	} else {
		argv[argc++] = "-device"; argv[argc++] = "virtio-blk-pci,drive=d0,serial=iogap0";
	}
	return argc;
}

int iogap_vm_start(const struct iogap_vm_config *cfg, struct iogap_vm *vm, char *err, size_t errlen)
{
	char append[2048], serial[4200], smp[16], mem[16], zns_ns[160], vfio[96];
	char *chardev, *drive = NULL;
	const char *argv[MAX_ARGS];
	int argc = 0, rc;

	memset(vm, 0, sizeof(*vm));
	snprintf(vm->ctl_sock, sizeof(vm->ctl_sock), "%s/ctl.sock", cfg->dir);
	snprintf(vm->console, sizeof(vm->console), "%s/console.log", cfg->dir);
	name_rings(cfg, vm);
	snprintf(vm->cmdline_file, sizeof(vm->cmdline_file), "%s/qemu.cmdline", cfg->dir);
	snprintf(vm->stderr_file, sizeof(vm->stderr_file), "%s/qemu.stderr", cfg->dir);
	unlink(vm->ctl_sock);

	/* no_timer_check: on a loaded host a TCG guest's IO-APIC timer check
	 * misses its ticks and the kernel panics ("IO-APIC + timer doesn't work") */
	snprintf(append, sizeof(append), "console=ttyS0 quiet no_timer_check iogap_mode=%s%s%s", cfg->mode,
		 cfg->append_extra ? " " : "", cfg->append_extra ? cfg->append_extra : "");
	/* -serial file: takes the rest as the path, commas included */
	snprintf(serial, sizeof(serial), "file:%s", vm->console);
	snprintf(smp, sizeof(smp), "%u", cfg->smp);
	snprintf(mem, sizeof(mem), "%u", cfg->memory_mb);
	chardev = qemu_opt_value("socket,id=ctl,server=on,wait=off,path=", vm->ctl_sock);
	if (cfg->target && !assigned_pci(cfg))
		drive = drive_option(cfg, vm);
	if (!chardev || (cfg->target && !assigned_pci(cfg) && !drive)) {
		free(chardev);
		free(drive);
		return iogap_seterr(err, errlen, "QEMU's command line: out of memory");
	}

	argv[argc++] = cfg->qemu;
	argv[argc++] = "-machine"; argv[argc++] = cfg->machine;
	argv[argc++] = "-accel"; argv[argc++] = cfg->accel;
	argv[argc++] = "-cpu"; argv[argc++] = strcmp(cfg->accel, "kvm") ? "max" : "host";
	argv[argc++] = "-smp"; argv[argc++] = smp;
	argv[argc++] = "-m"; argv[argc++] = mem;
	argv[argc++] = "-nodefaults";
	/* named threads ("CPU 0/TCG", "IO …"): cpuload.c tells vCPUs apart by name */
	argv[argc++] = "-name"; argv[argc++] = "iogap,debug-threads=on";
	argv[argc++] = "-no-user-config";
	argv[argc++] = "-display"; argv[argc++] = "none";
	argv[argc++] = "-no-reboot";
	argv[argc++] = "-serial"; argv[argc++] = serial;
	argv[argc++] = "-kernel"; argv[argc++] = cfg->kernel;
	argv[argc++] = "-initrd"; argv[argc++] = cfg->initrd;
	argv[argc++] = "-append"; argv[argc++] = append;
	argv[argc++] = "-device"; argv[argc++] = "virtio-serial-pci";
	argv[argc++] = "-chardev"; argv[argc++] = chardev;
	argv[argc++] = "-device"; argv[argc++] = "virtserialport,chardev=ctl,name=iogap.ctl";
	argc += disk_args(cfg, drive, zns_ns, sizeof(zns_ns), vfio, sizeof(vfio), argv + argc);
	argv[argc] = NULL;

	rc = save_cmdline(cfg, vm, argv, err, errlen);
	if (!rc) {
		struct iogap_spawn sp = { .argv = argv, .stderr_path = vm->stderr_file,
					  .preload = cfg->filter_so };

		rc = iogap_child_start(&vm->qemu, &sp, err, errlen);
	}
	free(chardev);
	free(drive);
	return rc;
}

int iogap_vm_wait(struct iogap_vm *vm, uint64_t deadline_ns)
{
	return iogap_child_wait(&vm->qemu, deadline_ns) ? vm->qemu.status : -1;
}

void iogap_vm_kill(struct iogap_vm *vm)
{
	iogap_child_stop(&vm->qemu, 3000);
}

bool iogap_vm_ended(struct iogap_vm *vm, char *why, size_t whylen)
{
	char how[128], tail[800];

	if (!iogap_child_ended(&vm->qemu))
		return false;
	iogap_child_describe(&vm->qemu, how, sizeof(how));
	iogap_tail_file(vm->stderr_file, tail, sizeof(tail), 3);
	snprintf(why, whylen, "QEMU exited (%s)%s%s", how, tail[0] ? ": " : "", tail);
	return true;
}

int iogap_vm_check_target(const struct iogap_vm_config *cfg, char *err, size_t errlen)
{
	struct iogap_vm_config plain = *cfg;
	struct iogap_vm none = { 0 };
	char *json, *name = NULL, qemu_img[PATH_MAX];
	const char *argv[] = { qemu_img, "info", NULL, NULL };
	struct iogap_spawn sp = { .argv = argv, .capture_stderr = true };
	struct iogap_child c;
	int rc;

	plain.filter_so = NULL;
	iogap_qemu_tool(cfg->qemu, "qemu-img", qemu_img, sizeof(qemu_img));   /* the same build's */
	json = drive_json(&plain, &none);
	if (!json || asprintf(&name, "json:%s", json) < 0)
		name = NULL;
	free(json);
	if (!name)
		return iogap_seterr(err, errlen, "qemu-img's command line: out of memory");
	argv[2] = name;
	rc = iogap_child_start(&c, &sp, err, errlen);
	free(name);
	if (rc)
		return -1;
	if (!iogap_child_wait(&c, iogap_now_ns() + 30000000000ULL)) {
		iogap_child_stop(&c, 1000);
		iogap_child_release(&c);
		return iogap_seterr(err, errlen, iogap_interrupted() ? "interrupted" :
				    "QEMU could not open the target within 30 s (qemu-img info)");
	}
	iogap_child_release(&c);
	if (c.status == 0)
		return 0;
	while (c.err_tail_len && c.err_tail[c.err_tail_len - 1] == '\n')
		c.err_tail[--c.err_tail_len] = '\0';
	return iogap_seterr(err, errlen, "QEMU cannot open the target: %s", c.err_tail_len ?
			    c.err_tail : "qemu-img info failed without a message");
}

static bool file_contains(const char *path, const char *needle)
{
	char buf[65536];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return memmem(buf, n, needle, strlen(needle)) != NULL;
}

bool iogap_kvm_usable(const struct iogap_vm_config *base, char *why, size_t whylen)
{
	struct iogap_vm_config cfg = *base;
	struct iogap_vm vm;
	char err[256];
	uint64_t deadline;
	bool ok = false;

	if (access("/dev/kvm", R_OK | W_OK)) {
		snprintf(why, whylen, "/dev/kvm: %s", strerror(errno));
		return false;
	}
	cfg.accel = "kvm";
	cfg.mode = "marker";
	cfg.target = NULL;
	cfg.filter_so = NULL;
	if (iogap_vm_start(&cfg, &vm, err, sizeof(err))) {
		snprintf(why, whylen, "%s", err);
		return false;
	}
	/* a working KVM boots the marker guest in well under a second */
	deadline = iogap_now_ns() + 8000000000ULL;
	while (iogap_now_ns() < deadline) {
		if (file_contains(vm.console, "IOGAP-GUEST-READY")) {
			ok = true;
			break;
		}
		if (iogap_child_ended(&vm.qemu) || iogap_interrupted())
			break;
		usleep(50000);
	}
	iogap_vm_kill(&vm);
	if (!ok) {
		char tail[512];

		iogap_tail_file(vm.stderr_file, tail, sizeof(tail), 3);
		snprintf(why, whylen, "a test guest under KVM did not boot within 8 s%s%s",
			 tail[0] ? ": " : "", tail);
	}
	return ok;
}

void iogap_tail_file(const char *path, char *out, size_t outlen, int lines)
{
	char buf[8192];
	FILE *f = fopen(path, "r");
	size_t n;
	long size;
	char *p;

	out[0] = '\0';
	if (!f)
		return;
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	fseek(f, size > (long)sizeof(buf) - 1 ? size - (long)sizeof(buf) + 1 : 0, SEEK_SET);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
		buf[--n] = '\0';
	p = buf + n;
	while (p > buf && lines > 0) {
		p--;
		if (*p == '\n')
			lines--;
	}
	if (*p == '\n')
		p++;
	snprintf(out, outlen, "%s", p);
}
