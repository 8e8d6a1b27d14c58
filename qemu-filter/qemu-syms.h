/* SPDX-License-Identifier: MIT */
/*
 * Every QEMU function the filter calls, resolved at load time with
 * dlsym(RTLD_DEFAULT) instead of being left as undefined symbols of the .so:
 * the object then loads (and stays inert) in any process, even with
 * LD_BIND_NOW, and a missing symbol is a clear refusal, not a crash.
 *
 * Include after the QEMU headers.  The function-like #defines below route the
 * calls (including those inside QEMU's macros such as error_setg) through the
 * table; being function-like, they leave BlockDriver member names such as
 * .bdrv_co_flush alone.
 */
#ifndef IOGAP_QEMU_SYMS_H
#define IOGAP_QEMU_SYMS_H

#define IOGAP_QEMU_SYMS(X)              \
	X(register_module_init)         \
	X(bdrv_register)                \
	X(bdrv_find_format)             \
	X(bdrv_get_node_name)           \
	X(bdrv_filter_child)            \
	X(bdrv_get_aio_context)         \
	X(bdrv_open_file_child)         \
	X(bdrv_default_perms)           \
	X(bdrv_co_preadv_part)          \
	X(bdrv_co_pwritev_part)         \
	X(bdrv_co_pwritev)              \
	X(bdrv_co_pwrite_zeroes)        \
	X(bdrv_co_pdiscard)             \
	X(bdrv_co_flush)                \
	X(bdrv_co_truncate)             \
	X(bdrv_co_copy_range_from)      \
	X(bdrv_co_copy_range_to)        \
	X(qemu_opts_create)             \
	X(qemu_opts_absorb_qdict)       \
	X(qemu_opt_get)                 \
	X(qemu_opt_get_number)          \
	X(qemu_opt_get_bool)            \
	X(qemu_opts_del)                \
	X(error_setg_internal)          \
	X(error_setg_errno_internal)    \
	X(error_propagate)              \
	X(qemu_co_sleep_ns_wakeable)    \
	IOGAP_QEMU_VERSION_SYMS(X)

struct iogap_qemu_syms {
#define IOGAP_SYM_DECL(n) __typeof__(&n) n;
	IOGAP_QEMU_SYMS(IOGAP_SYM_DECL)
#undef IOGAP_SYM_DECL
};

static struct iogap_qemu_syms iogap_q;

static const char *const iogap_qemu_sym_names[] = {
#define IOGAP_SYM_NAME(n) #n,
	IOGAP_QEMU_SYMS(IOGAP_SYM_NAME)
#undef IOGAP_SYM_NAME
};

#define register_module_init(...) (*iogap_q.register_module_init)(__VA_ARGS__)
#define bdrv_register(...) (*iogap_q.bdrv_register)(__VA_ARGS__)
#define bdrv_find_format(...) (*iogap_q.bdrv_find_format)(__VA_ARGS__)
#define bdrv_get_node_name(...) (*iogap_q.bdrv_get_node_name)(__VA_ARGS__)
#define bdrv_filter_child(...) (*iogap_q.bdrv_filter_child)(__VA_ARGS__)
#define bdrv_get_aio_context(...) (*iogap_q.bdrv_get_aio_context)(__VA_ARGS__)
#define bdrv_open_file_child(...) (*iogap_q.bdrv_open_file_child)(__VA_ARGS__)
#define bdrv_default_perms(...) (*iogap_q.bdrv_default_perms)(__VA_ARGS__)
#define bdrv_co_preadv_part(...) (*iogap_q.bdrv_co_preadv_part)(__VA_ARGS__)
#define bdrv_co_pwritev_part(...) (*iogap_q.bdrv_co_pwritev_part)(__VA_ARGS__)
#define bdrv_co_pwritev(...) (*iogap_q.bdrv_co_pwritev)(__VA_ARGS__)
#define bdrv_co_pwrite_zeroes(...) (*iogap_q.bdrv_co_pwrite_zeroes)(__VA_ARGS__)
#define bdrv_co_pdiscard(...) (*iogap_q.bdrv_co_pdiscard)(__VA_ARGS__)
#define bdrv_co_flush(...) (*iogap_q.bdrv_co_flush)(__VA_ARGS__)
#define bdrv_co_truncate(...) (*iogap_q.bdrv_co_truncate)(__VA_ARGS__)
#define bdrv_co_copy_range_from(...) (*iogap_q.bdrv_co_copy_range_from)(__VA_ARGS__)
#define bdrv_co_copy_range_to(...) (*iogap_q.bdrv_co_copy_range_to)(__VA_ARGS__)
#define qemu_opts_create(...) (*iogap_q.qemu_opts_create)(__VA_ARGS__)
#define qemu_opts_absorb_qdict(...) (*iogap_q.qemu_opts_absorb_qdict)(__VA_ARGS__)
#define qemu_opt_get(...) (*iogap_q.qemu_opt_get)(__VA_ARGS__)
#define qemu_opt_get_number(...) (*iogap_q.qemu_opt_get_number)(__VA_ARGS__)
#define qemu_opt_get_bool(...) (*iogap_q.qemu_opt_get_bool)(__VA_ARGS__)
#define qemu_opts_del(...) (*iogap_q.qemu_opts_del)(__VA_ARGS__)
#define error_setg_internal(...) (*iogap_q.error_setg_internal)(__VA_ARGS__)
#define error_setg_errno_internal(...) (*iogap_q.error_setg_errno_internal)(__VA_ARGS__)
#define error_propagate(...) (*iogap_q.error_propagate)(__VA_ARGS__)
#define qemu_co_sleep_ns_wakeable(...) (*iogap_q.qemu_co_sleep_ns_wakeable)(__VA_ARGS__)

/* compat.h's IOGAP_QEMU_VERSION_SYMS: each exists in one version range only */
#if IOGAP_QEMU_AT_LEAST(8, 0)
#define bdrv_co_getlength(...) (*iogap_q.bdrv_co_getlength)(__VA_ARGS__)
#define bdrv_co_eject(...) (*iogap_q.bdrv_co_eject)(__VA_ARGS__)
#define bdrv_co_lock_medium(...) (*iogap_q.bdrv_co_lock_medium)(__VA_ARGS__)
#define bdrv_co_debug_event(...) (*iogap_q.bdrv_co_debug_event)(__VA_ARGS__)
#define bdrv_graph_rdlock_main_loop(...) (*iogap_q.bdrv_graph_rdlock_main_loop)(__VA_ARGS__)
#define bdrv_graph_rdunlock_main_loop(...) (*iogap_q.bdrv_graph_rdunlock_main_loop)(__VA_ARGS__)
#else
#define bdrv_getlength(...) (*iogap_q.bdrv_getlength)(__VA_ARGS__)
#define bdrv_eject(...) (*iogap_q.bdrv_eject)(__VA_ARGS__)
#define bdrv_lock_medium(...) (*iogap_q.bdrv_lock_medium)(__VA_ARGS__)
#define bdrv_debug_event(...) (*iogap_q.bdrv_debug_event)(__VA_ARGS__)
#endif
#if IOGAP_HAVE_ZONES
#define bdrv_co_zone_report(...) (*iogap_q.bdrv_co_zone_report)(__VA_ARGS__)
#define bdrv_co_zone_mgmt(...) (*iogap_q.bdrv_co_zone_mgmt)(__VA_ARGS__)
#define bdrv_co_zone_append(...) (*iogap_q.bdrv_co_zone_append)(__VA_ARGS__)
#endif

#endif
