/* SPDX-License-Identifier: MIT */
/*
 * I/O engines behind one ops struct, as fio's engines/: one file per
 * engine.  The runner owns the request slots and the clock; an engine only
 * moves bytes and reports completions.
 */
#ifndef IOGAP_ENGINE_H
#define IOGAP_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct iogap_job;

/* fio's value (os/os-linux.h) for a flag no released kernel has: a job
 * asking for uncached I/O gets the kernel's answer, as under fio */
#ifndef RWF_UNCACHED
#define RWF_UNCACHED 0x00000040
#endif

/* The RWF_ flags a job asks for on every read and write (nowait, uncached). */
int iogap_engine_rw_flags(const struct iogap_job *j);

/* One in-flight request slot (fio's io_u). */
struct iogap_io {
	uint64_t offset;
	uint64_t start_ns;      /* prepared: fio's start_time */
	uint64_t issue_ns;      /* submitted: fio's issue_time */
	uint64_t request_id;    /* unique in the run, written into tags */
	void    *buf;
	uint32_t len;
	uint32_t slot;          /* index in the runner's slot array */
	uint32_t file;          /* which of the worker's files (ctx->fd is
				 * its descriptor when queue() is called) */
	int64_t  result;        /* bytes done or -errno, set by the engine */
	uint8_t  ddir;          /* enum iogap_op */
	uint8_t  in_ramp;       /* issued before ramp_time ended */
	/* io_submit_mode=offload (guest-probe/offload.c): set by the thread
	 * that submitted it */
	uint8_t  no_slat;       /* a synchronous engine's: no slat, as fio */
	uint64_t complete_ns;   /* when it completed */
	uint8_t  prio_index;    /* its entry in the stat's clat_prio (prio.c) */
	uint16_t ioprio;        /* cmdprio's priority for it (class << 13 | level);
				 * 0: the job's (libaio, io_uring set it) */
};

enum iogap_queue_result {
	IOGAP_Q_COMPLETED = 0,  /* done inline (sync engine); result is set */
	IOGAP_Q_QUEUED    = 1,  /* accepted; completes via getevents */
	IOGAP_Q_BUSY      = 2,  /* no room now; reap and retry */
};

enum iogap_engine_flags {
	IOGAP_ENGINE_SYNC      = 1u << 0,  /* queue() always completes inline */
	IOGAP_ENGINE_NO_FILE   = 1u << 1,  /* needs no file descriptor */
	IOGAP_ENGINE_SETS_ISSUE = 1u << 2, /* commit() stamps issue_ns itself */
	IOGAP_ENGINE_SYNC_ISSUE = 1u << 3, /* fio's FIO_SYNCIO on an engine that
					    * queues (vsync): issue time taken
					    * before queue(), no slat */
};

/* What an engine instance gets to work with; one per worker thread. */
struct iogap_engine_ctx {
	const struct iogap_job *job;
	int fd;                 /* target, opened by the runner (-1 if NO_FILE) */
	const int *fds;         /* each of the worker's files, by io->file
				 * (io_uring's registerfiles registers them all) */
	unsigned nr_fds;
	unsigned clone;         /* the worker's clone: iogap_job_file(job, clone, k)
				 * names file k (rados' objects) */
	unsigned depth;         /* max requests in flight */
	bool sync;              /* requests complete inside queue(): fio's
				 * FIO_SYNCIO, issue time taken before queue();
				 * set from IOGAP_ENGINE_SYNC or _SYNC_ISSUE,
				 * init may set it */
	void *bufmem;           /* the request buffers: slot i's at bufmem + i * buf_size */
	size_t buf_size;        /* (io_uring's fixedbufs registers them) */
	void *priv;             /* engine state */
	uint64_t (*now_ns)(void);
};

struct iogap_engine_ops {
	const char *name;
	unsigned flags;
	/* Allocate per-thread state for ctx->depth requests.  0 or -errno;
	 * on error writes a message to err. */
	int (*init)(struct iogap_engine_ctx *ctx, char *err, size_t errlen);
	/* Optional: prepare one request before its issue time is taken, as
	 * fio's ->prep (sync's lseek is outside clat).  0 or -errno. */
	int (*prep)(struct iogap_engine_ctx *ctx, struct iogap_io *io);
	/* Start one request.  Sync engines complete it and return
	 * IOGAP_Q_COMPLETED; async engines return IOGAP_Q_QUEUED or BUSY, or
	 * -errno when the request cannot be queued at all. */
	int (*queue)(struct iogap_engine_ctx *ctx, struct iogap_io *io);
	/* Submit what queue() collected; returns number submitted or
	 * -errno.  NULL for engines that submit in queue(). */
	int (*commit)(struct iogap_engine_ctx *ctx);
	/* Wait for at least min completions (max at most; posixaio takes
	 * every finished one, as fio's), store them in done[] (room for
	 * depth); returns the count or -errno.  Waiting follows fio's
	 * engine: with the job's iodepth_batch_complete_min=0 the kernel is
	 * asked for 0 until min have come. */
	int (*getevents)(struct iogap_engine_ctx *ctx, unsigned min, unsigned max,
			 struct iogap_io **done);
	void (*cleanup)(struct iogap_engine_ctx *ctx);
	/* Optional: synchronous flush for engines without a file (fsync,
	 * fdatasync, end_fsync); 0 or -errno.  NULL: fsync(ctx->fd). */
	int (*flush)(struct iogap_engine_ctx *ctx);
	/* Optional, for NO_FILE engines whose target lives elsewhere (rbd):
	 * open the job's target outside any worker and give its size; when
	 * copy_fd >= 0 also copy its first and last edge_len bytes into
	 * copy_fd at the same offsets (a sparse memfd of the target's size,
	 * probed by the data-safety check).  0 or -errno, message in err. */
	int (*target_info)(const struct iogap_job *job, uint64_t *size, int copy_fd,
			   size_t edge_len, char *err, size_t errlen);
	/* Optional, for engines whose files are devices they size themselves
	 * (io_uring_cmd's NVMe namespaces): nothing is laid out; the file at
	 * path must exist, be one the engine works with, and *size is set.
	 * 0 or -errno, message in err. */
	int (*file_size)(const char *path, uint64_t *size, char *err, size_t errlen);
	/* Optional, for engines that replace what their target held (rados
	 * removes its objects when done), reading jobs too: the data-safety
	 * check of the job's file (job->filename).  1 when it holds data (what,
	 * in why), 0 when not, -errno with a message in why. */
	int (*holds_data)(const struct iogap_job *job, char *why, size_t whylen);
};

extern const struct iogap_engine_ops iogap_engine_psync;
extern const struct iogap_engine_ops iogap_engine_sync;
extern const struct iogap_engine_ops iogap_engine_vsync;
extern const struct iogap_engine_ops iogap_engine_pvsync;
extern const struct iogap_engine_ops iogap_engine_pvsync2;
extern const struct iogap_engine_ops iogap_engine_posixaio;
extern const struct iogap_engine_ops iogap_engine_mmap;
extern const struct iogap_engine_ops iogap_engine_libaio;
extern const struct iogap_engine_ops iogap_engine_io_uring;
extern const struct iogap_engine_ops iogap_engine_io_uring_cmd;
extern const struct iogap_engine_ops iogap_engine_splice;
extern const struct iogap_engine_ops iogap_engine_null;
extern const struct iogap_engine_ops iogap_engine_rbd;
extern const struct iogap_engine_ops iogap_engine_rados;

/* Engine by fio name ("psync", "pvsync"... see engines.c); NULL if unknown. */
const struct iogap_engine_ops *iogap_engine_find(const char *name);
/* Comma-separated list of supported names, for error messages. */
const char *iogap_engine_names(void);

/* Synchronous discard for engines without an async one: 0 or -errno. */
int iogap_engine_sync_trim(int fd, uint64_t offset, uint64_t len);
/* The same for one request: sets io->result (len or -errno). */
void iogap_engine_trim_io(int fd, struct iogap_io *io);
/* io->result from a read/write system call's return value (-errno on -1). */
void iogap_engine_set_result(struct iogap_io *io, long ret);
/* The queue op of the engines that complete inline through read/write
 * system calls: rw reads or writes io (by io->ddir) and returns the call's
 * result; trims are punched; the result is set; always completed. */
int iogap_engine_sync_queue(struct iogap_engine_ctx *ctx, struct iogap_io *io,
			    ssize_t (*rw)(struct iogap_engine_ctx *ctx, struct iogap_io *io));

#endif
