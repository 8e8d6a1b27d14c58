/* SPDX-License-Identifier: MIT */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "manifest.h"

#define PATH_OF(obj, member) obj "/" member

const char *const iogap_manifest_config[] = {
	PATH_OF(IOGAP_MF_TARGET, IOGAP_MF_SPEC), PATH_OF(IOGAP_MF_TARGET, IOGAP_MF_FORMAT),
	PATH_OF(IOGAP_MF_VM, IOGAP_MF_ACCEL), "vm/machine", "vm/smp", "vm/memory_mb",
	"vm/cache", "vm/aio", "vm/iothread", PATH_OF(IOGAP_MF_VM, IOGAP_MF_INJECT_DELAY),
	PATH_OF(IOGAP_MF_VM, IOGAP_MF_PASSTHROUGH), PATH_OF(IOGAP_MF_VM, IOGAP_MF_QEMU_VERSION),
	NULL
};

/* The null: target's simulated latency ("null:...,latency-ns=N"), 0 if none. */
static uint64_t null_latency(const char *spec)
{
	const char *l = spec && !strncmp(spec, "null:", 5) ? strstr(spec, "latency-ns=") : NULL;

	return l ? strtoull(l + 11, NULL, 10) : 0;
}

/* s: a run id as `iogap run` writes it, 16 hex digits (fewer accepted) */
static bool run_id_valid(const char *s)
{
	size_t n = strspn(s, "0123456789abcdefABCDEF");

	return n && n <= 16 && !s[n];
}

int iogap_manifest_read(const char *dir, struct iogap_manifest *m, char *err, size_t errlen)
{
	char path[PATH_MAX + 32];
	const char *s;

	memset(m, 0, sizeof(*m));
	snprintf(path, sizeof(path), "%s/" IOGAP_MANIFEST_FILE, dir);
	if (iogap_json_load(path, &m->doc, err, errlen))
		return -1;
	s = jp_str(jp_get(&m->doc, IOGAP_MF_RUN_ID));
	if (s && !run_id_valid(s)) {
		snprintf(err, errlen, "%s: run_id \"%.40s%s\" is not a run id (1 to 16 hex digits)",
			 path, s, strlen(s) > 40 ? "..." : "");
		jp_free(&m->doc);
		memset(m, 0, sizeof(*m));
		return IOGAP_MANIFEST_BAD_ID;
	}
	m->present = true;
	m->run_id = s ? strtoull(s, NULL, 16) : 0;
	m->target_spec = jp_str(jp_path(&m->doc, PATH_OF(IOGAP_MF_TARGET, IOGAP_MF_SPEC)));
	s = jp_str(jp_path(&m->doc, PATH_OF(IOGAP_MF_VM, IOGAP_MF_ACCEL)));
	m->accel = s ? s : "";
	m->inject_delay_ns = jp_u64(jp_path(&m->doc, PATH_OF(IOGAP_MF_VM, IOGAP_MF_INJECT_DELAY)), 0);
	m->null_latency_ns = null_latency(m->target_spec);
	m->vm_memory_mb = (uint64_t)jp_num(jp_path(&m->doc, PATH_OF(IOGAP_MF_VM, IOGAP_MF_MEMORY)), 0);
	s = jp_str(jp_path(&m->doc, PATH_OF(IOGAP_MF_VM, IOGAP_MF_PASSTHROUGH)));
	m->passthrough = s ? s : "";
	m->clock_offset_ns = (int64_t)jp_num(jp_path(&m->doc, PATH_OF(IOGAP_MF_CLOCK,
								       IOGAP_MF_OFFSET)), 0);
	m->kernel_points = jp_get(&m->doc, IOGAP_MF_KERNEL_POINTS) != NULL;
	m->vm_host_kernel_why = jp_str(jp_get(jp_get(jp_get(&m->doc, IOGAP_MF_KERNEL_POINTS),
							  IOGAP_MF_KP_VM_HOST), IOGAP_MF_KWHY));
	for (int i = 0; i < IOGAP_SIDES; i++) {
		const struct jp_value *p = jp_path(jp_get(&m->doc, IOGAP_MF_PHASES), iogap_side_key[i]);

		m->phase[i].status = jp_str(jp_get(p, IOGAP_MF_STATUS));
		m->phase[i].message = jp_str(jp_get(p, IOGAP_MF_MESSAGE));
		p = jp_path(jp_get(&m->doc, IOGAP_MF_KERNEL_POINTS), iogap_side_key[i]);
		m->phase[i].kernel_why = jp_str(jp_get(p, IOGAP_MF_KWHY));
	}
	return 0;
}

bool iogap_manifest_imported(const struct iogap_manifest *m, const char *phase)
{
	const struct jp_value *p = jp_get(jp_get(&m->doc, IOGAP_MF_PHASES), phase);

	return m->present && jp_get(p, IOGAP_MF_IMPORTED);
}

void iogap_manifest_free(struct iogap_manifest *m)
{
	if (m->present)
		jp_free(&m->doc);
	memset(m, 0, sizeof(*m));
}
