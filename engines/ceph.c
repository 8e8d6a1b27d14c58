/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ceph.h"
#include "job.h"

static int create_cluster(const struct iogap_job *j, rados_t *cluster)
{
	char name[256];

	if (!j->rbd_clustername)
		return rados_create(cluster, j->rbd_clientname);
	/* rados_create2 takes a full type.id name: fio adds "client." */
	if (j->rbd_clientname)
		snprintf(name, sizeof(name), "%s%s",
			 strchr(j->rbd_clientname, '.') ? "" : "client.", j->rbd_clientname);
	return rados_create2(cluster, j->rbd_clustername, j->rbd_clientname ? name : NULL, 0);
}

int iogap_ceph_connect(const struct iogap_job *j, const char *engine, rados_t *cluster,
		       rados_ioctx_t *ioctx, char *err, size_t errlen)
{
	const char *conf = j->ceph_conf ? j->ceph_conf : getenv("CEPH_CONF");
	bool named = conf && *conf;
	int r;

	*cluster = NULL;
	*ioctx = NULL;
	r = create_cluster(j, cluster);
	if (r < 0) {
		*cluster = NULL;
		snprintf(err, errlen, "%s: rados_create: %s", engine, strerror(-r));
		return r;
	}
	r = rados_conf_read_file(*cluster, named ? conf : NULL);
	if (r < 0) {
		snprintf(err, errlen, "%s: cannot read the Ceph configuration %s: %s", engine,
			 named ? conf : "(no ceph_conf= or CEPH_CONF; Ceph's default paths)",
			 strerror(-r));
		goto fail;
	}
	r = rados_conf_parse_env(*cluster, NULL);   /* CEPH_ARGS */
	if (r < 0) {
		snprintf(err, errlen, "%s: bad CEPH_ARGS: %s", engine, strerror(-r));
		goto fail;
	}
	r = rados_connect(*cluster);
	if (r < 0) {
		snprintf(err, errlen, "%s: cannot connect to the Ceph cluster (%s): %s%s", engine,
			 named ? conf : "default configuration", strerror(-r),
			 r == -ETIMEDOUT ? " (no monitor answered within client_mount_timeout)" : "");
		goto fail;
	}
	r = rados_ioctx_create(*cluster, j->rbd_pool, ioctx);
	if (r < 0) {
		*ioctx = NULL;
		snprintf(err, errlen, "%s: pool '%s': %s", engine, j->rbd_pool,
			 r == -ENOENT ? "does not exist" : strerror(-r));
		goto fail;
	}
	return 0;
fail:
	rados_shutdown(*cluster);
	*cluster = NULL;
	return r;
}

void iogap_ceph_disconnect(rados_t cluster, rados_ioctx_t ioctx)
{
	if (ioctx)
		rados_ioctx_destroy(ioctx);
	if (cluster)
		rados_shutdown(cluster);
}
