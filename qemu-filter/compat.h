/* SPDX-License-Identifier: MIT */
/*
 * Every difference between the QEMU versions the filter supports (7.2 to 10.x),
 * in one place.  iogap-filter.c is written once against the names below; this
 * file maps them onto the driver API of the QEMU whose headers it is built with.
 *
 *   what                          7.2                        8.0 and later
 *   length, eject, lock, debug    .bdrv_getlength, ...       .bdrv_co_getlength, ... (coroutines)
 *   graph lock annotations        none                       GRAPH_RDLOCK (checked by clang only)
 *   reading bs->file at open      no lock                    bdrv_graph_rdlock_main_loop()
 *   variable length               .has_variable_length       merged from the child (bl.)
 *   zoned devices below           no zoned API               8.1: forward .bdrv_co_zone_*
 *
 * Unchanged everywhere, so not here: bdrv_open_file_child, bdrv_default_perms (it
 * passes BDRV_CHILD_FILTERED through), the request callbacks, block status (a node
 * with a filtered child and no .bdrv_co_block_status passes it through).
 *
 * Include after the QEMU headers and before qemu-syms.h.
 */
#ifndef IOGAP_COMPAT_H
#define IOGAP_COMPAT_H

#define IOGAP_QEMU_AT_LEAST(maj, min) \
	(QEMU_VERSION_MAJOR > (maj) || (QEMU_VERSION_MAJOR == (maj) && QEMU_VERSION_MINOR >= (min)))

#define IOGAP_QEMU_SUPPORTED "7.2 to 10.x"
#if !IOGAP_QEMU_AT_LEAST(7, 2) || IOGAP_QEMU_AT_LEAST(11, 0)
#error "iogap-filter supports QEMU 7.2 to 10.x: add the differences of this version to compat.h"
#endif

#if IOGAP_QEMU_AT_LEAST(8, 0)

/* the QEMU functions whose name differs per version (resolved by qemu-syms.h) */
#define IOGAP_QEMU_VERSION_SYMS(X)      \
	X(bdrv_co_getlength)            \
	X(bdrv_co_eject)                \
	X(bdrv_co_lock_medium)          \
	X(bdrv_co_debug_event)          \
	X(bdrv_graph_rdlock_main_loop)  \
	X(bdrv_graph_rdunlock_main_loop) \
	IOGAP_QEMU_ZONE_SYMS(X)

/* not GRAPH_RDLOCK_GUARD_MAINLOOP(): its inline helpers would call QEMU directly,
 * leaving undefined symbols in the .so (qemu-syms.h resolves ours at load) */
#define IOGAP_GRAPH_RDLOCK_MAINLOOP()       bdrv_graph_rdlock_main_loop()
#define IOGAP_GRAPH_RDUNLOCK_MAINLOOP()     bdrv_graph_rdunlock_main_loop()
#define IOGAP_FN_GETLENGTH   int64_t coroutine_fn GRAPH_RDLOCK
#define IOGAP_FN_MEDIUM      void coroutine_fn GRAPH_RDLOCK
#define IOGAP_CHILD_GETLENGTH(bs)           bdrv_co_getlength(bs)
#define IOGAP_CHILD_EJECT(bs, flag)         bdrv_co_eject(bs, flag)
#define IOGAP_CHILD_LOCK_MEDIUM(bs, locked) bdrv_co_lock_medium(bs, locked)
#define IOGAP_CHILD_DEBUG_EVENT(bs, event)  bdrv_co_debug_event(bs, event)

#define IOGAP_DRIVER_VERSION_FIELDS(prefix)                        \
	.bdrv_co_getlength   = prefix##_co_getlength,              \
	.bdrv_co_eject       = prefix##_co_eject,                  \
	.bdrv_co_lock_medium = prefix##_co_lock_medium,            \
	.bdrv_co_debug_event = prefix##_co_debug_event,            \
	IOGAP_DRIVER_ZONE_FIELDS(prefix)

#else   /* 7.2: the same callbacks (named iogap_co_* for 8.0's API) are plain functions */

#define IOGAP_QEMU_VERSION_SYMS(X)      \
	X(bdrv_getlength)               \
	X(bdrv_eject)                   \
	X(bdrv_lock_medium)             \
	X(bdrv_debug_event)

#ifndef GRAPH_RDLOCK
#define GRAPH_RDLOCK
#endif
#define IOGAP_GRAPH_RDLOCK_MAINLOOP()
#define IOGAP_GRAPH_RDUNLOCK_MAINLOOP()
#define IOGAP_FN_GETLENGTH   int64_t
#define IOGAP_FN_MEDIUM      void
#define IOGAP_CHILD_GETLENGTH(bs)           bdrv_getlength(bs)
#define IOGAP_CHILD_EJECT(bs, flag)         bdrv_eject(bs, flag)
#define IOGAP_CHILD_LOCK_MEDIUM(bs, locked) bdrv_lock_medium(bs, locked)
#define IOGAP_CHILD_DEBUG_EVENT(bs, event)  bdrv_debug_event(bs, event)

#define IOGAP_DRIVER_VERSION_FIELDS(prefix)                        \
	.bdrv_getlength      = prefix##_co_getlength,              \
	.bdrv_eject          = prefix##_co_eject,                  \
	.bdrv_lock_medium    = prefix##_co_lock_medium,            \
	.bdrv_debug_event    = prefix##_co_debug_event,            \
	.has_variable_length = true,

#endif

/* Zoned devices (8.1): a filter forwards the zone operations and admits a zoned
 * child, as raw does, or a host-managed zoned node below could not be used. */
#if IOGAP_QEMU_AT_LEAST(8, 1)
#define IOGAP_HAVE_ZONES 1
#define IOGAP_QEMU_ZONE_SYMS(X)         \
	X(bdrv_co_zone_report)          \
	X(bdrv_co_zone_mgmt)            \
	X(bdrv_co_zone_append)
#define IOGAP_DRIVER_ZONE_FIELDS(prefix)                           \
	.supports_zoned_children = true,                           \
	.bdrv_co_zone_report = prefix##_co_zone_report,            \
	.bdrv_co_zone_mgmt   = prefix##_co_zone_mgmt,              \
	.bdrv_co_zone_append = prefix##_co_zone_append,
#else
#define IOGAP_HAVE_ZONES 0
#define IOGAP_QEMU_ZONE_SYMS(X)
#define IOGAP_DRIVER_ZONE_FIELDS(prefix)
#endif

/* Layout self-check: one callback every built-in driver has, under its name here. */
#if IOGAP_QEMU_AT_LEAST(8, 0)
#define IOGAP_DRIVER_HAS_GETLENGTH(d) ((d)->bdrv_co_getlength != NULL)
#else
#define IOGAP_DRIVER_HAS_GETLENGTH(d) ((d)->bdrv_getlength != NULL)
#endif

/* .bdrv_file_open (7.2: protocol drivers) was folded into .bdrv_open in 9.1. */
#if IOGAP_QEMU_AT_LEAST(9, 1)
#define IOGAP_DRIVER_HAS_OPEN(d) ((d)->bdrv_open != NULL)
#else
#define IOGAP_DRIVER_HAS_OPEN(d) ((d)->bdrv_open != NULL || (d)->bdrv_file_open != NULL)
#endif

#endif
