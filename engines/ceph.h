/* SPDX-License-Identifier: MIT */
/* The Ceph cluster connection the rbd and rados engines share. */
#ifndef IOGAP_CEPH_H
#define IOGAP_CEPH_H

#include <rados/librados.h>
#include <stddef.h>

struct iogap_job;

/* fio's _fio_rbd_connect/_fio_rados_connect up to the pool: clientname,
 * clustername and the configuration (ceph_conf/conf, else $CEPH_CONF and
 * Ceph's default search path; CEPH_ARGS too), then the job's pool.  0 with
 * *cluster and *ioctx set, or -errno with a message, prefixed by engine,
 * in err and nothing left open. */
int iogap_ceph_connect(const struct iogap_job *j, const char *engine, rados_t *cluster,
		       rados_ioctx_t *ioctx, char *err, size_t errlen);
/* Close what iogap_ceph_connect opened (either may be NULL). */
void iogap_ceph_disconnect(rados_t cluster, rados_ioctx_t ioctx);

#endif
