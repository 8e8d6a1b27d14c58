/* SPDX-License-Identifier: MIT */
/*
 * Which I/O errors a job survives, as fio's td_error.c: continue_on_error
 * names the classes (read, write, verify), ignore_error the errors of each
 * class that do not stop the job (fio's default: EIO and EILSEQ), and
 * fill_device makes ENOSPC and EDQUOT the end of a job that writes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errors.h"
#include "job.h"
#include "util.h"

/* fio's str2error: these names, and numbers for the others */
static const char *const error_names[] = {
	"EPERM", "ENOENT", "ESRCH", "EINTR", "EIO", "ENXIO", "E2BIG", "ENOEXEC", "EBADF",
	"ECHILD", "EAGAIN", "ENOMEM", "EACCES", "EFAULT", "ENOTBLK", "EBUSY", "EEXIST",
	"EXDEV", "ENODEV", "ENOTDIR", "EISDIR", "EINVAL", "ENFILE", "EMFILE", "ENOTTY",
	"ETXTBSY", "EFBIG", "ENOSPC", "ESPIPE", "EROFS", "EMLINK", "EPIPE", "EDOM", "ERANGE",
};

static int parse_error(const char *s, int *out, char *why, size_t whylen)
{
	char *end;
	long v;

	if (s[0] == 'E') {
		for (size_t i = 0; i < sizeof(error_names) / sizeof(error_names[0]); i++) {
			if (!strcmp(s, error_names[i])) {
				*out = (int)i + 1;   /* fio's table is in errno order */
				return 0;
			}
		}
		return iogap_seterr(why, whylen, "unknown error %s, please use number value", s);
	}
	v = strtol(s, &end, 10);
	if (*end || v == 0 || v < -4095 || v > 4095)
		return iogap_seterr(why, whylen, "unknown error %s, please use number value", s);
	*out = (int)(v < 0 ? -v : v);
	return 0;
}

/* One class's "E1:E2:..." list; an empty list leaves the class alone. */
static int parse_class(struct iogap_job *j, unsigned cls, char *list, char *why, size_t whylen)
{
	unsigned n = 0;
	char *name;

	while ((name = strsep(&list, ":")) != NULL && *name) {
		if (n == IOGAP_MAX_IGNORE_ERR)
			return iogap_seterr(why, whylen, "more than %d errors in a class",
					    IOGAP_MAX_IGNORE_ERR);
		if (parse_error(name, &j->ignore_error[cls][n], why, whylen))
			return -1;
		n++;
	}
	if (n) {   /* fio: listing errors turns continue_on_error on for the class */
		j->ignore_error_nr[cls] = n;
		j->continue_on_error |= 1u << cls;
	}
	return 0;
}

/* fio's ignore_error=READ_LIST,WRITE_LIST,VERIFY_LIST */
static int opt_ignore_error(struct iogap_job *j, const char *val, char *why, size_t whylen)
{
	char *copy, *s, *part;
	unsigned cls = 0;
	int r = 0;

	if (!val || !*val)
		return iogap_seterr(why, whylen, "needs READ_ERRORS,WRITE_ERRORS,VERIFY_ERRORS");
	copy = s = strdup(val);
	if (!copy)
		return iogap_seterr(why, whylen, "out of memory");
	while (!r && (part = strsep(&s, ",")) != NULL) {
		if (cls == IOGAP_ERR_CLASSES)
			r = iogap_seterr(why, whylen, "more than 3 classes (read, write, verify)");
		else
			r = parse_class(j, cls++, part, why, whylen);
	}
	free(copy);
	return r;
}

int iogap_job_error_option(struct iogap_job *j, const char *key, const char *val, char *why,
			   size_t whylen)
{
	bool *flag = !strcmp(key, "error_dump") ? &j->error_dump :
		     !strcmp(key, "fill_device") || !strcmp(key, "fill_fs") ? &j->fill_device : NULL;

	if (!strcmp(key, "ignore_error"))
		return opt_ignore_error(j, val, why, whylen);
	if (!flag)
		return 1;
	if (iogap_parse_bool(val, flag))
		return iogap_seterr(why, whylen, "expected 0 or 1");
	return 0;
}

/* fio's td_error_type: EILSEQ is verify's, others by direction */
static unsigned error_class(int ddir_is_read, int err)
{
	if (err == EILSEQ)
		return 2;
	return ddir_is_read ? 0 : 1;
}

bool iogap_job_error_ignored(const struct iogap_job *j, bool read, int err)
{
	static const int non_fatal[] = { EIO, EILSEQ };   /* fio's __NON_FATAL_ERR */
	unsigned cls = error_class(read, err);
	const int *list = j->ignore_error_nr[cls] ? j->ignore_error[cls] : non_fatal;
	unsigned n = j->ignore_error_nr[cls] ? j->ignore_error_nr[cls] : 2;

	if (!(j->continue_on_error & (1u << cls)))
		return false;
	for (unsigned i = 0; i < n; i++)
		if (list[i] == err)
			return true;
	return false;
}

bool iogap_job_error_ends_fill(const struct iogap_job *j, int err)
{
	return j->fill_device && (err == ENOSPC || err == EDQUOT);
}
