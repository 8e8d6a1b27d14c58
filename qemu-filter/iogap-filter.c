/* SPDX-License-Identifier: MIT */
/*
 * iogap-filter: a QEMU block filter driver that timestamps every request
 * passing through it and appends one binary record per request to a
 * shared-memory ring (include/iogap/trace.h).  Loaded into unmodified distro
 * QEMU binaries with LD_PRELOAD; see docs/qemu-filter.md.
 *
 *   json:{"driver":"iogap","layer":"top","ring":"/dev/shm/x.ring",
 *         "ring-size":65536,"run-id":"0x...","file":{...}}
 *
 * Written in the idiom of QEMU's own simple filters (block/copy-on-read.c,
 * block/preallocate.c, block/filter-compress.c), against the headers of the
 * very QEMU it is loaded into (scripts/qemu-headers).  What differs between
 * the supported QEMU versions is in compat.h, nowhere else.
 */
/*
 * QEMU's headers are written for QEMU's warning set (no -Wextra): silence what
 * they trigger under the project's -Wextra -Werror, for them only.
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "qemu/osdep.h"
#include "block/block.h"
#include "block/block_int.h"
#include "qemu/module.h"
#include "qemu/option.h"
#include "qapi/error.h"
#pragma GCC diagnostic pop

#include <dlfcn.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "iogap/trace.h"
#include "ring.h"
#include "procid.h"
#include "record.h"
#include "compat.h"
#include "qemu-syms.h"

#ifndef IOGAP_QEMU_STAMP
#error "IOGAP_QEMU_STAMP (the qemu_stamp_<sha1> of the target binary) must be defined"
#endif
/* The QEMU build this filter is for, verbatim in the .so: iogap picks the filter whose
 * string equals the qemu_stamp_ in the QEMU binary it runs (docs/qemu-filter.md). */
__attribute__((used)) static const char iogap_built_for[] = IOGAP_QEMU_STAMP;

#ifndef IOGAP_LAYOUT_SKEW
#define IOGAP_LAYOUT_SKEW 0     /* tests build a variant with a skew to prove the check */
#endif

#define IOGAP_DRIVER_NAME   "iogap"
#define IOGAP_DEFAULT_RING_SIZE (1u << 18)
#define IOGAP_LOG_PREFIX    "iogap-filter: "

/*
 * One filter node's state.  Invariants, from a successful iogap_open until
 * iogap_close:
 * - ring is non-NULL and open on path; the hot path records into it with no
 *   check, and only iogap_close frees it (after the node has drained);
 * - the node is on iogap_open_rings exactly while ring is open, so process
 *   exit unlinks the rings not kept even when QEMU never closes the node;
 * - layer is 1..15 characters, NUL-terminated; delay_ns is 0..10 s;
 * - run_id, layer and keep are fixed: the ring's header and info say them.
 */
typedef struct BDRVIogapState {
	struct iogap_ring *ring;  /* own allocation: 64-byte aligned counters */
	uint64_t run_id;          /* when set, write tags must carry it */
	char layer[16];
	char *path;
	int64_t delay_ns;         /* test-only: sleep this long before entry (delay-ns=) */
	bool keep;                /* ring stays after close (ring-keep=) */
	struct BDRVIogapState *next_open;   /* iogap_open_rings */
} BDRVIogapState;

/* ------------------------------------------------------------------ hot path */

/*
 * delay-ns=N (accuracy tests): a known delay placed in front of this node.
 * The coroutine sleeps on QEMU's realtime clock before the entry time is
 * taken and the request forwarded, so on a bottom node the delay shows up
 * between top entry and bottom entry (Q.fmt).  The sleep is out of line: its
 * local would give every request path a stack canary.
 */
static __attribute__((noinline)) void coroutine_fn iogap_sleep(int64_t ns)
{
	QemuCoSleep w = { 0 };

	qemu_co_sleep_ns_wakeable(&w, QEMU_CLOCK_REALTIME, ns);
}

static inline void coroutine_fn iogap_delay(BlockDriverState *bs)
{
	BDRVIogapState *s = bs->opaque;

	if (__builtin_expect(s->delay_ns > 0, 0))
		iogap_sleep(s->delay_ns);
}

static inline struct iogap_ring *iogap_ring_of(BlockDriverState *bs)
{
	return ((BDRVIogapState *)bs->opaque)->ring;
}

static int coroutine_fn GRAPH_RDLOCK iogap_co_preadv_part(BlockDriverState *bs,
					     int64_t offset, int64_t bytes,
					     QEMUIOVector *qiov, size_t qiov_offset,
					     BdrvRequestFlags flags)
{
	uint64_t t0;
	int ret;

	iogap_delay(bs);
	t0 = iogap_now_ns();
	ret = bdrv_co_preadv_part(bs->file, offset, bytes, qiov, qiov_offset, flags);
	iogap_record_now(iogap_ring_of(bs), IOGAP_OP_READ, offset, bytes, t0, ret, 0);
	return ret;
}

static int coroutine_fn GRAPH_RDLOCK iogap_co_pwritev_part(BlockDriverState *bs,
					      int64_t offset, int64_t bytes,
					      QEMUIOVector *qiov, size_t qiov_offset,
					      BdrvRequestFlags flags)
{
	BDRVIogapState *s = bs->opaque;
	uint8_t rflags = (flags & BDRV_REQ_FUA) ? IOGAP_REC_FUA : 0;
	struct iogap_thread *th;
	uint64_t t0, t1;
	int ret;

	iogap_delay(bs);
	t0 = iogap_now_ns();
	ret = bdrv_co_pwritev_part(bs->file, offset, bytes, qiov, qiov_offset, flags);
	th = iogap_this_thread();
	t1 = iogap_thread_ns(th);    /* before the tag scan: not part of the request's time */
	iogap_record_write(s->ring, s->run_id, th, qiov ? qiov->iov : NULL, qiov ? qiov->niov : 0,
			   qiov_offset, offset, bytes, t0, t1, ret, rflags);
	return ret;
}

static int coroutine_fn GRAPH_RDLOCK iogap_co_pwrite_zeroes(BlockDriverState *bs, int64_t offset,
					       int64_t bytes, BdrvRequestFlags flags)
{
	uint64_t t0;
	int ret;

	iogap_delay(bs);
	t0 = iogap_now_ns();
	ret = bdrv_co_pwrite_zeroes(bs->file, offset, bytes, flags);
	iogap_record_now(iogap_ring_of(bs), IOGAP_OP_WRITE_ZEROES, offset, bytes, t0, ret,
		     (flags & BDRV_REQ_FUA) ? IOGAP_REC_FUA : 0);
	return ret;
}

static int coroutine_fn GRAPH_RDLOCK iogap_co_pdiscard(BlockDriverState *bs, int64_t offset,
					  int64_t bytes)
{
	uint64_t t0;
	int ret;

	iogap_delay(bs);
	t0 = iogap_now_ns();
	ret = bdrv_co_pdiscard(bs->file, offset, bytes);
	iogap_record_now(iogap_ring_of(bs), IOGAP_OP_TRIM, offset, bytes, t0, ret, 0);
	return ret;
}

static int coroutine_fn GRAPH_RDLOCK iogap_co_flush(BlockDriverState *bs)
{
	uint64_t t0;
	int ret;

	iogap_delay(bs);
	t0 = iogap_now_ns();
	ret = bdrv_co_flush(bs->file->bs);
	iogap_record_now(iogap_ring_of(bs), IOGAP_OP_FLUSH, 0, 0, t0, ret, 0);
	return ret;
}

static int coroutine_fn GRAPH_RDLOCK iogap_co_pwritev_compressed_part(BlockDriverState *bs,
							 int64_t offset, int64_t bytes,
							 QEMUIOVector *qiov,
							 size_t qiov_offset)
{
	uint64_t t0;
	int ret;

	iogap_delay(bs);
	t0 = iogap_now_ns();
	ret = bdrv_co_pwritev_part(bs->file, offset, bytes, qiov, qiov_offset,
				   BDRV_REQ_WRITE_COMPRESSED);
	iogap_record_now(iogap_ring_of(bs), IOGAP_OP_WRITE, offset, bytes, t0, ret, 0);
	return ret;
}

static int coroutine_fn GRAPH_RDLOCK iogap_co_copy_range_from(BlockDriverState *bs,
						 BdrvChild *src, int64_t src_offset,
						 BdrvChild *dst, int64_t dst_offset,
						 int64_t bytes,
						 BdrvRequestFlags read_flags,
						 BdrvRequestFlags write_flags)
{
	uint64_t t0;
	int ret;

	iogap_delay(bs);
	t0 = iogap_now_ns();
	ret = bdrv_co_copy_range_from(bs->file, src_offset, dst, dst_offset,
				      bytes, read_flags, write_flags);
	(void)src;
	iogap_record_now(iogap_ring_of(bs), IOGAP_OP_OTHER, src_offset, bytes, t0, ret, 0);
	return ret;
}

static int coroutine_fn GRAPH_RDLOCK iogap_co_copy_range_to(BlockDriverState *bs,
					       BdrvChild *src, int64_t src_offset,
					       BdrvChild *dst, int64_t dst_offset,
					       int64_t bytes,
					       BdrvRequestFlags read_flags,
					       BdrvRequestFlags write_flags)
{
	uint64_t t0;
	int ret;

	iogap_delay(bs);
	t0 = iogap_now_ns();
	ret = bdrv_co_copy_range_to(src, src_offset, bs->file, dst_offset,
				    bytes, read_flags, write_flags);
	(void)dst;
	iogap_record_now(iogap_ring_of(bs), IOGAP_OP_OTHER, dst_offset, bytes, t0, ret, 0);
	return ret;
}

/* --------------------------------------------------------- pass-through rest */

static int coroutine_fn GRAPH_RDLOCK iogap_co_truncate(BlockDriverState *bs, int64_t offset,
					  bool exact, PreallocMode prealloc,
					  BdrvRequestFlags flags, Error **errp)
{
	return bdrv_co_truncate(bs->file, offset, exact, prealloc, flags, errp);
}

static IOGAP_FN_GETLENGTH iogap_co_getlength(BlockDriverState *bs)
{
	return IOGAP_CHILD_GETLENGTH(bs->file->bs);
}

static IOGAP_FN_MEDIUM iogap_co_eject(BlockDriverState *bs, bool eject_flag)
{
	IOGAP_CHILD_EJECT(bs->file->bs, eject_flag);
}

static IOGAP_FN_MEDIUM iogap_co_lock_medium(BlockDriverState *bs, bool locked)
{
	IOGAP_CHILD_LOCK_MEDIUM(bs->file->bs, locked);
}

/* Forward blkdebug events (raw's read_aio, ...) so a filter stays transparent to
 * a blkdebug node below it. */
static IOGAP_FN_MEDIUM iogap_co_debug_event(BlockDriverState *bs, BlkdebugEvent event)
{
	IOGAP_CHILD_DEBUG_EVENT(bs->file->bs, event);
}

#if IOGAP_HAVE_ZONES
/* Zone operations pass through unrecorded: the trace format has no zone ops. */
static int coroutine_fn GRAPH_RDLOCK
iogap_co_zone_report(BlockDriverState *bs, int64_t offset, unsigned int *nr_zones,
		     BlockZoneDescriptor *zones)
{
	return bdrv_co_zone_report(bs->file->bs, offset, nr_zones, zones);
}

static int coroutine_fn GRAPH_RDLOCK
iogap_co_zone_mgmt(BlockDriverState *bs, BlockZoneOp op, int64_t offset, int64_t len)
{
	return bdrv_co_zone_mgmt(bs->file->bs, op, offset, len);
}

static int coroutine_fn GRAPH_RDLOCK
iogap_co_zone_append(BlockDriverState *bs, int64_t *offset, QEMUIOVector *qiov,
		     BdrvRequestFlags flags)
{
	return bdrv_co_zone_append(bs->file->bs, offset, qiov, flags);
}
#endif

static void GRAPH_RDLOCK iogap_refresh_limits(BlockDriverState *bs, Error **errp)
{
	/*
	 * Nothing to add: bdrv_refresh_limits() already merges the limits of the
	 * filtered child into ours (the BDRV_CHILD_FILTERED role).
	 */
	(void)bs;
	(void)errp;
}

/*
 * Block status: for a node with a filtered child and no .bdrv_co_block_status,
 * bdrv_co_block_status() answers BDRV_BLOCK_RAW | BDRV_BLOCK_OFFSET_VALID
 * pointing at the child, which is exactly the pass-through a filter wants.
 */

/* ------------------------------------------------------------- open / close */

static QemuOptsList iogap_runtime_opts = {
	.name = "iogap",
	.head = QTAILQ_HEAD_INITIALIZER(iogap_runtime_opts.head),
	.desc = {
		{
			.name = "layer",
			.type = QEMU_OPT_STRING,
			.help = "layer name stored in the ring header (default: top)",
		},
		{
			.name = "ring",
			.type = QEMU_OPT_STRING,
			.help = "ring file (default: /dev/shm/iogap-<pid>-<node>.ring)",
		},
		{
			.name = "ring-keep",
			.type = QEMU_OPT_BOOL,
			.help = "keep the ring file after close (default: on with ring=, off without)",
		},
		{
			.name = "ring-size",
			.type = QEMU_OPT_NUMBER,
			.help = "ring capacity in records (rounded up to a power of two)",
		},
		{
			.name = "run-id",
			.type = QEMU_OPT_NUMBER,
			.help = "run id for the header (default: $IOGAP_RUN_ID, hex); when set, "
				"write tags must match it",
		},
		{
			.name = "delay-ns",
			.type = QEMU_OPT_NUMBER,
			.help = "test only: sleep this many ns before each request enters (default 0)",
		},
		{ /* end of list */ }
	},
};

static bool iogap_alias_mode;

static void iogap_sanitize(char *dst, size_t n, const char *src)
{
	size_t i;
	for (i = 0; i + 1 < n && src[i]; i++) {
		char c = src[i];
		dst[i] = ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.') ? c : '_';
	}
	dst[i] = 0;
}

/*
 * Rings still open, so that process exit removes the ones not kept even when
 * QEMU exits without closing its block nodes (exit() on an error path).
 */
static pthread_mutex_t iogap_open_lock = PTHREAD_MUTEX_INITIALIZER;
static BDRVIogapState *iogap_open_rings;
static pid_t iogap_open_pid;     /* the process that created them */

static void iogap_track_ring(BDRVIogapState *s, bool open)
{
	BDRVIogapState **p;

	pthread_mutex_lock(&iogap_open_lock);
	if (open) {
		s->next_open = iogap_open_rings;
		iogap_open_rings = s;
		iogap_open_pid = getpid();
	} else {
		for (p = &iogap_open_rings; *p; p = &(*p)->next_open) {
			if (*p == s) {
				*p = s->next_open;
				break;
			}
		}
	}
	pthread_mutex_unlock(&iogap_open_lock);
}

__attribute__((destructor)) static void iogap_exit_unlink(void)
{
	BDRVIogapState *s;

	if (iogap_open_pid != getpid())
		return;     /* a forked child: the rings are its parent's */
	pthread_mutex_lock(&iogap_open_lock);
	for (s = iogap_open_rings; s; s = s->next_open)
		if (!s->keep)
			iogap_ring_unlink(s->ring);
	pthread_mutex_unlock(&iogap_open_lock);
}

/*
 * run-id= wins; without it IOGAP_RUN_ID (hex, like iogap-probe's --run-id and
 * the run_id of iogap run's manifest): the QMP / libvirt path, where the
 * alias's schema admits no run-id option.
 */
static bool iogap_get_run_id(QemuOpts *opts, uint64_t *run_id, Error **errp)
{
	const char *env = getenv("IOGAP_RUN_ID");
	char *end;

	*run_id = 0;
	if (qemu_opt_get(opts, "run-id")) {
		*run_id = qemu_opt_get_number(opts, "run-id", 0);
		return true;
	}
	if (!env || !*env)
		return true;
	errno = 0;
	*run_id = strtoull(env, &end, 16);
	if (errno || *end || !*run_id || env[0] == '-' || env[0] == '+' || isspace(env[0])) {
		error_setg(errp, "iogap: IOGAP_RUN_ID=%s is not a non-zero hexadecimal run id", env);
		return false;
	}
	return true;
}

/* BlockDriverState layout self-checks against exported accessors. */
static const char *iogap_check_bds(BlockDriverState *bs)
{
	if (bdrv_get_node_name(bs) != bs->node_name)
		return "BlockDriverState.node_name offset does not match bdrv_get_node_name()";
	if (bdrv_get_aio_context(bs) != bs->aio_context)
		return "BlockDriverState.aio_context offset does not match bdrv_get_aio_context()";
	if (!bs->file || bdrv_filter_child(bs) != bs->file)
		return "BlockDriverState.file does not match bdrv_filter_child()";
	if (!bs->file->bs || !bs->file->bs->drv || !bs->file->bs->drv->format_name)
		return "BdrvChild.bs / BlockDriverState.drv do not look like a block node";
	return NULL;
}

/* The node's setup, its child opened: reads bs->file under the graph lock. */
static int GRAPH_RDLOCK iogap_open_node(BlockDriverState *bs, QDict *options, Error **errp)
{
	BDRVIogapState *s = bs->opaque;
	const char *layer, *ring_path, *bad;
	uint64_t ring_size;
	char node[64], info[512], err[256];
	QemuOpts *opts;
	int ret;

	bad = iogap_check_bds(bs);
	if (bad) {
		error_setg(errp, "iogap: layout self-check failed: %s", bad);
		return -ENOTSUP;
	}

	bs->supported_write_flags = BDRV_REQ_WRITE_UNCHANGED |
		(BDRV_REQ_FUA & bs->file->bs->supported_write_flags);
	bs->supported_zero_flags = BDRV_REQ_WRITE_UNCHANGED |
		((BDRV_REQ_FUA | BDRV_REQ_MAY_UNMAP | BDRV_REQ_NO_FALLBACK) &
		 bs->file->bs->supported_zero_flags);
	bs->supported_truncate_flags = bs->file->bs->supported_truncate_flags & BDRV_REQ_ZERO_WRITE;

	opts = qemu_opts_create(&iogap_runtime_opts, NULL, 0, NULL);
	if (!qemu_opts_absorb_qdict(opts, options, errp)) {
		ret = -EINVAL;
		goto out;
	}
	iogap_sanitize(node, sizeof(node), bs->node_name[0] ? bs->node_name : "node");
	layer = qemu_opt_get(opts, "layer");
	if (!layer && iogap_alias_mode && bs->node_name[0]) {
		/* alias: no options through QAPI; the node name (truncated) is the layer */
		snprintf(s->layer, sizeof(s->layer), "%.15s", bs->node_name);
		layer = s->layer;
	}
	if (!layer)
		layer = "top";
	if (!layer[0] || strlen(layer) >= sizeof(s->layer)) {
		error_setg(errp, "iogap: layer name must be 1..%zu characters", sizeof(s->layer) - 1);
		ret = -EINVAL;
		goto out;
	}
	if (layer != s->layer)
		snprintf(s->layer, sizeof(s->layer), "%s", layer);
	ring_size = qemu_opt_get_number(opts, "ring-size", IOGAP_DEFAULT_RING_SIZE);
	if (ring_size < 2) {
		error_setg(errp, "iogap: ring-size must be at least 2 records");
		ret = -EINVAL;
		goto out;
	}
	if (!iogap_get_run_id(opts, &s->run_id, errp)) {
		ret = -EINVAL;
		goto out;
	}
	{
		uint64_t d = qemu_opt_get_number(opts, "delay-ns", 0);

		if (d > 10000000000ull) {
			error_setg(errp, "iogap: delay-ns must be at most 10 s");
			ret = -EINVAL;
			goto out;
		}
		s->delay_ns = (int64_t)d;
	}
	ring_path = qemu_opt_get(opts, "ring");
	/* a ring the user named stays for reading after exit; the default one goes */
	s->keep = qemu_opt_get_bool(opts, "ring-keep", ring_path != NULL);
	if (ring_path) {
		s->path = strdup(ring_path);
	} else {
		const char *dir = getenv("IOGAP_FILTER_RING_DIR");
		char buf[PATH_MAX];
		snprintf(buf, sizeof(buf), "%s/iogap-%d-%s.ring", dir && *dir ? dir : "/dev/shm",
			 (int)getpid(), node);
		s->path = strdup(buf);
	}
	if (!s->path) {
		ret = -ENOMEM;
		error_setg(errp, "iogap: out of memory");
		goto out;
	}
	iogap_stamp_init();
	snprintf(info, sizeof(info),
		 "producer=iogap-filter\nqemu_version=%s\npid=%d\npid_start=%" PRIu64 "\n"
		 "node=%s\nlayer=%s\nchild_driver=%s\nstamps=%s\nkeep=%d\n",
		 QEMU_VERSION, (int)getpid(), iogap_proc_start_time(getpid()), bs->node_name, s->layer,
		 bs->file->bs->drv->format_name, iogap_stamp_source(), s->keep);
	{
		/* the ring file stays <= 1 GiB (IOGAP_RING_MAX_FILE) */
		uint32_t info_size = (uint32_t)strlen(info);
		uint64_t max = iogap_ring_max_capacity(info_size);

		if (ring_size > max) {
			error_setg(errp, "iogap: ring-size %" PRIu64 " is too large: at most %" PRIu64
				   " records (%zu bytes each), so that the ring file stays within "
				   "1 GiB", ring_size, max, sizeof(struct iogap_trace_record));
			ret = -EINVAL;
			goto out;
		}
	}
	if (posix_memalign((void **)&s->ring, 64, sizeof(*s->ring))) {
		s->ring = NULL;
		ret = -ENOMEM;
		error_setg(errp, "iogap: out of memory");
		goto out;
	}
	ret = iogap_ring_create(s->ring, s->path, ring_size, s->layer, s->run_id, info,
				iogap_now_ns(), err, sizeof(err));
	if (ret < 0) {
		error_setg(errp, "iogap: %s", err);
		free(s->ring);
		s->ring = NULL;
		goto out;
	}
	iogap_track_ring(s, true);
	ret = 0;
out:
	qemu_opts_del(opts);
	if (ret < 0) {
		free(s->path);
		s->path = NULL;
	}
	return ret;
}

static int iogap_open(BlockDriverState *bs, QDict *options, int flags, Error **errp)
{
	int ret;

	(void)flags;
	ret = bdrv_open_file_child(NULL, options, "file", bs, errp);
	if (ret < 0)
		return ret;
	IOGAP_GRAPH_RDLOCK_MAINLOOP();
	ret = iogap_open_node(bs, options, errp);
	IOGAP_GRAPH_RDUNLOCK_MAINLOOP();
	return ret;
}

static void iogap_close(BlockDriverState *bs)
{
	BDRVIogapState *s = bs->opaque;

	if (s->ring) {
		iogap_track_ring(s, false);
		iogap_ring_close(s->ring, iogap_now_ns(), !s->keep);
		free(s->ring);
		s->ring = NULL;
	}
	free(s->path);
	s->path = NULL;
}

static void GRAPH_RDLOCK iogap_child_perm(BlockDriverState *bs, BdrvChild *c, BdrvChildRole role,
			     BlockReopenQueue *reopen_queue,
			     uint64_t perm, uint64_t shared,
			     uint64_t *nperm, uint64_t *nshared)
{
	/* bdrv_default_perms() handles BDRV_CHILD_FILTERED (pass-through) */
	bdrv_default_perms(bs, c, role, reopen_queue, perm, shared, nperm, nshared);
}

#define IOGAP_DRIVER_FIELDS                                                  \
	.instance_size                   = sizeof(BDRVIogapState),           \
	.bdrv_open                       = iogap_open,                       \
	.bdrv_close                      = iogap_close,                      \
	.bdrv_child_perm                 = iogap_child_perm,                 \
	.bdrv_refresh_limits             = iogap_refresh_limits,             \
	.bdrv_co_preadv_part             = iogap_co_preadv_part,             \
	.bdrv_co_pwritev_part            = iogap_co_pwritev_part,            \
	.bdrv_co_pwrite_zeroes           = iogap_co_pwrite_zeroes,           \
	.bdrv_co_pdiscard                = iogap_co_pdiscard,                \
	.bdrv_co_flush                   = iogap_co_flush,                   \
	.bdrv_co_pwritev_compressed_part = iogap_co_pwritev_compressed_part, \
	.bdrv_co_copy_range_from         = iogap_co_copy_range_from,         \
	.bdrv_co_copy_range_to           = iogap_co_copy_range_to,           \
	.bdrv_co_truncate                = iogap_co_truncate,                \
	IOGAP_DRIVER_VERSION_FIELDS(iogap)                                   \
	.is_filter                       = true

static BlockDriver bdrv_iogap = {
	.format_name = IOGAP_DRIVER_NAME,
	IOGAP_DRIVER_FIELDS,
};

/* Opt-in alias under an existing filter's name (IOGAP_FILTER_ALIAS): the QAPI
 * schema of -blockdev/blockdev-add knows that name, so libvirt-built graphs can
 * use it; it hides the built-in driver of that name in this process. */
static BlockDriver bdrv_iogap_alias = {
	.format_name = NULL,    /* set from the environment */
	IOGAP_DRIVER_FIELDS,
};

/* ------------------------------------------------------------------ loading */

static const char *const iogap_alias_allowed[] = { "compress", "copy-on-read", NULL };
static char iogap_exe[64];
static int iogap_requeued;

static bool iogap_debug(void)
{
	const char *d = getenv("IOGAP_FILTER_DEBUG");
	return d && *d && strcmp(d, "0") != 0;
}

static void iogap_refuse(const char *fmt, ...) G_GNUC_PRINTF(1, 2);
static void iogap_refuse(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, IOGAP_LOG_PREFIX "not registered in %s: %s; QEMU continues without it\n",
		iogap_exe, msg);
}

/* The binaries that have a block layer (others, e.g. qemu-ga, stay silent). */
static bool iogap_block_binary(const char *name)
{
	return !strncmp(name, "qemu-system-", 12) || !strcmp(name, "qemu-img") ||
	       !strcmp(name, "qemu-io") || !strcmp(name, "qemu-nbd") ||
	       !strcmp(name, "qemu-storage-daemon") || !strncmp(name, "kvm", 3);
}

static bool iogap_ishex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

/*
 * The version of the binary at [base, end), from the "version X.Y.Z (pkgversion)"
 * that every QEMU tool prints for --version (qemu-version.h is generated at build
 * time, not among our headers).  Only read on a refusal, to name the QEMU refused.
 */
static void iogap_find_version(const char *base, const char *end, char *out, size_t n)
{
	static const char key[] = "version ";
	const char *p, *v, *close;
	int dots;

	snprintf(out, n, "of unknown version");
	for (p = base; (p = memmem(p, end - p, key, sizeof(key) - 1)) != NULL; p++) {
		for (v = p + sizeof(key) - 1, dots = 0; v < end && (isdigit((unsigned char)*v) || *v == '.'); v++)
			dots += *v == '.';
		if (dots != 2 || end - v < 2 || v[0] != ' ' || v[1] != '(')
			continue;
		close = memchr(v, ')', (size_t)(end - v) < 128 ? (size_t)(end - v) : 128);
		if (close && !memchr(v, '\n', (size_t)(close - v)) && !memchr(v, 0, (size_t)(close - v))) {
			p += sizeof(key) - 1;
			snprintf(out, n, "%.*s", (int)(close + 1 - p), p);
			return;
		}
	}
}

/* Scan our own executable for the qemu_stamp_<sha1> string modules are checked
 * against.  Returns NULL if ours is there, else a message (found holds theirs,
 * version the binary's QEMU version on a mismatch). */
static const char *iogap_check_stamp(char *found, size_t n, char *version, size_t vn)
{
	static const char key[] = "qemu_stamp_";
	const size_t klen = sizeof(key) - 1, slen = sizeof(iogap_built_for) - 1;
	struct stat st;
	const char *p, *end, *base;
	const char *res = "no qemu_stamp_ string in the binary";
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);

	found[0] = 0;
	if (fd < 0)
		return "cannot open /proc/self/exe";
	if (fstat(fd, &st) < 0 || st.st_size < (off_t)slen) {
		close(fd);
		return "cannot stat /proc/self/exe";
	}
	base = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (base == MAP_FAILED)
		return "cannot map /proc/self/exe";
	end = base + st.st_size;
	for (p = base; (p = memmem(p, end - p, key, klen)) != NULL; p += klen) {
		size_t rem = (size_t)(end - p);
		if (rem >= slen && !memcmp(p, iogap_built_for, slen) &&
		    (rem == slen || !iogap_ishex(p[slen]))) {
			res = NULL;
			break;
		}
		if (!found[0] && (size_t)(end - p) >= klen + 40) {
			size_t i = klen;
			while (i < klen + 40 && iogap_ishex(p[i]))
				i++;
			if (i == klen + 40) {
				snprintf(found, n, "%.*s", (int)i, p);
				res = "stamp mismatch";
			}
		}
	}
	if (res && found[0])
		iogap_find_version(base, end, version, vn);
	munmap((void *)base, st.st_size);
	return res;
}

/* BlockDriver layout self-checks against the built-in drivers. */
static const char *iogap_check_layout(void)
{
	static const char *const names[] = { "raw", "file", "null-co", "copy-on-read", "compress" };
	const size_t list_off = offsetof(BlockDriver, list) + IOGAP_LAYOUT_SKEW;
	size_t i;

	for (i = 0; i < G_N_ELEMENTS(names); i++) {
		BlockDriver *d = bdrv_find_format(names[i]);
		void **le_prev;

		if (!d)
			continue;       /* not built in (or a module): nothing to compare */
		if (!d->format_name || strcmp(d->format_name, names[i]))
			return "BlockDriver.format_name offset";
		/* the QLIST link near the middle of the struct must point back at it */
		le_prev = *(void ***)((char *)d + list_off + sizeof(void *));
		if (!le_prev || *le_prev != (void *)d)
			return "BlockDriver.list offset (struct BlockDriver differs from the headers)";
		if (d->is_filter != (i >= 3))
			return "BlockDriver.is_filter offset";
		if (!strcmp(names[i], "file") &&
		    (!d->protocol_name || strcmp(d->protocol_name, "file")))
			return "BlockDriver.protocol_name offset";
		if (!IOGAP_DRIVER_HAS_GETLENGTH(d) || !IOGAP_DRIVER_HAS_OPEN(d))
			return "BlockDriver callbacks offsets";
	}
	if (!bdrv_find_format("raw"))
		return "built-in driver 'raw' not found";
	return NULL;
}

static void iogap_block_init(void)
{
	const char *bad, *alias;

	if (!iogap_requeued) {
		/* run again after the built-in drivers' block_init()s, on the main thread */
		iogap_requeued = 1;
		register_module_init(iogap_block_init, MODULE_INIT_BLOCK);
		return;
	}
	bad = iogap_check_layout();
	if (bad) {
		iogap_refuse("layout self-check failed: %s", bad);
		return;
	}
	bdrv_register(&bdrv_iogap);
	alias = getenv("IOGAP_FILTER_ALIAS");
	if (alias && *alias) {
		size_t i;
		for (i = 0; iogap_alias_allowed[i]; i++)
			if (!strcmp(alias, iogap_alias_allowed[i]))
				break;
		if (!iogap_alias_allowed[i]) {
			fprintf(stderr, IOGAP_LOG_PREFIX "IOGAP_FILTER_ALIAS=%s ignored "
				"(allowed: compress, copy-on-read)\n", alias);
		} else {
			bdrv_iogap_alias.format_name = iogap_alias_allowed[i];
			iogap_alias_mode = true;
			bdrv_register(&bdrv_iogap_alias);  /* inserted at the head: wins lookups */
		}
	}
	if (iogap_debug())
		fprintf(stderr, IOGAP_LOG_PREFIX "registered in %s (QEMU %s)\n", iogap_exe,
			QEMU_VERSION);
}

__attribute__((constructor)) static void iogap_preload_init(void)
{
	char path[PATH_MAX], found[64], version[128];
	const char *base, *bad;
	ssize_t n;
	size_t i;
	void **slot = (void **)&iogap_q;
	bool block_bin;

	_Static_assert(sizeof(iogap_q) == G_N_ELEMENTS(iogap_qemu_sym_names) * sizeof(void *),
		       "symbol table and names differ");

	n = readlink("/proc/self/exe", path, sizeof(path) - 1);
	if (n <= 0)
		return;
	path[n] = 0;
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	n = (ssize_t)strnlen(base, sizeof(iogap_exe) - 1);
	memcpy(iogap_exe, base, (size_t)n);
	iogap_exe[n] = 0;
	if (strncmp(base, "qemu", 4) && strncmp(base, "kvm", 3)) {
		/* LD_PRELOAD is inherited by every child: stay inert outside QEMU */
		if (iogap_debug())
			fprintf(stderr, IOGAP_LOG_PREFIX "inert in %s (not a QEMU binary)\n", base);
		return;
	}
	block_bin = iogap_block_binary(base);
	/* before the symbols: a QEMU of another version may lack some of them */
	bad = iogap_check_stamp(found, sizeof(found), version, sizeof(version));
	if (bad && found[0]) {
		iogap_refuse("stamp mismatch: built for QEMU %s (%s), this is QEMU %s (%s); iogap "
			     "supports QEMU " IOGAP_QEMU_SUPPORTED " with a filter built for each: "
			     "meson setup --reconfigure build -Dextra_qemu=%s && ninja -C build "
			     "(docs/qemu-filter.md)", QEMU_VERSION, iogap_built_for, version, found, path);
		return;
	}
	for (i = 0; i < G_N_ELEMENTS(iogap_qemu_sym_names); i++) {
		slot[i] = dlsym(RTLD_DEFAULT, iogap_qemu_sym_names[i]);
		if (!slot[i]) {
			if (block_bin || iogap_debug())
				iogap_refuse("symbol %s not found (QEMU not built with --enable-modules?)",
					     iogap_qemu_sym_names[i]);
			return;
		}
	}
	if (bad) {
		iogap_refuse("%s: built for QEMU %s (%s)", bad, QEMU_VERSION, iogap_built_for);
		return;
	}
	register_module_init(iogap_block_init, MODULE_INIT_BLOCK);
}
