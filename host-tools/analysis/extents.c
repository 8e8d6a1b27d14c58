/* SPDX-License-Identifier: MIT */
/* A file's extent map: see extents.h. */
#include "extents.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "util.h"

#define BATCH 512u   /* extents asked for per FIEMAP call */

/* One FIEMAP call from logical offset `from`: extents into f; *next the
 * offset after the last, *last set at the file's last extent. */
static int fiemap_batch(int fd, struct fiemap *fm, uint64_t from, FILE *f, uint64_t *next,
			bool *last)
{
	memset(fm, 0, sizeof(*fm));
	fm->fm_start = from;
	fm->fm_length = FIEMAP_MAX_OFFSET - from;
	fm->fm_flags = from ? 0 : FIEMAP_FLAG_SYNC;
	fm->fm_extent_count = BATCH;
	if (ioctl(fd, FS_IOC_FIEMAP, fm))
		return -1;
	*last = fm->fm_mapped_extents == 0;
	for (uint32_t i = 0; i < fm->fm_mapped_extents; i++) {
		const struct fiemap_extent *e = &fm->fm_extents[i];

		fprintf(f, "%" PRIu64 " %" PRIu64 " %" PRIu64 " %x\n", (uint64_t)e->fe_logical,
			(uint64_t)e->fe_physical, (uint64_t)e->fe_length, e->fe_flags);
		*next = e->fe_logical + e->fe_length;
		*last = *last || (e->fe_flags & FIEMAP_EXTENT_LAST);
	}
	return 0;
}

int iogap_extents_record(const char *file, const char *out, char *err, size_t errlen)
{
	struct fiemap *fm = malloc(sizeof(*fm) + BATCH * sizeof(struct fiemap_extent));
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	FILE *f = fd >= 0 && fm ? fopen(out, "w") : NULL;
	uint64_t from = 0;
	bool last = false;
	int rc = 0;

	if (!f) {
		rc = iogap_seterr(err, errlen, "%s: %s", fd < 0 ? file : fm ? out : "FIEMAP",
				  strerror(fm ? errno : ENOMEM));
		goto out;
	}
	fprintf(f, "# logical physical length flags\n");
	while (!last && !rc)
		if (fiemap_batch(fd, fm, from, f, &from, &last))
			rc = iogap_seterr(err, errlen, "%s: FIEMAP: %s", file, strerror(errno));
	if (fclose(f) && !rc)
		rc = iogap_seterr(err, errlen, "%s: %s", out, strerror(errno));
	if (rc)
		unlink(out);
out:
	if (fd >= 0)
		close(fd);
	free(fm);
	return rc;
}

int iogap_extents_load(const char *path, struct iogap_extents *x, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	char line[256];
	size_t cap = 0;
	int lineno = 0;

	memset(x, 0, sizeof(*x));
	if (!f)
		return iogap_seterr(err, errlen, "%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		struct iogap_extent e;
		char extra;

		lineno++;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (sscanf(line, "%" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNx32 " %c", &e.logical,
			   &e.physical, &e.length, &e.flags, &extra) != 4 || !e.length ||
		    e.logical + e.length < e.logical ||
		    (x->n && e.logical < x->e[x->n - 1].logical + x->e[x->n - 1].length)) {
			iogap_seterr(err, errlen, "%s:%d: not an extent after the previous one "
				     "(logical physical length flags)", path, lineno);
			goto fail;
		}
		if (x->n == cap) {
			struct iogap_extent *ne = realloc(x->e, (cap = cap ? 2 * cap : 64) * sizeof(*ne));

			if (!ne) {
				iogap_seterr(err, errlen, "%s: out of memory", path);
				goto fail;
			}
			x->e = ne;
		}
		x->e[x->n++] = e;
	}
	fclose(f);
	return 0;
fail:
	fclose(f);
	iogap_extents_free(x);
	return -1;
}

void iogap_extents_free(struct iogap_extents *x)
{
	free(x->e);
	memset(x, 0, sizeof(*x));
}

/* The extent holding off, or x->n. */
static size_t extent_at(const struct iogap_extents *x, uint64_t off)
{
	size_t lo = 0, hi = x->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (x->e[mid].logical + x->e[mid].length <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < x->n && x->e[lo].logical <= off ? lo : x->n;
}

static bool placed(const struct iogap_extent *e, bool read)
{
	uint32_t unknown = FIEMAP_EXTENT_UNKNOWN | FIEMAP_EXTENT_DELALLOC |
			   FIEMAP_EXTENT_ENCODED | FIEMAP_EXTENT_DATA_ENCRYPTED |
			   FIEMAP_EXTENT_NOT_ALIGNED | FIEMAP_EXTENT_DATA_INLINE |
			   FIEMAP_EXTENT_DATA_TAIL;

	return !(e->flags & unknown) && !(read && (e->flags & FIEMAP_EXTENT_UNWRITTEN));
}

int iogap_extents_map(const struct iogap_extents *x, uint64_t off, uint64_t len, bool read,
		      uint64_t *dev_off)
{
	size_t i = extent_at(x, off);
	uint64_t end = off + len;

	if (i == x->n || !placed(&x->e[i], read))
		return -1;
	*dev_off = x->e[i].physical + (off - x->e[i].logical);
	/* the request may go on into following extents, contiguous on the device */
	for (; x->e[i].logical + x->e[i].length < end; i++) {
		const struct iogap_extent *a = &x->e[i], *b = &x->e[i + 1];

		if (i + 1 == x->n || b->logical != a->logical + a->length ||
		    b->physical != a->physical + a->length || !placed(b, read))
			return -1;
	}
	return 0;
}
